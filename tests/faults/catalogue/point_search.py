"""Planted faults of point search (``reference/point_search.py``) and of its oracle
(``interval/point_search.py``), judged by the ``point_search`` ledger family."""

from ..harness import Fault

_R = "reference/point_search.py"
_I = "interval/point_search.py"
_CHECKS = "tests/oracles/test_point_search_checks.py"
_REF = "tests/reference/test_point_search.py"
_ORACLE = "tests/interval/test_point_search_oracle.py"
_STATUSES = _CHECKS + "::test_our_fast_path_meets_every_status_request"

FAULTS = [
    # --- tie order and comparisons ---
    Fault("point_search.ties_by_descending_index", "point_search", _R,
          "    return order[ja] < order[jb]", "    return order[ja] > order[jb]",
          "equal distances are ordered by decreasing source index",
          (_REF,)),
    Fault("point_search.ties_by_tree_slot", "point_search", _R,
          "    return order[ja] < order[jb]", "    return ja < jb",
          "equal distances are ordered by tree slot, not by original source index",
          (_REF,)),
    Fault("point_search.no_exact_fallback", "point_search", _R,
          "    return _exact_sign(pts, ja, jb, q, parts)",
          "    return 0 if da == db else (-1 if da < db else 1)",
          "near-equal distances are compared by their float64 estimates (exact ties broken by rounding)",
          (_REF,)),
    Fault("point_search.margin_below_rounding", "point_search", _R,
          "_MARGIN = 2.0**-46", "_MARGIN = 2.0**-60",
          "the estimate-decides margin is below the estimates' rounding error",
          (_REF,)),
    # --- pruning and the cut ---
    Fault("point_search.prune_box_at_kth", "point_search", _R,
          "            if b > w and b - w > b * _MARGIN:", "            if b >= w:",
          "a subtree whose box bound equals the k-th distance is pruned (ties at the cut lost)",
          (_REF,)),
    Fault("point_search.skip_point_at_kth", "point_search", _R,
          "                    if d > w and d - w > d * _MARGIN:", "                    if d >= w:",
          "a point at exactly the k-th distance is skipped, whatever its index",
          (_REF,)),
    Fault("point_search.replace_kth_by_estimate", "point_search", _R,
          "elif d + d * _MARGIN < w or _less(d, j, hd[k - 1], hj[k - 1], pts, order, q, parts):",
          "elif d < w:",
          "a full candidate list takes a new point only when its float64 estimate is smaller",
          (_REF,)),
    # --- the float32 distances (Rounded) ---
    Fault("point_search.differences_in_float32", "point_search", _R,
          "    d0 = pts[j, 0] - q0\n    d1 = pts[j, 1] - q1\n    d2 = pts[j, 2] - q2",
          "    d0 = np.float64(np.float32(pts[j, 0] - q0))\n    d1 = np.float64(np.float32(pts[j, 1] - q1))\n"
          "    d2 = np.float64(np.float32(pts[j, 2] - q2))",
          "coordinate differences are rounded to float32 by an evaluator that declares binary64",
          (_REF,)),
    Fault("point_search.output_truncated", "point_search", _R,
          "        prev = np.float32(0.0)\n        for i in range(k):\n            v = np.float32(hd[i])",
          "        prev = np.float32(0.0)\n        for i in range(k):\n            v = np.float32(hd[i])\n"
          "            if np.float64(v) > hd[i]:\n                v = np.nextafter(v, np.float32(0.0))",
          "squared distances are truncated toward zero to float32 instead of rounded to nearest",
          (_REF,)),
    Fault("point_search.model_u32_halved", "point_search", _R,
          "U32 = 2.0**-24", "U32 = 2.0**-25",
          "the declared error model's float32 output term is half an ulp too small (wrong exponent)",
          (_REF, _CHECKS)),
    # --- requests ---
    Fault("point_search.count_above_points", "point_search", _R,
          "        if count > n:", "        if count > n + 1:",
          "a count one above the point count is accepted",
          (_REF,)),
    Fault("point_search.query_limit_strict", "point_search", _R,
          "    return bool(np.all(np.isfinite(x32)) and "
          "np.all(np.abs(x32) <= np.float32(MAX_POINT_SEARCH_COORDINATE)))",
          "    return bool(np.all(np.isfinite(x32)) and np.all(np.abs(x32) < np.float32(MAX_POINT_SEARCH_COORDINATE)))",
          "a query coordinate of exactly MAX_POINT_SEARCH_COORDINATE is rejected",
          (_REF,)),
    # --- Status contracts (issue 24): judged by point_search.statuses
    Fault("point_search.status_failed_build_commits", "point_search", _R,
          "        p32 = _float32_values(arr)\n",
          "        p32 = _float32_values(arr)\n        self._positions = p32  # the tree's copy of the positions\n",
          "A failed point-tree build that leaves the new positions committed: the copy is stored before the "
          "checks ('Failure preserves the previous tree').",
          (_STATUSES,)),
    Fault("point_search.status_failed_build_clears_tree", "point_search", _R,
          "        arr = _real_array(positions)\n",
          "        self._positions = self._nodes = None  # start from an empty tree\n"
          "        arr = _real_array(positions)\n",
          "A failed rebuild that clears the previous tree: the tree is emptied before the checks.",
          (_STATUSES,)),
    Fault("point_search.status_max_coordinate_refused", "point_search", _R,
          "        bad = ~(np.isfinite(p32) & (np.abs(p32) <= np.float32(MAX_POINT_SEARCH_COORDINATE)))",
          "        bad = ~(np.isfinite(p32) & (np.abs(p32) < np.float32(MAX_POINT_SEARCH_COORDINATE)))",
          "A position coordinate of exactly MAX_POINT_SEARCH_COORDINATE = 2^60 is rejected (only magnitudes "
          "above it are): a limit met with equality refused.",
          (_STATUSES,)),
    Fault("point_search.status_max_neighbors_refused", "point_search", _R,
          "        if not is_int(count) or not 1 <= count <= MAX_POINT_NEIGHBORS:",
          "        if not is_int(count) or not 1 <= count < MAX_POINT_NEIGHBORS:",
          "A count of exactly MAX_POINT_NEIGHBORS is refused ('returns 1 through MAX_POINT_NEIGHBORS results').",
          (_STATUSES,)),
    Fault("point_search.status_count_equal_to_points_refused", "point_search", _R,
          "        if count > n:", "        if count >= n:",
          "A count equal to the point count is refused ('The requested count cannot exceed the input point "
          "count': equality is allowed).",
          (_STATUSES,)),
    Fault("point_search.status_capacity_at_equality_refused", "point_search", _R,
          "            if a.ndim != 1 or a.shape[0] < count:",
          "            if a.ndim != 1 or a.shape[0] <= count:",
          "Outputs of exactly count entries are refused as CapacityExceeded.",
          (_STATUSES,)),
    Fault("point_search.status_failed_query_writes_outputs", "point_search", _R,
          "        out = self._check_query(point, count, out_indices, out_distances, 1)\n",
          "        out_distances[:] = np.float32(np.inf)  # clear the caller's distances first\n"
          "        out = self._check_query(point, count, out_indices, out_distances, 1)\n",
          "FindNearest clears the caller's distances before its checks, so a failed query changes its outputs "
          "('Query failure preserves outputs').",
          (_STATUSES,)),
    Fault("point_search.status_duplicates_refused", "point_search", _R,
          "        if bad.any():\n",
          "        if len(np.unique(p32, axis=0)) < n:  # every point must be distinct\n"
          "            return failure(GeometryStatus.InvalidArgument, 'duplicate points', field='positions')\n"
          "        if bad.any():\n",
          "A build that rejects duplicate positions (the spec: 'accepting duplicates'): a valid request refused.",
          (_STATUSES,)),
    # --- the oracle ---
    Fault("point_search.oracle_scale_bits", "point_search", _I,
          "SCALE_BITS = 149", "SCALE_BITS = 126",
          "the oracle scales float32 values by 2^126 (normal numbers only): subnormals are not integers",
          (_ORACLE,)),
    Fault("point_search.oracle_band_strict", "point_search", _I,
          "return d_near < d_far and d_far - d_near <= 2 * bound_far",
          "return d_near < d_far and d_far - d_near <= bound_far",
          "the oracle's processor band is one bound wide, not two",
          (_ORACLE,)),
]
