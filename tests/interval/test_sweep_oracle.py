"""The sweep oracle against independent truths: sympy-exact ring points, a circle's curvature,
a straight line's swept surface, point-triangle distances."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from interval.sweep import curvature_product_iv, ideal_points, may_fold, point_triangle_distance, ring_offsets_iv
from oracles.families.frame.corpus import _quarter

from interval.context import to_mpq


def test_ring_offsets_enclose_sympy_values():
    N, B = [0.0, 0.6, 0.8], [0.0, -0.8, 0.6]
    offs, _dirs = ring_offsets_iv(N, B, 0.75, 6, False)
    for j in range(6):
        a = 2 * sp.pi * j / 6
        for c in range(3):
            exact = sp.Rational(3, 4) * (sp.cos(a) * sp.Rational(N[c]) + sp.sin(a) * sp.Rational(B[c]))
            lo, hi = offs[j][c]
            q = sp.Rational(exact.evalf(60))
            assert to_mpq(0) <= hi - lo < to_mpq(2.0**-100)
            assert float(lo) <= float(q) <= float(hi)
    offs, _ = ring_offsets_iv(N, B, 2.0, 1, True)  # ribbon: -/+ B at width 2
    assert offs[0][1] == (to_mpq(0.8), to_mpq(0.8)) and offs[1][1] == (to_mpq(-0.8), to_mpq(-0.8))


def test_curvature_of_a_line_and_a_circle_arc():
    lo, hi = curvature_product_iv(np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], float), 0.3, 1.0)
    assert lo == 0 and hi < 1e-30
    # The cubic quarter circle of radius 2 has curvature 1/2 at its ends to about 2 percent (its
    # radial error); at u = 0 exactly: |B' x B''| / |B'|^3 with B' = 3 k r t0, B'' = 6 (P2 - 2 P1 + P0).
    P = _quarter((0, 0, 0), 2.0, 0.0)
    lo, hi = curvature_product_iv(P, 0.0, 1.0)
    d = 3 * (P[1] - P[0])
    dd = 6 * (P[2] - 2 * P[1] + P[0])
    want = sp.Rational(float(np.linalg.norm(np.cross(d, dd)))) / sp.Rational(float(np.linalg.norm(d))) ** 3
    assert abs(float(lo) - float(want)) < 1e-12 and abs(float(lo) - 0.5) < 2e-2 and hi - lo < 1e-25


def test_ideal_points_of_a_straight_tube():
    C = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]], float)
    pts, err = ideal_points(C, [0.0, 0.0, 1.0], [(0, 0.5, 0.5, math.pi / 2, [(1.0, 0.0), (0.0, 1.0)])])
    # Roll pi/2 about +x: N = +z -> -y; B = x x N -> -z. Radius 0.5 at x = 1.5.
    np.testing.assert_allclose(pts[0], [[1.5, -0.5, 0.0], [1.5, 0.0, -0.5]], atol=1e-15)
    assert err < 1e-20


def test_point_triangle_distance():
    a, b, c = np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
    p = np.array([[0.2, 0.2, 3.0], [2.0, 0.0, 0.0], [-1.0, -1.0, 0.0], [0.5, 0.5, 0.0], [1.0, 1.0, 0.0]])
    want = [3.0, 1.0, math.sqrt(2), 0.0, math.sqrt(0.5)]
    got = point_triangle_distance(p, np.tile(a, (5, 1)), np.tile(b, (5, 1)), np.tile(c, (5, 1)))
    np.testing.assert_allclose(got, want, atol=1e-15)


MAX = float.fromhex("0x1.fffffffffffffp+1023")


@pytest.mark.parametrize("scale", [2.0**-600, 1.0, 2.0**300, 2.0**600])
def test_point_triangle_distance_at_any_magnitude(scale):
    """Rows float64 cannot take as they are (cross products beyond 2^1024, a sliver 2^600 long
    beside a unit edge, a triangle spanning float64's whole range) against exact values: by
    construction, or sympy's Segment3D for an edge point. Never NaN."""

    s = scale
    p = np.array([[0.2 * s, 0.2 * s, 3 * s], [0.0, -0.25, 0.25], [0.0, 1.0, 1.0]])
    a = np.array([[0.0, 0.0, 0.0], [2.0**600, 0.0, 0.5], [-MAX, 0.0, 0.0]])
    b = np.array([[s, 0.0, 0.0], [0.0, -0.5, 0.0], [MAX, 0.0, 0.0]])
    c = np.array([[0.0, s, 0.0], [3.0, 0.0, 0.5], [0.0, MAX, 0.0]])
    edge = sp.Segment3D(sp.Point3D(0, sp.Rational(-1, 2), 0), sp.Point3D(3, 0, sp.Rational(1, 2)))
    want = [3 * s, float(edge.distance(sp.Point3D(0, sp.Rational(-1, 4), sp.Rational(1, 4)))), 1.0]
    got = point_triangle_distance(p, a, b, c)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    # A far vertex measured exactly past a caller's reach gives the same
    np.testing.assert_allclose(point_triangle_distance(p, a, b, c, exact_above=100.0), want, rtol=1e-15)
    far = point_triangle_distance(np.array([[0.0, 0.0, MAX]]), np.array([[0.0, 0.0, -MAX]]),
                                  np.array([[1.0, 0.0, -MAX]]), np.array([[0.0, 1.0, -MAX]]))
    assert far[0] == math.inf  # 2 MAX: beyond float64, +inf and never NaN


def test_ideal_frames_integrate_once_and_agree_with_the_loop_twist():
    from interval.sweep import ideal_frames, true_loop_twist
    from oracles.families.frame.corpus import _quarter

    # a planar closed loop has no holonomy; a chiral one has, and both routes give the same twist
    planar = np.array([_quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)])
    frames, twist, err = ideal_frames(planar, [0.0, 0.0, 1.0], [(0, 0.5), (3, 1.0)])
    assert abs(twist) < 1e-25 and err < 1e-24
    x, r, b = frames[(0, 0.5)]
    assert abs(r[2] - 1) < 1e-15 and abs(np.linalg.norm(x) - 1.5) < 0.01 and abs(b @ r) < 1e-15
    chiral = [_quarter((0, 0, 0), 1.0, k * math.pi / 2, z0=0.4 * k, dz=0.4) for k in range(3)]
    chiral.append(_quarter((0, 0, 0), 1.0, 1.5 * math.pi, z0=1.2, dz=-1.2))
    chiral = np.array(chiral)
    _, twist, _ = ideal_frames(chiral, [0.0, 0.0, 1.0], [(1, 0.25)])
    tw, _ = true_loop_twist(chiral, [0.0, 0.0, 1.0])
    assert abs(twist) > 0.1 and abs(twist - float(tw)) < 1e-15


# A span with a tight bend near u = 0.59 (the sweep differential run's seed 2329, 2026-12-07).
_BEND = np.array([[1.23442078, -0.46643019, -0.31101853], [1.22420681, -0.24840671, -0.22759742],
                  [1.16631722, -0.23693316, -0.16518748], [1.27966702, -0.37763479, -0.22402087]],
                 dtype=np.float32).astype(np.float64)


def _sympy_curvature_max(P, a, b):
    """The largest |B' x B''| / |B'|^3 on [a, b] from sympy: its exact derivative's real roots in
    [a, b] and the ends (an independent truth: exact polynomials, roots to 30 digits)."""
    u = sp.Symbol("u")
    Q = [[sp.Rational(float(x)) for x in row] for row in P]
    B = [sum(sp.binomial(3, i) * (1 - u) ** (3 - i) * u**i * Q[i][c] for i in range(4)) for c in range(3)]
    d1 = sp.Matrix([sp.diff(x, u) for x in B])
    d2 = sp.Matrix([sp.diff(x, u, 2) for x in B])
    k2 = sp.simplify(d1.cross(d2).dot(d1.cross(d2))) / d1.dot(d1) ** 3  # curvature squared
    num, _den = sp.fraction(sp.together(sp.diff(k2, u)))
    cands = [sp.Rational(a), sp.Rational(b)] + [r for r in sp.Poly(sp.expand(num), u).real_roots()
                                                   if sp.Rational(a) <= r <= sp.Rational(b)]
    return max(float(sp.sqrt(k2.subs(u, r)).evalf(30)) for r in cands)


def test_may_fold_agrees_with_the_exact_curvature_maximum():
    """``may_fold`` says False only where h times the curvature's maximum on the interval (from
    sympy's exact derivative) is below 1, and True where it reaches 1: on the bend between rings
    at u = 0.5625 and 0.625 the maximum is about 197.5, so h = 0.0062 folds and h = 0.0048 does
    not; within 5 % of 1 the bisection's budget may leave "may fold" (the safe side)."""
    kmax = _sympy_curvature_max(_BEND, 0.5625, 0.625)
    assert 190 < kmax < 205
    for h in (0.0062, 0.0051, 0.0050, 0.0049, 0.0048, 0.004, 0.002):
        got = may_fold(_BEND, 0.5625, 0.625, h)
        assert got or h * kmax < 1, h  # "no fold" is proved
        if h * kmax < 0.95:  # the bisection's resolution: 64 pieces settle a maximum 5 % below 1
            assert not got, h
    assert may_fold(_BEND, 0.5625, 0.625, 0.0062) and not may_fold(_BEND, 0.5625, 0.625, 0.0048)
    # at the rings alone the product stays below 1 (0.955 and 0.82): a check at the rings misses the fold
    assert curvature_product_iv(_BEND, 0.5625, 0.0062)[1] < 1 and curvature_product_iv(_BEND, 0.625, 0.0062)[1] < 1
    kmax_right = _sympy_curvature_max(_BEND, 0.625, 0.6875)
    assert 0.0062 * kmax_right < 1 and not may_fold(_BEND, 0.625, 0.6875, 0.0062)


def test_may_fold_is_true_where_the_speed_vanishes():
    """A cusp (B'(1/2) = 0) has unbounded curvature: any half-extent may fold there, and a piece
    whose speed may be 0 never shows otherwise."""
    cusp = np.array([[-1, 0, 0], [1, 1, 0.5], [-1, 1, 0.5], [1, 0, 0]], dtype=np.float64)
    assert may_fold(cusp, 0.4, 0.6, 1e-6)
    assert not may_fold(cusp, 0.0, 0.1, 1e-3)
