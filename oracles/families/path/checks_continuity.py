"""The joint checker (``path.continuity_values``, Rounded): each joint's six measured values
against IV truth (MPFR's correctly rounded atan2 with directed rounding for the angle), and its
class: the threshold decision on the claim's own values (``docs/decisions.md`` "Paths: a
joint's class is the decision on its own values"), equal to the exact class unless the deciding
test lies within its rounding band ("Paths: joint classification")."""

from __future__ import annotations

import math

import numpy as np

from interval.lazy import gmpy2
from interval.context import IV, lower, lower_float, to_mpq, upper, upper_float
from reference import error_model as EM
from reference import kernel as K
from reference.fp import add_hi, up

from ...decide import Decision, refine
from ...errormodel import ratio as error_ratio
from ...model import Claim, dec, dec_array, enc, undecided, verified, violated
from ...rules import binding, decision, declare, default, judged, spec
from . import checks as _C
from .checks import _VACUOUS, ERROR_MODEL, _fl, _resolve

__all__ = ["CONTINUITY_FIELDS", "LEVELS", "RULES", "check_continuity_values"]

JOINT_MEASURES = default("path:joint_measures", "docs/decisions.md 'Paths: joint classification': the six stored "
                         "values (position gap, tangent angle 2 atan2(|a - b|, |a + b|), NaN without a direction, "
                         "derivative and second-derivative differences and scales of the DomainWidth-scaled "
                         "derivatives) and the relative tests (spec 002 Connectivity: 'compares derivatives scaled by "
                         "each span's DomainWidth and stores the measured differences', with no formula)")
CLASSIFICATION = spec("path:classification", "spec 002 Connectivity: 'Each joint's C0/G1/C1/C2 classification ... It "
                      "is a threshold decision on Rounded values': the class is the threshold decision on the claim's "
                      "own values, and the exact decision outside the rounding band of its threshold")
THRESHOLD_AT_EQUALITY = decision("path:threshold_at_equality", "docs/decisions.md 'Paths: a joint's class is the "
                                 "decision on its own values': a test passes at exact equality with its threshold "
                                 "(angle <= ContinuityAngle, difference <= threshold x scale); the spec does not say "
                                 "whether the tie passes, so without the decision either outcome is accepted there")

RULES = declare({"path.continuity_values": (JOINT_MEASURES, ERROR_MODEL, CLASSIFICATION, THRESHOLD_AT_EQUALITY)})


def _mpfr(q, prec, rnd):
    with gmpy2.context(gmpy2.context(precision=prec, round=rnd)):
        return gmpy2.mpfr(q)


def _mpfr_atan2(y, x, prec, rnd):
    with gmpy2.context(gmpy2.context(precision=prec, round=rnd)):
        return gmpy2.mpq(gmpy2.atan2(y, x))  # mpq(mpfr) is exact


def _angle_enclosure(y_iv, x_iv, prec):
    """Enclosure of 2 atan2(y, x) for y, x >= 0 from MPFR's correctly rounded atan2 with
    directed rounding (increasing in y, decreasing in x on the first quadrant): the lower end
    takes y rounded down and x rounded up, the upper end the reverse."""
    y_lo, y_hi = max(lower(y_iv), gmpy2.mpq(0)), upper(y_iv)
    x_lo, x_hi = max(lower(x_iv), gmpy2.mpq(0)), upper(x_iv)
    down, up_ = gmpy2.RoundDown, gmpy2.RoundUp
    if y_lo == 0:
        lo = gmpy2.mpq(0)
    else:
        lo = 2 * _mpfr_atan2(_mpfr(y_lo, prec, down), _mpfr(x_hi, prec, up_), prec, down)
    hi = 2 * _mpfr_atan2(_mpfr(y_hi, prec, up_), _mpfr(x_lo, prec, down), prec, up_)
    return lo, hi


# The joint classes, in the order they nest.
LEVELS = ("C0", "G1", "C1", "C2")

# The components of a continuity model, in the order of a declared per-component bound.
CONTINUITY_FIELDS = ("position_gap", "tangent_angle", "derivative_difference", "derivative_scale",
                      "second_derivative_difference", "second_derivative_scale")


def _continuity_reference(claimed, E_in, E_out, w_in, w_out, sum_norm):
    """The six bounds of a joint at (u, eta); the angle's needs ``|a + b|`` (``sum_norm``; None
    where no direction exists: the angle must then be NaN and its bound is unused)."""
    def ref(u, eta):
        dbound = float(up(EM.difference_bound(6 * E_in / w_in, 6 * E_out / w_out, u, eta=eta) * (1 + 1e-12)))
        # divided twice, not by w * w: a subnormal width squares to 0, its bound is +inf (vacuous)
        sbound = float(up(EM.difference_bound(24 * E_in / w_in / w_in, 24 * E_out / w_out / w_out, u,
                                              eta=eta) * (1 + 1e-12)))
        ab = _VACUOUS if sum_norm is None else min(EM.angle_bound(sum_norm, u), _VACUOUS)
        return [EM.gap_bound(claimed["position_gap"], u, eta=eta), ab, dbound,
                float(add_hi(EM.relative_bound(claimed["derivative_scale"], u, eta=eta), dbound)), sbound,
                float(add_hi(EM.relative_bound(claimed["second_derivative_scale"], u, eta=eta), sbound))]
    return ref


@judged
def check_continuity_values(claim: Claim):
    """Rounded: every measured joint value within its model (``reference.error_model``), truth
    from IV kernels and MPFR's atan2; classification decisions that differ from the exact
    decision are counted, and Violated only outside the rounding band of the threshold."""
    inp, val = claim.inputs, claim.value
    P_in = dec_array(inp["P_in"], np.float32)
    P_out = dec_array(inp["P_out"], np.float32)
    if P_in.shape != (4, 3) or P_out.shape != (4, 3):
        raise ValueError("joint controls must be (4, 3)")
    w_in, w_out = dec(inp["w_in"]), dec(inp["w_out"])
    if not (w_in > 0 and w_out > 0):
        raise ValueError("domain widths must be positive")
    thr_a, thr_d, thr_s = dec(inp["continuity_angle"]), dec(inp["continuity_derivative"]), \
        dec(inp["continuity_second_derivative"])
    if val["continuity"] not in LEVELS:
        raise ValueError(f"continuity must be one of {LEVELS}")
    claimed = {k: dec(val[k]) for k in CONTINUITY_FIELDS}
    E_in, E_out = EM.span_magnitude(P_in), EM.span_magnitude(P_out)
    nonfinite = [k for k, v in claimed.items() if not math.isfinite(v) and not (k == "tangent_angle" and math.isnan(v))]
    if nonfinite:
        r = _resolve(claim, _continuity_reference({k: 0.0 for k in claimed}, E_in, E_out, w_in, w_out, None))
        return violated(claim, {"claimed": claim.value, "why": f"nonfinite {', '.join(nonfinite)}"},
                        measure="error_ratio", bound_use=math.inf, rule=ERROR_MODEL.id, **r.extra())
    base = _resolve(claim, _continuity_reference(claimed, E_in, E_out, w_in, w_out, None))
    bounds = {k: base.bound[n] for n, k in enumerate(CONTINUITY_FIELDS) if k != "tangent_angle"}
    # A zero derivative (exactly, in rationals) has no direction: the angle must be NaN.
    q_in = [to_mpq(float(a)) - to_mpq(float(b)) for a, b in zip(P_in[3], P_in[2])]
    q_out = [to_mpq(float(a)) - to_mpq(float(b)) for a, b in zip(P_out[1], P_out[0])]
    no_direction = all(v == 0 for v in q_in) or all(v == 0 for v in q_out)

    def at(prec):
        ctx = IV(prec)
        Pi, Po = ctx.asarray(P_in), ctx.asarray(P_out)
        d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(ctx, Pi, Po, ctx.asarray(w_in), ctx.asarray(w_out))
        with ctx.scope():
            truth = {
                "position_gap": K.norm(ctx, Pi[3] - Po[0]),
                "derivative_difference": K.norm(ctx, d_in - d_out),
                "second_derivative_difference": K.norm(ctx, s_in - s_out),
            }
            nd_in, nd_out = K.norm(ctx, d_in), K.norm(ctx, d_out)
            ns_in, ns_out = K.norm(ctx, s_in), K.norm(ctx, s_out)
            truth["derivative_scale"] = ctx.maximum(np.array(nd_in, dtype=object), np.array(nd_out, dtype=object))
            truth["second_derivative_scale"] = ctx.maximum(np.array(ns_in, dtype=object),
                                                           np.array(ns_out, dtype=object))
        holds, worst, enclosure = True, 0.0, {}
        resolved = base
        for key, bq in bounds.items():
            t = truth[key]
            t = t.item() if isinstance(t, np.ndarray) else t
            c = to_mpq(claimed[key])
            e_lo = max(c - upper(t), lower(t) - c, gmpy2.mpq(0))
            e_hi = max(abs(c - upper(t)), abs(c - lower(t)))
            worst = max(worst, error_ratio(e_hi, bq))
            if e_lo > bq:
                return Decision(False, prec, {key: [_fl(e_lo), _fl(e_hi)]},
                                {"ratio": worst, "field": key, "resolved": resolved})
            if e_hi > bq:
                holds = None
                enclosure[key] = [_fl(e_lo), _fl(e_hi)]
        # Angle.
        a_claim = claimed["tangent_angle"]
        angle, ab = None, _VACUOUS
        if no_direction:
            if not math.isnan(a_claim):
                return Decision(False, prec, None, {"ratio": worst, "field": "tangent_angle",
                                                    "why": "a zero derivative has no direction",
                                                    "resolved": resolved})
        else:
            with ctx.scope():
                a = d_in / np.array(nd_in, dtype=object)
                b = d_out / np.array(nd_out, dtype=object)
                y, x = K.norm(ctx, a - b), K.norm(ctx, a + b)
            if math.isnan(a_claim):
                return Decision(False, prec, None, {"ratio": worst, "field": "tangent_angle",
                                                    "why": "NaN claimed for a nonzero derivative",
                                                    "resolved": resolved})
            lo, hi = _angle_enclosure(y, x, prec)
            angle = (lo, hi)
            # angle_bound falls as |a + b| grows: the smallest |a + b| gives the bound whose
            # excess refutes, the largest the bound to meet.
            r_hi = _resolve(claim, _continuity_reference(claimed, E_in, E_out, w_in, w_out, lower_float(x)))
            resolved = _resolve(claim, _continuity_reference(claimed, E_in, E_out, w_in, w_out, upper_float(x)))
            ab, ab_lo = r_hi.bound[1], resolved.bound[1]
            c = to_mpq(a_claim)
            e_lo = max(c - hi, lo - c, gmpy2.mpq(0))
            e_hi = max(abs(c - hi), abs(c - lo))
            worst = max(worst, error_ratio(e_hi, ab_lo))
            if e_lo > ab:
                return Decision(False, prec, {"tangent_angle": [_fl(e_lo), _fl(e_hi)]},
                                {"ratio": worst, "field": "tangent_angle", "resolved": resolved})
            if e_hi > ab_lo:
                holds = None
                enclosure["tangent_angle"] = [_fl(e_lo), _fl(e_hi)]
        return Decision(holds, prec, enclosure or None,
                        {"ratio": worst, "truth": truth, "angle": angle, "ab": ab, "resolved": resolved})

    d = refine(at, _C.BUDGET)
    extra = d.detail["resolved"].extra()
    use = d.detail.get("ratio")
    if d.holds is False:
        # A NaN where a direction exists (or none where there is none) breaks the angle's definition.
        return violated(claim, {"error_interval": _jsonable(d.enclosure),
                                **{k: v for k, v in d.detail.items() if k in ("field", "why", "ratio")}},
                        measure="error_ratio", measured=use, prec=d.prec, bound_use=use,
                        rule=JOINT_MEASURES.id if "why" in d.detail else ERROR_MODEL.id, **extra)
    if d.holds is None:
        return undecided(claim, _jsonable(d.enclosure), measure="error_ratio", measured=use,
                         prec=d.prec, bound_use=use, **extra)
    # Values hold; the classification must be the threshold decision on the claimed values
    # themselves, and agree with the exact decision outside the rounding bands.
    u = d.detail["resolved"].u
    levels = _levels_of_claimed_values(claimed, thr_a, thr_d, thr_s, u)
    at_tie = False
    if LEVELS.index(val["continuity"]) not in levels:
        # A tie that fails (a strict test) is the spec's too: only our decision passes it.
        at_tie = LEVELS.index(val["continuity"]) in _levels_of_claimed_values(claimed, thr_a, thr_d, thr_s, u, True)
        if not at_tie or binding(THRESHOLD_AT_EQUALITY):
            return violated(claim, {"claimed_continuity": val["continuity"],
                                    "levels_of_the_claimed_values": [LEVELS[k] for k in sorted(levels)],
                                    "why": "the classification is not the threshold decision on the claim's own "
                                           "values"},
                            measure="error_ratio", measured=use, prec=d.prec, bound_use=use,
                            rule=THRESHOLD_AT_EQUALITY.id if at_tie else CLASSIFICATION.id, **extra)
    return _check_classification(claim, d, thr_a, thr_d, thr_s, bounds, u, extra)


def _round_at(q, u: float):
    """The rational q rounded to nearest at unit roundoff u (a precision of 1 - log2 u bits,
    no exponent limits), exactly."""
    prec = max(2, math.floor(-math.log2(u)) + 1)
    with gmpy2.context(gmpy2.context(precision=prec, round=gmpy2.RoundToNearest)):
        return gmpy2.mpq(gmpy2.mpfr(q))


def _levels_of_claimed_values(claimed, thr_a, thr_d, thr_s, u, ties_either_way: bool = False) -> set:
    """The continuity levels the threshold decisions allow on the claimed values (spec 002:
    "a threshold decision on Rounded values"): G1 when the claimed angle is at most
    ``continuity_angle`` (exact comparison; a NaN angle never is), C1 when also the claimed
    derivative difference is at most ``continuity_derivative`` times the claimed scale, C2 the
    same for second derivatives. A relative test may be evaluated as the exact product, the
    product rounded at the model's unit roundoff u, or the quotient ``difference / scale``
    rounded at u against the threshold: an outcome any of them gives is allowed. With
    ``ties_either_way`` a test at exact equality may also fail (a strict comparison: the spec's
    reading without our decision that ties pass)."""
    a = claimed["tangent_angle"]
    g1 = {False} if math.isnan(a) else {to_mpq(a) <= to_mpq(thr_a)}
    if ties_either_way and not math.isnan(a):
        g1.add(to_mpq(a) < to_mpq(thr_a))

    def test(diff, scale, thr):
        dq, sq, tq = to_mpq(claimed[diff]), to_mpq(claimed[scale]), to_mpq(thr)
        prod = tq * sq
        out = {dq <= prod, dq <= _round_at(prod, u)}
        if sq > 0:
            out.add(_round_at(dq / sq, u) <= tq)
        if ties_either_way:
            out |= {dq < prod, dq < _round_at(prod, u)} | ({_round_at(dq / sq, u) < tq} if sq > 0 else set())
        return out

    outcomes = [g1, test("derivative_difference", "derivative_scale", thr_d),
                test("second_derivative_difference", "second_derivative_scale", thr_s)]
    levels = set()
    passing = True  # every earlier test can pass
    for k, o in enumerate(outcomes):
        if passing and False in o:
            levels.add(k)
        passing = passing and True in o
    if passing:
        levels.add(3)
    return levels


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float):
        return enc(x)
    return x



def _check_classification(claim, d, thr_a, thr_d, thr_s, bounds, u, extra):
    """The claimed classification against the exact one, test by test along the chain
    G1 -> C1 -> C2. The first test whose claimed outcome differs from the exact outcome (or
    whose exact outcome is undecided) must lie within the rounding band of its threshold, where
    a correctly rounded implementation may decide either way; otherwise the claim is Violated.
    ``u`` is the unit roundoff of the claim's model (the product ``thr * scale`` rounds once)."""
    truth, angle = d.detail["truth"], d.detail["angle"]

    def tv(t):
        t = t.item() if isinstance(t, np.ndarray) else t
        return lower(t), upper(t)

    tests = []  # (exact outcome True/False/None, band check) per test, in chain order
    if angle is None:  # no direction: G1 is false exactly, and decided
        tests.append((False, lambda: False))
    else:
        t = to_mpq(thr_a)
        exact = True if angle[1] <= t else False if angle[0] > t else None
        ab = d.detail["ab"]
        # A vacuous angle model gives no band: the claimed decision must be the exact one.
        # t bound now: the loop below rebinds the name (a late-binding lambda compared the angle
        # with the second-derivative threshold).
        tests.append((exact, lambda t=t: ab < _VACUOUS and
                      abs((angle[0] + angle[1]) / 2 - t) <= to_mpq(ab) + (angle[1] - angle[0])))
    for key_d, key_s, thr in (("derivative_difference", "derivative_scale", thr_d),
                              ("second_derivative_difference", "second_derivative_scale", thr_s)):
        dv, sv = tv(truth[key_d]), tv(truth[key_s])
        t = to_mpq(thr)
        exact = True if dv[1] <= t * sv[0] else False if dv[0] > t * sv[1] else None
        # Both values carry their model error, and the product thr * scale rounds once more.
        slack = (to_mpq(bounds[key_d]) + t * to_mpq(bounds[key_s]) + (dv[1] - dv[0])
                 + t * (sv[1] - sv[0]) + t * sv[1] * to_mpq(2 * u))
        tests.append((exact, lambda dv=dv, sv=sv, t=t, slack=slack: abs(dv[0] - t * sv[0]) <= slack))
    claimed_level = LEVELS.index(claim.value["continuity"])
    ratio = d.detail["ratio"]
    exact_level = None
    for k, (exact, in_band) in enumerate(tests):
        claimed_pass = k < claimed_level
        if exact is True and claimed_pass:
            continue
        if exact is False and not claimed_pass:
            return verified(claim, measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio,
                            decision_differs=0, **extra)
        # Claimed and exact outcomes differ here (or the exact one is undecided).
        exact_level = None if exact is None else (LEVELS[k] if exact is False else "above " + LEVELS[k])
        counter = {"decision_undecided": 1} if exact is None else {"decision_differs": 1}
        if in_band():
            return verified(claim, measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio,
                            note=f"decision {claim.value['continuity']} vs exact {exact_level} "
                                 "within the rounding band", **counter, **extra)
        return violated(claim, {"claimed_continuity": claim.value["continuity"],
                                "exact_continuity": exact_level, "test": ("G1", "C1", "C2")[k]},
                        measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio,
                        rule=CLASSIFICATION.id, **counter, **extra)
    # Every test passed exactly: C2 exactly; the claim passed all three too.
    return verified(claim, measure="error_ratio", measured=ratio, prec=d.prec, bound_use=ratio, decision_differs=0,
                    **extra)
