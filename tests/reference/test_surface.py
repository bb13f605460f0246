"""Unit tests of reference/surface.py: the spec's reversed two-patch join worked out by hand,
every InvalidTopology cause, tubes, poles, bad input (status, nothing built, previous surface
untouched), evaluation, normals, edge parameters and vectorised sampling.

Expected records and values are written here from the definitions (sides, corners, the
counterclockwise boundary, Bernstein values of affine grids), never taken from the code under
test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from reference.status import GeometryStatus as S, ToleranceProfile, WorkLimits
from reference.surface import (
    NORMAL_DEGENERATE,
    NORMAL_ILL_CONDITIONED,
    NORMAL_OK,
    PatchCorner as PC,
    PatchSide as PS,
    SurfaceAdjacencySource as Join,
    SurfaceCornerId,
    SurfaceEdgeId,
    SurfacePatchSource as Patch,
    SurfacePreparation,
    SurfaceSample,
    SurfaceSource,
    prepared_bytes,
    try_evaluate_edge,
    try_evaluate_surface,
    try_evaluate_surface_normal,
    try_map_edge_parameter,
    try_prepare_surface,
    try_sample_surface,
    try_sample_surface_normals,
)

LIMITS = WorkLimits(max_spans=64, max_keys=1, max_leaves=1, max_depth=1, max_subdivisions=1,
                    max_prepared_bytes=1 << 20, max_samples=1)


def tol(**kw) -> ToleranceProfile:
    base = dict(position_error=1e-4, relative_position_error=0.0, asset_scale=1.0, continuity_position=1e-4,
                continuity_angle=1e-3, continuity_derivative=1e-3, continuity_second_derivative=1e-3,
                distance_error=1e-3, projection_gap=1e-3, tangent_angle_error=1e-3, minimum_speed=1e-9,
                minimum_sin_angle=1e-3, normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)
    base.update(kw)
    return ToleranceProfile(**base)


def grid(x0=0.0, y0=0.0) -> np.ndarray:
    """C[i][j] = (x0 + i, y0 + j, 0): an affine patch, S(u, v) = (x0 + 3u, y0 + 3v, 0)."""
    C = np.zeros((4, 4, 3))
    for i in range(4):
        for j in range(4):
            C[i, j] = (x0 + i, y0 + j, 0.0)
    return C


def spec_pair():
    """The spec's example: patch 0's u = 1 side is patch 1's u = 0 side with v reversed.
    A = grid at x in [0, 3]; B[i][j] = (3 + i, 3 - j, 0), so B's U0 side runs from (3, 3) down
    to (3, 0), A's U1 side from (3, 0) up to (3, 3)."""
    A = grid()
    B = np.zeros((4, 4, 3))
    for i in range(4):
        for j in range(4):
            B[i, j] = (3 + i, 3 - j, 0.0)
    return A, B


def prepare(patches, joins, ids=None, t=None, limits=LIMITS, diag=None, origin=(0.0, 0.0, 0.0)):
    ids = list(range(len(patches))) if ids is None else ids
    src = SurfaceSource([Patch(i, c) for i, c in zip(ids, patches)], joins, 1)
    return try_prepare_surface(src, SurfacePreparation(t or tol(), limits, origin), diag)


def spec_surface():
    A, B = spec_pair()
    out = prepare([A, B], [Join(0, PS.U1, 1, PS.U0, True)], ids=[10, 20])
    assert out.ok, out.diagnostic
    return out.value.view()


# --- The spec's two-patch reversed join ------------------------------------------------------


def test_spec_join_has_one_shared_edge_owned_by_patch_10_side_u1():
    view = spec_surface()
    assert len(view.edges) == 7  # 8 sides, one pair shared
    shared = [e for e in view.edges if e.is_shared]
    assert len(shared) == 1
    e = shared[0]
    # Owner: the smaller of (10, U1) and (20, U0) is (10, U1).
    assert e.id == SurfaceEdgeId.of(10, PS.U1)
    assert [(i.patch, i.patch_id, i.side, i.is_reversed) for i in e.incidences] == \
        [(0, 10, PS.U1, False), (1, 20, PS.U0, True)]
    # Canonical curve: A's U1 side C[3][j] = (3, j, 0), j = 0..3.
    assert e.curve.dtype == np.float32
    assert np.array_equal(e.curve, np.array([[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]], dtype=np.float32))
    # A walks U1 counterclockwise with +s; B walks U0 counterclockwise with -s2 = +s1: the same
    # direction, so the normals disagree (A's is +z, B's -z).
    assert e.is_orientation_consistent is False
    # Outward derivative controls: A.U1 = 3((3,j,0) - (2,j,0)) = (3,0,0); B.U0 = 3((3,.,0) -
    # (4,.,0)) = (-3,0,0): they cancel, difference 0, scale 3, C1.
    assert e.cross_derivative_difference == 0.0 and e.cross_derivative_scale == 3.0 and e.is_c1 is True
    boundary_ids = sorted(x.id for x in view.edges if not x.is_shared)
    assert boundary_ids == sorted([SurfaceEdgeId.of(10, s) for s in (PS.U0, PS.V0, PS.V1)]
                                  + [SurfaceEdgeId.of(20, s) for s in (PS.U1, PS.V0, PS.V1)])
    assert all(x.is_orientation_consistent is None and x.is_c1 is None for x in view.edges if not x.is_shared)
    assert [x.id for x in view.edges] == sorted(x.id for x in view.edges)


def test_spec_join_has_six_corner_records():
    view = spec_surface()
    # A.U1 at s: A(1, s); B.U0 at 1 - s. s = 0: A.U1V0 ~ B.U0V1; s = 1: A.U1V1 ~ B.U0V0.
    expected = [
        ((10, PC.U0V0), (0, 0, 0), [(10, PC.U0V0)]),
        ((10, PC.U1V0), (3, 0, 0), [(10, PC.U1V0), (20, PC.U0V1)]),
        ((10, PC.U0V1), (0, 3, 0), [(10, PC.U0V1)]),
        ((10, PC.U1V1), (3, 3, 0), [(10, PC.U1V1), (20, PC.U0V0)]),
        ((20, PC.U1V0), (6, 3, 0), [(20, PC.U1V0)]),
        ((20, PC.U1V1), (6, 0, 0), [(20, PC.U1V1)]),
    ]
    assert len(view.corners) == 6
    for c, (cid, pos, incs) in zip(view.corners, expected):
        assert c.id == SurfaceCornerId.of(*cid)
        assert c.position.dtype == np.float32 and np.array_equal(c.position, np.array(pos, dtype=np.float32))
        assert [(i.patch_id, i.corner) for i in c.incidences] == incs
    # Every patch corner points at its record.
    assert view.corner_of(1, PC.U0V0).id == SurfaceCornerId.of(10, PC.U1V1)
    assert view.edge_of(1, PS.U0).id == SurfaceEdgeId.of(10, PS.U1)


def test_spec_join_records_do_not_depend_on_patch_order():
    A, B = spec_pair()
    a = spec_surface()
    out = prepare([B, A], [Join(1, PS.U1, 0, PS.U0, True)], ids=[20, 10])
    b = out.value.view()

    def edges(v):
        return [(e.id, e.curve.tobytes(), [(i.patch_id, i.side, i.is_reversed) for i in e.incidences],
                 e.is_orientation_consistent, e.is_c1) for e in v.edges]

    def corners(v):
        return [(c.id, c.position.tobytes(), [(i.patch_id, i.corner) for i in c.incidences]) for c in v.corners]

    assert edges(a) == edges(b) and corners(a) == corners(b)
    # Declaring the join from the other side gives the same records as well.
    c = prepare([A, B], [Join(1, PS.U0, 0, PS.U1, True)], ids=[10, 20]).value.view()
    assert edges(a) == edges(c) and corners(a) == corners(c)


def test_map_edge_parameter():
    view = spec_surface()
    eid = SurfaceEdgeId.of(10, PS.U1)
    out = try_map_edge_parameter(view, eid, 0.25)
    assert out.ok
    assert [(m.patch, m.patch_id, m.side, m.u, m.v) for m in out.value] == \
        [(0, 10, PS.U1, 1.0, 0.25), (1, 20, PS.U0, 0.0, 0.75)]
    # Both patches evaluate to the same point there: A(1, 0.25) = (3, 0.75, 0) = B(0, 0.75).
    pa = try_evaluate_surface(view, 0, 1.0, 0.25).value
    pb = try_evaluate_surface(view, 1, 0.0, 0.75).value
    assert np.array_equal(pa, [3.0, 0.75, 0.0]) and np.array_equal(pb, [3.0, 0.75, 0.0])
    v = try_map_edge_parameter(view, SurfaceEdgeId.of(20, PS.V0), 1.0).value
    assert [(m.patch, m.u, m.v) for m in v] == [(1, 1.0, 0.0)]
    assert try_map_edge_parameter(view, eid, 1.5).status is S.InvalidDomain
    assert try_map_edge_parameter(view, eid, float("nan")).status is S.InvalidArgument
    assert try_map_edge_parameter(view, SurfaceEdgeId.of(20, PS.U0), 0.5).status is S.InvalidArgument
    assert try_map_edge_parameter(view, (10, "U1"), 0.5).status is S.InvalidArgument


def test_evaluate_edge_on_the_canonical_curve():
    view = spec_surface()
    eid = SurfaceEdgeId.of(10, PS.U1)
    # Canonical curve (3, j, 0): the point at s is (3, 3s, 0).
    assert np.array_equal(try_evaluate_edge(view, eid, 0.25).value, [3.0, 0.75, 0.0])
    assert np.array_equal(try_evaluate_edge(view, SurfaceEdgeId.of(20, PS.V0), 0.5).value, [4.5, 3.0, 0.0])
    assert try_evaluate_edge(view, eid, -0.5).status is S.InvalidDomain
    assert try_evaluate_edge(view, SurfaceEdgeId.of(20, PS.U0), 0.5).status is S.InvalidArgument
    assert try_evaluate_edge(view, eid, "0.5").status is S.InvalidArgument


# --- Topology rules ------------------------------------------------------------------------


def _rule(out, rule, index):
    assert out.status is S.InvalidTopology, out
    assert out.diagnostic.field == rule and out.diagnostic.index == index, out.diagnostic
    assert rule in out.diagnostic.message


def test_mismatched_curve():
    A, B = spec_pair()
    B = B.copy()
    B[0, 1, 2] = 1e-3  # an inner control of B's U0 side: the ends still agree
    _rule(prepare([A, B], [Join(0, PS.U1, 1, PS.U0, True)]), "mismatched_curve", 0)


def test_mismatched_by_one_float32_ulp_is_not_welded():
    A, B = spec_pair()
    B = B.copy()
    B[0, 1, 1] = float(np.nextafter(np.float32(2.0), np.float32(3.0)))
    _rule(prepare([A, B], [Join(0, PS.U1, 1, PS.U0, True)]), "mismatched_curve", 0)


def test_partial_join_wrong_direction_and_t_junction():
    A, B = spec_pair()
    # Declared without the reversal: s = 0 of A.U1 is (3, 0, 0), of B.U0 (3, 3, 0).
    _rule(prepare([A, B], [Join(0, PS.U1, 1, PS.U0, False)]), "partial_join", 0)
    # A T-junction: C's U0 side spans only the lower half of A's U1 side (one shared corner).
    C = np.zeros((4, 4, 3))
    for i in range(4):
        for j in range(4):
            C[i, j] = (3 + i, j * 0.5, 0.0)
    _rule(prepare([A, C], [Join(0, PS.U1, 1, PS.U0, False)]), "partial_join", 0)


def test_third_incidence():
    A, B = spec_pair()
    joins = [Join(0, PS.U1, 1, PS.U0, True), Join(2, PS.U0, 0, PS.U1, True)]
    _rule(prepare([A, B, B.copy()], joins), "third_incidence", 1)
    # The same join declared twice is a third incidence too.
    _rule(prepare([A, B], [Join(0, PS.U1, 1, PS.U0, True)] * 2), "third_incidence", 1)


def test_side_joined_to_itself():
    A, _ = spec_pair()
    _rule(prepare([A], [Join(0, PS.V0, 0, PS.V0, False)]), "side_joined_to_itself", 0)
    _rule(prepare([A], [Join(0, PS.V0, 0, PS.V0, True)]), "side_joined_to_itself", 0)


@pytest.mark.parametrize("bad", [2, -1, 10**30])
def test_unknown_patch_index(bad):
    A, B = spec_pair()
    joins = [Join(0, PS.U1, 1, PS.U0, True), Join(0, PS.V0, bad, PS.V1, False)]
    _rule(prepare([A, B], joins), "unknown_patch_index", 1)


def test_duplicate_patch_id():
    A, B = spec_pair()
    _rule(prepare([A, B, grid(10, 10)], [], ids=[5, 6, 5]), "duplicate_patch_id", 2)


def test_tube_joins_two_sides_of_one_patch():
    """A side may join another side of the same patch: a closed loop in u, swept in v."""
    ring = np.array([[1.0, 0, 0], [-1.0, 2, 0], [-1.0, -2, 0], [1.0, 0, 0]])
    C = np.stack([np.stack([ring[i] + [0, 0, j] for j in range(4)]) for i in range(4)])
    out = prepare([C], [Join(0, PS.U0, 0, PS.U1, False)], ids=[7])
    assert out.ok, out.diagnostic
    view = out.value.view()
    assert [e.id for e in view.edges] == [SurfaceEdgeId.of(7, s) for s in (PS.U0, PS.V0, PS.V1)]
    e = view.edges[0]
    assert [(i.side, i.is_reversed) for i in e.incidences] == [(PS.U0, False), (PS.U1, False)]
    # U0 is walked counterclockwise with -s, U1 with +s, not reversed: opposite directions.
    assert e.is_orientation_consistent is True
    assert [(c.id, [(i.corner) for i in c.incidences]) for c in view.corners] == [
        (SurfaceCornerId.of(7, PC.U0V0), [PC.U0V0, PC.U1V0]),
        (SurfaceCornerId.of(7, PC.U0V1), [PC.U0V1, PC.U1V1]),
    ]


def test_corners_that_only_coincide_stay_separate():
    """A collapsed side (a pole): its two corners have one position but are two records, and two
    unjoined patches touching at a point keep their own corners."""
    A = grid()
    A[:, 0] = A[0, 0]
    out = prepare([A, grid(-3.0, -3.0)], [])
    view = out.value.view()
    assert len(view.corners) == 8 and len(view.edges) == 8
    assert np.array_equal(view.corner_of(0, PC.U0V0).position, view.corner_of(0, PC.U1V0).position)
    assert view.corner_of(0, PC.U0V0).id != view.corner_of(0, PC.U1V0).id
    assert np.array_equal(view.corner_of(0, PC.U0V0).position, view.corner_of(1, PC.U1V1).position)


# --- Bad input: a documented status, nothing built, the previous surface kept -------------


def _snapshot(view):
    return (view.controls.tobytes(), [(e.id, e.curve.tobytes()) for e in view.edges],
            [(c.id, c.position.tobytes()) for c in view.corners])


BAD = {
    "nonfinite control": (lambda A, B: ([A, np.where(B == 3, np.nan, B)], None, {}), S.InvalidArgument, "control"),
    "float32 overflow": (lambda A, B: ([A, B + 1e39], None, {}), S.UnsupportedPrecision, None),
    "wrong shape": (lambda A, B: ([A, B[:3]], None, {}), S.InvalidArgument, "control"),
    "unknown side": (lambda A, B: ([A, B], [Join(0, "U2", 1, PS.U0, True)], {}), S.InvalidArgument, "first_side"),
    "side by name": (lambda A, B: ([A, B], [Join(0, "U1", 1, "U0", 1)], {}), S.InvalidArgument, "is_reversed"),
    "float index": (lambda A, B: ([A, B], [Join(0.0, PS.U1, 1, PS.U0, True)], {}), S.InvalidArgument, "first_patch"),
    "bool index": (lambda A, B: ([A, B], [Join(True, PS.U1, 1, PS.U0, True)], {}), S.InvalidArgument, "first_patch"),
    "negative index": (lambda A, B: ([A, B], [Join(-1, PS.U1, 1, PS.U0, True)], {}), S.InvalidTopology,
                       "unknown_patch_index"),
    "floor": (lambda A, B: ([A + 1e6, B + 1e6], [Join(0, PS.U1, 1, PS.U0, True)], {"t": tol(position_error=1e-9)}),
              S.UnsupportedPrecision, "position_error"),
    "limit range": (lambda A, B: ([A, B], None, {"limits": dataclasses.replace(LIMITS, max_depth=99)}),
                    S.InvalidArgument, "max_depth"),
    "tolerance range": (lambda A, B: ([A, B], None, {"t": tol(normal_min_sin_angle=2.0)}), S.InvalidArgument,
                        "normal_min_sin_angle"),
    "patch count": (lambda A, B: ([A, B], None, {"limits": dataclasses.replace(LIMITS, max_spans=1)}),
                    S.BudgetExceeded, "max_spans"),
    "zero limit": (lambda A, B: ([A, B], None, {"limits": dataclasses.replace(LIMITS, max_spans=0)}),
                   S.BudgetExceeded, "max_spans"),
    "prepared bytes": (lambda A, B: ([A, B], None, {"limits": dataclasses.replace(
        LIMITS, max_prepared_bytes=prepared_bytes(2) - 1)}), S.BudgetExceeded, "max_prepared_bytes"),
    "no patches": (lambda A, B: ([], [], {}), S.InvalidArgument, "patches"),
    "negative id": (lambda A, B: ([A, B], None, {"ids": [-1, 2]}), S.InvalidArgument, "id"),
    "id too large": (lambda A, B: ([A, B], None, {"ids": [2**64, 2]}), S.InvalidArgument, "id"),
    "bool id": (lambda A, B: ([A, B], None, {"ids": [True, 2]}), S.InvalidArgument, "id"),
    "bad origin": (lambda A, B: ([A, B], None, {"origin": (0.0, float("inf"), 0.0)}), S.InvalidArgument, "origin"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_keeps_the_previous_surface(name):
    previous = spec_surface()
    before = _snapshot(previous)
    make, status, field = BAD[name]
    A, B = spec_pair()
    patches, joins, kw = make(A, B)
    joins = [Join(0, PS.U1, 1, PS.U0, True)] if joins is None else joins
    diag = []
    out = prepare(patches, joins, diag=diag, **kw)
    assert out.status is status and out.value is None, (out.status, out.diagnostic)
    if field is not None:
        assert out.diagnostic.field == field, out.diagnostic
    assert diag == [out.diagnostic]
    assert _snapshot(previous) == before
    with pytest.raises((AttributeError, ValueError)):
        previous.controls[0, 0, 0, 0] = 1.0


def test_max_patch_id_and_large_ids_are_accepted():
    A, B = spec_pair()
    out = prepare([A, B], [Join(0, PS.U1, 1, PS.U0, True)], ids=[2**64 - 1, 0])
    assert out.ok
    v = out.value.view()
    # Owner: (0, U0) of patch 1 is smaller than (2**64 - 1, U1).
    assert next(e for e in v.edges if e.is_shared).id == SurfaceEdgeId.of(0, PS.U0)


def test_origin_is_subtracted_before_narrowing():
    A, B = spec_pair()
    far = np.array([1e7, -2e7, 5e6])
    out = prepare([A + far, B + far], [Join(0, PS.U1, 1, PS.U0, True)], origin=tuple(far))
    assert out.ok
    v = out.value.view()
    assert np.array_equal(v.controls[0], A.astype(np.float32)) and np.array_equal(v.origin, far)
    assert v.position_floor > 0 and v.max_magnitude == 6.0


# --- Evaluation and normals ----------------------------------------------------------------


def test_affine_patch_values():
    view = spec_surface()
    # A(u, v) = (3u, 3v, 0): Su = (3, 0, 0), Sv = (0, 3, 0), second partials zero.
    s = try_evaluate_surface(view, 0, 0.5, 0.25, partials=True).value
    assert isinstance(s, SurfaceSample)
    assert np.array_equal(s.position, [1.5, 0.75, 0.0])
    assert np.array_equal(s.du, [3.0, 0.0, 0.0]) and np.array_equal(s.dv, [0.0, 3.0, 0.0])
    assert not np.any(s.duu) and not np.any(s.duv) and not np.any(s.dvv)
    assert np.array_equal(try_evaluate_surface(view, 0, 0.5, 0.25).value, [1.5, 0.75, 0.0])
    assert np.array_equal(try_evaluate_surface_normal(view, 0, 0.5, 0.25).value, [0.0, 0.0, 1.0])
    # B(u, v) = (3 + 3u, 3 - 3v, 0): Sv = (0, -3, 0), normal -z.
    assert np.array_equal(try_evaluate_surface_normal(view, 1, 0.5, 0.5).value, [0.0, 0.0, -1.0])


def test_corner_positions_are_the_controls():
    rng = np.random.default_rng(3)
    C = rng.normal(size=(4, 4, 3)) * 100
    view = prepare([C], []).value.view()
    C32 = C.astype(np.float32)
    for (u, v), (i, j) in (((0, 0), (0, 0)), ((1, 0), (3, 0)), ((0, 1), (0, 3)), ((1, 1), (3, 3))):
        assert np.array_equal(try_evaluate_surface(view, 0, float(u), float(v)).value, C32[i, j].astype(np.float64))


def test_evaluation_arguments():
    view = spec_surface()
    assert try_evaluate_surface(view, 2, 0.5, 0.5).status is S.InvalidArgument
    assert try_evaluate_surface(view, -1, 0.5, 0.5).status is S.InvalidArgument
    assert try_evaluate_surface(view, True, 0.5, 0.5).status is S.InvalidArgument
    assert try_evaluate_surface(view, 0, 1.5, 0.5).status is S.InvalidDomain
    assert try_evaluate_surface(view, 0, 0.5, -1e-300).status is S.InvalidDomain
    assert try_evaluate_surface(view, 0, float("nan"), 0.5).status is S.InvalidArgument
    assert try_evaluate_surface_normal(view, 0, 0.5, float("inf")).status is S.InvalidDomain


def test_normal_degenerate_for_zero_and_parallel_partials():
    A = grid()
    A[:, 0] = A[0, 0]  # V0 collapsed: Su = 0 along v = 0
    P = np.zeros((4, 4, 3))
    for i in range(4):
        for j in range(4):
            P[i, j] = (i + j, 0.0, 0.0)  # Su = Sv = (3, 0, 0): parallel
    view = prepare([A, P], []).value.view()
    out = try_evaluate_surface_normal(view, 0, 0.5, 0.0)
    assert out.status is S.Degenerate
    assert try_evaluate_surface(view, 0, 0.5, 0.0).ok  # the position remains valid
    assert try_evaluate_surface_normal(view, 0, 0.5, 0.5).ok
    assert try_evaluate_surface_normal(view, 1, 0.3, 0.7).status is S.Degenerate


def test_normal_ill_conditioned_at_the_thresholds():
    view = prepare([grid()], [], t=tol(normal_min_derivative_length=3.0)).value.view()
    assert try_evaluate_surface_normal(view, 0, 0.5, 0.5).status is S.IllConditioned  # |Su| = 3 <= 3
    view = prepare([grid()], [], t=tol(normal_min_derivative_length=np.nextafter(3.0, 0))).value.view()
    assert try_evaluate_surface_normal(view, 0, 0.5, 0.5).ok
    # Su = (3, 0, 0), Sv = (3, 3e-4... ): sin = |N| / (|Su| |Sv|) small.
    P = np.zeros((4, 4, 3))
    for i in range(4):
        for j in range(4):
            P[i, j] = (i + j, j * 2.0**-12, 0.0)
    # Su = (3, 0, 0), Sv = (3, 3 * 2**-12, 0): sin = 2**-12 / sqrt(1 + 2**-24) < 2**-12.
    view = prepare([P], [], t=tol(normal_min_sin_angle=2.0**-12)).value.view()
    assert try_evaluate_surface_normal(view, 0, 0.5, 0.5).status is S.IllConditioned
    view = prepare([P], [], t=tol(normal_min_sin_angle=2.0**-13)).value.view()
    n = try_evaluate_surface_normal(view, 0, 0.5, 0.5)
    assert n.ok and np.allclose(n.value, [0, 0, 1])


# --- Vectorised sampling -------------------------------------------------------------------


def test_sampling_equals_evaluation_bit_for_bit():
    rng = np.random.default_rng(5)
    patches = [rng.normal(size=(4, 4, 3)) for _ in range(3)]
    view = prepare(patches, []).value.view()
    ps = rng.integers(0, 3, 20)
    us, vs = rng.random(20), rng.random(20)
    us[:3] = [0.0, 1.0, 0.5]
    outs = [np.zeros((25, 3)) for _ in range(6)]
    r = try_sample_surface(view, ps, us, vs, *outs)
    assert r.ok and r.value == 20
    for k in range(20):
        s = try_evaluate_surface(view, int(ps[k]), float(us[k]), float(vs[k]), partials=True).value
        for out, val in zip(outs, (s.position, s.du, s.dv, s.duu, s.duv, s.dvv)):
            assert np.array_equal(out[k], val)
    assert not np.any(outs[0][20:])
    normals, status = np.zeros((20, 3)), np.zeros(20, dtype=np.uint8)
    assert try_sample_surface_normals(view, ps, us, vs, normals, status).ok
    for k in range(20):
        n = try_evaluate_surface_normal(view, int(ps[k]), float(us[k]), float(vs[k]))
        assert (status[k] == NORMAL_OK) == n.ok
        if n.ok:
            assert np.array_equal(normals[k], n.value)


def test_sampling_normals_report_status_and_zero_normals():
    A = grid()
    A[:, 0] = A[0, 0]
    view = prepare([A], [], t=tol(normal_min_derivative_length=2.0)).value.view()
    normals, status = np.full((3, 3), 7.0), np.zeros(3, dtype=np.uint8)
    ps = np.array([0, 0, 0])
    # v = 0: Su = 0 (Degenerate); v = 1/16: |Su| = 3 * 3/16 * ... small (IllConditioned);
    # v = 1: |Su| = 3 (OK).
    assert try_sample_surface_normals(view, ps, np.array([0.5, 0.5, 0.5]), np.array([0.0, 0.0625, 1.0]),
                                      normals, status).ok
    assert list(status) == [NORMAL_DEGENERATE, NORMAL_ILL_CONDITIONED, NORMAL_OK]
    assert not np.any(normals[:2]) and np.array_equal(normals[2], [0.0, 0.0, 1.0])


def test_sampling_nothing_writes_nothing():
    view = spec_surface()
    out = np.full((2, 3), 9.0)
    assert try_sample_surface(view, [], [], [], out).value == 0 and np.all(out == 9.0)
    st = np.zeros(2, dtype=np.uint8)
    assert try_sample_surface_normals(view, [], [], [], out, st).value == 0 and np.all(out == 9.0)


@pytest.mark.parametrize("case", ["capacity", "index", "domain", "nan", "dtype", "lengths", "readonly"])
def test_sampling_failures_write_nothing(case):
    view = spec_surface()
    ps, us, vs = np.array([0, 1]), np.array([0.5, 0.5]), np.array([0.5, 0.5])
    out = np.full((2, 3), 9.0)
    expected = {"capacity": S.CapacityExceeded, "index": S.InvalidArgument, "domain": S.InvalidDomain,
                "nan": S.InvalidArgument, "dtype": S.InvalidArgument, "lengths": S.InvalidArgument,
                "readonly": S.InvalidArgument}[case]
    if case == "capacity":
        out = np.full((1, 3), 9.0)
    elif case == "index":
        ps = np.array([0, 2])
    elif case == "domain":
        vs = np.array([0.5, 1.5])
    elif case == "nan":
        us = np.array([np.nan, 0.5])
    elif case == "dtype":
        out = np.full((2, 3), 9.0, dtype=np.float32)
    elif case == "lengths":
        us = np.array([0.5])
    else:
        out.setflags(write=False)
    before = out.copy()
    r = try_sample_surface(view, ps, us, vs, out)
    assert r.status is expected
    assert np.array_equal(out, before) and out.dtype == before.dtype
    status = np.full(2, 5, dtype=np.uint8)
    n = np.full((2, 3), 9.0)
    if case in ("index", "domain", "nan", "lengths"):
        assert try_sample_surface_normals(view, ps, us, vs, n, status).status is expected
        assert np.all(n == 9.0) and np.all(status == 5)
