"""Unit tests of reference/tessellation.py: hand-derived fixtures (a planar patch is one cell and
two triangles; a bilinear twisted patch's bound is |P00 - P10 - P01 + P11| / 4 and its
refinement order follows the tie rules; a patch curved in u refines only u; a planar patch
beside a curved neighbour inherits its along-edge level), shared positions along joins, and the
spec's failure list, one test per line. Expected values come from the definitions (bilinear
algebra worked out in the docstrings), never from the code under test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from reference.status import GeometryStatus as S, ToleranceProfile, WorkLimits
from reference.surface import (
    NORMAL_OK,
    PatchSide as PS,
    SurfaceAdjacencySource as Join,
    SurfacePatchSource as Patch,
    SurfacePreparation,
    SurfaceSource,
    try_prepare_surface,
)
from reference.tessellation import (
    MAX_VERTEX_COUNT,
    PrecisionProfile as PP,
    SurfaceDegeneracyPolicy as DP,
    SurfaceMesh,
    SurfaceMeshLimits,
    SurfaceMeshProfile,
    check_counts,
    mesh_counts,
    try_build_surface_mesh,
)

LIMITS = WorkLimits(max_spans=64, max_keys=1, max_leaves=1, max_depth=1, max_subdivisions=1,
                    max_prepared_bytes=1 << 20, max_samples=1)
MESH_LIMITS = SurfaceMeshLimits(max_level=8, max_cell_tests=1 << 20, max_vertices=1 << 20,
                                max_triangles=1 << 20, max_output_bytes=1 << 28)


def tol(pe=1e-4, **kw) -> ToleranceProfile:
    base = dict(position_error=pe, relative_position_error=0.0, asset_scale=1.0, continuity_position=pe,
                continuity_angle=1e-3, continuity_derivative=1e-3, continuity_second_derivative=1e-3,
                distance_error=1e-3, projection_gap=1e-3, tangent_angle_error=1e-3, minimum_speed=1e-9,
                minimum_sin_angle=1e-3, normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)
    base.update(kw)
    return ToleranceProfile(**base)


def surface(patches, joins=(), pe=1e-4):
    src = SurfaceSource([Patch(10 * (k + 1), c) for k, c in enumerate(patches)], list(joins), 1)
    out = try_prepare_surface(src, SurfacePreparation(tol(pe), LIMITS))
    assert out.ok, out.diagnostic
    return out.value.view()


def profile(pe, precision=PP.Strict, angle=0.0, coarser=False, degeneracy=DP.Report, **limits):
    lim = dataclasses.replace(MESH_LIMITS, **limits)
    return SurfaceMeshProfile(precision, pe, angle, coarser, degeneracy, lim)


def build(view, prof, mesh=None):
    mesh = SurfaceMesh() if mesh is None else mesh
    return try_build_surface_mesh(view, prof, mesh), mesh


def affine(x0=0.0, y0=0.0, z=lambda i, j: 0.0) -> np.ndarray:
    """C[i][j] = (x0 + i, y0 + j, z(i, j))."""
    return np.array([[(x0 + i, y0 + j, z(i, j)) for j in range(4)] for i in range(4)], dtype=np.float64)


# --- Hand-derived fixtures -------------------------------------------------------------------

def test_planar_patch_is_one_cell_and_two_triangles():
    # S(u, v) = (3u, 3v, 0) exactly: the bilinear interpolant is the patch, no twist, and the
    # corners are exact float32 values, so the bound is only float64 rounding allowance.
    view = surface([affine()])
    out, mesh = build(view, profile(1e-4))
    assert out.ok
    mv = mesh.view()
    p = mv.report.patches[0]
    assert (p.level_u, p.level_v) == (0, 0)
    assert mv.indices.shape == (2, 3) and mv.positions.shape == (4, 3)
    assert 0 < mv.report.position_bound < 1e-12
    # Triangles (v00, v10, v11), (v00, v11, v01) in the grid's vertex order a (nv + 1) + b.
    assert mv.indices.tolist() == [[0, 2, 3], [0, 3, 1]]
    uv = mv.vertex_parameters[mv.indices].astype(np.float64)
    for tri in uv:  # counterclockwise in (u, v)
        (a, b), (c, d), (e, f) = tri
        assert (c - a) * (f - b) - (d - b) * (e - a) > 0
    # Corner positions are the exact corner controls (Exact).
    pos = mv.vertex_positions
    assert pos.tolist() == [[0, 0, 0], [0, 3, 0], [3, 0, 0], [3, 3, 0]]
    assert mv.report.is_within_position_error and mv.report.normal_angle_estimate is None


def twisted():
    # C[i][j] = (i, j, i j): S(u, v) = (3u, 3v, 9uv), the degree-elevated bilinear patch of its
    # corners (0,0,0), (3,0,0), (0,3,0), (3,3,9); W = P00 - P10 - P01 + P11 = (0, 0, 9).
    return affine(z=lambda i, j: float(i * j))


def test_bilinear_twisted_patch_bound_is_the_twist_over_four():
    view = surface([twisted()])
    _out, mesh = build(view, profile(3.0))
    p = mesh.view().report.patches[0]
    assert (p.level_u, p.level_v) == (0, 0)
    assert 2.25 <= p.position_bound <= 2.25 + 1e-9  # |W| / 4 = 9 / 4


def test_twisted_patch_refines_by_the_tie_rules():
    # A cell of size du x dv has twist 9 du dv, bound 9 du dv / 4. Target 1: (0,0) gives 2.25;
    # (1,0) and (0,1) tie at 1.125 -> the coarser direction, then u: (1,0); still > 1, and
    # (2,0) and (1,1) tie at 0.5625 -> the coarser direction v: (1,1), which meets the target.
    view = surface([twisted()])
    _out, mesh = build(view, profile(1.0))
    p = mesh.view().report.patches[0]
    assert (p.level_u, p.level_v) == (1, 1)
    assert 0.5625 <= p.position_bound <= 0.5625 + 1e-9
    assert mesh.view().report.cell_tests == 1 + 2 + 2 + 4 + 4  # grids (0,0) (1,0) (0,1) (2,0) (1,1)


def test_patch_curved_only_in_u_refines_only_u():
    # z depends on i only: every v-line is straight, so refining v never helps ("clearly
    # smaller" picks u each time).
    bump = [0.0, 1.0, -1.0, 0.0]
    view = surface([affine(z=lambda i, j: bump[i])])
    _out, mesh = build(view, profile(1e-3))
    p = mesh.view().report.patches[0]
    assert p.level_u >= 3 and p.level_v == 0
    assert p.position_bound <= 1e-3


def beside():
    """A planar patch A (x in [0, 3]) beside B (x in [3, 6]) whose height z = (i / 3) bump(j)
    grows away from the shared straight edge x = 3: B is curved along the edge direction."""
    bump = [0.0, 2.0, 2.0, 0.0]
    A = affine()
    B = affine(x0=3.0, z=lambda i, j: i * bump[j] / 3.0 * 3.0)
    return A, B


def test_planar_patch_beside_a_curved_neighbour_inherits_its_level():
    A, B = beside()
    view = surface([A, B], [Join(0, PS.U1, 1, PS.U0, False)])
    out, mesh = build(view, profile(1e-3))
    assert out.ok
    pa, pb = mesh.view().report.patches
    assert pb.level_v >= 2
    assert pa.level_v == pb.level_v  # the shared edge's along-edge level (v on U0/U1)
    assert pa.level_u == 0 and pa.position_bound < 1e-12  # A itself needed nothing


def test_shared_positions_are_emitted_once_and_copied_bitwise():
    A, B = beside()
    # Declare B reversed in v: flip B's v so the join is reversed.
    B = np.ascontiguousarray(B[:, ::-1])
    view = surface([A, B], [Join(0, PS.U1, 1, PS.U0, True)])
    _out, mesh = build(view, profile(1e-3))
    mv = mesh.view()
    pa, pb = mv.report.patches
    nva, nvb = (1 << pa.level_v) + 1, (1 << pb.level_v) + 1
    ga = mv.vertex_position_index[pa.first_vertex:pa.first_vertex + pa.vertex_count].reshape(-1, nva)
    gb = mv.vertex_position_index[pb.first_vertex:pb.first_vertex + pb.vertex_count].reshape(-1, nvb)
    # A's U1 side (last row, v ascending) is B's U0 side (first row) with v reversed.
    assert ga[-1].tolist() == gb[0][::-1].tolist()
    assert np.array_equal(mv.vertex_positions.view(np.uint32), mv.positions[mv.vertex_position_index].view(np.uint32))
    # Each corner and each edge sample is emitted once.
    counts = mesh_counts(view, [(pa.level_u, pa.level_v), (pb.level_u, pb.level_v)])
    assert mv.positions.shape[0] == counts["positions"] == len(np.unique(mv.vertex_position_index))
    # Normals and parameters belong to each vertex's own patch: along the seam the parameters differ.
    va = pa.first_vertex + (1 << pa.level_u) * nva  # A's grid point (nu, 0)
    vb = pb.first_vertex + nvb - 1  # B's grid point (0, nv): the same position
    assert mv.vertex_position_index[va] == mv.vertex_position_index[vb]
    assert mv.vertex_parameters[va].tolist() == [1.0, 0.0] and mv.vertex_parameters[vb].tolist() == [0.0, 1.0]


# --- The spec's failure list, one test per line ----------------------------------------------

def test_strict_with_a_normal_angle_error_is_unsupported_precision():
    out, mesh = build(surface([twisted()]), profile(3.0, angle=0.1))
    assert out.status is S.UnsupportedPrecision and out.diagnostic.field == "normal_angle_error"
    assert mesh.view() is None


def test_strict_accepting_a_coarser_mesh_is_invalid_argument():
    out, _ = build(surface([twisted()]), profile(3.0, coarser=True))
    assert out.status is S.InvalidArgument and out.diagnostic.field == "is_coarser_mesh_accepted"


def test_visual_normal_angle_refines_further_and_reports_an_estimate():
    view = surface([twisted()])
    plain, m1 = build(view, profile(3.0, precision=PP.Visual))
    assert plain.ok and m1.view().report.normal_angle_estimate is None
    out, m2 = build(view, profile(3.0, precision=PP.Visual, angle=0.2))
    assert out.ok
    rep = m2.view().report
    assert rep.normal_angle_estimate is not None and 0 < rep.normal_angle_estimate <= 0.2
    p = rep.patches[0]
    assert p.level_u + p.level_v > 0  # the twist alone accepted (0, 0); the normals did not


def test_visual_coarser_mesh_keeps_the_finest_grid_and_reports_the_achieved_bound():
    view = surface([twisted()])
    out, mesh = build(view, profile(0.01, precision=PP.Visual, coarser=True, max_level=2))
    assert out.ok
    rep = mesh.view().report
    p = rep.patches[0]
    assert (p.level_u, p.level_v) == (2, 2)
    assert rep.is_within_position_error is False and p.is_within_position_error is False
    assert 9 / 16 / 16 / 4 * 4 <= rep.position_bound  # 9 du dv / 4 at du = dv = 1/4


def test_strict_stopped_by_max_level_is_budget_exceeded_with_the_achieved_bound():
    out, mesh = build(surface([twisted()]), profile(0.01, max_level=2))
    assert out.status is S.BudgetExceeded and out.diagnostic.field == "max_level"
    assert out.diagnostic.achieved >= 9 / 64 and mesh.view() is None


@pytest.mark.parametrize("limit, value", [("max_cell_tests", 4), ("max_vertices", 8), ("max_triangles", 7),
                                          ("max_output_bytes", 100)])
def test_count_limits_are_budget_exceeded_before_allocation(limit, value):
    view = surface([twisted()])
    _ok, mesh = build(view, profile(1.0))
    before = mesh.view()
    out, _ = build(view, profile(1.0, **{limit: value}), mesh)
    assert out.status is S.BudgetExceeded and out.diagnostic.field == limit
    assert mesh.view() is before  # every failure keeps the previous mesh


def test_zero_cell_tests_allow_no_work():
    out, _ = build(surface([affine()]), profile(1e-4, max_cell_tests=0))
    assert out.status is S.BudgetExceeded and out.diagnostic.field == "max_cell_tests"


def test_more_than_2_32_vertices_is_out_of_range():
    view = surface([affine()])
    counts = mesh_counts(view, [(16, 16)])  # (2**16 + 1)**2 > 2**32
    assert counts["vertices"] == (2**16 + 1) ** 2 > MAX_VERTEX_COUNT
    lim = SurfaceMeshLimits(24, 2**40, 2**40, 2**40, 2**48)
    assert check_counts(counts, lim).status is S.OutOfRange
    assert check_counts(mesh_counts(view, [(15, 16)]), lim) is None  # (2**15 + 1)(2**16 + 1) < 2**32


def collapsed():
    """A patch whose V0 side collapses to one point: Su = 0 along v = 0."""
    C = affine(z=lambda i, j: 0.3 * i * j)
    C[:, 0] = C[0, 0]
    return C


def test_reject_fails_on_a_singular_vertex_normal():
    out, _ = build(surface([collapsed()]), profile(1.0, degeneracy=DP.Reject))
    assert out.status is S.Degenerate and out.diagnostic.field == "vertex_normal"


def unjoined_tube():
    """A one-patch tube closed in u but not joined: corners (0, v) and (1, v) coincide, normals
    there are regular, and at level u = 0 each cell's first triangle has two equal positions."""
    ring = np.array([[1.0, 0, 0], [-1.0, 2, 0], [-1.0, -2, 0], [1.0, 0, 0]])
    return np.stack([np.stack([ring[i] + [0, 0, j * 0.5] for j in range(4)]) for i in range(4)])


def test_reject_fails_on_a_triangle_with_two_equal_positions():
    view = surface([unjoined_tube()])
    out, _ = build(view, profile(100.0, degeneracy=DP.Reject))
    assert out.status is S.Degenerate and out.diagnostic.field == "triangle"


def test_report_emits_zero_normals_with_status_and_counts_both():
    out, mesh = build(surface([collapsed()]), profile(1.0, degeneracy=DP.Report))
    assert out.ok
    mv = mesh.view()
    bad = mv.vertex_status != NORMAL_OK
    assert bad.any() and np.all(mv.vertex_normals[bad] == 0)
    nv = (1 << mv.report.patches[0].level_v) + 1
    # The collapsed side v = 0: every grid point (a, 0) has Su = 0.
    assert np.all(bad.reshape(-1, nv)[:, 0])
    assert mv.report.singular_normal_count == int(bad.sum())
    # Triangles (v00, v10, v11) of the cells at b = 0 have v00 == v10 (the collapsed side).
    nu = 1 << mv.report.patches[0].level_u
    assert mv.report.degenerate_triangle_count == nu
    out2, m2 = build(surface([unjoined_tube()]), profile(100.0))
    assert out2.ok and m2.view().report.degenerate_triangle_count >= 1


def test_position_error_below_the_surface_floor_is_unsupported_precision():
    view = surface([affine(x0=1e6)], pe=0.25)
    assert view.position_floor > 0.1
    out, _ = build(view, profile(view.position_floor / 2))
    assert out.status is S.UnsupportedPrecision and out.diagnostic.field == "position_error"
    assert build(view, profile(view.position_floor))[0].ok


@pytest.mark.parametrize("change", [
    dict(position_error=float("nan")), dict(position_error=-1.0), dict(normal_angle_error=4.0),
    dict(precision="Strict"), dict(degeneracy=None), dict(is_coarser_mesh_accepted=1),
])
def test_bad_profile_fields_are_invalid_argument(change):
    prof = dataclasses.replace(profile(1.0), **change)
    field = next(iter(change))
    view = surface([twisted()])
    _ok, mesh = build(view, profile(1.0))
    before = mesh.view()
    diag = []
    out = try_build_surface_mesh(view, prof, mesh, diag)
    assert out.status is S.InvalidArgument and out.diagnostic.field == field and diag == [out.diagnostic]
    assert mesh.view() is before


@pytest.mark.parametrize("name, value", [("max_level", 25), ("max_level", -1), ("max_vertices", 2.0),
                                         ("max_triangles", True), ("max_output_bytes", 2**49)])
def test_bad_limits_are_invalid_argument(name, value):
    prof = profile(1.0, **{name: value})
    out, _ = build(surface([twisted()]), prof)
    assert out.status is S.InvalidArgument and out.diagnostic.field == name


def test_views_are_read_only_and_float32():
    _out, mesh = build(surface([twisted()]), profile(1.0))
    mv = mesh.view()
    for a in (mv.positions, mv.vertex_positions, mv.vertex_normals, mv.vertex_parameters):
        assert a.dtype == np.float32 and not a.flags.writeable
    assert mv.indices.dtype == np.uint32 and mv.vertex_position_index.dtype == np.uint32


# --- Refinement in windows (memory bounded whatever max_cell_tests allows) --------------------


def _curved():
    return affine(z=lambda i, j: 0.0 if i in (0, 3) else float((j - 1.5) ** 2 + 0.3 * i * j))


@pytest.mark.parametrize("lu, lv", [(0, 0), (3, 5), (9, 2), (1, 11)])
def test_cell_bounds_and_angles_in_windows_are_the_whole_grids_bit_for_bit(lu, lv):
    from reference.tessellation import cell_bounds, cell_normal_angles

    view = surface([_curved()])
    C = view.controls[0]
    whole_b, whole_a = cell_bounds(C, lu, lv, 1e-9), cell_normal_angles(view, 0, lu, lv)
    vt = np.random.default_rng(1).random(((1 << lu) + 1, (1 << lv) + 1)) * 1e-6
    whole_vt = cell_bounds(C, lu, lv, vt)
    nu, nv = 1 << lu, 1 << lv
    for i0, i1, j0, j1 in ((0, nu, 0, nv), (nu // 2, nu, 0, max(1, nv // 2)), (nu - 1, nu, nv - 1, nv)):
        w = (i0, i1, j0, j1)
        pairs = ((cell_bounds(C, lu, lv, 1e-9, w), whole_b), (cell_bounds(C, lu, lv, vt, w), whole_vt),
                 (cell_normal_angles(view, 0, lu, lv, window=w), whole_a))
        for got, want in pairs:
            assert got.shape == (i1 - i0, j1 - j0)
            assert np.array_equal(got.view(np.uint64), want[i0:i1, j0:j1].view(np.uint64))


def test_grid_max_covers_every_cell_once_in_windows(monkeypatch):
    import reference.tessellation as T

    monkeypatch.setattr(T, "WINDOW_CELLS", 8)
    for lu, lv in ((0, 0), (2, 5), (5, 1), (4, 4)):
        seen = np.zeros((1 << lu, 1 << lv), dtype=int)

        def fn(w):
            i0, i1, j0, j1 = w
            assert (i1 - i0) * (j1 - j0) <= 8
            seen[i0:i1, j0:j1] += 1
            return np.arange(i0, i1)[:, None] * 1000.0 + np.arange(j0, j1)[None, :]

        assert T.grid_max(fn, lu, lv) == ((1 << lu) - 1) * 1000.0 + (1 << lv) - 1
        assert (seen == 1).all()


def test_a_large_allowed_refinement_stays_within_bounded_memory():
    """max_cell_tests = 2^20 on a patch that never meets its target: the last level tested holds
    2^19 cells, which took about 500 MiB at once before the windows (numpy reports its buffers to
    tracemalloc); now the windows hold it near 50 MiB."""
    import tracemalloc

    view = surface([_curved()])
    floor = float(view.position_floor) * 1.0001
    tracemalloc.start()
    try:
        out, _ = build(view, profile(floor, max_level=24, max_cell_tests=1 << 20, max_vertices=1 << 40,
                                        max_triangles=1 << 40, max_output_bytes=1 << 48))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.status is S.BudgetExceeded and out.diagnostic.field == "max_cell_tests"
    assert out.diagnostic.value > (1 << 20) - (1 << 19)  # the levels up to 2^19 cells were tested
    assert peak < 150 * 2**20, peak / 2**20
