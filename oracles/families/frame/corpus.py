"""The frame corpus: named cases, adversarial cases, near-threshold cases and random chains.

Deterministic in the seed. The first cases are named: a planar S-curve (the true RMF normal is
the plane normal, exactly), a helix approximated by cubics, a quarter circle seeded parallel to
its first tangent (UseFallbackAxis), an interior cusp and a reversal (SplitRuns), a zero-speed
ease endpoint with a stationary span, a 90-degree joint under RotateMinimally and under
SplitRuns, a closed planar loop (PreserveHolonomy: no holonomy), closed non-planar loops with
holonomy (PreserveHolonomy, and DistributeTwist with one winding turn), a path far from the
origin, then the adversarial cases of issue 17 (:func:`_generate_specials`), the twist and range
cases of issue 23 items 1 and 2, and last the near-threshold cases of issue 23 item 4
(:func:`_near_threshold_specials`: MinimumSpeed at the fast path's own turning point, found by
bisection on its build, so that a regular interval's box clears it by one ulp and the exact
speed by about ten; only these cases' *inputs* are tuned with the fast path, never an expected
status). The rest are random chains of 1 to 3 smooth-ish spans with random policies.

A case is a dict: ``source`` (n, 4, 3) float64 controls, ``closed``, ``origin``, the tolerances
(``tae``, ``ms``, ``distance_error``, ``position_error``), the frame settings (``seed_up``,
``seed_policy``, ``fallback``, ``sing``, ``corner``, ``closed_policy``, ``winding``,
``max_depth``), the evaluation draws (``queries``, ``query_seed``), ``singular``: parameters
``(span, u)`` the case is built around where the speed is at most MinimumSpeed (a cusp, a
reversal, a stopped or stationary span; known by construction, checked exactly by the requests),
and ``expect``: the status its build must end with (``"ok"``, or ``DegenerateFrame`` for the Reject
policies and RejectDegenerateSeed; docs/decisions.md "Frames and sweeps: named corpus cases state
their outcome"), None for random cases.
"""

from __future__ import annotations

import dataclasses
import math

import gmpy2
import numpy as np

from reference.distance import DistancePreparation, try_build_distance_map
from reference.frame import ClosedFramePolicy, FrameCornerPolicy, FramePreparation, FrameSeedPolicy, \
    FrameSingularityPolicy, try_build_frames
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import ToleranceProfile, WorkLimits

__all__ = [
    "FRAME_LIMITS",
    "LIMITS",
    "NAMED",
    "CorpusExpectation",
    "build",
    "corpus_cases",
    "frame_limits",
    "named_case",
    "quarter",
    "random_case",
    "tolerance",
]

_mpq = gmpy2.mpq

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=48, max_subdivisions=1 << 16,
                    max_prepared_bytes=1 << 26, max_samples=1 << 12)
FRAME_LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=24, max_subdivisions=1 << 14,
                          max_prepared_bytes=1 << 24, max_samples=1 << 12)


def tolerance(tangent_angle_error: float, minimum_speed: float, distance_error: float,
              position_error: float, continuity_angle: float = 1e-3) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
        continuity_position=position_error, continuity_angle=continuity_angle, continuity_derivative=1e-3,
        continuity_second_derivative=1e-3, distance_error=distance_error, projection_gap=1e-3,
        tangent_angle_error=tangent_angle_error, minimum_speed=minimum_speed, minimum_sin_angle=1e-3,
        normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


_SEED, _SING, _CORNER, _CLOSED = FrameSeedPolicy, FrameSingularityPolicy, FrameCornerPolicy, ClosedFramePolicy
_KAPPA = 0.5522847498307936  # 4/3 (sqrt 2 - 1): the cubic quarter-circle handle


def _case(name, src, *, closed=False, origin=(0.0, 0.0, 0.0), tae=1e-6, ms=1e-9, seed_up=(0.0, 0.0, 1.0),
          seed_policy=_SEED.UseFallbackAxis, fallback=(1.0, 0.0, 0.0), sing=_SING.SplitRuns,
          corner=_CORNER.RotateMinimally, closed_policy=_CLOSED.PreserveHolonomy, winding=0, queries=4,
          query_seed=0, max_depth=None, expect=None, distance_error=None, singular=()):
    src = np.asarray(src, dtype=np.float64)
    L = float(np.sum(np.linalg.norm(np.diff(src, axis=1), axis=2)))
    E = float(np.max(np.abs(src - np.asarray(origin, dtype=np.float64))))
    return {"name": name, "source": src, "closed": bool(closed), "origin": tuple(map(float, origin)),
            "tae": float(tae), "ms": float(ms),
            "distance_error": max(1e-3 * L, 1e-9) if distance_error is None else float(distance_error),
            "position_error": max(1e-5 * E, 1e-20), "seed_up": tuple(map(float, seed_up)),
            "seed_policy": seed_policy, "fallback": tuple(map(float, fallback)), "sing": sing,
            "corner": corner, "closed_policy": closed_policy, "winding": int(winding), "queries": int(queries),
            "query_seed": int(query_seed), "max_depth": FRAME_LIMITS.max_depth if max_depth is None else int(max_depth),
            "expect": expect, "singular": [(int(k), float(u)) for k, u in singular]}


def _quarter(center, r, a0, z0=0.0, dz=0.0):
    """A cubic quarter circle of radius r from angle a0 (radians), rising dz."""
    c = np.asarray(center, dtype=np.float64)
    p0 = np.array([math.cos(a0), math.sin(a0), 0.0])
    p1 = np.array([math.cos(a0 + math.pi / 2), math.sin(a0 + math.pi / 2), 0.0])
    t0 = np.array([-math.sin(a0), math.cos(a0), 0.0])
    t1 = np.array([-math.sin(a0 + math.pi / 2), math.cos(a0 + math.pi / 2), 0.0])
    pts = np.stack([p0, p0 + _KAPPA * t0, p1 - _KAPPA * t1, p1]) * r + c
    pts[:, 2] += z0 + dz * np.array([0.0, 1 / 3, 2 / 3, 1.0])
    return pts


def _s_curve(rng):
    src = [[[0, 0, 0], [1, 1, 0], [2, -1, 0], [3, 0, 0]], [[3, 0, 0], [4, 1, 0], [5, 1.5, 0], [6, 0.5, 0]]]
    return _case("planar S-curve", src, seed_up=(0.0, 0.0, 1.0), tae=1e-8, queries=6)


def _helix(rng):
    src = [_quarter((0, 0, 0), 1.0, k * math.pi / 2, z0=0.4 * k, dz=0.4) for k in range(3)]
    return _case("helix by cubics", src, seed_up=(0.0, 0.0, 1.0), tae=1e-6, queries=6)


def _fallback(rng):
    src = [_quarter((0, 0, 0), 2.0, 0.0)]
    return _case("quarter circle, seed parallel to the first tangent", src, seed_up=(0.0, 3.0, 0.0),
                 seed_policy=_SEED.UseFallbackAxis, fallback=(0.0, 0.0, 1.0))


def _cusp(rng):
    src = [[[-1, 0, 0], [1, 1, 0.5], [-1, 1, 0.5], [1, 0, 0]]]
    return _case("interior cusp", src, sing=_SING.SplitRuns, seed_up=(0.0, 0.0, 1.0), singular=[(0, 0.5)])


def _reversal(rng):
    src = [[[0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0]]]
    return _case("reversal", src, sing=_SING.SplitRuns, seed_up=(0.0, 0.0, 1.0), singular=[(0, 0.5)])


def _ease_stationary(rng):
    a = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 0], [2, 1, 0.5]], dtype=np.float64)  # zero speed at u = 0
    b = np.repeat(a[3:4], 4, axis=0)  # stationary
    c = np.array([a[3], a[3] + [1, 0, 0], a[3] + [2, 1, 0], a[3] + [3, 1, 1]])
    return _case("zero-speed ease and stationary span", [a, b, c], sing=_SING.SplitRuns,
                 singular=[(0, 0.0), (1, 0.0), (1, 0.5)])


def _corner(rng, policy, name):
    src = [[[0, 0, 0], [1, 0, 0.2], [2, 0, 0.3], [3, 0, 0]], [[3, 0, 0], [3, 1, 0.3], [3.2, 2, 0], [3, 3, 0.5]]]
    return _case(name, src, corner=policy, seed_up=(0.0, 0.0, 1.0), queries=5)


def _planar_loop(rng):
    src = [_quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]
    return _case("closed planar loop", src, closed=True, closed_policy=_CLOSED.PreserveHolonomy,
                 seed_up=(0.0, 0.0, 1.0), tae=1e-7)


def _kinked_loop(corner, name, expect=None):
    def make(rng):
        # The planar loop with its first handle tilted out of the plane (26.6 degrees): the
        # closing joint is the only corner, so one run spans the path and only the corner policy
        # decides whether it closes (RotateMinimally: a loop; SplitRuns: none; Reject: fails).
        src = [_quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]
        src[0][1] = src[0][0] + 1.5 * _KAPPA * np.array([0.0, 1.0, 0.5])
        return _case(name, src, closed=True, corner=corner, closed_policy=_CLOSED.DistributeTwist,
                     seed_up=(0.0, 0.0, 1.0), tae=1e-6, expect=expect)
    return make


def _holonomy_loop(closed_policy, winding, name):
    def make(rng):
        # Three rising quarter turns and one falling one: a chiral loop with holonomy (a
        # mirror-symmetric loop has none); its closing and last joints are corners.
        src = [_quarter((0, 0, 0), 1.0, k * math.pi / 2, z0=0.4 * k, dz=0.4) for k in range(3)]
        src.append(_quarter((0, 0, 0), 1.0, 1.5 * math.pi, z0=1.2, dz=-1.2))
        return _case(name, src, closed=True, closed_policy=closed_policy, winding=winding,
                     seed_up=(0.0, 0.0, 1.0), tae=1e-6)
    return make


def _far(rng):
    base = np.array([1e5 + 0.25, -2e5, 3e4])
    src = [_quarter(base, 5.0, 0.0, dz=1.0), _quarter(base, 5.0, math.pi / 2, z0=1.0, dz=1.0)]
    return _case("far from the origin", src, origin=tuple(np.round(base)), tae=1e-5)


def _random_case(rng, name="random"):
    n = int(rng.integers(1, 4))
    size = float(10.0 ** rng.uniform(-1, 1))
    pts = np.empty((n, 4, 3))
    p0 = rng.normal(size=3) * size
    d = rng.normal(size=3)
    for i in range(n):
        d1 = d + rng.normal(size=3) * 0.6
        d2 = d1 + rng.normal(size=3) * 0.6
        pts[i, 0] = p0
        pts[i, 1] = p0 + d * size / 3
        pts[i, 2] = pts[i, 1] + d1 * size / 3
        pts[i, 3] = pts[i, 2] + d2 * size / 3
        p0, d = pts[i, 3], d2  # G1 (C1) joints: the next span leaves along the last leg
    corner = [_CORNER.RotateMinimally, _CORNER.SplitRuns][int(rng.integers(0, 2))]
    seed = rng.normal(size=3)
    return _case(name, pts, tae=float(10.0 ** rng.uniform(-7, -4)), seed_up=tuple(seed), corner=corner,
                 query_seed=int(rng.integers(0, 1 << 30)), expect=None)


# --- Adversarial cases: each makes one class of fast-path mistake visible to a checker --------


def _double_zero(rng):
    # B'(u) = 27 (u - 1/3)^2 (1, 1/2, 1/4): a straight span that stops at the non-dyadic u = 1/3
    # and goes on (no interval end hits the zero), with MinimumSpeed 0: a box straddling zero
    # is not "farther than 0 from zero", and the oracle refutes a regular claim at the rational
    # witness 1/3 (max_depth 12 keeps the unresolved zone around the double zero small).
    v = np.array([1.0, 0.5, 0.25])
    src = [[0 * v, 1 * v, -1 * v, 3 * v], [3 * v, 4 * v, 5 * v + [0, 1, 0], 6 * v + [1, 1, 0]]]
    return _case("straight span with a double zero of the speed at u = 1/3, MinimumSpeed 0", src, ms=0.0,
                 sing=_SING.SplitRuns, corner=_CORNER.SplitRuns, max_depth=12, queries=6, singular=[(0, 1 / 3)])


def _far_straight_at_speed(rng):
    # A fast span, then a straight uniform span far from the origin whose speed |3 D| is exactly
    # at MinimumSpeed (the float64 at or just above it): never regular, a depth-limited range per
    # 2^-12 interval of the span, 4,096 of them (max_depth 12: deeper, its boxes' widening grows
    # like 2^d and the build runs out of budget).
    X = np.array([98304.25, -65536.5, 32768.125])
    D = np.array([0.375, -0.25, 0.125])
    first = np.array([X - [30.0, 20.0, -10.0], X - [20.0, 10.0, -10.0], X - [10.0, 5.0, 0.0], X])
    second = np.array([X + i * D for i in range(4)])
    S = math.sqrt(float(np.sum((3 * D) ** 2)))
    ms = S if gmpy2.mpq(S) ** 2 >= gmpy2.mpq(float(np.sum((3 * D) ** 2))) else math.nextafter(S, math.inf)
    return _case("straight span far from the origin at exactly MinimumSpeed", [first, second], ms=ms,
                 sing=_SING.SplitRuns, corner=_CORNER.SplitRuns, max_depth=12, tae=1e-6,
                 singular=[(1, 0.0), (1, 0.25), (1, 0.5)])


def _seed_case(name, seed_up, fallback=(1.0, 0.0, 0.0), policy=_SEED.UseFallbackAxis, expect="ok"):
    def make(rng):
        src = [_quarter((0, 0, 0), 1.0, 0.0, dz=0.4), _quarter((0, 0, 0), 1.0, math.pi / 2, z0=0.4, dz=0.4)]
        return _case(name, src, seed_up=seed_up, fallback=fallback, seed_policy=policy, expect=expect)
    return make


# The first tangent of the rising quarter turn above: B'(0) = (0, 3 k, 0.4) (k the handle).
_T0 = np.array([0.0, 3 * _KAPPA, 0.4]) / math.hypot(3 * _KAPPA, 0.4)
_P0 = np.array([1.0, 0.0, 0.0])  # perpendicular to _T0


def _generate_specials():
    return [
        _s_curve, _helix, _fallback, _cusp, _reversal, _ease_stationary,
        lambda r: _corner(r, _CORNER.RotateMinimally, "90-degree joint, RotateMinimally"),
        lambda r: _corner(r, _CORNER.SplitRuns, "90-degree joint, SplitRuns"),
        _planar_loop,
        _holonomy_loop(_CLOSED.PreserveHolonomy, 0, "closed loop with holonomy, PreserveHolonomy"),
        _holonomy_loop(_CLOSED.DistributeTwist, 1, "closed loop with holonomy, DistributeTwist"),
        _far,
        _double_zero,
        _far_straight_at_speed,
        # SeedUp's sine is |p| / |SeedUp|: a short and a long SeedUp see through a missing norm.
        _seed_case("SeedUp 1e-4 long at sine 0.87", tuple(1e-4 * (0.5 * _T0 + 0.8660254 * _P0))),
        _seed_case("SeedUp 1e4 long at sine 1e-5 (fallback)", tuple(1e4 * (_T0 + 1e-5 * _P0)),
                   fallback=(0.0, 0.0, 1.0)),
        # Just above MinimumSinAngle: one projection leaves t . n near u / sine = 500 u.
        _seed_case("SeedUp at sine 2e-3", tuple(_T0 + 2e-3 * _P0)),
        _seed_case("RejectDegenerateSeed, SeedUp along the tangent", tuple(3.0 * _T0),
                   policy=_SEED.RejectDegenerateSeed, expect="DegenerateFrame"),
        lambda r: {**_cusp(r), "name": "interior cusp, Reject", "sing": _SING.Reject, "expect": "DegenerateFrame"},
        lambda r: {**_corner(r, _CORNER.Reject, "90-degree joint, Reject"), "expect": "DegenerateFrame"},
        lambda r: {**_helix(r), "name": "helix by cubics, SplitRuns (G1 joints are crossed)",
                   "corner": _CORNER.SplitRuns},
        _hairpin,
        _twisted_loop,
    ]


def _hairpin(rng):
    # A long straight run into a tight U-turn and back: curvature from 0 to about 50.
    src = [[[0, 0, 0], [4, 0, 0], [8, 0, 0], [10, 0, 0]],
           [[10, 0, 0], [10.3, 0, 0], [10.3, 0.2, 0.05], [10, 0.2, 0.05]],
           [[10, 0.2, 0.05], [8, 0.2, 0.05], [4, 0.2, 0.05], [0, 0.2, 0.05]]]
    return _case("hairpin", src, seed_up=(0.0, 0.0, 1.0), tae=1e-5, queries=8)


def _twisted_loop(rng):
    # DistributeTwist with two winding turns and a tight DistanceError: the evaluated frames'
    # twist (in proportion to distance, plus the roll) is checked against the true RMF.
    src = [_quarter((0, 0, 0), 1.0, k * math.pi / 2, z0=0.4 * k, dz=0.4) for k in range(3)]
    src.append(_quarter((0, 0, 0), 1.0, 1.5 * math.pi, z0=1.2, dz=-1.2))
    return _case("closed loop, DistributeTwist with 2 winding turns", src, closed=True,
                 closed_policy=_CLOSED.DistributeTwist, winding=2, seed_up=(0.0, 0.0, 1.0), tae=1e-6,
                 queries=10, query_seed=7, distance_error=1e-7)


def _uneven_loop(rng):
    # A closed loop whose speed varies about 120-fold inside every span (handles 0.005 and 0.6 of
    # the chord): DistributeTwist with one winding turn and DistanceError 1e-7, so a twist
    # interpolated linearly in u between samples (not in proportion to distance, the spec's rule)
    # misses the true frame by far more than the frames' own estimate, and so does one whose
    # share of the arc length between samples is not converged: near u = 0 the speed's nearest
    # complex zero is about 0.005 away, so one 8-point Gauss-Legendre piece over a sample interval
    # is off by percents (planted fault frame.arc_fraction_unconverged: 3.6 times the allowance;
    # 1.15 with handle 0.01 once samples start at depth 2 (MIN_DEPTH), 14 at depth 1; with handle
    # 0.15 it passed unnoticed).
    n = 4
    th = np.linspace(0.0, 2 * math.pi, n + 1)
    p = np.stack([2 * np.cos(th), np.sin(th), 0.6 * np.sin(2 * th)], axis=1)
    t = np.stack([-2 * np.sin(th), np.cos(th), 1.2 * np.cos(2 * th)], axis=1)
    t /= np.linalg.norm(t, axis=1)[:, None]
    src = []
    for i in range(n):
        chord = float(np.linalg.norm(p[i + 1] - p[i]))
        src.append([p[i], p[i] + 0.005 * chord * t[i], p[i + 1] - 0.6 * chord * t[i + 1], p[i + 1]])
    src[-1][3] = src[0][0]
    return _case("closed loop with uneven speed, DistributeTwist, DistanceError 1e-7", src, closed=True,
                 closed_policy=_CLOSED.DistributeTwist, winding=1, seed_up=(0.0, 0.0, 1.0), tae=1e-6,
                 queries=10, query_seed=3, distance_error=1e-7)


def _cusp_third(rng):
    # B'(u) = 18 (u - 1/3) ((1, 0, 0) + u (0, 1, 1)): a simple cusp at the non-dyadic u = 1/3
    # (exact float32 controls). Its range must be one interval 2^-MaxDepth wide holding 1/3.
    src = [[[0, 0, 0], [-2, 0, 0], [-1, -1, -1], [3, 3, 3]]]
    return _case("cusp at u = 1/3, SplitRuns", src, sing=_SING.SplitRuns, queries=4, query_seed=11,
                 singular=[(0, 1 / 3)])


# A two-span chain from the sweep corpus's random generator (seed 2761, found by the thorough
# differential run on 2026-12-07): each half of its second span is nearly symmetric about its own
# midpoint, so one reflection step and two half steps err alike over [0, 1/2] (a difference of
# 1.9e-7 against a true error of 7.7e-6). With acceptance from depth 1 the frames' estimate is
# 10 times below their true error; from depth 2 (MIN_DEPTH) the calibration is 0.3
# (docs/decisions.md "Frames: the share-of-path rule, MIN_DEPTH and the limits").
_FOOLED_HALVES = [
    [["0x1.03c1c992db119p-2", "0x1.04a55abfec768p-2", "-0x1.c09ecd0996375p-2"],
     ["0x1.31dfcc182b08ep-2", "0x1.01a2b2379933bp-2", "-0x1.90723dce5577bp-2"],
     ["0x1.fe25c0a752c99p-3", "0x1.0d73b52d670e8p-2", "-0x1.920f9b6f33f69p-2"],
     ["0x1.aaea94c7ccdbep-3", "0x1.2748e08c72bc9p-2", "-0x1.80e5c602e3cacp-2"]],
    [["0x1.aaea94c7ccdbep-3", "0x1.2748e08c72bc9p-2", "-0x1.80e5c602e3cacp-2"],
     ["0x1.57af68e846ee3p-3", "0x1.411e0beb7e6aap-2", "-0x1.6fbbf096939eep-2"],
     ["0x1.f14d9a37bca58p-4", "0x1.8438efa35e6c1p-2", "-0x1.897c8066310e2p-2"],
     ["0x1.4892818186cc8p-4", "0x1.a4e8c8db61de6p-2", "-0x1.cd9e9b1972b1cp-2"]]]
_FOOLED_SEED_UP = (-0.0401839142125915, 0.5628540334037062, 1.0765174492502545)


def _fooled_halves(rng):
    src = [[[float.fromhex(x) for x in p] for p in span] for span in _FOOLED_HALVES]
    return _case("chain whose span halves fool the one-versus-two-step comparison", src,
                 seed_up=_FOOLED_SEED_UP, closed_policy=_CLOSED.DistributeTwist, queries=6, query_seed=5)


def _sharp_planar_turn(rng):
    """A planar span turning by nearly 180 degrees around u = 1/3 (speed 0.0033 there), found by
    the thorough differential run (seed 20261208): every step difference is 0, so the estimate is
    0 and the rounding allowance alone bounds the frames; the evaluation at u = 0.382 steps from
    u = 1/4 across the turn on a chord 1/45 of the controls' size (docs/decisions.md "Frames: the
    rounding allowance of a step whose chord is short")."""
    src = [[[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.01, 0.0]]]
    return _case("planar span turning sharply: an evaluation steps across the turn on a short chord", src,
                 origin=(0.0, 0.0, 1.0), tae=1e-4, seed_up=(2.0, 0.0, 2.0), fallback=(0.3, -0.4, 0.85),
                 sing=_SING.Reject, corner=_CORNER.Reject, closed_policy=_CLOSED.DistributeTwist, queries=3,
                 query_seed=0, max_depth=24)


def _cusp_deep(rng):
    """The interior cusp at MaxDepth 30: its first run ends 2^-31 before the cusp, where the speed
    is 2^-30 of the controls' and the tangent is the limit of B'/|B'| (a cubic's cusp is planar, so
    the true frame keeps the plane's normal); the oracle integrates the true frame to there by
    steering on the speed's exact zeros (``interval.frame._speed_zeros``)."""
    return {**_cusp(rng), "name": "interior cusp, MaxDepth 30: a run ends 2^-31 before the cusp", "max_depth": 30}


def _closed_loop_specials():
    """The closed-loop rule (frame:closed_loop, 2026-12-06): a G1 closing joint closes the loop
    under any corner policy; a corner closes it only under RotateMinimally. Then the chain whose
    span halves fool the step comparison (MIN_DEPTH, 2026-12-07), the planar span whose
    evaluation steps across a sharp turn (the chord, 2026-12-07) and the interior cusp at
    MaxDepth 30 (the oracle's exact zeros, 2026-12-07)."""
    return [
        lambda r: {**_uneven_loop(r), "name": "closed loop with uneven speed, SplitRuns (its G1 closing joint is "
                                              "crossed)", "corner": _CORNER.SplitRuns},
        lambda r: {**_planar_loop(r), "name": "closed planar loop, Reject (its G1 closing joint is crossed)",
                   "corner": _CORNER.Reject},
        _kinked_loop(_CORNER.RotateMinimally, "loop with a corner at its closing joint, RotateMinimally"),
        _kinked_loop(_CORNER.SplitRuns, "loop with a corner at its closing joint, SplitRuns (not a closed loop)"),
        _kinked_loop(_CORNER.Reject, "loop with a corner at its closing joint, Reject", expect="DegenerateFrame"),
        _fooled_halves,
        _sharp_planar_turn,
        _cusp_deep,
    ]


def _twist_and_range_specials():
    """Named cases of issue 23 (items 1 and 2): the twist in proportion to distance on a loop of
    uneven speed, and a depth-limited range at a non-dyadic cusp."""
    return [_uneven_loop, _cusp_third]


# --- Near-threshold regularity cases (issue 23 item 4) ----------------------------------------
# The regularity row is refutable at the margin only where a claimed interval's speed comes
# close to MinimumSpeed. These cases take the MinimumSpeed at which the fast path's own decision
# turns (a float64 found by bisection on its build): a regular interval's derivative box then
# clears MinimumSpeed by one ulp, and a slow range's box sits one ulp under it; the exact speed
# (checked in rationals below) is within the box's rounding widening of MinimumSpeed.

_LINE = np.array([[-1.5, 0.0, 0.0], [-0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [1.5, 0.0, 0.0]])  # |B'| = 3 exactly
_VALLEY = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [2.0, 1.0, 0.0], [3.0, 0.0, 0.0]])  # |B'|^2 = 9 + 9 (1 - 2u)^2
_LEAD = np.array([[-7.5, 2.0, 0.0], [-5.5, 1.0, 0.0], [-3.5, 0.0, 0.0], [-1.5, 0.0, 0.0]])  # a fast span into _LINE


def _threshold_case(name, src, tae=1e-3):
    return _case(name, src, ms=1.0, tae=tae, sing=_SING.SplitRuns, corner=_CORNER.SplitRuns, max_depth=4)


def _turns(case, ms: float, slow: bool) -> bool:
    """Whether the fast path's decision holds at ``ms``: every sample interval regular (no range),
    or (slow) the last span one certainly slow range [0, 1]."""
    _, _, f = build({**case, "ms": ms})
    if not f.ok:
        return False
    ranges = f.value.view().ranges
    if not slow:
        return len(ranges) == 0
    last = case["source"].shape[0] - 1
    return [(r.span, r.u0, r.u1, r.is_depth_limited) for r in ranges] == [(last, 0.0, 1.0, False)]


class CorpusExpectation(AssertionError):
    """A near-threshold case whose MinimumSpeed lands on the wrong side of the exact speed (the
    claims would no longer be true): raised while generating the corpus."""


_THRESHOLDS: dict = {}


def _threshold_speed(case, speed: float, slow: bool) -> float:
    """The largest float64 MinimumSpeed below ``speed`` at which the fast path still calls the
    case regular everywhere, or (slow) the smallest above it at which the last span is one slow
    range: exponential search away from the exact speed, then bisection on the float64 bits."""
    key = (case["name"], slow)
    if key in _THRESHOLDS:
        return _THRESHOLDS[key]
    bits = lambda x: int(np.float64(x).view(np.int64))
    val = lambda i: float(np.int64(i).view(np.float64))
    good = bad = bits(speed)
    step = 1
    while True:  # the side where the decision holds, 2^k ulps away
        good = bad - step if not slow else bad + step
        if _turns(case, val(good), slow):
            break
        bad, step = good, 2 * step
    while abs(good - bad) > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if _turns(case, val(mid), slow) else (good, mid)
    _THRESHOLDS[key] = val(good)
    return val(good)


def _at_threshold(name, src, speed_sq, slow: bool):
    """A named case at the fast path's turning MinimumSpeed; the exact extreme speed squared
    ``speed_sq`` (an int: min of |B'|^2 for a regular case, max for a slow one) is checked in
    rationals against it (the claims stay true)."""
    def make(rng):
        case = _threshold_case(name, np.asarray(src, dtype=np.float64))
        ms = _threshold_speed(case, math.sqrt(speed_sq), slow)
        s2 = _mpq(ms) ** 2
        if (slow and not s2 >= speed_sq) or (not slow and not s2 < speed_sq):
            raise CorpusExpectation(f"case {name!r}: MinimumSpeed {ms!r} is on the wrong side of the speed")
        # a slow last span: every parameter of it has speed at most MinimumSpeed
        singular = [(len(src) - 1, 0.5)] if slow else []
        return {**case, "ms": ms, "expect": "ok", "singular": singular}
    return make


# A valley like _VALLEY, 1e5 from the origin, each control moved by about 1e-2 to a float32 with
# a full significand: past depth 10 or so its subsegment controls round in float64, and their
# rounding (about u 1e5 2^d in the derivative box at depth d) outgrows the box's own slack at the
# speed minimum (about |B'''| 4^-d) past depth 14. _FAR_VALLEY_U is the minimizer of the speed,
# rounded to float64 (found by mpmath; any parameter gives an upper bound of the minimum).
_FAR_VALLEY = np.array([[99999.9765625, -100000.0, 0.0], [100000.9921875, -99999.0078125, 0.0],
                        [100002.0078125, -99998.9921875, 0.0], [100003.015625, -100000.0078125, 0.0]])
_FAR_VALLEY_U = 0.5029481973847605


def _speed_at_most(P, u: float) -> float:
    """The smallest float64 whose square is at least the exact squared speed of the cubic ``P``
    at ``u`` (exact rationals): a MinimumSpeed the speed reaches, at ``u``."""
    from interval.context import QQ
    from reference import kernel as K

    S = sum(x * x for x in K.cubic_derivative(QQ, QQ.asarray(np.asarray(P, dtype=np.float64)), QQ.asarray(u)))
    m = math.sqrt(float(S))
    while _mpq(m) ** 2 < S:
        m = math.nextafter(m, math.inf)
    while _mpq(math.nextafter(m, 0.0)) ** 2 >= S:
        m = math.nextafter(m, 0.0)
    return m


def _far_valley_at_speed(rng):
    # MinimumSpeed at the valley's exact minimum speed (the float64 at or just above it): the
    # interval holding the minimum is never regular, and a derivative box that drops its
    # rounding widening (a planted fault no other case caught) calls it regular a few levels
    # before max_depth 17, or calls a neighbour certainly slow: regularity claims the oracle
    # refutes.
    return _case("valley far from the origin at exactly its minimum speed", [_FAR_VALLEY],
                 ms=_speed_at_most(_FAR_VALLEY, _FAR_VALLEY_U), sing=_SING.SplitRuns, corner=_CORNER.SplitRuns,
                 max_depth=17, tae=1e-3, expect="ok", singular=[(0, _FAR_VALLEY_U)])


# B' = (3, 18 (u - 1/3), 0): the speed's minimum 3 is reached at the non-dyadic u = 1/3 with one
# component constant and the other crossing zero, so the exact box of any interval holding 1/3
# has its smallest norm exactly 3.
_THIRD_VALLEY = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.0], [2.0, -1.0, 0.0], [3.0, 3.0, 0.0]])


def _third_valley_at_speed(rng):
    # MinimumSpeed exactly the minimum speed 3: no interval holding u = 1/3 is regular, and from
    # about depth 26 the polar-form weights of the hodograph box round, so a hodograph box whose
    # corners are not outward rounded (a planted fault the far valley, at max_depth 17, cannot
    # show) calls such an interval regular: a regularity claim the oracle refutes.
    return _case("valley whose minimum speed 3 at u = 1/3 is exactly MinimumSpeed, MaxDepth 30", [_THIRD_VALLEY],
                 ms=3.0, sing=_SING.SplitRuns, corner=_CORNER.SplitRuns, max_depth=30, tae=1e-3, expect="ok",
                 singular=[(0, 1.0 / 3.0)])


def _near_threshold_specials():
    """Named cases at the regularity margin (issue 23 item 4): a straight span of speed exactly 3,
    alone and after a fast span, at the largest MinimumSpeed the fast path still calls regular
    (its box one ulp above) and, as the last span, at the smallest it calls certainly slow; a
    planar span whose speed has an interior minimum 3 at u = 1/2, at its regular threshold; and a
    valley far from the origin whose boxes round, at exactly its minimum speed. (The valley at
    exactly MinimumSpeed at u = 1/3 comes last of all named cases, :func:`corpus_cases`.)"""
    return [
        _at_threshold("straight span just above MinimumSpeed (box one ulp clear)", [_LINE], 9, False),
        _at_threshold("straight span just below MinimumSpeed (slow, box one ulp under)", [_LEAD, _LINE], 9, True),
        _at_threshold("interior speed minimum just above MinimumSpeed", [_VALLEY], 9, False),
        _far_valley_at_speed,
    ]


def _specials() -> list:
    """The named cases' makers, in corpus order. Named cases added later come last, so that every
    earlier case keeps its index (and its rng)."""
    return _generate_specials() + _twist_and_range_specials() + _near_threshold_specials() + \
        _closed_loop_specials() + [_third_valley_at_speed]


def corpus_cases(seed: int, n: int) -> list:
    """``n`` frame cases, named corner cases first. Deterministic in ``seed``."""
    specials = _specials()
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 12])
        if k < len(specials):
            case = specials[k](rng)
            # a named case states its outcome: the build succeeds unless it says otherwise
            cases.append({**case, "expect": case["expect"] or "ok"})
        else:
            cases.append(_random_case(rng))
    return cases


def build(case):
    """Run path preparation, the distance map and the frame build on a case:
    ``(path_view, map_view, Outcome of frames)`` (None, None, failure) when a step before fails."""
    tol = tolerance(case["tae"], case["ms"], case["distance_error"], case["position_error"])
    src = case["source"]
    p = try_prepare_path(PathSource(spans_from_arrays(src, np.ones(src.shape[0])), 1, case["closed"]),
                         PathPreparation(tol, LIMITS, case["origin"]))
    if not p.ok:
        return None, None, p
    pv = p.value.view()
    d = try_build_distance_map(pv, DistancePreparation(LIMITS))
    if not d.ok:
        return pv, None, d
    prep = FramePreparation(seed_up=case["seed_up"], seed_policy=case["seed_policy"],
                            fallback_axis=case["fallback"], singularity_policy=case["sing"],
                            corner_policy=case["corner"], closed_policy=case["closed_policy"],
                            winding_turns=case["winding"], strict=False, limits=frame_limits(case))
    return pv, d.value.view(), try_build_frames(pv, d.value.view(), prep)


def frame_limits(case) -> WorkLimits:
    """The case's frame WorkLimits: FRAME_LIMITS with its max_depth."""
    depth = case.get("max_depth", FRAME_LIMITS.max_depth)
    return FRAME_LIMITS if depth == FRAME_LIMITS.max_depth else dataclasses.replace(FRAME_LIMITS, max_depth=depth)


NAMED = len(_specials())
quarter = _quarter
random_case = _random_case


def named_case(name: str, seed: int = 1) -> dict:
    """The named case called ``name`` (tests, benchmarks)."""
    for case in corpus_cases(seed, NAMED):
        if case["name"] == name:
            return case
    raise KeyError(name)
