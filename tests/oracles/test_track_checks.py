"""Track checkers: honest claims Verified; planted false claims (one ulp off an exact key
value, a value or derivative beyond its model, the reflection's sign lost, the wrong span, a
value where Reject has none) Violated; malformed inputs raise."""

from __future__ import annotations

import numpy as np
import pytest

import oracles.checks.track as T
from interval.context import to_mpq
from interval.track import exact_track_sample
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, enc
from reference.track import VALUE_ERROR_K

V, X = VerdictKind.Verified, VerdictKind.Violated


@pytest.fixture(scope="module")
def honest():
    by_row = {}
    for case in T.generate(11, 30):
        for c in T.claims(case):
            by_row.setdefault(c.row, []).append(c)
    return by_row


def replace(claim, value=None, inputs=None, model=None):
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model if model is None else model)


def test_honest_claims_are_verified(honest):
    for row, cs in honest.items():
        for c in cs:
            v = check_claim(c)
            assert v.kind is V, (row, v.note, v.witness, c.inputs)


def test_spec_example_claim_is_in_the_corpus():
    spec = T.generate(11, 1)[0]
    assert spec["name"] == "spec example"
    hits = [c for c in T.claims(spec) if c.row == "track.values" and dec(c.inputs["time"]) == 4.5
            and c.inputs["policy"] == "PingPong"]
    assert hits and dec(hits[0].value["value"]) == 1.1875 and dec(hits[0].value["derivative"]) == 0.625


def test_key_value_one_ulp_off_is_violated(honest):
    for c in honest["track.key_values"][:40]:
        for side in ("Outgoing", "Incoming"):
            x = dec(c.value[side])
            bad = dict(c.value)
            bad[side] = enc(float(np.nextafter(x, np.inf)))
            assert check_claim(replace(c, bad)).kind is X
        stored = list(c.value["stored"])
        stored[1] = enc(float(np.nextafter(np.float32(dec(stored[1])), np.float32(np.inf))))
        assert check_claim(replace(c, {**c.value, "stored": stored})).kind is X


def _valued(honest):
    return [c for c in honest["track.values"] if "value" in c.value]


def test_value_beyond_model_is_violated(honest):
    n = 0
    for c in _valued(honest)[:80]:
        truth = exact_track_sample(T._keys_of(c), dec(c.inputs["time"]), c.inputs["policy"], c.inputs["side"])
        bound = float(to_mpq(VALUE_ERROR_K) * to_mpq(2.0**-53) * truth.scale)
        off = float(truth.value) + 3.0 * bound + abs(float(truth.value)) * 2.0**-50 + 1e-300
        assert check_claim(replace(c, {**c.value, "value": enc(off)})).kind is X
        n += 1
    assert n >= 40


def test_lost_reflection_sign_and_wrong_span_are_violated(honest):
    flipped = 0
    for c in _valued(honest):
        d = dec(c.value["derivative"])
        if c.value["reflected"] and d != 0:
            assert check_claim(replace(c, {**c.value, "derivative": enc(-d)})).kind is X
            assert check_claim(replace(c, {**c.value, "reflected": False})).kind is X
            flipped += 1
        assert check_claim(replace(c, {**c.value, "span": c.value["span"] + 1})).kind is X
    assert flipped >= 5


def test_value_where_reject_has_none_and_status_where_value_exists(honest):
    rejected = [c for c in honest["track.values"] if c.value.get("status") == "InvalidDomain"]
    assert rejected
    for c in rejected[:10]:
        fake = {"value": enc(0.0), "derivative": enc(0.0), "span": 0, "reflected": False}
        assert check_claim(replace(c, fake)).kind is X
    for c in _valued(honest)[:10]:
        assert check_claim(replace(c, {"status": "InvalidDomain"})).kind is X


def test_float32_unit_roundoff_model_is_accepted_and_others_are_malformed(honest):
    c = _valued(honest)[0]
    assert check_claim(replace(c, model={"u": enc(2.0**-24)})).kind is V
    with pytest.raises(ValueError):
        check_claim(replace(c, model={"u": enc(2.0**-10)}))


@pytest.mark.parametrize("mutate", [
    lambda i: {**i, "keys": "nope"},
    lambda i: {**i, "keys": i["keys"][:1]},
    lambda i: {**i, "keys": [i["keys"][0], i["keys"][0]]},
    lambda i: {**i, "policy": "Wrap"},
    lambda i: {**i, "side": "Up"},
    lambda i: {**i, "time": "nan"},
])
def test_malformed_inputs_raise(honest, mutate):
    c = _valued(honest)[0]
    with pytest.raises((ValueError, KeyError, TypeError)):
        check_claim(replace(c, inputs=mutate(c.inputs)))
