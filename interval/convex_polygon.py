"""Exact rational predicates for convex polygon partitions: the oracle of ``convex_polygon.partition``.

Every quantity is a ``gmpy2.mpq`` read exactly from the float32 source positions; nothing here
reuses the fast path's merge algorithm. A claimed partition is checked as a brute-force
postcondition (CGAL's habit), polygon by polygon:

* **Membership.** Triangle numbers in range, each in at most one polygon, the polygons'
  ``[first, first + count)`` ranges disjoint and covering the triangle list.
* **Degeneracy.** A triangle with equal corners or zero exact area must be left out. With
  ``h`` its exact height (twice the area over the longest edge) and ``delta`` the documented
  tolerance of its corners, ``h > 2 delta`` must be in a polygon and ``h <= delta / 2`` must be
  out; between them either answer is accepted (the fast path decides in float64). The number
  left out must equal ``degenerate_triangle_count``.
* **Edges.** Over the triangles the claim keeps, an edge with more than two triangles or two
  of the same direction is unmergeable; their number must equal ``unmergeable_edge_count``,
  and no polygon may hold both triangles of such an edge (an edge is crossed when two of a
  polygon's triangles share it).
* **Tiling.** The directed edges of a polygon's triangles not cancelled by their reverse form
  exactly one simple cycle (the union's boundary loop). Each triangle faces the polygon's exact
  normal ``A`` (``a_t . A > 0``, ``A`` the exact Newell vector of the claimed corners), the
  triangles' exact area vectors sum to the loop's exactly, and so the triangles cover the
  region bounded by the loop exactly once (winding number argument in the projection along
  ``A``).
* **Corners.** 3 to 7 corners, each bitwise a source position (any index holding that value:
  equal values are one vertex), pairwise distinct, each on the loop, in its cyclic order. A loop vertex dropped from the
  corners must lie strictly between its two corners along their chord and within ``2 delta`` of
  it (exactly on it, and the polygon's area exactly the loop's, when every dropped vertex is
  exactly collinear).
* **Convex, counterclockwise, no three collinear.** ``A . ((c_{i+1} - c_i) x (w - c_i)) > 0``
  exactly for every edge and every corner ``w`` off it, and every corner lies more than
  ``delta / 2`` off its neighbours' chord (the fast path keeps a corner only beyond ``delta``).
* **Coplanar.** Every vertex of the polygon's triangles lies within ``2 delta`` of the plane
  through the corners' centroid with normal ``A`` (exactly on it when those vertices are exactly
  coplanar).
* **Normal.** The claimed normal has unit length within ``2^-20`` and lies within ``2^-18`` rad
  of ``A`` (a Rounded float32 quantity).
* **Maximal.** No two polygons that share a mergeable edge have a union that is *clearly* one
  valid polygon (:func:`exact_polygon_of` with margins: drops within ``delta / 2``, corner
  turns above ``2 delta``, plane distance within ``delta / 2``, facing cosine at least 3/5):
  the greedy stops only when no accepted merge is left. This is not minimality.

The tolerance is restated, not imported: ``delta(S) = max(2^-16 L, 2^-24 M)``, ``L`` the largest
bounding-box side of ``S``, ``M`` its largest coordinate magnitude (``docs/decisions.md``,
"Convex polygons: tolerances"); a test checks it against the fast path's constants.

:func:`exact_polygon_of` answers, for a set of triangles, the convex polygon their union forms
under the same rule at exactly ``delta`` (no band), or None: the exhaustive-search optimum of
``benchmarks/bench_convex_polygon.py`` is built from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence

import gmpy2

__all__ = [
    "BAND",
    "FLOOR_TOLERANCE",
    "MAX_VERTICES",
    "REL_TOLERANCE",
    "PartitionReport",
    "area_gap",
    "check_partition",
    "edge_census",
    "exact_polygon_of",
    "exact_positions",
    "exact_tolerance",
    "mergeable_adjacency",
    "triangle_height_ratio",
    "weld",
]

_q = gmpy2.mpq
REL_TOLERANCE = _q(1, 2**16)
FLOOR_TOLERANCE = _q(1, 2**24)
BAND = _q(2)
MAX_VERTICES = 7
_UNIT_LENGTH_TOL = _q(1, 2**20)
_ANGLE_TOL = _q(1, 2**18)


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def exact_positions(positions) -> list:
    """Each position as an exact ``(mpq, mpq, mpq)`` (raises on nonfinite values)."""
    out = []
    for p in positions:
        if len(p) != 3:
            raise ValueError("a position has three coordinates")
        out.append(tuple(_q(float(x)) for x in p))
    return out


def exact_tolerance(points) -> gmpy2.mpq:
    """``delta(S) = max(2^-16 L, 2^-24 M)`` exactly, for exact points ``S``."""
    ext = max(max(p[d] for p in points) - min(p[d] for p in points) for d in range(3))
    mag = max(abs(x) for p in points for x in p)
    return max(REL_TOLERANCE * ext, FLOOR_TOLERANCE * mag)


def weld(qpos) -> list:
    """Source index -> lowest source index of an equal position value (``-0 == +0``)."""
    first, rep = {}, []
    for i, p in enumerate(qpos):
        rep.append(first.setdefault(p, i))
    return rep


def triangle_height_ratio(a, b, c):
    """``(h / delta)^2`` of an exact triangle, or None when two corners coincide; 0 when the
    corners are collinear."""
    if a == b or b == c or a == c:
        return None
    cr = _cross(_sub(b, a), _sub(c, a))
    longest = max(_dot(d, d) for d in (_sub(b, a), _sub(c, b), _sub(a, c)))
    delta = exact_tolerance((a, b, c))
    return _dot(cr, cr) / (longest * delta * delta)


def edge_census(corners: dict):
    """Over triangles ``{t: (a, b, c)}`` (welded ids): ``(unmergeable, uses)`` where ``uses``
    maps an undirected edge to its ``[(u, v, t), ...]`` and ``unmergeable`` is the set of edges
    with more than two triangles or two of the same direction."""
    uses = {}
    for t, (a, b, c) in corners.items():
        for u, v in ((a, b), (b, c), (c, a)):
            uses.setdefault(frozenset((u, v)), []).append((u, v, t))
    bad = {e for e, lst in uses.items() if len(lst) > 2 or (len(lst) == 2 and lst[0][0] == lst[1][0])}
    return bad, uses


def mergeable_adjacency(corners: dict) -> dict:
    """``{t: set of triangles across a mergeable edge}`` for triangles ``{t: (a, b, c)}``."""
    bad, uses = edge_census(corners)
    adj = {t: set() for t in corners}
    for e, lst in uses.items():
        if len(lst) == 2 and e not in bad:
            adj[lst[0][2]].add(lst[1][2])
            adj[lst[1][2]].add(lst[0][2])
    return adj


@dataclass
class PartitionReport:
    """What :func:`check_partition` found.

    Attributes:
        failures: one dict per failed property (``{"property": ..., ...}``); empty when the
            claim holds.
        worst_ratio: the largest ``distance / delta`` over dropped loop vertices and plane
            distances (at most ``BAND`` when the claim holds), as a float.
        exact_planar_polygons: polygons whose triangle vertices are exactly coplanar.
        polygons: number of polygons checked.
    """

    failures: list = field(default_factory=list)
    worst_ratio: float = 0.0
    exact_planar_polygons: int = 0
    polygons: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures


def _ratio_float(r2) -> float:
    """``sqrt(r2)`` as a float for reporting (never decides anything)."""
    return float(gmpy2.sqrt(gmpy2.mpfr(r2)))


def _boundary_cycle(tris: Sequence[tuple]):
    """The union boundary of consistently oriented triangles as one vertex cycle, or a reason
    string when it is not one simple cycle."""
    directed = {}
    for a, b, c in tris:
        for u, v in ((a, b), (b, c), (c, a)):
            directed[(u, v)] = directed.get((u, v), 0) + 1
    nxt = {}
    for (u, v), k in directed.items():
        back = directed.get((v, u), 0)
        if k > 1:
            return "an edge is used twice in the same direction"
        if back:
            continue
        if u in nxt:
            return "the boundary passes a vertex twice"
        nxt[u] = v
    if not nxt:
        return "the triangles have no boundary"
    start = min(nxt)
    cycle, u = [start], nxt[start]
    while u != start:
        if u not in nxt or len(cycle) > len(nxt):
            return "the boundary is not closed"
        cycle.append(u)
        u = nxt[u]
    if len(cycle) != len(nxt):
        return "the boundary has more than one loop (a hole or two pieces)"
    return cycle


def _newell(pts):
    o = pts[0]
    n = (_q(0), _q(0), _q(0))
    for i in range(1, len(pts) - 1):
        n = _add(n, _cross(_sub(pts[i], o), _sub(pts[i + 1], o)))
    return n


def _strictly_convex(cpts, A) -> bool:
    k = len(cpts)
    for i in range(k):
        a, b = cpts[i], cpts[(i + 1) % k]
        e = _sub(b, a)
        for j in range(k):
            if j != i and j != (i + 1) % k and _dot(A, _cross(e, _sub(cpts[j], a))) <= 0:
                return False
    return True


def _dropped_ratio(w, a, b, delta):
    """``(dist(w, chord ab) / delta)^2`` when ``w`` projects strictly inside ``ab``, else None."""
    d = _sub(b, a)
    ww = _sub(w, a)
    t = _dot(ww, d)
    dd = _dot(d, d)
    if not 0 < t < dd:
        return None
    c = _cross(ww, d)
    return _dot(c, c) / (dd * delta * delta)


def check_partition(positions, indices, polygons, triangles, degenerate_count, unmergeable_count
                    ) -> PartitionReport:
    """Check a claimed partition of a valid mesh against the exact predicates above.

    Args:
        positions: sequence of (x, y, z) float32 values (as floats).
        indices: flat sequence of ints, ``3m`` of them, each in ``[0, len(positions))``.
        polygons: sequence of dicts ``{"positions": [[x, y, z], ...], "normal": [x, y, z],
            "first_triangle": int, "triangle_count": int}`` (floats).
        triangles: the partition's triangle list (source triangle numbers).
        degenerate_count, unmergeable_count: the claimed counts.

    Returns:
        A :class:`PartitionReport`; ``ok`` only when every property holds exactly.
    """
    rep = PartitionReport()
    fail = rep.failures.append
    qpos = exact_positions(positions)
    ids = weld(qpos)
    T = len(indices) // 3
    corners = [tuple(ids[int(indices[3 * t + k])] for k in range(3)) for t in range(T)]
    # Membership.
    tri_list = [int(t) for t in triangles]
    if any(not 0 <= t < T for t in tri_list) or len(set(tri_list)) != len(tri_list):
        fail({"property": "membership", "reason": "triangle numbers out of range or repeated"})
        return rep
    covered = [False] * len(tri_list)
    members = []
    for k, poly in enumerate(polygons):
        f, n = int(poly["first_triangle"]), int(poly["triangle_count"])
        if n < 1 or f < 0 or f + n > len(tri_list) or any(covered[f:f + n]):
            fail({"property": "membership", "polygon": k, "reason": "triangle range empty, outside or overlapping"})
            return rep
        covered[f:f + n] = [True] * n
        members.append(tri_list[f:f + n])
    if not all(covered):
        fail({"property": "membership", "reason": "triangle list entries belong to no polygon"})
        return rep
    kept = set(tri_list)
    # Degeneracy.
    for t in range(T):
        a, b, c = (qpos[i] for i in corners[t])
        r = triangle_height_ratio(a, b, c)
        if t in kept and (r is None or r == 0):
            fail({"property": "degenerate", "triangle": t, "reason": "a degenerate triangle is in a polygon"})
        elif t in kept and r <= 1 / (BAND * BAND):
            fail({"property": "degenerate", "triangle": t, "reason": "height <= delta/2 but kept",
                  "height_over_delta": _ratio_float(r)})
        elif t not in kept and r is not None and r > BAND * BAND:
            fail({"property": "degenerate", "triangle": t, "reason": "height > 2 delta but left out",
                  "height_over_delta": _ratio_float(r)})
    if T - len(kept) != int(degenerate_count):
        fail({"property": "degenerate_count", "expected": T - len(kept), "claimed": int(degenerate_count)})
    # Edges.
    kept_corners = {t: corners[t] for t in kept}
    bad, uses = edge_census(kept_corners)
    if len(bad) != int(unmergeable_count):
        fail({"property": "unmergeable_count", "expected": len(bad), "claimed": int(unmergeable_count)})
    all_planar = _coplanar_exactly([qpos[i] for t in kept for i in corners[t]])
    bits = _bits_table(positions, ids)
    for k, (poly, mem) in enumerate(zip(polygons, members)):
        _check_polygon(k, poly, mem, corners, bits, qpos, bad, uses, all_planar, rep)
    rep.polygons = len(polygons)
    if not rep.failures:
        _check_maximal(members, corners, qpos, bad, uses, rep)
    return rep


# The margins of "clearly mergeable": drops within delta/2, corners turning by more than
# 2 delta, vertices within delta/2 of the plane, triangles within acos(3/5) (53 degrees) of the
# normal. Any union that passes these passes the fast path's own tests at delta, cos 1/2.
_CLEAR = dict(drop=_q(1, 2), turn=_q(2), plane=_q(1, 2), facing=_q(3, 5))


def _check_maximal(members, corners, qpos, bad, uses, rep):
    """No two polygons that share a mergeable edge have a union that is clearly one valid
    polygon (the greedy merges until no accepted merge is left)."""
    owner = {t: k for k, mem in enumerate(members) for t in mem}
    pairs = set()
    for e, lst in uses.items():
        if len(lst) == 2 and e not in bad:
            a, b = owner.get(lst[0][2]), owner.get(lst[1][2])
            if a is not None and b is not None and a != b:
                pairs.add((min(a, b), max(a, b)))
    for a, b in sorted(pairs):
        union = set(members[a]) | set(members[b])
        if any(sum(1 for x in uses[e] if x[2] in union) > 1 for e in bad):
            continue  # would cross an unmergeable edge
        keep = exact_polygon_of(qpos, [corners[t] for t in sorted(union)], **_CLEAR)
        if keep is not None:
            rep.failures.append({"property": "maximal", "polygons": [a, b], "union_corners": len(keep),
                                 "reason": "two adjacent polygons clearly form one valid polygon"})
            return


def _bits_table(positions, ids) -> dict:
    """Hex-float triple of every source position -> its welded id (a corner may copy any source
    position of its value: equal values at different indices are one vertex)."""
    return {tuple(float(x).hex() for x in p): ids[i] for i, p in enumerate(positions)}


def _coplanar_exactly(pts) -> bool:
    if len(pts) < 4:
        return True
    o = pts[0]
    normal = None
    for i in range(1, len(pts)):
        for j in range(i + 1, len(pts)):
            c = _cross(_sub(pts[i], o), _sub(pts[j], o))
            if c != (0, 0, 0):
                normal = c
                break
        if normal is not None:
            break
    if normal is None:
        return True
    return all(_dot(normal, _sub(p, o)) == 0 for p in pts)


def _check_polygon(k, poly, mem, corners, bits, qpos, bad, uses, all_planar, rep):
    fail = rep.failures.append
    tris = [corners[t] for t in mem]
    # Crossed edges: an edge two of this polygon's triangles share must be mergeable.
    mine = set(mem)
    for t in mem:
        a, b, c = corners[t]
        for u, v in ((a, b), (b, c), (c, a)):
            e = frozenset((u, v))
            inside = [x for x in uses[e] if x[2] in mine]
            if len(inside) > 1 and e in bad:
                fail({"property": "unmergeable_crossed", "polygon": k, "edge": sorted(e)})
                return
    cycle = _boundary_cycle(tris)
    if isinstance(cycle, str):
        fail({"property": "tiling", "polygon": k, "reason": cycle})
        return
    verts = poly["positions"]
    if not 3 <= len(verts) <= MAX_VERTICES:
        fail({"property": "vertex_count", "polygon": k, "count": len(verts)})
        return
    # Corners: bitwise source positions of this polygon's triangles, in loop order.
    cids = []
    for v in verts:
        hexkey = tuple(float(x).hex() for x in v)
        if len(hexkey) != 3 or hexkey not in bits:
            fail({"property": "bitwise_positions", "polygon": k, "vertex": list(hexkey)})
            return
        cids.append(bits[hexkey])
    if len(set(cids)) != len(cids):
        fail({"property": "corners", "polygon": k, "reason": "a corner repeats"})
        return
    pos_in_cycle = {w: i for i, w in enumerate(cycle)}
    if any(c not in pos_in_cycle for c in cids):
        fail({"property": "corners", "polygon": k, "reason": "a corner is not on the boundary loop"})
        return
    L = len(cycle)
    start = pos_in_cycle[cids[0]]
    offsets = [(pos_in_cycle[c] - start) % L for c in cids]
    if offsets != sorted(offsets):
        fail({"property": "ccw", "polygon": k, "reason": "corners are not in the boundary loop's order"})
        return
    cpts = [qpos[c] for c in cids]
    A = _newell(cpts)
    allpts = [qpos[i] for t in mem for i in corners[t]]
    delta = exact_tolerance(allpts)
    if A == (0, 0, 0) or not _strictly_convex(cpts, A):
        fail({"property": "convex", "polygon": k, "reason": "not strictly convex counterclockwise about its normal"})
        return
    AA = _dot(A, A)
    for r in range(len(cpts)):
        a, b, c = cpts[r - 1], cpts[r], cpts[(r + 1) % len(cpts)]
        left = _dot(A, _cross(_sub(b, a), _sub(c, a)))  # |A| * 2 area(a, b, c) > 0 (convex)
        if 4 * left * left <= delta * delta * _dot(_sub(c, a), _sub(c, a)) * AA:
            fail({"property": "collinear", "polygon": k, "corner": r,
                  "reason": "a corner within delta / 2 of its neighbours' chord (nearly three collinear)"})
            return
    for t in mem:
        a, b, c = (qpos[i] for i in corners[t])
        if _dot(_cross(_sub(b, a), _sub(c, a)), A) <= 0:
            fail({"property": "tiling", "polygon": k, "triangle": t, "reason": "a triangle faces away"})
            return
    # Area: the triangles' exact area vectors sum to the loop's.
    loop_pts = [qpos[w] for w in cycle]
    total = (_q(0), _q(0), _q(0))
    for a, b, c in tris:
        total = _add(total, _cross(_sub(qpos[b], qpos[a]), _sub(qpos[c], qpos[a])))
    if total != _newell(loop_pts):
        fail({"property": "tiling", "polygon": k, "reason": "area vectors differ"})  # pragma: no cover
        return
    # Dropped loop vertices.
    worst2 = _q(0)
    all_exact = True
    for r in range(len(cids)):
        i0 = pos_in_cycle[cids[r]]
        i1 = pos_in_cycle[cids[(r + 1) % len(cids)]]
        a, b = qpos[cids[r]], qpos[cids[(r + 1) % len(cids)]]
        i = (i0 + 1) % L
        while i != i1:
            r2 = _dropped_ratio(qpos[cycle[i]], a, b, delta)
            if r2 is None or r2 > BAND * BAND:
                fail({"property": "collinear", "polygon": k, "vertex": [float(x).hex() for x in
                                                                         (float(y) for y in qpos[cycle[i]])],
                      "reason": "a dropped vertex is off its chord beyond 2 delta or outside it"})
                return
            worst2 = max(worst2, r2)
            all_exact = all_exact and r2 == 0
            i = (i + 1) % L
    if all_exact and A != _newell(loop_pts):
        fail({"property": "tiling", "polygon": k,  # pragma: no cover
              "reason": "exactly collinear drops changed the area"})
        return
    # Coplanarity.
    n = len(cpts)
    centre = tuple(sum(p[d] for p in cpts) / n for d in range(3))
    planar_here = _coplanar_exactly(allpts)
    for p in allpts:
        h = _dot(A, _sub(p, centre))
        r2 = h * h / (AA * delta * delta)
        if r2 > BAND * BAND or (all_planar and h != 0):
            fail({"property": "coplanar", "polygon": k, "distance_over_delta": _ratio_float(r2)})
            return
        worst2 = max(worst2, r2)
    rep.exact_planar_polygons += planar_here
    # Normal (Rounded).
    nv = tuple(_q(float(x)) for x in poly["normal"])
    nn = _dot(nv, nv)
    dotA = _dot(nv, A)
    sin2 = _dot(_cross(nv, A), _cross(nv, A)) / (nn * AA) if nn else _q(1)
    if abs(nn - 1) > _UNIT_LENGTH_TOL or dotA <= 0 or sin2 > _ANGLE_TOL * _ANGLE_TOL:
        fail({"property": "normal", "polygon": k, "reason": "normal not unit or not along the exact normal"})
        return
    rep.worst_ratio = max(rep.worst_ratio, _ratio_float(worst2))


def exact_polygon_of(qpos, tri_corners: Sequence[tuple], *, drop=_q(1), turn=_q(1), plane=_q(1),
                     facing=_q(1, 2)) -> list | None:
    """The corners (welded ids, counterclockwise) of the convex polygon that triangles
    ``tri_corners`` (welded ids into exact positions ``qpos``) form under the documented rule,
    decided exactly: the boundary is one simple cycle; a loop vertex is dropped when it and the
    other dropped vertices between its neighbours lie within ``drop * delta`` of their chord and
    inside it; the rest (3 to 7) are strictly convex with every corner more than ``turn *
    delta`` off its neighbours' chord; every vertex lies within ``plane * delta`` of the plane
    (corner centroid, exact Newell normal ``A``); every triangle faces ``A`` with cosine at
    least ``facing``. With the defaults this is the fast path's rule at exactly ``delta`` (the
    benchmark's optimum); the maximality check asks for a clear margin. None when they do not
    form one. (Whether shared edges are mergeable is the caller's business.)"""
    cycle = _boundary_cycle(tri_corners)
    if isinstance(cycle, str):
        return None
    allpts = [qpos[i] for t in tri_corners for i in t]
    delta = exact_tolerance(allpts)
    total = (_q(0), _q(0), _q(0))
    for a, b, c in tri_corners:
        total = _add(total, _cross(_sub(qpos[b], qpos[a]), _sub(qpos[c], qpos[a])))
    if total == (0, 0, 0):
        return None
    # Drop a loop vertex when every loop vertex between its two remaining neighbours lies
    # within delta of their chord and strictly inside it; repeat until nothing drops.
    L = len(cycle)

    def spans(ia, ib):
        a, b = qpos[cycle[ia]], qpos[cycle[ib]]
        i = (ia + 1) % L
        while i != ib:
            r2 = _dropped_ratio(qpos[cycle[i]], a, b, delta)
            if r2 is None or r2 > drop * drop:
                return False
            i = (i + 1) % L
        return True

    idx = list(range(L))
    changed = True
    while changed and len(idx) > 3:
        changed = False
        for r in range(len(idx)):
            if spans(idx[r - 1], idx[(r + 1) % len(idx)]):
                del idx[r]
                changed = True
                break
    keep = [cycle[i] for i in idx]
    if not 3 <= len(keep) <= MAX_VERTICES:
        return None
    cpts = [qpos[w] for w in keep]
    A = _newell(cpts)
    if A == (0, 0, 0) or not _strictly_convex(cpts, A):
        return None
    AA = _dot(A, A)
    for r in range(len(keep)):
        a, b, c = cpts[r - 1], cpts[r], cpts[(r + 1) % len(keep)]
        left = _dot(A, _cross(_sub(b, a), _sub(c, a)))
        if left * left <= turn * turn * delta * delta * _dot(_sub(c, a), _sub(c, a)) * AA:
            return None
    n = len(cpts)
    centre = tuple(sum(p[d] for p in cpts) / n for d in range(3))
    for p in allpts:
        h = _dot(A, _sub(p, centre))
        if h * h > plane * plane * delta * delta * AA:
            return None
    for a, b, c in tri_corners:
        cr = _cross(_sub(qpos[b], qpos[a]), _sub(qpos[c], qpos[a]))
        d = _dot(cr, A)
        if d <= 0 or d * d < facing * facing * _dot(cr, cr) * AA:
            return None
    return keep


def area_gap(corner_pts, tri_pts, prec: int = 113):
    """How far a polygon's area is from its source triangles' (a measure, never a decision).

    Args:
        corner_pts: the polygon's corners, exact ``(mpq, mpq, mpq)``, in loop order.
        tri_pts: its triangles, each three exact points.
        prec: bits of the square roots.

    Returns:
        ``(gap, delta, perimeter)`` as floats: ``gap = |area(corners) - sum area(triangles)|``
        (areas are half the norms of the exact Newell vectors, rounded at ``prec`` bits: an
        Estimated value), ``delta`` the documented tolerance of the triangles' vertices (exact,
        rounded once), ``perimeter`` the corners' loop length. Dropping a vertex within
        ``delta`` of its chord, along a chain monotone over that chord, moves the area by at most
        ``delta`` times the chord, so ``gap / (delta * perimeter)`` is at most about 1 (2 at the
        oracle's band) for exactly planar triangles.
    """
    with gmpy2.context(gmpy2.get_context(), precision=prec):
        def norm(v):
            return gmpy2.sqrt(gmpy2.mpfr(_dot(v, v)))

        poly = norm(_newell(list(corner_pts))) / 2
        tris = sum((norm(_cross(_sub(b, a), _sub(c, a))) for a, b, c in tri_pts), gmpy2.mpfr(0)) / 2
        k = len(corner_pts)
        perimeter = sum((norm(_sub(corner_pts[(i + 1) % k], corner_pts[i])) for i in range(k)), gmpy2.mpfr(0))
        delta = exact_tolerance([p for t in tri_pts for p in t])
        return float(abs(poly - tris)), float(delta), float(perimeter)
