"""Surface requests: the corpus as requests, each step with the status the spec demands of it.

A case is a scenario: ``TryPrepareSurface`` of its network, then, when it must prepare, for up
to three patches (picked by a generator seeded with the narrowed controls) a
``TryEvaluateSurface`` (all partials) and a ``TryEvaluateSurfaceNormal`` at (0, 0), (1, 1),
(1/2, 1/2), (0, 1/2), (1/2, 1) and one random point, then ``TryMapEdgeParameter`` at s = 0, 1,
1/4, 1/3, 0.7 and 2^-60 on up to four shared edges and one boundary edge. The first
``corpus.NAMED`` (21) requests are the named networks of ``corpus.py``; then come the status
contracts (:func:`status_requests`, 36 requests, so ``--cases 57`` reaches the last of them):
every status the spec and our decisions name for each op, max_spans and max_prepared_bytes met
with equality (must succeed) and exceeded by one (must fail), the position floor met and missed
by one float64 step, and failed rebuilds that must keep the previous surface. The rest are
random grids.

Expected statuses are decided here from the spec's text and ``docs/decisions.md`` ("Surfaces:
..."), on the exact inputs, never by running the fast path: the narrowing and the position floor
by the exact replay of ``interval.narrowing``, the topology by ``interval.surface.exact_topology``
(the oracle of ``surface.shared_edges``), the normal decision on exact partials with the rounding
band of "Surfaces: decision bands" (``checks_evaluation.exact_normal``, ``decision_in_band``).

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryPrepareSurface``: ``patches`` ``[{"id": integer (u64), "control": 4 x 4 x 3 f64}, ...]``,
  ``adjacency`` ``[{"first_patch", "first_side", "second_patch", "second_side", "is_reversed"},
  ...]`` (patch indices, sides ``U0``/``U1``/``V0``/``V1``), ``revision`` (integer), ``origin``
  (3 f64, the chunk origin), ``tolerance`` (every ``ToleranceProfile`` field, f64) and
  ``limits`` (every ``WorkLimits`` field, integers: ``max_spans`` bounds the patch count,
  ``max_prepared_bytes`` the prepared size); output: the surface the owner holds after the
  step, ``{"controls": n x 4 x 4 x 3 f32, "patch_ids", "origin", "revision", "position_floor",
  "edges", "corners"}`` (the records as ``surface.shared_edges`` and ``surface.corners`` claim
  them; ``{"controls": []}`` while empty).
* ``TryEvaluateSurface``: ``patch`` (integer, the source index), ``u``, ``v`` (f64) and
  ``partials`` (boolean), on the surface the owner holds; output: ``{"position", "du", "dv",
  "duu", "duv", "dvv"}`` (chunk-relative; ``{"position"}`` without partials), or ``{"status"}``.
* ``TryEvaluateSurfaceNormal``: ``patch``, ``u``, ``v``, on the surface the owner holds (its
  NormalMinDerivativeLength and NormalMinSinAngle); output: ``{"normal"}`` or ``{"status"}``.
* ``TryMapEdgeParameter``: ``edge`` (``[patch_id, side]``, a ``SurfaceEdgeId``) and ``s`` (f64),
  on the surface the owner holds; output: ``{"mapped": [[patch, patch_id, side, u, v], ...]}``
  (owner first) or ``{"status"}``.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache

import numpy as np

from interval.context import lower, to_mpq
from interval.narrowing import replay_narrowing, replay_position_floor, round_nearest_f64
from interval.surface import SIDE_NAMES, TopologyFailure, exact_topology
from reference.status import LIMIT_RANGES, TOLERANCE_RANGES, ToleranceProfile, WorkLimits
from reference.surface import decision_errors

from ...model import dec, enc, number_as, parse_number
from ...model import is_integer as _is_int, is_finite_number as _finite
from ...request import (
    Expect, Request, Rule, Step, collect_defects, decided, decided_by_kinds, either, failure, interleaved, success,
)
from ..path.requests import range_defects
from .checks import EDGE_PARAMETER_STATUS, POINT_STATUS, SOURCE_STATUS
from . import corpus as SC
from .checks_evaluation import decision_in_band, exact_normal

__all__ = [
    "PATCH_BYTES",
    "STATUS_REQUESTS",
    "Prepared",
    "case_request",
    "enc_limits",
    "enc_tolerance",
    "expected_evaluate",
    "expected_map",
    "expected_normal",
    "expected_prepare",
    "normal_statuses",
    "prepare_inputs",
    "request_at",
    "requests",
    "status_requests",
]

# Bytes a prepared surface holds per patch: docs/decisions.md "Surfaces: sources, limits and the
# order of checks" (an a-priori bound; tests compare it with reference.surface.prepared_bytes).
PATCH_BYTES = 984
MAX_PATCH_ID = 2**64 - 1  # "a unique author Id": a u64 (docs/decisions.md)

_PREPARE_ROWS = ("surface.shared_edges", "surface.corners")
_POINTS = ((0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (0.0, 0.5), (0.5, 1.0))
# Edge parameters asked of TryMapEdgeParameter: the ends, dyadic and non-dyadic values, and values
# whose 1 - s is inexact in float64 (1/3) or rounds to 1 (2^-60).
_EDGE_S = (0.0, 1.0, 0.25, 1.0 / 3.0, 0.7, 2.0**-60)

_WHY_TOL = "docs/decisions.md 'ADR 0024 ranges of ToleranceProfile' (spec 002: 'Every tolerance field is validated')"
_WHY_LIMITS = "docs/decisions.md 'WorkLimits fields and ranges'"
_WHY_SOURCE = "docs/decisions.md 'Surfaces: sources, limits and the order of checks'"
_WHY_BUDGET = ("spec 002 'a zero work limit allows no work'; docs/decisions.md 'Surfaces: sources, limits and the "
               "order of checks' (max_spans bounds the patches, 984 prepared bytes a patch)")
_WHY_FLOOR = ("spec 002 Surfaces: 'TryPrepareSurface narrows controls as TryPreparePath does'; Precision: "
              "'Otherwise preparation returns UnsupportedPrecision' (exact replay, interval.narrowing)")
_WHY_TOPOLOGY = ("spec 002 Surfaces: 'A mismatched curve, a partial join, a third incidence on a side, a side joined "
                 "to itself, an unknown patch index or a duplicate patch ID is InvalidTopology' (exact replay, "
                 "interval.surface)")
_WHY_POINT = "docs/decisions.md 'Surfaces: edge parameters, evaluation and normals'"
_WHY_NORMAL = ("spec 002 Surfaces: 'It returns Degenerate for zero or parallel partials and IllConditioned at or below "
               "the thresholds'")
_WHY_BAND = "docs/decisions.md 'Surfaces: decision bands'"
_WHY_KEEP = "spec 002 Contracts: 'a failed rebuild keeps the previous snapshot'"
_U64, _ETA64 = 2.0**-53, 2.0**-1074


# --- Inputs ------------------------------------------------------------------------------------


def enc_limits(limits: WorkLimits) -> dict:
    return {name: int(getattr(limits, name)) for name in LIMIT_RANGES}


def enc_tolerance(tol: ToleranceProfile) -> dict:
    return {name: enc(float(getattr(tol, name))) for name in TOLERANCE_RANGES}


def case_tolerance(case: dict) -> ToleranceProfile:
    t = case["tol"]
    return SC.tolerance(t["position_error"], derivative=t["derivative"], dmin=t["dmin"], smin=t["smin"])


def prepare_inputs(case: dict, limits: WorkLimits = SC.LIMITS, revision: int = 1) -> dict:
    """TryPrepareSurface's inputs for a corpus case (every tolerance and limit field explicit)."""
    src = np.asarray(case["source"], dtype=np.float64)
    return {"patches": [{"id": int(pid), "control": enc(c)} for pid, c in zip(case["ids"], src)],
            "adjacency": [{"first_patch": int(p), "first_side": s, "second_patch": int(q), "second_side": t,
                           "is_reversed": bool(r)} for p, s, q, t, r in case["joins"]],
            "revision": revision, "origin": enc(np.asarray(case["origin"], dtype=np.float64)),
            "tolerance": enc_tolerance(case_tolerance(case)), "limits": enc_limits(limits)}


# --- What the spec demands: TryPrepareSurface --------------------------------------------------




def _finite_array(raw, shape) -> np.ndarray | None:
    """The float64 array of ``raw`` when it is ``shape`` of finite float64 numbers (exactly: the
    spec's sources are float64), else None."""
    try:
        obj = np.array(raw, dtype=object)
        if obj.shape != shape:
            return None
        return np.array([number_as(x, "f64", finite=True) for x in obj.ravel()], dtype=np.float64).reshape(shape)
    except (ValueError, TypeError):  # NumberError is a ValueError
        return None


@dataclass(frozen=True)
class Prepared:
    """What a successful TryPrepareSurface holds, replayed exactly: the float32 controls, ids,
    the exact topology and the thresholds the surface's queries use."""

    narrowed: np.ndarray
    ids: tuple
    topo: object
    dmin: float
    smin: float
    floor: float


def expected_prepare(inp: dict) -> tuple[Expect, Prepared | None]:
    """``(Expect, Prepared or None)``: the statuses TryPrepareSurface must end in for these
    (encoded) inputs (every defect's status: the spec orders no checks), and on success the
    surface it must hold."""
    found, why, defect = collect_defects()  # defect(status, reason, kind="spec")
    kinds = defect.kinds

    tol, limits = range_defects(inp, defect)
    if not _is_int(inp.get("revision")) or inp["revision"] < 0:
        defect("InvalidArgument", f"a negative or non-integer revision ({_WHY_SOURCE})", "named")
    origin = _finite_array(inp.get("origin"), (3,))
    if origin is None:
        # A nonfinite origin leaves no finite narrowed control, so the spec's floor test fails.
        defect("InvalidArgument", f"a nonfinite origin ({_WHY_SOURCE})", "named")
    patches, joins = inp.get("patches", []), inp.get("adjacency", [])
    n = len(patches)
    if n == 0:
        defect("InvalidArgument", f"no patches ({_WHY_SOURCE})", "ours")  # the spec does not say it fails
    if _is_int(limits.get("max_spans")) and n > limits["max_spans"]:
        defect("BudgetExceeded", f"{n} patches > max_spans ({_WHY_BUDGET})")
    if _is_int(limits.get("max_prepared_bytes")) and n * PATCH_BYTES > limits["max_prepared_bytes"]:
        defect("BudgetExceeded", f"{n} x {PATCH_BYTES} prepared bytes > max_prepared_bytes ({_WHY_BUDGET})")
    ids, src = [], []
    for i, p in enumerate(patches):
        pid = p.get("id")
        if not _is_int(pid) or not 0 <= pid <= MAX_PATCH_ID:
            defect("InvalidArgument", f"patch {i}: id {pid!r} is not a u64 ({_WHY_SOURCE})", "named")
        ids.append(pid)
        c = _finite_array(p.get("control"), (4, 4, 3))
        if c is None:
            defect("InvalidArgument", f"patch {i}: control not a finite 4 x 4 x 3 float64 array ({_WHY_SOURCE})",
                   "named")
        src.append(c)
    parsed = []
    for j, a in enumerate(joins):
        fp, sp = a.get("first_patch"), a.get("second_patch")
        fs, ss, rev = a.get("first_side"), a.get("second_side"), a.get("is_reversed")
        if not (_is_int(fp) and _is_int(sp)):
            defect("InvalidArgument", f"join {j}: a patch index that is not an integer ({_WHY_SOURCE})", "named")
        if fs not in SIDE_NAMES or ss not in SIDE_NAMES:
            defect("InvalidArgument", f"join {j}: a side that is not U0, U1, V0 or V1 ({_WHY_SOURCE})", "named")
        if not isinstance(rev, bool):
            defect("InvalidArgument", f"join {j}: is_reversed not a boolean ({_WHY_SOURCE})", "named")
        parsed.append((fp, fs, sp, ss, rev))
    held = None
    if n and origin is not None and all(c is not None for c in src):
        source = np.stack(src)
        narrowed = replay_narrowing(source, origin)
        if not np.all(np.isfinite(narrowed)):
            defect("UnsupportedPrecision", f"chunk-relative controls beyond the float32 range ({_WHY_SOURCE})")
        else:
            floor, _ = replay_position_floor(source, origin)
            pe, rel, scale = (tol.get(k) for k in ("position_error", "relative_position_error", "asset_scale"))
            if all(_finite(x) for x in (pe, rel, scale)):
                effective = max(parse_number(pe), Fraction(round_nearest_f64(parse_number(rel) * parse_number(scale))))
                if effective < Fraction(floor):
                    defect("UnsupportedPrecision", f"effective position error {float(effective)!r} < floor "
                                                   f"{floor!r} ({_WHY_FLOOR})")
            if all(_is_int(fp) and _is_int(sp) and fs in SIDE_NAMES and ss in SIDE_NAMES and isinstance(rev, bool)
                   for fp, fs, sp, ss, rev in parsed) and all(_is_int(x) for x in ids):
                topo = exact_topology(ids, narrowed, parsed)
                if isinstance(topo, TopologyFailure):
                    defect("InvalidTopology", f"{topo.rule} at {topo.index} ({_WHY_TOPOLOGY})")
                elif not found:
                    held = Prepared(narrowed, tuple(ids), topo, dec(tol["normal_min_derivative_length"]),
                                    dec(tol["normal_min_sin_angle"]), floor)
    if found:
        return decided_by_kinds(failure(*found, why="; ".join(why)), kinds, SOURCE_STATUS), None
    return success("a valid source within every limit (spec 002 Surfaces, Precision)"), held




# --- What the spec demands: queries on the held surface ----------------------------------------


def _point_defects(held: Prepared, inp: dict, defect) -> None:
    p = inp.get("patch")
    if not _is_int(p) or not 0 <= p < held.narrowed.shape[0]:
        defect("InvalidArgument", f"patch index {p!r} outside [0, {held.narrowed.shape[0]}) ({_WHY_POINT})")
    for name in ("u", "v"):
        try:
            x = parse_number(inp.get(name))
        except (ValueError, TypeError):
            defect("InvalidArgument", f"{name} is not a number ({_WHY_POINT})")
            continue
        if isinstance(x, float) and math.isnan(x):
            defect("InvalidArgument", f"{name} is NaN ({_WHY_POINT})")
        elif not 0 <= x <= 1:
            defect("InvalidDomain", f"{name} outside [0, 1] ({_WHY_POINT})")


def expected_evaluate(held: Prepared, inp: dict) -> Expect:
    """TryEvaluateSurface on the held surface: InvalidArgument for a bad patch index or a NaN
    parameter, InvalidDomain for a parameter outside [0, 1], else success."""
    found, why, defect = collect_defects()
    _point_defects(held, inp, defect)
    if found:  # no point of the surface: the spec's failure, our status
        return decided(failure(*found, why="; ".join(why)), POINT_STATUS)
    return success(f"a patch of the surface and (u, v) in [0, 1]^2 ({_WHY_POINT})")


def _degenerate_success_possible(t, eL, eN) -> bool:
    """Whether computed values within their error bounds of an exactly degenerate point could
    pass every test: a zero length computed above NormalMinDerivativeLength, or a zero cross
    product computed with a sine above NormalMinSinAngle."""
    if t.qu == 0 or t.qv == 0:
        return eL > t.dmin
    lu, lv = lower(t.Lu) - eL, lower(t.Lv) - eL
    if lu <= 0 or lv <= 0:
        return True
    return eN / (lu * lv) * (1 + to_mpq(4 * _U64)) > t.smin


def normal_statuses(C, u: float, v: float, dmin: float, smin: float) -> tuple[str, list]:
    """``(exact, allowed)``: the exact normal decision on the float32 patch ``C`` at ``(u, v)``
    (``checks_evaluation.exact_normal``) and every decision a computation within the binary64
    reference model may reach (docs/decisions.md "Surfaces: decision bands"), the exact one
    first. At an exactly degenerate point a computed value within its error of zero may be
    nonzero: Degenerate or IllConditioned, and Success only where the errors could lift it above
    both thresholds."""
    t = exact_normal(C, u, v, dmin, smin)
    eL, eN = (to_mpq(x) for x in decision_errors(t.E, _U64, _ETA64))
    if t.exact == "Degenerate":
        allowed = ["Degenerate", "IllConditioned"]
        if _degenerate_success_possible(t, eL, eN):
            allowed.append("Success")
        return t.exact, allowed
    allowed = [t.exact]
    for other in ("Success", "IllConditioned", "Degenerate"):
        if other != t.exact and decision_in_band(t, other, eL, eN, _U64) is not False:
            allowed.append(other)
    return t.exact, allowed


def expected_normal(held: Prepared, inp: dict) -> Expect:
    """TryEvaluateSurfaceNormal on the held surface: the argument statuses as for
    TryEvaluateSurface; then the exact decision and every other decision within its rounding
    band (:func:`normal_statuses`)."""
    found, why, defect = collect_defects()
    _point_defects(held, inp, defect)
    if found:  # no point of the surface: the spec's failure, our status
        return decided(failure(*found, why="; ".join(why)), POINT_STATUS)
    p, u, v = inp["patch"], dec(inp["u"]), dec(inp["v"])
    exact, allowed = normal_statuses(held.narrowed[p], u, v, held.dmin, held.smin)
    if allowed == ["Success"]:
        return success(f"exact partials regular and clear of both thresholds beyond their rounding band "
                       f"({_WHY_NORMAL}; {_WHY_BAND})")
    if "Success" not in allowed:
        return failure(*allowed, why=f"exact decision {exact} ({_WHY_NORMAL}; {_WHY_BAND}"
                                     + ("; a zero computed as nonzero is at or below the thresholds)"
                                        if exact == "Degenerate" else ")"))
    return either(*allowed, why=f"exact decision {exact}, but the exact value lies within the rounding error bound "
                                f"of a threshold, where the computed decision may differ ({_WHY_BAND})")


def expected_map(held: Prepared, inp: dict) -> Expect:
    """TryMapEdgeParameter on the held surface: InvalidArgument for an edge id the surface does
    not have or a NaN s, InvalidDomain for s outside [0, 1], else success."""
    found, why, defect = collect_defects()
    edge = inp.get("edge")
    ids = {(e["id"][0], e["id"][1]) for e in held.topo.edges}
    if not (isinstance(edge, list) and len(edge) == 2 and tuple(edge) in ids):
        defect("InvalidArgument", f"{edge!r} is not an edge of the surface ({_WHY_POINT})")
    try:
        s = parse_number(inp.get("s"))
    except (ValueError, TypeError):
        s = math.nan
    if isinstance(s, float) and math.isnan(s):
        defect("InvalidArgument", f"s is NaN or not a number ({_WHY_POINT})")
    elif not 0 <= s <= 1:
        defect("InvalidDomain", f"s outside [0, 1] ({_WHY_POINT})")
    if found:  # no edge point: the spec's failure, our status
        return decided(failure(*found, why="; ".join(why)), EDGE_PARAMETER_STATUS)
    return success(f"an edge of the surface and s in [0, 1] ({_WHY_POINT})")


# --- Steps ---------------------------------------------------------------------------------------


def _prepare_step(inp: dict) -> tuple[Step, Prepared | None]:
    e, held = expected_prepare(inp)
    rows = ()
    if e.kind == "success":
        rows = _PREPARE_ROWS + (("surface.evaluation",) if any(len(x["incidences"]) == 2 for x in held.topo.edges)
                                else ())
    return Step("TryPrepareSurface", inp, e, rows), held


def _point_inputs(p, u, v) -> dict:
    return {"patch": p, "u": u if isinstance(u, str) else enc(float(u)),
            "v": v if isinstance(v, str) else enc(float(v))}


def _valid_point(e: Expect) -> bool:
    return not (e.kind == "failure" and set(e.statuses) & {"InvalidArgument", "InvalidDomain"})


def _evaluate_steps(held: Prepared, p, u, v) -> list:
    inp = _point_inputs(p, u, v)
    e = expected_evaluate(held, inp)
    rows = ("surface.evaluation",) if e.kind == "success" else ()
    n = expected_normal(held, inp)
    return [Step("TryEvaluateSurface", {**inp, "partials": True}, e, rows),
            Step("TryEvaluateSurfaceNormal", inp, n, ("surface.evaluation",) if _valid_point(n) else ())]


def _map_step(held: Prepared, edge, s) -> Step:
    inp = {"edge": list(edge), "s": s if isinstance(s, str) else enc(float(s))}
    e = expected_map(held, inp)
    return Step("TryMapEdgeParameter", inp, e, ("surface.shared_edges",) if e.kind == "success" else ())


def _queries(held: Prepared, near_threshold: bool = False) -> list:
    """The evaluation and edge-parameter steps of a prepared network (picks seeded by its
    narrowed controls)."""
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(held.narrowed).tobytes()))
    n = held.narrowed.shape[0]
    picks = sorted(set(int(x) for x in rng.choice(n, size=min(n, 3), replace=False)))
    steps = []
    for p in picks:
        pts = list(_POINTS) + [(float(rng.random()), float(rng.random()))]
        if near_threshold and p == 0:
            pts = [(0.5, 0.5)] + pts
        for u, v in pts:
            steps += _evaluate_steps(held, p, u, v)
    shared = [e for e in held.topo.edges if len(e["incidences"]) == 2]
    boundary = [e for e in held.topo.edges if len(e["incidences"]) == 1]
    pick = [shared[int(k)] for k in sorted(set(rng.choice(len(shared), size=min(len(shared), 4), replace=False)))] \
        if shared else []
    pick += boundary[:1]
    for e in pick:
        for s in _EDGE_S:
            steps.append(_map_step(held, e["id"], s))
    return steps


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``corpus.py``) as a request."""
    prep, held = _prepare_step(prepare_inputs(case))
    steps = [prep]
    if held is not None:
        steps += _queries(held, case["name"].startswith("near-threshold"))
    return Request(rid, "surface", case.get("name", ""), tuple(steps))


# --- Status contracts ---------------------------------------------------------------------------


def _net(name: str) -> dict:
    """A small network: ``two`` (the spec's reversed join, ids 10 and 20) or ``three`` (a planar
    3 x 1 grid, ids 1 to 3)."""
    rng = np.random.default_rng(0)
    if name == "two":
        return SC._spec_two_patch(rng)
    G = SC._curved_grid(rng, 3, 1, np.zeros(3), 1.0, planar=True)
    return SC._case("three planar patches", SC._grid_patches(G), ids=[1, 2, 3], rng=rng)


def _inputs(case: dict, *, limits: WorkLimits = SC.LIMITS, revision: int = 1, tol: dict | None = None,
            **raw) -> dict:
    case = dict(case)
    if tol:
        case["tol"] = {**case["tol"], **tol}
    inp = prepare_inputs(case, limits, revision)
    for k, v in raw.items():  # raw JSON edits: a field as a malformed request would hold it
        if k.startswith("tolerance."):
            inp["tolerance"][k.split(".", 1)[1]] = v
        elif k.startswith("limits."):
            inp["limits"][k.split(".", 1)[1]] = v
        elif k.startswith("patch."):
            i, f = k.split(".")[1:]
            inp["patches"][int(i)] = {**inp["patches"][int(i)], f: v}
        elif k.startswith("join."):
            i, f = k.split(".")[1:]
            inp["adjacency"][int(i)] = {**inp["adjacency"][int(i)], f: v}
        else:
            inp[k] = v
    return inp


def _limits(**changes) -> WorkLimits:
    return replace(SC.LIMITS, **changes)


@cache
def status_requests() -> tuple:
    """Named status contracts ``(name, steps, rules)``: every status the spec and our decisions
    name for TryPrepareSurface, TryEvaluateSurface, TryEvaluateSurfaceNormal and
    TryMapEdgeParameter; max_spans and max_prepared_bytes at equality and one past; the floor
    met and missed; failed rebuilds that must keep the previous surface."""
    out = []
    two, three = _net("two"), _net("three")

    def single(name, inp, *queries, maps=()):
        prep, held = _prepare_step(inp)
        steps = [prep]
        if held is not None:
            for p, u, v in queries:
                steps += _evaluate_steps(held, p, u, v)
            steps += [_map_step(held, e, s) for e, s in maps]
        out.append((name, tuple(steps), ()))

    mid = (0, 0.5, 0.5)
    # --- Limits (spec 002 "a zero work limit allows no work"; decisions: sources and limits).
    single("max_spans met with equality (2 patches, max_spans = 2)", _inputs(two, limits=_limits(max_spans=2)), mid,
           maps=(((10, "U1"), 0.25),))
    single("max_spans exceeded by one (3 patches, max_spans = 2)", _inputs(three, limits=_limits(max_spans=2)))
    single("zero max_spans allows no work", _inputs(two, limits=_limits(max_spans=0)))
    single(f"max_prepared_bytes met with equality (2 patches: {2 * PATCH_BYTES} bytes)",
           _inputs(two, limits=_limits(max_prepared_bytes=2 * PATCH_BYTES)), mid)
    single(f"max_prepared_bytes exceeded by one (2 patches: {2 * PATCH_BYTES} bytes, limit {2 * PATCH_BYTES - 1})",
           _inputs(two, limits=_limits(max_prepared_bytes=2 * PATCH_BYTES - 1)))
    single("WorkLimits out of range (max_depth = 53)", _inputs(two, **{"limits.max_depth": 53}))
    single("WorkLimits not an integer (max_spans = 2.0)", _inputs(two, **{"limits.max_spans": "0x1p+1"}))
    single("ToleranceProfile out of range (normal_min_sin_angle = 2)", _inputs(two, **{"tolerance.normal_min_sin_angle":
                                                                                       enc(2.0)}))
    single("nonfinite tolerance (normal_min_derivative_length = NaN)",
           _inputs(two, **{"tolerance.normal_min_derivative_length": "nan"}))
    # --- Sources (decisions: sources, limits and the order of checks).
    single("no patches", {**_inputs(two), "patches": [], "adjacency": []})
    single("nonfinite control (NaN)", _inputs(two, **{"patch.1.control": _with(two["source"][1], (2, 1, 0), "nan")}))
    single("patch id above the u64 range (2^64)", _inputs(two, **{"patch.0.id": 2**64}))
    single("negative patch id", _inputs(two, **{"patch.1.id": -1}))
    single("patch id 2^64 - 1, the largest u64", _inputs(two, **{"patch.0.id": MAX_PATCH_ID}), mid)
    single("a join side that is not a side (U2)", _inputs(two, **{"join.0.second_side": "U2"}))
    single("a join's is_reversed that is not a boolean (1)", _inputs(two, **{"join.0.is_reversed": 1}))
    single("a join's patch index that is not an integer (0.5)", _inputs(two, **{"join.0.first_patch": "0x1p-1"}))
    single("negative revision", _inputs(two, revision=-1))
    single("nonfinite origin", _inputs(two, origin=["0x0p+0", "inf", "0x0p+0"]))
    # --- Precision (spec 002 Precision, through TryPreparePath's narrowing; the exact floor).
    far = dict(two, origin=np.array([-1e39, 0.0, 0.0]))
    single("chunk-relative controls beyond the float32 range (origin 1e39 away)", _inputs(far))
    floor, _ = replay_position_floor(np.asarray(two["source"]), np.asarray(two["origin"]))
    single("position error exactly at the floor", _inputs(two, tol={"position_error": floor}), mid)
    single("position error one float64 step below the floor",
           _inputs(two, tol={"position_error": math.nextafter(floor, 0.0)}))
    # --- Topology (spec 002 Surfaces): one cause per request besides the named corpus's.
    single("the same join declared twice (a third incidence)",
           {**_inputs(two), "adjacency": _inputs(two)["adjacency"] * 2})
    single("a side joined to another side of the same patch (a tube)", _inputs(SC._tube_one(np.random.default_rng(0))),
           mid, maps=(((7, "U0"), 0.25),))
    # --- Evaluation (decisions: edge parameters, evaluation and normals).
    single("patch index outside the surface (2 and -1)", _inputs(two), (2, 0.5, 0.5), (-1, 0.5, 0.5))
    single("nonfinite parameters (u = NaN, v = inf)", _inputs(two), (0, "nan", 0.5), (1, 0.5, "inf"))
    single("parameters just outside [0, 1]", _inputs(two), (0, -(2.0**-1074), 0.5), (1, 0.5, 1.0 + 2.0**-52))
    single("TryMapEdgeParameter: an unknown edge, s outside [0, 1], s NaN", _inputs(two),
           maps=(((20, "U0"), 0.5), ((12345, "U0"), 0.5), ((10, "U1"), 1.5), ((10, "U1"), -0.25), ((10, "U1"), "nan")))
    # --- Normals (spec 002 Surfaces): zero and parallel partials, thresholds clearly reached.
    point = SC._case("a patch collapsed to a point", [np.full((4, 4, 3), 2.5)], ids=[1], rng=np.random.default_rng(0))
    single("zero partials: a patch collapsed to a point", _inputs(point), mid, (0, 0.0, 1.0))
    line = SC._case("parallel partials: S(u, v) = (3 (u + v), 0, 0)",
                    [np.array([[(i + j, 0.0, 0.0) for j in range(4)] for i in range(4)])], ids=[1],
                    rng=np.random.default_rng(0))
    single("parallel partials: S(u, v) = (3 (u + v), 0, 0)", _inputs(line), mid, (0, 0.25, 0.75))
    single("partials far below NormalMinDerivativeLength (1e3)", _inputs(two, tol={"dmin": 1e3}), mid, (1, 0.0, 1.0))
    shear = SC._case("a sheared patch",
                     [np.array([[(i + j, j * 2.0**-12, 0.0) for j in range(4)] for i in range(4)])], ids=[1],
                     rng=np.random.default_rng(0))
    single("a sine far below NormalMinSinAngle (about 2^-12 against 1e-3)", _inputs(shear), mid)
    # --- Failed rebuilds keep the previous surface: its records and every answer.
    qs = [(0, 0.5, 0.5), (1, 0.25, 1.0)]
    for name, bad in (("duplicate patch id", _inputs(two, revision=2, **{"patch.1.id": 10})),
                      ("max_spans", _inputs(three, revision=2, limits=_limits(max_spans=2))),
                      ("position floor", _inputs(two, revision=2, tol={"position_error": math.nextafter(floor, 0)})),
                      ("nonfinite control", _inputs(two, revision=2,
                                                    **{"patch.0.control": _with(two["source"][0], (1, 1, 2), "inf")}))):
        good, held = _prepare_step(_inputs(two))
        queries = [s for p, u, v in qs for s in _evaluate_steps(held, p, u, v)] + [_map_step(held, (10, "U1"), 1 / 3)]
        steps = (good, *queries, _prepare_step(bad)[0], *queries)
        k = len(queries) + 1
        rules = tuple(Rule("same_output", i, i + k, _WHY_KEEP) for i in range(k))
        out.append((f"failed rebuild ({name}) keeps the previous surface", steps, rules))
    return tuple(out)


def _with(controls, index, value) -> list:
    """Encoded controls with one component replaced by raw JSON ``value``."""
    c = enc(np.asarray(controls, dtype=np.float64))
    i, j, k = index
    c[i][j][k] = value
    return c


STATUS_REQUESTS = 36  # len(status_requests()): the module docstring's count (a test compares them)


# --- Requests ------------------------------------------------------------------------------------


def request_at(seed: int, k: int) -> Request:
    """Request ``k`` of the corpus of ``seed`` (:func:`requests`); ids ``surface/NNNNN``."""
    return interleaved("surface", k, k + 1, SC.NAMED, status_requests(),
                       lambda rid, j, _s: case_request(rid, SC.corpus_case(seed, j)))[0]


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` surface requests: the named networks, the status contracts, then random grids.
    Deterministic in ``seed``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    return interleaved("surface", lo, hi, SC.NAMED, status_requests(),
                       lambda rid, j, _s: case_request(rid, SC.corpus_case(seed, j)))
