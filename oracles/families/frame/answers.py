"""Our fast path answering frame requests: the adapter an outside implementation's answers stand
in for (``oracles.request``: one outcome per step, claims on success).

``TryBuildFrames`` prepares the request's path and builds its distance map (``reference.path``,
``reference.distance``), then builds the frames; the owner is held the way the spec's output
owner is: a successful build replaces it (with the path it was built for), a failed one leaves it
as it was ("a failed rebuild keeps the previous snapshot"). ``TryEvaluateFrame`` reads the frames
the owner holds and their path (or the same source prepared at ``path_revision``).

Claims: on a build, one ``frame.regularity`` claim per regular sample interval and per singular
range, and one ``frame.angular_error_estimate`` claim with the run structure, the estimate's parts
and every frame evaluated on those frames by the request's later steps; on an evaluation, a
``frame.vectors`` claim of the frame (with the seed, at a run's start, and the reported ranges
whose closure holds the point) or of a Degenerate answer (with those ranges).
"""

from __future__ import annotations


from reference.distance import DistancePreparation, PreparedDistanceMap, try_build_distance_map
from reference.fp import U64
from reference.frame import ClosedFramePolicy, FrameCornerPolicy, FramePreparation, FrameSeedPolicy, \
    FrameSingularityPolicy, transported_normal, try_build_frames, try_evaluate_frame
from reference.path import PathPreparation, PathSource, PathSpanSource, try_prepare_path
from reference.status import LIMIT_RANGES, TOLERANCE_RANGES, GeometryStatus, GuaranteeClass as G, \
    SegmentParameter, SpanSide, ToleranceProfile, WorkLimits

from ...model import Claim, dec, dec_array, enc, parse_number
from ...request import Answer, Request, StepAnswer

__all__ = ["answer", "frame_preparation", "frames_output", "limits_of", "map_view", "prepare_path"]

_ENUMS = {"seed_policy": FrameSeedPolicy, "singularity_policy": FrameSingularityPolicy,
          "corner_policy": FrameCornerPolicy, "closed_policy": ClosedFramePolicy}
_NONE = {"runs": []}


def _number(x):
    """A JSON number of the request as the fast path receives it: a float (nonfinite words too)."""
    q = parse_number(x)
    return float(q)


def limits_of(raw: dict) -> WorkLimits:
    return WorkLimits(**{k: raw[k] if isinstance(raw[k], int) and not isinstance(raw[k], bool) else _number(raw[k])
                         for k in LIMIT_RANGES})


def prepare_path(path: dict, revision=None):
    """TryPreparePath of a request's path source (at ``revision`` when given): an Outcome."""
    spans = [PathSpanSource(dec_array(s["controls"]), dec(s["domain_width"])) for s in path["spans"]]
    tol = ToleranceProfile(**{k: dec(path["tolerance"][k]) for k in TOLERANCE_RANGES})
    rev = path["revision"] if revision is None else revision
    return try_prepare_path(PathSource(spans, revision=rev, is_closed=bool(path["is_closed"])),
                            PathPreparation(tol, limits_of(path["limits"]),
                                            tuple(float(x) for x in dec_array(path["origin"]))))


def map_view(pv, path: dict, raw: dict):
    """The distance map view the request names for the path view ``pv``: an Outcome."""
    if not raw.get("built", True):
        return _Done(PreparedDistanceMap().view())
    if "path_revision" in raw and raw["path_revision"] != path["revision"]:
        other = prepare_path(path, raw["path_revision"])
        if not other.ok:
            return other
        pv = other.value.view()
    d = try_build_distance_map(pv, DistancePreparation(limits_of(raw["limits"])))
    return _Done(d.value.view()) if d.ok else d


class _Done:
    ok = True

    def __init__(self, value):
        self.value = value


def frame_preparation(raw: dict) -> FramePreparation:
    """The FramePreparation of a request: policy names that name no policy are passed as they are
    (the fast path answers InvalidArgument), as are the vectors, winding turns and strict flag."""
    def policy(name):
        try:
            return _ENUMS[name](raw[name])
        except ValueError:
            return raw[name]

    def vec(v):
        try:
            return tuple(_number(x) for x in v)
        except (ValueError, TypeError):
            return v
    return FramePreparation(seed_up=vec(raw["seed_up"]), seed_policy=policy("seed_policy"),
                            fallback_axis=vec(raw["fallback_axis"]), singularity_policy=policy("singularity_policy"),
                            corner_policy=policy("corner_policy"), closed_policy=policy("closed_policy"),
                            winding_turns=raw["winding_turns"], strict=raw["strict"], limits=limits_of(raw["limits"]))


class _Held:
    """Frames the owner holds: the path they were built for, its map, the frames, the inputs."""

    def __init__(self, inputs, pv, mv, fv, step):
        self.inputs, self.pv, self.mv, self.fv, self.step = inputs, pv, mv, fv, step
        self.evaluated = []  # (span, u, roll, run, transported normal, final normal) on these frames


def frames_output(fv) -> dict:
    """The observable state of built frames (a failed rebuild must keep it bit for bit)."""
    return {"runs": [[r.start.span_index, enc(r.start.u), r.end.span_index, enc(r.end.u), r.is_fallback_seeded]
                     for r in fv.runs],
            "ranges": [[r.span, enc(r.u0), enc(r.u1), r.is_depth_limited] for r in fv.ranges],
            "samples": [[int(fv.sample_span[j]), enc(fv.sample_u[j]), enc(fv.sample_normal[j])]
                        for j in range(fv.sample_count)],
            "estimate": enc(fv.angular_error_estimate), "residual_twist": enc(fv.residual_twist)}


def _build(inp: dict, step: int):
    """``(status, held or None, regularity claims)`` of one TryBuildFrames."""
    p = prepare_path(inp["path"])
    if not p.ok:
        return p.status.value, None, ()
    pv = p.value.view()
    m = map_view(pv, inp["path"], inp["map"])
    if not m.ok:
        return m.status.value, None, ()
    f = try_build_frames(pv, m.value, frame_preparation(inp["preparation"]))
    if not f.ok:
        return f.status.value, None, ()
    fv = f.value.view()
    return "Success", _Held(inp, pv, m.value, fv, step), _regularity_claims(pv, fv)


def _regularity_claims(pv, fv) -> tuple:
    C = pv.controls
    out = []
    ms = enc(fv.minimum_speed)
    for j in range(fv.sample_count):
        if fv.sample_next_u[j] > fv.sample_u[j]:
            k = int(fv.sample_span[j])
            out.append(Claim("frame.regularity", G.Certified, {"regular": True},
                             {"controls": enc(C[k]), "u0": enc(fv.sample_u[j]), "u1": enc(fv.sample_next_u[j]),
                              "minimum_speed": ms, "max_depth": fv.max_depth, "kind": "interval"}))
    for r in fv.ranges:
        out.append(Claim("frame.regularity", G.Certified, {"regular": False},
                         {"controls": enc(C[r.span]), "u0": enc(r.u0), "u1": enc(r.u1), "minimum_speed": ms,
                          "max_depth": fv.max_depth, "kind": "depth_limited" if r.is_depth_limited else "slow"}))
    return tuple(out)


def _ranges_holding(fv, k: int, u: float) -> list:
    """The reported singular ranges of span k whose closure holds u, as ``[u0, u1]``."""
    return [[enc(r.u0), enc(r.u1)] for r in fv.ranges if r.span == k and r.u0 <= u <= r.u1]


_MODEL = {"name": "frame vectors (reference.frame, FRAME_VECTOR_K = 16)", "u": enc(U64)}


def _evaluate(held: _Held, ev: dict):
    """``(status, claims, output)`` of one TryEvaluateFrame on the held frames."""
    pv = held.pv
    if "path_revision" in ev and ev["path_revision"] != held.inputs["path"]["revision"]:
        other = prepare_path(held.inputs["path"], ev["path_revision"])
        if not other.ok:
            return other.status.value, (), {"status": other.status.value}
        pv = other.value.view()
    fv = held.fv
    k, u, roll, side = ev["span"], _number(ev["u"]), _number(ev["roll"]), SpanSide(ev["side"])
    got = try_evaluate_frame(pv, fv, SegmentParameter(k, u), roll, side)
    C = pv.controls
    if got.status is GeometryStatus.Degenerate:
        # Degenerate is the spec's answer inside a singular range: claimed, with the ranges that
        # hold the parameter, so that the checker sees a frame where none may be.
        kk, uu = _resolved(pv, k, u, side)
        claim = Claim("frame.vectors", G.Rounded, {"status": "Degenerate"},
                      {"controls": enc(C[kk]), "u": enc(uu), "ranges": _ranges_holding(fv, kk, uu)})
        return "Degenerate", (claim,), {"status": "Degenerate"}
    if not got.ok:
        return got.status.value, (), {"status": got.status.value}
    tn = transported_normal(pv, fv, SegmentParameter(k, u), side).value
    kk, uu, j = tn[0], tn[1], tn[2]
    fr = got.value
    inputs = {"controls": enc(C[kk]), "u": enc(uu), "ranges": _ranges_holding(fv, kk, uu)}
    run = fv.runs[int(fv.sample_run[j])]
    # the seed's projection is claimed of a frame at a run's start, unrolled and untwisted
    if run.first_sample == j and (run.start.span_index, run.start.u) == (kk, uu) and roll == 0.0 \
            and fv.sample_twist[j] == 0.0:
        prep = held.inputs["preparation"]
        axis = prep["fallback_axis"] if run.is_fallback_seeded else prep["seed_up"]
        inputs["seed"] = {"axis": [enc(_number(x)) for x in axis],
                          "seed_up": [enc(_number(x)) for x in prep["seed_up"]],
                          "is_fallback": run.is_fallback_seeded,
                          "minimum_sin_angle": enc(pv.tolerance.minimum_sin_angle)}
    value = {"position": enc(fr.position), "tangent": enc(fr.tangent), "normal": enc(fr.normal),
             "binormal": enc(fr.binormal)}
    if pv is held.pv:
        held.evaluated.append((kk, uu, roll, int(fv.sample_run[j]), tn[5], fr.normal))
    return "Success", (Claim("frame.vectors", G.Rounded, value, inputs, model=_MODEL),), value


def _resolved(pv, k, u, side):
    from reference.path import resolve_parameter
    from reference.status import BoundaryPolicy

    return resolve_parameter(pv, SegmentParameter(k, u), BoundaryPolicy.Reject, side).value


def _angular_claim(held: _Held, name: str) -> Claim:
    """The frame.angular_error_estimate claim of held frames, with the frames evaluated on them."""
    pv, mv, fv = held.pv, held.mv, held.fv
    prep = held.inputs["preparation"]
    samples = [[int(fv.sample_run[j]), int(fv.sample_span[j]), enc(fv.sample_u[j]), enc(fv.sample_normal[j])]
               for j in range(fv.sample_count)]
    runs = [{"start": [r.start.span_index, enc(r.start.u)], "end": [r.end.span_index, enc(r.end.u)],
             "normal": enc(fv.sample_normal[r.first_sample])} for r in fv.runs]
    ev = held.evaluated
    return Claim("frame.angular_error_estimate", G.Estimated,
                 {"estimate": enc(fv.angular_error_estimate), "residual_twist": enc(fv.residual_twist),
                  "is_closed_loop": fv.is_closed_loop, "twist_end": enc(fv.sample_twist[-1]),
                  "samples": samples + [[run, k, enc(u), enc(n0)] for k, u, _, run, n0, _ in ev],
                  "intervals": [[int(fv.sample_span[j]), enc(fv.sample_u[j]), enc(fv.sample_next_u[j]),
                                 enc(fv.sample_angle[j]), enc(fv.sample_distance[j]), enc(fv.sample_distance[j + 1])]
                                for j in range(fv.sample_count) if fv.sample_next_u[j] > fv.sample_u[j]],
                  "total_estimate": enc(mv.total_estimate),
                  "ranges": [[r.span, enc(r.u0), enc(r.u1)] for r in fv.ranges],
                  "evaluated": [[run, enc(n1)] for _, _, _, run, _, n1 in ev]},
                 {"controls": enc(pv.controls), "runs": runs, "periodic": fv.is_periodic,
                  "winding_turns": fv.winding_turns, "case": name, "closed": bool(pv.is_closed),
                  "tangent_angle_error": enc(fv.tangent_angle_error),
                  "distance_error": enc(pv.tolerance.distance_error),
                  "continuity_angle": enc(pv.tolerance.continuity_angle),
                  "corner_policy": prep["corner_policy"], "closed_policy": prep["closed_policy"],
                  "evaluations": [[k, enc(u), enc(r)] for k, u, r, *_ in ev]})


def answer(req: Request) -> Answer:
    """Answer a frame request step by step with ``reference.frame``."""
    held = None
    builds = []  # every successful build's holder, in order
    rows = []  # [status, claims, output] per step
    for i, st in enumerate(req.steps):
        if st.op == "TryBuildFrames":
            status, got, claims = _build(st.inputs, i)
            if got is not None:
                held = got
                builds.append(got)
            rows.append([status, list(claims), frames_output(held.fv) if held is not None else dict(_NONE)])
        elif st.op == "TryEvaluateFrame":
            if held is None:
                rows.append(["MissingCache", [], {"status": "MissingCache"}])
                continue
            status, claims, output = _evaluate(held, st.inputs)
            rows.append([status, list(claims), output])
        else:
            raise ValueError(f"unknown frame op {st.op!r}")
    for h in builds:
        rows[h.step][1].append(_angular_claim(h, req.name))
    return Answer(req.id, tuple(StepAnswer(s, tuple(c), o) for s, c, o in rows))
