"""The evidence ledger: verdicts aggregated per guarantee row, written as JSON and Markdown.

``ledger.json`` (format ``evidence-ledger/2``) is stable for scripts; ``ledger.md`` renders the
same rows for an auditor who reads it without the code: per row what is checked and the bound
formula, counts of claims and of cases, the worst measured value, the declared error models'
ratio to the project's reference model, and every Violated row's first witnesses with the
truth in decimal. A row with no checker yet is listed with status ``pending``; a row whose
family was not selected (``--family``) has status ``not run``; a row whose property no oracle
can refute has status ``unrefutable`` and counts none of its claims as verified. A case file's
ledger names the rows it has no claims of as ``not run``, with ``checks`` null: describing them
would import every family for a one-row file (docs/decisions.md, "A case file's ledger imports
only its rows' families").

``cases`` counts corpus cases (a ledger run) or distinct ``inputs`` objects (a case file);
``claims`` counts claims.

Long on purpose: one data structure (a row's tally) and its two renderings (JSON, Markdown),
which must change together when a field is added; the corpus run is the short tail that fills it.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any
from collections.abc import Iterable

from .batch import MALFORMED_ERRORS, Pending, check_claim, deferred, judge, resolve_pending
from .families import checker_for, contract_for, families
from .family import corpus_range
from .model import (NumberError, Verdict, VerdictKind, error_summary, parse_number)
from .reports import SORTED_JSON
from .rows import ROWS, row

__all__ = [
    "FORMAT",
    "MALFORMED_ERRORS",
    "MAX_SCALE",
    "WITNESSES_KEPT",
    "Ledger",
    "ProducerError",
    "RowTally",
    "case_count",
    "check_claim",
    "corpus_run",
    "decimal_view",
    "fmt_measure",
    "judge",
    "judge_cases",
    "run_corpus",
    "select_families",
]

FORMAT = "evidence-ledger/2"
WITNESSES_KEPT = 5  # first Violated / Undecided records kept per row (every index is listed)


# check_claim, judge and MALFORMED_ERRORS live in oracles.batch (one claim or a row's batch);
# imported here too, where callers have always found them.


@dataclass(frozen=True)
class ProducerError:
    """The fast path raised while making a corpus case's claims: the rest of that case's claims
    were not made. ``family`` and ``case`` name the case; ``summary`` is
    :func:`oracles.model.error_summary`; ``claims_before`` counts the case's claims judged."""

    family: str
    case: int
    summary: dict
    claims_before: int = 0

    def to_json(self) -> dict:
        return {"family": self.family, "case": self.case, "claims_before": self.claims_before, **self.summary}

    def __str__(self) -> str:
        return f"{self.family} case {self.case}: {self.summary['error']}"


BLOCK_CASES = 100  # cases whose claims are judged together (a row's batch); bounds memory


def judge_cases(fam, cases, first: int, add, unanswered=None) -> list:
    """Judge corpus cases ``first, first + 1, ...`` of ``fam``; returns the fast path's errors.

    For a family of requests (``oracles.request``) each case is a request: our fast path answers
    it through the family's adapter and the answer is judged whole (``oracles.contract``:
    statuses, values, rules, completeness; ``unanswered(row, where)`` records what it left
    unanswered). A request the fast path raised on is unanswered as well as a producer error.
    In the older form each case's claims are judged. Either way the claims of a block of
    :data:`BLOCK_CASES` cases are decided together, a row at a time (``oracles.batch``), and
    ``add(verdict, k)`` sees the verdicts in case order, then claim order, as one by one would.
    A fast-path exception ends its case and is returned, never raised. Our fast path's claims
    opt in to the project's decisions (``oracles.rules.ours``): they bind it."""
    from .contract import judge_answer
    from .rules import our_answer, ours

    errors = []
    unanswered = unanswered or (lambda row, where: None)
    cases = list(cases)
    for lo in range(0, len(cases), BLOCK_CASES):
        slots: list = []  # (k, Verdict or Pending)
        for k, case in enumerate(cases[lo:lo + BLOCK_CASES], start=first + lo):
            mine: list = []
            if fam.answers_requests:
                try:
                    ans = fam.answer(case)
                except Exception as e:
                    judge_answer(case, None, deferred, mine.append, unanswered)
                    errors.append(ProducerError(fam.name, k, error_summary(e), len(mine)))
                else:
                    judge_answer(case, our_answer(ans), deferred, mine.append, unanswered)
            else:
                try:
                    for claim in ours(fam.claims(case)):
                        mine.append(Pending(claim))
                except Exception as e:
                    errors.append(ProducerError(fam.name, k, error_summary(e), len(mine)))
            slots += [(k, v) for v in mine]
        resolve_pending(v for _, v in slots)
        for k, v in slots:
            add(v.verdict if isinstance(v, Pending) else v, k)
    return errors


# --- Formatting ------------------------------------------------------------------------------


def fmt_measure(x: float | None) -> str:
    """A measured value with enough digits that its side of 1 (and of 0) is never misprinted:
    0.99996 prints as 0.99996, never as 1."""
    if x is None:
        return "-"
    if not math.isfinite(x):
        return str(x)
    for digits in range(4, 18):
        s = f"{x:.{digits}g}"
        y = float(s)
        if (y < 1) == (x < 1) and (y > 1) == (x > 1) and (y == 0) == (x == 0):
            return s
    return repr(x)


_MAX_F64 = Fraction(sys.float_info.max)


def _decimal17(q) -> str:
    if isinstance(q, float):
        return repr(q)
    if q == 0:
        return "0"
    if q.denominator & (q.denominator - 1) == 0 and abs(q) <= _MAX_F64:  # maybe a float64 value
        x = float(q)
        if x == q:  # it is: Python's own correctly rounded 17 digits, no gmpy2 import for it
            return format(x, ".17g")
    import gmpy2

    return format(gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator), 80), ".17g")


def decimal_view(x: Any) -> Any:
    """The same structure with every claim number (hex, ``p/q``) shown in decimal to 17
    significant digits, for people; the exact text stays in ``ledger.json``."""
    if isinstance(x, dict):
        return {k: decimal_view(v) for k, v in x.items()}
    if isinstance(x, list):
        return [decimal_view(v) for v in x]
    if isinstance(x, str) and x[:1] in "+-0123456789" and ("/" in x or x.lstrip("+-").startswith("0x")):
        try:
            q = parse_number(x)
        except NumberError:
            return x
        return _decimal17(q) if isinstance(q, Fraction) else str(q)
    return x


def compact_json(x: Any, indent: int = 0) -> str:
    """JSON for people: objects one field a line, arrays of numbers (and short nested arrays)
    on one line, so a witness reads as a table rather than a column of digits."""
    pad = " " * indent
    flat = json.dumps(x, sort_keys=True)
    if not isinstance(x, (list, dict)) or len(flat) <= 100:
        return flat
    if isinstance(x, list) and all(not isinstance(v, (list, dict)) for v in x):
        return flat
    if isinstance(x, list):
        return "[\n" + ",\n".join(pad + " " + compact_json(v, indent + 1) for v in x) + "\n" + pad + "]"
    return "{\n" + ",\n".join(f"{pad} {json.dumps(k)}: {compact_json(v, indent + 1)}"
                               for k, v in sorted(x.items())) + "\n" + pad + "}"


def _record(v: Verdict, index: int | None) -> dict:
    rec = {"claim": index} if v.claim.id is None else {"claim": index, "id": v.claim.id}
    rec.update({"case": v.claim.inputs, "claimed": v.claim.value, "prec": v.prec, "note": v.note})
    if v.measure is not None:
        rec["measure"], rec["measured"] = v.measure, v.measured
    if v.claim.model is not None:
        rec["model"] = v.claim.model
    if v.claim.decisions:
        rec["decisions"] = True
    if v.rule is not None:
        rec["rule"] = v.rule
    if v.unmet:
        rec["unmet"] = list(v.unmet)
    if v.witness is not None:
        rec["witness"] = v.witness
    if v.enclosure is not None:
        rec["enclosure"] = v.enclosure
    return rec


# --- Tallies ---------------------------------------------------------------------------------


@dataclass
class RowTally:
    id: str
    claims: int = 0
    verified: int = 0
    violated: int = 0
    undecided: int = 0
    faults: int = 0  # CheckerError and OracleFault verdicts: claims not judged
    worst: dict | None = None
    closest: dict | None = None  # the largest bound_use: {"bound_use", "claim"}
    violations: list = field(default_factory=list)  # first WITNESSES_KEPT records
    undecideds: list = field(default_factory=list)
    fault_records: list = field(default_factory=list)
    violated_claims: list = field(default_factory=list)  # every Violated claim's index
    fault_claims: list = field(default_factory=list)  # every CheckerError / OracleFault claim's index
    counters: dict = field(default_factory=dict)
    declared_ratio: float | None = None  # largest declared/reference model ratio
    declared_claims: int = 0
    unanswered: int = 0  # requests (or steps) that left this row without an answer
    unanswered_requests: list = field(default_factory=list)  # the first WITNESSES_KEPT * 4 of them
    # --- rules (oracles.rules): which rule refuted each Violated claim, decisions not met ---
    opted_in: int = 0  # claims that opted in to the project's decisions
    violated_by: dict = field(default_factory=dict)  # rule id (or "untagged") -> Violated claims
    unmet: dict = field(default_factory=dict)  # decision id -> claims (not opted in) not meeting it
    unmet_claims: list = field(default_factory=list)  # their first WITNESSES_KEPT * 4 indices
    _cases: set = field(default_factory=set, repr=False)

    @property
    def cases(self) -> int:
        return len(self._cases)

    def add(self, v: Verdict, index: int | None = None, case_key: Any = None) -> None:
        self.claims += 1
        self._cases.add(case_key if case_key is not None else SORTED_JSON(v.claim.inputs))
        self._add_rules(v, index)
        if v.kind is VerdictKind.Verified:
            self.verified += 1
        elif v.kind is VerdictKind.Violated:
            self.violated += 1
            self.violated_claims.append(index)
            if len(self.violations) < WITNESSES_KEPT:
                self.violations.append(_record(v, index))
        elif v.kind in (VerdictKind.CheckerError, VerdictKind.OracleFault):
            self.faults += 1
            self.fault_claims.append(index)
            if len(self.fault_records) < WITNESSES_KEPT:
                self.fault_records.append({"kind": v.kind.value, **_record(v, index)})
        else:
            self.undecided += 1
            if len(self.undecideds) < WITNESSES_KEPT:
                self.undecideds.append(_record(v, index))
        if v.measured is not None and math.isfinite(v.measured):
            if self.worst is None or v.measured > self.worst["value"]:
                self.worst = {"measure": v.measure, "value": v.measured, **_record(v, index)}
        if v.bound_use is not None and not math.isnan(v.bound_use):
            if self.closest is None or v.bound_use > self.closest["bound_use"]:
                self.closest = {"bound_use": v.bound_use, "claim": index}
        for k, n in v.extra.items():
            if k == "declared_model" and isinstance(n, dict):
                self.declared_claims += 1
                r = n.get("declared_over_reference")
                if r is not None and (self.declared_ratio is None or r > self.declared_ratio):
                    self.declared_ratio = float(r)
            elif isinstance(n, (int, float)) and not isinstance(n, bool):
                self.counters[k] = self.counters.get(k, 0) + n

    def _add_rules(self, v: Verdict, index: int | None) -> None:
        if v.claim.decisions:
            self.opted_in += 1
        if v.kind is VerdictKind.Violated:
            key = v.rule or "untagged"
            self.violated_by[key] = self.violated_by.get(key, 0) + 1
        if v.unmet:
            for r in v.unmet:
                self.unmet[r] = self.unmet.get(r, 0) + 1
            if len(self.unmet_claims) < 4 * WITNESSES_KEPT:
                self.unmet_claims.append(index)

    def rules_json(self) -> dict:
        """The row's rules and how its claims met them: every rule it applies (id and source),
        claims that opted in to the decisions, Violated claims by refuting rule and by source
        (``decision``: refuted by a decision of ours alone), and decisions not met by claims
        that did not opt in (their verdicts follow the spec's rules)."""
        from .rules import rules_of

        by_source: dict = {}
        for rid, n in self.violated_by.items():
            src = _rule_source(rid)
            by_source[src] = by_source.get(src, 0) + n
        out = {"applied": [{"id": r.id, "source": r.source} for r in rules_of(self.id)],
               "opted_in": self.opted_in, "violated_by": dict(sorted(self.violated_by.items())),
               "violated_by_source": by_source, "decisions_unmet": dict(sorted(self.unmet.items()))}
        if self.unmet_claims:
            out["unmet_claims"] = self.unmet_claims
        return out

    def add_unanswered(self, where: str) -> None:
        """A request (``where``: its id, and step) gave this row no answer."""
        self.unanswered += 1
        if len(self.unanswered_requests) < 4 * WITNESSES_KEPT:
            self.unanswered_requests.append(where)

    def merge(self, other: RowTally, offset: int = 0) -> None:
        """Append ``other``, the tally of the claims that follow this one's (its claim indices
        shifted by ``offset``): the same tally as adding its verdicts here one by one
        (oracles.distributed merges chunk tallies in corpus order with it)."""
        def shift(rec):
            if rec is None or rec.get("claim") is None:
                return rec
            return {**rec, "claim": rec["claim"] + offset}

        self.claims += other.claims
        self.verified += other.verified
        self.violated += other.violated
        self.undecided += other.undecided
        self.faults += other.faults
        self._cases |= other._cases
        self.violated_claims += [None if i is None else i + offset for i in other.violated_claims]
        self.fault_claims += [None if i is None else i + offset for i in other.fault_claims]
        self.violations += [shift(r) for r in other.violations[:max(0, WITNESSES_KEPT - len(self.violations))]]
        self.undecideds += [shift(r) for r in other.undecideds[:max(0, WITNESSES_KEPT - len(self.undecideds))]]
        self.fault_records += [shift(r) for r in other.fault_records[:max(0, WITNESSES_KEPT - len(self.fault_records))]]
        if other.worst is not None and (self.worst is None or other.worst["value"] > self.worst["value"]):
            self.worst = shift(other.worst)
        if other.closest is not None and (self.closest is None
                                          or other.closest["bound_use"] > self.closest["bound_use"]):
            self.closest = shift(other.closest)
        self.declared_claims += other.declared_claims
        self.unanswered += other.unanswered
        self.unanswered_requests += other.unanswered_requests[
            :max(0, 4 * WITNESSES_KEPT - len(self.unanswered_requests))]
        if other.declared_ratio is not None and (self.declared_ratio is None
                                                 or other.declared_ratio > self.declared_ratio):
            self.declared_ratio = other.declared_ratio
        for k, n in other.counters.items():
            self.counters[k] = self.counters.get(k, 0) + n
        self.opted_in += other.opted_in
        for k, n in other.violated_by.items():
            self.violated_by[k] = self.violated_by.get(k, 0) + n
        for k, n in other.unmet.items():
            self.unmet[k] = self.unmet.get(k, 0) + n
        self.unmet_claims += [None if i is None else i + offset
                              for i in other.unmet_claims[:max(0, 4 * WITNESSES_KEPT - len(self.unmet_claims))]]

    def status(self, describe: bool = True) -> str:
        """``describe=False``: a case file's ledger naming a row it has no claims of, which it
        need not import the row's family to name (``not run``)."""
        if not describe and not self.claims and not self.unanswered:
            return "not run"
        c = contract_for(self.id)
        if c is not None and not c.refutable:
            return "unrefutable"
        if self.unanswered and not self.claims:
            return "unanswered"
        return "evidenced" if self.claims else "not run" if checker_for(self.id) else "pending"  # "not run": no claims

    def to_json(self, describe: bool = True) -> dict:
        """The row's JSON; ``describe=False`` (see :meth:`status`) leaves ``checks`` null for a
        row without claims or unanswered requests."""
        describe = describe or bool(self.claims or self.unanswered)
        spec, c = row(self.id), contract_for(self.id) if describe else None
        out = {
            "id": self.id,
            "spec_row": spec.spec_row,
            "guarantee": spec.guarantee.value,
            "checks": c.checks if c is not None else None,
            "status": self.status(describe),
            "claims": self.claims,
            "cases": self.cases,
            "verified": self.verified,
            "violated": self.violated,
            "undecided": self.undecided,
            "faults": self.faults,
            "unanswered": self.unanswered,
            "worst": self.worst,
            "closest_to_bound": self.closest,
        }
        if self.declared_claims:
            out["declared_models"] = {"claims": self.declared_claims,
                                      "max_declared_over_reference": self.declared_ratio}
        if self.counters:
            out["counters"] = self.counters
        if self.violated:
            out["violated_claims"] = self.violated_claims
            out["violations"] = self.violations
        if self.undecideds:
            out["undecided_records"] = self.undecideds
        if self.faults:
            out["fault_claims"] = self.fault_claims
            out["fault_records"] = self.fault_records
        if self.unanswered:
            out["unanswered_requests"] = self.unanswered_requests
        if self.claims:
            out["rules"] = self.rules_json()
        return out


def _rule_source(rule_id: str) -> str:
    """``spec``, ``default`` or ``decision`` for a rule id; ``untagged`` for a Violated verdict
    that names none, ``unknown`` for an id no family declares."""
    from .rules import rule

    if rule_id == "untagged":
        return "untagged"
    try:
        return rule(rule_id).source
    except KeyError:
        return "unknown"


_SOURCE_WORDS = {"spec": "the spec", "default": "documented defaults", "decision": "decisions of ours"}


def _rules_lines(t: RowTally) -> list:
    """The Markdown lines of a row's rules: what it applies, by source, and how its claims met
    them."""
    from .rules import rules_of

    rs = rules_of(t.id)
    out = []
    for src in ("spec", "default", "decision"):
        ids = [f"`{r.id}`" for r in rs if r.source == src]
        if ids:
            out.append(f"Rules from {_SOURCE_WORDS[src]}: {', '.join(ids)}.")
    if any(r.source == "decision" for r in rs):
        out.append(f"Decisions of ours bind the {t.opted_in} claims that opted in (of {t.claims}); the other "
                   "claims are judged by the spec's rules and the documented defaults.")
    if t.violated:
        by = t.rules_json()["violated_by_source"]
        out.append("Violated by: " + ", ".join(f"{_SOURCE_WORDS.get(k, k)} {n}" for k, n in sorted(by.items()))
                   + " (" + ", ".join(f"`{k}` {n}" for k, n in sorted(t.violated_by.items())) + ").")
    if t.unmet:
        shown = ", ".join(str(i) for i in t.unmet_claims[:10])
        out.append("Decisions of ours not met by claims that did not opt in (their verdicts follow the spec's "
                   "rules): " + ", ".join(f"`{k}` {n}" for k, n in sorted(t.unmet.items()))
                   + f" (first claims: {shown}).")
    return out


def _empty_text(row_id: str, corpus: bool = True) -> str:
    if not corpus:
        return "no claims"  # a case file's ledger does not import the families it has no claims of
    if not checker_for(row_id):
        return "pending (no checker yet)"
    return "not run (family not selected)"


def _worst_text(t: RowTally) -> str:
    return f"{t.worst['measure']} = {fmt_measure(t.worst['value'])}"


def _use_text(t: RowTally) -> str:
    return "-" if t.closest is None else fmt_measure(t.closest["bound_use"])


class Ledger:
    """Per-row tallies, in the order of ``oracles.rows.ROWS``.

    Args:
        seed: the corpus seed (None for a case file).
        source: what was judged ("built-in corpus" or the case file's path).
        producer: who made the claims (the case file's ``producer``).
        run: what identifies this run (command, source digest or corpus parameters); ``check``
            refuses to overwrite a ledger of a different run without ``--force``.
    """

    def __init__(self, seed: int | None = None, source: str = "built-in corpus",
                 producer: str | None = None, run: dict | None = None):
        self.seed = seed
        self.source = source
        self.producer = producer
        self.run = run or {}
        self.tallies = {r.id: RowTally(r.id) for r in ROWS}
        self.timings: dict[str, float] = {}
        self.malformed: list = []  # oracles.schema.FieldError, or checker-raised errors
        self.numbers: dict | None = None  # a case file's NumberReport.to_json(): decimals read by rounding
        self.producer_errors: list = []  # ProducerError: the fast path raised on a corpus case

    def add(self, v: Verdict, index: int | None = None, case_key: Any = None) -> None:
        self.tallies[v.claim.row].add(v, index, case_key)

    def add_unanswered(self, row_id: str, where: str) -> None:
        self.tallies[row_id].add_unanswered(where)

    @property
    def unanswered(self) -> int:
        """Rows left without an answer, summed over requests (0 for a claims/1 file)."""
        return sum(t.unanswered for t in self.tallies.values())

    @property
    def violated(self) -> int:
        return sum(t.violated for t in self.tallies.values())

    @property
    def undecided(self) -> int:
        return sum(t.undecided for t in self.tallies.values())

    @property
    def faults(self) -> int:
        """Claims not judged because the checker raised or two oracles disagreed, plus corpus
        cases on which the fast path raised: faults of the verification run itself."""
        return sum(t.faults for t in self.tallies.values()) + len(self.producer_errors)

    @property
    def judged(self) -> int:
        return sum(t.claims for t in self.tallies.values())

    def unchecked_rows(self) -> list[str]:
        """Rows with claims but no checker (their claims are Undecided)."""
        return [rid for rid, t in self.tallies.items() if t.claims and checker_for(rid) is None]

    def to_json(self, *, timings: bool = True) -> dict:
        # A corpus run names every family's oracles; a case file's ledger only those of the rows
        # it has claims of (so that judging one row imports one family).
        if self.seed is not None:
            fams, named = families(), ROWS
        else:
            from .families import family_named

            named = [r for r in ROWS if self.tallies[r.id].claims or self.tallies[r.id].unanswered]
            fams = [f for f in map(family_named, dict.fromkeys(r.id.split(".", 1)[0] for r in named)) if f is not None]
        precs = sorted({p for f in fams for p in f.oracle_precisions})
        from . import __version__

        out = {
            "format": FORMAT,
            "generated_by": f"ludus-geometry-reference {__version__}",
            "seed": self.seed,
            "source": self.source,
            "producer": self.producer,
            "run": self.run,
            "oracle": {"backend": "mpmath-iv + gmpy2-mpq + FLINT Arb (second enclosures)", "prec_bits": precs,
                       "rows": {r.id: list(c.oracles) for r in named
                                if (c := contract_for(r.id)) is not None and c.oracles}},
            "totals": {"claims": self.judged, "violated": self.violated, "undecided": self.undecided,
                       "faults": self.faults, "malformed": len(self.malformed), "unanswered": self.unanswered},
            "rows": [self.tallies[r.id].to_json(self.seed is not None) for r in ROWS],
            "rules": self.rules_table(),
        }
        if self.numbers is not None:
            out["numbers"] = self.numbers
        if self.malformed:
            out["malformed"] = [str(m) for m in self.malformed]
        if self.producer_errors:
            out["producer_errors"] = [e.to_json() for e in self.producer_errors]
        if timings:
            out["seconds"] = {k: round(v, 3) for k, v in self.timings.items()}
        return out

    def rules_table(self) -> dict:
        """``{rule id: {"source", "text", "rows"}}`` of every rule the rows with claims apply
        (``oracles.rules``): where each rule comes from, for an auditor."""
        from .rules import rules_of

        out: dict = {}
        for r in ROWS:
            if not self.tallies[r.id].claims:
                continue
            for rule in rules_of(r.id):
                e = out.setdefault(rule.id, {"source": rule.source, "text": rule.text, "rows": []})
                e["rows"].append(r.id)
        return dict(sorted(out.items()))

    def summary_lines(self, all_rows: bool = True) -> list[str]:
        """The row table; with ``all_rows`` False only rows with claims or unanswered requests."""
        lines = [f"{'row':34} {'guarantee':11} {'claims':>7} {'cases':>6} {'verified':>8} {'violated':>8} "
                 f"{'undecided':>9} {'faults':>6} {'unanswered':>10} {'bound use':>9}  worst"]
        for r in ROWS:
            t = self.tallies[r.id]
            if not all_rows and not t.claims and not t.unanswered:
                continue
            worst = (_worst_text(t) if t.claims and t.worst
                     else "-" if t.claims else _empty_text(r.id, self.seed is not None))
            lines.append(f"{r.id:34} {r.guarantee.value:11} {t.claims:7d} {t.cases:6d} {t.verified:8d} "
                         f"{t.violated:8d} {t.undecided:9d} {t.faults:6d} {t.unanswered:10d} {_use_text(t):>9}  "
                         f"{worst}")
        for e in self.producer_errors:
            lines.append(f"producer error: {e}")
        return lines

    def _oracle_lines(self) -> list[str]:
        """The header's list of rows whose truth two independent oracles enclose."""
        rows = [(r.id, c.oracles) for r in ROWS if (self.seed is not None or self.tallies[r.id].claims)
                and (c := contract_for(r.id)) is not None and len(c.oracles) > 1]
        if not rows:
            return []
        return (["Rows enclosed by two independent oracles (overlap checked per claim; disjoint "
                 "enclosures are an OracleFault):", ""]
                + [f"- `{rid}`: " + "; ".join(o) for rid, o in rows] + [""])

    def to_markdown(self) -> str:
        head = f"Source: {self.source}"
        if self.seed is not None:
            head += f"; seed {self.seed}"
        if self.producer:
            head += f"; producer: {self.producer}"
        out = ["# Evidence ledger", "",
               head + ".", "",
               *self._oracle_lines(),
               "Verdicts: Verified (shown to hold), Violated (shown to fail, with a witness), Undecided "
               "(not decided within the oracle's precision budget, or no checker; never counted as "
               "verified), and *faults*: claims not judged because the checker raised or two "
               "independent oracles disagreed. *cases* counts corpus cases (or distinct inputs of a "
               "case file), *claims* counts claims. *bound use* is how close the worst claim came to "
               "its bound (1 is at the bound; rows without a bound show -). Numbers below are decimal "
               "to 17 significant digits; `ledger.json` holds them exactly.", "",
               "| row | guarantee | status | claims | cases | verified | violated | undecided | faults "
               "| unanswered | bound use | worst |",
               "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in ROWS:
            t = self.tallies[r.id]
            worst = "-" if t.claims else _empty_text(r.id, self.seed is not None)
            if t.claims and t.worst:
                worst = f"[{_worst_text(t)}](#{r.id.replace('.', '-')})"
            status = t.status(self.seed is not None)
            out.append(f"| `{r.id}` | {r.guarantee.value} | {status} | {t.claims} | {t.cases} | "
                       f"{t.verified} | {t.violated} | {t.undecided} | {t.faults} | {t.unanswered} | "
                       f"{_use_text(t)} | {worst} |")
        if self.producer_errors:
            out += ["", "## Producer errors", "",
                    f"The fast path raised on {len(self.producer_errors)} corpus cases (their remaining "
                    "claims were not made):", ""]
            out += [f"- {e}: at {' <- '.join(reversed(e.summary['traceback'][-3:]))}"
                    for e in self.producer_errors[:50]]
        if self.numbers is not None and self.numbers.get("read_by_rounding"):
            n = self.numbers
            out += ["", "## Numbers read by rounding", "",
                    f"{n['read_by_rounding']} decimals were not exactly a value of their field's format and "
                    f"were read as the nearest value; {n['short_decimals']} of them have fewer significant "
                    "digits than identify a value (17 for float64, 9 for float32) and may not be the values "
                    "the producer computed" + (f" (first: {', '.join(n['first_short'])})" if n["first_short"]
                                               else "") + "."]
        if self.malformed:
            out += ["", "## Malformed claims", "", f"{len(self.malformed)} malformed (not judged):", ""]
            out += [f"- {m}" for m in self.malformed[:50]]
            if len(self.malformed) > 50:
                out.append(f"- ... and {len(self.malformed) - 50} more (see ledger.json)")
        for r in ROWS:
            t = self.tallies[r.id]
            if not t.claims and not t.unanswered:
                continue
            c = contract_for(r.id)
            out += ["", f'<a id="{r.id.replace(".", "-")}"></a>', f"## {r.id}", "",
                    f"*{r.spec_row}* ({r.guarantee.value}).", ""]
            if c is not None:
                out += [f"Checks: {c.checks}", ""]
                if c.oracles:
                    out += ["Oracles (independent enclosures, overlap checked per claim): "
                            + "; ".join(c.oracles) + ".", ""]
            out.append(f"{t.claims} claims over {t.cases} cases: {t.verified} verified, {t.violated} "
                       f"violated, {t.undecided} undecided, {t.faults} faults.")
            if t.claims:
                out += _rules_lines(t)
            if t.closest is not None:
                out.append(f"Closest to its bound: claim {t.closest['claim']} used "
                           f"{fmt_measure(t.closest['bound_use'])} of it.")
            if t.declared_claims:
                out.append(f"Declared error models on {t.declared_claims} claims; the largest declared "
                           f"bound is {fmt_measure(t.declared_ratio)} times the project's reference model.")
            if t.counters:
                out.append("Counters: " + ", ".join(f"{k} = {v}" for k, v in sorted(t.counters.items())) + ".")
            if t.worst:
                out += ["", f"Worst case ({_worst_text(t)}):", "", "```json",
                        compact_json(decimal_view(t.worst)), "```"]
            if t.violations:
                shown = ", ".join(str(i) for i in t.violated_claims[:20])
                more = f" and {t.violated - 20} more" if t.violated > 20 else ""
                out += ["", f"Violated claims (index): {shown}{more}. First witnesses:", ""]
                for rec in t.violations:
                    out += ["```json", compact_json(decimal_view(rec)), "```"]
            if t.fault_records:
                shown = ", ".join(str(i) for i in t.fault_claims[:20])
                more = f" and {t.faults - 20} more" if t.faults > 20 else ""
                out += ["", f"Faults of the verification (claims not judged; index): {shown}{more}. First records:", ""]
                for rec in t.fault_records:
                    out += ["```json", compact_json(decimal_view(rec)), "```"]
            if t.unanswered:
                out += ["", f"Unanswered: {t.unanswered} (first requests: "
                        + ", ".join(f"`{w}`" for w in t.unanswered_requests[:10]) + ")."]
            if t.undecideds:
                out += ["", "First undecided:", ""]
                for rec in t.undecideds[:2]:
                    out += ["```json", compact_json(decimal_view(rec)), "```"]
        rules = self.rules_table()
        if rules:
            out += ["", "## Rules and their sources", "",
                    "Every rule a row applies, by source: *spec* (a sentence of spec 002 or 004), *default* (a "
                    "documented decision the spec makes necessary: an error model, an acceptance factor, a band, a "
                    "limit; it applies to every claim, and a declared model replaces the error model), *decision* "
                    "(a decision of ours beyond the spec: it binds our fast path and claims that opt in with "
                    "`\"decisions\": true`; other claims are judged without it and the rows count where they do not "
                    "meet it)." + (" Our fast path's claims opt in." if self.seed is not None else ""), "",
                    "| rule | source | rows | text |", "|---|---|---|---|"]
            for rid, e in rules.items():
                text = e["text"].replace("|", "\\|")
                out.append(f"| `{rid}` | {e['source']} | {', '.join(f'`{x}`' for x in e['rows'])} | {text} |")
        return "\n".join(out) + "\n"

    def write(self, out_dir: Path, *, timings: bool = True) -> tuple[Path, Path]:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        pj, pm = out_dir / "ledger.json", out_dir / "ledger.md"
        pj.write_text(json.dumps(self.to_json(timings=timings), indent=1, sort_keys=False) + "\n")
        pm.write_text(self.to_markdown())
        return pj, pm


def _Progress(total: int, enabled: bool | None = None, **kw):
    """The run's progress (``oracles.progress.Progress``): a bar on a terminal, a line every
    10 s in a log."""
    from .progress import Progress

    return Progress(total, enabled, **kw)


def select_families(only: Iterable[str] = ()) -> list:
    """The families named in ``only`` (all when empty); an unknown name is a ValueError."""
    only = list(only)
    known = {f.name for f in families()}
    unknown = sorted(set(only) - known)
    if unknown:
        raise ValueError(f"unknown family {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return [f for f in families() if not only or f.name in set(only)]


# The most cases a family draws in one run: MAX_SCALE times its default corpus (docs/decisions.md
# "Corpus size, workers and seeds checked first"). A family's cases are made before they are judged, up to
# 84 KiB each (projection), so ``--scale 100`` is already about 4 GiB in one process; a count
# past that is a typo, refused at once rather than a run that exhausts memory or never ends.
MAX_SCALE = 100


def case_count(fam, cases: int | None = None, scale: int = 1) -> int:
    """How many cases ``fam`` draws: ``cases`` when given, else ``scale`` times its default
    (``ledger --scale 10`` is the soak run: ten times the default corpus). A ValueError for a
    negative count or one above ``MAX_SCALE`` times the family's default."""
    n = fam.default_cases * scale if cases is None else cases
    if cases is None and not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"--scale {scale}: from 1 to {MAX_SCALE} (a family's cases are made before they are judged)")
    if not 0 <= n <= MAX_SCALE * fam.default_cases:
        raise ValueError(f"--cases {cases}: family {fam.name} draws 0 to {MAX_SCALE * fam.default_cases} cases "
                         f"({MAX_SCALE} times its default {fam.default_cases})")
    return n


def corpus_run(seed: int, cases: int | None, fams, scale: int = 1) -> dict:
    """What identifies a corpus run: the seed and, per family, how many cases it drew."""
    return {"command": "ledger", "seed": seed,
            "corpus": {f.name: case_count(f, cases, scale) for f in fams}}


def run_corpus(seed: int, cases: int | None = None, only: Iterable[str] = (),
               progress: bool | None = None, on_verdict=None, scale: int = 1) -> Ledger:
    """Generate each family's cases, run the fast path, check every claim, tally the verdicts.

    Args:
        seed: corpus seed (deterministic).
        cases: cases per family (default: ``scale`` times each family's ``default_cases``).
        only: family names to run (default: all; an unknown name raises ValueError, and so does
            a count past ``MAX_SCALE`` times a family's default: :func:`case_count`).
        progress: force the stderr progress bar on or off (default: when stderr is a tty).
        on_verdict: ``on_verdict(index, verdict)`` for each verdict (the CLI's ``--verdicts``).
        scale: multiplies every family's default case count (ignored when ``cases`` is given).
    """
    fams = select_families(only)
    plan = [(f, case_count(f, cases, scale)) for f in fams]
    ledger = Ledger(seed=seed, run=corpus_run(seed, cases, fams, scale))
    bar = _Progress(sum(n for _, n in plan), progress, unit="cases")
    index = 0
    for fam, n in plan:
        seconds = 0.0

        def add(v, k, fam=fam):
            nonlocal index
            ledger.add(v, index, (fam.name, k))
            if on_verdict is not None:
                on_verdict(index, v)
            index += 1

        # A block's requests are made just before they are judged (``requests(seed, n, lo, hi)``,
        # the slice of the whole corpus; a family without that form is made whole, once): the
        # oracle's work for a request's expectations is then still in its bounded caches when
        # the request's claims are judged (the triangle family's surface analyses were made
        # twice when the whole corpus came first), and memory holds a block, not the corpus.
        whole = functools.cache(functools.partial(fam.generate, seed, n))
        for lo in range(0, n, BLOCK_CASES):
            block = corpus_range(fam, seed, n, lo, min(n, lo + BLOCK_CASES), whole)
            t0 = time.monotonic()
            ledger.producer_errors += judge_cases(fam, block, lo, add, ledger.add_unanswered)
            seconds += time.monotonic() - t0
            bar.step(fam.name, len(block))
        ledger.timings[fam.name] = seconds
    bar.close()
    return ledger
