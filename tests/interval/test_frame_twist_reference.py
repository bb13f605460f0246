"""DistributeTwist against an independent reference: the roll of evaluated frames on closed loops
of uneven speed is the spec's, "in proportion to estimated distance" (spec 002, "Transported
frames").

The reference shares nothing with ``reference/frame.py``: a fine double-reflection RMF written
here (4096 uniform steps per span, its error measured against 2048 steps), the minimal rotation
across joints written here, and arc lengths by mpmath's tanh-sinh quadrature of ``|B'|`` at 25
digits. The expected normal at ``(k, u)`` is the reference RMF normal turned about the tangent by
``roll + (-R + 2 pi W) s(u) / L`` (``R`` the reference loop's residual twist). An implementation
may use any distance estimates within DistanceError of the truth, so the tolerance is
``4 A`` (the frame row's acceptance factor times the frames' own estimate) plus the estimates'
allowance ``|2 pi W - R| d (L + s) / (L (L - d))`` (``docs/decisions.md``, "Frames: the twist
follows estimated distance") plus the reference's own error. A twist interpolated linearly in u
between the baked samples misses that tolerance on these loops, which the test also shows.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from reference.distance import DistancePreparation, try_build_distance_map
from reference.frame import (
    ClosedFramePolicy,
    FrameCornerPolicy,
    FramePreparation,
    FrameSeedPolicy,
    FrameSingularityPolicy,
    try_build_frames,
    try_evaluate_frame,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import SegmentParameter, ToleranceProfile, WorkLimits

STEPS = 4096  # reference double-reflection steps per span (a power of two: queries on its grid)
LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=24, max_subdivisions=1 << 16,
                    max_prepared_bytes=1 << 26, max_samples=1 << 12)


def uneven_loop(n, near, far, lift):
    """A closed loop through ``n`` points of an ellipse lifted by ``lift sin(2 theta)``, each span's
    handles ``near`` and ``far`` times its chord: the speed varies by about ``far / near`` inside
    every span (G1 joints, not C1)."""
    th = np.linspace(0.0, 2 * math.pi, n + 1)
    p = np.stack([2 * np.cos(th), np.sin(th), lift * np.sin(2 * th)], axis=1)
    t = np.stack([-2 * np.sin(th), np.cos(th), 2 * lift * np.cos(2 * th)], axis=1)
    t /= np.linalg.norm(t, axis=1)[:, None]
    src = []
    for i in range(n):
        chord = float(np.linalg.norm(p[i + 1] - p[i]))
        src.append([p[i], p[i] + near * chord * t[i], p[i + 1] - far * chord * t[i + 1], p[i + 1]])
    src = np.array(src)
    src[-1, 3] = src[0, 0]
    return src


def trefoil(n):
    """A trefoil knot by ``n`` cubic Hermite spans of its trigonometric parametrization (uneven
    speed: the knot's own speed varies by about 2.5)."""
    t = np.linspace(0.0, 2 * math.pi, n + 1)
    p = np.stack([np.sin(t) + 2 * np.sin(2 * t), np.cos(t) - 2 * np.cos(2 * t), -np.sin(3 * t)], axis=1)
    d = np.stack([np.cos(t) + 4 * np.cos(2 * t), -np.sin(t) + 4 * np.sin(2 * t), -3 * np.cos(3 * t)], axis=1)
    h = (t[1] - t[0]) / 3
    src = np.array([[p[i], p[i] + h * d[i], p[i + 1] - h * d[i + 1], p[i + 1]] for i in range(n)])
    src[-1, 3] = src[0, 0]
    return src


def near_cusp_loop(eps):
    """A planar loop of three spans whose first two come within ``eps`` of a cusp (the speed
    drops about a hundredfold near u = 1/2): a planar RMF is exact, so its samples sit far apart
    and the speed varies most between them."""
    a = [[0, 0, 0], [3, 1, 0], [1, 1 + eps, 0], [2, 0, 0]]
    b = [[2, 0, 0], [3, -1 - eps, 0], [2, -3, 0], [0, -3, 0]]
    c = [[0, -3, 0], [-2, -3, 0], [-3, -1, 0], [0, 0, 0]]
    return np.array([a, b, c], dtype=np.float64)


def build(src, tae, distance_error, winding):
    tol = ToleranceProfile(position_error=1e-5, relative_position_error=0.0, asset_scale=1.0,
                           continuity_position=1e-5, continuity_angle=1e-3, continuity_derivative=1e-3,
                           continuity_second_derivative=1e-3, distance_error=distance_error, projection_gap=1e-3,
                           tangent_angle_error=tae, minimum_speed=1e-9, minimum_sin_angle=1e-3,
                           normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)
    p = try_prepare_path(PathSource(spans_from_arrays(src, np.ones(src.shape[0])), 1, True),
                         PathPreparation(tol, LIMITS))
    assert p.ok, p.diagnostic
    pv = p.value.view()
    m = try_build_distance_map(pv, DistancePreparation(LIMITS))
    assert m.ok, m.diagnostic
    prep = FramePreparation(seed_up=(0.0, 0.0, 1.0), seed_policy=FrameSeedPolicy.UseFallbackAxis,
                            fallback_axis=(1.0, 0.0, 0.0), singularity_policy=FrameSingularityPolicy.SplitRuns,
                            corner_policy=FrameCornerPolicy.RotateMinimally,
                            closed_policy=ClosedFramePolicy.DistributeTwist, winding_turns=winding, strict=False,
                            limits=LIMITS)
    f = try_build_frames(pv, m.value.view(), prep)
    assert f.ok, f.diagnostic
    return pv, f.value.view()


# --- The reference (nothing from reference/frame.py) -----------------------------------------


def bezier(P, u):
    """Position and derivative of the cubic with controls ``P`` (4, 3) at the parameters ``u``."""
    u = np.asarray(u, dtype=np.float64)[:, None]
    s = 1.0 - u
    x = s**3 * P[0] + 3 * s * s * u * P[1] + 3 * s * u * u * P[2] + u**3 * P[3]
    d = 3 * (s * s * (P[1] - P[0]) + 2 * s * u * (P[2] - P[1]) + u * u * (P[3] - P[2]))
    return x, d


def unit(v):
    return v / math.sqrt(float(v @ v))


def reflect(v, n):
    c = float(n @ n)
    return v if c == 0.0 else v - (2.0 * float(n @ v) / c) * n


def minimal_rotation(r, a, b):
    """``r`` rotated about ``a x b`` by the angle taking unit ``a`` to unit ``b`` (Rodrigues)."""
    w, c = np.cross(a, b), float(a @ b)
    return c * r + np.cross(w, r) + (float(w @ r) / (1.0 + c)) * w


def reference_rmf(C, r0, steps):
    """The double-reflection RMF over the whole loop from ``r0`` at ``(0, 0)``, ``steps`` uniform
    steps per span, joints (and the closing joint) crossed by the minimal rotation: ``(normals
    per span on the grid i / steps, residual twist)``."""
    normals = []
    r = r0
    t_prev = None
    for P in C:
        x, d = bezier(P, np.arange(steps + 1) / steps)
        t = d / np.linalg.norm(d, axis=1)[:, None]
        if t_prev is not None:
            r = unit(minimal_rotation(r, t_prev, t[0]))
        rs = [r]
        for i in range(steps):
            v1 = x[i + 1] - x[i]
            rl, tl = reflect(r, v1), reflect(t[i], v1)
            r = reflect(rl, t[i + 1] - tl)
            r = unit(r - float(r @ t[i + 1]) * t[i + 1])
            rs.append(r)
        normals.append(np.array(rs))
        t_prev = t[-1]
    t0 = unit(bezier(C[0], [0.0])[1][0])
    back = unit(minimal_rotation(r, t_prev, t0))
    residual = math.atan2(float(np.cross(r0, back) @ t0), float(r0 @ back))
    return normals, residual


def arc_length(P, u0, u1, pieces=16):
    """``int |B'|`` over ``[u0, u1]`` by tanh-sinh quadrature at 25 digits on ``pieces`` equal
    pieces (one piece across a near-cusp errs by 1e-7)."""
    with mpmath.workdps(25):
        Q = [[mpmath.mpf(float(v)) for v in row] for row in P]

        def speed(u):
            s = 1 - u
            d = [3 * (s * s * (Q[1][i] - Q[0][i]) + 2 * s * u * (Q[2][i] - Q[1][i]) + u * u * (Q[3][i] - Q[2][i]))
                 for i in range(3)]
            return mpmath.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)

        value, error = mpmath.quad(speed, [u0 + (u1 - u0) * mpmath.mpf(i) / pieces for i in range(pieces + 1)],
                                   error=True)
        assert error < 1e-12  # far below DistanceError (1e-7 at the tightest)
        return float(value)


def angle(a, b):
    return 2.0 * math.atan2(float(np.linalg.norm(a - b)), float(np.linalg.norm(a + b)))


# --- The test --------------------------------------------------------------------------------


LOOPS = {
    "uneven ellipse, 4 spans, W = 1": (uneven_loop(4, 0.15, 0.6, 0.6), 1e-8, 1e-7, 1),
    "uneven ellipse, 6 spans, W = -2": (uneven_loop(6, 0.6, 0.1, 0.4), 1e-7, 1e-6, -2),
    "trefoil, 12 spans, W = 1": (trefoil(12), 1e-7, 1e-6, 1),
    "planar loop near a cusp, W = 1": (near_cusp_loop(0.02), 1e-7, 1e-7, 1),
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_distributed_twist_is_in_proportion_to_distance(name):
    src, tae, delta, winding = LOOPS[name]
    pv, fv = build(src, tae, delta, winding)
    assert fv.is_periodic and len(fv.runs) == 1
    C = pv.controls.astype(np.float64)
    n = C.shape[0]
    # the seed rule of the spec: SeedUp projected perpendicular to the first tangent
    t0 = unit(bezier(C[0], [0.0])[1][0])
    up = np.array([0.0, 0.0, 1.0])
    r0 = unit(up - float(up @ t0) * t0)
    fine, residual = reference_rmf(C, r0, STEPS)
    coarse, residual2 = reference_rmf(C, r0, STEPS // 2)
    ref_err = max(max(angle(fine[k][2 * i], coarse[k][i]) for i in range(STEPS // 2 + 1)) for k in range(n))
    ref_err = max(ref_err, abs(residual - residual2))
    assert ref_err < 1e-11
    spans = [arc_length(C[k], 0.0, 1.0) for k in range(n)]
    L = sum(spans)
    total = -residual + 2 * math.pi * winding
    A = fv.angular_error_estimate
    rng = np.random.default_rng(23)
    worst = 0.0
    linear_miss = 0.0
    for _ in range(16):
        k, i = int(rng.integers(0, n)), int(rng.integers(1, STEPS))
        u, roll = i / STEPS, float(rng.uniform(-3, 3))
        got = try_evaluate_frame(pv, fv, SegmentParameter(k, u), roll)
        assert got.ok, got.diagnostic
        s = sum(spans[:k]) + arc_length(C[k], 0.0, u)
        _, d = bezier(C[k], [u])
        t = unit(d[0])
        r = fine[k][i]
        phi = roll + total * s / L
        want = math.cos(phi) * r + math.sin(phi) * np.cross(t, r)
        tol = 4 * A + abs(total) * delta * (L + s) / (L * (L - delta)) + 4 * ref_err + 1e-12
        err = angle(np.asarray(got.value.normal), want)
        worst = max(worst, err / tol)
        assert err <= tol, (name, k, u, err, tol)
        # the same frame with the twist interpolated linearly in u between its baked samples
        lo = int(np.searchsorted(fv.sample_span, k, side="left"))
        hi = int(np.searchsorted(fv.sample_span, k, side="right"))
        j = lo + int(np.searchsorted(fv.sample_u[lo:hi], u, side="right")) - 1
        u0, u1 = float(fv.sample_u[j]), float(fv.sample_next_u[j])
        tw = fv.sample_twist[j] + (fv.sample_twist[j + 1] - fv.sample_twist[j]) * (u - u0) / (u1 - u0)
        linear = math.cos(roll + tw) * r + math.sin(roll + tw) * np.cross(t, r)
        linear_miss = max(linear_miss, angle(linear, want) / tol)
    assert worst <= 1.0
    assert linear_miss > 10  # the rule can tell a linear-in-u twist from the spec's
