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
  ``DERIVATIVE_ERROR_K u S / h``, recomputed exactly from the inputs; ``u`` is the claim's unit
  roundoff, 2^-53 or 2^-24). A query the truth gives no value (Reject outside the domain) must
  claim ``InvalidDomain``. Measured: the worst ``error / bound``.
"""

from __future__ import annotations

import numpy as np

from interval.context import to_mpq
from interval.track import exact_track_sample
from reference.fp import U64
from reference.status import BoundaryPolicy, GuaranteeClass as G, SpanSide, TrackTime, WorkLimits
from reference.track import (
    DERIVATIVE_ERROR_K,
    VALUE_ERROR_K,
    TrackInterpolation,
    TrackKey,
    try_evaluate_track,
    try_prepare_track,
)

from ..family import Family
from ..model import Claim, dec, enc, verified, violated

__all__ = ["FAMILY", "LIMITS", "generate", "claims", "check_key_values", "check_values"]

LIMITS = WorkLimits(max_spans=1 << 16, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                    max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)

_P = BoundaryPolicy
_POLICIES = (_P.Reject, _P.Clamp, _P.Hold, _P.Loop, _P.PingPong)
_KINDS = (TrackInterpolation.Step, TrackInterpolation.Linear, TrackInterpolation.Hermite)
# Unit roundoff -> smallest subnormal of the binary formats a claim may be evaluated in.
_ETA = {2.0**-53: 2.0**-1074, 2.0**-24: 2.0**-149}


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
    """Run the fast path on one case and return its claims."""
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
        result.append(Claim("track.key_values", G.Exact, {"stored": stored, **got},
                            {"keys": keys, "key": i, "case": case["name"]}))
    model = {"name": "track value/derivative (reference.track)", "u": enc(U64)}
    for t, policy, side in case["queries"]:
        s = try_evaluate_track(view, TrackTime(t), policy, side)
        inputs = {"keys": keys, "time": enc(t), "policy": policy.value, "side": side.value,
                  "case": case["name"]}
        if s.ok:
            v = s.value
            value = {"value": enc(v.value), "derivative": enc(v.derivative_per_second),
                     "span": v.span_index, "reflected": v.is_reflected}
        else:
            value = {"status": s.status.value}
        result.append(Claim("track.values", G.Rounded, value, inputs, model=model))
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
        out.append((dec(k[0]), dec(k[1]), dec(k[2]), dec(k[3]), k[4]))
    return out


def check_key_values(claim: Claim):
    """Exact: stored key == source key; evaluation at the key time on both sides == the exact
    value the side rules select (compared as rationals)."""
    keys = _keys_of(claim)
    i = claim.inputs["key"]
    if not isinstance(i, int) or not 0 <= i < len(keys):
        raise ValueError("key index out of range")
    stored = claim.value["stored"]
    src = claim.inputs["keys"][i]
    same = [to_mpq(dec(a)) == to_mpq(dec(b)) for a, b in zip(stored[:4], src[:4])]
    # the last key's interpolation names no span; earlier keys must keep theirs
    if not all(same) or (i < len(keys) - 1 and stored[4] != src[4]):
        return violated(claim, {"expected_stored": src, "claimed_stored": stored})
    mismatches = {}
    for side in ("Outgoing", "Incoming"):
        truth = exact_track_sample(keys, keys[i][0], "Reject", side)
        got = to_mpq(dec(claim.value[side]))
        if got != truth.value:
            mismatches[side] = {"expected": enc(truth.value), "claimed": claim.value[side]}
    if mismatches:
        return violated(claim, mismatches)
    return verified(claim, measure="mismatches", measured=0)


def _ratio(err, bound):
    if err == 0:
        return 0.0
    if bound == 0:
        return float("inf")
    return float(err / bound)


def check_values(claim: Claim):
    """Rounded: span and reflection exact; value and derivative within their error models."""
    keys = _keys_of(claim)
    t = dec(claim.inputs["time"])
    policy, side = claim.inputs["policy"], claim.inputs["side"]
    if policy == BoundaryPolicy.Wrap.value:
        raise ValueError("Wrap is not a track policy")
    u = dec((claim.model or {}).get("u", enc(U64)))
    if u not in _ETA:
        raise ValueError(f"unit roundoff {u!r} is neither binary64's nor binary32's")
    truth = exact_track_sample(keys, t, policy, side)
    if truth is None:
        if claim.value.get("status") == "InvalidDomain":
            return verified(claim, measure="error_ratio", measured=0, note="no value: InvalidDomain")
        return violated(claim, {"expected": "InvalidDomain (Reject outside the domain)", "claimed": claim.value})
    if "status" in claim.value:
        return violated(claim, {"expected": {"value": enc(truth.value), "derivative": enc(truth.derivative)},
                                "claimed": claim.value})
    if claim.value["span"] != truth.span_index or bool(claim.value["reflected"]) != truth.reflected:
        return violated(claim, {"expected_span": truth.span_index, "expected_reflected": truth.reflected,
                                "claimed": claim.value})
    uq, eta = to_mpq(u), to_mpq(_ETA[u])
    bv = to_mpq(VALUE_ERROR_K) * (uq * truth.scale + eta)
    bd = to_mpq(DERIVATIVE_ERROR_K) * (uq * truth.scale / truth.width + eta)
    ev = abs(to_mpq(dec(claim.value["value"])) - truth.value)
    ed = abs(to_mpq(dec(claim.value["derivative"])) - truth.derivative)
    ratio = max(_ratio(ev, bv), _ratio(ed, bd))
    detail = {"value_ratio": _ratio(ev, bv), "derivative_ratio": _ratio(ed, bd)}
    if ev <= bv and ed <= bd:
        return verified(claim, measure="error_ratio", measured=ratio)
    return violated(claim, {"expected_value": enc(truth.value), "expected_derivative": enc(truth.derivative),
                            "value_bound": enc(bv), "derivative_bound": enc(bd), **detail},
                    measure="error_ratio", measured=ratio)


FAMILY = Family(
    name="track",
    default_cases=500,
    generate=generate,
    claims=claims,
    checkers={"track.key_values": check_key_values, "track.values": check_values},
    oracle_precisions=(),
)
