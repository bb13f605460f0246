"""Judging whole answers: statuses against the spec's demands, scenario rules, completeness.

For every request (``oracles.request``) an answer is judged in three parts:

1. **Status.** Each step's status against the step's expected class, on the family's status row
   (``path.statuses``, ...): a refused valid request, a success where a failure is required, a
   wrong status, a hit where the query must be ambiguous are Violated, with the request id and
   the reason (the spec sentence or decision the expectation cites).
2. **Values.** Each claim of a step is judged by its row's checker, exactly as a ``claims/1``
   claim is (``oracles.ledger.check_claim``).
3. **Rules and completeness.** A ``same_output`` rule holds when the later step reports the
   same output as the earlier one, bit for bit (numbers compared by exact value and sign of
   zero). A request with no answer, a step with no outcome, a successful step without a claim
   of a row it names, or a rule whose outputs were not reported is *unanswered*: counted per
   row and listed by request id. A missing answer where the spec demands a failure or an
   ambiguity is also Violated on the status row: omitting a required rejection is not
   neutral.

The status row's claims are built here from the request and the answer, so a status verdict
reads like any other verdict in the ledger (``inputs``: request id, step, op, expectation;
``value``: the status given).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterable

from reference.status import GuaranteeClass as G

from . import schema as S
from .family import RowContract
from .given import (RequestSource, canonical_output, given_mismatch, request_controls, step_parameters,
                    with_answer, with_request_inputs)
from .model import Claim, Verdict, undecided, verified, violated
from .rules import binding, judged
from .rules import rule as rule_named
from .request import Answer, Expect, Request, StepAnswer, statuses_row

__all__ = [
    "STATUS_CONTRACT",
    "Unanswered",
    "answer_claims",
    "answer_scope",
    "canonical_output",
    "check_status",
    "judge_answer",
    "judge_answer_file",
    "missing_claim",
    "rule_claim",
    "status_claim",
]


def status_claim(req: Request, k: int, status: str | None, label: str | None = None,
                 decisions: bool = False) -> Claim:
    """The status-row claim of step ``k`` of ``req`` ending in ``status`` (None: no outcome);
    ``decisions``: the answer opted in to the project's decisions (``expect.decision`` binds)."""
    step = req.steps[k]
    return Claim(statuses_row(req.family), G.Exact, {"status": status},
                 {"request": req.id, "step": k, "op": step.op, "expect": step.expect.to_json()},
                 decisions=decisions)


def rule_claim(req: Request, j: int, before: Any, after: Any) -> Claim:
    """The status-row claim of rule ``j``: the two outputs it compares."""
    r = req.rules[j]
    return Claim(statuses_row(req.family), G.Exact, {"before": before, "after": after},
                 {"request": req.id, "rule": r.to_json()})


def missing_claim(req: Request, k: int) -> Claim:
    """No outcome for a step that must fail or be ambiguous."""
    return status_claim(req, k, None)


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if canonical_output(a) == canonical_output(b):
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present in one output only"
            d = _first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path or '(output)'}: {len(a)} items before, {len(b)} after"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
    return f"{path or '(output)'}: {str(a)[:80]} before, {str(b)[:80]} after"


_STATUS_RULE = "statuses:expectation"  # oracles.rules.STATUS_EXPECTATION


@judged
def check_status(claim: Claim) -> Verdict:
    """Exact: a step's status meets the class the spec demands of it (``expect``), or a
    scenario's later output equals the earlier one bit for bit (``rule`` same_output).

    Sources: spec 002 Contracts ("fallible ones return GeometryStatus and leave outputs
    unchanged on failure"; "a failed rebuild keeps the previous snapshot"), each function's
    named statuses, and spec 004's ambiguity rule ("one ambiguous candidate rejects the whole
    query"); the expectation's ``why`` names the sentence per request. Where the expectation
    rests on a decision of ours (``expect.decision``), a claim that does not opt in is held to
    what the spec's text alone demands (``expect.spec``) and the decision is reported unmet."""
    inp = claim.inputs
    if "rule" in inp:
        rule = inp["rule"]
        diff = _first_difference(claim.value.get("before"), claim.value.get("after"))
        if diff is None:
            return verified(claim, measure="mismatches", measured=0,
                            note=f"{inp['request']}: step {rule['after']} kept step {rule['before']}'s output")
        return violated(claim, {"request": inp["request"], "rule": rule, "first_difference": diff},
                        measure="mismatches", measured=1,
                        note=f"{inp['request']}: the output after step {rule['after']} differs from step "
                             f"{rule['before']}'s ({rule.get('why') or 'same_output'})", rule=_STATUS_RULE)
    expect = Expect.from_json(inp["expect"])
    status = claim.value.get("status")
    where = f"{inp['request']} step {inp['step']} ({inp['op']})"
    rule_id = _STATUS_RULE
    if expect.decision:
        if not binding(rule_named(expect.decision)):
            expect = expect.by_spec  # judged by the spec's text alone
        else:
            rule_id = expect.decision if expect.by_spec.allows(status) else _STATUS_RULE
    if status is None and not expect.must_fail:  # nothing to judge: loud, never a pass
        return undecided(claim, None, measure="mismatches",
                         note=f"{where}: no status given, so nothing was judged (the spec's text demands no failure "
                              "here)")
    if status is None:
        return violated(claim, {"request": inp["request"], "step": inp["step"], "expected": expect.text(),
                                "got": None, "why": expect.why},
                        measure="mismatches", measured=1,
                        note=f"{where}: no answer where the spec demands that it "
                             f"{expect.text().removeprefix('must ')}", rule=_STATUS_RULE)
    if expect.allows(status):
        return verified(claim, measure="mismatches", measured=0, note=f"{where}: {status} ({expect.text()})")
    if expect.kind == "ambiguous" and status == "Success":
        reason = "a hit (or miss) published where the query must be rejected as Ambiguous"
    elif expect.kind == "success":
        reason = f"a valid request refused with {status}"
    elif status == "Success":
        reason = "a success where the spec demands a failure"
    else:
        reason = f"the wrong status {status}"
    return violated(claim, {"request": inp["request"], "step": inp["step"], "op": inp["op"],
                            "expected": expect.text(), "got": status, "why": expect.why},
                    measure="mismatches", measured=1, note=f"{where}: {reason}; {expect.text()}", rule=rule_id)


def _plant_status(c: Claim) -> Claim:
    """A false claim: a status the expectation does not allow (or outputs that differ)."""
    if "rule" in c.inputs:
        before = c.value.get("before")
        return Claim(c.row, c.guarantee, {"before": before, "after": {"changed": before}}, c.inputs, c.model)
    e = Expect.from_json(c.inputs["expect"])
    wrong = next(s for s in ("Success", "BudgetExceeded", "InvalidArgument") if not e.allows(s))
    return Claim(c.row, c.guarantee, {"status": wrong}, c.inputs, c.model)


_EXPECT_FIELDS = {
    "required": {"class": S.enum(["success", "failure", "ambiguous", "either"], doc=(
        "The status class the spec demands: success, failure (one of statuses), ambiguous (spec 004: Ambiguous), "
        "either (any of statuses)."))},
    "optional": {"statuses": S.array(S.string(), min_items=1, doc=(
        "failure: the statuses that meet it; either: every acceptable status (Success among them when success is "
        "allowed).")),
                 "why": S.string(doc="The demand's source: a spec sentence or a decision.")},
}
_EXPECT = S.obj(required=_EXPECT_FIELDS["required"],
                optional={**_EXPECT_FIELDS["optional"],
                          "decision": S.string(doc=(
                              "Where the demand rests on a decision of ours beyond the spec: its rule id; it binds "
                              "only a claim that opts in (decisions: true).")),
                          "spec": S.obj(required=_EXPECT_FIELDS["required"], optional=_EXPECT_FIELDS["optional"],
                                        doc="With decision: what the spec's text alone demands of the step.")},
                doc="Given: the step's expect, copied from the request file.")

STATUS_CONTRACT = RowContract(
    checks=("Exact, per request step: the status meets the class the spec demands (must succeed, must fail "
            "with S, must be rejected as Ambiguous, or either of the statuses named), a missing outcome of a "
            "step that must fail is Violated; per scenario rule: the output after a failed rebuild equals the "
            "output before it, bit for bit (numbers by exact value and sign of zero)."),
    inputs=S.any_of(
        S.obj(required={"request": S.string(doc="Given: the request's id (requests/1)."),
                        "step": S.integer(minimum=0, doc="Given: the step's index in the request."),
                        "op": S.string(doc="Given: the step's operation (TryPreparePath, first_hit, ...)."),
                        "expect": _EXPECT},
              doc="A step's status."),
        S.obj(required={"request": S.string(doc="Given: the request's id."),
                        "rule": S.obj(required={"rule": S.const("same_output", doc="The only rule kind."),
                                                "before": S.integer(minimum=0, doc="The earlier step."),
                                                "after": S.integer(minimum=1, doc=(
                                                    "The later step, whose output must equal the earlier one's."))},
                                      optional={"why": S.string(doc="The rule's source sentence.")},
                                      doc="Given: the scenario rule, copied from the request file.")},
              doc="A scenario rule."),
        doc="Which step or rule of which request (the judge builds these claims from the request and the answer)."),
    value=S.any_of(S.obj(required={"status": S.described({"type": ["string", "null"]}, (
                       "The status the step returned (a GeometryStatus name, Success included); null: no outcome "
                       "given."))}, doc="A step's status."),
                   S.obj(required={"before": S.described({}, "The earlier step's reported output (any JSON)."),
                                   "after": S.described({}, (
                                       "The later step's reported output, equal bit for bit (numbers by exact value "
                                       "and sign of zero)."))},
                         doc="The two outputs a rule compares."),
                   doc="The status given, or the outputs compared."),
    plant=_plant_status,
)


class Unanswered:
    """What a request set left unanswered: per row, how many and the first request ids."""

    KEPT = 20

    def __init__(self):
        self.by_row: dict[str, int] = {}
        self.first: dict[str, list] = {}

    def add(self, row: str, where: str) -> None:
        self.by_row[row] = self.by_row.get(row, 0) + 1
        ids = self.first.setdefault(row, [])
        if len(ids) < self.KEPT:
            ids.append(where)

    @property
    def total(self) -> int:
        return sum(self.by_row.values())


def _the_call(req: Request, ans: Answer) -> tuple[list[dict], RequestSource | None]:
    """What an answer's claims are held to (``oracles.given``): each step's parameters and the
    request's one source; computed only when the answer makes a value claim."""
    if not any(got.claims for got in ans.steps):
        return [{}] * len(req.steps), None
    return step_parameters(req), request_controls(req)


def judge_answer(req: Request, ans: Answer | None, judge: Callable[[Claim], Verdict | None],
                 add: Callable[[Verdict], None], unanswered: Callable[[str, str], None]) -> None:
    """Judge one request's answer (None: no answer at all).

    ``judge(claim)`` is the row checker (it may return None when it recorded the claim as
    malformed itself); ``add(verdict)`` records a verdict; ``unanswered(row, where)`` records a
    row left unanswered (``where``: the request id and step)."""
    from .request import statuses_row as _sr

    status_row = _sr(req.family)
    if ans is None:
        for row in req.rows():
            unanswered(row, req.id)
        for k, step in enumerate(req.steps):
            if step.expect.must_fail:
                add(check_status(missing_claim(req, k)))
        return
    params, source = _the_call(req, ans)
    steps: list[StepAnswer | None] = list(ans.steps[:len(req.steps)])
    steps += [None] * (len(req.steps) - len(steps))
    for k, (step, got) in enumerate(zip(req.steps, steps)):
        where = f"{req.id} step {k}"
        if got is None:
            for row in (*step.rows, status_row):
                unanswered(row, where)
            if step.expect.must_fail:
                add(check_status(missing_claim(req, k)))
            continue
        add(check_status(status_claim(req, k, got.status, decisions=ans.decisions)))
        seen = set()
        for c in got.claims:
            seen.add(c.row)
            c = with_request_inputs(params[k], c, source)
            v = given_mismatch(params[k], c, source)
            if v is None:
                c, v = with_answer(c, req, ans, k)
            if v is None:
                v = judge(c)
            if v is not None:
                add(v)
        if got.status == "Success" and step.expect.allows("Success"):
            for row in step.rows:
                if row not in seen:
                    unanswered(row, where)
    for j, rule in enumerate(req.rules):
        a, b = steps[rule.before], steps[rule.after]
        if a is None or b is None or a.output is None or b.output is None:
            unanswered(status_row, f"{req.id} rule {j}")
            continue
        add(check_status(rule_claim(req, j, a.output, b.output)))


def answer_claims(req: Request, ans: Answer) -> list[Claim]:
    """Every claim an answer makes, as a ``claims/1`` file holds them: per step its status claim
    and value claims, then each rule's claim where both outputs were reported."""
    out = []
    params, source = _the_call(req, ans)
    for k, got in enumerate(ans.steps[:len(req.steps)]):
        out.append(status_claim(req, k, got.status, decisions=ans.decisions))
        out.extend(with_answer(with_request_inputs(params[k], c, source), req, ans, k)[0] for c in got.claims)
    for j, rule in enumerate(req.rules):
        if rule.after < len(ans.steps):
            a, b = ans.steps[rule.before], ans.steps[rule.after]
            if a.output is not None and b.output is not None:
                out.append(rule_claim(req, j, a.output, b.output))
    return out


def check_families(requests: Iterable[Request]) -> list[str]:
    """The families a request set covers, in first-seen order."""
    return list(dict.fromkeys(r.family for r in requests))


def answer_scope(requests: list, header: dict, answers: list, malformed: list) -> tuple[list, dict]:
    """``(scope, answers by request id)`` of an answer file: the families it declares (or every
    family of the request set), and its answers by the request they name. Declared families the
    request set lacks, answers to unknown requests, repeated answers and answers with more steps
    than their request (the extra steps would go unjudged) are appended to ``malformed``
    (FieldErrors), in that order."""
    from .schema import FieldError

    known = check_families(requests)
    declared = header.get("families")
    for f in declared or ():
        if f not in known:
            malformed.append(FieldError("families", f"declares {f!r}, which the request set does not ask about"))
    scope = list(declared) if declared is not None else known
    steps_of = {r.id: len(r.steps) for r in requests}
    by_id: dict = {}
    for i, a in enumerate(answers):
        if a.request not in steps_of:
            malformed.append(FieldError(f"answers[{i}].request", f"{a.request!r} is not a request of the request set"))
        elif a.request in by_id:
            malformed.append(FieldError(f"answers[{i}].request", f"a second answer to {a.request!r}"))
        else:
            by_id[a.request] = a
            if len(a.steps) > steps_of[a.request]:
                malformed.append(FieldError(f"answers[{i}].steps", f"{len(a.steps)} steps where request "
                                                                 f"{a.request!r} has {steps_of[a.request]}: the steps "
                                                                 "past its last are not judged"))
    return scope, by_id


def judge_answer_file(requests: list, header: dict, answers: list, ledger, malformed: list,
                      on_verdict=None, progress=None) -> dict:
    """Judge an ``answers/1`` file against the request set it answers, into ``ledger``.

    Scope: the families the answer file declares (``families``), or every family of the request
    set when it declares none. Every request in scope is judged (:func:`judge_answer`); one
    without an answer is unanswered. Answers to unknown requests, repeated answers and declared
    families the request set does not have are malformed (``malformed``, FieldErrors). Returns
    ``{"scope": [...], "not_covered": {family: requests}}``. ``on_verdict(index, verdict,
    request, label)`` sees each verdict in order; ``progress(family)`` is called per request."""
    from .batch import MALFORMED_ERRORS, check_claim
    from .schema import FieldError

    scope, by_id = answer_scope(requests, header, answers, malformed)
    index = 0
    not_covered: dict = {}
    for req in requests:
        if req.family not in scope:
            not_covered[req.family] = not_covered.get(req.family, 0) + 1
            continue
        ans = by_id.get(req.id)
        label = ans.label if ans is not None else None

        def judge(c, req=req):
            try:
                return check_claim(c)
            except MALFORMED_ERRORS as e:
                malformed.append(FieldError(f"answer to {req.id}", f"{c.row}: {type(e).__name__}: {e}"))
                return None

        def add(v, req=req, label=label):
            nonlocal index
            ledger.add(v, index, req.id)
            if on_verdict is not None:
                on_verdict(index, v, req.id, label)
            index += 1

        judge_answer(req, ans, judge, add, ledger.add_unanswered)
        if progress is not None:
            progress(req.family)
    return {"scope": scope, "not_covered": not_covered}
