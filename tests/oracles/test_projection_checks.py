"""The projection family's checkers: planted false claims come out Violated, an undecidable one
Undecided (never Verified), malformed claims raise, the approximate row fails on what an
Approximate result still promises, every corpus claim fits its row's schema, and the CLI judges
the fast path's claims from a case file alone."""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys

import gmpy2
import numpy as np
import pytest

import oracles.families.projection as PJ
import oracles.families.projection.corpus as PJC
import oracles.families.projection.truth as PJT
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
    return next(c for c in PJ.claims(NAMED[name]) if c.row == "projection.approximate")


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


def test_a_lower_bound_equal_to_a_rational_attained_minimum_is_verified():
    # Line from (0,0,0) to (3,0,0), point (1.5, 2, 0): min 2 exactly at u = 1/2. Intervals cannot
    # show f >= 4 around u = 1/2, but the root isolation finds the exact critical point
    # (f'(1/2) = 0 in rationals), so LowerBound = min = 2 is shown.
    line = [[[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]]]
    c = Claim("projection.strict", G.Certified,
              {"span": 0, "u": enc(0.5), "distance": enc(2.0), "lower_bound": enc(2.0), "gap": enc(0.0),
               "is_gap_met": True, "iterations": 1},
              {"controls": enc(line), "origin": enc([0.0, 0, 0]), "point": enc([1.5, 2.0, 0]),
               "projection_gap": enc(1e-6), "is_closed": False, "max_iterations": 8})
    v = check_claim(c)
    assert v.kind is VerdictKind.Verified and v.bound_use == 0.0


def test_a_lower_bound_too_close_to_an_irrational_minimum_is_undecided(monkeypatch):
    # An arc whose nearest point to (1.2, 2, 0) is irrational; LowerBound 2^-50 (relative) below
    # the true minimum. With 16-bit root balls (f within ~1e-8) and 10 splits (boxes 2^-10
    # wide) neither oracle can separate them.
    monkeypatch.setattr(PJT, "SPLITS", {113: 10, 256: 10})
    monkeypatch.setattr(PJT, "ARB_BUDGET", (16,))
    arc = [[[0.0, 0, 0], [1.0, 1, 0], [2.0, 1, 0], [3.0, 0, 0]]]
    point = [1.2, 2.0, 0.0]
    from interval.arb_projection import enclose_min_distance_arb, sqrt_down

    m = enclose_min_distance_arb(np.array(arc, dtype=np.float32), np.zeros(3), np.array(point), 256)
    lb = float(sqrt_down(m.lower_sq)) * (1 - 2.0**-50)
    u = m.witness64[1]  # the nearest point, rounded to a float64 parameter
    c = Claim("projection.strict", G.Certified,
              {"span": 0, "u": enc(u), "distance": enc(lb + 1e-7), "lower_bound": enc(lb), "gap": enc(2e-7),
               "is_gap_met": True, "iterations": 1},
              {"controls": enc(arc), "origin": enc([0.0, 0, 0]), "point": enc(point),
               "projection_gap": enc(1e-6), "is_closed": False, "max_iterations": 8})
    assert gmpy2.mpq(lb + 1e-7) ** 2 >= exact_squared_distance_of(c)
    v = check_claim(c)
    assert v.kind is VerdictKind.Undecided and v.enclosure is not None, (v.kind, v.note, v.witness)


def exact_squared_distance_of(c: Claim):
    from interval.projection import exact_squared_distance

    i = c.inputs
    return exact_squared_distance(dec_array(i["controls"]).astype("float32"), dec_array(i["origin"]),
                                  dec_array(i["point"]), c.value["span"], dec(c.value["u"]))


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
    expect = sum(2 * x for x in e) + 6 * uq * (3 + 1) + 8 * uq * gmpy2.mpq(1, 2) + 16 * eq
    assert R == expect


def test_a_declared_float32_model_widens_the_distance_bound_and_is_reported():
    c = approx_claim()
    d = dec(c.value["distance"])
    d2 = d * (1 + 2.0**-30)  # far beyond binary64, inside float32; the Gap still covers it
    off = with_value(c, distance=d2, gap=float(np.nextafter(d2 - dec(c.value["lower_bound"]), np.inf)))
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
    (lambda d: d["inputs"].update(closed=False), "inputs"),  # a field no checker reads
    (lambda d: d["inputs"].update(is_closed=1), "inputs.is_closed"),
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
    # Removing any required field the schema describes makes the checker fail on the claim:
    # nothing in the schema is decoration. The one optional field, is_closed, is read by the
    # terminal-endpoint rules (next test).
    for c in (strict_claim(), approx_claim()):
        for part in ("inputs", "value"):
            for key in getattr(c, part):
                if (part, key) == ("inputs", "is_closed"):
                    continue
                d = copy.deepcopy(c.to_json())
                del d[part][key]
                with pytest.raises((KeyError, ValueError, TypeError)):
                    PJ.FAMILY.checkers[c.row](Claim.from_json(d))


def test_is_closed_decides_whether_the_terminal_endpoint_is_a_candidate():
    # A point beyond the end of an open line: the terminal endpoint (0, 1) is the answer. On a
    # closed path it would be no candidate (the closing joint is named (0, 0)); without
    # is_closed the checker cannot tell and does not judge that rule.
    line = [[[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]], [[3.0, 0, 0], [2.0, 1, 0], [1.0, 1, 0], [0.0, 0, 0]]]
    base = Claim("projection.strict", G.Certified,
                 {"span": 1, "u": enc(1.0), "distance": enc(1.0), "lower_bound": enc(1.0 - 2e-7), "gap": enc(4e-7),
                  "is_gap_met": True, "iterations": 0},
                 {"controls": enc(line), "origin": enc([0.0, 0, 0]), "point": enc([-1.0, 0, 0]),
                  "projection_gap": enc(1e-6), "max_iterations": 8})
    closed = Claim(base.row, base.guarantee, base.value, {**base.inputs, "is_closed": True})
    v = check_claim(closed)
    assert v.kind is VerdictKind.Violated and "span_end_is_not_a_candidate" in v.witness
    # Span 0's start is the same point, earlier, and certainly acceptable: the earliest rule
    # names (0, 0) whether or not the path is closed.
    for c in (base, Claim(base.row, base.guarantee, base.value, {**base.inputs, "is_closed": False})):
        v = check_claim(c)
        assert v.kind is VerdictKind.Violated and "earlier_acceptable_candidate" in v.witness, v.witness


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


# --- The earliest rule, the best rule and the stopping rule ------------------------------------


def _claim_of(name, row="projection.strict"):
    case = {c["name"]: c for c in PJ.generate(1, 120)}[name]
    return next(c for c in PJ.claims(case) if c.row == row)


def _exact_distance(claim, span, u):
    from interval.projection import exact_squared_distance

    i = claim.inputs
    return exact_squared_distance(dec_array(i["controls"]).astype("float32"), dec_array(i["origin"]),
                                  dec_array(i["point"]), span, u)


def _up_sqrt(f) -> float:
    """A float64 at least sqrt(f) (exact rational f)."""
    x = float(np.sqrt(float(f)))
    while gmpy2.mpq(x) ** 2 < f:
        x = float(np.nextafter(x, np.inf))
    return x


def test_a_later_better_candidate_in_place_of_an_acceptable_joint_is_violated():
    # The joint (1, 0) fits the gap; a better point of span 1 is later: returning it breaks the
    # earliest rule although every bound it carries is true.
    c = _claim_of("joint_acceptable_not_best_0")
    assert (c.value["span"], dec(c.value["u"])) == (1, 0.0)
    assert check_claim(c).kind is VerdictKind.Verified
    u = 0.21357  # near the true nearest point (the oracle's witness, rounded)
    d = _up_sqrt(_exact_distance(c, 1, u))
    lb = dec(c.value["lower_bound"])
    planted = with_value(c, u=u, distance=d, gap=float(np.nextafter(d - lb, np.inf)))
    v = check_claim(planted)
    assert v.kind is VerdictKind.Violated and v.witness["earlier_acceptable_candidate"]["span"] == 1
    assert v.witness["earlier_acceptable_candidate"]["u"] == 0


def test_the_later_mirror_twin_is_violated():
    c = _claim_of("tie_mirrored_spans")
    k, u = c.value["span"], dec(c.value["u"])
    assert k == 0 and 0 < u < 1 and check_claim(c).kind is VerdictKind.Verified
    # The twin (1, 1 - u) is at exactly the same distance: only the earliest rule refutes it.
    assert _exact_distance(c, 1, 1 - u) == _exact_distance(c, 0, u)
    v = check_claim(with_value(c, span=1, u=1 - u))
    assert v.kind is VerdictKind.Violated and v.witness["mirror_twin_is_earlier"]["span"] == 0


def test_a_joint_named_by_the_incoming_span_is_violated():
    c = _claim_of("outside_corner_joint")
    assert (c.value["span"], dec(c.value["u"])) == (1, 0.0)
    # (0, 1) is the same point (the corner joint), but span ends are never candidates.
    assert _exact_distance(c, 0, 1.0) == _exact_distance(c, 1, 0.0)
    v = check_claim(with_value(c, span=0, u=1.0))
    assert v.kind is VerdictKind.Violated and "span_end_is_not_a_candidate" in v.witness


def test_an_unmet_gap_whose_gap_fits_is_violated():
    # A claim out of work must report a Gap above ProjectionGap: one that fits was met.
    c = _claim_of("budget_too_small", "projection.approximate")
    assert c.value["is_gap_met"] is False
    d = dec(c.value["distance"])
    g = dec(c.inputs["projection_gap"])
    planted = with_value(c, lower_bound=d - g / 2, gap=g)
    v = check_claim(planted)
    assert v.kind is VerdictKind.Violated and "gap_met_but_reported_unmet" in v.witness


def test_an_unmet_result_worse_than_a_span_start_is_violated():
    c = _claim_of("budget_too_small", "projection.approximate")
    n = len(c.inputs["controls"])
    f = [_exact_distance(c, k, 0.0) for k in range(n)]
    worst = max(range(n), key=lambda k: f[k])
    assert f[worst] > min(f) * 1.01  # a real difference, far above any rounding
    d = _up_sqrt(f[worst])
    lb = min(dec(c.value["lower_bound"]), d)
    planted = with_value(c, span=worst, u=0.0, distance=d, lower_bound=lb,
                         gap=float(np.nextafter(d - lb, np.inf)))
    v = check_claim(planted)
    assert v.kind is VerdictKind.Violated and "better_candidate" in v.witness, v.witness


def test_an_unmet_gap_below_distance_minus_lower_bound_is_violated():
    c = _claim_of("budget_too_small", "projection.approximate")
    d, lb = dec(c.value["distance"]), dec(c.value["lower_bound"])
    v = check_claim(with_value(c, gap=(d - lb) / 2))
    assert v.kind is VerdictKind.Violated and "gap_below_distance_minus_lower_bound" in v.witness


def test_verdicts_report_how_much_of_their_bound_they_used():
    s = check_claim(_claim_of("spec_example"))
    assert s.kind is VerdictKind.Verified and s.bound_use == s.measured and 0 <= s.bound_use <= 1
    a = check_claim(_claim_of("budget_too_small", "projection.approximate"))
    assert a.kind is VerdictKind.Verified and 0 <= a.bound_use <= 1  # |Distance - exact| / R
    c = strict_claim()
    m = true_min(c)
    v = check_claim(with_value(c, lower_bound=m * (1 + 1e-7), gap=4e-7))
    assert v.kind is VerdictKind.Violated and "lower_bound_above_minimum" in v.witness and v.bound_use > 1


def test_disagreeing_oracles_are_an_oracle_fault_never_a_verdict(monkeypatch):
    import interval.projection as IP

    real = IP.enclose_min_distance

    def shifted(*args, **kw):  # a branch and bound that encloses the wrong minimum
        e = real(*args, **kw)
        return dataclasses.replace(e, lower_sq=e.lower_sq * 4 + 1, upper_sq=e.upper_sq * 4 + 2)

    import dataclasses

    monkeypatch.setattr(PJT, "enclose_min_distance", shifted)
    # a cache of its own: searches shared with earlier claims were the real one's, and the
    # shifted ones must not outlive the test
    monkeypatch.setattr(PJT, "_first_search_of", functools.lru_cache(maxsize=16)(PJT._first_search_of.__wrapped__))
    for c in (strict_claim(), approx_claim()):
        v = check_claim(c)
        assert v.kind is VerdictKind.OracleFault, (v.kind, v.note)
        enc_ = v.witness["enclosures"]
        assert set(enc_) == {"arb_root_isolation", "interval_branch_and_bound"}


def test_an_oracle_that_raises_is_an_oracle_fault(monkeypatch):
    def broken(*args, **kw):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(PJT, "arb_decide", broken)
    v = check_claim(strict_claim())
    assert v.kind is VerdictKind.OracleFault and "arb_root_isolation" in v.witness["enclosures"]


def test_extreme_magnitudes_never_crash_the_checkers():
    # Issue 17 item 5: squared distances far beyond float64 (points near 2^1000, controls at the
    # float32 maximum) are judged, never raised on.
    big = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3e38, 0, 0]]], dtype=np.float32)
    for point, span, u, d in (([1e300, 1e300, 0.0], 0, 0.0, 1.5e300), ([-2.0**400, 0.0, 0.0], 0, 0.0, 2.0**400)):
        for row, extra in (("projection.strict", {}), ("projection.approximate", {"result_guarantee": "Certified"})):
            c = Claim(row, G.Certified if row.endswith("strict") else G.Approximate,
                      {"span": span, "u": enc(u), "distance": enc(d), "lower_bound": enc(d * (1 - 2.0**-40)),
                       "gap": enc(d * 2.0**-39), "is_gap_met": True, "iterations": 0, **extra},
                      {"controls": enc(big), "origin": enc([0.0, 0, 0]), "point": enc(point),
                       "projection_gap": enc(d * 2.0**-38), "max_iterations": 0, "is_closed": False})
            v = check_claim(c)
            assert v.kind in (VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided), (v.kind, v.witness)
    # The fast path's own claim for a point 2^400 away (approximate: strict refuses the precision).
    case = PJ.make_case("far", PJC._spec_example(), [0, 0, 0], [2.0**400, -3.0, 1.0], 1e-6, approx_iterations=4)
    for c in PJ.claims(case):
        v = check_claim(c)
        assert v.kind is VerdictKind.Verified, (c.row, v.note, v.witness)


# --- Requests: the statuses the spec demands (issue 24) ------------------------------------------

from .request_helpers import judge_request as _judge, fast_path_misses  # noqa: E402
from oracles.families.projection.requests import status_requests  # noqa: E402
from oracles.request import Answer, Request, StepAnswer  # noqa: E402


@pytest.fixture(scope="module")
def status_reqs():
    return [Request(f"projection/s{k:03d}", "projection", name, steps, rules)
            for k, (name, steps, rules) in enumerate(status_requests())]



def test_one_split_is_needed_exactly_on_the_line_below_the_point():
    # Independently of the requests' certificates: the span ends are sqrt(26) from (0, 5, 0),
    # the minimum 5 is at u = 1/2, the midpoint the first split evaluates.
    line = np.array([[-1, 0, 0], [-1 / 3, 0, 0], [1 / 3, 0, 0], [1, 0, 0]])
    ends = [np.linalg.norm(line[k] - [0, 5, 0]) for k in (0, 3)]
    mid = 0.125 * (line[0] + 3 * line[1] + 3 * line[2] + line[3])
    assert min(ends) - 5.0 > 1e-3 and abs(np.linalg.norm(mid - [0, 5, 0]) - 5.0) < 1e-12


def test_named_status_requests_demand_what_the_spec_says(status_reqs):
    kinds = lambda r: [s.expect.kind if s.expect.kind != "failure" else set(s.expect.statuses) for s in r.steps]
    by = {r.name: r for r in status_reqs}
    assert kinds(by["max_iterations met with equality (one split needed, max_iterations = 1)"]) == ["success"] * 2
    assert kinds(by["max_iterations exceeded by one (one split needed, max_iterations = 0)"]) == \
        [{"BudgetExceeded"}, "success"]
    assert kinds(by["scratch capacity exceeded by one (2 entries, 3 needed)"]) == [{"CapacityExceeded"}] * 2
    assert kinds(by["a point beyond 2^500 of the chunk origin"]) == [{"UnsupportedPrecision"}] * 2
    assert all(s.expect.why for r in status_reqs for s in r.steps), "every expectation names its source"


def test_our_fast_path_meets_every_status_request(status_reqs):
    """Every status request answered by our fast path: statuses, values, rules, completeness."""
    bad = fast_path_misses(PJ.answer, status_reqs)
    assert not bad, bad[:5]


def test_a_failed_query_that_writes_the_result_is_violated(status_reqs):
    keeps = [r for r in status_reqs if r.name.startswith("failed query")]
    assert len(keeps) == 5
    for req in keeps:
        ans = PJ.answer(req)
        out = dict(ans.steps[1].output, iterations=ans.steps[1].output["iterations"] + 1)
        written = Answer(req.id, (ans.steps[0], StepAnswer(ans.steps[1].status, ans.steps[1].claims, out)))
        verdicts, _ = _judge(req, written)
        assert any(v.kind is VerdictKind.Violated and "rule" in v.claim.inputs for v in verdicts), req.name


def test_the_shared_first_search_is_each_query_s_own():
    """The branch and bound's first search (threshold-free) is shared by the claims of one query:
    a query's claims judged after other queries' and after their own twins, or with the cache
    emptied, get the same verdicts, and the shared search equals a fresh one of that query."""
    names = ("spec_example", "on_curve", "at_cusp", "large_origin", "closed_circle_outside")
    claims = [c for n in names for c in PJ.claims(NAMED[n])
              if c.row in ("projection.strict", "projection.approximate")]
    assert len({json.dumps(c.inputs["point"]) for c in claims}) >= 3
    cold = []
    for c in claims:
        PJT._first_search_of.cache_clear()
        cold.append(check_claim(c).to_json())
    warm = [check_claim(c).to_json() for c in claims]
    assert warm == cold
    for c in claims[:6]:
        i = c.inputs
        C, o, p = dec_array(i["controls"]).astype("float32"), dec_array(i["origin"]), dec_array(i["point"])
        fresh = enclose_min_distance(C, o, p, PJT.BUDGET[0], target=PJT._target(dec(i["projection_gap"])),
                                     max_splits=PJT.SPLITS[PJT.BUDGET[0]])
        assert PJT._first_search(C, o, p, dec(i["projection_gap"])) == fresh
