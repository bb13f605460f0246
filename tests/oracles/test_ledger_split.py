"""``benchmarks/ledger_split.py`` (issue 26's ceiling on the ledger's filters) times the ledger's
stages without changing it: its ledger is the plain run's, byte for byte less timings, and its
timers reach the stages they name (a renamed entry point would leave a stage at zero)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ledger(out: Path) -> dict:
    doc = json.loads((out / "ledger.json").read_text())
    doc.pop("seconds", None)
    return doc


def test_the_stage_timers_change_no_verdict_and_reach_every_stage(tmp_path):
    args = ["--family", "track", "--cases", "12"]
    plain, timed = tmp_path / "plain", tmp_path / "timed"
    r = subprocess.run([sys.executable, "-m", "oracles", "ledger", *args, "--out", str(plain)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "benchmarks/ledger_split.py", "--json", str(tmp_path / "split.json"), "--",
                        *args, "--out", str(timed)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert _ledger(timed) == _ledger(plain)
    split = json.loads((tmp_path / "split.json").read_text())
    track = split["families"]["track"]
    # track makes requests whose statuses the oracle decides, answers them and judges the claims
    assert track["check"] > 0 and track["answer"] > 0 and track["gen"] > 0 and track["expect"] > 0
    assert min(track.values()) >= 0
    assert sum(track.values()) + split["outside"] <= split["total"] * 1.001
    assert "ceiling with checking free" in r.stdout
