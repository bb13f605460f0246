"""Planted faults of distance maps and arc length: the fast path (``reference/distance.py`` and
the outward-rounding helpers of ``reference/fp.py`` it uses) and the two arc-length oracles
(``interval/arclength.py``, Taylor with a Cauchy remainder; ``interval/arb_arclength.py``,
Arb's Gauss-Legendre integration). Judged by ``python -m oracles ledger --family distance``.

Equivalent faults (listed, not scored) drop one-ulp outward rounding where the a-priori
subsegment widening already leaves far more room: every chord and leg component is widened by
``2 e = 32 u M`` (M the span's largest control magnitude in that component), at least 16 ulps
of the component itself, while a round-to-nearest norm or sum is off by at most about 3 ulps of
its result and a prefix sum by ``ceil(log2 m)`` ulps of the prefix over m leaves (m < 2^16 in
every map the corpus builds): the bound moves by less than the widening's slack and stays
valid."""

from __future__ import annotations

from ..harness import Fault

_F = "reference/distance.py"
_FP = "reference/fp.py"
_O = "interval/arclength.py"
_A = "interval/arb_arclength.py"
_REF = "tests/reference/test_distance.py"
_CHK = "tests/oracles/test_distance_checks.py"
_DIFF = "tests/differential/test_distance_differential.py"
_ADAPTER = "oracles/families/distance/answers.py"
_STATUSES = _CHK + "::test_our_fast_path_meets_every_status_request"
_TAY = "tests/interval/test_arclength.py"
_ARB = "tests/interval/test_arb_arclength.py"

# The split loop's limit checks, unchanged by the fault; it changes which leaf is taken and how.
_SPLIT_LIMITS = ('        key = (top[1], top[2], top[3])\n'
                 '        depth = leaves.depth[key]\n'
                 '        if splits >= limits.max_subdivisions:\n'
                 '            return exhausted("max_subdivisions", limits.max_subdivisions)\n'
                 '        if m + 1 > limits.max_leaves:\n'
                 '            return exhausted("max_leaves", limits.max_leaves)\n'
                 '        if depth >= limits.max_depth:\n'
                 '            return exhausted("max_depth", limits.max_depth)\n'
                 '        if distance_map_bytes(m + 1, n) > limits.max_prepared_bytes:\n'
                 '            return exhausted("max_prepared_bytes", limits.max_prepared_bytes)\n')
_SPLIT_OLD = ('        top = leaves.heap[0]\n'
              + _SPLIT_LIMITS
              + '        key, depth = leaves.pop()\n')
_SPLIT_NEW = ('        top = max((h for h in leaves.heap if h[0] == leaves.heap[0][0]), key=lambda h: h[1:])\n'
              + _SPLIT_LIMITS
              + '        leaves.heap.remove(top)  # the later of tied leaves, taken out of the heap by hand\n'
              '        heapq.heapify(leaves.heap)\n'
              '        leaves.running_gap += top[0]\n'
              '        depth = leaves.depth.pop(key)\n')

_WIDEN = ("equivalent: the subsegment widening (2 e = 32 u M per component, at least 16 ulps of the "
          "component) exceeds the rounding this drops (a few ulps), so the bound stays valid")

FAULTS = [
    # --- Leaf brackets: the chord lower bound and the control-polygon upper bound -------------
    Fault("distance.chord_without_widening", "distance", _F,
          "    clo = sub_lo(sub_lo(Q[..., 3, :], Q[..., 0, :]), two_e)\n"
          "    chi = add_hi(sub_hi(Q[..., 3, :], Q[..., 0, :]), two_e)",
          "    clo = sub_lo(Q[..., 3, :], Q[..., 0, :])\n"
          "    chi = sub_hi(Q[..., 3, :], Q[..., 0, :])",
          "The chord lower bound from the computed sub-curve controls without their subsegment error widening.",
          (_REF,)),
    Fault("distance.polygon_without_widening", "distance", _F,
          "    llo = sub_lo(sub_lo(Q[..., 1:, :], Q[..., :-1, :]), two_e[..., None, :])\n"
          "    lhi = add_hi(sub_hi(Q[..., 1:, :], Q[..., :-1, :]), two_e[..., None, :])",
          "    llo = sub_lo(Q[..., 1:, :], Q[..., :-1, :])\n"
          "    lhi = sub_hi(Q[..., 1:, :], Q[..., :-1, :])",
          "The control-polygon upper bound from the computed sub-curve controls without their widening.",
          (_REF,)),
    Fault("distance.chord_straddle_not_zero", "distance", _F,
          "    amin = np.where(clo > 0, clo, np.where(chi < 0, -chi, 0.0))",
          "    amin = np.minimum(np.abs(clo), np.abs(chi))",
          "The chord's smallest |component| taken as min(|lo|, |hi|) even when the interval straddles zero.",
          (_REF,)),
    Fault("distance.legs_smallest_magnitude", "distance", _F,
          "    legs = hypot_hi(np.maximum(np.abs(llo), np.abs(lhi)))  # (m, 3)",
          "    legs = hypot_hi(np.minimum(np.abs(llo), np.abs(lhi)))  # (m, 3)",
          "Each polygon leg from the smaller end of its widened components (the chord's rule copied).",
          (_REF,)),
    Fault("distance.chord_norm_nearest", "distance", _F,
          "    lower = hypot_lo(amin)",
          "    lower = np.sqrt(np.sum(amin * amin, axis=-1))",
          "The chord lower bound's norm rounded to nearest instead of downward.",
          (_REF,), equivalent=_WIDEN),
    Fault("distance.polygon_sum_nearest", "distance", _F,
          "    upper = add_hi(add_hi(legs[..., 0], legs[..., 1]), legs[..., 2])",
          "    upper = legs[..., 0] + legs[..., 1] + legs[..., 2]",
          "The control polygon's three legs summed to nearest instead of upward.",
          (_REF,), equivalent=_WIDEN),
    # --- fp helpers the brackets use (reference/fp.py) ------------------------------------------
    Fault("distance.fp_hypot_hi_nearest", "distance", _FP,
          "    return sqrt_hi(_sum_squares(np.abs(v), mul_hi, add_hi))",
          "    return np.sqrt(_sum_squares(np.abs(v), np.multiply, np.add))",
          "fp.hypot_hi (every polygon leg) is a round-to-nearest norm.",
          (_REF, "tests/reference/test_fp.py"), equivalent=_WIDEN),
    Fault("distance.fp_hypot_lo_nearest", "distance", _FP,
          "    return sqrt_lo(_sum_squares(np.abs(v), mul_lo, add_lo))",
          "    return np.sqrt(_sum_squares(np.abs(v), np.multiply, np.add))",
          "fp.hypot_lo (every chord) is a round-to-nearest norm.",
          (_REF, "tests/reference/test_fp.py"), equivalent=_WIDEN),
    Fault("distance.fp_add_hi_nearest", "distance", _FP,
          '    """A float64 upper bound of the exact ``a + b``. Certified."""\n    return up(np.add(a, b))',
          '    """A float64 upper bound of the exact ``a + b``. Certified."""\n    return np.add(a, b)',
          "fp.add_hi (prefix uppers, polygon sums, widened leg ends) rounds to nearest.",
          (_REF, "tests/reference/test_fp.py"),
          equivalent="equivalent for distance: each leaf upper carries at least 16 ulps of widening slack and a "
                     "nearest prefix sum loses at most ceil(log2 m) ulps over m < 2^16 leaves"),
    Fault("distance.fp_sub_lo_nearest", "distance", _FP,
          '    """A float64 lower bound of the exact ``a - b``. Certified."""\n    return down(np.subtract(a, b))',
          '    """A float64 lower bound of the exact ``a - b``. Certified."""\n    return np.subtract(a, b)',
          "fp.sub_lo (the widened chord and leg lower ends) rounds to nearest.",
          (_REF, "tests/reference/test_fp.py"), equivalent=_WIDEN),
    # --- Prefix sums and the build --------------------------------------------------------------
    Fault("distance.prefix_lower_nearest", "distance", _F,
          "    pl = np.concatenate([[0.0], _outward_prefix_sums(lower, add_lo)])",
          "    pl = np.concatenate([[0.0], np.cumsum(lower)])",
          "Prefix lower bounds summed with a plain float cumulative sum instead of downward rounding.",
          (_REF,),
          equivalent="equivalent: each leaf lower bound is below its chord by the widening (at least 16 ulps of "
                     "the chord), far more than a nearest running sum over the corpus' maps loses"),
    Fault("distance.prefix_upper_rounded_down", "distance", _F,
          "    pu = np.concatenate([[0.0], _outward_prefix_sums(upper, add_hi)])",
          "    pu = np.concatenate([[0.0], _outward_prefix_sums(upper, add_lo)])",
          "Prefix upper bounds summed with downward rounding (add_lo for add_hi).",
          (_REF,),
          equivalent="equivalent: each leaf upper bound is above the polygon by the widening (at least 16 ulps), "
                     "more than ceil(log2 m) downward ulps of the prefix remove"),
    Fault("distance.gap_recheck_skipped", "distance", _F,
          "                if sub_hi(pu[-1], pl[-1]) <= target:",
          "                if True:",
          "The build accepts on its running float sum of gaps without rechecking the path-order Certified gap.",
          (_REF,)),
    Fault("distance.recheck_rounded_down", "distance", _F,
          "                if sub_hi(pu[-1], pl[-1]) <= target:",
          "                if sub_lo(pu[-1], pl[-1]) <= target:",
          "The path-order recheck rounds the Certified gap TotalUpper - TotalLower down instead of up.",
          (_REF,)),
    Fault("distance.split_not_at_midpoint", "distance", _F,
          "        mid = 0.5 * (a + b)\n        children = [(s, a, mid), (s, mid, b)]",
          "        mid = a + (b - a) / 3\n        children = [(s, a, mid), (s, mid, b)]",
          "A leaf is split at a third of its range instead of its parameter midpoint.",
          (_REF,)),
    Fault("distance.split_tie_later_span", "distance", _F,
          _SPLIT_OLD, _SPLIT_NEW,
          "Among leaves with equal largest gaps the later span (and parameter) is split first.",
          (f"{_REF}::test_largest_gap_splits_first_and_ties_go_to_the_earlier_span",)),
    # --- Resolution (TryResolveDistance) --------------------------------------------------------
    Fault("distance.lookup_last_equal_boundary", "distance", _F,
          '    j = m if s == total else int(np.searchsorted(pe, s, side="left"))',
          '    j = m if s == total else int(np.searchsorted(pe, s, side="right"))',
          "The monotone lookup finds the last boundary whose estimate is at most the target, not the first "
          "that reaches it.",
          (_REF,)),
    Fault("distance.boundary_equality_dropped", "distance", _F,
          "    if pe[j] == s:",
          "    if j == m:",
          "A target equal to a stored boundary estimate is bisected instead of resolving to that boundary.",
          (_REF,)),
    Fault("distance.bisection_latest", "distance", _F,
          "            if b.estimate >= s:",
          "            if b.estimate > s:",
          "Bisection keeps parameters whose estimate equals the target on the short side (the latest "
          "parameter that reaches it, not the earliest).",
          (_REF,)),
    Fault("distance.end_by_lookup", "distance", _F,
          '    j = m if s == total else int(np.searchsorted(pe, s, side="left"))',
          '    j = int(np.searchsorted(pe, s, side="left"))',
          "The path end is found by the lookup like any target (the start of a trailing zero-length run), "
          "not as the last span at u = 1.",
          (_REF,)),
    Fault("distance.boundary_not_renamed", "distance", _F,
          "        if u == 1.0 and k < path.span_count - 1:\n"
          "            k, u = k + 1, 0.0  # an exact boundary names the outgoing span",
          "        pass",
          "A bisection ending at u = 1 of an interior span names it (k, 1) instead of the outgoing (k + 1, 0).",
          (_REF,)),
    Fault("distance.residual_lower_side_only", "distance", _F,
          "    residual = max(float(sub_hi(bound.upper, s)), float(sub_hi(s, bound.lower)), 0.0)",
          "    residual = max(float(sub_hi(s, bound.lower)), 0.0)",
          "The residual bound covers only the lower side of the prefix bound (target - lower).",
          (_REF,)),
    Fault("distance.residual_without_preceding_leaves", "distance", _F,
          "    lo_i, hi_i, hi_next = float(dmap.prefix_lower[i]), float(dmap.prefix_upper[i]), "
          "float(dmap.prefix_upper[i + 1])",
          "    lo_i, hi_i, hi_next = float(dmap.prefix_estimate[i]), float(dmap.prefix_estimate[i]), "
          "float(dmap.prefix_upper[i + 1])",
          "The prefix bound inside a leaf brackets only the partial leaf around the prefix estimate, dropping "
          "the preceding leaves' uncertainty (so does the residual).",
          (_REF,)),
    Fault("distance.partial_floor_next_boundary", "distance", _F,
          "    lower = np.maximum(add_lo(lo_i, cl), lo_i)",
          "    lower = np.maximum(add_lo(lo_i, cl), float(dmap.prefix_lower[i + 1]))",
          "The prefix lower bound inside a leaf is floored at the next stored boundary instead of the leaf start.",
          (_REF,)),
    Fault("distance.partial_leaf_wrong_side", "distance", _F,
          "                             np.full(n, float(dmap.leaf_u0[i])), u)",
          "                             u, np.full(n, float(dmap.leaf_u1[i])))",
          "The partial leaf added to the leaf's start prefix is measured from u to the leaf's end instead of "
          "from its start to u.",
          (_REF,)),
    Fault("distance.clamp_swapped", "distance", _F,
          "            s = 0.0 if s < 0.0 else total",
          "            s = total if s < 0.0 else 0.0",
          "Clamp sends targets below 0 to the end and targets past TotalEstimate to the start.",
          (_REF,)),
    Fault("distance.wrap_float_floor", "distance", _F,
          "            r = math.fmod(s, total)  # exact, with the sign of s",
          "            r = s - total * math.floor(s / total)",
          "Wrap takes the floored remainder in float arithmetic, s - T floor(s / T), which rounds for targets "
          "many periods away (fmod is exact).",
          (_REF,)),
    Fault("distance.reject_clamps_past_end", "distance", _F,
          "        if policy is BoundaryPolicy.Reject:",
          "        if policy is BoundaryPolicy.Reject and s < 0.0:",
          "Reject only rejects negative targets; targets past TotalEstimate are clamped.",
          (_REF,)),
    # --- Estimates inside their Certified intervals --------------------------------------------
    Fault("distance.bound_estimate_unclamped", "distance", _F,
          "    return lower, upper, np.minimum(np.maximum(est, lower), upper)",
          "    return lower, upper, est",
          "TryBoundDistance's estimate is not clamped into its Certified interval.",
          (_REF,),
          equivalent="equivalent: the clamp never binds. est <= upper term by term (PE_i <= PU_i, the partial "
                     "estimate <= its polygon), and est >= lower since a partial chord is at most (chord + arc) / 2 "
                     "of its leaf (triangle inequality) <= the leaf estimate (chord + polygon) / 2, with the "
                     "widening covering the roundings"),
    Fault("distance.prefix_estimate_unclamped", "distance", _F,
          "    pe = np.maximum.accumulate(np.minimum(np.maximum(pe, pl), pu))",
          "    pe = np.maximum.accumulate(pe)",
          "Prefix estimates (running float sums) are not clamped into the prefix bounds.",
          (_REF,),
          equivalent="equivalent: the clamp never binds. Each leaf estimate sits inside its bracket by the "
                     "widening (at least 16 ulps on each side), more than a running float sum drifts over the "
                     "corpus' maps"),
    Fault("distance.stored_estimate_off_by_one", "distance", _F,
          "                         float(dmap.prefix_estimate[i]))",
          "                         float(dmap.prefix_estimate[min(i + 1, dmap.leaf_count)]))",
          "The bound at a stored boundary carries the next boundary's estimate (an index off by one), outside "
          "its Certified interval.",
          (_REF,)),
    Fault("distance.leaf_estimate_unclamped", "distance", _F,
          "    estimate = np.minimum(np.maximum(0.5 * (chord + poly), lower), upper)",
          "    estimate = 0.5 * (chord + poly)",
          "A leaf's Gravesen estimate is not clamped into its Certified bracket.",
          (_REF,),
          equivalent="equivalent: the clamp never binds, since the widened bounds keep lower < chord <= poly < "
                     "upper, so (chord + poly) / 2 is already inside"),
    # --- The Taylor oracle (interval/arclength.py) ----------------------------------------------
    Fault("arclength.cauchy_remainder_halved", "distance", _O,
          "    tail_q = 2 * r * q**N / ((N + 1) * (1 - q * q))  # exact rational factor of the tail",
          "    tail_q = r * q**N / ((N + 1) * (1 - q * q))",
          "The Cauchy remainder of each Taylor piece is half its bound.",
          (f"{_TAY}::test_cauchy_tail_bounds_the_series_of_cauchy_estimates",
           f"{_TAY}::test_low_forced_order_contains_the_arb_integral")),
    Fault("arclength.crude_piece_centre_speed", "distance", _O,
          "        top = iv.sqrt(iv_from_mpq(max(fhi, _mpq(0)), prec))",
          "        top = iv.sqrt(iv_from_mpq(max(ac[0], _mpq(0)), prec))",
          "A crude (zero-speed) piece is bounded by the speed at its centre instead of its maximum.",
          (_TAY,)),
    Fault("arclength.sqrt_series_cross_terms_once", "distance", _O,
          "        acc *= 2\n",
          "        acc *= 1\n",
          "The square-root series recurrence counts each cross term h_j h_(k-j) once instead of twice.",
          (_TAY,)),
    Fault("arclength.box_parity_swapped", "distance", _O,
          "            if (m - k) % 2 == 0:  # (xi - c)^even ranges over [0, r^even]",
          "            if (m - k) % 2 == 1:  # (xi - c)^even ranges over [0, r^even]",
          "The exact box bound of f treats odd powers of (xi - c) as nonnegative and even ones as signed.",
          (_TAY,)),
    Fault("arclength.taylor_shift_sign", "distance", _O,
          "            a[k] = a[k] + c * a[k + 1]",
          "            a[k] = a[k] - c * a[k + 1]",
          "The exact Taylor shift expands f about -c instead of c.",
          (_TAY,)),
    Fault("arclength.prefix_skips_a_span", "distance", _O,
          "    parts = [enclose_arc_length(C[j], 0, 1, prec, rel_width, max_pieces) for j in range(span_index)]",
          "    parts = [enclose_arc_length(C[j], 0, 1, prec, rel_width, max_pieces) for j in range(1, span_index)]",
          "The prefix enclosure leaves out the first span.",
          (_TAY,)),
    # --- The Arb oracle (interval/arb_arclength.py) ---------------------------------------------
    Fault("arb_arclength.analytic_flag_dropped", "distance", _A,
          "            return Qc(z - cc).sqrt(analytic=analytic)",
          "            return Qc(z - cc).sqrt()",
          "The integrand's square root does not check analyticity (Arb may integrate across a branch cut).",
          (_ARB,)),
    Fault("arb_arclength.sign_of_g_ignored", "distance", _A,
          "                    s = 1 if G(_fq(m)) > 0 else -1  # G has no root inside (a, b)",
          "                    s = 1",
          "At a zero-speed point the factor G is integrated with its sign, not its absolute value.",
          (_ARB,)),
    Fault("arb_arclength.line_without_reversal", "distance", _A,
          "        cuts = [arb(_fq(r)) for r in rational if a < r < b]",
          "        cuts = []",
          "A line that reverses at a rational parameter is measured as its net displacement.",
          (_ARB,)),
    # --- Status contracts (issue 24): failed rebuilds, limits at equality, valid requests ----------
    Fault("distance.status_rebuild_drops_held_map", "distance", _ADAPTER,
          "            if out.ok:\n                dmap = out.value.view()\n",
          "            dmap = out.value.view() if out.ok else PreparedDistanceMap().view()\n            if out.ok:\n",
          "A failed TryBuildDistanceMap drops the map the owner held "
          "('Exhausting a limit ... keeps the previous map').",
          (_STATUSES,)),
    Fault("distance.status_max_leaves_at_equality_refused", "distance", _F,
          "if m + 1 > limits.max_leaves:",
          "if m + 1 >= limits.max_leaves:",
          "A map that needs exactly max_leaves leaves is refused (>= instead of >): a limit met with equality.",
          (_STATUSES,)),
    Fault("distance.status_max_subdivisions_at_equality_refused", "distance", _F,
          "if splits >= limits.max_subdivisions:",
          "if splits + 1 >= limits.max_subdivisions:",
          "A map that needs exactly max_subdivisions splits is refused.",
          (_STATUSES,)),
    Fault("distance.status_max_depth_at_equality_refused", "distance", _F,
          "if depth >= limits.max_depth:",
          "if depth + 1 >= limits.max_depth:",
          "A map whose deepest leaf is exactly max_depth deep is refused.",
          (_STATUSES,)),
    Fault("distance.status_prepared_bytes_at_equality_refused", "distance", _F,
          "if distance_map_bytes(m + 1, n) > limits.max_prepared_bytes:",
          "if distance_map_bytes(m + 1, n) >= limits.max_prepared_bytes:",
          "A map of exactly max_prepared_bytes is refused (>= instead of >).",
          (_STATUSES,)),
    Fault("distance.status_zero_target_refused", "distance", _F,
          "if not 0.0 <= s <= total:",
          "if not 0.0 < s <= total:",
          "The target 0, the start of the PathDistance domain [0, TotalEstimate], is refused under Reject "
          "(a valid request refused).",
          (_STATUSES,)),
]
