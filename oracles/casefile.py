"""Case files: claims of any implementation, as JSON, so the oracle can judge them.

Format ``claims/1`` (documented field by field in ``docs/casefile.md``; JSON Schema in
``oracles/casefile.schema.json``, generated from the rows' contracts by ``oracles.schema``)::

    {"format": "claims/1", "producer": "<who made the claims>",
     "claims": [{"row": "path.control_boxes", "guarantee": "Exact",
                 "value": ..., "inputs": {...}, "model": {...}}, ...]}

Numbers follow the claim number grammar (``oracles.model.parse_number``): hex floats with
``0x`` and ``p/q`` rationals, read exactly, and decimals (decimal text and JSON numbers), read
into a float field as the nearest value of its format, as any JSON reader reads them
(``oracles.model.read_number``; with ``exact_numbers`` an inexact decimal is malformed). The
reading happens here, once: a decimal in a float field is replaced by the hex text of the value
read, so checkers receive exact numbers in one spelling, and :class:`NumberReport` counts the
decimals read by rounding and names the first that are too short to identify a value. A
malformed file as a whole (not JSON, nested deeper than :data:`MAX_DEPTH`, not an object, wrong
format) raises :class:`CaseFileError`; a malformed claim is listed with its index and field path
and the file's other claims are still judged, so that a malformed claim can never hide a Violated one.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from collections.abc import Iterable

from .model import Claim
from .reports import output_file
from .schema import FORMAT, field_path, read_document

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "CaseFile",
    "CaseFileError",
    "NumberReport",
    "decimals_as_text",
    "load_case_file",
    "load_claims",
    "loads_within_depth",
    "parse_case_text",
    "read_claims",
    "too_deep",
    "write_claims",
]

MAX_BYTES = 1 << 30  # a larger file is refused rather than read into memory
SHORT_PATHS_KEPT = 5  # paths of short decimals named in the report and the warning
# The deepest nesting a claims/1, requests/1 or answers/1 document may have (the document itself
# is level 1): the formats need about 12 (an answer's claim or output), and readers, the ledger
# and reports walk values recursively, so a deeper value is refused when read (docs/decisions.md
# "Nesting depth of the file formats").
MAX_DEPTH = 64


@dataclass(frozen=True)
class NumberReport:
    """How a file's numbers were read (in the claims that were read, not the malformed ones).

    Attributes:
        exact_numbers: read under ``--exact-numbers`` (inexact decimals are malformed).
        rounded: decimals read by rounding: not exactly a value of their field's format.
        short: of those, decimals with fewer significant digits than identify a value of the
            format (``oracles.model.Reading.short``): they may not be the producer's values.
        first_short: the paths of the first :data:`SHORT_PATHS_KEPT` short decimals.
    """

    exact_numbers: bool = False
    rounded: int = 0
    short: int = 0
    first_short: tuple = ()

    def to_json(self) -> dict:
        return {"exact_numbers": self.exact_numbers, "read_by_rounding": self.rounded,
                "short_decimals": self.short, "first_short": list(self.first_short)}

    def warning(self) -> str | None:
        """The warning ``check`` prints when short decimals were read, else None."""
        if not self.short:
            return None
        more = f" and {self.short - len(self.first_short)} more" if self.short > len(self.first_short) else ""
        return (f"{self.short} of {self.rounded} decimals read by rounding have fewer significant digits "
                "than identify a value of their field's format (17 for float64, 9 for float32), so they "
                f"may not be the values the producer computed: {', '.join(self.first_short)}{more}. "
                "A writer of the shortest decimal that reads back as the value (json.dump, repr, "
                "std::to_chars, Ryu) writes such decimals only for values they identify; a writer of "
                "fewer digits (printf(\"%g\"), std::cout's default of 6) loses the value: write 17 "
                "significant digits (printf(\"%.17g\")) or hex floats (printf(\"%a\")).")


class CaseFileError(ValueError):
    """A case file that cannot be read at all; the message names the problem."""


@dataclass(frozen=True)
class CaseFile:
    """A read case file: the well-formed claims (with their indices) and the malformed ones.

    Attributes:
        producer: the producer string of the file (or None when absent).
        claims: ``(index, Claim)`` of every claim that passed the schema.
        malformed: one :class:`oracles.schema.FieldError` per schema violation (claim index and
            field path); claims with an error are not in ``claims``.
        sha256: digest of the file's bytes (identifies the run in the ledger).
        total: how many claims the file holds.
        numbers: how its numbers were read (:class:`NumberReport`).
    """

    producer: str | None
    claims: list
    malformed: list
    sha256: str
    total: int
    numbers: NumberReport = NumberReport()


def _no_duplicates(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):  # some key twice: name the first one repeated
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise CaseFileError(f"duplicate key {k!r} in a JSON object")
            seen.add(k)
    return out


def _reject_constant(name):
    raise CaseFileError(f"{name} is not JSON (write the claim number \"nan\", \"inf\" or \"-inf\")")


def too_deep(doc, limit: int = MAX_DEPTH) -> str | None:
    """The path of the first value (in document order) nested deeper than ``limit`` levels
    (``claims[0].value.before[0][0]...``), or None. Without recursion: a Python-level recursive
    walk of such a value is what this guards against."""
    level = [doc] if type(doc) in (list, dict) else []
    for _ in range(limit):  # level by level, keeping only the containers
        below = []
        for x in level:
            below += [v for v in (x.values() if type(x) is dict else x) if type(v) in (list, dict)]
        if not below:
            return None
        level = below
    stack = [(doc, ())]  # too deep somewhere: find the first such value, in document order
    while stack:
        x, parts = stack.pop()
        if len(parts) == limit:
            return field_path(parts)
        items = list(x.items() if type(x) is dict else enumerate(x))
        stack += [(v, (*parts, k)) for k, v in reversed(items) if type(v) in (list, dict)]
    return None  # not reached: a level below the limit was found


# The fast parse's recursion budget below MAX_DEPTH: the parser's own frames and a hook's call
# take a few units beside one per nesting level, so a document this many levels short of the
# limit always parses; one that comes nearer takes the slow path, which is exact.
_FAST_MARGIN = 12
_FAST: list = []  # [True] once the interpreter's JSON parser is seen to honour the recursion limit


def _stack_depth() -> int:
    f, n = sys._getframe(), 0
    while f is not None:
        n, f = n + 1, f.f_back
    return n


def _fast_parse_bounds_depth() -> bool:
    """Whether ``json.loads`` counts nesting against ``sys.getrecursionlimit`` here (CPython
    3.11's C parser does; a later one may count C frames apart): checked once, by parsing 100
    levels under a limit that allows fewer."""
    if not _FAST:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(_stack_depth() + 50)
        try:
            json.loads("[" * 100 + "]" * 100)
            _FAST.append(False)
        except RecursionError:
            _FAST.append(True)
        finally:
            sys.setrecursionlimit(old)
    return _FAST[0]


def loads_within_depth(text: str, **kw):
    """``(doc, path)``: ``json.loads(text, **kw)`` and the path of its first value nested deeper
    than :data:`MAX_DEPTH` (None when there is none). Fast where the parser bounds nesting by the
    interpreter's recursion limit (see :func:`_fast_parse_bounds_depth`): parsed under a limit
    :data:`_FAST_MARGIN` levels short of MAX_DEPTH, a document of the formats' depth (12 levels
    or less) costs nothing more; one that reaches that limit, or any document where the parser
    does not honour it, is parsed again and walked by :func:`too_deep` (about 25 ms for 10,000
    claims, a tenth of a check's CPU). A RecursionError of the second parse is the caller's
    (deeper than the interpreter can parse at all)."""
    if _fast_parse_bounds_depth():
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(_stack_depth() + MAX_DEPTH - _FAST_MARGIN)
        try:
            return json.loads(text, **kw), None
        except RecursionError:
            pass
        finally:
            sys.setrecursionlimit(old)
    doc = json.loads(text, **kw)
    return doc, too_deep(doc)


def decimals_as_text(x):
    """JSON numbers read as Decimal become exact decimal text of the claim grammar (claims,
    request inputs and answer outputs alike); everything else is kept."""
    if isinstance(x, Decimal):
        return str(x)
    if isinstance(x, list):
        return [decimals_as_text(v) for v in x]
    if isinstance(x, dict):
        return {k: decimals_as_text(v) for k, v in x.items()}
    return x


def _set_at(doc, parts, value) -> None:
    for p in parts[:-1]:
        doc = doc[p]
    doc[parts[-1]] = value


def read_claims(doc: dict, *, exact_numbers: bool = False,
                decimals: bool = True) -> tuple[list, list, NumberReport]:
    """Validate a parsed document's claims and read them: ``(claims, malformed, numbers)``
    with ``claims`` the ``(index, Claim)`` of every well-formed claim (the decimals of its float
    fields replaced, in ``doc`` itself, by the hex text of the values read), ``malformed``
    one :class:`oracles.schema.FieldError` per violation (with the claim's ``id`` where it has a
    readable one), envelope errors included (``claim`` None). ``decimals=False`` says the
    document holds no ``Decimal`` at all (the parser read no JSON fraction or exponent), so
    there is nothing to normalize."""
    reading = read_document(doc, exact_numbers=exact_numbers)
    items = doc.get("claims") if isinstance(doc, dict) else None
    items = items if isinstance(items, list) else []
    for e in reading.errors:
        if e.claim is not None and e.claim < len(items) and isinstance(items[e.claim], dict):
            label = items[e.claim].get("id")
            e.id = label if isinstance(label, str) else None
    bad = {e.claim for e in reading.errors}
    rounded = short = 0
    first: list = []
    for parts, text, is_rounded, is_short in reading.readings:
        if parts[1] in bad:
            continue
        _set_at(doc, parts, text)
        rounded += is_rounded
        if is_short:
            short += 1
            if len(first) < SHORT_PATHS_KEPT:
                first.append(field_path(parts))
    if any(e.claim is None for e in reading.errors):
        claims = []
    else:
        norm = decimals_as_text if decimals else (lambda x: x)
        claims = [(i, Claim.from_json(norm(item))) for i, item in enumerate(items) if i not in bad]
    return claims, reading.errors, NumberReport(exact_numbers, rounded, short, tuple(first))


def parse_case_text(data: bytes, name: str = "<case file>", *, exact_numbers: bool = False) -> CaseFile:
    """Parse and validate a case file's bytes (see the module docstring); ``exact_numbers``
    refuses decimals that are not exactly a value of their field's format."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        read_decimals: list = []  # whether any JSON fraction or exponent was read (as a Decimal)

        def decimal(text):
            read_decimals.append(True)
            return Decimal(text)

        doc, deep = loads_within_depth(data.decode("utf-8"), parse_float=decimal, parse_constant=_reject_constant,
                                       object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as e:
        raise CaseFileError(f"{name}: not UTF-8 text: {e}") from None
    except json.JSONDecodeError as e:
        raise CaseFileError(f"{name}: not JSON: {e}") from None
    except RecursionError:
        raise CaseFileError(f"{name}: nested too deeply") from None
    except ValueError as e:  # int digit limit, and CaseFileError from the hooks
        raise CaseFileError(f"{name}: {e}") from None
    if deep is not None:
        raise CaseFileError(f"{name}: {deep}: nested deeper than {MAX_DEPTH} levels")
    if not isinstance(doc, dict):
        raise CaseFileError(f"{name}: expected a JSON object with \"format\": \"{FORMAT}\"")
    if doc.get("format") != FORMAT:
        raise CaseFileError(f"{name}: format: expected \"{FORMAT}\", got {doc.get('format')!r}")
    if not isinstance(doc.get("claims"), list):
        raise CaseFileError(f"{name}: claims: must be a list")
    claims, errors, numbers = read_claims(doc, exact_numbers=exact_numbers, decimals=bool(read_decimals))
    envelope = [e for e in errors if e.claim is None]
    if envelope:
        raise CaseFileError(f"{name}: " + "; ".join(str(e) for e in envelope))
    producer = doc.get("producer")
    return CaseFile(producer, claims, errors, digest, len(doc["claims"]), numbers)


def load_case_file(path, *, exact_numbers: bool = False) -> CaseFile:
    """Read, parse and validate a case file from disk (``exact_numbers``: see
    :func:`parse_case_text`)."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise CaseFileError(f"{path}: larger than {MAX_BYTES} bytes")
        data = p.read_bytes()
    except OSError as e:
        raise CaseFileError(f"{path}: cannot read: {e}") from None
    return parse_case_text(data, str(path), exact_numbers=exact_numbers)


def load_claims(path) -> list[Claim]:
    """The claims of a case file that must be wholly well formed (any error raises)."""
    cf = load_case_file(path)
    if cf.malformed:
        raise CaseFileError(f"{path}: " + "; ".join(str(e) for e in cf.malformed[:10]))
    return [c for _, c in cf.claims]


def write_claims(path, claims: Iterable[Claim], producer: str) -> int:
    """Write claims as a case file (exact hex floats); returns how many were written."""
    items = [c.to_json() for c in claims]
    output_file(path).write_text(json.dumps({"format": FORMAT, "producer": producer, "claims": items},
                                            indent=1) + "\n")
    return len(items)

