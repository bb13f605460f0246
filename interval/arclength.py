"""Rigorous enclosures of the arc length of a prepared cubic, by Taylor integration of the
speed with a Cauchy remainder.

The oracle's arc length is independent of the fast path's chord/polygon brackets. For a cubic
with exact (float32) controls ``P`` the speed is ``|B'(u)| = sqrt(f(u))``, where

    B'(u) = A + B u + C u^2,   A = 3 d0,  B = 6 (d1 - d0),  C = 3 (d0 - 2 d1 + d2),
    f(u)  = |B'(u)|^2,         a quartic with exact rational coefficients (d_k = P_{k+1} - P_k).

On a piece ``[c - r, c + r]`` let ``f(c + t) = a_0 + a_1 t + ... + a_4 t^4`` (exact). If a
rational ``R > r`` has ``sum_{k>=1} |a_k| R^k < a_0`` then f has no zero on the closed disc
``|t| <= R``, so ``g = sqrt(f)`` has a holomorphic branch there that is the positive root on
the real piece, and Cauchy's estimate bounds its Taylor coefficients by ``|g_k| <= M / R^k``
with ``M^2 = a_0 + sum |a_k| R^k >= max |f|`` on the circle. Integrating the series termwise,

    integral = 2 sqrt(a_0) sum_{k even < N} h_k r^(k+1) / (k+1)  +/-  2 r M q^N / ((N+1)(1 - q^2)),

with ``q = r / R`` and ``h_k`` the Taylor coefficients of ``sqrt(f / a_0)``, which are exact
rationals (``h^2 = f / a_0``: ``h_0 = 1``, ``h_k = (b_k - sum_{j=1}^{k-1} h_j h_{k-j}) / 2``);
they are computed as scaled integers and the sum exactly, so the only rounding is one interval
square root and the final products at ``prec`` bits. N (even) is the smallest order whose
tail meets the piece's share of the requested width, at most ``max_order``.

Where no such R exists the piece is enclosed crudely: ``2 r [sqrt(min f), sqrt(max f)]`` over
the real piece (exact box bounds of f), or ``[0, 2 r sqrt(max f)]`` where f is not bounded away
from zero there (a zero-speed point: an ease endpoint, a cusp, a stationary stretch). Crude
enclosures shrink at least quadratically under bisection. Pieces are bisected widest first
until the total width is at most ``rel_width`` times its lower end, or ``max_pieces`` is
reached; then the enclosure is returned with ``reached = False`` and the caller says Undecided
if it cannot decide with it. The loop never runs past its budget.

Only mpmath's interval ``+ - * /`` and ``sqrt`` are used (validated in
``tests/interval/test_context.py``); everything else is exact ``gmpy2`` arithmetic.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Sequence

import gmpy2
import numpy as np
from mpmath import iv, libmp

from .context import IV, iv_from_mpq, lower, to_mpq, upper

__all__ = [
    "MAX_ORDER",
    "ArcLengthEnclosure",
    "cauchy_tail",
    "enclose_arc_length",
    "enclose_prefix_length",
    "speed_squared_coefficients",
]

_mpq = gmpy2.mpq

# Largest Taylor order N per piece: pieces needing more are bisected instead (the recurrence
# costs O(N^2) interval products; the Cauchy tail shrinks like (r / R)^N).
MAX_ORDER = 40


@dataclass(frozen=True)
class ArcLengthEnclosure:
    """An enclosure of an arc length.

    Attributes:
        value: ``iv.mpf`` containing the exact arc length.
        reached: whether the width is at most the requested relative width.
        pieces: pieces the integration used.
        crude_pieces: pieces where the speed could not be bounded away from zero.
        prec: the interval precision in bits.
    """

    value: object
    reached: bool
    pieces: int
    crude_pieces: int
    prec: int


def _exact_controls(controls) -> tuple:
    P = np.asarray(controls, dtype=np.float64)
    if P.shape != (4, 3):
        raise ValueError(f"controls must have shape (4, 3), got {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ValueError("controls must be finite")
    return tuple(tuple(to_mpq(float(x)) for x in row) for row in P)


def speed_squared_coefficients(controls) -> tuple:
    """Exact power-basis coefficients ``(f_0, ..., f_4)`` of ``f(u) = |B'(u)|^2``. Exact.

    Args:
        controls: (4, 3) exact float controls (float32 values, read exactly).

    Returns:
        Five ``gmpy2.mpq``.
    """
    return _speed_squared(_exact_controls(controls))


def _speed_squared(P: tuple) -> tuple:
    d = [[P[k + 1][a] - P[k][a] for a in range(3)] for k in range(3)]
    A = [3 * d[0][a] for a in range(3)]
    B = [6 * (d[1][a] - d[0][a]) for a in range(3)]
    C = [3 * (d[0][a] - 2 * d[1][a] + d[2][a]) for a in range(3)]

    def dot(x, y):
        return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]

    return (dot(A, A), 2 * dot(A, B), dot(B, B) + 2 * dot(A, C), 2 * dot(B, C), dot(C, C))


def _taylor_shift(p: tuple, c) -> list:
    """Exact Taylor coefficients at ``c`` of the polynomial with power coefficients ``p``."""
    a = list(p)
    n = len(a)
    for i in range(n):  # repeated synthetic division by (u - c)
        for k in range(n - 2, i - 1, -1):
            a[k] = a[k] + c * a[k + 1]
    return a


_BINOM = [[1], [1, 1], [1, 2, 1], [1, 3, 3, 1], [1, 4, 6, 4, 1]]


def _box_coefficients(a: list, r) -> list:
    """Exact ``[lo, hi]`` of ``f_k(xi) = sum_m C(m, k) a_m (xi - c)^(m - k)`` for |xi - c| <= r."""
    out = []
    for k in range(5):
        lo = hi = a[k]
        rp = _mpq(1)
        for m in range(k + 1, 5):
            rp = rp * r
            t = _BINOM[m][k] * a[m] * rp
            if (m - k) % 2 == 0:  # (xi - c)^even ranges over [0, r^even]
                if t > 0:
                    hi += t
                else:
                    lo += t
            else:
                at = abs(t)
                lo -= at
                hi += at
        out.append((lo, hi))
    return out


def _series_sqrt_scaled(A: list, n: int) -> list:
    """Integers ``H_0..H_{n-1}`` with ``h_k = H_k / (4 A_0)^k`` the Taylor coefficients of
    ``sqrt(1 + b_1 t + ... + b_4 t^4)``, ``b_k = A_k / A_0`` (A integers, A_0 > 0). Exact.

    From ``h^2 = 1 + b``: ``h_0 = 1`` and ``h_k = (b_k - sum_{j=1}^{k-1} h_j h_{k-j}) / 2``;
    scaled by ``D^k = (4 A_0)^k`` this is ``H_k = (4^k A_0^(k-1) A_k - sum H_j H_{k-j}) / 2``,
    an exact integer division (every ``H_k``, k >= 1, is even by induction).
    """
    A0 = A[0]
    H = [gmpy2.mpz(1)]
    lead = gmpy2.mpz(4)  # 4^k A_0^(k-1)
    for k in range(1, n):
        acc = gmpy2.mpz(0)
        for j in range(1, (k + 1) // 2):
            acc += H[j] * H[k - j]
        acc *= 2
        if k % 2 == 0:
            acc += H[k // 2] * H[k // 2]
        num = (lead * A[k] if k < len(A) else 0) - acc
        H.append(num // 2)  # exact: num is even
        lead *= 4 * A0
    return H


def _poly_abs(a: list, R) -> gmpy2.mpq:
    """``sum_{k >= 1} |a_k| R^k`` exactly."""
    s, rp = _mpq(0), _mpq(1)
    for k in range(1, len(a)):
        rp = rp * R
        s += abs(a[k]) * rp
    return s


def _analytic_radius(a: list):
    """A rational R > 0 with ``sum_{k>=1} |a_k| R^k < a_0``, or None.

    Then ``|f(c + z)| >= a_0 - sum |a_k| |z|^k > 0`` on the closed disc |z| <= R, so sqrt(f)
    has a holomorphic branch there, positive on the real segment. The float search only
    proposes R; the exact inequality decides.
    """
    a0 = float(a[0])
    coef = [abs(float(x)) for x in a[1:]]
    if not a0 > 0:
        return None

    def phi(R):
        return sum(ck * R ** (k + 1) for k, ck in enumerate(coef))

    lo, hi = 0.0, 1.0
    while phi(hi) < a0:
        if hi >= 2.0**60:  # f is (nearly) constant: any radius far beyond the piece will do
            return _mpq(2) ** 60
        lo, hi = hi, hi * 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if phi(mid) < a0:
            lo = mid
        else:
            hi = mid
    R = lo * 0.97
    for _ in range(8):
        if not R > 0:
            return None
        Rq = _mpq(R)
        if _poly_abs(a, Rq) < a[0]:
            return Rq
        R *= 0.5
    return None


def cauchy_tail(r, R, M2, N: int, prec: int):
    """An upper bound (an ``iv.mpf`` whose upper end is used) of the integral over ``[-r, r]``
    of the Taylor tail ``sum_{k >= N} g_k t^k`` when Cauchy's estimate ``|g_k| <= M / R^k``
    holds (``M^2 = M2``, ``0 < r < R``, N even). Certified.

    Odd terms integrate to zero over the symmetric piece; the even ones are at most
    ``2 M r^(k+1) / (R^k (k + 1)) <= 2 r M q^k / (N + 1)`` with ``q = r / R``, and their sum is
    the geometric series ``2 r M q^N / ((N + 1)(1 - q^2))``.
    """
    q = r / R
    tail_q = 2 * r * q**N / ((N + 1) * (1 - q * q))  # exact rational factor of the tail
    return iv_from_mpq(tail_q, prec) * iv.sqrt(iv_from_mpq(M2, prec))


class _Integrator:
    """The Taylor integrator for one cubic at one precision."""

    def __init__(self, p: tuple, prec: int, rel_width: float, max_order: int):
        self.p = p
        self.prec = prec
        self.rel_width = rel_width
        self.max_order = max_order

    def piece(self, a, b):
        """``(enclosure, crude)`` of the integral of sqrt(f) over the exact rational [a, b]."""
        prec = self.prec
        c = (a + b) / 2
        r = (b - a) / 2
        ac = _taylor_shift(self.p, c)
        flo, fhi = _box_coefficients(ac, r)[0]
        two_r = iv_from_mpq(2 * r, prec)
        top = iv.sqrt(iv_from_mpq(max(fhi, _mpq(0)), prec))
        if not flo > 0:
            # Speed not bounded away from zero on the piece: 0 <= integral <= 2r sqrt(max f).
            return iv.make_mpf((libmp.fzero, (two_r * top)._mpi_[1])), True
        R = _analytic_radius(ac)
        if R is None or not R > r:
            # f > 0 on the real piece, so sqrt(f) lies between its extremes there.
            bottom = iv.sqrt(iv_from_mpq(flo, prec))
            return iv.make_mpf(((two_r * bottom)._mpi_[0], (two_r * top)._mpi_[1])), False
        # Cauchy: |g_k| <= M / R^k with M^2 = a_0 + sum |a_k| R^k >= max |f| on the disc.
        q = r / R
        M2 = ac[0] + _poly_abs(ac, R)
        # Choose N in floats (steering only); the tail below is computed rigorously.
        qf, rf = float(q), float(r)
        Mf = float(M2) ** 0.5
        target = self.rel_width * 2.0 * rf * float(ac[0]) ** 0.5 / 8.0
        N = 2
        if qf < 1.0 - 1e-9:
            while N < self.max_order and 2 * rf * Mf * qf**N / ((N + 1) * (1 - qf * qf)) > target:
                N += 2
        else:
            N = self.max_order
        den = 1
        for x in ac:
            den = gmpy2.lcm(den, x.denominator)
        A = [gmpy2.mpz(x * den) for x in ac]
        H = _series_sqrt_scaled(A, N)
        # S = sum_{k even < N} h_k r^(k+1) / (k+1) with h_k = H_k / D^k, D = 4 A_0: exact, over
        # the common denominator rd^N D^(N-2) lcm(1, 3, ..., N-1) (r = rn / rd).
        D = 4 * A[0]
        rn, rd = gmpy2.mpz(r.numerator), gmpy2.mpz(r.denominator)
        L = gmpy2.mpz(1)
        for k in range(1, N, 2):
            L = gmpy2.lcm(L, k)
        num = gmpy2.mpz(0)
        for k in range(0, N, 2):
            num += H[k] * rn ** (k + 1) * rd ** (N - k - 1) * D ** (N - 2 - k) * (L // (k + 1))
        S_exact = _mpq(num, rd**N * D ** (N - 2) * L)
        S = iv_from_mpq(S_exact, prec) * 2 * iv.sqrt(iv_from_mpq(ac[0], prec))
        t = cauchy_tail(r, R, M2, N, prec)._mpi_[1]
        return S + iv.make_mpf((libmp.mpf_neg(t), t)), False


def enclose_arc_length(controls, u0, u1, prec: int, rel_width: float = 1e-15,
                       max_pieces: int = 4096, max_order: int = MAX_ORDER) -> ArcLengthEnclosure:
    """Enclose ``L = integral_{u0}^{u1} |B'(u)| du`` of the cubic with exact controls. Certified.

    Args:
        controls: (4, 3) controls, read exactly (the prepared float32 values).
        u0, u1: the parameter range, exact floats or rationals, ``u0 <= u1``.
        prec: interval precision in bits (>= 53).
        rel_width: the requested relative width of the enclosure (absolute 0 for L = 0).
        max_pieces: the subdivision budget; reaching it returns ``reached = False``.
        max_order: the largest (even) Taylor order per piece.

    Returns:
        :class:`ArcLengthEnclosure`. Raises ValueError for malformed input.
    """
    P = _exact_controls(controls)
    return _enclose(P, to_mpq(u0), to_mpq(u1), int(prec), float(rel_width), int(max_pieces), int(max_order))


@lru_cache(maxsize=4096)
def _enclose(P: tuple, u0, u1, prec: int, rel_width: float, max_pieces: int, max_order: int) -> ArcLengthEnclosure:
    if u1 < u0:
        raise ValueError("u0 must not exceed u1")
    if max_order < 2 or max_order % 2:
        raise ValueError("the Taylor order must be even and at least 2")
    if not rel_width > 0 or max_pieces < 1:
        raise ValueError("rel_width must be positive and max_pieces at least 1")
    ctx = IV(prec)
    with ctx.scope():
        p = _speed_squared(P)
        if u1 == u0 or all(x == 0 for x in p):
            return ArcLengthEnclosure(iv.mpf(0), True, 0, 0, prec)  # empty range or a point curve
        integ = _Integrator(p, prec, rel_width, max_order)
        heap = []  # (-width, seq, a, b, enclosure, crude, lower)
        seq = 0

        def push(a, b):
            nonlocal seq
            val, crude = integ.piece(a, b)
            w = float(upper(val) - lower(val))
            lo = float(lower(val))
            heapq.heappush(heap, (-w, seq, a, b, val, crude, lo))
            seq += 1

        push(u0, u1)
        while True:
            # Float sums steer the loop only (the result is the interval sum below); fsum
            # avoids the cancellation a running sum suffers when a wide piece leaves.
            width = math.fsum(-h[0] for h in heap)
            low = math.fsum(h[6] for h in heap)
            if width <= rel_width * low or width == 0.0:
                reached = True
                break
            if len(heap) + 1 > max_pieces:
                reached = False
                break
            _, _, a, b, _, _, _ = heapq.heappop(heap)
            m = (a + b) / 2
            push(a, m)
            push(m, b)
        pieces = sorted(heap, key=lambda h: h[2])  # sum in parameter order (deterministic)
        total = pieces[0][4]
        for h in pieces[1:]:
            total = total + h[4]
        if lower(total) < 0:  # every piece is >= 0; drop the rounding below zero
            total = iv.make_mpf((libmp.fzero, total._mpi_[1]))
        crude = sum(1 for h in pieces if h[5])
        if reached and total.b != 0:
            reached = float(upper(total) - lower(total)) <= rel_width * float(lower(total))
        return ArcLengthEnclosure(total, reached, len(pieces), crude, prec)


def prefix_arguments(controls, span_index, u) -> tuple:
    """``(C, u)``: a prefix-length request's controls as float64 (n, 4, 3) and ``u`` as an exact
    rational in [0, 1], after checking them (ValueError); shared by both arc-length oracles,
    which share nothing else."""
    C = np.asarray(controls, dtype=np.float64)
    if C.ndim != 3 or C.shape[1:] != (4, 3):
        raise ValueError("path controls must have shape (n, 4, 3)")
    n = C.shape[0]
    if not isinstance(span_index, (int, np.integer)) or isinstance(span_index, bool) \
            or not 0 <= span_index < n:
        raise ValueError(f"span index {span_index!r} out of range for {n} spans")
    uq = to_mpq(u)
    if not 0 <= uq <= 1:
        raise ValueError("u must lie in [0, 1]")
    return C, uq


def enclose_prefix_length(controls, span_index: int, u, prec: int, rel_width: float = 1e-15,
                          max_pieces: int = 4096) -> ArcLengthEnclosure:
    """Enclose the prefix arc length ``L(span_index, u)`` of a path: every whole span before
    ``span_index`` plus ``[0, u]`` of that span. Certified.

    Args:
        controls: (n, 4, 3) exact controls of the path's spans.
        span_index: 0 <= span_index < n.
        u: exact parameter in [0, 1].
        prec, rel_width, max_pieces: as :func:`enclose_arc_length`, per span.

    Returns:
        :class:`ArcLengthEnclosure` of the sum (``reached`` when every part reached).
    """
    C, uq = prefix_arguments(controls, span_index, u)
    parts = [enclose_arc_length(C[j], 0, 1, prec, rel_width, max_pieces) for j in range(span_index)]
    parts.append(enclose_arc_length(C[span_index], 0, uq, prec, rel_width, max_pieces))
    return sum_enclosures(parts, prec)


def sum_enclosures(parts: Sequence[ArcLengthEnclosure], prec: int) -> ArcLengthEnclosure:
    """The enclosure of a sum of arc lengths (exact interval sum at ``prec``). Certified."""
    with IV(prec).scope():
        total = iv.mpf(0)
        for e in parts:
            total = total + e.value
    return ArcLengthEnclosure(total, all(e.reached for e in parts), sum(e.pieces for e in parts),
                              sum(e.crude_pieces for e in parts), prec)
