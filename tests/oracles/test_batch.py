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
