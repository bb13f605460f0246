"""Differential tests: the track fast path against the exact oracle on hypothesis tracks.

Keys have float32 values and slopes (signed zeros, subnormals and large magnitudes mixed in),
times from large offsets down to microsecond spans; queries inside and far outside the domain
under every track policy and both sides. Every claim (key values Exact, values and
derivatives Rounded) must be Verified.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given, settings, strategies as st, target

from oracles.families import track as T
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from reference.status import BoundaryPolicy as P, SpanSide
from reference.track import TrackInterpolation as TI, TrackKey
from tests.profiles import examples
from tests.strategies import float32_values
import itertools

_POLICIES = [P.Reject, P.Clamp, P.Hold, P.Loop, P.PingPong]


@st.composite
def tracks(draw):
    n = draw(st.integers(2, 6))
    start = draw(st.one_of(st.sampled_from([0.0, -1e3, 1e6 + 0.5, 1e9]), st.floats(-1e7, 1e7)))
    widths = draw(st.lists(st.one_of(st.sampled_from([1.0, 1e-3, 1e-6, 0.5]), st.floats(1e-6, 1e3)),
                           min_size=n - 1, max_size=n - 1))
    times = [start]
    for w in widths:
        times.append(times[-1] + w)
    if not all(b > a for a, b in itertools.pairwise(times)):
        times = [float(i) for i in range(n)]
    vals = st.one_of(float32_values(-1e6, 1e6), float32_values(-3e38, 3e38))
    keys = []
    for t in times:
        keys.append(TrackKey(t, draw(vals), draw(float32_values(-1e6, 1e6)), draw(float32_values(-1e6, 1e6)),
                             draw(st.sampled_from([TI.Step, TI.Linear, TI.Hermite]))))
    return keys


@st.composite
def queries(draw, keys):
    t0, t1 = keys[0].time, keys[-1].time
    L = t1 - t0
    qs = []
    for _ in range(draw(st.integers(1, 6))):
        f = draw(st.one_of(st.sampled_from([0.0, 1.0, 0.5, -1.0, 2.0, 1.5, -0.5, 1e6, -1e9]),
                           st.floats(-10, 10)))
        t = t0 + f * L if np.isfinite(t0 + f * L) else t0
        if draw(st.booleans()):
            t = keys[draw(st.integers(0, len(keys) - 1))].time
        qs.append((float(t), draw(st.sampled_from(_POLICIES)), draw(st.sampled_from(list(SpanSide)))))
    return qs


@settings(max_examples=examples(60, 2000))
@given(st.data())
@example(None)
def test_every_track_claim_is_verified(data):
    if data is None:  # the spec's example
        case = T.generate(1, 1)[0]
    else:
        keys = data.draw(tracks())
        case = {"name": "hypothesis", "keys": keys, "queries": data.draw(queries(keys))}
    worst = 0.0
    for claim in T.claims(case):
        v = check_claim(claim)
        assert v.kind is VerdictKind.Verified, (claim.row, v.note, v.witness, claim.inputs, claim.value)
        if v.bound_use is not None and math.isfinite(v.bound_use):
            worst = max(worst, v.bound_use)
    if data is not None:
        target(worst, label="track.values error / model")  # towards errors closest to the model
