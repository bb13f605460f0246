"""The checker of the Estimated row ``frame.angular_error_estimate``.

It recomputes every truth from ``claim.inputs`` alone (``interval.frame``): the run structure
the policies allow (frames that are not periodic add no twist), every baked and evaluated
normal a unit vector within the frame.vectors row's 16 u, the estimate's conformance (each
claimed interval angle against the oracle's own one-step-versus-two-half-steps difference,
acceptance against the interval's share of the path, the estimate their sum plus the largest,
distance estimates within DistanceError), then
the true RMF of every run (Taylor integration of ``dr/du = -(r . t') t`` at 113 bits, checked by
halving) from the claimed seed; a frame claimed outside its run's parameters is Violated, and an
integration that stops near a zero of the speed is Violated only when an exact zero lies in the
run (else Undecided). The true error is the largest angle between a claimed normal (baked or
evaluated, before twist) and the true one, less the tilt its Rounded tangent allows (``tilt``),
and for a closed loop also ``|claimed - true|`` residual twist (mod 2 pi). Violated when it
exceeds ``ACCEPTANCE_FACTOR * estimate + 32 u (samples + 1)``; Undecided when the oracle's own
halving difference exceeds a sixteenth of that slack. Each evaluated frame must be within that
limit (plus its tilt) of the true normal rolled by the roll plus,
on a periodic loop, the twist in proportion to the true arc length (``twist_expected``: the only
allowance is the one estimated distances imply, from DistanceError). Measured: the calibration
``true / estimate``, also counted in bins (``calibration_*`` counters: the distribution).
"""

from __future__ import annotations

import math

import gmpy2
import numpy as np
from mpmath import mp

from interval.context import to_mpq
from interval.frame import Arcs, SingularRun, angle_between, decide_speed_above, estimate_cap, rotate_between, \
    signed_angle, step_difference, true_rmf, true_tangent
from reference import error_model as EM
from reference import kernel as K
from reference.context import F64
from reference.fp import U64
from reference.frame import FRAME_VECTOR_K, ROUNDING_FLOOR

from ...model import Claim, Verdict, dec, dec_array, enc, nonfinite_value, undecided, verified, violated
from ...rules import declare, default, spec
from .checks import VECTORS_BOUND, controls_of

__all__ = [
    "ACCEPTANCE_FACTOR",
    "JOINT_BAND",
    "ROUNDING_ALLOWANCE_K",
    "STEP_ANGLE_K",
    "check_angular_error",
    "tilt",
    "twist_expected",
]

_mpq = gmpy2.mpq

# The Estimated row's acceptance factor: the true angle error may exceed the estimate by at
# most this factor (plus the rounding allowance) before a claim is Violated.
ACCEPTANCE_FACTOR = 4.0

_S = "spec 002 Transported frames: "
ESTIMATE = spec("frame:estimate", _S + "'A regular interval is accepted when one reflection step and two half steps "
                "differ by at most TangentAngleError times its share of the path. The summed differences, plus the "
                "largest one, form AngularErrorEstimate': finite and nonnegative, at most 2 TangentAngleError plus "
                "the rounding floor per interval (interval.frame.estimate_cap), each claimed interval angle the "
                "oracle's step difference, accepted within its share, the estimate their sum plus the largest")
RUNS = spec("frame:runs", _S + "the policy table (Reject, SplitRuns: 'The run ends before the range; a new run is "
            "seeded after it'; corners: RotateMinimally or a new run; a closed path is one run): runs start and end "
            "where the policies allow, cross no singular range, no corner under another policy, no zero of the speed, "
            "and frames lie inside their runs")
TWIST = spec("frame:twist", _S + "'DistributeTwist: Adds -ResidualTwist + 2 pi WindingTurns of roll in proportion to "
             "estimated distance; the seam becomes periodic'; 'PreserveHolonomy: Keeps the transported frames and "
             "reports ResidualTwist': the twist at the path end, no residual twist on an open path or split loop, "
             "and no twist added to frames that are not periodic")
CLOSED_LOOP = spec("frame:closed_loop", _S + "the policy table ('Closed path: DistributeTwist adds -ResidualTwist + "
                   "2 pi WindingTurns of roll ...; the seam becomes periodic', 'PreserveHolonomy keeps the transported "
                   "frames and reports ResidualTwist'; 'Joint that is not G1 under ContinuityAngle: Reject: "
                   "DegenerateFrame, RotateMinimally: rotates, SplitRuns: a new run'): a closed path baked as one run "
                   "from its start to its end is a closed loop exactly when it crosses its closing joint (a clearly G1 "
                   "joint always, a clear corner only under RotateMinimally; Reject fails there), an open path never; "
                   "the frames periodic exactly on a closed loop under DistributeTwist")
DISTANCES = spec("frame:distances", _S + "'It needs the path's distance map, which supplies sample distances': "
                 "TotalEstimate and sample distances within DistanceError of the arc length")
ACCEPTANCE = default("frame:acceptance", "docs/decisions.md 'Frames: the Estimated row's acceptance factor': the true "
                     "angle error (normals against the true RMF, residual twist, evaluated frames with roll and "
                     "twist) at most ACCEPTANCE_FACTOR = 4 times AngularErrorEstimate plus 32 u per sample (spec 002 "
                     "Guarantees: 'AngularErrorEstimate, residual twist' are Estimated, with no factor)")
EVALUATIONS = default("frame:evaluations", "docs/casefile.md frame.angular_error_estimate ('evaluations: Given: "
                      "the TryEvaluateFrame calls made on these frames'; 'evaluated: the frame's final normal') and "
                      "docs/decisions.md 'Answers: Given inputs are the request's' step 6: in an answer, a build's "
                      "evaluations are the later TryEvaluateFrame calls answered Success on its frames (their points "
                      "after span sides resolve, and their rolls), in order, and value.evaluated holds the normals "
                      "those calls returned; left out, both are taken from those calls, so every evaluated normal is "
                      "judged against the true frame")

RULES = declare({"frame.angular_error_estimate": (ESTIMATE, RUNS, CLOSED_LOOP, TWIST, DISTANCES, ACCEPTANCE,
                                                  VECTORS_BOUND, EVALUATIONS)})

# Rounding allowance of transported frames: 32 u per baked sample of the run (a step rounds
# a few u per reflection and renormalization; rotations propagate earlier errors unchanged).
ROUNDING_ALLOWANCE_K = 32
_CALIBRATION_BINS = ((0.01, "calibration_lt_0.01"), (0.1, "calibration_0.01_0.1"), (0.5, "calibration_0.1_0.5"),
                     (1.0, "calibration_0.5_1"), (ACCEPTANCE_FACTOR, "calibration_1_factor"),
                     (math.inf, "calibration_above_factor"))


def tilt(C, k: int, u: float) -> float:
    """How far a normal perpendicular to a correctly Rounded tangent at ``(k, u)`` may lean from one
    perpendicular to the true tangent: the frame vectors' tangent bound (``tangent_bound(E, |B'|)``,
    the ``frame.vectors`` row's; docs/decisions.md "Frames: the angular row and Rounded tangents").
    A few u where the speed is of the size of the controls; it grows near a zero of the speed."""
    P = C[k].astype(np.float64)
    d = K.cubic_derivative(F64, P, np.float64(u))
    b = EM.tangent_bound(EM.span_magnitude(P), float(np.sqrt(np.dot(d, d))))
    return min(b, math.pi) if b == b else math.pi


def _zero_in_run(C, start, end):
    """A parameter ``(span, u)`` where ``B' = 0`` inside the run from ``start`` to ``end`` shown
    exactly (``interval.frame.decide_speed_above`` with speed 0), or None."""
    for k in range(start[0], end[0] + 1):
        a = start[1] if k == start[0] else 0.0
        b = end[1] if k == end[0] else 1.0
        if a < b:
            d = decide_speed_above(C[k], a, b, 0.0)
            if d.holds is False:
                return k, float(d.witness[0])
    return None


def _wrap(x):
    two_pi = 2 * mp.pi
    y = (x + mp.pi) % two_pi - mp.pi
    return y


def check_angular_error(claim: Claim):
    """Estimated: the run structure the policies allow, the estimate's conformance (claimed
    interval angles against the oracle's step differences, acceptance against each interval's
    share, the estimate their sum plus the largest, distance estimates within DistanceError),
    then the true angle error of every claimed normal (and of a closed loop's residual twist),
    and of every evaluated frame after twist and roll, at most ACCEPTANCE_FACTOR x estimate +
    32 u (samples + 1) (+ the twist tolerance); calibration measured."""
    C = controls_of(claim.inputs["controls"], None)
    if C.ndim != 3:
        raise ValueError("controls must be (n, 4, 3)")
    n = C.shape[0]
    v = claim.value
    bad = nonfinite_value(claim, lambda at: ACCEPTANCE.id if at.startswith(("value.samples", "value.evaluations"))
                          else ESTIMATE.id)
    if bad is not None:  # a NaN normal would drop out of every max below: no error is bounded
        return bad
    est = dec(v["estimate"])
    if not math.isfinite(est) or est < 0:
        return violated(claim, {"why": "the estimate must be finite and nonnegative", "estimate": v["estimate"]},
                        rule=ESTIMATE.id)
    runs = claim.inputs["runs"]
    by_run: dict = {}
    for entry in v["samples"]:
        ri, k, u, nrm = entry
        if not (isinstance(ri, int) and 0 <= ri < len(runs) and isinstance(k, int) and 0 <= k < n):
            raise ValueError("samples are [run, span, u, normal] with valid indices")
        by_run.setdefault(ri, []).append((k, dec(u), _direction(nrm, "samples")))
    if not claim.inputs["periodic"] and dec(v["twist_end"]) != 0.0:
        return violated(claim, {"why": "frames that are not periodic add no twist (only DistributeTwist does)",
                                "twist_end": v["twist_end"]}, rule=TWIST.id)
    arcs = Arcs(C)
    bad = _run_structure(claim, C, runs) or _closed_loop(claim, C, runs)
    if bad is not None:
        return bad
    if "tangent_angle_error" in claim.inputs:
        cap = estimate_cap(dec(claim.inputs["tangent_angle_error"]), len(v["samples"]))
        if est > cap:
            return violated(claim, {"why": "AngularErrorEstimate above what the acceptance rule admits: 2 "
                                           "TangentAngleError plus the rounding floor per interval",
                                    "estimate": v["estimate"], "cap": enc(cap)}, rule=ESTIMATE.id)
    bad = _estimate_conformance(claim, C, est, arcs)
    if bad is not None:
        return bad
    evals = _evaluations(claim, n, len(runs))  # a zero normal is malformed, as a zero sample's is
    bad = _unit_normals(claim)
    if bad is not None:
        return bad
    for ri, k, u, _, _ in evals:
        by_run.setdefault(ri, []).append((k, u, None))
    for ri, entries in by_run.items():
        first = (int(runs[ri]["start"][0]), dec(runs[ri]["start"][1]))
        last = (int(runs[ri]["end"][0]), dec(runs[ri]["end"][1]))
        for k, u, _ in entries:
            if not first <= (k, u) <= last:
                # spec 002: frames are transported along a run and never reused across a range
                return violated(claim, {"why": f"a frame of run {ri} at (span {k}, u = {u!r}) lies outside the run "
                                               f"[{first}, {last}]"}, rule=RUNS.id)
    worst = mp.mpf(0)
    oracle_err = mp.mpf(0)
    count = 0
    loop = None
    truths = {}
    with mp.workprec(113):
        for ri, run in enumerate(runs):
            start = (int(run["start"][0]), dec(run["start"][1]))
            end = (int(run["end"][0]), dec(run["end"][1]))
            if not (0 <= start[0] <= end[0] < n):
                raise ValueError("run start and end must be spans in order")
            ss = by_run.get(ri, [])
            try:
                tr = true_rmf(C, start, end, dec_array(run["normal"]), [(k, u) for k, u, _ in ss])
            except SingularRun as e:
                zero = _zero_in_run(C, start, end)
                if zero is not None:
                    return violated(claim, {"why": f"run {ri} crosses a zero of the speed: {e}", "span": zero[0],
                                            "u": enc(zero[1])}, rule=RUNS.id)
                return undecided(claim, [enc(0.0), enc(0.0)], measure="calibration", measured=None,
                                 note=f"run {ri}: the RMF integration stopped ({e}), but no zero of the speed in "
                                      "the run is shown exactly")
            oracle_err = max(oracle_err, tr.error)
            truths[ri] = tr
            for k, u, nrm in ss:
                if nrm is None:
                    continue
                a = [mp.mpf(float(x)) for x in nrm]
                worst = max(worst, angle_between(_unit_mp(a), tr.normals[(k, u)]) - tilt(C, k, u))
            count = max(count, sum(1 for e in ss if e[2] is not None))
            if ri == 0:
                loop = tr
        twist_err = mp.mpf(0)
        if v["is_closed_loop"]:
            if len(runs) != 1:
                return violated(claim, {"why": "a closed loop is one run"}, rule=RUNS.id)
            tr = loop
            back = rotate_between(tr.end, tr.end_tangent, tr.start_tangent)
            true_twist = signed_angle(tr.start_normal, back, tr.start_tangent)
            twist_err = abs(_wrap(mp.mpf(dec(v["residual_twist"])) - true_twist))
            if claim.inputs["periodic"]:
                want = -dec(v["residual_twist"]) + 2 * math.pi * int(claim.inputs["winding_turns"])
                got = dec(v["twist_end"])
                if abs(got - want) > 16 * U64 * (abs(want) + 1):
                    return violated(claim, {"why": "DistributeTwist must add -ResidualTwist + 2 pi WindingTurns "
                                                   "by the path end", "twist_end": v["twist_end"],
                                            "expected": enc(want)}, rule=TWIST.id)
        elif dec(v["residual_twist"]) != 0.0:
            return violated(claim, {"why": "an open path (or a split loop) has no residual twist"}, rule=TWIST.id)
        true_err = max(worst, twist_err)
        allowance = mp.mpf(ROUNDING_ALLOWANCE_K * U64) * (count + 1)
        limit = mp.mpf(ACCEPTANCE_FACTOR) * est + allowance
        calibration = float(true_err / est) if est > 0 else (0.0 if true_err <= allowance else math.inf)
        bins = {name: int(calibration < edge and all(calibration >= e for e, _ in _CALIBRATION_BINS[:i]))
                for i, (edge, name) in enumerate(_CALIBRATION_BINS)}
        use = float(true_err / limit)
        detail = {"true_error": float(true_err), "true_normal_error": float(worst),
                  "true_twist_error": float(twist_err), "estimate": est, "allowance": float(allowance),
                  "oracle_error": float(oracle_err)}
        if oracle_err * 16 > allowance:
            return undecided(claim, [enc(float(true_err)), enc(float(oracle_err))], measure="calibration",
                             measured=calibration, note="the RMF integration did not converge to a sixteenth "
                                                        "of the rounding allowance", bound_use=use, **bins)
        if true_err > limit:
            return violated(claim, detail, measure="calibration", measured=calibration, bound_use=use,
                            rule=ACCEPTANCE.id, **bins)
        # Evaluated frames after twist compensation and the caller's roll.
        eval_use = mp.mpf(0)
        periodic = bool(claim.inputs["periodic"])
        total_twist = -dec(v["residual_twist"]) + 2 * math.pi * int(claim.inputs["winding_turns"]) if periodic else 0.0
        for i, (ri, k, u, roll, nrm) in enumerate(evals):
            tr = truths[ri]
            r = tr.normals[(k, u)]
            t = true_tangent(C[k], u)
            tw, tol = (0.0, 0.0) if not periodic else twist_expected(claim, C, arcs, k, u, total_twist, roll)
            phi = mp.mpf(roll) + mp.mpf(tw)
            cp, sp = mp.cos(phi), mp.sin(phi)
            txr = [t[1] * r[2] - t[2] * r[1], t[2] * r[0] - t[0] * r[2], t[0] * r[1] - t[1] * r[0]]
            want = [cp * r[q] + sp * txr[q] for q in range(3)]
            got = angle_between(_unit_mp([mp.mpf(float(x)) for x in nrm]), _unit_mp(want))
            lim_i = limit + mp.mpf(tol) + tilt(C, k, u)
            eval_use = max(eval_use, got / lim_i)
            if got > lim_i:
                return violated(claim, {"why": f"evaluated frame {i} (span {k}, u = {u!r}, roll {roll!r}) is "
                                               f"{float(got):.3g} rad from the true frame rolled by the roll plus the "
                                               f"distributed twist", "limit": float(lim_i),
                                        "expected_twist": float(tw)}, measure="calibration",
                                measured=calibration, bound_use=float(got / lim_i), rule=ACCEPTANCE.id, **bins)
        use = max(use, float(eval_use))
        return verified(claim, measure="calibration", measured=calibration, bound_use=use, **bins)


# Relative band of a joint's G1 classification (the fast path classifies Rounded tangents): a
# joint is clearly G1 below continuity_angle (1 - band), clearly a corner above (1 + band).
JOINT_BAND = 2.0**-20
# A claimed interval angle may differ from the oracle's step difference by this many units of
# float64 roundoff (times 1 + E / |chord|: the chord x(b) - x(a) is rounded relative to E), plus
# 2^-30 relative. Measured on the default corpus: at most 1.5 u.
STEP_ANGLE_K = 32


def _corner_policy(inp) -> tuple:
    """``(corner_policy, continuity_angle)`` of the inputs, checked."""
    policy = inp["corner_policy"]
    ca = dec(inp["continuity_angle"])
    if policy not in ("Reject", "RotateMinimally", "SplitRuns") or not ca >= 0:
        raise ValueError("corner_policy must name a FrameCornerPolicy and continuity_angle be >= 0")
    return policy, ca


def _joint_class(C, k: int, ca: float) -> int:
    """Joint ``k`` (joint 0 of a closed path: the closing joint) against ContinuityAngle ``ca``: -1
    clearly G1 (true tangent angle below ``ca (1 - JOINT_BAND)``), 1 clearly a corner (above ``ca
    (1 + JOINT_BAND)``, or a zero speed at the joint), 0 inside the band."""
    n = C.shape[0]
    try:
        t_in = true_tangent(C[k - 1 if k > 0 else n - 1], 1.0)
        t_out = true_tangent(C[k], 0.0)
    except SingularRun:
        return 1  # a zero speed at the joint: no tangent, not G1
    with mp.workprec(113):
        ang = angle_between(t_in, t_out)
    if ang < ca * (1 - JOINT_BAND):
        return -1
    return 1 if ang > ca * (1 + JOINT_BAND) else 0


def _run_ends(run) -> tuple[tuple[int, float], tuple[int, float]]:
    """A claimed run's first and last parameters, ``((span, u), (span, u))``."""
    return (int(run["start"][0]), dec(run["start"][1])), (int(run["end"][0]), dec(run["end"][1]))


def _closed_loop(claim: Claim, C, runs) -> Verdict | None:
    """The claimed ``is_closed_loop`` and ``periodic`` against the policies: an open path is never
    a closed loop; a closed path baked as one run from (0, 0) to (n - 1, 1) is one exactly when the
    run crosses the closing joint (clearly G1: always; clearly a corner: under RotateMinimally, a
    failure under Reject; inside the band: either, RotateMinimally always). Periodic frames are a
    closed loop under DistributeTwist. Needs ``closed`` (and, for the joint, ``corner_policy``
    and ``continuity_angle``; for ``periodic`` beyond "only on a loop", ``closed_policy``)."""
    inp, v = claim.inputs, claim.value
    loop, periodic = bool(v["is_closed_loop"]), bool(inp["periodic"])
    if periodic and not loop:
        return violated(claim, {"why": "periodic frames are a closed loop (DistributeTwist closes the seam)",
                                "is_closed_loop": loop, "periodic": periodic}, rule=CLOSED_LOOP.id)
    if "closed_policy" in inp:
        if inp["closed_policy"] not in ("DistributeTwist", "PreserveHolonomy"):
            raise ValueError("closed_policy must name a ClosedFramePolicy")
        if periodic != (loop and inp["closed_policy"] == "DistributeTwist"):
            return violated(claim, {"why": "the frames are periodic exactly on a closed loop under DistributeTwist",
                                    "is_closed_loop": loop, "periodic": periodic,
                                    "closed_policy": inp["closed_policy"]}, rule=CLOSED_LOOP.id)
    if "closed" not in inp:
        return None
    if not inp["closed"]:
        if loop:
            return violated(claim, {"why": "an open path's frames are no closed loop"}, rule=CLOSED_LOOP.id)
        return None
    n = C.shape[0]
    whole = len(runs) == 1 and _run_ends(runs[0]) == ((0, 0.0), (n - 1, 1.0))
    if not whole:
        if loop:
            return violated(claim, {"why": "a closed loop is one run from the path start to its end"},
                            rule=CLOSED_LOOP.id)
        return None
    if "corner_policy" not in inp or "continuity_angle" not in inp:
        return None
    policy, ca = _corner_policy(inp)
    joint = _joint_class(C, 0, ca)
    if joint > 0 and policy == "Reject":
        return violated(claim, {"why": "the closing joint is a corner under FrameCornerPolicy Reject: the build "
                                       "fails with DegenerateFrame"}, rule=CLOSED_LOOP.id)
    crossed = "clearly G1" if joint < 0 else "RotateMinimally" if policy == "RotateMinimally" else None
    if crossed and not loop:
        why = f"a closed path baked as one run crosses its closing joint ({crossed}): a closed loop"
    elif loop and not crossed and joint > 0:
        why = "the closing joint is a corner the policy does not cross: no closed loop"
    else:
        return None  # as the policy demands, or a joint inside the band, which may go either way
    return violated(claim, {"why": why, "is_closed_loop": loop, "corner_policy": policy}, rule=CLOSED_LOOP.id)


def _run_structure(claim: Claim, C, runs) -> Verdict | None:
    """Runs may start only at the path start, after a claimed singular range, or at a joint that
    is not clearly G1 under SplitRuns; a run may cross a joint only when it is not clearly a
    corner or the policy is RotateMinimally (a G1 joint is always crossed)."""
    inp, v = claim.inputs, claim.value
    if "corner_policy" not in inp or "ranges" not in v:
        return None  # a case file of the older shape: the structure is not claimed
    policy, ca = _corner_policy(inp)
    n = C.shape[0]
    ranges = [(int(r[0]), dec(r[1]), dec(r[2])) for r in v["ranges"]]

    def corner(k):
        return _joint_class(C, k, ca)

    def after_range(k, u):
        return any((s == k and u1 == u) or (u == 0.0 and s == k - 1 and u1 == 1.0) for s, _, u1 in ranges)

    def before_range(k, u):
        return any((s == k and u0 == u) or (u == 1.0 and s == k + 1 and u0 == 0.0) for s, u0, _ in ranges)

    for i, run in enumerate(runs):
        first, last = _run_ends(run)
        k, u = first
        ok = (k, u) == (0, 0.0) or after_range(k, u) or (u == 0.0 and k >= 1 and policy == "SplitRuns"
                                                          and corner(k) >= 0)
        if not ok:
            return violated(claim, {"why": f"run {i} starts at (span {k}, u = {u!r}): neither the path start, "
                                           "the end of a singular range nor a corner split by SplitRuns"}, rule=RUNS.id)
        k, u = last
        ok = (k, u) == (n - 1, 1.0) or before_range(k, u) or (u == 1.0 and k + 1 < n and policy == "SplitRuns"
                                                               and corner(k + 1) >= 0)
        if not ok:
            return violated(claim, {"why": f"run {i} ends at (span {k}, u = {u!r}): neither the path end, the "
                                           "start of a singular range nor a corner split by SplitRuns"}, rule=RUNS.id)
        for s, u0, u1 in ranges:
            if first < (s, u1) and (s, u0) < last:
                return violated(claim, {"why": f"run {i} crosses the singular range (span {s}, [{u0!r}, {u1!r}])"},
                                rule=RUNS.id)
        crossed = list(range(first[0] + 1, last[0] + 1)) + ([0] if v.get("is_closed_loop") else [])
        for j in crossed:
            if policy != "RotateMinimally" and corner(j) > 0:
                return violated(claim, {"why": f"run {i} crosses joint {j}, a corner, under corner policy {policy}"},
                                rule=RUNS.id)
    return None


def _estimate_conformance(claim: Claim, C, est: float, arcs: Arcs) -> Verdict | None:
    """The spec's estimate: each claimed interval angle is the oracle's one-step-versus-two-half-
    steps difference (within STEP_ANGLE_K u), at most TangentAngleError times its share of the
    path (or ROUNDING_FLOOR); the estimate is their sum plus the largest; every claimed distance
    estimate lies within DistanceError of the true arc length."""
    inp, v = claim.inputs, claim.value
    if "intervals" not in v or "tangent_angle_error" not in inp:
        return None
    tae = to_mpq(dec(inp["tangent_angle_error"]))
    total = dec(v["total_estimate"])
    if "distance_error" not in inp:
        raise ValueError("inputs.distance_error is needed to judge the intervals' distance estimates")
    delta = dec(inp["distance_error"])
    n = C.shape[0]
    angles = []
    L = arcs.estimate_miss(total, None, None, delta)
    if L is not None:
        return violated(claim, {"why": "TotalEstimate is farther than DistanceError from the arc length",
                                "total_estimate": v["total_estimate"], "arc_length": float(L)}, rule=DISTANCES.id)
    floor = to_mpq(ROUNDING_FLOOR)
    tq = to_mpq(total)
    for i, entry in enumerate(v["intervals"]):
        k, a, b, ang, da, db = int(entry[0]), dec(entry[1]), dec(entry[2]), dec(entry[3]), dec(entry[4]), \
            dec(entry[5])
        if not (0 <= k < n and 0.0 <= a < b <= 1.0) or not math.isfinite(ang) or ang < 0:
            raise ValueError("intervals are [span, a, b, angle, d(a), d(b)] with 0 <= a < b <= 1, angle >= 0")
        angles.append(to_mpq(ang))
        share = max(to_mpq(db) - to_mpq(da), _mpq(0)) / tq if tq > 0 else _mpq(0)
        if to_mpq(ang) > tae * share * (1 + _mpq(1, 2**40)) and to_mpq(ang) > floor:
            return violated(claim, {"why": f"interval {i} (span {k}, [{a!r}, {b!r}]) accepted with angle {ang!r} "
                                           "above TangentAngleError times its share of the path",
                                    "share": float(share)}, rule=ESTIMATE.id)
        truth = float(step_difference(C[k], a, b))
        P = C[k].astype(np.float64)
        chord = float(np.linalg.norm(K.cubic_point(F64, P, np.float64(b)) - K.cubic_point(F64, P, np.float64(a))))
        E = float(np.max(np.abs(P)))
        tol = STEP_ANGLE_K * U64 * (1 + (E / chord if chord > 0 else math.inf)) + 2.0**-30 * truth
        if abs(ang - truth) > tol:
            return violated(claim, {"why": f"interval {i} (span {k}, [{a!r}, {b!r}]): the claimed angle is not "
                                           "the difference of one reflection step and two half steps",
                                    "claimed": entry[3], "oracle": truth, "tolerance": tol}, rule=ESTIMATE.id)
        for u, d in ((a, da), (b, db)):
            s = arcs.estimate_miss(d, k, u, delta)
            if s is not None:
                return violated(claim, {"why": f"interval {i}: the distance estimate at (span {k}, u = {u!r}) is "
                                               "farther than DistanceError from the arc length",
                                        "estimate": d, "arc_length": s}, rule=DISTANCES.id)
    if angles:
        want = sum(angles) + max(angles)
        if abs(to_mpq(est) - want) > want * to_mpq(4 * U64) * (len(angles) + 2):
            return violated(claim, {"why": "AngularErrorEstimate is not the sum of the accepted interval angles "
                                           "plus the largest", "estimate": v["estimate"], "expected": float(want)},
                            rule=ESTIMATE.id)
    return None


def _evaluations(claim: Claim, n: int, runs: int) -> list:
    """``[(run, span, u, roll, final normal)]`` of the claim's evaluated frames (none in a case
    file of the older shape)."""
    req = claim.inputs.get("evaluations")
    got = claim.value.get("evaluated")
    if req is None or got is None:
        return []
    if len(req) != len(got):
        raise ValueError("every evaluation request needs one evaluated frame")
    out = []
    for (k, u, roll), (ri, nrm) in zip(req, got):
        if not (isinstance(k, int) and 0 <= k < n and isinstance(ri, int) and 0 <= ri < runs):
            raise ValueError("evaluations are [span, u, roll] and [run, normal] with valid indices")
        out.append((ri, k, dec(u), dec(roll), _direction(nrm, "evaluated")))
    return out


def twist_expected(claim: Claim, C, arcs: Arcs, k: int, u: float, total: float, roll: float = 0.0):
    """``(twist, tolerance)`` of DistributeTwist's compensation at (k, u) with the claim's
    DistanceError (:meth:`interval.frame.Arcs.distributed_twist`, the rule the sweep row's ring
    vertices follow too)."""
    if "distance_error" not in claim.inputs:
        raise ValueError("inputs.distance_error is needed to judge frames evaluated on periodic frames (the twist)")
    return arcs.distributed_twist(k, u, total, dec(claim.inputs["distance_error"]), roll)


def _direction(nrm, field: str) -> np.ndarray:
    """A claimed normal as an array; a zero vector has no direction to compare, so the claim
    is malformed (ValueError), as a sample with an invalid index is."""
    a = dec_array(nrm)
    if a.shape != (3,) or not np.any(a != 0):
        raise ValueError(f"{field}: a normal is three numbers, not all zero")
    return a


def _unit_normals(claim: Claim):
    """Violated when a baked sample's or an evaluated frame's normal is not a unit vector within
    the frame.vectors row's orthonormality bound: ``| |n|^2 - 1 | > FRAME_VECTOR_K u``, decided in
    exact rationals. The angle checks below compare directions only, so a normal of any length
    would pass them."""
    v = claim.value
    rows = [("samples", k, e[3]) for k, e in enumerate(v["samples"])]
    rows += [("evaluated", k, e[1]) for k, e in enumerate(v.get("evaluated") or ())]
    bound = FRAME_VECTOR_K * U64
    for field, k, nrm in rows:
        q = [to_mpq(float(x)) for x in dec_array(nrm)]
        res = abs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1)
        if res > to_mpq(bound):
            return violated(claim, {"why": f"{field}[{k}]: a frame normal is a unit vector within "
                                           f"{FRAME_VECTOR_K:g} u (Rounded)",
                                    "normal": list(nrm), "residual": enc(res), "bound": enc(bound)},
                            rule=VECTORS_BOUND.id)
    return None


def _unit_mp(a):
    s = mp.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)
    return [x / s for x in a]

