"""Differential tests: the surface fast path against the exact oracle on hypothesis networks.

Networks are grids of 1x1 to 4x4 patches (curved or exactly planar), the cube and tubes, each
patch reparametrized at random (transpose, u or v flipped), in random order with random ids
(small, large, at the top of the u64 range), far from the origin with a chunk origin nearby.
Joins are found by the test (equal float64 side curves), and each join may be declared from
either side. Properties:

* permuting the patch order (and the joins with it, each join from either side) gives the
  same edge ids, owners, canonical curves, incidences (by patch id), orientation and C1 flags,
  and the same corner records;
* every claim of the network (shared edges, corners, samples, normals, edge values) is Verified
  by the oracle: records exact, evaluation within the error model.

``examples(12, 2000)``: 2,000 networks under ``HYPOTHESIS_PROFILE=thorough``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st, target

from oracles.families import surface as SF
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from reference.surface import try_prepare_surface
from tests.profiles import examples


@st.composite
def networks(draw):
    kind = draw(st.sampled_from(["grid", "grid", "grid", "cube", "tube"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "cube":
        case = SF._cube(rng)
    elif kind == "tube":
        case = SF._tube_four(rng)
    else:
        m, k = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        magnitude = draw(st.sampled_from([1.0, 1e3, 1e5, 1e7]))
        case = SF._grid_case(rng, "hypothesis grid", m=m, k=k, magnitude=magnitude, planar=draw(st.booleans()))
    flips = draw(st.lists(st.booleans(), min_size=len(case["joins"]), max_size=len(case["joins"])))
    case["joins"] = [(q, t, p, s, r) if f else (p, s, q, t, r) for (p, s, q, t, r), f in zip(case["joins"], flips)]
    perm = draw(st.permutations(range(len(case["ids"]))))
    return case, list(perm)


def _permuted(case, perm):
    """The same network with patch i moved to position inv[i] (joins remapped)."""
    inv = {old: new for new, old in enumerate(perm)}
    out = dict(case)
    out["source"] = case["source"][perm]
    out["ids"] = [case["ids"][i] for i in perm]
    out["joins"] = [(inv[p], s, inv[q], t, r) for p, s, q, t, r in case["joins"]]
    return out


def _records(case):
    source, prep = SF.case_source(case)
    out = try_prepare_surface(source, prep)
    assert out.ok, out.diagnostic
    v = out.value.view()
    edges = [(e.id, e.curve.tobytes(), [(i.patch_id, i.side, i.is_reversed) for i in e.incidences],
              e.is_orientation_consistent, e.is_c1, e.cross_derivative_difference, e.cross_derivative_scale)
             for e in v.edges]
    corners = [(c.id, c.position.tobytes(), [(i.patch_id, i.corner) for i in c.incidences]) for c in v.corners]
    return edges, corners


@settings(max_examples=examples(12, 2000))
@given(networks())
def test_patch_order_does_not_change_the_records(net):
    case, perm = net
    assert _records(case) == _records(_permuted(case, perm))


@settings(max_examples=examples(8, 2000))
@given(networks())
def test_every_claim_is_verified(net):
    case, _ = net
    cs = SF.claims(case)
    assert {c.row for c in cs} == {"surface.shared_edges", "surface.corners", "surface.evaluation"}
    use = 0.0
    for c in cs:
        v = check_claim(c)
        assert v.kind is VerdictKind.Verified, (c.row, c.inputs.get("kind"), v.note, v.witness)
        use = max(use, v.bound_use or 0.0)
    target(use, label="largest bound_use of the evaluation claims")  # search towards the models
