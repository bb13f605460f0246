"""Track checkers: honest claims Verified; planted false claims (one ulp off an exact key
value, a value or derivative beyond its model, the reflection's sign lost, the wrong span, a
value where Reject has none) Violated; malformed inputs raise."""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracles.families.track as T
import oracles.families.track.checks as TC
from interval.context import to_mpq
from interval.track import exact_track_sample
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, enc
from reference.status import GuaranteeClass as G
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
        truth = exact_track_sample(TC.keys_of(c), dec(c.inputs["time"]), c.inputs["policy"], c.inputs["side"])
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


# --- Contracts: schemas of the case-file fields, planted false claims --------------------------

from oracles.schema import _claim_schema  # noqa: E402
from oracles.schema_validate import Validator  # noqa: E402


def _schema_errors(claim):
    contract = T.FAMILY.contracts[claim.row]
    return [e.message for e in Validator(_claim_schema(claim.row, contract)).iter_errors(claim.to_json())]


def test_both_rows_have_contracts_and_values_a_model():
    assert set(T.FAMILY.contracts) == set(T.FAMILY.checkers) == {"track.key_values", "track.values"}
    assert T.FAMILY.contracts["track.key_values"].model is None
    assert T.FAMILY.contracts["track.values"].model is not None


def test_every_corpus_claim_fits_its_schema_and_carries_no_model(honest):
    for row, cs in honest.items():
        for c in cs:
            assert _schema_errors(c) == [], (row, _schema_errors(c)[:3])
            assert c.model is None


def test_every_planted_claim_is_violated_and_well_formed(honest):
    for row, cs in honest.items():
        plant = T.FAMILY.contracts[row].plant
        kinds = set()
        for c in cs[::3]:
            bad = plant(c)
            assert _schema_errors(bad) == [], row
            v = check_claim(bad)
            assert v.kind is X, (row, v.kind, c.value)
            kinds.add("status" in c.value)
        if row == "track.values":
            assert kinds == {True, False}  # planted from valued and from InvalidDomain claims


@pytest.mark.parametrize("row, mutate", [
    ("track.key_values", lambda i: {**i, "case": "spec example"}),  # a field no checker reads
    ("track.values", lambda i: {**i, "tme": i["time"]}),  # a typo
    ("track.values", lambda i: {**i, "policy": "Wrap"}),  # not a track policy
    ("track.values", lambda i: {**i, "side": "outgoing"}),  # enum spellings are exact
    ("track.values", lambda i: {**i, "time": "0.1"}),  # not a float64
    ("track.values", lambda i: {**i, "keys": [[k[0], "0.1", k[2], k[3], k[4]] for k in i["keys"]]}),  # not f32
    ("track.values", lambda i: {**i, "keys": [k[:4] for k in i["keys"]]}),
    ("track.values", lambda i: {**i, "keys": [k[:4] + ["Cubic"] for k in i["keys"]]}),
    ("track.values", lambda i: {**i, "keys": i["keys"][:1]}),
    ("track.key_values", lambda i: {**i, "key": -1}),
])
def test_schema_rejects_unread_misspelled_inexact_and_missing_fields(honest, row, mutate):
    c = honest[row][0]
    assert _schema_errors(replace(c, inputs=mutate(c.inputs)))


def test_overflowing_values_are_well_formed_and_violated(honest):
    c = _valued(honest)[0]
    bad = replace(c, {**c.value, "derivative": "inf"})
    assert _schema_errors(bad) == [] and check_claim(bad).kind is X
    k = honest["track.key_values"][0]
    bad = replace(k, {**k.value, "Outgoing": "nan"})
    assert _schema_errors(bad) == [] and check_claim(bad).kind is X


def test_declared_models_judge_and_report_their_ratio(honest):
    cs = _valued(honest)[::3]
    inexact = []
    for c in cs:
        # The project's own model, declared explicitly, is the reference: ratio 1.
        v = check_claim(replace(c, model={"u": "0x1p-53"}))
        assert v.kind is V and v.extra["declared_model"]["declared_over_reference"] == 1.0
        # No declared model: no ratio to report.
        assert "declared_model" not in check_claim(c).extra
        truth = exact_track_sample(TC.keys_of(c), dec(c.inputs["time"]), c.inputs["policy"], c.inputs["side"])
        if to_mpq(dec(c.value["value"])) != truth.value:
            inexact.append(c)
    assert len(inexact) >= 10
    for c in inexact:
        assert check_claim(replace(c, model={"bound": "0"})).kind is X
        # [value, derivative]: an explicit bound per component; three components are malformed.
        with pytest.raises(ValueError):
            check_claim(replace(c, model={"bound": ["1", "1", "1"]}))


# --- Ratios that overflow, and how close each verdict comes to its bound -----------------------


def _step_claim(value, derivative="0x0p+0"):
    keys = [[enc(0.0), enc(1.0), enc(0.0), enc(0.0), "Step"], [enc(1.0), enc(5.0), enc(0.0), enc(0.0), "Linear"]]
    inputs = {"keys": keys, "time": enc(0.5), "policy": "Reject", "side": "Outgoing"}
    return Claim("track.values", G.Rounded, {"value": value, "derivative": derivative, "span": 0,
                                             "reflected": False}, inputs)


def test_a_step_span_with_an_ordinary_error_is_violated_with_ratio_inf_not_a_crash():
    # A Step span's bound is 16 * 2^-1074 (scale 0): an error of 1 over it is 2^1070, beyond
    # float64; the verdict reports inf instead of raising OverflowError.
    v = check_claim(_step_claim(enc(2.0)))
    assert v.kind is X and v.measured == math.inf and v.bound_use == math.inf
    assert v.witness["value_ratio"] == math.inf and v.witness["derivative_ratio"] == 0.0
    d = check_claim(_step_claim(enc(1.0), derivative=enc(1e300)))
    assert d.kind is X and d.witness["derivative_ratio"] == math.inf
    # The held value itself is exact: ratio 0.
    ok = check_claim(_step_claim(enc(1.0)))
    assert ok.kind is V and ok.measured == 0.0 and ok.bound_use == 0.0


def test_every_value_verdict_reports_its_bound_use(honest):
    for c in _valued(honest):
        v = check_claim(c)
        assert v.bound_use is not None and 0.0 <= v.bound_use <= 1.0 and v.bound_use == v.measured


def test_the_value_bound_is_16_u_s_with_the_scale_of_the_spec():
    # A Hermite span of width h = 4, v0 = 1, v1 = 2, m0 = 3, m1 = -5: S = |v0| + |v1| + h (|m0| +
    # |m1|) = 35 and the bound 16 (2^-53 S + 2^-1074) is 70 ulps of 5.5 (2^-50) plus a
    # subnormal. At t = 2 (u = 1/2) the textbook basis gives p = 1/2 + 3/2 + 1 + 5/2 = 5.5 and
    # dp/dt = (3/2 - 3 + 5) / 4 = 0.875, exactly.
    keys = [[enc(0.0), enc(1.0), enc(0.0), enc(3.0), "Hermite"], [enc(4.0), enc(2.0), enc(-5.0), enc(0.0), "Linear"]]
    inputs = {"keys": keys, "time": enc(2.0), "policy": "Reject", "side": "Outgoing"}

    def claim(ulps):
        return Claim("track.values", G.Rounded, {"value": enc(5.5 + ulps * 2.0**-50), "derivative": enc(0.875),
                                                 "span": 0, "reflected": False}, inputs)

    assert check_claim(claim(0)).kind is V and check_claim(claim(0)).measured == 0.0
    near = check_claim(claim(60))
    assert near.kind is V and abs(near.measured - 60 / 70) < 1e-12  # a scale without h would refute it
    assert check_claim(claim(71)).kind is X


def test_the_pingpong_turning_points_are_forward():
    # docs/decisions.md "Tracks: Step spans, span sides and policies": tau = 0 and tau = L are
    # forward. Keys 0 -> 4 over 2 s (L = 2); t = 2 + 4k lands on the far end (tau = L), t = 4k on
    # the start (tau = 0): reflected is false at both, derivative +2, values 4 and 0.
    keys = [[enc(0.0), enc(0.0), enc(0.0), enc(0.0), "Linear"], [enc(2.0), enc(4.0), enc(0.0), enc(0.0), "Linear"]]
    for t, value in ((6.0, 4.0), (-2.0, 4.0), (8.0, 0.0)):
        inputs = {"keys": keys, "time": enc(t), "policy": "PingPong", "side": "Outgoing"}
        forward = {"value": enc(value), "derivative": enc(2.0), "span": 0, "reflected": False}
        assert check_claim(Claim("track.values", G.Rounded, forward, inputs)).kind is V, t
        back = {**forward, "derivative": enc(-2.0), "reflected": True}
        # The spec does not say which side of a turning point a query lands on: only our decision
        # (forward) refutes the reflected answer; its derivative is judged on the side it names.
        from tests.oracles.decisions_helper import only_the_decision_refutes, the_spec_refutes

        only_the_decision_refutes(Claim("track.values", G.Rounded, back, inputs), "track:turning_points")
        the_spec_refutes(Claim("track.values", G.Rounded, {**back, "derivative": enc(2.0)}, inputs))
