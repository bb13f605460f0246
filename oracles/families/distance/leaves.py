"""The spec's build rule replayed exactly: how many leaves a distance map needs, and so whether
a TryBuildDistanceMap request must succeed or exhaust a limit.

Spec 002 Distance maps fixes the algorithm: "TryBuildDistanceMap brackets each leaf's arc
length between its chord and its control-polygon length, using outward rounding. It splits the
leaf with the largest gap at its parameter midpoint, with ties broken by earlier span and
parameter, until the whole-path gap TotalUpper - TotalLower is at most the path's
DistanceError." The replay runs that rule on the *exact* leaves: each leaf's sub-curve controls
are exact rationals (the power basis of the float32 span re-expanded on ``[u0, u1]``), its
chord and control-polygon lengths are enclosed by integer square roots, so its exact gap
``polygon - chord`` lies in a known ``[lo, hi]``. An implementation's gap is that exact gap
widened by its outward rounding; the replay allows each leaf ``A = 2^-40 (M + polygon)`` of
widening (M the span's largest float32 control magnitude; our fast path's a-priori widening
is below ``2^-44 M``, docs/decisions.md "Distance maps: the leaf counts requests demand").

Where the rule's choice is not decided at that precision (two leaves whose gaps may be ordered
either way, or a total within the allowance of DistanceError), the replay follows every choice,
except between *twins*: leaves of spans whose prepared float32 controls are the same bits, over
the same parameters. A leaf's bracket is its chord and control-polygon length, a function of the
leaf alone, so twins have the same computed gap in any implementation, and the spec breaks that
tie: the earlier span's leaf is split first (docs/decisions.md "Distance maps: split order at
ties and the leaves a map may hold"). A request's expected status is decided only when every run
ends the same way, and is ``either`` otherwise. The limits are checked as docs/decisions.md
"Distance maps: the build" orders them, before each split: ``max_subdivisions`` (splits done),
``max_leaves`` (leaves after the split), ``max_depth`` (the chosen leaf's depth),
``max_prepared_bytes`` (``distance_map_bytes``); ``max_leaves`` and ``max_prepared_bytes`` also
before any work.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction

import gmpy2
import numpy as np

__all__ = ["ALLOWANCE", "NO_LIMITS", "Replay", "Span", "leaf_gap", "map_bytes", "replay_build"]

ALLOWANCE = gmpy2.mpq(1, 2**40)
_mpq = gmpy2.mpq
_SQRT_BITS = 80  # relative precision of the length enclosures
_MAX_STEPS = 20000  # leaf states visited over every run of one replay; past it: undecided
_MAX_TIES = 4  # leaves that may have the largest gap at once; more: undecided (the orders explode)
# WorkLimits that never bind a replay: what the rule ends with on its own (a built map's leaves).
NO_LIMITS = {"max_leaves": 1 << 16, "max_subdivisions": 1 << 16, "max_depth": 52, "max_prepared_bytes": 1 << 40}


def map_bytes(leaves: int, spans: int) -> int:
    """``distance_map_bytes`` of docs/decisions.md "Distance maps: the build": 68 bytes a leaf,
    24 for the closing prefix triple, 8 per span offset (n + 1 of them)."""
    return 68 * leaves + 24 + 8 * (spans + 1)


def _sqrt_bounds(q):
    """``(lo, hi)`` exact rationals with ``lo <= sqrt(q) <= hi``, relatively within 2^-80."""
    if q == 0:
        return _mpq(0), _mpq(0)
    num, den = gmpy2.mpz(q.numerator), gmpy2.mpz(q.denominator)
    x = num * den  # sqrt(q) = sqrt(num den) / den
    shift = max(0, _SQRT_BITS - int(gmpy2.bit_length(x)) // 2)
    s = gmpy2.isqrt(x << (2 * shift))
    scale = den << shift
    lo = _mpq(s, scale)
    hi = lo if s * s == (x << (2 * shift)) else _mpq(s + 1, scale)
    return lo, hi


class Span:
    """A float32 span in the power basis ``c0 + c1 u + c2 u^2 + c3 u^3`` (exact rationals)."""

    def __init__(self, P):
        rows = [[_mpq(Fraction(float(x))) for x in P[r]] for r in range(4)]
        p0, p1, p2, p3 = rows
        self.c1 = [3 * (b - a) for a, b in zip(p0, p1)]
        self.c2 = [3 * (a - 2 * b + c) for a, b, c in zip(p0, p1, p2)]
        self.c3 = [d - a + 3 * (b - c) for a, b, c, d in zip(p0, p1, p2, p3)]
        self.M = max(abs(x) for r in rows for x in r)
        # The same coefficients as integers over 2^S (float32 values are dyadic): leaf_gap works
        # in integers and makes one rational per square root, the same rationals, far faster.
        self.S = max(int(x.denominator).bit_length() - 1 for c in (self.c1, self.c2, self.c3) for x in c)
        self.k1, self.k2, self.k3 = ([gmpy2.mpz(x * (1 << self.S)) for x in c] for c in (self.c1, self.c2, self.c3))


def leaf_gap(span: Span, u0, u1):
    """``(lo, hi, poly_hi)``: the exact gap ``polygon - chord`` of the sub-curve on ``[u0, u1]``
    lies in ``[lo, hi]``; ``poly_hi`` bounds its control polygon's length. The sub-curve's
    Bezier legs are ``d1 / 3``, ``(d1 + d2) / 3``, ``(d1 + 2 d2 + 3 d3) / 3`` and its chord
    ``d1 + d2 + d3`` (``d_k`` the power coefficients re-expanded on the leaf)."""
    # u0 = A / 2^D and u1 - u0 = H / 2^D (dyadic); every d_k is an integer over Z = 2^(S + 3 D):
    # d1 Z = (c1 2^2D + 2 c2 A 2^D + 3 c3 A^2) H, d2 Z = (c2 2^D + 3 c3 A) H^2, d3 Z = c3 H^3.
    n0, m0 = float(u0).as_integer_ratio()
    n1, m1 = float(u1).as_integer_ratio()
    D = max(m0, m1).bit_length() - 1
    A, H = gmpy2.mpz(n0) << (D - m0.bit_length() + 1), (gmpy2.mpz(n1) << (D - m1.bit_length() + 1))
    H -= A
    one, two = gmpy2.mpz(1) << D, gmpy2.mpz(1) << (2 * D)
    H2 = H * H
    d1 = [(c1 * two + 2 * c2 * A * one + 3 * c3 * A * A) * H for c1, c2, c3 in zip(span.k1, span.k2, span.k3)]
    d2 = [(c2 * one + 3 * c3 * A) * H2 for c2, c3 in zip(span.k2, span.k3)]
    d3 = [c3 * H2 * H for c3 in span.k3]
    z2 = gmpy2.mpz(1) << (2 * (span.S + 3 * D))  # Z^2
    legs = (d1, [x + y for x, y in zip(d1, d2)], [x + 2 * y + 3 * z for x, y, z in zip(d1, d2, d3)])  # 3 Z legs
    plo = phi = _mpq(0)
    for leg in legs:
        lo, hi = _sqrt_bounds(_mpq(sum(x * x for x in leg), 9 * z2))
        plo, phi = plo + lo, phi + hi
    clo, chi = _sqrt_bounds(_mpq(sum((x + y + z) ** 2 for x, y, z in zip(d1, d2, d3)), z2))
    return max(plo - chi, _mpq(0)), phi - clo, phi


@dataclass
class Replay:
    """What the spec's rule can end in for one path, DistanceError and limits.

    Attributes:
        statuses: the statuses some run ends in (``Success``, ``BudgetExceeded``).
        finals: per successful run ``(leaves, splits, deepest depth)``.
        leaves: every leaf ``(span, u0, u1)`` of some successful run's map.
        decided: False when the replay gave up (its step budget spent): then any outcome is
            possible and the expectation is ``either``.
        why: what was undecided, for the expectation's text.
    """

    statuses: set = field(default_factory=set)
    finals: set = field(default_factory=set)
    leaves: set = field(default_factory=set)
    decided: bool = True
    why: list = field(default_factory=list)


class _State:
    __slots__ = ("hhi", "hlo", "leaves", "splits", "sum_hi", "sum_lo")

    def __init__(self):
        self.leaves: dict = {}  # key (span, u0, u1) -> (lo, hi + allowance, depth)
        self.hlo: list = []  # (-lo, key)
        self.hhi: list = []  # (-(hi + allowance), key)
        self.sum_lo = _mpq(0)
        self.sum_hi = _mpq(0)
        self.splits = 0

    def copy(self) -> _State:
        s = _State()
        s.leaves, s.hlo, s.hhi = dict(self.leaves), list(self.hlo), list(self.hhi)
        s.sum_lo, s.sum_hi, s.splits = self.sum_lo, self.sum_hi, self.splits
        return s

    def add(self, key, lo, hi, depth) -> None:
        self.leaves[key] = (lo, hi, depth)
        heapq.heappush(self.hlo, (-lo, key))
        heapq.heappush(self.hhi, (-hi, key))
        self.sum_lo += lo
        self.sum_hi += hi

    def remove(self, key) -> int:
        lo, hi, depth = self.leaves.pop(key)
        self.sum_lo -= lo
        self.sum_hi -= hi
        return depth

    def candidates(self) -> list:
        """The leaves that may have the largest computed gap: every leaf whose widened upper
        end reaches the largest lower end (ties by span and parameter among exactly equal
        computed gaps are then among them too)."""
        while self.hlo[0][1] not in self.leaves:
            heapq.heappop(self.hlo)
        top = -self.hlo[0][0]
        out, seen = [], []
        while self.hhi and -self.hhi[0][0] >= top:
            item = heapq.heappop(self.hhi)
            if item[1] in self.leaves:
                out.append(item[1])
                seen.append(item)
            # else a split leaf's entry, dropped for good: a split leaf never returns to this
            # state, and its entry (a gap among the largest, or it would not have been split)
            # would otherwise be popped and pushed back by every later call
        for item in seen:
            heapq.heappush(self.hhi, item)
        return sorted(set(out))


def _earliest_twins(cands: list, twin: list) -> list:
    """The candidates less every leaf whose twin in an earlier span is a candidate too: the
    same computed gap, and the spec's tie goes to the earlier span. ``cands`` in key order."""
    kept, classes = [], set()
    for key in cands:
        cls = (twin[key[0]], key[1], key[2])
        if cls not in classes:
            classes.add(cls)
            kept.append(key)
    return kept


# A leaf's widened gap is a function of its span's controls and its parameters alone, and
# one map is replayed several times (its build request's expected status, its leaf claims'
# split order, needed_leaves): about half of a ledger's leaf_gap calls repeat one before them.
_SPANS: dict = {}
_GAPS: dict = {}
_GAPS_KEPT = 1 << 17  # about 40 MB at most (~310 bytes a leaf); emptied whole when full


def _widened_gap(raw: bytes, u0: float, u1: float) -> tuple:
    """``(lo, hi + ALLOWANCE (M + polygon))`` of the leaf ``[u0, u1]`` of the span whose controls
    are the float64 bytes ``raw`` (:func:`leaf_gap` widened by the replay's allowance). Exact."""
    key = (raw, u0, u1)
    got = _GAPS.get(key)
    if got is None:
        span = _SPANS.get(raw)
        if span is None:
            if len(_SPANS) >= _GAPS_KEPT:
                _SPANS.clear()
            span = _SPANS[raw] = Span(np.frombuffer(raw, dtype=np.float64).reshape(4, 3))
        lo, hi, poly = leaf_gap(span, u0, u1)
        if len(_GAPS) >= _GAPS_KEPT:
            _GAPS.clear()
        got = _GAPS[key] = (lo, hi + ALLOWANCE * (span.M + poly))
    return got


def replay_build(narrowed, distance_error: float, limits: dict, *, max_steps: int = _MAX_STEPS) -> Replay:
    """Replay the spec's build rule on the exact narrowed controls ``(n, 4, 3)`` (float32
    values) with the path's ``distance_error`` and these ``WorkLimits`` fields (valid integers;
    range checks are the caller's): every way the rule can end, within the allowance."""
    n = narrowed.shape[0]
    E = _mpq(Fraction(float(distance_error)))
    out = Replay()
    if n > limits["max_leaves"] or map_bytes(n, n) > limits["max_prepared_bytes"]:
        out.statuses.add("BudgetExceeded")
        return out
    # Each span's twin class: the first span with the same prepared controls, bit for bit.
    first_of: dict = {}
    twin = [first_of.setdefault(np.ascontiguousarray(narrowed[i], dtype=np.float32).tobytes(), i) for i in range(n)]
    # the controls' own values (float32 values in every caller), exactly, for the shared gaps
    raw = [np.ascontiguousarray(narrowed[i], dtype=np.float64).tobytes() for i in range(n)]

    def bounds(key):  # the shared gaps are the replay's only cache
        s, u0, u1 = key
        return _widened_gap(raw[s], u0, u1)

    start = _State()
    for i in range(n):
        lo, hi = bounds((i, 0.0, 1.0))
        start.add((i, 0.0, 1.0), lo, hi, 0)
    steps = 0
    todo = [start]
    seen: set = set()  # leaf sets already explored, once runs have parted (orders converge)
    while todo:
        st = todo.pop()
        while True:
            if out.why:
                state = frozenset(st.leaves)
                if state in seen:
                    break
                seen.add(state)
            steps += 1
            if steps > max_steps:
                out.decided = False
                out.why.append(f"the replay's budget of {max_steps} leaf states is spent")
                return out
            if st.sum_hi <= E:  # every implementation's total fits: the rule stops here
                out.statuses.add("Success")
                out.finals.add((len(st.leaves), st.splits, max(v[2] for v in st.leaves.values())))
                out.leaves.update(st.leaves)
                break
            if st.sum_lo <= E:  # within the allowance of DistanceError: stopping is possible too
                out.statuses.add("Success")
                out.finals.add((len(st.leaves), st.splits, max(v[2] for v in st.leaves.values())))
                out.leaves.update(st.leaves)
                out.why.append(f"at {len(st.leaves)} leaves the exact total gap lies within the rounding "
                               f"allowance of DistanceError")
            cands = _earliest_twins(st.candidates(), twin)
            if len(cands) > _MAX_TIES:
                out.decided = False
                out.why.append(f"at {len(st.leaves)} leaves {len(cands)} leaves may have the largest gap")
                return out
            if len(cands) > 1:
                out.why.append(f"at {len(st.leaves)} leaves {len(cands)} leaves may have the largest gap")
            nexts = []
            for j, key in enumerate(cands):
                s = st if j == len(cands) - 1 else st.copy()
                m = len(s.leaves)
                depth = s.leaves[key][2]
                if (s.splits >= limits["max_subdivisions"] or m + 1 > limits["max_leaves"]
                        or depth >= limits["max_depth"] or map_bytes(m + 1, n) > limits["max_prepared_bytes"]):
                    out.statuses.add("BudgetExceeded")
                    continue
                s.remove(key)
                sp, a, b = key
                mid = 0.5 * (a + b)  # exact: dyadic, depth <= 52
                for child in ((sp, a, mid), (sp, mid, b)):
                    lo, hi = bounds(child)
                    s.add(child, lo, hi, depth + 1)
                s.splits += 1
                nexts.append(s)
            if not nexts:
                break
            st = nexts.pop()
            todo.extend(nexts)
    return out


def needed_leaves(narrowed, distance_error: float) -> tuple | None:
    """``(leaves, splits, deepest depth)`` the rule ends with under no binding limit, when
    every run ends alike (None otherwise)."""
    r = replay_build(narrowed, distance_error, NO_LIMITS)
    if not r.decided or r.statuses != {"Success"} or len(r.finals) != 1:
        return None
    return next(iter(r.finals))
