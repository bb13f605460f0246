"""Track rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, and a
planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import math

import numpy as np

from interval.context import to_mpq
from interval.track import exact_track_sample
from reference.status import BoundaryPolicy, SpanSide
from reference.track import VALUE_ERROR_K, TrackInterpolation

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc
from .checks import query_of, resolve_model

__all__ = ["CONTRACTS", "INTERPOLATIONS", "KEYS", "POLICIES"]

POLICIES = (BoundaryPolicy.Reject, BoundaryPolicy.Clamp, BoundaryPolicy.Hold, BoundaryPolicy.Loop,
            BoundaryPolicy.PingPong)
INTERPOLATIONS = [k.value for k in (TrackInterpolation.Step, TrackInterpolation.Linear, TrackInterpolation.Hermite)]


def _key_schema(number, time):
    """[time, value, in_slope, out_slope, interpolation] (a fixed-length tuple)."""
    return {"type": "array", "prefixItems": [time, number, number, number, S.enum(INTERPOLATIONS)],
            "items": False, "minItems": 5, "maxItems": 5}


KEYS = S.array(_key_schema(S.f32(), S.f64()), min_items=2, doc=(
    "Given: the track's keys in order, each [time (float64 seconds), value (float32), in_slope, out_slope "
    "(float32, value units per second), interpolation of the span that starts at the key]."))
_F64V = S.f64(finite=False)  # claimed values admit nonfinite words: an overflow is Violated


def _up_float(q) -> float:
    f = float(q)
    return f if to_mpq(f) >= q else math.nextafter(f, math.inf)


def _plant_key_value(c: Claim) -> Claim:
    stored = list(c.value["stored"])
    # The stored value one float32 ulp above the source key.
    stored[1] = enc(float(np.nextafter(np.float32(dec(stored[1])), np.float32(np.inf))))
    return Claim(c.row, c.guarantee, {**c.value, "stored": stored}, c.inputs, c.model)


def _plant_value(c: Claim) -> Claim:
    keys, t, policy, side = query_of(c)
    truth = exact_track_sample(keys, t, policy, side)
    if truth is None:  # a value where Reject has none
        value = {"value": enc(0.0), "derivative": enc(0.0), "span": 0, "reflected": False}
    elif "status" in c.value:
        value = {"value": enc(float(truth.value)), "derivative": enc(float(truth.derivative)),
                 "span": truth.span_index + 1, "reflected": truth.reflected}
    else:
        bv = resolve_model(c, truth).bound[0]
        value = {**c.value, "value": enc(_up_float(to_mpq(dec(c.value["value"])) + 3 * bv))}
    return Claim(c.row, c.guarantee, value, c.inputs, c.model)


CONTRACTS = {
    "track.key_values": RowContract(
        checks="stored equals the source key exactly (time, value, slopes; the interpolation too except "
               "on the last key), and evaluation at the key's time under Reject equals, on both sides "
               "(Outgoing, Incoming), the exact key value the side rules select, as exact rationals.",
        inputs=S.obj(required={"keys": KEYS, "key": S.integer(minimum=0, doc="Given: the index of the key claimed.")}),
        value=S.obj(required={
            "stored": S.described(_key_schema(S.f32(finite=False), _F64V), (
                "The key as your prepared track stores it, [time, value, in_slope, out_slope, interpolation]: equal "
                "to the source key exactly (the last key's interpolation excepted).")),
            "Outgoing": S.described(_F64V, (
                "TryEvaluateTrack at the key's time under Reject with SpanSide Outgoing: the value (value units).")),
            "Incoming": S.described(_F64V, "The same with SpanSide Incoming.")}),
        plant=_plant_key_value),
    "track.values": RowContract(
        checks="span and reflected equal the exact ones (exact rational time reduction); |value - exact| "
               "<= 16 (u S + eta) and |derivative - exact| <= 32 (u S / h + eta) (reference.track), S "
               "the span's scale (|v0| + |v1| + h (|m0| + |m1|) Hermite, |v0| + |v1| Linear, 0 Step) and "
               "h its exact width, u and eta of the declared model (k scales both constants by k/16), "
               "else binary64 (u = 2^-53, eta = 2^-1074); a query without a value (Reject outside the "
               "domain) claims InvalidDomain; model components: [value, derivative].",
        inputs=S.obj(required={"keys": KEYS, "time": S.f64(doc="Given: the TrackTime queried, float64 seconds."),
                               "policy": S.enum([p.value for p in POLICIES], doc=(
                                   "Given: the BoundaryPolicy (acts only outside the keys' time range).")),
                               "side": S.enum([SpanSide.Outgoing.value, SpanSide.Incoming.value], doc=(
                                   "Given: the SpanSide at an exact key time."))}),
        value=S.any_of(S.obj(required={
            "value": S.described(_F64V, "The sample's value, value units (float64)."),
            "derivative": S.described(_F64V, (
                "DerivativePerSecond: value units per second (per second, not per normalized u; negated on a "
                "PingPong reflected half).")),
            "span": S.integer(minimum=0, doc="The index of the span evaluated, after the policy's time reduction."),
            "reflected": S.boolean(doc="Whether PingPong reflected the time (a backward half).")},
            doc="A sample."),
                       S.obj(required={"status": S.enum(["InvalidArgument", "InvalidDomain"], doc=(
                           "InvalidDomain: Reject outside the keys' range; InvalidArgument: a rejected query."))},
                             doc="No sample: the status."),
                       doc="TryEvaluateTrack's sample, or its status."),
        model=S.model("[value, derivative]", VALUE_ERROR_K), plant=_plant_value),
}
