"""The distance rows' two arc-length oracles: Arb's rigorous Gauss-Legendre integration
(``interval.arb_arclength``, the default: about 10 times faster per piece) cross-checked against
the Taylor oracle with its Cauchy remainder (``interval.arclength``).

Every piece either oracle is asked for (a whole span, a leaf, a partial span ``[0, u]``) is
enclosed by both whenever it is cross-checked (:data:`CROSS_CHECK`: every piece with a
zero-speed point or on a line, and a deterministic 1-in-8 sample of the others), and disjoint
enclosures are an ``OracleFault`` verdict, never a silent choice. Where Arb misses its width,
the Taylor enclosure is used. Precision and width are refined through :data:`BUDGET`
(docs/decisions.md "Arc length: the Arb oracle, and two oracles in the distance checkers").
"""

from __future__ import annotations

import functools
import zlib

import numpy as np

from interval.arb_arclength import enclose_arc_length_arb
from interval.arclength import enclose_arc_length
from interval.context import IV, lower, upper
from mpmath import iv

from ...decide import DEFAULT_BUDGET, enclosures_overlap
from ...model import Claim, enc, oracle_fault

__all__ = [
    "BUDGET",
    "CROSS_CHECK",
    "CROSS_PREC",
    "CROSS_WIDTH",
    "REL_WIDTH",
    "Enclosure",
    "OracleDisagreement",
    "arc_length",
    "enc_iv",
    "oracle_faults",
    "prefix_length",
]

# Interval precisions the checkers may spend, and the relative enclosure width asked at each.
BUDGET = DEFAULT_BUDGET
REL_WIDTH = {113: 1e-15, 256: 1e-24, 1024: 1e-40}

# The Taylor cross-check: its precision and width, and the deterministic sample of smooth pieces
# it covers (1 in ``sample``; docs/decisions.md "Arc length: two oracles").
CROSS_PREC, CROSS_WIDTH = 113, 1e-15
CROSS_CHECK = {"sample": 8}

class OracleDisagreement(Exception):
    """The Arb and Taylor oracles enclosed the same arc length in disjoint intervals."""

    def __init__(self, piece: str, arb_value, taylor_value):
        super().__init__(f"disjoint enclosures of {piece}")
        self.piece, self.arb, self.taylor = piece, arb_value, taylor_value


def _cross_checked(P: np.ndarray, u0: float, u1: float, kind: str) -> bool:
    """Every piece whose speed vanishes somewhere or that lies on a line (Arb's ``kind`` is not
    ``smooth``: there the Taylor oracle uses its crude zero-speed enclosures and Arb its exact
    factorization, so the two methods differ most), and any other piece when the crc32 of its
    controls and range is 0 modulo the sample (the same pieces in every run)."""
    if kind != "smooth":
        return True
    key = zlib.crc32(np.ascontiguousarray(P, dtype=np.float32).tobytes() + np.array([u0, u1], np.float64).tobytes())
    return key % CROSS_CHECK["sample"] == 0


def arc_length(P: np.ndarray, u0: float, u1: float, prec: int):
    """The arc length of ``[u0, u1]`` of the span ``P`` as an ``iv.mpf``: Arb's enclosure,
    cross-checked against the Taylor oracle where :data:`CROSS_CHECK` says (raises
    :class:`OracleDisagreement` when they are disjoint); the Taylor enclosure at ``prec`` when
    Arb misses its width. Certified."""
    P = np.ascontiguousarray(P, dtype=np.float32)
    return _arc_length(P.tobytes(), float(u0), float(u1), int(prec))


@functools.lru_cache(maxsize=1 << 15)
def _arc_length(key: bytes, u0: float, u1: float, prec: int):
    P = np.frombuffer(key, dtype=np.float32).reshape(4, 3)
    piece = f"[{u0!r}, {u1!r}] of span {P.tolist()}"
    a = enclose_arc_length_arb(P, u0, u1, prec, REL_WIDTH[prec])
    if _cross_checked(P, u0, u1, a.kind):
        t = enclose_arc_length(P, u0, u1, CROSS_PREC, CROSS_WIDTH)
        if a.value is not None and not enclosures_overlap(a.value, t.value):
            raise OracleDisagreement(piece, a.value, t.value)
    if a.value is not None and a.reached:
        return a.value
    t = enclose_arc_length(P, u0, u1, prec, REL_WIDTH[prec])
    if a.value is not None and not enclosures_overlap(a.value, t.value):
        raise OracleDisagreement(piece, a.value, t.value)
    return t.value if (a.value is None or t.reached) else a.value


def prefix_length(C: np.ndarray, k: int, u: float, prec: int):
    """The prefix arc length ``L(k, u)`` of the path with span controls ``C`` (iv.mpf). Certified."""
    with IV(prec).scope():
        total = iv.mpf(0)
        for j in range(k):
            total = total + arc_length(C[j], 0.0, 1.0, prec)
        return total + arc_length(C[k], 0.0, u, prec)


class Enclosure:
    """The shape ``oracles.explain`` reads: ``.value`` is the enclosure."""

    def __init__(self, value):
        self.value = value


def enc_iv(x) -> list:
    """An interval as ``[lower, upper]`` hex floats (outward)."""
    return [enc(lower(x)), enc(upper(x))]


def oracle_faults(check):
    """A checker whose oracles disagree answers ``OracleFault``, naming both enclosures."""

    @functools.wraps(check)
    def wrapped(claim: Claim):
        try:
            return check(claim)
        except OracleDisagreement as e:
            return oracle_fault(claim, {"arb": enc_iv(e.arb), "taylor": enc_iv(e.taylor)},
                                note=f"Arb and Taylor enclosures of {e.piece} are disjoint")

    return wrapped
