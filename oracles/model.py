"""Claims, verdicts and their exact JSON encoding.

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
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from reference.status import GuaranteeClass

__all__ = [
    "VerdictKind",
    "Claim",
    "Verdict",
    "verified",
    "violated",
    "undecided",
    "enc",
    "dec",
    "dec_array",
    "dec_q",
]


class VerdictKind(enum.Enum):
    Verified = "Verified"
    Violated = "Violated"
    Undecided = "Undecided"


def enc(x: Any) -> Any:
    """Exact JSON form of floats (hex), rationals (``"p/q"``), arrays and containers."""
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


def dec(s: Any) -> float:
    """A float64 from :func:`enc`'s text (hex, ``nan``, ``inf``) or a JSON number."""
    if isinstance(s, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(s, (int, float)):
        return float(s)
    if not isinstance(s, str):
        raise TypeError(f"expected an encoded float, got {type(s).__name__}")
    if s in ("nan", "inf", "-inf"):
        return float(s)
    if "/" in s:
        q = Fraction(s)
        v = float(q)
        if Fraction(v) != q:
            raise ValueError(f"rational {s} is not a float64")
        return v
    return float.fromhex(s)


def dec_array(s: Any, dtype=np.float64) -> np.ndarray:
    """A numpy array from nested lists of encoded floats; ``dtype`` must hold them exactly."""
    if isinstance(s, list):
        arr = np.array([dec_array(v, np.float64) for v in s], dtype=np.float64) if s else np.zeros(0)
    else:
        arr = np.array(dec(s), dtype=np.float64)
    out = arr.astype(dtype)
    if not np.array_equal(out.astype(np.float64), arr, equal_nan=True):
        raise ValueError(f"value not exactly representable as {np.dtype(dtype).name}")
    return out


def dec_q(s: Any):
    """An exact gmpy2.mpq from encoded text (hex float or ``p/q``)."""
    import gmpy2

    if isinstance(s, str) and "/" in s:
        q = Fraction(s)
        return gmpy2.mpq(q.numerator, q.denominator)
    v = dec(s)
    if not math.isfinite(v):
        raise ValueError("nonfinite value has no rational value")
    return gmpy2.mpq(v)


@dataclass(frozen=True)
class Claim:
    """One assertion of an implementation about one guarantee row.

    Attributes:
        row: stable row id (``oracles.rows.ROWS``), for example ``"path.control_boxes"``.
        guarantee: the guarantee class the result claims.
        value: the claimed value, JSON-encoded with :func:`enc`.
        inputs: the exact inputs needed to recompute the truth, JSON-encoded.
        model: for Rounded claims, the error model's name and bound (encoded), else None.
    """

    row: str
    guarantee: GuaranteeClass
    value: Any
    inputs: dict
    model: Optional[dict] = None

    def to_json(self) -> dict:
        out = {"row": self.row, "guarantee": self.guarantee.value, "value": self.value,
               "inputs": self.inputs}
        if self.model is not None:
            out["model"] = self.model
        return out

    @staticmethod
    def from_json(d: dict) -> "Claim":
        if not isinstance(d, dict):
            raise ValueError("a claim must be a JSON object")
        missing = {"row", "guarantee", "value", "inputs"} - d.keys()
        if missing:
            raise ValueError(f"claim lacks {sorted(missing)}")
        if not isinstance(d["inputs"], dict):
            raise ValueError("claim inputs must be an object")
        return Claim(str(d["row"]), GuaranteeClass(d["guarantee"]), d["value"], d["inputs"],
                     d.get("model"))


@dataclass(frozen=True)
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
    """

    kind: VerdictKind
    claim: Claim
    measure: Optional[str] = None
    measured: Optional[float] = None
    prec: Optional[int] = None
    witness: Optional[dict] = None
    enclosure: Optional[list] = None
    note: str = ""
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"kind": self.kind.value, "row": self.claim.row, "measure": self.measure,
               "measured": self.measured, "prec": self.prec, "note": self.note}
        if self.witness is not None:
            out["witness"] = self.witness
        if self.enclosure is not None:
            out["enclosure"] = self.enclosure
        if self.extra:
            out["extra"] = self.extra
        return out


def verified(claim: Claim, *, measure=None, measured=None, prec=None, note="", **extra) -> Verdict:
    return Verdict(VerdictKind.Verified, claim, measure, _f(measured), prec, note=note, extra=extra)


def violated(claim: Claim, witness: dict, *, measure=None, measured=None, prec=None, note="",
             **extra) -> Verdict:
    return Verdict(VerdictKind.Violated, claim, measure, _f(measured), prec, witness=witness,
                   note=note, extra=extra)


def undecided(claim: Claim, enclosure, *, measure=None, measured=None, prec=None, note="",
              **extra) -> Verdict:
    return Verdict(VerdictKind.Undecided, claim, measure, _f(measured), prec,
                   enclosure=enclosure, note=note, extra=extra)


def _f(x):
    return None if x is None else float(x)
