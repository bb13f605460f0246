"""The ledger on Dask: wall time of the default corpus serially and on a LocalCluster of 1 and
2 workers, in one run, with peak memory; ``ledger.json`` (without ``seconds``) must be the
same bytes every time.

Each run is its own ``python -m oracles ledger`` subprocess (wall clock includes starting the
cluster). Peak memory is the largest resident set of the run's process tree as the kernel
reports it (``ru_maxrss`` of waited children: the client and the largest worker).

Target (issue 18): >= 1.7x with 2 workers on 2 cores on the default corpus.

``--million`` adds the streaming run the issue asks for: ``ledger --workers 2 --scale K`` with
the smallest K whose corpus holds at least 10^6 claims (K from the serial run's claim count),
reported with its wall time, claims per second and peak memory (claims are judged where they
are made and never gathered, so memory stays that of the cases and a few witnesses per row).

    python benchmarks/bench_ledger.py [--cases N] [--family NAME ...] [--workers 1 2] [--million]
"""

from __future__ import annotations

import argparse
import json
import math
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
    ap.add_argument("--million", action="store_true", help="also the >= 1e6-claim run on 2 workers")
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
    if a.million:
        scale = math.ceil(1e6 / claims)
        with tempfile.TemporaryDirectory() as tmp:
            wall, mem, big = run(Path(tmp) / "million", ["--workers", "2", "--scale", str(scale)])
        n = big["totals"]["claims"]
        t = big["totals"]
        print(f"1e6-claim run: --workers 2 --scale {scale}: {n} claims in {wall:.0f} s ({n / wall:.0f} claims/s), "
              f"peak RSS {mem:.0f} MiB; violated {t['violated']}, undecided {t['undecided']}, faults {t.get('faults')}")
        print("BENCH-ROW " + json.dumps({
            "bench": "ledger", "case": f"{n} claims (--scale {scale}), 2 workers", "metric": "claims/s; wall s; peak MiB",
            "ours": n / wall, "peer_name": f"wall {wall:.0f} s, peak RSS {mem:.0f} MiB", "peer": None, "ratio": None,
            "target": "documented 1e6-claim run", "met": n >= 1e6 and t["violated"] == 0}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
