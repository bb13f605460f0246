"""Tessellation rows: mesh position bounds (Certified), shared mesh positions (Exact) and the
mesh normal-angle estimate (Estimated).

Corpus (deterministic in the seed), built from the surface family's generators
(``oracles.checks.surface``): a planar patch (level (0, 0) expected), a planar patch beside a
patch curved along their shared straight edge (it inherits the edge's level), a bilinear
twisted patch, the cube and the one- and four-patch tubes, the spec's reversed two-patch join,
a collapsed side and a pole of four unjoined patches (degenerate: singular normals and
triangles with two equal positions, Report), a nearly collapsed side (thin triangles), a grid far from the origin (1e7), planar and
curved grids, Visual meshes that ask for a normal angle, and a Visual mesh that accepts a
coarser grid at its max level; then random small grids. Each
case's profile asks for a position error of a few percent of the network's extent (never below
its position floor), so grids stay small enough for the exact oracle.

Checkers recompute every truth from ``claim.inputs`` alone (``interval.tessellation``,
``interval.surface``, ``interval.narrowing``):

* ``tessellation.position_bound``: for every cell of the patch grid, an exact branch and bound
  of ``max |S - T|`` over each of its two triangles (``T`` the linear interpolant of the claimed
  emitted float32 vertices along the (u0, v0)-(u1, v1) diagonal): Verified when every upper
  enclosure is at most the claimed bound, Violated at a point where ``|S - T|`` exceeds it,
  else Undecided. The measure is the tightness ``true max / claimed bound`` (a lower estimate:
  the largest exact value found), counted into bins.
* ``tessellation.shared_positions``: the topology is replayed exactly; every patch grid is
  complete, vertex positions are bitwise copies of their shared positions, two vertices share
  a position index exactly when they are the same corner record, the same canonical sample of
  one edge, or the same grid point; shared edges have equal along-edge levels (no T-junction);
  corner positions equal the exact corners; the triangles are the two counterclockwise
  triangles of every cell; every mesh edge is used by two triangles, or by one on a boundary
  side (closed networks: watertight).
* ``tessellation.normal_angle``: every triangle's face normal (exact, from the emitted
  vertices) against the true normal ``Su x Sv`` over the triangle: Violated when some exact
  sample is farther than ``ACCEPTANCE_FACTOR`` times the estimate plus the triangle's
  rounding slack; Verified when a convex-cone test on Bernstein coefficients shows every
  normal within it; the calibration ``true / estimate`` (sampled at 113 bits) is the measure.
"""

from __future__ import annotations

import math
from collections import Counter

import gmpy2
import numpy as np

from interval.context import to_mpq
from interval.surface import SIDE_NAMES, TopologyFailure, exact_topology
from interval.tessellation import (
    cell_polynomial,
    decide_max_angle,
    enclose_cell_distance,
    normal_monomials,
    normal_polynomials,
    sampled_angles,
)
from reference.fp import ulp32
from reference.status import GuaranteeClass as G
from reference.surface import try_prepare_surface
from reference.tessellation import (
    PrecisionProfile,
    SurfaceDegeneracyPolicy,
    SurfaceMesh,
    SurfaceMeshLimits,
    SurfaceMeshProfile,
    try_build_surface_mesh,
)

from . import surface as SF
from .. import schema as S
from ..family import Family, RowContract
from ..model import Claim, dec, enc, undecided, verified, violated

__all__ = ["FAMILY", "ACCEPTANCE_FACTOR", "MAX_BOXES", "generate", "claims", "build_case", "check_position_bound",
           "check_shared_positions", "check_normal_angle", "beside_case", "planar_case", "twisted_case",
           "near_collapsed_case"]

ACCEPTANCE_FACTOR = 4.0  # Violated when the true angle exceeds 4 x estimate + slack
MAX_BOXES = 256  # branch-and-bound boxes per triangle
_MESH_LIMITS = dict(max_level=10, max_cell_tests=1 << 20, max_vertices=1 << 20, max_triangles=1 << 20,
                    max_output_bytes=1 << 28)


# --- Corpus ----------------------------------------------------------------------------------

def _affine(x0=0.0, y0=0.0, z=lambda i, j: 0.0):
    return np.array([[(x0 + i, y0 + j, z(i, j)) for j in range(4)] for i in range(4)], dtype=np.float64)


def planar_case(rng):
    """One exactly planar, affinely parametrized patch: level (0, 0) expected."""
    C = _affine(z=lambda i, j: 0.25 * i - 0.5 * j)
    return SF._case("planar patch", [C], rng=rng)


def beside_case(rng):
    """A planar patch beside a patch whose height grows away from their shared straight edge
    (curved along the edge direction): the planar patch inherits the along-edge level."""
    bump = [0.0, 2.0, 2.0, 0.0]
    A = _affine()
    B = _affine(x0=3.0, z=lambda i, j: i * bump[j])
    return SF._case("planar patch beside a curved edge", [A, B], rng=rng)


def twisted_case(rng):
    """The bilinear twisted patch (i, j, i j): its bound is the twist |W| / 4 at level (0, 0)."""
    return SF._case("bilinear twisted patch", [_affine(z=lambda i, j: float(i * j))], rng=rng)


def near_collapsed_case(rng):
    """A patch whose V0 side is shrunk to 1e-4 of its length towards its corner on the shared
    edge (nearly a pole), joined to a regular patch: tiny but nonzero partials, thin triangles."""
    G = SF._curved_grid(rng, 2, 1, np.zeros(3), 1.0)
    a, b = SF._grid_patches(G)
    a = a.copy()
    a[:, 0] = a[3, 0] + (a[:, 0] - a[3, 0]) * 1e-4
    return SF._case("nearly collapsed side", [a, b], rng=rng)


def _extent(case) -> float:
    src = case["source"]
    return float(np.max(np.ptp(src.reshape(-1, 3), axis=0)))


def _with_mesh(case, rel=0.03, precision="Strict", angle=0.0, coarser=False, degeneracy="Report", **lim):
    case = dict(case)
    case["mesh"] = {"rel": rel, "precision": precision, "angle": angle, "coarser": coarser,
                    "degeneracy": degeneracy, "limits": {**_MESH_LIMITS, **lim}}
    return case


def _small_grid(rng, name, planar=None, magnitude=None):
    m, k = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    return SF._grid_case(rng, name, m=m, k=k, magnitude=magnitude, planar=planar)


_SPECIALS = [
    lambda r: _with_mesh(planar_case(r), rel=1e-3),
    lambda r: _with_mesh(beside_case(r), rel=0.01),
    lambda r: _with_mesh(twisted_case(r), rel=0.3),
    lambda r: _with_mesh(SF._cube(r), rel=1e-3),
    lambda r: _with_mesh(SF._tube_four(r), rel=0.01),
    lambda r: _with_mesh(SF._tube_one(r), rel=0.02),
    lambda r: _with_mesh(SF._spec_two_patch(r), rel=0.03),
    lambda r: _with_mesh(SF._collapsed(r), rel=0.03),
    lambda r: _with_mesh(SF._pole(r), rel=0.03),
    lambda r: _with_mesh(near_collapsed_case(r), rel=0.03),
    lambda r: _with_mesh(SF._far(r), rel=0.03),
    lambda r: _with_mesh(_small_grid(r, "planar grid", planar=True), rel=0.01),
    lambda r: _with_mesh(twisted_case(r), rel=0.3, precision="Visual", angle=0.8),
    lambda r: _with_mesh(SF._tube_four(r), rel=0.05, precision="Visual", angle=0.3),
    lambda r: _with_mesh(_small_grid(r, "curved grid", planar=False, magnitude=1.0), rel=0.05,
                         precision="Visual", angle=0.4),
    # Visual accepting a coarser mesh: max_level stops the twisted patch at (1, 1), the report says
    # is_within_position_error = False and the bound claimed is the achieved one.
    lambda r: _with_mesh(twisted_case(r), rel=0.01, precision="Visual", coarser=True, max_level=1),
]


def generate(seed: int, n: int) -> list:
    """``n`` tessellation cases, named networks first. Deterministic in ``seed``."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 11])
        if k < len(_SPECIALS):
            cases.append(_SPECIALS[k](rng))
        else:
            cases.append(_with_mesh(_small_grid(rng, "random grid"), rel=float(rng.choice([0.03, 0.05]))))
    return cases


# --- Claims ----------------------------------------------------------------------------------

def build_case(case):
    """``(surface view, profile, Outcome)`` of a corpus case (the view is None when the network
    does not prepare)."""
    source, prep = SF.case_source(case)
    out = try_prepare_surface(source, prep)
    if not out.ok:
        return None, None, out
    view = out.value.view()
    m = case["mesh"]
    pe = max(view.position_floor, float(np.float64(m["rel"]) * _extent(case)))
    prof = SurfaceMeshProfile(PrecisionProfile[m["precision"]], pe, float(m["angle"]), bool(m["coarser"]),
                              SurfaceDegeneracyPolicy[m["degeneracy"]], SurfaceMeshLimits(**m["limits"]))
    return view, prof, try_build_surface_mesh(view, prof, SurfaceMesh())


def _grid_of(mv, rec) -> np.ndarray:
    nu, nv = 1 << rec.level_u, 1 << rec.level_v
    return mv.vertex_positions[rec.first_vertex:rec.first_vertex + rec.vertex_count].reshape(nu + 1, nv + 1, 3)


def claims(case) -> list:
    """Run the fast path on one case and return its claims."""
    view, prof, out = build_case(case)
    if view is None or not out.ok:
        return []
    mv = out.value
    result = []
    for rec in mv.report.patches:
        result.append(Claim("tessellation.position_bound", G.Certified, {"position_bound": enc(rec.position_bound)},
                            {"controls": enc(view.controls[rec.patch]), "level_u": rec.level_u,
                             "level_v": rec.level_v, "grid": enc(_grid_of(mv, rec))}))
    net = SF._network_inputs(case)
    result.append(Claim("tessellation.shared_positions", G.Exact, {
        "levels": [[r.level_u, r.level_v] for r in mv.report.patches],
        "positions": enc(mv.positions), "vertex_positions": enc(mv.vertex_positions),
        "vertex_position_index": [int(x) for x in mv.vertex_position_index],
        "vertex_patch": [int(x) for x in mv.vertex_patch], "vertex_parameters": enc(mv.vertex_parameters),
        "indices": mv.indices.astype(np.int64).tolist()}, net))
    if mv.report.normal_angle_estimate is not None:
        result.append(Claim("tessellation.normal_angle", G.Estimated,
                            {"normal_angle_estimate": enc(mv.report.normal_angle_estimate)},
                            {"patches": [{"controls": enc(view.controls[r.patch]), "level_u": r.level_u,
                                          "level_v": r.level_v, "grid": enc(_grid_of(mv, r))}
                                         for r in mv.report.patches]}))
    return result


# --- Checkers --------------------------------------------------------------------------------

def _grid_inputs(d):
    C = SF._array(d["controls"], np.float32)
    lu, lv = int(d["level_u"]), int(d["level_v"])
    if C.shape != (4, 4, 3) or not (0 <= lu <= 24 and 0 <= lv <= 24):
        raise ValueError("needs controls (4, 4, 3) float32 and levels in [0, 24]")
    nu, nv = 1 << lu, 1 << lv
    Gd = SF._array(d["grid"], np.float32)
    if Gd.shape != (nu + 1, nv + 1, 3):
        raise ValueError(f"grid must be ({nu + 1}, {nv + 1}, 3) for levels ({lu}, {lv})")
    return C, nu, nv, Gd


def _cells(nu, nv):
    for a in range(nu):
        for b in range(nv):
            yield a, b, gmpy2.mpq(a, nu), gmpy2.mpq(a + 1, nu), gmpy2.mpq(b, nv), gmpy2.mpq(b + 1, nv)


_TIGHT_BINS = ((0.1, "tightness_lt_0.1"), (0.5, "tightness_0.1_0.5"), (0.9, "tightness_0.5_0.9"),
               (math.inf, "tightness_0.9_1"))


def check_position_bound(claim: Claim):
    """Certified: for every cell, the exact branch and bound of ``max |S - T|`` over its two
    triangles is at most the claimed bound."""
    C, nu, nv, Gd = _grid_inputs(claim.inputs)
    c = dec(claim.value["position_bound"])
    if not c >= 0:
        return violated(claim, {"why": "a distance bound is nonnegative", "claimed": claim.value["position_bound"]})
    best = gmpy2.mpq(0)
    boxes = 0
    for a, b, u0, u1, v0, v1 in _cells(nu, nv):
        r = enclose_cell_distance(C, u0, u1, v0, v1, Gd[a, b], Gd[a + 1, b], Gd[a, b + 1], Gd[a + 1, b + 1], c,
                                  MAX_BOXES)
        boxes += r.boxes
        best = max(best, r.lower_sq)
        if r.holds is False:
            tri, (x, w), val = r.witness
            return violated(claim, {"cell": [a, b], "triangle": tri, "duffy_point": [enc(x), enc(w)],
                                    "distance_squared": enc(val), "claimed": enc(c)},
                            measure="tightness", measured=math.sqrt(float(val)) / c if c > 0 else math.inf)
        if r.holds is None:
            return undecided(claim, [math.sqrt(float(r.lower_sq)), math.sqrt(float(r.upper_sq))],
                             note=f"cell ({a}, {b}) undecided within {MAX_BOXES} boxes per triangle")
    tight = math.sqrt(float(best)) / c if c > 0 else 0.0
    bin_ = next(name for lim, name in _TIGHT_BINS if tight < lim)
    return verified(claim, measure="tightness", measured=tight, note=f"{nu * nv} cells, {boxes} boxes",
                    **{bin_: 1})


def _corner_name(a, b, nu, nv):
    return {(0, 0): "U0V0", (nu, 0): "U1V0", (0, nv): "U0V1", (nu, nv): "U1V1"}[(a, b)]


def check_shared_positions(claim: Claim):
    """Exact: grids complete, bitwise copies, position identity exactly by topology, no
    T-junction, exact corner positions, the two counterclockwise triangles of every cell, and
    every mesh edge used twice (once on a boundary side)."""
    ids, narrowed, joins = SF._network(claim)
    if narrowed is None:
        return violated(claim, {"why": "the network does not narrow: no mesh can exist"})
    topo = exact_topology(ids, narrowed, joins)
    if isinstance(topo, TopologyFailure):
        return violated(claim, {"why": f"the network is InvalidTopology ({topo.rule}): no mesh can exist"})
    v = claim.value
    n = len(ids)
    levels = [(int(x[0]), int(x[1])) for x in v["levels"]]
    if len(levels) != n or any(not (0 <= lu <= 24 and 0 <= lv <= 24) for lu, lv in levels):
        raise ValueError("levels: one [level_u, level_v] in [0, 24] per patch")
    positions = SF._array(v["positions"], np.float32).reshape(-1, 3)
    vpos = SF._array(v["vertex_positions"], np.float32).reshape(-1, 3)
    vidx = np.asarray(v["vertex_position_index"], dtype=np.int64)
    vpatch = np.asarray(v["vertex_patch"], dtype=np.int64)
    vpar = SF._array(v["vertex_parameters"], np.float32).reshape(-1, 2)
    tris = np.asarray(v["indices"], dtype=np.int64).reshape(-1, 3)
    nvert = vpos.shape[0]
    if not (vidx.shape == (nvert,) and vpatch.shape == (nvert,) and vpar.shape == (nvert, 2)):
        raise ValueError("vertex arrays of unequal lengths")
    if np.any(vidx < 0) or np.any(vidx >= positions.shape[0]) or np.any(tris < 0) or np.any(tris >= nvert):
        return violated(claim, {"why": "an index is out of range"})
    # Bitwise copies.
    copies = np.all(vpos.view(np.uint32) == positions[vidx].view(np.uint32), axis=1)
    if not np.all(copies):
        i = int(np.flatnonzero(~copies)[0])
        return violated(claim, {"why": "a vertex position is not a bitwise copy of its shared position", "vertex": i,
                                "vertex_position": enc(vpos[i]), "shared_position": enc(positions[vidx[i]])})
    # Vertex of each (patch, a, b).
    where = {}
    for i in range(nvert):
        p = int(vpatch[i])
        if not 0 <= p < n:
            return violated(claim, {"why": "vertex of an unknown patch", "vertex": i})
        nu, nv = 1 << levels[p][0], 1 << levels[p][1]
        a, b = to_mpq(float(vpar[i, 0])) * nu, to_mpq(float(vpar[i, 1])) * nv
        if a.denominator != 1 or b.denominator != 1 or not (0 <= a <= nu and 0 <= b <= nv):
            return violated(claim, {"why": "a vertex parameter is not a grid point", "vertex": i})
        key = (p, int(a), int(b))
        if key in where:
            return violated(claim, {"why": "a grid point has two vertices", "vertices": [where[key], i]})
        where[key] = i
    expected = sum(((1 << lu) + 1) * ((1 << lv) + 1) for lu, lv in levels)
    if len(where) != expected:
        return violated(claim, {"why": "a patch grid is incomplete", "vertices": len(where), "expected": expected})
    # Topological identity of every grid point.
    corner_of = {}
    for k, c in enumerate(topo.corners):
        for (p, _pid, name) in c["incidences"]:
            corner_of[(p, name)] = k
    side_of = {}
    for k, e in enumerate(topo.edges):
        for (p, _pid, side, rev) in e["incidences"]:
            side_of[(p, side)] = (k, rev)
    for e in topo.edges:
        if len(e["incidences"]) == 2:
            al = [levels[p][1] if s in ("U0", "U1") else levels[p][0] for (p, _i, s, _r) in e["incidences"]]
            if al[0] != al[1]:
                return violated(claim, {"why": "T-junction: a shared edge has two along-edge levels",
                                        "edge": [e["id"][0], e["id"][1]], "levels": al})

    def key_of(p, a, b):
        nu, nv = 1 << levels[p][0], 1 << levels[p][1]
        if a in (0, nu) and b in (0, nv):
            return ("corner", corner_of[(p, _corner_name(a, b, nu, nv))])
        for side, cond, t, ne in (("U0", a == 0, b, nv), ("U1", a == nu, b, nv), ("V0", b == 0, a, nu),
                                  ("V1", b == nv, a, nu)):
            if cond:
                k, rev = side_of[(p, side)]
                return ("edge", k, ne - t if rev else t)
        return ("interior", p, a, b)

    owner_of_key, key_of_index = {}, {}
    for (p, a, b), i in where.items():
        key = key_of(p, a, b)
        idx = int(vidx[i])
        if key in owner_of_key and owner_of_key[key] != idx:
            return violated(claim, {"why": "one surface point has two position indices (a crack)", "point": str(key),
                                    "indices": [owner_of_key[key], idx]})
        if idx in key_of_index and key_of_index[idx] != key:
            return violated(claim, {"why": "two surface points share one position index", "index": idx,
                                    "points": [str(key_of_index[idx]), str(key)]})
        owner_of_key[key] = idx
        key_of_index[idx] = key
        if key[0] == "corner":
            want = topo.corners[key[1]]["position"]
            if [to_mpq(float(x)) for x in positions[idx]] != want:
                return violated(claim, {"why": "a corner position is not the exact corner", "index": idx,
                                        "claimed": enc(positions[idx]), "exact": [str(x) for x in want]})
    if len(key_of_index) != positions.shape[0]:
        return violated(claim, {"why": "positions that no vertex uses, or a position emitted twice",
                                "positions": int(positions.shape[0]), "used": len(key_of_index)})
    # Triangles: the two counterclockwise triangles of every cell, each once.
    want = Counter()
    boundary = set()
    for p, (lu, lv) in enumerate(levels):
        nu, nv = 1 << lu, 1 << lv
        for a in range(nu):
            for b in range(nv):
                w00, w10, w01, w11 = (where[(p, a, b)], where[(p, a + 1, b)], where[(p, a, b + 1)],
                                      where[(p, a + 1, b + 1)])
                want[_rot((w00, w10, w11))] += 1
                want[_rot((w00, w11, w01))] += 1
        for side in SIDE_NAMES:
            k, _rev = side_of[(p, side)]
            if len(topo.edges[k]["incidences"]) == 2:
                continue
            pts = ([(0, b) for b in range(nv + 1)] if side == "U0" else [(nu, b) for b in range(nv + 1)]
                   if side == "U1" else [(a, 0) for a in range(nu + 1)] if side == "V0"
                   else [(a, nv) for a in range(nu + 1)])
            for (a0, b0), (a1, b1) in zip(pts, pts[1:]):
                boundary.add(frozenset((int(vidx[where[(p, a0, b0)]]), int(vidx[where[(p, a1, b1)]]))))
    got = Counter(_rot(tuple(int(x) for x in t)) for t in tris)
    if got != want:
        extra = list((got - want).keys())[:1]
        missing = list((want - got).keys())[:1]
        return violated(claim, {"why": "the triangles are not the two counterclockwise triangles of every cell",
                                "unexpected": [list(t) for t in extra], "missing": [list(t) for t in missing]})
    # Edge use on shared positions.
    uses = Counter()
    for t in vidx[tris]:
        for x, y in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
            uses[frozenset((int(x), int(y)))] += 1
    for e, cnt in uses.items():
        need = 1 if e in boundary else 2
        if cnt != need:
            return violated(claim, {"why": "a mesh edge is not used by exactly two triangles (one on a boundary)",
                                    "edge": sorted(e), "uses": cnt, "expected": need})
    closed = not boundary
    return verified(claim, measure="mismatches", measured=0,
                    note=f"{len(uses)} mesh edges, {'closed (watertight)' if closed else f'{len(boundary)} on boundaries'}",
                    **({"watertight_meshes": 1} if closed else {}))


def _rot(t):
    """The rotation of a triangle's vertex cycle that starts at its smallest index."""
    k = t.index(min(t))
    return t[k:] + t[:k]


_CAL_BINS = ((0.5, "calibration_lt_0.5"), (1.0, "calibration_0.5_1"), (2.0, "calibration_1_2"),
             (ACCEPTANCE_FACTOR, "calibration_2_factor"), (math.inf, "calibration_above_factor"))


def _slack(V):
    """Angle allowance of a triangle whose float32 vertices moved by rounding: 4 delta over its
    smallest altitude, delta = sqrt(3) ulp32 of its largest coordinate (a vertex's rounding and
    evaluation error is below one ulp per component)."""
    P = np.asarray(V, dtype=np.float64)
    delta = math.sqrt(3.0) * float(ulp32(np.float32(np.max(np.abs(P)))))
    area2 = float(np.linalg.norm(np.cross(P[1] - P[0], P[2] - P[0])))
    longest = max(float(np.linalg.norm(P[i] - P[j])) for i, j in ((0, 1), (1, 2), (2, 0)))
    return 4.0 * delta * longest / area2 if area2 > 0 else math.inf


def check_normal_angle(claim: Claim):
    """Estimated: the true angle between each triangle's face normal and the surface normal over
    the triangle stays within ``ACCEPTANCE_FACTOR`` times the estimate plus rounding slack;
    the calibration ``true / estimate`` is measured at 113 bits."""
    est = dec(claim.value["normal_angle_estimate"])
    if not 0 <= est <= math.pi:
        return violated(claim, {"why": "an angle estimate lies in [0, pi]", "claimed": claim.value["normal_angle_estimate"]})
    true_lo = 0.0
    for pi_, d in enumerate(claim.inputs["patches"]):
        C, nu, nv, Gd = _grid_inputs(d)
        for a, b, u0, u1, v0, v1 in _cells(nu, nv):
            M = cell_polynomial(C, u0, u1, v0, v1)
            V00, V10, V01, V11 = (Gd[a, b], Gd[a + 1, b], Gd[a, b + 1], Gd[a + 1, b + 1])
            Nm = normal_monomials(M)
            for k, (tri, Nb) in enumerate(zip(((V00, V10, V11), (V00, V11, V01)), normal_polynomials(M))):
                Q = [[to_mpq(float(x)) for x in P] for P in tri]
                e1 = [y - x for x, y in zip(Q[0], Q[1])]
                e2 = [y - x for x, y in zip(Q[0], Q[2])]
                nf = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
                if all(x == 0 for x in nf):
                    continue  # a degenerate triangle has no face normal (the estimate skips it too)
                true_lo = max(true_lo, sampled_angles(Nm, nf, k + 1))
                theta = ACCEPTANCE_FACTOR * est + _slack(tri)
                if theta >= math.pi:
                    continue
                ok = decide_max_angle(Nb, nf, to_mpq(min(theta, 1.5)))
                if ok is False and theta > 1.5:
                    ok = None  # beyond 1.5 rad only shown, not beyond theta
                if ok is False:
                    return violated(claim, {"patch": pi_, "cell": [a, b], "why": "the true normal leaves "
                                            f"{ACCEPTANCE_FACTOR} x estimate + slack", "allowed": theta,
                                            "true_at_least": true_lo}, measure="calibration",
                                    measured=true_lo / est if est > 0 else math.inf)
                if ok is None:
                    return undecided(claim, [true_lo, None], note=f"patch {pi_} cell ({a}, {b}) undecided")
    cal = true_lo / est if est > 0 else 0.0
    bin_ = next(name for lim, name in _CAL_BINS if cal < lim)
    return verified(claim, measure="calibration", measured=cal, note=f"true angle at least {true_lo:.3g} rad",
                    **{bin_: 1})


# --- Contracts -------------------------------------------------------------------------------

def _replace(claim, value=None, inputs=None):
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def _plant_position_bound(claim):
    # Move one emitted vertex far off the surface: the bound cannot hold for those triangles.
    c = dec(claim.value["position_bound"])
    grid = [[list(p) for p in row] for row in claim.inputs["grid"]]
    x = dec(grid[0][0][0])
    grid[0][0][0] = enc(float(np.float32(x + 10.0 * c + 1.0 + abs(x) * 1e-3)))
    return _replace(claim, inputs={**claim.inputs, "grid": grid})


def _plant_shared_positions(claim):
    vp = [list(p) for p in claim.value["vertex_positions"]]
    vp[0][0] = enc(float(np.nextafter(np.float32(dec(vp[0][0])), np.float32(np.inf))))
    return _replace(claim, value={**claim.value, "vertex_positions": vp})


def _plant_normal_angle(claim):
    est = dec(claim.value["normal_angle_estimate"])
    return _replace(claim, value={"normal_angle_estimate": enc(est / 1000.0)})


_GRID = S.obj(required={"controls": S.matrix(S.f32(), [4, 4, 3]), "level_u": S.integer(minimum=0, maximum=24),
                        "level_v": S.integer(minimum=0, maximum=24), "grid": S.matrix(S.f32(), [None, None, 3])})
_NETWORK = SF.CONTRACTS["surface.shared_edges"].inputs
_INDEX = S.integer(minimum=0, maximum=2**32 - 1)

CONTRACTS = {
    "tessellation.position_bound": RowContract(
        checks="For every cell of the patch grid, an exact rational branch and bound (Bernstein hull of S - T on "
               "each triangle's Duffy square, T the linear interpolant of the emitted float32 vertices) shows "
               "max |S - T| <= the claimed position_bound; a point with |S - T| above it is a violation.",
        inputs=_GRID, value=S.obj(required={"position_bound": S.f64(nonnegative=True)}),
        plant=_plant_position_bound),
    "tessellation.shared_positions": RowContract(
        checks="Replaying the exact topology: complete patch grids, vertex positions bitwise copies of their shared "
               "positions, one position index per corner record, canonical edge sample and grid point, equal "
               "along-edge levels on shared edges (no T-junction), exact corner positions, the two counterclockwise "
               "triangles of every cell, and every mesh edge used twice (once on a boundary side).",
        inputs=_NETWORK, value=S.obj(required={
            "levels": S.array(S.vec(S.integer(minimum=0, maximum=24), 2), min_items=1),
            "positions": S.matrix(S.f32(), [None, 3]), "vertex_positions": S.matrix(S.f32(), [None, 3]),
            "vertex_position_index": S.array(_INDEX), "vertex_patch": S.array(_INDEX),
            "vertex_parameters": S.matrix(S.f32(), [None, 2]), "indices": S.matrix(_INDEX, [None, 3])}),
        plant=_plant_shared_positions),
    "tessellation.normal_angle": RowContract(
        checks="Every triangle's exact face normal stays within 4 x the estimate + 4 sqrt(3) ulp32(E) / altitude of "
               "the true normal Su x Sv over the triangle (exact convex-cone test on Bernstein coefficients); "
               "calibration true / estimate sampled at 113 bits.",
        inputs=S.obj(required={"patches": S.array(_GRID, min_items=1)}),
        value=S.obj(required={"normal_angle_estimate": S.f64(nonnegative=True)}),
        plant=_plant_normal_angle),
}

FAMILY = Family(
    name="tessellation",
    default_cases=20,
    generate=generate,
    claims=claims,
    checkers={"tessellation.position_bound": check_position_bound,
              "tessellation.shared_positions": check_shared_positions,
              "tessellation.normal_angle": check_normal_angle},
    contracts=CONTRACTS,
    oracle_precisions=(113,),
)
