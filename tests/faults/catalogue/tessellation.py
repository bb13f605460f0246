"""Planted faults of the tessellation family (``reference/tessellation.py``,
``interval/tessellation.py``): the three cell-bound terms and their rounding, the refinement
direction and near-tie rules, shared-edge level agreement, the coarser-mesh report, bitwise
shared positions, triangle layout and the degeneracy policy."""

from tests.faults.harness import Fault

_REF = "reference/tessellation.py"
_ORACLE = "interval/tessellation.py"
_T_REF = "tests/reference/test_tessellation.py"
_T_CHECKS = "tests/oracles/test_tessellation_checks.py"
_T_ORACLE = "tests/interval/test_tessellation_oracle.py"
_STATUSES = _T_CHECKS + "::test_our_fast_path_meets_every_status_request"

FAULTS = [
    # --- The cell bound's three terms -----------------------------------------------------------
    Fault("tessellation.term1_dropped", "tessellation", _REF,
          "return add_hi(add_hi(t1, t2), t3)",
          "return add_hi(t2, t3)",
          "The cell bound leaves out term 1 (subpatch controls against the degree-elevated bilinear "
          "interpolant).",
          (_T_REF,)),
    Fault("tessellation.twist_over_eight", "tessellation", _REF,
          "t2 = mul_hi(hypot_hi(add_hi(up(np.abs(W)), e2)), 0.25)",
          "t2 = mul_hi(hypot_hi(add_hi(up(np.abs(W)), e2)), 0.125)",
          "The twist term is |P00 - P10 - P01 + P11| / 8 instead of / 4.",
          (_T_REF,)),
    Fault("tessellation.report_without_vertex_term", "tessellation", _REF,
          "b = float(np.max(cell_bounds(view.controls[p], lu, lv, vt)))",
          "b = float(np.max(cell_bounds(view.controls[p], lu, lv, 0.0)))",
          "The reported cell bound leaves out term 3 (the emitted vertices' rounding).",
          (_T_REF,)),
    Fault("tessellation.vertex_difference_nearest", "tessellation", _REF,
          "d = up(np.abs(out32.astype(np.float64) - val64))",
          "d = np.abs(out32.astype(np.float64) - val64)",
          "The vertex term's |fl32(x) - x~| is not rounded up.",
          (_T_REF,),
          equivalent="fl32(x~) and x~ have the same sign and lie within a factor two of each other (or "
                     "fl32(x~) is zero), so their float64 difference is exact (Sterbenz) and rounding it "
                     "up changes nothing"),
    Fault("tessellation.twist_norm_nearest", "tessellation", _REF,
          "t2 = mul_hi(hypot_hi(add_hi(up(np.abs(W)), e2)), 0.25)",
          "t2 = 0.25 * np.linalg.norm(np.abs(W) + e2, axis=-1)",
          "The twist term's norm and sum round to nearest instead of up.",
          (_T_REF,),
          equivalent="W~'s float64 error is at most 4e + 12 u (E + e) per component and e2 allows "
                     "4e + 48 u (E + e), so the 36 u (E + e) to spare exceeds what a nearest norm of a "
                     "vector below 4 sqrt(3) (E + e) can lose (2.5 u |.| < 18 u (E + e)); the bound stays valid"),
    # --- Refinement ------------------------------------------------------------------------------
    Fault("tessellation.direction_swapped", "tessellation", _REF,
          "                if bu < CLEAR_FACTOR * bv:\n                    lu += 1\n"
          "                elif bv < CLEAR_FACTOR * bu:\n                    lv += 1\n",
          "                if bu < CLEAR_FACTOR * bv:\n                    lv += 1\n"
          "                elif bv < CLEAR_FACTOR * bu:\n                    lu += 1\n",
          "Refinement splits the direction whose refinement gives the clearly larger bound.",
          (_T_REF,)),
    Fault("tessellation.near_tie_v_first", "tessellation", _REF,
          "elif lu <= lv:  # near-tie: the coarser direction, then u",
          "elif lu < lv:  # near-tie: the coarser direction, then u",
          "A near-tie between equal levels refines v instead of u.",
          (_T_REF,)),
    Fault("tessellation.near_tie_finer_first", "tessellation", _REF,
          "elif lu <= lv:  # near-tie: the coarser direction, then u",
          "elif lu >= lv:  # near-tie: the coarser direction, then u",
          "A near-tie refines the finer direction instead of the coarser one.",
          (_T_REF,)),
    Fault("tessellation.no_near_tie_band", "tessellation", _REF,
          "CLEAR_FACTOR = 0.875",
          "CLEAR_FACTOR = 1.0",
          "Any smaller normalized bound counts as clearly smaller: near-ties are decided by noise, not "
          "by the coarser-direction rule.",
          (_T_REF,)),
    Fault("tessellation.agreement_raises_one_side", "tessellation", _REF,
          "            for inc in (a, b):\n                if _along(levels, inc.patch, inc.side) < m:",
          "            for inc in (b,):\n                if _along(levels, inc.patch, inc.side) < m:",
          "Shared-edge agreement raises only the non-owner incidence to the larger level.",
          (_T_REF,)),
    # --- Coarser meshes and statuses -----------------------------------------------------------
    Fault("tessellation.coarser_reported_within", "tessellation", _REF,
          "bool(b <= target), first_v, cnt,",
          "bool(b <= target or profile.is_coarser_mesh_accepted), first_v, cnt,",
          "A coarser mesh that Visual accepted reports IsWithinPositionError = true.",
          (_T_REF,)),
    Fault("tessellation.coarser_reports_target", "tessellation", _REF,
          "b = float(np.max(cell_bounds(view.controls[p], lu, lv, vt)))",
          "b = min(float(np.max(cell_bounds(view.controls[p], lu, lv, vt))), target)",
          "A patch reports the requested position error instead of its achieved bound when it misses it.",
          (_T_REF,)),
    Fault("tessellation.strict_accepts_max_level", "tessellation", _REF,
          "if not ok and not profile.is_coarser_mesh_accepted:",
          "if not ok and profile.precision is PrecisionProfile.Visual and not profile.is_coarser_mesh_accepted:",
          "Strict keeps a grid that MaxLevel stopped instead of failing with BudgetExceeded.",
          (_T_REF,)),
    # --- Shared positions, triangles, degeneracy -------------------------------------------------
    Fault("tessellation.reversed_edge_samples_unmapped", "tessellation", _REF,
          "canon = ne - k if inc.is_reversed else k",
          "canon = k",
          "A reversed incidence takes the edge's samples in the canonical order instead of reversed.",
          (_T_REF,)),
    Fault("tessellation.vertices_evaluated_per_patch", "tessellation", _REF,
          "    vpos = positions[vidx]\n",
          "    from .context import F32\n"
          "    vpos = K.bicubic_point(F32, view.controls[vpatch], vpar[:, 0], vpar[:, 1])\n",
          "The vertex buffer re-evaluates each vertex on its own patch in float32 instead of copying its "
          "shared position bitwise.",
          (_T_REF,)),
    Fault("tessellation.other_diagonal", "tessellation", _REF,
          "cells = np.stack([np.stack([a00, a10, a11], -1), np.stack([a00, a11, a01], -1)], axis=-2)",
          "cells = np.stack([np.stack([a00, a10, a01], -1), np.stack([a10, a11, a01], -1)], axis=-2)",
          "Cells are split along the (u1, v0)-(u0, v1) diagonal.",
          (_T_REF,)),
    Fault("tessellation.reject_ignores_singular_normals", "tessellation", _REF,
          "        if np.any(singular):\n",
          "        if False:\n",
          "Reject does not fail on a singular vertex normal.",
          (_T_REF,)),
    Fault("tessellation.degenerate_pair_forgotten", "tessellation", _REF,
          "degenerate = eq(0, 1) | eq(1, 2) | eq(0, 2)",
          "degenerate = eq(0, 1) | eq(1, 2)",
          "A triangle whose first and third positions are equal is not counted as degenerate.",
          (_T_REF,)),
    # --- Oracle ------------------------------------------------------------------------------------
    Fault("tessellation.oracle_hull_from_corners", "tessellation", _ORACLE,
          "        ub = max(sq.ravel())\n        if ub <= c_sq:",
          "        ub = max(sq[0, 0], sq[n, 0], sq[0, m], sq[n, m])\n        if ub <= c_sq:",
          "The branch and bound's upper bound takes the box's corner values instead of every Bernstein "
          "coefficient (an interior maximum is missed).",
          (_T_ORACLE,)),
    Fault("tessellation.oracle_cos_upper_short", "tessellation", _ORACLE,
          "hi = sum(terms[:9], _ZERO)",
          "hi = sum(terms[:8], _ZERO)",
          "The upper bracket of cos ends with a negative Taylor term, so it lies below cos.",
          (_T_ORACLE,)),
    # --- Status contracts (issue 24): judged by tessellation.statuses
    Fault("tessellation.status_failed_build_clears_mesh", "tessellation", _REF,
          "    bad = _validate(profile)\n",
          "    mesh._view = None  # start from an empty output\n    bad = _validate(profile)\n",
          "A failed tessellation build that clears the previous mesh: the caller's mesh is emptied before the "
          "checks ('Every failure keeps the previous mesh').",
          (_STATUSES,)),
    Fault("tessellation.status_counts_at_equality_refused", "tessellation", _REF,
          "if counts[key] > getattr(limits, name):",
          "if counts[key] >= getattr(limits, name):",
          "A mesh of exactly max_vertices vertices (triangles, output bytes) is refused: a limit met with equality.",
          (_STATUSES,)),
    Fault("tessellation.status_cell_tests_at_equality_refused", "tessellation", _REF,
          "if self.tests + cells > limit:",
          "if self.tests + cells >= limit:",
          "A refinement that needs exactly max_cell_tests cell tests is refused (>= instead of >).",
          (_STATUSES,)),
    Fault("tessellation.status_max_level_at_equality_refused", "tessellation", _REF,
          "can_u, can_v = lu < top, lv < top",
          "can_u, can_v = lu < top - 1, lv < top - 1",
          "Refinement stops one level below max_level, so a patch that needs exactly max_level fails.",
          (_STATUSES,)),
    Fault("tessellation.status_floor_at_equality_refused", "tessellation", _REF,
          "if float(profile.position_error) < view.position_floor:",
          "if float(profile.position_error) <= view.position_floor:",
          "A position error exactly at the surface's position floor is refused as UnsupportedPrecision.",
          (_STATUSES,)),
    # --- the audit of 2026-12-06: the vertex normals were never claimed ---
    Fault("tessellation.vertex_normals_negated", "tessellation", _REF,
          "vertex_normals=readonly(normals.astype(np.float32))",
          "vertex_normals=readonly((-normals).astype(np.float32))",
          "mesh vertex normals point the other way (against Su x Sv)",
          (_T_CHECKS + "::test_vertex_normals_are_their_own_patch_s_unit_normal",)),
    Fault("tessellation.vertex_normals_of_patch_zero", "tessellation", _REF,
          "    try_sample_surface_normals(view, vpatch.astype(np.int64), vpar[:, 0].astype(np.float64),",
          "    try_sample_surface_normals(view, np.zeros_like(vpatch, dtype=np.int64), "
          "vpar[:, 0].astype(np.float64),",
          "every mesh vertex takes its normal from the first patch at its parameter, not its own patch",
          (_T_CHECKS + "::test_vertex_normals_are_their_own_patch_s_unit_normal",)),
]
