"""Hypothesis strategies shared by the test suites: floats whose narrowing and rounding matter.

Every strategy draws plain data (Python floats, numpy float32/float64 arrays), never values of a
number context, so a test can hand the same draw to the fast path and to the oracle. Values
are finite unless a strategy says otherwise. Edge values the specification cares about (0, 1,
1/2, subnormals, one ulp from 1, float32 rounding ties) are mixed in with ``sampled_from`` so
that the ``ci`` profile meets them in a few dozen examples.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = [
    "F32_MAX",
    "F32_TINY",
    "controls32",
    "float32_values",
    "float64_sources_near_origin",
    "float64_values",
    "narrowing_ties",
    "parameters",
    "subnormal32",
]

F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = 2.0**-149  # smallest positive float32 subnormal
_F32_MIN_NORMAL = 2.0**-126


def _f32_floor(x: float) -> float:
    """The largest float32 value <= x (a bound hypothesis accepts for width=32)."""
    f = np.float32(x)
    if float(f) > x:
        f = np.nextafter(f, np.float32(-np.inf))
    return float(f)


def float32_values(min_value: float | None = None, max_value: float | None = None,
                   *, allow_subnormal: bool = True) -> st.SearchStrategy[float]:
    """Finite float32 values as Python floats (each exactly representable in float32).

    Hypothesis' ``floats(width=32)`` already favours nasty values (signed zeros, the smallest
    normal and subnormal, float32 max); subnormals and signed zeros are mixed in explicitly.

    Args:
        min_value, max_value: optional closed bounds (rounded inward to float32).
        allow_subnormal: whether float32 subnormals may be drawn.
    """
    lo = None if min_value is None else -_f32_floor(-min_value)
    hi = None if max_value is None else _f32_floor(max_value)
    base = st.floats(min_value=lo, max_value=hi, width=32, allow_nan=False,
                     allow_infinity=False, allow_subnormal=allow_subnormal)
    edges = [0.0, -0.0, 1.0, -1.0, _F32_MIN_NORMAL, F32_MAX, -F32_MAX]
    if allow_subnormal:
        edges += [F32_TINY, -F32_TINY, _F32_MIN_NORMAL - F32_TINY]
    edges = [e for e in edges if (lo is None or e >= lo) and (hi is None or e <= hi)]
    return st.one_of(st.sampled_from(edges), base) if edges else base


def subnormal32(*, signed: bool = True) -> st.SearchStrategy[float]:
    """Nonzero float32 subnormals ``k * 2**-149`` (1 <= k < 2**23) as Python floats.

    The extremes (k = 1 and k = 2**23 - 1) are mixed in.
    """
    k = st.one_of(st.sampled_from([1, 2, 2**22, 2**23 - 1]), st.integers(1, 2**23 - 1))
    mag = k.map(lambda n: n * F32_TINY)  # exact: n < 2**23 and a power-of-two scale
    if not signed:
        return mag
    return st.tuples(mag, st.booleans()).map(lambda p: -p[0] if p[1] else p[0])


def float64_values(*, max_magnitude: float | None = None) -> st.SearchStrategy[float]:
    """Finite float64 values with signed zeros, subnormals, huge values and round-to-nearest
    ties mixed in (``1 + 2**-53`` style values whose sums and products land on ties).

    Args:
        max_magnitude: optional bound on ``|x|`` (huge edge values above it are left out).
    """
    edges = [0.0, -0.0, 5e-324, -5e-324, 2.0**-1022, 2.0**-1022 - 5e-324, 1.0, -1.0,
             1.0 + 2.0**-52, 1.0 - 2.0**-53, 2.0**-53, 3.0, 0.1, 2.0**1023,
             float(np.finfo(np.float64).max), -float(np.finfo(np.float64).max), 2.0**512]
    if max_magnitude is not None:
        edges = [e for e in edges if abs(e) <= max_magnitude]
    base = st.floats(allow_nan=False, allow_infinity=False,
                     min_value=None if max_magnitude is None else -max_magnitude,
                     max_value=max_magnitude)
    return st.one_of(st.sampled_from(edges), base)


def controls32(scale: float = 1e3, shape: tuple[int, ...] = (4, 3)) -> st.SearchStrategy[np.ndarray]:
    """float32 arrays (default shape (4, 3): one cubic span's controls) with entries in
    ``[-scale, scale]``.

    Entries are hypothesis float32 draws (zeros, subnormals, the bounds themselves and repeats
    are likely), so spans are often degenerate; filter if a test needs a regular span.

    Args:
        scale: the largest magnitude of an entry (rounded down to float32).
        shape: array shape, for example ``(4, 4, 3)`` for a bicubic patch.
    """
    s = _f32_floor(scale)
    return hnp.arrays(np.float32, shape,
                      elements=st.floats(-s, s, width=32, allow_nan=False, allow_infinity=False))


_SPECIAL_U = [0.0, 1.0, 0.5, 5e-324, 2.0**-1022, 2.0**-53, 1e-300,
              float(np.nextafter(1.0, 0.0)), 1.0 - 2.0**-24, 0.25, 0.75, 1.0 / 3.0]


def parameters(*, width: int = 64) -> st.SearchStrategy[float]:
    """Normalized parameters ``u`` in [0, 1] as Python floats.

    Special values are mixed in: 0, 1, 1/2, the float64 subnormal 5e-324, the smallest
    normal, tiny values, the float just below 1 (one ulp from 1), 1/4, 3/4 and fl(1/3).

    Args:
        width: 64 for float64 parameters, 32 for float32 parameters (then every value,
            the special ones included, is exactly representable in float32).
    """
    if width == 64:
        return st.one_of(st.sampled_from(_SPECIAL_U), st.floats(0.0, 1.0))
    if width != 32:
        raise ValueError("width must be 32 or 64")
    special = sorted({float(np.float32(x)) for x in _SPECIAL_U}
                     | {F32_TINY, float(np.nextafter(np.float32(1), np.float32(0)))})
    return st.one_of(st.sampled_from(special), st.floats(0.0, 1.0, width=32))


@st.composite
def float64_sources_near_origin(draw, max_coord: float = 1e7, min_span: float = 1e-3,
                                spans: tuple[int, int] = (1, 4), radius: float = 1e3):
    """World-space float64 source controls of a C0 path and a chunk origin near them.

    Returns ``(source, origin)``: ``source`` is a float64 array (n, 4, 3) of n connected spans
    (span k's first control is bit-for-bit span k-1's last), all coordinates in
    ``[-max_coord, max_coord]``; ``origin`` is a float64 (3,) point within ``radius`` of the
    first control in each coordinate (so ``source - origin`` narrows to float32 with an error
    that depends on both). Every span's chord ``P3 - P0`` has a component of magnitude at
    least ``min_span``, so no span is a single point.

    Args:
        max_coord: largest world coordinate magnitude.
        min_span: smallest largest-chord-component of a span.
        spans: inclusive range of the span count n.
        radius: largest distance (per coordinate) of the controls from the first control.
    """
    n = draw(st.integers(*spans))
    reach = min(radius, max_coord)
    coord = st.floats(-max_coord + reach, max_coord - reach, allow_nan=False)
    base = np.array([draw(coord) for _ in range(3)])
    off = st.floats(-reach / 2, reach / 2, allow_nan=False, allow_subnormal=True)
    origin = base + np.array([draw(off) for _ in range(3)])
    src = np.empty((n, 4, 3))
    start = base.copy()
    for k in range(n):
        inner = np.array([[draw(off) for _ in range(3)] for _ in range(2)])
        chord = np.array([draw(off) for _ in range(3)])
        axis = draw(st.integers(0, 2))
        if abs(chord[axis]) < min_span:
            chord[axis] = min_span if chord[axis] >= 0 else -min_span
        end = np.clip(start + chord, base - reach, base + reach)
        if abs(end[axis] - start[axis]) < min_span:  # clipped against the box: go the other way
            end[axis] = start[axis] - np.sign(chord[axis]) * min_span
        src[k, 0], src[k, 3] = start, end
        src[k, 1:3] = np.clip(start + inner, base - reach, base + reach)
        start = end
    return src, origin


@st.composite
def narrowing_ties(draw, max_magnitude: float = 1e7, max_origin: float = 1e7):
    """A float64 ``(source, origin)`` pair whose difference is exactly a float32 rounding tie.

    ``source - origin`` is exact in float64 and lies exactly halfway between two adjacent
    finite float32 values, so ``narrow32(source - origin)`` must round to the even one: an
    implementation that narrows with another rounding (or rounds twice) gives the odd one.

    Args:
        max_magnitude: largest ``|source - origin|``.
        max_origin: largest ``|origin|``.

    Returns:
        Two Python floats.
    """
    lo = draw(float32_values(-max_magnitude, max_magnitude))
    f = np.float32(lo)
    g = np.nextafter(f, np.float32(np.inf))
    if not np.isfinite(g) or abs(float(g)) > max_magnitude:
        g, f = f, np.nextafter(f, np.float32(-np.inf))
    tie = (float(f) + float(g)) / 2.0  # exact: a 25-bit significand
    q = (np.frexp(float(g) - float(f))[1] - 1) - 1
    # The tie's last bit is 2**q; an origin that is a multiple of 2**q keeps source - origin
    # exact whenever the sum needs at most 53 bits (checked exactly below).
    kmax = int(min(2**48, max_origin / 2.0**q))
    origin = float(draw(st.integers(-kmax, kmax))) * 2.0**q
    source = origin + tie
    if Fraction(source) - Fraction(origin) != Fraction(tie):  # inexact: fall back to origin 0
        origin, source = 0.0, tie
    return source, origin
