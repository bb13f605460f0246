"""Path requests: the corpus as requests, each step with the status the spec demands of it.

Long on purpose: the expectations of every path operation (prepare, evaluate, tangent, the two
conversions, and the float64 range's ends across them) and the named status contracts form one
table of the spec's demands; split, each half would import the other's exact helpers.

A path case is a scenario: ``TryPreparePath`` of its source, then for each query (span, u,
policy, side) a ``TryEvaluatePath`` and a ``TryEvaluatePathTangent`` on the prepared path: per
span the special parameters 0, 1, 1/2, 2^-30, 1 - 2^-53 (both sides at 0 and 1) and three random
ones, the endpoints by their outside names (n, 0) and (-1, 1), and thirteen requests outside
the domain under Reject, Clamp and Wrap. A conversion case is one ``TryConvertHermite`` or
``TryConvertCentripetalCatmullRom``. The first 27 requests are the named corpus cases of
``corpus.py``; then come the status contracts (:func:`status_requests`, 67 requests, so
``--cases 94`` reaches the last of them): every status the spec and our decisions name for each
op, every limit met with equality (must succeed) and exceeded by one (must fail), failed
rebuilds that must keep the previous path, and failed conversions that must keep the caller's
spans. The rest are random paths and conversions.

Expected statuses are decided here from the spec's text and ``docs/decisions.md``, on the exact
inputs, never by running the fast path: the position floor by the exact replay of
``interval.narrowing`` (the oracle of ``path.position_floor``), joint gaps and coincident
waypoints as exact rational distances, the point a request names by
``checks.exact_request_point``, and a tangent's Degenerate by the exact squared speed against
the caller's speed and its rounding band (``checks.degenerate_decision``).

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryPreparePath``: ``spans`` ``[{"controls": 4 x 3 f64, "domain_width": f64}, ...]``,
  ``revision`` (integer), ``is_closed``, ``origin`` (3 f64, the chunk origin), ``tolerance``
  (every ``ToleranceProfile`` field, f64) and ``limits`` (every ``WorkLimits`` field, integers);
  output: the path the owner holds after the step, ``{"controls": n x 4 x 3 f32,
  "domain_widths", "origin", "revision", "is_closed", "position_floor"}`` (``{"controls": []}``
  while empty).
* ``TryEvaluatePath``: ``span`` (integer), ``u`` (f64), ``policy``, ``side``, on the path the
  owner holds; output: ``{"position", "first", "second"}`` (chunk-relative, per u), or
  ``{"status"}``.
* ``TryEvaluatePathTangent``: ``span``, ``u``, ``policy``, ``side`` and ``minimum_speed`` (f64,
  the caller's speed), on the path the owner holds; output: ``{"tangent"}`` or ``{"status"}``.
* ``TryConvertHermite``: ``waypoints`` ``[[position 3 f64, tangent 3 f64, outgoing_width f64],
  ...]``, ``is_closed``, ``capacity`` (integer: spans the caller's ranges hold); output: the
  caller's ranges after the step, ``{"controls": capacity x 4 x 3 f64, "widths": capacity f64}``
  (zero before anything is written; a request's conversions of one capacity share the ranges).
* ``TryConvertCentripetalCatmullRom``: ``points`` (n x 3 f64), ``is_closed``,
  ``coincidence_distance`` (f64), ``capacity``; output as for ``TryConvertHermite``.
"""

from __future__ import annotations

import zlib
from fractions import Fraction
from functools import lru_cache

import numpy as np

from interval.context import QQ, to_mpq
from interval.narrowing import replay_narrowing, replay_position_floor, round_nearest_f64
from reference import kernel as K
from reference.status import LIMIT_RANGES, TOLERANCE_RANGES, BoundaryPolicy, SpanSide, ToleranceProfile

from ...model import dec, dec_array, enc, parse_number
from ...model import is_integer as _is_int, is_finite_number as _finite
from ...request import (
    ANY_OUTCOME, Expect, Request, Rule, Step, collect_defects, decided, decided_by_kinds, either, failure, interleaved,
    success,
)
from .checks import OUT_OF_RANGE, PATH_POLICIES, REQUEST_STATUS, SOURCE_STATUS, degenerate_decision, \
    exact_request_point
from .checks_conversions import first_coincident_pair
from .corpus import LIMITS, NAMED, corpus_cases, stored_thresholds, tolerance

__all__ = [
    "case_request",
    "enc_limits",
    "enc_tolerance",
    "expected_conversion",
    "expected_evaluate",
    "expected_prepare",
    "expected_tangent",
    "prepare_inputs",
    "requests",
    "status_requests",
]

_O, _I = SpanSide.Outgoing, SpanSide.Incoming
_R, _C, _W = BoundaryPolicy.Reject, BoundaryPolicy.Clamp, BoundaryPolicy.Wrap
_SPECIAL_US = (0.0, 1.0, 0.5, 2.0**-30, 1.0 - 2.0**-53)

_PREPARE_ROWS = ("path.position_floor", "path.stored_endpoints", "path.control_boxes")
_EVALUATE_ROWS = ("path.interior_positions", "path.derivatives")
_TANGENT_ROWS = ("path.tangents",)
_CONVERSION_ROWS = ("path.conversions",)

_WHY_TOL = "docs/decisions.md 'ADR 0024 ranges of ToleranceProfile' (spec 002: 'Every tolerance field is validated')"
_WHY_LIMITS = "docs/decisions.md 'WorkLimits fields and ranges'"
_WHY_BUDGET = "spec 002 'a zero work limit allows no work'; docs/decisions.md 'Paths: where the chunk origin lives'"
_WHY_SOURCE = "docs/decisions.md 'Paths: where the chunk origin lives, and what a prepared path holds'"
_WHY_FLOOR = ("spec 002 Precision: the effective position error 'must be at least the float32 position floor ... "
              "Otherwise preparation returns UnsupportedPrecision' (exact replay, interval.narrowing)")
_WHY_TOPOLOGY = ("spec 002 Connectivity: 'Consecutive spans, and the closing joint of a closed path, must meet "
                 "within ContinuityPosition (InvalidTopology otherwise)' (exact gap)")
_WHY_POLICY = ("spec 002 Boundary policies: 'Paths accept Reject, Clamp and, when closed, Wrap. Every other "
               "combination is InvalidArgument'")
_WHY_DOMAIN = "docs/decisions.md 'Paths: the parameter domain and boundary policies'"
_WHY_DEGENERATE = ("spec 002 Paths: 'TryEvaluatePathTangent returns Degenerate where |dP/du| is at or below a "
                   "caller-supplied speed'")
_WHY_ARGS = "docs/decisions.md 'Paths: conversion and tangent arguments'"
_WHY_CAPACITY = "spec 002 Paths: 'Both conversions check output capacity before writing (CapacityExceeded)'"
_WHY_COINCIDENT = ("spec 002 Paths: 'rejects consecutive waypoints within coincidenceDistance as InvalidDomain' "
                   "(exact distance; docs/decisions.md 'Centripetal Catmull-Rom sources')")
_WHY_KEEP = "spec 002 Contracts: 'a failed rebuild keeps the previous snapshot'"
_WHY_UNCHANGED = "spec 002 Contracts: fallible functions 'leave outputs unchanged on failure'"


# --- Encoding ----------------------------------------------------------------------------------


def enc_limits(limits) -> dict:
    """Every ``WorkLimits`` field, as JSON integers."""
    return {name: int(getattr(limits, name)) for name in LIMIT_RANGES}


def enc_tolerance(tol: ToleranceProfile) -> dict:
    """Every ``ToleranceProfile`` field, as exact hex floats (the spec has no defaults)."""
    return {name: enc(float(getattr(tol, name))) for name in TOLERANCE_RANGES}


def prepare_inputs(source, widths, origin, closed: bool, tol: ToleranceProfile, limits=LIMITS,
                   revision: int = 1) -> dict:
    """``TryPreparePath``'s inputs from arrays (source (n, 4, 3), widths (n,), origin (3,))."""
    source = np.asarray(source, dtype=np.float64).reshape(-1, 4, 3)
    return {"spans": [{"controls": enc(source[i]), "domain_width": enc(float(w))} for i, w in enumerate(widths)],
            "revision": revision, "is_closed": bool(closed), "origin": enc(np.asarray(origin, dtype=np.float64)),
            "tolerance": enc_tolerance(tol), "limits": enc_limits(limits)}




def _finite_array(raw, shape) -> np.ndarray | None:
    """The decoded float64 array, or None when it is not ``shape`` or not finite."""
    try:
        a = dec_array(raw)
    except (ValueError, TypeError):
        return None
    return a if a.shape == shape and np.all(np.isfinite(a)) else None


# --- What the spec demands: TryPreparePath ---------------------------------------------------


def _prepared_bytes(n: int, joints: int) -> int:
    """``n * (48 + 8) + joints * 64`` (docs/decisions.md 'Paths: where the chunk origin lives')."""
    return n * (48 + 8) + joints * 64


def _exact_gap_exceeds(narrowed: np.ndarray, closed: bool, limit: Fraction) -> list:
    """The joints (``j``: the start of span ``j``) whose exact gap ``|P_in(1) - P_out(0)|``
    between the narrowed float32 controls exceeds ``limit`` (squares compared as rationals)."""
    n = narrowed.shape[0]
    out = []
    for j in range(0 if closed else 1, n):
        a, b = narrowed[(j - 1) % n][3], narrowed[j][0]
        sq = sum((Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b))
        if sq > limit * limit:
            out.append(j)
    return out


def range_defects(inp: dict, defect) -> tuple[dict, dict]:
    """Record the ToleranceProfile and WorkLimits fields of ``inp`` outside their ranges (defaults
    binding everyone: InvalidArgument); returns ``(tolerance, limits)`` as given."""
    tol = inp.get("tolerance", {})
    for name, (lo, hi) in TOLERANCE_RANGES.items():
        v = tol.get(name)
        if not _finite(v) or not Fraction(lo) <= parse_number(v) <= Fraction(hi):
            defect("InvalidArgument", f"tolerance.{name} outside [{lo!r}, {hi!r}] ({_WHY_TOL})")
    limits = inp.get("limits", {})
    for name, (lo, hi) in LIMIT_RANGES.items():
        v = limits.get(name)
        if not _is_int(v) or not lo <= v <= hi:
            defect("InvalidArgument", f"limits.{name} outside [{lo}, {hi}] ({_WHY_LIMITS})")
    return tol, limits


def expected_prepare(inp: dict) -> Expect:
    """The statuses TryPreparePath must end in for these (encoded) inputs: every defect's
    status is acceptable (the spec orders no checks), none means success."""
    return _expect_prepare(inp)[0]


def _expect_prepare(inp: dict):
    """``(Expect, narrowed)``: the expectation and the exact narrowed controls (None where the
    source has no finite narrowing)."""
    found, why, defect = collect_defects()  # defect(status, reason, kind="spec")
    kinds = defect.kinds
    narrowed = None

    tol, limits = range_defects(inp, defect)
    if not _is_int(inp.get("revision")) or inp["revision"] < 0:
        defect("InvalidArgument", f"a negative or non-integer revision ({_WHY_SOURCE})", "ours")
    origin = _finite_array(inp.get("origin"), (3,))
    if origin is None:
        # No finite narrowed control: the spec's floor test fails (Precision), its status ours.
        defect("InvalidArgument", f"a nonfinite origin ({_WHY_SOURCE})", "named")
    spans = inp.get("spans", [])
    n = len(spans)
    closed = bool(inp.get("is_closed"))
    if n == 0:
        defect("InvalidArgument", f"no spans ({_WHY_SOURCE})", "ours")
    if _is_int(limits.get("max_spans")) and n > limits["max_spans"]:
        defect("BudgetExceeded", f"{n} spans > max_spans ({_WHY_BUDGET})")
    size = _prepared_bytes(n, n if closed else max(n - 1, 0))
    if _is_int(limits.get("max_prepared_bytes")) and size > limits["max_prepared_bytes"]:
        defect("BudgetExceeded", f"{size} prepared bytes > max_prepared_bytes ({_WHY_BUDGET})")
    source = []
    for i, sp in enumerate(spans):
        c = _finite_array(sp.get("controls"), (4, 3))
        if c is None:
            defect("InvalidArgument", f"span {i}: controls not a finite 4 x 3 array ({_WHY_SOURCE})", "named")
        if not _finite(sp.get("domain_width")) or not parse_number(sp["domain_width"]) > 0:
            defect("InvalidArgument", f"span {i}: domain_width not finite and positive ({_WHY_SOURCE})", "ours")
        source.append(c)
    if n and origin is not None and all(c is not None for c in source):
        src = np.stack(source)
        narrowed = replay_narrowing(src, origin)
        if not np.all(np.isfinite(narrowed)):
            defect("UnsupportedPrecision", f"chunk-relative controls beyond the float32 range ({_WHY_SOURCE})")
            narrowed = None
        else:
            _floor_and_gaps(src, origin, narrowed, closed, tol, defect)
    if found:
        return decided_by_kinds(failure(*found, why="; ".join(why)), kinds, SOURCE_STATUS), narrowed
    widths = [parse_number(sp["domain_width"]) for sp in spans]
    near = _scaled_joint_near_the_range_ends(narrowed, widths, closed)
    if near is not None:
        return _near_range(f"joint {near}: derivatives scaled by the domain widths"), narrowed
    return success("a valid source within every limit (spec 002 Paths, Precision, Connectivity)"), narrowed


# Exact values whose magnitude lies outside [2^-_NEAR, 2^_NEAR] (zero aside) are near the float64
# range's ends: an implementation's norms square them (2^1024 overflows from 2^512 on, and
# squares below 2^-1074 vanish), so it may fail there with OutOfRange, or succeed with values the
# rows still judge (docs/decisions.md "Paths: overflowing conversions, extreme domain widths and
# oversized sources rejected").
_NEAR = 480
_BEYOND = Fraction(2) ** 1025  # twice the largest float64, about: no float64 is a Rounded value of it


def _near_ends(values) -> bool:
    return any(x != 0 and not Fraction(1, 2**_NEAR) <= abs(x) <= Fraction(2**_NEAR) for x in values)


def _near_range(what: str) -> Expect:
    return decided(either("Success", "OutOfRange", why=f"{what} come near the float64 range's ends: an "
                                                        "implementation may fail (OutOfRange, docs/decisions.md "
                                                        "'Paths: overflowing conversions, extreme domain widths and "
                                                        "oversized sources rejected')"), OUT_OF_RANGE, ANY_OUTCOME)


def _scaled_joint_near_the_range_ends(narrowed, widths, closed: bool):
    """The first joint whose exact width-scaled derivatives ``B'/w`` and ``B''/w^2`` (or their
    differences) are near the float64 range's ends, or None."""
    n = narrowed.shape[0]
    for j in range(0 if closed else 1, n):
        i = (j - 1) % n
        d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(QQ, QQ.asarray(narrowed[i]), QQ.asarray(narrowed[j]),
                                                              to_mpq(widths[i]), to_mpq(widths[j]))
        if _near_ends([*d_in, *d_out, *s_in, *s_out, *(d_in - d_out), *(s_in - s_out)]):
            return j
    return None


def _floor_and_gaps(src, origin, narrowed, closed, tol, defect) -> None:
    pe, rel, scale = (tol.get(k) for k in ("position_error", "relative_position_error", "asset_scale"))
    if all(_finite(x) for x in (pe, rel, scale)):
        floor, _ = replay_position_floor(src, origin)
        effective = max(parse_number(pe), Fraction(round_nearest_f64(parse_number(rel) * parse_number(scale))))
        if effective < Fraction(floor):
            defect("UnsupportedPrecision", f"effective position error {float(effective)!r} < floor {floor!r} "
                                           f"({_WHY_FLOOR})")
    cp = tol.get("continuity_position")
    if _finite(cp):
        bad = _exact_gap_exceeds(narrowed, closed, parse_number(cp))
        if bad:
            defect("InvalidTopology", f"joint {bad[0]}: gap > continuity_position ({_WHY_TOPOLOGY})")


# --- What the spec demands: evaluation and tangents ------------------------------------------


def _point(n: int, closed: bool, inp: dict):
    """The exact point a request names, or ``(status, why, decided)``: ``decided`` when the
    spec demands the failure but the status is our decision (``checks.REQUEST_STATUS``)."""
    policy, side = inp["policy"], inp["side"]
    if policy not in PATH_POLICIES:
        return "InvalidArgument", f"{policy} is a track policy ({_WHY_POLICY})", False
    u = dec(inp["u"])
    p = exact_request_point(n, closed, int(inp["span"]), u, policy, side)
    if p == "InvalidDomain":
        return (p, f"outside the domain under Reject: 'Policies act only outside the closed domain' ({_WHY_DOMAIN})",
                True)
    if p == "InvalidArgument":
        if policy == "Wrap" and not closed:
            return p, f"Wrap on an open path ({_WHY_POLICY})", False
        return (p, f"the request names no point (a nonfinite u, or u outside [0, 1] on an interior span; "
                   f"{_WHY_DOMAIN})", True)
    return p


def expected_evaluate(n: int, closed: bool, inp: dict) -> Expect:
    """TryEvaluatePath on a held path of ``n`` spans: success where the request names a point
    (exactly: span sides, Clamp, Wrap), InvalidDomain under Reject outside the domain,
    InvalidArgument for a request that names no point or a policy paths do not accept."""
    p = _point(n, closed, inp)
    if isinstance(p[0], str):
        e = failure(p[0], why=p[1])
        return decided(e, REQUEST_STATUS) if p[2] else e
    return success(f"the request names a point (spec 002 Span sides, Boundary policies; {_WHY_DOMAIN})")


def expected_tangent(narrowed: np.ndarray, closed: bool, inp: dict) -> Expect:
    """TryEvaluatePathTangent: the evaluation's statuses, InvalidArgument for a caller's speed
    that is not finite and nonnegative, then Degenerate where the true |dP/du| is at or below
    the caller's speed (``checks.degenerate_decision``: either where the computed speed's
    rounding error e + r straddles it, docs/decisions.md 'Paths and tracks: declared error
    models in case files')."""
    found, why = [], []
    p = _point(narrowed.shape[0], closed, inp)
    if isinstance(p[0], str):
        found.append(p[0])
        why.append(p[1])
    m = inp.get("minimum_speed")
    if not _finite(m) or parse_number(m) < 0:
        if "InvalidArgument" not in found:
            found.append("InvalidArgument")
        why.append(f"the caller's speed is not finite and nonnegative ({_WHY_ARGS})")
    if found:
        e = failure(*found, why="; ".join(why))
        # A request naming no point fails by the spec, its status ours (REQUEST_STATUS); a bad
        # caller's speed fails only by our decision (SOURCE_STATUS).
        point = ("named" if p[2] else "spec") if isinstance(p[0], str) else None
        speed = "ours" if not _finite(m) or parse_number(m) < 0 else None
        kinds = [k for k in (point, speed) if k is not None]
        return decided_by_kinds(e, kinds, REQUEST_STATUS if point == "named" else SOURCE_STATUS)
    k, u = p
    d = degenerate_decision(narrowed[k], u, dec(m))
    if d == "Degenerate":
        return failure("Degenerate", why=f"the true |dP/du| is zero, or below the caller's speed by more than its "
                                         f"rounding ({_WHY_DEGENERATE})")
    if d == "Success":
        return success("the true |dP/du| exceeds the caller's speed by more than its rounding")
    return either("Success", "Degenerate",
                  why=f"the true |dP/du| lies within the computed speed's rounding error of the caller's speed: a "
                      f"correctly rounded |dP/du| may fall on either side ({_WHY_DEGENERATE}; docs/decisions.md "
                      f"'Paths and tracks: declared error models in case files')")


# --- What the spec demands: conversions --------------------------------------------------------


def expected_conversion(op: str, inp: dict) -> Expect:
    """The statuses a conversion must end in: InvalidArgument for bad arguments (decisions),
    InvalidDomain for waypoints within the coincidence distance (exact distances), and
    CapacityExceeded when the caller's ranges hold fewer spans than the source makes."""
    found, why = [], []

    kinds = []

    def defect(status, reason, kind="ours"):
        """``kind``: ``oracles.request.DEFECT_KINDS``; argument checks are ours
        (``checks.SOURCE_STATUS``), coincidence and capacity the spec's."""
        if status not in found:
            found.append(status)
        why.append(reason)
        kinds.append(kind)

    closed = bool(inp.get("is_closed"))
    if op == "TryConvertHermite":
        wps = inp.get("waypoints", [])
        n = len(wps)
        if n < 2:
            defect("InvalidArgument", f"fewer than two waypoints ({_WHY_ARGS})")
        for i, w in enumerate(wps):
            if _finite_array(w[0], (3,)) is None or _finite_array(w[1], (3,)) is None or not _finite(w[2]) \
                    or not parse_number(w[2]) > 0:
                defect("InvalidArgument", f"waypoint {i}: not finite, or a width that is not positive ({_WHY_ARGS})")
    else:
        P = _finite_array(inp.get("points"), (len(inp.get("points", [])), 3))
        n = len(inp.get("points", []))
        cd = inp.get("coincidence_distance")
        if P is None:
            defect("InvalidArgument", f"a nonfinite waypoint ({_WHY_ARGS})")
        if n < (3 if closed else 2):
            defect("InvalidArgument", "an open source needs two waypoints and a closed one three "
                                      "(docs/decisions.md 'Centripetal Catmull-Rom sources')")
        if not _finite(cd) or parse_number(cd) < 0:
            defect("InvalidArgument", f"a coincidence distance that is not finite and nonnegative ({_WHY_ARGS})")
        elif P is not None and n >= 2:
            first = first_coincident_pair(P, closed, parse_number(cd))
            if first is not None:
                defect("InvalidDomain", f"waypoints {first} and {(first + 1) % n} ({_WHY_COINCIDENT})", "spec")
    spans = n if closed else n - 1
    cap = inp.get("capacity")
    if not _is_int(cap) or cap < 0:
        defect("InvalidArgument", "capacity is a nonnegative integer")
    elif n >= 2 and spans > cap:
        defect("CapacityExceeded", f"{spans} spans > capacity {cap} ({_WHY_CAPACITY})", "spec")
    if found:
        return decided_by_kinds(failure(*found, why="; ".join(why)), kinds, SOURCE_STATUS)
    return _conversion_range(op, inp, closed, n) or success("a valid source and enough capacity (spec 002 Paths)")


def _conversion_range(op: str, inp: dict, closed: bool, n: int) -> Expect | None:
    """A valid source whose exact values come near the float64 range's ends: a Hermite control
    beyond :data:`_BEYOND` must fail; a Hermite ``h T`` or control, or a Catmull-Rom waypoint
    difference, near the ends may (None: neither)."""
    spans = range(n if closed else n - 1)
    if op == "TryConvertHermite":
        w = [(QQ.asarray(dec_array(p)), QQ.asarray(dec_array(t)), to_mpq(parse_number(h)))
             for p, t, h in inp["waypoints"]]
        values = []
        for i in spans:
            (p0, t0, h), (p1, t1, _) = w[i], w[(i + 1) % n]
            values += [*(h * t0), *(h * t1)]
            controls = [*np.concatenate(K.hermite_inner_controls(QQ, p0, t0, p1, t1, h))]
            if any(abs(x) >= _BEYOND for x in controls):
                return decided_by_kinds(failure("OutOfRange", why=f"span {i}: an exact control B1 = P0 + h T0 / 3 or "
                                                              "B2 = P1 - h T1 / 3 lies beyond twice the largest "
                                                              "float64: no float64 is a Rounded value of it (spec 002 "
                                                              "Guarantees: conversions are Rounded)"),
                                        ["named"], OUT_OF_RANGE)
            values += controls
        return _near_range("Hermite values h T and B1, B2") if _near_ends(values) else None
    P = [[Fraction(parse_number(x)) for x in p] for p in inp["points"]]
    diffs = [P[(i + 1) % n][c] - P[i][c] for i in spans for c in range(3)]
    return _near_range("Catmull-Rom waypoint differences (chords)") if _near_ends(diffs) else None


# --- Requests of corpus cases -----------------------------------------------------------------


def _queries(narrowed: np.ndarray, closed: bool) -> list:
    """The (span, u, policy, side) queries of one prepared path: per span the special
    parameters (both sides at exact boundaries) and three random ones, the first and terminal
    endpoints by their outside names (-1, 1) and (n, 0), then requests outside the domain
    (span + u < 0 or > n, compared exactly) and one that names no point (u outside [0, 1] on an
    interior span) under each path policy (Wrap on an open path is InvalidArgument). The
    random parameters are seeded by the narrowed controls' bytes (the exact replay)."""
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(narrowed).tobytes()))
    n = narrowed.shape[0]
    out = []
    for k in range(n):
        for u in list(_SPECIAL_US) + [float(x) for x in rng.random(3)]:
            for side in (_O, _I) if u in (0.0, 1.0) else (_O,):
                out.append((k, u, _R, side))
    out += [(n, 0.0, _R, _O), (-1, 1.0, _R, _I),
            (0, -0.25, _R, _O), (n, 0.25, _R, _I), (0, 1.5, _R, _O),
            (-1, 1.0 - 2.0**-40, _C, _I), (n - 1, 1.0 + 2.0**-40, _C, _O), (0, -1e6 - 0.375, _C, _O),
            (0, -0.25, _W, _I), (n, 0.25, _W, _O), (0, -1e6 - 0.375, _W, _O), (n + 1, 0.0, _W, _I), (-2, 1.0, _W, _I)]
    return out


def _query_inputs(k, u, policy, side) -> dict:
    return {"span": int(k), "u": u if isinstance(u, str) else enc(float(u)), "policy": getattr(policy, "value", policy),
            "side": getattr(side, "value", side)}


def _prepare_step(inp: dict):
    """``(Step, held)``: TryPreparePath of ``inp``, and what a success holds: ``(narrowed
    controls, closed)`` (exact; None unless the step must succeed)."""
    expect, narrowed = _expect_prepare(inp)
    rows, held = (), None
    if expect.allows("Success"):  # a success's values are judged, also where failing is allowed too
        joints = len(inp["spans"]) if inp["is_closed"] else len(inp["spans"]) - 1
        rows = _PREPARE_ROWS + (("path.continuity_values",) if joints else ())
    if expect.kind == "success":
        held = (narrowed, bool(inp["is_closed"]))
    return Step("TryPreparePath", inp, expect, rows), held


def _query_steps(held, k, u, policy, side, minimum_speed) -> list:
    """TryEvaluatePath and TryEvaluatePathTangent of one query on the held path."""
    narrowed, closed = held
    q = _query_inputs(k, u, policy, side)
    e = expected_evaluate(narrowed.shape[0], closed, q)
    tq = {**q, "minimum_speed": minimum_speed if isinstance(minimum_speed, str) else enc(float(minimum_speed))}
    t = expected_tangent(narrowed, closed, tq)
    return [Step("TryEvaluatePath", q, e, _EVALUATE_ROWS if e.kind == "success" else ()),
            Step("TryEvaluatePathTangent", tq, t, _TANGENT_ROWS if t.allows("Success") else ())]


def _conversion_step(op: str, inp: dict) -> Step:
    e = expected_conversion(op, inp)
    return Step(op, inp, e, _CONVERSION_ROWS if e.allows("Success") else ())


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``corpus.py``) as a request."""
    if case["kind"] != "path":
        pts, closed = case["points"], bool(case["closed"])
        cap = int(pts.shape[0])  # room for every span the source makes
        if case["kind"] == "hermite":
            inp = {"waypoints": [[enc(pts[i]), enc(case["tangents"][i]), enc(float(case["widths"][i]))]
                                 for i in range(pts.shape[0])], "is_closed": closed, "capacity": cap}
            op = "TryConvertHermite"
        else:
            inp = {"points": enc(pts), "is_closed": closed, "coincidence_distance": enc(float(case["coincidence"])),
                   "capacity": cap}
            op = "TryConvertCentripetalCatmullRom"
        return Request(rid, "path", case.get("name", ""), (_conversion_step(op, inp),))
    tkw = stored_thresholds(case) if case.get("thresholds") == "stored" else case["tol"]
    tkw = dict(tkw)
    tol = tolerance(tkw.pop("position_error"), **tkw)
    inp = prepare_inputs(case["source"], case["widths"], case["origin"], case["closed"], tol)
    prep, held = _prepare_step(inp)
    steps = [prep]
    if held is not None:
        for q in _queries(*held):
            steps += _query_steps(held, *q, tol.minimum_speed)
    return Request(rid, "path", case.get("name", ""), tuple(steps))


# --- Status contracts -------------------------------------------------------------------------

_TWO = np.array([[[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]],
                 [[3, 0, 0], [4, -1, 0], [5, -1, 1], [6, 0, 1]]], dtype=np.float64)
_THIRD = np.array([[[6, 0, 1], [7, 1, 1], [8, 1, 2], [9, 0, 2]]], dtype=np.float64)
_LOOP = np.array([[[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]],
                  [[3, 0, 0], [3, -1, 1], [2, -2, 1], [1.5, -2, 0]],
                  [[1.5, -2, 0], [1, -2, -1], [-1, -1, 0], [0, 0, 0]]], dtype=np.float64)
_LINE = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]], dtype=np.float64)  # B'(u) = (3, 0, 0)
_STILL = np.array([[[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3]]], dtype=np.float64)  # a stationary span
_TOL = tolerance(1e-3)
_ZERO = np.zeros(3)


def _limits(**changes):
    from dataclasses import replace

    return replace(LIMITS, **changes)


def _prep(src, *, closed=False, tol=_TOL, limits=LIMITS, origin=_ZERO, revision=1, widths=None, **raw) -> dict:
    src = np.asarray(src, dtype=np.float64)
    inp = prepare_inputs(src, np.ones(len(src)) if widths is None else widths, origin, closed, tol, limits, revision)
    for k, v in raw.items():  # raw JSON edits: a nonfinite or negative field as a request would hold it
        if k.startswith("tolerance."):
            inp["tolerance"][k.split(".", 1)[1]] = v
        elif k.startswith("limits."):
            inp["limits"][k.split(".", 1)[1]] = v
        else:
            inp[k] = v
    return inp


def _tol(**changes) -> ToleranceProfile:
    from dataclasses import replace

    return replace(_TOL, **changes)


def _gap_path(gap: float) -> np.ndarray:
    """``_TWO`` with the second span starting ``gap`` after the first ends, along x."""
    src = _TWO.copy()
    src[1, 0, 0] += gap
    return src


def status_requests() -> list[tuple[str, tuple[Step, ...], tuple[Rule, ...]]]:
    """Named status contracts: every status the spec and our decisions name for TryPreparePath,
    TryEvaluatePath, TryEvaluatePathTangent and the two conversions; max_spans,
    max_prepared_bytes and the conversion capacity at equality and one past; failed rebuilds
    that must keep the previous path; failed conversions that must keep the caller's spans."""
    out = []
    mid = (0, 0.5, _R, _O)

    def single(name, inp, *queries, speed=1e-9):
        prep, held = _prepare_step(inp)
        steps = [prep]
        if held is not None:
            for q in queries:
                steps += _query_steps(held, *q, speed)
        out.append((name, tuple(steps), ()))

    two, three = _TWO, np.concatenate([_TWO, _THIRD])
    # --- Limits (spec 002 "a zero work limit allows no work"; decisions: WorkLimits, prepared bytes).
    single("max_spans met with equality (2 spans, max_spans = 2)", _prep(two, limits=_limits(max_spans=2)), mid)
    single("max_spans exceeded by one (3 spans, max_spans = 2)", _prep(three, limits=_limits(max_spans=2)))
    single("zero max_spans allows no work", _prep(two, limits=_limits(max_spans=0)))
    single("max_prepared_bytes met with equality (2 spans, 1 joint: 176 bytes)",
           _prep(two, limits=_limits(max_prepared_bytes=_prepared_bytes(2, 1))), mid)
    single("max_prepared_bytes exceeded by one (2 spans, 1 joint: 176 bytes, limit 175)",
           _prep(two, limits=_limits(max_prepared_bytes=_prepared_bytes(2, 1) - 1)))
    single("max_prepared_bytes met with equality, closed (3 spans, 3 joints: 360 bytes)",
           _prep(_LOOP, closed=True, limits=_limits(max_prepared_bytes=_prepared_bytes(3, 3))),
           mid, (0, -0.25, _W, _O))
    single("WorkLimits out of range (max_depth = 53)", _prep(two, **{"limits.max_depth": 53}))
    # --- Domain widths whose scaled joint derivatives come near the float64 range's ends (decision).
    single("domain widths 2^-300 (B''/w^2 near 2^600: beyond float64 when squared)",
           _prep(two, widths=np.full(2, 2.0**-300)), mid)
    single("domain widths 2^1000 (B''/w^2 near 2^-2000: underflows to zero)", _prep(two, widths=np.full(2, 2.0**1000)),
           mid)
    single("WorkLimits not an integer (max_spans = 2.0)", _prep(two, **{"limits.max_spans": "0x1p+1"}))
    single("negative WorkLimits (max_spans = -1)", _prep(two, **{"limits.max_spans": -1}))
    # --- Tolerances (decisions: ADR 0024 ranges).
    single("ToleranceProfile out of range (continuity_angle = 4)", _prep(two, tol=_tol(continuity_angle=4.0)))
    single("ToleranceProfile out of range (relative_position_error above 1e-2)",
           _prep(two, tol=_tol(relative_position_error=float(np.nextafter(1e-2, 1.0)))))
    single("ToleranceProfile out of range (negative position_error)", _prep(two, tol=_tol(position_error=-1e-3)))
    single("nonfinite tolerance (minimum_speed = NaN)", _prep(two, **{"tolerance.minimum_speed": "nan"}))
    # --- Sources (decisions: where the chunk origin lives, and what a prepared path holds).
    single("no spans", _prep(np.zeros((0, 4, 3))))
    bad = two.copy()
    bad[1, 2, 1] = np.nan
    single("nonfinite control (NaN)", _prep(bad))
    bad = two.copy()
    bad[0, 1, 0] = np.inf
    single("nonfinite control (inf)", _prep(bad))
    single("zero domain width", _prep(two, widths=np.array([1.0, 0.0])))
    single("negative domain width", _prep(two, widths=np.array([-1.0, 1.0])))
    single("nonfinite domain width", _prep(two, widths=np.array([1.0, np.inf])))
    single("negative revision", _prep(two, revision=-1))
    single("nonfinite origin", _prep(two, origin=np.array([0.0, np.nan, 0.0])))
    # --- Precision (spec 002 Precision; the exact floor).
    single("chunk-relative controls beyond the float32 range (1e39 from the origin)", _prep(two + 1e39))
    single("position error below the floor far from the origin (1e7, position error 1e-9)",
           _prep(two + 1e7, tol=_tol(position_error=1e-9, continuity_position=1e-3)))
    single("the floor met by relative_position_error x asset_scale (position error 0)",
           _prep(two + 1e3, tol=_tol(position_error=0.0, relative_position_error=1e-2, asset_scale=1.0)), mid)
    # --- Connectivity (spec 002; exact gaps of the narrowed controls).
    c = 2.0**-10
    single("joint gap above ContinuityPosition", _prep(_gap_path(0.25)))
    single("joint gap exactly ContinuityPosition (one axis, dyadic)",
           _prep(_gap_path(c), tol=_tol(continuity_position=c)), mid, (1, 0.0, _R, _I))
    single("joint gap one float64 step above ContinuityPosition",
           _prep(_gap_path(c), tol=_tol(continuity_position=float(np.nextafter(c, 0.0)))))
    loop = _LOOP.copy()
    loop[2, 3] = [0.0, 0.0, 0.25]
    single("closing joint gap above ContinuityPosition (closed path)", _prep(loop, closed=True))
    # --- Evaluation (spec 002 Span sides, Boundary policies; decisions: the parameter domain).
    single("Wrap on an open path", _prep(two), (0, -0.25, _W, _O), (0, 0.5, _W, _O))
    single("track-only policies on a path", _prep(two), *[(0, 0.5, p, _O) for p in
                                                          (BoundaryPolicy.Hold, BoundaryPolicy.Loop,
                                                           BoundaryPolicy.PingPong)])
    single("nonfinite parameter (u = NaN, inf, -inf)", _prep(two),
           *[(0, x, p, _O) for x in ("nan", "inf", "-inf") for p in (_R, _C)])
    single("an interior span with u outside [0, 1] names no point", _prep(two),
           (0, 1.5, _C, _O), (1, -0.5, _R, _I), (1, -1.0, _C, _O))
    single("Reject just outside both ends, and the endpoints by their outside names", _prep(two),
           (0, -(2.0**-1074), _R, _O), (1, 1.0 + 2.0**-52, _R, _I), (2, 2.0**-1074, _R, _O),
           (-1, 1.0 - 2.0**-53, _R, _I),
           (2, 0.0, _R, _O), (-1, 1.0, _R, _I), (0, 0.0, _R, _I), (1, 1.0, _R, _O))
    single("Clamp and Wrap outside a closed path", _prep(_LOOP, closed=True),
           (0, -0.25, _C, _O), (3, 0.25, _C, _I), (0, -0.25, _W, _I), (4, 0.0, _W, _I), (-7, 0.5, _W, _O))
    # --- Tangents (spec 002 Paths; decisions: conversion and tangent arguments).
    single("caller's speed above |dP/du| (a line of speed 3, caller's speed 4)", _prep(_LINE),
           (0, 0.5, _R, _O), (0, 0.0, _R, _O), speed=4.0)
    single("caller's speed just below |dP/du| (speed 3, caller's speed 3 - 2^-20)", _prep(_LINE),
           (0, 0.5, _R, _O), (0, 1.0, _R, _I), speed=3.0 - 2.0**-20)
    single("caller's speed exactly |dP/du| (speed 3): within its rounding, either", _prep(_LINE),
           (0, 0.25, _R, _O), speed=3.0)
    single("stationary span: Degenerate at a zero caller's speed", _prep(_STILL), (0, 0.5, _R, _O), (0, 1.0, _R, _O),
           speed=0.0)
    single("negative caller's speed", _prep(two), mid, speed=-1.0)
    single("nonfinite caller's speed", _prep(two), mid, speed="nan")
    # --- Conversions (spec 002 Paths; decisions: Centripetal Catmull-Rom sources, conversion arguments).
    pts = np.array([[0, 0, 0], [1, 0, 0], [1, 4, 0], [10, 4, 0]], dtype=np.float64)  # the spec's example

    def herm(n, cap, closed=False, **edit):
        wps = [[enc(pts[i]), enc(np.array([1.0, 0.5, 0.0]) * (i + 1)), enc(1.0 + i)] for i in range(n)]
        for i, w in edit.items():
            wps[int(i[1:])] = w
        return {"waypoints": wps, "is_closed": closed, "capacity": cap}

    def cr(points, cap, closed=False, cd=1e-6):
        return {"points": enc(np.asarray(points, dtype=np.float64)), "is_closed": closed,
                "coincidence_distance": cd if isinstance(cd, str) else enc(cd), "capacity": cap}

    def conv(name, op, *inps, rules=()):
        out.append((name, tuple(_conversion_step(op, i) for i in inps), rules))

    H, CR = "TryConvertHermite", "TryConvertCentripetalCatmullRom"
    conv("conversion capacity met with equality (Hermite, 3 waypoints, capacity 2)", H, herm(3, 2))
    conv("conversion capacity exceeded by one (Hermite, 3 waypoints, capacity 1)", H, herm(3, 1))
    conv("conversion capacity met with equality (closed Catmull-Rom, 4 waypoints, capacity 4)", CR, cr(pts, 4, True))
    conv("conversion capacity exceeded by one (closed Catmull-Rom, 4 waypoints, capacity 3)", CR, cr(pts, 3, True))
    conv("conversion capacity met with equality (the spec's Catmull-Rom example, capacity 3)", CR, cr(pts, 3))
    conv("Hermite: one waypoint", H, herm(1, 4))
    conv("Hermite: zero outgoing width", H, herm(3, 4, w1=[enc(pts[1]), enc([0.0, 1.0, 0.0]), enc(0.0)]))
    conv("Hermite: nonfinite tangent", H, herm(3, 4, w2=[enc(pts[2]), ["0x1p+0", "nan", "0x0p+0"], enc(1.0)]))
    conv("Catmull-Rom: one waypoint", CR, cr(pts[:1], 4))
    conv("Catmull-Rom: a closed source of two waypoints", CR, cr(pts[:2], 4, True))
    conv("Catmull-Rom: negative coincidence distance", CR, cr(pts, 4, cd=-1.0))
    conv("Catmull-Rom: nonfinite coincidence distance", CR, cr(pts, 4, cd="inf"))
    conv("Catmull-Rom: nonfinite waypoint", CR, cr(np.vstack([pts, [[np.nan, 0, 0]]]), 4))
    conv("Catmull-Rom: coincident waypoints and too small a capacity", CR,
         cr(np.vstack([pts[:2], pts[1:]]), 1))
    conv("Catmull-Rom: a closed source repeating its first waypoint", CR, cr(np.vstack([pts, pts[:1]]), 5, True))
    # --- Values near the float64 range's ends (decision: Paths: overflowing conversions ...).
    big = [["0x0p+0"] * 3, enc([1e308, 0.0, 0.0]), enc(20.0)]
    conv("Hermite: a control beyond twice the largest float64 (h T0 / 3 = 6.7e308) must fail", H,
         herm(3, 4, w0=big))
    conv("Hermite: h T overflows float64, the control fits (h T0 / 3 = 8.3e307)", H,
         herm(3, 4, w0=[["0x0p+0"] * 3, enc([1e308, 0.0, 0.0]), enc(2.5)]))
    conv("Catmull-Rom: waypoints 2e308 apart (the chord overflows float64)", CR,
         cr([[-1e308, 0, 0], [1e308, 0, 0], [1e308, 1e308, 0]], 4))
    conv("failed conversion keeps the caller's spans (a control beyond the float64 range)", H, herm(3, 4),
         herm(3, 4, w0=big), rules=(Rule("same_output", 0, 1, _WHY_UNCHANGED),))
    conv("failed conversion keeps the caller's spans (coincident waypoints)", CR, cr(pts, 4),
         cr(np.vstack([pts[:3], pts[2:]]), 4), rules=(Rule("same_output", 0, 1, _WHY_UNCHANGED),))
    conv("failed conversion keeps the caller's spans (capacity)", H, herm(3, 2), herm(4, 2),
         rules=(Rule("same_output", 0, 1, _WHY_UNCHANGED),))
    # --- Failed rebuilds keep the previous path: its controls, origin, revision and answers.
    for name, bad_inp in (
            ("position floor", _prep(two + 1e7, tol=_tol(position_error=1e-9), revision=2)),
            ("joint gap", _prep(_gap_path(0.25), revision=2)),
            ("max_spans", _prep(three, limits=_limits(max_spans=2), revision=2)),
            ("nonfinite control", _prep(np.where(two == 5, np.nan, two), revision=2))):
        good, held = _prepare_step(_prep(two, origin=np.array([0.5, -0.25, 0.0])))
        q1, q2 = _query_steps(held, *mid, 1e-9), _query_steps(held, 1, 1.0, _R, _I, 1e-9)
        steps = (good, *q1, *q2, _prepare_step(bad_inp)[0], *q1, *q2)
        rules = tuple(Rule("same_output", k, k + 5, _WHY_KEEP) for k in range(5))
        out.append((f"failed rebuild ({name}) keeps the previous path", steps, rules))
    return out


@lru_cache(maxsize=2)
def _kept(seed: int, n: int) -> tuple:
    """The corpus's cases and status contracts, kept for the next range of the same corpus."""
    return corpus_cases(seed, n), status_requests()


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` path requests: the named corpus cases, the status contracts, then random paths and
    conversions. Deterministic in ``seed``; ids ``path/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    cases, named = _kept(seed, n) if hi - lo < n else (corpus_cases(seed, n), status_requests() if n > NAMED else [])
    named = named if n > NAMED else []
    return interleaved("path", lo, hi, NAMED, named, lambda rid, k, s: case_request(rid, cases[k]))
