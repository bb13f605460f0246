"""Our fast path answering sweep requests: the adapter an outside implementation's answers stand
in for (``oracles.request``: one outcome per step, claims on success).

``TryPlanSweepMesh`` prepares the request's path, builds the distance map it names and frames on
the path (with a map of their own, ``oracles.families.frame.answers``), then plans; the plan owner
is held the way the spec's output owner is: a successful plan replaces it, a failed one leaves it
("a failed rebuild keeps the previous snapshot"). ``TryEmitSweepMesh`` writes the held plan into the
caller's arrays, which the adapter keeps by name for the whole request (allocated at first use from
the held plan's report and the step's slack, zero-filled), so a failed emission is seen to leave them
as they were; the step's output is read from those arrays after the call.

Claims: on a successful emission, ``sweep.rings`` (the rings, the emitted mesh and a capacity probe:
emission into arrays of the adapter's own one vertex row, then one index, short) and
``sweep.error_estimates`` (the rings' distances, the mesh, the report's estimates and risk flags,
the frames' seed normal, periodicity and angular error estimate).
"""

from __future__ import annotations

import numpy as np

from reference.frame import try_build_frames
from reference.status import GuaranteeClass as G
from reference.sweep import VERTEX_WIDTH, SweepCaps, SweepProfileKey, SweepRequest, SweepSection, SweepWinding, \
    try_emit_sweep_mesh, try_plan_sweep_mesh

from ...model import Claim, enc, parse_number
from ...request import Answer, Request, StepAnswer
from ..frame.answers import frame_preparation, limits_of, map_view, prepare_path

__all__ = ["answer"]

_ENUMS = {"section": SweepSection, "caps": SweepCaps, "winding": SweepWinding}


def _number(x):
    return float(parse_number(x))


def _request(raw: dict) -> SweepRequest:
    """The SweepRequest of a request: names that name nothing and numbers out of range are passed as
    they are (the fast path answers InvalidArgument)."""
    def enum(name):
        try:
            return _ENUMS[name](raw[name])
        except ValueError:
            return raw[name]
    profile = [SweepProfileKey(*(_number(x) for x in k)) for k in raw["profile"]]
    return SweepRequest(enum("section"), profile, enum("caps"), enum("winding"), _number(raw["longitudinal_error"]),
                        _number(raw["cross_section_error"]), raw["max_section_segments"], raw["max_vertex_count"],
                        raw["max_index_count"], limits_of(raw["limits"]))


def _frames(inp: dict, pv):
    """The frames the request's ``frames`` names: built on the path (or the same source prepared
    at ``path_revision``) with a distance map of their own; an unbuilt view otherwise."""
    from reference.frame import PreparedFrames

    raw = inp["frames"]
    if not raw.get("built", True):
        return PreparedFrames().view()
    fpv = pv
    if raw.get("path_revision", inp["path"]["revision"]) != inp["path"]["revision"]:
        other = prepare_path(inp["path"], raw["path_revision"])
        if not other.ok:
            return PreparedFrames().view()
        fpv = other.value.view()
    m = map_view(fpv, inp["path"], {"limits": inp["path"]["limits"]})
    if not m.ok:
        return PreparedFrames().view()
    f = try_build_frames(fpv, m.value, frame_preparation(raw["preparation"]))
    return f.value.view() if f.ok else PreparedFrames().view()


class _Held:
    def __init__(self, inputs, pv, mv, fv, plan):
        self.inputs, self.pv, self.mv, self.fv, self.plan = inputs, pv, mv, fv, plan


def _plan(inp: dict):
    """``(status, held or None)`` of one TryPlanSweepMesh."""
    p = prepare_path(inp["path"])
    if not p.ok:
        return p.status.value, None
    pv = p.value.view()
    m = map_view(pv, inp["path"], inp["map"])
    if not m.ok:
        return m.status.value, None
    fv = _frames(inp, pv)
    plan = try_plan_sweep_mesh(pv, m.value, fv, _request(inp["request"]))
    if not plan.ok:
        return plan.status.value, None
    return "Success", _Held(inp, pv, m.value, fv, plan.value.view())


def _plan_output(held) -> dict:
    if held is None:
        return {"rings": []}
    v = held.plan
    r = v.report
    return {"report": {"ring_count": r.ring_count, "section_segments": r.section_segments,
                       "vertex_count": r.vertex_count, "index_count": r.index_count,
                       "longitudinal": enc(r.longitudinal_error_estimate),
                       "cross_section": enc(r.cross_section_error_estimate),
                       "risk_count": r.self_intersection_risk_count},
            "rings": [[int(v.ring_span[i]), enc(v.ring_u[i]), enc(v.ring_distance[i]), enc(v.ring_scale[i]),
                       enc(v.ring_roll[i]), enc(v.ring_position[i]), enc(v.ring_normal[i])]
                      for i in range(r.ring_count)]}


def _capacity_probe(pv, plan) -> dict:
    """Emission into arrays one vertex row (then one index) short of the plan: the spec's
    CapacityExceeded, checked before writing, leaves both arrays bit for bit unchanged."""
    rep = plan.report
    out = {}
    for name, nv, ni in (("short_vertices", rep.vertex_count - 1, rep.index_count),
                         ("short_indices", rep.vertex_count, rep.index_count - 1)):
        Vs = np.full((max(nv, 0), VERTEX_WIDTH), -7.0)
        Is = np.full(max(ni, 0), 7, dtype=np.int64)
        before = Vs.tobytes() + Is.tobytes()
        r = try_emit_sweep_mesh(pv, plan, Vs, Is)
        out[name] = "Success" if r.ok else r.status.value
        out[name + "_unchanged"] = Vs.tobytes() + Is.tobytes() == before
    return out


def _claims(held, V, I, name: str) -> tuple:
    pv, fv, v = held.pv, held.fv, held.plan
    req = held.inputs["request"]
    profile = [[enc(_number(x)) for x in k] for k in req["profile"]]
    rep = v.report
    rings = [[int(v.ring_span[i]), enc(v.ring_u[i]), enc(v.ring_distance[i]), enc(v.ring_scale[i]),
              enc(v.ring_position[i]), enc(v.ring_tangent[i]), enc(v.ring_normal[i]), enc(v.ring_binormal[i])]
             for i in range(rep.ring_count)]
    mesh = {"vertices": enc(V), "indices": [int(x) for x in I]}
    common = {"controls": enc(pv.controls), "section": v.section.value, "segments": rep.section_segments,
              "closed": v.is_closed}
    c1 = Claim("sweep.rings", G.Rounded, {**mesh, "capacity": _capacity_probe(pv, v)},
               {**common, "rings": rings, "caps": v.caps.value, "winding": v.winding.value,
                "total": enc(v.total_distance), "profile": profile,
                "distance_error": enc(float(pv.tolerance.distance_error))})
    c2 = Claim("sweep.error_estimates", G.Estimated,
               {**mesh, "longitudinal": enc(rep.longitudinal_error_estimate),
                "cross_section": enc(rep.cross_section_error_estimate),
                "risk_count": rep.self_intersection_risk_count,
                "risk_flags": [bool(x >= 1.0) for x in v.ring_risk]},
               {**common, "rings": [r[:3] for r in rings], "profile": profile,
                "seed_normal": enc(fv.sample_normal[0]), "periodic": bool(fv.is_periodic),
                "winding_turns": int(fv.winding_turns), "total": enc(v.total_distance),
                "longitudinal_error": enc(_number(req["longitudinal_error"])),
                "cross_section_error": enc(_number(req["cross_section_error"])),
                "angular_error_estimate": enc(fv.angular_error_estimate),
                "distance_error": enc(float(pv.tolerance.distance_error)),
                "tangent_angle_error": enc(float(pv.tolerance.tangent_angle_error)), "case": name})
    return c1, c2


def _emit(held, arrays: dict, ev: dict, name: str):
    """``(status, claims, output)`` of one TryEmitSweepMesh into the caller's arrays."""
    key = ev["arrays"]
    rep = held.plan.report
    if key not in arrays:
        nv = max(rep.vertex_count + int(ev.get("vertex_slack", 0)), 0)
        ni = max(rep.index_count + int(ev.get("index_slack", 0)), 0)
        arrays[key] = (np.zeros((nv, VERTEX_WIDTH)), np.zeros(ni, dtype=np.int64))
    V, I = arrays[key]
    pv = held.pv
    if ev.get("path_revision", held.inputs["path"]["revision"]) != held.inputs["path"]["revision"]:
        other = prepare_path(held.inputs["path"], ev["path_revision"])
        if not other.ok:
            return other.status.value, (), None
        pv = other.value.view()
    got = try_emit_sweep_mesh(pv, held.plan, V, I)
    output = {"vertices": enc(V), "indices": [int(x) for x in I]}
    if not got.ok:
        return got.status.value, (), output
    nv, ni = got.value
    return "Success", _claims(held, V[:nv].copy(), I[:ni].copy(), name), output


def answer(req: Request) -> Answer:
    """Answer a sweep request step by step with ``reference.sweep``."""
    held = None
    arrays: dict = {}
    needed = {r.before for r in req.rules} | {r.after for r in req.rules}
    steps = []
    for i, st in enumerate(req.steps):
        if st.op == "TryPlanSweepMesh":
            status, got = _plan(st.inputs)
            if got is not None:
                held = got
            steps.append(StepAnswer(status, (), _plan_output(held) if i in needed else None))
        elif st.op == "TryEmitSweepMesh":
            if held is None:
                steps.append(StepAnswer("MissingCache", ()))
                continue
            status, claims, output = _emit(held, arrays, st.inputs, req.name)
            steps.append(StepAnswer(status, claims, output if i in needed else None))
        else:
            raise ValueError(f"unknown sweep op {st.op!r}")
    return Answer(req.id, tuple(steps))
