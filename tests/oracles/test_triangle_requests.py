"""The triangle family's requests: each step's expected status follows spec 004's sentences (and
our documented decisions), decided by the oracle without the fast path; answers that break the
expectations are Violated on ``triangle.statuses``.

Expected classes below come from the spec's text: the cube crossing's hand arithmetic (t = 5/16,
"Independent hand arithmetic gives t=0.3125"), "Overlapping coplanar/near-parallel candidates
are ambiguous", "One ambiguous candidate rejects the whole query", "for a nonzero finite
segment", "Cancellation polls per facet and returns no partial result", "retained buffer
capacity", never from running the fast path."""

from __future__ import annotations

import pytest

from oracles.contract import judge_answer
from oracles.families import triangle as T
from oracles.families.triangle.requests import NEW
from oracles.ledger import check_claim
from oracles.model import VerdictKind
from oracles.request import Answer, StepAnswer

CASES = 151  # the named cases and every status contract


@pytest.fixture(scope="module")
def reqs():
    return {r.name: r for r in T.requests(1, CASES)}


def judged(req, ans):
    verdicts, unanswered = [], []
    judge_answer(req, ans, check_claim, verdicts.append, lambda row, where: unanswered.append((row, where)))
    return verdicts, unanswered


def statuses(verdicts):
    return [v for v in verdicts if v.claim.row == "triangle.statuses"]


def kinds(req):
    return [(s.op, s.expect.kind, s.expect.statuses) for s in req.steps]


@pytest.mark.parametrize("name,expected", [
    ("cube crossing t=5/16", [(NEW, "success", ()), ("first_hit", "success", ()), ("clip_segment", "success", ())]),
    ("cube miss", [(NEW, "success", ()), ("first_hit", "success", ()), ("clip_segment", "success", ())]),
    ("cube coplanar", [(NEW, "success", ()), ("first_hit", "ambiguous", ()), ("clip_segment", "ambiguous", ())]),
    ("coplanar overlap among 1088 facets (the facet hierarchy)",
     [(NEW, "success", ()), ("first_hit", "ambiguous", ()), ("clip_segment", "ambiguous", ())]),
    ("max_vertices met with equality (8 vertices, max_vertices = 8)",
     [(NEW, "success", ()), ("first_hit", "success", ())]),
    ("max_vertices exceeded by one (8 vertices, max_vertices = 7)", [(NEW, "failure", ("CapacityExceeded",))]),
    ("max_triangles exceeded by one (12 triangles, max_triangles = 11)", [(NEW, "failure", ("CapacityExceeded",))]),
    ("NaN vertex", [(NEW, "failure", ("InvalidArgument",))]),
    ("index outside [0, V)", [(NEW, "failure", ("InvalidArgument",))]),
    ("no triangles", [(NEW, "failure", ("InvalidArgument",))]),
    ("ill-conditioned facet (G = 2^-20 below tol 1e-3)", [(NEW, "failure", ("IllConditioned",))]),
    ("zero-length segment (-0 and +0 are one point)",
     [(NEW, "success", ()), ("first_hit", "failure", ("InvalidArgument",)),
      ("clip_segment", "failure", ("InvalidArgument",))]),
    ("cancelled before the call",
     [(NEW, "success", ()), ("first_hit", "failure", ("Cancelled",)), ("clip_segment", "failure", ("Cancelled",))]),
    ("cancelled before the call, through the hierarchy",
     [(NEW, "success", ()), ("first_hit", "failure", ("Cancelled",))]),
])
def test_expectations_follow_the_spec(reqs, name, expected):
    assert kinds(reqs[name]) == expected


def test_a_zero_area_facet_must_be_rejected(reqs):
    for name in ("collinear facet: zero area", "repeated index: a facet of zero area",
                 "three equal vertices: every edge zero"):
        (step,) = reqs[name].steps
        assert step.expect.kind == "failure" and "Degenerate" in step.expect.statuses


def test_requests_are_decided_without_the_fast_path(monkeypatch):
    # Every entry point of the fast path raises: the expectations must still be decided.
    from reference import triangle_surface as R

    def refuse(*_a, **_k):
        raise AssertionError("the requests ran the fast path")

    monkeypatch.setattr(R.TriangleSurface, "new", staticmethod(refuse))
    monkeypatch.setattr(R.TriangleSurface, "first_hit", refuse)
    monkeypatch.setattr(R.TriangleSurface, "clip_segment", refuse)
    assert len(T.requests(1, CASES)) == CASES


def test_our_answers_meet_every_expectation(reqs):
    for req in reqs.values():
        verdicts, unanswered = judged(req, T.answer(req))
        assert not unanswered, (req.name, unanswered)
        bad = [v for v in verdicts if v.kind is not VerdictKind.Verified]
        assert not bad, (req.name, [v.note for v in bad])


def _published(req, k, outcome="miss"):
    """Our answer to ``req`` with step ``k`` replaced by a published miss (or hit) and no claims."""
    ans = T.answer(req)
    steps = list(ans.steps)
    steps[k] = StepAnswer("Success", (), {"status": "Success", "outcome": outcome})
    return Answer(ans.request, tuple(steps))


@pytest.mark.parametrize("name", ["cube coplanar", "coplanar overlap among 1088 facets (the facet hierarchy)"])
def test_a_hit_or_miss_on_a_query_that_must_be_ambiguous_is_violated(reqs, name):
    req = reqs[name]
    for k, step in enumerate(req.steps):
        if step.expect.kind != "ambiguous":
            continue
        verdicts, _ = judged(req, _published(req, k))
        bad = [v for v in statuses(verdicts) if v.kind is VerdictKind.Violated]
        assert len(bad) == 1 and bad[0].claim.inputs["step"] == k
        assert "must be rejected as Ambiguous" in bad[0].note


def test_leaving_out_a_query_that_must_be_ambiguous_is_violated_and_unanswered(reqs):
    req = reqs["cube coplanar"]
    verdicts, unanswered = judged(req, None)
    bad = [v for v in statuses(verdicts) if v.kind is VerdictKind.Violated]
    assert [v.claim.inputs["step"] for v in bad] == [1, 2]  # the two steps that must be Ambiguous
    assert {row for row, _ in unanswered} >= {"triangle.statuses", "triangle.ambiguity"}
    ans = T.answer(req)
    verdicts, unanswered = judged(req, Answer(ans.request, ans.steps[:1]))  # the queries' outcomes left out
    assert len([v for v in statuses(verdicts) if v.kind is VerdictKind.Violated]) == 2
    assert unanswered


def test_a_success_where_the_query_may_be_ambiguous_either_way_is_verified(reqs):
    # Spec 004: "The policy can conservatively reject queries that stronger predicates resolve": a
    # query the oracle shows only *possibly* ambiguous accepts both a rejection and a published hit.
    req = reqs["cube edge tie"]
    step = req.steps[1]
    assert step.expect.kind == "either" and set(step.expect.statuses) == {"Success", "Ambiguous"}
    ans = T.answer(req)
    for status in ("Success", "Ambiguous"):
        steps = list(ans.steps)
        steps[1] = StepAnswer(status, (), {"status": status})
        verdicts, _ = judged(req, Answer(ans.request, tuple(steps)))
        assert all(v.kind is VerdictKind.Verified for v in statuses(verdicts))


def test_a_valid_surface_refused_at_capacity_equality_is_violated(reqs):
    req = reqs["max_vertices met with equality (8 vertices, max_vertices = 8)"]
    verdicts, _ = judged(req, Answer(req.id, (StepAnswer("CapacityExceeded", (), {"held": False}),)))
    bad = [v for v in statuses(verdicts) if v.kind is VerdictKind.Violated]
    assert len(bad) == 1 and "a valid request refused with CapacityExceeded" in bad[0].note


@pytest.mark.parametrize("step", [2, 3])
def test_a_rejected_admission_that_disturbs_the_held_surface_is_violated(reqs, step):
    req = reqs["rejected admission (a nonfinite vertex) keeps the admitted surface"]
    ans = T.answer(req)
    assert [s.status for s in ans.steps] == ["Success", "Success", "InvalidArgument", "Success"]
    steps = list(ans.steps)
    changed = dict(steps[step].output)
    changed["stamp"] = {"identity": 0, "version": 0}  # another surface, or a query answered from one
    steps[step] = StepAnswer(steps[step].status, steps[step].claims, changed)
    verdicts, _ = judged(req, Answer(ans.request, tuple(steps)))
    bad = [v for v in statuses(verdicts) if v.kind is VerdictKind.Violated]
    assert len(bad) == 1 and bad[0].claim.inputs["rule"]["after"] == step
