"""Transported frames (``frame.hpp``): rotation-minimizing frames by double reflection.

**Method.** ``try_build_frames`` bakes rotation-minimizing frames with the double-reflection
method of Wang, Juttler, Zheng and Liu (ACM TOG 27(1), 2008). One step from ``(x0, t0, r0)`` to
``(x1, t1)`` reflects in the plane normal to ``v1 = x1 - x0`` and then in the plane normal to
``v2 = t1 - tL`` (``tL`` the reflected tangent); the result is projected perpendicular to
``t1`` and normalized (so rounding never lets a frame drift off orthonormality). The chord
``v1`` is computed as the integral of the hodograph over the step (``kernel.cubic_chord``), not
as a difference of two positions: its rounding is then relative to the step's own length, and a
short chord keeps its direction (docs/decisions.md "Frames: the rounding allowance of a step
whose chord is short").

**Stepping.** Each span is stepped over dyadic intervals ``[a, b]`` (depth d: width ``2^-d``).

* *Regularity* (Certified): the derivative over ``[a, b]`` is the quadratic hodograph; its
  three Bezier controls come from the float64 subsegment controls ``Q`` of ``[a, b]``
  (``kernel.cubic_subsegment``) as ``3 (Q[i+1] - Q[i]) / (b - a)``, each widened by the
  subsegment error (``error_model.subsegment_error_bound``) and outward rounded
  (``reference.fp``). By the convex-hull property the box of these controls holds ``B'(u)``
  for every u in ``[a, b]``; the interval is *regular* when the box's smallest Euclidean
  norm (``hypot_lo`` of the smallest |component|) is strictly above ``MinimumSpeed``, and
  *certainly slow* when the box's largest norm is at or below it.
* *Acceptance* (Estimated): a regular interval is accepted when the angle between one
  reflection step ``a -> b`` and two half steps ``a -> m -> b`` is at most
  ``TangentAngleError * share``, ``share = (s(b) - s(a)) / TotalEstimate`` with ``s`` the
  distance map's prefix estimate (``try_bound_distance``'s estimate), or at most
  ``ROUNDING_FLOOR`` (no halving can resolve differences at float64 noise). Both steps map
  ``t(a)`` to ``t(b)`` by a proper rotation, so the angle does not depend on the frame
  transported so far and the whole partition is decided before any frame is transported.
* Acceptance starts at depth 2 (``MIN_DEPTH``): a whole span of a symmetric cubic (an arc or
  helix approximation) fools the comparison, since one step and two half steps err alike there,
  and so, more rarely, does a half span (docs/decisions.md "Frames: the share-of-path rule,
  MIN_DEPTH and the limits").
* An interval that is neither regular nor certainly slow is halved until ``MaxDepth``; at the
  limit it is decided once more with a finer box (the hodograph's own controls, whose rounding
  does not grow with depth), and what stays undecided is a singular range exactly
  ``2^-MaxDepth`` wide (spec 002), centred on the common end of two undecided intervals when
  their outer halves are regular (a cusp at a dyadic u). A certainly slow interval is singular
  at any width, and adjacent slow intervals merge into one range (``FrameRange``); a
  depth-limited range is never merged. A regular interval still not accepted at ``MaxDepth``
  is BudgetExceeded.
* ``AngularErrorEstimate`` is the sum of every accepted interval's angle plus the largest
  one. It is Estimated, so a ``strict`` preparation returns UnsupportedPrecision.

**Runs.** The first run is seeded at its first regular parameter by ``SeedUp`` projected
perpendicular to the tangent there, ``p = s - (s . t) t``, normalized; its sine is
``|p| / |s|``. At or below ``MinimumSinAngle``, RejectDegenerateSeed is DegenerateFrame and
UseFallbackAxis projects ``FallbackAxis`` instead (DegenerateFrame if that is degenerate too)
and records ``FrameRun.is_fallback_seeded``. Every later run is seeded the same way.

Policy table (spec 002 "Transported frames"):

* a singular range inside a span: ``FrameSingularityPolicy.Reject`` is DegenerateFrame with the
  range in ``FrameDiagnostic.parameter_range``; ``SplitRuns`` ends the run at the range's start
  and seeds a new one at its end;
* a joint that is not G1 under ``ContinuityAngle`` (the path's joint record):
  ``FrameCornerPolicy.Reject`` is DegenerateFrame; ``RotateMinimally`` rotates the incoming
  frame about ``t_in x t_out`` (``kernel.rotate_between``; an exact reversal, computed
  ``1 + t_in . t_out <= 0``, is DegenerateFrame); ``SplitRuns`` seeds a new run on the outgoing
  span. A G1 joint is always crossed by the minimal rotation. A joint has an incoming sample
  at u = 1 and an outgoing sample at u = 0.
* a closed path baked as one run crosses its closing joint the same way; the residual twist
  is the signed angle about ``t(0, 0)`` from the first normal to the transported last one.
  ``ClosedFramePolicy.DistributeTwist`` adds ``(-ResidualTwist + 2 pi WindingTurns) s / L``
  of roll at estimated distance s (L = TotalEstimate), so the seam is periodic;
  ``PreserveHolonomy`` keeps the transported frames and reports ``residual_twist``.

**Evaluation.** ``try_evaluate_frame`` transports the preceding baked sample of the same run
to the analytic tangent at the request with one reflection step (so its result depends only
on the cache and the request), applies the twist compensation interpolated in proportion to
arc length between that sample and the next one of the run (DistributeTwist's roll is "in
proportion to estimated distance"), then the caller's roll. Degenerate inside a singular range
(and at the common end of two): no frame is reused across one.

Guarantees: the regularity decision is Certified; frame vectors and positions are Rounded
(``FRAME_VECTOR_K``, ``docs/decisions.md`` "Frames: the error model"); the angular error
estimate and the residual twist are Estimated.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from . import kernel as K
from .context import F64
from .distance import DistanceMapView, leaf_bounds
from .error_model import subsegment_error_bound
from .fp import U64, add_hi, add_lo, hypot_hi, hypot_lo, mul_hi, mul_lo, mul_range, sub_hi, sub_lo
from .owner import Owner, readonly
from .path import JointContinuity, PathView, resolve_parameter
from .status import (
    BoundaryPolicy,
    GeometryDiagnostic,
    GeometryStatus,
    Outcome,
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
    "FRAME_VECTOR_K",
    "MAX_WINDING_TURNS",
    "MIN_DEPTH",
    "ROUNDING_FLOOR",
    "SAMPLE_BYTES",
    "ClosedFramePolicy",
    "FrameCornerPolicy",
    "FrameDiagnostic",
    "FramePreparation",
    "FrameRange",
    "FrameRun",
    "FrameSeedPolicy",
    "FrameSingularityPolicy",
    "FramesView",
    "PreparedFrames",
    "TransportedFrame",
    "double_reflection",
    "frames_bytes",
    "transported_normal",
    "try_build_frames",
    "try_evaluate_frame",
]

# Accepted whatever its share: one reflection step and two half steps that differ by at most
# this many radians differ by float64 rounding, which halving cannot reduce.
ROUNDING_FLOOR = 64.0 * U64
# Rounding constant of the frame vectors' error model (docs/decisions.md, "Frames: the error
# model"): orthonormality and handedness residuals are at most FRAME_VECTOR_K * u.
FRAME_VECTOR_K = 16.0
MAX_WINDING_TURNS = 1 << 20
# Intervals are accepted from depth 1 on: the one-step-versus-two comparison is blind on an
# interval whose curve is symmetric under a half-turn about its midpoint normal (a whole span
# of a symmetric cubic, such as a circular-arc or helix approximation: there one step and two
# half steps err alike), and no dyadic interval of depth >= 1 is centred on u = 1/2.
MIN_DEPTH = 2
# Bytes per baked sample: span (4), run (4), u and next u (16), position, tangent and normal
# (72), twist, distance and interval angle (24). Per run 24, per singular range 24.
SAMPLE_BYTES = 4 + 4 + 16 + 72 + 24
_RUN_BYTES = 24
_RANGE_BYTES = 24


def frames_bytes(samples: int, runs: int, ranges: int) -> int:
    """Bytes a prepared frame cache holds; checked against ``WorkLimits.max_prepared_bytes``.
    Exact (integer arithmetic).

    Raises:
        ValueError: a negative count (its negative size would pass any budget check).
    """
    if samples < 0 or runs < 0 or ranges < 0:
        raise ValueError(f"frames_bytes: counts must be nonnegative, got samples = {samples!r}, "
                         f"runs = {runs!r}, ranges = {ranges!r}")
    return samples * SAMPLE_BYTES + runs * _RUN_BYTES + ranges * _RANGE_BYTES


class FrameSeedPolicy(enum.Enum):
    """What a degenerate seed (``SeedUp`` nearly parallel to the first tangent) does."""

    RejectDegenerateSeed = "RejectDegenerateSeed"
    UseFallbackAxis = "UseFallbackAxis"


class FrameSingularityPolicy(enum.Enum):
    """What a zero-speed, cusp or reversal range inside a span does."""

    Reject = "Reject"
    SplitRuns = "SplitRuns"


class FrameCornerPolicy(enum.Enum):
    """What a joint that is not G1 under ``ContinuityAngle`` does."""

    Reject = "Reject"
    RotateMinimally = "RotateMinimally"
    SplitRuns = "SplitRuns"


class ClosedFramePolicy(enum.Enum):
    """What a closed path's residual twist does."""

    DistributeTwist = "DistributeTwist"
    PreserveHolonomy = "PreserveHolonomy"


@dataclass(frozen=True)
class FramePreparation:
    """Frame build settings, all required (no defaults).

    Attributes:
        seed_up: (3,) finite nonzero float64, the up vector projected at the first tangent.
        seed_policy: a :class:`FrameSeedPolicy`.
        fallback_axis: (3,) finite nonzero float64, projected when the seed is degenerate.
        singularity_policy: a :class:`FrameSingularityPolicy`.
        corner_policy: a :class:`FrameCornerPolicy`.
        closed_policy: a :class:`ClosedFramePolicy` (used by closed paths only).
        winding_turns: int in ``[-MAX_WINDING_TURNS, MAX_WINDING_TURNS]``: whole turns of roll
            DistributeTwist adds over a closed loop.
        strict: True asks for Certified frames, which do not exist (the angular error is
            Estimated): UnsupportedPrecision. Visual builds pass False.
        limits: ``WorkLimits``: ``max_samples`` (baked samples), ``max_depth`` (interval
            depth), ``max_subdivisions`` (interval splits), ``max_prepared_bytes``.
    """

    seed_up: object
    seed_policy: FrameSeedPolicy
    fallback_axis: object
    singularity_policy: FrameSingularityPolicy
    corner_policy: FrameCornerPolicy
    closed_policy: ClosedFramePolicy
    winding_turns: int
    strict: bool
    limits: WorkLimits


@dataclass(frozen=True)
class FrameRun:
    """One run of transported frames: samples ``[first_sample, first_sample + sample_count)``.

    Attributes:
        first_sample, sample_count: the run's baked samples, in path order.
        start, end: the run's first and last parameter.
        is_fallback_seeded: the seed was the projected ``FallbackAxis`` (``IsFallbackSeeded``).
        seed_sine: sine of the angle between the projected axis and the tangent (Rounded).
    """

    first_sample: int
    sample_count: int
    start: SegmentParameter
    end: SegmentParameter
    is_fallback_seeded: bool
    seed_sine: float


@dataclass(frozen=True)
class FrameRange:
    """A singular parameter range ``[u0, u1]`` of one span (no frame inside).

    ``is_depth_limited``: one interval exactly ``2^-MaxDepth`` wide that could not be shown
    regular at the depth limit (on the ``2^-MaxDepth`` grid, or centred on a grid point between
    two undecided intervals); otherwise made of intervals shown slow everywhere (derivative box
    within MinimumSpeed).
    """

    span: int
    u0: float
    u1: float
    is_depth_limited: bool


@dataclass(frozen=True)
class FrameDiagnostic(GeometryDiagnostic):
    """A :class:`GeometryDiagnostic` that also names a parameter range (singular ranges)."""

    parameter_range: tuple | None = None  # (SegmentParameter, SegmentParameter)


@dataclass(frozen=True)
class FramesView:
    """A read-only view of baked frames (arrays not writeable).

    Samples are in path order (span, then u); each belongs to one run. The regular interval
    starting at sample i is ``[sample_u[i], sample_next_u[i]]`` of ``sample_span[i]``
    (``sample_next_u[i] == sample_u[i]`` for a run's last sample of a span).

    Attributes:
        is_built: False for frames never built (evaluation: MissingCache).
        revision, span_count: the path the frames were built for.
        runs: tuple of :class:`FrameRun`.
        ranges: tuple of :class:`FrameRange`, the singular ranges, in path order.
        sample_span, sample_run: (m,) int32.
        sample_u, sample_next_u: (m,) float64.
        sample_position: (m, 3) float64 chunk-relative positions (Rounded).
        sample_tangent: (m, 3) float64 unit tangents (Rounded).
        sample_normal: (m, 3) float64 transported normals, before twist compensation (Rounded
            vectors; their angle from the true rotation-minimizing frame is Estimated).
        sample_twist: (m,) float64 twist compensation (radians) at each sample, ``total s_i / L``
            (``sample_distance`` over TotalEstimate); zero unless DistributeTwist closed a loop.
            Evaluation interpolates it in proportion to arc length between samples.
        sample_distance: (m,) float64 the distance map's prefix estimate at each sample.
        sample_angle: (m,) float64 the accepted angle difference of the interval starting at
            each sample (0 where none starts).
        angular_error_estimate: ``AngularErrorEstimate``, radians, Estimated.
        residual_twist: ``ResidualTwist`` in (-pi, pi], radians, Estimated (0 unless
            ``is_closed_loop``).
        is_closed_loop: a closed path baked as one run across its closing joint.
        is_periodic: a closed loop under DistributeTwist (the seam is periodic).
        winding_turns: the preparation's winding turns.
        minimum_speed, tangent_angle_error, max_depth: the settings used.
    """

    is_built: bool
    revision: int = -1
    span_count: int = 0
    runs: tuple = ()
    ranges: tuple = ()
    sample_span: np.ndarray = None
    sample_run: np.ndarray = None
    sample_u: np.ndarray = None
    sample_next_u: np.ndarray = None
    sample_position: np.ndarray = None
    sample_tangent: np.ndarray = None
    sample_normal: np.ndarray = None
    sample_twist: np.ndarray = None
    sample_distance: np.ndarray = None
    sample_angle: np.ndarray = None
    angular_error_estimate: float = math.nan
    residual_twist: float = math.nan
    is_closed_loop: bool = False
    is_periodic: bool = False
    winding_turns: int = 0
    minimum_speed: float = math.nan
    tangent_angle_error: float = math.nan
    max_depth: int = 0

    @property
    def sample_count(self) -> int:
        return 0 if self.sample_u is None else int(self.sample_u.shape[0])


_UNBUILT = FramesView(is_built=False)


class PreparedFrames(Owner):
    """Immutable baked frames. ``PreparedFrames()`` is the unbuilt cache (evaluation:
    MissingCache); :func:`try_build_frames` returns built ones."""

    __slots__ = ()

    def __init__(self, view: FramesView | None = None):
        super().__init__(_UNBUILT if view is None else view)


@dataclass(frozen=True)
class TransportedFrame:
    """``TransportedFrame``: chunk-relative position, unit tangent, normal and binormal =
    tangent x normal (right-handed, orthonormal). Rounded (``FRAME_VECTOR_K``)."""

    position: np.ndarray
    tangent: np.ndarray
    normal: np.ndarray
    binormal: np.ndarray


# --- Small float64 helpers -------------------------------------------------------------------


def _dot(a, b):
    return K.dot(F64, a, b)


def _unit(v):
    return v / np.sqrt(_dot(v, v))[..., None]


def _reflect_or_keep(v, n):
    """``kernel.reflect`` where ``n . n > 0``; ``v`` unchanged where ``n`` is zero."""
    c = _dot(n, n)
    ok = c > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out = K.reflect(F64, v, np.where(ok[..., None], n, 1.0))
    return np.where(ok[..., None], out, v)


def double_reflection(v1, t0, r0, t1):
    """One double-reflection step (Wang et al. 2008), vectorised over leading axes. Rounded.

    Reflect ``r0`` and ``t0`` in the plane normal to the chord ``v1 = x1 - x0`` (given: see
    :func:`_chord`), then ``r`` in the plane normal to ``v2 = t1 - tL``; a zero ``v1`` or ``v2``
    skips its reflection (the step is then exact: equal inputs give ``r0`` back bit for bit).
    Returns the raw reflected vector (not re-projected).
    """
    rL = _reflect_or_keep(r0, v1)
    tL = _reflect_or_keep(t0, v1)
    return _reflect_or_keep(rL, t1 - tL)


def _chord(P, a, b):
    """``x(b) - x(a)`` of the span with float64 controls ``P`` (``kernel.cubic_chord``). Rounded,
    with an error relative to the step's length, not to the positions."""
    return K.cubic_chord(F64, P, a, b)


def _settle(r, t):
    """``r`` projected perpendicular to the unit ``t`` and normalized."""
    p = r - _dot(r, t)[..., None] * t
    return _unit(p)


def _angle_between_units(a, b):
    """Angle between unit vectors, ``2 atan2(|a - b|, |a + b|)`` (accurate at every angle)."""
    d = a - b
    s = a + b
    return 2.0 * np.arctan2(np.sqrt(_dot(d, d)), np.sqrt(_dot(s, s)))


def _any_perpendicular(t):
    """A unit vector perpendicular to each unit ``t`` (from the axis least aligned with it)."""
    idx = np.argmin(np.abs(t), axis=-1)
    e = np.zeros_like(t)
    np.put_along_axis(e, idx[..., None], 1.0, axis=-1)
    return _unit(K.cross(F64, t, e))


# --- Validation ------------------------------------------------------------------------------


def _finite_nonzero_vec(x) -> np.ndarray | None:
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the float range
        return None
    if a.shape != (3,) or not np.all(np.isfinite(a)) or not np.any(a != 0):
        return None
    with np.errstate(over="ignore", under="ignore"):  # the overflow is the answer, not a warning
        aa = float(_dot(a, a))
    if not math.isfinite(aa) or aa == 0.0:
        return None  # overflowing or underflowing squares: no direction can be computed
    return a


def _check_preparation(path: PathView, dmap: DistanceMapView, prep: FramePreparation) -> Outcome | None:
    check = validate_limits(prep.limits)
    if not check.ok:
        return check
    for name, kind in (("seed_policy", FrameSeedPolicy), ("singularity_policy", FrameSingularityPolicy),
                       ("corner_policy", FrameCornerPolicy), ("closed_policy", ClosedFramePolicy)):
        if not isinstance(getattr(prep, name), kind):
            return failure(GeometryStatus.InvalidArgument,
                           f"{name} = {getattr(prep, name)!r} is not a {kind.__name__}", field=name)
    for name in ("seed_up", "fallback_axis"):
        if _finite_nonzero_vec(getattr(prep, name)) is None:
            return failure(GeometryStatus.InvalidArgument,
                           f"{name} must be three finite float64 values, not all zero", field=name)
    w = prep.winding_turns
    if not is_int(w) or not -MAX_WINDING_TURNS <= w <= MAX_WINDING_TURNS:
        return failure(GeometryStatus.InvalidArgument,
                       f"winding_turns = {w!r} must be an int in [-{MAX_WINDING_TURNS}, {MAX_WINDING_TURNS}]",
                       field="winding_turns")
    if not isinstance(prep.strict, (bool, np.bool_)):
        return failure(GeometryStatus.InvalidArgument, "strict must be a bool", field="strict")
    if prep.strict:
        return failure(GeometryStatus.UnsupportedPrecision,
                       "AngularErrorEstimate is Estimated: a Strict frame preparation cannot be met",
                       field="strict")
    if not dmap.is_built:
        return failure(GeometryStatus.MissingCache, "the distance map was never built", field="map")
    if dmap.revision != path.revision or dmap.span_count != path.span_count \
            or dmap.distance_error != path.tolerance.distance_error:
        return failure(GeometryStatus.StaleRevision,
                       f"the distance map was built for revision {dmap.revision} with {dmap.span_count} "
                       f"spans, the path is revision {path.revision} with {path.span_count}",
                       field="revision")
    return None


# --- Estimated distance at parameters (vectorised try_bound_distance estimate) ---------------


def _estimates(path: PathView, dmap: DistanceMapView, ks: np.ndarray, us: np.ndarray) -> np.ndarray:
    """The distance map's prefix estimate at each ``(k, u)``, as ``try_bound_distance``'s."""
    ks = np.asarray(ks, dtype=np.intp)
    us = np.asarray(us, dtype=np.float64)
    out = np.empty(us.shape, dtype=np.float64)
    first = dmap.span_first_leaf[ks]
    last = dmap.span_first_leaf[ks + 1]
    end = us >= 1.0
    out[end] = dmap.prefix_estimate[last[end]]
    rest = np.flatnonzero(~end)
    if rest.size == 0:
        return out
    # the leaf of span k holding u: the last leaf of the span with u0 <= u
    key = ks[rest] * 2.0 + us[rest]  # spans are ints and u < 1: a strictly ordered key
    leaf_key = dmap.leaf_span.astype(np.float64) * 2.0 + dmap.leaf_u0
    i = np.searchsorted(leaf_key, key, side="right") - 1
    i = np.clip(i, first[rest], last[rest] - 1)
    u0 = dmap.leaf_u0[i]
    at = us[rest] == u0
    res = np.where(at, dmap.prefix_estimate[i], 0.0)
    inner = np.flatnonzero(~at)
    if inner.size:
        ii = i[inner]
        cl, pu, pe = leaf_bounds(path.controls[ks[rest][inner]], u0[inner], us[rest][inner])
        lo_i, hi_i = dmap.prefix_lower[ii], dmap.prefix_upper[ii]
        lower = np.maximum(add_lo(lo_i, cl), lo_i)
        upper = np.minimum(add_hi(hi_i, pu), dmap.prefix_upper[ii + 1])
        est = np.minimum(dmap.prefix_estimate[ii] + pe, dmap.prefix_estimate[ii + 1])
        res[inner] = np.minimum(np.maximum(est, lower), upper)
    out[rest] = res
    return out


# --- The interval decisions ------------------------------------------------------------------


def _derivative_boxes(P: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Outward-rounded boxes of ``B'(u)`` over ``[a, b]`` (per u): ``(lo, hi)``, (m, 3) each.
    ``P`` (m, 4, 3) float64 (float32 values)."""
    Q = K.cubic_subsegment(F64, P, a, b)
    two_e = 2.0 * subsegment_error_bound(P)  # (m, 3); doubling is exact
    scale = 3.0 / (b - a)  # 3 * 2^d: exact for dyadic intervals of depth <= 52
    los, his = [], []
    for i in range(3):
        dlo = sub_lo(sub_lo(Q[:, i + 1], Q[:, i]), two_e)
        dhi = add_hi(sub_hi(Q[:, i + 1], Q[:, i]), two_e)
        los.append(mul_lo(dlo, scale[:, None]))
        his.append(mul_hi(dhi, scale[:, None]))
    return np.minimum.reduce(los), np.maximum.reduce(his)


def _speed_range(lo, hi):
    """Outward bounds of the smallest and largest Euclidean norm over each box."""
    amin = np.where(lo > 0, lo, np.where(hi < 0, -hi, 0.0))
    amax = np.maximum(np.abs(lo), np.abs(hi))
    return hypot_lo(amin), hypot_hi(amax)


def _step_angles(P, a, b):
    """Angle between one reflection step a -> b and two half steps a -> m -> b, with the
    chords of the three steps (:func:`_chord`) and the unit tangents at a, m, b; and whether
    every computed speed is positive."""
    m = 0.5 * (a + b)
    V = [_chord(P, a, b), _chord(P, a, m), _chord(P, m, b)]  # the full step's chord, the halves'
    D = [K.cubic_derivative(F64, P, u) for u in (a, m, b)]
    speeds = [np.sqrt(_dot(d, d)) for d in D]
    ok = np.all([s > 0 for s in speeds], axis=0) & np.all([np.isfinite(s) for s in speeds], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        T = [d / s[:, None] for d, s in zip(D, speeds)]
        T = [np.where(ok[:, None], t, 1.0 / np.sqrt(3.0)) for t in T]
        r0 = _any_perpendicular(T[0])
        full = _settle(double_reflection(V[0], T[0], r0, T[2]), T[2])
        half = _settle(double_reflection(V[1], T[0], r0, T[1]), T[1])
        half = _settle(double_reflection(V[2], T[1], half, T[2]), T[2])
        ang = _angle_between_units(full, half)
    return np.where(ok, ang, np.inf), ok


@dataclass
class _Piece:
    a: float
    b: float
    regular: bool
    angle: float = 0.0
    depth_limited: bool = False


def _decide(path: PathView, dmap: DistanceMapView, ks, P, a, b, speeds, depth: int):
    """The decisions on intervals ``[a, b]`` of spans ``ks`` (depth ``depth``) from the outward
    bounds ``speeds = (smin, smax)`` of their derivative boxes' norms (:func:`_interval_speeds`):
    ``(regular, accepted, certainly slow, step angle)``, arrays."""
    ms = float(path.tolerance.minimum_speed)
    tae = float(path.tolerance.tangent_angle_error)
    total = float(dmap.total_estimate)
    smin, smax = speeds
    regular = smin > ms
    slow = ~regular & (smax <= ms)
    ang = np.full(ks.shape, np.inf)
    ok = np.zeros(ks.shape, dtype=bool)
    if np.any(regular):
        r = np.flatnonzero(regular)
        ang[r], ok[r] = _step_angles(P[r], a[r], b[r])
        regular &= ok  # a zero computed speed cannot carry a frame: treat as not regular
    share = np.zeros(ks.shape)
    if np.any(regular) and total > 0:
        r = np.flatnonzero(regular)
        s = _estimates(path, dmap, np.concatenate([ks[r], ks[r]]), np.concatenate([a[r], b[r]]))
        share[r] = np.maximum(s[r.size:] - s[:r.size], 0.0) / total
    accept = regular & ((ang <= tae * share) | (ang <= ROUNDING_FLOOR)) & (depth >= MIN_DEPTH)
    return regular, accept, slow, ang


def _partition(path: PathView, dmap: DistanceMapView, limits: WorkLimits):
    """Every span's dyadic partition into accepted regular intervals and singular pieces,
    decided level by level over all spans at once. Returns ``Outcome(list of piece lists)``."""
    n = path.span_count
    controls = path.controls.astype(np.float64)
    pieces: list[list[_Piece]] = [[] for _ in range(n)]
    ks = np.arange(n)
    a = np.zeros(n)
    b = np.ones(n)
    depth = 0
    splits = 0
    accepted = 0
    while ks.size:
        P = controls[ks]
        regular, accept, slow, ang = _decide(path, dmap, ks, P, a, b, _interval_speeds(path, P, a, b), depth)
        at_limit = depth >= limits.max_depth
        if at_limit and np.any(regular & ~accept):
            i = int(np.flatnonzero(regular & ~accept)[0])
            return failure(GeometryStatus.BudgetExceeded,
                           f"span {int(ks[i])}: interval [{a[i]!r}, {b[i]!r}] misses TangentAngleError's "
                           f"share at max_depth = {limits.max_depth}", field="max_depth",
                           index=int(ks[i]), value=float(ang[i]))
        unresolved = ~regular & ~slow & at_limit
        final = accept | slow | unresolved
        for i in np.flatnonzero(accept | slow):
            if accept[i]:
                pieces[ks[i]].append(_Piece(float(a[i]), float(b[i]), True, float(ang[i])))
            else:
                pieces[ks[i]].append(_Piece(float(a[i]), float(b[i]), False))
        if np.any(unresolved):
            q = np.flatnonzero(unresolved)
            settled = _settle_depth_limit(path, dmap, limits, ks[q], a[q], b[q], pieces, splits)
            if not settled.ok:
                return settled
            splits, extra = settled.value
            accepted += extra
        accepted += int(np.count_nonzero(accept))
        if accepted > limits.max_samples:
            return failure(GeometryStatus.BudgetExceeded,
                           f"more than max_samples = {limits.max_samples} baked samples", field="max_samples",
                           value=float(limits.max_samples))
        split = np.flatnonzero(~final)
        splits += split.size
        if splits > limits.max_subdivisions:
            return failure(GeometryStatus.BudgetExceeded,
                           f"more than max_subdivisions = {limits.max_subdivisions} interval splits",
                           field="max_subdivisions", value=float(limits.max_subdivisions))
        mid = 0.5 * (a[split] + b[split])  # exact: dyadic
        ks = np.concatenate([ks[split], ks[split]])
        a, b = np.concatenate([a[split], mid]), np.concatenate([mid, b[split]])
        depth += 1
    for p in pieces:
        p.sort(key=lambda q: q.a)
    return success(pieces)


def _hodograph_boxes(P: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Outward-rounded boxes of ``B'(u)`` over ``[a, b]`` (per row) from the span's own hodograph:
    its Bezier controls over ``[a, b]`` are the polar form ``h(a, a), h(a, b), h(b, b)`` of the
    quadratic ``B'``, evaluated from ``3 (P[i+1] - P[i])`` with outward rounding. Their rounding
    is a few u of the hodograph's size at any depth, where :func:`_derivative_boxes` (from
    subsegment controls, scaled by ``3 / (b - a)``) loses accuracy like ``2^depth``. ``P`` (m, 4,
    3) float64 (float32 values); ``a``, ``b`` dyadic. Certified."""
    dlo = [mul_lo(sub_lo(P[:, i + 1], P[:, i]), 3.0) for i in range(3)]
    dhi = [mul_hi(sub_hi(P[:, i + 1], P[:, i]), 3.0) for i in range(3)]
    los, his = [], []
    for x, y in ((a, a), (a, b), (b, b)):
        x, y = x[:, None], y[:, None]
        sx, sy = 1.0 - x, 1.0 - y  # exact: x, y are dyadic in [0, 1] on a grid of at most 2^-53
        w = [(mul_lo(sx, sy), mul_hi(sx, sy)),
             (add_lo(mul_lo(sx, y), mul_lo(x, sy)), add_hi(mul_hi(sx, y), mul_hi(x, sy))),
             (mul_lo(x, y), mul_hi(x, y))]
        lo = hi = None
        for (wl, wh), cl, ch in zip(w, dlo, dhi):
            tl, th = mul_range(wl, wh, cl, ch)
            lo = tl if lo is None else add_lo(lo, tl)
            hi = th if hi is None else add_hi(hi, th)
        los.append(lo)
        his.append(hi)
    return np.minimum.reduce(los), np.maximum.reduce(his)


def _interval_speeds(path: PathView, P: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Outward bounds ``(smin, smax)`` of ``|B'|`` over each ``[a, b]`` from the derivative box the
    interval is decided by: the level box (:func:`_derivative_boxes`), and where it shows the
    interval neither regular nor certainly slow, the hodograph's own box (:func:`_hodograph_boxes`),
    whose rounding does not grow with depth. Both enclose the same exact hodograph controls, so
    either is a Certified box of ``B'`` over ``[a, b]``; the finer one is computed (and its norms
    taken) only where the cheap one cannot decide (docs/decisions.md "Frames: the regularity box
    and singular ranges")."""
    smin, smax = _speed_range(*_derivative_boxes(P, a, b))
    ms = float(path.tolerance.minimum_speed)
    undecided = np.flatnonzero(~(smin > ms) & ~(smax <= ms))
    if undecided.size:
        smin[undecided], smax[undecided] = _speed_range(*_hodograph_boxes(P[undecided], a[undecided], b[undecided]))
    return smin, smax


def _settle_depth_limit(path: PathView, dmap: DistanceMapView, limits: WorkLimits, ks, a, b, pieces, splits):
    """Settle the intervals ``2^-MaxDepth`` wide that neither box (:func:`_interval_speeds`) shows
    regular or certainly slow, so that a range that cannot be shown regular is ``2^-MaxDepth``
    wide (spec 002, "Transported frames"; ``docs/decisions.md``, "Frames: depth-limited ranges
    are 2^-MaxDepth wide"): two adjacent such intervals ``[m - w, m]``, ``[m, m + w]`` with no
    undecided neighbour are an isolated zero at (or within rounding of) their common end ``m``:
    their outer halves, decided the same way, become regular intervals and the range is the one
    ``[m - w/2, m + w/2]`` centred on ``m``. Otherwise (a half not shown regular, or three
    undecided in a row: the speed stays within rounding of MinimumSpeed longer than one
    interval) each undecided interval is its own range.

    Appends to ``pieces``; returns ``Outcome((splits, accepted intervals))``."""
    depth = int(limits.max_depth)
    open_ = sorted((int(k), float(lo), float(hi)) for k, lo, hi in zip(ks, a, b))  # (span, a, b)
    extra = 0
    pairs = []
    for i in range(len(open_) - 1):
        (k, lo, m), (k1, m1, hi) = open_[i], open_[i + 1]
        alone_before = i == 0 or open_[i - 1][0] != k or open_[i - 1][2] != lo
        alone_after = i + 2 >= len(open_) or open_[i + 2][0] != k or open_[i + 2][1] != hi
        if k1 == k and m1 == m and alone_before and alone_after:
            pairs.append(i)
    centred = set()
    if pairs:
        half = 2.0 ** -(depth + 1)
        pk = np.array([open_[i][0] for i in pairs] * 2)
        pa = np.array([open_[i][1] for i in pairs] + [open_[i + 1][2] - half for i in pairs])
        pb = pa + half  # exact: on the 2^-(MaxDepth + 1) grid in [0, 1] (MaxDepth <= 52)
        P = path.controls.astype(np.float64)[pk]
        _, ok, _, pang = _decide(path, dmap, pk, P, pa, pb, _interval_speeds(path, P, pa, pb), depth + 1)
        n = len(pairs)
        for j, i in enumerate(pairs):
            if ok[j] and ok[n + j]:
                k, m = open_[i][0], open_[i][2]
                pieces[k].append(_Piece(float(pa[j]), float(pb[j]), True, float(pang[j])))
                pieces[k].append(_Piece(m - half, m + half, False, depth_limited=True))
                pieces[k].append(_Piece(float(pa[n + j]), float(pb[n + j]), True, float(pang[n + j])))
                centred.update((i, i + 1))
                splits += 2  # each undecided interval halved once
                extra += 2
    for i, (k, lo, hi) in enumerate(open_):
        if i not in centred:
            pieces[k].append(_Piece(lo, hi, False, depth_limited=True))
    if splits > limits.max_subdivisions:
        return failure(GeometryStatus.BudgetExceeded,
                       f"more than max_subdivisions = {limits.max_subdivisions} interval splits",
                       field="max_subdivisions", value=float(limits.max_subdivisions))
    return success((splits, extra))


def _merge_ranges(span: int, pieces: list) -> list:
    """The singular ranges of one span: adjacent intervals shown slow merge into one range; a
    depth-limited interval is a range of its own, ``2^-MaxDepth`` wide (the spec's sentence)."""
    out = []
    for p in pieces:
        if p.regular:
            continue
        if out and out[-1][1] == p.a and not out[-1][2] and not p.depth_limited:
            out[-1] = (out[-1][0], p.b, False)
        else:
            out.append((p.a, p.b, p.depth_limited))
    return [FrameRange(span, a, b, lim) for a, b, lim in out]


# --- Transport -------------------------------------------------------------------------------


class _Samples:
    def __init__(self):
        self.span, self.run, self.u, self.next_u = [], [], [], []
        self.x, self.t, self.n, self.angle = [], [], [], []

    def add(self, k, run, u, x, t, n):
        self.span.append(k)
        self.run.append(run)
        self.u.append(u)
        self.next_u.append(u)
        self.x.append(x)
        self.t.append(t)
        self.n.append(n)
        self.angle.append(0.0)

    def __len__(self):
        return len(self.u)


def _point(P, u):
    x, d = K.cubic_point(F64, P, np.float64(u)), K.cubic_derivative(F64, P, np.float64(u))
    return x, d / np.sqrt(_dot(d, d))


def _seed(prep: FramePreparation, t, min_sin: float):
    """``(normal, is_fallback, sine)`` or a failure."""
    for axis_name, fallback in (("seed_up", False), ("fallback_axis", True)):
        s = np.asarray(getattr(prep, axis_name), dtype=np.float64)
        p = s - _dot(s, t) * t
        sine = float(np.sqrt(_dot(p, p)) / np.sqrt(_dot(s, s)))
        if sine > min_sin:
            # Projected once more: the first projection leaves t . n near u / sine (its
            # rounding is relative to |s|, the result's length is |s| sine); a second one
            # brings it to a few u (Gram-Schmidt twice is enough).
            return success((_settle(_unit(p), t), fallback, sine))
        if prep.seed_policy is FrameSeedPolicy.RejectDegenerateSeed:
            return failure(GeometryStatus.DegenerateFrame,
                           f"seed_up projected perpendicular to the tangent has sine {sine!r}, at or below "
                           f"minimum_sin_angle = {min_sin!r} (RejectDegenerateSeed)", field="seed_up", value=sine)
    return failure(GeometryStatus.DegenerateFrame,
                   f"fallback_axis projected perpendicular to the tangent has sine {sine!r}, at or below "
                   f"minimum_sin_angle = {min_sin!r}", field="fallback_axis", value=sine)


def _rotate_minimally(v, t_in, t_out):
    c = float(_dot(t_in, t_out))
    if not 1.0 + c > 0.0:
        return None
    return K.rotate_between(F64, v, t_in, t_out)


def _joint_policy(path: PathView, j: int) -> bool:
    """Whether joint j (start of span j) is G1 by the path's classification."""
    first = 0 if path.is_closed else 1
    rec = path.joints[j - first]
    return rec.continuity >= JointContinuity.G1


def _continues(path: PathView, pieces: list, k: int, i: int, corner_policy: FrameCornerPolicy) -> bool:
    """Whether the stretch of regular intervals starting at piece ``i`` of span ``k`` continues the
    run of span ``k - 1`` across joint k (the previous span ends regular and the joint is crossed:
    G1, or a corner under RotateMinimally or Reject, which fails later) rather than seeding a run."""
    return i == 0 and k > 0 and bool(pieces[k - 1]) and pieces[k - 1][-1].regular \
        and (_joint_policy(path, k) or corner_policy is not FrameCornerPolicy.SplitRuns)


def _signed_angle(a, b, axis) -> float:
    """Angle in (-pi, pi] rotating unit ``a`` to unit ``b`` about the unit ``axis``."""
    return float(math.atan2(float(_dot(K.cross(F64, a, b), axis)), float(_dot(a, b))))


def try_build_frames(path_view: PathView, distance_map_view: DistanceMapView, preparation: FramePreparation,
                     diagnostic: list | None = None) -> Outcome:
    """``TryBuildFrames``: bake rotation-minimizing frames by double reflection.

    Checks, in order (the first failure is returned, and appended to ``diagnostic`` if a list
    is given): limits ranges, policies of the right enum types, ``seed_up`` and
    ``fallback_axis`` finite and nonzero, ``winding_turns`` an int in range, ``strict`` a bool
    (InvalidArgument); ``strict`` True (UnsupportedPrecision: the angular error is Estimated);
    the distance map built (MissingCache) and built for this path, matching its revision, span
    count and ``distance_error`` (StaleRevision); then the build: exhausting ``max_depth`` on
    an interval that misses its accuracy share, ``max_subdivisions``, ``max_samples`` or
    ``max_prepared_bytes`` is BudgetExceeded (all counted before the sample arrays are
    allocated); the policy table's failures are DegenerateFrame (singular ranges carry
    ``FrameDiagnostic.parameter_range``).

    Returns:
        ``Outcome`` holding a new :class:`PreparedFrames`; on failure none (the caller's
        previous frames are untouched). Regularity decisions Certified; vectors Rounded;
        ``angular_error_estimate`` and ``residual_twist`` Estimated.
    """
    return reported(_build(path_view, distance_map_view, preparation), diagnostic)


def _build(path: PathView, dmap: DistanceMapView, prep: FramePreparation) -> Outcome:
    if not isinstance(path, PathView) or not isinstance(dmap, DistanceMapView) \
            or not isinstance(prep, FramePreparation):
        raise TypeError("try_build_frames(PathView, DistanceMapView, FramePreparation)")
    bad = _check_preparation(path, dmap, prep)
    if bad is not None:
        return bad
    tol, limits = path.tolerance, prep.limits
    part = _partition(path, dmap, limits)
    if not part.ok:
        return part
    pieces = part.value
    n = path.span_count
    ranges = [r for k in range(n) for r in _merge_ranges(k, pieces[k])]
    if ranges and prep.singularity_policy is FrameSingularityPolicy.Reject:
        r = ranges[0]
        return Outcome(GeometryStatus.DegenerateFrame, None, FrameDiagnostic(
            GeometryStatus.DegenerateFrame,
            f"span {r.span}: parameters [{r.u0!r}, {r.u1!r}] cannot be shown regular "
            f"(speed within minimum_speed = {tol.minimum_speed!r}: zero speed, cusp or reversal)",
            field="parameter_range", index=r.span, value=r.u0,
            parameter_range=(SegmentParameter(r.span, r.u0), SegmentParameter(r.span, r.u1))))
    regular_count = sum(1 for ps in pieces for p in ps if p.regular)
    # Samples: one per accepted interval end plus one per start of a stretch of regular
    # intervals (each span start or range end: a run's seed or a joint's outgoing sample), the
    # exact count, checked before allocating; runs: the stretch starts that do not continue a run
    # across a joint.
    starts = [(k, i) for k, ps in enumerate(pieces) for i, p in enumerate(ps)
              if p.regular and (i == 0 or not ps[i - 1].regular)]
    if regular_count + len(starts) > limits.max_samples:
        return failure(GeometryStatus.BudgetExceeded,
                       f"{regular_count + len(starts)} baked samples exceed max_samples = {limits.max_samples}",
                       field="max_samples", value=float(regular_count + len(starts)))
    runs_needed = sum(1 for k, i in starts if not _continues(path, pieces, k, i, prep.corner_policy))
    size = frames_bytes(regular_count + len(starts), runs_needed, len(ranges))
    if size > limits.max_prepared_bytes:
        return failure(GeometryStatus.BudgetExceeded,
                       f"{size} prepared bytes exceed max_prepared_bytes = {limits.max_prepared_bytes}",
                       field="max_prepared_bytes", value=float(size))

    controls = path.controls.astype(np.float64)
    S = _Samples()
    runs: list[dict] = []
    live = None  # the current run's last sample index, or None between runs
    min_sin = float(tol.minimum_sin_angle)

    def start_run(k, u, x, t):
        seeded = _seed(prep, t, min_sin)
        if not seeded.ok:
            return seeded
        nrm, fallback, sine = seeded.value
        runs.append({"first": len(S), "start": SegmentParameter(k, u), "fallback": fallback, "sine": sine})
        S.add(k, len(runs) - 1, u, x, t, nrm)
        return None

    def end_run():
        if runs and "last" not in runs[-1]:
            runs[-1]["last"] = len(S) - 1

    for k in range(n):
        P = controls[k]
        for p in pieces[k]:
            if not p.regular:
                end_run()  # SplitRuns (Reject failed above): the run ends before the range
                live = None
                continue
            if live is not None and S.span[live] != k:
                # The previous span ended regular at u = 1: a joint, with an incoming sample at
                # (k - 1, 1) and an outgoing sample at (k, 0).
                x, t = _point(P, 0.0)
                g1 = _joint_policy(path, k)
                if not g1 and prep.corner_policy is FrameCornerPolicy.Reject:
                    return failure(GeometryStatus.DegenerateFrame,
                                   f"joint {k} is not G1 under continuity_angle (Reject)", index=k,
                                   field="corner_policy")
                if g1 or prep.corner_policy is FrameCornerPolicy.RotateMinimally:
                    r = _rotate_minimally(S.n[live], S.t[live], t)
                    if r is None:
                        return failure(GeometryStatus.DegenerateFrame,
                                       f"joint {k}: the outgoing tangent exactly reverses the incoming one",
                                       index=k, field="corner_policy")
                    S.add(k, S.run[live], 0.0, x, t, _settle(r, t))
                    live = len(S) - 1
                else:  # SplitRuns: a new run is seeded on the outgoing span
                    end_run()
                    live = None
            if live is None:
                x, t = _point(P, p.a)
                bad = start_run(k, p.a, x, t)
                if bad is not None:
                    return bad
                live = len(S) - 1
            x1, t1 = _point(P, p.b)
            # the live sample is this span's, at p.a (the previous piece's end, a joint's (k, 0),
            # or the run's seed)
            r = double_reflection(_chord(P, S.u[live], p.b), S.t[live], S.n[live], t1)
            S.next_u[live] = p.b
            S.angle[live] = p.angle
            S.add(k, S.run[live], p.b, x1, t1, _settle(r, t1))
            live = len(S) - 1
        # A live run continues into span k + 1 only from (k, 1): the last piece was regular.
    end_run()

    m = len(S)
    if m == 0:
        return failure(GeometryStatus.DegenerateFrame, "no parameter of the path can be shown regular",
                       field="parameter_range")
    span = np.array(S.span, dtype=np.int32)
    u = np.array(S.u, dtype=np.float64)
    X, T, N = np.array(S.x), np.array(S.t), np.array(S.n)
    dist = _estimates(path, dmap, span, u)
    angles = np.array(S.angle, dtype=np.float64)
    estimate = float(np.sum(angles) + (np.max(angles) if m else 0.0))
    twist = np.zeros(m)
    residual = 0.0
    closed_loop = False
    if path.is_closed and len(runs) == 1 and runs[0]["start"] == SegmentParameter(0, 0.0) \
            and (S.span[-1], S.u[-1]) == (n - 1, 1.0):
        g1 = _joint_policy(path, 0)
        if not g1 and prep.corner_policy is FrameCornerPolicy.Reject:
            return failure(GeometryStatus.DegenerateFrame, "closing joint 0 is not G1 under continuity_angle "
                           "(Reject)", index=0, field="corner_policy")
        if g1 or prep.corner_policy is FrameCornerPolicy.RotateMinimally:
            r = _rotate_minimally(N[-1], T[-1], T[0])
            if r is None:
                return failure(GeometryStatus.DegenerateFrame,
                               "closing joint 0: the outgoing tangent exactly reverses the incoming one",
                               index=0, field="corner_policy")
            residual = _signed_angle(N[0], _settle(r, T[0]), T[0])
            closed_loop = True
            if prep.closed_policy is ClosedFramePolicy.DistributeTwist:
                total_twist = -residual + 2.0 * math.pi * int(prep.winding_turns)
                L = float(dmap.total_estimate)
                twist = total_twist * (dist / L) if L > 0 else np.zeros(m)
                twist[-1] = total_twist  # the path end: s = L exactly
    run_objs = []
    for i, rd in enumerate(runs):
        last = rd["last"]
        run_objs.append(FrameRun(rd["first"], last - rd["first"] + 1, rd["start"],
                                 SegmentParameter(int(span[last]), float(u[last])), rd["fallback"], rd["sine"]))
    view = FramesView(
        is_built=True, revision=path.revision, span_count=n, runs=tuple(run_objs), ranges=tuple(ranges),
        sample_span=readonly(span), sample_run=readonly(np.array(S.run, dtype=np.int32)),
        sample_u=readonly(u), sample_next_u=readonly(np.array(S.next_u, dtype=np.float64)),
        sample_position=readonly(X), sample_tangent=readonly(T), sample_normal=readonly(N),
        sample_twist=readonly(twist), sample_distance=readonly(dist), sample_angle=readonly(angles),
        angular_error_estimate=estimate, residual_twist=float(residual), is_closed_loop=closed_loop,
        is_periodic=closed_loop and prep.closed_policy is ClosedFramePolicy.DistributeTwist,
        winding_turns=int(prep.winding_turns), minimum_speed=float(tol.minimum_speed),
        tangent_angle_error=float(tol.tangent_angle_error), max_depth=int(limits.max_depth))
    return success(PreparedFrames(view))


# --- Evaluation ------------------------------------------------------------------------------


def _locate(frames: FramesView, k: int, u: float) -> int | None:
    """The baked sample that evaluation at ``(k, u)`` transports: the last sample of span k
    with ``sample_u <= u`` whose regular interval reaches u; None inside a singular range."""
    lo = int(np.searchsorted(frames.sample_span, k, side="left"))
    hi = int(np.searchsorted(frames.sample_span, k, side="right"))
    if lo == hi:
        return None
    j = lo + int(np.searchsorted(frames.sample_u[lo:hi], u, side="right")) - 1
    if j < lo:
        return None
    if u == frames.sample_u[j] or u <= frames.sample_next_u[j]:
        return j
    return None


def _check_frames(path: PathView, frames: FramesView) -> Outcome | None:
    if not isinstance(path, PathView) or not isinstance(frames, FramesView):
        raise TypeError("frame evaluation takes a PathView and a FramesView")
    if not frames.is_built:
        return failure(GeometryStatus.MissingCache, "the frames were never built", field="frames")
    if frames.revision != path.revision or frames.span_count != path.span_count:
        return failure(GeometryStatus.StaleRevision,
                       f"the frames were built for revision {frames.revision} with {frames.span_count} spans, "
                       f"the path is revision {path.revision} with {path.span_count}", field="revision")
    return None


def transported_normal(path_view: PathView, frames_view: FramesView, parameter: SegmentParameter,
                       side: SpanSide = SpanSide.Outgoing) -> Outcome:
    """The frame at ``parameter`` before twist compensation and roll: ``Outcome((k, u, j,
    position, tangent, normal))`` with ``j`` the baked sample transported. Rounded vectors;
    the normal's angle from the true rotation-minimizing frame is Estimated. The statuses of
    :func:`try_evaluate_frame` (except the roll)."""
    bad = _check_frames(path_view, frames_view)
    if bad is not None:
        return bad
    r = resolve_parameter(path_view, parameter, BoundaryPolicy.Reject, side)
    if not r.ok:
        return r
    k, u = r.value
    j = _locate(frames_view, k, u)
    if j is None:
        return failure(GeometryStatus.Degenerate,
                       f"(span {k}, u = {u!r}) lies in a singular range: no frame there", index=k, value=u)
    P = path_view.controls[k].astype(np.float64)
    x = K.cubic_point(F64, P, np.float64(u))
    d = K.cubic_derivative(F64, P, np.float64(u))
    speed = float(np.sqrt(_dot(d, d)))
    if not speed > 0.0 or not math.isfinite(speed):
        return failure(GeometryStatus.Degenerate, f"|dP/du| = {speed!r} at (span {k}, u = {u!r})",
                       index=k, value=speed)  # pragma: no cover - regular intervals exclude it
    t = d / speed
    if u == frames_view.sample_u[j]:
        nrm = frames_view.sample_normal[j].copy()
        t = frames_view.sample_tangent[j].copy()
        x = frames_view.sample_position[j].copy()
    else:
        chord = _chord(P, frames_view.sample_u[j], np.float64(u))  # sample j is span k's (_locate)
        nrm = _settle(double_reflection(chord, frames_view.sample_tangent[j], frames_view.sample_normal[j], t), t)
    return success((k, u, j, x, t, nrm))


# Gauss-Legendre nodes on [-1, 1] for the arc-length fraction of the twist interpolation.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)
# Piece doubling stops when two rules agree to this relative difference (float64 noise of a
# few hundred summed terms sits near 1e-15), or at _ARC_MAX_PIECES pieces.
_ARC_REL = 2.0**-44
_ARC_MAX_PIECES = 256


def _speed_integrals(D, lo: float, mid: float, hi: float, pieces: int):
    """The integrals of ``|B'|`` over ``[lo, mid]`` and ``[mid, hi]``, each by ``pieces`` equal
    Gauss-Legendre pieces of 8 nodes, float64; ``D`` the hodograph controls ``P[i+1] - P[i]``
    (the common factor 3 cancels in :func:`_arc_fraction`). Approximate."""
    edges = np.concatenate([np.linspace(lo, mid, pieces + 1), np.linspace(mid, hi, pieces + 1)])
    a, b = np.delete(edges[:-1], pieces), np.delete(edges[1:], pieces)
    h, c = 0.5 * (b - a), 0.5 * (b + a)
    u = (c[:, None] + h[:, None] * _GL_X[None, :]).ravel()
    s = 1.0 - u
    d = (s * s)[:, None] * D[0] + (2.0 * s * u)[:, None] * D[1] + (u * u)[:, None] * D[2]
    part = h * (np.sqrt(np.sum(d * d, axis=1)).reshape(2 * pieces, _GL_X.size) @ _GL_W)
    return float(np.sum(part[:pieces])), float(np.sum(part[pieces:]))


def _arc_fraction(P, u0: float, u: float, u1: float) -> float:
    """``l(u0, u) / l(u0, u1)`` for ``u0 <= u <= u1`` inside one regular interval, ``l`` the
    span's arc length: the share of the distance between two samples that lies before ``u``.
    Estimated to float64 accuracy: composite Gauss-Legendre quadrature of ``|B'|``, pieces
    doubled until two rules agree to ``_ARC_REL``. Exactly 0 at ``u0`` and 1 at ``u1``."""
    if u <= u0:
        return 0.0
    if u >= u1:
        return 1.0
    D = np.diff(np.asarray(P, dtype=np.float64), axis=0)
    before = after = None
    n = 1
    while True:
        a, b = _speed_integrals(D, u0, u, u1, n)
        done = before is not None and abs(a - before) <= _ARC_REL * a and abs(b - after) <= _ARC_REL * b
        if done or n >= _ARC_MAX_PIECES:
            break
        before, after, n = a, b, 2 * n
    total = a + b
    if not total > 0.0 or not math.isfinite(total):  # pragma: no cover - a regular interval has speed
        return (u - u0) / (u1 - u0)
    return a / total


def _twist_at(P, frames: FramesView, j: int, u: float) -> float:
    """DistributeTwist's compensation at ``u`` between sample ``j`` and the next sample of its
    run: in proportion to estimated distance (spec 002, "Transported frames"). The samples carry
    ``total s_i / L`` (``s_i`` the distance map's estimates); between them the estimated
    distance is ``s_j + (s_{j+1} - s_j) l(u_j, u) / l(u_j, u_{j+1})`` (:func:`_arc_fraction`),
    so the twist moves with the arc length, not with u. Rounded from Estimated distances."""
    tw = float(frames.sample_twist[j])
    u0, u1 = float(frames.sample_u[j]), float(frames.sample_next_u[j])
    if u == u0 or u1 == u0 or j + 1 >= frames.sample_count:
        return tw
    tw1 = float(frames.sample_twist[j + 1])
    if tw1 == tw:
        return tw
    return tw + (tw1 - tw) * _arc_fraction(P, u0, u, u1)


def try_evaluate_frame(path_view: PathView, frames_view: FramesView, parameter: SegmentParameter, roll: float,
                       side: SpanSide = SpanSide.Outgoing) -> Outcome:
    """``TryEvaluateFrame``: the :class:`TransportedFrame` at ``parameter`` rolled by ``roll``
    radians about the tangent. Vectors and position Rounded (``FRAME_VECTOR_K``); the normal's
    angle from the true rotation-minimizing frame is Estimated (``angular_error_estimate``).

    The parameter follows the path's domain rules with the Reject policy
    (``reference.path.resolve_parameter``): outside the domain is InvalidDomain, a nonfinite u
    InvalidArgument; ``side`` picks a joint's incoming (u = 1) or outgoing (u = 0) sample.
    Checks: frames built (MissingCache) for this path's revision and span count
    (StaleRevision); ``roll`` a finite real (InvalidArgument); Degenerate inside a singular
    range. Nothing is cached: the result depends only on the frames and the request.
    """
    bad = _check_frames(path_view, frames_view)
    if bad is not None:
        return bad
    if not is_finite_real(roll):  # an int beyond the float64 range included
        return failure(GeometryStatus.InvalidArgument, f"roll = {roll!r} must be a finite real", field="roll")
    got = transported_normal(path_view, frames_view, parameter, side)
    if not got.ok:
        return got
    k, u, j, x, t, nrm = got.value
    phi = _twist_at(path_view.controls[k].astype(np.float64), frames_view, j, u) + float(roll)
    if phi != 0.0:
        # Rodrigues, then projected and normalized again: the rotation's rounding (a few u on
        # each of |n| and t . n) is not left to add up with the binormal's.
        nrm = _settle(K.rotate_about(F64, nrm, t, np.float64(math.cos(phi)), np.float64(math.sin(phi))), t)
    b = K.cross(F64, t, nrm)
    return success(TransportedFrame(readonly(x), readonly(t), readonly(nrm), readonly(b)))
