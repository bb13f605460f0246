"""Frame checkers: honest claims Verified; planted false claims Violated, one per property
(a regular interval over a cusp, a slow range called regular, a depth-limited range off the
grid; a position, tangent, orthonormality, handedness or seed error beyond its model, a
fallback seed without cause; a normal far from the true RMF, an estimate far below the true
error, a wrong residual twist, a wrong twist at the seam, a residual twist on an open path);
declared models honoured; malformed inputs raise."""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracles.checks.frame as F
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, enc

V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided


@pytest.fixture(scope="module")
def honest():
    by_case = {}
    for case in F.generate(1, 12):
        by_case[case["name"]] = F.claims(case)
    return by_case


def rows(honest, row, case=None):
    return [c for name, cs in honest.items() if case is None or name == case for c in cs if c.row == row]


def replace(c, value=None, inputs=None, model=None):
    return Claim(c.row, c.guarantee, c.value if value is None else value, c.inputs if inputs is None else inputs,
                 c.model if model is None else model)


def test_every_named_case_builds_and_its_claims_are_verified(honest):
    for name, cs in honest.items():
        assert {c.row for c in cs} == {"frame.regularity", "frame.vectors", "frame.angular_error_estimate"}, name
        for c in cs:
            v = check_claim(c)
            assert v.kind is V, (name, c.row, v.note, v.witness)


def test_calibration_is_reported_with_its_bins(honest):
    cs = rows(honest, "frame.angular_error_estimate", "helix by cubics")
    v = check_claim(cs[0])
    assert v.measure == "calibration" and 0 < v.measured <= 1.0
    bins = {k: n for k, n in v.extra.items() if k.startswith("calibration_")}
    assert sum(bins.values()) == 1


# --- frame.regularity --------------------------------------------------------------------------


def test_regular_interval_with_a_speed_above_the_span_is_violated(honest):
    for c in rows(honest, "frame.regularity")[:30]:
        if c.value["regular"]:
            v = check_claim(F.CONTRACTS["frame.regularity"].plant(c))
            assert v.kind is X and "u" in v.witness


def test_interval_over_the_cusp_called_regular_is_violated(honest):
    c = next(c for c in rows(honest, "frame.regularity", "interior cusp") if c.value["regular"])
    bad = replace(c, inputs={**c.inputs, "u0": enc(0.25), "u1": enc(0.75)})
    v = check_claim(bad)
    assert v.kind is X and dec(v.witness["u"]) == 0.5 and dec(v.witness["speed_squared"]) == 0.0


def test_singular_ranges(honest):
    slow = [c for c in rows(honest, "frame.regularity") if c.inputs["kind"] == "slow"]
    limited = [c for c in rows(honest, "frame.regularity") if c.inputs["kind"] == "depth_limited"]
    assert slow and limited
    for c in slow + limited:
        assert check_claim(replace(c, {"regular": True})).kind is X  # a singular range called regular
    off = limited[0]
    u0 = dec(off.inputs["u0"])
    assert check_claim(replace(off, inputs={**off.inputs, "u0": enc(u0 - 2.0**-30)})).kind is X
    # a stationary span is slow everywhere: calling it slow below a larger minimum speed holds,
    # calling a moving interval slow does not
    moving = next(c for c in rows(honest, "frame.regularity") if c.value["regular"])
    assert check_claim(replace(moving, {"regular": False}, {**moving.inputs, "kind": "slow"})).kind is X


def test_undecided_within_a_tiny_budget(monkeypatch, honest):
    import interval.frame as IF
    c = next(c for c in rows(honest, "frame.regularity", "interior cusp") if c.value["regular"])
    wide = replace(c, inputs={**c.inputs, "u0": enc(0.25), "u1": enc(0.75)})
    # one piece cannot show or refute anything here: Undecided with the bound, never Verified
    monkeypatch.setattr(F, "decide_speed_above", lambda P, a, b, s: IF.decide_speed_above(P, a, b, s, max_pieces=1))
    v = check_claim(wide)
    assert v.kind is U and v.enclosure is not None


# --- frame.vectors -----------------------------------------------------------------------------


def _vec(c, key):
    return np.array([dec(x) for x in c.value[key]])


def _set(c, key, arr):
    return replace(c, {**c.value, key: [enc(float(x)) for x in arr]})


def test_vector_errors_beyond_the_model_are_violated(honest):
    cs = rows(honest, "frame.vectors")
    assert len(cs) > 40
    for c in cs[:25]:
        p = _vec(c, "position")
        assert check_claim(_set(c, "position", p + [abs(p[0]) * 1e-9 + 1e-12, 0, 0])).kind is X
        t = _vec(c, "tangent")
        tt = t + np.array([0.0, 0.0, 1e-6])
        assert check_claim(_set(c, "tangent", tt / np.linalg.norm(tt))).kind is X
        n = _vec(c, "normal")
        assert check_claim(_set(c, "normal", n * (1 + 1e-12))).kind is X  # not unit
        assert check_claim(F.CONTRACTS["frame.vectors"].plant(c)).kind is X  # left-handed


def test_seed_errors_are_violated(honest):
    seeds = [c for c in rows(honest, "frame.vectors") if "seed" in c.inputs]
    assert seeds and any(c.inputs["seed"]["is_fallback"] for c in seeds)
    for c in seeds:
        t, n, b = _vec(c, "tangent"), _vec(c, "normal"), _vec(c, "binormal")
        a = 1e-4  # the frame rotated about its tangent: still a right-handed orthonormal frame
        n2 = math.cos(a) * n + math.sin(a) * b
        b2 = np.cross(t, n2)
        v = check_claim(replace(c, {**c.value, "normal": [enc(float(x)) for x in n2],
                                    "binormal": [enc(float(x)) for x in b2]}))
        assert v.kind is X and "seed" in v.witness["ratios"] and v.witness["ratios"]["seed"] > 1
    fb = next(c for c in seeds if c.inputs["seed"]["is_fallback"])
    # the seed_up was parallel to the tangent; a fallback claimed where seed_up was fine fails
    ok = next(c for c in seeds if not c.inputs["seed"]["is_fallback"])
    lying = replace(ok, inputs={**ok.inputs, "seed": {**ok.inputs["seed"], "is_fallback": True}})
    assert check_claim(lying).kind is X
    honest_fb_as_up = replace(fb, inputs={**fb.inputs, "seed": {**fb.inputs["seed"], "is_fallback": False}})
    assert check_claim(honest_fb_as_up).kind is X


def test_declared_models(honest):
    c = rows(honest, "frame.vectors")[0]
    v = check_claim(replace(c, model={"u": enc(2.0**-24)}))
    assert v.kind is V and v.extra["declared_model"]["declared_over_reference"] > 1e8
    generous = replace(c, model={"bound": [enc(1.0)] * 5})
    assert check_claim(generous).kind is V
    with pytest.raises(ValueError):
        check_claim(replace(c, model={"bound": [enc(1.0)] * 3}))  # the model has five components
    assert check_claim(replace(c, model={"u": enc(2.0**-53), "k": enc(1e-3)})).kind is X


# --- frame.angular_error_estimate -------------------------------------------------------------


def test_a_normal_far_from_the_true_rmf_is_violated(honest):
    for c in rows(honest, "frame.angular_error_estimate")[:6]:
        v = check_claim(F.CONTRACTS["frame.angular_error_estimate"].plant(c))
        assert v.kind is X and v.witness["true_error"] > 3


def test_an_estimate_far_below_the_true_error_is_violated(honest):
    c = rows(honest, "frame.angular_error_estimate", "helix by cubics")[0]
    est = dec(c.value["estimate"])
    v = check_claim(replace(c, {**c.value, "estimate": enc(est * 1e-3)}))
    assert v.kind is X and v.measured > F.ACCEPTANCE_FACTOR
    assert check_claim(replace(c, {**c.value, "estimate": enc(-1.0)})).kind is X


def test_residual_twist_errors_are_violated(honest):
    c = rows(honest, "frame.angular_error_estimate", "closed loop with holonomy, PreserveHolonomy")[0]
    assert c.value["is_closed_loop"] and abs(dec(c.value["residual_twist"])) > 0.1
    off = replace(c, {**c.value, "residual_twist": enc(dec(c.value["residual_twist"]) + 0.01)})
    assert check_claim(off).kind is X
    # the same twist plus a whole turn is the same twist
    turned = replace(c, {**c.value, "residual_twist": enc(dec(c.value["residual_twist"]) + 2 * math.pi)})
    assert check_claim(turned).kind is V
    d = rows(honest, "frame.angular_error_estimate", "closed loop with holonomy, DistributeTwist")[0]
    assert d.inputs["periodic"]
    assert check_claim(replace(d, {**d.value, "twist_end": enc(dec(d.value["twist_end"]) + 1e-9)})).kind is X
    o = rows(honest, "frame.angular_error_estimate", "helix by cubics")[0]
    assert check_claim(replace(o, {**o.value, "residual_twist": enc(0.5)})).kind is X


def test_a_run_across_the_cusp_is_violated(honest):
    c = rows(honest, "frame.angular_error_estimate", "interior cusp")[0]
    r0, r1 = c.inputs["runs"]
    merged = {**c.inputs, "runs": [{"start": r0["start"], "end": r1["end"], "normal": r0["normal"]}]}
    samples = [[0] + list(e[1:]) for e in c.value["samples"]]
    v = check_claim(replace(c, {**c.value, "samples": samples}, merged))
    assert v.kind is X and "zero of the speed" in v.witness["why"]


@pytest.mark.parametrize("mutate", [
    lambda c: replace(c, inputs={**c.inputs, "controls": "nope"}),
    lambda c: replace(c, inputs={**c.inputs, "u0": enc(0.7), "u1": enc(0.2)}) if c.row == "frame.regularity"
    else replace(c, inputs={**c.inputs, "u": enc(1.5)}),
    lambda c: replace(c, {"regular": "yes"}) if c.row == "frame.regularity" else replace(c, {**c.value, "tangent": ["0x1p+0"]}),
])
def test_malformed_inputs_raise(honest, mutate):
    for row in ("frame.regularity", "frame.vectors"):
        c = rows(honest, row)[0]
        with pytest.raises((ValueError, KeyError, TypeError)):
            check_claim(mutate(c))


def test_malformed_angular_claims_raise(honest):
    c = rows(honest, "frame.angular_error_estimate")[0]
    bad = [list(e) for e in c.value["samples"]]
    bad[0][0] = 99
    with pytest.raises(ValueError):
        check_claim(replace(c, {**c.value, "samples": bad}))
