"""Planted faults of the triangle-surface family (spec 004): the binary64 scan's bands,
selection, ambiguity policy, admission and error model (``reference/triangle_surface.py``), and
the exact contact oracle (``interval/triangle.py``).

Each fault is a mistake a real implementer makes; the ledger (``--family triangle``) must see it
through a claim the spec defines: a hit inside a band it should have rejected (band
conformance), a miss where a facet is forced to be a hit or ambiguous, a later or higher-index
hit (the earliest rule), an unjustified or missing rejection (ambiguity row), a wrong normal or
facing, or a surface that should not have been admitted.
"""

from __future__ import annotations

from tests.faults.harness import Fault

_REF = "reference/triangle_surface.py"
_ORC = "interval/triangle.py"

_CHECKS = "tests/oracles/test_triangle_checks.py"
_DIFF = "tests/differential/test_triangle_differential.py"
_CONTRACT = "tests/contract/test_collision_contract.py"
_UNIT = "tests/reference/test_triangle_surface.py"
_ORACLE = "tests/interval/test_triangle_oracle.py"
_REQ = "tests/oracles/test_triangle_requests.py"

FAULTS = [
    # --- bands ---------------------------------------------------------------------------------
    Fault("triangle.t_band_no_rounding", "triangle", _REF,
          "bt = tol + rt", "bt = tol + 0 * rt",
          "the parameter band at 0 and 1 is the tolerance alone, without the parameter's rounding bound R_t",
          (_DIFF, _CHECKS)),
    Fault("triangle.weight_band_no_rounding", "triangle", _REF,
          "b1, b2, b0 = tol + r1, tol + r2, tol + r0", "b1, b2, b0 = tol, tol, tol",
          "the weight bands are the tolerance alone, without the weights' rounding bounds R_l",
          (_DIFF, _CHECKS)),
    Fault("triangle.tolerance_band_narrowed", "triangle", _REF,
          "tol = float(self._settings.tolerance)", "tol = float(self._settings.tolerance) / 16",
          "every query band uses a sixteenth of the declared tolerance (a per-axis / squared-unit mixup)",
          (_DIFF, _CHECKS, _CONTRACT)),
    Fault("triangle.segment_ends_no_band", "triangle", _REF,
          "t_out = (tc < -bt) | (tc > 1 + bt)", "t_out = (tc < 0) | (tc > 1)",
          "a parameter just outside [0, 1] is a miss at once, instead of ambiguous within the band",
          (_DIFF, _CHECKS)),
    Fault("triangle.weights_out_no_band", "triangle", _REF,
          "l_out = (l1 < -b1) | (l2 < -b2) | (l0 < -b0)", "l_out = (l1 < 0) | (l2 < 0) | (l0 < 0)",
          "any negative computed weight is a miss (an edge hit can fall through the crack between two facets)",
          (_DIFF, _CHECKS, _CONTRACT)),
    Fault("triangle.end_boundary_unbanded", "triangle", _REF,
          "t_amb = _near(tc, bt) | _near(tc - 1, bt)", "t_amb = _near(tc, bt)",
          "only the start of the segment has an uncertainty band; a contact within the band of its end is published",
          (_DIFF, _CHECKS)),
    Fault("triangle.exact_zero_rejected", "triangle", _REF,
          "return (x != 0) & (np.abs(x) <= band)", "return np.abs(x) <= band",
          "exactly represented 0 / 1 boundary values are treated as inside the band (the spec accepts them)",
          (_CONTRACT, _CHECKS)),
    # --- error model -----------------------------------------------------------------------------
    Fault("triangle.weight_model_no_offset_error", "triangle", _REF,
          "base = (8.2 * U * zinf + 2.1 * rho / mc) / ack", "base = (8.2 * U * zinf) / ack",
          "the weights' bound leaves out the contact offset's error rho (the parameter's error carried along d)",
          (_DIFF, _CHECKS)),
    Fault("triangle.height_model_no_normal_error", "triangle", _REF,
          "th = 1.001 * rec[r, _RTH] + 6 * U", "th = 0 * rec[r, _RTH] + 6 * U",
          "the heights' error bound leaves out the unit normal's error theta (only the dot product's rounding)",
          (_DIFF, _CHECKS)),
    Fault("triangle.t_model_no_start_height", "triangle", _REF,
          "rt = ((eta_s + t_up * (eta + U * ad)) / ad", "rt = ((0 * eta_s + t_up * (eta + U * ad)) / ad",
          "the parameter's bound leaves out the start height's own error (first term of R_t)",
          (_DIFF, _CHECKS)),
    # --- near-parallel and coplanar --------------------------------------------------------------
    Fault("triangle.parallel_without_tolerance", "triangle", _REF,
          "par = adc <= tol * q.dn + 4 * eta + 4 * U * adc", "par = adc <= 4 * eta + 4 * U * adc",
          "the near-parallel test uses only the rounding bound, not the declared tolerance",
          (_DIFF, _CHECKS)),
    Fault("triangle.coplanar_is_miss", "triangle", _REF,
          "return _PARALLEL, nan, nan, nan, nan, nan  # coplanar or near-parallel overlap",
          "return _MISS, nan, nan, nan, nan, nan  # coplanar or near-parallel overlap",
          "a coplanar or near-parallel segment overlapping a facet is a miss (a segment in the plane never crosses it)",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.separation_no_band", "triangle", _REF,
          "sep |= (shi < tlo - band) | (slo > thi + band)", "sep |= (shi <= tlo) | (slo >= thi)",
          "the 2D separating-axis test of near-parallel segments has no band and counts touching as separated",
          (_CONTRACT, _CHECKS, _DIFF)),
    Fault("triangle.normal_bound_ignores_conditioning", "triangle", _REF,
          "theta = NORMAL_K * U / (g - G_SLACK * U) * _SAFETY", "theta = NORMAL_K * U * _SAFETY + 0 * g",
          "the unit normal's error bound is taken as a multiple of u, not of u / g (a wrong exponent: slivers' "
          "normals are far less accurate)",
          (_DIFF, _CHECKS)),
    # --- rejection, selection and policy ---------------------------------------------------------
    Fault("triangle.box_test_strict", "triangle", _REF,
          "(rec[r, _RLO] <= q.hi[0]) & (rec[r, _RLO + 1] <= q.hi[1]) & (rec[r, _RLO + 2] <= q.hi[2])",
          "(rec[r, _RLO] < q.hi[0]) & (rec[r, _RLO + 1] < q.hi[1]) & (rec[r, _RLO + 2] < q.hi[2])",
          "the segment/facet axis-bound rejection uses strict comparisons: boxes that touch are culled",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.tie_keeps_last", "triangle", _REF,
          "if best < 0 or t < bt:", "if best < 0 or t <= bt:",
          "exact parameter ties keep the highest triangle index instead of the lowest",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.first_index_not_earliest", "triangle", _REF,
          "if best < 0 or t < bt:", "if best < 0:",
          "the lowest-index hit is returned instead of the smallest parameter",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.hierarchy_tie_keeps_higher", "triangle", _REF,
          "if best < 0 or t < bt or (t == bt and f < best):", "if best < 0 or t < bt or (t == bt and f > best):",
          "the hierarchy's reduction of candidate facets keeps the higher index on an exact parameter tie",
          (_CONTRACT, _UNIT)),
    Fault("triangle.ambiguous_publishes_other_hit", "triangle", _REF,
          "        elif code != _MISS:\n            return f, code, -1,",
          "        elif code != _MISS and best < 0:\n            return f, code, -1,",
          "an ambiguous facet after a hit in index order no longer rejects the query (publishing that hit can "
          "skip an earlier contact)",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.ambiguous_candidate_is_hit", "triangle", _REF,
          "am = l_amb | t_amb", "am = l_amb & t_amb",
          "a candidate inside its parameter band or a weight band (not both) is reported as a clean hit",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.position_t_float32", "triangle", _REF,
          "pos = q.s + t * q.d", "pos = q.s + np.float32(t) * q.d",
          "the hit position is evaluated with the parameter narrowed to float32 (a GPU port's habit)",
          (_CONTRACT, _CHECKS)),
    # --- normal, facing, barycentric solve --------------------------------------------------------
    Fault("triangle.facing_flipped", "triangle", _REF,
          "facing=Facing.Front if dc > 0 else Facing.Back", "facing=Facing.Front if dc < 0 else Facing.Back",
          "Front/Back taken with the wrong sign of n . d",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.normal_not_normalized", "triangle", _REF,
          "normal = cr / g[:, None]", "normal = cr",
          "the reported normal is the scaled cross product, not normalized",
          (_CONTRACT, _CHECKS)),
    Fault("triangle.drops_smallest_axis", "triangle", _REF,
          "k = np.argmax(np.abs(normal), axis=1)", "k = np.argmin(np.abs(normal), axis=1)",
          "the 2D barycentric solve drops the smallest normal axis instead of the dominant one",
          (_CONTRACT, _CHECKS)),
    # --- admission ---------------------------------------------------------------------------------
    Fault("triangle.admits_ill_conditioned", "triangle", _REF,
          "weak = g <= tol", "weak = g <= 64 * U",
          "admission compares the normalized cross product with a fixed rounding floor, not the declared tolerance",
          (_UNIT, _CONTRACT)),
    Fault("triangle.admission_scale_first_edge", "triangle", _REF,
          "m = np.maximum(np.max(np.abs(e1), axis=1), np.max(np.abs(e2), axis=1))",
          "m = np.max(np.abs(e1), axis=1)",
          "admission scales both edges by the first edge's largest component only (a short first edge "
          "inflates the normalized cross product)",
          (_UNIT, _CONTRACT)),
    # --- statuses (triangle.statuses: each request's expected status, decided by the oracle) -------------
    Fault("triangle.status_omits_ambiguity", "triangle", _REF,
          "        elif code != _MISS:\n            return f, code, -1, np.nan",
          "        elif code == _PARALLEL:\n            return f, code, -1, np.nan",
          "the linear scan rejects a query only for a coplanar or near-parallel overlap: a facet inside a "
          "parameter, weight or far band is skipped and another facet's hit (or a miss) is published, a first-hit "
          "answer that omits a required ambiguity",
          (_REQ, _CONTRACT, _CHECKS)),
    Fault("triangle.status_hierarchy_omits_ambiguity", "triangle", _REF,
          "            if amb is not None:\n                return _ambiguous(*amb)",
          "            if amb is not None and best is None:\n                return _ambiguous(*amb)",
          "the facet hierarchy publishes its best hit although one of its candidates is ambiguous (a first-hit "
          "answer that omits a required ambiguity, on surfaces of 1024 facets and more)",
          (_REQ, _CONTRACT, _UNIT)),
    Fault("triangle.status_capacity_equality_refused", "triangle", _REF,
          "if verts.shape[0] > settings.max_vertices:", "if verts.shape[0] >= settings.max_vertices:",
          "admission refuses a surface whose vertex count meets max_vertices with equality (a limit met with "
          "equality refused)",
          (_REQ, _CONTRACT)),
    Fault("triangle.status_min_tolerance_refused", "triangle", _REF,
          "not MIN_TOLERANCE <= float(tol) <= MAX_TOLERANCE", "not MIN_TOLERANCE < float(tol) <= MAX_TOLERANCE",
          "the smallest supported tolerance, 32 binary64 epsilons, is refused as InvalidArgument (a valid request "
          "refused)",
          (_REQ, _UNIT)),
    # --- the oracle (interval/triangle.py) ----------------------------------------------------------
    Fault("triangle.oracle_parameter_sign", "triangle", _ORC,
          "t = hs / (hs - he)", "t = hs / (he - hs)",
          "the exact crossing parameter with the wrong sign of the height difference",
          (_ORACLE,)),
    Fault("triangle.oracle_weight_cross_order", "triangle", _ORC,
          "l2 = _dot(_cross(f.e1, w), f.normal) / f.norm2", "l2 = _dot(_cross(w, f.e1), f.normal) / f.norm2",
          "the third weight's triple product with its cross product reversed",
          (_ORACLE,)),
    Fault("triangle.oracle_sqrt_up_not_up", "triangle", _ORC,
          "return _mpq(r + 1, scale)", "return _mpq(r, scale)",
          "the square root's upper bound is the truncated root (not rounded up)",
          (_ORACLE,)),
    Fault("triangle.oracle_depth_ends_only", "triangle", _ORC,
          "return max(min(c + k * t for c, k in pieces) for t in cands)",
          "return max(min(c + k * t for c, k in pieces) for t in (t0, t1))",
          "the coplanar depth (a concave piecewise-linear maximum) is sought at the ends of the contact set only",
          (_ORACLE,)),
    Fault("triangle.oracle_axis_two_vertices", "triangle", _ORC,
          "axis = next((k for k in range(3) if A[k] == B[k] == C[k]), None)",
          "axis = next((k for k in range(3) if A[k] == B[k]), None)",
          "a facet counts as axis-aligned when two vertices share a coordinate (the exactness clause misapplied)",
          (_ORACLE,)),
    Fault("triangle.oracle_nearest_truncates", "triangle", _ORC,
          "return int(q.numerator) / int(q.denominator)", "return float(gmpy2.mpfr(q, 53))",
          "the nearest float of a rational through an mpfr of the context's rounding, not Python's exact division",
          (_ORACLE,)),
    Fault("triangle.oracle_boundary_not_contact", "triangle", _ORC,
          "inside = _Q0 <= t <= _Q1 and min(lam) >= 0", "inside = _Q0 < t < _Q1 and min(lam) > 0",
          "contacts on a facet edge or at a segment end are not contacts (strict inequalities)",
          (_ORACLE,)),
    Fault("triangle.oracle_coplanar_constant_weight", "triangle", _ORC,
          "        elif x < 0:\n            lo, hi = _Q1, _Q0\n",
          "",
          "a coplanar segment along which one weight is constant and negative still gets a contact interval",
          (_ORACLE,)),
]
