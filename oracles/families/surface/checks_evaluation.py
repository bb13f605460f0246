"""Surface checker of values: ``surface.evaluation`` (Rounded).

Samples (position and all partials) against exact rational values, per component within
``reference.surface.evaluation_bounds``; unit normals against interval enclosures of
``N / |N|`` within ``normal_bound``; edge continuity values within ``edge_value_bound``. The
bound is the claim's declared model when it declares one (``oracles.errormodel.resolve``),
else the reference model at binary64. The Degenerate / IllConditioned decision and ``is_c1``
must agree with the decision on exact values unless the exact quantity lies within its error
bound of the threshold (the band of docs/decisions.md, "Surfaces: decision bands"), where
either answer is accepted and counted; and each decision must be its rule applied exactly to
the values it was made on: ``is_c1`` to the claimed difference and scale (within one rounding
of the product), a normal's status to its claimed decision values (``|Su|``, ``|Sv|``,
``|Su x Sv|`` within their error bounds of exact, the sine their quotient within 4 u wherever
``|Su| |Sv|`` is not 0: exactly 0 on parallel partials).
``bound_use`` is the error over its bound.

The exact normal decision and its band (:func:`exact_normal`, :func:`decision_in_band`) are
also what ``requests.py`` decides TryEvaluateSurfaceNormal's expected status with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import gmpy2
import numpy as np

from interval.context import lower, to_mpq, upper
from interval.surface import enclose_length, enclose_sqrt, enclose_unit, exact_cross, exact_partials
from reference.surface import decision_errors, edge_value_bound, evaluation_bounds, normal_bound

from ...decide import DEFAULT_BUDGET, Decision, refine
from ...errormodel import ETA_OF_U, ratio, resolve
from ...model import Claim, dec, undecided, verified, violated
from ...rules import binding, decision, declare, default, judged, spec
from .checks import array

__all__ = [
    "BUDGET",
    "SAMPLE_NAMES",
    "NormalTruth",
    "check_evaluation",
    "decision_in_band",
    "exact_normal",
    "magnitude",
]

BUDGET = DEFAULT_BUDGET
_SURFACE_K = 32.0  # reference.surface.SURFACE_K: the constant a declared "k" replaces

_S = "spec 002 Surfaces: "
_D = "docs/decisions.md "
BOUNDS = default("surface:evaluation_bounds", _D + "'Surfaces: error models': samples per component 32 (u M E + eta), "
                 "the unit normal 2 eN / (|N| - eN) + 32u, edge values 32 (21 u E + eta) + sqrt(2 eta) (or the claim's "
                 "declared model); spec 002 Guarantees: 'Surface positions, partials, normals, edge continuity "
                 "values' are Rounded")
NORMAL_RULE = spec("surface:normal_decision", _S + "'TryEvaluateSurfaceNormal ... returns Degenerate for zero or "
                   "parallel partials and IllConditioned at or below the thresholds; the position remains valid': the "
                   "claimed status is the rule applied to the values it was made on, and agrees with the exact "
                   "decision outside the rounding band of " + _D + "'Surfaces: decision bands'")
DECISION_VALUES = default("surface:decision_values", _D + "'Surfaces: decisions judged on the values they were made "
                          "on (issue 17)': the claimed |Su|, |Sv|, |Su x Sv| within their error bounds of exact, the "
                          "sine their quotient within 4u wherever |Su| |Sv| is not 0 (0 on parallel partials)")
UNIT_NORMAL = default("surface:unit_normal", _D + "'Surfaces: edge parameters, evaluation and normals' (the normal is "
                      "N / |N|): | |n|^2 - 1 | <= 64u")
C1_RULE = spec("surface:is_c1", _S + "'IsC1 compares the outward cross-boundary derivative controls; it is a threshold "
               "decision on Rounded values': is_c1 is difference <= continuity_derivative x scale on the claimed "
               "values (either answer within one rounding of the product), and agrees with the exact decision outside "
               "the band (" + _D + "'Surfaces: orientation and C1 of shared edges')")
C1_AT_EQUALITY = decision("surface:c1_at_equality", _D + "'Surfaces: decisions judged on the values they were made "
                          "on (issue 17)': at an exact tie of the claimed values (difference = threshold x scale, "
                          "0 <= t x 0 included) is_c1 is true; the spec says 'threshold decision' and does not say "
                          "whether the tie passes, so without the decision either answer is accepted there")

RULES = declare({"surface.evaluation": (BOUNDS, NORMAL_RULE, DECISION_VALUES, UNIT_NORMAL, C1_RULE, C1_AT_EQUALITY)})


def _patch_point(claim):
    C = array(claim.inputs["controls"], np.float32)
    u, v = dec(claim.inputs["u"]), dec(claim.inputs["v"])
    if C.shape != (4, 4, 3) or not (0.0 <= u <= 1.0 and 0.0 <= v <= 1.0):
        raise ValueError("needs controls (4, 4, 3) float32 and u, v in [0, 1]")
    return C, u, v


def magnitude(a) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64))))


def _float(q) -> float:
    """A witness number (an mpq error or bound) as a float that never raises."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


SAMPLE_NAMES = ("position", "du", "dv", "duu", "duv", "dvv")


def _check_sample(claim):
    C, u, v = _patch_point(claim)
    E = magnitude(C)
    res = resolve(claim, lambda uu, eta: evaluation_bounds(E, uu, eta), constant=_SURFACE_K)
    truth = exact_partials(C, u, v)
    worst, detail, ok = 0.0, {}, True
    for name, t, b in zip(SAMPLE_NAMES, truth, res.bound):
        got = array(claim.value[name])
        if got.shape != (3,):
            raise ValueError(f"{name} has three components")
        err = max(abs(to_mpq(float(g)) - x) for g, x in zip(got, t))
        r = ratio(err, b)
        worst = max(worst, r)
        if err > b:
            ok = False
            detail[name] = {"error": _float(err), "bound": _float(b), "exact": [str(x) for x in t]}
    if ok:
        return verified(claim, measure="error_ratio", measured=worst, bound_use=worst, **res.extra())
    return violated(claim, detail, measure="error_ratio", measured=worst, bound_use=worst, rule=BOUNDS.id,
                    **res.extra())


def _sq(a):
    return sum((x * x for x in a), gmpy2.mpq(0))


def _band_zero(L, e):
    """Whether the exact length enclosed by ``L`` is within ``e`` of zero: True, False, None."""
    if upper(L) <= e:
        return True
    if lower(L) > e:
        return False
    return None


def _band(L, t, e):
    """Whether the exact value enclosed by ``L`` is within ``e`` of the threshold ``t``."""
    lo, hi = lower(L), upper(L)
    if lo >= t - e and hi <= t + e:
        return True
    if hi < t - e or lo > t + e:
        return False
    return None


def _any(vals):
    if any(v is True for v in vals):
        return True
    if all(v is False for v in vals):
        return False
    return None


def _all(vals):
    if all(v is True for v in vals):
        return True
    if any(v is False for v in vals):
        return False
    return None


def _value_error(got, L, bound):
    """``(lower, upper)`` bounds of ``|got - exact|`` for an exact value enclosed by ``L``, and
    whether it is within ``bound``: True, False (shown beyond) or None."""
    e_hi = max(abs(got - lower(L)), abs(got - upper(L)))
    e_lo = max(got - upper(L), lower(L) - got, gmpy2.mpq(0))
    return e_lo, e_hi, (True if e_hi <= bound else False if e_lo > bound else None)


def _rule(su, sv, cross, sine, dmin, smin) -> str:
    """The normal decision rule applied exactly to the values it is made on."""
    if su == 0 or sv == 0 or cross == 0:
        return "Degenerate"
    if su <= dmin or sv <= dmin or not sine > smin:
        return "IllConditioned"
    return "Success"


def _check_decision_values(claim, dv, claimed, Lu, Lv, Lx, eL, eX, uq, dmin, smin):
    """The claimed decision values (computed |Su|, |Sv|, |Su x Sv| and sine) lie within their
    error bounds of the exact values, the sine is their quotient within two roundings, and the
    claimed status is the rule applied exactly to them (no band: the rule is on these values).
    Returns ``(verdict or None, bound_use)``."""
    if not isinstance(dv, dict):
        raise ValueError("decision must be an object {su, sv, cross, sine}")
    su, sv, cross = (to_mpq(dec(dv[k])) for k in ("su", "sv", "cross"))
    use = 0.0
    for name, got, L, b in (("su", su, Lu, eL), ("sv", sv, Lv, eL), ("cross", cross, Lx, eX)):
        e_lo, e_hi, ok = _value_error(got, L, b)
        use = max(use, ratio(e_hi, b))
        if ok is False:
            return violated(claim, {"decision_value": name, "error": [_float(e_lo), _float(e_hi)], "bound": _float(b),
                                    "why": "a decision value beyond its error bound"},
                            measure="error_ratio", measured=ratio(e_lo, b), bound_use=ratio(e_lo, b),
                            rule=DECISION_VALUES.id), use
        if ok is None:
            return undecided(claim, [_float(e_lo), _float(e_hi)], note=f"decision value {name} undecided"), use
    sine = None
    if su != 0 and sv != 0:  # the quotient is defined (0 where the cross product is 0)
        sd = dec(dv["sine"])
        if not math.isfinite(sd):
            return violated(claim, {"why": "a nonfinite sine of nonzero lengths", "sine": dv["sine"]},
                            rule=DECISION_VALUES.id), use
        sine = to_mpq(sd)
        q = cross / (su * sv)
        if abs(sine - q) > q * to_mpq(4 * uq):
            return violated(claim, {"why": "the sine is not |Su x Sv| / (|Su| |Sv|) of the claimed lengths",
                                    "sine": dv["sine"], "quotient": str(q)}, rule=DECISION_VALUES.id), use
    want = _rule(su, sv, cross, sine, dmin, smin)
    if want != claimed:
        return violated(claim, {"claimed_status": claimed, "status_of_claimed_values": want,
                                "why": "the decision is not the rule (Degenerate at zero, IllConditioned at or "
                                       "below a threshold) applied to the values it was made on"},
                        rule=NORMAL_RULE.id), use
    return None, use



@dataclass(frozen=True)
class NormalTruth:
    """The exact normal decision at one point of a float32 patch, and what its band needs.

    Attributes:
        exact: ``"Success"``, ``"Degenerate"`` or ``"IllConditioned"``, decided on exact squares
            (``|Su|^2 <= dmin^2``, ``|N|^2 <= smin^2 |Su|^2 |Sv|^2``, exact zeros).
        qu, qv, qn: the exact squares ``|Su|^2``, ``|Sv|^2``, ``|N|^2``.
        Lu, Lv, Lx: interval enclosures of ``|Su|``, ``|Sv|``, ``|N|`` at ``prec`` bits.
        N: the exact normal vector ``Su x Sv``.
        E: the patch's largest control magnitude; dmin, smin: the thresholds (mpq).
    """

    exact: str
    qu: object
    qv: object
    qn: object
    Lu: object
    Lv: object
    Lx: object
    N: list
    E: float
    dmin: object
    smin: object
    prec: int


def exact_normal(C, u, v, dmin, smin, prec: int = BUDGET[0]) -> NormalTruth:
    """The exact decision of TryEvaluateSurfaceNormal on the float32 patch ``C`` at ``(u, v)``
    with thresholds ``dmin`` (NormalMinDerivativeLength) and ``smin`` (NormalMinSinAngle):
    Degenerate for zero or parallel partials, IllConditioned at or below a threshold (spec 002
    Surfaces), on exact rationals."""
    dmin, smin = to_mpq(dmin), to_mpq(smin)
    parts = exact_partials(C, u, v)
    Su, Sv = parts[1], parts[2]
    N = exact_cross(Su, Sv)
    qu, qv, qn = _sq(Su), _sq(Sv), _sq(N)
    if qu == 0 or qv == 0 or qn == 0:
        exact = "Degenerate"
    elif qu <= dmin * dmin or qv <= dmin * dmin or qn <= smin * smin * qu * qv:
        exact = "IllConditioned"
    else:
        exact = "Success"
    return NormalTruth(exact, qu, qv, qn, enclose_length(Su, prec), enclose_length(Sv, prec),
                       enclose_length(N, prec), N, magnitude(C), dmin, smin, prec)


def decision_in_band(t: NormalTruth, claimed: str, eL, eN, uq):
    """Whether a decision ``claimed`` that differs from the exact one is within its rounding band
    (docs/decisions.md, "Surfaces: decision bands"): True, False, or None (undecided at the
    enclosures' precision). ``eL`` and ``eN`` are the error bounds of the computed lengths and
    of ``|N|`` (``reference.surface.decision_errors``), ``uq`` the unit roundoff; an exact zero
    is within every bound of zero, so every decision is within the band of an exactly
    degenerate point."""
    if claimed == t.exact:
        return True
    Lu, Lv, Lx, dmin, smin = t.Lu, t.Lv, t.Lx, t.dmin, t.smin
    if claimed == "Degenerate":
        return _any([_band_zero(Lu, eL), _band_zero(Lv, eL), _band_zero(Lx, eN)])
    if t.exact == "Degenerate":
        return True
    tests = [(t.qu <= dmin * dmin, _band(Lu, dmin, eL)), (t.qv <= dmin * dmin, _band(Lv, dmin, eL))]
    lu_lo, lv_lo = lower(Lu) - eL, lower(Lv) - eL
    if lu_lo > 0 and lv_lo > 0:
        sin_lo = lower(Lx) / (upper(Lu) * upper(Lv))
        sin_hi = upper(Lx) / (lower(Lu) * lower(Lv))
        esin = (eN + sin_hi * (eL * upper(Lv) + eL * upper(Lu) + eL * eL)) / (lu_lo * lv_lo) + to_mpq(4 * uq)
        if sin_lo >= smin - esin and sin_hi <= smin + esin:
            sband = True
        elif sin_hi < smin - esin or sin_lo > smin + esin:
            sband = False
        else:
            sband = None
    else:
        sband = True  # the sine is not determined by the computed lengths at all
    tests.append((t.qn <= smin * smin * t.qu * t.qv, sband))
    if claimed == "IllConditioned":  # exact Success: some test must be near its threshold
        return _any([b for _, b in tests])
    # claimed Success, exact IllConditioned: every failing test near its threshold
    return _all([b for test, b in tests if test])


def unit_normal_within(N, n, b):
    """The test :func:`oracles.decide.refine` runs at growing precision: whether the claimed
    normal ``n`` (three floats) lies within Euclidean distance ``b`` of the exact unit vector
    ``N / |N|`` (``N`` exact rationals, its unit vector enclosed by ``enclose_unit``): True,
    False, or None; the enclosure of the distance and its ratio to ``b`` in the Decision."""
    nq = [to_mpq(float(c)) for c in n]

    def at(p):
        unit = enclose_unit(N, p)
        err2 = sum(max(abs(c - lower(t)), abs(c - upper(t))) ** 2 for c, t in zip(nq, unit))
        err2_lo = sum(max(c - upper(t), lower(t) - c, gmpy2.mpq(0)) ** 2 for c, t in zip(nq, unit))
        r = math.sqrt(ratio(err2, b * b))
        if err2 <= b * b:
            return Decision(True, p, None, {"ratio": r})
        if err2_lo > b * b:
            return Decision(False, p, [_float(err2_lo) ** 0.5, _float(err2) ** 0.5], {"ratio": r})
        return Decision(None, p, [_float(err2_lo) ** 0.5, _float(err2) ** 0.5], {"ratio": r})

    return at


def _check_normal(claim):
    C, u, v = _patch_point(claim)
    t = exact_normal(C, u, v, dec(claim.inputs["normal_min_derivative_length"]),
                     dec(claim.inputs["normal_min_sin_angle"]))
    Lu, Lv, Lx, N, prec, exact = t.Lu, t.Lv, t.Lx, t.N, t.prec, t.exact
    Lx_lo = float(lower(Lx))
    res = resolve(claim, lambda uu, eta: [normal_bound(t.E, Lx_lo * (1 - 2**-50), uu, eta)], constant=_SURFACE_K)
    uq = res.u
    claimed = claim.value.get("status", "Success")
    if claimed not in ("Success", "Degenerate", "IllConditioned"):
        return violated(claim, {"claimed_status": claimed, "why": "a normal is Success, Degenerate or IllConditioned"},
                        rule=NORMAL_RULE.id)
    eta = dec(claim.model["eta"]) if claim.model and "eta" in claim.model else ETA_OF_U.get(uq, 2.0**-1074)
    eL, eN = (to_mpq(x) for x in decision_errors(t.E, uq, eta))
    use = 0.0
    if "decision" in claim.value:
        bad, use = _check_decision_values(claim, claim.value["decision"], claimed, Lu, Lv, Lx, eL, eN, uq, t.dmin,
                                          t.smin)
        if bad is not None:
            return bad
    counters = {}
    if claimed != exact:
        inband = decision_in_band(t, claimed, eL, eN, uq)
        if inband is False:
            return violated(claim, {"claimed_status": claimed, "exact_status": exact,
                                    "why": "decision differs outside the rounding band"}, rule=NORMAL_RULE.id,
                            **res.extra())
        if inband is None:
            return undecided(claim, None, note=f"decision {claimed} vs exact {exact}: band undecided", prec=prec)
        counters["decision_differs"] = 1
    if claimed != "Success":
        return verified(claim, measure="error_ratio", measured=0.0, prec=prec, bound_use=use,
                        note=f"{claimed} (exact {exact})", **counters, **res.extra())
    n = array(claim.value["normal"])
    if n.shape != (3,):
        raise ValueError("a normal has three components")
    length_err = abs(_sq([to_mpq(float(x)) for x in n]) - 1)
    if length_err > to_mpq(64 * uq):  # |n|^2 - 1 of a computed unit vector: a few roundings
        return violated(claim, {"normal_length_squared_minus_one": _float(length_err)}, rule=UNIT_NORMAL.id,
                        **res.extra())
    if exact == "Degenerate":
        return verified(claim, measure="error_ratio", measured=0.0, prec=prec, bound_use=use,
                        note="no exact direction: the value is not judged", **counters, **res.extra())
    b = res.bound[0]
    d = refine(unit_normal_within(N, n, b), BUDGET)
    r = d.detail["ratio"]
    if d.holds is True:
        return verified(claim, measure="error_ratio", measured=r, prec=d.prec, bound_use=max(r, use), **counters,
                        **res.extra())
    if d.holds is False:
        return violated(claim, {"error_interval": d.enclosure, "bound": _float(b)}, measure="error_ratio",
                        measured=r, prec=d.prec, bound_use=r, rule=BOUNDS.id, **res.extra())
    return undecided(claim, d.enclosure, prec=d.prec, bound_use=r)


def _check_edge(claim):
    inp = claim.inputs
    A = array(inp["first"], np.float32)
    B = array(inp["second"], np.float32)
    if A.shape != (2, 4, 3) or B.shape != (2, 4, 3) or not isinstance(inp["is_reversed"], bool):
        raise ValueError("an edge claim needs first and second rows (2, 4, 3) and is_reversed")
    thr = to_mpq(dec(inp["continuity_derivative"]))
    E = max(magnitude(A), magnitude(B))
    res = resolve(claim, lambda uu, eta: [edge_value_bound(E, uu, eta)] * 2, constant=_SURFACE_K)
    qa = [[3 * (to_mpq(float(b)) - to_mpq(float(i))) for b, i in zip(A[0, k], A[1, k])] for k in range(4)]
    qb = [[3 * (to_mpq(float(b)) - to_mpq(float(i))) for b, i in zip(B[0, k], B[1, k])] for k in range(4)]
    qbm = qb[::-1] if inp["is_reversed"] else qb
    diff2 = max(_sq([x + y for x, y in zip(a, b)]) for a, b in zip(qa, qbm))
    scale2 = max(max(_sq(a) for a in qa), max(_sq(b) for b in qb))
    prec = BUDGET[0]
    Ld, Ls = enclose_sqrt(diff2, prec), enclose_sqrt(scale2, prec)
    got_d, got_s = to_mpq(dec(claim.value["difference"])), to_mpq(dec(claim.value["scale"]))
    bd, bs = res.bound
    worst = 0.0
    for got, L, b, name in ((got_d, Ld, bd, "difference"), (got_s, Ls, bs, "scale")):
        e_lo, e_hi, ok = _value_error(got, L, b)
        worst = max(worst, ratio(e_hi, b))
        if ok is False:
            return violated(claim, {"field": name, "error": [_float(e_lo), _float(e_hi)], "bound": _float(b)},
                            measure="error_ratio", measured=ratio(e_hi, b), bound_use=ratio(e_lo, b), rule=BOUNDS.id,
                            **res.extra())
        if ok is None:
            return undecided(claim, [_float(e_lo), _float(e_hi)], note=f"{name} error undecided", prec=prec,
                             bound_use=ratio(e_hi, b))
    if not isinstance(claim.value["is_c1"], bool):
        raise ValueError("is_c1 must be a bool")
    claimed_c1 = claim.value["is_c1"]
    # The rule on the claimed values: difference <= threshold * scale, the product rounded once
    # (either answer within one rounding of it; none at an exact tie such as 0 <= t * 0).
    prod = thr * got_s
    if got_d < prod * (1 - to_mpq(2 * res.u)) or got_d > prod * (1 + to_mpq(2 * res.u)) or got_d == prod:
        want = got_d <= prod
        # At an exact tie the inclusive test is a decision of ours (the spec does not say).
        tie = got_d == prod
        if claimed_c1 is not want and (not tie or binding(C1_AT_EQUALITY)):
            return violated(claim, {"claimed_is_c1": claimed_c1, "is_c1_of_claimed_values": want,
                                    "why": "is_c1 is not difference <= continuity_derivative * scale on the claimed "
                                           "values"}, measure="error_ratio", measured=worst,
                            rule=C1_AT_EQUALITY.id if tie else C1_RULE.id, **res.extra())
    exact_c1 = diff2 <= thr * thr * scale2
    counters = {}
    if claimed_c1 is not exact_c1:
        slack = bd + thr * bs + thr * upper(Ls) * to_mpq(2 * res.u)
        inband = _band(Ld, thr * lower(Ls), slack + thr * (upper(Ls) - lower(Ls)))
        if inband is False:
            return violated(claim, {"claimed_is_c1": claimed_c1, "exact_is_c1": exact_c1,
                                    "why": "decision differs outside the rounding band"},
                            measure="error_ratio", measured=worst, rule=C1_RULE.id, **res.extra())
        if inband is None:
            return undecided(claim, None, note="is_c1 band undecided", prec=prec)
        counters["decision_differs"] = 1
    return verified(claim, measure="error_ratio", measured=worst, prec=prec, bound_use=worst, **counters,
                    **res.extra())


@judged
def check_evaluation(claim: Claim):
    """Rounded: samples, unit normals (with the Degenerate / IllConditioned decision) and edge
    continuity values (with ``is_c1``) within the surface error models; decisions agree with
    the exact decision outside the rounding band."""
    kind = claim.inputs.get("kind")
    if kind == "sample":
        return _check_sample(claim)
    if kind == "normal":
        return _check_normal(claim)
    if kind == "edge":
        return _check_edge(claim)
    raise ValueError(f"unknown surface.evaluation kind {kind!r}")
