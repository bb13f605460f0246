"""point_search.nearest checker: honest corpus claims Verified; one planted false claim per
property Violated (a distance outside its bound, distances that decrease, an exact tie out of
index order, an excluded exact tie with a lower index, a nearer point left out, a farther point
ahead, wrong count, repeated or out-of-range indices, an answer where the spec rejects and a
rejection where it answers); the float32 band admits a near-tie inversion that binary64 refuses;
a naive float32 producer passes under its declared model except where its sums break exact
ties; malformed claims raise."""

from __future__ import annotations

import itertools
from fractions import Fraction

import gmpy2
import numpy as np
import pytest

import oracles.families.point_search as PSF
from interval.point_search import as_rational, exact_nearest, exact_squared_distances
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, enc
from reference.point_search import MAX_POINT_NEIGHBORS
from reference.status import GuaranteeClass as G
from tests.oracles.decisions_helper import both_ways, only_the_decision_refutes

V, X = VerdictKind.Verified, VerdictKind.Violated
F32 = {"u": enc(2.0 ** -24)}


@pytest.fixture(scope="module")
def honest():
    return [c for case in PSF.generate(5, 40) for c in PSF.claims(case)]


def answered(honest):
    return [c for c in honest if "indices" in c.value]


def replace(c, value=None, inputs=None, model=None):
    return Claim(c.row, c.guarantee, c.value if value is None else value, c.inputs if inputs is None else inputs,
                 c.model if model is None else model)


def truth(c):
    pos = [[dec(x) for x in p] for p in c.inputs["positions"]]
    return exact_squared_distances(pos, [dec(x) for x in c.inputs["query"]])


def test_honest_claims_are_verified_also_under_the_float32_model(honest):
    assert len(honest) > 100
    for c in honest:
        v = check_claim(c)
        assert v.kind is V, (v.note, v.witness)
        assert v.measured is not None and v.measured <= 1
        v32 = check_claim(replace(c, model=F32))
        assert v32.kind is V
        if "indices" in c.value:
            # the declared float32 model is about 9 times the binary64 reference, and says so
            ratio = v32.extra["declared_model"]["declared_over_reference"]
            assert 8.9 < ratio < 9.1


def test_the_corpus_holds_the_named_corners(honest):
    rejected = [c for c in honest if "status" in c.value]
    assert len(rejected) >= 10
    full = [c for c in answered(honest) if c.inputs["count"] == len(c.inputs["positions"])]
    assert full and any(c.inputs["count"] == MAX_POINT_NEIGHBORS for c in answered(honest))
    # a query with a tie group at the cut: more exact ties than returned
    cut = 0
    for c in answered(honest):
        D = truth(c)
        last = D[c.value["indices"][-1]]
        cut += sum(1 for x in D if x == last) > sum(1 for j in c.value["indices"] if D[j] == last)
    assert cut >= 5


def test_distance_outside_its_bound_is_violated(honest):
    for c in answered(honest)[:60]:
        D = truth(c)
        dist = list(c.value["distances"])
        d0 = as_rational(D[c.value["indices"][0]])
        bound = 2.0 ** -24 * float(d0) + 2.0 ** -149
        dist[0] = enc(float(np.float32(float(d0) + 4 * bound)))
        assert check_claim(replace(c, {**c.value, "distances": dist})).kind is X


def _tie_claims(honest):
    for c in answered(honest):
        D = truth(c)
        idx = c.value["indices"]
        for i in range(len(idx) - 1):
            if D[idx[i]] == D[idx[i + 1]]:
                yield c, D, i
                break  # one tie per claim: variety over volume


def _same_position(c, a, b) -> bool:
    pos = c.inputs["positions"]
    return [dec(x) for x in pos[a]] == [dec(x) for x in pos[b]]


def test_exact_tie_out_of_index_order_is_violated(honest):
    n = dups = 0
    for c, D, i in _tie_claims(honest):
        idx = list(c.value["indices"])
        dup = _same_position(c, idx[i], idx[i + 1])
        idx[i], idx[i + 1] = idx[i + 1], idx[i]
        bad = replace(c, {**c.value, "indices": idx})
        if dup:
            # Duplicates tie on every processor: the spec's own order by source index refutes it.
            v = check_claim(bad)
            assert v.kind is X and v.rule == "point_search:duplicate_order" and "duplicate" in v.witness["why"]
            dups += 1
            continue
        # Other exact ties in index order are our decision, stricter than the spec's processor band.
        _, v = only_the_decision_refutes(bad, "point_search:exact_tie_order")
        assert "tie" in v.witness["why"]
        n += 1
        if n == 60:
            break
    assert n >= 20 and dups >= 1


def test_decreasing_distances_are_violated_even_within_the_bound(honest):
    n = 0
    for c, D, i in _tie_claims(honest):
        d = as_rational(D[c.value["indices"][i]])
        if d < 1e-30:
            continue
        dist = list(c.value["distances"])
        up = np.nextafter(np.float32(dec(dist[i])), np.float32(np.inf))
        dist[i] = enc(up)  # one float32 ulp: inside the float32 model's bound
        v = check_claim(replace(c, {**c.value, "distances": dist}, model=F32))
        assert v.kind is X and v.witness["why"] == "distances decrease"
        n += 1
        if n == 40:
            break
    assert n >= 10


def test_excluded_tie_with_lower_index_is_violated(honest):
    n = dups = 0
    for c in answered(honest):
        D = truth(c)
        idx = c.value["indices"]
        last = D[idx[-1]]
        outside = [j for j in range(len(D)) if D[j] == last and j not in idx]
        if not outside:
            continue
        # swap the lowest-index returned member of the cut's tie group for a higher excluded one
        low = min(j for j in idx if D[j] == last)
        bad = [j for j in idx if D[j] != last] + sorted([j for j in idx if D[j] == last and j != low] + [outside[-1]])
        claim = replace(c, {**c.value, "indices": bad})
        left = [j for j in range(len(D)) if D[j] == last and j not in bad]
        if any(_same_position(c, e, r) for e in left for r in bad if r > e):
            v = check_claim(claim)  # a duplicate left out for a higher index: the spec's order refutes it
            assert v.kind is X and v.rule == "point_search:duplicate_order"
            dups += 1
            continue
        _, v = only_the_decision_refutes(claim, "point_search:exact_tie_order")
        assert "lower source index" in v.witness["why"]
        n += 1
    assert n >= 5 and dups >= 1


def test_nearer_point_left_out_is_violated(honest):
    n = 0
    for c in answered(honest):
        D = truth(c)
        idx = c.value["indices"]
        order = exact_nearest(D, len(D))
        far = order[-1]
        if D[far] <= D[idx[-1]] * 2 or far in idx or float(as_rational(D[far])) < 2.0 ** -100:
            continue  # (below ~2^-148 every distance is inside the float32 output's absolute band)
        # the last neighbour replaced by the farthest point, with its own (correct) distance
        bad_idx = idx[:-1] + [far]
        dist = c.value["distances"][:-1] + [enc(np.float32(float(as_rational(D[far]))))]
        v = check_claim(replace(c, {"indices": bad_idx, "distances": dist}))
        assert v.kind is X and v.witness["why"] in ("a nearer point left out beyond the band",
                                                     "an excluded exact tie has a lower source index")
        n += 1
    assert n >= 20


def test_farther_point_ahead_is_violated(honest):
    n = 0
    for c in answered(honest):
        D = truth(c)
        idx = c.value["indices"]
        if len(idx) < 2 or D[idx[-1]] <= 2 * D[idx[0]] or float(as_rational(D[idx[-1]])) < 2.0 ** -100:
            continue
        bad = {"indices": [idx[-1]] + idx[1:-1] + [idx[0]],
               "distances": [c.value["distances"][-1]] + c.value["distances"][1:-1] + [c.value["distances"][0]]}
        assert check_claim(replace(c, bad)).kind is X
        n += 1
    assert n >= 20


def test_wrong_count_repeated_or_out_of_range_indices_are_violated(honest):
    for c in answered(honest)[:30]:
        idx, dist = c.value["indices"], c.value["distances"]
        n = len(c.inputs["positions"])
        for bad in ({"indices": idx[:-1], "distances": dist[:-1]} if len(idx) > 1 else
                    {"indices": idx + idx, "distances": dist + dist},
                    {"indices": [n] + idx[1:], "distances": dist},
                    {"indices": idx, "distances": dist + dist[:1]}):
            v = check_claim(replace(c, bad))
            assert v.kind is X, bad
        if len(idx) > 1:
            assert check_claim(replace(c, {"indices": [idx[0]] * len(idx), "distances": dist})).kind is X


def test_answer_where_rejected_and_rejection_where_answered_are_violated(honest):
    for c in [c for c in honest if "status" in c.value]:
        assert check_claim(replace(c, {"indices": [0], "distances": [enc(0.0)]})).kind is X
    for c in answered(honest)[:20]:
        assert check_claim(replace(c, {"status": "InvalidArgument"})).kind is X


def test_contract_plant_is_violated(honest):
    for c in honest[:80]:
        assert check_claim(PSF.CONTRACTS["point_search.nearest"].plant(c)).kind is X


def test_near_tie_inversion_is_inside_the_float32_band_only():
    # d_a = 1 and d_b = (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: an inexact near tie. A float32
    # evaluator may order them either way (2 b = 18 (2^-24 + ...) > 2^-22); binary64 may not.
    pos = [[enc(1 + 2.0 ** -23), enc(0.0), enc(0.0)], [enc(1.0), enc(0.0), enc(0.0)]]
    inputs = {"positions": pos, "query": [enc(0.0)] * 3, "count": 2}
    swapped = {"indices": [0, 1], "distances": [enc(1.0), enc(1.0)]}
    c = Claim("point_search.nearest", G.Rounded, swapped, inputs)
    assert check_claim(replace(c, model=F32)).kind is V
    v = check_claim(c)
    assert v.kind is X
    right = {"indices": [1, 0], "distances": [enc(1.0), enc(np.float32(1 + 2.0 ** -22))]}
    assert check_claim(replace(c, right)).kind is V
    # the excluded version: count 1 returning the farther point
    one = Claim(c.row, c.guarantee, {"indices": [0], "distances": [enc(1.0)]}, {**inputs, "count": 1})
    assert check_claim(replace(one, model=F32)).kind is V and check_claim(one).kind is X


def test_model_bound_is_exact():
    d = Fraction(3, 7)
    b = PSF.model_bound(gmpy2.mpq(3, 7), 2.0 ** -53, 2.0 ** -1074)
    assert Fraction(int(b.numerator), int(b.denominator)) == (
        d * Fraction(1, 2 ** 24) + Fraction(1, 2 ** 149) + 8 * (d * Fraction(1, 2 ** 53) + Fraction(1, 2 ** 1074)))


@pytest.mark.parametrize("mutate", [
    lambda i: {**i, "positions": "nope"},
    lambda i: {**i, "positions": []},
    lambda i: {**i, "positions": [i["positions"][0][:2]]},
    lambda i: {**i, "positions": [[enc(0.1), enc(0.0), enc(0.0)]]},  # not a float32
    lambda i: {**i, "query": i["query"][:2]},
    lambda i: {**i, "count": True},
    lambda i: {**i, "count": "3"},
])
def test_malformed_inputs_raise(honest, mutate):
    c = answered(honest)[0]
    with pytest.raises((ValueError, KeyError, TypeError)):
        check_claim(replace(c, inputs=mutate(c.inputs)))


def test_malformed_values_raise(honest):
    c = answered(honest)[0]
    for bad in ({"indices": ["0"], "distances": c.value["distances"]},
                {"indices": c.value["indices"], "distances": [enc(0.1)] * len(c.value["indices"])}):
        with pytest.raises((ValueError, KeyError, TypeError)):
            check_claim(replace(c, bad))


def _naive_float32_claims(pts, q, k, model):
    """A plain float32 producer: ((dx^2 + dy^2) + dz^2) in float32, sorted by that value, then
    by source index (what a straightforward CPU or GPU implementation does)."""
    p, q32 = np.asarray(pts, np.float32), np.asarray(q, np.float32)
    d = p - q32
    d32 = (d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2]
    assert d32.dtype == np.float32
    order = np.lexsort((np.arange(len(p)), d32))[:k]
    value = {"indices": order.tolist(), "distances": enc(d32[order])}
    inputs = {"positions": enc(p), "query": enc(q32), "count": k}
    return Claim("point_search.nearest", G.Rounded, value, inputs, model)


def test_a_naive_float32_producer_passes_its_declared_model_but_not_exact_ties():
    rng = np.random.default_rng(12)
    # generic clouds: within the float32 model; binary64's model refutes its distances
    refuted = 0
    for _ in range(20):
        pts = (rng.normal(size=(60, 3)) * 10.0 ** rng.integers(-3, 4)).astype(np.float32)
        q = pts[int(rng.integers(0, 60))] + np.float32(0.3)
        c = _naive_float32_claims(pts, q, 8, F32)
        assert check_claim(c).kind is V
        refuted += check_claim(Claim(c.row, c.guarantee, c.value, c.inputs)).kind is X
    assert refuted >= 10  # float32 arithmetic is not within the binary64 reference model
    # exact ties its float32 sums break: permutations of one vector, ordered by the float32
    # value before the index, are Violated
    v = np.array([float.fromhex(s) for s in ("0x1.c0d6bcp+9", "0x1.0e2768p+3", "0x1.91d288p-2")], np.float32)
    perm = np.array([np.array(p) * s for p in itertools.permutations(v) for s in ([1, 1, 1], [-1, 1, 1])],
                    np.float32)
    d = perm.astype(np.float32)
    d32 = (d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2]
    assert len(set(d32.tolist())) > 1  # the exact ties have different float32 values
    # (only our exact-tie decision refutes them: by the spec's band an exact tie is a near tie)
    hits = 0
    for trial in range(10):
        shuffled = perm[rng.permutation(len(perm))]
        for k in (3, 6, 12):
            claim = _naive_float32_claims(shuffled, [0, 0, 0], k, F32)
            spec, w = both_ways(claim)
            assert spec.kind is V
            hits += w.kind is X
            if w.kind is X:
                assert "tie" in w.witness["why"] or "lower source index" in w.witness["why"]
                assert w.rule == "point_search:exact_tie_order" and spec.unmet == (w.rule,)
    assert hits >= 10


# --- Requests and their statuses (issue 24) ----------------------------------------------------
# Expectations below are derived by hand from spec 002 "Point neighborhoods" and the decisions
# the requests cite ("Point search: limits": 2^60, 32, at least one point, CapacityExceeded for
# short outputs), never from the fast path.

import importlib  # noqa: E402

from .request_helpers import judge_request as _judge, named as _named, fast_path_misses  # noqa: E402
from oracles.model import parse_number  # noqa: E402
from reference.point_search import MAX_POINT_SEARCH_COORDINATE, PointSearchTree  # noqa: E402

PR = importlib.import_module("oracles.families.point_search.requests")
PC = importlib.import_module("oracles.families.point_search.corpus")


@pytest.fixture(scope="module")
def status_reqs():
    return [PR.request_at(1, k) for k in range(PC.NAMED, PC.NAMED + PR.STATUS_REQUESTS)]




def test_the_corpus_counts_are_the_documented_ones(status_reqs):
    assert len(PR.status_requests()) == PR.STATUS_REQUESTS == len(status_reqs)
    assert PC.NAMED == 13
    # the 300 cases of the older corpus (13 named, 287 random clouds), plus the status contracts
    assert PSF.FAMILY.default_cases == 300 + PR.STATUS_REQUESTS
    doc = " ".join(PR.__doc__.split())
    assert f"requests {PC.NAMED} to {PC.NAMED + PR.STATUS_REQUESTS - 1}" in doc
    assert f"``--cases {PC.NAMED + PR.STATUS_REQUESTS}``" in doc
    # a random cloud after the contracts is the corpus case it was before them
    k = PC.NAMED + PR.STATUS_REQUESTS + 4
    req = PR.request_at(1, k)
    case = PC.case_at(1, PC.NAMED + 4)
    assert req.steps[0].inputs["positions"] == enc(np.asarray(case["positions"], np.float64))
    assert len(req.steps) == 1 + len(case["queries"])


def test_our_fast_path_meets_every_status_request(status_reqs):
    """Every status request answered by our fast path: statuses, values, rules, completeness."""
    bad = fast_path_misses(PSF.FAMILY.answer, status_reqs)
    assert not bad, bad[:5]


def _coords(step):
    raw = step.inputs["positions"] if step.op == PR.BUILD else [step.inputs["query"]]
    return [parse_number(x) for p in raw for x in p]


def test_the_limits_are_the_hand_derived_ones(status_reqs):
    M = Fraction(2) ** 60
    # coordinates of magnitude exactly 2^60 must be accepted ('magnitudes above' are rejected)
    eq = _named(status_reqs, "MAX_POINT_SEARCH_COORDINATE met with equality (positions")
    assert max(abs(x) for x in _coords(eq.steps[0])) == M and eq.steps[0].expect.kind == "success"
    assert all(s.expect.kind == "success" for s in eq.steps)
    eq = _named(status_reqs, "MAX_POINT_SEARCH_COORDINATE met with equality by a query")
    assert max(abs(x) for x in _coords(eq.steps[1])) == M and eq.steps[1].expect.kind == "success"
    # one float32 ulp above (2^60 + 2^37) must be refused, for a position and for a query
    for prefix, k in (("MAX_POINT_SEARCH_COORDINATE exceeded by one float32 ulp (a position", 0),
                      ("MAX_POINT_SEARCH_COORDINATE exceeded by one float32 ulp by a query", 1)):
        past = _named(status_reqs, prefix)
        assert max(abs(x) for x in _coords(past.steps[k])) == M + 2 ** 37
        assert past.steps[k].expect.statuses == ("InvalidArgument",)
    # counts: 32 of 36 points succeeds, 33 fails (outputs long enough: the count is the defect)
    eq, past = _named(status_reqs, "MAX_POINT_NEIGHBORS met"), _named(status_reqs, "MAX_POINT_NEIGHBORS exceeded")
    assert len(eq.steps[0].inputs["positions"]) == 36 and eq.steps[1].inputs["count"] == 32
    assert eq.steps[1].expect.kind == "success"
    assert past.steps[1].inputs["count"] == 33 and past.steps[1].inputs["capacity"] == 33
    assert past.steps[1].expect.statuses == ("InvalidArgument",)
    eq, past = _named(status_reqs, "point count met with equality ("), _named(status_reqs, "point count exceeded")
    assert len(eq.steps[0].inputs["positions"]) == eq.steps[1].inputs["count"] == 27
    assert eq.steps[1].expect.kind == "success"
    assert past.steps[1].inputs["count"] == 28 and past.steps[1].expect.statuses == ("InvalidArgument",)
    eq, past = _named(status_reqs, "output capacity met"), _named(status_reqs, "output capacity exceeded")
    assert (eq.steps[1].inputs["count"], eq.steps[1].inputs["capacity"]) == (5, 5)
    assert eq.steps[1].expect.kind == "success"
    assert (past.steps[1].inputs["count"], past.steps[1].inputs["capacity"]) == (5, 4)
    assert past.steps[1].expect.statuses == ("CapacityExceeded",)
    assert float(M) == MAX_POINT_SEARCH_COORDINATE  # the limit the requests restate is the fast path's


def test_expectations_name_every_defect():
    f = PR.find_inputs([0.0, 0.0, 0.0], 33, 32)
    assert set(PR.expected_find(40, f).statuses) == {"InvalidArgument", "CapacityExceeded"}
    assert PR.expected_find(0, PR.find_inputs([0.0, 0.0, 0.0], 1)).statuses == ("InvalidArgument",)
    assert PR.expected_find(1, PR.find_inputs([0.0, 0.0, 0.0], 1)).kind == "success"
    assert PR.expected_find(5, PR.find_inputs([2.0 ** 60, -(2.0 ** 60), 0.0], 5)).kind == "success"
    assert PR.expected_find(5, PR.find_inputs(["0x1.0000020000000p+60", "0x0.0p+0", "0x0.0p+0"], 5)).kind == "failure"
    assert PR.expected_build({"positions": []}).statuses == ("InvalidArgument",)
    assert PR.expected_build(PR.build_inputs([[0.1, 0.0, 0.0]])).kind == "failure"  # not a float32 value
    assert PR.expected_build(PR.build_inputs([[0.5, 0.0, 0.0]] * 3)).kind == "success"  # duplicates accepted
    assert PR.expected_build({"positions": [["0x1p+0", "0x0p+0"]]}).kind == "failure"


def _scenario(status_reqs, prefix):
    req = _named(status_reqs, prefix)
    assert req.rules
    return req


def _rule_violations(req, ans):
    verdicts, unanswered = _judge(req, ans)
    assert not unanswered
    return [v for v in verdicts if v.kind is X and "rule" in v.claim.inputs]


def test_a_failed_build_that_commits_its_positions_is_violated(status_reqs, monkeypatch):
    """A planted fast-path fault: the rejected positions are stored although the build fails
    ('Failure preserves the previous tree'). The owner's state is read from the tree object, so
    the failed-rebuild scenario sees it."""
    real = PointSearchTree.build

    def leaky(self, positions):
        out = real(self, positions)
        arr = np.asarray(positions, np.float64)
        if not out.ok and arr.ndim == 2 and arr.shape[1] == 3 and len(arr):
            with np.errstate(over="ignore", invalid="ignore"):
                self._positions = arr.astype(np.float32)
        return out

    req = _scenario(status_reqs, "failed rebuild (a NaN coordinate, same point count)")
    assert not _rule_violations(req, PSF.FAMILY.answer(req))
    monkeypatch.setattr(PointSearchTree, "build", leaky)
    bad = _rule_violations(req, PSF.FAMILY.answer(req))
    assert [v.claim.inputs["rule"]["before"] for v in bad] == [0]  # the owner's state, not the query
    assert bad[0].witness["first_difference"].startswith(".positions")


def test_a_failed_query_that_writes_its_outputs_is_violated(status_reqs, monkeypatch):
    """A planted fast-path fault: a failed query clears the caller's distances ('Query failure
    preserves outputs')."""
    real = PointSearchTree.find_nearest

    def clearing(self, point, count, out_indices, out_distances):
        out = real(self, point, count, out_indices, out_distances)
        if not out.ok:
            out_distances[:] = np.float32(np.inf)
        return out

    req = _scenario(status_reqs, "failed queries keep the caller's outputs")
    assert not _rule_violations(req, PSF.FAMILY.answer(req))
    monkeypatch.setattr(PointSearchTree, "find_nearest", clearing)
    bad = _rule_violations(req, PSF.FAMILY.answer(req))
    assert len(bad) == len(req.rules)  # every failed query of the scenario
