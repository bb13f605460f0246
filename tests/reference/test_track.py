"""Unit tests of reference.track: the spec's example, span sides, Step holds, policies, and
preparation failures. Expected values come from the spec or from exact Fractions written here
(the textbook Hermite basis), never from the code under test."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from reference.fp import U64
from reference.status import BoundaryPolicy as P, GeometryStatus as S, SpanSide, TrackTime, WorkLimits
from reference.track import (
    KEY_BYTES,
    TrackInterpolation as TI,
    TrackKey,
    derivative_error_bound,
    span_scale,
    try_evaluate_track,
    try_prepare_track,
    value_error_bound,
)
from tests.strategies import float32_values

LIMITS = WorkLimits(max_spans=8, max_keys=64, max_leaves=8, max_depth=8, max_subdivisions=8,
                    max_prepared_bytes=1 << 20, max_samples=8)
OUT, INC = SpanSide.Outgoing, SpanSide.Incoming


def spec_keys():
    return [TrackKey(0.0, 0.0, interpolation=TI.Linear),
            TrackKey(1.0, 1.0, out_slope=2.0, interpolation=TI.Hermite),
            TrackKey(3.0, 1.0, interpolation=TI.Step),
            TrackKey(3.5, 0.0)]


def prepared(keys):
    out = try_prepare_track(keys, LIMITS)
    assert out.ok, out.diagnostic
    return out.value.view()


def ev(view, t, policy=P.Reject, side=OUT):
    return try_evaluate_track(view, TrackTime(t), policy, side)


def hermite_exact(v0, v1, m0, m1, h, x):
    """Textbook cubic Hermite basis in exact rationals: (value, derivative per second)."""
    v0, v1, m0, m1, h, x = map(Fraction, (v0, v1, m0, m1, h, x))
    h00, h10 = 2 * x**3 - 3 * x**2 + 1, x**3 - 2 * x**2 + x
    h01, h11 = -2 * x**3 + 3 * x**2, x**3 - x**2
    d00, d10, d01, d11 = 6 * x**2 - 6 * x, 3 * x**2 - 4 * x + 1, -6 * x**2 + 6 * x, 3 * x**2 - 2 * x
    value = h00 * v0 + h10 * h * m0 + h01 * v1 + h11 * h * m1
    deriv = (d00 * v0 + d10 * h * m0 + d01 * v1 + d11 * h * m1) / h
    return value, deriv


def test_spec_example_pingpong_reflects_to_2_5_seconds():
    s = ev(prepared(spec_keys()), 4.5, P.PingPong).value
    assert s.value == 1.1875 and s.derivative_per_second == 0.625  # spec: +0.625, exact here
    assert s.is_reflected and s.span_index == 1 and s.u == 0.75


def test_spec_example_forward_half_at_2_5_seconds():
    s = ev(prepared(spec_keys()), 2.5).value
    assert s.value == 1.1875 and s.derivative_per_second == -0.625 and not s.is_reflected


def test_key_values_and_span_sides():
    v = prepared(spec_keys())
    # (time, side) -> (span, u, value): first key both sides span 0; interior keys Outgoing
    # u = 0 of the next span, Incoming u = 1 of the previous; terminal key last span u = 1.
    want = {(0.0, OUT): (0, 0.0, 0.0), (0.0, INC): (0, 0.0, 0.0),
            (1.0, OUT): (1, 0.0, 1.0), (1.0, INC): (0, 1.0, 1.0),
            (3.0, OUT): (2, 0.0, 1.0), (3.0, INC): (1, 1.0, 1.0),
            (3.5, OUT): (2, 1.0, 1.0), (3.5, INC): (2, 1.0, 1.0)}
    for (t, side), (k, u, val) in want.items():
        s = ev(v, t, side=side).value
        assert (s.span_index, s.u, s.value) == (k, u, val), (t, side)


def test_step_holds_left_value_through_u_1():
    keys = [TrackKey(0.0, 2.0, interpolation=TI.Step), TrackKey(1.0, 5.0, interpolation=TI.Step),
            TrackKey(2.0, -1.0)]
    v = prepared(keys)
    assert ev(v, 0.999).value.value == 2.0
    assert ev(v, 1.0, side=INC).value.value == 2.0  # the step's end, incoming: still held
    assert ev(v, 1.0, side=OUT).value.value == 5.0
    assert ev(v, 2.0).value.value == 5.0  # terminal endpoint of a Step last span: held value
    assert all(ev(v, t).value.derivative_per_second == 0.0 for t in (0.0, 0.5, 1.0, 2.0))


def test_hermite_overshoots_and_is_not_clamped():
    keys = [TrackKey(0.0, 0.0, out_slope=8.0, interpolation=TI.Hermite), TrackKey(1.0, 1.0)]
    v = prepared(keys)
    for x in (0.125, 0.25, 0.5, 0.75, 0.875):
        s = ev(v, x).value
        val, der = hermite_exact(0, 1, 8, 0, 1, x)
        assert s.value == float(val) and s.derivative_per_second == float(der)  # dyadic: exact
    assert ev(v, 0.5).value.value == 1.5  # 8 x (1 - x)^2 + x^2 (3 - 2x) at 1/2: above v1 = 1


def test_clamp_hold_outside_domain():
    v = prepared(spec_keys())
    c0 = ev(v, -5.0, P.Clamp).value
    assert (c0.value, c0.derivative_per_second, c0.span_index, c0.u) == (0.0, 1.0, 0, 0.0)
    h0 = ev(v, -5.0, P.Hold).value
    assert (h0.value, h0.derivative_per_second) == (0.0, 0.0)
    keys = [TrackKey(0.0, 0.0, interpolation=TI.Linear), TrackKey(2.0, 3.0)]
    w = prepared(keys)
    c1 = ev(w, 9.0, P.Clamp).value
    assert (c1.value, c1.derivative_per_second, c1.u) == (3.0, 1.5, 1.0)
    h1 = ev(w, 9.0, P.Hold).value
    assert (h1.value, h1.derivative_per_second) == (3.0, 0.0)


def test_loop_reduces_exactly_far_away():
    keys = [TrackKey(0.25, 0.0, interpolation=TI.Linear), TrackKey(1.5, 4.0)]  # L = 1.25
    v = prepared(keys)
    t = 1e12 + 0.375
    tau = (Fraction(t) - Fraction(0.25)) % Fraction(5, 4)
    x = tau / Fraction(5, 4)
    s = ev(v, t, P.Loop).value
    assert s.u == float(x) and s.value == float(Fraction(float(x)) * 4)
    assert s.derivative_per_second == 4.0 / 1.25


def test_pingpong_negative_time_reflects():
    keys = [TrackKey(0.0, 0.0, interpolation=TI.Linear), TrackKey(2.0, 4.0)]
    v = prepared(keys)
    s = ev(v, -0.5, P.PingPong).value  # mirror image of 0.5 s
    assert (s.value, s.derivative_per_second, s.is_reflected) == (1.0, -2.0, True)
    s = ev(v, 4.0, P.PingPong).value  # one full period: the start, forward
    assert (s.value, s.derivative_per_second, s.is_reflected) == (0.0, 2.0, False)
    s = ev(v, 6.0, P.PingPong).value  # 1.5 periods: the far end, forward half's end
    assert (s.value, s.is_reflected) == (4.0, False)


def test_policies_act_only_outside_the_domain():
    v = prepared(spec_keys())
    base = ev(v, 2.0).value
    for p in (P.Clamp, P.Hold, P.Loop, P.PingPong):
        assert ev(v, 2.0, p).value == base


def test_reject_wrap_and_nonfinite_time():
    v = prepared(spec_keys())
    assert ev(v, 3.5000001).status is S.InvalidDomain
    assert ev(v, -1e-300).status is S.InvalidDomain
    assert ev(v, 1.0, P.Wrap).status is S.InvalidArgument
    for bad in (math.nan, math.inf, -math.inf):
        assert ev(v, bad, P.Clamp).status is S.InvalidArgument
    with pytest.raises(TypeError):
        try_evaluate_track(v, 1.0, P.Clamp, OUT)


@pytest.mark.parametrize("keys,status,field", [
    ([TrackKey(0.0, 0.0)], S.InvalidArgument, "keys"),
    ([TrackKey(0.0, 0.0), TrackKey(0.0, 1.0)], S.InvalidDomain, "time"),
    ([TrackKey(1.0, 0.0), TrackKey(0.5, 1.0)], S.InvalidDomain, "time"),
    ([TrackKey(0.0, 0.1), TrackKey(1.0, 1.0)], S.InvalidArgument, "value"),  # 0.1 is no float32
    ([TrackKey(0.0, 0.0), TrackKey(math.nan, 1.0)], S.InvalidArgument, "time"),
    ([TrackKey(0.0, 0.0, out_slope=math.inf), TrackKey(1.0, 1.0)], S.InvalidArgument, "out_slope"),
    ([TrackKey(0.0, 0.0, out_slope=float(np.float32(1e38)), interpolation=TI.Hermite), TrackKey(1e300, 1.0)],
     S.OutOfRange, "time"),
    ([TrackKey(-1.7e308, 0.0), TrackKey(1.7e308, 1.0)], S.OutOfRange, "time"),
])
def test_preparation_failures(keys, status, field):
    diag = []
    out = try_prepare_track(keys, LIMITS, diag)
    assert out.status is status and out.value is None
    assert out.diagnostic.field == field and diag == [out.diagnostic]


def test_limits_bound_preparation():
    keys = spec_keys()
    few = WorkLimits(max_spans=8, max_keys=3, max_leaves=8, max_depth=8, max_subdivisions=8,
                     max_prepared_bytes=1 << 20, max_samples=8)
    assert try_prepare_track(keys, few).status is S.BudgetExceeded
    tight = WorkLimits(max_spans=8, max_keys=64, max_leaves=8, max_depth=8, max_subdivisions=8,
                       max_prepared_bytes=4 * KEY_BYTES - 1, max_samples=8)
    assert try_prepare_track(keys, tight).status is S.BudgetExceeded
    zero = WorkLimits(max_spans=0, max_keys=0, max_leaves=0, max_depth=0, max_subdivisions=0,
                      max_prepared_bytes=0, max_samples=0)
    assert try_prepare_track(keys, zero).status is S.BudgetExceeded
    bad = WorkLimits(max_spans=8, max_keys=-1, max_leaves=8, max_depth=8, max_subdivisions=8,
                     max_prepared_bytes=8, max_samples=8)
    assert try_prepare_track(keys, bad).status is S.InvalidArgument


def test_view_is_read_only_and_float32_stays_float32():
    v = prepared(spec_keys())
    for a in (v.times, v.values, v.in_slopes, v.out_slopes, v.interpolations, v.widths):
        assert not a.flags.writeable
    assert v.values.dtype == np.float32 and v.in_slopes.dtype == np.float32
    assert v.times.dtype == np.float64
    with pytest.raises(AttributeError):
        try_prepare_track(spec_keys(), LIMITS).value.x = 1


def test_error_model_values():
    assert span_scale(1.0, -2.0, 3.0, 4.0, 0.5, TI.Hermite) == 1.0 + 2.0 + 0.5 * 7.0
    assert span_scale(1.0, -2.0, 3.0, 4.0, 0.5, TI.Linear) == 3.0
    assert span_scale(1.0, -2.0, 3.0, 4.0, 0.5, TI.Step) == 0.0
    assert value_error_bound(2.0) == 16 * (U64 * 2.0 + 2.0**-1074)
    assert derivative_error_bound(2.0, 0.5) == 32 * (U64 * 2.0 / 0.5 + 2.0**-1074)


def test_underflowing_span_needs_and_meets_the_subnormal_term():
    # A span 2^-1060 s wide with zero values: h * (h10 m0 + h11 m1) is subnormal, so its
    # rounding is absolute, far above u * S; the model's eta term covers it.
    h = 2.0**-1060
    keys = [TrackKey(0.0, 0.0, out_slope=1.0, interpolation=TI.Hermite), TrackKey(h, 0.0, in_slope=-1.0)]
    v = prepared(keys)
    worst = Fraction(0)
    for x in (0.3, 0.55, 0.7, 0.9):
        t = x * h  # a subnormal time with about 14 significant bits
        s = ev(v, t).value
        val, _ = hermite_exact(0, 0, 1, -1, Fraction(h), Fraction(t) / Fraction(h))
        err = abs(Fraction(s.value) - val)
        assert err <= 16 * (Fraction(U64) * 2 * Fraction(h) + Fraction(2.0**-1074))
        worst = max(worst, err)
    assert worst > 16 * Fraction(U64) * 2 * Fraction(h)  # the relative term alone would fail


@settings(max_examples=60)
@given(float32_values(-1e6, 1e6), float32_values(-1e6, 1e6), float32_values(-1e6, 1e6),
       float32_values(-1e6, 1e6), st.floats(1e-3, 1e3), st.floats(-1e4, 1e4), st.floats(0.0, 1.0))
@example(0.0, 1.0, 2.0, 0.0, 2.0, 1.0, 0.75)
def test_hermite_within_error_model_of_textbook_basis(v0, v1, m0, m1, h, t0, x):
    t1 = t0 + h
    if not t1 > t0:
        return
    keys = [TrackKey(t0, v0, out_slope=m0, interpolation=TI.Hermite), TrackKey(t1, v1, in_slope=m1)]
    v = prepared(keys)
    t = float(Fraction(t0) + Fraction(x) * (Fraction(t1) - Fraction(t0)))
    if not t0 <= t <= t1:
        return
    s = ev(v, t).value
    hx = Fraction(t1) - Fraction(t0)
    xe = (Fraction(t) - Fraction(t0)) / hx
    val, der = hermite_exact(v0, v1, m0, m1, hx, xe)
    S_ = abs(Fraction(v0)) + abs(Fraction(v1)) + hx * (abs(Fraction(m0)) + abs(Fraction(m1)))
    eta = Fraction(2.0**-1074)
    assert abs(Fraction(s.value) - val) <= 16 * (Fraction(U64) * S_ + eta)
    assert abs(Fraction(s.derivative_per_second) - der) <= 32 * (Fraction(U64) * S_ / hx + eta)


def test_step_span_accepts_any_jump_over_a_tiny_width():
    big = float(np.float32(3e38))
    keys = [TrackKey(0.0, 0.0, interpolation=TI.Step), TrackKey(1e-300, big, interpolation=TI.Step),
            TrackKey(1.0, 0.0)]
    v = prepared(keys)
    assert ev(v, 5e-301).value.value == 0.0 and ev(v, 1e-300).value.value == big
    linear = [TrackKey(0.0, 0.0, interpolation=TI.Linear), TrackKey(1e-300, big)]
    assert try_prepare_track(linear, LIMITS).status is S.OutOfRange  # (v1 - v0) / h overflows


def test_loop_reduction_is_exact_when_the_period_is_not_a_float64():
    # L = 0.3 - 0.1 (the two float64 key times, exactly) is no float64: a float reduction of a
    # time 5e9 periods away drifts by about 5e9 * 1e-17; the exact one lands where Fractions say.
    keys = [TrackKey(0.1, 0.0, interpolation=TI.Linear), TrackKey(0.3, 1.0)]
    v = prepared(keys)
    t = 1e9 + 0.0625
    first, L = Fraction(0.1), Fraction(0.3) - Fraction(0.1)
    x = ((Fraction(t) - first) % L) / L
    s = ev(v, t, P.Loop).value
    assert s.span_index == 0 and s.u == float(x)
    assert abs(Fraction(s.value) - x) <= 4 * Fraction(U64)  # value = u on this span


def test_linear_key_values_are_exact_between_keys_of_mixed_magnitudes():
    # v0 + u (v1 - v0) at u = 1 loses 1e-20 next to 1e20 (the difference rounds to -1e20);
    # key values are Exact, so the right key's value must come back bit for bit.
    big, small = np.float32(1e20), np.float32(1e-20)
    v = prepared([TrackKey(0.0, big, interpolation=TI.Linear), TrackKey(1.0, small, interpolation=TI.Linear),
                  TrackKey(2.0, big)])
    assert ev(v, 1.0, side=INC).value.value == float(small)
    assert ev(v, 1.0, side=OUT).value.value == float(small)
    assert ev(v, 2.0, side=INC).value.value == float(big)


def test_a_reduced_time_a_hair_before_a_key_stays_in_the_earlier_span():
    # Keys at -2^-60, 1 and 2 (L = 2 + 2^-60): Loop maps t = 3 to -2^-60 + (3 + 2^-60 - L) =
    # 1 - 2^-60, inside span 0, though it rounds to the key at 1 in float64.
    v = prepared([TrackKey(-(2.0**-60), 0.0, interpolation=TI.Linear), TrackKey(1.0, 1.0, interpolation=TI.Linear),
                  TrackKey(2.0, 5.0)])
    s = ev(v, 3.0, P.Loop).value
    x = (1 - Fraction(2) ** -60 + Fraction(2) ** -60) / (1 + Fraction(2) ** -60)
    assert s.span_index == 0 and s.u == float(x) and s.derivative_per_second == float(1 / (1 + Fraction(2) ** -60))
