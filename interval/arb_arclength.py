"""A second, independent arc-length oracle: rigorous Gauss-Legendre integration of the speed
in Arb ball arithmetic (python-flint's ``acb.integral``).

``interval.arclength`` sums Taylor series of ``sqrt(f)`` with a Cauchy remainder; this module
shares none of that. The integral is Arb's adaptive Gauss-Legendre quadrature, whose error
bound comes from a bound of the integrand on a Bernstein ellipse around each piece (Petras;
Johansson, "Numerical integration in arbitrary-precision ball arithmetic", 2018). The only
thing both oracles read is the exact cubic.

**The branch of the square root, handled exactly.** ``acb.integral`` is rigorous only for an
integrand that its callback shows to be holomorphic on the complex balls it is handed: with
``sqrt(analytic=True)`` a ball that touches the branch cut (the nonpositive reals) comes back
non-finite and Arb bisects. ``sqrt(f)``, ``f = |B'|^2``, is holomorphic near the real segment
wherever ``f > 0`` but not at a zero of ``f`` (a zero-speed point, where the speed behaves like
``|u - r|``). So the speed is factored exactly first. With ``B'(u) = (x(u), y(u), z(u))``
(exact rational quadratics) let ``G = gcd(x, y, z)`` (monic, exact) and ``W = B' / G``; then

    |B'(u)| = |G(u)| sqrt(Q(u)),   Q = W . W,

and ``Q > 0`` on the whole real line (the components of W have no common root), so every real
zero of the speed is a real root of G:

* ``deg G = 0``: no zero-speed point; the integrand is ``sqrt(Q)`` (``Q = f``);
* ``deg G = 1`` (a zero-speed ease endpoint, an interior cusp): G's root r is rational. The
  range is split at r, and each side integrates ``s G(z) sqrt(Q(z))`` with the constant sign
  ``s`` of G on it, which is holomorphic across r. A non-dyadic r enters as a tight ball end
  point; Arb's integral then encloses the integral for every end point in the ball;
* ``deg G = 2`` (B' is G times a constant vector: the span runs along a line): the length is
  ``sqrt(Q) * (total variation of the antiderivative of G)``, evaluated in balls at G's real
  roots inside the range (exact rationals, or irrational roots refined until they separate
  from the range ends);
* ``G = 0``: a stationary span, length exactly 0.

**Conditioning.** ``Q`` is evaluated in its exact Taylor form about the centre of each piece
(``Q(c + t)``, exact rational coefficients), never in the monomial basis: near a near-zero of
the speed the monomial form cancels, its ball contains zero, and Arb would bisect without end
(a span with ``|Im|`` of a root of ``Q`` at 4e-4 took 3e5 evaluations that way, 1.2e3 this
way). Complex roots of ``Q`` close to the range (floats, steering only) add break points
graded geometrically towards their real parts, so every piece keeps its ellipse away from
them. The absolute tolerance handed to Arb is the requested relative width times a float
estimate of the whole length (steering only: the returned ball is rigorous whatever it is).

Nothing here guesses: an integration that misses its width within its budget returns its ball
(wider, still an enclosure) with ``reached = False``, and a non-finite ball is returned as
``value = None`` (``reached = False``). Precision is explicit and local: every call runs under
``flint.ctx.workprec(prec)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import gmpy2
import numpy as np
from flint import acb, acb_poly, arb, ctx, fmpq, fmpq_poly
from mpmath import iv, libmp

# Input checks only (the request's shape and finiteness); the two oracles share no method.
from .arclength import _exact_controls, prefix_arguments
import itertools

__all__ = [
    "EVAL_LIMIT",
    "ArbEnclosure",
    "arb_to_iv",
    "enclose_arc_length_arb",
    "enclose_prefix_length_arb",
    "speed_factorization",
]

_mpq = gmpy2.mpq

# Arb's budget of integrand evaluations per piece: well-conditioned pieces need a few hundred
# (the near-cusp span 1.2e3 over its 24 graded pieces); the cap bounds the time a pathological
# case file can take (a piece that hits it returns a wider ball, reached = False).
EVAL_LIMIT = 50_000


@dataclass(frozen=True)
class ArbEnclosure:
    """An enclosure of an arc length by the Arb oracle.

    Attributes:
        value: ``iv.mpf`` whose endpoints are exactly the ball's bounds (read them with
            ``interval.context.lower`` / ``upper``), containing the exact arc length; None when
            Arb returned a non-finite ball.
        reached: whether the requested relative width was met.
        kind: ``"zero"`` (stationary span or empty range), ``"line"`` (closed form along a
            line), ``"smooth"`` (no zero-speed point), ``"split"`` (split at a rational
            zero-speed point), ``"prefix"`` (a sum).
        pieces: the pieces handed to Arb.
        prec: the working precision in bits.
    """

    value: object
    reached: bool
    kind: str
    pieces: int
    prec: int


def _fq(q) -> fmpq:
    q = q if isinstance(q, type(_mpq(0))) else _mpq(q)
    return fmpq(int(q.numerator), int(q.denominator))


def _q(x) -> gmpy2.mpq:
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            raise ValueError("nonfinite parameter")
        return _mpq(float(x))
    if isinstance(x, (bool, np.bool_)):
        raise TypeError("a boolean is not a parameter")
    if isinstance(x, (int, np.integer)):
        return _mpq(int(x))
    if hasattr(x, "numerator") and hasattr(x, "denominator"):
        return _mpq(int(x.numerator), int(x.denominator))
    raise TypeError(f"cannot read {type(x).__name__} as an exact parameter")


def _derivative_polys(P: tuple) -> list:
    """The components of B'(u) as exact ``fmpq_poly``: 3 [d0 (1-u)^2 + 2 d1 u (1-u) + d2 u^2]."""
    out = []
    for a in range(3):
        d0, d1, d2 = (P[k + 1][a] - P[k][a] for k in range(3))
        out.append(fmpq_poly([_fq(3 * d0), _fq(6 * (d1 - d0)), _fq(3 * (d0 - 2 * d1 + d2))]))
    return out


def speed_factorization(controls) -> tuple:
    """``(G, Q)``: exact ``fmpq_poly`` with ``|B'(u)|^2 = G(u)^2 Q(u)``, G monic and Q > 0 on
    the real line; ``(0, 0)`` for a stationary span. Exact.

    Args:
        controls: (4, 3) exact float controls.
    """
    return _factor(_exact_controls(controls))


def _factor(P: tuple) -> tuple:
    comps = _derivative_polys(P)
    nonzero = [c for c in comps if not c.is_zero()]
    if not nonzero:
        return fmpq_poly([]), fmpq_poly([])
    G = nonzero[0]
    for c in nonzero[1:]:
        G = G.gcd(c)
    G = G / G.leading_coefficient()
    Q = fmpq_poly([])
    for c in comps:
        w, rem = divmod(c, G)
        if not rem.is_zero():  # gcd divides every component: never taken
            raise ArithmeticError("the gcd does not divide a component of B'")
        Q += w * w
    return G, Q


def _exact_mpf(x: arb):
    man, e = x.man_exp()
    return libmp.from_man_exp(int(man), int(e))


def arb_to_iv(x: arb):
    """An ``iv.mpf`` whose endpoints are exactly the (finite) ball's lower and upper bounds."""
    if not x.is_finite():
        raise ValueError(f"ball {x} is not finite")
    return iv.make_mpf((_exact_mpf(x.lower()), _exact_mpf(x.upper())))


def _shifted(p: fmpq_poly, c) -> acb_poly:
    """``p(c + t)`` as a ball polynomial in t (exact Taylor shift, then balls at the context
    precision)."""
    s = p(fmpq_poly([_fq(c), 1]))
    return acb_poly([arb(x) for x in s.coeffs()] or [arb(0)])


def _poly_arb(p: fmpq_poly, x: arb) -> arb:
    cs = p.coeffs()
    acc = arb(cs[-1])
    for c in reversed(cs[:-1]):
        acc = acc * x + arb(c)
    return acc


def _breaks(Q: fmpq_poly, u0, u1) -> list:
    """Exact break points of ``[u0, u1]``: the ends, plus points graded geometrically towards
    the real part of each complex root of Q that lies close to the range (float roots; any
    choice of break points is sound, these only keep Arb's ellipses away from the roots)."""
    pts = {u0, u1}
    c = [float(x) for x in Q.coeffs()]
    if len(c) <= 2:
        return sorted(pts)
    lo, hi = float(u0), float(u1)
    L = hi - lo
    try:
        roots = np.roots(c[::-1])
    except np.linalg.LinAlgError:
        return sorted(pts)
    for r in roots:
        a, b = float(r.real), abs(float(r.imag))
        if not (np.isfinite(a) and np.isfinite(b)) or b >= L / 2 or a < lo - L or a > hi + L:
            continue
        b = max(b, L * 2.0**-40)
        step = b
        while step < 2 * L:
            for x in (a - step, a + step):
                if lo < x < hi:
                    pts.add(_mpq(x))
            step *= 2
        if lo < a < hi:
            pts.add(_mpq(a))
    return sorted(pts)


def _length_scale(Q: fmpq_poly, G: fmpq_poly, u0, u1) -> float:
    """A float estimate of the integral (trapezoid rule): steering for Arb's tolerance only."""
    x = np.linspace(float(u0), float(u1), 129)
    f = np.polyval([float(v) for v in Q.coeffs()][::-1], x)
    g = np.polyval([float(v) for v in G.coeffs()][::-1], x) if G.degree() > 0 else 1.0
    y = np.abs(g) * np.sqrt(np.maximum(f, 0.0))
    est = float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)
    return est if np.isfinite(est) and est > 0 else 0.0


def _integrate_piece(G: fmpq_poly, Q: fmpq_poly, sign: int, a, b, rel_tol: float, abs_tol: float):
    """``integral_a^b s G(z) sqrt(Q(z)) dz`` (G None: ``sqrt(Q)``) by ``acb.integral``, with
    both polynomials in Taylor form about the piece's centre. Returns the real part (arb)."""
    c = (a + b) / 2
    Qc = _shifted(Q, c)
    Gc = _shifted(G, c) if G is not None else None
    cc = acb(arb(_fq(c)))

    if Gc is None:
        def h(z, analytic):
            return Qc(z - cc).sqrt(analytic=analytic)
    else:
        def h(z, analytic):
            t = z - cc
            return Gc(t) * Qc(t).sqrt(analytic=analytic) * sign

    r = acb.integral(h, arb(_fq(a)), arb(_fq(b)), rel_tol=rel_tol, abs_tol=abs_tol,
                     eval_limit=EVAL_LIMIT)
    return r.real


def _line_length(G: fmpq_poly, Q: fmpq_poly, a, b, prec: int) -> arb:
    """``sqrt(Q) * integral_a^b |G|`` for constant Q and quadratic G: the total variation of
    the antiderivative P of G, split at G's real roots inside (a, b)."""
    P = G.integral()
    q = Q.coeffs()[0]
    rational = sorted(_mpq(int(r.p), int(r.q)) for r, _ in G.roots())
    if rational or G.discriminant() <= 0:
        cuts = [arb(_fq(r)) for r in rational if a < r < b]
    else:
        # Two irrational real roots: never equal to a (rational) end, so refining separates them.
        for extra in (0, 64, 256, 1024, 4096):
            with ctx.workprec(prec + extra):
                roots = [z.real for z, _ in G.complex_roots()]
                A, B = arb(_fq(a)), arb(_fq(b))
                if all((r > A or r < A) and (r > B or r < B) for r in roots):
                    cuts = sorted((r for r in roots if r > A and r < B), key=lambda r: float(r.mid()))
                    break
        else:
            raise ArithmeticError("could not separate G's roots from the range ends")
    pts = [arb(_fq(a))] + cuts + [arb(_fq(b))]
    total = arb(0)
    for x0, x1 in itertools.pairwise(pts):
        total += abs(_poly_arb(P, x1) - _poly_arb(P, x0))
    return total * arb(q).sqrt()


@lru_cache(maxsize=1 << 14)
def _enclose(P: tuple, u0, u1, prec: int, rel_width: float) -> ArbEnclosure:
    if u1 < u0:
        raise ValueError("u0 must not exceed u1")
    if not rel_width > 0:
        raise ValueError("rel_width must be positive")
    if prec < 53:
        raise ValueError("prec must be at least 53 bits")
    if u0 == u1:
        return ArbEnclosure(iv.mpf(0), True, "zero", 0, prec)
    G, Q = _factor(P)
    if G.is_zero():
        return ArbEnclosure(iv.mpf(0), True, "zero", 0, prec)
    rel_tol = rel_width / 64  # Arb meets about its tolerance; leave room for the piece sums
    with ctx.workprec(prec):
        deg = G.degree()
        if deg == 2:
            total, kind, pieces = _line_length(G, Q, u0, u1, prec), "line", 1
        else:
            cuts = [u0, u1]
            if deg == 1:
                (r, _), = G.roots()
                r = _mpq(int(r.p), int(r.q))
                if u0 < r < u1:
                    cuts = [u0, r, u1]
            ranges = []
            for a, b in itertools.pairwise(cuts):
                br = _breaks(Q, a, b)
                ranges += list(itertools.pairwise(br))
            scale = _length_scale(Q, G, u0, u1)
            abs_tol = rel_tol * scale / len(ranges) if scale > 0 else 0
            total = arb(0)
            for a, b in ranges:
                if deg == 0:
                    total += _integrate_piece(None, Q, 1, a, b, rel_tol, abs_tol)
                else:
                    m = (a + b) / 2
                    s = 1 if G(_fq(m)) > 0 else -1  # G has no root inside (a, b)
                    total += _integrate_piece(G, Q, s, a, b, rel_tol, abs_tol)
            kind, pieces = ("smooth" if deg == 0 else "split"), len(ranges)
        if not total.is_finite():
            return ArbEnclosure(None, False, kind, pieces, prec)
        if total.lower() < 0:  # a length is nonnegative: drop the ball's part below zero
            total = arb(0).union(total.upper())
        lo, hi = total.lower(), total.upper()
        width = float((hi - lo).upper())
        reached = width == 0.0 or width <= rel_width * float(lo.lower())
        return ArbEnclosure(arb_to_iv(total), reached, kind, pieces, prec)


def enclose_arc_length_arb(controls, u0, u1, prec: int, rel_width: float = 1e-15) -> ArbEnclosure:
    """Enclose ``L = integral_{u0}^{u1} |B'(u)| du`` by Arb's rigorous quadrature. Certified.

    Args:
        controls: (4, 3) controls, read exactly (the prepared float32 values).
        u0, u1: the range, exact floats or rationals, ``u0 <= u1``.
        prec: working precision in bits (>= 53).
        rel_width: the relative width asked for.

    Returns:
        :class:`ArbEnclosure`. Raises ValueError for malformed input.
    """
    return _enclose(_exact_controls(controls), _q(u0), _q(u1), int(prec), float(rel_width))


def enclose_prefix_length_arb(controls, span_index: int, u, prec: int, rel_width: float = 1e-15) -> ArbEnclosure:
    """Enclose the prefix arc length ``L(span_index, u)``: every whole span before it plus
    ``[0, u]`` of that span, by the Arb oracle. Certified.

    Returns:
        :class:`ArbEnclosure` of the sum (``reached`` when every part reached; ``value`` None
        when a part has no finite enclosure).
    """
    C, uq = prefix_arguments(controls, span_index, u)
    parts = [enclose_arc_length_arb(C[j], 0, 1, prec, rel_width) for j in range(span_index)]
    parts.append(enclose_arc_length_arb(C[span_index], 0, uq, prec, rel_width))
    pieces = sum(e.pieces for e in parts)
    if any(e.value is None for e in parts):
        return ArbEnclosure(None, False, "prefix", pieces, prec)
    from .context import IV

    with IV(prec).scope():
        total = iv.mpf(0)
        for e in parts:
            total = total + e.value
    return ArbEnclosure(total, all(e.reached for e in parts), "prefix", pieces, prec)
