"""Convex polygon partition checker: ``convex_polygon.partition`` (Exact), spec 002 "Convex
polygon partition".

One claim per call: the inputs are the float32 positions and the flat index list, the value is
the status and, on success, the whole partition (corners as hex floats, normals, triangle
ranges, triangle list, the two counts).

The checker (``interval.convex_polygon.check_partition``, exact rationals on the source
positions): a success claim must satisfy every postcondition there (membership, degeneracy band,
edge census, tiling, bitwise corners in loop order, strict convexity counterclockwise about the
exact normal, coplanarity within ``2 delta``, at most seven corners, the Rounded normal, and
maximality with a margin: no two adjacent polygons whose union is clearly one valid polygon); a
failure claim must name a status the inputs' defects call for (InvalidArgument for an index
count not a multiple of three or a nonfinite position, OutOfRange for an index outside the
positions), and valid inputs must not fail. Measured: the worst ``distance / delta`` over
dropped loop vertices and plane distances (at most 2). Not checked: that a rotated grid
collapses (the spec allows a maximal partition that is not minimal, pinwheels included;
``docs/decisions.md``, "Convex polygons: what the ledger row checks").
"""

from __future__ import annotations

import math

import numpy as np

from interval.convex_polygon import BAND, check_partition

from ...model import Claim, dec, verified, violated
from ...rules import binding, decision, declare, default, judged, spec

__all__ = ["ROW", "RULES", "check_partition_claim", "claim_inputs", "defects"]

ROW = "convex_polygon.partition"

_S = "spec 002 Convex polygon partition: "
FAILURES = spec("convex_polygon:failures", _S + "'Invalid views or index counts, out-of-range indices and nonfinite "
                "positions fail without changing the output': such inputs fail, valid ones succeed")
STATUS_NAMES = decision("convex_polygon:status_names", "docs/decisions.md 'Convex polygons: inputs and statuses': an "
                        "index count not a multiple of three or a nonfinite position is InvalidArgument, an index "
                        "outside the positions OutOfRange (the spec names no status; without the decision any failure "
                        "status is accepted)")
POSTCONDITIONS = spec("convex_polygon:postconditions", _S + "'Every nondegenerate triangle belongs to exactly one "
                      "polygon ... Output positions are bitwise source positions ... at most seven vertices, no three "
                      "collinear ... edges with more than two triangles or inconsistent winding are ... never "
                      "crossed', convex, coplanar, counterclockwise about the normal, and maximal (two pieces merge "
                      "when the union stays valid), checked in exact rationals")
TOLERANCE = default("convex_polygon:tolerance", "docs/decisions.md 'Convex polygons: tolerances': coplanarity and "
                    "collinearity within delta relative to the polygon's extent with a float32 floor (the spec's "
                    "'tolerances relative to the polygon's extent'), the checker's band BAND x delta, maximality with "
                    "a margin")

RULES = declare({ROW: (FAILURES, STATUS_NAMES, POSTCONDITIONS, TOLERANCE),
                 "convex_polygon.statuses": (STATUS_NAMES,)})


def claim_inputs(claim: Claim):
    """The claim's positions (float64 triples of float32 values, nonfinite allowed) and indices;
    ValueError when malformed."""
    pos = claim.inputs["positions"]
    idx = claim.inputs["indices"]
    if not isinstance(pos, list) or not isinstance(idx, list):
        raise ValueError("positions and indices must be lists")
    positions = []
    for p in pos:
        if not isinstance(p, list) or len(p) != 3:
            raise ValueError("a position is [x, y, z]")
        v = [dec(x) for x in p]
        if any(math.isfinite(x) and float(np.float32(x)) != x for x in v):
            raise ValueError("positions must be float32 values")
        positions.append(v)
    if any(not isinstance(i, int) or isinstance(i, bool) for i in idx):
        raise ValueError("indices must be integers")
    return positions, idx


def defects(positions, idx) -> set:
    """The statuses the inputs' defects call for (empty for a valid mesh)."""
    out = set()
    if len(idx) % 3:
        out.add("InvalidArgument")
    if any(not 0 <= i < len(positions) for i in idx):
        out.add("OutOfRange")
    if any(not math.isfinite(x) for p in positions for x in p):
        out.add("InvalidArgument")
    return out


@judged
def check_partition_claim(claim: Claim):
    """Exact: every postcondition of ``interval.convex_polygon.check_partition`` holds on the
    source positions, or the claimed failure is one the inputs call for."""
    positions, idx = claim_inputs(claim)
    v = claim.value
    status = v.get("status")
    found = defects(positions, idx)
    if found:
        if status in found:
            return verified(claim, measure="tolerance_ratio", measured=0, note=f"fails with {status}")
        failed = isinstance(status, str) and status != "Success"
        if failed and not binding(STATUS_NAMES):
            return verified(claim, measure="tolerance_ratio", measured=0, note=f"fails ({status})")
        return violated(claim, {"expected_status": sorted(found), "claimed": status},
                        note="invalid inputs must fail with a status their defect calls for",
                        rule=STATUS_NAMES.id if failed else FAILURES.id)
    if status != "Success":
        return violated(claim, {"expected_status": "Success", "claimed": status}, note="valid inputs failed",
                        rule=FAILURES.id)
    polygons = [{"positions": [[dec(x) for x in c] for c in p["positions"]],
                 "normal": [dec(x) for x in p["normal"]],
                 "first_triangle": p["first_triangle"], "triangle_count": p["triangle_count"]}
                for p in v["polygons"]]
    report = check_partition(positions, idx, polygons, v["triangles"], v["degenerate_triangle_count"],
                             v["unmergeable_edge_count"])
    # The tolerance band allows distances up to BAND x delta: bound_use is the share used.
    use = report.worst_ratio / float(BAND)
    if not report.ok:
        return violated(claim, {"failures": report.failures[:5]}, measure="tolerance_ratio",
                        measured=report.worst_ratio, note=report.failures[0]["property"], bound_use=use,
                        rule=POSTCONDITIONS.id)
    return verified(claim, measure="tolerance_ratio", measured=report.worst_ratio, bound_use=use,
                    note=f"{report.polygons} polygons, {report.exact_planar_polygons} exactly planar")

