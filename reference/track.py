"""Scalar tracks (``track.hpp``): keys, preparation and evaluation with boundary policies.

A track is a sequence of keys with strictly increasing float64 times (seconds) and float32
values and slopes (spec: ``.Value = 1.0F``). Each key names the interpolation of the span that
starts at it:

* ``Step`` holds the left key's value on the whole span, including u = 1 (so the Incoming side
  at a step's end and the terminal endpoint of a Step last span return the held value);
* ``Linear`` interpolates ``(1 - u) v0 + u v1``;
* ``Hermite`` uses the left key's ``out_slope`` ``m0`` and the right key's ``in_slope`` ``m1``
  in value units per second over the span's width ``h``:
  ``p(u) = h00 v0 + h10 h m0 + h01 v1 + h11 h m1`` with the cubic Hermite basis
  ``h00 = (1 + 2u)(1 - u)^2``, ``h10 = u (1 - u)^2``, ``h01 = u^2 (3 - 2u)``, ``h11 = u^2 (u - 1)``
  (it may overshoot and is never clamped).

Derivatives are per second. Span sides follow spec 002 "Span sides": an exact interior key
time selects the outgoing span at u = 0 (``SpanSide.Outgoing``) or the previous span at u = 1
(``SpanSide.Incoming``); the terminal key selects the last span at u = 1; the first key selects
the first span on both sides.

Boundary policies act only outside the closed domain ``[t_first, t_last]``: ``Reject``
(InvalidDomain), ``Clamp`` (endpoint value, one-sided derivative from inside), ``Hold``
(endpoint value, zero derivative), ``Loop`` (period ``L = t_last - t_first``) and ``PingPong``
(period 2L, the second half reflected, derivative negated there). ``Wrap`` is InvalidArgument.
The time reduction of Loop and PingPong is exact (rational arithmetic on the float64 inputs),
so a query many periods away lands on the same track time as the mathematics says; the only
rounding before the span arithmetic is the local parameter ``u``, rounded once to float64.

Guarantees: key values are Exact (evaluation at a key time returns the key's float32 value
bit for bit, as the side rules select it); values and derivatives are Rounded with the error
models :func:`value_error_bound` and :func:`derivative_error_bound` (``docs/decisions.md``,
"Track error model").
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction
from collections.abc import Sequence

import numpy as np

from .fp import U64
from .owner import Owner, readonly
from .status import (
    BoundaryPolicy,
    GeometryStatus,
    Outcome,
    SpanSide,
    TrackTime,
    WorkLimits,
    failure,
    is_finite_real,
    reported,
    success,
    validate_limits,
)

__all__ = [
    "DERIVATIVE_ERROR_K",
    "ETA64",
    "KEY_BYTES",
    "TRACK_POLICIES",
    "VALUE_ERROR_K",
    "PreparedTrack",
    "TrackInterpolation",
    "TrackKey",
    "TrackSample",
    "TrackView",
    "derivative_error_bound",
    "span_scale",
    "try_evaluate_track",
    "try_prepare_track",
    "value_error_bound",
]


class TrackInterpolation(enum.Enum):
    """The interpolation of the span that starts at a key."""

    Step = "Step"
    Linear = "Linear"
    Hermite = "Hermite"


@dataclass(frozen=True)
class TrackKey:
    """One key. ``value``, ``in_slope`` and ``out_slope`` must be float32 values (spec: float).

    Attributes:
        time: seconds, float64, finite; strictly increasing along the track.
        value: the key's value (float32).
        in_slope: Hermite slope arriving at this key, value units per second (float32).
        out_slope: Hermite slope leaving this key, value units per second (float32).
        interpolation: the interpolation of the span that starts here (ignored on the last key).
    """

    time: float
    value: float
    in_slope: float = 0.0
    out_slope: float = 0.0
    interpolation: TrackInterpolation = TrackInterpolation.Linear


# Error-model constants (docs/decisions.md "Track error model"): the rounding analyses in
# value_error_bound and derivative_error_bound give 8.5 and 19.5; the constants keep a margin.
VALUE_ERROR_K = 16.0
DERIVATIVE_ERROR_K = 32.0

# Smallest positive binary64 subnormal: the absolute error of an underflowing operation is
# at most half of it.
ETA64 = 2.0**-1074

TRACK_POLICIES = (BoundaryPolicy.Reject, BoundaryPolicy.Clamp, BoundaryPolicy.Hold,
                  BoundaryPolicy.Loop, BoundaryPolicy.PingPong)

# Bytes per prepared key (float64 time, three float32 values, one byte of interpolation), as
# checked against WorkLimits.max_prepared_bytes.
KEY_BYTES = 8 + 3 * 4 + 1

# Largest span scale (|v0| + |v1| + h (|m0| + |m1|), and the same over h) that evaluation
# accepts: far below the float64 overflow threshold, so no intermediate overflows.
_MAX_SCALE = 2.0**1000

_CODES = {TrackInterpolation.Step: 0, TrackInterpolation.Linear: 1, TrackInterpolation.Hermite: 2}
_BY_CODE = {v: k for k, v in _CODES.items()}


@dataclass(frozen=True)
class TrackView:
    """A read-only view of a prepared track (arrays are not writeable).

    Attributes:
        times: (n,) float64 key times. Exact (the source times).
        values: (n,) float32 key values. Exact.
        in_slopes, out_slopes: (n,) float32 slopes per second. Exact.
        interpolations: (n,) int8 codes (0 Step, 1 Linear, 2 Hermite) of the span starting at
            each key; :meth:`interpolation` names them.
        widths: (n - 1,) float64 span widths ``fl(t_{k+1} - t_k)``. Rounded (one rounding).
        key_count: n >= 2.
    """

    times: np.ndarray
    values: np.ndarray
    in_slopes: np.ndarray
    out_slopes: np.ndarray
    interpolations: np.ndarray
    widths: np.ndarray
    key_count: int

    def interpolation(self, span_index: int) -> TrackInterpolation:
        return _BY_CODE[int(self.interpolations[span_index])]


class PreparedTrack(Owner):
    """An immutable prepared track; ``view()`` returns its :class:`TrackView`."""

    __slots__ = ()


@dataclass(frozen=True)
class TrackSample:
    """A track evaluation.

    Attributes:
        value: float64 value. Rounded (:func:`value_error_bound`); Exact at key times.
        derivative_per_second: float64 derivative per second, negated on the reflected half of
            PingPong. Rounded (:func:`derivative_error_bound`).
        span_index: the span evaluated.
        u: the local parameter in [0, 1] evaluated (the exact one rounded once to float64).
        is_reflected: whether PingPong reflected the time.
    """

    value: float
    derivative_per_second: float
    span_index: int
    u: float
    is_reflected: bool


def _is_f32(x) -> bool:
    return is_finite_real(x) and float(np.float32(x)) == float(x)


def span_scale(v0: float, v1: float, m0: float, m1: float, h: float, kind: TrackInterpolation) -> float:
    """S of one span: ``|v0| + |v1| + h (|m0| + |m1|)`` for Hermite, ``|v0| + |v1|`` for
    Linear, 0 for Step (float64; the oracle recomputes it exactly)."""
    if kind is TrackInterpolation.Step:
        return 0.0
    s = abs(float(v0)) + abs(float(v1))
    if kind is TrackInterpolation.Hermite:
        s += float(h) * (abs(float(m0)) + abs(float(m1)))
    return s


def value_error_bound(scale: float, u: float = U64, eta: float = ETA64) -> float:
    """The value error model: ``|computed - exact| <= VALUE_ERROR_K * (u S + eta)``. Rounded.

    Sources (unit roundoff u, ``S = span_scale``): the local parameter rounds once, moving the
    value by at most ``max|dp/du| u <= 1.5 S u``; ``h00 v0`` and ``h01 v1`` carry at most 5 and 4
    roundings on ``|v0|``, ``|v1|`` (``|h00|, |h01| <= 1``), the slope part 7 (the rounded width
    included) on ``h (|m0| + |m1|) 4/27``, the two outer sums 2 more: under ``8.5 u S``. Linear
    spans: ``4 u S``. Underflow: each product with a subnormal result errs by at most
    ``eta / 2`` absolutely (``eta`` the format's smallest subnormal), at most 8 of them. Exact
    (0) for Step spans and at key times.
    """
    return VALUE_ERROR_K * (u * scale + eta)


def derivative_error_bound(scale: float, width: float, u: float = U64, eta: float = ETA64) -> float:
    """The derivative error model:
    ``|computed - exact| <= DERIVATIVE_ERROR_K * (u S / h + eta)``.

    Sources: the rounded parameter moves the derivative by at most ``|p''| u / h <= 6 S u / h``;
    ``6 u (1 - u) (v1 - v0) / h`` carries 7 roundings (the rounded width included) on at most
    ``1.5 |v1 - v0| / h``, the slope terms 5 and 4 on ``|m0|`` and ``|m1|``, the two sums 2 more
    on everything: under ``19.5 u S / h``. Linear spans: ``3 u S / h``. Underflowing products
    and quotients add at most ``eta / 2`` each (at most 6). Exact (0) for Step.

    Raises:
        ValueError: ``width`` is not positive. It is a span's width ``h``, and a prepared track's
            widths are positive (strictly increasing times); the bound divides by it.
    """
    if not width > 0.0:
        raise ValueError(f"derivative_error_bound: width must be a positive span width, got {width!r}")
    return DERIVATIVE_ERROR_K * (u * scale / width + eta)


def try_prepare_track(keys: Sequence[TrackKey], limits: WorkLimits,
                      diagnostic: list | None = None) -> Outcome:
    """``TryPrepareTrack``: validate and store keys. Key values Exact.

    Checks, in order (the first failure is returned, and appended to ``diagnostic`` if a list
    is given): limits ranges (InvalidArgument); at least two keys (InvalidArgument); key count
    within ``max_keys`` and ``n * KEY_BYTES`` within ``max_prepared_bytes`` (BudgetExceeded);
    each key's time finite and its value and slopes finite float32 values (InvalidArgument);
    strictly increasing times (InvalidDomain: equal times are never resolved); every span's
    width and value scale small enough that evaluation cannot overflow (OutOfRange).

    Returns:
        ``Outcome`` holding a new :class:`PreparedTrack`; on failure nothing is built.
    """
    return reported(_prepare(keys, limits), diagnostic)


def _prepare(keys, limits) -> Outcome:
    if not isinstance(limits, WorkLimits):
        raise TypeError("limits must be WorkLimits")
    check = validate_limits(limits)
    if not check.ok:
        return check
    keys = list(keys)
    n = len(keys)
    if n < 2:
        return failure(GeometryStatus.InvalidArgument, "a track needs at least two keys (one span)",
                       field="keys", value=float(n))
    if n > limits.max_keys:
        return failure(GeometryStatus.BudgetExceeded, f"{n} keys exceed max_keys = {limits.max_keys}",
                       field="max_keys", value=float(n))
    if n * KEY_BYTES > limits.max_prepared_bytes:
        return failure(GeometryStatus.BudgetExceeded,
                       f"{n * KEY_BYTES} prepared bytes exceed max_prepared_bytes = {limits.max_prepared_bytes}",
                       field="max_prepared_bytes", value=float(n * KEY_BYTES))
    times = np.empty(n, np.float64)
    vals = np.empty((3, n), np.float32)
    codes = np.empty(n, np.int8)
    for i, k in enumerate(keys):
        if not isinstance(k, TrackKey):
            raise TypeError(f"keys[{i}] is {type(k).__name__}, not TrackKey")
        if not isinstance(k.interpolation, TrackInterpolation):
            raise TypeError(f"keys[{i}].interpolation must be a TrackInterpolation")
        if not is_finite_real(k.time):  # an int beyond the float64 range included
            return failure(GeometryStatus.InvalidArgument, f"key {i}: time {k.time!r} is not finite",
                           field="time", index=i)
        for row, name in enumerate(("value", "in_slope", "out_slope")):
            x = getattr(k, name)
            if not _is_f32(x):
                return failure(GeometryStatus.InvalidArgument,
                               f"key {i}: {name} {x!r} is not a finite float32 value "
                               "(pass numpy.float32(x) to narrow deliberately)", field=name, index=i)
            vals[row, i] = np.float32(x)
        times[i] = float(k.time)
        codes[i] = _CODES[k.interpolation]
    for i in range(n - 1):
        if not times[i + 1] > times[i]:
            return failure(GeometryStatus.InvalidDomain,
                           f"key times must be strictly increasing: key {i + 1} at {times[i + 1]!r} "
                           f"follows key {i} at {times[i]!r}", field="time", index=i + 1)
    with np.errstate(over="ignore"):
        widths = times[1:] - times[:-1]
    for i in range(n - 1):
        h = float(widths[i])
        kind = _BY_CODE[int(codes[i])]
        ok = math.isfinite(h)
        if ok and kind is not TrackInterpolation.Step:  # a Step span does no arithmetic
            S = span_scale(vals[0, i], vals[0, i + 1], vals[2, i], vals[1, i + 1], h, kind)
            ok = S <= _MAX_SCALE and S / h <= _MAX_SCALE
        if not ok:
            return failure(GeometryStatus.OutOfRange,
                           f"span {i}: width {h!r} and values give a scale beyond float64 evaluation",
                           field="time", index=i)
    view = TrackView(
        times=readonly(times),
        values=readonly(vals[0]),
        in_slopes=readonly(vals[1]),
        out_slopes=readonly(vals[2]),
        interpolations=readonly(codes),
        widths=readonly(widths),
        key_count=n,
    )
    return success(PreparedTrack(view))


def _locate(view: TrackView, t: Fraction, side: SpanSide) -> tuple[int, float]:
    """``(span, u)`` of an exact time inside the closed domain, with the span-side rules."""
    times = view.times
    n = view.key_count
    # Python compares a Fraction with a float exactly.
    k = int(np.searchsorted(times, float(t), side="right")) - 1  # a float guess, then exact fix-up
    k = min(max(k, 0), n - 2)
    while k > 0 and t < Fraction(float(times[k])):
        k -= 1
    while k < n - 2 and t >= Fraction(float(times[k + 1])):
        k += 1
    t0, t1 = Fraction(float(times[k])), Fraction(float(times[k + 1]))
    if t == t0 and k > 0 and side is SpanSide.Incoming:
        return k - 1, 1.0
    if t == t1:  # only the terminal key reaches here (t >= t_{k+1} moved k on otherwise)
        return k, 1.0
    return k, float((t - t0) / (t1 - t0))  # one correctly rounded division


def _evaluate_span(view: TrackView, k: int, u: float) -> tuple[float, float]:
    kind = view.interpolation(k)
    v0, v1 = float(view.values[k]), float(view.values[k + 1])
    if kind is TrackInterpolation.Step:
        return v0, 0.0
    h = float(view.widths[k])
    if kind is TrackInterpolation.Linear:
        uu = np.float64(u)
        value = float((1.0 - uu) * v0 + uu * v1)  # exact at u = 0 and u = 1
        return value, (v1 - v0) / h
    m0, m1 = float(view.out_slopes[k]), float(view.in_slopes[k + 1])
    # Cubic Hermite basis: exact at u = 0 and u = 1 (h00 = 1 or h01 = 1, the rest 0), and
    # the derivative formula keeps the slopes per second without a multiply-divide by h.
    s = 1.0 - u
    h00 = (1.0 + 2.0 * u) * (s * s)
    h10 = u * (s * s)
    h01 = (u * u) * (3.0 - 2.0 * u)
    h11 = (u * u) * (u - 1.0)
    value = (h00 * v0 + h01 * v1) + h * (h10 * m0 + h11 * m1)
    derivative = (6.0 * (u * s)) * ((v1 - v0) / h) + ((s * (1.0 - 3.0 * u)) * m0 + (u * (3.0 * u - 2.0)) * m1)
    return value, derivative


def try_evaluate_track(view: TrackView, time: TrackTime,
                       policy: BoundaryPolicy = BoundaryPolicy.Reject,
                       side: SpanSide = SpanSide.Outgoing) -> Outcome:
    """``TryEvaluateTrack``: the value and derivative per second at ``time``.

    Values Rounded (:func:`value_error_bound`), Exact at key times; derivatives Rounded
    (:func:`derivative_error_bound`). Nonfinite time is InvalidArgument; a time outside the
    domain under Reject is InvalidDomain; Wrap is InvalidArgument. Never extrapolates.

    Returns:
        ``Outcome`` of a :class:`TrackSample`.
    """
    if not isinstance(view, TrackView):
        raise TypeError("view must be a TrackView")
    if not isinstance(time, TrackTime):
        raise TypeError("time must be a TrackTime")
    if not isinstance(policy, BoundaryPolicy):
        raise TypeError("policy must be a BoundaryPolicy")
    if not isinstance(side, SpanSide):
        raise TypeError("side must be a SpanSide")
    if policy not in TRACK_POLICIES:
        return failure(GeometryStatus.InvalidArgument,
                       f"policy {policy.value}: tracks accept Reject, Clamp, Hold, Loop and PingPong",
                       field="policy")
    s = time.seconds
    if not is_finite_real(s):  # an int beyond the float64 range included
        return failure(GeometryStatus.InvalidArgument, f"time {s!r} is not finite", field="seconds")
    t = Fraction(float(s))
    first, last = Fraction(float(view.times[0])), Fraction(float(view.times[-1]))
    reflected = False
    hold = False
    if t < first or t > last:
        if policy is BoundaryPolicy.Reject:
            return failure(GeometryStatus.InvalidDomain,
                           f"time {float(s)!r} is outside the track's domain "
                           f"[{float(first)!r}, {float(last)!r}] (Reject)", field="seconds")
        if policy in (BoundaryPolicy.Clamp, BoundaryPolicy.Hold):
            hold = policy is BoundaryPolicy.Hold
            t = first if t < first else last
        else:
            L = last - first
            period = L if policy is BoundaryPolicy.Loop else 2 * L
            tau = (t - first) % period  # exact; Fraction % is a floored modulo, in [0, period)
            if policy is BoundaryPolicy.PingPong and tau > L:
                tau = period - tau
                reflected = True
            t = first + tau
    k, u = _locate(view, t, side)
    value, derivative = _evaluate_span(view, k, u)
    if hold:
        derivative = 0.0
    elif reflected:
        derivative = -derivative
    return success(TrackSample(value, derivative, k, u, reflected))
