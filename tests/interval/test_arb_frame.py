"""The second frame-regularity oracle (``interval.arb_frame``: exact real-root isolation of
``d/du |B'|^2`` with python-flint) against independent truths: SymPy's textbook derivative of the
Bernstein sum, SymPy roots at 100 digits, exact Fractions; exact answers at rational extrema,
three-valued decisions with exact witnesses, and agreement with the Bernstein oracle."""

from __future__ import annotations

from fractions import Fraction

import gmpy2
import numpy as np
import pytest
import sympy
from flint import ctx

from interval.arb_frame import decide_speed_arb, enclose_speed_extremum_arb, speed_squared_poly
from interval.frame import decide_speed_above, decide_speed_at_most

_u = sympy.Symbol("u")


def _R(x) -> sympy.Rational:
    f = Fraction(float(x))
    return sympy.Rational(f.numerator, f.denominator)


def _Q(q) -> sympy.Rational:
    return sympy.Rational(int(q.numerator), int(q.denominator))


def sympy_speed_sq(P) -> sympy.Expr:
    """|B'(u)|^2 from the textbook Bernstein sum, differentiated by SymPy."""
    B = [sum(sympy.binomial(3, i) * (1 - _u) ** (3 - i) * _u**i * _R(P[i][c]) for i in range(4)) for c in range(3)]
    return sympy.expand(sum(sympy.diff(b, _u) ** 2 for b in B))


def sympy_extremum(P, u0, u1, which="min", digits=100):
    """The extremum of |B'|^2 over [u0, u1] at ``digits`` digits (SymPy roots of the derivative)."""
    f = sympy_speed_sq(P)
    a, b = _R(u0), _R(u1)
    cands = [a, b]
    df = sympy.Poly(sympy.diff(f, _u), _u)
    if df.degree() > 0:
        cands += [sympy.re(r) for r in df.nroots(n=digits, maxsteps=500)
                  if abs(sympy.im(r)) < sympy.Float(10) ** (-digits // 2) and a <= sympy.re(r) <= b]
    vals = [sympy.N(f.subs(_u, c), digits) for c in cands]
    return min(vals) if which == "min" else max(vals)


def random_span(seed):
    rng = np.random.default_rng([seed, 23])
    P = np.cumsum(rng.normal(size=(4, 3)) * rng.uniform(0.1, 10), axis=0)
    return P.astype(np.float32)


def test_the_polynomial_is_the_textbook_speed_squared():
    P = random_span(0)
    f = speed_squared_poly(P)
    got = sum(sympy.Rational(int(c.p), int(c.q)) * _u**k for k, c in enumerate(f.coeffs()))
    assert sympy.expand(got - sympy_speed_sq(P)) == 0


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("which", ["min", "max"])
def test_enclosure_contains_the_sympy_extremum_and_is_attained(seed, which):
    P = random_span(seed)
    rng = np.random.default_rng([seed, 5])
    u0, u1 = sorted(float(x) for x in rng.random(2))
    if seed % 4 == 0:
        u0, u1 = 0.0, 1.0
    truth = sympy_extremum(P, u0, u1, which)
    e = enclose_speed_extremum_arb(P, u0, u1, 128, which)
    lo, hi = _Q(e.lower), _Q(e.upper)
    tol = sympy.Rational(1, 10**80) * max(abs(truth), 1)
    # The 100-digit SymPy value sits inside; a missing candidate or mean-value term would not.
    assert lo - tol <= truth <= hi + tol
    assert hi - lo <= max(abs(hi), 1) * sympy.Float(2) ** -200  # quadratic at 128-bit balls
    u, val = e.witness
    assert _R(u0) <= _Q(u) <= _R(u1)
    assert sympy_speed_sq(P).subs(_u, _Q(u)) == _Q(val)  # the attained end is an exact value
    assert _Q(val) == (hi if which == "min" else lo)


def test_straight_uniform_span_is_exact():
    # |B'| = 3 |D| everywhere: both ends of the enclosure are exactly 9 |D|^2
    D = np.array([0.375, -0.25, 0.125])
    P = np.array([i * D for i in range(4)], dtype=np.float32)
    for which in ("min", "max"):
        e = enclose_speed_extremum_arb(P, 0.25, 0.75, 64, which)
        assert e.lower == e.upper == 9 * sum(gmpy2.mpq(float(x)) ** 2 for x in D)


def test_rational_zero_of_the_speed_is_found_exactly():
    # B'(u) = 27 (u - 1/3)^2 v: the minimum 0 at the non-dyadic u = 1/3, which only the exact
    # rational roots reach (a ball's midpoint would not be a zero)
    v = np.array([1.0, 0.5, 0.25])
    P = np.array([0 * v, 1 * v, -1 * v, 3 * v], dtype=np.float32)
    e = enclose_speed_extremum_arb(P, 0.0, 0.5, 128, "min")
    assert e.lower == e.upper == 0 and e.witness == (gmpy2.mpq(1, 3), 0)
    holds, e = decide_speed_arb(P, 0.0, 0.5, 0.0, above=True)
    assert holds is False and e.witness[0] == gmpy2.mpq(1, 3)


def test_interior_minimum_and_ends():
    # |B'|^2 = 9 + 9 (1 - 2u)^2: minimum 9 at u = 1/2, maximum 18 at the ends
    P = np.array([[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]], dtype=np.float32)
    e = enclose_speed_extremum_arb(P, 0.0, 1.0, 128, "min")
    assert e.lower == e.upper == 9 and e.witness[0] == gmpy2.mpq(1, 2)
    e = enclose_speed_extremum_arb(P, 0.0, 1.0, 128, "max")
    assert e.lower == e.upper == 18 and e.witness[0] in (0, 1)
    e = enclose_speed_extremum_arb(P, 0.625, 0.75, 128, "min")  # monotone piece: the left end
    assert e.lower == e.upper == 9 + 9 * gmpy2.mpq(1 - 2 * 0.625) ** 2


def test_decisions_are_three_valued_at_the_threshold():
    P = np.array([[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]], dtype=np.float32)  # min |B'| = 3 exactly
    below, above = np.nextafter(3.0, 0.0), np.nextafter(3.0, 4.0)
    assert decide_speed_arb(P, 0.0, 1.0, below, above=True)[0] is True
    holds, e = decide_speed_arb(P, 0.0, 1.0, 3.0, above=True)  # |B'| > 3 fails at u = 1/2 exactly
    assert holds is False and e.witness == (gmpy2.mpq(1, 2), 9)
    assert decide_speed_arb(P, 0.0, 1.0, np.sqrt(18.0) * (1 + 2**-50), above=False)[0] is True
    assert decide_speed_arb(P, 0.0, 1.0, above, above=False)[0] is False
    # |B'|^2 = 9 + 9 ((1 - u)^2 - u^2 / 2)^2 reaches its minimum 9 at the irrational
    # u = 2 - sqrt 2: at MinimumSpeed 3 no exact witness exists, so the answer is None, never a guess
    Q = np.array([[0, 0, 0], [1, 1, 0], [2, 1, 0], [3.0, 0.5, 0]], dtype=np.float32)
    e = enclose_speed_extremum_arb(Q, 0.0, 1.0, 128, "min")
    assert e.lower <= 9 < e.upper and e.upper - e.lower < gmpy2.mpq(1, 2**200)
    assert decide_speed_arb(Q, 0.0, 1.0, 3.0, above=True, budget=(64, 128))[0] is None
    assert decide_speed_arb(Q, 0.0, 1.0, np.nextafter(3.0, 0.0), above=True)[0] is True


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_the_bernstein_oracle(seed):
    P = random_span(seed)
    rng = np.random.default_rng([seed, 9])
    u0, u1 = sorted(float(x) for x in rng.random(2))
    e = enclose_speed_extremum_arb(P, u0, u1, 128, "min")
    m = float(e.upper) ** 0.5
    for s, above in ((m * (1 - 1e-9), True), (m * (1 + 1e-9), True)):
        a, _ = decide_speed_arb(P, u0, u1, s, above)
        b = decide_speed_above(P, u0, u1, s).holds
        assert a == b or b is None
    M = float(enclose_speed_extremum_arb(P, u0, u1, 128, "max").lower) ** 0.5
    for s in (M * (1 - 1e-9), M * (1 + 1e-9)):
        assert decide_speed_arb(P, u0, u1, s, above=False)[0] == decide_speed_at_most(P, u0, u1, s).holds


@pytest.mark.parametrize("bad", [
    dict(controls=np.zeros((3, 3))), dict(controls=np.full((4, 3), np.nan)), dict(u0=0.75, u1=0.25),
    dict(prec=8), dict(which="mean")])
def test_malformed_inputs_raise_value_error(bad):
    args = dict(controls=random_span(1), u0=0.0, u1=1.0, prec=64, which="min")
    args.update(bad)
    with pytest.raises(ValueError):
        enclose_speed_extremum_arb(args["controls"], args["u0"], args["u1"], args["prec"], args["which"])


def test_flint_precision_is_left_alone():
    saved = ctx.prec
    enclose_speed_extremum_arb(random_span(2), 0.0, 1.0, 1024, "min")
    assert ctx.prec == saved
