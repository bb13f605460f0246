"""Case files: claims of any implementation, as JSON, so the oracle can judge them.

Format ``claims/1`` (documented field by field in ``docs/casefile.md``; JSON Schema in
``oracles/casefile.schema.json``, generated from the rows' contracts by ``oracles.schema``)::

    {"format": "claims/1", "producer": "<who made the claims>",
     "claims": [{"row": "path.control_boxes", "guarantee": "Exact",
                 "value": ..., "inputs": {...}, "model": {...}}, ...]}

Numbers follow the claim number grammar (``oracles.model.parse_number``): hex floats with
``0x``, ``p/q`` rationals, decimal text and JSON numbers, all read exactly. A malformed file as
a whole (not JSON, not an object, wrong format) raises :class:`CaseFileError`; a malformed
claim is listed with its index and field path and the file's other claims are still judged,
so that a malformed claim can never hide a Violated one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Iterable, Optional

from .model import Claim
from .schema import validate_document

__all__ = ["FORMAT", "CaseFileError", "CaseFile", "load_case_file", "load_claims", "parse_case_text",
           "write_claims"]

FORMAT = "claims/1"
MAX_BYTES = 1 << 30  # a larger file is refused rather than read into memory


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
    """

    producer: Optional[str]
    claims: list
    malformed: list
    sha256: str
    total: int


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise CaseFileError(f"duplicate key {k!r} in a JSON object")
        out[k] = v
    return out


def _reject_constant(name):
    raise CaseFileError(f"{name} is not JSON (write the claim number \"nan\", \"inf\" or \"-inf\")")


def _normalize(x):
    """JSON numbers read as Decimal become exact decimal text of the claim grammar."""
    if isinstance(x, Decimal):
        return str(x)
    if isinstance(x, list):
        return [_normalize(v) for v in x]
    if isinstance(x, dict):
        return {k: _normalize(v) for k, v in x.items()}
    return x


def parse_case_text(data: bytes, name: str = "<case file>") -> CaseFile:
    """Parse and validate a case file's bytes (see the module docstring)."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        doc = json.loads(data.decode("utf-8"), parse_float=Decimal, parse_constant=_reject_constant,
                         object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as e:
        raise CaseFileError(f"{name}: not UTF-8 text: {e}") from None
    except json.JSONDecodeError as e:
        raise CaseFileError(f"{name}: not JSON: {e}") from None
    except RecursionError:
        raise CaseFileError(f"{name}: nested too deeply") from None
    except ValueError as e:  # int digit limit, and CaseFileError from the hooks
        raise CaseFileError(f"{name}: {e}") from None
    if not isinstance(doc, dict):
        raise CaseFileError(f"{name}: expected a JSON object with \"format\": \"{FORMAT}\"")
    if doc.get("format") != FORMAT:
        raise CaseFileError(f"{name}: format: expected \"{FORMAT}\", got {doc.get('format')!r}")
    if not isinstance(doc.get("claims"), list):
        raise CaseFileError(f"{name}: claims: must be a list")
    errors = validate_document(doc)
    envelope = [e for e in errors if e.claim is None]
    if envelope:
        raise CaseFileError(f"{name}: " + "; ".join(str(e) for e in envelope))
    bad = {e.claim for e in errors}
    claims = [(i, Claim.from_json(_normalize(item))) for i, item in enumerate(doc["claims"]) if i not in bad]
    producer = doc.get("producer")
    return CaseFile(producer, claims, errors, digest, len(doc["claims"]))


def load_case_file(path) -> CaseFile:
    """Read, parse and validate a case file from disk."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise CaseFileError(f"{path}: larger than {MAX_BYTES} bytes")
        data = p.read_bytes()
    except OSError as e:
        raise CaseFileError(f"{path}: cannot read: {e}") from None
    return parse_case_text(data, str(path))


def load_claims(path) -> list[Claim]:
    """The claims of a case file that must be wholly well formed (any error raises)."""
    cf = load_case_file(path)
    if cf.malformed:
        raise CaseFileError(f"{path}: " + "; ".join(str(e) for e in cf.malformed[:10]))
    return [c for _, c in cf.claims]


def write_claims(path, claims: Iterable[Claim], producer: str) -> int:
    """Write claims as a case file (exact hex floats); returns how many were written."""
    items = [c.to_json() for c in claims]
    Path(path).write_text(json.dumps({"format": FORMAT, "producer": producer, "claims": items},
                                     indent=1) + "\n")
    return len(items)

