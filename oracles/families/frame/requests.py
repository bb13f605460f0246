"""Frame requests: the corpus as requests, each step with the status the spec demands of it.

A frame case is a scenario: ``TryBuildFrames`` on its path and distance map, then
``TryEvaluateFrame`` at the path's ends from both sides, at every joint named from both spans
with both sides (a side names the other span's end in half of them), at random parameters, and
around every parameter the case is built around where the speed is at most MinimumSpeed (a cusp,
a reversal, a stopped or stationary span): the parameter itself, which must be Degenerate whatever
MaxDepth is, and the points half a grid step (``2^-(MaxDepth + 1)``) on either side and the grid
points around it, which a range the spec allows may or may not hold. The first 38 requests are the
named corpus cases of ``corpus.py``; then come the status contracts (:func:`status_requests`, 38
requests, so ``--cases 76`` reaches the last of them): every status the spec and our decisions
name for TryBuildFrames and TryEvaluateFrame, each limit the build uses met with equality (must
succeed) and exceeded by one (must fail), and failed rebuilds that must keep the previous frames.
The rest are random chains.

Expected statuses are decided here from the spec's text and ``docs/decisions.md``, on the exact
inputs, never by running the fast path (``demands.py``): bad input by the decision "Frames: bad
input"; a named case's build by its statement (docs/decisions.md "Frames and sweeps: named corpus
cases state their outcome"); every other build by the spec's partition rule replayed with the
oracle (exact derivative boxes, the spec's step difference at 113 bits, true arc lengths), which
gives the depth, splits, samples and bytes a build needs; an evaluation by the exact speed at the
point it names and the exact derivative boxes of the grid intervals ``2^-MaxDepth`` wide around it.

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryBuildFrames``: ``path`` (the path source as ``TryPreparePath`` takes it: ``spans``
  ``[{"controls": 4 x 3 f64, "domain_width": f64}, ...]``, ``revision``, ``is_closed``, ``origin``
  (3 f64), ``tolerance`` (every ``ToleranceProfile`` field) and ``limits`` (every ``WorkLimits``
  field)), ``map`` (``{"limits"}``: the distance map built for that path; ``{"built": false}``: a
  map never built; ``{"limits", "path_revision"}``: a map built for the same source prepared at
  another revision) and ``preparation`` (``seed_up``, ``fallback_axis`` (3 f64), ``seed_policy``,
  ``singularity_policy``, ``corner_policy``, ``closed_policy`` (names), ``winding_turns``,
  ``strict`` and ``limits`` (every ``WorkLimits`` field)); output: the frames the owner holds after
  the step, ``{"runs": [[start span, start u, end span, end u, is_fallback_seeded], ...], "ranges":
  [[span, u0, u1, is_depth_limited], ...], "samples": [[span, u, normal 3 f64], ...], "estimate",
  "residual_twist"}`` (``{"runs": []}`` while none was built).
* ``TryEvaluateFrame``: ``span``, ``u`` (f64), ``roll`` (f64 radians), ``side``, on the frames the
  owner holds and the path they were built for (``path_revision``, optional: the same path source
  prepared at this revision instead); output: ``{"position", "tangent", "normal", "binormal"}``, or
  ``{"status"}``.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from reference.status import LIMIT_RANGES, TOLERANCE_RANGES, WorkLimits

from ...model import dec, enc, parse_number
from ...request import (
    Expect, Request, Rule, Step, collect_defects, decided_by_kinds, either, failure, interleaved, success,
)
from .checks import REQUEST_STATUS
from .corpus import LIMITS, NAMED, corpus_cases, frame_limits, quarter, tolerance
from .corpus import _CORNER, _SEED, _SING, _case  # the corpus's case constructor and policy names
from .demands import evaluation_demand, joint_kind, narrowed_controls, replay_partition, resolve_request, \
    samples_and_bytes, seed_demand, tolerance_of

__all__ = [
    "BUILD_ROWS",
    "EVAL_ROWS",
    "STATUS_REQUESTS",
    "build_inputs",
    "case_request",
    "enc_limits",
    "expected_build",
    "expected_evaluate",
    "map_inputs",
    "path_inputs",
    "preparation_inputs",
    "requests",
    "status_requests",
]

BUILD_ROWS = ("frame.regularity", "frame.angular_error_estimate")
EVAL_ROWS = ("frame.vectors",)

_POLICIES = {
    "seed_policy": ("RejectDegenerateSeed", "UseFallbackAxis"),
    "singularity_policy": ("Reject", "SplitRuns"),
    "corner_policy": ("Reject", "RotateMinimally", "SplitRuns"),
    "closed_policy": ("DistributeTwist", "PreserveHolonomy"),
}
_MAX_WINDING = 1 << 20
_WHY_BAD = "docs/decisions.md 'Frames: bad input'"
_WHY_LIMITS = "docs/decisions.md 'WorkLimits fields and ranges'"
_WHY_STATEMENT = "docs/decisions.md 'Frames and sweeps: named corpus cases state their outcome'"
_WHY_RULE = ("the spec's partition rule replayed with the oracle (spec 002 'Transported frames'; docs/decisions.md "
             "'Frames: the share-of-path rule, MIN_DEPTH and the limits')")
_WHY_BUDGET = "spec 002 'a zero work limit allows no work'; docs/decisions.md 'Frames: the share-of-path rule, " \
              "MIN_DEPTH and the limits'"
_WHY_UNBUILT = "docs/decisions.md 'Frames: how the twist is interpolated, and evaluation': unbuilt frames are " \
               "MissingCache"


# --- Encoding ------------------------------------------------------------------------------------


def enc_limits(limits: WorkLimits) -> dict:
    return {name: int(getattr(limits, name)) for name in LIMIT_RANGES}


def path_inputs(case: dict, revision: int = 1) -> dict:
    """The path source of a case, as TryPreparePath takes it (every field explicit)."""
    tol = tolerance(case["tae"], case["ms"], case["distance_error"], case["position_error"])
    src = np.asarray(case["source"], dtype=np.float64)
    return {"spans": [{"controls": enc(src[i]), "domain_width": enc(1.0)} for i in range(src.shape[0])],
            "revision": int(revision), "is_closed": bool(case["closed"]), "origin": enc(np.asarray(case["origin"])),
            "tolerance": {k: enc(float(getattr(tol, k))) for k in TOLERANCE_RANGES}, "limits": enc_limits(LIMITS)}


def map_inputs(*, built: bool = True, path_revision=None, limits: WorkLimits = LIMITS) -> dict:
    if not built:
        return {"built": False}
    out = {"limits": enc_limits(limits)}
    if path_revision is not None:
        out["path_revision"] = int(path_revision)
    return out


def preparation_inputs(case: dict, **changes) -> dict:
    prep = {"seed_up": enc(np.asarray(case["seed_up"])), "fallback_axis": enc(np.asarray(case["fallback"])),
            "seed_policy": case["seed_policy"].value, "singularity_policy": case["sing"].value,
            "corner_policy": case["corner"].value, "closed_policy": case["closed_policy"].value,
            "winding_turns": int(case["winding"]), "strict": False, "limits": enc_limits(frame_limits(case))}
    prep.update(changes)
    return prep


def build_inputs(case: dict, *, map_: dict | None = None, revision: int = 1, **changes) -> dict:
    return {"path": path_inputs(case, revision), "map": map_inputs() if map_ is None else map_,
            "preparation": preparation_inputs(case, **changes)}


# --- What the spec demands ---------------------------------------------------------------------


def _finite_vector(v) -> bool:
    """Three finite float64 values whose squared norm neither underflows to zero nor overflows."""
    if not isinstance(v, list) or len(v) != 3:
        return False
    try:
        q = [parse_number(x) for x in v]
    except ValueError:
        return False
    if not all(not isinstance(x, float) for x in q):
        return False  # a nonfinite word
    s2 = sum(x * x for x in q)
    return Fraction(2) ** -1075 < s2 < Fraction(2) ** 1024  # a float64 sum of squares neither 0 nor inf


def _bad_input(inp: dict, defect) -> None:
    """The defects docs/decisions.md 'Frames: bad input' names (every defect's status: the spec
    orders no checks)."""
    prep = inp["preparation"]
    for name, (lo, hi) in LIMIT_RANGES.items():
        v = prep["limits"].get(name)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            defect("InvalidArgument", f"limits.{name} outside [{lo}, {hi}] ({_WHY_LIMITS})")
    # kinds (:func:`_decided`): "spec" where the spec or a default names the status, "named" where
    # the spec demands the failure and our decision names it, "ours" where only our decision fails.
    for name, names in _POLICIES.items():
        if prep.get(name) not in names:
            defect("InvalidArgument", f"{name} {prep.get(name)!r} names no policy ({_WHY_BAD})", "named")
    for name in ("seed_up", "fallback_axis"):
        if not _finite_vector(prep.get(name)):
            # The spec seeds a degenerate projection by the seed policy (fallback, or DegenerateFrame).
            defect("InvalidArgument", f"{name} is not three finite values with a finite nonzero squared norm "
                                      f"({_WHY_BAD})", "ours")
    w = prep.get("winding_turns")
    if not isinstance(w, int) or isinstance(w, bool) or not -_MAX_WINDING <= w <= _MAX_WINDING:
        whole = isinstance(w, int) and not isinstance(w, bool)  # the spec sets no winding limit
        defect("InvalidArgument", f"winding_turns outside [-2^20, 2^20] ({_WHY_BAD})", "ours" if whole else "named")
    if not isinstance(prep.get("strict"), bool):
        defect("InvalidArgument", f"strict is not a bool ({_WHY_BAD})", "named")
    elif prep["strict"]:
        defect("UnsupportedPrecision", "spec 002: 'That value is Estimated, so a Strict frame preparation returns "
                                       "UnsupportedPrecision'")
    m = inp["map"]
    if not m.get("built", True):
        defect("MissingCache", f"the distance map was never built ({_WHY_BAD})")
    elif m.get("path_revision", inp["path"]["revision"]) != inp["path"]["revision"]:
        defect("StaleRevision", f"the distance map was built for another revision of the path ({_WHY_BAD})")


def _decided(e: Expect, kinds: list) -> Expect:
    """:func:`oracles.request.decided_by_kinds` resting on ``frame:request_status``."""
    return decided_by_kinds(e, kinds, REQUEST_STATUS)


def expected_build(inp: dict, statement=None) -> Expect:
    """The statuses TryBuildFrames must end in: bad input first (every defect's status), then a
    named case's statement, else the partition rule replayed (:func:`_replayed`)."""
    found, why, defect = collect_defects()
    _bad_input(inp, defect)
    if found:
        return _decided(failure(*found, why="; ".join(why)), defect.kinds)
    if statement == "ok":
        return success(f"a named case the policies admit ({_WHY_STATEMENT})")
    if statement is not None:
        return failure(statement, why=f"the policy table of spec 002 'Transported frames' ({_WHY_STATEMENT})")
    return _replayed(inp)


def _replayed(inp: dict) -> Expect:
    """TryBuildFrames on an open path without singular ranges, decided by the replayed rule: joints
    (exact tangents against ContinuityAngle), seeds of every run, and the counts the partition needs
    against the limits. Anything the replay cannot settle leaves the outcome ``either``."""
    path, prep = inp["path"], inp["preparation"]
    tol = tolerance_of(path)
    lim = prep["limits"]
    C = narrowed_controls(path)
    n = C.shape[0]
    if path["is_closed"]:
        return either("Success", "DegenerateFrame", "BudgetExceeded",
                      why="a closed loop's seam and twist are not replayed (the corpus names its closed cases)")
    rep = replay_partition(C, tol["minimum_speed"], tol["tangent_angle_error"], tol["distance_error"], lim["max_depth"])
    if not rep.settled:
        return either("Success", "DegenerateFrame", "BudgetExceeded", why=f"{rep.why[0]}: {_WHY_RULE}")
    certain, possible, why = [], [], []
    kinds = []  # "named" where a seed's DegenerateFrame is ours (both axes degenerate under UseFallbackAxis)
    starts = [0]
    policy = prep["corner_policy"]
    for j in range(1, n):
        kind = joint_kind(C, j, tol["continuity_angle"])
        if kind == "G1":
            continue
        if kind == "either":
            if policy == "Reject":
                possible.append("DegenerateFrame")
            why.append(f"joint {j} is within rounding of ContinuityAngle")
            if policy == "SplitRuns":
                starts.append(j)
            continue
        if policy == "Reject" or (kind == "reversal" and policy == "RotateMinimally"):
            certain.append("DegenerateFrame")
            why.append(f"joint {j} is {'an exact reversal' if kind == 'reversal' else 'a corner'} under "
                       f"{policy} (spec 002: 'Joint that is not G1 ... Reject: DegenerateFrame', "
                       f"'RotateMinimally: ... an exact reversal fails')")
        elif policy == "SplitRuns":
            starts.append(j)
    for k in starts:
        got, reason = seed_demand(C[k], 0.0, [dec(x) for x in prep["seed_up"]], [dec(x) for x in prep["fallback_axis"]],
                                  prep["seed_policy"], tol["minimum_sin_angle"])
        if got == "DegenerateFrame":
            certain.append(got)
            why.append(f"the run seeded at span {k}: {reason}")
            kinds.append("named" if prep["seed_policy"] == "UseFallbackAxis" else "spec")
        elif got == "either":
            possible.append("DegenerateFrame")
            why.append(f"the run seeded at span {k}: {reason}")
            kinds.append("named" if prep["seed_policy"] == "UseFallbackAxis" else "spec")
    runs = len(starts)
    over = []
    for name, (bound, sure) in (("lo", (rep.lo, True)), ("hi", (rep.hi, False))):
        samples, size = samples_and_bytes(bound, runs)
        for limit, need in (("max_subdivisions", bound["splits"]), ("max_samples", samples),
                            ("max_prepared_bytes", size)):
            if need > lim[limit]:
                over.append((sure, f"{limit}: the rule needs {need} > {lim[limit]}"))
    if rep.depth_exceeded:
        over.append((rep.depth_exceeded == "certain",
                     f"max_depth: a regular interval is not accepted at depth {lim['max_depth']}"))
    for sure, reason in over:
        (certain if sure else possible).append("BudgetExceeded")
        why.append(f"{reason} ({_WHY_BUDGET}; {_WHY_RULE})")
    if certain:
        return _decided(failure(*dict.fromkeys(certain + possible), why="; ".join(why)), kinds)
    if possible:
        return _decided(either("Success", *dict.fromkeys(possible), why="; ".join(why)), kinds)
    return success(f"valid input, no failure the policy table names, within every limit ({_WHY_RULE}: depth "
                   f"{rep.hi['depth']}, {rep.hi['splits']} splits, {samples_and_bytes(rep.hi, runs)[0]} samples)")


def expected_evaluate(held, ev: dict) -> Expect:
    """The statuses TryEvaluateFrame must end in on the frames built from ``held`` (``(build inputs,
    build expectation)``, or None when no build was asked to succeed)."""
    # Every evaluation failure but Degenerate inside a singular range is the spec's failure with our
    # status (kind "named"): a roll or u naming nothing, a point outside the domain (the spec's
    # SegmentParameter domain; evaluation takes no policy), frames that are not the path's.
    found, why, defect = collect_defects()
    roll = parse_number(ev["roll"])
    if isinstance(roll, float):
        defect("InvalidArgument", "a nonfinite roll (docs/decisions.md 'Frames: how the twist is interpolated, "
                                  "and evaluation')", "named")
    if held is None:
        return _decided(failure("MissingCache", *found, why="; ".join([_WHY_UNBUILT] + why)), ["named"])
    inp, build = held
    path = inp["path"]
    if ev.get("path_revision", path["revision"]) != path["revision"]:
        defect("StaleRevision", "frames of another revision of the path (docs/decisions.md 'Frames: how the twist "
                                "is interpolated, and evaluation')", "named")
    C = narrowed_controls(path)
    u = float(dec(ev["u"]))
    r = resolve_request(C.shape[0], ev["span"], u, ev["side"])
    if r[0] != "ok":
        defect(r[0], r[1], "named")
    extra = () if build.kind == "success" else ("MissingCache",)  # the build itself may fail
    if found:
        return _decided(failure(*found, *[s for s in extra if s not in found], why="; ".join(why)), defect.kinds)
    _, k, uu = r
    tol = tolerance_of(path)
    kind, reason = evaluation_demand(C[k], tol["minimum_speed"], inp["preparation"]["limits"]["max_depth"], uu)
    unbuilt = ["named"] if extra else []  # MissingCache where the build may fail: our status
    if kind == "failure":
        return _decided(failure("Degenerate", *extra, why=reason), unbuilt)
    if kind == "success" and not extra:
        return success(reason)
    return _decided(either("Success", *dict.fromkeys(("Degenerate" if kind != "success" else "MissingCache", *extra)),
                           why=reason), unbuilt)


# --- Requests ----------------------------------------------------------------------------------


def _build_step(inp: dict, statement=None, expect: Expect = None) -> Step:
    expect = expect or expected_build(inp, statement)
    return Step("TryBuildFrames", inp, expect, BUILD_ROWS if expect.allows("Success") else ())


def _eval_step(held, k: int, u: float, side: str = "Outgoing", roll: float = 0.0, **extra) -> Step:
    ev = {"span": int(k), "u": enc(float(u)) if isinstance(u, float) else u,
          "roll": enc(float(roll)) if isinstance(roll, float) else roll, "side": side, **extra}
    expect = expected_evaluate(held, ev)
    return Step("TryEvaluateFrame", ev, expect, EVAL_ROWS if expect.allows("Success") else ())


def _queries(case: dict) -> list:
    """``(span, u, side, roll)`` of a case's evaluations (chosen from the case alone)."""
    n = case["source"].shape[0]
    rng = np.random.default_rng([case["query_seed"], 5])
    # the ends and every joint named from both of its spans with both sides: a side names the
    # other span's end in half of them (spec 002 Span sides), so a SpanSide ignored, or always
    # applied, evaluates a frame of another point than the call's (rule frame:evaluated_point)
    out = [(0, 0.0, "Outgoing", 0.0), (0, 0.0, "Incoming", 0.0), (n - 1, 1.0, "Outgoing", 0.0)]
    for k in range(1, n):
        out += [(k, 0.0, "Outgoing", 0.25), (k - 1, 1.0, "Incoming", -0.5),
                (k, 0.0, "Incoming", 0.125), (k - 1, 1.0, "Outgoing", -0.125)]
    for _ in range(case["queries"]):
        out.append((int(rng.integers(0, n)), float(rng.random()), "Outgoing", float(rng.uniform(-4, 4))))
    w = 2.0 ** -case["max_depth"]
    for k, c in case["singular"]:
        near = [c, c - w / 2, c + w / 2, math.floor(c / w) * w, math.floor(c / w) * w + w]
        for u in dict.fromkeys(near):
            if 0.0 <= u <= 1.0:
                out.append((k, u, "Outgoing", 0.5))
    return out


def case_request(rid: str, case: dict) -> Request:
    """A corpus case as a request: the build, then its evaluations (none when the build must fail)."""
    inp = build_inputs(case)
    build = _build_step(inp, case.get("expect"))
    steps = [build]
    if build.expect.allows("Success"):
        held = (inp, build.expect)
        steps += [_eval_step(held, k, u, side, roll) for k, u, side, roll in _queries(case)]
    return Request(rid, "frame", case.get("name", ""), tuple(steps))


def _quarter_helix(tae: float, **kw) -> dict:
    return _case("quarter helix", [quarter((0, 0, 0), 1.0, 0.0, dz=0.4)], tae=tae, distance_error=1e-8, **kw)


_S_CURVE = [[[0, 0, 0], [1, 1, 0], [2, -1, 0], [3, 0, 0]], [[3, 0, 0], [4, 1, 0], [5, 1.5, 0], [6, 0.5, 0]]]
_CUSP = [[[-1, 0, 0], [1, 1, 0.5], [-1, 1, 0.5], [1, 0, 0]]]


def _reversal_path(d) -> list:
    d = np.asarray(d, dtype=np.float64)
    return [[0 * d, 1 * d, 2 * d, 3 * d], [3 * d, 2 * d, 1 * d, 0 * d]]


def _needs(case: dict) -> dict:
    """What the spec's rule needs of a case (the replay settled exactly: no decision in its band).
    The cases used are one span, or spans joined G1 (one run: the bytes count one run)."""
    inp = build_inputs(case)
    tol = tolerance_of(inp["path"])
    rep = replay_partition(narrowed_controls(inp["path"]), tol["minimum_speed"], tol["tangent_angle_error"],
                           tol["distance_error"], 52)
    if not rep.settled or rep.lo != rep.hi or rep.depth_exceeded:
        raise ValueError(f"{case['name']}: the replayed rule does not settle the counts ({rep.why})")
    samples, size = samples_and_bytes(rep.hi, 1)
    return {"max_depth": rep.hi["depth"], "max_subdivisions": rep.hi["splits"], "max_samples": samples,
            "max_prepared_bytes": size}


def status_requests() -> list:
    """Named status contracts: every status the spec and our decisions name for TryBuildFrames and
    TryEvaluateFrame, each limit at equality and one past, and failed rebuilds."""
    out = []
    helix = _quarter_helix(1e-7)
    s_curve = _case("planar S-curve", _S_CURVE, tae=1e-8, distance_error=1e-7)
    mid = (0, 0.375, "Outgoing", 0.25)

    def limits_with(case, **changes):
        return enc_limits(dataclasses.replace(frame_limits(case), **changes))

    def single(name, case, *evals, statement=None, rules=(), **changes):
        inp = build_inputs(case, **changes)
        b = _build_step(inp, statement)
        held = (inp, b.expect) if b.expect.allows("Success") else None
        steps = [b] + [_eval_step(held, *e[:4], **(e[4] if len(e) > 4 else {})) for e in evals]
        out.append((name, tuple(steps), tuple(rules)))

    # Limits at equality and one past: the counts the replayed rule needs, exactly.
    need = _needs(helix)
    for limit in ("max_depth", "max_subdivisions", "max_samples"):
        v = need[limit]
        single(f"{limit} met with equality (quarter helix, the rule needs {v})", helix, mid,
               limits=limits_with(helix, **{limit: v}))
        single(f"{limit} exceeded by one (quarter helix, the rule needs {v}, the limit is {v - 1})", helix,
               limits=limits_with(helix, **{limit: v - 1}))
    need = _needs(s_curve)
    v = need["max_prepared_bytes"]
    single(f"max_prepared_bytes met with equality (planar S-curve: two spans, one run, {v} bytes)", s_curve, mid,
           limits=limits_with(s_curve, max_prepared_bytes=v))
    single(f"max_prepared_bytes exceeded by one (planar S-curve, {v} bytes, the limit is {v - 1})", s_curve,
           limits=limits_with(s_curve, max_prepared_bytes=v - 1))
    single("zero max_samples allows no work", helix, limits=limits_with(helix, max_samples=0))
    # Bad input (docs/decisions.md 'Frames: bad input').
    single("limits out of range (max_depth = 53)", helix, limits=limits_with(helix, max_depth=53))
    single("negative limit (max_samples = -1)", helix, limits=limits_with(helix, max_samples=-1))
    single("unknown singularity policy", helix, singularity_policy="Sometimes")
    single("unknown corner policy", helix, corner_policy="Twice")
    single("seed_up all zero", helix, seed_up=[enc(0.0)] * 3)
    single("seed_up not finite", helix, seed_up=["nan", enc(0.0), enc(1.0)])
    single("seed_up whose squared norm overflows", helix, seed_up=[enc(1e200), enc(0.0), enc(0.0)])
    single("fallback_axis all zero", helix, fallback_axis=[enc(0.0)] * 3)
    single("winding_turns beyond 2^20", helix, winding_turns=_MAX_WINDING + 1)
    single("strict not a bool", helix, strict="yes")
    single("Strict frame preparation", helix, strict=True)
    inp = build_inputs(helix, map_=map_inputs(built=False))
    out.append(("distance map never built", (_build_step(inp),), ()))
    inp = build_inputs(helix, map_=map_inputs(path_revision=2))
    out.append(("distance map of another revision", (_build_step(inp),), ()))
    # The policy table.
    for d, what in (((1.0, 0.0, 0.0), "axis-aligned"), ((0.3, 0.7, -1.1), "oblique")):
        single(f"RotateMinimally at an exact reversal ({what})",
               _case("reversal joint", _reversal_path(d), corner=_CORNER.RotateMinimally))
    bent = [[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
            [[3, 0, 0], [3 - math.cos(0.01), math.sin(0.01), 0], [3 - 2 * math.cos(0.01), 2 * math.sin(0.01), 0],
             [3 - 3 * math.cos(0.01), 3 * math.sin(0.01), 0]]]
    single("RotateMinimally at a joint turning by pi - 0.01 (no exact reversal)",
           _case("near reversal", bent, corner=_CORNER.RotateMinimally), (1, 0.0, "Outgoing", 0.0),
           (0, 1.0, "Incoming", 0.0))
    t0 = np.array([0.0, 3 * 0.5522847498307936, 0.4])
    single("UseFallbackAxis with SeedUp and FallbackAxis along the first tangent",
           _quarter_helix(1e-6, seed_up=tuple(2.0 * t0), fallback=tuple(-t0), seed_policy=_SEED.UseFallbackAxis))
    single("RejectDegenerateSeed with SeedUp along the first tangent",
           _quarter_helix(1e-6, seed_up=tuple(t0), seed_policy=_SEED.RejectDegenerateSeed))
    single("singularity Reject at an interior cusp", _case("interior cusp", _CUSP, sing=_SING.Reject))
    # TryEvaluateFrame: Degenerate at the cusp whatever MaxDepth is; bad requests.
    for depth in (4, 12):
        c = _case("interior cusp", _CUSP, singular=[(0, 0.5)], max_depth=depth)
        single(f"evaluation at an interior cusp, max_depth {depth}", c, (0, 0.5, "Outgoing", 0.0),
               (0, 0.5, "Incoming", 1.0), (0, 0.25, "Outgoing", 0.0))
    single("nonfinite roll", helix, (0, 0.5, "Outgoing", "nan"), (0, 0.5, "Outgoing", "inf"))
    single("nonfinite u", helix, (0, "nan", "Outgoing", 0.0))
    single("u outside the domain (Reject)", helix, (0, 1.5, "Outgoing", 0.0), (0, -0.25, "Outgoing", 0.0))
    single("evaluation with a path of another revision", helix, (0, 0.5, "Outgoing", 0.0, {"path_revision": 2}))
    single("evaluation without frames (the build failed)", helix, (0, 0.5, "Outgoing", 0.0), strict=True)
    # Failed rebuilds keep the previous frames (spec 002 Contracts).
    keep = "spec 002 Contracts: 'a failed rebuild keeps the previous snapshot'"
    for what, bad in (("Strict", build_inputs(helix, strict=True)),
                      ("max_samples exceeded by one", build_inputs(helix, limits=limits_with(
                          helix, max_samples=_needs(helix)["max_samples"] - 1))),
                      ("a cusp under singularity Reject", build_inputs(_case("cusp", _CUSP, sing=_SING.Reject)))):
        inp = build_inputs(helix)
        b = _build_step(inp)
        held = (inp, b.expect)
        q = _eval_step(held, *mid)
        steps = (b, q, _build_step(bad, "DegenerateFrame" if "cusp" in what else None), _eval_step(held, *mid))
        out.append((f"failed rebuild ({what}) keeps the previous frames", steps,
                    (Rule("same_output", 0, 2, keep), Rule("same_output", 1, 3, keep))))
    return out


STATUS_REQUESTS = 38


@lru_cache(maxsize=2)
def _kept(seed: int, n: int) -> tuple:
    """The corpus's cases and status contracts, kept for the next range of the same corpus."""
    return corpus_cases(seed, n), status_requests()


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list:
    """``n`` frame requests: the named corpus cases, the status contracts, then random chains.
    Deterministic in ``seed``; ids ``frame/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    cases, named = _kept(seed, n) if hi - lo < n else (corpus_cases(seed, n), status_requests() if n > NAMED else [])
    named = named if n > NAMED else []
    return interleaved("frame", lo, hi, NAMED, named, lambda rid, k, s: case_request(rid, cases[k - s]))
