"""Projection checkers: strict projection ``Distance``, ``LowerBound`` and ``Gap`` (Certified) and the
``ProjectPointApproximate`` result (Approximate).

Claim ``inputs`` (both rows): ``controls`` the prepared float32 controls (n, 4, 3) as hex,
``origin`` and ``point`` (3,) float64 hex, ``projection_gap`` hex, ``max_iterations``, and
optionally ``is_closed`` (without it the terminal-endpoint rules are not checked).
``value``: ``span``, ``u``, ``distance``, ``lower_bound``, ``gap`` (hex), ``is_gap_met``,
``iterations`` and, for the approximate row, ``result_guarantee``. Every field is read by the
checkers (the contracts' schemas, ``CONTRACTS``, admit nothing else).

Checkers recompute the truth from the inputs alone, with two independent oracles
(``interval.arb_projection``: exact real-root isolation, the default decision;
``interval.projection``: the interval branch and bound, the cross-check; disjoint enclosures
are an OracleFault):

* strict: exact rational checks that the parameter is a candidate (``0 <= u <= 1``, ``u = 1``
  only at an open path's terminal endpoint), ``Iterations <= MaxIterations``, ``Gap <=
  ProjectionGap``, ``Distance - LowerBound <= Gap`` and ``Distance^2 >= |q - B(u)|^2``; the
  earliest rule (no span start before the result certainly fits the gap, no earlier exact
  mirror twin; docs/decisions.md); then ``min f >= LowerBound^2`` by the oracles. Together these
  give ``LowerBound <= min <= exact distance at Parameter <= Distance <= min + ProjectionGap``.
  The measure and ``bound_use`` ``gap_used`` is an upper estimate of ``(Distance - min) /
  ProjectionGap``.
* approximate: what still holds when work runs out. The parameter is a candidate, ``Iterations
  <= MaxIterations``, the guarantee is Approximate exactly when ``IsGapMet`` is false (Certified
  when it is true); a claim with ``IsGapMet`` true must pass every strict check; otherwise
  ``|Distance - |q - B(u)|| <= R`` (the Rounded error of evaluating the distance at the
  returned parameter, :func:`evaluation_bound`, or the claim's declared model; ``bound_use`` is
  the error over R), ``Distance - LowerBound <= Gap``, ``Gap > ProjectionGap`` (a gap that fits
  was met), the earliest best candidate (no span start or open terminal endpoint certainly
  better, no earlier mirror twin) and ``LowerBound <= min`` (the same oracles). The measure
  ``true_gap_ratio`` is an upper estimate of ``(exact distance at Parameter - min) /
  ProjectionGap``.
"""

from __future__ import annotations

import dataclasses
import math

import gmpy2
import numpy as np

from interval.arb_projection import sqrt_down, sqrt_up
from interval.projection import exact_squared_distance

from ...errormodel import ratio, resolve
from ...model import Claim, dec, dec_array, enc, oracle_fault, undecided, verified, violated
from ...rules import decision, declare, default, spec
from .truth import enclosure, truth

__all__ = ["EVAL_K", "Decoded", "check_approximate", "check_strict", "decode", "evaluation_bound"]


# The rules (oracles.rules). Spec 002 Projection states them; the one number it leaves open is the
# Rounded error of an evaluated Distance (evaluation_bound, a documented default).
_S = "spec 002 Projection: "
CANDIDATES = spec("projection:candidates", _S + "'Each span starts as one interval; span starts and an open path's "
                  "terminal endpoint are candidates ... a minimum at a joint is named by the outgoing span at u = 0' "
                  "and 'MaxIterations' bounds the work: the parameter is a candidate of the search (u = 1 only at an "
                  "open path's end), values finite, Iterations <= MaxIterations")
GAP = spec("projection:gap", _S + "'Exact distance to nearest.Parameter <= nearest.Distance <= global minimum + "
           "ProjectionGap (Certified)'; 'The search stops when the best candidate minus the smallest live lower bound "
           "fits the path's ProjectionGap': IsGapMet, Gap <= ProjectionGap, Distance - LowerBound <= Gap, Distance >= "
           "the exact distance at the parameter")
LOWER_BOUND = spec("projection:lower_bound", "spec 002 Guarantees: 'Strict projection Distance, LowerBound and Gap' "
                   "are Certified: LowerBound <= the true minimum distance (two independent oracles)")
EARLIEST = spec("projection:earliest", _S + "'Any candidate within the gap of the global lower bound is an acceptable "
                "answer; the result is the earliest by span, then parameter. Symmetric minima therefore return the "
                "earlier one': no span start (or open terminal endpoint) earlier and certainly acceptable (or, out of "
                "work, certainly better), with the evaluation allowance below; no earlier exact mirror twin")
EVALUATION = default("projection:evaluation_bound", "docs/decisions.md 'Projection: what an Approximate result is "
                     "checked for' (evaluation_bound, or the claim's declared model): an Approximate Distance is "
                     "within the Rounded error of evaluating the exact distance at its parameter")
APPROXIMATE = spec("projection:approximate", _S + "'ProjectPointApproximate runs the same search but returns its "
                   "earliest best candidate when work runs out, with IsGapMet false and Guarantee Approximate': the "
                   "guarantee matches IsGapMet, and a reported Gap that fits ProjectionGap was met")

REQUEST_STATUS = decision("projection:request_status", "docs/decisions.md 'Projection: iterations, scratch and the "
                          "caller's result': a point that is not three finite values, max_iterations outside [0, 2^31 "
                          "- 1] or a scratch capacity that is not a count is InvalidArgument; 'Projection: "
                          "UnsupportedPrecision': a point farther than 2^500 from the chunk origin, and (strict) a "
                          "rounding slack at the point not below ProjectionGap, fail before any search (the spec names "
                          "no status for arguments naming nothing, sets no iteration ceiling or distance limit, and "
                          "does not say how tight an implementation's bounds are: without the decision any failure "
                          "status is accepted there, and success where only the decision fails)")

RULES = declare({
    "projection.statuses": (REQUEST_STATUS,),
    "projection.strict": (CANDIDATES, GAP, EARLIEST, LOWER_BOUND),
    "projection.approximate": (CANDIDATES, APPROXIMATE, GAP, EVALUATION, EARLIEST, LOWER_BOUND),
})

# The rule each failure key of the exact checks below breaks.
_RULE_OF = {
    "parameter_outside_domain": CANDIDATES, "nonfinite_value": CANDIDATES, "iterations_exceed_budget": CANDIDATES,
    "span_end_is_not_a_candidate": CANDIDATES, "is_gap_met": GAP, "gap_exceeds_projection_gap": GAP,
    "gap_below_distance_minus_lower_bound": GAP, "distance_below_exact_distance_at_parameter": GAP,
    "earlier_acceptable_candidate": EARLIEST, "mirror_twin_is_earlier": EARLIEST, "better_candidate": EARLIEST,
    "gap_met_but_reported_unmet": APPROXIMATE,
}


def _rule(bad: dict) -> str:
    """The id of the rule a failure dict (one key) breaks."""
    return _RULE_OF[next(iter(bad))].id


@dataclasses.dataclass(frozen=True)
class Decoded:
    """A claim's decoded inputs and value."""

    controls: np.ndarray
    origin: np.ndarray
    point: np.ndarray
    gap: float
    span: int
    nums: dict
    met: bool
    closed: bool | None  # None: the claim does not say (the terminal-endpoint rules are skipped)

    def __iter__(self):
        """Unpacks as ``(controls, origin, point, gap, span, nums, met)`` (what
        ``oracles.explain`` reads)."""
        return iter((self.controls, self.origin, self.point, self.gap, self.span, self.nums, self.met))


def decode(claim: Claim) -> Decoded:
    """Decode a claim's inputs and value (ValueError/KeyError/TypeError when malformed)."""
    inp, val = claim.inputs, claim.value
    if not isinstance(val, dict):
        raise TypeError("a projection claim's value must be an object")
    controls = dec_array(inp["controls"], np.float32)
    if controls.ndim != 3 or controls.shape[1:] != (4, 3) or controls.shape[0] < 1:
        raise ValueError("controls must have shape (n, 4, 3)")
    if not np.all(np.isfinite(controls)):
        raise ValueError("controls must be finite")
    origin, point = dec_array(inp["origin"]), dec_array(inp["point"])
    if origin.shape != (3,) or point.shape != (3,) or not (np.all(np.isfinite(origin)) and np.all(np.isfinite(point))):
        raise ValueError("origin and point must be three finite float64 values")
    gap = dec(inp["projection_gap"])
    if not (math.isfinite(gap) and gap > 0):
        raise ValueError("projection_gap must be finite and positive")
    closed = inp.get("is_closed")
    if closed is not None and not isinstance(closed, bool):
        raise TypeError("is_closed must be a boolean")
    span = val["span"]
    if isinstance(span, bool) or not isinstance(span, int):
        raise TypeError("span must be an int")
    if not isinstance(val["is_gap_met"], bool):
        raise TypeError("is_gap_met must be a boolean")
    budget, iterations = inp["max_iterations"], val["iterations"]
    for name, x in (("max_iterations", budget), ("iterations", iterations)):
        if isinstance(x, bool) or not isinstance(x, int) or x < 0:
            raise TypeError(f"{name} must be a nonnegative int")
    nums = {k: dec(val[k]) for k in ("u", "distance", "lower_bound", "gap")}
    nums["iterations"], nums["max_iterations"] = iterations, budget
    return Decoded(controls, origin, point, gap, span, nums, val["is_gap_met"], closed)


def _domain_failures(d: Decoded) -> dict:
    """What both rows demand of any result: an existing parameter that is a candidate of the
    spec's search, finite values, the budget."""
    n, span, nums = d.controls.shape[0], d.span, d.nums
    if not 0 <= span < n or not (math.isfinite(nums["u"]) and 0.0 <= nums["u"] <= 1.0):
        return {"parameter_outside_domain": {"span": span, "u": enc(nums["u"]), "span_count": n}}
    if not all(math.isfinite(nums[k]) for k in ("distance", "lower_bound", "gap")):
        return {"nonfinite_value": {k: enc(nums[k]) for k in ("distance", "lower_bound", "gap")}}
    if nums["iterations"] > nums["max_iterations"]:
        return {"iterations_exceed_budget": {"iterations": nums["iterations"],
                                             "max_iterations": nums["max_iterations"]}}
    if nums["u"] == 1.0 and (span < n - 1 or d.closed is True):
        # Span ends are never candidates; only an open path's terminal endpoint is (n - 1, 1).
        # A minimum at a joint is named by the outgoing span at u = 0 (the closing joint of a
        # closed path by (0, 0)).
        return {"span_end_is_not_a_candidate": {"span": span, "u": enc(nums["u"]), "span_count": n,
                                                "is_closed": d.closed}}
    return {}


def _gap_failures(d: Decoded) -> dict:
    """``Distance - LowerBound <= Gap`` exactly (every result reports Gap as that bound)."""
    D, L, Gp = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["lower_bound"]), gmpy2.mpq(d.nums["gap"])
    if D - L > Gp:
        return {"gap_below_distance_minus_lower_bound": {"difference": enc(D - L), "gap": enc(Gp)}}
    return {}


def _exact_failures(d: Decoded) -> dict:
    """The strict row's exact conditions; a nonempty dict names the first that fails."""
    bad = _domain_failures(d)
    if bad:
        return bad
    if not d.met:
        return {"is_gap_met": False}
    D, Gp, g = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["gap"]), gmpy2.mpq(d.gap)
    if Gp > g:
        return {"gap_exceeds_projection_gap": {"gap": enc(Gp), "projection_gap": enc(g)}}
    bad = _gap_failures(d)
    if bad:
        return bad
    f = exact_squared_distance(d.controls, d.origin, d.point, d.span, d.nums["u"])
    if D < 0 or D * D < f:
        return {"distance_below_exact_distance_at_parameter": {"distance_sq": enc(D * D),
                                                                "exact_distance_sq": enc(f)}}
    return {}


# --- The earliest rule -----------------------------------------------------------------------
# Spec: the span starts and an open path's terminal endpoint are candidates; any candidate within
# the gap of the global lower bound is acceptable; the result is the earliest by span, then
# parameter; symmetric minima return the earlier one; a minimum at a joint is named by the
# outgoing span at u = 0. What a checker can refute from a claim (docs/decisions.md "Projection:
# what the earliest rule lets a checker refute"): candidates that every conforming search has
# (span starts, the terminal endpoint), with their Distance bounded by the Rounded evaluation
# allowance ``evaluation_bound``, and exact mirror twins.

# Relative room for an implementation's upward-rounded ``Distance - LowerBound`` (two ulps and
# more): a candidate counts as certainly acceptable only with this much to spare.
_ROOM = gmpy2.mpq(1, 2**48)


def _fixed_candidates(d: Decoded):
    """The candidates every conforming search has, ``(span, u, control row)``: the span starts,
    and the terminal endpoint when the claim says the path is open."""
    n = d.controls.shape[0]
    out = [(k, 0, 0) for k in range(n)]
    if d.closed is False:
        out.append((n - 1, 1, 3))
    return out


def _candidate_bound(claim: Claim, d: Decoded, k: int, row: int):
    """``(f, R)``: the exact squared distance at the control point ``controls[k, row]`` and the
    Rounded allowance of an implementation's Distance there (the claim's model, or the
    project's :func:`evaluation_bound`)."""
    q = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(d.point, d.origin)]
    P = d.controls[k, row].astype(np.float64)
    f = sum((gmpy2.mpq(float(P[c])) - q[c]) ** 2 for c in range(3))
    dist = sqrt_up(f)  # exact (squares beyond float64 stay finite)
    R = resolve(claim, lambda u, eta: evaluation_bound(d.controls, d.origin, d.point, k, dist, u, eta),
                constant=EVAL_K).scalar()
    return f, R


def _certainly_below(f, bound) -> bool:
    """Whether ``sqrt(f) <= bound`` (exact; False for a nonpositive bound unless f is 0)."""
    return bound >= 0 and f <= bound * bound


def _mirror_twin(d: Decoded):
    """An earlier span that is an exact mirror image of the claimed span in a coordinate plane
    through the chunk origin, with the query point on that plane: ``(k, c)`` or None. Then
    ``|B_k(1 - t) - q| = |B_span(t) - q|`` for every t, exactly."""
    u = d.nums["u"]
    if not u > 0.0:
        return None  # (span, 0)'s twin (k, 1) is not a candidate
    q = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(d.point, d.origin)]
    rev = d.controls[d.span][::-1]
    for c in range(3):
        if q[c] != 0:
            continue
        M = rev.copy()
        M[:, c] = -M[:, c]
        for k in range(d.span):
            if np.array_equal(d.controls[k], M):
                return k, c
    return None


def _earliest_failures(claim: Claim, d: Decoded) -> dict:
    """A met gap: no candidate that every search has is certainly acceptable and earlier than the
    result, and the result is not the later of two exact mirror twins."""
    L, g, u = gmpy2.mpq(d.nums["lower_bound"]), gmpy2.mpq(d.gap), gmpy2.mpq(d.nums["u"])
    for k, cu, row in _fixed_candidates(d):
        if not (k < d.span or (k == d.span and cu < u)):
            continue
        f, R = _candidate_bound(claim, d, k, row)
        if _certainly_below(f, L + g * (1 - _ROOM) - R):
            return {"earlier_acceptable_candidate": {
                "span": k, "u": cu, "distance_sq": enc(f), "allowance": enc(R), "lower_bound": enc(L),
                "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    twin = _mirror_twin(d)
    if twin is not None:
        k, c = twin
        return {"mirror_twin_is_earlier": {"span": k, "u": enc(1 - u), "mirror_axis": c,
                                           "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    return {}


def _best_failures(claim: Claim, d: Decoded) -> dict:
    """An unmet gap: the result is the earliest *best* candidate. No candidate every search has
    is certainly better (its Distance below the claimed one), and no exact mirror twin is
    earlier; a Gap that fits ProjectionGap means the search had met it."""
    D, Gp, g = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["gap"]), gmpy2.mpq(d.gap)
    if Gp <= g:
        return {"gap_met_but_reported_unmet": {"gap": enc(Gp), "projection_gap": enc(g)}}
    for k, cu, row in _fixed_candidates(d):
        f, R = _candidate_bound(claim, d, k, row)
        bound = D * (1 - _ROOM) - R
        if bound > 0 and f < bound * bound:
            return {"better_candidate": {"span": k, "u": cu, "distance_sq": enc(f), "allowance": enc(R),
                                         "distance": enc(D), "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    twin = _mirror_twin(d)
    if twin is not None:
        k, c = twin
        return {"mirror_twin_is_earlier": {"span": k, "u": enc(1 - gmpy2.mpq(d.nums["u"])), "mirror_axis": c,
                                           "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    return {}


def _judge_strict(claim: Claim, d: Decoded, **extra):
    bad = _exact_failures(d)
    if bad:
        return violated(claim, bad, note="an exact condition of the strict projection fails", rule=_rule(bad),
                        **extra)
    bad = _earliest_failures(claim, d)
    if bad:
        return violated(claim, bad, note="the result is not the earliest acceptable candidate", rule=_rule(bad),
                        **extra)
    t = truth(d)
    if t.fault is not None:
        return oracle_fault(claim, t.fault, prec=t.prec)
    D, L, g = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["lower_bound"]), gmpy2.mpq(d.gap)
    # (Distance - min) / gap, from the enclosure's lower end: an upper estimate.
    used = ratio(max(D - sqrt_down(t.lo_sq), 0), g)
    if t.holds is True:
        return verified(claim, measure="gap_used", measured=used, bound_use=used, prec=t.prec,
                        note="LowerBound <= min shown; Distance <= min + gap follows", splits=t.splits, **extra)
    if t.holds is False:
        over = 1.0 + ratio(max(L - sqrt_up(t.hi_sq), 0), g)
        return violated(claim, {"lower_bound_above_minimum": t.witness, "lower_bound": enc(d.nums["lower_bound"])},
                        bound_use=over, prec=t.prec, note="a curve point is closer than the claimed LowerBound",
                        rule=LOWER_BOUND.id, **extra)
    return undecided(claim, enclosure(t), bound_use=used, prec=t.prec,
                     note="LowerBound <= min not decided within the budget", **extra)


def check_strict(claim: Claim):
    """``projection.strict``: exact conditions, the earliest rule, then ``LowerBound <= min`` by two
    independent oracles."""
    return _judge_strict(claim, decode(claim))


# The rounding constant of the evaluation bound (the project's blossom constant,
# reference.error_model.K): a declared model's ``k`` scales the bound by k / 16.
EVAL_K = 16


def evaluation_bound(controls, origin, point, span: int, distance, u: float, eta: float) -> gmpy2.mpq:
    """The Rounded error allowed between a returned ``Distance`` and the exact distance at the
    returned parameter, at unit roundoff ``u`` and subnormal step ``eta`` (exact mpq):

    ``R = sum_c (2 e_c + 6 u |q_c|) + 8 u |Distance| + 16 eta`` with ``e_c = 16 u E_c + 16 eta``,
    ``E_c`` the span's largest control magnitude in component c and ``q = point - origin``.

    Why, for the outward-rounded distance this project computes (each directed operation is a
    rounded one moved one float outward: within ``3 u`` relative), which bounds a
    round-to-nearest one too: the curve point is within ``9 u E_c`` of the truth (the blossom's
    three levels of ``(1 - t) a + t b``) and its box is widened by ``e_c`` once more; the query
    point's box ``[fl_down(p - o), fl_up(p - o)]`` reaches ``3 u |q_c|`` from the truth, and the
    far-side difference rounds once more (``3 u (|q_c| + E_c)``): per component within
    ``2 e_c + 6 u |q_c|``, and the 1-norm of those bounds the 2-norm's change. The norm itself
    (three squares and two sums rounded up, a square root of input within ``9 u`` relative,
    rounded up) is within ``7.5 u`` relative, so ``8 u |Distance|``. (Until 2026-12-02 this read
    ``4 u |q_c|`` and ``4 u |Distance|``, too small for a query point far from the path: the 1e6-claim
    soak run found a correct result at 1.03 of that bound; see docs/decisions.md.)
    """
    P = [[gmpy2.mpq(float(x)) for x in row] for row in controls[span]]
    qe = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(point, origin)]
    uq, eq = gmpy2.mpq(u), gmpy2.mpq(eta)
    total = gmpy2.mpq(0)
    for c in range(3):
        E = max(abs(P[r][c]) for r in range(4))
        e = EVAL_K * uq * E + 16 * eq
        total += 2 * e + 6 * uq * abs(qe[c])
    return total + 8 * uq * abs(gmpy2.mpq(distance)) + 16 * eq


def check_approximate(claim: Claim):
    """``projection.approximate``: what an Approximate result still promises (module docstring):
    a met gap passes every strict check; otherwise the distance is the Rounded distance at the
    returned parameter, Gap covers Distance - LowerBound and exceeds ProjectionGap, no candidate
    every search has is certainly better, and the lower bound does not exceed the true minimum."""
    d = decode(claim)
    rg = claim.value["result_guarantee"]
    if rg not in ("Certified", "Approximate"):
        raise ValueError(f"result_guarantee {rg!r} is neither Certified nor Approximate")
    gap_met = {"gap_met": int(d.met)}
    bad = _domain_failures(d)
    if bad:
        return violated(claim, bad, note="the approximate result names no valid parameter or value", rule=_rule(bad),
                        **gap_met)
    if (rg == "Certified") != d.met:
        return violated(claim, {"result_guarantee": rg, "is_gap_met": d.met},
                        note="IsGapMet false must come with Guarantee Approximate, true with Certified",
                        rule=APPROXIMATE.id, **gap_met)
    if d.met:
        return _judge_strict(claim, d, **gap_met)
    D = gmpy2.mpq(d.nums["distance"])
    resolved = resolve(claim, lambda u, eta: evaluation_bound(d.controls, d.origin, d.point, d.span,
                                                              d.nums["distance"], u, eta), constant=EVAL_K)
    R = resolved.scalar()
    extra = {**gap_met, **resolved.extra()}
    f = exact_squared_distance(d.controls, d.origin, d.point, d.span, d.nums["u"])
    err = max(D - sqrt_down(f), sqrt_up(f) - D, 0)  # |Distance - exact distance|, rounded up
    use = ratio(err, R)
    hi, lo = D + R, D - R
    if hi < 0 or hi * hi < f or (lo > 0 and lo * lo > f):
        return violated(claim, {"distance_not_at_parameter": {"distance": enc(D), "exact_distance_sq": enc(f),
                                                             "bound": enc(R)}}, bound_use=use,
                        note="Distance differs from the exact distance at the returned parameter by more "
                             "than the evaluation's Rounded error", rule=EVALUATION.id, **extra)
    bad = _gap_failures(d) or _best_failures(claim, d)
    if bad:
        return violated(claim, bad, bound_use=use, note="the approximate result is not the earliest best "
                        "candidate, or its Gap does not fit what it reports", rule=_rule(bad), **extra)
    t = truth(d)
    if t.fault is not None:
        return oracle_fault(claim, t.fault, prec=t.prec)
    if t.holds is False:
        return violated(claim, {"lower_bound_above_minimum": t.witness, "lower_bound": enc(d.nums["lower_bound"])},
                        bound_use=use, prec=t.prec, note="a curve point is closer than the claimed LowerBound",
                        rule=LOWER_BOUND.id, **extra)
    if t.holds is None:
        return undecided(claim, enclosure(t), bound_use=use, prec=t.prec,
                         note="LowerBound <= min not decided within the budget", **extra)
    # (exact distance at Parameter - min) / gap: an upper estimate, for the report only.
    true_gap = ratio(max(sqrt_up(f) - sqrt_down(t.lo_sq), 0), gmpy2.mpq(d.gap))
    return verified(claim, measure="true_gap_ratio", measured=true_gap, bound_use=use, prec=t.prec,
                    note="Approximate: distance at the parameter and LowerBound <= min shown", **extra)
