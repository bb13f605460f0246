"""Exact replay of path preparation's precision steps, in rational arithmetic.

The fast path computes ``d = fl64(source - origin)`` and ``n = fl32(d)`` with numpy, then the
narrowing error and the position floor with error-free float tricks. This module recomputes
the same specified quantities from their definitions, independently: the exact difference as
a ``gmpy2.mpq``, round-to-nearest-even to binary64 by CPython's correctly rounded integer
division and to binary32 by MPFR in an IEEE binary32 context, ulps from the exponent, and a
directed MPFR rounding for "rounded up to float64". Results are bit-for-bit comparable.
"""

from __future__ import annotations

import math

import numpy as np

from .context import to_mpq
from .lazy import gmpy2

__all__ = [
    "exact_ulp32",
    "replay_narrowing",
    "replay_narrowing_error",
    "replay_position_floor",
    "round_nearest_f32",
    "round_nearest_f64",
    "round_up_f64",
]


def round_nearest_f64(q) -> float:
    """The binary64 nearest the rational ``q`` (ties to even; +-inf on overflow). Exact."""
    q = to_mpq(q)
    try:
        return int(q.numerator) / int(q.denominator)  # CPython rounds int / int correctly
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def round_nearest_f32(q) -> np.float32:
    """The binary32 nearest the rational ``q`` (ties to even, subnormals, +-inf on overflow)."""
    with gmpy2.context(gmpy2.ieee(32)):
        return np.float32(float(gmpy2.mpfr(to_mpq(q))))


def round_up_f64(q) -> float:
    """The smallest binary64 value >= the rational ``q`` (q >= 0 here). Exact."""
    ctx = gmpy2.ieee(64)
    ctx.round = gmpy2.RoundUp
    with gmpy2.context(ctx):
        return float(gmpy2.mpfr(to_mpq(q)))


def exact_ulp32(x) -> gmpy2.mpq:
    """The float32 spacing above ``|x|`` for a float32 value x, from its exponent: 2**(e - 24)
    for ``|x|`` in [2**(e-1), 2**e), never below the subnormal spacing 2**-149."""
    a = abs(float(x))
    if a == 0.0:
        return gmpy2.mpq(1, 2**149)
    _, e = math.frexp(a)  # a = m 2**e, 0.5 <= m < 1
    k = max(e - 24, -149)
    return gmpy2.mpq(2) ** k if k >= 0 else gmpy2.mpq(1, 2 ** (-k))


def _exact_rel(source, origin):
    s = np.asarray(source, dtype=np.float64)
    o = np.asarray(origin, dtype=np.float64)
    flat = s.reshape(-1, 3)
    oq = [to_mpq(v) for v in o]
    return s.shape, [[to_mpq(v) - oq[k] for k, v in enumerate(row)] for row in flat]


def replay_narrowing(source, origin) -> np.ndarray:
    """``fl32(fl64(source - origin))`` from exact rationals; float32 array of source's shape."""
    shape, rel = _exact_rel(source, origin)
    out = [[round_nearest_f32(round_nearest_f64(q)) for q in row] for row in rel]
    return np.array(out, dtype=np.float32).reshape(shape)


def replay_narrowing_error(source, origin) -> float:
    """The largest exact ``|fl32(fl64(s - o)) - (s - o)|``, rounded up to binary64."""
    _shape, rel = _exact_rel(source, origin)
    worst = gmpy2.mpq(0)
    for row in rel:
        for q in row:
            n = round_nearest_f32(round_nearest_f64(q))
            if not np.isfinite(n):
                raise ValueError("a narrowed control is not finite")
            worst = max(worst, abs(to_mpq(n) - q))
    return round_up_f64(worst)


def replay_position_floor(source, origin) -> tuple[float, float]:
    """``(floor, E)``: ``2 ulp32(E) + narrowing error`` rounded up to binary64, and E, the
    largest narrowed magnitude."""
    narrowed = replay_narrowing(source, origin)
    if not np.all(np.isfinite(narrowed)):
        raise ValueError("a narrowed control is not finite")
    E = float(np.max(np.abs(narrowed)))
    floor = 2 * exact_ulp32(np.float32(E)) + to_mpq(replay_narrowing_error(source, origin))
    return round_up_f64(floor), E
