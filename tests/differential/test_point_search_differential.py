"""Differential tests: the point search tree against the brute-force exact oracle.

Clouds are lattices with duplicates (many exactly equal distances) at offsets up to 2^59, nasty
float32 values (signed zeros, subnormals, float32 max, which the build must reject), and
coordinate permutations and sign flips of one vector (exact ties that float arithmetic breaks);
queries sit on points, halfway between two points, on lattice centres or anywhere; counts span
1 to min(n, MAX_POINT_NEIGHBORS) with rejected counts mixed in. Every claim must be Verified,
and a build that fails must be one the spec asks to fail.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import example, given, settings, strategies as st

from oracles.families import point_search as PSF
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from reference.point_search import MAX_POINT_NEIGHBORS, MAX_POINT_SEARCH_COORDINATE, PointSearchTree
from tests.profiles import examples
from tests.strategies import float32_values


def _f32(x):
    return np.asarray(x, np.float64).astype(np.float32).astype(np.float64)


@st.composite
def clouds(draw):
    kind = draw(st.sampled_from(["lattice", "float32", "permutations"]))
    if kind == "lattice":
        n = draw(st.integers(1, 80))
        step = draw(st.sampled_from([1.0, 0.5, 2.0 ** -20, 2.0 ** -140, 3.0, 2.0 ** 36]))
        origin = draw(st.sampled_from([0.0, -1e3, 1e7, 2.0 ** 59]))
        ints = draw(st.lists(st.tuples(*[st.integers(-3, 3)] * 3), min_size=n, max_size=n))
        return _f32(origin + step * np.asarray(ints, np.float64))
    if kind == "float32":
        n = draw(st.integers(1, 40))
        big = draw(st.sampled_from([1.0, 1e3, 1e18, 3.4e38]))
        vals = st.one_of(float32_values(-big, big), st.sampled_from([0.0, -0.0, 2.0 ** -149, 1.0]))
        pts = draw(st.lists(st.tuples(vals, vals, vals), min_size=n, max_size=n))
        return np.asarray(pts, np.float64)
    v = draw(st.tuples(*[float32_values(-1e4, 1e4)] * 3))
    signs = draw(st.lists(st.tuples(*[st.sampled_from([1.0, -1.0])] * 3), min_size=1, max_size=4))
    pts = [np.array(p) * s for p in itertools.permutations(v) for s in map(np.array, signs)]
    return np.asarray(pts, np.float64)[draw(st.permutations(range(len(pts))))]


@st.composite
def requests(draw, pts):
    n = len(pts)
    top = min(n, MAX_POINT_NEIGHBORS)
    out = []
    for _ in range(draw(st.integers(1, 4))):
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        how = draw(st.sampled_from(["point", "between", "centre", "any", "origin"]))
        if how == "point":
            q = pts[i]
        elif how == "between":
            q = (pts[i] + pts[j]) / 2
        elif how == "centre":
            q = pts[i] + np.float64(draw(st.sampled_from([0.5, 0.25, 2.0 ** -21])))
        elif how == "origin":
            q = np.zeros(3)
        else:
            q = np.asarray(draw(st.tuples(*[float32_values(-1e20, 1e20)] * 3)))
        k = draw(st.one_of(st.integers(1, top), st.just(top), st.sampled_from([0, n + 1, MAX_POINT_NEIGHBORS + 1])))
        out.append((_f32(q), k))  # the tree takes float32 values only
    return out


@settings(max_examples=examples(40, 2000))
@given(st.data())
@example(None)
def test_every_point_search_claim_is_verified(data):
    if data is None:  # the duplicates corner of the corpus
        case = PSF.generate(1, 1)[0]
    else:
        pts = data.draw(clouds())
        case = {"name": "hypothesis", "positions": pts, "queries": data.draw(requests(pts))}
    if not PointSearchTree().build(case["positions"]).ok:
        bad = ~np.isfinite(case["positions"]) | (np.abs(case["positions"]) > MAX_POINT_SEARCH_COORDINATE)
        assert bad.any()
        return
    cs = PSF.claims(case)
    assert len(cs) == len(case["queries"])
    for claim in cs:
        v = check_claim(claim)
        assert v.kind is VerdictKind.Verified, (v.note, v.witness, claim.inputs["query"], claim.inputs["count"])
