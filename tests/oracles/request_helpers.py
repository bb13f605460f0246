"""Helpers the families' request tests share: judging one request's answer, finding a named
request, and our fast path's misses on a list of requests (its answers opted in to the
project's decisions, as the ledger's own are)."""

from __future__ import annotations

from oracles.batch import check_claim
from oracles.contract import judge_answer
from oracles.model import VerdictKind
from oracles.rules import our_answer


def judge_request(req, ans):
    """``(verdicts, unanswered)`` of one request's answer (None: no answer at all)."""
    verdicts, unanswered = [], []
    judge_answer(req, ans, check_claim, verdicts.append, lambda row, where: unanswered.append((row, where)))
    return verdicts, unanswered


def named(reqs, prefix):
    """The first request whose name starts with ``prefix``."""
    return next(r for r in reqs if r.name.startswith(prefix))


def fast_path_misses(answer, reqs) -> list:
    """Every verdict other than Verified, and every unanswered row, of our fast path's answers
    (``answer(req)``, opted in to our decisions) to ``reqs``."""
    bad = []
    for req in reqs:
        verdicts, unanswered = judge_request(req, our_answer(answer(req)))
        bad += [(req.name, v.claim.row, v.kind.value, v.witness)
                for v in verdicts if v.kind is not VerdictKind.Verified]
        bad += [(req.name, "unanswered", u) for u in unanswered]
    return bad
