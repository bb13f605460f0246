"""Prepared spatial paths (``path.hpp``): preparation, evaluation, tangents, sampling, control
bounds, joint continuity, and Hermite / centripetal Catmull-Rom conversion.

Precision (spec 002 "Precision"): source controls are float64 in asset coordinates.
Preparation subtracts the chunk origin in float64, then narrows to float32 (round to nearest
even). The narrowed controls are exact dyadic rationals and define the *prepared curve* that
every guarantee speaks of. The effective position error ``max(position_error,
relative_position_error * asset_scale)`` must be at least the position floor
(``reference.status.compute_position_floor``), else ``UnsupportedPrecision``.

Guarantees: stored endpoints, span control boxes and the position floor are Exact; positions,
derivatives, tangents, conversions and continuity values are Rounded, with the error models of
``reference.error_model``.

Span sides: an exact interior boundary selects the outgoing span at u = 0
(``SpanSide.Outgoing``) or the previous span at u = 1 (``SpanSide.Incoming``); the terminal
endpoint selects the last span at u = 1; at the first endpoint both sides select the first
span. Boundary policies act only outside the closed domain: ``Reject`` (``InvalidDomain``),
``Clamp``, and ``Wrap`` for closed paths; every other policy is ``InvalidArgument``.
"""

from __future__ import annotations

import enum
import itertools
import math
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from . import kernel as K
from .context import F32, F64
from .chunk import narrow_to_chunk
from .fused import fused_sampler
from .owner import Owner, readonly
from .status import (
    BoundaryPolicy,
    GeometryStatus,
    Outcome,
    SegmentParameter,
    SpanSide,
    ToleranceProfile,
    WorkLimits,
    failure,
    is_finite_real,
    is_int,
    is_real,
    overlap_failure,
    reported,
    success,
    validate_limits,
    validate_tolerance,
)

__all__ = [
    "CubicSample3",
    "HermiteWaypoint",
    "JointContinuity",
    "JointRecord",
    "PathPreparation",
    "PathSource",
    "PathSpanSource",
    "PathView",
    "PreparedPath",
    "control_bounds",
    "prepared_bytes",
    "resolve_parameter",
    "spans_from_arrays",
    "try_convert_centripetal_catmull_rom",
    "try_convert_hermite",
    "try_evaluate_path",
    "try_evaluate_path_tangent",
    "try_get_joint_continuity",
    "try_prepare_path",
    "try_sample_path",
]


# --- Sources ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathSpanSource:
    """One cubic Bezier span in asset coordinates.

    Attributes:
        controls: (4, 3) float64 control points.
        domain_width: the span's width in the authoring parameter (time, knot interval); the
            joint classification scales derivatives per u by it. Finite and positive, and such
            that a joint's scaled derivatives stay inside the float64 range (OutOfRange).
    """

    controls: object
    domain_width: float


@dataclass(frozen=True)
class PathSource:
    """Spans in order, the caller's revision, and whether the last span closes onto the first."""

    spans: Sequence[PathSpanSource]
    revision: int
    is_closed: bool = False


@dataclass(frozen=True)
class PathPreparation:
    """Preparation settings: tolerances and limits (no defaults) and the float64 chunk origin."""

    tolerance: ToleranceProfile
    limits: WorkLimits
    origin: tuple = (0.0, 0.0, 0.0)


def spans_from_arrays(controls, widths) -> list[PathSpanSource]:
    """``PathSpanSource`` records from arrays (n, 4, 3) and (n,), as conversions write them.

    Raises:
        ValueError: the two arrays do not hold the same number of spans (a span without a
            width, or a width without a span, would be dropped or read past the end).
    """
    controls = np.asarray(controls, dtype=np.float64)
    widths = np.asarray(widths, dtype=np.float64)
    n_controls = controls.shape[0] if controls.ndim else 0
    n_widths = widths.shape[0] if widths.ndim == 1 else None
    if n_widths is None or n_controls != n_widths:
        raise ValueError(f"spans_from_arrays: controls for {n_controls} spans but "
                         f"{n_widths if n_widths is not None else widths.shape} widths; "
                         "one width per span is needed")
    return [PathSpanSource(controls[i].copy(), float(widths[i])) for i in range(len(widths))]


# --- Prepared path ---------------------------------------------------------------------------


class JointContinuity(enum.IntEnum):
    """The highest continuity a joint meets (each level includes the lower ones)."""

    C0 = 0
    G1 = 1
    C1 = 2
    C2 = 3


@dataclass(frozen=True)
class JointRecord:
    """A joint's measured differences (Rounded) and its classification (a threshold decision
    on those Rounded values).

    Joint ``j`` is the start of span ``j``: its incoming span is ``j - 1`` (``n - 1`` for the
    closing joint ``0`` of a closed path). Derivatives are scaled per unit of the authoring
    parameter: ``d = B'/DomainWidth``, ``s = B''/DomainWidth^2``.

    Attributes:
        index: joint index (outgoing span).
        incoming_span: index of the incoming span.
        position_gap: ``|P_in(1) - P_out(0)|``.
        tangent_angle: angle between ``d_in`` and ``d_out`` in radians; NaN where either is zero.
        derivative_difference: ``|d_in - d_out|``.
        derivative_scale: ``max(|d_in|, |d_out|)``.
        second_derivative_difference: ``|s_in - s_out|``.
        second_derivative_scale: ``max(|s_in|, |s_out|)``.
        continuity: C0; G1 when ``tangent_angle <= continuity_angle``; C1 when also
            ``derivative_difference <= continuity_derivative * derivative_scale``; C2 when also
            ``second_derivative_difference <= continuity_second_derivative * second_derivative_scale``.
    """

    index: int
    incoming_span: int
    position_gap: float
    tangent_angle: float
    derivative_difference: float
    derivative_scale: float
    second_derivative_difference: float
    second_derivative_scale: float
    continuity: JointContinuity


@dataclass(frozen=True)
class PathView:
    """A read-only view of a prepared path.

    Attributes:
        controls: (n, 4, 3) float32 chunk-relative controls (read-only). Exact.
        domain_widths: (n,) float64 span widths (read-only).
        origin: (3,) float64 chunk origin; add it in float64 for asset coordinates.
        is_closed: whether the last span closes onto the first.
        revision: the source revision.
        span_count: n.
        tolerance, limits: the profile and limits the path was prepared with.
        max_magnitude: E, the largest magnitude of the narrowed controls. Exact.
        narrowing_error: the largest narrowing error, rounded up. Exact.
        position_floor: ``2 ulp32(E) + narrowing_error`` rounded up to float64
            (``reference.status.compute_position_floor``). Exact.
        joints: the joint records, by joint index (closing joint first on a closed path).
    """

    controls: np.ndarray
    domain_widths: np.ndarray
    origin: np.ndarray
    is_closed: bool
    revision: int
    span_count: int
    tolerance: ToleranceProfile
    limits: WorkLimits
    max_magnitude: float
    narrowing_error: float
    position_floor: float
    joints: tuple


class PreparedPath(Owner):
    """An immutable prepared path; ``view()`` returns its :class:`PathView`."""

    __slots__ = ()


def prepared_bytes(span_count: int, joint_count: int) -> int:
    """Bytes a prepared path holds: float32 controls, float64 widths, and 6 float64 values plus
    two indices per joint record. Checked against ``WorkLimits.max_prepared_bytes``."""
    return span_count * (4 * 3 * 4 + 8) + joint_count * (6 * 8 + 2 * 8)


def _finite_vec(x, shape) -> np.ndarray | None:
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the float range
        return None
    if a.shape != shape or not np.all(np.isfinite(a)):
        return None
    return a


def try_prepare_path(source: PathSource, preparation: PathPreparation,
                     diagnostic: list | None = None) -> Outcome:
    """``TryPreparePath``: validate, narrow and classify a path source.

    Checks, in order (the first failure is returned, and appended to ``diagnostic`` if a list
    is given): tolerance and limits ranges (InvalidArgument); revision a nonnegative int,
    origin finite, at least one span (InvalidArgument); span count within ``max_spans`` and
    the prepared size within ``max_prepared_bytes`` (BudgetExceeded; a sized ``spans`` is
    counted by ``len`` before it is read, an iterator read to ``max_spans + 1`` items at
    most); each span's controls a finite (4, 3) array and its width finite and positive
    (InvalidArgument); the narrowed controls finite (UnsupportedPrecision: outside float32
    range); the effective position error at least the position floor (UnsupportedPrecision);
    then joint by joint: consecutive spans and a closed path's closing joint within
    ``continuity_position`` (InvalidTopology), and the joint's derivatives scaled by the
    domain widths inside the float64 range (OutOfRange: a value that overflows to inf or
    NaN, or a nonzero derivative that underflows to 0).

    Returns:
        ``Outcome`` holding a new :class:`PreparedPath` on success; on failure no path (the
        caller's previous path is untouched) and the diagnostic. Endpoints, control boxes and
        the floor are Exact; joint values Rounded.
    """
    return reported(_prepare(source, preparation), diagnostic)


def _prepare(source: PathSource, prep: PathPreparation) -> Outcome:
    if not isinstance(source, PathSource) or not isinstance(prep, PathPreparation):
        raise TypeError("try_prepare_path(PathSource, PathPreparation)")
    for check in (validate_tolerance(prep.tolerance), validate_limits(prep.limits)):
        if not check.ok:
            return check
    tol, limits = prep.tolerance, prep.limits
    if not is_int(source.revision) or source.revision < 0:
        return failure(GeometryStatus.InvalidArgument, "revision must be a nonnegative int",
                       field="revision")
    origin = _finite_vec(prep.origin, (3,))
    if origin is None:
        return failure(GeometryStatus.InvalidArgument, "origin must be three finite float64 values",
                       field="origin")
    # Count before reading: list() of a sequence claiming 10^12 items, or of an endless
    # generator, would exhaust memory or never return before the max_spans check.
    try:
        declared = len(source.spans)
    except TypeError:  # an iterator: read no more than one item past the limit
        declared = None
    except OverflowError:  # a length beyond sys.maxsize: certainly beyond max_spans
        return failure(GeometryStatus.BudgetExceeded, f"more spans than max_spans = {limits.max_spans}",
                       field="max_spans")
    if declared is not None and declared > limits.max_spans:
        return failure(GeometryStatus.BudgetExceeded, f"{declared} spans exceed max_spans = {limits.max_spans}",
                       field="max_spans", value=float(declared))
    spans = list(itertools.islice(source.spans, limits.max_spans + 1))
    n = len(spans)
    if n == 0:
        return failure(GeometryStatus.InvalidArgument, "a path needs at least one span", field="spans")
    if n > limits.max_spans:
        return failure(GeometryStatus.BudgetExceeded,
                       f"{'at least ' if declared is None else ''}{n} spans exceed max_spans = {limits.max_spans}",
                       field="max_spans", value=float(n))
    joint_count = n if source.is_closed else n - 1
    size = prepared_bytes(n, joint_count)
    if size > limits.max_prepared_bytes:
        return failure(GeometryStatus.BudgetExceeded,
                       f"{size} prepared bytes exceed max_prepared_bytes = {limits.max_prepared_bytes}",
                       field="max_prepared_bytes", value=float(size))
    src = np.empty((n, 4, 3), dtype=np.float64)
    widths = np.empty(n, dtype=np.float64)
    for i, span in enumerate(spans):
        if not isinstance(span, PathSpanSource):
            raise TypeError(f"spans[{i}] is {type(span).__name__}, not PathSpanSource")
        c = _finite_vec(span.controls, (4, 3))
        if c is None:
            return failure(GeometryStatus.InvalidArgument,
                           f"span {i}: controls must be a finite (4, 3) float64 array",
                           field="controls", index=i)
        w = span.domain_width
        if not is_finite_real(w) or not w > 0:  # is_finite_real: no OverflowError on a huge int
            return failure(GeometryStatus.InvalidArgument,
                           f"span {i}: domain_width must be finite and positive", field="domain_width",
                           index=i)
        src[i], widths[i] = c, float(w)

    chunk = narrow_to_chunk(src, origin, tol, "span")
    if not chunk.ok:
        return chunk
    narrowed = chunk.value.controls
    E, nerr, floor = chunk.value.max_magnitude, chunk.value.narrowing_error, chunk.value.position_floor

    joints = []
    for j in _joint_indices(n, source.is_closed):
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
            rec, in_range = _measure_joint(narrowed, widths, j, tol)  # an overflow is checked, not warned
        if not rec.position_gap <= tol.continuity_position:
            return failure(GeometryStatus.InvalidTopology,
                           f"joint {j}: spans {rec.incoming_span} and {j} are {rec.position_gap!r} apart, "
                           f"more than continuity_position = {tol.continuity_position!r}",
                           index=j, value=rec.position_gap)
        if not in_range:
            i = rec.incoming_span
            return failure(GeometryStatus.OutOfRange,
                           f"joint {j}: derivatives scaled by domain widths {widths[i]!r} (span {i}) and "
                           f"{widths[j]!r} (span {j}) leave the float64 range (overflow to inf or NaN, "
                           "or a nonzero derivative underflowing to 0)", field="domain_width", index=j)
        joints.append(rec)

    view = PathView(
        controls=readonly(narrowed),
        domain_widths=readonly(widths),
        origin=readonly(origin),
        is_closed=bool(source.is_closed),
        revision=int(source.revision),
        span_count=n,
        tolerance=tol,
        limits=limits,
        max_magnitude=E,
        narrowing_error=nerr,
        position_floor=floor,
        joints=tuple(joints),
    )
    return success(PreparedPath(view))


def _joint_indices(n: int, closed: bool):
    return range(0 if closed else 1, n)


def _measure_joint(narrowed: np.ndarray, widths: np.ndarray, j: int,
                   tol: ToleranceProfile) -> tuple[JointRecord, bool]:
    """The joint's record, and whether its scaled values are in the float64 range: every
    value finite, and a scaled derivative zero only where the unscaled one is (a width near
    0 overflows d = B'/w and s = B''/w^2 or their squared norms; a width near 2^1024
    underflows them to 0, which would read as a zero derivative)."""
    n = narrowed.shape[0]
    i = (j - 1) % n
    P_in = narrowed[i].astype(np.float64)
    P_out = narrowed[j].astype(np.float64)
    gap = float(np.linalg.norm(P_in[3] - P_out[0]))
    d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(F64, P_in, P_out, widths[i], widths[j])
    nd_in, nd_out = float(np.linalg.norm(d_in)), float(np.linalg.norm(d_out))
    ns_in, ns_out = float(np.linalg.norm(s_in)), float(np.linalg.norm(s_out))
    angle = float("nan")
    if nd_in > 0 and nd_out > 0:
        a, b = d_in / nd_in, d_out / nd_out
        angle = 2.0 * math.atan2(float(np.linalg.norm(a - b)), float(np.linalg.norm(a + b)))
    dd = float(np.linalg.norm(d_in - d_out))
    ds = max(nd_in, nd_out)
    sd = float(np.linalg.norm(s_in - s_out))
    ss = max(ns_in, ns_out)
    level = JointContinuity.C0
    if angle <= tol.continuity_angle:  # False for NaN: a zero derivative has no direction
        level = JointContinuity.G1
        if dd <= tol.continuity_derivative * ds:
            level = JointContinuity.C1
            if sd <= tol.continuity_second_derivative * ss:
                level = JointContinuity.C2
    norms = (nd_in, nd_out, ns_in, ns_out)
    in_range = all(math.isfinite(x) for x in (*norms, dd, sd))
    if in_range and min(norms) == 0:  # zero by value, or by underflow? Widths 1 divide by nothing.
        unscaled = K.joint_scaled_derivatives(F64, P_in, P_out, np.float64(1), np.float64(1))
        in_range = not any(x == 0 and np.any(u != 0) for x, u in zip(norms, unscaled))
    return JointRecord(j, i, gap, angle, dd, ds, sd, ss, level), in_range


# --- Evaluation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CubicSample3:
    """A chunk-relative position and its derivatives per normalized u (float64 (3,) each).
    Rounded."""

    position: np.ndarray
    first: np.ndarray
    second: np.ndarray


def _check_policy(view: PathView, policy: BoundaryPolicy) -> Outcome | None:
    if not isinstance(policy, BoundaryPolicy):
        raise TypeError("policy must be a BoundaryPolicy")
    if policy in (BoundaryPolicy.Reject, BoundaryPolicy.Clamp):
        return None
    if policy is BoundaryPolicy.Wrap and view.is_closed:
        return None
    why = "Wrap needs a closed path" if policy is BoundaryPolicy.Wrap else "paths accept Reject, Clamp and Wrap"
    return failure(GeometryStatus.InvalidArgument, f"policy {policy.value}: {why}", field="policy")


def resolve_parameter(view: PathView, parameter: SegmentParameter, policy: BoundaryPolicy,
                      side: SpanSide) -> Outcome:
    """Map a request to the ``(span, u)`` that is evaluated: policies outside the closed domain,
    then the span-side rules at exact boundaries. Exact (no rounding: ``u - floor(u)`` is exact).

    The domain is every ``(span, u)`` with ``0 <= span < n`` and ``0 <= u <= 1``. A request is
    *before* it when ``span + u < 0`` and *after* it when ``span + u > n`` (compared exactly);
    any other request outside the domain (for example span 1, u = 1.5 on a longer path)
    names no point and is ``InvalidArgument`` under every policy, as is a nonfinite u.
    ``(n, 0)`` and ``(-1, 1)`` name the terminal and the first endpoint.

    Returns:
        ``Outcome`` of ``(span_index, u)``.
    """
    bad = _check_policy(view, policy)
    if bad is not None:
        return bad
    if not isinstance(side, SpanSide):
        raise TypeError("side must be a SpanSide")
    if not isinstance(parameter, SegmentParameter):
        raise TypeError("parameter must be a SegmentParameter")
    k, u = parameter.span_index, parameter.u
    if not is_int(k) or not is_real(u):  # a numpy integer is a real too; a bool is not
        raise TypeError("SegmentParameter needs an int span_index and a float u")
    if not is_finite_real(u):  # before float(u), which raises on an int beyond the float range
        shown = repr(u) if isinstance(u, (float, np.floating)) else "an int beyond the float64 range"
        return failure(GeometryStatus.InvalidArgument, f"u = {shown} is not finite", field="u")
    k, u, n = int(k), float(u), view.span_count
    if (k, u) == (n, 0.0):  # the boundary after the last span: the terminal endpoint
        k, u = n - 1, 1.0
    elif (k, u) == (-1, 1.0):  # the boundary before the first span: the first endpoint
        k, u = 0, 0.0
    inside = 0 <= k < n and 0.0 <= u <= 1.0
    if not inside:
        before = _exact_sum_below(k, u, 0)
        after = _exact_sum_below(n, -u, k) if not before else False  # k + u > n
        if not (before or after):
            return failure(GeometryStatus.InvalidArgument,
                           f"(span {k}, u = {u!r}) names no point: u must be in [0, 1] for an "
                           f"interior span", field="u", index=k)
        if policy is BoundaryPolicy.Reject:
            return failure(GeometryStatus.InvalidDomain,
                           f"(span {k}, u = {u!r}) is outside the path's domain [0, {n}] (Reject)",
                           field="u", index=k)
        if policy is BoundaryPolicy.Clamp:
            k, u = (0, 0.0) if before else (n - 1, 1.0)
        else:  # Wrap on a closed path: exact integer/fraction split of u
            whole = math.floor(u)
            k, u = (k + whole) % n, u - whole
    # Span sides at exact boundaries.
    if u == 1.0 and k < n - 1 and side is SpanSide.Outgoing:
        k, u = k + 1, 0.0
    elif u == 0.0 and k > 0 and side is SpanSide.Incoming:
        k, u = k - 1, 1.0
    return success((k, u))


def _exact_sum_below(a: int, b: float, c: int) -> bool:
    """Exactly whether ``a + b < c`` for ints a, c and a float b (no rounding)."""
    from fractions import Fraction

    return Fraction(a) + Fraction(b) < Fraction(c)


def try_evaluate_path(view: PathView, parameter: SegmentParameter,
                      policy: BoundaryPolicy = BoundaryPolicy.Reject,
                      side: SpanSide = SpanSide.Outgoing, with_derivatives: bool = False) -> Outcome:
    """``TryEvaluatePath``: the chunk-relative position at ``parameter``, or a
    :class:`CubicSample3` with derivatives per u. Rounded (``reference.error_model``:
    ``position_bound``, ``derivative_bound``, ``second_derivative_bound`` with the span's E).

    Evaluated in float64 on the float32 controls (widened exactly). Add ``view.origin`` in
    float64 for asset coordinates. Never extrapolates.
    """
    r = resolve_parameter(view, parameter, policy, side)
    if not r.ok:
        return r
    k, u = r.value
    P = view.controls[k].astype(np.float64)
    uu = np.float64(u)
    if not with_derivatives:
        return success(K.cubic_point(F64, P, uu))
    pos, d1, d2 = K.cubic_sample(F64, P, uu)
    return success(CubicSample3(pos, d1, d2))


def try_evaluate_path_tangent(view: PathView, parameter: SegmentParameter, minimum_speed: float,
                              policy: BoundaryPolicy = BoundaryPolicy.Reject,
                              side: SpanSide = SpanSide.Outgoing) -> Outcome:
    """``TryEvaluatePathTangent``: the unit tangent ``B'/|B'|``. Rounded
    (``reference.error_model.tangent_bound``).

    ``Degenerate`` where the computed ``|dP/du|`` is at or below ``minimum_speed`` (a cusp, a
    zero-speed ease endpoint, a stationary span); the position there remains valid.
    ``minimum_speed`` must be finite and nonnegative (InvalidArgument).
    """
    if not is_finite_real(minimum_speed) or minimum_speed < 0:  # numpy integers are reals too
        return failure(GeometryStatus.InvalidArgument, "minimum_speed must be finite and >= 0",
                       field="minimum_speed")
    r = resolve_parameter(view, parameter, policy, side)
    if not r.ok:
        return r
    k, u = r.value
    d = K.cubic_derivative(F64, view.controls[k].astype(np.float64), np.float64(u))
    speed = float(np.linalg.norm(d))
    if not speed > minimum_speed:
        return failure(GeometryStatus.Degenerate,
                       f"|dP/du| = {speed!r} at (span {k}, u = {u!r}) is at or below {minimum_speed!r}",
                       index=k, value=speed)
    return success(d / speed)


def try_sample_path(view: PathView, span_indices, us, out_positions,
                    out_first=None, out_second=None,
                    policy: BoundaryPolicy = BoundaryPolicy.Reject,
                    side: SpanSide = SpanSide.Outgoing) -> Outcome:
    """Vectorised sampling into caller-owned float64 arrays (m, 3). Rounded, as
    :func:`try_evaluate_path`.

    Every precondition is checked before the first write: the outputs must be writeable
    float64 arrays of shape (cap, 3) (InvalidArgument otherwise) with ``cap >= m`` for m
    parameters (CapacityExceeded otherwise), and every parameter must resolve under
    ``policy``; on any failure every output is bit-for-bit unchanged. Rows ``[0, m)`` are
    written. Returns ``Outcome(m)``.
    """
    ks = np.asarray(span_indices)
    us = np.asarray(us)
    if ks.ndim != 1 or us.shape != ks.shape:
        return failure(GeometryStatus.InvalidArgument, "span_indices and us must be 1-D of equal length",
                       field="us")
    if ks.size and not np.issubdtype(ks.dtype, np.integer):
        return failure(GeometryStatus.InvalidArgument, "span_indices must be integers", field="span_indices")
    if us.size and not np.issubdtype(us.dtype, np.floating):
        return failure(GeometryStatus.InvalidArgument, "us must be floats", field="us")
    m = ks.shape[0]
    for name, out in (("out_positions", out_positions), ("out_first", out_first), ("out_second", out_second)):
        if out is None:
            if name == "out_positions":
                return failure(GeometryStatus.InvalidArgument, "out_positions is required", field=name)
            continue
        if not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.ndim != 2 \
                or out.shape[1] != 3 or not out.flags.writeable:
            return failure(GeometryStatus.InvalidArgument,
                           f"{name} must be a writeable float64 array of shape (cap, 3)", field=name)
        if out.shape[0] < m:
            return failure(GeometryStatus.CapacityExceeded,
                           f"{name} holds {out.shape[0]} rows, {m} parameters need more", field=name,
                           value=float(m))
    clash = overlap_failure((("out_positions", out_positions), ("out_first", out_first), ("out_second", out_second)),
                            (("span_indices", ks), ("us", us)))
    if clash is not None:
        return clash
    bad = _check_policy(view, policy)
    if bad is not None:
        return bad
    rk = np.empty(m, dtype=np.intp)
    ru = np.empty(m, dtype=np.float64)
    n = view.span_count
    inside = (ks >= 0) & (ks < n) & (us >= 0.0) & (us <= 1.0)
    everywhere = bool(inside.all())
    if everywhere:  # the common case: plain copies instead of masked ones
        rk[:], ru[:] = ks, us
    else:
        rk[inside], ru[inside] = ks[inside], us[inside]
    for i in ([] if everywhere else np.flatnonzero(~inside)):  # only requests outside the domain take the scalar path
        r = resolve_parameter(view, SegmentParameter(int(ks[i]), float(us[i])), policy, side)
        if not r.ok:
            d = r.diagnostic
            return failure(r.status, f"parameter {i}: {d.message}", field=d.field, index=int(i))
        rk[i], ru[i] = r.value
    # Span sides at exact boundaries (vectorised form of resolve_parameter's last step).
    if side is SpanSide.Outgoing:
        move = (ru == 1.0) & (rk < n - 1)
    else:
        move = (ru == 0.0) & (rk > 0)
    if not everywhere:
        move &= inside
    if move.any():
        step = 1 if side is SpanSide.Outgoing else -1
        rk[move] += step
        ru[move] = 0.0 if step == 1 else 1.0
    # The kernels of reference/kernel.py, compiled to one fused loop over the parameters
    # (reference/fused.py): the bits of kernel(F64, controls[rk].astype(float64), ru), without
    # twenty passes over memory or gathered copies of the controls.
    for out, name in ((out_positions, "cubic_point"), (out_first, "cubic_derivative"),
                      (out_second, "cubic_second_derivative")):
        if out is not None:
            fused_sampler(name)(view.controls, rk, ru, out)  # indices resolved above: unchecked
    return success(m)


def control_bounds(view: PathView, span_index: int | None = None) -> Outcome:
    """Axis-aligned bounds of a span's float32 controls, or of the whole path's. Exact.

    Returns:
        ``Outcome((lo, hi))`` with float32 (3,) arrays; InvalidArgument for a bad index.
    """
    if span_index is None:
        flat = view.controls.reshape(-1, 3)
        return success((flat.min(axis=0), flat.max(axis=0)))
    if not is_int(span_index) or not 0 <= span_index < view.span_count:
        return failure(GeometryStatus.InvalidArgument, f"span index {span_index!r} out of range",
                       field="span_index")
    lo, hi = K.control_box(F32, view.controls[span_index])  # min/max of float32 rounds nothing
    return success((lo, hi))


def try_get_joint_continuity(view: PathView, joint_index: int) -> Outcome:
    """The :class:`JointRecord` of joint ``joint_index`` (the start of that span). Values
    Rounded (``reference.error_model``: gap_bound, angle_bound, difference_bound).

    Open paths have joints 1..n-1; closed paths 0..n-1 (0 is the closing joint).
    """
    if not is_int(joint_index):
        raise TypeError("joint_index must be an int")
    first = 0 if view.is_closed else 1
    if not first <= joint_index < view.span_count:
        return failure(GeometryStatus.InvalidArgument,
                       f"joint {joint_index} does not exist (joints {first}..{view.span_count - 1})",
                       field="joint_index")
    return success(view.joints[joint_index - first])


# --- Conversions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class HermiteWaypoint:
    """A Hermite waypoint: position, tangent per unit of the authoring parameter, and the width
    of the span that starts here (``OutgoingWidth``)."""

    position: object
    tangent: object
    outgoing_width: float


def _check_outputs(out_controls, out_widths, needed: int) -> Outcome | None:
    ok_c = isinstance(out_controls, np.ndarray) and out_controls.dtype == np.float64 \
        and out_controls.ndim == 3 and out_controls.shape[1:] == (4, 3) and out_controls.flags.writeable
    ok_w = isinstance(out_widths, np.ndarray) and out_widths.dtype == np.float64 \
        and out_widths.ndim == 1 and out_widths.flags.writeable
    if not (ok_c and ok_w):
        return failure(GeometryStatus.InvalidArgument,
                       "outputs must be writeable float64 arrays of shapes (cap, 4, 3) and (cap,)",
                       field="out_controls")
    clash = overlap_failure((("out_controls", out_controls), ("out_widths", out_widths)))
    if clash is not None:
        return clash
    cap = min(out_controls.shape[0], out_widths.shape[0])
    if needed > cap:
        return failure(GeometryStatus.CapacityExceeded, f"{needed} spans need more than capacity {cap}",
                       field="capacity", value=float(needed))
    return None


def try_convert_hermite(waypoints: Sequence[HermiteWaypoint], is_closed: bool,
                        out_controls, out_widths) -> Outcome:
    """``TryConvertHermite``: ``B1 = P0 + h T0 / 3``, ``B2 = P1 - h T1 / 3`` with each waypoint's
    outgoing width ``h``. Rounded (``reference.error_model.hermite_bound``).

    Writes ``n - 1`` spans (``n`` when closed) into caller-owned ``out_controls`` (cap, 4, 3) and
    ``out_widths`` (cap,) float64, after checking every input (finite, at least two
    waypoints, positive widths: InvalidArgument), the capacity (CapacityExceeded) and the
    computed controls (a control that overflows float64 to inf or NaN: OutOfRange). On
    failure the outputs are unchanged. Returns ``Outcome(span_count)``.
    """
    pts = list(waypoints)
    n = len(pts)
    if n < 2:
        return failure(GeometryStatus.InvalidArgument, "a Hermite path needs at least two waypoints",
                       field="waypoints")
    P = np.empty((n, 3))
    T = np.empty((n, 3))
    H = np.empty(n)
    for i, w in enumerate(pts):
        if not isinstance(w, HermiteWaypoint):
            raise TypeError(f"waypoints[{i}] is not a HermiteWaypoint")
        p, t = _finite_vec(w.position, (3,)), _finite_vec(w.tangent, (3,))
        h = w.outgoing_width
        if p is None or t is None or not is_finite_real(h) or not h > 0:
            return failure(GeometryStatus.InvalidArgument,
                           f"waypoint {i}: position and tangent must be finite and the width positive",
                           index=i)
        P[i], T[i], H[i] = p, t, h
    spans = n if is_closed else n - 1
    bad = _check_outputs(out_controls, out_widths, spans)
    if bad is not None:
        return bad
    a = np.arange(spans)
    b = (a + 1) % n
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is checked below, not warned
        b1, b2 = K.hermite_inner_controls(F64, P[a], T[a], P[b], T[b], H[a])
    controls = np.stack([P[a], b1, b2, P[b]], axis=1)
    bad = _overflowed(controls, H[a])
    if bad is not None:
        return bad
    out_controls[:spans] = controls
    out_widths[:spans] = H[a]
    return success(spans)


def _overflowed(controls: np.ndarray, widths: np.ndarray) -> Outcome | None:
    """OutOfRange naming the first span whose computed controls or width are not finite, before
    anything is written: finite input can overflow (``h T / 3`` with ``T`` near 1e308), and a
    Rounded conversion has no bound for inf or NaN."""
    finite = np.isfinite(controls).all(axis=(1, 2)) & np.isfinite(widths)
    if finite.all():
        return None
    i = int(np.flatnonzero(~finite)[0])
    return failure(GeometryStatus.OutOfRange,
                   f"span {i}: the converted controls or width overflow the float64 range",
                   field="out_controls", index=i)


def _even_scale(v: np.ndarray) -> np.ndarray:
    """Per row of ``v`` (m, 3), an even exponent k with ``2^k max|v|`` in [0.5, 2): ``2^k v``
    squares without underflow or overflow (0 for a zero row)."""
    _, e = np.frexp(np.max(np.abs(v), axis=1))
    return -2 * (e // 2)


def try_convert_centripetal_catmull_rom(points, is_closed: bool, coincidence_distance: float,
                                        out_controls, out_widths) -> Outcome:
    """``TryConvertCentripetalCatmullRom``: Bezier spans through waypoints with centripetal
    (``sqrt(chord)``) knots. Rounded (``reference.error_model.catmull_rom_bound``).

    Interior waypoints (every waypoint of a closed source) take the nonuniform Barry-Goldman
    tangent; an open source's endpoints take the one-sided chord tangent. Span ``i`` runs from
    ``P_i`` to ``P_{i+1}`` with width ``d_i = |P_{i+1} - P_i|^(1/2)``, ``B1 = P_i + d_i m_i / 3``,
    ``B2 = P_{i+1} - d_i m_{i+1} / 3``.

    Consecutive waypoints within ``coincidence_distance`` (``|P_{i+1} - P_i| <= distance``),
    including a closed source's last and first waypoint (so a closed source must not repeat
    its first waypoint), are ``InvalidDomain`` with the pair's index. Nonfinite input, fewer
    than two waypoints (three when closed) or a negative distance is InvalidArgument; too
    small an output is CapacityExceeded; finite waypoints whose knot intervals or controls
    overflow float64 to inf or NaN are OutOfRange. Outputs are unchanged on failure. Returns
    ``Outcome(span_count)``.
    """
    try:
        P = np.asarray(points, dtype=np.float64) if not isinstance(points, np.ndarray) else points.astype(np.float64)
    except OverflowError:  # an int beyond the float range: no finite float64 waypoint
        return failure(GeometryStatus.InvalidArgument, "points must be a finite (n, 3) array", field="points")
    if P.ndim != 2 or P.shape[1] != 3 or not np.all(np.isfinite(P)):
        return failure(GeometryStatus.InvalidArgument, "points must be a finite (n, 3) array", field="points")
    n = P.shape[0]
    if n < (3 if is_closed else 2):
        return failure(GeometryStatus.InvalidArgument,
                       f"{'a closed' if is_closed else 'an open'} source needs at least "
                       f"{3 if is_closed else 2} waypoints", field="points")
    if not is_finite_real(coincidence_distance) or coincidence_distance < 0:
        return failure(GeometryStatus.InvalidArgument, "coincidence_distance must be finite and >= 0",
                       field="coincidence_distance")
    spans = n if is_closed else n - 1
    a = np.arange(spans)
    b = (a + 1) % n
    # Chords and knot intervals of 2^k-scaled differences (k even, exact both ways): their
    # squares then neither underflow nor overflow, so waypoints 1e-160 apart keep their
    # distance (unscaled, it squared to a subnormal or to 0); in the normal range the scaling
    # commutes with every rounding and changes no bit.
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is checked below, not warned
        diff = P[b] - P[a]  # rounded once, as the kernel's own b - a
        k = _even_scale(diff)
        scaled = np.ldexp(diff, k[:, None])
        chord = np.ldexp(np.linalg.norm(scaled, axis=1), -k)
    close = np.flatnonzero(~(chord > coincidence_distance))
    if close.size:
        i = int(close[0])
        return failure(GeometryStatus.InvalidDomain,
                       f"waypoints {i} and {(i + 1) % n} are {chord[i]!r} apart, within the coincidence "
                       f"distance {coincidence_distance!r}; merge them", index=i, value=float(chord[i]))
    bad = _check_outputs(out_controls, out_widths, spans)
    if bad is not None:
        return bad
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is checked below, not warned
        # knot interval of span i: |2^k (b - a)|^(1/2) = 2^(k/2) |b - a|^(1/2)
        d = np.ldexp(K.centripetal_knot_interval(F64, np.zeros_like(scaled), scaled), -k // 2)
        m = np.empty_like(P)
        if is_closed:
            prev = (np.arange(n) - 1) % n
            m[:] = K.barry_goldman_tangent(F64, P[prev], P, P[(np.arange(n) + 1) % n], d[prev], d)
        else:
            if n > 2:
                mid = np.arange(1, n - 1)
                m[mid] = K.barry_goldman_tangent(F64, P[mid - 1], P[mid], P[mid + 1], d[mid - 1], d[mid])
            m[0] = K.chord_tangent(F64, P[0], P[1], d[0])
            m[n - 1] = K.chord_tangent(F64, P[n - 2], P[n - 1], d[n - 2])
        b1, b2 = K.hermite_inner_controls(F64, P[a], m[a], P[b], m[b], d)
    controls = np.stack([P[a], b1, b2, P[b]], axis=1)
    bad = _overflowed(controls, d)
    if bad is not None:
        return bad
    out_controls[:spans] = controls
    out_widths[:spans] = d
    return success(spans)
