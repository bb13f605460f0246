"""Float-only tools of the fast path: ulp32, exact narrowing, outward rounding.

Certified bounds computed in float64 are *outward rounded*: each operation on a lower bound is
followed by ``nextafter(x, -inf)``, each operation on an upper bound by ``nextafter(x, +inf)``.
Round-to-nearest is off by at most half an ulp, so one ulp outward always covers the exact
result (the spacing below a power of two is half the spacing above, and the exact value then
lies within a quarter of the upper spacing). These helpers are the only arithmetic Certified
code uses; ``tests/reference/test_fp.py`` checks them against exact rationals.

Every function accepts numpy arrays or scalars (float64 for the outward helpers) and is
vectorised elementwise. Nothing here allocates beyond numpy temporaries.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "U32",
    "U64",
    "add_hi",
    "add_lo",
    "div_hi",
    "div_lo",
    "down",
    "hypot_hi",
    "hypot_lo",
    "mul_hi",
    "mul_lo",
    "mul_range",
    "narrow32",
    "narrowing_error",
    "sqrt_hi",
    "sqrt_lo",
    "square_range",
    "sub_hi",
    "sub_lo",
    "two_sum",
    "ulp32",
    "ulp64",
    "up",
]

# Unit roundoffs (half an ulp at 1) of binary32 and binary64.
U32 = 2.0**-24
U64 = 2.0**-53

_NEG = -np.inf
_POS = np.inf


def _binade_spacing(a, dtype):
    # np.spacing(max) overflows to inf (max has no finite successor); the spacing of max's
    # binade is that of its predecessor, so ask for that instead.
    big = np.finfo(dtype).max
    return np.spacing(np.where(a == big, np.nextafter(big, dtype.type(0)), a))


def ulp32(x):
    """The float32 spacing at ``|x|``: ``nextafter(|x|, +inf) - |x|`` in float32. Exact.

    That is ``2**(e - 23)`` for ``|x|`` in ``[2**e, 2**(e+1))``, never below the subnormal
    spacing: ``ulp32(0)`` is the smallest subnormal, 2**-149, and ``ulp32(float32 max)`` is
    its binade's spacing 2**104 (not inf). ``x`` is narrowed to float32 first.
    """
    a = np.abs(np.asarray(x, dtype=np.float32))
    sp = _binade_spacing(a, np.dtype(np.float32))
    return sp.astype(np.float64) if a.ndim else np.float64(sp)


def ulp64(x):
    """The float64 spacing at ``|x|`` (``2**971`` at float64 max, not inf). Exact."""
    a = np.abs(np.asarray(x, dtype=np.float64))
    return _binade_spacing(a, np.dtype(np.float64))


def narrow32(x):
    """Exact float64 -> float32 narrowing, round to nearest even (numpy's conversion).

    Values beyond the float32 range become infinities; the caller must check finiteness.
    """
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float32)


def two_sum(a, b):
    """Knuth's error-free sum: ``s + e == a + b`` exactly, ``s = fl(a + b)`` (finite inputs)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _abs_sum_up(s, e):
    """``|s + e|`` rounded toward +inf, exactly, given ``s = fl(s + e)`` (a two_sum pair)."""
    # Where s > 0 the exact value exceeds s iff e > 0; where s < 0 it exceeds |s| iff e < 0.
    mag = np.abs(s)
    bump = np.where(s > 0, e > 0, e < 0)
    return np.where(bump, np.nextafter(mag, _POS), mag)


def narrowing_error(source, origin, narrowed):
    """Largest ``|narrowed - (source - origin)|``, the exact value rounded up to float64. Exact.

    ``d = fl64(source - origin)`` is what preparation narrows. Then ``source - origin = d + t``
    exactly (two_sum), ``narrowed - d`` is exact in float64 (a rounding remainder narrower than
    29 bits below d's leading bit), and ``(narrowed - d) - t`` is rounded up exactly by a second
    error-free sum. The result is bit-reproducible by exact rational arithmetic.

    Args:
        source: float64 array (..., 3) of source controls.
        origin: float64 (3,) chunk origin.
        narrowed: float32 array of the same shape, ``narrow32(source - origin)``.

    Returns:
        float64 scalar, 0.0 for an empty array.
    """
    source = np.asarray(source, dtype=np.float64)
    origin = np.asarray(origin, dtype=np.float64)
    if source.size == 0:
        return 0.0
    d, t = two_sum(source, -origin)
    r = narrowed.astype(np.float64) - d  # exact
    s, e = two_sum(r, -t)
    return float(np.max(_abs_sum_up(s, e)))


def down(x):
    """One float64 step toward -inf (after a round-to-nearest operation on a lower bound)."""
    return np.nextafter(x, _NEG)


def up(x):
    """One float64 step toward +inf (after a round-to-nearest operation on an upper bound)."""
    return np.nextafter(x, _POS)


def add_lo(a, b):
    """A float64 lower bound of the exact ``a + b``. Certified."""
    return down(np.add(a, b))


def add_hi(a, b):
    """A float64 upper bound of the exact ``a + b``. Certified."""
    return up(np.add(a, b))


def sub_lo(a, b):
    """A float64 lower bound of the exact ``a - b``. Certified."""
    return down(np.subtract(a, b))


def sub_hi(a, b):
    """A float64 upper bound of the exact ``a - b``. Certified."""
    return up(np.subtract(a, b))


def mul_lo(a, b):
    """A float64 lower bound of the exact ``a * b``. Certified."""
    return down(np.multiply(a, b))


def mul_hi(a, b):
    """A float64 upper bound of the exact ``a * b``. Certified."""
    return up(np.multiply(a, b))


def div_lo(a, b):
    """A float64 lower bound of the exact ``a / b`` (b != 0). Certified."""
    return down(np.divide(a, b))


def div_hi(a, b):
    """A float64 upper bound of the exact ``a / b`` (b != 0). Certified."""
    return up(np.divide(a, b))


def sqrt_lo(a):
    """A float64 lower bound of the exact ``sqrt(a)``, clamped at 0 (a >= 0). Certified."""
    return np.maximum(down(np.sqrt(np.maximum(a, 0.0))), 0.0)


def sqrt_hi(a):
    """A float64 upper bound of the exact ``sqrt(a)`` (a >= 0). Certified."""
    return up(np.sqrt(np.maximum(a, 0.0)))


def _sum_squares(v, mul, add):
    v = np.asarray(v, dtype=np.float64)
    acc = mul(v[..., 0], v[..., 0])
    for k in range(1, v.shape[-1]):
        acc = add(acc, mul(v[..., k], v[..., k]))
    return acc


def hypot_lo(v):
    """A float64 lower bound of the Euclidean norm of ``v`` over its last axis. Certified."""
    return sqrt_lo(_sum_squares(np.abs(v), mul_lo, add_lo))


def hypot_hi(v):
    """A float64 upper bound of the Euclidean norm of ``v`` over its last axis. Certified."""
    return sqrt_hi(_sum_squares(np.abs(v), mul_hi, add_hi))


def square_range(lo, hi):
    """Outward bounds of ``{x * x : lo <= x <= hi}``, elementwise. Certified."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    alo = np.where(lo > 0, lo, np.where(hi < 0, -hi, 0.0))  # smallest |x| in the range
    ahi = np.maximum(np.abs(lo), np.abs(hi))
    sq_lo = np.where(alo > 0, mul_lo(alo, alo), 0.0)
    return np.maximum(sq_lo, 0.0), mul_hi(ahi, ahi)


def mul_range(alo, ahi, blo, bhi):
    """Outward bounds of ``{a * b}`` for ``a`` in [alo, ahi], ``b`` in [blo, bhi]. Certified."""
    ps_lo = [mul_lo(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    ps_hi = [mul_hi(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    return np.minimum.reduce(ps_lo), np.maximum.reduce(ps_hi)
