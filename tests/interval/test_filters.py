"""The float64 filters (``interval.filters``): wherever they say a residual's expansion is exact,
its terms sum, in rationals, to exactly ``claimed - truth`` (position, first and second
derivative), on random and nasty inputs (subnormals, far magnitudes, cancellation, u at and near
0 and 1); and they say so on ordinary inputs, so that the filter decides something."""

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


_TRUTH = {"point": _bern, "first": _deriv, "second": _second}


def _exact_where_said(P, u, claimed, which):
    """Components the filter called exact, each checked against rational arithmetic."""
    terms, ok = FL.cubic_residuals(P, u, claimed, which)
    n = 0
    for k, d in zip(*np.nonzero(ok)):
        total = sum(Fraction(float(t[k, d])) for t in terms)
        truth = _TRUTH[which](P[k], float(u[k]))[d]
        assert total == Fraction(float(claimed[k, d])) - truth, (which, k, d)
        n += 1
    return n


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(f32, min_size=3, max_size=3), min_size=4, max_size=4), unit,
       st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=3, max_size=3))
def test_an_expansion_called_exact_is_exactly_the_residual(P, u, c):
    P = np.array([P], dtype=np.float64)
    for which in _TRUTH:
        _exact_where_said(P, np.array([u]), np.array([c]), which)


def test_nasty_inputs_are_exact_where_said():
    rng = np.random.default_rng(7)
    Ps, us = [], []
    for scale in (1e-40, 1e-30, 1.0, 1e20, 1e37):
        for u in (0.0, 1.0, 2.0**-30, 1.0 - 2.0**-53, 5e-324, 0.5, float(rng.random())):
            base = rng.normal(size=3)
            near = base + rng.normal(size=(4, 3)) * 2.0**-20  # controls agreeing in their leading bits
            for P in (rng.normal(size=(4, 3)) * scale, near * scale):
                Ps.append(np.asarray(P, dtype=np.float32).astype(np.float64))
                us.append(u)
    P, u = np.array(Ps), np.array(us)
    assert np.isfinite(P).all()
    c = P[:, 0] * (1.0 + 2.0**-40)
    assert sum(_exact_where_said(P, u, c, which) for which in _TRUTH) > 0
    # a control or a claimed value that is not finite is never called exact
    P[0, 1, 0], c[1, 2] = np.inf, np.nan
    for which in _TRUTH:
        _, ok = FL.cubic_residuals(P, u, c, which)
        assert not ok[0, 0] and not ok[1, 2]


def test_ordinary_inputs_are_exact_and_decided():
    """Not vacuous: float32 controls of one magnitude and any u give exact expansions, and the
    ratio to a bound far from the residual is pinned."""
    rng = np.random.default_rng(1)
    P = rng.normal(size=(200, 4, 3)).astype(np.float32).astype(np.float64)
    u = rng.random(200)
    for which in _TRUTH:
        _, ok = FL.cubic_residuals(P, u, P[:, 0], which)
        assert ok.all()
    ratio, pinned = FL.residual_ratios(P, u, P[:, 0] + 1e-9, np.full(200, 1.0), "point")
    assert pinned.mean() > 0.95 and np.all(ratio[pinned] > 0)
