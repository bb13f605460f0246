"""Case families: how the built-in corpus is generated and turned into claims and verdicts.

A family module lives in ``oracles/checks/`` and exposes ``FAMILY``, a :class:`Family`. The
ledger discovers every such module (``oracles.checks.families()``), so adding a family adds no
edit to shared files. One family covers one area of the spec (paths, tracks, triangle
surfaces, ...) and owns the checkers of its rows: one checker per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from .model import Claim, Verdict
from .rows import row

__all__ = ["Family", "RowContract"]


@dataclass(frozen=True)
class RowContract:
    """What one row's claims look like in a case file, and how its checker is shown to fail.

    Attributes:
        checks: one sentence for auditors: what the checker verifies and the bound formula.
        inputs: JSON Schema of the claim's ``inputs`` object (built with ``oracles.schema``).
        value: JSON Schema of the claim's ``value``.
        plant: ``plant(true_claim) -> false_claim``: a claim the checker must answer Violated
            (the meta-test in ``tests/oracles/test_every_checker_can_fail.py`` walks every row).
        model: JSON Schema of ``model``; Rounded rows use ``oracles.schema.MODEL`` (a declared
            error model), other rows leave it None (a claim with a model is then malformed).
        refutable: False for a property no oracle can refute; the ledger says so in words and
            counts none of its claims as verified.
    """

    checks: str
    inputs: dict
    value: dict
    plant: Callable[[Claim], Claim]
    model: Optional[dict] = None
    refutable: bool = True


@dataclass(frozen=True)
class Family:
    """A generator of deterministic cases and the checkers of its rows.

    Attributes:
        name: short name (``"path"``).
        default_cases: how many cases the built-in corpus draws by default.
        generate: ``generate(seed, n) -> list`` of cases; deterministic in ``seed``. The first
            cases should be the named corner cases (large origins, ties, ...), then random ones.
        claims: ``claims(case) -> iterable of Claim``: runs the fast path on one case.
        checkers: ``{row_id: check(claim) -> Verdict}``, one per row the family evidences.
        contracts: ``{row_id: RowContract}``: the case-file fields and a planted false claim
            of every row the family checks.
        oracle_precisions: the interval precisions (bits) its checkers use, for the ledger header.
    """

    name: str
    default_cases: int
    generate: Callable[[int, int], list]
    claims: Callable[[Any], Iterable[Claim]]
    checkers: dict[str, Callable[[Claim], Verdict]]
    contracts: dict[str, RowContract] = field(default_factory=dict)
    oracle_precisions: tuple[int, ...] = field(default=())

    def __post_init__(self):
        for rid in self.checkers:
            row(rid)  # unknown row ids fail at import, not in a ledger run
        extra = set(self.contracts) - set(self.checkers)
        if extra:
            raise ValueError(f"family {self.name}: contracts for rows it does not check: {sorted(extra)}")
