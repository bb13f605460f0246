"""The frame kernels of reference/kernel.py, proven on SymPy symbols and checked in every context.

``reflect``, ``rotate_between`` and ``rotate_about`` run on symbolic vectors (``SYM``) and must
equal their textbook definitions as rational identities (the expanded numerator of the
difference is zero): a reflection is ``v - 2 (n.v)/(n.n) n``, is an involution, fixes the plane and
negates ``n``, and preserves dot products; the minimal rotation maps ``a`` to ``b``, fixes
``a x b`` for every rational pair of unit vectors (a rational parametrization of the sphere),
and is Rodrigues' rotation, orthogonal with determinant 1, for Pythagorean unit vectors;
``rotate_about`` is the rotation matrix about z for ``k = z`` and preserves lengths when
``c^2 + s^2 = 1``. Then IV encloses the exact QQ value
and F64 stays within a few ulps of it.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from interval.context import IV, QQ, SYM, contains
from reference import kernel as K
from reference.context import F64


def _sv(name):
    return np.array(sympy.symbols(f"{name}0:3"), dtype=object)


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _zero(expr) -> bool:
    return sympy.expand(sympy.numer(sympy.together(expr))) == 0


def _unit_sym(p, q):
    """A rational point of the unit sphere (inverse stereographic projection of (p, q))."""
    d = 1 + p**2 + q**2
    return np.array([2 * p / d, 2 * q / d, (p**2 + q**2 - 1) / d], dtype=object)


def test_symbolic_reflect():
    v, n, w = _sv("v"), _sv("n"), _sv("w")
    r = K.reflect(SYM, v, n)
    textbook = [v[i] - 2 * _dot(n, v) / _dot(n, n) * n[i] for i in range(3)]
    assert all(_zero(r[i] - textbook[i]) for i in range(3))
    rr = K.reflect(SYM, r, n)
    assert all(_zero(rr[i] - v[i]) for i in range(3))  # an involution
    rn = K.reflect(SYM, n, n)
    assert all(_zero(rn[i] + n[i]) for i in range(3))  # n goes to -n
    rw = K.reflect(SYM, w, n)
    assert _zero(_dot(r, rw) - _dot(v, w))  # dot products are preserved


def test_symbolic_rotate_between_maps_a_to_b_and_fixes_the_axis():
    p, q, s, t = sympy.symbols("p q s t", real=True)
    a, b = _unit_sym(p, q), _unit_sym(s, t)  # every rational pair of unit vectors
    assert all(_zero(x - y) for x, y in zip(K.rotate_between(SYM, a, a, b), b))  # a -> b
    axis = K.cross(SYM, a, b)
    assert all(_zero(x - y) for x, y in zip(K.rotate_between(SYM, axis, a, b), axis))  # fixes a x b


# Rational unit vectors (Pythagorean quadruples) for the identities in symbolic v and w.
_UNITS = [(2, 3, 6, 7), (1, 4, 8, 9), (-2, 6, 9, 11), (6, -2, 3, 7), (2, 10, -11, 15)]


@pytest.mark.parametrize("i, j", [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)])
def test_symbolic_rotate_between_is_rodrigues_and_orthogonal(i, j):
    a = np.array([sympy.Rational(x, _UNITS[i][3]) for x in _UNITS[i][:3]], dtype=object)
    b = np.array([sympy.Rational(x, _UNITS[j][3]) for x in _UNITS[j][:3]], dtype=object)
    v, w = _sv("v"), _sv("w")
    rv, rw = K.rotate_between(SYM, v, a, b), K.rotate_between(SYM, w, a, b)
    assert _zero(_dot(rv, rw) - _dot(v, w))  # orthogonal
    assert _zero(sympy.Matrix([list(K.rotate_between(SYM, e, a, b)) for e in np.eye(3, dtype=int)]).det() - 1)
    # Rodrigues with cos = a.b and sin * axis = a x b: R v = c v + w x v + (1 - c)/|w|^2 (w.v) w
    axis = K.cross(SYM, a, b)
    c = _dot(a, b)
    rod = [c * v[k] + K.cross(SYM, axis, v)[k] + (1 - c) / _dot(axis, axis) * _dot(axis, v) * axis[k]
           for k in range(3)]
    assert all(_zero(rv[k] - rod[k]) for k in range(3))


def test_symbolic_rotate_about():
    v = _sv("v")
    c, s = sympy.symbols("c s", real=True)
    z = np.array([0, 0, 1], dtype=object)
    r = K.rotate_about(SYM, v, z, c, s)
    want = [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]]
    assert all(_zero(r[i] - want[i]) for i in range(3))
    p, q, m = sympy.symbols("p q m", real=True)
    k = _unit_sym(p, q)
    cc, ss = (1 - m**2) / (1 + m**2), 2 * m / (1 + m**2)  # a rational angle: cc^2 + ss^2 = 1
    rk = K.rotate_about(SYM, v, k, cc, ss)
    assert _zero(_dot(rk, rk) - _dot(v, v))
    assert _zero(_dot(rk, k) - _dot(v, k))  # the axis component is kept


def _cases(rng, n=40):
    for _ in range(n):
        a = rng.normal(size=3)
        b = rng.normal(size=3)
        yield rng.normal(size=3), a / np.linalg.norm(a), b / np.linalg.norm(b)


@pytest.mark.parametrize("name", ["reflect", "rotate_between", "rotate_about"])
def test_iv_encloses_qq_and_f64_is_close(name):
    rng = np.random.default_rng(4)
    ctx = IV(113)
    for v, a, b in _cases(rng):
        if name == "reflect":
            args = (v, a)
        elif name == "rotate_between":
            args = (v, a, b)
        else:
            args = (v, a, np.float64(0.6), np.float64(0.8))
        fn = getattr(K, name)
        exact = fn(QQ, *(QQ.asarray(x) for x in args))
        enc = fn(ctx, *(ctx.asarray(x) for x in args))
        got = fn(F64, *(np.asarray(x, dtype=np.float64) for x in args))
        scale = float(np.max(np.abs(v))) * 8
        for i in range(3):
            assert contains(enc[i], exact[i])
            assert abs(float(exact[i]) - float(got[i])) <= 64 * 2.0**-53 * scale


def test_derivative_boxes_hold_the_exact_hodograph_far_from_the_origin():
    """``reference.frame``'s regularity boxes (Certified) contain the exact hodograph controls
    of every interval, computed in rationals, on random float32 spans near 1e5 at dyadic
    intervals down to depth 24 (where the float64 subsegment controls round); and their smallest
    norm is at most the exact smallest norm over the box's corner set."""
    from reference.frame import _derivative_boxes, _speed_range

    rng = np.random.default_rng(11)
    misses = 0
    for trial in range(40):
        base = rng.uniform(-1.2e5, 1.2e5, 3)
        P = (base + np.cumsum(rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-2, 1), axis=0)).astype(np.float32)
        P = P.astype(np.float64)[None]
        d = int(rng.integers(8, 25))
        k = int(rng.integers(0, 2**d))
        a, b = np.array([k / 2**d]), np.array([(k + 1) / 2**d])
        lo, hi = _derivative_boxes(P, a, b)
        Q = K.cubic_subsegment(QQ, QQ.asarray(P[0]), QQ.asarray(a[0]), QQ.asarray(b[0]))
        scale = QQ.asarray(3.0 * 2**d)
        for i in range(3):
            h = (Q[i + 1] - Q[i]) * scale
            for c in range(3):
                assert QQ.asarray(lo[0, c]) <= h[c] <= QQ.asarray(hi[0, c]), (trial, i, c)
        smin, smax = _speed_range(lo, hi)
        amin = [max(0.0, lo[0, c]) if lo[0, c] > 0 else (-hi[0, c] if hi[0, c] < 0 else 0.0) for c in range(3)]
        exact = sum(QQ.asarray(x) ** 2 for x in amin)
        assert QQ.asarray(smin[0]) ** 2 <= exact
        misses += int(QQ.asarray(smax[0]) ** 2
                      < sum(QQ.asarray(max(abs(lo[0, c]), abs(hi[0, c]))) ** 2 for c in range(3)))
    assert misses == 0


def test_hodograph_boxes_hold_the_exact_hodograph_at_any_depth():
    """``reference.frame._hodograph_boxes`` (Certified; the box an interval is decided by where the
    level box cannot decide) contains the exact Bezier controls of ``B'`` over ``[a, b]``, the
    polar form ``h(a, a), h(a, b), h(b, b)`` of the hodograph computed in rationals, on random
    float32 spans whose coordinates mix magnitudes 1e-3 .. 1e5 at dyadic intervals of depth 1 to
    52, so that the weights' products and their sums round. Its width is the exact controls'
    spread plus at most 64 u of the hodograph at every depth (the level box's rounding grows like
    2^depth)."""
    from fractions import Fraction

    from reference.frame import _hodograph_boxes

    rng = np.random.default_rng(12)
    for trial in range(300):
        P = (rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-3, 5, size=(4, 3))).astype(np.float32).astype(np.float64)
        d = int(rng.integers(1, 53))
        k = int(rng.integers(0, 2**min(d, 62) - 1))
        a, b = Fraction(k, 2**d), Fraction(k + 1, 2**d)
        lo, hi = _hodograph_boxes(P[None], np.array([float(a)]), np.array([float(b)]))
        D = [[3 * (Fraction(P[i + 1, c]) - Fraction(P[i, c])) for c in range(3)] for i in range(3)]
        size = max(abs(x) for row in D for x in row)
        hs = []
        for x, y in ((a, a), (a, b), (b, b)):
            w = ((1 - x) * (1 - y), x * (1 - y) + (1 - x) * y, x * y)
            hs.append([sum(wi * D[i][c] for i, wi in enumerate(w)) for c in range(3)])
        for c in range(3):
            exact = [h[c] for h in hs]
            assert Fraction(lo[0, c]) <= min(exact) and max(exact) <= Fraction(hi[0, c]), (trial, d, c)
            # the rounding: a few u of the hodograph, whatever the depth
            assert Fraction(hi[0, c]) - Fraction(lo[0, c]) <= max(exact) - min(exact) + 64 * 2**-53 * size, (trial, d)
