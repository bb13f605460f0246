"""Our fast path answering track requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

The owner is held the way the spec's output owner is: a successful ``TryPrepareTrack`` replaces
it, a failed one leaves it as it was ("a failed rebuild keeps the previous snapshot").
``TryEvaluateTrack`` reads the track the owner holds.
"""

from __future__ import annotations

import numpy as np

from reference.status import BoundaryPolicy, GuaranteeClass as G, SpanSide, TrackTime, WorkLimits
from reference.track import TrackInterpolation, TrackKey, try_evaluate_track, try_prepare_track

from ...model import Claim, dec, enc, number_as
from ...request import Answer, Request, StepAnswer

__all__ = ["answer", "key_claims", "value_claim"]


def _keys(raw: list) -> list:
    return [TrackKey(dec(k[0]), np.float32(number_as(k[1], "f32")), np.float32(number_as(k[2], "f32")),
                     np.float32(number_as(k[3], "f32")), TrackInterpolation(k[4])) for k in raw]


def key_claims(view, keys_enc: list) -> list:
    """One ``track.key_values`` claim per stored key: the stored key, and evaluation at its time
    under Reject on both sides."""
    out = []
    for i in range(view.key_count):
        stored = [enc(float(view.times[i])), enc(float(view.values[i])), enc(float(view.in_slopes[i])),
                  enc(float(view.out_slopes[i])), view.interpolation(min(i, view.key_count - 1)).value]
        t = TrackTime(float(view.times[i]))
        got = {side.value: enc(try_evaluate_track(view, t, BoundaryPolicy.Reject, side).value.value)
               for side in (SpanSide.Outgoing, SpanSide.Incoming)}
        out.append(Claim("track.key_values", G.Exact, {"stored": stored, **got}, {"keys": keys_enc, "key": i}))
    return out


def _stored(view) -> list:
    return [[enc(float(view.times[i])), enc(float(view.values[i])), enc(float(view.in_slopes[i])),
             enc(float(view.out_slopes[i])), view.interpolation(min(i, view.key_count - 1)).value]
            for i in range(view.key_count)]


def value_claim(view, keys_enc: list, inputs: dict):
    """``(status, claim, output)`` of one evaluation on ``view`` (the track of ``keys_enc``)."""
    t = dec(inputs["time"])
    s = try_evaluate_track(view, TrackTime(t), BoundaryPolicy(inputs["policy"]), SpanSide(inputs["side"]))
    if s.ok:
        v = s.value
        value = {"value": enc(v.value), "derivative": enc(v.derivative_per_second), "span": v.span_index,
                 "reflected": v.is_reflected}
    else:
        value = {"status": s.status.value}
    claim = Claim("track.values", G.Rounded, value,
                  {"keys": keys_enc, "time": enc(t), "policy": inputs["policy"], "side": inputs["side"]})
    # A status the track row's schema has no place for (a policy the row refuses) makes no claim.
    keep = s.ok or (s.status.value in ("InvalidArgument", "InvalidDomain") and inputs["policy"] != "Wrap")
    return s.status.value, (claim if keep and np.isfinite(t) else None), value


def answer(req: Request) -> Answer:
    """Answer a track request step by step with ``reference.track``."""
    held = None  # (view, encoded source keys) of the track the owner holds
    steps = []
    for st in req.steps:
        if st.op == "TryPrepareTrack":
            inp = st.inputs
            try:
                keys = _keys(inp["keys"])
            except (ValueError, OverflowError):  # a key the track cannot hold: refused like the fast path's
                keys = None
            if keys is None:
                status, claims = "InvalidArgument", ()
            else:
                out = try_prepare_track(keys, WorkLimits(**inp["limits"]))
                status = out.status.value
                claims = ()
                if out.ok:
                    held = (out.value.view(), inp["keys"])
                    claims = tuple(key_claims(held[0], held[1]))
            steps.append(StepAnswer(status, claims, {"keys": _stored(held[0]) if held else []}))
        elif st.op == "TryEvaluateTrack":
            if held is None:
                steps.append(StepAnswer("MissingCache", (), {"status": "MissingCache"}))
                continue
            status, claim, output = value_claim(held[0], held[1], st.inputs)
            steps.append(StepAnswer(status, (claim,) if claim is not None else (), output))
        else:
            raise ValueError(f"unknown track op {st.op!r}")
    return Answer(req.id, tuple(steps))
