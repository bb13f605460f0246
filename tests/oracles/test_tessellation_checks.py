"""Tessellation checkers: honest claims of the default corpus Verified; one planted false claim
per property Violated (a bound below the truth, a vertex moved, a broken bitwise copy, a crack,
two points sharing a position, a T-junction from a producer that skips the level agreement, a
flipped or missing triangle, a corner off its exact value, an estimate far below the truth);
the corpus's named expectations (a planar patch at level (0, 0), a planar patch inheriting its
neighbour's along-edge level); and the closed cube meshes watertight by trimesh, an
independent library, with the tubes open only at their two end rings.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import reference.tessellation as RT
from reference.surface import normal_bound
from oracles.families import tessellation as T
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, enc

V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided
NAMES = [c["name"] for c in T.generate(1, T.FAMILY.default_cases)]


@pytest.fixture(scope="module")
def corpus():
    return {i: (c, T.claims(c)) for i, c in enumerate(T.generate(1, 13))}


def claim_of(corpus, name, row):
    for c, cs in corpus.values():
        if c["name"].startswith(name):
            for x in cs:
                if x.row == row:
                    return x
    raise KeyError(name)


def test_every_default_claim_is_verified(corpus):
    for c, cs in corpus.values():
        for x in cs:
            assert check_claim(x).kind is V, (c["name"], x.row)


def test_planar_patch_is_level_zero_and_its_neighbour_level_is_inherited(corpus):
    x = claim_of(corpus, "planar patch", "tessellation.position_bound")
    assert (x.inputs["level_u"], x.inputs["level_v"]) == (0, 0)
    s = claim_of(corpus, "planar patch beside", "tessellation.shared_positions")
    (lu_a, lv_a), (_lu_b, lv_b) = s.value["levels"]
    # The planar patch A (index 0) needs (0, 0) alone; its U1 side is shared with B's U0 side.
    assert lu_a == 0 and lv_a == lv_b > 0


def test_tightness_is_reported_and_the_twisted_bound_is_tight(corpus):
    x = claim_of(corpus, "bilinear twisted patch", "tessellation.position_bound")
    v = check_claim(x)
    assert v.kind is V and v.measure == "tightness" and 0.999 < v.measured <= 1.0
    assert v.extra.get("tightness_0.9_1") == 1


def _with_value(x, **kw):
    return Claim(x.row, x.guarantee, {**x.value, **kw}, x.inputs, x.model)


def test_a_bound_below_the_truth_is_violated(corpus):
    x = claim_of(corpus, "bilinear twisted patch", "tessellation.position_bound")
    half = dec(x.value["position_bound"]) / 2
    v = check_claim(_with_value(x, position_bound=enc(half)))
    assert v.kind is X and "duffy_point" in v.witness


def test_a_moved_vertex_is_violated(corpus):
    x = claim_of(corpus, "four-patch tube", "tessellation.position_bound")
    assert check_claim(T.CONTRACTS["tessellation.position_bound"].plant(x)).kind is X


def shared(corpus, name="spec two-patch"):
    return copy.deepcopy(claim_of(corpus, name, "tessellation.shared_positions"))


def test_a_broken_bitwise_copy_is_violated(corpus):
    x = T.CONTRACTS["tessellation.shared_positions"].plant(shared(corpus))
    v = check_claim(x)
    assert v.kind is X and "bitwise" in v.witness["why"]


def _seam_vertex(x):
    """A vertex whose position index is used by two vertices (a shared-edge sample)."""
    idx = x.value["vertex_position_index"]
    seen = {}
    for i, k in enumerate(idx):
        if k in seen:
            return seen[k], i
        seen[k] = i
    raise AssertionError("no shared position")


def _with_normal(x, i, n):
    normals = [list(r) for r in x.value["vertex_normals"]]
    normals[i] = [enc(float(np.float32(c))) for c in n]
    return _with_value(x, vertex_normals=normals)


def test_vertex_normals_are_their_own_patch_s_unit_normal(corpus):
    """spec 002 Surface meshes: a vertex's 'normal and Parameter belong to its own patch', and
    'Report emits a zero normal with its status' (docs/decisions.md 'Surface meshes: vertex
    normals'). The vertex normals were never claimed, so a mesh whose normals point the wrong way
    or come from another patch survived the ledger and the tests (planted faults
    tessellation.vertex_normals_negated and tessellation.vertex_normals_of_patch_zero). The
    expected normal here comes from sympy: the cross product of the exact partials of the
    float32 patch at the vertex's parameter."""
    import sympy as sp

    from oracles.families.surface.checks import network

    x = shared(corpus, "bilinear twisted patch")
    assert check_claim(x).kind is V
    _, narrowed, _ = network(x)
    i = len(x.value["vertex_normals"]) // 2
    p, (u, w) = x.value["vertex_patch"][i], (dec(t) for t in x.value["vertex_parameters"][i])
    C = [[[sp.Rational(float(c)) for c in narrowed[p][a][b]] for b in range(4)] for a in range(4)]
    U, W = sp.symbols("U W")
    bern = [lambda t, k=k: sp.binomial(3, k) * t**k * (1 - t) ** (3 - k) for k in range(4)]
    S = [sum(C[a][b][c] * bern[a](U) * bern[b](W) for a in range(4) for b in range(4)) for c in range(3)]
    Su = sp.Matrix([sp.diff(f, U) for f in S]).subs({U: sp.Rational(u), W: sp.Rational(w)})
    Sw = sp.Matrix([sp.diff(f, W) for f in S]).subs({U: sp.Rational(u), W: sp.Rational(w)})
    N = Su.cross(Sw)
    want = np.array([float(c / N.norm()) for c in N])
    got = np.array([dec(c) for c in x.value["vertex_normals"][i]])
    assert np.linalg.norm(got - want) < 2.0**-23  # ours: the float64 normal narrowed once
    v = check_claim(_with_normal(x, i, -want))
    assert v.kind is X and v.rule == "tessellation:vertex_normals" and f"vertex {i}" in v.witness["why"]
    # the bound: the surface normal's Rounded model at float32's unit roundoff (the decision)
    b = normal_bound(float(np.max(np.abs(narrowed[p]))), float(N.norm()) * (1 - 1e-9), 2.0**-24, 2.0**-149)
    assert 2.0**-24 < b < 0.01, b
    side = np.cross(want, [0.0, 0.0, 1.0] if abs(want[2]) < 0.9 else [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)
    for tilt, kind in ((2 * b, X), (0.5 * b, V)):
        t = np.cos(tilt) * want + np.sin(tilt) * side
        assert check_claim(_with_normal(x, i, t)).kind is kind, tilt
    # a singular vertex (the pole's) carries a zero normal: any other is Violated
    y = shared(corpus, "pole of four patches")
    assert check_claim(y).kind is V
    j = next(k for k, st in enumerate(y.value["vertex_status"]) if st != 0)
    assert all(dec(c) == 0 for c in y.value["vertex_normals"][j])
    v = check_claim(_with_normal(y, j, [0.0, 0.0, 1.0]))
    assert v.kind is X and v.rule == "tessellation:vertex_normals" and "zero" in v.witness["why"]


def test_a_crack_is_violated(corpus):
    x = shared(corpus)
    _i, j = _seam_vertex(x)
    # j gets its own copy of the same value: a duplicated position (a crack in the index buffer).
    x.value["positions"].append(x.value["positions"][x.value["vertex_position_index"][j]])
    x.value["vertex_position_index"][j] = len(x.value["positions"]) - 1
    v = check_claim(x)
    assert v.kind is X and "crack" in v.witness["why"]


def test_two_points_sharing_a_position_is_violated(corpus):
    x = shared(corpus, "bilinear twisted patch")
    idx = x.value["vertex_position_index"]
    idx[1] = idx[0]
    x.value["vertex_positions"][1] = x.value["vertex_positions"][0]
    v = check_claim(x)
    assert v.kind is X


def test_a_flipped_triangle_is_violated(corpus):
    x = shared(corpus)
    t = x.value["indices"][0]
    x.value["indices"][0] = [t[0], t[2], t[1]]
    v = check_claim(x)
    assert v.kind is X and "counterclockwise" in v.witness["why"]


def test_a_missing_triangle_is_violated(corpus):
    x = shared(corpus)
    x.value["indices"].pop()
    assert check_claim(x).kind is X


def test_a_corner_off_its_exact_value_is_violated(corpus):
    x = shared(corpus, "bilinear twisted patch")
    k = x.value["vertex_position_index"][0]  # grid point (0, 0): a corner
    p = list(x.value["positions"][k])
    p[2] = enc(float(np.nextafter(np.float32(dec(p[2])), np.float32(1))))
    x.value["positions"][k] = p
    for i, kk in enumerate(x.value["vertex_position_index"]):
        if kk == k:
            x.value["vertex_positions"][i] = p
    v = check_claim(x)
    assert v.kind is X and "corner" in v.witness["why"]


def test_a_t_junction_from_a_producer_without_level_agreement_is_violated(monkeypatch):
    monkeypatch.setattr(RT, "_agree", lambda view, levels: set())
    case = T._with_mesh(T.beside_case(np.random.default_rng(0)), rel=0.01)
    x = next(c for c in T.claims(case) if c.row == "tessellation.shared_positions")
    (la, lb) = x.value["levels"]
    assert la[1] != lb[1]
    v = check_claim(x)
    assert v.kind is X and "T-junction" in v.witness["why"]


def test_normal_angle_estimate_far_below_the_truth_is_violated(corpus):
    x = claim_of(corpus, "bilinear twisted patch", "tessellation.normal_angle")
    assert check_claim(x).kind is V
    assert check_claim(T.CONTRACTS["tessellation.normal_angle"].plant(x)).kind is X
    assert check_claim(_with_value(x, normal_angle_estimate=enc(4.0))).kind is X


def test_a_coarser_visual_mesh_claims_its_achieved_bound():
    case = T.generate(1, 16)[15]
    _, _, out = T.build_case(case)
    rep = out.value.report
    assert rep.is_within_position_error is False and [(p.level_u, p.level_v) for p in rep.patches] == [(1, 1)]
    x = next(c for c in T.claims(case) if c.row == "tessellation.position_bound")
    assert dec(x.value["position_bound"]) == rep.position_bound > T.build_case(case)[1].position_error
    assert check_claim(x).kind is V


def test_default_corpus_size_and_names():
    assert T.FAMILY.default_cases == 71  # 28 named cases, 41 status requests, 2 random grids
    for want in ("planar patch", "planar patch beside a curved edge", "cube of six patches", "four-patch tube",
                 "closed one-patch tube", "collapsed side", "pole of four patches", "nearly collapsed side"):
        assert want in NAMES
    assert any(n.startswith("far from the origin") for n in NAMES)


# --- The refinement rule, the report and statuses (issue 17) ---------------------------------

def _case_named(name, **mesh):
    case = next(c for c in T.generate(1, T.FAMILY.default_cases) if c["name"] == name and all(
        c["mesh"].get(k) == v for k, v in mesh.items()))
    return case


def _claims_of(case, row):
    return [c for c in T.claims(case) if c.row == row]


def test_the_rule_replayed_on_hand_derived_twist_bounds():
    """The twisted patch (i, j, i j) has |W| / 4 = 9 / 4 and no other term at level (0, 0); every
    refinement halves the twist of a cell: (1, 0) and (0, 1) tie exactly at 9 / 8, (2, 0) and
    (1, 1) at 9 / 16. The rule refines u on the first tie (levels equal), v on the second (the
    coarser direction)."""
    import gmpy2

    from interval.surface import exact_topology

    C = T.twisted_case(np.random.default_rng(0))["source"].astype(np.float32)
    topo = exact_topology([0], C, [])
    for target, want in ((2.5, (0, 0)), (1.8, (1, 0)), (0.9, (1, 1)), (0.5, (2, 1))):
        levels, met = T.replay_levels(C.astype(np.float64), topo, target, 10)
        assert levels == [want] and met == [True], (target, levels)
    assert gmpy2.mpq(9, 16) < 0.9 < gmpy2.mpq(9, 8)
    levels, met = T.replay_levels(C.astype(np.float64), topo, 0.01, 1)
    assert met == [False]


def test_the_restated_clear_factor_is_the_fast_paths():
    assert T.CLEAR_FACTOR == RT.CLEAR_FACTOR


@pytest.mark.parametrize("name, rel, want", [("bilinear twisted patch", 0.2, [[1, 0]]),
                                            ("bilinear twisted patch", 0.1, [[1, 1]]),
                                            ("near-tie anisotropic patch", 1.6 / 3.0, [[1, 0]])])
def test_levels_of_the_near_tie_cases(name, rel, want):
    x = _claims_of(_case_named(name, rel=rel), "tessellation.shared_positions")[0]
    assert x.value["levels"] == want
    v = check_claim(x)
    assert v.kind is V and v.extra.get("levels_replayed") == 1


@pytest.mark.parametrize("factor, order", [(1.0, None), (None, "v first"), (None, "finer first")])
def test_a_producer_with_another_refinement_rule_is_violated(monkeypatch, factor, order):
    if factor is not None:  # no near-tie band: the anisotropic patch refines v (bound 0.93 of u's)
        monkeypatch.setattr(RT, "CLEAR_FACTOR", factor)
        case = _case_named("near-tie anisotropic patch")
    else:  # the twisted patch's exact ties resolved another way
        orig = RT._Refiner.settle

        def settle(self, p, lu, lv):
            if order == "v first" and (lu, lv) == (0, 0):
                return orig(self, p, 0, 1)
            if order == "finer first" and (lu, lv) == (0, 0):  # (1, 0) then the finer u again
                return orig(self, p, 2, 0)
            return orig(self, p, lu, lv)

        monkeypatch.setattr(RT._Refiner, "settle", settle)
        case = _case_named("bilinear twisted patch", rel=0.2 if order == "v first" else 0.1)
    x = _claims_of(case, "tessellation.shared_positions")[0]
    v = check_claim(x)
    assert v.kind is X and "refinement rule" in v.witness["why"], (v.kind, v.note, v.witness)


def test_within_and_coarser_reports_are_checked():
    x = _claims_of(_case_named("bilinear twisted patch", rel=0.2), "tessellation.position_bound")[0]
    assert x.value["is_within_position_error"] is True and check_claim(x).kind is V
    assert check_claim(_with_value(x, is_within_position_error=False)).kind is X
    # a bound above the position error: within must be false, and only a coarser mesh may claim it
    pe = dec(x.inputs["position_error"])
    big = enc(pe * 1.5)
    assert check_claim(_with_value(x, position_bound=big)).kind is X
    assert check_claim(_with_value(x, position_bound=big, is_within_position_error=False)).kind is X
    coarser = Claim(x.row, x.guarantee, {**x.value, "position_bound": big, "is_within_position_error": False},
                    {**x.inputs, "accepts_coarser": True}, None)
    assert check_claim(coarser).kind is V


def test_degeneracy_counts_and_reject_are_checked():
    x = _claims_of(_case_named("collapsed U0 side"), "tessellation.shared_positions")[0]
    assert x.value["degenerate_triangle_count"] > 0 and check_claim(x).kind is V
    assert check_claim(_with_value(x, degenerate_triangle_count=x.value["degenerate_triangle_count"] - 1)).kind is X
    assert check_claim(_with_value(x, singular_normal_count=x.value["singular_normal_count"] + 1)).kind is X
    reject = Claim(x.row, x.guarantee, x.value,
                   {**x.inputs, "profile": {**x.inputs["profile"], "degeneracy": "Reject"}})
    assert check_claim(reject).kind is X
    ill = _claims_of(_case_named("every normal IllConditioned", degeneracy="Report"),
                     "tessellation.shared_positions")[0]
    assert all(s == 2 for s in ill.value["vertex_status"]) and check_claim(ill).kind is V
    reject = Claim(ill.row, ill.guarantee, ill.value,
                   {**ill.inputs, "profile": {**ill.inputs["profile"], "degeneracy": "Reject"}})
    assert check_claim(reject).kind is X


def test_budget_failures_are_claims_judged_by_the_rule():
    """Strict stopped by max_level and a cell-test budget below the rule's needs fail with
    BudgetExceeded, and those failures are claims the replay confirms; the other budget, or a
    budget the rule does not exceed, is Violated. Reject on singular normals fails (no claim)."""
    cases = T.generate(1, T.FAMILY.default_cases)
    stopped = next(c for c in cases if c["name"] == "bilinear twisted patch" and c["mesh"]["precision"] == "Strict"
                   and c["mesh"]["limits"]["max_level"] == 1)
    small = next(c for c in cases if c["mesh"]["limits"]["max_cell_tests"] == 3)
    for case, field in ((stopped, "max_level"), (small, "max_cell_tests")):
        assert T.build_case(case)[2].diagnostic.field == field
        (x,) = T.claims(case)
        assert x.value == {"status": "BudgetExceeded", "field": field} and check_claim(x).kind is V
        assert check_claim(T.CONTRACTS[x.row].plant(x)).kind is X
    (x,) = T.claims(small)
    roomy = Claim(x.row, x.guarantee, x.value, {**x.inputs, "profile": {**x.inputs["profile"], "max_cell_tests": 5}})
    assert check_claim(roomy).kind is X  # the rule needs 5 cell tests: (0, 0), (1, 0) and (0, 1)
    rejected = _case_named("every normal IllConditioned", degeneracy="Reject")
    assert T.build_case(rejected)[2].status.value == "Degenerate" and T.claims(rejected) == []


def test_rounded_planar_patch_needs_its_vertex_term():
    case = _case_named("rounded planar patch beside a curved edge")
    xs = _claims_of(case, "tessellation.position_bound")
    planar = xs[0]
    assert planar.inputs["level_v"] >= 2
    v = check_claim(planar)
    assert v.kind is V and v.bound_use > 0.1  # the vertices' rounding uses much of the bound
    # the first two terms alone (a rounding allowance) are far below the vertices' rounding
    assert check_claim(_with_value(planar, position_bound=enc(dec(planar.value["position_bound"]) * 1e-3))).kind is X


# --- Watertightness by an independent library -------------------------------------------------

def _mesh_of(case):
    view, _prof, out = T.build_case(case)
    assert out.ok
    return view, out.value


def test_closed_cube_mesh_is_watertight_by_trimesh():
    trimesh = pytest.importorskip("trimesh")
    for seed in range(3):
        case = T._with_mesh(T.SF._cube(np.random.default_rng(seed)), rel=1e-3)
        _, mv = _mesh_of(case)
        m = trimesh.Trimesh(vertices=mv.positions.astype(np.float64), faces=mv.position_triangles(), process=False)
        assert m.is_watertight
        # A curved closed network too: the cube with its faces bulged keeps every join.
    case = T._with_mesh(T.SF._cube(np.random.default_rng(5)), rel=1e-3)
    src = case["source"].copy()
    centre = np.array([1.5, 1.5, 1.5])
    inner = np.zeros((4, 4), dtype=bool)
    inner[1:3, 1:3] = True
    for p in range(src.shape[0]):  # push each face's four inner controls outward
        d = src[p][inner] - centre
        src[p][inner] = centre + d * 1.3
    case["source"] = src
    _, mv = _mesh_of(case)
    assert max(r.level_u + r.level_v for r in mv.report.patches) > 0
    m = trimesh.Trimesh(vertices=mv.positions.astype(np.float64), faces=mv.position_triangles(), process=False)
    assert m.is_watertight


@pytest.mark.parametrize("maker", [T.SF._tube_four, T.SF._tube_one])
def test_tube_meshes_are_open_only_at_their_end_rings_by_trimesh(maker):
    trimesh = pytest.importorskip("trimesh")
    case = T._with_mesh(maker(np.random.default_rng(2)), rel=0.01)
    view, mv = _mesh_of(case)
    m = trimesh.Trimesh(vertices=mv.positions.astype(np.float64), faces=mv.position_triangles(), process=False)
    assert not m.is_watertight
    groups = trimesh.grouping.group_rows(m.edges_sorted, require_count=1)
    open_edges = m.edges_sorted[groups]
    counts = trimesh.grouping.group_rows(m.edges_sorted)
    assert all(len(g) in (1, 2) for g in counts)
    # Every edge used once lies on an unshared surface edge (the two end rings).
    boundary_sides = {(inc.patch, inc.side) for e in view.edges if not e.is_shared for inc in e.incidences}
    ring = set()
    for rec in mv.report.patches:
        nu, nv = 1 << rec.level_u, 1 << rec.level_v
        G = mv.vertex_position_index[rec.first_vertex:rec.first_vertex + rec.vertex_count].reshape(nu + 1, nv + 1)
        for (p, side) in boundary_sides:
            if p == rec.patch:
                ring |= set(int(x) for x in {"U0": G[0], "U1": G[-1], "V0": G[:, 0], "V1": G[:, -1]}[side.value])
    assert len(open_edges) > 0 and all(int(a) in ring and int(b) in ring for a, b in open_edges)


# --- Requests and their statuses (issue 24) ----------------------------------------------------

import importlib  # noqa: E402
from fractions import Fraction  # noqa: E402

from .request_helpers import judge_request as _judge, named as _named, fast_path_misses  # noqa: E402

TR = importlib.import_module("oracles.families.tessellation.requests")
TC = importlib.import_module("oracles.families.tessellation.corpus")


@pytest.fixture(scope="module")
def status_reqs():
    return [TR.request_at(1, k) for k in range(TC.NAMED, TC.NAMED + TR.STATUS_REQUESTS)]




def test_the_corpus_counts_are_the_documented_ones():
    assert len(TR.status_requests()) == TR.STATUS_REQUESTS
    assert T.FAMILY.default_cases == TC.NAMED + TR.STATUS_REQUESTS + 2  # the 2 random grids of the old corpus
    assert f"{TR.STATUS_REQUESTS} requests, so ``--cases {TC.NAMED + TR.STATUS_REQUESTS}``" in " ".join(
        TR.__doc__.split())


def test_restated_constants_are_the_fast_paths():
    assert TR.LIMIT_RANGES == RT.LIMIT_RANGES and TR.MAX_VERTEX_COUNT == RT.MAX_VERTEX_COUNT
    assert (TR.OUTPUT_BYTES["position"], TR.OUTPUT_BYTES["vertex"], TR.OUTPUT_BYTES["triangle"],
            TR.OUTPUT_BYTES["patch"]) == (RT.POSITION_BYTES, RT.VERTEX_BYTES, RT.TRIANGLE_BYTES, RT.PATCH_BYTES)


def test_our_fast_path_meets_every_status_request(status_reqs):
    """Every status request answered by our fast path: statuses, values, rules, completeness."""
    bad = fast_path_misses(T.FAMILY.answer, status_reqs)
    assert not bad, bad[:5]


def test_the_limits_are_the_hand_counted_ones(status_reqs):
    """The twisted patch (i, j, i j) at position error 0.9 refines (0, 0) -> (1, 0) -> (1, 1)
    (the twist halves per level: 9/4, 9/8, 9/16; ties go to the coarser direction, then u):
    5 grids of 1, 2, 2, 4 and 4 cells (13 cell tests), 9 vertices and 9 positions, 8 triangles,
    12 * 9 + 40 * 9 + 12 * 8 + 48 = 612 output bytes."""
    want = {"max_level": 1, "max_cell_tests": 13, "max_vertices": 9, "max_triangles": 8, "max_output_bytes": 612}
    for lim, value in want.items():
        eq, past = _named(status_reqs, f"{lim} met with equality"), _named(status_reqs, f"{lim} exceeded by one")
        assert eq.steps[1].inputs["limits"][lim] == value and eq.steps[1].expect.kind == "success"
        assert past.steps[1].inputs["limits"][lim] == value - 1
        assert past.steps[1].expect.statuses == ("BudgetExceeded",)


def test_more_than_two_to_the_32_vertices_by_hand(status_reqs):
    """256 patches of controls 7 (3 - 2i)(3 - 2j) (1, 1, 1): E = 63, the floor 2 ulp32(63) =
    2^-17; the twist W = 252 (1, 1, 1) and |W|^2 / (4 PositionError)^2 lies between 4^23 and
    4^24, so each patch needs 2^24 cells (more than 2^24 vertices): more than 2^32 in all."""
    req = _named(status_reqs, "more than 2^32 vertices")
    build = req.steps[1]
    assert dec(build.inputs["position_error"]) == 2.0**-17 and build.inputs["limits"]["max_cell_tests"] == 0
    need_sq = Fraction(3 * 252**2) / (16 * Fraction(1, 2**17) ** 2)
    assert 4**23 < need_sq <= 4**24 and len(req.steps[0].inputs["patches"]) * (2**24 + 1) > 2**32
    assert set(build.expect.statuses) == {"BudgetExceeded", "OutOfRange"}


def test_a_failed_build_that_clears_the_mesh_is_violated(status_reqs, monkeypatch):
    """A fast path whose failed build empties the caller's mesh: the rebuild scenarios read the
    mesh object after each step, so their same_output rules are Violated."""
    rebuilds = [r for r in status_reqs if r.name.startswith("failed rebuild")]
    assert len(rebuilds) == 6
    orig = RT._build

    def clearing(view, profile, mesh):
        out = orig(view, profile, mesh)
        if not out.ok:
            mesh._view = None
        return out

    monkeypatch.setattr(RT, "_build", clearing)
    for req in rebuilds:
        verdicts, _ = _judge(req, T.FAMILY.answer(req))
        broken = [v for v in verdicts if v.kind is X]
        assert broken and all("rule" in v.claim.inputs for v in broken), req.name


def test_reject_expectations(status_reqs):
    """Reject must fail where two corner records of equal positions (or one record twice) share a
    triangle, or every vertex normal is IllConditioned; Report succeeds on the same surface."""
    for name in ("Reject on a collapsed side", "Reject on a one-patch tube", "Reject on singular vertex normals"):
        assert _named(status_reqs, name).steps[1].expect.statuses == ("Degenerate",), name
    assert _named(status_reqs, "Report on a collapsed side").steps[1].expect.kind == "success"
    assert _named(status_reqs, "Reject on a regular planar patch").steps[1].expect.kind == "success"


def test_requests_do_not_run_the_fast_path(monkeypatch):
    """Expected statuses are decided without our fast path: with the surface and mesh builds of
    reference made to raise, the requests are still generated."""
    import reference.surface as RS

    def refuse(*a, **k):
        raise AssertionError("the fast path was run to decide a request")

    monkeypatch.setattr(RS, "try_prepare_surface", refuse)
    monkeypatch.setattr(RT, "try_build_surface_mesh", refuse)
    monkeypatch.setattr(RT, "cell_bounds", refuse)
    TR.status_requests.cache_clear()
    try:
        reqs = [TR.request_at(1, k) for k in range(TC.NAMED + TR.STATUS_REQUESTS + 1)]
    finally:
        TR.status_requests.cache_clear()
    assert len(reqs) == TC.NAMED + TR.STATUS_REQUESTS + 1
