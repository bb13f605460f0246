"""Unit tests of reference.distance: the build (gap, order, ties, limits), cache pinning,
bounds and resolution. Expected values come from exact rational arithmetic written here
(straight spans whose arc length is known exactly), never from the code under test."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from reference.distance import (
    LEAF_BYTES,
    DistancePreparation,
    DistanceQuery,
    PreparedDistanceMap,
    distance_map_bytes,
    leaf_bounds,
    try_bound_distance,
    try_build_distance_map,
    try_resolve_distance,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import (
    BoundaryPolicy as P,
    GeometryStatus as S,
    PathDistance,
    SegmentParameter,
    ToleranceProfile,
    WorkLimits,
)


def tol(distance_error, continuity=1e-4, position_error=1e-4):
    return ToleranceProfile(position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
                            continuity_position=continuity, continuity_angle=1e-3, continuity_derivative=1e-3,
                            continuity_second_derivative=1e-3, distance_error=distance_error,
                            projection_gap=1e-3, tangent_angle_error=1e-3, minimum_speed=1e-9,
                            minimum_sin_angle=1e-3, normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


def limits(**kw):
    base = dict(max_spans=64, max_keys=64, max_leaves=1 << 16, max_depth=40, max_subdivisions=1 << 16,
                max_prepared_bytes=1 << 26, max_samples=64)
    base.update(kw)
    return WorkLimits(**base)


LIM = limits()


def path_of(src, distance_error=1e-3, revision=1, closed=False, continuity=1e-4, position_error=1e-4):
    src = np.asarray(src, dtype=np.float64)
    out = try_prepare_path(PathSource(spans_from_arrays(src, np.ones(len(src))), revision, closed),
                           PathPreparation(tol(distance_error, continuity, position_error), LIM))
    assert out.ok, out.diagnostic
    return out.value.view()


def build(path, lim=LIM):
    out = try_build_distance_map(path, DistancePreparation(lim))
    assert out.ok, out.diagnostic
    return out.value.view()


def curvy(n=3, seed=0):
    rng = np.random.default_rng(seed)
    pts = np.empty((n, 4, 3))
    p0 = np.zeros(3)
    for i in range(n):
        pts[i, 0] = p0
        pts[i, 1:] = p0 + np.cumsum(rng.normal(size=(3, 3)), axis=0)
        p0 = pts[i, 3]
    return pts


def straight(a, b):
    """A uniformly parametrized straight span: B(u) = a + u (b - a), so L(u) = u |b - a|."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.stack([a, a + (b - a) / 3, a + 2 * (b - a) / 3, b])


def test_build_meets_distance_error_and_partitions_spans():
    path = path_of(curvy(), 1e-4)
    m = build(path)
    assert m.is_built and m.revision == 1 and m.span_count == 3
    assert Fraction(m.total_upper) - Fraction(m.total_lower) <= Fraction(1e-4)  # exact check
    for k in range(3):
        a, b = m.span_first_leaf[k], m.span_first_leaf[k + 1]
        u0, u1 = m.leaf_u0[a:b], m.leaf_u1[a:b]
        assert u0[0] == 0.0 and u1[-1] == 1.0 and np.all(u0[1:] == u1[:-1])
        w = u1 - u0
        assert np.all(w == 2.0 ** np.round(np.log2(w)))  # dyadic leaves
        assert np.all(m.leaf_span[a:b] == k)
    for arr in (m.leaf_lower, m.prefix_lower, m.prefix_estimate, m.span_first_leaf):
        assert not arr.flags.writeable


def test_prefix_bounds_are_outward_sums_of_leaf_bounds():
    m = build(path_of(curvy(2, 3), 1e-5))
    lo_sum, hi_sum = Fraction(0), Fraction(0)
    for i in range(m.leaf_count):
        assert Fraction(m.prefix_lower[i]) <= lo_sum and Fraction(m.prefix_upper[i]) >= hi_sum
        lo_sum += Fraction(m.leaf_lower[i])
        hi_sum += Fraction(m.leaf_upper[i])
    assert Fraction(m.total_lower) <= lo_sum and Fraction(m.total_upper) >= hi_sum


def test_estimates_lie_inside_their_intervals_and_prefix_estimates_increase():
    m = build(path_of(curvy(), 1e-3))
    assert np.all(m.leaf_lower <= m.leaf_estimate) and np.all(m.leaf_estimate <= m.leaf_upper)
    assert np.all(m.prefix_lower <= m.prefix_estimate) and np.all(m.prefix_estimate <= m.prefix_upper)
    assert np.all(np.diff(m.prefix_estimate) >= 0)
    assert m.total_lower <= m.total_estimate <= m.total_upper


@pytest.mark.parametrize("k", [-145, -60, 0, 40, 100])
def test_straight_span_brackets_its_exact_length(k):
    # Controls 0, 3d, 6d, 9d with d = (3, 4, 0) 2^k (exact float32, subnormal at k = -145):
    # B(u) = 9u d, so the arc length of [u0, u1] is exactly 45 (u1 - u0) 2^k.
    d = np.array([3.0, 4.0, 0.0]) * 2.0**k
    P = np.stack([0 * d, 3 * d, 6 * d, 9 * d]).astype(np.float32)
    assert np.all(P.astype(np.float64) == np.stack([0 * d, 3 * d, 6 * d, 9 * d]))
    for u0, u1 in ((0.0, 1.0), (0.125, 0.75), (0.3, 0.7), (0.0, 2.0**-30)):
        lo, hi, est = leaf_bounds(P[None], np.array([u0]), np.array([u1]))
        exact = 45 * (Fraction(u1) - Fraction(u0)) * Fraction(2) ** k
        assert Fraction(lo[0]) <= exact <= Fraction(hi[0])
        assert lo[0] <= est[0] <= hi[0]
        if k > -100:  # away from subnormals the bracket is tight
            assert Fraction(hi[0]) - Fraction(lo[0]) <= Fraction(45 * 2.0**k) * Fraction(1, 2**40)


def test_largest_gap_splits_first_and_ties_go_to_the_earlier_span():
    src = curvy(1, 5)
    twin = np.concatenate([src, src])  # two identical spans: bitwise equal gaps
    path = path_of(twin, 1.0, continuity=1e6)
    g = leaf_bounds(path.controls[:1], np.array([0.0]), np.array([1.0]))
    gap0 = float(g[1][0] - g[0][0])
    # A distance_error that one split of either span meets (children keep under a third).
    path = path_of(twin, 2 * gap0 * 0.8, continuity=1e6)
    m = build(path)
    counts = np.diff(m.span_first_leaf)
    assert list(counts) == [2, 1], counts


def test_budget_exhaustion_reports_the_achieved_gap_and_keeps_the_previous_map():
    path = path_of(curvy(), 1e-6)
    previous = build(path_of(curvy(), 1e-2))
    for lim, field in ((limits(max_leaves=20), "max_leaves"), (limits(max_depth=2), "max_depth"),
                       (limits(max_subdivisions=5), "max_subdivisions"),
                       (limits(max_prepared_bytes=distance_map_bytes(10, 3)), "max_prepared_bytes")):
        diag = []
        out = try_build_distance_map(path, DistancePreparation(lim), diag)
        assert out.status is S.BudgetExceeded and out.value is None and diag == [out.diagnostic]
        assert out.diagnostic.field == field
        assert out.diagnostic.achieved > 1e-6 and np.isfinite(out.diagnostic.achieved)
    # The previously built map is untouched and still answers queries.
    prev_path = path_of(curvy(), 1e-2)
    r = try_resolve_distance(prev_path, previous, DistanceQuery(PathDistance(1.0), P.Reject, 128))
    assert r.ok and r.value.residual_bound <= 1e-2


def test_zero_limits_allow_no_work():
    path = path_of(curvy(), 1e-3)
    zero = WorkLimits(max_spans=0, max_keys=0, max_leaves=0, max_depth=0, max_subdivisions=0,
                      max_prepared_bytes=0, max_samples=0)
    assert try_build_distance_map(path, DistancePreparation(zero)).status is S.BudgetExceeded
    # no subdivisions: a straight path meets its error without any split
    line = path_of([straight([0, 0, 0], [3, 4, 0])], 1e-3)
    m = build(line, limits(max_subdivisions=0))
    assert m.leaf_count == 1


def test_strict_only_and_limits_validated():
    path = path_of(curvy(), 1e-3)
    assert try_build_distance_map(path, DistancePreparation(LIM, strict=False)).status is S.UnsupportedPrecision
    assert try_build_distance_map(path, DistancePreparation(limits(max_depth=99))).status is S.InvalidArgument


def test_missing_cache_and_stale_revision():
    src = curvy()
    path1 = path_of(src, 1e-3, revision=1)
    m = build(path1)
    q = DistanceQuery(PathDistance(1.0), P.Reject, 128)
    unbuilt = PreparedDistanceMap().view()
    assert try_resolve_distance(path1, unbuilt, q).status is S.MissingCache
    assert try_bound_distance(path1, unbuilt, SegmentParameter(0, 0.5)).status is S.MissingCache
    path2 = path_of(src, 1e-3, revision=2)
    assert try_resolve_distance(path2, m, q).status is S.StaleRevision
    assert try_bound_distance(path2, m, SegmentParameter(0, 0.5)).status is S.StaleRevision
    shorter = path_of(src[:2], 1e-3, revision=1)  # same revision, another span count
    assert try_resolve_distance(shorter, m, q).status is S.StaleRevision
    assert try_resolve_distance(path1, m, q).ok


def test_resolution_on_a_straight_path_has_a_true_residual_within_its_bound():
    # Two uniformly parametrized straight spans with integral thirds, |b - a| = |c - b| = 9:
    # the prefix length is exactly L(k, u) = 9 k + 9 u.
    a, b, c = np.array([0.0, 0, 0]), np.array([3.0, 6, 6]), np.array([9.0, 9, 12])
    path = path_of([straight(a, b), straight(b, c)], 1e-6)
    assert np.all(path.controls[0, 1] == np.float32([1, 2, 2]))
    m = build(path)
    assert Fraction(m.total_lower) <= 18 <= Fraction(m.total_upper)
    for s in list(np.linspace(0.0, m.total_estimate, 17)) + [4.5, 9.0, 13.25]:
        r = try_resolve_distance(path, m, DistanceQuery(PathDistance(float(s)), P.Reject, 128))
        assert r.ok, r.diagnostic
        at = r.value
        assert at.residual_bound <= 1e-6
        assert at.bound.lower <= at.bound.estimate <= at.bound.upper
        k, u = at.parameter.span_index, at.parameter.u
        exact = 9 * k + 9 * Fraction(u)
        assert abs(exact - Fraction(float(s))) <= Fraction(at.residual_bound)
        assert Fraction(at.bound.lower) <= exact <= Fraction(at.bound.upper)


def test_targets_on_stored_boundaries_resolve_exactly():
    path = path_of(curvy(), 1e-3)
    m = build(path)
    for j in range(0, m.leaf_count, max(1, m.leaf_count // 25)):
        s = float(m.prefix_estimate[j])
        r = try_resolve_distance(path, m, DistanceQuery(PathDistance(s), P.Reject, 128)).value
        first = int(np.searchsorted(m.prefix_estimate, s, side="left"))  # earliest equal boundary
        assert r.iterations == 0
        assert (r.parameter.span_index, r.parameter.u) == (int(m.leaf_span[first]), float(m.leaf_u0[first]))
        assert r.bound.lower == m.prefix_lower[first] and r.bound.upper == m.prefix_upper[first]


def test_ends_and_zero_length_runs():
    src = curvy(3, 2)
    p = src[1, 0].copy()
    src[1] = p  # a stationary middle span: a zero-length run
    src[2] += p - src[2, 0]
    path = path_of(src, 1e-3)
    m = build(path)
    q = lambda s, pol=P.Reject, it=128: try_resolve_distance(path, m, DistanceQuery(PathDistance(s), pol, it))
    r0 = q(0.0).value
    assert (r0.parameter.span_index, r0.parameter.u) == (0, 0.0)
    rT = q(m.total_estimate).value
    assert (rT.parameter.span_index, rT.parameter.u) == (2, 1.0)
    # The stationary span's leaves all have (nearly) zero estimates; the estimate at the start
    # of span 1 resolves to span 1 at u = 0 (the earliest parameter of the run).
    i1 = int(m.span_first_leaf[1])
    run = float(m.prefix_estimate[i1])
    r = q(run).value
    first = int(np.searchsorted(m.prefix_estimate, run, side="left"))
    assert (r.parameter.span_index, r.parameter.u) == (int(m.leaf_span[first]), float(m.leaf_u0[first]))
    assert r.parameter.span_index <= 1


def test_iteration_budget_and_policies():
    src = curvy()
    path = path_of(src, 1e-3)
    m = build(path)
    T = m.total_estimate
    mid_leaf = 0.5 * (m.prefix_estimate[3] + m.prefix_estimate[4])
    q = lambda s, pol=P.Reject, it=128: try_resolve_distance(path, m, DistanceQuery(PathDistance(s), pol, it))
    assert q(mid_leaf, it=3).status is S.BudgetExceeded
    assert q(mid_leaf, it=64).ok  # the spec: allow at least 64 iterations
    assert q(T * 1.01).status is S.InvalidDomain and q(-1.0).status is S.InvalidDomain
    c = q(T * 2, P.Clamp).value
    assert c.distance.value == T and (c.parameter.span_index, c.parameter.u) == (2, 1.0)
    assert q(-5.0, P.Clamp).value.parameter == SegmentParameter(0, 0.0)
    assert q(1.0, P.Wrap).status is S.InvalidArgument  # open path
    assert q(1.0, P.Hold).status is S.InvalidArgument
    assert q(float("nan"), P.Clamp).status is S.InvalidArgument
    assert q(1.0, P.Clamp, -1).status is S.InvalidArgument


def _closed_loop():
    """A closed three-span path of ``curvy`` spans and its distance map."""
    src = curvy(3, 4)
    src[-1, 3] = src[0, 0]
    path = path_of(src, 1e-3, closed=True)
    return path, build(path)


def test_wrap_on_a_closed_path_is_the_exact_remainder():
    path, m = _closed_loop()
    T = m.total_estimate
    q = lambda s: try_resolve_distance(path, m, DistanceQuery(PathDistance(s), P.Wrap, 128))
    for s in (T + 0.5, 3 * T + 0.25, -0.75, -2 * T - 0.125):
        r = q(s).value
        exact = Fraction(s) - Fraction(T) * (Fraction(s) / Fraction(T)).__floor__()
        # the reported target is the exact remainder, or its nearest float with the rounding
        # added to the residual bound
        assert abs(Fraction(r.distance.value) - exact) <= Fraction(r.residual_bound)
        assert 0.0 <= r.distance.value <= T and r.residual_bound <= 1e-3


def test_bound_distance_at_boundaries_interiors_and_outside():
    path = path_of(curvy(), 1e-3)
    m = build(path)
    for i in range(0, m.leaf_count, 7):
        b = try_bound_distance(path, m, SegmentParameter(int(m.leaf_span[i]), float(m.leaf_u0[i]))).value
        assert (b.lower, b.upper, b.estimate) == (m.prefix_lower[i], m.prefix_upper[i], m.prefix_estimate[i])
    end = try_bound_distance(path, m, SegmentParameter(2, 1.0)).value
    assert (end.lower, end.upper) == (m.total_lower, m.total_upper)
    prev = -1.0
    for u in np.linspace(0, 1, 33):
        b = try_bound_distance(path, m, SegmentParameter(1, float(u))).value
        assert b.lower <= b.estimate <= b.upper and b.upper - b.lower <= 1e-3 * (1 + 1e-9)
        assert b.estimate >= prev - 1e-12
        prev = b.estimate
    # the path's domain rules: (1, 1.5) names no point; (5, 0.5) is after the domain
    assert try_bound_distance(path, m, SegmentParameter(1, 1.5)).status is S.InvalidArgument
    assert try_bound_distance(path, m, SegmentParameter(5, 0.5)).status is S.InvalidDomain
    clamped = try_bound_distance(path, m, SegmentParameter(5, 0.5), P.Clamp).value
    assert (clamped.lower, clamped.upper) == (m.total_lower, m.total_upper)


def test_map_bytes():
    assert distance_map_bytes(10, 3) == 10 * LEAF_BYTES + 24 + 4 * 8


# --- Faults the evidence ledger's corpus also targets (tests/faults/catalogue/distance.py) ----


def test_straight_spans_far_from_the_origin_bracket_their_exact_length_at_non_dyadic_u():
    # Controls a + k d (exact float32) near 1.2e4: B(u) = a + 3u d, so the prefix length at
    # (0, u) is exactly 3 u |d| = 3 u 13/8 with d = (3, 4, 12) / 8. Only the subsegment widening
    # keeps the computed chord and polygon of [0, u] on the right side of it.
    a = np.array([12288.0, -8192.0, 4096.0])
    d = np.array([3.0, 4.0, 12.0]) / 8
    path = path_of([a + np.arange(4)[:, None] * d], 1e-9, position_error=0.1)
    assert np.all(path.controls[0].astype(np.float64) == a + np.arange(4)[:, None] * d)
    m = build(path)
    rng = np.random.default_rng(5)
    for u in list(rng.random(200)) + [1 / 3, 0.1, 0.7]:
        b = try_bound_distance(path, m, SegmentParameter(0, float(u))).value
        exact = 3 * Fraction(float(u)) * Fraction(13, 8)
        assert Fraction(b.lower) <= exact <= Fraction(b.upper), u
        assert b.lower <= b.estimate <= b.upper


def test_a_straight_span_along_an_axis_far_away_brackets_its_length():
    # Along y at x = 2^20, z = -2^19: the chord's x and z intervals straddle zero within the
    # widening (their smallest magnitude is 0), so the lower bound stays below 3 u 2^-9.
    x, z = 2.0**20, -(2.0**19)
    src = np.array([[x, 0.0, z], [x, 2.0**-9, z], [x, 2.0**-8, z], [x, 3 * 2.0**-9, z]])
    path = path_of([src], 1e-11, position_error=10.0)
    m = build(path)
    for u in np.linspace(0.01, 0.99, 23):
        b = try_bound_distance(path, m, SegmentParameter(0, float(u))).value
        exact = 3 * Fraction(float(u)) * Fraction(1, 2**9)
        assert Fraction(b.lower) <= exact <= Fraction(b.upper), u


def test_the_accepted_total_gap_fits_a_distance_error_just_below_a_certified_gap():
    # distance_error just below the exact Certified gap of a map that met a looser one: the
    # running float sum of gaps meets it there, the path-order (upward-rounded) recheck does not.
    src = curvy(3, 7)
    m0 = build(path_of(src, 1e-4))
    gap = Fraction(m0.total_upper) - Fraction(m0.total_lower)
    err = float(gap)
    if Fraction(err) >= gap:
        err = float(np.nextafter(err, -np.inf))
    assert err > float(np.sum(m0.leaf_upper - m0.leaf_lower))
    m = build(path_of(src, err))
    assert Fraction(m.total_upper) - Fraction(m.total_lower) <= Fraction(err)
    assert m.leaf_count > m0.leaf_count


def _bracket_lower(m, r):
    """The bisection's last short parameter: the result minus the leaf width over 2^iterations."""
    k, u = r.parameter.span_index, r.parameter.u
    if u == 0.0 and k > 0:
        k, u = k - 1, 1.0  # a renamed u = 1
    first, last = int(m.span_first_leaf[k]), int(m.span_first_leaf[k + 1])
    i = first + int(np.searchsorted(m.leaf_u1[first:last], u, side="left"))
    return k, u - (float(m.leaf_u1[i]) - float(m.leaf_u0[i])) * 2.0**-r.iterations


def test_bisection_finds_the_earliest_parameter_whose_estimate_reaches_the_target():
    path = path_of(curvy(3, 8), 1e-4)
    m = build(path)
    n = 0
    for s in np.random.default_rng(2).random(60) * m.total_estimate:
        r = try_resolve_distance(path, m, DistanceQuery(PathDistance(float(s)), P.Reject, 128)).value
        assert r.bound.estimate >= s  # the result reaches the target
        if r.iterations == 0:
            continue
        k, lo = _bracket_lower(m, r)
        short = try_bound_distance(path, m, SegmentParameter(k, lo)).value
        assert short.estimate < s  # the parameter just before it does not
        n += 1
    assert n >= 40


def test_a_bisection_that_ends_at_a_span_end_names_the_outgoing_span():
    n = 0
    for seed in range(12):
        path = path_of(curvy(3, seed), 1e-4)
        m = build(path)
        for k in range(2):
            j = int(m.span_first_leaf[k + 1])
            last = try_bound_distance(path, m, SegmentParameter(k, float(np.nextafter(1.0, 0.0)))).value
            s = float(np.nextafter(last.estimate, np.inf))
            if not s < m.prefix_estimate[j]:
                continue
            r = try_resolve_distance(path, m, DistanceQuery(PathDistance(s), P.Reject, 128)).value
            # Estimates are not monotone to the last float, so the bisection may stop before the
            # end; when it reaches u = 1 the result names the outgoing span.
            assert (r.parameter.span_index, r.parameter.u) != (k, 1.0)
            n += (r.parameter.span_index, r.parameter.u) == (k + 1, 0.0)
    assert n >= 3


def test_the_residual_covers_both_sides_of_the_prefix_bound():
    path = path_of(curvy(2, 9), 1e-4)
    m = build(path)
    for s in list(np.random.default_rng(3).random(60) * m.total_estimate) + list(m.prefix_estimate[::5]):
        r = try_resolve_distance(path, m, DistanceQuery(PathDistance(float(s)), P.Reject, 128)).value
        R, b, t = Fraction(r.residual_bound), r.bound, Fraction(float(s))
        assert R >= Fraction(b.upper) - t and R >= t - Fraction(b.lower)


def test_wrap_many_periods_away_is_the_exact_remainder():
    path, m = _closed_loop()
    T = m.total_estimate
    for s in ((1e6 + 0.3) * T, -(2.0**40) * T - 0.6 * T, 12345.678 * T):
        r = try_resolve_distance(path, m, DistanceQuery(PathDistance(s), P.Wrap, 128)).value
        exact = Fraction(s) - Fraction(T) * (Fraction(s) / Fraction(T)).__floor__()
        assert abs(Fraction(r.distance.value) - exact) <= Fraction(r.residual_bound), s


def test_leaf_bounds_of_a_batch_are_the_bits_of_each_leaf_alone():
    # The bisection evaluates several levels in one call (reference.distance._LOOKAHEAD); that
    # is only the same algorithm if each element's bits do not depend on its batch.
    rng = np.random.default_rng(11)
    P = curvy(4, 5).astype(np.float32)
    spans = rng.integers(0, 4, 200)
    u0 = rng.random(200) * 0.5
    u1 = u0 + rng.random(200) * 0.5 * 2.0 ** -rng.integers(0, 40, 200)
    together = leaf_bounds(P[spans], u0, u1)
    for j in range(200):
        alone = leaf_bounds(P[spans[j]:spans[j] + 1], u0[j:j + 1], u1[j:j + 1])
        assert [a[j].hex() for a in together] == [a[0].hex() for a in alone]


def test_the_bisection_looking_ahead_is_the_bisection_one_level_at_a_time(monkeypatch):
    import reference.distance as D

    def run():
        out = []
        for seed in (1, 4):
            path = path_of(curvy(3, seed), 1e-5)
            m = build(path)
            for s in list(np.random.default_rng(seed).random(40) * m.total_estimate) + list(m.prefix_estimate[1::3]):
                for it in (128, 7, 30):
                    r = try_resolve_distance(path, m, DistanceQuery(PathDistance(float(s)), P.Reject, it))
                    out.append((r.status, r.value) if r.ok else (r.status, r.diagnostic.message))
        return out

    ahead = run()
    monkeypatch.setattr(D, "_LOOKAHEAD", 1)  # one leaf_bounds call per step: the plain bisection
    assert run() == ahead
    assert {s for s, _ in ahead} == {S.Success, S.BudgetExceeded}
