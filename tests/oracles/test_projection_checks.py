"""The projection family's checkers: planted false claims come out Violated, an undecidable one
Undecided (never Verified), malformed claims raise, the approximate row fails on what an
Approximate result still promises, every corpus claim fits its row's schema, and the CLI judges
the fast path's claims from a case file alone."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import gmpy2
import numpy as np
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


def test_honest_approximate_claims_are_verified():
    for name in ("budget_too_small", "spec_example", "at_cusp", "closed_circle_centre", "far_away"):
        c = approx_claim(name)
        v = check_claim(c)
        assert v.kind is VerdictKind.Verified, (name, v.note, v.witness)
        assert v.measure in ("true_gap_ratio", "gap_used")
    c = approx_claim()
    assert c.value["is_gap_met"] is False and c.value["result_guarantee"] == "Approximate"
    v = check_claim(c)
    assert v.measure == "true_gap_ratio" and v.measured > 1  # the budget really ran out


def test_halved_distance_with_the_gap_declared_met_is_violated():
    # Issue 9 item 1: this claim passed as Verified before.
    for name in ("budget_too_small", "spec_example", "above_cusp"):
        c = approx_claim(name)
        d, lb = dec(c.value["distance"]), dec(c.value["lower_bound"])
        planted = with_value(c, distance=d / 2, lower_bound=lb / 2, gap=d / 2 - lb / 2, is_gap_met=True,
                             result_guarantee="Certified")
        v = check_claim(planted)
        assert v.kind is VerdictKind.Violated, (name, v.note)
        assert set(v.witness) & {"distance_below_exact_distance_at_parameter", "gap_exceeds_projection_gap"}


def test_a_met_gap_must_pass_every_strict_check():
    c = approx_claim("above_cusp")
    assert c.value["is_gap_met"] is True and c.value["result_guarantee"] == "Certified"
    d = dec(c.value["distance"])
    for change, key in (({"gap": 1.0}, "gap_exceeds_projection_gap"),
                        ({"gap": 0.0, "lower_bound": d / 2}, "gap_below_distance_minus_lower_bound")):
        v = check_claim(with_value(c, **change))
        assert v.kind is VerdictKind.Violated and key in v.witness


def test_approximate_lower_bound_above_the_true_minimum_is_violated():
    c = approx_claim()
    m = true_min(c)
    v = check_claim(with_value(c, lower_bound=m * (1 + 1e-6)))
    assert v.kind is VerdictKind.Violated
    w = v.witness["lower_bound_above_minimum"]
    from interval.projection import exact_squared_distance

    i = c.inputs
    f = exact_squared_distance(dec_array(i["controls"]).astype("float32"), dec_array(i["origin"]),
                               dec_array(i["point"]), w["span"], dec(w["u"]))
    assert f < gmpy2.mpq(m * (1 + 1e-6)) ** 2  # replayed: a curve point closer than the claim


def test_approximate_parameter_not_at_the_claimed_distance_is_violated():
    c = approx_claim()
    u = dec(c.value["u"])
    v = check_claim(with_value(c, u=(u + 0.5) % 1.0))
    assert v.kind is VerdictKind.Violated and "distance_not_at_parameter" in v.witness
    # A nonsense distance is no longer reported as Verified.
    assert check_claim(with_value(c, distance=-5.0)).kind is VerdictKind.Violated
    assert check_claim(with_value(c, span=99)).kind is VerdictKind.Violated


def test_approximate_guarantee_and_budget_are_checked():
    c = approx_claim()
    v = check_claim(with_value(c, result_guarantee="Certified"))
    assert v.kind is VerdictKind.Violated and "result_guarantee" in v.witness
    v = check_claim(with_value(c, iterations=c.inputs["max_iterations"] + 1))
    assert v.kind is VerdictKind.Violated and "iterations_exceed_budget" in v.witness
    v = check_claim(with_value(strict_claim(), iterations=10**6))
    assert v.kind is VerdictKind.Violated and "iterations_exceed_budget" in v.witness


def test_evaluation_bound_is_the_documented_formula():
    # One span with controls of magnitude up to 4 in x, 2 in y, 0 in z; q = (3, -1, 0).
    ctl = np.array([[[0, 0, 0], [1, 2, 0], [4, 1, 0], [2, 0, 0]]], dtype=np.float32)
    u, eta = 2.0**-53, 2.0**-1074
    R = PJ.evaluation_bound(ctl, np.zeros(3), np.array([3.0, -1, 0]), 0, 0.5, u, eta)
    uq, eq = gmpy2.mpq(u), gmpy2.mpq(eta)
    e = [16 * uq * 4 + 16 * eq, 16 * uq * 2 + 16 * eq, 16 * eq]
    expect = sum(2 * x for x in e) + 4 * uq * (3 + 1) + 4 * uq * gmpy2.mpq(1, 2) + 16 * eq
    assert R == expect


def test_a_declared_float32_model_widens_the_distance_bound_and_is_reported():
    c = approx_claim()
    d = dec(c.value["distance"])
    off = with_value(c, distance=d * (1 + 2.0**-30))  # far beyond binary64, inside float32
    assert check_claim(off).kind is VerdictKind.Violated
    declared = Claim(off.row, off.guarantee, off.value, off.inputs, {"name": "f32 port", "u": "0x1p-24"})
    v = check_claim(declared)
    assert v.kind is VerdictKind.Verified, (v.note, v.witness)
    info = v.extra["declared_model"]
    assert info["model"]["u"] == "0x1p-24" and info["declared_over_reference"] > 2.0**28


def test_planted_claims_of_the_contracts_are_violated():
    for name in ("spec_example", "on_curve", "at_span_start", "at_cusp", "above_cusp", "budget_too_small",
                 "far_away"):
        for c in PJ.claims(NAMED[name]):
            assert check_claim(c).kind is VerdictKind.Verified
            v = check_claim(PJ.CONTRACTS[c.row].plant(c))
            assert v.kind is VerdictKind.Violated, (name, c.row, v.note)


def _document(claims):
    from oracles.casefile import FORMAT

    return {"format": FORMAT, "producer": "test", "claims": [c.to_json() for c in claims]}


def test_every_corpus_claim_validates_against_its_row_schema():
    from oracles.schema import validate_document

    claims = [c for case in PJ.generate(2, 50) for c in PJ.claims(case)]
    assert {c.row for c in claims} == set(PJ.CONTRACTS)
    assert validate_document(_document(claims)) == []


@pytest.mark.parametrize("mutate,where", [
    (lambda d: d["inputs"].update(is_closed=False), "inputs"),  # a field no checker reads
    (lambda d: d["value"].update(spn=0), "value"),
    (lambda d: d["inputs"].update(controls=[[["0x1.999999999999ap-4"] * 3] * 4]), "inputs.controls"),
    (lambda d: d["value"].update(result_guarantee="Estimated"), "value.result_guarantee"),
    (lambda d: d["inputs"].update(max_iterations=-1), "inputs.max_iterations"),
])
def test_the_schema_rejects_unread_fields_and_bad_values(mutate, where):
    from oracles.schema import validate_document

    d = copy.deepcopy(approx_claim().to_json())
    mutate(d)
    errs = validate_document({**_document([]), "claims": [d]})
    assert errs and any(e.path.startswith(f"claims[0].{where}") for e in errs), [str(e) for e in errs]


def test_every_schema_field_is_read_by_the_checker():
    # Removing any field the schema describes makes the checker fail on the claim: nothing in
    # the schema is decoration.
    for c in (strict_claim(), approx_claim()):
        for part in ("inputs", "value"):
            for key in getattr(c, part):
                d = copy.deepcopy(c.to_json())
                del d[part][key]
                with pytest.raises((KeyError, ValueError, TypeError)):
                    PJ.FAMILY.checkers[c.row](Claim.from_json(d))


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
    run[4], run[6] = str(bad), str(tmp_path / "out-bad")  # a new run: check refuses to overwrite
    assert subprocess.run(run, capture_output=True, text=True).returncode == 1


def test_cli_fails_the_halved_approximate_claim(tmp_path):
    # Issue 9 item 1, end to end: this case file used to pass with exit 0.
    from oracles.__main__ import main as cli

    c = approx_claim()
    d, lb = dec(c.value["distance"]), dec(c.value["lower_bound"])
    planted = with_value(c, distance=d / 2, lower_bound=lb / 2, gap=d / 2 - lb / 2, is_gap_met=True,
                         result_guarantee="Certified")
    path = tmp_path / "approx.json"
    write_claims(path, [c], "test")
    assert cli(["check", str(path), "--out", str(tmp_path / "a")]) == 0
    write_claims(path, [c, planted], "test")
    assert cli(["check", str(path), "--out", str(tmp_path / "b")]) == 1
