"""Distance rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, the
two arc-length oracles, and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc

__all__ = ["CONTRACTS", "plant_bounds", "plant_estimate", "plant_inversion"]

_CONTROLS = S.matrix(S.f32(), [None, 4, 3], doc=(
    "Yours: every span's four prepared controls (n x 4 x 3), chunk-relative float32: the path the map was built "
    "on."))
_AT = {"span": S.integer(minimum=0, doc="Given: the span index of the parameter."),
       "u": S.f64(doc="Given: the parameter u within the span, [0, 1] (normalized, not a distance).")}
_LEAF = {"range": S.const("leaf", doc="Given: the bounds are a leaf's."),
         "span": S.integer(minimum=0, doc="Yours: the leaf's span index."),
         "u0": S.f64(doc="Yours: the leaf's first parameter; a leaf is a dyadic [j 2^-d, (j + 1) 2^-d] of its span."),
         "u1": S.f64(doc="Yours: the leaf's last parameter.")}
_TOTAL = {"range": S.const("total", doc="Given: the bounds are the whole path's (TotalLower, TotalUpper)."),
          "span": S.integer(minimum=0, doc="Given: n - 1, the last span (the total is the prefix at the path end)."),
          "u": S.f64(doc="Given: 1, the path end.")}
_ERR = {"controls": _CONTROLS, "distance_error": S.f64(nonnegative=True, doc=(
    "Given: the path's ToleranceProfile.DistanceError, asset units: the largest Certified gap TotalUpper - "
    "TotalLower of the map, and the largest inversion residual."))}
_BOUNDS = S.obj(required={"lower": S.f64(doc="The Certified lower bound of the true arc length, asset units."),
                          "upper": S.f64(doc="The Certified upper bound of the true arc length, asset units.")})
_EST_ERR = {"distance_error": S.f64(nonnegative=True, doc=(
    "Given: the path's ToleranceProfile.DistanceError, asset units. With it, a leaf's, the total's or a stored "
    "prefix's interval must be at most that wide (the build splits until the whole-path gap fits), so the estimate "
    "is within DistanceError of the truth; without it the width is not judged."))}
_IV = {"lower": S.f64(doc=(
    "Yours: the Certified lower bound your implementation reported for the same length (the leaf's or total "
    "lower bound, or TryBoundDistance's lower), asset units. A producer with only an estimate: see the example "
    "below.")),
       "upper": S.f64(doc="Yours: the matching Certified upper bound, asset units.")}
_NODE = S.obj(required={"span": S.integer(minimum=0, doc="The stored parameter's span."),
                        "u": S.f64(doc="The stored parameter's u."),
                        "estimate": S.f64(doc="The prefix estimate stored at that parameter, asset units.")})


def _replace(claim: Claim, value=None, inputs=None) -> Claim:
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def _past(x: float) -> float:
    """A float64 clearly above ``x`` (relative 2^-10 plus 2^-30): outside any honest bracket."""
    return float(x + abs(x) * 2.0**-10 + 2.0**-30)


def plant_bounds(claim: Claim) -> Claim:
    """The bracket moved wholly above the truth (a length of the wrong leaf, or an offset)."""
    hi = _past(dec(claim.value["upper"]))
    return _replace(claim, {"lower": enc(hi), "upper": enc(_past(hi))})


def plant_inversion(claim: Claim) -> Claim:
    """The parameter kept while the query moved by four distance errors (a resolution that
    answers a different target); the resolved distance moves with it, and the witnesses of the
    lookup are dropped (they belong to the old target). When the domain is too short for
    that, the residual bound exceeds distance_error instead."""
    E = dec(claim.inputs["distance_error"])
    T = dec(claim.inputs["total_estimate"])
    s = dec(claim.value["distance"])
    shift = 4 * E + 2 * dec(claim.value["residual_bound"])
    core = {"residual_bound": claim.value["residual_bound"], "distance": claim.value["distance"]}
    for t in (s + shift, s - shift):
        if 0.0 <= t <= T and shift > 0:
            return _replace(claim, {**core, "distance": enc(t)},
                            {**claim.inputs, "query": enc(t), "policy": "Reject"})
    return _replace(claim, {**core, "residual_bound": enc(_past(2 * E))})


def plant_estimate(claim: Claim) -> Claim:
    """The estimate above its Certified interval (an estimate not clamped into its bounds)."""
    return _replace(claim, {"estimate": enc(_past(dec(claim.inputs["upper"])))})


# The two arc-length oracles ("Arc length: the Arb oracle, and two oracles in the distance checkers").
_ARC_ORACLES = ("Arb Gauss-Legendre integration of |B'| (python-flint acb.integral)",
                "Taylor series of |B'| with a Cauchy remainder (mpmath iv; every piece with a zero-speed "
                "point or on a line, 1 in 8 smooth pieces)")

CONTRACTS = {
    "distance.length_bounds": RowContract(
        checks=("Certified: the true arc length of the leaf [u0, u1] of the span (range leaf), or of the whole path "
                "(range total: the prefix at span n - 1, u = 1), lies in [lower, upper], shown by Arb's rigorous "
                "Gauss-Legendre integration of the speed, cross-checked against Taylor integration with a Cauchy "
                "remainder (disjoint enclosures: OracleFault), at 113, 256 then 1024 bits; a total's width is at "
                "most distance_error; a leaf is [j 2^-d, (j + 1) 2^-d] (midpoint splits); measured "
                "(upper - lower) / distance_error."),
        inputs=S.any_of(S.obj(required={**_ERR, **_LEAF}, doc="A leaf of the map."),
                        S.obj(required={**_ERR, **_TOTAL}, doc="The whole path."),
                        doc="Which length is bounded: a leaf, or the whole path."),
        value=S.described(_BOUNDS, "The Certified interval [lower, upper] of that length (asset units, not squared)."),
        plant=plant_bounds,
        oracles=_ARC_ORACLES,
    ),
    "distance.prefix_bounds": RowContract(
        checks=("Certified: the true prefix length L(span, u) from the path start lies in [lower, upper] (the same "
                "two arc-length oracles); measured (upper - lower) / distance_error."),
        inputs=S.obj(required={**_ERR, **_AT}),
        value=S.described(_BOUNDS, "TryBoundDistance's Certified interval of the prefix length L(span, u) from the "
                                   "path start, asset units."),
        plant=plant_bounds,
        oracles=_ARC_ORACLES,
    ),
    "distance.inversion_residual": RowContract(
        checks=("Certified: residual_bound <= distance_error, |distance - target| <= residual_bound and "
                "|L(span, u) - target| <= residual_bound, with the target recomputed exactly from query, policy "
                "(Reject inside [0, T], Clamp, Wrap: the floored remainder modulo T) and T = total_estimate; the "
                "path end resolves to (n - 1, 1), an exact boundary names the outgoing span at u = 0, a zero-length "
                "run resolves to its earliest parameter; with the optional lookup witness, before.estimate < "
                "distance <= after.estimate, a distance equal to after.estimate resolves to that boundary, else "
                "short (the bisection's last short parameter, within 2^-60 or one float before the result) has "
                "an estimate below distance; with the optional bound, the truth inside it, lower <= estimate <= "
                "upper, estimate >= distance and residual_bound >= max(upper - target, target - lower); measured "
                "|L - target| / residual_bound."),
        inputs=S.obj(required={
            **_ERR,
            "span": S.integer(minimum=0, doc="Yours: the resolved parameter's span (DistanceResolution)."),
            "u": S.f64(doc="Yours: the resolved parameter's u, [0, 1]."),
            "query": S.f64(doc=("Given: DistanceQuery.Distance, the target distance from the path start (asset "
                                "units), before its policy.")),
            "policy": S.enum(["Reject", "Clamp", "Wrap"], doc=(
                "Given: the query's BoundaryPolicy: Reject resolves only inside [0, total_estimate]; Clamp takes "
                "the nearer end; Wrap the floored remainder modulo total_estimate.")),
            "total_estimate": S.f64(nonnegative=True, doc=(
                "Yours: the map's TotalEstimate, asset units (an Estimated value: the PathDistance domain is "
                "[0, TotalEstimate]; a producer reports its own)."))}),
        value=S.obj(required={
            "residual_bound": S.f64(nonnegative=True, doc=(
                "DistanceResolution.ResidualBound: a Certified bound of |L(span, u) - target|, asset units; at most "
                "distance_error.")),
            "distance": S.f64(doc="The resolved distance: the target after the policy, asset units.")},
                    optional={"bound": S.obj(required={
                        "lower": S.f64(doc="TryBoundDistance's Certified lower prefix bound at the result."),
                        "upper": S.f64(doc="Its Certified upper prefix bound."),
                        "estimate": S.f64(doc="Its prefix estimate (must reach distance).")},
                        doc="Optional: TryBoundDistance at the resolved parameter."),
                              "lookup": S.obj(required={"after": S.described(_NODE, (
                                  "The first stored leaf boundary whose prefix estimate reaches the target."))},
                                              optional={"before": S.described(_NODE, (
                                                  "The stored boundary before it (absent only at the path start)."))},
                                              doc="Optional witness of the monotone lookup over prefix estimates."),
                              "short": S.described(_NODE, (
                                  "Optional: the bisection's last parameter that fell short of the target (within "
                                  "2^-60 or one float before the result) and its estimate."))}),
        plant=plant_inversion,
        oracles=_ARC_ORACLES,
    ),
    "distance.estimates": RowContract(
        checks=("Estimated: lower <= estimate <= upper exactly, and the true length the inputs name (a leaf, the "
                "total, or a prefix) inside [lower, upper]; with distance_error, upper - lower <= distance_error + "
                "2^-30 upper for a leaf, the total and a stored prefix; measured |estimate - L| / L."),
        inputs=S.any_of(
            S.obj(required={"controls": _CONTROLS, **_LEAF, **_IV,
                            "what": S.const("leaf estimate", doc="Given: a leaf's length estimate.")},
                  optional=_EST_ERR, doc="A leaf's estimate."),
            S.obj(required={"controls": _CONTROLS, **_TOTAL, **_IV,
                            "what": S.const("TotalEstimate", doc="Given: the map's TotalEstimate.")},
                  optional=_EST_ERR, doc="The map's TotalEstimate."),
            S.obj(required={"controls": _CONTROLS, **_AT, **_IV,
                            "what": S.enum(["PrefixEstimate", "DistanceBound.Estimate"], doc=(
                                "Given: which prefix estimate (at a stored boundary, or TryBoundDistance's)."))},
                  optional=_EST_ERR, doc="A prefix estimate L(span, u)."),
            doc="Which estimate, of which length, with its Certified interval."),
        value=S.obj(required={"estimate": S.f64(doc="The Estimated length, asset units.")}),
        plant=plant_estimate,
        oracles=_ARC_ORACLES,
    ),
}
