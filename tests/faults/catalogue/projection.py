"""Planted faults of the projection family (spec 002, ``query.hpp``): the fast path's certified
bounds, candidates, tie and stopping rules, statuses and scratch (``reference/query.py``), and the
global-minimum oracle (``interval/projection.py``).

Each fault is a mistake a real implementer makes; the ledger (``--family projection``) must see it
through a claim the spec defines: a LowerBound above the true minimum, a Distance below the exact
distance at the returned parameter, a Gap that does not cover ``Distance - LowerBound``, a result
that is not the earliest acceptable candidate (a span start, a joint, a mirror twin), an unmet
gap reported as met (or a met one as unmet), or more iterations than allowed.
"""

from __future__ import annotations

from tests.faults.harness import Fault

_REF = "reference/query.py"
_ORC = "interval/projection.py"

_CHECKS = "tests/oracles/test_projection_checks.py"
_DIFF = "tests/differential/test_projection_differential.py"
_UNIT = "tests/reference/test_query.py"
_ORACLE = "tests/interval/test_projection_oracle.py"
_ARB = "interval/arb_projection.py"
_ARB_TESTS = "tests/interval/test_arb_projection.py"

FAULTS = [
    # --- certified lower bounds ------------------------------------------------------------------
    Fault("projection.capsule_no_blossom_error", "projection", _REF,
          "capsule = sub_lo(sub_lo(sub_lo(seg_lo[..., 0], delta), hypot_hi(e)), q.r)",
          "capsule = sub_lo(sub_lo(seg_lo[..., 0], delta), q.r)",
          "the chord-capsule lower bound forgets the computed subsegment controls' error |e|",
          (_DIFF, _UNIT)),
    Fault("projection.subsegment_controls_trusted", "projection", _REF,
          "        lbs = _hull_lower(q, Q, e)\n",
          "        lbs = _hull_lower(q, Q, _EXACT)\n",
          "a sub-interval's computed blossom controls are treated as exact (no box widening, no capsule term)",
          (_DIFF, _UNIT)),
    Fault("projection.point_not_enclosed", "projection", _REF,
          "    lo, hi, c = sub_lo(point, origin), sub_hi(point, origin), point - origin\n",
          "    c = point - origin\n    lo, hi = c, c\n",
          "the query point's origin subtraction is rounded to nearest and trusted (no enclosure, radius 0)",
          (_DIFF, _UNIT)),
    Fault("projection.box_separation_unclamped", "projection", _REF,
          "    sep = np.maximum(np.maximum(sub_lo(box_lo, q_hi), sub_lo(q_lo, box_hi)), 0.0)\n",
          "    sep = np.maximum(sub_lo(box_lo, q_hi), sub_lo(q_lo, box_hi))\n",
          "the box separation is not clamped at 0: a point inside the box in one axis counts its negative gap",
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
    Fault("projection.capsule_line_not_segment", "projection", _REF,
          "        seg_hi = np.minimum(np.minimum(a_hi, b_hi), np.where(inside, line_hi, np.inf))\n",
          "        seg_hi = line_hi\n",
          "the inner controls' distance to the chord is taken to its line, even where their foot lies beyond the segment",
          (_DIFF, _UNIT)),
    # --- certified upper bounds (candidate distances) ----------------------------------------------
    Fault("projection.midpoint_not_widened", "projection", _REF,
          "ub = float(_point_upper(q, sub_lo(b_mid, e), add_hi(b_mid, e)))",
          "ub = float(_point_upper(q, b_mid, b_mid))",
          "a midpoint candidate's Distance trusts the computed curve point (no blossom error)",
          (_DIFF, _UNIT)),
    Fault("projection.point_upper_nearest_corner", "projection", _REF,
          "    far = np.maximum(np.abs(sub_lo(q.lo, b_hi)), np.abs(sub_hi(q.hi, b_lo)))\n",
          "    far = np.minimum(np.abs(sub_lo(q.lo, b_hi)), np.abs(sub_hi(q.hi, b_lo)))\n",
          "a candidate's Distance bounds the distance between the two boxes by their nearest corners",
          (_DIFF, _UNIT)),
    Fault("projection.gap_nearest", "projection", _REF,
          "    result.gap = float(sub_hi(distance, lb))\n",
          "    result.gap = float(distance - lb)\n",
          "the reported Gap is Distance - LowerBound rounded to nearest, not upward",
          (_CHECKS, _UNIT)),
    Fault("projection.distance_of_best", "projection", _REF,
          "    distance = float(ub[j])\n",
          "    distance = float(ub.min())\n",
          "the result names the earliest acceptable parameter but reports the best candidate's Distance",
          (_UNIT, _DIFF)),
    # --- candidates, tie and stopping rules --------------------------------------------------------
    Fault("projection.latest_acceptable", "projection", _REF,
          "    k = spans[mask].min()\n",
          "    k = spans[mask].max()\n",
          "the result is the acceptable candidate of the latest span, not the earliest",
          (_UNIT, _DIFF)),
    Fault("projection.best_not_earliest", "projection", _REF,
          "        pick = sub_hi(ub, lb) <= gap  # acceptable candidates\n",
          "        pick = ub == ub.min()  # acceptable candidates\n",
          "a met gap returns the best candidate instead of the earliest acceptable one",
          (_UNIT, _DIFF)),
    Fault("projection.joint_by_incoming_span", "projection", _REF,
          "    starts = P32[:, 0, :].astype(np.float64)\n"
          "    s.cand_span[:n] = np.arange(n)\n"
          "    s.cand_u[:n] = 0.0\n",
          "    starts = np.concatenate([P32[:1, 0, :], P32[:-1, 3, :]]).astype(np.float64)\n"
          "    s.cand_span[:n] = np.maximum(np.arange(n) - 1, 0)\n"
          "    s.cand_u[:n] = np.where(np.arange(n) > 0, 1.0, 0.0)\n",
          "each joint is a candidate as the incoming span's end (k - 1, 1) instead of the outgoing span's start",
          (_UNIT,)),
    Fault("projection.no_terminal_endpoint", "projection", _REF,
          "    if not view.is_closed:\n        end = P32[n - 1, 3, :]",
          "    if False:\n        end = P32[n - 1, 3, :]",
          "an open path's terminal endpoint is not a candidate",
          (_UNIT,)),
    Fault("projection.stop_strictly_below_gap", "projection", _REF,
          "        if sub_hi(best, lbmin) <= gap:\n",
          "        if sub_hi(best, lbmin) < gap:\n",
          "the search stops only when the gap is strictly below ProjectionGap (spec: when it fits)",
          (_UNIT, _CHECKS)),
    Fault("projection.one_split_too_many", "projection", _REF,
          "        if it >= max_iterations:\n",
          "        if it > max_iterations:\n",
          "the budget test is off by one: MaxIterations + 1 splits",
          (_UNIT, _CHECKS)),
    # --- statuses, approximate, scratch ------------------------------------------------------------
    Fault("projection.strict_writes_on_budget", "projection", _REF,
          "    if strict and not met:\n        return failure(",
          "    if strict and not met:\n        result.iterations = run.iterations\n        return failure(",
          "strict projection writes its iteration count into the caller's result before failing",
          (_UNIT,)),
    Fault("projection.resolution_counts_as_met", "projection", _REF,
          "    met = run.status is GeometryStatus.Success\n",
          "    met = run.status is not GeometryStatus.BudgetExceeded\n",
          "running out of float64 midpoints is taken as a met gap (IsGapMet true, Certified)",
          (_UNIT, _CHECKS)),
    Fault("projection.approximate_latest_best", "projection", _REF,
          "        pick = ub == ub.min()  # approximate: the best ones\n",
          "        pick = np.arange(c) == int(np.flatnonzero(ub == ub.min())[-1])  # approximate: the best ones\n",
          "out of work, the approximate search returns the most recently found best candidate, not the earliest",
          (_UNIT,)),
    Fault("projection.capacity_one_short", "projection", _REF,
          "    return success(view.span_count + 1 + int(max_iterations))",
          "    return success(view.span_count + int(max_iterations))",
          "the scratch capacity forgets the terminal endpoint: span count + MaxIterations",
          (_UNIT,)),
    # --- oracle ------------------------------------------------------------------------------------
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
]
