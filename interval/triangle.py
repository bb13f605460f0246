"""Exact rational segment-triangle intersection: the truth spec 004's binary64 query approximates.

Every input is a float64 number, read as the exact rational it denotes (``gmpy2.mpq``); every
result is an exact rational. Nothing here rounds, and nothing reuses the fast path's algorithm:
the plane, the crossing parameter and the barycentric weights come from exact triple products.

For a facet ``(A, B, C)`` with edges ``E1 = B - A``, ``E2 = C - A`` and normal ``N0 = E1 x E2``
(not normalized; it is exact), and a segment ``S(t) = s + t (e - s)``, ``t`` in ``[0, 1]``:

* heights ``H_s = N0 . (s - A)``, ``H_e = N0 . (e - A)`` (``|N0|`` times the signed distances);
* the weights of a point ``x`` projected orthogonally on the plane are
  ``l1(x) = ((x - A) x E2) . N0 / |N0|^2``, ``l2(x) = (E1 x (x - A)) . N0 / |N0|^2``,
  ``l0 = 1 - l1 - l2``; along the segment they are affine in ``t``;
* not parallel (``H_s != H_e``): the plane is crossed once, at ``T = H_s / (H_s - H_e)``, with
  weights ``l(S(T))``; it is a contact when ``0 <= T <= 1`` and every weight is ``>= 0``;
* parallel and off the plane (``H_s == H_e != 0``): no contact;
* coplanar (``H_s == H_e == 0``): the contact set is the interval of ``t`` in ``[0, 1]`` where
  all three affine weights are ``>= 0`` (possibly empty).

``depth`` is the largest ``min(l0, l1, l2, t, 1 - t)`` over the contact set: how far inside every
barycentric and segment boundary the contact lies (0 for a contact on a boundary).
``facing`` is the exact sign of ``N0 . (e - s)``: -1 Front (against the normal), +1 Back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Sequence

import gmpy2

__all__ = [
    "ExactContact",
    "ExactFacet",
    "contact_of_points",
    "earliest",
    "exact_facet",
    "exact_point",
    "facet_of_points",
    "nearest_float",
    "segment_contact",
    "sqrt_down",
    "sqrt_up",
    "surface_contacts",
]

_mpq = gmpy2.mpq
_Q0 = _mpq(0)
_Q1 = _mpq(1)


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def exact_point(p) -> tuple:
    """The exact rational 3-vector of three finite float64 numbers (ValueError otherwise)."""
    vals = tuple(p)
    if len(vals) != 3:
        raise ValueError(f"expected a 3-vector, got {len(vals)} components")
    out = []
    for x in vals:
        if isinstance(x, bool) or (not isinstance(x, (int, float)) and not hasattr(x, "__float__")):
            raise TypeError(f"coordinate {x!r} is not a number")
        f = float(x)
        if not math.isfinite(f):
            raise ValueError(f"coordinate {x!r} is not finite")
        out.append(_mpq(f))
    return tuple(out)


@dataclass(frozen=True)
class ExactFacet:
    """One facet in exact rationals.

    Attributes:
        a, b, c: the vertices (3-tuples of mpq).
        e1, e2: ``b - a``, ``c - a``.
        normal: ``N0 = e1 x e2`` (exact, unnormalized; its direction is the winding's).
        norm2: ``|N0|^2``.
        axis: the axis on which the three vertices share their coordinate exactly (an
            axis-aligned facet), else None.
    """

    a: tuple
    b: tuple
    c: tuple
    e1: tuple
    e2: tuple
    normal: tuple
    norm2: object
    axis: int | None


def exact_facet(a, b, c) -> ExactFacet:
    """The exact facet of three float64 vertices; ValueError when its area is exactly zero."""
    return facet_of_points(exact_point(a), exact_point(b), exact_point(c))


def facet_of_points(A, B, C) -> ExactFacet:
    """:func:`exact_facet` of three exact rational points."""
    e1, e2 = _sub(B, A), _sub(C, A)
    n = _cross(e1, e2)
    n2 = _dot(n, n)
    if n2 == 0:
        raise ValueError("degenerate facet: its exact area is zero")
    axis = next((k for k in range(3) if A[k] == B[k] == C[k]), None)
    return ExactFacet(A, B, C, e1, e2, n, n2, axis)


@dataclass(frozen=True)
class ExactContact:
    """The exact relation of one segment and one facet.

    Attributes:
        triangle: the facet's index (or -1).
        kind: ``"none"``, ``"point"`` (one contact parameter) or ``"coplanar"`` (an interval).
        parallel: ``N0 . (e - s) == 0`` exactly.
        hs, he: heights ``N0 . (s - A)``, ``N0 . (e - A)``.
        t: the plane-crossing parameter ``H_s / (H_s - H_e)`` when not parallel (any value,
            also outside [0, 1]), else None.
        bary: the weights (l0, l1, l2) of the crossing point when not parallel, else None.
        bary_s, bary_e: the weights of the projections of ``s`` and ``e``.
        t_enter, t_exit: the contact set's ends (equal for a point contact), or None.
        depth: largest ``min(l0, l1, l2, t, 1 - t)`` over the contact set, or None.
        facing: sign of ``N0 . (e - s)``: -1 Front, +1 Back, 0 parallel.
    """

    triangle: int
    kind: str
    parallel: bool
    hs: object
    he: object
    t: object | None
    bary: tuple | None
    bary_s: tuple
    bary_e: tuple
    t_enter: object | None
    t_exit: object | None
    depth: object | None
    facing: int

    @property
    def hit(self) -> bool:
        return self.kind != "none"


def _weights(f: ExactFacet, x) -> tuple:
    w = _sub(x, f.a)
    l1 = _dot(_cross(w, f.e2), f.normal) / f.norm2
    l2 = _dot(_cross(f.e1, w), f.normal) / f.norm2
    return (1 - l1 - l2, l1, l2)


def _affine_at(ls, le, t):
    return tuple(x + t * (y - x) for x, y in zip(ls, le))


def _depth(ls, le, t0, t1):
    """max over t in [t0, t1] of min(l_i(t), t, 1 - t): a concave piecewise-linear function,
    so the maximum is at an end or where two of its five pieces cross."""
    pieces = [(x, y - x) for x, y in zip(ls, le)] + [(_Q0, _Q1), (_Q1, -_Q1)]  # (value at 0, slope)
    cands = {t0, t1}
    for i in range(len(pieces)):
        for j in range(i + 1, len(pieces)):
            (c0, k0), (c1, k1) = pieces[i], pieces[j]
            if k0 != k1:
                t = (c1 - c0) / (k0 - k1)
                if t0 <= t <= t1:
                    cands.add(t)
    return max(min(c + k * t for c, k in pieces) for t in cands)


def segment_contact(f: ExactFacet, s, e, index: int = -1) -> ExactContact:
    """The exact contact of segment ``s -> e`` (float64 3-vectors) with facet ``f``."""
    return contact_of_points(f, exact_point(s), exact_point(e), index)


def contact_of_points(f: ExactFacet, S, E, index: int = -1) -> ExactContact:
    """:func:`segment_contact` of a segment given by exact rational endpoints."""
    if S == E:
        raise ValueError("zero-length segment")
    hs, he = _dot(f.normal, _sub(S, f.a)), _dot(f.normal, _sub(E, f.a))
    ls, le = _weights(f, S), _weights(f, E)
    dd = he - hs  # N0 . (e - s)
    facing = (dd > 0) - (dd < 0)
    if dd != 0:
        t = hs / (hs - he)
        lam = _affine_at(ls, le, t)
        inside = _Q0 <= t <= _Q1 and min(lam) >= 0
        depth = min(min(lam), t, 1 - t) if inside else None
        return ExactContact(index, "point" if inside else "none", False, hs, he, t, lam, ls, le,
                            t if inside else None, t if inside else None, depth, facing)
    if hs != 0:
        return ExactContact(index, "none", True, hs, he, None, None, ls, le, None, None, None, 0)
    lo, hi = _Q0, _Q1
    for x, y in zip(ls, le):
        k = y - x
        if k > 0:
            lo = max(lo, -x / k)
        elif k < 0:
            hi = min(hi, -x / k)
        elif x < 0:
            lo, hi = _Q1, _Q0
    if lo > hi:
        return ExactContact(index, "none", True, hs, he, None, None, ls, le, None, None, None, 0)
    return ExactContact(index, "coplanar", True, hs, he, None, None, ls, le, lo, hi, _depth(ls, le, lo, hi), 0)


def surface_contacts(vertices: Sequence, triangles: Sequence, s, e) -> list[ExactContact]:
    """Exact contacts of the segment with every facet, in facet order.

    Args:
        vertices: (V, 3) float64 numbers (nested sequences or an array).
        triangles: (T, 3) integer indices into ``vertices``.
        s, e: the segment's float64 endpoints.

    Raises:
        ValueError: an index out of range, a nonfinite number, a degenerate facet or a
            zero-length segment; TypeError for non-numbers.
    """
    V = [tuple(v) for v in vertices]
    out = []
    for i, tri in enumerate(triangles):
        idx = [int(x) for x in tri]
        if len(idx) != 3 or any(not 0 <= x < len(V) for x in idx):
            raise ValueError(f"triangle {i} has an index outside [0, {len(V)}): {idx}")
        out.append(segment_contact(exact_facet(*(V[x] for x in idx)), s, e, i))
    return out


def earliest(contacts: Sequence[ExactContact]):
    """``(t_min, [facets whose contact set starts at t_min])`` or None when nothing is hit."""
    hits = [c for c in contacts if c.hit]
    if not hits:
        return None
    t = min(c.t_enter for c in hits)
    return t, [c.triangle for c in hits if c.t_enter == t]


def nearest_float(q) -> float:
    """The float64 nearest the rational ``q`` (ties to even): Python's int true division is
    correctly rounded, subnormals included."""
    q = _mpq(q)
    return int(q.numerator) / int(q.denominator)


def _isqrt_scaled(q, bits: int):
    q = _mpq(q)
    if q < 0:
        raise ValueError("square root of a negative number")
    num, den = int(q.numerator), int(q.denominator)
    # sqrt(num/den) = sqrt(num * den) / den, scaled by 2**bits; num * den >= 1 (for q > 0), so
    # the integer root has at least `bits` bits and its floor is within a relative 2**-bits.
    r = math.isqrt(num * den * 4**bits)
    return r, den * 2**bits


def sqrt_down(q, bits: int = 64):
    """A rational lower bound of ``sqrt(q)``, ``q >= 0``, within a relative ``2**-bits``."""
    r, scale = _isqrt_scaled(q, bits)
    return _mpq(r, scale)


def sqrt_up(q, bits: int = 64):
    """A rational upper bound of ``sqrt(q)``, ``q >= 0``, within a relative ``2**-bits``."""
    r, scale = _isqrt_scaled(q, bits)
    if _mpq(r, scale) ** 2 == _mpq(q):
        return _mpq(r, scale)
    return _mpq(r + 1, scale)
