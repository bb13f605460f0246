"""Ints beyond the float64 range, negative counts and a zero width, where a real number or a
count is expected (reference/distance.py, track.py, surface.py, tessellation.py, sweep.py,
frame.py).

The rule: bad input gets a clear status or error and changes nothing. A Python int such as
``10**400`` is no float64 value (``float`` and ``math.isfinite`` raise ``OverflowError`` on it),
so each entry point answers the status its docstring and its existing tests give the
nonfinite value of the same argument: InvalidArgument where the argument must be finite
(distances, track times and values, tolerances, sweep profiles, frame rolls, vectors), and
InvalidDomain for a surface parameter, where NaN is InvalidArgument ("non-real or NaN") but an
infinite parameter is a real outside [0, 1] (InvalidDomain), as a huge int is. Expected
statuses come from those docstrings, never from running the code.
"""

from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
import pytest

from reference.distance import (
    DistancePreparation,
    DistanceQuery,
    distance_map_bytes,
    try_build_distance_map,
    try_resolve_distance,
)
from reference.frame import (
    frames_bytes,
    try_build_frames,
    try_evaluate_frame,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import (
    BoundaryPolicy as P,
    GeometryStatus as S,
    PathDistance,
    SegmentParameter,
    ToleranceProfile,
    TrackTime,
    WorkLimits,
)
from reference.surface import (
    PatchSide as PS,
    SurfaceEdgeId,
    SurfacePatchSource,
    SurfacePreparation,
    SurfaceSource,
    prepared_bytes,
    try_evaluate_edge,
    try_evaluate_surface,
    try_evaluate_surface_normal,
    try_map_edge_parameter,
    try_prepare_surface,
)
from reference.sweep import (
    SweepCaps,
    SweepProfileKey,
    SweepRequest,
    SweepSection,
    SweepWinding,
    try_plan_sweep_mesh,
)
from reference.tessellation import (
    PrecisionProfile,
    SurfaceDegeneracyPolicy,
    SurfaceMesh,
    SurfaceMeshLimits,
    SurfaceMeshProfile,
    mesh_counts,
    try_build_surface_mesh,
)
from reference.track import TrackInterpolation as TI, TrackKey, derivative_error_bound, try_evaluate_track, \
    try_prepare_track

HUGE = 10**400  # float(HUGE) raises OverflowError
# The smallest int that rounds to inf (halfway past the largest float64): still OverflowError.
JUST_HUGE = int(sys.float_info.max) + 2**970
BIG_INTS = [HUGE, -HUGE, JUST_HUGE]
BIG_IDS = ["10**400", "-10**400", "just_huge"]

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=24, max_subdivisions=1 << 14,
                    max_prepared_bytes=1 << 24, max_samples=1 << 12)
TOL = ToleranceProfile(position_error=1e-5, relative_position_error=0.0, asset_scale=1.0,
                       continuity_position=1e-5, continuity_angle=1e-3, continuity_derivative=1e-3,
                       continuity_second_derivative=1e-3, distance_error=1e-4, projection_gap=1e-3,
                       tangent_angle_error=1e-6, minimum_speed=1e-9, minimum_sin_angle=1e-3,
                       normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)
# A gently curved span (a straight one would do for distances, but frames and sweeps too).
CURVE = np.array([[[0, 0, 0], [1, 0.5, 0], [2, 1, 0.3], [3, 0.5, 0.5]]], dtype=np.float64)


def test_just_huge_is_beyond_float64():
    with pytest.raises(OverflowError):
        float(JUST_HUGE)


# --- Distances -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def path_and_map():
    p = try_prepare_path(PathSource(spans_from_arrays(CURVE, [1.0]), 1, False), PathPreparation(TOL, LIMITS))
    assert p.ok, p.diagnostic
    pv = p.value.view()
    d = try_build_distance_map(pv, DistancePreparation(LIMITS))
    assert d.ok, d.diagnostic
    return pv, d.value.view()


@pytest.mark.parametrize("policy", [P.Reject, P.Clamp])
@pytest.mark.parametrize("big", BIG_INTS, ids=BIG_IDS)
def test_resolve_distance_huge_int_is_invalid_argument(path_and_map, policy, big):
    # Docstring: "a finite target ... (InvalidArgument)"; NaN is InvalidArgument (test_distance).
    pv, mv = path_and_map
    out = try_resolve_distance(pv, mv, DistanceQuery(PathDistance(big), policy, 128))
    assert out.status is S.InvalidArgument and out.value is None and out.diagnostic.field == "distance"
    assert try_resolve_distance(pv, mv, DistanceQuery(PathDistance(0), policy, 128)).ok  # a small int is fine


@pytest.mark.parametrize("args", [(-1, 1), (1, -1)])
def test_distance_map_bytes_negative_count_is_value_error(args):
    with pytest.raises(ValueError, match="nonnegative"):
        distance_map_bytes(*args)
    assert distance_map_bytes(0, 0) > 0


# --- Tracks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("keys, field", [
    ([TrackKey(0.0, 0.0), TrackKey(HUGE, 1.0)], "time"),
    ([TrackKey(-HUGE, 0.0), TrackKey(1.0, 1.0)], "time"),
    ([TrackKey(0.0, JUST_HUGE), TrackKey(1.0, 1.0)], "value"),
    ([TrackKey(0.0, 0.0, in_slope=-HUGE), TrackKey(1.0, 1.0)], "in_slope"),
    ([TrackKey(0.0, 0.0, out_slope=HUGE, interpolation=TI.Hermite), TrackKey(1.0, 1.0)], "out_slope"),
])
def test_track_key_huge_int_is_invalid_argument(keys, field):
    # Docstring: "each key's time finite and its value and slopes finite float32 values
    # (InvalidArgument)"; nothing is built.
    diag = []
    out = try_prepare_track(keys, LIMITS, diag)
    assert out.status is S.InvalidArgument and out.value is None
    assert out.diagnostic.field == field and diag == [out.diagnostic]


@pytest.mark.parametrize("policy", [P.Reject, P.Clamp, P.Hold, P.Loop, P.PingPong])
@pytest.mark.parametrize("big", BIG_INTS, ids=BIG_IDS)
def test_track_time_huge_int_is_invalid_argument(policy, big):
    # Docstring: "Nonfinite time is InvalidArgument".
    view = try_prepare_track([TrackKey(0, 0), TrackKey(1, 1)], LIMITS).value.view()  # int keys are fine
    out = try_evaluate_track(view, TrackTime(big), policy)
    assert out.status is S.InvalidArgument and out.value is None and out.diagnostic.field == "seconds"
    assert try_evaluate_track(view, TrackTime(1), policy).value.value == 1.0


def test_derivative_error_bound_needs_a_positive_width():
    # A span's width h is positive (strictly increasing key times); the bound divides by it.
    for width in (0.0, -0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="width"):
            derivative_error_bound(1.0, width)
    assert derivative_error_bound(0.0, 2.0**-1074) == 32.0 * 2.0**-1074


# --- Surfaces --------------------------------------------------------------------------------


def _grid(x0=0.0):
    return np.array([[(x0 + i, j, 0.0) for j in range(4)] for i in range(4)], dtype=np.float64)


def _prepare_surface(patches, origin=(0.0, 0.0, 0.0)):
    src = SurfaceSource([SurfacePatchSource(10 * (k + 1), c) for k, c in enumerate(patches)], [], 1)
    return try_prepare_surface(src, SurfacePreparation(TOL, LIMITS, origin))


@pytest.fixture(scope="module")
def surface_view():
    out = _prepare_surface([_grid()])
    assert out.ok, out.diagnostic
    return out.value.view()


@pytest.mark.parametrize("big", BIG_INTS, ids=BIG_IDS)
def test_surface_parameter_huge_int_is_invalid_domain(surface_view, big):
    # Docstring: "a parameter outside [0, 1] is InvalidDomain"; an infinite one is InvalidDomain
    # (test_surface), a huge int is a real outside [0, 1] as well.
    for u, v, field in ((big, 0.5, "u"), (0.5, big, "v")):
        for fn in (try_evaluate_surface, try_evaluate_surface_normal):
            out = fn(surface_view, 0, u, v)
            assert out.status is S.InvalidDomain and out.value is None and out.diagnostic.field == field
    assert try_evaluate_surface(surface_view, 0, 1, 0).ok  # exact ints in [0, 1] are fine


@pytest.mark.parametrize("big", BIG_INTS, ids=BIG_IDS)
def test_edge_parameter_huge_int_is_invalid_domain(surface_view, big):
    # Docstrings: "s outside [0, 1] is InvalidDomain" (an infinite s is too).
    eid = SurfaceEdgeId.of(10, PS.U0)
    for fn in (try_map_edge_parameter, try_evaluate_edge):
        out = fn(surface_view, eid, big)
        assert out.status is S.InvalidDomain and out.value is None and out.diagnostic.field == "s"
        assert fn(surface_view, eid, 1).ok


def test_surface_huge_int_origin_or_control_is_invalid_argument():
    # Docstring fields: origin and controls must be finite float64 values (InvalidArgument, as inf).
    out = _prepare_surface([_grid()], origin=(0.0, HUGE, 0.0))
    assert out.status is S.InvalidArgument and out.value is None and out.diagnostic.field == "origin"
    control = _grid().tolist()
    control[1][2][0] = -HUGE
    out = _prepare_surface([control])
    assert out.status is S.InvalidArgument and out.value is None and out.diagnostic.field == "control"


def test_surface_prepared_bytes_negative_count_is_value_error():
    with pytest.raises(ValueError, match="patch_count"):
        prepared_bytes(-1)
    assert prepared_bytes(0) == 0


# --- Tessellation ----------------------------------------------------------------------------

MESH_LIMITS = SurfaceMeshLimits(max_level=8, max_cell_tests=1 << 20, max_vertices=1 << 20,
                                max_triangles=1 << 20, max_output_bytes=1 << 28)


def _mesh_profile(pe=1e-3, angle=0.0):
    return SurfaceMeshProfile(PrecisionProfile.Strict, pe, angle, False, SurfaceDegeneracyPolicy.Report, MESH_LIMITS)


@pytest.mark.parametrize("change", [dict(position_error=HUGE), dict(position_error=JUST_HUGE),
                                    dict(normal_angle_error=HUGE)])
def test_mesh_profile_huge_int_is_invalid_argument_and_keeps_the_mesh(surface_view, change):
    # Docstring: "the profile's fields (InvalidArgument, naming the field)"; NaN is
    # InvalidArgument (test_tessellation); "on any failure mesh keeps its previous contents".
    mesh = SurfaceMesh()
    assert try_build_surface_mesh(surface_view, _mesh_profile(), mesh).ok
    before = mesh.view()
    diag = []
    out = try_build_surface_mesh(surface_view, dataclasses.replace(_mesh_profile(), **change), mesh, diag)
    assert out.status is S.InvalidArgument and out.value is None
    assert out.diagnostic.field == next(iter(change)) and diag == [out.diagnostic]
    assert mesh.view() is before


def test_mesh_counts_negative_level_is_value_error(surface_view):
    with pytest.raises(ValueError, match="levels"):
        mesh_counts(surface_view, [(-1, -1)])
    with pytest.raises(ValueError, match="levels"):
        mesh_counts(surface_view, [(0, -2)])
    assert mesh_counts(surface_view, [(0, 0)])["vertices"] == 4


# --- Frames ----------------------------------------------------------------------------------


from .test_frame import prep as _frame_prep  # noqa: E402  (the frame tests' preparation)


@pytest.fixture(scope="module")
def frames(path_and_map):
    pv, mv = path_and_map
    f = try_build_frames(pv, mv, _frame_prep())
    assert f.ok, f.diagnostic
    return pv, mv, f.value.view()


@pytest.mark.parametrize("big", BIG_INTS, ids=BIG_IDS)
def test_frame_roll_huge_int_is_invalid_argument(frames, big):
    # Docstring: "roll a finite real (InvalidArgument)"; inf is InvalidArgument (test_frame).
    pv, _mv, fv = frames
    out = try_evaluate_frame(pv, fv, SegmentParameter(0, 0.5), big)
    assert out.status is S.InvalidArgument and out.value is None and out.diagnostic.field == "roll"
    assert try_evaluate_frame(pv, fv, SegmentParameter(0, 0.5), 0).ok


@pytest.mark.parametrize("field", ["seed_up", "fallback_axis"])
def test_frame_vector_huge_int_is_invalid_argument(path_and_map, field):
    # FramePreparation: "(3,) finite nonzero float64"; an inf component is InvalidArgument (test_frame).
    pv, mv = path_and_map
    diag = []
    out = try_build_frames(pv, mv, _frame_prep(**{field: (0.0, HUGE, 1.0)}), diag)
    assert out.status is S.InvalidArgument and out.value is None and out.diagnostic.field == field
    assert diag == [out.diagnostic]


@pytest.mark.parametrize("args", [(-1, 0, 0), (0, -1, 0), (0, 0, -1)])
def test_frames_bytes_negative_count_is_value_error(args):
    with pytest.raises(ValueError, match="nonnegative"):
        frames_bytes(*args)
    assert frames_bytes(0, 0, 0) == 0


# --- Sweeps ----------------------------------------------------------------------------------


def _sweep_request(**kw):
    base = dict(section=SweepSection.Tube, profile=[SweepProfileKey(0.0, 0.5, 0.0)], caps=SweepCaps.None_,
                winding=SweepWinding.CounterClockwise, longitudinal_error=1e-3, cross_section_error=1e-2,
                max_section_segments=64, max_vertex_count=100000, max_index_count=600000, limits=LIMITS)
    base.update(kw)
    return SweepRequest(**base)


@pytest.mark.parametrize("change, field", [
    (dict(profile=[SweepProfileKey(0, HUGE, 0)]), "profile.scale"),
    (dict(profile=[SweepProfileKey(0, -HUGE, 0)]), "profile.scale"),
    (dict(profile=[SweepProfileKey(HUGE, 0.5, 0)]), "profile.distance"),
    (dict(profile=[SweepProfileKey(0, 0.5, JUST_HUGE)]), "profile.roll"),
    (dict(longitudinal_error=HUGE), "longitudinal_error"),
    (dict(cross_section_error=JUST_HUGE), "cross_section_error"),
])
def test_sweep_request_huge_int_is_invalid_argument(frames, change, field):
    # Docstring: "InvalidArgument for ... nonfinite values"; an inf scale is InvalidArgument
    # (test_sweep), before the sign check that makes a negative scale InvalidDomain.
    pv, mv, fv = frames
    diag = []
    out = try_plan_sweep_mesh(pv, mv, fv, _sweep_request(**change), diag)
    assert out.status is S.InvalidArgument and out.value is None
    assert out.diagnostic.field == field and diag == [out.diagnostic]
    assert try_plan_sweep_mesh(pv, mv, fv, _sweep_request(profile=[SweepProfileKey(0, 1, 0)])).ok
