"""Oracle for closest-point projection: the global minimum distance from a point to a prepared
path, and the exact distance at a given parameter.

The truth these functions enclose is defined by plain data: the prepared float32 controls
(exact dyadic rationals, chunk-relative), the float64 chunk origin and the float64 query point
in asset coordinates. The chunk-relative point ``q = point - origin`` is taken exactly (an mpq).

Method (independent of the fast path's control-hull boxes): on each span the squared distance
``f(u) = |B(u) - q|^2`` is a degree-6 polynomial whose Bernstein coefficients are exact
rationals (:func:`squared_distance_coefficients`). On a parameter box the Bernstein coefficients
of ``f`` restricted to it enclose its range (the smallest is a lower bound of ``f`` there; the
first and last are ``f`` at the box ends). An interval branch and bound over dyadic boxes of
every span halves boxes by de Casteljau at 1/2 in ``IV(prec)`` (or exactly in ``QQ``), keeps
the best upper bound ``U`` of ``min f`` from box ends, discards boxes whose lower bound exceeds
``U``, and stops when the enclosure is narrow enough, a threshold is decided, or the split
budget is spent (reported, never hidden).

Only ``reference.context``, ``reference.kernel`` and ``reference.status`` are imported from the
fast path's package, as ARCHITECTURE.md requires.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import gmpy2
import numpy as np

from reference import kernel as K

from .context import IV, QQ, iv_from_mpq, iv_hull, lower, to_mpq, upper

__all__ = [
    "MinDistanceEnclosure",
    "enclose_distance_at",
    "enclose_min_distance",
    "exact_point",
    "exact_squared_distance",
    "squared_distance_coefficients",
]

_mpq = gmpy2.mpq
_ZERO = _mpq(0)


def exact_point(point, origin) -> np.ndarray:
    """The chunk-relative point ``point - origin`` as a (3,) object array of mpq. Exact.

    Raises:
        ValueError: a nonfinite or misshapen input.
    """
    p = np.asarray(point, dtype=np.float64)
    o = np.asarray(origin, dtype=np.float64)
    if p.shape != (3,) or o.shape != (3,):
        raise ValueError("point and origin must be (3,) float64 arrays")
    return np.array([to_mpq(float(a)) - to_mpq(float(b)) for a, b in zip(p, o)], dtype=object)


def _exact_controls(controls) -> np.ndarray:
    P = np.asarray(controls)
    if P.ndim != 3 or P.shape[1:] != (4, 3) or P.shape[0] < 1:
        raise ValueError("controls must have shape (n, 4, 3)")
    if P.dtype != np.float32 and not np.array_equal(P.astype(np.float32).astype(np.float64), P):
        raise ValueError("controls must be float32 values")
    return QQ.asarray(P.astype(np.float64))


def squared_distance_coefficients(P, q) -> list:
    """Bernstein coefficients ``c_0..c_6`` of ``f(u) = |B(u) - q|^2`` on ``[0, 1]``. Exact.

    With ``D_i = P_i - q`` and ``b_i b_j = C(3,i) C(3,j) / C(6,i+j) b^6_{i+j}``::

        c0 = D0.D0          c1 = D0.D1          c2 = (2 D0.D2 + 3 D1.D1) / 5
        c3 = (D0.D3 + 9 D1.D2) / 10             c4 = (2 D1.D3 + 3 D2.D2) / 5
        c5 = D2.D3          c6 = D3.D3

    Args:
        P: (4, 3) object array of mpq controls.
        q: (3,) object array of mpq.

    Returns:
        Seven mpq values.
    """
    D = [P[i] - q for i in range(4)]

    def d(i, j):
        return D[i][0] * D[j][0] + D[i][1] * D[j][1] + D[i][2] * D[j][2]

    return [d(0, 0), d(0, 1), (2 * d(0, 2) + 3 * d(1, 1)) / 5, (d(0, 3) + 9 * d(1, 2)) / 10,
            (2 * d(1, 3) + 3 * d(2, 2)) / 5, d(2, 3), d(3, 3)]


def exact_squared_distance(controls, origin, point, span: int, u) -> gmpy2.mpq:
    """``|B_span(u) - (point - origin)|^2`` (QQ kernel evaluation at the exact ``u``). Exact.

    Raises:
        ValueError: malformed inputs, a span outside ``[0, n)`` or ``u`` outside ``[0, 1]``.
    """
    P = _exact_controls(controls)
    q = exact_point(point, origin)
    if isinstance(span, bool) or not isinstance(span, (int, np.integer)) or not 0 <= span < P.shape[0]:
        raise ValueError(f"span {span!r} is not in [0, {P.shape[0]})")
    uq = to_mpq(u)
    if not 0 <= uq <= 1:
        raise ValueError(f"u = {u!r} is outside [0, 1]")
    b = K.cubic_point(QQ, P[int(span)], np.array(uq, dtype=object))
    diff = b - q
    return diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]


def _sqrt_enclosure(lo_sq, hi_sq, prec: int):
    """An ``iv.mpf`` at ``prec`` bits containing ``[sqrt(lo_sq), sqrt(hi_sq)]`` (mpq inputs >= 0)."""
    with IV(prec).scope():
        x = iv_hull(iv_from_mpq(lo_sq, prec), iv_from_mpq(hi_sq, prec))
        return IV(prec).sqrt(np.array([x], dtype=object))[0]


def enclose_distance_at(controls, origin, point, span: int, u, prec: int = 113):
    """An ``iv.mpf`` at ``prec`` bits enclosing the exact distance at ``(span, u)``: the square
    root of :func:`exact_squared_distance`. An enclosure (Certified)."""
    f = exact_squared_distance(controls, origin, point, span, u)
    return _sqrt_enclosure(f, f, prec)


@dataclass(frozen=True)
class MinDistanceEnclosure:
    """What :func:`enclose_min_distance` reached.

    Attributes:
        lower_sq, upper_sq: exact mpq bounds of ``min f`` (squared distance); always valid.
        distance: ``iv.mpf`` enclosing the minimum distance ``sqrt(min f)``.
        decided: for a threshold ``T``: True when ``min f >= T^2`` is shown, False when a
            point with ``f < T^2`` is shown (``witness``), None when undecided or no threshold.
        converged: the distance enclosure is at most ``target`` wide (None without a target).
        witness: ``(span, u)`` with ``u`` an exact mpq where ``f <= upper_sq``.
        splits: boxes split.
        prec: the precision used (None for exact QQ arithmetic).
    """

    lower_sq: gmpy2.mpq
    upper_sq: gmpy2.mpq
    distance: object
    decided: bool | None
    converged: bool | None
    witness: tuple
    splits: int
    prec: int | None


def enclose_min_distance(controls, origin, point, prec: int | None = 113, *,
                         target: float | None = None, threshold=None,
                         max_splits: int = 20000, max_depth: int = 64,
                         report_prec: int = 113) -> MinDistanceEnclosure:
    """Enclose the global minimum distance from ``point`` to the path by interval branch and
    bound over Bernstein ranges of ``|B(u) - q|^2``. An enclosure (Certified) whatever stops
    the search; the threshold decision is three-valued.

    Args:
        controls: (n, 4, 3) prepared float32 controls (chunk-relative).
        origin: (3,) float64 chunk origin.
        point: (3,) float64 query point in asset coordinates.
        prec: interval precision in bits (``IV(prec)``), or None for exact ``QQ`` arithmetic.
        target: stop once the distance enclosure is at most this wide (asset units).
        threshold: a float (or mpq) ``T >= 0``: stop once ``min distance >= T`` or
            ``< T`` is shown.
        max_splits: box splits allowed; then the enclosure reached is returned.
        max_depth: boxes are not split below ``2**-max_depth``.
        report_prec: precision of the returned ``distance`` interval when ``prec`` is None.

    Returns:
        :class:`MinDistanceEnclosure`. Its bounds are valid whatever stopped the search.

    Raises:
        ValueError: malformed inputs, or neither ``target`` nor ``threshold`` given.
    """
    if target is None and threshold is None:
        raise ValueError("give a target width, a threshold, or both")
    if target is not None and not (isinstance(target, (int, float)) and math.isfinite(target) and target > 0):
        raise ValueError("target must be a finite positive float")
    P = _exact_controls(controls)
    q = exact_point(point, origin)
    T2 = None
    if threshold is not None:
        T = to_mpq(threshold)
        T2 = T * T if T > 0 else None  # min f >= 0 always: a threshold <= 0 holds at once
    ctx = QQ if prec is None else IV(prec)
    lo_of, hi_of = (_ident, _ident) if prec is None else (lower, upper)
    n = P.shape[0]
    exact = [squared_distance_coefficients(P[k], q) for k in range(n)]
    C = ctx.asarray(np.array(exact, dtype=object))  # (n, 7)
    span = np.arange(n)
    num = np.zeros(n, dtype=object)  # box k is [num / 2^depth, (num + 1) / 2^depth]
    depth = np.zeros(n, dtype=np.int64)
    lo = _box_lower(C, lo_of)
    # The best upper bound of min f: box ends are exact points of the curve.
    U, witness = None, None
    for k in range(n):
        for j, u in ((0, _ZERO), (6, _mpq(1))):
            v = hi_of(C[k, j])
            if U is None or v < U:
                U, witness = v, (k, u)
    half = ctx.const("1/2")
    splits = 0
    decided = True if T2 is None and threshold is not None else None
    while True:
        L = min(lo)
        if T2 is not None:
            if U < T2:
                decided = False
            elif L >= T2:
                decided = True
        converged = None if target is None else _narrow(L, U, target)
        need_threshold = T2 is not None and decided is None
        need_target = converged is False
        if not (need_threshold or need_target):
            break
        keep = np.array([v <= U for v in lo], dtype=bool)  # the others cannot hold the minimum
        want = np.zeros(len(lo), dtype=bool)
        if need_threshold:
            want |= np.array([v < T2 for v in lo], dtype=bool)
        if need_target:
            cut = _target_cut(U, target)
            want |= np.array([v < cut for v in lo], dtype=bool)
        want &= keep & (depth < max_depth)
        sel = np.flatnonzero(want)
        if sel.size == 0 or splits + sel.size > max_splits:
            break
        left, right = _halve(ctx, C[sel], half)
        # Midpoints of the split boxes (left's last coefficient) may improve U.
        mids = [hi_of(x) for x in left[:, 6]]
        best = min(mids)
        if best < U:
            j = sel[mids.index(best)]
            U, witness = best, (int(span[j]), _mpq(2 * int(num[j]) + 1, 2 ** (int(depth[j]) + 1)))
        rest = np.flatnonzero(keep & ~want)
        C = np.concatenate([C[rest], left, right])
        span = np.concatenate([span[rest], span[sel], span[sel]])
        num = np.concatenate([num[rest], 2 * num[sel], 2 * num[sel] + 1])
        depth = np.concatenate([depth[rest], depth[sel] + 1, depth[sel] + 1])
        lo = np.concatenate([lo[rest], _box_lower(left, lo_of), _box_lower(right, lo_of)])
        splits += sel.size
    L = min(lo)
    rp = report_prec if prec is None else prec
    return MinDistanceEnclosure(L, U, _sqrt_enclosure(L, U, rp), decided, converged, witness, splits, prec)


def _ident(x):
    return x


def _box_lower(C, lo_of) -> np.ndarray:
    """Per box: ``max(0, smallest coefficient's lower end)``, an exact mpq (f >= 0 everywhere)."""
    out = np.empty(C.shape[0], dtype=object)
    for i in range(C.shape[0]):
        m = min(lo_of(x) for x in C[i])
        out[i] = m if m > 0 else _ZERO
    return out


def _halve(ctx, C, half):
    """De Casteljau at 1/2 of degree-6 Bernstein coefficients (m, 7): (left, right) (m, 7)."""
    with ctx.scope():
        rows = [C]
        for _ in range(6):
            prev = rows[-1]
            rows.append((prev[:, :-1] + prev[:, 1:]) * half)
        left = np.stack([rows[j][:, 0] for j in range(7)], axis=1)
        right = np.stack([rows[6 - j][:, j] for j in range(7)], axis=1)
    return left, right


def _narrow(L, U, target: float) -> bool:
    """Whether ``sqrt(U) - sqrt(L) <= target`` (steering only, in MPFR's wide exponent range so
    that squared distances beyond float64 never overflow; the bounds stay exact)."""
    su, sl = gmpy2.sqrt(gmpy2.mpfr(max(U, _ZERO))), gmpy2.sqrt(gmpy2.mpfr(max(L, _ZERO)))
    return su - sl <= target


def _target_cut(U, target: float):
    """Boxes whose lower bound is below this still matter for a ``target``-wide enclosure."""
    cut = max(gmpy2.sqrt(gmpy2.mpfr(max(U, _ZERO))) - target / 2, gmpy2.mpfr(0))
    return _mpq(cut * cut)
