"""Planted false claims on every path row must be Violated; honest ones Verified; an enclosure
too wide to decide at the precision budget must be Undecided, never Verified."""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracles.families.path as path_checks
import oracles.families.path.answers as path_answers
import oracles.families.path.checks as path_checkers
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, dec_array, enc
from reference import error_model as EM
from reference.status import GuaranteeClass as G

V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided


@pytest.fixture(scope="module")
def honest():
    """Claims of the fast path on a few corpus cases, by row."""
    by_row = {}
    for case in path_checks.generate(7, 14):
        for c in path_checks.claims(case):
            by_row.setdefault(c.row, []).append(c)
    return by_row


def replace(claim, value=None, inputs=None):
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def f32_step(x, direction):
    return np.nextafter(np.float32(x), np.float32(direction))


def test_honest_claims_are_verified(honest):
    for row, cs in honest.items():
        for c in cs:
            v = check_claim(c)
            assert v.kind is V, (row, v.note, v.witness)


def test_control_box_one_ulp_too_small_is_violated(honest):
    for c in honest["path.control_boxes"][:20]:
        lo = dec_array(c.value["lo"], np.float32)
        hi = dec_array(c.value["hi"], np.float32)
        lo2 = lo.copy()
        lo2[0] = f32_step(lo2[0], np.inf)  # the box shrinks by one float32 ulp
        hi2 = hi.copy()
        hi2[2] = f32_step(hi2[2], -np.inf)
        assert check_claim(replace(c, {"lo": enc(lo2), "hi": c.value["hi"]})).kind is X
        assert check_claim(replace(c, {"lo": c.value["lo"], "hi": enc(hi2)})).kind is X


def test_floor_off_by_one_ulp_and_flipped_decision_are_violated(honest):
    for c in honest["path.position_floor"]:
        if c.value["floor"] is None:
            continue
        f = dec(c.value["floor"])
        for wrong in (math.nextafter(f, 0), math.nextafter(f, math.inf)):
            assert check_claim(replace(c, {"floor": enc(wrong), "accepted": c.value["accepted"]})).kind is X
        assert check_claim(replace(c, {"floor": c.value["floor"], "accepted": not c.value["accepted"]})).kind is X


def test_stored_endpoint_one_ulp_off_is_violated(honest):
    for c in honest["path.stored_endpoints"][:20]:
        e = dec_array(c.value, np.float32)
        e[1, 1] = f32_step(e[1, 1], np.inf)
        assert check_claim(replace(c, enc(e))).kind is X


def _valued(claims):
    """Claims at a point (a request without one claims a status)."""
    return [c for c in claims if "controls" in c.inputs]


def test_positions_beyond_their_model_are_violated_within_it_verified(honest):
    for c in _valued(honest["path.interior_positions"])[::7][:40]:
        P = dec_array(c.inputs["controls"], np.float32)
        b = EM.position_bound(EM.span_magnitude(P))
        p = dec_array(c.value)
        # The honest error is tiny (worst ratio ~0.15), so +-3b is certainly outside the model.
        far = p.copy()
        far[0] += 3 * b if far[0] <= 0 else -3 * b
        assert check_claim(replace(c, enc(far))).kind is X


def test_derivative_and_tangent_perturbations_are_violated(honest):
    for c in honest["path.derivatives"][::11][:30]:
        E = EM.span_magnitude(dec_array(c.inputs["controls"], np.float32))
        s = dec_array(c.value["second"])
        s[1] += 3 * EM.second_derivative_bound(E) * (1 if s[1] <= 0 else -1)
        assert check_claim(replace(c, {"first": c.value["first"], "second": enc(s)})).kind is X
    tangents = [c for c in honest["path.tangents"] if "tangent" in c.value]
    for c in tangents[::9][:30]:
        t = dec_array(c.value["tangent"])
        t = t + np.array([1e-9, -1e-9, 1e-9])
        assert check_claim(replace(c, {"tangent": enc(t)})).kind is X


def test_false_degenerate_claim_is_violated(honest):
    c = next(c for c in honest["path.tangents"] if "tangent" in c.value and
             float(np.linalg.norm(_speed_probe(c))) > 1e-3)
    assert check_claim(replace(c, {"status": "Degenerate"})).kind is X


def _speed_probe(c):
    from reference import kernel as K
    from reference.context import F64

    P = dec_array(c.inputs["controls"], np.float32).astype(np.float64)
    return K.cubic_derivative(F64, P, np.float64(dec(c.inputs["u"])))


def test_conversion_perturbations_are_violated(honest):
    for c in honest["path.conversions"]:
        if "controls" not in c.value:
            continue
        ctrl = dec_array(c.value["controls"])
        inner = ctrl.copy()
        inner[1, 0] += 1e-3 * (1 + abs(inner[1, 0]))
        assert check_claim(replace(c, {"controls": enc(inner), "width": c.value["width"]})).kind is X
        moved_end = ctrl.copy()
        moved_end[3, 2] = np.nextafter(moved_end[3, 2], np.inf)  # an endpoint copy must be exact
        assert check_claim(replace(c, {"controls": enc(moved_end), "width": c.value["width"]})).kind is X


def test_continuity_value_and_decision_perturbations_are_violated(honest):
    for c in honest["path.continuity_values"]:
        gap = dec(c.value["position_gap"])
        wrong = dict(c.value, position_gap=enc(gap + 1e-6 * (1 + gap)))
        assert check_claim(replace(c, wrong)).kind is X
        a = dec(c.value["tangent_angle"])
        if not math.isnan(a):
            assert check_claim(replace(c, dict(c.value, tangent_angle=enc(a + 1e-6)))).kind is X


def test_flipped_classification_far_from_threshold_is_violated():
    # A right-angle corner is C0 for any small continuity_angle; claiming C2 is far off.
    P_in = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], np.float32)
    P_out = np.array([[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]], np.float32)
    inputs = {"P_in": enc(P_in), "P_out": enc(P_out), "w_in": enc(1.0), "w_out": enc(1.0),
              "continuity_angle": enc(1e-3), "continuity_derivative": enc(1e-3),
              "continuity_second_derivative": enc(1e-3), "joint": 1}
    # Values by hand: gap 0; d_in = (3,0,0), d_out = (0,3,0): difference 3 sqrt 2, scale 3;
    # angle pi/2; s_in = 0, s_out = 0.
    value = {"position_gap": enc(0.0), "tangent_angle": enc(math.pi / 2),
             "derivative_difference": enc(3 * math.sqrt(2)), "derivative_scale": enc(3.0),
             "second_derivative_difference": enc(0.0), "second_derivative_scale": enc(0.0),
             "continuity": "C0"}
    honest = Claim("path.continuity_values", G.Rounded, value, inputs)
    assert check_claim(honest).kind is V
    assert check_claim(replace(honest, dict(value, continuity="C2"))).kind is X
    assert check_claim(replace(honest, dict(value, continuity="G1"))).kind is X


def test_wrong_guarantee_class_is_violated(honest):
    c = honest["path.interior_positions"][0]
    relabelled = Claim(c.row, G.Certified, c.value, c.inputs, c.model)
    assert check_claim(relabelled).kind is X


def test_undecidable_at_the_budget_is_undecided_never_verified(monkeypatch):
    """A tangent claim whose error sits on its model bound to within IV(53)'s width: with a
    budget of 53 bits the oracle cannot decide, and must say so; with the full budget it
    decides, and agrees with a 2048-bit enclosure."""
    from interval.context import IV, lower, upper
    from reference import kernel as K

    P = np.array([[0, 0, 0], [1, 1, 0], [2, 2.5, 0.5], [3, 3, 1]], np.float32)
    u = 0.3
    E = EM.span_magnitude(P)
    ctx = IV(2048)
    d = K.cubic_derivative(ctx, ctx.asarray(P), ctx.asarray(u))
    speed = K.norm(ctx, d)
    with ctx.scope():
        T = [float((lower(x / speed) + upper(x / speed)) / 2) for x in d]
    b = EM.tangent_bound(E, float((lower(speed) + upper(speed)) / 2))
    inputs = {"controls": enc(P), "u": enc(u), "span": 0, "minimum_speed": enc(0.0)}
    seen = {V: 0, X: 0, U: 0}
    for k in range(-40, 41):
        t = np.array(T)
        t[2] = float(np.float64(T[2]) + np.float64(b)) + k * 2.0**-60
        claim = Claim("path.tangents", G.Rounded, {"tangent": enc(t)}, inputs)
        monkeypatch.setattr(path_checkers, "BUDGET", (53,))
        small = check_claim(claim)
        monkeypatch.setattr(path_checkers, "BUDGET", (113, 256, 2048))
        full = check_claim(claim)
        assert full.kind is not U
        if small.kind is not U:
            assert small.kind is full.kind  # a decided verdict never changes with precision
        seen[small.kind] += 1
    assert seen[U] > 0, "no claim sat within IV(53)'s width of its bound"


# --- Contracts: schemas of the case-file fields, planted false claims --------------------------

from oracles.schema import _claim_schema  # noqa: E402
from oracles.schema_validate import Validator  # noqa: E402

ROWS = ("path.stored_endpoints", "path.control_boxes", "path.position_floor", "path.interior_positions",
        "path.derivatives", "path.tangents", "path.conversions", "path.continuity_values")


def _schema_errors(claim):
    contract = path_checks.FAMILY.contracts[claim.row]
    return [e.message for e in Validator(_claim_schema(claim.row, contract)).iter_errors(claim.to_json())]


def test_every_row_has_a_contract_and_rounded_rows_a_model():
    assert set(path_checks.FAMILY.contracts) == set(path_checks.FAMILY.checkers) == set(ROWS)
    for rid, c in path_checks.FAMILY.contracts.items():
        assert len(c.checks) > 60 and c.refutable
        assert (c.model is not None) == (rid not in ROWS[:3]), rid


def test_every_corpus_claim_fits_its_schema_and_carries_no_model(honest):
    for row in ROWS:
        assert honest.get(row), f"no corpus claim of {row}"
        for c in honest[row]:
            assert _schema_errors(c) == [], (row, _schema_errors(c)[:3])
            assert c.model is None  # judged against the reference model the checker recomputes


def test_every_planted_claim_is_violated_and_well_formed(honest):
    for row in ROWS:
        plant = path_checks.FAMILY.contracts[row].plant
        for c in honest[row][::5][:25]:
            bad = plant(c)
            assert _schema_errors(bad) == [], row
            v = check_claim(bad)
            assert v.kind is X, (row, v.kind, v.note, c.value)


@pytest.mark.parametrize("row, mutate", [
    ("path.stored_endpoints", lambda i: {**i, "span": 0}),  # a field no checker reads
    ("path.control_boxes", lambda i: {**i, "spn": 0}),  # a typo
    ("path.position_floor", lambda i: {**i, "case": "x"}),
    ("path.interior_positions", lambda i: {**i, "u": "0.1"}),  # not a float64
    ("path.interior_positions", lambda i: {**i, "controls": [["0.1", 0, 0]] * 4}),  # not a float32
    ("path.derivatives", lambda i: {k: v for k, v in i.items() if k != "u"}),
    ("path.tangents", lambda i: {**i, "minimum_speed": "-1"}),
    ("path.conversions", lambda i: {**i, "kind": "bspline"}),
    ("path.continuity_values", lambda i: {**i, "joint": 1}),
    ("path.continuity_values", lambda i: {**i, "w_in": "inf"}),
])
def test_schema_rejects_unread_misspelled_inexact_and_missing_fields(honest, row, mutate):
    c = honest[row][0]
    assert _schema_errors(replace(c, inputs=mutate(c.inputs)))


def test_schema_rejects_unknown_spellings_and_accepts_nonfinite_values(honest):
    c = next(c for c in honest["path.continuity_values"])
    assert _schema_errors(replace(c, dict(c.value, continuity="G2")))
    t = next(c for c in honest["path.tangents"] if "tangent" in c.value)
    assert _schema_errors(replace(t, {"status": "Degnerate"}))
    # An overflowing result is well formed, and wrong.
    inf = replace(t, {"tangent": ["inf", "0x0p+0", "0x0p+0"]})
    assert _schema_errors(inf) == [] and check_claim(inf).kind is X
    p = honest["path.interior_positions"][0]
    nan = replace(p, ["nan", p.value[1], p.value[2]])
    assert _schema_errors(nan) == [] and check_claim(nan).kind is X


def test_a_tangent_where_the_speed_is_below_minimum_is_violated():
    # B'(u) = (3, 0, 0) everywhere on this line: speed 3, far below a minimum speed of 10.
    P = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], np.float32)
    inputs = {"controls": enc(P), "u": enc(0.5), "minimum_speed": enc(10.0)}
    assert check_claim(Claim("path.tangents", G.Rounded, {"tangent": enc([1.0, 0.0, 0.0])}, inputs)).kind is X
    assert check_claim(Claim("path.tangents", G.Rounded, {"status": "Degenerate"}, inputs)).kind is V
    low = dict(inputs, minimum_speed=enc(1.0))
    assert check_claim(Claim("path.tangents", G.Rounded, {"tangent": enc([1.0, 0.0, 0.0])}, low)).kind is V
    assert check_claim(Claim("path.tangents", G.Rounded, {"status": "Degenerate"}, low)).kind is X


def test_a_catmull_rom_success_with_a_coincident_pair_is_violated(honest):
    c = next(c for c in honest["path.conversions"] if c.inputs["kind"] == "catmull_rom" and "controls" in c.value)
    pts = dec_array(c.inputs["points"])
    gap = float(np.linalg.norm(pts[1] - pts[0]))
    # The same claim with a coincidence distance beyond the first pair's distance must fail.
    wide = dict(c.inputs, coincidence_distance=enc(gap * 2))
    v = check_claim(replace(c, inputs=wide))
    assert v.kind is X and v.witness["exact_first_coincident_pair"] == 0


def test_declared_models_of_the_wrong_shape_are_malformed(honest):
    c = honest["path.derivatives"][0]
    with pytest.raises(ValueError):  # two components: first and second derivative
        check_claim(Claim(c.row, c.guarantee, c.value, c.inputs, {"bound": [enc(1.0)] * 3}))
    j = honest["path.continuity_values"][0]
    with pytest.raises(ValueError):  # six components
        check_claim(Claim(j.row, j.guarantee, j.value, j.inputs, {"bound": [enc(1.0)] * 2}))
    with pytest.raises(ValueError):  # an unknown format's u without its eta
        check_claim(Claim(c.row, c.guarantee, c.value, c.inputs, {"u": enc(2.0**-30)}))
    # With its eta it is a model like any other.
    assert check_claim(Claim(c.row, c.guarantee, c.value, c.inputs,
                             {"u": enc(2.0**-30), "eta": enc(2.0**-500)})).kind is V


def test_every_rounded_row_honours_a_declared_model(honest):
    """The reference bound is at binary64; a declared bound of zero refutes every inexact
    claim, a declared u = 2^-24 keeps honest claims Verified with the ratio reported."""
    for row in ("path.interior_positions", "path.derivatives", "path.tangents", "path.conversions",
                "path.continuity_values"):
        cs = [c for c in honest[row] if "status" not in c.value][:12]
        for c in cs:
            v = check_claim(Claim(c.row, c.guarantee, c.value, c.inputs, {"u": "0x1p-24"}))
            assert v.kind is V, (row, v.witness)
            assert v.extra["declared_model"]["declared_over_reference"] > 2.0**20
        zero = [check_claim(Claim(c.row, c.guarantee, c.value, c.inputs, {"bound": "0"})).kind for c in cs]
        assert X in zero, row


# --- Requests: span sides and boundary policies replayed exactly ------------------------------

_O, _I = "Outgoing", "Incoming"


@pytest.mark.parametrize("closed, k, u, policy, side, expected", [
    # Inside the domain: exact boundaries pick the outgoing span, or the previous one (Incoming).
    (False, 1, 0.0, "Reject", _O, (1, 0.0)),
    (False, 1, 0.0, "Reject", _I, (0, 1.0)),
    (False, 0, 1.0, "Reject", _O, (1, 0.0)),
    (False, 0, 0.0, "Reject", _I, (0, 0.0)),  # the first endpoint: the first span on both sides
    (False, 2, 1.0, "Reject", _O, (2, 1.0)),  # the terminal endpoint: the last span at u = 1
    (False, 3, 0.0, "Reject", _O, (2, 1.0)),  # (n, 0) names the terminal endpoint
    (False, -1, 1.0, "Reject", _I, (0, 0.0)),  # (-1, 1) names the first endpoint
    # Outside: Reject has no point, Clamp the nearer endpoint, Wrap (closed) x mod n.
    (False, 0, -0.25, "Reject", _O, "InvalidDomain"),
    (False, 0, -0.25, "Clamp", _I, (0, 0.0)),
    (False, 3, 0.25, "Clamp", _O, (2, 1.0)),
    (False, 0, -0.25, "Wrap", _O, "InvalidArgument"),  # Wrap needs a closed path
    (True, 0, -0.25, "Wrap", _O, (2, 0.75)),
    (True, 3, 0.25, "Wrap", _O, (0, 0.25)),
    (True, 4, 0.0, "Wrap", _I, (0, 1.0)),  # x = 4 wraps to 1 = span 1 at u = 0; Incoming: span 0
    (True, 0, -1e6 - 0.375, "Wrap", _O, (1, 0.625)),  # -1000000.375 mod 3 = 1.625
    (False, 0, 1.5, "Clamp", _O, "InvalidArgument"),  # inside [0, n] but not a point: no policy applies
    (False, 0, math.nan, "Clamp", _O, "InvalidArgument"),
])
def test_exact_request_points_follow_the_spec(closed, k, u, policy, side, expected):
    assert path_checks.exact_request_point(3, closed, k, u, policy, side) == expected


def test_track_policies_are_malformed_path_requests():
    with pytest.raises(ValueError):
        path_checks.exact_request_point(3, False, 0, -1.0, "Hold", _O)


def _with_request(honest, row):
    return [c for c in honest[row] if "request" in c.inputs and "controls" in c.inputs]


def test_a_claim_evaluated_at_another_point_than_its_request_names_is_violated(honest):
    from reference import kernel as K
    from reference.context import F64

    moved = 0
    for c in _with_request(honest, "path.derivatives"):
        req = c.inputs["request"]
        path = dec_array(req["path"], np.float32)
        k, u = req["span"], dec(req["u"])
        if not (req["policy"] == "Reject" and u == 1.0 and req["side"] == _O and k < len(path) - 1):
            continue
        # The request names span k + 1 at u = 0; an implementation that kept span k at u = 1
        # claims that point's derivatives, honestly computed there.
        P = path[k].astype(np.float64)
        _, d1, d2 = K.cubic_sample(F64, P, np.float64(1.0))
        kept = {"first": enc(d1), "second": enc(d2)}
        v = check_claim(replace(c, kept, {**c.inputs, "controls": enc(path[k]), "u": enc(1.0)}))
        assert v.kind is X and v.witness["expected_span"] == k + 1, v.witness
        # The same value with the request alone is judged at the point the request names.
        alone = {"request": req}
        assert check_claim(replace(c, kept, alone)).kind is X
        assert check_claim(replace(c, c.value, alone)).kind is V
        moved += 1
    assert moved >= 3


def test_statuses_of_requests_without_a_point(honest):
    statuses = [c for c in honest["path.interior_positions"] if isinstance(c.value, dict)]
    assert {c.value["status"] for c in statuses} == {"InvalidDomain", "InvalidArgument"}
    from tests.oracles.decisions_helper import only_the_decision_refutes, the_spec_refutes

    for c in statuses:
        assert check_claim(c).kind is V
        the_spec_refutes(replace(c, [enc(0.0)] * 3))  # a value where there is no point
        other = "InvalidArgument" if c.value["status"] == "InvalidDomain" else "InvalidDomain"
        req = c.inputs["request"]
        if req["policy"] == "Wrap" and not req["is_closed"]:
            the_spec_refutes(replace(c, {"status": other}))  # the spec names InvalidArgument here
        else:
            only_the_decision_refutes(replace(c, {"status": other}), "path:request_status")
    valued = _with_request(honest, "path.interior_positions")
    for c in valued[:10]:
        assert check_claim(replace(c, {"status": "InvalidDomain"})).kind is X  # a status at a point


def test_sampling_that_differs_from_evaluation_is_a_second_claim_and_is_judged(monkeypatch):
    real = path_answers.try_sample_path

    def shifted(view, ks, us, out, *a, **kw):
        r = real(view, ks, us, out, *a, **kw)
        if r.ok:
            out[: len(ks), 0] += 1.0  # sampling off by one unit in x
        return r

    monkeypatch.setattr(path_answers, "try_sample_path", shifted)
    case = next(c for c in path_checks.generate(7, 24) if c["name"] == "closed, Wrap")
    claims = [c for c in path_checks.claims(case) if c.row == "path.interior_positions"]
    extra = [c for c in claims if "controls" not in c.inputs and not isinstance(c.value, dict)]
    # One second claim per request at a point (sampling differs at every one of them).
    assert len(extra) == sum("controls" in c.inputs for c in claims) > 20
    assert all(check_claim(c).kind is X for c in extra)


# --- Joint classification: the threshold decision on the claim's own values -------------------


def test_a_classification_that_is_not_the_decision_on_its_own_values_is_violated():
    cases = [c for c in path_checks.generate(1, 24) if c.get("thresholds") == "stored"]
    assert len(cases) == 2
    for case in cases:
        (c,) = [c for c in path_checks.claims(case) if c.row == "path.continuity_values"
                and c.inputs["continuity_angle"] == c.value["tangent_angle"]]
        # Thresholds equal to the stored values: every test compares equal numbers, so C2.
        assert c.value["continuity"] == "C2" and check_claim(c).kind is V
        assert c.inputs["continuity_angle"] == c.value["tangent_angle"]
        # A tie passing is our decision ("Paths: a joint's class is the decision on its own values"):
        # by the spec's "threshold decision" alone a tie may fail, so the class a failed tie gives
        # is accepted there (the angle ties by construction: C0; a relative test where its rounded
        # quotient equals the threshold); a test that passes without a tie refutes it either way.
        from tests.oracles.decisions_helper import both_ways

        for lower_level in ("C0", "G1", "C1"):
            spec, v = both_ways(replace(c, dict(c.value, continuity=lower_level)))
            assert v.kind is X and "levels_of_the_claimed_values" in v.witness, (lower_level, v.witness)
            if spec.kind is V:
                assert v.rule == "path:threshold_at_equality" and spec.unmet == (v.rule,)
            else:
                assert spec.kind is X and v.rule == spec.rule == "path:classification"
            assert lower_level != "C0" or spec.kind is V  # the angle's tie


@pytest.mark.parametrize("spacing", [1e-157, 1e-162, 1e-200, 1e160, 1e170])
def test_catmull_rom_waypoints_whose_squared_distances_leave_the_normal_range(spacing):
    """Squared chords of 1e-157 are subnormal, of 1e-162 zero, of 1e170 infinite: the conversion
    must still give honest claims (it once lost the knot intervals, and called waypoints 1e-162
    apart coincident with a coincidence distance of 0)."""
    rng = np.random.default_rng(3)
    pts = np.cumsum(rng.normal(size=(4, 3)) * spacing, axis=0)
    case = {"kind": "catmull_rom", "name": "extreme spacing", "points": pts, "closed": False,
            "coincidence": 0.0}
    claims = list(path_checks.claims(case))
    assert len(claims) == 3 and all("controls" in c.value for c in claims)  # three spans, no status
    verdicts = [check_claim(c) for c in claims]
    assert all(v.kind is V for v in verdicts), [v.witness for v in verdicts]
    assert all(0 < v.bound_use < 1 for v in verdicts)  # a finite model that the claim uses


# --- Requests: the statuses the spec demands (issue 24) -----------------------------------------

from fractions import Fraction  # noqa: E402

from .request_helpers import judge_request as _judge, named as _named, fast_path_misses  # noqa: E402
from oracles.families.path.checks import degenerate_decision  # noqa: E402
from oracles.families.path.requests import case_request, status_requests  # noqa: E402
from oracles.request import Request  # noqa: E402


@pytest.fixture(scope="module")
def status_reqs():
    return [Request(f"path/s{k:03d}", "path", name, steps, rules)
            for k, (name, steps, rules) in enumerate(status_requests())]


def _kinds(req, op):
    """Each step of ``op``: "success", "either", or the set of failure statuses it accepts."""
    return [s.expect.kind if s.expect.kind in ("success", "either") else set(s.expect.statuses)
            for s in req.steps if s.op == op]


# (request name prefix, op, what the spec demands of each of its steps), written from the spec's
# sentences and our decisions, not from the fast path.
_DEMANDS = [
    ("max_spans met with equality", "TryPreparePath", ["success"]),
    ("max_spans exceeded by one", "TryPreparePath", [{"BudgetExceeded"}]),
    ("zero max_spans allows no work", "TryPreparePath", [{"BudgetExceeded"}]),
    ("max_prepared_bytes met with equality (2 spans", "TryPreparePath", ["success"]),
    ("max_prepared_bytes exceeded by one", "TryPreparePath", [{"BudgetExceeded"}]),
    ("WorkLimits out of range", "TryPreparePath", [{"InvalidArgument"}]),
    ("ToleranceProfile out of range (continuity_angle = 4)", "TryPreparePath", [{"InvalidArgument"}]),
    ("no spans", "TryPreparePath", [{"InvalidArgument"}]),
    ("zero domain width", "TryPreparePath", [{"InvalidArgument"}]),
    ("chunk-relative controls beyond the float32 range", "TryPreparePath", [{"UnsupportedPrecision"}]),
    ("position error below the floor far from the origin", "TryPreparePath", [{"UnsupportedPrecision"}]),
    ("joint gap above ContinuityPosition", "TryPreparePath", [{"InvalidTopology"}]),
    ("joint gap exactly ContinuityPosition", "TryPreparePath", ["success"]),
    ("joint gap one float64 step above ContinuityPosition", "TryPreparePath", [{"InvalidTopology"}]),
    ("closing joint gap above ContinuityPosition", "TryPreparePath", [{"InvalidTopology"}]),
    ("Wrap on an open path", "TryEvaluatePath", [{"InvalidArgument"}] * 2),
    ("track-only policies on a path", "TryEvaluatePath", [{"InvalidArgument"}] * 3),
    # Reject: 2^-1074 before the start, 2^-52 after the end (both sides of the domain), then the
    # endpoints spelled (n, 0), (-1, 1) and the exact ends on either side.
    ("Reject just outside both ends", "TryEvaluatePath", [{"InvalidDomain"}] * 4 + ["success"] * 4),
    ("Clamp and Wrap outside a closed path", "TryEvaluatePath", ["success"] * 5),
    ("caller's speed above |dP/du|", "TryEvaluatePathTangent", [{"Degenerate"}] * 2),
    ("caller's speed just below |dP/du|", "TryEvaluatePathTangent", ["success"] * 2),
    ("caller's speed exactly |dP/du|", "TryEvaluatePathTangent", ["either"]),
    ("stationary span", "TryEvaluatePathTangent", [{"Degenerate"}] * 2),
    ("negative caller's speed", "TryEvaluatePathTangent", [{"InvalidArgument"}]),
    ("conversion capacity met with equality (Hermite", "TryConvertHermite", ["success"]),
    ("conversion capacity exceeded by one (Hermite", "TryConvertHermite", [{"CapacityExceeded"}]),
    ("conversion capacity met with equality (closed Catmull-Rom", "TryConvertCentripetalCatmullRom", ["success"]),
    ("conversion capacity exceeded by one (closed Catmull-Rom", "TryConvertCentripetalCatmullRom",
     [{"CapacityExceeded"}]),
    ("Catmull-Rom: a closed source of two waypoints", "TryConvertCentripetalCatmullRom", [{"InvalidArgument"}]),
    ("Catmull-Rom: coincident waypoints and too small a capacity", "TryConvertCentripetalCatmullRom",
     [{"InvalidDomain", "CapacityExceeded"}]),
    ("Catmull-Rom: a closed source repeating its first waypoint", "TryConvertCentripetalCatmullRom",
     [{"InvalidDomain"}]),
    # Near the float64 range's ends (docs/decisions.md "Paths: overflowing conversions, ...").
    ("Hermite: a control beyond twice the largest float64", "TryConvertHermite", [{"OutOfRange"}]),
    ("Hermite: h T overflows float64, the control fits", "TryConvertHermite", ["either"]),
    ("Catmull-Rom: waypoints 2e308 apart", "TryConvertCentripetalCatmullRom", ["either"]),
    ("domain widths 2^-300", "TryPreparePath", ["either"]),
    ("domain widths 2^1000", "TryPreparePath", ["either"]),
]


@pytest.mark.parametrize("prefix, op, demanded", _DEMANDS, ids=[d[0] for d in _DEMANDS])
def test_named_status_requests_demand_what_the_spec_says(status_reqs, prefix, op, demanded):
    req = _named(status_reqs, prefix)
    assert _kinds(req, op) == demanded
    assert all(s.expect.why for s in req.steps), "every expectation names its source"


def test_named_corpus_cases_demand_the_floor_and_coincidence_statuses():
    reqs = path_checks.FAMILY.requests(1, 27)
    demanded = {"position error exactly at the floor": ["success"],
                "position error one ulp below the floor": [{"UnsupportedPrecision"}],
                "floor minus one ulp": [{"UnsupportedPrecision"}],
                "relative position error at the floor": ["success"]}
    for name, want in demanded.items():
        assert _kinds(_named(reqs, name), "TryPreparePath") == want, name
    cr = "TryConvertCentripetalCatmullRom"
    assert _kinds(_named(reqs, "coincident Catmull-Rom"), cr) == [{"InvalidDomain"}]
    assert _kinds(_named(reqs, "near-coincident Catmull-Rom"), cr) == ["success"]
    assert _kinds(_named(reqs, "waypoints exactly at the coincidence distance"), cr) == [{"InvalidDomain"}]
    assert _kinds(_named(reqs, "closed source repeating its first waypoint"), cr) == [{"InvalidDomain"}]
    # The stationary span's tangents (all u) and the ease endpoint's (u = 0 of span 1) are Degenerate.
    still = _named(reqs, "stationary span and ease endpoint")
    degenerate = [s for s in still.steps if s.op == "TryEvaluatePathTangent" and s.expect.statuses == ("Degenerate",)]
    assert {0, 1} <= {s.inputs["span"] for s in degenerate} and len(degenerate) >= 10


def _independent_floor(src, origin) -> float:
    """2 ulp32(E) + N rounded up to float64, from numpy's float32 rounding and Fractions (not
    from interval.narrowing): the spec's floor, computed another way."""
    rel = src - origin  # float64 subtraction, as the spec says
    n32 = rel.astype(np.float32)
    E = float(np.max(np.abs(n32)))
    ulp = Fraction(float(np.spacing(np.float32(E))))
    N = max(abs(Fraction(float(a)) - (Fraction(float(s)) - Fraction(float(o))))
            for a, s, o in zip(n32.ravel(), src.ravel(), np.broadcast_to(origin, src.shape).ravel()))
    q = 2 * ulp + N
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def test_the_floor_decision_is_exact_at_equality():
    """The floor cases' position errors are the floor itself and one float64 below it: the
    request demands success at the floor and UnsupportedPrecision below, by an independent
    computation of the floor."""
    reqs = path_checks.FAMILY.requests(1, 27)
    for name, ok in (("position error exactly at the floor", True), ("position error one ulp below the floor", False)):
        step = _named(reqs, name).steps[0]
        src = np.stack([dec_array(s["controls"]) for s in step.inputs["spans"]])
        floor = _independent_floor(src, dec_array(step.inputs["origin"]))
        pe = dec(step.inputs["tolerance"]["position_error"])
        assert (pe >= floor) is ok and (pe == floor if ok else math.nextafter(pe, 1.0) == floor)
        assert step.expect.kind == ("success" if ok else "failure")


def test_degenerate_is_decided_on_the_exact_speed_with_its_rounding_band():
    line = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], np.float32)  # B'(u) = (3, 0, 0)
    assert degenerate_decision(line, 0.3, 4.0) == "Degenerate"
    assert degenerate_decision(line, 0.3, 2.0) == "Success"
    assert degenerate_decision(line, 0.3, 3.0) is None  # at the caller's speed: either
    assert degenerate_decision(line, 0.3, 3.0 + 2.0**-30) == "Degenerate"
    assert degenerate_decision(line, 0.3, 3.0 - 2.0**-30) == "Success"
    still = np.full((4, 3), 2.5, np.float32)
    assert degenerate_decision(still, 0.5, 0.0) == "Degenerate"  # zero speed, even at a zero caller's speed



def test_our_fast_path_meets_every_status_request(status_reqs):
    """Every status request answered by our fast path: statuses, values, rules, completeness."""
    bad = fast_path_misses(path_checks.answer, status_reqs)
    assert not bad, bad[:5]


def test_a_success_with_values_beyond_float64_is_violated(status_reqs):
    """Where a conversion may fail near the float64 range's ends, a Success is still judged by
    the value rows (an overflowed value is never Verified); where the exact Hermite control lies
    beyond twice the largest float64, Success itself is Violated, and a failure other than ours
    is Violated only by our decision (the spec's text accepts any failure). An inf value claimed
    with Success is Undecided by the spec's rules and Violated by our decision."""
    from oracles.model import Claim, GuaranteeClass as G
    from oracles.request import Answer, StepAnswer
    from oracles.rules import our_answer

    hermite = _named(status_reqs, "Hermite: h T overflows float64, the control fits")
    cr = _named(status_reqs, "Catmull-Rom: waypoints 2e308 apart")
    for req in (hermite, cr):
        inp = req.steps[0].inputs
        if "waypoints" in inp:
            base = {"kind": "hermite", "points": [w[0] for w in inp["waypoints"]],
                    "tangents": [w[1] for w in inp["waypoints"]], "widths": [w[2] for w in inp["waypoints"]],
                    "is_closed": False}
        else:
            base = {"kind": "catmull_rom", "points": inp["points"], "is_closed": False,
                    "coincidence_distance": inp["coincidence_distance"]}
        bad = Claim("path.conversions", G.Rounded, {"controls": enc(np.full((4, 3), np.inf)), "width": enc(1.0)},
                    {**base, "span": 0})
        verdicts, _ = _judge(req, Answer(req.id, (StepAnswer("Success", (bad,), None),)))
        kinds = {v.claim.row: v.kind for v in verdicts}
        # Values near 2^1024 make the conversions' error-model bounds overflow, so the value row
        # says Undecided, loudly, never Verified (docs/decisions.md "Error models: a bound that
        # is not finite leaves the claim Undecided").
        assert kinds["path.statuses"] is V and kinds["path.conversions"] is U, (req.name, verdicts)
        # An answer that opts in to our decisions is held to path:out_of_range: a conversion whose
        # arithmetic overflows fails, so its Success with an inf control is Violated.
        ans = our_answer(Answer(req.id, (StepAnswer("Success", (bad,), None),)))
        conv = next(v for v in _judge(req, ans)[0] if v.claim.row == "path.conversions")
        assert (conv.kind, conv.rule) == (X, "path:out_of_range"), (req.name, conv)
    beyond = _named(status_reqs, "Hermite: a control beyond twice the largest float64")
    verdicts, _ = _judge(beyond, Answer(beyond.id, (StepAnswer("Success", (), None),)))
    assert [v.kind for v in verdicts if v.claim.row == "path.statuses"] == [X]
    for status in ("OutOfRange", "InvalidArgument"):  # ours, and another failure
        ans = Answer(beyond.id, (StepAnswer(status, (), None),))
        outside = next(v for v in _judge(beyond, ans)[0] if v.claim.row == "path.statuses")
        opted = next(v for v in _judge(beyond, our_answer(ans))[0] if v.claim.row == "path.statuses")
        assert outside.kind is V  # the spec's text: any failure
        assert (opted.kind, opted.rule) == ((V, None) if status == "OutOfRange" else (X, "path:out_of_range"))
    widths = _named(status_reqs, "domain widths 2^-300")
    ok = path_checks.answer(widths)
    assert ok.steps[0].status == "OutOfRange"  # ours fails there (np.linalg.norm squares 2^600)


def test_a_failed_rebuild_that_drops_the_path_is_violated(status_reqs):
    from oracles.request import Answer, StepAnswer

    rebuilds = [r for r in status_reqs if r.name.startswith("failed rebuild")]
    assert len(rebuilds) == 4
    for req in rebuilds:
        ans = path_checks.answer(req)
        failed = next(k for k, s in enumerate(req.steps) if k and s.op == "TryPreparePath")
        # The owner emptied by the failed rebuild: its state, and every later query without a path.
        dropped = [s if k < failed else StepAnswer(s.status, s.claims, {"controls": []}) if k == failed
                   else StepAnswer("MissingCache", (), {"status": "MissingCache"}) for k, s in enumerate(ans.steps)]
        verdicts, _ = _judge(req, Answer(req.id, tuple(dropped)))
        broken = [v for v in verdicts if v.kind is X]
        assert any("rule" in v.claim.inputs for v in broken), req.name
        assert any(v.witness.get("got") == "MissingCache" for v in broken if "rule" not in v.claim.inputs)


def test_requests_do_not_run_the_fast_path(monkeypatch):
    """Expected statuses are decided without our fast path: with every path operation of
    reference.path made to raise, the requests are still generated (all but the two cases whose
    thresholds are read from our joint records, an input choice)."""
    import reference.path as RP

    def refuse(*a, **k):
        raise AssertionError("the fast path was run to decide a request")

    for name in ("try_prepare_path", "try_evaluate_path", "try_evaluate_path_tangent", "try_sample_path",
                 "resolve_parameter", "try_convert_hermite", "try_convert_centripetal_catmull_rom"):
        monkeypatch.setattr(RP, name, refuse)
    cases = [c for c in path_checks.generate(1, 120) if c.get("thresholds") != "stored"]
    reqs = [case_request(f"path/{k}", c) for k, c in enumerate(cases)]
    assert len(status_requests()) >= 50 and len(reqs) == 118
