"""Planted faults of the surface family (``reference/surface.py``, ``interval/surface.py``):
edge ownership, edge-parameter mapping, corner identity, orientation and C1, the normal's
Degenerate / IllConditioned decisions, evaluation and its error model."""

from tests.faults.harness import Fault

_REF = "reference/surface.py"
_ORACLE = "interval/surface.py"
_T_REF = "tests/reference/test_surface.py"
_T_CHECKS = "tests/oracles/test_surface_checks.py"
_T_ORACLE = "tests/interval/test_surface_oracle.py"
_ADAPTER = "oracles/families/surface/answers.py"
_STATUSES = _T_CHECKS + "::test_our_fast_path_meets_every_status_request"

FAULTS = [
    # --- Ownership: the smallest (patch id, side) owns an edge -------------------------------
    Fault("surface.owner_largest_incidence", "surface", _REF,
          "if other is not None and key(other[0]) < key(X):",
          "if other is not None and key(other[0]) > key(X):",
          "The largest (patch id, side) incidence owns a shared edge instead of the smallest.",
          (_T_REF,)),
    Fault("surface.owner_sides_reverse_order", "surface", _REF,
          "key = lambda ps: (ids[ps[0]], _SIDE_RANK[ps[1]])",
          "key = lambda ps: (ids[ps[0]], -_SIDE_RANK[ps[1]])",
          "Sides of one patch are ranked V1 < V0 < U1 < U0 when ownership ties on the patch id "
          "(a side joined to another side of the same patch, a tube).",
          (_T_REF,)),
    Fault("surface.owner_by_patch_index", "surface", _REF,
          "key = lambda ps: (ids[ps[0]], _SIDE_RANK[ps[1]])",
          "key = lambda ps: (ps[0], _SIDE_RANK[ps[1]])",
          "Ownership ranks incidences by patch index (source order) instead of author patch id.",
          (_T_REF,)),
    # --- TryMapEdgeParameter ------------------------------------------------------------------
    Fault("surface.map_parameter_ignores_reversal", "surface", _REF,
          "t = 1.0 - s if inc.is_reversed else s",
          "t = s",
          "TryMapEdgeParameter gives a reversed incidence s instead of 1 - s.",
          (_T_REF,)),
    # --- Corners: through shared edges only ----------------------------------------------------
    Fault("surface.corners_welded_by_position", "surface", _REF,
          "    groups: dict = {}\n    for x in range(4 * n):\n",
          "    at: dict = {}\n"
          "    for x in range(4 * n):\n"
          "        iu, iv = _CORNER_UV[CORNERS[x % 4]]\n"
          "        k = C[x // 4, iu, iv].tobytes()\n"
          "        if k in at:\n"
          "            ra, rb = find(x), find(at[k])\n"
          "            if ra != rb:\n"
          "                parent[ra] = rb\n"
          "        else:\n"
          "            at[k] = x\n"
          "    groups: dict = {}\n    for x in range(4 * n):\n",
          "Corners that coincide geometrically (a pole, a collapsed side) are merged into one record "
          "although no shared edge joins them.",
          (_T_REF,)),
    Fault("surface.corner_union_ignores_reversal", "surface", _REF,
          "        if rev:\n            eb = eb[::-1]\n        for ca, cb in zip(ea, eb):",
          "        for ca, cb in zip(ea, eb):",
          "The corner union pairs a reversed join's ends without crossing them.",
          (_T_REF,)),
    # --- Orientation and C1 --------------------------------------------------------------------
    Fault("surface.orientation_ignores_reversal", "surface", _REF,
          "consistent = _CCW[s] * _CCW[t] * (-1 if rev else 1) == -1",
          "consistent = _CCW[s] * _CCW[t] == -1",
          "IsOrientationConsistent ignores the join's reversal.",
          (_T_REF,)),
    Fault("surface.c1_strict_threshold", "surface", _REF,
          "is_c1 = bool(diff <= tol.continuity_derivative * scale)",
          "is_c1 = bool(diff < tol.continuity_derivative * scale)",
          "IsC1 uses < where the rule is <= (two zero cross-boundary derivative curves are then not C1).",
          (_T_REF,)),
    Fault("surface.c1_absolute_threshold", "surface", _REF,
          "is_c1 = bool(diff <= tol.continuity_derivative * scale)",
          "is_c1 = bool(diff <= tol.continuity_derivative)",
          "IsC1 compares the difference with the threshold absolutely instead of relative to the scale.",
          (_T_REF,)),
    Fault("surface.cross_derivative_ignores_reversal", "surface", _REF,
          "dbm = db[::-1] if rev else db",
          "dbm = db",
          "The edge continuity difference pairs the second side's derivative controls without the "
          "declared reversal.",
          (_T_REF,)),
    # --- Normal decisions ------------------------------------------------------------------------
    Fault("surface.normal_length_strict", "surface", _REF,
          "ill = ~degenerate & ((lu <= dmin) | (lv <= dmin) | ~(sin > smin))",
          "ill = ~degenerate & ((lu < dmin) | (lv < dmin) | ~(sin > smin))",
          "A partial's length exactly at NormalMinDerivativeLength is accepted (< instead of <=).",
          (_T_REF,)),
    Fault("surface.normal_sine_strict", "surface", _REF,
          "ill = ~degenerate & ((lu <= dmin) | (lv <= dmin) | ~(sin > smin))",
          "ill = ~degenerate & ((lu <= dmin) | (lv <= dmin) | (sin < smin))",
          "A sine exactly at NormalMinSinAngle is accepted (< instead of <=).",
          (_T_REF,)),
    Fault("surface.normal_ill_before_degenerate", "surface", _REF,
          "    ill = ~degenerate & ((lu <= dmin) | (lv <= dmin) | ~(sin > smin))\n"
          "    code = np.where(degenerate, NORMAL_DEGENERATE, np.where(ill, NORMAL_ILL_CONDITIONED, NORMAL_OK))",
          "    ill = (lu <= dmin) | (lv <= dmin) | ~(sin > smin)\n"
          "    code = np.where(ill, NORMAL_ILL_CONDITIONED, np.where(degenerate, NORMAL_DEGENERATE, NORMAL_OK))",
          "The IllConditioned test runs before the Degenerate one, so zero partials are IllConditioned.",
          (_T_REF,)),
    Fault("surface.normal_divided_by_partials", "surface", _REF,
          "unit = n / lx[..., None]",
          "unit = n / (lu * lv)[..., None]",
          "The normal is divided by |Su| |Sv| instead of |Su x Sv| (unit only for orthogonal partials).",
          (_T_REF,)),
    # --- Evaluation and its error model ---------------------------------------------------------
    Fault("surface.partials_swap_u_v", "surface", _REF,
          "return success(SurfaceSample(*K.bicubic_partials(F64, C, uu, vv)))",
          "return success(SurfaceSample(*K.bicubic_partials(F64, C, vv, uu)))",
          "TryEvaluateSurface with partials evaluates at (v, u).",
          (_T_REF,)),
    Fault("surface.evaluation_in_float32", "surface", _REF,
          "    C = view.controls[patch].astype(np.float64)\n    uu, vv = np.float64(u), np.float64(v)",
          "    C = view.controls[patch]\n    uu, vv = np.float32(u), np.float32(v)",
          "Surface evaluation runs in float32 on the float32 controls instead of float64.",
          (_T_REF,)),
    Fault("surface.error_model_without_magnitude", "surface", _REF,
          "return [float(up(SURFACE_K * u * m * E + SURFACE_K * eta)) for m in PARTIAL_MAGNITUDES]",
          "return [float(up(SURFACE_K * u * m + SURFACE_K * eta)) for m in PARTIAL_MAGNITUDES]",
          "The evaluation error model forgets the control magnitude E (an absolute instead of a "
          "relative bound).",
          (_T_REF,)),
    Fault("surface.edge_model_without_magnitude", "surface", _REF,
          "return float(add_hi(up(SURFACE_K * u * 21.0 * E + SURFACE_K * eta), math.sqrt(2.0 * eta) * (1 + 2 * U64)))",
          "return float(add_hi(up(SURFACE_K * u * 21.0 + SURFACE_K * eta), math.sqrt(2.0 * eta) * (1 + 2 * U64)))",
          "The edge continuity value model forgets the control magnitude E.",
          (_T_REF,)),
    # --- Oracle ------------------------------------------------------------------------------------
    Fault("surface.oracle_corner_graph_ignores_reversal", "surface", _ORACLE,
          "        if rev:\n            eb = eb[::-1]\n        for x, y in zip(ea, eb):",
          "        for x, y in zip(ea, eb):",
          "The oracle's corner graph links a reversed join's ends without crossing them.",
          (_T_ORACLE,)),
    Fault("surface.oracle_second_derivative_basis", "surface", _ORACLE,
          "_BASIS = [[_basis_coeffs(i), _deriv(_basis_coeffs(i)), _deriv(_deriv(_basis_coeffs(i)))] for i in range(4)]",
          "_BASIS = [[_basis_coeffs(i), _deriv(_basis_coeffs(i)), _deriv(_basis_coeffs(i))] for i in range(4)]",
          "The oracle's exact second-derivative basis is the first derivative's.",
          (_T_ORACLE,)),
    # --- Status contracts (issue 24): judged by surface.statuses
    Fault("surface.status_rebuild_drops_held_surface", "surface", _ADAPTER,
          "            if new is not None:\n                held = new\n",
          "            held = new\n",
          "A failed TryPrepareSurface drops the surface the owner held (a failed rebuild must keep the previous "
          "snapshot).",
          (_STATUSES,)),
    Fault("surface.status_max_spans_at_equality_refused", "surface", _REF,
          "if n > limits.max_spans:",
          "if n >= limits.max_spans:",
          "A source of exactly max_spans patches is refused (>= instead of >): a limit met with equality.",
          (_STATUSES,)),
    Fault("surface.status_prepared_bytes_at_equality_refused", "surface", _REF,
          "if size > limits.max_prepared_bytes:",
          "if size >= limits.max_prepared_bytes:",
          "A surface of exactly max_prepared_bytes is refused (>= instead of >).",
          (_STATUSES,)),
    Fault("surface.status_largest_patch_id_refused", "surface", _REF,
          "if not is_int(p.id) or not 0 <= p.id <= MAX_PATCH_ID:",
          "if not is_int(p.id) or not 0 <= p.id < MAX_PATCH_ID:",
          "The patch id 2^64 - 1, the largest u64, is refused as InvalidArgument (a valid request refused).",
          (_STATUSES,)),
]
