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
_ORIGIN = S.described(_XYZ, "Given: the chunk origin of the PathSource (float64 asset coordinates), subtracted "
                            "from every source control in float64 before narrowing to float32.")
_CONTROLS = S.matrix(S.f32(), [4, 3])
_REQUEST = S.obj(required={
    "path": S.matrix(S.f32(), [None, 4, 3], doc=(
        "Yours: every span's four prepared controls (n x 4 x 3), chunk-relative float32, as your "
        "TryPreparePath stored them.")),
    "is_closed": S.boolean(doc="Given: whether the path is closed (Wrap is only valid on a closed path)."),
    "span": S.integer(doc=(
        "Given: the requested span index, any integer: (n, 0) names the terminal endpoint, (-1, 1) the first "
        "endpoint; other indices outside [0, n) are outside the domain, where the policy decides.")),
    "u": S.f64(doc="Given: the requested parameter u (normalized, [0, 1] inside a span; any float64 outside)."),
    "policy": S.enum(list(PATH_POLICIES), doc="Given: the BoundaryPolicy (acts only outside the closed domain)."),
    "side": S.enum(list(SIDES), doc="Given: the SpanSide (Incoming selects the previous span at an exact boundary)."),
}, doc=("Given: the evaluation request exactly as made (TryEvaluatePath's arguments and the prepared path it ran "
        "on); the checker decides from it, exactly, which point it names, or that it names none."))
_POINT = {"controls": S.described(_CONTROLS, "Yours: the evaluated span's four prepared controls P0..P3 "
                                             "(chunk-relative float32, as your preparation stored them)."),
          "u": S.f64(nonnegative=True, doc=(
              "Given: the evaluated parameter u in [0, 1] (normalized, not a distance); with a request, the point "
              "it names after policy and side, bit for bit."))}


def _eval_inputs(extra=None):
    """An evaluation claim's inputs: the evaluated point (controls and u, together), its
    request, or both. One object schema (not alternatives), so that a malformed field is
    reported once."""
    s = S.obj(required=extra or {}, optional={**_POINT, "request": _REQUEST},
              doc="The evaluated point: controls and u together, or the request that names it, or both.")
    s["anyOf"] = [{"required": ["controls", "u"]}, {"required": ["request"]}]
    s["dependentRequired"] = {"controls": ["u"], "u": ["controls"]}
    return s


_NO_POINT = S.obj(required={"status": S.enum(["InvalidDomain", "InvalidArgument"], doc=(
    "The status your evaluation returned: InvalidDomain (Reject outside the domain) or InvalidArgument "
    "(a policy or request the path does not accept)."))},
    doc="A request that names no point: the status it returned, and no value.")
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
        inputs=S.obj(required={
            "source": S.matrix(S.f64(), [2, 3], doc=(
                "Given: the span's first and last source controls (P0 and P3 of its PathSpanSource), float64 "
                "asset coordinates.")),
            "origin": _ORIGIN}),
        value=S.matrix(_F32V, [2, 3], doc=(
            "The span's stored first and last controls (prepared controls 0 and 3), chunk-relative float32: "
            "each must be fl32(fl64(source - origin)) bit for bit.")),
        plant=_plant_endpoints),
    "path.control_boxes": RowContract(
        checks="lo and hi are exactly the componentwise minimum and maximum of the span's four stored "
               "controls fl32(fl64(source - origin)), replayed in exact rationals.",
        inputs=S.obj(required={
            "source": S.matrix(S.f64(), [4, 3],
                               doc="Given: the span's four source controls, float64 asset coordinates."),
            "origin": _ORIGIN}),
        value=S.obj(required={
            "lo": S.vec(_F32V, 3, doc=("The box's low corner: per component the minimum of the span's four stored "
                                       "controls (chunk-relative float32).")),
            "hi": S.vec(_F32V, 3, doc="The box's high corner: per component the maximum of the same controls.")}),
        plant=_plant_box),
    "path.position_floor": RowContract(
        checks="floor equals 2 ulp32(E) + max |fl32(fl64(s - o)) - (s - o)| rounded up to binary64 "
               "(E the largest narrowed magnitude, all in exact rationals), and accepted equals "
               "max(position_error, fl64(relative_position_error * asset_scale)) >= floor; when a "
               "narrowed control leaves the float32 range, floor is null and accepted false.",
        inputs=S.obj(required={
            "source": S.matrix(S.f64(), [None, 4, 3], doc=(
                "Given: every span's four source controls (n x 4 x 3), float64 asset coordinates.")),
            "origin": _ORIGIN,
            "position_error": S.f64(doc="Given: ToleranceProfile.PositionError, asset units."),
            "relative_position_error": S.f64(doc=(
                "Given: ToleranceProfile.RelativePositionError, dimensionless (multiplied by asset_scale).")),
            "asset_scale": S.f64(doc="Given: ToleranceProfile.AssetScale, asset units.")}),
        value=S.obj(required={
            "floor": S.any_of(_F64V, S.const(None), doc=(
                "The position floor of the narrowed controls in asset units (a length, not squared): "
                "2 ulp32(E) plus the largest narrowing error |fl32(fl64(s - o)) - (s - o)|, E the largest "
                "narrowed magnitude, rounded up to a float64; null when a narrowed control overflows float32.")),
            "accepted": S.boolean(doc=(
                "Whether preparation accepts the tolerance: max(position_error, fl64(relative_position_error x "
                "asset_scale)) >= floor; false is TryPreparePath's UnsupportedPrecision."))}),
        plant=_plant_floor),
    "path.interior_positions": RowContract(
        checks="|claimed - B(u)| per component <= 16 u E + 16 eta (reference.error_model.position_bound), "
               "B(u) the exact cubic Bezier point of the float32 controls at the float64 parameter u, "
               "in exact rationals. With a request (the prepared path, span, u, policy, side), the point "
               "is the one it names, decided exactly (span sides at exact boundaries; Reject, Clamp, "
               "Wrap outside the domain); controls and u, when given too, must be that point bit for "
               "bit; a request that names no point claims its status (InvalidDomain, InvalidArgument) "
               "and no value; " + _EVAL_MODEL_NOTE + "; model components: 1.",
        inputs=_eval_inputs(),
        value=S.any_of(S.vec(_F64V, 3, doc=(
            "The position B(u), chunk-relative float64 (add the path's origin for asset coordinates).")), _NO_POINT,
            doc="The evaluated position, or the status of a request that names no point."),
        model=S.model("1: the position, per component", EM.K),
        plant=_plant_position),
    "path.derivatives": RowContract(
        checks="|first - B'(u)| <= 16 u (6E) + 16 eta and |second - B''(u)| <= 16 u (24E) + 16 eta per "
               "component, exact rational truth, at the point a request names (as for positions); "
               + _EVAL_MODEL_NOTE + "; model components: [first, second].",
        inputs=_eval_inputs(),
        value=S.obj(required={
            "first": S.vec(_F64V, 3, doc="dB/du at u, float64, length units per unit of normalized u (not per "
                                         "DomainWidth, not per distance)."),
            "second": S.vec(_F64V, 3, doc="d2B/du2 at u, float64, length units per unit u squared.")}),
        model=S.model("[first, second], per component", EM.K),
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
        inputs=_eval_inputs({"minimum_speed": S.f64(nonnegative=True, doc=(
            "Given: the caller's speed threshold passed to TryEvaluatePathTangent, length units per unit u: "
            "Degenerate where |dB/du| is at or below it."))}),
        value=S.any_of(S.obj(required={"tangent": S.vec(_F64V, 3, doc=(
                           "The unit tangent dB/du / |dB/du| (Euclidean length 1), float64."))},
                             doc="A tangent."),
                       S.obj(required={"status": S.enum(["Degenerate"], doc="Degenerate: the speed is at or below "
                                                                            "minimum_speed.")},
                             doc="No tangent: the speed is too small."),
                       doc="The unit tangent, or Degenerate."),
        model=S.model("[tangent (Euclidean), speed error e + r]", EM.K), plant=_plant_tangent),
    "path.conversions": RowContract(
        checks="Hermite: inner controls within 16 u (|P| + |h T|/3) + 16 eta per component (the larger "
               "of both ends; exact rational truth P +- h T/3), endpoints and width exact copies. "
               "Centripetal Catmull-Rom: inner controls within 64 u (W + S^2) per component and the "
               "width within 16 u d + (2 eta)^(1/4) of the knot interval d (IV truth), endpoints exact "
               "copies, and no waypoint pair within coincidence_distance (exact); a claimed "
               "InvalidDomain names the first such pair. u, eta of the declared model, else binary64; "
               "model components: Hermite [controls], Catmull-Rom [controls, width].",
        inputs=S.any_of(
            S.obj(required={"kind": S.const("hermite", doc="Given: TryConvertHermite."),
                            "points": S.matrix(S.f64(), [None, 3], doc=(
                                "Given: the waypoint positions (n x 3), float64 asset coordinates.")),
                            "tangents": S.matrix(S.f64(), [None, 3], doc=(
                                "Given: each waypoint's tangent T (n x 3), asset units per unit of the "
                                "authoring parameter (B1 = P0 + h T0 / 3).")),
                            "widths": S.array(S.f64(positive=True), min_items=1, doc=(
                                "Given: each waypoint's OutgoingWidth h (its span's DomainWidth), one per point.")),
                            "is_closed": S.boolean(doc="Given: whether the source is closed (the last waypoint "
                                                       "joins the first).")},
                  optional={"span": S.integer(minimum=0, doc=(
                      "Given: which converted span the value is (span i runs from waypoint i to i + 1, mod n when "
                      "closed); required with a converted span, absent with a status."))},
                  doc="A Hermite source."),
            S.obj(required={"kind": S.const("catmull_rom", doc="Given: TryConvertCentripetalCatmullRom."),
                            "points": S.matrix(S.f64(), [None, 3], doc=(
                                "Given: the waypoints (n x 3), float64 asset coordinates.")),
                            "is_closed": S.boolean(doc="Given: whether the source wraps its neighbours (closed)."),
                            "coincidence_distance": S.f64(nonnegative=True, doc=(
                                "Given: consecutive waypoints at most this far apart (Euclidean, asset units, not "
                                "squared) are rejected as InvalidDomain."))},
                  optional={"span": S.integer(minimum=0, doc=(
                      "Given: which converted span the value is (from waypoint i to i + 1); required with a "
                      "converted span, absent with a status."))},
                  doc="A centripetal Catmull-Rom source."),
            doc="The conversion's source, tagged by kind."),
        value=S.any_of(S.obj(required={"controls": S.matrix(_F64V, [4, 3], doc=(
                                           "The span's four Bezier controls, float64 asset coordinates: P0 and P3 "
                                           "exact copies of the waypoints, B1 and B2 Rounded.")),
                                       "width": S.described(_F64V, (
                                           "The span's DomainWidth: Hermite, the waypoint's OutgoingWidth exactly; "
                                           "Catmull-Rom, the centripetal knot interval sqrt(|P(i+1) - P(i)|)."))},
                             doc="One converted span."),
                       S.obj(required={"status": S.enum(_CONVERSION_STATUSES, doc="The conversion's failure."),
                                       "index": S.any_of(S.integer(minimum=0), S.const(None), doc=(
                                           "InvalidDomain: the index a of the first waypoint pair (a, a + 1) within "
                                           "coincidence_distance (a closed source's last pair wraps); else null."))},
                             doc="A failed conversion."),
                       doc="A converted span, or the conversion's failure."),
        model=S.model("Hermite [controls]; Catmull-Rom [controls, width]", EM.K), plant=_plant_conversion),
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
        inputs=S.obj(required={
            "P_in": S.described(_CONTROLS, "Yours: the incoming span's four prepared controls (chunk-relative "
                                           "float32); the joint is its u = 1 end."),
            "P_out": S.described(_CONTROLS, "Yours: the outgoing span's four prepared controls; the joint is its "
                                            "u = 0 end."),
            "w_in": S.f64(positive=True, doc="Given: the incoming span's DomainWidth (derivatives are divided by it)."),
            "w_out": S.f64(positive=True, doc="Given: the outgoing span's DomainWidth."),
            "continuity_angle": S.f64(nonnegative=True, doc="Given: ToleranceProfile.ContinuityAngle, radians."),
            "continuity_derivative": S.f64(nonnegative=True, doc=(
                "Given: ToleranceProfile.ContinuityDerivative (relative, dimensionless).")),
            "continuity_second_derivative": S.f64(nonnegative=True, doc=(
                "Given: ToleranceProfile.ContinuitySecondDerivative (relative, dimensionless)."))}),
        value=S.obj(required={
            "position_gap": S.described(_F64V, "|P_in(1) - P_out(0)|, Euclidean, asset units (not squared)."),
            "tangent_angle": S.described(_F64V, (
                "Angle between d_in and d_out in radians, d = B'/DomainWidth at the joint; NaN where either "
                "derivative is zero.")),
            "derivative_difference": S.described(_F64V, "|d_in - d_out| (Euclidean), asset units per authoring unit."),
            "derivative_scale": S.described(_F64V, "max(|d_in|, |d_out|)."),
            "second_derivative_difference": S.described(_F64V, (
                "|s_in - s_out|, s = B''/DomainWidth^2 at the joint.")),
            "second_derivative_scale": S.described(_F64V, "max(|s_in|, |s_out|)."),
            "continuity": S.enum(list(LEVELS), doc=(
                "The joint's class, decided on the six values above: G1 when tangent_angle <= continuity_angle, "
                "C1 when also derivative_difference <= continuity_derivative x derivative_scale, C2 when also the "
                "second-derivative test holds; else C0."))}),
        model=S.model("the six values, in the order position_gap, tangent_angle, derivative_difference, "
                      "derivative_scale, second_derivative_difference, second_derivative_scale", EM.K),
        plant=_plant_continuity),
}
