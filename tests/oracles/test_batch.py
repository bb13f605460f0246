"""Claims judged a row at a time (``oracles.batch``): the same verdicts, in the same order, as one
by one; with the filters on and off; and every row's batch checker held to its single checker on
the corpus."""

from __future__ import annotations

import json

import pytest

import oracles.families as F
from oracles.batch import MALFORMED_ERRORS, check_claim, check_claims, filters, filters_on
from oracles.families import families
from oracles.model import Claim, VerdictKind


def _verdict_json(v):
    return json.dumps(v.to_json(), sort_keys=True)


def _claims(names, cases=6):
    out = []
    for f in families():
        if f.name in names:
            for case in f.generate(3, cases):
                out.extend(f.claims(case))
    return out


def test_check_claims_gives_each_claim_its_single_verdict_in_order():
    claims = _claims({"track", "convex_polygon"})
    # interleave rows, add a relabelled guarantee and a malformed claim
    claims = claims[::2] + claims[1::2]
    bad = Claim(claims[0].row, claims[0].guarantee, claims[0].value, {**claims[0].inputs, "keys": "nope"})
    relabelled = Claim(claims[1].row, claims[1].guarantee.__class__("Certified"), claims[1].value, claims[1].inputs)
    claims = claims + [bad, relabelled]
    got = check_claims(claims)
    assert len(got) == len(claims)
    for c, r in zip(claims, got):
        try:
            want = check_claim(c)
        except MALFORMED_ERRORS as e:
            assert isinstance(r, type(e))
            continue
        assert _verdict_json(r) == _verdict_json(want)
    assert got[-1].kind is VerdictKind.Violated and "guarantee" in got[-1].note


def test_a_batch_checker_that_raises_is_a_fault_of_every_claim_in_its_batch(monkeypatch):
    claims = _claims({"track"}, 3)
    rid = "track.values"

    def broken(batch):
        raise RuntimeError("bug in the batch")

    monkeypatch.setattr(F, "batch_checker_for", lambda r: broken if r == rid else None)
    import oracles.batch as B

    monkeypatch.setattr(B, "batch_checker_for", lambda r: broken if r == rid else None)
    got = check_claims(claims)
    for c, v in zip(claims, got):
        if c.row == rid:
            assert v.kind is VerdictKind.CheckerError and "bug in the batch" in v.witness["error"]
        else:
            assert v.kind is VerdictKind.Verified


def test_a_batch_checker_is_used_and_its_length_is_checked(monkeypatch):
    import oracles.batch as B

    claims = _claims({"track"}, 2)
    rid = "track.key_values"
    seen = []

    def short(batch):
        seen.append(len(batch))
        return [check_claim(c) for c in batch][:-1]

    monkeypatch.setattr(B, "batch_checker_for", lambda r: short if r == rid else None)
    got = check_claims(claims)
    assert seen == [sum(c.row == rid for c in claims)]
    assert all(v.kind is VerdictKind.CheckerError for c, v in zip(claims, got) if c.row == rid)


def test_the_filter_switch_nests():
    assert filters_on()
    with filters(False):
        assert not filters_on()
        with filters(True):
            assert filters_on()
        assert not filters_on()
    assert filters_on()


BATCHED = [(f, rid) for f in families() for rid in sorted(f.batch_checkers)]


@pytest.mark.parametrize("fam, rid", BATCHED, ids=[r for _, r in BATCHED])
def test_every_batch_checker_matches_its_single_checker_with_filters_on_and_off(fam, rid):
    claims = [c for case in fam.generate(1, fam.default_cases) for c in fam.claims(case) if c.row == rid][:3000]
    assert claims, f"{rid}: no corpus claims"
    single = []
    for c in claims:
        try:
            single.append(_verdict_json(check_claim(c)))
        except MALFORMED_ERRORS as e:
            single.append(type(e).__name__)
    for on in (True, False):
        with filters(on):
            got = [_verdict_json(v) if not isinstance(v, BaseException) else type(v).__name__
                   for v in check_claims(claims)]
        assert got == single, f"{rid}: batch (filters {'on' if on else 'off'}) differs from the single checker"


def test_the_ledger_is_byte_identical_with_the_filters_on_and_off():
    from oracles.ledger import run_corpus

    texts = []
    for on in (True, False):
        with filters(on):
            led = run_corpus(2, 40, ["path", "track"], progress=False)
        texts.append(json.dumps(led.to_json(timings=False), sort_keys=True))
    assert texts[0] == texts[1]


def _plain_position_claims():
    """Claims with controls and u (another producer's form, as a case file holds them): float64
    evaluations, a few ulps off, planted false ones, declared models at the edge, and inputs the
    filter must leave to the exact stage (u tiny, exponents far apart, a decimal, a bad value)."""
    import numpy as np

    from oracles.model import enc
    from reference.status import GuaranteeClass

    rng = np.random.default_rng(12)
    out = []
    for k in range(400):
        P = (rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-3, 3)).astype(np.float32).astype(np.float64)
        if k % 40 == 1:
            P[2, 1] *= 2.0**-28  # coefficients that round in float64
        u = float(rng.random()) if k % 50 else 2.0**-700
        s = 1 - u
        B = s**3 * P[0] + 3 * u * s * s * P[1] + 3 * u * u * s * P[2] + u**3 * P[3]
        B = B + np.spacing(B) * rng.integers(-2, 3, size=3)
        if k % 37 == 0:
            B[0] += 1e-6 * (1 + abs(B[0]))  # a false claim
        model = None
        if k % 9 == 0:
            model = {"bound": enc(float(np.max(np.abs(P))) * 2.0**-50)}  # near the edge
        elif k % 13 == 0:
            model = {"u": enc(2.0**-24)}
        inputs = {"controls": enc(P), "u": enc(u)}
        value = enc(B)
        if k == 77:
            value = ["0.5", value[1], value[2]]  # a decimal: read by the exact stage
        if k == 78:
            value = value[:2]  # malformed
        out.append(Claim("path.interior_positions", GuaranteeClass.Rounded, value, inputs, model))
        D = 3 * (s * s * (P[1] - P[0]) + 2 * u * s * (P[2] - P[1]) + u * u * (P[3] - P[2]))
        S2 = 6 * (s * (P[2] - 2 * P[1] + P[0]) + u * (P[3] - 2 * P[2] + P[1]))
        out.append(Claim("path.derivatives", GuaranteeClass.Rounded, {"first": enc(D), "second": enc(S2)}, inputs,
                         {"bound": [enc(float(np.max(np.abs(P))) * 2.0**-49)] * 2} if k % 11 == 0 else None))
    return out


def test_filtered_rows_give_the_single_verdict_on_another_producers_claims():
    claims = _plain_position_claims()
    from oracles.batch import filter_stats

    filter_stats(reset=True)
    got = check_claims(claims)
    decided = filter_stats(reset=True)
    for c, r in zip(claims, got):
        try:
            want = _verdict_json(check_claim(c))
        except MALFORMED_ERRORS as e:
            want = type(e).__name__
        assert (type(r).__name__ if isinstance(r, BaseException) else _verdict_json(r)) == want
    kinds = {v.kind for v in got if not isinstance(v, BaseException)}
    assert VerdictKind.Violated in kinds and VerdictKind.Verified in kinds
    # most are decided by the filter, not all (the edges go to the exact stage)
    for rid in ("path.interior_positions", "path.derivatives"):
        d, n = decided[rid]
        assert 0.5 * n < d < n, (rid, d, n)
