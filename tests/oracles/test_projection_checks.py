"""The projection family's checkers: planted false claims come out Violated, an undecidable one
Undecided (never Verified), malformed claims raise, the approximate row never fails, and the
CLI judges the fast path's claims from a case file alone."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import gmpy2
import pytest

import oracles.checks.projection as PJ
from interval.projection import enclose_min_distance
from oracles.casefile import write_claims
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, dec_array, enc
from reference.status import GuaranteeClass as G

NAMED = {c["name"]: c for c in PJ.generate(1, 20)}


def strict_claim(name="spec_example"):
    cs = [c for c in PJ.claims(NAMED[name]) if c.row == "projection.strict"]
    assert cs, f"{name} gives no strict claim"
    return cs[0]


def approx_claim(name="budget_too_small"):
    return [c for c in PJ.claims(NAMED[name]) if c.row == "projection.approximate"][0]


def with_value(claim: Claim, **changes) -> Claim:
    value = dict(claim.value)
    value.update({k: (enc(v) if isinstance(v, float) else v) for k, v in changes.items()})
    return Claim(claim.row, claim.guarantee, value, claim.inputs)


def true_min(claim: Claim) -> float:
    i = claim.inputs
    e = enclose_min_distance(dec_array(i["controls"]).astype("float32"), dec_array(i["origin"]),
                             dec_array(i["point"]), 113, target=1e-12)
    return float(e.distance.mid)


def test_fast_path_claims_are_verified():
    for name in ("spec_example", "on_curve", "at_cusp", "tie_mirrored_spans", "outside_corner_joint",
                 "large_origin", "closed_circle_outside"):
        v = check_claim(strict_claim(name))
        assert v.kind is VerdictKind.Verified, (name, v.note, v.witness)
        assert 0 <= v.measured <= 1


def test_distance_below_the_true_minimum_is_violated():
    c = strict_claim()
    m = true_min(c)
    planted = with_value(c, distance=m * (1 - 1e-6), lower_bound=m * (1 - 2e-6), gap=m * 1e-6 * 1.01)
    v = check_claim(planted)
    assert v.kind is VerdictKind.Violated
    assert "distance_below_exact_distance_at_parameter" in v.witness


def test_lower_bound_above_the_true_minimum_is_violated_with_a_witness():
    c = strict_claim()
    m = true_min(c)
    lb = m * (1 + 1e-7)
    planted = with_value(c, lower_bound=lb, gap=max(dec(c.value["distance"]) - lb, 0.0))
    v = check_claim(planted)
    assert v.kind is VerdictKind.Violated
    w = v.witness["lower_bound_above_minimum"]
    # Replay: the witness point is exactly closer than the claimed lower bound.
    from interval.projection import exact_squared_distance

    i = c.inputs
    f = exact_squared_distance(dec_array(i["controls"]).astype("float32"), dec_array(i["origin"]),
                               dec_array(i["point"]), w["span"], dec(w["u"]))
    assert f < gmpy2.mpq(lb) ** 2


@pytest.mark.parametrize("change,key", [
    ({"gap": 1.0}, "gap_exceeds_projection_gap"),
    ({"is_gap_met": False}, "is_gap_met"),
    ({"span": 7}, "parameter_outside_domain"),
    ({"u": 1.5}, "parameter_outside_domain"),
    ({"distance": float("nan")}, "nonfinite_value"),
])
def test_exact_conditions_are_violated(change, key):
    v = check_claim(with_value(strict_claim(), **change))
    assert v.kind is VerdictKind.Violated and key in v.witness


def test_gap_below_distance_minus_lower_bound_is_violated():
    c = strict_claim()
    d, lb = dec(c.value["distance"]), dec(c.value["lower_bound"])
    v = check_claim(with_value(c, gap=(d - lb) / 4))
    assert v.kind is VerdictKind.Violated and "gap_below_distance_minus_lower_bound" in v.witness


def test_a_lower_bound_equal_to_an_attained_minimum_is_undecided(monkeypatch):
    # Line from (0,0,0) to (3,0,0), point (1.5, 2, 0): min 2 exactly at u = 1/2. The claim
    # LowerBound = Distance = 2 is true, but intervals cannot show f >= 4 around u = 1/2.
    monkeypatch.setattr(PJ, "SPLITS", {113: 300, 256: 300})
    line = [[[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]]]
    c = Claim("projection.strict", G.Certified,
              {"span": 0, "u": enc(0.5), "distance": enc(2.0), "lower_bound": enc(2.0), "gap": enc(0.0),
               "is_gap_met": True, "iterations": 1},
              {"controls": enc(line), "origin": enc([0.0, 0, 0]), "point": enc([1.5, 2.0, 0]),
               "projection_gap": enc(1e-6), "is_closed": False, "max_iterations": 8})
    v = check_claim(c)
    assert v.kind is VerdictKind.Undecided and v.enclosure is not None


def test_a_claim_relabelled_as_another_class_is_violated():
    c = strict_claim()
    v = check_claim(Claim(c.row, G.Estimated, c.value, c.inputs))
    assert v.kind is VerdictKind.Violated


@pytest.mark.parametrize("mutate,exc", [
    (lambda d: d["inputs"].pop("controls"), KeyError),
    (lambda d: d["value"].pop("distance"), KeyError),
    (lambda d: d["inputs"].update(controls=[[["0x1p+0"] * 3] * 3]), ValueError),
    (lambda d: d["inputs"].update(point=["0x1p+0", "nan", "0x0p+0"]), ValueError),
    (lambda d: d["inputs"].update(projection_gap="-0x1p+0"), ValueError),
    (lambda d: d["inputs"].update(controls=[[["0x1.999999999999ap-4"] * 3] * 4]), ValueError),
    (lambda d: d["value"].update(span=True), TypeError),
    (lambda d: d["value"].update(is_gap_met="yes"), TypeError),
])
def test_malformed_claims_raise(mutate, exc):
    for c in (strict_claim(), approx_claim()):
        d = copy.deepcopy(c.to_json())
        mutate(d)
        with pytest.raises(exc):
            check_claim(Claim.from_json(d))


def test_approximate_is_reported_never_failed():
    c = approx_claim()
    assert c.value["is_gap_met"] is False and c.value["result_guarantee"] == "Approximate"
    v = check_claim(c)
    assert v.kind is VerdictKind.Verified and v.measure == "true_gap_ratio" and v.measured > 1
    # Even a nonsense distance is reported, not failed: the row promises nothing.
    assert check_claim(with_value(c, distance=-5.0)).kind is VerdictKind.Verified
    with pytest.raises(ValueError):  # but a point that does not exist cannot be measured
        check_claim(with_value(c, span=99))


def test_generate_is_deterministic_and_starts_with_the_named_cases():
    a, b = PJ.generate(3, 30), PJ.generate(3, 30)
    assert [c["name"] for c in a] == [c["name"] for c in b]
    assert all((x["point"] == y["point"]).all() for x, y in zip(a, b))
    assert a[0]["name"] == "spec_example" and len(a) == 30


def test_cli_checks_fast_path_claims_from_a_file(tmp_path):
    claims = [c for name in ("spec_example", "budget_too_small", "at_cusp") for c in PJ.claims(NAMED[name])]
    good = tmp_path / "good.json"
    write_claims(good, claims, "test")
    run = [sys.executable, "-m", "oracles", "check", str(good), "--out", str(tmp_path / "out")]
    assert subprocess.run(run, capture_output=True, text=True).returncode == 0
    doc = json.loads(good.read_text())
    for d in doc["claims"]:
        if d["row"] == "projection.strict":
            d["value"]["gap"] = enc(1.0)  # planted: more than the projection gap
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    run[4] = str(bad)
    assert subprocess.run(run, capture_output=True, text=True).returncode == 1
