"""Our fast path answering triangle requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

The caller holds one surface, as a caller's variable would: a successful
``TriangleSurface::new`` replaces it, a rejected one leaves it (the admitted geometry is
immutable; the rejected input creates nothing). ``first_hit`` and ``clip_segment`` query the
surface held. ``cancel_after_polls`` becomes a callable token polled per facet (``block=1``, as
spec 004 words it: "Cancellation polls per facet"); a query without one runs at the default block.

Claims are the ones the fast path's outcome speaks to (judged against the reference model: it
declares none): a hit makes ``triangle.first_hit``, ``triangle.barycentric``,
``triangle.normal_facing`` and ``triangle.ambiguity`` (outcome hit) claims; a miss
``triangle.first_hit`` and ``triangle.ambiguity`` (outcome miss); an Ambiguous rejection a
``triangle.ambiguity`` claim naming the facet; ``clip_segment`` a ``triangle.first_hit`` claim
whose position is the clipped segment's end.
"""

from __future__ import annotations

from reference.status import GeometryStatus, GuaranteeClass as G
from reference.triangle_surface import SurfaceSettings, SurfaceStamp, TriangleSurface

from ...model import Claim, NumberError, enc
from ...request import Answer, Request, StepAnswer
from .analysis import f64
from .corpus import stamp_json
from .requests import CLIP, FIRST_HIT, NEW

__all__ = ["answer"]


def _number(x):
    """A float64 from a request number; text that is not one passes through unchanged (the fast
    path must then refuse it, as it would refuse a caller's bad value)."""
    try:
        return f64(x)
    except (NumberError, TypeError):
        return x


def _nested(x):
    if isinstance(x, list):
        return [_nested(v) for v in x]
    return _number(x)


def _admit(inp: dict):
    st = inp["settings"]
    settings = SurfaceSettings(_number(st["tolerance"]), st["max_vertices"], st["max_triangles"])
    stamp = SurfaceStamp(inp["stamp"]["identity"], inp["stamp"]["version"])
    return TriangleSurface.new(_nested(inp["vertices"]), inp["triangles"], stamp, settings)


def _state(held) -> dict:
    """The surface the caller holds, as admitted (read from the surface object itself)."""
    if held is None:
        return {"held": False}
    surface, _ = held
    st = surface.settings
    return {"vertices": enc(surface.vertices), "triangles": surface.triangles.tolist(),
            "stamp": stamp_json(surface.stamp),
            "settings": {"tolerance": enc(float(st.tolerance)), "max_vertices": int(st.max_vertices),
                         "max_triangles": int(st.max_triangles)}}


def _token(k):
    """A cancel token that answers "not cancelled" to its first ``k`` polls (None: no token)."""
    if k is None:
        return None
    polls = [0]

    def cancelled() -> bool:
        polls[0] += 1
        return polls[0] > k

    return cancelled


def _query(surface, q: dict, clip: bool):
    cancel = _token(q.get("cancel_after_polls"))
    kw = {"block": 1} if cancel is not None else {}
    run = surface.clip_segment if clip else surface.first_hit
    return run(_nested(q["start"]), _nested(q["end"]), cancel, **kw)


def _geometry(inp: dict, q: dict) -> dict:
    """The claim inputs every triangle row reads: the held surface's mesh and tolerance, and the
    query's segment, as the request wrote them."""
    return {"vertices": inp["vertices"], "triangles": inp["triangles"], "tolerance": inp["settings"]["tolerance"],
            "start": q["start"], "end": q["end"]}


def _first_hit_answer(surface, inp: dict, q: dict) -> StepAnswer:
    out = _query(surface, q, clip=False)
    status = out.status.value
    stamp = stamp_json(out.stamp) if out.stamp is not None else None
    if out.status is GeometryStatus.Ambiguous:
        claims = (Claim("triangle.ambiguity", G.Certified, {"outcome": "ambiguous", "triangle": out.diagnostic.index},
                        _geometry(inp, q)),)
        return StepAnswer(status, claims, {"status": status, "stamp": stamp, "triangle": out.diagnostic.index})
    if not out.ok:
        return StepAnswer(status, (), {"status": status, "stamp": stamp})
    inputs = _geometry(inp, q)
    fh_inputs = {**inputs, "stamp": inp["stamp"]}
    h = out.value
    if h is None:
        claims = (Claim("triangle.first_hit", G.Rounded, {"outcome": "miss", "stamp": stamp}, fh_inputs),
                  Claim("triangle.ambiguity", G.Certified, {"outcome": "miss"}, inputs))
        return StepAnswer(status, claims, {"status": status, "stamp": stamp, "outcome": "miss"})
    claims = (
        Claim("triangle.first_hit", G.Rounded,
              {"outcome": "hit", "t": enc(h.t), "triangle": h.triangle, "position": enc(h.position),
               "stamp": stamp_json(h.stamp)}, fh_inputs),
        Claim("triangle.barycentric", G.Rounded, {"triangle": h.triangle, "weights": enc(h.barycentric)}, inputs),
        Claim("triangle.normal_facing", G.Rounded,
              {"triangle": h.triangle, "normal": enc(h.normal), "facing": h.facing.value}, inputs),
        Claim("triangle.ambiguity", G.Certified, {"outcome": "hit"}, inputs),
    )
    output = {"status": status, "stamp": stamp, "outcome": "hit", "t": enc(h.t), "triangle": h.triangle,
              "position": enc(h.position), "barycentric": enc(h.barycentric), "normal": enc(h.normal),
              "facing": h.facing.value}
    return StepAnswer(status, claims, output)


def _clip_answer(surface, inp: dict, q: dict) -> StepAnswer:
    out = _query(surface, q, clip=True)
    status = out.status.value
    stamp = stamp_json(out.stamp) if out.stamp is not None else None
    if not out.ok:
        return StepAnswer(status, (), {"status": status, "stamp": stamp})
    c = out.value
    fh_inputs = {**_geometry(inp, q), "stamp": inp["stamp"]}
    if c.hit is None:
        value = {"outcome": "miss", "stamp": stamp_json(c.stamp)}
    else:  # the clipped end is the contact's position
        value = {"outcome": "hit", "t": enc(c.hit.t), "triangle": c.hit.triangle, "position": enc(c.end),
                 "stamp": stamp_json(c.stamp)}
    output = {"status": status, "stamp": stamp, "start": enc(c.start), "end": enc(c.end),
              "hit": None if c.hit is None else c.hit.triangle}
    return StepAnswer(status, (Claim("triangle.first_hit", G.Rounded, value, fh_inputs),), output)


def answer(req: Request) -> Answer:
    """Answer a triangle request step by step with ``reference.triangle_surface``."""
    held = None  # (surface, the inputs of the admission that made it)
    steps = []
    for st in req.steps:
        if st.op == NEW:
            out = _admit(st.inputs)
            if out.ok:
                held = (out.value, st.inputs)
            steps.append(StepAnswer(out.status.value, (), _state(held)))
        elif st.op in (FIRST_HIT, CLIP):
            if held is None:  # nothing admitted: there is no surface to query
                steps.append(StepAnswer("MissingCache", (), {"status": "MissingCache"}))
                continue
            surface, inp = held
            steps.append((_first_hit_answer if st.op == FIRST_HIT else _clip_answer)(surface, inp, st.inputs))
        else:
            raise ValueError(f"unknown triangle op {st.op!r}")
    return Answer(req.id, tuple(steps))
