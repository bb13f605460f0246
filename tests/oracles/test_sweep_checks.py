"""Sweep checkers: the default corpus has no Violated claim, every distinct property planted
false is Violated, and an emitted mesh exports and reads back."""

from __future__ import annotations

import math

import numpy as np
import pytest

import importlib

from oracles.families import sweep as SW
from oracles.families.sweep import checks_estimates as SWE
from oracles.families.sweep import corpus as SWC
from oracles.families.sweep.checks import decode_mesh
from oracles.model import Claim, VerdictKind, dec, enc

CASES = SW.generate(1, SWC.NAMED)  # the named cases (the status requests follow them)


def _claims(i):
    return {c.row: c for c in SW.claims(CASES[i])}


@pytest.fixture(scope="module")
def tube():
    return _claims(0)  # straight tube, Flat caps


@pytest.fixture(scope="module")
def loop():
    return _claims(5)  # closed loop tube


@pytest.fixture(scope="module")
def bend():
    return _claims(7)  # tight bend: risky rings


def _check(c):
    return SW.FAMILY.checkers[c.row](c)


def _with_vertices(c, fn):
    V = [list(r) for r in c.value["vertices"]]
    fn(V)
    return Claim(c.row, c.guarantee, {**c.value, "vertices": V}, c.inputs, c.model)


def _nudge(x, ulps=1):
    v = dec(x)
    for _ in range(ulps):
        v = np.nextafter(v, math.inf)
    return enc(float(v))


def test_default_corpus_has_no_violated_claim():
    kinds = []
    for case in CASES:
        cl = SW.claims(case)
        assert len(cl) == 2, case["name"]
        for c in cl:
            v = _check(c)
            assert v.kind is not VerdictKind.Violated, (case["name"], c.row, v.witness)
            kinds.append(v.kind)
    assert kinds.count(VerdictKind.Verified) >= len(kinds) - 1


def test_honest_claims_verified(tube, loop, bend):
    for claims in (tube, loop, bend):
        for c in claims.values():
            assert _check(c).kind is VerdictKind.Verified


def test_risk_counted_on_the_tight_bend(bend):
    assert bend["sweep.error_estimates"].value["risk_count"] > 0


WHY = {"seam": "seam", "cap_rim": "cap", "cap_normal": "cap", "offset": "exact position", "u": "U must",
       "v": "U must", "winding": "clockwise", "count": "count"}


@pytest.mark.parametrize("plant", sorted(WHY))
def test_rings_plants(tube, plant):
    c = tube["sweep.rings"]
    n = c.inputs["segments"]
    if plant == "seam":
        bad = _with_vertices(c, lambda V: V[n].__setitem__(0, _nudge(V[n][0])))
    elif plant == "cap_rim":
        r = len(c.inputs["rings"])
        bad = _with_vertices(c, lambda V: V[r * (n + 1) + 1].__setitem__(2, _nudge(V[r * (n + 1) + 1][2])))
    elif plant == "cap_normal":
        r = len(c.inputs["rings"])
        bad = _with_vertices(c, lambda V: V[r * (n + 1) + 2].__setitem__(3, enc(1.0)))
    elif plant == "offset":
        # 1024 ulps of 0.5 (1.1e-13) is past 16 u (M + 2 S) = 7.1e-15, M = 3, S = 0.5; vertex 1 sits
        # on the second ring (no cap rim copies it).
        bad = _with_vertices(c, lambda V: V[n + 2].__setitem__(1, _nudge(V[n + 2][1], 1024)))
    elif plant == "u":
        bad = _with_vertices(c, lambda V: V[n + 2].__setitem__(6, enc(0.3)))
    elif plant == "v":
        bad = _with_vertices(c, lambda V: V[n + 2].__setitem__(7, enc(0.5)))
    elif plant == "winding":
        bad = SW.CONTRACTS["sweep.rings"].plant(c)
    else:
        bad = Claim(c.row, c.guarantee, {**c.value, "indices": c.value["indices"][:-3]}, c.inputs, c.model)
    v = _check(bad)
    assert v.kind is VerdictKind.Violated and WHY[plant] in v.witness["why"], v.witness


def test_winding_is_not_judged_where_the_surface_folds_between_two_rings():
    """The sweep differential run (seed 2329, 2026-12-07) found a tube whose path bends sharply
    between two rings (u = 0.5625 and 0.625): half-extent x curvature is 0.955 and 0.82 at the
    rings but 1.22 between them, so the tube folds there and the 24 triangles joining those rings
    face against their normals. The spec counts that risk ('SelfIntersectionRiskCount ... can
    flag a risk but never proves the surface simple'), so winding is not judged there; it was
    judged before, because only the rings were checked for folding, and the claim was Violated.
    A triangle flipped between two other rings is still Violated."""
    c, _ = SW.claims(SWC._fold_between_rings())  # the named corpus case, as the ledger meets it
    v = _check(c)
    assert v.kind is VerdictKind.Verified and v.extra["winding_skipped"] == 24, (v.kind, v.witness)
    n = int(c.inputs["segments"])
    I = list(c.value["indices"])
    t = 6 * n * 1  # the first triangle between rings 1 and 2 (u = 0.125 and 0.25, no fold)
    I[t + 1], I[t + 2] = I[t + 2], I[t + 1]
    v = _check(Claim(c.row, c.guarantee, {**c.value, "indices": I}, c.inputs, c.model))
    assert v.kind is VerdictKind.Violated and "clockwise" in v.witness["why"], v.witness


@pytest.mark.parametrize("which", ["centre", "rim"])
@pytest.mark.parametrize("end", [0, 1])
def test_a_cap_vertex_carries_its_end_ring_s_v(tube, which, end):
    """spec 002 Sweeps: 'V is estimated path distance in asset units': a Flat cap's vertices lie
    on its end ring (the rim copies it, the centre is the path's end), so each carries the end
    ring's V (0 at the start, the total at the end); any other V was Verified before."""
    c = tube["sweep.rings"]
    n, r = c.inputs["segments"], len(c.inputs["rings"])
    base = r * (n + 1) + end * (n + 1)
    at = base if which == "centre" else base + 2
    want = 0.0 if end == 0 else dec(c.inputs["rings"][-1][2])
    assert dec(c.value["vertices"][at][7]) == want and want == (0.0 if end == 0 else 3.0)
    for v in (0.5, 2.0**600):
        bad = _with_vertices(c, lambda V: V[at].__setitem__(7, enc(v)))
        got = _check(bad)
        assert got.kind is VerdictKind.Violated and got.rule == "sweep:uv" and "cap" in got.witness["why"]


def test_closed_ring_copy_plant(loop):
    c = loop["sweep.rings"]
    n, r = c.inputs["segments"], len(c.inputs["rings"])
    last = (r - 1) * (n + 1)
    bad = _with_vertices(c, lambda V: V[last].__setitem__(0, _nudge(V[last][0])))
    assert _check(bad).kind is VerdictKind.Violated
    bad = _with_vertices(c, lambda V: [V[last + j].__setitem__(7, enc(0.0)) for j in range(n + 1)])
    assert _check(bad).kind is VerdictKind.Violated


def test_error_estimate_plants(loop, bend):
    c = bend["sweep.error_estimates"]
    flags = list(c.value["risk_flags"])
    i = flags.index(True)
    flags[i] = False
    bad = Claim(c.row, c.guarantee, {**c.value, "risk_flags": flags, "risk_count": sum(flags)}, c.inputs, None)
    assert _check(bad).kind is VerdictKind.Violated  # a ring whose product surely reaches 1 unflagged
    assert _check(SW.CONTRACTS["sweep.error_estimates"].plant(c)).kind is VerdictKind.Violated  # count
    c = _claims(6)["sweep.error_estimates"]  # closed loop ribbon: an exact section
    bad = Claim(c.row, c.guarantee, {**c.value, "longitudinal": enc(1e-9)}, c.inputs, None)
    v = _check(bad)
    assert v.kind is VerdictKind.Violated and v.witness["true_deviation"] > v.witness["limit"]
    c = loop["sweep.error_estimates"]
    over = enc(2 * dec(c.inputs["longitudinal_error"]))
    bad = Claim(c.row, c.guarantee, {**c.value, "longitudinal": over}, c.inputs, None)
    assert _check(bad).kind is VerdictKind.Violated


@pytest.mark.parametrize("far", ["0x1p+332", "0x1p+500", "0x1p+600", "0x1.fffffffffffffp+1023"])
def test_a_far_vertex_is_measured_truly_not_dropped_as_nan(tube, far):
    """The straight tube (radius 1/2, rings at x = 0 and 3, four segments) with its first vertex
    (0, 0, 1/2) moved to x = ``far``: the triangle (v0, v1, v5) becomes a sliver toward +x, and
    the ideal point at x = 0, angle -45 deg, (0, -sqrt(2)/4, sqrt(2)/4), is nearest to the edge
    v1 v5 = (0, -1/2, 0) (3, 0, 1/2). Its distance (sympy's Segment3D, exact) is the sampled
    deviation, the same at every ``far``: float64 lost the sliver's small side at 2^500
    (calibration 1.54) and at 2^600 overflowed into NaNs that dropped out of the maximum (0).
    The verdict: Violated, the moved vertex no longer the ideal section point at its angle."""
    import sympy as sp
    from mpmath import mp

    c = tube["sweep.error_estimates"]
    bad = _with_vertices(c, lambda V: V[0].__setitem__(0, far))
    v = _check(bad)
    assert v.kind is VerdictKind.Violated and v.rule == "sweep:ring_points"
    assert dec(v.witness["distance"]) > 2.0**331 and "ring 0 vertex 0" in v.witness["why"]
    r = sp.sqrt(2) / 4
    edge = sp.Segment3D(sp.Point3D(0, sp.Rational(-1, 2), 0), sp.Point3D(3, 0, sp.Rational(1, 2)))
    want = float(edge.distance(sp.Point3D(0, -r, r)))
    C = np.array([[[dec(x) for x in p] for p in span] for span in bad.inputs["controls"]])
    V, I = decode_mesh(bad)
    with mp.workprec(113):
        _, d4, _, _, _ = SWE._deviation(C, bad.inputs, V, I, lambda tw: 0.0, SWE._REACH * (3.0 + 0.5))
    assert d4 == pytest.approx(want, rel=1e-12)


def test_a_closed_path_s_sweep_has_periodic_frames_and_only_it(tube, loop):
    """spec 002 Sweeps: 'A closed path needs periodic frames (DistributeTwist)', and only a
    closed loop's frames are periodic (Transported frames). A closed tube claimed on frames that
    are not periodic carries no twist for the deviation to look for, and a tube's deviation cannot
    see a twist anyway: before 2026-12-06 either flip was Verified."""
    for c in (tube["sweep.error_estimates"], loop["sweep.error_estimates"]):
        assert c.inputs["periodic"] is c.inputs["closed"] and _check(c).kind is VerdictKind.Verified
        flipped = Claim(c.row, c.guarantee, c.value, {**c.inputs, "periodic": not c.inputs["periodic"]}, c.model)
        v = _check(flipped)
        assert v.kind is VerdictKind.Violated and v.rule == "sweep:periodic", v.witness
    assert loop["sweep.error_estimates"].inputs["closed"]


def test_the_frames_estimate_cannot_widen_the_acceptance_beyond_the_acceptance_rule():
    """spec 002 Transported frames: every accepted interval differs by at most TangentAngleError
    times its share, so the frames' AngularErrorEstimate is at most 2 TangentAngleError (plus the
    rounding floor). The sweep row widens its acceptance by 4 S_max A: before 2026-12-06 a sweep
    with its roll half a radian off was Verified once it claimed A = 1 rad."""
    from interval.frame import estimate_cap

    fam = SW.FAMILY
    r = next(x for x in fam.requests(1, fam.default_cases) if x.name.startswith("S-curve tube"))
    c = next(x for x in fam.claims(r) if x.row == "sweep.error_estimates")
    tae = dec(c.inputs["tangent_angle_error"])
    cap = estimate_cap(tae, SWE.FRAME_INTERVALS_CAP)
    assert 2 * tae < cap < 2 * tae + 2.0**-26  # the spec's 2 TAE, and a floor of 2^20 x 64 u = 2^-27
    prof = [[k[0], k[1], enc(dec(k[2]) + 0.5)] for k in c.inputs["profile"]]
    for A, rule in ((1.0, "sweep:frames_estimate"), (cap * (1 + 2.0**-10), "sweep:frames_estimate"),
                    (cap, "sweep:ring_points")):
        v = _check(Claim(c.row, c.guarantee, c.value,
                         {**c.inputs, "profile": prof, "angular_error_estimate": enc(A)}, c.model))
        assert v.kind is VerdictKind.Violated and v.rule == rule, (A, v.rule)
    at_cap = Claim(c.row, c.guarantee, c.value, {**c.inputs, "angular_error_estimate": enc(cap)}, c.model)
    assert _check(at_cap).kind is VerdictKind.Verified


def test_ring_vertices_sit_at_their_angles_turned_by_the_profile_s_roll():
    """docs/decisions.md 'Sweeps: ring vertices at their section angles': a tube's polygon is
    inscribed in the ideal circle whatever its roll, so the deviation alone never saw a tube
    that ignores the profile's roll (planted fault sweep.tube_roll_ignored survived the ledger
    and the tests). Each ring vertex must be the ideal section point at its own angle, turned
    by the roll: claiming the profile 0.1 rad further turned is Violated by sweep:ring_points,
    and so is a ribbon's."""
    fam = SW.FAMILY
    reqs = fam.requests(1, fam.default_cases)
    for name in ("S-curve tube", "helix ribbon"):
        r = next(x for x in reqs if x.name.startswith(name))
        c = next(x for x in fam.claims(r) if x.row == "sweep.error_estimates")
        assert _check(c).kind is VerdictKind.Verified
        prof = [[k[0], k[1], enc(dec(k[2]) + 0.1)] for k in c.inputs["profile"]]
        v = _check(Claim(c.row, c.guarantee, c.value, {**c.inputs, "profile": prof}, c.model))
        assert v.kind is VerdictKind.Violated and v.rule == "sweep:ring_points", (name, v.witness)
        # 0.1 rad at the ring's scale, far past the limit (the frames' angle estimate is tiny here)
        assert dec(v.witness["distance"]) > 0.05 * min(dec(k[1]) for k in c.inputs["profile"])


def test_periodic_ring_vertices_follow_the_distributed_twist():
    """docs/decisions.md 'Sweeps: ring vertices at their section angles': on periodic frames,
    with DistanceError given, each ring vertex sits at its angle turned by the roll plus the
    distributed twist (2 pi W - R) s / L at the ring's true arc length (the frame row's rule and
    tolerance). A tube's deviation cannot see a twist or a roll: before 2026-12-06 a closed tube
    claimed for one more winding turn, or with its roll 0.1 rad off, was Verified."""
    fam = SW.FAMILY
    reqs = fam.requests(1, fam.default_cases)
    for name in ("closed loop tube", "closed loop ribbon with rolls"):
        r = next(x for x in reqs if x.name.startswith(name))
        c = next(x for x in fam.claims(r) if x.row == "sweep.error_estimates")
        assert c.inputs["periodic"] and "distance_error" in c.inputs and _check(c).kind is VerdictKind.Verified
        prof = [[k[0], k[1], enc(dec(k[2]) + 0.1)] for k in c.inputs["profile"]]
        for inputs in ({**c.inputs, "winding_turns": c.inputs["winding_turns"] + 1}, {**c.inputs, "profile": prof}):
            v = _check(Claim(c.row, c.guarantee, c.value, inputs, c.model))
            assert v.kind is VerdictKind.Violated and v.rule == "sweep:ring_points", (name, v.witness)


def test_ring_distances_are_the_arc_length_within_distance_error():
    """spec 002 Sweeps: V is estimated path distance, and the profile is laid out in it. With the
    path's DistanceError claimed, every ring's distance (and the total) must lie within it of
    the true arc length (mpmath quadrature here, independent of the checker's float64 rule): a
    sweep that lays its rings out in proportion to the parameter survived the ledger before
    (planted fault sweep.ring_distance_by_parameter). Ours sit at most 1% of DistanceError off."""
    import mpmath

    fam = SW.FAMILY
    r = next(x for x in fam.requests(1, fam.default_cases) if x.name.startswith("S-curve tube"))
    c = next(x for x in fam.claims(r) if x.row == "sweep.rings")
    assert _check(c).kind is VerdictKind.Verified
    delta = dec(c.inputs["distance_error"])
    C = np.array([[[dec(x) for x in p] for p in span] for span in c.inputs["controls"]])

    def true_prefix(k, u):
        def speed(t, P):
            d = 3 * ((1 - t) ** 2 * (P[1] - P[0]) + 2 * t * (1 - t) * (P[2] - P[1]) + t * t * (P[3] - P[2]))
            return mpmath.sqrt(sum(mpmath.mpf(float(x)) ** 2 for x in d))
        whole = sum(mpmath.quad(lambda t: speed(t, C[j]), [0, 0.5, 1]) for j in range(k))
        return float(whole + mpmath.quad(lambda t: speed(t, C[k]), [0, u]))

    rings = [list(x) for x in c.inputs["rings"]]
    i = len(rings) // 2
    k, u = rings[i][0], dec(rings[i][1])
    s = true_prefix(k, u)
    assert abs(dec(rings[i][2]) - s) <= 0.01 * delta
    for off, kind in ((1.5 * delta, VerdictKind.Violated), (-1.5 * delta, VerdictKind.Violated),
                      (0.5 * delta, VerdictKind.Verified)):
        moved = [list(x) for x in rings]
        moved[i][2] = enc(s + off)
        v = _check(Claim(c.row, c.guarantee, c.value, {**c.inputs, "rings": moved}, c.model))
        if kind is VerdictKind.Violated:
            assert v.kind is kind and v.rule == "sweep:distances" and f"ring {i}" in v.witness["why"], off
        else:  # the distance is right; only V no longer equals it, which the UV rule refutes
            assert v.rule != "sweep:distances", off
    # without the claimed DistanceError nothing is compared with the arc length
    bare = {k2: x for k2, x in c.inputs.items() if k2 != "distance_error"}
    moved = [list(x) for x in rings]
    moved[i][2] = enc(s + 1.5 * delta)
    v = _check(Claim(c.row, c.guarantee, c.value, {**bare, "rings": moved}, c.model))
    assert v.rule != "sweep:distances"


@pytest.mark.parametrize("fmt", ["obj", "ply"])
def test_export_round_trip(tmp_path, fmt):
    meshio = pytest.importorskip("meshio")
    _, _, _, _p, V, I = SW.build_sweep(CASES[2])
    path = tmp_path / f"sweep.{fmt}"
    SW.export_sweep_mesh(V, I, path)
    back = meshio.read(str(path))
    np.testing.assert_array_equal(np.asarray(back.points, dtype=np.float32), V[:, 0:3].astype(np.float32))
    tris = np.concatenate([b.data for b in back.cells if b.type == "triangle"])
    np.testing.assert_array_equal(tris, I.reshape(-1, 3))



def test_the_section_has_the_fewest_segments_and_reports_their_sagitta(loop):
    c = loop["sweep.error_estimates"]
    n = c.inputs["segments"]
    for m, why in ((n + 1, "not the fewest"), (n - 1, "exceeds CrossSectionError")):
        v = _check(Claim(c.row, c.guarantee, c.value, {**c.inputs, "segments": m}, None))
        assert v.kind is VerdictKind.Violated and why in v.witness["why"], v.witness
    cross = dec(c.value["cross_section"])
    v = _check(Claim(c.row, c.guarantee, {**c.value, "cross_section": enc(cross * 0.9)}, c.inputs, None))
    assert v.kind is VerdictKind.Violated and "sagitta of the chosen polygon" in v.witness["why"]
    # the sagitta is taken at the largest profile scale, not the first key's
    s = _claims(2)["sweep.error_estimates"]  # S-curve: scales 0.1, 0.2, 0.05
    prof = [list(k) for k in s.inputs["profile"]]
    prof[1][1] = enc(0.1)
    v = _check(Claim(s.row, s.guarantee, s.value, {**s.inputs, "profile": prof}, None))
    assert v.kind is VerdictKind.Violated
    # a ribbon's section is exact
    r = _claims(1)["sweep.error_estimates"]
    v = _check(Claim(r.row, r.guarantee, {**r.value, "cross_section": enc(1e-6)}, r.inputs, None))
    assert v.kind is VerdictKind.Violated and "exact" in v.witness["why"]


def test_ring_scales_follow_the_profile_and_emission_checks_capacity_first():
    c = _claims(2)["sweep.rings"]  # S-curve: keys at 0, 2 and 5, the path about 6.5 long
    rings = [list(x) for x in c.inputs["rings"]]
    i = len(rings) // 2
    rings[i][3] = enc(dec(rings[i][3]) * (1 + 1e-9))
    v = _check(Claim(c.row, c.guarantee, c.value, {**c.inputs, "rings": rings}, None))
    assert v.kind is VerdictKind.Violated and "profile" in v.witness["why"]
    assert dec(c.inputs["rings"][-1][2]) > 5  # the last rings lie beyond the last key: clamped
    assert c.value["capacity"] == {"short_vertices": "CapacityExceeded", "short_vertices_unchanged": True,
                                   "short_indices": "CapacityExceeded", "short_indices_unchanged": True}
    for bad in ({"short_vertices": "Success"}, {"short_indices_unchanged": False}):
        v = _check(Claim(c.row, c.guarantee, {**c.value, "capacity": {**c.value["capacity"], **bad}}, c.inputs, None))
        assert v.kind is VerdictKind.Violated and "CapacityExceeded" in v.witness["why"]


def test_ribbon_risk_uses_half_the_width():
    c = _claims(8)["sweep.error_estimates"]  # tight bend ribbon, widths 1.2 to 1.9 on curvature ~1
    assert c.inputs["section"] == "Ribbon" and not any(c.value["risk_flags"])
    flags = [True] * len(c.value["risk_flags"])
    v = _check(Claim(c.row, c.guarantee, {**c.value, "risk_flags": flags, "risk_count": len(flags)}, c.inputs, None))
    assert v.kind is VerdictKind.Violated and "flagged" in v.witness["why"]


def test_verdicts_report_how_much_of_their_bound_they_used(tube, loop):
    for claims in (tube, loop):
        for c in claims.values():
            v = _check(c)
            assert v.kind is VerdictKind.Verified and v.bound_use is not None and 0 <= v.bound_use <= 1


def test_sweeps_follow_the_twist_in_proportion_to_distance(monkeypatch):
    """Issue 23: ring frames inherit DistributeTwist's roll, which the spec lays out "in proportion
    to estimated distance". A ribbon on a closed loop of uneven speed is Verified; the same sweep
    with the frames' twist interpolated linearly in u leaves the ideal surface (true RMF, twist in
    proportion to the arc length) by more than the acceptance factor allows, and its ring vertices
    leave their section angles (sweep:ring_points, judged first when DistanceError is given). The
    ribbon is 2 wide: the twist's error moves its edges in proportion to the width, the estimates
    do not grow with it (a ribbon is straight across), and frames sampled from depth 2 (MIN_DEPTH)
    leave the linear twist a smaller error between samples: at width 1 the deviation reaches 3.3
    of the factor 4 (8.6 with depth-1 samples)."""
    from oracles.families.frame import corpus as FC
    import reference.frame as RF

    src = FC._uneven_loop(None)["source"]
    case = SWC._sc("uneven loop ribbon", src, SWC._R, SWC._N, SWC._CCW, [(0, 2.0, 0)], 2e-3, 1e-3, closed=True)
    honest = {c.row: c for c in SW.claims(case)}["sweep.error_estimates"]
    v = _check(honest)
    assert v.kind is VerdictKind.Verified and v.measured < 1.0
    monkeypatch.setattr(RF, "_arc_fraction", lambda P, u0, u, u1: (u - u0) / (u1 - u0))
    linear = {c.row: c for c in SW.claims(case)}["sweep.error_estimates"]
    v = _check(linear)
    assert v.kind is VerdictKind.Violated and v.rule == "sweep:ring_points" and v.bound_use > 1
    without = {k: x for k, x in linear.inputs.items() if k != "distance_error"}
    v = _check(Claim(linear.row, linear.guarantee, linear.value, without, linear.model))
    assert v.kind is VerdictKind.Violated and v.rule == "sweep:deviation" and v.measured > SW.ACCEPTANCE_FACTOR


def test_the_deviation_samples_sit_at_distances_in_proportion_to_arc_length():
    """The ideal surface's samples between two rings take their distance in proportion to the
    arc length (mpmath quadrature here), not linearly in u."""
    import mpmath

    P = np.array([[0, 0, 0], [0.2, 0, 0], [1.0, 1.5, 0], [3.0, 2.0, 0.5]])
    shares = SWE.distance_shares(P, 0.25, 0.75, 4)

    def length(a, b):
        def speed(u):
            d = 3 * ((1 - u) ** 2 * (P[1] - P[0]) + 2 * u * (1 - u) * (P[2] - P[1]) + u * u * (P[3] - P[2]))
            return mpmath.sqrt(sum(mpmath.mpf(float(x)) ** 2 for x in d))
        return mpmath.quad(speed, [a, b])

    want = [float(length(0.25, 0.25 + 0.5 * q / 4) / length(0.25, 0.75)) for q in range(5)]
    assert shares[0] == 0.0 and shares[-1] == 1.0
    assert max(abs(a - b) for a, b in zip(shares, want)) < 1e-12
    assert max(abs(a - q / 4) for q, a in enumerate(shares)) > 1e-2  # uneven speed: not linear in u


# --- Requests and their statuses (issue 24) ----------------------------------------------------

from .request_helpers import judge_request as _judge, named as _named, fast_path_misses  # noqa: E402
from oracles.request import Answer, StepAnswer  # noqa: E402

SR = importlib.import_module("oracles.families.sweep.requests")  # the package exports requests()
SD = importlib.import_module("oracles.families.sweep.demands")



@pytest.fixture(scope="module")
def status_reqs():
    return SW.FAMILY.requests(1, SWC.NAMED + SR.STATUS_REQUESTS)[SWC.NAMED:]



def test_the_corpus_counts_are_the_documented_ones():
    assert len(SR.status_requests()) == SR.STATUS_REQUESTS
    assert SW.FAMILY.default_cases == SWC.NAMED + SR.STATUS_REQUESTS
    doc = " ".join(SR.__doc__.split())
    assert f"The first {SWC.NAMED} requests" in doc
    assert f"{SR.STATUS_REQUESTS} requests, so ``--cases {SWC.NAMED + SR.STATUS_REQUESTS}``" in doc


def test_our_fast_path_meets_every_status_request(status_reqs):
    """Every status request answered by our fast path: statuses, values, rules, completeness."""
    bad = fast_path_misses(SW.FAMILY.answer, status_reqs)
    assert not bad, bad[:5]


def test_a_failed_replan_that_drops_the_plan_is_violated(status_reqs):
    rebuilds = [r for r in status_reqs if r.name.startswith("failed rebuild")]
    assert len(rebuilds) == 2
    for req in rebuilds:
        ans = SW.FAMILY.answer(req)
        assert ans.steps[2].status != "Success" and ans.steps[3].status == "Success"
        dropped = [ans.steps[0], ans.steps[1], StepAnswer(ans.steps[2].status, (), {"rings": []}),
                   StepAnswer("MissingCache", ())]
        verdicts, _unanswered = _judge(req, Answer(req.id, tuple(dropped)))
        broken = [v for v in verdicts if v.kind is VerdictKind.Violated]
        assert any("rule" in v.claim.inputs for v in broken), req.name
        assert any(v.witness.get("got") == "MissingCache" for v in broken if "rule" not in v.claim.inputs)


def test_a_failed_emission_that_writes_is_violated(status_reqs):
    """Spec 002: emission "checks ... both capacities (CapacityExceeded) before writing": arrays that
    change on a failed emission are Violated by the scenario's same_output rule."""
    for prefix in ("failed emission (StaleRevision)", "failed emission (capacity"):
        req = _named(status_reqs, prefix)
        ans = SW.FAMILY.answer(req)
        (rule,) = req.rules
        got = ans.steps[rule.after]
        assert got.status != "Success" and got.output == ans.steps[rule.before].output
        touched = dict(got.output, vertices=[[enc(0.0)] * 8] + got.output["vertices"][1:])
        steps = list(ans.steps)
        steps[rule.after] = StepAnswer(got.status, (), touched)
        verdicts, _ = _judge(req, Answer(req.id, tuple(steps)))
        assert [v.claim.inputs.get("rule", {}).get("rule") for v in verdicts if v.kind is VerdictKind.Violated] == \
            ["same_output"]


def test_the_counts_at_equality_follow_the_spec_s_rules(status_reqs):
    """A straight tube of radius 0.5 on three collinear uniform spans with CrossSectionError 0.08:
    sagittas 0.5 (1 - cos(pi / N)) are 0.0955 (N = 5) and 0.0670 (N = 6), so N = 6; a straight
    uniform path and a constant profile give one ring per span start and one at the end (4 rings);
    the mesh rules give 4 x 7 + 2 x 7 = 42 vertices and 6 x 6 x 3 + 6 x 6 = 144 indices."""
    assert 0.5 * (1 - math.cos(math.pi / 5)) > 0.08 > 0.5 * (1 - math.cos(math.pi / 6))
    assert SD.segments_needed(0.5, 0.08)[0] == 6
    for name, limit, v in (("max_section_segments", "max_section_segments", 6),
                           ("max_vertex_count", "max_vertex_count", 42), ("max_index_count", "max_index_count", 144)):
        eq, past = _named(status_reqs, f"{name} met with equality"), _named(status_reqs, f"{name} exceeded by one")
        assert eq.steps[0].inputs["request"][limit] == v and past.steps[0].inputs["request"][limit] == v - 1
        assert eq.steps[0].expect.kind == "success" and past.steps[0].expect.must_fail
    # the rolling ribbon: the acceptance quantity halves with each depth (a quarter of the quad twist
    # dominates), so the rule needs one depth and 2^depth + 1 rings, each limit flipping the demand
    eq = _named(status_reqs, "max_samples met with equality")
    rings = eq.steps[0].inputs["request"]["limits"]["max_samples"]
    depth = _named(status_reqs, "max_depth met with equality").steps[0].inputs["request"]["limits"]["max_depth"]
    assert rings == 2**depth + 1 and depth >= 3
    assert _named(status_reqs, "max_prepared_bytes met with equality").steps[0].inputs["request"]["limits"][
        "max_prepared_bytes"] == 140 * rings  # docs/decisions.md: 140 bytes a ring

