"""The arc-length oracle against independent truths: exact lengths of straight spans, a
closed form (SymPy) for a parabola, and mpmath's non-interval quadrature at 40 digits."""

import time

import gmpy2
import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from interval.arclength import (
    enclose_arc_length,
    enclose_prefix_length,
    speed_squared_coefficients,
    sum_enclosures,
)
from interval.context import lower, upper, width

_mpq = gmpy2.mpq


def _quad_length(P, u0=0.0, u1=1.0, dps=40):
    """Arc length by mpmath's tanh-sinh quadrature (not rigorous, independent, ~dps digits)."""
    with mpmath.workdps(dps):
        Pm = [[mpmath.mpf(float(x)) for x in row] for row in np.asarray(P, dtype=np.float64)]

        def speed(u):
            s = 1 - u
            v = [3 * (s * s * (Pm[1][a] - Pm[0][a]) + 2 * s * u * (Pm[2][a] - Pm[1][a])
                      + u * u * (Pm[3][a] - Pm[2][a])) for a in range(3)]
            return mpmath.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)

        pts = list(mpmath.linspace(mpmath.mpf(u0), mpmath.mpf(u1), 9))
        return mpmath.quad(speed, pts)


def _contains_float(e, x, slack_rel=0.0):
    xq = _mpq(mpmath.nstr(x, 45, min_fixed=-1, max_fixed=1)) if not isinstance(x, type(_mpq(0))) else x
    slack = abs(xq) * _mpq(slack_rel) if slack_rel else 0
    return lower(e) - slack <= xq <= upper(e) + slack


def _rel_width(e):
    lo = lower(e)
    return float(width(e) / lo) if lo > 0 else float("inf")


def test_straight_uniform_span_is_exact_chord():
    P = np.array([[0, 0, 0], [3, 4, 0], [6, 8, 0], [9, 12, 0]], np.float32)
    e = enclose_arc_length(P, 0, 1, 113)
    assert lower(e.value) <= 15 <= upper(e.value)
    assert e.reached and _rel_width(e.value) <= 1e-15


def test_straight_nonuniform_monotone_span_is_chord():
    # x'(u) > 0 throughout, so the length is the chord 4 although the speed varies.
    P = np.array([[0, 0, 0], [1, 0, 0], [1.5, 0, 0], [4, 0, 0]], np.float32)
    e = enclose_arc_length(P, 0, 1, 113)
    assert lower(e.value) <= 4 <= upper(e.value)
    assert e.reached and _rel_width(e.value) <= 1e-15
    # a sub-range: x(u) is a cubic in u with exact rational value at u = 1/4
    x = lambda u: 3 * (1 - u) ** 2 * u * 1 + 3 * (1 - u) * u * u * _mpq(3, 2) + u ** 3 * 4
    e2 = enclose_arc_length(P, 0.25, 1.0, 113)
    truth = 4 - x(_mpq(1, 4))
    assert lower(e2.value) <= truth <= upper(e2.value)


def test_parabola_closed_form():
    # y = x^2 / 3 on [0, 3] as a degree-elevated quadratic: x = 3u, y = 3u^2.
    P = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 3, 0]], np.float32)
    u = sympy.symbols("u")
    exact = sympy.integrate(3 * sympy.sqrt(1 + 4 * u ** 2), (u, 0, 1))
    val = sympy.N(exact, 70)  # 3 (sqrt(5) / 2 + asinh(2) / 4)
    lo_q = _mpq(int(sympy.floor(val * 10 ** 55)), 10 ** 55)
    hi_q = _mpq(int(sympy.ceiling(val * 10 ** 55)), 10 ** 55)
    for prec, rel in ((113, 1e-15), (113, 1e-25), (256, 1e-45)):
        e = enclose_arc_length(P, 0, 1, prec, rel_width=rel)
        assert e.reached
        assert lower(e.value) <= hi_q and lo_q <= upper(e.value), (prec, rel)
        assert _rel_width(e.value) <= rel


@settings(max_examples=25)
@given(st.lists(st.floats(-100, 100, width=32), min_size=12, max_size=12))
def test_random_spans_contain_quadrature(vals):
    P = np.array(vals, np.float32).reshape(4, 3)
    e = enclose_arc_length(P, 0, 1, 113)
    q = _quad_length(P)
    L = abs(q)
    # Quadrature is accurate to far below 1e-25 relative on smooth speeds; a speed with a kink
    # (a zero-speed point, where the oracle used crude pieces) gets a looser 1e-12.
    with mpmath.workdps(45):
        qq = _mpq(mpmath.nstr(q, 40, min_fixed=-1, max_fixed=1)) if q != 0 else _mpq(0)
    slack = (_mpq(1, 10**12) if e.crude_pieces else _mpq(1, 10**25)) * (qq + 1)
    assert lower(e.value) - slack <= qq <= upper(e.value) + slack
    if e.crude_pieces == 0 and L > 0:
        assert e.reached and _rel_width(e.value) <= 1e-15


def test_ordinary_spans_reach_1e15_quickly():
    rng = np.random.default_rng(7)
    t0 = time.perf_counter()
    for _ in range(20):
        P = rng.normal(scale=10.0, size=(4, 3)).astype(np.float32)
        e = enclose_arc_length(P, 0, 1, 113, rel_width=1e-15)
        assert e.reached and _rel_width(e.value) <= 1e-15
    assert time.perf_counter() - t0 < 10.0


def test_zero_speed_ease_endpoint_reaches_width():
    P = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 0], [2, 0, 0]], np.float32)
    e = enclose_arc_length(P, 0, 1, 113)
    assert e.crude_pieces >= 1
    assert e.reached and _rel_width(e.value) <= 1e-15
    q = _quad_length(P)
    assert _contains_float(e.value, q, 1e-25)


def test_interior_cusp_reaches_width_and_contains_truth():
    # B'(1/2) = 0 and B''(1/2) != 0: a cusp in the interior.
    P = np.array([[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]], np.float32)
    f = speed_squared_coefficients(P)
    assert sum(c * _mpq(1, 2) ** k for k, c in enumerate(f)) == 0
    e = enclose_arc_length(P, 0, 1, 113)
    assert e.crude_pieces >= 1 and e.reached
    q = _quad_length(P, 0, 0.5) + _quad_length(P, 0.5, 1)
    assert _contains_float(e.value, q, 1e-25)


def test_budget_exhaustion_is_reported_not_looped():
    P = np.array([[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]], np.float32)
    t0 = time.perf_counter()
    e = enclose_arc_length(P, 0, 1, 113, rel_width=1e-15, max_pieces=8)
    assert time.perf_counter() - t0 < 2.0
    assert not e.reached and e.pieces <= 8
    q = _quad_length(P, 0, 0.5) + _quad_length(P, 0.5, 1)
    assert _contains_float(e.value, q, 1e-25)  # still an enclosure, only wider


def test_stationary_span_and_empty_range_are_exactly_zero():
    P = np.full((4, 3), 2.5, np.float32)
    e = enclose_arc_length(P, 0, 1, 113)
    assert lower(e.value) == 0 and upper(e.value) == 0 and e.reached
    Q = np.array([[0, 0, 0], [1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32)
    e = enclose_arc_length(Q, 0.375, 0.375, 113)
    assert lower(e.value) == 0 and upper(e.value) == 0


def test_additivity_of_subranges():
    rng = np.random.default_rng(3)
    P = rng.normal(size=(4, 3)).astype(np.float32)
    whole = enclose_arc_length(P, 0, 1, 113)
    parts = sum_enclosures([enclose_arc_length(P, 0, 0.3, 113), enclose_arc_length(P, 0.3, 1, 113)], 113)
    # both enclose the same number: the intervals must overlap
    assert lower(parts.value) <= upper(whole.value) and lower(whole.value) <= upper(parts.value)


def test_prefix_length_sums_spans():
    C = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
                  [[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]]], np.float32)
    e = enclose_prefix_length(C, 1, 0.5, 113)
    assert lower(e.value) <= _mpq(9, 2) <= upper(e.value)
    e0 = enclose_prefix_length(C, 0, 0.0, 113)
    assert lower(e0.value) == 0 == upper(e0.value)


@pytest.mark.parametrize("bad", [
    dict(controls=np.zeros((3, 3)), u0=0, u1=1),
    dict(controls=np.full((4, 3), np.nan), u0=0, u1=1),
    dict(controls=np.zeros((4, 3)), u0=0.75, u1=0.25),
])
def test_malformed_inputs_raise_value_error(bad):
    with pytest.raises(ValueError):
        enclose_arc_length(bad["controls"], bad["u0"], bad["u1"], 113)


def test_prefix_rejects_bad_index_and_parameter():
    C = np.zeros((2, 4, 3), np.float32)
    with pytest.raises(ValueError):
        enclose_prefix_length(C, 2, 0.5, 113)
    with pytest.raises(ValueError):
        enclose_prefix_length(C, 0, 1.5, 113)
