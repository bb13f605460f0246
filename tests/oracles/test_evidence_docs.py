"""The numbers in docs/ agree with the default ledger: docs/evidence/ is the default ledger as
`python -m oracles ledger --out docs/evidence` writes it, for the current corpus and contracts;
the corpus sizes that docs/decisions.md states are the families' own. The slow test reruns the
whole default ledger and compares it with the snapshot, row by row."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from oracles.families import contract_for, families
from oracles.rows import ROWS

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "docs" / "evidence" / "ledger.json"
REGENERATE = "python -m oracles ledger --out docs/evidence"


@pytest.fixture(scope="module")
def snapshot():
    assert EVIDENCE.exists(), f"missing {EVIDENCE}; run {REGENERATE}"
    return json.loads(EVIDENCE.read_text())


def test_snapshot_is_of_the_current_corpus(snapshot):
    assert snapshot["run"]["corpus"] == {f.name: f.default_cases for f in families()}, f"stale: run {REGENERATE}"
    assert snapshot["seed"] == 1 and snapshot["source"] == "built-in corpus"
    assert [r["id"] for r in snapshot["rows"]] == [r.id for r in ROWS]


def test_snapshot_rows_check_what_the_contracts_say(snapshot):
    for r in snapshot["rows"]:
        c = contract_for(r["id"])
        assert r["checks"] == (c.checks if c else None), f"{r['id']}: stale checks sentence; run {REGENERATE}"


def test_snapshot_has_no_violation(snapshot):
    assert snapshot["totals"]["violated"] == 0 and snapshot["totals"]["malformed"] == 0


def test_corpus_sizes_stated_in_decisions_are_the_families_own():
    text = (ROOT / "docs" / "decisions.md").read_text()
    sizes = {f.name: f.default_cases for f in families()}
    stated = re.findall(r"the `(\w+)` family draws ([\d,]+) cases by default", text)
    for name, n in stated:
        assert sizes.get(name) == int(n.replace(",", "")), (name, n, sizes.get(name))


@pytest.mark.slow
def test_default_ledger_reproduces_the_snapshot(snapshot):
    from oracles.ledger import run_corpus

    fresh = run_corpus(1, progress=False).to_json(timings=False)
    for a, b in zip(fresh["rows"], snapshot["rows"]):
        assert a == b, a["id"]
