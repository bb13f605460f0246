"""Point-search checker: ``point_search.nearest`` (Rounded), spec 002 "Point neighborhoods".

The truth is every point's exact squared distance (``interval.point_search``, integers scaled by
``2^298``). With ``b_i`` the model bound of the i-th returned distance ``d_i`` -- ``U32 d + ETA32
+ 8 (u d + eta)`` (the final rounding to the float32 output plus eight roundings at the
evaluator's unit roundoff ``u``: binary64 by default, ``2^-24`` for a float32 evaluator that
declares it) -- a claim is Verified when:

* it has ``count`` distinct in-range indices and ``count`` distances;
* each ``|distance_i - d_i| <= b_i`` and the distances are non-decreasing;
* duplicate positions (equal float32 coordinates: equal distances however computed, the spec's
  "orders equal distances by original source index") and, under the decisions, every exact tie
  are in increasing source index, among the returned points and across the cut (no excluded
  duplicate, or point at exactly a returned distance, has a lower index);
* any other inversion -- a returned point ahead of a nearer returned point, or a returned point
  instead of a nearer excluded one -- is within ``2 b`` of the farther point's bound (both
  estimates within their bounds could then compare either way: the spec's processor band).

A query the spec rejects (count outside ``[1, min(n, MAX_POINT_NEIGHBORS)]``, a nonfinite query
or one above ``MAX_POINT_SEARCH_COORDINATE``, positions a build rejects) must claim
``InvalidArgument``. Measured: the worst of ``|error| / b`` and ``gap / 2 b`` (band use).
"""

from __future__ import annotations

import math
from functools import lru_cache

import gmpy2

from interval.point_search import as_rational, exact_nearest, exact_squared_distances, inversion_allowed
from reference.point_search import DISTANCE_ERROR_K, ETA32, MAX_POINT_NEIGHBORS, MAX_POINT_SEARCH_COORDINATE, U32

from ...errormodel import Resolved, ratio, resolve
from ...model import Claim, NumberError, enc, number_as, verified, violated
from ...rules import binding, decision, declare, default, judged, spec

__all__ = ["EXACT_TIE_ORDER", "RULES", "check_nearest", "model_bound"]

_S = "spec 002 Point neighborhoods: "
_D = "docs/decisions.md "
REJECTIONS = spec("point_search:rejections", _S + "'Build copies World positions, accepting duplicates and rejecting "
                  "nonfinite coordinates, magnitudes above MAX_POINT_SEARCH_COORDINATE, and invalid counts. ... "
                  "FindNearest ... returns 1 through MAX_POINT_NEIGHBORS results ... The requested count cannot exceed "
                  "the input point count': such a request fails, a valid one succeeds")
LIMITS = default("point_search:limits", _D + "'Point search: limits': MAX_POINT_NEIGHBORS = 32 and "
                 "MAX_POINT_SEARCH_COORDINATE = 2^60 (the spec names both without values), queries held to the same "
                 "coordinate limit")
STATUS_NAME = decision("point_search:status_name", _D + "'Point search: limits': a rejected request answers "
                       "InvalidArgument (the spec says these requests fail and names no status; without the decision "
                       "any failure status is accepted)")
COUNT = spec("point_search:count", _S + "'returns 1 through MAX_POINT_NEIGHBORS results': count distinct indices of "
             "input points, with one distance each")
DISTANCE_BOUND = default("point_search:distance_bound", _D + "'Point search: error model and band': |r - d| <= 2^-24 d "
                         "+ 2^-149 + 8 (u d + eta) for the squared distance d (or the claim's declared model); the "
                         "spec: 'This is ordinary float32 spatial search, not a certified geometric bound'")
ORDER = spec("point_search:order", _S + "'orders equal distances by original source index ... nearly equal distances "
             "can be ordered differently on different processors': distances non-decreasing, and a farther point "
             "ahead of (or instead of) a nearer one only within the band of " + _D + "'Point search: error model "
             "and band' (2 b)")
EXACT_TIE_ORDER = decision("point_search:exact_tie_order", _D + "'Point search: distances and order': exact ties "
                           "(equal exact squared distances) in increasing source index, among the returned points and "
                           "across the cut, whatever the band: stricter than the spec's 'nearly equal distances can be "
                           "ordered differently on different processors' (a float32 evaluation may compute an exact "
                           "tie as unequal); without the decision an exact tie is a near tie of gap 0, which the band "
                           "allows")

DUPLICATE_ORDER = spec("point_search:duplicate_order", _S + "'accepting duplicates ... orders equal distances by "
                       "original source index': points at the same float32 position have equal distances however "
                       "they are computed (the same arithmetic on the same numbers), so the processor latitude for "
                       "'nearly equal distances' does not reach them: duplicates in increasing source index, among "
                       "the returned points and across the cut")

RULES = declare({"point_search.nearest": (REJECTIONS, LIMITS, STATUS_NAME, COUNT, DISTANCE_BOUND, ORDER,
                                          DUPLICATE_ORDER, EXACT_TIE_ORDER),
                 "point_search.statuses": (STATUS_NAME,)})

_MAXC = MAX_POINT_SEARCH_COORDINATE
_K = gmpy2.mpq(DISTANCE_ERROR_K)
_U32, _ETA32 = gmpy2.mpq(U32), gmpy2.mpq(ETA32)


@lru_cache(maxsize=16)
def _positions_of(key: tuple) -> tuple:
    return tuple(tuple(number_as(x, "f32", finite=False) for x in p) for p in key)


def _positions(claim: Claim) -> tuple:
    raw = claim.inputs["positions"]
    if not isinstance(raw, list) or not raw or not all(isinstance(p, list) and len(p) == 3 for p in raw):
        raise ValueError("positions are a nonempty list of 3-vectors")
    try:
        key = tuple(tuple(p) for p in raw)
        return _positions_of(key)
    except TypeError:
        raise ValueError("positions hold numbers only") from None


def _valid_coordinates(p) -> bool:
    return all(math.isfinite(x) and abs(x) <= _MAXC for x in p)


def _request(claim: Claim):
    """``(positions, query, count, rejected)``; ``rejected`` names why the spec rejects it."""
    pos = _positions(claim)
    q = claim.inputs["query"]
    if not isinstance(q, list) or len(q) != 3:
        raise ValueError("query is a 3-vector")
    q = tuple(number_as(x, "f32", finite=False) for x in q)
    k = claim.inputs["count"]
    if not isinstance(k, int) or isinstance(k, bool):
        raise ValueError("count is an integer")
    if not all(_valid_coordinates(p) for p in pos):
        return pos, q, k, "a position the build rejects"
    if not 1 <= k <= min(len(pos), MAX_POINT_NEIGHBORS):
        return pos, q, k, "count outside [1, min(point count, MAX_POINT_NEIGHBORS)]"
    if not _valid_coordinates(q):
        return pos, q, k, "a nonfinite query or one above MAX_POINT_SEARCH_COORDINATE"
    return pos, q, k, None


def model_bound(d, u, eta):
    """The row's bound on a reported squared distance ``d`` (exact mpq): ``U32 d + ETA32 +
    8 (u d + eta)``."""
    return _U32 * d + _ETA32 + _K * (gmpy2.mpq(u) * d + gmpy2.mpq(eta))


def _resolve(claim: Claim, ds: list) -> Resolved:
    return resolve(claim, lambda u, eta: [model_bound(d, u, eta) for d in ds], constant=DISTANCE_ERROR_K)


def _g(x: float) -> str:
    return f"{x:.3g}"


@judged
def check_nearest(claim: Claim):
    """Rounded: the claimed neighbours are an exact k-nearest list up to the model's band, exact
    ties in source-index order, distances within the model bound and non-decreasing."""
    pos, q, k, rejected = _request(claim)
    value = claim.value
    if rejected is not None:
        if claim.model:  # a declared model must still be applicable: validate its shape
            resolve(claim, lambda u, eta: [0] * (k if isinstance(k, int) and 1 <= k <= MAX_POINT_NEIGHBORS else 1),
                    constant=DISTANCE_ERROR_K)
        status = value.get("status")
        if status == "InvalidArgument":
            return verified(claim, measure="error_ratio", measured=0, note=f"rejected: {rejected}")
        failed = isinstance(status, str) and status != "Success"
        if failed and not binding(STATUS_NAME):
            return verified(claim, measure="error_ratio", measured=0, note=f"rejected ({status}): {rejected}")
        return violated(claim, {"expected": "InvalidArgument", "why": rejected, "claimed": value},
                        note=f"the spec rejects this request ({rejected}): InvalidArgument expected",
                        rule=STATUS_NAME.id if failed else REJECTIONS.id)
    D = exact_squared_distances(pos, q)
    truth = exact_nearest(D, k)
    expected = {"indices": truth, "distances": [enc(as_rational(D[j])) for j in truth]}
    if "status" in value:
        return violated(claim, {"expected": expected, "claimed": value},
                        note=f"a valid request answered with status {value['status']}", rule=REJECTIONS.id)
    idx, raw = value["indices"], value["distances"]
    if not isinstance(idx, list) or not isinstance(raw, list) or not all(
            isinstance(j, int) and not isinstance(j, bool) for j in idx):
        raise ValueError("indices is a list of integers and distances a list of numbers")
    if len(idx) != k or len(raw) != k or len(set(idx)) != k or not all(0 <= j < len(pos) for j in idx):
        why = f"not {k} distinct indices in [0, {len(pos)}) with {k} distances"
        return violated(claim, {"expected": expected, "claimed": value, "why": why}, note=why, rule=COUNT.id)
    try:
        dist = [number_as(x, "f32", finite=False) for x in raw]
    except NumberError as e:
        raise ValueError(f"distances: {e}") from None
    d = [as_rational(D[j]) for j in idx]
    r = _resolve(claim, d)
    b = r.bound
    extra = r.extra()
    if not all(math.isfinite(x) for x in dist):
        return violated(claim, {"expected": expected, "claimed": value, "why": "a nonfinite distance"},
                        measure="error_ratio", note="a nonfinite distance", rule=DISTANCE_BOUND.id, **extra)
    worst = 0.0
    for i in range(k):
        err = abs(gmpy2.mpq(dist[i]) - d[i])
        worst = max(worst, ratio(err, b[i]))
        if err > b[i]:
            return violated(claim, {"expected": expected, "claimed": value, "position": i,
                                    "bound": enc(b[i]), "why": "a distance outside its bound"},
                            measure="error_ratio", measured=ratio(err, b[i]), bound_use=ratio(err, b[i]),
                            note=f"squared distance {i} (point {idx[i]}) is {_g(ratio(err, b[i]))} times "
                                 "its bound away from the exact one", rule=DISTANCE_BOUND.id, **extra)
    if any(dist[i + 1] < dist[i] for i in range(k - 1)):
        return violated(claim, {"expected": expected, "claimed": value, "why": "distances decrease"},
                        measure="error_ratio", measured=worst, bound_use=worst,
                        note="the claimed distances decrease", rule=ORDER.id, **extra)
    # order among the returned points
    for i in range(k):
        for j in range(i + 1, k):
            a, c = idx[i], idx[j]
            if D[a] == D[c]:
                dup = pos[a] == pos[c]
                if a > c and (dup or binding(EXACT_TIE_ORDER)):
                    what = "duplicate points" if dup else "an exact tie"
                    return violated(claim, {"expected": expected, "claimed": value, "positions": [i, j],
                                            "why": f"{what} out of source-index order"},
                                    note=f"points {a} and {c} ({what}) are not in source-index order",
                                    rule=DUPLICATE_ORDER.id if dup else EXACT_TIE_ORDER.id, **extra)
            elif D[a] > D[c]:
                worst = max(worst, ratio(d[i] - d[j], 2 * b[i]))
                if not inversion_allowed(d[i], d[j], b[i]):
                    return violated(claim, {"expected": expected, "claimed": value, "positions": [i, j],
                                            "why": "a farther point ahead of a nearer one beyond the band"},
                                    measure="error_ratio", measured=ratio(d[i] - d[j], 2 * b[i]),
                                    bound_use=ratio(d[i] - d[j], 2 * b[i]),
                                    note=f"point {a} is listed before the nearer point {c}, beyond the band",
                                    rule=ORDER.id, **extra)
    # membership: no excluded point is nearer beyond the band or an exact tie with a lower index
    chosen = set(idx)
    top = max(D[j] for j in idx)
    tie_max, dup_max = {}, {}
    for j in idx:
        tie_max[D[j]] = max(tie_max.get(D[j], -1), j)
        dup_max[pos[j]] = max(dup_max.get(pos[j], -1), j)
    for c in range(len(pos)):
        if c in chosen or D[c] > top:
            continue
        if pos[c] in dup_max and c < dup_max[pos[c]]:
            return violated(claim, {"expected": expected, "claimed": value, "excluded": c,
                                    "why": "an excluded duplicate has a lower source index"},
                            note=f"point {c} duplicates a returned point of higher source index but is left out",
                            rule=DUPLICATE_ORDER.id, **extra)
        if D[c] in tie_max and c < tie_max[D[c]] and binding(EXACT_TIE_ORDER):
            return violated(claim, {"expected": expected, "claimed": value, "excluded": c,
                                    "why": "an excluded exact tie has a lower source index"},
                            note=f"point {c} ties exactly with a returned point of higher source index but is left out",
                            rule=EXACT_TIE_ORDER.id, **extra)
        dc = as_rational(D[c])
        for i, a in enumerate(idx):
            if D[a] > D[c]:
                worst = max(worst, ratio(d[i] - dc, 2 * b[i]))
                if not inversion_allowed(d[i], dc, b[i]):
                    return violated(claim, {"expected": expected, "claimed": value, "excluded": c,
                                            "position": i, "why": "a nearer point left out beyond the band"},
                                    measure="error_ratio", measured=ratio(d[i] - dc, 2 * b[i]),
                                    bound_use=ratio(d[i] - dc, 2 * b[i]),
                                    note=f"point {c}, nearer than the returned point {a} beyond the band, is left out",
                                    rule=ORDER.id, **extra)
    return verified(claim, measure="error_ratio", measured=worst, bound_use=worst,
                    note=f"the {k} nearest of {len(pos)} points: squared distances within their bounds "
                         f"(at most {_g(worst)} of one), order and membership exact up to the band",
                    **extra)
