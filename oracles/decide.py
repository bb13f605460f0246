"""Refinement: decide a three-valued check by raising precision up to a stated budget.

A check at one precision answers True (shown to hold), False (shown to fail) or None (the
enclosure is too wide). :func:`refine` retries with each precision of the budget in turn and
reports Undecided with the last enclosure when none decides; it never defaults to Verified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

__all__ = ["DEFAULT_BUDGET", "Decision", "refine"]

# Interval precisions (bits) a Certified or irrational Rounded check may use, in order.
DEFAULT_BUDGET: tuple[int, ...] = (113, 256, 1024)


@dataclass(frozen=True)
class Decision:
    """``holds`` is True, False or None (undecided); ``prec`` the precision that decided (or
    the last tried); ``enclosure`` and ``detail`` what the check computed there."""

    holds: Optional[bool]
    prec: int
    enclosure: Any = None
    detail: Any = None


def refine(check: Callable[[int], Decision], budget: Sequence[int] = DEFAULT_BUDGET) -> Decision:
    """Run ``check(prec)`` for each precision of ``budget`` until it decides."""
    if not budget:
        raise ValueError("an empty precision budget cannot decide anything")
    last = None
    for prec in budget:
        last = check(prec)
        if last.holds is not None:
            return last
    return last
