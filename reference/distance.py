"""Bounded distance maps (``distance.hpp``): certified arc-length brackets, prefix bounds and
distance resolution.

**Leaves.** A leaf is a dyadic parameter range ``[u0, u1]`` of one span. Its arc length lies
between the chord of the sub-curve and the length of the sub-curve's control polygon (arc
length is at least the chord and at most the control polygon, which the sub-curve's Bezier
controls bound by convexity). Both are computed in float64 with outward rounding
(``reference.fp``): the sub-curve's controls are the blossom values
``f(u0,u0,u0), f(u0,u0,u1), f(u0,u1,u1), f(u1,u1,u1)`` of the prepared float32 span
(``kernel.cubic_subsegment`` in F64), which round; each computed control lies within
``e = reference.error_model.subsegment_error_bound`` (``16 u M + 16 * 2^-1074`` per axis, ``M`` the
axis' largest control magnitude: three de Casteljau levels of ``fl(fl(1 - t) a + fl(t b))``
round at most ``9 u M (1 + 4u)``, subnormal results at most ``2^-1075`` per operation) of the
exact one. So every chord and leg component is widened by ``2e`` before ``hypot_lo`` (chord)
and ``hypot_hi`` (legs). See ``docs/decisions.md`` ("Distance maps: leaf controls are
enclosed").

**Build.** One leaf per span to start; the leaf with the largest gap ``upper - lower`` is split
at its parameter midpoint (ties: earlier span, then earlier parameter) until the whole-path
gap ``TotalUpper - TotalLower`` is at most the path's ``distance_error``; the totals are then
re-summed in path order with outward rounding, and the build succeeds only if that rechecked
gap fits (otherwise splitting resumes). ``max_leaves``, ``max_depth``, ``max_subdivisions`` and
``max_prepared_bytes`` bound the work: exhausting one returns BudgetExceeded with the achieved
Certified gap in ``diagnostic.achieved`` and no map (the caller's previous map is untouched).

**Estimates.** A leaf's estimate is Gravesen's ``(chord + polygon) / 2`` of the computed
controls, clamped into the leaf's Certified interval; prefix estimates are running sums,
clamped into the prefix bounds and made non-decreasing; every estimate lies inside its
Certified interval (Estimated).

**Resolution.** ``try_resolve_distance`` finds the first stored boundary whose prefix estimate
reaches the target (monotone lookup). A target equal to a stored boundary estimate resolves to
that boundary exactly (the earliest one of a zero-length run; the path end is the last span at
u = 1); otherwise it bisects the leaf's partial estimates to float64 resolution for the
earliest parameter that reaches the target, and accepts only when the Certified residual
``max(upper - target, target - lower)`` of the prefix bound there (which includes every
preceding leaf's uncertainty) is at most ``distance_error``. A map pins its path's revision and
span count: MissingCache for an unbuilt map, StaleRevision for another path. Queries never
build or repair a map.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from . import kernel as K
from .context import F64
from .error_model import subsegment_error_bound
from .fp import add_hi, add_lo, hypot_hi, hypot_lo, sub_hi, sub_lo, two_sum
from .owner import Owner, readonly
from .path import PathView, resolve_parameter
from .status import (
    BoundaryPolicy,
    GeometryStatus,
    Outcome,
    PathDistance,
    SegmentParameter,
    SpanSide,
    WorkLimits,
    failure,
    is_finite_real,
    is_int,
    reported,
    success,
    validate_limits,
)

__all__ = [
    "LEAF_BYTES",
    "DistanceBound",
    "DistanceMapView",
    "DistancePreparation",
    "DistanceQuery",
    "DistanceResolution",
    "PreparedDistanceMap",
    "distance_map_bytes",
    "leaf_bounds",
    "try_bound_distance",
    "try_build_distance_map",
    "try_resolve_distance",
]

# Bytes per leaf: span index (4), u0 and u1 (16), lower, upper, estimate (24) and the three
# prefix values at its start (24). Plus one closing prefix triple and n + 1 span offsets.
LEAF_BYTES = 4 + 16 + 24 + 24


def distance_map_bytes(leaf_count: int, span_count: int) -> int:
    """Bytes a distance map of ``leaf_count`` leaves over ``span_count`` spans holds; checked
    against ``WorkLimits.max_prepared_bytes``.

    Raises:
        ValueError: a negative count (its negative size would pass any budget check).
    """
    if leaf_count < 0 or span_count < 0:
        raise ValueError(f"distance_map_bytes: counts must be nonnegative, got leaf_count = {leaf_count!r}, "
                         f"span_count = {span_count!r}")
    return leaf_count * LEAF_BYTES + 24 + (span_count + 1) * 8


@dataclass(frozen=True)
class DistancePreparation:
    """Distance-map build settings.

    Attributes:
        limits: the work limits (no defaults).
        strict: only Strict (Certified) builds exist; ``False`` asks for the Visual-only
            Estimated build the spec lists as not yet provided (UnsupportedPrecision).
    """

    limits: WorkLimits
    strict: bool = True


@dataclass(frozen=True)
class DistanceMapView:
    """A read-only view of a distance map (arrays not writeable).

    Attributes:
        is_built: False for a map that was never built (queries: MissingCache).
        revision, span_count: the path the map was built for.
        distance_error: the path's ``distance_error`` the map meets.
        leaf_span: (m,) int32 span of each leaf, in path order.
        leaf_u0, leaf_u1: (m,) float64 dyadic parameter range of each leaf.
        leaf_lower, leaf_upper: (m,) float64 Certified bounds of each leaf's arc length.
        leaf_estimate: (m,) float64 Estimated leaf length, inside its bounds.
        prefix_lower, prefix_upper: (m + 1,) float64 Certified prefix bounds at each leaf start
            (entry m: the path end).
        prefix_estimate: (m + 1,) float64 Estimated prefix, non-decreasing, inside its bounds.
        span_first_leaf: (n + 1,) int64 index of each span's first leaf (entry n: m).
        total_lower, total_upper: Certified bounds of the path length.
        total_estimate: ``TotalEstimate``, Estimated, inside them.
    """

    is_built: bool
    revision: int = -1
    span_count: int = 0
    distance_error: float = math.nan
    leaf_span: np.ndarray = None
    leaf_u0: np.ndarray = None
    leaf_u1: np.ndarray = None
    leaf_lower: np.ndarray = None
    leaf_upper: np.ndarray = None
    leaf_estimate: np.ndarray = None
    prefix_lower: np.ndarray = None
    prefix_upper: np.ndarray = None
    prefix_estimate: np.ndarray = None
    span_first_leaf: np.ndarray = None
    total_lower: float = math.nan
    total_upper: float = math.nan
    total_estimate: float = math.nan

    @property
    def leaf_count(self) -> int:
        return 0 if self.leaf_span is None else int(self.leaf_span.shape[0])


_UNBUILT = DistanceMapView(is_built=False)


class PreparedDistanceMap(Owner):
    """An immutable distance map. ``PreparedDistanceMap()`` is the unbuilt map (its queries
    return MissingCache); :func:`try_build_distance_map` returns built ones."""

    __slots__ = ()

    def __init__(self, view: DistanceMapView | None = None):
        super().__init__(_UNBUILT if view is None else view)


@dataclass(frozen=True)
class DistanceQuery:
    """A resolution request: the target distance, the policy outside ``[0, TotalEstimate]``
    (Reject, Clamp, Wrap on closed paths) and the bisection budget (allow at least 64)."""

    distance: PathDistance
    policy: BoundaryPolicy
    max_iterations: int


@dataclass(frozen=True)
class DistanceBound:
    """``TryBoundDistance``'s result: the prefix arc length at a parameter lies in
    ``[lower, upper]`` (Certified); ``estimate`` is inside it (Estimated)."""

    lower: float
    upper: float
    estimate: float


@dataclass(frozen=True)
class DistanceResolution:
    """``TryResolveDistance``'s result.

    Attributes:
        parameter: the earliest parameter whose prefix estimate reaches the target (an exact
            boundary names the outgoing span at u = 0; the path end the last span at u = 1).
        distance: the target after the policy (clamped or wrapped).
        residual_bound: Certified: ``|L(parameter) - distance| <= residual_bound <=
            distance_error``.
        bound: the Certified prefix bound at ``parameter`` (with its estimate).
        iterations: bisection steps used.
    """

    parameter: SegmentParameter
    distance: PathDistance
    residual_bound: float
    bound: DistanceBound
    iterations: int


# --- Leaf bounds -----------------------------------------------------------------------------


def leaf_bounds(controls, u0, u1):
    """Certified arc-length bounds of sub-curves and their estimates, vectorised.

    Args:
        controls: (m, 4, 3) float32 (or exactly float32-valued) span controls.
        u0, u1: (m,) float64 parameter ranges, ``0 <= u0 <= u1 <= 1``.

    Returns:
        ``(lower, upper, estimate)``, each (m,) float64: ``lower`` (chord, Certified) <= arc
        length of ``[u0, u1]`` <= ``upper`` (control polygon, Certified); ``estimate``
        (Gravesen's (chord + polygon) / 2, Estimated) clamped into ``[lower, upper]``.
    """
    P = np.asarray(controls).astype(np.float64)  # float32 -> float64 is exact
    Q = K.cubic_subsegment(F64, P, np.asarray(u0, np.float64), np.asarray(u1, np.float64))
    e = subsegment_error_bound(P)  # (m, 3): |computed - exact| of every blossom value
    two_e = 2.0 * e  # exact
    d = Q[..., 1:, :] - Q[..., :-1, :]  # legs, for the estimate only
    c = Q[..., 3, :] - Q[..., 0, :]
    # Chord: smallest |component| over the widened interval of each component.
    clo = sub_lo(sub_lo(Q[..., 3, :], Q[..., 0, :]), two_e)
    chi = add_hi(sub_hi(Q[..., 3, :], Q[..., 0, :]), two_e)
    amin = np.where(clo > 0, clo, np.where(chi < 0, -chi, 0.0))
    lower = hypot_lo(amin)
    # Polygon: largest |component| of each widened leg.
    llo = sub_lo(sub_lo(Q[..., 1:, :], Q[..., :-1, :]), two_e[..., None, :])
    lhi = add_hi(sub_hi(Q[..., 1:, :], Q[..., :-1, :]), two_e[..., None, :])
    legs = hypot_hi(np.maximum(np.abs(llo), np.abs(lhi)))  # (m, 3)
    upper = add_hi(add_hi(legs[..., 0], legs[..., 1]), legs[..., 2])
    chord = np.sqrt(np.sum(c * c, axis=-1))
    poly = np.sum(np.sqrt(np.sum(d * d, axis=-1)), axis=-1)
    estimate = np.minimum(np.maximum(0.5 * (chord + poly), lower), upper)
    return lower, upper, estimate


# --- Build -----------------------------------------------------------------------------------


class _Leaves:
    """The build's leaf set: bounds by key ``(span, u0, u1)``, a max-gap heap, a running gap."""

    def __init__(self, controls: np.ndarray):
        self.controls = controls
        self.bounds: dict = {}  # (span, u0, u1) -> (lower, upper, estimate)
        self.depth: dict = {}
        self.heap: list = []
        self.running_gap = 0.0

    def compute(self, keys: list) -> None:
        todo = [k for k in keys if k not in self.bounds]
        if not todo:
            return
        spans = np.array([k[0] for k in todo])
        lo, hi, est = leaf_bounds(self.controls[spans], np.array([k[1] for k in todo]),
                                  np.array([k[2] for k in todo]))
        for k, a, b, c in zip(todo, lo.tolist(), hi.tolist(), est.tolist()):
            self.bounds[k] = (a, b, c)

    def add(self, key, depth: int) -> None:
        lo, hi, _ = self.bounds[key]
        gap = hi - lo
        self.depth[key] = depth
        heapq.heappush(self.heap, (-gap, key[0], key[1], key[2]))
        self.running_gap += gap

    def pop(self):
        g, s, a, b = heapq.heappop(self.heap)
        self.running_gap += g
        key = (s, a, b)
        return key, self.depth.pop(key)

    def ordered(self) -> list:
        return sorted((s, a, b) for _, s, a, b in self.heap)


def _prefetch(key, levels: int) -> list:
    """The keys of the ``levels`` generations below a leaf (children first)."""
    s, a, b = key
    out, front = [], [(a, b)]
    for _ in range(levels):
        nxt = []
        for lo, hi in front:
            m = 0.5 * (lo + hi)  # exact: dyadic, depth <= 52
            nxt += [(lo, m), (m, hi)]
        out += [(s, lo, hi) for lo, hi in nxt]
        front = nxt
    return out


def _outward_prefix_sums(x: np.ndarray, add) -> np.ndarray:
    """Inclusive prefix sums of nonnegative ``x`` with a directed ``add`` (``fp.add_lo`` or
    ``fp.add_hi``), by a Hillis-Steele scan: log2(m) vectorised passes, so each sum carries at
    most ceil(log2 m) one-ulp steps instead of m. Adding an exact zero rounds nothing."""
    s = np.array(x, dtype=np.float64)
    shift = 1
    while shift < s.shape[0]:
        a, b = s[shift:], s[:-shift]
        s[shift:] = np.where(b == 0.0, a, np.where(a == 0.0, b, add(a, b)))
        shift *= 2
    return s


def _path_order_totals(leaves: _Leaves, order: list):
    """Leaf bounds and prefix bounds/estimates in path order, outward rounded: arrays."""
    b = np.array([leaves.bounds[k] for k in order], dtype=np.float64).reshape(-1, 3)
    lower, upper, est = b[:, 0].copy(), b[:, 1].copy(), b[:, 2].copy()
    pl = np.concatenate([[0.0], _outward_prefix_sums(lower, add_lo)])
    pu = np.concatenate([[0.0], _outward_prefix_sums(upper, add_hi)])
    pe = np.concatenate([[0.0], np.cumsum(est)])  # non-decreasing: the terms are >= 0
    pe = np.maximum.accumulate(np.minimum(np.maximum(pe, pl), pu))
    return lower, upper, est, pl, pu, pe


def try_build_distance_map(path: PathView, preparation: DistancePreparation,
                           diagnostic: list | None = None) -> Outcome:
    """``TryBuildDistanceMap``: bracket every leaf and split until the whole-path gap fits the
    path's ``distance_error``. Bounds Certified, estimates Estimated.

    Checks, in order (the first failure is returned, and appended to ``diagnostic`` if a list
    is given): limits ranges (InvalidArgument); ``strict`` (UnsupportedPrecision otherwise);
    then the build, where exhausting ``max_leaves``, ``max_depth``, ``max_subdivisions`` or
    ``max_prepared_bytes`` is BudgetExceeded with ``diagnostic.achieved`` = the Certified gap
    reached (re-summed in path order) and ``diagnostic.field`` naming the limit.

    Returns:
        ``Outcome`` holding a new :class:`PreparedDistanceMap`; on failure no map (a previous
        map of the caller stays valid).
    """
    return reported(_build(path, preparation), diagnostic)


def _build(path: PathView, prep: DistancePreparation) -> Outcome:
    if not isinstance(path, PathView) or not isinstance(prep, DistancePreparation):
        raise TypeError("try_build_distance_map(PathView, DistancePreparation)")
    check = validate_limits(prep.limits)
    if not check.ok:
        return check
    if prep.strict is not True:
        return failure(GeometryStatus.UnsupportedPrecision,
                       "only Strict (Certified) distance maps exist; the Visual-only Estimated "
                       "build is not provided", field="strict")
    limits = prep.limits
    n = path.span_count
    target = float(path.tolerance.distance_error)
    leaves = _Leaves(path.controls)
    initial = [(i, 0.0, 1.0) for i in range(n)]
    leaves.compute(initial)
    for key in initial:
        leaves.add(key, 0)

    def exhausted(field: str, limit: int) -> Outcome:
        *_, pl, pu, _ = _path_order_totals(leaves, leaves.ordered())
        gap = float(sub_hi(pu[-1], pl[-1]))
        return failure(GeometryStatus.BudgetExceeded,
                       f"{field} = {limit} exhausted with a certified gap of {gap!r} above "
                       f"distance_error = {target!r}", field=field, value=float(limit), achieved=gap)

    if n > limits.max_leaves:
        return exhausted("max_leaves", limits.max_leaves)
    if distance_map_bytes(n, n) > limits.max_prepared_bytes:
        return exhausted("max_prepared_bytes", limits.max_prepared_bytes)
    splits = 0
    since_refresh = 0
    while True:
        if leaves.running_gap <= target or since_refresh >= 4096:
            # The running float sum steers the loop; refresh it against drift, then recheck
            # the Certified gap in path order before accepting.
            leaves.running_gap = math.fsum(-h[0] for h in leaves.heap)
            since_refresh = 0
            if leaves.running_gap <= target:
                order = leaves.ordered()
                lower, upper, est, pl, pu, pe = _path_order_totals(leaves, order)
                if sub_hi(pu[-1], pl[-1]) <= target:
                    return success(PreparedDistanceMap(_view_of(path, target, order, lower, upper,
                                                                est, pl, pu, pe)))
        # Split the leaf with the largest gap (ties: earlier span, then parameter).
        m = len(leaves.heap)
        top = leaves.heap[0]
        key = (top[1], top[2], top[3])
        depth = leaves.depth[key]
        if splits >= limits.max_subdivisions:
            return exhausted("max_subdivisions", limits.max_subdivisions)
        if m + 1 > limits.max_leaves:
            return exhausted("max_leaves", limits.max_leaves)
        if depth >= limits.max_depth:
            return exhausted("max_depth", limits.max_depth)
        if distance_map_bytes(m + 1, n) > limits.max_prepared_bytes:
            return exhausted("max_prepared_bytes", limits.max_prepared_bytes)
        key, depth = leaves.pop()
        s, a, b = key
        mid = 0.5 * (a + b)
        children = [(s, a, mid), (s, mid, b)]
        if children[0] not in leaves.bounds:
            # Speculate in one vectorised call: children keep about an eighth of a parent's
            # gap, so every leaf within a factor 16 of this one is likely split soon too.
            # Bounds are pure functions of the key, so speculation changes no result.
            thr = -top[0] / 16.0
            batch = [key] + [(h[1], h[2], h[3]) for h in leaves.heap
                             if -h[0] >= thr and leaves.depth[(h[1], h[2], h[3])] < limits.max_depth]
            leaves.compute([c for k in batch for c in _prefetch(k, 1)])
        for c in children:
            leaves.add(c, depth + 1)
        del leaves.bounds[key]
        splits += 1
        since_refresh += 1


def _view_of(path, target, order, lower, upper, est, pl, pu, pe) -> DistanceMapView:
    spans = np.array([k[0] for k in order], dtype=np.int32)
    first = np.searchsorted(spans, np.arange(path.span_count + 1), side="left").astype(np.int64)
    return DistanceMapView(
        is_built=True, revision=path.revision, span_count=path.span_count, distance_error=target,
        leaf_span=readonly(spans), leaf_u0=readonly([k[1] for k in order]),
        leaf_u1=readonly([k[2] for k in order]), leaf_lower=readonly(lower),
        leaf_upper=readonly(upper), leaf_estimate=readonly(est), prefix_lower=readonly(pl),
        prefix_upper=readonly(pu), prefix_estimate=readonly(pe),
        span_first_leaf=readonly(first), total_lower=float(pl[-1]), total_upper=float(pu[-1]),
        total_estimate=float(pe[-1]))


# --- Queries ---------------------------------------------------------------------------------


def _check_map(path: PathView, dmap: DistanceMapView) -> Outcome | None:
    if not isinstance(path, PathView) or not isinstance(dmap, DistanceMapView):
        raise TypeError("queries take a PathView and a DistanceMapView")
    if not dmap.is_built:
        return failure(GeometryStatus.MissingCache, "the distance map was never built", field="map")
    if dmap.revision != path.revision or dmap.span_count != path.span_count:
        return failure(GeometryStatus.StaleRevision,
                       f"the map was built for revision {dmap.revision} with {dmap.span_count} spans, "
                       f"the path is revision {path.revision} with {path.span_count}", field="revision")
    return None


def _stored(dmap: DistanceMapView, i: int) -> DistanceBound:
    return DistanceBound(float(dmap.prefix_lower[i]), float(dmap.prefix_upper[i]),
                         float(dmap.prefix_estimate[i]))


def _leaf_prefix_bounds(path: PathView, dmap: DistanceMapView, k: int, i: int, u: np.ndarray):
    """Certified prefix bounds (with estimates) at parameters ``u`` of span ``k`` strictly inside
    its leaf ``i`` (``leaf_u0[i] < u < leaf_u1[i]``): the stored bounds at the leaf's start plus
    ``leaf_bounds`` of ``[leaf_u0[i], u]``, clamped into the stored bounds at its end. Arrays;
    element ``j`` has the same bits whatever the batch (``leaf_bounds`` is elementwise)."""
    n = u.shape[0]
    cl, pu, pe = leaf_bounds(np.broadcast_to(path.controls[k], (n,) + path.controls.shape[1:]),
                             np.full(n, float(dmap.leaf_u0[i])), u)
    lo_i, hi_i, hi_next = float(dmap.prefix_lower[i]), float(dmap.prefix_upper[i]), float(dmap.prefix_upper[i + 1])
    lower = np.maximum(add_lo(lo_i, cl), lo_i)
    upper = np.minimum(add_hi(hi_i, pu), hi_next)
    est = np.minimum(float(dmap.prefix_estimate[i]) + pe, float(dmap.prefix_estimate[i + 1]))
    return lower, upper, np.minimum(np.maximum(est, lower), upper)


def _bound_at(path: PathView, dmap: DistanceMapView, k: int, u: float) -> DistanceBound:
    """The Certified prefix bound at ``(k, u)`` (an evaluated parameter, u in [0, 1])."""
    first, last = int(dmap.span_first_leaf[k]), int(dmap.span_first_leaf[k + 1])
    if u >= 1.0:
        return _stored(dmap, last)  # the end of span k is the start of the next leaf
    i = first + int(np.searchsorted(dmap.leaf_u0[first:last], u, side="right")) - 1
    if u == float(dmap.leaf_u0[i]):
        return _stored(dmap, i)
    lower, upper, est = _leaf_prefix_bounds(path, dmap, k, i, np.array([u]))
    return DistanceBound(float(lower[0]), float(upper[0]), float(est[0]))


_LOOKAHEAD = 6  # bisection levels evaluated per leaf_bounds call (2^6 - 1 parameters)


def _bisection_bounds(path: PathView, dmap: DistanceMapView, k: int, i: int, lo: float, hi: float) -> dict:
    """The prefix bounds at the midpoints of the next ``_LOOKAHEAD`` bisection levels of
    ``[lo, hi]`` (inside leaf ``i``), by parameter, in one vectorised call: the bisection is
    sequential, numpy's cost is per call. Degenerate midpoints (no float strictly between) are
    left out; the bisection stops before it would ask for them."""
    us, front = [], [(lo, hi)]
    for _ in range(_LOOKAHEAD):
        nxt = []
        for a, b in front:
            m = 0.5 * (a + b)
            if a < m < b:
                us.append(m)
                nxt += [(a, m), (m, b)]
        front = nxt
    lower, upper, est = _leaf_prefix_bounds(path, dmap, k, i, np.array(us))
    return {m: DistanceBound(a, b, c) for m, a, b, c in zip(us, lower.tolist(), upper.tolist(), est.tolist())}


def try_bound_distance(path: PathView, dmap: DistanceMapView, parameter: SegmentParameter,
                       policy: BoundaryPolicy = BoundaryPolicy.Reject,
                       side: SpanSide = SpanSide.Outgoing) -> Outcome:
    """``TryBoundDistance``: the Certified prefix enclosure at a parameter, with its estimate
    (Estimated, inside). The parameter follows the path's domain rules
    (``reference.path.resolve_parameter``: policies and span sides).

    Returns:
        ``Outcome`` of a :class:`DistanceBound`; MissingCache / StaleRevision for a map that
        does not belong to the path.
    """
    bad = _check_map(path, dmap)
    if bad is not None:
        return bad
    r = resolve_parameter(path, parameter, policy, side)
    if not r.ok:
        return r
    k, u = r.value
    return success(_bound_at(path, dmap, k, u))


_MAX_ITERATIONS = 1 << 20
_RESOLUTION = 2.0**-60  # bisection stops at adjacent floats or this bracket width


def try_resolve_distance(path: PathView, dmap: DistanceMapView, query: DistanceQuery) -> Outcome:
    """``TryResolveDistance``: the earliest parameter whose prefix estimate reaches the target,
    with a Certified residual bound at most ``distance_error``.

    Checks: the map belongs to the path (MissingCache, StaleRevision); a finite target and
    ``0 <= max_iterations <= 2^20`` (InvalidArgument); the policy outside
    ``[0, TotalEstimate]``: Reject (InvalidDomain), Clamp, Wrap on a closed path (exact
    remainder; InvalidArgument on an open path), anything else InvalidArgument. Bisection that
    needs more than ``max_iterations`` steps is BudgetExceeded; a residual bound above
    ``distance_error`` is UnsupportedPrecision (the map cannot certify it). Never silent.

    Returns:
        ``Outcome`` of a :class:`DistanceResolution`.
    """
    bad = _check_map(path, dmap)
    if bad is not None:
        return bad
    if not isinstance(query, DistanceQuery) or not isinstance(query.distance, PathDistance):
        raise TypeError("query must be a DistanceQuery with a PathDistance")
    if not isinstance(query.policy, BoundaryPolicy):
        raise TypeError("query.policy must be a BoundaryPolicy")
    s = query.distance.value
    it = query.max_iterations
    if not is_finite_real(s):  # an int beyond the float64 range included
        return failure(GeometryStatus.InvalidArgument, f"distance {s!r} is not a finite real number", field="distance")
    if not is_int(it) or not 0 <= it <= _MAX_ITERATIONS:
        return failure(GeometryStatus.InvalidArgument,
                       f"max_iterations {it!r} must be an int in [0, {_MAX_ITERATIONS}]", field="max_iterations")
    policy = query.policy
    if policy not in (BoundaryPolicy.Reject, BoundaryPolicy.Clamp, BoundaryPolicy.Wrap) or \
            (policy is BoundaryPolicy.Wrap and not path.is_closed):
        why = "Wrap needs a closed path" if policy is BoundaryPolicy.Wrap else \
            "distances accept Reject, Clamp and Wrap"
        return failure(GeometryStatus.InvalidArgument, f"policy {policy.value}: {why}", field="policy")
    s = float(s)
    total = dmap.total_estimate
    extra = 0.0  # rounding of a wrapped target, added to the residual
    if not 0.0 <= s <= total:
        if policy is BoundaryPolicy.Reject:
            return failure(GeometryStatus.InvalidDomain,
                           f"distance {s!r} is outside [0, TotalEstimate = {total!r}] (Reject)",
                           field="distance", value=s)
        if policy is BoundaryPolicy.Clamp or total == 0.0:
            s = 0.0 if s < 0.0 else total
        else:
            r = math.fmod(s, total)  # exact, with the sign of s
            if r < 0.0:
                r, err = two_sum(r, total)  # r + total = r' + err exactly; r' <= total
                extra = abs(float(err))
            s = float(r) + 0.0  # no negative zero
    if s == total:
        s = total  # the path end resolves to the last span at u = 1, even after a zero-length run
    pe = dmap.prefix_estimate
    m = dmap.leaf_count
    j = m if s == total else int(np.searchsorted(pe, s, side="left"))  # first boundary reaching s
    if pe[j] == s:
        k, u = (int(dmap.leaf_span[j]), float(dmap.leaf_u0[j])) if j < m else (path.span_count - 1, 1.0)
        bound, iterations = _stored(dmap, j), 0
    else:
        i = j - 1
        k = int(dmap.leaf_span[i])
        lo, hi = float(dmap.leaf_u0[i]), float(dmap.leaf_u1[i])
        iterations = 0
        bound = None
        ahead: dict = {}
        while True:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi or hi - lo <= _RESOLUTION:
                break
            if iterations >= it:
                return failure(GeometryStatus.BudgetExceeded,
                               f"bisection needs more than max_iterations = {it} steps", field="max_iterations",
                               value=float(it))
            b = ahead.get(mid)
            if b is None:
                ahead = _bisection_bounds(path, dmap, k, i, lo, hi)
                b = ahead[mid]
            iterations += 1
            if b.estimate >= s:
                hi, bound = mid, b
            else:
                lo = mid
        u = hi
        if bound is None:  # hi never moved: the leaf's end
            bound = _bound_at(path, dmap, k, u)
        if u == 1.0 and k < path.span_count - 1:
            k, u = k + 1, 0.0  # an exact boundary names the outgoing span
    residual = max(float(sub_hi(bound.upper, s)), float(sub_hi(s, bound.lower)), 0.0)
    if extra:
        residual = float(add_hi(residual, extra))
    if not residual <= dmap.distance_error:
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"certified residual {residual!r} exceeds distance_error = {dmap.distance_error!r}",
                       field="distance_error", value=residual)
    return success(DistanceResolution(SegmentParameter(k, u), PathDistance(s), residual, bound, iterations))
