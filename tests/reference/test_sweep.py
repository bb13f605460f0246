"""Sweep meshes: hand-derived fixtures (spec 002 "Sweeps") and bad-input statuses."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from oracles.families.frame import corpus as FC
from reference.status import GeometryStatus as GS, WorkLimits
from reference.sweep import (
    VERTEX_WIDTH, SweepCaps, SweepProfileKey, SweepRequest, SweepSection, SweepWinding, try_emit_sweep_mesh,
    try_plan_sweep_mesh,
)

LIMITS = WorkLimits(64, 64, 1 << 16, 30, 1 << 16, 1 << 26, 1 << 14)
LINE = [[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]]


def build(src, closed=False, twist=False, seed=(0.0, 0.0, 1.0)):
    case = FC._case("t", src, closed=closed, seed_up=seed,
                    closed_policy=FC._CLOSED.DistributeTwist if twist else FC._CLOSED.PreserveHolonomy)
    pv, mv, f = FC.build(case)
    assert f.ok, f.diagnostic
    return pv, mv, f.value.view()


def request(section=SweepSection.Tube, profile=None, caps=SweepCaps.None_, winding=SweepWinding.CounterClockwise,
            lerr=1e-3, xerr=None, **kw):
    profile = profile if profile is not None else [SweepProfileKey(0.0, 0.5, 0.0)]
    # 0.5 (1 - cos(pi/4)) is the sagitta of a square section of radius 0.5: exactly 4 segments.
    xerr = 0.5 * (1 - math.cos(math.pi / 4)) if xerr is None else xerr
    base = dict(max_section_segments=64, max_vertex_count=100000, max_index_count=600000, limits=LIMITS)
    base.update(kw)
    return SweepRequest(section, profile, caps, winding, lerr, xerr, **base)


def emit(pv, mv, fv, req):
    p = try_plan_sweep_mesh(pv, mv, fv, req)
    assert p.ok, p.diagnostic
    v = p.value.view()
    V = np.full((v.report.vertex_count, VERTEX_WIDTH), np.nan)
    I = np.full(v.report.index_count, -1, dtype=np.int64)
    assert try_emit_sweep_mesh(pv, v, V, I).ok
    return v, V, I.reshape(-1, 3)


def exact_normal(V, tri):
    p = [[Fraction(float(x)) for x in V[i, 0:3]] for i in tri]
    a = [p[1][k] - p[0][k] for k in range(3)]
    b = [p[2][k] - p[0][k] for k in range(3)]
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def test_straight_tube_four_segments_exact():
    pv, mv, fv = build(LINE)
    v, V, T = emit(pv, mv, fv, request())
    assert v.report.section_segments == 4 and v.report.ring_count == 2
    # Hand derivation: t = +x, seed z projects to N = +z, B = t x N = -y; angles 0, 90, 180, 270.
    r = 0.5
    ring = [(0, 0, r), (0, -r, 0), (0, 0, -r), (0, r, 0), (0, 0, r)]
    for i, x in enumerate((0.0, 3.0)):
        got = V[5 * i:5 * i + 5]
        np.testing.assert_array_equal(got[:, 0:3], np.array(ring) + [x, 0, 0])
        np.testing.assert_array_equal(got[:, 6], [0, 0.25, 0.5, 0.75, 1.0])  # seam vertex U = 1
        assert got[:, 7].tolist() == [x] * 5  # V: distance (estimate of an exact line length 3)
        np.testing.assert_array_equal(got[4, 0:6], got[0, 0:6])
        np.testing.assert_array_equal(got[:, 3:6] * r, np.array(ring))  # outward unit normals
    assert T.shape == (16 // 2, 3)


def test_tube_triangles_face_their_normals_and_clockwise_reverses():
    pv, mv, fv = build([[[0, 0, 0], [1, 0.5, 0], [2, 1, 0.3], [3, 0.5, 0.5]]])
    for caps in (SweepCaps.None_, SweepCaps.Flat):
        _v, V, T = emit(pv, mv, fv, request(caps=caps, xerr=1e-2))
        _vc, Vc, Tc = emit(pv, mv, fv, request(caps=caps, xerr=1e-2, winding=SweepWinding.Clockwise))
        np.testing.assert_array_equal(V, Vc)
        np.testing.assert_array_equal(Tc, T[:, [0, 2, 1]])
        for tri in T:
            n = exact_normal(V, tri)
            avg = V[tri, 3:6].sum(axis=0)
            assert sum(float(a) * b for a, b in zip(n, avg)) > 0
        for tri in Tc:
            n = exact_normal(Vc, tri)
            assert sum(float(a) * b for a, b in zip(n, Vc[tri, 3:6].sum(axis=0))) < 0


def test_ribbon_edge_order_and_normal():
    pv, mv, fv = build(LINE)
    v, V, T = emit(pv, mv, fv, request(section=SweepSection.Ribbon, profile=[SweepProfileKey(0.0, 2.0, 0.0)]))
    # Width 2: edges at -/+ 1 along B = -y, so the -B edge is +y; both face N = +z.
    np.testing.assert_array_equal(V[:, 0:3], [[0, 1, 0], [0, -1, 0], [3, 1, 0], [3, -1, 0]])
    np.testing.assert_array_equal(V[:, 3:6], [[0, 0, 1]] * 4)
    np.testing.assert_array_equal(V[:, 6], [0, 1, 0, 1])
    for tri in T:
        n = exact_normal(V, tri)
        assert n[2] > 0 and n[0] == 0 and n[1] == 0
    assert v.report.cross_section_error_estimate == 0.0


def test_ribbon_roll_quarter_turn():
    pv, mv, fv = build(LINE)
    _, V, _ = emit(pv, mv, fv, request(section=SweepSection.Ribbon,
                                       profile=[SweepProfileKey(0.0, 2.0, math.pi / 2)]))
    # Roll pi/2 about +x takes N = +z to -y, so B = t x N = x x (-y) = -z; the -B edge is at +z.
    np.testing.assert_allclose(V[0, 0:3], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(V[0, 3:6], [0, -1, 0], atol=1e-15)


def test_flat_caps_copy_rims_bitwise():
    pv, mv, fv = build([[[0, 0, 0], [1, 0.5, 0], [2, 1, 0.3], [3, 0.5, 0.5]]])
    v, V, _T = emit(pv, mv, fv, request(caps=SweepCaps.Flat, xerr=1e-2))
    n, r = v.report.section_segments, v.report.ring_count
    ring0, ringl = V[:n], V[(r - 1) * (n + 1):(r - 1) * (n + 1) + n]
    cap0, capl = V[r * (n + 1):r * (n + 1) + n + 1], V[r * (n + 1) + n + 1:]
    assert capl.shape[0] == n + 1
    assert cap0[1:, 0:3].tobytes() == ring0[:, 0:3].tobytes()
    assert capl[1:, 0:3].tobytes() == ringl[:, 0:3].tobytes()
    np.testing.assert_array_equal(cap0[:, 3:6], np.repeat(-v.ring_tangent[:1], n + 1, axis=0))
    np.testing.assert_array_equal(capl[:, 3:6], np.repeat(v.ring_tangent[-1:], n + 1, axis=0))
    assert v.report.index_count == (r - 1) * n * 6 + 2 * n * 3


def test_closed_loop_last_ring_equals_first():
    src = [FC._quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]
    pv, mv, fv = build(src, closed=True, twist=True)
    v, V, _T = emit(pv, mv, fv, request(caps=SweepCaps.Flat, xerr=1e-2, lerr=1e-2))
    n, r = v.report.section_segments, v.report.ring_count
    first, last = V[:n + 1], V[(r - 1) * (n + 1):r * (n + 1)]
    assert first[:, 0:6].tobytes() == last[:, 0:6].tobytes()
    assert np.all(last[:, 7] == mv.total_estimate) and np.all(first[:, 7] == 0.0)
    assert V.shape[0] == r * (n + 1)  # a closed tube has no caps


def test_closed_path_needs_periodic_frames():
    src = [FC._quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]
    pv, mv, fv = build(src, closed=True, twist=False)
    p = try_plan_sweep_mesh(pv, mv, fv, request(xerr=1e-2))
    assert p.status is GS.DegenerateFrame and "DistributeTwist" in p.diagnostic.message


def test_profile_scale_linear_and_clamped():
    pv, mv, fv = build(LINE)
    prof = [SweepProfileKey(0.5, 0.25, 0.0), SweepProfileKey(2.0, 0.5, 0.0)]
    v, _V, _ = emit(pv, mv, fv, request(section=SweepSection.Ribbon, profile=prof, lerr=1e-9))
    for s, sc in zip(v.ring_distance, v.ring_scale):
        want = 0.25 if s <= 0.5 else 0.5 if s >= 2 else 0.25 + 0.25 * (s - 0.5) / 1.5
        assert sc == pytest.approx(want, abs=1e-15)
    assert v.report.ring_count > 2  # the scale kink forces rings between the ends


def test_tight_bend_raises_risk():
    pv, mv, fv = build([FC._quarter((0, 0, 0), 1.0, 0.0)])
    ok = try_plan_sweep_mesh(pv, mv, fv, request(profile=[SweepProfileKey(0.0, 0.3, 0.0)], xerr=1e-2, lerr=1e-2))
    risky = try_plan_sweep_mesh(pv, mv, fv, request(profile=[SweepProfileKey(0.0, 1.2, 0.0)], xerr=1e-2,
                                                    lerr=1e-2))
    assert ok.value.view().report.self_intersection_risk_count == 0
    rr = risky.value.view().report
    assert rr.self_intersection_risk_count == rr.ring_count  # curvature about 1, radius 1.2


@pytest.mark.parametrize("change, status", [
    (dict(profile=[]), GS.InvalidArgument),
    (dict(profile=[SweepProfileKey(1.0, 0.5, 0), SweepProfileKey(0.5, 0.5, 0)]), GS.InvalidArgument),
    (dict(profile=[SweepProfileKey(0.0, 0.5, 0), SweepProfileKey(0.0, 0.5, 0)]), GS.InvalidArgument),
    (dict(profile=[SweepProfileKey(0.0, math.nan, 0)]), GS.InvalidArgument),
    (dict(profile=[SweepProfileKey(0.0, math.inf, 0)]), GS.InvalidArgument),
    (dict(profile=[SweepProfileKey(0.0, 0.0, 0)]), GS.InvalidDomain),
    (dict(profile=[SweepProfileKey(0.0, -1.0, 0)]), GS.InvalidDomain),
    (dict(longitudinal_error=0.0), GS.InvalidArgument),
    (dict(longitudinal_error=math.nan), GS.InvalidArgument),
    (dict(cross_section_error=1e13), GS.InvalidArgument),
    (dict(max_section_segments=0), GS.InvalidArgument),
    (dict(max_section_segments=1 << 20), GS.InvalidArgument),
    (dict(max_section_segments=3.5), GS.InvalidArgument),
    (dict(max_vertex_count=-1), GS.InvalidArgument),
    (dict(max_vertex_count=10), GS.CapacityExceeded),
    (dict(max_index_count=10), GS.CapacityExceeded),
    (dict(cross_section_error=1e-9), GS.BudgetExceeded),
    (dict(caps=SweepCaps.Flat, section=SweepSection.Ribbon), GS.InvalidArgument),
    (dict(limits=replace(LIMITS, max_depth=-1)), GS.InvalidArgument),
    (dict(limits=replace(LIMITS, max_samples=1)), GS.BudgetExceeded),
])
def test_bad_requests(change, status):
    pv, mv, fv = build([[[0, 0, 0], [1, 0.5, 0], [2, 1, 0.3], [3, 0.5, 0.5]]])
    diag = []
    p = try_plan_sweep_mesh(pv, mv, fv, replace(request(), **change), diag)
    assert p.status is status and p.value is None and diag[0].status is status


def test_frames_from_another_path_and_split_frames():
    pv, mv, _fv = build(LINE)
    _pv2, _mv2, fv2 = build([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]] * 1)
    other = replace(fv2, revision=fv2.revision + 1)
    assert try_plan_sweep_mesh(pv, mv, other, request()).status is GS.StaleRevision
    pvc, mvc, fvc = build([[[0, 0, 0], [1, 0, 0.2], [2, 0, 0.3], [3, 0, 0]],
                           [[3, 0, 0], [3, 1, 0.3], [3.2, 2, 0], [3, 3, 0.5]]])
    p = try_plan_sweep_mesh(pvc, mvc, fvc, request(xerr=1e-2))
    assert p.status is GS.DegenerateFrame and "split" in p.diagnostic.message


def test_emit_checks_before_writing():
    pv, mv, fv = build(LINE)
    v = try_plan_sweep_mesh(pv, mv, fv, request(caps=SweepCaps.Flat)).value.view()
    n_v, n_i = v.report.vertex_count, v.report.index_count
    V = np.full((n_v - 1, 8), 7.0)
    I = np.full(n_i, 7, dtype=np.int64)
    assert try_emit_sweep_mesh(pv, v, V, I).status is GS.CapacityExceeded
    assert np.all(V == 7.0) and np.all(I == 7)
    V = np.full((n_v, 8), 7.0)
    I2 = np.full(n_i - 1, 7, dtype=np.int64)
    assert try_emit_sweep_mesh(pv, v, V, I2).status is GS.CapacityExceeded
    assert np.all(V == 7.0) and np.all(I2 == 7)
    stale = replace(v, revision=v.revision + 1)
    assert try_emit_sweep_mesh(pv, stale, V, I).status is GS.StaleRevision
    assert np.all(V == 7.0)
    assert try_emit_sweep_mesh(pv, v, V.astype(np.float32), I).status is GS.InvalidArgument


@pytest.mark.parametrize("radius, xerr, limit", [(1e5, 1e-12, 64), (1e300, 1.0, 1 << 16), (1e3, 1e-12, 1 << 16),
                                                 (0.5, 0.5 * (1 - math.cos(math.pi / 65536)) * 0.999, 1 << 16)])
def test_a_tube_that_needs_more_segments_than_the_limit_is_budget_exceeded_at_once(radius, xerr, limit):
    """The fewest N with r (1 - cos(pi / N)) <= CrossSectionError is above max_section_segments:
    BudgetExceeded, at once (N near 10^9 and 10^150 used to be counted down one at a time). The
    last case sits one N past the largest limit: cos(pi / 65536) is still accurate there."""
    pv, mv, fv = build(LINE)
    req = replace(request(profile=[SweepProfileKey(0.0, radius, 0.0)]), cross_section_error=xerr,
                  max_section_segments=limit)
    p = try_plan_sweep_mesh(pv, mv, fv, req)
    assert p.status is GS.BudgetExceeded and p.diagnostic.field == "max_section_segments"


def test_the_limit_met_with_equality_still_plans():
    """N = 64 exactly (the sagitta of a 64-gon of radius 0.5): planned with max_section_segments = 64."""
    pv, mv, fv = build(LINE)
    req = replace(request(), cross_section_error=0.5 * (1 - math.cos(math.pi / 64)), max_section_segments=64)
    p = try_plan_sweep_mesh(pv, mv, fv, req)
    assert p.ok and p.value.view().report.section_segments == 64
