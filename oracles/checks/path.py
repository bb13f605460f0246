"""Path rows: stored endpoints, control boxes, position floor (Exact); interior positions,
derivatives, tangents, conversions and continuity values (Rounded).

Corpus: deterministic in the seed. The first cases are named corner cases (large origins,
float32 rounding ties, a floor that fails by one ulp, near-threshold continuity, closed paths,
near-coincident Catmull-Rom waypoints, Hermite sources), then adversarial shapes of the
precision steps and decisions (issue 17): fractional origins whose subtraction rounds and
whose floor sum is inexact, position errors exactly at and one ulp below the floor, a relative
position error at the floor, E a power of two and just below one, all-subnormal controls,
subnormal double-rounding ties, continuity thresholds equal to the stored values, Catmull-Rom
waypoints exactly at the coincidence distance, a Hermite source from the origin; the rest are
random chains of spans in world coordinates up to 1e7 with a chunk origin nearby and spans
down to 1e-3. Evaluation claims name their request (the whole prepared path, span, u, policy,
side), inside the domain, at both sides of every boundary, and outside it under Reject, Clamp
and Wrap, so span sides and policies are judged too; sampling answers the same requests and
is a second claim only where it differs from evaluation.

Checkers recompute every truth from ``claim.inputs`` alone:

* Exact rows replay narrowing in rational arithmetic (``interval.narrowing``) and compare
  values exactly (a signed zero equals zero: rationals carry no sign of zero).
* Requests are resolved exactly (:func:`exact_request_point`); a claim evaluated elsewhere, a
  value where the request names no point, or a status where it names one is Violated.
* Rounded rows measure ``|claimed - truth|`` against ``reference.error_model``'s formula,
  recomputed by the checker from the inputs at the unit roundoff and eta of the claim's
  declared model (``oracles.errormodel.resolve``: ``{"u": ...}``, ``k``, or an explicit
  ``bound``), else at binary64; verdicts carry the declared/reference ratio and ``bound_use``
  (error / bound). Truth: exact QQ kernels for polynomial quantities, exact rationals with
  MPFR's directed square root for tangents, IV kernels with precision refinement where other
  square roots enter, and MPFR's correctly rounded ``atan2`` with directed rounding for angles.
  A joint's class must also be the threshold decision on its own claimed values.

``CONTRACTS`` holds each row's case-file fields (JSON Schema), the sentence the ledger prints
for it, and a planted false claim. The fast path's claims carry no model and only the fields
the checkers read.
"""

from __future__ import annotations

import math
import zlib
from fractions import Fraction

import gmpy2
import numpy as np

from interval.context import IV, QQ, lower, lower_float, to_mpq, upper, upper_float
from interval.narrowing import (exact_ulp32, replay_narrowing, replay_narrowing_error, replay_position_floor,
                                round_nearest_f64, round_up_f64)
from reference import error_model as EM
from reference import kernel as K
from reference.context import F64
from reference.fp import U64, add_hi, mul_hi, narrow32, ulp32, up
from reference.path import (
    HermiteWaypoint,
    PathPreparation,
    PathSource,
    control_bounds,
    resolve_parameter,
    spans_from_arrays,
    try_convert_centripetal_catmull_rom,
    try_convert_hermite,
    try_evaluate_path,
    try_evaluate_path_tangent,
    try_prepare_path,
    try_sample_path,
)
from reference.status import (
    BoundaryPolicy,
    GeometryStatus,
    GuaranteeClass as G,
    SegmentParameter,
    SpanSide,
    ToleranceProfile,
    WorkLimits,
)

from .. import schema as S
from ..decide import DEFAULT_BUDGET, Decision, refine
from ..errormodel import Resolved, resolve
from ..errormodel import ratio as error_ratio
from ..family import Family, RowContract
from ..model import Claim, dec, dec_array, enc, undecided, verified, violated

__all__ = ["FAMILY", "tolerance", "LIMITS", "BUDGET"]

# Interval precisions the checkers may spend (tests shrink it to show Undecided verdicts).
BUDGET = DEFAULT_BUDGET

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


# --- Corpus ----------------------------------------------------------------------------------

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


def generate(seed: int, n: int) -> list:
    """``n`` path cases, named corner cases first. Deterministic in ``seed``."""
    cases = []
    specials = [
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
    for k in range(n):
        rng = np.random.default_rng([seed, k, 2])
        if k < len(specials):
            cases.append(specials[k](rng))
            continue
        pick = rng.random()
        if pick < 0.7:
            cases.append(_random_path_case(rng))
        elif pick < 0.85:
            cases.append(_conversion_case(rng, "catmull_rom", "Catmull-Rom"))
        else:
            cases.append(_conversion_case(rng, "hermite", "Hermite"))
    return cases


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


# --- Claims from the fast path ---------------------------------------------------------------


def claims(case) -> list:
    """Run the fast path on one case and return its claims."""
    if case["kind"] == "path":
        return list(_path_claims(case))
    return list(_conversion_claims(case))


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


def _prepare_case(case, tkw):
    tkw = dict(tkw)
    tol = tolerance(tkw.pop("position_error"), **tkw)
    spans = spans_from_arrays(case["source"], case["widths"])
    out = try_prepare_path(PathSource(spans, revision=1, is_closed=case["closed"]),
                           PathPreparation(tol, LIMITS, tuple(case["origin"])))
    return tol, out


def _path_claims(case):
    src, origin = case["source"], case["origin"]
    tol, out = _prepare_case(case, case["tol"])
    if case.get("thresholds") == "stored" and out.ok and out.value.view().joints:
        # The continuity thresholds set to one joint's own stored values (the joint whose
        # relative tests meet them with float64 equality most often): each test then compares
        # equal numbers, and the threshold decision on those values is C2.
        rec = max(out.value.view().joints, key=_equality_count)
        if math.isfinite(rec.tangent_angle):
            tol, out = _prepare_case(case, {**case["tol"], "angle": rec.tangent_angle,
                                            "derivative": _threshold_at(rec.derivative_difference,
                                                                        rec.derivative_scale),
                                            "second": _threshold_at(rec.second_derivative_difference,
                                                                    rec.second_derivative_scale)})
    accepted = out.ok
    if out.ok:
        floor = out.value.view().position_floor
    elif out.status is GeometryStatus.UnsupportedPrecision and out.diagnostic.field == "position_error":
        floor = out.diagnostic.value
    elif out.status is GeometryStatus.UnsupportedPrecision:
        floor = None  # narrowed controls left the float32 range before a floor existed
    else:
        return
    yield Claim("path.position_floor", G.Exact, {"floor": enc(floor), "accepted": accepted},
                {"source": enc(src), "origin": enc(origin), "position_error": enc(tol.position_error),
                 "relative_position_error": enc(tol.relative_position_error),
                 "asset_scale": enc(tol.asset_scale)})
    if not out.ok:
        return
    view = out.value.view()
    for i in range(view.span_count):
        c32 = view.controls[i]
        # Inputs carry only what the checker reads (the span index is not: the source is).
        yield Claim("path.stored_endpoints", G.Exact, enc(c32[[0, 3]]),
                    {"source": enc(src[i, [0, 3]]), "origin": enc(origin)})
        lo, hi = control_bounds(view, i).value
        yield Claim("path.control_boxes", G.Exact, {"lo": enc(lo), "hi": enc(hi)},
                    {"source": enc(src[i]), "origin": enc(origin)})
    yield from _evaluation_claims(view, case)
    for rec in view.joints:
        i, j = rec.incoming_span, rec.index
        yield Claim("path.continuity_values", G.Rounded,
                    {"position_gap": enc(rec.position_gap), "tangent_angle": enc(rec.tangent_angle),
                     "derivative_difference": enc(rec.derivative_difference),
                     "derivative_scale": enc(rec.derivative_scale),
                     "second_derivative_difference": enc(rec.second_derivative_difference),
                     "second_derivative_scale": enc(rec.second_derivative_scale),
                     "continuity": rec.continuity.name},
                    {"P_in": enc(view.controls[i]), "P_out": enc(view.controls[j]),
                     "w_in": enc(view.domain_widths[i]), "w_out": enc(view.domain_widths[j]),
                     "continuity_angle": enc(tol.continuity_angle),
                     "continuity_derivative": enc(tol.continuity_derivative),
                     "continuity_second_derivative": enc(tol.continuity_second_derivative)})


def _requests(view, rng):
    """The (span, u, policy, side) requests of one prepared path: per span the special
    parameters (both sides at exact boundaries) and three random ones, the first and terminal
    endpoints by their outside names (-1, 1) and (n, 0), then requests outside the domain
    (span + u < 0 or > n, compared exactly) and one that names no point (u outside [0, 1] on an
    interior span) under each path policy (Wrap on an open path is InvalidArgument)."""
    n = view.span_count
    out = []
    for k in range(n):
        for u in list(_SPECIAL_US) + [float(x) for x in rng.random(3)]:
            for side in (SpanSide.Outgoing, SpanSide.Incoming) if u in (0.0, 1.0) else (SpanSide.Outgoing,):
                out.append((k, u, BoundaryPolicy.Reject, side))
    O, I = SpanSide.Outgoing, SpanSide.Incoming
    R, C, W = BoundaryPolicy.Reject, BoundaryPolicy.Clamp, BoundaryPolicy.Wrap
    out += [(n, 0.0, R, O), (-1, 1.0, R, I),
            (0, -0.25, R, O), (n, 0.25, R, I), (0, 1.5, R, O),
            (-1, 1.0 - 2.0**-40, C, I), (n - 1, 1.0 + 2.0**-40, C, O), (0, -1e6 - 0.375, C, O),
            (0, -0.25, W, I), (n, 0.25, W, O), (0, -1e6 - 0.375, W, O), (n + 1, 0.0, W, I), (-2, 1.0, W, I)]
    return out


def _request_inputs(path_enc, view, k, u, policy, side):
    return {"path": path_enc, "is_closed": bool(view.is_closed), "span": int(k), "u": enc(u),
            "policy": policy.value, "side": side.value}


def _evaluation_claims(view, case):
    """Position, derivative and tangent claims per request. Inputs name the request (the whole
    prepared path, span, u, policy, side) so that the checker resolves it exactly, and the
    evaluated span's controls and parameter ("controls", "u") the fast path resolved it to. A
    request without a point is a claimed status. Positions come from ``try_evaluate_path``;
    ``try_sample_path`` answers the same requests, and its answer is a second claim only where
    it differs (bit for bit, or in status)."""
    # A seed from the case's own data (not hash(): string hashes change between processes).
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(view.controls).tobytes()))
    tol = view.tolerance
    path_enc = enc(view.controls)
    requests = _requests(view, rng)
    sampled = _sampled_positions(view, requests)
    for r, (k, u, policy, side) in enumerate(requests):
        param = SegmentParameter(k, u)
        req = _request_inputs(path_enc, view, k, u, policy, side)
        res = resolve_parameter(view, param, policy, side)
        if not res.ok:
            yield Claim("path.interior_positions", G.Rounded, {"status": res.status.value}, {"request": req})
            if sampled[r] is not None and not isinstance(sampled[r], str):
                yield Claim("path.interior_positions", G.Rounded, enc(sampled[r]), {"request": req})
            continue
        kk, uu = res.value
        inputs = {"controls": path_enc[kk], "u": enc(uu), "request": req}
        p = try_evaluate_path(view, param, policy, side).value
        s = try_evaluate_path(view, param, policy, side, with_derivatives=True).value
        # No declared model: the checker judges the fast path against the reference model it
        # recomputes from the inputs (binary64).
        yield Claim("path.interior_positions", G.Rounded, enc(p), inputs)
        q = sampled[r]
        if isinstance(q, str):
            yield Claim("path.interior_positions", G.Rounded, {"status": q}, {"request": req})
        elif q is not None and not np.array_equal(q, p):
            yield Claim("path.interior_positions", G.Rounded, enc(q), {"request": req})
        yield Claim("path.derivatives", G.Rounded, {"first": enc(s.first), "second": enc(s.second)}, inputs)
        t = try_evaluate_path_tangent(view, param, tol.minimum_speed, policy, side)
        tin = {**inputs, "minimum_speed": enc(tol.minimum_speed)}
        if t.ok:
            yield Claim("path.tangents", G.Rounded, {"tangent": enc(t.value)}, tin)
        elif t.status is GeometryStatus.Degenerate:
            yield Claim("path.tangents", G.Rounded, {"status": "Degenerate"}, tin)


def _sampled_positions(view, requests):
    """``try_sample_path``'s answer to each request, one call per (policy, side) group: a (3,)
    position, a status name where the call failed at that request, or None where the group's
    call failed at another request (the call writes nothing then)."""
    out = [None] * len(requests)
    groups = {}
    for r, (k, u, policy, side) in enumerate(requests):
        groups.setdefault((policy, side), []).append(r)
    for (policy, side), idx in groups.items():
        while idx:
            ks = np.array([requests[r][0] for r in idx], dtype=np.int64)
            us = np.array([requests[r][1] for r in idx], dtype=np.float64)
            buf = np.zeros((len(idx), 3))
            s = try_sample_path(view, ks, us, buf, policy=policy, side=side)
            if s.ok:
                for j, r in enumerate(idx):
                    out[r] = buf[j].copy()
                break
            bad = s.diagnostic.index
            if bad is None or not 0 <= bad < len(idx):
                break
            out[idx[bad]] = s.status.value
            idx = idx[:bad] + idx[bad + 1:]
    return out


def _conversion_claims(case):
    pts, closed = case["points"], case["closed"]
    n = pts.shape[0]
    cap = n
    oc, ow = np.zeros((cap, 4, 3)), np.zeros(cap)
    if case["kind"] == "hermite":
        wps = [HermiteWaypoint(pts[i], case["tangents"][i], float(case["widths"][i])) for i in range(n)]
        out = try_convert_hermite(wps, closed, oc, ow)
        base = {"kind": "hermite", "points": enc(pts), "tangents": enc(case["tangents"]),
                "widths": enc(case["widths"]), "is_closed": closed}
    else:
        out = try_convert_centripetal_catmull_rom(pts, closed, case["coincidence"], oc, ow)
        base = {"kind": "catmull_rom", "points": enc(pts), "is_closed": closed,
                "coincidence_distance": enc(case["coincidence"])}
    if not out.ok:
        yield Claim("path.conversions", G.Rounded, {"status": out.status.value,
                                                    "index": out.diagnostic.index}, base)
        return
    for i in range(out.value):
        yield Claim("path.conversions", G.Rounded, {"controls": enc(oc[i]), "width": enc(ow[i])},
                    {**base, "span": i})


# --- Checkers --------------------------------------------------------------------------------


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
    return violated(claim, {"expected": enc(truth), "claimed": claim.value})


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
    return violated(claim, {"expected_lo": enc(lo), "expected_hi": enc(hi), "claimed": claim.value})


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
            claim, {"expected": "narrowed controls leave the float32 range: no floor, not accepted"})
    floor, _E = replay_position_floor(src, origin)
    pe = dec(claim.inputs["position_error"])
    eff = max(pe, round_nearest_f64(to_mpq(dec(claim.inputs["relative_position_error"]))
                                    * to_mpq(dec(claim.inputs["asset_scale"]))))
    want_accept = eff >= floor
    got_floor = None if claimed_floor is None else dec(claimed_floor)
    if got_floor == floor and accepted is want_accept:
        return verified(claim, measure="mismatches", measured=0)
    return violated(claim, {"expected_floor": enc(floor), "expected_accepted": want_accept,
                            "claimed": claim.value})


def _controls_u(claim: Claim):
    P = dec_array(claim.inputs["controls"], np.float32)
    u = dec(claim.inputs["u"])
    if P.shape != (4, 3) or not 0.0 <= u <= 1.0:
        raise ValueError("needs controls (4, 3) float32 and u in [0, 1]")
    return P, u



_PATH_POLICIES = ("Reject", "Clamp", "Wrap")
_SIDES = ("Outgoing", "Incoming")


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
    if policy not in _PATH_POLICIES or side not in _SIDES:
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
        return None, None, violated(claim, {"expected_status": point, "claimed": claim.value,
                                            "why": "the request names no point"})
    k, u = point
    if status is not None:
        return None, None, violated(claim, {"expected_span": k, "expected_u": enc(u), "claimed": claim.value,
                                            "why": "a status where the request names a point"})
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
                               "or boundary policy)"})
    return P, u, None


def _resolve(claim: Claim, reference) -> Resolved:
    """The claim's bound: its declared model, or ``reference(u, eta)`` at binary64."""
    return resolve(claim, reference, constant=EM.K)


def _nonfinite(*xs) -> bool:
    return any(not np.all(np.isfinite(np.asarray(x, dtype=np.float64))) for x in xs)


def _nonfinite_violation(claim: Claim, r: Resolved):
    # An overflowing or NaN result is a wrong value (Violated), not a malformed claim.
    return violated(claim, {"claimed": claim.value, "why": "a nonfinite value where the truth is finite"},
                    measure="error_ratio", bound_use=math.inf, **r.extra())


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


def check_interior_positions(claim: Claim):
    """Rounded: ``|B(u) - exact| <= position_bound(E, u, eta)`` per component, exact QQ truth;
    the bound is the claim's declared model or the reference at binary64. With a ``request``,
    the point is the one it names exactly (span sides, policies), and a request without a
    point must claim its status."""
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
                    measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())


def check_derivatives(claim: Claim):
    """Rounded: first and second derivatives per u within their bounds, exact QQ truth (at the
    point a ``request`` names exactly, as for positions)."""
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
                    measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())


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
                                "speed_error": enc(e)}, bound_use=use, **r_hi.extra())

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
        return violated(claim, {"error_interval": d.enclosure, **shown},
                        measure="error_ratio", measured=d.detail.get("ratio"), prec=d.prec, bound_use=use, **extra)
    return undecided(claim, d.enclosure, prec=d.prec, note="error interval straddles the model bound",
                     bound_use=use, **extra)


def _true_speed(P, u, prec):
    ctx = IV(prec)
    return K.norm(ctx, K.cubic_derivative(ctx, ctx.asarray(P), ctx.asarray(u)))


def _neighbourhood(n: int, i: int, closed: bool) -> list[int]:
    idx = [i - 1, i, i + 1, i + 2]
    if closed:
        return [k % n for k in idx]
    return [k for k in idx if 0 <= k < n]


def _hermite_reference(P, T, h, i, j):
    def ref(u, eta):
        b = np.maximum(EM.hermite_bound(P[i], T[i], h, u, eta=eta), EM.hermite_bound(P[j], T[j], h, u, eta=eta))
        return float(np.max(b))
    return ref


def _catmull_rom_reference(points, d: float):
    """[inner-control bound, knot-interval (width) bound at knot interval d]."""
    return lambda u, eta: [EM.catmull_rom_bound(points, u), EM.knot_interval_bound(d, u, eta=eta)]


def _first_coincident_pair(P, closed, dist):
    """The first pair (a, a+1) within ``dist`` of each other (exact squared distances), or None."""
    n = P.shape[0]
    for a in range(n if closed else n - 1):
        # Differences of float64 are not exact in float64: take them in rationals.
        sq = sum((to_mpq(float(x)) - to_mpq(float(y))) ** 2 for x, y in zip(P[(a + 1) % n], P[a]))
        if sq <= dist * dist:
            return a
    return None


def check_conversions(claim: Claim):
    """Rounded: Hermite (exact QQ truth) and centripetal Catmull-Rom (IV truth) controls within
    ``hermite_bound`` / ``catmull_rom_bound`` per component (and the Catmull-Rom width within
    ``knot_interval_bound``); endpoints and Hermite widths are copies and must be exact; a
    Catmull-Rom success needs no pair within the coincidence distance; failures must be the
    documented status at the right index."""
    inp = claim.inputs
    P = dec_array(inp["points"])
    closed = bool(inp["is_closed"])
    if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2:
        raise ValueError("points must be (n, 3), n >= 2")
    n = P.shape[0]
    if "status" in claim.value:
        return _check_conversion_failure(claim, P, closed)
    if "span" not in inp:
        raise ValueError("a converted span's claim needs inputs.span")
    i = int(inp["span"])
    if not 0 <= i < (n if closed else n - 1):
        raise ValueError(f"span {i} out of range for {n} points")
    j = (i + 1) % n
    got = dec_array(claim.value["controls"])
    width = dec(claim.value["width"])
    if got.shape != (4, 3):
        raise ValueError("controls must be (4, 3)")
    if inp["kind"] == "hermite":
        T = dec_array(inp["tangents"])
        H = dec_array(inp["widths"])
        if T.shape != P.shape or H.shape != (n,):
            raise ValueError("a Hermite source needs one tangent and one width per point")
        h = H[i]
        r = _resolve(claim, _hermite_reference(P, T, h, i, j))
        if _nonfinite(got, width):
            return _nonfinite_violation(claim, r)
        copies_ok = _same_values(got[0], P[i]) and _same_values(got[3], P[j])
        b1, b2 = K.hermite_inner_controls(QQ, QQ.asarray(P[i]), QQ.asarray(T[i]), QQ.asarray(P[j]),
                                          QQ.asarray(T[j]), QQ.asarray(h))
        ok1, r1, _ = _exact_ratio(got[1], b1, r.scalar())
        ok2, r2, _ = _exact_ratio(got[2], b2, r.scalar())
        ok = copies_ok and ok1 and ok2 and width == h
        ratio = max(r1, r2)
        if ok:
            return verified(claim, measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())
        return violated(claim, {"copies_exact": copies_ok, "width_exact": width == h, "ratio": ratio,
                                "bound": enc(r.scalar())},
                        measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())
    pts = P[_neighbourhood(n, i, closed)]
    if _nonfinite(got, width):
        return _nonfinite_violation(claim, _resolve(claim, _catmull_rom_reference(pts, 0.0)))
    coincident = _first_coincident_pair(P, closed, to_mpq(dec(inp["coincidence_distance"])))
    if coincident is not None:
        return violated(claim, {"why": "a pair of waypoints lies within the coincidence distance: "
                                       "the conversion must fail (InvalidDomain)",
                                "exact_first_coincident_pair": coincident})
    copies_ok = _same_values(got[0], P[i]) and _same_values(got[3], P[j])

    def at(prec):
        ctx = IV(prec)
        b1, b2, d = _catmull_rom_span_iv(ctx, P, i, closed)
        with ctx.scope():
            e1 = np.abs(_iv_of(ctx, got[1]) - b1)
            e2 = np.abs(_iv_of(ctx, got[2]) - b2)
            ed = abs(_iv_of(ctx, width) - d)
        # The width bound grows with the knot interval: the smallest d gives the bound to meet,
        # the largest the bound whose excess refutes.
        r_lo = _resolve(claim, _catmull_rom_reference(pts, lower_float(d)))
        r_hi = _resolve(claim, _catmull_rom_reference(pts, upper_float(d)))
        bound, wb, wb_hi = r_lo.bound[0], r_lo.bound[1], r_hi.bound[1]
        e_hi = max(upper(x) for x in list(e1) + list(e2))
        e_lo = max(lower(x) for x in list(e1) + list(e2))
        w_hi, w_lo = upper(ed), lower(ed)
        ratio = max(error_ratio(e_hi, bound), error_ratio(w_hi, wb) if wb > 0 else 0.0)
        detail = {"ratio": ratio, "resolved": r_lo}
        if not copies_ok or e_lo > bound or w_lo > wb_hi:
            return Decision(False, prec, [enc(e_lo), enc(e_hi)], {**detail, "copies_exact": copies_ok,
                                                                  "bound": enc(bound)})
        if e_hi <= bound and w_hi <= wb:
            return Decision(True, prec, None, detail)
        return Decision(None, prec, [enc(e_lo), enc(e_hi)], detail)

    d = refine(at, BUDGET)
    extra = d.detail["resolved"].extra()
    shown = {k: v for k, v in d.detail.items() if k != "resolved"}
    use = d.detail["ratio"]
    if d.holds is True:
        return verified(claim, measure="error_ratio", measured=use, prec=d.prec, bound_use=use, **extra)
    if d.holds is False:
        return violated(claim, {"error_interval": d.enclosure, **shown}, measure="error_ratio",
                        measured=use, prec=d.prec, bound_use=use, **extra)
    return undecided(claim, d.enclosure, prec=d.prec, bound_use=use, **extra)


def _catmull_rom_span_iv(ctx, P, i, closed):
    """IV enclosures of span i's inner controls and knot interval, from the kernel formulas."""
    n = P.shape[0]
    Pi = ctx.asarray(P)

    def knot(a):  # interval of span a: P[a] -> P[a+1]
        return K.centripetal_knot_interval(ctx, Pi[a], Pi[(a + 1) % n])

    def tangent(k):
        if not closed and k == 0:
            return K.chord_tangent(ctx, Pi[0], Pi[1], knot(0))
        if not closed and k == n - 1:
            return K.chord_tangent(ctx, Pi[n - 2], Pi[n - 1], knot(n - 2))
        return K.barry_goldman_tangent(ctx, Pi[(k - 1) % n], Pi[k], Pi[(k + 1) % n], knot((k - 1) % n), knot(k))

    j = (i + 1) % n
    d = knot(i)
    b1, b2 = K.hermite_inner_controls(ctx, Pi[i], tangent(i), Pi[j], tangent(j), d)
    return b1, b2, d


def _check_conversion_failure(claim: Claim, P, closed):
    """A claimed failure: InvalidDomain must name the first pair within the coincidence
    distance (exact distance compared exactly); capacity failures are not generated here."""
    status = claim.value["status"]
    if status != GeometryStatus.InvalidDomain.value or claim.inputs["kind"] != "catmull_rom":
        return undecided(claim, None, note=f"no replay for conversion failure {status}")
    first = _first_coincident_pair(P, closed, to_mpq(dec(claim.inputs["coincidence_distance"])))
    if first is not None and claim.value["index"] == first:
        return verified(claim, note="coincident pair replayed exactly")
    return violated(claim, {"exact_first_coincident_pair": first, "claimed_index": claim.value["index"]})


def _mpfr(q, prec, rnd):
    with gmpy2.context(gmpy2.context(precision=prec, round=rnd)):
        return gmpy2.mpfr(q)


def _mpfr_atan2(y, x, prec, rnd):
    with gmpy2.context(gmpy2.context(precision=prec, round=rnd)):
        return gmpy2.mpq(gmpy2.atan2(y, x))  # mpq(mpfr) is exact


def _angle_enclosure(y_iv, x_iv, prec):
    """Enclosure of 2 atan2(y, x) for y, x >= 0 from MPFR's correctly rounded atan2 with
    directed rounding (increasing in y, decreasing in x on the first quadrant): the lower end
    takes y rounded down and x rounded up, the upper end the reverse."""
    y_lo, y_hi = max(lower(y_iv), gmpy2.mpq(0)), upper(y_iv)
    x_lo, x_hi = max(lower(x_iv), gmpy2.mpq(0)), upper(x_iv)
    down, up_ = gmpy2.RoundDown, gmpy2.RoundUp
    if y_lo == 0:
        lo = gmpy2.mpq(0)
    else:
        lo = 2 * _mpfr_atan2(_mpfr(y_lo, prec, down), _mpfr(x_hi, prec, up_), prec, down)
    hi = 2 * _mpfr_atan2(_mpfr(y_hi, prec, up_), _mpfr(x_lo, prec, down), prec, up_)
    return lo, hi


# The components of a continuity model, in the order of a declared per-component bound.
_CONTINUITY_FIELDS = ("position_gap", "tangent_angle", "derivative_difference", "derivative_scale",
                      "second_derivative_difference", "second_derivative_scale")


def _continuity_reference(claimed, E_in, E_out, w_in, w_out, sum_norm):
    """The six bounds of a joint at (u, eta); the angle's needs ``|a + b|`` (``sum_norm``; None
    where no direction exists: the angle must then be NaN and its bound is unused)."""
    def ref(u, eta):
        dbound = float(up(EM.difference_bound(6 * E_in / w_in, 6 * E_out / w_out, u, eta=eta) * (1 + 1e-12)))
        sbound = float(up(EM.difference_bound(24 * E_in / (w_in * w_in), 24 * E_out / (w_out * w_out), u,
                                              eta=eta) * (1 + 1e-12)))
        ab = _VACUOUS if sum_norm is None else min(EM.angle_bound(sum_norm, u), _VACUOUS)
        return [EM.gap_bound(claimed["position_gap"], u, eta=eta), ab, dbound,
                float(add_hi(EM.relative_bound(claimed["derivative_scale"], u, eta=eta), dbound)), sbound,
                float(add_hi(EM.relative_bound(claimed["second_derivative_scale"], u, eta=eta), sbound))]
    return ref


def check_continuity_values(claim: Claim):
    """Rounded: every measured joint value within its model (``reference.error_model``), truth
    from IV kernels and MPFR's atan2; classification decisions that differ from the exact
    decision are counted, and Violated only outside the rounding band of the threshold."""
    inp, val = claim.inputs, claim.value
    P_in = dec_array(inp["P_in"], np.float32)
    P_out = dec_array(inp["P_out"], np.float32)
    if P_in.shape != (4, 3) or P_out.shape != (4, 3):
        raise ValueError("joint controls must be (4, 3)")
    w_in, w_out = dec(inp["w_in"]), dec(inp["w_out"])
    if not (w_in > 0 and w_out > 0):
        raise ValueError("domain widths must be positive")
    thr_a, thr_d, thr_s = dec(inp["continuity_angle"]), dec(inp["continuity_derivative"]), \
        dec(inp["continuity_second_derivative"])
    if val["continuity"] not in _LEVELS:
        raise ValueError(f"continuity must be one of {_LEVELS}")
    claimed = {k: dec(val[k]) for k in _CONTINUITY_FIELDS}
    E_in, E_out = EM.span_magnitude(P_in), EM.span_magnitude(P_out)
    nonfinite = [k for k, v in claimed.items() if not math.isfinite(v) and not (k == "tangent_angle" and math.isnan(v))]
    if nonfinite:
        r = _resolve(claim, _continuity_reference({k: 0.0 for k in claimed}, E_in, E_out, w_in, w_out, None))
        return violated(claim, {"claimed": claim.value, "why": f"nonfinite {', '.join(nonfinite)}"},
                        measure="error_ratio", bound_use=math.inf, **r.extra())
    base = _resolve(claim, _continuity_reference(claimed, E_in, E_out, w_in, w_out, None))
    bounds = {k: base.bound[n] for n, k in enumerate(_CONTINUITY_FIELDS) if k != "tangent_angle"}
    # A zero derivative (exactly, in rationals) has no direction: the angle must be NaN.
    q_in = [to_mpq(float(a)) - to_mpq(float(b)) for a, b in zip(P_in[3], P_in[2])]
    q_out = [to_mpq(float(a)) - to_mpq(float(b)) for a, b in zip(P_out[1], P_out[0])]
    no_direction = all(v == 0 for v in q_in) or all(v == 0 for v in q_out)

    def at(prec):
        ctx = IV(prec)
        Pi, Po = ctx.asarray(P_in), ctx.asarray(P_out)
        d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(ctx, Pi, Po, ctx.asarray(w_in), ctx.asarray(w_out))
        with ctx.scope():
            truth = {
                "position_gap": K.norm(ctx, Pi[3] - Po[0]),
                "derivative_difference": K.norm(ctx, d_in - d_out),
                "second_derivative_difference": K.norm(ctx, s_in - s_out),
            }
            nd_in, nd_out = K.norm(ctx, d_in), K.norm(ctx, d_out)
            ns_in, ns_out = K.norm(ctx, s_in), K.norm(ctx, s_out)
            truth["derivative_scale"] = ctx.maximum(np.array(nd_in, dtype=object), np.array(nd_out, dtype=object))
            truth["second_derivative_scale"] = ctx.maximum(np.array(ns_in, dtype=object),
                                                           np.array(ns_out, dtype=object))
        holds, worst, enclosure = True, 0.0, {}
        resolved = base
        for key, bq in bounds.items():
            t = truth[key]
            t = t.item() if isinstance(t, np.ndarray) else t
            c = to_mpq(claimed[key])
            e_lo = max(c - upper(t), lower(t) - c, gmpy2.mpq(0))
            e_hi = max(abs(c - upper(t)), abs(c - lower(t)))
            worst = max(worst, error_ratio(e_hi, bq))
            if e_lo > bq:
                return Decision(False, prec, {key: [_fl(e_lo), _fl(e_hi)]},
                                {"ratio": worst, "field": key, "resolved": resolved})
            if e_hi > bq:
                holds = None
                enclosure[key] = [_fl(e_lo), _fl(e_hi)]
        # Angle.
        a_claim = claimed["tangent_angle"]
        angle, ab = None, _VACUOUS
        if no_direction:
            if not math.isnan(a_claim):
                return Decision(False, prec, None, {"ratio": worst, "field": "tangent_angle",
                                                    "why": "a zero derivative has no direction",
                                                    "resolved": resolved})
        else:
            with ctx.scope():
                a = d_in / np.array(nd_in, dtype=object)
                b = d_out / np.array(nd_out, dtype=object)
                y, x = K.norm(ctx, a - b), K.norm(ctx, a + b)
            if math.isnan(a_claim):
                return Decision(False, prec, None, {"ratio": worst, "field": "tangent_angle",
                                                    "why": "NaN claimed for a nonzero derivative",
                                                    "resolved": resolved})
            lo, hi = _angle_enclosure(y, x, prec)
            angle = (lo, hi)
            # angle_bound falls as |a + b| grows: the smallest |a + b| gives the bound whose
            # excess refutes, the largest the bound to meet.
            r_hi = _resolve(claim, _continuity_reference(claimed, E_in, E_out, w_in, w_out, lower_float(x)))
            resolved = _resolve(claim, _continuity_reference(claimed, E_in, E_out, w_in, w_out, upper_float(x)))
            ab, ab_lo = r_hi.bound[1], resolved.bound[1]
            c = to_mpq(a_claim)
            e_lo = max(c - hi, lo - c, gmpy2.mpq(0))
            e_hi = max(abs(c - hi), abs(c - lo))
            worst = max(worst, error_ratio(e_hi, ab_lo))
            if e_lo > ab:
                return Decision(False, prec, {"tangent_angle": [_fl(e_lo), _fl(e_hi)]},
                                {"ratio": worst, "field": "tangent_angle", "resolved": resolved})
            if e_hi > ab_lo:
                holds = None
                enclosure["tangent_angle"] = [_fl(e_lo), _fl(e_hi)]
        return Decision(holds, prec, enclosure or None,
                        {"ratio": worst, "truth": truth, "angle": angle, "ab": ab, "resolved": resolved})

    d = refine(at, BUDGET)
    extra = d.detail["resolved"].extra()
    use = d.detail.get("ratio")
    if d.holds is False:
        return violated(claim, {"error_interval": _jsonable(d.enclosure),
                                **{k: v for k, v in d.detail.items() if k in ("field", "why", "ratio")}},
                        measure="error_ratio", measured=use, prec=d.prec, bound_use=use, **extra)
    if d.holds is None:
        return undecided(claim, _jsonable(d.enclosure), measure="error_ratio", measured=use,
                         prec=d.prec, bound_use=use, **extra)
    # Values hold; the classification must be the threshold decision on the claimed values
    # themselves, and agree with the exact decision outside the rounding bands.
    u = d.detail["resolved"].u
    levels = _levels_of_claimed_values(claimed, thr_a, thr_d, thr_s, u)
    if _LEVELS.index(val["continuity"]) not in levels:
        return violated(claim, {"claimed_continuity": val["continuity"],
                                "levels_of_the_claimed_values": [_LEVELS[k] for k in sorted(levels)],
                                "why": "the classification is not the threshold decision on the claim's own "
                                       "values"},
                        measure="error_ratio", measured=use, prec=d.prec, bound_use=use, **extra)
    return _check_classification(claim, d, thr_a, thr_d, thr_s, bounds, u, extra)


def _round_at(q, u: float):
    """The rational q rounded to nearest at unit roundoff u (a precision of 1 - log2 u bits,
    no exponent limits), exactly."""
    prec = max(2, int(math.floor(-math.log2(u))) + 1)
    with gmpy2.context(gmpy2.context(precision=prec, round=gmpy2.RoundToNearest)):
        return gmpy2.mpq(gmpy2.mpfr(q))


def _levels_of_claimed_values(claimed, thr_a, thr_d, thr_s, u) -> set:
    """The continuity levels the threshold decisions allow on the claimed values (spec 002:
    "a threshold decision on Rounded values"): G1 when the claimed angle is at most
    ``continuity_angle`` (exact comparison; a NaN angle never is), C1 when also the claimed
    derivative difference is at most ``continuity_derivative`` times the claimed scale, C2 the
    same for second derivatives. A relative test may be evaluated as the exact product, the
    product rounded at the model's unit roundoff u, or the quotient ``difference / scale``
    rounded at u against the threshold: an outcome any of them gives is allowed."""
    a = claimed["tangent_angle"]
    g1 = {False} if math.isnan(a) else {to_mpq(a) <= to_mpq(thr_a)}

    def test(diff, scale, thr):
        dq, sq, tq = to_mpq(claimed[diff]), to_mpq(claimed[scale]), to_mpq(thr)
        prod = tq * sq
        out = {dq <= prod, dq <= _round_at(prod, u)}
        if sq > 0:
            out.add(_round_at(dq / sq, u) <= tq)
        return out

    outcomes = [g1, test("derivative_difference", "derivative_scale", thr_d),
                test("second_derivative_difference", "second_derivative_scale", thr_s)]
    levels = set()
    passing = True  # every earlier test can pass
    for k, o in enumerate(outcomes):
        if passing and False in o:
            levels.add(k)
        passing = passing and True in o
    if passing:
        levels.add(3)
    return levels


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float):
        return enc(x)
    return x


_LEVELS = ("C0", "G1", "C1", "C2")


def _check_classification(claim, d, thr_a, thr_d, thr_s, bounds, u, extra):
    """The claimed classification against the exact one, test by test along the chain
    G1 -> C1 -> C2. The first test whose claimed outcome differs from the exact outcome (or
    whose exact outcome is undecided) must lie within the rounding band of its threshold, where
    a correctly rounded implementation may decide either way; otherwise the claim is Violated.
    ``u`` is the unit roundoff of the claim's model (the product ``thr * scale`` rounds once)."""
    truth, angle = d.detail["truth"], d.detail["angle"]

    def tv(t):
        t = t.item() if isinstance(t, np.ndarray) else t
        return lower(t), upper(t)

    tests = []  # (exact outcome True/False/None, band check) per test, in chain order
    if angle is None:  # no direction: G1 is false exactly, and decided
        tests.append((False, lambda: False))
    else:
        t = to_mpq(thr_a)
        exact = True if angle[1] <= t else False if angle[0] > t else None
        ab = d.detail["ab"]
        # A vacuous angle model gives no band: the claimed decision must be the exact one.
        # t bound now: the loop below rebinds the name (a late-binding lambda compared the angle
        # with the second-derivative threshold).
        tests.append((exact, lambda t=t: ab < _VACUOUS and
                      abs((angle[0] + angle[1]) / 2 - t) <= to_mpq(ab) + (angle[1] - angle[0])))
    for key_d, key_s, thr in (("derivative_difference", "derivative_scale", thr_d),
                              ("second_derivative_difference", "second_derivative_scale", thr_s)):
        dv, sv = tv(truth[key_d]), tv(truth[key_s])
        t = to_mpq(thr)
        exact = True if dv[1] <= t * sv[0] else False if dv[0] > t * sv[1] else None
        # Both values carry their model error, and the product thr * scale rounds once more.
        slack = (to_mpq(bounds[key_d]) + t * to_mpq(bounds[key_s]) + (dv[1] - dv[0])
                 + t * (sv[1] - sv[0]) + t * sv[1] * to_mpq(2 * u))
        tests.append((exact, lambda dv=dv, sv=sv, t=t, slack=slack: abs(dv[0] - t * sv[0]) <= slack))
    claimed_level = _LEVELS.index(claim.value["continuity"])
    ratio = d.detail["ratio"]
    exact_level = None
    for k, (exact, in_band) in enumerate(tests):
        claimed_pass = k < claimed_level
        if exact is True and claimed_pass:
            continue
        if exact is False and not claimed_pass:
            return verified(claim, measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio,
                            decision_differs=0, **extra)
        # Claimed and exact outcomes differ here (or the exact one is undecided).
        exact_level = None if exact is None else (_LEVELS[k] if exact is False else "above " + _LEVELS[k])
        counter = {"decision_undecided": 1} if exact is None else {"decision_differs": 1}
        if in_band():
            return verified(claim, measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio,
                            note=f"decision {claim.value['continuity']} vs exact {exact_level} "
                                 "within the rounding band", **counter, **extra)
        return violated(claim, {"claimed_continuity": claim.value["continuity"],
                                "exact_continuity": exact_level, "test": ("G1", "C1", "C2")[k]},
                        measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio, **counter, **extra)
    # Every test passed exactly: C2 exactly; the claim passed all three too.
    return verified(claim, measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio, decision_differs=0,
                    **extra)


# --- Contracts: the case-file fields of every row, and a planted false claim ----------------

_F32V = S.f32(finite=False)  # claimed values admit nonfinite words: an overflow is Violated
_F64V = S.f64(finite=False)
_XYZ = S.vec(S.f64(), 3)
_CONTROLS = S.matrix(S.f32(), [4, 3])
_REQUEST = S.obj(required={"path": S.matrix(S.f32(), [None, 4, 3]), "is_closed": S.boolean(),
                           "span": S.integer(), "u": S.f64(), "policy": S.enum(list(_PATH_POLICIES)),
                           "side": S.enum(list(_SIDES))})
_POINT = {"controls": _CONTROLS, "u": S.f64(nonnegative=True)}


def _eval_inputs(extra=None):
    """An evaluation claim's inputs: the evaluated point (controls and u, together), its
    request, or both. One object schema (not alternatives), so that a malformed field is
    reported once."""
    s = S.obj(required=extra or {}, optional={**_POINT, "request": _REQUEST})
    s["anyOf"] = [{"required": ["controls", "u"]}, {"required": ["request"]}]
    s["dependentRequired"] = {"controls": ["u"], "u": ["controls"]}
    return s


_NO_POINT = S.obj(required={"status": S.enum(["InvalidDomain", "InvalidArgument"])})
_CONVERSION_STATUSES = ["InvalidArgument", "InvalidDomain", "CapacityExceeded"]


def _up_float(q) -> float:
    """The smallest float64 >= the rational q."""
    f = float(q)
    return f if to_mpq(f) >= q else math.nextafter(f, math.inf)


def _with(claim: Claim, value) -> Claim:
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _f32_up(x) -> str:
    return enc(float(np.nextafter(np.float32(dec(x)), np.float32(np.inf))))


def _plant_endpoints(c: Claim) -> Claim:
    v = [list(p) for p in c.value]
    v[1][1] = _f32_up(v[1][1])  # one float32 ulp off the replayed narrowing
    return _with(c, v)


def _plant_box(c: Claim) -> Claim:
    lo = list(c.value["lo"])
    lo[0] = _f32_up(lo[0])  # the box shrinks by one float32 ulp
    return _with(c, {**c.value, "lo": lo})


def _plant_floor(c: Claim) -> Claim:
    if c.value["floor"] is None:
        return _with(c, {**c.value, "accepted": True})
    return _with(c, {**c.value, "floor": enc(math.nextafter(dec(c.value["floor"]), math.inf))})


def _point_of(c: Claim):
    """The (controls, u) an honest evaluation claim speaks of (its request's exact point)."""
    if "request" in c.inputs:
        path, point = _request(c)
        k, u = point
        return path[k], u
    return _controls_u(c)


def _plant_position(c: Claim) -> Claim:
    if isinstance(c.value, dict):  # a position where the request names no point
        return _with(c, [enc(0.0)] * 3)
    P, _ = _point_of(c)
    b = _resolve(c, _position_reference(EM.span_magnitude(P))).scalar()
    p = list(c.value)
    p[0] = enc(_up_float(to_mpq(dec(p[0])) + 3 * b))  # three model bounds off
    return _with(c, p)


def _plant_derivative(c: Claim) -> Claim:
    P, _ = _point_of(c)
    b = _resolve(c, _derivative_reference(EM.span_magnitude(P))).bound[1]
    s = list(c.value["second"])
    s[1] = enc(_up_float(to_mpq(dec(s[1])) + 3 * b))
    return _with(c, {**c.value, "second": s})


def _plant_tangent(c: Claim) -> Claim:
    if "tangent" not in c.value:
        # A tangent (an unnormalized one) where the true result is Degenerate.
        return _with(c, {"tangent": enc([10.0, 0.0, 0.0])})
    P, u = _point_of(c)
    speed = lower_float(_true_speed(P, u, BUDGET[0]))
    b = float(_resolve(c, _tangent_reference(EM.span_magnitude(P), speed)).bound[0])
    # Scaled by 1 + 3b: at least 2b from the truth (the honest error is at most b).
    return _with(c, {"tangent": enc(dec_array(c.value["tangent"]) * (1.0 + 3.0 * b) * (1 + 1e-15))})


def _plant_conversion(c: Claim) -> Claim:
    if "status" in c.value:
        idx = c.value["index"]
        return _with(c, {**c.value, "index": (idx or 0) + 1})  # not the first coincident pair
    P = dec_array(c.inputs["points"])
    n, i = P.shape[0], int(c.inputs["span"])
    j = (i + 1) % n
    if c.inputs["kind"] == "hermite":
        T, H = dec_array(c.inputs["tangents"]), dec_array(c.inputs["widths"])
        b = _resolve(c, _hermite_reference(P, T, H[i], i, j)).scalar()
    else:
        pts = P[_neighbourhood(n, i, bool(c.inputs["is_closed"]))]
        b = _resolve(c, _catmull_rom_reference(pts, 0.0)).bound[0]
    ctrl = [list(r) for r in c.value["controls"]]
    ctrl[1][0] = enc(_up_float(to_mpq(dec(ctrl[1][0])) + 3 * b))
    return _with(c, {**c.value, "controls": ctrl})


def _plant_continuity(c: Claim) -> Claim:
    claimed = {k: dec(c.value[k]) for k in _CONTINUITY_FIELDS}
    P_in, P_out = dec_array(c.inputs["P_in"], np.float32), dec_array(c.inputs["P_out"], np.float32)
    ref = _continuity_reference(claimed, EM.span_magnitude(P_in), EM.span_magnitude(P_out),
                                dec(c.inputs["w_in"]), dec(c.inputs["w_out"]), None)
    b = _resolve(c, ref).bound[0]
    gap = to_mpq(claimed["position_gap"]) + 3 * b  # the joint's gap three model bounds off
    return _with(c, {**c.value, "position_gap": enc(_up_float(gap))})


_EVAL_MODEL_NOTE = ("E = max |control|; u, eta of the claim's declared model (oracles.schema.MODEL), "
                    "else binary64 (u = 2^-53, eta = 2^-1074)")

CONTRACTS = {
    "path.stored_endpoints": RowContract(
        checks="Each stored endpoint equals fl32(fl64(source - origin)) bit for bit, replayed in exact "
               "rationals from the float64 source endpoints and chunk origin (a signed zero equals zero).",
        inputs=S.obj(required={"source": S.matrix(S.f64(), [2, 3]), "origin": _XYZ}),
        value=S.matrix(_F32V, [2, 3]),
        plant=_plant_endpoints),
    "path.control_boxes": RowContract(
        checks="lo and hi are exactly the componentwise minimum and maximum of the span's four stored "
               "controls fl32(fl64(source - origin)), replayed in exact rationals.",
        inputs=S.obj(required={"source": S.matrix(S.f64(), [4, 3]), "origin": _XYZ}),
        value=S.obj(required={"lo": S.vec(_F32V, 3), "hi": S.vec(_F32V, 3)}),
        plant=_plant_box),
    "path.position_floor": RowContract(
        checks="floor equals 2 ulp32(E) + max |fl32(fl64(s - o)) - (s - o)| rounded up to binary64 "
               "(E the largest narrowed magnitude, all in exact rationals), and accepted equals "
               "max(position_error, fl64(relative_position_error * asset_scale)) >= floor; when a "
               "narrowed control leaves the float32 range, floor is null and accepted false.",
        inputs=S.obj(required={"source": S.matrix(S.f64(), [None, 4, 3]), "origin": _XYZ,
                               "position_error": S.f64(), "relative_position_error": S.f64(),
                               "asset_scale": S.f64()}),
        value=S.obj(required={"floor": S.any_of(_F64V, S.const(None)), "accepted": S.boolean()}),
        plant=_plant_floor),
    "path.interior_positions": RowContract(
        checks="|claimed - B(u)| per component <= 16 u E + 16 eta (reference.error_model.position_bound), "
               "B(u) the exact cubic Bezier point of the float32 controls at the float64 parameter u, "
               "in exact rationals. With a request (the prepared path, span, u, policy, side), the point "
               "is the one it names, decided exactly (span sides at exact boundaries; Reject, Clamp, "
               "Wrap outside the domain); controls and u, when given too, must be that point bit for "
               "bit; a request that names no point claims its status (InvalidDomain, InvalidArgument) "
               "and no value; " + _EVAL_MODEL_NOTE + "; model components: 1.",
        inputs=_eval_inputs(), value=S.any_of(S.vec(_F64V, 3), _NO_POINT), model=S.MODEL,
        plant=_plant_position),
    "path.derivatives": RowContract(
        checks="|first - B'(u)| <= 16 u (6E) + 16 eta and |second - B''(u)| <= 16 u (24E) + 16 eta per "
               "component, exact rational truth, at the point a request names (as for positions); "
               + _EVAL_MODEL_NOTE + "; model components: [first, second].",
        inputs=_eval_inputs(),
        value=S.obj(required={"first": S.vec(_F64V, 3), "second": S.vec(_F64V, 3)}), model=S.MODEL,
        plant=_plant_derivative),
    "path.tangents": RowContract(
        checks="|tangent - B'(u)/|B'(u)|| (Euclidean) <= (2e + r)/((s - e - r)(1 - 4u)) + 16u + 16 eta "
               "(reference.error_model.tangent_bound) with s the true speed |B'(u)| (its float64 lower "
               "bound), e = sqrt(3) (16 u 6E + 16 eta) and r = sqrt(2 eta), capped at 4 where s <= e + r; "
               "truth: B'(u) in exact rationals and s by MPFR's square root rounded down and up, refined "
               "up to 1024 bits; a tangent is also Violated when s + e + r < minimum_speed, and a claimed "
               "Degenerate when s > minimum_speed + e + r. With a request, the point is the one it "
               "names exactly (as for positions); " + _EVAL_MODEL_NOTE
               + "; model components: [tangent, speed error e + r].",
        inputs=_eval_inputs({"minimum_speed": S.f64(nonnegative=True)}),
        value=S.any_of(S.obj(required={"tangent": S.vec(_F64V, 3)}),
                       S.obj(required={"status": S.enum(["Degenerate"])})),
        model=S.MODEL, plant=_plant_tangent),
    "path.conversions": RowContract(
        checks="Hermite: inner controls within 16 u (|P| + |h T|/3) + 16 eta per component (the larger "
               "of both ends; exact rational truth P +- h T/3), endpoints and width exact copies. "
               "Centripetal Catmull-Rom: inner controls within 64 u (W + S^2) per component and the "
               "width within 16 u d + (2 eta)^(1/4) of the knot interval d (IV truth), endpoints exact "
               "copies, and no waypoint pair within coincidence_distance (exact); a claimed "
               "InvalidDomain names the first such pair. u, eta of the declared model, else binary64; "
               "model components: Hermite [controls], Catmull-Rom [controls, width].",
        inputs=S.any_of(
            S.obj(required={"kind": S.const("hermite"), "points": S.matrix(S.f64(), [None, 3]),
                            "tangents": S.matrix(S.f64(), [None, 3]),
                            "widths": S.array(S.f64(positive=True), min_items=1), "is_closed": S.boolean()},
                  optional={"span": S.integer(minimum=0)}),
            S.obj(required={"kind": S.const("catmull_rom"), "points": S.matrix(S.f64(), [None, 3]),
                            "is_closed": S.boolean(), "coincidence_distance": S.f64(nonnegative=True)},
                  optional={"span": S.integer(minimum=0)})),
        value=S.any_of(S.obj(required={"controls": S.matrix(_F64V, [4, 3]), "width": _F64V}),
                       S.obj(required={"status": S.enum(_CONVERSION_STATUSES),
                                       "index": S.any_of(S.integer(minimum=0), S.const(None))})),
        model=S.MODEL, plant=_plant_conversion),
    "path.continuity_values": RowContract(
        checks="Each joint value within its model against IV truth (MPFR atan2 for the angle): "
               "position_gap 16u|gap| + sqrt(2 eta); tangent_angle 16u (2 + 4/(|a+b| - 16u)) capped at 4 "
               "(NaN exactly when a derivative is zero); derivative_difference 16u (6E_in/w_in + "
               "6E_out/w_out) + 16 eta; derivative_scale 16u|scale| + sqrt(2 eta) + that; the "
               "second-derivative pair the same with 24E/w^2. The continuity class must be the threshold "
               "decision on the claimed values themselves (G1: angle <= continuity_angle exactly; C1, C2: "
               "difference <= threshold x scale as the exact product, the product rounded at u, or the "
               "quotient difference/scale rounded at u), and equal the exact class unless the deciding "
               "test lies within its rounding band. u, eta of the declared model, else binary64; model "
               "components: the six values in that order.",
        inputs=S.obj(required={"P_in": _CONTROLS, "P_out": _CONTROLS, "w_in": S.f64(positive=True),
                               "w_out": S.f64(positive=True), "continuity_angle": S.f64(nonnegative=True),
                               "continuity_derivative": S.f64(nonnegative=True),
                               "continuity_second_derivative": S.f64(nonnegative=True)}),
        value=S.obj(required={**{k: _F64V for k in _CONTINUITY_FIELDS}, "continuity": S.enum(list(_LEVELS))}),
        model=S.MODEL, plant=_plant_continuity),
}


FAMILY = Family(
    name="path",
    default_cases=500,
    generate=generate,
    claims=claims,
    checkers={
        "path.stored_endpoints": check_stored_endpoints,
        "path.control_boxes": check_control_boxes,
        "path.position_floor": check_position_floor,
        "path.interior_positions": check_interior_positions,
        "path.derivatives": check_derivatives,
        "path.tangents": check_tangents,
        "path.conversions": check_conversions,
        "path.continuity_values": check_continuity_values,
    },
    contracts=CONTRACTS,
    oracle_precisions=DEFAULT_BUDGET,
)
