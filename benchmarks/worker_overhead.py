"""What a Dask worker costs beyond its judging: the default corpus's chunks judged by a
one-worker LocalCluster and, side by side at the same time, by a plain process that calls the
same ``_judge_chunk`` on each chunk in turn (issue 26's two-worker line).

Both sides run at once, so the shared host's speed of the minute reaches both alike; on a
two-core machine each has a core, and the cluster's client mostly waits. Reported per
repetition: the plain process's CPU, the worker's judging thread's CPU and its other threads'
(the event loop: heartbeats, monitors, communication), from ``psutil``'s per-thread times.
If the judging thread matches the plain process, a worker's overhead is its other threads, and
a two-worker run that spends more CPU than the serial one lost it to the host, not to Dask.

    python benchmarks/worker_overhead.py [--repeat R]

Run a ledger first (``python -m oracles ledger --cases 10``) so that the compiled kernels come
from their disk cache on both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _chunks():
    from oracles.distributed import corpus_chunks
    from oracles.ledger import select_families

    return corpus_chunks(0, None, select_families(()))


def plain() -> dict:
    """Every chunk judged in this process's main thread: its CPU seconds."""
    import gc

    from oracles import GC_THRESHOLDS
    from oracles.distributed import _judge_chunk

    gc.set_threshold(*GC_THRESHOLDS)  # as the command line and the cluster's workers collect
    chunks = _chunks()
    c0 = time.process_time()
    for c in chunks:
        _judge_chunk(c)
    return {"plain_cpu": time.process_time() - c0, "chunks": len(chunks)}


def _thread_times():
    import threading

    import psutil

    names = {t.native_id: t.name for t in threading.enumerate()}
    return [(names.get(t.id, "?"), t.user_time + t.system_time) for t in psutil.Process().threads()]


def worker() -> dict:
    """The corpus on a one-worker LocalCluster: the worker's CPU by thread, judging and other."""
    from oracles.distributed import cluster, run_corpus_distributed

    with cluster(workers=1) as client:
        before = next(iter(client.run(_thread_times).values()))
        run_corpus_distributed(client, seed=0)
        after = next(iter(client.run(_thread_times).values()))
    was = dict(before)
    judging = other = 0.0
    for name, t in after:
        spent = t - was.get(name, 0.0)
        if "Dask-Default-Threads" in name:  # the thread pool that runs the tasks
            judging += spent
        else:
            other += spent
    return {"judging_cpu": judging, "other_cpu": other}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--side", choices=("plain", "worker"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.side:
        print(json.dumps(plain() if a.side == "plain" else worker()))
        return 0
    from oracles import BLAS_THREADS

    env = dict(os.environ)
    for k, v in BLAS_THREADS.items():
        env.setdefault(k, v)  # as python -m oracles runs
    me = [sys.executable, str(Path(__file__).resolve())]
    print("| repetition | plain process CPU (s) | worker's judging thread (s) | worker's other threads (s) "
          "| judging / plain |")
    print("|---|---|---|---|---|")
    for r in range(a.repeat):
        ps = {s: subprocess.Popen([*me, "--side", s], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
              for s in ("plain", "worker")}
        got = {}
        for s, p in ps.items():
            out, _ = p.communicate()
            if p.returncode != 0:
                raise SystemExit(f"the {s} side failed ({p.returncode})")
            got.update(json.loads(out.strip().splitlines()[-1]))
        print(f"| {r + 1} | {got['plain_cpu']:.1f} | {got['judging_cpu']:.1f} | {got['other_cpu']:.1f} "
              f"| {got['judging_cpu'] / got['plain_cpu']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
