"""Helpers the families' request tests share: judging one request's answer, finding a named
request, and our fast path's misses on a list of requests (its answers opted in to the
project's decisions, as the ledger's own are); a request set and our answers as documents, and
``check ANSWERS --requests REQUESTS`` of two (edited) documents."""

from __future__ import annotations

import json

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


def request_and_answer_docs(d, family: str, cases: int) -> tuple[dict, dict]:
    """``requests --family F --cases N`` and our ``answer`` to it, written under ``d`` and read back."""
    from oracles.__main__ import main

    req, ans = d / "requests.json", d / "answers.json"
    assert main(["requests", "--family", family, "--cases", str(cases), "--out", str(req)]) == 0
    assert main(["answer", str(req), "--out", str(ans)]) == 0
    return json.loads(req.read_text()), json.loads(ans.read_text())


def check_docs(tmp_path, requests_doc, answers_doc, *extra) -> tuple[int, dict | None, list]:
    """``check`` of the two documents (written to ``tmp_path``): ``(exit status, ledger.json or
    None, verdict lines)``."""
    from oracles.__main__ import main

    rq, an, out, lines = tmp_path / "rq.json", tmp_path / "an.json", tmp_path / "out", tmp_path / "v.jsonl"
    rq.write_text(json.dumps(requests_doc))
    an.write_text(json.dumps(answers_doc))
    code = main(["check", str(an), "--requests", str(rq), "--out", str(out), "--force", "--verdicts", str(lines),
                 *extra])
    led = json.loads((out / "ledger.json").read_text()) if (out / "ledger.json").exists() else None
    return code, led, [json.loads(x) for x in lines.read_text().splitlines()] if lines.exists() else []
