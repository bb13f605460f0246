"""Tessellation requests: the corpus as requests, each step with the status the spec demands.

A case is a scenario: ``TryPrepareSurface`` of its network (the surface family's op, claims
left to that family), then ``TryBuildSurfaceMesh`` with the case's profile into the caller's
mesh. The first ``corpus.NAMED`` (28) requests are the named cases of ``corpus.py``; then come
the status contracts (:func:`status_requests`, 41 requests, so ``--cases 69`` reaches the last
of them): every status the spec and our decisions name for TryBuildSurfaceMesh, each limit
(max_level, max_cell_tests, max_vertices, max_triangles, max_output_bytes) met with equality
(must succeed) and exceeded by one (must fail), the position floor met and missed by one
float64 step, and failed rebuilds that must keep the previous mesh ("Every failure keeps the
previous mesh"). The rest are random small grids.

Expected statuses are decided here from the spec's text and ``docs/decisions.md`` ("Surface
meshes: ..."), on the exact inputs, never by running the fast path: the surface by the surface
family's ``expected_prepare`` (exact narrowing, floor and topology); the levels, the cell-test
count and the budget failures by the refinement rule replayed on exact cell terms
(``refinement.replay_levels``, the oracle of ``tessellation.shared_positions``), the counts from
those levels and the exact topology; Reject's singular vertex normals by the exact normal
decision with its rounding band (the surface family's ``normal_statuses``) and its equal
positions by exact corner records and exact surface points. Where the oracle cannot decide (a
Visual normal angle, whose Estimated sampling it does not restate; a refinement decision inside
the implementation's allowance) the expectation is ``either``, and says why.

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryPrepareSurface``: as in the surface family; output: none (the surface family's rows).
* ``TryBuildSurfaceMesh``: ``precision`` (``Strict``/``Visual``), ``position_error`` (f64),
  ``normal_angle_error`` (f64 radians), ``is_coarser_mesh_accepted``, ``degeneracy``
  (``Reject``/``Report``) and ``limits`` (every ``SurfaceMeshLimits`` field: ``max_level``,
  ``max_cell_tests``, ``max_vertices``, ``max_triangles``, ``max_output_bytes``, integers), on
  the surface the owner holds, into the caller's mesh; output: the mesh after the step, read
  from the mesh object itself: ``{"positions", "vertex_positions", "vertex_position_index",
  "vertex_normals", "vertex_parameters", "vertex_patch", "vertex_status", "indices", "report":
  {"levels", "position_bounds", "position_bound", "is_within_position_error",
  "normal_angle_estimate", "singular_normal_count", "degenerate_triangle_count",
  "cell_tests"}}`` (``{"positions": []}`` while empty).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np

from interval.context import to_mpq
from interval.narrowing import replay_position_floor
from interval.surface import exact_partials

from ...model import enc, parse_number
from ...model import is_integer as _is_int
from ...request import (
    Expect, Request, Rule, Step, collect_defects, decided_by_kinds, either, failure, interleaved, success,
)
from .checks import STATUS_NAMES
from ..surface import corpus as SC
from ..surface.requests import Prepared, expected_prepare, normal_statuses, prepare_inputs
from . import corpus as TC
from .refinement import Ambiguous, replay_levels

__all__ = [
    "LIMIT_RANGES",
    "MAX_VERTEX_COUNT",
    "OUTPUT_BYTES",
    "STATUS_REQUESTS",
    "build_inputs",
    "case_inputs",
    "case_request",
    "expected_build",
    "mesh_counts",
    "request_at",
    "requests",
    "status_requests",
]

# SurfaceMeshLimits' ranges (docs/decisions.md "Surface meshes: the profile, limits and the order
# of checks"; tests compare them with reference.tessellation.LIMIT_RANGES).
LIMIT_RANGES = {"max_level": (0, 24), "max_cell_tests": (0, 2**40), "max_vertices": (0, 2**40),
                "max_triangles": (0, 2**40), "max_output_bytes": (0, 2**48)}
# Output bytes per position, vertex, triangle and patch (the same decision).
OUTPUT_BYTES = {"position": 12, "vertex": 40, "triangle": 12, "patch": 48}
MAX_VERTEX_COUNT = 2**32  # spec 002: "More than 2^32 vertices is OutOfRange"
_MAX_POSITION_ERROR = 1e6
_REJECT_VERTICES = 4096  # Reject's degeneracy is decided vertex by vertex up to this many vertices

_ROWS = ("tessellation.position_bound", "tessellation.shared_positions")
_WHY_PROFILE = "docs/decisions.md 'Surface meshes: the profile, limits and the order of checks'"
_WHY_STRICT_ANGLE = ("spec 002 Surface meshes: 'Strict accepts only Certified position bounds. A nonzero "
                     "NormalAngleError is UnsupportedPrecision'")
_WHY_STRICT_COARSER = "spec 002 Surface meshes: 'IsCoarserMeshAccepted is InvalidArgument' (under Strict)"
_WHY_FLOOR = ("spec 002 Surface meshes: 'PositionError must be at least the surface's position floor' "
              "(UnsupportedPrecision, as for preparation: docs/decisions.md 'Surface meshes: the profile, limits "
              "and the order of checks'; exact floor, interval.narrowing)")
_WHY_BUDGET = ("spec 002 Surface meshes: 'MaxCellTests, MaxVertices, MaxTriangles and MaxOutputBytes always fail "
               "with BudgetExceeded. Counts are checked before allocation'")
_WHY_LEVEL = ("spec 002 Surface meshes: without IsCoarserMeshAccepted a patch that MaxLevel stops fails "
              "(docs/decisions.md 'Surface meshes: the profile, limits and the order of checks': BudgetExceeded)")
_WHY_RULE = ("the refinement rule replayed on exact cell terms (docs/decisions.md 'Surface meshes: judging the "
             "refinement rule')")
_WHY_RANGE = "spec 002 Surface meshes: 'More than 2^32 vertices is OutOfRange'"
_WHY_REJECT = ("spec 002 Surface meshes: 'SurfaceDegeneracyPolicy::Reject fails on a singular vertex normal or a "
               "triangle with two equal positions' (Degenerate: docs/decisions.md 'Surface meshes: the profile, "
               "limits and the order of checks')")
_WHY_KEEP = "spec 002 Surface meshes: 'Every failure keeps the previous mesh'"
_WHY_SUCCESS = "a valid profile whose mesh the refinement rule builds within every limit (spec 002 Surface meshes)"


# --- Inputs ------------------------------------------------------------------------------------


def build_inputs(precision="Strict", position_error=1.0, normal_angle_error=0.0, coarser=False, degeneracy="Report",
                 **limits) -> dict:
    """TryBuildSurfaceMesh's inputs (every profile and limit field explicit)."""
    lim = {**TC.MESH_LIMITS, "max_cell_tests": TC.CORPUS_CELL_TESTS, **limits}
    return {"precision": precision, "position_error": enc(float(position_error)),
            "normal_angle_error": enc(float(normal_angle_error)), "is_coarser_mesh_accepted": coarser,
            "degeneracy": degeneracy, "limits": {k: lim[k] for k in LIMIT_RANGES}}


def case_inputs(case: dict) -> tuple[dict, dict]:
    """``(TryPrepareSurface inputs, TryBuildSurfaceMesh inputs)`` of a corpus case: the position
    error is ``rel`` times the network's extent, raised to the surface's position floor (the
    exact replay of ``interval.narrowing``)."""
    m = case["mesh"]
    floor, _ = replay_position_floor(np.asarray(case["source"], dtype=np.float64),
                                     np.asarray(case["origin"], dtype=np.float64))
    pe = max(floor, float(np.float64(m["rel"]) * TC.extent(case)))
    return prepare_inputs(case), build_inputs(m["precision"], pe, m["angle"], bool(m["coarser"]), m["degeneracy"],
                                              **m["limits"])


# --- What the spec demands ---------------------------------------------------------------------



def _number(v):
    try:
        q = parse_number(v)
    except (ValueError, TypeError):
        return None
    return q if isinstance(q, Fraction) else None


def _along(levels, p: int, side: str) -> int:
    lu, lv = levels[p]
    return lv if side in ("U0", "U1") else lu


def mesh_counts(topo, levels) -> dict:
    """The exact output counts of the mesh of ``levels`` on the exact topology: positions (every
    corner record, each edge's interior samples, each patch's interior grid points), vertices
    (every patch's grid points), triangles (two per cell) and bytes (``OUTPUT_BYTES``)."""
    positions = len(topo.corners)
    for e in topo.edges:
        p, _pid, side, _rev = e["incidences"][0]
        positions += (1 << _along(levels, p, side)) - 1
    vertices = triangles = 0
    for lu, lv in levels:
        nu, nv = 1 << lu, 1 << lv
        positions += (nu - 1) * (nv - 1)
        vertices += (nu + 1) * (nv + 1)
        triangles += 2 * nu * nv
    b = OUTPUT_BYTES
    size = b["position"] * positions + b["vertex"] * vertices + b["triangle"] * triangles + b["patch"] * len(levels)
    return {"positions": positions, "vertices": vertices, "triangles": triangles, "bytes": size}


def _decided(e: Expect, kinds: list) -> Expect:
    """:func:`oracles.request.decided_by_kinds` resting on ``tessellation:status_names``."""
    return decided_by_kinds(e, kinds, STATUS_NAMES)


def _profile_defects(held: Prepared, inp: dict, defect) -> None:
    precision, degeneracy = inp.get("precision"), inp.get("degeneracy")
    coarser = inp.get("is_coarser_mesh_accepted")
    if precision not in ("Strict", "Visual"):
        defect("InvalidArgument", f"precision {precision!r} ({_WHY_PROFILE})", "named")
    if degeneracy not in ("Reject", "Report"):
        defect("InvalidArgument", f"degeneracy {degeneracy!r} ({_WHY_PROFILE})", "named")
    if not isinstance(coarser, bool):
        defect("InvalidArgument", f"is_coarser_mesh_accepted not a boolean ({_WHY_PROFILE})", "named")
    pe, angle = _number(inp.get("position_error")), _number(inp.get("normal_angle_error"))
    # No number, or a negative one, names no error (below the floor, for position_error); the
    # upper ends are ours alone (the spec sets none for a mesh profile).
    if pe is None or not 0 <= pe <= Fraction(_MAX_POSITION_ERROR):
        defect("InvalidArgument", f"position_error outside [0, 1e6] ({_WHY_PROFILE})",
               "named" if pe is None or pe < 0 else "ours")
    if angle is None or not 0 <= angle <= Fraction(math.pi):
        defect("InvalidArgument", f"normal_angle_error outside [0, pi] ({_WHY_PROFILE})",
               "named" if angle is None or angle < 0 else "ours")
    limits = inp.get("limits", {})
    for name, (lo, hi) in LIMIT_RANGES.items():
        v = limits.get(name)
        if not _is_int(v) or not lo <= v <= hi:
            defect("InvalidArgument", f"limits.{name} outside [{lo}, {hi}] ({_WHY_PROFILE})")
    if precision == "Strict" and angle is not None and angle != 0:
        defect("UnsupportedPrecision", _WHY_STRICT_ANGLE)
    if precision == "Strict" and coarser is True:
        defect("InvalidArgument", _WHY_STRICT_COARSER)
    if pe is not None and pe < Fraction(held.floor):
        # 'PositionError must be at least the surface's position floor': the status is ours
        defect("UnsupportedPrecision", f"position_error {float(pe)!r} < floor {held.floor!r} ({_WHY_FLOOR})",
               "named")


def _corner_record(held: Prepared) -> dict:
    """``(patch, i, j)`` -> corner record index, ``(i, j)`` the corner's (u, v) in {0, 1}^2."""
    at = {"U0V0": (0, 0), "U1V0": (1, 0), "U0V1": (0, 1), "U1V1": (1, 1)}
    return {(p,) + at[name]: k for k, c in enumerate(held.topo.corners) for p, _pid, name in c["incidences"]}


def _reject_defects(held: Prepared, levels) -> tuple[list, list]:
    """``(certain, possible)`` reasons Reject fails on the mesh of ``levels``: a vertex whose
    normal decision cannot be Success, or a triangle with two vertices of one corner record or
    of equal exact corner positions (certain); a vertex whose decision may be singular within
    its band, or two vertices whose exact points lie within the vertices' rounding of each
    other (possible)."""
    nverts = sum(((1 << lu) + 1) * ((1 << lv) + 1) for lu, lv in levels)
    if nverts > _REJECT_VERTICES:
        return [], [f"{nverts} vertices: Reject's degeneracy is not decided vertex by vertex beyond {_REJECT_VERTICES}"]
    certain, possible = [], []
    corners = _corner_record(held)
    C = held.narrowed
    for p, (lu, lv) in enumerate(levels):
        nu, nv = 1 << lu, 1 << lv
        E = float(np.max(np.abs(C[p].astype(np.float64))))
        margin = to_mpq(4.0 * float(np.spacing(np.float32(max(E, 1e-30)))))  # vertex rounding, generously
        keys, points = {}, {}
        for a in range(nu + 1):
            for b in range(nv + 1):
                u, v = a / nu, b / nv
                _exact, allowed = normal_statuses(C[p], u, v, held.dmin, held.smin)
                if "Success" not in allowed:
                    certain.append(f"patch {p} vertex ({u}, {v}): normal {'/'.join(allowed)}")
                elif len(allowed) > 1:
                    possible.append(f"patch {p} vertex ({u}, {v}): normal within its band of a threshold")
                if a in (0, nu) and b in (0, nv):
                    keys[(a, b)] = ("corner", corners[(p, a // nu, b // nv)])
                points[(a, b)] = exact_partials(C[p], u, v)[0]
        for a in range(nu):
            for b in range(nv):
                for tri in (((a, b), (a + 1, b), (a + 1, b + 1)), ((a, b), (a + 1, b + 1), (a, b + 1))):
                    for x, y in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[0], tri[2])):
                        same_record = x in keys and y in keys and keys[x] == keys[y]
                        d = max(abs(s - t) for s, t in zip(points[x], points[y]))
                        if same_record or (x in keys and y in keys and d == 0):
                            certain.append(f"patch {p} cell ({a}, {b}): two equal corner positions")
                        elif d <= 2 * margin:
                            possible.append(f"patch {p} cell ({a}, {b}): two vertices within rounding of each other")
    return certain, possible


def expected_build(held: Prepared, inp: dict) -> Expect:
    """The statuses TryBuildSurfaceMesh must end in on the held surface for these inputs: the
    profile's defects; else the refinement rule's budget failures, the counts' and Reject's
    (every defect's status: the spec orders no checks); a defect the oracle can only show
    possible makes the expectation ``either`` (with success) or widens a failure."""
    found, why, defect = collect_defects()
    _profile_defects(held, inp, defect)
    if found:
        return _decided(failure(*found, why="; ".join(why)), defect.kinds)
    possible, maybe = [], []
    possible_kinds = []  # Degenerate by Reject, possibly: our status
    limits = inp["limits"]
    pe = float(parse_number(inp["position_error"]))
    reject = inp["degeneracy"] == "Reject"
    coarser = inp["is_coarser_mesh_accepted"]
    levels = None
    if inp["precision"] == "Visual" and _number(inp["normal_angle_error"]) != 0:
        possible.append("BudgetExceeded")
        maybe.append("a Visual normal angle refines on Estimated samples the oracle does not restate "
                     "(docs/decisions.md 'Surface meshes: judging the refinement rule'): MaxLevel or MaxCellTests may "
                     "stop it")
    else:
        try:
            levels, met, tests = replay_levels(held.narrowed.astype(np.float64), held.topo, pe, limits["max_level"],
                                               counted=True)
        except Ambiguous as e:
            possible.append("BudgetExceeded")
            maybe.append(f"a refinement decision lies within the implementation's allowance ({e}; {_WHY_RULE})")
    if levels is not None:
        if tests > limits["max_cell_tests"]:
            defect("BudgetExceeded", f"the rule tests {tests} cells > max_cell_tests ({_WHY_BUDGET}; {_WHY_RULE})")
        if not all(met) and not coarser:
            # The spec demands the failure ('instead of failing' only with IsCoarserMeshAccepted); the status is ours.
            defect("BudgetExceeded", f"max_level {limits['max_level']} stops a patch short of the position error "
                                     f"({_WHY_LEVEL}; {_WHY_RULE})", "named")
        counts = mesh_counts(held.topo, levels)
        if counts["vertices"] > MAX_VERTEX_COUNT:
            defect("OutOfRange", f"{counts['vertices']} vertices ({_WHY_RANGE})")
        for key, name in (("vertices", "max_vertices"), ("triangles", "max_triangles"), ("bytes", "max_output_bytes")):
            if counts[key] > limits[name]:
                defect("BudgetExceeded", f"{counts[key]} {key} > {name} ({_WHY_BUDGET}; {_WHY_PROFILE})")
    if reject:
        if levels is None:
            possible.append("Degenerate")
            possible_kinds.append("named")
            maybe.append("Reject on levels the oracle does not decide")
        else:
            certain, poss = _reject_defects(held, levels)
            if certain:  # 'Reject fails on ...': the status is ours
                defect("Degenerate", f"{certain[0]} ({_WHY_REJECT})", "named")
            elif poss:
                possible.append("Degenerate")
                possible_kinds.append("named")
                maybe.append(f"{poss[0]} ({_WHY_REJECT})")
    if found:
        return _decided(failure(*found, *[s for s in possible if s not in found], why="; ".join(why + maybe)),
                        defect.kinds + possible_kinds)
    if possible:
        return _decided(either("Success", *dict.fromkeys(possible), why="; ".join(maybe)), possible_kinds)
    return success(_WHY_SUCCESS)


# --- Steps -------------------------------------------------------------------------------------


def _build_step(held: Prepared, inp: dict) -> Step:
    e = expected_build(held, inp)
    rows = ()
    if e.allows("Success"):
        rows = _ROWS + (("tessellation.normal_angle",) if inp["precision"] == "Visual"
                        and _number(inp["normal_angle_error"]) else ())
    return Step("TryBuildSurfaceMesh", inp, e, rows)


def _prepare_step(inp: dict) -> tuple[Step, Prepared | None]:
    e, held = expected_prepare(inp)
    return Step("TryPrepareSurface", inp, e), held


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``corpus.py``) as a request: prepare its surface, build its mesh."""
    prep_inp, build_inp = case_inputs(case)
    prep, held = _prepare_step(prep_inp)
    steps = [prep] + ([_build_step(held, build_inp)] if held is not None else [])
    return Request(rid, "tessellation", case.get("name", ""), tuple(steps))


# --- Status contracts --------------------------------------------------------------------------


def _surface(case: dict) -> tuple[Step, Prepared]:
    step, held = _prepare_step(prepare_inputs(case))
    assert held is not None, case["name"]
    return step, held


def _degenerate_bilinear(rng) -> dict:
    """The bilinear patch of corners A = C = (0, 0, 0), B = (9, 0, 0), D = (9, 9, 0), controls
    (3i, i j, 0): its U0 side collapses to A (a planar triangle, Sv = 0 there), its twist is
    |W| / 4 = 9 / 4, and at level (0, 0) its cell has the triangle (A, D, C) of two equal
    corner positions."""
    P = np.array([[(3.0 * i, float(i * j), 0.0) for j in range(4)] for i in range(4)])
    return SC._case("collapsed U0 side of a bilinear triangle", [P], ids=[5], rng=rng)


def _many_lines() -> dict:
    """256 coincident, unjoined bilinear patches ``g (3 - 2i)(3 - 2j) (1, 1, 1)``, g = 7: each
    a line whose twist is W = 36 g (1, 1, 1), |W| / 4 = 63 sqrt(3) (about 109.1); E = 63,
    so the floor is 2 ulp32(63) = 2^-17 and a cell bound meets it only when 2^(lu + lv) >= |W| /
    (4 2^-17) (about 1.43e7): every patch needs 2^24 cells, more than 2^24 vertices, so the mesh
    has more than 256 x 2^24 = 2^32 vertices."""
    g = 7.0
    P = np.array([[[g * (3 - 2 * i) * (3 - 2 * j)] * 3 for j in range(4)] for i in range(4)])
    return SC._case("256 coincident lines", [P] * 256, joins=[], ids=list(range(256)),
                    rng=np.random.default_rng(0))


def _out_of_range_expectation(held: Prepared, inp: dict) -> Expect:
    """The OutOfRange request's expectation, from an exact lower bound: a bilinear patch's cell
    twist is W / (2^lu 2^lv) exactly, the spec's second term Length(W_cell) / 4 enters every
    cell bound as an outward-rounded enclosure, so a grid meets the position error only when
    2^(lu + lv) >= |W| / (4 PositionError); the mesh of such grids has more than 2^32 vertices.
    max_cell_tests = 0 allows no cell test (BudgetExceeded)."""
    pe = to_mpq(float(parse_number(inp["position_error"])))
    total = 0
    for C in held.narrowed.astype(np.float64):
        W = [to_mpq(float(x)) for x in C[0, 0] - C[3, 0] - C[0, 3] + C[3, 3]]  # exact: small integers
        need_sq = sum(w * w for w in W) / (16 * pe * pe)  # (|W| / (4 pe))^2
        k = 0
        while to_mpq(4) ** k < need_sq:  # smallest k with (2^k)^2 >= need^2
            k += 1
        total += (1 << k) + 1  # (nu + 1)(nv + 1) > nu nv = 2^k
    assert total > MAX_VERTEX_COUNT and inp["limits"]["max_cell_tests"] == 0
    return failure("BudgetExceeded", "OutOfRange",
                   why=f"every grid that meets PositionError has at least 2^k cells by the exact twist of each "
                       f"bilinear patch: more than {total - 256} vertices in all ({_WHY_RANGE}); max_cell_tests = 0 "
                       f"allows no cell test ({_WHY_BUDGET})")


@cache
def status_requests() -> tuple:
    """Named status contracts ``(name, steps, rules)``: every status the spec and our decisions
    name for TryBuildSurfaceMesh, the five limits at equality and one past, the floor met and
    missed, and failed rebuilds that must keep the previous mesh."""
    out = []
    rng = np.random.default_rng(0)
    tw = TC.twisted_case(rng)  # (i, j, i j): level (1, 1) at position error 0.9
    tw_step, tw_held = _surface(tw)

    def single(name, inp, surface=(tw_step, tw_held), expect=None):
        step, held = surface
        out.append((name, (step, Step("TryBuildSurfaceMesh", inp, expect) if expect else _build_step(held, inp)), ()))

    # --- The limits: the rule's levels (1, 1) for the twisted patch at 0.9, replayed exactly.
    levels, met, tests = replay_levels(tw_held.narrowed.astype(np.float64), tw_held.topo, 0.9, 10, counted=True)
    assert levels == [(1, 1)] and met == [True]
    counts = mesh_counts(tw_held.topo, levels)
    for name, value in (("max_level", 1), ("max_cell_tests", tests), ("max_vertices", counts["vertices"]),
                        ("max_triangles", counts["triangles"]), ("max_output_bytes", counts["bytes"])):
        single(f"{name} met with equality ({name} = {value}, the twisted patch at levels (1, 1))",
               build_inputs(position_error=0.9, **{name: value}))
        single(f"{name} exceeded by one ({name} = {value - 1}, the twisted patch needs {value})",
               build_inputs(position_error=0.9, **{name: value - 1}))
        if value > 1:  # (max_level one past is already zero)
            single(f"zero {name} allows no work", build_inputs(position_error=0.9, **{name: 0}))
    # --- The profile (spec 002 Surface meshes; decisions: the profile, limits and the order of checks).
    single("Strict with a nonzero NormalAngleError", build_inputs(position_error=0.9, normal_angle_error=0.1))
    single("Strict accepting a coarser mesh", build_inputs(position_error=0.9, coarser=True))
    single("Visual with a NormalAngleError, accepting a coarser mesh",
           build_inputs("Visual", 0.9, normal_angle_error=0.5, coarser=True))
    single("negative position_error", build_inputs(position_error=-1.0))
    single("position_error above 1e6", build_inputs(position_error=2e6))
    single("nonfinite position_error", {**build_inputs(), "position_error": "nan"})
    single("normal_angle_error above pi", build_inputs("Visual", 0.9, normal_angle_error=4.0))
    single("an unknown precision profile", {**build_inputs(position_error=0.9), "precision": "Exact"})
    single("an unknown degeneracy policy", {**build_inputs(position_error=0.9), "degeneracy": "Ignore"})
    single("is_coarser_mesh_accepted that is not a boolean", {**build_inputs(position_error=0.9),
                                                              "is_coarser_mesh_accepted": 1})
    single("max_level above 24", build_inputs(position_error=0.9, max_level=25))
    single("max_cell_tests above 2^40", build_inputs(position_error=0.9, max_cell_tests=2**40 + 1))
    single("a limit that is not an integer (max_vertices = 9.0)",
           {**build_inputs(position_error=0.9), "limits": {**build_inputs(position_error=0.9)["limits"],
                                                           "max_vertices": "0x1.2p+3"}})
    # --- The position floor (spec 002: 'PositionError must be at least the surface's position floor').
    planar = TC.planar_case(rng)
    pl = _surface(planar)
    # (Strict at the floor is never decided: the implementation's allowance exceeds the floor; a
    # Visual normal angle is not replayed, so the Visual request's levels are not judged.)
    single("position_error exactly at the surface's floor (Visual, a planar patch)",
           build_inputs("Visual", pl[1].floor, normal_angle_error=0.5), surface=pl)
    single("position_error one float64 step below the surface's floor",
           build_inputs(position_error=math.nextafter(pl[1].floor, 0.0)), surface=pl)
    # --- Reject (spec 002): equal positions, singular normals; Report counts them.
    tri = _surface(_degenerate_bilinear(rng))
    single("Reject on a collapsed side (two equal corner positions, zero partials)",
           build_inputs(position_error=3.0, degeneracy="Reject"), surface=tri)
    single("Report on a collapsed side", build_inputs(position_error=3.0), surface=tri)
    tube = _surface(SC._tube_one(rng))
    single("Reject on a one-patch tube at level (0, 0) (one corner record twice in a triangle)",
           build_inputs(position_error=100.0, degeneracy="Reject"), surface=tube)
    ill = _surface(TC.ill_conditioned_case(rng))
    single("Reject on singular vertex normals only (NormalMinDerivativeLength 1e3)",
           build_inputs(position_error=3.0, degeneracy="Reject"), surface=ill)
    single("Reject on a regular planar patch", build_inputs(position_error=1.0, degeneracy="Reject"), surface=pl)
    # --- More than 2^32 vertices (spec 002), decided by an exact lower bound.
    lines = _surface(_many_lines())
    inp = build_inputs(position_error=lines[1].floor, max_level=24, max_cell_tests=0)
    single("more than 2^32 vertices (256 patches needing 2^24 cells each at the floor; max_cell_tests = 0)", inp,
           surface=lines, expect=_out_of_range_expectation(lines[1], inp))
    # --- Failed rebuilds keep the previous mesh (the caller's mesh object, read after each step).
    good = build_inputs(position_error=0.9)
    for name, bad in (("max_vertices exceeded by one", build_inputs(position_error=0.9,
                                                                    max_vertices=counts["vertices"] - 1)),
                      ("max_level", build_inputs(position_error=0.9, max_level=0)),
                      ("Strict with a normal angle", build_inputs(position_error=0.9, normal_angle_error=0.1)),
                      ("position error below the floor", build_inputs(position_error=math.nextafter(tw_held.floor,
                                                                                                     0.0)))):
        steps = (tw_step, _build_step(tw_held, good), _build_step(tw_held, bad))
        out.append((f"failed rebuild ({name}) keeps the previous mesh", steps,
                    (Rule("same_output", 1, 2, _WHY_KEEP),)))
    steps = (ill[0], _build_step(ill[1], build_inputs(position_error=3.0)),
             _build_step(ill[1], build_inputs(position_error=3.0, degeneracy="Reject")))
    out.append(("failed rebuild (Reject on singular normals) keeps the previous mesh", steps,
                (Rule("same_output", 1, 2, _WHY_KEEP),)))
    steps = (tw_step, _build_step(tw_held, good), pl[0], _build_step(pl[1], build_inputs(max_cell_tests=0)))
    out.append(("failed rebuild on another surface (max_cell_tests = 0) keeps the previous mesh", steps,
                (Rule("same_output", 1, 3, _WHY_KEEP),)))
    return tuple(out)


STATUS_REQUESTS = 41  # len(status_requests()): the module docstring's count (a test compares them)


# --- Requests ----------------------------------------------------------------------------------


def request_at(seed: int, k: int) -> Request:
    """Request ``k`` of the corpus of ``seed`` (:func:`requests`); ids ``tessellation/NNNNN``."""
    return interleaved("tessellation", k, k + 1, TC.NAMED, status_requests(),
                       lambda rid, j, _s: case_request(rid, TC.corpus_case(seed, j)))[0]


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` tessellation requests: the named cases, the status contracts, then random grids.
    Deterministic in ``seed``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    return interleaved("tessellation", lo, hi, TC.NAMED, status_requests(),
                       lambda rid, j, _s: case_request(rid, TC.corpus_case(seed, j)))
