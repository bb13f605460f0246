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

import math

from interval.context import to_mpq
from interval.track import exact_track_sample
from reference.status import BoundaryPolicy
from reference.track import DERIVATIVE_ERROR_K, VALUE_ERROR_K

from ...errormodel import Resolved, ratio, resolve
from ...model import Claim, dec, enc, number_as, verified, violated

__all__ = ["check_key_values", "check_values", "keys_of", "query_of", "resolve_model"]


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


def resolve_model(claim: Claim, truth) -> Resolved:
    return resolve(claim, _reference(truth), constant=VALUE_ERROR_K)


def query_of(claim: Claim):
    keys = keys_of(claim)
    t = dec(claim.inputs["time"])
    policy, side = claim.inputs["policy"], claim.inputs["side"]
    if policy == BoundaryPolicy.Wrap.value:
        raise ValueError("Wrap is not a track policy")
    return keys, t, policy, side


def check_values(claim: Claim):
    """Rounded: span and reflection exact; value and derivative within their error models (the
    claim's declared model, else the reference at binary64)."""
    keys, t, policy, side = query_of(claim)
    truth = exact_track_sample(keys, t, policy, side)
    if truth is None:
        # Only the models' shape is needed to validate a declared model: a zero-scale stand-in.
        if claim.model:
            resolve(claim, lambda u, eta: [0, 0], constant=VALUE_ERROR_K)
        if claim.value.get("status") == "InvalidDomain":
            return verified(claim, measure="error_ratio", measured=0, note="no value: InvalidDomain")
        return violated(claim, {"expected": "InvalidDomain (Reject outside the domain)", "claimed": claim.value})
    r = resolve_model(claim, truth)
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
