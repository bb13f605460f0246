"""The truth of a projection claim: two independent oracles of the minimum distance.

``LowerBound <= min |q - B(u)|`` is decided by exact real-root isolation
(``interval.arb_projection``, the default: faster at equal rigour, docs/decisions.md "Projection:
two oracles") and cross-checked against the interval branch and bound (``interval.projection``):
disjoint or empty enclosures, opposite decisions, or an oracle that raises on a well-formed
claim are an oracle fault (the claim is not judged).
"""

from __future__ import annotations

import dataclasses
import functools

import gmpy2
import numpy as np

from interval.arb_projection import decide_lower_bound as arb_decide
from interval.arb_projection import sqrt_down, sqrt_up
from interval.projection import enclose_min_distance

from ...decide import Decision, enclosures_overlap, refine
from ...model import enc

__all__ = ["ARB_BUDGET", "BUDGET", "SPLITS", "Truth", "decide_lower_bound", "enclosure", "truth"]

# Interval precisions the branch and bound may spend, with the box splits allowed at each.
BUDGET = (113, 256)
SPLITS = {113: 4000, 256: 20000}
# Root-ball precisions of the exact root isolation (interval.arb_projection), in order.
ARB_BUDGET = (128, 256, 1024)


@dataclasses.dataclass(frozen=True)
class Truth:
    """Both oracles' answer to ``LowerBound <= min``: ``holds`` (three-valued), the precision
    that decided, bounds ``lo_sq <= min f <= hi_sq`` (the tighter of the two), a witness for a
    refutation, and an OracleFault's enclosures when the two disagree."""

    holds: bool | None
    prec: int
    lo_sq: object
    hi_sq: object
    witness: dict | None
    fault: dict | None
    splits: int


def truth(d) -> Truth:
    """Decide ``LowerBound <= min distance`` by exact real-root isolation (``interval.arb_projection``,
    the default: faster at equal rigour, docs/decisions.md "Projection: two oracles"), and
    cross-check its enclosure against the interval branch and bound (``interval.projection``):
    disjoint or empty enclosures, opposite decisions, or an oracle that raises on a well-formed
    claim are an oracle fault (the claim is not judged)."""
    lb = d.nums["lower_bound"]
    try:
        holds, a = arb_decide(d.controls, d.origin, d.point, lb, ARB_BUDGET)
    except _ORACLE_ERRORS as exc:
        return Truth(None, ARB_BUDGET[0], None, None, None, {"arb_root_isolation": f"raised {exc!r}"[:300]}, 0)
    try:
        b = _first_search(d.controls, d.origin, d.point, d.gap)
        bb = None
        if holds is None:  # the branch and bound decides what the balls could not (or reports)
            bb = refine(lambda prec: _bb_at(d, prec), BUDGET)
            holds, b = bb.holds, bb.enclosure
    except _ORACLE_ERRORS as exc:
        return Truth(None, BUDGET[0], None, None, None, {"interval_branch_and_bound": f"raised {exc!r}"[:300]}, 0)
    A, B = (a.lower_sq, a.upper_sq), (b.lower_sq, b.upper_sq)
    fault = None
    if A[0] > A[1] or B[0] > B[1] or not enclosures_overlap(A, B):
        fault = {"arb_root_isolation": [enc(A[0]), enc(A[1])], "interval_branch_and_bound": [enc(B[0]), enc(B[1])]}
    elif bb is None and b.decided is not None and holds is not None and b.decided != holds:
        fault = {"arb_root_isolation": {"holds": holds}, "interval_branch_and_bound": {"holds": b.decided}}
    if fault is not None:
        return Truth(None, a.prec, None, None, None, fault, b.splits)
    lo, hi = max(A[0], B[0]), min(A[1], B[1])
    witness = None
    if holds is False:  # a replayable curve point closer than LowerBound, float64 u preferred
        T2 = gmpy2.mpq(lb) ** 2
        (span, u), f = min(((a.witness64, a.upper64_sq), (a.witness, a.upper_sq), (b.witness, b.upper_sq)),
                           key=lambda w: (not w[1] < T2, not isinstance(w[0][1], float)))
        witness = {"span": span, "u": enc(u), "distance_sq_upper": enc(f)}
    return Truth(holds, a.prec if bb is None else bb.prec, lo, hi, witness, None, b.splits)


def _first_search(controls, origin, point, gap: float):
    """The branch and bound's first search (no threshold: it does not depend on the claimed
    LowerBound), shared by the claims of one query (its strict and approximate answers)."""
    C = np.ascontiguousarray(controls, dtype=np.float32)
    o, p = (np.ascontiguousarray(x, dtype=np.float64) for x in (origin, point))
    prec = BUDGET[0]
    return _first_search_of(C.tobytes(), C.shape[0], o.tobytes(), p.tobytes(), float(gap), prec, SPLITS[prec])


@functools.lru_cache(maxsize=4096)
def _first_search_of(controls: bytes, n: int, origin: bytes, point: bytes, gap: float, prec: int, splits: int):
    C = np.frombuffer(controls, dtype=np.float32).reshape(n, 4, 3).copy()
    o, p = (np.frombuffer(x, dtype=np.float64).copy() for x in (origin, point))
    return enclose_min_distance(C, o, p, prec, target=_target(gap), max_splits=splits)


def _target(gap: float) -> float:
    """The branch and bound's enclosure width: a sixteenth of the requested gap, and never 0 (a
    gap below 2^-1070 would round it to 0, which the search refuses): the smallest subnormal."""
    return max(gap / 16, 2.0**-1074)


# What an oracle may raise on a well-formed claim only if it is broken (inputs are validated
# before): an oracle fault, never a malformed claim.
_ORACLE_ERRORS = (ValueError, ArithmeticError, TypeError, IndexError, KeyError)


def decide_lower_bound(controls, origin, point, gap, lb) -> Decision:
    """``LowerBound <= min distance`` by the interval branch and bound alone (113, then 256 bits),
    its enclosure a :class:`interval.projection.MinDistanceEnclosure`: the chain
    ``oracles.explain`` shows for a strict claim (the checkers use :func:`_truth`)."""

    def at(prec):
        e = enclose_min_distance(controls, origin, point, prec, threshold=max(lb, 0.0),
                                 target=_target(gap), max_splits=SPLITS[prec])
        return Decision(e.decided, prec, e)

    return refine(at, BUDGET)


def _bb_at(d, prec: int) -> Decision:
    e = enclose_min_distance(d.controls, d.origin, d.point, prec, threshold=max(d.nums["lower_bound"], 0.0),
                             target=_target(d.gap), max_splits=SPLITS[prec])
    return Decision(e.decided, prec, e)


def enclosure(t: Truth) -> list:
    return [enc(sqrt_down(t.lo_sq)), enc(sqrt_up(t.hi_sq))]
