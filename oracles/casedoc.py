"""The generated reference parts of ``docs/casefile.md`` an integrator reads: every row's fields
with unit and meaning, a claim the checker verifies and one it refutes (ROW FIELDS); the
``requests/1`` and ``answers/1`` fields (REQUEST FORMATS); each family's operations, and a worked
request per family with our answer and ``check``'s verdicts (REQUEST FAMILIES).

Every generated section sits between ``<!-- BEGIN name -->`` and ``<!-- END name -->``. The
field tables come from the schemas (each field's ``description``, written where the schema is
built: the rows' contracts, ``oracles.schema``, ``oracles.request``); the operations from the
families' ``requests.py`` docstrings; the examples are real: taken from the built-in corpus
(seed 1, the smallest claims and requests that show each form), judged when the document is
written and again by ``tests/oracles/test_casefile_docs.py``, which also fails when a section is
stale. A document's examples are kept when it is rewritten as long as they are still judged as
shown; missing or broken ones are chosen anew from the corpus (``refresh`` chooses them all anew).

    python -m oracles.casedoc [--refresh]          # rewrite every generated document
    python -m oracles schema --docs FILE           # rewrite the generated sections of FILE

Long on purpose: the three generated parts share the reading, judging, number formatting and the
keep-while-still-judged logic of their examples; split, each half would import the other's
privates.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any
from collections.abc import Callable

from .rows import ROWS

__all__ = [
    "DOCS",
    "SEED",
    "FieldRow",
    "apply_changes",
    "changes_between",
    "check_request_example",
    "current_request",
    "decimal_form",
    "field_rows",
    "judge_claims",
    "main",
    "missing_descriptions",
    "parse_request_examples",
    "parse_row_examples",
    "render_section",
    "type_text",
    "update_document",
]

SEED = 1  # the corpus seed every example is drawn from
ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "casefile.md",)
_COMMAND = "python -m oracles.casedoc"

_FORMATS = {"f64": "float64", "f32": "float32", "rational": "exact rational"}


def _begin(name: str) -> str:
    return f"<!-- BEGIN {name} -->"


def _end(name: str) -> str:
    return f"<!-- END {name} -->"


# --- Field tables --------------------------------------------------------------------------------

def type_text(s) -> str:
    """A short human description of one schema (``float32``, ``array[4] of float64``, ...)."""
    if not isinstance(s, dict):
        return "any" if s else "nothing"
    if "claimNumber" in s:
        spec = s["claimNumber"]
        out = _FORMATS[spec.get("format", "f64")]
        if spec.get("positive"):
            out = "positive " + out
        elif spec.get("nonnegative"):
            out = "nonnegative " + out
        if spec.get("finite") is False:
            out += " (nan/inf allowed)"
        return out
    if "const" in s:
        return f"`{json.dumps(s['const'])}`"
    if "enum" in s:
        return "one of " + ", ".join(f"`{v}`" for v in s["enum"])
    if "anyOf" in s:
        if _alternatives_listed(s):
            return "one of the forms below"
        return " or ".join(type_text(x) for x in s["anyOf"])
    t = s.get("type")
    if isinstance(t, list):
        return " or ".join(t)
    if t == "integer":
        lo, hi = s.get("minimum"), s.get("maximum")
        rng = f" in [{lo}, {hi}]" if lo is not None and hi is not None else f" >= {lo}" if lo is not None else \
            f" <= {hi}" if hi is not None else ""
        return "integer" + rng
    if t in ("boolean", "string", "null"):
        return t
    if t == "array" and "prefixItems" in s:
        return "array [" + ", ".join(type_text(x) for x in s["prefixItems"]) + "]"
    if t == "array":
        lo, hi = s.get("minItems"), s.get("maxItems")
        n = f"[{lo}]" if lo is not None and lo == hi else f"[{lo or 0}..{hi}]" if hi is not None else \
            f"[{lo}+]" if lo else "[]"
        return f"array{n} of {type_text(s.get('items', {}))}"
    if t == "object":
        return "object (fields below)" if s.get("properties") else "object"
    return "any"


def _is_object(s) -> bool:
    return isinstance(s, dict) and (s.get("type") == "object" or "properties" in s) and bool(s.get("properties"))


def _alternatives_listed(s: dict) -> bool:
    """An ``anyOf`` whose forms get rows of their own: some form is an object with fields."""
    return any(_is_object(x) for x in s["anyOf"])


@dataclass(frozen=True)
class FieldRow:
    """One line of a field table: the field's path (``inputs.request.u``, ``value<2>.status``
    for the second form of ``value``), its type in words, whether it is required, its meaning."""

    path: str
    type: str
    required: bool
    doc: str


def field_rows(schema, prefix: str, required: bool = True) -> list[FieldRow]:
    """Every field of ``schema`` at ``prefix`` and below: an object's fields (in declaration
    order), the forms of an ``anyOf`` of objects (``prefix<i>``), objects nested in arrays
    (``prefix[]``) and fixed positions (``prefix[i]``)."""
    out = []
    doc = schema.get("description", "") if isinstance(schema, dict) else ""
    if _is_object(schema):
        if doc and prefix:
            out.append(FieldRow(prefix, type_text(schema), required, doc))
        req = set(schema.get("required", ()))
        for name, sub in schema["properties"].items():
            out += field_rows(sub, f"{prefix}.{name}" if prefix else name, name in req)
        return out
    if isinstance(schema, dict) and "anyOf" in schema and _alternatives_listed(schema):
        out.append(FieldRow(prefix, type_text(schema), required, doc))
        for i, alt in enumerate(schema["anyOf"]):
            path = f"{prefix}<{i + 1}>"
            if _is_object(alt):
                out.append(FieldRow(path, "object", True, alt.get("description", "")))
                req = set(alt.get("required", ()))
                for name, sub in alt["properties"].items():
                    out += field_rows(sub, f"{path}.{name}", name in req)
            else:
                out += field_rows(alt, path)
        return out
    out.append(FieldRow(prefix, type_text(schema), required, doc))
    if isinstance(schema, dict) and schema.get("type") == "array":
        items = schema.get("items")
        if isinstance(items, dict) and (_is_object(items) or ("anyOf" in items and _alternatives_listed(items))):
            out += [r for r in field_rows(items, prefix + "[]") if r.path != prefix + "[]" or r.doc]
    return out


def _row_fields(contract) -> list[FieldRow]:
    rows = field_rows(contract.inputs, "inputs") + field_rows(contract.value, "value")
    if contract.model is not None:
        rows.append(FieldRow("model", "declared error model", False, contract.model.get("description", "")))
    return rows


def _model_fields() -> list[FieldRow]:
    from .schema import MODEL

    return field_rows({k: v for k, v in MODEL.items() if k != "description"}, "model")


def missing_descriptions(contract) -> list[str]:
    """The paths of a row's fields that have no description (every field must say what it is)."""
    return [r.path for r in _row_fields(contract) if not r.doc.strip()]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _field_table(rows: list[FieldRow]) -> list[str]:
    lines = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r.path}` | {_cell(r.type)} | {'yes' if r.required else 'no'} | {_cell(r.doc)} |")
    return lines


# --- Numbers as the examples show them -----------------------------------------------------------

_HEX = re.compile(r"^-?0x[0-9a-f]+(\.[0-9a-f]*)?p[+-][0-9]+$")


def _short_decimal(text: str) -> str | None:
    """The decimal that is exactly the hex float ``text``, when it is short; None otherwise
    (a negative zero keeps its hex spelling: ``-0`` reads as zero in some readers)."""
    v = float.fromhex(text)
    if v == 0:
        return None if text.startswith("-") else "0"
    r = repr(v)
    if Fraction(r) != Fraction(v) or len(r) > 14:
        return None
    return r[:-2] if r.endswith(".0") else r


def decimal_form(x: Any) -> Any:
    """``x`` (claim JSON) with every hex float that has a short exact decimal written as that
    decimal (``"0x1.8p+1"`` -> ``"3"``): the same value in every field format, easier to read."""
    if isinstance(x, dict):
        return {k: decimal_form(v) for k, v in x.items()}
    if isinstance(x, list):
        return [decimal_form(v) for v in x]
    if isinstance(x, str) and _HEX.match(x):
        return _short_decimal(x) or x
    return x


def _compact(x: Any, indent: int = 0, width: int = 110) -> str:
    """JSON with every value that fits on a line written on one line, the rest expanded."""
    flat = json.dumps(x)
    if len(flat) + indent <= width or not isinstance(x, (dict, list)) or not x:
        return flat
    pad = " " * (indent + 1)
    if isinstance(x, dict) and all(not isinstance(v, (dict, list)) for v in x.values()):
        return "{\n" + _packed([f"{json.dumps(k)}: {json.dumps(v)}" for k, v in x.items()], pad, width) + \
            "\n" + " " * indent + "}"
    if isinstance(x, dict):
        items = []
        for k, v in x.items():
            head = f"{pad}{json.dumps(k)}: "
            flat_v = json.dumps(v)
            items.append(head + (flat_v if len(head) + len(flat_v) <= width else _compact(v, indent + 1, width)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if all(not isinstance(v, dict) and len(json.dumps(v)) <= _PACKED_ITEM for v in x):
        # scalars and short arrays (points, keys): as many to a line as fit
        return "[\n" + _packed([json.dumps(v) for v in x], pad, width) + "\n" + " " * indent + "]"
    items = [pad + _compact(v, indent + 1, width) for v in x]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


_PACKED_ITEM = 48  # an array's items this short (as JSON) share lines


def _packed(items: list, pad: str, width: int) -> str:
    """``items`` joined by commas, as many to a line as fit in ``width``."""
    lines, line = [], []
    for t in items:
        if line and len(pad) + sum(len(w) + 2 for w in line) + len(t) > width:
            lines.append(pad + ", ".join(line))
            line = []
        line.append(t)
    lines.append(pad + ", ".join(line))
    return ",\n".join(lines)


# --- Changes between two claims ------------------------------------------------------------------

_TOKEN = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def _parse_path(path: str) -> list:
    out, pos = [], 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None:
            raise ValueError(f"bad path {path!r}")
        out.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    return out


def _path_text(parts: list) -> str:
    from .schema import field_path

    return field_path(parts)


def changes_between(a: Any, b: Any, parts: list | None = None) -> dict:
    """``{path: new value}`` turning ``a`` into ``b``: objects with the same keys and arrays of
    the same length are compared item by item, anything else is replaced whole."""
    from .contract import canonical_output

    parts = parts or []
    if canonical_output(a) == canonical_output(b):
        return {}
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        out = {}
        for k in a:
            out.update(changes_between(a[k], b[k], parts + [k]))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and parts:
        out = {}
        for i, (x, y) in enumerate(zip(a, b)):
            out.update(changes_between(x, y, parts + [i]))
        return out
    if not parts:
        raise ValueError("the two claims differ in shape at the top")
    return {_path_text(parts): b}


def apply_changes(claim: dict, changes: dict) -> dict:
    """``claim`` with every ``{path: value}`` of ``changes`` set (a copy)."""
    out = copy.deepcopy(claim)
    for path, value in changes.items():
        parts = _parse_path(path)
        x = out
        for p in parts[:-1]:
            x = x[p]
        if (isinstance(parts[-1], str) and not isinstance(x, dict)) or (isinstance(parts[-1], int) and not (
                isinstance(x, list) and parts[-1] < len(x))):
            raise ValueError(f"no field {path} to change")
        x[parts[-1]] = copy.deepcopy(value)
    return out


# --- Judging -------------------------------------------------------------------------------------

def judge_claims(claims: list) -> list:
    """The verdicts of claim objects as a case file holds them (``oracles.judge``): a malformed
    claim gets None."""
    from . import MalformedClaims, judge

    try:
        return judge(copy.deepcopy(claims))
    except MalformedClaims as e:
        return e.verdicts


def _read(claim: dict):
    """A claim object read as a case file's claim is (decimals as exact hex): an ``oracles.Claim``."""
    from .casefile import read_claims
    from .schema import FORMAT

    read, errors, _ = read_claims({"format": FORMAT, "claims": [copy.deepcopy(claim)]})
    if errors or not read:
        raise ValueError("; ".join(str(e) for e in errors) or "unreadable claim")
    return read[0][1]


_RATIONAL = re.compile(r"^-?[0-9]+/[0-9]+$")


def _short_witness(x: Any, limit: int = 360) -> str:
    """A witness as compact JSON, numbers of more than 24 characters shown approximately."""
    def shorten(v):
        if isinstance(v, dict):
            return {k: shorten(w) for k, w in v.items()}
        if isinstance(v, list):
            return [shorten(w) for w in v]
        if isinstance(v, str) and len(v) > 24:
            if _RATIONAL.match(v):
                return f"~{float(Fraction(v)):.6g}"
            if _HEX.match(v):
                return decimal_form(v) if len(decimal_form(v)) <= 24 else f"~{float.fromhex(v):.6g}"
        if isinstance(v, str) and _HEX.match(v):
            return decimal_form(v)
        return v

    text = json.dumps(shorten(x), default=lambda o: o.item() if hasattr(o, "item") else str(o))
    return text if len(text) <= limit else text[:limit - 5] + " ...}"


def _verdict_text(v) -> str:
    """How an example's verdict is shown: its kind, the measure, the note, a Violated witness."""
    if v is None:
        return "Malformed"
    out = f"**{v.kind.value}**"
    if v.measure is not None and v.measured is not None:
        out += f" ({v.measure} = {v.measured:.3g})"
    if v.note:
        out += f": {v.note}"
    if v.kind.value == "Violated" and v.witness is not None:
        out += f". Witness: `{_short_witness(v.witness)}`"
    return out


# --- Row examples --------------------------------------------------------------------------------

@dataclass
class RowExample:
    """One example of a row: a whole claim (``kind`` "claim") or changes to the row's previous
    claim (``kind`` "changes"), the verdict it must get, and its caption."""

    kind: str
    verdict: str
    body: dict
    caption: str

    def claim(self, previous: dict | None) -> dict:
        if self.kind == "claim":
            return self.body
        if previous is None:
            raise ValueError("changes with no claim before them")
        return apply_changes(previous, self.body)


def _claims_of(examples: list) -> list:
    out, prev = [], None
    for e in examples:
        c = e.claim(prev)
        if e.kind == "claim":
            prev = c
        out.append(c)
    return out


_ROW_HEADING = re.compile(r"^### `([a-z_]+\.[a-z_]+)` \(", re.M)
_EXAMPLE = re.compile(r"([^\n]*)\n\n```json (claim|changes) (Verified|Violated|Undecided)\n(.*?)\n```", re.S)


def parse_row_examples(text: str) -> dict:
    """``{row id: [RowExample]}`` of a rows document."""
    out: dict = {}
    heads = list(_ROW_HEADING.finditer(text))
    for k, m in enumerate(heads):
        body = text[m.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)]
        out[m.group(1)] = [RowExample(e.group(2), e.group(3), json.loads(e.group(4)), e.group(1))
                           for e in _EXAMPLE.finditer(body)]
    return out


# Rows whose inputs include bounds a producer may not have: what one with only an estimate
# submits, shown as a judged variant of the row's first example.
_ESTIMATE_ONLY = {
    "distance.estimates": (
        "A producer with only an estimate (no Certified interval of its own) submits `lower` 0 and `upper` the "
        "largest finite float64: the checker then shows only that the estimate lies inside, and reports its "
        "relative error; it cannot refute an inaccurate estimate. A cheap interval that is still Certified "
        "(the chord length below, the control-polygon length above, rounded outward) is judged in full:",
        {"inputs.lower": "0", "inputs.upper": "0x1.fffffffffffffp+1023"}),
}


def _number_of(x) -> float:
    return float(Fraction(x)) if not (isinstance(x, str) and _HEX.match(x)) else float.fromhex(x)


# Rows whose smallest claims show too little: a claim of the first form is preferred when it
# shows what the row's fields mean (squared distances of several neighbours; a hit inside the
# segment).
_PREFER: dict = {
    "point_search.nearest": lambda c: "indices" in c["value"] and len(c["value"]["indices"]) >= 2
    and any(_number_of(d) > 1 for d in c["value"]["distances"]),
    "triangle.first_hit": lambda c: c["value"].get("outcome") == "hit" and 0 < _number_of(c["value"]["t"]) < 1,
}


def _shape(contract, claim: dict) -> int:
    """Which form of ``value`` a claim takes (the index of the first alternative it fits; 0
    where the value has one form)."""
    schema = contract.value
    if not isinstance(schema, dict) or "anyOf" not in schema:
        return 0
    for i, alt in enumerate(schema["anyOf"]):
        if _fits(alt, claim["value"]):
            return i
    return len(schema["anyOf"])


def _fits(schema, x) -> bool:
    from .schema_validate import NumberRead, Validator

    return not any(not isinstance(e, NumberRead) for e in Validator(schema).iter_errors(x))


_MAX_FORMS = 3  # success examples per row: one per form of its value, at most
_MAX_CHARS = 6000  # a candidate claim longer than this (as shown) is not an example
_TRIES = 12  # candidates judged per form, the smallest first


def _corpus_claims(fam) -> dict:
    """``{row: [(shown size, source, claim JSON)]}`` of a family's corpus at seed :data:`SEED`."""
    n = min(fam.default_cases, 600)
    out: dict = {}
    for k, case in enumerate(fam.generate(SEED, n)):
        source = f"corpus request `{case.id}`" if hasattr(case, "id") else f"corpus case {k}"
        for c in fam.claims(case):
            shown = decimal_form(c.to_json())
            out.setdefault(c.row, []).append((len(json.dumps(shown)), source, shown))
    for v in out.values():
        v.sort(key=lambda t: t[0])
    return out


def _select_row_examples(rid: str, contract, candidates: list) -> list:
    """Fresh examples of a row: per form of its claims (inputs, value), the smallest corpus claim
    the checker verifies; then the row's planted false claim of the first (Violated); then the
    estimate-only variant where the row has one."""
    by_shape: dict = {}
    prefer = _PREFER.get(rid, lambda c: False)
    for size, source, claim in sorted(candidates, key=lambda t: (not prefer(t[2]), t[0])):
        if size <= _MAX_CHARS or not by_shape:
            by_shape.setdefault(_shape(contract, claim), []).append((source, claim))
    chosen = []
    for shape in sorted(by_shape):
        # Of the smallest candidates, one whose measure is not zero where there is one (an exactly
        # computed value teaches less than a rounded one), else the smallest.
        good = []
        for source, claim in by_shape[shape][:_TRIES]:
            v = judge_claims([claim])[0]
            if v is None or v.kind.value != "Verified":
                continue
            if not chosen:
                bad = judge_claims([_planted(contract, claim)])[0]
                if bad is None or bad.kind.value != "Violated":
                    continue
            good.append((not v.measured, source, claim))
            if v.measured:
                break
        if good:
            _, source, claim = min(good, key=lambda g: g[0])
            chosen.append((source, claim))
        if len(chosen) >= _MAX_FORMS:
            break
    if not chosen:
        raise RuntimeError(f"{rid}: no corpus claim is Verified with a Violated plant")
    return _examples_from(rid, contract, chosen)


def _planted(contract, claim: dict) -> dict:
    """The row's planted false claim of ``claim`` (its contract's ``plant``), as shown."""
    c = _read(claim)
    return decimal_form(contract.plant(c).to_json())


def _examples_from(rid: str, contract, chosen: list) -> list:
    out = []
    for k, (source, claim) in enumerate(chosen):
        form = _form_caption(contract, claim)
        out.append(RowExample("claim", "Verified", claim, f"A claim the checker verifies ({source}{form}):"))
        if k == 0:
            out.append(_plant_example(contract, claim))
            if rid in _ESTIMATE_ONLY:
                caption, changes = _ESTIMATE_ONLY[rid]
                out.append(RowExample("changes", "Verified", changes, caption))
    return out


def _plant_example(contract, claim: dict) -> RowExample:
    base = _read(claim).to_json()
    changes = changes_between(base, contract.plant(_read(claim)).to_json())
    return RowExample("changes", "Violated", decimal_form(changes),
                      "The row's planted false claim (its contract's `plant`): the claim above with these "
                      "fields changed, which the checker refutes:")


def _form_caption(contract, claim: dict) -> str:
    """``; `value<2>`: a miss`` where the row's value has several forms."""
    vi = _shape(contract, claim)
    alts = contract.value.get("anyOf") if isinstance(contract.value, dict) else None
    if not alts or vi >= len(alts):
        return ""
    doc = alts[vi].get("description", "") if isinstance(alts[vi], dict) else ""
    return f"; `value<{vi + 1}>`" + (f": {doc.rstrip('.')}" if doc else "")


def _examples_hold(rid: str, contract, examples: list) -> bool:
    """The document's examples of a row are still good: the first is a claim, every claim is
    judged as shown, and the first changes are the row's current planted fault."""
    if not examples or examples[0].kind != "claim":
        return False
    try:
        claims = _claims_of(examples)
        verdicts = judge_claims(claims)
        if any(v is None or v.kind.value != e.verdict for v, e in zip(verdicts, examples)):
            return False
        plant = [e for e in examples if e.kind == "changes" and e.verdict == "Violated"]
        return bool(plant) and plant[0].body == _plant_example(contract, examples[0].body).body
    except (ValueError, KeyError, IndexError, TypeError):
        return False


def _render_rows(examples: dict, verdicts: dict) -> list[str]:
    from .families import contract_for

    lines = ["*Generated by `" + _COMMAND + "` from the rows' contracts (`oracles/families/<family>/contract.py`) "
             "and the built-in corpus (seed 1); every example is judged by "
             "`tests/oracles/test_casefile_docs.py`. Do not edit by hand.*", ""]
    lines += ["| row | class | spec |", "|---|---|---|"]
    for r in ROWS:
        lines.append(f"| [`{r.id}`](#{_anchor(r.id, r.guarantee.value)}) | {r.guarantee.value} | {_cell(r.spec_row)} |")
    lines += ["", "The fields of `model`, the declared error model a Rounded row's claim may carry (each row's `model` "
              "line names what its components are and the constant `k` replaces):", ""]
    lines += _field_table(_model_fields())
    lines.append("")
    for r in ROWS:
        c = contract_for(r.id)
        lines += [f"### `{r.id}` ({r.guarantee.value})", "", f"Spec: {r.spec_row}.", ""]
        if c is None:
            lines += ["No checker yet: claims of this row are accepted with any `inputs` and judged Undecided "
                      "(exit 3 under `--strict`).", ""]
            continue
        lines += [f"Checks: {c.checks}", ""]
        if c.oracles:
            lines += ["Oracles: " + "; ".join(c.oracles) + ".", ""]
        if not c.refutable:
            lines += ["*No oracle can refute this property: claims are never counted as verified.*", ""]
        lines += _field_table(_row_fields(c))
        if c.model is None:
            lines.append("| `model` | not allowed | - | This row takes no declared error model. |")
        lines.append("")
        shown = examples.get(r.id) or []
        for e, v in zip(shown, verdicts.get(r.id) or [None] * len(shown)):
            lines += [e.caption, "", f"```json {e.kind} {e.verdict}", _compact(e.body), "```", "",
                      "Verdict: " + _verdict_text(v) + ".", ""]
        if not shown:
            lines += [f"*No examples: run `{_COMMAND}`.*", ""]
    return lines


def _anchor(rid: str, cls: str) -> str:
    """GitHub's anchor of the heading ``### `rid` (cls)``."""
    return re.sub(r"[^a-z0-9_ -]", "", f"{rid} ({cls})".lower()).replace(" ", "-")


def _rows_section(text: str, *, update: bool, refresh: bool) -> str:
    from .families import contract_for, family_of_row

    examples = {} if refresh else parse_row_examples(text)
    verdicts: dict = {}
    corpora: dict = {}
    for r in ROWS:
        c = contract_for(r.id)
        if c is None:
            examples.pop(r.id, None)
            continue
        ex = examples.get(r.id)
        if update and not (ex and _examples_hold(r.id, c, ex)):
            fam = family_of_row(r.id)
            if fam.name not in corpora:
                corpora[fam.name] = _corpus_claims(fam)
            ex = examples[r.id] = _select_row_examples(r.id, c, corpora[fam.name].get(r.id, []))
        if ex:
            try:
                verdicts[r.id] = judge_claims(_claims_of(ex))
            except (ValueError, KeyError, IndexError, TypeError):
                verdicts[r.id] = [None] * len(ex)
    return "\n".join(_render_rows(examples, verdicts))


# --- Requests and answers ------------------------------------------------------------------------

def _format_tables() -> list[str]:
    from .request import answers_schema, requests_schema

    lines = ["*Generated by `" + _COMMAND + "` from `oracles/requests.schema.json` and "
             "`oracles/answers.schema.json` (`oracles.request`); do not edit by hand.*", ""]
    for title, schema in (("`requests/1`", requests_schema()), ("`answers/1`", answers_schema())):
        lines += [f"#### {title}", "", _cell(schema.get("description", "")), ""]
        lines += _field_table(field_rows(schema, ""))
        lines.append("")
    return lines


def _ops_text(fam) -> str:
    """The "Step inputs" part of a family's ``requests.py`` docstring, as Markdown."""
    import importlib

    module = importlib.import_module(f"oracles.families.{fam.name}.requests")
    doc = module.__doc__ or ""
    at = doc.find("Step inputs")
    if at < 0:
        raise ValueError(f"oracles/families/{fam.name}/requests.py documents no step inputs")
    text = doc[at:].strip()
    text = re.sub(r" \(``docs/[a-z-]+\.md``, requests/1\)", "", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    text = re.sub(r":(?:func|mod|class|data):`([^`]+)`", r"`\1`", text)
    return text


_OP = re.compile(r"^\* `([^`]+)`:", re.M)


def documented_ops(fam) -> list[str]:
    """The ops a family's docstring documents (its "Step inputs" bullets)."""
    return _OP.findall(_ops_text(fam))


@dataclass
class RequestExample:
    """A family's worked example: one request (trimmed), our answer, a wrong answer's changes."""

    family: str
    requests: dict
    answers: dict
    wrong: dict = field(default_factory=dict)


_FENCE = re.compile(r"```json (requests|answers|answer-changes)\n(.*?)\n```", re.S)
_FAMILY_HEADING = re.compile(r"^### `([a-z_]+)`$", re.M)


def parse_request_examples(text: str) -> dict:
    """``{family: RequestExample}`` of a requests document."""
    out = {}
    heads = list(_FAMILY_HEADING.finditer(text))
    for k, m in enumerate(heads):
        body = text[m.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)]
        blocks = {b.group(1): json.loads(b.group(2)) for b in _FENCE.finditer(body)}
        if "requests" in blocks and "answers" in blocks:
            out[m.group(1)] = RequestExample(m.group(1), blocks["requests"], blocks["answers"],
                                             blocks.get("answer-changes", {}))
    return out


def check_request_example(requests: dict, answers: dict) -> tuple[int, list]:
    """``python -m oracles check`` of an answer file against a request file: its exit status
    and its verdict lines (one JSON object per verdict or malformed claim)."""
    from .__main__ import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        r, a, v = Path(tmp, "requests.json"), Path(tmp, "answers.json"), Path(tmp, "verdicts.jsonl")
        r.write_text(json.dumps(requests))
        a.write_text(json.dumps(answers))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cli(["check", str(a), "--requests", str(r), "--out", str(Path(tmp, "out")),
                        "--verdicts", str(v)])
        lines = [json.loads(x) for x in v.read_text().splitlines()]
    return code, lines


_STEPS_SHOWN = 4  # a worked request keeps at most this many steps
_MAX_EXAMPLE_CHARS = 9000  # a request and its answer (as shown) beyond this are chosen only when nothing fits


def _trimmed(req, k: int):
    """``req`` cut to its first ``k`` steps (and the rules among them)."""
    from .request import Request

    return Request(req.id, req.family, req.name, req.steps[:k], tuple(r for r in req.rules if r.after < k))


def _select_request_example(fam) -> RequestExample:
    """The corpus request shown for a family: trimmed to a few steps, it has a step that must
    succeed and one that must fail (and a rule where one fits), with the smallest request and
    answer among those."""
    from . import __version__
    from .request import REQUESTS_FORMAT

    best = None
    for req in fam.requests(SEED, min(fam.default_cases, 600)):
        k = min(len(req.steps), _STEPS_SHOWN)
        t = _trimmed(req, k)
        kinds = {s.expect.kind for s in t.steps}
        score = ("success" not in kinds, not kinds & {"failure", "ambiguous"}, not t.rules)
        if best is not None and score > best[0] and best[1] <= _MAX_EXAMPLE_CHARS:
            continue
        ans = fam.answer(t)
        doc_r = {"format": REQUESTS_FORMAT, "generated_by": f"ludus-geometry-reference {__version__}",
                 "seed": SEED, "corpus": {fam.name: fam.default_cases}, "requests": [t.to_json()]}
        doc_a = {"format": "answers/1", "producer": f"ludus-geometry-reference {__version__} (fast path)",
                 "families": [fam.name], "answers": [ans.to_json()]}
        doc_r, doc_a = decimal_form(doc_r), decimal_form(doc_a)
        size = len(json.dumps(doc_r)) + len(json.dumps(doc_a))
        if best is None or _better((size, score), (best[1], best[0])):
            best = (score, size, doc_r, doc_a, t)
    if best is None:
        raise RuntimeError(f"{fam.name}: no requests")
    _, _, doc_r, doc_a, t = best
    return RequestExample(fam.name, doc_r, doc_a, _wrong_answer(t))


def _better(a: tuple, b: tuple) -> bool:
    """Whether worked example ``a`` = (size, score) beats ``b``: one within the size limit beats
    one beyond it; within it the better score, then the smaller; beyond it the smaller."""
    (sa, ka), (sb, kb) = a, b
    fits_a, fits_b = sa <= _MAX_EXAMPLE_CHARS, sb <= _MAX_EXAMPLE_CHARS
    if fits_a != fits_b:
        return fits_a
    return (ka, sa) < (kb, sb) if fits_a else sa < sb


def _wrong_answer(req) -> dict:
    """The changes that make the example's answer wrong by the spec's text (an answer that does
    not opt in to our decisions is judged by it): the first step the spec says must fail answered
    Success (else the first it says must succeed refused with InvalidArgument)."""
    demands = [s.expect.by_spec or s.expect for s in req.steps]
    for k, d in enumerate(demands):
        if d.must_fail:
            return {f"answers[0].steps[{k}].status": "Success"}
    for k, d in enumerate(demands):
        if d.kind == "success":
            return {f"answers[0].steps[{k}].status": "InvalidArgument"}
    return {}


def _verdict_table(lines: list, only_failures: bool = False) -> list[str]:
    out = ["| # | row | verdict | note |", "|---:|---|---|---|"]
    for rec in lines:
        if only_failures and rec.get("verdict") == "Verified":
            continue
        note = rec.get("note") or rec.get("message") or ""
        out.append(f"| {rec.get('claim', '')} | `{rec.get('row', rec.get('path', ''))}` | {rec['verdict']} | "
                   f"{_cell(note)} |")
    return out


def _render_families(examples: dict, results: dict) -> list[str]:
    from .families import families

    lines = ["*Generated by `" + _COMMAND + "` from each family's `requests.py` docstring and the built-in "
             "corpus (seed 1); every example is judged by `tests/oracles/test_casefile_docs.py`. Do not edit "
             "by hand.*", ""]
    for fam in families():
        if not fam.answers_requests:
            continue
        lines += [f"### `{fam.name}`", "", _ops_text(fam), ""]
        ex = examples.get(fam.name)
        if ex is None:
            lines += [f"*No worked example: run `{_COMMAND}`.*", ""]
            continue
        req = ex.requests["requests"][0]
        code, verdicts = results[fam.name]["answer"]
        lines += [f"Worked example: corpus request `{req['id']}` ({_cell(req['name'])}), its first "
                  f"{len(req['steps'])} steps. The request file:", "",
                  "```json requests", _compact(ex.requests), "```", "",
                  "Our fast path's answer (`python -m oracles answer`):", "",
                  "```json answers", _compact(ex.answers), "```", "",
                  f"`python -m oracles check answers.json --requests requests.json` exits {code}, with these "
                  f"verdicts (`--verdicts`):", ""]
        lines += _verdict_table(verdicts)
        lines.append("")
        if ex.wrong:
            wcode, wverdicts = results[fam.name]["wrong"]
            lines += ["A wrong answer: the same answer with this change,", "",
                      "```json answer-changes", _compact(ex.wrong), "```", "",
                      f"exits {wcode}; the verdicts that are not Verified:", ""]
            lines += _verdict_table(wverdicts, only_failures=True)
            lines.append("")
    return lines


def _judge_request_example(ex: RequestExample) -> dict:
    out = {"answer": check_request_example(ex.requests, ex.answers)}
    if ex.wrong:
        out["wrong"] = check_request_example(ex.requests, apply_changes(ex.answers, ex.wrong))
    return out


def _request_example_holds(ex: RequestExample) -> bool:
    try:
        code, lines = check_request_example(ex.requests, ex.answers)
    except (ValueError, KeyError, OSError):
        return False
    return code == 0 and all(x["verdict"] == "Verified" for x in lines)


def current_request(fam, shown: dict) -> dict | None:
    """The request of the built-in corpus (seed :data:`SEED`, the family's ``default_cases``)
    that bears the id of a worked example's request file ``shown``, trimmed to as many steps and
    in the example's decimal form; None when the corpus has no such id."""
    from .request import REQUESTS_FORMAT

    req = shown["requests"][0]
    try:
        k = int(req["id"].rsplit("/", 1)[1])
    except (KeyError, IndexError, ValueError):
        return None
    if not 0 <= k < fam.default_cases:
        return None
    from .family import corpus_range

    n = fam.default_cases
    cur = corpus_range(fam, SEED, n, k, k + 1, lambda: fam.requests(SEED, n))[0]
    if cur.id != req["id"]:
        return None
    doc = dict(shown, format=REQUESTS_FORMAT, seed=SEED, corpus={fam.name: fam.default_cases},
               requests=[_trimmed(cur, len(req["steps"])).to_json()])
    return decimal_form(doc)


def _request_example_current(fam, ex: RequestExample) -> bool:
    """Whether a worked example is still the corpus's own: its request file names today's corpus
    size, or the request of that id is unchanged in today's corpus (then the size is brought up
    to date in place); otherwise it is chosen anew."""
    cur = current_request(fam, ex.requests)
    if cur is None or cur["requests"] != ex.requests["requests"]:
        return False
    ex.requests["corpus"] = cur["corpus"]
    return True


def _families_section(text: str, *, update: bool, refresh: bool) -> str:
    from .families import families

    examples = {} if refresh else parse_request_examples(text)
    results = {}
    for fam in families():
        if not fam.answers_requests:
            continue
        ex = examples.get(fam.name)
        if update and not (ex and _request_example_current(fam, ex) and _request_example_holds(ex)):
            ex = examples[fam.name] = _select_request_example(fam)
        if ex is not None:
            results[fam.name] = _judge_request_example(ex)
    return "\n".join(_render_families(examples, results))


# --- Documents -----------------------------------------------------------------------------------

_SECTIONS: dict[str, Callable] = {
    "ROW FIELDS": _rows_section,
    "REQUEST FORMATS": lambda text, update, refresh: "\n".join(_format_tables()),
    "REQUEST FAMILIES": _families_section,
}


def _sections_in(text: str) -> list[str]:
    return [name for name in _SECTIONS if _begin(name) in text]


def render_section(name: str, text: str, *, update: bool = False, refresh: bool = False) -> str:
    """The generated section ``name`` for a document whose current text is ``text``, markers
    included. Without ``update`` the document's own examples are rendered as they are, with
    their verdicts judged now (a missing example shows as missing); with it, missing or broken
    examples are chosen anew from the corpus (all of them with ``refresh``)."""
    body = _SECTIONS[name](_between(text, name), update=update, refresh=refresh)
    return "\n".join([_begin(name), "", body.rstrip("\n"), "", _end(name)])


def _between(text: str, name: str) -> str:
    b, e = _begin(name), _end(name)
    return text[text.index(b) + len(b):text.index(e)] if b in text and e in text else ""


def update_document(path, *, refresh: bool = False) -> bool:
    """Rewrite every generated section of ``path``; True when the file changed."""
    p = Path(path)
    text = p.read_text()
    names = _sections_in(text)
    if not names:
        raise ValueError(f"{path} has no generated section ({', '.join(_begin(n) for n in _SECTIONS)})")
    new = text
    for name in names:
        start, end = new.index(_begin(name)), new.index(_end(name)) + len(_end(name))
        new = new[:start] + render_section(name, new, update=True, refresh=refresh) + new[end:]
    if new != text:
        p.write_text(new)
        return True
    return False


def main(argv=None) -> int:
    """``python -m oracles.casedoc [--refresh] [FILE ...]``: rewrite the generated documents."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m oracles.casedoc", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="documents to rewrite (default: docs/casefile.md)")
    p.add_argument("--refresh", action="store_true", help="choose every example anew from the corpus")
    args = p.parse_args(argv)
    for f in args.files or [d.relative_to(Path.cwd()) if d.is_relative_to(Path.cwd()) else d for d in DOCS]:
        print(f"{f}: {'updated' if update_document(f, refresh=args.refresh) else 'already current'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
