"""Exact evaluation of scalar tracks in rational arithmetic: the oracle of ``track.values`` and
``track.key_values``.

Everything is a ``gmpy2.mpq``: key times, values and slopes are read exactly from their floats,
the boundary policies reduce the time exactly (floored division), and a span is evaluated as
a cubic Bezier in ``QQ`` with the generic kernels of ``reference.kernel`` (a Hermite span has
Bezier values ``v0, v0 + h m0 / 3, v1 - h m1 / 3, v1``; the fast path uses the Hermite basis
instead, so the two meet only in the mathematics). Spec 002 "Tracks" and "Span sides" define
the truth; the semantics decided in ``docs/decisions.md`` ("Tracks") are restated here:

* Step spans hold the left value on the closed span [0, 1]; derivative 0.
* Outside ``[t_first, t_last]``: Reject has no value; Clamp the endpoint value and the
  one-sided derivative; Hold the endpoint value and derivative 0; Loop ``t_first + ((t -
  t_first) mod L)``; PingPong ``tau = (t - t_first) mod 2L``, reflected (``2L - tau``, derivative
  negated) when ``tau > L``. Sides then apply to the reduced time.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import gmpy2
import numpy as np

from reference import kernel as K

from .context import QQ, to_mpq

__all__ = ["ExactTrackSample", "exact_track_keys", "exact_track_sample"]

_mpq = gmpy2.mpq
_KINDS = ("Step", "Linear", "Hermite")
_POLICIES = ("Reject", "Clamp", "Hold", "Loop", "PingPong")
_SIDES = ("Outgoing", "Incoming")


@dataclass(frozen=True)
class ExactTrackSample:
    """The exact value of a track query.

    Attributes:
        value: the value (mpq).
        derivative: the derivative per second (mpq), negated on PingPong's reflected half.
        span_index: the span the side rules select.
        x: the exact local parameter in [0, 1].
        reflected: whether PingPong reflected the time.
        scale: the span's error-model scale S (mpq): ``|v0| + |v1| + h (|m0| + |m1|)`` for
            Hermite, ``|v0| + |v1|`` for Linear, 0 for Step.
        width: the span's exact width h (mpq).
    """

    value: object
    derivative: object
    span_index: int
    x: object
    reflected: bool
    scale: object
    width: object


def _name(x, allowed, what):
    v = getattr(x, "value", x)  # enums by value, or their names as text
    if v not in allowed:
        raise ValueError(f"unknown {what} {x!r}")
    return v


def exact_track_keys(keys: Sequence) -> list:
    """Validate keys given as ``(time, value, in_slope, out_slope, interpolation)`` and return
    them exactly: times any finite floats, values and slopes float32 values, interpolation a
    name. Raises ValueError unless there are at least two keys with strictly increasing times.
    """
    out = []
    for i, k in enumerate(keys):
        if len(k) != 5:
            raise ValueError(f"key {i} must have five fields")
        t, v, mi, mo, kind = k
        for x in (v, mi, mo):
            if not np.isfinite(float(x)) or float(np.float32(x)) != float(x):
                raise ValueError(f"key {i}: {x!r} is not a finite float32 value")
        out.append((to_mpq(float(t)), to_mpq(float(v)), to_mpq(float(mi)), to_mpq(float(mo)),
                    _name(kind, _KINDS, "interpolation")))
    if len(out) < 2:
        raise ValueError("a track needs at least two keys")
    for i in range(len(out) - 1):
        if not out[i + 1][0] > out[i][0]:
            raise ValueError(f"key times must increase strictly (key {i + 1})")
    return out


def _floor(q) -> int:
    return int(q.numerator // q.denominator)  # floored integer division


def _span_at(times, t, side) -> tuple[int, object]:
    n = len(times)
    k = 0
    while k + 1 < n - 1 and times[k + 1] <= t:
        k += 1
    if t == times[k] and k > 0 and side == "Incoming":
        k -= 1
    t0, t1 = times[k], times[k + 1]
    return k, (t - t0) / (t1 - t0)


def exact_track_sample(keys: Sequence, t, policy, side) -> ExactTrackSample | None:
    """The exact sample of a track at time ``t`` (a float, read exactly). Exact.

    Args:
        keys: as :func:`exact_track_keys`.
        t: the query time (finite float).
        policy: a track boundary policy (``BoundaryPolicy`` or its name).
        side: ``SpanSide`` or its name.

    Returns:
        :class:`ExactTrackSample`, or None when the query has no value (Reject outside the
        domain). Raises ValueError for malformed input (including policies tracks reject).
    """
    ks = exact_track_keys(keys)
    policy = _name(policy, _POLICIES, "track policy")
    side = _name(side, _SIDES, "span side")
    if not np.isfinite(float(t)):
        raise ValueError("query time must be finite")
    tq = to_mpq(float(t))
    times = [k[0] for k in ks]
    first, last = times[0], times[-1]
    reflected = hold = False
    if tq < first or tq > last:
        if policy == "Reject":
            return None
        if policy in ("Clamp", "Hold"):
            hold = policy == "Hold"
            tq = first if tq < first else last
        else:
            L = last - first
            period = L if policy == "Loop" else 2 * L
            d = tq - first
            tau = d - period * _floor(d / period)
            if policy == "PingPong" and tau > L:
                tau, reflected = period - tau, True
            tq = first + tau
    k, x = _span_at(times, tq, side)
    t0, v0, _, m0, kind = ks[k]
    t1, v1, m1, _, _ = ks[k + 1]
    h = t1 - t0
    if kind == "Step":
        value, deriv, scale = v0, _mpq(0), _mpq(0)
    elif kind == "Linear":
        value, deriv, scale = v0 + x * (v1 - v0), (v1 - v0) / h, abs(v0) + abs(v1)
    else:
        p0, p1 = QQ.asarray([v0]), QQ.asarray([v1])
        b1, b2 = K.hermite_inner_controls(QQ, p0, QQ.asarray([m0]), p1, QQ.asarray([m1]),
                                          QQ.asarray(h))
        B = np.stack([p0, b1, b2, p1], axis=0)  # (4, 1): the span as a 1-D cubic in QQ
        xx = QQ.asarray(x)
        value = K.cubic_point(QQ, B, xx)[0]
        deriv = K.cubic_derivative(QQ, B, xx)[0] / h
        scale = abs(v0) + abs(v1) + h * (abs(m0) + abs(m1))
    if hold:
        deriv = _mpq(0)
    elif reflected:
        deriv = -deriv
    return ExactTrackSample(_mpq(value), _mpq(deriv), k, x, reflected, scale, h)
