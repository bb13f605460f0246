"""The ledger on Dask: wall time of the default corpus serially and on a LocalCluster of 1 and
2 workers, in one run, with peak memory; ``ledger.json`` (without ``seconds``) must be the
same bytes every time.

Each run is its own ``python -m oracles ledger`` subprocess (wall clock includes starting the
cluster). Peak memory is the largest resident set of the run's process tree as the kernel
reports it (``ru_maxrss`` of waited children: the client and the largest worker).

Target (issue 18): >= 1.7x with 2 workers on 2 cores on the default corpus.

    python benchmarks/bench_ledger.py [--cases N] [--family NAME ...] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(out: Path, extra: list[str]) -> tuple[float, float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "oracles", "ledger", "--out", str(out), "--force", *extra],
                       cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 3):
        raise SystemExit(f"ledger failed ({p.returncode}): {p.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    data = json.loads((out / "ledger.json").read_text())
    data.pop("seconds", None)
    return wall, max(peak, before) / 1024.0, data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=None)
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args(argv)
    base = ([] if a.cases is None else ["--cases", str(a.cases)]) + [x for f in a.family for x in ("--family", f)]
    with tempfile.TemporaryDirectory() as tmp:
        wall0, mem0, ref = run(Path(tmp) / "serial", base)
        rows = [("serial", wall0, mem0)]
        same = True
        for w in a.workers:
            wall, mem, data = run(Path(tmp) / f"w{w}", base + ["--workers", str(w)])
            same &= json.dumps(data) == json.dumps(ref)
            rows.append((f"{w} workers", wall, mem))
    claims = ref["totals"]["claims"]
    print(f"{claims} claims; ledger.json (without seconds) identical across runs: {same}")
    print("| run | wall (s) | claims/s | speedup vs serial | peak RSS so far (MiB) |")
    print("|---|---|---|---|---|")
    for name, wall, mem in rows:
        print(f"| {name} | {wall:.1f} | {claims / wall:.0f} | {wall0 / wall:.2f} | {mem:.0f} |")
    for name, wall, _ in rows[1:]:
        two = name == "2 workers"
        print("BENCH-ROW " + json.dumps({
            "bench": "ledger", "case": f"default corpus ({claims} claims)" if a.cases is None else f"{claims} claims",
            "metric": f"claims/s, {name}", "ours": claims / wall, "peer_name": "serial ledger", "peer": claims / wall0,
            "ratio": wall0 / wall, "target": ">= 1.7x" if two else None, "met": (wall0 / wall >= 1.7) if two else None}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
