"""The case file's JSON Schema, assembled from every row's contract, and its validator.

A case file (format ``claims/1``, ``docs/casefile.md``) is validated in full before anything is
judged: the envelope, and per row the ``inputs``, ``value`` and ``model`` schemas of that row's
:class:`oracles.family.RowContract`. Every message names the field by its path
(``claims[3].inputs.controls[0][1]``) and shows the value as JSON text; where a field admits
alternatives (``anyOf``), a value that fits none is reported once, with the error of the
alternative it came closest to. Numbers follow the claim number grammar of
``oracles.model.parse_number``; the custom keyword ``claimNumber`` reads a number into the
format its field demands (JSON Schema alone cannot say "this decimal is a float32"): a decimal
by rounding to the nearest value (:func:`oracles.model.read_number`), hex and ``p/q`` exactly;
:func:`read_document` returns, beside the errors, where each decimal was read and the value read
(as hex text), so that the loader hands checkers exact numbers in one spelling.

Building blocks for contracts: :func:`f64`, :func:`f32`, :func:`rational`, :func:`integer`,
:func:`boolean`, :func:`string`, :func:`enum`, :func:`array`, :func:`vec`, :func:`matrix`,
:func:`obj`, :func:`any_of`, :func:`const`, and :data:`MODEL` (the declared error model of a
Rounded claim). Each takes ``doc=``: what the field means for an integrator (unit, squared or
not, given or computed), published as the field's JSON Schema ``description`` and rendered into
``docs/casefile.md``; :func:`described` adds one to a schema built elsewhere. Annotations
(``description``, ``title``, ``examples``, ``$comment``) never constrain: the validator and the
compiled fast path ignore them.
"""

from __future__ import annotations

import contextvars
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from collections.abc import Iterable

from .model import NumberError, _short, parse_number, read_number
from .schema_fast import ANNOTATIONS, NUMBER_TYPES, WORDS, compile_schema

__all__ = [
    "ANNOTATIONS",
    "ID",
    "MODEL",
    "SCHEMA_PATH",
    "DocumentReading",
    "FieldError",
    "any_of",
    "array",
    "boolean",
    "case_file_schema",
    "const",
    "described",
    "enum",
    "error_message",
    "f32",
    "f64",
    "field_path",
    "integer",
    "matrix",
    "model",
    "obj",
    "rational",
    "read_claim_number",
    "read_document",
    "string",
    "tuple_",
    "validate_document",
    "vec",
]

SCHEMA_PATH = Path(__file__).with_name("casefile.schema.json")
FORMAT = "claims/1"  # the case-file format this schema describes (oracles.casefile reads it)

_NUMBER_TYPES = NUMBER_TYPES


# Annotation keywords (ANNOTATIONS, from oracles.schema_fast) describe a field and never
# constrain it (JSON Schema 2020-12, "meta-data" vocabulary): validation and the compiled fast
# path skip them.


def described(schema: dict, doc: str | None) -> dict:
    """``schema`` with ``doc`` as its ``description`` (a copy; ``schema`` is unchanged, so a
    piece shared by several fields can mean something different in each)."""
    if doc is None:
        return schema
    if not doc.strip():
        raise ValueError("an empty description")
    return {**schema, "description": doc}


def _number(fmt: str, finite: bool, nonnegative: bool, positive: bool, doc: str | None) -> dict:
    spec: dict = {"format": fmt, "finite": finite}
    if nonnegative:
        spec["nonnegative"] = True
    if positive:
        spec["positive"] = True
    return described({"type": _NUMBER_TYPES, "claimNumber": spec}, doc)


def f64(*, finite: bool = True, nonnegative: bool = False, positive: bool = False, doc: str | None = None) -> dict:
    """A float64: hex text exactly one, a decimal read as the nearest (nonfinite words only
    with finite=False)."""
    return _number("f64", finite, nonnegative, positive, doc)


def f32(*, finite: bool = True, nonnegative: bool = False, positive: bool = False, doc: str | None = None) -> dict:
    """A float32: hex text exactly one, a decimal read as the nearest."""
    return _number("f32", finite, nonnegative, positive, doc)


def rational(*, nonnegative: bool = False, positive: bool = False, doc: str | None = None) -> dict:
    """Any finite exact rational (``p/q``, hex, decimal text or a JSON number)."""
    return _number("rational", True, nonnegative, positive, doc)


def integer(minimum: int | None = None, maximum: int | None = None, *, doc: str | None = None) -> dict:
    out: dict = {"type": "integer"}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return described(out, doc)


def boolean(*, doc: str | None = None) -> dict:
    return described({"type": "boolean"}, doc)


def string(*, doc: str | None = None) -> dict:
    return described({"type": "string"}, doc)


def enum(names: Iterable[str], *, doc: str | None = None) -> dict:
    """One of these spellings, exactly (enum members keep the spec's spelling)."""
    return described({"enum": list(names)}, doc)


def const(value: Any, *, doc: str | None = None) -> dict:
    return described({"const": value}, doc)


def array(item: dict, *, min_items: int | None = None, max_items: int | None = None,
          doc: str | None = None) -> dict:
    out: dict = {"type": "array", "items": item}
    if min_items is not None:
        out["minItems"] = min_items
    if max_items is not None:
        out["maxItems"] = max_items
    return described(out, doc)


def tuple_(*items: dict, doc: str | None = None) -> dict:
    """A fixed-length array whose i-th item has the i-th schema (a track key, say)."""
    return described({"type": "array", "prefixItems": list(items), "items": False,
                      "minItems": len(items), "maxItems": len(items)}, doc)


def vec(item: dict, n: int, *, doc: str | None = None) -> dict:
    """An array of exactly ``n`` items."""
    return array(item, min_items=n, max_items=n, doc=doc)


def matrix(item: dict, shape: Iterable[int | None], *, doc: str | None = None) -> dict:
    """Nested arrays of the given shape (``None`` for a free length of at least one)."""
    shape = list(shape)
    out = item
    for n in reversed(shape):
        out = array(out, min_items=1) if n is None else vec(out, n)
    return described(out, doc)


def obj(required: dict | None = None, optional: dict | None = None, *, doc: str | None = None) -> dict:
    """An object with exactly these fields (unknown fields are malformed, never ignored)."""
    required, optional = dict(required or {}), dict(optional or {})
    return described({"type": "object", "properties": {**required, **optional},
                      "required": sorted(required), "additionalProperties": False}, doc)


def any_of(*schemas: dict, doc: str | None = None) -> dict:
    return described({"anyOf": list(schemas)}, doc)


# The declared error model of a Rounded claim (oracles.errormodel): the unit roundoff the
# producer computed in (and, for a format other than binary64/32/16, its subnormal step eta),
# optionally its own rounding constant k in place of the project's; or an explicit bound.
MODEL: dict = {
    "type": "object",
    "description": (
        "Optional, Rounded rows only: the error model the producer declares (docs/casefile.md, Declared error "
        "models). Without it the claim is judged against the row's reference model at binary64. Give u (with "
        "eta for a format other than binary64/32/16, and optionally k), or bound; never both u and bound."),
    "properties": {
        "name": string(doc="Free text naming the model (ignored by the checker)."),
        "u": f64(positive=True, doc=(
            "Unit roundoff of the arithmetic the producer computed in: half the machine epsilon, 2^-53 "
            "(0x1p-53) for binary64, 2^-24 for binary32, 2^-11 for binary16; these three imply eta. Any other "
            "u (2^-52, binary64's epsilon rather than its unit roundoff, say) names another format and needs "
            "eta; without it the claim is malformed.")),
        "eta": f64(nonnegative=True, doc=(
            "Smallest positive subnormal of the producer's format (2^-1074 binary64, 2^-149 binary32, 2^-24 "
            "binary16): the absolute term of the row's formula. Only with u; required when u is not one of "
            "the three above.")),
        "k": f64(positive=True, doc=(
            "The producer's rounding constant in place of the row's own: the row's bound scales by k over its "
            "constant (each Rounded row's model line names it). Only with u.")),
        "bound": any_of(f64(nonnegative=True), array(f64(nonnegative=True), min_items=1), doc=(
            "An explicit error bound in the row's own units (the same units as the value it bounds: a "
            "squared distance's bound is in squared length): one number for every component, or one per "
            "model component in the order the row's model line lists them.")),
    },
    "additionalProperties": False,
    "not": {"required": ["u", "bound"]},
    "dependentRequired": {"eta": ["u"], "k": ["u"]},
}


def model(components: str, constant: float) -> dict:
    """:data:`MODEL` described for one row: the components an explicit ``bound`` lists, and the
    rounding constant that ``k`` replaces (the checker's own, passed in so the text cannot drift)."""
    return described(MODEL, f"Optional declared error model (docs/casefile.md, Declared error models). Components "
                            f"of an explicit bound: {components}. k replaces this row's rounding constant "
                            f"{constant:g}.")


# A claim's label: the producer's own name for it (a test's name), echoed in every report.
ID: dict = {"type": "string", "minLength": 1, "maxLength": 1000,
            "description": ("Optional: the producer's own label of the claim (a test's name), echoed in every "
                            "report of its verdict; never read by a checker.")}

# A claim's opt-in to the project's decisions (oracles.rules): rules of docs/decisions.md that go
# beyond the spec then bind it too; without it the spec's rules and the documented defaults judge it.
DECISIONS: dict = {"type": "boolean",
                   "description": ("Optional, default false: true opts the claim in to the project's decisions "
                                   "(docs/casefile.md, Opting in to the project's decisions): rules of "
                                   "docs/decisions.md that go beyond the spec then bind it too.")}

# True while a document is read under --exact-numbers: decimals must then be exact values.
_EXACT_NUMBERS = contextvars.ContextVar("exact_numbers", default=False)


def _is_decimal_form(x) -> bool:
    """A JSON number, or text that is neither hex, ``p/q`` nor a word: a decimal."""
    if not isinstance(x, str):
        return True
    return not x.lstrip("+-").startswith(("0x", "0X")) and "/" not in x and x not in WORDS


def read_claim_number(instance: Any, spec: dict):
    """What the keyword ``claimNumber`` (``spec``: format, finite, positive, nonnegative) makes of
    a claim number: the :class:`oracles.model.Reading` to report (a decimal read, or any value
    read by rounding; the field then holds its hex text), or None (read exactly, as written).
    Raises :class:`oracles.model.NumberError` with the field's message. The one statement of
    the rule, for the validator and for the compiled reader of decimals
    (``oracles.schema_fast``). Exact (hex and ``p/q``) or Rounded (a decimal, to nearest)."""
    fmt = spec.get("format", "f64")
    read = None
    if fmt == "rational":
        q = parse_number(instance)
        if isinstance(q, float):
            raise NumberError(f"{_short(instance)} is not finite")
    else:
        read = read_number(instance, fmt, finite=spec.get("finite", True), exact=_EXACT_NUMBERS.get())
        q = None if read.value != read.value else read.value  # NaN compares with nothing
    if q is not None:
        if spec.get("positive") and not q > 0:
            raise NumberError(f"{_short(instance)} must be positive")
        if spec.get("nonnegative") and not q >= 0:
            raise NumberError(f"{_short(instance)} must be nonnegative")
    # Every decimal becomes the hex text of the value read (exact or rounded), so that checkers,
    # witnesses and reports see one spelling whatever the producer wrote.
    return read if read is not None and (read.rounded or _is_decimal_form(instance)) else None


class FieldError(ValueError):
    """One schema violation: ``path`` names the field (``claims[3].inputs.u``); ``claim`` the
    claim's index and ``id`` its label (when the claim has a readable one)."""

    def __init__(self, path: str, message: str, claim: int | None = None, id: str | None = None):
        super().__init__(path, message)
        self.path, self.message, self.claim, self.id = path, message, claim, id

    def __str__(self) -> str:
        text = f"{self.path}: {self.message}" if self.path else self.message
        return text + (f" (claim id {json.dumps(self.id)})" if self.id is not None else "")


def field_path(parts: Iterable) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _claim_schema(row_id: str, contract) -> dict:
    from .rows import row

    props = {"id": ID, "row": const(row_id), "guarantee": const(row(row_id).guarantee.value),
             "inputs": contract.inputs, "value": contract.value, "decisions": DECISIONS}
    if contract.model is not None:
        props["model"] = contract.model
    return {"type": "object", "properties": props, "required": ["row", "guarantee", "value", "inputs"],
            "additionalProperties": False}


@cache
def case_file_schema() -> dict:
    """The whole case-file schema: the envelope, then one ``if row == R then ...`` per row with
    a contract (rows without one accept any inputs: their claims are judged Undecided)."""
    from .families import _contracts
    from .rows import ROWS

    contracts = _contracts()
    envelope = {
        "type": "object",
        "required": ["row", "guarantee", "value", "inputs"],
        "properties": {"id": ID, "row": enum([r.id for r in ROWS]),
                       "guarantee": enum(["Exact", "Rounded", "Certified", "Estimated", "Approximate"]),
                       "inputs": {"type": "object"}, "value": {}, "model": {}, "decisions": DECISIONS},
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


_DECIMAL_REPR = re.compile(r"Decimal\('([^']*)'\)")


def _json_text(x: Any, limit: int = 60) -> str:
    """``x`` as the JSON text of a case file (JSON numbers as written), cut at ``limit``."""
    from decimal import Decimal

    if isinstance(x, Decimal):
        t = str(x)
    elif isinstance(x, (list, dict)):
        parts = []
        if isinstance(x, list):
            for v in x:
                parts.append(_json_text(v, limit))
                if sum(map(len, parts)) > limit:
                    break
            t = "[" + ", ".join(parts) + ("]" if len(parts) == len(x) else ", ...]")
        else:
            for k, v in x.items():
                parts.append(f"{json.dumps(k)}: {_json_text(v, limit)}")
                if sum(map(len, parts)) > limit:
                    break
            t = "{" + ", ".join(parts) + ("}" if len(parts) == len(x) else ", ...}")
    else:
        try:
            t = json.dumps(x)
        except (TypeError, ValueError):
            t = repr(x)
    return t if len(t) <= limit else t[:limit - 3] + "..."


def error_message(err) -> str:
    """The message of one leaf error, the value shown as JSON text (never a Python repr)."""
    v, x = err.validator, err.instance
    if v == "type":
        types = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        return f"{_json_text(x)} is not of type {' or '.join(types)}"
    if v == "enum":
        return f"{_json_text(x)} is not one of {json.dumps(err.validator_value)}"
    if v == "const":
        return f"{_json_text(x)} is not {json.dumps(err.validator_value)}"
    if v == "minItems":
        return f"{_json_text(x)} has {len(x)} items; at least {err.validator_value} expected"
    if v == "maxItems":
        return f"{_json_text(x)} has {len(x)} items; at most {err.validator_value} expected"
    return _DECIMAL_REPR.sub(r"\1", err.message)


@dataclass(frozen=True)
class DocumentReading:
    """What :func:`read_document` found: ``errors`` (one :class:`FieldError` per field, ordered
    by path) and ``readings``: per decimal read into a float field, ``(path parts, hex text of
    the value read, rounded, short)``, ordered by path (object keys as text, array indices as
    numbers)."""

    errors: list
    readings: list


@cache
def _row_predicate(row_id: str):
    """The compiled predicate of one row's claim schema (None: no contract, or not compilable)."""
    from .families import contract_for

    c = contract_for(row_id)
    if c is None:
        return None
    return compile_schema(_claim_schema(row_id, c), {})


def _predicate_of(claim: Any):
    """The compiled predicate of the claim's row (``oracles.schema_fast.compile_schema``), or None:
    not an object, no known row, or a schema the compiler does not know."""
    if type(claim) is not dict:
        return None
    rid = claim.get("row")
    if type(rid) is not str:
        return None
    from .rows import _BY_ID

    return _row_predicate(rid) if rid in _BY_ID else None


def fast_valid(claim: Any) -> bool:
    """True when ``claim`` is certainly a valid claim of its row with every number in canonical
    hex (the validator would find no error and read nothing); False means "ask the validator"."""
    pred = _predicate_of(claim)
    return pred is not None and pred(claim)


def _slow_claims(claims: list) -> list:
    """The indices of the claims :func:`fast_valid` would not pass, found in one batch: the
    structure claim by claim, every number field's texts in bulk (``oracles.schema_fast``)."""
    from .schema_fast import Deferred

    d = Deferred()
    slow = []
    known: dict = {}  # row id -> its predicate (or None), found once per row
    for i, c in enumerate(claims):
        rid = c.get("row") if type(c) is dict else None
        if type(rid) is not str:
            slow.append(i)
            continue
        pred = known.get(rid, known)
        if pred is known:
            pred = known[rid] = _predicate_of(c)
        if pred is None or not pred.raw(c, i, d.slots):
            slow.append(i)
    bad = d.failed()
    return sorted(bad.union(slow)) if bad else slow


def _read_claims(claims: list, indices: list) -> tuple[list, list]:
    """Of the claims at ``indices`` (those :func:`_slow_claims` named), the ones that are valid
    once their numbers are read (decimals, integers, decimal text: the reading predicates of
    ``oracles.schema_fast``, the numbers read in one batch by the validator's rule) and their
    readings ``(path from the document's root, hex text, rounded, short)``; returns ``(still
    slow, readings)``: the validator judges the rest, and alone writes messages."""
    from .schema_fast import Deferred

    d = Deferred()
    tried = []
    for i in indices:
        pred = _predicate_of(claims[i])
        if pred is not None and pred.read(claims[i], i, d.slots, ()):
            tried.append(i)
    if not tried:
        return indices, []
    bad, read = d.read()
    ok = set(tried) - bad - d.failed()
    readings = [(("claims", c, *path), text, rounded, short) for c, path, text, rounded, short in read if c in ok]
    return [i for i in indices if i not in ok], readings


@cache
def _validators() -> tuple:
    """The validators :func:`validate_document` dispatches to, from one :func:`case_file_schema`:
    the whole schema with each claim held to the envelope alone, and per row with a contract a
    validator of that row's claim schema."""
    schema = case_file_schema()
    defs = schema["$defs"]
    envelope = defs["claim"]["allOf"][0]
    from .schema_validate import Validator

    rows = {rid: Validator({"$ref": f"#/$defs/{rid}", "$defs": defs}) for rid in defs if rid != "claim"}
    return Validator({**schema, "$defs": {**defs, "claim": envelope}}), rows


def _dispatched_errors(doc: Any, readings: list):
    """The errors of the whole schema on ``doc``, found faster: the envelope pass, then each
    claim against its own row's schema only, instead of asking every claim the ``if row == R``
    of every row (three quarters of the time of reading a large case file); and the readings of
    the claims whose numbers the compiled readers read (:func:`_read_claims`), appended to
    ``readings``. The published schema is unchanged; ``tests/oracles/test_casefile.py`` holds
    the two to the same errors, ``tests/oracles/test_schema_fast.py`` to the same readings."""
    claims = doc.get("claims") if isinstance(doc, dict) else None
    if not isinstance(claims, list):
        envelope, _ = _validators()
        yield from envelope.iter_errors(doc)
        return
    slow = _slow_claims(claims)
    if slow:
        slow, read = _read_claims(claims, slow)
        readings += read
    if not _top_fast()(doc):  # the validator only where it has something to say
        yield from _top_validator().iter_errors(doc)
    if not slow:
        return  # no claim needs the validator, nor any family's schema but its own row's
    envelope, rows = _validators()
    from .schema_validate import Validator

    claim_envelope = Validator({"$ref": "#/$defs/claim", "$defs": envelope.schema["$defs"]})
    for i in slow:
        c = claims[i]
        for err in claim_envelope.iter_errors(c):
            err.path.extendleft([i, "claims"])
            yield err
        rid = c.get("row") if isinstance(c, dict) else None
        if isinstance(rid, str) and rid in rows:
            for err in rows[rid].iter_errors(c):
                err.path.extendleft([i, "claims"])  # as if found from the document's root
                yield err


def _top_schema() -> dict:
    """The case file's own fields (not its claims): the format, the producer, a claims list."""
    return {"type": "object", "required": ["format", "claims"],
            "properties": {"format": const(FORMAT), "producer": string(), "claims": {"type": "array"}},
            "additionalProperties": False}


@cache
def _top_validator():
    from .schema_validate import Validator

    return Validator(_top_schema())


@cache
def _top_fast():
    return compile_schema(_top_schema(), {})


def read_document(doc: Any, *, exact_numbers: bool = False) -> DocumentReading:
    """Every schema violation of a parsed case file, one per field, ordered by path, and every
    decimal read into a float field (with ``exact_numbers`` none by rounding: an inexact decimal
    is then an error naming the two nearest values of its field's format)."""
    out, seen, readings = [], set(), []
    token = _EXACT_NUMBERS.set(exact_numbers)
    try:
        for err in _dispatched_errors(doc, readings):
            from .schema_validate import NumberRead, leaf_errors  # an error means the validator ran

            if isinstance(err, NumberRead):
                at = tuple(err.absolute_path)
                readings += [(at + below, text, rounded, short) for below, text, rounded, short in err.entries]
                continue
            for leaf in leaf_errors(err):
                parts = list(leaf.absolute_path)
                path = field_path(parts)
                message = error_message(leaf)
                key = (path, message)
                if key in seen:
                    continue
                seen.add(key)
                claim = parts[1] if len(parts) >= 2 and parts[0] == "claims" and isinstance(parts[1], int) else None
                out.append(FieldError(path, message, claim))
    finally:
        _EXACT_NUMBERS.reset(token)
    out.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
    readings.sort(key=_path_order)  # one order, whichever reader read a claim
    return DocumentReading(out, readings)


def _path_order(reading) -> tuple:
    """A reading's path as a sort key: paths of one document differ first where both name a key
    of the same object (text) or an index of the same array (integer), so they compare."""
    return reading[0]


def validate_document(doc: Any, *, exact_numbers: bool = False) -> list[FieldError]:
    """Every schema violation of a parsed case file, one per field, ordered by path."""
    return read_document(doc, exact_numbers=exact_numbers).errors
