"""``convex_polygon.hpp``: ``TryPartitionConvexPolygons`` (spec 002, "Convex polygon partition").

A triangle mesh (float32 mesh-space positions and a flat index list) becomes convex planar
polygons of at most seven vertices with no three collinear, the input FoundationMath's
projected solid angle sampling expects (Peters 2021, section 3.1 and supplement A.2).

The algorithm adapts the inessential-diagonal removal of Hertel and Mehlhorn (FCT 1983):

1. Corners are matched by equal position *values* (``-0.0 == 0.0``), so split vertices along
   normal or UV seams still share edges. Each class of equal positions is named by its lowest
   source index, whose float32 bits every output polygon copies.
2. A triangle with two equal corners, or whose height (twice its area over its longest edge) is
   at most the tolerance ``delta`` of its corners, is degenerate: counted and left out.
3. Over the nondegenerate triangles, an edge with more than two triangles, or with two
   triangles that run it in the same direction, is unmergeable: counted and never crossed. An
   edge with exactly two triangles of opposite direction is mergeable.
4. Every nondegenerate triangle starts as a piece. Pieces merge greedily, best first, and a
   merge removes the whole chain of edges the two pieces share. The order: the longest shared
   boundary (the summed length of the pair's mergeable shared edges) goes first, but lengths
   compare with a band, ``min(LENGTH_BAND * delta, LENGTH_BAND_REL * length)``, so lengths
   that only float32 rounding tells apart tie; among the pairs within the band of the longest,
   the larger union (more triangles) goes first, then the smaller position ids of the shared
   edges. Every key of that order is exact or a banded comparison, so rounding far below
   ``delta`` (a planar grid in a rotated plane, rounded to float32) cannot reorder the merges:
   such a grid collapses to one polygon as its exactly planar version does. A merge is
   accepted when the union's boundary is one simple loop, its corners (after removing vertices
   within ``delta`` of the chord of their neighbours) number at most seven and turn strictly
   left by more than ``delta``, every vertex of the union lies within ``delta`` of its plane,
   the two pieces face the same way and every triangle of the union faces within 60 degrees of
   the union's normal. A rejected pair is retried when either piece changes. The greedy order
   is deterministic; the partition is not minimal (``benchmarks/bench_convex_polygon.py``
   measures how far from the optimum it is, and how rotated float32 meshes collapse).

Tolerance (``docs/decisions.md``, "Convex polygons: tolerances"): for a set ``S`` of
positions, ``delta(S) = max(REL_TOLERANCE * L, FLOOR_TOLERANCE * M)`` where ``L`` is the
largest side of the bounding box of ``S`` and ``M`` the largest coordinate magnitude in ``S``.
The floor is about half a float32 ulp of ``M``: far from the origin the rounding of a fan's
centre can exceed it and keep the centre off its chord, leaving several convex pieces (the
spec's caveat).

Guarantee classes: output positions are Exact (bitwise source positions); the polygon and
triangle membership, degenerate and unmergeable counts are Exact decisions of the documented
rule (the oracle accepts either answer only where the exact quantity lies within a factor two
band of ``delta``); ``normal_mesh`` is Rounded (float64 Newell normal of the polygon's
corners, normalised and rounded to float32).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from .owner import readonly
from .status import GeometryStatus, Outcome, failure, success

__all__ = [
    "FACING_COSINE",
    "FLOOR_TOLERANCE",
    "LENGTH_BAND",
    "LENGTH_BAND_REL",
    "MAX_POLYGON_VERTICES",
    "REL_TOLERANCE",
    "ConvexPolygon",
    "ConvexPolygonPartition",
    "tolerance",
    "try_partition_convex_polygons",
]

MAX_POLYGON_VERTICES = 7
# delta(S) = max(REL_TOLERANCE * extent, FLOOR_TOLERANCE * magnitude). Powers of two, so the
# oracle recomputes delta exactly from the same float32 values.
REL_TOLERANCE = 2.0**-16
FLOOR_TOLERANCE = 2.0**-24
# A triangle joins a polygon only if its normal is within 60 degrees of the polygon normal: a
# margin far above float64 rounding, so the exact orientation of every member is positive.
FACING_COSINE = 0.5
# The merge order compares shared lengths with a band: two lengths tie when they differ by at
# most min(LENGTH_BAND * delta, LENGTH_BAND_REL * length), delta the larger of the two pieces'.
# Rounding a position to float32 moves it by at most sqrt(3)/2 ulp(M) <= sqrt(3) 2^-24 M, a
# length by twice that, so two lengths equal before rounding differ by at most 7 x 2^-24 M
# after it: within 4 delta wherever delta's relative term is at least twice its floor (an
# extent of at least 1/128 of the distance from the origin; near the origin it is 2^-5 delta),
# and the tie falls to exact keys. The cap of an eighth of the length keeps lengths that truly
# differ (a square's diagonal and its side, a factor 1.41) apart even where delta is as large
# as a cell (an exactly representable unit grid at 1e7, delta 0.6).
LENGTH_BAND = 4.0
LENGTH_BAND_REL = 0.125


@dataclass(frozen=True)
class ConvexPolygon:
    """One output polygon (``ConvexPolygon``).

    Attributes:
        positions_mesh: (7, 3) float32, read-only; rows ``[0, vertex_count)`` are the corners,
            bitwise source positions (Exact), counterclockwise about ``normal_mesh``; the rest
            are zero.
        vertex_count: 3 to 7.
        normal_mesh: (3,) float32 unit normal (Rounded: float64 Newell normal of the corners,
            normalised, rounded to nearest float32).
        first_triangle: index of this polygon's first entry in ``ConvexPolygonPartition.triangles``.
        triangle_count: how many entries, from ``first_triangle``, are its source triangles.
    """

    positions_mesh: np.ndarray
    vertex_count: int
    normal_mesh: np.ndarray
    first_triangle: int
    triangle_count: int

    @property
    def vertices(self) -> np.ndarray:
        """The (vertex_count, 3) float32 corners (a read-only view)."""
        return self.positions_mesh[: self.vertex_count]


class ConvexPolygonPartition:
    """The output of :func:`try_partition_convex_polygons` (``ConvexPolygonPartition``).

    An empty partition on construction; a successful call replaces its contents whole, a failed
    call leaves them unchanged.

    Attributes (read-only):
        polygons: tuple of :class:`ConvexPolygon`, ordered by their lowest source triangle.
        triangles: (m,) int64 read-only, source triangle numbers (triangle ``t`` is
            ``indices[3t:3t+3]``), grouped per polygon, ascending inside a group.
        degenerate_triangle_count: triangles left out as coincident or collinear.
        unmergeable_edge_count: distinct edges with more than two triangles or inconsistent
            winding (never crossed).
    """

    __slots__ = ("_degenerate", "_polygons", "_triangles", "_unmergeable")

    def __init__(self):
        self._set((), np.zeros(0, np.int64), 0, 0)

    def _set(self, polygons, triangles, degenerate, unmergeable):
        self._polygons = tuple(polygons)
        self._triangles = readonly(np.asarray(triangles, dtype=np.int64))
        self._degenerate = int(degenerate)
        self._unmergeable = int(unmergeable)

    @property
    def polygons(self) -> tuple:
        return self._polygons

    @property
    def triangles(self) -> np.ndarray:
        return self._triangles

    @property
    def degenerate_triangle_count(self) -> int:
        return self._degenerate

    @property
    def unmergeable_edge_count(self) -> int:
        return self._unmergeable

    def polygon_triangles(self, k: int) -> np.ndarray:
        """The source triangle numbers of polygon ``k``."""
        p = self._polygons[k]
        return self._triangles[p.first_triangle: p.first_triangle + p.triangle_count]


# --- small float64 vector helpers (tuples: faster than numpy for 3-vectors) ------------------


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def tolerance(points) -> float:
    """``delta(S) = max(REL_TOLERANCE * L, FLOOR_TOLERANCE * M)`` in float64 for float32-valued
    ``points`` (an iterable of 3-tuples): ``L`` the largest bounding-box side, ``M`` the largest
    coordinate magnitude. Exact up to one rounding of ``L`` (the factors are powers of two)."""
    xs, ys, zs = zip(*points)
    ext = max(max(xs) - min(xs), max(ys) - min(ys), max(zs) - min(zs))
    mag = max(max(map(abs, xs)), max(map(abs, ys)), max(map(abs, zs)))
    return max(REL_TOLERANCE * ext, FLOOR_TOLERANCE * mag)


def _newell(pts):
    """Twice the area vector of a closed loop, from differences to its first point (the
    differences of float32 values are exact in float64, so only the products round)."""
    o = pts[0]
    nx = ny = nz = 0.0
    for i in range(1, len(pts) - 1):
        c = _cross(_sub(pts[i], o), _sub(pts[i + 1], o))
        nx += c[0]
        ny += c[1]
        nz += c[2]
    return (nx, ny, nz)


def _unit(v):
    n = math.sqrt(_dot(v, v))
    return None if n == 0.0 else (v[0] / n, v[1] / n, v[2] / n)


# --- validation ------------------------------------------------------------------------------


def _validate(positions, indices):
    if not isinstance(positions, np.ndarray) or positions.ndim != 2 or positions.shape[1] != 3:
        return failure(GeometryStatus.InvalidArgument, "positions must be an (n, 3) array", field="positions")
    if positions.dtype != np.float32:
        return failure(GeometryStatus.InvalidArgument, "positions must be float32 (mesh space)",
                       field="positions")
    if not isinstance(indices, np.ndarray) or indices.ndim != 1:
        return failure(GeometryStatus.InvalidArgument, "indices must be a 1-D array", field="indices")
    if indices.size and not np.issubdtype(indices.dtype, np.integer):
        return failure(GeometryStatus.InvalidArgument, "indices must be integers", field="indices")
    if indices.size % 3:
        return failure(GeometryStatus.InvalidArgument,
                       f"index count {indices.size} is not a multiple of three", field="indices")
    if indices.size:
        bad = np.flatnonzero((indices < 0) | (indices >= positions.shape[0]))
        if bad.size:
            i = int(bad[0])
            return failure(GeometryStatus.OutOfRange,
                           f"index {int(indices[i])} at {i} is outside [0, {positions.shape[0]})",
                           field="indices", index=i)
    nonfinite = np.flatnonzero(~np.isfinite(positions).all(axis=1))
    if nonfinite.size:
        return failure(GeometryStatus.InvalidArgument, f"position {int(nonfinite[0])} is not finite",
                       field="positions", index=int(nonfinite[0]))
    return None


# --- the partition ---------------------------------------------------------------------------


class _Piece:
    """One convex piece. Besides its loop it caches what a merge test needs in O(1): its
    bounding box (the tolerance of a union is a function of the two boxes), a reference point
    ``ref`` with bounds ``[hmin, hmax]`` of ``normal . (p - ref)`` over its vertices, and a
    lower bound ``cmin`` of the cosine between its triangles' normals and ``normal``. Bounds
    are conservative; a merge recomputes them over the piece's vertices only when they do not
    decide."""

    __slots__ = (
        "alive",
        "cmin",
        "corners",
        "delta",
        "hi",
        "hmax",
        "hmin",
        "lo",
        "loop",
        "normal",
        "ref",
        "tris",
        "verts",
    )

    def __init__(self, loop, tris, verts, normal, corners, lo, hi, ref, hmin, hmax, cmin):
        self.loop = loop          # full boundary loop (position ids), counterclockwise
        self.tris = tris          # source triangle numbers
        self.verts = verts        # every position id of its triangles (repeats allowed)
        self.normal = normal      # unit normal (float64 tuple)
        self.corners = corners    # loop with near-collinear vertices removed
        self.lo, self.hi = lo, hi
        self.delta = _box_tolerance(lo, hi)  # the tolerance of the piece's vertices
        self.ref, self.hmin, self.hmax, self.cmin = ref, hmin, hmax, cmin
        self.alive = True         # False once merged into a larger piece


def _box(points):
    xs, ys, zs = zip(*points)
    return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))


def _box_tolerance(lo, hi):
    """``tolerance`` of any set whose bounding box is ``[lo, hi]``."""
    ext = max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])
    mag = max(-lo[0], -lo[1], -lo[2], hi[0], hi[1], hi[2])
    return max(REL_TOLERANCE * ext, FLOOR_TOLERANCE * mag)


def _dist(a, b):
    d = _sub(a, b)
    return math.sqrt(_dot(d, d))


class _BandedQueue:
    """The merge order: a priority queue whose lengths compare with a tolerance band.

    An entry is a list ``[ell, reach, rank, item, state]``: a length ``ell``, ``reach = ell +
    eps`` with ``eps`` its band, an exact ``rank`` and ``item = (u, v, pid, qid, p, q)``,
    pending while the pieces ``p`` and ``q`` (ids ``pid``, ``qid``) are alive. ``pop``
    returns, among the pending entries whose length lies within its band of the longest
    pending length ``L`` (``reach >= L``), the item of smallest rank. So lengths equal up to
    rounding tie, and the tie falls to the exact rank, never to the rounding. Three heaps with
    lazy deletion: every pending entry by length (for ``L``); entries waiting outside the band
    by reach; entries in the band by rank. An entry leaves the band again (lazily, when it
    reaches the top) if ``L`` has grown past its reach.
    """

    __slots__ = ("_by_length", "_by_rank", "_by_reach", "_count", "_longest")

    _WAITING, _BANDED, _DONE = 0, 1, 2

    def __init__(self):
        self._count = 0           # entries pushed: the heaps' last key, so entries never compare
        self._longest = math.inf  # L at the last pop
        self._by_length = []      # (-ell, n, entry): every entry not done
        self._by_reach = []       # (-reach, n, entry): waiting entries
        self._by_rank = []        # (rank, n, entry): entries in the band

    def push_all(self, entries):
        """Add entries ``[ell, reach, rank, item, _WAITING]``. One that reaches the last ``L``
        goes straight into the band (``pop`` sends it back if ``L`` has grown since)."""
        push, n, longest = heapq.heappush, self._count, self._longest
        for e in entries:
            n += 1
            push(self._by_length, (-e[0], n, e))
            if e[1] >= longest:
                e[4] = self._BANDED
                push(self._by_rank, (e[2], n, e))
            else:
                push(self._by_reach, (-e[1], n, e))
        self._count = n

    def pop(self):
        """The next entry's item (the entry is done), or None when none is pending."""
        by_length, by_reach, by_rank = self._by_length, self._by_reach, self._by_rank
        pop, push = heapq.heappop, heapq.heappush
        WAITING, BANDED, DONE = self._WAITING, self._BANDED, self._DONE
        while True:
            while by_length:
                e = by_length[0][2]
                if e[4] != DONE and e[3][4].alive and e[3][5].alive:
                    break
                pop(by_length)[2][4] = DONE
            if not by_length:
                return None
            longest = self._longest = -by_length[0][0]
            while by_reach and -by_reach[0][0] >= longest:
                _, n, e = pop(by_reach)
                if e[4] == WAITING:
                    e[4] = BANDED
                    push(by_rank, (e[2], n, e))
            while by_rank:
                _, n, e = pop(by_rank)
                if e[4] != BANDED:  # stale: marked done while clearing the length heap
                    continue
                if not (e[3][4].alive and e[3][5].alive):
                    e[4] = DONE
                elif e[1] < longest:  # the longest grew past this entry's band: wait again
                    e[4] = WAITING
                    push(by_reach, (-e[1], n, e))
                else:
                    e[4] = DONE
                    return e[3]
            # the longest pending entry is within its own band, so the band is never empty here
            raise AssertionError("banded queue lost its longest entry")  # pragma: no cover


class _Partitioner:
    def __init__(self, pts, tri_ids, tri_corners):
        self.pts = pts                 # position id -> float64 tuple (float32 values)
        self.tri_corners = tri_corners  # triangle number -> (a, b, c) ids, nondegenerate only
        self.tri_cross = {}
        self._edge_length = {}  # directed edge -> its length, computed once
        self.piece_of = {}
        self.pieces = {}
        for t in tri_ids:
            a, b, c = tri_corners[t]
            cr = _cross(_sub(pts[b], pts[a]), _sub(pts[c], pts[a]))
            self.tri_cross[t] = cr
            n = _unit(cr)
            tri = (pts[a], pts[b], pts[c])
            lo, hi = _box(tri)
            h = [_dot(n, _sub(x, tri[0])) for x in tri]
            self.pieces[t] = _Piece([a, b, c], [t], [a, b, c], n, [a, b, c], lo, hi, tri[0], min(h), max(h),
                                    _dot(cr, n) / math.sqrt(_dot(cr, cr)))
            self.piece_of[t] = t

    # The edge census: directed edge -> triangle for mergeable edges only.
    def census(self):
        uses = {}
        for t, (a, b, c) in self.tri_corners.items():
            for u, v in ((a, b), (b, c), (c, a)):
                uses.setdefault((min(u, v), max(u, v)), []).append((u, v, t))
        self.across = {}
        unmergeable = 0
        for key, lst in uses.items():
            if len(lst) == 1:
                continue
            if len(lst) == 2 and lst[0][0] == lst[1][1]:
                for u, v, t in lst:
                    self.across[(u, v)] = t
            else:
                unmergeable += 1
        return unmergeable

    def _length(self, u, v):
        d = _sub(self.pts[u], self.pts[v])
        return math.sqrt(_dot(d, d))

    def _push_neighbours(self, queue, pid, above=-1):
        """One queue entry per neighbouring piece: the summed length of the mergeable edges the
        two share with its band (``LENGTH_BAND`` times the larger of the two pieces' delta,
        capped at ``LENGTH_BAND_REL`` of the length), and the exact rank: the union's triangle
        count (larger first), then the smallest shared edge by position ids, which is also the
        edge the merge starts its chain walk from. Neighbours with ids up to ``above`` are
        skipped (the first pass names each pair once)."""
        piece = self.pieces[pid]
        loop = piece.loop
        across, piece_of, length_of = self.across, self.piece_of, self._edge_length
        shared = {}
        u = loop[-1]
        for v in loop:  # the loop's edges (u, v), starting with the closing one
            t = across.get((v, u))
            if t is not None:
                q = piece_of[t]
                length = length_of.get((u, v))
                if length is None:
                    length = length_of[(u, v)] = self._length(u, v)
                key = (u, v) if u < v else (v, u)
                s = shared.get(q)
                if s is None:
                    shared[q] = [length, key, u, v]
                else:
                    s[0] += length
                    if key < s[1]:
                        s[1:] = key, u, v
            u = v
        pdelta, ptris = piece.delta, len(piece.tris)
        entries = []
        for q, (length, key, u, v) in shared.items():
            if q <= above:  # the first pass pushes each pair once, from its lower piece
                continue
            other = self.pieces[q]
            band = min(LENGTH_BAND * max(pdelta, other.delta), LENGTH_BAND_REL * length)
            entries.append([length, length + band, (-(ptris + len(other.tris)), key),
                            (u, v, pid, q, piece, other), _BandedQueue._WAITING])
        queue.push_all(entries)

    def run(self):
        queue = _BandedQueue()
        for pid in sorted(self.pieces):
            self._push_neighbours(queue, pid, above=pid)
        while True:
            item = queue.pop()
            if item is None:
                return self.pieces
            u, v, pid, qid, p, q = item
            # the union keeps the larger piece's id, so only the smaller one's triangles move
            keep, gone = (pid, q) if len(p.tris) >= len(q.tris) else (qid, p)
            moved = list(gone.tris)
            merged = self._try_merge(p, q, u, v)
            if merged is None:
                continue
            p.alive = q.alive = False  # every pending pair naming either piece is stale now
            del self.pieces[qid if keep == pid else pid]
            for t in moved:
                self.piece_of[t] = keep
            self.pieces[keep] = merged
            self._push_neighbours(queue, keep)

    def _try_merge(self, p, q, u, v):
        if _dot(p.normal, q.normal) <= 0.0:
            return None
        P, Q = p.loop, q.loop
        m, n = len(P), len(Q)
        try:
            i, j = P.index(u), Q.index(v)
        except ValueError:  # pragma: no cover - the named edge is on both loops
            return None
        if P[(i + 1) % m] != v or Q[(j + 1) % n] != u:  # pragma: no cover
            return None
        # The shared chain: P[s] -> ... -> P[e] in P is Q[a] -> ... -> Q[b] reversed in Q.
        s, e, a, b, k = i, i + 1, j, j + 1, 1
        while k < min(m, n):
            x, y = P[(s - 1) % m], P[s % m]
            if Q[(b + 1) % n] == x and (y, x) in self.across:
                s, b, k = s - 1, b + 1, k + 1
                continue
            x, y = P[e % m], P[(e + 1) % m]
            if Q[(a - 1) % n] == y and (y, x) in self.across:
                e, a, k = e + 1, a - 1, k + 1
                continue
            break
        if k >= min(m, n):
            return None
        loop = [P[(e + t) % m] for t in range(m - k + 1)] + [Q[(b + t) % n] for t in range(1, n - k)]
        if len(set(loop)) != len(loop) or len(loop) < 3:
            return None  # the pieces also touch elsewhere: the union is not simple
        pts = self.pts
        lo = (min(p.lo[0], q.lo[0]), min(p.lo[1], q.lo[1]), min(p.lo[2], q.lo[2]))
        hi = (max(p.hi[0], q.hi[0]), max(p.hi[1], q.hi[1]), max(p.hi[2], q.hi[2]))
        delta = _box_tolerance(lo, hi)
        corners = self._corners(loop, delta, set(p.corners) | set(q.corners), (P[s % m], P[e % m]))
        if corners is None or not 3 <= len(corners) <= MAX_POLYGON_VERTICES:
            return None
        cpts = [pts[w] for w in corners]
        normal = _unit(_newell(cpts))
        if normal is None or _dot(normal, p.normal) <= 0.0 or _dot(normal, q.normal) <= 0.0:
            return None
        if not _strictly_convex(cpts, normal, delta):
            return None
        k3 = 1.0 / len(cpts)
        centre = tuple(k3 * sum(c[d] for c in cpts) for d in range(3))
        # Every vertex within delta of the plane (normal, centre), and every triangle facing
        # within 60 degrees of normal: decided from each piece's cached bounds when they
        # suffice, else over that piece's vertices and triangles.
        hmin = hmax = None
        cmin = 1.0
        mag = max(-lo[0], -lo[1], -lo[2], hi[0], hi[1], hi[2])
        for x in (p, q):
            tilt = _dist(normal, x.normal)
            reach = _dist(x.lo, x.hi) + _dist(x.ref, centre)
            slack = tilt * reach + 2.0**-40 * (mag + reach)
            shift = _dot(normal, _sub(x.ref, centre))
            lo_h, hi_h = x.hmin + shift - slack, x.hmax + shift + slack
            if lo_h < -delta or hi_h > delta:
                hs = [_dot(normal, _sub(pts[w], centre)) for w in x.verts]
                lo_h, hi_h = min(hs), max(hs)
                if lo_h < -delta or hi_h > delta:
                    return None
            hmin = lo_h if hmin is None else min(hmin, lo_h)
            hmax = hi_h if hmax is None else max(hmax, hi_h)
            c = x.cmin - tilt - 2.0**-40
            if c < FACING_COSINE:
                cs = []
                for t in x.tris:
                    cr = self.tri_cross[t]
                    cs.append(_dot(cr, normal) / math.sqrt(_dot(cr, cr)))
                c = min(cs)
                if c < FACING_COSINE:
                    return None
            cmin = min(cmin, c)
        # Both pieces are retired on success, so the larger lists grow in place (no copies).
        big, small = (p, q) if len(p.tris) >= len(q.tris) else (q, p)
        big.tris.extend(small.tris)
        big.verts.extend(small.verts)
        return _Piece(loop, big.tris, big.verts, normal, corners, lo, hi, centre, hmin, hmax, cmin)

    def _corners(self, loop, delta, corners, ends):
        """Drop loop vertices near the chord of their neighbours. A vertex goes only if every
        loop vertex between its two remaining neighbours (earlier removals included) lies within
        ``delta`` of their chord and strictly between them along it, so removals never drift.
        Only the pieces' own corners and the chain's two ends are candidates: a vertex a piece
        already dropped stays within its old chord, and ``delta`` never grows smaller when
        pieces grow. Only a span that ends at a chain end can hold vertices dropped against
        another chord, so those spans are checked, and on failure every loop vertex decides."""
        keep = self._reduce(loop, delta, [i for i, w in enumerate(loop) if w in corners or w in ends])
        if len(keep) >= 3 and not all(self._spans_collinear(loop, keep[r - 1], keep[r], delta)
                                      for r in range(len(keep))
                                      if loop[keep[r - 1]] in ends or loop[keep[r]] in ends):
            # a chain end replaced an old chord end: decide over every loop vertex instead
            keep = self._reduce(loop, delta, list(range(len(loop))))
        return [loop[i] for i in keep]

    def _reduce(self, loop, delta, keep):
        """Drop kept loop positions (indices into ``loop``) whose neighbours' span is collinear,
        in loop order, until none drops; never below three."""
        changed = True
        while changed and len(keep) > 3:
            changed = False
            r = 0
            while r < len(keep) and len(keep) > 3:
                ia, ib = keep[r - 1], keep[(r + 1) % len(keep)]
                if self._spans_collinear(loop, ia, ib, delta):
                    del keep[r]
                    changed = True
                else:
                    r += 1
        return keep

    def _spans_collinear(self, loop, ia, ib, delta):
        pts = self.pts
        A, B = pts[loop[ia]], pts[loop[ib]]
        d = _sub(B, A)
        dd = _dot(d, d)
        if dd == 0.0:
            return False
        i = (ia + 1) % len(loop)
        while i != ib:
            w = _sub(pts[loop[i]], A)
            t = _dot(w, d)
            if not 0.0 < t < dd:
                return False
            c = _cross(w, d)
            if _dot(c, c) > delta * delta * dd:
                return False
            i = (i + 1) % len(loop)
        return True


def _strictly_convex(cpts, normal, delta):
    """Every corner turns left by more than ``delta`` (its distance to its neighbours' chord),
    and every corner lies strictly left of every edge it is not on."""
    k = len(cpts)
    for i in range(k):
        a, b, c = cpts[i - 1], cpts[i], cpts[(i + 1) % k]
        ac = _sub(c, a)
        left = _dot(normal, _cross(_sub(b, a), ac))  # twice the area of (a, b, c): > 0 when convex
        if left <= delta * math.sqrt(_dot(ac, ac)):
            return False
    for i in range(k):
        a, b = cpts[i], cpts[(i + 1) % k]
        e = _sub(b, a)
        for j in range(k):
            if j == i or j == (i + 1) % k:
                continue
            if _dot(normal, _cross(e, _sub(cpts[j], a))) <= 0.0:
                return False
    return True


def try_partition_convex_polygons(positions, indices, partition: ConvexPolygonPartition) -> Outcome:
    """``TryPartitionConvexPolygons``: convex planar polygons of at most seven vertices.

    Args:
        positions: (n, 3) float32 mesh-space positions (the ``{positions, positionCount}`` view).
        indices: (3m,) integer array, triangle ``t`` is ``indices[3t:3t+3]``.
        partition: the :class:`ConvexPolygonPartition` to fill; replaced whole on success,
            unchanged on failure.

    Returns:
        ``Outcome`` whose value is ``partition``. Failures, checked in this order: positions
        not an (n, 3) float32 array or indices not a 1-D integer array (InvalidArgument), an
        index count not a multiple of three (InvalidArgument), an index outside ``[0, n)``
        (OutOfRange), a nonfinite position, referenced or not (InvalidArgument).

    Guarantees: corner positions Exact (bitwise source positions); membership and counts Exact
    decisions of the documented tolerance rule; ``normal_mesh`` Rounded. See the module
    docstring for the algorithm and tolerance.
    """
    if not isinstance(partition, ConvexPolygonPartition):
        raise TypeError(f"expected ConvexPolygonPartition, got {type(partition).__name__}")
    bad = _validate(positions, indices)
    if bad is not None:
        return bad
    tri_count = indices.size // 3
    if tri_count == 0:
        partition._set((), np.zeros(0, np.int64), 0, 0)
        return success(partition)
    # Position classes by value: -0.0 + 0.0 is +0.0, so signed zeros share a key.
    keyed = np.ascontiguousarray(positions + np.float32(0.0)).view(np.uint32)
    _, first, inverse = np.unique(keyed, axis=0, return_index=True, return_inverse=True)
    rep = first[inverse.reshape(-1)]  # source index -> lowest source index of equal value
    corners = rep[np.asarray(indices, dtype=np.int64)].reshape(-1, 3)
    pts = {}
    src = positions.astype(np.float64)
    for w in np.unique(corners).tolist():
        pts[w] = tuple(src[w].tolist())
    nondeg = {}
    degenerate = 0
    for t, (a, b, c) in enumerate(corners.tolist()):
        if a == b or b == c or a == c:
            degenerate += 1
            continue
        pa, pb, pc = pts[a], pts[b], pts[c]
        cr = _cross(_sub(pb, pa), _sub(pc, pa))
        longest = max(_dot(d, d) for d in (_sub(pb, pa), _sub(pc, pb), _sub(pa, pc)))
        delta = tolerance((pa, pb, pc))
        # height^2 = |cross|^2 / longest^2 <= delta^2  <=>  degenerate
        if _dot(cr, cr) <= delta * delta * longest:
            degenerate += 1
            continue
        nondeg[t] = (a, b, c)
    work = _Partitioner(pts, sorted(nondeg), nondeg)
    unmergeable = work.census()
    pieces = work.run()
    polygons, tris = [], []
    for piece in sorted(pieces.values(), key=lambda p: min(p.tris)):
        cs = piece.corners
        start = cs.index(min(cs))
        cs = cs[start:] + cs[:start]
        block = np.zeros((7, 3), np.float32)
        block[: len(cs)] = positions[cs]
        normal = _unit(_newell([pts[w] for w in cs]))
        members = sorted(piece.tris)
        polygons.append(ConvexPolygon(readonly(block, copy=False), len(cs),
                                      readonly(np.array(normal, np.float32), copy=False),
                                      len(tris), len(members)))
        tris.extend(members)
    partition._set(polygons, np.array(tris, np.int64), degenerate, unmergeable)
    return success(partition)
