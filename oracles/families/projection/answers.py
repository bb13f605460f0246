"""Our fast path answering projection requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

The path owner is replaced by every step that carries ``path`` and prepares. The result is the
caller's: one ``ProjectionResult`` per request that every step passes to the fast path, and a
step's output is read from that object after the step, so a query that writes it on a failure
is seen ("Strict projection leaves its result unchanged on BudgetExceeded or
UnsupportedPrecision"). Each step reserves a fresh scratch of its ``scratch_capacity``.

Claims: a strict claim when ``try_project_point`` succeeds, an approximate claim (with its
``result_guarantee``) when ``project_point_approximate`` does.
"""

from __future__ import annotations

import numpy as np

from reference.path import PathPreparation, PathSource, PathSpanSource, try_prepare_path
from reference.query import (ProjectionQuery, ProjectionResult, ProjectionScratch, project_point_approximate,
                             try_project_point)
from reference.status import LIMIT_RANGES, TOLERANCE_RANGES, GuaranteeClass as G, ToleranceProfile, WorkLimits

from ...model import Claim, dec, dec_array, enc
from ...request import Answer, Request, StepAnswer

__all__ = ["answer", "make_claim", "result_state"]


def make_claim(row, guarantee, view, case, result, max_iterations, extra=None) -> Claim:
    """The claim of one projection result (``case["point"]`` the query point); ``inputs`` holds
    exactly what the checkers read (the path's closedness does not change the truth, the same
    set of spans, but it decides whether the terminal endpoint is a candidate)."""
    value = {"span": result.parameter.span_index, "u": enc(result.parameter.u),
             "distance": enc(result.distance), "lower_bound": enc(result.lower_bound),
             "gap": enc(result.gap), "is_gap_met": bool(result.is_gap_met),
             "iterations": int(result.iterations)}
    if extra:
        value.update(extra)
    inputs = {"controls": enc(view.controls), "origin": enc(view.origin),
              "point": enc(np.asarray(case["point"], dtype=np.float64)),
              "projection_gap": enc(view.tolerance.projection_gap),
              "max_iterations": int(max_iterations), "is_closed": bool(view.is_closed)}
    return Claim(row, guarantee, value, inputs)


def result_state(r: ProjectionResult) -> dict:
    """The caller's result as a step's output (every field)."""
    return {"span": r.parameter.span_index, "u": enc(float(r.parameter.u)), "distance": enc(float(r.distance)),
            "lower_bound": enc(float(r.lower_bound)), "gap": enc(float(r.gap)), "is_gap_met": bool(r.is_gap_met),
            "guarantee": r.guarantee.value, "iterations": int(r.iterations)}


def _limit(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else dec(v)


def _prepare(inp: dict):
    spans = [PathSpanSource(dec_array(s["controls"]), dec(s["domain_width"])) for s in inp["spans"]]
    tol = ToleranceProfile(**{k: dec(inp["tolerance"][k]) for k in TOLERANCE_RANGES})
    limits = WorkLimits(**{k: _limit(inp["limits"][k]) for k in LIMIT_RANGES})
    origin = tuple(float(x) for x in dec_array(inp["origin"]))
    return try_prepare_path(PathSource(spans, revision=inp["revision"], is_closed=bool(inp["is_closed"])),
                            PathPreparation(tol, limits, origin))


def _count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else dec(v)  # a float count is refused


def _project(op: str, view, inp: dict, result: ProjectionResult) -> StepAnswer:
    point = dec_array(inp["point"])
    it = _count(inp["max_iterations"])
    scratch = ProjectionScratch()
    cap = inp["scratch_capacity"]
    if isinstance(cap, int) and 0 <= cap <= 1 << 24:  # the requests never ask more; a bigger one is refused here
        scratch.try_reserve(cap)
    query = ProjectionQuery(point, it)
    strict = op == "TryProjectPoint"
    out = (try_project_point if strict else project_point_approximate)(view, query, scratch, result)
    claims = ()
    if out.ok:
        case = {"point": point}
        if strict:
            claims = (make_claim("projection.strict", G.Certified, view, case, result, it),)
        else:
            claims = (make_claim("projection.approximate", G.Approximate, view, case, result, it,
                                 {"result_guarantee": result.guarantee.value}),)
    return StepAnswer(out.status.value, claims, result_state(result))


def answer(req: Request) -> Answer:
    """Answer a projection request step by step with ``reference.query``."""
    view = None
    result = ProjectionResult()  # the caller's, shared by every step of the request
    steps = []
    for st in req.steps:
        if "path" in st.inputs:
            prep = _prepare(st.inputs["path"])
            if not prep.ok:
                steps.append(StepAnswer(prep.status.value, (), result_state(result)))
                continue
            view = prep.value.view()
        if view is None:
            raise ValueError(f"{req.id}: a projection step without a path")
        if st.op not in ("TryProjectPoint", "ProjectPointApproximate"):
            raise ValueError(f"unknown projection op {st.op!r}")
        steps.append(_project(st.op, view, st.inputs, result))
    needed = {k for r in req.rules for k in (r.before, r.after)}
    return Answer(req.id, tuple(a if i in needed else StepAnswer(a.status, a.claims) for i, a in enumerate(steps)))
