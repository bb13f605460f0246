"""The triangle family's checkers: honest claims are Verified, planted false claims Violated,
claims the oracle cannot decide Undecided, malformed inputs raise."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from oracles.__main__ import main as cli
from oracles.casefile import write_claims
from oracles.families.triangle import (
    CONTRACTS,
    FAMILY,
    TriangleCase,
    case_claims,
    case_inputs,
    case_stamp,
    cube_mesh,
    first_hit_inputs,
    generate,
)
from oracles.ledger import check_claim, run_corpus
from oracles.model import Claim, VerdictKind, enc
from reference.status import GuaranteeClass as G

V, T = cube_mesh()
CROSS = TriangleCase("crossing", V, T, np.array([-0.625, 0.25, 0.625]), np.array([1.375, 0.25, 0.625]))
EDGE = TriangleCase("edge", V, T, np.array([-1.0, -1, 0.5]), np.array([1.0, 1, 0.5]))
OBLIQUE = TriangleCase("oblique", np.array([[2.0, 0, 0], [0, 3, 0], [0, 0, 5]]), np.array([[0, 1, 2]]),
                       np.zeros(3), np.ones(3))


def kind(claim):
    return check_claim(claim).kind


def stamp_of(case):
    st = case_stamp(case)
    return {"identity": st.identity, "version": st.version}


def hit(case, t, tri, pos, model=None):
    return Claim("triangle.first_hit", G.Rounded, {"outcome": "hit", "t": enc(float(t)), "triangle": tri,
                                                   "position": enc(np.asarray(pos, dtype=float)),
                                                   "stamp": stamp_of(case)}, first_hit_inputs(case), model)


def miss(case):
    return Claim("triangle.first_hit", G.Rounded, {"outcome": "miss", "stamp": stamp_of(case)},
                 first_hit_inputs(case))


def honest(case, row):
    return next(c for c in case_claims(case) if c.row == row)


EXACTNESS = "triangle:exactness_clause"


def both_ways(claim):
    """The claim's verdict by the spec's rules (no opt-in) and with the project's decisions
    binding (``"decisions": true``)."""
    return (check_claim(dataclasses.replace(claim, decisions=False)),
            check_claim(dataclasses.replace(claim, decisions=True)))


def only_the_decision_refutes(claim, rule=EXACTNESS):
    """By the spec's rules Verified, the decision not met; opted in, Violated by the decision."""
    spec, ours = both_ways(claim)
    assert spec.kind is VerdictKind.Verified and spec.unmet == (rule,), (spec.kind, spec.unmet, spec.note)
    assert ours.kind is VerdictKind.Violated and ours.rule == rule, (ours.kind, ours.rule, ours.note)


class TestHonestClaims:
    def test_fast_path_claims_verify(self):
        for case in (CROSS, EDGE, OBLIQUE):
            claims = case_claims(case)
            assert {c.row for c in claims} == set(FAMILY.checkers)
            assert all(kind(c) is VerdictKind.Verified for c in claims)

    def test_hand_written_truth_verifies(self):
        assert kind(hit(CROSS, Fr(5, 16), 0, [0, 0.25, 0.625])) is VerdictKind.Verified
        assert kind(hit(EDGE, 0.5, 0, [0, 0, 0.5])) is VerdictKind.Verified

    def test_miss_verifies(self):
        case = TriangleCase("miss", V, T, np.array([-1.0, 2, 2]), np.array([2.0, 2, 2]))
        assert kind(miss(case)) is VerdictKind.Verified
        assert honest(case, "triangle.first_hit").value == miss(case).value


class TestPlantedFalseClaims:
    def test_later_hit_skipping_an_earlier_contact(self):
        # The far face x = 1 (facet 3, t = 13/16) while x = 0 is met at 5/16.
        assert kind(hit(CROSS, Fr(13, 16), 3, [1, 0.25, 0.625])) is VerdictKind.Violated

    def test_wrong_index_on_an_exact_tie(self):
        # Facets 0 and 5 both meet the edge at exactly t = 1/2 (correctly rounded: axis-aligned,
        # exact differences); the tie must keep 0. Only the exactness clause (a decision of ours)
        # makes the computed parameters equal: by spec 004's rules each is within its R_t of 1/2.
        only_the_decision_refutes(hit(EDGE, 0.5, 5, [0, 0, 0.5]))

    def test_parameter_off_by_one_ulp_on_a_correctly_rounded_facet(self):
        only_the_decision_refutes(hit(CROSS, np.nextafter(0.3125, 1), 0, [0, 0.25, 0.625]))

    def test_parameter_outside_its_error_model(self):
        t = 30 / 31 * (1 + 1e-9)
        assert kind(hit(OBLIQUE, t, 0, np.full(3, t))) is VerdictKind.Violated
        t = 30 / 31
        assert kind(hit(OBLIQUE, t, 0, np.full(3, t))) is VerdictKind.Verified

    def test_position_off(self):
        assert kind(hit(CROSS, 0.3125, 0, [1e-9, 0.25, 0.625])) is VerdictKind.Violated

    def test_hit_on_a_facet_not_met(self):
        assert kind(hit(CROSS, 0.3125, 1, [0, 0.25, 0.625])) is VerdictKind.Violated  # other half

    def test_hit_on_a_parallel_facet(self):
        assert kind(hit(CROSS, 0.5, 4, [0.375, 0.25, 0.625])) is VerdictKind.Violated

    def test_miss_hiding_a_contact(self):
        assert kind(miss(CROSS)) is VerdictKind.Violated

    def test_negative_barycentric_weight(self):
        c = honest(CROSS, "triangle.barycentric")
        bad = Claim(c.row, c.guarantee, {"triangle": 0, "weights": enc([0.5, 0.5625, -0.0625])}, c.inputs)
        assert kind(bad) is VerdictKind.Violated

    def test_weight_outside_its_model(self):
        c = honest(CROSS, "triangle.barycentric")
        bad = Claim(c.row, c.guarantee, {"triangle": 0, "weights": enc([0.375 + 1e-12, 0.375 - 1e-12, 0.25])},
                    c.inputs)
        assert kind(bad) is VerdictKind.Violated

    def test_flipped_facing(self):
        c = honest(CROSS, "triangle.normal_facing")
        bad = Claim(c.row, c.guarantee, {**c.value, "facing": "Back"}, c.inputs)
        assert kind(bad) is VerdictKind.Violated

    def test_normal_off_beyond_its_model(self):
        c = honest(OBLIQUE, "triangle.normal_facing")
        n = np.array([float.fromhex(x) for x in c.value["normal"]])
        bad = Claim(c.row, c.guarantee, {**c.value, "normal": enc(n + np.array([1e-12, 0, 0]))}, c.inputs)
        assert kind(bad) is VerdictKind.Violated
        ok = Claim(c.row, c.guarantee, {**c.value, "normal": enc(np.nextafter(n, 2))}, c.inputs)
        assert kind(ok) is VerdictKind.Verified

    def test_relabelled_guarantee(self):
        c = honest(CROSS, "triangle.first_hit")
        assert kind(Claim(c.row, G.Exact, c.value, c.inputs)) is VerdictKind.Violated


def _single_face(y):
    # Facet 0 of the cube alone; in (y, z) it is (0,0),(0,1),(1,1), so at (y, 1/2) the weight
    # of vertex c is y: the distance in barycentric units to the edge y = 0.
    return TriangleCase("face", V, T[:1], np.array([-1.0, y, 0.5]), np.array([1.0, y, 0.5]), tolerance=1e-6)


class TestAmbiguityRow:
    def amb(self, case, tri):
        return Claim("triangle.ambiguity", G.Certified, {"outcome": "ambiguous", "triangle": tri}, case_inputs(case))

    def test_true_ambiguity_verifies_and_counts_resolvable(self):
        case = TriangleCase("near edge", V, T, np.array([-1.0, 0.5, 1e-13]), np.array([2.0, 0.5, 1e-13]))
        c = honest(case, "triangle.ambiguity")
        assert c.value == {"outcome": "ambiguous", "triangle": 1}
        v = check_claim(c)
        # The z = 0 face is parallel at height 1e-13, not coplanar: exact arithmetic decides the
        # query, so this rejection counts as conservative.
        assert v.kind is VerdictKind.Verified and v.extra["exactly_resolvable"] == 1

    def test_band_margins(self):
        assert kind(self.amb(_single_face(1.5e-6), 0)) is VerdictKind.Verified  # within 2 x band
        assert kind(self.amb(_single_face(4e-6), 0)) is VerdictKind.Undecided  # between 2 and 8 x band
        assert kind(self.amb(_single_face(0.25), 0)) is VerdictKind.Violated  # far inside

    def test_unjustified_rejection_of_a_clean_query(self):
        assert kind(self.amb(CROSS, 0)) is VerdictKind.Violated

    def test_published_hit_despite_a_coplanar_overlap(self):
        case = TriangleCase("coplanar", V, T, np.array([-1.0, 0.5, 0]), np.array([2.0, 0.5, 0]))
        c = Claim("triangle.ambiguity", G.Certified, {"outcome": "hit"}, case_inputs(case))
        assert kind(c) is VerdictKind.Violated
        assert kind(self.amb(case, 8)) is VerdictKind.Verified


def _face_case(s, e, tol=1e-6, tris=None):
    """The cube's facet 0 alone (x = 0, vertices (0,0,0), (0,0,1), (0,1,1)): at (0, y, z) its
    weights are (1 - z, z - y, y) by hand (y = l2 c_y, z = l1 + l2), so ``y`` is the distance in
    barycentric units to the edge y = 0."""
    return TriangleCase("face", V, T[:1] if tris is None else tris, np.asarray(s, dtype=float),
                        np.asarray(e, dtype=float), tolerance=tol)


def _amb(case, value):
    return Claim("triangle.ambiguity", G.Certified, value, case_inputs(case))


class TestBandConformance:
    """Spec 004: a computed boundary value within tolerance plus its rounding uncertainty is
    ambiguous, an exact zero is accepted. The exact values below are hand arithmetic on dyadic
    (or exactly represented) inputs; the error bounds are ~1e-15, far below the tolerance 1e-6."""

    def test_a_hit_with_a_weight_inside_its_band_is_violated(self):
        y = 5e-7  # weight l2 = y: inside the band (0, 1e-6]
        case = _face_case([-1.0, y, 0.5], [1.0, y, 0.5])
        assert honest(case, "triangle.ambiguity").value == {"outcome": "ambiguous", "triangle": 0}
        v = check_claim(hit(case, 0.5, 0, [0, y, 0.5]))
        assert v.kind is VerdictKind.Violated and v.witness["in_band"][0]["quantity"] == "weight 2", v.note
        v = check_claim(_amb(case, {"outcome": "hit"}))
        assert v.kind is VerdictKind.Violated and v.witness["triangle"] == 0
        # Beyond the tolerance (2e-6) the same hit is clean.
        far = _face_case([-1.0, 2e-6, 0.5], [1.0, 2e-6, 0.5])
        assert kind(hit(far, 0.5, 0, [0, 2e-6, 0.5])) is VerdictKind.Verified
        assert kind(_amb(far, {"outcome": "hit"})) is VerdictKind.Verified

    def test_a_parameter_inside_its_band_is_violated(self):
        # x(t) = -a + 2t meets x = 0 at T = a/2 = 5e-7 (a = 1e-6 as a float, halved exactly).
        a = 1e-6
        case = _face_case([-a, 0.25, 0.625], [2 - a, 0.25, 0.625])
        v = check_claim(hit(case, Fr(a) / 2, 0, [0, 0.25, 0.625]))
        assert v.kind is VerdictKind.Violated and v.witness["in_band"][0]["quantity"] == "t", v.note

    def test_an_exact_zero_is_accepted_and_its_rejection_is_not_justified(self):
        case = _face_case([0.0, 0.25, 0.625], [2.0, 0.25, 0.625])  # T = 0 exactly, computed 0
        assert kind(hit(case, 0, 0, [0, 0.25, 0.625])) is VerdictKind.Verified
        assert kind(_amb(case, {"outcome": "hit"})) is VerdictKind.Verified
        # "computed 0" is the exactness clause: by the spec's rules alone a binary64 computation
        # may put t inside the band, so the rejection is justified; our decision refutes it.
        only_the_decision_refutes(_amb(case, {"outcome": "ambiguous", "triangle": 0}))
        end = _face_case([-1.0, 0.25, 0.625], [0.0, 0.25, 0.625])  # T = 1 exactly
        only_the_decision_refutes(_amb(end, {"outcome": "ambiguous", "triangle": 0}))

    @pytest.mark.parametrize("w, outcome", [(-5e-7, VerdictKind.Violated), (-4e-6, VerdictKind.Verified)])
    def test_a_miss_just_outside_an_edge(self, w, outcome):
        # At (0, 1/2, 1/2 + w) the weight l1 = z - y = w < 0 (outside the diagonal edge, inside the
        # facet's box): within the tolerance the facet is a hit or ambiguous in every conforming
        # run (a miss is not allowed); beyond it the miss is right. (Just outside the edge y = 0
        # the exact box test culls the facet: a miss is right there at any distance.)
        z = 0.5 + w
        case = _face_case([-1.0, 0.5, z], [1.0, 0.5, z])
        assert Fr(z) - Fr(0.5) == Fr(w) or abs(Fr(z) - Fr(1, 2) - Fr(w)) < Fr(1, 10**15)
        assert kind(miss(case)) is outcome
        assert kind(_amb(case, {"outcome": "miss"})) is outcome
        culled = _face_case([-1.0, w, 0.5], [1.0, w, 0.5])
        assert kind(miss(culled)) is VerdictKind.Verified

    def test_a_parameter_just_before_the_start(self):
        # The facet (0,0,1), (1,0,0), (0,1,1) on the plane x + z = 1 (not axis-aligned, so its box
        # is not the plane); the segment s -> s + (2, 0, 2) has x + z = (s_x + s_z) + 4t, so
        # T = (1 - s_x - s_z) / 4, about -5e-7: a computed t in [-tol, 0) is inside the band and
        # the crossing point (1/4, 1/4, 3/4) is deep inside: a miss is not allowed.
        verts = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 1]])
        s = np.array([0.25 + 1e-6, 0.25, 0.75 + 1e-6])
        case = TriangleCase("before", verts, np.array([[0, 1, 2]]), s, s + np.array([2.0, 0, 2]), tolerance=1e-6)
        t_exact = (1 - Fr(s[0]) - Fr(s[2])) / 4
        assert -Fr(1, 10**6) < t_exact < 0
        assert kind(miss(case)) is VerdictKind.Violated
        assert kind(_amb(case, {"outcome": "ambiguous", "triangle": 0})) is VerdictKind.Verified
        assert kind(_amb(case, {"outcome": "miss"})) is VerdictKind.Violated


class TestEarliestRule:
    OBL = np.array([[2.0, 0, 0], [0, 3, 0], [0, 0, 5]])

    def test_a_duplicate_facet_keeps_the_lowest_index(self):
        # Bitwise duplicates compute the same parameter: the tie keeps facet 0.
        case = TriangleCase("dup", self.OBL, np.array([[0, 1, 2], [0, 1, 2]]), np.zeros(3), np.ones(3))
        h = honest(case, "triangle.first_hit")
        assert h.value["triangle"] == 0 and kind(h) is VerdictKind.Verified
        v = check_claim(Claim(h.row, h.guarantee, {**h.value, "triangle": 1}, h.inputs))
        assert v.kind is VerdictKind.Violated and v.witness == {"triangle": 0, "claimed": 1}

    def test_a_later_hit_past_a_facet_inside_its_band(self):
        # Facet 0 of the cube is met at T = 5e-7 (inside the band at 0); facet 3 (x = 1, it holds
        # (y, z) = (1/4, 5/8)) at T = (1 + 1e-6) / 2: publishing it skips the ambiguous contact.
        a = 1e-6
        case = TriangleCase("two", V, T[[0, 3]], np.array([-a, 0.25, 0.625]), np.array([2 - a, 0.25, 0.625]),
                            tolerance=1e-6)
        t = (1 + Fr(a)) / 2
        v = check_claim(hit(case, t, 1, [1, 0.25, 0.625]))
        assert v.kind is VerdictKind.Violated and v.witness["triangle"] == 0, v.note

    def test_an_earlier_exact_contact_on_another_facet(self):
        assert kind(hit(CROSS, Fr(13, 16), 3, [1, 0.25, 0.625])) is VerdictKind.Violated


class TestNearParallelOverlap:
    def test_a_hit_within_the_tolerance_of_parallel_is_violated(self):
        # The z = 0 face (facet (0,2,6): (0,0,0), (0,1,0), (1,1,0)); the segment rises 2 eps over
        # a run of 3, sin ~ eps * 2/3 <= tol / 8, and crosses at (1/2, 3/4, 0), inside (weights
        # (1/4, 1/4, 1/2) by hand).
        eps = 1e-7
        case = TriangleCase("np", V, T[8:9], np.array([-1.0, 0.75, -eps]), np.array([2.0, 0.75, eps]),
                            tolerance=1e-6)
        assert honest(case, "triangle.ambiguity").value["outcome"] == "ambiguous"
        v = check_claim(_amb(case, {"outcome": "hit"}))
        assert v.kind is VerdictKind.Violated and "parallel" in v.note
        steep = TriangleCase("np", V, T[8:9], np.array([-1.0, 0.75, -0.5]), np.array([2.0, 0.75, 0.5]),
                             tolerance=1e-6)
        assert kind(_amb(steep, {"outcome": "hit"})) is VerdictKind.Verified


class TestAdmission:
    def test_claims_on_a_surface_admission_must_reject(self):
        # e1 = (1, 0, 0), e2 = (1/2, 1e-9, 0): G = 1e-9 <= tol = 1e-6 (IllConditioned).
        sliver = TriangleCase("sliver", np.array([[0.0, 0, -1], [1, 0, -1], [0.5, 1e-9, -1]]), np.array([[0, 1, 2]]),
                              np.array([0.5, 0.0, -2]), np.array([0.5, 0.0, 2]), tolerance=1e-6)
        assert case_claims(sliver) == []  # the fast path rejects it
        for c in (miss(sliver), _amb(sliver, {"outcome": "miss"})):
            v = check_claim(c)
            assert v.kind is VerdictKind.Violated and v.witness["status"] == "IllConditioned"
        degenerate = TriangleCase("deg", np.array([[0.0, 0, 0], [1, 1, 1], [3, 3, 3]]), np.array([[0, 1, 2]]),
                                  np.array([-1.0, 0, 0]), np.array([1.0, 0, 0]))
        v = check_claim(_amb(degenerate, {"outcome": "miss"}))
        assert v.kind is VerdictKind.Violated and v.witness["status"] == "Degenerate"


def test_nonfinite_values_are_violated_not_malformed():
    # A producer that publishes NaN weights, t or normal makes a false claim, not an unreadable one.
    for row, field, bad in (("triangle.barycentric", "weights", ["nan", "0x0p+0", "0x1p+0"]),
                            ("triangle.normal_facing", "normal", ["0x1p+0", "inf", "0x0p+0"]),
                            ("triangle.first_hit", "t", "nan")):
        c = honest(CROSS, row)
        v = check_claim(Claim(c.row, c.guarantee, {**c.value, field: bad}, c.inputs))
        assert v.kind is VerdictKind.Violated and "nonfinite" in v.note, (row, v.note)


def test_model_bounds_round_outward():
    import gmpy2

    from oracles.families.triangle.analysis import _down, _up

    for p, q in ((1, 3), (2**200 + 1, 3**90), (7, 2**300 + 5), (10**40, 1)):
        x = gmpy2.mpq(p, q)
        lo, hi = _down(x), _up(x)
        assert lo <= x <= hi and hi - lo <= x / 2**62
        assert hi.denominator & (hi.denominator - 1) == 0  # dyadic


class TestMalformed:
    @pytest.mark.parametrize("mutate", [
        lambda d: d.pop("start"),
        lambda d: d.__setitem__("triangles", [[0, 1, 99]]),
        lambda d: d.__setitem__("vertices", [["nan", "0x0p+0", "0x0p+0"]] * 8),
        lambda d: d.__setitem__("end", d["start"]),
        lambda d: d.__setitem__("start", [1, 2]),
    ])
    def test_bad_inputs_raise(self, mutate):
        c = honest(CROSS, "triangle.first_hit")
        inputs = json.loads(json.dumps(c.inputs))
        mutate(inputs)
        with pytest.raises((ValueError, KeyError, TypeError)):
            check_claim(Claim(c.row, c.guarantee, c.value, inputs))

    def test_bad_values_raise(self):
        c = honest(CROSS, "triangle.first_hit")
        for value in ({"outcome": "maybe"}, {"outcome": "hit", "t": "0x1p-2", "triangle": 40, "position": [0, 0, 0]}):
            with pytest.raises((ValueError, KeyError, TypeError)):
                check_claim(Claim(c.row, c.guarantee, value, c.inputs))


def test_case_file_round_trip_through_the_cli(tmp_path):
    good = [c for case in generate(1, 12) for c in case_claims(case)]
    path = tmp_path / "claims.json"
    write_claims(path, good, "test")
    assert cli(["check", str(path), "--out", str(tmp_path / "a")]) == 0
    write_claims(path, good + [hit(CROSS, Fr(13, 16), 3, [1, 0.25, 0.625])], "test")  # skips x = 0 at 5/16
    assert cli(["check", str(path), "--out", str(tmp_path / "b")]) == 1
    # The exact tie on a shared cube edge at the higher index: only our exactness clause refutes
    # it, so the file fails only where the claim opts in to the decisions.
    tie = hit(EDGE, 0.5, 5, [0, 0, 0.5])
    write_claims(path, good + [tie], "test")
    assert cli(["check", str(path), "--out", str(tmp_path / "c")]) == 0
    write_claims(path, good + [dataclasses.replace(tie, decisions=True)], "test")
    assert cli(["check", str(path), "--out", str(tmp_path / "d")]) == 1


def test_family_ledger_has_no_violation():
    ledger = run_corpus(seed=5, cases=120, only=["triangle"], progress=False)
    rows = {r: ledger.tallies[r] for r in FAMILY.checkers}
    assert all(t.violated == 0 for t in rows.values())
    assert all(t.cases > 0 for t in rows.values())
    amb = rows["triangle.ambiguity"].counters
    assert amb["queries"] == rows["triangle.ambiguity"].cases and amb["ambiguous"] > 0


def test_surface_queries_example(capsys):
    from oracles.surface_queries import main, records

    recs = records()
    assert len(recs) == 9
    assert [r["surface"]["version"] for r in recs] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    # Crossing: x(t) = -5/8 + 2t meets the face x = dx at t = (dx + 5/8) / 2.
    for r, dx in zip(recs[0::3], (Fr(0), Fr(1, 4), Fr(1, 2))):
        assert r["t"] == float((dx + Fr(5, 8)) / 2) and r["first_hit"] == [float(dx), 0.25, 0.625]
        assert r["clipped_end"] == r["first_hit"] and r["normal"] == [-1.0, 0.0, 0.0] and r["facing"] == "Front"
    # Downward: y(t) = 2 - 4t meets y = 1 at t = 1/4, normal +y.
    assert all(r["t"] == 0.25 and r["normal"] == [0.0, 1.0, 0.0] for r in recs[1::3])
    # Short trace x(t) = -7/8 + t: reaches x = 0 at 7/8; stops short of x = 1/4 and x = 1/2.
    assert recs[2]["t"] == 0.875 and recs[5]["t"] is None and recs[8]["t"] is None
    assert recs[5]["clipped_end"] == [0.125, 0.5, 0.5]
    assert main() == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 9


def test_models_are_exact_rationals():
    # A float constant times an mpq silently becomes an mpfr; every bound must stay an mpq.
    from oracles.families.triangle.analysis import analyse

    mpq = type(__import__("gmpy2").mpq(0))
    for case in generate(2, 40):
        if not case_claims(case):
            continue  # rejected at admission (for example a degenerate integer facet)
        an = analyse(case_inputs(case))
        for m in an.models:
            vals = [m.theta, m.d_lo, *m.eta] + [x for x in (m.r_t, m.r_pos) if x is not None] + list(m.r_l or ())
            assert all(type(v) is mpq for v in vals)


class TestStamp:
    """Spec 004: "Queries carry the same caller-supplied identity/version" -- hit and miss."""

    def test_fast_path_claims_carry_the_callers_stamp(self):
        for case in (CROSS, TriangleCase("miss", V, T, np.array([-1.0, 2, 2]), np.array([2.0, 2, 2]))):
            c = honest(case, "triangle.first_hit")
            assert c.value["stamp"] == c.inputs["stamp"] == stamp_of(case)
        assert stamp_of(CROSS) != stamp_of(EDGE)  # distinct surfaces, distinct identities

    @pytest.mark.parametrize("field", ["identity", "version"])
    def test_a_stale_or_foreign_stamp_is_violated(self, field):
        for c in (honest(CROSS, "triangle.first_hit"), miss(TriangleCase("m", V, T, np.array([-1.0, 2, 2]),
                                                                          np.array([2.0, 2, 2])))):
            st = dict(c.value["stamp"])
            st[field] = (st[field] + 1) % 2**64
            v = check_claim(Claim(c.row, c.guarantee, {**c.value, "stamp": st}, c.inputs))
            assert v.kind is VerdictKind.Violated and v.witness["caller_stamp"] == c.inputs["stamp"]

    def test_a_malformed_stamp_raises(self):
        c = honest(CROSS, "triangle.first_hit")
        for st in ({"identity": 1}, {"identity": -1, "version": 0}, {"identity": True, "version": 0}):
            with pytest.raises(ValueError):
                check_claim(Claim(c.row, c.guarantee, {**c.value, "stamp": st}, c.inputs))


class TestDeclaredModels:
    """A Rounded claim judged against its declared error model, reported beside the reference."""

    F32 = {"name": "float32 port", "u": "0x1p-24"}

    def test_a_float32_model_widens_the_parameter_bound_and_is_reported(self):
        t = 30 / 31 * (1 + 1e-9)  # beyond the binary64 R_t, inside the float32 one
        assert kind(hit(OBLIQUE, t, 0, np.full(3, t))) is VerdictKind.Violated
        v = check_claim(hit(OBLIQUE, t, 0, np.full(3, t), model=self.F32))
        assert v.kind is VerdictKind.Verified, (v.note, v.witness)
        info = v.extra["declared_model"]
        assert info["model"] == self.F32 and info["declared_over_reference"] > 2.0**28
        assert 0 < v.measured < 1
        # No declared model, or only a name: judged against the reference, nothing reported.
        v = check_claim(hit(OBLIQUE, 30 / 31, 0, np.full(3, 30 / 31), model={"name": "x"}))
        assert v.kind is VerdictKind.Verified and "declared_model" not in v.extra

    def test_an_explicit_bound_tighter_than_the_error_is_violated(self):
        t = 30 / 31 * (1 + 1e-9)
        v = check_claim(hit(OBLIQUE, t, 0, np.full(3, t), model={"bound": ["0x1p-40", "0x1p-40"]}))
        assert v.kind is VerdictKind.Violated and "declared_model" in v.extra
        v = check_claim(hit(OBLIQUE, t, 0, np.full(3, t), model={"bound": ["0x1p-20", "0x1p-20"]}))
        assert v.kind is VerdictKind.Verified and v.extra["declared_model"]["declared_over_reference"] > 1

    def test_a_float32_model_on_weights_and_normals(self):
        c = honest(CROSS, "triangle.barycentric")
        off = {"triangle": 0, "weights": enc([0.375 + 1e-12, 0.375 - 1e-12, 0.25])}
        assert kind(Claim(c.row, c.guarantee, off, c.inputs)) is VerdictKind.Violated
        v = check_claim(Claim(c.row, c.guarantee, off, c.inputs, self.F32))
        assert v.kind is VerdictKind.Verified and v.extra["declared_model"]["declared_over_reference"] > 2.0**28
        c = honest(OBLIQUE, "triangle.normal_facing")
        n = np.array([float.fromhex(x) for x in c.value["normal"]])
        off = {**c.value, "normal": enc(n + np.array([1e-12, 0, 0]))}
        assert kind(Claim(c.row, c.guarantee, off, c.inputs)) is VerdictKind.Violated
        v = check_claim(Claim(c.row, c.guarantee, off, c.inputs, self.F32))
        assert v.kind is VerdictKind.Verified and "declared_model" in v.extra
        # A k below the reference constant tightens every bound (64 -> 1: 64 times smaller).
        tight = Claim(c.row, c.guarantee, c.value, c.inputs, {"u": "0x1p-53", "k": 1e-30})
        assert kind(tight) is VerdictKind.Violated

    def test_the_correctly_rounded_rule_belongs_to_the_reference_model(self):
        # One ulp off the correctly rounded 5/16: Violated by the exactness clause where the claim
        # opts in to the decisions; a float32 model judges it by its (wider) bound, opted in or
        # not, and the clause is not even consulted.
        t = np.nextafter(0.3125, 1)
        only_the_decision_refutes(hit(CROSS, t, 0, [0, 0.25, 0.625]))
        for v in both_ways(hit(CROSS, t, 0, [0, 0.25, 0.625], model=self.F32)):
            assert v.kind is VerdictKind.Verified and v.unmet == ()


@pytest.fixture(scope="module")
def corpus():
    return [c for case in generate(0, 450) for c in case_claims(case)]


def _document(claims):
    from oracles.casefile import FORMAT

    return {"format": FORMAT, "producer": "test", "claims": [c.to_json() for c in claims]}


class TestContracts:
    def test_every_corpus_claim_validates_against_its_row_schema(self, corpus):
        from oracles.schema import validate_document

        assert {c.row for c in corpus} == set(CONTRACTS) == set(FAMILY.checkers)
        assert {c.value["outcome"] for c in corpus if c.row == "triangle.ambiguity"} == {"hit", "miss", "ambiguous"}
        assert validate_document(_document(corpus)) == []
        # The fast path declares no model: its claims are judged against the reference.
        assert all(c.model is None for c in corpus)

    @pytest.mark.parametrize("row,mutate,where", [
        ("triangle.ambiguity", lambda d: d["value"].update(triangle=1), "value"),  # not read for a hit
        ("triangle.first_hit", lambda d: d["value"].pop("stamp"), "value"),
        ("triangle.first_hit", lambda d: d["inputs"]["stamp"].update(version=2**64), "inputs.stamp.version"),
        ("triangle.barycentric", lambda d: d["inputs"].update(stamp={"identity": 0, "version": 0}), "inputs"),
        ("triangle.normal_facing", lambda d: d["value"].update(facing="front"), "value.facing"),
        ("triangle.barycentric", lambda d: d["inputs"].update(tolerance="-0x1p-40"), "inputs.tolerance"),
        ("triangle.first_hit", lambda d: d.update(model={"u": "0x1p-24", "bound": "0x1p-3"}), "model"),
    ])
    def test_the_schema_rejects_unread_fields_and_bad_values(self, row, mutate, where):
        from oracles.schema import validate_document

        d = json.loads(json.dumps(honest(CROSS, row).to_json()))
        mutate(d)
        errs = validate_document({**_document([]), "claims": [d]})
        assert errs and any(e.path.startswith(f"claims[0].{where}") for e in errs), [str(e) for e in errs]

    def test_every_schema_field_is_read_by_the_checker(self):
        near = TriangleCase("near edge", V, T, np.array([-1.0, 0.5, 1e-13]), np.array([2.0, 0.5, 1e-13]))
        claims = case_claims(CROSS) + case_claims(near) + [miss(TriangleCase("m", V, T, np.array([-1.0, 2, 2]),
                                                                              np.array([2.0, 2, 2])))]
        for c in claims:
            for part in ("inputs", "value"):
                for key in getattr(c, part):
                    d = json.loads(json.dumps(c.to_json()))
                    del d[part][key]
                    with pytest.raises((KeyError, ValueError, TypeError)):
                        FAMILY.checkers[c.row](Claim.from_json(d))

    def test_planted_claims_are_violated(self, corpus):
        by_row = {}
        for c in corpus:
            key = (c.row, c.value.get("outcome"))
            if len(by_row.setdefault(key, [])) < 25:
                by_row[key].append(c)
        assert len(by_row) == 7  # first_hit hit/miss, ambiguity hit/miss/ambiguous, two more rows
        for key, cs in by_row.items():
            for c in cs:
                assert check_claim(c).kind is VerdictKind.Verified, key
                v = check_claim(CONTRACTS[c.row].plant(c))
                assert v.kind is VerdictKind.Violated, (key, v.note)
