"""Differential tests: the path fast path against the oracle on hypothesis-generated sources.

Sources are float64 world coordinates up to 1e7 with a chunk origin nearby and spans down to
1e-3, with tolerances on both sides of the precision floor. Every claim the fast path makes
(Exact rows: bit-for-bit against the rational replay; Rounded rows: within their error
models) must be Verified: no Violated and no Undecided verdict.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given, settings, strategies as st, target

from oracles.families import path as P
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from reference.fp import narrow32, ulp32
from tests.profiles import examples
from tests.strategies import float64_sources_near_origin, narrowing_ties


def _verdicts(case):
    out = []
    worst = {}
    for claim in P.claims(case):
        v = check_claim(claim)
        out.append(v)
        assert v.kind is VerdictKind.Verified, (claim.row, v.kind, v.note, v.witness, claim.inputs)
        if v.bound_use is not None and math.isfinite(v.bound_use):
            worst[claim.row] = max(worst.get(claim.row, 0.0), v.bound_use)
    # Steer the search towards inputs whose errors come closest to their models.
    for row, use in worst.items():
        target(use, label=row)
    return out


def _case(src, origin, factor, closed=False):
    e = float(np.max(np.abs(narrow32(src - origin))))
    pe = max(2.0 * float(ulp32(e)) * factor, 1e-30)
    return {"kind": "path", "name": "hypothesis", "source": src, "widths": np.ones(len(src)),
            "origin": np.asarray(origin, dtype=np.float64), "closed": closed,
            "tol": {"position_error": pe, "continuity_position": 1e-3}, "us": None}


@settings(max_examples=examples(40, 2000))
@given(float64_sources_near_origin(max_coord=1e7, min_span=1e-3),
       st.sampled_from([0.5, 1.0, 1.0 + 2.0**-20, 2.0, 64.0]))
def test_every_path_claim_is_verified(src_origin, factor):
    src, origin = src_origin
    verdicts = _verdicts(_case(src, origin, factor))
    assert any(v.claim.row == "path.position_floor" for v in verdicts)


@settings(max_examples=examples(20, 500))
@given(float64_sources_near_origin(max_coord=1e7, min_span=1e-3, spans=(2, 4), radius=10.0))
def test_closed_paths(src_origin):
    src, origin = src_origin
    src = src.copy()
    src[-1, 3] = src[0, 0]  # close the loop exactly
    _verdicts(_case(src, origin, 4.0, closed=True))


@settings(max_examples=examples(30, 1000))
@given(narrowing_ties(max_magnitude=1e6, max_origin=1e7), st.integers(0, 11))
@example((1.0 + 2.0**-24, 0.0), 3)
def test_rounding_ties_narrow_to_even(tie, slot):
    source, origin = tie
    src = np.full((1, 4, 3), origin) + np.arange(12, dtype=np.float64).reshape(1, 4, 3)
    src.reshape(-1)[slot] = source
    verdicts = _verdicts(_case(src, np.full(3, origin), 8.0))
    assert {v.claim.row for v in verdicts} >= {"path.stored_endpoints", "path.control_boxes"} or \
        any(v.claim.value.get("accepted") is False for v in verdicts if v.claim.row == "path.position_floor")
