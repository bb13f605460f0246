"""Track checkers: key values (Exact) and track values and derivatives (Rounded).

Both recompute every truth from ``claim.inputs`` alone with ``interval.track`` (exact rational
time reduction and evaluation):

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
"""

from __future__ import annotations

import dataclasses
import math

from interval.context import to_mpq
from interval.track import exact_track_sample
from reference.status import BoundaryPolicy
from reference.track import DERIVATIVE_ERROR_K, VALUE_ERROR_K

from ...errormodel import Resolved, ratio, resolve
from ...model import Claim, dec, enc, number_as, verified, violated
from ...rules import binding, decision, declare, default, judged, spec

__all__ = ["RULES", "check_key_values", "check_values", "keys_of", "query_of", "resolve_model"]

_S = "spec 002 "
_D = "docs/decisions.md "
KEYS = spec("track:keys", _S + "Guarantees: 'Stored endpoints, key values ... Exact'; Span sides ('An exact boundary "
            "selects the outgoing span at u = 0 ... A Step span holds its left value until u = 1'): the stored key is "
            "the source key, and evaluation at its time on either side is the exact value the side rules select")
QUERY = spec("track:query", _S + "Boundary policies ('Tracks accept Reject, Clamp, Hold, Loop and PingPong'), Tracks "
             "('Hold returns the endpoint value with zero derivative. Clamp returns the endpoint value with the "
             "one-sided derivative from inside the domain'; PingPong 'Reflected ... negated on the reflected half') "
             "and Span sides: the claimed span and reflection are the exact query's, a value where there is one")
REJECT_STATUS = decision("track:reject_status", _D + "'Tracks: Step spans, span sides and policies': Reject outside "
                         "the domain answers InvalidDomain (the spec names no status; without the decision any "
                         "failure status is accepted)")
TURNING_POINTS = decision("track:turning_points", _D + "'Tracks: Step spans, span sides and policies': a PingPong "
                          "turning point (tau = 0 or L) is forward, and a Loop query exactly on a seam maps to the "
                          "first key (t_first + ((t - t_first) mod L)); the spec does not say which side of a turning "
                          "point or seam a query lands on, so without the decision the other one is accepted too "
                          "(reflected, derivative negated; the last key's sample)")
INPUT_STATUS = decision("track:input_status", _D + "'Tracks: keys, defaults and preparation': fewer than two keys or "
                        "a nonfinite key is InvalidArgument, decreasing key times InvalidDomain, a span scale beyond "
                        "2^1000 OutOfRange, and a nonfinite evaluation time InvalidArgument (the spec names only equal "
                        "times' InvalidDomain; it demands a failure for times that do not increase and a time that "
                        "names none, and sets no key count or scale limit: without the decision any failure status is "
                        "accepted there, and success where only the decision fails the input)")
ERROR_MODEL = default("track:error_model", _D + "'Track error model' (or the claim's declared model): |value - exact| "
                      "<= 16 (u S + eta), |derivative - exact| <= 32 (u S / h + eta); spec 002 Guarantees: 'Track "
                      "values and derivatives' are Rounded, with no bound")

RULES = declare({"track.key_values": (KEYS,),
                 "track.values": (QUERY, REJECT_STATUS, TURNING_POINTS, ERROR_MODEL),
                 "track.statuses": (REJECT_STATUS, INPUT_STATUS)})


def keys_of(claim: Claim) -> list:
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
    keys = keys_of(claim)
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
        return violated(claim, {"expected_stored": src, "claimed_stored": stored}, rule=KEYS.id)
    mismatches = {}
    for side in ("Outgoing", "Incoming"):
        truth = exact_track_sample(keys, keys[i][0], "Reject", side)
        got = dec(claim.value[side])
        if not math.isfinite(got) or to_mpq(got) != truth.value:
            mismatches[side] = {"expected": enc(truth.value), "claimed": claim.value[side]}
    if mismatches:
        return violated(claim, mismatches, rule=KEYS.id)
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


def resolve_model(claim: Claim, truth) -> Resolved:
    return resolve(claim, _reference(truth), constant=VALUE_ERROR_K)


def query_of(claim: Claim):
    keys = keys_of(claim)
    t = dec(claim.inputs["time"])
    policy, side = claim.inputs["policy"], claim.inputs["side"]
    if policy == BoundaryPolicy.Wrap.value:
        raise ValueError("Wrap is not a track policy")
    return keys, t, policy, side


def _other_side(keys, t: float, policy: str, side: str, truth):
    """The sample on the other side of a PingPong turning point or a Loop seam the query lands
    on exactly (outside the domain), which only our decision rules out; None elsewhere. Exact."""
    if policy not in ("Loop", "PingPong"):
        return None
    first, last, tq = to_mpq(keys[0][0]), to_mpq(keys[-1][0]), to_mpq(t)
    if first <= tq <= last:
        return None
    L = last - first
    period = L if policy == "Loop" else 2 * L
    d = tq - first
    tau = d - period * (d.numerator * period.denominator // (d.denominator * period.numerator))
    if policy == "Loop":
        return exact_track_sample(keys, keys[-1][0], "Reject", side) if tau == 0 else None
    if tau in (0, L):
        return dataclasses.replace(truth, reflected=not truth.reflected, derivative=-truth.derivative)
    return None


@judged
def check_values(claim: Claim):
    """Rounded: span and reflection exact; value and derivative within their error models (the
    claim's declared model, else the reference at binary64)."""
    keys, t, policy, side = query_of(claim)
    truth = exact_track_sample(keys, t, policy, side)
    if truth is None:
        # Only the models' shape is needed to validate a declared model: a zero-scale stand-in.
        if claim.model:
            resolve(claim, lambda u, eta: [0, 0], constant=VALUE_ERROR_K)
        status = claim.value.get("status")
        if status == "InvalidDomain":
            return verified(claim, measure="error_ratio", measured=0, note="no value: InvalidDomain")
        failed = isinstance(status, str) and status != "Success"
        if failed and not binding(REJECT_STATUS):
            return verified(claim, measure="error_ratio", measured=0, note=f"no value: {status}")
        return violated(claim, {"expected": "InvalidDomain (Reject outside the domain)", "claimed": claim.value},
                        rule=REJECT_STATUS.id if failed else QUERY.id)
    r = resolve_model(claim, truth)
    if "status" in claim.value:
        return violated(claim, {"expected": {"value": enc(truth.value), "derivative": enc(truth.derivative)},
                                "claimed": claim.value}, rule=QUERY.id, **r.extra())
    span, reflected = claim.value["span"], claim.value["reflected"]
    if not isinstance(span, int) or isinstance(span, bool) or not isinstance(reflected, bool):
        raise ValueError("span is an integer and reflected a boolean")
    if span != truth.span_index or reflected != truth.reflected:
        other = _other_side(keys, t, policy, side, truth)
        if other is not None and (span, reflected) == (other.span_index, other.reflected):
            if binding(TURNING_POINTS):
                return violated(claim, {"expected_span": truth.span_index, "expected_reflected": truth.reflected,
                                        "claimed": claim.value}, rule=TURNING_POINTS.id, **r.extra())
            truth = other  # judged on the side it names
            r = resolve_model(claim, truth)
        else:
            return violated(claim, {"expected_span": truth.span_index, "expected_reflected": truth.reflected,
                                    "claimed": claim.value}, rule=QUERY.id, **r.extra())
    value, deriv = dec(claim.value["value"]), dec(claim.value["derivative"])
    bv, bd = r.bound
    if not _finite(value, deriv):
        return violated(claim, {"expected_value": enc(truth.value), "expected_derivative": enc(truth.derivative),
                                "claimed": claim.value, "why": "a nonfinite value where the truth is finite"},
                        measure="error_ratio", bound_use=math.inf, rule=ERROR_MODEL.id, **r.extra())
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
                    measure="error_ratio", measured=worst, bound_use=worst, rule=ERROR_MODEL.id, **r.extra())
