"""Projection rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence,
the two oracles of the minimum distance, and a planted false claim
(``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import math

import gmpy2
import numpy as np

from interval.projection import exact_squared_distance

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, dec_array, enc
from .checks import EVAL_K

__all__ = ["CONTRACTS", "plant_approximate", "plant_strict"]

_INPUTS = S.obj(required={
    "controls": S.matrix(S.f32(), [None, 4, 3], doc=(
        "Yours: every span's four prepared controls (n x 4 x 3), chunk-relative float32.")),
    "origin": S.vec(S.f64(), 3, doc="Given: the path's chunk origin (float64 asset coordinates)."),
    "point": S.vec(S.f64(), 3, doc=(
        "Given: ProjectionQuery.Point in float64 asset coordinates (not chunk-relative: q = point - origin).")),
    "projection_gap": S.f64(positive=True, doc=(
        "Given: ToleranceProfile.ProjectionGap, asset units: a distance, not squared.")),
    "max_iterations": S.integer(minimum=0, doc="Given: ProjectionQuery.MaxIterations."),
}, optional={
    # absent: the terminal-endpoint rules are not checked
    "is_closed": S.boolean(doc="Given: whether the path is closed (absent: the terminal-endpoint rules are not "
                               "checked)."),
})
_RESULT = {
    "span": S.integer(minimum=0, doc="ProjectionResult: the span of the nearest candidate."),
    "u": S.f64(finite=False, doc="Its parameter u, [0, 1] (u = 1 only at an open path's terminal endpoint)."),
    "distance": S.f64(finite=False, doc=(
        "Distance: the Euclidean distance |q - B(u)| in asset units (not squared); Certified rows: an upper bound "
        "of the exact distance at (span, u).")),
    "lower_bound": S.f64(finite=False, doc="LowerBound: a Certified lower bound of the global minimum distance."),
    "gap": S.f64(finite=False, doc="Gap: a Certified bound of Distance - LowerBound, asset units."),
    "is_gap_met": S.boolean(doc="IsGapMet: whether Gap <= ProjectionGap."),
    "iterations": S.integer(minimum=0, doc="Iterations: the splits the search made (at most max_iterations)."),
}


def _with(claim: Claim, **changes) -> Claim:
    value = dict(claim.value)
    value.update({k: (enc(v) if isinstance(v, float) else v) for k, v in changes.items()})
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _halving_is_false(claim: Claim) -> bool:
    """Whether half the claimed distance is below the exact distance at the claimed parameter."""
    i, v = claim.inputs, claim.value
    d = dec(v["distance"])
    try:
        f = exact_squared_distance(dec_array(i["controls"], np.float32), dec_array(i["origin"]),
                                   dec_array(i["point"]), v["span"], dec(v["u"]))
    except (ValueError, TypeError):
        return False
    return math.isfinite(d) and gmpy2.mpq(d / 2) ** 2 < f


def plant_strict(claim: Claim) -> Claim:
    """A result whose distance and lower bound were halved (a dropped factor of two): the
    distance falls below the exact distance at the parameter. Where the point is on the curve
    at the parameter, halving is no fault, so it claims a lower bound above the distance found."""
    d, lb = dec(claim.value["distance"]), dec(claim.value["lower_bound"])
    if _halving_is_false(claim):
        return _with(claim, distance=d / 2, lower_bound=lb / 2)
    big = 2 * abs(d) + 1.0
    return _with(claim, lower_bound=big, distance=big, gap=0.0)


def plant_approximate(claim: Claim) -> Claim:
    """The issue's claim: the distance halved and the gap declared met (``is_gap_met`` true,
    Guarantee Certified, a gap that fits). Where the point is on the curve at the parameter it
    declares the gap met with a gap wider than ProjectionGap."""
    d, lb = dec(claim.value["distance"]), dec(claim.value["lower_bound"])
    if _halving_is_false(claim):
        d2, lb2 = d / 2, min(lb / 2, d / 2)
    else:
        d2, lb2 = abs(d) + 4 * dec(claim.inputs["projection_gap"]) + 1.0, min(lb, 0.0)
    return _with(claim, distance=d2, lower_bound=lb2, gap=d2 - lb2, is_gap_met=True, result_guarantee="Certified")


# The two oracles of the minimum distance ("Projection: two oracles").
_MIN_ORACLES = ("real-root isolation of d/du |B(u) - q|^2 (python-flint fmpq_poly, Arb balls)",
                "interval branch and bound over Bernstein ranges (mpmath iv)")

CONTRACTS = {
    "projection.strict": RowContract(
        checks=("Certified strict projection: 0 <= span < n, 0 <= u <= 1 with u = 1 only at an open path's "
                "terminal endpoint (span n - 1), Iterations <= MaxIterations, IsGapMet, Gap <= ProjectionGap "
                "and Distance - LowerBound <= Gap exactly, Distance^2 >= |q - B_span(u)|^2 in exact "
                "rationals (q = point - origin); the earliest rule: no span start (k, 0) before (span, u) "
                "with |q - P_k0| + R_k <= LowerBound + ProjectionGap (1 - 2^-48) (R_k the evaluation "
                "allowance of the approximate row), and no exact mirror twin (an earlier span equal to this "
                "one reversed and reflected in a coordinate plane through the origin that holds q) unless "
                "u = 0; and LowerBound <= min_u |q - B(u)| shown by exact real-root isolation of "
                "d/du |B(u) - q|^2 (python-flint Arb, 128/256/1024 bits), cross-checked by an interval "
                "branch and bound over Bernstein ranges (113 then 256 bits): disjoint enclosures are an "
                "oracle fault."),
        inputs=_INPUTS,
        value=S.obj(required=_RESULT, doc="TryProjectPoint's ProjectionResult."),
        plant=plant_strict,
        oracles=_MIN_ORACLES,
    ),
    "projection.approximate": RowContract(
        checks=("Approximate projection: the parameter exists (u = 1 only at an open path's terminal endpoint) "
                "and Iterations <= MaxIterations; Guarantee is Approximate iff IsGapMet is false; with IsGapMet "
                "true every strict check applies; otherwise |Distance - |q - B_span(u)|| <= R with "
                "R = sum_c (2 e_c + 6u|q_c|) + 8u|Distance| + 16 eta, e_c = 16u E_c + 16 eta (E_c the span's "
                "largest control magnitude; u = 2^-53 unless a model is declared), Distance - LowerBound <= "
                "Gap, Gap > ProjectionGap, the earliest best candidate: no span start (nor, on an open path, "
                "the terminal endpoint) with |q - P| + R_k < Distance (1 - 2^-48) and no earlier exact "
                "mirror twin, and LowerBound <= the true minimum (the strict row's two oracles)."),
        inputs=_INPUTS,
        value=S.obj(required={**_RESULT, "result_guarantee": S.enum(["Certified", "Approximate"], doc=(
            "ProjectionResult.Guarantee: Approximate exactly when is_gap_met is false."))},
                    doc="ProjectPointApproximate's ProjectionResult."),
        plant=plant_approximate,
        oracles=_MIN_ORACLES,
        model=S.model("1: R, the bound of |Distance - |q - B(u)|| when the gap is not met", EVAL_K),
    ),
}
