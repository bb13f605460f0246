"""Path checkers of the prepared-path rows: stored endpoints, control boxes, the position floor
(Exact); interior positions, derivatives and tangents (Rounded). Conversions and continuity
values are checked in ``checks_conversions.py`` and ``checks_continuity.py``.

Every truth is recomputed from ``claim.inputs`` alone:

* Exact rows replay narrowing in rational arithmetic (``interval.narrowing``) and compare
  values exactly (a signed zero equals zero: rationals carry no sign of zero).
* Evaluation claims name their request (the prepared path, span, u, policy, side), resolved
  exactly by :func:`exact_request_point`; a claim evaluated elsewhere, a value where the request
  names no point, or a status where it names one is Violated.
* Rounded rows measure ``|claimed - truth|`` against ``reference.error_model``'s formula,
  recomputed from the inputs at the unit roundoff and eta of the claim's declared model
  (``oracles.errormodel.resolve``: ``{"u": ...}``, ``k``, or an explicit ``bound``), else at
  binary64; verdicts carry the declared/reference ratio and ``bound_use`` (error / bound).
  Truth: exact QQ kernels for positions and derivatives, exact rationals with MPFR's directed
  square root for tangents.

:func:`degenerate_decision` states the tangent row's Degenerate rule as the status a request
demands of ``TryEvaluatePathTangent`` (``requests.py``), so the two cannot drift apart.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from interval.lazy import gmpy2
from interval.context import IV, QQ, to_mpq
from interval.narrowing import replay_narrowing, replay_position_floor, round_nearest_f64
from reference import error_model as EM
from reference import kernel as K
from reference.fp import U64, add_hi, mul_hi

from ...decide import DEFAULT_BUDGET, Decision, refine
from ...errormodel import ETA_OF_U, Resolved, resolve
from ...errormodel import ratio as error_ratio
from ...model import Claim, dec, dec_array, enc, undecided, verified, violated
from ...rules import binding, decision, declare, default, judged, spec

__all__ = [
    "BUDGET",
    "PATH_POLICIES",
    "SIDES",
    "check_control_boxes",
    "check_derivatives",
    "check_derivatives_batch",
    "check_interior_positions",
    "check_interior_positions_batch",
    "check_position_floor",
    "check_stored_endpoints",
    "check_tangents",
    "degenerate_decision",
    "exact_request_point",
]

# Interval precisions the checkers may spend (tests shrink it to show Undecided verdicts); the
# conversion and continuity checkers read it from here too.
BUDGET = DEFAULT_BUDGET

# --- Rules (oracles.rules): the path rows' rules and their sources -----------------------------
_S = "spec 002 "
_D = "docs/decisions.md "
NARROWING = spec("path:narrowing", _S + "Precision: 'Preparation subtracts the chunk origin in float64, then narrows "
                 "to float32': a stored endpoint is fl32(fl64(source - origin)), a control box the componentwise "
                 "min/max of the narrowed controls (Exact: values compared, a signed zero equals zero)")
POSITION_FLOOR = spec("path:position_floor", _S + "Precision: 'The effective position error, max(PositionError, "
                      "RelativePositionError x AssetScale), must be at least the float32 position floor 2 * ulp32(E) "
                      "of the narrowed controls and their narrowing error. Otherwise preparation returns "
                      "UnsupportedPrecision'")
FLOOR_PRODUCT = decision("path:floor_product", _D + "'Range checks compare exact values' and the floor replay: the "
                         "product RelativePositionError x AssetScale rounded once to float64 decides acceptance (the "
                         "spec does not say how the product rounds; without the decision the decision of the exact "
                         "product is accepted too)")
REQUEST_POINT = spec("path:request_point", _S + "Span sides ('An exact boundary selects the outgoing span at u = 0. "
                     "The terminal endpoint selects the last span at u = 1. SpanSide::Incoming selects the previous "
                     "span at u = 1') and Boundary policies ('Policies act only outside the closed domain. Paths "
                     "accept Reject, Clamp and, when closed, Wrap. Every other combination is InvalidArgument, and "
                     "nothing extrapolates'): a value is judged at the point its request names, and a request that "
                     "names no point has no value")
REQUEST_STATUS = decision("path:request_status", _D + "'Paths: the parameter domain and boundary policies': Reject "
                          "outside the domain answers InvalidDomain, a request naming no point (an interior span with "
                          "u outside [0, 1], a nonfinite u) InvalidArgument; the spec names neither status (it names "
                          "InvalidArgument for a policy combination), so without the decision any failure status is "
                          "accepted there")
SOURCE_STATUS = decision("path:source_status", _D + "'Paths: where the chunk origin lives, and what a prepared path "
                         "holds', 'Paths: conversion and tangent arguments' and 'Centripetal Catmull-Rom sources': a "
                         "source with no spans, a nonfinite origin or control, a domain width that is not finite and "
                         "positive or a negative revision, a conversion with fewer waypoints than one span needs, a "
                         "nonfinite waypoint, width or coincidence distance or a negative capacity, and a caller's "
                         "speed that is not finite and nonnegative are InvalidArgument; the spec names none of these "
                         "failures, so without the decision success is accepted there too")
OUT_OF_RANGE = decision("path:out_of_range", _D + "'Paths: overflowing conversions, extreme domain widths and "
                        "oversized sources rejected': a conversion or a preparation whose exact values (Hermite "
                        "controls and h T, Catmull-Rom differences, width-scaled joint derivatives) come near the "
                        "float64 range's ends may fail with OutOfRange; one whose exact Hermite control lies beyond "
                        "twice the largest float64 must (no float64 lies within a Rounded error of it), and a "
                        "Success never carries a converted value that is not finite; the spec names none of these, "
                        "so without the decision any status is accepted in the first case, any failure in the "
                        "second, and a nonfinite value where the error model gives no bound is Undecided")
ERROR_MODEL = default("path:error_model", _D + "'Error models of the Rounded path outputs' (or the claim's declared "
                      "model, 'Paths and tracks: declared error models in case files'): positions 16uE, derivatives "
                      "16u 6E and 16u 24E, tangents 2e/(|B'| - e) + 16u, conversions, joint values; spec 002 "
                      "Guarantees: 'Interior positions, derivatives, tangents, conversions, continuity values' are "
                      "Rounded, with no bound")
TANGENT_DEGENERATE = spec("path:tangent_degenerate", _S + "Paths: 'TryEvaluatePathTangent returns Degenerate where "
                          "|dP/du| is at or below a caller-supplied speed': Degenerate needs a true speed within the "
                          "computed speed's error of it, a tangent a true speed not certainly below it")

RULES = declare({
    "path.stored_endpoints": (NARROWING,),
    "path.control_boxes": (NARROWING,),
    "path.position_floor": (POSITION_FLOOR, FLOOR_PRODUCT),
    "path.interior_positions": (REQUEST_POINT, REQUEST_STATUS, ERROR_MODEL),
    "path.derivatives": (REQUEST_POINT, REQUEST_STATUS, ERROR_MODEL),
    "path.tangents": (REQUEST_POINT, REQUEST_STATUS, TANGENT_DEGENERATE, ERROR_MODEL),
    "path.statuses": (REQUEST_STATUS, SOURCE_STATUS, OUT_OF_RANGE),
})


# --- Exact rows --------------------------------------------------------------------------------


def _same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Exact equality of values (a signed zero equals zero)."""
    return a.shape == b.shape and bool(np.all(a == b))


def check_stored_endpoints(claim: Claim):
    """Exact: each stored endpoint is fl32(fl64(source - origin)), replayed in rationals."""
    src = dec_array(claim.inputs["source"])
    origin = dec_array(claim.inputs["origin"])
    if src.shape != (2, 3) or origin.shape != (3,):
        raise ValueError("stored_endpoints needs source (2, 3) and origin (3,)")
    truth = replay_narrowing(src, origin)
    got = dec_array(claim.value, np.float32)
    if _same_values(got, truth):
        return verified(claim, measure="mismatches", measured=0)
    return violated(claim, {"expected": enc(truth), "claimed": claim.value}, rule=NARROWING.id)


def check_control_boxes(claim: Claim):
    """Exact: the box is the componentwise min/max of the replayed float32 controls."""
    src = dec_array(claim.inputs["source"])
    origin = dec_array(claim.inputs["origin"])
    if src.shape != (4, 3) or origin.shape != (3,):
        raise ValueError("control_boxes needs source (4, 3) and origin (3,)")
    n = replay_narrowing(src, origin)
    qs = [[to_mpq(v) for v in col] for col in n.T]
    lo = np.array([float(min(c)) for c in qs], dtype=np.float32)
    hi = np.array([float(max(c)) for c in qs], dtype=np.float32)
    got_lo = dec_array(claim.value["lo"], np.float32)
    got_hi = dec_array(claim.value["hi"], np.float32)
    if _same_values(got_lo, lo) and _same_values(got_hi, hi):
        return verified(claim, measure="mismatches", measured=0)
    return violated(claim, {"expected_lo": enc(lo), "expected_hi": enc(hi), "claimed": claim.value},
                    rule=NARROWING.id)


@judged
def check_position_floor(claim: Claim):
    """Exact: ``max(2 ulp32(E), narrowing error)`` replayed in rationals, and the accept
    decision ``max(position_error, fl64(relative * scale)) >= floor``."""
    src = dec_array(claim.inputs["source"])
    origin = dec_array(claim.inputs["origin"])
    if src.ndim != 3 or src.shape[1:] != (4, 3):
        raise ValueError("position_floor needs source (n, 4, 3)")
    narrowed = replay_narrowing(src, origin)
    claimed_floor = claim.value["floor"]
    accepted = claim.value["accepted"]
    if not np.all(np.isfinite(narrowed)):
        ok = claimed_floor is None and accepted is False
        return verified(claim, measure="mismatches", measured=0) if ok else violated(
            claim, {"expected": "narrowed controls leave the float32 range: no floor, not accepted"},
            rule=POSITION_FLOOR.id)
    floor, _E = replay_position_floor(src, origin)
    pe = dec(claim.inputs["position_error"])
    product = to_mpq(dec(claim.inputs["relative_position_error"])) * to_mpq(dec(claim.inputs["asset_scale"]))
    eff = max(pe, round_nearest_f64(product))
    want_accept = eff >= floor
    got_floor = None if claimed_floor is None else dec(claimed_floor)
    if got_floor == floor and accepted is want_accept:
        return verified(claim, measure="mismatches", measured=0)
    # The exact product's decision, where the rounded one differs: a decision of ours picks the rounded one.
    exact_accept = max(to_mpq(pe), product) >= to_mpq(floor)
    other = got_floor == floor and accepted is exact_accept
    if other and not binding(FLOOR_PRODUCT):
        return verified(claim, measure="mismatches", measured=0, note="the exact product's acceptance")
    return violated(claim, {"expected_floor": enc(floor), "expected_accepted": want_accept,
                            "claimed": claim.value}, rule=FLOOR_PRODUCT.id if other else POSITION_FLOOR.id)


def _controls_u(claim: Claim):
    P = dec_array(claim.inputs["controls"], np.float32)
    u = dec(claim.inputs["u"])
    if P.shape != (4, 3) or not 0.0 <= u <= 1.0:
        raise ValueError("needs controls (4, 3) float32 and u in [0, 1]")
    return P, u


# --- Requests: the point an evaluation claim names ---------------------------------------------

PATH_POLICIES = ("Reject", "Clamp", "Wrap")
SIDES = ("Outgoing", "Incoming")


def exact_request_point(n: int, closed: bool, k: int, u: float, policy: str, side: str):
    """The ``(span, u)`` a path request names, decided exactly (spec 002 "Span sides" and
    "Boundary policies"; docs/decisions.md "Paths: the parameter domain and boundary
    policies"), or the status name of a request that names no point. Exact.

    Inside ``0 <= span < n, 0 <= u <= 1`` the request is its own point; ``(n, 0)`` and
    ``(-1, 1)`` are the terminal and first endpoints; otherwise ``x = span + u`` (a rational)
    is before the domain when ``x < 0`` and after it when ``x > n``, where Reject has no point
    (InvalidDomain), Clamp takes the nearer endpoint and Wrap (closed paths) takes ``x`` modulo
    n; any other request is InvalidArgument, as are Wrap on an open path and the track-only
    policies. Span sides then apply at exact boundaries.
    """
    if policy not in PATH_POLICIES or side not in SIDES:
        raise ValueError(f"unknown path policy {policy!r} or side {side!r}")
    if policy == "Wrap" and not closed:
        return "InvalidArgument"
    if not math.isfinite(u):
        return "InvalidArgument"
    if (k, u) == (n, 0.0):
        k, u = n - 1, Fraction(1)
    elif (k, u) == (-1, 1.0):
        k, u = 0, Fraction(0)
    elif not (0 <= k < n and 0.0 <= u <= 1.0):
        x = k + Fraction(u)
        if 0 <= x <= n:
            return "InvalidArgument"  # an interior span with u outside [0, 1]: no point
        if policy == "Reject":
            return "InvalidDomain"
        if policy == "Clamp":
            k, u = (0, Fraction(0)) if x < 0 else (n - 1, Fraction(1))
        else:
            r = x - n * math.floor(x / n)  # floored modulo: r in [0, n)
            k = math.floor(r)
            u = r - k
    else:
        u = Fraction(u)
    if u == 1 and k < n - 1 and side == "Outgoing":
        k, u = k + 1, Fraction(0)
    elif u == 0 and k > 0 and side == "Incoming":
        k, u = k - 1, Fraction(1)
    return k, float(u)  # u is u minus an integer: exact in float64


# The decoded ``request.path`` of the last few claims, by the identity of the encoded list (the
# corpus's claims of one case share it); each entry keeps the list alive, so an identity match
# is the same object, never a recycled id.
_PATH_CACHE: list = []


def _decoded_path(enc_path) -> np.ndarray:
    for obj, arr in _PATH_CACHE:
        if obj is enc_path:
            return arr
    arr = dec_array(enc_path, np.float32)
    arr.setflags(write=False)
    _PATH_CACHE.insert(0, (enc_path, arr))
    del _PATH_CACHE[4:]
    return arr


def _request(claim: Claim):
    """(controls of every span, n, the exact point or status) of a claim's ``request``."""
    req = claim.inputs["request"]
    if not isinstance(req, dict):
        raise ValueError("request must be an object")
    path = _decoded_path(req["path"])
    if path.ndim != 3 or path.shape[1:] != (4, 3) or path.shape[0] < 1:
        raise ValueError("request.path must be (n, 4, 3) float32 controls")
    k = req["span"]
    if not isinstance(k, int) or isinstance(k, bool):
        raise ValueError("request.span must be an integer")
    closed = req["is_closed"]
    if not isinstance(closed, bool):
        raise ValueError("request.is_closed must be a boolean")
    return path, exact_request_point(path.shape[0], closed, k, dec(req["u"]), req["policy"], req["side"])


def _evaluation_point(claim: Claim):
    """``(P, u, None)``: the controls and parameter a Rounded evaluation claim is judged at, or
    ``(None, None, verdict)`` when the claim is decided by its request alone.

    With a ``request``, the point is the one the request names exactly; a claim that also
    names ``controls`` and ``u`` (the point it evaluated) must name that point bit for bit, and
    a request without a point must claim its status (``path.interior_positions``) and no value.
    """
    inp = claim.inputs
    if "request" not in inp:
        P, u = _controls_u(claim)
        if isinstance(claim.value, dict) and "status" in claim.value and claim.row == "path.interior_positions":
            raise ValueError("a claimed status needs the request")
        return P, u, None
    path, point = _request(claim)
    status = claim.value.get("status") if isinstance(claim.value, dict) else None
    if claim.row == "path.tangents" and status == "Degenerate":
        status = None  # a tangent's Degenerate is decided at the point, below
    if isinstance(point, str):
        if status == point:
            return None, None, verified(claim, measure="error_ratio", measured=0, note=f"no point: {point}")
        # The spec names InvalidArgument for a policy combination paths reject; the other names are ours.
        req = claim.inputs["request"]
        ours = not (point == "InvalidArgument" and req["policy"] == "Wrap" and not req["is_closed"])
        failed = isinstance(status, str) and status != "Success"
        if failed and ours and not binding(REQUEST_STATUS):
            return None, None, verified(claim, measure="error_ratio", measured=0,
                                        note=f"no point: {status} (the decision says {point})")
        return None, None, violated(claim, {"expected_status": point, "claimed": claim.value,
                                            "why": "the request names no point"},
                                    rule=REQUEST_STATUS.id if failed and ours else REQUEST_POINT.id)
    k, u = point
    if status is not None:
        return None, None, violated(claim, {"expected_span": k, "expected_u": enc(u), "claimed": claim.value,
                                            "why": "a status where the request names a point"},
                                    rule=REQUEST_POINT.id)
    P = path[k]
    if "controls" in inp or "u" in inp:
        # The same text is the same value; other spellings are compared as values.
        same = inp["controls"] == claim.inputs["request"]["path"][k] and dec(inp["u"]) == u
        if not same:
            Pc, uc = _controls_u(claim)
            same = _same_values(Pc, P) and uc == u
        if not same:
            return None, None, violated(
                claim, {"expected_span": k, "expected_u": enc(u), "evaluated_u": inp["u"],
                        "why": "the claim evaluated another point than its request names (span side "
                               "or boundary policy)"}, rule=REQUEST_POINT.id)
    return P, u, None


# --- Shared: models and exact comparison -------------------------------------------------------


def _resolve(claim: Claim, reference) -> Resolved:
    """The claim's bound: its declared model, or ``reference(u, eta)`` at binary64."""
    return resolve(claim, reference, constant=EM.K)


def _nonfinite(*xs) -> bool:
    return any(not np.all(np.isfinite(np.asarray(x, dtype=np.float64))) for x in xs)


def _nonfinite_violation(claim: Claim, r: Resolved):
    # An overflowing or NaN result is a wrong value (Violated), not a malformed claim.
    return violated(claim, {"claimed": claim.value, "why": "a nonfinite value where the truth is finite"},
                    measure="error_ratio", bound_use=math.inf, rule=ERROR_MODEL.id, **r.extra())


def _exact_ratio(claimed: np.ndarray, truth, bound):
    """(holds, ratio, worst error) of ``max |claimed - truth| <= bound`` in exact rationals."""
    # gmpy2.mpq of a finite float is exact (callers reject nonfinite claims first).
    errs = [abs(gmpy2.mpq(c) - t) for c, t in zip(np.ravel(claimed).tolist(), np.ravel(truth))]
    worst = max(errs) if errs else gmpy2.mpq(0)
    b = to_mpq(bound)
    return worst <= b, error_ratio(worst, b), worst


def _fl(q) -> float:
    """A nonnegative rational as a float (inf where float(mpq) would overflow)."""
    return float(q) if q < 2**1000 else math.inf


def _position_reference(E: float):
    return lambda u, eta: EM.position_bound(E, u, eta=eta)


def _derivative_reference(E: float):
    return lambda u, eta: [EM.derivative_bound(E, u, eta=eta), EM.second_derivative_bound(E, u, eta=eta)]


# --- path.interior_positions (kept small and apart: one claim at a time, the whole rule) ------


def check_interior_positions(claim: Claim):
    """Rounded: ``|B(u) - exact| <= position_bound(E, u, eta)`` per component, exact QQ truth;
    the bound is the claim's declared model or the reference at binary64. With a ``request``,
    the point is the one it names exactly (span sides, policies), and a request without a
    point must claim its status. One claim through :func:`check_interior_positions_batch`."""
    from .filtering import one

    return one(check_interior_positions_batch, claim)


def check_interior_positions_batch(claims: list) -> list:
    """:func:`check_interior_positions` of each claim (a verdict, or the exception that says
    the claim is malformed): the float64 filter (``interval.filters.residual_ratios``) decides
    the claims whose error ratio it pins below 1, the exact stage every other."""
    from .filtering import filtered, position_value

    return filtered(claims, _exact_interior_position, position_value, _position_reference, ("point",))


@judged
def _exact_interior_position(claim: Claim):
    """The exact stage of ``path.interior_positions``: QQ truth, exact comparison."""
    P, u, decided = _evaluation_point(claim)
    if decided is not None:
        return decided
    claimed = dec_array(claim.value)
    if claimed.shape != (3,):
        raise ValueError("a position has three components")
    r = _resolve(claim, _position_reference(EM.span_magnitude(P)))
    if _nonfinite(claimed):
        return _nonfinite_violation(claim, r)
    truth = K.cubic_point(QQ, QQ.asarray(P), QQ.asarray(u))
    ok, ratio, worst = _exact_ratio(claimed, truth, r.scalar())
    if ok:
        return verified(claim, measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())
    return violated(claim, {"exact": [enc(t) for t in truth], "error": enc(worst), "bound": enc(r.scalar())},
                    measure="error_ratio", measured=ratio, bound_use=ratio, rule=ERROR_MODEL.id, **r.extra())


# --- path.derivatives --------------------------------------------------------------------------


def check_derivatives(claim: Claim):
    """Rounded: first and second derivatives per u within their bounds, exact QQ truth (at the
    point a ``request`` names exactly, as for positions). One claim through
    :func:`check_derivatives_batch`."""
    from .filtering import one

    return one(check_derivatives_batch, claim)


def check_derivatives_batch(claims: list) -> list:
    """:func:`check_derivatives` of each claim, filtered as positions are (both derivatives'
    ratios pinned below 1 by the filter, else the exact stage)."""
    from .filtering import derivative_value, filtered

    return filtered(claims, _exact_derivatives, derivative_value, _derivative_reference, ("first", "second"))


@judged
def _exact_derivatives(claim: Claim):
    """The exact stage of ``path.derivatives``."""
    P, u, decided = _evaluation_point(claim)
    if decided is not None:
        return decided
    first, second = dec_array(claim.value["first"]), dec_array(claim.value["second"])
    if first.shape != (3,) or second.shape != (3,):
        raise ValueError("derivatives have three components")
    r = _resolve(claim, _derivative_reference(EM.span_magnitude(P)))
    if _nonfinite(first, second):
        return _nonfinite_violation(claim, r)
    Pq, uq = QQ.asarray(P), QQ.asarray(u)
    ok1, r1, w1 = _exact_ratio(first, K.cubic_derivative(QQ, Pq, uq), r.bound[0])
    ok2, r2, w2 = _exact_ratio(second, K.cubic_second_derivative(QQ, Pq, uq), r.bound[1])
    ratio = max(r1, r2)
    if ok1 and ok2:
        return verified(claim, measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())
    return violated(claim, {"first_error": enc(w1), "second_error": enc(w2), "first_bound": enc(r.bound[0]),
                            "second_bound": enc(r.bound[1])},
                    measure="error_ratio", measured=ratio, bound_use=ratio, rule=ERROR_MODEL.id, **r.extra())


# --- path.tangents -----------------------------------------------------------------------------


def _iv_of(ctx, x):
    return ctx.asarray(np.asarray(x, dtype=np.float64))


# A unit tangent's error model is vacuous (inf) where the speed is within the derivative
# error; the check then only demands what holds of any unit vector near a unit truth: an error
# of at most 4 (two unit vectors are at most 2 apart). Angles lie in [0, pi]: the same cap.
_VACUOUS = 4.0


def _speed_error(E: float, u: float, eta: float) -> float:
    """Euclidean bound of the computed speed's error: sqrt(3) per-component derivative bounds
    plus ``sqrt(2 eta)`` for squares that underflow (``reference.error_model.tangent_bound``'s
    ``e + r``)."""
    e = float(mul_hi(math.sqrt(3.0) * (1 + 2 * U64), EM.derivative_bound(E, u, eta=eta)))
    return float(add_hi(e, math.sqrt(2.0 * eta) * (1 + 2 * U64)))


def _tangent_bound(E: float, speed: float, u: float, eta: float) -> float:
    """``EM.tangent_bound`` at unit roundoff ``u`` and subnormal step ``eta``, capped at
    ``_VACUOUS``."""
    return min(EM.tangent_bound(E, speed, u, eta=eta), _VACUOUS)


def _tangent_reference(E: float, speed: float):
    """[tangent bound at this speed, speed (Euclidean derivative) error]: the tangent row's
    two components; the second decides claimed Degenerate results."""
    return lambda u, eta: [_tangent_bound(E, speed, u, eta), _speed_error(E, u, eta)]


def _sqrt_bounds(q, prec: int):
    """``(lo, hi)``, exact rationals with ``lo <= sqrt(q) <= hi`` (q >= 0 rational): MPFR's
    correctly rounded square root at ``prec`` bits, rounded down and up (the argument is rounded
    the same way first)."""
    out = []
    for rnd in (gmpy2.RoundDown, gmpy2.RoundUp):
        with gmpy2.context(gmpy2.context(precision=prec, round=rnd)):
            out.append(gmpy2.mpq(gmpy2.sqrt(gmpy2.mpfr(q))))
    return out[0], out[1]


@judged
def check_tangents(claim: Claim):
    """Rounded: ``|T - B'/|B'|| <= tangent_bound(E, |B'|, u)`` (Euclidean); a claimed
    Degenerate needs a true speed within the derivative error of ``minimum_speed``, and a
    claimed tangent a true speed that is not certainly below it (at the point a ``request``
    names exactly, as for positions).

    Truth: ``B'(u)`` in exact rationals, its squared speed ``S`` exactly, and
    ``|T - B'/s|^2 = |T|^2 + 1 - 2 (T . B') / s`` with ``s = sqrt(S)`` enclosed by MPFR's square
    root rounded down and up at each precision of the budget: every comparison is of exact
    rationals (squares of the nonnegative sides)."""
    P, u, decided = _evaluation_point(claim)
    if decided is not None:
        return decided
    E = EM.span_magnitude(P)
    min_speed = to_mpq(dec(claim.inputs["minimum_speed"]))
    d = K.cubic_derivative(QQ, QQ.asarray(P), QQ.asarray(u))
    S = sum(x * x for x in d)  # the squared true speed, exactly
    s53 = _sqrt_bounds(S, 53)  # its float64 bounds (exact: 53-bit values)
    r_hi = _resolve(claim, _tangent_reference(E, float(s53[0])))  # smallest speed: largest bound
    r_lo = _resolve(claim, _tangent_reference(E, float(s53[1])))

    if claim.value.get("status") == "Degenerate":
        e = r_hi.bound[1]
        # How far the true speed reaches above minimum_speed, in units of its error.
        use = error_ratio(max(s53[0] - min_speed, gmpy2.mpq(0)), e)
        if S <= (min_speed + e) ** 2:
            return verified(claim, note="degenerate within the derivative error", bound_use=use, **r_hi.extra())
        return violated(claim, {"true_speed_lower": enc(s53[0]), "minimum_speed": claim.inputs["minimum_speed"],
                                "speed_error": enc(e)}, bound_use=use, rule=TANGENT_DEGENERATE.id, **r_hi.extra())

    t = dec_array(claim.value["tangent"])
    if t.shape != (3,):
        raise ValueError("a tangent has three components")
    if _nonfinite(t):
        return _nonfinite_violation(claim, _resolve(claim, _tangent_reference(E, 0.0)))
    if S == 0:
        d_ = Decision(False, 0, None, {"why": "zero speed has no tangent (Degenerate)", "resolved": r_lo})
        return _tangent_verdict(claim, d_)
    gap = min_speed - r_lo.bound[1]
    if gap > 0 and S < gap * gap:
        d_ = Decision(False, 0, None, {"why": "the true speed is below minimum_speed by more than its error: "
                                              "Degenerate required", "true_speed_upper": enc(s53[1]),
                                       "resolved": r_lo})
        return _tangent_verdict(claim, d_)
    tq = [to_mpq(float(x)) for x in t]
    A = sum(x * x for x in tq) + 1
    B = sum(x * y for x, y in zip(tq, d))
    b_lo, b_hi = to_mpq(r_lo.bound[0]), to_mpq(r_hi.bound[0])

    def at(prec):
        sL, sU = _sqrt_bounds(S, prec)
        lo, hi = (A - 2 * B / sL, A - 2 * B / sU) if B >= 0 else (A - 2 * B / sU, A - 2 * B / sL)
        lo = max(lo, gmpy2.mpq(0))  # the squared error, enclosed
        e_lo, e_hi = _sqrt_bounds(lo, 53)[0], _sqrt_bounds(hi, 53)[1]
        detail = {"ratio": math.sqrt(error_ratio(hi, b_lo * b_lo)), "bound": enc(b_lo), "error_hi": enc(e_hi),
                  "resolved": r_lo, "vacuous": b_lo == _VACUOUS}
        if hi <= b_lo * b_lo:
            return Decision(True, prec, None, detail)
        if lo > b_hi * b_hi:
            return Decision(False, prec, [enc(e_lo), enc(e_hi)], detail)
        return Decision(None, prec, [enc(e_lo), enc(e_hi)], detail)

    return _tangent_verdict(claim, refine(at, BUDGET))


def _tangent_verdict(claim: Claim, d: Decision):
    extra = d.detail["resolved"].extra()
    shown = {k: v for k, v in d.detail.items() if k != "resolved"}
    use = d.detail.get("ratio", math.inf)
    if d.holds is True:
        return verified(claim, measure="error_ratio", measured=d.detail["ratio"], prec=d.prec, bound_use=use,
                        note="model vacuous at this speed" if d.detail.get("vacuous") else "", **extra)
    if d.holds is False:
        return violated(claim, {"error_interval": d.enclosure, **shown}, measure="error_ratio",
                        measured=d.detail.get("ratio"), prec=d.prec, bound_use=use,
                        rule=TANGENT_DEGENERATE.id if "why" in d.detail else ERROR_MODEL.id, **extra)
    return undecided(claim, d.enclosure, prec=d.prec, note="error interval straddles the model bound",
                     bound_use=use, **extra)


def _true_speed(P, u, prec):
    ctx = IV(prec)
    return K.norm(ctx, K.cubic_derivative(ctx, ctx.asarray(P), ctx.asarray(u)))


def degenerate_decision(P: np.ndarray, u: float, minimum_speed: float):
    """What TryEvaluatePathTangent must answer at the float32 controls ``P`` and parameter ``u``
    for the caller's ``minimum_speed``, by the rule :func:`check_tangents` applies at binary64:
    ``"Degenerate"`` where the true speed is exactly zero (the spec's stationary span, zero-speed
    ease endpoint, cusp) or below ``minimum_speed`` by more than the computed speed's error
    e + r, ``"Success"`` where it is above ``minimum_speed + e + r``, ``None`` (either) in
    between, where a correctly rounded |dP/du| may fall on either side of the caller's speed.
    Exact: the squared speed is compared as a rational."""
    Pq, e = _exact_span(np.ascontiguousarray(P, dtype=np.float32).tobytes())
    d = K.cubic_derivative(QQ, Pq, QQ.asarray(u))
    S = sum(x * x for x in d)
    m = to_mpq(minimum_speed)
    if S == 0 or (m > e and S < (m - e) ** 2):
        return "Degenerate"
    if S > (m + e) ** 2:
        return "Success"
    return None


@lru_cache(maxsize=64)
def _exact_span(controls: bytes):
    """A span's float32 controls as exact rationals, and its binary64 speed error e + r (the
    queries of one path share them)."""
    P = np.frombuffer(controls, dtype=np.float32).reshape(4, 3)
    return QQ.asarray(P), to_mpq(_speed_error(EM.span_magnitude(P), U64, ETA_OF_U[U64]))
