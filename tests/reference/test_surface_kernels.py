"""The surface kernels of reference/kernel.py, proven on SymPy symbols and checked in every context.

``bicubic_first_partials``, ``bicubic_normal_vector`` and ``cross_boundary_controls`` run on
symbolic controls and parameters (``SYM``) and must equal the textbook tensor-product Bernstein
sums differentiated by SymPy (a polynomial identity, checked with ``sympy.expand``). Then IV
encloses the exact QQ value, and F64 on float32 controls equals the first partials of
``bicubic_partials`` bit for bit (the surface evaluates both and must not disagree).
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
import sympy

from interval.context import IV, QQ, SYM, contains
from reference import kernel as K
from reference.context import F64

# The kernels this file proves (for test_kernel.py's coverage check of ``kernel.__all__``).
KERNELS_PROVEN_HERE = frozenset({"bicubic_first_partials", "bicubic_normal_vector", "cross_boundary_controls"})

u_, v_ = sympy.symbols("u v")


def _sym_patch():
    return np.array([[[sympy.Symbol(f"c{i}{j}{k}") for k in range(3)] for j in range(4)] for i in range(4)],
                    dtype=object)


def _bern(i, t):
    return comb(3, i) * (1 - t) ** (3 - i) * t**i


def _textbook(C):
    S = [sum(_bern(i, u_) * _bern(j, v_) * C[i, j, k] for i in range(4) for j in range(4)) for k in range(3)]
    return S


def _zero(expr) -> bool:
    return sympy.expand(expr) == 0


def test_symbolic_first_partials_and_normal():
    C = _sym_patch()
    S = _textbook(C)
    Su_t = [sympy.diff(s, u_) for s in S]
    Sv_t = [sympy.diff(s, v_) for s in S]
    su, sv = K.bicubic_first_partials(SYM, C, np.array(u_, dtype=object), np.array(v_, dtype=object))
    for k in range(3):
        assert _zero(su[k] - Su_t[k]) and _zero(sv[k] - Sv_t[k])
    # N is the cross product of the proven partials: the same expression trees (no expansion of
    # the degree-12 products needed), and the cross kernel itself is the textbook determinant.
    a, b, N = K.bicubic_normal_vector(SYM, C, np.array(u_, dtype=object), np.array(v_, dtype=object))
    for k in range(3):
        assert a[k] == su[k] and b[k] == sv[k]
    x = np.array(sympy.symbols("x0:3"), dtype=object)
    y = np.array(sympy.symbols("y0:3"), dtype=object)
    X = K.cross(SYM, x, y)
    det = sympy.Matrix([[1, 1, 1], list(x), list(y)])
    unit = [sympy.Matrix([[1 if c == k else 0 for c in range(3)], list(x), list(y)]).det() for k in range(3)]
    for k in range(3):
        assert _zero(X[k] - unit[k])
    assert _zero(sum(X) - det.det())
    want = K.cross(SYM, su, sv)
    for k in range(3):
        assert N[k] == want[k]


@pytest.mark.parametrize("side", ["U0", "U1", "V0", "V1"])
def test_symbolic_cross_boundary_controls_are_the_outward_derivative(side):
    """Evaluated as a cubic in s, the controls give the outward derivative along the side."""
    C = _sym_patch()
    S = _textbook(C)
    s = sympy.Symbol("s")
    if side == "U0":
        boundary, inner, on, sign, var = C[0], C[1], {u_: 0, v_: s}, -1, u_
    elif side == "U1":
        boundary, inner, on, sign, var = C[3], C[2], {u_: 1, v_: s}, 1, u_
    elif side == "V0":
        boundary, inner, on, sign, var = C[:, 0], C[:, 1], {v_: 0, u_: s}, -1, v_
    else:
        boundary, inner, on, sign, var = C[:, 3], C[:, 2], {v_: 1, u_: s}, 1, v_
    D = K.cross_boundary_controls(SYM, boundary, inner)
    for k in range(3):
        truth = sign * sympy.diff(S[k], var).subs(on)
        curve = sum(_bern(j, s) * D[j, k] for j in range(4))
        assert _zero(curve - truth)


def _float32_patch(rng, scale=1.0):
    return (rng.normal(size=(4, 4, 3)) * scale).astype(np.float32)


@pytest.mark.parametrize("seed", range(6))
def test_iv_encloses_qq_and_f64_matches_bicubic_partials(seed):
    rng = np.random.default_rng(seed)
    C = _float32_patch(rng, 10.0 ** rng.integers(-3, 7))
    u, v = float(rng.random()), float(rng.random())
    Cq, uq, vq = QQ.asarray(C), QQ.asarray(u), QQ.asarray(v)
    exact = K.bicubic_normal_vector(QQ, Cq, uq, vq)
    ctx = IV(113)
    encl = K.bicubic_normal_vector(ctx, ctx.asarray(C), ctx.asarray(u), ctx.asarray(v))
    for e, x in zip(exact, encl):
        assert all(contains(xi, ei) for xi, ei in zip(x, e))
    C64 = C.astype(np.float64)
    su, sv = K.bicubic_first_partials(F64, C64, np.float64(u), np.float64(v))
    full = K.bicubic_partials(F64, C64, np.float64(u), np.float64(v))
    assert np.array_equal(su, full[1]) and np.array_equal(sv, full[2])
    b = C64[3]
    i = C64[2]
    D = K.cross_boundary_controls(QQ, QQ.asarray(C[3]), QQ.asarray(C[2]))
    assert all(D[j, k] == 3 * (QQ.asarray(b)[j, k] - QQ.asarray(i)[j, k]) for j in range(4) for k in range(3))


def test_batch_equals_items():
    rng = np.random.default_rng(7)
    C = np.stack([_float32_patch(rng) for _ in range(5)]).astype(np.float64)
    u, v = rng.random(5), rng.random(5)
    su, sv, N = K.bicubic_normal_vector(F64, C, u, v)
    for k in range(5):
        a, b, n = K.bicubic_normal_vector(F64, C[k], u[k], v[k])
        assert np.array_equal(a, su[k]) and np.array_equal(b, sv[k]) and np.array_equal(n, N[k])


def test_every_kernel_named_here_exists():
    assert KERNELS_PROVEN_HERE <= set(K.__all__)
