"""Case families: how the built-in corpus is generated and turned into claims and verdicts.

A family module lives in ``oracles/checks/`` and exposes ``FAMILY``, a :class:`Family`. The
ledger discovers every such module (``oracles.checks.families()``), so adding a family adds no
edit to shared files. One family covers one area of the spec (paths, tracks, triangle
surfaces, ...) and owns the checkers of its rows: one checker per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .model import Claim, Verdict
from .rows import row

__all__ = ["Family"]


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
        oracle_precisions: the interval precisions (bits) its checkers use, for the ledger header.
    """

    name: str
    default_cases: int
    generate: Callable[[int, int], list]
    claims: Callable[[Any], Iterable[Claim]]
    checkers: dict[str, Callable[[Claim], Verdict]]
    oracle_precisions: tuple[int, ...] = field(default=())

    def __post_init__(self):
        for rid in self.checkers:
            row(rid)  # unknown row ids fail at import, not in a ledger run
