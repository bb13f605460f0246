"""Projection rows: strict projection ``Distance``, ``LowerBound`` and ``Gap`` (Certified) and the
``ProjectPointApproximate`` result (Approximate).

Corpus: deterministic in the seed. The first cases are named: the spec's example, points on
the curve, at and near a cusp, equidistant from two mirrored spans (ties), outside a corner
joint, far away, near and far from a large chunk origin, the centre of a closed near-circle,
a degenerate (point) span, and a budget too small to meet the gap. Then adversarial shapes
(``_adversarial``, issue 17): straight and nearly straight spans far from the origin and
cancelling straight lines through the origin with points on them at non-dyadic u, far points
whose origin subtraction is inexact right at a span start, acceptable-but-not-best joints,
reversals inside a span, points equidistant from several spans, exact mirror ties with
fractional origins, a ProjectionGap equal to a reached gap, a search stopped by float64
resolution, a terminal endpoint out of budget, a power-of-two joint. The rest are random chains
of 1 to 8 spans at scales 1e-2 to 1e3 around centres up to 1e5, with points near the curve,
inside its box or far away, and gaps from 1e-7 to 1e-2 of the scale.

Claim ``inputs`` (both rows): ``controls`` the prepared float32 controls (n, 4, 3) as hex,
``origin`` and ``point`` (3,) float64 hex, ``projection_gap`` hex, ``max_iterations``, and
optionally ``is_closed`` (without it the terminal-endpoint rules are not checked).
``value``: ``span``, ``u``, ``distance``, ``lower_bound``, ``gap`` (hex), ``is_gap_met``,
``iterations`` and, for the approximate row, ``result_guarantee``. Every field is read by the
checkers (the contracts' schemas, ``CONTRACTS``, admit nothing else).

Checkers recompute the truth from the inputs alone, with two independent oracles
(``interval.arb_projection``: exact real-root isolation, the default decision;
``interval.projection``: the interval branch and bound, the cross-check; disjoint enclosures
are an OracleFault):

* strict: exact rational checks that the parameter is a candidate (``0 <= u <= 1``, ``u = 1``
  only at an open path's terminal endpoint), ``Iterations <= MaxIterations``, ``Gap <=
  ProjectionGap``, ``Distance - LowerBound <= Gap`` and ``Distance^2 >= |q - B(u)|^2``; the
  earliest rule (no span start before the result certainly fits the gap, no earlier exact
  mirror twin; docs/decisions.md); then ``min f >= LowerBound^2`` by the oracles. Together these
  give ``LowerBound <= min <= exact distance at Parameter <= Distance <= min + ProjectionGap``.
  The measure and ``bound_use`` ``gap_used`` is an upper estimate of ``(Distance - min) /
  ProjectionGap``.
* approximate: what still holds when work runs out. The parameter is a candidate, ``Iterations
  <= MaxIterations``, the guarantee is Approximate exactly when ``IsGapMet`` is false (Certified
  when it is true); a claim with ``IsGapMet`` true must pass every strict check; otherwise
  ``|Distance - |q - B(u)|| <= R`` (the Rounded error of evaluating the distance at the
  returned parameter, :func:`evaluation_bound`, or the claim's declared model; ``bound_use`` is
  the error over R), ``Distance - LowerBound <= Gap``, ``Gap > ProjectionGap`` (a gap that fits
  was met), the earliest best candidate (no span start or open terminal endpoint certainly
  better, no earlier mirror twin) and ``LowerBound <= min`` (the same oracles). The measure
  ``true_gap_ratio`` is an upper estimate of ``(exact distance at Parameter - min) /
  ProjectionGap``.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Optional

import gmpy2
import numpy as np

from interval.arb_projection import decide_lower_bound as arb_decide
from interval.arb_projection import sqrt_down, sqrt_up
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
from ..decide import Decision, enclosures_overlap, refine
from ..errormodel import ratio, resolve
from ..family import Family, RowContract
from ..model import Claim, dec, dec_array, enc, oracle_fault, undecided, verified, violated
from ..families.path import LIMITS, tolerance

__all__ = ["FAMILY", "BUDGET", "SPLITS", "make_case", "make_claim", "generate", "claims",
           "check_strict", "check_approximate", "evaluation_bound", "path_view", "CONTRACTS",
           "plant_strict", "plant_approximate"]

# Interval precisions the branch and bound may spend, with the box splits allowed at each.
BUDGET = (113, 256)
SPLITS = {113: 4000, 256: 20000}
# Root-ball precisions of the exact root isolation (interval.arb_projection), in order.
ARB_BUDGET = (128, 256, 1024)


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


def _line(a, b) -> np.ndarray:
    """A straight span from ``a`` to ``b`` with evenly spaced controls (one (4, 3) span)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.stack([a + (b - a) * t for t in (0.0, 1 / 3, 2 / 3, 1.0)])


def _gap_tie_case(name, source, point, iterations) -> dict:
    """A case whose ProjectionGap equals exactly what the search reaches after ``iterations``
    splits (the fast path's own BudgetExceeded diagnostic, ``achieved``): the stopping rule
    ("fits": ``<=``) must stop there and meet the gap; a ``<`` rule runs out of work with its
    own Gap equal to ProjectionGap."""
    probe = make_case(name, source, np.zeros(3), point, 1e-12, max_iterations=iterations)
    gap = 1e-3
    try:  # a fast path that crashes here crashes again on the case itself: a producer error there
        view = path_view(probe)
        s = ProjectionScratch()
        s.try_reserve(compute_projection_scratch_capacity(view, iterations).value)
        out = try_project_point(view, ProjectionQuery(probe["point"], iterations), s, ProjectionResult())
        if out.diagnostic is not None and getattr(out.diagnostic, "achieved", None):
            gap = float(out.diagnostic.achieved)
    except Exception:  # noqa: BLE001 - the corpus must not depend on the producer working
        pass
    return make_case(name, source, np.zeros(3), point, gap, max_iterations=iterations,
                     approx_iterations=iterations)


def _adversarial(rng) -> list:
    """Cases shaped to reach what random ones rarely do (issue 17): straight and nearly straight
    spans far from the origin with points on them at non-dyadic parameters (the computed
    subsegment controls' error decides the bounds), far points whose origin subtraction is
    inexact right at a span start (the search stops at once on the whole span's bounds),
    joints that are acceptable but not best, points equidistant from several spans, exact
    mirror ties with fractional origins, a ProjectionGap equal to a reached gap (the stopping
    rule's tie), a search stopped by float64 resolution, a terminal endpoint out of budget, a
    power-of-two magnitude. Deterministic in ``rng``."""
    out = []
    # Straight and nearly straight spans far from the origin, points on them at non-dyadic u.
    for i, (mag, bend) in enumerate(((3e5, 0.0), (1e6, 0.0), (2e5, 1e-3), (7e5, 1e-6))):
        a = rng.uniform(-1, 1, 3) * mag
        b = a + rng.normal(size=3) * mag * 1e-3
        src = _line(a, b)
        src[1:3] += rng.normal(size=(2, 3)) * mag * 1e-3 * bend
        for j, u in enumerate((0.3, 1 / 3, 0.7071067811865476)):
            p = K.cubic_point(F64, src, np.float64(u))
            p = p + (0.0 if j < 2 else rng.normal(size=3) * mag * 1e-13)
            out.append(make_case(f"far_straight_{i}_{j}", src[None], [0, 0, 0], p, 8e-9 * mag / 3e5 + 2e-9,
                                 approx_iterations=64))
    # A reversal inside a span: collinear controls that run back past the span start, so the
    # curve leaves its chord segment [P0, P3]; points beside the overshoot.
    rev = np.array([[[0.0, 0, 0], [-1.0, 0, 0], [2.0, 0, 0], [1.0, 0, 0]]])
    for i, p in enumerate(([-0.5, 0.01, 0.0], [1.4, -0.02, 0.01], [-0.2, 0.3, 0.0])):
        out.append(make_case(f"reversal_span_{i}", rev, [0, 0, 0], p, 1e-8))
    # Cancelling controls: an exactly straight, evenly parametrised line through the chunk
    # origin at a non-dyadic u*, the point at the origin (on the curve, |q| = 0, so the point's
    # enclosure adds nothing). The computed subsegment controls near u* are differences of
    # controls of magnitude ~1e5: only their error term keeps the bounds below the minimum 0.
    lines = [(Fraction(1, 3), (90000, 30000, -60000)), (Fraction(1, 5), (50000, -20000, 35000)),
             (Fraction(2, 7), (-70000, 49000, 21000)), (Fraction(3, 10), (40000, 70000, -90000))]
    for den in (3, 5, 7, 9, 11, 13, 17, 19):  # more directions and u* = a / den, from the seed
        a = int(rng.integers(1, den))
        lines.append((Fraction(a, den), tuple(int(x) * den * 10 for x in rng.integers(-2000, 2000, 3))))
    for i, (us, D) in enumerate(lines):
        Dv = np.array(D, dtype=np.float64)
        src = np.stack([Dv * float(k - 3 * us) for k in range(4)])
        out.append(make_case(f"cancelling_line_{i}", src[None], [0, 0, 0], [0.0, 0.0, 0.0], 4e-9,
                             approx_iterations=80))
    # A far straight axis-aligned span; the point beyond its start, the origin fractional so
    # that point - origin rounds: the whole span's box and capsule are tight at once.
    for i in range(10):
        x0 = float(rng.integers(100000, 200000))
        y0, z0 = float(rng.integers(-70000, 70000)), float(rng.integers(-70000, 70000))
        src = _line([x0, y0, z0], [x0 + 3, y0, z0])
        origin = np.round(rng.uniform(0.05, 0.95, 3), 2)
        p = np.array([x0 - rng.uniform(0.2, 0.6), y0 + rng.uniform(-0.4, 0.4), z0 + rng.uniform(-0.4, 0.4)])
        out.append(make_case(f"far_span_start_{i}", src[None], origin, p, 4e-9, approx_iterations=0))
    # A joint that is acceptable but not best: span 1 bulges towards the point past the joint.
    kink = np.array([_line([0, 0, 0], [1, 0, 0]), [[1, 0, 0], [1.3, 0.3, 0], [1.2, 0.7, 0], [1, 1, 0]]])
    # Gaps about 1.2 (1.05 for the last) times |p - joint| - min: the search finds a better
    # point on span 1 while the joint (1, 0) still fits, and the earliest rule names the joint.
    for i, (p, gap) in enumerate((([1.5, 0.05, 0.0], 0.1336), ([1.4, 0.02, 0.01], 0.1044),
                                  ([1.45, -0.01, 0.0], 0.0941), ([1.1, -0.02, 0.0], 0.016))):
        out.append(make_case(f"joint_acceptable_not_best_{i}", kink, [0, 0, 0], p, gap))
    # Equidistant from several spans: a regular zigzag's apexes, the point above them.
    zig = np.array([_line([k, (-1) ** k * 0.5, 0], [k + 1, (-1) ** (k + 1) * 0.5, 0]) for k in range(4)])
    out.append(make_case("equidistant_zigzag", zig, [0, 0, 0], [2.0, 0.0, 3.0], 1e-6))
    out.append(make_case("equidistant_circle_axis", _circle(), [0, 0, 0], [0, 0, 0.75], 1e-4, closed=True))
    # Exact mirror ties (span 1 is span 0 reflected in x = 0 and reversed), fractional origins in
    # y and z (x stays 0: the mirror plane holds the chunk origin).
    for i in range(4):
        c = rng.uniform(-3, 3, (4, 3)).round(3)
        c[:, 0] = -np.abs(c[:, 0]) - 0.5
        c[3, 0] = 0.0
        mirror = np.stack([c, (c * [-1.0, 1.0, 1.0])[::-1]])
        origin = np.array([0.0, rng.integers(-8, 8) / 4, rng.integers(-8, 8) / 4])
        p = np.array([0.0, rng.uniform(-4, 4), rng.uniform(-4, 4)])
        out.append(make_case(f"tie_mirror_{i}", mirror, origin, p, float(10.0 ** rng.integers(-9, -4)),
                             approx_iterations=int(rng.integers(4, 40))))
    # The stopping rule's tie: ProjectionGap equal to the gap reached after a few splits.
    arc = np.array([[[0.0, 0, 0], [1.0, 1, 0], [2.0, 1, 0], [3.0, 0, 0]]])
    out.append(_gap_tie_case("gap_tie_arc", arc, [1.2, 2.0, 0.0], 3))
    out.append(_gap_tie_case("gap_tie_spec", _spec_example(), [1.5, 0.3, 0.2], 5))
    # Out of float64 resolution: far from the origin with a gap below the rounding slack.
    shift = np.array([3e3, -2e3, 1e3])
    out.append(make_case("resolution_exhausted", _spec_example() + shift, [0, 0, 0],
                         np.array([1.0, 2.0, 0.1]) + shift, 1e-12, approx_iterations=4096))
    # The terminal endpoint is the answer, with too little work to find anything close.
    ex = _spec_example()
    tangent = ex[2, 3] - ex[2, 2]
    for i, it in enumerate((0, 1, 2)):
        out.append(make_case(f"beyond_terminal_{i}", ex, [0, 0, 0], ex[2, 3] + tangent * (0.5 + i), 1e-9,
                             max_iterations=it, approx_iterations=it))
    # Power-of-two magnitudes: controls at +-2^17, the point 2^-3 off a joint.
    p2 = np.array([_line([2.0**17, 0, 0], [2.0**17, 2.0**17, 0]), _line([2.0**17, 2.0**17, 0], [0, 2.0**17, 0])])
    out.append(make_case("power_of_two_joint", p2, [0, 0, 0], [2.0**17 + 0.125, 2.0**17 + 0.125, 0], 2.0**-20))
    # Query points hundreds of path sizes away, with a small approximate budget: the distance's
    # rounding is then mostly the norm's and the query point's, which an evaluation bound must
    # cover (the first is the 1e6-claim soak run's witness, a closed two-span loop; the others put
    # the point on an axis, where |q|_1 = |q| leaves the bound the least room).
    loop = np.vectorize(float.fromhex)([
        [["-0x1.ea670ep+1", "0x1.154928p+3", "0x1.f07af0p-3"], ["-0x1.6c932cp+1", "0x1.fa5138p+2", "0x1.76220cp+1"],
         ["-0x1.5c3262p-1", "0x1.0e2042p+3", "0x1.1df4c6p+2"], ["-0x1.5b284ep+3", "0x1.74c3ccp+3", "0x1.86779cp+3"]],
        [["-0x1.5b284ep+3", "0x1.74c3ccp+3", "0x1.86779cp+3"], ["-0x1.bf477ap+2", "0x1.0d3a08p+1", "0x1.8d09e6p+4"],
         ["-0x1.42a1c8p+1", "0x1.74d8e6p+3", "0x1.9d9404p+4"], ["-0x1.ea670ep+1", "0x1.154928p+3", "0x1.f07af0p-3"]]])
    out.append(make_case("far_point_loop", loop, [0, 0, 0],
                         [float.fromhex(x) for x in ("0x1.3b3cedad63994p+11", "-0x1.0a549b803eb73p+13",
                                                     "-0x1.d4c7a43d2f9d0p+8")],
                         float.fromhex("0x1.ba8331a9ece2dp-17"), closed=True, approx_iterations=19))
    for axis in range(3):
        far = np.zeros(3)
        far[axis] = (-1) ** axis * float(rng.uniform(3e3, 3e4))
        out.append(make_case(f"far_point_axis_{axis}", loop[:1] * 0.5, [0, 0, 0], far,
                             float(rng.uniform(1e-6, 1e-4)), approx_iterations=int(rng.integers(2, 12))))
    return out


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
    cases = (_named(rng) + _adversarial(rng))[:n]
    i = 0
    while len(cases) < n:
        cases.append(_random_case(rng, i))
        i += 1
    return cases


def make_claim(row, guarantee, view, case, result, max_iterations, extra=None) -> Claim:
    """The claim of one projection result; ``inputs`` holds exactly what the checkers read (the
    path's closedness does not change the truth, the same set of spans, but it decides whether
    the terminal endpoint is a candidate)."""
    value = {"span": result.parameter.span_index, "u": enc(result.parameter.u),
             "distance": enc(result.distance), "lower_bound": enc(result.lower_bound),
             "gap": enc(result.gap), "is_gap_met": bool(result.is_gap_met),
             "iterations": int(result.iterations)}
    if extra:
        value.update(extra)
    inputs = {"controls": enc(view.controls), "origin": enc(view.origin),
              "point": enc(case["point"]), "projection_gap": enc(view.tolerance.projection_gap),
              "max_iterations": int(max_iterations), "is_closed": bool(view.is_closed)}
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


@dataclasses.dataclass(frozen=True)
class _Decoded:
    """A claim's decoded inputs and value."""

    controls: np.ndarray
    origin: np.ndarray
    point: np.ndarray
    gap: float
    span: int
    nums: dict
    met: bool
    closed: Optional[bool]  # None: the claim does not say (the terminal-endpoint rules are skipped)

    def __iter__(self):
        """Unpacks as ``(controls, origin, point, gap, span, nums, met)`` (what
        ``oracles.explain`` reads)."""
        return iter((self.controls, self.origin, self.point, self.gap, self.span, self.nums, self.met))


def _inputs(claim: Claim) -> _Decoded:
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
    closed = inp.get("is_closed")
    if closed is not None and not isinstance(closed, bool):
        raise TypeError("is_closed must be a boolean")
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
    return _Decoded(controls, origin, point, gap, span, nums, val["is_gap_met"], closed)


def _domain_failures(d: _Decoded) -> dict:
    """What both rows demand of any result: an existing parameter that is a candidate of the
    spec's search, finite values, the budget."""
    n, span, nums = d.controls.shape[0], d.span, d.nums
    if not 0 <= span < n or not (math.isfinite(nums["u"]) and 0.0 <= nums["u"] <= 1.0):
        return {"parameter_outside_domain": {"span": span, "u": enc(nums["u"]), "span_count": n}}
    if not all(math.isfinite(nums[k]) for k in ("distance", "lower_bound", "gap")):
        return {"nonfinite_value": {k: enc(nums[k]) for k in ("distance", "lower_bound", "gap")}}
    if nums["iterations"] > nums["max_iterations"]:
        return {"iterations_exceed_budget": {"iterations": nums["iterations"],
                                             "max_iterations": nums["max_iterations"]}}
    if nums["u"] == 1.0 and (span < n - 1 or d.closed is True):
        # Span ends are never candidates; only an open path's terminal endpoint is (n - 1, 1).
        # A minimum at a joint is named by the outgoing span at u = 0 (the closing joint of a
        # closed path by (0, 0)).
        return {"span_end_is_not_a_candidate": {"span": span, "u": enc(nums["u"]), "span_count": n,
                                                "is_closed": d.closed}}
    return {}


def _gap_failures(d: _Decoded) -> dict:
    """``Distance - LowerBound <= Gap`` exactly (every result reports Gap as that bound)."""
    D, L, Gp = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["lower_bound"]), gmpy2.mpq(d.nums["gap"])
    if D - L > Gp:
        return {"gap_below_distance_minus_lower_bound": {"difference": enc(D - L), "gap": enc(Gp)}}
    return {}


def _exact_failures(d: _Decoded) -> dict:
    """The strict row's exact conditions; a nonempty dict names the first that fails."""
    bad = _domain_failures(d)
    if bad:
        return bad
    if not d.met:
        return {"is_gap_met": False}
    D, Gp, g = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["gap"]), gmpy2.mpq(d.gap)
    if Gp > g:
        return {"gap_exceeds_projection_gap": {"gap": enc(Gp), "projection_gap": enc(g)}}
    bad = _gap_failures(d)
    if bad:
        return bad
    f = exact_squared_distance(d.controls, d.origin, d.point, d.span, d.nums["u"])
    if D < 0 or D * D < f:
        return {"distance_below_exact_distance_at_parameter": {"distance_sq": enc(D * D),
                                                                "exact_distance_sq": enc(f)}}
    return {}


# --- The earliest rule -----------------------------------------------------------------------
# Spec: the span starts and an open path's terminal endpoint are candidates; any candidate within
# the gap of the global lower bound is acceptable; the result is the earliest by span, then
# parameter; symmetric minima return the earlier one; a minimum at a joint is named by the
# outgoing span at u = 0. What a checker can refute from a claim (docs/decisions.md "Projection:
# what the earliest rule lets a checker refute"): candidates that every conforming search has
# (span starts, the terminal endpoint), with their Distance bounded by the Rounded evaluation
# allowance ``evaluation_bound``, and exact mirror twins.

# Relative room for an implementation's upward-rounded ``Distance - LowerBound`` (two ulps and
# more): a candidate counts as certainly acceptable only with this much to spare.
_ROOM = gmpy2.mpq(1, 2**48)


def _fixed_candidates(d: _Decoded):
    """The candidates every conforming search has, ``(span, u, control row)``: the span starts,
    and the terminal endpoint when the claim says the path is open."""
    n = d.controls.shape[0]
    out = [(k, 0, 0) for k in range(n)]
    if d.closed is False:
        out.append((n - 1, 1, 3))
    return out


def _candidate_bound(claim: Claim, d: _Decoded, k: int, row: int):
    """``(f, R)``: the exact squared distance at the control point ``controls[k, row]`` and the
    Rounded allowance of an implementation's Distance there (the claim's model, or the
    project's :func:`evaluation_bound`)."""
    q = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(d.point, d.origin)]
    P = d.controls[k, row].astype(np.float64)
    f = sum((gmpy2.mpq(float(P[c])) - q[c]) ** 2 for c in range(3))
    dist = sqrt_up(f)  # exact (squares beyond float64 stay finite)
    R = resolve(claim, lambda u, eta: evaluation_bound(d.controls, d.origin, d.point, k, dist, u, eta),
                constant=EVAL_K).scalar()
    return f, R


def _certainly_below(f, bound) -> bool:
    """Whether ``sqrt(f) <= bound`` (exact; False for a nonpositive bound unless f is 0)."""
    return bound >= 0 and f <= bound * bound


def _mirror_twin(d: _Decoded):
    """An earlier span that is an exact mirror image of the claimed span in a coordinate plane
    through the chunk origin, with the query point on that plane: ``(k, c)`` or None. Then
    ``|B_k(1 - t) - q| = |B_span(t) - q|`` for every t, exactly."""
    u = d.nums["u"]
    if not u > 0.0:
        return None  # (span, 0)'s twin (k, 1) is not a candidate
    q = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(d.point, d.origin)]
    rev = d.controls[d.span][::-1]
    for c in range(3):
        if q[c] != 0:
            continue
        M = rev.copy()
        M[:, c] = -M[:, c]
        for k in range(d.span):
            if np.array_equal(d.controls[k], M):
                return k, c
    return None


def _earliest_failures(claim: Claim, d: _Decoded) -> dict:
    """A met gap: no candidate that every search has is certainly acceptable and earlier than the
    result, and the result is not the later of two exact mirror twins."""
    L, g, u = gmpy2.mpq(d.nums["lower_bound"]), gmpy2.mpq(d.gap), gmpy2.mpq(d.nums["u"])
    for k, cu, row in _fixed_candidates(d):
        if not (k < d.span or (k == d.span and cu < u)):
            continue
        f, R = _candidate_bound(claim, d, k, row)
        if _certainly_below(f, L + g * (1 - _ROOM) - R):
            return {"earlier_acceptable_candidate": {
                "span": k, "u": cu, "distance_sq": enc(f), "allowance": enc(R), "lower_bound": enc(L),
                "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    twin = _mirror_twin(d)
    if twin is not None:
        k, c = twin
        return {"mirror_twin_is_earlier": {"span": k, "u": enc(1 - u), "mirror_axis": c,
                                           "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    return {}


def _best_failures(claim: Claim, d: _Decoded) -> dict:
    """An unmet gap: the result is the earliest *best* candidate. No candidate every search has
    is certainly better (its Distance below the claimed one), and no exact mirror twin is
    earlier; a Gap that fits ProjectionGap means the search had met it."""
    D, Gp, g = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["gap"]), gmpy2.mpq(d.gap)
    if Gp <= g:
        return {"gap_met_but_reported_unmet": {"gap": enc(Gp), "projection_gap": enc(g)}}
    for k, cu, row in _fixed_candidates(d):
        f, R = _candidate_bound(claim, d, k, row)
        bound = D * (1 - _ROOM) - R
        if bound > 0 and f < bound * bound:
            return {"better_candidate": {"span": k, "u": cu, "distance_sq": enc(f), "allowance": enc(R),
                                         "distance": enc(D), "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    twin = _mirror_twin(d)
    if twin is not None:
        k, c = twin
        return {"mirror_twin_is_earlier": {"span": k, "u": enc(1 - gmpy2.mpq(d.nums["u"])), "mirror_axis": c,
                                           "result": {"span": d.span, "u": enc(d.nums["u"])}}}
    return {}


# --- The truth: two independent oracles ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Truth:
    """Both oracles' answer to ``LowerBound <= min``: ``holds`` (three-valued), the precision
    that decided, bounds ``lo_sq <= min f <= hi_sq`` (the tighter of the two), a witness for a
    refutation, and an OracleFault's enclosures when the two disagree."""

    holds: Optional[bool]
    prec: int
    lo_sq: object
    hi_sq: object
    witness: Optional[dict]
    fault: Optional[dict]
    splits: int


def _truth(d: _Decoded) -> _Truth:
    """Decide ``LowerBound <= min distance`` by exact real-root isolation (``interval.arb_projection``,
    the default: faster at equal rigour, docs/decisions.md "Projection: two oracles"), and
    cross-check its enclosure against the interval branch and bound (``interval.projection``):
    disjoint or empty enclosures, opposite decisions, or an oracle that raises on a well-formed
    claim are an oracle fault (the claim is not judged)."""
    lb = d.nums["lower_bound"]
    try:
        holds, a = arb_decide(d.controls, d.origin, d.point, lb, ARB_BUDGET)
    except _ORACLE_ERRORS as exc:
        return _Truth(None, ARB_BUDGET[0], None, None, None, {"arb_root_isolation": f"raised {exc!r}"[:300]}, 0)
    try:
        b = enclose_min_distance(d.controls, d.origin, d.point, BUDGET[0], target=d.gap / 16,
                                 max_splits=SPLITS[BUDGET[0]])
        bb = None
        if holds is None:  # the branch and bound decides what the balls could not (or reports)
            bb = refine(lambda prec: _bb_at(d, prec), BUDGET)
            holds, b = bb.holds, bb.enclosure
    except _ORACLE_ERRORS as exc:
        return _Truth(None, BUDGET[0], None, None, None, {"interval_branch_and_bound": f"raised {exc!r}"[:300]}, 0)
    A, B = (a.lower_sq, a.upper_sq), (b.lower_sq, b.upper_sq)
    fault = None
    if A[0] > A[1] or B[0] > B[1] or not enclosures_overlap(A, B):
        fault = {"arb_root_isolation": [enc(A[0]), enc(A[1])], "interval_branch_and_bound": [enc(B[0]), enc(B[1])]}
    elif bb is None and b.decided is not None and holds is not None and b.decided != holds:
        fault = {"arb_root_isolation": {"holds": holds}, "interval_branch_and_bound": {"holds": b.decided}}
    if fault is not None:
        return _Truth(None, a.prec, None, None, None, fault, b.splits)
    lo, hi = max(A[0], B[0]), min(A[1], B[1])
    witness = None
    if holds is False:  # a replayable curve point closer than LowerBound, float64 u preferred
        T2 = gmpy2.mpq(lb) ** 2
        (span, u), f = min(((a.witness64, a.upper64_sq), (a.witness, a.upper_sq), (b.witness, b.upper_sq)),
                           key=lambda w: (not w[1] < T2, not isinstance(w[0][1], float)))
        witness = {"span": span, "u": enc(u), "distance_sq_upper": enc(f)}
    return _Truth(holds, a.prec if bb is None else bb.prec, lo, hi, witness, None, b.splits)


# What an oracle may raise on a well-formed claim only if it is broken (inputs are validated
# before): an oracle fault, never a malformed claim.
_ORACLE_ERRORS = (ValueError, ArithmeticError, TypeError, IndexError, KeyError)


def _decide_lower_bound(controls, origin, point, gap, lb) -> Decision:
    """``LowerBound <= min distance`` by the interval branch and bound alone (113, then 256 bits),
    its enclosure a :class:`interval.projection.MinDistanceEnclosure`: the chain
    ``oracles.explain`` shows for a strict claim (the checkers use :func:`_truth`)."""

    def at(prec):
        e = enclose_min_distance(controls, origin, point, prec, threshold=max(lb, 0.0),
                                 target=gap / 16, max_splits=SPLITS[prec])
        return Decision(e.decided, prec, e)

    return refine(at, BUDGET)


def _bb_at(d: _Decoded, prec: int) -> Decision:
    e = enclose_min_distance(d.controls, d.origin, d.point, prec, threshold=max(d.nums["lower_bound"], 0.0),
                             target=d.gap / 16, max_splits=SPLITS[prec])
    return Decision(e.decided, prec, e)


def _enclosure(t: _Truth) -> list:
    return [enc(sqrt_down(t.lo_sq)), enc(sqrt_up(t.hi_sq))]


def _judge_strict(claim: Claim, d: _Decoded, **extra):
    bad = _exact_failures(d)
    if bad:
        return violated(claim, bad, note="an exact condition of the strict projection fails", **extra)
    bad = _earliest_failures(claim, d)
    if bad:
        return violated(claim, bad, note="the result is not the earliest acceptable candidate", **extra)
    t = _truth(d)
    if t.fault is not None:
        return oracle_fault(claim, t.fault, prec=t.prec)
    D, L, g = gmpy2.mpq(d.nums["distance"]), gmpy2.mpq(d.nums["lower_bound"]), gmpy2.mpq(d.gap)
    # (Distance - min) / gap, from the enclosure's lower end: an upper estimate.
    used = ratio(max(D - sqrt_down(t.lo_sq), 0), g)
    if t.holds is True:
        return verified(claim, measure="gap_used", measured=used, bound_use=used, prec=t.prec,
                        note="LowerBound <= min shown; Distance <= min + gap follows", splits=t.splits, **extra)
    if t.holds is False:
        over = 1.0 + ratio(max(L - sqrt_up(t.hi_sq), 0), g)
        return violated(claim, {"lower_bound_above_minimum": t.witness, "lower_bound": enc(d.nums["lower_bound"])},
                        bound_use=over, prec=t.prec, note="a curve point is closer than the claimed LowerBound",
                        **extra)
    return undecided(claim, _enclosure(t), bound_use=used, prec=t.prec,
                     note="LowerBound <= min not decided within the budget", **extra)


def check_strict(claim: Claim):
    """``projection.strict``: exact conditions, the earliest rule, then ``LowerBound <= min`` by two
    independent oracles."""
    return _judge_strict(claim, _inputs(claim))


# The rounding constant of the evaluation bound (the project's blossom constant,
# reference.error_model.K): a declared model's ``k`` scales the bound by k / 16.
EVAL_K = 16


def evaluation_bound(controls, origin, point, span: int, distance, u: float, eta: float) -> gmpy2.mpq:
    """The Rounded error allowed between a returned ``Distance`` and the exact distance at the
    returned parameter, at unit roundoff ``u`` and subnormal step ``eta`` (exact mpq):

    ``R = sum_c (2 e_c + 6 u |q_c|) + 8 u |Distance| + 16 eta`` with ``e_c = 16 u E_c + 16 eta``,
    ``E_c`` the span's largest control magnitude in component c and ``q = point - origin``.

    Why, for the outward-rounded distance this project computes (each directed operation is a
    rounded one moved one float outward: within ``3 u`` relative), which bounds a
    round-to-nearest one too: the curve point is within ``9 u E_c`` of the truth (the blossom's
    three levels of ``(1 - t) a + t b``) and its box is widened by ``e_c`` once more; the query
    point's box ``[fl_down(p - o), fl_up(p - o)]`` reaches ``3 u |q_c|`` from the truth, and the
    far-side difference rounds once more (``3 u (|q_c| + E_c)``): per component within
    ``2 e_c + 6 u |q_c|``, and the 1-norm of those bounds the 2-norm's change. The norm itself
    (three squares and two sums rounded up, a square root of input within ``9 u`` relative,
    rounded up) is within ``7.5 u`` relative, so ``8 u |Distance|``. (Until 2026-12-02 this read
    ``4 u |q_c|`` and ``4 u |Distance|``, too small for a query point far from the path: the 1e6-claim
    soak run found a correct result at 1.03 of that bound; see docs/decisions.md.)
    """
    P = [[gmpy2.mpq(float(x)) for x in row] for row in controls[span]]
    qe = [gmpy2.mpq(float(p)) - gmpy2.mpq(float(o)) for p, o in zip(point, origin)]
    uq, eq = gmpy2.mpq(u), gmpy2.mpq(eta)
    total = gmpy2.mpq(0)
    for c in range(3):
        E = max(abs(P[r][c]) for r in range(4))
        e = EVAL_K * uq * E + 16 * eq
        total += 2 * e + 6 * uq * abs(qe[c])
    return total + 8 * uq * abs(gmpy2.mpq(distance)) + 16 * eq


def check_approximate(claim: Claim):
    """``projection.approximate``: what an Approximate result still promises (module docstring):
    a met gap passes every strict check; otherwise the distance is the Rounded distance at the
    returned parameter, Gap covers Distance - LowerBound and exceeds ProjectionGap, no candidate
    every search has is certainly better, and the lower bound does not exceed the true minimum."""
    d = _inputs(claim)
    rg = claim.value["result_guarantee"]
    if rg not in ("Certified", "Approximate"):
        raise ValueError(f"result_guarantee {rg!r} is neither Certified nor Approximate")
    gap_met = {"gap_met": int(d.met)}
    bad = _domain_failures(d)
    if bad:
        return violated(claim, bad, note="the approximate result names no valid parameter or value", **gap_met)
    if (rg == "Certified") != d.met:
        return violated(claim, {"result_guarantee": rg, "is_gap_met": d.met},
                        note="IsGapMet false must come with Guarantee Approximate, true with Certified", **gap_met)
    if d.met:
        return _judge_strict(claim, d, **gap_met)
    D = gmpy2.mpq(d.nums["distance"])
    resolved = resolve(claim, lambda u, eta: evaluation_bound(d.controls, d.origin, d.point, d.span,
                                                              d.nums["distance"], u, eta), constant=EVAL_K)
    R = resolved.scalar()
    extra = {**gap_met, **resolved.extra()}
    f = exact_squared_distance(d.controls, d.origin, d.point, d.span, d.nums["u"])
    err = max(D - sqrt_down(f), sqrt_up(f) - D, 0)  # |Distance - exact distance|, rounded up
    use = ratio(err, R)
    hi, lo = D + R, D - R
    if hi < 0 or hi * hi < f or (lo > 0 and lo * lo > f):
        return violated(claim, {"distance_not_at_parameter": {"distance": enc(D), "exact_distance_sq": enc(f),
                                                             "bound": enc(R)}}, bound_use=use,
                        note="Distance differs from the exact distance at the returned parameter by more "
                             "than the evaluation's Rounded error", **extra)
    bad = _gap_failures(d) or _best_failures(claim, d)
    if bad:
        return violated(claim, bad, bound_use=use, note="the approximate result is not the earliest best "
                        "candidate, or its Gap does not fit what it reports", **extra)
    t = _truth(d)
    if t.fault is not None:
        return oracle_fault(claim, t.fault, prec=t.prec)
    if t.holds is False:
        return violated(claim, {"lower_bound_above_minimum": t.witness, "lower_bound": enc(d.nums["lower_bound"])},
                        bound_use=use, prec=t.prec, note="a curve point is closer than the claimed LowerBound",
                        **extra)
    if t.holds is None:
        return undecided(claim, _enclosure(t), bound_use=use, prec=t.prec,
                         note="LowerBound <= min not decided within the budget", **extra)
    # (exact distance at Parameter - min) / gap: an upper estimate, for the report only.
    true_gap = ratio(max(sqrt_up(f) - sqrt_down(t.lo_sq), 0), gmpy2.mpq(d.gap))
    return verified(claim, measure="true_gap_ratio", measured=true_gap, bound_use=use, prec=t.prec,
                    note="Approximate: distance at the parameter and LowerBound <= min shown", **extra)


# --- Contracts -------------------------------------------------------------------------------


_INPUTS = S.obj(required={
    "controls": S.matrix(S.f32(), [None, 4, 3]),
    "origin": S.vec(S.f64(), 3),
    "point": S.vec(S.f64(), 3),
    "projection_gap": S.f64(positive=True),
    "max_iterations": S.integer(minimum=0),
}, optional={
    "is_closed": S.boolean(),  # absent: the terminal-endpoint rules are not checked
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


# The two oracles of the minimum distance ("Projection: two oracles").
_MIN_ORACLES = ("real-root isolation of d/du |B(u) - q|^2 (python-flint fmpq_poly, Arb balls)",
                "interval branch and bound over Bernstein ranges (mpmath iv)")

CONTRACTS = {
    "projection.strict": RowContract(
        checks=("Certified strict projection: 0 <= span < n, 0 <= u <= 1 with u = 1 only at an open path's "
                "terminal endpoint (span n - 1), Iterations <= MaxIterations, IsGapMet, Gap <= ProjectionGap "
                "and Distance - LowerBound <= Gap exactly, Distance^2 >= |q - B_span(u)|^2 in exact "
                "rationals (q = point - origin); the earliest rule: no span start (k, 0) before (span, u) "
                "with |q - P_k0| + R_k <= LowerBound + ProjectionGap (1 - 2^-48) (R_k the evaluation "
                "allowance of the approximate row), and no exact mirror twin (an earlier span equal to this "
                "one reversed and reflected in a coordinate plane through the origin that holds q) unless "
                "u = 0; and LowerBound <= min_u |q - B(u)| shown by exact real-root isolation of "
                "d/du |B(u) - q|^2 (python-flint Arb, 128/256/1024 bits), cross-checked by an interval "
                "branch and bound over Bernstein ranges (113 then 256 bits): disjoint enclosures are an "
                "oracle fault."),
        inputs=_INPUTS,
        value=S.obj(required=_RESULT),
        plant=plant_strict,
        oracles=_MIN_ORACLES,
    ),
    "projection.approximate": RowContract(
        checks=("Approximate projection: the parameter exists (u = 1 only at an open path's terminal endpoint) "
                "and Iterations <= MaxIterations; Guarantee is Approximate iff IsGapMet is false; with IsGapMet "
                "true every strict check applies; otherwise |Distance - |q - B_span(u)|| <= R with "
                "R = sum_c (2 e_c + 6u|q_c|) + 8u|Distance| + 16 eta, e_c = 16u E_c + 16 eta (E_c the span's "
                "largest control magnitude; u = 2^-53 unless a model is declared), Distance - LowerBound <= "
                "Gap, Gap > ProjectionGap, the earliest best candidate: no span start (nor, on an open path, "
                "the terminal endpoint) with |q - P| + R_k < Distance (1 - 2^-48) and no earlier exact "
                "mirror twin, and LowerBound <= the true minimum (the strict row's two oracles)."),
        inputs=_INPUTS,
        value=S.obj(required={**_RESULT, "result_guarantee": S.enum(["Certified", "Approximate"])}),
        plant=plant_approximate,
        oracles=_MIN_ORACLES,
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
