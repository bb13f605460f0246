"""``explain``'s shadow traces: exact numbers for people, the kernel recipe of each row (which
kernel of ``reference.kernel`` computes a claim's value, on what inputs) and the per-step error
attribution of a traced kernel (``interval.trace``). Guarantee class: the traced truth is Exact
(mpq) or Certified (intervals); the attribution is Estimated (first order)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from collections.abc import Callable

import gmpy2
import numpy as np

from interval.context import lower, mid, to_mpq, upper
from interval.trace import Tape, TNum, TraceContext, attribute, ulp_of, working
from reference import error_model as EM
from reference import kernel as K

from .errormodel import ETA_OF_U
from .model import Claim, NumberError, dec, dec_array, enc, parse_number


class ExplainError(ValueError):
    """A claim or query explain cannot read; the message says why."""


# --- numbers for people -----------------------------------------------------------------------

def _dec(q) -> str:
    """17 significant decimal digits of a rational, float or interval midpoint."""
    if q is None:
        return "-"
    if isinstance(q, (float, np.floating)):
        return repr(float(q))
    if q == 0:
        return "0"
    return format(gmpy2.mpfr(gmpy2.mpq(q), 80), ".17g")


def _num(x) -> dict:
    """``{"hex", "decimal"}`` of a float or claim number."""
    if isinstance(x, str):
        try:
            v = parse_number(x)
        except NumberError:
            return {"hex": x, "decimal": x}
        if isinstance(v, Fraction):
            q = gmpy2.mpq(v.numerator, v.denominator)
            try:
                f = float(v)
            except OverflowError:
                return {"hex": enc(q), "decimal": _dec(q)}
            if f == v:  # a binary64 value: its hex float, whatever text gave it
                return {"hex": f.hex(), "decimal": repr(f)}
            return {"hex": enc(q), "decimal": _dec(q)}
        return {"hex": x, "decimal": str(v)}
    if isinstance(x, (float, np.floating)):
        return {"hex": enc(x), "decimal": repr(float(x))}
    if hasattr(x, "numerator"):
        return {"hex": enc(x), "decimal": _dec(x)}
    return {"hex": str(x), "decimal": str(x)}


def _is_number_text(x) -> bool:
    return isinstance(x, str) and x[:1] in "+-0123456789" and x not in ("-",)


def _flatten_inputs(x, path="inputs") -> list:
    out = []
    if isinstance(x, dict):
        for k, v in x.items():
            out += _flatten_inputs(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += _flatten_inputs(v, f"{path}[{i}]")
    elif isinstance(x, bool) or x is None:
        out.append({"path": path, "hex": json.dumps(x), "decimal": json.dumps(x)})
    elif isinstance(x, (int, float)):
        out.append({"path": path, **(_num(float(x)) if isinstance(x, float) else {"hex": str(x), "decimal": str(x)})})
    elif _is_number_text(x):
        out.append({"path": path, **_num(x)})
    else:
        out.append({"path": path, "hex": str(x), "decimal": str(x)})
    return out


def _safe_float(q) -> float | None:
    try:
        f = float(q)
    except (OverflowError, TypeError):
        return math.inf
    return f


# --- kernel recipes ---------------------------------------------------------------------------


@dataclass
class Traced:
    """One traced quantity: component names, claimed values (or None), the traced TNums, and
    the error-model bound per component with its terms."""

    names: list
    claimed: list
    outputs: list
    bounds: list
    terms: dict


def _fmt_of(claim: Claim, override: str | None) -> str:
    if override:
        return override
    m = claim.model or {}
    try:
        u = dec(m["u"]) if "u" in m else None
    except (NumberError, ValueError):
        u = None
    return "f32" if u is not None and u >= 2.0**-24 else "f64"


def _model_u(claim: Claim) -> tuple[float, float]:
    m = claim.model or {}
    if "u" in m:
        u = dec(m["u"])
        return u, dec(m["eta"]) if "eta" in m else ETA_OF_U.get(u, 0.0)
    return 2.0**-53, 2.0**-1074


def _controls_u(claim):
    P = dec_array(claim.inputs["controls"], np.float32)
    u = dec(claim.inputs["u"])
    if P.shape != (4, 3):
        raise ExplainError("controls must be (4, 3)")
    return P, u


def _terms(E_coeff: float, E: float, u: float, eta: float) -> dict:
    # reference.error_model's bounds are K u (c E) + K eta: a rounding and an underflow term.
    return {"rounding: K u c E": EM.K * u * E_coeff * E, "underflow: K eta": EM.K * eta}


def _vec(claim_value, n=3):
    v = dec_array(claim_value)
    if v.shape != (n,):
        raise ExplainError(f"a vector of {n} components expected")
    return [float(a) for a in v]


def _recipe_position(claim: Claim, T: TraceContext) -> list[Traced]:
    P, u = _controls_u(claim)
    Pt, ut = T.asarray(P, label="controls"), T.asarray(u, label="u")
    B = K.cubic_point(T, Pt, ut)
    E = EM.span_magnitude(P)
    uu, eta = _model_u(claim)
    claimed = _vec(claim.value)
    b = EM.position_bound(E, uu, eta=eta)
    return [Traced([f"position[{i}]" for i in range(3)], claimed, list(B), [b] * 3, _terms(1.0, E, uu, eta))]


def _recipe_derivatives(claim: Claim, T: TraceContext) -> list[Traced]:
    P, u = _controls_u(claim)
    Pt, ut = T.asarray(P, label="controls"), T.asarray(u, label="u")
    d1 = K.cubic_derivative(T, Pt, ut)
    d2 = K.cubic_second_derivative(T, Pt, ut)
    E = EM.span_magnitude(P)
    uu, eta = _model_u(claim)
    out = [Traced([f"first[{i}]" for i in range(3)], _vec(claim.value["first"]), list(d1),
                  [EM.derivative_bound(E, uu, eta=eta)] * 3, _terms(6.0, E, uu, eta)),
           Traced([f"second[{i}]" for i in range(3)], _vec(claim.value["second"]), list(d2),
                  [EM.second_derivative_bound(E, uu, eta=eta)] * 3, _terms(24.0, E, uu, eta))]
    return out


def _recipe_tangent(claim: Claim, T: TraceContext) -> list[Traced]:
    P, u = _controls_u(claim)
    if "tangent" not in claim.value:
        return []
    Pt, ut = T.asarray(P, label="controls"), T.asarray(u, label="u")
    d = K.cubic_derivative(T, Pt, ut)
    speed = K.norm(T, d)
    t = d / speed
    E = EM.span_magnitude(P)
    uu, _eta = _model_u(claim)
    s = float(np.asarray(working(speed)))
    b = EM.tangent_bound(E, s, uu)
    return [Traced([f"tangent[{i}]" for i in range(3)], _vec(claim.value["tangent"]), list(t), [b] * 3,
                   {"normalisation of a derivative with error e at speed s: 2 e / (s - e)": b})]


def _recipe_surface(claim: Claim, T: TraceContext) -> list[Traced]:
    if claim.inputs.get("kind") != "sample":
        return []
    C = dec_array(claim.inputs["controls"], np.float32)
    if C.shape != (4, 4, 3):
        raise ExplainError("surface controls must be (4, 4, 3)")
    u, v = dec(claim.inputs["u"]), dec(claim.inputs["v"])
    outs = K.bicubic_partials(T, T.asarray(C, label="controls"), T.asarray(u, label="u"), T.asarray(v, label="v"))
    res = []
    for key, arr in zip(("position", "du", "dv", "duu", "duv", "dvv"), outs):
        if key in claim.value:
            res.append(Traced([f"{key}[{i}]" for i in range(3)], _vec(claim.value[key]), list(arr),
                              [None] * 3, {}))
    return res


def _recipe_conversion(claim: Claim, T: TraceContext) -> list[Traced]:
    # Hermite spans: B1 = P0 + h T0 / 3, B2 = P1 - h T1 / 3 (the Catmull-Rom conversion adds
    # knot intervals and tangents around the same kernel; its claims are judged in text).
    if claim.inputs.get("kind") != "hermite" or "controls" not in claim.value:
        return []
    pts, tans, ws = (dec_array(claim.inputs[k]) for k in ("points", "tangents", "widths"))
    i = claim.inputs["span"]
    n = pts.shape[0]
    if not isinstance(i, int) or not 0 <= i < n:
        raise ExplainError("span out of range")
    j = (i + 1) % n
    b1, b2 = K.hermite_inner_controls(T, T.asarray(pts[i], label="P0"), T.asarray(tans[i], label="T0"),
                                      T.asarray(pts[j], label="P1"), T.asarray(tans[j], label="T1"),
                                      T.asarray(ws[i], label="h"))
    c = dec_array(claim.value["controls"])
    if c.shape != (4, 3):
        raise ExplainError("converted controls are (4, 3)")
    return [Traced([f"controls[1][{k}]" for k in range(3)], [float(v) for v in c[1]], list(b1), [None] * 3, {}),
            Traced([f"controls[2][{k}]" for k in range(3)], [float(v) for v in c[2]], list(b2), [None] * 3, {})]


def _recipe_continuity(claim: Claim, T: TraceContext) -> list[Traced]:
    # The joint's scaled derivatives by the kernel, then the differences' norms by the norm
    # kernel (the fast path takes numpy's norm: its last bits may differ, said in the notes).
    P_in = dec_array(claim.inputs["P_in"], np.float32)
    P_out = dec_array(claim.inputs["P_out"], np.float32)
    if P_in.shape != (4, 3) or P_out.shape != (4, 3):
        raise ExplainError("joint controls are (4, 3)")
    A, B = T.asarray(P_in, label="P_in"), T.asarray(P_out, label="P_out")
    d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(T, A, B, T.asarray(dec(claim.inputs["w_in"]), label="w_in"),
                                                          T.asarray(dec(claim.inputs["w_out"]), label="w_out"))
    out = []
    for key, vec in (("position_gap", A[3] - B[0]), ("derivative_difference", d_in - d_out),
                     ("second_derivative_difference", s_in - s_out)):
        if key in claim.value:
            out.append(Traced([key], [float(dec(claim.value[key]))], [K.norm(T, vec)], [None], {}))
    return out


# Rows whose value is a kernel's output: a recipe runs the kernel in the tracing context.
RECIPES: dict[str, Callable[[Claim, TraceContext], list]] = {
    "path.interior_positions": _recipe_position,
    "path.derivatives": _recipe_derivatives,
    "path.tangents": _recipe_tangent,
    "surface.evaluation": _recipe_surface,
    "path.conversions": _recipe_conversion,
    "path.continuity_values": _recipe_continuity,
}


# --- traces -----------------------------------------------------------------------------------


def _step_json(tape: Tape, i: int, fmt: str, out_ulp, contribution: float, total: float, cone_set) -> dict:
    s = tape.steps[i]
    w = s.w
    x = s.x
    xq = None if x is None else (x if isinstance(x, type(gmpy2.mpq(0))) else mid(x))
    ulp = ulp_of(w, fmt) if np.isfinite(w) else None
    local_ulps = None if s.local is None or ulp is None else _safe_float(s.local / ulp)
    acc = None if xq is None or not np.isfinite(w) else to_mpq(float(w)) - xq
    canc = None
    if s.op in ("add", "sub") and np.isfinite(w):
        a, b = (abs(float(tape.steps[j].w)) for j in s.args)
        r = abs(float(w))
        if a + b > 0:
            canc = math.inf if r == 0 else (a + b) / r
    return {
        "index": i, "op": s.op, "args": list(s.args), "where": s.where, "label": s.label,
        "working": _num(float(w)) if np.isfinite(w) else {"hex": str(float(w)), "decimal": str(float(w))},
        "exact": None if x is None else {"decimal": _dec(xq), "radius": _dec((upper(x) - lower(x)) / 2)
                                         if xq is not x else "0"},
        "local_ulps": local_ulps,
        # Accumulated error in ulps at the larger of the computed and exact magnitudes (a
        # value that cancelled to zero is not measured in subnormal steps).
        "accumulated_ulps": None if acc is None else _safe_float(
            acc / ulp_of(max(abs(float(w)), abs(float(xq))), fmt)),
        "contribution": contribution,
        "contribution_output_ulps": None if out_ulp is None else _safe_float(gmpy2.mpq(contribution) / out_ulp)
        if math.isfinite(contribution) else math.inf,
        "share": (contribution / total) if total != 0 and math.isfinite(contribution) and math.isfinite(total)
        else (1.0 if contribution == math.inf else 0.0),
        "cancellation": canc,
    }


def _dominant_text(step: dict) -> str:
    op, where, label = step["op"], step["where"], step["label"]
    place = where or label or f"step {step['index']}"
    if op == "narrow32":
        what = "the float32 narrowing of a chunk-relative control"
    elif op == "input":
        what = "rounding an input into the working format"
    elif op == "const":
        what = "rounding a constant into the working format"
    elif op == "sub" and label.startswith("origin"):
        what = "the origin subtraction"
    else:
        what = f"the rounding of this {op}"
    share = step["share"]
    return f"{what} ({place}): {100 * share:.0f}% of the output's error (first order)"


def trace_json(tape: Tape, out: TNum, fmt: str, name: str, limit: int = 400) -> dict:
    """The steps behind one output with its attribution, JSON-ready."""
    a = attribute(tape, out)
    w = out.w
    out_ulp = ulp_of(w, fmt) if np.isfinite(w) else None
    # Shares are signed fractions of the output's actual error (first order): cancelling
    # roundings show as large shares of opposite signs.
    total = a.error if a.error else sum(abs(c) for c in a.contributions.values() if math.isfinite(c))
    cone = set(a.cone)
    steps = [_step_json(tape, i, fmt, out_ulp, a.contributions[i], total, cone) for i in a.cone[-limit:]]
    dom = next((s for s in steps if s["index"] == a.dominant), None)
    if dom is None and a.dominant is not None:  # beyond the steps listed
        dom = _step_json(tape, a.dominant, fmt, out_ulp, a.contributions[a.dominant], total, cone)
    rounding = [s for s in steps if s["local_ulps"]]
    if dom is not None:
        text = _dominant_text(dom)
    elif not any(tape.steps[i].local != 0 for i in a.cone):
        text = "no step rounds: the value is exact"
    else:
        # Roundings of opposite signs: removing any one alone would make the error larger, so
        # no step is "the" dominant one; name the largest without calling the value exact.
        count = sum(1 for i in a.cone if tape.steps[i].local != 0)
        text = (f"{count} steps round and their errors cancel in part: no single one explains the output's "
                "error (first order)")
        if rounding:
            text += "; the largest: " + _dominant_text(max(rounding, key=lambda s: abs(s["contribution"])))
    if dom is not None:
        # A cancellation downstream of the dominant step is what made its error large
        # relative to the result: name the strongest one.
        down = {a.dominant}
        for i in a.cone:
            if i > a.dominant and any(j in down for j in tape.steps[i].args):
                down.add(i)
        canc = [s for s in steps if s["index"] in down and s["index"] != a.dominant and (s["cancellation"] or 0) >= 256]
        if canc:
            worst = max(canc, key=lambda s: s["cancellation"])
            size = ("which cancelled to 0" if not math.isfinite(worst["cancellation"])
                    else f"operands {_g(worst['cancellation'], 3)} times the result")
            text += (f"; amplified by the cancellation at step {worst['index']} "
                     f"({worst['where'] or worst['label']}, {size})")
    if dom and a.error_ulps is not None and abs(a.error_ulps) < 0.5:
        text = "the output is within half an ulp of the truth (roundings cancel); the largest: " + text
    return {"output": name, "error_ulps": a.error_ulps, "steps": steps, "dominant": a.dominant,
            "dominant_text": text}


def _same_as_traced(traced: list) -> bool:
    """Whether every claimed component equals the traced working value bit for bit."""
    for t in traced:
        for c, o in zip(t.claimed, t.outputs):
            if c is None or not (np.isfinite(o.w) and float(o.w) == c):
                return False
    return True


def _component_json(name, claimed, out: TNum, bound, fmt) -> dict:
    x = out.x
    exact = isinstance(x, type(gmpy2.mpq(0)))
    if x is None:
        truth = None
    elif exact:
        truth = {"decimal": _dec(x), "lo": enc(x), "hi": enc(x), "exact": True}
    else:
        truth = {"decimal": _dec(mid(x)), "lo": enc(lower(x)), "hi": enc(upper(x)), "exact": False}
    tq = None if x is None else (x if exact else mid(x))
    rec = {"name": name, "claimed": None if claimed is None else _num(claimed), "truth": truth,
           "traced": _num(float(out.w)) if np.isfinite(out.w) else {"hex": str(out.w), "decimal": str(out.w)}}
    if claimed is not None and tq is not None and math.isfinite(claimed):
        diff = to_mpq(claimed) - tq
        ulp = ulp_of(claimed, fmt)
        rec["difference"] = _dec(diff)
        rec["ulps"] = _safe_float(diff / ulp)
        rec["over_model"] = None if not bound else _safe_float(abs(diff) / to_mpq(bound))
    if tq is not None and np.isfinite(out.w):
        rec["traced_error"] = _dec(to_mpq(float(out.w)) - tq)
        rec["traced_ulps"] = _safe_float((to_mpq(float(out.w)) - tq) / ulp_of(out.w, fmt))
    if claimed is not None and np.isfinite(out.w) and math.isfinite(claimed):
        rec["claimed_minus_traced_ulps"] = _safe_float((to_mpq(claimed) - to_mpq(float(out.w))) / ulp_of(out.w, fmt))
    return rec

def _g(x, digits=4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"
