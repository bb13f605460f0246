"""A compiled fast path for well-formed claims (``oracles.schema.fast_valid``).

Most claims of a case file are well formed and spell every number as float.hex writes it.
For those, a predicate compiled from the row's JSON Schema answers "valid, and nothing to read"
in plain Python, an order of magnitude faster than the validator; any other claim (an error, a
decimal to read, a keyword this compiler does not know) takes the validator's path, which alone
writes messages and readings. A predicate may only say True where the validator finds no error
and no reading (``tests/oracles/test_schema_fast.py`` holds it to that on every row).

Claims are read in batches (:func:`deferred`; one claim is a batch of one): the predicates check
each number's shape where they meet it and set its hex text aside, and the texts of every
number field are parsed and checked together, in bulk, at the end (canonical ``float.hex``
text, float32 range and exactness, sign: :meth:`Deferred.failed`, the one place these rules are
written). A claim any of whose numbers fails takes the validator's path, as a claim whose
predicate said False. A number set aside by a branch of ``anyOf`` that failed still counts
against its claim, which can only send a claim to the validator, never pass one.
"""

from __future__ import annotations


__all__ = ["ANNOTATIONS", "NUMBER_TYPES", "WORDS", "Deferred", "compile_schema", "deferred"]

NUMBER_TYPES = ["string", "number"]  # the JSON types of a claim number
WORDS = {"nan", "inf", "+inf", "-inf"}  # the nonfinite words of the claim number grammar
# Keywords that annotate and never constrain: ignored by the compiled predicate.
ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})

class Deferred:
    """The number texts the predicates set aside while a batch of claims is read: per number
    field's kind ``(format, positive, nonnegative)``, the texts and the index of the claim each
    came from (``claim``, set by the caller before each claim)."""

    def __init__(self):
        self.claim = 0
        self.texts: dict = {}

    def add(self, kind: tuple, text: str) -> None:
        texts, owners = self.texts.setdefault(kind, ([], []))
        texts.append(text)
        owners.append(self.claim)

    def failed(self) -> set:
        """The claims any of whose set-aside numbers is not what the validator would pass
        without reading: ``float.hex``'s own text of a float of the field's format and sign."""
        import numpy as np

        bad: set = set()
        for (fmt, positive, nonnegative), (texts, owners) in self.texts.items():
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


_DEFERRED: Deferred | None = None  # the batch being read (deferred()); predicates run only inside one


class deferred:
    """``with deferred() as d:`` the compiled predicates set number texts aside in ``d``
    (set ``d.claim`` before each claim); ``d.failed()`` then names the claims whose numbers fail.
    A compiled predicate is only ever called inside it."""

    def __enter__(self) -> Deferred:
        global _DEFERRED
        if _DEFERRED is not None:
            raise RuntimeError("deferred() does not nest")
        _DEFERRED = Deferred()
        return _DEFERRED

    def __exit__(self, *exc):
        global _DEFERRED
        _DEFERRED = None
        return False


def _number_predicate(spec: dict):
    fmt, finite = spec.get("format", "f64"), spec.get("finite", True)
    positive, nonnegative = spec.get("positive", False), spec.get("nonnegative", False)
    if fmt not in ("f64", "f32"):
        return None
    kind = (fmt, positive, nonnegative)

    def ok(x):
        if type(x) is not str:
            return False
        if x in WORDS:
            return not finite and (x == "nan" or not (positive or nonnegative) or x in ("inf", "+inf")) \
                and x != "+inf"
        if not x.startswith(("0x", "-0x")):
            return False
        _DEFERRED.add(kind, x)  # checked with the batch's other numbers (Deferred.failed)
        return True

    return ok


_TYPES = {"object": lambda x: type(x) is dict, "array": lambda x: type(x) is list,
          "integer": lambda x: type(x) is int, "boolean": lambda x: type(x) is bool,
          "string": lambda x: type(x) is str, "null": lambda x: x is None}


def _exact_required(sub) -> tuple | None:
    """The keys of a subschema that is only ``{"required": [...]}`` (decidable both ways)."""
    if isinstance(sub, dict) and set(sub) == {"required"}:
        return tuple(sub["required"])
    return None


def compile_schema(schema, defs: dict):
    """A predicate ``valid(instance) -> bool`` (True only when certainly valid with nothing to
    read), or None when the schema uses a keyword this compiler does not know. A schema is the
    conjunction of its keywords, each applied as JSON Schema applies it. Called inside
    :func:`deferred` it sets its numbers aside in that batch; called alone it is a batch of one."""
    pred = _compile(schema, defs)
    if pred is None:
        return None

    def valid(x) -> bool:
        if _DEFERRED is not None:
            return pred(x)
        with deferred() as d:
            ok = pred(x)
        return ok and not d.failed()

    return valid


def _compile(schema, defs: dict, depth: int = 0):
    """:func:`compile_schema`'s predicate before it is wrapped: its numbers go to the active
    batch (:func:`deferred`), so it may only be called inside one."""
    if depth > 60:
        return None
    if schema is True or (isinstance(schema, dict) and not set(schema) - ANNOTATIONS):
        return lambda x: True
    if not isinstance(schema, dict):
        return None
    defs = {**defs, **schema.get("$defs", {})}
    keys = set(schema) - {"$defs"} - ANNOTATIONS  # annotations describe, never constrain
    if keys == {"type", "claimNumber"} and schema["type"] == NUMBER_TYPES:
        return _number_predicate(schema["claimNumber"])
    checks = []
    if "$ref" in keys:
        ref = schema["$ref"]
        target = defs.get(ref[len("#/$defs/"):]) if ref.startswith("#/$defs/") else None
        sub = _compile(target, defs, depth + 1) if target is not None else None
        if sub is None:
            return None
        checks.append(sub)
        keys.discard("$ref")
    if "type" in keys:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if any(t not in _TYPES for t in types):
            return None
        preds = [_TYPES[t] for t in types]
        checks.append(lambda x: any(p(x) for p in preds))
        keys.discard("type")
    if "enum" in keys or "const" in keys:
        values = list(schema.get("enum", ())) + ([schema["const"]] if "const" in schema else [])
        if "enum" in schema and "const" in schema:
            return None
        checks.append(lambda x: any(type(x) is type(v) and x == v for v in values))
        keys -= {"enum", "const"}
    if keys & {"minimum", "maximum"}:
        lo, hi = schema.get("minimum"), schema.get("maximum")
        checks.append(lambda x: type(x) is not int or ((lo is None or x >= lo) and (hi is None or x <= hi)))
        keys -= {"minimum", "maximum"}
    if keys & {"minLength", "maxLength"}:
        lo, hi = schema.get("minLength", 0), schema.get("maxLength")
        checks.append(lambda x: type(x) is not str or (len(x) >= lo and (hi is None or len(x) <= hi)))
        keys -= {"minLength", "maxLength"}
    if keys & {"items", "prefixItems", "minItems", "maxItems"}:
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")
        prefix = [_compile(q, defs, depth + 1) for q in schema.get("prefixItems", ())]
        items = schema.get("items", True)
        rest = (lambda x: False) if items is False else _compile(items, defs, depth + 1)
        if rest is None or any(q is None for q in prefix):
            return None
        n = len(prefix)

        def array_ok(x):
            if type(x) is not list:
                return True
            if len(x) < lo or (hi is not None and len(x) > hi):
                return False
            for i, v in enumerate(x):
                if not (prefix[i](v) if i < n else rest(v)):
                    return False
            return True

        checks.append(array_ok)
        keys -= {"items", "prefixItems", "minItems", "maxItems"}
    if keys & {"properties", "required", "additionalProperties", "dependentRequired"}:
        extra = schema.get("additionalProperties", True)
        if extra not in (True, False):
            return None
        props = {k: _compile(v, defs, depth + 1) for k, v in schema.get("properties", {}).items()}
        if any(v is None for v in props.values()):
            return None
        required = tuple(schema.get("required", ()))
        dependent = {k: tuple(v) for k, v in schema.get("dependentRequired", {}).items()}

        def object_ok(x):
            if type(x) is not dict:
                return True
            for r in required:
                if r not in x:
                    return False
            for k, deps in dependent.items():
                if k in x and any(d not in x for d in deps):
                    return False
            for k, v in x.items():
                p = props.get(k)
                if p is None:
                    if extra is False:
                        return False
                elif not p(v):
                    return False
            return True

        checks.append(object_ok)
        keys -= {"properties", "required", "additionalProperties", "dependentRequired"}
    if "anyOf" in keys:
        branches = [_compile(b, defs, depth + 1) for b in schema["anyOf"]]
        if any(b is None for b in branches):
            return None
        checks.append(lambda x: any(b(x) for b in branches))
        keys.discard("anyOf")
    if "not" in keys:
        req = _exact_required(schema["not"])
        if req is None:
            return None
        checks.append(lambda x: type(x) is not dict or any(r not in x for r in req))
        keys.discard("not")
    if keys:
        return None
    if len(checks) == 1:
        return checks[0]
    return lambda x: all(c(x) for c in checks)
