"""Where the serial ledger's CPU goes: judging claims, the oracle's expected statuses, the fast
path's answers, and the rest, per family (issue 26's ceiling on the ledger's filters).

Runs ``python -m oracles ledger ARGS`` in this process with exclusive CPU timers
(``time.process_time``; a nested stage's time is never charged to its caller) around:

- *check*: ``oracles.batch.check_claims`` (every row checker and batch checker, the filters, the
  exact and interval truths) and ``oracles.contract.check_status`` (status claims);
- *expect*: the ``expected_*`` / ``_expect_*`` functions of each family's ``requests.py`` while
  requests are made (the oracle deciding which status each step must return);
- *gen*: the rest of making the family's requests;
- *answer*: the family's fast path answering them (the implementation under test);
- *other*: tallies, plumbing, and what lies outside the families (imports, writing the ledger).

The last lines give the ceilings: the whole run's CPU over its CPU with the check stage free
(what filters in front of every checker could reach at most), and with check and expect free.
The timers cost about 2 % and change no verdict.

Usage: ``python benchmarks/ledger_split.py [--json FILE] -- [ledger args, e.g. --no-filters]``
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("check", "expect", "gen", "answer", "other")


class Timers:
    """Exclusive CPU seconds per (family, stage): a stack of open stages, the top one charged."""

    def __init__(self):
        self.acc: dict = {}
        self.stack = [["", "other", time.process_time()]]
        self.family = ""  # the family whose cases are being judged

    def _charge(self, now: float) -> None:
        fam, stage, last = self.stack[-1]
        self.acc[(fam, stage)] = self.acc.get((fam, stage), 0.0) + now - last

    def wrap(self, stage: str, fn, family: str | None = None, only_inside: str | None = None):
        @functools.wraps(fn)  # its signature too: oracles.family.ranged reads it
        def timed(*a, **k):
            if only_inside is not None and self.stack[-1][1] != only_inside:
                return fn(*a, **k)
            now = time.process_time()
            self._charge(now)
            self.stack.append([family or self.stack[-1][0] or self.family, stage, now])
            try:
                return fn(*a, **k)
            finally:
                now = time.process_time()
                self._charge(now)
                self.stack.pop()
                self.stack[-1][2] = now

        return timed


def instrument(t: Timers) -> None:
    import oracles.batch as B
    import oracles.contract as C
    import oracles.ledger as L
    from oracles.families import families

    B.check_claims = t.wrap("check", B.check_claims)
    C.check_status = t.wrap("check", C.check_status)
    for f in families():
        object.__setattr__(f, "generate", t.wrap("gen", f.generate, f.name))
        if f.requests is not None:  # the serial ledger makes a block's requests at a time
            object.__setattr__(f, "requests", t.wrap("gen", f.requests, f.name))
        if f.answers_requests:
            object.__setattr__(f, "answer", t.wrap("answer", f.answer, f.name))
        else:
            object.__setattr__(f, "claims", t.wrap("answer", f.claims, f.name))
    # the expected statuses, wherever a module imported them by name; inside the check stage
    # they stay the check's
    found = {}
    for f in families():
        mod = importlib.import_module(f"oracles.families.{f.name}.requests")
        for name, v in vars(mod).items():
            if isinstance(v, types.FunctionType) and v.__module__ == mod.__name__ \
                    and name.startswith(("expected_", "_expect_")):
                found[id(v)] = (v, t.wrap("expect", v, only_inside="gen"))
    for mname, mod in list(sys.modules.items()):
        if mname.startswith("oracles") and mod is not None:
            for name, v in list(vars(mod).items()):
                if id(v) in found and found[id(v)][0] is v:
                    setattr(mod, name, found[id(v)][1])
    judge_cases = L.judge_cases

    def judged(fam, *a, **k):
        t.family = fam.name
        return t.wrap("other", judge_cases, fam.name)(fam, *a, **k)

    L.judge_cases = judged


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=None, help="also write the seconds here")
    ap.add_argument("ledger", nargs=argparse.REMAINDER, help="after --: the ledger's own arguments")
    a = ap.parse_args(argv)
    args = [x for x in a.ledger if x != "--"]
    if "--out" not in args:
        import tempfile

        args += ["--out", tempfile.mkdtemp(prefix="ledger-split-"), "--force"]
    sys.path.insert(0, str(ROOT))
    import oracles.__main__ as M

    t = Timers()
    instrument(t)
    rc = M.main(["ledger", *args])
    t._charge(time.process_time())
    total = time.process_time()
    fams = sorted({f for f, _ in t.acc} - {""})
    per = {f: {s: t.acc.get((f, s), 0.0) for s in STAGES} for f in fams}
    outside = sum(v for (f, _), v in t.acc.items() if f == "")
    print(f"{'family':16} {'CPU s':>7} " + " ".join(f"{s:>7}" for s in STAGES) + "  check share")
    for f in fams:
        tot = sum(per[f].values())
        print(f"{f:16} {tot:7.2f} " + " ".join(f"{per[f][s]:7.2f}" for s in STAGES)
              + f"  {per[f]['check'] / tot if tot else 0:6.1%}")
    check = sum(p["check"] for p in per.values())
    expect = sum(p["expect"] for p in per.values())
    answer = sum(p["answer"] for p in per.values())
    print(f"{'outside':16} {outside:7.2f}")
    print(f"whole process {total:.2f} s CPU (ledger exit {rc}): check {check:.2f} s ({check / total:.1%}), "
          f"expect {expect:.2f} s, answer {answer:.2f} s")
    print(f"ceiling with checking free: {total / (total - check):.2f}x; "
          f"with checking and expected statuses free: {total / (total - check - expect):.2f}x")
    if a.json:
        a.json.write_text(json.dumps({"argv": args, "total": total, "outside": outside, "families": per},
                                     indent=1) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
