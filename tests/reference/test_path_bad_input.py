"""Bad input to reference/path.py: overflowing conversions, extreme domain widths, mismatched
arrays, oversized sources and ints beyond the float range (docs/decisions.md, "Paths:
overflowing conversions, extreme domain widths and oversized sources rejected").

The rule: bad input gets a clear status or error and changes nothing, and Success never comes
with a value that is not finite. Expected statuses come from the docstrings and that decision
(OutOfRange for arithmetic beyond float64, as for tracks; BudgetExceeded for ``max_spans``;
InvalidArgument for a value that is no finite float64), never from running the code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from reference.path import (
    HermiteWaypoint,
    PathPreparation,
    PathSource,
    PathSpanSource,
    spans_from_arrays,
    try_convert_centripetal_catmull_rom,
    try_convert_hermite,
    try_evaluate_path,
    try_evaluate_path_tangent,
    try_prepare_path,
)
from reference.status import (
    BoundaryPolicy as BP,
    GeometryStatus as S,
    SegmentParameter,
    ToleranceProfile,
    WorkLimits,
)

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1024, max_depth=30, max_subdivisions=4096,
                    max_prepared_bytes=1 << 20, max_samples=1024)
TOL = ToleranceProfile(position_error=1e-5, relative_position_error=0.0, asset_scale=1.0,
                       continuity_position=0.5, continuity_angle=1e-6, continuity_derivative=1e-6,
                       continuity_second_derivative=1e-6, distance_error=1e-3, projection_gap=1e-3,
                       tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
                       normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)

# Two spans meeting at (3, 1, 0), every derivative at the joint nonzero (integer controls).
SRC = np.array([
    [[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]],
    [[3, 1, 0], [4, 1, 0], [5, 0, 0], [6, 0, 0]],
], dtype=np.float64)

HUGE = 10**400  # a Python int beyond float64's range: float(HUGE) raises OverflowError


def prepare(widths, controls=SRC, closed=False, origin=(0.0, 0.0, 0.0)):
    return try_prepare_path(PathSource(spans_from_arrays(controls, widths), 1, closed),
                            PathPreparation(TOL, LIMITS, origin))


def outputs(cap=4):
    """Caller-owned conversion outputs filled with a marker, and their bits to compare with."""
    oc, ow = np.full((cap, 4, 3), 3.5), np.full(cap, 3.5)
    return oc, ow, oc.copy(), ow.copy()


def unchanged(oc, ow, c0, w0) -> bool:
    return np.array_equal(oc.view(np.uint64), c0.view(np.uint64)) and \
        np.array_equal(ow.view(np.uint64), w0.view(np.uint64))


@pytest.fixture(scope="module")
def view():
    out = prepare([1.0, 1.0])
    assert out.ok, out.diagnostic
    return out.value.view()


# --- 1, 2: conversions whose finite input overflows --------------------------------------------


@pytest.mark.parametrize("points, closed", [
    ([[-1e308, 0, 0], [1e308, 0, 0], [1e308, 1e308, 0]], False),  # the audit's reproducer
    ([[-1e308, 0, 0], [1e308, 0, 0], [1e308, 1e308, 0]], True),
    ([[0, 0, 0], [1.5e308, 0, 0], [-1.5e308, 1, 0]], False),  # the chord itself overflows
])
def test_catmull_rom_overflow_is_out_of_range_and_writes_nothing(points, closed):
    oc, ow, c0, w0 = outputs()
    out = try_convert_centripetal_catmull_rom(points, closed, 0.0, oc, ow)
    assert out.status is S.OutOfRange and out.value is None
    assert out.diagnostic.index == 0
    assert unchanged(oc, ow, c0, w0)


def test_catmull_rom_far_apart_but_representable_still_converts():
    # Waypoints 1e170 apart: the chord (1e170) and the knot interval (1e85) are representable.
    pts = np.array([[0, 0, 0], [1, 0, 0], [1, 2, 0], [3, 2, 1]], dtype=np.float64) * 1e170
    oc, ow, _, _ = outputs()
    out = try_convert_centripetal_catmull_rom(pts, False, 0.0, oc, ow)
    assert out.ok and out.value == 3
    assert np.all(np.isfinite(oc[:3])) and np.all(np.isfinite(ow[:3]))


@pytest.mark.parametrize("waypoints", [
    # the audit's reproducer: B1 = P0 + h T0 / 3 with h T0 = 1e309
    [HermiteWaypoint((0, 0, 0), (1e308, 0, 0), 10.0), HermiteWaypoint((1, 0, 0), (1, 0, 0), 1.0)],
    # B2 = P2 - h T2 / 3 overflows to -inf on the second span only (h = 10, T2 = 1e308)
    [HermiteWaypoint((0, 0, 0), (1, 0, 0), 1.0), HermiteWaypoint((1, 0, 0), (1, 0, 0), 10.0),
     HermiteWaypoint((-1e308, 0, 0), (1e308, 0, 0), 1.0)],
])
def test_hermite_overflow_is_out_of_range_and_writes_nothing(waypoints):
    oc, ow, c0, w0 = outputs()
    out = try_convert_hermite(waypoints, False, oc, ow)
    assert out.status is S.OutOfRange and out.value is None
    assert out.diagnostic.index == len(waypoints) - 2  # the span whose control overflows
    assert unchanged(oc, ow, c0, w0)


# --- 3: domain widths whose scaled derivatives leave float64 --------------------------------------


@pytest.mark.parametrize("widths", [
    [1e-300, 1e-300],  # w^2 underflows to 0: s = B''/w^2 is inf, |d| overflows
    [1e308, 1e-308],  # d_out = B'/1e-308 overflows: the angle would be NaN
    [1e308, 1e308],  # |d| underflows to 0 though B' is not 0: read as a zero derivative
    [2.0**-1074, 1.0],
])
def test_widths_whose_scaled_derivatives_leave_float64_are_out_of_range(widths):
    out = prepare(widths)
    assert out.status is S.OutOfRange and out.value is None
    assert out.diagnostic.index == 1 and out.diagnostic.field == "domain_width"


def test_closing_joint_widths_are_checked_too():
    loop = np.array([
        [[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]],
        [[3, 0, 0], [2, -1, 0], [1, -1, 0], [0, 0, 0]],
    ], dtype=np.float64)
    assert prepare([1.0, 1.0], loop, closed=True).ok
    out = prepare([1.0, 1e-300], loop, closed=True)
    assert out.status is S.OutOfRange and out.diagnostic.index == 0  # the closing joint first


def test_success_never_reports_a_continuity_value_that_is_not_finite():
    # Widths across float64's range: a preparation either fails with OutOfRange or reports
    # finite joint values (the angle is NaN only where a derivative is exactly zero, and SRC
    # has none), so no extreme width slips through with inf or NaN.
    grid = [2.0**e for e in range(-1074, 1024, 37)] + [1.7976931348623157e308]
    statuses = set()
    for w_in, w_out in itertools.product(grid, repeat=2):
        out = prepare([w_in, w_out])
        statuses.add(out.status)
        if out.ok:
            rec = out.value.view().joints[0]
            values = (rec.tangent_angle, rec.derivative_difference, rec.derivative_scale,
                      rec.second_derivative_difference, rec.second_derivative_scale)
            assert all(math.isfinite(x) for x in values), (w_in, w_out, rec)
            assert rec.derivative_scale > 0 and rec.second_derivative_scale > 0, (w_in, w_out, rec)
        else:
            assert out.status is S.OutOfRange, (w_in, w_out, out.diagnostic)
    assert statuses == {S.Success, S.OutOfRange}


def test_zero_derivatives_keep_their_documented_nan_angle():
    # A stationary incoming span: its derivatives are exactly zero at every width, which is
    # the JointRecord's documented NaN angle, not a range failure.
    still = np.array([[[3, 1, 0]] * 4, SRC[1]], dtype=np.float64)
    out = prepare([1e-3, 1.0], still)
    assert out.ok, out.diagnostic
    assert math.isnan(out.value.view().joints[0].tangent_angle)


# --- 4: mismatched array lengths ---------------------------------------------------------------


@pytest.mark.parametrize("controls, widths, n_controls, n_widths", [
    (SRC, [1.0], 2, 1),  # span 1 would be dropped
    (SRC[:1], [1.0, 1.0], 1, 2),  # widths[1] would read past the controls
])
def test_spans_from_arrays_needs_one_width_per_span(controls, widths, n_controls, n_widths):
    with pytest.raises(ValueError) as err:
        spans_from_arrays(controls, widths)
    message = str(err.value)
    assert f"{n_controls} spans" in message and f"{n_widths} widths" in message


# --- 5: oversized sources are counted before they are read -----------------------------------------


class _Claims:
    """A span sequence whose ``len`` is huge; reading it is a failure of the test."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __iter__(self):
        raise AssertionError("the spans were read before their count was checked")


@pytest.mark.parametrize("length", [10**12, LIMITS.max_spans + 1, 2**70])  # 2^70: len() overflows
def test_a_sized_source_beyond_max_spans_is_budget_exceeded_unread(length):
    out = try_prepare_path(PathSource(_Claims(length), 1), PathPreparation(TOL, LIMITS))
    assert out.status is S.BudgetExceeded and out.diagnostic.field == "max_spans"


def test_an_iterator_is_read_to_one_span_past_max_spans_at_most():
    span = PathSpanSource(SRC[0], 1.0)
    pulled = []

    def spans():
        for k in itertools.count():
            assert k <= LIMITS.max_spans, "read past max_spans + 1 spans"
            pulled.append(k)
            yield span

    out = try_prepare_path(PathSource(spans(), 1), PathPreparation(TOL, LIMITS))
    assert out.status is S.BudgetExceeded and out.diagnostic.field == "max_spans"
    assert len(pulled) == LIMITS.max_spans + 1
    # An iterator within the limit prepares as its list does.
    two = spans_from_arrays(SRC, [1.0, 1.0])
    assert prepare([1.0, 1.0]).value.view().joints == \
        try_prepare_path(PathSource(iter(two), 1), PathPreparation(TOL, LIMITS)).value.view().joints


# --- 6: ints beyond the float range where a real is expected -----------------------------------------


@pytest.mark.parametrize("policy", [BP.Reject, BP.Clamp])
@pytest.mark.parametrize("u", [HUGE, -HUGE], ids=["plus_10e400", "minus_10e400"])
def test_a_huge_int_parameter_is_invalid_argument(view, policy, u):
    # As a nonfinite u: no float64 parameter names the request (resolve_parameter's docstring).
    assert try_evaluate_path(view, SegmentParameter(0, u), policy).status is S.InvalidArgument
    assert try_evaluate_path_tangent(view, SegmentParameter(0, u), 0.0, policy).status is S.InvalidArgument


def test_a_huge_int_minimum_speed_is_invalid_argument(view):
    out = try_evaluate_path_tangent(view, SegmentParameter(0, 0.5), HUGE)
    assert out.status is S.InvalidArgument and out.diagnostic.field == "minimum_speed"


@pytest.mark.parametrize("spans, origin", [
    ([PathSpanSource(SRC[0], HUGE)], (0.0, 0.0, 0.0)),  # a width
    ([PathSpanSource([[HUGE, 0, 0]] + SRC[0, 1:].tolist(), 1.0)], (0.0, 0.0, 0.0)),  # a control
    ([PathSpanSource(SRC[0], 1.0)], (HUGE, 0, 0)),  # the origin
])
def test_huge_ints_in_a_source_are_invalid_argument(spans, origin):
    out = try_prepare_path(PathSource(spans, 1), PathPreparation(TOL, LIMITS, origin))
    assert out.status is S.InvalidArgument


def test_huge_ints_in_conversions_are_invalid_argument_and_write_nothing():
    oc, ow, c0, w0 = outputs()
    good = HermiteWaypoint((1, 0, 0), (1, 0, 0), 1.0)
    for bad in (HermiteWaypoint((0, 0, 0), (1, 0, 0), HUGE), HermiteWaypoint((HUGE, 0, 0), (1, 0, 0), 1.0),
                HermiteWaypoint((0, 0, 0), (0, -HUGE, 0), 1.0)):
        assert try_convert_hermite([bad, good], False, oc, ow).status is S.InvalidArgument
    pts = [[0, 0, 0], [1, 0, 0], [1, 1, 0]]
    assert try_convert_centripetal_catmull_rom(pts, False, HUGE, oc, ow).status is S.InvalidArgument
    assert try_convert_centripetal_catmull_rom(pts[:2] + [[HUGE, 1, 0]], False, 0.0, oc, ow).status \
        is S.InvalidArgument
    assert unchanged(oc, ow, c0, w0)


def test_numpy_integers_are_reals_where_a_real_is_expected(view):
    """np.int64(0) as a caller's speed, a parameter, a Hermite width or a coincidence distance is
    the real number it holds (the audit found it refused as "must be finite")."""
    t = try_evaluate_path_tangent(view, SegmentParameter(0, np.int64(0)), np.int64(0))
    assert t.ok
    same = try_evaluate_path_tangent(view, SegmentParameter(0, 0.0), 0.0)
    assert np.array_equal(t.value, same.value)
    oc, ow = np.zeros((4, 4, 3)), np.zeros(4)
    wps = [HermiteWaypoint((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), np.int64(2)),
           HermiteWaypoint((1.0, 0.0, 0.0), (1.0, 0.0, 0.0), np.int64(1))]
    assert try_convert_hermite(wps, False, oc, ow).ok and ow[0] == 2.0
    pts = np.array([[0.0, 0, 0], [1, 0, 0], [1, 2, 0]])
    assert try_convert_centripetal_catmull_rom(pts, False, np.int64(0), oc, ow).ok
    for bad in (True, np.True_):  # a bool is not a real
        assert try_evaluate_path_tangent(view, SegmentParameter(0, 0.5), bad).status is S.InvalidArgument
