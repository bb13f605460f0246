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


_GRID = S.obj(required={"controls": S.matrix(S.f32(), [4, 4, 3]), "level_u": S.integer(minimum=0, maximum=24),
                        "level_v": S.integer(minimum=0, maximum=24), "grid": S.matrix(S.f32(), [None, None, 3])})
_NETWORK = NETWORK_SCHEMA
_INDEX = S.integer(minimum=0, maximum=2**32 - 1)
_BOUND_INPUTS = S.obj(required=_GRID["properties"],
                      optional={"position_error": S.f64(nonnegative=True), "accepts_coarser": S.boolean()})
_PROFILE = S.obj(required={"precision": S.enum(["Strict", "Visual"]), "position_error": S.f64(nonnegative=True),
                           "normal_angle_error": S.f64(nonnegative=True), "coarser": S.boolean(),
                           "degeneracy": S.enum(["Reject", "Report"]),
                           "max_level": S.integer(minimum=0, maximum=24)},
                 optional={"max_cell_tests": S.integer(minimum=0)})
_MESH_INPUTS = S.obj(required=_NETWORK["properties"], optional={"profile": _PROFILE})

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
        inputs=_BOUND_INPUTS, value=S.obj(required={"position_bound": S.f64(nonnegative=True)},
                                          optional={"is_within_position_error": S.boolean()}),
        plant=_plant_position_bound,
        oracles=("Bernstein hull branch and bound on Duffy squares (gmpy2 mpq)",
                 "Taylor-model branch and bound on parameter triangles (python-flint Arb balls)")),
    "tessellation.shared_positions": RowContract(
        checks="Replaying the exact topology: complete patch grids, vertex positions bitwise copies of their shared "
               "positions, one position index per corner record, canonical edge sample and grid point, equal "
               "along-edge levels on shared edges (no T-junction), exact corner positions, the two counterclockwise "
               "triangles of every cell, and every mesh edge used twice (once on a boundary side); the degenerate "
               "triangle count (two equal float32 positions) and singular normal count exact, none under Reject; "
               "with the profile, the levels equal the refinement rule's, replayed on enclosures of the exact first "
               "two cell terms widened by sqrt(3) (ulp32(2E) + 256 u E) (clearly smaller below 7/8 of the other "
               "direction, near-ties the coarser then u, shared edges at the larger level), undecided inside them.",
        inputs=_MESH_INPUTS, value=S.any_of(S.obj(required={
            "levels": S.array(S.vec(S.integer(minimum=0, maximum=24), 2), min_items=1),
            "positions": S.matrix(S.f32(), [None, 3]), "vertex_positions": S.matrix(S.f32(), [None, 3]),
            "vertex_position_index": S.array(_INDEX), "vertex_patch": S.array(_INDEX),
            "vertex_parameters": S.matrix(S.f32(), [None, 2]), "indices": S.matrix(_INDEX, [None, 3])},
            optional={"vertex_status": S.array(S.integer(minimum=0, maximum=2)),
                      "singular_normal_count": S.integer(minimum=0),
                      "degenerate_triangle_count": S.integer(minimum=0)}),
            S.obj(required={"status": S.const("BudgetExceeded"), "field": S.enum(["max_level", "max_cell_tests"])})),
        plant=_plant_shared_positions),
    "tessellation.normal_angle": RowContract(
        checks="Every triangle's exact face normal stays within 4 x the estimate + 4 sqrt(3) ulp32(E) / altitude of "
               "the true normal Su x Sv over the triangle (exact convex-cone test on Bernstein coefficients); "
               "calibration true / estimate sampled at 113 bits.",
        inputs=S.obj(required={"patches": S.array(_GRID, min_items=1)}),
        value=S.obj(required={"normal_angle_estimate": S.f64(nonnegative=True)}),
        plant=_plant_normal_angle),
}
