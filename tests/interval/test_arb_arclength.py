"""The Arb arc-length oracle against independent truths: the exact factorization of |B'|^2
against SymPy's expansion, exact lengths of straight spans (with a reversal at an irrational
parameter: 2 sqrt 2 - 1), SymPy's closed form of a parabola, mpmath quadrature split at a
cusp, a 400-piece quadrature of a near-cusp span, and the Taylor oracle (an independent
method) on random spans."""

from __future__ import annotations

import gmpy2
import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import example, given, settings, strategies as st

from interval.arb_arclength import (
    enclose_arc_length_arb,
    enclose_prefix_length_arb,
    speed_factorization,
)
from interval.arclength import enclose_arc_length
from interval.context import lower, upper

_mpq = gmpy2.mpq
NEAR_CUSP = np.array([[0, 53.88261032104492, 0], [0, 66, 88], [0, 32, 72], [0, 92, 0]], np.float32)


def _rel_width(e):
    lo = lower(e)
    return float((upper(e) - lo) / lo) if lo > 0 else float("inf")


def _sympy_speed_squared(P):
    u = sympy.symbols("u")
    Pq = [[sympy.Rational(gmpy2.mpq(float(x)).numerator, gmpy2.mpq(float(x)).denominator) for x in row]
          for row in np.asarray(P, np.float64)]
    B = [sum(sympy.binomial(3, k) * (1 - u) ** (3 - k) * u ** k * Pq[k][a] for k in range(4)) for a in range(3)]
    return u, sympy.expand(sum(sympy.diff(b, u) ** 2 for b in B))


def _as_sympy(p, u):
    return sum(sympy.Rational(int(c.p), int(c.q)) * u ** k for k, c in enumerate(p.coeffs()))


@pytest.mark.parametrize("P", [
    np.array([[0, 0, 0], [1, 2, 3], [4, 5, 7], [9, 1, 2]], np.float32),
    np.array([[0, 0, 0], [0, 0, 0], [1, 1, 0], [2, 0, 0]], np.float32),          # ease: G = u
    np.array([[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]], np.float32),        # cusp at 1/2
    np.array([[0, 0, 0], [-1, 0, 0], [-2, 0, 0], [-1, 0, 0]], np.float32),       # line, G quadratic
    NEAR_CUSP,
])
def test_factorization_is_exact(P):
    G, Q = speed_factorization(P)
    u, f = _sympy_speed_squared(P)
    assert sympy.expand(_as_sympy(G, u) ** 2 * _as_sympy(Q, u) - f) == 0
    assert G.leading_coefficient() == 1
    # Q has no real root: its real roots (SymPy, exact) are empty
    assert not sympy.Poly(_as_sympy(Q, u), u).real_roots()


def test_stationary_span_and_empty_range_are_exactly_zero():
    e = enclose_arc_length_arb(np.full((4, 3), 2.5, np.float32), 0, 1, 113)
    assert lower(e.value) == 0 == upper(e.value) and e.reached and e.kind == "zero"
    e = enclose_arc_length_arb(np.arange(12, dtype=np.float32).reshape(4, 3), 0.375, 0.375, 113)
    assert lower(e.value) == 0 == upper(e.value)


def test_straight_spans_are_exact_chords():
    P = np.array([[0, 0, 0], [3, 4, 0], [6, 8, 0], [9, 12, 0]], np.float32)
    e = enclose_arc_length_arb(P, 0, 1, 113)
    # constant speed
    assert e.kind == "smooth" and lower(e.value) <= 15 <= upper(e.value) and _rel_width(e.value) <= 1e-30
    e = enclose_arc_length_arb(P, 0.25, 0.5, 113)  # uniform: 15 (1/2 - 1/4)
    assert lower(e.value) <= _mpq(15, 4) <= upper(e.value)


def test_a_line_that_reverses_at_an_irrational_parameter():
    # x(u) = 2u^3 - 3u (controls 0, -1, -2, -1): x' = 0 at u = 1/sqrt 2, so the length is the
    # total variation |x(r) - x(0)| + |x(1) - x(r)| = 2 sqrt 2 - 1.
    P = np.array([[0, 0, 0], [-1, 0, 0], [-2, 0, 0], [-1, 0, 0]], np.float32)
    truth = 2 * sympy.sqrt(2) - 1
    lo = _mpq(int(sympy.floor(truth * 10**60)), 10**60)
    hi = lo + _mpq(1, 10**60)
    for prec in (113, 256):
        e = enclose_arc_length_arb(P, 0, 1, prec)
        assert e.kind == "line" and e.reached
        assert lower(e.value) <= hi and lo <= upper(e.value)


def test_parabola_closed_form():
    # y = x^2 / 3 on [0, 3] as a degree-elevated quadratic: x = 3u, y = 3u^2.
    P = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 3, 0]], np.float32)
    u = sympy.symbols("u")
    val = sympy.N(sympy.integrate(3 * sympy.sqrt(1 + 4 * u ** 2), (u, 0, 1)), 80)
    lo_q = _mpq(int(sympy.floor(val * 10**70)), 10**70)
    hi_q = lo_q + _mpq(1, 10**70)
    for prec, rel in ((113, 1e-15), (256, 1e-40), (1024, 1e-60)):
        e = enclose_arc_length_arb(P, 0, 1, prec, rel)
        assert e.reached and _rel_width(e.value) <= rel
        assert lower(e.value) <= hi_q and lo_q <= upper(e.value), prec


def _quad(P, pts, dps=40):
    with mpmath.workdps(dps):
        Pm = [[mpmath.mpf(float(x)) for x in row] for row in np.asarray(P, np.float64)]

        def speed(t):
            s = 1 - t
            v = [3 * (s * s * (Pm[1][a] - Pm[0][a]) + 2 * s * t * (Pm[2][a] - Pm[1][a])
                      + t * t * (Pm[3][a] - Pm[2][a])) for a in range(3)]
            return mpmath.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)

        return mpmath.quad(speed, pts)


def _contains(e, q, slack):
    qq = _mpq(mpmath.nstr(q, 45, min_fixed=-1, max_fixed=1))
    return lower(e) - slack <= qq <= upper(e) + slack


def test_interior_cusp_and_ease_endpoint_split_exactly():
    cusp = np.array([[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]], np.float32)
    e = enclose_arc_length_arb(cusp, 0, 1, 113)
    assert e.kind == "split" and e.reached
    assert _contains(e.value, _quad(cusp, [0, 0.25, 0.5, 0.75, 1]), _mpq(1, 10**30))
    ease = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 0], [2, 0, 0]], np.float32)
    e = enclose_arc_length_arb(ease, 0, 1, 113)
    assert e.kind == "split" and e.reached
    assert _contains(e.value, _quad(ease, mpmath.linspace(0, 1, 9)), _mpq(1, 10**30))


def test_near_cusp_span_matches_a_fine_quadrature():
    # The span of the flaky Taylor test: a root of |B'|^2 at 4.2e-4 from the real axis. A
    # 400-piece Gauss-Legendre quadrature at 50 digits gives 131.44182282959748254...
    e = enclose_arc_length_arb(NEAR_CUSP, 0, 1, 113)
    assert e.reached and _rel_width(e.value) <= 1e-15
    q = _mpq(13144182282959748254, 10**17)
    assert lower(e.value) - _mpq(1, 10**17) <= q <= upper(e.value) + _mpq(1, 10**17)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100, width=32), min_size=12, max_size=12),
       st.sampled_from([(0.0, 1.0), (0.0, 0.3), (0.1, 0.9), (0.7, 0.7000001)]))
@example([0.0, 53.88261032104492, 0.0, 0.0, 66.0, 88.0, 0.0, 32.0, 72.0, 0.0, 92.0, 0.0], (0.0, 1.0))
def test_random_spans_agree_with_the_taylor_oracle(vals, rng):
    P = np.array(vals, np.float32).reshape(4, 3)
    a = enclose_arc_length_arb(P, rng[0], rng[1], 113)
    t = enclose_arc_length(P, rng[0], rng[1], 113)
    assert a.value is not None
    assert lower(a.value) <= upper(t.value) and lower(t.value) <= upper(a.value)
    if a.reached and upper(a.value) > 0:
        assert _rel_width(a.value) <= 1e-15


def test_prefix_sums_spans():
    C = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
                  [[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]]], np.float32)
    e = enclose_prefix_length_arb(C, 1, 0.5, 113)
    assert lower(e.value) <= _mpq(9, 2) <= upper(e.value) and e.reached
    e0 = enclose_prefix_length_arb(C, 0, 0.0, 113)
    assert lower(e0.value) == 0 == upper(e0.value)


@pytest.mark.parametrize("bad", [
    dict(controls=np.zeros((3, 3)), u0=0, u1=1),
    dict(controls=np.full((4, 3), np.nan), u0=0, u1=1),
    dict(controls=np.zeros((4, 3)), u0=0.75, u1=0.25),
    dict(controls=np.zeros((4, 3)), u0=float("nan"), u1=0.25),
])
def test_malformed_inputs_raise_value_error(bad):
    with pytest.raises(ValueError):
        enclose_arc_length_arb(bad["controls"], bad["u0"], bad["u1"], 113)


def test_prefix_rejects_bad_index_and_parameter():
    C = np.zeros((2, 4, 3), np.float32)
    with pytest.raises(ValueError):
        enclose_prefix_length_arb(C, 2, 0.5, 113)
    with pytest.raises(ValueError):
        enclose_prefix_length_arb(C, 0, 1.5, 113)
