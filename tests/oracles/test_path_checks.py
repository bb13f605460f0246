"""Planted false claims on every path row must be Violated; honest ones Verified; an enclosure
too wide to decide at the precision budget must be Undecided, never Verified."""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracles.checks.path as path_checks
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


def test_positions_beyond_their_model_are_violated_within_it_verified(honest):
    for c in honest["path.interior_positions"][::7][:40]:
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
        monkeypatch.setattr(path_checks, "BUDGET", (53,))
        small = check_claim(claim)
        monkeypatch.setattr(path_checks, "BUDGET", (113, 256, 2048))
        full = check_claim(claim)
        assert full.kind is not U
        if small.kind is not U:
            assert small.kind is full.kind  # a decided verdict never changes with precision
        seen[small.kind] += 1
    assert seen[U] > 0, "no claim sat within IV(53)'s width of its bound"
