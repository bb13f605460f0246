"""Differential tests: frames against the frame oracle on hypothesis paths.

Paths are chains of 1 to 3 spans in world coordinates up to 1e4 with a chunk origin nearby:
either C0 chains (``tests.strategies.float64_sources_near_origin``: corners at most joints) or
smooth G1 chains, some closed, some with a zero-speed ease endpoint, a stationary span, an
interior cusp or a reversal; seeds random or parallel to the first tangent; every policy
drawn; MaxDepth the default, 36 or 52. Every claim (regularity Certified, vectors within their
model, the angular error within the acceptance factor of its estimate) must be Verified, and any
build failure must be one of the policy table's statuses. 2,000 paths under ``HYPOTHESIS_PROFILE=thorough``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from oracles.families.frame import corpus as F
from oracles.families.frame import claims as frame_claims
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from reference.status import GeometryStatus as GS
from tests.profiles import examples
from tests.strategies import float64_sources_near_origin

_EXPECTED_FAILURES = {GS.DegenerateFrame, GS.BudgetExceeded}


@st.composite
def smooth_chain(draw):
    n = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = 10.0 ** draw(st.floats(-1, 1))
    base = rng.uniform(-1, 1, 3) * 10.0 ** draw(st.sampled_from([0, 2, 4]))
    pts = np.empty((n, 4, 3))
    p0, d = base, rng.normal(size=3)
    for i in range(n):
        d1 = d + rng.normal(size=3) * 0.7
        d2 = d1 + rng.normal(size=3) * 0.7
        pts[i] = [p0, p0 + d * size / 3, p0 + (d + d1) * size / 3, p0 + (d + d1 + d2) * size / 3]
        p0, d = pts[i, 3], d2
    return pts, np.round(base)


@st.composite
def frame_cases(draw):
    if draw(st.booleans()):
        src, origin = draw(float64_sources_near_origin(max_coord=1e4, min_span=1e-2, spans=(1, 3), radius=10.0))
        src = src.copy()
    else:
        src, origin = draw(smooth_chain())
    shape = draw(st.sampled_from(["plain", "plain", "ease", "stationary", "cusp", "reversal", "closed"]))
    if shape == "ease":
        src[0, 1] = src[0, 0]
    elif shape == "stationary" and src.shape[0] >= 2:
        src[-1] = src[-1, 0]
    elif shape == "cusp":
        a, b = src[0, 0], src[0, 3]
        w = np.cross(b - a, [0.3, 0.5, 0.7])
        src[0] = [a, b + w * 0.5, a + w * 0.5, b]  # B'(1/2) = 0 (the cusp shape of the corpus)
    elif shape == "reversal":
        a, b = src[0, 0].copy(), src[0, 3].copy()
        src[0] = [a, b, b, a]  # out and back along a line: B'(1/2) = 0
        src[1:] += a - src[1, 0] if src.shape[0] > 1 else 0.0  # the chain stays connected
    closed = shape == "closed" and src.shape[0] >= 2
    if closed:
        src[-1, 3] = src[0, 0]
    tangent0 = src[0, 1] - src[0, 0]
    seed = draw(st.sampled_from(["random", "random", "parallel"]))
    seed_up = tuple(tangent0 * 2.0) if seed == "parallel" and np.any(tangent0) else \
        tuple(draw(st.lists(st.floats(-1, 1, allow_subnormal=False), min_size=3, max_size=3)))
    if not np.linalg.norm(seed_up) > 1e-150:
        seed_up = (0.0, 0.0, 1.0)  # a seed whose square underflows is InvalidArgument (tested elsewhere)
    return F._case(
        "hypothesis", src, closed=closed, origin=tuple(origin), tae=10.0 ** draw(st.floats(-7, -4)),
        seed_up=seed_up, seed_policy=draw(st.sampled_from(list(F._SEED))), fallback=(0.3, -0.4, 0.85),
        sing=draw(st.sampled_from(list(F._SING))), corner=draw(st.sampled_from(list(F._CORNER))),
        closed_policy=draw(st.sampled_from(list(F._CLOSED))), winding=draw(st.integers(-2, 2)), queries=3,
        query_seed=draw(st.integers(0, 2**30)),
        # deep limits too: near a cusp or reversal the hodograph box decides intervals down to 2^-52
        max_depth=draw(st.sampled_from([None, None, None, 36, 52])))


@settings(max_examples=examples(6, 2000))
@given(frame_cases())
def test_every_frame_claim_is_verified(case):
    _, _, f = F.build(case)
    if not f.ok:
        assert f.status in _EXPECTED_FAILURES | {GS.UnsupportedPrecision, GS.InvalidTopology}, f.diagnostic
        return
    for claim in frame_claims(case):
        v = check_claim(claim)
        assert v.kind is VerdictKind.Verified, (claim.row, v.kind, v.note, v.witness, case["name"])

