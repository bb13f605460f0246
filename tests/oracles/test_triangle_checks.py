"""The triangle family's checkers: honest claims are Verified, planted false claims Violated,
claims the oracle cannot decide Undecided, malformed inputs raise."""

from __future__ import annotations

import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from oracles.__main__ import main as cli
from oracles.casefile import write_claims
from oracles.checks.triangle import FAMILY, TriangleCase, case_claims, case_inputs, cube_mesh, generate
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


def hit(case, t, tri, pos):
    return Claim("triangle.first_hit", G.Rounded, {"outcome": "hit", "t": enc(float(t)), "triangle": tri,
                                                   "position": enc(np.asarray(pos, dtype=float))}, case_inputs(case))


def honest(case, row):
    return next(c for c in case_claims(case) if c.row == row)


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
        c = Claim("triangle.first_hit", G.Rounded, {"outcome": "miss"}, case_inputs(case))
        assert kind(c) is VerdictKind.Verified


class TestPlantedFalseClaims:
    def test_later_hit_skipping_an_earlier_contact(self):
        # The far face x = 1 (facet 3, t = 13/16) while x = 0 is met at 5/16.
        assert kind(hit(CROSS, Fr(13, 16), 3, [1, 0.25, 0.625])) is VerdictKind.Violated

    def test_wrong_index_on_an_exact_tie(self):
        # Facets 0 and 5 both meet the edge at exactly t = 1/2 (correctly rounded: axis-aligned,
        # exact differences); the tie must keep 0.
        assert kind(hit(EDGE, 0.5, 5, [0, 0, 0.5])) is VerdictKind.Violated

    def test_parameter_off_by_one_ulp_on_a_correctly_rounded_facet(self):
        assert kind(hit(CROSS, np.nextafter(0.3125, 1), 0, [0, 0.25, 0.625])) is VerdictKind.Violated

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
        c = Claim("triangle.first_hit", G.Rounded, {"outcome": "miss"}, case_inputs(CROSS))
        assert kind(c) is VerdictKind.Violated

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
        c = Claim("triangle.ambiguity", G.Certified, {"outcome": "hit", "triangle": 1}, case_inputs(case))
        assert kind(c) is VerdictKind.Violated
        assert kind(self.amb(case, 8)) is VerdictKind.Verified


class TestMalformed:
    @pytest.mark.parametrize("mutate", [
        lambda d: d.pop("start"),
        lambda d: d.__setitem__("triangles", [[0, 1, 99]]),
        lambda d: d.__setitem__("vertices", [["nan", "0x0p+0", "0x0p+0"]] * 8),
        lambda d: d.__setitem__("end", d["start"]),
        lambda d: d.__setitem__("triangles", [[0, 0, 1]]),
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
    write_claims(path, good + [hit(EDGE, 0.5, 5, [0, 0, 0.5])], "test")
    assert cli(["check", str(path), "--out", str(tmp_path / "b")]) == 1


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
    from oracles.checks.triangle import analyse

    mpq = type(__import__("gmpy2").mpq(0))
    for case in generate(2, 40):
        if not case_claims(case):
            continue  # rejected at admission (for example a degenerate integer facet)
        an = analyse(case_inputs(case))
        for m in an.models:
            vals = [m.theta, m.d_lo, *m.eta] + [x for x in (m.r_t, m.r_pos) if x is not None] + list(m.r_l or ())
            assert all(type(v) is mpq for v in vals)
