"""Oracle number contexts: ``IV`` (mpmath intervals at an explicit precision), ``QQ`` (exact
gmpy2 rationals) and ``SYM`` (SymPy expressions, for proving kernel formulas in tests).

They implement the protocol of :mod:`reference.context` over numpy object arrays, so the
kernels of :mod:`reference.kernel` run on them unchanged.

Precision is explicit. ``IV(prec)`` sets ``mpmath.iv.prec`` only inside ``scope()`` (kernels
enter it themselves) and restores the previous value afterwards; oracle code that combines IV
values outside a kernel wraps that arithmetic in ``with ctx.scope():``. Only the interval
operations that ``tests/interval/test_context.py`` checks against exact rationals are used:
``+ - * /`` and ``sqrt``. ``QQ.sqrt`` is exact or raises ``ArithmeticError``.

Enclosure vocabulary (python-flint's): :func:`lower`, :func:`upper` (exact ``mpq`` endpoints),
:func:`lower_float`, :func:`upper_float` (directed float64 roundings), :func:`mid`,
:func:`rad`, :func:`contains`, :func:`width`.
"""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction
from functools import cache

import numpy as np

from reference.context import UNKNOWN, Context

from .lazy import gmpy2, mpmath, sympy


__all__ = [
    "IV",
    "QQ",
    "SYM",
    "IntervalContext",
    "RationalContext",
    "SymbolicContext",
    "contains",
    "iv_from_mpq",
    "iv_hull",
    "lower",
    "lower_float",
    "mid",
    "rad",
    "to_mpq",
    "upper",
    "upper_float",
    "width",
]

def to_mpq(x) -> gmpy2.mpq:
    """Exact rational value of a float, numpy float, int, Fraction or mpq (nonfinite raises)."""
    if isinstance(x, gmpy2.mpq):
        return x
    if type(x) is float:  # the common case, without numpy's scalar machinery
        if not math.isfinite(x):
            raise ValueError(f"nonfinite value {x!r} has no rational value")
        return gmpy2.mpq(x)
    if isinstance(x, (np.floating, float)):
        if not np.isfinite(x):
            raise ValueError(f"nonfinite value {x!r} has no rational value")
        return gmpy2.mpq(float(x))  # float32 -> float64 is exact; mpq(float) is exact
    if isinstance(x, Fraction):
        return gmpy2.mpq(x.numerator, x.denominator)
    if isinstance(x, (int, np.integer)):
        return gmpy2.mpq(int(x))
    if isinstance(x, str):
        return gmpy2.mpq(Fraction(x).numerator, Fraction(x).denominator)
    raise TypeError(f"cannot make an exact rational from {type(x).__name__}")


def _mpf_tuple_to_mpq(t) -> gmpy2.mpq:
    sign, man, exp, bc = t
    if not man:
        if bc:  # mpmath encodes nan and +-inf as a zero mantissa with a nonzero bit count
            raise ValueError("interval endpoint is not finite")
        return gmpy2.mpq(0)
    v = gmpy2.mpq(int(man)) * (gmpy2.mpq(2) ** exp if exp >= 0 else gmpy2.mpq(1, 2 ** (-exp)))
    return -v if sign else v


def lower(x) -> gmpy2.mpq:
    """Exact lower endpoint of an ``iv.mpf`` as an mpq."""
    return _mpf_tuple_to_mpq(x._mpi_[0])


def upper(x) -> gmpy2.mpq:
    """Exact upper endpoint of an ``iv.mpf`` as an mpq."""
    return _mpf_tuple_to_mpq(x._mpi_[1])


def _directed_float(t, rnd) -> float:
    # libmp.to_float's "d"/"u" round toward/away from zero (wrong side for negative values)
    # and overflows to inf or underflows to 0 whatever the direction; MPFR in a binary64
    # context rounds the exact endpoint once, in the asked direction, subnormals included.
    if not t[1] and t[3]:  # +-inf or nan: already a float
        return mpmath.libmp.to_float(t)
    ctx = gmpy2.ieee(64)
    ctx.round = rnd
    with gmpy2.context(ctx):
        return float(gmpy2.mpfr(_mpf_tuple_to_mpq(t)))


def lower_float(x) -> float:
    """The lower endpoint rounded toward -inf to float64 (a valid float lower bound)."""
    return _directed_float(x._mpi_[0], gmpy2.RoundDown)


def upper_float(x) -> float:
    """The upper endpoint rounded toward +inf to float64 (a valid float upper bound)."""
    return _directed_float(x._mpi_[1], gmpy2.RoundUp)


def mid(x) -> gmpy2.mpq:
    """Exact midpoint of an ``iv.mpf``."""
    return (lower(x) + upper(x)) / 2


def rad(x) -> gmpy2.mpq:
    """Exact radius (half width) of an ``iv.mpf``."""
    return (upper(x) - lower(x)) / 2


def width(x) -> gmpy2.mpq:
    """Exact width of an ``iv.mpf``."""
    return upper(x) - lower(x)


def contains(x, q) -> bool:
    """True when the interval ``x`` certainly contains the exact value ``q``."""
    q = to_mpq(q)
    return lower(x) <= q <= upper(x)


def iv_from_mpq(q, prec: int):
    """The tightest ``iv.mpf`` at ``prec`` bits enclosing the rational ``q``."""
    q = to_mpq(q)
    with _ivprec(prec):
        num, den = int(q.numerator), int(q.denominator)
        if den == 1:
            return mpmath.iv.mpf(num)
        return mpmath.iv.mpf(num) / mpmath.iv.mpf(den)


def iv_hull(a, b):
    """The smallest interval containing the intervals ``a`` and ``b``."""
    return IntervalContext._hull1(a, b)


@contextlib.contextmanager
def _ivprec(prec: int):
    saved = mpmath.iv.prec
    mpmath.iv.prec = prec
    try:
        yield
    finally:
        mpmath.iv.prec = saved


def _elementwise(fn):
    ufunc = np.frompyfunc(fn, 1, 1)

    def apply(x):
        return ufunc(x)

    return apply


def _elementwise2(fn):
    ufunc = np.frompyfunc(fn, 2, 1)

    def apply(a, b):
        return ufunc(a, b)

    return apply


class IntervalContext(Context):
    """``IV``: numpy object arrays of ``mpmath.iv.mpf`` at ``prec`` bits, outward rounded."""

    is_enclosure = True

    def __init__(self, prec: int):
        if not isinstance(prec, int) or prec < 53:
            raise ValueError("IV precision must be an int of at least 53 bits (float64 exact)")
        self.prec = prec
        self.name = f"IV({prec})"
        self._sqrt = _elementwise(self._sqrt1)
        self._abs = _elementwise(abs)
        self._min = _elementwise2(self._min1)
        self._max = _elementwise2(self._max1)
        self._to_iv = _elementwise(self._to_iv1)

    def scope(self):
        return _ivprec(self.prec)

    def _to_iv1(self, x):
        if isinstance(x, mpmath.iv.mpf):  # the class itself: no interval built to find it
            return x
        if isinstance(x, (float, np.floating, int, np.integer)):
            return mpmath.iv.mpf(float(x)) if isinstance(x, (float, np.floating)) else mpmath.iv.mpf(int(x))
        return iv_from_mpq(to_mpq(x), self.prec)

    def asarray(self, x):
        with self.scope():
            return self._to_iv(np.asarray(x, dtype=object))

    def const(self, s: str):
        return _iv_const(self.prec, s)

    @staticmethod
    def _sqrt1(x):
        # Kernels take square roots of mathematically nonnegative quantities (sums of squares);
        # an enclosure of one may dip below zero, and [a, b] meet [0, inf) still encloses it.
        lo, hi = x._mpi_
        if lo[0] and lo[1]:  # a negative lower endpoint
            x = mpmath.iv.make_mpf((mpmath.libmp.fzero, hi))
        return mpmath.iv.sqrt(x)

    def sqrt(self, x):
        with self.scope():
            return self._sqrt(x)

    def abs(self, x):
        with self.scope():
            return self._abs(x)

    @staticmethod
    def _min1(a, b):
        (alo, ahi), (blo, bhi) = a._mpi_, b._mpi_
        lo = alo if mpmath.libmp.mpf_cmp(alo, blo) <= 0 else blo
        hi = ahi if mpmath.libmp.mpf_cmp(ahi, bhi) <= 0 else bhi
        return mpmath.iv.make_mpf((lo, hi))

    @staticmethod
    def _hull1(a, b):
        (alo, ahi), (blo, bhi) = a._mpi_, b._mpi_
        lo = alo if mpmath.libmp.mpf_cmp(alo, blo) <= 0 else blo
        hi = ahi if mpmath.libmp.mpf_cmp(ahi, bhi) >= 0 else bhi
        return mpmath.iv.make_mpf((lo, hi))

    @staticmethod
    def _max1(a, b):
        (alo, ahi), (blo, bhi) = a._mpi_, b._mpi_
        lo = alo if mpmath.libmp.mpf_cmp(alo, blo) >= 0 else blo
        hi = ahi if mpmath.libmp.mpf_cmp(ahi, bhi) >= 0 else bhi
        return mpmath.iv.make_mpf((lo, hi))

    def minimum(self, a, b):
        with self.scope():
            return self._min(a, b)

    def maximum(self, a, b):
        with self.scope():
            return self._max(a, b)

    def sign3(self, x):
        def s(v):
            lo, hi = lower(v), upper(v)
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            if lo == 0 and hi == 0:
                return 0
            return int(UNKNOWN)

        return np.vectorize(s, otypes=[np.int8])(np.asarray(x, dtype=object))

    def to_float(self, x):
        return np.vectorize(lambda v: float(mid(v)), otypes=[np.float64])(np.asarray(x, dtype=object))


@cache
def _iv_const(prec: int, s: str):
    # A 0-d object array, not a bare iv.mpf: ``ivmpf * ndarray`` raises inside mpmath instead
    # of deferring to numpy, while ``ndarray * ndarray`` is elementwise.
    q = Fraction(s)
    return np.array(iv_from_mpq(gmpy2.mpq(q.numerator, q.denominator), prec), dtype=object)


def _qq_sqrt1(q):
    q = to_mpq(q)
    if q < 0:
        raise ArithmeticError("QQ: square root of a negative number")
    n, d = q.numerator, q.denominator
    if gmpy2.is_square(n) and gmpy2.is_square(d):
        return gmpy2.mpq(gmpy2.isqrt(n), gmpy2.isqrt(d))
    raise ArithmeticError(f"QQ: sqrt({q}) is irrational; use IV")


class RationalContext(Context):
    """``QQ``: numpy object arrays of ``gmpy2.mpq``; every operation is exact."""

    name = "QQ"
    is_exact = True

    def __init__(self):
        self._to_q = _elementwise(to_mpq)
        self._sqrt = _elementwise(_qq_sqrt1)
        self._abs = _elementwise(abs)
        self._min = _elementwise2(min)
        self._max = _elementwise2(max)

    def asarray(self, x):
        return self._to_q(np.asarray(x, dtype=object))

    def const(self, s: str):
        q = Fraction(s)
        return np.array(gmpy2.mpq(q.numerator, q.denominator), dtype=object)

    def sqrt(self, x):
        return self._sqrt(x)

    def abs(self, x):
        return self._abs(x)

    def minimum(self, a, b):
        return self._min(a, b)

    def maximum(self, a, b):
        return self._max(a, b)

    def sign3(self, x):
        return np.vectorize(lambda v: (v > 0) - (v < 0), otypes=[np.int8])(np.asarray(x, dtype=object))

    def to_float(self, x):
        return np.vectorize(lambda v: float(v), otypes=[np.float64])(np.asarray(x, dtype=object))


class SymbolicContext(Context):
    """``SYM``: numpy object arrays of SymPy expressions, for checking kernel formulas."""

    name = "SYM"
    is_exact = True

    def asarray(self, x):
        return np.vectorize(sympy.sympify, otypes=[object])(np.asarray(x, dtype=object))

    def const(self, s: str):
        return sympy.Rational(s)

    def sqrt(self, x):
        return np.vectorize(sympy.sqrt, otypes=[object])(x)

    def abs(self, x):
        return np.vectorize(sympy.Abs, otypes=[object])(x)

    def minimum(self, a, b):
        return np.vectorize(sympy.Min, otypes=[object])(a, b)

    def maximum(self, a, b):
        return np.vectorize(sympy.Max, otypes=[object])(a, b)

    def sign3(self, x):
        def s(v):
            v = sympy.sympify(v)
            if v.is_positive:
                return 1
            if v.is_negative:
                return -1
            if v.is_zero:
                return 0
            return int(UNKNOWN)

        return np.vectorize(s, otypes=[np.int8])(np.asarray(x, dtype=object))

    def to_float(self, x):
        return np.vectorize(lambda v: float(v), otypes=[np.float64])(np.asarray(x, dtype=object))


QQ = RationalContext()
SYM = SymbolicContext()


def IV(prec: int) -> IntervalContext:
    """The interval context at ``prec`` bits (cached per precision)."""
    return _iv_context(prec)


@cache
def _iv_context(prec: int) -> IntervalContext:
    return IntervalContext(prec)
