"""Track rows: key values (Exact) and track values and derivatives (Rounded).

Corpus: deterministic in the seed. The first cases are named: the spec's example (4.5 s under
PingPong reflects to 2.5 s: value 1.1875, derivative +0.625), an authored hold and Step spans,
large key times with millisecond spans, overshooting Hermite slopes, tiny spans with steep
slopes, queries many periods away, negative times, extreme float32 magnitudes, and times that
reduce exactly onto keys. The rest are random tracks of 2 to 8 keys with random policies and
sides.

Checkers recompute every truth from ``claim.inputs`` alone with ``interval.track`` (exact
rational reduction and evaluation):

* ``track.key_values``: the stored key equals the source key, and evaluation at the key's time
  on both sides equals the exact value there (a key value, by the side rules), exactly.
* ``track.values``: the claimed span and reflection equal the exact ones, and the value and
  derivative lie within the error models of ``reference.track`` (``VALUE_ERROR_K u S`` and
  ``DERIVATIVE_ERROR_K u S / h``, plus eta terms, recomputed exactly from the inputs at the
  claim's declared model through ``oracles.errormodel.resolve``: ``{"u": ...}`` (with ``eta``
  for a format other than binary64/32/16), ``k`` (scales both constants by k/16), or an
  explicit ``bound`` [value, derivative]; binary64 without a model). A query the truth gives
  no value (Reject outside the domain) must claim ``InvalidDomain``. Measured: the worst
  ``error / bound``; a declared model's ratio to the binary64 reference rides in the verdict.

``CONTRACTS`` holds both rows' case-file fields (JSON Schema), the ledger's sentence and a
planted false claim.
"""

from __future__ import annotations

import math

import numpy as np

from interval.context import to_mpq
from interval.track import exact_track_sample
from reference.status import BoundaryPolicy, GuaranteeClass as G, SpanSide, TrackTime, WorkLimits
from reference.track import (
    DERIVATIVE_ERROR_K,
    VALUE_ERROR_K,
    TrackInterpolation,
    TrackKey,
    try_evaluate_track,
    try_prepare_track,
)

from .. import schema as S
from ..errormodel import Resolved, ratio, resolve
from ..family import Family, RowContract
from ..model import Claim, dec, enc, number_as, verified, violated

__all__ = ["FAMILY", "LIMITS", "generate", "claims", "check_key_values", "check_values"]

LIMITS = WorkLimits(max_spans=1 << 16, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                    max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)

_P = BoundaryPolicy
_POLICIES = (_P.Reject, _P.Clamp, _P.Hold, _P.Loop, _P.PingPong)
_KINDS = (TrackInterpolation.Step, TrackInterpolation.Linear, TrackInterpolation.Hermite)


# --- Corpus ----------------------------------------------------------------------------------


def _key(t, v, mi=0.0, mo=0.0, kind=TrackInterpolation.Linear):
    return TrackKey(float(t), np.float32(v), np.float32(mi), np.float32(mo), kind)


def _case(name, keys, queries):
    return {"name": name, "keys": keys, "queries": list(queries)}


def _all_policies(times, sides=(SpanSide.Outgoing,)):
    return [(float(t), p, s) for t in times for p in _POLICIES for s in sides]


def _spec_example(rng):
    H, L, S = TrackInterpolation.Hermite, TrackInterpolation.Linear, TrackInterpolation.Step
    keys = [_key(0.0, 0.0, kind=L), _key(1.0, 1.0, mo=2.0, kind=H), _key(3.0, 1.0, kind=S), _key(3.5, 0.0)]
    qs = [(4.5, _P.PingPong, SpanSide.Outgoing), (2.5, _P.Reject, SpanSide.Outgoing)]
    qs += _all_policies([-1.0, 4.5, 7.0, 10.5, 1e9 + 0.25, -3.5], (SpanSide.Outgoing, SpanSide.Incoming))
    return _case("spec example", keys, qs)


def _hold_and_steps(rng):
    H, S = TrackInterpolation.Hermite, TrackInterpolation.Step
    keys = [_key(0.0, 2.0, kind=S), _key(0.5, 3.0, kind=H), _key(1.5, 3.0, kind=S), _key(2.0, -1.0, kind=S),
            _key(4.0, 5.0)]
    qs = _all_policies([0.25, 0.5, 1.0, 1.5, 1.75, 2.0, 4.0, 5.0, -0.5], (SpanSide.Outgoing, SpanSide.Incoming))
    return _case("authored hold and Step spans", keys, qs)


def _random_keys(rng, n, start, widths, vscale, mscale):
    times = start + np.concatenate([[0.0], np.cumsum(widths)])
    keys = []
    for i in range(n):
        kind = _KINDS[int(rng.integers(0, 3))]
        v = np.float32(rng.normal() * vscale)
        mi, mo = (np.float32(rng.normal() * mscale) for _ in range(2))
        keys.append(TrackKey(float(times[i]), v, mi, mo, kind))
    # times must stay strictly increasing after rounding the cumulative sum
    return keys if all(b.time > a.time for a, b in zip(keys, keys[1:])) else None


def _random_queries(rng, keys, count):
    t0, t1 = keys[0].time, keys[-1].time
    L = t1 - t0
    qs = []
    for _ in range(count):
        pick = rng.random()
        if pick < 0.5:
            t = t0 + rng.random() * L
        elif pick < 0.8:
            t = t0 + rng.uniform(-3, 4) * L
        elif pick < 0.9:
            t = t0 + float(rng.integers(-5, 6)) * L  # exactly onto the ends after reduction
        else:
            t = t0 + rng.uniform(-1, 1) * L * 10.0 ** rng.integers(3, 9)
        qs.append((float(t), _POLICIES[int(rng.integers(0, 5))],
                   SpanSide.Incoming if rng.random() < 0.3 else SpanSide.Outgoing))
    mid = keys[len(keys) // 2].time  # an interior key, by time, both sides
    qs += [(mid, _P.Clamp, SpanSide.Outgoing), (mid, _P.Clamp, SpanSide.Incoming)]
    return qs


def _random_case(rng, name="random", n=None, start=None, width_exp=(-3.0, 1.0), vexp=(-3, 3),
                 mexp=None):
    for _ in range(20):
        n = int(rng.integers(2, 9)) if n is None else n
        start = float(rng.normal() * 10.0 ** rng.integers(0, 4)) if start is None else start
        widths = 10.0 ** rng.uniform(*width_exp, n - 1)
        vscale = float(10.0 ** rng.uniform(*vexp))
        mscale = vscale / float(np.mean(widths)) * (10.0 ** rng.uniform(-1, 1) if mexp is None else 10.0 ** mexp)
        keys = _random_keys(rng, n, start, widths, vscale, mscale)
        if keys is not None:
            return _case(name, keys, _random_queries(rng, keys, 8))
    raise RuntimeError("could not draw increasing key times")  # pragma: no cover


def _underflow_case(rng):
    """Spans 2^-1060 s wide near t = 0 with zero values and unit slopes: the value is h times
    the slope terms, binary64 subnormals, where only the model's eta term covers the error."""
    H = TrackInterpolation.Hermite
    h = 2.0**-1060
    keys = [_key(0.0, 0.0, mo=rng.normal(), kind=H), _key(h, 0.0, mi=rng.normal(), mo=rng.normal(), kind=H),
            _key(3 * h, 0.0, mi=rng.normal())]
    qs = [(float(t), p, s) for t in (h / 3, h * 0.75, 2 * h, 5 * h, -7 * h) for p in _POLICIES
          for s in (SpanSide.Outgoing,)]
    return _case("spans 2^-1060 s wide (subnormal products)", keys, qs)


def _cancelling_case(rng):
    """Hermite spans whose terms cancel: v1 = -v0 with slopes that pull the curve back through
    zero, so the value is small against its scale S and rounding reaches further into the
    model; non-dyadic times and widths near 1 so the local parameter rounds."""
    H = TrackInterpolation.Hermite
    v = np.float32(rng.uniform(1, 2) * 10.0 ** rng.integers(-3, 4))
    t0 = float(rng.uniform(0.1, 1))
    w = float(rng.uniform(0.9, 1.1))
    keys = [_key(t0, v, mo=-v * 3 / w, kind=H), _key(t0 + w, -v, mi=-v * 3 / w, mo=v * 3 / w, kind=H),
            _key(t0 + 2 * w * 1.0000001, v, mi=v * 3 / w)]
    qs = [(t0 + float(x) * 2 * w, _P.Reject, SpanSide.Outgoing) for x in rng.random(24)]
    return _case("cancelling Hermite terms", keys, qs)


def _mixed_magnitudes_case(rng):
    """Linear and Hermite spans between keys of very different magnitudes (1e20 next to 1e-20):
    a form such as ``v0 + u (v1 - v0)`` loses the small key's value at u = 1, where the key
    value is Exact."""
    L, H = TrackInterpolation.Linear, TrackInterpolation.Hermite
    big, small = float(np.float32(rng.uniform(1, 2) * 1e20)), float(np.float32(rng.uniform(1, 2) * 1e-20))
    keys = [_key(0.0, big, kind=L), _key(0.75, small, kind=L), _key(1.5, -big, kind=H),
            _key(2.0, small, mi=1.0, kind=L), _key(3.0, 0.0)]
    qs = _all_policies([0.375, 0.75, 1.5, 2.0, 3.0, 4.25, -0.5], (SpanSide.Outgoing, SpanSide.Incoming))
    return _case("keys of mixed magnitudes", keys, qs)


def _reduced_onto_a_key_case(rng):
    """A first key 2^-60 s before zero and keys at 1 s and 2 s: Loop reduces t = 3, 5, 7, ... to
    1 - 2^-60, 1 - 2^-59, ..., inside span 0 but rounding to the key at 1 s in float64 (a span
    search on the rounded time lands in span 1, a hair before its start)."""
    L, H = TrackInterpolation.Linear, TrackInterpolation.Hermite
    keys = [_key(-(2.0**-60), rng.normal(), mo=rng.normal(), kind=H), _key(1.0, rng.normal(), kind=L),
            _key(2.0, rng.normal())]
    qs = [(float(t), p, s) for t in (3.0, 5.0, 7.0, -1.0, 1e6 + 1.0) for p in (_P.Loop, _P.PingPong)
          for s in (SpanSide.Outgoing, SpanSide.Incoming)]
    return _case("reduced times a hair before a key", keys, qs)


def generate(seed: int, n: int) -> list:
    """``n`` track cases, named corner cases first. Deterministic in ``seed``."""
    specials = [
        _spec_example,
        _hold_and_steps,
        lambda r: _random_case(r, "large times, millisecond spans", start=1e6 + 0.125, width_exp=(-3.0, -2.5)),
        lambda r: _random_case(r, "overshooting Hermite", mexp=2.0),
        lambda r: _random_case(r, "tiny spans, steep slopes", width_exp=(-9.0, -8.0), mexp=1.0),
        lambda r: _random_case(r, "negative times", start=-1e3),
        lambda r: _random_case(r, "large float32 values", vexp=(30, 32)),
        lambda r: _random_case(r, "tiny float32 values", vexp=(-38, -36)),
        lambda r: _random_case(r, "two keys", n=2),
        _underflow_case,
        _cancelling_case,
        _mixed_magnitudes_case,
        lambda r: _random_case(r, "wide spans, slopes dominating the scale", width_exp=(3.0, 6.0), vexp=(-3, -1),
                               mexp=3.0),
        _reduced_onto_a_key_case,
    ]
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 3])
        cases.append(specials[k](rng) if k < len(specials) else _random_case(rng))
    return cases


# --- Claims from the fast path ---------------------------------------------------------------


def _enc_keys(keys) -> list:
    return [[enc(k.time), enc(float(k.value)), enc(float(k.in_slope)), enc(float(k.out_slope)),
             k.interpolation.value] for k in keys]


def claims(case) -> list:
    """Run the fast path on one case and return its claims (inputs: only what the checkers
    read; no declared model: the checker judges the values against the reference model)."""
    out = try_prepare_track(case["keys"], LIMITS)
    if not out.ok:
        return []
    view = out.value.view()
    keys = _enc_keys(case["keys"])
    result = []
    for i in range(view.key_count):
        stored = [enc(float(view.times[i])), enc(float(view.values[i])), enc(float(view.in_slopes[i])),
                  enc(float(view.out_slopes[i])), view.interpolation(min(i, view.key_count - 1)).value]
        t = TrackTime(float(view.times[i]))
        got = {side.value: enc(try_evaluate_track(view, t, _P.Reject, side).value.value)
               for side in (SpanSide.Outgoing, SpanSide.Incoming)}
        result.append(Claim("track.key_values", G.Exact, {"stored": stored, **got}, {"keys": keys, "key": i}))
    for t, policy, side in case["queries"]:
        s = try_evaluate_track(view, TrackTime(t), policy, side)
        inputs = {"keys": keys, "time": enc(t), "policy": policy.value, "side": side.value}
        if s.ok:
            v = s.value
            value = {"value": enc(v.value), "derivative": enc(v.derivative_per_second),
                     "span": v.span_index, "reflected": v.is_reflected}
        else:
            value = {"status": s.status.value}
        result.append(Claim("track.values", G.Rounded, value, inputs))
    return result


# --- Checkers --------------------------------------------------------------------------------


def _keys_of(claim: Claim) -> list:
    raw = claim.inputs["keys"]
    if not isinstance(raw, list):
        raise ValueError("keys must be a list")
    out = []
    for k in raw:
        if not isinstance(k, list) or len(k) != 5 or not isinstance(k[4], str):
            raise ValueError("each key is [time, value, in_slope, out_slope, interpolation]")
        out.append((dec(k[0]), number_as(k[1], "f32"), number_as(k[2], "f32"), number_as(k[3], "f32"), k[4]))
    return out


def _finite(*xs) -> bool:
    return all(math.isfinite(x) for x in xs)


def check_key_values(claim: Claim):
    """Exact: stored key == source key; evaluation at the key time on both sides == the exact
    value the side rules select (compared as rationals)."""
    keys = _keys_of(claim)
    i = claim.inputs["key"]
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(keys):
        raise ValueError("key index out of range")
    stored = claim.value["stored"]
    if not isinstance(stored, list) or len(stored) != 5:
        raise ValueError("stored is [time, value, in_slope, out_slope, interpolation]")
    src = claim.inputs["keys"][i]
    got_stored = [dec(x) for x in stored[:4]]
    same = _finite(*got_stored) and all(to_mpq(a) == to_mpq(dec(b)) for a, b in zip(got_stored, src[:4]))
    # the last key's interpolation names no span; earlier keys must keep theirs
    if not same or (i < len(keys) - 1 and stored[4] != src[4]):
        return violated(claim, {"expected_stored": src, "claimed_stored": stored})
    mismatches = {}
    for side in ("Outgoing", "Incoming"):
        truth = exact_track_sample(keys, keys[i][0], "Reject", side)
        got = dec(claim.value[side])
        if not math.isfinite(got) or to_mpq(got) != truth.value:
            mismatches[side] = {"expected": enc(truth.value), "claimed": claim.value[side]}
    if mismatches:
        return violated(claim, mismatches)
    return verified(claim, measure="mismatches", measured=0)


def _reference(truth):
    """The row's model at (u, eta), exactly: [VALUE_ERROR_K (u S + eta), DERIVATIVE_ERROR_K
    (u S / h + eta)] (``reference.track.value_error_bound`` / ``derivative_error_bound`` with the
    exact scale S and width h of the truth's span)."""
    def ref(u, eta):
        uq, eq = to_mpq(u), to_mpq(eta)
        return [to_mpq(VALUE_ERROR_K) * (uq * truth.scale + eq),
                to_mpq(DERIVATIVE_ERROR_K) * (uq * truth.scale / truth.width + eq)]
    return ref


def _resolve(claim: Claim, truth) -> Resolved:
    return resolve(claim, _reference(truth), constant=VALUE_ERROR_K)


def _query(claim: Claim):
    keys = _keys_of(claim)
    t = dec(claim.inputs["time"])
    policy, side = claim.inputs["policy"], claim.inputs["side"]
    if policy == BoundaryPolicy.Wrap.value:
        raise ValueError("Wrap is not a track policy")
    return keys, t, policy, side


def check_values(claim: Claim):
    """Rounded: span and reflection exact; value and derivative within their error models (the
    claim's declared model, else the reference at binary64)."""
    keys, t, policy, side = _query(claim)
    truth = exact_track_sample(keys, t, policy, side)
    if truth is None:
        # Only the models' shape is needed to validate a declared model: a zero-scale stand-in.
        if claim.model:
            resolve(claim, lambda u, eta: [0, 0], constant=VALUE_ERROR_K)
        if claim.value.get("status") == "InvalidDomain":
            return verified(claim, measure="error_ratio", measured=0, note="no value: InvalidDomain")
        return violated(claim, {"expected": "InvalidDomain (Reject outside the domain)", "claimed": claim.value})
    r = _resolve(claim, truth)
    if "status" in claim.value:
        return violated(claim, {"expected": {"value": enc(truth.value), "derivative": enc(truth.derivative)},
                                "claimed": claim.value}, **r.extra())
    span, reflected = claim.value["span"], claim.value["reflected"]
    if not isinstance(span, int) or isinstance(span, bool) or not isinstance(reflected, bool):
        raise ValueError("span is an integer and reflected a boolean")
    if span != truth.span_index or reflected != truth.reflected:
        return violated(claim, {"expected_span": truth.span_index, "expected_reflected": truth.reflected,
                                "claimed": claim.value}, **r.extra())
    value, deriv = dec(claim.value["value"]), dec(claim.value["derivative"])
    bv, bd = r.bound
    if not _finite(value, deriv):
        return violated(claim, {"expected_value": enc(truth.value), "expected_derivative": enc(truth.derivative),
                                "claimed": claim.value, "why": "a nonfinite value where the truth is finite"},
                        measure="error_ratio", bound_use=math.inf, **r.extra())
    ev = abs(to_mpq(value) - truth.value)
    ed = abs(to_mpq(deriv) - truth.derivative)
    # A Step span's bound is 16 eta (about 2^-1070): an ordinary error over it is inf, not a crash.
    rv, rd = ratio(ev, bv), ratio(ed, bd)
    worst = max(rv, rd)
    detail = {"value_ratio": rv, "derivative_ratio": rd}
    if ev <= bv and ed <= bd:
        return verified(claim, measure="error_ratio", measured=worst, bound_use=worst, **r.extra())
    return violated(claim, {"expected_value": enc(truth.value), "expected_derivative": enc(truth.derivative),
                            "value_bound": enc(bv), "derivative_bound": enc(bd), **detail},
                    measure="error_ratio", measured=worst, bound_use=worst, **r.extra())


# --- Contracts: the case-file fields of both rows, and a planted false claim -----------------

_INTERPOLATIONS = [k.value for k in _KINDS]


def _key_schema(number, time):
    """[time, value, in_slope, out_slope, interpolation] (a fixed-length tuple)."""
    return {"type": "array", "prefixItems": [time, number, number, number, S.enum(_INTERPOLATIONS)],
            "items": False, "minItems": 5, "maxItems": 5}


_KEYS = S.array(_key_schema(S.f32(), S.f64()), min_items=2)
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
    keys, t, policy, side = _query(c)
    truth = exact_track_sample(keys, t, policy, side)
    if truth is None:  # a value where Reject has none
        value = {"value": enc(0.0), "derivative": enc(0.0), "span": 0, "reflected": False}
    elif "status" in c.value:
        value = {"value": enc(float(truth.value)), "derivative": enc(float(truth.derivative)),
                 "span": truth.span_index + 1, "reflected": truth.reflected}
    else:
        bv = _resolve(c, truth).bound[0]
        value = {**c.value, "value": enc(_up_float(to_mpq(dec(c.value["value"])) + 3 * bv))}
    return Claim(c.row, c.guarantee, value, c.inputs, c.model)


CONTRACTS = {
    "track.key_values": RowContract(
        checks="stored equals the source key exactly (time, value, slopes; the interpolation too except "
               "on the last key), and evaluation at the key's time under Reject equals, on both sides "
               "(Outgoing, Incoming), the exact key value the side rules select, as exact rationals.",
        inputs=S.obj(required={"keys": _KEYS, "key": S.integer(minimum=0)}),
        value=S.obj(required={"stored": _key_schema(S.f32(finite=False), _F64V), "Outgoing": _F64V,
                              "Incoming": _F64V}),
        plant=_plant_key_value),
    "track.values": RowContract(
        checks="span and reflected equal the exact ones (exact rational time reduction); |value - exact| "
               "<= 16 (u S + eta) and |derivative - exact| <= 32 (u S / h + eta) (reference.track), S "
               "the span's scale (|v0| + |v1| + h (|m0| + |m1|) Hermite, |v0| + |v1| Linear, 0 Step) and "
               "h its exact width, u and eta of the declared model (k scales both constants by k/16), "
               "else binary64 (u = 2^-53, eta = 2^-1074); a query without a value (Reject outside the "
               "domain) claims InvalidDomain; model components: [value, derivative].",
        inputs=S.obj(required={"keys": _KEYS, "time": S.f64(),
                               "policy": S.enum([p.value for p in _POLICIES]),
                               "side": S.enum([SpanSide.Outgoing.value, SpanSide.Incoming.value])}),
        value=S.any_of(S.obj(required={"value": _F64V, "derivative": _F64V, "span": S.integer(minimum=0),
                                       "reflected": S.boolean()}),
                       S.obj(required={"status": S.enum(["InvalidArgument", "InvalidDomain"])})),
        model=S.MODEL, plant=_plant_value),
}


FAMILY = Family(
    name="track",
    default_cases=500,
    generate=generate,
    claims=claims,
    checkers={"track.key_values": check_key_values, "track.values": check_values},
    contracts=CONTRACTS,
    oracle_precisions=(),
)
