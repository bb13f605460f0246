"""Refinement: decide a three-valued check by raising precision up to a stated budget.

A check at one precision answers True (shown to hold), False (shown to fail) or None (the
enclosure is too wide). :func:`refine` retries with each precision of the budget in turn and
reports Undecided with the last enclosure when none decides; it never defaults to Verified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Sequence

__all__ = ["DEFAULT_BUDGET", "Decision", "enclosures_overlap", "endpoints", "exact", "refine"]

# Interval precisions (bits) a Certified or irrational Rounded check may use, in order.
DEFAULT_BUDGET: tuple[int, ...] = (113, 256, 1024)


@dataclass(frozen=True)
class Decision:
    """``holds`` is True, False or None (undecided); ``prec`` the precision that decided (or
    the last tried); ``enclosure`` and ``detail`` what the check computed there."""

    holds: bool | None
    prec: int
    enclosure: Any = None
    detail: Any = None


def refine(check: Callable[[int], Decision], budget: Sequence[int] = DEFAULT_BUDGET) -> Decision:
    """Run ``check(prec)`` for each precision of ``budget`` until it decides."""
    if not budget:
        raise ValueError("an empty precision budget cannot decide anything")
    last = None
    for prec in budget:
        last = check(prec)
        if last.holds is not None:
            return last
    return last


# --- Two oracles, one truth ------------------------------------------------------------------


def exact(x):
    """The exact rational value (``gmpy2.mpq``) of an enclosure endpoint: an int, a Fraction or
    mpq, a finite float, an mpmath ``mpf`` or a python-flint ``arb`` that is exact (an endpoint
    from ``lower()``/``upper()``). Anything else, or a nonfinite value, is a TypeError/ValueError."""
    import gmpy2

    if isinstance(x, bool):
        raise TypeError("a boolean is not an endpoint")
    if isinstance(x, int):
        return gmpy2.mpq(x)
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueError(f"nonfinite endpoint {x}")
        return gmpy2.mpq(x)
    if type(x).__name__ == "mpq" or (hasattr(x, "numerator") and hasattr(x, "denominator")):
        return gmpy2.mpq(int(x.numerator), int(x.denominator))
    if type(x).__name__ == "arb":
        if not x.is_exact() or not x.is_finite():
            raise ValueError(f"arb endpoint {x} is not an exact finite number")
        man, e = x.man_exp()
        man, e = int(man), int(e)
        return gmpy2.mpq(man * 2 ** e) if e >= 0 else gmpy2.mpq(man, 2 ** -e)
    if hasattr(x, "_mpf_"):  # mpmath mpf
        return _mpf_tuple(x._mpf_)
    if hasattr(x, "_mpi_"):  # a point interval of mpmath's iv (iv.mpf(...).a)
        lo, hi = x._mpi_
        if lo != hi:
            raise ValueError(f"{x} is an interval, not an endpoint")
        return _mpf_tuple(lo)
    raise TypeError(f"cannot read {type(x).__name__} as an exact endpoint")


def _mpf_tuple(t, infinite_ok: bool = False):
    import gmpy2

    sign, man, e, _bc = t
    if not man and e:  # mpmath's special values (inf, nan) carry a zero mantissa
        import mpmath

        v = float(mpmath.mpf(t))
        if infinite_ok and v in (float("inf"), float("-inf")):
            return v
        raise ValueError("nonfinite endpoint")
    v = (-1) ** sign * int(man)
    return gmpy2.mpq(v * 2 ** e) if e >= 0 else gmpy2.mpq(v, 2 ** -e)


def endpoints(e):
    """``(lo, hi)`` as exact rationals of an enclosure: a ``(lo, hi)`` pair of endpoints
    (:func:`exact`), an mpmath ``iv.mpf`` (``.a``, ``.b``) or a python-flint ``arb`` (its
    lower and upper bounds). An unbounded end is the float ``-inf`` or ``inf``; a NaN raises."""
    if type(e).__name__ == "arb":
        if not e.is_finite():
            raise ValueError(f"arb {e} is not finite")
        return exact(e.lower()), exact(e.upper())
    if hasattr(e, "_mpi_"):  # mpmath iv.mpf
        lo, hi = e._mpi_
        lo, hi = _mpf_tuple(lo, True), _mpf_tuple(hi, True)
    else:
        lo, hi = e
        lo = lo if lo == float("-inf") else exact(lo)
        hi = hi if hi == float("inf") else exact(hi)
    if lo > hi:
        raise ValueError(f"empty enclosure [{lo}, {hi}]")
    return lo, hi


def enclosures_overlap(a, b) -> bool:
    """True when two enclosures of the same truth share a point. Two sound oracles always
    overlap; disjoint enclosures prove that one of them is wrong (an ``OracleFault``)."""
    alo, ahi = endpoints(a)
    blo, bhi = endpoints(b)
    return alo <= bhi and blo <= ahi
