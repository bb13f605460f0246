"""Surface rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, and
a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import numpy as np

from interval.surface import CORNER_NAMES, SIDE_NAMES

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc
from .checks import array
from .checks_evaluation import SAMPLE_NAMES, magnitude

__all__ = ["CONTRACTS", "NETWORK_SCHEMA"]


def _replace(claim, value):
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _next32(x) -> str:
    return enc(float(np.nextafter(np.float32(dec(x)), np.float32(np.inf))))


def _plant_edges(claim):
    v = claim.value
    if "mapped" in v:  # one mapped parameter one float64 ulp off (or the other failure status)
        mapped = [list(m) if isinstance(m, list) else m for m in v["mapped"]]
        k = next((i for i, m in enumerate(mapped) if isinstance(m, list)), None)
        if k is None:
            other = {"InvalidArgument": "InvalidDomain"}.get(mapped[0]["status"], "InvalidArgument")
            return _replace(claim, {"mapped": [{"status": other}] + mapped[1:]})
        first = list(mapped[k][0])
        first[3] = enc(float(np.nextafter(dec(first[3]), 2.0)))
        mapped[k] = [first] + mapped[k][1:]
        return _replace(claim, {"mapped": mapped})
    if "edges" in v:
        edges = [dict(e) for e in v["edges"]]
        curve = [list(r) for r in edges[0]["curve"]]
        curve[1][0] = _next32(curve[1][0])
        edges[0]["curve"] = curve
        return _replace(claim, {"edges": edges})
    other = next(r for r in ("mismatched_curve", "partial_join") if r != v.get("rule"))
    return _replace(claim, {**v, "rule": other})


def _plant_corners(claim):
    corners = [dict(c) for c in claim.value["corners"]]
    pos = list(corners[0]["position"])
    pos[0] = _next32(pos[0])
    corners[0]["position"] = pos
    return _replace(claim, {"corners": corners})


def _plant_evaluation(claim):
    v, kind = claim.value, claim.inputs["kind"]
    if kind == "sample":
        E = magnitude(array(claim.inputs["controls"], np.float32))
        p = [dec(x) for x in v["position"]]
        p[0] += 1e-3 * (E + 1.0)
        return _replace(claim, {**v, "position": enc(np.array(p))})
    if kind == "normal":
        return _replace(claim, {"normal": enc(np.array([10.0, 0.0, 0.0]))})
    d = dec(v["difference"])
    return _replace(claim, {**v, "difference": enc(d + 1.0 + 1e-3 * abs(d) + 1e-3 * dec(v["scale"]))})


_SIDE = S.enum(SIDE_NAMES)
_CORNER = S.enum(CORNER_NAMES)
_ID = S.integer(minimum=0, maximum=2**64 - 1)
_NETWORK = S.obj(required={
    "ids": S.array(_ID, min_items=1),
    "source": S.matrix(S.f64(), [None, 4, 4, 3]),
    "origin": S.vec(S.f64(), 3),
    "joins": S.array(S.vec(S.any_of(S.integer(), _SIDE, S.boolean()), 5)),
})
NETWORK_SCHEMA = _NETWORK  # a network's inputs (the tessellation family's claims carry one too)
_EDGE_PARAMETER_INPUTS = S.obj(required={
    **_NETWORK["properties"],
    "edge_parameters": S.array(S.vec(S.any_of(_ID, _SIDE, S.f64()), 3)),
})
_INCIDENCE = S.vec(S.any_of(S.integer(minimum=0), _ID, _SIDE, S.boolean()), 4)
_EDGES_VALUE = S.any_of(
    S.obj(required={"edges": S.array(S.obj(required={
        "id": S.vec(S.any_of(_ID, _SIDE), 2),
        "curve": S.matrix(S.f32(), [4, 3]),
        "incidences": S.array(_INCIDENCE, min_items=1, max_items=2),
        "orientation_consistent": S.any_of(S.boolean(), {"type": "null"}),
    }))}),
    S.obj(required={"status": S.enum(["InvalidTopology", "UnsupportedPrecision"])},
          optional={"rule": S.string(), "index": S.any_of(S.integer(), {"type": "null"})}),
    S.obj(required={"mapped": S.array(S.any_of(
        S.array(S.vec(S.any_of(S.integer(minimum=0), _ID, _SIDE, S.f64()), 5), min_items=1, max_items=2),
        S.obj(required={"status": S.enum(["InvalidArgument", "InvalidDomain"])})))}),
)
_CORNERS_VALUE = S.obj(required={"corners": S.array(S.obj(required={
    "id": S.vec(S.any_of(_ID, _CORNER), 2),
    "position": S.vec(S.f32(), 3),
    "incidences": S.array(S.vec(S.any_of(_ID, _CORNER), 3), min_items=1),
}))})
_POINT = {"controls": S.matrix(S.f32(), [4, 4, 3]), "u": S.f64(), "v": S.f64()}
_EVAL_INPUTS = S.any_of(
    S.obj(required={"kind": S.const("sample"), **_POINT}),
    S.obj(required={"kind": S.const("normal"), **_POINT,
                    "normal_min_derivative_length": S.f64(nonnegative=True),
                    "normal_min_sin_angle": S.f64(nonnegative=True)}),
    S.obj(required={"kind": S.const("edge"), "first": S.matrix(S.f32(), [2, 4, 3]),
                    "second": S.matrix(S.f32(), [2, 4, 3]), "is_reversed": S.boolean(),
                    "continuity_derivative": S.f64(nonnegative=True)}),
)
_V3 = S.vec(S.f64(), 3)
_DECISION = {"decision": S.obj(required={"su": S.f64(nonnegative=True), "sv": S.f64(nonnegative=True),
                                         "cross": S.f64(nonnegative=True), "sine": S.f64(finite=False)})}
_EVAL_VALUE = S.any_of(
    S.obj(required={k: _V3 for k in SAMPLE_NAMES}),
    S.obj(required={"normal": _V3}, optional=_DECISION),
    S.obj(required={"status": S.enum(["Degenerate", "IllConditioned"])}, optional=_DECISION),
    S.obj(required={"difference": S.f64(nonnegative=True), "scale": S.f64(nonnegative=True), "is_c1": S.boolean()}),
)

CONTRACTS = {
    "surface.shared_edges": RowContract(
        checks="Every edge record (owner id, canonical float32 curve, incidences with reversal, "
               "orientation consistency) or the InvalidTopology rule and join equals an exact rational "
               "replay of the narrowing and of the V1 topology rules; TryMapEdgeParameter gives each "
               "incidence, owner first, the (u, v) of s (of fl64(1 - s) when reversed) exactly.",
        inputs=S.any_of(_NETWORK, _EDGE_PARAMETER_INPUTS), value=_EDGES_VALUE, plant=_plant_edges),
    "surface.corners": RowContract(
        checks="Every corner record (smallest (patch id, corner) id, exact float32 position, incident "
               "patch corners) equals the connected components of patch corners through the joins, "
               "recomputed in exact rationals.",
        inputs=_NETWORK, value=_CORNERS_VALUE, plant=_plant_corners),
    "surface.evaluation": RowContract(
        checks="Positions and partials per component within 32 (u M E + eta) (M = 1, 6, 6, 24, 36, 24) of "
               "exact rationals; unit normals within 2 eN / (|N| - eN) + 32 u of interval enclosures of N/|N|; "
               "edge continuity values within 32 (21 u E + eta) + sqrt(2 eta); Degenerate, IllConditioned "
               "and is_c1 decisions equal the exact decision outside the rounding band of their thresholds, "
               "and equal the rule applied exactly to the values they were made on (is_c1: difference <= "
               "threshold x scale within one rounding of the product; a normal's claimed |Su|, |Sv|, "
               "|Su x Sv| within e_len, e_len, e_cross of exact and its sine their quotient within 4 u).",
        inputs=_EVAL_INPUTS, value=_EVAL_VALUE, plant=_plant_evaluation, model=S.MODEL),
}
