"""An answer's claims and the call they answer: Given inputs compared with the request, and
completed from it where a claim leaves an optional one out.

A claim's inputs marked *Given* are copied from the call (docs/casefile.md). When an answers
file is judged against its request file, ``oracles.contract.judge_answer`` first completes each
claim's left-out optional Given inputs from its step (:func:`with_request_inputs`), then holds
every Given input to the request (:func:`given_mismatch`: rule ``claim:given_inputs``) and the
claim's prepared controls to the narrowing of the request's source (rule
``claim:prepared_controls``), before the row's checker sees it. docs/decisions.md "Answers:
Given inputs are the request's" gives the reasons. A claims/1 file has no request: there the
inputs are the claim.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction
from functools import cached_property
from typing import Any

from .model import Claim, NumberError, Verdict, dec_array, enc, parse_number, violated
from .request import Request
from .rules import GIVEN_INPUTS, PREPARED_CONTROLS

__all__ = ["CALL_ARGUMENTS", "CLAIM_ALIASES", "COPIED_PARAMETERS", "STEP_FORMS", "RequestSource", "canonical_output",
           "given_mismatch", "request_controls", "request_parameters", "step_parameters", "with_answer",
           "with_request_inputs"]


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
    "winding_turns", "seed_up", "keys", "points", "tangents", "widths", "coincidence_distance", "positions",
    "indices", "vertices", "triangles",
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


def _copied(inputs: dict) -> dict[str, list]:
    """``{name: [values]}`` of every :data:`COPIED_PARAMETERS` name in a step's ``inputs``
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

    walk(inputs)
    return seen


def _set_once(seen: dict[str, list]) -> dict:
    """The names of ``seen`` (:func:`_copied`) set to one value, with it."""
    return {k: vs[0] for k, vs in seen.items() if all(_same_parameter(v, vs[0]) for v in vs)}


def _merged(per_step: list) -> dict[str, list]:
    out: dict = {}
    for seen in per_step:
        for k, vs in seen.items():
            out.setdefault(k, []).extend(vs)
    return out


def request_parameters(req: Request) -> dict:
    """``{name: value}`` of every :data:`COPIED_PARAMETERS` name that the request's steps set to
    one value (a name set twice, to different values, says nothing and is left out)."""
    return _set_once(_merged([_copied(step.inputs) for step in req.steps]))


def step_parameters(req: Request) -> list[dict]:
    """Per step, the parameters its claims copy: the request's (:func:`request_parameters`),
    and over them those the step's own inputs set to one value (each query's point, segment or
    count; a surface mesh's SurfaceMeshProfile.PositionError rather than the ToleranceProfile's
    of the same name that TryPrepareSurface took); and ``call.<argument>`` for each of the
    step's own scalar arguments, nested ones by their dotted names (:data:`CALL_ARGUMENTS`)."""
    per_step = [_copied(step.inputs) for step in req.steps]  # each step's inputs walked once
    base = _set_once(_merged(per_step))
    return [{**base, **_set_once(own), **_arguments(step.inputs), **_step_values(step), "step.op": step.op}
            for step, own in zip(req.steps, per_step)]


# Forms of a claim that only some steps' claims may take, by the claim's row and input: a
# DistanceBound.Estimate (TryBoundDistance's, whose interval no width rule bounds) is made by
# TryBoundDistance alone, so a map build's leaf, total or stored prefix estimate cannot be
# stated in that form to escape distance:estimate_width.
STEP_FORMS = {("distance.estimates", "what"): {"DistanceBound.Estimate": frozenset({"TryBoundDistance"})}}


# The claims of these steps name what the step did (``kind``): the converter a conversion ran,
# the evaluation a surface query made (a normal query answered with a sample claim would leave
# its normal unjudged); a Hermite source's waypoints [position, tangent, width] by column.
_STEP_KINDS = {"TryConvertHermite": "hermite", "TryConvertCentripetalCatmullRom": "catmull_rom",
               "TryEvaluateSurfaceNormal": "normal"}


def _step_values(step) -> dict:
    """What a step's claims state of the step itself: its ``kind``, and a Hermite source's
    ``points``, ``tangents`` and ``widths``."""
    kind = _STEP_KINDS.get(step.op)
    if step.op == "TryEvaluateSurface" and step.inputs.get("partials") is True:
        kind = "sample"  # "Given: TryEvaluateSurface with all partials"
    if kind is None:
        return {}
    out = {"kind": kind}
    waypoints = step.inputs.get("waypoints")
    if kind == "hermite" and isinstance(waypoints, list) and all(
            isinstance(w, list) and len(w) == 3 for w in waypoints):
        out.update(points=[w[0] for w in waypoints], tangents=[w[1] for w in waypoints],
                   widths=[w[2] for w in waypoints])
    return out


def _arguments(inputs: dict, prefix: str = "call.") -> dict:
    """A step's scalar arguments by their dotted names (``call.u``, ``call.preparation.limits.max_depth``)."""
    out: dict = {}
    for k, v in inputs.items():
        if isinstance(v, dict):
            out.update(_arguments(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[prefix + k] = v
    return out


def _canonical_number(x: Any):
    try:
        q = parse_number(x)
    except NumberError:
        return None
    if isinstance(q, float):  # nan / inf words
        return ("special", "nan" if math.isnan(q) else ("inf" if q > 0 else "-inf"))
    neg_zero = q == 0 and (x.strip().startswith("-") if isinstance(x, str) else
                           isinstance(x, float) and math.copysign(1.0, x) < 0)
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


def _same_parameter(a, b) -> bool:
    """Equal as the case files mean them (:func:`canonical_output`): booleans by identity, names
    by text, numbers by exact value whatever their spelling (hex, decimal, int; -0 and +0 apart),
    lists item by item. The same text, or the same list spelled alike, is equal without
    reading its numbers."""
    if a is b or (isinstance(a, str) and a == b):
        return True
    if isinstance(a, list) and a == b and json.dumps(a) == json.dumps(b):
        return True  # the same items spelled alike (== alone takes -0.0 for 0.0)
    return canonical_output(a) == canonical_output(b)


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
    matched without reading its numbers (built on first use: most requests' claims state no
    ``source``)."""

    def __init__(self, source, values, ids=None, joins=None):
        self.source, self.values, self.ids, self.joins = source, values, ids, joins
        # a path span's stored endpoints are its first and last controls
        self.source_forms = (source, source[:, [0, 3]]) if source.ndim == 3 else (source,)
        self._item_texts: dict[int, set] = {}

    @cached_property
    def texts(self) -> set:
        return _texts(self.values) if self.values is not None else set()

    @cached_property
    def source_texts(self) -> set:
        return set().union(*(_texts(a) for a in self.source_forms))

    def item_texts(self, k: int) -> set:
        """The canonical texts of one prepared span or patch (the one a step evaluates)."""
        if k not in self._item_texts:
            self._item_texts[k] = _texts(self.values[k:k + 1])
        return self._item_texts[k]


def _texts(a) -> set:
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
            texts, forms = src.item_texts(patch), (src.values[patch:patch + 1],)
        for label, raw in (("controls", inputs.get("controls")),
                           ("request.path", request.get("path") if isinstance(request, dict) else None)):
            if raw is not None and not _holds(texts, forms, raw):
                return violated(claim, {"why": f"inputs.{label} are not the request's source narrowed to float32 "
                                               "(fl32(fl64(source - origin)))", "input": label},
                                note="the claim's prepared controls are another curve than the request's",
                                rule=PREPARED_CONTROLS.id)
    raw = inputs.get("source")
    same = {"source": raw is None or _holds(src.source_texts, src.source_forms, raw)}
    for label, want in (("ids", src.ids), ("joins", src.joins)):
        same[label] = want is None or label not in inputs or _same_parameter(inputs[label], want)
    for label, ok in same.items():
        if not ok:
            return violated(claim, {"input": label, "why": f"the Given input {label} is not the request's source"},
                            note=f"inputs.{label} differs from the request's", rule=GIVEN_INPUTS.id)
    return None


def _hook(row: str, name: str):
    """A row contract's answer hook ``name`` (``evaluated_point``, ``answered``), or None."""
    key = (row, name)
    if key not in _HOOKS:
        from .families import contract_for

        _HOOKS[key] = getattr(contract_for(row), name, None)
    return _HOOKS[key]


_HOOKS: dict = {}


def with_answer(claim: Claim, req: Request, ans, step: int) -> tuple[Claim, Verdict | None]:
    """``(claim, verdict)``: for a row whose claims restate what other steps of the answer
    returned (``RowContract.answered``: a frame build's claim lists the frames later evaluations
    returned), the claim completed from those steps, and a Violated verdict where it
    contradicts them; any other claim as it is, with None."""
    hook = _hook(claim.row, "answered")
    return (claim, None) if hook is None else hook(claim, req, ans, step)


def _point_mismatch(params: dict, claim: Claim, src: RequestSource) -> Verdict | None:
    """Violated (the row's own rule, ``RowContract.evaluated_point``) when a claim of a row whose
    claims name the point their step evaluated names another one: its ``controls`` are not the
    prepared span its step's arguments name, or its ``u`` not that u (exact values; a signed zero
    is zero). None for other rows, for a call that names no point, and for inputs the row's
    checker cannot read (it refuses them)."""
    got = _hook(claim.row, "evaluated_point")
    if got is None or src.values is None or src.values.ndim != 3:
        return None
    rule, point = got
    p = point(src.values.shape[0], {k[5:]: v for k, v in params.items() if k.startswith("call.")})
    if p is None:
        return None
    k, u = p
    inputs = claim.inputs if isinstance(claim.inputs, dict) else {}
    if "controls" in inputs and not _holds(src.item_texts(k), (src.values[k:k + 1],), inputs["controls"]):
        return violated(claim, {"input": "controls", "span": k, "u": enc(u),
                                "why": f"inputs.controls are not span {k}'s, the span the step names"},
                        note="the claim is about another span than the one its step evaluates", rule=rule.id)
    try:
        claimed = parse_number(inputs.get("u"))
    except NumberError:
        return None
    if isinstance(claimed, Fraction) and claimed != Fraction(u):
        return violated(claim, {"input": "u", "span": k, "u": enc(u), "claimed": inputs.get("u"),
                                "why": f"inputs.u is not {enc(u)}, the u of span {k} that the step names"},
                        note="the claim is about another parameter than the one its step evaluates", rule=rule.id)
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


def given_mismatch(params: dict, claim: Claim, source: RequestSource | None = None) -> Verdict | None:
    """Violated (rule ``claim:given_inputs``) when a Given input of ``claim`` names a request
    parameter of ``params`` and holds another value: the claim would be judged on inputs that
    are not the call's (a looser DistanceError, another corner policy), or its Given source,
    patch ids or joins are not the request's; Violated (rule ``claim:prepared_controls``) when
    its prepared controls are not the narrowing of the request's ``source``
    (:func:`request_controls`, :func:`_source_mismatch`); Violated (the row's own rule) when it
    names another point than the one its step evaluates (:func:`_point_mismatch`); else None."""
    inputs = claim.inputs if isinstance(claim.inputs, dict) else {}
    if source is not None:
        bad = _source_mismatch(source, claim, params.get("call.patch")) or _point_mismatch(params, claim, source)
        if bad is not None:
            return bad
    op = params.get("step.op")
    for (row, name), forms in STEP_FORMS.items():
        ops = forms.get(inputs.get(name)) if row == claim.row and isinstance(inputs.get(name), str) else None
        if op is not None and ops is not None and op not in ops:
            return violated(claim, {"input": name, "claimed": inputs[name], "step": op,
                                    "why": f"{inputs[name]} is made by {', '.join(sorted(ops))}, not by {op}"},
                            note=f"inputs.{name} names the form of another operation than its step's",
                            rule=GIVEN_INPUTS.id)
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
