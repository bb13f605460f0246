"""Declared error models of Rounded claims.

A Rounded claim is judged against an error bound. By default that is the project's own
reference model (``reference.error_model``, binary64, the row's rounding constant). A producer
may declare its own model in the claim's ``model`` field (schema ``oracles.schema.MODEL``):

* ``{"u": U}``: the row's reference formula at unit roundoff ``U`` (``2^-24`` for a float32
  evaluator); the subnormal step eta follows from U for binary64/32/16, else declare ``eta``;
* ``{"u": U, "k": K}``: the same with the producer's rounding constant K in place of the
  row's own (the bound scales by ``K / constant``);
* ``{"bound": B}``: an explicit bound (a number, or one per component, in the row's units).

The checker judges the declared bound; the ledger reports it beside the reference model at
binary64 (``declared_over_reference``), so a producer cannot hide behind a huge bound without
it showing. ``name`` is free text and is ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any
from collections.abc import Callable

import numpy as np

from interval.lazy import gmpy2
from reference.fp import U64

from .model import Claim, NumberError, Verdict, dec, dec_q, undecided

__all__ = ["ETA_OF_U", "Resolved", "VacuousModel", "ratio", "resolve", "vacuous_verdict"]

# Unit roundoff of a binary format -> its smallest subnormal.
ETA_OF_U = {2.0**-53: 2.0**-1074, 2.0**-24: 2.0**-149, 2.0**-11: 2.0**-24}


class VacuousModel(ArithmeticError):
    """The row's error model gives no finite bound at the claim's inputs (a component is +inf
    or NaN, e.g. a subnormal domain width or a magnitude near float64's largest): there is
    nothing to judge the claim against, so its verdict is Undecided (``oracles.batch``), never
    Verified against an infinite bound and never a checker fault."""


def vacuous_verdict(claim: Claim, e: VacuousModel) -> Verdict:
    """The Undecided verdict of a claim whose row's error model gives no finite bound."""
    return undecided(claim, None, note=f"{e}: the documented error model gives no finite bound, so there is "
                                       "nothing to judge the claim against")


def _q(x) -> gmpy2.mpq:
    if isinstance(x, type(gmpy2.mpq(0))):
        return x
    if isinstance(x, (list, tuple)):
        raise TypeError("scalar expected")
    if isinstance(x, Fraction):
        return gmpy2.mpq(x.numerator, x.denominator)
    if isinstance(x, float) and not math.isfinite(x):
        raise VacuousModel(f"the error model's bound is {x!r} at these inputs")
    return gmpy2.mpq(x)  # int, float (exact), numpy float via float()


def _as_list(b) -> list:
    return [_q(float(v) if hasattr(v, "dtype") else v) for v in b] if isinstance(b, (list, tuple)) \
        else [_q(float(b) if hasattr(b, "dtype") else b)]


def _ratio(b, r) -> float:
    """b / r as a float: inf when r is zero (and b is not) or the quotient exceeds float64."""
    if r <= 0:
        return 1.0 if b == 0 else float("inf")
    return ratio(b, r)


def ratio(num, den) -> float:
    """``num / den`` of exact nonnegative numbers (mpq, Fraction, int, float) as a float that
    never raises: 0 when ``num`` is 0, inf when ``den`` is 0 (and ``num`` is not) or the
    quotient lies beyond float64's range, and a quotient below the smallest subnormal rounds to
    0. Every checker's error-over-bound ratio goes through here (a Step span's bound is about
    2^-1070, so an ordinary error over it overflows ``float``)."""
    num, den = _q(num), _q(den)
    if num < 0 or den < 0:
        raise ValueError(f"ratio of negative numbers {num} / {den}")
    if num == 0:
        return 0.0
    if den == 0:
        return float("inf")
    try:
        return float(num / den)
    except OverflowError:
        return float("inf")


@dataclass(frozen=True)
class Resolved:
    """The bound a Rounded claim is judged against.

    Attributes:
        bound: exact mpq bounds, one per component of the reference (a list; a scalar model is
            a list of one).
        reference: the project's reference model at binary64, in the same shape.
        declared: the claim's declared model (its JSON), or None when the reference is used.
        u: the unit roundoff the bound assumes.
    """

    bound: list
    reference: list
    declared: dict | None
    u: float

    def scalar(self) -> gmpy2.mpq:
        """The bound of a one-component model (the largest component otherwise)."""
        return max(self.bound)

    @property
    def ratio(self) -> float | None:
        """Largest declared/reference ratio over components (None when nothing is declared)."""
        if self.declared is None:
            return None
        return max(_ratio(b, r) for b, r in zip(self.bound, self.reference))

    def extra(self) -> dict:
        """Keyword arguments for the verdict: the declared model and its ratio, for the ledger."""
        if self.declared is None:
            return {}
        return {"declared_model": {"model": self.declared, "declared_over_reference": self.ratio}}


def _evaluated(reference, u, eta):
    """``reference(u, eta)`` with numpy's overflow warnings off: near float64's largest a model
    may evaluate to inf, which :class:`VacuousModel` reports in the verdict, not on stderr."""
    with np.errstate(over="ignore", invalid="ignore"):
        return reference(u, eta)


def resolve(claim: Claim, reference: Callable[[float, float], Any], *, constant: float = 16.0) -> Resolved:
    """The bound of a Rounded claim: its declared model, or the row's reference model.

    Args:
        claim: the claim; its ``model`` (if any) follows ``oracles.schema.MODEL``.
        reference: ``reference(u, eta)`` -> the row's own bound at unit roundoff ``u`` and
            subnormal step ``eta`` (a float, mpq, or a list of them, one per component).
        constant: the row's own rounding constant (``k`` scales the bound by ``k/constant``).

    Raises :class:`oracles.model.NumberError` (malformed claim) for a model that the schema
    admits but cannot be applied (an explicit bound of the wrong length, an unknown format's u
    without eta).
    """
    ref = _as_list(_evaluated(reference, U64, ETA_OF_U[U64]))
    m = claim.model
    if not m or ("u" not in m and "bound" not in m):
        return Resolved(ref, ref, None, U64)
    if "bound" in m:
        b = m["bound"]
        bound = [dec_q(v) for v in b] if isinstance(b, list) else [dec_q(b)] * len(ref)
        if len(bound) != len(ref):
            raise NumberError(f"model.bound has {len(bound)} components; the row's model has {len(ref)}")
        return Resolved(bound, ref, dict(m), U64)
    u = dec(m["u"])
    if "eta" in m:
        eta = dec(m["eta"])
    elif u in ETA_OF_U:
        eta = ETA_OF_U[u]
    else:
        raise NumberError(f"model.u = {m['u']!r} is not binary64/32/16: declare model.eta too")
    bound = _as_list(_evaluated(reference, u, eta))
    if "k" in m:
        scale = dec_q(m["k"]) / _q(constant)
        bound = [b * scale for b in bound]
    return Resolved(bound, ref, dict(m), u)
