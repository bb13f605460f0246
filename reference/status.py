"""Status vocabulary of ``status.hpp``: statuses, guarantee classes, domain values and limits.

Everything here is plain data. Fallible functions of the fast path return an :class:`Outcome`
instead of raising for a failure the specification documents; a wrong Python *type* (a
programmer error the specification does not name) may raise ``TypeError``.

``ToleranceProfile`` and ``WorkLimits`` have no defaults: every field must be given, and
:func:`validate_tolerance` / :func:`validate_limits` check each field against its closed range
(``TOLERANCE_RANGES``, ``LIMIT_RANGES``; the ranges and their reasons are in
``docs/decisions.md``). Validation answers a status and never raises for a bad value.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, Generic, TypeVar

import numpy as np

__all__ = [
    "LIMIT_RANGES",
    "TOLERANCE_RANGES",
    "BoundaryPolicy",
    "GeometryDiagnostic",
    "GeometryStatus",
    "GuaranteeClass",
    "Outcome",
    "PathDistance",
    "SegmentParameter",
    "SpanSide",
    "ToleranceProfile",
    "TrackTime",
    "WorkLimits",
    "compute_position_floor",
    "effective_position_error",
    "failure",
    "is_finite_real",
    "is_int",
    "is_real",
    "is_success",
    "overlap_failure",
    "reported",
    "success",
    "validate_limits",
    "validate_tolerance",
]


class GeometryStatus(enum.Enum):
    """Every status spec 002 (``status.hpp``) and spec 004 (triangle surfaces) name."""

    Success = "Success"
    InvalidArgument = "InvalidArgument"
    InvalidDomain = "InvalidDomain"
    InvalidTopology = "InvalidTopology"
    UnsupportedPrecision = "UnsupportedPrecision"
    Degenerate = "Degenerate"
    IllConditioned = "IllConditioned"
    DegenerateFrame = "DegenerateFrame"
    MissingCache = "MissingCache"
    StaleRevision = "StaleRevision"
    CapacityExceeded = "CapacityExceeded"
    BudgetExceeded = "BudgetExceeded"
    OutOfRange = "OutOfRange"
    # Spec 004: a query with one ambiguous candidate is rejected whole; a cancelled query
    # returns no partial result.
    Ambiguous = "Ambiguous"
    Cancelled = "Cancelled"


def is_success(status: GeometryStatus) -> bool:
    """``IsSuccess``: true only for :attr:`GeometryStatus.Success`."""
    if not isinstance(status, GeometryStatus):
        raise TypeError(f"expected GeometryStatus, got {type(status).__name__}")
    return status is GeometryStatus.Success


class GuaranteeClass(enum.Enum):
    """ADR 0024 guarantee classes, strongest first."""

    Exact = "Exact"
    Rounded = "Rounded"
    Certified = "Certified"
    Estimated = "Estimated"
    Approximate = "Approximate"


# --- Domain values -------------------------------------------------------------------------
# Three separate types so that a distance can never be passed where a time is expected.


@dataclass(frozen=True, slots=True)
class SegmentParameter:
    """A span index and a normalized parameter ``u`` in ``[0, 1]`` (validated by the callee)."""

    span_index: int
    u: float


@dataclass(frozen=True, slots=True)
class PathDistance:
    """Prefix arc length in asset units."""

    value: float


@dataclass(frozen=True, slots=True)
class TrackTime:
    """Track time in seconds."""

    seconds: float


class SpanSide(enum.Enum):
    """Which span an exact interior boundary selects (spec: "Span sides")."""

    Outgoing = "Outgoing"
    Incoming = "Incoming"


class BoundaryPolicy(enum.Enum):
    """What happens outside the closed domain. Paths: Reject, Clamp, Wrap (closed only);
    tracks: Reject, Clamp, Hold, Loop, PingPong. Any other pairing is InvalidArgument."""

    Reject = "Reject"
    Clamp = "Clamp"
    Wrap = "Wrap"
    Hold = "Hold"
    Loop = "Loop"
    PingPong = "PingPong"


# --- Tolerances and limits -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToleranceProfile:
    """ADR 0024 tolerances, all required (no defaults). Lengths are asset units, angles radians.

    Attributes:
        position_error: absolute position error the asset accepts.
        relative_position_error: position error relative to ``asset_scale``.
        asset_scale: the asset's characteristic size (multiplies ``relative_position_error``).
        continuity_position: joints must meet within this distance (C0; else InvalidTopology).
        continuity_angle: largest angle between joint tangents classified G1.
        continuity_derivative: largest relative difference of DomainWidth-scaled first
            derivatives classified C1.
        continuity_second_derivative: largest relative difference of DomainWidth-scaled second
            derivatives classified C2.
        distance_error: largest certified gap of a distance map and largest inversion residual.
        projection_gap: largest certified gap of a strict projection.
        tangent_angle_error: frame transport error budget over the whole path.
        minimum_speed: derivative boxes closer than this to zero are not regular (frames).
        minimum_sin_angle: degenerate-seed threshold of frames.
        normal_min_derivative_length: surface partials at or below this are ill-conditioned.
        normal_min_sin_angle: surface partial pairs at or below this sine are ill-conditioned.
    """

    position_error: float
    relative_position_error: float
    asset_scale: float
    continuity_position: float
    continuity_angle: float
    continuity_derivative: float
    continuity_second_derivative: float
    distance_error: float
    projection_gap: float
    tangent_angle_error: float
    minimum_speed: float
    minimum_sin_angle: float
    normal_min_derivative_length: float
    normal_min_sin_angle: float


# Closed ranges [lo, hi] for every tolerance field (docs/decisions.md, "ADR 0024 ranges").
TOLERANCE_RANGES: dict[str, tuple[float, float]] = {
    "position_error": (0.0, 1e6),
    "relative_position_error": (0.0, 1e-2),
    "asset_scale": (1e-6, 1e9),
    "continuity_position": (0.0, 1e6),
    "continuity_angle": (0.0, math.pi),
    "continuity_derivative": (0.0, 1.0),
    "continuity_second_derivative": (0.0, 1.0),
    "distance_error": (1e-12, 1e6),
    "projection_gap": (1e-12, 1e6),
    "tangent_angle_error": (1e-12, math.pi),
    "minimum_speed": (0.0, 1e6),
    "minimum_sin_angle": (0.0, 1.0),
    "normal_min_derivative_length": (0.0, 1e6),
    "normal_min_sin_angle": (0.0, 1.0),
}


@dataclass(frozen=True, slots=True)
class WorkLimits:
    """Work and memory limits, all required (no defaults). A zero limit allows no work.

    Attributes:
        max_spans: spans a path preparation may hold.
        max_keys: keys a track preparation may hold.
        max_leaves: leaves a distance map may hold.
        max_depth: dyadic subdivision depth (distance leaves, frame intervals, sweep rings).
        max_subdivisions: leaf splits a distance build may perform.
        max_prepared_bytes: bytes a prepared owner may hold.
        max_samples: baked samples a frame or sweep preparation may hold.
    """

    max_spans: int
    max_keys: int
    max_leaves: int
    max_depth: int
    max_subdivisions: int
    max_prepared_bytes: int
    max_samples: int


LIMIT_RANGES: dict[str, tuple[int, int]] = {
    "max_spans": (0, 2**31 - 1),
    "max_keys": (0, 2**31 - 1),
    "max_leaves": (0, 2**31 - 1),
    # u is a float64: 2**-52 is the finest dyadic step that stays representable on [0, 1].
    "max_depth": (0, 52),
    "max_subdivisions": (0, 2**31 - 1),
    "max_prepared_bytes": (0, 2**40),
    "max_samples": (0, 2**31 - 1),
}


@dataclass(frozen=True, slots=True)
class GeometryDiagnostic:
    """The first failure of a preparation or query.

    Attributes:
        status: the failing status.
        message: a human-readable reason naming the offending item.
        field: the offending field or input name, if any.
        index: the offending span, joint, key, waypoint or triangle index, if any.
        value: the measured quantity that failed (for example a gap), if any.
        achieved: an achieved Certified quantity on BudgetExceeded (for example the gap), if any.
    """

    status: GeometryStatus
    message: str
    field: str | None = None
    index: int | None = None
    value: float | None = None
    achieved: float | None = None


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """The result of a fallible function: a status, the value on success, the first failure."""

    status: GeometryStatus
    value: T | None = None
    diagnostic: GeometryDiagnostic | None = None

    @property
    def ok(self) -> bool:
        return self.status is GeometryStatus.Success


def success(value: Any = None) -> Outcome:
    return Outcome(GeometryStatus.Success, value, None)


def reported(outcome: Outcome, diagnostic: list | None) -> Outcome:
    """``outcome``, after appending its diagnostic to ``diagnostic`` (the spec's optional
    ``GeometryDiagnostic*`` out-parameter, here a list) when it is a failure and a list is given."""
    if not outcome.ok and diagnostic is not None:
        diagnostic.append(outcome.diagnostic)
    return outcome


def failure(status: GeometryStatus, message: str, **details: Any) -> Outcome:
    """A failed :class:`Outcome` with its diagnostic; ``details`` are GeometryDiagnostic fields."""
    return Outcome(status, None, GeometryDiagnostic(status, message, **details))


def _exact_in_range(x, lo: float, hi: float) -> bool:
    """``lo <= x <= hi`` on exact values. Comparing a numpy float32 with a Python float bound
    would round the bound to float32 first, and ``math.isfinite`` raises on an int beyond the
    float range, so compare rationals instead."""
    if isinstance(x, (int, np.integer)):
        q = Fraction(int(x))
    elif not np.isfinite(x):
        return False
    else:
        q = Fraction(*x.as_integer_ratio())
    return lo <= q <= hi


def is_int(x) -> bool:
    """A Python or numpy integer, not a bool (the type test of every count and index)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_real(x) -> bool:
    """A Python or numpy int or float, not a bool (finiteness is checked separately)."""
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_finite_real(x) -> bool:
    """:func:`is_real` with a finite float64 value. An int that rounds beyond the float64 range
    is no finite float64 value: False, where ``math.isfinite`` and ``float`` raise
    ``OverflowError`` on it (a validator must answer a status, not raise)."""
    if not is_real(x):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


# np.shares_memory is exact; it gives up (TooHardError) only on strides whose overlap is costly
# to decide, which no caller's ordinary slices reach.
_OVERLAP_WORK = 1 << 16


def overlap_failure(outputs, inputs=()) -> Outcome | None:
    """InvalidArgument naming the first of the ``(name, array)`` pairs in ``outputs`` that shares
    memory with an earlier output or with any of ``inputs`` (``None`` entries skipped), or None
    when they are disjoint. A caller's output arrays that overlap would be written twice and hold
    garbage after a Success, and an output that overlaps an input changes the input
    mid-computation: the entry points that take several caller-owned arrays answer
    InvalidArgument instead, before any write (docs/decisions.md "Caller-owned arrays that share
    memory"). Inputs may share memory with each other (they are only read). Interleaved views
    that share no element (the columns of one array) are disjoint; overlap too costly to decide
    counts as overlap."""
    earlier = [a for _, a in inputs if a is not None]
    for name, a in outputs:
        if a is None:
            continue
        for b in earlier:
            try:
                hit = np.shares_memory(a, b, max_work=_OVERLAP_WORK)
            except np.exceptions.TooHardError:
                hit = True
            if hit:
                return failure(GeometryStatus.InvalidArgument, f"{name} shares memory with another array of the "
                               "call: outputs must be disjoint from each other and from the inputs", field=name)
        earlier.append(a)
    return None


def _check_ranges(obj: Any, kind: type, ranges: dict, *, integral: bool) -> Outcome:
    if not isinstance(obj, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(obj).__name__}")
    for f in fields(obj):
        x = getattr(obj, f.name)
        lo, hi = ranges[f.name]
        if integral:
            ok = is_int(x) and lo <= x <= hi
        else:
            ok = is_real(x) and _exact_in_range(x, lo, hi)
        if not ok:
            return failure(
                GeometryStatus.InvalidArgument,
                f"{kind.__name__}.{f.name} = {x!r} is outside its range [{lo}, {hi}]",
                field=f.name,
            )
    return success(obj)


def validate_tolerance(tolerance: ToleranceProfile) -> Outcome:
    """InvalidArgument (naming the field) unless every field is finite and inside its range."""
    return _check_ranges(tolerance, ToleranceProfile, TOLERANCE_RANGES, integral=False)


def validate_limits(limits: WorkLimits) -> Outcome:
    """InvalidArgument (naming the field) unless every field is an integer inside its range."""
    return _check_ranges(limits, WorkLimits, LIMIT_RANGES, integral=True)


def effective_position_error(tolerance: ToleranceProfile) -> float:
    """``max(PositionError, RelativePositionError x AssetScale)``, the product rounded to
    nearest in float64 (the spec's formula; Exact as a function of its float64 inputs)."""
    return max(float(tolerance.position_error),
               float(np.float64(tolerance.relative_position_error) * np.float64(tolerance.asset_scale)))


def compute_position_floor(max_narrowed_magnitude: float, narrowing_error: float) -> float:
    """``ComputePositionFloor``: ``2 * ulp32(E) + narrowing_error``, rounded up to float64. Exact.

    Args:
        max_narrowed_magnitude: E, the largest magnitude of the narrowed float32 controls.
        narrowing_error: the largest ``|narrowed - (source - origin)|`` over all control
            components, exact and rounded up to float64 (see ``reference.fp.narrowing_error``).

    Returns:
        The float32 position floor: the exact sum of the two terms rounded toward +inf (an
        error-free sum decides the rounding, so the value is bit-reproducible by exact rational
        arithmetic). The effective position error must be at least this, else
        UnsupportedPrecision. The terms add because the prepared curve already sits up to
        ``narrowing_error`` from the source before any float32 evaluation error (a maximum would
        make the narrowing term redundant: it never exceeds half of ``ulp32(E)`` plus the
        float64 subtraction's half ulp).
    """
    from .fp import two_sum, ulp32  # local import: fp imports nothing from here

    a = 2.0 * float(ulp32(np.float32(abs(max_narrowed_magnitude))))
    b = float(narrowing_error)
    s, e = two_sum(np.float64(a), np.float64(b))
    return float(np.nextafter(s, np.inf)) if e > 0 else float(s)
