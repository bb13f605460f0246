"""The path corpus as case dicts: named corner cases first, then random chains and conversions.

Deterministic in the seed. A case is ``{"kind": "path", "name", "source" (n, 4, 3) float64,
"widths" (n,), "origin" (3,), "closed", "tol": the ToleranceProfile fields that differ from
:func:`tolerance`'s}`` or ``{"kind": "catmull_rom" | "hermite", "name", "points", "closed",
"coincidence" | "tangents", "widths"}``. ``oracles.families.path.requests`` turns each case into a
request (the spec operations it runs, and the status the spec demands of each).

The named cases (issue 17, ``docs/decisions.md`` "Paths and tracks: the adversarial corpus"):
large origins, float32 rounding ties, a floor that fails by one ulp, near-threshold continuity,
closed paths, near-coincident Catmull-Rom waypoints, Hermite sources; fractional origins whose
subtraction rounds and whose floor sum is inexact, position errors exactly at and one ulp below
the floor, a relative position error at the floor, E a power of two and just below one,
all-subnormal controls, subnormal double-rounding ties, continuity thresholds equal to the
stored values, Catmull-Rom waypoints exactly at the coincidence distance, a Hermite source from
the origin, waypoints 1e-160 and 1e170 apart. The rest are random chains of spans in world
coordinates up to 1e7 with a chunk origin nearby and spans down to 1e-3, and random
conversions.

Inputs only: the floors and thresholds a case picks are chosen here (from the exact replay of
``interval.narrowing``, and for the two "thresholds at the stored values" cases from our fast
path's joint records, see :func:`stored_thresholds`); what a request demands is decided in
``requests.py`` without the fast path.
"""

from __future__ import annotations

import math

import numpy as np

from interval.context import to_mpq
from interval.narrowing import (exact_ulp32, replay_narrowing, replay_narrowing_error, replay_position_floor,
                                round_nearest_f64, round_up_f64)
from reference import kernel as K
from reference.context import F64
from reference.fp import narrow32, ulp32
from reference.status import ToleranceProfile, WorkLimits

__all__ = ["LIMITS", "NAMED", "corpus_cases", "stored_thresholds", "tolerance"]

LIMITS = WorkLimits(max_spans=1 << 16, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                    max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)


def tolerance(position_error: float, *, angle: float = 1e-3, derivative: float = 1e-3,
              second: float = 1e-3, continuity_position: float | None = None,
              relative: float = 0.0, scale: float = 1.0) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=relative, asset_scale=scale,
        continuity_position=position_error if continuity_position is None else continuity_position,
        continuity_angle=angle, continuity_derivative=derivative,
        continuity_second_derivative=second, distance_error=1e-3, projection_gap=1e-3,
        tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
        normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


_SPECIAL_US = (0.0, 1.0, 0.5, 2.0**-30, 1.0 - 2.0**-53)


def _floor_estimate(source: np.ndarray, origin: np.ndarray) -> float:
    n = narrow32(source - origin)
    return 2.0 * float(ulp32(np.max(np.abs(n))))


def _chain(rng, n_spans: int, center, size: float, closed: bool) -> np.ndarray:
    pts = np.empty((n_spans, 4, 3))
    start = center + rng.normal(size=3) * size
    p0 = start
    for i in range(n_spans):
        steps = rng.normal(size=(3, 3)) * size
        pts[i, 0] = p0
        pts[i, 1:] = p0 + np.cumsum(steps, axis=0)
        p0 = pts[i, 3]
    if closed:
        pts[-1, 3] = pts[0, 0]
    return pts


def _path_case(name, source, widths, origin, closed, tol_kwargs, us_per_span=None):
    return {"kind": "path", "name": name, "source": np.asarray(source, dtype=np.float64),
            "widths": np.asarray(widths, dtype=np.float64), "origin": np.asarray(origin, dtype=np.float64),
            "closed": bool(closed), "tol": tol_kwargs, "us": us_per_span}


def _random_path_case(rng, name="random", magnitude=None, closed=None):
    magnitude = magnitude if magnitude is not None else float(10.0 ** rng.choice([0, 3, 5, 7]))
    center = rng.uniform(-1, 1, 3) * magnitude
    size = float(10.0 ** rng.uniform(-3, 2))
    closed = bool(rng.random() < 0.2) if closed is None else closed
    n = int(rng.integers(1, 5))
    src = _chain(rng, n, center, size, closed)
    origin = np.round(center + rng.normal(size=3) * size * 10)
    floor = _floor_estimate(src, origin)
    factor = float(rng.choice([0.45, 1.0, 2.0, 8.0, 1e3], p=[0.15, 0.1, 0.25, 0.3, 0.2]))
    pe = max(floor * factor, 1e-30)
    widths = 10.0 ** rng.uniform(-1, 1, n)
    return _path_case(name, src, widths, origin, closed,
                      {"position_error": pe, "continuity_position": max(pe, 1e-6)})


def _tie_case(rng):
    """Controls exactly halfway between two float32 values relative to the origin."""
    origin = np.round(rng.uniform(-1e4, 1e4, 3))
    rel32 = (rng.normal(size=(1, 4, 3)) * 10).astype(np.float32)
    nxt = np.nextafter(rel32, np.float32(np.inf))
    mid = (rel32.astype(np.float64) + nxt.astype(np.float64)) / 2  # exact: 25 bits
    src = origin + mid
    assert np.all(src - origin == mid), "origin + mid must be exact for a tie"
    return _path_case("float32 ties", src, [1.0], origin, False,
                      {"position_error": 1e-3, "continuity_position": 1e-3})


def _near_threshold_case(rng):
    """A joint whose angle, derivative and second-derivative differences sit at the thresholds."""
    src = _chain(rng, 2, np.zeros(3), 1.0, False)
    # Turn the outgoing span's first leg slightly: a small known angle at the joint.
    leg = src[0, 3] - src[0, 2]
    src[1, 1] = src[1, 0] + leg * (1 + 1e-4) + rng.normal(size=3) * 1e-5
    widths = np.array([1.0, 1.0])
    rel = narrow32(src).astype(np.float64)
    d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(F64, rel[0], rel[1], 1.0, 1.0)
    a, b = d_in / np.linalg.norm(d_in), d_out / np.linalg.norm(d_out)
    angle = 2 * math.atan2(np.linalg.norm(a - b), np.linalg.norm(a + b))
    rd = np.linalg.norm(d_in - d_out) / max(np.linalg.norm(d_in), np.linalg.norm(d_out))
    rs = np.linalg.norm(s_in - s_out) / max(np.linalg.norm(s_in), np.linalg.norm(s_out))
    return _path_case("near-threshold continuity", src, widths, np.zeros(3), False,
                      {"position_error": 1e-6, "angle": float(angle), "derivative": float(min(rd, 1.0)),
                       "second": float(min(rs, 1.0))})


def _conversion_case(rng, kind, name, closed=None, near_coincident=0.0):
    n = int(rng.integers(3 if closed else 2, 7))
    closed = bool(rng.random() < 0.3) if closed is None else closed
    n = max(n, 3) if closed else n
    scale = float(10.0 ** rng.uniform(-2, 3))
    center = rng.uniform(-1, 1, 3) * float(10.0 ** rng.choice([0, 3, 6]))
    pts = center + np.cumsum(rng.normal(size=(n, 3)) * scale, axis=0)
    coincidence = 1e-9 * scale
    if near_coincident:
        i = int(rng.integers(0, n - 1))
        direction = rng.normal(size=3)
        pts[i + 1] = pts[i] + direction / np.linalg.norm(direction) * coincidence * near_coincident
    case = {"kind": kind, "name": name, "points": pts, "closed": closed, "coincidence": coincidence}
    if kind == "hermite":
        case["tangents"] = rng.normal(size=(n, 3)) * scale
        case["widths"] = 10.0 ** rng.uniform(-1, 1, n)
    return case


def _repeated_closing_waypoint_case(rng):
    """A closed Catmull-Rom source that repeats its first waypoint: InvalidDomain."""
    case = _conversion_case(rng, "catmull_rom", "closed source repeating its first waypoint", closed=True)
    case["points"] = np.vstack([case["points"], case["points"][:1]])
    return case


def _floor_by_one_ulp_case(rng):
    """position_error one float64 ulp below the floor: UnsupportedPrecision."""
    case = _random_path_case(rng, "floor minus one ulp", magnitude=1e5)
    floor = _exact_floor(case["source"], case["origin"])
    case["tol"] = {"position_error": float(np.nextafter(floor, 0)), "continuity_position": 1e-3}
    return case


# --- Adversarial shapes of the precision steps (narrowing, ulp32, the floor) -----------------


def _exact_floor(source, origin) -> float:
    """The floor by the oracle's exact replay (interval.narrowing), not by the fast path."""
    return replay_position_floor(source, origin)[0]


def _floor_sensitivity(source, origin) -> tuple[bool, bool]:
    """Which roundings of the floor this source exposes, from the exact replay:

    * the sum 2 ulp32(E) + N is inexact with its nearest float64 below it (rounding the sum to
      nearest instead of up gives another floor);
    * rounding the narrowing error N to nearest instead of up changes the floor (its exact
      value lies just above N's nearest float64 and the sum just above a float64).

    Both need a subtraction ``source - origin`` that rounds (N then carries the tail)."""
    _, E = replay_position_floor(source, origin)
    rel = [to_mpq(float(s)) - to_mpq(float(o)) for s, o in zip(np.ravel(source), np.resize(origin, source.size))]
    if all(q == to_mpq(float(round_nearest_f64(q))) for q in rel):
        return False, False
    two_ulp = 2 * exact_ulp32(np.float32(E))
    n_up = to_mpq(replay_narrowing_error(source, origin))
    n_exact = max(abs(to_mpq(float(n)) - q) for n, q in zip(replay_narrowing(source, origin).ravel().tolist(), rel))
    exact = two_ulp + n_up
    sum_rounding = to_mpq(round_nearest_f64(exact)) < exact
    n_rounding = round_up_f64(two_ulp + to_mpq(round_nearest_f64(n_exact))) != round_up_f64(exact)
    return sum_rounding, n_rounding


def _fractional_origin_case(rng, name="fractional origin, inexact floor sum", factor=None):
    """A chunk origin of tiny fractions (1e-7 to 1e-5, bits down to 2^-77) under sources of
    magnitude 1e2 to 1e4: the float64 subtraction rounds, the narrowing error carries the
    rounding's tail down to the origin's last bit, and the floor's sum 2 ulp32(E) + N spans
    more than 53 bits: drawn until both roundings of the floor show (``_floor_sensitivity``)."""
    first = None
    for _ in range(200):
        origin = rng.uniform(-1, 1, 3) * float(10.0 ** rng.uniform(-7, -5))
        n = int(rng.integers(1, 4))
        src = _chain(rng, n, np.zeros(3), float(10.0 ** rng.uniform(2, 4)), False)
        sens = _floor_sensitivity(src, origin)
        if all(sens):
            break
        if sens[0] and first is None:
            first = (origin, n, src)
    else:
        if first is not None:
            origin, n, src = first
    floor = _exact_floor(src, origin)
    pe = floor * (factor if factor is not None else float(rng.choice([1.0, 2.0, 8.0])))
    return _path_case(name, src, 10.0 ** rng.uniform(-1, 1, n), origin, False,
                      {"position_error": pe, "continuity_position": max(pe, 1e-6)})


def _floor_exactly_case(rng, below: bool):
    """position_error exactly at the floor (accepted) or one float64 ulp below it
    (UnsupportedPrecision): the decision is Exact."""
    case = _fractional_origin_case(rng, "position error one ulp below the floor" if below
                                   else "position error exactly at the floor")
    floor = _exact_floor(case["source"], case["origin"])
    pe = float(np.nextafter(floor, 0.0)) if below else floor
    case["tol"] = {"position_error": pe, "continuity_position": 1e-3}
    return case


def _relative_error_case(rng):
    """position_error 0 and relative_position_error x asset_scale exactly at the floor: the
    effective error max(0, fl64(relative x scale)) is the floor, accepted."""
    case = _fractional_origin_case(rng, "relative position error at the floor")
    floor = _exact_floor(case["source"], case["origin"])
    rel = 1e-2
    scale = floor / rel
    while rel * scale < floor:  # the smallest scale whose rounded product reaches the floor
        scale = float(np.nextafter(scale, math.inf))
    while rel * float(np.nextafter(scale, 0.0)) >= floor:
        scale = float(np.nextafter(scale, 0.0))
    case["tol"] = {"position_error": 0.0, "relative": rel, "scale": scale, "continuity_position": 1e-3}
    return case


def _magnitude_case(rng, name, top: float):
    """Controls whose largest narrowed magnitude E is exactly ``top`` (a float32 value: a power
    of two, or the largest float32 below one), the others smaller and not float32 values (a
    nonzero narrowing error), around an integer origin."""
    origin = np.round(rng.uniform(-1, 1, 3) * 1e3)
    rel = rng.uniform(-1, 1, (1, 4, 3)) * top * 0.75
    rel.reshape(-1)[int(rng.integers(0, 12))] = top * float(rng.choice([-1.0, 1.0]))
    src = origin + rel
    floor, E = replay_position_floor(src, origin)
    assert E == top, (E, top)  # origin + top is exact: an integer plus a float32 above 2^-9
    return _path_case(name, src, [1.0], origin, False,
                      {"position_error": floor * 2.0, "continuity_position": 1e-3})


def _subnormal_case(rng):
    """Every control a float32 subnormal (|x| < 2^-126): ulp32(E) is the subnormal spacing
    2^-149 and the narrowing rounds on the subnormal grid."""
    src = _chain(rng, 2, np.zeros(3), 1e-40, False)
    floor = _exact_floor(src, np.zeros(3))
    return _path_case("all-subnormal controls", src, [1.0, 2.0], np.zeros(3), False,
                      {"position_error": floor * 4.0, "continuity_position": floor * 4.0})


def _subnormal_ties_case(rng):
    """Controls just above a tie of the float32 subnormal grid: ``(k + 1/2) 2^-149 + 2^-170``
    with k even rounds up to ``(k + 1) 2^-149``; rounding to 24 bits first (a replay without
    the subnormal grid) lands on the tie itself and then on the even k."""
    k = 2 * rng.integers(1, 2**20, size=(1, 4, 3))
    sign = rng.choice([-1.0, 1.0], size=(1, 4, 3))
    src = sign * ((k + 0.5) * 2.0**-149 + 2.0**-170)
    floor = _exact_floor(src, np.zeros(3))
    return _path_case("subnormal double-rounding ties", src, [1.0], np.zeros(3), False,
                      {"position_error": floor * 2.0, "continuity_position": 1e-3})


def _smooth_joint_case(rng, name, size: float, spans: int = 4):
    """Spans meeting at nearly C2 joints (first and second derivatives per DomainWidth matched
    up to a relative 1e-4), unequal widths; the continuity thresholds are then set to one
    joint's own stored values (``thresholds = "stored"``, see ``_path_claims``)."""
    w = 10.0 ** rng.uniform(-0.5, 0.5, spans)
    src = np.empty((spans, 4, 3))
    src[0] = np.cumsum(rng.normal(size=(4, 3)) * size, axis=0)
    for i in range(1, spans):
        P = src[i - 1]
        d_in = 3 * (P[3] - P[2]) / w[i - 1]
        s_in = 6 * (P[3] - 2 * P[2] + P[1]) / w[i - 1] ** 2
        Q = src[i]
        Q[0] = P[3]
        Q[1] = Q[0] + d_in * w[i] / 3 * (1 + 1e-4 * rng.normal(size=3))
        Q[2] = 2 * Q[1] - Q[0] + s_in * w[i] ** 2 / 6 * (1 + 1e-4 * rng.normal(size=3))
        Q[3] = Q[2] + rng.normal(size=3) * size
    case = _path_case(name, src, w, np.zeros(3), False,
                      {"position_error": 1e-3 * size, "continuity_position": 1e-3 * size})
    case["thresholds"] = "stored"
    return case


def _hermite_from_origin_case(rng):
    """A Hermite source starting at the origin with long tangents: P = 0 exactly, so the inner
    control's whole magnitude (and error) is h T / 3."""
    case = _conversion_case(rng, "hermite", "Hermite from the origin", closed=False)
    case["points"] = case["points"] - case["points"][0]  # exactly 0 at the first waypoint
    case["tangents"] = case["tangents"] * 100.0
    return case


def _coincident_at_distance_case(rng):
    """Open Catmull-Rom waypoints with one pair exactly ``coincidence_distance`` apart along an
    axis (dyadic coordinates: the float64 distance is exact): InvalidDomain at that pair."""
    n = 5
    pts = np.round(np.cumsum(rng.normal(size=(n, 3)), axis=0) * 2.0**12) / 2.0**12
    c = 2.0**-12
    i = int(rng.integers(0, n - 1))
    pts[i + 1] = pts[i] + np.array([c, 0.0, 0.0])
    return {"kind": "catmull_rom", "name": "waypoints exactly at the coincidence distance", "points": pts,
            "closed": False, "coincidence": c}


def _extreme_spacing_case(rng, name, spacing):
    """Catmull-Rom waypoints whose squared distances leave binary64's normal range (subnormal or
    beyond the largest float): a conversion that squares chords unscaled loses the knot
    intervals (or calls distinct waypoints coincident) and its claims miss the model."""
    pts = np.cumsum(rng.normal(size=(5, 3)), axis=0) * spacing
    return {"kind": "catmull_rom", "name": name, "points": pts, "closed": False, "coincidence": 0.0}


def _stationary_case(rng):
    """A stationary span (all controls equal) and a zero-speed ease endpoint."""
    p = rng.normal(size=3)
    q = p + rng.normal(size=3)
    src = np.stack([np.stack([p, p, p, p]), np.stack([p, p, (p + q) / 2, q])])
    return _path_case("stationary span and ease endpoint", src, [1.0, 1.0], np.zeros(3), False,
                      {"position_error": 1e-6, "continuity_position": 1e-6})


_SPECIALS = [
    lambda r: _random_path_case(r, "large origin 1e7", magnitude=1e7),
    lambda r: _random_path_case(r, "large origin 1e9", magnitude=1e9),
    _tie_case,
    _near_threshold_case,
    lambda r: _random_path_case(r, "closed", closed=True),
    lambda r: _conversion_case(r, "catmull_rom", "near-coincident Catmull-Rom", closed=False,
                               near_coincident=1.5),
    lambda r: _conversion_case(r, "catmull_rom", "coincident Catmull-Rom", closed=False,
                               near_coincident=0.5),
    _repeated_closing_waypoint_case,
    lambda r: _conversion_case(r, "catmull_rom", "closed Catmull-Rom", closed=True),
    lambda r: _conversion_case(r, "hermite", "Hermite"),
    _floor_by_one_ulp_case,
    _stationary_case,
    _fractional_origin_case,
    lambda r: _floor_exactly_case(r, below=False),
    lambda r: _floor_exactly_case(r, below=True),
    _relative_error_case,
    lambda r: _magnitude_case(r, "E a power of two", float(2.0 ** r.integers(-8, 20))),
    lambda r: _magnitude_case(r, "E just below one", float(np.nextafter(np.float32(1), np.float32(0)))),
    _subnormal_case,
    _subnormal_ties_case,
    lambda r: _smooth_joint_case(r, "thresholds at the stored values", 1.0),
    lambda r: _smooth_joint_case(r, "thresholds at the stored values, large derivatives", 30.0),
    _coincident_at_distance_case,
    lambda r: _random_path_case(r, "closed, Wrap", closed=True),
    _hermite_from_origin_case,
    lambda r: _extreme_spacing_case(r, "waypoints 1e-160 apart", 1e-160),
    lambda r: _extreme_spacing_case(r, "waypoints 1e170 apart", 1e170),
]

NAMED = len(_SPECIALS)


def corpus_cases(seed: int, n: int) -> list:
    """``n`` path cases, named corner cases first. Deterministic in ``seed``."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 2])
        if k < NAMED:
            cases.append(_SPECIALS[k](rng))
            continue
        pick = rng.random()
        if pick < 0.7:
            cases.append(_random_path_case(rng))
        elif pick < 0.85:
            cases.append(_conversion_case(rng, "catmull_rom", "Catmull-Rom"))
        else:
            cases.append(_conversion_case(rng, "hermite", "Hermite"))
    return cases


# --- Thresholds at a joint's stored values ------------------------------------------------------


def _threshold_at(diff: float, scale: float) -> float:
    """The smallest float64 t >= diff / scale (exactly), capped at 1: every evaluation of the
    relative test ``diff <= t * scale`` then passes, and where ``fl64(t * scale) == diff`` a
    strict comparison fails."""
    if not scale > 0:
        return 0.0
    t = round_up_f64(to_mpq(diff) / to_mpq(scale))
    return min(t, 1.0)


def _equality_count(rec) -> int:
    """How many of a joint's relative tests meet their threshold (``_threshold_at``) with equality
    in float64."""
    return sum(_threshold_at(d, s) * s == d for d, s in ((rec.derivative_difference, rec.derivative_scale),
                                                          (rec.second_derivative_difference,
                                                           rec.second_derivative_scale)))


def stored_thresholds(case: dict) -> dict:
    """The ``tol`` of a ``thresholds = "stored"`` case: its continuity thresholds set to one
    joint's own stored values (the joint whose relative tests meet them with float64 equality
    most often), read from our fast path's preparation of the case. Each test then compares
    equal numbers, and the threshold decision on those values is C2. An input choice only:
    the request demands nothing our fast path decided (the class is judged by
    ``path.continuity_values`` on the claim's own values)."""
    from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path

    tkw = dict(case["tol"])
    tol = tolerance(tkw.pop("position_error"), **tkw)
    out = try_prepare_path(PathSource(spans_from_arrays(case["source"], case["widths"]), revision=1,
                                      is_closed=case["closed"]),
                           PathPreparation(tol, LIMITS, tuple(case["origin"])))
    if not out.ok or not out.value.view().joints:
        return case["tol"]
    rec = max(out.value.view().joints, key=_equality_count)
    if not math.isfinite(rec.tangent_angle):
        return case["tol"]
    return {**case["tol"], "angle": rec.tangent_angle,
            "derivative": _threshold_at(rec.derivative_difference, rec.derivative_scale),
            "second": _threshold_at(rec.second_derivative_difference, rec.second_derivative_scale)}
