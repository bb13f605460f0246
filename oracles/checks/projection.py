"""Projection rows: strict projection ``Distance``, ``LowerBound`` and ``Gap`` (Certified) and the
``ProjectPointApproximate`` result (Approximate).

Corpus: deterministic in the seed. The first cases are named: the spec's example, points on
the curve, at and near a cusp, equidistant from two mirrored spans (ties), outside a corner
joint, far away, near and far from a large chunk origin, the centre of a closed near-circle,
a degenerate (point) span, and a budget too small to meet the gap; the rest are random chains
of 1 to 8 spans at scales 1e-2 to 1e3 around centres up to 1e5, with points near the curve,
inside its box or far away, and gaps from 1e-7 to 1e-2 of the scale.

Claim ``inputs`` (both rows): ``controls`` the prepared float32 controls (n, 4, 3) as hex,
``origin`` and ``point`` (3,) float64 hex, ``projection_gap`` hex, ``max_iterations``.
``value``: ``span``, ``u``, ``distance``, ``lower_bound``, ``gap`` (hex), ``is_gap_met``,
``iterations`` and, for the approximate row, ``result_guarantee``. Every field is read by the
checkers (the contracts' schemas, ``CONTRACTS``, admit nothing else).

Checkers recompute the truth from the inputs alone (``interval.projection``):

* strict: exact rational checks that the parameter exists, ``Iterations <= MaxIterations``,
  ``Gap <= ProjectionGap``, ``Distance - LowerBound <= Gap`` and ``Distance^2 >= |q - B(u)|^2``;
  then the interval branch and bound shows ``min f >= LowerBound^2`` (refined over ``BUDGET``).
  Together these give ``LowerBound <= min <= exact distance at Parameter <= Distance <= min +
  ProjectionGap``. The measure ``gap_used`` is an upper estimate of ``(Distance - min) /
  ProjectionGap``.
* approximate: what still holds when work runs out. The parameter exists, ``Iterations <=
  MaxIterations``, the guarantee is Approximate exactly when ``IsGapMet`` is false (Certified
  when it is true); a claim with ``IsGapMet`` true must pass every strict check; otherwise
  ``|Distance - |q - B(u)|| <= R`` (the Rounded error of evaluating the distance at the
  returned parameter, :func:`evaluation_bound`, or the claim's declared model) and
  ``LowerBound <= min`` (the same branch and bound). The measure ``true_gap_ratio`` is an upper
  estimate of ``(exact distance at Parameter - min) / ProjectionGap``.
"""

from __future__ import annotations

import dataclasses
import math

import gmpy2
import numpy as np

from interval.context import lower, upper
from interval.projection import enclose_min_distance, exact_squared_distance
from reference import kernel as K
from reference.context import F64
from reference.fp import ulp32
from reference.path import (
    PathPreparation,
    PathSource,
    spans_from_arrays,
    try_convert_centripetal_catmull_rom,
    try_prepare_path,
)
from reference.query import (
    ProjectionQuery,
    ProjectionResult,
    ProjectionScratch,
    compute_projection_scratch_capacity,
    project_point_approximate,
    try_project_point,
)
from reference.status import GuaranteeClass as G

from .. import schema as S
from ..decide import Decision, refine
from ..errormodel import resolve
from ..family import Family, RowContract
from ..model import Claim, dec, dec_array, enc, undecided, verified, violated
from .path import LIMITS, tolerance

__all__ = ["FAMILY", "BUDGET", "SPLITS", "make_case", "make_claim", "generate", "claims",
           "check_strict", "check_approximate", "evaluation_bound", "path_view", "CONTRACTS",
           "plant_strict", "plant_approximate"]

# Interval precisions the checkers may spend, with the box splits allowed at each.
BUDGET = (113, 256)
SPLITS = {113: 4000, 256: 20000}


# --- Corpus ----------------------------------------------------------------------------------


def make_case(name, source, origin, point, gap, *, closed=False, max_iterations=4096,
              approx_iterations=8, position_error=None) -> dict:
    """One corpus case: float64 source controls (n, 4, 3) in asset coordinates, the chunk
    origin, the query point, the projection gap and the iteration budgets (strict and
    approximate). ``position_error`` defaults to four float32 ulps of the largest narrowed
    control, just above the position floor."""
    source = np.asarray(source, dtype=np.float64)
    origin = np.asarray(origin, dtype=np.float64)
    if position_error is None:  # four float32 ulps of the largest narrowed control
        E = float(np.max(np.abs((source - origin).astype(np.float32))))
        position_error = max(4.0 * float(ulp32(np.float32(E))), 1e-9)
    return {"kind": "projection", "name": name, "source": source, "origin": origin,
            "closed": bool(closed), "point": np.asarray(point, dtype=np.float64), "gap": float(gap),
            "position_error": float(position_error), "max_iterations": int(max_iterations),
            "approx_iterations": int(approx_iterations)}


def path_view(case):
    """Prepare a case's path; the view, or None when preparation fails."""
    tol = dataclasses.replace(tolerance(case["position_error"]), projection_gap=case["gap"])
    n = case["source"].shape[0]
    src = PathSource(spans_from_arrays(case["source"], np.ones(n)), revision=1, is_closed=case["closed"])
    out = try_prepare_path(src, PathPreparation(tol, LIMITS, tuple(case["origin"])))
    return out.value.view() if out.ok else None


def _spec_example():
    pts = np.array([[0, 0, 0], [1, 0, 0], [1, 4, 0], [10, 4, 0]], dtype=np.float64)
    oc, ow = np.zeros((3, 4, 3)), np.zeros(3)
    try_convert_centripetal_catmull_rom(pts, False, 1e-6, oc, ow)
    return oc


_CUSP = np.array([[[0, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 0]]], dtype=np.float64)  # cusp at u=1/2
_BUMP = np.array([[-2, 0, 0], [-1.5, 1, 0], [-0.5, 1, 0], [0, 0, 0]], dtype=np.float64)
_MIRROR = np.stack([_BUMP, (_BUMP * [-1, 1, 1])[::-1]])  # span 1 mirrors span 0 about x = 0
_CORNER = np.array([[[0, 0, 0], [1 / 3, 0, 0], [2 / 3, 0, 0], [1, 0, 0]],
                    [[1, 0, 0], [1, 1 / 3, 0], [1, 2 / 3, 0], [1, 1, 0]]], dtype=np.float64)
_KAPPA = 4 * (math.sqrt(2) - 1) / 3  # quarter-circle Bezier


def _circle(r=1.0):
    spans = []
    for k in range(4):
        a, b = k * math.pi / 2, (k + 1) * math.pi / 2
        p0 = np.array([math.cos(a), math.sin(a), 0.0])
        p3 = np.array([math.cos(b), math.sin(b), 0.0])
        t0 = np.array([-math.sin(a), math.cos(a), 0.0])
        t3 = np.array([-math.sin(b), math.cos(b), 0.0])
        spans.append([p0, p0 + _KAPPA * t0, p3 - _KAPPA * t3, p3])
    c = np.array(spans) * r
    c[-1, 3] = c[0, 0]
    return c


def _named(rng) -> list:
    ex = _spec_example()
    on = ex[1]
    b = K.cubic_point(F64, on, np.float64(0.3))
    big = np.array([1e6, -2e6, 5e5])
    return [
        make_case("spec_example", ex, [0, 0, 0], [1.5, 0, 0], 1e-6),
        make_case("on_curve", ex, [0, 0, 0], b, 1e-9),
        make_case("at_span_start", ex, [0, 0, 0], ex[2, 0], 1e-9),
        make_case("terminal_endpoint", ex, [0, 0, 0], ex[2, 3] + [1, 0, 0], 1e-9),
        make_case("at_cusp", _CUSP, [0, 0, 0], [0.5, 0.75, 0], 1e-9),
        make_case("above_cusp", _CUSP, [0, 0, 0], [0.5, 0.9, 0], 1e-7),
        make_case("below_cusp", _CUSP, [0, 0, 0], [0.5, 0.6, 0], 1e-7),
        make_case("tie_mirrored_spans", _MIRROR, [0, 0, 0], [0, 3, 0], 1e-6),
        make_case("tie_mirrored_near", _MIRROR, [0, 0, 0], [0, 0.9, 0.25], 1e-6),
        make_case("outside_corner_joint", _CORNER, [0, 0, 0], [1.25, -0.25, 0], 1e-9),
        make_case("inside_corner_near_joint", _CORNER, [0, 0, 0], [0.999, 0.001, 0], 1e-9),
        make_case("far_away", ex, [0, 0, 0], [1e4, -3e4, 2e4], 1e-6),
        make_case("large_origin", ex + big, big, big + [1.5, 0, 0], 1e-6),
        make_case("far_chunk_origin", ex + big, big - 1e7, big + [1.5, 0, 0], 1e-3),
        make_case("unsupported_precision", ex + big, big, big + [1.5, 0.25, 0] + 1e9, 1e-12),
        make_case("closed_circle_centre", _circle(), [0, 0, 0], [0, 0, 0], 1e-5, closed=True),
        make_case("closed_circle_outside", _circle(), [0, 0, 0], [2, 1, 0.5], 1e-9, closed=True),
        make_case("degenerate_point_span", np.stack([np.tile([1.0, 1.0, 0.0], (4, 1)), ex[0] + [1, 1, 0]]),
              [0, 0, 0], [0.5, 2, 0], 1e-9),
        make_case("budget_too_small", ex, [0, 0, 0], [1, 2, 0.1], 1e-9, max_iterations=3, approx_iterations=3),
    ]


def _random_case(rng, i):
    n = int(rng.integers(1, 9))
    scale = float(10.0 ** rng.uniform(-2, 3))
    center = rng.uniform(-1, 1, 3) * float(rng.choice([0.0, 1e3, 1e5]))
    src = np.empty((n, 4, 3))
    p0 = center + rng.normal(size=3) * scale
    for k in range(n):
        src[k, 0] = p0
        src[k, 1:] = p0 + np.cumsum(rng.normal(size=(3, 3)) * scale, axis=0)
        p0 = src[k, 3]
    closed = n > 1 and rng.random() < 0.15
    if closed:
        src[-1, 3] = src[0, 0]
    origin = np.round(center)
    kind = rng.choice(["near", "box", "far"], p=[0.5, 0.35, 0.15])
    if kind == "near":
        k, u = int(rng.integers(n)), float(rng.random())
        point = K.cubic_point(F64, src[k], np.float64(u)) + rng.normal(size=3) * scale * 10.0 ** rng.uniform(-6, 0)
    elif kind == "box":
        lo, hi = src.reshape(-1, 3).min(axis=0), src.reshape(-1, 3).max(axis=0)
        point = rng.uniform(lo, hi)
    else:
        point = center + rng.normal(size=3) * scale * 1e3
    gap = scale * float(10.0 ** rng.uniform(-7, -2))
    return make_case(f"random_{i}_{kind}", src, origin, point, gap, closed=closed, max_iterations=2048,
                 approx_iterations=int(rng.integers(0, 30)))


def generate(seed: int, n: int) -> list:
    """``n`` cases: the named ones first, then random ones. Deterministic in ``seed``."""
    rng = np.random.default_rng([seed, 6])
    cases = _named(rng)[:n]
    i = 0
    while len(cases) < n:
        cases.append(_random_case(rng, i))
        i += 1
    return cases


def make_claim(row, guarantee, view, case, result, max_iterations, extra=None) -> Claim:
    """The claim of one projection result; ``inputs`` holds exactly what the checkers read (the
    path's closedness is not among them: the curve, and so the truth, is the same set of spans)."""
    value = {"span": result.parameter.span_index, "u": enc(result.parameter.u),
             "distance": enc(result.distance), "lower_bound": enc(result.lower_bound),
             "gap": enc(result.gap), "is_gap_met": bool(result.is_gap_met),
             "iterations": int(result.iterations)}
    if extra:
        value.update(extra)
    inputs = {"controls": enc(view.controls), "origin": enc(view.origin),
              "point": enc(case["point"]), "projection_gap": enc(view.tolerance.projection_gap),
              "max_iterations": int(max_iterations)}
    return Claim(row, guarantee, value, inputs)


def claims(case) -> list:
    """Run the fast path on one case: a strict claim when strict projection succeeds, and an
    approximate claim with the case's (small) approximate budget."""
    view = path_view(case)
    if view is None:
        return []
    out = []
    iters = max(case["max_iterations"], case["approx_iterations"])
    scratch = ProjectionScratch()
    scratch.try_reserve(compute_projection_scratch_capacity(view, iters).value)
    result = ProjectionResult()
    if try_project_point(view, ProjectionQuery(case["point"], case["max_iterations"]), scratch, result).ok:
        out.append(make_claim("projection.strict", G.Certified, view, case, result, case["max_iterations"]))
    approx = ProjectionResult()
    if project_point_approximate(view, ProjectionQuery(case["point"], case["approx_iterations"]),
                                 scratch, approx).ok:
        out.append(make_claim("projection.approximate", G.Approximate, view, case, approx,
                          case["approx_iterations"], {"result_guarantee": approx.guarantee.value}))
    return out


# --- Checkers --------------------------------------------------------------------------------


def _inputs(claim: Claim):
    """Decode a claim's inputs and value (ValueError/KeyError/TypeError when malformed)."""
    inp, val = claim.inputs, claim.value
    if not isinstance(val, dict):
        raise TypeError("a projection claim's value must be an object")
    controls = dec_array(inp["controls"], np.float32)
    if controls.ndim != 3 or controls.shape[1:] != (4, 3) or controls.shape[0] < 1:
        raise ValueError("controls must have shape (n, 4, 3)")
    if not np.all(np.isfinite(controls)):
        raise ValueError("controls must be finite")
    origin, point = dec_array(inp["origin"]), dec_array(inp["point"])
    if origin.shape != (3,) or point.shape != (3,) or not (np.all(np.isfinite(origin)) and np.all(np.isfinite(point))):
        raise ValueError("origin and point must be three finite float64 values")
    gap = dec(inp["projection_gap"])
    if not (math.isfinite(gap) and gap > 0):
        raise ValueError("projection_gap must be finite and positive")
    span = val["span"]
    if isinstance(span, bool) or not isinstance(span, int):
        raise TypeError("span must be an int")
    if not isinstance(val["is_gap_met"], bool):
        raise TypeError("is_gap_met must be a boolean")
    budget, iterations = inp["max_iterations"], val["iterations"]
    for name, x in (("max_iterations", budget), ("iterations", iterations)):
        if isinstance(x, bool) or not isinstance(x, int) or x < 0:
            raise TypeError(f"{name} must be a nonnegative int")
    nums = {k: dec(val[k]) for k in ("u", "distance", "lower_bound", "gap")}
    nums["iterations"], nums["max_iterations"] = iterations, budget
    return controls, origin, point, gap, span, nums, val["is_gap_met"]


def _domain_failures(controls, span, nums) -> dict:
    """What both rows demand of any result: an existing parameter, finite values, the budget."""
    n = controls.shape[0]
    if not 0 <= span < n or not (math.isfinite(nums["u"]) and 0.0 <= nums["u"] <= 1.0):
        return {"parameter_outside_domain": {"span": span, "u": enc(nums["u"]), "span_count": n}}
    if not all(math.isfinite(nums[k]) for k in ("distance", "lower_bound", "gap")):
        return {"nonfinite_value": {k: enc(nums[k]) for k in ("distance", "lower_bound", "gap")}}
    if nums["iterations"] > nums["max_iterations"]:
        return {"iterations_exceed_budget": {"iterations": nums["iterations"],
                                             "max_iterations": nums["max_iterations"]}}
    return {}


def _exact_failures(controls, origin, point, gap, span, nums, met) -> dict:
    """The strict row's exact conditions; a nonempty dict names the first that fails."""
    bad = _domain_failures(controls, span, nums)
    if bad:
        return bad
    if not met:
        return {"is_gap_met": False}
    D, L, Gp, g = (gmpy2.mpq(nums["distance"]), gmpy2.mpq(nums["lower_bound"]),
                   gmpy2.mpq(nums["gap"]), gmpy2.mpq(gap))
    if Gp > g:
        return {"gap_exceeds_projection_gap": {"gap": enc(Gp), "projection_gap": enc(g)}}
    if D - L > Gp:
        return {"gap_below_distance_minus_lower_bound": {"difference": enc(D - L), "gap": enc(Gp)}}
    f = exact_squared_distance(controls, origin, point, span, nums["u"])
    if D < 0 or D * D < f:
        return {"distance_below_exact_distance_at_parameter": {"distance_sq": enc(D * D),
                                                                "exact_distance_sq": enc(f)}}
    return {}


def _witness(e) -> dict:
    span, u = e.witness
    return {"span": span, "u": enc(u), "distance_sq_upper": enc(e.upper_sq)}


def _decide_lower_bound(controls, origin, point, gap, lb) -> Decision:
    """Whether ``LowerBound <= min distance`` (the oracle's branch and bound, over BUDGET)."""

    def at(prec):
        e = enclose_min_distance(controls, origin, point, prec, threshold=max(lb, 0.0),
                                 target=gap / 16, max_splits=SPLITS[prec])
        return Decision(e.decided, prec, e)

    return refine(at, BUDGET)


def _judge_strict(claim: Claim, decoded, **extra):
    controls, origin, point, gap, span, nums, met = decoded
    bad = _exact_failures(controls, origin, point, gap, span, nums, met)
    if bad:
        return violated(claim, bad, note="an exact condition of the strict projection fails", **extra)
    lb = nums["lower_bound"]
    d = _decide_lower_bound(controls, origin, point, gap, lb)
    e = d.enclosure
    used = (nums["distance"] - float(lower(e.distance))) / gap
    enclosure = [enc(lower(e.distance)), enc(upper(e.distance))]
    if d.holds is True:
        return verified(claim, measure="gap_used", measured=used, prec=d.prec,
                        note="LowerBound <= min shown; Distance <= min + gap follows", splits=e.splits, **extra)
    if d.holds is False:
        return violated(claim, {"lower_bound_above_minimum": _witness(e), "lower_bound": enc(lb)},
                        prec=d.prec, note="a curve point is closer than the claimed LowerBound", **extra)
    return undecided(claim, enclosure, prec=d.prec, note="LowerBound <= min not decided within the budget",
                     **extra)


def check_strict(claim: Claim):
    """``projection.strict``: exact conditions, then ``LowerBound <= min`` by the oracle."""
    return _judge_strict(claim, _inputs(claim))


# The rounding constant of the evaluation bound (the project's blossom constant,
# reference.error_model.K): a declared model's ``k`` scales the bound by k / 16.
EVAL_K = 16


def evaluation_bound(controls, origin, point, span: int, distance, u: float, eta: float) -> gmpy2.mpq:
    """The Rounded error allowed between a returned ``Distance`` and the exact distance at the
    returned parameter, at unit roundoff ``u`` and subnormal step ``eta`` (exact mpq):

    ``R = sum_c (2 e_c + 4 u |q_c|) + 4 u |Distance| + 16 eta`` with ``e_c = 16 u E_c + 16 eta``,
    ``E_c`` the span's largest control magnitude in component c and ``q = point - origin``.

    Why: the curve point at the parameter is evaluated on float32 controls within ``e_c`` per
    component (the blossom's three levels of ``(1 - t) a + t b``); an outward-rounded distance
    widens its point box by ``e`` once more, the chunk-relative query point is enclosed within
    one ulp (``<= 2 u |q_c|``, doubled here for the box), and the final square root and sums
    round a few times more (``4 u |Distance|``). The 1-norm bounds the 2-norm of the sum.
    """
    P = [[gmpy2.mpq(float(x)) for x in row] for row in controls[span]]
    qe = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(point, origin)]
    uq, eq = gmpy2.mpq(u), gmpy2.mpq(eta)
    total = gmpy2.mpq(0)
    for c in range(3):
        E = max(abs(P[r][c]) for r in range(4))
        e = EVAL_K * uq * E + 16 * eq
        total += 2 * e + 4 * uq * abs(qe[c])
    return total + 4 * uq * abs(gmpy2.mpq(distance)) + 16 * eq


def check_approximate(claim: Claim):
    """``projection.approximate``: what an Approximate result still promises (module docstring):
    a met gap passes every strict check; otherwise the distance is the Rounded distance at the
    returned parameter and the lower bound does not exceed the true minimum."""
    decoded = _inputs(claim)
    controls, origin, point, gap, span, nums, met = decoded
    rg = claim.value["result_guarantee"]
    if rg not in ("Certified", "Approximate"):
        raise ValueError(f"result_guarantee {rg!r} is neither Certified nor Approximate")
    gap_met = {"gap_met": int(met)}
    bad = _domain_failures(controls, span, nums)
    if bad:
        return violated(claim, bad, note="the approximate result names no valid parameter or value", **gap_met)
    if (rg == "Certified") != met:
        return violated(claim, {"result_guarantee": rg, "is_gap_met": met},
                        note="IsGapMet false must come with Guarantee Approximate, true with Certified", **gap_met)
    if met:
        return _judge_strict(claim, decoded, **gap_met)
    D = gmpy2.mpq(nums["distance"])
    resolved = resolve(claim, lambda u, eta: evaluation_bound(controls, origin, point, span, nums["distance"], u, eta),
                       constant=EVAL_K)
    R = resolved.scalar()
    extra = {**gap_met, **resolved.extra()}
    f = exact_squared_distance(controls, origin, point, span, nums["u"])
    hi, lo = D + R, D - R
    if hi < 0 or hi * hi < f or (lo > 0 and lo * lo > f):
        return violated(claim, {"distance_not_at_parameter": {"distance": enc(D), "exact_distance_sq": enc(f),
                                                             "bound": enc(R)}},
                        note="Distance differs from the exact distance at the returned parameter by more "
                             "than the evaluation's Rounded error", **extra)
    d = _decide_lower_bound(controls, origin, point, gap, nums["lower_bound"])
    e = d.enclosure
    if d.holds is False:
        return violated(claim, {"lower_bound_above_minimum": _witness(e), "lower_bound": enc(nums["lower_bound"])},
                        prec=d.prec, note="a curve point is closer than the claimed LowerBound", **extra)
    if d.holds is None:
        return undecided(claim, [enc(lower(e.distance)), enc(upper(e.distance))], prec=d.prec,
                         note="LowerBound <= min not decided within the budget", **extra)
    at = math.sqrt(float(f)) * (1 + 2.0**-50)  # an upper estimate, for the report only
    ratio = (at - float(lower(e.distance))) / gap
    return verified(claim, measure="true_gap_ratio", measured=ratio, prec=d.prec,
                    note="Approximate: distance at the parameter and LowerBound <= min shown", **extra)


# --- Contracts -------------------------------------------------------------------------------


_INPUTS = S.obj(required={
    "controls": S.matrix(S.f32(), [None, 4, 3]),
    "origin": S.vec(S.f64(), 3),
    "point": S.vec(S.f64(), 3),
    "projection_gap": S.f64(positive=True),
    "max_iterations": S.integer(minimum=0),
})
_RESULT = {
    "span": S.integer(minimum=0),
    "u": S.f64(finite=False),
    "distance": S.f64(finite=False),
    "lower_bound": S.f64(finite=False),
    "gap": S.f64(finite=False),
    "is_gap_met": S.boolean(),
    "iterations": S.integer(minimum=0),
}


def _with(claim: Claim, **changes) -> Claim:
    value = dict(claim.value)
    value.update({k: (enc(v) if isinstance(v, float) else v) for k, v in changes.items()})
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _halving_is_false(claim: Claim) -> bool:
    """Whether half the claimed distance is below the exact distance at the claimed parameter."""
    i, v = claim.inputs, claim.value
    d = dec(v["distance"])
    try:
        f = exact_squared_distance(dec_array(i["controls"], np.float32), dec_array(i["origin"]),
                                   dec_array(i["point"]), v["span"], dec(v["u"]))
    except (ValueError, TypeError):
        return False
    return math.isfinite(d) and gmpy2.mpq(d / 2) ** 2 < f


def plant_strict(claim: Claim) -> Claim:
    """A result whose distance and lower bound were halved (a dropped factor of two): the
    distance falls below the exact distance at the parameter. Where the point is on the curve
    at the parameter, halving is no fault, so it claims a lower bound above the distance found."""
    d, lb = dec(claim.value["distance"]), dec(claim.value["lower_bound"])
    if _halving_is_false(claim):
        return _with(claim, distance=d / 2, lower_bound=lb / 2)
    big = 2 * abs(d) + 1.0
    return _with(claim, lower_bound=big, distance=big, gap=0.0)


def plant_approximate(claim: Claim) -> Claim:
    """The issue's claim: the distance halved and the gap declared met (``is_gap_met`` true,
    Guarantee Certified, a gap that fits). Where the point is on the curve at the parameter it
    declares the gap met with a gap wider than ProjectionGap."""
    d, lb = dec(claim.value["distance"]), dec(claim.value["lower_bound"])
    if _halving_is_false(claim):
        d2, lb2 = d / 2, min(lb / 2, d / 2)
    else:
        d2, lb2 = abs(d) + 4 * dec(claim.inputs["projection_gap"]) + 1.0, min(lb, 0.0)
    return _with(claim, distance=d2, lower_bound=lb2, gap=d2 - lb2, is_gap_met=True, result_guarantee="Certified")


CONTRACTS = {
    "projection.strict": RowContract(
        checks=("Certified strict projection: 0 <= span < n, 0 <= u <= 1, Iterations <= MaxIterations, "
                "IsGapMet, Gap <= ProjectionGap and Distance - LowerBound <= Gap exactly, "
                "Distance^2 >= |q - B_span(u)|^2 in exact rationals (q = point - origin), and "
                "LowerBound <= min_u |q - B(u)| shown by an interval branch and bound over Bernstein "
                "ranges of |B(u) - q|^2 (113 then 256 bits)."),
        inputs=_INPUTS,
        value=S.obj(required=_RESULT),
        plant=plant_strict,
    ),
    "projection.approximate": RowContract(
        checks=("Approximate projection: the parameter exists and Iterations <= MaxIterations; "
                "Guarantee is Approximate iff IsGapMet is false; with IsGapMet true every strict check "
                "applies; otherwise |Distance - |q - B_span(u)|| <= R with R = sum_c (2 e_c + 4u|q_c|) "
                "+ 4u|Distance| + 16 eta, e_c = 16u E_c + 16 eta (E_c the span's largest control "
                "magnitude; u = 2^-53 unless a model is declared), and LowerBound <= the true minimum "
                "(interval branch and bound)."),
        inputs=_INPUTS,
        value=S.obj(required={**_RESULT, "result_guarantee": S.enum(["Certified", "Approximate"])}),
        plant=plant_approximate,
        model=S.MODEL,
    ),
}


FAMILY = Family(
    name="projection",
    default_cases=500,
    generate=generate,
    claims=claims,
    checkers={"projection.strict": check_strict, "projection.approximate": check_approximate},
    contracts=CONTRACTS,
    oracle_precisions=BUDGET,
)
