"""The independent C implementation in ``examples/c`` (``geomc``), built and judged by the oracle.

``geomc`` answers request files of the ``path`` and ``triangle`` families (spec 002 paths, spec
004 triangle surfaces) and declares them in its answer file. Here it is built with the machine's
C compiler, answers every named and status request of both families (``path`` requests 0-87,
``triangle`` requests 0-150: the named cases and every status contract), and ``check`` judges
the answers: every claim Verified, nothing unanswered, JUnit clean. Then each of its two planted
bugs (``--flip-rounding u``: paths evaluated at fl32(u); ``--flip-rounding t``: a hit's t stored
as float32) must be Violated, on exactly the claims the bug can affect, with a witness that the
bug explains: the expected values come from exact rational arithmetic (``fractions``) and from
geomc's own correct run, never from the oracle's code.

The walk-through in ``docs/integrating.md`` runs these same commands. Without a C compiler the
module skips, naming the reason (under ``CI=true`` it fails instead: CI has one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oracles.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "examples" / "c"
SOURCES = ("json.c", "triangle.c", "path.c", "main.c")  # the Makefile's SRC
CFLAGS = ("-std=c11", "-O2", "-Wall", "-Wextra", "-ffp-contract=off")  # the Makefile's CFLAGS
PATH_REQUESTS, TRIANGLE_REQUESTS = 88, 151  # the named cases and status contracts of each family
EVALUATION_ROWS = {"path.interior_positions", "path.derivatives", "path.tangents"}


@pytest.fixture(scope="module")
def geomc(tmp_path_factory) -> Path:
    cc = next((found for name in (os.environ.get("CC"), "cc", "gcc", "clang") if name
               for found in [shutil.which(name)] if found), None)
    if cc is None:
        reason = "no C compiler (CC, cc, gcc or clang) on PATH: examples/c/geomc is not built or judged"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("geomc") / "geomc"
    built = subprocess.run([cc, *CFLAGS, "-o", str(out), *SOURCES, "-lm"], cwd=SRC, capture_output=True, text=True)
    assert built.returncode == 0, f"examples/c does not build:\n{built.stderr}"
    return out


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """The request set: path requests 0-87 and triangle requests 0-150, in one requests/1 file."""
    d = tmp_path_factory.mktemp("c_example")
    parts = []
    for family, n in (("path", PATH_REQUESTS), ("triangle", TRIANGLE_REQUESTS)):
        assert main(["requests", "--family", family, "--cases", str(n), "--out", str(d / f"{family}.json")]) == 0
        parts.append(json.loads((d / f"{family}.json").read_text()))
    merged = {**parts[0], "corpus": {"path": PATH_REQUESTS, "triangle": TRIANGLE_REQUESTS},
              "requests": parts[0]["requests"] + parts[1]["requests"]}
    (d / "requests.json").write_text(json.dumps(merged))
    return d


def _run(geomc: Path, requests: Path, answers: Path, *extra: str) -> dict:
    done = subprocess.run([str(geomc), str(requests), "-o", str(answers), *extra], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(answers.read_text())


def _check(d: Path, name: str, answers: Path, requests: Path, *extra: str):
    """``check ANSWERS --requests REQUESTS``: (exit status, ledger.json, verdict lines, JUnit root)."""
    out, verdicts, junit = d / f"{name}-ledger", d / f"{name}.jsonl", d / f"{name}.xml"
    rc = main(["check", str(answers), "--requests", str(requests), "--out", str(out), "--verdicts", str(verdicts),
               "--junit", str(junit), "--force", *extra])
    lines = [json.loads(x) for x in verdicts.read_text().splitlines()]
    return rc, json.loads((out / "ledger.json").read_text()), lines, ET.parse(junit).getroot()


def _claims_by_id(answers: dict) -> dict:
    return {c["id"]: c for a in answers["answers"] for s in a["steps"] for c in s.get("claims", ())}


def _is_f32(x: float) -> bool:
    return float(np.float32(x)) == x


def _bezier(controls, u: Fraction) -> list:
    """The exact cubic Bernstein point of float32 controls at u (rationals)."""
    P = [[Fraction(float.fromhex(c)) for c in row] for row in controls]
    b = [(1 - u) ** 3, 3 * u * (1 - u) ** 2, 3 * u * u * (1 - u), u ** 3]
    return [sum(b[i] * P[i][a] for i in range(4)) for a in range(3)]


def test_geomc_answers_every_request_of_both_families_and_nothing_is_violated(geomc, work):
    req = work / "requests.json"
    answers = _run(geomc, req, work / "answers.json")
    n_requests = len(json.loads(req.read_text())["requests"])
    assert answers["families"] == ["path", "triangle"]
    assert len(answers["answers"]) == n_requests == PATH_REQUESTS + TRIANGLE_REQUESTS
    # --strict: an Undecided claim would exit 3, so exit 0 means every claim Verified.
    rc, ledger, lines, junit = _check(work, "clean", work / "answers.json", req, "--strict")
    assert rc == 0
    assert ledger["run"]["scope"] == ["path", "triangle"] and "not_covered" not in ledger["run"]
    rows = {r["id"]: r for r in ledger["rows"]}
    for fam in ("path", "triangle"):
        for r in (r for r in rows.values() if r["id"].startswith(fam + ".")):
            assert (r["violated"], r["undecided"], r["faults"], r["unanswered"]) == (0, 0, 0, 0), r["id"]
    # Every request answered and judged on its status row (one case per request).
    assert rows["path.statuses"]["cases"] == PATH_REQUESTS and rows["triangle.statuses"]["cases"] == TRIANGLE_REQUESTS
    # Every row geomc's ops speak to has evidence, not just the status rows.
    evidenced = {r for r in rows if rows[r]["claims"] > 0}
    assert evidenced >= {"path.stored_endpoints", "path.control_boxes", "path.position_floor", "path.conversions",
                         "path.continuity_values", *EVALUATION_ROWS, "triangle.first_hit", "triangle.barycentric",
                         "triangle.normal_facing", "triangle.ambiguity"}
    assert lines and all(v["verdict"] == "Verified" for v in lines)
    assert junit.get("failures") == "0" and junit.get("errors") == "0" and int(junit.get("tests")) > 1000


def test_planted_float32_parameter_is_violated_where_u_is_not_a_float32(geomc, work):
    """``--flip-rounding u``: B is evaluated at fl32(u) while the claim says u. Only the
    evaluation rows can be wrong, only where fl32(u) != u, and each violated position must be,
    within binary64 rounding, the exact point at fl32(u): the bug, not noise, explains it."""
    req = work / "requests.json"
    answers = _run(geomc, req, work / "bug_u.json", "--families", "path", "--flip-rounding", "u")
    assert answers["families"] == ["path"]
    rc, ledger, lines, junit = _check(work, "bug_u", work / "bug_u.json", req)
    assert rc == 1
    assert ledger["run"]["not_covered"] == {"triangle": TRIANGLE_REQUESTS}
    claims = _claims_by_id(answers)
    violated = [v for v in lines if v["verdict"] == "Violated"]
    assert violated and {v["row"] for v in violated} == EVALUATION_ROWS
    for v in lines:
        if v["row"] in EVALUATION_ROWS:
            u = claims[v["id"]]["inputs"].get("u")  # absent from a claimed status (no point)
            if u is None or _is_f32(float.fromhex(u)):
                assert v["verdict"] == "Verified", v["id"]
        else:
            assert v["verdict"] == "Verified", v["id"]
    positions = [v for v in violated if v["row"] == "path.interior_positions"]
    assert len(positions) >= 50
    for v in positions:
        c = claims[v["id"]]
        u = float.fromhex(c["inputs"]["u"])
        assert not _is_f32(u)
        at_fl32 = _bezier(c["inputs"]["controls"], Fraction(float(np.float32(u))))
        E = max(abs(Fraction(float.fromhex(x))) for row in c["inputs"]["controls"] for x in row)
        for got, want in zip(c["value"], at_fl32):
            assert abs(Fraction(float.fromhex(got)) - want) <= 16 * Fraction(2) ** -53 * E, v["id"]
        assert v["measured"] > 1 and set(v["witness"]) >= {"exact", "error", "bound"}
    # JUnit names the failing claim by geomc's own label.
    failed = {tc.get("name") for tc in junit.iter("testcase") if tc.find("failure") is not None}
    assert {v["id"] for v in violated} == failed


def test_planted_float32_hit_parameter_is_violated(geomc, work):
    """``--flip-rounding t``: a hit's t is stored as float32 after every decision was taken in
    binary64. Only ``triangle.first_hit`` can be wrong, only on hits whose correct t (geomc's
    own clean run) is not a float32, and the claimed t is exactly fl32 of the correct one."""
    req = work / "requests.json"
    clean = _claims_by_id(_run(geomc, req, work / "clean_t.json", "--families", "triangle"))
    answers = _run(geomc, req, work / "bug_t.json", "--families", "triangle", "--flip-rounding", "t")
    rc, ledger, lines, _ = _check(work, "bug_t", work / "bug_t.json", req)
    assert rc == 1
    assert ledger["run"]["not_covered"] == {"path": PATH_REQUESTS}
    claims = _claims_by_id(answers)
    violated = [v for v in lines if v["verdict"] == "Violated"]
    assert violated and {v["row"] for v in violated} == {"triangle.first_hit"}
    for v in violated:
        t_clean = float.fromhex(clean[v["id"]]["value"]["t"])
        assert not _is_f32(t_clean), v["id"]
        assert float.fromhex(claims[v["id"]]["value"]["t"]) == float(np.float32(t_clean))
        assert v["witness"]  # the exact crossing the claimed t misses


def test_the_float32_hit_parameter_is_held_to_our_decisions_only_when_the_answers_opt_in(geomc, work):
    """Issue 25 item 3 on an outside implementation: the same buggy answers judged by the spec's
    text (no opt-in) and with ``"decisions": true``. Opting in can only add Violated verdicts, and
    each one it adds names a decision rule of docs/decisions.md; the claims it adds were Verified
    with that decision listed as unmet."""
    req = work / "requests.json"
    answers = _run(geomc, req, work / "bug_t2.json", "--families", "triangle", "--flip-rounding", "t")
    opted = {**answers, "decisions": True}
    (work / "bug_t2_opted.json").write_text(json.dumps(opted))
    _, _, spec_lines, _ = _check(work, "bug_t2", work / "bug_t2.json", req)
    _, ledger, opt_lines, _ = _check(work, "bug_t2_opted", work / "bug_t2_opted.json", req)
    by_spec = {v["id"]: v for v in spec_lines if "id" in v}
    by_us = {v["id"]: v for v in opt_lines if "id" in v}
    spec_bad = {i for i, v in by_spec.items() if v["verdict"] == "Violated"}
    our_bad = {i for i, v in by_us.items() if v["verdict"] == "Violated"}
    assert spec_bad and spec_bad <= our_bad
    from oracles.rules import source_of

    assert all(source_of(by_spec[i]["rule"]) != "decision" for i in spec_bad)
    added = our_bad - spec_bad
    assert added  # the axis-aligned hits: within R_t, not correctly rounded
    for i in added:
        assert source_of(by_us[i]["rule"]) == "decision"
        assert by_spec[i]["verdict"] == "Verified" and by_us[i]["rule"] in by_spec[i]["unmet"]
    first_hit = next(r for r in ledger["rows"] if r["id"] == "triangle.first_hit")
    assert first_hit["rules"]["violated_by_source"].get("decision", 0) == len(
        [i for i in added if by_us[i]["row"] == "triangle.first_hit"])


def test_a_witness_is_explained(geomc, work, capsys):
    """The walk-through's last step: one violated claim copied into a claims/1 file and
    explained; the explanation shows the claim Violated and the reference kernel's own error."""
    req = work / "requests.json"
    answers = _run(geomc, req, work / "bug_u2.json", "--families", "path", "--flip-rounding", "u")
    claims = _claims_by_id(answers)
    # The first position claimed at a u that fl32 moves by more than 2^-30 ("path/00000 step 15
    # claim 0", the walk-through's example, in the current corpus; 1 - 2^-53 moves too little).
    first = next(c for c in claims.values() if c["row"] == "path.interior_positions" and "u" in c["inputs"]
                 and abs(float(np.float32(float.fromhex(c["inputs"]["u"]))) - float.fromhex(c["inputs"]["u"])) > 2**-30)
    one = work / "one.json"
    one.write_text(json.dumps({"format": "claims/1", "producer": answers["producer"], "claims": [first]}))
    capsys.readouterr()
    assert main(["explain", str(one), "--claim", "0"]) == 0
    text = capsys.readouterr().out
    assert "verdict Violated" in text and "shadow trace" in text
