"""The per-row field reference of ``docs/casefile.md``, rendered from the rows' contracts.

``python -m oracles schema --docs docs/casefile.md`` rewrites the generated section between
``<!-- BEGIN ROW FIELDS -->`` and ``<!-- END ROW FIELDS -->``; a test fails when it is stale, so
the document always says what the schema enforces.
"""

from __future__ import annotations

import json
from pathlib import Path

from .rows import ROWS

__all__ = ["type_text", "field_rows", "render_row_fields", "update_document", "BEGIN", "END"]

BEGIN, END = "<!-- BEGIN ROW FIELDS -->", "<!-- END ROW FIELDS -->"

_FORMATS = {"f64": "float64", "f32": "float32", "rational": "exact rational"}


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
        return " or ".join(type_text(x) for x in s["anyOf"])
    t = s.get("type")
    if t == "integer":
        lo, hi = s.get("minimum"), s.get("maximum")
        rng = f" in [{lo}, {hi}]" if lo is not None and hi is not None else f" >= {lo}" if lo is not None else \
            f" <= {hi}" if hi is not None else ""
        return "integer" + rng
    if t == "boolean":
        return "boolean"
    if t == "string":
        return "string"
    if t == "array" and "prefixItems" in s:
        return "array [" + ", ".join(type_text(x) for x in s["prefixItems"]) + "]"
    if t == "array":
        lo, hi = s.get("minItems"), s.get("maxItems")
        n = f"[{lo}]" if lo is not None and lo == hi else f"[{lo or 0}..{hi}]" if hi is not None else \
            f"[{lo}+]" if lo else "[]"
        return f"array{n} of {type_text(s.get('items', {}))}"
    if t == "object":
        return "object (fields below)" if s.get("properties") else "object"
    if t == "null":
        return "null"
    return "any"


def field_rows(schema: dict, prefix: str) -> list[tuple[str, str, bool]]:
    """``(path, type, required)`` for every field of an object schema, nested objects (also
    inside arrays and alternatives) flattened with dotted paths."""
    out = []
    if schema.get("type") == "object" or "properties" in schema:
        req = set(schema.get("required", ()))
        for name, sub in sorted(schema.get("properties", {}).items()):
            path = f"{prefix}.{name}" if prefix else name
            out.append((path, type_text(sub), name in req))
            out += _nested(sub, path)
    return out


def _nested(s: dict, path: str) -> list:
    if s.get("type") == "object" and s.get("properties"):
        return field_rows(s, path)
    if s.get("type") == "array" and "prefixItems" in s:
        return [r for i, x in enumerate(s["prefixItems"]) for r in _nested(x, f"{path}[{i}]")]
    if s.get("type") == "array" and isinstance(s.get("items"), dict):
        return _nested(s["items"], path + "[]")
    if "anyOf" in s:
        return [r for i, alt in enumerate(s["anyOf"]) for r in _nested(alt, f"{path}<{i + 1}>")]
    return []


def render_row_fields() -> str:
    """Markdown: per row with a contract, what is checked and a table of its fields."""
    from .families import contract_for

    lines = [BEGIN, "", "*Generated from the rows' contracts by `python -m oracles schema --docs "
             "docs/casefile.md`; do not edit by hand.*", ""]
    for r in ROWS:
        c = contract_for(r.id)
        lines += [f"### `{r.id}` ({r.guarantee.value})", ""]
        if c is None:
            lines += ["No checker yet: claims of this row are accepted with any `inputs` and judged "
                      "Undecided (exit 3 under `--strict`).", ""]
            continue
        lines += [f"Checks: {c.checks}", ""]
        if not c.refutable:
            lines += ["*No oracle can refute this property: claims are never counted as verified.*", ""]
        lines += ["| field | type | required |", "|---|---|---|"]
        for part, schema in (("inputs", c.inputs), ("value", c.value)):
            rows = field_rows(schema, part)
            if rows:
                lines += [f"| `{p}` | {t} | {'yes' if q else 'no'} |" for p, t, q in rows]
            else:
                lines.append(f"| `{part}` | {type_text(schema)} | yes |")
        lines.append("| `model` | " + ("declared error model (see *Declared error models*) | no |"
                                       if c.model is not None else "not allowed | - |"))
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def update_document(path) -> bool:
    """Rewrite the generated section of ``path``; True when the file changed."""
    p = Path(path)
    text = p.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + render_row_fields() + text[end:]
    if new != text:
        p.write_text(new)
        return True
    return False
