"""Surface rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, and
a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import numpy as np

from interval.surface import CORNER_NAMES, SIDE_NAMES
from reference.surface import SURFACE_K

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
    "ids": S.array(_ID, min_items=1, doc="Given: each patch's author Id (unique u64), in source order."),
    "source": S.matrix(S.f64(), [None, 4, 4, 3], doc=(
        "Given: each patch's float64 controls Control[u][v] (n x 4 x 4 x 3), asset coordinates.")),
    "origin": S.vec(S.f64(), 3, doc="Given: the chunk origin subtracted before narrowing (float64)."),
    "joins": S.array(S.vec(S.any_of(S.integer(), _SIDE, S.boolean()), 5), doc=(
        "Given: the SurfaceAdjacencySource records, each [first_patch, first_side, second_patch, second_side, "
        "is_reversed]: patch indices in source order, sides U0/U1/V0/V1 (the along-edge parameter s is v on U0 "
        "and U1, u on V0 and V1).")),
}, doc="Given: the SurfaceSource.")
NETWORK_SCHEMA = _NETWORK  # a network's inputs (the tessellation family's claims carry one too)
_EDGE_PARAMETER_INPUTS = S.obj(required={
    **_NETWORK["properties"],
    "edge_parameters": S.array(S.vec(S.any_of(_ID, _SIDE, S.f64()), 3), doc=(
        "Given: the TryMapEdgeParameter calls, each [patch_id, side, s]: a SurfaceEdgeId and the canonical edge "
        "parameter s, in the order of value.mapped.")),
}, doc="Given: the SurfaceSource and the edge parameters mapped on it.")
_INCIDENCE = S.vec(S.any_of(S.integer(minimum=0), _ID, _SIDE, S.boolean()), 4)
_EDGES_VALUE = S.any_of(
    S.obj(required={"edges": S.array(S.obj(required={
        "id": S.vec(S.any_of(_ID, _SIDE), 2, doc=(
            "SurfaceEdgeId: the owner's [patch_id, side], the owner being the incidence with the smallest "
            "(patch id, side).")),
        "curve": S.matrix(S.f32(), [4, 3], doc=(
            "The canonical control curve: the owner side's narrowed float32 controls, chunk-relative, in its s "
            "order.")),
        "incidences": S.array(_INCIDENCE, min_items=1, max_items=2, doc=(
            "The owner first, then the other side of a shared edge: each [patch index, patch_id, side, "
            "is_reversed].")),
        "orientation_consistent": S.any_of(S.boolean(), {"type": "null"}, doc=(
            "IsOrientationConsistent of a shared edge (whether the two patches' Su x Sv normals agree in "
            "orientation); null on a boundary edge.")),
    }), doc="Every SurfaceEdge of the prepared surface, in the view's order.")}, doc="TryPrepareSurface's edges."),
    S.obj(required={"status": S.enum(["InvalidTopology", "UnsupportedPrecision"], doc="The preparation's failure.")},
          optional={"rule": S.string(doc=(
              "The topology rule broken (the diagnostic's field: mismatched_curve, partial_join, ...).")),
                    "index": S.any_of(S.integer(), {"type": "null"}, doc="The join (or patch) index it names.")},
          doc="A rejected source."),
    S.obj(required={"mapped": S.array(S.any_of(
        S.array(S.vec(S.any_of(S.integer(minimum=0), _ID, _SIDE, S.f64()), 5), min_items=1, max_items=2,
                doc="A mapped parameter: one entry per incidence, owner first."),
        S.obj(required={"status": S.enum(["InvalidArgument", "InvalidDomain"], doc="The call's status.")},
              doc="A failed call.")), doc=(
            "Per edge parameter of the inputs: each incidence, owner first, as [patch index, patch_id, side, u, "
            "v] (the patch's (u, v) of s, of fl64(1 - s) when reversed), or {status} of a failed call."))},
          doc="TryMapEdgeParameter's results."),
    doc="The edge records, a rejection, or mapped edge parameters.")
_CORNERS_VALUE = S.obj(required={"corners": S.array(S.obj(required={
    "id": S.vec(S.any_of(_ID, _CORNER), 2, doc="The smallest [patch_id, corner] of the record (corners U0V0, "
                                               "U1V0, U0V1, U1V1)."),
    "position": S.vec(S.f32(), 3, doc="The corner's one exact position: the narrowed float32 control, "
                                      "chunk-relative."),
    "incidences": S.array(S.vec(S.any_of(_ID, _CORNER), 3), min_items=1, doc=(
        "Every incident patch corner, [patch index, patch_id, corner].")),
}), doc="Every SurfaceCorner: corners joined through shared edges form one record.")})
_POINT = {"controls": S.matrix(S.f32(), [4, 4, 3], doc=(
              "Yours: the patch's narrowed controls Control[u][v] (4 x 4 x 3, chunk-relative float32).")),
          "u": S.f64(doc="Given: the normalized U parameter, [0, 1]."),
          "v": S.f64(doc="Given: the normalized V parameter, [0, 1].")}
_EVAL_INPUTS = S.any_of(
    S.obj(required={"kind": S.const("sample", doc="Given: TryEvaluateSurface with all partials."), **_POINT},
          doc="A position and its partials."),
    S.obj(required={"kind": S.const("normal", doc="Given: TryEvaluateSurfaceNormal."), **_POINT,
                    "normal_min_derivative_length": S.f64(nonnegative=True, doc=(
                        "Given: ToleranceProfile.NormalMinDerivativeLength, length units per unit parameter.")),
                    "normal_min_sin_angle": S.f64(nonnegative=True, doc=(
                        "Given: ToleranceProfile.NormalMinSinAngle (a sine)."))},
          doc="A unit normal."),
    S.obj(required={"kind": S.const("edge", doc="Given: a shared edge's continuity values."),
                    "first": S.matrix(S.f32(), [2, 4, 3], doc=(
                        "Yours: the first incidence's side controls and the row inward of them (2 x 4 x 3 float32, "
                        "in the side's s order).")),
                    "second": S.matrix(S.f32(), [2, 4, 3], doc="Yours: the same of the second incidence."),
                    "is_reversed": S.boolean(doc="Given: whether the second side runs opposite to the first."),
                    "continuity_derivative": S.f64(nonnegative=True, doc=(
                        "Given: ToleranceProfile.ContinuityDerivative (relative)."))},
          doc="A shared edge's cross-boundary continuity values."),
    doc="What was evaluated, tagged by kind.",
)
_V3 = S.vec(S.f64(), 3)
_DECISION = {"decision": S.obj(required={
    "su": S.f64(nonnegative=True, doc="The computed |Su| the decision compared."),
    "sv": S.f64(nonnegative=True, doc="The computed |Sv|."),
    "cross": S.f64(nonnegative=True, doc="The computed |Su x Sv|."),
    "sine": S.f64(finite=False, doc="The computed sine |Su x Sv| / (|Su| |Sv|).")},
    doc="Optional: the values the normal decision was made on, so it is checked against them.")}
_SAMPLE_DOC = {"position": "S(u, v), chunk-relative float64.", "du": "dS/du per normalized u.",
               "dv": "dS/dv per normalized v.", "duu": "d2S/du2.", "duv": "d2S/dudv.", "dvv": "d2S/dv2."}
_EVAL_VALUE = S.any_of(
    S.obj(required={k: S.described(_V3, _SAMPLE_DOC[k]) for k in SAMPLE_NAMES},
          doc="kind sample: the position and all partials."),
    S.obj(required={"normal": S.described(_V3, "The unit normal Su x Sv / |Su x Sv| (float64).")},
          optional=_DECISION, doc="kind normal: a unit normal."),
    S.obj(required={"status": S.enum(["Degenerate", "IllConditioned"], doc=(
        "Degenerate: zero or parallel partials; IllConditioned: at or below the thresholds."))},
          optional=_DECISION, doc="kind normal: no normal."),
    S.obj(required={"difference": S.f64(nonnegative=True, doc=(
                        "The edge's cross-boundary derivative difference max_k |D_a[k] + D_b[m(k)]| (length units per "
                        "unit parameter).")),
                    "scale": S.f64(nonnegative=True, doc="Its scale max_k max(|D_a[k]|, |D_b[k]|)."),
                    "is_c1": S.boolean(doc="IsC1: difference <= continuity_derivative x scale.")},
          doc="kind edge: the continuity values."),
    doc="The evaluation's result; its form follows inputs.kind.",
)

CONTRACTS = {
    "surface.shared_edges": RowContract(
        checks="Every edge record (owner id, canonical float32 curve, incidences with reversal, "
               "orientation consistency) or the InvalidTopology rule and join equals an exact rational "
               "replay of the narrowing and of the V1 topology rules; TryMapEdgeParameter gives each "
               "incidence, owner first, the (u, v) of s (of fl64(1 - s) when reversed) exactly.",
        inputs=S.any_of(_NETWORK, _EDGE_PARAMETER_INPUTS, doc="The network, with the edge parameters mapped when "
                                                               "the claim is TryMapEdgeParameter's."),
        value=_EDGES_VALUE, plant=_plant_edges),
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
               "|Su x Sv| within e_len, e_len, e_cross of exact and its sine their quotient within 4 u wherever "
               "|Su| |Sv| is not 0).",
        inputs=_EVAL_INPUTS, value=_EVAL_VALUE, plant=_plant_evaluation,
        model=S.model("sample [position, du, dv, duu, duv, dvv]; normal [normal]; edge [difference, scale]",
                      SURFACE_K)),
}
