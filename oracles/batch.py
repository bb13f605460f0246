"""Judging claims: one at a time, or a row's claims as a batch.

:func:`check_claim` judges one claim with its row's checker. :func:`check_claims` judges many:
it groups them by row and hands each row's claims to the row's *batch checker* where the family
has one (``Family.batch_checkers``: arrays of inputs and claimed values, a vectorised float64
filter in front of the exact stage, ``interval.filters``), and to the single checker otherwise.
Either way each claim gets exactly the verdict :func:`check_claim` would give it, in the
claims' own order: a batch checker is the same check, faster, never a second opinion
(``tests/oracles/test_batch.py`` holds every row's batch to its single checker).

The filters can be switched off (:func:`filters`, ``ledger``/``check --no-filters``): every
claim then goes to the exact (or interval) stage. Verdicts must be byte-identical either way.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable

from .errormodel import VacuousModel, vacuous_verdict
from .families import batch_checker_for, checker_for, contract_for
from .model import Claim, NumberError, Verdict, VerdictKind, checker_error, undecided, violated
from .rows import row

__all__ = [
    "MALFORMED_ERRORS",
    "Pending",
    "check_claim",
    "check_claims",
    "filter_stats",
    "filters",
    "filters_on",
    "judge",
    "judge_claims",
    "record_filter",
    "resolve_pending",
    "set_filters",
]

# Exceptions by which a checker says a claim's inputs or value cannot be read (a claim that
# passed the schema but names, say, a span the path does not have). In a case file they make the
# claim malformed (the producer's fault); every other exception is the checker's own fault.
MALFORMED_ERRORS = (NumberError, ValueError, KeyError, TypeError, IndexError)

# ``ORACLE_FILTERS=0`` in the environment (or ``--no-filters``) starts with the filters off.
_FILTERS = [os.environ.get("ORACLE_FILTERS", "1") != "0"]


# Per row: [claims the filter decided, claims its batch checker judged] (benchmarks read it).
_FILTER_STATS: dict = {}


def record_filter(row_id: str, decided: int, judged: int) -> None:
    """A batch checker's count of claims its filter decided without the exact stage."""
    st = _FILTER_STATS.setdefault(row_id, [0, 0])
    st[0] += decided
    st[1] += judged


def filter_stats(reset: bool = False) -> dict:
    """``{row: (decided by the filter, judged)}`` since the last reset."""
    out = {k: tuple(v) for k, v in _FILTER_STATS.items()}
    if reset:
        _FILTER_STATS.clear()
    return out


def set_filters(on: bool) -> None:
    """Switch the filters on or off for the rest of the process (``--no-filters``)."""
    _FILTERS[0] = bool(on)


def filters_on() -> bool:
    """True when batch checkers may decide claims in their float64 filter stage."""
    return _FILTERS[-1]


@contextlib.contextmanager
def filters(on: bool):
    """``with filters(False):`` sends every claim to the exact stage (the switch that shows the
    filters change no verdict)."""
    _FILTERS.append(bool(on))
    try:
        yield
    finally:
        _FILTERS.pop()


def _precheck(claim: Claim) -> Verdict | None:
    """The verdicts that need no checker: a relabelled guarantee, a row without a checker."""
    spec = row(claim.row)
    if claim.guarantee is not spec.guarantee:
        return violated(claim, {"claimed_guarantee": claim.guarantee.value,
                                "row_guarantee": spec.guarantee.value},
                        note="guarantee class differs from the spec's row", rule="claim:guarantee_class")
    if checker_for(claim.row) is None:
        return undecided(claim, None, note=f"no checker for row {claim.row} yet")
    return None


def _postcheck(claim: Claim, v: Verdict) -> Verdict:
    c = contract_for(claim.row)
    if c is not None and not c.refutable and v.kind is VerdictKind.Verified:
        return undecided(claim, None, measure=v.measure, measured=v.measured,
                         note="the oracle cannot refute this property; not counted as verified")
    return v


def check_claim(claim: Claim) -> Verdict:
    """Judge one claim with its row's checker.

    A claim whose guarantee class differs from its row's is Violated (an implementation may not
    relabel a guarantee); a row without a checker is Undecided, loudly, never Verified; a row
    whose property cannot be refuted turns every Verified into Undecided. A checker that raises
    one of :data:`MALFORMED_ERRORS` says the claim is malformed: that propagates to the caller.
    Any other exception (an overflow, an assertion, a bug) becomes a ``CheckerError`` verdict
    with the exception and its innermost frames: the claim is not judged, and the run goes on.
    """
    pre = _precheck(claim)
    if pre is not None:
        return pre
    try:
        v = checker_for(claim.row)(claim)
    except Exception as e:
        r = _outcome(claim, e)
        if isinstance(r, BaseException):
            raise
        return r
    return _postcheck(claim, v)


def _outcome(claim: Claim, e: BaseException) -> Result:
    """What a checker's exception means for its claim, the one place this is decided: one of
    :data:`MALFORMED_ERRORS` is returned as it is (the claim is malformed); a
    :class:`~oracles.errormodel.VacuousModel` (no finite bound in the row's error model) is an
    Undecided verdict saying so; anything else is a ``CheckerError``."""
    if isinstance(e, MALFORMED_ERRORS):
        return e
    if isinstance(e, VacuousModel):
        return vacuous_verdict(claim, e)
    return checker_error(claim, e)


def judge(claim: Claim) -> Verdict:
    """:func:`check_claim` for claims the project's own fast path made (the built-in corpus):
    those are never malformed, so a checker that calls one malformed is a checker or producer
    bug, recorded as ``CheckerError`` like any other exception."""
    try:
        return check_claim(claim)
    except MALFORMED_ERRORS as e:
        return checker_error(claim, e, note="the checker found the fast path's own claim malformed")


Result = Verdict | BaseException


def check_claims(claims: list) -> list:
    """Each claim's verdict, as :func:`check_claim` gives it, in order; a claim a checker found
    malformed gets the exception instead (one of :data:`MALFORMED_ERRORS`). Rows with a batch
    checker are judged a row at a time."""
    out: list = [None] * len(claims)
    by_row: dict = {}
    for i, c in enumerate(claims):
        pre = _precheck(c)
        if pre is not None:
            out[i] = pre
        else:
            by_row.setdefault(c.row, []).append(i)
    for rid, idx in by_row.items():
        batch = batch_checker_for(rid)
        if batch is None:
            fn = checker_for(rid)
            for i in idx:
                out[i] = _single(fn, claims[i])
            continue
        try:
            results = batch([claims[i] for i in idx])
            if len(results) != len(idx):
                raise RuntimeError(f"batch checker of {rid} returned {len(results)} verdicts for {len(idx)} claims")
        except Exception as e:
            results = [checker_error(claims[i], e, note="the row's batch checker raised") for i in idx]
        for i, r in zip(idx, results):
            if isinstance(r, BaseException):
                r = _outcome(claims[i], r)
            out[i] = r if isinstance(r, BaseException) else _postcheck(claims[i], r)
    return out


def _single(fn, claim) -> Result:
    try:
        return _postcheck(claim, fn(claim))
    except Exception as e:
        return _outcome(claim, e)


def judge_claims(claims: list) -> list[Verdict]:
    """:func:`check_claims` for our own fast path's claims (malformed is a CheckerError)."""
    return [r if isinstance(r, Verdict) else
            checker_error(c, r, note="the checker found the fast path's own claim malformed")
            for c, r in zip(claims, check_claims(claims))]


class Pending:
    """A claim whose verdict is decided later, in a batch (:func:`resolve_pending`)."""

    __slots__ = ("claim", "verdict")

    def __init__(self, claim: Claim):
        self.claim = claim
        self.verdict: Verdict | None = None


def resolve_pending(items: Iterable, own: bool = True) -> None:
    """Decide every :class:`Pending` among ``items`` in one :func:`check_claims` call."""
    pend = [p for p in items if isinstance(p, Pending)]
    if not pend:
        return
    results = (judge_claims if own else check_claims)([p.claim for p in pend])
    for p, v in zip(pend, results):
        p.verdict = v


def deferred(claim: Claim) -> Pending:
    """A judge that decides nothing yet (``oracles.contract.judge_answer(..., judge=deferred)``)."""
    return Pending(claim)


CheckFn = Callable[[list], list]
