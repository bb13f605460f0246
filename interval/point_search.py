"""Exact k-nearest neighbours by brute force: the oracle of ``point_search.nearest``.

Every float32 value is an integer multiple of ``2^-149``, so a position ``x`` is the integer
``X = x * 2^149`` exactly, and the squared distance of two float32 points is the integer
``D = sum (X_i - Q_i)^2`` times ``2^-298``: exact rational arithmetic with Python integers, no
rounding anywhere. The truth of a query is every point's exact squared distance; the exact
k-nearest list is the first ``k`` points in increasing ``(D, source index)``. Nothing here
shares code with the fast path (no tree, no float comparison, no expansion arithmetic).

The float32 rounding band (``docs/decisions.md`` "Point search: error model and band"): an
implementation may put a point ahead of, or instead of, a nearer one only when the two exact
distances are within twice the farther one's error bound (:func:`inversion_allowed`); exact
ties allow nothing, their order is the source index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import gmpy2

__all__ = [
    "SCALE_BITS",
    "as_rational",
    "exact_nearest",
    "exact_squared_distances",
    "inversion_allowed",
    "scaled",
]

# 2^149 turns every float32 (a multiple of 2^-149) into an integer; squares carry 2 * 149 bits.
SCALE_BITS = 149
_DENOM = gmpy2.mpz(1) << (2 * SCALE_BITS)
_F32_MAX = 3.4028234663852886e38


def _significant_bits(n: int) -> int:
    n = abs(n)
    return n.bit_length() - ((n & -n).bit_length() - 1)


def scaled(x: float) -> int:
    """The integer ``x * 2^149`` of a float32 value ``x`` (a float64 holding it exactly). Exact.

    Raises ValueError when ``x`` is nonfinite or not a float32 value."""
    if not math.isfinite(x) or abs(x) > _F32_MAX:
        raise ValueError(f"{x!r} is not a finite float32 value")
    m, e = math.frexp(x)  # x = m 2^e exactly, 0.5 <= |m| < 1
    mant = int(math.ldexp(m, 53))  # exact 53-bit integer significand: x = mant 2^(e - 53)
    shift = e - 53 + SCALE_BITS
    # a float32 has at most 24 significant bits and no bit below 2^-149
    if (shift < 0 and mant % (1 << -shift)) or (mant and _significant_bits(mant) > 24):
        raise ValueError(f"{x!r} is not a float32 value")
    return mant << shift if shift >= 0 else mant >> -shift


def exact_squared_distances(positions: Sequence[Sequence[float]], query: Sequence[float]) -> list:
    """Exact squared distances as integers ``D_j`` (the distance is ``D_j / 2^298``). Exact.

    Args:
        positions: n points of three float32 values (floats holding them exactly).
        query: three float32 values.
    """
    q = [scaled(v) for v in query]
    out = []
    for p in positions:
        a, b, c = (scaled(p[0]) - q[0], scaled(p[1]) - q[1], scaled(p[2]) - q[2])
        out.append(a * a + b * b + c * c)
    return out


def exact_nearest(distances: Sequence[int], count: int) -> list:
    """The exact ``count`` nearest source indices: increasing distance, equal distances by
    increasing source index. Exact (a sort of exact integers)."""
    return sorted(range(len(distances)), key=lambda j: (distances[j], j))[:count]


def as_rational(D: int) -> gmpy2.mpq:
    """The squared distance ``D / 2^298`` as an mpq. Exact."""
    return gmpy2.mpq(D, _DENOM)


def inversion_allowed(d_far, d_near, bound_far) -> bool:
    """Whether a point at exact squared distance ``d_far`` may come ahead of (or instead of) one
    at ``d_near < d_far``: ``d_far - d_near <= 2 bound_far``. Both estimates within their bounds
    (the nearer one's bound is at most the farther one's) could then compare either way. Equal
    distances are exact ties and never qualify. Exact (mpq comparison)."""
    return d_near < d_far and d_far - d_near <= 2 * bound_far
