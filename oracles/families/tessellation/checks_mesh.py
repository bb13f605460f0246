"""Tessellation checker of the mesh: ``tessellation.shared_positions`` (Exact).

The topology is replayed exactly (``interval.surface.exact_topology`` on the replayed
narrowing); every patch grid is complete, vertex positions are bitwise copies of their shared
positions, two vertices share a position index exactly when they are the same corner record,
the same canonical sample of one edge, or the same grid point; shared edges have equal
along-edge levels (no T-junction); corner positions equal the exact corners; the triangles are
the two counterclockwise triangles of every cell; every mesh edge is used by two triangles, or
by one on a boundary side (closed networks: watertight); the degenerate-triangle and
singular-normal counts are exact and a Reject mesh has neither; with the profile the levels are
the refinement rule's (``refinement.replay_levels``; Undecided inside the implementation's
allowance), and a claimed BudgetExceeded of max_level or max_cell_tests must be the rule's.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from interval.context import lower, to_mpq
from interval.surface import SIDE_NAMES, TopologyFailure, enclose_length, exact_cross, exact_partials, exact_topology
from reference.surface import normal_bound

from ...decide import refine

from ...model import Claim, dec, enc, int_array, undecided, verified, violated
from ...rules import declare, default, spec
from ..surface.checks import array, network
from ..surface.checks_evaluation import BUDGET, magnitude, unit_normal_within
from .refinement import Ambiguous, replay_levels
import itertools

__all__ = ["RULES", "check_shared_positions"]

_S = "spec 002 Surface meshes: "
NETWORK = spec("tessellation:network", _S + "'TryBuildSurfaceMesh tessellates every patch' of a prepared surface: a "
               "network that does not narrow or is InvalidTopology has no mesh")
GRID = spec("tessellation:grid", _S + "'TryBuildSurfaceMesh tessellates every patch as a dyadic grid of 2^LevelU x "
            "2^LevelV cells. Each cell becomes two triangles along its (u0, v0)-(u1, v1) diagonal, counterclockwise in "
            "(u, v)': complete grids, one vertex per grid point, indices in range, those triangles and no others")
SHARED_POSITIONS = spec("tessellation:shared_positions", _S + "'SurfaceMeshView::Positions emits each corner and each "
                        "edge sample once ... Every SurfaceMeshVertex copies its shared position bitwise ... Two "
                        "patches therefore meet without cracks or T-junctions'; spec 002 Surfaces: corners have 'one "
                        "exact position': bitwise copies, one index per surface point, exact corners, every edge used "
                        "twice (once on a boundary side)")
DEGENERACY = spec("tessellation:degeneracy", _S + "'SurfaceDegeneracyPolicy::Reject fails on a singular vertex normal "
                  "or a triangle with two equal positions. Report emits a zero normal with its status and counts both "
                  "cases in the report': the counts are exact and a Reject mesh has neither")
REFINEMENT = spec("tessellation:refinement", _S + "'While a cell misses the profile, the direction whose refinement "
                  "gives the clearly smaller normalized bound is refined. Near-ties refine the coarser direction, then "
                  "u. Each shared edge then takes the larger of its two along-edge levels': the levels are the rule's "
                  "(Undecided inside the implementation's allowance)")
CLEAR_FACTOR = default("tessellation:clear_factor", "docs/decisions.md 'Surface meshes: refinement order, ties and "
                       "agreement': 'clearly smaller' is below CLEAR_FACTOR = 7/8 of the other direction's bound (the "
                       "spec's open word)")
BUDGETS = spec("tessellation:budgets", _S + "'MaxCellTests, MaxVertices, MaxTriangles and MaxOutputBytes always fail "
               "with BudgetExceeded'; Strict 'accepts only Certified position bounds' (a patch MaxLevel stops fails "
               "without IsCoarserMeshAccepted): a build the rule stops must fail, a claimed failure must be the rule's")

VERTEX_NORMALS = default("tessellation:vertex_normals", "docs/decisions.md 'Surface meshes: vertex normals': an OK "
                         "vertex's normal within the surface normal's Rounded bound (reference.surface.normal_bound, "
                         "the surface.evaluation row's model) at float32's unit roundoff, the format it is stored in, "
                         "of its own patch's unit normal at its own parameter, a singular vertex's normal zero (spec "
                         "002 Surface meshes: "
                         "'its normal and Parameter belong to its own patch'; 'Report emits a zero normal with its "
                         "status'; Guarantees: surface normals are Rounded)")

RULES = declare({"tessellation.shared_positions": (NETWORK, GRID, SHARED_POSITIONS, DEGENERACY, REFINEMENT,
                                                   CLEAR_FACTOR, BUDGETS, VERTEX_NORMALS)})

# A vertex normal is stored in float32: it is judged by the surface normal's Rounded model at
# float32's unit roundoff (so a float32 computation passes, and a float64 one narrowed once does
# with room to spare).
_U32, _ETA32 = 2.0**-24, 2.0**-149


def _check_vertex_normals(claim: Claim, narrowed, vpatch, vpar, status):
    """The claimed vertex normals (when claimed): a vertex whose status is not OK carries a zero
    normal; every other one is within ``normal_bound`` at float32's unit roundoff (Euclidean)
    of the exact unit normal ``Su x Sv / |Su x Sv|`` of its own patch at its own float32
    parameter (exact partials, the unit vector enclosed and refined as the surface.evaluation
    row does). Where the exact
    cross product is zero there is no direction to compare (the status decision is the surface
    rows' to judge). None, or the Violated (or Undecided) verdict."""
    v = claim.value
    if "vertex_normals" not in v:
        return None
    N = array(v["vertex_normals"], np.float32).reshape(-1, 3)
    if N.shape[0] != vpatch.shape[0]:
        raise ValueError("vertex_normals: one normal per vertex")
    for i in range(N.shape[0]):
        n = N[i].astype(np.float64)
        if status is not None and status[i] != 0:
            if np.any(n != 0):
                return violated(claim, {"why": f"vertex {i} has a singular normal (status {int(status[i])}) but its "
                                               "normal is not zero", "normal": enc(n)}, rule=VERTEX_NORMALS.id)
            continue
        if status is None and not np.any(n != 0):
            continue  # no status claimed: a zero normal may be a singular vertex's
        C = np.asarray(narrowed[int(vpatch[i])], dtype=np.float64)
        u, w = float(vpar[i, 0]), float(vpar[i, 1])
        parts = exact_partials(C, u, w)
        cross = exact_cross(parts[1], parts[2])
        if all(c == 0 for c in cross):
            continue
        Lx_lo = float(lower(enclose_length(cross, BUDGET[0])))
        b = to_mpq(normal_bound(magnitude(C), Lx_lo * (1 - 2**-50), _U32, _ETA32))
        d = refine(unit_normal_within(cross, n, b), BUDGET)
        if d.holds is False:
            return violated(claim, {"why": f"vertex {i}'s normal is not its own patch's unit normal at its parameter "
                                           f"(patch {int(vpatch[i])}, (u, v) = ({u!r}, {w!r}))",
                                    "normal": enc(n), "error_interval": d.enclosure, "bound": float(b)},
                            rule=VERTEX_NORMALS.id)
        if d.holds is None:
            return undecided(claim, d.enclosure, note=f"vertex {i}'s normal straddles its bound at the precision "
                                                      "budget")
    return None


def _corner_name(a, b, nu, nv):
    return {(0, 0): "U0V0", (nu, 0): "U1V0", (0, nv): "U0V1", (nu, nv): "U1V1"}[(a, b)]


def check_shared_positions(claim: Claim):
    """Exact: grids complete, bitwise copies, position identity exactly by topology, no
    T-junction, exact corner positions, the two counterclockwise triangles of every cell, and
    every mesh edge used twice (once on a boundary side)."""
    ids, narrowed, joins = network(claim)
    if narrowed is None:
        return violated(claim, {"why": "the network does not narrow: no mesh can exist"}, rule=NETWORK.id)
    topo = exact_topology(ids, narrowed, joins)
    if isinstance(topo, TopologyFailure):
        return violated(claim, {"why": f"the network is InvalidTopology ({topo.rule}): no mesh can exist"},
                        rule=NETWORK.id)
    if "status" in claim.value:
        return _check_budget_failure(claim, narrowed, topo)
    v = claim.value
    n = len(ids)
    levels = [(int(x[0]), int(x[1])) for x in v["levels"]]
    if len(levels) != n or any(not (0 <= lu <= 24 and 0 <= lv <= 24) for lu, lv in levels):
        raise ValueError("levels: one [level_u, level_v] in [0, 24] per patch")
    positions = array(v["positions"], np.float32).reshape(-1, 3)
    vpos = array(v["vertex_positions"], np.float32).reshape(-1, 3)
    vidx = int_array(v["vertex_position_index"])
    vpatch = int_array(v["vertex_patch"])
    vpar = array(v["vertex_parameters"], np.float32).reshape(-1, 2)
    tris = int_array(v["indices"]).reshape(-1, 3)
    nvert = vpos.shape[0]
    if not (vidx.shape == (nvert,) and vpatch.shape == (nvert,) and vpar.shape == (nvert, 2)):
        raise ValueError("vertex arrays of unequal lengths")
    if np.any(vidx < 0) or np.any(vidx >= positions.shape[0]) or np.any(tris < 0) or np.any(tris >= nvert):
        return violated(claim, {"why": "an index is out of range"}, rule=GRID.id)
    # Bitwise copies.
    copies = np.all(vpos.view(np.uint32) == positions[vidx].view(np.uint32), axis=1)
    if not np.all(copies):
        i = int(np.flatnonzero(~copies)[0])
        return violated(claim, {"why": "a vertex position is not a bitwise copy of its shared position", "vertex": i,
                                "vertex_position": enc(vpos[i]), "shared_position": enc(positions[vidx[i]])},
                        rule=SHARED_POSITIONS.id)
    # Vertex of each (patch, a, b).
    where = {}
    for i in range(nvert):
        p = int(vpatch[i])
        if not 0 <= p < n:
            return violated(claim, {"why": "vertex of an unknown patch", "vertex": i}, rule=GRID.id)
        nu, nv = 1 << levels[p][0], 1 << levels[p][1]
        a, b = to_mpq(float(vpar[i, 0])) * nu, to_mpq(float(vpar[i, 1])) * nv
        if a.denominator != 1 or b.denominator != 1 or not (0 <= a <= nu and 0 <= b <= nv):
            return violated(claim, {"why": "a vertex parameter is not a grid point", "vertex": i}, rule=GRID.id)
        key = (p, int(a), int(b))
        if key in where:
            return violated(claim, {"why": "a grid point has two vertices", "vertices": [where[key], i]}, rule=GRID.id)
        where[key] = i
    expected = sum(((1 << lu) + 1) * ((1 << lv) + 1) for lu, lv in levels)
    if len(where) != expected:
        return violated(claim, {"why": "a patch grid is incomplete", "vertices": len(where), "expected": expected},
                        rule=GRID.id)
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
                                        "edge": [e["id"][0], e["id"][1]], "levels": al}, rule=SHARED_POSITIONS.id)

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
                                    "indices": [owner_of_key[key], idx]}, rule=SHARED_POSITIONS.id)
        if idx in key_of_index and key_of_index[idx] != key:
            return violated(claim, {"why": "two surface points share one position index", "index": idx,
                                    "points": [str(key_of_index[idx]), str(key)]}, rule=SHARED_POSITIONS.id)
        owner_of_key[key] = idx
        key_of_index[idx] = key
        if key[0] == "corner":
            want = topo.corners[key[1]]["position"]
            if [to_mpq(float(x)) for x in positions[idx]] != want:
                return violated(claim, {"why": "a corner position is not the exact corner", "index": idx,
                                        "claimed": enc(positions[idx]), "exact": [str(x) for x in want]},
                                rule=SHARED_POSITIONS.id)
    if len(key_of_index) != positions.shape[0]:
        return violated(claim, {"why": "positions that no vertex uses, or a position emitted twice",
                                "positions": int(positions.shape[0]), "used": len(key_of_index)},
                        rule=SHARED_POSITIONS.id)
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
            for (a0, b0), (a1, b1) in itertools.pairwise(pts):
                boundary.add(frozenset((int(vidx[where[(p, a0, b0)]]), int(vidx[where[(p, a1, b1)]]))))
    got = Counter(_rot(tuple(int(x) for x in t)) for t in tris)
    if got != want:
        extra = list((got - want).keys())[:1]
        missing = list((want - got).keys())[:1]
        return violated(claim, {"why": "the triangles are not the two counterclockwise triangles of every cell",
                                "unexpected": [list(t) for t in extra], "missing": [list(t) for t in missing]},
                        rule=GRID.id)
    # Edge use on shared positions.
    uses = Counter()
    for t in vidx[tris]:
        for x, y in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
            uses[frozenset((int(x), int(y)))] += 1
    for e, cnt in uses.items():
        need = 1 if e in boundary else 2
        if cnt != need:
            return violated(claim, {"why": "a mesh edge is not used by exactly two triangles (one on a boundary)",
                                    "edge": sorted(e), "uses": cnt, "expected": need}, rule=SHARED_POSITIONS.id)
    # The degeneracy report: triangles with two equal float32 positions, singular vertex normals,
    # and a Reject mesh has neither.
    P = positions[vidx[tris]].astype(np.float64)
    same = [np.all(P[:, i] == P[:, j], axis=-1) for i, j in ((0, 1), (1, 2), (0, 2))]
    degenerate = int(np.count_nonzero(same[0] | same[1] | same[2]))
    if "degenerate_triangle_count" in v and int(v["degenerate_triangle_count"]) != degenerate:
        return violated(claim, {"why": "degenerate_triangle_count is not the number of triangles with two equal "
                                       "positions", "claimed": v["degenerate_triangle_count"], "expected": degenerate},
                        rule=DEGENERACY.id)
    singular = None
    if "vertex_status" in v:
        status = int_array(v["vertex_status"])
        if status.shape != (nvert,) or np.any((status < 0) | (status > 2)):
            raise ValueError("vertex_status: one code 0 (OK), 1 (Degenerate) or 2 (IllConditioned) per vertex")
        singular = int(np.count_nonzero(status))
        if "singular_normal_count" in v and int(v["singular_normal_count"]) != singular:
            return violated(claim, {"why": "singular_normal_count is not the number of singular vertex statuses",
                                    "claimed": v["singular_normal_count"], "expected": singular}, rule=DEGENERACY.id)
    bad = _check_vertex_normals(claim, narrowed, vpatch, vpar, status if singular is not None else None)
    if bad is not None:
        return bad
    profile = claim.inputs.get("profile")
    counters = {}
    if profile is not None:
        if profile["degeneracy"] == "Reject" and (degenerate or singular):
            return violated(claim, {"why": "a Reject mesh has no triangle with two equal positions and no singular "
                                           "vertex normal", "degenerate_triangles": degenerate,
                                    "singular_normals": singular}, rule=DEGENERACY.id)
        verdict = _check_levels(claim, narrowed, topo, levels, profile)
        if verdict is not None:
            if verdict.kind.value != "Verified":
                return verdict
            counters = verdict.extra
    closed = not boundary
    return verified(claim, measure="mismatches", measured=0,
                    note=f"{len(uses)} mesh edges, "
                         f"{'closed (watertight)' if closed else f'{len(boundary)} on boundaries'}",
                    **({"watertight_meshes": 1} if closed else {}), **counters)




def _check_budget_failure(claim, narrowed, topo):
    """A claimed BudgetExceeded of the refinement: the rule must exceed ``max_cell_tests`` (field
    max_cell_tests) or stop a patch at ``max_level`` without meeting the position error and
    without a coarser mesh accepted (field max_level)."""
    v, profile = claim.value, claim.inputs.get("profile")
    if v.get("status") != "BudgetExceeded" or v.get("field") not in ("max_level", "max_cell_tests") or not profile:
        raise ValueError("a failure claim is BudgetExceeded of max_level or max_cell_tests, with the profile")
    if (v["field"] == "max_cell_tests" and "max_cell_tests" in profile
            and int(profile["max_cell_tests"]) < len(narrowed)):
        # "Every patch starts at level (0, 0)": the rule tests each patch's first grid, one cell
        # each, whatever it does next.
        return verified(claim, measure="mismatches", measured=0, note=f"BudgetExceeded (max_cell_tests): "
                        f"{len(narrowed)} patches need at least {len(narrowed)} cell tests")
    if profile["precision"] == "Visual" and dec(profile["normal_angle_error"]) > 0:
        return undecided(claim, None, note="a Visual normal angle: the refinement is not replayed")
    try:
        want, met, tests = replay_levels(narrowed.astype(np.float64), topo, dec(profile["position_error"]),
                                         int(profile["max_level"]), counted=True)
    except Ambiguous as why:
        return undecided(claim, None, note=f"refinement rule: {why}")
    over = "max_cell_tests" in profile and tests > int(profile["max_cell_tests"])
    stopped = any(not ok for ok in met) and not profile["coarser"]
    # (both may hold: the build fails at whichever comes first, so either is accepted then)
    if (v["field"] == "max_cell_tests" and over) or (v["field"] == "max_level" and stopped):
        return verified(claim, measure="mismatches", measured=0, note=f"BudgetExceeded ({v['field']}) replayed: "
                        f"{tests} cell tests, levels {want}")
    return violated(claim, {"why": "the refinement rule does not exceed this budget", "claimed": v,
                            "cell_tests": tests, "max_cell_tests": profile.get("max_cell_tests"),
                            "levels": want, "met": met}, rule=BUDGETS.id)


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
    except Ambiguous as why:
        return undecided(claim, None, note=f"refinement rule: {why}")
    if "max_cell_tests" in profile and tests > int(profile["max_cell_tests"]):
        return violated(claim, {"why": "the rule's refinement evaluates more cells than max_cell_tests, so the build "
                                       "must fail (BudgetExceeded)", "cell_tests": tests,
                                "max_cell_tests": profile["max_cell_tests"]}, rule=BUDGETS.id)
    for p, ok in enumerate(met):
        if not ok and not profile["coarser"]:
            return violated(claim, {"why": "the rule stops this patch at max_level without meeting the position "
                                           "error, so the build must fail (BudgetExceeded)", "patch": p,
                                    "levels": list(want[p])}, rule=BUDGETS.id)
    if [tuple(x) for x in levels] != [tuple(x) for x in want]:
        k = next(i for i, (a, b) in enumerate(zip(levels, want)) if tuple(a) != tuple(b))
        return violated(claim, {"why": "levels differ from the refinement rule's (clearly smaller direction, "
                                       "near-ties coarser then u, shared edges at the larger level)",
                                "patch": k, "claimed": list(levels[k]), "rule": list(want[k])}, rule=REFINEMENT.id)
    return verified(claim, levels_replayed=1)


def _rot(t):
    """The rotation of a triangle's vertex cycle that starts at its smallest index."""
    k = t.index(min(t))
    return t[k:] + t[:k]
