"""Our fast path answering surface requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

The owner is held the way the spec's output owner is: a successful ``TryPrepareSurface``
replaces it, a failed one leaves it as it was ("a failed rebuild keeps the previous snapshot").
The queries read the surface the owner holds.

Claims are the ones the surface rows judge: on a prepare, the edge records
(``surface.shared_edges``), the corner records (``surface.corners``) and the continuity values
of up to four shared edges (``surface.evaluation``, kind ``edge``), or the claimed
InvalidTopology rule and join; on an evaluation, the sample (position and all partials); on a
normal, the unit normal or Degenerate / IllConditioned with the decision values it was made on;
on an edge parameter, the mapped (u, v) of each incidence (or the failure status). Record and
edge-parameter claims carry the network as the request gave it; evaluation claims the held
patch's float32 controls.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from interval.surface import side_controls
from reference import kernel as K
from reference.context import F64
from reference.status import (LIMIT_RANGES, TOLERANCE_RANGES, GeometryStatus, GuaranteeClass as G, ToleranceProfile,
                              WorkLimits)
from reference.surface import (
    PatchSide,
    SurfaceAdjacencySource,
    SurfaceEdgeId,
    SurfacePatchSource,
    SurfacePreparation,
    SurfaceSource,
    try_evaluate_surface,
    try_evaluate_surface_normal,
    try_map_edge_parameter,
    try_prepare_surface,
)
from reference.surface import _normal_decision  # the lengths and sine the decision used

from ...model import Claim, NumberError, dec, dec_array, enc
from ...request import Answer, Request, StepAnswer
from .requests import prepare_inputs

__all__ = ["answer", "case_source", "network_inputs", "source_of"]

_EMPTY = {"controls": []}
_SAMPLE = ("position", "du", "dv", "duu", "duv", "dvv")


# --- TryPrepareSurface --------------------------------------------------------------------------


def _number(v):
    """A request number as the fast path receives it: integers stay integers (ids, indices),
    numbers become floats (a float where an integer belongs is refused by the fast path)."""
    if isinstance(v, bool) or isinstance(v, int):
        return v
    try:
        return dec(v)
    except (NumberError, TypeError):
        return v  # left as it is: the fast path refuses what it cannot read


def _array(v):
    try:
        return dec_array(v)
    except (NumberError, TypeError, ValueError):
        return v


def _side(v):
    return PatchSide[v] if isinstance(v, str) and v in PatchSide.__members__ else v


def source_of(inp: dict) -> tuple:
    """``(SurfaceSource, SurfacePreparation)`` of TryPrepareSurface's request inputs."""
    patches = [SurfacePatchSource(_number(p["id"]), _array(p["control"])) for p in inp["patches"]]
    joins = [SurfaceAdjacencySource(_number(a["first_patch"]), _side(a["first_side"]), _number(a["second_patch"]),
                                    _side(a["second_side"]), a["is_reversed"]) for a in inp["adjacency"]]
    tol = ToleranceProfile(**{k: _number(inp["tolerance"][k]) for k in TOLERANCE_RANGES})
    limits = WorkLimits(**{k: _number(inp["limits"][k]) for k in LIMIT_RANGES})
    origin = _array(inp["origin"])
    origin = tuple(float(x) for x in origin) if isinstance(origin, np.ndarray) and origin.shape == (3,) else origin
    return SurfaceSource(patches, joins, _number(inp["revision"])), SurfacePreparation(tol, limits, origin)


def case_source(case) -> tuple:
    """``(SurfaceSource, SurfacePreparation)`` of a corpus case (``corpus.py``)."""
    return source_of(prepare_inputs(case))


def network_inputs(inp: dict) -> dict:
    """The network of TryPrepareSurface's inputs as the record claims carry it (``ids``,
    ``source``, ``origin``, ``joins``)."""
    return {"ids": [p["id"] for p in inp["patches"]], "source": [p["control"] for p in inp["patches"]],
            "origin": inp["origin"],
            "joins": [[a["first_patch"], a["first_side"], a["second_patch"], a["second_side"], a["is_reversed"]]
                      for a in inp["adjacency"]]}


def _edge_json(e) -> dict:
    return {"id": [e.id.patch_id, e.id.side.value], "curve": enc(e.curve),
            "incidences": [[i.patch, i.patch_id, i.side.value, i.is_reversed] for i in e.incidences],
            "orientation_consistent": e.is_orientation_consistent}


def _corner_json(c) -> dict:
    return {"id": [c.id.patch_id, c.id.corner.value], "position": enc(c.position),
            "incidences": [[i.patch, i.patch_id, i.corner.value] for i in c.incidences]}


class _Held:
    """The surface the owner holds, with its network (the record claims' inputs) and the
    encoded controls of each patch (shared by every claim of that patch)."""

    def __init__(self, view, net: dict):
        self.view, self.net = view, net
        self.edges = [_edge_json(e) for e in view.edges]
        self.corners = [_corner_json(c) for c in view.corners]
        self._controls: dict = {}

    def controls(self, p: int):
        if p not in self._controls:
            self._controls[p] = enc(self.view.controls[p])
        return self._controls[p]

    def state(self) -> dict:
        v = self.view
        return {"controls": enc(v.controls), "patch_ids": list(v.patch_ids), "origin": enc(v.origin),
                "revision": v.revision, "position_floor": enc(v.position_floor), "edges": self.edges,
                "corners": self.corners}


def _edge_value_claims(held: _Held) -> list:
    """Continuity values of up to four shared edges (picked by a generator seeded with the
    controls)."""
    view = held.view
    shared = [e for e in view.edges if e.is_shared]
    if not shared:
        return []
    rng = np.random.default_rng([zlib.crc32(np.ascontiguousarray(view.controls).tobytes()), 1])
    out = []
    for k in sorted(set(int(x) for x in rng.choice(len(shared), size=min(len(shared), 4), replace=False))):
        e = shared[k]
        a, b = e.incidences
        rows = []
        for inc in (a, b):
            C = view.controls[inc.patch]
            rows.append(np.stack([side_controls(C, inc.side.value), side_controls(C, inc.side.value, inner=True)]))
        out.append(Claim("surface.evaluation", G.Rounded,
                         {"difference": enc(e.cross_derivative_difference), "scale": enc(e.cross_derivative_scale),
                          "is_c1": e.is_c1},
                         {"kind": "edge", "first": enc(rows[0]), "second": enc(rows[1]), "is_reversed": b.is_reversed,
                          "continuity_derivative": enc(view.tolerance.continuity_derivative)}))
    return out


def _prepare(inp: dict):
    """``(status, claims, held or None)``: TryPrepareSurface of the request's inputs."""
    source, prep = source_of(inp)
    out = try_prepare_surface(source, prep)
    if not out.ok:
        claims = ()
        if out.status is GeometryStatus.InvalidTopology:
            claims = (Claim("surface.shared_edges", G.Exact,
                            {"status": out.status.value, "rule": out.diagnostic.field, "index": out.diagnostic.index},
                            network_inputs(inp)),)
        return out.status.value, claims, None
    held = _Held(out.value.view(), network_inputs(inp))
    claims = [Claim("surface.shared_edges", G.Exact, {"edges": held.edges}, held.net),
              Claim("surface.corners", G.Exact, {"corners": held.corners}, held.net)]
    claims += _edge_value_claims(held)
    return "Success", tuple(claims), held


# --- Queries ------------------------------------------------------------------------------------


def _point(inp: dict):
    return _number(inp["patch"]), _number(inp["u"]), _number(inp["v"])


def _claimable(view, p, u, v) -> bool:
    """Whether the evaluation row's schema has a place for this point (a patch of the surface,
    u and v in [0, 1])."""
    return (isinstance(p, int) and not isinstance(p, bool) and 0 <= p < view.patch_count
            and all(isinstance(x, float) and 0.0 <= x <= 1.0 for x in (u, v)))


def _evaluate(held: _Held, inp: dict) -> StepAnswer:
    p, u, v = _point(inp)
    partials = bool(inp.get("partials", True))
    s = try_evaluate_surface(held.view, p, u, v, partials=partials)
    if not s.ok:
        return StepAnswer(s.status.value, (), {"status": s.status.value})
    if not partials:
        return StepAnswer("Success", (), {"position": enc(s.value)})
    value = {k: enc(getattr(s.value, k)) for k in _SAMPLE}
    claim = Claim("surface.evaluation", G.Rounded, value,
                  {"kind": "sample", "controls": held.controls(p), "u": enc(u), "v": enc(v)})
    return StepAnswer("Success", (claim,), value)


def _decision_values(C, u, v, tol) -> dict:
    """The computed ``|Su|``, ``|Sv|``, ``|Su x Sv|`` and sine the fast path's normal decision
    compared with its thresholds (a threshold decision on Rounded values is checkable exactly
    only against the values it was made on)."""
    su, sv, n = K.bicubic_normal_vector(F64, np.asarray(C, dtype=np.float64), np.float64(u), np.float64(v))
    _code, _unit, (lu, lv, lx, sin) = _normal_decision(su, sv, n, tol.normal_min_derivative_length,
                                                      tol.normal_min_sin_angle)
    return {"su": enc(float(lu)), "sv": enc(float(lv)), "cross": enc(float(lx)), "sine": enc(float(sin))}


def _normal(held: _Held, inp: dict) -> StepAnswer:
    view = held.view
    p, u, v = _point(inp)
    nr = try_evaluate_surface_normal(view, p, u, v)
    out = {"normal": enc(nr.value)} if nr.ok else {"status": nr.status.value}
    if not (nr.ok or nr.status in (GeometryStatus.Degenerate, GeometryStatus.IllConditioned)) \
            or not _claimable(view, p, u, v):
        return StepAnswer(nr.status.value, (), out)
    tol = view.tolerance
    value = {**out, "decision": _decision_values(view.controls[p], u, v, tol)}
    claim = Claim("surface.evaluation", G.Rounded, value,
                  {"kind": "normal", "controls": held.controls(p), "u": enc(u), "v": enc(v),
                   "normal_min_derivative_length": enc(tol.normal_min_derivative_length),
                   "normal_min_sin_angle": enc(tol.normal_min_sin_angle)})
    return StepAnswer(nr.status.value, (claim,), out)


def _map(held: _Held, inp: dict) -> StepAnswer:
    edge, s = inp["edge"], _number(inp["s"])
    eid = edge
    if isinstance(edge, list) and len(edge) == 2 and isinstance(edge[0], int) and edge[1] in PatchSide.__members__:
        eid = SurfaceEdgeId.of(edge[0], PatchSide[edge[1]])
    out = try_map_edge_parameter(held.view, eid, s)
    mapped = [[m.patch, m.patch_id, m.side.value, enc(m.u), enc(m.v)] for m in out.value] if out.ok \
        else {"status": out.status.value}
    result = {"mapped": mapped} if out.ok else mapped
    if not (isinstance(s, float) and math.isfinite(s) and eid is not edge):
        return StepAnswer(out.status.value, (), result)
    claim = Claim("surface.shared_edges", G.Exact, {"mapped": [mapped]},
                  {**held.net, "edge_parameters": [[edge[0], edge[1], enc(s)]]})
    return StepAnswer(out.status.value, (claim,), result)


# --- A whole request ----------------------------------------------------------------------------


def answer(req: Request) -> Answer:
    """Answer a surface request step by step with ``reference.surface``."""
    held = None  # the surface the owner holds
    steps, owners = [], {}
    for i, st in enumerate(req.steps):
        if st.op == "TryPrepareSurface":
            status, claims, new = _prepare(st.inputs)
            if new is not None:
                held = new
            owners[i] = held  # the owner after the step (its state is encoded only where a rule needs it)
            steps.append(StepAnswer(status, claims))
        elif st.op in ("TryEvaluateSurface", "TryEvaluateSurfaceNormal", "TryMapEdgeParameter"):
            if held is None:
                steps.append(StepAnswer("MissingCache", (), {"status": "MissingCache"}))
            elif st.op == "TryEvaluateSurface":
                steps.append(_evaluate(held, st.inputs))
            elif st.op == "TryEvaluateSurfaceNormal":
                steps.append(_normal(held, st.inputs))
            else:
                steps.append(_map(held, st.inputs))
        else:
            raise ValueError(f"unknown surface op {st.op!r}")
    # Outputs where a rule compares them (the others would only repeat the claims).
    needed = {k for r in req.rules for k in (r.before, r.after)}
    out = []
    for i, a in enumerate(steps):
        if i not in needed:
            out.append(StepAnswer(a.status, a.claims))
        elif i in owners:
            out.append(StepAnswer(a.status, a.claims, owners[i].state() if owners[i] is not None else _EMPTY))
        else:
            out.append(a)
    return Answer(req.id, tuple(out))
