"""Surface checkers: honest claims Verified; one planted false claim per property Violated.

Shared edges: a canonical curve one float32 ulp off, the owner swapped, a reversal flag or the
orientation flag flipped, an edge dropped, a wrong InvalidTopology rule or join, a valid
network claimed invalid. Corners: a position one ulp off, geometrically coincident corners
welded into one record, an incidence dropped. Evaluation: each of position and the five
partials beyond its bound, a normal off its direction or not of unit length, Degenerate or
IllConditioned claimed far from the band, a continuity value beyond its bound, ``is_c1``
flipped far from its threshold; a declared model is judged and its ratio reported.
"""

from __future__ import annotations

import numpy as np
import pytest

from oracles.families import surface as SF
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, enc
from interval.surface import CORNER_NAMES
from reference.surface import evaluation_bounds

V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided


@pytest.fixture(scope="module")
def corpus():
    cases = SF.generate(11, 20)
    by_case = {c["name"]: SF.claims(c) for c in cases}
    return by_case


def rows(corpus, row, kind=None, case=None):
    out = []
    for name, cs in corpus.items():
        if case is not None and not name.startswith(case):
            continue
        out += [c for c in cs if c.row == row and (kind is None or c.inputs.get("kind") == kind)]
    return out


def replace(claim, value=None, inputs=None, model=None):
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model if model is None else model)


def test_honest_claims_are_verified(corpus):
    seen = set()
    for name, cs in corpus.items():
        for c in cs:
            v = check_claim(c)
            assert v.kind is V, (name, c.row, c.inputs.get("kind"), v.note, v.witness)
            seen.add((c.row, c.inputs.get("kind"), "status" in c.value))
    assert {("surface.shared_edges", None, False), ("surface.shared_edges", None, True),
            ("surface.corners", None, False), ("surface.evaluation", "sample", False),
            ("surface.evaluation", "normal", False), ("surface.evaluation", "normal", True),
            ("surface.evaluation", "edge", False)} <= seen


def test_every_invalid_topology_cause_is_in_the_corpus_and_replayed(corpus):
    rules = {c.value["rule"] for c in rows(corpus, "surface.shared_edges") if "status" in c.value}
    assert rules == set(SF._RULES)


def test_spec_example_claim(corpus):
    (edges,) = [c for c in rows(corpus, "surface.shared_edges", case="spec two-patch") if "edges" in c.value]
    shared = [e for e in edges.value["edges"] if len(e["incidences"]) == 2]
    assert [e["id"] for e in shared] == [[10, "U1"]]
    assert shared[0]["incidences"] == [[0, 10, "U1", False], [1, 20, "U0", True]]
    (corners,) = rows(corpus, "surface.corners", case="spec two-patch")
    assert len(corners.value["corners"]) == 6


# --- shared edges ----------------------------------------------------------------------------


def _edges_claim(corpus, case="spec two-patch"):
    return rows(corpus, "surface.shared_edges", case=case)[0]


def _shared_index(claim):
    return next(k for k, e in enumerate(claim.value["edges"]) if len(e["incidences"]) == 2)


def _with_edge(claim, k, **changes):
    edges = [dict(e) for e in claim.value["edges"]]
    edges[k] = {**edges[k], **changes}
    return replace(claim, {"edges": edges})


def test_edge_curve_one_ulp_off_is_violated(corpus):
    c = _edges_claim(corpus)
    k = _shared_index(c)
    curve = [list(r) for r in c.value["edges"][k]["curve"]]
    curve[2][1] = enc(float(np.nextafter(np.float32(dec(curve[2][1])), np.float32(np.inf))))
    assert check_claim(_with_edge(c, k, curve=curve)).kind is X


def test_edge_owner_swapped_is_violated(corpus):
    c = _edges_claim(corpus)
    k = _shared_index(c)
    a, b = c.value["edges"][k]["incidences"]
    swapped = _with_edge(c, k, id=[b[1], b[2]], incidences=[[b[0], b[1], b[2], False], [a[0], a[1], a[2], True]])
    assert check_claim(swapped).kind is X


def test_edge_reversal_and_orientation_flags_are_checked(corpus):
    c = _edges_claim(corpus)
    k = _shared_index(c)
    a, b = c.value["edges"][k]["incidences"]
    assert check_claim(_with_edge(c, k, incidences=[a, [b[0], b[1], b[2], not b[3]]])).kind is X
    cons = c.value["edges"][k]["orientation_consistent"]
    assert check_claim(_with_edge(c, k, orientation_consistent=not cons)).kind is X
    assert check_claim(_with_edge(c, 0, orientation_consistent=False)).kind is X  # a boundary edge has None


def test_edge_dropped_is_violated(corpus):
    c = _edges_claim(corpus, "cube")
    assert check_claim(replace(c, {"edges": c.value["edges"][1:]})).kind is X


def test_wrong_failure_claims_are_violated(corpus):
    bad = [c for c in rows(corpus, "surface.shared_edges") if "status" in c.value]
    from tests.oracles.decisions_helper import only_the_decision_refutes, the_spec_refutes

    for c in bad:
        # The diagnostic's rule name and index are our decisions; the status is the spec's.
        others = [r for r in SF._RULES if r != c.value["rule"]]
        only_the_decision_refutes(replace(c, {**c.value, "rule": others[0]}), "surface:topology_diagnostic")
        only_the_decision_refutes(replace(c, {**c.value, "index": c.value["index"] + 1}),
                                  "surface:topology_diagnostic")
        the_spec_refutes(replace(c, {"edges": []}))
    good = _edges_claim(corpus)
    the_spec_refutes(replace(good, {"status": "InvalidTopology", "rule": "partial_join", "index": 0}))


# --- corners ---------------------------------------------------------------------------------


def test_corner_position_one_ulp_off_is_violated(corpus):
    c = rows(corpus, "surface.corners", case="cube")[0]
    corners = [dict(x) for x in c.value["corners"]]
    pos = list(corners[3]["position"])
    pos[2] = enc(float(np.nextafter(np.float32(dec(pos[2])), np.float32(-np.inf))))
    corners[3]["position"] = pos
    assert check_claim(replace(c, {"corners": corners})).kind is X


def test_welding_coincident_corners_is_violated(corpus):
    """The pole's corners coincide geometrically but are not joined: merging them is false."""
    c = rows(corpus, "surface.corners", case="pole")[0]
    corners = c.value["corners"]
    by_pos = {}
    for k, x in enumerate(corners):
        by_pos.setdefault(tuple(x["position"]), []).append(k)
    group = next(ks for ks in by_pos.values() if len(ks) > 1)
    merged = dict(corners[group[0]])
    merged["incidences"] = sorted([i for k in group for i in corners[k]["incidences"]],
                                  key=lambda i: (i[1], CORNER_NAMES.index(i[2])))
    welded = [x for k, x in enumerate(corners) if k not in group[1:]]
    welded[group[0]] = merged
    assert check_claim(replace(c, {"corners": welded})).kind is X


def test_corner_incidence_dropped_is_violated(corpus):
    c = rows(corpus, "surface.corners", case="cube")[0]
    corners = [dict(x) for x in c.value["corners"]]
    corners[0]["incidences"] = corners[0]["incidences"][:-1]
    assert check_claim(replace(c, {"corners": corners})).kind is X


# --- evaluation ------------------------------------------------------------------------------


def _E(claim):
    return float(np.max(np.abs(np.array([[[dec(x) for x in r] for r in p] for p in claim.inputs["controls"]]))))


@pytest.mark.parametrize("name", ["position", "du", "dv", "duu", "duv", "dvv"])
def test_sample_quantity_beyond_its_bound_is_violated(corpus, name):
    k = ["position", "du", "dv", "duu", "duv", "dvv"].index(name)
    for c in rows(corpus, "surface.evaluation", "sample", case="grid")[:5]:
        b = evaluation_bounds(_E(c))[k]
        vals = [dec(x) for x in c.value[name]]
        over = list(vals)
        over[1] = vals[1] + 3 * b + 4 * abs(vals[1]) * 2**-52
        assert check_claim(replace(c, {**c.value, name: enc(np.array(over))})).kind is X
        near = list(vals)
        near[1] = float(np.nextafter(vals[1], np.inf))  # one float64 ulp: inside the model
        assert check_claim(replace(c, {**c.value, name: enc(np.array(near))})).kind is V


def test_normal_plants(corpus):
    ok = [c for c in rows(corpus, "surface.evaluation", "normal", case="grid") if "normal" in c.value][:5]
    assert ok
    for c in ok:
        n = np.array([dec(x) for x in c.value["normal"]])
        assert check_claim(replace(c, {"normal": enc(-n)})).kind is X
        assert check_claim(replace(c, {"normal": enc(n * 1.01)})).kind is X
        assert check_claim(replace(c, {"status": "Degenerate"})).kind is X
        assert check_claim(replace(c, {"status": "IllConditioned"})).kind is X
        assert check_claim(replace(c, {"status": "Singular"})).kind is X


def test_degenerate_normal_claims(corpus):
    deg = [c for c in rows(corpus, "surface.evaluation", "normal", case="collapsed") if "status" in c.value]
    assert deg and all(c.value["status"] == "Degenerate" for c in deg)
    for c in deg:
        # An exactly degenerate point: IllConditioned or a unit normal is within the band
        # (counted), a vector that is not of unit length is not.
        v = check_claim(replace(c, {"status": "IllConditioned"}))
        assert v.kind is V and v.extra.get("decision_differs") == 1
        v = check_claim(replace(c, {"normal": enc(np.array([0.0, 0.0, 1.0]))}))
        assert v.kind is V and v.extra.get("decision_differs") == 1
        assert check_claim(replace(c, {"normal": enc(np.array([0.0, 0.0, 2.0]))})).kind is X


def test_near_threshold_decisions_are_in_the_band(corpus):
    cs = [c for c in rows(corpus, "surface.evaluation", "normal", case="near-threshold")
          if dec(c.inputs["u"]) == 0.5 and dec(c.inputs["v"]) == 0.5]
    assert cs and cs[0].value["status"] == "IllConditioned"
    # Whatever the exact side of the threshold, both answers are accepted here.
    for value in ({"status": "IllConditioned"}, {"normal": enc(np.array([dec(x) for x in
                                                                         _regular_normal(cs[0])]))}):
        v = check_claim(replace(cs[0], value))
        assert v.kind is V, (v.note, v.witness)


def _regular_normal(claim):
    from reference import kernel as K
    from reference.context import F64

    C = np.array([[[dec(x) for x in r] for r in p] for p in claim.inputs["controls"]])
    _, _, n = K.bicubic_normal_vector(F64, C, np.float64(0.5), np.float64(0.5))
    return [enc(x) for x in n / np.linalg.norm(n)]


def test_edge_value_plants(corpus):
    edges = rows(corpus, "surface.evaluation", "edge")
    assert edges
    for c in edges[:6]:
        d, s = dec(c.value["difference"]), dec(c.value["scale"])
        assert check_claim(replace(c, {**c.value, "difference": enc(d + 1e-6 * s + 1e-30)})).kind is X
        assert check_claim(replace(c, {**c.value, "scale": enc(s * (1 + 1e-6))})).kind is X


def test_is_c1_flipped_far_from_the_threshold_is_violated(corpus):
    planar = rows(corpus, "surface.evaluation", "edge", case="planar grid")
    assert planar and all(c.value["is_c1"] is True and dec(c.value["difference"]) == 0 for c in planar)
    for c in planar:
        assert check_claim(replace(c, {**c.value, "is_c1": False})).kind is X
    curved = [c for c in rows(corpus, "surface.evaluation", "edge", case="grid 8x8") if c.value["is_c1"] is False]
    assert curved
    for c in curved:
        assert check_claim(replace(c, {**c.value, "is_c1": True})).kind is X


def test_declared_models(corpus):
    c = rows(corpus, "surface.evaluation", "sample", case="grid 8x8")[3]
    # A float32 evaluator's model (u = 2^-24) is larger: honest values pass, the ratio is reported.
    v = check_claim(replace(c, model={"u": enc(2.0**-24)}))
    assert v.kind is V and v.extra["declared_model"]["declared_over_reference"] > 1e8
    # A zero bound admits only the exact values: one ulp off is Violated.
    vals = [dec(x) for x in c.value["position"]]
    vals[0] = float(np.nextafter(vals[0], np.inf))
    off = replace(c, {**c.value, "position": enc(np.array(vals))}, model={"bound": [enc(0.0)] * 6})
    assert check_claim(off).kind is X
    assert check_claim(Claim(off.row, off.guarantee, off.value, off.inputs, None)).kind is V


def test_contract_plants_are_violated(corpus):
    for row in ("surface.shared_edges", "surface.corners", "surface.evaluation"):
        plant = SF.FAMILY.contracts[row].plant
        for c in rows(corpus, row)[:20]:
            assert check_claim(plant(c)).kind is X, (row, c.inputs.get("kind"))


def test_malformed_claims_raise(corpus):
    c = rows(corpus, "surface.evaluation", "sample")[0]
    with pytest.raises(ValueError):
        SF.check_evaluation(replace(c, inputs={**c.inputs, "kind": "curvature"}))
    with pytest.raises(ValueError):
        SF.check_evaluation(replace(c, inputs={**c.inputs, "u": enc(1.5)}))


def test_a_float32_producer_passes_its_declared_model(corpus):
    """Samples (position and partials) evaluated in float32 arithmetic (the kernels on F32) are
    within the surface models at u = 2^-24, and mostly outside them at binary64's u."""
    from reference import kernel as K
    from reference.context import F32

    samples = rows(corpus, "surface.evaluation", "sample", case="grid 8x8")[:12]
    refuted = 0
    for c in samples:
        C = np.array([[[dec(x) for x in r] for r in p] for p in c.inputs["controls"]], dtype=np.float32)
        u, v = np.float32(dec(c.inputs["u"])), np.float32(dec(c.inputs["v"]))
        vals = K.bicubic_partials(F32, C, u, v)
        value = {k: enc(x) for k, x in zip(("position", "du", "dv", "duu", "duv", "dvv"), vals)}
        inputs = {**c.inputs, "u": enc(float(u)), "v": enc(float(v))}
        v32 = check_claim(Claim(c.row, c.guarantee, value, inputs, {"u": enc(2.0**-24)}))
        assert v32.kind is V, v32.witness
        refuted += check_claim(Claim(c.row, c.guarantee, value, inputs, None)).kind is X
    assert refuted >= len(samples) // 2


# --- Edge parameters, decision values, bound use (issue 17) ----------------------------------


@pytest.fixture(scope="module")
def sharp():
    """The named cases that put decisions exactly on their rules (thresholds at computed values,
    zero and near-C1 edges, large derivatives)."""
    names = ("normal threshold exactly at the computed length", "normal threshold exactly at the computed sine",
             "near-C1 and zero-derivative edges", "large curved grid")
    cases = [c for c in SF.generate(1, 21) if c["name"].startswith(names)]  # the named networks
    assert {c["name"].split(" 2x")[0] for c in cases} >= set(names)
    return {c["name"]: SF.claims(c) for c in cases}


def test_edge_parameters_map_reversed_incidences_to_the_nearest_one_minus_s(corpus):
    from fractions import Fraction

    # One claim per TryMapEdgeParameter step: its query and the incidences' (u, v).
    cs = [x for x in rows(corpus, "surface.shared_edges", case="spec two-patch") if "mapped" in x.value]
    assert len(cs) >= 12 and all(check_claim(c).kind is V for c in cs)
    on_edge = [c for c in cs if c.inputs["edge_parameters"][0][:2] == [10, "U1"]]
    for c in on_edge:
        (q,), (m,) = c.inputs["edge_parameters"], c.value["mapped"]
        s = dec(q[2])
        (_, _, side0, u0, v0), (_, _, side1, u1, v1) = m
        # owner U1 of patch 10 at (1, s); the reversed U0 of patch 20 at (0, fl64(1 - s)),
        # rounded by exact rational arithmetic (1/3 rounds, 2^-60 rounds to 1)
        assert (side0, dec(u0), dec(v0)) == ("U1", 1.0, s)
        assert (side1, dec(u1), dec(v1)) == ("U0", 0.0, float(Fraction(1) - Fraction(s)))
    assert any(dec(c.inputs["edge_parameters"][0][2]) == 2.0**-60 for c in on_edge)
    # s instead of 1 - s on the reversed incidence is Violated
    c = next(c for c in on_edge if dec(c.inputs["edge_parameters"][0][2]) == 0.25)
    mapped = [[list(r) for r in m] for m in c.value["mapped"]]
    mapped[0][1][4] = enc(0.25)
    assert check_claim(replace(c, {"mapped": mapped})).kind is X


def test_normal_decisions_follow_the_rule_on_their_values(sharp):
    length = [c for c in next(v for k, v in sharp.items() if "computed length" in k)
              if c.inputs.get("kind") == "normal" and dec(c.inputs["u"]) == 0.5 and dec(c.inputs["v"]) == 0.5]
    assert length
    c = length[0]
    d = c.value["decision"]
    # |Su| equals the threshold exactly: "at or below" is IllConditioned, whatever the band allows
    assert dec(d["su"]) == dec(c.inputs["normal_min_derivative_length"]) and c.value["status"] == "IllConditioned"
    assert check_claim(c).kind is V
    n = _regular_normal(c)
    assert check_claim(replace(c, {"normal": n, "decision": d})).kind is X
    # one ulp above the threshold, Success is the rule's answer and IllConditioned is not
    up = {**d, "su": enc(float(np.nextafter(dec(d["su"]), np.inf)))}
    assert check_claim(replace(c, {"normal": n, "decision": up})).kind is V
    assert check_claim(replace(c, {"status": "IllConditioned", "decision": up})).kind is X
    # a decision value beyond its error bound is Violated
    far = {**d, "sv": enc(dec(d["sv"]) * 1.001)}
    assert check_claim(replace(c, {"status": "IllConditioned", "decision": far})).kind is X
    sine = next(c for c in next(v for k, v in sharp.items() if "computed sine" in k)
            if c.inputs.get("kind") == "normal" and dec(c.inputs["u"]) == 0.5 and dec(c.inputs["v"]) == 0.5)
    assert dec(sine.value["decision"]["sine"]) == dec(sine.inputs["normal_min_sin_angle"])
    assert sine.value["status"] == "IllConditioned" and check_claim(sine).kind is V
    assert check_claim(replace(sine, {"normal": _regular_normal(sine), "decision": sine.value["decision"]})).kind is X


def test_zero_partials_are_degenerate_not_ill_conditioned(corpus):
    deg = [c for c in rows(corpus, "surface.evaluation", "normal", case="collapsed") if "status" in c.value]
    c = next(x for x in deg if dec(x.value["decision"]["su"]) == 0 or dec(x.value["decision"]["sv"]) == 0)
    assert check_claim(c).kind is V
    assert check_claim(replace(c, {**c.value, "status": "IllConditioned"})).kind is X


def test_parallel_partials_have_sine_zero_and_a_zero_partial_any_sine():
    """The sine |Su x Sv| / (|Su| |Sv|) is exactly 0 where the partials are parallel and not
    zero (surface/00050: S = (3 (u + v), 0, 0)): a claimed sine of 2^600 or 2^-1074 there is
    Violated (it was unchecked beside a zero cross product); with a zero partial the quotient
    is undefined and NaN (IEEE's 0 / 0) or any other sine is accepted."""
    fam = SF.FAMILY
    reqs = fam.requests(1, fam.default_cases)
    par = next(r for r in reqs if r.name.startswith("parallel partials"))
    zero = next(r for r in reqs if r.name.startswith("zero partials"))
    (c,) = [x for x in fam.claims(par) if x.row == "surface.evaluation" and "decision" in x.value][:1]
    d = c.value["decision"]
    assert dec(d["cross"]) == 0 and dec(d["su"]) > 0 and dec(d["sv"]) > 0 and dec(d["sine"]) == 0
    assert check_claim(c).kind is V
    for bad in (2.0**600, 2.0**-1074, -0.5):
        v = check_claim(replace(c, {**c.value, "decision": {**d, "sine": enc(bad)}}))
        assert v.kind is X and v.rule == "surface:decision_values", bad
    z = next(x for x in fam.claims(zero) if x.row == "surface.evaluation" and "decision" in x.value)
    assert dec(z.value["decision"]["su"]) == 0 and z.value["decision"]["sine"] == "nan"
    for any_sine in ("nan", enc(0.0), enc(2.0**600)):
        assert check_claim(replace(z, {**z.value, "decision": {**z.value["decision"], "sine": any_sine}})).kind is V


def test_is_c1_follows_the_rule_on_the_claimed_values(sharp):
    edges = [c for c in next(v for k, v in sharp.items() if k.startswith("near-C1")) if c.inputs.get("kind") == "edge"]
    zero = [c for c in edges if dec(c.value["difference"]) == 0 and dec(c.value["scale"]) == 0]
    near = [c for c in edges if dec(c.value["difference"]) > 0]
    assert zero and near
    # 0 <= t * 0: C1, and not C1 is Violated although the exact band alone would allow it, where
    # our decision that a tie passes binds (the spec does not say)
    from tests.oracles.decisions_helper import only_the_decision_refutes

    assert zero[0].value["is_c1"] is True and check_claim(zero[0]).kind is V
    only_the_decision_refutes(replace(zero[0], {**zero[0].value, "is_c1": False}), "surface:c1_at_equality")
    # a relative difference of a quarter of the threshold with an absolute one far above it
    c = near[0]
    assert dec(c.value["difference"]) > dec(c.inputs["continuity_derivative"]) and c.value["is_c1"] is True
    assert check_claim(c).kind is V
    assert check_claim(replace(c, {**c.value, "is_c1": False})).kind is X


def test_large_derivatives_are_judged_relative_to_their_magnitude(sharp):
    from reference.surface import edge_value_bound

    edges = [c for c in next(v for k, v in sharp.items() if k.startswith("large curved grid"))
             if c.inputs.get("kind") == "edge"]
    assert edges
    for c in edges:
        v = check_claim(c)
        assert v.kind is V and v.bound_use is not None and v.bound_use <= 1
        E = max(abs(dec(x)) for side in ("first", "second") for m in c.inputs[side] for r in m for x in r)
        assert E > 1e3 and edge_value_bound(E) > edge_value_bound(1.0) * 1e3


def test_bound_use_is_reported_on_every_evaluation_verdict(corpus):
    for c in rows(corpus, "surface.evaluation")[:60]:
        v = check_claim(c)
        assert v.kind is V and v.bound_use is not None and 0 <= v.bound_use <= 1, (c.inputs["kind"], v.bound_use)


# --- Requests and their statuses (issue 24) ----------------------------------------------------

import importlib  # noqa: E402
import math  # noqa: E402
from fractions import Fraction  # noqa: E402

from .request_helpers import judge_request as _judge, named as _named, fast_path_misses  # noqa: E402
from oracles.request import Answer, StepAnswer  # noqa: E402

SR = importlib.import_module("oracles.families.surface.requests")
SC = importlib.import_module("oracles.families.surface.corpus")


@pytest.fixture(scope="module")
def status_reqs():
    return [r for r in SF.FAMILY.requests(1, SC.NAMED + SR.STATUS_REQUESTS)[SC.NAMED:]]




def test_the_corpus_counts_are_the_documented_ones():
    assert len(SR.status_requests()) == SR.STATUS_REQUESTS
    assert SF.FAMILY.default_cases == SC.NAMED + SR.STATUS_REQUESTS + 19  # the 19 random grids of the old corpus
    assert f"{SR.STATUS_REQUESTS} requests, so ``--cases {SC.NAMED + SR.STATUS_REQUESTS}``" in " ".join(
        SR.__doc__.split())


def test_our_fast_path_meets_every_status_request(status_reqs):
    """Every status request answered by our fast path: statuses, values, rules, completeness."""
    bad = fast_path_misses(SF.FAMILY.answer, status_reqs)
    assert not bad, bad[:5]


def test_a_failed_rebuild_that_drops_the_surface_is_violated(status_reqs):
    rebuilds = [r for r in status_reqs if r.name.startswith("failed rebuild")]
    assert len(rebuilds) == 4
    for req in rebuilds:
        ans = SF.FAMILY.answer(req)
        failed = next(k for k, s in enumerate(req.steps) if k and s.op == "TryPrepareSurface")
        assert ans.steps[failed].status != "Success"
        # The owner emptied by the failed rebuild: its state, and every later query without a surface.
        dropped = [s if k < failed else StepAnswer(s.status, s.claims, {"controls": []}) if k == failed
                   else StepAnswer("MissingCache", (), {"status": "MissingCache"}) for k, s in enumerate(ans.steps)]
        verdicts, _ = _judge(req, Answer(req.id, tuple(dropped)))
        broken = [v for v in verdicts if v.kind is X]
        assert any("rule" in v.claim.inputs for v in broken), req.name
        assert any(v.witness.get("got") == "MissingCache" for v in broken if "rule" not in v.claim.inputs)


def test_limits_at_equality_and_one_past(status_reqs):
    """max_spans and max_prepared_bytes: the requests' limits are the source's own count and
    984 bytes a patch (the documented a-priori size), and the spec's demand flips at them."""
    from reference.surface import prepared_bytes

    assert SR.PATCH_BYTES == prepared_bytes(1) and prepared_bytes(2) == 2 * SR.PATCH_BYTES
    for lim, count in (("max_spans", lambda s: len(s.inputs["patches"])),
                       ("max_prepared_bytes", lambda s: SR.PATCH_BYTES * len(s.inputs["patches"]))):
        eq, past = _named(status_reqs, f"{lim} met with equality"), _named(status_reqs, f"{lim} exceeded by one")
        assert eq.steps[0].inputs["limits"][lim] == count(eq.steps[0]) and eq.steps[0].expect.kind == "success"
        assert past.steps[0].inputs["limits"][lim] == count(past.steps[0]) - 1
        assert past.steps[0].expect.statuses == ("BudgetExceeded",)


def test_the_floor_decision_is_exact_at_equality(status_reqs):
    """The floor requests' position errors are 2 ulp32(E) of the narrowed controls plus their
    narrowing error, rounded up (spec 002 Precision), computed here with numpy's float32
    rounding and spacing and Fractions (not interval.narrowing), and one float64 step below it."""
    for name, ok in (("position error exactly at the floor", True), ("position error one float64 step", False)):
        step = _named(status_reqs, name).steps[0]
        src = np.array([[[[dec(x) for x in c] for c in row] for row in p["control"]] for p in step.inputs["patches"]])
        origin = np.array([dec(x) for x in step.inputs["origin"]])
        n32 = (src - origin).astype(np.float32)
        exact = [Fraction(float(s)) - Fraction(float(o))
                 for s, o in zip(src.ravel(), np.broadcast_to(origin, src.shape).ravel())]
        N = max(abs(Fraction(float(a)) - e) for a, e in zip(n32.ravel(), exact))
        q = 2 * Fraction(float(np.spacing(np.float32(np.max(np.abs(n32)))))) + N
        floor = float(q) if Fraction(float(q)) >= q else math.nextafter(float(q), math.inf)
        pe = dec(step.inputs["tolerance"]["position_error"])
        assert (pe == floor) if ok else (math.nextafter(pe, 1.0) == floor)
        assert step.expect.kind == ("success" if ok else "failure")


def test_normal_expectations_follow_the_exact_partials(status_reqs):
    """Zero partials and parallel partials must fail (Degenerate, or IllConditioned where a zero
    is computed as nonzero); a sine of about 2^-12 against 1e-3 must be IllConditioned: by hand,
    S(u, v) = (3 (u + v), 3 v 2^-12, 0) has Su = (3, 0, 0), Sv = (3, 3 2^-12, 0) and
    sin^2 = 2^-24 / (1 + 2^-24)."""
    for name in ("zero partials", "parallel partials"):
        normals = [s for s in _named(status_reqs, name).steps if s.op == "TryEvaluateSurfaceNormal"]
        assert normals and all(s.expect.kind == "failure" and "Degenerate" in s.expect.statuses for s in normals)
    sine2 = Fraction(1, 2**24) / (1 + Fraction(1, 2**24))
    assert sine2 < Fraction(1, 1000) ** 2
    (normal,) = [s for s in _named(status_reqs, "a sine far below").steps if s.op == "TryEvaluateSurfaceNormal"]
    assert normal.expect.statuses == ("IllConditioned",)


def test_requests_do_not_run_the_fast_path(monkeypatch):
    """Expected statuses are decided without our fast path: with every surface operation of
    reference.surface made to raise, the requests are still generated."""
    import reference.surface as RS

    def refuse(*a, **k):
        raise AssertionError("the fast path was run to decide a request")

    for name in ("try_prepare_surface", "try_evaluate_surface", "try_evaluate_surface_normal",
                 "try_map_edge_parameter", "try_evaluate_edge", "try_sample_surface", "try_sample_surface_normals"):
        monkeypatch.setattr(RS, name, refuse)
    SR.status_requests.cache_clear()
    try:
        reqs = [SR.request_at(1, k) for k in range(SC.NAMED + SR.STATUS_REQUESTS + 2)]
    finally:
        SR.status_requests.cache_clear()
    assert len(reqs) == SC.NAMED + SR.STATUS_REQUESTS + 2
