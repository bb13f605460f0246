"""A second frame-regularity oracle: the extremes of the speed ``|B'(u)|`` over ``[u0, u1]`` by
exact real-root isolation of ``d/du |B'(u)|^2`` (python-flint: FLINT's exact polynomials and
Arb balls).

The truth is the one :mod:`interval.frame` decides (the prepared float32 controls, exact dyadic
rationals; the interval ends and ``MinimumSpeed`` taken exactly), reached by a method that
shares nothing with that module's Bernstein subdivision (nor with the fast path's derivative
boxes), and inputs read here with Python's own exact ``float.as_integer_ratio``, not through
:func:`interval.context.to_mpq`, so that a fault of the interval context cannot move both
oracles at once:

* ``B'(u) = 3 [(P1 - P0) (1 - u)^2 + 2 (P2 - P1) u (1 - u) + (P3 - P2) u^2]`` per component,
  exact ``fmpq_poly``; ``f = |B'|^2`` (degree <= 4) and ``g = f'`` (degree <= 3), exact;
* on ``[u0, u1]`` the extremes of ``f`` are taken at ``u0``, ``u1`` or a real root of ``g``. The
  rational roots of ``g`` are exact (``fmpq_poly.roots``: a speed that vanishes or turns at
  ``u = 1/3`` is a candidate with its exact value); every complex root is isolated in a ball
  (``complex_roots``: squarefree factorisation, then certified isolation), and each ball whose
  imaginary part holds 0 and whose real part meets ``[u0, u1]`` is a candidate;
* for a ball candidate, ``X`` = its real part clipped to ``[u0, u1]``, ``m`` an exact dyadic
  point of ``X``: ``f(m)`` is exact, and by the mean value theorem ``f`` stays within
  ``sup|g(X)| * sup|X - m|`` of it on ``X`` (Arb evaluation of ``g`` on the ball; near a simple
  root this is of the ball's width squared).

So ``min f`` lies in ``[min of the candidates' lower bounds, min of their exact values]`` and
``max f`` in ``[max of the exact values, max of the upper bounds]``; the attained end comes with
an exact witness ``(u, f(u))``. A nonreal root whose ball passes the test is harmless: its
candidate's bounds are still values and bounds of ``f`` on real points of ``[u0, u1]``.
Precision is the root balls' target (bits), scoped with ``flint.ctx.workprec``.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import gmpy2
import numpy as np
from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

from .arb_context import exact_fmpq, exact_mpq

__all__ = [
    "ARB_SPEED_BUDGET",
    "ArbSpeedEnclosure",
    "decide_speed_arb",
    "enclose_speed_extremum_arb",
    "speed_squared_poly",
]

_mpq = gmpy2.mpq

# Root-ball precisions (bits) a decision may spend, in order.
ARB_SPEED_BUDGET: tuple[int, ...] = (128, 256, 1024)


@dataclass(frozen=True)
class ArbSpeedEnclosure:
    """An enclosure of ``min f`` or ``max f`` (``f = |B'|^2``) over ``[u0, u1]``.

    Attributes:
        which: ``"min"`` or ``"max"``.
        lower, upper: exact ``gmpy2.mpq`` bounds of the extremum.
        witness: ``(u, f(u))`` exact mpq, the candidate whose value is the attained end
            (``f(u) == upper`` for ``"min"``, ``== lower`` for ``"max"``), ``u`` in ``[u0, u1]``.
        candidates: parameters examined (the ends, exact rational roots, root balls).
        prec: the root balls' target precision in bits.
    """

    which: str
    lower: gmpy2.mpq
    upper: gmpy2.mpq
    witness: tuple
    candidates: int
    prec: int


def _fmpq_of_exact(x: arb) -> fmpq:
    man, e = x.man_exp()
    return fmpq(int(man)) * fmpq(2) ** int(e)


def _controls(controls) -> list:
    P = np.asarray(controls)
    if P.shape != (4, 3):
        raise ValueError(f"controls must have shape (4, 3), got {P.shape}")
    P = P.astype(np.float64)
    if not np.all(np.isfinite(P)):
        raise ValueError("controls must be finite")
    return [[exact_fmpq(float(P[i, c])) for c in range(3)] for i in range(4)]


def speed_squared_poly(controls) -> fmpq_poly:
    """``f(u) = |B'(u)|^2`` as an exact ``fmpq_poly`` from the textbook Bernstein derivative
    ``3 sum_k (P[k+1] - P[k]) B_k^2(u)``. Exact.

    Args:
        controls: (4, 3) float controls (read exactly).
    """
    P = _controls(controls)
    basis = (fmpq_poly([1, -2, 1]), fmpq_poly([0, 2, -2]), fmpq_poly([0, 0, 1]))  # (1-u)^2, 2u(1-u), u^2
    f = fmpq_poly([])
    for c in range(3):
        comp = fmpq_poly([])
        for k in range(3):
            comp += basis[k] * (3 * (P[k + 1][c] - P[k][c]))
        f += comp * comp
    return f


def _candidates(f: fmpq_poly, a: fmpq, b: fmpq, which: str) -> list:
    """``(bound, value, u)`` per candidate: ``value = f(u)`` exact, ``bound`` a lower (``min``)
    or upper (``max``) bound of ``f`` on the candidate's ball (the value itself at exact
    points). Runs inside a workprec scope."""
    out = [(f(a), f(a), a), (f(b), f(b), b)]
    g = f.derivative()
    if g.degree() < 1:  # f linear or constant: its extremes are at the ends
        return out
    for r, _mult in g.roots():  # exact rational critical points
        if a <= r <= b:
            v = f(r)
            out.append((v, v, r))
    G = arb_poly(g)
    for root, _mult in g.complex_roots():
        if not root.imag.contains(0):
            continue
        re = root.real
        lo_end, hi_end = re.lower(), re.upper()
        if hi_end < arb(a) or lo_end > arb(b):
            continue
        lo = a if lo_end < arb(a) else max(_fmpq_of_exact(lo_end), a)
        hi = b if hi_end > arb(b) else min(_fmpq_of_exact(hi_end), b)
        m = min(max(_fmpq_of_exact(re.mid()), lo), hi)
        v = f(m)
        if g(m) == 0:  # m is the ball's one root: f(m) is the exact critical value
            out.append((v, v, m))
            continue
        X = arb(lo).union(arb(hi))
        drop = _fmpq_of_exact((G(X).abs_upper() * arb(max(m - lo, hi - m))).upper())  # exact, rounded up
        out.append((v - drop if which == "min" else v + drop, v, m))
    return out


def enclose_speed_extremum_arb(controls, u0, u1, prec: int = 128, which: str = "min") -> ArbSpeedEnclosure:
    """Enclose ``min`` (or ``max``) of ``|B'(u)|^2`` over ``[u0, u1]`` by exact real-root isolation
    of its derivative. Certified at any ``prec``; the width shrinks like ``2**(-2 prec)``
    relative at simple roots and is 0 when the extremum is at an end or a rational root.

    Args:
        controls: (4, 3) float32 controls (any float dtype holding them exactly).
        u0, u1: the interval, exact floats or rationals, ``u0 <= u1``.
        prec: target precision of the root balls, bits (>= 16).
        which: ``"min"`` or ``"max"``.

    Raises:
        ValueError: malformed inputs, ``u0 > u1``, or a precision below 16 bits.
    """
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 16:
        raise ValueError("prec must be an int >= 16")
    if which not in ("min", "max"):
        raise ValueError("which must be 'min' or 'max'")
    f = speed_squared_poly(controls)
    a, b = exact_fmpq(u0), exact_fmpq(u1)
    if b < a:
        raise ValueError("u0 must not exceed u1")
    with ctx.workprec(prec):
        cands = _candidates(f, a, b, which)
    if which == "min":
        lower = max(min(exact_mpq(c[0]) for c in cands), _mpq(0))  # f >= 0
        _, value, u = min(cands, key=lambda c: c[1])
        return ArbSpeedEnclosure("min", lower, exact_mpq(value), (exact_mpq(u), exact_mpq(value)), len(cands), prec)
    upper = max(exact_mpq(c[0]) for c in cands)
    _, value, u = max(cands, key=lambda c: c[1])
    return ArbSpeedEnclosure("max", exact_mpq(value), upper, (exact_mpq(u), exact_mpq(value)), len(cands), prec)


def decide_speed_arb(controls, u0, u1, minimum_speed, above: bool = True,
                     budget: Sequence[int] = ARB_SPEED_BUDGET) -> tuple:
    """Whether ``|B'(u)| > minimum_speed`` on all of ``[u0, u1]`` (``above``; else whether
    ``|B'(u)| <= minimum_speed`` there). Certified.

    Returns:
        ``(holds, enclosure)``: ``holds`` True (shown), False (refuted: the enclosure's
        ``witness`` is an exact ``(u, f(u))`` on the wrong side of ``minimum_speed^2``) or None
        after the whole budget; the last :class:`ArbSpeedEnclosure` computed.
    """
    s = exact_mpq(exact_fmpq(minimum_speed))
    s2 = s * s
    e: ArbSpeedEnclosure | None = None
    for prec in budget:
        e = enclose_speed_extremum_arb(controls, u0, u1, prec, "min" if above else "max")
        if above:
            if e.lower > s2:
                return True, e
            if e.upper <= s2:
                return False, e
        else:
            if e.upper <= s2:
                return True, e
            if e.lower > s2:
                return False, e
    return None, e
