"""A second tessellation oracle: the largest distance between a bicubic cell and its two emitted
triangles, by a branch and bound over parameter triangles with second-order Taylor models in
Arb ball arithmetic (python-flint).

The truth is the one :mod:`interval.tessellation` decides: over the cell ``[u0, u1] x [v0, v1]``
of the float32 patch (exact dyadic controls) split along its ``(u0, v0)-(u1, v1)`` diagonal, the
largest ``|S(u, v) - T(u, v)|``, ``T`` the affine interpolant of the emitted float32 vertices
over each triangle. The method shares nothing with that module (no Bernstein form, no Duffy
map, no convex hull, no exact rational halving) nor with the fast path's three cell terms, and
reads its inputs with Python's own exact ``float.as_integer_ratio``, not through
:func:`interval.context.to_mpq`:

* the patch's power form ``S(u, v) = sum A_pq u^p v^q`` (exact, ``fmpq``), Taylor-shifted to
  ``(u0, v0)`` and scaled to the cell's local coordinates ``(s, t)`` in ``[0, 1]^2``; each
  triangle's affine ``T`` (from its three vertices) subtracted: ``f = S - T``, bicubic in
  ``(s, t)`` per component, then held as Arb balls at ``prec`` bits;
* on a parameter triangle ``D`` (vertices dyadic), ``f`` is re-expanded about the midpoint
  ``m`` of its bounding box (Taylor shift in balls): ``f(m + d) = L(d) + R(d)`` with ``L`` the
  affine part and ``|R_c(d)| <= rho_c = sum_{p + q >= 2} |a_pq| r_s^p r_t^q`` (``r`` the half
  sizes of the box). ``|L|`` is convex, so over ``D`` it is largest at a vertex:
  ``max_D |f| <= max_v |L(v)| + |rho|`` (an upper bound within ``O(h^2)`` of the truth), and
  ``|f(v)| >= |L(v)| - |rho|`` and ``|f(m)| = |a_00|`` at exact points (lower bounds, the
  witnesses of a refutation);
* best first: the triangle of largest upper bound is split into four by its edge midpoints
  (right isosceles triangles with axis-parallel legs stay so, and ``m`` stays on the
  hypotenuse, inside ``D``) until the question ``max |f| <= c`` is decided and the enclosure
  is within ``rel c^2`` (squared), or the triangle budget is spent.

Comparisons are of squared norms read from the balls' exact endpoints. Precision is explicit
and local (``flint.ctx.workprec``).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from math import comb

import gmpy2
import numpy as np
from flint import arb, arb_mat, ctx, fmpq

from .arb_context import exact_fmpq, exact_mpq

__all__ = [
    "MAX_TRIANGLES",
    "REL",
    "ArbCellDistance",
    "cell_differences",
    "enclose_cell_distance_arb",
    "enclose_triangle_distance_arb",
    "patch_power_form",
]

_mpq = gmpy2.mpq

# Sub-triangles examined per cell triangle before the answer is left undecided, and the width
# (relative to c^2) the enclosure of max |f|^2 is narrowed to once decided.
MAX_TRIANGLES = 4096
REL = _mpq(1, 4)

# (1 - u)^3, 3 u (1 - u)^2, 3 u^2 (1 - u), u^3 in the monomial basis: B[i][p].
_BERN = tuple(tuple(comb(3, i) * comb(3 - i, p - i) * (-1) ** (p - i) if p >= i else 0 for p in range(4))
              for i in range(4))


@dataclass(frozen=True)
class ArbCellDistance:
    """The answer on a cell (its two triangles) or one triangle.

    Attributes:
        holds: True (``max |f| <= c`` shown), False (a point with ``|f| > c`` shown), None.
        lower_sq, upper_sq: exact ``gmpy2.mpq`` bounds of ``max |f|^2`` (``upper_sq`` None when a
            refutation stopped the search first).
        witness: for False, ``(triangle, (s, t), lower bound of |f|^2 there)``: ``(s, t)`` exact
            local coordinates of the cell (``u = u0 + s (u1 - u0)``, ``v = v0 + t (v1 - v0)``).
        triangles: parameter triangles examined.
        prec: the working precision in bits.
    """

    holds: bool | None
    lower_sq: gmpy2.mpq
    upper_sq: gmpy2.mpq | None
    witness: tuple | None
    triangles: int
    prec: int


def _vec3(x) -> list:
    a = np.asarray(x)
    if a.shape != (3,):
        raise ValueError("a vertex must have three components")
    return [exact_fmpq(float(v)) for v in a.astype(np.float64)]


def patch_power_form(controls) -> list:
    """``A[p][q][c]``: exact fmpq with ``S_c(u, v) = sum A[p][q][c] u^p v^q`` for the patch
    ``controls[i][j]`` (4, 4, 3), read exactly. Exact."""
    C = np.asarray(controls)
    if C.shape != (4, 4, 3):
        raise ValueError(f"controls must have shape (4, 4, 3), got {C.shape}")
    C = C.astype(np.float64)
    if not np.all(np.isfinite(C)):
        raise ValueError("controls must be finite")
    P = [[[exact_fmpq(float(C[i, j, c])) for c in range(3)] for j in range(4)] for i in range(4)]
    return [[[sum((_BERN[i][p] * _BERN[j][q] * P[i][j][c] for i in range(4) for j in range(4)
                   if _BERN[i][p] and _BERN[j][q]), fmpq(0)) for c in range(3)] for q in range(4)]
            for p in range(4)]


def _shift1(a: list, x) -> list:
    """Coefficients of ``p(x + y)`` in y from those of ``p`` (lowest degree first)."""
    a = list(a)
    n = len(a)
    for i in range(n):
        for k in range(n - 2, i - 1, -1):
            a[k] = a[k] + x * a[k + 1]
    return a


def _shift2(A: list, x, y) -> list:
    """Bivariate ``A[p][q]`` (4 x 4 scalars) re-expanded about ``(x, y)``."""
    rows = [_shift1(A[p], y) for p in range(4)]  # in v about y, per power of u
    cols = [_shift1([rows[p][q] for p in range(4)], x) for q in range(4)]  # then in u about x
    return [[cols[q][p] for q in range(4)] for p in range(4)]


def cell_differences(A: list, u0, u1, v0, v1, V00, V10, V01, V11) -> tuple:
    """Exact ``(F1, F2)``: ``F_k[p][q][c]`` the coefficients in local ``(s, t)`` of
    ``S(u0 + s du, v0 + t dv) - T_k(s, t)`` on the cell's triangle ``k``: triangle 1 is
    ``(0, 0), (1, 0), (1, 1)`` with vertices ``V00, V10, V11``, triangle 2 is ``(0, 0), (0, 1),
    (1, 1)`` with ``V00, V01, V11``. Exact."""
    u0, u1, v0, v1 = (exact_fmpq(x) for x in (u0, u1, v0, v1))
    du, dv = u1 - u0, v1 - v0
    V00, V10, V01, V11 = (_vec3(x) for x in (V00, V10, V01, V11))
    local = []
    for c in range(3):
        B = _shift2([[A[p][q][c] for q in range(4)] for p in range(4)], u0, v0)
        local.append([[B[p][q] * du ** p * dv ** q for q in range(4)] for p in range(4)])
    out = []
    for verts in (((0, 0, V00), (1, 0, V10), (1, 1, V11)), ((0, 0, V00), (0, 1, V01), (1, 1, V11))):
        F = [[[local[c][p][q] for c in range(3)] for q in range(4)] for p in range(4)]
        # the affine T through the three vertices: T = a + b s + g t, solved per triangle
        (s0, t0, X0), (s1, t1, X1), (s2, t2, X2) = verts
        det = fmpq((s1 - s0) * (t2 - t0) - (s2 - s0) * (t1 - t0))
        for c in range(3):
            d1, d2 = X1[c] - X0[c], X2[c] - X0[c]
            b = (d1 * (t2 - t0) - d2 * (t1 - t0)) / det
            g = ((s1 - s0) * d2 - (s2 - s0) * d1) / det
            a = X0[c] - b * s0 - g * t0
            F[0][0][c] -= a
            F[1][0][c] -= b
            F[0][1][c] -= g
        out.append(F)
    return tuple(out)


def _shift_matrix(x: arb) -> arb_mat:
    """``S`` with ``S a`` the coefficients of ``p(x + y)`` in y for a cubic's coefficients ``a``:
    ``S[k][i] = C(i, k) x^(i - k)``."""
    x2 = x * x
    return arb_mat([[1, x, x2, x2 * x], [0, 1, 2 * x, 3 * x2], [0, 0, 1, 3 * x], [0, 0, 0, 1]])


def _bounds(F: arb_mat, tri: tuple):
    """``(upper_sq, lower_sq, point)`` of ``|f|^2`` over the parameter triangle ``tri`` (three
    exact vertices): an upper bound of its maximum, and a lower bound of ``|f|^2`` at the exact
    point returned. ``F`` is (12, 4): row ``3 p + c``, column ``q``, the coefficient of
    ``s^p t^q`` in component ``c``. Balls at the context precision."""
    ss = [v[0] for v in tri]
    ts = [v[1] for v in tri]
    ms, mt = (min(ss) + max(ss)) / 2, (min(ts) + max(ts)) / 2
    rs, rt = arb((max(ss) - min(ss)) / 2), arb((max(ts) - min(ts)) / 2)
    # The Taylor shift to (ms, mt): in t (columns), then in s (rows of the 4 x 12 view, whose
    # row-major entries are those of the 12 x 4 product: row p, column 4 c + q).
    G = F * _shift_matrix(arb(mt)).transpose()
    a = (_shift_matrix(arb(ms)) * arb_mat(4, 12, G.entries())).entries()  # index 12 p + 4 c + q
    rsp = (1, rs, rs * rs, rs * rs * rs)
    rtp = (1, rt, rt * rt, rt * rt * rt)
    w = [[rsp[p] * rtp[q] if p + q >= 2 else None for q in range(4)] for p in range(4)]
    rho2 = arb(0)
    for c in range(3):
        rho = arb(0)
        for p in range(4):
            base = 12 * p + 4 * c
            for q in range(4):
                if w[p][q] is not None:
                    rho += abs(a[base + q]) * w[p][q]
        rho2 += rho * rho
    rho = rho2.sqrt()
    lin = [(a[4 * c], a[12 + 4 * c], a[4 * c + 1]) for c in range(3)]  # f, df/ds, df/dt at m
    best_up = None
    best_lo, best_pt = None, None
    for (vs, vt) in tri:
        ds, dt = arb(vs - ms), arb(vt - mt)
        n = sum(((l0 + l1 * ds + l2 * dt) ** 2 for l0, l1, l2 in lin), arb(0)).sqrt()
        up = ((n + rho) ** 2).upper()
        lo = n - rho
        lo = (lo * lo).lower() if lo > 0 else arb(0)
        if best_up is None or up > best_up:
            best_up = up
        if best_lo is None or lo > best_lo:
            best_lo, best_pt = lo, (vs, vt)
    center = sum((l[0] * l[0] for l in lin), arb(0)).lower()
    if center > best_lo:
        best_lo, best_pt = center, (ms, mt)
    return exact_mpq(best_up), max(exact_mpq(best_lo), _mpq(0)), best_pt


def _children(tri: tuple) -> list:
    a, b, c = tri
    ab = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    bc = ((b[0] + c[0]) / 2, (b[1] + c[1]) / 2)
    ca = ((c[0] + a[0]) / 2, (c[1] + a[1]) / 2)
    return [(a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca)]


_TRIANGLES = (((fmpq(0), fmpq(0)), (fmpq(1), fmpq(0)), (fmpq(1), fmpq(1))),
              ((fmpq(0), fmpq(0)), (fmpq(0), fmpq(1)), (fmpq(1), fmpq(1))))


def enclose_triangle_distance_arb(F: list, tri: tuple, c_sq, prec: int = 128, rel=REL,
                                  max_triangles: int = MAX_TRIANGLES) -> ArbCellDistance:
    """Decide ``max |f|^2 <= c_sq`` over the parameter triangle ``tri`` for the local
    coefficients ``F`` (:func:`cell_differences`), best first; once decided True, go on until
    the enclosure is within ``rel * c_sq``. Certified."""
    c_sq = _mpq(c_sq)
    with ctx.workprec(prec):
        Fa = arb_mat([[arb(F[p][q][c]) for q in range(4)] for p in range(4) for c in range(3)])
        up, lo, pt = _bounds(Fa, tri)
        lower, lower_pt = lo, pt
        heap = [(-float(up), 0, up, tri)]
        count, seen = 1, 1
        while True:
            top = heap[0][2]
            if lower > c_sq:
                return ArbCellDistance(False, lower, None, (None, lower_pt, lower), seen, prec)
            if top <= c_sq and top - lower <= rel * c_sq:
                return ArbCellDistance(True, lower, top, None, seen, prec)
            if seen >= max_triangles:
                return ArbCellDistance(True if top <= c_sq else None, lower, top, None, seen, prec)
            _, _, _, t = heapq.heappop(heap)
            for child in _children(t):
                up, lo, pt = _bounds(Fa, child)
                seen += 1
                if lo > lower:
                    lower, lower_pt = lo, pt
                count += 1
                heapq.heappush(heap, (-float(up), count, up, child))


def enclose_cell_distance_arb(controls, u0, u1, v0, v1, V00, V10, V01, V11, c, prec: int = 128, rel=REL,
                              max_triangles: int = MAX_TRIANGLES, power_form: list | None = None
                              ) -> ArbCellDistance:
    """Decide whether the largest distance between the cell ``[u0, u1] x [v0, v1]`` of the
    float32 patch ``controls`` (4, 4, 3) and its two triangles of emitted vertices (``V00`` at
    ``(u0, v0)``, ``V10`` at ``(u1, v0)``, ``V01`` at ``(u0, v1)``, ``V11`` at ``(u1, v1)``;
    diagonal ``V00 - V11``) is at most ``c``, with an enclosure of its square. Certified.

    Args:
        power_form: :func:`patch_power_form` of ``controls`` when the caller has it (a patch's
            cells share it).

    Raises:
        ValueError: malformed inputs or a precision below 53 bits.
    """
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 53:
        raise ValueError("prec must be an int >= 53")
    cq = exact_mpq(exact_fmpq(c))
    if cq < 0:
        raise ValueError("a distance bound is nonnegative")
    A = patch_power_form(controls) if power_form is None else power_form
    Fs = cell_differences(A, u0, u1, v0, v1, V00, V10, V01, V11)
    lower, upper, seen = _mpq(0), _mpq(0), 0
    for k, (F, tri) in enumerate(zip(Fs, _TRIANGLES), start=1):
        r = enclose_triangle_distance_arb(F, tri, cq * cq, prec, rel, max_triangles)
        seen += r.triangles
        lower = max(lower, r.lower_sq)
        if r.holds is False:
            _, (s, t), val = r.witness
            return ArbCellDistance(False, lower, None, (k, (exact_mpq(s), exact_mpq(t)), val), seen, prec)
        if r.holds is None:
            return ArbCellDistance(None, lower, max(upper, r.upper_sq), None, seen, prec)
        upper = max(upper, r.upper_sq)
    return ArbCellDistance(True, lower, upper, None, seen, prec)
