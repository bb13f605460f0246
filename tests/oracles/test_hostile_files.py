"""Hostile files given to ``python -m oracles check``: each is refused or judged with the exit
status ``docs/casefile.md`` gives it, never a traceback read as a verdict.

Expected outcomes come from the exit-code rule (1: a claim Violated or a request unanswered;
2: malformed input; 4: a fault of the verification itself) and from the nesting limit of the
file formats (``oracles.casefile.MAX_DEPTH``, docs/decisions.md "Nesting depth of the file
formats"); the reproducers are those of the audit of hostile files."""

from __future__ import annotations

import copy
import json
import re
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from oracles.__main__ import main
from oracles.casefile import CaseFileError, parse_case_text
from oracles.request import RequestFileError, parse_json, read_requests

from .request_helpers import check_docs, request_and_answer_docs

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 64  # the documented nesting limit (docs/decisions.md), stated here, not read from the code


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small request set of one family and our answers to it (two one-step requests)."""
    return request_and_answer_docs(tmp_path_factory.mktemp("hostile"), "convex_polygon", 2)


def _check(tmp_path, requests_doc, answers_doc, *extra):
    return check_docs(tmp_path, requests_doc, answers_doc, *extra)[0]


def _nested(n: int):
    """A JSON value of ``n`` nested arrays (``[[...]]``), built without recursion."""
    x: list = []
    for _ in range(n - 1):
        x = [x]
    return x


# --- A. Nesting deeper than the formats need is malformed --------------------------------------


def test_an_answer_output_nested_500_deep_is_malformed(files, tmp_path, capsys):
    req, ans = files
    ans = copy.deepcopy(ans)
    ans["answers"][0]["steps"][0]["output"] = _nested(500)
    assert _check(tmp_path, req, ans) == 2
    err = capsys.readouterr().err
    assert "answers[0].steps[0].output" + "[0]" * (LIMIT - 5) + ": nested deeper than 64" in err


def test_request_inputs_nested_500_deep_are_malformed(files, tmp_path, capsys):
    req, ans = files
    req = copy.deepcopy(req)
    req["requests"][1]["steps"][0]["inputs"]["zz"] = _nested(500)
    assert _check(tmp_path, req, ans) == 2
    err = capsys.readouterr().err
    assert "requests[1].steps[0].inputs.zz" + "[0]" * (LIMIT - 6) + ": nested deeper than 64" in err


def test_a_rule_claim_value_nested_380_deep_is_malformed(tmp_path, capsys):
    claim = {"row": "convex_polygon.statuses", "guarantee": "Exact",
             "value": {"before": _nested(380), "after": _nested(380)},
             "inputs": {"request": "convex_polygon/00065", "rule": {"rule": "same_output", "before": 0, "after": 1}}}
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"format": "claims/1", "producer": "audit", "claims": [claim]}))
    assert main(["check", str(f), "--out", str(tmp_path / "out"), "--force"]) == 2
    err = capsys.readouterr().err
    assert "claims[0].value.before" + "[0]" * (LIMIT - 4) + ": nested deeper than 64" in err


def test_the_nesting_limit_is_64_levels_in_every_format():
    """The document itself is level 1: 64 levels are read, 65 refused, naming the first value
    (in document order) below level 64."""
    def claims(n):
        return json.dumps({"format": "claims/1", "claims": [{"a": 1}, _nested(n - 2), _nested(n - 2)]}).encode()

    parse_case_text(claims(LIMIT))  # read (its claims malformed, not the file)
    with pytest.raises(CaseFileError, match=re.escape("claims[1]" + "[0]" * (LIMIT - 2) + ": nested deeper")):
        parse_case_text(claims(LIMIT + 1))
    deep = {"format": "answers/1", "producer": "p", "answers": [{"request": "r", "steps": [], "x": _nested(LIMIT - 3)}]}
    assert parse_json(json.dumps(deep).encode(), "a.json") == deep
    deep["answers"][0]["x"] = [_nested(LIMIT - 3)]
    with pytest.raises(RequestFileError, match=re.escape("a.json: answers[0].x" + "[0]" * (LIMIT - 3) + ": nested")):
        parse_json(json.dumps(deep).encode(), "a.json")
    obj: dict = {}
    for _ in range(LIMIT):
        obj = {"k": obj}
    with pytest.raises(RequestFileError, match=re.escape("r.json: requests" + ".k" * (LIMIT - 1) + ": nested")):
        parse_json(json.dumps({"requests": obj}).encode(), "r.json")


# --- B. Requests the schema admits but that contradict themselves are malformed -----------------


_SPEC_RULE = "claim:guarantee_class"  # a rule of the spec, not a decision


@pytest.mark.parametrize("where, change", [
    ("requests[1].steps[0].expect", lambda r: r["steps"][0].update(expect={"class": "failure"})),
    ("requests[1].steps[0].expect", lambda r: r["steps"][0].update(
        expect={"class": "success", "statuses": ["InvalidArgument"]})),
    ("requests[1].steps[0].expect", lambda r: r["steps"][0].update(
        expect={"class": "failure", "statuses": ["InvalidArgument", "Success"]})),
    ("requests[1].steps[0].expect", lambda r: r["steps"][0].update(expect={
        "class": "success", "decision": "convex_polygon:status_names",
        "spec": {"class": "failure", "statuses": ["InvalidArgument"]}})),
    ("requests[1].steps[0].expect.spec", lambda r: r["steps"][0].update(expect={
        "class": "failure", "statuses": ["InvalidArgument"], "decision": "convex_polygon:status_names",
        "spec": {"class": "either"}})),
    ("requests[1].steps[0].expect.decision", lambda r: r["steps"][0].update(
        expect={"class": "success", "decision": "x", "spec": {"class": "success"}})),
    ("requests[1].steps[0].expect.decision", lambda r: r["steps"][0].update(
        expect={"class": "success", "decision": "no.such:rule", "spec": {"class": "success"}})),
    ("requests[1].steps[0].expect.decision", lambda r: r["steps"][0].update(
        expect={"class": "success", "decision": _SPEC_RULE, "spec": {"class": "success"}})),
    ("requests[1].rules[1]", lambda r: r.update(steps=[r["steps"][0]] * 2, rules=[
        {"rule": "same_output", "before": 0, "after": 1}, {"rule": "same_output", "before": 0, "after": 5}])),
    ("requests[1].rules[0]", lambda r: r.update(steps=[r["steps"][0]] * 2, rules=[
        {"rule": "same_output", "before": 1, "after": 1}])),
    ("requests[1].steps[0].rows[1]", lambda r: r["steps"][0].update(rows=["convex_polygon.partition", "x"])),
    ("requests[1].family", lambda r: r.update(family="nosuch")),
    ("requests[1].family", lambda r: r.update(family="no.such")),
], ids=["failure-without-statuses", "success-with-statuses", "failure-accepting-success",
        "spec-narrower-than-decision", "spec-inconsistent", "unknown-decision", "decision-of-no-family",
        "spec-rule-as-decision", "rule-step-out-of-range", "rule-out-of-order", "unknown-row",
        "unknown-family", "family-with-a-dot"])
def test_an_inconsistent_request_is_malformed_naming_its_field(files, tmp_path, capsys, where, change):
    req, ans = files
    req, ans = copy.deepcopy(req), copy.deepcopy(ans)
    change(req["requests"][1])
    ans.pop("families", None)  # every request in scope, the unknown family's too
    (tmp_path / "rq.json").write_text(json.dumps(req))
    with pytest.raises(RequestFileError, match=re.escape(f"rq.json: {where}: ")):
        read_requests(tmp_path / "rq.json")
    assert _check(tmp_path, req, ans) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'rq.json'}: {where}: " in err and "Traceback" not in err


def test_an_unknown_request_family_is_named_with_the_known_ones(files, tmp_path):
    req = copy.deepcopy(files[0])
    req["requests"][0]["family"] = "nosuch"
    (tmp_path / "rq.json").write_text(json.dumps(req))
    with pytest.raises(RequestFileError, match=r"requests\[0\]\.family: unknown family 'nosuch' \(one of .*path"):
        read_requests(tmp_path / "rq.json")


# --- C. An exception escaping the command is a fault of the verification (exit 4) ---------------


_PLANT = """
import argparse, runpy, sys


def planted(self, *a, **k):
    raise {exc}
argparse.ArgumentParser.parse_args = planted
sys.argv = ["oracles", "check", "x.json"]
runpy.run_module("oracles", run_name="__main__", alter_sys=True)
"""


def _run_planted(exc: str):
    return subprocess.run([sys.executable, "-c", _PLANT.format(exc=exc)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_an_escaping_exception_is_an_internal_fault_and_exit_4_and_ctrl_c_is_not():
    p = _run_planted('RuntimeError("planted fault\\nin two lines")')
    assert p.returncode == 4, p.stderr
    lines = p.stderr.splitlines()
    assert lines[0] == "error: internal fault: RuntimeError: planted fault in two lines"
    assert lines[1] == "Traceback (most recent call last):" and "RuntimeError: planted fault" in p.stderr
    p = _run_planted("KeyboardInterrupt()")  # Python's own behaviour: killed by SIGINT, no fault reported
    assert p.returncode == -signal.SIGINT and "KeyboardInterrupt" in p.stderr
    assert "internal fault" not in p.stderr


# --- D. The JUnit report is well-formed XML whatever the ids and messages hold ------------------


def test_junit_escapes_characters_xml_does_not_allow(tmp_path):
    f = tmp_path / "c.json"
    assert main(["claims", "--family", "convex_polygon", "--cases", "1", "--out", str(f)]) == 0
    doc = json.loads(f.read_text())
    good, bad = doc["claims"][0], copy.deepcopy(doc["claims"][0])
    good["id"] = "x\u0001y"
    bad["id"], bad["bogus"] = "\ud800", 1  # malformed (an unknown field), labeled by a lone surrogate
    doc["claims"] = [good, bad]
    f.write_text(json.dumps(doc))
    junit = tmp_path / "j.xml"
    assert main(["check", str(f), "--out", str(tmp_path / "out"), "--force", "--junit", str(junit)]) == 2
    root = ET.parse(junit).getroot()
    names = {tc.get("name") for tc in root.iter("testcase")}
    assert {"x\\u0001y", "\\ud800"} <= names


@pytest.mark.parametrize("fast", [True, False])
def test_depth_is_exact_with_and_without_the_fast_parse(monkeypatch, fast):
    """``loads_within_depth`` parses under a lowered recursion limit where the interpreter's
    parser honours it (CPython 3.11 does) and walks the document otherwise; either way a
    document of depth d is read as json.loads reads it and refused exactly when d > MAX_DEPTH,
    also with objects and a hook on the way down."""
    import oracles.casefile as CF

    if fast:
        assert CF._fast_parse_bounds_depth(), "this interpreter's JSON parser ignores the recursion limit"
    monkeypatch.setattr(CF, "_FAST", [fast])
    before = sys.getrecursionlimit()
    for d in (1, 2, 12, CF.MAX_DEPTH - CF._FAST_MARGIN, CF.MAX_DEPTH - 1, CF.MAX_DEPTH, CF.MAX_DEPTH + 1, 200):
        for text in ("[" * d + "]" * d, '{"a":' * (d - 1) + "[]" + "}" * (d - 1)):
            doc, deep = CF.loads_within_depth(text, object_pairs_hook=dict)
            assert doc == json.loads(text)
            assert (deep is None) == (d <= CF.MAX_DEPTH), (d, text[:8], deep)
    assert sys.getrecursionlimit() == before  # restored
