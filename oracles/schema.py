"""The case file's JSON Schema, assembled from every row's contract, and its validator.

A case file (format ``claims/1``, ``docs/casefile.md``) is validated in full before anything is
judged: the envelope, and per row the ``inputs``, ``value`` and ``model`` schemas of that row's
:class:`oracles.family.RowContract`. Every message names the field by its path
(``claims[3].inputs.controls[0][1]``). Numbers follow the claim number grammar of
``oracles.model.parse_number``; the custom keyword ``claimNumber`` checks that a number is
exactly representable in the format its field demands (JSON Schema alone cannot say "this
decimal is exactly a float32").

Building blocks for contracts: :func:`f64`, :func:`f32`, :func:`rational`, :func:`integer`,
:func:`boolean`, :func:`string`, :func:`enum`, :func:`array`, :func:`vec`, :func:`matrix`,
:func:`obj`, :func:`any_of`, :func:`const`, and :data:`MODEL` (the declared error model of a
Rounded claim).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional

from jsonschema import Draft202012Validator, ValidationError, validators

from .model import NumberError, number_as, parse_number

__all__ = [
    "f64", "f32", "rational", "integer", "boolean", "string", "enum", "array", "tuple_", "vec", "matrix",
    "obj", "any_of", "const", "MODEL", "case_file_schema", "validate_document", "FieldError",
    "SCHEMA_PATH", "field_path",
]

SCHEMA_PATH = Path(__file__).with_name("casefile.schema.json")

_NUMBER_TYPES = ["string", "number"]


def _number(fmt: str, finite: bool, nonnegative: bool, positive: bool) -> dict:
    spec: dict = {"format": fmt, "finite": finite}
    if nonnegative:
        spec["nonnegative"] = True
    if positive:
        spec["positive"] = True
    return {"type": _NUMBER_TYPES, "claimNumber": spec}


def f64(*, finite: bool = True, nonnegative: bool = False, positive: bool = False) -> dict:
    """A number exactly representable as a float64 (nonfinite words only with finite=False)."""
    return _number("f64", finite, nonnegative, positive)


def f32(*, finite: bool = True, nonnegative: bool = False, positive: bool = False) -> dict:
    """A number exactly representable as a float32."""
    return _number("f32", finite, nonnegative, positive)


def rational(*, nonnegative: bool = False, positive: bool = False) -> dict:
    """Any finite exact rational (``p/q``, hex, decimal text or a JSON number)."""
    return _number("rational", True, nonnegative, positive)


def integer(minimum: Optional[int] = None, maximum: Optional[int] = None) -> dict:
    out: dict = {"type": "integer"}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return out


def boolean() -> dict:
    return {"type": "boolean"}


def string() -> dict:
    return {"type": "string"}


def enum(names: Iterable[str]) -> dict:
    """One of these spellings, exactly (enum members keep the spec's spelling)."""
    return {"enum": list(names)}


def const(value: Any) -> dict:
    return {"const": value}


def array(item: dict, *, min_items: Optional[int] = None, max_items: Optional[int] = None) -> dict:
    out: dict = {"type": "array", "items": item}
    if min_items is not None:
        out["minItems"] = min_items
    if max_items is not None:
        out["maxItems"] = max_items
    return out


def tuple_(*items: dict) -> dict:
    """A fixed-length array whose i-th item has the i-th schema (a track key, say)."""
    return {"type": "array", "prefixItems": list(items), "items": False,
            "minItems": len(items), "maxItems": len(items)}


def vec(item: dict, n: int) -> dict:
    """An array of exactly ``n`` items."""
    return array(item, min_items=n, max_items=n)


def matrix(item: dict, shape: Iterable[Optional[int]]) -> dict:
    """Nested arrays of the given shape (``None`` for a free length of at least one)."""
    shape = list(shape)
    out = item
    for n in reversed(shape):
        out = array(out, min_items=1) if n is None else vec(out, n)
    return out


def obj(required: Optional[dict] = None, optional: Optional[dict] = None) -> dict:
    """An object with exactly these fields (unknown fields are malformed, never ignored)."""
    required, optional = dict(required or {}), dict(optional or {})
    return {"type": "object", "properties": {**required, **optional},
            "required": sorted(required), "additionalProperties": False}


def any_of(*schemas: dict) -> dict:
    return {"anyOf": list(schemas)}


# The declared error model of a Rounded claim (oracles.errormodel): the unit roundoff the
# producer computed in (and, for a format other than binary64/32/16, its subnormal step eta),
# optionally its own rounding constant k in place of the project's; or an explicit bound.
MODEL: dict = {
    "type": "object",
    "properties": {
        "name": string(),
        "u": f64(positive=True),
        "eta": f64(nonnegative=True),
        "k": f64(positive=True),
        "bound": any_of(f64(nonnegative=True), array(f64(nonnegative=True), min_items=1)),
    },
    "additionalProperties": False,
    "not": {"required": ["u", "bound"]},
    "dependentRequired": {"eta": ["u"], "k": ["u"]},
}


def _claim_number(validator, spec, instance, schema):
    if not isinstance(instance, str) and not validator.is_type(instance, "number"):
        return  # "type" reports it
    fmt = spec.get("format", "f64")
    try:
        if fmt == "rational":
            q = parse_number(instance)
            if isinstance(q, float):
                raise NumberError(f"{instance!r} is not finite")
        else:
            v = number_as(instance, fmt, finite=spec.get("finite", True))
            q = None if v != v else v  # NaN compares with nothing
    except NumberError as e:
        yield ValidationError(str(e))
        return
    if q is None:
        return
    if spec.get("positive") and not q > 0:
        yield ValidationError(f"{instance!r} must be positive")
    elif spec.get("nonnegative") and not q >= 0:
        yield ValidationError(f"{instance!r} must be nonnegative")


def _items(validator, items, instance, schema):
    """``items``, with arrays of plain claim numbers checked in one loop instead of one
    validator per number (most of a case file is such arrays). Same errors: an item that is a
    string or a number can fail only ``claimNumber``; any other item takes the general path."""
    if (isinstance(instance, list) and isinstance(items, dict) and items.keys() == _PLAIN_NUMBER
            and items["type"] == _NUMBER_TYPES and "prefixItems" not in schema):
        spec = items["claimNumber"]
        for index, x in enumerate(instance):
            if isinstance(x, str) or validator.is_type(x, "number"):
                for err in _claim_number(validator, spec, x, items):
                    err._set(validator="claimNumber", validator_value=spec, instance=x, schema=items)
                    err.schema_path.appendleft("claimNumber")
                    err.path.appendleft(index)
                    yield err
            else:
                yield from validator.descend(x, items, path=index)
        return
    yield from _ITEMS(validator, items, instance, schema)


_PLAIN_NUMBER = {"type", "claimNumber"}
_ITEMS = Draft202012Validator.VALIDATORS["items"]
_Validator = validators.extend(Draft202012Validator, {"claimNumber": _claim_number, "items": _items})


class FieldError(ValueError):
    """One schema violation: ``path`` names the field (``claims[3].inputs.u``)."""

    def __init__(self, path: str, message: str, claim: Optional[int] = None):
        super().__init__(f"{path}: {message}" if path else message)
        self.path, self.message, self.claim = path, message, claim


def field_path(parts: Iterable) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _claim_schema(row_id: str, contract) -> dict:
    from .rows import row

    props = {"row": const(row_id), "guarantee": const(row(row_id).guarantee.value),
             "inputs": contract.inputs, "value": contract.value}
    if contract.model is not None:
        props["model"] = contract.model
    return {"type": "object", "properties": props, "required": ["row", "guarantee", "value", "inputs"],
            "additionalProperties": False}


@lru_cache(maxsize=None)
def case_file_schema() -> dict:
    """The whole case-file schema: the envelope, then one ``if row == R then ...`` per row with
    a contract (rows without one accept any inputs: their claims are judged Undecided)."""
    from .rows import ROWS
    from .casefile import FORMAT

    from .checks import _contracts

    contracts = _contracts()
    envelope = {
        "type": "object",
        "required": ["row", "guarantee", "value", "inputs"],
        "properties": {"row": enum([r.id for r in ROWS]),
                       "guarantee": enum(["Exact", "Rounded", "Certified", "Estimated", "Approximate"]),
                       "inputs": {"type": "object"}, "value": {}, "model": {}},
        "additionalProperties": False,
    }
    per_row = [{"if": {"properties": {"row": const(rid)}, "required": ["row"]},
                "then": {"$ref": f"#/$defs/{rid}"}} for rid in sorted(contracts)]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "ludus-geometry-reference/casefile.schema.json",
        "title": f"Case file ({FORMAT}): claims of an implementation, judged by the oracle",
        "type": "object",
        "required": ["format", "claims"],
        "properties": {"format": const(FORMAT), "producer": string(),
                       "claims": array({"$ref": "#/$defs/claim"})},
        "additionalProperties": False,
        "$defs": {"claim": {"allOf": [envelope, *per_row]},
                  **{rid: _claim_schema(rid, c) for rid, c in contracts.items()}},
    }


def schema_text() -> str:
    """The schema as shipped in ``oracles/casefile.schema.json`` (sorted, indented)."""
    return json.dumps(case_file_schema(), indent=1, sort_keys=True) + "\n"


def _leaf_errors(err: ValidationError):
    """The most specific errors: inside ``allOf``/``if-then``/``$ref`` the causes, not the wrapper."""
    if err.context:
        for sub in err.context:
            yield from _leaf_errors(sub)
    else:
        yield err


@lru_cache(maxsize=None)
def _validators() -> tuple:
    """The validators :func:`validate_document` dispatches to, from one :func:`case_file_schema`:
    the whole schema with each claim held to the envelope alone, and per row with a contract a
    validator of that row's claim schema."""
    schema = case_file_schema()
    defs = schema["$defs"]
    envelope = defs["claim"]["allOf"][0]
    rows = {rid: _Validator({"$ref": f"#/$defs/{rid}", "$defs": defs}) for rid in defs if rid != "claim"}
    return _Validator({**schema, "$defs": {**defs, "claim": envelope}}), rows


def _dispatched_errors(doc: Any):
    """The errors of the whole schema on ``doc``, found faster: the envelope pass, then each
    claim against its own row's schema only, instead of asking every claim the ``if row == R``
    of every row (three quarters of the time of reading a large case file). The published
    schema is unchanged; ``tests/oracles/test_casefile.py`` holds the two to the same errors."""
    envelope, rows = _validators()
    yield from envelope.iter_errors(doc)
    claims = doc.get("claims") if isinstance(doc, dict) else None
    if not isinstance(claims, list):
        return
    for i, c in enumerate(claims):
        rid = c.get("row") if isinstance(c, dict) else None
        if isinstance(rid, str) and rid in rows:
            for err in rows[rid].iter_errors(c):
                err.path.extendleft([i, "claims"])  # as if found from the document's root
                yield err


def validate_document(doc: Any) -> list[FieldError]:
    """Every schema violation of a parsed case file, one per field, ordered by path."""
    out, seen = [], set()
    for err in _dispatched_errors(doc):
        for leaf in _leaf_errors(err):
            parts = list(leaf.absolute_path)
            path = field_path(parts)
            key = (path, leaf.message)
            if key in seen:
                continue
            seen.add(key)
            claim = parts[1] if len(parts) >= 2 and parts[0] == "claims" and isinstance(parts[1], int) else None
            out.append(FieldError(path, leaf.message, claim))
    out.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
    return out
