"""Plant one realistic fault at a time and ask whether the ledger (and then the tests) notice.

A :class:`Fault` is a source patch: in one project file, an exact text (which must occur exactly
once, so a catalogue that no longer matches the code fails loudly instead of planting nothing)
is replaced by the mistaken text a real implementer might write: outward rounding replaced by
round-to-nearest, a dropped error term, a wrong tie rule, a narrowed band, a policy bug.

Each fault is planted in a fresh copy of the project (the real tree is never touched) and
judged by

* **the ledger alone**: ``python -m oracles ledger --family F`` on the default corpus in the
  copy. Exit 1 (a Violated claim) kills the fault; exit 4 (a checker error, an oracle fault or
  a fast-path crash) kills it too, and the table says which; exit 0 or 3 means it survived.
* **the tests** (``--tests``, or for every ledger survivor when the whole suite runs): the
  fault's named pytest targets in the copy; a failing test kills it.

A fault that only tightens a bound that stays valid is *equivalent*: no oracle can refute it and
none should, so it is listed with its reason and left out of the score.

Command (also ``tests/faults/test_fault_suite.py``, marker ``faults``)::

    python -m tests.faults [-j 2] [--tests never|survivors|always] [--layer reference|interval]
                           [--family F] [--only ID ...] [--json FILE [--resume]] [--write-doc]
    python -m tests.faults --from-json FILE --write-doc   # render a saved run

``--write-doc`` rewrites the generated block of ``docs/reliability.md`` (between its
``fault-suite:begin``/``fault-suite:end`` markers) with the command, the date, the score and the
kill table of the whole catalogue.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("reference", "interval")
# What a copy of the project needs to run the ledger and the tests.
COPIED = ("reference", "interval", "oracles", "tests", "docs", "benchmarks", "proofs_lean",
          "pyproject.toml", "README.md", ".ci")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".lake", "ledger-out", "check-out", "*.egg-info")

__all__ = ["Fault", "Outcome", "catalogue", "kill_table", "run", "score"]


@dataclass(frozen=True)
class Fault:
    """One planted fault.

    Attributes:
        id: stable name, ``<area>.<mistake>`` (``"fp.round_up_nearest"``).
        family: the ledger family (or families, space-separated) whose default corpus judges it.
        file: the project file patched, relative to the project root.
        old: text that occurs exactly once in ``file``.
        new: the mistaken text that replaces it.
        what: the mistake in one sentence, as an implementer would make it.
        tests: pytest targets (files or node ids, project-relative) that should kill it.
        equivalent: why the fault cannot be refuted (it only tightens a bound that stays valid);
            empty for a real fault. Equivalent faults are run and listed, never scored.
    """

    id: str
    family: str
    file: str
    old: str
    new: str
    what: str
    tests: tuple = ()
    equivalent: str = ""

    @property
    def layer(self) -> str:
        # A family's adapter (oracles/families/<name>/answers.py) answers with the fast path and
        # holds its owners: a fault planted there is scored as the fast path's.
        if self.file.startswith("oracles/families/") and self.file.endswith("/answers.py"):
            return "reference"
        return self.file.split("/", 1)[0]

    @property
    def families(self) -> list:
        return self.family.split()

    def check(self, root: Path = ROOT) -> str | None:
        """Why this fault cannot be planted in ``root`` (None when it can)."""
        p = root / self.file
        if self.layer not in LAYERS:
            return f"{self.id}: {self.file} is not under {' or '.join(LAYERS)}"
        if not p.is_file():
            return f"{self.id}: no file {self.file}"
        n = p.read_text().count(self.old)
        if n != 1:
            return f"{self.id}: the text to replace occurs {n} times in {self.file} (must be once)"
        if self.old == self.new:
            return f"{self.id}: the patch changes nothing"
        return None


@dataclass
class Outcome:
    """What happened to one fault: ``ledger`` and ``tests`` are ``"killed"``, ``"killed (fault)"``
    (the ledger exited 4: a checker error, oracle fault or fast-path crash), ``"survived"``,
    ``"error: ..."`` (the harness could not judge) or ``"-"`` (not run)."""

    fault: Fault
    ledger: str = "-"
    tests: str = "-"
    seconds: float = 0.0
    detail: dict = field(default_factory=dict)

    @property
    def ledger_killed(self) -> bool:
        return self.ledger.startswith("killed")

    @property
    def killed(self) -> bool:
        return self.ledger_killed or self.tests.startswith("killed")

    def to_json(self) -> dict:
        f = self.fault
        return {"id": f.id, "layer": f.layer, "family": f.family, "file": f.file, "what": f.what,
                "equivalent": f.equivalent or None, "ledger": self.ledger, "tests": self.tests,
                "seconds": round(self.seconds, 1), **self.detail}


def catalogue() -> list:
    """Every fault of every module in ``tests/faults/catalogue``, in module then list order."""
    from . import catalogue as pkg

    out = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        out += list(getattr(mod, "FAULTS", ()))
    return out


def copy_project(dest: Path, names=COPIED, ignore=IGNORED) -> None:
    """Copy the project's ``names`` (folders and files) into ``dest``, the real tree untouched
    (also ``mutation/run.py``'s copies)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.is_file():
            shutil.copy2(src, dest / name)


def child_env(tree: Path) -> dict:
    """The environment of a child that runs the copy at ``tree``: its packages shadow an editable
    install of the real tree, no bytecode is written, the tests run in their default (ci)
    hypothesis profile, and this interpreter's scripts are on PATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("HYPOTHESIS_PROFILE", None)
    return env


def _classify_ledger(code: int, err: str) -> str:
    if code == 1:
        return "killed"
    if code == 4:
        return "killed (fault)"
    if code in (0, 3):
        return "survived"
    tail = err.strip().splitlines()[-1:] or [""]
    return f"error: exit {code}: {tail[0][:160]}"


def _classify_tests(code: int, out: str) -> str:
    if code == 1:
        return "killed"
    if code == 0:
        return "survived"
    if code == 5:
        return "error: no tests collected"
    tail = out.strip().splitlines()[-1:] or [""]
    return f"error: pytest exit {code}: {tail[0][:160]}"


def plant(fault: Fault, tree: Path) -> None:
    """Apply ``fault`` to the project copy at ``tree`` (raises if it cannot be planted)."""
    why = fault.check(tree)
    if why:
        raise ValueError(why)
    p = tree / fault.file
    p.write_text(p.read_text().replace(fault.old, fault.new, 1))


def judge(fault: Fault, *, tests: str = "survivors", python: str = sys.executable,
          ledger_timeout: float = 3600, tests_timeout: float = 1800) -> Outcome:
    """Plant ``fault`` in a fresh copy and judge it by the ledger, then by its tests.

    Args:
        tests: ``"never"``, ``"survivors"`` (only when the ledger missed it) or ``"always"``.
    """
    out = Outcome(fault)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"fault-{fault.id}-") as tmp:
        tree = Path(tmp) / "project"
        tree.mkdir()
        copy_project(tree)
        try:
            plant(fault, tree)
        except ValueError as e:
            out.ledger = f"error: {e}"
            return out
        env = child_env(tree)
        cmd = [python, "-m", "oracles", "ledger", "--out", str(Path(tmp) / "ledger")]
        for fam in fault.families:
            cmd += ["--family", fam]
        try:
            r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=ledger_timeout)
            out.ledger = _classify_ledger(r.returncode, r.stderr)
            led = Path(tmp) / "ledger" / "ledger.json"
            if led.exists():
                rows = json.loads(led.read_text())["rows"]
                out.detail["violated_rows"] = {x["id"]: x["violated"] for x in rows if x.get("violated")}
                out.detail["fault_rows"] = {x["id"]: x["faults"] for x in rows if x.get("faults")}
        except subprocess.TimeoutExpired:
            out.ledger = f"error: ledger timed out after {ledger_timeout:.0f} s"
        run_tests = tests == "always" or (tests == "survivors" and not out.ledger_killed)
        if run_tests and fault.tests:
            cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
                   *fault.tests]
            try:
                r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=tests_timeout)
                out.tests = _classify_tests(r.returncode, r.stdout)
                if r.returncode == 1:
                    failed = [ln for ln in r.stdout.splitlines() if ln.startswith("FAILED")]
                    out.detail["failed_test"] = failed[0][7:200] if failed else None
            except subprocess.TimeoutExpired:
                out.tests = f"error: tests timed out after {tests_timeout:.0f} s"
        elif run_tests:
            out.tests = "error: the fault names no tests"
    out.seconds = time.monotonic() - t0
    return out


def select(faults: Iterable[Fault], *, only=(), family=None, layer=None) -> list:
    """The faults named in ``only`` (all when empty), of ``family`` and ``layer`` when given;
    an unknown id is a ValueError."""
    faults = list(faults)
    ids = {f.id for f in faults}
    unknown = sorted(set(only) - ids)
    if unknown:
        raise ValueError(f"unknown fault ids: {', '.join(unknown)}")
    return [f for f in faults if (not only or f.id in only) and (family is None or family in f.families)
            and (layer is None or f.layer == layer)]


def run(faults: Iterable[Fault], *, jobs: int = 1, tests: str = "survivors", progress=None) -> list:
    """Judge every fault (``jobs`` at a time, each in its own copy); outcomes in input order."""
    faults = list(faults)

    def one(f):
        o = judge(f, tests=tests)
        if progress is not None:
            progress(o)
        return o

    if jobs <= 1:
        return [one(f) for f in faults]
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # each job is a subprocess
        return list(pool.map(one, faults))


def score(outcomes: list) -> dict:
    """The scores the issue asks for, over non-equivalent faults:

    * ``reference``: faults in the fast path: killed by the ledger alone, and by ledger plus tests;
    * ``interval``: faults in the oracle: caught by the tests or by the ledger (a second oracle's
      disagreement, or a verdict that changes).
    """
    def part(layer):
        real = [o for o in outcomes if o.fault.layer == layer and not o.fault.equivalent]
        n = len(real)
        ledger = sum(o.ledger_killed for o in real)
        both = sum(o.killed for o in real)
        errors = [o.fault.id for o in real if o.ledger.startswith("error") or o.tests.startswith("error")]
        return {"faults": n, "equivalent": sum(1 for o in outcomes if o.fault.layer == layer and o.fault.equivalent),
                "ledger_killed": ledger, "ledger_rate": ledger / n if n else None,
                "killed": both, "killed_rate": both / n if n else None,
                "survivors": [o.fault.id for o in real if not o.killed], "errors": errors}

    return {layer: part(layer) for layer in LAYERS}


def kill_table(outcomes: list) -> str:
    """The kill table and the score, as text."""
    w = max([len(o.fault.id) for o in outcomes] + [5])
    lines = [f"{'fault':{w}}  {'layer':9}  {'family':14}  {'ledger':16}  {'tests':16}  note"]
    for o in outcomes:
        f = o.fault
        note = f"equivalent: {f.equivalent}" if f.equivalent else f.what
        if o.detail.get("violated_rows"):
            note += "  [violated: " + ", ".join(f"{k} {v}" for k, v in o.detail["violated_rows"].items()) + "]"
        lines.append(f"{f.id:{w}}  {f.layer:9}  {f.family:14}  {o.ledger:16.16}  {o.tests:16.16}  {note}")
    s = score(outcomes)
    lines.append("")
    r = s["reference"]
    if r["faults"]:
        lines.append(f"fast path (reference/): {r['faults']} faults ({r['equivalent']} equivalent, not scored); "
                     f"ledger alone killed {r['ledger_killed']} = {100 * r['ledger_rate']:.1f}%; "
                     f"ledger plus tests killed {r['killed']} = {100 * r['killed_rate']:.1f}%")
    i = s["interval"]
    if i["faults"]:
        lines.append(f"oracle (interval/): {i['faults']} faults ({i['equivalent']} equivalent); caught by the "
                     f"tests or the ledger: {i['killed']} = {100 * i['killed_rate']:.1f}%")
    for layer in LAYERS:
        if s[layer]["survivors"]:
            lines.append(f"survivors ({layer}): {', '.join(s[layer]['survivors'])}")
        if s[layer]["errors"]:
            lines.append(f"harness errors ({layer}): {', '.join(s[layer]['errors'])}")
    return "\n".join(lines)


DOC = ROOT / "docs" / "reliability.md"
DOC_BEGIN, DOC_END = ("<!-- fault-suite:begin (generated by python -m tests.faults --write-doc) -->",
                      "<!-- fault-suite:end -->")


def write_block(doc: Path, begin: str, end: str, block: str) -> None:
    """Replace the text between the ``begin`` and ``end`` markers of ``doc`` by ``block`` (also
    ``mutation/run.py``'s generated block)."""
    text = doc.read_text()
    if begin not in text or end not in text:
        raise SystemExit(f"{doc} has no generated block markers {begin!r} ... {end!r}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(head + begin + "\n\n" + block.strip("\n") + "\n\n" + end + tail)


def _cell(x: str) -> str:
    return x.replace("|", "\\|").replace("\n", " ")


def markdown(outcomes: list, command: str, when: str, seconds: float) -> str:
    """The kill table as Markdown, with the score first."""
    s = score(outcomes)
    r, i = s["reference"], s["interval"]
    out = [f"Generated {when} by `{command}` ({len(outcomes)} faults, {seconds / 60:.0f} min, each planted "
           "alone in a copy of the project; tests run only for faults the ledger missed).", ""]
    if r["faults"]:
        out.append(f"- **Fast path (`reference/`)**: {r['faults']} scored faults ({r['equivalent']} more equivalent, "
                   f"listed, not scored). The ledger alone kills {r['ledger_killed']} = "
                   f"**{100 * r['ledger_rate']:.1f}%** (target 90%); ledger plus tests kill {r['killed']} = "
                   f"**{100 * r['killed_rate']:.1f}%** (target 100%).")
    if i["faults"]:
        out.append(f"- **Oracle (`interval/`)**: {i['faults']} scored faults; caught by the tests or the ledger "
                   f"(a second oracle's disagreement, or a changed verdict): {i['killed']} = "
                   f"**{100 * i['killed_rate']:.1f}%** (target 90%).")
    for layer in LAYERS:
        if s[layer]["survivors"]:
            out.append(f"- Survivors ({layer}): {', '.join('`' + x + '`' for x in s[layer]['survivors'])}.")
        if s[layer]["errors"]:
            out.append(f"- Harness errors ({layer}): {', '.join('`' + x + '`' for x in s[layer]['errors'])}.")
    out += ["", "*ledger*: `killed` (a Violated claim), `killed (fault)` (exit 4: a checker error, an oracle "
            "fault, or the fast path failing a corpus case), `survived`; *tests*: the fault's named tests "
            "(`-` not run because the ledger killed it).", "",
            "| fault | layer | family | ledger | tests | the mistake |", "|---|---|---|---|---|---|"]
    for o in outcomes:
        f = o.fault
        what = f"*equivalent*: {f.equivalent}" if f.equivalent else f.what
        out.append(f"| `{f.id}` | {f.layer} | {f.family} | {o.ledger} | {o.tests} | {_cell(what)} |")
    return "\n".join(out) + "\n"


def _from_json(path: str) -> tuple:
    data = json.loads(Path(path).read_text())
    by_id = {f.id: f for f in catalogue()}
    outs = [_outcome(rec, by_id, path) for rec in data["outcomes"]]
    return outs, data.get("command", "python -m tests.faults"), data.get("date", "?"), data.get("wall", 0.0)


def _outcome(rec: dict, by_id: dict, where: str) -> Outcome:
    f = by_id.get(rec["id"])
    if f is None:
        raise SystemExit(f"{where}: fault {rec['id']} is no longer in the catalogue")
    extra = {k: rec[k] for k in ("violated_rows", "fault_rows", "failed_test") if k in rec}
    return Outcome(f, rec["ledger"], rec["tests"], rec.get("seconds", 0.0), extra)


def _resume(partial: Path) -> tuple:
    """Outcomes already judged by an interrupted run (one JSON line each in ``partial``) and
    the wall time that run had spent."""
    if not partial.exists():
        return {}, 0.0
    by_id = {f.id: f for f in catalogue()}
    done, spent = {}, 0.0
    for line in partial.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            done[rec["id"]] = _outcome(rec, by_id, str(partial))
            spent = max(spent, rec.get("elapsed", 0.0))
    return done, spent


def main(argv=None) -> int:
    import argparse
    import datetime as dt

    p = argparse.ArgumentParser(prog="python -m tests.faults", description=__doc__.split("\n\n")[0])
    p.add_argument("-j", "--jobs", type=int, default=1, help="faults judged at once (each a subprocess)")
    p.add_argument("--tests", choices=["never", "survivors", "always"], default="survivors",
                   help="when to run a fault's tests (default: when the ledger missed it)")
    p.add_argument("--layer", choices=LAYERS, default=None)
    p.add_argument("--family", default=None)
    p.add_argument("--only", nargs="*", default=[], metavar="ID")
    p.add_argument("--list", action="store_true", help="list the catalogue and exit")
    p.add_argument("--json", default=None, metavar="FILE", help="write the outcomes and the score as JSON")
    p.add_argument("--write-doc", action="store_true", help="rewrite the kill table in docs/reliability.md")
    p.add_argument("--from-json", default=None, metavar="FILE", help="render a saved run instead of running")
    p.add_argument("--resume", action="store_true",
                   help="with --json FILE: skip the faults an interrupted run already judged (FILE.partial)")
    args = p.parse_args(argv)
    if args.from_json:
        outcomes, command, when, wall = _from_json(args.from_json)
        print(kill_table(outcomes))
        if args.write_doc:
            write_block(DOC, DOC_BEGIN, DOC_END, markdown(outcomes, command, when, wall))
            print(f"wrote {DOC.relative_to(ROOT)}")
        return 0
    faults = catalogue()
    try:
        chosen = select(faults, only=args.only, family=args.family, layer=args.layer)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # Only the chosen faults must match the code (another area's catalogue may be mid-edit);
    # tests/faults/test_catalogue.py holds the whole catalogue to that in the default suite.
    broken = [why for f in chosen if (why := f.check())]
    if broken:
        print("catalogue does not match the code:\n  " + "\n  ".join(broken), file=sys.stderr)
        return 2
    if args.list:
        for f in chosen:
            print(f"{f.id:40} {f.layer:9} {f.family:14} {'(equivalent) ' if f.equivalent else ''}{f.what}")
        return 0
    # Each outcome is also appended to FILE.partial as it arrives, so an interrupted run of
    # hours loses one fault's work, not all of it (--resume picks it up).
    partial = Path(args.json + ".partial") if args.json else None
    if partial:
        partial.parent.mkdir(parents=True, exist_ok=True)  # build/ does not exist in a fresh clone
    done, spent = _resume(partial) if (partial and args.resume) else ({}, 0.0)
    if partial and not args.resume:
        partial.unlink(missing_ok=True)
    lock = threading.Lock()
    t0 = time.monotonic()

    def progress(o):
        print(f"  {o.fault.id}: ledger {o.ledger}, tests {o.tests} ({o.seconds:.0f} s)", file=sys.stderr, flush=True)
        if partial:
            with lock, partial.open("a") as fh:
                fh.write(json.dumps({**o.to_json(), "elapsed": spent + time.monotonic() - t0}) + "\n")

    fresh = run([f for f in chosen if f.id not in done], jobs=args.jobs, tests=args.tests, progress=progress)
    done.update((o.fault.id, o) for o in fresh)
    outcomes = [done[f.id] for f in chosen]
    wall = spent + time.monotonic() - t0
    print(kill_table(outcomes))
    print(f"({len(outcomes)} faults in {wall:.0f} s, {args.jobs} at a time)")
    command = "python -m tests.faults " + " ".join(argv if argv is not None else sys.argv[1:])
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    if args.json:
        Path(args.json).write_text(json.dumps({"command": command.strip(), "date": when, "wall": wall,
                                               "outcomes": [o.to_json() for o in outcomes],
                                               "score": score(outcomes)}, indent=1) + "\n")
    if args.write_doc:
        if chosen != faults:
            print("--write-doc needs the whole catalogue (no --only/--family/--layer)", file=sys.stderr)
            return 2
        write_block(DOC, DOC_BEGIN, DOC_END, markdown(outcomes, command.strip(), when, wall))
    return 0
