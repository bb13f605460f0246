"""The second tessellation oracle (``interval.arb_tessellation``: Taylor models of ``S - T`` on
parameter triangles in Arb balls) against independent truths: SymPy's expansion of the textbook
bicubic Bernstein sum, exact Fraction evaluation of ``S - T`` (de Casteljau and barycentric
interpolation written here), binomial Taylor shifts, the bilinear twist's closed form; and
agreement with the exact Bernstein-hull oracle (``interval.tessellation``) on random cells."""

from __future__ import annotations

from fractions import Fraction as Fr
from math import comb

import gmpy2
import numpy as np
import pytest
import sympy
from flint import arb, arb_mat, ctx, fmpq

from interval.arb_tessellation import (
    _shift_matrix,
    cell_differences,
    enclose_cell_distance_arb,
    patch_power_form,
)
from interval.tessellation import enclose_cell_distance
from oracles.decide import endpoints
import itertools

_u, _v = sympy.symbols("u v")


def random_patch(seed, scale=1.0):
    rng = np.random.default_rng([seed, 41])
    i, j = np.meshgrid(np.arange(4.0), np.arange(4.0), indexing="ij")
    C = np.stack([i, j, np.zeros_like(i)], axis=-1) + rng.normal(size=(4, 4, 3)) * 0.4
    return (C * scale).astype(np.float32)


def exact_point(C, u, v) -> list:
    """S(u, v) exactly: de Casteljau in u then v on Fractions."""
    def casteljau(ps, t):
        while len(ps) > 1:
            ps = [[a + t * (b - a) for a, b in zip(p, q)] for p, q in itertools.pairwise(ps)]
        return ps[0]
    rows = [casteljau([[Fr(float(x)) for x in C[i, j]] for j in range(4)], v) for i in range(4)]
    return casteljau(rows, u)


def exact_distance_sq(C, box, V, k, s, t) -> Fr:
    """|S - T|^2 at local (s, t) of the cell's triangle k (1: s >= t, vertices V00 V10 V11;
    2: t >= s, vertices V00 V01 V11), T by barycentric interpolation."""
    u0, u1, v0, v1 = (Fr(x) for x in box)
    S = exact_point(C, u0 + s * (u1 - u0), v0 + t * (v1 - v0))
    V00, V10, V01, V11 = ([Fr(float(x)) for x in w] for w in V)
    if k == 1:  # vertices (0,0), (1,0), (1,1): weights 1 - s, s - t, t
        w = [(1 - s, V00), (s - t, V10), (t, V11)]
    else:  # (0,0), (0,1), (1,1): 1 - t, t - s, s
        w = [(1 - t, V00), (t - s, V01), (s, V11)]
    T = [sum(a * X[c] for a, X in w) for c in range(3)]
    return sum((x - y) ** 2 for x, y in zip(S, T))


def test_power_form_is_the_textbook_bernstein_sum():
    C = random_patch(0)
    A = patch_power_form(C)
    for c in range(3):
        S = sum(sympy.binomial(3, i) * sympy.binomial(3, j) * (1 - _u) ** (3 - i) * _u**i * (1 - _v) ** (3 - j)
                * _v**j * sympy.Rational(*Fr(float(C[i, j, c])).as_integer_ratio()) for i in range(4) for j in range(4))
        got = sum(sympy.Rational(int(A[p][q][c].p), int(A[p][q][c].q)) * _u**p * _v**q
                  for p in range(4) for q in range(4))
        assert sympy.expand(S - got) == 0


@pytest.mark.parametrize("x", [Fr(0), Fr(1, 3), Fr(-5, 8), Fr(7, 2)])
def test_shift_matrix_is_the_binomial_taylor_shift(x):
    rng = np.random.default_rng(3)
    a = [Fr(int(n), 7) for n in rng.integers(-20, 20, 4)]
    want = [sum(comb(i, k) * a[i] * x ** (i - k) for i in range(k, 4)) for k in range(4)]
    with ctx.workprec(256):
        S = _shift_matrix(arb(fmpq(x.numerator, x.denominator)))
        got = (S * arb_mat([[fmpq(y.numerator, y.denominator)] for y in a])).entries()
        for g, w in zip(got, want):  # endpoints read at the working precision (they round outward)
            lo, hi = endpoints(g)
            assert lo <= gmpy2.mpq(w.numerator, w.denominator) <= hi and hi - lo < gmpy2.mpq(1, 2**200)


def test_cell_differences_are_s_minus_t_exactly():
    C = random_patch(1)
    box = (Fr(1, 4), Fr(1, 2), Fr(0), Fr(1, 8))
    V = [np.asarray(exact_point(C, u, v), dtype=np.float32)  # vertices rounded to float32, as emitted
         for u, v in ((box[0], box[2]), (box[1], box[2]), (box[0], box[3]), (box[1], box[3]))]
    Fs = cell_differences(patch_power_form(C), *box, *V)
    for k, F in enumerate(Fs, start=1):
        for s, t in ((Fr(1, 3), Fr(1, 7)), (Fr(1, 2), Fr(1, 2)), (Fr(1), Fr(0)), (Fr(2, 5), Fr(9, 10))):
            f = [sum(Fr(int(F[p][q][c].p), int(F[p][q][c].q)) * s**p * t**q for p in range(4) for q in range(4))
                 for c in range(3)]
            assert sum(x * x for x in f) == exact_distance_sq(C, box, V, k, s, t)


def _twisted(b):
    """(i + b i j, j, i j): S = (3u + 9 b u v, 3v, 9 u v), twist W = (9 b, 0, 9)."""
    return np.array([[(i + b * i * j, j, float(i * j)) for j in range(4)] for i in range(4)], dtype=np.float32)


def test_bilinear_twist_is_enclosed_and_decided_at_its_closed_form():
    b = 2.0**-12
    C = _twisted(b)
    V = [C[0, 0], C[3, 0], C[0, 3], C[3, 3]]
    truth = Fr(81, 16) * (1 + Fr(b) ** 2)  # (|W| / 4)^2 at the diagonal's midpoint
    c_hi = float(np.sqrt(float(truth))) * (1 + 2**-45)
    r = enclose_cell_distance_arb(C, 0, 1, 0, 1, *V, c_hi)
    assert r.holds is True and r.lower_sq <= truth <= r.upper_sq <= Fr(c_hi) ** 2
    c_lo = float(np.float32(2.25))  # the float32 just below the truth: refuted with an exact witness
    r = enclose_cell_distance_arb(C, 0, 1, 0, 1, *V, c_lo)
    assert r.holds is False and r.upper_sq is None
    k, (s, t), lower = r.witness
    assert lower > Fr(c_lo) ** 2 and exact_distance_sq(C, (0, 1, 0, 1), V, k, Fr(s), Fr(t)) >= lower


def test_a_planar_cell_with_exact_vertices_is_zero():
    C = np.array([[(i, j, 0.25 * i - 0.5 * j) for j in range(4)] for i in range(4)], dtype=np.float32)
    pts = [exact_point(C, u, v) for u, v in ((0, Fr(1, 2)), (Fr(1, 2), Fr(1, 2)), (0, 1), (Fr(1, 2), 1))]
    V = [np.asarray([float(x) for x in p], dtype=np.float32) for p in pts]
    assert all(Fr(float(x)) == y for v, p in zip(V, pts) for x, y in zip(v, p))  # exact vertices
    r = enclose_cell_distance_arb(C, 0, 0.5, 0.5, 1, *V, 0.0)
    assert r.holds is True and r.lower_sq == r.upper_sq == 0


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_exact_hull_oracle(seed):
    C = random_patch(seed, scale=10.0 ** (seed % 3 - 1))
    n = 1 << (seed % 3)
    a, bb = seed % n, (seed * 7) % n
    box = (Fr(a, n), Fr(a + 1, n), Fr(bb, n), Fr(bb + 1, n))
    V = [np.asarray(exact_point(C, u, v), dtype=np.float32)
         for u, v in ((box[0], box[2]), (box[1], box[2]), (box[0], box[3]), (box[1], box[3]))]
    # a claim just above the truth and one just below it: the two oracles decide alike
    est = enclose_cell_distance_arb(C, *box, *V, 0.0)
    big = float(np.sqrt(float(est.lower_sq))) if est.lower_sq > 0 else 1e-30
    for c in (big * 1.5, big * 0.5):
        r = enclose_cell_distance_arb(C, *box, *V, c)
        e = enclose_cell_distance(C, *(gmpy2.mpq(x.numerator, x.denominator) for x in box), *V, c, 4096)
        assert r.holds == e.holds
        assert r.lower_sq <= (e.upper_sq if e.upper_sq is not None else r.lower_sq)
        assert e.lower_sq <= (r.upper_sq if r.upper_sq is not None else e.lower_sq)


@pytest.mark.parametrize("bad", [dict(controls=np.zeros((4, 3, 3))), dict(prec=32), dict(c=-1.0),
                                 dict(controls=np.full((4, 4, 3), np.inf))])
def test_malformed_inputs_raise_value_error(bad):
    args = dict(controls=random_patch(2), prec=64, c=1.0)
    args.update(bad)
    V = [np.zeros(3, np.float32)] * 4
    with pytest.raises(ValueError):
        enclose_cell_distance_arb(args["controls"], 0, 1, 0, 1, *V, args["c"], prec=args["prec"])


def test_flint_precision_is_left_alone():
    saved = ctx.prec
    C = random_patch(4)
    enclose_cell_distance_arb(C, 0, 1, 0, 1, C[0, 0], C[3, 0], C[0, 3], C[3, 3], 10.0, prec=256)
    assert ctx.prec == saved
