"""Frame rows: the regularity decision (Certified), frame vectors and positions (Rounded), and
the angular error estimate with the residual twist (Estimated).

Corpus: deterministic in the seed. The first cases are named: a planar S-curve (the true RMF
normal is the plane normal, exactly), a helix approximated by cubics, a quarter circle seeded
parallel to its first tangent (UseFallbackAxis), an interior cusp and a reversal (SplitRuns),
a zero-speed ease endpoint with a stationary span, a 90-degree joint under RotateMinimally
and under SplitRuns, a closed planar loop (PreserveHolonomy: no holonomy), closed non-planar
loops with holonomy (PreserveHolonomy, and DistributeTwist with one winding turn), and a path
far from the origin; last the near-threshold cases (``_near_threshold_specials``: MinimumSpeed
at the fast path's own turning point, found by bisection, so that a regular interval's box
clears it by one ulp and the exact speed by about ten). The rest are random chains of 1 to 3
smooth-ish spans with random policies.

Checkers recompute every truth from ``claim.inputs`` alone (``interval.frame``):

* ``frame.regularity``: a regular interval's ``min |B'|`` over it exceeds ``minimum_speed``,
  shown by exact Bernstein subdivision of ``|B'|^2`` (Verified / Violated with a witness
  parameter / Undecided with the bound reached). A singular range shown slow everywhere has
  ``max |B'| <= minimum_speed`` (same method). Every interval and slow claim is enclosed again
  by exact real-root isolation of ``d/du |B'|^2`` (``interval.arb_frame``, python-flint):
  disjoint enclosures of the extremum, two exact values of ``|B'|^2`` at one parameter that
  differ, or opposite decisions are an OracleFault; where subdivision stays undecided, the root
  isolation's decision (and exact witness) stands; a depth-limited range is ``2^-max_depth`` wide
  (spec 002's sentence).
* ``frame.vectors``: first the singular ranges reported around the parameter: a frame strictly
  inside one (or at the common end of two) is Violated, a Degenerate answer is Verified inside
  a range and Violated outside every range. Then the position within ``16 u E + 16 eta`` per
  component of the exact ``B(u)``; the tangent within ``tangent_bound`` of the IV unit tangent;
  the orthonormality residuals ``| |t|^2 - 1 |``, ``| |n|^2 - 1 |``, ``| |b|^2 - 1 |``, ``|t . n|``, ``|t . b|``,
  ``|n . b|`` and the handedness residual ``max |b - t x n|`` at most ``16 u`` (exact rationals
  of the claimed floats); at a run's seed, the normal within ``(4 e_t + 16 u) / sine + 16 u``
  of the true projection of the seed axis (IV), and a fallback seed only where the true sine
  of ``seed_up`` is within that bound of ``minimum_sin_angle`` or below it.
* ``frame.angular_error_estimate``: the true RMF of every run (Taylor integration of
  ``dr/du = -(r . t') t`` at 113 bits, checked by halving) from the claimed seed; the true
  error is the largest angle between a claimed normal (baked or evaluated, before twist) and
  the true one, and for a closed loop also ``|claimed - true|`` residual twist (mod 2 pi).
  Violated when it exceeds ``ACCEPTANCE_FACTOR * estimate + 32 u (samples + 1)``; Undecided
  when the oracle's own halving difference exceeds a sixteenth of that slack. Each evaluated
  frame must be within that limit of the true normal rolled by the roll plus, on a periodic
  loop, the twist in proportion to the true arc length (``_twist_expected``: the only allowance
  is the one estimated distances imply, from DistanceError). Measured: the calibration
  ``true / estimate``, also counted in bins (``calibration_*`` counters: the distribution).
"""

from __future__ import annotations

import dataclasses
import math

import gmpy2
import numpy as np
from mpmath import mp

from interval.context import IV, QQ, lower, to_mpq, upper
from interval.frame import angle_between, arc_length, bernstein_speed_squared, decide_speed_above, \
    decide_speed_at_most, derivative_box, rotate_between, signed_angle, speed_witness, step_difference, true_rmf, \
    true_tangent, SingularRun
from reference import error_model as EM
from reference import kernel as K
from reference.distance import DistancePreparation, try_build_distance_map
from reference.context import F64
from reference.fp import U64
from reference.frame import (
    FRAME_VECTOR_K,
    ROUNDING_FLOOR,
    ClosedFramePolicy,
    FrameCornerPolicy,
    FramePreparation,
    FrameSeedPolicy,
    FrameSingularityPolicy,
    transported_normal,
    try_build_frames,
    try_evaluate_frame,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import GeometryStatus, GuaranteeClass as G, SegmentParameter, SpanSide, ToleranceProfile, \
    WorkLimits

from .. import schema as S
from ..errormodel import Resolved, ratio, resolve
from ..family import Family, RowContract
from ..model import Claim, Verdict, dec, dec_array, enc, undecided, verified, violated
from ..model import oracle_fault
from ..decide import enclosures_overlap
from interval.arb_frame import ARB_SPEED_BUDGET, decide_speed_arb

__all__ = ["FAMILY", "LIMITS", "FRAME_LIMITS", "ACCEPTANCE_FACTOR", "ROUNDING_ALLOWANCE_K", "generate",
           "claims", "check_regularity", "check_depth_limited_range", "check_vectors", "check_singular_ranges",
           "check_angular_error", "tolerance", "build"]

# The Estimated row's acceptance factor: the true angle error may exceed the estimate by at
# most this factor (plus the rounding allowance) before a claim is Violated.
ACCEPTANCE_FACTOR = 4.0
# Rounding allowance of transported frames: 32 u per baked sample of the run (a step rounds
# a few u per reflection and renormalization; rotations propagate earlier errors unchanged).
ROUNDING_ALLOWANCE_K = 32
_CALIBRATION_BINS = ((0.01, "calibration_lt_0.01"), (0.1, "calibration_0.01_0.1"), (0.5, "calibration_0.1_0.5"),
                     (1.0, "calibration_0.5_1"), (ACCEPTANCE_FACTOR, "calibration_1_factor"),
                     (math.inf, "calibration_above_factor"))

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=48, max_subdivisions=1 << 16,
                    max_prepared_bytes=1 << 26, max_samples=1 << 12)
FRAME_LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=24, max_subdivisions=1 << 14,
                          max_prepared_bytes=1 << 24, max_samples=1 << 12)

_mpq = gmpy2.mpq
_IVP = 113


def tolerance(tangent_angle_error: float, minimum_speed: float, distance_error: float,
              position_error: float, continuity_angle: float = 1e-3) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
        continuity_position=position_error, continuity_angle=continuity_angle, continuity_derivative=1e-3,
        continuity_second_derivative=1e-3, distance_error=distance_error, projection_gap=1e-3,
        tangent_angle_error=tangent_angle_error, minimum_speed=minimum_speed, minimum_sin_angle=1e-3,
        normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


# --- Corpus ----------------------------------------------------------------------------------

_SEED, _SING, _CORNER, _CLOSED = FrameSeedPolicy, FrameSingularityPolicy, FrameCornerPolicy, ClosedFramePolicy
_KAPPA = 0.5522847498307936  # 4/3 (sqrt 2 - 1): the cubic quarter-circle handle


def _case(name, src, *, closed=False, origin=(0.0, 0.0, 0.0), tae=1e-6, ms=1e-9, seed_up=(0.0, 0.0, 1.0),
          seed_policy=_SEED.UseFallbackAxis, fallback=(1.0, 0.0, 0.0), sing=_SING.SplitRuns,
          corner=_CORNER.RotateMinimally, closed_policy=_CLOSED.PreserveHolonomy, winding=0, queries=4,
          query_seed=0, max_depth=None, expect=None, distance_error=None):
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
            "expect": expect}


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
    return _case("interior cusp", src, sing=_SING.SplitRuns, seed_up=(0.0, 0.0, 1.0))


def _reversal(rng):
    src = [[[0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0]]]
    return _case("reversal", src, sing=_SING.SplitRuns, seed_up=(0.0, 0.0, 1.0))


def _ease_stationary(rng):
    a = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 0], [2, 1, 0.5]], dtype=np.float64)  # zero speed at u = 0
    b = np.repeat(a[3:4], 4, axis=0)  # stationary
    c = np.array([a[3], a[3] + [1, 0, 0], a[3] + [2, 1, 0], a[3] + [3, 1, 1]])
    return _case("zero-speed ease and stationary span", [a, b, c], sing=_SING.SplitRuns)


def _corner(rng, policy, name):
    src = [[[0, 0, 0], [1, 0, 0.2], [2, 0, 0.3], [3, 0, 0]], [[3, 0, 0], [3, 1, 0.3], [3.2, 2, 0], [3, 3, 0.5]]]
    return _case(name, src, corner=policy, seed_up=(0.0, 0.0, 1.0), queries=5)


def _planar_loop(rng):
    src = [_quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]
    return _case("closed planar loop", src, closed=True, closed_policy=_CLOSED.PreserveHolonomy,
                 seed_up=(0.0, 0.0, 1.0), tae=1e-7)


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
                 sing=_SING.SplitRuns, corner=_CORNER.SplitRuns, max_depth=12, queries=6)


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
                 sing=_SING.SplitRuns, corner=_CORNER.SplitRuns, max_depth=12, tae=1e-6)


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
        lambda r: {**_helix(r), "name": "helix by cubics, SplitRuns (G1 joints are crossed)", "corner": _CORNER.SplitRuns},
        _hairpin,
        _twisted_loop,
    ]


def _hairpin(rng):
    # A long straight run into a tight U-turn and back: curvature from 0 to about 50.
    src = [[[0, 0, 0], [4, 0, 0], [8, 0, 0], [10, 0, 0]], [[10, 0, 0], [10.3, 0, 0], [10.3, 0.2, 0.05], [10, 0.2, 0.05]],
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
    # A closed loop whose speed varies about fourfold inside every span (handles 0.15 and 0.6 of
    # the chord): DistributeTwist with one winding turn and DistanceError 1e-7, so a twist
    # interpolated linearly in u between samples (not in proportion to distance, the spec's rule)
    # misses the true frame by far more than the frames' own estimate.
    n = 4
    th = np.linspace(0.0, 2 * math.pi, n + 1)
    p = np.stack([2 * np.cos(th), np.sin(th), 0.6 * np.sin(2 * th)], axis=1)
    t = np.stack([-2 * np.sin(th), np.cos(th), 1.2 * np.cos(2 * th)], axis=1)
    t /= np.linalg.norm(t, axis=1)[:, None]
    src = []
    for i in range(n):
        chord = float(np.linalg.norm(p[i + 1] - p[i]))
        src.append([p[i], p[i] + 0.15 * chord * t[i], p[i + 1] - 0.6 * chord * t[i + 1], p[i + 1]])
    src[-1][3] = src[0][0]
    return _case("closed loop with uneven speed, DistributeTwist, DistanceError 1e-7", src, closed=True,
                 closed_policy=_CLOSED.DistributeTwist, winding=1, seed_up=(0.0, 0.0, 1.0), tae=1e-6,
                 queries=10, query_seed=3, distance_error=1e-7)


def _cusp_third(rng):
    # B'(u) = 18 (u - 1/3) ((1, 0, 0) + u (0, 1, 1)): a simple cusp at the non-dyadic u = 1/3
    # (exact float32 controls). Its range must be one interval 2^-MaxDepth wide holding 1/3.
    src = [[[0, 0, 0], [-2, 0, 0], [-1, -1, -1], [3, 3, 3]]]
    return _case("cusp at u = 1/3, SplitRuns", src, sing=_SING.SplitRuns, queries=4, query_seed=11)


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


_THRESHOLDS: dict = {}


def _threshold_speed(case, speed: float, slow: bool) -> float:
    """The largest float64 MinimumSpeed below ``speed`` at which the fast path still calls the
    case regular everywhere, or (slow) the smallest above it at which the last span is one slow
    range: exponential search away from the exact speed, then bisection on the float64 bits."""
    key = (case["name"], slow)
    if key in _THRESHOLDS:
        return _THRESHOLDS[key]
    bits = lambda x: int(np.float64(x).view(np.int64))  # noqa: E731 - positive floats order as ints
    val = lambda i: float(np.int64(i).view(np.float64))  # noqa: E731
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
        return {**case, "ms": ms, "expect": "ok"}
    return make


def _near_threshold_specials():
    """Named cases at the regularity margin (issue 23 item 4): a straight span of speed exactly 3,
    alone and after a fast span, at the largest MinimumSpeed the fast path still calls regular
    (its box one ulp above) and, as the last span, at the smallest it calls certainly slow; a
    planar span whose speed has an interior minimum 3 at u = 1/2, at its regular threshold."""
    return [
        _at_threshold("straight span just above MinimumSpeed (box one ulp clear)", [_LINE], 9, False),
        _at_threshold("straight span just below MinimumSpeed (slow, box one ulp under)", [_LEAD, _LINE], 9, True),
        _at_threshold("interior speed minimum just above MinimumSpeed", [_VALLEY], 9, False),
    ]


def generate(seed: int, n: int) -> list:
    """``n`` frame cases, named corner cases first. Deterministic in ``seed``."""
    specials = _generate_specials() + _twist_and_range_specials() + _near_threshold_specials()
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
                            winding_turns=case["winding"], strict=False, limits=_limits(case))
    return pv, d.value.view(), try_build_frames(pv, d.value.view(), prep)


def _limits(case) -> WorkLimits:
    depth = case.get("max_depth", FRAME_LIMITS.max_depth)
    return FRAME_LIMITS if depth == FRAME_LIMITS.max_depth else dataclasses.replace(FRAME_LIMITS, max_depth=depth)


class CorpusExpectation(AssertionError):
    """A named corpus case ended with another status than the one the spec (or a documented
    decision) gives it: the fast path failed a case it must pass, or passed one it must fail.
    Raised while making the case's claims, so the ledger records a producer fault (exit 4)."""


def _expect(case, outcome) -> None:
    want = case.get("expect")
    if want is None:
        return
    got = "ok" if outcome.ok else outcome.status.value
    if got != want:
        why = outcome.diagnostic.message if (not outcome.ok and outcome.diagnostic is not None) else ""
        raise CorpusExpectation(f"case {case['name']!r}: expected {want}, the fast path returned {got} {why}".strip())


# Singular ranges per case whose inside is queried (a span stuck at MinimumSpeed has thousands).
RANGE_QUERIES = 4


def _queries(case, pv, fv):
    """Evaluation requests: every run start (the seeds), every joint from both sides, random
    parameters inside the domain, and the middle of the first ``RANGE_QUERIES`` singular ranges
    and both its ends (Degenerate inside: claims of their own, judged against the ranges)."""
    rng = np.random.default_rng([case["query_seed"], 5])
    out = [(r.start.span_index, r.start.u, SpanSide.Outgoing, 0.0, True) for r in fv.runs]
    for k in range(1, pv.span_count):
        out += [(k, 0.0, SpanSide.Outgoing, 0.25, False), (k - 1, 1.0, SpanSide.Incoming, -0.5, False)]
    for _ in range(case["queries"]):
        out.append((int(rng.integers(0, pv.span_count)), float(rng.random()), SpanSide.Outgoing,
                    float(rng.uniform(-4, 4)), False))
    for r in fv.ranges[:RANGE_QUERIES]:
        out += [(r.span, u, SpanSide.Outgoing, 0.5, False) for u in (r.u0, 0.5 * (r.u0 + r.u1), r.u1)]
    return out


def _ranges_holding(fv, k: int, u: float) -> list:
    """The reported singular ranges of span k whose closure holds u, as ``[u0, u1]``."""
    return [[enc(r.u0), enc(r.u1)] for r in fv.ranges if r.span == k and r.u0 <= u <= r.u1]


def claims(case) -> list:
    """Run the fast path on one case and return its claims (none when the build fails; a named
    case whose status differs from its expected one raises :class:`CorpusExpectation`)."""
    pv, mv, f = build(case)
    _expect(case, f)
    if not f.ok:
        return []
    fv = f.value.view()
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
                          "max_depth": fv.max_depth,
                          "kind": "depth_limited" if r.is_depth_limited else "slow"}))
    model = {"name": "frame vectors (reference.frame, FRAME_VECTOR_K = 16)", "u": enc(U64)}
    evaluated = []
    requests, finals = [], []
    for k, u, side, roll, is_seed in _queries(case, pv, fv):
        got = try_evaluate_frame(pv, fv, SegmentParameter(k, u), roll, side)
        if got.status is GeometryStatus.Degenerate:
            # Degenerate is the spec's answer inside a singular range: claimed, with the ranges
            # that hold the parameter, so that the checker sees a frame where none may be
            out.append(Claim("frame.vectors", G.Rounded, {"status": "Degenerate"},
                             {"controls": enc(C[k]), "u": enc(u), "ranges": _ranges_holding(fv, k, u)}))
            continue
        if not got.ok:
            continue
        tn = transported_normal(pv, fv, SegmentParameter(k, u), side).value
        kk, uu, j = tn[0], tn[1], tn[2]
        fr = got.value
        inputs = {"controls": enc(C[kk]), "u": enc(uu), "ranges": _ranges_holding(fv, kk, uu)}
        if is_seed:
            run = fv.runs[int(fv.sample_run[j])]
            inputs["seed"] = {"axis": enc(np.asarray(case["fallback"] if run.is_fallback_seeded else case["seed_up"])),
                              "seed_up": enc(np.asarray(case["seed_up"])), "is_fallback": run.is_fallback_seeded,
                              "minimum_sin_angle": enc(pv.tolerance.minimum_sin_angle)}
        out.append(Claim("frame.vectors", G.Rounded,
                         {"position": enc(fr.position), "tangent": enc(fr.tangent), "normal": enc(fr.normal),
                          "binormal": enc(fr.binormal)}, inputs, model=model))
        evaluated.append([int(fv.sample_run[j]), kk, enc(uu), enc(tn[5])])
        requests.append([kk, enc(uu), enc(roll)])
        finals.append([int(fv.sample_run[j]), enc(fr.normal)])
    samples = [[int(fv.sample_run[j]), int(fv.sample_span[j]), enc(fv.sample_u[j]), enc(fv.sample_normal[j])]
               for j in range(fv.sample_count)]
    runs = [{"start": [r.start.span_index, enc(r.start.u)], "end": [r.end.span_index, enc(r.end.u)],
             "normal": enc(fv.sample_normal[r.first_sample])} for r in fv.runs]
    out.append(Claim("frame.angular_error_estimate", G.Estimated,
                     {"estimate": enc(fv.angular_error_estimate), "residual_twist": enc(fv.residual_twist),
                      "is_closed_loop": fv.is_closed_loop, "twist_end": enc(fv.sample_twist[-1]),
                      "samples": samples + evaluated,
                      "intervals": [[int(fv.sample_span[j]), enc(fv.sample_u[j]), enc(fv.sample_next_u[j]),
                                     enc(fv.sample_angle[j]), enc(fv.sample_distance[j]),
                                     enc(fv.sample_distance[j + 1])]
                                    for j in range(fv.sample_count) if fv.sample_next_u[j] > fv.sample_u[j]],
                      "total_estimate": enc(mv.total_estimate),
                      "ranges": [[r.span, enc(r.u0), enc(r.u1)] for r in fv.ranges],
                      "evaluated": finals},
                     {"controls": enc(C), "runs": runs, "periodic": fv.is_periodic,
                      "winding_turns": fv.winding_turns, "case": case["name"], "closed": bool(pv.is_closed),
                      "tangent_angle_error": enc(fv.tangent_angle_error),
                      "distance_error": enc(pv.tolerance.distance_error),
                      "continuity_angle": enc(pv.tolerance.continuity_angle),
                      "corner_policy": case["corner"].value, "evaluations": requests}))
    return out


# --- Checkers --------------------------------------------------------------------------------


def _controls(raw, shape) -> np.ndarray:
    P = dec_array(raw, np.float32)
    if P.shape[-2:] != (4, 3) or (shape is not None and P.shape != shape) or not np.all(np.isfinite(P)):
        raise ValueError("controls must be finite float32 arrays of shape (..., 4, 3)")
    return P


# What an oracle may raise on a well-formed claim only if it is broken (inputs are validated
# before): an oracle fault, never a malformed claim.
_ORACLE_ERRORS = (ValueError, ArithmeticError, TypeError, IndexError, KeyError, ZeroDivisionError)


def _bernstein_value(b: list, t) -> gmpy2.mpq:
    """The exact value at ``t`` in [0, 1] of Bernstein coefficients ``b`` (de Casteljau)."""
    b = list(b)
    while len(b) > 1:
        b = [x + t * (y - x) for x, y in zip(b, b[1:])]
    return b[0]


def _arb_cross_check(P, u0, u1, ms, above: bool, d):
    """The second regularity oracle on every interval and slow claim (docs/decisions.md
    "Frames: two regularity oracles"): the extremum of ``f = |B'|^2`` (the minimum for a regular
    claim, the maximum for a slow one) enclosed by exact root isolation of ``f'``
    (``interval.arb_frame``) and by the Bernstein oracle (``d``: its bound on one side; on the
    other, its exact values of f, from its Bernstein form on ``[u0, u1]``, at the ends and at the
    root isolation's witness parameter). Disjoint enclosures, an exact value of f at the same
    parameter that differs, opposite decisions, or an oracle that raises are an oracle fault.

    Returns ``(decision, fault)``: the Bernstein decision with its bound tightened by the Arb
    enclosure, or Arb's decision (and exact witness) where subdivision left it undecided; or
    ``(d, dict)`` naming both oracles' answers when they disagree."""
    try:
        holds, e = decide_speed_arb(P, u0, u1, ms, above, ARB_SPEED_BUDGET)
    except _ORACLE_ERRORS as exc:
        return d, {"arb_root_isolation": f"raised {exc!r}"[:300]}
    try:
        u0q, u1q = to_mpq(u0), to_mpq(u1)
        b = bernstein_speed_squared(P, u0q, u1q)
        wu, wf = e.witness
        at = _bernstein_value(b, (wu - u0q) / (u1q - u0q))
    except _ORACLE_ERRORS as exc:
        return d, {"bernstein_subdivision": f"raised {exc!r}"[:300]}
    if at != wf:  # both exact: one parameter, two values
        return d, {"arb_root_isolation": {"u": enc(wu), "speed_squared": enc(wf)},
                   "bernstein_subdivision": {"u": enc(wu), "speed_squared": enc(at)}}
    values = [b[0], b[-1], at] + ([d.witness[1]] if d.holds is False else [])
    inf = math.inf
    if above:  # min f: the Bernstein lower bound (none once refuted), its least exact value
        B = (d.bound if d.holds is not False and d.bound is not None else 0, min(values))
    else:  # max f: its largest exact value, the Bernstein upper bound
        B = (max(values), d.bound if d.holds is not False and d.bound is not None else inf)
    A = (e.lower, e.upper)
    if B[0] > B[1] or not enclosures_overlap(A, B):
        return d, {"arb_root_isolation": [enc(A[0]), enc(A[1])], "bernstein_subdivision": [enc(B[0]), enc(B[1])]}
    if holds is not None and d.holds is not None and holds != d.holds:
        return d, {"arb_root_isolation": {"holds": holds, "enclosure": [enc(A[0]), enc(A[1])]},
                   "bernstein_subdivision": {"holds": d.holds, "enclosure": [enc(B[0]), enc(B[1])]}}
    if d.holds is False:
        return d, None
    if holds is False:  # subdivision left it open: the exact witness of the root isolation
        return dataclasses.replace(d, holds=False, witness=(wu, wf)), None
    tight = max(B[0], A[0]) if above else min(B[1], A[1])
    return dataclasses.replace(d, holds=True if holds else d.holds, bound=tight), None


def check_regularity(claim: Claim):
    """Certified: a regular interval's min |B'| exceeds minimum_speed (exact subdivision); a slow
    range's max |B'| is at most it; a depth-limited range is 2^-max_depth wide."""
    P = _controls(claim.inputs["controls"], (4, 3))
    u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
    ms = dec(claim.inputs["minimum_speed"])
    kind = claim.inputs["kind"]
    depth = claim.inputs["max_depth"]
    if not (0.0 <= u0 < u1 <= 1.0) or not ms >= 0.0 or kind not in ("interval", "slow", "depth_limited") \
            or not isinstance(depth, int) or not 0 <= depth <= 52:
        raise ValueError("regularity claims need 0 <= u0 < u1 <= 1, minimum_speed >= 0, a known kind, "
                         "max_depth in [0, 52]")
    regular = claim.value.get("regular")
    if not isinstance(regular, bool):
        raise ValueError("value.regular must be a boolean")
    if regular:
        d = decide_speed_above(P, u0, u1, ms)
        what = "min |B'|^2 > minimum_speed^2"
    elif kind == "slow":
        d = decide_speed_at_most(P, u0, u1, ms)
        what = "max |B'|^2 <= minimum_speed^2"
    else:
        return check_depth_limited_range(claim, u0, u1, depth)
    if d.holds is None:
        # Subdivision reaches dyadic piece ends only: look for a rational witness (a zero of the
        # speed at u = 1/3), checked exactly.
        w = speed_witness(P, u0, u1, ms, above=regular)
        if w is not None:
            d = dataclasses.replace(d, holds=False, witness=w)
    d, fault = _arb_cross_check(P, u0, u1, ms, regular, d)
    if fault is not None:
        return oracle_fault(claim, fault, note="the Bernstein and Arb enclosures of the speed's extremum disagree")
    s2 = to_mpq(ms) ** 2
    if d.holds is True:
        # how close the speed comes to the threshold: minimum_speed^2 over the lower bound of
        # min |B'|^2 (regular), the upper bound of max |B'|^2 over minimum_speed^2 (slow)
        use = (ratio(s2, d.bound) if regular else ratio(d.bound, s2)) if d.bound is not None else None
        return verified(claim, measure="oracle_pieces", measured=d.pieces, bound_use=use)
    if d.holds is False:
        u, f = d.witness
        return violated(claim, {"why": f"not {what}", "u": enc(u), "speed_squared": enc(f),
                                "minimum_speed": claim.inputs["minimum_speed"]}, measure="oracle_pieces",
                        measured=d.pieces, bound_use=ratio(s2, f) if regular else ratio(f, s2))
    return undecided(claim, [enc(d.bound), enc(to_mpq(ms) ** 2)], measure="oracle_pieces", measured=d.pieces,
                     note=f"{what} not decided in the piece budget",
                     bound_use=(ratio(s2, max(d.bound, 0)) if regular else ratio(max(d.bound, 0), s2))
                     if d.bound is not None else None)


# A depth-limited range whose exact derivative box clears MinimumSpeed by more than this fraction
# of the span's hodograph size could have been shown regular (a float64 box errs by a few u of it).
RANGE_BOX_BAND = 2.0**-40


def check_depth_limited_range(claim: Claim, u0: float, u1: float, depth: int):
    """Spec 002: "A range that cannot be shown regular at the depth limit is 2^-MaxDepth wide".
    The range (kind ``depth_limited``) must be ``2^-max_depth`` wide, exactly; and it must be one
    that cannot be shown regular: its exact derivative box (``interval.frame.derivative_box``,
    the box the spec's rule speaks of, without rounding) must not clear ``minimum_speed`` by more
    than ``RANGE_BOX_BAND`` of the span's hodograph size (so the neighbour of a cusp, which a box
    shows regular, is no such range)."""
    width = to_mpq(u1) - to_mpq(u0)
    if width != _mpq(1, 2**depth):
        return violated(claim, {"why": f"a depth-limited range must be 2^-{depth} wide", "width": enc(width),
                                "u0": claim.inputs["u0"], "u1": claim.inputs["u1"]})
    P = _controls(claim.inputs["controls"], (4, 3)).astype(np.float64)
    near, _ = derivative_box(P, u0, u1)
    size = 3.0 * float(np.max(np.abs(np.diff(P, axis=0))))
    clear = to_mpq(dec(claim.inputs["minimum_speed"])) + to_mpq(RANGE_BOX_BAND) * to_mpq(size)
    if near > clear * clear:
        return violated(claim, {"why": "a depth-limited range whose exact derivative box is farther than "
                                       "minimum_speed from zero: it can be shown regular",
                                "min_speed_squared": enc(near), "u0": claim.inputs["u0"], "u1": claim.inputs["u1"]})
    return verified(claim, measure="oracle_pieces", measured=0, note="depth-limited range 2^-max_depth wide")


def _iv_vec(ctx, x):
    return ctx.asarray(np.asarray(x, dtype=np.float64))


def _true_tangent_iv(P, u, prec):
    ctx = IV(prec)
    d = K.cubic_derivative(ctx, _iv_vec(ctx, P), ctx.asarray(np.float64(u)))
    with ctx.scope():
        s = K.norm(ctx, d)
        return d / s, s


def _vectors_reference(E: float, speed: float, sine: float | None):
    """``reference(u, eta)`` of frame.vectors: [position (per component), tangent (Euclidean),
    orthonormality residual, handedness residual, seed normal (Euclidean)]."""
    def ref(u, eta):
        pos = to_mpq(EM.position_bound(E, u, eta=eta))
        tb = EM.tangent_bound(E, speed, u, eta=eta)
        tang = to_mpq(min(tb, 4.0))
        k = to_mpq(FRAME_VECTOR_K) * to_mpq(u)
        seed = to_mpq(4) if sine is None or not sine > 0 else min(
            to_mpq(4), (4 * tang + k) / to_mpq(sine) + k)
        return [pos, tang, k, k, seed]
    return ref


def check_singular_ranges(claim: Claim, u: float):
    """A frame evaluation against the singular ranges the claim reports around its parameter
    (spec 002: "TryEvaluateFrame returns Degenerate inside it and never reuses a frame across
    it"): a frame strictly inside a range, or at the common end of two ranges (no run reaches it),
    is Violated; a Degenerate answer is Verified inside a range (ends included: a range at a span
    end has no run sample there) and Violated outside every range (frames are baked everywhere
    else). Returns a verdict, or None when a returned frame is outside every range."""
    ranges = []
    for r in claim.inputs.get("ranges", ()):
        u0, u1 = dec(r[0]), dec(r[1])
        if not 0.0 <= u0 < u1 <= 1.0:
            raise ValueError("ranges are [u0, u1] with 0 <= u0 < u1 <= 1")
        ranges.append((u0, u1))
    status = claim.value.get("status")
    if status is not None:
        if status != "Degenerate" or len(claim.value) != 1:
            raise ValueError('a frame.vectors value is a frame or {"status": "Degenerate"}')
        if any(u0 <= u <= u1 for u0, u1 in ranges):
            return verified(claim, measure="error_ratio", measured=0.0, note="Degenerate inside a singular range")
        return violated(claim, {"why": "Degenerate outside every reported singular range", "u": enc(u)})
    inside = [(u0, u1) for u0, u1 in ranges if u0 < u < u1]
    if inside:
        return violated(claim, {"why": "a frame strictly inside a reported singular range", "u": enc(u),
                                "range": [enc(inside[0][0]), enc(inside[0][1])]})
    if any(u1 == u for _, u1 in ranges) and any(u0 == u for u0, _ in ranges):
        return violated(claim, {"why": "a frame at the common end of two singular ranges (no run reaches it)",
                                "u": enc(u)})
    return None


def check_vectors(claim: Claim):
    """Rounded: position, tangent, orthonormality, handedness and (at a seed) the seed
    projection, each within its model (declared or the reference at binary64); a Degenerate
    answer or a frame near singular ranges first by :func:`check_singular_ranges`."""
    P = _controls(claim.inputs["controls"], (4, 3))
    u = dec(claim.inputs["u"])
    if not 0.0 <= u <= 1.0:
        raise ValueError("u must lie in [0, 1]")
    judged = check_singular_ranges(claim, u)
    if judged is not None:
        return judged
    vals = {k: dec_array(claim.value[k]) for k in ("position", "tangent", "normal", "binormal")}
    if any(v.shape != (3,) for v in vals.values()):
        raise ValueError("frame vectors must have three components")
    if not all(np.all(np.isfinite(v)) for v in vals.values()):
        return violated(claim, {"why": "a nonfinite frame component", "claimed": claim.value})
    E = EM.span_magnitude(P)
    t_true, speed = _true_tangent_iv(P, u, _IVP)
    speed_lo = float(lower(speed))
    seed = claim.inputs.get("seed")
    sine = None
    proj = None
    if seed is not None:
        axis = dec_array(seed["axis"])
        ctx = IV(_IVP)
        with ctx.scope():
            a = _iv_vec(ctx, axis)
            p = a - t_true * K.dot(ctx, a, t_true)
            pn = K.norm(ctx, p)
            sine_iv = pn / K.norm(ctx, a)
            proj = p / pn if lower(pn) > 0 else None
        sine = float(lower(sine_iv))
    r = resolve(claim, _vectors_reference(E, speed_lo, sine), constant=FRAME_VECTOR_K)
    b_pos, b_tan, b_orth, b_hand, b_seed = r.bound
    Q = {k: QQ.asarray(v) for k, v in vals.items()}
    t, n, b = Q["tangent"], Q["normal"], Q["binormal"]
    truth_pos = K.cubic_point(QQ, QQ.asarray(P.astype(np.float64)), QQ.asarray(np.float64(u)))
    e_pos = max(abs(x - y) for x, y in zip(Q["position"], truth_pos))
    one = _mpq(1)
    e_orth = max(abs(K.dot(QQ, t, t) - one), abs(K.dot(QQ, n, n) - one), abs(K.dot(QQ, b, b) - one),
                 abs(K.dot(QQ, t, n)), abs(K.dot(QQ, t, b)), abs(K.dot(QQ, n, b)))
    e_hand = max(abs(x) for x in (b - K.cross(QQ, t, n)))
    ctx = IV(_IVP)
    with ctx.scope():
        dt = _iv_vec(ctx, vals["tangent"]) - t_true
        e_tan = upper(K.norm(ctx, dt))
    errs = {"position": (e_pos, b_pos), "tangent": (e_tan, b_tan), "orthonormality": (e_orth, b_orth),
            "handedness": (e_hand, b_hand)}
    notes = {}
    if seed is not None:
        if proj is None:
            return violated(claim, {"why": "the seed axis is parallel to the true tangent", "seed": seed}, **r.extra())
        with ctx.scope():
            e_seed = upper(K.norm(ctx, _iv_vec(ctx, vals["normal"]) - proj))
        errs["seed"] = (e_seed, b_seed)
        # A fallback seed is right only where seed_up's true sine is at or near the threshold.
        up = dec_array(seed["seed_up"])
        with ctx.scope():
            a = _iv_vec(ctx, up)
            pu = a - t_true * K.dot(ctx, a, t_true)
            s_up = K.norm(ctx, pu) / K.norm(ctx, a)
        msa = to_mpq(dec(seed["minimum_sin_angle"]))
        slack = b_seed
        if seed["is_fallback"] and lower(s_up) > msa + slack:
            return violated(claim, {"why": "fallback seeded although seed_up is not degenerate",
                                    "seed_up_sine_lower": enc(lower(s_up))}, **r.extra())
        if not seed["is_fallback"] and upper(s_up) <= msa - slack:
            return violated(claim, {"why": "seed_up used although its projection is degenerate",
                                    "seed_up_sine_upper": enc(upper(s_up))}, **r.extra())
        notes["seed_up_sine"] = float(lower(s_up))
    ratios = {k: ratio(e, bb) for k, (e, bb) in errs.items()}
    worst = max(ratios.values())
    if all(e <= bb for e, bb in errs.values()):
        return verified(claim, measure="error_ratio", measured=worst, bound_use=worst, **r.extra())
    return violated(claim, {"ratios": ratios, "bounds": {k: enc(bb) for k, (e, bb) in errs.items()}},
                    measure="error_ratio", measured=worst, bound_use=worst, **r.extra())


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
    C = _controls(claim.inputs["controls"], None)
    if C.ndim != 3:
        raise ValueError("controls must be (n, 4, 3)")
    n = C.shape[0]
    v = claim.value
    est = dec(v["estimate"])
    if not math.isfinite(est) or est < 0:
        return violated(claim, {"why": "the estimate must be finite and nonnegative", "estimate": v["estimate"]})
    runs = claim.inputs["runs"]
    by_run: dict = {}
    for entry in v["samples"]:
        ri, k, u, nrm = entry
        if not (isinstance(ri, int) and 0 <= ri < len(runs) and isinstance(k, int) and 0 <= k < n):
            raise ValueError("samples are [run, span, u, normal] with valid indices")
        by_run.setdefault(ri, []).append((k, dec(u), dec_array(nrm)))
    arcs = _Arcs(C)
    bad = _run_structure(claim, C, runs)
    if bad is not None:
        return bad
    bad = _estimate_conformance(claim, C, est, arcs)
    if bad is not None:
        return bad
    evals = _evaluations(claim, n, len(runs))
    for ri, k, u, _, _ in evals:
        by_run.setdefault(ri, []).append((k, u, None))
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
                return violated(claim, {"why": f"run {ri} crosses a zero of the speed: {e}"})
            oracle_err = max(oracle_err, tr.error)
            truths[ri] = tr
            for k, u, nrm in ss:
                if nrm is None:
                    continue
                a = [mp.mpf(float(x)) for x in nrm]
                worst = max(worst, angle_between(_unit_mp(a), tr.normals[(k, u)]))
            count = max(count, sum(1 for e in ss if e[2] is not None))
            if ri == 0:
                loop = tr
        twist_err = mp.mpf(0)
        if v["is_closed_loop"]:
            if len(runs) != 1:
                return violated(claim, {"why": "a closed loop is one run"})
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
                                            "expected": enc(want)})
        elif dec(v["residual_twist"]) != 0.0:
            return violated(claim, {"why": "an open path (or a split loop) has no residual twist"})
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
            return violated(claim, detail, measure="calibration", measured=calibration, bound_use=use, **bins)
        # Evaluated frames after twist compensation and the caller's roll.
        eval_use = mp.mpf(0)
        periodic = bool(claim.inputs["periodic"])
        total_twist = -dec(v["residual_twist"]) + 2 * math.pi * int(claim.inputs["winding_turns"]) if periodic else 0.0
        for i, (ri, k, u, roll, nrm) in enumerate(evals):
            tr = truths[ri]
            r = tr.normals[(k, u)]
            t = true_tangent(C[k], u)
            tw, tol = (0.0, 0.0) if not periodic else _twist_expected(claim, C, arcs, k, u, total_twist, roll)
            phi = mp.mpf(roll) + mp.mpf(tw)
            cp, sp = mp.cos(phi), mp.sin(phi)
            txr = [t[1] * r[2] - t[2] * r[1], t[2] * r[0] - t[0] * r[2], t[0] * r[1] - t[1] * r[0]]
            want = [cp * r[q] + sp * txr[q] for q in range(3)]
            got = angle_between(_unit_mp([mp.mpf(float(x)) for x in nrm]), _unit_mp(want))
            lim_i = limit + mp.mpf(tol)
            eval_use = max(eval_use, got / lim_i)
            if got > lim_i:
                return violated(claim, {"why": f"evaluated frame {i} (span {k}, u = {u!r}, roll {roll!r}) is "
                                               f"{float(got):.3g} rad from the true frame rolled by the roll plus the "
                                               f"distributed twist", "limit": float(lim_i),
                                        "expected_twist": float(tw)}, measure="calibration",
                                measured=calibration, bound_use=float(got / lim_i), **bins)
        use = max(use, float(eval_use))
        return verified(claim, measure="calibration", measured=calibration, bound_use=use, **bins)


# Relative band of a joint's G1 classification (the fast path classifies Rounded tangents): a
# joint is clearly G1 below continuity_angle (1 - band), clearly a corner above (1 + band).
JOINT_BAND = 2.0**-20
# A claimed interval angle may differ from the oracle's step difference by this many units of
# float64 roundoff (times 1 + E / |chord|: the chord x(b) - x(a) is rounded relative to E), plus
# 2^-30 relative. Measured on the default corpus: at most 1.5 u.
STEP_ANGLE_K = 32


def _arc(P, u0: float, u1: float):
    """``interval.frame.arc_length`` with its pieces quadrupled (8 up to 512) until its error
    estimate is below ``2^-40`` of the length: near a zero of the speed (a near-cusp) 8 pieces
    leave 1e-6 of error, which would widen every tolerance built on the arc length."""
    pieces = 8
    while True:
        s, err = arc_length(P, u0, u1, pieces=pieces)
        if err <= 2.0**-40 * s or pieces >= 512:
            return s, err
        pieces *= 4


class _Arcs:
    """True prefix arc lengths of a path (:func:`_arc`, cached per span)."""

    def __init__(self, C):
        self.C = C
        self._span = {}

    def span(self, k):
        if k not in self._span:
            self._span[k] = _arc(self.C[k], 0.0, 1.0)
        return self._span[k]

    def prefix(self, k, u):
        """``(s, err)``: the arc length from the path start to ``(k, u)``."""
        s = e = 0.0
        for j in range(k):
            a, b = self.span(j)
            s, e = s + a, e + b
        a, b = _arc(self.C[k], 0.0, u) if u < 1.0 else self.span(k)
        return s + a, e + b

    def total(self):
        return self.prefix(self.C.shape[0] - 1, 1.0)


def _run_structure(claim: Claim, C, runs) -> "Verdict | None":
    """Runs may start only at the path start, after a claimed singular range, or at a joint that
    is not clearly G1 under SplitRuns; a run may cross a joint only when it is not clearly a
    corner or the policy is RotateMinimally (a G1 joint is always crossed)."""
    inp, v = claim.inputs, claim.value
    if "corner_policy" not in inp or "ranges" not in v:
        return None  # a case file of the older shape: the structure is not claimed
    policy = inp["corner_policy"]
    ca = dec(inp["continuity_angle"])
    if policy not in ("Reject", "RotateMinimally", "SplitRuns") or not ca >= 0:
        raise ValueError("corner_policy must name a FrameCornerPolicy and continuity_angle be >= 0")
    n = C.shape[0]
    ranges = [(int(r[0]), dec(r[1]), dec(r[2])) for r in v["ranges"]]

    def corner(k):
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

    def after_range(k, u):
        return any((s == k and u1 == u) or (u == 0.0 and s == k - 1 and u1 == 1.0) for s, _, u1 in ranges)

    def before_range(k, u):
        return any((s == k and u0 == u) or (u == 1.0 and s == k + 1 and u0 == 0.0) for s, u0, _ in ranges)

    for i, run in enumerate(runs):
        k, u = int(run["start"][0]), dec(run["start"][1])
        ok = (k, u) == (0, 0.0) or after_range(k, u) or (u == 0.0 and k >= 1 and policy == "SplitRuns"
                                                          and corner(k) >= 0)
        if not ok:
            return violated(claim, {"why": f"run {i} starts at (span {k}, u = {u!r}): neither the path start, "
                                           "the end of a singular range nor a corner split by SplitRuns"})
        k, u = int(run["end"][0]), dec(run["end"][1])
        ok = (k, u) == (n - 1, 1.0) or before_range(k, u) or (u == 1.0 and k + 1 < n and policy == "SplitRuns"
                                                               and corner(k + 1) >= 0)
        if not ok:
            return violated(claim, {"why": f"run {i} ends at (span {k}, u = {u!r}): neither the path end, the "
                                           "start of a singular range nor a corner split by SplitRuns"})
        k0, k1 = int(run["start"][0]), int(run["end"][0])
        first, last = (k0, dec(run["start"][1])), (k1, dec(run["end"][1]))
        for s, u0, u1 in ranges:
            if first < (s, u1) and (s, u0) < last:
                return violated(claim, {"why": f"run {i} crosses the singular range (span {s}, [{u0!r}, {u1!r}])"})
        crossed = list(range(k0 + 1, k1 + 1)) + ([0] if v.get("is_closed_loop") else [])
        for j in crossed:
            if policy != "RotateMinimally" and corner(j) > 0:
                return violated(claim, {"why": f"run {i} crosses joint {j}, a corner, under corner policy {policy}"})
    return None


def _estimate_conformance(claim: Claim, C, est: float, arcs: "_Arcs") -> "Verdict | None":
    """The spec's estimate: each claimed interval angle is the oracle's one-step-versus-two-half-
    steps difference (within STEP_ANGLE_K u), at most TangentAngleError times its share of the
    path (or ROUNDING_FLOOR); the estimate is their sum plus the largest; every claimed distance
    estimate lies within DistanceError of the true arc length."""
    inp, v = claim.inputs, claim.value
    if "intervals" not in v or "tangent_angle_error" not in inp:
        return None
    tae = to_mpq(dec(inp["tangent_angle_error"]))
    total = dec(v["total_estimate"])
    delta = dec(inp["distance_error"])
    n = C.shape[0]
    angles = []
    L, Lerr = arcs.total()
    if abs(total - L) > delta + 4 * Lerr + 2.0**-30 * L:
        return violated(claim, {"why": "TotalEstimate is farther than DistanceError from the arc length",
                                "total_estimate": v["total_estimate"], "arc_length": float(L)})
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
                                    "share": float(share)})
        truth = float(step_difference(C[k], a, b))
        P = C[k].astype(np.float64)
        chord = float(np.linalg.norm(K.cubic_point(F64, P, np.float64(b)) - K.cubic_point(F64, P, np.float64(a))))
        E = float(np.max(np.abs(P)))
        tol = STEP_ANGLE_K * U64 * (1 + (E / chord if chord > 0 else math.inf)) + 2.0**-30 * truth
        if abs(ang - truth) > tol:
            return violated(claim, {"why": f"interval {i} (span {k}, [{a!r}, {b!r}]): the claimed angle is not "
                                           "the difference of one reflection step and two half steps",
                                    "claimed": entry[3], "oracle": truth, "tolerance": tol})
        for u, d in ((a, da), (b, db)):
            s, err = arcs.prefix(k, u)
            if abs(d - s) > delta + 4 * (err + Lerr) + 2.0**-30 * L:
                return violated(claim, {"why": f"interval {i}: the distance estimate at (span {k}, u = {u!r}) is "
                                               "farther than DistanceError from the arc length",
                                        "estimate": d, "arc_length": s})
    if angles:
        want = sum(angles) + max(angles)
        if abs(to_mpq(est) - want) > want * to_mpq(4 * U64) * (len(angles) + 2):
            return violated(claim, {"why": "AngularErrorEstimate is not the sum of the accepted interval angles "
                                           "plus the largest", "estimate": v["estimate"], "expected": float(want)})
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
        out.append((ri, k, dec(u), dec(roll), dec_array(nrm)))
    return out


def _twist_expected(claim: Claim, C, arcs: "_Arcs", k: int, u: float, total: float, roll: float = 0.0):
    """``(twist, tolerance)`` of DistributeTwist's compensation at (k, u) by the spec's rule: roll
    "in proportion to estimated distance", ``total s(u) / L`` with true arc lengths ``s`` and
    ``L``, and how far an implementation may be from it because the rule speaks of *estimated*
    distances (``docs/decisions.md``, "Frames: the twist follows estimated distance"): an estimate
    lies in its Certified interval, which holds the truth and is at most ``DistanceError = d``
    wide, so ``|s^ - s| <= d`` and ``|L^ - L| <= d``, and
    ``|s^/L^ - s/L| = |(s^ - s) L - s (L^ - L)| / (L L^) <= d (L + s) / (L (L - d))``; ``d`` grows
    by the quadrature error of ``s`` and ``L``. Plus the float64 rounding of the twist and of its
    sum with the roll, ``8 u (|total| + |roll|)``. Nothing here depends on how an implementation
    interpolates between its samples."""
    L, Lerr = arcs.total()
    s, err = arcs.prefix(k, u)
    d = dec(claim.inputs["distance_error"]) + 4 * (err + Lerr)
    rounding = 8 * U64 * (abs(total) + abs(roll))
    if not L > d:
        return total * s / L if L > 0 else 0.0, abs(total) + rounding  # the estimates say nothing
    return total * s / L, abs(total) * d * (L + s) / (L * (L - d)) + rounding


def _unit_mp(a):
    s = mp.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)
    return [x / s for x in a]


# --- Contracts -------------------------------------------------------------------------------

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
        P = _controls(c.inputs["controls"], (4, 3)).astype(np.float64)
        big = float(6.0 * np.max(np.abs(P)) * 2.0 + 1.0) * 2.0 ** c.inputs["max_depth"]
        return Claim(c.row, c.guarantee, c.value, {**c.inputs, "minimum_speed": enc(big)}, c.model)
    return _with(c, {"regular": True})  # a singular range called regular


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
        inputs=S.obj(required={"controls": _CONTROLS, "u0": S.f64(nonnegative=True), "u1": S.f64(nonnegative=True),
                               "minimum_speed": S.f64(nonnegative=True), "max_depth": S.integer(0, 52),
                               "kind": S.enum(["interval", "slow", "depth_limited"])}),
        value=S.obj(required={"regular": S.boolean()}),
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
        inputs=S.obj(required={"controls": _CONTROLS, "u": S.f64(nonnegative=True)},
                     optional={"seed": S.obj(required={"axis": _XYZ, "seed_up": _XYZ, "is_fallback": S.boolean(),
                                                       "minimum_sin_angle": S.f64(nonnegative=True)}),
                               "ranges": S.array(S.vec(S.f64(nonnegative=True), 2))}),
        value=S.any_of(S.obj(required={k: S.vec(_F64V, 3) for k in ("position", "tangent", "normal", "binormal")}),
                       S.obj(required={"status": S.const("Degenerate")})),
        model=S.MODEL, plant=_plant_vectors),
    "frame.angular_error_estimate": RowContract(
        checks="Run structure: a run starts only at the path start, after a claimed singular range or at a joint "
               "not clearly G1 (true tangent angle >= continuity_angle (1 - 2^-20)) under SplitRuns, crosses no "
               "singular range and no clear corner unless RotateMinimally. Estimate (when intervals are "
               "claimed): each interval's angle within 32 u (1 + E/|chord|) + 2^-30 of the oracle's one double-"
               "reflection step versus two half steps (mp, 113 bits), at most tangent_angle_error x its share "
               "(d(b) - d(a)) / TotalEstimate or 64 u; the estimate their sum plus the largest (within 4 u per "
               "term); every distance estimate and TotalEstimate within distance_error of the arc length. Then "
               "the true RMF (Taylor integration of dr/du = -(r . t') t at 113 bits, checked by halving) "
               "from each run's claimed seed; the largest angle between a claimed normal and the true one, "
               "and a closed loop's |claimed - true| residual twist mod 2 pi, must be at most "
               f"{ACCEPTANCE_FACTOR:g} x estimate + 32 u (samples + 1); a periodic loop's twist at the end "
               "equals -ResidualTwist + 2 pi WindingTurns; each evaluated frame (after twist and roll) within "
               "that limit of the true normal rolled by roll + (2 pi W - R) s(u) / L (true arc lengths: the spec's "
               "twist in proportion to distance), plus only what estimated distances imply, |2 pi W - R| d (L + s) "
               "/ (L (L - d)) with d = distance_error, and rounding 8 u (|2 pi W - R| + |roll|); calibration "
               "true/estimate reported.",
        inputs=S.obj(required={"controls": S.matrix(S.f32(), [None, 4, 3]),
                               "runs": S.array(S.obj(required={"start": _SPAN_U, "end": _SPAN_U,
                                                               "normal": _XYZ}), min_items=1),
                               "periodic": S.boolean(), "winding_turns": S.integer()},
                     optional={"case": S.string(), "closed": S.boolean(),
                               "tangent_angle_error": S.f64(nonnegative=True),
                               "distance_error": S.f64(nonnegative=True),
                               "continuity_angle": S.f64(nonnegative=True),
                               "corner_policy": S.enum(["Reject", "RotateMinimally", "SplitRuns"]),
                               "evaluations": S.array(S.tuple_(_INDEX, _F64V, _F64V))}),
        value=S.obj(required={"estimate": _F64V, "residual_twist": _F64V, "is_closed_loop": S.boolean(),
                              "twist_end": _F64V,
                              "samples": S.array(S.tuple_(_INDEX, _INDEX, _F64V, S.vec(_F64V, 3)), min_items=1)},
                    optional={"intervals": S.array(S.tuple_(_INDEX, *[_F64V] * 5)),
                              "total_estimate": S.f64(nonnegative=True),
                              "ranges": S.array(S.tuple_(_INDEX, _F64V, _F64V)),
                              "evaluated": S.array(S.tuple_(_INDEX, S.vec(_F64V, 3)))}),
        plant=_plant_angular),
}


FAMILY = Family(
    name="frame",
    default_cases=len(_generate_specials()) + len(_twist_and_range_specials()) + len(_near_threshold_specials())
    + 1,  # the named cases, then one random
    generate=generate,
    claims=claims,
    checkers={"frame.regularity": check_regularity, "frame.vectors": check_vectors,
              "frame.angular_error_estimate": check_angular_error},
    contracts=CONTRACTS,
    oracle_precisions=(_IVP,),
)
