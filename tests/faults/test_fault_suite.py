"""The planted-fault suite (marker ``faults``, off by default; about an hour on 2 cores):

    python -m pytest -m faults tests/faults      # or: python -m tests.faults -j 2

Targets (issue 17): the ledger alone kills at least 90% of the non-equivalent fast-path faults;
ledger plus tests kill all of them; the tests or the ledger's second oracle catch at least 90%
of the oracle (``interval/``) faults. The kill table is printed."""

from __future__ import annotations

import os

import pytest

from .harness import catalogue, kill_table, run, score

pytestmark = pytest.mark.faults


def test_the_ledger_kills_the_planted_faults(capsys):
    outcomes = run(catalogue(), jobs=int(os.environ.get("FAULT_JOBS", "2")))
    with capsys.disabled():
        print("\n" + kill_table(outcomes))
    s = score(outcomes)
    assert not s["reference"]["errors"] and not s["interval"]["errors"], s
    assert s["reference"]["ledger_rate"] >= 0.9, s["reference"]
    assert s["reference"]["killed"] == s["reference"]["faults"], s["reference"]["survivors"]
    assert s["interval"]["killed_rate"] >= 0.9, s["interval"]
