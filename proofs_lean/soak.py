#!/usr/bin/env python3
"""Runs ``check.py`` many times with a one-file checker and reports, for every checker process,
its peak memory and wall time, and every abort (stdlib only; Linux ``/proc``).

Issue 27's acceptance: twenty consecutive runs on a fresh clone under a concurrent load, no
abort, every process's peak at most 2.5 GB. This script runs them and says whether that holds;
the figures go in ``docs/decisions.md`` ("Lean: measured peaks").

Measured per checker process (a ``node .../lean.js FILE`` process, the WebAssembly checker):
the peak resident set size (``VmHWM`` of ``/proc/PID/status``, polled every 0.2 s while the
process lives; it is monotone, so the last poll is at most 0.2 s short of the true peak), the
wall time, and the file it checked. Per ``check.py`` run: the exit status, the wall time, the
bytes of output of each checker run and the reruns it reports (``RERUN`` lines: runtime
aborts). ``--floor`` first checks a one-line file that imports only ``Init``, the checker's own
floor: what no restructuring of our files can go below.

With ``--load CMD`` the command runs in a loop beside the soak (for example the test suite),
started anew whenever it ends, and is stopped at the end.

Exit status: 0 when every run passed with no rerun and every peak is at most ``--limit-gb``;
1 otherwise; 2 on a usage error.

Usage, from the repository root::

    python proofs_lean/soak.py --lean ../shared/tools/lean-wasm/lean --runs 20 \\
        --load ".venv/bin/python -m pytest -q tests/reference" --floor
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import audit  # noqa: E402


def _status_kb(pid: int, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _checker_processes() -> dict[int, str]:
    """pid -> checked file name, for every WebAssembly checker process alive now."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) >= 3 and argv[0].endswith(b"node") and argv[1].endswith(b"lean.js"):
            out[int(name)] = argv[2].decode("utf-8", "replace")
    return out


#: The files check.py and the floor measurement give the checker (other checker processes on the
#: machine, such as the Lean tests' `#eval` runs, are not counted).
SOAK_FILES = frozenset({"FacetSelectionAudit.lean", "FacetSelection.lean", "FirstHit.lean", "Culling.lean",
                        "Floor.lean"})


class Poller:
    """Polls every checker process of a file of ``SOAK_FILES`` for its peak memory. The checker
    runs one at a time through audit.py's lock, so a run's wall time includes any wait for a
    checker run of another process on the same machine."""

    def __init__(self, period: float = 0.2) -> None:
        self.period = period
        self.seen: dict[int, dict] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            alive = _checker_processes()
            for pid, file in alive.items():
                if Path(file).name not in SOAK_FILES:
                    continue
                rec = self.seen.setdefault(pid, {"file": file, "start": now, "end": now, "peak_kb": 0})
                hwm = _status_kb(pid, "VmHWM")
                if hwm is not None:
                    rec["peak_kb"] = max(rec["peak_kb"], hwm)
                rec["end"] = now
            self._stop.wait(self.period)


def _load_loop(cmd: str, stop: threading.Event, log: Path) -> None:
    with open(log, "a") as out:
        while not stop.is_set():
            proc = subprocess.Popen(shlex.split(cmd), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            while proc.poll() is None:
                if stop.wait(1.0):
                    os.killpg(proc.pid, 15)
                    proc.wait()
                    return


def _floor(lean: str) -> tuple[float, float]:
    """(peak GB, seconds) of the checker on a one-line file importing only Init."""
    stage = Path(tempfile.mkdtemp(prefix="lean-floor-"))
    path = stage / "Floor.lean"
    path.write_text("theorem floor_check : 1 + 1 = 2 := rfl\n", encoding="utf-8")
    with Poller() as poller:
        start = time.monotonic()
        rc, out = audit.run_lean_command([lean, str(path)], stage)
        seconds = time.monotonic() - start
    if rc != 0:
        raise RuntimeError("the floor file failed:\n" + out)
    peak = max((r["peak_kb"] for r in poller.seen.values()), default=0)
    return peak / 1e6, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lean", default=os.environ.get("LEAN"), help="one-file checker (default $LEAN)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--limit-gb", type=float, default=2.5, help="largest peak (GB = 1e9 bytes) allowed")
    parser.add_argument("--load", default=None, help="a command to run in a loop beside the soak")
    parser.add_argument("--floor", action="store_true", help="first measure a one-line Init-only file")
    parser.add_argument("--check-args", default="--require", help="arguments for check.py")
    args = parser.parse_args(argv)
    lean = audit.resolve_lean(args.lean)
    if lean is None:
        print(f"soak: no checker: --lean/$LEAN = {args.lean!r} is not an executable", file=sys.stderr)
        return 2
    print(f"soak: {args.runs} runs of check.py {args.check_args} with {lean}; load: {args.load or 'none'}")
    print(f"soak: machine: {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}")
    if args.floor:
        peak, seconds = _floor(lean)
        print(f"soak: floor (one-line Init-only file): peak {peak:.3f} GB, {seconds:.0f} s")
    stop = threading.Event()
    loader = None
    if args.load:
        log = Path(tempfile.gettempdir()) / "proofs_lean-soak-load.log"
        loader = threading.Thread(target=_load_loop, args=(args.load, stop, log), daemon=True)
        loader.start()
    env = dict(os.environ, LEAN=lean)
    rows = []
    failed = aborts = 0
    try:
        for k in range(1, args.runs + 1):
            with Poller() as poller:
                start = time.monotonic()
                proc = subprocess.run([sys.executable, str(HERE / "check.py"), *shlex.split(args.check_args)],
                                      env=env, capture_output=True, text=True)
                wall = time.monotonic() - start
            text = proc.stdout + proc.stderr
            reruns = text.count("!!! RERUN")
            faults = text.count(audit.RUNTIME_FAULT)
            sizes = [line.split(", ")[-1] for line in proc.stdout.splitlines() if line.startswith("lean: run ")]
            procs = sorted(poller.seen.values(), key=lambda r: r["start"])
            aborts += reruns + (faults if proc.returncode else 0)
            failed += proc.returncode != 0
            rows.append((k, proc.returncode, wall, reruns, procs))
            desc = "; ".join(f"{Path(r['file']).name} {r['peak_kb'] / 1e6:.3f} GB {r['end'] - r['start']:.0f} s"
                             for r in procs)
            print(f"soak: run {k}: status {proc.returncode}, {wall:.0f} s, reruns {reruns}, "
                  f"output {', '.join(sizes) or '?'}; processes: {desc}; load {os.getloadavg()[0]:.1f}", flush=True)
            if proc.returncode != 0:
                print(text[-3000:], file=sys.stderr)
    finally:
        stop.set()
        if loader is not None:
            loader.join()
    peaks = [r["peak_kb"] / 1e6 for row in rows for r in row[4]]
    walls = [row[2] for row in rows]
    worst = max(peaks, default=0.0)
    print(f"soak: {len(rows)} runs, {failed} failed, {aborts} aborts (reruns or runtime faults), "
          f"{len(peaks)} checker processes; peak memory per process: max {worst:.3f} GB, "
          f"min {min(peaks, default=0.0):.3f} GB; run wall time: min {min(walls, default=0):.0f} s, "
          f"max {max(walls, default=0):.0f} s")
    ok = failed == 0 and aborts == 0 and worst <= args.limit_gb
    print(f"soak: {'PASSED' if ok else 'FAILED'}: 0 aborts required (got {aborts}), every peak at most "
          f"{args.limit_gb} GB required (max {worst:.3f} GB)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
