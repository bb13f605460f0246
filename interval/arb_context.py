"""``ARB``: a second enclosure context for the kernels, from FLINT's Arb ball arithmetic.

The kernels of :mod:`reference.kernel` run unchanged on numpy object arrays of python-flint
``arb`` balls (``mid +/- rad``), as they run on ``IV`` (mpmath intervals). Arb is an independent
implementation of rigorous arithmetic (C, midpoint-radius instead of endpoint intervals), so a
kernel result that ``IV`` and ``ARB`` enclose in *disjoint* sets convicts one of the two
oracles (``oracles.decide.enclosures_overlap``); ``tests/interval/test_arb_context.py`` checks
both against exact rationals and against each other, operation by operation and kernel by
kernel.

Precision is explicit: ``ARB(prec)`` sets ``flint.ctx.prec`` only inside ``scope()`` (kernels
enter it themselves) and restores it afterwards. Inputs: floats and ints are held exactly;
rationals (``Fraction``, ``mpq``, ``"1/3"`` strings) are enclosed at ``prec`` bits.

Enclosure vocabulary (as in :mod:`interval.context`): :func:`lower`, :func:`upper` (the exact
endpoints ``mid -/+ rad`` as ``mpq``), :func:`contains`, :func:`width`, :func:`from_mpq`.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from functools import cache

import flint
from flint import fmpq
import gmpy2
import numpy as np

from reference.context import UNKNOWN, Context

from .context import to_mpq

__all__ = ["ARB", "ArbContext", "contains", "exact_fmpq", "exact_mpq", "from_mpq", "is_arb", "lower", "upper", "width"]

_mpq = gmpy2.mpq
arb = flint.arb


def is_arb(x) -> bool:
    """Whether ``x`` is a python-flint ``arb`` ball."""
    return isinstance(x, arb)


def _arf_to_mpq(x) -> gmpy2.mpq:
    """The exact value of an exact (zero-radius, finite) arb, such as ``b.mid()``/``b.rad()``."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return _mpq(man) * (_mpq(2) ** exp if exp >= 0 else _mpq(1, 2 ** (-exp)))


def exact_fmpq(x) -> fmpq:
    """An exact fmpq of a float (float32/float64), int, Fraction, mpq or fmpq; never rounds
    (the Arb oracles read their inputs with it, not through ``interval.context.to_mpq``, so that a
    fault there cannot move both oracles)."""
    if isinstance(x, fmpq):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise TypeError("a boolean is not a number")
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if not np.isfinite(x):
            raise ValueError("nonfinite input")
        return fmpq(*x.as_integer_ratio())
    if isinstance(x, (int, np.integer)):
        return fmpq(int(x))
    if hasattr(x, "numerator") and hasattr(x, "denominator"):
        return fmpq(int(x.numerator), int(x.denominator))
    raise TypeError(f"cannot read {type(x).__name__} as an exact number")


def exact_mpq(x) -> gmpy2.mpq:
    """An exact fmpq, or the exact value of an exact arb (an endpoint), as a gmpy2 mpq."""
    if isinstance(x, fmpq):
        return _mpq(int(x.p), int(x.q))
    man, e = x.man_exp()
    man, e = int(man), int(e)
    return _mpq(man * 2**e) if e >= 0 else _mpq(man, 2**-e)


def _mid_rad(x):
    if not x.is_finite():
        raise ValueError(f"ball {x} is not finite")
    return _arf_to_mpq(x.mid()), _arf_to_mpq(x.rad())


def lower(x) -> gmpy2.mpq:
    """Exact lower endpoint ``mid - rad`` of a ball, as an mpq (a nonfinite ball raises)."""
    m, r = _mid_rad(x)
    return m - r


def upper(x) -> gmpy2.mpq:
    """Exact upper endpoint ``mid + rad`` of a ball, as an mpq (a nonfinite ball raises)."""
    m, r = _mid_rad(x)
    return m + r


def width(x) -> gmpy2.mpq:
    """Exact width ``2 rad``."""
    return 2 * _mid_rad(x)[1]


def contains(x, q) -> bool:
    """True when the ball ``x`` certainly contains the exact value ``q``."""
    q = to_mpq(q)
    m, r = _mid_rad(x)
    return m - r <= q <= m + r


@contextlib.contextmanager
def _prec(prec: int):
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        yield
    finally:
        flint.ctx.prec = saved


def from_mpq(q, prec: int):
    """A ball at ``prec`` bits enclosing the rational ``q`` (exact when ``q`` is dyadic and fits)."""
    q = to_mpq(q)
    with _prec(prec):
        return arb(flint.fmpq(int(q.numerator), int(q.denominator)))


def _to_arb1(x):
    if isinstance(x, arb):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise TypeError("a boolean is not a number of the ARB context")
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            raise ValueError(f"nonfinite value {x!r} has no enclosure")
        return arb(float(x))  # exact: arb holds every float64
    if isinstance(x, (int, np.integer)):
        return arb(flint.fmpz(int(x)))  # exact
    q = to_mpq(x)  # Fraction, mpq, str; raises TypeError for anything else
    return arb(flint.fmpq(int(q.numerator), int(q.denominator)))


def _sqrt1(x):
    # Kernels take roots of mathematically nonnegative quantities (sums of squares); an
    # enclosure of one may dip below zero and then encloses the root of its nonnegative part.
    # A ball certainly below zero has no root to enclose: ValueError, as in IV.
    if x < 0:  # certain: the whole ball is negative
        raise ValueError(f"ARB: square root of a negative ball {x}")
    if not x >= 0:
        x = x.nonnegative_part()
    return x.sqrt()


def _sign1(v) -> int:
    if not v.is_finite():
        return int(UNKNOWN)
    m, r = _mid_rad(v)
    if m - r > 0:
        return 1
    if m + r < 0:
        return -1
    if m == 0 and r == 0:
        return 0
    return int(UNKNOWN)


def _elementwise(fn, nin=1):
    ufunc = np.frompyfunc(fn, nin, 1)
    return lambda *a: ufunc(*a)


class ArbContext(Context):
    """``ARB``: numpy object arrays of python-flint ``arb`` balls at ``prec`` bits."""

    is_enclosure = True

    def __init__(self, prec: int):
        if not isinstance(prec, int) or isinstance(prec, bool) or prec < 53:
            raise ValueError("ARB precision must be an int of at least 53 bits (float64 exact)")
        self.prec = prec
        self.name = f"ARB({prec})"
        self._to = _elementwise(_to_arb1)
        self._sqrt = _elementwise(_sqrt1)
        self._abs = _elementwise(abs)
        self._min = _elementwise(lambda a, b: a.min(b), 2)
        self._max = _elementwise(lambda a, b: a.max(b), 2)

    def scope(self):
        return _prec(self.prec)

    def asarray(self, x):
        with self.scope():
            return self._to(np.asarray(x, dtype=object))

    def const(self, s: str):
        return _arb_const(self.prec, s)

    def sqrt(self, x):
        with self.scope():
            return self._sqrt(x)

    def abs(self, x):
        with self.scope():
            return self._abs(x)

    def minimum(self, a, b):
        with self.scope():
            return self._min(a, b)

    def maximum(self, a, b):
        with self.scope():
            return self._max(a, b)

    def sign3(self, x):
        return np.vectorize(_sign1, otypes=[np.int8])(np.asarray(x, dtype=object))

    def to_float(self, x):
        return np.vectorize(lambda v: float(_arf_to_mpq(v.mid())), otypes=[np.float64])(np.asarray(x, dtype=object))


@cache
def _arb_const(prec: int, s: str):
    # A 0-d object array (as IV's): numpy then broadcasts it against the kernel's arrays.
    q = Fraction(s)
    return np.array(from_mpq(_mpq(q.numerator, q.denominator), prec), dtype=object)


def ARB(prec: int) -> ArbContext:
    """The Arb ball context at ``prec`` bits (cached per precision)."""
    if not isinstance(prec, int) or isinstance(prec, bool):  # 113.0 must not hit the cache of 113
        raise ValueError("ARB precision must be an int of at least 53 bits (float64 exact)")
    return _arb_context(prec)


@cache
def _arb_context(prec: int) -> ArbContext:
    return ArbContext(prec)
