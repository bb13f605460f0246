"""Convex polygon row's case-file contract: the row's fields (JSON Schema), the ledger's sentence,
and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import numpy as np

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc
from .checks import ROW, claim_inputs, defects

__all__ = ["CONTRACTS", "plant_partition"]


def _ulp_up32(x: float) -> float:
    return float(np.nextafter(np.float32(x), np.float32(np.inf)))


def plant_partition(claim: Claim) -> Claim:
    """A false claim: the first corner's x moved one float32 ulp (no longer a source position);
    with no polygon, the degenerate count off by one; for a failure, a success with nothing."""
    v = dict(claim.value)
    if v.get("status") != "Success":
        v = {"status": "Success", "polygons": [], "triangles": [], "degenerate_triangle_count": 0,
             "unmergeable_edge_count": 0}
        # an empty partition of invalid inputs is still false; of an empty mesh it is the truth
        if not defects(*claim_inputs(claim)):  # pragma: no cover - failure claims have defects
            v["degenerate_triangle_count"] = 1
    elif v["polygons"]:
        polys = [dict(p) for p in v["polygons"]]
        first = [list(c) for c in polys[0]["positions"]]
        first[0][0] = enc(_ulp_up32(dec(first[0][0])))
        polys[0]["positions"] = first
        v["polygons"] = polys
    else:
        v["degenerate_triangle_count"] = v["degenerate_triangle_count"] + 1
    return Claim(claim.row, claim.guarantee, v, claim.inputs, claim.model)


_POLYGON = S.obj(required={
    "positions": S.array(S.vec(S.f32(), 3), min_items=1, doc=(
        "PositionsMesh[0 .. VertexCount): the 3 to 7 corners, bitwise source positions, in loop order "
        "counterclockwise about the normal.")),
    "normal": S.vec(S.f32(), 3, doc="NormalMesh: the polygon's unit normal (float32)."),
    "first_triangle": S.integer(minimum=0, doc="FirstTriangle: where the polygon's source triangles start in "
                                               "triangles."),
    "triangle_count": S.integer(minimum=0, doc="TriangleCount: how many of them."),
})

CONTRACTS = {
    ROW: RowContract(
        checks=("Exact convex partition, in rational arithmetic on the float32 source positions: every "
                "triangle with height h > 2 delta is in exactly one polygon and every one with h <= delta/2 "
                "or equal corners is counted degenerate, delta = max(2^-16 L, 2^-24 M) (L the largest "
                "bounding-box side, M the largest coordinate magnitude); the unmergeable-edge count equals the "
                "edges with more than two kept triangles or inconsistent winding and none is crossed; each "
                "polygon's triangles face its exact Newell normal A and their uncancelled edges form one simple "
                "loop whose area vector they sum to; its 3 to 7 corners are bitwise source positions in loop "
                "order, dropped loop vertices lie inside their chord within 2 delta, A . ((c_i+1 - c_i) x "
                "(w - c_i)) > 0 for every edge and other corner and every corner lies more than delta/2 off its "
                "neighbours' chord, every vertex lies within 2 delta of the plane "
                "(exactly on it for exactly planar meshes), and the normal is unit within 2^-20 and within "
                "2^-18 rad of A; no two adjacent polygons clearly form one valid polygon (drops within delta/2, "
                "turns above 2 delta, plane within delta/2, facing cosine 3/5); invalid inputs fail with "
                "InvalidArgument or OutOfRange as their defect calls for."),
        inputs=S.obj(required={"positions": S.array(S.vec(S.f32(finite=False), 3), doc=(
                                   "Given: the mesh's positions view, float32 (nonfinite ones must be rejected).")),
                               "indices": S.array(S.integer(), doc=(
                                   "Given: the index view, three per triangle, in source order (a count that is not a "
                                   "multiple of three, or an index outside positions, must be rejected)."))}),
        value=S.any_of(
            S.obj(required={"status": S.const("Success", doc="The partition succeeded."),
                            "polygons": S.array(_POLYGON, doc="ConvexPolygonPartition.Polygons, in order."),
                            "triangles": S.array(S.integer(minimum=0), doc=(
                                "ConvexPolygonPartition.Triangles: source triangle indices, each polygon's "
                                "[first_triangle, first_triangle + triangle_count) range in turn.")),
                            "degenerate_triangle_count": S.integer(minimum=0, doc=(
                                "DegenerateTriangleCount: triangles with coincident or collinear corners, left out.")),
                            "unmergeable_edge_count": S.integer(minimum=0, doc=(
                                "UnmergeableEdgeCount: edges with more than two triangles or inconsistent winding, "
                                "never crossed."))},
                  doc="The partition."),
            S.obj(required={"status": S.enum(["InvalidArgument", "OutOfRange"], doc=(
                "InvalidArgument: an index count not a multiple of three or a nonfinite position; OutOfRange: an "
                "index outside the positions."))},
                  doc="Invalid inputs: the failure, and no output."),
            doc="TryPartitionConvexPolygons' status and partition.",
        ),
        plant=plant_partition,
    ),
}
