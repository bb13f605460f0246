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

Precision (``UnsupportedPrecision``): before any work, when the widening every bound carries
at this point, ``hypot(width of q's enclosure + 2 * subsegment_error_bound(E))`` with E the
path's largest control magnitude, is at least ``projection_gap`` (the gap could be met only by
luck), or when ``|q|`` exceeds ``2**500`` (squares would overflow); during the search, when
the interval to split has no float64 midpoint strictly inside it.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from . import kernel as K
from .context import F64
from .error_model import subsegment_error_bound
from .fp import U64, add_hi, div_hi, div_lo, hypot_hi, hypot_lo, mul_hi, mul_lo, sub_hi, sub_lo
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
    "MAX_SCRATCH_ENTRIES",
    "MAX_QUERY_MAGNITUDE",
    "ProjectionScratch",
    "ProjectionQuery",
    "ProjectionResult",
    "compute_projection_scratch_capacity",
    "precision_floor",
    "try_project_point",
    "project_point_approximate",
]

MAX_ITERATIONS = 2**31 - 1  # the engine's 32-bit counts, as WorkLimits
MAX_SCRATCH_ENTRIES = 2**31 - 1
MAX_QUERY_MAGNITUDE = 2.0**500  # |q|^2 stays far below the float64 range

_EXACT = np.zeros(3)  # the error of float32 controls read exactly


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

    __slots__ = ("capacity", "iv_span", "iv_u0", "iv_u1", "iv_lb", "cand_span", "cand_u",
                 "cand_ub", "heap")

    def __init__(self):
        self.capacity = 0
        self._allocate(0)
        self.heap: list = []  # only the benchmark's heap selector uses it

    def _allocate(self, n: int) -> None:
        self.iv_span = np.zeros(n, dtype=np.intp)
        self.iv_u0 = np.zeros(n, dtype=np.float64)
        self.iv_u1 = np.zeros(n, dtype=np.float64)
        self.iv_lb = np.zeros(n, dtype=np.float64)
        self.cand_span = np.zeros(n, dtype=np.intp)
        self.cand_u = np.zeros(n, dtype=np.float64)
        self.cand_ub = np.zeros(n, dtype=np.float64)

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
        saved = (self.iv_span, self.iv_u0, self.iv_u1, self.iv_lb, self.cand_span, self.cand_u,
                 self.cand_ub)
        try:
            self._allocate(capacity)
        except MemoryError:
            (self.iv_span, self.iv_u0, self.iv_u1, self.iv_lb, self.cand_span, self.cand_u,
             self.cand_ub) = saved
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


# --- Certified bounds ------------------------------------------------------------------------


def _box_lower(q_lo, q_hi, box_lo, box_hi):
    """Lower bound of the distance between the boxes ``[q_lo, q_hi]`` and ``[box_lo, box_hi]``
    (each (..., 3)): per component the outward-rounded separation, clamped at 0. Certified."""
    sep = np.maximum(np.maximum(sub_lo(box_lo, q_hi), sub_lo(q_lo, box_hi)), 0.0)
    return hypot_lo(sep)


def _product_errors(a, b):
    """Bounds of the rounding errors of ``fl(a x b)`` (per component) and ``fl(a . b)`` where
    ``a = fl(a*)``, ``b = fl(b*)`` are rounded differences of exact float64 points (each
    (..., 3)). Certified.

    With ``u`` the float64 unit roundoff, ``|a - a*| <= u' |a|`` (``u' = u / (1 - u)``). The
    kernel's cross product rounds each component ``a_i b_j - a_j b_i`` three times and its dot
    product rounds ``(a0 b0 + a1 b1) + a2 b2`` five times, so each result is within
    ``(5u + 4u') S <= 10u S`` of the exact one, where ``S`` sums the ``|a_i b_j|`` products it
    uses; plus ``4 * 2**-1074`` for subnormal products.
    """
    aa, bb = np.abs(a), np.abs(b)
    S_cross = add_hi(mul_hi(aa[..., _J], bb[..., _K]), mul_hi(aa[..., _K], bb[..., _J]))
    ab = mul_hi(aa, bb)
    S_dot = add_hi(add_hi(ab[..., 0], ab[..., 1]), ab[..., 2])
    return (add_hi(mul_hi(10.0 * U64, S_cross), _PRODUCT_UNDERFLOW),
            add_hi(mul_hi(10.0 * U64, S_dot), _PRODUCT_UNDERFLOW))


_J = [1, 2, 0]
_K = [2, 0, 1]
_PRODUCT_UNDERFLOW = 4.0 * 2.0**-1074
# |x*| from the norm of x = fl(x*) (componentwise relative error u'): factors with margin.
_SHRINK = 1.0 - 4.0 * U64
_GROW = 1.0 + 4.0 * U64


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


def _hull_lower(q: _Point, Q, e):
    """Lower bound of the distance from the exact query point to a cubic arc whose computed
    controls ``Q`` (..., 4, 3) are within ``e`` (3,) or (..., 3) per component of its exact
    controls. Certified.

    The arc lies in the convex hull of its exact controls. Two bounds of the distance to that
    hull, the larger is returned:

    * the box: the controls' box widened by ``e`` (the spec's control-hull box);
    * the chord capsule: ``Q1`` and ``Q2`` lie within ``delta`` of the chord segment
      ``[Q0, Q3]``, so the computed hull does too (the segment is convex), and the exact hull
      lies within ``|e|`` of the computed one: the distance is at least
      ``dist(q.c, segment) - delta - |e| - q.r``. ``delta`` shrinks quadratically with the
      interval and the segment distance tends to the curve's, so this bound converges
      quadratically, where the box's converges linearly.

    Segment distances take the endpoint's distance where the foot of the perpendicular is
    certainly outside the segment, else the line's (a lower bound in every case); the inner
    controls' distances are bounded above by their endpoint distances, and by the line's
    where the foot is certainly inside.
    """
    lb = _box_lower(q.lo, q.hi, sub_lo(Q.min(axis=-2), e), add_hi(Q.max(axis=-2), e))
    A, B = Q[..., 0:1, :], Q[..., 3:4, :]
    d = B - A  # (..., 1, 3)
    X = np.concatenate([np.broadcast_to(q.c, A.shape), Q[..., 1:3, :]], axis=-2)  # q, Q1, Q2
    xa, xb = X - A, X - B
    Y = np.stack([xa, xb])  # both endpoints as bases, so that swapping them changes nothing
    c = K.cross(F64, Y, d)
    t = K.dot(F64, Y, d)
    c_err, t_err = _product_errors(Y, d)
    cc = np.abs(c)
    # Norms of (q, Q1, Q2) x chord from each base, X - A, X - B and the chord, each rounded
    # the way it is used.
    lo = hypot_lo(np.concatenate([np.maximum(sub_lo(cc[0], c_err[0]), 0.0),
                                  np.maximum(sub_lo(cc[1], c_err[1]), 0.0), xa, xb, d], axis=-2))
    hi = hypot_hi(np.concatenate([add_hi(cc[0], c_err[0]), add_hi(cc[1], c_err[1]), xa, xb, d], axis=-2))
    ta, tb, ta_err, tb_err = t[0], t[1], t_err[0], t_err[1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dn_lo, dn_hi = mul_lo(lo[..., 12:13], _SHRINK), mul_hi(hi[..., 12:13], _GROW)
        line_lo = div_lo(np.maximum(lo[..., 0:3], lo[..., 3:6]), dn_hi)
        line_hi = div_hi(np.minimum(hi[..., 0:3], hi[..., 3:6]), dn_lo)
        a_lo, a_hi = mul_lo(lo[..., 6:9], _SHRINK), mul_hi(hi[..., 6:9], _GROW)
        b_lo, b_hi = mul_lo(lo[..., 9:12], _SHRINK), mul_hi(hi[..., 9:12], _GROW)
        before = add_hi(ta, ta_err) < 0  # the foot is certainly before Q0
        after = sub_lo(tb, tb_err) > 0  # certainly after Q3
        inside = (sub_lo(ta, ta_err) >= 0) & (add_hi(tb, tb_err) <= 0)
        seg_lo = np.where(before, a_lo, np.where(after, b_lo, line_lo))
        seg_hi = np.minimum(np.minimum(a_hi, b_hi), np.where(inside, line_hi, np.inf))
        # A zero chord (Q3 == Q0 exactly) is a point: its distances are the endpoint's.
        point_chord = ~(dn_lo > 0)
        seg_lo = np.where(point_chord, a_lo, seg_lo)
        seg_hi = np.where(point_chord, a_hi, seg_hi)
        delta = np.maximum(seg_hi[..., 1], seg_hi[..., 2])
        capsule = sub_lo(sub_lo(sub_lo(seg_lo[..., 0], delta), hypot_hi(e)), q.r)
    return np.maximum(lb, capsule)


def _point_upper(q: _Point, b_lo, b_hi):
    """Upper bound of the distance from the exact query point to any point of the box
    ``[b_lo, b_hi]`` (..., 3). Certified."""
    far = np.maximum(np.abs(sub_lo(q.lo, b_hi)), np.abs(sub_hi(q.hi, b_lo)))
    return hypot_hi(far)


# --- The search ------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class _Search:
    """What a search reached: status, lower bound, iterations, candidate count, achieved gap."""

    status: GeometryStatus
    lower_bound: float
    iterations: int
    candidates: int
    message: str = ""


def _project(view, query, scratch, result, strict: bool, selector: str) -> Outcome:
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
    floor = precision_floor(view, q.lo, q.hi)
    if strict and not floor < gap:
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"rounding slack {floor!r} at this point is not below projection_gap "
                       f"{gap!r}; choose a nearer chunk origin or a larger gap",
                       field="projection_gap", value=floor)
    run = _search(view, int(query.max_iterations), scratch, q, gap, selector)
    met = run.status is GeometryStatus.Success
    if strict and not met:
        return failure(run.status, run.message, field="max_iterations" if run.status is
                       GeometryStatus.BudgetExceeded else "projection_gap",
                       achieved=float(sub_hi(scratch.cand_ub[:run.candidates].min(), run.lower_bound)))
    c, lb = run.candidates, run.lower_bound
    ub = scratch.cand_ub[:c]
    if met:
        pick = sub_hi(ub, lb) <= gap  # acceptable candidates
    else:
        pick = ub == ub.min()  # approximate: the best ones
    j = _earliest(scratch.cand_span[:c], scratch.cand_u[:c], pick)
    distance = float(ub[j])
    # Everything is computed; write the caller's result in one step.
    result.parameter = SegmentParameter(int(scratch.cand_span[j]), float(scratch.cand_u[j]))
    result.distance = distance
    result.lower_bound = float(lb)
    result.gap = float(sub_hi(distance, lb))
    result.is_gap_met = bool(met)
    result.guarantee = GuaranteeClass.Certified if met else GuaranteeClass.Approximate
    result.iterations = run.iterations
    return success(result)


def precision_floor(view: PathView, q_lo, q_hi) -> float:
    """The rounding slack every bound carries at a query point: ``hypot`` over components of
    ``(q_hi - q_lo) + 2 * subsegment_error_bound(E)``, E the path's largest control magnitude
    per component. Strict projection is UnsupportedPrecision when this is not below the gap.
    Certified (rounded up)."""
    e = subsegment_error_bound(view.controls.reshape(-1, 4, 3)).max(axis=0)
    return float(hypot_hi(add_hi(sub_hi(q_hi, q_lo), mul_hi(2.0, e))))


def _earliest(spans, us, mask) -> int:
    """Index of the earliest entry by (span, u) among ``mask``."""
    k = spans[mask].min()
    at = mask & (spans == k)
    u = us[at].min()
    return int(np.flatnonzero(at & (us == u))[0])


def _search(view: PathView, max_iterations: int, s: ProjectionScratch, q: _Point, gap: float,
            selector: str) -> _Search:
    n = view.span_count
    P32 = view.controls
    # Initial intervals: whole spans with their exact control boxes.
    s.iv_span[:n] = np.arange(n)
    s.iv_u0[:n] = 0.0
    s.iv_u1[:n] = 1.0
    s.iv_lb[:n] = _hull_lower(q, P32.astype(np.float64), _EXACT)
    m = n
    # Initial candidates: span starts and an open path's terminal endpoint, exact points.
    starts = P32[:, 0, :].astype(np.float64)
    s.cand_span[:n] = np.arange(n)
    s.cand_u[:n] = 0.0
    s.cand_ub[:n] = _point_upper(q, starts, starts)
    c = n
    if not view.is_closed:
        end = P32[n - 1, 3, :].astype(np.float64)
        s.cand_span[c], s.cand_u[c] = n - 1, 1.0
        s.cand_ub[c] = _point_upper(q, end, end)
        c += 1
    best = float(s.cand_ub[:c].min())
    heap = s.heap
    if selector == "heap":
        heap.clear()
        heap.extend((float(s.iv_lb[i]), i, 0.0, i) for i in range(n))
        heapq.heapify(heap)
    it = 0
    while True:
        if selector == "heap":
            lbmin, _, _, i = heap[0]
        else:
            i = _smallest(s, m)
            lbmin = float(s.iv_lb[i])
        if sub_hi(best, lbmin) <= gap:
            return _Search(GeometryStatus.Success, lbmin, it, c)
        if it >= max_iterations:
            return _Search(GeometryStatus.BudgetExceeded, lbmin, it, c,
                           f"gap {float(sub_hi(best, lbmin))!r} after {it} iterations exceeds "
                           f"projection_gap {gap!r}")
        k, a, b = int(s.iv_span[i]), float(s.iv_u0[i]), float(s.iv_u1[i])
        mid = 0.5 * (a + b)
        if not a < mid < b:
            return _Search(GeometryStatus.UnsupportedPrecision, lbmin, it, c,
                           f"span {k}: [{a!r}, {b!r}] has no float64 midpoint; gap "
                           f"{float(sub_hi(best, lbmin))!r} cannot reach {gap!r}")
        if selector == "heap":
            heapq.heappop(heap)
        P = P32[k].astype(np.float64)
        Q = _halves(P, a, mid, b)  # (2, 4, 3): the controls of [a, mid] and [mid, b]
        e = subsegment_error_bound(P)
        lbs = _hull_lower(q, Q, e)
        s.iv_u1[i], s.iv_lb[i] = mid, lbs[0]
        s.iv_span[m], s.iv_u0[m], s.iv_u1[m], s.iv_lb[m] = k, mid, b, lbs[1]
        b_mid = Q[1, 0]  # f(mid, mid, mid) = B(mid)
        ub = float(_point_upper(q, sub_lo(b_mid, e), add_hi(b_mid, e)))
        s.cand_span[c], s.cand_u[c], s.cand_ub[c] = k, mid, ub
        if selector == "heap":
            heapq.heappush(heap, (float(lbs[0]), k, a, i))
            heapq.heappush(heap, (float(lbs[1]), k, mid, m))
        m += 1
        c += 1
        best = min(best, ub)
        it += 1


def _halves(P, a: float, m: float, b: float):
    """The controls of ``[a, m]`` and ``[m, b]`` (2, 4, 3): the seven blossom values
    ``f(a,a,a), f(a,a,m), ..., f(b,b,b)`` of ``P`` in one kernel call.

    Each blossom's arguments are applied farthest from 1/2 first. That order is the same for
    the mirrored parameters ``1 - t``, and with dyadic parameters ``1 - t`` is exact, so a
    span and its reversed copy give bit-identical values: the search treats mirror-symmetric
    paths symmetrically and its tie rule (earlier span first) then decides symmetric minima.
    """
    T = np.array([sorted(t, key=_far_first) for t in ((a, a, a), (a, a, m), (a, m, m), (m, m, m),
                                               (m, m, b), (m, b, b), (b, b, b))])
    f = K.cubic_blossom(F64, P, T[:, 0], T[:, 1], T[:, 2])
    return np.stack([f[0:4], f[3:7]])


def _far_first(t: float) -> float:
    return -abs(t - 0.5)  # exact for dyadic t


def _smallest(s: ProjectionScratch, m: int) -> int:
    """The live interval with the smallest lower bound; ties by earlier span, then u0."""
    lb = s.iv_lb[:m]
    i = int(np.argmin(lb))
    ties = lb == lb[i]
    if np.count_nonzero(ties) > 1:
        i = _earliest(s.iv_span[:m], s.iv_u0[:m], ties)
    return i


# --- Public entry points ---------------------------------------------------------------------


def try_project_point(view: PathView, query: ProjectionQuery, scratch: ProjectionScratch,
                      result: ProjectionResult, *, selector: str = "argmin") -> Outcome:
    """``TryProjectPoint``: the certified closest point of the path to ``query.point``.

    Args:
        view: the prepared path (its ``tolerance.projection_gap`` is the gap).
        query: point (asset coordinates) and iteration budget.
        scratch: reserved with at least :func:`compute_projection_scratch_capacity` entries.
        result: caller-owned; written only on success.
        selector: ``"argmin"`` (over the live slice, the default) or ``"heap"`` (heapq); both
            split the same intervals in the same order (benchmarked in
            ``benchmarks/bench_projection.py``).

    Returns:
        ``Outcome(result)``. ``distance``, ``lower_bound`` and ``gap`` are Certified:
        ``lower_bound <= min <= |q - B(parameter)| <= distance`` and
        ``distance - lower_bound <= gap <= projection_gap``. Failures, with ``result`` and
        the caller's other state unchanged: InvalidArgument (nonfinite point, bad
        ``max_iterations``), CapacityExceeded (scratch too small, before any work),
        UnsupportedPrecision (see the module docstring), BudgetExceeded (the gap is not met
        after ``max_iterations`` splits; the diagnostic's ``achieved`` is the gap reached).
    """
    return _project(view, query, scratch, result, True, _selector(selector))


def project_point_approximate(view: PathView, query: ProjectionQuery, scratch: ProjectionScratch,
                              result: ProjectionResult, *, selector: str = "argmin") -> Outcome:
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
    return _project(view, query, scratch, result, False, _selector(selector))


def _selector(name: str) -> str:
    if name not in ("argmin", "heap"):
        raise ValueError(f"selector must be 'argmin' or 'heap', not {name!r}")
    return name
