"""Frame rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, and a
planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ... import schema as S
from ...family import RowContract
from ...model import Claim, NumberError, dec, enc, parse_number, violated
from .checks import EVALUATED_POINT, FRAME_VECTOR_K, REPORTED_RANGES, controls_of
from .checks_angular import ACCEPTANCE_FACTOR, EVALUATIONS

__all__ = ["CONTRACTS"]


_F64V = S.f64(finite=False)
_XYZ = S.vec(S.f64(), 3)
# Tuples of the angular-error row: a run or span index, then numbers (each typed, so that a
# decimal in a case file is read into its format like any other field's).
_INDEX = S.integer(minimum=0)
_SPAN_U = S.tuple_(_INDEX, _F64V)
_CONTROLS = S.matrix(S.f32(), [4, 3])


def _with(claim: Claim, value) -> Claim:
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _plant_regularity(c: Claim) -> Claim:
    if c.value["regular"]:
        # A minimum speed above every speed of the span: the interval is certainly not regular.
        P = controls_of(c.inputs["controls"], (4, 3)).astype(np.float64)
        big = float(6.0 * np.max(np.abs(P)) * 2.0 + 1.0) * 2.0 ** c.inputs["max_depth"]
        return Claim(c.row, c.guarantee, c.value, {**c.inputs, "minimum_speed": enc(big)}, c.model)
    return _with(c, {"regular": True})  # a singular range called regular


def _evaluated_point(spans: int, call: dict):
    """The ``(span, u)`` a TryEvaluateFrame call names on ``spans`` prepared spans, under spec 002's
    span sides and the Reject policy (:func:`.demands.resolve_request`), or None where it names
    no point (a nonfinite u, outside the domain, an unknown side: its status is judged instead)."""
    from .demands import resolve_request

    k = call.get("span")
    if type(k) is not int:
        return None
    try:
        u = dec(call.get("u"))
    except (NumberError, TypeError, ValueError):
        return None
    got = resolve_request(spans, k, u, call.get("side"))
    return (got[1], got[2]) if got[0] == "ok" else None


def _same_values(a, b) -> bool:
    """Whether two lists of claim numbers hold the same exact values (-0 is 0)."""
    try:
        return len(a) == len(b) and all(parse_number(x) == parse_number(y) for x, y in zip(a, b))
    except (NumberError, TypeError):
        return False


def _build_held(req, ans, k: int) -> int | None:
    """The build step whose frames step ``k`` sees: the last TryBuildFrames before it answered Success
    (a failed rebuild keeps the frames), or None."""
    for j in range(min(k, len(ans.steps)) - 1, -1, -1):
        if req.steps[j].op == "TryBuildFrames" and ans.steps[j].status == "Success":
            return j
    return None


def _spans(req, b: int) -> int | None:
    """The number of spans of the path build step ``b`` was given, or None."""
    try:
        return len(req.steps[b].inputs["path"]["spans"])
    except (KeyError, TypeError):
        return None


def _evaluations_made(req, ans, b: int) -> list | None:
    """``[(span, u, roll, normal)]`` of the TryEvaluateFrame calls answered Success on the frames
    step ``b`` built (those whose :func:`_build_held` is ``b``), in order, on the build's path
    revision, at the point each names (:func:`_evaluated_point`), with the normal it returned;
    None where the build names no path."""
    n = _spans(req, b)
    try:
        revision = req.steps[b].inputs["path"]["revision"]
    except (KeyError, TypeError):
        return None
    if n is None:
        return None
    out = []
    for j in range(b + 1, min(len(req.steps), len(ans.steps))):
        st, got = req.steps[j], ans.steps[j]
        if st.op != "TryEvaluateFrame" or got.status != "Success" or _build_held(req, ans, j) != b or \
                st.inputs.get("path_revision", revision) != revision or not isinstance(got.output, dict) or \
                not isinstance(got.output.get("normal"), list):
            continue
        p = _evaluated_point(n, st.inputs)
        if p is not None:
            out.append((p[0], p[1], st.inputs.get("roll"), got.output["normal"]))
    return out


def _run_holding(runs, k: int, u: float) -> int:
    """The index of the first run whose [start, end] holds ``(k, u)`` (else the last run starting
    before it, or 0: the checker refutes a frame outside its run)."""
    best = 0
    for i, r in enumerate(runs):
        try:
            start = (int(r["start"][0]), parse_number(r["start"][1]))
            end = (int(r["end"][0]), parse_number(r["end"][1]))
        except (KeyError, TypeError, ValueError, IndexError, NumberError):
            continue
        if start <= (k, u) <= end:
            return i
        if start <= (k, u):
            best = i
    return best


def _answered_evaluations(claim: Claim, req, ans, k: int):
    """``(claim, verdict)``: a build's frame.angular_error_estimate claim held to the evaluations
    its answer made on those frames (rule frame:evaluations): its ``evaluations`` are their points
    after span sides resolve and their rolls, its ``value.evaluated`` normals the normals they
    returned; either left out is taken from them (the run of each from the claim's runs)."""
    made = _evaluations_made(req, ans, k)
    inputs, value = claim.inputs, claim.value
    if made is None or not isinstance(inputs, dict) or not isinstance(value, dict):
        return claim, None

    def refuted(field, i, claimed, want, why):
        return claim, violated(claim, {"field": field, "index": i, "claimed": claimed, "answered": want, "why": why},
                               note=f"{field} are not the evaluations this answer made on these frames",
                               rule=EVALUATIONS.id)

    calls = [[s, enc(u), roll] for s, u, roll, _ in made]
    stated = inputs.get("evaluations")
    if isinstance(stated, list):
        for i in range(max(len(stated), len(calls))):
            a, b = (stated[i] if i < len(stated) else None), (calls[i] if i < len(calls) else None)
            if not (isinstance(a, list) and b is not None and len(a) == 3 and type(a[0]) is int and a[0] == b[0]
                    and _same_values(a[1:], b[1:])):
                return refuted("inputs.evaluations", i, a, b, "the i-th evaluation is not the i-th TryEvaluateFrame "
                                                              "call answered Success on these frames")
    normals = value.get("evaluated")
    if isinstance(normals, list):
        for i in range(max(len(normals), len(made))):
            a, b = (normals[i] if i < len(normals) else None), (made[i][3] if i < len(made) else None)
            if not (isinstance(a, list) and b is not None and len(a) == 2 and isinstance(a[1], list)
                    and _same_values(a[1], b)):
                return refuted("value.evaluated", i, a, b, "the i-th evaluated normal is not the normal the i-th "
                                                           "evaluation returned")
    add_inputs = {} if stated is not None or not calls else {"evaluations": calls}
    add_value = {}
    if normals is None and calls and isinstance(inputs.get("runs"), list):
        add_value = {"evaluated": [[_run_holding(inputs["runs"], s, u), nrm] for s, u, _, nrm in made]}
    if add_inputs or add_value:
        claim = replace(claim, inputs={**inputs, **add_inputs}, value={**value, **add_value})
    return claim, None


def _answered_ranges(claim: Claim, req, ans, k: int):
    """``(claim, verdict)``: a frame.vectors claim's ``ranges`` held to the ranges its frames report
    (rule frame:reported_ranges): the build output's ranges ``[span, u0, u1, ...]`` on the span its
    step names whose closure holds the point, compared as sets by exact value; taken from them when
    left out."""
    b = _build_held(req, ans, k)
    n = None if b is None else _spans(req, b)
    inputs = claim.inputs
    if n is None or not isinstance(inputs, dict) or req.steps[k].op != "TryEvaluateFrame":
        return claim, None
    output = ans.steps[b].output
    reported = output.get("ranges") if isinstance(output, dict) else None
    point = _evaluated_point(n, req.steps[k].inputs)
    if point is None or not isinstance(reported, list):
        return claim, None
    s, u = point
    want = []
    for r in reported:
        try:
            if r[0] == s and parse_number(r[1]) <= u <= parse_number(r[2]):
                want.append([r[1], r[2]])
        except (NumberError, TypeError, IndexError, KeyError):
            return claim, None  # an output the statuses row refuses or cannot read: not ours to judge here
    stated = inputs.get("ranges")
    if stated is None:
        return replace(claim, inputs={**inputs, "ranges": want}), None

    def values(rs):
        try:
            return sorted((parse_number(a), parse_number(b)) for a, b in rs)
        except (NumberError, TypeError, ValueError):
            return None

    got = values(stated) if isinstance(stated, list) else None
    if got is not None and got != values(want):
        return claim, violated(claim, {"field": "inputs.ranges", "claimed": stated, "reported": want, "span": s,
                                       "u": enc(u), "why": "the ranges are not those the frames report (the build's "
                                                           "output) on this span whose closure holds u"},
                               note="inputs.ranges are not the ranges the frames report", rule=REPORTED_RANGES.id)
    return claim, None


def _plant_vectors(c: Claim) -> Claim:
    if "status" in c.value:
        # a frame inside a singular range (any frame: the range alone refutes it)
        e = [enc(1.0), enc(0.0), enc(0.0)]
        return _with(c, {"position": e, "tangent": e, "normal": [enc(0.0), enc(1.0), enc(0.0)],
                         "binormal": [enc(0.0), enc(0.0), enc(1.0)]})
    b = list(c.value["binormal"])
    b = [enc(-dec(x)) for x in b]  # a left-handed frame
    return _with(c, {**c.value, "binormal": b})


def _plant_angular(c: Claim) -> Claim:
    s = [list(e) for e in c.value["samples"]]
    s[-1][3] = [enc(-dec(x)) for x in s[-1][3]]  # a normal flipped: pi from the truth
    return _with(c, {**c.value, "samples": s})


CONTRACTS = {
    "frame.regularity": RowContract(
        checks="kind interval, regular true: min |B'(u)| over [u0, u1] > minimum_speed, by exact Bernstein "
               "subdivision of |B'|^2 (a witness u with |B'(u)|^2 <= minimum_speed^2 refutes it), cross-checked "
               "by exact real-root isolation of d/du |B'|^2 (python-flint Arb, 128/256/1024 bits): disjoint "
               "enclosures of the extremum, different exact values of |B'|^2 at one parameter or opposite "
               "decisions are an oracle fault; kind slow: max |B'| <= minimum_speed the same way; "
               "kind depth_limited: u1 - u0 = 2^-max_depth exactly (spec 002: a range that cannot be shown regular "
               "at the depth limit is 2^-MaxDepth wide), and its exact derivative box (the hodograph's Bezier "
               "controls over [u0, u1]) does not clear minimum_speed by more than 2^-40 of the span's hodograph "
               "size (else it can be shown regular).",
        inputs=S.obj(required={
            "controls": S.described(_CONTROLS, "Yours: the span's four prepared controls (chunk-relative float32)."),
            "u0": S.f64(nonnegative=True, doc="Yours: the start of the interval or range within the span, [0, 1]."),
            "u1": S.f64(nonnegative=True, doc="Yours: its end (u0 < u1 <= 1)."),
            "minimum_speed": S.f64(nonnegative=True, doc=(
                "Given: ToleranceProfile.MinimumSpeed, length units per unit u: the speed |dB/du| (not squared) an "
                "interval's derivative box must stay above.")),
            "max_depth": S.integer(0, 52, doc="Given: the build's MaxDepth (WorkLimits)."),
            "kind": S.enum(["interval", "slow", "depth_limited"], doc=(
                "Yours: interval, a sample interval the build accepted as regular; slow, a singular range where "
                "the speed is at most minimum_speed throughout; depth_limited, a range that could not be shown "
                "regular at the depth limit (2^-max_depth wide)."))}),
        value=S.obj(required={"regular": S.boolean(doc=(
            "The decision: true for a regular interval (kind interval), false for a singular range."))}),
        plant=_plant_regularity,
        oracles=("exact Bernstein subdivision of |B'|^2 (gmpy2 mpq)",
                 "real-root isolation of d/du |B'|^2 (python-flint fmpq_poly, Arb balls)")),
    "frame.vectors": RowContract(
        checks="Singular ranges first (inputs.ranges, the reported ranges whose closure holds u): a frame strictly "
               "inside one, or at the common end of two, is Violated; a value {status: Degenerate} is Verified inside "
               "a range and Violated outside every range. Then "
               "|position - B(u)| per component <= 16 u E + 16 eta (exact); |tangent - B'/|B'|| <= "
               "tangent_bound(E, |B'|) (IV); orthonormality residuals (| |v|^2 - 1 |, pairwise dots) and "
               "max |b - t x n| <= 16 u (exact); at a seed, |normal - unit(a - (a.t) t)| <= (4 e_t + 16 u)/sine "
               "+ 16 u and a fallback only where seed_up's true sine is at most minimum_sin_angle plus that; "
               "u, eta of the declared model, else binary64; model components: [position, tangent, "
               "orthonormality, handedness, seed].",
        inputs=S.obj(required={
            "controls": S.described(_CONTROLS, "Yours: the evaluated span's four prepared controls (chunk-relative "
                                               "float32)."),
            "u": S.f64(nonnegative=True, doc="Given: the evaluated parameter within the span, [0, 1], after span "
                                             "sides resolve (in an answer, the span and u its TryEvaluateFrame "
                                             "step's span, u and side name: rule frame:evaluated_point).")},
                     optional={"seed": S.obj(required={
                         "axis": S.described(_XYZ, "Given: the axis the run was seeded from: SeedUp, or FallbackAxis "
                                                   "for a fallback-seeded run."),
                         "seed_up": S.described(_XYZ, "Given: FramePreparation.SeedUp."),
                         "is_fallback": S.boolean(doc="Yours: FrameRun.IsFallbackSeeded."),
                         "minimum_sin_angle": S.f64(nonnegative=True, doc=(
                             "Given: ToleranceProfile.MinimumSinAngle (a sine, dimensionless)."))},
                         doc=("Given, only for a frame at a run's start, unrolled and untwisted: the seed, so "
                              "that the normal is checked against the projected axis.")),
                               "ranges": S.array(S.vec(S.f64(nonnegative=True), 2), doc=(
                                   "Yours: the singular ranges [u0, u1] your frames report on this span whose closure "
                                   "holds u (empty when none; in an answer, those its build's output reports, taken "
                                   "from it when left out: rule frame:reported_ranges)."))}),
        value=S.any_of(S.obj(required={
            "position": S.vec(_F64V, 3, doc="B(u), chunk-relative float64."),
            "tangent": S.vec(_F64V, 3, doc="The unit tangent."),
            "normal": S.vec(_F64V, 3, doc="The unit normal (transported, twisted, then rolled by the caller's roll)."),
            "binormal": S.vec(_F64V, 3, doc="tangent x normal (a right-handed frame).")},
            doc="TryEvaluateFrame's frame."),
                       S.obj(required={"status": S.const("Degenerate", doc="Inside a singular range.")},
                             doc="No frame."),
                       doc="The frame, or Degenerate."),
        model=S.model("[position, tangent, orthonormality, handedness, seed]", FRAME_VECTOR_K),
        plant=_plant_vectors,
        evaluated_point=(EVALUATED_POINT, _evaluated_point),
        answered=_answered_ranges),
    "frame.angular_error_estimate": RowContract(
        checks="Run structure: a run starts only at the path start, after a claimed singular range or at a joint "
               "not clearly G1 (true tangent angle >= continuity_angle (1 - 2^-20)) under SplitRuns, crosses no "
               "singular range and no clear corner unless RotateMinimally. Estimate (when intervals are "
               "claimed): each interval's angle within 32 u (1 + E/|chord|) + 2^-30 of the oracle's one double-"
               "reflection step versus two half steps (mp, 113 bits), at most tangent_angle_error x its share "
               "(d(b) - d(a)) / TotalEstimate or 64 u; the estimate their sum plus the largest (within 4 u per "
               "term); every distance estimate and TotalEstimate within distance_error of the arc length. Then "
               "the true RMF (Taylor integration of dr/du = -(r . t') t at 113 bits, checked by halving) "
               "from each run's claimed seed (every claimed frame within its run's parameters; an integration "
               "stopped near a zero of the speed is Violated only where an exact zero lies in the run, else "
               "Undecided); the largest angle between a claimed normal and the true one, less the tilt its Rounded "
               "tangent allows (tangent_bound(E, |B'|)), and a closed loop's |claimed - true| residual twist mod "
               "2 pi, must be at most "
               f"{ACCEPTANCE_FACTOR:g} x estimate + 32 u (samples + 1); is_closed_loop true exactly on a closed "
               "path baked as one run from its start to its end that crosses its closing joint (a clearly G1 joint "
               "always, a clear corner only under RotateMinimally; under Reject such a claim is Violated: the build "
               "fails), periodic exactly on a closed loop under DistributeTwist (without closed_policy: only on a "
               "closed loop); a periodic loop's twist at the end "
               "equals -ResidualTwist + 2 pi WindingTurns, and frames that are not periodic have none; every "
               "baked and evaluated normal a unit vector within 16 u (| |n|^2 - 1 |, exact); each evaluated "
               "frame (after twist and roll) within "
               "that limit (plus the tilt) of the true normal rolled by roll + (2 pi W - R) s(u) / L (true arc "
               "lengths: the spec's "
               "twist in proportion to distance), plus only what estimated distances imply, |2 pi W - R| d (L + s) "
               "/ (L (L - d)) with d = distance_error, and rounding 8 u (|2 pi W - R| + |roll|); calibration "
               "true/estimate reported.",
        inputs=S.obj(required={
            "controls": S.matrix(S.f32(), [None, 4, 3], doc=(
                "Yours: every span's four prepared controls (n x 4 x 3, chunk-relative float32).")),
            "runs": S.array(S.obj(required={
                "start": S.described(_SPAN_U, "The run's first parameter, [span, u]."),
                "end": S.described(_SPAN_U, "The run's last parameter, [span, u]."),
                "normal": S.described(_XYZ, "The run's seed normal (its first sample's normal).")}), min_items=1,
                doc="Yours: the frames' runs in order (FrameRun)."),
            "periodic": S.boolean(doc="Yours: whether the frames are periodic (DistributeTwist on a closed path)."),
            "winding_turns": S.integer(doc="Given: FramePreparation.WindingTurns.")},
                     optional={"case": S.string(doc="Given: a name for people (ignored by the checker)."),
                               "closed": S.boolean(doc="Given: whether the path is closed."),
                               "tangent_angle_error": S.f64(nonnegative=True, doc=(
                                   "Given: ToleranceProfile.TangentAngleError, radians (the whole path's transport "
                                   "budget).")),
                               "distance_error": S.f64(nonnegative=True, doc=(
                                   "Given: ToleranceProfile.DistanceError, asset units (needed with value.intervals "
                                   "and with evaluations on periodic frames: without it such a claim is malformed).")),
                               "continuity_angle": S.f64(nonnegative=True, doc=(
                                   "Given: ToleranceProfile.ContinuityAngle, radians.")),
                               "corner_policy": S.enum(["Reject", "RotateMinimally", "SplitRuns"], doc=(
                                   "Given: FramePreparation.CornerPolicy.")),
                               "closed_policy": S.enum(["DistributeTwist", "PreserveHolonomy"], doc=(
                                   "Given: FramePreparation.ClosedPolicy (without it, periodic frames need only be a "
                                   "closed loop).")),
                               "evaluations": S.array(S.tuple_(_INDEX, _F64V, _F64V), doc=(
                                   "Given: the TryEvaluateFrame calls made on these frames, each [span, u, roll "
                                   "(radians)], in the order of value.evaluated, at the point after span sides "
                                   "resolve (in an answer, the later calls answered Success on these frames, and "
                                   "taken from them when left out: rule frame:evaluations)."))},
                     doc=("The frames' structure and the tolerances they were built with. Without corner_policy (and "
                          "value.ranges) the run structure is not checked; without evaluations none is.")),
        value=S.obj(required={
            "estimate": S.described(_F64V, "FramesView::AngularErrorEstimate, radians (an Estimated angle)."),
            "residual_twist": S.described(_F64V, "ResidualTwist, radians (0 on an open path)."),
            "is_closed_loop": S.boolean(doc="Whether the frames form a closed loop."),
            "twist_end": S.described(_F64V, (
                "The twist compensation at the last sample, radians (a periodic loop: -ResidualTwist + 2 pi "
                "WindingTurns).")),
            "samples": S.array(S.tuple_(_INDEX, _INDEX, _F64V, S.vec(_F64V, 3)), min_items=1, doc=(
                "Every baked sample, [run, span, u, normal] (the transported normal, before twist and roll), and "
                "after them the transported normal of every evaluated frame."))},
                    optional={"intervals": S.array(S.tuple_(_INDEX, *[_F64V] * 5), doc=(
                        "Each accepted sample interval, [span, u0, u1, angle, d0, d1]: the one-step versus two-half-"
                        "steps difference (radians) and the estimated distances at its ends (asset units).")),
                              "total_estimate": S.f64(nonnegative=True, doc=(
                                  "The distance map's TotalEstimate, asset units.")),
                              "ranges": S.array(S.tuple_(_INDEX, _F64V, _F64V), doc=(
                                  "The singular ranges the frames report, [span, u0, u1].")),
                              "evaluated": S.array(S.tuple_(_INDEX, S.vec(_F64V, 3)), doc=(
                                  "Per evaluation of inputs.evaluations, [run, normal]: the frame's final normal "
                                  "(after twist and roll; in an answer, the normal that call returned, taken from "
                                  "it when left out: rule frame:evaluations)."))}),
        plant=_plant_angular,
        answered=_answered_evaluations),
}

