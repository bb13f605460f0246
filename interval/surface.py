"""The surface oracle: exact rational topology and exact bicubic values on narrowed controls.

Independent of ``reference.surface`` (it imports none of its code): side curves are read from
an explicit table of control indices, joins are replayed in exact rationals (gmpy2 ``mpq``),
corners are grouped as connected components of a graph whose links are the end
correspondences of the joins (a breadth-first search, not the fast path's union-find), and the
counterclockwise traversal direction of a side comes from walking the unit square's boundary.
Bicubic values and partials are tensor-product Bernstein sums with the basis polynomials and
their derivatives written out as monomial coefficients (not the nested de Casteljau-free
evaluation of ``reference.kernel``). Square roots (lengths, the unit normal) are enclosed in
mpmath intervals at an explicit precision.

Inputs are plain data: patch ids (ints), float32 controls ``(n, 4, 4, 3)`` (the narrowed
controls, replayed by ``interval.narrowing``), and joins as ``(first_patch, first_side,
second_patch, second_side, is_reversed)`` with sides named ``"U0"``, ``"U1"``, ``"V0"``,
``"V1"``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from math import comb

import gmpy2
import numpy as np
from mpmath import iv

from .context import IV, iv_from_mpq, to_mpq

__all__ = [
    "CORNER_NAMES",
    "SIDE_NAMES",
    "ExactTopology",
    "TopologyFailure",
    "enclose_length",
    "enclose_sqrt",
    "enclose_unit",
    "exact_cross",
    "exact_partials",
    "exact_topology",
    "side_controls",
    "side_point",
]

_q = gmpy2.mpq

SIDE_NAMES = ("U0", "U1", "V0", "V1")  # the ownership order of sides
CORNER_NAMES = ("U0V0", "U1V0", "U0V1", "U1V1")  # the id order of corners

# Control index (i, j) of the k-th control (k = 0..3 in s order) of each side.
_SIDE_INDEX = {
    "U0": [(0, k) for k in range(4)],
    "U1": [(3, k) for k in range(4)],
    "V0": [(k, 0) for k in range(4)],
    "V1": [(k, 3) for k in range(4)],
}
# The row inward of each side (for the cross-boundary derivative).
_INNER_INDEX = {
    "U0": [(1, k) for k in range(4)],
    "U1": [(2, k) for k in range(4)],
    "V0": [(k, 1) for k in range(4)],
    "V1": [(k, 2) for k in range(4)],
}
# Parameter-space corner of each corner name, and the name of a corner point.
_CORNER_POINT = {"U0V0": (0, 0), "U1V0": (1, 0), "U0V1": (0, 1), "U1V1": (1, 1)}
_POINT_CORNER = {p: c for c, p in _CORNER_POINT.items()}
# The unit square's boundary visited counterclockwise.
_CCW_WALK = [(0, 0), (1, 0), (1, 1), (0, 1)]


def _side_end_points(side: str):
    """(u, v) of the side's s = 0 and s = 1 ends, from its control indices (index 3 -> 1)."""
    idx = _SIDE_INDEX[side]
    return tuple((i // 3, j // 3) for (i, j) in (idx[0], idx[3]))


def side_point(side: str, t) -> tuple:
    """The exact (u, v) (two mpq) of along-edge parameter ``t`` (exact) on ``side``."""
    a, b = _side_end_points(side)
    return tuple(_q(x) + (_q(y) - _q(x)) * _q(t) for x, y in zip(a, b))


def _ccw_sign(side: str) -> int:
    """+1 when increasing s walks the boundary counterclockwise, else -1."""
    a, b = _side_end_points(side)
    k = _CCW_WALK.index(a)
    return 1 if _CCW_WALK[(k + 1) % 4] == b else -1


def side_controls(controls, side: str, inner: bool = False) -> np.ndarray:
    """The (4, 3) controls of ``side`` (``"U0"``, ...) of one patch ``controls`` (4, 4, 3) in the
    side's s order, or of the row inward of it (``inner``), read from this module's index table
    (the corpus generator and the claims' edge rows use it; the fast path has its own)."""
    C = np.asarray(controls)
    return np.stack([C[i, j] for (i, j) in (_INNER_INDEX if inner else _SIDE_INDEX)[side]])


def _curve(Q, patch: int, side: str, table=_SIDE_INDEX):
    return [Q[patch][i][j] for (i, j) in table[side]]


@dataclass(frozen=True)
class TopologyFailure:
    """The first rule a source breaks: ``rule`` (the fast path's diagnostic field names) and
    the offending join index (or the later patch of a duplicated id)."""

    rule: str
    index: int


@dataclass(frozen=True)
class ExactTopology:
    """The exact records of a valid network.

    Attributes:
        edges: sorted by id; each a dict ``{"id": (patch_id, side), "curve": 4 x 3 mpq,
            "incidences": [(patch, patch_id, side, is_reversed)], "orientation_consistent":
            bool | None, "cross": (D_owner, D_other mapped) exact controls or None}``.
        corners: sorted by id; each ``{"id": (patch_id, corner), "position": 3 mpq,
            "incidences": [(patch, patch_id, corner)]}``.
    """

    edges: list
    corners: list


def _to_q(controls) -> list:
    C = np.asarray(controls)
    return [[[[to_mpq(float(C[p, i, j, k])) for k in range(3)] for j in range(4)] for i in range(4)]
            for p in range(C.shape[0])]


def exact_topology(patch_ids, controls, joins) -> ExactTopology | TopologyFailure:
    """Replay V1's topology rules in exact rationals and build the records.

    Rules, in the documented order: duplicate patch id (index: the later patch), then per join
    in order: unknown patch index, side joined to itself, third incidence (a side already
    joined), partial join (an end of the mapped curves differs), mismatched curve.
    """
    ids = [int(x) for x in patch_ids]
    n = len(ids)
    seen = set()
    for i, pid in enumerate(ids):
        if pid in seen:
            return TopologyFailure("duplicate_patch_id", i)
        seen.add(pid)
    Q = _to_q(controls)
    links = {}  # (patch, side) -> ((patch, side), reversed)
    for j, (pa, sa, pb, sb, rev) in enumerate(joins):
        if not (0 <= pa < n and 0 <= pb < n):
            return TopologyFailure("unknown_patch_index", j)
        if (pa, sa) == (pb, sb):
            return TopologyFailure("side_joined_to_itself", j)
        if (pa, sa) in links or (pb, sb) in links:
            return TopologyFailure("third_incidence", j)
        ca = _curve(Q, pa, sa)
        cb = _curve(Q, pb, sb)
        if rev:
            cb = list(reversed(cb))
        if ca[0] != cb[0] or ca[3] != cb[3]:
            return TopologyFailure("partial_join", j)
        if ca != cb:
            return TopologyFailure("mismatched_curve", j)
        links[(pa, sa)] = ((pb, sb), bool(rev))
        links[(pb, sb)] = ((pa, sa), bool(rev))

    def rank(ps):
        return (ids[ps[0]], SIDE_NAMES.index(ps[1]))

    edges = []
    for p in range(n):
        for s in SIDE_NAMES:
            me = (p, s)
            if me in links:
                other, rev = links[me]
                if rank(other) < rank(me):
                    continue
                incid = [(p, ids[p], s, False), (other[0], ids[other[0]], other[1], rev)]
                consistent = _ccw_sign(s) * _ccw_sign(other[1]) * (-1 if rev else 1) < 0
                da = [[3 * (b - i) for b, i in zip(bb, ii)]
                      for bb, ii in zip(_curve(Q, p, s), _curve(Q, p, s, _INNER_INDEX))]
                db = [[3 * (b - i) for b, i in zip(bb, ii)]
                      for bb, ii in zip(_curve(Q, other[0], other[1]), _curve(Q, other[0], other[1], _INNER_INDEX))]
                cross = (da, list(reversed(db)) if rev else db)
            else:
                incid, consistent, cross = [(p, ids[p], s, False)], None, None
            edges.append({"id": (ids[p], s), "curve": _curve(Q, p, s), "incidences": incid,
                          "orientation_consistent": consistent, "cross": cross})
    edges.sort(key=lambda e: (e["id"][0], SIDE_NAMES.index(e["id"][1])))

    # Corner graph: node (patch, corner name); a join links the corners at its matching ends.
    adj = {(p, c): [] for p in range(n) for c in CORNER_NAMES}
    for (pa, sa), ((pb, sb), rev) in links.items():
        ea = [_POINT_CORNER[x] for x in _side_end_points(sa)]
        eb = [_POINT_CORNER[x] for x in _side_end_points(sb)]
        if rev:
            eb = eb[::-1]
        for x, y in zip(ea, eb):
            adj[(pa, x)].append((pb, y))
    done = set()
    corners = []
    for start in adj:
        if start in done:
            continue
        comp, todo = [], deque([start])
        done.add(start)
        while todo:
            node = todo.popleft()
            comp.append(node)
            for nxt in adj[node]:
                if nxt not in done:
                    done.add(nxt)
                    todo.append(nxt)
        incs = sorted(((p, ids[p], c) for p, c in comp), key=lambda t: (t[1], CORNER_NAMES.index(t[2])))
        positions = {tuple(Q[p][3 * _CORNER_POINT[c][0]][3 * _CORNER_POINT[c][1]]) for p, _, c in incs}
        if len(positions) != 1:  # pragma: no cover - matched curves share their ends exactly
            raise AssertionError("joined corners with different exact positions")
        _p0, pid0, c0 = incs[0]
        corners.append({"id": (pid0, c0), "position": list(next(iter(positions))), "incidences": incs})
    corners.sort(key=lambda c: (c["id"][0], CORNER_NAMES.index(c["id"][1])))
    return ExactTopology(edges, corners)


# --- Exact bicubic values --------------------------------------------------------------------

def _basis_coeffs(i: int) -> list:
    """Monomial coefficients (lowest degree first) of C(3, i) t^i (1 - t)^(3 - i)."""
    c = [0, 0, 0, 0]
    for k in range(3 - i + 1):
        c[i + k] = comb(3, i) * comb(3 - i, k) * (-1) ** k
    return c


def _deriv(c: list) -> list:
    return [k * c[k] for k in range(1, len(c))] or [0]


def _peval(c: list, t) -> gmpy2.mpq:
    acc = _q(0)
    for a in reversed(c):
        acc = acc * t + a
    return acc


_BASIS = [[_basis_coeffs(i), _deriv(_basis_coeffs(i)), _deriv(_deriv(_basis_coeffs(i)))] for i in range(4)]


def exact_partials(controls, u, v) -> list:
    """Exact ``[S, Su, Sv, Suu, Suv, Svv]`` (each three mpq) of the patch ``controls`` (4, 4, 3)
    (read exactly) at exact parameters ``u``, ``v``: ``sum_ij a_i(u) b_j(v) C_ij`` with the
    Bernstein basis (or its derivatives) as monomials."""
    uq, vq = to_mpq(u), to_mpq(v)
    C = np.asarray(controls)
    Q = _exact_controls(C.shape, C.dtype.str, C.tobytes())
    bu = [[_peval(_BASIS[i][d], uq) for d in range(3)] for i in range(4)]
    bv = [[_peval(_BASIS[j][d], vq) for d in range(3)] for j in range(4)]
    out = []
    for du, dv in ((0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)):
        # rows r[i][k] = sum_j b_j(v) Q[i][j][k], then sum_i a_i(u) r[i][k]
        wv = [bv[j][dv] for j in range(4)]
        vec = []
        for k in range(3):
            acc = _q(0)
            for i in range(4):
                wi = bu[i][du]
                if wi == 0:
                    continue
                Qi = Q[i]
                acc += wi * (wv[0] * Qi[0][k] + wv[1] * Qi[1][k] + wv[2] * Qi[2][k] + wv[3] * Qi[3][k])
            vec.append(acc)
        out.append(vec)
    return out


@lru_cache(maxsize=64)
def _exact_controls(shape, dtype, data) -> tuple:
    # A patch's controls, read exactly once for all of its samples.
    C = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)
    return tuple(tuple(tuple(to_mpq(float(C[i, j, k])) for k in range(3)) for j in range(4)) for i in range(4))


def exact_cross(a, b) -> list:
    """The exact cross product of two 3-vectors of mpq."""
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def _sq(a) -> gmpy2.mpq:
    return sum((x * x for x in a), _q(0))


def enclose_sqrt(q, prec: int):
    """An ``iv.mpf`` enclosure of the square root of the exact nonnegative rational ``q``."""
    with IV(prec).scope():
        return iv.sqrt(iv_from_mpq(q, prec))


def enclose_length(a, prec: int):
    """An ``iv.mpf`` enclosure of the Euclidean length of the exact 3-vector ``a``."""
    return enclose_sqrt(_sq(a), prec)


def enclose_unit(a, prec: int) -> list | None:
    """Enclosures of ``a / |a|`` for an exact nonzero 3-vector ``a`` (None for zero)."""
    if all(x == 0 for x in a):
        return None
    ctx = IV(prec)
    with ctx.scope():
        L = iv.sqrt(iv_from_mpq(_sq(a), prec))
        return [iv_from_mpq(x, prec) / L for x in a]
