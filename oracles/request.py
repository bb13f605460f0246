"""Requests and answers: the whole behaviour of an implementation, asked for and given.

Long on purpose: the two formats' data model (requests, steps, expectations, answers), their
readers with every consistency check a file needs beyond the schema, and their writers belong
together: a reader and the writer it must accept change together.

A **request** (format ``requests/1``, ``docs/casefile.md``, Requests and answers) is a self-contained input of one
spec operation, or a short *scenario* of them (prepare, then evaluate; build A, rebuild with
bad input, query again). Every step carries the status class the spec demands of it, decided
by the oracle from the spec's text (never from our fast path):

* ``success``: valid input within every limit, limits met with equality included;
* ``failure``: the step must fail with one of ``statuses`` (the status the spec names);
* ``ambiguous``: spec 004, some facet lies inside its uncertainty band: the query must be
  rejected with ``Ambiguous``;
* ``either``: the spec, or the oracle's precision, allows any of ``statuses`` (``Success``
  among them); ``why`` says which and why.

Where a demand rests on a decision of ours beyond the spec (the spec says "fails" and names no
status, say, and ``docs/decisions.md`` picks ``InvalidDomain``), the expectation names the
decision (``decision``, a rule id of ``oracles.rules``) and what the spec's text alone demands
(``spec``, an expectation at least as permissive). An answer that opts in to the project's
decisions (``"decisions": true``; ours does) is held to the decision; any other to the spec's
text, with the decision it does not meet reported as ``unmet`` (``oracles.contract``).

A scenario's ``rules`` relate its steps: ``same_output`` demands that the output a step reports
equals, bit for bit, the output an earlier step reported (a failed rebuild keeps the previous
owner: "Preparation builds a complete candidate and moves it into the output owner only on
success, so a failed rebuild keeps the previous snapshot", spec 002 Contracts).

An **answer** (format ``answers/1``) gives, per request, one outcome per step: the ``status``,
on success the claims of the rows the step names (the claim objects of ``claims/1``, judged by
the same row checkers), and where a rule needs it the step's ``output`` (family-defined JSON:
the owner's observable state). A request without an answer is *unanswered*, counted per row,
and fails the run (``oracles.contract``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any
from collections.abc import Iterable

from reference.status import GeometryStatus

from .casefile import decimals_as_text
from .reports import output_file
from .rows import statuses_row

__all__ = [
    "ANSWERS_FORMAT",
    "ANY_FAILURE",
    "ANY_OUTCOME",
    "DEFECT_KINDS",
    "EXPECT_KINDS",
    "FAILURE_STATUSES",
    "REQUESTS_FORMAT",
    "Answer",
    "Expect",
    "Request",
    "RequestFileError",
    "Rule",
    "Step",
    "StepAnswer",
    "ambiguous",
    "answers_schema",
    "collect_defects",
    "decided",
    "decided_by_kinds",
    "either",
    "failure",
    "interleaved",
    "read_answer_doc",
    "read_answers",
    "read_requests",
    "requests_schema",
    "statuses_row",
    "success",
    "write_answers",
    "write_requests",
]

REQUESTS_FORMAT = "requests/1"
ANSWERS_FORMAT = "answers/1"
EXPECT_KINDS = ("success", "failure", "ambiguous", "either")
# Every status but Success, in GeometryStatus order: what "the operation fails" allows when the
# spec names no status.
FAILURE_STATUSES = tuple(s.value for s in GeometryStatus if s is not GeometryStatus.Success)
MAX_BYTES = 1 << 30


@dataclass(frozen=True)
class Expect:
    """The status class a step must end in.

    Attributes:
        kind: one of :data:`EXPECT_KINDS`.
        statuses: the acceptable failure statuses (``failure``), or every acceptable status
            (``either``, ``Success`` included when success is allowed); empty otherwise.
        why: the source of the demand: a spec sentence (quoted or named) or a decision of
            ``docs/decisions.md``; for ``either``, what leaves the outcome open.
        decision: the id of the decision rule (``oracles.rules``) this demand rests on beyond
            the spec's text, or "" when the spec's text demands it alone.
        by_spec: with a decision, what the spec's text alone demands (it allows every status
            this expectation allows); an answer that does not opt in to the decisions is held
            to it.
    """

    kind: str
    statuses: tuple[str, ...] = ()
    why: str = ""
    decision: str = ""
    by_spec: Expect | None = None

    def __post_init__(self):
        if self.kind not in EXPECT_KINDS:
            raise ValueError(f"unknown expectation {self.kind!r} (one of {', '.join(EXPECT_KINDS)})")
        if self.kind in ("failure", "either") and not self.statuses:
            raise ValueError(f"a {self.kind} expectation names its statuses")
        if self.kind == "failure" and "Success" in self.statuses:
            raise ValueError("a failure expectation cannot accept Success")
        if self.kind in ("success", "ambiguous") and self.statuses:
            raise ValueError(f"a {self.kind} expectation names no statuses")
        if bool(self.decision) != (self.by_spec is not None):
            raise ValueError("a decided expectation names both its decision and what the spec alone demands")
        if self.by_spec is not None:
            if self.by_spec.decision:
                raise ValueError("what the spec alone demands rests on no decision")
            if not all(self.by_spec.allows(s) for s in self._allowed()):
                raise ValueError(f"the spec's demand ({self.by_spec.text()}) must allow every status the decision "
                                 f"allows ({self.text()})")

    def _allowed(self) -> tuple:
        return {"success": ("Success",), "ambiguous": ("Ambiguous",)}.get(self.kind, self.statuses)

    def allows(self, status: str) -> bool:
        """True when ``status`` meets this expectation."""
        if self.kind == "success":
            return status == "Success"
        if self.kind == "ambiguous":
            return status == "Ambiguous"
        return status in self.statuses

    @property
    def must_fail(self) -> bool:
        return self.kind in ("failure", "ambiguous")

    def text(self) -> str:
        if self.kind == "success":
            return "must succeed"
        if self.kind == "ambiguous":
            return "must be rejected as Ambiguous"
        if self.kind == "failure":
            if set(self.statuses) == set(FAILURE_STATUSES):
                return "must fail, with any failure status"
            return "must fail with " + " or ".join(self.statuses)
        if set(self.statuses) == {"Success", *FAILURE_STATUSES}:
            return "may end in any status"
        return "may end in " + " or ".join(self.statuses)

    def to_json(self) -> dict:
        out: dict = {"class": self.kind}
        if self.statuses:
            out["statuses"] = list(self.statuses)
        if self.why:
            out["why"] = self.why
        if self.decision:
            out["decision"] = self.decision
            out["spec"] = self.by_spec.to_json()
        return out

    @staticmethod
    def from_json(d: dict) -> Expect:
        spec = d.get("spec")
        return Expect(d["class"], tuple(d.get("statuses", ())), d.get("why", ""), d.get("decision", ""),
                      None if spec is None else Expect.from_json(spec))


def success(why: str = "") -> Expect:
    return Expect("success", (), why)


def failure(*statuses: str, why: str = "") -> Expect:
    return Expect("failure", tuple(statuses), why)


def ambiguous(why: str = "") -> Expect:
    return Expect("ambiguous", (), why)


def either(*statuses: str, why: str) -> Expect:
    return Expect("either", tuple(statuses), why)


# What the spec's text alone demands where a decision of ours names the status (the operation
# fails), or where only a decision of ours fails the input (it may succeed too).
ANY_FAILURE = failure(*FAILURE_STATUSES, why="the spec's text: the operation fails (it names no status)")
ANY_OUTCOME = either("Success", *FAILURE_STATUSES, why=(
    "the spec's text: it may succeed, or fail with a status it does not name"))
# A defect's kind: "spec" (the spec, or a default, names its status), "named" (the spec demands
# the failure, a decision of ours names the status), "ours" (only a decision of ours fails it).
DEFECT_KINDS = ("spec", "named", "ours")


def collect_defects():
    """``(found, why, defect)`` for gathering an input's defects: ``defect(status, reason,
    kind="spec")`` records one (each status once, in order, in ``found``; every reason in
    ``why``); ``defect.kinds`` lists each defect's kind (:data:`DEFECT_KINDS`), for
    :func:`decided_by_kinds`."""
    found, why, kinds = [], [], []

    def defect(status, reason, kind="spec"):
        if status not in found:
            found.append(status)
        why.append(reason)
        kinds.append(kind)

    defect.kinds = kinds
    return found, why, defect


def decided_by_kinds(e: Expect, kinds, decision) -> Expect:
    """``e`` for an input with defects of these ``kinds`` (:data:`DEFECT_KINDS`): as it stands
    where the spec names every defect's status; otherwise resting on ``decision``, with the spec's
    text demanding any failure where ``e`` is a failure and one defect is a failure the spec
    demands, and allowing success too where only decisions of ours fail the input."""
    kinds = list(kinds)
    if any(k not in DEFECT_KINDS for k in kinds):
        raise ValueError(f"defect kinds are {DEFECT_KINDS}, got {kinds}")
    if all(k == "spec" for k in kinds):
        return e
    must = e.kind == "failure" and any(k != "ours" for k in kinds)
    return decided(e, decision, ANY_FAILURE if must else ANY_OUTCOME)


def decided(expect: Expect, decision, by_spec: Expect | None = None) -> Expect:
    """``expect`` marked as resting on ``decision`` (a decision :class:`oracles.rules.Rule` or its
    id); ``by_spec`` is what the spec's text alone demands, by default that the step fails with
    any status (the spec says it fails and names no status)."""
    rid = getattr(decision, "id", decision)
    if by_spec is None:
        by_spec = ANY_FAILURE
    return Expect(expect.kind, expect.statuses, expect.why, rid, by_spec)


@dataclass(frozen=True)
class Step:
    """One operation of a request.

    Attributes:
        op: the operation, named after the spec (``TryPreparePath``, ``first_hit``); a family
            documents its ops and their inputs.
        inputs: the operation's exact inputs (JSON, numbers as hex or ``p/q``).
        expect: the status class the spec demands.
        rows: the ledger rows a successful step must carry claims for (at least one each).
    """

    op: str
    inputs: dict
    expect: Expect
    rows: tuple[str, ...] = ()

    def to_json(self) -> dict:
        out = {"op": self.op, "inputs": self.inputs, "expect": self.expect.to_json()}
        if self.rows:
            out["rows"] = list(self.rows)
        return out

    @staticmethod
    def from_json(d: dict) -> Step:
        return Step(d["op"], d["inputs"], Expect.from_json(d["expect"]), tuple(d.get("rows", ())))


@dataclass(frozen=True)
class Rule:
    """A relation between a scenario's steps: ``same_output`` says step ``after`` must report
    the same output as step ``before``, bit for bit; ``why`` names the spec sentence."""

    kind: str
    before: int
    after: int
    why: str = ""

    def to_json(self) -> dict:
        return {"rule": self.kind, "before": self.before, "after": self.after, "why": self.why}

    @staticmethod
    def from_json(d: dict) -> Rule:
        return Rule(d["rule"], int(d["before"]), int(d["after"]), d.get("why", ""))


@dataclass(frozen=True)
class Request:
    """A stable-id'd request: one step, or a scenario of steps and rules.

    ``id`` is stable for a given seed and corpus size (``path/00017``, ``path/00017/rebuild``);
    ``name`` says what the case is for, for people."""

    id: str
    family: str
    name: str
    steps: tuple[Step, ...]
    rules: tuple[Rule, ...] = ()

    def __post_init__(self):
        if not self.steps:
            raise ValueError(f"request {self.id}: no steps")
        for r in self.rules:
            if r.kind != "same_output":
                raise ValueError(f"request {self.id}: unknown rule {r.kind!r}")
            if not 0 <= r.before < r.after < len(self.steps):
                raise ValueError(f"request {self.id}: rule steps {r.before}, {r.after} out of order or range")

    def rows(self) -> tuple[str, ...]:
        """Every row this request evidences: its steps' rows, then its family's status row."""
        seen: dict = {}
        for s in self.steps:
            for r in s.rows:
                seen[r] = None
        seen[statuses_row(self.family)] = None
        return tuple(seen)

    def to_json(self) -> dict:
        out = {"id": self.id, "family": self.family, "name": self.name,
               "steps": [s.to_json() for s in self.steps]}
        if self.rules:
            out["rules"] = [r.to_json() for r in self.rules]
        return out

    @staticmethod
    def from_json(d: dict) -> Request:
        return Request(d["id"], d["family"], d.get("name", ""), tuple(Step.from_json(s) for s in d["steps"]),
                       tuple(Rule.from_json(r) for r in d.get("rules", ())))


@dataclass(frozen=True)
class StepAnswer:
    """The outcome of one step: ``status`` (a ``GeometryStatus`` name), the claims made on
    success (``oracles.model.Claim``), and the step's ``output`` where a rule compares it."""

    status: str
    claims: tuple = ()
    output: Any = None

    def to_json(self) -> dict:
        out: dict = {"status": self.status}
        if self.claims:
            out["claims"] = [c.to_json() for c in self.claims]
        if self.output is not None:
            out["output"] = self.output
        return out


@dataclass(frozen=True)
class Answer:
    """An implementation's answer to one request: one :class:`StepAnswer` per step, in order.
    ``label`` is the producer's own name for it (echoed in verdicts and reports)."""

    request: str
    steps: tuple[StepAnswer, ...]
    label: str | None = None
    decisions: bool = False  # opts in to the project's decisions (its status claims; oracles.rules)

    def to_json(self) -> dict:
        out: dict = {"request": self.request, "steps": [s.to_json() for s in self.steps]}
        if self.label is not None:
            out["id"] = self.label
        if self.decisions:
            out["decisions"] = True
        return out


def interleaved(family: str, lo: int, hi: int, first_status: int, status: list, case_at) -> list[Request]:
    """Requests ``lo`` to ``hi - 1`` of a family corpus laid out as its named cases (before
    ``first_status``), its status requests (``status``: ``(name, steps, rules)``), then the
    rest of its cases; ids ``family/NNNNN``. ``case_at(rid, k, s)`` makes the request of
    corpus position ``k``, ``s`` status requests before it."""
    out = []
    for k in range(lo, hi):
        rid = f"{family}/{k:05d}"
        j = k - first_status
        if 0 <= j < len(status):
            name, steps, rules = status[j]
            out.append(Request(rid, family, name, steps, rules))
        else:
            out.append(case_at(rid, k, len(status) if j >= 0 else 0))
    return out


class RequestFileError(ValueError):
    """A request or answer file that cannot be read at all; the message names the problem."""


def write_requests(path, requests: Iterable[Request], *, seed: int | None = None,
                   corpus: dict | None = None, generated_by: str = "") -> int:
    """Write a ``requests/1`` file; returns how many requests were written."""
    items = [r.to_json() for r in requests]
    doc = {"format": REQUESTS_FORMAT, "generated_by": generated_by, "seed": seed,
           "corpus": corpus or {}, "requests": items}
    output_file(path).write_text(json.dumps(doc, indent=1) + "\n")
    return len(items)


def _load_json(path, what: str) -> Any:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise RequestFileError(f"{path}: larger than {MAX_BYTES} bytes")
        data = p.read_bytes()
    except OSError as e:
        raise RequestFileError(f"{path}: cannot read: {e}") from None
    return parse_json(data, f"{path}")


def parse_json(data: bytes, name: str) -> Any:
    """JSON text as the case-file reader reads it: numbers as ``Decimal`` (exact), duplicate
    keys, NaN literals and values nested deeper than ``oracles.casefile.MAX_DEPTH`` refused."""
    from .casefile import MAX_DEPTH, CaseFileError, _no_duplicates, _reject_constant, loads_within_depth

    try:
        # Depth refused before anything walks the document recursively (decimals_as_text, the schema, the ledger).
        doc, deep = loads_within_depth(data.decode("utf-8"), parse_float=Decimal, parse_constant=_reject_constant,
                                       object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, CaseFileError, ValueError) as e:
        raise RequestFileError(f"{name}: not readable JSON: {e}") from None
    if deep is not None:
        raise RequestFileError(f"{name}: {deep}: nested deeper than {MAX_DEPTH} levels")
    return doc


def read_requests(path) -> tuple[dict, list[Request]]:
    """A ``requests/1`` file: its header (without the requests) and the requests, validated
    against :func:`requests_schema` and for what the schema cannot say (a known family, rows and
    decision, expectations and rules consistent); any error raises :class:`RequestFileError`."""
    doc = _load_json(path, "requests")
    errors = _schema_errors(requests_schema(), doc)
    if errors:
        raise RequestFileError(f"{path}: " + "; ".join(errors[:10]))
    reqs = []
    for i, r in enumerate(doc["requests"]):
        try:
            reqs.append(_read_request(decimals_as_text(r), f"requests[{i}]"))
        except RequestFileError as e:
            raise RequestFileError(f"{path}: {e}") from None
    ids = [r.id for r in reqs]
    if len(set(ids)) != len(ids):
        raise RequestFileError(f"{path}: duplicate request ids")
    header = {k: v for k, v in doc.items() if k != "requests"}
    return header, reqs


def _read_request(d: dict, at: str) -> Request:
    """:meth:`Request.from_json` of a schema-valid request, each inconsistency the schema cannot
    see (an expectation's statuses for its class, a decision id, a rule's steps, an unknown family
    or row) a :class:`RequestFileError` naming its field (``requests[3].steps[1].expect``): the
    checker would otherwise meet it as a ValueError or KeyError midway through judging."""
    from .rows import ROWS, _BY_ID, statuses_family

    family = d["family"]
    if statuses_row(family) not in _BY_ID:  # its status row tallies every step of the request
        known = [f for f in map(statuses_family, (r.id for r in ROWS)) if f is not None]
        raise RequestFileError(f"{at}.family: unknown family {family!r} (one of {', '.join(known)})")
    steps = []
    for k, s in enumerate(d["steps"]):
        where = f"{at}.steps[{k}].expect"
        try:
            if "spec" in s["expect"]:  # read on its own first, to name it
                Expect.from_json(s["expect"]["spec"])
        except ValueError as e:
            raise RequestFileError(f"{where}.spec: {e}") from None
        try:
            step = Step.from_json(s)
        except ValueError as e:  # the expectation is the part of a step that checks itself
            raise RequestFileError(f"{where}: {e}") from None
        if step.expect.decision and not _is_decision(step.expect.decision):
            raise RequestFileError(f"{where}.decision: {step.expect.decision!r} is not the id of a decision rule "
                                   "(oracles.rules)")
        for m, row in enumerate(step.rows):
            if row not in _BY_ID:
                raise RequestFileError(f"{at}.steps[{k}].rows[{m}]: unknown row {row!r}")
        steps.append(step)
    rules = tuple(Rule.from_json(r) for r in d.get("rules", ()))
    for j, r in enumerate(rules):  # one at a time, to name the rule out of range
        try:
            Request(d["id"], family, "", tuple(steps), (r,))
        except ValueError as e:
            raise RequestFileError(f"{at}.rules[{j}]: {e}") from None
    return Request(d["id"], family, d.get("name", ""), tuple(steps), rules)


def _is_decision(rule_id: str) -> bool:
    """Whether ``rule_id`` names a decision rule (``oracles.rules``). Its family is imported (its
    checkers declare its rules) only when it is a known one: other text names no module."""
    from .rows import _BY_ID
    from .rules import source_of

    family = rule_id.split(":", 1)[0]
    if source_of(rule_id) is None and statuses_row(family) in _BY_ID:
        from .families import family_named

        family_named(family)
    return source_of(rule_id) == "decision"


def write_answers(path, answers: Iterable[Answer], *, producer: str, families: list | None = None) -> int:
    """Write an ``answers/1`` file; returns how many answers were written."""
    items = [a.to_json() for a in answers]
    doc: dict = {"format": ANSWERS_FORMAT, "producer": producer}
    if families is not None:
        doc["families"] = list(families)
    doc["answers"] = items
    output_file(path).write_text(json.dumps(doc, indent=1) + "\n")
    return len(items)


def read_answer_doc(path) -> dict:
    """An ``answers/1`` file parsed and its envelope validated (claims inside are validated per
    claim by ``oracles.contract.read_answers``); an unreadable envelope raises
    :class:`RequestFileError`."""
    doc = _load_json(path, "answers")
    errors = _schema_errors(answers_schema(), doc)
    if errors:
        raise RequestFileError(f"{path}: " + "; ".join(errors[:10]))
    return doc


def read_answers(path, *, exact_numbers: bool = False):
    """An ``answers/1`` file read whole: ``(doc header, answers, malformed, numbers)``.

    Every claim inside a step is validated against its row's case-file schema and read with
    the case-file number grammar (``oracles.casefile.read_claims``: decimals read as the nearest
    value of their field's format, or refused with ``exact_numbers``); a malformed claim is
    listed (its path names the answer, step and claim: ``answers[3].steps[1].claims[0].value.t``)
    and left out of its step, so the rest of the file is still judged. ``numbers`` is the
    :class:`oracles.casefile.NumberReport`. A malformed envelope raises :class:`RequestFileError`."""
    from .casefile import read_claims
    from .schema import FieldError

    doc = read_answer_doc(path)
    flat, where = [], []
    for i, a in enumerate(doc["answers"]):
        for k, st in enumerate(a["steps"]):
            for j, c in enumerate(st.get("claims", ())):
                flat.append(c)
                where.append((i, k, j))
    claims, errors, numbers = read_claims({"format": "claims/1", "claims": flat}, exact_numbers=exact_numbers)
    good = dict(claims)
    malformed = []
    for e in errors:
        if e.claim is None:
            malformed.append(FieldError(f"answers: {e.path}", e.message))
            continue
        i, k, j = where[e.claim]
        rest = e.path[len(f"claims[{e.claim}]"):]
        malformed.append(FieldError(f"answers[{i}].steps[{k}].claims[{j}]{rest}", e.message, e.claim))
    answers, n = [], 0
    for a in doc["answers"]:
        opted = a.get("decisions", doc.get("decisions", False))
        steps = []
        for st in a["steps"]:
            kept = []
            for raw in st.get("claims", ()):
                if n in good:
                    c = good[n]
                    if opted and "decisions" not in raw:  # the answer's opt-in covers its claims
                        c = dataclasses.replace(c, decisions=True)
                    kept.append(c)
                n += 1
            steps.append(StepAnswer(st["status"], tuple(kept), decimals_as_text(st.get("output"))))
        answers.append(Answer(a["request"], tuple(steps), a.get("id"), opted))
    header = {k: v for k, v in doc.items() if k != "answers"}
    return header, answers, malformed, numbers


def _schema_errors(schema: dict, doc: Any) -> list[str]:
    from jsonschema import Draft202012Validator

    from .schema import field_path

    out = []
    for err in sorted(Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        out.append(f"{field_path(err.absolute_path) or '(document)'}: {err.message}")
    return out


_STATUS = {"type": "string", "pattern": "^[A-Z][A-Za-z]*$"}


def requests_schema() -> dict:
    """The JSON Schema of ``requests/1`` (shipped as ``oracles/requests.schema.json``), every field
    described (``docs/casefile.md`` renders them). Step inputs are family-defined objects (each
    family documents its ops in ``docs/casefile.md``, Requests and answers)."""
    expect = {"type": "object", "required": ["class"], "additionalProperties": False,
              "description": "The status class the spec demands of the step, and why.",
              "properties": {"class": {"enum": list(EXPECT_KINDS), "description": (
                                 "success: must succeed; failure: must fail with one of statuses; ambiguous: must be "
                                 "rejected as Ambiguous (spec 004); either: may end in any of statuses.")},
                             "statuses": {"type": "array", "items": _STATUS, "minItems": 1, "description": (
                                 "failure: every status that meets it (one per defect where an input has several, "
                                 "since the spec orders no checks); either: every acceptable status, Success "
                                 "included when success is allowed; absent otherwise.")},
                             "why": {"type": "string", "description": (
                                 "The demand's source: a quoted spec sentence or a section of docs/decisions.md; "
                                 "for either, what leaves the outcome open.")}}}
    expect["properties"]["decision"] = {"type": "string", "minLength": 1, "description": (
        "Present where the demand rests on a decision of ours beyond the spec's text (say, which status a failure "
        "the spec names no status for returns): the decision's rule id (docs/decisions.md 'Verdicts by the spec's "
        "text'). An answer that opts in to the decisions (\"decisions\": true) is held to class and statuses; any "
        "other to spec.")}
    expect["properties"]["spec"] = {**{k: v for k, v in expect.items() if k != "properties"},
                                    "properties": {k: v for k, v in expect["properties"].items()
                                                   if k not in ("decision", "spec")},
                                    "description": "With decision: what the spec's text alone demands of the step."}
    expect["dependentRequired"] = {"decision": ["spec"], "spec": ["decision"]}
    step = {"type": "object", "required": ["op", "inputs", "expect"], "additionalProperties": False,
            "description": "One operation, in order; its outcome is the answer's step of the same index.",
            "properties": {"op": {"type": "string", "description": (
                               "The operation, named after the spec (TryPreparePath, first_hit); the family's section "
                               "lists its ops.")},
                           "inputs": {"type": "object", "description": (
                               "The operation's exact inputs (numbers as hex floats, p/q or exact decimals), in "
                               "the op's own fields (the family's section).")},
                           "expect": expect,
                           "rows": {"type": "array", "items": {"type": "string"}, "description": (
                               "The ledger rows a successful step's answer must carry at least one claim of each "
                               "(else the step is unanswered on that row).")}}}
    rule = {"type": "object", "required": ["rule", "before", "after"], "additionalProperties": False,
            "description": "A relation between two steps of the scenario.",
            "properties": {"rule": {"const": "same_output", "description": (
                               "same_output: step after reports the same output as step before, bit for bit "
                               "(numbers by exact value and sign of zero).")},
                           "before": {"type": "integer", "minimum": 0, "description": "The earlier step's index."},
                           "after": {"type": "integer", "minimum": 1, "description": (
                               "The later step's index (typically right after a failed rebuild).")},
                           "why": {"type": "string", "description": "The rule's source sentence."}}}
    request = {"type": "object", "required": ["id", "family", "steps"], "additionalProperties": False,
               "description": "One spec operation, or a scenario of them.",
               "properties": {"id": {"type": "string", "minLength": 1, "description": (
                                  "Stable for a seed and corpus size (path/00017); the answer names it, and every "
                                  "verdict and unanswered count names it.")},
                              "family": {"type": "string",
                                         "description": "The family that asks (path, triangle, ...)."},
                              "name": {"type": "string", "description": "What the case is for, for people."},
                              "steps": {"type": "array", "items": step, "minItems": 1, "description": (
                                  "The operations, run in order on the same owners (a step's owner is the previous "
                                  "step's, replaced only by a success).")},
                              "rules": {"type": "array", "items": rule, "description": "The scenario's rules."}}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "ludus-geometry-reference/requests.schema.json",
            "title": f"Request file ({REQUESTS_FORMAT}): what an implementation is asked, and what the spec demands",
            "description": ("What `python -m oracles requests` writes: every request of the families asked, each "
                            "step with the status the spec demands of it."),
            "type": "object", "required": ["format", "requests"],
            "properties": {"format": {"const": REQUESTS_FORMAT, "description": f'Exactly "{REQUESTS_FORMAT}".'},
                           "generated_by": {"type": "string", "description": "The package and version that wrote it."},
                           "seed": {"type": ["integer", "null"], "description": "The corpus seed (null: hand-made)."},
                           "corpus": {"type": "object", "description": (
                               "Requests per family the corpus was drawn with ({family: count}); ids depend on it.")},
                           "requests": {"type": "array", "items": request, "description": "The requests, in order."}},
            "additionalProperties": False}


def answers_schema() -> dict:
    """The JSON Schema of ``answers/1`` (shipped as ``oracles/answers.schema.json``), every field
    described. Claims inside a step are ``claims/1`` claim objects, validated per row by the
    case-file schema."""
    step = {"type": "object", "required": ["status"], "additionalProperties": False,
            "description": "The outcome of the request's step of the same index.",
            "properties": {"status": {**_STATUS, "description": (
                               "The GeometryStatus the operation returned (Success, InvalidArgument, Ambiguous, ...), "
                               "spelled as the spec names it.")},
                           "claims": {"type": "array", "items": {"type": "object"}, "description": (
                               "On success, claims/1 claim objects of the rows the step names (docs/casefile.md, "
                               "Rows and their fields), each with its own inputs, judged by the row's checker.")},
                           "output": {"description": (
                               "Where a rule compares it: the owner's observable state after the step, in the op's "
                               "output form (the family's section); any JSON, numbers compared by exact value.")}}}
    answer = {"type": "object", "required": ["request", "steps"], "additionalProperties": False,
              "description": "An implementation's answer to one request.",
              "properties": {"request": {"type": "string", "description": "The id of the request answered."},
                             "id": {"type": "string", "description": (
                                 "Optional: your own label (a test's name), echoed in verdicts and JUnit.")},
                             "decisions": {"type": "boolean", "description": (
                                 "Optional (default: the file's decisions): opt this answer in to the project's "
                                 "decisions beyond the spec, for its status demands (expect.decision) and every "
                                 "claim of it without its own decisions field.")},
                             "steps": {"type": "array", "items": step, "description": (
                                 "One outcome per step, in order; missing trailing steps are unanswered.")}}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "ludus-geometry-reference/answers.schema.json",
            "title": f"Answer file ({ANSWERS_FORMAT}): an implementation's outcome for each request",
            "description": ("An implementation's answers to a request file, judged by `python -m oracles check "
                            "ANSWERS --requests REQUESTS`."),
            "type": "object", "required": ["format", "producer", "answers"],
            "properties": {"format": {"const": ANSWERS_FORMAT, "description": f'Exactly "{ANSWERS_FORMAT}".'},
                           "producer": {"type": "string", "description": (
                               "Free text naming the implementation; recorded in the ledger.")},
                           "decisions": {"type": "boolean", "description": (
                               "Optional, default false: every answer opts in to the project's decisions beyond the "
                               "spec (docs/decisions.md 'Verdicts by the spec's text'); without it, answers are "
                               "judged by the spec's text and the documented defaults.")},
                           "families": {"type": "array", "items": {"type": "string"}, "uniqueItems": True,
                                        "description": (
                                            "Optional: the families the file answers. Requests of other families are "
                                            "then not covered (listed, not judged); without it every request of the "
                                            "request file is in scope and an unanswered one fails the run.")},
                           "answers": {"type": "array", "items": answer, "description": (
                               "The answers, one per request at most, in any order.")}},
            "additionalProperties": False}
