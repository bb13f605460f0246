"""Requests and answers judged whole: statuses against the spec's demands, scenario rules,
completeness (``oracles.request``, ``oracles.contract``, ``check ANSWERS --requests FILE``).

Expected statuses in these tests come from the spec's sentences the requests cite (a failed
rebuild keeps the previous snapshot; Reject outside the domain has no value), never from the
fast path; the files are judged through the CLI as an outside implementation's would be."""

from __future__ import annotations

import copy
import json
from dataclasses import replace as dc_replace
from fractions import Fraction

import numpy as np
import pytest

from oracles.contract import answer_claims, canonical_output, check_status, rule_claim, status_claim
from oracles.model import Claim, VerdictKind, dec, enc
from oracles.request import (Answer, Expect, Request, RequestFileError, Rule, Step, StepAnswer, ambiguous,
                             answers_schema, either,
                             failure, read_requests, requests_schema, success)

from .request_helpers import check_docs, request_and_answer_docs

TRACK_CASES = 40  # enough to reach the track family's named status requests


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return request_and_answer_docs(tmp_path_factory.mktemp("requests"), "track", TRACK_CASES)


def _check(tmp_path, requests_doc, answers_doc, *extra):
    return check_docs(tmp_path, requests_doc, answers_doc, *extra)


def _row(led, rid):
    return next(r for r in led["rows"] if r["id"] == rid)


def _by_name(doc, prefix):
    return [r for r in doc["requests"] if r["name"].startswith(prefix)]


# --- Expectations ------------------------------------------------------------------------------


def test_expectations_accept_exactly_the_statuses_they_name():
    assert success().allows("Success") and not success().allows("BudgetExceeded")
    f = failure("BudgetExceeded", "InvalidArgument")
    assert f.allows("InvalidArgument") and not f.allows("Success") and not f.allows("OutOfRange")
    assert ambiguous().allows("Ambiguous") and not ambiguous().allows("Success")
    e = either("Success", "BudgetExceeded", why="the oracle cannot decide the gap")
    assert e.allows("Success") and e.allows("BudgetExceeded") and not e.allows("InvalidArgument")
    with pytest.raises(ValueError):
        failure()  # a failure names its statuses
    with pytest.raises(ValueError):
        failure("Success")
    with pytest.raises(ValueError):
        Expect("maybe")
    with pytest.raises(ValueError):
        either(why="nothing allowed")


def test_rules_must_point_forward_inside_the_scenario():
    s = Step("TryPrepareTrack", {}, success())
    with pytest.raises(ValueError):
        Request("x", "track", "", (s, s), (Rule("same_output", 1, 0),))
    with pytest.raises(ValueError):
        Request("x", "track", "", (s,), (Rule("same_output", 0, 1),))
    with pytest.raises(ValueError):
        Request("x", "track", "", ())


# --- Files -------------------------------------------------------------------------------------


def test_written_files_follow_their_schemas(files, tmp_path):
    from jsonschema import Draft202012Validator

    req, ans = files
    assert not list(Draft202012Validator(requests_schema()).iter_errors(req))
    assert not list(Draft202012Validator(answers_schema()).iter_errors(ans))
    assert req["format"] == "requests/1" and ans["format"] == "answers/1"
    ids = [r["id"] for r in req["requests"]]
    assert len(set(ids)) == len(ids) == TRACK_CASES
    p = tmp_path / "r.json"
    p.write_text(json.dumps(req))
    _, reqs = read_requests(p)
    assert [r.to_json() for r in reqs] == req["requests"]  # round trip, exact text kept


def test_the_shipped_schemas_are_current():
    from pathlib import Path

    import oracles

    root = Path(oracles.__file__).parent
    for name, schema in (("requests.schema.json", requests_schema()), ("answers.schema.json", answers_schema())):
        shipped = json.loads((root / name).read_text())
        assert shipped == schema, f"{name} is stale: python -m oracles schema --out ... regenerates it"


def test_a_malformed_request_file_is_refused(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(json.dumps({"format": "requests/1", "requests": [{"id": "a", "family": "track", "steps": []}]}))
    with pytest.raises(RequestFileError, match="steps"):
        read_requests(p)
    p.write_text('{"format": "requests/1", "requests": [], "requests": []}')
    with pytest.raises(RequestFileError, match="duplicate"):
        read_requests(p)


# --- Judging -----------------------------------------------------------------------------------


def test_our_complete_answers_are_verified(files, tmp_path):
    req, ans = files
    code, led, lines = _check(tmp_path, req, ans)
    assert code == 0
    assert led["totals"]["unanswered"] == 0 and led["totals"]["violated"] == 0
    st = _row(led, "track.statuses")
    assert st["claims"] >= TRACK_CASES and st["verified"] == st["claims"]
    assert all("request" in x for x in lines)


def test_a_valid_request_refused_and_a_required_failure_answered_with_success_are_violated(files, tmp_path):
    req, ans = files
    ans = copy.deepcopy(ans)
    by_id = {a["request"]: a for a in ans["answers"]}
    equal = _by_name(req, "max_keys met with equality")[0]
    past = _by_name(req, "max_keys exceeded by one")[0]
    by_id[equal["id"]]["steps"][0] = {"status": "BudgetExceeded", "output": {"keys": []}}  # refused at equality
    by_id[past["id"]]["steps"][0]["status"] = "Success"  # accepted one past the limit
    code, _led, lines = _check(tmp_path, req, ans)
    assert code == 1
    bad = [x for x in lines if x["verdict"] == "Violated"]
    assert {x["request"] for x in bad} >= {equal["id"], past["id"]}
    notes = " ".join(x["note"] for x in bad)
    assert "a valid request refused with BudgetExceeded" in notes
    assert "a success where the spec demands a failure" in notes


def test_leaving_out_required_failures_is_violated_and_unanswered(files, tmp_path):
    req, ans = files
    # Failures the spec's text demands (a demand only a decision of ours makes fail, "spec" an
    # either, leaves a missing answer unanswered but not Violated).
    must_fail = {r["id"] for r in req["requests"] if r["steps"][0]["expect"]["class"] == "failure"
                 and r["steps"][0]["expect"].get("spec", {"class": "failure"})["class"] == "failure"}
    assert must_fail
    kept = {**ans, "answers": [a for a in ans["answers"] if a["request"] not in must_fail]}
    code, led, lines = _check(tmp_path, req, kept)
    assert code == 1
    st = _row(led, "track.statuses")
    assert st["violated"] >= len(must_fail) and st["unanswered"] >= len(must_fail)
    assert any("no answer where the spec demands" in x["note"] for x in lines)


def test_an_answer_file_that_leaves_out_a_family_it_declares_is_unanswered(files, tmp_path):
    req, ans = files
    none = {**ans, "answers": [], "families": ["track"]}
    code, led, _ = _check(tmp_path, req, none)
    assert code == 1 and led["totals"]["unanswered"] > 0
    assert _row(led, "track.values")["unanswered"] > 0 and _row(led, "track.key_values")["unanswered"] > 0


def test_families_not_declared_are_not_in_scope(files, tmp_path):
    req, ans = files
    other = copy.deepcopy(req)
    for r in other["requests"][:3]:  # pretend three requests belong to a family nobody answers
        r["id"] = r["id"].replace("track/", "point_search/")
        r["family"] = "point_search"
    kept = {**ans, "families": ["track"],
            "answers": [a for a in ans["answers"]
                        if a["request"] not in {r["id"].replace("point_search/", "track/")
                                                for r in other["requests"][:3]}]}
    code, led, _ = _check(tmp_path, other, kept)
    assert code == 0 and led["run"]["not_covered"] == {"point_search": 3}
    # without the declaration, every family of the request set is in scope
    code, led, _ = _check(tmp_path, other, {k: v for k, v in kept.items() if k != "families"})
    assert code == 1 and led["totals"]["unanswered"] > 0


def test_a_failed_rebuild_that_changes_the_output_is_violated(files, tmp_path):
    req, ans = files
    ans = copy.deepcopy(ans)
    scen = _by_name(req, "failed rebuild (equal times)")[0]
    a = next(x for x in ans["answers"] if x["request"] == scen["id"])
    assert a["steps"][2]["status"] == "InvalidDomain"
    a["steps"][2]["output"] = {"keys": []}  # the failed rebuild cleared the owner
    code, _, lines = _check(tmp_path, req, ans)
    assert code == 1
    bad = [x for x in lines if x["verdict"] == "Violated"]
    assert len(bad) == 1 and bad[0]["request"] == scen["id"]
    assert "differs" in bad[0]["note"]


def test_a_required_row_without_a_claim_is_unanswered(files, tmp_path):
    req, ans = files
    ans = copy.deepcopy(ans)
    a = ans["answers"][0]
    a["steps"][1].pop("claims", None)  # an evaluation answered Success with no value claim
    assert a["steps"][1]["status"] == "Success"
    code, led, _ = _check(tmp_path, req, ans)
    assert code == 1 and _row(led, "track.values")["unanswered"] == 1
    assert _row(led, "track.values")["unanswered_requests"] == [f"{a['request']} step 1"]


def test_answers_to_unknown_or_repeated_requests_and_bad_claims_are_malformed(files, tmp_path):
    req, ans = files
    ans = copy.deepcopy(ans)
    ans["answers"].append({"request": "track/99999", "steps": []})
    ans["answers"].append(copy.deepcopy(ans["answers"][0]))
    ans["answers"][1]["steps"][1]["claims"][0]["value"]["value"] = "0x1.8q+1"
    code, led, _ = _check(tmp_path, req, ans)
    # the malformed claim is left out, so its row is unanswered too (exit 1 outranks 2)
    assert code == 1 and led["totals"]["malformed"] == 3 and _row(led, "track.values")["unanswered"] == 1
    text = " ".join(led["malformed"])
    assert "track/99999" in text and "a second answer" in text
    assert "answers[1].steps[1].claims[0].value.value" in text


def test_steps_past_the_requests_last_are_malformed_not_dropped(files, tmp_path):
    """An extra step (with a false claim a checker would refute) is never silently ignored: the
    answer is listed malformed and the run does not pass (audit of 2026-12-06)."""
    req, ans = files
    ans = copy.deepcopy(ans)
    a = ans["answers"][0]
    n = len(next(r for r in req["requests"] if r["id"] == a["request"])["steps"])
    a["steps"] = a["steps"][:n] + [{"status": "Garbage", "claims": []}]
    code, led, _ = _check(tmp_path, req, ans)
    assert code == 2 and led["totals"]["malformed"] == 1 and led["totals"]["violated"] == 0
    assert f"answers[0].steps: {n + 1} steps where request" in " ".join(led["malformed"])


def test_a_status_claim_without_a_status_is_never_verified(files):
    """A status claim whose status is null (a claims/1 file can carry one) judged nothing: where
    the spec demands no failure it is Undecided (loud), where it demands one, Violated."""
    for r in files[0]["requests"]:
        req = Request.from_json(r)
        for k, step in enumerate(req.steps):
            v = check_status(status_claim(req, k, None))  # not opted in: the spec's text alone
            spec = step.expect.by_spec if step.expect.decision else step.expect
            want = VerdictKind.Violated if spec.must_fail else VerdictKind.Undecided
            assert v.kind is want, (req.id, k, v.note)


def test_an_unanswered_ambiguous_query_and_a_hit_where_it_must_be_ambiguous_are_violated():
    s = Step("first_hit", {"segment": 0}, ambiguous("spec 004: one ambiguous candidate rejects the whole query"))
    req = Request("triangle/00001", "triangle", "coplanar graze", (s,))
    hit = check_status(status_claim(req, 0, "Success"))
    assert hit.kind is VerdictKind.Violated and "must be rejected as Ambiguous" in hit.note
    assert check_status(status_claim(req, 0, "Ambiguous")).kind is VerdictKind.Verified
    from oracles.contract import judge_answer

    got, gaps = [], []
    judge_answer(req, None, lambda c: None, got.append, lambda row, where: gaps.append(row))
    assert [v.kind for v in got] == [VerdictKind.Violated] and gaps == ["triangle.statuses"]


def test_outputs_compare_by_exact_value_and_sign_of_zero():
    assert canonical_output({"a": ["0x1p+0", 2]}) == canonical_output({"a": ["1", "0x1p+1"]})
    assert canonical_output(["0x0p+0"]) != canonical_output(["-0x0p+0"])
    # an in-memory float keeps its zero's sign too (files hold numbers as text)
    assert canonical_output([-0.0]) == canonical_output(["-0x0p+0"]) != canonical_output([0.0])
    assert canonical_output(["nan"]) == canonical_output(["nan"]) != canonical_output(["inf"])
    assert canonical_output({"status": "Success"}) != canonical_output({"status": "Degenerate"})
    s = Step("TryPrepareTrack", {}, success())
    req = Request("x", "track", "", (s, s), (Rule("same_output", 0, 1, "keeps the snapshot"),))
    same = check_status(rule_claim(req, 0, {"keys": [["0x1p+0"]]}, {"keys": [["1"]]}))
    assert same.kind is VerdictKind.Verified
    diff = check_status(rule_claim(req, 0, {"keys": [["0x0p+0"]]}, {"keys": [["-0x0p+0"]]}))
    assert diff.kind is VerdictKind.Violated and "keys[0][0]" in diff.witness["first_difference"]


def test_answer_ids_are_echoed_in_verdict_lines_and_junit(files, tmp_path):
    import xml.etree.ElementTree as ET

    req, ans = files
    ans = copy.deepcopy(ans)
    for k, a in enumerate(ans["answers"]):
        a["id"] = f"engine-test-{k}"
    wrong = next(a for a in ans["answers"] if a["steps"][0]["status"] == "Success")
    wrong["steps"][0]["status"] = "BudgetExceeded"  # a valid request refused
    code, _, lines = _check(tmp_path, req, ans, "--junit", str(tmp_path / "j.xml"))
    assert code == 1
    assert {x["answer_id"] for x in lines} == {a["id"] for a in ans["answers"]}
    bad = [x for x in lines if x["verdict"] == "Violated"]
    assert bad and bad[0]["answer_id"] == wrong["id"]
    names = {tc.get("name") for tc in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")}
    assert wrong["id"] in names


# --- Demands that rest on a decision of ours (issue 25 item 3) ---------------------------------


def test_failure_statuses_are_every_status_but_success():
    from oracles.request import FAILURE_STATUSES
    from reference.status import GeometryStatus

    assert set(FAILURE_STATUSES) == {s.value for s in GeometryStatus} - {"Success"}


def test_a_decided_demand_must_be_narrower_than_what_the_spec_demands():
    from oracles.request import decided

    d = decided(failure("InvalidDomain", why="ours"), "path:request_status")
    assert Expect.from_json(json.loads(json.dumps(d.to_json()))) == d
    with pytest.raises(ValueError):  # the spec's demand must allow what the decision allows
        decided(failure("InvalidDomain"), "path:request_status", failure("InvalidArgument"))
    with pytest.raises(ValueError):  # a decision without the spec's demand
        Expect("failure", ("InvalidDomain",), "", "path:request_status", None)


def _decided_request():
    from oracles.request import decided

    # spec 002 Boundary policies: Reject outside the domain fails; the status name is our
    # decision (docs/decisions.md 'Paths: the parameter domain and boundary policies').
    e = decided(failure("InvalidDomain", why="outside the domain under Reject"), "path:request_status")
    return Request("path/09999", "path", "u = 2 under Reject", (Step("TryEvaluatePath", {}, e),))


@pytest.mark.parametrize("opted", [False, True])
def test_a_decided_status_binds_only_answers_that_opt_in(opted):
    req = _decided_request()
    other = check_status(status_claim(req, 0, "InvalidArgument", decisions=opted))
    if opted:  # held to the decision, which alone refutes it
        assert other.kind is VerdictKind.Violated and other.rule == "path:request_status"
    else:  # the spec's text: a failure, any status; the decision is reported unmet
        assert other.kind is VerdictKind.Verified and other.unmet == ("path:request_status",)
    # A success where the spec demands a failure is Violated by the spec, opted in or not.
    ok = check_status(status_claim(req, 0, "Success", decisions=opted))
    assert ok.kind is VerdictKind.Violated and ok.rule == "statuses:expectation"
    assert check_status(status_claim(req, 0, "InvalidDomain", decisions=opted)).kind is VerdictKind.Verified


def test_an_answer_file_opts_in_by_its_header_or_per_answer(tmp_path):
    from oracles.request import read_answers

    doc = {"format": "answers/1", "producer": "t", "decisions": True,
           "answers": [{"request": "a", "steps": [{"status": "Success"}]},
                       {"request": "b", "decisions": False, "steps": [{"status": "Success"}]}]}
    p = tmp_path / "a.json"
    p.write_text(json.dumps(doc))
    _, answers, malformed, _ = read_answers(p)
    assert not malformed and [a.decisions for a in answers] == [True, False]


def _with_claim(ans, row, change, pick=lambda c: True):
    """``ans`` with ``change(claim)`` in place of every claim of ``row`` that ``pick`` selects."""
    from oracles.request import Answer, StepAnswer

    steps = [StepAnswer(st.status, tuple(change(c) if c.row == row and pick(c) else c for c in st.claims), st.output)
             for st in ans.steps]
    return Answer(ans.request, tuple(steps), ans.label, ans.decisions)


def _with_claim_inputs(ans, row, change):
    """``ans`` with ``change(inputs)`` applied to every claim of ``row``."""
    return _with_claim(ans, row, lambda c: dc_replace(c, inputs=change(dict(c.inputs))))


def test_a_claim_whose_given_inputs_are_not_the_request_s_is_violated():
    """docs/decisions.md 'Answers: Given inputs are the request's': a claim copies its Given
    inputs from the call. An answer that claims a frame estimate under a DistanceError 1000
    times the request's (which widens the twist tolerance a thousandfold), or under another
    corner policy, was judged on those inputs before 2026-12-06 and Verified."""
    from oracles.families import frame as F
    from oracles.given import request_parameters
    from oracles.rules import our_answer
    from .request_helpers import judge_request, named

    reqs = F.FAMILY.requests(1, F.FAMILY.default_cases)
    req = named(reqs, "closed loop with uneven speed, DistributeTwist")
    params = request_parameters(req)
    assert params["corner_policy"] == "RotateMinimally" and "distance_error" in params
    ans = our_answer(F.FAMILY.answer(req))
    row = "frame.angular_error_estimate"
    verdicts, _ = judge_request(req, ans)
    assert all(v.kind is VerdictKind.Verified for v in verdicts)
    wide = lambda i: {**i, "distance_error": "0x1p-3"}
    other = lambda i: {**i, "corner_policy": "SplitRuns"}
    drop = lambda i: {k: x for k, x in i.items() if k != "closed_policy"}  # optional: the request's
    respelled = lambda i: {**i, "distance_error": str(Fraction(float.fromhex(i["distance_error"])))}
    for change, kind in ((wide, VerdictKind.Violated), (other, VerdictKind.Violated),
                         (drop, VerdictKind.Verified), (respelled, VerdictKind.Verified)):
        verdicts, _ = judge_request(req, _with_claim_inputs(ans, row, change))
        mine = [v for v in verdicts if v.claim.row == row]
        assert mine and all(v.kind is kind for v in mine), (kind, [v.witness for v in mine])
        if kind is VerdictKind.Violated:
            assert all(v.rule == "claim:given_inputs" for v in mine)


def _without(inputs, *names):
    return {k: x for k, x in inputs.items() if k not in names}


def _rolled(inputs, by):
    return {**inputs, "profile": [[k[0], k[1], enc(dec(k[2]) + by)] for k in inputs["profile"]]}


def test_an_answer_s_claims_are_judged_on_the_request_s_inputs_they_leave_out():
    """docs/decisions.md 'Answers: Given inputs are the request's': an optional Given input that
    names a request parameter is the request's when a claim leaves it out. Before 2026-12-06 a
    claim escaped the rule its optional input enables by omitting it: each planted mistake below,
    stated without that input, is Verified as a lone claim (a claims/1 file, where the inputs are
    the claim) and was Verified in an answer too; against its request it is Violated by the very
    rule the input enables."""
    from oracles.batch import check_claim
    from oracles.families import family_named
    from oracles.request import Answer, StepAnswer
    from oracles.rules import our_answer
    from .request_helpers import judge_request, named

    def edited(req, edit):  # the request with ``edit(inputs)`` applied to each step's inputs
        return dc_replace(req, steps=tuple(dc_replace(st, inputs=edit(copy.deepcopy(st.inputs))) for st in req.steps))

    def roll_missed(by):  # a sweep that missed ``by`` radians of its profile's roll
        def edit(inp):
            if "profile" in inp.get("request", {}):
                inp["request"]["profile"] = _rolled(inp["request"], -by)["profile"]
            return inp
        return lambda req: edited(req, edit)

    def coarse(req):  # a surface mesh built for 4 times the request's PositionError
        def edit(inp):
            if "position_error" in inp and "precision" in inp:
                inp["position_error"] = enc(4 * dec(inp["position_error"]))
            return inp
        return edited(req, edit)

    def states_the_request(ans, req, row):  # ... its claims stating the call's inputs where they state them
        from oracles.given import step_parameters

        params = step_parameters(req)
        steps = []
        for k, st in enumerate(ans.steps):
            def fix(c, p=params[k]):
                inputs = {n: (p[n] if n in p else v) for n, v in c.inputs.items()}
                if isinstance(inputs.get("profile"), dict):
                    inputs["profile"] = {f: p.get(f, v) for f, v in inputs["profile"].items()}
                return dc_replace(c, inputs=inputs)
            steps.append(StepAnswer(st.status, tuple(fix(c) if c.row == row else c for c in st.claims), st.output))
        return Answer(ans.request, tuple(steps), ans.label, ans.decisions)

    def ring_roll(c):  # a loop ribbon swept without 0.1 rad of its roll, without DistanceError
        return dc_replace(c, inputs=_without(c.inputs, "distance_error"))

    def wide_estimate(c):  # half a radian of roll hidden under A = 1 rad, without TangentAngleError
        inputs = {**_without(c.inputs, "tangent_angle_error"), "angular_error_estimate": enc(1.0)}
        return dc_replace(c, inputs=inputs)

    def wide_total(c):  # TotalEstimate's interval four DistanceErrors wider on each side, without it
        E, inputs = dec(c.inputs["distance_error"]), _without(c.inputs, "distance_error")
        inputs.update(lower=enc(dec(inputs["lower"]) - 4 * E), upper=enc(dec(inputs["upper"]) + 4 * E))
        return dc_replace(c, inputs=inputs)

    def not_within(c):  # a mesh within its PositionError claimed outside it, without the error
        return dc_replace(c, value={**c.value, "is_within_position_error": False},
                          inputs=_without(c.inputs, "position_error", "accepts_coarser"))

    def no_profile(c):  # the coarse mesh, without the profile that holds its levels to the rule
        return dc_replace(c, inputs=_without(c.inputs, "profile"))

    # (family, request, row, mistake, rule, the request the implementation really answered)
    same = lambda req: req
    cases = (("sweep", "closed loop ribbon with rolls", "sweep.error_estimates", ring_roll, "sweep:ring_points",
              roll_missed(0.1)),
             ("sweep", "S-curve tube", "sweep.error_estimates", wide_estimate, "sweep:frames_estimate",
              roll_missed(0.5)),
             ("distance", "powers of two", "distance.estimates", wide_total, "distance:estimate_width", same),
             ("tessellation", "bilinear twisted patch", "tessellation.position_bound", not_within,
              "tessellation:within_position_error", same),
             ("tessellation", "spec two-patch reversed join", "tessellation.shared_positions", no_profile,
              "tessellation:refinement", coarse))
    for fam_name, name, row, change, rule, answered in cases:
        fam = family_named(fam_name)
        req = named(fam.requests(1, fam.default_cases), name)
        ans = states_the_request(our_answer(fam.answer(answered(req))), req, row)
        pick = (lambda c: c.inputs.get("what") == "TotalEstimate") if row == "distance.estimates" else (lambda c: True)
        bad = _with_claim(ans, row, change, pick)
        planted = [c for st in bad.steps for c in st.claims if c.row == row and pick(c)]
        assert planted and all(check_claim(c).kind is VerdictKind.Verified for c in planted), name
        verdicts, _ = judge_request(req, bad)
        mine = [v for v in verdicts if v.claim.row == row and pick(v.claim)]
        assert len(mine) == len(planted) and all(v.kind is VerdictKind.Violated and v.rule == rule
                                                 for v in mine), (name, [(v.kind, v.rule) for v in mine])
        # the claims an answer exports (``claims``) carry the request's inputs too, so checking
        # them alone gives the ledger's verdicts
        exported = [c for c in answer_claims(req, bad) if c.row == row and pick(c)]
        assert [check_claim(c).rule for c in exported] == [rule] * len(planted)


def test_a_point_other_than_the_step_names_is_violated_when_its_request_is_left_out():
    """A path evaluation claim may state the evaluated point (controls and u) without the
    ``request`` object that names it; in an answer that object is the step's call (span, u,
    policy, side, the path's closedness, and the prepared path the narrowing rule fixes), so
    the point is judged against the one the call names. Before 2026-12-06 an evaluation at the
    joint (1, 0) with side Incoming, answered at the outgoing span's start (the same position,
    but not the point the spec's SpanSide names), was Verified when its request was left out;
    and a surface claim on another patch than its step's was Verified, since any patch of the
    source matched."""
    from oracles.batch import check_claim
    from oracles.families import family_named
    from oracles.rules import our_answer
    from .request_helpers import judge_request, named

    paths = family_named("path")
    req = named(paths.requests(1, 40), "large origin 1e7")
    k = next(i for i, st in enumerate(req.steps) if st.op == "TryEvaluatePath" and st.inputs["side"] == "Incoming"
             and st.inputs["span"] == 1 and float.fromhex(st.inputs["u"]) == 0.0)
    ans = our_answer(paths.answer(req))
    c = next(c for c in ans.steps[k].claims if c.row == "path.interior_positions")
    assert c.inputs["request"]["span"] == 1 and float.fromhex(c.inputs["u"]) == 1.0  # (0, 1): the incoming span
    outgoing = Claim(c.row, c.guarantee, c.value,
                     {"controls": copy.deepcopy(c.inputs["request"]["path"][1]), "u": enc(0.0)}, c.model, c.id,
                     c.decisions)
    assert check_claim(outgoing).kind is VerdictKind.Verified  # alone, the point it states is right
    steps = list(ans.steps)
    steps[k] = StepAnswer(steps[k].status, tuple(outgoing if x is c else x for x in steps[k].claims), steps[k].output)
    verdicts, _ = judge_request(req, Answer(ans.request, tuple(steps), ans.label, ans.decisions))
    v = next(v for v in verdicts if v.claim.inputs.get("controls") is outgoing.inputs["controls"])
    assert "request" in v.claim.inputs  # completed from the step
    assert v.kind is VerdictKind.Violated and v.rule.startswith("path:"), v.witness

    surfaces = family_named("surface")
    sreq = next(r for r in surfaces.requests(1, 40) if any(
        st.op == "TryEvaluateSurface" and st.inputs["patch"] == 0 for st in r.steps) and any(
        len(st.inputs.get("patches", ())) > 1 for st in r.steps))
    sans = our_answer(surfaces.answer(sreq))
    j = next(i for i, st in enumerate(sreq.steps) if st.op == "TryEvaluateSurface" and st.inputs["patch"] == 0)
    assert sans.steps[j].claims and all(check_claim(x).kind is VerdictKind.Verified for x in sans.steps[j].claims)
    asked = dc_replace(sreq, steps=tuple(dc_replace(st, inputs={**st.inputs, "patch": 1}) if i == j else st
                                         for i, st in enumerate(sreq.steps)))  # the call named patch 1
    verdicts, _ = judge_request(asked, sans)
    mine = [v for v in verdicts if v.claim in sans.steps[j].claims]
    assert mine and all(v.kind is VerdictKind.Violated and v.rule == "claim:prepared_controls" for v in mine)


def test_a_build_s_estimate_cannot_take_the_form_of_try_bound_distance_s():
    """docs/decisions.md 'Answers: Given inputs are the request's': an estimate's ``what`` names
    the operation that made it, and only TryBoundDistance makes a DistanceBound.Estimate, the one
    form whose interval no width rule bounds. Before 2026-12-06 a map build's stored prefix
    estimate with an interval eight DistanceErrors wide, stated as a DistanceBound.Estimate, was
    Verified; it is Violated now, and the same claim in a TryBoundDistance step is not refused
    for its form."""
    from oracles.batch import check_claim
    from oracles.families import family_named
    from oracles.given import given_mismatch, step_parameters
    from .request_helpers import named

    fam = family_named("distance")
    req = named(fam.requests(1, fam.default_cases), "powers of two")
    params = step_parameters(req)
    k, c = next((k, c) for k, st in enumerate(fam.answer(req).steps) for c in st.claims
                if c.row == "distance.estimates" and c.inputs["what"] == "PrefixEstimate")
    assert req.steps[k].op == "TryBuildDistanceMap" and given_mismatch(params[k], c) is None
    E = dec(c.inputs["distance_error"])
    wide = {**c.inputs, "lower": enc(dec(c.inputs["lower"]) - 4 * E), "upper": enc(dec(c.inputs["upper"]) + 4 * E)}
    assert check_claim(Claim(c.row, c.guarantee, c.value, wide, c.model)).rule == "distance:estimate_width"
    bound = Claim(c.row, c.guarantee, c.value, {**wide, "what": "DistanceBound.Estimate"}, c.model)
    assert check_claim(bound).kind is VerdictKind.Verified  # alone: no width rule for that form
    v = given_mismatch(params[k], bound)
    assert v is not None and v.rule == "claim:given_inputs" and v.witness["step"] == "TryBuildDistanceMap"
    assert given_mismatch({"step.op": "TryBoundDistance"}, bound) is None


def _nudged(x):
    """``x`` changed by the least step its type has: a boolean flipped, an integer + 1, a number
    to the next float64 up (+0 to -0), a name respelled, a list's first item nudged."""
    import math

    from oracles.model import NumberError, parse_number

    if isinstance(x, bool):
        return not x
    if isinstance(x, int):
        return x + 1
    if isinstance(x, list):
        return [_nudged(x[0]), *x[1:]]
    try:
        v = float(parse_number(x))
    except (NumberError, ValueError, TypeError):
        return x + "X"
    return enc(-0.0) if v == 0 and math.copysign(1, v) > 0 else enc(math.nextafter(v, math.inf))


def test_every_given_input_a_request_sets_is_compared_with_it():
    """docs/decisions.md 'Answers: Given inputs are the request's': each Given input of our
    answers' claims that names a parameter of its step (tolerances, policies, the source's
    origin and closedness, a mesh's vertices, a query's point, segment, count or time, a sweep's
    profile, a frame seed's SeedUp, a surface mesh's profile fields), nudged by the least step
    of its type, is Violated by claim:given_inputs; so is each field of a path claim's
    ``request`` (the evaluation request exactly as made) against its step's arguments, and a
    distance or track query's target, policy and side, and a frame build's MaxDepth (its
    preparation's, not the path's or the map's limit of the same name). Before 2026-12-06 only scalar tolerances
    and policies were compared, so a claim about another query point, another segment, another
    parameter or a mesh with one vertex moved by an ulp was judged on what it stated."""
    from oracles.given import _given_items, _parameter_key, given_mismatch, step_parameters
    from oracles.families import families

    seen: set = set()
    for fam in families():
        if not fam.answers_requests:
            continue
        for req in fam.requests(1, 12 if fam.name != "path" else 40):
            params = step_parameters(req)
            for k, st in enumerate(fam.answer(req).steps):
                for c in st.claims:
                    assert given_mismatch(params[k], c) is None
                    for label, name, v in _given_items(c.inputs):
                        if _parameter_key(c.row, label, name, params[k]) not in params[k] or (c.row, label) in seen:
                            continue
                        seen.add((c.row, label))
                        top, _, field = label.partition(".")
                        inputs = dict(c.inputs)
                        inputs[top] = {**inputs[top], field: _nudged(v)} if field else _nudged(v)
                        bad = given_mismatch(params[k], Claim(c.row, c.guarantee, c.value, inputs, c.model))
                        assert bad is not None and bad.rule == "claim:given_inputs" and \
                            bad.witness["input"] == label, (c.row, label)
    labels = {label for _, label in seen}
    assert {"point", "query", "start", "end", "time", "origin", "vertices", "positions", "profile", "keys",
            "seed.seed_up", "profile.position_error", "closed", "is_closed", "request.u", "request.span",
            "request.policy", "request.side", "policy", "side"} <= labels, sorted(labels)
    assert {("distance.inversion_residual", "query"), ("distance.inversion_residual", "policy"),
            ("frame.regularity", "max_depth"), ("surface.evaluation", "u"), ("surface.evaluation", "v"),
            ("path.conversions", "kind"), ("path.conversions", "tangents"), ("path.conversions", "widths"),
            ("surface.evaluation", "kind")} <= seen


def _same(a, b) -> bool:
    return Fraction(float.fromhex(a)) == Fraction(float.fromhex(b))


def test_inputs_are_taken_from_the_request_only_where_the_row_allows_them():
    """Only optional inputs of the claim's own form are taken from the request: a required
    Given input left out stays malformed, an input named otherwise than the request's
    parameter (a sweep's ``closed``, the path's ``is_closed``) is compared with it, and a name
    the request sets to two values is taken from nowhere."""
    from oracles.batch import MALFORMED_ERRORS, check_claim
    from oracles.given import given_mismatch, request_parameters, step_parameters, with_request_inputs
    from oracles.families import family_named
    from .request_helpers import named

    fam = family_named("sweep")
    req = named(fam.requests(1, fam.default_cases), "closed loop tube")
    params = request_parameters(req)
    assert params["is_closed"] is True and "distance_error" in params
    c = next(c for c in fam.claims(req) if c.row == "sweep.error_estimates")
    bare = Claim(c.row, c.guarantee, c.value, _without(c.inputs, "distance_error"), c.model)
    filled = with_request_inputs(params, bare)
    assert filled.inputs == c.inputs and filled.inputs["distance_error"] == params["distance_error"]
    short = Claim(c.row, c.guarantee, c.value, _without(c.inputs, "winding_turns"), c.model)
    assert with_request_inputs(params, short) is short  # required: malformed, not completed
    with pytest.raises(MALFORMED_ERRORS):
        check_claim(short)
    assert with_request_inputs(params, c) is c  # a claim stating them all is left as it is
    flipped = Claim(c.row, c.guarantee, c.value, {**c.inputs, "closed": False}, c.model)
    v = given_mismatch(params, flipped)
    assert v is not None and v.rule == "claim:given_inputs" and v.witness["input"] == "closed"
    assert with_request_inputs(_without(params, "distance_error"), bare).inputs.keys() == bare.inputs.keys()
    # a surface mesh's position_error is SurfaceMeshProfile's, not the ToleranceProfile's of the
    # same name that TryPrepareSurface takes: the build step's own inputs name it
    tess = family_named("tessellation")
    t = named(tess.requests(1, tess.default_cases), "bilinear twisted patch")
    build = next(st for st in t.steps if st.op == "TryBuildSurfaceMesh")
    tol = next(st for st in t.steps if st.op == "TryPrepareSurface").inputs["tolerance"]
    assert not _same(tol["position_error"], build.inputs["position_error"])
    assert "position_error" not in request_parameters(t)
    # an optional object input is completed only when the request sets all its required fields:
    # a frame seed's axis and is_fallback are the implementation's, so no seed is made up
    frames = family_named("frame")
    fr = named(frames.requests(1, frames.default_cases), "helix by cubics")
    fp = step_parameters(fr)
    vec = next((k, c) for k, st in enumerate(frames.answer(fr).steps) for c in st.claims
               if c.row == "frame.vectors" and "seed" in c.inputs)
    unseeded = Claim(vec[1].row, vec[1].guarantee, vec[1].value, _without(vec[1].inputs, "seed"), vec[1].model)
    assert "seed_up" in fp[vec[0]] and with_request_inputs(fp[vec[0]], unseeded) is unseeded
    assert step_parameters(t)[t.steps.index(build)]["position_error"] == build.inputs["position_error"]


def test_request_parameters_are_the_names_set_to_one_value():
    """A name the request sets to two values (a rebuild with another tolerance) says nothing
    about a claim and is left out; numbers compare by value, whatever their spelling."""
    from oracles.given import request_parameters

    def req(*inputs):
        return Request("path/0", "path", "two builds", tuple(Step("TryPreparePath", i, Expect("success"), ())
                                                             for i in inputs))

    r = req({"tolerance": {"distance_error": "0x1p-10", "tangent_angle_error": "0x1p-20"}, "span": 3},
            {"tolerance": {"distance_error": 0.0009765625, "tangent_angle_error": "0x1p-19"}})
    assert request_parameters(r) == {"distance_error": "0x1p-10"}  # span is not a copied parameter


def test_parameters_compare_by_exact_value_item_by_item_with_signed_zeros_apart():
    """docs/decisions.md 'Answers: Given inputs are the request's': numbers by exact value
    whatever their spelling, lists item by item, and -0 apart from +0 (a convex partition's
    output is bitwise its source, so a source zero's sign is part of the call)."""
    from oracles.given import _same_parameter as same

    assert same(1, "0x1.0000000000000p+0") and same("1/1024", "0x1p-10") and same([0.5, "1/4"], ["0x1p-1", 0.25])
    assert not same("-0x0.0p+0", "0x0.0p+0") and not same(-0.0, 0.0) and not same([-0.0], [0.0])
    assert same([-0.0], ["-0x0.0p+0"]) and same([[1, 2]], [[1.0, "2"]]) and not same([1, 2], [1, 2, 3])
    assert not same(True, 1) and same("Clamp", "Clamp") and not same("Clamp", "Wrap")


def test_a_claim_on_other_prepared_controls_than_the_request_s_is_violated():
    """spec 002 Precision: preparation subtracts the chunk origin in float64, then narrows to
    float32. A claim's prepared controls (Yours) are therefore the request's source narrowed:
    an implementation that narrowed another curve (a wrong origin, say) made claims that were
    consistent with the curve they state, and Verified, before 2026-12-06. One float32 step
    on one control of the whole path, or of a single span's controls, is Violated now."""
    import numpy as np

    from oracles.given import request_controls
    from oracles.families import frame as F
    from oracles.model import dec, enc
    from oracles.rules import our_answer
    from .request_helpers import judge_request, named

    reqs = F.FAMILY.requests(1, F.FAMILY.default_cases)
    req = named(reqs, "helix by cubics")
    P = request_controls(req)
    assert P is not None and P.values.shape[1:] == (4, 3)
    ans = our_answer(F.FAMILY.answer(req))

    def nudge(i):
        c = [[[x for x in pt] for pt in sp] for sp in i["controls"]] if np.ndim(i["controls"]) == 3 else \
            [[[x for x in pt] for pt in i["controls"]]]
        c[0][1][2] = enc(float(np.nextafter(np.float32(dec(c[0][1][2])), np.float32(np.inf))))
        return {**i, "controls": c if np.ndim(i["controls"]) == 3 else c[0]}

    for row in ("frame.angular_error_estimate", "frame.regularity"):  # the whole path; one span
        verdicts, _ = judge_request(req, _with_claim_inputs(ans, row, nudge))
        mine = [v for v in verdicts if v.claim.row == row]
        assert mine and all(v.kind is VerdictKind.Violated and v.rule == "claim:prepared_controls"
                            for v in mine), row
    # the path rows' request form states the prepared path it ran on as request.path
    from oracles.families import family_named

    paths = family_named("path")
    preq = next(r for r in paths.requests(1, 40) for st in paths.answer(r).steps for c in st.claims
                if c.row == "path.interior_positions" and "request" in c.inputs)
    pans = our_answer(paths.answer(preq))

    def nudge_request_path(i):
        if "request" not in i:
            return i
        return {**i, "request": {**i["request"], "path": nudge({"controls": i["request"]["path"]})["controls"]}}

    verdicts, _ = judge_request(preq, _with_claim_inputs(pans, "path.interior_positions", nudge_request_path))
    mine = [v for v in verdicts if v.claim.row == "path.interior_positions" and "request" in v.claim.inputs]
    assert mine and all(v.kind is VerdictKind.Violated and v.rule == "claim:prepared_controls" for v in mine)


def test_a_claim_on_another_source_than_the_request_s_is_violated():
    """A claim's Given ``source`` (float64 controls as given: the whole path or surface, one
    span, or a span's first and last controls) and a surface's patch ``ids`` and ``joins`` are
    the request's. The path rows that check narrowing (stored endpoints, control boxes, the
    position floor) hold no prepared controls to compare, so before 2026-12-06 a claim that
    stated another source, consistent with its values, was Verified. One step of the least
    kind on each (a float64 ulp, an id + 1, a join's direction flipped) is Violated now."""
    from oracles.given import given_mismatch, request_controls, step_parameters
    from oracles.families import family_named
    from .request_helpers import named

    checked = set()
    for fam_name, name in (("path", "large origin 1e7"), ("surface", "")):
        fam = family_named(fam_name)
        req = named(fam.requests(1, 40), name)
        src, params = request_controls(req), step_parameters(req)
        assert src is not None and src.source.shape[0] >= 1
        for k, st in enumerate(fam.answer(req).steps):
            for c in st.claims:
                for field in ("source", "ids", "joins"):
                    if field not in c.inputs or (c.row, field) in checked or (field == "joins" and not c.inputs[field]):
                        continue
                    checked.add((c.row, field))
                    assert given_mismatch(params[k], c, src) is None
                    value = c.inputs[field]
                    if field == "joins":
                        changed = [[*value[0][:4], not value[0][4]], *value[1:]]
                    elif field == "ids":
                        changed = [value[0] + 1, *value[1:]]
                    else:
                        flat = json.loads(json.dumps(value))
                        item = flat
                        while isinstance(item[0], list):
                            item = item[0]
                        item[0] = enc(float(np.nextafter(dec(item[0]), np.inf)))
                        changed = flat
                    v = given_mismatch(params[k], Claim(c.row, c.guarantee, c.value, {**c.inputs, field: changed},
                                                        c.model), src)
                    assert v is not None and v.rule == "claim:given_inputs" and v.witness["input"] == field, \
                        (c.row, field)
    assert {("path.stored_endpoints", "source"), ("path.control_boxes", "source"), ("path.position_floor", "source"),
            ("surface.shared_edges", "ids"), ("surface.shared_edges", "joins"),
            ("surface.shared_edges", "source")} <= checked, sorted(checked)


def test_a_surface_claim_on_another_patch_than_the_request_s_is_violated():
    """The surface rows' patch controls likewise ('TryPrepareSurface narrows controls as
    TryPreparePath does'): one float32 step on one control of an evaluated patch is Violated."""
    import numpy as np

    from oracles.given import request_controls
    from oracles.families import families
    from oracles.model import dec, enc
    from oracles.rules import our_answer
    from .request_helpers import judge_request

    fam = next(f for f in families() if f.name == "surface")
    req = fam.requests(1, 5)[1]
    P = request_controls(req)
    assert P is not None and P.values.shape[1:] == (4, 4, 3)
    ans = our_answer(fam.answer(req))

    def nudge(i):
        if "controls" not in i:
            return i
        c = json.loads(json.dumps(i["controls"]))
        c[0][0][0] = enc(float(np.nextafter(np.float32(dec(c[0][0][0])), np.float32(np.inf))))
        return {**i, "controls": c}

    verdicts, _ = judge_request(req, ans)
    row = "surface.evaluation"
    assert [v for v in verdicts if v.claim.row == row and "controls" in v.claim.inputs]
    verdicts, _ = judge_request(req, _with_claim_inputs(ans, row, nudge))
    mine = [v for v in verdicts if v.claim.row == row and "controls" in v.claim.inputs]
    assert mine and all(v.kind is VerdictKind.Violated and v.rule == "claim:prepared_controls" for v in mine)


def _joint_evaluations(req):
    """``(incoming, outgoing)`` step indices of two TryEvaluateFrame steps naming the same interior
    joint as ``(span k >= 1, u = 0)``, one with each side."""
    ev = [(i, st.inputs) for i, st in enumerate(req.steps) if st.op == "TryEvaluateFrame"
          and "path_revision" not in st.inputs and isinstance(st.inputs["u"], str) and dec(st.inputs["u"]) == 0.0
          and st.inputs["span"] >= 1]
    for i, a in ev:
        for j, b in ev:
            if a["side"] == "Incoming" and b["side"] == "Outgoing" and a["span"] == b["span"]:
                return i, j
    return None


def test_a_frame_evaluated_at_another_point_than_its_step_names_is_violated():
    """A frame.vectors claim names its point (the evaluated span's controls and its u "after span
    sides resolve"); in an answer that point is the one its TryEvaluateFrame step's span, u and
    side name (spec 002 Span sides: "SpanSide::Incoming selects the previous span at u = 1"), so
    rule frame:evaluated_point refutes a frame of another point even when the frame is right for
    the point it names. Before 2026-12-06 both plants below were Verified: the claims of the two
    sides of a joint swapped (an implementation that ignores SpanSide answers the outgoing frame
    to an incoming call), and a claim whose u is one float64 step off its call's."""
    from oracles.batch import check_claim
    from oracles.families import family_named
    from oracles.rules import our_answer
    from .request_helpers import judge_request

    frames = family_named("frame")
    req = next(r for r in frames.requests(1, 40) if _joint_evaluations(r) is not None)
    i, o = _joint_evaluations(req)
    ans = our_answer(frames.answer(req))
    verdicts, _ = judge_request(req, ans)
    assert verdicts and all(v.kind is VerdictKind.Verified for v in verdicts)
    (ci,) = [c for c in ans.steps[i].claims if c.row == "frame.vectors"]
    (co,) = [c for c in ans.steps[o].claims if c.row == "frame.vectors"]
    k = req.steps[i].inputs["span"]
    assert dec(ci.inputs["u"]) == 1.0 and dec(co.inputs["u"]) == 0.0  # (k - 1, 1) and (k, 0)
    assert ci.inputs["controls"] != co.inputs["controls"]

    def judged(swapped):
        steps = [StepAnswer(st.status, tuple(swapped.get(id(c), c) for c in st.claims), st.output)
                 for st in ans.steps]
        return judge_request(req, Answer(ans.request, tuple(steps), ans.label, ans.decisions))[0]

    # the sides swapped: each claim alone is a right frame of the point it names
    assert check_claim(ci).kind is VerdictKind.Verified and check_claim(co).kind is VerdictKind.Verified
    got = judged({id(ci): co, id(co): ci})
    mine = [v for v in got if v.claim.row == "frame.vectors" and v.kind is not VerdictKind.Verified]
    assert len(mine) == 2 and all(v.kind is VerdictKind.Violated and v.rule == "frame:evaluated_point"
                                  for v in mine), [(v.kind, v.rule, v.witness) for v in mine]
    assert {v.witness["span"] for v in mine} == {k - 1, k}

    # u one float64 step into the span: the frame there is within its bound, the point is not the call's
    nudged = dc_replace(co, inputs={**co.inputs, "u": enc(float(np.nextafter(0.0, 1.0)))})
    assert check_claim(nudged).kind is VerdictKind.Verified
    got = judged({id(co): nudged})
    v = next(v for v in got if v.claim.row == "frame.vectors" and v.claim.inputs["u"] == nudged.inputs["u"])
    assert v.kind is VerdictKind.Violated and v.rule == "frame:evaluated_point" and v.witness["input"] == "u"
    assert [w for w in got if w.kind is not VerdictKind.Verified] == [v]


def _rolled_frame(v: dict, by: float) -> dict:
    """A frame value or output with its normal (and binormal) turned by ``by`` about its tangent."""
    if not isinstance(v, dict) or "normal" not in v:
        return v
    t, n, b = (np.array([dec(x) for x in v[f]]) for f in ("tangent", "normal", "binormal"))
    n2 = np.cos(by) * n + np.sin(by) * b
    return {**v, "normal": [enc(float(x)) for x in n2], "binormal": [enc(float(x)) for x in np.cross(t, n2)]}


def test_a_build_s_evaluated_frames_are_the_frames_its_evaluations_returned():
    """The TryEvaluateFrame normal is judged against the true frame (rolled, twisted) only through
    the build's frame.angular_error_estimate claim, which lists the evaluations made on its frames
    (``evaluations``, Given) and their normals (``value.evaluated``). In an answer both are the
    later calls answered Success on those frames and what they returned (rule frame:evaluations):
    left out, they are taken from those calls; stated otherwise, the claim is Violated. Before
    2026-12-06 an answer whose every evaluation turned its normal 0.3 rad too far was Verified
    but at a run's seed when its build claim left the two lists out, and whatever it returned when
    the lists held other normals than the calls'."""
    from collections import Counter

    from oracles.families import family_named
    from oracles.rules import our_answer
    from .request_helpers import judge_request

    frames = family_named("frame")
    req = frames.requests(1, 40)[0]
    ans = our_answer(frames.answer(req))
    (b,) = [k for k, st in enumerate(req.steps) if st.op == "TryBuildFrames"]
    (angular,) = [c for c in ans.steps[b].claims if c.row == "frame.angular_error_estimate"]
    evaluated = [k for k, st in enumerate(req.steps)
                 if st.op == "TryEvaluateFrame" and ans.steps[k].status == "Success"]
    assert len(angular.inputs["evaluations"]) == len(evaluated) >= 10

    def answered(change_angular, turn=0.0):
        steps = [StepAnswer(st.status, tuple(change_angular(c) if c.row == "frame.angular_error_estimate" else
                                             dc_replace(c, value=_rolled_frame(c.value, turn)) if turn else c
                                             for c in st.claims), _rolled_frame(st.output, turn) if turn else st.output)
                 for st in ans.steps]
        got = Answer(ans.request, tuple(steps), ans.label, ans.decisions)
        verdicts, _ = judge_request(req, got)
        return got, Counter((v.claim.row, v.kind.value, v.rule) for v in verdicts if v.kind is not VerdictKind.Verified)

    def without_lists(c):
        return dc_replace(c, inputs={k: v for k, v in c.inputs.items() if k != "evaluations"},
                          value={k: v for k, v in c.value.items() if k != "evaluated"})

    # an honest answer leaving both lists out: taken from its evaluations, the same lists, all Verified
    got, bad = answered(without_lists)
    assert bad == Counter()
    (completed,) = [c for c in answer_claims(req, got) if c.row == "frame.angular_error_estimate"]
    assert [[k, dec(u), dec(r)] for k, u, r in completed.inputs["evaluations"]] == \
        [[k, dec(u), dec(r)] for k, u, r in angular.inputs["evaluations"]]
    assert completed.value["evaluated"] == angular.value["evaluated"]

    # every evaluated normal 0.3 rad off: refuted against the true frame through the completed lists
    row = "frame.angular_error_estimate"
    _, bad = answered(without_lists, 0.3)
    assert bad[(row, "Violated", "frame:acceptance")] == 1, bad
    # ... and as a contradiction where the build's lists hold other normals than the calls returned
    _, bad = answered(lambda c: c, 0.3)
    assert bad[(row, "Violated", "frame:evaluations")] == 1, bad

    # an evaluation listed with another roll, or one left out of a stated list
    def other_roll(c):
        ev = copy.deepcopy(c.inputs["evaluations"])
        ev[3][2] = enc(dec(ev[3][2]) + 0.5)
        return dc_replace(c, inputs={**c.inputs, "evaluations": ev})

    for change in (other_roll, lambda c: dc_replace(c, inputs={**c.inputs, "evaluations": c.inputs["evaluations"][:-1]},
                                                     value={**c.value, "evaluated": c.value["evaluated"][:-1]})):
        _, bad = answered(change)
        assert bad == Counter({(row, "Violated", "frame:evaluations"): 1}), bad


def test_a_frame_s_ranges_are_the_ranges_its_frames_report():
    """A frame.vectors claim's ``ranges`` (Yours: the singular ranges the frames report whose
    closure holds u) decide its singular-range rule (spec 002: "TryEvaluateFrame returns
    Degenerate inside it"). In an answer they are the ranges the build's output reports there
    (rule frame:reported_ranges), and are taken from it when left out. Before 2026-12-06 an
    answer whose frames reported a range and which returned a frame strictly inside it was
    Verified when its claim left the ranges out (or stated none), and a Degenerate answer where
    the request allows either was Verified with a range the frames never reported."""
    from collections import Counter

    from oracles.families import family_named
    from oracles.rules import our_answer
    from .request_helpers import judge_request

    frames = family_named("frame")
    req = frames.requests(1, 40)[0]
    ans = our_answer(frames.answer(req))
    (b,) = [k for k, st in enumerate(req.steps) if st.op == "TryBuildFrames"]
    assert ans.steps[b].output["ranges"] == []
    k = next(i for i, st in enumerate(req.steps) if st.op == "TryEvaluateFrame" and ans.steps[i].status == "Success"
             and 0.0 < dec(st.inputs["u"]) < 1.0 and st.inputs["side"] == "Outgoing")
    span, u = req.steps[k].inputs["span"], dec(req.steps[k].inputs["u"])
    (c,) = [x for x in ans.steps[k].claims if x.row == "frame.vectors"]
    assert c.inputs["ranges"] == []

    def judged(steps):
        verdicts, _ = judge_request(req, Answer(ans.request, tuple(steps), ans.label, ans.decisions))
        return Counter((v.claim.row, v.kind.value, v.rule) for v in verdicts if v.kind is not VerdictKind.Verified)

    # the frames report a range strictly around u (the build's output), yet the call returned a frame
    steps = list(ans.steps)
    steps[b] = StepAnswer(steps[b].status, steps[b].claims, {
        **steps[b].output, "ranges": [[span, enc(u / 2), enc((u + 1) / 2), False]]})
    for stated in ("left out", "none"):
        claim = dc_replace(c, inputs={n: v for n, v in c.inputs.items() if n != "ranges" or stated == "none"})
        steps[k] = StepAnswer(steps[k].status, tuple(claim if x is c else x for x in ans.steps[k].claims),
                              steps[k].output)
        bad = judged(steps)
        rule = "frame:singular_ranges" if stated == "left out" else "frame:reported_ranges"
        row = ("frame.vectors", "Violated", rule)
        assert bad == Counter({row: 1}), (stated, bad)

    # Degenerate where the request allows it (near a cusp) but the frames report no range holding
    # the point, excused by a range the claim makes up
    found = 0
    for req in frames.requests(1, 40):
        ans = our_answer(frames.answer(req))
        for i, st in enumerate(req.steps):
            if not (st.op == "TryEvaluateFrame" and st.expect.allows("Success") and st.expect.allows("Degenerate")
                    and ans.steps[i].status == "Success"):
                continue
            (f,) = [x for x in ans.steps[i].claims if x.row == "frame.vectors"]
            uu = dec(f.inputs["u"])
            if f.inputs["ranges"] or not 0.0 < uu < 1.0:
                continue
            made_up = dc_replace(f, value={"status": "Degenerate"},
                                 inputs={**f.inputs, "ranges": [[enc(uu / 2), enc((uu + 1) / 2)]]})
            # the build's list of evaluations left out, so that it is the calls answered Success
            steps = [StepAnswer(s.status, tuple(dc_replace(x, inputs={n: v for n, v in x.inputs.items()
                                                                       if n != "evaluations"},
                                                           value={n: v for n, v in x.value.items() if n != "evaluated"})
                                                if x.row == "frame.angular_error_estimate" else x for x in s.claims),
                                s.output) for s in ans.steps]
            assert judged(steps) == Counter()
            steps[i] = StepAnswer("Degenerate", (made_up,), {"status": "Degenerate"})
            assert judged(steps) == Counter({("frame.vectors", "Violated", "frame:reported_ranges"): 1})
            found += 1
    assert found >= 3
