"""Planted faults of scalar tracks: the fast path (``reference/track.py``) and the exact track
oracle (``interval/track.py``). Judged by ``python -m oracles ledger --family track``."""

from __future__ import annotations

from ..harness import Fault

_F = "reference/track.py"
_O = "interval/track.py"
_REF = "tests/reference/test_track.py"
_CHK = "tests/oracles/test_track_checks.py"
_DIFF = "tests/differential/test_track_differential.py"
_ORACLE = "tests/interval/test_track_oracle.py"

FAULTS = [
    # --- Span rules and boundary policies (spec 002 "Span sides", "Boundary policies", "Tracks")
    Fault("track.step_takes_right_value_at_u1", "track", _F,
          "return v0, 0.0",
          "return (v1 if u == 1.0 else v0), 0.0",
          "A Step span returns the right key's value at u = 1 instead of holding its left value until u = 1.",
          (f"{_REF}::test_step_holds_left_value_through_u_1",)),
    Fault("track.pingpong_derivative_not_negated", "track", _F,
          "    elif reflected:\n        derivative = -derivative",
          "    elif reflected:\n        derivative = derivative",
          "PingPong's reflected half keeps the forward derivative's sign.",
          (f"{_REF}::test_spec_example_pingpong_reflects_to_2_5_seconds",)),
    Fault("track.pingpong_turning_point_reflected", "track", _F,
          "if policy is BoundaryPolicy.PingPong and tau > L:",
          "if policy is BoundaryPolicy.PingPong and tau >= L:",
          "PingPong reflects at the turning point tau = L (>= instead of >), so the far end is reported reflected.",
          (_REF, _DIFF)),
    Fault("track.loop_reduced_in_float64", "track", _F,
          "tau = (t - first) % period  # exact; Fraction % is a floored modulo, in [0, period)",
          "tau = Fraction(float(t - first) % float(period))",
          "Loop and PingPong reduce the time in float64 (rounded offset and period) instead of exactly.",
          (f"{_REF}::test_loop_reduction_is_exact_when_the_period_is_not_a_float64",)),
    Fault("track.hold_keeps_the_derivative", "track", _F,
          "    if hold:\n        derivative = 0.0",
          "    if hold:\n        derivative = derivative",
          "Hold returns the one-sided derivative (as Clamp) instead of zero.",
          (f"{_REF}::test_clamp_hold_outside_domain",)),
    Fault("track.clamp_zeroes_the_derivative", "track", _F,
          "hold = policy is BoundaryPolicy.Hold",
          "hold = True",
          "Clamp returns a zero derivative (as Hold) instead of the one-sided derivative from inside.",
          (f"{_REF}::test_clamp_hold_outside_domain",)),
    Fault("track.incoming_side_at_first_key", "track", _F,
          "if t == t0 and k > 0 and side is SpanSide.Incoming:",
          "if t == t0 and side is SpanSide.Incoming:",
          "Incoming at the first key selects a span before the first (index -1) instead of the first span.",
          (f"{_REF}::test_key_values_and_span_sides",)),
    # --- Span arithmetic
    Fault("track.hermite_h11_sign", "track", _F,
          "h11 = (u * u) * (u - 1.0)",
          "h11 = (u * u) * (1.0 - u)",
          "The Hermite basis function h11 with the wrong sign.",
          (f"{_REF}::test_hermite_within_error_model_of_textbook_basis",)),
    Fault("track.hermite_right_out_slope", "track", _F,
          "m0, m1 = float(view.out_slopes[k]), float(view.in_slopes[k + 1])",
          "m0, m1 = float(view.out_slopes[k]), float(view.out_slopes[k + 1])",
          "A Hermite span uses the right key's OutSlope instead of its InSlope.",
          (f"{_REF}::test_hermite_within_error_model_of_textbook_basis",)),
    Fault("track.hermite_slopes_per_u", "track", _F,
          "value = (h00 * v0 + h01 * v1) + h * (h10 * m0 + h11 * m1)",
          "value = (h00 * v0 + h01 * v1) + (h10 * m0 + h11 * m1)",
          "Hermite slopes taken per unit u (the span width h dropped from the slope terms).",
          (f"{_REF}::test_hermite_within_error_model_of_textbook_basis",)),
    Fault("track.linear_lerp_not_exact_at_keys", "track", _F,
          "value = float((1.0 - uu) * v0 + uu * v1)  # exact at u = 0 and u = 1",
          "value = float(v0 + uu * (v1 - v0))",
          "A Linear span as v0 + u (v1 - v0): at u = 1 the rounded difference loses the right key's "
          "value when the two keys differ greatly in magnitude.",
          (f"{_REF}::test_linear_key_values_are_exact_between_keys_of_mixed_magnitudes",)),
    Fault("track.span_search_in_float", "track", _F,
          "    while k > 0 and t < Fraction(float(times[k])):\n        k -= 1\n"
          "    while k < n - 2 and t >= Fraction(float(times[k + 1])):\n        k += 1\n",
          "",
          "The span is found by a float64 search of the reduced time without the exact fix-up: a "
          "time that rounds onto a key lands in the neighbouring span (u slightly outside [0, 1]).",
          (f"{_REF}::test_a_reduced_time_a_hair_before_a_key_stays_in_the_earlier_span",)),
    Fault("track.linear_derivative_per_u", "track", _F,
          "return value, (v1 - v0) / h",
          "return value, (v1 - v0)",
          "A Linear span's derivative per unit u instead of per second.",
          (_REF,)),
    # --- Error model (the constants the checker reads)
    Fault("track.value_model_one_rounding", "track", _F,
          "VALUE_ERROR_K = 16.0",
          "VALUE_ERROR_K = 1.0",
          "The value error model counts one rounding (u S + eta) instead of 16.",
          (f"{_REF}::test_error_model_values",)),
    Fault("track.derivative_model_linear_constant", "track", _F,
          "DERIVATIVE_ERROR_K = 32.0",
          "DERIVATIVE_ERROR_K = 3.0",
          "The derivative error model uses the Linear analysis' constant 3 for every span.",
          (f"{_REF}::test_error_model_values",)),
    # --- Oracle faults (interval/track.py)
    Fault("track.oracle_pingpong_turning_point", "track", _O,
          'if policy == "PingPong" and tau > L:',
          'if policy == "PingPong" and tau >= L:',
          "The oracle reflects PingPong at the turning point tau = L.",
          (f"{_CHK}::test_the_pingpong_turning_points_are_forward", _ORACLE)),
    Fault("track.oracle_truncated_modulo", "track", _O,
          "return int(q.numerator // q.denominator)  # floored integer division",
          "return int(q)  # truncates toward zero",
          "The oracle's time reduction truncates toward zero: times before the domain reduce outside it.",
          (_ORACLE,)),
    Fault("track.oracle_scale_without_width", "track", _O,
          "scale = abs(v0) + abs(v1) + h * (abs(m0) + abs(m1))",
          "scale = abs(v0) + abs(v1) + (abs(m0) + abs(m1))",
          "The oracle's Hermite scale S leaves out the width h (a looser model on wide spans, tighter on short).",
          (f"{_CHK}::test_the_value_bound_is_16_u_s_with_the_scale_of_the_spec", _ORACLE)),
    Fault("track.oracle_derivative_per_u", "track", _O,
          "deriv = K.cubic_derivative(QQ, B, xx)[0] / h",
          "deriv = K.cubic_derivative(QQ, B, xx)[0]",
          "The oracle's Hermite derivative per unit u instead of per second.",
          (_ORACLE,)),
]
