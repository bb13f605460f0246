"""Case files: claims of any implementation, as JSON, so the oracle can judge them.

Format ``claims/1``::

    {"format": "claims/1", "producer": "<who made the claims>",
     "claims": [{"row": "path.control_boxes", "guarantee": "Exact",
                 "value": ..., "inputs": {...}, "model": {...}}, ...]}

Numbers are exact text (hex floats, ``"p/q"`` rationals; see ``oracles.model.enc``). The
fast path's own claims are written by ``python -m oracles claims --out FILE``; each row's
``inputs`` and ``value`` fields are documented by its checker in ``oracles/checks/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from .model import Claim
from .rows import row

__all__ = ["FORMAT", "CaseFileError", "load_claims", "write_claims"]

FORMAT = "claims/1"


class CaseFileError(ValueError):
    """A case file that cannot be read as claims; the message names the offending item."""


def load_claims(path) -> list[Claim]:
    """Read and validate a case file; raise :class:`CaseFileError` on any malformation."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise CaseFileError(f"{path}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise CaseFileError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CaseFileError(f"{path}: expected an object with \"format\": \"{FORMAT}\"")
    items = doc.get("claims")
    if not isinstance(items, list):
        raise CaseFileError(f"{path}: \"claims\" must be a list")
    claims = []
    for i, item in enumerate(items):
        try:
            c = Claim.from_json(item)
            row(c.row)
        except KeyError:
            raise CaseFileError(f"{path}: claim {i}: unknown row {item.get('row')!r}") from None
        except (ValueError, TypeError) as e:
            raise CaseFileError(f"{path}: claim {i}: {e}") from None
        claims.append(c)
    return claims


def write_claims(path, claims: Iterable[Claim], producer: str) -> int:
    items = [c.to_json() for c in claims]
    Path(path).write_text(json.dumps({"format": FORMAT, "producer": producer, "claims": items},
                                     indent=1) + "\n")
    return len(items)
