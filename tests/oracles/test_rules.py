"""Rules and their sources (``oracles.rules``): verdicts follow the spec's text; decisions of ours
bind our fast path and claims that opt in, and the ledger reports them apart.

The expected values here come from exact rational arithmetic (``fractions``) and from spec 004
and docs/decisions.md, never from the code under test."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oracles.__main__ import main as cli
from oracles.casefile import write_claims
from oracles.families import families
from oracles.families.triangle import TriangleCase, cube_mesh, first_hit_inputs
from oracles.ledger import Ledger, RowTally, check_claim
from oracles.model import Claim, VerdictKind, enc, verified, violated
from oracles.rules import (
    SOURCES,
    Rule,
    binding,
    decision,
    declare,
    judged,
    rules_of,
    source_of,
    spec,
)
from reference.status import GuaranteeClass as G

ROOT = Path(__file__).resolve().parents[2]
V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided
EXACTNESS = "triangle:exactness_clause"

# --- The case: a float64 peer's t a few ulps off on an axis-aligned facet ---------------

CUBE_V, CUBE_T = cube_mesh()
# Segments across the cube's face x = 0 at (y, z) = (0.3, 0.7): facet 0 ((0,0,0), (0,0,1), (0,1,1)),
# whose weights there are (1 - z, z - y, y) = (0.3, 0.4, 0.3) by hand. The x differences are
# dyadic, so s_x - a_x, e_x - a_x and their difference are binary64 numbers: the exactness clause
# of docs/decisions.md applies, and T = -s_x / (e_x - s_x) is not dyadic (1/3, 3/11, 5/12, 2/3).
SEGMENTS = [(-0.0625, 0.125), (-0.1875, 0.5), (-0.625, 0.875), (0.125, -0.0625)]


def _trimesh_like_hit(sx: float, ex: float, ulps: int):
    """A float64 peer's hit (trimesh-style: t from its own arithmetic, position = s + t d in
    float64) whose t is ``ulps`` ulps above the correctly rounded exact crossing, no model."""
    case = TriangleCase("peer", CUBE_V, CUBE_T, np.array([sx, 0.3, 0.7]), np.array([ex, 0.3, 0.7]))
    T = (Fraction(0) - Fraction(sx)) / (Fraction(ex) - Fraction(sx))
    t = float(T)  # correctly rounded (Fraction -> float rounds to nearest)
    for _ in range(ulps):
        t = math.nextafter(t, math.inf)
    s, e = case.start, case.end
    pos = s + t * (e - s)
    stamp = first_hit_inputs(case)["stamp"]
    value = {"outcome": "hit", "t": enc(t), "triangle": 0, "position": enc(pos), "stamp": stamp}
    return Claim("triangle.first_hit", G.Rounded, value, first_hit_inputs(case))


@pytest.mark.parametrize("ulps", [1, 8, 50])
@pytest.mark.parametrize("sx, ex", SEGMENTS)
def test_a_float64_answer_ulps_off_on_an_axis_aligned_facet_is_judged_by_the_spec(sx, ex, ulps):
    # Spec 004 says "binary64 computed intersections", not correctly rounded ones: within the
    # documented R_t (hundreds of ulps here) the claim meets the spec's rules. Our exactness
    # clause (t = RN(T)) is a decision: reported as not met, and binding only a claim that opts in.
    claim = _trimesh_like_hit(sx, ex, ulps)
    v = check_claim(claim)
    assert v.kind is V, (v.note, v.witness)
    assert v.unmet == (EXACTNESS,) and v.rule is None
    assert 0 < v.measured < 1  # |t - T| / R_t
    w = check_claim(dataclasses.replace(claim, decisions=True))
    assert w.kind is X and w.rule == EXACTNESS and source_of(w.rule) == "decision"
    assert w.witness["rounded"] == enc(float((Fraction(0) - Fraction(sx)) / (Fraction(ex) - Fraction(sx))))
    # Exactly RN(T): the decision is met either way, and nothing is reported.
    exact = _trimesh_like_hit(sx, ex, 0)
    for c in (exact, dataclasses.replace(exact, decisions=True)):
        r = check_claim(c)
        assert r.kind is V and r.unmet == ()


def test_the_ledger_reports_which_rules_were_decisions_of_ours(tmp_path):
    """The same float64 answers in one case file, once as they come (no model) and once opted in
    to the decisions: the ledger shows the decision rule apart from the spec's."""
    peer = [_trimesh_like_hit(sx, ex, 8) for sx, ex in SEGMENTS]
    claims = peer + [dataclasses.replace(c, decisions=True, id=f"opted {k}") for k, c in enumerate(peer)]
    path = tmp_path / "peer.json"
    write_claims(path, claims, "trimesh-like float64 peer")
    doc = json.loads(path.read_text())
    assert [c.get("decisions") for c in doc["claims"]] == [None] * 4 + [True] * 4
    verdicts = tmp_path / "verdicts.jsonl"
    code = cli(["check", str(path), "--out", str(tmp_path / "out"), "--verdicts", str(verdicts)])
    assert code == 1  # the opted-in claims are Violated, by the decision alone
    led = json.loads((tmp_path / "out" / "ledger.json").read_text())
    row = next(r for r in led["rows"] if r["id"] == "triangle.first_hit")
    assert (row["claims"], row["verified"], row["violated"]) == (8, 4, 4)
    rules = row["rules"]
    sources = {r["id"]: r["source"] for r in rules["applied"]}
    assert sources[EXACTNESS] == "decision" and sources["triangle:t_bound"] == "default"
    assert sources["triangle:earliest"] == "spec"
    assert rules["opted_in"] == 4
    assert rules["violated_by"] == {EXACTNESS: 4} and rules["violated_by_source"] == {"decision": 4}
    assert rules["decisions_unmet"] == {EXACTNESS: 4} and rules["unmet_claims"] == [0, 1, 2, 3]
    assert led["rules"][EXACTNESS]["source"] == "decision"
    assert "docs/decisions.md 'Triangle surfaces: error model'" in led["rules"][EXACTNESS]["text"]
    md = (tmp_path / "out" / "ledger.md").read_text()
    assert "Rules from decisions of ours: `triangle:coordinate_limit`, `triangle:exactness_clause`." in md
    assert "Violated by: decisions of ours 4 (`triangle:exactness_clause` 4)." in md
    assert "not met by claims that did not opt in" in md and "`triangle:exactness_clause` 4" in md
    assert f"| `{EXACTNESS}` | decision |" in md
    lines = [json.loads(s) for s in verdicts.read_text().splitlines()]
    assert [x.get("unmet") for x in lines[:4]] == [[EXACTNESS]] * 4
    assert all(x["verdict"] == "Violated" and x["rule"] == EXACTNESS and x["decisions"] for x in lines[4:])


# --- Every rule names its source -----------------------------------------------------------------

CHECKED_ROWS = sorted({rid for fam in families() for rid in fam.checkers})
DECISIONS_MD = (ROOT / "docs" / "decisions.md").read_text()
SECTIONS = set(re.findall(r"^## (.+)$", DECISIONS_MD, flags=re.M))


@pytest.mark.parametrize("rid", CHECKED_ROWS)
def test_every_row_names_its_rules_and_their_sources(rid):
    rules = rules_of(rid)
    own = [r for r in rules if not r.id.startswith("claim:")]
    assert own, f"{rid}: no rules declared"
    for r in rules:
        assert isinstance(r, Rule) and r.source in SOURCES
        if r.source == "spec":
            assert re.search(r"spec 00[24]", r.text), (r.id, r.text)
        else:  # a decision of ours, necessary (default) or beyond the spec (decision)
            assert "docs/decisions.md" in r.text, (r.id, r.text)
        # every docs/decisions.md section a rule names exists (names may hold an apostrophe)
        for m in re.finditer(r"docs/decisions\.md '", r.text):
            rest = r.text[m.end():]
            assert any(rest.startswith(s + "'") for s in SECTIONS), (r.id, rest[:80])


def _checker_modules():
    return sorted((ROOT / "oracles" / "families").glob("*/checks*.py"))


@pytest.mark.parametrize("path", _checker_modules(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_violated_verdict_names_the_rule_that_refuted_it(path):
    tree = ast.parse(path.read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "violated"]
    missing = [n.lineno for n in calls if not any(k.arg == "rule" for k in n.keywords)]
    assert not missing, f"{path.name}: violated() without rule= at lines {missing}"


def test_decision_rules_are_the_ones_docs_decisions_md_marks_beyond_the_spec():
    """The decisions of ours the checkers apply are listed in docs/decisions.md's section on
    rules and their sources, each by id."""
    section = DECISIONS_MD.split("## Verdicts by the spec's text: rules and their sources", 1)[1].split("\n## ", 1)[0]
    found = {r.id for rid in CHECKED_ROWS for r in rules_of(rid) if r.source == "decision"}
    assert found and all(f"`{i}`" in section for i in found), sorted(i for i in found if f"`{i}`" not in section)


# --- Judging both ways ---------------------------------------------------------------------------

_SPEC_RULE = spec("toy:value", "spec 002: 'a toy sentence'")
_DECISION = decision("toy:exact", "docs/decisions.md 'a toy decision'")


def _toy(limit_by_spec: float, calls: list):
    """A checker of a claimed number: the spec allows |x| <= limit, our decision x == 0."""

    @judged
    def check(claim):
        calls.append(claim.value)
        x = claim.value
        if abs(x) > limit_by_spec:
            return violated(claim, {"x": x}, rule=_SPEC_RULE.id)
        if x != 0 and binding(_DECISION):
            return violated(claim, {"x": x}, rule=_DECISION.id)
        return verified(claim)

    return check


def _claim(x, opted=False):
    return Claim("toy.row", G.Exact, x, {}, decisions=opted)


def test_judged_binds_decisions_only_on_claims_that_opt_in():
    declare({"toy.row": (_SPEC_RULE, _DECISION)})
    calls: list = []
    check = _toy(1.0, calls)
    v = check(_claim(0.5))
    assert v.kind is V and v.unmet == ("toy:exact",) and len(calls) == 2  # judged both ways
    v = check(_claim(0.5, True))
    assert v.kind is X and v.rule == "toy:exact" and v.unmet == ()  # the decision alone refutes it
    v = check(_claim(2.0, True))
    assert v.kind is X and v.rule == "toy:value"  # the spec refutes it: its verdict stands
    calls.clear()
    v = check(_claim(0.0))
    assert v.kind is V and v.unmet == () and len(calls) == 1  # no decision consulted: judged once
    calls.clear()
    v = check(_claim(2.0))
    assert v.kind is X and v.rule == "toy:value" and len(calls) == 1


def test_binding_outside_a_judged_checker_is_the_projects_and_rejects_other_sources():
    assert binding(_DECISION) is True  # helpers called on their own (the requests' demands)
    with pytest.raises(ValueError):
        binding(_SPEC_RULE)
    with pytest.raises(ValueError):
        Rule("no-family", "spec", "x")
    with pytest.raises(ValueError):
        Rule("toy:x", "opinion", "x")


# --- The opt-in field ----------------------------------------------------------------------------


def test_the_opt_in_round_trips_and_the_schema_reads_it():
    from oracles.casefile import parse_case_text

    c = _trimesh_like_hit(-0.0625, 0.125, 8)
    assert "decisions" not in c.to_json()
    d = dataclasses.replace(c, decisions=True).to_json()
    assert d["decisions"] is True and Claim.from_json(d).decisions is True
    doc = {"format": "claims/1", "producer": "t", "claims": [c.to_json(), d, {**d, "decisions": "yes"}]}
    cf = parse_case_text(json.dumps(doc).encode())
    assert [i for i, _ in cf.claims] == [0, 1] and [x.decisions for _, x in cf.claims] == [False, True]
    assert [e.claim for e in cf.malformed] == [2] and "decisions" in cf.malformed[0].path


def test_our_own_ledger_run_opts_in_and_a_case_file_of_ours_says_so(tmp_path):
    from oracles.ledger import run_corpus

    led = run_corpus(seed=3, cases=12, only=["triangle"], progress=False)
    t = led.tallies["triangle.first_hit"]
    assert t.claims and t.opted_in == t.claims and t.violated == 0
    # Status claims carry the answer's opt-in: our answers opt in, so decided demands bind them.
    st = led.tallies["triangle.statuses"]
    assert st.claims and st.opted_in == st.claims
    out = tmp_path / "ours.json"
    assert cli(["claims", "--family", "triangle", "--cases", "3", "--out", str(out)]) == 0
    assert all(c["decisions"] is True for c in json.loads(out.read_text())["claims"])


def test_a_tally_merged_in_chunks_keeps_the_rule_counts():
    declare({"toy.row": (_SPEC_RULE, _DECISION)})
    check = _toy(1.0, [])
    verdicts = [check(_claim(x, o)) for x, o in ((0.5, False), (2.0, True), (0.5, True), (0.25, False))]
    whole = RowTally("toy.row")
    for i, v in enumerate(verdicts):
        whole.add(v, i)
    a, b = RowTally("toy.row"), RowTally("toy.row")
    for i, v in enumerate(verdicts[:2]):
        a.add(v, i)
    for i, v in enumerate(verdicts[2:]):
        b.add(v, i)
    a.merge(b, 2)
    for t in (whole, a):
        assert (t.opted_in, t.violated_by, t.unmet, t.unmet_claims) == \
            (2, {"toy:value": 1, "toy:exact": 1}, {"toy:exact": 2}, [0, 3])


def test_the_ledger_lists_every_rule_its_rows_applied():
    led = Ledger(source="t")
    led.add(check_claim(_trimesh_like_hit(-0.0625, 0.125, 8)), 0)
    table = led.rules_table()
    assert set(table) == {r.id for r in rules_of("triangle.first_hit")}
    assert all(e["rows"] == ["triangle.first_hit"] for e in table.values())


# --- Each decision of ours refutes only claims that opt in ----------------------------------------
# Hand-built claims, one per decision rule not already shown so in its family's tests (the
# exactness clause above and in test_triangle_checks.py, exact tie order in
# test_point_search_checks.py, request statuses and ties at thresholds in test_path_checks.py, the
# topology diagnostic and C1 at equality in test_surface_checks.py, turning points in
# test_track_checks.py, status names in test_convex_polygon_checks.py).


def _track_reject():
    keys = [[enc(0.0), enc(0.0), enc(0.0), enc(0.0), "Linear"], [enc(1.0), enc(1.0), enc(0.0), enc(0.0), "Linear"]]
    inputs = {"keys": keys, "time": enc(5.0), "policy": "Reject", "side": "Outgoing"}
    return Claim("track.values", G.Rounded, {"status": "OutOfRange"}, inputs)  # decided: InvalidDomain


def _point_search_rejected():
    inputs = {"positions": [enc([0.0, 0.0, 0.0]), enc([1.0, 0.0, 0.0])], "query": enc([0.5, 0.0, 0.0]), "count": 3}
    return Claim("point_search.nearest", G.Rounded, {"status": "CapacityExceeded"}, inputs)  # decided: InvalidArgument


def _coincident_second_pair():
    # Waypoints 0 = 1 and 2 = 3: two pairs within the coincidence distance; the diagnostic names
    # the first by our decision, and either is the spec's rejection.
    pts = [[0.0, 0, 0], [0.0, 0, 0], [1.0, 0, 0], [1.0, 0, 0]]
    inputs = {"kind": "catmull_rom", "points": enc(np.array(pts)), "is_closed": False, "coincidence_distance": enc(0.0)}
    return Claim("path.conversions", G.Rounded, {"status": "InvalidDomain", "index": 2}, inputs)


def _floor_product():
    # Every control at (1, 1, 1): narrowed exactly, E = 1, floor = 2 ulp32(1) = 2^-22 (spec 002).
    # relative x scale is just below 2^-22 exactly and rounds up to it in float64: our decision
    # (the float64 product) accepts, the exact product does not; this claim says not accepted.
    floor = Fraction(1, 2**22)
    rel = float(floor / 3)
    while Fraction(rel) * 3 >= floor:
        rel = math.nextafter(rel, 0)
    assert float(Fraction(rel) * 3) == float(floor)  # rounds up to the floor
    source = np.ones((1, 4, 3))
    inputs = {"source": enc(source), "origin": enc(np.zeros(3)), "position_error": enc(0.0),
              "relative_position_error": enc(rel), "asset_scale": enc(3.0)}
    return Claim("path.position_floor", G.Exact, {"floor": enc(float(floor)), "accepted": False}, inputs)


def _surface_network():
    fam = next(f for f in families() if f.name == "surface")
    case = fam.generate(1, 1)[0]  # spec 002's two-patch reversed join: patch 10's U1 is patch 20's U0
    return next(c for c in fam.claims(case) if c.row == "surface.shared_edges" and "edge_parameters" in c.inputs)


def _reversed_rounding():
    c = _surface_network()
    s = 2.0**-60  # 1 - s is no float64: RN gives 1, the float below is 1 - 2^-53
    below = math.nextafter(1.0, 0.0)
    mapped = [[[0, 10, "U1", enc(1.0), enc(s)], [1, 20, "U0", enc(0.0), enc(below)]]]
    inputs = {**c.inputs, "edge_parameters": [[10, "U1", enc(s)]]}
    return Claim(c.row, c.guarantee, {"mapped": mapped}, inputs)


def _edge_parameter_status():
    c = _surface_network()
    inputs = {**c.inputs, "edge_parameters": [[10, "U1", enc(2.0)]]}  # outside [0, 1]: decided InvalidDomain
    return Claim(c.row, c.guarantee, {"mapped": [{"status": "OutOfRange"}]}, inputs)


def _record_order():
    fam = next(f for f in families() if f.name == "surface")
    for case in fam.generate(1, 8):
        for c in fam.claims(case):
            if c.row == "surface.corners" and len(c.value.get("corners", ())) > 1:
                return Claim(c.row, c.guarantee, {**c.value, "corners": c.value["corners"][::-1]}, c.inputs)
    raise AssertionError("no corners claim with two records")


DECISION_CASES = {
    "track:reject_status": _track_reject,
    "point_search:status_name": _point_search_rejected,
    "path:coincident_index": _coincident_second_pair,
    "path:floor_product": _floor_product,
    "surface:reversed_parameter_rounding": _reversed_rounding,
    "surface:edge_parameter_status": _edge_parameter_status,
    "surface:record_order": _record_order,
}


@pytest.mark.parametrize("rule_id", sorted(DECISION_CASES))
def test_a_decision_refutes_only_claims_that_opt_in(rule_id):
    claim = DECISION_CASES[rule_id]()
    v = check_claim(claim)
    assert v.kind is V and v.unmet == (rule_id,), (v.kind, v.unmet, v.note, v.witness)
    w = check_claim(dataclasses.replace(claim, decisions=True))
    assert w.kind is X and w.rule == rule_id and source_of(rule_id) == "decision", (w.kind, w.rule, w.note)


def test_a_surface_beyond_the_coordinate_limit_is_undecided_without_the_decision():
    # spec 004 names no coordinate limit; ours is 2^1000 ("Triangle surfaces: statuses"). A facet
    # far away at 2^1001 leaves the cube crossing's truth unchanged, but the documented model
    # does not reach there: Undecided by the spec's rules, Violated where the decision binds.
    far = 2.0**1001
    verts = np.vstack([CUBE_V, [[far, far, far], [far, far + 2.0**980, far], [far, far, far + 2.0**980]]])
    tris = np.vstack([CUBE_T, [[8, 9, 10]]])
    case = TriangleCase("far", verts, tris, np.array([-0.625, 0.25, 0.625]), np.array([1.375, 0.25, 0.625]))
    value = {"outcome": "hit", "t": enc(0.3125), "triangle": 0, "position": enc([0.0, 0.25, 0.625]),
             "stamp": first_hit_inputs(case)["stamp"]}
    claim = Claim("triangle.first_hit", G.Rounded, value, first_hit_inputs(case))
    v = check_claim(claim)
    assert v.kind is U and v.unmet == ("triangle:coordinate_limit",), (v.kind, v.note)
    w = check_claim(dataclasses.replace(claim, decisions=True))
    assert w.kind is X and w.rule == "triangle:coordinate_limit" and w.witness["status"] == "OutOfRange"


def _conversion_claim(kind, points, inner, **source):
    P = np.asarray(points, dtype=np.float64)
    got = np.vstack([P[0], inner, P[1]])
    inputs = {"kind": kind, "points": enc(P), "is_closed": False, "span": 0,
              **{k: enc(np.asarray(v, dtype=np.float64)) for k, v in source.items()}}
    return Claim("path.conversions", G.Rounded, {"controls": enc(got), "width": enc(2.0)}, inputs)


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_an_overflowing_conversion_claimed_as_success_is_violated_only_by_the_decision(bad):
    # B1 = P0 + h T0 / 3 with h = 2, T0 = 1e308: h T0 overflows float64 while the exact control,
    # 2e308 / 3, is finite. A naive conversion claims inf with Success. The reference model of a
    # Hermite control (16 u (|P| + |h T| / 3)) has no finite bound here, so by the spec's rules
    # there is nothing to judge the value against (Undecided); our decision path:out_of_range
    # says such a conversion fails with OutOfRange (a Success never carries a nonfinite value).
    assert math.isfinite(float(Fraction(2) * Fraction(1e308) / 3))
    src = {"tangents": [[1e308, 0, 0], [1, 0, 0]], "widths": [2.0, 2.0]}
    pts = [[0.0, 0, 0], [1.0, 0, 0]]
    claim = _conversion_claim("hermite", pts, [[bad, 0, 0], [1 - 2 / 3, 0, 0]], **src)
    v = check_claim(claim)
    assert v.kind is U and v.unmet == ("path:out_of_range",), (v.kind, v.unmet, v.note)
    w = check_claim(dataclasses.replace(claim, decisions=True))
    assert w.kind is X and w.rule == "path:out_of_range" and source_of(w.rule) == "decision", (w.kind, w.rule)
    # The correctly rounded control is not refuted by the decision: the model still gives no bound.
    exact = float(Fraction(2) * Fraction(1e308) / 3)
    fine = _conversion_claim("hermite", pts, [[exact, 0, 0], [1 - 2 / 3, 0, 0]], **src)
    for c in (fine, dataclasses.replace(fine, decisions=True)):
        f = check_claim(c)
        assert f.kind is U and f.unmet == (), (f.kind, f.unmet)
    # A Catmull-Rom span whose chord overflows (waypoints at -+1.7e308): the same two verdicts.
    cr = _conversion_claim("catmull_rom", [[-1.7e308, 0, 0], [1.7e308, 0, 0]], [[bad, 0, 0], [0.0, 0, 0]],
                           coincidence_distance=0.0)
    assert check_claim(cr).kind is U
    w = check_claim(dataclasses.replace(cr, decisions=True))
    assert w.kind is X and w.rule == "path:out_of_range", (w.kind, w.rule)
