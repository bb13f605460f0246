"""The tessellation oracle against hand-derived values and SymPy: the cell polynomial is the
patch composed with the cell's affine maps; the bilinear twisted cell's true distance to its
triangles is exactly |W| / 4 (at the cell centre); a planar cell's is zero; the branch and
bound is Undecided within too small a budget; cos brackets and the convex-cone normal test.
The oracle imports nothing from the fast path beyond what ARCHITECTURE.md allows."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import gmpy2
import numpy as np
import pytest
import sympy

from interval.surface import exact_partials
from interval.tessellation import (
    cell_polynomial,
    cos_bounds,
    decide_max_angle,
    decide_max_distance,
    enclose_cell_distance,
    normal_monomials,
    normal_polynomials,
    sampled_angles,
    triangle_differences,
)
import itertools

q = gmpy2.mpq


def affine(z=lambda i, j: 0.0):
    return np.array([[(i, j, z(i, j)) for j in range(4)] for i in range(4)], dtype=np.float32)


def test_oracle_imports_only_allowed_reference_modules():
    tree = ast.parse(Path("interval/tessellation.py").read_text())
    names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m.startswith("reference") and m not in ("reference.context", "reference.kernel", "reference.status")
                   for m in names)


def test_cell_polynomial_is_the_patch_on_the_cell():
    rng = np.random.default_rng(3)
    C = rng.normal(size=(4, 4, 3)).astype(np.float32)
    u0, u1, v0, v1 = q(1, 4), q(1, 2), q(3, 8), q(1, 2)
    M = cell_polynomial(C, u0, u1, v0, v1)
    for s, t in ((q(0), q(0)), (q(1, 3), q(5, 7)), (q(1), q(1, 2))):
        got = [sum(M[p, k, c] * s**p * t**k for p in range(4) for k in range(4)) for c in range(3)]
        # SymPy: the Bernstein sum at the mapped point.
        uu, vv = sympy.Rational(int((u0 + s * (u1 - u0)).numerator), int((u0 + s * (u1 - u0)).denominator)), \
            sympy.Rational(int((v0 + t * (v1 - v0)).numerator), int((v0 + t * (v1 - v0)).denominator))
        B = [sympy.binomial(3, i) * uu**i * (1 - uu) ** (3 - i) for i in range(4)]
        Bv = [sympy.binomial(3, j) * vv**j * (1 - vv) ** (3 - j) for j in range(4)]
        for c in range(3):
            exact = sum(B[i] * Bv[j] * sympy.Rational(*float(C[i, j, c]).as_integer_ratio()) for i in range(4)
                        for j in range(4))
            assert sympy.Rational(int(got[c].numerator), int(got[c].denominator)) == exact


def test_cell_polynomial_agrees_with_exact_partials_at_dyadic_points():
    rng = np.random.default_rng(4)
    C = rng.normal(size=(4, 4, 3)).astype(np.float32)
    M = cell_polynomial(C, 0.0, 1.0, 0.0, 1.0)
    for u, v in ((0.25, 0.75), (0.5, 0.125)):
        got = [sum(M[p, k, c] * q(u)**p * q(v)**k for p in range(4) for k in range(4)) for c in range(3)]
        assert got == exact_partials(C, u, v)[0]


def twisted_cell():
    C = affine(lambda i, j: float(i * j))  # S = (3u, 3v, 9uv)
    V = [np.array(x, dtype=np.float32) for x in ((0, 0, 0), (3, 0, 0), (0, 3, 0), (3, 3, 9))]
    return C, V


def test_twisted_cell_distance_is_exactly_the_twist_over_four():
    # On s >= t: S - T = -t (1 - s) W, W = (0, 0, 9): the maximum 9/4 at s = t = 1/2.
    C, V = twisted_cell()
    r = enclose_cell_distance(C, 0, 1, 0, 1, *V, c=q(9, 4))
    assert r.holds is True and r.lower_sq == q(81, 16) and r.upper_sq == q(81, 16)
    r = enclose_cell_distance(C, 0, 1, 0, 1, *V, c=q(9, 4) - q(1, 10**9))
    assert r.holds is False and r.witness[2] == q(81, 16)


def test_planar_cell_distance_is_zero():
    C = affine(lambda i, j: 0.5 * i - 0.25 * j)
    V = [np.array(x, dtype=np.float32) for x in ((0, 0, 0), (3, 0, 1.5), (0, 3, -0.75), (3, 3, 0.75))]
    r = enclose_cell_distance(C, 0, 1, 0, 1, *V, c=0)
    assert r.holds is True and r.upper_sq == 0


def test_branch_and_bound_is_undecided_within_a_tiny_budget():
    # The root's Bernstein hull of -s w (1 - s) W reaches |W| / 2 and its corners are 0.
    C, V = twisted_cell()
    B1, _ = triangle_differences(cell_polynomial(C, 0, 1, 0, 1), *V)
    r = decide_max_distance(B1, q(23, 10) ** 2, max_boxes=1)
    assert r.holds is None and r.lower_sq <= q(81, 16) <= r.upper_sq


@pytest.mark.parametrize("theta", [0.0, 1e-7, 0.3, 1.0, 1.5])
def test_cos_bounds_bracket_cos(theta):
    from mpmath import mp

    lo, hi = cos_bounds(theta)
    with mp.workprec(200):
        c = mp.cos(mp.mpf(theta))
        assert mp.mpf(int(lo.numerator)) / int(lo.denominator) <= c <= mp.mpf(int(hi.numerator)) / int(hi.denominator)
    assert hi - lo < q(1, 10**6)


def test_normal_cone_test_on_a_planar_cell():
    C = affine()  # S = (3u, 3v, 0): N along +z everywhere
    M = cell_polynomial(C, 0, 1, 0, 1)
    N1, N2 = normal_polynomials(M)
    assert decide_max_angle(N1, [0, 0, 1], q(1, 10**6)) is True
    tilted = [0, math.sin(0.2), math.cos(0.2)]
    assert decide_max_angle(N1, tilted, q(1, 10)) is False
    assert decide_max_angle(N2, tilted, q(3, 10)) is True
    Nm = normal_monomials(M)
    assert sampled_angles(Nm, [0, 0, 1], 1) == 0.0
    assert abs(sampled_angles(Nm, tilted, 2) - 0.2) < 1e-12


def test_arbitrary_triangle_enclosure_agrees_with_the_cell_method():
    # The general Duffy map over a parameter triangle and the cell method bracket the same
    # maximum on a grid cell's first triangle (s >= t: corners (u0, v0), (u1, v0), (u1, v1)).
    from interval.tessellation import enclose_max_distance, triangle_difference

    rng = np.random.default_rng(9)
    C = rng.normal(size=(4, 4, 3)).astype(np.float32)
    V = [C[0, 0], exact_partials(C, 0.5, 0.0)[0], None, exact_partials(C, 0.5, 0.5)[0]]
    V = [np.array([float(x) for x in v], dtype=np.float32) if v is not None else np.zeros(3, np.float32) for v in V]
    lo, hi = enclose_max_distance(triangle_difference(C, (0, 0), (0.5, 0), (0.5, 0.5), V[0], V[1], V[3]),
                                  max_boxes=3000)
    B1, _ = triangle_differences(cell_polynomial(C, 0, q(1, 2), 0, q(1, 2)), V[0], V[1], V[2], V[3])
    inside = decide_max_distance(B1, hi * q(101, 100), max_boxes=3000)
    below = decide_max_distance(B1, lo * q(99, 100), max_boxes=3000)
    assert inside.holds is True and below.holds is False
    assert hi <= lo * q(21, 20) ** 2


def test_subdivision_weights_are_the_exact_restriction():
    """Each cell's weights applied to a cubic's controls give the controls of the cubic on the
    cell: checked in exact rationals against de Casteljau subdivision (an independent method)."""
    from interval.tessellation import subdivision_weights

    for level in (0, 1, 3):
        W = subdivision_weights(level)
        n = 1 << level
        for a in range(n):
            assert all(q(float(x)) >= 0 for x in W[a].ravel()) and np.all(W[a].sum(-1) == 1.0)
            c = [q(1), q(-2), q(5), q(3)]
            t0, t1 = q(a, n), q(a + 1, n)

            def split(cs, t):  # de Casteljau: controls of [0, t] and [t, 1]
                lo, hi, rows = [cs[0]], [cs[-1]], list(cs)
                while len(rows) > 1:
                    rows = [x * (1 - t) + y * t for x, y in itertools.pairwise(rows)]
                    lo.append(rows[0])
                    hi.insert(0, rows[-1])
                return lo, hi

            right = split(c, t0)[1]  # on [t0, 1]
            want = split(right, (t1 - t0) / (1 - t0))[0] if t0 < 1 else right
            got = [sum(q(float(W[a, i, k])) * c[k] for k in range(4)) for i in range(4)]
            assert got == want


def test_cell_term_enclosures_contain_the_exact_terms():
    """The float64 enclosure of term 1 + term 2 contains the exact value computed in rationals
    from the oracle's own cell polynomial (Bernstein coefficients of the cell)."""
    import math

    from interval.tessellation import _to_bernstein, cell_polynomial, cell_term_enclosures

    rng = np.random.default_rng(4)
    for trial in range(4):
        C = (rng.normal(size=(4, 4, 3)) * 10.0 ** rng.uniform(-2, 4)).astype(np.float32)
        lu, lv = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        lo, hi = cell_term_enclosures(C, lu, lv)
        nu, nv = 1 << lu, 1 << lv
        for a in range(nu):
            for b in range(nv):
                D = _to_bernstein(cell_polynomial(C, q(a, nu), q(a + 1, nu), q(b, nv), q(b + 1, nv)))
                c = [D[0, 0], D[3, 0], D[0, 3], D[3, 3]]
                t1 = max(sum((D[i, j][k] - ((3 - i) * (3 - j) * c[0][k] + i * (3 - j) * c[1][k] + (3 - i) * j * c[2][k]
                                             + i * j * c[3][k]) / 9) ** 2 for k in range(3))
                         for i in range(4) for j in range(4))
                t2 = sum((c[0][k] - c[1][k] - c[2][k] + c[3][k]) ** 2 for k in range(3)) / 16
                # compare squares exactly where possible; sqrt only of exact rationals, outward
                exact_lo = math.sqrt(float(t1)) + math.sqrt(float(t2))
                assert lo[a, b] <= exact_lo * (1 + 1e-15) and exact_lo * (1 - 1e-15) <= hi[a, b]
                assert hi[a, b] - lo[a, b] <= 1e-12 * float(np.max(np.abs(C)))
