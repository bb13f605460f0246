"""Differential tests: distance maps against the arc-length oracle on hypothesis paths.

Paths are float64 chains of 1 to 3 connected spans in world coordinates up to 1e4 with a
chunk origin nearby (``tests.strategies.float64_sources_near_origin``), some closed, some with
a zero-speed ease endpoint or a stationary span; ``distance_error`` is 1e-5 to 1e-2 of the
path's length. Targets: the corpus' own (stored boundary estimates, both ends, random, outside
with Clamp) plus hypothesis fractions of TotalEstimate and, on closed paths, Wrap targets.
Every claim (length, prefix and residual bounds Certified; estimates inside their intervals)
must be Verified. Hypothesis steers towards each row's largest bound use (``target``): how
close the truth came to the claimed bound.
"""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st, target

from oracles.families import distance as D
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from tests.profiles import examples
from tests.strategies import float64_sources_near_origin


@st.composite
def distance_cases(draw):
    src, origin = draw(float64_sources_near_origin(max_coord=1e4, min_span=1e-3, spans=(1, 3), radius=10.0))
    src = src.copy()
    shape = draw(st.sampled_from(["plain", "plain", "ease", "stationary", "closed"]))
    if shape == "ease":
        src[0, 1] = src[0, 0]  # zero speed at the start
    elif shape == "stationary" and src.shape[0] >= 2:
        src[-1] = src[-1, 0]  # the last span collapses onto its start
    closed = shape == "closed" and src.shape[0] >= 2
    if closed:
        src[-1, 3] = src[0, 0]
    rel = draw(st.sampled_from([1e-5, 1e-4, 1e-3, 1e-2]))
    case = D.make_case("hypothesis", src, rel, closed=closed, origin=tuple(origin))
    fracs = draw(st.lists(st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e-9, 1 - 1e-12]), st.floats(0, 1)),
                          max_size=3))
    case["extra_targets"] = [("fraction", f) for f in fracs] + [("boundary", draw(st.integers(0, 64)))]
    if closed:
        case["extra_targets"] += [("wrap", draw(st.floats(-3, 4)))]
    return case


@settings(max_examples=examples(10, 2000))
@given(distance_cases())
@example(None)
def test_every_distance_claim_is_verified(case):
    if case is None:
        case = D.generate(1, 1)[0]  # the zero-speed ease endpoint case
    rows, use = set(), {}
    for claim in D.claims(case):
        v = check_claim(claim)
        rows.add(claim.row)
        if v.bound_use is not None and v.bound_use == v.bound_use and v.bound_use != float("inf"):
            use[claim.row] = max(use.get(claim.row, 0.0), v.bound_use)
        assert v.kind is VerdictKind.Verified, (claim.row, v.kind, v.note, v.witness, claim.inputs)
    assert not rows or rows >= {"distance.length_bounds", "distance.prefix_bounds", "distance.estimates"}
    for row, x in sorted(use.items()):
        target(x, label=row)
