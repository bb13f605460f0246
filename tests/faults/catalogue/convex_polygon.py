"""Planted faults of the convex polygon family (``reference/convex_polygon.py``,
``interval/convex_polygon.py``): the coplanarity/collinearity tolerance and its floor, the
seven-vertex limit, unmergeable edges, degenerate triangles, matching by value and bitwise
output positions, the merge order that keeps float32 rounding from reordering merges, and the
statuses of TryPartitionConvexPolygons (a failed call that clears the caller's partition, valid
inputs refused, a wrong status, a nonfinite position let through), judged by the status
requests (issue 24)."""

from tests.faults.harness import Fault

_REF = "reference/convex_polygon.py"
_ORACLE = "interval/convex_polygon.py"
_T_REF = "tests/reference/test_convex_polygon.py"
_T_ORACLE = "tests/interval/test_convex_polygon_oracle.py"
_STATUSES = "tests/oracles/test_convex_polygon_checks.py::test_our_fast_path_meets_every_status_request"

FAULTS = [
    Fault("convex_polygon.tolerance_wider", "convex_polygon", _REF,
          "REL_TOLERANCE = 2.0**-16",
          "REL_TOLERANCE = 2.0**-12",
          "The relative coplanarity and collinearity tolerance is 2^-12 of the extent, sixteen times the "
          "documented 2^-16.",
          (_T_REF,)),
    Fault("convex_polygon.tolerance_narrower", "convex_polygon", _REF,
          "REL_TOLERANCE = 2.0**-16",
          "REL_TOLERANCE = 2.0**-20",
          "The relative tolerance is 2^-20 of the extent, a sixteenth of the documented 2^-16.",
          (_T_REF,)),
    Fault("convex_polygon.floor_dropped", "convex_polygon", _REF,
          "FLOOR_TOLERANCE = 2.0**-24",
          "FLOOR_TOLERANCE = 0.0",
          "The tolerance has no floor relative to the float32 coordinate magnitude.",
          (_T_REF,)),
    Fault("convex_polygon.eight_vertices", "convex_polygon", _REF,
          "MAX_POLYGON_VERTICES = 7",
          "MAX_POLYGON_VERTICES = 8",
          "Polygons may have eight vertices.",
          (_T_REF,)),
    Fault("convex_polygon.six_vertices", "convex_polygon", _REF,
          "MAX_POLYGON_VERTICES = 7",
          "MAX_POLYGON_VERTICES = 6",
          "Polygons stop at six vertices, so a seven-vertex union is never formed.",
          (_T_REF,)),
    Fault("convex_polygon.merge_across_three_triangles", "convex_polygon", _REF,
          "if len(lst) == 2 and lst[0][0] == lst[1][1]:",
          "if len(lst) >= 2 and lst[0][0] == lst[1][1]:",
          "An edge with more than two triangles is mergeable when its first two run opposite ways.",
          (_T_REF,)),
    Fault("convex_polygon.merge_same_direction", "convex_polygon", _REF,
          "if len(lst) == 2 and lst[0][0] == lst[1][1]:",
          "if len(lst) == 2:",
          "An edge whose two triangles run it the same way (inconsistent winding) is mergeable.",
          (_T_REF,)),
    Fault("convex_polygon.slivers_kept", "convex_polygon", _REF,
          "if _dot(cr, cr) <= delta * delta * longest:",
          "if _dot(cr, cr) == 0.0:",
          "Only exactly collinear triangles are degenerate; slivers within the tolerance are kept.",
          (_T_REF,)),
    Fault("convex_polygon.coincident_not_counted", "convex_polygon", _REF,
          "        if a == b or b == c or a == c:\n            degenerate += 1\n            continue",
          "        if a == b or b == c or a == c:\n            continue",
          "Triangles with coincident corners are left out but not counted.",
          (_T_REF,)),
    Fault("convex_polygon.signed_zeros_not_matched", "convex_polygon", _REF,
          "keyed = np.ascontiguousarray(positions + np.float32(0.0)).view(np.uint32)",
          "keyed = np.ascontiguousarray(positions).view(np.uint32)",
          "Positions are matched by bits, so -0.0 and +0.0 split a shared edge.",
          (_T_REF,)),
    Fault("convex_polygon.output_zeros_canonicalized", "convex_polygon", _REF,
          "block[: len(cs)] = positions[cs]",
          "block[: len(cs)] = positions[cs] + np.float32(0.0)",
          "Output corners are written as position + 0.0, turning a source -0.0 into +0.0 (not bitwise).",
          (_T_REF,)),
    # --- The merge order (issue 23) ---------------------------------------------------------------
    Fault("convex_polygon.order_without_band", "convex_polygon", _REF,
          "band = min(LENGTH_BAND * max(pdelta, other.delta), LENGTH_BAND_REL * length)",
          "band = 0.0",
          "Shared lengths compare exactly, so float32 rounding of a rotated grid decides the merge order "
          "(pinwheel dead ends).",
          (_T_REF,)),
    Fault("convex_polygon.order_band_uncapped", "convex_polygon", _REF,
          "band = min(LENGTH_BAND * max(pdelta, other.delta), LENGTH_BAND_REL * length)",
          "band = LENGTH_BAND * max(pdelta, other.delta)",
          "The length band is 4 delta with no cap at an eighth of the length, so where delta is a cell wide "
          "a square's diagonal ties with its sides.",
          (_T_REF,)),
    Fault("convex_polygon.order_ignores_union_size", "convex_polygon", _REF,
          "(-(ptris + len(other.tris)), key)",
          "(0, key)",
          "Tied lengths fall straight to the edge's position ids, not to the larger union first, so a "
          "grid with shuffled indices ends in dead ends.",
          (_T_REF,)),
    # --- Statuses (issue 24) ----------------------------------------------------------------------
    Fault("convex_polygon.status_failed_partition_clears_output", "convex_polygon", _REF,
          "    bad = _validate(positions, indices)\n    if bad is not None:\n        return bad\n",
          "    partition._set((), np.zeros(0, np.int64), 0, 0)  # start from an empty partition\n"
          "    bad = _validate(positions, indices)\n    if bad is not None:\n        return bad\n",
          "A failed partition that clears the previous partition: the caller's partition is emptied before the "
          "checks ('fail without changing the output').",
          (_STATUSES,)),
    Fault("convex_polygon.status_last_index_refused", "convex_polygon", _REF,
          "(indices >= positions.shape[0])",
          "(indices >= positions.shape[0] - 1)",
          "The last position's index n - 1 is refused as OutOfRange: valid requests refused.",
          (_STATUSES,)),
    Fault("convex_polygon.status_empty_index_list_refused", "convex_polygon", _REF,
          "    if indices.size % 3:",
          "    if indices.size % 3 or not indices.size:",
          "An empty index list is refused as an invalid index count (it is a success with an empty partition).",
          (_STATUSES,)),
    Fault("convex_polygon.status_largest_float32_refused", "convex_polygon", _REF,
          "nonfinite = np.flatnonzero(~np.isfinite(positions).all(axis=1))",
          "nonfinite = np.flatnonzero(~(np.abs(positions) < np.finfo(np.float32).max).all(axis=1))",
          "A coordinate of the largest finite float32 magnitude is refused as nonfinite: a valid request refused.",
          (_STATUSES,)),
    Fault("convex_polygon.status_unreferenced_nonfinite_accepted", "convex_polygon", _REF,
          "nonfinite = np.flatnonzero(~np.isfinite(positions).all(axis=1))",
          "nonfinite = np.flatnonzero(~np.isfinite(positions[np.unique(indices)]).all(axis=1))",
          "Only referenced positions are checked, so an unreferenced nonfinite position (or any, with no "
          "indices) is a success where the decision demands InvalidArgument.",
          (_STATUSES,)),
    Fault("convex_polygon.status_out_of_range_as_invalid_argument", "convex_polygon", _REF,
          "return failure(GeometryStatus.OutOfRange,",
          "return failure(GeometryStatus.InvalidArgument,",
          "An index outside the positions fails with InvalidArgument instead of OutOfRange: the wrong status.",
          (_STATUSES,)),
    # --- Oracle ------------------------------------------------------------------------------------
    Fault("convex_polygon.oracle_band_four", "convex_polygon", _ORACLE,
          "BAND = _q(2)",
          "BAND = _q(4)",
          "The oracle's decision band is a factor four instead of two.",
          (_T_ORACLE,)),
    Fault("convex_polygon.oracle_floor_dropped", "convex_polygon", _ORACLE,
          "FLOOR_TOLERANCE = _q(1, 2**24)",
          "FLOOR_TOLERANCE = _q(0)",
          "The oracle's tolerance has no floor.",
          (_T_ORACLE,)),
]
