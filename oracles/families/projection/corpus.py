"""The projection corpus as case dicts: the named cases, the adversarial shapes, then random
chains.

Deterministic in the seed. The first cases are named: the spec's example, points on the curve,
at and near a cusp, equidistant from two mirrored spans (ties), outside a corner joint, far
away, near and far from a large chunk origin, the centre of a closed near-circle, a degenerate
(point) span, and a budget too small to meet the gap. Then adversarial shapes
(``_adversarial``, issue 17): straight and nearly straight spans far from the origin and
cancelling straight lines through the origin with points on them at non-dyadic u, far points
whose origin subtraction is inexact right at a span start, acceptable-but-not-best joints,
reversals inside a span, points equidistant from several spans, exact mirror ties with
fractional origins, a ProjectionGap equal to a reached gap, a search stopped by float64
resolution, a terminal endpoint out of budget, a power-of-two joint. The rest are random chains
of 1 to 8 spans at scales 1e-2 to 1e3 around centres up to 1e5, with points near the curve,
inside its box or far away, and gaps from 1e-7 to 1e-2 of the scale.

A case is ``{"kind": "projection", "name", "source" (n, 4, 3), "origin", "closed", "point",
"gap", "position_error", "max_iterations", "approx_iterations"}``. Inputs only: the two gap-tie
cases take their ProjectionGap from our fast path's own BudgetExceeded diagnostic (an input
choice); what a request demands is decided in ``requests.py`` without the fast path.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from reference import kernel as K
from reference.context import F64
from reference.fp import ulp32
from reference.path import (PathPreparation, PathSource, spans_from_arrays, try_convert_centripetal_catmull_rom,
                            try_prepare_path)
from reference.query import (ProjectionQuery, ProjectionResult, ProjectionScratch, compute_projection_scratch_capacity,
                             try_project_point)

from ..path import LIMITS, tolerance

__all__ = ["case_tolerance", "corpus_cases", "make_case", "named_cases", "path_view"]

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


def case_tolerance(case):
    """The case's ToleranceProfile: the path family's, with the case's ProjectionGap."""
    return dataclasses.replace(tolerance(case["position_error"]), projection_gap=case["gap"])


def path_view(case):
    """Prepare a case's path with our fast path; the view, or None when preparation fails."""
    tol = case_tolerance(case)
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
    except Exception:
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


def named_cases(seed: int) -> list:
    """The named and adversarial cases (they come first in the corpus)."""
    rng = np.random.default_rng([seed, 6])
    return _named(rng) + _adversarial(rng)


def corpus_cases(seed: int, n: int) -> list:
    """``n`` cases: the named ones first, then random ones. Deterministic in ``seed``."""
    rng = np.random.default_rng([seed, 6])
    cases = (_named(rng) + _adversarial(rng))[:n]
    i = 0
    while len(cases) < n:
        cases.append(_random_case(rng, i))
        i += 1
    return cases
