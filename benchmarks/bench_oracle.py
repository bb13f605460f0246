"""The oracle's own speed (issue 26): the same claims judged by this issue's starting commit and by
this tree, in one run, every verdict compared; the float64 filters' hit rate and claims per
CPU-second per row; a 10,000-claim ``path.interior_positions`` file (total and marginal ratio);
and the verdicts and ``ledger.json`` of the default corpus with the filters on and off.

The baseline revision's source is extracted with ``git archive`` into a temporary directory (the
repository is not touched). Its ``python -m oracles claims`` writes the claims of *its* default
corpus (claims the baseline can judge). Measured, all as CPU seconds (user + system of the child
processes, one core each, bytecode cached so that no run pays for compiling):

1. ``check FILE --verdicts`` of that corpus with the baseline and with this tree: every verdict
   line compared, by kind and byte for byte (less the fields this issue's other work adds), per
   row.
2. Per row, in one process of each tree: claims per CPU-second of judging alone (the case file
   read before the clock starts), and this tree's filter hit rate (claims decided without the
   exact stage) and its claims per CPU-second with the filters off.
3. ``check`` of 10,000 ``path.interior_positions`` claims with controls and u (numpy's float64
   Bernstein evaluation, as the ``bezier`` package computes it, seeded), and of its first claim
   alone: the total ratio (start-up included) and the marginal one (per claim, start-up
   excluded).
4. ``ledger`` of the default corpus with the filters on and off (``--no-filters``): CPU seconds,
   and the verdict lines and ``ledger.json`` less its timings compared byte for byte.
   ``--scale K`` runs the corpus K times over for this comparison (``--scale 1`` is about 1e5
   claims; slow).

Targets (issue 26): >= 10x claims per CPU-second on the 10,000-position file; the default ledger
>= 5x faster with the filters than without; verdicts unchanged.

    python benchmarks/bench_oracle.py [--baseline 10b987f] [--keep DIR] [--scale K] [--no-ledger]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = "10b987f"  # issue 26's starting commit
# Fields a verdict line may carry in this tree from other work of the issue (rule tags); they
# are compared apart from the rest of the line.
NEW_FIELDS = ("rule", "unmet")

# Judging one row at a time in one process; prints {row: [claims, cpu seconds, decided]}.
_PER_ROW = r"""
import json, sys, time
from oracles.casefile import load_case_file
cf = load_case_file(sys.argv[1])
rows = {}
for _, c in cf.claims:
    rows.setdefault(c.row, []).append(c)
import os
if os.path.exists(os.path.join("oracles", "batch.py")):  # not an import test: an editable install
    from oracles.batch import check_claims, filter_stats, filters  # would find this tree's module
else:
    check_claims = None
    from oracles.ledger import check_claim
out = {}
modes = [("on", True), ("off", False)] if check_claims is not None else [("on", None)]
for rid, cl in sorted(rows.items()):
    for mode, on in modes:
        t = time.process_time()
        if check_claims is None:
            for c in cl:
                try:
                    check_claim(c)
                except Exception:
                    pass
            decided = 0
        else:
            filter_stats(reset=True)
            with filters(on):
                for lo in range(0, len(cl), 2000):
                    check_claims(cl[lo:lo + 2000])
            decided = filter_stats(reset=True).get(rid, (0, 0))[0]
        out.setdefault(rid, {})[mode] = [len(cl), time.process_time() - t, decided]
print(json.dumps(out))
"""


def extract(rev: str, dest: Path) -> None:
    blob = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(dest, filter="data")


def _env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # cache bytecode: no run pays for compiling
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "bench-oracle-pycache")
    env.update(extra or {})
    return env


def run(cmd: list, cwd: Path, env_extra: dict | None = None, ok=(0,)) -> tuple[float, str]:
    """CPU seconds (user + system) of a child process, and its stdout."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=_env(env_extra))
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in ok:
        raise SystemExit(f"{' '.join(map(str, cmd))} in {cwd} failed ({p.returncode}): {p.stderr[-2000:]}")
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), p.stdout


def check(tree: Path, cases: Path, out: Path, extra: tuple = ()) -> tuple[float, list]:
    """CPU seconds of ``check`` run from ``tree`` and its verdict lines (parsed)."""
    out.mkdir(parents=True, exist_ok=True)
    verdicts = out / "verdicts.jsonl"
    cpu, _ = run([sys.executable, "-m", "oracles", "check", str(cases), "--out", str(out), "--force",
                  "--verdicts", str(verdicts), *extra], tree, ok=(0, 1, 3))
    return cpu, [json.loads(line) for line in verdicts.read_text().splitlines()]


def positions_file(path: Path, n: int) -> None:
    """n path.interior_positions claims with controls and u: numpy's float64 Bernstein sums of
    float32 controls at magnitudes 1e-2 .. 1e3 (seeded)."""
    import numpy as np

    rng = np.random.default_rng(0)
    claims = []
    for _ in range(n):
        P = (rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-2, 3)).astype(np.float32).astype(np.float64)
        u = float(rng.random())
        s = 1 - u
        B = s**3 * P[0] + 3 * u * s * s * P[1] + 3 * u * u * s * P[2] + u**3 * P[3]
        claims.append({"row": "path.interior_positions", "guarantee": "Rounded", "value": [float(x).hex() for x in B],
                       "inputs": {"controls": [[float(x).hex() for x in p] for p in P], "u": u.hex()}})
    path.write_text(json.dumps({"format": "claims/1", "producer": "numpy Bernstein (bezier-like)", "claims": claims}))


def compare(old: list, new: list) -> dict:
    """Per row: claims, kinds that differ, lines that differ (less NEW_FIELDS)."""
    rows: dict = {}
    newer = {r["claim"]: r for r in new}
    for r in old:
        n = newer.get(r["claim"])
        st = rows.setdefault(r["row"], {"claims": 0, "kinds_differ": 0, "lines_differ": 0})
        st["claims"] += 1
        if n is None or n["verdict"] != r["verdict"]:
            st["kinds_differ"] += 1
        if n is None or {k: v for k, v in n.items() if k not in NEW_FIELDS} != r:
            st["lines_differ"] += 1
    return rows


def ledger_pair(scale: int, work: Path) -> dict:
    """The default corpus (times ``scale``) with the filters on and off: CPU seconds, and
    whether verdict lines and ledger.json less timings are byte-identical."""
    res = {}
    for mode, extra in (("on", []), ("off", ["--no-filters"])):
        out = work / f"ledger-{mode}"
        cpu, _ = run([sys.executable, "-m", "oracles", "ledger", "--scale", str(scale), "--out", str(out), "--force",
                      "--verdicts", str(out / "verdicts.jsonl"), *extra], ROOT, ok=(0,))
        doc = json.loads((out / "ledger.json").read_text())
        seconds = doc.pop("seconds", {})
        res[mode] = {"cpu": cpu, "ledger": json.dumps(doc, sort_keys=True), "seconds": seconds,
                     "verdicts": (out / "verdicts.jsonl").read_bytes()}
    return {"cpu_on": res["on"]["cpu"], "cpu_off": res["off"]["cpu"],
            "judging_seconds_on": res["on"]["seconds"], "judging_seconds_off": res["off"]["seconds"],
            "ledger_identical": res["on"]["ledger"] == res["off"]["ledger"],
            "verdicts_identical": res["on"]["verdicts"] == res["off"]["verdicts"],
            "claims": res["on"]["verdicts"].count(b"\n")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision of the earlier oracle")
    ap.add_argument("--keep", default=None, help="keep the work directory here instead of a temporary one")
    ap.add_argument("--scale", type=int, default=1, help="ledger --scale of the filters on/off comparison")
    ap.add_argument("--no-ledger", action="store_true", help="skip the filters on/off ledgers (minutes)")
    a = ap.parse_args(argv)
    rows_out = []
    with tempfile.TemporaryDirectory() as tmp:
        work = (Path(a.keep) if a.keep else Path(tmp)).resolve()
        base = work / "baseline"
        base.mkdir(parents=True, exist_ok=True)
        extract(a.baseline, base)
        cases = work / "claims.json"
        run([sys.executable, "-m", "oracles", "claims", "--out", str(cases)], base)

        # 1. every verdict of the baseline's corpus, both trees
        cpu_old, old = check(base, cases, work / "old")
        cpu_new, new = check(ROOT, cases, work / "new")
        cmp = compare(old, new)
        n = len(old)
        kinds = sum(r["kinds_differ"] for r in cmp.values())
        lines = sum(r["lines_differ"] for r in cmp.values())
        print(f"{a.baseline}'s corpus: {n} claims; check {cpu_old:.1f} s CPU at {a.baseline}, {cpu_new:.1f} s here "
              f"({cpu_old / cpu_new:.2f}x); verdict kinds changed: {kinds}; lines changed (less {', '.join(NEW_FIELDS)}): "
              f"{lines}")

        # 2. per row, judging alone
        _, t_old = run([sys.executable, "-c", _PER_ROW, str(cases)], base)
        _, t_new = run([sys.executable, "-c", _PER_ROW, str(cases)], ROOT)
        t_old, t_new = json.loads(t_old), json.loads(t_new)
        print()
        print(f"{'row':34} {'claims':>7} {'kinds':>6} {'lines':>6} {'hit rate':>9} "
              f"{'claims/CPU-s ' + a.baseline:>20} {'here, on':>10} {'here, off':>10}")
        for rid in sorted(cmp):
            c = cmp[rid]
            o = t_old.get(rid, {}).get("on", [0, 0.0, 0])
            on = t_new.get(rid, {}).get("on", [0, 0.0, 0])
            off = t_new.get(rid, {}).get("off", [0, 0.0, 0])
            rate = (lambda x: x[0] / x[1] if x[1] > 0 else float("inf"))
            hit = on[2] / on[0] if on[0] else 0.0
            print(f"{rid:34} {c['claims']:7d} {c['kinds_differ']:6d} {c['lines_differ']:6d} {hit:9.1%} "
                  f"{rate(o):20.0f} {rate(on):10.0f} {rate(off):10.0f}")
            if on[2]:
                rows_out.append({"bench": "oracle", "case": f"{rid}: {c['claims']} claims of {a.baseline}'s corpus, "
                                 f"filter hit rate {hit:.1%}, {c['kinds_differ']} kinds / {c['lines_differ']} lines changed",
                                 "metric": "claims per CPU-s (judging)", "ours": rate(on),
                                 "peer_name": f"oracle at {a.baseline}", "peer": rate(o), "ratio": rate(on) / rate(o),
                                 "target": None, "met": None})

        # 3. the 10,000-position file, and its first claim alone
        pos = work / "pos10k.json"
        positions_file(pos, 10000)
        one = work / "pos1.json"
        doc = json.loads(pos.read_text())
        one.write_text(json.dumps({**doc, "claims": doc["claims"][:1]}))
        t = {}
        for name, tree in ((a.baseline, base), ("here", ROOT)):
            c10, v10 = check(tree, pos, work / f"pos-{name}")
            c1, _ = check(tree, one, work / f"one-{name}")
            t[name] = (c10, c1, v10)
        same = [r["verdict"] for r in t[a.baseline][2]] == [r["verdict"] for r in t["here"][2]]
        same_lines = [{k: v for k, v in r.items() if k not in NEW_FIELDS} for r in t["here"][2]] == t[a.baseline][2]
        total = t[a.baseline][0] / t["here"][0]
        marg_old = (t[a.baseline][0] - t[a.baseline][1]) / 9999
        marg_new = (t["here"][0] - t["here"][1]) / 9999
        print()
        print(f"check of 10,000 path.interior_positions claims: {t[a.baseline][0]:.2f} s CPU at {a.baseline} "
              f"({10000 / t[a.baseline][0]:.0f} claims/CPU-s), {t['here'][0]:.2f} s here ({10000 / t['here'][0]:.0f}); "
              f"total ratio {total:.2f}x")
        print(f"  one claim: {t[a.baseline][1]:.2f} s vs {t['here'][1]:.2f} s (start-up); per claim after start-up "
              f"{marg_old * 1e6:.0f} us vs {marg_new * 1e6:.0f} us: marginal ratio {marg_old / marg_new:.2f}x; "
              f"verdicts {'identical' if same_lines else 'kinds identical' if same else 'CHANGED'}")
        rows_out.append({"bench": "oracle", "case": "check, 10,000 path.interior_positions claims (start-up included)",
                         "metric": "claims per CPU-s", "ours": 10000 / t["here"][0], "peer_name": f"oracle at {a.baseline}",
                         "peer": 10000 / t[a.baseline][0], "ratio": total, "target": ">= 10x, verdicts unchanged",
                         "met": total >= 10 and same})
        rows_out.append({"bench": "oracle", "case": "the same, per claim after start-up (marginal)",
                         "metric": "claims per CPU-s", "ours": 1 / marg_new, "peer_name": f"oracle at {a.baseline}",
                         "peer": 1 / marg_old, "ratio": marg_old / marg_new, "target": ">= 10x", "met": marg_old / marg_new >= 10})
        rows_out.append({"bench": "oracle", "case": f"check of {a.baseline}'s corpus ({n} claims), {kinds} verdict kinds "
                         f"changed", "metric": "claims per CPU-s", "ours": n / cpu_new, "peer_name": f"oracle at {a.baseline}",
                         "peer": n / cpu_old, "ratio": cpu_old / cpu_new, "target": "verdicts unchanged",
                         "met": kinds == 0})

        # 4. the default ledger, filters on and off
        if not a.no_ledger:
            lp = ledger_pair(a.scale, work)
            judge_on = sum(lp["judging_seconds_on"].values())
            print()
            print(f"ledger --scale {a.scale} ({lp['claims']} claims): {lp['cpu_on']:.1f} s CPU with the filters, "
                  f"{lp['cpu_off']:.1f} s without ({lp['cpu_off'] / lp['cpu_on']:.2f}x); verdict lines "
                  f"{'identical' if lp['verdicts_identical'] else 'DIFFER'}, ledger.json less timings "
                  f"{'identical' if lp['ledger_identical'] else 'DIFFERS'}")
            print(f"  seconds per family (filters on): {json.dumps(lp['judging_seconds_on'])} (sum {judge_on:.1f})")
            print(f"  seconds per family (filters off): {json.dumps(lp['judging_seconds_off'])}")
            both = lp["ledger_identical"] and lp["verdicts_identical"]
            rows_out.append({"bench": "oracle", "case": f"ledger --scale {a.scale} ({lp['claims']} claims), filters on vs off; "
                             f"verdicts and ledger {'identical' if both else 'DIFFER'}",
                             "metric": "CPU s", "ours": lp["cpu_on"], "peer_name": "--no-filters", "peer": lp["cpu_off"],
                             "ratio": lp["cpu_off"] / lp["cpu_on"], "target": ">= 5x, byte-identical",
                             "met": lp["cpu_off"] / lp["cpu_on"] >= 5 and both})
    for r in rows_out:
        print("BENCH-ROW " + json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
