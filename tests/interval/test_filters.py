"""The float64 filters (``interval.filters``) enclose the exact values they stand for: every
operation against exact rationals on random and nasty inputs (subnormals, far magnitudes,
cancellation), and the decisions never contradict exact arithmetic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from interval import filters as FL

f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
unit = st.floats(0.0, 1.0, allow_nan=False)


def _bern(P, u):
    u = Fraction(u)
    s = 1 - u
    b = [s**3, 3 * u * s**2, 3 * u**2 * s, u**3]
    return [sum(b[i] * Fraction(float(P[i][d])) for i in range(4)) for d in range(len(P[0]))]


def _deriv(P, u):
    u = Fraction(u)
    s = 1 - u
    b = [s * s, 2 * u * s, u * u]
    return [3 * sum(b[i] * (Fraction(float(P[i + 1][d])) - Fraction(float(P[i][d]))) for i in range(3))
            for d in range(len(P[0]))]


def _second(P, u):
    u = Fraction(u)
    D = [[Fraction(float(P[i + 2][d])) - 2 * Fraction(float(P[i + 1][d])) + Fraction(float(P[i][d]))
          for d in range(len(P[0]))] for i in range(2)]
    return [6 * ((1 - u) * D[0][d] + u * D[1][d]) for d in range(len(P[0]))]


def _inside(iv, k, exact):
    for d, t in enumerate(exact):
        assert Fraction(float(iv.lo[k, d])) <= t <= Fraction(float(iv.hi[k, d])), (k, d, iv.lo[k, d], t, iv.hi[k, d])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(f32, min_size=3, max_size=3), min_size=4, max_size=4), unit)
def test_cubic_enclosures_hold_the_exact_values(P, u):
    P = np.array(P, dtype=np.float32).astype(np.float64)[None]
    uu = np.array([u])
    for fn, exact in ((FL.cubic_bernstein, _bern), (FL.cubic_derivative, _deriv),
                      (FL.cubic_second_derivative, _second)):
        iv = fn(P, uu)
        if np.all(iv.finite):
            _inside(iv, 0, exact(P[0], u))


def test_enclosures_are_tight_on_ordinary_inputs():
    rng = np.random.default_rng(4)
    P = rng.normal(size=(500, 4, 3)).astype(np.float32).astype(np.float64)
    u = rng.random(500)
    iv = FL.cubic_bernstein(P, u)
    width = (iv.hi - iv.lo) / np.max(np.abs(P), axis=(1, 2))[:, None]
    assert np.max(width) < 2.0**-48  # a few dozen ulps of the magnitude
    for k in range(0, 500, 50):
        _inside(iv, k, _bern(P[k], u[k]))


def test_subnormal_and_huge_controls_stay_enclosed_or_undecided():
    P = np.array([[[2.0**-149, -(2.0**-149), 0.0], [3e38, 1.0, -3e38], [-3e38, 2.0**-140, 1.0],
                   [1.0, 3e38, -(2.0**-149)]]])
    for u in (0.0, 2.0**-1074, 0.5, 1.0 - 2.0**-53, 1.0, 1.0 / 3.0):
        iv = FL.cubic_bernstein(P, np.array([u]))
        fin = iv.finite[0]
        exact = _bern(P[0], u)
        for d in range(3):
            if fin[d]:
                assert Fraction(float(iv.lo[0, d])) <= exact[d] <= Fraction(float(iv.hi[0, d]))


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e300, 1e300), st.floats(-1e300, 1e300), st.floats(0, 1e300))
def test_abs_dist_encloses_the_distance_to_every_point_of_the_interval(c, a, w):
    lo, hi = min(a, a + w), max(a, a + w)
    if not np.isfinite(hi):
        return
    d = FL.abs_dist(np.array([c]), FL.Iv(np.array([lo]), np.array([hi])))
    for t in (lo, hi, (lo + hi) / 2):
        e = abs(Fraction(c) - Fraction(t))
        assert Fraction(float(d.lo[0])) <= e <= Fraction(float(d.hi[0]))


def test_decide_never_guesses():
    err = FL.Iv(np.array([0.0, 1.0, 0.5, np.nan, 0.0]), np.array([1.0, 2.0, 0.6, 1.0, np.inf]))
    bound = FL.Iv(np.array([1.0, 0.5, 0.55, 2.0, 2.0]), np.array([1.0, 0.9, 0.55, 2.0, 2.0]))
    # certain, certainly over, overlapping, NaN, unbounded
    assert FL.decide_at_most(err, bound).tolist() == [1, -1, 0, 0, 0]
