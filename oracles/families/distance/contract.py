"""Distance rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, the
two arc-length oracles, and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc

__all__ = ["CONTRACTS", "plant_bounds", "plant_inversion", "plant_estimate"]

_CONTROLS = S.matrix(S.f32(), [None, 4, 3])
_AT = {"span": S.integer(minimum=0), "u": S.f64()}
_LEAF = {"range": S.const("leaf"), "span": S.integer(minimum=0), "u0": S.f64(), "u1": S.f64()}
_TOTAL = {"range": S.const("total"), **_AT}
_ERR = {"controls": _CONTROLS, "distance_error": S.f64(nonnegative=True)}
_BOUNDS = S.obj(required={"lower": S.f64(), "upper": S.f64()})
_IV = {"lower": S.f64(), "upper": S.f64()}
_NODE = S.obj(required={**_AT, "estimate": S.f64()})


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
        inputs=S.any_of(S.obj(required={**_ERR, **_LEAF}), S.obj(required={**_ERR, **_TOTAL})),
        value=_BOUNDS,
        plant=plant_bounds,
        oracles=_ARC_ORACLES,
    ),
    "distance.prefix_bounds": RowContract(
        checks=("Certified: the true prefix length L(span, u) from the path start lies in [lower, upper] (the same "
                "two arc-length oracles); measured (upper - lower) / distance_error."),
        inputs=S.obj(required={**_ERR, **_AT}),
        value=_BOUNDS,
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
        inputs=S.obj(required={**_ERR, **_AT, "query": S.f64(), "policy": S.enum(["Reject", "Clamp", "Wrap"]),
                               "total_estimate": S.f64(nonnegative=True)}),
        value=S.obj(required={"residual_bound": S.f64(nonnegative=True), "distance": S.f64()},
                    optional={"bound": S.obj(required={**_IV, "estimate": S.f64()}),
                              "lookup": S.obj(required={"after": _NODE}, optional={"before": _NODE}),
                              "short": _NODE}),
        plant=plant_inversion,
        oracles=_ARC_ORACLES,
    ),
    "distance.estimates": RowContract(
        checks=("Estimated: lower <= estimate <= upper exactly, and the true length the inputs name (a leaf, the "
                "total, or a prefix) inside [lower, upper]; measured |estimate - L| / L."),
        inputs=S.any_of(
            S.obj(required={"controls": _CONTROLS, **_LEAF, **_IV, "what": S.const("leaf estimate")}),
            S.obj(required={"controls": _CONTROLS, **_TOTAL, **_IV, "what": S.const("TotalEstimate")}),
            S.obj(required={"controls": _CONTROLS, **_AT, **_IV,
                            "what": S.enum(["PrefixEstimate", "DistanceBound.Estimate"])})),
        value=S.obj(required={"estimate": S.f64()}),
        plant=plant_estimate,
        oracles=_ARC_ORACLES,
    ),
}
