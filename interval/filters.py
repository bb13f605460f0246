"""Float64 filters: enclosures of the truth in pairs of float64 arrays, for a whole batch at once.

A filter is the cheap first stage of a check (CGAL's filtered kernel): it encloses the exact
value of each claim's truth in ``[lo, hi]``, computed with numpy over the batch, every
operation rounded outward (``reference.fp``: one ulp toward -inf on the lower end, toward +inf
on the upper end, which always covers round-to-nearest's half ulp). A claim is decided by the
filter only when the enclosure settles it (``decide``); everything else goes to the exact
stage. Overflow or NaN gives infinite or NaN ends, which decide nothing.

This module is an enclosure method of its own (interval arithmetic in float64). It shares no
code with the fast path's algorithms; ``tests/interval/test_filters.py`` holds every operation
to exact rationals, and the batch checkers that use it to their exact stage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference.fp import add_hi, add_lo, mul_hi, mul_lo, sub_hi, sub_lo, up

__all__ = [
    "Iv",
    "abs_dist",
    "cubic_bernstein",
    "cubic_derivative",
    "cubic_residuals",
    "cubic_second_derivative",
    "decide_at_most",
    "point",
    "power_coefficients",
    "ratio_hi",
    "residual_ratios",
]


def _mul(alo, ahi, blo, bhi):
    """[a] x [b] for arrays of interval ends (any signs): the four corner products, outward."""
    with np.errstate(invalid="ignore", over="ignore"):
        los = [mul_lo(alo, blo), mul_lo(alo, bhi), mul_lo(ahi, blo), mul_lo(ahi, bhi)]
        his = [mul_hi(alo, blo), mul_hi(alo, bhi), mul_hi(ahi, blo), mul_hi(ahi, bhi)]
    return np.minimum.reduce(los), np.maximum.reduce(his)


@dataclass(frozen=True)
class Iv:
    """An array of float64 intervals ``[lo, hi]`` (numpy arrays of one shape)."""

    lo: np.ndarray
    hi: np.ndarray

    def __add__(self, o: Iv) -> Iv:
        with np.errstate(over="ignore", invalid="ignore"):
            return Iv(add_lo(self.lo, o.lo), add_hi(self.hi, o.hi))

    def __sub__(self, o: Iv) -> Iv:
        with np.errstate(over="ignore", invalid="ignore"):
            return Iv(sub_lo(self.lo, o.hi), sub_hi(self.hi, o.lo))

    def __mul__(self, o: Iv) -> Iv:
        return Iv(*_mul(self.lo, self.hi, o.lo, o.hi))

    def scale(self, k: float) -> Iv:
        """``k [a]`` for an exact nonnegative float k (a power of two is exact, others round)."""
        if k < 0:
            raise ValueError("scale by a nonnegative number")
        with np.errstate(over="ignore"):
            return Iv(mul_lo(self.lo, k), mul_hi(self.hi, k))

    @property
    def finite(self) -> np.ndarray:
        return np.isfinite(self.lo) & np.isfinite(self.hi)


def point(x) -> Iv:
    """Exact float64 values as degenerate intervals."""
    a = np.asarray(x, dtype=np.float64)
    return Iv(a, a)


def _basis(u: np.ndarray):
    """The cubic Bernstein basis at exact u in [0, 1]: four intervals (nonnegative ends)."""
    u = np.asarray(u, dtype=np.float64)
    s = Iv(sub_lo(1.0, u), sub_hi(1.0, u))  # 1 - u, exact or one rounding
    U = point(u)
    s2, u2 = s * s, U * U
    return (s2 * s, (U * s2).scale(3.0), (u2 * s).scale(3.0), u2 * U)


def cubic_bernstein(P: np.ndarray, u: np.ndarray) -> Iv:
    """Enclosure of ``B(u) = sum_i b_i(u) P_i`` for controls ``P`` (..., 4, d) and parameters
    ``u`` (...,): shape (..., d)."""
    P = np.asarray(P, dtype=np.float64)
    b = _basis(u)
    acc = None
    for i in range(4):
        bi = Iv(b[i].lo[..., None], b[i].hi[..., None])
        t = bi * point(P[..., i, :])
        acc = t if acc is None else acc + t
    return acc


def cubic_derivative(P: np.ndarray, u: np.ndarray) -> Iv:
    """Enclosure of ``B'(u) = 3 sum_i b2_i(u) (P_{i+1} - P_i)`` (the quadratic basis)."""
    P = np.asarray(P, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)
    s = Iv(sub_lo(1.0, u), sub_hi(1.0, u))
    U = point(u)
    basis = (s * s, (U * s).scale(2.0), U * U)
    acc = None
    for i in range(3):
        d = point(P[..., i + 1, :]) - point(P[..., i, :])
        t = Iv(basis[i].lo[..., None], basis[i].hi[..., None]) * d
        acc = t if acc is None else acc + t
    return acc.scale(3.0)


def cubic_second_derivative(P: np.ndarray, u: np.ndarray) -> Iv:
    """Enclosure of ``B''(u) = 6 ((1 - u) D_0 + u D_1)``, ``D_i = P_{i+2} - 2 P_{i+1} + P_i``."""
    P = np.asarray(P, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)
    s = Iv(sub_lo(1.0, u), sub_hi(1.0, u))
    U = point(u)

    def second(i):
        return (point(P[..., i + 2, :]) - point(P[..., i + 1, :]).scale(2.0)) + point(P[..., i, :])

    acc = Iv(s.lo[..., None], s.hi[..., None]) * second(0) + Iv(U.lo[..., None], U.hi[..., None]) * second(1)
    return acc.scale(6.0)


def abs_dist(c: np.ndarray, t: Iv) -> Iv:
    """Enclosure of ``|c - t|`` for exact claimed values ``c`` and the truth ``t`` in an interval:
    the farthest end of ``[lo, hi]`` from c above, the gap to the interval (0 inside) below."""
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        far = np.maximum.reduce([sub_hi(c, t.lo), sub_hi(t.lo, c), sub_hi(c, t.hi), sub_hi(t.hi, c)])
        near = np.maximum(np.maximum(sub_lo(t.lo, c), sub_lo(c, t.hi)), 0.0)
    return Iv(near, far)


def decide_at_most(err: Iv, bound: Iv) -> np.ndarray:
    """Per claim: +1 when ``err <= bound`` is certain (``err.hi <= bound.lo``), -1 when
    ``err > bound`` is certain (``err.lo > bound.hi``), 0 when the enclosures cannot tell (or
    are not finite)."""
    ok = np.isfinite(err.lo) & np.isfinite(err.hi) & np.isfinite(bound.lo) & np.isfinite(bound.hi)
    out = np.zeros(err.lo.shape, dtype=np.int8)
    out[ok & (err.hi <= bound.lo)] = 1
    out[ok & (err.lo > bound.hi)] = -1
    return out


def ratio_hi(err: Iv, bound: Iv) -> np.ndarray:
    """An upper bound of ``err / bound`` (inf where the bound's lower end is not positive)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.where(bound.lo > 0, up(err.hi / np.where(bound.lo > 0, bound.lo, 1.0)), np.inf)
    return np.where(err.hi == 0, 0.0, r)



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
