"""Tessellation rows: mesh position bounds (Certified), shared mesh positions (Exact) and the
mesh normal-angle estimate (Estimated).

Corpus (deterministic in the seed), built from the surface family's generators
(``oracles.checks.surface``): a planar patch (level (0, 0) expected), a planar patch beside a
patch curved along their shared straight edge (it inherits the edge's level), a bilinear
twisted patch, the cube and the one- and four-patch tubes, the spec's reversed two-patch join,
a collapsed side and a pole of four unjoined patches (degenerate: singular normals and
triangles with two equal positions, Report), a nearly collapsed side (thin triangles), a grid far from the origin (1e7), planar and
curved grids, Visual meshes that ask for a normal angle, and a Visual mesh that accepts a
coarser grid at its max level; then the refinement rule's cases (the twisted patch at one and at
two exact near-ties, an anisotropic near-tie, a rounded planar patch owning its edge beside a
curved one), the budget failures (Strict stopped by max_level, a cell-test budget below the
rule's need), Reject and Report on IllConditioned normals, a planar Reject mesh and a collapsed
U0 side; then random small grids. Each case's profile asks for a position error of a few
percent of the network's extent (never below its position floor), so grids stay small enough
for the exact oracle; the corpus's cell-test budget is ``CORPUS_CELL_TESTS``.

Checkers recompute every truth from ``claim.inputs`` alone (``interval.tessellation``,
``interval.surface``, ``interval.narrowing``):

* ``tessellation.position_bound``: for every cell of the patch grid, an exact branch and bound
  of ``max |S - T|`` over each of its two triangles (``T`` the linear interpolant of the claimed
  emitted float32 vertices along the (u0, v0)-(u1, v1) diagonal): Verified when every upper
  enclosure is at most the claimed bound, Violated at a point where ``|S - T|`` exceeds it,
  else Undecided. The measure is the tightness ``true max / claimed bound`` (a lower estimate:
  the largest exact value found), counted into bins, and the verdict's ``bound_use``. With the
  profile's position error, ``is_within_position_error`` must be ``bound <= position_error``
  and a mesh that accepts no coarser grid must be within it. Grids above ``MAX_EXACT_CELLS``
  are Undecided at once.
* ``tessellation.shared_positions``: the topology is replayed exactly; every patch grid is
  complete, vertex positions are bitwise copies of their shared positions, two vertices share
  a position index exactly when they are the same corner record, the same canonical sample of
  one edge, or the same grid point; shared edges have equal along-edge levels (no T-junction);
  corner positions equal the exact corners; the triangles are the two counterclockwise
  triangles of every cell; every mesh edge is used by two triangles, or by one on a boundary
  side (closed networks: watertight); the degenerate-triangle and singular-normal counts are
  exact and a Reject mesh has neither; with the profile the levels are the refinement rule's
  (:func:`replay_levels`, on enclosures of the exact first two cell terms widened by the
  implementation's allowance; Undecided inside it), and a claimed BudgetExceeded of max_level
  or max_cell_tests must be the rule's.
* ``tessellation.normal_angle``: every triangle's face normal (exact, from the emitted
  vertices) against the true normal ``Su x Sv`` over the triangle: Violated when some exact
  sample is farther than ``ACCEPTANCE_FACTOR`` times the estimate plus the triangle's
  rounding slack; Verified when a convex-cone test on Bernstein coefficients shows every
  normal within it; the calibration ``true / estimate`` (sampled at 113 bits) is the measure,
  its ratio to ``ACCEPTANCE_FACTOR`` the ``bound_use``.
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
    cell_term_enclosures,
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
from ..errormodel import ratio
from ..model import Claim, dec, enc, undecided, verified, violated

__all__ = ["FAMILY", "ACCEPTANCE_FACTOR", "MAX_BOXES", "generate", "claims", "build_case", "check_position_bound",
           "check_shared_positions", "check_normal_angle", "beside_case", "planar_case", "twisted_case",
           "near_collapsed_case"]

ACCEPTANCE_FACTOR = 4.0  # Violated when the true angle exceeds 4 x estimate + slack
MAX_BOXES = 256  # branch-and-bound boxes per triangle
MAX_EXACT_CELLS = 4096  # a larger grid is Undecided at once (the exact oracle would take minutes)
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


def anisotropic_case(rng):
    """A patch curved in both directions, v a little more (bump heights 1 and 9/8): refining v
    gives 0.93 of refining u's bound, a near-tie by the rule, so u (the coarser-then-u order) is
    refined first."""
    q = [0.0, 1.0, 1.0, 0.0]
    C = np.array([[(i, j, q[i] + 1.125 * q[j]) for j in range(4)] for i in range(4)], dtype=np.float64)
    return SF._case("near-tie anisotropic patch", [C], rng=rng)


def beside_rounded_case(rng):
    """A planar patch (exactly affine float32 controls, non-dyadic spacing 819 and 1229 x 2^-13,
    near (1000, 500, 250), so its grid points round to float32) owning its shared edge (id 1)
    beside a patch bulging along that edge (id 2): the planar patch inherits the along-edge level
    and its only error is its vertices' rounding (term 3)."""
    P = np.array([1000.0, 500.0, 250.0])
    ax, by = np.array([819.0 * 2**-13, 0.0, 0.0]), np.array([0.0, 1229.0 * 2**-13, 0.0])
    bump = [0.0, 2.0, 2.0, 0.0]
    A = np.array([[P + i * ax + j * by for j in range(4)] for i in range(4)])
    B = np.array([[P + (3 + i) * ax + j * by + [0.0, 0.0, 0.0625 * i * bump[j]] for j in range(4)]
                  for i in range(4)])
    return SF._case("rounded planar patch beside a curved edge", [A, B], ids=[1, 2], rng=rng)


def collapsed_u0_case(rng):
    """A patch whose U0 side collapses to a point next to a regular patch: its triangles
    (v00, v11, v01) along U0 have equal first and third positions."""
    G = SF._curved_grid(rng, 2, 1, np.zeros(3), 1.0)
    a, b = SF._grid_patches(G)
    a = a.copy()
    a[0, :] = a[0, 0]
    return SF._case("collapsed U0 side", [a, b], rng=rng)


def ill_conditioned_case(rng):
    """The twisted patch with NormalMinDerivativeLength above every partial's length: every
    vertex normal is IllConditioned (Reject fails; Report counts them)."""
    case = twisted_case(rng)
    case["tol"] = {**case["tol"], "dmin": 1e3}
    case["name"] = "every normal IllConditioned"
    return case


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
    # The refinement rule: one and two exact near-ties of the twisted patch ((1, 0), then (1, 1)),
    # an anisotropic near-tie (u first), a rounded planar patch inheriting its neighbour's level.
    lambda r: _with_mesh(twisted_case(r), rel=0.2),
    lambda r: _with_mesh(twisted_case(r), rel=0.1),
    lambda r: _with_mesh(anisotropic_case(r), rel=1.6 / 3.0),
    lambda r: _with_mesh(beside_rounded_case(r), rel=0.01),
    # Statuses: Strict stopped by max_level and Reject on singular normals fail (no claims);
    # Reject on a regular patch succeeds; a collapsed U0 side counts its degenerate triangles.
    lambda r: _with_mesh(twisted_case(r), rel=0.01, max_level=1),
    lambda r: _with_mesh(twisted_case(r), rel=0.2, max_cell_tests=3),
    lambda r: _with_mesh(ill_conditioned_case(r), rel=0.3, degeneracy="Reject"),
    lambda r: _with_mesh(ill_conditioned_case(r), rel=0.3),
    lambda r: _with_mesh(planar_case(r), rel=1e-3, degeneracy="Reject"),
    lambda r: _with_mesh(collapsed_u0_case(r), rel=0.03),
]


# The corpus's cell-test budget: its cases need at most 542, and a refinement that blows a grid
# up then fails fast (a BudgetExceeded claim the replay judges) instead of running for hours.
CORPUS_CELL_TESTS = 1 << 12


def generate(seed: int, n: int) -> list:
    """``n`` tessellation cases, named networks first. Deterministic in ``seed``."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 11])
        if k < len(_SPECIALS):
            case = _SPECIALS[k](rng)
        else:
            case = _with_mesh(_small_grid(rng, "random grid"), rel=float(rng.choice([0.03, 0.05])))
        lim = case["mesh"]["limits"]
        lim["max_cell_tests"] = min(lim["max_cell_tests"], CORPUS_CELL_TESTS)
        cases.append(case)
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
    if view is None:
        return []
    profile = {"precision": prof.precision.value, "position_error": enc(prof.position_error),
               "normal_angle_error": enc(prof.normal_angle_error), "coarser": bool(prof.is_coarser_mesh_accepted),
               "degeneracy": prof.degeneracy.value, "max_level": int(prof.limits.max_level),
               "max_cell_tests": int(prof.limits.max_cell_tests)}
    if not out.ok:
        # a refinement budget failure is a claim too: the rule must really exceed the budget
        if out.status.value == "BudgetExceeded" and out.diagnostic.field in ("max_level", "max_cell_tests"):
            return [Claim("tessellation.shared_positions", G.Exact,
                          {"status": out.status.value, "field": out.diagnostic.field},
                          {**SF._network_inputs(case), "profile": profile})]
        return []
    mv = out.value
    result = []
    coarser = bool(prof.is_coarser_mesh_accepted)
    for rec in mv.report.patches:
        result.append(Claim("tessellation.position_bound", G.Certified,
                            {"position_bound": enc(rec.position_bound),
                             "is_within_position_error": bool(rec.is_within_position_error)},
                            {"controls": enc(view.controls[rec.patch]), "level_u": rec.level_u,
                             "level_v": rec.level_v, "grid": enc(_grid_of(mv, rec)),
                             "position_error": enc(prof.position_error), "accepts_coarser": coarser}))
    net = SF._network_inputs(case)
    result.append(Claim("tessellation.shared_positions", G.Exact, {
        "levels": [[r.level_u, r.level_v] for r in mv.report.patches],
        "positions": enc(mv.positions), "vertex_positions": enc(mv.vertex_positions),
        "vertex_position_index": [int(x) for x in mv.vertex_position_index],
        "vertex_patch": [int(x) for x in mv.vertex_patch], "vertex_parameters": enc(mv.vertex_parameters),
        "indices": mv.indices.astype(np.int64).tolist(),
        "vertex_status": [int(x) for x in mv.vertex_status],
        "singular_normal_count": int(mv.report.singular_normal_count),
        "degenerate_triangle_count": int(mv.report.degenerate_triangle_count)}, {**net, "profile": profile}))
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


def _tightness(best_sq, c) -> float:
    """sqrt(best_sq) / c, never raising (0 / 0 is 0, x / 0 is inf)."""
    return math.sqrt(ratio(best_sq, to_mpq(c) ** 2)) if c > 0 else (0.0 if best_sq == 0 else math.inf)


def check_position_bound(claim: Claim):
    """Certified: for every cell, the exact branch and bound of ``max |S - T|`` over its two
    triangles is at most the claimed bound; with the profile's ``position_error`` the claimed
    ``is_within_position_error`` is ``bound <= position_error``, and a mesh that does not accept a
    coarser grid is within it."""
    C, nu, nv, Gd = _grid_inputs(claim.inputs)
    c = dec(claim.value["position_bound"])
    if not c >= 0:
        return violated(claim, {"why": "a distance bound is nonnegative", "claimed": claim.value["position_bound"]})
    if "position_error" in claim.inputs:
        pe = dec(claim.inputs["position_error"])
        within = claim.value.get("is_within_position_error")
        if within is not None and not isinstance(within, bool):
            raise ValueError("is_within_position_error must be a bool")
        if within is not None and within is not (c <= pe):
            return violated(claim, {"why": "is_within_position_error is not position_bound <= position_error",
                                    "claimed": within, "position_bound": claim.value["position_bound"],
                                    "position_error": claim.inputs["position_error"]})
        if claim.inputs.get("accepts_coarser") is False and not c <= pe:
            return violated(claim, {"why": "a mesh that does not accept a coarser grid must meet its position error",
                                    "position_bound": claim.value["position_bound"],
                                    "position_error": claim.inputs["position_error"]})
    if nu * nv > MAX_EXACT_CELLS:
        return undecided(claim, None, note=f"{nu * nv} cells: beyond the exact oracle's {MAX_EXACT_CELLS}")
    best = gmpy2.mpq(0)
    boxes = 0
    for a, b, u0, u1, v0, v1 in _cells(nu, nv):
        r = enclose_cell_distance(C, u0, u1, v0, v1, Gd[a, b], Gd[a + 1, b], Gd[a, b + 1], Gd[a + 1, b + 1], c,
                                  MAX_BOXES)
        boxes += r.boxes
        best = max(best, r.lower_sq)
        if r.holds is False:
            tri, (x, w), val = r.witness
            t = _tightness(val, c)
            return violated(claim, {"cell": [a, b], "triangle": tri, "duffy_point": [enc(x), enc(w)],
                                    "distance_squared": enc(val), "claimed": enc(c)},
                            measure="tightness", measured=t, bound_use=t)
        if r.holds is None:
            return undecided(claim, [math.sqrt(float(r.lower_sq)), math.sqrt(float(r.upper_sq))],
                             note=f"cell ({a}, {b}) undecided within {MAX_BOXES} boxes per triangle",
                             bound_use=_tightness(best, c))
    tight = _tightness(best, c)
    bin_ = next(name for lim, name in _TIGHT_BINS if tight < lim)
    return verified(claim, measure="tightness", measured=tight, note=f"{nu * nv} cells, {boxes} boxes",
                    bound_use=tight, **{bin_: 1})


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
    if "status" in claim.value:
        return _check_budget_failure(claim, narrowed, topo)
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
    # The degeneracy report: triangles with two equal float32 positions, singular vertex normals,
    # and a Reject mesh has neither.
    P = positions[vidx[tris]].astype(np.float64)
    same = [np.all(P[:, i] == P[:, j], axis=-1) for i, j in ((0, 1), (1, 2), (0, 2))]
    degenerate = int(np.count_nonzero(same[0] | same[1] | same[2]))
    if "degenerate_triangle_count" in v and int(v["degenerate_triangle_count"]) != degenerate:
        return violated(claim, {"why": "degenerate_triangle_count is not the number of triangles with two equal "
                                       "positions", "claimed": v["degenerate_triangle_count"], "expected": degenerate})
    singular = None
    if "vertex_status" in v:
        status = np.asarray(v["vertex_status"], dtype=np.int64)
        if status.shape != (nvert,) or np.any((status < 0) | (status > 2)):
            raise ValueError("vertex_status: one code 0 (OK), 1 (Degenerate) or 2 (IllConditioned) per vertex")
        singular = int(np.count_nonzero(status))
        if "singular_normal_count" in v and int(v["singular_normal_count"]) != singular:
            return violated(claim, {"why": "singular_normal_count is not the number of singular vertex statuses",
                                    "claimed": v["singular_normal_count"], "expected": singular})
    profile = claim.inputs.get("profile")
    counters = {}
    if profile is not None:
        if profile["degeneracy"] == "Reject" and (degenerate or singular):
            return violated(claim, {"why": "a Reject mesh has no triangle with two equal positions and no singular "
                                           "vertex normal", "degenerate_triangles": degenerate,
                                    "singular_normals": singular})
        verdict = _check_levels(claim, narrowed, topo, levels, profile)
        if verdict is not None:
            if verdict.kind.value != "Verified":
                return verdict
            counters = verdict.extra
    closed = not boundary
    return verified(claim, measure="mismatches", measured=0,
                    note=f"{len(uses)} mesh edges, {'closed (watertight)' if closed else f'{len(boundary)} on boundaries'}",
                    **({"watertight_meshes": 1} if closed else {}), **counters)


# --- The refinement rule -----------------------------------------------------------------------

CLEAR_FACTOR = 0.875  # restated from docs/decisions.md ("clearly smaller"); a test compares it
REPLAY_MAX_LEVEL = 12  # grids beyond 2^12 cells a side are not replayed


class _Ambiguous(Exception):
    """A decision of the rule lies within the implementation's allowance: not decidable."""


def _allowance(C) -> float:
    """How far above the exact first two terms an implementation's cell bound may lie while it
    refines: its outward rounding and the a-priori bound of its emitted vertices' rounding,
    ``sqrt(3) (ulp32(2E) + 256 u E)`` (docs/decisions.md, "Surface meshes: judging the
    refinement rule")."""
    E = float(np.max(np.abs(np.asarray(C, dtype=np.float64))))
    return math.sqrt(3.0) * (float(ulp32(np.float32(min(2.0 * E, 3.0e38)))) + 256.0 * 2.0**-53 * E) * (1 + 2.0**-40)


class _Replay:
    """The spec's refinement and agreement rule on enclosures of each grid's normalized bound:
    ``[exact(t1 + t2), exact(t1 + t2) + allowance] / position_error`` (cell maxima)."""

    def __init__(self, controls, target: float, top: int):
        self.C, self.target, self.top = controls, target, top
        self.cache = {}
        self.tests = 0  # cells of every grid evaluated once (docs/decisions.md: the cell-test count)
        self.allow = [_allowance(c) for c in controls]

    def crit(self, p, lu, lv):
        key = (p, lu, lv)
        if key not in self.cache:
            if max(lu, lv) > REPLAY_MAX_LEVEL:
                raise _Ambiguous(f"patch {p}: level ({lu}, {lv}) beyond the replay's {REPLAY_MAX_LEVEL}")
            lo, hi = cell_term_enclosures(self.C[p], lu, lv)
            self.tests += (1 << lu) * (1 << lv)
            w = 1 + 2.0**-50  # the two quotients' rounding
            self.cache[key] = (float(np.max(lo)) / self.target / w,
                               (float(np.max(hi)) + self.allow[p]) / self.target * w)
        return self.cache[key]

    def settle(self, p, lu, lv):
        while True:
            lo, hi = self.crit(p, lu, lv)
            if hi <= 1.0:
                return lu, lv, True
            if lo <= 1.0:
                raise _Ambiguous(f"patch {p}: grid ({lu}, {lv}) normalized bound [{lo:.17g}, {hi:.17g}] straddles 1")
            can_u, can_v = lu < self.top, lv < self.top
            if not can_u and not can_v:
                return lu, lv, False
            if can_u and can_v:
                (ul, uh), (vl, vh) = self.crit(p, lu + 1, lv), self.crit(p, lu, lv + 1)
                if uh < CLEAR_FACTOR * vl:
                    lu += 1
                elif vh < CLEAR_FACTOR * ul:
                    lv += 1
                elif ul >= CLEAR_FACTOR * vh and vl >= CLEAR_FACTOR * uh:  # a near-tie: coarser, then u
                    if lu <= lv:
                        lu += 1
                    else:
                        lv += 1
                else:
                    raise _Ambiguous(f"patch {p} at ({lu}, {lv}): refining u gives [{ul:.6g}, {uh:.6g}], v "
                                     f"[{vl:.6g}, {vh:.6g}]: clearly smaller or a near-tie is not decided")
            elif can_u:
                lu += 1
            else:
                lv += 1


def _along(levels, p, side):
    return levels[p][1] if side in ("U0", "U1") else levels[p][0]


def replay_levels(controls, topo, target: float, max_level: int, counted: bool = False):
    """``(levels, met)`` (and the cell-test count when ``counted``) the spec's rule gives: every patch from (0, 0), the direction whose
    refinement gives the clearly smaller normalized bound (below ``CLEAR_FACTOR`` times the
    other's), near-ties the coarser direction then u; then each shared edge takes the larger of
    its two along-edge levels and the patches whose levels changed are refined again, until the
    network agrees. Raises ``_Ambiguous`` where a decision is within the allowance."""
    n = len(controls)
    rp = _Replay(controls, target, max_level)
    levels, met = [(0, 0)] * n, [True] * n
    pending = set(range(n))
    shared = [e["incidences"] for e in topo.edges if len(e["incidences"]) == 2]
    while pending:
        for p in sorted(pending):
            lu, lv, ok = rp.settle(p, *levels[p])
            levels[p], met[p] = (lu, lv), ok
        pending = set()
        again = True
        while again:
            again = False
            for incs in shared:
                m = max(_along(levels, p, side) for (p, _pid, side, _rev) in incs)
                for (p, _pid, side, _rev) in incs:
                    if _along(levels, p, side) < m:
                        lu, lv = levels[p]
                        levels[p] = (lu, m) if side in ("U0", "U1") else (m, lv)
                        pending.add(p)
                        again = True
    return (levels, met, rp.tests) if counted else (levels, met)


def _check_budget_failure(claim, narrowed, topo):
    """A claimed BudgetExceeded of the refinement: the rule must exceed ``max_cell_tests`` (field
    max_cell_tests) or stop a patch at ``max_level`` without meeting the position error and
    without a coarser mesh accepted (field max_level)."""
    v, profile = claim.value, claim.inputs.get("profile")
    if v.get("status") != "BudgetExceeded" or v.get("field") not in ("max_level", "max_cell_tests") or not profile:
        raise ValueError("a failure claim is BudgetExceeded of max_level or max_cell_tests, with the profile")
    if profile["precision"] == "Visual" and dec(profile["normal_angle_error"]) > 0:
        return undecided(claim, None, note="a Visual normal angle: the refinement is not replayed")
    try:
        want, met, tests = replay_levels(narrowed.astype(np.float64), topo, dec(profile["position_error"]),
                                         int(profile["max_level"]), counted=True)
    except _Ambiguous as why:
        return undecided(claim, None, note=f"refinement rule: {why}")
    over = "max_cell_tests" in profile and tests > int(profile["max_cell_tests"])
    stopped = any(not ok for ok in met) and not profile["coarser"]
    # (both may hold: the build fails at whichever comes first, so either is accepted then)
    if v["field"] == "max_cell_tests" and over or v["field"] == "max_level" and stopped:
        return verified(claim, measure="mismatches", measured=0, note=f"BudgetExceeded ({v['field']}) replayed: "
                        f"{tests} cell tests, levels {want}")
    return violated(claim, {"why": "the refinement rule does not exceed this budget", "claimed": v,
                            "cell_tests": tests, "max_cell_tests": profile.get("max_cell_tests"),
                            "levels": want, "met": met})


def _check_levels(claim, narrowed, topo, levels, profile):
    """The claimed levels are the rule's (None when the profile asks for a Visual normal angle,
    whose Estimated sampling the replay does not restate)."""
    if profile["precision"] == "Visual" and dec(profile["normal_angle_error"]) > 0:
        return None
    target = dec(profile["position_error"])
    if not target > 0:
        return None
    try:
        want, met, tests = replay_levels(narrowed.astype(np.float64), topo, target, int(profile["max_level"]),
                                         counted=True)
    except _Ambiguous as why:
        return undecided(claim, None, note=f"refinement rule: {why}")
    if "max_cell_tests" in profile and tests > int(profile["max_cell_tests"]):
        return violated(claim, {"why": "the rule's refinement evaluates more cells than max_cell_tests, so the build "
                                       "must fail (BudgetExceeded)", "cell_tests": tests,
                                "max_cell_tests": profile["max_cell_tests"]})
    for p, ok in enumerate(met):
        if not ok and not profile["coarser"]:
            return violated(claim, {"why": "the rule stops this patch at max_level without meeting the position "
                                           "error, so the build must fail (BudgetExceeded)", "patch": p,
                                    "levels": list(want[p])})
    if [tuple(x) for x in levels] != [tuple(x) for x in want]:
        k = next(i for i, (a, b) in enumerate(zip(levels, want)) if tuple(a) != tuple(b))
        return violated(claim, {"why": "levels differ from the refinement rule's (clearly smaller direction, "
                                       "near-ties coarser then u, shared edges at the larger level)",
                                "patch": k, "claimed": list(levels[k]), "rule": list(want[k])})
    return verified(claim, levels_replayed=1)


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
    grids = [_grid_inputs(d) for d in claim.inputs["patches"]]
    cells = sum(nu * nv for _, nu, nv, _ in grids)
    if cells > MAX_EXACT_CELLS:
        return undecided(claim, None, note=f"{cells} cells: beyond the exact oracle's {MAX_EXACT_CELLS}")
    for pi_, (C, nu, nv, Gd) in enumerate(grids):
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
                    cal = ratio(true_lo, est) if est > 0 else math.inf
                    return violated(claim, {"patch": pi_, "cell": [a, b], "why": "the true normal leaves "
                                            f"{ACCEPTANCE_FACTOR} x estimate + slack", "allowed": theta,
                                            "true_at_least": true_lo}, measure="calibration",
                                    measured=cal, bound_use=cal / ACCEPTANCE_FACTOR)
                if ok is None:
                    return undecided(claim, [true_lo, None], note=f"patch {pi_} cell ({a}, {b}) undecided")
    cal = ratio(true_lo, est) if est > 0 else 0.0
    bin_ = next(name for lim, name in _CAL_BINS if cal < lim)
    # bound_use: the measured factor over the acceptance factor (a lower estimate: sampled)
    return verified(claim, measure="calibration", measured=cal, note=f"true angle at least {true_lo:.3g} rad",
                    bound_use=cal / ACCEPTANCE_FACTOR, **{bin_: 1})


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
    if "status" in claim.value:  # the other budget: the rule does not exceed both
        other = {"max_level": "max_cell_tests", "max_cell_tests": "max_level"}[claim.value["field"]]
        return _replace(claim, value={**claim.value, "field": other})
    vp = [list(p) for p in claim.value["vertex_positions"]]
    vp[0][0] = enc(float(np.nextafter(np.float32(dec(vp[0][0])), np.float32(np.inf))))
    return _replace(claim, value={**claim.value, "vertex_positions": vp})


def _plant_normal_angle(claim):
    est = dec(claim.value["normal_angle_estimate"])
    return _replace(claim, value={"normal_angle_estimate": enc(est / 1000.0)})


_GRID = S.obj(required={"controls": S.matrix(S.f32(), [4, 4, 3]), "level_u": S.integer(minimum=0, maximum=24),
                        "level_v": S.integer(minimum=0, maximum=24), "grid": S.matrix(S.f32(), [None, None, 3])})
_NETWORK = SF.NETWORK_SCHEMA
_INDEX = S.integer(minimum=0, maximum=2**32 - 1)
_BOUND_INPUTS = S.obj(required=_GRID["properties"],
                      optional={"position_error": S.f64(nonnegative=True), "accepts_coarser": S.boolean()})
_PROFILE = S.obj(required={"precision": S.enum(["Strict", "Visual"]), "position_error": S.f64(nonnegative=True),
                           "normal_angle_error": S.f64(nonnegative=True), "coarser": S.boolean(),
                           "degeneracy": S.enum(["Reject", "Report"]),
                           "max_level": S.integer(minimum=0, maximum=24)},
                 optional={"max_cell_tests": S.integer(minimum=0)})
_MESH_INPUTS = S.obj(required=_NETWORK["properties"], optional={"profile": _PROFILE})

CONTRACTS = {
    "tessellation.position_bound": RowContract(
        checks="For every cell of the patch grid, an exact rational branch and bound (Bernstein hull of S - T on "
               "each triangle's Duffy square, T the linear interpolant of the emitted float32 vertices) shows "
               "max |S - T| <= the claimed position_bound; a point with |S - T| above it is a violation. With "
               "the profile's position_error, is_within_position_error must be position_bound <= position_error, "
               "and a mesh that does not accept a coarser grid must be within it.",
        inputs=_BOUND_INPUTS, value=S.obj(required={"position_bound": S.f64(nonnegative=True)},
                                          optional={"is_within_position_error": S.boolean()}),
        plant=_plant_position_bound),
    "tessellation.shared_positions": RowContract(
        checks="Replaying the exact topology: complete patch grids, vertex positions bitwise copies of their shared "
               "positions, one position index per corner record, canonical edge sample and grid point, equal "
               "along-edge levels on shared edges (no T-junction), exact corner positions, the two counterclockwise "
               "triangles of every cell, and every mesh edge used twice (once on a boundary side); the degenerate "
               "triangle count (two equal float32 positions) and singular normal count exact, none under Reject; "
               "with the profile, the levels equal the refinement rule's, replayed on enclosures of the exact first "
               "two cell terms widened by sqrt(3) (ulp32(2E) + 256 u E) (clearly smaller below 7/8 of the other "
               "direction, near-ties the coarser then u, shared edges at the larger level), undecided inside them.",
        inputs=_MESH_INPUTS, value=S.any_of(S.obj(required={
            "levels": S.array(S.vec(S.integer(minimum=0, maximum=24), 2), min_items=1),
            "positions": S.matrix(S.f32(), [None, 3]), "vertex_positions": S.matrix(S.f32(), [None, 3]),
            "vertex_position_index": S.array(_INDEX), "vertex_patch": S.array(_INDEX),
            "vertex_parameters": S.matrix(S.f32(), [None, 2]), "indices": S.matrix(_INDEX, [None, 3])},
            optional={"vertex_status": S.array(S.integer(minimum=0, maximum=2)),
                      "singular_normal_count": S.integer(minimum=0),
                      "degenerate_triangle_count": S.integer(minimum=0)}),
            S.obj(required={"status": S.const("BudgetExceeded"), "field": S.enum(["max_level", "max_cell_tests"])})),
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
    default_cases=30,
    generate=generate,
    claims=claims,
    checkers={"tessellation.position_bound": check_position_bound,
              "tessellation.shared_positions": check_shared_positions,
              "tessellation.normal_angle": check_normal_angle},
    contracts=CONTRACTS,
    oracle_precisions=(113,),
)
