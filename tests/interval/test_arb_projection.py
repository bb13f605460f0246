"""The second projection oracle (``interval.arb_projection``: exact real-root isolation of the
squared distance's derivative with python-flint) against independent truths: SymPy expansions of
the textbook Bernstein sum, SymPy roots at 100 digits, exact Fractions; its enclosures shrink
quadratically with the root balls' precision, its witnesses replay exactly, it leaves flint's
global precision alone, and on the default corpus it agrees with the interval branch and bound."""

from __future__ import annotations

from fractions import Fraction

import gmpy2
import numpy as np
import pytest
import sympy
from flint import ctx

from interval.arb_projection import (
    decide_lower_bound,
    enclose_min_distance_arb,
    sqrt_down,
    sqrt_up,
    squared_distance_poly,
)
from tests.interval.test_projection_oracle import LINE, ZERO, random_path
from tests.reference.test_query import exact_sq_distance


def _R(x) -> sympy.Rational:
    f = Fraction(float(x))
    return sympy.Rational(f.numerator, f.denominator)


def sympy_f(span, q):
    """|B(u) - q|^2 from the textbook Bernstein sum, as a SymPy polynomial in u."""
    u = sympy.Symbol("u")
    B = [sum(sympy.binomial(3, i) * (1 - u) ** (3 - i) * u**i * _R(span[i][c]) for i in range(4)) for c in range(3)]
    return u, sympy.expand(sum((B[c] - q[c]) ** 2 for c in range(3)))


def sympy_min_sq(controls, q, digits=100):
    """min over spans of |B(u) - q|^2 at ``digits`` digits, from SymPy's roots of the derivative."""
    best = None
    for span in controls:
        u, f = sympy_f(span, q)
        cands = [sympy.Integer(0), sympy.Integer(1)]
        df = sympy.Poly(sympy.diff(f, u), u)
        if not df.is_zero:
            cands += [sympy.re(r) for r in df.nroots(n=digits, maxsteps=500)
                      if abs(sympy.im(r)) < sympy.Float(10) ** (-digits // 2) and 0 <= sympy.re(r) <= 1]
        v = min(sympy.N(f.subs(u, c), digits) for c in cands)
        best = v if best is None else min(best, v)
    return best


def test_the_polynomial_is_the_textbook_squared_distance():
    controls, point = random_path(0, 1)
    q = [_R(point[c]) for c in range(3)]
    u, f = sympy_f(controls[0], q)
    from flint import fmpq

    got = squared_distance_poly(controls[0], [fmpq(*Fraction(float(point[c])).as_integer_ratio()) for c in range(3)])
    coeffs = [sympy.Rational(int(x.p), int(x.q)) for x in got.coeffs()]
    assert sympy.expand(sum(c * u**k for k, c in enumerate(coeffs)) - f) == 0


@pytest.mark.parametrize("seed", range(6))
def test_enclosure_contains_the_sympy_minimum_and_is_attained(seed):
    controls, point = random_path(seed, n=1 + seed % 3)
    origin = np.array([0.25, -0.5, 0.125]) * seed
    q = [_R(point[c]) - _R(origin[c]) for c in range(3)]
    truth = sympy_min_sq(controls, q)
    e = enclose_min_distance_arb(controls, origin, point, 128)
    lo, hi = sympy.Rational(int(e.lower_sq.numerator), int(e.lower_sq.denominator)), \
        sympy.Rational(int(e.upper_sq.numerator), int(e.upper_sq.denominator))
    tol = sympy.Rational(1, 10**90)
    # The 100-digit SymPy value sits inside; a missing mean-value term or candidate would not.
    assert lo <= truth + tol and truth <= hi + tol
    assert (hi - lo) <= max(hi, 1) * sympy.Float(2) ** -200  # quadratic at 128-bit balls
    span, u = e.witness
    qf = [Fraction(float(point[c])) - Fraction(float(origin[c])) for c in range(3)]
    assert exact_sq_distance(controls, qf, span, Fraction(int(u.numerator), int(u.denominator))) == \
        Fraction(int(e.upper_sq.numerator), int(e.upper_sq.denominator))
    span64, u64 = e.witness64
    assert isinstance(u64, float) and exact_sq_distance(controls, qf, span64, u64) == \
        Fraction(int(e.upper64_sq.numerator), int(e.upper64_sq.denominator))


def test_width_shrinks_quadratically_with_precision():
    controls, point = random_path(7)
    widths = [float((e.upper_sq - e.lower_sq) / e.upper_sq)
              for e in (enclose_min_distance_arb(controls, ZERO, point, p) for p in (32, 64, 128))]
    assert widths[0] < 2.0**-50 and widths[1] < 2.0**-110 and widths[2] < 2.0**-230


def test_a_rational_critical_point_gives_the_exact_minimum():
    # Line x = 3u, point (1.5, 2, 0): f = 9 (u - 1/2)^2 + 4, critical point exactly 1/2.
    e = enclose_min_distance_arb(LINE, ZERO, np.array([1.5, 2.0, 0.0]), 64)
    assert e.lower_sq == 4 and e.upper_sq == 4 and e.witness == (0, gmpy2.mpq(1, 2))
    assert decide_lower_bound(LINE, ZERO, np.array([1.5, 2.0, 0.0]), 2.0)[0] is True


def test_ends_and_degenerate_spans():
    # A point span (f constant): no derivative roots, the ends decide.
    dot = np.tile(np.array([1, 2, 2], dtype=np.float32), (1, 4, 1))
    e = enclose_min_distance_arb(dot, ZERO, ZERO, 64)
    assert e.lower_sq == e.upper_sq == 9
    # Beyond the end of a line: the minimum is at u = 1.
    e = enclose_min_distance_arb(LINE, ZERO, np.array([5.0, 0.0, 0.0]), 64)
    assert e.lower_sq == e.upper_sq == 4 and e.witness == (0, 1)


def test_the_origin_subtraction_is_exact():
    # p - o is not a float64 here; the oracle must not round it.
    big = 1e16
    origin = np.array([big, -big, 0.5])
    point = origin + np.array([1.5, 2.0, 0.0])
    controls = LINE
    e = enclose_min_distance_arb(controls, origin, point, 64)
    q = [Fraction(float(point[c])) - Fraction(float(origin[c])) for c in range(3)]
    # f(u) = (3u - q0)^2 + q1^2 + q2^2, minimum at u = q0 / 3 (inside [0, 1]).
    want = q[1] ** 2 + q[2] ** 2
    assert Fraction(int(e.lower_sq.numerator), int(e.lower_sq.denominator)) <= want
    assert Fraction(int(e.upper_sq.numerator), int(e.upper_sq.denominator)) >= want
    assert float(e.upper_sq - e.lower_sq) < 1e-30


def test_decisions_are_three_valued_with_a_replayable_witness():
    controls, point = random_path(3)
    e = enclose_min_distance_arb(controls, ZERO, point, 128)
    m = float(sqrt_down(e.lower_sq))
    assert decide_lower_bound(controls, ZERO, point, m * (1 - 1e-12))[0] is True
    assert decide_lower_bound(controls, ZERO, point, -1.0)[0] is True
    holds, e2 = decide_lower_bound(controls, ZERO, point, m * (1 + 1e-12))
    assert holds is False and e2.upper_sq < gmpy2.mpq(m * (1 + 1e-12)) ** 2
    # Too little precision to separate a bound 2^-50 below the minimum: undecided, never True.
    holds, _ = decide_lower_bound(controls, ZERO, point, m * (1 - 2.0**-50), budget=(16,))
    assert holds in (None, True)
    if holds is True:  # then the 16-bit enclosure really is that tight
        assert gmpy2.mpq(m * (1 - 2.0**-50)) ** 2 <= enclose_min_distance_arb(controls, ZERO, point, 16).lower_sq


def test_square_root_bounds_are_outward():
    for x in (gmpy2.mpq(2), gmpy2.mpq(1, 3), gmpy2.mpq(10**40 + 7, 3), gmpy2.mpq(7, 10**50), gmpy2.mpq(0)):
        lo, hi = sqrt_down(x), sqrt_up(x)
        assert lo * lo <= x <= hi * hi
        assert x == 0 or (hi - lo) / hi < gmpy2.mpq(1, 2**60)


def test_malformed_inputs_raise_and_flint_precision_is_restored():
    before = ctx.prec
    with pytest.raises(ValueError):
        enclose_min_distance_arb(np.zeros((1, 3, 3), np.float32), ZERO, ZERO)
    with pytest.raises(ValueError):
        enclose_min_distance_arb(np.full((1, 4, 3), 0.1), ZERO, ZERO)  # not float32 values
    with pytest.raises(ValueError):
        enclose_min_distance_arb(LINE, ZERO, [np.nan, 0, 0])
    with pytest.raises(ValueError):
        enclose_min_distance_arb(LINE, ZERO, ZERO, prec=8)
    enclose_min_distance_arb(LINE, ZERO, np.array([1.0, 2.0, 3.0]), 300)
    assert ctx.prec == before


def test_agrees_with_the_branch_and_bound_on_the_corpus():
    # The ledger's cross-check, on the named and adversarial cases: the two independent
    # enclosures of the same minimum always share a point.
    import oracles.families.projection as PJ
    from interval.projection import enclose_min_distance
    from oracles.decide import enclosures_overlap
    from oracles.model import dec, dec_array

    seen = 0
    for case in PJ.generate(1, 70)[::3]:
        for c in PJ.claims(case)[:1]:
            i = c.inputs
            C, O, P = dec_array(i["controls"], np.float32), dec_array(i["origin"]), dec_array(i["point"])
            a = enclose_min_distance_arb(C, O, P, 128)
            b = enclose_min_distance(C, O, P, 113, target=dec(i["projection_gap"]) / 16, max_splits=4000)
            assert enclosures_overlap((a.lower_sq, a.upper_sq), (b.lower_sq, b.upper_sq)), case["name"]
            assert a.upper_sq - a.lower_sq <= b.upper_sq - b.lower_sq
            seen += 1
    assert seen >= 20
