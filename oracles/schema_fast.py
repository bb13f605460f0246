"""A compiled fast path for well-formed claims (``oracles.schema.fast_valid``).

Most claims of a case file are well formed and spell every number as float.hex writes it.
For those, a predicate compiled from the row's JSON Schema answers "valid, and nothing to read"
in plain Python, an order of magnitude faster than the validator. A claim it refuses is asked
again by the row's reading predicate, compiled from the same schema, which also takes numbers to
read (decimals as JSON numbers or text, integers) and sets each aside with its path; they are
read in one batch by the validator's own rule (``oracles.schema.read_claim_number``). Any other
claim (an error, a keyword this compiler does not know) takes the validator's path, which alone
writes messages. A predicate may only say True where the validator finds no error and, for the
reading predicate, the same readings (``tests/oracles/test_schema_fast.py`` holds both to that).

Claims are read in batches (a :class:`Deferred`; one claim is a batch of one): the predicates
check each number's shape where they meet it and set its hex text aside, and the texts of every
number field are parsed and checked together, in bulk, at the end (canonical ``float.hex``
text, read by ``oracles.hexfloat``; float32 range and exactness, sign: :meth:`Deferred.failed`,
the one place these rules are written for hex text). A claim any of whose numbers fails takes
the validator's path, as a claim whose predicate said False. A hex text set aside by a branch
of ``anyOf`` that failed still counts against its claim, which can only send a claim to the
validator, never pass one; a number to read set aside by a failed branch is dropped (it would
be read into the document).
"""

from __future__ import annotations


__all__ = ["ANNOTATIONS", "KINDS", "NUMBER_TYPES", "READ", "WORDS", "Deferred", "compile_schema"]

NUMBER_TYPES = ["string", "number"]  # the JSON types of a claim number
WORDS = {"nan", "inf", "+inf", "-inf"}  # the nonfinite words of the claim number grammar
# Keywords that annotate and never constrain: ignored by the compiled predicate.
ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})

# The kinds of number field, ``(format, positive, nonnegative)``: a compiled predicate appends
# each hex text it sets aside to its kind's slot of the batch (texts at 2k, claim indices at 2k+1).
KINDS = tuple((fmt, pos, nonneg) for fmt in ("f64", "f32") for pos in (False, True) for nonneg in (False, True))
_SLOT = {k: 2 * i for i, k in enumerate(KINDS)}
# The slot where a reading predicate sets aside each number to read: ``(claim, path, value, spec)``.
READ = 2 * len(KINDS)


class Deferred:
    """The number texts compiled predicates set aside while a batch of claims is read: per number
    field's kind (:data:`KINDS`), in ``slots``, the texts and the index of the claim each came
    from (the predicate's ``c``)."""

    def __init__(self):
        self.slots: list = [[] for _ in range(2 * len(KINDS) + 1)]

    def read(self) -> tuple[set, list]:
        """The numbers a reading predicate set aside, read as the validator reads them
        (``oracles.schema.read_claim_number``, the one statement of the rule): the claims any
        of whose numbers the validator would refuse, and per number to report, ``(claim, path
        below the claim, hex text of the value read, rounded, short)``."""
        from .model import NumberError, _hex
        from .schema import read_claim_number

        bad: set = set()
        out: list = []
        for c, path, x, spec in self.slots[READ]:
            try:
                r = read_claim_number(x, spec)
            except NumberError:
                bad.add(c)
                continue
            if r is not None:
                out.append((c, path, _hex(r.value, "f64"), r.rounded, r.short))
        return bad, out

    def failed(self) -> set:
        """The claims any of whose set-aside numbers is not what the validator would pass
        without reading: ``float.hex``'s own text of a float of the field's format and sign."""
        import numpy as np

        from .hexfloat import canonical_values

        bad: set = set()
        for (fmt, positive, nonnegative), s in _SLOT.items():
            texts, owners = self.slots[s], self.slots[s + 1]
            if not texts:
                continue
            a, canonical = canonical_values(texts)  # float.hex's own text, read in bulk
            if not canonical.all():
                bad.update(owners[i] for i in np.flatnonzero(~canonical).tolist())
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
    nested closures: a claim is read in straight-line code, several times faster.

    ``reading=True`` compiles the reading predicate instead: functions ``(x, c, t, p)`` (``p``
    the value's path below the claim) that set aside every number that is not hex text or an
    admitted word (a decimal, an integer, any other text) with its path and its field's
    ``claimNumber`` spec in ``t[READ]``, where a plain predicate says False, and drop what a
    failed ``anyOf`` branch set aside there."""

    def __init__(self, reading: bool = False):
        self.functions: list[str] = []
        self.names: dict = {}  # constants the source refers to
        self.counter = 0
        self.reading = reading

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def const(self, value) -> str:
        name = self.fresh("K")
        self.names[name] = value
        return name

    def function(self, schema, defs: dict, depth: int) -> str:
        name = self.fresh("f")
        body = self.emit(schema, defs, "x", 1, depth, ())
        args = "x, c, t, p" if self.reading else "x, c, t"
        self.functions.append("\n".join([f"def {name}({args}):", *body, "    return True"]))
        return name

    def emit(self, schema, defs: dict, v: str, level: int, depth: int, at: tuple) -> list[str]:
        """Statements (indented ``level`` steps) that return False unless ``v`` passes ``schema``;
        ``at``: the expressions of ``v``'s path below the function's ``p`` (reading predicates)."""
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
            return self.number(schema["claimNumber"], v, pad, at)
        out: list[str] = []
        typed = None  # the one JSON type ``v`` is known to have once the type test has passed
        if "$ref" in keys:
            ref = schema["$ref"]
            target = defs.get(ref[len("#/$defs/"):]) if ref.startswith("#/$defs/") else None
            if target is None:
                raise _Unknown(ref)
            out += self.emit(target, defs, v, level, depth + 1, at)
            keys.discard("$ref")
        if "type" in keys:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if any(t not in _TYPE_TESTS for t in types):
                raise _Unknown(str(types))
            out.append(f"{pad}if not ({' or '.join(_TYPE_TESTS[t].format(v=v) for t in types)}): return False")
            typed = types[0] if len(types) == 1 else None
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
            out += self.array(schema, defs, v, level, depth, at, typed == "array")
            keys -= {"items", "prefixItems", "minItems", "maxItems"}
        if keys & {"properties", "required", "additionalProperties", "dependentRequired"}:
            out += self.object(schema, defs, v, level, depth, at, typed == "object")
            keys -= {"properties", "required", "additionalProperties", "dependentRequired"}
        if "anyOf" in keys:
            tests = []
            for b in schema["anyOf"]:
                req = _exact_required(b)
                if req is not None:  # inline: ``required`` holds of every value but an object
                    tests.append(f"(type({v}) is not dict or ({self.all_in(req, v)}))")
                elif self.reading:  # what a failed branch set aside to read is dropped
                    tests.append(f"BRANCH({self.function(b, defs, depth + 1)}, {v}, c, t, {self.path(at)})")
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

    @staticmethod
    def path(at: tuple) -> str:
        """The expression of a path: the function's ``p`` and the steps below it."""
        return f"p + ({''.join(a + ', ' for a in at)})" if at else "p"

    def number(self, spec: dict, v: str, pad: str, at: tuple) -> list[str]:
        fmt, finite = spec.get("format", "f64"), spec.get("finite", True)
        positive, nonnegative = spec.get("positive", False), spec.get("nonnegative", False)
        if fmt not in ("f64", "f32"):
            raise _Unknown(fmt)
        slot = _SLOT[(fmt, positive, nonnegative)]
        words = self.const(frozenset(w for w in WORDS if _word_ok(w, finite, positive, nonnegative)))
        # A hex text is set aside, with its claim, for the batch's bulk check (Deferred.failed).
        hex_aside = f"{pad}if {v}.startswith(HEX): t[{slot}].append({v}); t[{slot + 1}].append(c)"
        if not self.reading:
            return [f"{pad}if type({v}) is not str: return False", hex_aside,
                    f"{pad}elif {v} not in {words}: return False"]
        read_aside = f"t[{READ}].append((c, {self.path(at)}, {v}, {self.const(spec)}))"
        return [f"{pad}if type({v}) is str:", "    " + hex_aside,
                f"{pad}    elif {v} not in {words}: {read_aside}",
                f"{pad}elif type({v}) in READABLE: {read_aside}",
                f"{pad}else: return False"]

    def array(self, schema, defs, v, level, depth, at, typed: bool = False) -> list[str]:
        """The array keywords' statements; ``typed``: ``v`` is known to be a list (no guard)."""
        if typed:
            level -= 1  # the statements sit where the guard's body would
        pad, inner = "    " * level, "    " * (level + 1)
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")
        prefix = schema.get("prefixItems", ())
        items = schema.get("items", True)
        n = self.fresh("n")
        out = ([] if typed else [f"{pad}if type({v}) is list:"]) + [f"{inner}{n} = len({v})"]
        if lo and lo == hi:
            out.append(f"{inner}if {n} != {lo}: return False")
        else:
            if lo:
                out.append(f"{inner}if {n} < {lo}: return False")
            if hi is not None:
                out.append(f"{inner}if {n} > {hi}: return False")
        if items is False:
            out.append(f"{inner}if {n} > {len(prefix)}: return False")
        for i, q in enumerate(prefix):
            w = self.fresh("w")
            body = self.emit(q, defs, w, level + 2, depth + 1, (*at, str(i)))
            if body:
                out += [f"{inner}if {n} > {i}:", f"{inner}    {w} = {v}[{i}]", *body]
        if items is not False:
            w, j = self.fresh("w"), self.fresh("j")
            body = self.emit(items, defs, w, level + 2, depth + 1, (*at, j))
            if body:
                source = f"{v}[{len(prefix)}:]" if prefix else v
                loop = f"{j}, {w} in enumerate({source}, {len(prefix)})" if self.reading else f"{w} in {source}"
                out += [f"{inner}for {loop}:", *body]
        return out

    def object(self, schema, defs, v, level, depth, at, typed: bool = False) -> list[str]:
        """The object keywords' statements; ``typed``: ``v`` is known to be a dict (no guard)."""
        if typed:
            level -= 1
        pad, inner = "    " * level, "    " * (level + 1)
        extra = schema.get("additionalProperties", True)
        if extra not in (True, False):
            raise _Unknown("additionalProperties")
        props = schema.get("properties", {})
        guard = [] if typed else [f"{pad}if type({v}) is dict:"]
        out = list(guard)
        required = set(schema.get("required", ()))
        for r in schema.get("required", ()):
            out.append(f"{inner}if {r!r} not in {v}: return False")
        for k, deps in schema.get("dependentRequired", {}).items():
            out.append(f"{inner}if {k!r} in {v} and not ({self.all_in(deps, v)}): return False")
        if extra is False:  # every key a named property: one set comparison in C
            out.append(f"{inner}if not ({v}.keys() <= {self.const(frozenset(props))}): return False")
        for key, sub in props.items():
            w = self.fresh("w")
            present = key in required  # a required key is there: its test above returned otherwise
            body = self.emit(sub, defs, w, level + (1 if present else 2), depth + 1, (*at, repr(key)))
            if body:
                take = [f"{inner}{w} = {v}[{key!r}]"] if present else [f"{inner}if {key!r} in {v}:",
                                                                       f"{inner}    {w} = {v}[{key!r}]"]
                out += take + body
        return out if len(out) > len(guard) else []


def _branch(fn, x, c, t, p) -> bool:
    """A reading predicate's ``anyOf`` branch: what it set aside to read is dropped if it fails
    (the validator keeps the readings of the branch that holds, and only those)."""
    n = len(t[READ])
    if fn(x, c, t, p):
        return True
    del t[READ][n:]
    return False


def _compiled(comp: _Compiler, schema, defs: dict):
    top = comp.function(schema, defs, 0)
    from decimal import Decimal

    namespace = {"HEX": ("0x", "-0x"), "READABLE": (Decimal, int, float), "BRANCH": _branch, **comp.names}
    exec(compile("\n\n".join(comp.functions), "<compiled schema>", "exec"), namespace)
    return namespace[top]


def compile_schema(schema, defs: dict):
    """A predicate ``valid(instance) -> bool`` (True only when certainly valid with nothing to
    read), or None when the schema uses a keyword this compiler does not know. A schema is the
    conjunction of its keywords, each applied as JSON Schema applies it; each call is a batch of
    one. ``valid.raw(instance, claim, slots)`` is the compiled function itself, for batch readers:
    it sets the instance's numbers aside in a :class:`Deferred`'s ``slots`` under ``claim``.
    ``valid.read(instance, claim, slots, ())`` is the reading predicate (:class:`_Compiler`),
    for instances ``raw`` refused: it also sets aside the numbers to read
    (:meth:`Deferred.read`). It is compiled on its first call: a file of hex numbers never needs
    it, and compiling every row's would add about 60 ms to reading a file of all rows."""
    try:
        pred = _compiled(_Compiler(), schema, defs)
    except _Unknown:
        return None
    reader = None

    def read(x, c, t, p) -> bool:
        nonlocal reader
        if reader is None:  # the same keywords as ``pred``, which compiled: this compiles too
            reader = _compiled(_Compiler(reading=True), schema, defs)
        return reader(x, c, t, p)

    def valid(x) -> bool:
        d = Deferred()
        return pred(x, 0, d.slots) and not d.failed()

    valid.raw = pred
    valid.read = read
    return valid
