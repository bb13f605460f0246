"""Unit tests of reference/path.py: every failure the spec lists (status and unchanged outputs),
span sides, boundary policies, tangents, sampling, bounds, joints and both conversions.

Expected values come from hand arithmetic written here, exact rationals (Fraction), or the
rational replay in interval/narrowing.py; never from the code under test.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

from interval.narrowing import replay_narrowing, replay_position_floor
from reference import error_model as EM
from reference.path import (
    CubicSample3,
    HermiteWaypoint,
    JointContinuity,
    PathPreparation,
    PathSource,
    PathSpanSource,
    control_bounds,
    spans_from_arrays,
    try_convert_centripetal_catmull_rom,
    try_convert_hermite,
    try_evaluate_path,
    try_evaluate_path_tangent,
    try_get_joint_continuity,
    try_prepare_path,
    try_sample_path,
)
from reference.status import (
    BoundaryPolicy as BP,
    GeometryStatus as S,
    SegmentParameter,
    SpanSide,
    ToleranceProfile,
    WorkLimits,
)

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1024, max_depth=30, max_subdivisions=4096,
                    max_prepared_bytes=1 << 20, max_samples=1024)


def tol(position_error=1e-5, continuity_position=1e-5, angle=1e-6, derivative=1e-6, second=1e-6,
        relative=0.0, scale=1.0):
    return ToleranceProfile(position_error=position_error, relative_position_error=relative,
                            asset_scale=scale, continuity_position=continuity_position,
                            continuity_angle=angle, continuity_derivative=derivative,
                            continuity_second_derivative=second, distance_error=1e-3,
                            projection_gap=1e-3, tangent_angle_error=1e-3, minimum_speed=1e-9,
                            minimum_sin_angle=1e-3, normal_min_derivative_length=1e-9,
                            normal_min_sin_angle=1e-3)


# Three spans with integer controls: span 1 starts 0.25 away from span 0's end (a C0 gap
# within continuity_position = 0.5), so the two sides of joint 1 evaluate differently.
THREE = np.array([
    [[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]],
    [[3, 1.25, 0], [4, 1, 0], [5, 0, 0], [6, 0, 0]],
    [[6, 0, 0], [7, 0, 1], [8, 0, 2], [9, 0, 2]],
], dtype=np.float64)


def prepare(controls=THREE, widths=None, closed=False, origin=(0.0, 0.0, 0.0), tolerance=None,
            limits=LIMITS, revision=1):
    widths = np.ones(len(controls)) if widths is None else widths
    src = PathSource(spans_from_arrays(controls, widths), revision=revision, is_closed=closed)
    return try_prepare_path(src, PathPreparation(tolerance or tol(continuity_position=0.5), limits, origin))


@pytest.fixture
def path():
    out = prepare()
    assert out.ok, out.diagnostic
    return out.value


def snapshot(p):
    v = p.view()
    return (v.controls.copy(), v.domain_widths.copy(), v.origin.copy(), v.revision, v.joints)


def assert_unchanged(p, snap):
    v = p.view()
    assert np.array_equal(v.controls.view(np.uint32), snap[0].view(np.uint32))
    assert np.array_equal(v.domain_widths, snap[1]) and np.array_equal(v.origin, snap[2])
    assert v.revision == snap[3] and v.joints == snap[4]


# --- Preparation -----------------------------------------------------------------------------


def test_view_is_read_only_float32_with_float64_origin(path):
    v = path.view()
    assert v.controls.dtype == np.float32 and v.controls.shape == (3, 4, 3)
    assert v.origin.dtype == np.float64
    for arr in (v.controls, v.domain_widths, v.origin):
        with pytest.raises(ValueError):
            arr[...] = 0
    with pytest.raises(AttributeError):
        path._view = None


def test_narrowing_is_origin_subtraction_then_float32_rounding():
    origin = (1e7 + 0.5, -3e6, 12345.678)
    rng = np.random.default_rng(5)
    src = np.array(origin) + rng.normal(size=(2, 4, 3)) * 10
    src[1, 0] = src[0, 3]
    out = prepare(src, origin=origin, tolerance=tol(position_error=1e-3, continuity_position=1e-3))
    assert out.ok, out.diagnostic
    assert np.array_equal(out.value.view().controls, replay_narrowing(src, np.array(origin)))
    floor, E = replay_position_floor(src, np.array(origin))
    assert out.value.view().position_floor == floor and out.value.view().max_magnitude == E


def test_failures_keep_the_previous_owner(path):
    snap = snapshot(path)
    bad = THREE.copy()
    bad[1, 2, 1] = np.nan
    cases = [
        (prepare(bad), S.InvalidArgument, 1),
        (prepare(np.where(THREE == 9, np.inf, THREE)), S.InvalidArgument, 2),
        (prepare(THREE[:0]), S.InvalidArgument, None),
        (prepare(THREE, widths=np.array([1.0, 0.0, 1.0])), S.InvalidArgument, 1),
        (prepare(THREE, widths=np.array([1.0, np.nan, 1.0])), S.InvalidArgument, 1),
        (prepare(THREE, revision=-1), S.InvalidArgument, None),
        (prepare(THREE, origin=(0.0, np.nan, 0.0)), S.InvalidArgument, None),
        (prepare(THREE, tolerance=tol(position_error=np.nan, continuity_position=0.5)), S.InvalidArgument, None),
        (prepare(THREE, limits=dataclasses.replace(LIMITS, max_spans=2)), S.BudgetExceeded, None),
        (prepare(THREE, limits=dataclasses.replace(LIMITS, max_prepared_bytes=10)),
         S.BudgetExceeded, None),
        (prepare(THREE, tolerance=tol(continuity_position=0.24)), S.InvalidTopology, 1),
        (prepare(THREE, closed=True), S.InvalidTopology, 0),  # (9, 0, 2) does not close onto (0, 0, 0)
        (prepare(THREE, tolerance=tol(position_error=1e-9, continuity_position=0.5)),
         S.UnsupportedPrecision, None),
        (prepare(THREE * 1e39, tolerance=tol(position_error=1e6, continuity_position=1e6)),
         S.UnsupportedPrecision, 0),
    ]
    for out, status, index in cases:
        assert out.status is status, out.diagnostic
        assert out.value is None and out.diagnostic.status is status
        if index is not None:
            assert out.diagnostic.index == index
    assert_unchanged(path, snap)


def test_zero_work_limit_allows_no_work():
    zero = dataclasses.replace(LIMITS, max_spans=0)
    assert prepare(limits=zero).status is S.BudgetExceeded


def test_disconnected_spans_are_invalid_topology(path):
    snap = snapshot(path)
    out = prepare(THREE, tolerance=tol(continuity_position=0.24))  # the joint-1 gap is 0.25
    assert out.status is S.InvalidTopology and out.diagnostic.index == 1
    assert out.diagnostic.value == 0.25
    assert prepare(THREE, tolerance=tol(continuity_position=0.25)).ok  # "within": <= passes
    assert_unchanged(path, snap)


def test_closing_joint_gap_is_invalid_topology():
    ring = np.array([[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]],
                     [[0, 1, 0], [-1, 1, 0], [-1, 0, 0], [0, 0.125, 0]]], dtype=np.float64)
    out = prepare(ring, closed=True, tolerance=tol(continuity_position=0.1))
    assert out.status is S.InvalidTopology and out.diagnostic.index == 0  # the closing joint
    assert prepare(ring, closed=False, tolerance=tol(continuity_position=0.1)).ok
    assert prepare(ring, closed=True, tolerance=tol(continuity_position=0.125)).ok


def test_position_floor_boundary_is_exact():
    # Integer controls up to 3 (E = 3, narrowing error 0): the floor is 2 ulp32(3) = 2**-21.
    floor = 2 * 2.0**-22
    at = prepare(THREE[:1], tolerance=tol(position_error=floor))
    assert at.ok and at.value.view().position_floor == floor
    below = prepare(THREE[:1], tolerance=tol(position_error=math.nextafter(floor, 0)))
    assert below.status is S.UnsupportedPrecision and below.diagnostic.value == floor
    # The relative term counts: 0 absolute, relative * scale = floor exactly.
    rel = prepare(THREE[:1], tolerance=tol(position_error=0.0, relative=floor / 8, scale=8.0))
    assert rel.ok


def test_narrowing_error_adds_to_the_floor():
    # 1 + 2**-24 is halfway between the float32 values 1 and 1 + 2**-23: it rounds to even, 1,
    # with narrowing error exactly 2**-24. E = 2, so the floor is 2 ulp32(2) + 2**-24, exact.
    src = np.zeros((1, 4, 3))
    src[0, :, 0] = [0.0, 1.0, 2.0, 1.0 + 2.0**-24]
    view = prepare(src, tolerance=tol(position_error=1.0)).value.view()
    assert view.controls[0, 3, 0] == 1.0
    assert view.narrowing_error == 2.0**-24
    assert view.position_floor == 2 * 2.0**-22 + 2.0**-24
    assert prepare(src, tolerance=tol(position_error=2.0**-21)).status is S.UnsupportedPrecision


def test_out_of_float32_range_is_unsupported_precision():
    src = THREE[:1] * 1e39
    assert prepare(src, tolerance=tol(position_error=1e6)).status is S.UnsupportedPrecision


# --- Evaluation: policies and span sides ----------------------------------------------------


def test_policies_outside_the_domain(path):
    v = path.view()
    assert try_evaluate_path(v, SegmentParameter(2, 1.5)).status is S.InvalidDomain
    assert try_evaluate_path(v, SegmentParameter(0, -0.25)).status is S.InvalidDomain
    assert try_evaluate_path(v, SegmentParameter(3, 0.5)).status is S.InvalidDomain
    # (n, 0) and (-1, 1) are the two endpoints' names from outside; no policy is involved.
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(3, 0.0)).value, [9, 0, 2])
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(-1, 1.0)).value, [0, 0, 0])
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(2, 1.5), BP.Clamp).value, [9, 0, 2])
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(-4, 0.5), BP.Clamp).value, [0, 0, 0])
    for p in (BP.Wrap, BP.Hold, BP.Loop, BP.PingPong):  # Wrap needs a closed path
        assert try_evaluate_path(v, SegmentParameter(0, 0.5), p).status is S.InvalidArgument
    # Names no point (interior span with u outside [0, 1]) and nonfinite u: InvalidArgument.
    assert try_evaluate_path(v, SegmentParameter(0, 1.5), BP.Clamp).status is S.InvalidArgument
    assert try_evaluate_path(v, SegmentParameter(1, -0.5), BP.Clamp).status is S.InvalidArgument
    assert try_evaluate_path(v, SegmentParameter(0, math.nan), BP.Clamp).status is S.InvalidArgument
    assert try_evaluate_path(v, SegmentParameter(2, math.inf), BP.Clamp).status is S.InvalidArgument


def test_wrap_on_a_closed_path_is_exact():
    ring = np.array([[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]],
                     [[0, 1, 0], [-1, 1, 0], [-1, 0, 0], [0, 0, 0]]], dtype=np.float64)
    v = prepare(ring, closed=True).value.view()
    u = 0.1
    got = try_evaluate_path(v, SegmentParameter(1, 1.0 + u), BP.Wrap).value
    # (1, 1.1) wraps to (0, 1.1 - 1); the fraction 1.1 - 1 is the exact float difference.
    want = try_evaluate_path(v, SegmentParameter(0, 1.1 - 1.0)).value
    assert np.array_equal(got, want)
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(5, 0.5), BP.Wrap).value,
                          try_evaluate_path(v, SegmentParameter(1, 0.5)).value)
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(-1, 0.25), BP.Wrap).value,
                          try_evaluate_path(v, SegmentParameter(1, 0.25)).value)


def test_span_sides_at_boundaries(path):
    v = path.view()
    end0 = v.controls[0, 3].astype(np.float64)  # (3, 1, 0)
    start1 = v.controls[1, 0].astype(np.float64)  # (3, 1.25, 0)
    ev = lambda k, u, side: try_evaluate_path(v, SegmentParameter(k, u), side=side).value
    # An exact boundary selects the outgoing span at u = 0, from either name of the boundary.
    assert np.array_equal(ev(0, 1.0, SpanSide.Outgoing), start1)
    assert np.array_equal(ev(1, 0.0, SpanSide.Outgoing), start1)
    # Incoming selects the previous span at u = 1.
    assert np.array_equal(ev(1, 0.0, SpanSide.Incoming), end0)
    assert np.array_equal(ev(0, 1.0, SpanSide.Incoming), end0)
    # The first endpoint: both sides select the first span; the terminal endpoint the last.
    assert np.array_equal(ev(0, 0.0, SpanSide.Incoming), [0, 0, 0])
    assert np.array_equal(ev(2, 1.0, SpanSide.Outgoing), [9, 0, 2])


def test_derivatives_per_u_match_exact_rationals(path):
    v = path.view()
    u = 0.3
    s = try_evaluate_path(v, SegmentParameter(2, u), with_derivatives=True).value
    assert isinstance(s, CubicSample3)
    P = [[Fraction(float(x)) for x in row] for row in v.controls[2]]
    U, W = Fraction(u), 1 - Fraction(u)
    for k in range(3):
        b = W**3 * P[0][k] + 3 * W * W * U * P[1][k] + 3 * W * U * U * P[2][k] + U**3 * P[3][k]
        d1 = 3 * (W * W * (P[1][k] - P[0][k]) + 2 * W * U * (P[2][k] - P[1][k]) + U * U * (P[3][k] - P[2][k]))
        d2 = 6 * (W * (P[2][k] - 2 * P[1][k] + P[0][k]) + U * (P[3][k] - 2 * P[2][k] + P[1][k]))
        E = EM.span_magnitude(v.controls[2])
        assert abs(Fraction(s.position[k]) - b) <= Fraction(EM.position_bound(E))
        assert abs(Fraction(s.first[k]) - d1) <= Fraction(EM.derivative_bound(E))
        assert abs(Fraction(s.second[k]) - d2) <= Fraction(EM.second_derivative_bound(E))


# --- Tangents --------------------------------------------------------------------------------


def test_tangent_degenerate_at_or_below_the_speed():
    line = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]], dtype=np.float64)
    v = prepare(line).value.view()
    # B'(u) = 3 (1, 0, 0) everywhere: speed exactly 3.
    at = try_evaluate_path_tangent(v, SegmentParameter(0, 0.5), 3.0)
    assert at.status is S.Degenerate and at.diagnostic.value == 3.0
    ok = try_evaluate_path_tangent(v, SegmentParameter(0, 0.5), math.nextafter(3.0, 0))
    assert ok.ok and np.array_equal(ok.value, [1, 0, 0])
    assert try_evaluate_path_tangent(v, SegmentParameter(0, 0.5), -1.0).status is S.InvalidArgument
    assert try_evaluate_path_tangent(v, SegmentParameter(0, 0.5), math.nan).status is S.InvalidArgument


def test_tangent_degenerate_at_ease_endpoint_and_stationary_span_position_valid():
    src = np.array([[[2, 2, 2]] * 4, [[2, 2, 2], [2, 2, 2], [3, 2, 2], [4, 2, 2]]], dtype=np.float64)
    v = prepare(src).value.view()
    assert try_evaluate_path_tangent(v, SegmentParameter(0, 0.5), 0.0).status is S.Degenerate
    assert try_evaluate_path_tangent(v, SegmentParameter(1, 0.0), 0.0).status is S.Degenerate  # P1 = P0
    assert np.array_equal(try_evaluate_path(v, SegmentParameter(0, 0.5)).value, [2, 2, 2])
    assert try_evaluate_path_tangent(v, SegmentParameter(1, 0.5), 0.0).ok


# --- Sampling --------------------------------------------------------------------------------


def test_vectorised_sampling_equals_scalar_evaluation(path):
    v = path.view()
    ks = np.array([0, 0, 1, 2, 2, 1, -3, 7])
    us = np.array([0.0, 1.0, 0.37, 0.5, 1.0, 0.0, 0.5, 0.5])
    pos, d1, d2 = np.zeros((8, 3)), np.zeros((8, 3)), np.zeros((8, 3))
    for side in (SpanSide.Outgoing, SpanSide.Incoming):
        out = try_sample_path(v, ks, us, pos, d1, d2, policy=BP.Clamp, side=side)
        assert out.ok and out.value == 8
        for i in range(8):
            s = try_evaluate_path(v, SegmentParameter(int(ks[i]), float(us[i])), BP.Clamp, side, True).value
            assert np.array_equal(pos[i], s.position) and np.array_equal(d1[i], s.first)
            assert np.array_equal(d2[i], s.second)


def test_sampling_failures_leave_outputs_unchanged(path):
    v = path.view()
    ks, us = np.array([0, 1, 5]), np.array([0.5, 0.5, 0.5])
    pos = np.full((3, 3), 7.25)
    before = pos.copy()
    assert try_sample_path(v, ks, us, pos).status is S.InvalidDomain  # span 5 under Reject
    assert try_sample_path(v, ks, us, pos, policy=BP.Wrap).status is S.InvalidArgument
    assert try_sample_path(v, ks[:2], us, pos).status is S.InvalidArgument  # mismatched lengths
    small = np.full((2, 3), 7.25)
    assert try_sample_path(v, ks, us, small, policy=BP.Clamp).status is S.CapacityExceeded
    assert try_sample_path(v, ks, us, pos.astype(np.float32), policy=BP.Clamp).status is S.InvalidArgument
    ro = pos.copy()
    ro.setflags(write=False)
    assert try_sample_path(v, ks, us, ro, policy=BP.Clamp).status is S.InvalidArgument
    assert try_sample_path(v, ks, np.array([0.5, np.nan, 0.5]), pos, policy=BP.Clamp).status is S.InvalidArgument
    assert np.array_equal(pos, before) and np.array_equal(small, np.full((2, 3), 7.25))


# --- Bounds and joints -----------------------------------------------------------------------


def test_control_bounds_are_exact_min_max(path):
    v = path.view()
    lo, hi = control_bounds(v, 1).value
    assert np.array_equal(lo, [3, 0, 0]) and np.array_equal(hi, [6, 1.25, 0])
    assert lo.dtype == np.float32
    lo, hi = control_bounds(v).value
    assert np.array_equal(lo, [0, 0, 0]) and np.array_equal(hi, [9, 1.25, 2])
    assert control_bounds(v, 3).status is S.InvalidArgument


def test_joint_classification_levels():
    # A cubic split at 1/2 (exact for these integers): widths 1/2 each give C2 exactly.
    P = np.array([[0, 0, 0], [2, 4, 0], [6, 4, 2], [8, 0, 2]], dtype=np.float64)
    q01, q12, q23 = (P[0] + P[1]) / 2, (P[1] + P[2]) / 2, (P[2] + P[3]) / 2
    r0, r1 = (q01 + q12) / 2, (q12 + q23) / 2
    m = (r0 + r1) / 2
    halves = np.array([[P[0], q01, r0, m], [m, r1, q23, P[3]]])
    v = prepare(halves, widths=np.array([0.5, 0.5])).value.view()
    j = try_get_joint_continuity(v, 1).value
    assert j.continuity is JointContinuity.C2
    assert j.position_gap == 0 and j.tangent_angle == 0 and j.derivative_difference == 0
    assert j.second_derivative_difference == 0
    # Same halves with widths 1 and 1: derivatives per u are equal but second derivatives per
    # width^2 equal too (same width); widths 1 and 2 break C1 but keep G1.
    v2 = prepare(halves, widths=np.array([1.0, 2.0])).value.view()
    j2 = try_get_joint_continuity(v2, 1).value
    assert j2.continuity is JointContinuity.G1
    d = 3 * np.linalg.norm(halves[0, 3] - halves[0, 2])  # |B'_in(1)| per u
    assert j2.derivative_difference == pytest.approx(d / 2, rel=1e-15)
    assert j2.derivative_scale == pytest.approx(d, rel=1e-15)
    # A right-angle corner: C0 with angle pi/2 within its error model.
    corner = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
                       [[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]]], dtype=np.float64)
    j3 = try_get_joint_continuity(prepare(corner).value.view(), 1).value
    assert j3.continuity is JointContinuity.C0
    assert abs(j3.tangent_angle - math.pi / 2) <= EM.angle_bound(math.sqrt(2)) + 2.0**-52
    # A zero derivative has no direction: NaN angle, C0.
    ease = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [2, 0, 0]],
                     [[2, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0]]], dtype=np.float64)
    j4 = try_get_joint_continuity(prepare(ease).value.view(), 1).value
    assert math.isnan(j4.tangent_angle) and j4.continuity is JointContinuity.C0


def test_joint_indices(path):
    v = path.view()
    assert try_get_joint_continuity(v, 0).status is S.InvalidArgument  # open: joints 1..n-1
    assert try_get_joint_continuity(v, 3).status is S.InvalidArgument
    assert try_get_joint_continuity(v, 2).value.incoming_span == 1


# --- Conversions -----------------------------------------------------------------------------

SPEC_POINTS = np.array([[0, 0, 0], [1, 0, 0], [1, 4, 0], [10, 4, 0]], dtype=np.float64)

# Hand arithmetic for the spec's example: chords 1, 4, 9 give centripetal knot intervals
# 1, 2, 3. Tangents: m0 = (1, 0) (chord), m1 = (1,0) - (1,4)/3 + (0,4)/2 = (2/3, 2/3),
# m2 = (0,4)/2 - (9,4)/5 + (9,0)/3 = (6/5, 6/5), m3 = (9,0)/3 = (3, 0) (chord).
# B1 = P_i + d_i m_i / 3, B2 = P_{i+1} - d_i m_{i+1} / 3.
F = Fraction
SPEC_CONTROLS = [
    [(0, 0), (F(1, 3), 0), (F(7, 9), F(-2, 9)), (1, 0)],
    [(1, 0), (F(13, 9), F(4, 9)), (F(1, 5), F(16, 5)), (1, 4)],
    [(1, 4), (F(11, 5), F(26, 5)), (7, 4), (10, 4)],
]


def test_catmull_rom_spec_example_by_hand():
    oc, ow = np.zeros((3, 4, 3)), np.zeros(3)
    out = try_convert_centripetal_catmull_rom(SPEC_POINTS, False, 1e-6, oc, ow)
    assert out.ok and out.value == 3
    assert np.array_equal(ow, [1, 2, 3])
    for i, span in enumerate(SPEC_CONTROLS):
        bound = Fraction(EM.catmull_rom_bound(SPEC_POINTS[max(i - 1, 0):i + 3]))
        for c, (x, y) in enumerate(span):
            assert abs(Fraction(oc[i, c, 0]) - x) <= bound and abs(Fraction(oc[i, c, 1]) - y) <= bound
            assert oc[i, c, 2] == 0
        assert np.array_equal(oc[i, 0], SPEC_POINTS[i]) and np.array_equal(oc[i, 3], SPEC_POINTS[i + 1])
    # The converted source prepares, and the Catmull-Rom joints are C1 per knot parameter.
    v = try_prepare_path(PathSource(spans_from_arrays(oc, ow), 1),
                         PathPreparation(tol(position_error=1e-5, angle=1e-5, derivative=1e-5), LIMITS)).value.view()
    assert all(j.continuity >= JointContinuity.C1 for j in v.joints)


def test_catmull_rom_rejections_leave_outputs_unchanged():
    oc, ow = np.full((4, 4, 3), 3.5), np.full(4, 3.5)
    c0, w0 = oc.copy(), ow.copy()
    repeated = np.vstack([SPEC_POINTS, SPEC_POINTS[:1]])
    out = try_convert_centripetal_catmull_rom(repeated, True, 1e-6, oc, ow)
    assert out.status is S.InvalidDomain and out.diagnostic.index == 4  # closing pair 4 -> 0
    near = SPEC_POINTS.copy()
    near[2] = near[1] + [0, 0.25, 0]
    out = try_convert_centripetal_catmull_rom(near, False, 0.25, oc, ow)
    assert out.status is S.InvalidDomain and out.diagnostic.index == 1  # within means <=
    dup = SPEC_POINTS.copy()
    dup[1] = dup[0]
    assert try_convert_centripetal_catmull_rom(dup, False, 0.0, oc, ow).status is S.InvalidDomain
    assert try_convert_centripetal_catmull_rom(SPEC_POINTS, True, 1e-6, oc[:3], ow[:3]).status \
        is S.CapacityExceeded
    nan = SPEC_POINTS.copy()
    nan[3, 1] = np.nan
    assert try_convert_centripetal_catmull_rom(nan, False, 1e-6, oc, ow).status is S.InvalidArgument
    assert try_convert_centripetal_catmull_rom(SPEC_POINTS[:1], False, 1e-6, oc, ow).status is S.InvalidArgument
    assert try_convert_centripetal_catmull_rom(SPEC_POINTS, False, -1.0, oc, ow).status is S.InvalidArgument
    assert np.array_equal(oc, c0) and np.array_equal(ow, w0)


def test_catmull_rom_near_coincident_passes_just_outside_the_distance():
    near = SPEC_POINTS.copy()
    near[2] = near[1] + [0, 0.25, 0]
    oc, ow = np.zeros((3, 4, 3)), np.zeros(3)
    assert try_convert_centripetal_catmull_rom(near, False, math.nextafter(0.25, 0), oc, ow).ok
    assert try_convert_centripetal_catmull_rom(near, False, 0.25, oc, ow).status is S.InvalidDomain


def test_catmull_rom_closed_wraps_neighbours():
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=np.float64)
    oc, ow = np.zeros((4, 4, 3)), np.zeros(4)
    assert try_convert_centripetal_catmull_rom(square, True, 1e-9, oc, ow).value == 4
    assert np.all(ow == 1.0)
    # Unit knots on a square: m_i = (P_{i+1} - P_{i-1}) / 2 (Barry-Goldman with d0 = d1 = 1),
    # so span 0: B1 = (0,0) + ((1,0) - (0,1)) / 6 = (1/6, -1/6), B2 = (1,0) - ((1,1) - (0,0)) / 6.
    assert np.allclose(oc[0, 1, :2], [1 / 6, -1 / 6], rtol=0, atol=1e-15)
    assert np.allclose(oc[0, 2, :2], [5 / 6, -1 / 6], rtol=0, atol=1e-15)
    assert np.array_equal(oc[3, 3], square[0])  # the closing span returns to the first waypoint


def test_hermite_conversion_by_hand_and_rejections():
    wps = [HermiteWaypoint((0, 0, 0), (3, 0, 0), 2.0), HermiteWaypoint((4, 0, 0), (0, 6, 0), 1.0),
           HermiteWaypoint((4, 4, 0), (-3, 0, 0), 0.5)]
    oc, ow = np.zeros((3, 4, 3)), np.zeros(3)
    out = try_convert_hermite(wps, False, oc, ow)
    assert out.value == 2 and np.array_equal(ow[:2], [2.0, 1.0])
    # B1 = P0 + h T0 / 3 = (0,0) + 2 (3,0)/3 = (2, 0); B2 = P1 - h T1 / 3 = (4,0) - 2 (0,6)/3 = (4, -4).
    assert np.array_equal(oc[0], [[0, 0, 0], [2, 0, 0], [4, -4, 0], [4, 0, 0]])
    assert np.array_equal(oc[1], [[4, 0, 0], [4, 2, 0], [5, 4, 0], [4, 4, 0]])
    closed = try_convert_hermite(wps, True, oc, ow)
    assert closed.value == 3 and ow[2] == 0.5
    # Closing span: B1 = (4,4) + 0.5 (-3,0)/3 = (3.5, 4); B2 = (0,0) - 0.5 (3,0)/3 = (-0.5, 0).
    assert np.array_equal(oc[2], [[4, 4, 0], [3.5, 4, 0], [-0.5, 0, 0], [0, 0, 0]])
    keep_c, keep_w = oc.copy(), ow.copy()
    assert try_convert_hermite(wps, True, oc[:2], ow[:2]).status is S.CapacityExceeded
    assert try_convert_hermite(wps[:1], False, oc, ow).status is S.InvalidArgument
    bad = [HermiteWaypoint((0, 0, 0), (1, 0, 0), 0.0), wps[1]]
    assert try_convert_hermite(bad, False, oc, ow).status is S.InvalidArgument
    bad = [HermiteWaypoint((0, np.inf, 0), (1, 0, 0), 1.0), wps[1]]
    assert try_convert_hermite(bad, False, oc, ow).status is S.InvalidArgument
    assert np.array_equal(oc, keep_c) and np.array_equal(ow, keep_w)


def test_span_source_type_errors_are_programmer_errors():
    with pytest.raises(TypeError):
        try_prepare_path(PathSource([object()], 1), PathPreparation(tol(), LIMITS))
    src = PathSource([PathSpanSource(THREE[0], 1.0)], 1)
    with pytest.raises(TypeError):
        try_prepare_path(src, "not a preparation")


# --- Issue 17: rules a planted fault broke unnoticed by the tests above -------------------------


def test_outgoing_at_the_last_interior_boundary_selects_the_last_span(path):
    v = path.view()
    # (1, 1) is the boundary between spans 1 and 2: Outgoing selects span 2 at u = 0, (6, 0, 0).
    got = try_evaluate_path(v, SegmentParameter(1, 1.0), side=SpanSide.Outgoing, with_derivatives=True).value
    assert np.array_equal(got.position, [6, 0, 0])
    assert np.array_equal(got.first, [3, 0, 3])  # 3 (P1 - P0) of span 2, not of span 1


def test_wrap_before_the_domain_takes_the_floored_fraction():
    ring = np.array([[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]],
                     [[0, 1, 0], [-1, 1, 0], [-1, 0, 0], [0, 0, 0]]], dtype=np.float64)
    v = prepare(ring, closed=True).value.view()
    # x = 0 - 0.25 wraps to 2 - 0.25 = 1.75: span 1 at u = 0.75 (floor, not truncation toward 0).
    got = try_evaluate_path(v, SegmentParameter(0, -0.25), BP.Wrap).value
    b = [Fraction(1, 4) ** 3, 3 * Fraction(3, 4) * Fraction(1, 4) ** 2, 3 * Fraction(3, 4) ** 2 * Fraction(1, 4),
         Fraction(3, 4) ** 3]
    want = [float(sum(bi * Fraction(float(c)) for bi, c in zip(b, ring[1, :, k]))) for k in range(3)]
    assert np.allclose(got, want, rtol=0, atol=1e-15)
    far = try_evaluate_path(v, SegmentParameter(0, -1e6 - 0.375), BP.Wrap).value  # x mod 2 = 1.625
    assert np.allclose(far, try_evaluate_path(v, SegmentParameter(1, 0.625)).value, rtol=0, atol=0)


def test_joint_thresholds_met_with_equality_give_c2():
    # A straight joint along x: incoming legs of 1 (d_in = 3), outgoing legs of 2 (d_out = 6),
    # zero second derivatives, widths 1: angle 0, |d_in - d_out| = 3 = 0.5 x max(|d|) = 0.5 x 6,
    # |s_in - s_out| = 0 = 0 x 0. With thresholds (0, 0.5, 0) every test holds with equality,
    # so the class is C2 (the tests are <=, and the derivative test is relative to the scale).
    ctrl = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
                     [[3, 0, 0], [5, 0, 0], [7, 0, 0], [9, 0, 0]]], dtype=np.float64)
    out = prepare(ctrl, tolerance=tol(continuity_position=0.5, angle=0.0, derivative=0.5, second=0.0))
    assert out.ok, out.diagnostic
    rec = try_get_joint_continuity(out.value.view(), 1).value
    assert (rec.tangent_angle, rec.derivative_difference, rec.derivative_scale) == (0.0, 3.0, 6.0)
    assert (rec.second_derivative_difference, rec.second_derivative_scale) == (0.0, 0.0)
    assert rec.continuity is JointContinuity.C2


def test_tangent_is_normalised_in_float64():
    # B' = (3, 3, 0) everywhere on this line: the unit tangent is (1/sqrt 2, 1/sqrt 2, 0); 3 over
    # the float64 norm fl(sqrt 18) is within 2 ulps of 1/sqrt 2, a float32 norm is ~1e-8 off.
    line = np.array([[[0, 0, 0], [1, 1, 0], [2, 2, 0], [3, 3, 0]]], dtype=np.float64)
    v = prepare(line).value.view()
    t = try_evaluate_path_tangent(v, SegmentParameter(0, 0.3), 1e-9).value
    assert abs(t[0] - math.sqrt(0.5)) <= 2.0**-52 and t[0] == t[1] and t[2] == 0.0
