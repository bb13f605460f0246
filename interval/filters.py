"""Float64 filters: the exact residual of a batch of claims, and its ratio to the bound,
decided in float64 for the whole batch at once.

A filter is the cheap first stage of a check (CGAL's filtered kernel): it decides a claim only
where it is certain, and everything else goes to the exact stage. Here the residual
``claimed - truth`` of a cubic's position or derivative is written *exactly* as an expansion of
float64 terms (error-free sums and products, ``interval.dd``), and ``interval.dd.round_ratio``
pins ``|residual| / bound`` correctly rounded, bit for bit what rational arithmetic gives, or
says it cannot. Overflow, underflow of a product's error term or a coefficient that does not
come out exact decide nothing.

This module is an enclosure method of its own. It shares no code with the fast path's
algorithms; ``tests/interval/test_filters.py`` holds the expansions to exact rationals,
``tests/interval/test_filter_faults.py`` plants faults in them, and the batch checkers that use
them are held to their exact stage.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cubic_residuals", "power_coefficients", "residual_ratios"]


# --- Exact residuals by error-free transformations (interval.dd) ---------------------------------
#
# The Rounded path rows report ``float(max |claimed - truth| / bound)`` correctly rounded, so a
# filter that decides them must reproduce that ratio bit for bit: an interval of float64 ends is
# far too wide (its width is comparable to the 16 u E bound itself). Instead the residual
# ``claimed - B(u)`` is written *exactly* as an expansion of float64 terms: the power-basis
# coefficients of the cubic are exact float64 sums of the float32 controls (checked, element by
# element), Horner's scheme in u is carried out with TwoProduct and no rounding, and only the
# final condensation of the expansion rounds (``interval.dd.enclose_sum``, a rounding term per
# addition). ``interval.dd.round_ratio`` then pins the correctly rounded ratio, or says it cannot.


def _exact_sum(*xs):
    """``(s, exact)``: the float64 sum of ``xs`` left to right, and where no addition rounded."""
    from reference.fp import two_sum

    s, exact = xs[0], np.ones(np.shape(xs[0]), dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for x in xs[1:]:
            s, e = two_sum(s, x)
            exact &= e == 0
    return s, exact & np.isfinite(s)


def power_coefficients(P: np.ndarray):
    """``(a0, a1, a2, a3, exact)``: ``B(u) = a0 + a1 u + a2 u^2 + a3 u^3`` for controls ``P``
    (..., 4, d) (``a1 = 3 (P1 - P0)``, ``a2 = 3 (P0 - 2 P1 + P2)``, ``a3 = P3 - P0 + 3 (P1 - P2)``),
    each a float64 computed with error-free sums and products; ``exact`` (..., d) says where
    every one of them is the exact coefficient (float32 controls whose exponents lie within
    about 26 binades of each other always are)."""
    P = np.asarray(P, dtype=np.float64)
    P0, P1, P2, P3 = (P[..., i, :] for i in range(4))
    d10, x1 = _exact_sum(P1, -P0)
    a1, e1 = _times3(d10)
    s2, x2 = _exact_sum(P0, -2.0 * P1, P2)
    a2, e2 = _times3(s2)
    d30, x3 = _exact_sum(P3, -P0)
    d12, x4 = _exact_sum(P1, -P2)
    t12, e3 = _times3(d12)
    a3, x5 = _exact_sum(d30, t12)
    return P0, a1, a2, a3, x1 & e1 & x2 & e2 & x3 & x4 & e3 & x5


def _times3(x):
    from .dd import two_prod

    p, e, ok = two_prod(3.0, x)
    return p, ok & (e == 0)


def _horner(coeffs, u, ok):
    """The exact expansion of ``sum_k coeffs[k] u^k`` (each coefficient one float64 array, u
    broadcast): Horner's scheme where every product is a TwoProduct; ``ok`` gathers where each
    product was exact."""
    from .dd import two_prod

    acc = [coeffs[-1]]
    for c in reversed(coeffs[:-1]):
        nxt = [c]
        for t in acc:
            p, e, ex = two_prod(u, t)
            ok = ok & ex
            nxt += [p, e]
        acc = nxt
    return acc, ok


def cubic_residuals(P: np.ndarray, u: np.ndarray, claimed: np.ndarray, which: str = "point"):
    """``(terms, exact)``: the expansion of ``claimed - truth`` and where it is exact, for
    controls ``P`` (n, 4, d), parameters ``u`` (n,) and claimed values (n, d).

    ``which`` names the truth: ``"point"`` ``B(u)``, ``"first"`` ``B'(u) = a1 + 2 a2 u + 3 a3 u^2``,
    ``"second"`` ``B''(u) = 2 a2 + 6 a3 u``. Exact wherever ``exact`` holds (the coefficients
    were exact and no TwoProduct was outside its safe range); elsewhere the terms mean nothing.
    """
    from .dd import SAFE_HI

    a0, a1, a2, a3, ok = power_coefficients(P)
    u = np.asarray(u, dtype=np.float64)[..., None]
    claimed = np.asarray(claimed, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if which == "point":
            coeffs = [a0, a1, a2, a3]
        elif which == "first":
            b3, e3 = _times3(a3)
            coeffs, ok = [a1, 2.0 * a2, b3], ok & e3
        elif which == "second":
            b3, e3 = _times3(a3)
            coeffs, ok = [2.0 * a2, 2.0 * b3], ok & e3
        else:
            raise ValueError(f"unknown truth {which!r}")
        ok = ok & np.all([np.abs(c) <= SAFE_HI for c in coeffs], axis=0)
        terms, ok = _horner(coeffs, u, ok)
        ok = ok & np.isfinite(claimed) & (np.abs(claimed) <= SAFE_HI)
    return [claimed] + [-t for t in terms], ok


def residual_ratios(P, u, claimed, bound, which: str = "point"):
    """``(ratio, pinned)`` per claim: ``max_d |claimed_d - truth_d| / bound`` correctly rounded to
    float64 where ``pinned`` (every component's residual exact and its ratio pinned by
    ``interval.dd.round_ratio``), exactly what rational arithmetic gives; elsewhere the exact
    stage must judge. ``bound`` (n,) must hold positive float64 bounds, exact."""
    from .dd import enclose_sum, round_ratio

    terms, ok = cubic_residuals(P, u, claimed, which)
    hi, lo, rad = enclose_sum(terms)
    b = np.asarray(bound, dtype=np.float64)[:, None]
    q, pinned = round_ratio(hi, lo, rad, b)
    pinned = np.all(pinned & ok, axis=-1) & (b[:, 0] > 0)
    return np.max(q, axis=-1), pinned
