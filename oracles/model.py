"""Claims, verdicts and their exact JSON encoding.

Long on purpose: a claim, the number grammar its values are written in (read exactly, refused
when not finite) and the verdicts built on it are one model that every checker imports; split,
each part would import the others.

A :class:`Claim` is what an implementation asserts: a row id (a guarantee of the spec), the
guarantee class, the claimed value, and the exact inputs needed to recompute it. A
:class:`Verdict` is what the oracle concludes about one claim:

* ``Verified``: the oracle *showed* the claim holds (measured error inside its model, exact
  equality, or the truth's enclosure inside the claimed bound);
* ``Violated``: the oracle showed it fails, with a ``witness`` an auditor can replay;
* ``Undecided``: the oracle could not decide within its budget; ``enclosure`` is the best it
  reached. Never reported as Verified.

Numbers cross as exact text: floats as hex (``float.hex``: ``"0x1.8p+1"``), rationals as
``"p/q"``; arrays as nested lists of those. :func:`enc` and :func:`dec` round-trip bit for bit.
A case file may also write a float field as a decimal (``0.1``, ``"1.116"``), as every JSON
writer does: :func:`read_number` reads it as the nearest value of the field's format, once,
when the file is loaded, so checkers only ever see exact numbers.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from reference.status import GuaranteeClass

__all__ = [
    "Claim",
    "NumberError",
    "Reading",
    "Verdict",
    "VerdictKind",
    "checker_error",
    "dec",
    "dec_array",
    "dec_q",
    "enc",
    "first_nonfinite",
    "int_array",
    "is_finite_number",
    "is_integer",
    "nonfinite_value",
    "number_as",
    "number_or_text",
    "oracle_fault",
    "parse_number",
    "read_number",
    "undecided",
    "verified",
    "violated",
]


class VerdictKind(enum.Enum):
    """What the oracle concluded. The last two are faults of the verification itself, never of
    the claim: the claim was not judged, and the ledger exits with its own code (4)."""

    Verified = "Verified"
    Violated = "Violated"
    Undecided = "Undecided"
    CheckerError = "CheckerError"  # the checker raised (a bug of the checker or of the producer run)
    OracleFault = "OracleFault"  # two independent oracles' enclosures of the truth are disjoint


def enc(x: Any) -> Any:
    """Exact JSON form of floats (hex), rationals (``"p/q"``), arrays and containers."""
    # The common types first, by exact type (a claim's values are mostly floats, lists of them
    # and float arrays: about 2.4 million calls in the default ledger); every other value, and
    # subclasses such as numpy's float64, take the general chain below.
    t = type(x)
    if t is float:
        return x.hex() if x - x == 0.0 else _enc_general(x)  # x - x is nan for nan and +-inf
    if t is list or t is tuple:
        return [enc(v) for v in x]
    if t is np.ndarray:
        return _enc_array(x)
    if t is str:
        return x
    return _enc_general(x)


def _enc_array(x: np.ndarray) -> Any:
    """:func:`enc` of an array: its ``tolist()`` encoded, a finite float array's in one pass."""
    if x.size and x.dtype.kind == "f" and x.dtype.itemsize <= 8 and x.ndim and bool(np.isfinite(x).all()):
        flat = [v.hex() for v in x.ravel().tolist()]  # tolist: exact Python floats
        for n in reversed(x.shape[1:]):
            flat = [flat[i:i + n] for i in range(0, len(flat), n)]
        return flat
    return [enc(v) for v in x.tolist()] if x.ndim else enc(x.item())


def _enc_general(x: Any) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        v = float(x)  # float32 -> float64 is exact
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v.hex()
    if isinstance(x, np.ndarray):
        return [enc(v) for v in x.tolist()] if x.ndim else enc(x.item())
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    if isinstance(x, dict):
        return {str(k): enc(v) for k, v in x.items()}
    if isinstance(x, enum.Enum):
        return x.value
    if isinstance(x, str):
        return x
    if x is None:
        return None
    if hasattr(x, "numerator") and hasattr(x, "denominator"):  # Fraction, gmpy2.mpq
        return f"{int(x.numerator)}/{int(x.denominator)}"
    raise TypeError(f"cannot encode {type(x).__name__} exactly")


# The number grammar of claims (docs/casefile.md): hex floats only with 0x, exact rationals
# p/q, decimal text read exactly as a decimal rational, JSON numbers read exactly (case files
# are parsed with decimal.Decimal), and the words nan/inf/-inf. Sizes are capped so that a
# hostile file cannot make the reader build a number of a billion digits.
_HEX = re.compile(r"^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?$")
_RAT = re.compile(r"^([+-]?[0-9]+)/([0-9]+)$")
_DEC = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?$")
_SPECIAL = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf}
MAX_DIGITS = 4000  # digits of any number text
MAX_EXPONENT = 20000  # |binary or decimal exponent| of any number text


class NumberError(ValueError):
    """A number that does not follow the claim number grammar, or that a field cannot hold."""


def _canonical_hex(x: Any) -> float | None:
    """The float64 of ``float.hex``'s own output (what :func:`enc` writes), else None.

    The common case of every case file, decided without the general grammar: the text must be
    exactly what ``float.hex`` writes for the value ``float.fromhex`` reads from it, so a
    non-canonical spelling (``0x1.0000000000001p-1070``, which ``fromhex`` would round into
    the subnormals, or an exponent that overflows) falls through to the exact path."""
    if isinstance(x, str) and x.startswith(("0x", "-0x")):
        try:
            v = float.fromhex(x)
        except (ValueError, OverflowError):
            return None
        if v.hex() == x:
            return v
    return None


def parse_number(x: Any):
    """The exact value of a claim number: a ``Fraction``, or a float NaN/inf for the words.

    Accepts hex-float text with ``0x``, ``p/q`` text, decimal text, ints, ``Decimal`` and
    ``float``. Raises :class:`NumberError` for anything else (a boolean, ``"0.5x"``, ...).
    """
    if isinstance(x, (bool, np.bool_)):
        raise NumberError("a boolean is not a number")
    if isinstance(x, (int, np.integer)):
        if abs(int(x)).bit_length() > 4 * MAX_DIGITS:
            raise NumberError(f"number {_short(x)} is too large to read")
        return Fraction(int(x))
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise NumberError(f"{_short(x)} is not a finite number")
        if abs(x.adjusted()) > MAX_EXPONENT or len(x.as_tuple().digits) > MAX_DIGITS:
            raise NumberError(f"number {_short(x)} is too large to read")
        return Fraction(x)
    if isinstance(x, (float, np.floating)):
        v = float(x)
        return Fraction(v) if math.isfinite(v) else v
    if hasattr(x, "numerator") and hasattr(x, "denominator") and not isinstance(x, str):
        return Fraction(int(x.numerator), int(x.denominator))
    if not isinstance(x, str):
        raise NumberError(f"expected a number, got {type(x).__name__}")
    if x in _SPECIAL:
        return _SPECIAL[x]
    v = _canonical_hex(x)
    if v is not None:
        return Fraction(v)
    if len(x) > MAX_DIGITS + 32:
        raise NumberError(f"number text of {len(x)} characters is too long")
    m = _HEX.match(x)
    if m:
        sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4) or "0"
        if not whole and not frac:
            raise NumberError(f"{_short(x)} is not a hex float")
        e = int(exp)
        if abs(e) > MAX_EXPONENT:
            raise NumberError(f"{_short(x)}: exponent too large")
        q = Fraction(int(whole + frac, 16)) * Fraction(2) ** (e - 4 * len(frac))
        return -q if sign == "-" else q
    m = _RAT.match(x)
    if m:
        if int(m.group(2)) == 0:
            raise NumberError(f"{_short(x)}: zero denominator")
        return Fraction(int(m.group(1)), int(m.group(2)))
    m = _DEC.match(x)
    if m:
        if m.group(1) is not None and abs(int(m.group(1))) > MAX_EXPONENT:
            raise NumberError(f"{_short(x)}: exponent too large")
        return Fraction(x)
    raise NumberError(f"{_short(x)} is not a number (hex floats need 0x, rationals are p/q)")


def is_integer(v: Any) -> bool:
    """A JSON integer (a Python int that is not a bool): counts, indices, revisions."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_finite_number(x: Any) -> bool:
    """Whether ``x`` reads (:func:`parse_number`) as a finite exact number."""
    try:
        return isinstance(parse_number(x), Fraction)
    except (ValueError, TypeError):
        return False


def first_nonfinite(value: Any, path: str = "value") -> str | None:
    """The path of the first number in ``value`` (JSON: objects, arrays, numbers and number
    texts) that reads as NaN or an infinity, or None. Texts that are not numbers (names,
    statuses) and booleans are skipped. Iterative: any depth. A checker that folds claimed
    values with ``max`` must refuse these first: ``max(x, nan)`` silently keeps ``x``."""
    todo = [(path, value)]
    while todo:
        where, x = todo.pop()
        if isinstance(x, dict):
            todo += [(f"{where}.{k}", v) for k, v in reversed(list(x.items()))]
        elif isinstance(x, (list, tuple)):
            todo += [(f"{where}[{i}]", v) for i, v in reversed(list(enumerate(x)))]
        elif isinstance(x, (str, float)) and not isinstance(x, bool):
            try:
                q = parse_number(x)
            except (ValueError, TypeError):
                continue
            if not isinstance(q, Fraction):
                return where
    return None


def nonfinite_value(claim: Claim, rule_of) -> Verdict | None:
    """Violated where the claimed value holds NaN or an infinity (:func:`first_nonfinite`), for
    a row whose every claimed quantity is finite; ``rule_of(path)`` names the rule the number at
    ``path`` falls under. None otherwise."""
    bad = first_nonfinite(claim.value)
    if bad is None:
        return None
    return violated(claim, {"why": f"{bad} is not finite: every quantity this row claims is finite"},
                    rule=rule_of(bad))


def _negative_zero_text(x: Any) -> bool:
    return isinstance(x, str) and x.startswith("-")


def number_as(x: Any, fmt: str = "f64", *, finite: bool = False) -> float:
    """The float of format ``fmt`` ("f64" or "f32") that claim number ``x`` denotes exactly.

    Exact. Raises :class:`NumberError` when ``x`` is not exactly representable in ``fmt``
    (``"0.1"`` is not a float64; the message names the two nearest values), overflows it, or
    is nonfinite where ``finite`` is demanded. :func:`read_number` reads decimals by rounding.
    """
    v = _canonical_hex(x)  # exactly a float64 already: the common case
    if v is None:
        q = parse_number(x)
        if isinstance(q, float):
            if finite:
                raise NumberError(f"{_short(x)} is not finite")
            return q
        if fmt not in _FORMAT_NAMES:
            raise ValueError(f"unknown float format {fmt!r}")
        try:
            v = float(q)
        except OverflowError:
            raise NumberError(f"{_short(x)} overflows {_FORMAT_NAMES[fmt]}") from None
        if Fraction(v) != q:
            raise _inexact(x, q, fmt)
        if (v == 0.0 and _negative_zero_text(x)) or (isinstance(x, float) and v == 0.0 and math.copysign(1, x) < 0):
            v = -0.0
    if fmt == "f32":
        w = np.float32(v) if abs(v) <= _F32_MAX else np.float32(np.inf)
        if not np.isfinite(w) or float(w) != v:
            raise _inexact(x, Fraction(v), "f32")
    elif fmt != "f64":
        raise ValueError(f"unknown float format {fmt!r}")
    return v


# --- Reading decimals by rounding --------------------------------------------------------------

_F32_MAX = 3.4028234663852886e38
_FORMAT_NAMES = {"f64": "float64", "f32": "float32"}
# Significant digits that always identify one value of the format (a decimal of this many
# digits lies within half an ulp of exactly one value): 17 for binary64, 9 for binary32.
IDENTIFYING_DIGITS = {"f64": 17, "f32": 9}


@dataclass(frozen=True)
class Reading:
    """How a claim number was read into a float field (:func:`read_number`).

    Attributes:
        value: the float read (a float64; for "f32" a float32 value held in a float64).
        rounded: the number was a decimal not exactly a value of the format, read as the
            nearest one (ties to even).
        short: a rounded decimal with fewer significant digits than identify a value of the
            format: more than one value of the format lies within half a unit of its last digit,
            so it may not be the value its producer computed (``printf("%g")`` writes 6 digits).
    """

    value: float
    rounded: bool = False
    short: bool = False


def _nearest(q: Fraction, fmt: str) -> float:
    """The value of ``fmt`` nearest the exact rational ``q`` (IEEE 754 round to nearest, ties
    to even, subnormals included), by MPFR in the format's own precision and exponent range.
    Raises NumberError where the nearest is beyond the format's largest finite value."""
    import gmpy2

    with gmpy2.context(gmpy2.ieee(64 if fmt == "f64" else 32)):
        r = gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator))
    v = float(r)
    if math.isinf(v):
        raise NumberError(f"overflows {_FORMAT_NAMES[fmt]}")
    if v == 0.0 and q < 0:
        v = -0.0
    return v


def _step(v: float, fmt: str, toward: float) -> float:
    """The next value of ``fmt`` after ``v`` toward ``toward`` (an infinity past the largest)."""
    if fmt == "f32":
        with np.errstate(over="ignore"):
            return float(np.nextafter(np.float32(v), np.float32(toward)))
    return math.nextafter(v, toward)


def _hex(v: float, fmt: str) -> str:
    """Hex text of ``v``: ``float.hex`` for float64 (what :func:`enc` writes), its trailing zero
    digits dropped for float32 (``0x1.000002p+0``)."""
    t = v.hex()
    if fmt == "f32" and "." in t:
        head, _, exp = t.partition("p")
        head = head.rstrip("0").rstrip(".")
        t = f"{head}p{exp}"
    return t


def _inexact(x: Any, q: Fraction, fmt: str) -> NumberError:
    """The error for claim number ``x`` (exact value ``q``) that is not a value of ``fmt``: it
    names the two values of ``fmt`` around it, in hex and in decimal to as many digits as
    identify them, or says that it is beyond the format's range."""
    name = _FORMAT_NAMES[fmt]
    try:
        v = _nearest(q, fmt)
    except NumberError:
        return NumberError(f"{_short(x)} overflows {name}")
    lo, hi = (_step(v, fmt, -math.inf), v) if Fraction(v) > q else (v, _step(v, fmt, math.inf))
    digits = IDENTIFYING_DIGITS[fmt]

    def show(w):
        return f"{_hex(w, fmt)} ({w:.{digits}g})" if math.isfinite(w) else "none (the largest)"

    return NumberError(f"{_short(x)} is not exactly representable as {name}; the nearest {name} values "
                       f"are {show(lo)} below and {show(hi)} above")


def _is_short(d, v: float, fmt: str) -> bool:
    """Whether the decimal ``d`` (a ``Decimal``, read as ``v``) has fewer significant digits
    than identify a value of ``fmt``: another value of ``fmt`` besides ``v`` lies within half a
    unit of its last written digit (so the decimal does not pin down the producer's value)."""
    import gmpy2

    t = d.as_tuple()
    if len(t.digits) >= IDENTIFYING_DIGITS[fmt]:
        return False  # enough digits: the interval is narrower than the format's spacing
    q = gmpy2.mpq(*d.as_integer_ratio())
    half = gmpy2.mpq(10 ** t.exponent, 2) if t.exponent >= 0 else gmpy2.mpq(1, 2 * 10 ** -t.exponent)
    lo, hi = q - half, q + half
    if not lo <= gmpy2.mpq(v) <= hi:
        return False  # no value of fmt within the interval at all (v is the nearest)
    return any(math.isfinite(n) and lo <= gmpy2.mpq(n) <= hi
               for n in (_step(v, fmt, -math.inf), _step(v, fmt, math.inf)))


def _as_decimal(x: Any):
    """A decimal of the claim grammar (a JSON number, an int, decimal text) as a ``Decimal``
    within the size caps, else None."""
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, Decimal):
        d = x
    elif isinstance(x, (int, np.integer)):
        if abs(int(x)).bit_length() > 4 * MAX_DIGITS:
            return None
        d = Decimal(int(x))
    elif isinstance(x, str) and len(x) <= MAX_DIGITS + 32 and _DEC.match(x):
        d = Decimal(x)
    else:
        return None
    if not d.is_finite() or abs(d.adjusted()) > MAX_EXPONENT or len(d.as_tuple().digits) > MAX_DIGITS:
        return None
    return d


def _read_decimal(d, fmt: str) -> Reading | None:
    """The reading of decimal ``d`` into ``fmt`` by rounding, or None where it overflows.
    float64: ``float`` of a decimal is correctly rounded (ties to even, subnormals included);
    float32: MPFR reads the digits in binary32's precision and range (never through a float64,
    which would round twice)."""
    if fmt == "f64":
        v = float(d)
    else:
        import gmpy2

        with gmpy2.context(gmpy2.ieee(32)):
            v = float(gmpy2.mpfr(str(d)))
        if v == 0.0 and d.is_signed():
            v = -0.0
    if math.isinf(v):
        return None
    if Decimal(v) == d:  # exact (Decimal of a float is exact, and so is the comparison)
        return Reading(v)
    return Reading(v, True, _is_short(d, v, fmt))


def read_number(x: Any, fmt: str = "f64", *, finite: bool = False, exact: bool = False) -> Reading:
    """Read claim number ``x`` into a field of format ``fmt`` ("f64" or "f32").

    Rounded (a decimal read by rounding) or Exact. A decimal (a JSON number, an integer, or
    decimal text) is read as the nearest value of ``fmt``, ties to even, as every JSON reader
    reads one, and ``rounded`` says when it was not exactly a value of ``fmt``; a Python float
    is its binary64 value, read the same way into "f32". Hex floats and ``p/q`` rationals are
    read exactly (an inexact one raises), and so is everything when ``exact`` is True (the
    ``--exact-numbers`` reading). A decimal beyond the format's range raises; it never becomes
    an infinity. Raises :class:`NumberError` as :func:`number_as` does otherwise.
    """
    if not exact and fmt in _FORMAT_NAMES and _canonical_hex(x) is None:
        d = _as_decimal(x)
        if d is not None:
            r = _read_decimal(d, fmt)
            if r is None:
                raise NumberError(f"{_short(x)} overflows {_FORMAT_NAMES[fmt]}")
            return r
        if isinstance(x, (float, np.floating)) and fmt == "f32" and math.isfinite(x):
            v = float(x)
            try:
                w = _nearest(Fraction(v), "f32")
            except NumberError:
                raise NumberError(f"{_short(x)} overflows float32") from None
            return Reading(v) if w == v else Reading(w, True)
    return Reading(number_as(x, fmt, finite=finite))


def _short(x: Any) -> str:
    """``x`` as the JSON text a case file holds (a JSON number for ``Decimal`` and ints, a
    quoted string for text), cut at 40 characters."""
    if isinstance(x, (Decimal, int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        t = str(x)
    elif isinstance(x, (float, np.floating)):
        t = repr(float(x))
    else:
        import json

        try:
            t = json.dumps(x)
        except (TypeError, ValueError):
            t = repr(x)
    return t if len(t) <= 40 else t[:37] + "..."


def dec(s: Any) -> float:
    """A float64 from a claim number (:func:`enc`'s hex text, ``p/q``, decimal text, a JSON
    number, ``nan``/``inf``); raises :class:`NumberError` unless it is exactly a float64."""
    v = _canonical_hex(s)  # the common case, before number_as's general path
    return v if v is not None else number_as(s, "f64")


def number_or_text(x: Any) -> Any:
    """A float64 from a request number (:func:`dec`); anything that is not one passes through
    unchanged (an adapter hands it to the fast path, which must refuse it as it would refuse a
    caller's bad value)."""
    try:
        return dec(x)
    except (NumberError, TypeError):
        return x


def _f64_nested(s: Any):
    if isinstance(s, list):
        return [_f64_nested(v) for v in s]
    return dec(s)


def dec_array(s: Any, dtype=np.float64) -> np.ndarray:
    """A numpy array from nested lists of claim numbers; ``dtype`` must hold them exactly."""
    try:
        arr = np.array(_f64_nested(s), dtype=np.float64)
    except ValueError as e:
        if isinstance(e, NumberError):
            raise
        raise NumberError(f"ragged or malformed array: {e}") from None
    if isinstance(s, list) and not s:
        arr = np.zeros(0)
    if np.dtype(dtype) == np.float64:  # every element was read as exactly a float64
        return arr
    out = arr.astype(dtype)
    if not np.array_equal(out.astype(np.float64), arr, equal_nan=True):
        raise NumberError(f"value not exactly representable as {np.dtype(dtype).name}")
    return out


def int_array(s: Any) -> np.ndarray:
    """A numpy int64 array from (nested lists of) claim integers: the indices, counts and codes
    of a claimed mesh. An integer that int64 cannot hold raises NumberError, so the claim is
    malformed (no index or count of the spec comes near 2^63), never a checker fault."""
    try:
        return np.asarray(s, dtype=np.int64)
    except OverflowError:
        raise NumberError("an integer outside the int64 range") from None


def dec_q(s: Any):
    """An exact gmpy2.mpq from a claim number (any form of the grammar; nonfinite raises)."""
    import gmpy2

    q = parse_number(s)
    if isinstance(q, float):
        raise NumberError("nonfinite value has no rational value")
    return gmpy2.mpq(q.numerator, q.denominator)


_GUARANTEE_OF = {g.value: g for g in GuaranteeClass}  # a claim's "guarantee" text -> its class


@dataclass(frozen=True, init=False)
class Claim:
    """One assertion of an implementation about one guarantee row.

    Attributes:
        row: stable row id (``oracles.rows.ROWS``), for example ``"path.control_boxes"``.
        guarantee: the guarantee class the result claims.
        value: the claimed value, JSON-encoded with :func:`enc`.
        inputs: the exact inputs needed to recompute the truth, JSON-encoded.
        model: for Rounded claims, the error model's name and bound (encoded), else None.
        id: the producer's own label of the claim (its test's name, say), or None; echoed in
            every report of the claim's verdict (``--verdicts``, JUnit, ledger witnesses) and
            never read by a checker.
        decisions: the claim opts in to the project's decisions (``"decisions": true``): rules
            of ``docs/decisions.md`` that go beyond the spec bind it too (``oracles.rules``). Our
            fast path's claims opt in; without it a claim is judged by the spec's rules and the
            documented defaults.
    """

    row: str
    guarantee: GuaranteeClass
    value: Any
    inputs: dict
    model: dict | None = None
    id: str | None = None
    decisions: bool = False

    def __init__(self, row: str, guarantee: GuaranteeClass, value: Any, inputs: dict, model: dict | None = None,
                 id: str | None = None, decisions: bool = False):
        # In one step, as Verdict's: a large case file builds one claim per entry.
        self.__dict__.update(row=row, guarantee=guarantee, value=value, inputs=inputs, model=model, id=id,
                             decisions=decisions)

    def to_json(self) -> dict:
        out = {"id": self.id} if self.id is not None else {}
        out.update({"row": self.row, "guarantee": self.guarantee.value, "value": self.value,
                    "inputs": self.inputs})
        if self.model is not None:
            out["model"] = self.model
        if self.decisions:
            out["decisions"] = True
        return out

    @staticmethod
    def from_json(d: dict) -> Claim:
        if not isinstance(d, dict):
            raise ValueError("a claim must be a JSON object")
        missing = {"row", "guarantee", "value", "inputs"} - d.keys()
        if missing:
            raise ValueError(f"claim lacks {sorted(missing)}")
        if not isinstance(d["inputs"], dict):
            raise ValueError("claim inputs must be an object")
        label = d.get("id")
        if label is not None and not isinstance(label, str):
            raise ValueError("claim id must be a string")
        decisions = d.get("decisions", False)
        if not isinstance(decisions, bool):
            raise ValueError("claim decisions must be true or false")
        g = _GUARANTEE_OF.get(d["guarantee"]) if type(d["guarantee"]) is str else None
        if g is None:  # not a class's name: the enum's own error
            g = GuaranteeClass(d["guarantee"])
        return Claim(str(d["row"]), g, d["value"], d["inputs"], d.get("model"), label, decisions)


@dataclass(frozen=True, init=False)
class Verdict:
    """The oracle's conclusion about one claim.

    Attributes:
        kind: Verified, Violated or Undecided.
        claim: the claim judged.
        measure: name of the measured quantity (``"error_ratio"``, ``"margin_rel"``, ...).
        measured: its value (float) where one applies; the ledger reports the worst.
        prec: oracle precision in bits, or None for exact rational arithmetic.
        witness: for Violated, what shows the failure (JSON-encoded).
        enclosure: for Undecided, the best enclosure reached (``[lo, hi]`` encoded).
        note: a short human-readable explanation.
        bound_use: how much of the claim's allowed bound the truth used, as a fraction (1 is at
            the bound, above 1 outside it): |error| / model for Rounded, how far the truth's
            enclosure reaches into the claimed interval's slack for Certified, the measured
            factor over the acceptance factor for Estimated. None where no bound applies (Exact
            rows, structural checks). The ledger reports each row's largest.
        rule: for Violated, the id of the rule that refuted the claim (``oracles.rules``): a
            spec or default rule, or a decision of ours when only a decision refutes a claim
            that opted in to the decisions.
        unmet: the decisions of ours the claim does not meet although they did not bind it (it
            did not opt in): its kind is what the spec's rules and the documented defaults say.
    """

    kind: VerdictKind
    claim: Claim
    measure: str | None = None
    measured: float | None = None
    prec: int | None = None
    witness: dict | None = None
    enclosure: list | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)
    bound_use: float | None = None
    rule: str | None = None
    unmet: tuple = ()

    def __init__(self, kind: VerdictKind, claim: Claim, measure: str | None = None, measured: float | None = None,
                 prec: int | None = None, witness: dict | None = None, enclosure: list | None = None, note: str = "",
                 extra: dict | None = None, bound_use: float | None = None, rule: str | None = None,
                 unmet: tuple = ()):
        # The fields in one step: the generated __init__ of a frozen dataclass sets them one
        # object.__setattr__ at a time, 1.4 us a verdict against 0.6 (tests/oracles/test_judge_api.py
        # holds this signature to the fields).
        self.__dict__.update(kind=kind, claim=claim, measure=measure, measured=measured, prec=prec, witness=witness,
                             enclosure=enclosure, note=note, extra={} if extra is None else extra,
                             bound_use=bound_use, rule=rule, unmet=unmet)

    def to_json(self) -> dict:
        out = {"kind": self.kind.value, "row": self.claim.row, "measure": self.measure,
               "measured": self.measured, "prec": self.prec, "note": self.note}
        if self.claim.id is not None:
            out["id"] = self.claim.id
        if self.bound_use is not None:
            out["bound_use"] = self.bound_use
        if self.rule is not None:
            out["rule"] = self.rule
        if self.unmet:
            out["unmet"] = list(self.unmet)
        if self.witness is not None:
            out["witness"] = self.witness
        if self.enclosure is not None:
            out["enclosure"] = self.enclosure
        if self.extra:
            out["extra"] = self.extra
        return out


def verified(claim: Claim, *, measure=None, measured=None, prec=None, note="", bound_use=None,
             **extra) -> Verdict:
    return Verdict(VerdictKind.Verified, claim, measure, _f(measured), prec, note=note, extra=extra,
                   bound_use=_f(bound_use))


def violated(claim: Claim, witness: dict, *, measure=None, measured=None, prec=None, note="",
             bound_use=None, rule: str | None = None, **extra) -> Verdict:
    """Violated, with a witness; ``rule`` names the rule that refuted the claim (an id of
    ``oracles.rules``)."""
    return Verdict(VerdictKind.Violated, claim, measure, _f(measured), prec, witness=witness,
                   note=note, extra=extra, bound_use=_f(bound_use), rule=rule)


def undecided(claim: Claim, enclosure, *, measure=None, measured=None, prec=None, note="",
              bound_use=None, **extra) -> Verdict:
    return Verdict(VerdictKind.Undecided, claim, measure, _f(measured), prec,
                   enclosure=enclosure, note=note, extra=extra, bound_use=_f(bound_use))


TRACEBACK_FRAMES = 6  # innermost frames kept in a checker error's witness


def error_summary(exc: BaseException) -> dict:
    """``{"error": "Type: message", "traceback": ["file:line in function", ...]}``: the
    exception and its innermost frames, project files named relative to the project root (and
    others by their base name) so that the summary is the same on every machine."""
    import os
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)[-TRACEBACK_FRAMES:]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def where(f):
        path = os.path.abspath(f.filename)
        if path.startswith(root + os.sep):
            return os.path.relpath(path, root).replace(os.sep, "/")
        return os.path.basename(path)

    return {"error": f"{type(exc).__name__}: {exc}"[:500],
            "traceback": [f"{where(f)}:{f.lineno} in {f.name}" for f in frames]}


def checker_error(claim: Claim, exc: BaseException, *, note: str = "") -> Verdict:
    """The checker raised on ``claim``: not judged. The witness names the exception and where."""
    return Verdict(VerdictKind.CheckerError, claim, witness=error_summary(exc),
                   note=note or "the checker raised; the claim was not judged")


def oracle_fault(claim: Claim, enclosures: dict, *, note: str = "", prec=None) -> Verdict:
    """Two independent oracles enclose the same truth in disjoint intervals, so at least one of
    them is wrong: the claim is not judged. ``enclosures`` names each oracle's enclosure
    (encoded ``[lo, hi]``)."""
    return Verdict(VerdictKind.OracleFault, claim, prec=prec, witness={"enclosures": enclosures},
                   note=note or "independent oracles disagree: their enclosures are disjoint")


def _f(x):
    if x is None:
        return None
    try:
        return float(x)
    except OverflowError:  # an exact ratio beyond float64 is inf, never a crash
        return math.inf if x > 0 else -math.inf
