"""The tessellation oracle: exact enclosures of the true parametric distance between a bicubic
cell and its two emitted triangles, of the true angle between a triangle's face normal and the
surface normal over the triangle, and the mesh topology a crack-free mesh must have.

Independent of ``reference.tessellation`` (it imports none of its code and does not use its
three-term formula). Everything here is exact rational arithmetic (gmpy2 ``mpq``):

* The cell's polynomial ``S(u0 + s du, v0 + t dv)`` is built in the monomial basis by composing
  the Bernstein basis polynomials with the affine maps, and each triangle's linear interpolant
  of the emitted float32 vertices is subtracted. A Duffy map (``t = s w`` on the triangle
  ``s >= t``, ``s = t w`` on ``t >= s``) turns each triangle into the unit square, where the
  difference ``f`` is a polynomial of bidegree (6, 3), converted to tensor Bernstein form.
* Branch and bound: on a box, ``max |f|`` lies between the largest ``|f|`` at the box's corners
  (Bernstein corner coefficients are values) and the largest ``|F_k|`` over its Bernstein
  coefficients (``f`` is a convex combination of them and the norm is convex). Boxes are
  halved exactly (de Casteljau at 1/2) until the question "is ``max |f| <= c``" is decided or
  the box budget is spent; squared norms are compared, so no square root is taken.
* Normals: ``N = S_s x S_t`` (the same direction as ``Su x Sv``), through the same Duffy map a
  polynomial of bidegree (10, 5). The set of vectors within angle ``T < pi/2`` of the face
  normal ``n`` is a convex cone; when every Bernstein coefficient of ``N`` lies in it, so does
  every value. ``cos T`` is bracketed by alternating Taylor partial sums in rationals.

Inputs are plain data: float32 controls (4, 4, 3), dyadic cell ends, float32 vertices.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import gmpy2
import numpy as np

from .context import to_mpq
import itertools

__all__ = [
    "CellDistance",
    "cell_polynomial",
    "cell_term_enclosures",
    "cos_bounds",
    "decide_max_angle",
    "decide_max_distance",
    "enclose_cell_distance",
    "normal_monomials",
    "normal_polynomials",
    "sampled_angles",
    "sampled_max_sq",
    "subdivision_weights",
    "triangle_differences",
]

_q = gmpy2.mpq
_ZERO = _q(0)
_HALF = _q(1, 2)


# --- Polynomials (monomial basis, lowest degree first) ---------------------------------------

def _pmul(a: list, b: list) -> list:
    out = [_ZERO] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x == 0:
            continue
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _ppow(a: list, k: int) -> list:
    out = [_q(1)]
    for _ in range(k):
        out = _pmul(out, a)
    return out


def _bernstein_in(i: int, x0, h) -> list:
    """Monomial coefficients in s of ``C(3, i) x^i (1 - x)^(3 - i)`` at ``x = x0 + h s``."""
    x = [x0, h]
    one_minus = [1 - x0, -h]
    p = _pmul(_ppow(x, i), _ppow(one_minus, 3 - i))
    return [comb(3, i) * c for c in p] + [_ZERO] * (4 - len(p))


def _q_array(a) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == object:
        return a
    return _q_array_cached(a.shape, a.dtype.str, a.tobytes()).copy()


@lru_cache(maxsize=64)
def _q_array_cached(shape, dtype, data) -> np.ndarray:
    # A patch's controls are read once for all of its cells (the conversion is exact).
    a = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        out[idx] = to_mpq(float(a[idx]))
    return out


def _obj(nested) -> np.ndarray:
    """A nested list of mpq as an object array (every leaf an element)."""
    out = np.empty((len(nested), len(nested[0]), len(nested[0][0])), dtype=object)
    for i, row in enumerate(nested):
        for j, v in enumerate(row):
            out[i, j, :] = v
    return out


def cell_polynomial(controls, u0, u1, v0, v1) -> np.ndarray:
    """(4, 4, 3) object array of mpq: ``M[p][q]`` with ``S(u0 + s (u1 - u0), v0 + t (v1 - v0)) =
    sum M[p][q] s^p t^q`` for the float32 patch ``controls[u][v]`` (read exactly)."""
    C = _q_array(controls).tolist()
    u0, u1, v0, v1 = (to_mpq(x) for x in (u0, u1, v0, v1))
    bu = [_bernstein_in(i, u0, u1 - u0) for i in range(4)]
    bv = [_bernstein_in(j, v0, v1 - v0) for j in range(4)]
    # M = Bu^T C Bv per component, as two passes of exact sums (scalars: fast and exact)
    X = [[[sum((bu[i][p] * C[i][j][k] for i in range(4) if bu[i][p]), _ZERO) for k in range(3)]
          for j in range(4)] for p in range(4)]
    M = [[[sum((bv[j][q] * X[p][j][k] for j in range(4) if bv[j][q]), _ZERO) for k in range(3)]
          for q in range(4)] for p in range(4)]
    return _obj(M)


@lru_cache(maxsize=16)
def _bernstein_coefficients(n: int) -> tuple:
    """``T[k][i] = C(k, i) / C(n, i)`` for ``i <= k`` (monomial to Bernstein on [0, 1])."""
    return tuple(tuple(_q(comb(k, i), comb(n, i)) for i in range(k + 1)) for k in range(n + 1))


def _to_bernstein(A: np.ndarray) -> np.ndarray:
    """Tensor Bernstein coefficients on [0, 1]^2 of the monomial array ``A[a][b]`` (..., 3):
    ``b_k = sum_{i <= k} C(k, i) / C(n, i) a_i`` along each axis."""
    L = A.tolist()
    n, m, d = len(L) - 1, len(L[0]) - 1, len(L[0][0])
    Tn, Tm = _bernstein_coefficients(n), _bernstein_coefficients(m)
    X = [[[sum((Tn[k][i] * L[i][j][c] for i in range(k + 1)), _ZERO) for c in range(d)] for j in range(m + 1)]
         for k in range(n + 1)]
    B = [[[sum((Tm[k][j] * X[a][j][c] for j in range(k + 1)), _ZERO) for c in range(d)] for k in range(m + 1)]
         for a in range(n + 1)]
    return _obj(B)


def triangle_differences(M: np.ndarray, V00, V10, V01, V11) -> tuple:
    """Bernstein coefficients (Duffy square) of ``S - T`` on the cell's two triangles.

    Triangle 1 is ``s >= t`` with ``T = V00 + s (V10 - V00) + t (V11 - V10)``, reached by
    ``t = s w``: ``f(s, w) = sum M'[p][q] s^(p + q) w^q``. Triangle 2 is ``t >= s`` with
    ``T = V00 + t (V01 - V00) + s (V11 - V01)``, reached by ``s = t w``. Returns two (7, 4, 3)
    object arrays of mpq (first axis the radial variable, second ``w``).
    """
    V = [_q_array(x) for x in (V00, V10, V01, V11)]
    V00, V10, V01, V11 = V
    out = []
    for tri in (1, 2):
        D = M.copy()
        if tri == 1:
            D[0, 0] = D[0, 0] - V00
            D[1, 0] = D[1, 0] - (V10 - V00)
            D[0, 1] = D[0, 1] - (V11 - V10)
        else:
            D[0, 0] = D[0, 0] - V00
            D[0, 1] = D[0, 1] - (V01 - V00)
            D[1, 0] = D[1, 0] - (V11 - V01)
        F = np.empty((7, 4, 3), dtype=object)
        F[...] = _ZERO
        for p in range(4):
            for q in range(4):
                w_exp = q if tri == 1 else p
                F[p + q, w_exp] = F[p + q, w_exp] + D[p, q]
        out.append(_to_bernstein(F))
    return tuple(out)


def _split(B: np.ndarray, axis: int):
    """Exact de Casteljau halving of Bernstein coefficients along ``axis``: (low, high)."""
    B = np.moveaxis(B, axis, 0)
    n = B.shape[0] - 1
    rows = [B[k] for k in range(n + 1)]
    left, right = [rows[0]], [rows[n]]
    for level in range(1, n + 1):
        rows = [(rows[k] + rows[k + 1]) * _HALF for k in range(n - level + 1)]
        left.append(rows[0])
        right.append(rows[-1])
    lo = np.stack(left)
    hi = np.stack(right[::-1])
    return np.moveaxis(lo, 0, axis), np.moveaxis(hi, 0, axis)


def _sq(B: np.ndarray) -> np.ndarray:
    return np.sum(B * B, axis=-1)


@dataclass(frozen=True)
class CellDistance:
    """The answer of :func:`decide_max_distance` on one triangle (or a cell's two).

    Attributes:
        holds: True (``max |f| <= c`` shown), False (a point with ``|f| > c`` found), None.
        lower_sq, upper_sq: exact bounds of ``max |f|^2`` reached (upper None when not shown).
        witness: for False, the Duffy-square point ``(x, w)`` (mpq) and ``|f|^2`` there.
        boxes: boxes examined.
    """

    holds: bool | None
    lower_sq: gmpy2.mpq
    upper_sq: gmpy2.mpq | None
    witness: tuple | None = None
    boxes: int = 0


def decide_max_distance(B: np.ndarray, c_sq, max_boxes: int = 256) -> CellDistance:
    """Decide ``max |f|^2 <= c_sq`` over the unit square for Bernstein coefficients ``B``
    (n, m, 3), halving boxes (a depth-first stack) up to ``max_boxes``."""
    c_sq = to_mpq(c_sq) if not isinstance(c_sq, type(_ZERO)) else c_sq
    stack = [(B, _ZERO, _ZERO, _q(1))]  # coefficients, x0, w0, size
    lower = _ZERO
    upper_done = _ZERO
    boxes = 0
    while stack:
        Bb, x0, w0, h = stack.pop()
        boxes += 1
        n, m = Bb.shape[0] - 1, Bb.shape[1] - 1
        sq = _sq(Bb)
        for (i, j) in ((0, 0), (n, 0), (0, m), (n, m)):
            val = sq[i, j]
            if val > lower:
                lower = val
            if val > c_sq:
                point = (x0 + h * (i // n), w0 + h * (j // m))
                return CellDistance(False, lower, None, (point, val), boxes)
        ub = max(sq.ravel())
        if ub <= c_sq:
            if ub > upper_done:
                upper_done = ub
            continue
        if boxes >= max_boxes:
            return CellDistance(None, lower, max(ub, upper_done, *(max(_sq(s[0]).ravel()) for s in stack)), None, boxes)
        lo, hi = _split(Bb, 0)
        h2 = h * _HALF
        for part, xx in ((lo, x0), (hi, x0 + h2)):
            a, b = _split(part, 1)
            stack.append((a, xx, w0, h2))
            stack.append((b, xx, w0 + h2, h2))
    return CellDistance(True, lower, max(upper_done, lower), None, boxes)


@lru_cache(maxsize=64)
def _basis_values(n: int, k: int) -> tuple:
    """``V[a][i] = B_i^n(a / k)``, exact."""
    out = []
    for a in range(k + 1):
        x = _q(a, k)
        out.append(tuple(comb(n, i) * x ** i * (1 - x) ** (n - i) for i in range(n + 1)))
    return tuple(out)


def sampled_max_sq(B: np.ndarray, k: int = 2) -> gmpy2.mpq:
    """The largest exact ``|f|^2`` at the (k + 1) x (k + 1) grid of the Duffy square: a lower
    bound of ``max |f|^2`` (for the tightness measure; the corners alone see only the
    vertices' rounding)."""
    L = B.tolist()
    n, m, d = len(L) - 1, len(L[0]) - 1, len(L[0][0])
    bx, bw = _basis_values(n, k), _basis_values(m, k)
    best = _ZERO
    for wa in bw:
        rows = [[sum((wa[j] * L[i][j][c] for j in range(m + 1) if wa[j]), _ZERO) for c in range(d)]
                for i in range(n + 1)]
        for xa in bx:
            v = [sum((xa[i] * rows[i][c] for i in range(n + 1) if xa[i]), _ZERO) for c in range(d)]
            best = max(best, sum((x * x for x in v), _ZERO))
    return best


def enclose_cell_distance(controls, u0, u1, v0, v1, V00, V10, V01, V11, c, max_boxes: int = 256,
                          samples: int = 2) -> CellDistance:
    """Decide whether the true parametric distance between the cell ``[u0, u1] x [v0, v1]`` of
    the float32 patch ``controls`` and its two triangles of emitted vertices (``V00`` at
    ``(u0, v0)``, ``V10`` at ``(u1, v0)``, ...; diagonal ``V00 - V11``) is at most ``c``.
    Exact; ``max_boxes`` per triangle; ``lower_sq`` also takes the exact values at a
    ``(samples + 1)^2`` grid of each triangle's Duffy square."""
    M = cell_polynomial(controls, u0, u1, v0, v1)
    c_sq = to_mpq(c) ** 2
    lower, upper, boxes = _ZERO, _ZERO, 0
    for k, B in enumerate(triangle_differences(M, V00, V10, V01, V11)):
        r = decide_max_distance(B, c_sq, max_boxes)
        boxes += r.boxes
        lower = max(lower, r.lower_sq, sampled_max_sq(B, samples) if samples else _ZERO)
        if r.holds is False:
            return CellDistance(False, lower, None, (k + 1,) + r.witness, boxes)
        if r.holds is None:
            return CellDistance(None, lower, r.upper_sq, None, boxes)
        upper = max(upper, r.upper_sq)
    return CellDistance(True, lower, upper, None, boxes)


# --- The spec's first two cell terms, enclosed (for judging refinement decisions) -------------

def subdivision_weights(level: int) -> np.ndarray:
    """(2^level, 4, 4) float64 ``W[a][i][k]``: control ``i`` of a cubic's restriction to
    ``[a / n, (a + 1) / n]`` is ``sum_k W[a][i][k] c_k`` (``n = 2^level``). Built exactly from the
    blossom, ``b(t0^(3 - i), t1^i)`` with ``t0 = a / n``, ``t1 = (a + 1) / n``: integer sums over
    ``n^3`` (exact in float64 for ``level <= 16``). Rows are nonnegative and sum to 1."""
    return _subdivision_weights(int(level)).copy()


@lru_cache(maxsize=32)
def _subdivision_weights(level: int) -> np.ndarray:
    if not 0 <= level <= 16:
        raise ValueError("subdivision weights are exact for levels 0 to 16")
    n = 1 << level
    a = np.arange(n, dtype=np.float64)
    t0, s0, t1, s1 = a, n - a, a + 1, n - a - 1  # numerators of t0, 1 - t0, t1, 1 - t1
    W = np.zeros((n, 4, 4))
    for i in range(4):
        for k in range(4):
            acc = np.zeros(n)
            for m in range(max(0, k - (3 - i)), min(i, k) + 1):
                acc += comb(i, m) * comb(3 - i, k - m) * t1 ** m * s1 ** (i - m) * t0 ** (k - m) \
                    * s0 ** (3 - i - k + m)
            W[:, i, k] = acc / float(n) ** 3
    return W


_U64 = 2.0**-53
_BILINEAR = np.array([[[(3 - i) * (3 - j), i * (3 - j), (3 - i) * j, i * j] for j in range(4)]
                      for i in range(4)], dtype=np.float64) / 9.0  # (i, j, corner)


def cell_term_enclosures(controls, lu: int, lv: int) -> tuple:
    """``(lo, hi)``: (2^lu, 2^lv) float64 arrays enclosing, for every cell of the (lu, lv) grid of
    the float32 patch ``controls`` (4, 4, 3), the exact sum of the spec's first two cell terms:
    ``max_ij |D_ij - L_ij|`` (the cell's subpatch controls against the degree-elevated bilinear
    interpolant of its corners) plus ``|D_00 - D_30 - D_03 + D_33| / 4``.

    Computed in float64 from exact dyadic subdivision weights (:func:`subdivision_weights`, not
    the fast path's de Casteljau): each subpatch control is two passes of convex combinations
    (error at most ``8.1 u E``), the interpolant and difference add ``15 u E`` per component,
    the norms ``2.5 u`` of their size: term 1 errs by less than ``49 u E`` and term 2 by less
    than ``24 u E`` (``E`` the largest control magnitude); the enclosure widens by ``256 u E``."""
    C = np.asarray(controls, dtype=np.float64)
    E = float(np.max(np.abs(C)))
    Wu, Wv = _subdivision_weights(lu), _subdivision_weights(lv)
    X = np.einsum("aik,klc->ailc", Wu, C)  # u pass: (NU, 4, 4v, 3)
    D = np.einsum("bjl,ailc->abijc", Wv, X)  # v pass: (NU, NV, 4, 4, 3)
    corners = np.stack([D[:, :, 0, 0], D[:, :, 3, 0], D[:, :, 0, 3], D[:, :, 3, 3]], axis=2)  # (NU, NV, 4, 3)
    L = np.einsum("ijk,abkc->abijc", _BILINEAR, corners)
    t1 = np.max(np.linalg.norm(D - L, axis=-1), axis=(-1, -2))
    W = ((D[:, :, 0, 0] - D[:, :, 3, 0]) - D[:, :, 0, 3]) + D[:, :, 3, 3]
    t2 = 0.25 * np.linalg.norm(W, axis=-1)
    err = 256.0 * _U64 * E
    mid = t1 + t2
    return np.maximum(mid - err, 0.0), mid + err


# --- Normals ---------------------------------------------------------------------------------

def _mono_mul2(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Product of two bivariate monomial arrays of scalars (object)."""
    out = np.empty((A.shape[0] + B.shape[0] - 1, A.shape[1] + B.shape[1] - 1), dtype=object)
    out[...] = _ZERO
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            a = A[i, j]
            if a == 0:
                continue
            out[i:i + B.shape[0], j:j + B.shape[1]] += a * B
    return out


def normal_monomials(M: np.ndarray) -> np.ndarray:
    """(6, 6, 3) monomial coefficients in (s, t) of ``N = S_s x S_t`` for the cell polynomial
    ``M`` (:func:`cell_polynomial`); ``N`` has the direction of ``Su x Sv``."""
    Ss = np.empty((3, 4, 3), dtype=object)
    St = np.empty((4, 3, 3), dtype=object)
    for p in range(1, 4):
        Ss[p - 1] = M[p] * p
    for q in range(1, 4):
        St[:, q - 1] = M[:, q] * q
    comp = []
    for a, b in ((1, 2), (2, 0), (0, 1)):
        comp.append(_mono_mul2(Ss[..., a], St[..., b]) - _mono_mul2(Ss[..., b], St[..., a]))
    return np.stack(comp, axis=-1)


def normal_polynomials(M: np.ndarray) -> tuple:
    """Bernstein coefficients (Duffy squares of the two triangles, as in
    :func:`triangle_differences`) of ``N = S_s x S_t``; two (11, 6, 3) object arrays."""
    N = normal_monomials(M)
    out = []
    for tri in (1, 2):
        F = np.empty((11, 6, 3), dtype=object)
        F[...] = _ZERO
        for p in range(6):
            for q in range(6):
                w_exp = q if tri == 1 else p
                F[p + q, w_exp] = F[p + q, w_exp] + N[p, q]
        out.append(_to_bernstein(F))
    return tuple(out)


def cos_bounds(theta) -> tuple:
    """Exact rational ``(lo, hi)`` with ``lo <= cos(theta) <= hi`` for rational ``0 <= theta <=
    3/2``: alternating Taylor partial sums (terms decrease since ``theta^2 < 3``), the sum
    ending with ``-theta^18 / 18!`` below and with ``+theta^16 / 16!`` above."""
    x2 = to_mpq(theta) ** 2
    terms, t = [], _q(1)
    for k in range(10):
        terms.append(t)
        t = -t * x2 / ((2 * k + 1) * (2 * k + 2))
    hi = sum(terms[:9], _ZERO)
    lo = hi + terms[9]
    return lo, hi


_HALF_PI_LO = _q(3141592653589793, 2 * 10**15)  # below pi / 2


def decide_max_angle(N_bern: np.ndarray, n, theta, max_boxes: int = 64) -> bool | None:
    """True when every value of ``N`` (Bernstein coefficients on the unit square) is within
    angle ``theta`` of the exact vector ``n``: shown by the convex cone test on each box's
    coefficients, halving boxes up to ``max_boxes``. False when a Bernstein corner (a value)
    is certainly farther than ``theta``; None otherwise. ``theta`` above pi/2 is tested as
    pi/2 (a half-space: angle below pi/2 proves angle below theta)."""
    nq = [to_mpq(x) for x in n]
    nn = sum((x * x for x in nq), _ZERO)
    th = to_mpq(theta)
    if th >= _HALF_PI_LO:
        c_lo, c_hi = _ZERO, None
    else:
        c_lo, c_hi = cos_bounds(th)
        c_lo = max(c_lo, _ZERO)

    def dots(B):
        return B[..., 0] * nq[0] + B[..., 1] * nq[1] + B[..., 2] * nq[2]

    stack = [N_bern]
    boxes = 0
    while stack:
        B = stack.pop()
        boxes += 1
        d = dots(B)
        s = _sq(B)
        n1, m1 = B.shape[0] - 1, B.shape[1] - 1
        if c_hi is not None:
            for (i, j) in ((0, 0), (n1, 0), (0, m1), (n1, m1)):
                if s[i, j] == 0:
                    continue
                if d[i, j] < 0 or d[i, j] * d[i, j] < c_hi * c_hi * nn * s[i, j]:
                    return False
        ok = all(dv > 0 and dv * dv >= c_lo * c_lo * nn * sv for dv, sv in zip(d.ravel(), s.ravel()))
        if ok:
            continue
        if boxes >= max_boxes:
            return None
        lo, hi = _split(B, 0)
        for part in (lo, hi):
            a, b = _split(part, 1)
            stack += [a, b]
    return True


def sampled_angles(N_mono: np.ndarray, n, triangle: int, prec: int = 113, k: int = 3) -> float:
    """The largest angle between ``n`` and ``N`` (monomials in (s, t), :func:`normal_monomials`)
    at the (k + 1) x (k + 1) grid of the triangle's Duffy square (``(s, s w)`` on triangle 1,
    ``(t w, t)`` on triangle 2; its vertices included): ``N`` is evaluated exactly (Horner in
    rationals) and the angle ``atan2(|n x N|, n . N)`` measured with ``mp`` at ``prec`` bits: a
    high-precision lower estimate of the true maximum, for calibration."""
    from mpmath import mp, mpf

    nq = [to_mpq(y) for y in n]
    C = N_mono.tolist()
    P, Q = len(C), len(C[0])
    best = 0.0
    with mp.workprec(prec):
        for a in range(k + 1):
            for b in range(k + 1):
                x, w = _q(a, k), _q(b, k)
                s, t = (x, x * w) if triangle == 1 else (x * w, x)
                v = []
                for c in range(3):
                    acc = _ZERO
                    for p in reversed(range(P)):
                        inner = _ZERO
                        for q in reversed(range(Q)):
                            inner = inner * t + C[p][q][c]
                        acc = acc * s + inner
                    v.append(acc)
                if all(c == 0 for c in v):
                    continue
                cr = [nq[1] * v[2] - nq[2] * v[1], nq[2] * v[0] - nq[0] * v[2], nq[0] * v[1] - nq[1] * v[0]]
                cr2 = sum((y * y for y in cr), _ZERO)
                dot = sum((y * z for y, z in zip(nq, v)), _ZERO)
                best = max(best, float(mp.atan2(mp.sqrt(mpf(int(cr2.numerator)) / int(cr2.denominator)),
                                                mpf(int(dot.numerator)) / int(dot.denominator))))
    return best


def _eval(B: np.ndarray, x, w) -> list:
    """Exact value of the tensor Bernstein polynomial at (x, w) (de Casteljau on scalars)."""
    L = B.tolist()
    x, w = to_mpq(x), to_mpq(w)
    rows = [[list(c) for c in row] for row in L]
    while len(rows) > 1:
        rows = [[[a * (1 - x) + b * x for a, b in zip(p, q)] for p, q in zip(r0, r1)]
                for r0, r1 in itertools.pairwise(rows)]
    cols = rows[0]
    while len(cols) > 1:
        cols = [[a * (1 - w) + b * w for a, b in zip(p, q)] for p, q in itertools.pairwise(cols)]
    return list(cols[0])


# --- Arbitrary parameter triangles (for measuring other tessellators) -------------------------

def _bivariate_bernstein_basis(x0, dx1, dx2) -> list:
    """The four cubic Bernstein polynomials of ``x0 + r (dx1 + w dx2)`` as monomial arrays in
    (r, w) (each (4, 4))."""
    lin = np.empty((2, 2), dtype=object)
    lin[...] = _ZERO
    lin[0, 0], lin[1, 0], lin[1, 1] = x0, dx1, dx2
    one_minus = -lin
    one_minus[0, 0] = 1 - x0
    one = np.array([[_q(1)]], dtype=object)
    out = []
    for i in range(4):
        p = one
        for _ in range(i):
            p = _mono_mul2(p, lin)
        for _ in range(3 - i):
            p = _mono_mul2(p, one_minus)
        full = np.empty((4, 4), dtype=object)
        full[...] = _ZERO
        full[:p.shape[0], :p.shape[1]] = p * comb(3, i)
        out.append(full)
    return out


def triangle_difference(controls, uv0, uv1, uv2, V0, V1, V2) -> np.ndarray:
    """(7, 7, 3) Bernstein coefficients on the unit square of ``S - T`` over the parameter
    triangle ``(uv0, uv1, uv2)`` with emitted vertices ``V0, V1, V2`` (``T`` their linear
    interpolant in (u, v)), through the Duffy map ``a = r (1 - w)``, ``b = r w`` of the
    barycentric coordinates: ``(u, v) = uv0 + r ((uv1 - uv0) + w (uv2 - uv1))``."""
    C = _q_array(controls)
    p = [[to_mpq(float(x)) for x in uv] for uv in (uv0, uv1, uv2)]
    Bu = _bivariate_bernstein_basis(p[0][0], p[1][0] - p[0][0], p[2][0] - p[1][0])
    Bv = _bivariate_bernstein_basis(p[0][1], p[1][1] - p[0][1], p[2][1] - p[1][1])
    F = np.empty((7, 7, 3), dtype=object)
    F[...] = _ZERO
    for i in range(4):
        for j in range(4):
            w = _mono_mul2(Bu[i], Bv[j])
            for k in range(3):
                F[..., k] = F[..., k] + w * C[i, j, k]
    V0, V1, V2 = (_q_array(x) for x in (V0, V1, V2))
    F[0, 0] = F[0, 0] - V0
    F[1, 0] = F[1, 0] - (V1 - V0)
    F[1, 1] = F[1, 1] - (V2 - V1)
    return _to_bernstein(F)


def enclose_max_distance(B: np.ndarray, rel=_q(1, 20), max_boxes: int = 400, floor_sq=_ZERO) -> tuple:
    """Exact ``(lower_sq, upper_sq)`` of ``max |f|^2`` over the unit square (Bernstein ``B``):
    best-first branch and bound (the box of largest hull bound is halved next) until the
    largest remaining hull bound is within ``(1 + rel)^2`` of ``max(lower, floor_sq)`` or
    ``max_boxes`` boxes were examined. ``floor_sq`` (a maximum already found elsewhere) lets a
    triangle that cannot raise it stop early; then ``upper_sq`` may be below ``floor_sq``."""
    import heapq

    def entry(Bb):
        sq = _sq(Bb)
        n, m = Bb.shape[0] - 1, Bb.shape[1] - 1
        corner = max(sq[0, 0], sq[n, 0], sq[0, m], sq[n, m])
        ub = max(sq.ravel())
        return ub, corner

    ub, lower = entry(B)
    heap = [(-float(ub), 0, ub, B)]
    count, boxes = 1, 1
    factor = (1 + to_mpq(rel)) ** 2
    while heap:
        _, _, ub, Bb = heap[0]
        if ub <= max(lower, floor_sq) * factor or boxes >= max_boxes:
            return lower, ub
        heapq.heappop(heap)
        lo, hi = _split(Bb, 0)
        for part in (lo, hi):
            for child in _split(part, 1):
                cub, ccorner = entry(child)
                boxes += 1
                lower = max(lower, ccorner)
                count += 1
                heapq.heappush(heap, (-float(cub), count, cub, child))
    return lower, lower  # pragma: no cover - the heap never empties
