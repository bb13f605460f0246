"""Our fast path answering path requests: the adapter an outside implementation's answers stand
in for (``oracles.request``: one outcome per step, claims on success).

The owner is held the way the spec's output owner is: a successful ``TryPreparePath`` replaces
it, a failed one leaves it as it was ("a failed rebuild keeps the previous snapshot").
``TryEvaluatePath`` and ``TryEvaluatePathTangent`` read the path the owner holds. The
conversions write into the caller's ranges, which a request's conversions of one capacity
share (so a failed conversion is seen to leave them unchanged).

Claims are the ones the path rows judge: on a prepare, the position floor (also when the floor
refuses the source), each span's stored endpoints and control box, and each joint's values; on
an evaluation, the position (and ``try_sample_path``'s answer to the same request where it
differs, bit for bit or in status: sampling is one call per policy and side over the queries
that follow a prepare) and the derivatives; on a tangent, the unit tangent or Degenerate; on a
conversion, each span (or the first coincident pair of an InvalidDomain). Evaluation claims
name their request (the held path's float32 controls, span, u, policy, side) and the point our
fast path resolved it to (``controls``, ``u``).
"""

from __future__ import annotations

import math

import numpy as np

from reference.path import (HermiteWaypoint, PathPreparation, PathSource, PathSpanSource, control_bounds,
                            resolve_parameter, try_convert_centripetal_catmull_rom, try_convert_hermite,
                            try_evaluate_path, try_evaluate_path_tangent, try_prepare_path, try_sample_path)
from reference.status import (LIMIT_RANGES, TOLERANCE_RANGES, BoundaryPolicy, GeometryStatus, GuaranteeClass as G,
                              SegmentParameter, SpanSide, ToleranceProfile, WorkLimits)

from ...model import Claim, dec, dec_array, enc
from ...request import Answer, Request, StepAnswer
from .checks import PATH_POLICIES

__all__ = ["answer"]

_EMPTY = {"controls": []}


# --- TryPreparePath ----------------------------------------------------------------------------


def _limit(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else dec(v)  # a float limit is refused


def _prepare(inp: dict):
    """``(status, claims, held or None)``: TryPreparePath of the request's inputs."""
    spans = [PathSpanSource(dec_array(s["controls"]), dec(s["domain_width"])) for s in inp["spans"]]
    tol = ToleranceProfile(**{k: dec(inp["tolerance"][k]) for k in TOLERANCE_RANGES})
    limits = WorkLimits(**{k: _limit(inp["limits"][k]) for k in LIMIT_RANGES})
    origin = tuple(float(x) for x in dec_array(inp["origin"]))
    out = try_prepare_path(PathSource(spans, revision=inp["revision"], is_closed=bool(inp["is_closed"])),
                           PathPreparation(tol, limits, origin))
    if out.ok:
        floor = out.value.view().position_floor
    elif out.status is GeometryStatus.UnsupportedPrecision and out.diagnostic.field == "position_error":
        floor = out.diagnostic.value
    elif out.status is GeometryStatus.UnsupportedPrecision:
        floor = None  # narrowed controls left the float32 range before a floor existed
    else:
        return out.status.value, (), None
    src = np.stack([np.asarray(s.controls, dtype=np.float64) for s in spans])
    claims = [Claim("path.position_floor", G.Exact, {"floor": enc(floor), "accepted": out.ok},
                    {"source": enc(src), "origin": enc(np.asarray(origin)),
                     "position_error": enc(tol.position_error),
                     "relative_position_error": enc(tol.relative_position_error),
                     "asset_scale": enc(tol.asset_scale)})]
    if not out.ok:
        return out.status.value, tuple(claims), None
    view = out.value.view()
    claims += _prepared_claims(view, src, np.asarray(origin))
    return "Success", tuple(claims), _Held(view)


def _prepared_claims(view, src, origin) -> list:
    """Each span's stored endpoints and control box, and each joint's values."""
    out = []
    for i in range(view.span_count):
        # Inputs carry only what the checker reads (the span index is not: the source is).
        out.append(Claim("path.stored_endpoints", G.Exact, enc(view.controls[i][[0, 3]]),
                         {"source": enc(src[i, [0, 3]]), "origin": enc(origin)}))
        lo, hi = control_bounds(view, i).value
        out.append(Claim("path.control_boxes", G.Exact, {"lo": enc(lo), "hi": enc(hi)},
                         {"source": enc(src[i]), "origin": enc(origin)}))
    tol = view.tolerance
    for rec in view.joints:
        i, j = rec.incoming_span, rec.index
        out.append(Claim("path.continuity_values", G.Rounded,
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
                          "continuity_second_derivative": enc(tol.continuity_second_derivative)}))
    return out


class _Held:
    """The path the owner holds, with its encoded controls (shared by every claim's request)."""

    def __init__(self, view):
        self.view = view
        self.path_enc = enc(view.controls)
        self.sampled: dict = {}  # step index -> try_sample_path's answer (see _sample_ahead)

    def state(self) -> dict:
        v = self.view
        return {"controls": self.path_enc, "domain_widths": enc(v.domain_widths), "origin": enc(v.origin),
                "revision": v.revision, "is_closed": v.is_closed, "position_floor": enc(v.position_floor)}


# --- TryEvaluatePath, TryEvaluatePathTangent ---------------------------------------------------


def _query(inp: dict):
    return (SegmentParameter(int(inp["span"]), dec(inp["u"])), BoundaryPolicy(inp["policy"]),
            SpanSide(inp["side"]))


def _claimable(inp: dict) -> bool:
    """Whether the rows' schemas have a place for this request (a path policy, a finite u)."""
    return inp["policy"] in PATH_POLICIES and math.isfinite(dec(inp["u"]))


def _request_inputs(held: _Held, inp: dict) -> dict:
    return {"path": held.path_enc, "is_closed": bool(held.view.is_closed), "span": int(inp["span"]),
            "u": enc(dec(inp["u"])), "policy": inp["policy"], "side": inp["side"]}


def _sample_ahead(held: _Held, steps, start: int) -> None:
    """``try_sample_path``'s answer to each TryEvaluatePath step from ``start`` to the next
    prepare, one call per (policy, side) group: a (3,) position, a status name where the call
    failed at that request, or nothing where the group's call failed at another request (the
    call writes nothing then)."""
    held.sampled = {}
    groups: dict = {}
    for i in range(start, len(steps)):
        st = steps[i]
        if st.op == "TryPreparePath":
            break
        if st.op == "TryEvaluatePath" and _claimable(st.inputs):
            groups.setdefault((st.inputs["policy"], st.inputs["side"]), []).append(i)
    for (policy, side), idx in groups.items():
        while idx:
            ks = np.array([int(steps[i].inputs["span"]) for i in idx], dtype=np.int64)
            us = np.array([dec(steps[i].inputs["u"]) for i in idx], dtype=np.float64)
            buf = np.zeros((len(idx), 3))
            s = try_sample_path(held.view, ks, us, buf, policy=BoundaryPolicy(policy), side=SpanSide(side))
            if s.ok:
                for j, i in enumerate(idx):
                    held.sampled[i] = buf[j].copy()
                break
            bad = s.diagnostic.index
            if bad is None or not 0 <= bad < len(idx):
                break
            held.sampled[idx[bad]] = s.status.value
            idx = idx[:bad] + idx[bad + 1:]


def _evaluate(held: _Held, inp: dict, i: int) -> StepAnswer:
    """Position and derivative claims of one request. A request without a point is a claimed
    status; sampling's answer is a second claim only where it differs."""
    view = held.view
    param, policy, side = _query(inp)
    s = try_evaluate_path(view, param, policy, side, with_derivatives=True)
    claimable = _claimable(inp)
    req = _request_inputs(held, inp) if claimable else None
    q = held.sampled.get(i)
    if not s.ok:
        claims = []
        if claimable:
            claims.append(Claim("path.interior_positions", G.Rounded, {"status": s.status.value}, {"request": req}))
            if q is not None and not isinstance(q, str):
                claims.append(Claim("path.interior_positions", G.Rounded, enc(q), {"request": req}))
        return StepAnswer(s.status.value, tuple(claims), {"status": s.status.value})
    p = try_evaluate_path(view, param, policy, side).value
    kk, uu = resolve_parameter(view, param, policy, side).value
    inputs = {"controls": held.path_enc[kk], "u": enc(uu), "request": req}
    # No declared model: the checker judges the fast path against the reference model it
    # recomputes from the inputs (binary64).
    pos = enc(p)
    claims = [Claim("path.interior_positions", G.Rounded, pos, inputs)]
    if isinstance(q, str):
        claims.append(Claim("path.interior_positions", G.Rounded, {"status": q}, {"request": req}))
    elif q is not None and not np.array_equal(q, p):
        claims.append(Claim("path.interior_positions", G.Rounded, enc(q), {"request": req}))
    v = s.value
    derivs = {"first": enc(v.first), "second": enc(v.second)}
    claims.append(Claim("path.derivatives", G.Rounded, derivs, inputs))
    return StepAnswer("Success", tuple(claims), {"position": pos, **derivs})


def _tangent(held: _Held, inp: dict) -> StepAnswer:
    view = held.view
    param, policy, side = _query(inp)
    m = dec(inp["minimum_speed"])
    t = try_evaluate_path_tangent(view, param, m, policy, side)
    out = {"tangent": enc(t.value)} if t.ok else {"status": t.status.value}
    if not (t.ok or t.status is GeometryStatus.Degenerate) or not _claimable(inp):
        return StepAnswer(t.status.value, (), out)
    kk, uu = resolve_parameter(view, param, policy, side).value
    tin = {"controls": held.path_enc[kk], "u": enc(uu), "request": _request_inputs(held, inp), "minimum_speed": enc(m)}
    return StepAnswer(t.status.value, (Claim("path.tangents", G.Rounded, out, tin),), out)


# --- Conversions -------------------------------------------------------------------------------


def _convert(op: str, inp: dict, ranges):
    """``(StepAnswer, ranges)``: a conversion into the caller's ranges (``(capacity, controls,
    widths)``, kept across a request's conversions of one capacity)."""
    cap = int(inp["capacity"])
    if ranges is None or ranges[0] != cap:
        ranges = (cap, np.zeros((cap, 4, 3)), np.zeros(cap))
    _, oc, ow = ranges
    closed = bool(inp["is_closed"])
    if op == "TryConvertHermite":
        w = inp["waypoints"]
        pts, tans = dec_array([x[0] for x in w]), dec_array([x[1] for x in w])
        widths = [dec(x[2]) for x in w]
        out = try_convert_hermite([HermiteWaypoint(pts[i], tans[i], widths[i]) for i in range(len(w))],
                                  closed, oc, ow)
        base = {"kind": "hermite", "points": enc(pts), "tangents": enc(tans), "widths": enc(np.asarray(widths)),
                "is_closed": closed}
    else:
        pts, cd = dec_array(inp["points"]), dec(inp["coincidence_distance"])
        out = try_convert_centripetal_catmull_rom(pts, closed, cd, oc, ow)
        base = {"kind": "catmull_rom", "points": enc(pts), "is_closed": closed, "coincidence_distance": enc(cd)}
    claims = ()
    if out.ok:
        claims = tuple(Claim("path.conversions", G.Rounded, {"controls": enc(oc[i]), "width": enc(ow[i])},
                             {**base, "span": i}) for i in range(out.value))
    elif out.status is GeometryStatus.InvalidDomain and op != "TryConvertHermite":
        # The first coincident pair, which the checker replays exactly.
        claims = (Claim("path.conversions", G.Rounded, {"status": out.status.value, "index": out.diagnostic.index},
                        base),)
    return StepAnswer(out.status.value, claims, {"controls": enc(oc), "widths": enc(ow)}), ranges


# --- A whole request ---------------------------------------------------------------------------


def answer(req: Request) -> Answer:
    """Answer a path request step by step with ``reference.path``."""
    held = None  # the path the owner holds
    ranges = None  # the caller's conversion ranges
    steps = []
    for i, st in enumerate(req.steps):
        if st.op == "TryPreparePath":
            status, claims, new = _prepare(st.inputs)
            if new is not None:
                held = new
            if held is not None:
                _sample_ahead(held, req.steps, i + 1)
            steps.append(StepAnswer(status, claims, held.state() if held is not None else _EMPTY))
        elif st.op in ("TryEvaluatePath", "TryEvaluatePathTangent"):
            if held is None:
                steps.append(StepAnswer("MissingCache", (), {"status": "MissingCache"}))
            elif st.op == "TryEvaluatePath":
                steps.append(_evaluate(held, st.inputs, i))
            else:
                steps.append(_tangent(held, st.inputs))
        elif st.op in ("TryConvertHermite", "TryConvertCentripetalCatmullRom"):
            ans, ranges = _convert(st.op, st.inputs, ranges)
            steps.append(ans)
        else:
            raise ValueError(f"unknown path op {st.op!r}")
    # Outputs where a rule compares them (the others would only repeat the claims).
    needed = {k for r in req.rules for k in (r.before, r.after)}
    return Answer(req.id, tuple(a if i in needed else StepAnswer(a.status, a.claims) for i, a in enumerate(steps)))
