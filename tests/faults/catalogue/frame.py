"""Planted faults of transported frames (``reference/frame.py``) and of the frame oracle
(``interval/frame.py``), judged by the ``frame`` ledger family."""

from ..harness import Fault

_R = "reference/frame.py"
_I = "interval/frame.py"
_CHECKS = "tests/oracles/test_frame_checks.py"
_REF = "tests/reference/test_frame.py"
_KER = "tests/reference/test_frame_kernels.py"
_ORACLE = "tests/interval/test_frame_oracle.py"
_TWIST = "tests/interval/test_frame_twist_reference.py"
_ADAPTER = "oracles/families/frame/answers.py"
_STATUSES = _CHECKS + "::test_our_fast_path_meets_every_status_request"
_REQUESTS = "tests/oracles/test_requests.py::test_a_frame_evaluated_at_another_point_than_its_step_names_is_violated"

FAULTS = [
    # --- the regularity decision (Certified) ---
    Fault("frame.box_no_widening", "frame", _R,
          "two_e = 2.0 * subsegment_error_bound(P)", "two_e = 0.0 * subsegment_error_bound(P)",
          "the derivative box of an interval drops the subsegment rounding widening",
          ("tests/reference/test_frame_kernels.py::test_derivative_boxes_hold_the_exact_hodograph_far_from_the_origin",
           "tests/oracles/test_frame_checks.py::"
           "test_a_derivative_box_without_its_rounding_widening_is_refuted_on_the_far_valley")),
    Fault("frame.box_hypot_nearest", "frame", _R,
          "return hypot_lo(amin), hypot_hi(amax)",
          "return np.sqrt(np.sum(amin * amin, axis=-1)), hypot_hi(amax)",
          "the smallest norm of the derivative box is a round-to-nearest norm, not a lower bound",
          (_KER, _REF),
          equivalent="the level box's widening, at least 6 K u E_c 2^d per component (K >= 9), lowers the box "
                     "norm by more than 3 u |B'|, above round-to-nearest's 2 u error; the hodograph box (where the "
                     "level box cannot decide) has float32 controls, so where its polar form is exact the corner's "
                     "squares are exact and the nearest norm is two roundings (the sum, the root) that never pass "
                     "the smallest float64 at or above the exact norm (none in 200,000 random float32 corners, "
                     "2026-12-07), and where the polar form rounds its outward steps lower the corner by an ulp: "
                     "the nearest norm never exceeds the true smallest speed's float64 ceiling"),
    Fault("frame.regular_ge", "frame", _R,
          "regular = smin > ms", "regular = smin >= ms",
          "an interval whose derivative box reaches MinimumSpeed is called regular (>= for >)",
          (_REF,)),
    # --- singular ranges at the depth limit (2^-MaxDepth wide) ---
    Fault("frame.ranges_merged", "frame", _R,
          "        if out and out[-1][1] == p.a and not out[-1][2] and not p.depth_limited:\n"
          "            out[-1] = (out[-1][0], p.b, False)",
          "        if out and out[-1][1] == p.a:\n"
          "            out[-1] = (out[-1][0], p.b, out[-1][2] or p.depth_limited)",
          "adjacent depth-limited intervals merge into one range (the code before issue 23)",
          (_REF, _CHECKS)),
    Fault("frame.no_finer_box", "frame", _R,
          "= _speed_range(*_hodograph_boxes(P[undecided], a[undecided], b[undecided]))",
          "= _speed_range(*_derivative_boxes(P[undecided], a[undecided], b[undecided]))",
          "an interval the level box cannot decide is never decided with the hodograph's box, whose rounding "
          "does not grow like 2^depth: the neighbour of a non-dyadic cusp stays a range",
          (_REF, _CHECKS, _KER)),
    Fault("frame.hodograph_box_nearest", "frame", _R,
          "            tl, th = mul_range(wl, wh, cl, ch)\n"
          "            lo = tl if lo is None else add_lo(lo, tl)\n"
          "            hi = th if hi is None else add_hi(hi, th)\n",
          "            tl = th = wl * cl\n"
          "            lo = tl if lo is None else lo + tl\n"
          "            hi = th if hi is None else hi + th\n",
          "the hodograph box's polar form in plain float64 (each weight's lower end times each control's "
          "lower end, summed to nearest): its corners are computed values, not bounds",
          (_KER, _REF, _CHECKS)),
    Fault("frame.range_not_centred", "frame", _R,
          "            if ok[j] and ok[n + j]:",
          "            if False and ok[j] and ok[n + j]:",
          "two undecided intervals meeting at a dyadic cusp stay two ranges instead of one centred on it "
          "(each still 2^-MaxDepth wide and holding the cusp: the ledger cannot tell, the tests do)",
          (_REF,)),
    Fault("frame.slow_from_lower_bound", "frame", _R,
          "slow = ~regular & (smax <= ms)", "slow = ~regular & (smin <= ms)",
          "an interval is called certainly slow from the box's smallest norm instead of its largest",
          (_REF,)),
    # --- the double-reflection step ---
    Fault("frame.single_reflection", "frame", _R,
          "return _reflect_or_keep(rL, t1 - tL)", "return rL",
          "the step forgets the second reflection (only the chord reflection is applied)",
          (_KER, _REF)),
    Fault("frame.chord_from_positions", "frame", _R,
          "    return K.cubic_chord(F64, P, a, b)",
          "    return K.cubic_point(F64, P, b) - K.cubic_point(F64, P, a)",
          "a step's chord is the difference of two positions (the code before 2026-12-07): its direction "
          "carries rounding relative to the positions, and the evaluation across a sharp planar turn "
          "leaves the rounding allowance",
          (_CHECKS + "::test_an_evaluation_step_across_a_sharp_planar_turn_stays_within_the_rounding_allowance",)),
    Fault("frame.second_reflection_sign", "frame", _R,
          "return _reflect_or_keep(rL, t1 - tL)", "return _reflect_or_keep(rL, t1 + tL)",
          "the second reflection plane is normal to t1 + tL instead of t1 - tL",
          (_KER, _REF)),
    # --- acceptance and the estimate (Estimated) ---
    Fault("frame.accept_no_share", "frame", _R,
          "((ang <= tae * share) | (ang <= ROUNDING_FLOOR))", "((ang <= tae) | (ang <= ROUNDING_FLOOR))",
          "an interval is accepted against the whole TangentAngleError, not its share of the path",
          (_REF,)),
    Fault("frame.half_steps_from_seed", "frame", _R,
          "half = _settle(double_reflection(V[2], T[1], half, T[2]), T[2])",
          "half = _settle(double_reflection(V[2], T[1], r0, T[2]), T[2])",
          "the second half step starts from the first frame instead of the first half step's result",
          (_REF,)),
    Fault("frame.min_depth_one", "frame", _R,
          "MIN_DEPTH = 2", "MIN_DEPTH = 1",
          "acceptance from depth 1: the halves of a span can fool the one-versus-two-step comparison (the chain "
          "found by the thorough differential run: estimate 44 times below the true error)",
          (_CHECKS + "::test_limits_at_equality_and_one_past_follow_the_rule",)),
    Fault("frame.min_depth_zero", "frame", _R,
          "MIN_DEPTH = 2", "MIN_DEPTH = 0",
          "acceptance from depth 0: a whole span of a symmetric cubic (a helix quarter) fools the comparison",
          (_CHECKS + "::test_limits_at_equality_and_one_past_follow_the_rule",)),
    Fault("frame.estimate_no_max", "frame", _R,
          "estimate = float(np.sum(angles) + (np.max(angles) if m else 0.0))",
          "estimate = float(np.sum(angles))",
          "AngularErrorEstimate drops the largest interval angle (the sum only)",
          (_REF,)),
    # --- seeds ---
    Fault("frame.seed_sine_unnormalized", "frame", _R,
          "sine = float(np.sqrt(_dot(p, p)) / np.sqrt(_dot(s, s)))", "sine = float(np.sqrt(_dot(p, p)))",
          "the seed's sine is |p|, as if SeedUp were a unit vector",
          (_REF,)),
    Fault("frame.seed_single_projection", "frame", _R,
          "return success((_settle(_unit(p), t), fallback, sine))", "return success((_unit(p), fallback, sine))",
          "the seed is projected once (no second Gram-Schmidt pass), leaving t . n near u / sine",
          (_REF, "tests/differential/test_frame_differential.py")),
    Fault("frame.fallback_not_projected", "frame", _R,
          "for axis_name, fallback in ((\"seed_up\", False), (\"fallback_axis\", True)):",
          "for axis_name, fallback in ((\"seed_up\", False), (\"seed_up\", True)):",
          "UseFallbackAxis projects SeedUp again instead of FallbackAxis",
          (_REF,)),
    # --- joints and closed loops ---
    Fault("frame.g1_joint_split", "frame", _R,
          "                if g1 or prep.corner_policy is FrameCornerPolicy.RotateMinimally:\n"
          "                    r = _rotate_minimally(S.n[live], S.t[live], t)",
          "                if prep.corner_policy is FrameCornerPolicy.RotateMinimally:\n"
          "                    r = _rotate_minimally(S.n[live], S.t[live], t)",
          "a G1 joint follows the corner policy too (SplitRuns splits a smooth path)",
          (_REF,)),
    Fault("frame.corner_no_rotation", "frame", _R,
          "S.add(k, S.run[live], 0.0, x, t, _settle(r, t))",
          "S.add(k, S.run[live], 0.0, x, t, _settle(S.n[live], t))",
          "a joint is crossed by projecting the incoming normal instead of the minimal rotation",
          (_REF,)),
    Fault("frame.twist_sign", "frame", _R,
          "total_twist = -residual + 2.0 * math.pi * int(prep.winding_turns)",
          "total_twist = residual + 2.0 * math.pi * int(prep.winding_turns)",
          "DistributeTwist adds +ResidualTwist instead of -ResidualTwist",
          (_REF,)),
    Fault("frame.winding_pi", "frame", _R,
          "total_twist = -residual + 2.0 * math.pi * int(prep.winding_turns)",
          "total_twist = -residual + math.pi * int(prep.winding_turns)",
          "a winding turn adds pi instead of 2 pi",
          (_REF,)),
    Fault("frame.twist_not_interpolated", "frame", _R,
          "return tw + (tw1 - tw) * _arc_fraction(P, u0, u, u1)",
          "return tw",
          "evaluation applies the preceding sample's twist without interpolating to the next",
          (_REF, _TWIST)),
    Fault("frame.twist_linear_in_u", "frame", _R,
          "return tw + (tw1 - tw) * _arc_fraction(P, u0, u, u1)",
          "return tw + (tw1 - tw) * ((u - u0) / (u1 - u0))",
          "the twist between samples is interpolated linearly in u, not in proportion to distance",
          (_TWIST, _CHECKS)),
    Fault("frame.arc_fraction_unconverged", "frame", _R,
          "        if done or n >= _ARC_MAX_PIECES:",
          "        if True or n >= _ARC_MAX_PIECES:",
          "the arc-length share between samples stops at one Gauss-Legendre piece (no convergence test)",
          (_TWIST, _CHECKS)),
    Fault("frame.roll_sign", "frame", _R,
          "phi = _twist_at(path_view.controls[k].astype(np.float64), frames_view, j, u) + float(roll)",
          "phi = _twist_at(path_view.controls[k].astype(np.float64), frames_view, j, u) - float(roll)",
          "the caller's roll turns the normal clockwise about the tangent",
          (_REF,)),
    Fault("frame.residual_sign", "frame", _R,
          "residual = _signed_angle(N[0], _settle(r, T[0]), T[0])",
          "residual = _signed_angle(_settle(r, T[0]), N[0], T[0])",
          "the residual twist is measured from the transported last normal to the first (sign flipped)",
          (_REF,)),
    # --- the oracle ---
    Fault("frame.oracle_taylor_tolerance", "frame", _I,
          "tol2 = tol * tol",
          "tol2 = (tol * 1e12) ** 2",
          "the RMF Taylor series is truncated at a tolerance 1e12 times too loose",
          (_ORACLE,)),
    Fault("frame.oracle_joint_rotation", "frame", _I,
          "return _add(_add(_scale(c, v), _cross(w, v)), _scale(_dot(w, v) / (1 + c), w))",
          "return _add(_add(_scale(c, v), _cross(w, v)), _scale(_dot(w, v) / (1 - c), w))",
          "the oracle's minimal rotation divides by 1 - c instead of 1 + c",
          (_ORACLE,)),
    Fault("frame.oracle_bernstein_basis", "frame", _I,
          "return [sum(_mpq(_BINOM[j][i], _C4[i]) * g[i] for i in range(j + 1)) for j in range(5)]",
          "return [sum(_mpq(_BINOM[j][i], _C4[j]) * g[i] for i in range(j + 1)) for j in range(5)]",
          "the oracle's power-to-Bernstein conversion of |B'|^2 divides by the wrong binomial",
          (_ORACLE,)),
    # --- Status contracts (issue 24): judged by frame.statuses ---
    Fault("frame.status_rebuild_drops_held_frames", "frame", _ADAPTER,
          "            if got is not None:\n                held = got\n                builds.append(got)",
          "            held = got\n            if got is not None:\n                builds.append(got)",
          "a failed TryBuildFrames drops the frames the owner held (a failed rebuild must keep the previous "
          "snapshot)",
          (_STATUSES, _CHECKS + "::test_a_failed_rebuild_that_drops_the_frames_is_violated")),
    Fault("frame.status_max_depth_at_equality_refused", "frame", _R,
          "at_limit = depth >= limits.max_depth", "at_limit = depth + 1 >= limits.max_depth",
          "a build whose rule needs exactly max_depth is refused (the limit is reached one level early)",
          (_STATUSES,)),
    Fault("frame.status_subdivisions_at_equality_refused", "frame", _R,
          "        splits += split.size\n        if splits > limits.max_subdivisions:",
          "        splits += split.size\n        if splits >= limits.max_subdivisions:",
          "a build of exactly max_subdivisions interval splits is refused (>= instead of >)",
          (_STATUSES,)),
    Fault("frame.status_max_samples_at_equality_refused", "frame", _R,
          "if regular_count + len(starts) > limits.max_samples:",
          "if regular_count + len(starts) >= limits.max_samples:",
          "a build of exactly max_samples baked samples is refused (>= instead of >)",
          (_STATUSES,)),
    Fault("frame.status_prepared_bytes_at_equality_refused", "frame", _R,
          "if size > limits.max_prepared_bytes:", "if size >= limits.max_prepared_bytes:",
          "frames of exactly max_prepared_bytes are refused (>= instead of >)",
          (_STATUSES,)),
    Fault("frame.status_bytes_count_a_run_per_span", "frame", _R,
          "runs_needed = sum(1 for k, i in starts if not _continues(path, pieces, k, i, prep.corner_policy))",
          "runs_needed = len(starts)",
          "prepared bytes count a run per stretch of regular intervals (per span) instead of the runs the build "
          "makes: a path of several spans in one run is refused at its exact size (the code before issue 24)",
          (_STATUSES, _REF)),
    Fault("frame.status_frame_inside_range", "frame", _R,
          "    if u == frames.sample_u[j] or u <= frames.sample_next_u[j]:\n        return j\n    return None",
          "    if u == frames.sample_u[j] or u <= frames.sample_next_u[j]:\n        return j\n    return j",
          "evaluation inside a singular range transports the preceding sample across it and returns a frame "
          "instead of Degenerate (seen on frame.statuses even when the producer makes no claim of it)",
          (_STATUSES, _CHECKS + "::test_a_frame_inside_a_singular_range_is_violated_without_any_claim")),
    Fault("frame.status_near_reversal_refused", "frame", _R,
          "if not 1.0 + c > 0.0:", "if not 1.0 + c > 1e-3:",
          "RotateMinimally refuses a joint that turns by nearly pi (only an exact reversal fails)",
          (_STATUSES,)),
    # --- the audit of 2026-12-06 (value fields no checker judged) ---
    Fault("frame.sample_normal_unsettled", "frame", _R,
          "            S.add(k, S.run[live], p.b, x1, t1, _settle(r, t1))",
          "            S.add(k, S.run[live], p.b, x1, t1, r)",
          "a baked sample keeps the raw double-reflected normal (not projected perpendicular to the tangent "
          "and renormalized), so its length drifts along the run",
          (_REF + "::test_every_baked_normal_of_the_named_cases_is_a_unit_vector_within_6u",
           _CHECKS + "::test_baked_and_evaluated_normals_are_unit_vectors_within_16u")),
    Fault("frame.twist_on_preserved_holonomy", "frame", _R,
          "            if prep.closed_policy is ClosedFramePolicy.DistributeTwist:\n                total_twist",
          "            if True:\n                total_twist",
          "PreserveHolonomy distributes the twist too (the frames are not periodic, yet carry twist)",
          (_CHECKS + "::test_frames_that_are_not_periodic_add_no_twist",)),
    # --- the audit of 2026-12-06, afternoon (input and structure mutations) ---
    Fault("frame.holonomy_loop_not_closed", "frame", _R,
          "    if path.is_closed and len(runs) == 1 and runs[0][\"start\"] == SegmentParameter(0, 0.0) \\\n",
          "    if path.is_closed and prep.closed_policy is ClosedFramePolicy.DistributeTwist and len(runs) == 1 \\\n"
          "            and runs[0][\"start\"] == SegmentParameter(0, 0.0) \\\n",
          "PreserveHolonomy treats a closed path as open: no closed loop, no ResidualTwist reported",
          (_CHECKS + "::test_a_closed_path_baked_as_one_run_is_a_closed_loop",)),
    Fault("frame.g1_closing_joint_split", "frame", _R,
          "        if g1 or prep.corner_policy is FrameCornerPolicy.RotateMinimally:\n"
          "            r = _rotate_minimally",
          "        if prep.corner_policy is FrameCornerPolicy.RotateMinimally:\n            r = _rotate_minimally",
          "a G1 closing joint closes the loop only under RotateMinimally (SplitRuns leaves a smooth loop open)",
          (_CHECKS + "::test_a_closed_path_baked_as_one_run_is_a_closed_loop",)),
    Fault("frame.closing_corner_crossed_by_split_runs", "frame", _R,
          "        if g1 or prep.corner_policy is FrameCornerPolicy.RotateMinimally:\n"
          "            r = _rotate_minimally",
          "        if g1 or prep.corner_policy is not FrameCornerPolicy.Reject:\n            r = _rotate_minimally",
          "SplitRuns closes a loop across a corner at its closing joint (as RotateMinimally would)",
          (_CHECKS + "::test_a_closed_path_baked_as_one_run_is_a_closed_loop",)),
    Fault("frame.closing_corner_not_rejected", "frame", _R,
          "        if not g1 and prep.corner_policy is FrameCornerPolicy.Reject:\n            return failure("
          "GeometryStatus.DegenerateFrame, \"closing joint 0",
          "        if False:\n            return failure(GeometryStatus.DegenerateFrame, \"closing joint 0",
          "Reject lets a corner at the closing joint through (the build succeeds, the loop left open)",
          (_STATUSES,)),
    # --- the evaluated point (rule frame:evaluated_point, 2026-12-06 evening) ---
    Fault("frame.evaluate_side_ignored", "frame", _R,
          "r = resolve_parameter(path_view, parameter, BoundaryPolicy.Reject, side)",
          "r = resolve_parameter(path_view, parameter, BoundaryPolicy.Reject, SpanSide.Outgoing)",
          "evaluation ignores SpanSide: an Incoming call at a joint gets the outgoing span's frame at u = 0 "
          "(a right frame of another point than the call's)",
          (_REQUESTS,)),
    Fault("frame.evaluate_sides_swapped", "frame", _R,
          "r = resolve_parameter(path_view, parameter, BoundaryPolicy.Reject, side)",
          "r = resolve_parameter(path_view, parameter, BoundaryPolicy.Reject, SpanSide.Incoming if side is "
          "SpanSide.Outgoing else SpanSide.Outgoing)",
          "evaluation reads SpanSide backwards: Outgoing names the previous span at u = 1 and Incoming the next "
          "at u = 0",
          (_REQUESTS,)),
]
