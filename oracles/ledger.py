"""The evidence ledger: verdicts aggregated per guarantee row, written as JSON and Markdown.

``ledger.json`` (format ``evidence-ledger/1``) is stable for scripts; ``ledger.md`` renders the
same rows as a table an auditor reads top to bottom, each worst case linked to its inputs.
A row with no checker yet is listed with zero cases and status ``pending``; a row whose family was not selected (``--family``) has status ``not run``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from .checks import checker_for, families
from .model import Claim, Verdict, VerdictKind, undecided, violated
from .rows import ROWS, row

__all__ = ["RowTally", "Ledger", "check_claim", "run_corpus", "FORMAT"]

FORMAT = "evidence-ledger/1"


def check_claim(claim: Claim) -> Verdict:
    """Judge one claim with its row's checker.

    A claim whose guarantee class differs from its row's is Violated (an implementation may not
    relabel a guarantee); a row without a checker is Undecided, loudly, never Verified.
    """
    spec = row(claim.row)
    if claim.guarantee is not spec.guarantee:
        return violated(claim, {"claimed_guarantee": claim.guarantee.value,
                                "row_guarantee": spec.guarantee.value},
                        note="guarantee class differs from the spec's row")
    fn = checker_for(claim.row)
    if fn is None:
        return undecided(claim, None, note=f"no checker for row {claim.row} yet")
    return fn(claim)


@dataclass
class RowTally:
    id: str
    cases: int = 0
    verified: int = 0
    violated: int = 0
    undecided: int = 0
    worst: Optional[dict] = None
    first_violation: Optional[dict] = None
    first_undecided: Optional[dict] = None
    counters: dict = field(default_factory=dict)

    def add(self, v: Verdict) -> None:
        self.cases += 1
        if v.kind is VerdictKind.Verified:
            self.verified += 1
        elif v.kind is VerdictKind.Violated:
            self.violated += 1
            if self.first_violation is None:
                self.first_violation = _case_record(v)
        else:
            self.undecided += 1
            if self.first_undecided is None:
                self.first_undecided = _case_record(v)
        if v.measured is not None and math.isfinite(v.measured):
            if self.worst is None or v.measured > self.worst["value"]:
                self.worst = {"measure": v.measure, "value": v.measured, **_case_record(v)}
        for k, n in v.extra.items():
            if isinstance(n, (int, float)) and not isinstance(n, bool):
                self.counters[k] = self.counters.get(k, 0) + n

    def to_json(self) -> dict:
        spec = row(self.id)
        out = {
            "id": self.id,
            "spec_row": spec.spec_row,
            "guarantee": spec.guarantee.value,
            "status": "evidenced" if self.cases else "not run" if checker_for(self.id) else "pending",
            "cases": self.cases,
            "verified": self.verified,
            "violated": self.violated,
            "undecided": self.undecided,
            "worst": self.worst,
        }
        if self.counters:
            out["counters"] = self.counters
        if self.first_violation is not None:
            out["first_violation"] = self.first_violation
        if self.first_undecided is not None:
            out["first_undecided"] = self.first_undecided
        return out


def _empty_text(row_id: str) -> str:
    return "not run (family not selected)" if checker_for(row_id) else "pending (no checker yet)"


def _worst_text(t: RowTally) -> str:
    return f"{t.worst['measure']} = {t.worst['value']:.3g}"


def _case_record(v: Verdict) -> dict:
    rec = {"case": v.claim.inputs, "claimed": v.claim.value, "prec": v.prec, "note": v.note}
    if v.claim.model is not None:
        rec["model"] = v.claim.model
    if v.witness is not None:
        rec["witness"] = v.witness
    if v.enclosure is not None:
        rec["enclosure"] = v.enclosure
    return rec


class Ledger:
    """Per-row tallies, in the order of ``oracles.rows.ROWS``."""

    def __init__(self, seed: Optional[int] = None, source: str = "built-in corpus"):
        self.seed = seed
        self.source = source
        self.tallies = {r.id: RowTally(r.id) for r in ROWS}
        self.timings: dict[str, float] = {}
        self.malformed: list[str] = []

    def add(self, v: Verdict) -> None:
        self.tallies[v.claim.row].add(v)

    @property
    def violated(self) -> int:
        return sum(t.violated for t in self.tallies.values())

    def to_json(self) -> dict:
        precs = sorted({p for f in families() for p in f.oracle_precisions})
        from . import __version__

        out = {
            "format": FORMAT,
            "generated_by": f"ludus-geometry-reference {__version__}",
            "seed": self.seed,
            "source": self.source,
            "oracle": {"backend": "mpmath-iv + gmpy2-mpq", "prec_bits": precs},
            "rows": [self.tallies[r.id].to_json() for r in ROWS],
            "seconds": {k: round(v, 3) for k, v in self.timings.items()},
        }
        if self.malformed:
            out["malformed"] = self.malformed
        return out

    def summary_lines(self) -> list[str]:
        lines = [f"{'row':34} {'guarantee':11} {'cases':>6} {'verified':>8} {'violated':>8} "
                 f"{'undecided':>9}  worst"]
        for r in ROWS:
            t = self.tallies[r.id]
            worst = _worst_text(t) if t.cases and t.worst else "-" if t.cases else _empty_text(r.id)
            lines.append(f"{r.id:34} {r.guarantee.value:11} {t.cases:6d} {t.verified:8d} "
                         f"{t.violated:8d} {t.undecided:9d}  {worst}")
        return lines

    def to_markdown(self) -> str:
        out = ["# Evidence ledger", "",
               f"Source: {self.source}; seed {self.seed}. Verdicts: Verified (shown to hold), "
               "Violated (shown to fail, with a witness), Undecided (not decided within the "
               "oracle's precision budget; never counted as verified).", "",
               "| row | guarantee | spec row | cases | verified | violated | undecided | worst |",
               "|---|---|---|---:|---:|---:|---:|---|"]
        details = []
        for r in ROWS:
            t = self.tallies[r.id]
            worst = "-" if t.cases else _empty_text(r.id)
            if t.cases and t.worst:
                anchor = r.id.replace(".", "-")
                worst = f"[{_worst_text(t)}](#{anchor})"
                details.append((anchor, r.id, t))
            out.append(f"| `{r.id}` | {r.guarantee.value} | {r.spec_row} | {t.cases} | "
                       f"{t.verified} | {t.violated} | {t.undecided} | {worst} |")
        for anchor, rid, t in details:
            out += ["", f'<a id="{anchor}"></a>', f"## {rid}", ""]
            if t.counters:
                out.append("Counters: " + ", ".join(f"{k} = {v}" for k, v in sorted(t.counters.items())))
                out.append("")
            out += ["Worst case:", "", "```json", json.dumps(t.worst, indent=1, sort_keys=True), "```"]
            if t.first_violation is not None:
                out += ["", "First violation:", "", "```json",
                        json.dumps(t.first_violation, indent=1, sort_keys=True), "```"]
            if t.first_undecided is not None:
                out += ["", "First undecided:", "", "```json",
                        json.dumps(t.first_undecided, indent=1, sort_keys=True), "```"]
        return "\n".join(out) + "\n"

    def write(self, out_dir: Path) -> tuple[Path, Path]:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        pj, pm = out_dir / "ledger.json", out_dir / "ledger.md"
        pj.write_text(json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n")
        pm.write_text(self.to_markdown())
        return pj, pm


class _Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int, enabled: Optional[bool] = None):
        self.total = max(total, 1)
        self.done = 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.t0 = time.monotonic()

    def step(self, label: str, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        frac = min(self.done / self.total, 1.0)
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {label:24.24} "
                         f"{time.monotonic() - self.t0:6.1f}s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def run_corpus(seed: int, cases: Optional[int] = None, only: Iterable[str] = (),
               progress: Optional[bool] = None) -> Ledger:
    """Generate each family's cases, run the fast path, check every claim, tally the verdicts.

    Args:
        seed: corpus seed (deterministic).
        cases: cases per family (default: each family's ``default_cases``).
        only: family names to run (default: all).
        progress: force the stderr progress bar on or off (default: when stderr is a tty).
    """
    fams = [f for f in families() if not only or f.name in set(only)]
    plan = [(f, f.generate(seed, f.default_cases if cases is None else cases)) for f in fams]
    ledger = Ledger(seed=seed)
    bar = _Progress(sum(len(c) for _, c in plan), progress)
    for fam, fam_cases in plan:
        t0 = time.monotonic()
        for case in fam_cases:
            for claim in fam.claims(case):
                ledger.add(check_claim(claim))
            bar.step(fam.name)
        ledger.timings[fam.name] = time.monotonic() - t0
    bar.close()
    return ledger
