"""The oracle's own speed (issue 18 item 6): the same claims judged by an earlier revision's
oracle and by this tree's, in one run, with every verdict compared.

The baseline revision's source is extracted with ``git archive`` into a temporary directory
(the repository is not touched). Its ``python -m oracles claims`` writes the claims of *its*
default corpus (so both oracles judge claims the baseline could judge); then
``python -m oracles check FILE --verdicts ...`` runs once with the baseline's code and once
with this tree's. Reported: claims per second of each (wall clock of the ``check`` process,
which includes reading the case file), their ratio, and the number of claims whose verdict
kind differs (must be 0: the speed-up may not change a verdict).

Target (issue 18): >= 2x claims per second at unchanged verdicts.

    python benchmarks/bench_oracle.py [--baseline 65c5319] [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The last commit before the oracle speed work of issues 17 and 18 (2026-12-01).
DEFAULT_BASELINE = "65c5319"


def extract(rev: str, dest: Path) -> None:
    blob = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(dest, filter="data")


def check(tree: Path, cases: Path, out: Path) -> tuple[float, dict]:
    """Wall seconds of ``check`` run from ``tree`` (its packages first on the path) and the
    verdict kind of every claim, by index."""
    verdicts = out / "verdicts.jsonl"
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "oracles", "check", str(cases), "--out", str(out), "--force",
                        "--verdicts", str(verdicts)], cwd=tree, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 3):
        raise SystemExit(f"check in {tree} failed ({p.returncode}): {p.stderr[-2000:]}")
    kinds = {}
    for line in verdicts.read_text().splitlines():
        rec = json.loads(line)
        kinds[rec["claim"]] = (rec.get("row"), rec["verdict"])
    return wall, kinds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision of the earlier oracle")
    ap.add_argument("--keep", default=None, help="keep the work directory here instead of a temporary one")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = (Path(a.keep) if a.keep else Path(tmp)).resolve()
        base = work / "baseline"
        base.mkdir(parents=True, exist_ok=True)
        extract(a.baseline, base)
        cases = work / "claims.json"
        p = subprocess.run([sys.executable, "-m", "oracles", "claims", "--out", str(cases)], cwd=base,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"baseline claims failed: {p.stderr[-2000:]}")
        (work / "old").mkdir(exist_ok=True)
        (work / "new").mkdir(exist_ok=True)
        wall_old, old = check(base, cases, work / "old")
        wall_new, new = check(ROOT, cases, work / "new")
    n = len(old)
    changed = sorted(i for i in old if new.get(i) != old[i])
    by_pair: dict = {}
    for i in changed:
        key = f"{old[i][0]}: {old[i][1]} -> {new.get(i, (None, 'missing'))[1]}"
        by_pair[key] = by_pair.get(key, 0) + 1
    r_old, r_new = n / wall_old, n / wall_new
    print(f"baseline {a.baseline}: {n} claims checked in {wall_old:.1f} s ({r_old:.0f} claims/s)")
    print(f"this tree:   {len(new)} claims checked in {wall_new:.1f} s ({r_new:.0f} claims/s)")
    print(f"speed-up {r_new / r_old:.2f}x; verdicts changed: {len(changed)}")
    for k, v in sorted(by_pair.items()):
        print(f"  {k}: {v}")
    print("BENCH-ROW " + json.dumps({
        "bench": "oracle", "case": f"{n} claims of {a.baseline}'s corpus, {len(changed)} verdicts changed",
        "metric": "claims/s (check)", "ours": r_new, "peer_name": f"oracle at {a.baseline}", "peer": r_old,
        "ratio": r_new / r_old, "target": ">= 2x, verdicts unchanged",
        "met": r_new / r_old >= 2.0 and not changed}))
    return 0 if not changed else 1


if __name__ == "__main__":
    sys.exit(main())
