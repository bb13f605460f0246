"""Judging a claim both ways (``oracles.rules``): by the spec's rules (no opt-in) and with the
project's decisions binding (``"decisions": true``). Shared by the family checker tests."""

from __future__ import annotations

import dataclasses

from oracles.ledger import check_claim
from oracles.model import VerdictKind


def opted(claim):
    """The claim, opted in to the project's decisions."""
    return dataclasses.replace(claim, decisions=True)


def both_ways(claim):
    """``(verdict by the spec's rules, verdict with the decisions binding)``."""
    return check_claim(dataclasses.replace(claim, decisions=False)), check_claim(opted(claim))


def only_the_decision_refutes(claim, rule: str):
    """Assert that the spec's rules accept ``claim`` (Verified, with ``rule`` not met) and that
    ``rule``, a decision of ours, refutes it where it binds; returns the two verdicts."""
    spec, ours = both_ways(claim)
    assert spec.kind is VerdictKind.Verified and rule in spec.unmet, (spec.kind, spec.unmet, spec.note, spec.witness)
    assert ours.kind is VerdictKind.Violated and ours.rule == rule, (ours.kind, ours.rule, ours.note)
    return spec, ours


def the_spec_refutes(claim):
    """Assert that ``claim`` is Violated by a spec or default rule whether or not it opts in."""
    from oracles.rules import source_of

    for v in both_ways(claim):
        assert v.kind is VerdictKind.Violated and source_of(v.rule) in ("spec", "default"), (v.kind, v.rule, v.note)
