"""Every checker can fail: for every row with a checker, its contract plants a false claim that
the checker answers Violated, and an honest claim of the family's corpus that it answers
Verified. Both claims are well formed by the row's case-file schema, so the Violated verdict
is about the property, not about a malformed field. A row whose contract says its property is
unrefutable is exempt from the Violated half and must not count claims as verified."""

from __future__ import annotations

import pytest

from oracles.families import families
from oracles.ledger import check_claim
from oracles import rules
from oracles.model import VerdictKind
from oracles.schema import _claim_schema
from oracles.schema_validate import Validator

ROWS = [(fam, rid) for fam in families() for rid in sorted(fam.checkers)]
MAX_CASES = 60  # corpus cases scanned per family for an honest claim of each row


def _honest_claims(fam):
    """The first claim of each row that its checker answers Verified (scanning the corpus)."""
    found, wanted = {}, set(fam.checkers)
    for case in fam.generate(7, MAX_CASES):
        for claim in fam.claims(case):
            if claim.row in wanted and claim.row not in found and check_claim(claim).kind is VerdictKind.Verified:
                found[claim.row] = claim
        if len(found) == len(wanted):
            break
    return found


_CACHE: dict = {}


def honest(fam):
    if fam.name not in _CACHE:
        _CACHE[fam.name] = _honest_claims(fam)
    return _CACHE[fam.name]


@pytest.mark.parametrize("fam, rid", ROWS, ids=[rid for _, rid in ROWS])
def test_every_row_with_a_checker_has_a_contract(fam, rid):
    c = fam.contracts.get(rid)
    assert c is not None, f"{rid}: no RowContract (schema and planted false claim)"
    assert c.checks and len(c.checks.split()) >= 5, f"{rid}: the checks sentence says nothing"


@pytest.mark.parametrize("fam, rid", ROWS, ids=[rid for _, rid in ROWS])
def test_a_planted_false_claim_is_violated_and_an_honest_one_verified(fam, rid):
    contract = fam.contracts.get(rid)
    if contract is None:
        pytest.fail(f"{rid}: no contract")
    claim = honest(fam).get(rid)
    assert claim is not None, f"{rid}: no honest claim Verified in {MAX_CASES} corpus cases"
    validator = Validator(_claim_schema(rid, contract))
    assert not list(validator.iter_errors(claim.to_json())), f"{rid}: the honest claim is not schema-valid"
    planted = contract.plant(claim)
    assert planted.to_json() != claim.to_json(), f"{rid}: plant changed nothing"
    errs = [e.message for e in validator.iter_errors(planted.to_json())]
    assert not errs, f"{rid}: the planted claim is malformed, not false: {errs}"
    v = check_claim(planted)
    if contract.refutable:
        assert v.kind is VerdictKind.Violated, (rid, v.kind, v.note)
        assert v.witness is not None, f"{rid}: Violated without a witness"
        # refuted by the spec's rules (or a documented default), never by a decision of ours alone:
        # the planted claim does not opt in to the decisions (oracles.rules)
        assert not planted.decisions and rules.source_of(v.rule) in ("spec", "default"), (rid, v.rule)
        assert v.rule in {r.id for r in rules.rules_of(rid)}, (rid, v.rule)
    else:
        assert v.kind is not VerdictKind.Verified


def _number_leaves(value, path=()):
    """Paths to the finite numbers of a claimed value (texts or floats that read as numbers)."""
    from oracles.model import is_finite_number

    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _number_leaves(v, path + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _number_leaves(v, path + (i,))]
    if isinstance(value, (str, float)) and is_finite_number(value):
        return [path]
    return []


def _set(value, path, x):
    import copy

    out = copy.deepcopy(value)
    if not path:
        return x
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = x
    return out


@pytest.mark.parametrize("fam, rid", ROWS, ids=[rid for _, rid in ROWS])
def test_a_nonfinite_number_in_a_claimed_value_is_never_verified(fam, rid):
    """NaN or an infinity put in place of any claimed number (a sample of each honest claim's
    numbers: first, last and four drawn) is Violated or malformed, never Verified: a checker
    that folds claimed values with ``max`` would drop a NaN and verify a claim it never checked
    (sweep.error_estimates and frame.angular_error_estimate did, found by an audit on 2026-12-06)."""
    import dataclasses
    import random

    from oracles.batch import MALFORMED_ERRORS

    claim = honest(fam).get(rid)
    if claim is None:
        pytest.skip(f"no honest {rid} claim in the first {MAX_CASES} cases")
    leaves = _number_leaves(claim.value)
    if not leaves:
        pytest.skip(f"{rid} claims no number")
    picks = {0, len(leaves) - 1} | set(random.Random(rid).sample(range(len(leaves)), min(4, len(leaves))))
    for i in sorted(picks):
        for bad in ("nan", "inf", "-inf"):
            planted = dataclasses.replace(claim, value=_set(claim.value, leaves[i], bad))
            try:
                v = check_claim(planted)
            except MALFORMED_ERRORS:
                continue
            assert v.kind is not VerdictKind.Verified, (rid, leaves[i], bad, v.note)
