"""Distance checkers: leaf and total length bounds, prefix bounds, inversion residual
(Certified) and TotalEstimate / PrefixEstimate / DistanceBound.Estimate (Estimated).

Each checker recomputes the truth from ``claim.inputs`` alone with the two arc-length oracles of
``oracle.py`` (Arb, cross-checked by Taylor; disjoint enclosures are an ``OracleFault``):

* ``distance.length_bounds`` / ``distance.prefix_bounds``: the true length (of a leaf
  ``[u0, u1]`` of one span, or the prefix ``L(span, u)``) lies in ``[lower, upper]``, and the
  total's width is at most ``distance_error`` (the build's acceptance, after its path-order
  recheck); a leaf is a dyadic ``[j 2^-d, (j + 1) 2^-d]`` (midpoint splits), and one the
  spec's split rule ends with: the rule replayed on the exact leaves (``leaves.replay_build``,
  every order its precision leaves open, ties between identical spans to the earlier) must end
  with that leaf in some run, wherever the replay decides. Measured
  ``(upper - lower) / distance_error``; bound use: how far the truth sits from the interval's
  centre towards an end (1 at an end).
* ``distance.inversion_residual``: ``|L(parameter) - target| <= residual_bound <=
  distance_error`` with the target recomputed exactly from the query, and the resolution
  rules of TryResolveDistance: the path end resolves to the last span at u = 1, an exact
  boundary names the outgoing span at u = 0, a zero-length run resolves to its earliest
  parameter, and (when the claim carries its lookup witness) the first stored boundary whose
  estimate reaches the target is the one found, a target equal to it resolves to it exactly,
  and the bisection's last short parameter (within float resolution before the result) falls
  short of the target while the result's estimate reaches it; the Certified bound at the
  result encloses the truth and lies within the residual bound of the target. Measured
  ``|L - target| / residual_bound`` (also the bound use).
* ``distance.estimates``: ``lower <= estimate <= upper`` and the truth inside ``[lower,
  upper]``. Measured ``|estimate - L| / L``; bound use: the estimate's distance from the
  interval's centre towards an end.
"""

from __future__ import annotations

import math

import gmpy2
import numpy as np

from interval.context import lower, to_mpq, upper

from ...decide import Decision, refine
from ...errormodel import ratio
from ...model import Claim, dec, dec_array, enc, nonfinite_value, undecided, verified, violated
from ...rules import decision, declare, spec
from ..path.checks import REQUEST_STATUS as PATH_REQUEST_STATUS
from .leaves import NO_LIMITS, replay_build
from .oracle import BUDGET, Enclosure, arc_length, enc_iv, oracle_faults, prefix_length

__all__ = [
    "RESOLUTION",
    "check_estimates",
    "check_inversion_residual",
    "check_length_bounds",
    "check_prefix_bounds",
    "controls_of",
    "effective_target",
    "truth",
]

# TryResolveDistance's bisection stops at adjacent floats or a bracket narrower than this.
RESOLUTION = 2.0**-60

# The rules (oracles.rules): every one is a spec 002 sentence; the numbers they need come from the
# claim (DistanceError, the residual bound) or the oracles, so no documented default enters.
_S = "spec 002 Distance maps: "
ENCLOSURE = spec("distance:enclosure", "spec 002 Guarantees: 'Leaf and total length bounds, prefix bounds' are "
                 "Certified ('Certified bounds come from FoundationMath's outward-rounded enclosures'): lower <= "
                 "upper and the true length lies in [lower, upper]")
TOTAL_GAP = spec("distance:total_gap", _S + "'until the whole-path gap TotalUpper - TotalLower is at most the path's "
                 "DistanceError. The gap is rechecked in path order before success'")
MIDPOINT_LEAVES = spec("distance:midpoint_leaves", _S + "'It splits the leaf with the largest gap at its parameter "
                       "midpoint': a leaf is [j 2^-d, (j + 1) 2^-d]")
RESIDUAL_FITS = spec("distance:residual_fits", _S + "'It accepts only when the Certified residual, which includes "
                     "every preceding leaf's uncertainty, fits DistanceError': residual_bound <= DistanceError")
TARGET = spec("distance:target", _S + "'The PathDistance domain is [0, TotalEstimate]' with the boundary policies "
              "('Policies act only outside the closed domain'): the resolved distance is the query's target after "
              "its policy, within the residual bound")
SPLIT_ORDER = spec("distance:split_order", _S + "'It splits the leaf with the largest gap at its parameter midpoint, "
                   "with ties broken by earlier span and parameter, until the whole-path gap TotalUpper - TotalLower "
                   "is at most the path's DistanceError': a leaf of a built map is a leaf the rule, replayed on the "
                   "exact leaves, ends with (each gap known within the allowance of docs/decisions.md 'Distance "
                   "maps: the leaf counts requests demand'; leaves of identical spans tie, docs/decisions.md "
                   "'Distance maps: split order at ties and the leaves a map may hold')")
RESOLUTION_RULES = spec("distance:resolution", _S + "'finds the leaf by monotone lookup over prefix estimates, then "
                        "bisects partial-span estimates for the earliest parameter that reaches the target ... A "
                        "target equal to a stored boundary estimate resolves to that exact boundary. Zero-length runs "
                        "resolve to their earliest parameter, and the path end resolves to the last span at u = 1'; "
                        "'An exact boundary selects the outgoing span at u = 0' (the bisection's last short parameter "
                        "within 2^-60 or one float of the result: 'so bisection can reach float64 resolution')")
BOUND_AT_RESULT = spec("distance:bound_at_result", _S + "'TryBoundDistance returns the Certified prefix enclosure at "
                       "any parameter' (the truth inside it, its estimate inside it and reaching the resolved "
                       "distance, the residual bound covering it)")
RESIDUAL = spec("distance:residual", _S + "'|L(at.Parameter) - 2.5| <= at.ResidualBound <= DistanceError "
                "(Certified)': the true prefix length at the result lies within the residual bound of the target")
ESTIMATE_INSIDE = spec("distance:estimate_inside", "spec 002 Guarantees: 'TotalEstimate, PrefixEstimate, "
                       "DistanceBound::Estimate: Estimated, inside the Certified interval'")
ESTIMATE_WIDTH = spec("distance:estimate_width", _S + "'until the whole-path gap TotalUpper - TotalLower is at most "
                      "the path's DistanceError' (the total is the sum of the leaves, a stored prefix a partial sum): "
                      "the Certified interval a leaf estimate, TotalEstimate or a stored PrefixEstimate lies in is at "
                      "most DistanceError wide, plus 2^-30 of its upper end for the float64 sums (TryBoundDistance's "
                      "interval at any parameter is not bounded: the spec gives its method no width)")

REQUEST_STATUS = decision("distance:request_status", "docs/decisions.md 'Distance resolution': a target outside "
                          "[0, TotalEstimate] under Reject is InvalidDomain, a residual that does not fit "
                          "DistanceError UnsupportedPrecision, a bisection beyond max_iterations BudgetExceeded, a "
                          "nonfinite target or "
                          "max_iterations outside [0, 2^20] InvalidArgument; 'Distance maps: preparation, caches and "
                          "ownership': a build with strict = false is UnsupportedPrecision (the spec demands these "
                          "failures but names no status, and sets no iteration ceiling nor says a non-strict build "
                          "fails: without the decision any failure status is accepted there, and success where only "
                          "the decision fails the input)")

RULES = declare({
    "distance.statuses": (REQUEST_STATUS, PATH_REQUEST_STATUS),
    "distance.length_bounds": (ENCLOSURE, TOTAL_GAP, MIDPOINT_LEAVES, SPLIT_ORDER),
    "distance.prefix_bounds": (ENCLOSURE,),
    "distance.inversion_residual": (RESIDUAL_FITS, TARGET, RESOLUTION_RULES, BOUND_AT_RESULT, RESIDUAL),
    "distance.estimates": (ESTIMATE_INSIDE, ESTIMATE_WIDTH, ENCLOSURE),
})

_mpq = gmpy2.mpq


def controls_of(claim: Claim) -> np.ndarray:
    """A claim's float32 controls ``(n, 4, 3)`` (ValueError when malformed)."""
    C = dec_array(claim.inputs["controls"], np.float32)
    if C.ndim != 3 or C.shape[1:] != (4, 3) or C.shape[0] < 1:
        raise ValueError("controls must be float32 (n, 4, 3)")
    return C


def _at(claim: Claim, C: np.ndarray) -> tuple[int, float]:
    k = claim.inputs["span"]
    u = dec(claim.inputs["u"])
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < C.shape[0] or not 0.0 <= u <= 1.0:
        raise ValueError("span index or u out of range")
    return k, u


def truth(claim: Claim):
    """``enclose(prec)``, whose ``.value`` encloses the quantity a claim speaks of (Certified)."""
    C = controls_of(claim)
    if claim.inputs.get("range") == "total":
        k, u = _at(claim, C)
        if k != C.shape[0] - 1 or u != 1.0:
            raise ValueError("a total length is the prefix at the path end: span n - 1, u = 1")
    if claim.inputs.get("range") == "leaf":
        k = claim.inputs["span"]
        u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
        if not isinstance(k, int) or not 0 <= k < C.shape[0] or not 0.0 <= u0 <= u1 <= 1.0:
            raise ValueError("leaf span or range out of range")
        return lambda prec: Enclosure(arc_length(C[k], u0, u1, prec))
    k, u = _at(claim, C)
    return lambda prec: Enclosure(prefix_length(C, k, u, prec))


def _interval(claim: Claim, lo_key="lower", hi_key="upper", src=None):
    src = claim.value if src is None else src
    lo, hi = dec(src[lo_key]), dec(src[hi_key])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("bounds must be finite")
    return to_mpq(lo), to_mpq(hi)


def _position(lo, hi, a, b) -> float:
    """How far ``[a, b]`` reaches from the centre of ``[lo, hi]`` towards its nearer end, in
    half-widths: 0 at the centre, 1 at an end, above 1 outside. A lower end of exactly 0 is
    not counted (a length cannot fall below it: a stationary span's [0, 0] bound is tight by
    nature, not close to failing); a zero-width interval that holds the point exactly is 0."""
    c = (lo + hi) / 2
    reach = max(b - c, c - a if lo != 0 else _mpq(0), _mpq(0))
    return ratio(reach, (hi - lo) / 2)


def _decide_inside(claim: Claim, lo, hi) -> Decision:
    """Whether the claim's true length lies in the exact ``[lo, hi]``, refined over BUDGET."""
    enclose = truth(claim)

    def check(prec):
        L = enclose(prec).value
        if lo <= lower(L) and upper(L) <= hi:
            return Decision(True, prec, L)
        if upper(L) < lo or lower(L) > hi:
            return Decision(False, prec, L)
        return Decision(None, prec, L)

    return refine(check, BUDGET)


def _check_bounds(claim: Claim):
    lo, hi = _interval(claim)
    E = to_mpq(dec(claim.inputs["distance_error"]))
    measured = ratio(hi - lo, E) if hi >= lo else math.inf
    if hi < lo:
        return violated(claim, {"claimed": claim.value}, note="lower exceeds upper", bound_use=math.inf,
                        rule=ENCLOSURE.id)
    if claim.inputs.get("range") == "total" and hi - lo > E:
        return violated(claim, {"width": enc(hi - lo), "distance_error": claim.inputs["distance_error"]},
                        measure="width_over_distance_error", measured=measured, bound_use=measured,
                        note="TotalUpper - TotalLower exceeds distance_error (the build must split until it fits)",
                        rule=TOTAL_GAP.id)
    d = _decide_inside(claim, lo, hi)
    use = _position(lo, hi, lower(d.enclosure), upper(d.enclosure))
    if d.holds is True:
        return verified(claim, measure="width_over_distance_error", measured=measured, prec=d.prec, bound_use=use)
    if d.holds is False:
        return violated(claim, {"truth": enc_iv(d.enclosure), "claimed": claim.value},
                        measure="width_over_distance_error", measured=measured, prec=d.prec, bound_use=use,
                        rule=ENCLOSURE.id)
    return undecided(claim, enc_iv(d.enclosure), prec=d.prec, bound_use=use,
                     note="the length enclosure straddles a claimed bound at the precision budget")


def _dyadic(u0: float, u1: float) -> bool:
    """Whether ``[u0, u1]`` is ``[j 2^-d, (j + 1) 2^-d]``: a leaf made by midpoint splits."""
    w = to_mpq(u1) - to_mpq(u0)
    if w <= 0 or w.numerator != 1 or w.denominator & (w.denominator - 1):
        return False
    return (to_mpq(u0) / w).denominator == 1


# The replays of the last few maps whose leaves were judged (a build's leaf claims come together).
_REPLAYS: dict = {}
_REPLAYS_KEPT = 16


def _rule_leaves(C: np.ndarray, distance_error: float):
    """The split rule replayed on controls ``C`` and ``distance_error`` with no limit binding (a
    built map's leaves do not depend on the limits: a run a limit stops fails)."""
    key = (C.tobytes(), float(distance_error))
    if key not in _REPLAYS:
        if len(_REPLAYS) >= _REPLAYS_KEPT:
            _REPLAYS.pop(next(iter(_REPLAYS)))
        _REPLAYS[key] = replay_build(C, distance_error, NO_LIMITS)
    return _REPLAYS[key]


def _split_order(claim: Claim, k: int, u0: float, u1: float):
    """Violated when the replayed rule decides every run and none ends with the leaf; else None."""
    E = dec(claim.inputs["distance_error"])
    if not (math.isfinite(E) and E > 0):
        return None  # the bounds' own check judges the claim; the rule has nothing to replay
    r = _rule_leaves(controls_of(claim), E)
    if not r.decided or "Success" not in r.statuses or (k, u0, u1) in r.leaves:
        return None
    span_leaves = sorted([a, b] for s, a, b in r.leaves if s == k)
    return violated(claim, {"leaf": [k, claim.inputs["u0"], claim.inputs["u1"]],
                            "rule_ends_with": [list(f) for f in sorted(r.finals)],
                            "rule_leaves_of_span": [enc(x) for x in span_leaves[:16]]},
                    note="no run of the spec's split rule (largest gap first, ties to the earlier span and "
                         "parameter) ends with this leaf", rule=SPLIT_ORDER.id)


@oracle_faults
def check_length_bounds(claim: Claim):
    """Certified: the true length of the leaf (``range = leaf``: span, u0, u1) or of the whole
    path (``range = total``: the prefix at the path end) lies in ``[lower, upper]``; a total's
    width is at most ``distance_error``; a leaf is a midpoint subdivision of its span, and a leaf
    the spec's split rule ends with (:func:`_split_order`)."""
    if claim.inputs.get("range") not in ("leaf", "total"):
        raise ValueError("range must be 'leaf' or 'total'")
    if claim.inputs["range"] == "leaf":
        u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
        if 0.0 <= u0 <= u1 <= 1.0 and not _dyadic(u0, u1):
            return violated(claim, {"u0": claim.inputs["u0"], "u1": claim.inputs["u1"]},
                            note="a leaf is split at its parameter midpoint: [u0, u1] must be [j 2^-d, (j + 1) 2^-d]",
                            rule=MIDPOINT_LEAVES.id)
        k = claim.inputs["span"]
        if isinstance(k, int) and not isinstance(k, bool) and 0 <= k < controls_of(claim).shape[0] \
                and 0.0 <= u0 < u1 <= 1.0:
            bad = _split_order(claim, k, u0, u1)
            if bad is not None:
                return bad
    return _check_bounds(claim)


@oracle_faults
def check_prefix_bounds(claim: Claim):
    """Certified: the true prefix length ``L(span, u)`` lies in ``[lower, upper]``."""
    return _check_bounds(claim)


def effective_target(claim: Claim):
    """The exact target of the query after its policy (recomputed, not read from the claim)."""
    s = to_mpq(dec(claim.inputs["query"]))
    T = to_mpq(dec(claim.inputs["total_estimate"]))
    policy = claim.inputs["policy"]
    if T < 0:
        raise ValueError("TotalEstimate must be nonnegative")
    if 0 <= s <= T:
        return s
    if policy == "Clamp" or (policy == "Wrap" and T == 0):
        return _mpq(0) if s < 0 else T
    if policy == "Wrap":
        q = s / T
        return s - T * (q.numerator // q.denominator)  # floored remainder, in [0, T)
    raise ValueError(f"a {policy} query outside [0, TotalEstimate] has no resolution")


def _stationary(P: np.ndarray) -> bool:
    return bool(np.all(P == P[0]))


def _param(node, n: int, what: str) -> tuple:
    """An exact ``(span, u)`` key of a witness parameter in path order: ``(k, 1)`` of an
    interior span is ``(k + 1, 0)``."""
    k, u = node["span"], dec(node["u"])
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < n or not 0.0 <= u <= 1.0:
        raise ValueError(f"{what}: span or u out of range")
    return (k + 1, 0.0) if (u == 1.0 and k < n - 1) else (k, u)


def _adjacent(short: tuple, p: tuple, n: int) -> bool:
    """``short`` precedes ``p`` by at most the bisection's resolution (adjacent floats or a
    bracket of at most 2^-60) in one span (``(k + 1, 0)`` read as ``(k, 1)``)."""
    ks, us = short
    k, u = p
    if u == 0.0 and k == ks + 1:
        k, u = ks, 1.0
    if k != ks or not us < u:
        return False
    return u - us <= RESOLUTION or float(np.nextafter(us, np.inf)) == u


def _resolution_rules(claim: Claim, C: np.ndarray, s, T, k: int, u: float):
    """The resolution rules as exact checks: ``(note, witness)`` of the first broken rule, or
    None. ``s`` is the resolved distance (the fast path's target), T the TotalEstimate."""
    n = C.shape[0]
    if s == T:
        if (k, u) != (n - 1, 1.0):
            return ("the path end resolves to the last span at u = 1", {"parameter": [k, enc(u)]})
        return None
    if u == 1.0 and k < n - 1:
        return ("an exact boundary names the outgoing span at u = 0", {"parameter": [k, enc(u)]})
    if (u > 0.0 and _stationary(C[k])) or (u == 0.0 and k > 0 and _stationary(C[k - 1])):
        return ("a zero-length run resolves to its earliest parameter: an earlier parameter has the "
                "same prefix length", {"parameter": [k, enc(u)]})
    look = claim.value.get("lookup")
    if look is None:
        return None
    p = (k, u)
    after = look["after"]
    a_key, a_est = _param(after, n, "lookup.after"), to_mpq(dec(after["estimate"]))
    before = look.get("before")
    if before is None:
        if a_key != (0, 0.0) or s != 0:
            return ("lookup: only the path start has no stored boundary before it", {"lookup": look})
    else:
        b_key, b_est = _param(before, n, "lookup.before"), to_mpq(dec(before["estimate"]))
        if not b_key < a_key:
            return ("lookup: the boundary before must precede the boundary after", {"lookup": look})
        if not b_est < s:
            return ("the earliest boundary reaching the target is not the one found: the boundary "
                    "before it already reaches it", {"lookup": look, "distance": claim.value["distance"]})
        if not b_key < p:
            return ("the result precedes the leaf its lookup found", {"lookup": look, "parameter": [k, enc(u)]})
    if not s <= a_est:
        return ("lookup: the boundary after the result does not reach the target", {"lookup": look})
    if not p <= a_key:
        return ("the result lies past the first stored boundary that reaches the target",
                {"lookup": look, "parameter": [k, enc(u)]})
    if s == a_est:
        if p != a_key:
            return ("a target equal to a stored boundary estimate resolves to that exact boundary",
                    {"lookup": look, "parameter": [k, enc(u)]})
        return None
    short = claim.value.get("short")
    if short is None:
        return None
    sk = _param(short, n, "short")
    raw = (short["span"], dec(short["u"]))
    if not _adjacent(raw, p, n) or (before is not None and sk < b_key):
        return ("the bisection's last short parameter is not within float resolution before the result",
                {"short": short, "parameter": [k, enc(u)]})
    if not to_mpq(dec(short["estimate"])) < s:
        return ("not the earliest parameter that reaches the target: the estimate just before the result "
                "already reaches it", {"short": short, "distance": claim.value["distance"]})
    return None


@oracle_faults
def check_inversion_residual(claim: Claim):
    """Certified: ``|L(span, u) - target| <= residual_bound <= distance_error`` with the
    target recomputed exactly from the query, the resolved ``distance`` within the residual
    bound of that target, and the resolution rules (see the module docstring). With a claimed
    Certified ``bound`` at the result: the truth inside it, ``lower <= estimate <= upper``,
    the estimate reaching the resolved distance, and the residual bound covering both ends."""
    R = to_mpq(dec(claim.value["residual_bound"]))
    E = to_mpq(dec(claim.inputs["distance_error"]))
    resolved = dec(claim.value["distance"])
    if not math.isfinite(resolved):
        raise ValueError("the resolved distance must be finite")
    bad = nonfinite_value(claim, lambda at: RESOLUTION_RULES.id if at.startswith(("value.lookup", "value.short"))
                          else BOUND_AT_RESULT.id)
    if bad is not None:  # a NaN witness would pass every comparison below (each is False)
        return bad
    t = effective_target(claim)
    T = to_mpq(dec(claim.inputs["total_estimate"]))
    C = controls_of(claim)
    k, u = _at(claim, C)
    # Every witness parameter is a parameter of the path, whether or not a rule below reads it
    # (a resolution at the path end, or at a stored boundary, reads no lookup or short one).
    look, short = claim.value.get("lookup"), claim.value.get("short")
    for node, what in ((look and look.get("after"), "lookup.after"), (look and look.get("before"), "lookup.before"),
                       (short, "short")):
        if node is not None:
            _param(node, C.shape[0], what)
    enclose = truth(claim)
    s = to_mpq(resolved)
    if R > E:
        return violated(claim, {"residual_bound": claim.value["residual_bound"],
                                "distance_error": claim.inputs["distance_error"]},
                        note="the residual bound exceeds distance_error", bound_use=math.inf, rule=RESIDUAL_FITS.id)
    if abs(s - t) > R:
        return violated(claim, {"distance": claim.value["distance"], "target": enc(t),
                                "residual_bound": claim.value["residual_bound"]},
                        note="the resolved distance is not the query's target after its policy", bound_use=math.inf,
                        rule=TARGET.id)
    broken = _resolution_rules(claim, C, s, T, k, u)
    if broken is not None:
        return violated(claim, broken[1], note=broken[0], rule=RESOLUTION_RULES.id)
    bound = claim.value.get("bound")
    if bound is not None:
        blo, bhi = _interval(claim, src=bound)
        best = to_mpq(dec(bound["estimate"]))
        if not blo <= best <= bhi:
            return violated(claim, {"bound": bound}, note="the estimate at the result leaves its Certified bound",
                            rule=BOUND_AT_RESULT.id)
        if not best >= s:
            return violated(claim, {"bound": bound, "distance": claim.value["distance"]},
                            note="the result's estimate does not reach the target", rule=BOUND_AT_RESULT.id)
        if max(bhi - t, t - blo) > R:
            return violated(claim, {"bound": bound, "target": enc(t), "residual_bound": claim.value["residual_bound"]},
                            note="the residual bound does not cover the Certified prefix bound at the result",
                            rule=BOUND_AT_RESULT.id)

    def check(prec):
        L = enclose(prec).value
        far = max(upper(L) - t, t - lower(L))  # the largest |L - t| over the enclosure
        near = max(lower(L) - t, t - upper(L), _mpq(0))  # the smallest
        if bound is not None and (upper(L) < blo or lower(L) > bhi):
            return Decision(False, prec, L, ("bound", near))
        inside = bound is None or (blo <= lower(L) and upper(L) <= bhi)
        if far <= R and inside:
            return Decision(True, prec, L, far)
        if near > R:
            return Decision(False, prec, L, near)
        return Decision(None, prec, L)

    d = refine(check, BUDGET)
    if d.holds is True:
        use = ratio(d.detail, R)
        return verified(claim, measure="residual_over_bound", measured=use, prec=d.prec, bound_use=use)
    if d.holds is False:
        if isinstance(d.detail, tuple):
            return violated(claim, {"truth": enc_iv(d.enclosure), "bound": bound}, prec=d.prec,
                            note="the Certified prefix bound at the result misses the truth", bound_use=math.inf,
                            rule=BOUND_AT_RESULT.id)
        use = ratio(d.detail, R)
        return violated(claim, {"truth": enc_iv(d.enclosure), "target": enc(t), "claimed": claim.value},
                        measure="residual_over_bound", measured=use, prec=d.prec, bound_use=use, rule=RESIDUAL.id)
    return undecided(claim, enc_iv(d.enclosure), prec=d.prec,
                     note="|L - target| straddles the residual bound at the precision budget")


_WHAT = {"leaf estimate": "leaf", "TotalEstimate": "total", "PrefixEstimate": None, "DistanceBound.Estimate": None}


@oracle_faults
def check_estimates(claim: Claim):
    """Estimated: ``lower <= estimate <= upper`` (exact comparison), and the truth inside
    ``[lower, upper]``; measured ``|estimate - L| / L``. ``what`` names the estimate and must
    match the quantity the inputs name (a leaf, the total at the path end, or a prefix)."""
    what = claim.inputs["what"]
    if what not in _WHAT:
        raise ValueError(f"what = {what!r} is not one of {sorted(_WHAT)}")
    if claim.inputs.get("range") != _WHAT[what]:
        raise ValueError(f"{what} needs range {_WHAT[what]!r}")
    est = to_mpq(dec(claim.value["estimate"]))
    lo, hi = _interval(claim, src=claim.inputs)
    use = _position(lo, hi, est, est) if lo <= hi else math.inf
    if not lo <= est <= hi:
        return violated(claim, {"estimate": claim.value["estimate"], "lower": claim.inputs["lower"],
                                "upper": claim.inputs["upper"]}, note="the estimate leaves its Certified interval",
                        bound_use=use, rule=ESTIMATE_INSIDE.id)
    if "distance_error" in claim.inputs and what != "DistanceBound.Estimate":
        allowed = to_mpq(dec(claim.inputs["distance_error"])) + abs(hi) * _mpq(1, 2**30)
        if hi - lo > allowed:
            return violated(claim, {"width": enc(hi - lo), "distance_error": claim.inputs["distance_error"],
                                    "what": what}, bound_use=ratio(hi - lo, allowed),
                            note=f"the interval of {what} is wider than DistanceError: the estimate inside it is not "
                                 "bound to the truth", rule=ESTIMATE_WIDTH.id)
    d = _decide_inside(claim, lo, hi)
    L = d.enclosure
    mid = (lower(L) + upper(L)) / 2
    rel = ratio(abs(est - mid), mid) if mid > 0 else (0.0 if est == 0 else math.inf)
    if d.holds is True:
        return verified(claim, measure="relative_error", measured=rel, prec=d.prec, bound_use=use)
    if d.holds is False:
        return violated(claim, {"truth": enc_iv(L), "interval": [claim.inputs["lower"], claim.inputs["upper"]]},
                        measure="relative_error", measured=rel, prec=d.prec, bound_use=use,
                        note="the Certified interval of the estimate misses the truth", rule=ENCLOSURE.id)
    return undecided(claim, enc_iv(L), prec=d.prec, bound_use=use, note="truth straddles the estimate's interval")
