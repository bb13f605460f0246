"""Error-free transformations (``interval.dd``) against exact rationals: products and sums are
exact where they say so, enclosures hold the exact sum, and a pinned ratio is the correctly
rounded one (what ``float(Fraction)`` gives) for every point of its enclosure."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from interval import dd

anyfloat = st.floats(allow_nan=False, allow_infinity=False)
# Magnitudes across the whole range, subnormals included: where Dekker's product breaks.
wide = st.builds(lambda m, e: math.ldexp(m, e), st.floats(-2.0, 2.0, allow_nan=False), st.integers(-1100, 1000))


@settings(max_examples=500, deadline=None)
@given(wide, wide)
def test_two_prod_is_exact_wherever_it_says_so(a, b):
    p, e, exact = dd.two_prod(np.array([a]), np.array([b]))
    if exact[0]:
        assert Fraction(float(p[0])) + Fraction(float(e[0])) == Fraction(a) * Fraction(b)


def test_two_prod_says_exact_on_ordinary_magnitudes_and_not_where_it_fails():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=1000) * 1e10, rng.normal(size=1000) * 1e-10
    p, e, exact = dd.two_prod(a, b)
    assert exact.all()
    assert all(Fraction(x) + Fraction(y) == Fraction(s) * Fraction(t) for x, y, s, t in zip(p, e, a, b))
    # Here the error term underflows: Dekker's pair is not the exact product, and it says so.
    a, b = np.array([1.0 + 2.0**-52]), np.array([2.0**-1000 * (1.0 + 2.0**-51)])
    p, e, exact = dd.two_prod(a, b)
    assert Fraction(float(p[0])) + Fraction(float(e[0])) != Fraction(a[0]) * Fraction(b[0])
    assert not exact[0]


terms_st = st.lists(st.one_of(anyfloat.filter(lambda x: abs(x) < 1e300), wide.filter(lambda x: abs(x) < 1e300)),
                    min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(terms_st, st.integers(0, 3))
def test_vec_sum_keeps_the_exact_sum_and_enclose_sum_holds_it(terms, passes):
    # add cancelling partners so that the sum is far smaller than its terms
    terms = terms + [-t * (1 + 2.0**-30) for t in terms[:3]]
    arrs = [np.array([t]) for t in terms]
    exact = sum(Fraction(t) for t in terms)
    assert sum(Fraction(float(x[0])) for x in dd.vec_sum(arrs)) == exact
    hi, lo, rad = dd.enclose_sum(arrs, passes)
    if np.isfinite(hi[0]) and np.isfinite(lo[0]) and np.isfinite(rad[0]):
        mid = Fraction(float(hi[0])) + Fraction(float(lo[0]))
        assert abs(exact - mid) <= Fraction(float(rad[0]))


def _correctly_rounded(x: Fraction, b: float) -> float:
    return float(abs(x) / Fraction(b))  # Fraction -> float rounds to nearest, ties to even


def _midpoint_cases(rng, n):
    """(x as an exact DD hi + lo, rad, b): |x| / b at, just beside, or straddling a midpoint
    between two floats, or ordinary; b small odd integers times powers of two, so that
    midpoint * b is exactly a DD."""
    out = []
    for _ in range(n):
        q0 = float(rng.uniform(0.5, 4.0)) * 2.0 ** int(rng.integers(-60, 60))
        ulp = math.ulp(q0)
        b = float(rng.choice([1.0, 3.0, 5.0, 7.0, 0.75])) * 2.0 ** int(rng.integers(-40, 40))
        m = Fraction(q0) + Fraction(ulp) / 2
        kind = rng.integers(0, 4)
        delta = [Fraction(0), Fraction(ulp) * Fraction(b) * Fraction(2) ** -int(rng.integers(2, 60)),
                 -Fraction(ulp) * Fraction(b) * Fraction(2) ** -int(rng.integers(2, 60)),
                 Fraction(ulp) * Fraction(b) * Fraction(float(rng.uniform(-3, 3)))][kind]
        x = m * Fraction(b) + delta
        hi = float(x)
        lo = float(x - Fraction(hi))
        if Fraction(hi) + Fraction(lo) != x:
            continue
        rad = float(rng.choice([0.0, abs(float(delta)) / 2, abs(float(delta)), 2 * abs(float(delta))]))
        sign = float(rng.choice([1.0, -1.0]))
        out.append((sign * hi, sign * lo, rad, b))
    return out


def test_a_pinned_ratio_is_the_correctly_rounded_ratio_of_every_point_of_its_enclosure():
    rng = np.random.default_rng(7)
    cases = _midpoint_cases(rng, 4000)
    hi, lo, rad, b = (np.array(c) for c in zip(*cases))
    q, pinned = dd.round_ratio(hi, lo, rad, b)
    assert 0.3 < pinned.mean() < 0.95  # the cases are near the edge: some pinned, some not
    for k in range(len(cases)):
        x = Fraction(float(hi[k])) + Fraction(float(lo[k]))
        ends = (x - Fraction(float(rad[k])), x + Fraction(float(rad[k])))
        if pinned[k]:
            assert all(_correctly_rounded(e, b[k]) == q[k] for e in ends), k
        elif ends[0] == ends[1] and ends[0] != 0:
            # an exact point is refused only at a tie or at a scale the test does not make
            t = abs(ends[0]) / Fraction(float(b[k]))
            lo_f = float(t)
            assert Fraction(lo_f) != t and _is_tie(t), k


def _is_tie(t: Fraction) -> bool:
    f = float(t)
    nb = math.nextafter(f, math.inf) if Fraction(f) < t else math.nextafter(f, 0.0)
    return (Fraction(f) + Fraction(nb)) / 2 == t


def test_exact_zero_is_ratio_zero_and_ordinary_ratios_pin():
    q, pinned = dd.round_ratio(np.array([0.0, 3.0]), np.array([0.0, 2.0**-60]), np.array([0.0, 0.0]),
                               np.array([2.0, 7.0]))
    assert pinned.all()
    assert q[0] == 0.0 and q[1] == float((Fraction(3) + Fraction(2) ** -60) / 7)
