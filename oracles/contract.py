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

import json
import math
from dataclasses import replace
from fractions import Fraction
from typing import Any
from collections.abc import Callable, Iterable

from reference.status import GuaranteeClass as G

from . import schema as S
from .family import RowContract
from .model import Claim, NumberError, Verdict, dec_array, parse_number, undecided, verified, violated
from .rules import GIVEN_INPUTS, PREPARED_CONTROLS, binding, judged
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


def _canonical_number(x: Any):
    try:
        q = parse_number(x)
    except NumberError:
        return None
    if isinstance(q, float):  # nan / inf words
        return ("special", "nan" if math.isnan(q) else ("inf" if q > 0 else "-inf"))
    neg_zero = q == 0 and isinstance(x, str) and x.strip().startswith("-")
    return ("num", q, neg_zero)


def canonical_output(x: Any) -> Any:
    """``x`` with every claim number replaced by its exact value (and the sign of a zero), so
    that ``"0x1p+0"``, ``"1"`` and ``1`` compare equal and ``"-0x0p+0"`` differs from ``"0x0p+0"``."""
    if isinstance(x, dict):
        return ("obj", tuple(sorted((k, canonical_output(v)) for k, v in x.items())))
    if isinstance(x, list):
        return ("arr", tuple(canonical_output(v) for v in x))
    if isinstance(x, bool) or x is None:
        return ("lit", x)
    if isinstance(x, (int, float, Fraction)) or ((isinstance(x, str) and x[:1] in "+-.0123456789") or
                                                  (isinstance(x, str) and x in ("nan", "inf", "-inf"))):
        c = _canonical_number(x)
        if c is not None:
            return c
    if not isinstance(x, str):
        c = _canonical_number(x)  # Decimal
        if c is not None:
            return c
    return ("str", x)


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


# Request parameters that a claim's Given input of the same name copies verbatim (contract docs:
# "Given: ToleranceProfile.DistanceError", "Given: FramePreparation.CornerPolicy", "Given: the
# segment's start", ...). Names a claim may hold after a policy acted on them (u, span, caps) are
# not here.
COPIED_PARAMETERS = frozenset({
    # ToleranceProfile
    "position_error", "relative_position_error", "asset_scale", "continuity_position", "continuity_angle",
    "continuity_derivative", "continuity_second_derivative", "distance_error", "projection_gap",
    "tangent_angle_error", "minimum_speed", "minimum_sin_angle", "normal_min_derivative_length",
    "normal_min_sin_angle",
    # sources, preparations and limits
    "origin", "is_closed", "max_depth", "corner_policy", "closed_policy", "singularity_policy", "seed_policy",
    "winding_turns", "seed_up", "keys", "points", "coincidence_distance", "positions", "indices", "vertices",
    "triangles",
    # a sweep request, a surface mesh profile
    "section", "winding", "profile", "longitudinal_error", "cross_section_error", "precision", "normal_angle_error",
    "degeneracy", "is_coarser_mesh_accepted", "max_level", "max_cell_tests",
    # queries
    "point", "max_iterations", "tolerance", "query", "count", "start", "end", "time"})

# A claim's Given input named otherwise than the request parameter it copies.
CLAIM_ALIASES = {"closed": "is_closed", "accepts_coarser": "is_coarser_mesh_accepted",
                 "coarser": "is_coarser_mesh_accepted"}


def _request_name(name: str) -> str:
    return CLAIM_ALIASES.get(name, name)


# Given inputs that copy one of their own step's arguments (``call.<argument>`` in
# :func:`step_parameters`), by row: a distance query's target and policy, a track query's policy
# and side. A claim's ``request`` object (the path rows' "evaluation request exactly as made")
# copies its step's arguments field by field.
CALL_ARGUMENTS = {"distance.inversion_residual": {"query": "distance", "policy": "policy"},
                  "track.values": {"policy": "policy", "side": "side"},
                  "frame.regularity": {"max_depth": "preparation.limits.max_depth"},
                  "surface.evaluation": {"u": "u", "v": "v"}}


def _parameter_key(row: str, label: str, name: str, params: dict) -> str:
    """The key of ``params`` (:func:`step_parameters`) that a claim's Given input (``label``:
    its name, or ``"field.name"`` inside an object input) copies."""
    argument = name if label.startswith("request.") else CALL_ARGUMENTS.get(row, {}).get(label)
    if argument is not None and f"call.{argument}" in params:
        return f"call.{argument}"
    return _request_name(name)


def _set_once(inputs) -> dict:
    """``{name: value}`` of every :data:`COPIED_PARAMETERS` name set to one value in ``inputs``
    (dicts walked, a copied name's list value taken whole)."""
    seen: dict = {}

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in COPIED_PARAMETERS and not isinstance(v, dict):
                    seen.setdefault(k, []).append(v)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for x in inputs:
        walk(x)
    return {k: vs[0] for k, vs in seen.items() if all(_same_parameter(v, vs[0]) for v in vs)}


def request_parameters(req: Request) -> dict:
    """``{name: value}`` of every :data:`COPIED_PARAMETERS` name that the request's steps set to
    one value (a name set twice, to different values, says nothing and is left out)."""
    return _set_once(step.inputs for step in req.steps)


def step_parameters(req: Request) -> list[dict]:
    """Per step, the parameters its claims copy: the request's (:func:`request_parameters`),
    and over them those the step's own inputs set to one value (each query's point, segment or
    count; a surface mesh's SurfaceMeshProfile.PositionError rather than the ToleranceProfile's
    of the same name that TryPrepareSurface took); and ``call.<argument>`` for each of the
    step's own scalar arguments, nested ones by their dotted names (:data:`CALL_ARGUMENTS`)."""
    base = request_parameters(req)
    return [{**base, **_set_once([step.inputs]), **_arguments(step.inputs)} for step in req.steps]


def _arguments(inputs: dict, prefix: str = "call.") -> dict:
    """A step's scalar arguments by their dotted names (``call.u``, ``call.preparation.limits.max_depth``)."""
    out: dict = {}
    for k, v in inputs.items():
        if isinstance(v, dict):
            out.update(_arguments(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[prefix + k] = v
    return out


def _negative_zero(x) -> bool:
    if isinstance(x, float):
        return x == 0 and math.copysign(1.0, x) < 0
    return isinstance(x, str) and x.lstrip().startswith("-")


def _same_parameter(a, b) -> bool:
    """Equal as the case files mean them: booleans by identity, names by text, numbers by exact
    value whatever their spelling (hex, decimal, int; -0 and +0 apart), lists item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if a is b or (isinstance(a, str) and a == b):
        return True  # the same text is the same value
    if isinstance(a, list) and a == b and json.dumps(a) == json.dumps(b):
        return True  # the same items (== alone takes -0.0 for 0.0)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_parameter(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float, str)) and isinstance(b, (int, float, str)):
        try:
            x, y = parse_number(a), parse_number(b)
        except (NumberError, TypeError, ValueError):
            return False
        return x == y and (x != 0 or _negative_zero(a) == _negative_zero(b))
    return False


# A request's source: items under ``key``, each holding its controls under ``field`` in the
# shape ``shape`` (a path's spans, a surface's patches), beside the chunk origin.
_SOURCES = (("spans", "controls", (4, 3)), ("patches", "control", (4, 4, 3)))


def request_controls(req: Request):
    """The request's one source (:class:`RequestSource`): its float64 controls, their prepared
    form ``fl32(fl64(source - origin))`` (float64 array ``(n, 4, 3)`` of a path, ``(n, 4, 4, 3)``
    of a surface, replayed exactly by ``interval.narrowing``; None where the narrowing cannot
    hold it), and a surface's patch ids and joins; or None: no source, two different ones (a
    rebuild), or one that is not an array of controls."""
    import numpy as np

    from interval.narrowing import replay_narrowing

    found: dict = {}

    def walk(x):
        if isinstance(x, dict):
            for key, field, shape in _SOURCES:
                if isinstance(x.get(key), list) and "origin" in x:
                    found.setdefault(repr((x[key], x["origin"])), (x, key, field, shape))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for step in req.steps:
        walk(step.inputs)
    if len(found) != 1:
        return None
    ((source, key, field, shape),) = found.values()
    try:
        src = dec_array([item[field] for item in source[key]])
        origin = dec_array(source["origin"])
        if src.ndim != len(shape) + 1 or src.shape[1:] != shape or origin.shape != (3,) or not (
                np.all(np.isfinite(src)) and np.all(np.isfinite(origin))):
            return None
        out = replay_narrowing(src, origin).astype(np.float64).reshape(src.shape)
        ids = [item["id"] for item in source[key]] if key == "patches" else None
        joins = [[j["first_patch"], j["first_side"], j["second_patch"], j["second_side"], j["is_reversed"]]
                 for j in source.get("adjacency", ())] if key == "patches" else None
    except (NumberError, TypeError, ValueError, KeyError):
        return None
    return RequestSource(src, out if np.all(np.isfinite(out)) else None, ids, joins)


class RequestSource:
    """A request's one source: ``source`` (float64 controls as given), ``values`` (the prepared
    controls, float64, or None), a surface's ``ids`` and ``joins`` (``[first_patch, first_side,
    second_patch, second_side, is_reversed]``, else None), and the canonical texts (``enc``) of
    each array whole and of each span or patch, so that a claim spelling them the same way is
    matched without reading its numbers."""

    def __init__(self, source, values, ids=None, joins=None):
        self.source, self.values, self.ids, self.joins = source, values, ids, joins
        # a path span's stored endpoints are its first and last controls
        ends = source[:, [0, 3]] if source.ndim == 3 else None
        self.source_forms = (source, ends) if ends is not None else (source,)
        self.texts = _texts(values) if values is not None else set()
        self.source_texts = set().union(*(_texts(a) for a in self.source_forms))


def _texts(a) -> set:
    from .model import enc

    return {json.dumps(enc(a))} | {json.dumps(enc(a[k])) for k in range(a.shape[0])}


def _source_mismatch(src: RequestSource, claim: Claim, patch=None) -> Verdict | None:
    """Violated (rule ``claim:prepared_controls``) when the claim's ``inputs.controls`` (the whole
    source, or one span or patch), or the prepared path of a path claim's ``inputs.request``,
    are not the request's prepared controls; Violated (rule ``claim:given_inputs``) when its
    Given ``source`` (whole, one span or patch, or a span's first and last controls), a
    surface's patch ``ids`` or its ``joins`` are not the request's; None when they are, or when
    the claim holds none of them in a shape it could (its checker reads what it has). A step
    that names a surface ``patch`` (TryEvaluateSurface) holds its claims' controls to that
    patch, not any patch of the source."""
    inputs = claim.inputs if isinstance(claim.inputs, dict) else {}
    request = inputs.get("request")
    if src.values is not None:
        texts, forms = src.texts, (src.values,)
        if src.values.ndim == 4 and isinstance(patch, int) and not isinstance(patch, bool) and \
                0 <= patch < src.values.shape[0]:
            texts, forms = _texts(src.values[patch:patch + 1]), (src.values[patch:patch + 1],)
        for label, raw in (("controls", inputs.get("controls")),
                           ("request.path", request.get("path") if isinstance(request, dict) else None)):
            if raw is not None and not _holds(texts, forms, raw):
                return violated(claim, {"why": f"inputs.{label} are not the request's source narrowed to float32 "
                                               "(fl32(fl64(source - origin)))", "input": label},
                                note="the claim's prepared controls are another curve than the request's",
                                rule=PREPARED_CONTROLS.id)
    raw = inputs.get("source")
    bad = raw is not None and not _holds(src.source_texts, src.source_forms, raw)
    for label, want in (("ids", src.ids), ("joins", src.joins)):
        if not bad and want is not None and label in inputs and not _same_parameter(inputs[label], want):
            bad, raw = label, inputs[label]
    if bad:
        label = "source" if bad is True else bad
        return violated(claim, {"input": label, "why": f"the Given input {label} is not the request's source"},
                        note=f"inputs.{label} differs from the request's", rule=GIVEN_INPUTS.id)
    return None


def _holds(texts: set, forms: tuple, raw) -> bool:
    """Whether ``raw`` (a claim's controls or source: all of them, or one item) is one of
    ``forms`` or an item of one, or cannot be read as such at all (then the row's checker
    refuses it); ``texts`` are their canonical spellings, matched without reading numbers."""
    import numpy as np

    try:
        if json.dumps(raw) in texts:
            return True  # the same text is the same values
        got = dec_array(raw)  # as the row checkers read them; numbers they cannot read are theirs to refuse
    except (NumberError, TypeError, ValueError):
        return True
    shapes = {a.shape for a in forms} | {a.shape[1:] for a in forms}
    if got.shape not in shapes:
        return True
    return any(np.array_equal(got, a) or any(np.array_equal(got, a[k]) for k in range(a.shape[0])) for a in forms
               if got.shape in (a.shape, a.shape[1:]))


def _input_variants(row: str) -> tuple[tuple[frozenset, dict], ...]:
    """``(required names, {optional name: its fields})`` of each object form a row's case-file
    contract allows for ``inputs`` (one, or the ``anyOf`` forms; none for an unknown row). An
    optional input that is itself an object (a mesh's ``profile``) has its ``(required,
    optional)`` field names, any other None."""
    got = _VARIANTS.get(row)
    if got is None:
        from .families import contract_for

        c = contract_for(row)
        schema = c.inputs if c is not None and isinstance(c.inputs, dict) else {}

        def fields(f):
            if not isinstance(f, dict) or f.get("type") != "object":
                return None
            req = tuple(f.get("required", ()))
            return req, tuple(n for n in f.get("properties", {}) if n not in req)

        # forms are the anyOf alternatives that declare properties; an anyOf of bare "required"
        # lists (the path rows' point-or-request) only constrains the one object form
        forms = [f for f in schema.get("anyOf", ()) if isinstance(f, dict) and "properties" in f] or [schema]
        got = tuple((frozenset(f.get("required", ())),
                     {n: fields(x) for n, x in f.get("properties", {}).items() if n not in f.get("required", ())})
                    for f in forms)
        _VARIANTS[row] = got
    return got


_VARIANTS: dict[str, tuple] = {}


def _from_request(params: dict, name: str, fields, source=None):
    """The request's value of an optional input ``name``: the parameter of that name; a path
    evaluation's ``request`` object (:func:`_evaluation_request`); or, for an object input none
    of whose required fields is missing from ``params``, the object of its fields' values (a
    surface mesh's profile from the build's own inputs); else _ABSENT."""
    if _request_name(name) in params:
        return params[_request_name(name)]
    if name == "request":
        return _evaluation_request(params, source)
    if fields is None or not fields[0] or any(_request_name(f) not in params for f in fields[0]):
        return _ABSENT
    return {f: params[_request_name(f)] for f in (*fields[0], *fields[1]) if _request_name(f) in params}


def _evaluation_request(params: dict, source):
    """A path evaluation claim's ``request`` object ("the evaluation request exactly as made")
    from its step: the step's span, u, policy and side, the path's closedness, and the prepared
    path the narrowing rule fixes (``source``, :func:`request_controls`); _ABSENT where any is
    missing."""
    from .model import enc

    call = ("span", "u", "policy", "side")
    if source is None or source.values is None or source.values.ndim != 3 or "is_closed" not in params or any(
            f"call.{f}" not in params for f in call):
        return _ABSENT
    return {"path": enc(source.values), "is_closed": params["is_closed"],
            **{f: params[f"call.{f}"] for f in call}}


def with_request_inputs(params: dict, claim: Claim, source=None) -> Claim:
    """``claim`` with every optional Given input it leaves out that the request sets (one
    step's :func:`step_parameters`, ``params``) set to the request's value: an answer's claim
    is about the call, so it is judged on the call's inputs whether it states them or not (a
    sweep claim without ``distance_error`` would otherwise escape the ring-twist rule). An
    optional object input is completed when the request sets all its required fields, and a
    path evaluation's ``request`` from its step and the request's ``source``
    (:func:`request_controls`). Required inputs are never added (their absence is malformed),
    and a claim stating every such input is returned as it is."""
    if not params or not isinstance(claim.inputs, dict):
        return claim
    add = {}
    for required, optional in _input_variants(claim.row):
        if required <= claim.inputs.keys():
            for n, fields in optional.items():
                if n not in claim.inputs and n not in add:
                    v = _from_request(params, n, fields, source)
                    if v is not _ABSENT:
                        add[n] = v
    return replace(claim, inputs={**claim.inputs, **add}) if add else claim


def given_mismatch(params: dict, claim: Claim, controls=None) -> Verdict | None:
    """Violated (rule ``claim:given_inputs``) when a Given input of ``claim`` names a request
    parameter of ``params`` and holds another value: the claim would be judged on inputs that
    are not the call's (a looser DistanceError, another corner policy), or its Given source,
    patch ids or joins are not the request's; Violated (rule ``claim:prepared_controls``) when
    its prepared controls are not the narrowing of the request's source (``controls``,
    :func:`request_controls`, :func:`_source_mismatch`); else None."""
    inputs = claim.inputs if isinstance(claim.inputs, dict) else {}
    if controls is not None:
        bad = _source_mismatch(controls, claim, params.get("call.patch"))
        if bad is not None:
            return bad
    for label, name, got in _given_items(inputs):
        key = _parameter_key(claim.row, label, name, params)
        want = params.get(key, _ABSENT)
        if want is not _ABSENT and not _same_parameter(got, want):
            return violated(claim, {"input": label, "request": want, "claimed": got,
                                    "why": f"the Given input {label} is not the request's"},
                            note=f"inputs.{label} differs from the request's {key.replace('call.', '', 1)}",
                            rule=GIVEN_INPUTS.id)
    return None


_ABSENT = object()


def _given_items(inputs: dict):
    """``(label, name, value)`` of a claim's inputs, and of the fields of an input that is an
    object (a frame's ``seed``, a mesh's ``profile``), labelled ``"seed.seed_up"``."""
    for name, got in inputs.items():
        if isinstance(got, dict):
            yield from ((f"{name}.{k}", k, v) for k, v in got.items())
        else:
            yield name, name, got


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
    claimed = any(got.claims for got in ans.steps)
    params = step_parameters(req) if claimed else [{}] * len(req.steps)
    controls = request_controls(req) if claimed else None
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
            c = with_request_inputs(params[k], c, controls)
            v = given_mismatch(params[k], c, controls) if params[k] or controls is not None else None
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
    claimed = any(got.claims for got in ans.steps)
    params = step_parameters(req) if claimed else [{}] * len(req.steps)
    source = request_controls(req) if claimed else None
    for k, got in enumerate(ans.steps[:len(req.steps)]):
        out.append(status_claim(req, k, got.status, decisions=ans.decisions))
        out.extend(with_request_inputs(params[k], c, source) for c in got.claims)
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
