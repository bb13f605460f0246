"""Second oracle for closest-point projection: the global minimum of ``f(u) = |B(u) - q|^2`` by
exact real-root isolation of ``f'`` (python-flint: FLINT's Arb balls).

The truth is the one :mod:`interval.projection` encloses: the prepared float32 controls (exact
dyadic rationals, chunk-relative), and ``q = point - origin`` taken exactly. The method shares
nothing with that module's branch and bound (nor with the fast path):

* per span, the monomial coefficients of ``B(u) - q`` are exact rationals, so ``f`` (degree 6)
  and ``f'`` (degree 5) are exact ``fmpq_poly``;
* on ``[0, 1]`` the minimum of ``f`` is attained at ``u = 0``, ``u = 1`` or a real root of
  ``f'``; FLINT isolates *every* complex root of ``f'`` in a ball (``complex_roots``: squarefree
  factorisation, then certified isolation; each ball holds exactly one distinct root), so every
  real root in ``[0, 1]`` lies in a ball whose imaginary part contains 0 and whose real part
  meets ``[0, 1]``. Every such ball is a candidate (a nonreal root that passes is harmless: the
  values below are still values and bounds of ``f`` on real points of ``[0, 1]``);
* for a candidate, ``X`` = its real part clipped to ``[0, 1]`` and ``m`` an exact dyadic point
  of ``X``: ``f(m)`` is exact (an upper bound of the minimum, at a real parameter), and by the
  mean value theorem ``f >= f(m) - sup|f'(X)| * sup|X - m|`` on ``X`` (Arb evaluation of
  ``f'`` on the ball); near a simple root ``sup|f'(X)|`` is of the ball's width, so the lower
  bound is within ``O(width^2)`` of ``f(m)``. When ``m`` is itself a root (``f'(m) = 0``
  exactly, a rational critical point), the ball isolates that one root and ``f(m)`` is the
  exact critical value.

So ``min f`` lies in ``[min over candidates of the lower bounds, min of the exact values]``,
and the upper end comes with an exact witness ``(span, u)`` that
:func:`interval.projection.exact_squared_distance` replays. Precision is the root balls' target
(bits); the arithmetic is scoped with ``flint.ctx.workprec`` and leaves the global context
unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import gmpy2
import numpy as np
from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

__all__ = [
    "ArbMinEnclosure",
    "decide_lower_bound",
    "enclose_min_distance_arb",
    "sqrt_down",
    "sqrt_up",
    "squared_distance_poly",
]

_mpq = gmpy2.mpq


@dataclass(frozen=True)
class ArbMinEnclosure:
    """What :func:`enclose_min_distance_arb` reached.

    Attributes:
        lower_sq, upper_sq: exact ``gmpy2.mpq`` bounds of ``min f`` (the squared distance);
            ``upper_sq`` is attained: ``f(witness) == upper_sq``.
        witness: ``(span, u)``, ``u`` an exact mpq in ``[0, 1]``.
        witness64, upper64_sq: the best parameter that is a float64 (a root ball's midpoint
            rounded to nearest, or an end) and its exact ``f``: a witness any replayer reads.
        candidates: parameters examined (endpoints and root balls meeting ``[0, 1]``).
        prec: the root balls' target precision in bits.
    """

    lower_sq: gmpy2.mpq
    upper_sq: gmpy2.mpq
    witness: tuple
    witness64: tuple
    upper64_sq: gmpy2.mpq
    candidates: int
    prec: int

    def distance(self) -> tuple:
        """``(lo, hi)`` bounds of the minimum distance as exact mpq (square roots rounded
        outward to 64 bits past the leading digit)."""
        return sqrt_down(self.lower_sq), sqrt_up(self.upper_sq)


def _q(x: float) -> fmpq:
    n, d = float(x).as_integer_ratio()
    return fmpq(n, d)


def _to_mpq(x) -> gmpy2.mpq:
    """An exact fmpq or exact arb as a gmpy2 mpq."""
    if isinstance(x, fmpq):
        return _mpq(int(x.p), int(x.q))
    man, e = x.man_exp()
    man, e = int(man), int(e)
    return _mpq(man * 2**e) if e >= 0 else _mpq(man, 2**-e)


def _from_arb_exact(x: arb) -> fmpq:
    man, e = x.man_exp()
    return fmpq(int(man)) * fmpq(2) ** int(e)


def _parse(controls, origin, point):
    P = np.asarray(controls)
    if P.ndim != 3 or P.shape[1:] != (4, 3) or P.shape[0] < 1:
        raise ValueError("controls must have shape (n, 4, 3)")
    P64 = P.astype(np.float64)
    if not np.all(np.isfinite(P64)) or not np.array_equal(P64.astype(np.float32).astype(np.float64), P64):
        raise ValueError("controls must be finite float32 values")
    p, o = np.asarray(point, dtype=np.float64), np.asarray(origin, dtype=np.float64)
    if p.shape != (3,) or o.shape != (3,) or not (np.all(np.isfinite(p)) and np.all(np.isfinite(o))):
        raise ValueError("point and origin must be three finite float64 values")
    q = [_q(a) - _q(b) for a, b in zip(p, o)]
    return P64, q


def squared_distance_poly(span_controls, q) -> fmpq_poly:
    """``f(u) = |B(u) - q|^2`` in the monomial basis, exactly: ``B(u) - q = A0 + A1 u + A2 u^2 +
    A3 u^3`` with ``A0 = P0 - q``, ``A1 = 3 (P1 - P0)``, ``A2 = 3 (P0 - 2 P1 + P2)``,
    ``A3 = P3 - 3 P2 + 3 P1 - P0`` per component. Exact.

    Args:
        span_controls: (4, 3) float32 values (any float dtype holding them exactly).
        q: three fmpq (the chunk-relative point).
    """
    f = fmpq_poly([])
    for c in range(3):
        P0, P1, P2, P3 = (_q(span_controls[i][c]) for i in range(4))
        comp = fmpq_poly([P0 - q[c], 3 * (P1 - P0), 3 * (P0 - 2 * P1 + P2), P3 - 3 * P2 + 3 * P1 - P0])
        f += comp * comp
    return f


def _span_candidates(f: fmpq_poly):
    """``(lower, value, u)`` per candidate of one span: ``value = f(u)`` and ``lower``, a lower
    bound of ``f`` on the candidate's ball (None at the ends), exact fmpq. Runs inside a
    workprec scope."""
    out = [(None, f(fmpq(0)), fmpq(0)), (None, f(fmpq(1)), fmpq(1))]
    g = f.derivative()
    if g.degree() < 1:  # f is constant or linear on [0, 1]: its minimum is at an end
        return out
    G = arb_poly(g)
    for root, _mult in g.complex_roots():
        if not root.imag.contains(0):
            continue
        re = root.real
        lo_end, hi_end = re.lower(), re.upper()
        if hi_end < 0 or lo_end > 1:
            continue
        lo = fmpq(0) if lo_end < 0 else _from_arb_exact(lo_end)
        hi = fmpq(1) if hi_end > 1 else _from_arb_exact(hi_end)
        m = _from_arb_exact(re.mid())
        m = min(max(m, lo), hi)
        value = f(m)
        m64 = _q(min(max(float(m), 0.0), 1.0))
        out.append((None, f(m64), m64))  # a float64 parameter: a replayable upper bound
        if g(m) == 0:  # m is the ball's one root: f(m) is the exact critical value
            out.append((value, value, m))
            continue
        X = arb(lo).union(arb(hi))
        drop = (G(X).abs_upper() * arb(max(m - lo, hi - m))).upper()  # exact, rounded up
        out.append((value - _from_arb_exact(drop), value, m))
    return out


def enclose_min_distance_arb(controls, origin, point, prec: int = 128) -> ArbMinEnclosure:
    """Enclose the global minimum of ``|B(u) - (point - origin)|^2`` over every span by exact
    real-root isolation of its derivative. An enclosure (Certified) at any ``prec``; its width
    shrinks like ``2**(-2 prec)`` relative at simple roots.

    Args:
        controls: (n, 4, 3) prepared float32 controls (chunk-relative).
        origin, point: (3,) float64 chunk origin and query point (asset coordinates).
        prec: target precision of the root balls, bits (>= 16).

    Raises:
        ValueError: malformed inputs or a precision below 16 bits.
    """
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 16:
        raise ValueError("prec must be an int >= 16")
    P, q = _parse(controls, origin, point)
    lower = upper = witness = upper64 = witness64 = None
    count = 0
    with ctx.workprec(prec):
        for k in range(P.shape[0]):
            for low, value, u in _span_candidates(squared_distance_poly(P[k], q)):
                count += 1
                v = _to_mpq(value)
                lo = v if low is None else min(v, _to_mpq(low))
                lo = max(lo, _mpq(0))  # f >= 0
                if lower is None or lo < lower:
                    lower = lo
                uq = _to_mpq(u)
                if upper is None or v < upper:
                    upper, witness = v, (k, uq)
                if float(uq) == uq and (upper64 is None or v < upper64):
                    upper64, witness64 = v, (k, float(uq))
    return ArbMinEnclosure(lower, upper, witness, witness64, upper64, count, prec)


def decide_lower_bound(controls, origin, point, lb, budget=(128, 256, 1024)):
    """Whether ``lb <= min distance``: True (shown: ``lb^2 <= lower_sq`` or ``lb <= 0``), False
    (shown: the witness's exact ``f < lb^2``) or None after the whole precision budget.

    Returns:
        ``(holds, enclosure)`` with the last :class:`ArbMinEnclosure` computed.
    """
    T = _mpq(Fraction(lb)) if not isinstance(lb, type(_mpq(0))) else lb
    e: ArbMinEnclosure | None = None
    for prec in budget:
        e = enclose_min_distance_arb(controls, origin, point, prec)
        if T <= 0 or T * T <= e.lower_sq:
            return True, e
        if e.upper_sq < T * T:
            return False, e
    return None, e


def _isqrt_q(x: gmpy2.mpq, up: bool) -> gmpy2.mpq:
    """A dyadic rational within 2^-64 relative of sqrt(x), rounded down or up. Exact."""
    if x <= 0:
        return _mpq(0)
    shift = 2 * (64 - (int(gmpy2.mpz(x.numerator).bit_length()) - int(gmpy2.mpz(x.denominator).bit_length())) // 2)
    scaled = x * _mpq(2) ** shift if shift >= 0 else x / _mpq(2) ** -shift
    n = gmpy2.mpz(scaled.numerator) // gmpy2.mpz(scaled.denominator)
    r = gmpy2.isqrt(n)
    if up:
        r += 1  # isqrt(floor(scaled)) + 1 > sqrt(scaled)
    half = shift // 2
    return _mpq(r) / _mpq(2) ** half if half >= 0 else _mpq(r) * _mpq(2) ** -half


def sqrt_down(x) -> gmpy2.mpq:
    """A dyadic lower bound of ``sqrt(x)`` (x an exact rational), within 2^-64 relative. Exact."""
    return _isqrt_q(gmpy2.mpq(x), False)


def sqrt_up(x) -> gmpy2.mpq:
    """A dyadic upper bound of ``sqrt(x)`` (x an exact rational), within 2^-63 relative. Exact."""
    return _isqrt_q(gmpy2.mpq(x), True)
