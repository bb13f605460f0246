"""Planted faults of sweep meshes (``reference/sweep.py``) and of the sweep oracle
(``interval/sweep.py``), judged by the ``sweep`` ledger family."""

from ..harness import Fault

_R = "reference/sweep.py"
_I = "interval/sweep.py"
_CHECKS = "tests/oracles/test_sweep_checks.py"
_REF = "tests/reference/test_sweep.py"
_ORACLE = "tests/interval/test_sweep_oracle.py"
_ADAPTER = "oracles/families/sweep/answers.py"
_STATUSES = _CHECKS + "::test_our_fast_path_meets_every_status_request"

FAULTS = [
    # --- ring acceptance (Estimated longitudinal error) ---
    Fault("sweep.accept_no_midpoint", "sweep", _R,
          "e = _hull_distance(P, a, b) + dev", "e = _hull_distance(P, a, b)",
          "ring acceptance drops the section points' midpoint deviation (the hull term only)",
          (_REF,)),
    Fault("sweep.accept_no_hull", "sweep", _R,
          "e = _hull_distance(P, a, b) + dev", "e = dev",
          "ring acceptance drops the control hull's distance from the chord",
          (_REF,)),
    Fault("sweep.accept_no_twist", "sweep", _R,
          "dev += 0.25 * float(np.max(out))", "dev += 0.0 * float(np.max(out))",
          "ring acceptance drops the quad-twist term (a rolling ribbon's triangles leave the helicoid)",
          (_REF,)),
    Fault("sweep.hull_to_first_control", "sweep", _R,
          "        v = Q[i] - Q[0]\n        if cc > 0:",
          "        v = Q[i] - Q[0]\n        if False:",
          "the hull term measures the inner controls' distance from the chord's start point, "
          "not from the chord line (stricter: every claim stays valid, but the spec's rule fixes the ring "
          "count, and a straight path's limits met with equality are refused; equivalent before issue 24)",
          (_REF, _STATUSES)),
    # --- the section ---
    Fault("sweep.segments_one_short", "sweep", _R,
          "    while n > 3 and r_max * (1.0 - math.cos(math.pi / (n - 1))) <= err:\n        n -= 1",
          "    while n > 3 and r_max * (1.0 - math.cos(math.pi / (n - 1))) <= 1.5 * err:\n        n -= 1",
          "the fewest-segments search stops one short (a 1.5x loose sagitta test)",
          (_REF,)),
    Fault("sweep.segments_first_key", "sweep", _R,
          "r_max = max(float(k.scale) for k in req.profile)", "r_max = float(req.profile[0].scale)",
          "the polygon segments are chosen at the first profile key's scale, not the largest",
          (_REF,)),
    Fault("sweep.seam_u", "sweep", _R,
          "U = np.arange(nseg + 1) / nseg", "U = np.arange(nseg + 1) / (nseg + 1)",
          "tube U runs to N / (N + 1): the seam vertex does not carry U = 1",
          (_REF,)),
    # --- the profile ---
    Fault("sweep.profile_lerp_denominator", "sweep", _R,
          "t = (distance - d[i]) / (d[i + 1] - d[i])", "t = (distance - d[i]) / d[i + 1]",
          "profile interpolation divides by the next key's distance, not the key interval",
          (_REF,)),
    Fault("sweep.profile_clamp_end", "sweep", _R,
          "        return float(profile[-1].scale), float(profile[-1].roll)",
          "        return float(profile[-2 if len(profile) > 1 else -1].scale), "
          "float(profile[-2 if len(profile) > 1 else -1].roll)",
          "beyond the last key the profile clamps to the key before it",
          (_REF,)),
    # --- mesh rules ---
    Fault("sweep.cap_rim_recomputed", "sweep", _R,
          "cap[1:, 0:3] = ring[:nseg, 0:3]  # rim: the ring positions, bitwise",
          "cap[1:, 0:3] = plan.ring_position[end] + (plan.ring_scale[end] * c)[:, None] * plan.ring_normal[end] "
          "+ (plan.ring_scale[end] * s)[:, None] * plan.ring_binormal[end]",
          "Flat cap rims are recomputed from the frame instead of copying the ring positions bitwise",
          (_REF,)),
    Fault("sweep.start_cap_normal", "sweep", _R,
          "for end, sign in ((0, -1.0), (rep.ring_count - 1, 1.0)):",
          "for end, sign in ((0, 1.0), (rep.ring_count - 1, 1.0)):",
          "the start cap faces +T (into the tube) instead of -T",
          (_REF,)),
    Fault("sweep.closed_copy_whole_row", "sweep", _R,
          "rings[-1][:, 0:6] = rings[0][:, 0:6]", "rings[-1][:, 0:8] = rings[0][:, 0:8]",
          "a closed path's last ring copies the first ring's whole vertex rows, V = 0 instead of the total",
          (_REF,)),
    Fault("sweep.winding_inverted", "sweep", _R,
          "if plan.winding is SweepWinding.Clockwise:", "if plan.winding is SweepWinding.CounterClockwise:",
          "triangles are flipped for CounterClockwise instead of Clockwise",
          (_REF,)),
    # --- the risk count (Estimated) ---
    Fault("sweep.ribbon_half_extent", "sweep", _R,
          "half = scale if tube else 0.5 * scale", "half = scale",
          "a ribbon's half-extent is its full width",
          (_REF,)),
    Fault("sweep.curvature_speed_squared", "sweep", _R,
          "return float(np.sqrt(np.dot(x, x))) / sp**3", "return float(np.sqrt(np.dot(x, x))) / sp**2",
          "the curvature divides |B' x B''| by |B'|^2 instead of |B'|^3",
          (_REF,)),
    # --- emission ---
    Fault("sweep.emit_capacity_off_by_one", "sweep", _R,
          "    if vertices.shape[0] < rep.vertex_count:",
          "    if vertices.shape[0] < rep.vertex_count - 1:",
          "emission accepts a vertex array one row short and fails while writing",
          (_REF,)),
    # --- the oracle ---
    Fault("sweep.oracle_curvature_square", "sweep", _I,
          "return sp, K.norm(ctx, K.cross(ctx, d, dd)) / (sp * sp * sp) * h",
          "return sp, K.norm(ctx, K.cross(ctx, d, dd)) / (sp * sp) * h",
          "the oracle's curvature (at a ring and between two rings) divides by |B'|^2",
          (_ORACLE,)),
    Fault("sweep.oracle_section_angle", "sweep", _I,
          "a = 2 * iv.pi * j / segments", "a = iv.pi * j / segments",
          "the oracle's section angles span half a turn",
          (_ORACLE,)),
    # --- Status contracts (issue 24): judged by sweep.statuses ---
    Fault("sweep.status_failed_replan_drops_plan", "sweep", _ADAPTER,
          "            if got is not None:\n                held = got\n",
          "            held = got\n",
          "a failed TryPlanSweepMesh drops the plan the owner held (a failed rebuild must keep the previous "
          "snapshot)",
          (_STATUSES, _CHECKS + "::test_a_failed_replan_that_drops_the_plan_is_violated")),
    Fault("sweep.status_failed_emission_writes", "sweep", _R,
          "    rep = plan_view.report\n    if vertices.shape[0] < rep.vertex_count:",
          "    rep = plan_view.report\n    vertices[:1] = 0.0\n    if vertices.shape[0] < rep.vertex_count:",
          "emission clears the first vertex row before checking the capacities, so a failed emission changes "
          "the caller's arrays",
          (_STATUSES,)),
    Fault("sweep.status_emit_capacity_at_equality_refused", "sweep", _R,
          "    if vertices.shape[0] < rep.vertex_count:", "    if vertices.shape[0] <= rep.vertex_count:",
          "emission into arrays of exactly the report's vertex count is CapacityExceeded",
          (_STATUSES,)),
    Fault("sweep.status_segments_at_equality_refused", "sweep", _R,
          "    if n > limit:\n        return None\n    return n, r_max",
          "    if n >= limit:\n        return None\n    return n, r_max",
          "a tube of exactly max_section_segments segments is refused (>= instead of >)",
          (_STATUSES,)),
    Fault("sweep.status_vertex_count_at_equality_refused", "sweep", _R,
          "if vcount > req.max_vertex_count:", "if vcount >= req.max_vertex_count:",
          "a plan of exactly max_vertex_count vertices is CapacityExceeded (>= instead of >)",
          (_STATUSES,)),
    Fault("sweep.status_index_count_at_equality_refused", "sweep", _R,
          "if icount > req.max_index_count:", "if icount >= req.max_index_count:",
          "a plan of exactly max_index_count indices is CapacityExceeded (>= instead of >)",
          (_STATUSES,)),
    Fault("sweep.status_max_depth_at_equality_refused", "sweep", _R,
          "if depth + 1 > limits.max_depth:", "if depth + 1 >= limits.max_depth:",
          "rings whose intervals need exactly max_depth are refused (the limit is reached one level early)",
          (_STATUSES,)),
    Fault("sweep.status_max_samples_at_equality_refused", "sweep", _R,
          "if len(rings) + 1 > limits.max_samples:", "if len(rings) + 1 >= limits.max_samples:",
          "a plan of exactly max_samples rings is refused (>= instead of >)",
          (_STATUSES,)),
    Fault("sweep.tube_roll_ignored", "sweep", _R,
          "        f = try_evaluate_frame(self.path, self.frames, SegmentParameter(k, u), roll,",
          "        f = try_evaluate_frame(self.path, self.frames, SegmentParameter(k, u), "
          "roll if self.ribbon else 0.0,",
          "a tube's rings ignore the profile's roll (the polygon and its U seam do not turn)",
          (_CHECKS + "::test_ring_vertices_sit_at_their_angles_turned_by_the_profile_s_roll",)),
    Fault("sweep.roll_ignored", "sweep", _R,
          "        f = try_evaluate_frame(self.path, self.frames, SegmentParameter(k, u), roll,",
          "        f = try_evaluate_frame(self.path, self.frames, SegmentParameter(k, u), 0.0,",
          "the rings ignore the profile's roll",
          (_REF,)),
    Fault("sweep.ring_distance_by_parameter", "sweep", _R,
          "        s = float(d.value.estimate)\n        scale, roll = profile_at(self.req.profile, s)",
          "        s = float(self.dmap.total_estimate) * (k + u) / self.path.span_count\n"
          "        scale, roll = profile_at(self.req.profile, s)",
          "ring distances (V, and the profile's argument) are laid out in proportion to the parameter, not the "
          "estimated arc length",
          (_CHECKS + "::test_ring_distances_are_the_arc_length_within_distance_error",)),
    # --- the audit of 2026-12-06 (value fields no checker judged) ---
    Fault("sweep.cap_v_start_ring", "sweep", _R,
          "cap[:, 7] = plan.ring_distance[end]", "cap[:, 7] = plan.ring_distance[0]",
          "both Flat caps carry the start ring's V: the end cap's vertices say 0, not the total length",
          (_CHECKS + "::test_a_cap_vertex_carries_its_end_ring_s_v",)),
]
