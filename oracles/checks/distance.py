"""Distance rows: leaf and total length bounds, prefix bounds, inversion residual (Certified)
and TotalEstimate / PrefixEstimate / DistanceBound.Estimate (Estimated).

Corpus: deterministic in the seed. The first cases are named: a zero-speed ease endpoint, a
stationary span between moving ones, a closed path (Wrap targets beyond both ends), straight
segments (chord = arc, the tightest lower bounds), an interior cusp, a path far from the
world origin, a tiny path, a tight distance_error, and targets exactly on stored boundaries
(every case also resolves some boundary estimates exactly). The rest are random chains of 1 to
4 spans with ``distance_error`` between 1e-5 and 1e-2 of the path's length.

Checkers recompute every truth from ``claim.inputs`` alone, with the arc-length oracle
(``interval.arclength``: Taylor integration of the speed with a Cauchy remainder; never
chord/polygon brackets), refining precision and width through ``BUDGET``:

* ``distance.length_bounds`` / ``distance.prefix_bounds``: the enclosure of the true length
  (of a leaf ``[u0, u1]`` of one span, or the prefix ``L(span, u)``) lies in ``[lower, upper]``.
  Measured: ``(upper - lower) / distance_error``.
* ``distance.inversion_residual``: ``|L(parameter) - target| <= residual_bound <=
  distance_error``, with the target recomputed exactly from the query (Clamp, or Wrap's exact
  remainder modulo TotalEstimate). Measured: ``|L - target| / residual_bound``.
* ``distance.estimates``: ``lower <= estimate <= upper`` and the truth inside ``[lower,
  upper]``. Measured: ``|estimate - L| / L``.
"""

from __future__ import annotations

import math
import zlib

import gmpy2
import numpy as np

from interval.arclength import enclose_arc_length, enclose_prefix_length
from interval.context import lower, to_mpq, upper
from reference.distance import (
    DistancePreparation,
    DistanceQuery,
    try_bound_distance,
    try_build_distance_map,
    try_resolve_distance,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import (
    BoundaryPolicy,
    GuaranteeClass as G,
    PathDistance,
    SegmentParameter,
    ToleranceProfile,
    WorkLimits,
)

from .. import schema as S
from ..decide import DEFAULT_BUDGET, Decision, refine
from ..family import Family, RowContract
from ..model import Claim, dec, dec_array, enc, undecided, verified, violated

__all__ = ["FAMILY", "BUDGET", "REL_WIDTH", "LIMITS", "tolerance", "generate", "claims",
           "check_length_bounds", "check_prefix_bounds", "check_inversion_residual", "check_estimates",
           "CONTRACTS", "plant_bounds", "plant_inversion", "plant_estimate"]

# Interval precisions the checkers may spend, and the relative enclosure width asked at each.
BUDGET = DEFAULT_BUDGET
REL_WIDTH = {113: 1e-15, 256: 1e-24, 1024: 1e-40}

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 18, max_depth=48,
                    max_subdivisions=1 << 18, max_prepared_bytes=1 << 28, max_samples=64)

_mpq = gmpy2.mpq


def tolerance(distance_error: float, position_error: float) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
        continuity_position=position_error, continuity_angle=1e-3, continuity_derivative=1e-3,
        continuity_second_derivative=1e-3, distance_error=distance_error, projection_gap=1e-3,
        tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
        normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


# --- Corpus ----------------------------------------------------------------------------------


def _chain(rng, n, size, start=None):
    pts = np.empty((n, 4, 3))
    p0 = np.zeros(3) if start is None else np.asarray(start, dtype=np.float64)
    for i in range(n):
        pts[i, 0] = p0
        pts[i, 1:] = p0 + np.cumsum(rng.normal(size=(3, 3)) * size, axis=0)
        p0 = pts[i, 3]
    return pts


def _polygon_length(src) -> float:
    return float(np.sum(np.linalg.norm(np.diff(src, axis=1), axis=2)))


def _case(name, src, rel_error, closed=False, origin=(0.0, 0.0, 0.0), extra_targets=()):
    src = np.asarray(src, dtype=np.float64)
    L = max(_polygon_length(src), 1e-9)
    # Well above the float32 position floor (about 2.4e-7 of the largest chunk-relative
    # coordinate): distance maps, not the floor, are under test here.
    E = float(np.max(np.abs(src - np.asarray(origin, dtype=np.float64))))
    return {"name": name, "source": src, "closed": bool(closed), "origin": tuple(map(float, origin)),
            "distance_error": max(float(L * rel_error), 1e-12), "extra_targets": list(extra_targets),
            "position_error": max(1e-5 * E, 1e-30)}


def _ease(rng):
    src = _chain(rng, 2, 1.0)
    src[0, 1] = src[0, 0]  # zero speed at the start
    src[1, 2] = src[1, 3]  # and at the end
    return _case("zero-speed ease endpoints", src, 1e-4)


def _stationary(rng):
    src = _chain(rng, 3, 1.0)
    p = src[1, 0].copy()
    src[1] = p  # a stationary span: all four controls equal
    src[2] += p - src[2, 0]
    return _case("stationary span", src, 1e-4)


def _closed(rng):
    src = _chain(rng, 3, 1.0)
    src[-1, 3] = src[0, 0]
    return _case("closed path", src, 1e-4, closed=True, extra_targets=[("wrap", f) for f in (-0.25, 1.5, 7.25, -3.0)])


def _straight(rng):
    a, b, c = rng.normal(size=(3, 3)) * 4
    src = np.stack([np.stack([a, a + (b - a) / 4, a + 3 * (b - a) / 4, b]),
                    np.stack([b, b + (c - b) / 3, b + 2 * (c - b) / 3, c])])
    return _case("straight segments", src, 1e-6)


def _cusp(rng):
    s = float(10.0 ** rng.uniform(-1, 1))
    src = np.array([[[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]]], dtype=np.float64) * s
    return _case("interior cusp", src, 1e-4)


def _far(rng):
    base = rng.uniform(-1, 1, 3) * 1e5
    src = _chain(rng, 2, 10.0, start=base)
    return _case("far from the world origin", src, 1e-4, origin=tuple(np.round(base)))


def _tiny(rng):
    return _case("tiny path", _chain(rng, 2, 1e-3), 1e-3)


def _tight(rng):
    return _case("tight distance_error", _chain(rng, 1, 1.0), 1e-7)


def _boundaries(rng):
    return _case("targets on stored boundaries", _chain(rng, 3, 1.0), 1e-3,
                 extra_targets=[("boundary", i) for i in range(0, 400, 7)])


def _random_case(rng):
    n = int(rng.integers(1, 5))
    size = float(10.0 ** rng.uniform(-2, 2))
    closed = bool(rng.random() < 0.15)
    src = _chain(rng, n, size)
    if closed:
        src[-1, 3] = src[0, 0]
    return _case("random", src, float(10.0 ** rng.uniform(-5, -2)), closed=closed)


def generate(seed: int, n: int) -> list:
    """``n`` distance cases, named corner cases first. Deterministic in ``seed``."""
    specials = [_ease, _stationary, _closed, _straight, _cusp, _far, _tiny, _tight, _boundaries]
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 5])
        cases.append(specials[k](rng) if k < len(specials) else _random_case(rng))
    return cases


# --- Claims from the fast path ---------------------------------------------------------------


def _prepare(case):
    spans = spans_from_arrays(case["source"], np.ones(case["source"].shape[0]))
    return try_prepare_path(PathSource(spans, revision=1, is_closed=case["closed"]),
                            PathPreparation(tolerance(case["distance_error"], case["position_error"]),
                                            LIMITS, case["origin"]))


def claims(case) -> list:
    """Run the fast path on one case and return its claims."""
    prep = _prepare(case)
    if not prep.ok:
        return []
    path = prep.value.view()
    built = try_build_distance_map(path, DistancePreparation(LIMITS))
    if not built.ok:
        return []
    dmap = built.value.view()
    rng = np.random.default_rng(zlib.crc32(case["name"].encode() + case["source"].tobytes()))  # stable
    C = enc(path.controls)
    E = enc(dmap.distance_error)
    base = {"controls": C, "distance_error": E}  # inputs hold exactly what the checkers read
    out = []

    def interval(row, lo, hi, inputs):
        out.append(Claim(row, G.Certified, {"lower": enc(lo), "upper": enc(hi)}, {**base, **inputs}))

    def estimate(est, lo, hi, inputs, what):
        out.append(Claim("distance.estimates", G.Estimated, {"estimate": enc(est)},
                         {"controls": C, **inputs, "lower": enc(lo), "upper": enc(hi), "what": what}))

    m = dmap.leaf_count
    n = path.span_count
    # Total and a sample of leaves (the widest gap, the first, the last, one at random).
    total_at = {"span": n - 1, "u": enc(1.0)}
    interval("distance.length_bounds", dmap.total_lower, dmap.total_upper, {"range": "total", **total_at})
    estimate(dmap.total_estimate, dmap.total_lower, dmap.total_upper, {"range": "total", **total_at}, "TotalEstimate")
    gaps = dmap.leaf_upper - dmap.leaf_lower
    for i in sorted({int(np.argmax(gaps)), 0, m - 1, int(rng.integers(0, m))}):
        leaf = {"range": "leaf", "span": int(dmap.leaf_span[i]), "u0": enc(dmap.leaf_u0[i]),
                "u1": enc(dmap.leaf_u1[i])}
        interval("distance.length_bounds", dmap.leaf_lower[i], dmap.leaf_upper[i], leaf)
        estimate(dmap.leaf_estimate[i], dmap.leaf_lower[i], dmap.leaf_upper[i], leaf, "leaf estimate")
    # Prefix bounds: stored boundaries and TryBoundDistance at random parameters.
    for i in sorted({0, int(rng.integers(0, m + 1)), int(rng.integers(0, m + 1)), m}):
        at = ({"span": int(dmap.leaf_span[i]), "u": enc(dmap.leaf_u0[i])} if i < m
              else {"span": n - 1, "u": enc(1.0)})
        interval("distance.prefix_bounds", dmap.prefix_lower[i], dmap.prefix_upper[i], at)
        estimate(dmap.prefix_estimate[i], dmap.prefix_lower[i], dmap.prefix_upper[i], at, "PrefixEstimate")
    for _ in range(3):
        k, u = int(rng.integers(0, n)), float(rng.random())
        b = try_bound_distance(path, dmap, SegmentParameter(k, u)).value
        at = {"span": k, "u": enc(u)}
        interval("distance.prefix_bounds", b.lower, b.upper, at)
        estimate(b.estimate, b.lower, b.upper, at, "DistanceBound.Estimate")
    # Inversion: boundary estimates exactly, both ends, random targets, outside targets.
    T = dmap.total_estimate
    targets = [(float(dmap.prefix_estimate[int(rng.integers(0, m + 1))]), BoundaryPolicy.Reject),
               (0.0, BoundaryPolicy.Reject), (T, BoundaryPolicy.Reject),
               (float(rng.random() * T), BoundaryPolicy.Reject), (float(rng.random() * T), BoundaryPolicy.Reject),
               (-1.0 - T, BoundaryPolicy.Clamp), (2.0 * T + 1.0, BoundaryPolicy.Clamp)]
    for kind, x in case["extra_targets"]:
        if kind == "boundary" and x <= m:
            targets.append((float(dmap.prefix_estimate[x]), BoundaryPolicy.Reject))
        elif kind == "wrap" and path.is_closed:
            targets.append((float(x * T), BoundaryPolicy.Wrap))
        elif kind == "fraction":
            targets.append((float(x * T), BoundaryPolicy.Clamp))
    for s, policy in targets:
        r = try_resolve_distance(path, dmap, DistanceQuery(PathDistance(s), policy, 128))
        if not r.ok:
            continue  # failures are statuses, evidenced by the unit tests
        at = r.value
        out.append(Claim("distance.inversion_residual", G.Certified,
                         {"residual_bound": enc(at.residual_bound), "distance": enc(at.distance.value)},
                         {**base, "span": at.parameter.span_index, "u": enc(at.parameter.u),
                          "query": enc(s), "policy": policy.value, "total_estimate": enc(T)}))
    return out


# --- Checkers --------------------------------------------------------------------------------


def _controls(claim: Claim) -> np.ndarray:
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


def _truth(claim: Claim):
    """``enclose(prec) -> ArcLengthEnclosure`` of the quantity a claim speaks of."""
    C = _controls(claim)
    if claim.inputs.get("range") == "total":
        k, u = _at(claim, C)
        if k != C.shape[0] - 1 or u != 1.0:
            raise ValueError("a total length is the prefix at the path end: span n - 1, u = 1")
    if claim.inputs.get("range") == "leaf":
        k = claim.inputs["span"]
        u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
        if not isinstance(k, int) or not 0 <= k < C.shape[0] or not 0.0 <= u0 <= u1 <= 1.0:
            raise ValueError("leaf span or range out of range")
        return lambda prec: enclose_arc_length(C[k], u0, u1, prec, REL_WIDTH[prec])
    k, u = _at(claim, C)
    return lambda prec: enclose_prefix_length(C, k, u, prec, REL_WIDTH[prec])


def _interval(claim: Claim, lo_key="lower", hi_key="upper", src=None):
    src = claim.value if src is None else src
    lo, hi = dec(src[lo_key]), dec(src[hi_key])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("bounds must be finite")
    return to_mpq(lo), to_mpq(hi)


def _fl(q) -> float:
    """A ratio as a float for the report (inf when it overflows: a residual bound of a few
    subnormals against a length error of order one)."""
    try:
        return float(q)
    except OverflowError:
        return math.inf


def _enc_iv(x) -> list:
    return [enc(lower(x)), enc(upper(x))]


def _decide_inside(claim: Claim, lo, hi) -> Decision:
    """Whether the claim's true length lies in the exact ``[lo, hi]``, refined over BUDGET."""
    enclose = _truth(claim)

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
    E = dec(claim.inputs["distance_error"])
    d = _decide_inside(claim, lo, hi)
    measured = _fl((hi - lo) / to_mpq(E)) if E > 0 else None
    if d.holds is True:
        return verified(claim, measure="width_over_distance_error", measured=measured, prec=d.prec)
    if d.holds is False:
        return violated(claim, {"truth": _enc_iv(d.enclosure), "claimed": claim.value},
                        measure="width_over_distance_error", measured=measured, prec=d.prec)
    return undecided(claim, _enc_iv(d.enclosure), prec=d.prec,
                     note="the length enclosure straddles a claimed bound at the precision budget")


def check_length_bounds(claim: Claim):
    """Certified: the true length of the leaf (``range = leaf``: span, u0, u1) or of the whole
    path (``range = total``: the prefix at the path end) lies in ``[lower, upper]``."""
    if claim.inputs.get("range") not in ("leaf", "total"):
        raise ValueError("range must be 'leaf' or 'total'")
    return _check_bounds(claim)


def check_prefix_bounds(claim: Claim):
    """Certified: the true prefix length ``L(span, u)`` lies in ``[lower, upper]``."""
    return _check_bounds(claim)


def _effective_target(claim: Claim):
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


def check_inversion_residual(claim: Claim):
    """Certified: ``|L(span, u) - target| <= residual_bound <= distance_error`` with the
    target recomputed exactly from the query, and the resolved ``distance`` within the
    residual bound of that target (equal to it unless a wrapped target had to round)."""
    R = to_mpq(dec(claim.value["residual_bound"]))
    E = to_mpq(dec(claim.inputs["distance_error"]))
    resolved = dec(claim.value["distance"])
    if not math.isfinite(resolved):
        raise ValueError("the resolved distance must be finite")
    t = _effective_target(claim)
    enclose = _truth(claim)
    if R > E:
        return violated(claim, {"residual_bound": claim.value["residual_bound"],
                                "distance_error": claim.inputs["distance_error"]},
                        note="the residual bound exceeds distance_error")
    if abs(to_mpq(resolved) - t) > R:
        return violated(claim, {"distance": claim.value["distance"], "target": enc(t),
                                "residual_bound": claim.value["residual_bound"]},
                        note="the resolved distance is not the query's target after its policy")

    def check(prec):
        L = enclose(prec).value
        far = max(upper(L) - t, t - lower(L))  # the largest |L - t| over the enclosure
        near = max(lower(L) - t, t - upper(L), _mpq(0))  # the smallest
        if far <= R:
            return Decision(True, prec, L, far)
        if near > R:
            return Decision(False, prec, L, near)
        return Decision(None, prec, L)

    d = refine(check, BUDGET)
    if d.holds is True:
        measured = _fl(d.detail / R) if R > 0 else 0.0
        return verified(claim, measure="residual_over_bound", measured=measured, prec=d.prec)
    if d.holds is False:
        return violated(claim, {"truth": _enc_iv(d.enclosure), "target": enc(t), "claimed": claim.value},
                        measure="residual_over_bound", measured=_fl(d.detail / R) if R > 0 else math.inf,
                        prec=d.prec)
    return undecided(claim, _enc_iv(d.enclosure), prec=d.prec,
                     note="|L - target| straddles the residual bound at the precision budget")


_WHAT = {"leaf estimate": "leaf", "TotalEstimate": "total", "PrefixEstimate": None, "DistanceBound.Estimate": None}


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
    if not lo <= est <= hi:
        return violated(claim, {"estimate": claim.value["estimate"], "lower": claim.inputs["lower"],
                                "upper": claim.inputs["upper"]}, note="the estimate leaves its Certified interval")
    d = _decide_inside(claim, lo, hi)
    L = d.enclosure
    mid = (lower(L) + upper(L)) / 2
    rel = float(abs(est - mid) / mid) if mid > 0 else (0.0 if est == 0 else math.inf)
    if d.holds is True:
        return verified(claim, measure="relative_error", measured=rel, prec=d.prec)
    if d.holds is False:
        return violated(claim, {"truth": _enc_iv(L), "interval": [claim.inputs["lower"], claim.inputs["upper"]]},
                        measure="relative_error", measured=rel, prec=d.prec,
                        note="the Certified interval of the estimate misses the truth")
    return undecided(claim, _enc_iv(L), prec=d.prec, note="truth straddles the estimate's interval")


# --- Contracts -------------------------------------------------------------------------------


_CONTROLS = S.matrix(S.f32(), [None, 4, 3])
_AT = {"span": S.integer(minimum=0), "u": S.f64()}
_LEAF = {"range": S.const("leaf"), "span": S.integer(minimum=0), "u0": S.f64(), "u1": S.f64()}
_TOTAL = {"range": S.const("total"), **_AT}
_ERR = {"controls": _CONTROLS, "distance_error": S.f64(nonnegative=True)}
_BOUNDS = S.obj(required={"lower": S.f64(), "upper": S.f64()})
_IV = {"lower": S.f64(), "upper": S.f64()}


def _replace(claim: Claim, value=None, inputs=None) -> Claim:
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def _past(x: float) -> float:
    """A float64 clearly above ``x`` (relative 2^-10 plus 2^-30): outside any honest bracket."""
    return float(x + abs(x) * 2.0**-10 + 2.0**-30)


def plant_bounds(claim: Claim) -> Claim:
    """The bracket moved wholly above the truth (a length of the wrong leaf, or an offset)."""
    hi = _past(dec(claim.value["upper"]))
    return _replace(claim, {"lower": enc(hi), "upper": enc(_past(hi))})


def plant_inversion(claim: Claim) -> Claim:
    """The parameter kept while the query moved by four distance errors (a resolution that
    answers a different target); the resolved distance moves with it. When the domain is too
    short for that, the residual bound exceeds distance_error instead."""
    E = dec(claim.inputs["distance_error"])
    T = dec(claim.inputs["total_estimate"])
    s = dec(claim.value["distance"])
    shift = 4 * E + 2 * dec(claim.value["residual_bound"])
    for t in (s + shift, s - shift):
        if 0.0 <= t <= T and shift > 0:
            return _replace(claim, {**claim.value, "distance": enc(t)},
                            {**claim.inputs, "query": enc(t), "policy": "Reject"})
    return _replace(claim, {**claim.value, "residual_bound": enc(_past(2 * E))})


def plant_estimate(claim: Claim) -> Claim:
    """The estimate above its Certified interval (an estimate not clamped into its bounds)."""
    return _replace(claim, {"estimate": enc(_past(dec(claim.inputs["upper"])))})


CONTRACTS = {
    "distance.length_bounds": RowContract(
        checks=("Certified: the true arc length of the leaf [u0, u1] of the span (range leaf), or of the whole path "
                "(range total: the prefix at span n - 1, u = 1), lies in [lower, upper], shown by Taylor "
                "integration of the speed with a Cauchy remainder at 113, 256 then 1024 bits; measured "
                "(upper - lower) / distance_error."),
        inputs=S.any_of(S.obj(required={**_ERR, **_LEAF}), S.obj(required={**_ERR, **_TOTAL})),
        value=_BOUNDS,
        plant=plant_bounds,
    ),
    "distance.prefix_bounds": RowContract(
        checks=("Certified: the true prefix length L(span, u) from the path start lies in [lower, upper] (the same "
                "arc-length oracle); measured (upper - lower) / distance_error."),
        inputs=S.obj(required={**_ERR, **_AT}),
        value=_BOUNDS,
        plant=plant_bounds,
    ),
    "distance.inversion_residual": RowContract(
        checks=("Certified: residual_bound <= distance_error, |distance - target| <= residual_bound and "
                "|L(span, u) - target| <= residual_bound, with the target recomputed exactly from query, policy "
                "(Reject inside [0, T], Clamp, Wrap: the floored remainder modulo T) and T = total_estimate; "
                "measured |L - target| / residual_bound."),
        inputs=S.obj(required={**_ERR, **_AT, "query": S.f64(), "policy": S.enum(["Reject", "Clamp", "Wrap"]),
                               "total_estimate": S.f64(nonnegative=True)}),
        value=S.obj(required={"residual_bound": S.f64(nonnegative=True), "distance": S.f64()}),
        plant=plant_inversion,
    ),
    "distance.estimates": RowContract(
        checks=("Estimated: lower <= estimate <= upper exactly, and the true length the inputs name (a leaf, the "
                "total, or a prefix) inside [lower, upper]; measured |estimate - L| / L."),
        inputs=S.any_of(
            S.obj(required={"controls": _CONTROLS, **_LEAF, **_IV, "what": S.const("leaf estimate")}),
            S.obj(required={"controls": _CONTROLS, **_TOTAL, **_IV, "what": S.const("TotalEstimate")}),
            S.obj(required={"controls": _CONTROLS, **_AT, **_IV,
                            "what": S.enum(["PrefixEstimate", "DistanceBound.Estimate"])})),
        value=S.obj(required={"estimate": S.f64()}),
        plant=plant_estimate,
    ),
}


FAMILY = Family(
    name="distance",
    default_cases=200,
    generate=generate,
    claims=claims,
    checkers={
        "distance.length_bounds": check_length_bounds,
        "distance.prefix_bounds": check_prefix_bounds,
        "distance.inversion_residual": check_inversion_residual,
        "distance.estimates": check_estimates,
    },
    contracts=CONTRACTS,
    oracle_precisions=DEFAULT_BUDGET,
)
