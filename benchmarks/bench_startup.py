"""Start-up: the time to the first verdict of a one-claim case file, with a cold and a warm
compiled-kernel cache (issue 26 item 3: at most 1.5 s warm).

Each figure is one child process, ``python -m oracles check FILE`` on a file holding one claim
(a path, a projection and a triangle claim, written here by ``python -m oracles claims``), timed
from start to exit: an upper bound of the time to its verdict, since it includes writing the
ledger. Also one case of a family through ``python -m oracles ledger --family F --cases 1``,
where the fast path runs, so its compiled kernels (``reference/jitcache.py``) are compiled
(cold) or loaded (warm).

* cold: a fresh, empty kernel cache directory for every run (``LUDUS_GEOMETRY_CACHE_DIR``);
* warm: one directory, filled by a first run that is not counted.

Python's own bytecode is written and read under a temporary ``PYTHONPYCACHEPREFIX``, filled by
an uncounted first run (an installed package has its .pyc files; without them every process
compiles the project's modules again, about 0.3 s here). Figures are medians over ``--repeat``
runs: wall seconds, and the child's user + system CPU seconds (the machine may be shared).

    python benchmarks/bench_startup.py [--repeat 5] [--no-ledger]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.5  # seconds to the first verdict, warm (issue 26)

# (label, family, row): one claim of the row, from the family's first corpus cases.
CLAIMS = [("check, one path claim (path.interior_positions)", "path", "path.interior_positions"),
          ("check, one projection claim (projection.strict)", "projection", "projection.strict"),
          ("check, one triangle claim (triangle.first_hit)", "triangle", "triangle.first_hit")]
LEDGERS = [("ledger, one projection case (fast path + oracle)", "projection"),
           ("ledger, one triangle case (fast path + oracle)", "triangle"),
           ("ledger, one path case (fast path + oracle)", "path")]


def _env(pyc: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "LUDUS_GEOMETRY_JIT_CACHE")}
    env["PYTHONPYCACHEPREFIX"] = str(pyc)
    env["LUDUS_GEOMETRY_CACHE_DIR"] = str(cache)
    return env


def timed(cmd: list, env: dict) -> tuple[float, float]:
    """(wall s, user + sys CPU s) of one child process; exits on a failed run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd[1:])} failed ({p.returncode}): {p.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_claim_file(tmp: Path, family: str, row: str, env: dict) -> Path:
    """A case file with the first claim of ``row`` from the family's corpus."""
    many = tmp / f"{family}-claims.json"
    for cases in (1, 4, 16):
        subprocess.run([sys.executable, "-m", "oracles", "claims", "--family", family, "--cases", str(cases),
                        "--out", str(many)], cwd=ROOT, env=env, check=True, capture_output=True)
        doc = json.loads(many.read_text())
        picked = [c for c in doc["claims"] if c["row"] == row]
        if picked:
            doc["claims"] = picked[:1]
            out = tmp / f"one-{row}.json"
            out.write_text(json.dumps(doc))
            return out
    raise SystemExit(f"no {row} claim in the first 16 {family} cases")


def measure(cmd: list, tmp: Path, pyc: Path, repeat: int, tag: str) -> dict:
    cold = [timed(cmd, _env(pyc, tmp / f"cold-{tag}-{i}")) for i in range(repeat)]
    warm_dir = tmp / f"warm-{tag}"
    timed(cmd, _env(pyc, warm_dir))  # fills the cache; not counted
    warm = [timed(cmd, _env(pyc, warm_dir)) for _ in range(repeat)]
    med = statistics.median
    return {"cold_wall": med(w for w, _ in cold), "cold_cpu": med(c for _, c in cold),
            "warm_wall": med(w for w, _ in warm), "warm_cpu": med(c for _, c in warm),
            "warm_wall_max": max(w for w, _ in warm)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    ap.add_argument("--no-ledger", action="store_true", help="only the one-claim check runs")
    a = ap.parse_args(argv)
    load0 = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        pyc = tmp / "pyc"
        env0 = _env(pyc, tmp / "setup-cache")
        files = [(label, one_claim_file(tmp, fam, row, env0)) for label, fam, row in CLAIMS]
        out = tmp / "out"
        for i, (label, f) in enumerate(files):
            cmd = [sys.executable, "-m", "oracles", "check", str(f), "--out", str(out / str(i)), "--force"]
            timed(cmd, env0)  # bytecode written; not counted
            rows.append((label, True, measure(cmd, tmp, pyc, a.repeat, f"c{i}")))
        if not a.no_ledger:
            for i, (label, fam) in enumerate(LEDGERS):
                cmd = [sys.executable, "-m", "oracles", "ledger", "--family", fam, "--cases", "1",
                       "--out", str(out / f"l{i}"), "--force"]
                rows.append((label, False, measure(cmd, tmp, pyc, a.repeat, f"l{i}")))
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} "
          f"{load1[2]:.2f}; medians of {a.repeat} runs; CPU = the child's user + sys")
    print(f"{'case':52s} {'cold wall':>9s} {'cold CPU':>9s} {'warm wall':>9s} {'warm CPU':>9s}  target")
    for label, target, r in rows:
        tgt = (f"<= {TARGET} s warm: {'met' if r['warm_wall'] <= TARGET else 'MISSED'}") if target else "-"
        print(f"{label:52s} {r['cold_wall']:9.2f} {r['cold_cpu']:9.2f} {r['warm_wall']:9.2f} {r['warm_cpu']:9.2f}  "
              f"{tgt}")
    for label, target, r in rows:
        print("BENCH-ROW " + json.dumps({
            "bench": "startup", "case": label, "metric": f"s to verdict, warm cache (wall, median of {a.repeat}; "
                                                          f"CPU {r['warm_cpu']:.2f} s)",
            "ours": r["warm_wall"], "peer_name": f"cold cache (CPU {r['cold_cpu']:.2f} s)", "peer": r["cold_wall"],
            "ratio": r["warm_wall"] / r["cold_wall"], "target": f"<= {TARGET} s" if target else None,
            "met": (r["warm_wall"] <= TARGET) if target else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
