"""The ledger on Dask: wall time of the default corpus serially and on a LocalCluster of 1 and
2 workers, repeated, with peak memory; ``ledger.json`` (without ``seconds``) must be the same
bytes every time.

Each run is its own ``python -m oracles ledger`` subprocess (wall clock includes starting the
interpreter and the cluster; the compiled kernels come from the disk cache, warmed by a first
untimed run). A repetition runs serial, then each worker count, so a ratio compares runs taken
moments apart; the speedup reported is the median of the repetitions' ratios, with the best and
worst, and the load average (1 min) before each run: the machine may be shared.

CPU per run: the user and system seconds of the run's process tree (``wait4``: the client and
the worker processes it reaped). Beside the wall-clock speedup the table gives, per worker
count, the run's CPU over the serial run's (CPU the parallel run spends beyond the serial
work: its own start and scheduling, and two busy cores slowing each other) and its busy share,
CPU over workers times wall (below 1 when a worker waits: imbalance, the client's merge, or a
core the shared host took). So a missed speedup says which of the two it lost.

Memory per run: the client's peak (the CLI's own ``ru_maxrss``), the largest process of the run
(``wait4`` of the client: the maximum over it and the worker processes it reaped) and the
largest worker (sampled every 0.25 s with psutil, when installed).

Target (issue 18, issue 26 item 4): >= 1.7x with 2 workers on 2 cores on the default corpus.

``--million`` adds the streaming run: ``ledger --workers 2 --scale K`` with the smallest K whose
corpus holds at least 10^6 claims (K from the serial run's claim count), reported with its wall
time, claims per second and peak memory (each worker makes its chunks' requests and judges them
where they are made; claims are never gathered, so memory stays that of one chunk, the family's
cheap case lists and a few witnesses per row).

    python benchmarks/bench_ledger.py [--cases N] [--family NAME ...] [--workers 1 2] [--repeat R] [--million]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load1() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


class _WorkerPeak(threading.Thread):
    """The largest resident set among a process's descendants, sampled (0 without psutil)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0, threading.Event()

    def run(self):
        try:
            import psutil
            root = psutil.Process(self.pid)
        except Exception:
            return
        while not self.done.wait(0.25):
            try:
                kids = root.children(recursive=True)
            except Exception:
                return
            for k in kids:
                try:
                    self.peak = max(self.peak, k.memory_info().rss)
                except Exception:
                    pass


def run(out: Path, extra: list[str]) -> dict:
    """One ``oracles ledger`` run: wall, load before, memory (MiB) and its ledger less ``seconds``."""
    load = _load1()
    cmd = [sys.executable, "-m", "oracles", "ledger", "--out", str(out), "--force", *extra]
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=so, stderr=se)
        sampler = _WorkerPeak(p.pid)
        sampler.start()
        _, status, usage = os.wait4(p.pid, 0)  # the run's tree: the client and what it reaped
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        sampler.done.set()
        sampler.join()
        so.seek(0)
        se.seek(0)
        stdout, stderr = so.read().decode(), se.read().decode()
    if p.returncode not in (0, 3):
        raise SystemExit(f"ledger failed ({p.returncode}): {stderr[-2000:]}")
    m = re.search(r"peak memory of this process (\d+) MiB", stdout)
    data = json.loads((out / "ledger.json").read_text())
    data.pop("seconds", None)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "load": load,
            "client": int(m.group(1)) if m else None, "tree": usage.ru_maxrss / 1024.0,
            "worker": sampler.peak / 2**20, "data": data}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=None)
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=3, help="repetitions of serial + each worker count")
    ap.add_argument("--million", action="store_true", help="also the >= 1e6-claim run on 2 workers")
    a = ap.parse_args(argv)
    base = ([] if a.cases is None else ["--cases", str(a.cases)]) + [x for f in a.family for x in ("--family", f)]
    names = ["serial"] + [f"{w} worker{'s' if w > 1 else ''}" for w in a.workers]
    cores = dict(zip(names, [1, *a.workers]))  # the processes that judge, for the busy share
    runs: dict = {n: [] for n in names}
    ref = None
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        run(Path(tmp) / "warm", ["--cases", "10"] + [x for f in a.family for x in ("--family", f)])  # kernel cache
        for r in range(a.repeat):
            for name, w in zip(names, [None, *a.workers]):
                extra = base + ([] if w is None else ["--workers", str(w)])
                got = run(Path(tmp) / f"{name}-{r}".replace(" ", "_"), extra)
                if ref is None:
                    ref = got["data"]
                same &= json.dumps(got.pop("data")) == json.dumps(ref)
                runs[name].append(got)
    claims = ref["totals"]["claims"]
    print(f"{claims} claims; {a.repeat} repetitions; ledger.json (without seconds) identical across all runs: {same}")
    print("| run | wall (s), each repetition | load (1 min) before | median wall (s) | claims/s | speedup vs "
          "serial: median (worst-best) | CPU (s), each repetition | CPU / serial CPU: median | busy share: median "
          "| client / largest process / largest worker (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = {}
    for name in names:
        walls = [x["wall"] for x in runs[name]]
        med = statistics.median(walls)
        rs = sorted(s["wall"] / x["wall"] for s, x in zip(runs["serial"], runs[name]))
        ratios[name] = rs
        mem = max(runs[name], key=lambda x: x["tree"])
        loads = ", ".join(f"{x['load']:.2f}" for x in runs[name])
        cpus = [x["cpu"] for x in runs[name]]
        over = statistics.median(x["cpu"] / s["cpu"] for s, x in zip(runs["serial"], runs[name]))
        busy = statistics.median(x["cpu"] / (cores[name] * x["wall"]) for x in runs[name])
        print(f"| {name} | {', '.join(f'{w:.1f}' for w in walls)} | {loads} "
              f"| {med:.1f} | {claims / med:.0f} | {statistics.median(rs):.2f} ({rs[0]:.2f}-{rs[-1]:.2f}) | "
              f"{', '.join(f'{c:.1f}' for c in cpus)} | {over:.2f} | {busy:.2f} | "
              f"{mem['client'] or '-'} / {mem['tree']:.0f} / {mem['worker']:.0f} |")
    serial_med = statistics.median(x["wall"] for x in runs["serial"])
    for name in names[1:]:
        two = name == "2 workers"
        med = statistics.median(x["wall"] for x in runs[name])
        ratio = statistics.median(ratios[name])
        print("BENCH-ROW " + json.dumps({
            "bench": "ledger", "case": f"default corpus ({claims} claims)" if a.cases is None and not a.family
            else f"{claims} claims", "metric": f"claims/s, {name} (median of {a.repeat}; ratio: median of "
            f"per-repetition ratios, worst {ratios[name][0]:.2f}, best {ratios[name][-1]:.2f})",
            "ours": claims / med, "peer_name": "serial ledger", "peer": claims / serial_med, "ratio": ratio,
            "target": ">= 1.7x" if two else None, "met": (ratio >= 1.7) if two else None}))
    if a.million:
        scale = math.ceil(1e6 / claims)
        with tempfile.TemporaryDirectory() as tmp:
            big = run(Path(tmp) / "million", ["--workers", "2", "--scale", str(scale)])
        t = big["data"]["totals"]
        n, wall = t["claims"], big["wall"]
        print(f"1e6-claim run: ledger --workers 2 --scale {scale}: {n} claims in {wall:.0f} s "
              f"({n / wall:.0f} claims/s; load before {big['load']:.2f}); peak RSS: client {big['client']} MiB, "
              f"largest process {big['tree']:.0f} MiB, largest worker {big['worker']:.0f} MiB (sampled); "
              f"violated {t['violated']}, "
              f"undecided {t['undecided']}, faults {t.get('faults')}, unanswered {t.get('unanswered')}")
        print("BENCH-ROW " + json.dumps({
            "bench": "ledger", "case": f"{n} claims (--scale {scale}), 2 workers",
            "metric": "claims/s; wall s; peak MiB",
            "ours": n / wall, "peer_name": f"wall {wall:.0f} s, peak RSS client {big['client']} MiB, largest "
            f"process {big['tree']:.0f} MiB", "peer": None, "ratio": None,
            "target": "documented 1e6-claim run", "met": n >= 1e6 and t["violated"] == 0}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
