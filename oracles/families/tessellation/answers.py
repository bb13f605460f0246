"""Our fast path answering tessellation requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

Two owners are held the way the spec's output owners are: the surface (a successful
``TryPrepareSurface`` replaces it, a failed one leaves it) and the caller's ``SurfaceMesh``, one
object per request that every ``TryBuildSurfaceMesh`` fills in place ("The function builds a
complete SurfaceMesh staging owner and moves it into the output only on success"). A build's
output is read from that mesh object after the step, so a build that clears or changes the
mesh on failure is seen by the request's ``same_output`` rules ("Every failure keeps the
previous mesh").

Claims are the ones the tessellation rows judge: on a successful build, each patch's position
bound (``tessellation.position_bound``), the whole mesh (``tessellation.shared_positions``) and,
for a Visual normal angle, the estimate (``tessellation.normal_angle``); on a BudgetExceeded of
max_level or max_cell_tests, that failure (``tessellation.shared_positions``, which replays the
rule). ``TryPrepareSurface`` makes no claims here (the surface family judges it).
"""

from __future__ import annotations

import numpy as np

from reference.status import GuaranteeClass as G
from reference.surface import try_prepare_surface
from reference.tessellation import (
    PrecisionProfile,
    SurfaceDegeneracyPolicy,
    SurfaceMesh,
    SurfaceMeshLimits,
    SurfaceMeshProfile,
    try_build_surface_mesh,
)

from ...model import Claim, NumberError, dec, enc
from ...request import Answer, Request, StepAnswer
from ..surface.answers import network_inputs, source_of
from .requests import LIMIT_RANGES, case_inputs

__all__ = ["answer", "build_case", "mesh_state", "profile_of", "run"]

_EMPTY = {"positions": []}


def _number(v):
    if isinstance(v, (bool, int)):
        return v
    try:
        return dec(v)
    except (NumberError, TypeError):
        return v


def _enum(kind, v):
    return kind[v] if isinstance(v, str) and v in kind.__members__ else v


def profile_of(inp: dict) -> SurfaceMeshProfile:
    """The ``SurfaceMeshProfile`` of TryBuildSurfaceMesh's request inputs (values passed as
    given: the fast path refuses what it cannot accept)."""
    limits = SurfaceMeshLimits(**{k: _number(inp["limits"][k]) for k in LIMIT_RANGES})
    return SurfaceMeshProfile(_enum(PrecisionProfile, inp["precision"]), _number(inp["position_error"]),
                              _number(inp["normal_angle_error"]), inp["is_coarser_mesh_accepted"],
                              _enum(SurfaceDegeneracyPolicy, inp["degeneracy"]), limits)


def _claim_profile(inp: dict) -> dict:
    """The profile as the shared-positions row reads it."""
    return {"precision": inp["precision"], "position_error": inp["position_error"],
            "normal_angle_error": inp["normal_angle_error"], "coarser": inp["is_coarser_mesh_accepted"],
            "degeneracy": inp["degeneracy"], "max_level": inp["limits"]["max_level"],
            "max_cell_tests": inp["limits"]["max_cell_tests"]}


def _grid_of(mv, rec) -> np.ndarray:
    nu, nv = 1 << rec.level_u, 1 << rec.level_v
    return mv.vertex_positions[rec.first_vertex:rec.first_vertex + rec.vertex_count].reshape(nu + 1, nv + 1, 3)


def mesh_state(mesh: SurfaceMesh) -> dict:
    """The observable state of the caller's mesh object (its view's arrays and report)."""
    mv = mesh.view()
    if mv is None:
        return _EMPTY
    r = mv.report
    return {"positions": enc(mv.positions), "vertex_positions": enc(mv.vertex_positions),
            "vertex_position_index": [int(x) for x in mv.vertex_position_index],
            "vertex_normals": enc(mv.vertex_normals), "vertex_parameters": enc(mv.vertex_parameters),
            "vertex_patch": [int(x) for x in mv.vertex_patch], "vertex_status": [int(x) for x in mv.vertex_status],
            "indices": mv.indices.astype(np.int64).tolist(),
            "report": {"levels": [[p.level_u, p.level_v] for p in r.patches],
                       "position_bounds": [enc(p.position_bound) for p in r.patches],
                       "position_bound": enc(r.position_bound), "is_within_position_error": r.is_within_position_error,
                       "normal_angle_estimate": (None if r.normal_angle_estimate is None
                                                 else enc(r.normal_angle_estimate)),
                       "singular_normal_count": int(r.singular_normal_count),
                       "degenerate_triangle_count": int(r.degenerate_triangle_count), "cell_tests": int(r.cell_tests)}}


def _claims(view, net: dict, inp: dict, out) -> tuple:
    """The claims of one build on the held surface ``view`` (network ``net``)."""
    profile = _claim_profile(inp)
    if not out.ok:
        # a refinement budget failure is a claim too: the rule must really exceed the budget
        if out.status.value == "BudgetExceeded" and out.diagnostic.field in ("max_level", "max_cell_tests"):
            return (Claim("tessellation.shared_positions", G.Exact, {"status": out.status.value,
                                                                    "field": out.diagnostic.field},
                          {**net, "profile": profile}),)
        return ()
    mv = out.value
    coarser = bool(inp["is_coarser_mesh_accepted"])
    result = []
    for rec in mv.report.patches:
        result.append(Claim("tessellation.position_bound", G.Certified,
                            {"position_bound": enc(rec.position_bound),
                             "is_within_position_error": bool(rec.is_within_position_error)},
                            {"controls": enc(view.controls[rec.patch]), "level_u": rec.level_u,
                             "level_v": rec.level_v, "grid": enc(_grid_of(mv, rec)),
                             "position_error": inp["position_error"], "accepts_coarser": coarser}))
    result.append(Claim("tessellation.shared_positions", G.Exact, {
        "levels": [[r.level_u, r.level_v] for r in mv.report.patches],
        "positions": enc(mv.positions), "vertex_positions": enc(mv.vertex_positions),
        "vertex_position_index": [int(x) for x in mv.vertex_position_index],
        "vertex_patch": [int(x) for x in mv.vertex_patch], "vertex_parameters": enc(mv.vertex_parameters),
        "vertex_normals": enc(mv.vertex_normals),
        "indices": mv.indices.astype(np.int64).tolist(),
        "vertex_status": [int(x) for x in mv.vertex_status],
        "singular_normal_count": int(mv.report.singular_normal_count),
        "degenerate_triangle_count": int(mv.report.degenerate_triangle_count)}, {**net, "profile": profile}))
    if mv.report.normal_angle_estimate is not None:
        result.append(Claim("tessellation.normal_angle", G.Estimated,
                            {"normal_angle_estimate": enc(mv.report.normal_angle_estimate)},
                            {"patches": [{"controls": enc(view.controls[r.patch]), "level_u": r.level_u,
                                          "level_v": r.level_v, "grid": enc(_grid_of(mv, r))}
                                         for r in mv.report.patches]}))
    return tuple(result)


def run(req: Request) -> tuple[Answer, SurfaceMesh]:
    """Answer a tessellation request with ``reference.surface`` and ``reference.tessellation``;
    returns the answer and the caller's mesh object as the last step left it."""
    surface = None  # (view, network) of the surface the owner holds
    mesh = SurfaceMesh()  # the caller's mesh: one object, filled in place by every build
    needed = {k for r in req.rules for k in (r.before, r.after)}
    steps = []
    for i, st in enumerate(req.steps):
        if st.op == "TryPrepareSurface":
            source, prep = source_of(st.inputs)
            out = try_prepare_surface(source, prep)
            if out.ok:
                surface = (out.value.view(), network_inputs(st.inputs))
            steps.append(StepAnswer(out.status.value))
        elif st.op == "TryBuildSurfaceMesh":
            if surface is None:
                steps.append(StepAnswer("MissingCache", (), mesh_state(mesh) if i in needed else None))
                continue
            view, net = surface
            out = try_build_surface_mesh(view, profile_of(st.inputs), mesh)
            # The output is the caller's mesh object as the build left it (never the Outcome).
            steps.append(StepAnswer(out.status.value, _claims(view, net, st.inputs, out),
                                    mesh_state(mesh) if i in needed else None))
        else:
            raise ValueError(f"unknown tessellation op {st.op!r}")
    return Answer(req.id, tuple(steps)), mesh


def answer(req: Request) -> Answer:
    """Answer a tessellation request step by step (:func:`run`)."""
    return run(req)[0]


def build_case(case):
    """``(surface view, profile, Outcome)`` of a corpus case on a fresh mesh (the view is None
    when the network does not prepare)."""
    prep_inp, build_inp = case_inputs(case)
    source, prep = source_of(prep_inp)
    out = try_prepare_surface(source, prep)
    if not out.ok:
        return None, None, out
    view = out.value.view()
    prof = profile_of(build_inp)
    return view, prof, try_build_surface_mesh(view, prof, SurfaceMesh())
