"""``python -m oracles explain``: where a claim's precision was lost, step by step.

An explanation of one claim (from a case file, from the built-in corpus, or from an ad-hoc
query) holds

* the inputs, exactly (hex) and in decimal;
* the verdict of the row's checker (as ``check`` gives it);
* for rows whose value a kernel of ``reference.kernel`` computes (path positions, derivatives,
  tangents, surface samples, ...), a *shadow execution* of that kernel in the tracing context
  (``interval.trace``) in the claim's working format (float32 when the claim declares
  ``u = 2^-24``, else float64): per component the claimed value, the exact or interval truth,
  their difference in ulps of the working format and over the row's error model (which term
  of the model dominates), and the steps of the computation of the worst component, each with
  its working value, exact value, local rounding error and accumulated error in ulps and its
  first-order share of the output's error, the step where most error entered marked;
* for a path whose source and chunk origin are known (``path.position_floor`` claims and
  ``path`` queries), the origin subtraction and float32 narrowing as traced steps, the
  position floor ``2 ulp32(E) + narrowing error`` against the effective position error, and,
  for an UnsupportedPrecision preparation, the smallest origin shift along the way to the
  controls' box centre or the chunk split (consecutive spans, each chunk at its own centre)
  that passes, checked by preparing the path again;
* for a Certified claim, the chain of enclosures behind the bound (the claimed interval and
  the oracle's enclosures at each precision) and which is widest;
* for an Undecided verdict, the precisions tried and the best enclosure reached.

:func:`explain_claim` returns a JSON-ready dict (its shape is :data:`JSON_SHAPE` below,
summarised in the README section "Debugging a precision failure"); :func:`render_text` prints
it for people.

Guarantee class of the explanation: the verdict is the checker's (its own class); the truth of
traced components is Exact (mpq shadows) or Certified (interval shadows); the per-step
attribution is Estimated (first order in the local rounding errors).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional

import gmpy2
import numpy as np

from interval.context import lower, mid, to_mpq, upper
from interval.narrowing import exact_ulp32, replay_narrowing, replay_position_floor, round_nearest_f64
from interval.trace import TNum, Tape, TraceContext, attribute, trace_context, ulp_of, working
from reference import error_model as EM
from reference import kernel as K

from .errormodel import ETA_OF_U, resolve
from .model import Claim, NumberError, VerdictKind, dec, dec_array, enc, parse_number
from .rows import row

__all__ = ["JSON_SHAPE", "ExplainError", "explain_claim", "explain_query", "claim_from_corpus",
           "claim_from_file", "render_text", "floor_analysis", "RECIPES"]

FORMAT = "explain/1"

# The documented shape of ``explain --json`` (README "Debugging a precision failure").
JSON_SHAPE = {
    "format": "'explain/1'",
    "row": "row id", "guarantee": "the claim's guarantee class", "origin": "where the claim came from",
    "inputs": "[{path, hex, decimal}] every number of claim.inputs",
    "claimed_value": "the claim's value as given", "claimed_model": "the claim's declared model or null",
    "verdict": "{kind, measure, measured, prec, note, witness, enclosure}",
    "working_format": "'f32' | 'f64' | null (rows without a kernel trace)",
    "model": "{declared, u, eta, bound: [decimal], terms: {name: decimal}, dominant_term} | null",
    "components": "[{name, claimed: {hex, decimal}, truth: {decimal, lo, hi, exact}, traced: {hex, decimal},"
                  " difference, ulps, over_model, traced_ulps}]",
    "worst_component": "name of the component with the largest |claimed - truth| in ulps",
    "trace": "{output, steps: [{index, op, args, where, label, working, exact, local_ulps, accumulated_ulps,"
             " share, cancellation}], dominant: step index, dominant_text} | null",
    "source_trace": "{working_format, components, trace, what} | null (path queries from a source and origin)",
    "floor": "{E, ulp32_E, two_ulp32_E, narrowing_error, floor, dominant_floor_term, effective_position_error,"
             " accepted, worst_narrowing, fix: {kind: origin_shift|split|none, ...}} | null",
    "certified": "{enclosures: [{name, lo, hi, width}], widest} | null",
    "undecided": "{precisions_tried, best_enclosure} | null",
    "notes": "[text]",
    "plot": "the PNG written by --plot (only then)",
}


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


def _safe_float(q) -> Optional[float]:
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


def _fmt_of(claim: Claim, override: Optional[str]) -> str:
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
            text += f"; amplified by the cancellation at step {worst['index']} ({worst['where'] or worst['label']}, {size})"
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


# --- position floor, origin shift, chunk split ------------------------------------------------


def _effective(inputs: dict) -> float:
    pe = dec(inputs["position_error"])
    rel = dec(inputs.get("relative_position_error", 0.0))
    scale = dec(inputs.get("asset_scale", 1.0))
    return max(pe, round_nearest_f64(to_mpq(rel) * to_mpq(scale)))


def _floor_of(src, origin) -> Optional[tuple]:
    n = replay_narrowing(src, origin)
    if not np.all(np.isfinite(n)):
        return None
    floor, E = replay_position_floor(src, origin)
    return floor, E


def _passes(src, origin, eff) -> bool:
    f = _floor_of(src, origin)
    return f is not None and eff >= f[0]


def _center(src) -> np.ndarray:
    flat = src.reshape(-1, 3)
    return flat.min(axis=0) / 2.0 + flat.max(axis=0) / 2.0  # no overflow; any float64 is an origin


def _smallest_shift(src, origin, eff, steps: int = 48) -> Optional[np.ndarray]:
    """The origin nearest the given one, on the segment to the controls' box centre, that
    passes (bisection on the fraction of the way; the answer is checked, else the centre)."""
    c = _center(src)
    if not _passes(src, c, eff):
        return None
    lo, hi = 0.0, 1.0
    found = None
    for _ in range(steps):
        m = (lo + hi) / 2
        o = origin + m * (c - origin)
        if _passes(src, o, eff):
            hi = m
        else:
            lo = m
    o = origin + hi * (c - origin)
    found = o if _passes(src, o, eff) else c
    return found


def _round_origin(src, found, eff) -> np.ndarray:
    """A round origin people can type: the coarsest power-of-two grid point near ``found``
    that still passes (``found`` itself when none does)."""
    for k in range(60, -60, -1):
        g = 2.0**k
        cand = np.round(found / g) * g
        if _passes(src, cand, eff):
            return cand
    return found


def _split(src, eff) -> tuple[list, Optional[int]]:
    """Greedy chunks of consecutive spans, each at its own box centre, that pass; the index
    of a span that cannot pass even alone (None when all do)."""
    chunks, start = [], 0
    n = src.shape[0]
    while start < n:
        if not _passes(src[start:start + 1], _center(src[start:start + 1]), eff):
            return chunks, start
        end = start + 1
        while end < n and _passes(src[start:end + 1], _center(src[start:end + 1]), eff):
            end += 1
        chunks.append((start, end, _center(src[start:end])))
        start = end
    return chunks, None


def floor_analysis(src: np.ndarray, origin: np.ndarray, inputs: dict) -> dict:
    """The position floor of a path source at a chunk origin against its effective position
    error, the worst narrowed component, and (when it fails) a passing origin shift or split.
    Exact (replayed in rationals by ``interval.narrowing``)."""
    eff = _effective(inputs)
    out: dict = {"origin": [enc(float(v)) for v in origin], "effective_position_error": _num(eff),
                 "position_error": _num(dec(inputs["position_error"]))}
    narrowed = replay_narrowing(src, origin)
    if not np.all(np.isfinite(narrowed)):
        out.update({"accepted": False, "floor": None,
                    "why": "chunk-relative controls exceed the float32 range"})
    else:
        floor, E = replay_position_floor(src, origin)
        ulpE = exact_ulp32(np.float32(E))
        rel = src.reshape(-1, 3) - origin
        errs = [[abs(to_mpq(float(n)) - (to_mpq(float(s)) - to_mpq(float(o))))
                 for n, s, o in zip(nr, sr, origin)] for nr, sr in zip(narrowed.reshape(-1, 3), src.reshape(-1, 3))]
        flat = [(e, i, k) for i, row_ in enumerate(errs) for k, e in enumerate(row_)]
        worst = max(flat, key=lambda t: t[0])
        nerr = worst[0]
        out.update({"E": _num(E), "ulp32_E": _num(float(ulpE)), "two_ulp32_E": _num(float(2 * ulpE)),
                    "narrowing_error": _num(float(nerr)) if float(nerr) == nerr else {"hex": enc(nerr), "decimal": _dec(nerr)},
                    "floor": _num(floor), "accepted": bool(eff >= floor),
                    "dominant_floor_term": "2 ulp32(E)" if 2 * ulpE >= nerr else "narrowing error",
                    "worst_narrowing": {"control": [int(worst[1] // 4), int(worst[1] % 4)], "axis": int(worst[2]),
                                        "relative": _num(float(rel[worst[1], worst[2]])),
                                        "narrowed": _num(float(narrowed.reshape(-1, 3)[worst[1], worst[2]]))}})
    if out["accepted"]:
        out["fix"] = None
        return out
    shift = _smallest_shift(src, origin, eff)
    if shift is not None:
        f, E2 = replay_position_floor(src, shift)
        r = _round_origin(src, shift, eff)
        out["fix"] = {"kind": "origin_shift", "origin": [enc(float(v)) for v in shift],
                      "shift": [enc(float(v)) for v in shift - origin],
                      "origin_decimal": [repr(float(v)) for v in shift],
                      "shift_decimal": [repr(float(v)) for v in shift - origin], "floor": _num(f), "E": _num(E2),
                      "round_origin": [enc(float(v)) for v in r], "round_origin_decimal": [repr(float(v)) for v in r],
                      "round_origin_floor": _num(replay_position_floor(src, r)[0])}
        return out
    chunks, bad = _split(src, eff)
    c = _center(src)
    best = _floor_of(src, c)
    out["best_single_chunk_floor"] = None if best is None else _num(best[0])
    if bad is None:
        out["fix"] = {"kind": "split", "chunks": [{"spans": [a, b], "origin": [enc(float(v)) for v in o],
                                                    "floor": _num(replay_position_floor(src[a:b], o)[0])}
                                                   for a, b, o in chunks]}
    else:
        one = _floor_of(src[bad:bad + 1], _center(src[bad:bad + 1]))
        out["fix"] = {"kind": "none", "span": bad,
                      "why": f"span {bad} alone at its own centre has floor "
                             f"{'beyond float32' if one is None else repr(one[0])}, above the effective position "
                             f"error: subdivide the span (de Casteljau) or raise position_error"}
    return out


def _source_trace(src, origin, span: int, u: float, fmt: str) -> tuple[dict, list]:
    """Trace a source span from asset coordinates: origin subtraction (float64), narrowing,
    then ``cubic_point`` in ``fmt``; the truth is the *source* curve relative to the origin."""
    T64 = trace_context("f64")
    s = T64.asarray(src[span], label="source")
    o = T64.asarray(origin, label="origin")
    rel = s - o
    for v in np.ravel(rel):
        T64.tape.steps[v.i].label = "origin subtraction"
    n = T64.narrow32(rel, label="narrow32")
    if fmt == "f32":
        T = TraceContext(np.float32)
        T.tape = T64.tape
        P = np.frompyfunc(lambda a: T._push("convert", (a.i,), np.float32(a.w), a.x, gmpy2.mpq(0),
                                            label="float32 value (exact)", where=""), 1, 1)(n)
    else:
        T, P = T64, n
    B = K.cubic_point(T, P, T.asarray(u, label="u"))
    return T.tape, list(B)


# --- certified chains and undecided verdicts --------------------------------------------------


def _residual_chain(claim: Claim, verdict) -> Optional[dict]:
    """distance.inversion_residual: the target (exact), the claimed residual band around it,
    the oracle's enclosures of L(span, u), and the distance_error band."""
    from .families import distance as D

    try:
        target = D.effective_target(claim)
        rb = to_mpq(dec(claim.value["residual_bound"]))
        E = to_mpq(dec(claim.inputs["distance_error"]))
        enclose = D.truth(claim)
    except (KeyError, ValueError, TypeError):
        return None
    links = [{"name": "claimed residual band target +- residual_bound", "lo": enc(target - rb), "hi": enc(target + rb),
              "width": _dec(2 * rb), "_w": 2 * rb},
             {"name": "allowed band target +- distance_error", "lo": enc(target - E), "hi": enc(target + E),
              "width": _dec(2 * E), "_w": 2 * E}]
    for prec in D.BUDGET:
        L = enclose(prec).value
        w = upper(L) - lower(L)
        links.append({"name": f"oracle enclosure of L(span, u) at {prec} bits", "lo": enc(lower(L)), "hi": enc(upper(L)),
                      "width": _dec(w), "_w": w, "distance_to_target": _dec(max(abs(lower(L) - target), abs(upper(L) - target)))})
        if verdict.prec is not None and prec >= verdict.prec:
            break
    widest = max(links, key=lambda r: r["_w"])
    for r in links:
        r.pop("_w")
    return {"enclosures": links, "widest": widest["name"]}


def _projection_chain(claim: Claim, verdict) -> Optional[dict]:
    """projection.strict: the claimed [LowerBound, Distance], the oracle's enclosure of the
    true minimum distance, and the projection gap the claim may use."""
    from .families import projection as PR

    try:
        controls, origin, point, gap, span, nums, met = PR.decode(claim)
        d = PR.decide_lower_bound(controls, origin, point, gap, nums["lower_bound"])
    except (KeyError, ValueError, TypeError, AttributeError):
        return None
    lb, dist, g = to_mpq(nums["lower_bound"]), to_mpq(nums["distance"]), to_mpq(gap)
    m = d.enclosure.distance
    links = [{"name": "claimed [LowerBound, Distance]", "lo": enc(lb), "hi": enc(dist), "width": _dec(dist - lb),
              "_w": dist - lb},
             {"name": "allowed gap: projection_gap", "lo": enc(lb), "hi": enc(lb + g), "width": _dec(g), "_w": g},
             {"name": f"oracle enclosure of the minimum distance at {d.prec} bits", "lo": enc(lower(m)),
              "hi": enc(upper(m)), "width": _dec(upper(m) - lower(m)), "_w": upper(m) - lower(m),
              "slack_below": _dec(lower(m) - lb), "slack_above": _dec(dist - upper(m))}]
    widest = max(links, key=lambda r: r["_w"])
    for r in links:
        r.pop("_w")
    return {"enclosures": links, "widest": widest["name"]}


def _certified_chain(claim: Claim, verdict) -> Optional[dict]:
    if claim.row == "distance.inversion_residual":
        return _residual_chain(claim, verdict)
    if claim.row == "projection.strict":
        return _projection_chain(claim, verdict)
    if claim.row not in ("distance.length_bounds", "distance.prefix_bounds"):
        return None
    from .families import distance as D

    try:
        lo, hi = to_mpq(dec(claim.value["lower"])), to_mpq(dec(claim.value["upper"]))
        enclose = D.truth(claim)
    except (KeyError, ValueError, TypeError):
        return None
    links = [{"name": "claimed [lower, upper]", "lo": enc(lo), "hi": enc(hi), "width": _dec(hi - lo)}]
    for prec in D.BUDGET:
        L = enclose(prec).value
        links.append({"name": f"oracle arc-length enclosure at {prec} bits", "lo": enc(lower(L)), "hi": enc(upper(L)),
                      "width": _dec(upper(L) - lower(L)),
                      "slack_below": _dec(lower(L) - lo), "slack_above": _dec(hi - upper(L))})
        if verdict.prec is not None and prec >= verdict.prec:
            break
    widest = max(links, key=lambda r: gmpy2.mpq(Fraction(r["width"])) if r["width"] != "0" else 0)
    return {"enclosures": links, "widest": widest["name"]}


def _undecided(claim: Claim, verdict) -> Optional[dict]:
    if verdict.kind is not VerdictKind.Undecided:
        return None
    import importlib

    from .decide import DEFAULT_BUDGET

    fam = claim.row.split(".")[0]
    try:
        budget = getattr(importlib.import_module(f"oracles.checks.{fam}"), "BUDGET", DEFAULT_BUDGET)
    except ImportError:
        budget = DEFAULT_BUDGET
    tried = [p for p in budget if verdict.prec is None or p <= verdict.prec]
    return {"precisions_tried": tried, "best_enclosure": verdict.enclosure,
            "best_enclosure_decimal": None if verdict.enclosure is None else _decimal_view(verdict.enclosure)}


def _decimal_view(x):
    from .ledger import decimal_view

    return decimal_view(x)


# --- the explanation --------------------------------------------------------------------------


def explain_claim(claim: Claim, *, origin: Any = None, fmt: Optional[str] = None, steps: int = 400,
                  source: Optional[dict] = None) -> dict:
    """The explanation of one claim as a JSON-ready dict (shape :data:`JSON_SHAPE`).

    Args:
        claim: the claim.
        origin: where it came from (recorded as given).
        fmt: the working format to trace in (default: float32 for a declared ``u = 2^-24``).
        steps: at most this many steps of the trace are listed (the last ones).
        source: for a path query, ``{"source", "origin", "span", "u", ...tolerances}``: adds
            the source trace (origin subtraction, narrowing) and the floor analysis.
    """
    from .ledger import check_claim

    try:
        row(claim.row)
    except KeyError as e:
        raise ExplainError(f"unknown row {claim.row!r}") from e
    try:
        v = check_claim(claim)
    except (ValueError, KeyError, TypeError, IndexError, ArithmeticError) as e:
        raise ExplainError(f"the {claim.row} checker cannot read this claim: {type(e).__name__}: {e}") from e
    out: dict = {"format": FORMAT, "row": claim.row, "guarantee": claim.guarantee.value, "origin": origin,
                 "inputs": _flatten_inputs(claim.inputs),
                 "verdict": {"kind": v.kind.value, "measure": v.measure, "measured": v.measured, "prec": v.prec,
                             "note": v.note, "witness": v.witness, "enclosure": v.enclosure,
                             "witness_decimal": None if v.witness is None else _decimal_view(v.witness)},
                 "claimed_value": claim.value, "claimed_model": claim.model, "_inputs": claim.inputs,
                 "working_format": None, "model": None, "components": [], "worst_component": None,
                 "trace": None, "source_trace": None, "floor": None, "certified": None, "undecided": None,
                 "notes": []}
    recipe = RECIPES.get(claim.row)
    if recipe is not None:
        f = _fmt_of(claim, fmt)
        T = trace_context(f)
        try:
            traced = recipe(claim, T)
        except (KeyError, ValueError, TypeError, IndexError, NumberError) as e:
            traced = []
            out["notes"].append(f"no kernel trace: {type(e).__name__}: {e}")
        if traced and fmt is None and f == "f64" and not _same_as_traced(traced):
            # A claim without a model that is the float32 kernel's value bit for bit: a
            # float32 producer judged at binary64. Trace what it computed, and say so.
            T32 = trace_context("f32")
            try:
                t32 = recipe(claim, T32)
            except (KeyError, ValueError, TypeError, IndexError, NumberError):
                t32 = []
            if t32 and _same_as_traced(t32):
                f, T, traced = "f32", T32, t32
                out["notes"].append(
                    "the claimed value is the float32 kernel's value bit for bit, but the claim declares no "
                    "model, so it is judged against the binary64 reference model; a float32 producer declares "
                    'model {"u": "0x1p-24"} (docs/casefile.md)')
        if traced:
            out["working_format"] = f
            uu, eta = _model_u(claim)
            first = traced[0]
            try:
                r = resolve(claim, lambda u, e: [0.0])  # only the declared form matters here
                declared = r.declared
            except (NumberError, ValueError):
                declared = claim.model
            if first.terms:
                dom = max(first.terms, key=lambda k: first.terms[k])
                out["model"] = {"declared": declared, "u": _num(uu), "eta": _num(eta),
                                "bound": [_num(t.bounds[0]) if t.bounds[0] is not None else None for t in traced],
                                "terms": {k: _num(float(val)) for k, val in first.terms.items()},
                                "dominant_term": dom}
                if declared and "bound" in declared:
                    out["model"]["note"] = "the claim declares an explicit bound; the verdict judges that bound"
            comps, worst = [], None
            for t in traced:
                for name, c, o, b in zip(t.names, t.claimed, t.outputs, t.bounds):
                    rec = _component_json(name, c, o, b, f)
                    comps.append(rec)
                    key = abs(rec.get("ulps") or rec.get("traced_ulps") or 0.0)
                    if worst is None or key > worst[0]:
                        worst = (key, name, o)
            out["components"] = comps
            if worst is not None:
                out["worst_component"] = worst[1]
                out["trace"] = trace_json(T.tape, worst[2], f, worst[1], steps)
            off = [c for c in comps if c.get("claimed_minus_traced_ulps") not in (None, 0.0)]
            if off:
                biggest = max(off, key=lambda c: abs(c["claimed_minus_traced_ulps"]))
                out["notes"].append(
                    f"the claimed value is not what the reference kernel computes in {f}: "
                    f"{biggest['name']} differs by {biggest['claimed_minus_traced_ulps']:.6g} ulps; the trace explains "
                    "the kernel's own error, the rest is the producer's arithmetic")
    if claim.row == "path.position_floor":
        try:
            src = dec_array(claim.inputs["source"])
            org = dec_array(claim.inputs["origin"])
            out["floor"] = floor_analysis(src, org, claim.inputs)
        except (KeyError, ValueError, TypeError) as e:
            out["notes"].append(f"no floor analysis: {e}")
    if source is not None:
        src, org = source["source"], source["origin"]
        f = fmt or source.get("format", "f64")
        tape, B = _source_trace(src, org, source["span"], source["u"], f)
        comps = [_component_json(f"position[{i}]", None, b, None, f) for i, b in enumerate(B)]
        worst = max(range(3), key=lambda i: abs(comps[i].get("traced_ulps") or 0.0))
        out["source_trace"] = {"working_format": f, "components": comps,
                               "trace": trace_json(tape, B[worst], f, f"position[{worst}]", steps),
                               "what": "the source span in asset coordinates minus the origin, narrowed, evaluated: "
                                       "its error against the exact source curve includes the narrowing"}
        if "position_error" in source:
            out["floor"] = floor_analysis(src, org, source)
            if not out["floor"]["accepted"]:
                out["notes"].append("TryPreparePath answers UnsupportedPrecision for this source and origin: no "
                                    "evaluation exists; the values above are those of the narrowed controls, "
                                    "shown to locate the loss")
    out["certified"] = _certified_chain(claim, v) if claim.guarantee.value == "Certified" else None
    out["undecided"] = _undecided(claim, v)
    return out


# --- where claims come from -------------------------------------------------------------------


def claim_from_file(path: str, index: int) -> Claim:
    """Claim ``index`` of a case file (ExplainError when it is missing or malformed)."""
    from .casefile import CaseFileError, load_case_file

    try:
        cf = load_case_file(path)
    except CaseFileError as e:
        raise ExplainError(str(e)) from e
    claims = dict(cf.claims)
    if index in claims:
        return claims[index]
    errs = [e for e in cf.malformed if e.claim == index]
    if errs:
        raise ExplainError(f"claim {index} is malformed: " + "; ".join(str(e) for e in errs))
    raise ExplainError(f"{path} has {cf.total} claims; there is no claim {index}")


def claim_from_corpus(row_id: str, case: int, seed: int, nth: int = 0) -> Claim:
    """The ``nth`` claim of ``row_id`` among the claims of corpus case ``case`` (the index in
    the row's family's ``generate(seed, default_cases)``, or beyond it when larger)."""
    from .families import families

    try:
        row(row_id)
    except KeyError as e:
        raise ExplainError(f"unknown row {row_id!r}") from e
    fam = next((f for f in families() if row_id in f.checkers), None)
    if fam is None:
        raise ExplainError(f"no family checks {row_id}")
    cases = fam.generate(seed, max(case + 1, fam.default_cases))
    if not 0 <= case < len(cases):
        raise ExplainError(f"family {fam.name} has no case {case}")
    picked = [c for c in fam.claims(cases[case]) if c.row == row_id]
    if not picked:
        raise ExplainError(f"case {case} of family {fam.name} (seed {seed}) makes no {row_id} claim")
    if not 0 <= nth < len(picked):
        raise ExplainError(f"case {case} makes {len(picked)} {row_id} claims; there is no claim {nth}")
    return picked[nth]


def claim_from_ledger_index(index: int, seed: int, cases: Optional[int] = None, only=()) -> Claim:
    """Claim ``index`` of a ledger run (``ledger --seed S [--cases N] [--family F ...]``
    numbers its claims in this order and prints ``violated: claim I (row)``)."""
    from .ledger import select_families

    try:
        fams = select_families(only)
    except ValueError as e:
        raise ExplainError(str(e)) from e
    i = 0
    for fam in fams:
        for case in fam.generate(seed, fam.default_cases if cases is None else cases):
            made = list(fam.claims(case))
            if index < i + len(made):
                return made[index - i]
            i += len(made)
    raise ExplainError(f"the ledger run has {i} claims; there is no claim {index}")


def explain_query(query: dict, *, fmt: Optional[str] = None, steps: int = 400) -> dict:
    """Explain an ad-hoc query (JSON object):

    * a claim (``row``, ``value``, ``inputs``, optional ``guarantee`` and ``model``) as in a
      case file (every row: distance resolutions, track times, projections, triangles, ...);
    * native queries of the other families, answered by their fast paths: ``"track"`` (a
      track time), ``"triangle"`` (a segment), ``"distance"`` (a distance resolution),
      ``"projection"`` (a projection point); see the ``_*_query_claims`` docstrings;
    * ``{"query": "path", "controls" (4x3 float32) or "source" (n x 4 x 3) with "origin",
      "span", "u", "format": "f32"|"f64", optional "position_error",
      "relative_position_error", "asset_scale"}``: a path evaluation at (span, u), evaluated
      by the fast path (``format`` "f64", as ``TryEvaluatePath``) or by the kernel in float32
      (``format`` "f32", a float32 producer with the declared model ``u = 2^-24``).
    """
    if not isinstance(query, dict):
        raise ExplainError("a query is a JSON object")
    if "row" in query:
        from .rows import row as _row

        try:
            g = query.get("guarantee") or _row(query["row"]).guarantee.value
            claim = Claim.from_json({"guarantee": g, "model": None, **query})
        except (KeyError, ValueError, TypeError) as e:
            raise ExplainError(f"not a claim: {e}") from e
        return explain_claim(claim, origin={"query": "claim"}, fmt=fmt, steps=steps)
    kind = query.get("query")
    if kind == "path":
        return _explain_path_query(query, fmt=fmt, steps=steps)
    makers = {"track": _track_query_claims, "triangle": _triangle_query_claims,
              "distance": _distance_query_claims, "projection": _projection_query_claims}
    if kind not in makers:
        raise ExplainError("a query is a claim (with 'row') or {'query': 'path' | 'track' | 'triangle' | "
                           "'distance' | 'projection', ...}")
    try:
        made = makers[kind](query)
    except ExplainError:
        raise
    except (KeyError, ValueError, TypeError, IndexError, NumberError) as e:
        raise ExplainError(f"bad {kind} query: {type(e).__name__}: {e}") from e
    pick = query.get("pick")
    chosen = [c for c in made if pick is None or c.row == pick]
    if not chosen:
        rows_ = sorted({c.row for c in made})
        raise ExplainError(f"the fast path made no {pick or ''} claim for this {kind} query"
                           + (f" (it made: {', '.join(rows_)})" if rows_ else " (it failed or rejected the input)"))
    return explain_claim(chosen[0], origin={"query": kind, "pick": chosen[0].row}, fmt=fmt, steps=steps)


# Native queries: the fast path of the family answers the query, and its claim is explained.


def _policy(name, default="Reject"):
    from reference.status import BoundaryPolicy

    return BoundaryPolicy(name if name is not None else default)


def _track_query_claims(q: dict) -> list:
    """``{"query": "track", "keys": [[time, value, in_slope, out_slope, "Linear"|"Hermite"|
    "Step"], ...], "time": t, "policy": "Reject", "side": "Outgoing"}``."""
    from reference.status import SpanSide
    from reference.track import TrackInterpolation, TrackKey

    from .families import track as TR

    keys = [TrackKey(dec(k[0]), np.float32(dec(k[1])), np.float32(dec(k[2])), np.float32(dec(k[3])),
                     TrackInterpolation(k[4])) for k in q["keys"]]
    case = {"keys": keys, "queries": [(dec(q["time"]), _policy(q.get("policy")), SpanSide(q.get("side", "Outgoing")))]}
    return [c for c in TR.claims(case) if c.row == "track.values"]


def _triangle_query_claims(q: dict) -> list:
    """``{"query": "triangle", "vertices", "triangles", "start", "end", "tolerance", "pick"}``
    (``pick``: a triangle row; default the first claim, ``triangle.first_hit``)."""
    from .families import triangle as TG

    case = TG.TriangleCase("query", dec_array(q["vertices"]).reshape(-1, 3),
                           np.asarray(q["triangles"], dtype=np.int64).reshape(-1, 3),
                           dec_array(q["start"]), dec_array(q["end"]), dec(q.get("tolerance", 1e-12)))
    return TG.case_claims(case)


def _distance_query_claims(q: dict) -> list:
    """``{"query": "distance", "source" (n x 4 x 3), "origin", "distance": s, "policy":
    "Reject"|"Clamp"|"Wrap", "relative_error": r (distance_error = r * the control polygon's
    length, default 1e-6), "closed"}``: TryResolveDistance's claim."""
    from reference.distance import DistancePreparation, DistanceQuery, try_build_distance_map, try_resolve_distance
    from reference.status import GuaranteeClass as G, PathDistance

    from .families import distance as D

    src = dec_array(q["source"]).reshape(-1, 4, 3)
    case = D.make_case("query", src, float(q.get("relative_error", 1e-6)), bool(q.get("closed", False)),
                   tuple(dec_array(q.get("origin", [0, 0, 0]))))
    prep = D.prepare(case)
    if not prep.ok:
        raise ExplainError(f"the path does not prepare: {prep.status.value}")
    path = prep.value.view()
    built = try_build_distance_map(path, DistancePreparation(D.LIMITS))
    if not built.ok:
        raise ExplainError(f"the distance map does not build: {built.status.value}")
    dmap = built.value.view()
    s = dec(q["distance"])
    policy = _policy(q.get("policy"))
    r = try_resolve_distance(path, dmap, DistanceQuery(PathDistance(s), policy, 128))
    if not r.ok:
        raise ExplainError(f"TryResolveDistance answers {r.status.value}")
    at = r.value
    return [Claim("distance.inversion_residual", G.Certified,
                  {"residual_bound": enc(at.residual_bound), "distance": enc(at.distance.value)},
                  {"controls": enc(path.controls), "distance_error": enc(dmap.distance_error),
                   "span": at.parameter.span_index, "u": enc(at.parameter.u), "query": enc(s),
                   "policy": policy.value, "total_estimate": enc(dmap.total_estimate)})]


def _projection_query_claims(q: dict) -> list:
    """``{"query": "projection", "source" (n x 4 x 3), "origin", "point", "gap",
    "position_error", "max_iterations", "closed", "pick"}``: the strict projection's claim
    (and the approximate one)."""
    from .families import projection as PR

    src = dec_array(q["source"]).reshape(-1, 4, 3)
    case = {"kind": "projection", "name": "query", "source": src,
            "origin": dec_array(q.get("origin", [0, 0, 0])), "closed": bool(q.get("closed", False)),
            "point": dec_array(q["point"]), "gap": dec(q.get("gap", 1e-6)),
            "position_error": dec(q.get("position_error", 1e-5)),
            "max_iterations": int(q.get("max_iterations", 4096)), "approx_iterations": int(q.get("approx_iterations", 8))}
    return PR.claims(case)


def _explain_path_query(q: dict, *, fmt: Optional[str], steps: int) -> dict:
    from reference.context import F32
    from reference.status import GuaranteeClass as G

    f = fmt or q.get("format", "f64")
    if f not in ("f32", "f64"):
        raise ExplainError("format is 'f32' or 'f64'")
    try:
        u = dec(q["u"])
        span = int(q.get("span", 0))
        if "controls" in q:
            P = dec_array(q["controls"], np.float32)
            src = None
        else:
            src = dec_array(q["source"]).reshape(-1, 4, 3)
            org = dec_array(q.get("origin", [0, 0, 0]))
            if not 0 <= span < src.shape[0]:
                raise ExplainError(f"span {span} out of range (the source has {src.shape[0]} spans)")
            P = replay_narrowing(src[span:span + 1], org)[0]
    except (KeyError, TypeError, NumberError) as e:
        raise ExplainError(f"bad path query: {e}") from e
    if P.shape != (4, 3) or not 0.0 <= u <= 1.0 or not np.all(np.isfinite(P)):
        raise ExplainError("a path query needs finite (4, 3) controls and u in [0, 1]")
    if f == "f32":
        u32 = np.float32(u)
        val = K.cubic_point(F32, P, u32)
        inputs = {"controls": enc(P), "u": enc(float(u32))}
        model = {"name": "float32 evaluator", "u": "0x1p-24"}
    else:
        from reference.context import F64

        val = K.cubic_point(F64, P.astype(np.float64), np.float64(u))
        inputs = {"controls": enc(P), "u": enc(u)}
        model = None
    claim = Claim("path.interior_positions", G.Rounded, enc(val), inputs, model)
    source = None
    if src is not None:
        source = {k: v for k, v in q.items() if k in ("position_error", "relative_position_error", "asset_scale")}
        source.update({"source": src, "origin": org, "span": span, "u": float(np.float32(u)) if f == "f32" else u,
                       "format": f})
    return explain_claim(claim, origin={"query": "path"}, fmt=f, steps=steps, source=source)


# --- text -------------------------------------------------------------------------------------


def _g(x, digits=4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def _render_trace(lines: list, tr: dict, title: str, max_rows: int) -> None:
    lines.append(f"{title} (output {tr['output']}, error {_g(tr['error_ulps'])} ulps):")
    lines.append(f"  {'step':>5} {'op':8} {'working value':>24} {'exact value':>24} {'local':>9} {'accum':>9} "
                 f"{'share':>6}  where")
    rows_ = tr["steps"]
    # The steps that matter first: every step with a visible share, then the rest elided.
    keep = [s for s in rows_ if abs(s["share"]) >= 0.005 or s["index"] == tr["dominant"]
            or s["op"] in ("narrow32",) or (s["cancellation"] or 0) >= 256]
    shown = keep[-max_rows:] if len(keep) > max_rows else keep
    hidden = len(rows_) - len(shown)
    for s in shown:
        mark = "  <== most error entered here" if s["index"] == tr["dominant"] else ""
        canc = f"  [cancellation x{_g(s['cancellation'], 3)}]" if (s["cancellation"] or 0) >= 256 else ""
        ex = s["exact"]["decimal"] if s["exact"] else "-"
        lines.append(f"  {s['index']:>5} {s['op']:8} {s['working']['decimal']:>24} {ex[:24]:>24} "
                     f"{_g(s['local_ulps'], 3):>9} {_g(s['accumulated_ulps'], 3):>9} {100 * s['share']:6.1f}%  "
                     f"{(s['where'] or s['label'])[:70]}{canc}{mark}")
    if hidden:
        lines.append(f"  ... {hidden} steps with under 0.5% of the error not shown (--json lists them all)")
    if tr["dominant"] is None:
        lines.append(f"  {tr['dominant_text']}")
    else:
        lines.append(f"  most error entered at step {tr['dominant']}: {tr['dominant_text']}")


def dec_q_safe(x):
    """The exact rational of a claim number (None when unreadable)."""
    try:
        v = parse_number(x)
    except NumberError:
        return None
    return gmpy2.mpq(v.numerator, v.denominator) if isinstance(v, Fraction) else None


def _num_or_none(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _diff_float(c: dict):
    d = c.get("difference")
    if d is None:
        return None
    try:
        return float(d)
    except ValueError:
        return None


def render_text(ex: dict, max_rows: int = 40) -> str:
    """The explanation for people."""
    L = [f"row {ex['row']} ({ex['guarantee']}); verdict {ex['verdict']['kind']}"
         + (f", {ex['verdict']['measure']} = {_g(ex['verdict']['measured'], 6)}" if ex['verdict']['measure'] else "")
         + (f" at {ex['verdict']['prec']} bits" if ex['verdict']['prec'] else "")]
    if ex["verdict"]["note"]:
        L.append(f"  note: {ex['verdict']['note']}")
    L.append("inputs (exact hex | decimal):")
    for i in ex["inputs"][:60]:
        L.append(f"  {i['path']:32} {i['hex']:>26} | {i['decimal']}")
    if len(ex["inputs"]) > 60:
        L.append(f"  ... {len(ex['inputs']) - 60} more (--json)")
    m = ex["model"]
    if m:
        L.append(f"error model: u = {m['u']['decimal']}, eta = {m['eta']['decimal']}"
                 + (f", declared {json.dumps(m['declared'])}" if m["declared"] else " (reference model, binary64)"))
        for k, val in m["terms"].items():
            L.append(f"  {k:60} {val['decimal']}" + ("   <- dominates" if k == m["dominant_term"] else ""))
    if ex["components"]:
        L.append(f"components (working format {ex['working_format']}; ulps of {ex['working_format']} at the claimed value):")
        L.append(f"  {'name':12} {'claimed':>24} {'truth':>24} {'claimed-truth':>12} {'ulps':>10} {'/model':>9} {'kernel ulps':>11}")
        for c in ex["components"]:
            mark = "  <- worst" if c["name"] == ex["worst_component"] else ""
            L.append(f"  {c['name']:12} {(c['claimed'] or {}).get('decimal', '-'):>24} "
                     f"{(c['truth'] or {}).get('decimal', '-')[:24]:>24} {_g(_diff_float(c)):>12} "
                     f"{_g(c.get('ulps')):>10} {_g(c.get('over_model')):>9} {_g(c.get('traced_ulps')):>11}{mark}")
        L.append("  exactly (claimed hex | truth, exact or the interval's endpoints):")
        for c in ex["components"]:
            t = c["truth"]
            truth = "-" if t is None else (t["lo"] if t["exact"] else f"[{t['lo']}, {t['hi']}]")
            L.append(f"  {c['name']:12} {(c['claimed'] or {}).get('hex', '-'):>24} | {truth}")
    if ex["trace"]:
        _render_trace(L, ex["trace"], f"shadow trace of the reference kernel in {ex['working_format']}", max_rows)
    if ex.get("source_trace"):
        st_ = ex["source_trace"]
        L.append(f"from the source in asset coordinates ({st_['what']}):")
        for c in st_["components"]:
            L.append(f"  {c['name']:12} evaluated {c['traced']['decimal']:>24}  exact {c['truth']['decimal'][:24]:>24}"
                     f"  error {_g(_num_or_none(c.get('traced_error')))} ({_g(c.get('traced_ulps'))} ulps)")
        _render_trace(L, st_["trace"], "shadow trace from the source", max_rows)
    fl = ex["floor"]
    if fl:
        L.append("position floor (spec 002 Precision):")
        if fl.get("floor") is None:
            L.append(f"  {fl.get('why')}")
        else:
            L.append(f"  E (largest narrowed magnitude)  {fl['E']['decimal']}")
            L.append(f"  ulp32(E)                         {fl['ulp32_E']['decimal']}   2 ulp32(E) = {fl['two_ulp32_E']['decimal']}")
            L.append(f"  narrowing error                  {fl['narrowing_error']['decimal']}   (worst: control "
                     f"{fl['worst_narrowing']['control']} axis {fl['worst_narrowing']['axis']}, "
                     f"{fl['worst_narrowing']['relative']['decimal']} -> {fl['worst_narrowing']['narrowed']['decimal']})")
            L.append(f"  floor = 2 ulp32(E) + narrowing   {fl['floor']['decimal']}   (dominant: {fl['dominant_floor_term']})")
        L.append(f"  effective position error         {fl['effective_position_error']['decimal']}  -> "
                 + ("accepted" if fl["accepted"] else "UnsupportedPrecision"))
        fix = fl.get("fix")
        if fix and fix["kind"] == "origin_shift":
            L.append(f"  fix: move the chunk origin by {fix['shift_decimal']} to {fix['origin_decimal']} "
                     f"(exact: {fix['origin']}); E = {fix['E']['decimal']}, floor {fix['floor']['decimal']}: passes")
            L.append(f"       or to the round origin {fix['round_origin_decimal']} "
                     f"(floor {fix['round_origin_floor']['decimal']}: passes)")
        elif fix and fix["kind"] == "split":
            L.append(f"  no origin passes for the whole asset; split it into {len(fix['chunks'])} chunks:")
            for ch in fix["chunks"]:
                L.append(f"    spans [{ch['spans'][0]}, {ch['spans'][1]}) at origin {ch['origin']}: floor {ch['floor']['decimal']}")
        elif fix:
            L.append(f"  no origin shift or span-granular split passes: {fix['why']}")
    if ex["certified"]:
        L.append("chain of enclosures behind the bound:")
        for e in ex["certified"]["enclosures"]:
            L.append(f"  {e['name']:48} [{_g(_num_or_none(_dec(dec_q_safe(e['lo']))), 12)}, "
                     f"{_g(_num_or_none(_dec(dec_q_safe(e['hi']))), 12)}]  width {_g(_num_or_none(e['width']))}"
                     + (f"  slack below {_g(_num_or_none(e['slack_below']))} above {_g(_num_or_none(e['slack_above']))}"
                        if "slack_below" in e else ""))
        L.append(f"  widest: {ex['certified']['widest']}")
    if ex["undecided"]:
        L.append(f"undecided: precisions tried {ex['undecided']['precisions_tried']}; best enclosure "
                 f"{ex['undecided']['best_enclosure_decimal']}")
    if ex["verdict"]["witness"] is not None and not ex["components"]:
        L.append(f"witness: {json.dumps(ex['verdict']['witness_decimal'])[:2000]}")
    for n in ex["notes"]:
        L.append(f"note: {n}")
    return "\n".join(L) + "\n"


# --- command line -----------------------------------------------------------------------------


def jsonable(x):
    """``x`` with every non-finite float as text ("inf", "-inf", "nan"), so that the output is
    valid JSON (RFC 8259 has no Infinity), and mpq / numpy scalars as claim numbers."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)) or x is None or isinstance(x, str):
        return bool(x) if isinstance(x, np.bool_) else x
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else ("nan" if math.isnan(f) else ("inf" if f > 0 else "-inf"))
    if hasattr(x, "numerator"):
        return enc(x)
    return str(x)


def _read_query(text: str) -> dict:
    if text.startswith("@"):
        try:
            with open(text[1:]) as fh:
                text = fh.read()
        except OSError as e:
            raise ExplainError(f"cannot read {text[1:]}: {e}") from e
    try:
        return json.loads(text)
    except ValueError as e:
        raise ExplainError(f"--query is not JSON: {e}") from e


def resolve_target(args) -> tuple:
    """``(claim, explanation)`` for the command-line arguments (ExplainError on bad ones)."""
    index = getattr(args, "index", None)
    given = [args.file is not None, args.row is not None, args.query is not None, index is not None]
    if sum(given) != 1:
        raise ExplainError("give exactly one of: FILE --claim N, --row ROW --case K, --index I, --query JSON")
    if index is not None:
        claim = claim_from_ledger_index(index, args.seed, getattr(args, "cases", None), getattr(args, "family", ()))
        return claim, explain_claim(claim, origin={"ledger": {"claim": index, "seed": args.seed,
                                                             "cases": getattr(args, "cases", None),
                                                             "family": list(getattr(args, "family", ()))}},
                                    fmt=args.format)
    if args.file is not None:
        if args.claim is None:
            raise ExplainError("FILE needs --claim N (the claim's index in the file)")
        claim = claim_from_file(args.file, args.claim)
        return claim, explain_claim(claim, origin={"file": str(args.file), "claim": args.claim}, fmt=args.format)
    if args.row is not None:
        claim = claim_from_corpus(args.row, args.case, args.seed, args.nth)
        return claim, explain_claim(claim, origin={"corpus": {"row": args.row, "case": args.case, "seed": args.seed,
                                                             "nth": args.nth}}, fmt=args.format)
    q = _read_query(args.query)
    ex = explain_query(q, fmt=args.format)
    claim = Claim.from_json({"row": ex["row"], "guarantee": ex["guarantee"], "value": ex["claimed_value"],
                             "inputs": _inputs_back(ex), "model": ex["claimed_model"]})
    return claim, ex


def _inputs_back(ex: dict) -> dict:
    # The claim an ad-hoc query produced, rebuilt for the plot from the explanation's record.
    return ex.get("_inputs", {})


def main_explain(args) -> int:
    """``python -m oracles explain``: exit 0 when explained, 2 for bad arguments or input."""
    try:
        claim, ex = resolve_target(args)
    except ExplainError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.plot:
        from .plots import PlotsUnavailable, plot_explanation

        try:
            written = plot_explanation(claim, ex, args.plot)
        except PlotsUnavailable as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        except ExplainError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        ex["plot"] = str(written)
    if args.json:
        print(json.dumps(jsonable({k: v for k, v in ex.items() if not k.startswith("_")}), indent=1))
    else:
        sys.stdout.write(render_text(ex, args.steps))
        if args.plot:
            print(f"wrote {ex['plot']}")
    return 0
