"""Number contexts: one kernel body, many kinds of numbers (the mpmath ``fp``/``mp``/``iv`` idea).

A context is a small object that a kernel receives as its first argument. Kernels do their
arithmetic with Python operators on the context's arrays and call the context's hooks where
number types genuinely differ:

==================  =====================================================================
hook                meaning
==================  =====================================================================
``asarray(x)``      the context's array for plain data ``x`` (boundary only, never in kernels)
``const(s)``        the constant ``s`` (``"3"``, ``"1/3"``) as a 0-d array of the context
``sqrt(x)``         square root (an enclosure in IV, exact-or-raise in QQ)
``abs(x)``          absolute value
``minimum(a, b)``   elementwise minimum (an enclosure of the minimum in IV)
``maximum(a, b)``   elementwise maximum
``sign3(x)``        int8 array of -1, 0, +1, or ``UNKNOWN`` where the sign is undecided
``to_float(x)``     float64 array of representative values (IV: midpoints) for display
==================  =====================================================================

``F32`` and ``F64`` are native numpy dtypes and fully vectorised; ``IV`` and ``QQ`` (in
``interval.context``) hold numpy object arrays of ``mpmath.iv.mpf`` and ``gmpy2.mpq``.
Kernels are the same body for all of them; see ``reference/kernel.py``.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from functools import cache

import numpy as np

__all__ = ["F32", "F64", "UNKNOWN", "Context", "FloatContext"]

# sign3 answer for "the sign is not decided at this precision" (only interval contexts).
UNKNOWN = np.int8(2)


class Context:
    """The number-context protocol. Subclasses implement every hook."""

    name: str = "abstract"
    is_exact: bool = False
    is_enclosure: bool = False

    def scope(self):
        """A context manager active around every kernel call (IV sets its precision)."""
        return contextlib.nullcontext()

    def asarray(self, x):  # pragma: no cover - protocol
        raise NotImplementedError

    def const(self, s: str):  # pragma: no cover - protocol
        raise NotImplementedError

    def sqrt(self, x):  # pragma: no cover - protocol
        raise NotImplementedError

    def abs(self, x):  # pragma: no cover - protocol
        raise NotImplementedError

    def minimum(self, a, b):  # pragma: no cover - protocol
        raise NotImplementedError

    def maximum(self, a, b):  # pragma: no cover - protocol
        raise NotImplementedError

    def sign3(self, x):  # pragma: no cover - protocol
        raise NotImplementedError

    def to_float(self, x):  # pragma: no cover - protocol
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class FloatContext(Context):
    """A native IEEE context: every operation rounds to nearest in ``dtype``."""

    def __init__(self, name: str, dtype):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.unit_roundoff = float(np.finfo(self.dtype).eps) / 2.0

    def asarray(self, x):
        return np.asarray(x, dtype=self.dtype)

    def const(self, s: str):
        return _float_const(self.dtype.str, s)

    def sqrt(self, x):
        return np.sqrt(x)

    def abs(self, x):
        return np.abs(x)

    def minimum(self, a, b):
        return np.minimum(a, b)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def sign3(self, x):
        # NaN has no sign: UNKNOWN, not the 0 (or garbage) a NaN cast to int8 would give.
        s = np.sign(x)
        return np.where(np.isnan(s), UNKNOWN, s).astype(np.int8)

    def to_float(self, x):
        return np.asarray(x, dtype=np.float64)


@cache
def _float_const(dtype_str: str, s: str):
    # Fraction -> float rounds correctly to float64; a float32 constant is the float32 nearest
    # the rational, which a double rounding can miss, so round the rational directly.
    q = Fraction(s)
    dtype = np.dtype(dtype_str)
    if dtype == np.float64:
        return np.float64(float(q))
    return _round_fraction_to_float32(q)


def _round_fraction_to_float32(q: Fraction):
    """The float32 nearest the rational ``q`` (ties to even), without double rounding."""
    c = np.float32(float(q))  # within one float32 ulp of the nearest
    best = c
    for cand in (np.nextafter(c, np.float32(-np.inf)), c, np.nextafter(c, np.float32(np.inf))):
        db, dc = abs(Fraction(float(best)) - q), abs(Fraction(float(cand)) - q)
        if dc < db or (dc == db and int(cand.view(np.uint32)) % 2 == 0):
            best = cand
    return np.float32(best)


F32 = FloatContext("F32", np.float32)
F64 = FloatContext("F64", np.float64)
