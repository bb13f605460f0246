"""Error-free transformations in float64, vectorised: exact sums and products as expansions, and
enclosures of their sums with an explicit bound per rounding.

The filters of ``interval.filters`` evaluate a claim's residual (claimed minus true value) as an
*expansion*: a list of float64 arrays whose exact sum is the residual, with no rounding at all.
Each product is Dekker's TwoProduct (Veltkamp splitting; numpy has no fused multiply-add) and
each sum Knuth's TwoSum, both exact as long as nothing overflows and no product's error term
underflows: :func:`two_prod` returns, beside the pair, a mask of the elements where that is
certain, and callers send every other element to their exact stage.

Only :func:`sum_with_bound` rounds. :func:`enclose_sum` condenses an expansion by error-free
passes (VecSum, Ogita, Rump and Oishi 2005), keeps the largest term ``hi`` apart and adds the
small rest to ``lo`` in plain float64, each addition accounted for by its own rounding term,
half the spacing of its result (:func:`rounding_term`; a sum that underflows is exact): the
exact sum lies in ``hi + lo + [-rad, rad]``. :func:`round_ratio` then decides ``round(|x| / b)``
to nearest float64 where that enclosure leaves no doubt (Ziv's rounding test), so a filter
reproduces a correctly rounded exact ratio bit for bit or says it cannot.

References: T. J. Dekker, "A floating-point technique for extending the available precision"
(1971); D. E. Knuth, TAOCP vol. 2, 4.2.2; T. Ogita, S. M. Rump, S. Oishi, "Accurate sum and dot
product", SIAM J. Sci. Comput. 26 (2005); J.-M. Muller et al., Handbook of Floating-Point
Arithmetic, 2nd ed., 4.3-4.4 (the conditions under which these transformations are exact).
"""

from __future__ import annotations

import numpy as np

from reference.fp import add_hi, two_sum

__all__ = [
    "SAFE_HI",
    "SAFE_LO",
    "enclose_sum",
    "round_ratio",
    "rounding_term",
    "sum_with_bound",
    "surely_positive",
    "two_prod",
    "two_sum",
    "vec_sum",
]

_SPLITTER = 2.0**27 + 1.0  # Veltkamp: a float64 splits into two halves of at most 26 bits
# Magnitudes inside which TwoProduct is exact: no overflow in the splitting (|a| < 2^996) and
# a product far above 2^-969, where its error term would leave the normal range.
SAFE_HI = 2.0**900
SAFE_LO = 2.0**-900


def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """Dekker's error-free product: ``(p, e, exact)`` with ``p + e == a * b`` exactly wherever
    ``exact`` is True (a zero factor, or both factors and the product within
    ``[SAFE_LO, SAFE_HI]`` in magnitude); elsewhere the pair means nothing."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        mp = np.abs(p)
        # A zero factor makes the product exact, but the other factor's splitting may still
        # overflow (inf - inf): its error term is zero, not what Dekker's formula gives.
        zero = ((a == 0) & np.isfinite(b)) | ((b == 0) & np.isfinite(a))
        e = np.where(zero, 0.0, e)
        exact = zero | ((np.abs(a) <= SAFE_HI) & (np.abs(b) <= SAFE_HI)
                        & (mp >= SAFE_LO) & (mp <= SAFE_HI))
    return p, e, exact


def vec_sum(terms: list) -> list:
    """One error-free pass over an expansion (a list of arrays): the same exact sum, the last
    term now the float64 sum of all and the others the rounding errors left behind."""
    out = list(terms)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(1, len(out)):
            out[i], out[i - 1] = two_sum(out[i - 1], out[i])
    return out


def _add_up(a, b):
    """An upper bound of ``a + b`` for nonnegative bounds, exact where either is zero."""
    return np.where((a == 0) | (b == 0), a + b, add_hi(a, b))


def rounding_term(s):
    """A bound of the error of a round-to-nearest float64 addition whose result is ``s``: half
    the spacing at ``|s|`` (the larger of the two gaps around it). A sum in the subnormal range
    is exact, and half of the smallest spacing rounds to zero there."""
    return np.spacing(np.abs(s)) * 0.5


def sum_with_bound(terms: list):
    """``(s, rad)``: the float64 sum of ``terms`` left to right and a bound of its error, one
    rounding term per addition (:func:`rounding_term` of its result), the terms added rounding
    upward (exact where one is zero). Certified for finite terms."""
    s = np.asarray(terms[0], dtype=np.float64)
    rad = np.zeros_like(s)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in terms[1:]:
            s = s + t
            rad = _add_up(rad, rounding_term(s))
    return s, rad


def enclose_sum(terms: list, passes: int = 3):
    """``(hi, lo, rad)`` with the exact sum of ``terms`` in ``hi + lo + [-rad, rad]``.

    Certified (given finite terms; a nonfinite ``hi``, ``lo`` or ``rad`` means nothing). ``passes``
    error-free VecSum passes leave ``hi`` the float64 sum and the rest small; the rest is added
    by :func:`sum_with_bound`. Nothing else is inexact."""
    q = [np.asarray(t, dtype=np.float64) for t in terms]
    if len(q) == 1:
        z = np.zeros_like(q[0])
        return q[0], z, z
    for _ in range(passes):
        q = vec_sum(q)
    lo, rad = sum_with_bound(q[:-1])
    return q[-1], lo, rad


def surely_positive(terms: list) -> np.ndarray:
    """Where the exact sum of ``terms`` is certainly positive: its enclosure
    ``hi + lo + [-rad, rad]`` has ``hi > 0`` and ``|lo| + rad`` (rounded up) below ``hi / 2``.
    Certified; False decides nothing."""
    hi, lo, rad = enclose_sum(terms)
    with np.errstate(over="ignore", invalid="ignore"):
        return (hi > 0) & (_add_up(np.abs(lo), rad) < hi * 0.5)


def round_ratio(hi, lo, rad, b):
    """``(q, pinned)``: wherever ``pinned``, ``q`` is ``|x| / b`` rounded to the nearest float64
    (ties to even) for every ``x`` in ``hi + lo + [-rad, rad]``: the correctly rounded ratio of
    the exact ``|x|`` that the enclosure holds, bit for bit what exact rational arithmetic gives
    (``float(mpq)``). Elsewhere ``q`` means nothing and the caller asks exact arithmetic.

    Certified. ``b`` must be positive. Pinned needs the enclosure to sit strictly between the
    two midpoints around the candidate ``q`` (a ratio at a midpoint, a tie, is never pinned),
    every magnitude in the normal range where the products are exact; an exact zero
    (``hi = lo = rad = 0``) is the ratio 0. The two comparisons with the midpoints are decided
    on exact expansions (:func:`surely_positive`), never on a rounded difference."""
    hi, lo, rad, b = (np.asarray(x, dtype=np.float64) for x in (hi, lo, rad, b))
    hi, lo, rad, b = np.broadcast_arrays(hi, lo, rad, b)
    zero = (hi == 0) & (lo == 0) & (rad == 0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        # |x|: the sign of x is certain where |lo| + rad stays below |hi| / 2.
        sure = _add_up(np.abs(lo), rad) < np.abs(hi) * 0.5
        sign = np.where(hi < 0, -1.0, 1.0)
        H, L = sign * hi, sign * lo
        # The candidate: fl(H / b), corrected once by the remainder (H + L - q b) / b, which
        # moves it to the neighbour where L tips the rounding.
        q = H / b
        p1, p2, _ = two_prod(q, b)
        q = q + (((H - p1) - p2) + L) / b
        ok = sure & (b >= SAFE_LO) & (b <= SAFE_HI) & (H >= SAFE_LO) & (H <= SAFE_HI) \
            & (q >= SAFE_LO) & (q <= SAFE_HI) & np.isfinite(L) & np.isfinite(rad)
        m1, m2, exact = two_prod(q, b)
        # Half the gaps to the neighbours of q, times b: exact (powers of two times b).
        gap_up = (np.nextafter(q, np.inf) - q) * b * 0.5
        gap_down = (q - np.nextafter(q, 0.0)) * b * 0.5
        # |x| - q b lies in H + L - m1 - m2 + [-rad, rad] (the four terms exact); pinned where
        # gap_up - (that) - rad > 0 and (that) - rad + gap_down > 0, each sum exact.
        below = surely_positive([gap_up, -H, m1, -L, m2, -rad])
        above = surely_positive([H, -m1, L, -m2, -rad, gap_down])
        pinned = ok & exact & below & above
    q = np.where(zero, 0.0, q)
    return q, pinned | zero
