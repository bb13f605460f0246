"""The rules checkers apply, and where each one comes from.

Every rule a checker applies names its source (``../shared/ARCHITECTURE.md``, "Claims, verdicts,
ledger"). Three sources, because the spec does not say everything a checker needs:

* ``spec``: a sentence of spec 002 or 004, quoted or named. Applies to every claim.
* ``default``: a documented decision the spec's text makes necessary: the error model a Rounded
  row is judged against (the spec says Rounded without a bound), an Estimated row's acceptance
  factor, the width of a band, the value of a limit the spec names without a value, the meaning
  of an open word ("clearly smaller"). Applies to every claim; a declared model
  (``oracles.errormodel``) replaces the error model where the row admits one.
* ``decision``: a decision of ours that goes beyond the spec: it pins one answer where the
  spec's text and the documented defaults allow several (a correctly rounded value where the
  spec says Rounded, an order or orientation at an exact tie, the strictness of a comparison at
  equality, the name of a failure status the spec does not name). It binds our own fast path
  and claims that opt in (``"decisions": true`` on a claim, ``oracles.model.Claim.decisions``).
  A claim that does not opt in is judged by the other two sources; where it does not meet a
  decision its verdict lists the rule in ``unmet`` and the ledger counts it, but the decision
  never makes it Violated (docs/decisions.md "Verdicts by the spec's text: rules and their
  sources").

A checker declares its rules per row (:func:`declare`), tags each Violated verdict with the rule
that refuted it (``violated(..., rule=R.id)``), asks :func:`binding` at each point where a
decision would change what it concludes, and is wrapped by :func:`judged`, which judges a claim
both ways where a decision was consulted: a claim that opts in and is refuted only by a decision
gets that decision as its ``rule``; a claim that does not opt in keeps the spec's verdict, with
the decisions it does not meet in ``unmet``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
from dataclasses import dataclass
from collections.abc import Callable, Iterable

from .rows import statuses_family

__all__ = [
    "GIVEN_INPUTS",
    "GUARANTEE_CLASS",
    "PREPARED_CONTROLS",
    "SOURCES",
    "STATUS_EXPECTATION",
    "Rule",
    "binding",
    "decision",
    "declare",
    "default",
    "judged",
    "opted_in",
    "our_answer",
    "our_claim",
    "ours",
    "rule",
    "rules_of",
    "source_of",
    "spec",
]

SOURCES = ("spec", "default", "decision")


@dataclass(frozen=True)
class Rule:
    """One rule a checker applies.

    Attributes:
        id: stable id, ``family:name`` (``triangle:exactness_clause``); never a row id.
        source: ``"spec"``, ``"default"`` or ``"decision"`` (module docstring).
        text: the spec sentence quoted (``spec 004: '...'``), or the docs/decisions.md section
            named, with what the rule demands.
    """

    id: str
    source: str
    text: str

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"rule {self.id}: source {self.source!r} is not one of {SOURCES}")
        if ":" not in self.id:
            raise ValueError(f"rule id {self.id!r} must be family:name")

    def to_json(self) -> dict:
        return {"id": self.id, "source": self.source, "text": self.text}


def spec(id: str, text: str) -> Rule:
    return Rule(id, "spec", text)


def default(id: str, text: str) -> Rule:
    return Rule(id, "default", text)


def decision(id: str, text: str) -> Rule:
    return Rule(id, "decision", text)


# Rules the shared machinery applies to every row (oracles.batch, oracles.contract).
GUARANTEE_CLASS = spec("claim:guarantee_class",
                       "spec 002: 'Names, statuses, domains and guarantee classes follow ADR 0024' (the Guarantees "
                       "table; spec 004 for its rows): a claim's guarantee class is its row's, never relabelled")
STATUS_EXPECTATION = spec("statuses:expectation",
                          "spec 002 Contracts ('fallible ones return GeometryStatus and leave outputs unchanged on "
                          "failure'; 'a failed rebuild keeps the previous snapshot') and each function's named "
                          "statuses: a step's status meets the class its request demands; each request's `why` "
                          "names the spec sentence or the decision its expectation rests on")

GIVEN_INPUTS = default("claim:given_inputs",
                       "docs/casefile.md ('Inputs marked Given ... are copied from the call') and docs/decisions.md "
                       "'Answers: Given inputs are the request's': in an answer, a claim's Given input that names a "
                       "parameter its step or the request sets to one value (a ToleranceProfile field, a policy, the "
                       "source's origin and mesh, a query's point, segment, tolerance or budget) equals that value, "
                       "and is that value where an optional one is left out; a claim judged on other inputs is not "
                       "a claim about the call")

PREPARED_CONTROLS = spec("claim:prepared_controls",
                        "spec 002 Precision: 'Source controls are float64. Preparation subtracts the chunk origin "
                        "in float64, then narrows to float32' (the path:narrowing rule's replay; 'TryPrepareSurface "
                        "narrows controls as TryPreparePath does'): in an answer, a claim's prepared controls "
                        "(inputs.controls, the whole source or one span or patch) are the narrowing of the request's "
                        "one source, so no claim is judged on another curve or patch")

_RULES: dict[str, Rule] = {r.id: r for r in (GUARANTEE_CLASS, STATUS_EXPECTATION, GIVEN_INPUTS, PREPARED_CONTROLS)}
_ROWS: dict[str, tuple] = {}


def declare(rows: dict) -> dict:
    """Register each row's rules: ``{row_id: (Rule, ...)}`` (a checker module calls it once, at
    import). A rule may serve several rows; one id names one rule. Returns ``rows``."""
    for rid, rs in rows.items():
        for r in rs:
            old = _RULES.setdefault(r.id, r)
            if old != r:
                raise ValueError(f"rule {r.id} declared twice, differently")
        _ROWS[rid] = tuple(dict.fromkeys((*_ROWS.get(rid, ()), *rs)))
    return rows


def rules_of(row_id: str) -> tuple:
    """The rules a row's checker applies (its family is imported on first use): the row's own,
    then the shared ones every claim meets."""
    if row_id not in _ROWS:
        from .families import checker_for

        checker_for(row_id)  # imports the family, whose checker modules declare their rules
    shared = (STATUS_EXPECTATION,) if statuses_family(row_id) is not None else (
        GUARANTEE_CLASS, GIVEN_INPUTS, PREPARED_CONTROLS)
    return (*_ROWS.get(row_id, ()), *shared)


def rule(rule_id: str) -> Rule:
    """The rule of an id (its family must have been imported: :func:`rules_of` does that)."""
    if rule_id not in _RULES:
        from .families import family_named

        family_named(rule_id.split(":", 1)[0])  # its family's checker modules declare it
    return _RULES[rule_id]


def source_of(rule_id: str | None) -> str | None:
    """The source of a rule id, None for None or an unknown id."""
    if rule_id is None:
        return None
    r = _RULES.get(rule_id)
    return None if r is None else r.source


# --- Judging both ways ---------------------------------------------------------------------


@dataclass
class _Judging:
    """The mode of one run of a checker: whether decisions bind, and the decisions consulted."""

    bind: bool
    consulted: list = dataclasses.field(default_factory=list)


_JUDGING: contextvars.ContextVar = contextvars.ContextVar("judging", default=None)


def binding(r: Rule) -> bool:
    """Whether decision ``r`` binds the claim being judged. A checker asks at each point where
    ``r`` would change its conclusion, and follows the spec's rules (and the documented
    defaults) when the answer is False. Outside :func:`judged` (a helper called on its own, the
    requests' demands) decisions bind: they are the project's."""
    if r.source != "decision":
        raise ValueError(f"binding() is for decision rules; {r.id} is a {r.source} rule")
    j = _JUDGING.get()
    if j is None:
        return True
    if r.id not in j.consulted:
        j.consulted.append(r.id)
    return j.bind


def opted_in(claim) -> bool:
    """Whether a claim opts in to the project's decisions (``"decisions": true``)."""
    return bool(getattr(claim, "decisions", False))


def _run(check, claim, bind: bool):
    j = _Judging(bind)
    token = _JUDGING.set(j)
    try:
        return check(claim), j.consulted
    finally:
        _JUDGING.reset(token)


def _is_violated(v) -> bool:
    return getattr(getattr(v, "kind", None), "value", None) == "Violated"


def judged(check: Callable) -> Callable:
    """Wrap a row checker so that decision rules bind only claims that opt in.

    A claim that opts in is judged with every decision binding; when a decision it consulted
    refutes it, it is judged again by the spec's rules alone: Violated there too, that verdict
    stands (refuted by the spec); otherwise the decision's verdict stands, its ``rule`` naming
    the decision. A claim that does not opt in is judged with no decision binding; when it
    consulted one and is not Violated, it is judged again with them binding, and a Violated
    answer there puts the decisions it does not meet in the verdict's ``unmet``. A checker that
    consults no decision runs once."""

    @functools.wraps(check)
    def run(claim):
        if opted_in(claim):
            v, used = _run(check, claim, True)
            if not used or not _is_violated(v):
                return v
            w, _ = _run(check, claim, False)
            if _is_violated(w):
                return w
            by = v.rule if source_of(v.rule) == "decision" else used[0]
            return dataclasses.replace(v, rule=by)
        v, used = _run(check, claim, False)
        if not used or _is_violated(v):
            return v
        w, _ = _run(check, claim, True)
        if not _is_violated(w):
            return v
        unmet = (w.rule,) if source_of(w.rule) == "decision" else tuple(used)
        return dataclasses.replace(v, unmet=unmet)

    run.judged = True
    return run


# --- Our own fast path opts in --------------------------------------------------------------


def our_claim(claim):
    """Our fast path's claim, opted in to the project's decisions (the ledger's own run, the
    ``claims`` and ``answer`` commands): the decisions are how our fast path computes, so they
    bind it."""
    return claim if opted_in(claim) else dataclasses.replace(claim, decisions=True)


def ours(claims: Iterable):
    """:func:`our_claim` of each claim, lazily (a producer that raises midway keeps the claims
    it made)."""
    return (our_claim(c) for c in claims)


def our_answer(ans):
    """An ``oracles.request.Answer`` of our fast path, opted in with every claim (its status
    demands too: ``expect.decision``); None stays None."""
    if ans is None:
        return None
    steps = tuple(dataclasses.replace(s, claims=tuple(map(our_claim, s.claims))) for s in ans.steps)
    return dataclasses.replace(ans, steps=steps, decisions=True)
