"""Closest-point projection (``query.hpp``): ``ProjectionScratch``, ``TryProjectPoint``,
``ProjectPointApproximate``.

The search is the spec's branch and bound over control-hull boxes. Each span starts as one
parameter interval ``[0, 1]``; the span starts ``(k, 0)`` and an open path's terminal endpoint
``(n - 1, 1)`` are the first candidates. Every iteration takes the live interval with the
smallest lower bound (ties: earlier span, then smaller ``u0``), splits it at its midpoint and
evaluates the midpoint as a new candidate. The search stops when ``best candidate - smallest
live lower bound`` is at most the path's ``projection_gap``.

Certified arithmetic (``reference.fp`` outward rounding only):

* The query point's chunk-relative coordinates ``q = point - origin`` are enclosed in
  ``[sub_lo, sub_hi]`` per component (the subtraction is not trusted to be exact).
* A whole span's controls are its float32 controls, read exactly. A sub-interval's controls
  are *computed* blossom values (``kernel.cubic_blossom`` in float64, the subsegment's
  control points), within :func:`subsegment_error_bound` of the exact ones.
* An interval's lower bound is the larger of two outward-rounded bounds of the distance from
  ``q`` to the exact sub-arc's control hull: the control box widened by that error (the spec's
  control-hull box), and a chord capsule (see ``_hull_lower``) that converges quadratically.
  An upper bound (a candidate's ``Distance``) is the outward-rounded largest distance from the
  enclosure of ``q`` to the enclosure of the exact curve point (exact at ``u = 0`` and
  ``u = 1``, where the kernel rounds nothing; widened by the same bound at a midpoint).

So for the returned result: ``LowerBound <= true minimum <= exact distance at Parameter <=
Distance`` and ``Distance - LowerBound <= Gap <= projection_gap`` (Certified).

Result rule: any candidate whose ``Distance - LowerBound`` fits the gap is acceptable; the
result is the earliest acceptable one by span, then parameter. Midpoints are interior, so an
exact joint is only ever a candidate as the outgoing span's ``u = 0``.

Implementation: the search (bounds, selection, candidates and the result rule) is one
compiled numba kernel working in the caller's scratch (docs/decisions.md "Projection: one
compiled search"); ``reference.fp``'s outward-rounding helpers are compiled into it as they
are, and its blossoms and norms are ``kernel.cubic_blossom`` and ``fp.hypot_lo``/``hypot_hi``
to the bit (tested). The search is compiled on first use, or loaded from the on-disk cache
(``reference.jitcache``), whose key covers every source of this package and the recorded
blossom's text, so a change to ``reference.fp`` always takes effect. An interval whose box bound already exceeds the
best candidate's Distance keeps that bound alone: it can never be the smallest, so its capsule
could change nothing.

Precision (``UnsupportedPrecision``): before any work, when the widening every bound carries
at this point, ``hypot(width of q's enclosure + 2 * subsegment_error_bound(E))`` with E the
path's largest control magnitude, is at least ``projection_gap`` (the gap could be met only by
luck), or when ``|q|`` exceeds ``2**500`` (squares would overflow); during the search, when
the interval to split has no float64 midpoint strictly inside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import fp
from .error_model import subsegment_error_bound
from .fp import U64, add_hi, add_lo, div_hi, div_lo, hypot_hi, mul_hi, mul_lo, sqrt_hi, sqrt_lo, sub_hi, sub_lo
from .fused import row_kernel
from .jitcache import jit, jitable
from .path import PathView
from .status import (
    GeometryStatus,
    GuaranteeClass,
    Outcome,
    SegmentParameter,
    failure,
    is_int,
    success,
)

__all__ = [
    "MAX_ITERATIONS",
    "MAX_QUERY_MAGNITUDE",
    "MAX_SCRATCH_ENTRIES",
    "ProjectionQuery",
    "ProjectionResult",
    "ProjectionScratch",
    "compute_projection_scratch_capacity",
    "precision_floor",
    "project_point_approximate",
    "try_project_point",
]

MAX_ITERATIONS = 2**31 - 1  # the engine's 32-bit counts, as WorkLimits
MAX_SCRATCH_ENTRIES = 2**31 - 1
MAX_QUERY_MAGNITUDE = 2.0**500  # |q|^2 stays far below the float64 range

# reference.fp's outward-rounding helpers, compiled into the search as they are (numba compiles
# their own source when the kernel calls them): one implementation of Certified arithmetic.
for _helper in (fp.down, fp.up, fp.add_lo, fp.add_hi, fp.sub_lo, fp.sub_hi, fp.mul_lo, fp.mul_hi,
                fp.div_lo, fp.div_hi, fp.sqrt_lo, fp.sqrt_hi):
    jitable(_helper)

_PRODUCT_UNDERFLOW = 4.0 * 2.0**-1074
# |x*| from the norm of x = fl(x*) (componentwise relative error u'): factors with margin.
_SHRINK = 1.0 - 4.0 * U64
_GROW = 1.0 + 4.0 * U64


# --- Scratch, query, result ------------------------------------------------------------------


class ProjectionScratch:
    """``ProjectionScratch``: preallocated work arrays of one capacity, reserved once.

    A query needs ``span count + 1 + max_iterations`` entries
    (:func:`compute_projection_scratch_capacity`): one interval per span plus one per split,
    and one candidate per span start, terminal endpoint and split. Queries work inside these
    arrays and never grow them.

    Attributes:
        capacity: entries reserved (0 until :meth:`try_reserve`).
    """

    __slots__ = (
        "cand_span",
        "cand_u",
        "cand_ub",
        "capacity",
        "iv_lb",
        "iv_span",
        "iv_u0",
        "iv_u1",
        "mask",
        "work",
    )

    def __init__(self):
        self.capacity = 0
        self._allocate(0)
        self.work = np.zeros((7, 3), dtype=np.float64)  # one split's seven blossom values

    def _allocate(self, n: int) -> None:
        self.iv_span = np.zeros(n, dtype=np.intp)
        self.iv_u0 = np.zeros(n, dtype=np.float64)
        self.iv_u1 = np.zeros(n, dtype=np.float64)
        self.iv_lb = np.zeros(n, dtype=np.float64)
        self.cand_span = np.zeros(n, dtype=np.intp)
        self.cand_u = np.zeros(n, dtype=np.float64)
        self.cand_ub = np.zeros(n, dtype=np.float64)
        self.mask = np.zeros(n, dtype=np.bool_)

    def _arrays(self) -> tuple:
        return (self.iv_span, self.iv_u0, self.iv_u1, self.iv_lb, self.cand_span, self.cand_u,
                self.cand_ub, self.mask)

    def try_reserve(self, capacity: int) -> Outcome:
        """``TryReserve``: make room for ``capacity`` entries (a no-op when it already has).
        The reserved capacity is Exact.

        Returns:
            ``Outcome(capacity)``; InvalidArgument unless ``capacity`` is an int in
            ``[0, MAX_SCRATCH_ENTRIES]``; BudgetExceeded when memory cannot be had (the
            previous arrays are kept).
        """
        if not _is_count(capacity, MAX_SCRATCH_ENTRIES):
            return failure(GeometryStatus.InvalidArgument,
                           f"capacity {capacity!r} must be an int in [0, {MAX_SCRATCH_ENTRIES}]",
                           field="capacity")
        capacity = int(capacity)
        if capacity <= self.capacity:
            return success(self.capacity)
        saved = self._arrays()
        try:
            self._allocate(capacity)
        except MemoryError:
            (self.iv_span, self.iv_u0, self.iv_u1, self.iv_lb, self.cand_span, self.cand_u,
             self.cand_ub, self.mask) = saved
            return failure(GeometryStatus.BudgetExceeded,
                           f"cannot reserve {capacity} projection entries", field="capacity",
                           value=float(capacity))
        self.capacity = capacity
        return success(capacity)


@dataclass(frozen=True)
class ProjectionQuery:
    """``ProjectionQuery``.

    Attributes:
        point: (3,) float64 query point in asset coordinates.
        max_iterations: splits the search may perform, an int in ``[0, MAX_ITERATIONS]``
            (0: the span starts and endpoint must already meet the gap).
    """

    point: object
    max_iterations: int


@dataclass(slots=True)
class ProjectionResult:
    """``ProjectionResult``: caller-owned and mutable, written whole only on success.

    Attributes:
        parameter: the returned point, earliest acceptable by span then u.
        distance: upper bound of the exact distance from the point to ``parameter``.
            Certified (strict); Approximate otherwise.
        lower_bound: lower bound of the global minimum distance. Certified.
        gap: upper bound of ``distance - lower_bound``. Certified.
        is_gap_met: ``gap <= projection_gap``.
        guarantee: Certified (gap met) or Approximate (``project_point_approximate`` out of
            work).
        iterations: splits performed.
    """

    parameter: SegmentParameter = field(default_factory=lambda: SegmentParameter(0, 0.0))
    distance: float = math.inf
    lower_bound: float = 0.0
    gap: float = math.inf
    is_gap_met: bool = False
    guarantee: GuaranteeClass = GuaranteeClass.Approximate
    iterations: int = 0


def _is_count(x, hi: int) -> bool:
    return is_int(x) and 0 <= x <= hi


def compute_projection_scratch_capacity(view: PathView, max_iterations: int) -> Outcome:
    """``ComputeProjectionScratchCapacity``: ``span count + 1 + max_iterations``. Exact.

    Returns:
        ``Outcome(capacity)``; InvalidArgument unless ``max_iterations`` is an int in
        ``[0, MAX_ITERATIONS]``.
    """
    if not isinstance(view, PathView):
        raise TypeError("view must be a PathView")
    if not _is_count(max_iterations, MAX_ITERATIONS):
        return failure(GeometryStatus.InvalidArgument,
                       f"max_iterations {max_iterations!r} must be an int in [0, {MAX_ITERATIONS}]",
                       field="max_iterations")
    return success(view.span_count + 1 + int(max_iterations))


# --- Certified bounds (compiled) ---------------------------------------------------------------
# The search runs in one compiled kernel (numba; docs/decisions.md "Projection: one compiled
# search"). Its Certified arithmetic is reference.fp's outward-rounded helpers themselves,
# compiled into the kernel (jitable above): no second copy of them. numba without fastmath
# keeps binary64 semantics and evaluation order (no fused multiply-adds), and
# error_model="numpy" gives IEEE inf/nan on a division by zero instead of an exception. The
# kernels are compiled on first use and cached on disk (reference/jitcache.py); their entries
# are stamped with the recorded blossom's text too (depends).

# kernel.cubic_blossom itself, recorded and compiled by reference/fused.py (the same operations
# in the same order, so the bits of the numpy kernel on F64): out[row] = f(t1, t2, t3).
_blossom_into = row_kernel("cubic_blossom", ("t1", "t2", "t3"))

_JIT = dict(error_model="numpy", nogil=True, depends=(_blossom_into,))
_NAN = math.nan


@jit(**_JIT)
def _norm_lo(x, y, z):
    """``reference.fp.hypot_lo`` of three components (the same operations in the same order)."""
    x, y, z = abs(x), abs(y), abs(z)
    return sqrt_lo(add_lo(add_lo(mul_lo(x, x), mul_lo(y, y)), mul_lo(z, z)))


@jit(**_JIT)
def _norm_hi(x, y, z):
    """``reference.fp.hypot_hi`` of three components."""
    x, y, z = abs(x), abs(y), abs(z)
    return sqrt_hi(add_hi(add_hi(mul_hi(x, x), mul_hi(y, y)), mul_hi(z, z)))


@jit(**_JIT)
def _box_lower(qlo, qhi, blo0, blo1, blo2, bhi0, bhi1, bhi2):
    """Lower bound of the distance between the boxes ``[qlo, qhi]`` and ``[blo, bhi]``: per
    component the outward-rounded separation, clamped at 0. Certified."""
    s0 = np.maximum(np.maximum(sub_lo(blo0, qhi[0]), sub_lo(qlo[0], bhi0)), 0.0)
    s1 = np.maximum(np.maximum(sub_lo(blo1, qhi[1]), sub_lo(qlo[1], bhi1)), 0.0)
    s2 = np.maximum(np.maximum(sub_lo(blo2, qhi[2]), sub_lo(qlo[2], bhi2)), 0.0)
    return _norm_lo(s0, s1, s2)


@jit(**_JIT)
def _product_error(S):
    """Bound of the rounding error of a cross product component (``a_i b_j - a_j b_i``, three
    roundings) or a dot product (``(a0 b0 + a1 b1) + a2 b2``, five roundings) of rounded
    differences ``a = fl(a*)``, ``b = fl(b*)`` of exact float64 points, given ``S`` (rounded up),
    the sum of the ``|a_i b_j|`` products it uses. With ``u`` the unit roundoff and
    ``|a - a*| <= u' |a|`` (``u' = u / (1 - u)``), each result is within ``(5u + 4u') S <= 10u S``
    of the exact one, plus ``4 * 2**-1074`` for subnormal products. Certified."""
    return add_hi(mul_hi(10.0 * U64, S), _PRODUCT_UNDERFLOW)


@jit(**_JIT)
def _cross_norm(y0, y1, y2, d0, d1, d2, upper):
    """A lower (or, with ``upper``, an upper) bound of ``|y* x d*|`` for the exact vectors whose
    rounded values are ``y``, ``d``: the cross product in the kernel's order, each component
    widened by :func:`_product_error`. Certified."""
    ay0, ay1, ay2, ad0, ad1, ad2 = abs(y0), abs(y1), abs(y2), abs(d0), abs(d1), abs(d2)
    c0, c1, c2 = abs(y1 * d2 - y2 * d1), abs(y2 * d0 - y0 * d2), abs(y0 * d1 - y1 * d0)
    e0 = _product_error(add_hi(mul_hi(ay1, ad2), mul_hi(ay2, ad1)))
    e1 = _product_error(add_hi(mul_hi(ay2, ad0), mul_hi(ay0, ad2)))
    e2 = _product_error(add_hi(mul_hi(ay0, ad1), mul_hi(ay1, ad0)))
    if upper:
        return _norm_hi(add_hi(c0, e0), add_hi(c1, e1), add_hi(c2, e2))
    return _norm_lo(np.maximum(sub_lo(c0, e0), 0.0), np.maximum(sub_lo(c1, e1), 0.0),
                    np.maximum(sub_lo(c2, e2), 0.0))


@jit(**_JIT)
def _dot(y0, y1, y2, d0, d1, d2):
    """``fl(y . d)`` in the kernel's order and the :func:`_product_error` bound of its error."""
    t = (y0 * d0 + y1 * d1) + y2 * d2
    return t, _product_error(add_hi(add_hi(mul_hi(abs(y0), abs(d0)), mul_hi(abs(y1), abs(d1))),
                                    mul_hi(abs(y2), abs(d2))))


@jit(**_JIT)
def _segment_lower(y0, y1, y2, z0, z1, z2, d0, d1, d2, dn_lo, dn_hi):
    """Lower bound of the distance from the exact point whose rounded differences to the
    chord's ends are ``y = X - A`` and ``z = X - B`` to the exact chord segment ``[A, B]`` (``d =
    B - A`` rounded; ``dn_lo <= |d*| <= dn_hi``). Certified.

    Cross products ``y x d``, ``z x d`` and dot products ``y . d``, ``z . d`` are within
    :func:`_product_error` of the exact ones, and ``|x*|`` lies within a factor ``1 -+ 4u`` of
    the norm of ``x = fl(x*)``. The bound is the endpoint's distance where the foot of the
    perpendicular is certainly outside the segment, else the line's (a lower bound in every
    case). Both bases are used, so that swapping the chord's ends changes nothing."""
    if not dn_lo > 0:  # a zero chord (B == A exactly) is a point: the endpoint's distance
        return mul_lo(_norm_lo(y0, y1, y2), _SHRINK)
    ta, ta_err = _dot(y0, y1, y2, d0, d1, d2)
    if add_hi(ta, ta_err) < 0:  # the foot is certainly before A
        return mul_lo(_norm_lo(y0, y1, y2), _SHRINK)
    tb, tb_err = _dot(z0, z1, z2, d0, d1, d2)
    if sub_lo(tb, tb_err) > 0:  # certainly after B
        return mul_lo(_norm_lo(z0, z1, z2), _SHRINK)
    return div_lo(np.maximum(_cross_norm(y0, y1, y2, d0, d1, d2, False),
                             _cross_norm(z0, z1, z2, d0, d1, d2, False)), dn_hi)


@jit(**_JIT)
def _segment_upper(y0, y1, y2, z0, z1, z2, d0, d1, d2, dn_lo, dn_hi):
    """Upper bound of the same distance (see :func:`_segment_lower`): the smaller endpoint
    distance, or the line's where the foot is certainly inside the segment. Certified."""
    a_hi = mul_hi(_norm_hi(y0, y1, y2), _GROW)
    if not dn_lo > 0:
        return a_hi
    b_hi = mul_hi(_norm_hi(z0, z1, z2), _GROW)
    ta, ta_err = _dot(y0, y1, y2, d0, d1, d2)
    tb, tb_err = _dot(z0, z1, z2, d0, d1, d2)
    if sub_lo(ta, ta_err) >= 0 and add_hi(tb, tb_err) <= 0:  # the foot is certainly inside
        line_hi = div_hi(np.minimum(_cross_norm(y0, y1, y2, d0, d1, d2, True),
                                    _cross_norm(z0, z1, z2, d0, d1, d2, True)), dn_lo)
        return np.minimum(np.minimum(a_hi, b_hi), line_hi)
    return np.minimum(np.minimum(a_hi, b_hi), np.inf)


@jit(**_JIT)
def _hull_lower(qlo, qhi, qc, qr, Q, e0, e1, e2, cut):
    """Lower bound of the distance from the exact query point to a cubic arc whose computed
    controls ``Q`` (4, 3) are within ``e`` per component of its exact controls. Certified.

    The arc lies in the convex hull of its exact controls. Two bounds of the distance to that
    hull, the larger is returned:

    * the box: the controls' box widened by ``e`` (the spec's control-hull box);
    * the chord capsule: ``Q1`` and ``Q2`` lie within ``delta`` of the chord segment
      ``[Q0, Q3]``, so the computed hull does too (the segment is convex), and the exact hull
      lies within ``|e|`` of the computed one: the distance is at least
      ``dist(q.c, segment) - delta - |e| - q.r``. ``delta`` shrinks quadratically with the
      interval and the segment distance tends to the curve's, so this bound converges
      quadratically, where the box's converges linearly.

    A box bound above ``cut`` (the best candidate's Distance, an upper bound of the minimum) is
    returned alone: such an interval is never the smallest, so its capsule could change nothing.
    """
    lb = _box_lower(qlo, qhi,
                    sub_lo(min(Q[0, 0], Q[1, 0], Q[2, 0], Q[3, 0]), e0),
                    sub_lo(min(Q[0, 1], Q[1, 1], Q[2, 1], Q[3, 1]), e1),
                    sub_lo(min(Q[0, 2], Q[1, 2], Q[2, 2], Q[3, 2]), e2),
                    add_hi(max(Q[0, 0], Q[1, 0], Q[2, 0], Q[3, 0]), e0),
                    add_hi(max(Q[0, 1], Q[1, 1], Q[2, 1], Q[3, 1]), e1),
                    add_hi(max(Q[0, 2], Q[1, 2], Q[2, 2], Q[3, 2]), e2))
    if lb > cut:
        return lb
    d0, d1, d2 = Q[3, 0] - Q[0, 0], Q[3, 1] - Q[0, 1], Q[3, 2] - Q[0, 2]
    dn_lo, dn_hi = mul_lo(_norm_lo(d0, d1, d2), _SHRINK), mul_hi(_norm_hi(d0, d1, d2), _GROW)
    q_lo = _segment_lower(qc[0] - Q[0, 0], qc[1] - Q[0, 1], qc[2] - Q[0, 2],
                          qc[0] - Q[3, 0], qc[1] - Q[3, 1], qc[2] - Q[3, 2], d0, d1, d2, dn_lo, dn_hi)
    h1 = _segment_upper(Q[1, 0] - Q[0, 0], Q[1, 1] - Q[0, 1], Q[1, 2] - Q[0, 2],
                        Q[1, 0] - Q[3, 0], Q[1, 1] - Q[3, 1], Q[1, 2] - Q[3, 2], d0, d1, d2, dn_lo, dn_hi)
    h2 = _segment_upper(Q[2, 0] - Q[0, 0], Q[2, 1] - Q[0, 1], Q[2, 2] - Q[0, 2],
                        Q[2, 0] - Q[3, 0], Q[2, 1] - Q[3, 1], Q[2, 2] - Q[3, 2], d0, d1, d2, dn_lo, dn_hi)
    delta = np.maximum(h1, h2)
    capsule = sub_lo(sub_lo(sub_lo(q_lo, delta), _norm_hi(e0, e1, e2)), qr)
    return np.maximum(lb, capsule)


@jit(**_JIT)
def _point_upper(qlo, qhi, blo0, blo1, blo2, bhi0, bhi1, bhi2):
    """Upper bound of the distance from the exact query point to any point of the box
    ``[blo, bhi]``. Certified."""
    f0 = np.maximum(abs(sub_lo(qlo[0], bhi0)), abs(sub_hi(qhi[0], blo0)))
    f1 = np.maximum(abs(sub_lo(qlo[1], bhi1)), abs(sub_hi(qhi[1], blo1)))
    f2 = np.maximum(abs(sub_lo(qlo[2], bhi2)), abs(sub_hi(qhi[2], blo2)))
    return _norm_hi(f0, f1, f2)


@jit(**_JIT)
def _far_first(x, y, z):
    """``(x, y, z)`` stably sorted by decreasing distance from 1/2 (exact for dyadic values)."""
    kx, ky, kz = -abs(x - 0.5), -abs(y - 0.5), -abs(z - 0.5)
    if ky < kx:
        x, y, kx, ky = y, x, ky, kx
    if kz < ky:
        y, z, ky, kz = z, y, kz, ky
        if ky < kx:
            x, y, kx, ky = y, x, ky, kx
    return x, y, z


@jit(**_JIT)
def _halves(P, a, m, b, out):
    """The controls of ``[a, m]`` and ``[m, b]`` into ``out`` (7, 3): the seven blossom values
    ``f(a,a,a), f(a,a,m), ..., f(b,b,b)`` of ``P`` (rows 0-3 the left half, 3-6 the right).

    Each blossom's arguments are applied farthest from 1/2 first. That order is the same for
    the mirrored parameters ``1 - t``, and with dyadic parameters ``1 - t`` is exact, so a span
    and its reversed copy give bit-identical values: the search treats mirror-symmetric paths
    symmetrically and its tie rule (earlier span first) then decides symmetric minima.
    """
    args = ((a, a, a), (a, a, m), (a, m, m), (m, m, m), (m, m, b), (m, b, b), (b, b, b))
    for r in range(7):
        t1, t2, t3 = _far_first(args[r][0], args[r][1], args[r][2])
        _blossom_into(P, t1, t2, t3, out, r)


# --- The search (compiled) ---------------------------------------------------------------------

_SUCCESS, _BUDGET, _RESOLUTION, _OVERFLOW = 0, 1, 2, 3


@jit(**_JIT)
def _earliest(spans, us, mask, count):
    """Index of the earliest entry by (span, u) among ``mask[:count]`` (-1 when none)."""
    j = -1
    for i in range(count):
        if mask[i] and (j < 0 or spans[i] < spans[j] or (spans[i] == spans[j] and us[i] < us[j])):
            j = i
    return j


@jit(**_JIT)
def _smallest(iv_span, iv_u0, iv_lb, m):
    """The live interval with the smallest lower bound; ties by earlier span, then u0."""
    i = 0
    for j in range(1, m):
        if iv_lb[j] < iv_lb[i] or (iv_lb[j] == iv_lb[i] and (iv_span[j] < iv_span[i] or (
                iv_span[j] == iv_span[i] and iv_u0[j] < iv_u0[i]))):
            i = j
    return i


@jit(**_JIT)
def _search(P, E, closed, qlo, qhi, qc, qr, gap, max_iterations,
            iv_span, iv_u0, iv_u1, iv_lb, cand_span, cand_u, cand_ub, mask, work):
    """The branch and bound over control-hull boxes, in the caller's scratch (capacity checked
    before; an overflow is reported, never written). ``P`` (n, 4, 3) float64 copies of the
    float32 controls, ``E`` (n, 3) their ``subsegment_error_bound``.

    Returns ``(status, lower_bound, iterations, candidates, pick, gap_reached, interval)``:
    ``pick`` the result's candidate index (the earliest acceptable one when the gap is met, else
    the earliest best one), ``interval`` the last one selected."""
    n = P.shape[0]
    cap = min(iv_span.shape[0], cand_span.shape[0], mask.shape[0])
    if n + (0 if closed else 1) > cap:  # never written out of bounds, whatever the caller checked
        return _OVERFLOW, 0.0, 0, 0, -1, np.inf, 0
    # Initial candidates: span starts and an open path's terminal endpoint, exact points.
    for k in range(n):
        cand_span[k], cand_u[k] = k, 0.0
        cand_ub[k] = _point_upper(qlo, qhi, P[k, 0, 0], P[k, 0, 1], P[k, 0, 2], P[k, 0, 0], P[k, 0, 1], P[k, 0, 2])
    c = n
    if not closed:
        cand_span[c], cand_u[c] = n - 1, 1.0
        cand_ub[c] = _point_upper(qlo, qhi, P[n - 1, 3, 0], P[n - 1, 3, 1], P[n - 1, 3, 2],
                                  P[n - 1, 3, 0], P[n - 1, 3, 1], P[n - 1, 3, 2])
        c += 1
    best = cand_ub[0]
    for j in range(1, c):
        best = min(best, cand_ub[j])
    # Initial intervals: whole spans with their exact control boxes (float32 controls: e = 0).
    for k in range(n):
        iv_span[k], iv_u0[k], iv_u1[k] = k, 0.0, 1.0
        iv_lb[k] = _hull_lower(qlo, qhi, qc, qr, P[k], 0.0, 0.0, 0.0, best)
    m = n
    it = 0
    while True:
        i = _smallest(iv_span, iv_u0, iv_lb, m)
        lbmin = iv_lb[i]
        reached = sub_hi(best, lbmin)
        if reached <= gap:
            status = _SUCCESS
            break
        if it >= max_iterations:
            status = _BUDGET
            break
        k, a, b = iv_span[i], iv_u0[i], iv_u1[i]
        mid = 0.5 * (a + b)
        if not (a < mid and mid < b):
            status = _RESOLUTION
            break
        if m >= cap or c >= cap:
            return _OVERFLOW, lbmin, it, c, -1, reached, i
        _halves(P[k], a, mid, b, work)
        e0, e1, e2 = E[k, 0], E[k, 1], E[k, 2]
        iv_u1[i], iv_lb[i] = mid, _hull_lower(qlo, qhi, qc, qr, work[0:4], e0, e1, e2, best)
        iv_span[m], iv_u0[m], iv_u1[m] = k, mid, b
        iv_lb[m] = _hull_lower(qlo, qhi, qc, qr, work[3:7], e0, e1, e2, best)
        x, y, z = work[3, 0], work[3, 1], work[3, 2]  # f(mid, mid, mid) = B(mid)
        ub = _point_upper(qlo, qhi, sub_lo(x, e0), sub_lo(y, e1), sub_lo(z, e2),
                          add_hi(x, e0), add_hi(y, e1), add_hi(z, e2))
        cand_span[c], cand_u[c], cand_ub[c] = k, mid, ub
        m += 1
        c += 1
        best = min(best, ub)
        it += 1
    # The result: any candidate whose Distance - LowerBound fits the gap is acceptable; the
    # earliest acceptable one by span, then u. Out of work: the earliest best one.
    for j in range(c):
        mask[j] = sub_hi(cand_ub[j], lbmin) <= gap if status == _SUCCESS else cand_ub[j] == best
    return status, lbmin, it, c, _earliest(cand_span, cand_u, mask, c), reached, i


# --- The query point ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Point:
    """The enclosed chunk-relative query point: ``[lo, hi]`` per component, and ``c = fl(point -
    origin)`` with ``|exact - c| <= r`` (Euclidean)."""

    lo: np.ndarray
    hi: np.ndarray
    c: np.ndarray
    r: float


def _enclose_point(point, origin) -> _Point:
    lo, hi, c = sub_lo(point, origin), sub_hi(point, origin), point - origin
    return _Point(lo, hi, c, float(hypot_hi(np.maximum(sub_hi(hi, c), sub_hi(c, lo)))))


def _check_arguments(view, query, scratch, result) -> Outcome:
    for name, obj, kind in (("view", view, PathView), ("query", query, ProjectionQuery),
                            ("scratch", scratch, ProjectionScratch), ("result", result, ProjectionResult)):
        if not isinstance(obj, kind):
            raise TypeError(f"{name} must be a {kind.__name__}, not {type(obj).__name__}")
    try:
        point = np.array(query.point, dtype=np.float64)
    except (TypeError, ValueError):
        point = None
    if point is None or point.shape != (3,) or not np.all(np.isfinite(point)):
        return failure(GeometryStatus.InvalidArgument, "point must be three finite float64 values",
                       field="point")
    cap = compute_projection_scratch_capacity(view, query.max_iterations)
    if not cap.ok:
        return cap
    if scratch.capacity < cap.value:
        return failure(GeometryStatus.CapacityExceeded,
                       f"scratch holds {scratch.capacity} entries; {view.span_count} spans and "
                       f"{query.max_iterations} iterations need {cap.value}",
                       field="scratch", value=float(cap.value))
    return success(point)


def precision_floor(view: PathView, q_lo, q_hi) -> float:
    """The rounding slack every bound carries at a query point: ``hypot`` over components of
    ``(q_hi - q_lo) + 2 * subsegment_error_bound(E)``, E the path's largest control magnitude
    per component. Strict projection is UnsupportedPrecision when this is not below the gap.
    Certified (rounded up)."""
    return _floor(subsegment_error_bound(view.controls), q_lo, q_hi)


def _floor(E, q_lo, q_hi) -> float:
    e = E.reshape(-1, 3).max(axis=0)
    return float(hypot_hi(add_hi(sub_hi(q_hi, q_lo), mul_hi(2.0, e))))


def _project(view, query, scratch, result, strict: bool) -> Outcome:
    checked = _check_arguments(view, query, scratch, result)
    if not checked.ok:
        return checked
    point = checked.value
    gap = float(view.tolerance.projection_gap)
    with np.errstate(over="ignore"):
        far = not np.max(np.abs(point - view.origin)) <= MAX_QUERY_MAGNITUDE
    if far:
        return failure(GeometryStatus.UnsupportedPrecision,
                       "the chunk-relative query point exceeds 2**500; its squared distance "
                       "would overflow", field="point")
    q = _enclose_point(point, view.origin)
    P = view.controls.astype(np.float64)  # the float32 controls, exactly
    E = subsegment_error_bound(P)  # (n, 3): each span's blossom error bound
    floor = _floor(E, q.lo, q.hi)
    if strict and not floor < gap:
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"rounding slack {floor!r} at this point is not below projection_gap "
                       f"{gap!r}; choose a nearer chunk origin or a larger gap",
                       field="projection_gap", value=floor)
    status, lb, it, _count, j, reached, i = _search(
        P, E, bool(view.is_closed), q.lo, q.hi, q.c, q.r, gap, int(query.max_iterations),
        *scratch._arrays(), scratch.work)
    if status == _OVERFLOW:  # the capacity check above makes this unreachable
        raise RuntimeError("projection scratch overflow: the capacity formula and the search disagree")
    met = status == _SUCCESS
    if strict and not met:
        if status == _BUDGET:
            return failure(GeometryStatus.BudgetExceeded,
                           f"gap {float(reached)!r} after {it} iterations exceeds projection_gap {gap!r}",
                           field="max_iterations", achieved=float(reached))
        k, a, b = int(scratch.iv_span[i]), float(scratch.iv_u0[i]), float(scratch.iv_u1[i])
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"span {k}: [{a!r}, {b!r}] has no float64 midpoint; gap {float(reached)!r} "
                       f"cannot reach {gap!r}", field="projection_gap", achieved=float(reached))
    distance = float(scratch.cand_ub[j])
    # Everything is computed; write the caller's result in one step.
    result.parameter = SegmentParameter(int(scratch.cand_span[j]), float(scratch.cand_u[j]))
    result.distance = distance
    result.lower_bound = float(lb)
    result.gap = float(sub_hi(distance, lb))
    result.is_gap_met = bool(met)
    result.guarantee = GuaranteeClass.Certified if met else GuaranteeClass.Approximate
    result.iterations = int(it)
    return success(result)


# --- Public entry points ---------------------------------------------------------------------


def try_project_point(view: PathView, query: ProjectionQuery, scratch: ProjectionScratch,
                      result: ProjectionResult) -> Outcome:
    """``TryProjectPoint``: the certified closest point of the path to ``query.point``.

    Args:
        view: the prepared path (its ``tolerance.projection_gap`` is the gap).
        query: point (asset coordinates) and iteration budget.
        scratch: reserved with at least :func:`compute_projection_scratch_capacity` entries.
        result: caller-owned; written only on success.

    Returns:
        ``Outcome(result)``. ``distance``, ``lower_bound`` and ``gap`` are Certified:
        ``lower_bound <= min <= |q - B(parameter)| <= distance`` and
        ``distance - lower_bound <= gap <= projection_gap``. Failures, with ``result`` and
        the caller's other state unchanged: InvalidArgument (nonfinite point, bad
        ``max_iterations``), CapacityExceeded (scratch too small, before any work),
        UnsupportedPrecision (see the module docstring), BudgetExceeded (the gap is not met
        after ``max_iterations`` splits; the diagnostic's ``achieved`` is the gap reached).
    """
    return _project(view, query, scratch, result, True)


def project_point_approximate(view: PathView, query: ProjectionQuery, scratch: ProjectionScratch,
                              result: ProjectionResult) -> Outcome:
    """``ProjectPointApproximate``: the same search, but out of work (iterations or float64
    resolution) it returns its earliest best candidate with ``is_gap_met = False`` and
    guarantee Approximate (``distance``, ``lower_bound`` and ``gap`` are then reported, not
    promised to fit the gap). When the gap is met the result is Certified, and equal to
    :func:`try_project_point`'s whenever that succeeds (the approximate search also runs
    where strict refuses a point below its precision floor, and may meet the gap there).

    Returns:
        ``Outcome(result)``; fails only for InvalidArgument, CapacityExceeded and a point
        beyond ``MAX_QUERY_MAGNITUDE`` (UnsupportedPrecision), with ``result`` unchanged.
    """
    return _project(view, query, scratch, result, False)
