"""Status demands that rest on a decision of ours (issue 25 item 3, docs/decisions.md "Verdicts by
the spec's text"): where the spec demands a failure and names no status, or does not demand the
failure at all, a request's expectation names the decision (``expect.decision``) and what the
spec's text alone demands (``expect.by_spec``). An answer that opts in is held to the decision;
any other to the spec's text, with the decision reported ``unmet``.

``ALLOWED`` lists, per family, the expectations whose ``why`` cites docs/decisions.md and that
are not decided, each with the reason it binds every answer: the spec names the status, or the
cited section only sets a value the spec requires to exist (a default: WorkLimits and
ToleranceProfile ranges, a limit's value, a band)."""

from __future__ import annotations

import pytest

from oracles.contract import check_status, status_claim
from oracles.families import families
from oracles.model import VerdictKind
from oracles.request import FAILURE_STATUSES
from oracles.rules import rule, rules_of, source_of

CASES = 200  # requests per family scanned: the named status requests come early
FAMILIES = {f.name: f for f in families() if f.answers_requests}
AUDITED = ("path", "track", "distance", "frame", "projection", "surface", "tessellation", "sweep", "convex_polygon",
           "point_search", "triangle")

_LIMITS = "a default: the WorkLimits ranges and a zero limit allowing no work ('WorkLimits fields and ranges')"
_TOLERANCE = "a default: spec 002 'Every tolerance field is validated against its ADR 0024 range'"
_BUDGET = "the spec's status for an exhausted limit ('Exhausting a limit returns BudgetExceeded'); the limit a default"
_MAPS = "spec 002 Distance maps: 'Queries through an unbuilt map return MissingCache' / 'another revision ... " \
        "StaleRevision'"

ALLOWED = {
    "path": [
        ("'WorkLimits fields and ranges'", _LIMITS),
        ("'ADR 0024 ranges of ToleranceProfile'", _TOLERANCE),
        ("'a zero work limit allows no work'", _BUDGET),
        ("chunk-relative controls beyond the float32 range", "spec 002 Precision: an infinite narrowed control's "
                                                             "floor is infinite, so 'Otherwise preparation returns "
                                                             "UnsupportedPrecision'"),
        ("rejects consecutive waypoints within coincidenceDistance", "spec 002 Paths names InvalidDomain"),
        ("the true |dP/du| lies within the computed speed's rounding", "spec 002 Paths: Success or Degenerate, "
                                                                      "the rounding band a default"),
    ],
    "track": [
        ("WorkLimits ranges (docs/decisions.md)", _BUDGET),
        ("(docs/decisions.md WorkLimits)", _LIMITS),
        ("(docs/decisions.md KEY_BYTES)", _BUDGET + " (the bytes a key takes: a default)"),
    ],
    "distance": [
        ("'WorkLimits fields and ranges'", _LIMITS),
        ("the rule's run is not decided", "spec 002 Distance maps: Success or 'Exhausting a limit returns "
                                          "BudgetExceeded', by the replayed rule"),
        ("every run of the rule exhausts a limit", "spec 002 Distance maps: 'Exhausting a limit returns "
                                                   "BudgetExceeded'"),
        ("the map the owner holds depends on an earlier step", _MAPS + " (or the spec's success)"),
        ("the map was built for revision", _MAPS),
        ("distances accept Reject, Clamp and, on closed paths, Wrap", "spec 002 Boundary policies: 'Every other "
                                                                      "combination is InvalidArgument'"),
    ],
    "frame": [
        ("'WorkLimits fields and ranges'", _LIMITS),
        ("the policy table of spec 002 'Transported frames'", "spec 002's policy table names DegenerateFrame"),
        ("'a zero work limit allows no work'", _BUDGET),
        ("the spec's partition rule replayed", "spec 002 Transported frames: the policy table's DegenerateFrame or "
                                               "an exhausted limit's BudgetExceeded"),
        ("the distance map was never built", _MAPS),
        ("the distance map was built for another revision", _MAPS),
    ],
    "projection": [
        ("the spec fixes the search but not how tight", "spec 002 Projection: 'Strict projection leaves its result "
                                                        "unchanged on BudgetExceeded or UnsupportedPrecision'"),
    ],
    "surface": [
        ("exact decision", "spec 002 Surfaces: 'It returns Degenerate for zero or parallel partials and "
                           "IllConditioned at or below the thresholds'; the band a default"),
        ("'a zero work limit allows no work'", _BUDGET),
        ("'WorkLimits fields and ranges'", _LIMITS),
        ("'ADR 0024 ranges of ToleranceProfile'", _TOLERANCE),
        ("chunk-relative controls beyond the float32 range", "spec 002 Precision (TryPrepareSurface 'narrows "
                                                             "controls as TryPreparePath does'): an infinite "
                                                             "narrowed control's floor is infinite, so 'Otherwise "
                                                             "preparation returns UnsupportedPrecision'"),
    ],
    "tessellation": [
        ("a Visual normal angle refines", "spec 002 Surface meshes: 'MaxCellTests ... always fail with "
                                          "BudgetExceeded'"),
        ("always fail with BudgetExceeded", "spec 002 Surface meshes names BudgetExceeded"),
        ("limits.max_", "a default: the SurfaceMeshLimits ranges ('Counts are checked before allocation')"),
    ],
    "sweep": [
        ("the rings need", _BUDGET),
        ("'WorkLimits fields and ranges'", _LIMITS),
        ("_error outside [1e-12, 1e12]", "a default: 'Planning ... validates every count, limit and numeric range'"),
        ("max_section_segments outside", "a default: 'Planning ... validates every count, limit and numeric range'"),
        ("max_vertex_count outside", "a default: 'Planning ... validates every count, limit and numeric range'"),
        ("max_index_count outside", "a default: 'Planning ... validates every count, limit and numeric range'"),
        ("the distance map was never built", _MAPS),
        ("the distance map belongs to another revision", _MAPS),
    ],
    "convex_polygon": [],
    "point_search": [],
    "triangle": [
        ("max_vertices outside [1, 2^24]", "a default: the capacity settings' range (spec 004 'retained buffer "
                                           "capacity')"),
        ("max_triangles outside [1, 2^24]", "a default: the capacity settings' range (spec 004 'retained buffer "
                                            "capacity')"),
        ("'Cancellation polls per facet and returns no partial result'", "spec 004 names Cancelled"),
        ("no candidate facet can put a computed boundary quantity", "spec 004: a hit or miss, or Cancelled"),
    ],
}


def _requests(name):
    if name not in FAMILIES:
        pytest.skip(f"{name}: not in request form")
    return FAMILIES[name].requests(1, CASES)


def _steps(name):
    for r in _requests(name):
        for k, s in enumerate(r.steps):
            yield r, k, s


@pytest.mark.parametrize("name", AUDITED)
def test_every_status_cited_as_a_decision_is_decided_or_allowed_with_its_reason(name):
    allowed = ALLOWED[name]
    loose = []
    for r, k, s in _steps(name):
        e = s.expect
        if e.kind not in ("failure", "either") or e.decision or "decisions.md" not in e.why:
            continue
        if not any(pat in e.why for pat, _ in allowed):
            loose.append(f"{r.id} step {k} ({s.op}, {e.text()}): {e.why[:160]}")
    assert not loose, "undecided statuses citing docs/decisions.md:\n" + "\n".join(loose[:10])


@pytest.mark.parametrize("name", AUDITED)
def test_each_decided_demand_names_a_decision_of_its_family_statuses_row(name):
    decided = {s.expect.decision for _, _, s in _steps(name) if s.expect.decision}
    assert decided, f"{name}: no decided status demand"
    row = {r.id for r in rules_of(f"{name}.statuses")}
    for d in decided:
        assert source_of(rule(d).id) == "decision" and d in row, (name, d, sorted(row))


def _decided_steps(name, by_spec_kind):
    out = [(r, k, s) for r, k, s in _steps(name) if s.expect.decision and s.expect.by_spec.kind == by_spec_kind]
    return out


@pytest.mark.parametrize("name", AUDITED)
def test_another_failure_status_meets_the_spec_and_not_the_decision(name):
    """Where the spec demands a failure and names no status, an answer that does not opt in and
    fails with another status is Verified, the decision listed as unmet; one that opts in is
    Violated by the decision."""
    cases = _decided_steps(name, "failure")
    if not cases:
        pytest.skip(f"{name}: every decided demand is one the spec's text does not make fail")
    for r, k, s in cases[:20]:
        e = s.expect
        other = next(x for x in FAILURE_STATUSES if x not in e.statuses)
        v = check_status(status_claim(r, k, other))
        assert v.kind is VerdictKind.Verified and v.unmet == (e.decision,), (r.id, k, v.kind, v.unmet, v.note)
        w = check_status(status_claim(r, k, other, decisions=True))
        assert w.kind is VerdictKind.Violated and w.rule == e.decision, (r.id, k, w.kind, w.rule)
        # The decided status meets both; success meets neither.
        for opted in (False, True):
            ok = check_status(status_claim(r, k, e.statuses[0], decisions=opted))
            assert ok.kind is VerdictKind.Verified and ok.unmet == (), (r.id, k, opted, ok.unmet)
            bad = check_status(status_claim(r, k, "Success", decisions=opted))
            assert bad.kind is VerdictKind.Violated, (r.id, k, opted)


@pytest.mark.parametrize("name", AUDITED)
def test_success_where_only_a_decision_fails_the_input_meets_the_spec(name):
    """Where only our decision makes the input fail (the spec sets no such limit), success from an
    answer that does not opt in is Verified with the decision unmet; opted in, it is Violated."""
    cases = [(r, k, s) for r, k, s in _decided_steps(name, "either") if not s.expect.allows("Success")]
    if not cases:
        pytest.skip(f"{name}: no demand that only a decision makes fail")
    for r, k, s in cases[:20]:
        v = check_status(status_claim(r, k, "Success"))
        assert v.kind is VerdictKind.Verified and v.unmet == (s.expect.decision,), (r.id, k, v.kind, v.unmet)
        w = check_status(status_claim(r, k, "Success", decisions=True))
        assert w.kind is VerdictKind.Violated and w.rule == s.expect.decision, (r.id, k, w.kind, w.rule)


def test_the_decided_demands_round_trip_through_json():
    from oracles.request import Expect

    for name in AUDITED:
        for _, _, s in _steps(name):
            if s.expect.decision:
                assert Expect.from_json(s.expect.to_json()) == s.expect
