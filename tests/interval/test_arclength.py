"""The arc-length oracle against independent truths: exact lengths of straight spans, a
closed form (SymPy) for a parabola, mpmath's non-interval quadrature at 40 digits, and the
rigorous Arb integral (``interval.arb_arclength``, an independent method); its Cauchy
remainder against the series of Cauchy's estimates it sums, and at a forced low Taylor order
(where the remainder dominates) against the Arb integral."""

import time

import gmpy2
import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import example, given, settings, strategies as st

from interval.arb_arclength import enclose_arc_length_arb
from interval.arclength import (
    MAX_ORDER,
    cauchy_tail,
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


NEAR_CUSP = [0.0, 53.88261032104492, 0.0, 0.0, 66.0, 88.0, 0.0, 32.0, 72.0, 0.0, 92.0, 0.0]


@settings(max_examples=25)
@given(st.lists(st.floats(-100, 100, width=32), min_size=12, max_size=12))
@example(NEAR_CUSP)  # a root of |B'|^2 at 4.2e-4 from the real axis: 40-digit tanh-sinh missed by 3e-12
def test_random_spans_contain_quadrature(vals):
    # The reference is Arb's rigorous integral (not a non-rigorous quadrature, whose error on a
    # near-cusp span exceeded any fixed slack): both enclosures must overlap.
    P = np.array(vals, np.float32).reshape(4, 3)
    e = enclose_arc_length(P, 0, 1, 113)
    a = enclose_arc_length_arb(P, 0, 1, 113, 1e-30)
    assert a.value is not None
    assert lower(e.value) <= upper(a.value) and lower(a.value) <= upper(e.value)
    if e.crude_pieces == 0 and upper(a.value) > 0:
        assert e.reached and _rel_width(e.value) <= 1e-15


def test_near_cusp_span_contains_a_fine_quadrature():
    # 400 Gauss-Legendre pieces at 50 digits: 131.44182282959748254 (the flaky failure's truth).
    e = enclose_arc_length(np.array(NEAR_CUSP, np.float32).reshape(4, 3), 0, 1, 113)
    q = _mpq(13144182282959748254, 10**17)
    assert lower(e.value) - _mpq(1, 10**17) <= q <= upper(e.value) + _mpq(1, 10**17)


def test_cauchy_tail_bounds_the_series_of_cauchy_estimates():
    # Cauchy: |g_k| <= M / R^k, so the even terms of the tail integrate to at most
    # 2 M r^(k+1) / (R^k (k + 1)) each (odd ones vanish). Sum them exactly for 400 terms: the
    # oracle's closed form must be at least that (a halved remainder is not).
    for r, R, M2, N in ((_mpq(1, 64), _mpq(1, 2), _mpq(9), 2), (_mpq(1, 8), _mpq(1, 4), _mpq(2), 4),
                        (_mpq(3, 10), _mpq(7, 10), _mpq(5, 3), 10), (_mpq(1, 1000), _mpq(1), _mpq(1), 40)):
        M_lo = _mpq(int(gmpy2.isqrt(int(M2 * 10**40))), 10**20)  # sqrt(M2) rounded down
        series = sum(2 * M_lo * r ** (k + 1) / (R**k * (k + 1)) for k in range(N, N + 800, 2))
        assert upper(cauchy_tail(r, R, M2, N, 113)) >= series, (r, R, M2, N)


@pytest.mark.parametrize("order, rel", [(2, 1e-4), (4, 1e-6)])
def test_low_forced_order_contains_the_arb_integral(order, rel):
    # At a forced low Taylor order the Cauchy remainder carries most of each piece's width:
    # the enclosure must still overlap Arb's independent rigorous integral.
    rng = np.random.default_rng(11)
    spans = [rng.normal(size=(4, 3)).astype(np.float32) * 10 for _ in range(2)]
    spans.append(np.array(NEAR_CUSP, np.float32).reshape(4, 3))
    for P in spans:
        e = enclose_arc_length(P, 0, 1, 113, rel_width=rel, max_order=order)
        a = enclose_arc_length_arb(P, 0, 1, 113, 1e-30).value
        assert lower(e.value) <= upper(a) and lower(a) <= upper(e.value)
        assert order < MAX_ORDER


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
