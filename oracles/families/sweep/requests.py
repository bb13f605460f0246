"""Sweep requests: the corpus as requests, each step with the status the spec demands of it.

A sweep case is a scenario: ``TryPlanSweepMesh`` on its path, distance map and frames, then
``TryEmitSweepMesh`` into caller arrays sized from the plan's report. The first 10 requests are
the named corpus cases of ``corpus.py``; then come the status contracts
(:func:`status_requests`, 43 requests, so ``--cases 53`` reaches the last of them): every status
the spec and our decisions name for TryPlanSweepMesh and TryEmitSweepMesh, every limit planning
uses met with equality (must succeed) and exceeded by one (must fail), emission capacity at
equality and one short, failed emissions that must leave the caller's arrays unchanged, and failed
replanning that must keep the previous plan. The rest are random sweeps.

Expected statuses are decided here from the spec's text and ``docs/decisions.md`` ("Sweeps: the
request, statuses and order of checks"), on the exact inputs, never by running the fast path
(``demands.py``): the request's ranges and the frames' shape directly, a tube's segment count by
the oracle's sagitta enclosures, ring counts where exact geometry fixes them (straight spans), a
named case's plan by its statement (docs/decisions.md "Frames and sweeps: named corpus cases state
their outcome"), and the frames a plan needs by the frame family's demands.

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryPlanSweepMesh``: ``path`` (the path source, as the frame family's ``TryBuildFrames`` takes
  it), ``map`` (the distance map passed to planning: ``{"limits"}`` built for the path, ``{"built":
  false}`` never built, ``{"limits", "path_revision"}`` built for the source prepared at another
  revision), ``frames`` (``{"preparation"}``: frames built on the path with a map of its own, the
  frame family's FramePreparation fields; ``{"built": false}``; ``{"preparation",
  "path_revision"}``: frames of the source prepared at another revision) and ``request`` (the
  ``SweepRequest``: ``section``, ``profile`` ``[[distance, scale, roll], ...]`` (f64), ``caps``,
  ``winding``, ``longitudinal_error``, ``cross_section_error``, ``max_section_segments``,
  ``max_vertex_count``, ``max_index_count`` and ``limits`` (every ``WorkLimits`` field)); output:
  the plan the owner holds after the step, ``{"report": {"ring_count", "section_segments",
  "vertex_count", "index_count", "longitudinal", "cross_section", "risk_count"}, "rings": [[span,
  u, distance, scale, roll, position 3 f64, normal 3 f64], ...]}`` (``{"rings": []}`` while none).
* ``TryEmitSweepMesh``: ``arrays`` (the caller's arrays, by name: arrays met for the first time are
  allocated with ``vertex_slack`` rows and ``index_slack`` entries more than the held plan's report
  asks (negative: fewer), filled with zeros; later steps naming them reuse them), ``path_revision``
  (optional: the path source prepared at this revision is passed); output: the arrays after the
  step, ``{"vertices": rows of 8 f64, "indices": [...]}``.
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import numpy as np

from reference.status import LIMIT_RANGES
from reference.sweep import ERROR_RANGE, MAX_SECTION_SEGMENTS as MAX_SEGMENTS_RANGE

from ...model import dec, enc, parse_number
from ...request import (
    Expect, Request, Rule, Step, collect_defects, decided_by_kinds, either, failure, interleaved, success,
)
from .checks import STATUS_NAMES
from interval.frame import Arcs, decide_speed_above

from ..frame.corpus import _CLOSED, _CORNER, quarter
from ..frame.demands import joint_kind, narrowed_controls, tolerance_of
from ..frame.requests import enc_limits, expected_build, map_inputs, path_inputs, preparation_inputs
from .corpus import MAX_INDICES, MAX_SECTION_SEGMENTS, MAX_VERTICES, NAMED, SWEEP_LIMITS, corpus_cases, frames_case
from .corpus import sweep_case
from .demands import mesh_counts, plan_counts, segments_needed

__all__ = [
    "EMIT_ROWS",
    "STATUS_REQUESTS",
    "case_request",
    "expected_emit",
    "expected_plan",
    "plan_inputs",
    "requests",
    "status_requests",
]

EMIT_ROWS = ("sweep.rings", "sweep.error_estimates")
_MAX_COUNT = 2**31 - 1
_SECTIONS, _CAPS, _WINDINGS = ("Tube", "Ribbon"), ("None", "Flat"), ("CounterClockwise", "Clockwise")
_WHY_REQ = "docs/decisions.md 'Sweeps: the request, statuses and order of checks'"
_WHY_STATEMENT = "docs/decisions.md 'Frames and sweeps: named corpus cases state their outcome'"
_WHY_SPLIT = ("spec 002 Sweeps: 'It needs frames with one run over the whole path and G1 joints; split a path at "
              "singularities or corners and sweep each piece'")


# --- Encoding ------------------------------------------------------------------------------------


def request_inputs(case: dict, **changes) -> dict:
    req = {"section": case["section"].value, "profile": [[enc(x) for x in k] for k in case["profile"]],
           "caps": case["caps"].value, "winding": case["winding"].value,
           "longitudinal_error": enc(case["lerr"]), "cross_section_error": enc(case["xerr"]),
           "max_section_segments": MAX_SECTION_SEGMENTS, "max_vertex_count": MAX_VERTICES,
           "max_index_count": MAX_INDICES, "limits": enc_limits(SWEEP_LIMITS)}
    req.update(changes)
    return req


def plan_inputs(case: dict, *, map_=None, frames=None, fcase=None, **changes) -> dict:
    fcase = fcase or frames_case(case)
    return {"path": path_inputs(fcase), "map": map_inputs() if map_ is None else map_,
            "frames": {"preparation": preparation_inputs(fcase)} if frames is None else frames,
            "request": request_inputs(case, **changes)}


# --- What the spec demands ---------------------------------------------------------------------


def _decided(e: Expect, kinds: list, maybe=()) -> Expect:
    """:func:`oracles.request.decided_by_kinds` resting on ``sweep:status_names``; a possible
    defect (``maybe``) whose status is ours makes the demand decided too, never a failure the
    spec demands."""
    if any(m[2] != "spec" for m in maybe) and all(k == "spec" for k in kinds):
        kinds = [*kinds, "ours"]
    return decided_by_kinds(e, kinds, STATUS_NAMES)


def _is_int(v, lo, hi) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _finite(x) -> bool:
    try:
        return not isinstance(parse_number(x), float)
    except ValueError:
        return False


def _request_defects(req: dict, defect) -> None:
    """The request's defects (docs/decisions.md 'Sweeps: the request, statuses and order of checks';
    every defect's status: the spec orders no checks)."""
    for name, (lo, hi) in LIMIT_RANGES.items():
        if not _is_int(req["limits"].get(name), lo, hi):
            defect("InvalidArgument", f"limits.{name} outside [{lo}, {hi}] (docs/decisions.md 'WorkLimits fields and "
                                      f"ranges')")
    for name, names in (("section", _SECTIONS), ("caps", _CAPS), ("winding", _WINDINGS)):
        if req.get(name) not in names:
            defect("InvalidArgument", f"{name} {req.get(name)!r} names nothing ({_WHY_REQ})", "named")
    if req.get("section") == "Ribbon" and req.get("caps") == "Flat":  # the spec does not say it fails
        defect("InvalidArgument", f"spec 002: 'A ribbon ring ... has no caps' ({_WHY_REQ}: rejected, not dropped)",
               "ours")
    prof = req.get("profile")
    if not prof:  # no scale to sweep with
        defect("InvalidArgument", f"an empty profile ({_WHY_REQ})", "named")
    else:
        for i, k in enumerate(prof):
            if not all(_finite(x) for x in k):
                defect("InvalidArgument", f"profile key {i} is not finite ({_WHY_REQ})", "named")
            elif not dec(k[1]) > 0:  # 'rejected': the spec's failure, our status
                defect("InvalidDomain", "spec 002: 'A zero or negative scale is rejected, not normalized away' "
                                        f"({_WHY_REQ}: InvalidDomain)", "named")
            if i and all(_finite(x) for x in k + prof[i - 1]) and not dec(k[0]) > dec(prof[i - 1][0]):
                defect("InvalidArgument", f"profile distances must increase strictly ({_WHY_REQ})", "ours")
    for name in ("longitudinal_error", "cross_section_error"):
        v = req.get(name)
        if not _finite(v) or not ERROR_RANGE[0] <= dec(v) <= ERROR_RANGE[1]:
            defect("InvalidArgument", f"{name} outside [1e-12, 1e12] ({_WHY_REQ})")
    if not _is_int(req.get("max_section_segments"), 3, MAX_SEGMENTS_RANGE):
        defect("InvalidArgument", f"max_section_segments outside [3, 2^16] ({_WHY_REQ})")
    for name in ("max_vertex_count", "max_index_count"):
        if not _is_int(req.get(name), 0, _MAX_COUNT):
            defect("InvalidArgument", f"{name} outside [0, 2^31 - 1] ({_WHY_REQ})")


def _frames_build(inp: dict):
    """The frame family's demand on the frames the request's ``frames`` builds (with a map of its
    own), or None for frames never built."""
    f = inp["frames"]
    if not f.get("built", True):
        return None
    rev = f.get("path_revision", inp["path"]["revision"])
    return expected_build({"path": {**inp["path"], "revision": rev}, "map": map_inputs(),
                           "preparation": f["preparation"]})


def _shape(inp: dict, defect, maybe) -> None:
    """The frames' shape (spec 002 Sweeps; DegenerateFrame): a singular range (a span whose exact
    speed reaches MinimumSpeed: ``interval.frame.decide_speed_above``), a joint that is not G1 (exact
    tangents, ``frame.demands.joint_kind``: two runs under SplitRuns, a corner crossed under
    RotateMinimally), or a closed path without periodic frames (not DistributeTwist)."""
    path, f = inp["path"], inp["frames"]
    if not f.get("built", True):
        return
    C = narrowed_controls(path)
    tol = tolerance_of(path)
    ms = tol["minimum_speed"]
    for k in range(C.shape[0]):
        size = 3.0 * float(np.max(np.abs(np.diff(C[k], axis=0))))
        d = decide_speed_above(C[k], 0.0, 1.0, ms)
        if d.holds is False:  # an exact witness u with |B'(u)| <= MinimumSpeed
            defect("DegenerateFrame", f"span {k} has speed at most MinimumSpeed at u = {d.witness[0]}: a singular "
                                      f"range ({_WHY_SPLIT})", "named")
        elif decide_speed_above(C[k], 0.0, 1.0, ms * (1 + 2.0**-20) + size * 2.0**-40).holds is not True:
            maybe.append(("DegenerateFrame", f"span {k}'s speed comes within rounding of MinimumSpeed", "named"))
    n = C.shape[0]
    for j in range(0 if path["is_closed"] else 1, n):
        kind = joint_kind(C, j, tol["continuity_angle"])
        if kind in ("corner", "reversal"):
            defect("DegenerateFrame", f"joint {j} is not G1 ({_WHY_SPLIT})", "named")
        elif kind == "either":
            maybe.append(("DegenerateFrame", f"joint {j} is within rounding of ContinuityAngle", "named"))
    if path["is_closed"] and f["preparation"].get("closed_policy") != "DistributeTwist":
        defect("DegenerateFrame", "spec 002 Sweeps: 'A closed path needs periodic frames (DistributeTwist)'", "named")


def _periodic_profile(path: dict, req: dict, defect) -> None:
    """A closed path's profile must be periodic: equal scales and rolls a whole number of turns apart
    at distance 0 and TotalEstimate (docs/decisions.md 'Sweeps: the request, statuses and order of
    checks'); decided where both ends clamp to the first and last key (TotalEstimate is within
    DistanceError of the true length)."""
    prof = [[dec(x) for x in k] for k in req["profile"]]
    arcs = Arcs(narrowed_controls(path).astype(np.float32))
    L, err = arcs.total()
    d = tolerance_of(path)["distance_error"] + 4 * err
    if not (prof[0][0] >= 0 and prof[-1][0] <= L - d):
        return
    turns = (prof[-1][2] - prof[0][2]) / (2 * math.pi)
    if prof[0][1] != prof[-1][1] or abs(turns - round(turns)) > 1e-9:
        defect("InvalidArgument", f"a closed path's profile must be periodic ({_WHY_REQ})", "ours")


def expected_plan(inp: dict, statement=None) -> Expect:
    """The statuses TryPlanSweepMesh must end in (every defect's status: the spec orders no checks)."""
    found, why, defect = collect_defects()
    maybe = []
    req, path = inp["request"], inp["path"]
    _request_defects(req, defect)
    m = inp["map"]
    if not m.get("built", True):
        defect("MissingCache", f"the distance map was never built ({_WHY_REQ})")
    elif m.get("path_revision", path["revision"]) != path["revision"]:
        defect("StaleRevision", f"the distance map belongs to another revision ({_WHY_REQ})")
    frames = _frames_build(inp)
    # Sweeping with frames that are not the path's built frames fails by the spec ('It needs
    # frames with one run over the whole path'); the statuses are ours.
    if frames is None:
        defect("MissingCache", f"the frames were never built ({_WHY_REQ})", "named")
    elif frames.must_fail:
        defect("MissingCache", f"the frames' build fails ({frames.why}): the caller's frames stay unbuilt ({_WHY_REQ})",
               "named")
    elif frames.kind == "either":
        maybe.append(("MissingCache", f"the frames' build may fail ({frames.why})", "named"))
    elif inp["frames"].get("path_revision", path["revision"]) != path["revision"]:
        defect("StaleRevision", f"frames of another revision ({_WHY_REQ}: 'how frames from another path is caught')",
               "named")
    _shape(inp, defect, maybe)
    if path["is_closed"] and not found:
        _periodic_profile(path, req, defect)
    if found:
        return _decided(failure(*found, *[m[0] for m in maybe if m[0] not in found],
                                why="; ".join(why + [m[1] for m in maybe])), defect.kinds, maybe)
    if statement == "ok":
        return success(f"a named case the spec admits ({_WHY_STATEMENT})")
    tube = req["section"] == "Tube"
    r_max = max(dec(k[1]) for k in req["profile"])
    nseg, reason = segments_needed(r_max, dec(req["cross_section_error"])) if tube else (1, "a ribbon")
    if nseg is None:
        maybe.append(("BudgetExceeded", reason, "named"))
    elif tube and nseg > req["max_section_segments"]:  # 'validates every count, limit': the status is ours
        defect("BudgetExceeded", f"{reason} > max_section_segments ({_WHY_REQ})", "named")
    counts, creason = plan_counts(path, req, nseg) if nseg is not None and not found else (None, "")
    lim = req["limits"]
    if counts is not None:
        for name, need in (("max_depth", counts["depth"]), ("max_subdivisions", counts["splits"]),
                           ("max_samples", counts["rings"]), ("max_prepared_bytes", counts["bytes"])):
            if need > lim[name]:
                defect("BudgetExceeded", f"{name}: the rings need {need} > {lim[name]} ({creason}; {_WHY_REQ})")
        for name, need in (("max_vertex_count", counts["vertices"]), ("max_index_count", counts["indices"])):
            if need > req[name]:
                defect("CapacityExceeded", f"{need} > {name} ({_WHY_REQ}: counts above the request's are "
                                           "CapacityExceeded at planning)", "named")
    elif not found:
        # Rings are bounded by max_samples (else BudgetExceeded), so the counts stay below the
        # request's capacities when even max_samples rings fit.
        bound_v, bound_i = mesh_counts(lim["max_samples"], nseg or MAX_SEGMENTS_RANGE, tube, req["caps"] == "Flat")
        maybe.append(("BudgetExceeded", creason, "spec"))
        if bound_v > req["max_vertex_count"] or bound_i > req["max_index_count"]:
            maybe.append(("CapacityExceeded", creason, "named"))
    if found:
        return _decided(failure(*found, *[m[0] for m in maybe if m[0] not in found],
                                why="; ".join(why + [m[1] for m in maybe])), defect.kinds, maybe)
    if maybe:
        return _decided(either("Success", *dict.fromkeys(m[0] for m in maybe), why="; ".join(m[1] for m in maybe)),
                        [], maybe)
    return success(f"valid request and frames, within every limit ({creason}: {counts})")


def expected_emit(plan, arrays: dict, ev: dict) -> Expect:
    """The statuses TryEmitSweepMesh must end in: ``plan`` ``(plan inputs, expectation, counts or
    None)`` of the held plan; ``arrays`` the caller's arrays so far ``{name: (counts or None, slacks)}``."""
    found, why, defect = collect_defects()
    inp, pexp, counts = plan
    if ev.get("path_revision", inp["path"]["revision"]) != inp["path"]["revision"]:
        defect("StaleRevision", "spec 002 Sweeps: 'TryEmitSweepMesh checks the pinned path revision (StaleRevision)'")
    name = ev["arrays"]
    made, slack = arrays.get(name, (counts, (ev.get("vertex_slack", 0), ev.get("index_slack", 0))))
    cap = "spec 002 Sweeps: 'and both capacities (CapacityExceeded) before writing'"
    if made is counts or made == counts:
        if min(slack) < 0:
            defect("CapacityExceeded", f"arrays {-min(slack)} short of the report ({cap})")
    elif made is None or counts is None:
        return either("Success", "CapacityExceeded", *found, why="the arrays were sized for another plan whose "
                                                                 "counts are not decided")
    elif made["vertices"] + slack[0] < counts["vertices"] or made["indices"] + slack[1] < counts["indices"]:
        defect("CapacityExceeded", f"arrays sized for another plan hold fewer than this plan's counts ({cap})")
    if found:
        return failure(*found, why="; ".join(why))
    if pexp.kind != "success":  # emitting after a failed plan: the spec's failure, our status
        return _decided(either("Success", "MissingCache", why="the plan before may have failed"), [],
                        [("MissingCache", "", "named")])
    return success("a plan, the pinned revision and arrays of the report's size or more (spec 002 Sweeps)")


# --- Requests ----------------------------------------------------------------------------------


class _Scenario:
    """Steps of one sweep request with the held plan and the caller's arrays tracked, so that each
    step's demand reads what the spec's owners hold at that point."""

    def __init__(self):
        self.steps, self.held, self.arrays = [], None, {}

    def plan(self, inp: dict, statement=None, counts=None):
        expect = expected_plan(inp, statement)
        self.steps.append(Step("TryPlanSweepMesh", inp, expect))
        if expect.allows("Success"):
            self.held = (inp, expect, counts if counts is not None else _counts_of(inp))
        return self

    def emit(self, arrays="A", vertex_slack=0, index_slack=0, **extra):
        ev = {"arrays": arrays, **extra}
        if arrays not in self.arrays:
            ev.update(vertex_slack=vertex_slack, index_slack=index_slack)
        expect = expected_emit(self.held, self.arrays, ev)
        if arrays not in self.arrays:
            self.arrays[arrays] = (self.held[2], (vertex_slack, index_slack))
        self.steps.append(Step("TryEmitSweepMesh", ev, expect, EMIT_ROWS if expect.allows("Success") else ()))
        return self


def _counts_of(inp: dict):
    req = inp["request"]
    tube = req["section"] == "Tube"
    nseg = segments_needed(max(dec(k[1]) for k in req["profile"]), dec(req["cross_section_error"]))[0] if tube else 1
    return plan_counts(inp["path"], req, nseg)[0] if nseg is not None else None


def case_request(rid: str, case: dict) -> Request:
    """A corpus case as a request: the plan, then an emission into arrays sized from its report."""
    sc = _Scenario().plan(plan_inputs(case), case.get("expect"))
    if sc.steps[0].expect.allows("Success") and sc.held is not None:
        sc.emit()
    return Request(rid, "sweep", case.get("name", ""), tuple(sc.steps))


_LINE = [[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]]
_STRAIGHT = [[[3 * k + i, 0, 0] for i in range(4)] for k in range(3)]
_CUSP = [[[-1, 0, 0], [1, 1, 0.5], [-1, 1, 0.5], [1, 0, 0]]]
_BENT = [[[0, 0, 0], [1, 0, 0.2], [2, 0, 0.3], [3, 0, 0]], [[3, 0, 0], [3, 1, 0.3], [3.2, 2, 0], [3, 3, 0.5]]]


def _loop() -> list:
    return [quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]


def status_requests() -> list:
    """Named status contracts: every status the spec and our decisions name for TryPlanSweepMesh
    and TryEmitSweepMesh, each limit at equality and one past, emission capacity, failed emissions
    that leave the caller's arrays unchanged and failed replanning that keeps the plan."""
    from reference.sweep import SweepCaps, SweepSection, SweepWinding

    T, R = SweepSection.Tube, SweepSection.Ribbon
    F, N = SweepCaps.Flat, SweepCaps.None_
    CCW = SweepWinding.CounterClockwise
    tube = sweep_case("straight tube", _STRAIGHT, T, F, CCW, [(0, 0.5, 0)], 1e-3, 0.08)
    ribbon = sweep_case("straight ribbon", _LINE, R, N, CCW, [(0, 1.0, 0)], 1e-3, 1e-3)
    rolling = sweep_case("rolling ribbon", _LINE, R, N, CCW, [(0, 1.0, 0), (3, 1.0, 2.0)], 0.02, 1e-3)
    out = []

    def limits(**changes):
        return enc_limits(dataclasses.replace(SWEEP_LIMITS, **changes))

    def single(name, case, *, emit=True, fcase=None, map_=None, frames=None, **changes):
        sc = _Scenario().plan(plan_inputs(case, fcase=fcase, map_=map_, frames=frames, **changes))
        if emit and sc.steps[0].expect.allows("Success"):
            sc.emit()
        out.append((name, tuple(sc.steps), ()))

    need = _counts_of(plan_inputs(tube))
    if need is None:
        raise ValueError("the straight tube's counts are not decided")
    nseg = segments_needed(0.5, 0.08)[0]
    single(f"max_section_segments met with equality (a tube of {nseg} segments)", tube, max_section_segments=nseg)
    single(f"max_section_segments exceeded by one (a tube of {nseg} segments, the limit {nseg - 1})", tube,
           max_section_segments=nseg - 1)
    for name, key in (("max_vertex_count", "vertices"), ("max_index_count", "indices")):
        v = need[key]
        single(f"{name} met with equality (straight tube: {v})", tube, **{name: v})
        single(f"{name} exceeded by one (straight tube: {v}, the limit {v - 1})", tube, **{name: v - 1})
    need = _counts_of(plan_inputs(rolling))
    if need is None or need["depth"] < 2:
        raise ValueError("the rolling ribbon's rings are not decided")
    for name, key in (("max_depth", "depth"), ("max_subdivisions", "splits"), ("max_samples", "rings"),
                      ("max_prepared_bytes", "bytes")):
        v = need[key]
        single(f"{name} met with equality (rolling ribbon: the rings need {v})", rolling, limits=limits(**{name: v}))
        single(f"{name} exceeded by one (rolling ribbon: the rings need {v}, the limit {v - 1})", rolling,
               limits=limits(**{name: v - 1}))
    single("zero max_samples allows no work", ribbon, limits=limits(max_samples=0))
    # Emission capacity: arrays sized from the report, and one entry short.
    for name, slack in (("emission capacity met with equality (arrays sized from the report)", (0, 0)),
                        ("emission capacity exceeded by one (one vertex row short)", (-1, 0)),
                        ("emission capacity exceeded by one (one index short)", (0, -1))):
        sc = _Scenario().plan(plan_inputs(tube)).emit("A", *slack)
        out.append((name, tuple(sc.steps), ()))
    # The request (docs/decisions.md 'Sweeps: the request, statuses and order of checks').
    single("zero profile scale", tube, profile=[[enc(0.0), enc(0.0), enc(0.0)]])
    single("negative profile scale", tube, profile=[[enc(0.0), enc(0.5), enc(0.0)], [enc(4.0), enc(-0.25), enc(0.0)]])
    single("profile distances not increasing", tube, profile=[[enc(1.0), enc(0.5), enc(0.0)],
                                                              [enc(1.0), enc(0.6), enc(0.0)]])
    single("empty profile", tube, profile=[])
    single("nonfinite profile roll", tube, profile=[[enc(0.0), enc(0.5), "nan"]])
    single("ribbon with Flat caps", ribbon, caps="Flat")
    single("LongitudinalError below 1e-12", tube, longitudinal_error=enc(1e-13))
    single("CrossSectionError not finite", tube, cross_section_error="inf")
    single("max_section_segments below 3", tube, max_section_segments=2)
    single("max_vertex_count negative", tube, max_vertex_count=-1)
    single("limits out of range (max_depth = 53)", tube, limits=limits(max_depth=53))
    single("unknown section", tube, section="Square")
    loop = sweep_case("closed loop tube", _loop(), T, F, CCW, [(0, 0.2, 0), (5, 0.3, 0)], 1e-2, 1e-2, closed=True)
    single("closed path with a non-periodic profile", loop)
    # Caches.
    single("distance map never built", tube, map_=map_inputs(built=False))
    single("frames never built", tube, frames={"built": False})
    single("distance map of another revision", tube, map_=map_inputs(path_revision=2))
    fprep = preparation_inputs(frames_case(tube))
    single("frames of another revision", tube, frames={"preparation": fprep, "path_revision": 2})
    # The frames' shape: one run over the whole path, no singular range, G1 joints, periodic.
    cusp = sweep_case("interior cusp", _CUSP, T, N, CCW, [(0, 0.1, 0)], 1e-2, 1e-2)
    single("frames with a singular range (an interior cusp, SplitRuns)", cusp)
    bent = sweep_case("90-degree joint", _BENT, T, N, CCW, [(0, 0.1, 0)], 1e-2, 1e-2)
    for policy in (_CORNER.SplitRuns, _CORNER.RotateMinimally):
        single(f"a joint that is not G1 ({policy.value}: {'two runs' if policy is _CORNER.SplitRuns else 'one run'})",
               bent, fcase={**frames_case(bent), "corner": policy})
    holo = sweep_case("closed loop tube", _loop(), T, F, CCW, [(0, 0.2, 0)], 1e-2, 1e-2, closed=True)
    single("closed path with PreserveHolonomy frames (not periodic)", holo,
           fcase={**frames_case(holo), "closed_policy": _CLOSED.PreserveHolonomy})
    # Failed emissions leave the caller's arrays as they were; failed replanning keeps the plan.
    arrays = "spec 002 Sweeps: 'TryEmitSweepMesh checks the pinned path revision (StaleRevision) and both " \
             "capacities (CapacityExceeded) before writing'; Contracts: 'leave outputs unchanged on failure'"
    keep = "spec 002 Contracts: 'a failed rebuild keeps the previous snapshot'"
    sc = _Scenario().plan(plan_inputs(tube)).emit("A").emit("A", path_revision=2)
    out.append(("failed emission (StaleRevision) leaves the caller's arrays unchanged", tuple(sc.steps),
                (Rule("same_output", 1, 2, arrays),)))
    sc = _Scenario().plan(plan_inputs(ribbon)).emit("E").plan(plan_inputs(tube)).emit("E")
    out.append(("failed emission (capacity: arrays sized for a smaller plan) leaves the caller's arrays unchanged",
                tuple(sc.steps), (Rule("same_output", 1, 3, arrays),)))
    for what, bad in (("zero scale", plan_inputs(tube, profile=[[enc(0.0), enc(0.0), enc(0.0)]])),
                      ("frames with two runs", plan_inputs(bent, fcase={**frames_case(bent),
                                                                        "corner": _CORNER.SplitRuns}))):
        sc = _Scenario().plan(plan_inputs(tube)).emit("A").plan(bad).emit("B")
        out.append((f"failed rebuild ({what}) keeps the previous plan", tuple(sc.steps),
                    (Rule("same_output", 0, 2, keep), Rule("same_output", 1, 3, keep))))
    return out


STATUS_REQUESTS = 43


@lru_cache(maxsize=2)
def _kept(seed: int, n: int) -> tuple:
    """The corpus's cases and status contracts, kept for the next range of the same corpus."""
    return corpus_cases(seed, n), status_requests()


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list:
    """``n`` sweep requests: the named corpus cases, the status contracts, then random sweeps.
    Deterministic in ``seed``; ids ``sweep/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    cases, named = _kept(seed, n) if hi - lo < n else (corpus_cases(seed, n), status_requests() if n > NAMED else [])
    named = named if n > NAMED else []
    return interleaved("sweep", lo, hi, NAMED, named, lambda rid, k, s: case_request(rid, cases[k - s]))
