"""Differential tests: the surface-mesh fast path against the exact tessellation oracle on
hypothesis networks.

Networks come from the surface family's generators (``oracles.families.surface.corpus``): grids of 1x1
to 2x2 patches (curved or exactly planar; each patch reparametrized at random, in random order
with random ids; near the origin or up to 1e7 away with a chunk origin nearby), the cube, the
one- and four-patch tubes, a collapsed side and a pole; the requested position error is 2 to
10 percent of the network's extent, Strict or Visual (with a normal angle). Properties:

* every claim is Verified: each patch's ``position_bound`` by the exact branch and bound over
  every cell, the shared positions (bitwise copies, one index per surface point, no T-junction,
  the two counterclockwise triangles of each cell, every mesh edge used twice or once on a
  boundary), and the Visual normal-angle estimate within its acceptance factor;
* the per-patch levels do not depend on the patch order (the agreement is a least fixpoint).

``examples(4, 2000)``: 2,000 networks under ``HYPOTHESIS_PROFILE=thorough``.
"""

from __future__ import annotations

import numpy as np
import re

from hypothesis import HealthCheck, event, given, settings, strategies as st, target

from oracles.families import surface as SF
from oracles.families import tessellation as T
from oracles.families.tessellation.checks import MAX_EXACT_CELLS
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from tests.profiles import examples


@st.composite
def meshes(draw):
    kind = draw(st.sampled_from(["grid", "grid", "grid", "cube", "tube4", "tube1", "collapsed", "pole"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "cube":
        case = SF._cube(rng)
    elif kind == "tube4":
        case = SF._tube_four(rng)
    elif kind == "tube1":
        case = SF._tube_one(rng)
    elif kind == "collapsed":
        case = SF._collapsed(rng)
    elif kind == "pole":
        case = SF._pole(rng)
    else:
        m, k = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        case = SF._grid_case(rng, "hypothesis grid", m=m, k=k, magnitude=draw(st.sampled_from([1.0, 1e3, 1e7])),
                             planar=draw(st.booleans()))
    rel = draw(st.sampled_from([0.02, 0.05, 0.1]))
    visual = kind in ("grid", "tube4", "cube") and draw(st.booleans())
    if visual:
        return T._with_mesh(case, rel=rel, precision="Visual", angle=draw(st.sampled_from([0.4, 0.6])))
    return T._with_mesh(case, rel=rel)


_BEYOND = re.compile(r"(\d+) cells: beyond the exact oracle's \d+")


@settings(max_examples=examples(4, 2000), deadline=None, suppress_health_check=list(HealthCheck))
@given(meshes())
def test_every_mesh_claim_is_verified(case):
    cs = T.claims(case)
    rows = {c.row for c in cs}
    assert {"tessellation.position_bound", "tessellation.shared_positions"} <= rows, case["name"]
    use = 0.0
    for c in cs:
        v = check_claim(c)
        beyond = _BEYOND.fullmatch(v.note or "")
        if v.kind is VerdictKind.Undecided and beyond and int(beyond.group(1)) > MAX_EXACT_CELLS:
            # docs/decisions.md: grids above MAX_EXACT_CELLS are Undecided at once, by design (the
            # thorough profile draws such meshes: a 2x2 grid of 8,224 cells on 2026-12-06)
            event("a grid beyond the exact oracle's cells: Undecided")
            continue
        assert v.kind is VerdictKind.Verified, (case["name"], c.row, v.witness, v.note)
        if c.row == "tessellation.position_bound":
            use = max(use, v.bound_use or 0.0)
    target(use, label="tightest mesh position bound")  # search towards bounds the truth nearly reaches


@settings(max_examples=examples(4, 2000), deadline=None, suppress_health_check=list(HealthCheck))
@given(meshes(), st.randoms(use_true_random=False))
def test_levels_do_not_depend_on_patch_order(case, rnd):
    n = len(case["ids"])
    perm = list(range(n))
    rnd.shuffle(perm)
    inv = {old: new for new, old in enumerate(perm)}
    moved = dict(case)
    moved["ids"] = [case["ids"][i] for i in perm]
    moved["source"] = case["source"][perm]
    moved["joins"] = [(inv[p], s, inv[q], t, r) for p, s, q, t, r in case["joins"]]
    _, _, a = T.build_case(case)
    _, _, b = T.build_case(moved)
    assert a.ok and b.ok
    la = {r.patch_id: (r.level_u, r.level_v) for r in a.value.report.patches}
    lb = {r.patch_id: (r.level_u, r.level_v) for r in b.value.report.patches}
    assert la == lb
    assert a.value.positions.shape == b.value.positions.shape
