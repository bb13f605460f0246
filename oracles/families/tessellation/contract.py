"""Tessellation rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence,
and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import numpy as np

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc
from ..surface.contract import NETWORK_SCHEMA

__all__ = ["CONTRACTS"]


def _replace(claim, value=None, inputs=None):
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def _plant_position_bound(claim):
    # Move one emitted vertex far off the surface: the bound cannot hold for those triangles.
    c = dec(claim.value["position_bound"])
    grid = [[list(p) for p in row] for row in claim.inputs["grid"]]
    x = dec(grid[0][0][0])
    grid[0][0][0] = enc(float(np.float32(x + 10.0 * c + 1.0 + abs(x) * 1e-3)))
    return _replace(claim, inputs={**claim.inputs, "grid": grid})


def _plant_shared_positions(claim):
    if "status" in claim.value:  # the other budget: the rule does not exceed both
        other = {"max_level": "max_cell_tests", "max_cell_tests": "max_level"}[claim.value["field"]]
        return _replace(claim, value={**claim.value, "field": other})
    vp = [list(p) for p in claim.value["vertex_positions"]]
    vp[0][0] = enc(float(np.nextafter(np.float32(dec(vp[0][0])), np.float32(np.inf))))
    return _replace(claim, value={**claim.value, "vertex_positions": vp})


def _plant_normal_angle(claim):
    est = dec(claim.value["normal_angle_estimate"])
    return _replace(claim, value={"normal_angle_estimate": enc(est / 1000.0)})


_GRID = S.obj(required={
    "controls": S.matrix(S.f32(), [4, 4, 3], doc=(
        "Yours: the patch's narrowed controls Control[u][v] (4 x 4 x 3, chunk-relative float32).")),
    "level_u": S.integer(minimum=0, maximum=24, doc="Yours: the patch's LevelU: 2^level_u cells along u."),
    "level_v": S.integer(minimum=0, maximum=24, doc="Yours: the patch's LevelV: 2^level_v cells along v."),
    "grid": S.matrix(S.f32(), [None, None, 3], doc=(
        "Yours: the patch's emitted vertex positions, (2^level_u + 1) x (2^level_v + 1) x 3 chunk-relative "
        "float32: grid[a][b] is the vertex at (u, v) = (a / 2^level_u, b / 2^level_v). Each cell splits into two "
        "triangles along its (u0, v0)-(u1, v1) diagonal, grid[a][b] to grid[a + 1][b + 1] (spec 002 Surface "
        "meshes), counterclockwise in (u, v)."))})
_NETWORK = NETWORK_SCHEMA
_INDEX = S.integer(minimum=0, maximum=2**32 - 1)
_BOUND_INPUTS = S.obj(required=_GRID["properties"],
                      optional={"position_error": S.f64(nonnegative=True, doc=(
                          "Given: SurfaceMeshProfile.PositionError, asset units (with it, is_within_position_error "
                          "is checked).")),
                                "accepts_coarser": S.boolean(doc="Given: SurfaceMeshProfile.IsCoarserMeshAccepted.")})
_PROFILE = S.obj(required={"precision": S.enum(["Strict", "Visual"], doc="Given: SurfaceMeshProfile.Precision."),
                           "position_error": S.f64(nonnegative=True, doc="Given: PositionError, asset units."),
                           "normal_angle_error": S.f64(nonnegative=True, doc="Given: NormalAngleError, radians."),
                           "coarser": S.boolean(doc="Given: IsCoarserMeshAccepted."),
                           "degeneracy": S.enum(["Reject", "Report"], doc="Given: SurfaceDegeneracyPolicy."),
                           "max_level": S.integer(minimum=0, maximum=24, doc="Given: Limits.MaxLevel.")},
                 optional={"max_cell_tests": S.integer(minimum=0, doc="Given: Limits.MaxCellTests.")},
                 doc=("Given, optional: the SurfaceMeshProfile the mesh was built with; with it the levels are held "
                      "to the refinement rule and the degeneracy policy to the mesh."))
_MESH_INPUTS = S.obj(required=_NETWORK["properties"], optional={"profile": _PROFILE},
                     doc="Given: the SurfaceSource (as the surface rows take it), and the profile.")

CONTRACTS = {
    "tessellation.position_bound": RowContract(
        checks="For every cell of the patch grid, an exact rational branch and bound (Bernstein hull of S - T on "
               "each triangle's Duffy square, T the linear interpolant of the emitted float32 vertices) shows "
               "max |S - T| <= the claimed position_bound; a point with |S - T| above it is a violation. Every "
               "cell is enclosed again by a branch and bound over parameter triangles with second-order Taylor "
               "models of S - T in Arb balls (128 bits): disjoint enclosures or opposite decisions are an oracle "
               "fault. With "
               "the profile's position_error, is_within_position_error must be position_bound <= position_error, "
               "and a mesh that does not accept a coarser grid must be within it.",
        inputs=_BOUND_INPUTS, value=S.obj(required={"position_bound": S.f64(nonnegative=True, doc=(
            "SurfaceMeshPatch::PositionBound: a Certified bound of the largest Euclidean distance (asset units, not "
            "squared) between the prepared patch S(u, v) and the mesh's linear interpolant T at the same (u, v)."))},
                                          optional={"is_within_position_error": S.boolean(doc=(
                                              "IsWithinPositionError: position_bound <= position_error."))}),
        plant=_plant_position_bound,
        oracles=("Bernstein hull branch and bound on Duffy squares (gmpy2 mpq)",
                 "Taylor-model branch and bound on parameter triangles (python-flint Arb balls)")),
    "tessellation.shared_positions": RowContract(
        checks="Replaying the exact topology: complete patch grids, vertex positions bitwise copies of their shared "
               "positions, one position index per corner record, canonical edge sample and grid point, equal "
               "along-edge levels on shared edges (no T-junction), exact corner positions, the two counterclockwise "
               "triangles of every cell, and every mesh edge used twice (once on a boundary side); the degenerate "
               "triangle count (two equal float32 positions) and singular normal count exact, none under Reject; "
               "each vertex normal within normal_bound at u = 2^-24 of its own patch's exact unit normal at its "
               "parameter, zero where its status is not OK; "
               "with the profile, the levels equal the refinement rule's, replayed on enclosures of the exact first "
               "two cell terms widened by sqrt(3) (ulp32(2E) + 256 u E) (clearly smaller below 7/8 of the other "
               "direction, near-ties the coarser then u, shared edges at the larger level), undecided inside them.",
        inputs=_MESH_INPUTS, value=S.any_of(S.obj(required={
            "levels": S.array(S.vec(S.integer(minimum=0, maximum=24), 2), min_items=1, doc=(
                "Per patch in source order, [level_u, level_v].")),
            "positions": S.matrix(S.f32(), [None, 3], doc=(
                "SurfaceMeshView::Positions: every mesh position once (a corner or edge sample shared by patches "
                "appears once), chunk-relative float32.")),
            "vertex_positions": S.matrix(S.f32(), [None, 3], doc=(
                "Each vertex's position: a bitwise copy of positions[vertex_position_index].")),
            "vertex_position_index": S.array(_INDEX, doc="Each vertex's PositionIndex into positions."),
            "vertex_patch": S.array(_INDEX, doc="Each vertex's patch (source index)."),
            "vertex_parameters": S.matrix(S.f32(), [None, 2], doc="Each vertex's (u, v) on its own patch."),
            "indices": S.matrix(_INDEX, [None, 3], doc=(
                "The triangles, three vertex indices each: two per cell, split along the cell's (u0, v0)-(u1, v1) "
                "diagonal, counterclockwise in (u, v)."))},
            optional={"vertex_normals": S.matrix(S.f32(), [None, 3], doc=(
                          "Each vertex's normal (float32): its own patch's unit normal at its parameter, zero where "
                          "its status is not OK.")),
                      "vertex_status": S.array(S.integer(minimum=0, maximum=2), doc=(
                          "Each vertex normal's status: 0 OK, 1 Degenerate, 2 IllConditioned.")),
                      "singular_normal_count": S.integer(minimum=0, doc="The report's singular vertex normals."),
                      "degenerate_triangle_count": S.integer(minimum=0, doc=(
                          "The report's triangles with two equal positions."))},
            doc="TryBuildSurfaceMesh's mesh."),
            S.obj(required={"status": S.const("BudgetExceeded", doc="The build's failure."),
                            "field": S.enum(["max_level", "max_cell_tests"], doc="The limit the refinement exceeded.")},
                  doc="A refinement that exceeds a limit."),
            doc="The mesh, or the refinement's budget failure."),
        plant=_plant_shared_positions),
    "tessellation.normal_angle": RowContract(
        checks="Every triangle's exact face normal stays within 4 x the estimate + 4 sqrt(3) ulp32(E) / altitude of "
               "the true normal Su x Sv over the triangle (exact convex-cone test on Bernstein coefficients); "
               "calibration true / estimate sampled at 113 bits.",
        inputs=S.obj(required={"patches": S.array(_GRID, min_items=1, doc="Yours: every patch's grid.")}),
        value=S.obj(required={"normal_angle_estimate": S.f64(nonnegative=True, doc=(
            "The report's NormalAngleEstimate, radians (an Estimated angle between face and surface normals)."))}),
        plant=_plant_normal_angle),
}
