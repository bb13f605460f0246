"""The triangle family's corpus: meshes, tolerances and segments (float64 data), named corner
cases first, then adversarial ones, then random ones.

* Named cases: the book cube (``cube_mesh``, docs/decisions.md "Triangle surfaces (spec 004): the
  book cube"): the crossing at t = 5/16, an edge tie, a vertex, an inside start, a miss, a
  coplanar segment, a near edge, endpoint contacts, reversed winding, scaled 1e-100 to 1e100 and
  translated copies.
* Adversarial cases (deterministic in the seed): one exact boundary quantity of a facet placed
  mid-band, just beyond the miss boundary or at the tolerance (the segment moved in whole ulps,
  the value read from the rational oracle, never from the fast path's arithmetic), near-parallel
  segments, coplanar touching, duplicate facets, powers of two, far origins, the smallest
  tolerance, surfaces admission must reject, far contact offsets and a hierarchy tie.
* Random cases cycling through the kinds random, near_edge, near_vertex, near_parallel, grazing,
  scaled, shared_edge, integer and sliver.

``oracles.families.triangle.requests`` turns each case into a request (``TriangleSurface::new``,
then ``first_hit``) and decides what the spec demands of it.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import gmpy2
import numpy as np

from interval.triangle import exact_facet, segment_contact
from reference.triangle_surface import BVH_MIN_TRIANGLES, SurfaceStamp

from ...model import enc

__all__ = [
    "TriangleCase",
    "case_inputs",
    "case_stamp",
    "cube_mesh",
    "first_hit_inputs",
    "generate",
    "hex_points",
    "hierarchy_ambiguity_case",
    "named_cases",
    "nudge",
    "point_on_facet",
    "random_cases",
    "segment_through",
    "stamp_json",
]

_mpq = gmpy2.mpq

# --- cases and builders ------------------------------------------------------------------


@dataclass(frozen=True)
class TriangleCase:
    """One query: a mesh, a tolerance and a segment (float64 data)."""

    name: str
    vertices: np.ndarray
    triangles: np.ndarray
    start: np.ndarray
    end: np.ndarray
    tolerance: float = 1e-12


def cube_mesh(scale: float = 1.0, offset=(0.0, 0.0, 0.0), reverse: bool = False):
    """The cube ``offset + scale [0, 1]^3`` as 8 vertices and 12 triangles, counter-clockwise
    seen from outside (outward normals), or inward with ``reverse``. Vertex ``4x + 2y + z``."""
    off = np.asarray(offset, dtype=np.float64)
    verts = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float64) * scale + off
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    tris = np.array(tris, dtype=np.int64)
    return verts, (tris[:, ::-1].copy() if reverse else tris)


def point_on_facet(a, b, c, w) -> np.ndarray:
    """``w0 a + w1 b + w2 c`` in float64 (a point near the facet; rounding moves it slightly)."""
    w = np.asarray(w, dtype=np.float64)
    return w[0] * np.asarray(a) + w[1] * np.asarray(b) + w[2] * np.asarray(c)


def segment_through(point, direction, before: float, after: float):
    """``(point - before d, point + after d)`` in float64."""
    p, d = np.asarray(point, dtype=np.float64), np.asarray(direction, dtype=np.float64)
    return p - before * d, p + after * d


def nudge(x, ulps) -> np.ndarray:
    """``x`` moved by ``ulps`` (an int per component, any sign) float64 steps."""
    x = np.array(x, dtype=np.float64)
    for i, k in enumerate(np.broadcast_to(np.asarray(ulps, dtype=np.int64), x.shape)):
        for _ in range(abs(int(k))):
            x[i] = np.nextafter(x[i], np.inf if k > 0 else -np.inf)
    return x


def hex_points(x) -> list:
    """:func:`~oracles.model.enc` of a float64 array, faster for finite values (``float.hex``)."""
    a = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        return enc(a)
    return [[v.hex() for v in row] for row in a.tolist()] if a.ndim == 2 else [v.hex() for v in a.tolist()]


def case_inputs(case: TriangleCase) -> dict:
    """The inputs every triangle row reads: mesh, tolerance and segment (exact hex)."""
    return {"vertices": hex_points(case.vertices),
            "triangles": np.asarray(case.triangles, dtype=np.int64).tolist(),
            "tolerance": enc(float(case.tolerance)), "start": hex_points(case.start), "end": hex_points(case.end)}


def case_stamp(case: TriangleCase) -> SurfaceStamp:
    """The caller's stamp of a corpus case's surface: an identity derived from the case (so
    different cases carry different ones, as a caller's distinct objects would) and version 1."""
    name = case.name.encode() + np.asarray(case.vertices, dtype=np.float64).tobytes()
    return SurfaceStamp(zlib.crc32(name) * 2**32 + zlib.crc32(name[::-1]), 1)


def stamp_json(stamp: SurfaceStamp) -> dict:
    return {"identity": int(stamp.identity), "version": int(stamp.version)}


def first_hit_inputs(case: TriangleCase, stamp: SurfaceStamp | None = None) -> dict:
    """The first_hit row's inputs: :func:`case_inputs` and the stamp the surface was made with
    (spec 004: the query answers with the caller's identity/version, hit or miss)."""
    return {**case_inputs(case), "stamp": stamp_json(case_stamp(case) if stamp is None else stamp)}


# --- corpus -----------------------------------------------------------------------------------


def _unit(rng, n=3):
    v = rng.standard_normal(n)
    return v / np.linalg.norm(v)


def _random_mesh(rng, n, scale=1.0, offset=0.0, integer=False):
    if integer:
        verts = rng.integers(-4, 5, size=(3 * n, 3)).astype(np.float64)
    else:
        verts = rng.uniform(-1, 1, size=(3 * n, 3))
    return verts * scale + offset, np.arange(3 * n, dtype=np.int64).reshape(n, 3)


def _named_cases() -> list[TriangleCase]:
    V, T = cube_mesh()
    s, e = np.array([-0.625, 0.25, 0.625]), np.array([1.375, 0.25, 0.625])
    cases = [TriangleCase("cube crossing t=5/16", V, T, s, e),
             TriangleCase("cube edge tie", V, T, np.array([-1.0, -1, 0.5]), np.array([1.0, 1, 0.5])),
             TriangleCase("cube vertex", V, T, np.array([-1.0, -1, -1]), np.array([1.0, 1, 1])),
             TriangleCase("cube inside start", V, T, np.array([0.5, 0.5, 0.5]), np.array([1.5, 0.5, 0.5])),
             TriangleCase("cube miss", V, T, np.array([-1.0, 2, 2]), np.array([2.0, 2, 2])),
             TriangleCase("cube coplanar", V, T, np.array([-1.0, 0.5, 0]), np.array([2.0, 0.5, 0])),
             TriangleCase("cube near edge", V, T, np.array([-1.0, 0.5, 1e-13]), np.array([2.0, 0.5, 1e-13])),
             TriangleCase("cube endpoint start", V, T, np.array([0.0, 0.25, 0.625]), np.array([-1.0, 0.25, 0.625])),
             TriangleCase("cube endpoint end", V, T, np.array([-1.0, 0.25, 0.625]), np.array([0.0, 0.25, 0.625]))]
    Vr, Tr = cube_mesh(reverse=True)
    cases.append(TriangleCase("reversed cube", Vr, Tr, s, e))
    for k in (-100, -50, 0, 50, 100):
        sc = 10.0**k
        Vs, Ts = cube_mesh(scale=sc, offset=(3 * sc, -5 * sc, 7 * sc))
        cases.append(TriangleCase(f"cube 1e{k} translated", Vs, Ts, s * sc + np.array([3, -5, 7]) * sc,
                                  e * sc + np.array([3, -5, 7]) * sc))
    Vt, Tt = cube_mesh(offset=(1024.0, -2048.0, 512.0))
    cases.append(TriangleCase("cube translated", Vt, Tt, s + Vt[0], e + Vt[0]))
    return cases


# --- adversarial cases: bands, near-parallel overlaps, ties, admission --------------------------------
#
# Placed right after the named cases, deterministic in the seed. The band cases put one exact
# boundary quantity of a facet at a chosen value (mid-band, just below the tolerance, just outside
# the miss boundary) by translating the segment in whole ulps and reading the exact value from the
# rational oracle: nothing here uses the fast path's arithmetic.

_BAND_QUANTITIES = ("t", "1 - t", "weight 0", "weight 1", "weight 2")


def _exact_quantity(verts, tri, s, e, name: str):
    """The exact boundary quantity ``name`` of facet ``tri`` for segment ``s -> e`` (None when the
    segment is exactly parallel to the facet's plane)."""
    c = segment_contact(exact_facet(*(verts[i] for i in tri)), s, e)
    if c.parallel:
        return None
    if name == "t":
        return c.t
    if name == "1 - t":
        return 1 - c.t
    return c.bary[int(name[-1])]


def _tune(verts, tri, s, e, name: str, target: float, below: bool):
    """Move the segment's endpoints by whole ulps so that the exact quantity lands at or just
    below ``target`` (``below``: as close under it as a search finds), or nearest to it.

    The quantity is nearly affine in the two endpoints' shifts: moving ``s`` by ``i`` ulps along
    one axis and ``e`` by ``j`` ulps along another changes it by about ``a i + b j``. A coarse
    translation first brings it near the target, then a search over ``i`` with the best ``j``
    for each reaches far below one ulp's effect (the lattice ``a i + b j`` is dense), and the
    best few candidates are confirmed on exact values. Returns ``(s, e)``."""
    goal = _mpq(target)
    facet = exact_facet(*(verts[i] for i in tri))

    def value(s2, e2):
        c = segment_contact(facet, s2, e2)
        if c.parallel:
            return None
        return c.t if name == "t" else 1 - c.t if name == "1 - t" else c.bary[int(name[-1])]

    def moved(p, axis, n):
        q = p.copy()
        q[axis] = q[axis] + n * math.ulp(max(abs(p[axis]), 2.0**-40))
        return q

    x0 = value(s, e)
    if x0 is None:
        return s, e
    # Coarse: translate the whole segment along its most effective axis.
    best = None
    for axis in range(3):
        x1 = value(moved(s, axis, 1024), moved(e, axis, 1024))
        if x1 is not None and x1 != x0 and (best is None or abs(x1 - x0) > abs(best[1])):
            best = (axis, (x1 - x0) / 1024)
    if best is None:
        return s, e
    axis, slope = best
    for _ in range(3):
        n = int((goal - x0) / slope)
        s, e = moved(s, axis, n), moved(e, axis, n)
        x0 = value(s, e)
        if x0 is None or abs(goal - x0) < 64 * abs(slope):
            break
    if x0 is None:
        return s, e
    # Fine: the slopes of each endpoint's most effective axis.
    slopes = []
    for which in (0, 1):
        cand = None
        for ax in range(3):
            s2, e2 = (moved(s, ax, 256), e) if which == 0 else (s, moved(e, ax, 256))
            x1 = value(s2, e2)
            if x1 is not None and x1 != x0 and (cand is None or abs(x1 - x0) > abs(cand[1])):
                cand = (ax, (x1 - x0) / 256)
        if cand is None:
            return s, e
        slopes.append(cand)
    (ax_s, a_), (ax_e, b_) = slopes
    # The search ranks candidates in floats (relative to the gap, so without cancellation);
    # the best are confirmed on exact values below.
    gap0, fa, fb = float(goal - x0), float(a_), float(b_)
    scored = []
    for i in range(-300, 301):
        j = (gap0 - fa * i) / fb
        for jj in (math.floor(j), math.floor(j) + 1) if below else (round(j),):
            rest = gap0 - fa * i - fb * jj
            if below and rest < 0:
                continue
            scored.append((abs(rest), i, jj))
    scored.sort()
    pick, pick_gap = (s, e), (goal - x0 if (not below or x0 <= goal) else None)
    for _, i, jj in scored[:12]:
        s2, e2 = moved(s, ax_s, i), moved(e, ax_e, jj)
        x = value(s2, e2)
        if x is None or (below and x > goal):
            continue
        gap = abs(goal - x)
        if pick_gap is None or gap < pick_gap:
            pick, pick_gap = (s2, e2), gap
    return pick


def _facet(rng, sliver) -> np.ndarray:
    """Three vertices near the origin: a generic facet, or a sliver (normalized cross product
    between about 1e-3 and 3e-2, so that the normal's rounding error is large but bounded;
    ``sliver`` a number ``k``: between ``10^k`` and ``10^(k + 1)``)."""
    a = rng.uniform(-1, 1, 3)
    b = a + _unit(rng) * rng.uniform(0.5, 1.5)
    if sliver:
        perp = np.cross(b - a, _unit(rng))
        perp /= np.linalg.norm(perp)
        c = a + (b - a) * rng.uniform(0.2, 0.8) + perp * np.linalg.norm(b - a) * 10.0 ** (
            rng.uniform(-3, -1.5) if sliver is True else rng.uniform(sliver, sliver + 1))
    else:
        c = a + _unit(rng) * rng.uniform(0.5, 1.5)
        if np.linalg.norm(np.cross(b - a, c - a)) < 0.1:
            c = a + np.cross(b - a, _unit(rng))
    return np.array([a, b, c])


def _witness(p, direction) -> np.ndarray:
    """A large facet perpendicular to ``direction`` around ``p`` (a clean crossing)."""
    u1 = np.cross(direction, [1.0, 0.0, 0.0] if abs(direction[0]) < 0.9 else [0.0, 1.0, 0.0])
    u1 /= np.linalg.norm(u1)
    u2 = np.cross(direction, u1)
    return np.array([p + 3 * u1, p - 1.5 * u1 + 2.6 * u2, p - 1.5 * u1 - 2.6 * u2])


def _band_case(rng, name: str, where: str, tol: float, sliver, long: bool = False) -> TriangleCase:
    """One facet with boundary quantity ``name`` placed ``where`` ("mid": tol/2 inside the band,
    "out": -tol/2 just beyond the boundary, "edge": at or just below tol), and a second facet the
    segment crosses cleanly (so a policy that publishes another facet's hit shows). ``long``: a
    segment a thousand times the facet's size at a shallow angle (5 to 15 degrees), where the
    parameter's error, carried along d, dominates the weights' error."""
    F = _facet(rng, sliver)
    nrm = np.cross(F[1] - F[0], F[2] - F[0])
    nrm /= np.linalg.norm(nrm)
    d = _unit(rng)
    if long:
        d = d - (d @ nrm) * nrm
        d = d / np.linalg.norm(d) + nrm * math.tan(math.radians(rng.uniform(5, 15)))
        d = d / np.linalg.norm(d) * rng.uniform(800, 3000)
    else:
        if abs(d @ nrm) < 0.3:
            d = d + nrm * (0.6 if d @ nrm >= 0 else -0.6)
            d /= np.linalg.norm(d)
        d = d * rng.uniform(0.5, 2.0)
    target = {"mid": tol / 2, "out": -tol / 2, "edge": tol}[where]
    if name.startswith("weight"):
        k = int(name[-1])
        r = rng.uniform(0.2, 0.8)
        w = np.empty(3)
        w[k], w[(k + 1) % 3], w[(k + 2) % 3] = target, r * (1 - target), (1 - r) * (1 - target)
        t0 = rng.uniform(0.2, 0.8)
    else:
        w = rng.dirichlet([4, 4, 4])
        t0 = target if name == "t" else 1 - target
    p = point_on_facet(*F, w)
    s, e = p - t0 * d, p + (1 - t0) * d
    pw = s + (0.6 if t0 < 0.5 else 0.3) * (e - s)
    W = _witness(pw, d / np.linalg.norm(d))
    first = rng.random() < 0.5  # the band facet first or second
    verts = np.vstack([F, W] if first else [W, F])
    tris = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.int64)
    band = tris[0] if first else tris[1]
    s, e = _tune(verts, band, s, e, name, target, below=(where == "edge"))
    kind = ("sliver" if sliver is True else f"sliver 1e{sliver}" if sliver else "generic") + (", long" if long else "")
    return TriangleCase(f"band {name} {where} ({kind}, tol {tol:.0e})", verts, tris, s, e, tol)


def _near_parallel_case(rng, tol: float, factor: float) -> TriangleCase:
    """A segment at angle ``factor * tol`` to a facet's plane, crossing its interior."""
    F = _facet(rng, False)
    nrm = np.cross(F[1] - F[0], F[2] - F[0])
    nrm /= np.linalg.norm(nrm)
    d = _unit(rng)
    d = d - (d @ nrm) * nrm
    d = d / np.linalg.norm(d) + nrm * factor * tol
    p = point_on_facet(*F, rng.dirichlet([4, 4, 4]))
    s, e = segment_through(p, d, rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5))
    return TriangleCase(f"near-parallel x{factor} tol {tol:.0e}", F, np.array([[0, 1, 2]]), s, e, tol)


def _far_offset_case(rng, factor: float) -> TriangleCase:
    """A segment a million times the facet's size, crossing its interior at an angle just above
    the near-parallel band (``factor`` times the heights' rounding term, smallest tolerance): the
    computed parameter's error, carried along d, puts the computed contact offset far from the
    facet although the exact crossing is well inside it (a far offset that must be ambiguous)."""
    F = _facet(rng, False)
    nrm = np.cross(F[1] - F[0], F[2] - F[0])
    nrm /= np.linalg.norm(nrm)
    d = _unit(rng)
    d = d - (d @ nrm) * nrm
    d /= np.linalg.norm(d)
    tol = 32 * 2.0**-52
    # Band: tol |d| + 4 (eta_s + eta_e) with eta ~ 120u |w| and |w| ~ |d| / 2 at each end.
    sin_a = factor * (tol + 4 * 120 * 2.0**-53)
    p = point_on_facet(*F, rng.dirichlet([4, 4, 4]))
    length = 1e6
    s, e = segment_through(p, (d + nrm * sin_a) * length, 0.5, 0.5)
    return TriangleCase(f"far offset x{factor}", F, np.array([[0, 1, 2]]), s, e, tol)


def _hierarchy_tie_case() -> TriangleCase:
    """Enough facets that the query runs through the facet hierarchy (``BVH_MIN_TRIANGLES``), all
    meeting the segment's box: facet 0 and the last facet are bitwise duplicates crossed first
    (an exact tie, which keeps facet 0); the others are crossed outside their triangle."""
    n = BVH_MIN_TRIANGLES + 64
    s, e = np.array([-1.0, 0.25, 0.625]), np.array([3.0, 0.25, 0.625])
    verts, tris = [], []
    for k in range(n):
        if k in (0, n - 1):
            x, tri = 0.0, [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]  # contains (y, z) = (1/4, 5/8)
        else:
            x, tri = 0.5 + k / (2 * n), [(1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]  # y + z >= 1: misses
        verts += [(x, y, z) for y, z in tri]
        tris.append([3 * k, 3 * k + 1, 3 * k + 2])
    return TriangleCase(f"hierarchy tie ({n} facets)", np.array(verts), np.array(tris, dtype=np.int64), s, e)


def hierarchy_ambiguity_case() -> TriangleCase:
    """:func:`_hierarchy_tie_case`'s segment through enough facets that the query runs through the
    facet hierarchy: facet 0 is crossed first, cleanly; facet ``n // 2`` lies in the segment's
    plane ``z = 5/8`` and contains a piece of it (an exact coplanar overlap, which rejects the whole
    query although facet 0's hit comes first); the others are crossed outside their triangle."""
    n = BVH_MIN_TRIANGLES + 64
    s, e = np.array([-1.0, 0.25, 0.625]), np.array([3.0, 0.25, 0.625])
    verts, tris = [], []
    for k in range(n):
        if k == 0:
            verts += [(0.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
        elif k == n // 2:
            verts += [(1.0, 0.0, 0.625), (2.0, 0.0, 0.625), (1.5, 1.0, 0.625)]
        else:
            x = 0.5 + k / (2 * n)
            verts += [(x, 1.0, 1.0), (x, 1.0, 0.0), (x, 0.0, 1.0)]  # y + z >= 1: misses
        tris.append([3 * k, 3 * k + 1, 3 * k + 2])
    return TriangleCase(f"coplanar overlap among {n} facets (the facet hierarchy)", np.array(verts),
                        np.array(tris, dtype=np.int64), s, e)


def _adversarial_cases(seed: int) -> list[TriangleCase]:
    rng = np.random.default_rng([seed, 4005])
    cases = []
    for name in _BAND_QUANTITIES:
        for tol in (1e-9, 1e-6):
            for where in ("mid", "out", "edge"):
                cases.append(_band_case(rng, name, where, tol, sliver=False))
        for tol in (1e-9, 1e-6, 1e-4):
            cases.append(_band_case(rng, name, "edge", tol, sliver=True))
        cases.append(_band_case(rng, name, "mid", 1e-6, sliver=True))
        cases.append(_band_case(rng, name, "edge", 1e-12, sliver=False))
        for _ in range(2):
            cases.append(_band_case(rng, name, "edge", 1e-6, sliver=False, long=True))
        # On slivers just above the admission threshold the normal's own error (about u / G,
        # across the sliver) dominates the far endpoint's height, hence the parameter near 1.
        for tol in {"t": (1e-6, 1e-4), "1 - t": (1e-6,) * 8}.get(name, ()):
            cases.append(_band_case(rng, name, "edge", tol, sliver=round(math.log10(tol)) + 0.5))
    for tol, factor in ((1e-9, 0.125), (1e-6, 0.125), (1e-4, 0.25), (1e-12, 0.125), (1e-6, 4.0)):
        cases.append(_near_parallel_case(rng, tol, factor))
    # Coplanar segments that touch a facet without entering it: a vertex, an edge, an end on an edge.
    F = np.array([[0.0, 0, 0], [0, 1, 0], [1, 1, 0]])
    one = np.array([[0, 1, 2]])
    for nm, s, e in (("vertex", [-1.0, 1, 0], [1.0, -1, 0]), ("edge", [-1.0, 1, 0], [0.5, 1, 0]),
                     ("end on edge", [-1.0, 0.5, 0], [0.0, 0.5, 0])):
        cases.append(TriangleCase(f"coplanar touching {nm}", F, one, np.array(s), np.array(e)))
    # Duplicate facets (bitwise, and with reversed winding) of an oblique facet: exact ties.
    G = _facet(rng, False)
    p = point_on_facet(*G, [0.3, 0.3, 0.4])
    nrm = np.cross(G[1] - G[0], G[2] - G[0])
    s, e = segment_through(p, nrm / np.linalg.norm(nrm) + 0.3 * _unit(rng), 0.7, 0.9)
    W = _witness(s + 0.8 * (e - s), (e - s) / np.linalg.norm(e - s))
    cases.append(TriangleCase("duplicate facets tie", np.vstack([G, W, G]),
                              np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]]), s, e))
    cases.append(TriangleCase("reversed duplicate then duplicate", np.vstack([G, G]),
                              np.array([[2, 1, 0], [3, 4, 5], [0, 1, 2]]), s, e))
    # Powers of two and far fractional origins (inexact sums).
    P = np.array([[2.0**20, 0, 0], [0, 2.0**20, 0], [0, 0, 2.0**20]])
    cases.append(TriangleCase("powers of two", P, one, np.zeros(3), np.full(3, 2.0**19)))
    off = np.array([1e6 + 0.1, -3e5 - 0.7, 2.0**33 + 0.3])
    cases.append(TriangleCase("far fractional origin", G + off, one, s + off, e + off))
    cases.append(TriangleCase("smallest tolerance", G, one, s, e, 32 * 2.0**-52))
    # Surfaces admission must reject (no claim may speak of them).
    sl = _facet(rng, False)
    sl[2] = sl[0] + (sl[1] - sl[0]) * 0.5 + np.cross(sl[1] - sl[0], [0.0, 0, 1]) * 1e-9
    cases.append(TriangleCase("ill-conditioned sliver", sl, one, s, e, 1e-6))
    Q = np.array([[0.0, 0, 0], [1e-4, 0, 0], [0, 1, 0]])  # G = 1e-4 < tol; |e1 x e2| / |e1|^2 = 1e4
    cases.append(TriangleCase("short first edge", Q, one, np.array([2e-5, 0.25, -1]), np.array([2e-5, 0.25, 1]), 1e-3))
    cases.append(TriangleCase("collinear facet", np.array([[0.0, 0, 0], [1, 1, 1], [3, 3, 3]]), one,
                              np.array([-1.0, 0, 0]), np.array([1.0, 0, 0])))
    for factor in (1.5, 2.0, 3.0, 5.0):
        cases.append(_far_offset_case(rng, factor))
    cases.append(_hierarchy_tie_case())
    return cases


def _random_case(rng, k: int) -> TriangleCase:
    kind = ["random", "near_edge", "near_vertex", "near_parallel", "grazing", "scaled", "shared_edge",
            "integer", "sliver"][k % 9]
    n = int(rng.integers(1, 6))
    verts, tris = _random_mesh(rng, n, integer=(kind == "integer"))
    tol = float(10.0 ** rng.uniform(-14, -4)) if rng.random() < 0.3 else 1e-12
    tol = min(max(tol, 2.0**-47), 1e-3)
    i = int(rng.integers(0, n))
    a, b, c = verts[tris[i]]
    direction = _unit(rng)
    if kind == "random" or kind == "integer":
        if kind == "integer":
            s, e = rng.integers(-5, 6, 3).astype(float), rng.integers(-5, 6, 3).astype(float)
            if np.array_equal(s, e):
                e = s + 1.0
        else:
            s, e = rng.uniform(-2, 2, 3), rng.uniform(-2, 2, 3)
        return TriangleCase(kind, verts, tris, s, e, tol)
    if kind == "near_edge":
        r = float(rng.random())
        w = rng.permutation([0.0, r, 1.0 - r])
    elif kind == "shared_edge":
        r = float(rng.random())
        w = np.array([r, 1.0 - r, 0.0])  # on the edge (a, b) the added facet shares
    elif kind == "near_vertex":
        w = rng.permutation([1.0, 0.0, 0.0])
    else:
        w = rng.dirichlet([1, 1, 1])
    p = point_on_facet(a, b, c, w)
    p = (nudge(p, rng.integers(-3, 4, 3)) if rng.random() < 0.5
         else p + rng.standard_normal(3) * 10.0 ** rng.uniform(-16, -9))
    if kind == "near_parallel":
        nrm = np.cross(b - a, c - a)
        nrm /= np.linalg.norm(nrm)
        inplane = direction - np.dot(direction, nrm) * nrm
        direction = inplane / np.linalg.norm(inplane) + nrm * 10.0 ** rng.uniform(-17, -6) * rng.choice([-1, 1])
    before, after = rng.uniform(0.1, 2), rng.uniform(0.1, 2)
    if kind == "grazing":
        after = 0.0 if rng.random() < 0.5 else float(10.0 ** rng.uniform(-16, -10))
    s, e = segment_through(p, direction, before, after)
    if kind == "scaled":
        sc, off = 10.0 ** rng.uniform(-100, 100), rng.uniform(-1e6, 1e6, 3)
        verts, s, e = (verts + off) * sc, (s + off) * sc, (e + off) * sc
    if kind == "shared_edge":
        # a fan around edge (a, b): the segment crosses near the shared edge
        apex = a + b - c + rng.standard_normal(3) * 0.3
        verts = np.vstack([verts, apex])
        tris = np.vstack([tris, [tris[i][1], tris[i][0], len(verts) - 1]])
    if kind == "sliver":
        verts = verts.copy()
        verts[tris[i][2]] = point_on_facet(a, b, c, [0.5, 0.5 - 1e-9, 1e-9])
    if np.array_equal(s, e):
        e = nudge(e, 1)
    return TriangleCase(kind, verts, tris, s, e, tol)


def named_cases(seed: int) -> list[TriangleCase]:
    """The named corner cases, then the adversarial ones (bands, near-parallel overlaps, ties,
    admission), deterministic in ``seed``."""
    return _named_cases() + _adversarial_cases(seed)


def random_cases(seed: int):
    """The random cases, cycling through the kinds (an endless iterator, deterministic in ``seed``)."""
    rng = np.random.default_rng([seed, 4004])
    k = 0
    while True:
        yield _random_case(rng, k)
        k += 1


def generate(seed: int, n: int) -> list[TriangleCase]:
    """``n`` cases: :func:`named_cases`, then :func:`random_cases`."""
    out = named_cases(seed)[:n]
    more = random_cases(seed)
    while len(out) < n:
        out.append(next(more))
    return out
