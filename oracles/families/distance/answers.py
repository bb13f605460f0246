"""Our fast path answering distance requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

Two owners are held as the spec's are: the path (replaced by every step that carries ``path``
and prepares) and the distance map (``PreparedDistanceMap()``, unbuilt, until a
``TryBuildDistanceMap`` succeeds; a failed build leaves it as it was: "Exhausting a limit returns
BudgetExceeded ... and keeps the previous map"). Queries go through the held path and map.

Claims are the ones the distance rows judge: on a build, the total's bounds and estimate, up to
four leaves (the widest gap, the first, the last, one drawn) and four stored prefix boundaries
(the start, two drawn, the end) with their estimates; on a bound, the prefix bounds and the
DistanceBound estimate; on a resolution, the inversion residual with its witnesses (the stored
boundaries around the result, the bisection's last short parameter, the Certified bound at the
result).
"""

from __future__ import annotations

import bisect
import zlib

import numpy as np

from reference.distance import (DistancePreparation, DistanceQuery, PreparedDistanceMap, try_bound_distance,
                                try_build_distance_map, try_resolve_distance)
from reference.path import PathPreparation, PathSource, PathSpanSource, resolve_parameter, try_prepare_path
from reference.status import (LIMIT_RANGES, TOLERANCE_RANGES, BoundaryPolicy, GuaranteeClass as G, PathDistance,
                              SegmentParameter, SpanSide, ToleranceProfile, WorkLimits)

from ...model import Claim, dec, dec_array, enc
from ...request import Answer, Request, StepAnswer

__all__ = ["answer", "bound_claims", "build_claims", "map_state", "resolution_claim"]


def _limit(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else dec(v)  # a float limit is refused


def _limits(raw: dict) -> WorkLimits:
    return WorkLimits(**{k: _limit(raw[k]) for k in LIMIT_RANGES})


def _prepare(inp: dict):
    """TryPreparePath of a step's ``path`` inputs (``Outcome``)."""
    spans = [PathSpanSource(dec_array(s["controls"]), dec(s["domain_width"])) for s in inp["spans"]]
    tol = ToleranceProfile(**{k: dec(inp["tolerance"][k]) for k in TOLERANCE_RANGES})
    origin = tuple(float(x) for x in dec_array(inp["origin"]))
    return try_prepare_path(PathSource(spans, revision=inp["revision"], is_closed=bool(inp["is_closed"])),
                            PathPreparation(tol, _limits(inp["limits"]), origin))


def map_state(dmap) -> dict:
    """The map the owner holds, as a step's output."""
    if not dmap.is_built:
        return {"built": False}
    leaves = np.stack([dmap.leaf_span.astype(np.float64), dmap.leaf_u0, dmap.leaf_u1, dmap.leaf_lower,
                       dmap.leaf_upper, dmap.leaf_estimate], axis=1)
    rows = [[int(r[0])] + enc(r[1:]) for r in leaves]
    prefix = enc(np.stack([dmap.prefix_lower, dmap.prefix_upper, dmap.prefix_estimate], axis=1))
    return {"built": True, "revision": dmap.revision, "span_count": dmap.span_count,
            "distance_error": enc(dmap.distance_error), "leaves": rows, "prefix": prefix}


# --- Claims ------------------------------------------------------------------------------------


def build_claims(path, dmap) -> list:
    """The total, a sample of leaves and of stored prefix boundaries, with their estimates."""
    C = enc(path.controls)
    base = {"controls": C, "distance_error": enc(dmap.distance_error)}
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(path.controls).tobytes()))  # stable
    out = []

    def interval(row, lo, hi, inputs):
        out.append(Claim(row, G.Certified, {"lower": enc(lo), "upper": enc(hi)}, {**base, **inputs}))

    def estimate(est, lo, hi, inputs, what):
        out.append(Claim("distance.estimates", G.Estimated, {"estimate": enc(est)},
                         {"controls": C, **inputs, "lower": enc(lo), "upper": enc(hi), "what": what,
                          "distance_error": base["distance_error"]}))

    m, n = dmap.leaf_count, path.span_count
    total_at = {"span": n - 1, "u": enc(1.0)}
    interval("distance.length_bounds", dmap.total_lower, dmap.total_upper, {"range": "total", **total_at})
    estimate(dmap.total_estimate, dmap.total_lower, dmap.total_upper, {"range": "total", **total_at}, "TotalEstimate")
    gaps = dmap.leaf_upper - dmap.leaf_lower
    for i in sorted({int(np.argmax(gaps)), 0, m - 1, int(rng.integers(0, m))}):
        leaf = {"range": "leaf", "span": int(dmap.leaf_span[i]), "u0": enc(dmap.leaf_u0[i]),
                "u1": enc(dmap.leaf_u1[i])}
        interval("distance.length_bounds", dmap.leaf_lower[i], dmap.leaf_upper[i], leaf)
        estimate(dmap.leaf_estimate[i], dmap.leaf_lower[i], dmap.leaf_upper[i], leaf, "leaf estimate")
    for i in sorted({0, int(rng.integers(0, m + 1)), int(rng.integers(0, m + 1)), m}):
        at = ({"span": int(dmap.leaf_span[i]), "u": enc(dmap.leaf_u0[i])} if i < m
              else {"span": n - 1, "u": enc(1.0)})
        interval("distance.prefix_bounds", dmap.prefix_lower[i], dmap.prefix_upper[i], at)
        estimate(dmap.prefix_estimate[i], dmap.prefix_lower[i], dmap.prefix_upper[i], at, "PrefixEstimate")
    return out


def bound_claims(path, dmap, k: int, u: float, b) -> list:
    """The prefix bound at the parameter the request resolved to, and its estimate."""
    at = {"span": k, "u": enc(u)}
    return [Claim("distance.prefix_bounds", G.Certified, {"lower": enc(b.lower), "upper": enc(b.upper)},
                  {"controls": enc(path.controls), "distance_error": enc(dmap.distance_error), **at}),
            Claim("distance.estimates", G.Estimated, {"estimate": enc(b.estimate)},
                  {"controls": enc(path.controls), **at, "lower": enc(b.lower), "upper": enc(b.upper),
                   "what": "DistanceBound.Estimate"})]


def _boundary_at(dmap, n: int, b: int) -> dict:
    """Stored boundary ``b`` (0..m) as ``{span, u, estimate}``; boundary m is the path end."""
    m = dmap.leaf_count
    at = (int(dmap.leaf_span[b]), float(dmap.leaf_u0[b])) if b < m else (n - 1, 1.0)
    return {"span": at[0], "u": enc(at[1]), "estimate": enc(dmap.prefix_estimate[b])}


def _resolution_witness(path, dmap, res):
    """What the resolution's own map and outputs show about its lookup: the stored boundaries
    before and after the result (``after``: the first boundary at or past it), and for a
    bisected result the bisection's last short parameter, ``hi - (leaf width) 2^-iterations``
    (the bracket halves exactly from the leaf), with its estimate."""
    n, m = path.span_count, dmap.leaf_count
    k, u = res.parameter.span_index, res.parameter.u
    # Boundary parameters in path order; (k, 1) of an interior span is (k + 1, 0).
    keys = [(int(dmap.leaf_span[b]), float(dmap.leaf_u0[b])) for b in range(m)] + [(n - 1, 1.0)]
    key = (k + 1, 0.0) if (u == 1.0 and k < n - 1) else (k, u)
    after = min(bisect.bisect_left(keys, key), m)
    out = {"after": _boundary_at(dmap, n, after)}
    if after > 0:
        out["before"] = _boundary_at(dmap, n, after - 1)
    bisected = not (keys[after] == key and float(dmap.prefix_estimate[after]) == res.distance.value) \
        and res.distance.value != dmap.total_estimate and after > 0
    short = None
    if bisected:
        i = after - 1
        ks, a, b = int(dmap.leaf_span[i]), float(dmap.leaf_u0[i]), float(dmap.leaf_u1[i])
        hi = 1.0 if ks != k else u
        lo = hi - (b - a) * 2.0**-res.iterations
        bd = try_bound_distance(path, dmap, SegmentParameter(ks, lo))
        if bd.ok:
            short = {"span": ks, "u": enc(lo), "estimate": enc(bd.value.estimate)}
    return out, short


def resolution_claim(path, dmap, res, s: float, policy: BoundaryPolicy) -> Claim:
    """The inversion-residual claim of one resolution (with its lookup witnesses)."""
    lookup, short = _resolution_witness(path, dmap, res)
    value = {"residual_bound": enc(res.residual_bound), "distance": enc(res.distance.value),
             "bound": {"lower": enc(res.bound.lower), "upper": enc(res.bound.upper),
                       "estimate": enc(res.bound.estimate)},
             "lookup": lookup}
    if short is not None:
        value["short"] = short
    return Claim("distance.inversion_residual", G.Certified, value,
                 {"controls": enc(path.controls), "distance_error": enc(dmap.distance_error),
                  "span": res.parameter.span_index, "u": enc(res.parameter.u), "query": enc(s),
                  "policy": policy.value, "total_estimate": enc(dmap.total_estimate)})


# --- Steps -------------------------------------------------------------------------------------


def _bound(path, dmap, inp: dict) -> StepAnswer:
    param = SegmentParameter(int(inp["span"]), dec(inp["u"]))
    policy, side = BoundaryPolicy(inp["policy"]), SpanSide(inp["side"])
    r = try_bound_distance(path, dmap, param, policy, side)
    if not r.ok:
        return StepAnswer(r.status.value, (), {"status": r.status.value})
    b = r.value
    k, u = resolve_parameter(path, param, policy, side).value
    return StepAnswer("Success", tuple(bound_claims(path, dmap, int(k), float(u), b)),
                      {"lower": enc(b.lower), "upper": enc(b.upper), "estimate": enc(b.estimate)})


def _resolve(path, dmap, inp: dict) -> StepAnswer:
    s = dec(inp["distance"])
    it = inp["max_iterations"]
    it = it if isinstance(it, int) and not isinstance(it, bool) else dec(it)  # a float count is refused
    policy = BoundaryPolicy(inp["policy"])
    r = try_resolve_distance(path, dmap, DistanceQuery(PathDistance(s), policy, it))
    if not r.ok:
        return StepAnswer(r.status.value, (), {"status": r.status.value})
    at = r.value
    out = {"span": at.parameter.span_index, "u": enc(at.parameter.u), "distance": enc(at.distance.value),
           "residual_bound": enc(at.residual_bound), "iterations": at.iterations,
           "bound": {"lower": enc(at.bound.lower), "upper": enc(at.bound.upper), "estimate": enc(at.bound.estimate)}}
    # A policy the row's schema has no place for never succeeds; the claim needs the held map's T.
    return StepAnswer("Success", (resolution_claim(path, dmap, at, s, policy),), out)


def answer(req: Request) -> Answer:
    """Answer a distance request step by step with ``reference.distance``."""
    path = None  # the held path's view
    dmap = PreparedDistanceMap().view()  # the held map: unbuilt until a build succeeds
    steps = []
    for st in req.steps:
        inp = st.inputs
        if "path" in inp:
            prep = _prepare(inp["path"])
            if not prep.ok:
                steps.append(StepAnswer(prep.status.value, (), {"status": prep.status.value}))
                continue
            path = prep.value.view()
        if path is None:
            raise ValueError(f"{req.id}: a distance step without a path")
        if st.op == "TryBuildDistanceMap":
            try:
                prep = DistancePreparation(_limits(inp["limits"]), inp["strict"])
            except (TypeError, ValueError):
                steps.append(StepAnswer("InvalidArgument", (), map_state(dmap)))
                continue
            out = try_build_distance_map(path, prep)
            claims = ()
            if out.ok:
                dmap = out.value.view()
                claims = tuple(build_claims(path, dmap))
            steps.append(StepAnswer(out.status.value, claims, map_state(dmap)))
        elif st.op == "TryBoundDistance":
            steps.append(_bound(path, dmap, inp))
        elif st.op == "TryResolveDistance":
            steps.append(_resolve(path, dmap, inp))
        else:
            raise ValueError(f"unknown distance op {st.op!r}")
    # Outputs where a rule compares them (the others would only repeat the claims).
    needed = {k for r in req.rules for k in (r.before, r.after)}
    return Answer(req.id, tuple(a if i in needed else StepAnswer(a.status, a.claims) for i, a in enumerate(steps)))
