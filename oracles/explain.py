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
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from interval.context import lower, to_mpq, upper
from interval.narrowing import replay_narrowing
from interval.trace import trace_context
from reference import kernel as K

from .errormodel import resolve
from .explain_floor import _source_trace, floor_analysis
from .explain_text import render_text
from .explain_trace import (
    RECIPES,
    ExplainError,
    _component_json,
    _dec,
    _flatten_inputs,
    _fmt_of,
    _model_u,
    _num,
    _same_as_traced,
    trace_json,
)
from .model import Claim, NumberError, VerdictKind, dec, dec_array, enc
from .rows import row

__all__ = [
    "JSON_SHAPE",
    "RECIPES",
    "ExplainError",
    "claim_from_corpus",
    "claim_from_file",
    "explain_claim",
    "explain_query",
    "floor_analysis",
    "render_text",
]

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



# --- certified chains and undecided verdicts --------------------------------------------------


def _residual_chain(claim: Claim, verdict) -> dict | None:
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
        links.append({"name": f"oracle enclosure of L(span, u) at {prec} bits", "lo": enc(lower(L)),
                      "hi": enc(upper(L)), "width": _dec(w), "_w": w,
                      "distance_to_target": _dec(max(abs(lower(L) - target), abs(upper(L) - target)))})
        if verdict.prec is not None and prec >= verdict.prec:
            break
    widest = max(links, key=lambda r: r["_w"])
    for r in links:
        r.pop("_w")
    return {"enclosures": links, "widest": widest["name"]}


def _projection_chain(claim: Claim, verdict) -> dict | None:
    """projection.strict: the claimed [LowerBound, Distance], the oracle's enclosure of the
    true minimum distance, and the projection gap the claim may use."""
    from .families import projection as PR

    try:
        controls, origin, point, gap, _span, nums, _met = PR.decode(claim)
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


def _certified_chain(claim: Claim, verdict) -> dict | None:
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


def _undecided(claim: Claim, verdict) -> dict | None:
    if verdict.kind is not VerdictKind.Undecided:
        return None
    import importlib

    from .decide import DEFAULT_BUDGET

    fam = claim.row.split(".")[0]
    try:
        budget = getattr(importlib.import_module(f"oracles.families.{fam}"), "BUDGET", DEFAULT_BUDGET)
    except ImportError:
        budget = DEFAULT_BUDGET
    tried = [p for p in budget if verdict.prec is None or p <= verdict.prec]
    return {"precisions_tried": tried, "best_enclosure": verdict.enclosure,
            "best_enclosure_decimal": None if verdict.enclosure is None else _decimal_view(verdict.enclosure)}


def _decimal_view(x):
    from .ledger import decimal_view

    return decimal_view(x)


# --- the explanation --------------------------------------------------------------------------


def explain_claim(claim: Claim, *, origin: Any = None, fmt: str | None = None, steps: int = 400,
                  source: dict | None = None) -> dict:
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
    from .ledger import MAX_SCALE

    if not 0 <= case < MAX_SCALE * fam.default_cases:  # a typo would make the cases up to it first
        raise ExplainError(f"family {fam.name} has no case {case} (cases 0 to {MAX_SCALE * fam.default_cases - 1}: "
                           f"{MAX_SCALE} times its default corpus)")
    cases = fam.generate(seed, max(case + 1, fam.default_cases))
    picked = [c for c in fam.claims(cases[case]) if c.row == row_id]
    if not picked:
        raise ExplainError(f"case {case} of family {fam.name} (seed {seed}) makes no {row_id} claim")
    if not 0 <= nth < len(picked):
        raise ExplainError(f"case {case} makes {len(picked)} {row_id} claims; there is no claim {nth}")
    return picked[nth]


def claim_from_ledger_index(index: int, seed: int, cases: int | None = None, only=()) -> Claim:
    """Claim ``index`` of a ledger run (``ledger --seed S [--cases N] [--family F ...]``
    numbers its claims in this order and prints ``violated: claim I (row)``)."""
    from .ledger import case_count, select_families

    try:
        fams = select_families(only)
        counts = [case_count(f, cases) for f in fams]
    except ValueError as e:
        raise ExplainError(str(e)) from e
    i = 0
    for fam, n in zip(fams, counts):
        for case in fam.generate(seed, n):
            made = list(fam.claims(case))
            if index < i + len(made):
                return made[index - i]
            i += len(made)
    raise ExplainError(f"the ledger run has {i} claims; there is no claim {index}")


def explain_query(query: dict, *, fmt: str | None = None, steps: int = 400) -> dict:
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
    from reference.distance import (
        DistancePreparation,
        DistanceQuery,
        try_build_distance_map,
        try_resolve_distance,
    )
    from reference.status import GuaranteeClass as G
    from reference.status import PathDistance

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
            "max_iterations": int(q.get("max_iterations", 4096)),
            "approx_iterations": int(q.get("approx_iterations", 8))}
    return PR.claims(case)


def _explain_path_query(q: dict, *, fmt: str | None, steps: int) -> dict:
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
        from .plots import NoPicture, PlotsUnavailable, plot_explanation

        try:
            written = plot_explanation(claim, ex, args.plot)
        except PlotsUnavailable as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        except (NoPicture, ExplainError) as e:
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
