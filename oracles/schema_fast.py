"""A compiled fast path for well-formed claims (``oracles.schema.fast_valid``).

Most claims of a case file are well formed and spell every number as float.hex writes it.
For those, a predicate compiled from the row's JSON Schema answers "valid, and nothing to read"
in plain Python, an order of magnitude faster than the validator; any other claim (an error, a
decimal to read, a keyword this compiler does not know) takes the validator's path, which alone
writes messages and readings. A predicate may only say True where the validator finds no error
and no reading (``tests/oracles/test_schema_fast.py`` holds it to that on every row).

Claims are read in batches (a :class:`Deferred`; one claim is a batch of one): the predicates
check each number's shape where they meet it and set its hex text aside, and the texts of every
number field are parsed and checked together, in bulk, at the end (canonical ``float.hex``
text, float32 range and exactness, sign: :meth:`Deferred.failed`, the one place these rules are
written). A claim any of whose numbers fails takes the validator's path, as a claim whose
predicate said False. A number set aside by a branch of ``anyOf`` that failed still counts
against its claim, which can only send a claim to the validator, never pass one.
"""

from __future__ import annotations


__all__ = ["ANNOTATIONS", "KINDS", "NUMBER_TYPES", "WORDS", "Deferred", "compile_schema"]

NUMBER_TYPES = ["string", "number"]  # the JSON types of a claim number
WORDS = {"nan", "inf", "+inf", "-inf"}  # the nonfinite words of the claim number grammar
# Keywords that annotate and never constrain: ignored by the compiled predicate.
ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})

# The kinds of number field, ``(format, positive, nonnegative)``: a compiled predicate appends
# each hex text it sets aside to its kind's slot of the batch (texts at 2k, claim indices at 2k+1).
KINDS = tuple((fmt, pos, nonneg) for fmt in ("f64", "f32") for pos in (False, True) for nonneg in (False, True))
_SLOT = {k: 2 * i for i, k in enumerate(KINDS)}


class Deferred:
    """The number texts compiled predicates set aside while a batch of claims is read: per number
    field's kind (:data:`KINDS`), in ``slots``, the texts and the index of the claim each came
    from (the predicate's ``c``)."""

    def __init__(self):
        self.slots: list = [[] for _ in range(2 * len(KINDS))]

    def failed(self) -> set:
        """The claims any of whose set-aside numbers is not what the validator would pass
        without reading: ``float.hex``'s own text of a float of the field's format and sign."""
        import numpy as np

        bad: set = set()
        for (fmt, positive, nonnegative), s in _SLOT.items():
            texts, owners = self.slots[s], self.slots[s + 1]
            if not texts:
                continue
            try:
                vals = list(map(float.fromhex, texts))
            except (ValueError, OverflowError):  # find the texts that do not parse, one by one
                vals = []
                for t, o in zip(texts, owners):
                    try:
                        vals.append(float.fromhex(t))
                    except (ValueError, OverflowError):
                        vals.append(0.0)
                        bad.add(o)
            hexes = list(map(float.hex, vals))
            if hexes != texts:
                bad.update(o for h, t, o in zip(hexes, texts, owners) if h != t)
            a = np.array(vals, dtype=np.float64)
            wrong = np.zeros(a.shape, dtype=bool)
            if fmt == "f32":
                with np.errstate(over="ignore"):
                    wrong |= a.astype(np.float32).astype(np.float64) != a  # outside float32, or rounds
            if positive:
                wrong |= ~(a > 0)
            if nonnegative:
                wrong |= ~(a >= 0)
            if wrong.any():
                bad.update(owners[i] for i in np.nonzero(wrong)[0])
        return bad


def _word_ok(word: str, finite: bool, positive: bool, nonnegative: bool) -> bool:
    """Whether a nonfinite word passes a number field without reading (the validator's rule)."""
    return (not finite and (word == "nan" or not (positive or nonnegative) or word in ("inf", "+inf"))
            and word != "+inf")


# What each JSON Schema type name asks of a value, as an expression of the value's variable.
_TYPE_TESTS = {"object": "type({v}) is dict", "array": "type({v}) is list", "integer": "type({v}) is int",
               "boolean": "type({v}) is bool", "string": "type({v}) is str", "null": "{v} is None"}


def _exact_required(sub) -> tuple | None:
    """The keys of a subschema that is only ``{"required": [...]}`` (decidable both ways)."""
    if isinstance(sub, dict) and set(sub) == {"required"}:
        return tuple(sub["required"])
    return None


class _Unknown(Exception):
    """A keyword, or a form of one, that the compiler does not know: no predicate."""


class _Compiler:
    """Compiles a schema into Python source: one function ``(x, c, t)`` (the value, its claim's
    index, the batch's slots) that returns False at the first keyword the value fails and
    True at its end, with a function of its own per ``anyOf`` branch. Generated source instead of
    nested closures: a claim is read in straight-line code, several times faster."""

    def __init__(self):
        self.functions: list[str] = []
        self.names: dict = {}  # constants the source refers to
        self.counter = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def const(self, value) -> str:
        name = self.fresh("K")
        self.names[name] = value
        return name

    def function(self, schema, defs: dict, depth: int) -> str:
        name = self.fresh("f")
        body = self.emit(schema, defs, "x", 1, depth)
        self.functions.append("\n".join([f"def {name}(x, c, t):", *body, "    return True"]))
        return name

    def emit(self, schema, defs: dict, v: str, level: int, depth: int) -> list[str]:
        """Statements (indented ``level`` steps) that return False unless ``v`` passes ``schema``."""
        if depth > 60:
            raise _Unknown("nested too deeply")
        pad = "    " * level
        if schema is True or (isinstance(schema, dict) and not set(schema) - ANNOTATIONS):
            return []
        if not isinstance(schema, dict):
            raise _Unknown(repr(schema))
        defs = {**defs, **schema.get("$defs", {})}
        keys = set(schema) - {"$defs"} - ANNOTATIONS  # annotations describe, never constrain
        if keys == {"type", "claimNumber"} and schema["type"] == NUMBER_TYPES:
            return self.number(schema["claimNumber"], v, pad)
        out: list[str] = []
        if "$ref" in keys:
            ref = schema["$ref"]
            target = defs.get(ref[len("#/$defs/"):]) if ref.startswith("#/$defs/") else None
            if target is None:
                raise _Unknown(ref)
            out += self.emit(target, defs, v, level, depth + 1)
            keys.discard("$ref")
        if "type" in keys:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if any(t not in _TYPE_TESTS for t in types):
                raise _Unknown(str(types))
            out.append(f"{pad}if not ({' or '.join(_TYPE_TESTS[t].format(v=v) for t in types)}): return False")
            keys.discard("type")
        if "enum" in keys or "const" in keys:
            if "enum" in schema and "const" in schema:
                raise _Unknown("enum and const")
            values = list(schema.get("enum", ())) + ([schema["const"]] if "const" in schema else [])
            if values and all(type(x) is str for x in values):
                out.append(f"{pad}if type({v}) is not str or {v} not in {self.const(frozenset(values))}: return False")
            else:  # JSON equality: a value of the same type and equal (True is not 1)
                k = self.const(tuple(values))
                out.append(f"{pad}if not any(type({v}) is type(e) and {v} == e for e in {k}): return False")
            keys -= {"enum", "const"}
        if keys & {"minimum", "maximum"}:
            lo, hi = schema.get("minimum"), schema.get("maximum")
            tests = ([f"{v} < {self.const(lo)}"] if lo is not None else []) \
                + ([f"{v} > {self.const(hi)}"] if hi is not None else [])
            out.append(f"{pad}if type({v}) is int and ({' or '.join(tests)}): return False")
            keys -= {"minimum", "maximum"}
        if keys & {"minLength", "maxLength"}:
            lo, hi = schema.get("minLength", 0), schema.get("maxLength")
            tests = [f"len({v}) < {self.const(lo)}"] + ([f"len({v}) > {self.const(hi)}"] if hi is not None else [])
            out.append(f"{pad}if type({v}) is str and ({' or '.join(tests)}): return False")
            keys -= {"minLength", "maxLength"}
        if keys & {"items", "prefixItems", "minItems", "maxItems"}:
            out += self.array(schema, defs, v, level, depth)
            keys -= {"items", "prefixItems", "minItems", "maxItems"}
        if keys & {"properties", "required", "additionalProperties", "dependentRequired"}:
            out += self.object(schema, defs, v, level, depth)
            keys -= {"properties", "required", "additionalProperties", "dependentRequired"}
        if "anyOf" in keys:
            tests = []
            for b in schema["anyOf"]:
                req = _exact_required(b)
                if req is not None:  # inline: ``required`` holds of every value but an object
                    tests.append(f"(type({v}) is not dict or ({self.all_in(req, v)}))")
                else:
                    tests.append(f"{self.function(b, defs, depth + 1)}({v}, c, t)")
            out.append(f"{pad}if not ({' or '.join(tests) or 'False'}): return False")
            keys.discard("anyOf")
        if "not" in keys:
            req = _exact_required(schema["not"])
            if req is None:
                raise _Unknown("not")
            out.append(f"{pad}if type({v}) is dict and {self.all_in(req, v)}: return False")
            keys.discard("not")
        if keys:
            raise _Unknown(str(sorted(keys)))
        return out

    @staticmethod
    def all_in(keys, v: str) -> str:
        """An expression: every one of ``keys`` is a key of ``v`` (True when there are none)."""
        return " and ".join(f"{k!r} in {v}" for k in keys) or "True"

    def number(self, spec: dict, v: str, pad: str) -> list[str]:
        fmt, finite = spec.get("format", "f64"), spec.get("finite", True)
        positive, nonnegative = spec.get("positive", False), spec.get("nonnegative", False)
        if fmt not in ("f64", "f32"):
            raise _Unknown(fmt)
        slot = _SLOT[(fmt, positive, nonnegative)]
        words = self.const(frozenset(w for w in WORDS if _word_ok(w, finite, positive, nonnegative)))
        # A hex text is set aside, with its claim, for the batch's bulk check (Deferred.failed).
        return [f"{pad}if type({v}) is not str: return False",
                f"{pad}if {v}.startswith(HEX): t[{slot}].append({v}); t[{slot + 1}].append(c)",
                f"{pad}elif {v} not in {words}: return False"]

    def array(self, schema, defs, v, level, depth) -> list[str]:
        pad, inner = "    " * level, "    " * (level + 1)
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")
        prefix = schema.get("prefixItems", ())
        items = schema.get("items", True)
        n = self.fresh("n")
        out = [f"{pad}if type({v}) is list:", f"{inner}{n} = len({v})"]
        if lo:
            out.append(f"{inner}if {n} < {lo}: return False")
        if hi is not None:
            out.append(f"{inner}if {n} > {hi}: return False")
        if items is False:
            out.append(f"{inner}if {n} > {len(prefix)}: return False")
        for i, q in enumerate(prefix):
            w = self.fresh("w")
            body = self.emit(q, defs, w, level + 2, depth + 1)
            if body:
                out += [f"{inner}if {n} > {i}:", f"{inner}    {w} = {v}[{i}]", *body]
        if items is not False:
            w = self.fresh("w")
            body = self.emit(items, defs, w, level + 2, depth + 1)
            if body:
                source = f"{v}[{len(prefix)}:]" if prefix else v
                out += [f"{inner}for {w} in {source}:", *body]
        return out

    def object(self, schema, defs, v, level, depth) -> list[str]:
        pad, inner = "    " * level, "    " * (level + 1)
        extra = schema.get("additionalProperties", True)
        if extra not in (True, False):
            raise _Unknown("additionalProperties")
        props = schema.get("properties", {})
        out = [f"{pad}if type({v}) is dict:"]
        for r in schema.get("required", ()):
            out.append(f"{inner}if {r!r} not in {v}: return False")
        for k, deps in schema.get("dependentRequired", {}).items():
            out.append(f"{inner}if {k!r} in {v} and not ({self.all_in(deps, v)}): return False")
        if extra is False:
            k = self.fresh("k")
            out.append(f"{inner}for {k} in {v}:")
            out.append(f"{inner}    if {k} not in {self.const(frozenset(props))}: return False")
        for key, sub in props.items():
            w = self.fresh("w")
            body = self.emit(sub, defs, w, level + 2, depth + 1)
            if body:
                out += [f"{inner}if {key!r} in {v}:", f"{inner}    {w} = {v}[{key!r}]", *body]
        return out if len(out) > 1 else []


def compile_schema(schema, defs: dict):
    """A predicate ``valid(instance) -> bool`` (True only when certainly valid with nothing to
    read), or None when the schema uses a keyword this compiler does not know. A schema is the
    conjunction of its keywords, each applied as JSON Schema applies it; each call is a batch of
    one. ``valid.raw(instance, claim, slots)`` is the compiled function itself, for batch readers:
    it sets the instance's numbers aside in a :class:`Deferred`'s ``slots`` under ``claim``."""
    comp = _Compiler()
    try:
        top = comp.function(schema, defs, 0)
    except _Unknown:
        return None
    namespace = {"HEX": ("0x", "-0x"), **comp.names}
    exec(compile("\n\n".join(comp.functions), "<compiled schema>", "exec"), namespace)
    pred = namespace[top]

    def valid(x) -> bool:
        d = Deferred()
        return pred(x, 0, d.slots) and not d.failed()

    valid.raw = pred
    return valid
