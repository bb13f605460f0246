"""Path rows' case-file contract: each row's fields (JSON Schema), the sentence the ledger prints
for it, and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``). The fast
path's claims carry no model and only the fields the checkers read."""

from __future__ import annotations

import math

import numpy as np

from interval.context import lower_float, to_mpq
from reference import error_model as EM

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, dec_array, enc
from . import checks as _C
from .checks import (PATH_POLICIES, SIDES, _controls_u, _derivative_reference, _position_reference, _request,
                     _resolve, _tangent_reference, _true_speed)
from .checks_continuity import CONTINUITY_FIELDS, LEVELS, _continuity_reference
from .checks_conversions import _catmull_rom_reference, _hermite_reference, _neighbourhood

__all__ = ["CONTRACTS"]


_F32V = S.f32(finite=False)  # claimed values admit nonfinite words: an overflow is Violated
_F64V = S.f64(finite=False)
_XYZ = S.vec(S.f64(), 3)
_CONTROLS = S.matrix(S.f32(), [4, 3])
_REQUEST = S.obj(required={"path": S.matrix(S.f32(), [None, 4, 3]), "is_closed": S.boolean(),
                           "span": S.integer(), "u": S.f64(), "policy": S.enum(list(PATH_POLICIES)),
                           "side": S.enum(list(SIDES))})
_POINT = {"controls": _CONTROLS, "u": S.f64(nonnegative=True)}


def _eval_inputs(extra=None):
    """An evaluation claim's inputs: the evaluated point (controls and u, together), its
    request, or both. One object schema (not alternatives), so that a malformed field is
    reported once."""
    s = S.obj(required=extra or {}, optional={**_POINT, "request": _REQUEST})
    s["anyOf"] = [{"required": ["controls", "u"]}, {"required": ["request"]}]
    s["dependentRequired"] = {"controls": ["u"], "u": ["controls"]}
    return s


_NO_POINT = S.obj(required={"status": S.enum(["InvalidDomain", "InvalidArgument"])})
_CONVERSION_STATUSES = ["InvalidArgument", "InvalidDomain", "CapacityExceeded"]


def _up_float(q) -> float:
    """The smallest float64 >= the rational q."""
    f = float(q)
    return f if to_mpq(f) >= q else math.nextafter(f, math.inf)


def _with(claim: Claim, value) -> Claim:
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _f32_up(x) -> str:
    return enc(float(np.nextafter(np.float32(dec(x)), np.float32(np.inf))))


def _plant_endpoints(c: Claim) -> Claim:
    v = [list(p) for p in c.value]
    v[1][1] = _f32_up(v[1][1])  # one float32 ulp off the replayed narrowing
    return _with(c, v)


def _plant_box(c: Claim) -> Claim:
    lo = list(c.value["lo"])
    lo[0] = _f32_up(lo[0])  # the box shrinks by one float32 ulp
    return _with(c, {**c.value, "lo": lo})


def _plant_floor(c: Claim) -> Claim:
    if c.value["floor"] is None:
        return _with(c, {**c.value, "accepted": True})
    return _with(c, {**c.value, "floor": enc(math.nextafter(dec(c.value["floor"]), math.inf))})


def _point_of(c: Claim):
    """The (controls, u) an honest evaluation claim speaks of (its request's exact point)."""
    if "request" in c.inputs:
        path, point = _request(c)
        k, u = point
        return path[k], u
    return _controls_u(c)


def _plant_position(c: Claim) -> Claim:
    if isinstance(c.value, dict):  # a position where the request names no point
        return _with(c, [enc(0.0)] * 3)
    P, _ = _point_of(c)
    b = _resolve(c, _position_reference(EM.span_magnitude(P))).scalar()
    p = list(c.value)
    p[0] = enc(_up_float(to_mpq(dec(p[0])) + 3 * b))  # three model bounds off
    return _with(c, p)


def _plant_derivative(c: Claim) -> Claim:
    P, _ = _point_of(c)
    b = _resolve(c, _derivative_reference(EM.span_magnitude(P))).bound[1]
    s = list(c.value["second"])
    s[1] = enc(_up_float(to_mpq(dec(s[1])) + 3 * b))
    return _with(c, {**c.value, "second": s})


def _plant_tangent(c: Claim) -> Claim:
    if "tangent" not in c.value:
        # A tangent (an unnormalized one) where the true result is Degenerate.
        return _with(c, {"tangent": enc([10.0, 0.0, 0.0])})
    P, u = _point_of(c)
    speed = lower_float(_true_speed(P, u, _C.BUDGET[0]))
    b = float(_resolve(c, _tangent_reference(EM.span_magnitude(P), speed)).bound[0])
    # Scaled by 1 + 3b: at least 2b from the truth (the honest error is at most b).
    return _with(c, {"tangent": enc(dec_array(c.value["tangent"]) * (1.0 + 3.0 * b) * (1 + 1e-15))})


def _plant_conversion(c: Claim) -> Claim:
    if "status" in c.value:
        idx = c.value["index"]
        return _with(c, {**c.value, "index": (idx or 0) + 1})  # not the first coincident pair
    P = dec_array(c.inputs["points"])
    n, i = P.shape[0], int(c.inputs["span"])
    j = (i + 1) % n
    if c.inputs["kind"] == "hermite":
        T, H = dec_array(c.inputs["tangents"]), dec_array(c.inputs["widths"])
        b = _resolve(c, _hermite_reference(P, T, H[i], i, j)).scalar()
    else:
        pts = P[_neighbourhood(n, i, bool(c.inputs["is_closed"]))]
        b = _resolve(c, _catmull_rom_reference(pts, 0.0)).bound[0]
    ctrl = [list(r) for r in c.value["controls"]]
    ctrl[1][0] = enc(_up_float(to_mpq(dec(ctrl[1][0])) + 3 * b))
    return _with(c, {**c.value, "controls": ctrl})


def _plant_continuity(c: Claim) -> Claim:
    claimed = {k: dec(c.value[k]) for k in CONTINUITY_FIELDS}
    P_in, P_out = dec_array(c.inputs["P_in"], np.float32), dec_array(c.inputs["P_out"], np.float32)
    ref = _continuity_reference(claimed, EM.span_magnitude(P_in), EM.span_magnitude(P_out),
                                dec(c.inputs["w_in"]), dec(c.inputs["w_out"]), None)
    b = _resolve(c, ref).bound[0]
    gap = to_mpq(claimed["position_gap"]) + 3 * b  # the joint's gap three model bounds off
    return _with(c, {**c.value, "position_gap": enc(_up_float(gap))})


_EVAL_MODEL_NOTE = ("E = max |control|; u, eta of the claim's declared model (oracles.schema.MODEL), "
                    "else binary64 (u = 2^-53, eta = 2^-1074)")

CONTRACTS = {
    "path.stored_endpoints": RowContract(
        checks="Each stored endpoint equals fl32(fl64(source - origin)) bit for bit, replayed in exact "
               "rationals from the float64 source endpoints and chunk origin (a signed zero equals zero).",
        inputs=S.obj(required={"source": S.matrix(S.f64(), [2, 3]), "origin": _XYZ}),
        value=S.matrix(_F32V, [2, 3]),
        plant=_plant_endpoints),
    "path.control_boxes": RowContract(
        checks="lo and hi are exactly the componentwise minimum and maximum of the span's four stored "
               "controls fl32(fl64(source - origin)), replayed in exact rationals.",
        inputs=S.obj(required={"source": S.matrix(S.f64(), [4, 3]), "origin": _XYZ}),
        value=S.obj(required={"lo": S.vec(_F32V, 3), "hi": S.vec(_F32V, 3)}),
        plant=_plant_box),
    "path.position_floor": RowContract(
        checks="floor equals 2 ulp32(E) + max |fl32(fl64(s - o)) - (s - o)| rounded up to binary64 "
               "(E the largest narrowed magnitude, all in exact rationals), and accepted equals "
               "max(position_error, fl64(relative_position_error * asset_scale)) >= floor; when a "
               "narrowed control leaves the float32 range, floor is null and accepted false.",
        inputs=S.obj(required={"source": S.matrix(S.f64(), [None, 4, 3]), "origin": _XYZ,
                               "position_error": S.f64(), "relative_position_error": S.f64(),
                               "asset_scale": S.f64()}),
        value=S.obj(required={"floor": S.any_of(_F64V, S.const(None)), "accepted": S.boolean()}),
        plant=_plant_floor),
    "path.interior_positions": RowContract(
        checks="|claimed - B(u)| per component <= 16 u E + 16 eta (reference.error_model.position_bound), "
               "B(u) the exact cubic Bezier point of the float32 controls at the float64 parameter u, "
               "in exact rationals. With a request (the prepared path, span, u, policy, side), the point "
               "is the one it names, decided exactly (span sides at exact boundaries; Reject, Clamp, "
               "Wrap outside the domain); controls and u, when given too, must be that point bit for "
               "bit; a request that names no point claims its status (InvalidDomain, InvalidArgument) "
               "and no value; " + _EVAL_MODEL_NOTE + "; model components: 1.",
        inputs=_eval_inputs(), value=S.any_of(S.vec(_F64V, 3), _NO_POINT), model=S.MODEL,
        plant=_plant_position),
    "path.derivatives": RowContract(
        checks="|first - B'(u)| <= 16 u (6E) + 16 eta and |second - B''(u)| <= 16 u (24E) + 16 eta per "
               "component, exact rational truth, at the point a request names (as for positions); "
               + _EVAL_MODEL_NOTE + "; model components: [first, second].",
        inputs=_eval_inputs(),
        value=S.obj(required={"first": S.vec(_F64V, 3), "second": S.vec(_F64V, 3)}), model=S.MODEL,
        plant=_plant_derivative),
    "path.tangents": RowContract(
        checks="|tangent - B'(u)/|B'(u)|| (Euclidean) <= (2e + r)/((s - e - r)(1 - 4u)) + 16u + 16 eta "
               "(reference.error_model.tangent_bound) with s the true speed |B'(u)| (its float64 lower "
               "bound), e = sqrt(3) (16 u 6E + 16 eta) and r = sqrt(2 eta), capped at 4 where s <= e + r; "
               "truth: B'(u) in exact rationals and s by MPFR's square root rounded down and up, refined "
               "up to 1024 bits; a tangent is also Violated when s + e + r < minimum_speed, and a claimed "
               "Degenerate when s > minimum_speed + e + r. With a request, the point is the one it "
               "names exactly (as for positions); " + _EVAL_MODEL_NOTE
               + "; model components: [tangent, speed error e + r].",
        inputs=_eval_inputs({"minimum_speed": S.f64(nonnegative=True)}),
        value=S.any_of(S.obj(required={"tangent": S.vec(_F64V, 3)}),
                       S.obj(required={"status": S.enum(["Degenerate"])})),
        model=S.MODEL, plant=_plant_tangent),
    "path.conversions": RowContract(
        checks="Hermite: inner controls within 16 u (|P| + |h T|/3) + 16 eta per component (the larger "
               "of both ends; exact rational truth P +- h T/3), endpoints and width exact copies. "
               "Centripetal Catmull-Rom: inner controls within 64 u (W + S^2) per component and the "
               "width within 16 u d + (2 eta)^(1/4) of the knot interval d (IV truth), endpoints exact "
               "copies, and no waypoint pair within coincidence_distance (exact); a claimed "
               "InvalidDomain names the first such pair. u, eta of the declared model, else binary64; "
               "model components: Hermite [controls], Catmull-Rom [controls, width].",
        inputs=S.any_of(
            S.obj(required={"kind": S.const("hermite"), "points": S.matrix(S.f64(), [None, 3]),
                            "tangents": S.matrix(S.f64(), [None, 3]),
                            "widths": S.array(S.f64(positive=True), min_items=1), "is_closed": S.boolean()},
                  optional={"span": S.integer(minimum=0)}),
            S.obj(required={"kind": S.const("catmull_rom"), "points": S.matrix(S.f64(), [None, 3]),
                            "is_closed": S.boolean(), "coincidence_distance": S.f64(nonnegative=True)},
                  optional={"span": S.integer(minimum=0)})),
        value=S.any_of(S.obj(required={"controls": S.matrix(_F64V, [4, 3]), "width": _F64V}),
                       S.obj(required={"status": S.enum(_CONVERSION_STATUSES),
                                       "index": S.any_of(S.integer(minimum=0), S.const(None))})),
        model=S.MODEL, plant=_plant_conversion),
    "path.continuity_values": RowContract(
        checks="Each joint value within its model against IV truth (MPFR atan2 for the angle): "
               "position_gap 16u|gap| + sqrt(2 eta); tangent_angle 16u (2 + 4/(|a+b| - 16u)) capped at 4 "
               "(NaN exactly when a derivative is zero); derivative_difference 16u (6E_in/w_in + "
               "6E_out/w_out) + 16 eta; derivative_scale 16u|scale| + sqrt(2 eta) + that; the "
               "second-derivative pair the same with 24E/w^2. The continuity class must be the threshold "
               "decision on the claimed values themselves (G1: angle <= continuity_angle exactly; C1, C2: "
               "difference <= threshold x scale as the exact product, the product rounded at u, or the "
               "quotient difference/scale rounded at u), and equal the exact class unless the deciding "
               "test lies within its rounding band. u, eta of the declared model, else binary64; model "
               "components: the six values in that order.",
        inputs=S.obj(required={"P_in": _CONTROLS, "P_out": _CONTROLS, "w_in": S.f64(positive=True),
                               "w_out": S.f64(positive=True), "continuity_angle": S.f64(nonnegative=True),
                               "continuity_derivative": S.f64(nonnegative=True),
                               "continuity_second_derivative": S.f64(nonnegative=True)}),
        value=S.obj(required={**{k: _F64V for k in CONTINUITY_FIELDS}, "continuity": S.enum(list(LEVELS))}),
        model=S.MODEL, plant=_plant_continuity),
}
