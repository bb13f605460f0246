"""Planted faults of the projection family (spec 002, ``query.hpp``): the fast path's certified
bounds, candidates, tie and stopping rules, statuses and scratch (``reference/query.py``, its
compiled search), and the two global-minimum oracles (``interval/projection.py``, the interval
branch and bound; ``interval/arb_projection.py``, exact real-root isolation).

Each fault is a mistake a real implementer makes; the ledger (``--family projection``) must see it
through a claim the spec defines: a LowerBound above the true minimum, a Distance below the exact
distance at the returned parameter, a Gap that does not cover ``Distance - LowerBound``, a result
that is not the earliest acceptable candidate (a span start, a joint, a mirror twin), an unmet
gap reported as met (or a met one as unmet), more iterations than allowed, or a fast-path crash
on a corpus case. Oracle faults are caught by the other oracle (an OracleFault) or the tests.
"""

from __future__ import annotations

from tests.faults.harness import Fault

_REF = "reference/query.py"
_ORC = "interval/projection.py"
_ARB = "interval/arb_projection.py"

_CHECKS = "tests/oracles/test_projection_checks.py"
_DIFF = "tests/differential/test_projection_differential.py"
_UNIT = "tests/reference/test_query.py"
_ORACLE = "tests/interval/test_projection_oracle.py"
_ARB_TESTS = "tests/interval/test_arb_projection.py"

FAULTS = [
    # --- certified lower bounds ------------------------------------------------------------------
    Fault("projection.capsule_no_blossom_error", "projection", _REF,
          "    capsule = sub_lo(sub_lo(sub_lo(q_lo, delta), _norm_hi(e0, e1, e2)), qr)\n",
          "    capsule = sub_lo(sub_lo(q_lo, delta), qr)\n",
          "the chord-capsule lower bound forgets the computed subsegment controls' error |e| (issue 17's survivor)",
          (_DIFF, _UNIT)),
    Fault("projection.subsegment_controls_trusted", "projection", _REF,
          "        iv_u1[i], iv_lb[i] = mid, _hull_lower(qlo, qhi, qc, qr, work[0:4], e0, e1, e2, best)\n"
          "        iv_span[m], iv_u0[m], iv_u1[m] = k, mid, b\n"
          "        iv_lb[m] = _hull_lower(qlo, qhi, qc, qr, work[3:7], e0, e1, e2, best)\n",
          "        iv_u1[i], iv_lb[i] = mid, _hull_lower(qlo, qhi, qc, qr, work[0:4], 0.0, 0.0, 0.0, best)\n"
          "        iv_span[m], iv_u0[m], iv_u1[m] = k, mid, b\n"
          "        iv_lb[m] = _hull_lower(qlo, qhi, qc, qr, work[3:7], 0.0, 0.0, 0.0, best)\n",
          "a sub-interval's computed blossom controls are treated as exact (no box widening, no capsule term)",
          (_DIFF, _UNIT)),
    Fault("projection.point_not_enclosed", "projection", _REF,
          "    lo, hi, c = sub_lo(point, origin), sub_hi(point, origin), point - origin\n",
          "    c = point - origin\n    lo, hi = c, c\n",
          "the query point's origin subtraction is rounded to nearest and trusted (no enclosure, radius 0)",
          (_DIFF, _UNIT)),
    Fault("projection.point_lower_end_nearest", "projection", _REF,
          "    lo, hi, c = sub_lo(point, origin), sub_hi(point, origin), point - origin\n",
          "    lo, hi, c = point - origin, sub_hi(point, origin), point - origin\n",
          "the lower end of the query point's enclosure is the subtraction rounded to nearest, not downward",
          (_DIFF, _UNIT)),
    Fault("projection.point_radius_dropped", "projection", _REF,
          "    return _Point(lo, hi, c, float(hypot_hi(np.maximum(sub_hi(hi, c), sub_hi(c, lo)))))\n",
          "    return _Point(lo, hi, c, 0.0)\n",
          "the capsule trusts the rounded chunk-relative point: its distance to the exact point is dropped",
          (_DIFF, _UNIT)),
    Fault("projection.box_separation_unclamped", "projection", _REF,
          "    s0 = np.maximum(np.maximum(sub_lo(blo0, qhi[0]), sub_lo(qlo[0], bhi0)), 0.0)\n"
          "    s1 = np.maximum(np.maximum(sub_lo(blo1, qhi[1]), sub_lo(qlo[1], bhi1)), 0.0)\n"
          "    s2 = np.maximum(np.maximum(sub_lo(blo2, qhi[2]), sub_lo(qlo[2], bhi2)), 0.0)\n",
          "    s0 = np.maximum(sub_lo(blo0, qhi[0]), sub_lo(qlo[0], bhi0))\n"
          "    s1 = np.maximum(sub_lo(blo1, qhi[1]), sub_lo(qlo[1], bhi1))\n"
          "    s2 = np.maximum(sub_lo(blo2, qhi[2]), sub_lo(qlo[2], bhi2))\n",
          "the box separation is not clamped at 0: a point inside the box in one axis counts its negative gap",
          (_DIFF, _UNIT)),
    Fault("projection.capsule_line_not_segment", "projection", _REF,
          "    if sub_lo(ta, ta_err) >= 0 and add_hi(tb, tb_err) <= 0:  # the foot is certainly inside\n",
          "    if True:  # the foot is certainly inside\n",
          "the inner controls' distance to the chord is taken to its line, even where their foot lies beyond the "
          "segment",
          (_DIFF, _UNIT)),
    # --- certified upper bounds (candidate distances) ----------------------------------------------
    Fault("projection.midpoint_not_widened", "projection", _REF,
          "        ub = _point_upper(qlo, qhi, sub_lo(x, e0), sub_lo(y, e1), sub_lo(z, e2),\n"
          "                          add_hi(x, e0), add_hi(y, e1), add_hi(z, e2))\n",
          "        ub = _point_upper(qlo, qhi, x, y, z, x, y, z)\n",
          "a midpoint candidate's Distance trusts the computed curve point (no blossom error)",
          (_DIFF, _UNIT)),
    Fault("projection.point_upper_nearest_corner", "projection", _REF,
          "    f0 = np.maximum(abs(sub_lo(qlo[0], bhi0)), abs(sub_hi(qhi[0], blo0)))\n"
          "    f1 = np.maximum(abs(sub_lo(qlo[1], bhi1)), abs(sub_hi(qhi[1], blo1)))\n"
          "    f2 = np.maximum(abs(sub_lo(qlo[2], bhi2)), abs(sub_hi(qhi[2], blo2)))\n",
          "    f0 = np.minimum(abs(sub_lo(qlo[0], bhi0)), abs(sub_hi(qhi[0], blo0)))\n"
          "    f1 = np.minimum(abs(sub_lo(qlo[1], bhi1)), abs(sub_hi(qhi[1], blo1)))\n"
          "    f2 = np.minimum(abs(sub_lo(qlo[2], bhi2)), abs(sub_hi(qhi[2], blo2)))\n",
          "a candidate's Distance bounds the distance between the two boxes by their nearest corners",
          (_DIFF, _UNIT)),
    Fault("projection.gap_nearest", "projection", _REF,
          "    result.gap = float(sub_hi(distance, lb))\n",
          "    result.gap = float(distance - lb)\n",
          "the reported Gap is Distance - LowerBound rounded to nearest, not upward",
          (_CHECKS, _UNIT)),
    Fault("projection.distance_of_best", "projection", _REF,
          "    distance = float(scratch.cand_ub[j])\n",
          "    distance = float(scratch.cand_ub[:count].min())\n",
          "the result names the earliest acceptable parameter but reports the best candidate's Distance",
          (_UNIT, _DIFF)),
    # --- candidates, tie and stopping rules --------------------------------------------------------
    Fault("projection.latest_acceptable", "projection", _REF,
          "        if mask[i] and (j < 0 or spans[i] < spans[j] or (spans[i] == spans[j] and us[i] < us[j])):\n",
          "        if mask[i] and (j < 0 or spans[i] > spans[j] or (spans[i] == spans[j] and us[i] < us[j])):\n",
          "the result is the acceptable (or best) candidate of the latest span, not the earliest",
          (_UNIT, _DIFF)),
    Fault("projection.best_not_earliest", "projection", _REF,
          "        mask[j] = sub_hi(cand_ub[j], lbmin) <= gap if status == _SUCCESS else cand_ub[j] == best\n",
          "        mask[j] = cand_ub[j] == best\n",
          "a met gap returns the best candidate instead of the earliest acceptable one",
          (_UNIT, _DIFF)),
    Fault("projection.split_latest_first", "projection", _REF,
          "        if iv_lb[j] < iv_lb[i] or (iv_lb[j] == iv_lb[i] and (iv_span[j] < iv_span[i] or (\n",
          "        if iv_lb[j] < iv_lb[i] or (iv_lb[j] == iv_lb[i] and (iv_span[j] > iv_span[i] or (\n",
          "intervals with equal lower bounds are split latest span first (the spec's symmetric minima then return the "
          "later twin)",
          (_DIFF,)),
    Fault("projection.joint_by_incoming_span", "projection", _REF,
          "        cand_span[k], cand_u[k] = k, 0.0\n"
          "        cand_ub[k] = _point_upper(qlo, qhi, P[k, 0, 0], P[k, 0, 1], P[k, 0, 2], "
          "P[k, 0, 0], P[k, 0, 1], P[k, 0, 2])\n",
          "        kk, rr = (k - 1, 3) if k > 0 else (0, 0)\n"
          "        cand_span[k], cand_u[k] = kk, 1.0 if k > 0 else 0.0\n"
          "        cand_ub[k] = _point_upper(qlo, qhi, P[kk, rr, 0], P[kk, rr, 1], P[kk, rr, 2], "
          "P[kk, rr, 0], P[kk, rr, 1], P[kk, rr, 2])\n",
          "each joint is a candidate as the incoming span's end (k - 1, 1) instead of the outgoing span's start",
          (_UNIT,)),
    Fault("projection.no_terminal_endpoint", "projection", _REF,
          "    if not closed:\n        cand_span[c], cand_u[c] = n - 1, 1.0\n",
          "    if False:\n        cand_span[c], cand_u[c] = n - 1, 1.0\n",
          "an open path's terminal endpoint is not a candidate",
          (_UNIT,)),
    Fault("projection.stop_strictly_below_gap", "projection", _REF,
          "        if reached <= gap:\n",
          "        if reached < gap:\n",
          "the search stops only when the gap is strictly below ProjectionGap (spec: when it fits)",
          (_UNIT, _CHECKS)),
    Fault("projection.one_split_too_many", "projection", _REF,
          "        if it >= max_iterations:\n",
          "        if it > max_iterations:\n",
          "the budget test is off by one: MaxIterations + 1 splits",
          (_UNIT, _CHECKS)),
    # --- statuses, approximate, scratch ------------------------------------------------------------
    Fault("projection.strict_writes_on_budget", "projection", _REF,
          "    if strict and not met:\n        if status == _BUDGET:\n",
          "    if strict and not met:\n        result.iterations = int(it)\n        if status == _BUDGET:\n",
          "strict projection writes its iteration count into the caller's result before failing",
          (_UNIT,)),
    Fault("projection.resolution_counts_as_met", "projection", _REF,
          "    met = status == _SUCCESS\n",
          "    met = status != _BUDGET\n",
          "running out of float64 midpoints is taken as a met gap (IsGapMet true, Certified)",
          (_UNIT, _CHECKS)),
    Fault("projection.approximate_latest_best", "projection", _REF,
          "    return status, lbmin, it, c, _earliest(cand_span, cand_u, mask, c), reached, i\n",
          "    return status, lbmin, it, c, _earliest(cand_span if status == _SUCCESS else -cand_span, "
          "cand_u, mask, c), reached, i\n",
          "out of work, ties among the best candidates go to the latest span, not the earliest",
          (_UNIT, _DIFF)),
    Fault("projection.capacity_one_short", "projection", _REF,
          "    return success(view.span_count + 1 + int(max_iterations))",
          "    return success(view.span_count + int(max_iterations))",
          "the scratch capacity forgets the terminal endpoint: span count + MaxIterations",
          (_UNIT,)),
    # --- oracle: interval branch and bound ---------------------------------------------------------
    Fault("projection.oracle_coefficient", "projection", _ORC,
          "(d(0, 3) + 9 * d(1, 2)) / 10",
          "(d(0, 3) + 9 * d(1, 2)) / 20",
          "the middle Bernstein coefficient of |B - q|^2 has a wrong binomial weight",
          (_ORACLE, _CHECKS)),
    Fault("projection.oracle_point_rounded", "projection", _ORC,
          "    return np.array([to_mpq(float(a)) - to_mpq(float(b)) for a, b in zip(p, o)], dtype=object)",
          "    return np.array([to_mpq(float(a) - float(b)) for a, b in zip(p, o)], dtype=object)",
          "the oracle subtracts the chunk origin in float64 instead of exactly",
          (_ORACLE, _CHECKS)),
    Fault("projection.oracle_box_lower_inner", "projection", _ORC,
          "        m = min(lo_of(x) for x in C[i])\n",
          "        m = min(lo_of(x) for x in (C[i][0], C[i][6]))\n",
          "a box's lower bound takes only the end coefficients (the values at the box ends), not all seven",
          (_ORACLE, _CHECKS)),
    Fault("projection.oracle_halving", "projection", _ORC,
          "        right = np.stack([rows[6 - j][:, j] for j in range(7)], axis=1)",
          "        right = np.stack([rows[6 - j][:, 0] for j in range(7)], axis=1)",
          "de Casteljau's right half takes each row's first entry instead of its j-th",
          (_ORACLE, _CHECKS)),
    # --- oracle: exact real-root isolation ---------------------------------------------------------
    Fault("projection.arb_slope_dropped", "projection", _ARB,
          "        out.append((value - _from_arb_exact(drop), value, m))\n",
          "        out.append((value, value, m))\n",
          "the root-isolation oracle takes f at a root ball's midpoint as the ball's lower bound (no mean-value term)",
          (_ARB_TESTS, _CHECKS)),
    Fault("projection.arb_end_missing", "projection", _ARB,
          "    out = [(None, f(fmpq(0)), fmpq(0)), (None, f(fmpq(1)), fmpq(1))]\n",
          "    out = [(None, f(fmpq(0)), fmpq(0))]\n",
          "the root-isolation oracle forgets the span end u = 1 as a candidate for the minimum",
          (_ARB_TESTS, _CHECKS)),
    Fault("projection.arb_monomial_coefficient", "projection", _ARB,
          "3 * (P0 - 2 * P1 + P2)",
          "3 * (P0 - P1 + P2)",
          "the quadratic monomial coefficient of B(u) drops the factor 2 of the middle control",
          (_ARB_TESTS, _CHECKS)),
    # --- Status contracts (issue 24): the caller's result, limits at equality ----------------------
    Fault("projection.status_failure_clears_result", "projection", _REF,
          "    checked = _check_arguments(view, query, scratch, result)\n",
          "    checked = _check_arguments(view, query, scratch, result)\n"
          "    result.__init__()  # start every query from a fresh result\n",
          "every query resets the caller's result first, so a failed one leaves it cleared instead of unchanged",
          (_CHECKS, _UNIT)),
    Fault("projection.status_capacity_at_equality_refused", "projection", _REF,
          "if scratch.capacity < cap.value:",
          "if scratch.capacity <= cap.value:",
          "a scratch of exactly span count + 1 + MaxIterations entries is refused as CapacityExceeded",
          (_CHECKS, _UNIT)),
    Fault("projection.status_max_iterations_at_equality_refused", "projection", _REF,
          "        if it >= max_iterations:\n",
          "        if it + 1 >= max_iterations:\n",
          "a search that needs exactly MaxIterations splits runs out one split early (BudgetExceeded)",
          (_CHECKS, _UNIT)),
]
