"""Unit tests of ``reference.query``: scratch capacity, certified results against independent
answers (geometry, exact rationals, SymPy roots), the result rule, and failures that leave the
caller's result and scratch untouched and allocate nothing."""

from __future__ import annotations

import dataclasses
import math
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
import sympy

from oracles.families.projection.corpus import _CORNER, _MIRROR, _circle, _spec_example, make_case, path_view
from reference.query import (
    MAX_ITERATIONS,
    ProjectionQuery,
    ProjectionResult,
    ProjectionScratch,
    compute_projection_scratch_capacity,
    precision_floor,
    project_point_approximate,
    try_project_point,
)
from reference.status import GeometryStatus as S
from reference.status import GuaranteeClass, SegmentParameter

LINE = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]], dtype=np.float64)


def view_of(source, gap, origin=(0, 0, 0), closed=False):
    return path_view(make_case("t", source, origin, [0, 0, 0], gap, closed=closed))


def reserved(view, iterations):
    s = ProjectionScratch()
    assert s.try_reserve(compute_projection_scratch_capacity(view, iterations).value).ok
    return s


def snapshot(r: ProjectionResult):
    """Every field bit for bit (floats as hex)."""
    return tuple(v.hex() if isinstance(v, float) else v for v in
                 (r.parameter.span_index, r.parameter.u, r.distance, r.lower_bound, r.gap,
                  r.is_gap_met, r.guarantee, r.iterations))


def scratch_state(s: ProjectionScratch):
    arrays = (s.iv_span, s.iv_u0, s.iv_u1, s.iv_lb, s.cand_span, s.cand_u, s.cand_ub)
    return s.capacity, [a.__array_interface__["data"][0] for a in arrays], [a.tobytes() for a in arrays]


def exact_sq_distance(controls32, q, span, u) -> Fraction:
    """|B(u) - q|^2 from the textbook Bernstein sum, in Fractions (independent of the kernels)."""
    u = Fraction(u)
    s = 1 - u
    w = (s**3, 3 * s * s * u, 3 * s * u * u, u**3)
    P = [[Fraction(float(x)) for x in row] for row in controls32[span]]
    return sum((sum(w[i] * P[i][c] for i in range(4)) - Fraction(q[c])) ** 2 for c in range(3))


def sympy_min_distance(controls32, q) -> float:
    """The global minimum distance from the roots of d/du |B(u) - q|^2 (SymPy, 50 digits)."""
    u = sympy.Symbol("u")
    best = None
    for P in controls32:
        Pr = [[sympy.Rational(Fraction(float(x))) for x in row] for row in P]
        B = [sum(sympy.binomial(3, i) * (1 - u) ** (3 - i) * u**i * Pr[i][c] for i in range(4))
             for c in range(3)]
        f = sympy.expand(sum((B[c] - sympy.Rational(Fraction(q[c]))) ** 2 for c in range(3)))
        cands = [sympy.Integer(0), sympy.Integer(1)]
        df = sympy.Poly(sympy.diff(f, u), u)
        if not df.is_zero:
            cands += [sympy.re(r) for r in df.nroots(n=50) if abs(sympy.im(r)) < 1e-30 and 0 <= sympy.re(r) <= 1]
        v = min(sympy.N(f.subs(u, c), 50) for c in cands)
        best = v if best is None else min(best, v)
    return float(sympy.sqrt(max(best, 0)))


# --- Capacity and scratch --------------------------------------------------------------------


def test_capacity_is_spans_plus_one_plus_iterations():
    v = view_of(_spec_example(), 1e-6)
    for it in (0, 1, 4096):
        assert compute_projection_scratch_capacity(v, it).value == 3 + 1 + it


@pytest.mark.parametrize("bad", [-1, 1.5, True, MAX_ITERATIONS + 1, "7"])
def test_capacity_rejects_bad_iteration_counts(bad):
    out = compute_projection_scratch_capacity(view_of(LINE, 1e-6), bad)
    assert out.status is S.InvalidArgument and out.diagnostic.field == "max_iterations"


def test_reserve_grows_once_and_rejects_bad_counts():
    s = ProjectionScratch()
    assert s.capacity == 0
    assert s.try_reserve(10).value == 10
    ptr = s.iv_lb.__array_interface__["data"][0]
    assert s.try_reserve(5).value == 10  # never shrinks, reallocates nothing
    assert s.iv_lb.__array_interface__["data"][0] == ptr
    for bad in (-1, 2.0, False, 2**31):
        assert s.try_reserve(bad).status is S.InvalidArgument
    assert s.capacity == 10


# --- Certified answers -----------------------------------------------------------------------


def check_certified(view, point, r: ProjectionResult, true_min: float, slack: float = 0.0):
    """The Certified chain with exact rationals where the truth is rational."""
    g = view.tolerance.projection_gap
    f = exact_sq_distance(view.controls, np.asarray(point) - view.origin, r.parameter.span_index, r.parameter.u)
    assert Fraction(r.distance) ** 2 >= f  # exact distance at the parameter <= Distance
    assert Fraction(r.distance) - Fraction(r.lower_bound) <= Fraction(r.gap) <= Fraction(g)
    assert r.lower_bound <= true_min + slack
    assert r.distance <= true_min + g + slack
    assert r.is_gap_met and r.guarantee is GuaranteeClass.Certified


@pytest.mark.parametrize("gap", [1e-3, 1e-9, 1e-12])
def test_line_point_above_its_middle(gap):
    v = view_of(LINE, gap)
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery([1.5, 2.0, 0.0], 64), reserved(v, 64), r).ok
    check_certified(v, [1.5, 2.0, 0.0], r, 2.0)  # the perpendicular foot is (1.5, 0, 0): u = 1/2
    assert abs(r.parameter.u - 0.5) <= 1e-3 and r.parameter.span_index == 0


def test_spec_example_against_sympy_roots():
    v = view_of(_spec_example(), 1e-9)
    r = ProjectionResult()
    point = [1.5, 0.0, 0.0]
    assert try_project_point(v, ProjectionQuery(point, 4096), reserved(v, 4096), r).ok
    m = sympy_min_distance(v.controls, point)
    check_certified(v, point, r, m, slack=1e-15)
    assert r.parameter.span_index == 1


@pytest.mark.parametrize("seed", range(4))
def test_random_paths_against_sympy_roots(seed):
    rng = np.random.default_rng(seed)
    src = np.cumsum(rng.normal(size=(2, 4, 3)), axis=1)
    src[1] += src[0, 3] - src[1, 0]
    point = rng.normal(size=3) * 2
    v = view_of(src, 1e-8)
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery(point, 4096), reserved(v, 4096), r).ok
    check_certified(v, point, r, sympy_min_distance(v.controls, point), slack=1e-14)


def test_point_on_a_span_start_needs_no_iteration():
    v = view_of(_spec_example(), 1e-12)
    point = v.controls[2, 0].astype(np.float64)  # exactly the prepared span start
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery(point, 0), reserved(v, 0), r).ok
    assert r.parameter == SegmentParameter(2, 0.0) and r.iterations == 0
    assert r.lower_bound == 0.0 and 0.0 <= r.distance <= 1e-14  # outward rounding only


def test_minimum_at_a_joint_is_named_by_the_outgoing_span():
    v = view_of(_CORNER, 1e-9)  # joint at (1, 0, 0), a right-angle corner
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery([1.25, -0.25, 0.0], 4096), reserved(v, 4096), r).ok
    assert r.parameter == SegmentParameter(1, 0.0)
    check_certified(v, [1.25, -0.25, 0.0], r, math.hypot(0.25, 0.25), slack=1e-15)


def test_terminal_endpoint_is_a_candidate_of_an_open_path_only():
    v = view_of(LINE, 1e-9)
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery([4.0, 0.0, 0.0], 0), reserved(v, 0), r).ok
    assert r.parameter == SegmentParameter(0, 1.0) and 1.0 <= r.distance <= 1.0 + 1e-14


def test_symmetric_minima_return_the_earlier_span():
    v = view_of(_MIRROR, 1e-9)  # span 1 is span 0 mirrored about x = 0, reversed
    for point in ([0.0, 3.0, 0.0], [0.0, 0.9, 0.25], [0.0, -1.0, 0.0]):
        r = ProjectionResult()
        assert try_project_point(v, ProjectionQuery(point, 4096), reserved(v, 4096), r).ok
        assert r.parameter.span_index == 0 or r.parameter == SegmentParameter(1, 0.0)


def test_closed_circle_centre_is_equidistant():
    c = _circle()
    v = view_of(c, 1e-5, closed=True)
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery([0.0, 0.0, 0.0], 4096), reserved(v, 4096), r).ok
    # Every span start lies on the unit circle, so (0, 0) is acceptable and earliest.
    assert r.parameter == SegmentParameter(0, 0.0)
    assert r.lower_bound <= 1.0 <= r.distance + 1e-16


def test_compiled_blossoms_are_the_kernels_bit_for_bit():
    # The search's compiled blossom (reference.query._halves) must be kernel.cubic_blossom in
    # F64 to the bit: subsegment_error_bound's analysis is of that evaluation.
    from reference import kernel as K
    from reference.context import F64
    from reference.query import _far_first, _halves

    rng = np.random.default_rng(5)
    out = np.zeros((7, 3))
    for _ in range(200):
        P = (rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-3, 6)).astype(np.float32).astype(np.float64)
        a = float(rng.integers(0, 2**20)) / 2**21
        b = a + float(rng.integers(2, 2**20)) / 2**21
        m = 0.5 * (a + b)
        _halves(P, a, m, b, out)
        for r, t in enumerate(((a, a, a), (a, a, m), (a, m, m), (m, m, m), (m, m, b), (m, b, b), (b, b, b))):
            t1, t2, t3 = sorted(t, key=lambda x: -abs(x - 0.5))  # farthest from 1/2 first, stable
            assert _far_first(*t) == (t1, t2, t3)
            want = K.cubic_blossom(F64, P, np.float64(t1), np.float64(t2), np.float64(t3))
            assert np.array_equal(out[r], want), (r, t)


def test_compiled_norms_are_fp_hypot_bit_for_bit():
    from reference.fp import hypot_hi, hypot_lo
    from reference.query import _norm_hi, _norm_lo

    rng = np.random.default_rng(6)
    with np.errstate(over="ignore"):  # squares beyond float64 saturate (lo) or overflow (hi)
        for v in rng.normal(size=(300, 3)) * 10.0 ** rng.uniform(-300, 300, (300, 1)):
            assert _norm_lo(*v) == hypot_lo(v) and _norm_hi(*v) == hypot_hi(v)


# --- Approximate -----------------------------------------------------------------------------


def test_approximate_with_no_iterations_returns_the_earliest_best_endpoint():
    ex = _spec_example()
    v = view_of(ex, 1e-12)
    point = [5.0, 4.0, 0.3]
    r = ProjectionResult()
    assert project_point_approximate(v, ProjectionQuery(point, 0), reserved(v, 0), r).ok
    assert not r.is_gap_met and r.guarantee is GuaranteeClass.Approximate and r.iterations == 0
    cands = [(k, 0.0) for k in range(3)] + [(2, 1.0)]
    d = [exact_sq_distance(v.controls, point, k, u) for k, u in cands]
    assert (r.parameter.span_index, r.parameter.u) == cands[d.index(min(d))]
    assert Fraction(r.distance) ** 2 >= min(d)


def test_approximate_equals_strict_when_the_gap_is_met():
    v = view_of(_spec_example(), 1e-6)
    s = reserved(v, 4096)
    a, b = ProjectionResult(), ProjectionResult()
    assert try_project_point(v, ProjectionQuery([1, 2, 0.1], 4096), s, a).ok
    assert project_point_approximate(v, ProjectionQuery([1, 2, 0.1], 4096), s, b).ok
    assert snapshot(a) == snapshot(b)


# --- Failures leave everything unchanged -----------------------------------------------------


def solved(view):
    r = ProjectionResult()
    assert try_project_point(view, ProjectionQuery([1.0, 2.0, 0.1], 4096), reserved(view, 4096), r).ok
    return r


def test_capacity_exceeded_before_any_work():
    v = view_of(_spec_example(), 1e-9)
    r = solved(v)
    before = snapshot(r)
    s = ProjectionScratch()
    s.try_reserve(3 + 1 + 99)  # one entry short of 100 iterations
    state = scratch_state(s)
    for fn in (try_project_point, project_point_approximate):
        for it in (100, 10**6):
            tracemalloc.start()
            out = fn(v, ProjectionQuery([1.5, 0, 0], it), s, r)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert out.status is S.CapacityExceeded and out.value is None
            assert snapshot(r) == before and scratch_state(s) == state
            assert peak < 8192  # the diagnostic only: nothing sized by the request


def test_budget_exceeded_leaves_the_result_and_reports_the_gap_reached():
    v = view_of(_spec_example(), 1e-9)
    r = solved(v)
    before = snapshot(r)
    s = reserved(v, 4096)
    out = try_project_point(v, ProjectionQuery([1.5, 0, 0], 3), s, r)
    assert out.status is S.BudgetExceeded and snapshot(r) == before
    assert out.diagnostic.achieved > 1e-9


def test_unsupported_precision_far_from_the_chunk_origin():
    ex = _spec_example() + 1e6
    v = view_of(ex, 1e-12, origin=(1e6, 1e6, 1e6))
    r = solved(view_of(_spec_example(), 1e-9))
    before = snapshot(r)
    point = np.array([1e6 + 1.5, 1e6, 1e6 + 1e9])  # 1e9 from the origin: ulp64 ~ 1.2e-7
    out = try_project_point(v, ProjectionQuery(point, 4096), reserved(v, 4096), r)
    assert out.status is S.UnsupportedPrecision and snapshot(r) == before
    assert out.diagnostic.value >= 1e-12
    # The approximate variant still answers.
    a = ProjectionResult()
    assert project_point_approximate(v, ProjectionQuery(point, 16), reserved(v, 16), a).ok
    assert a.guarantee is GuaranteeClass.Approximate


def test_precision_floor_decides_unsupported_exactly_at_the_gap():
    v = view_of(_spec_example(), 1e-6)
    point = np.array([1.5, 0.0, 0.0])
    from reference.fp import sub_hi, sub_lo

    floor = precision_floor(v, sub_lo(point, v.origin), sub_hi(point, v.origin))
    for gap, status in ((floor, S.UnsupportedPrecision), (np.nextafter(floor, 1.0), None)):
        w = dataclasses.replace(v, tolerance=dataclasses.replace(v.tolerance, projection_gap=float(gap)))
        out = try_project_point(w, ProjectionQuery(point, 0), reserved(w, 0), ProjectionResult())
        if status is None:
            assert out.status is not S.UnsupportedPrecision
        else:
            assert out.status is status


@pytest.mark.parametrize("point", [[math.nan, 0, 0], [0, math.inf, 0], [0, 0], [[1, 2, 3]], "abc"])
def test_bad_points_are_invalid_arguments(point):
    v = view_of(LINE, 1e-6)
    r = solved(v)
    before = snapshot(r)
    out = try_project_point(v, ProjectionQuery(point, 8), reserved(v, 8), r)
    assert out.status is S.InvalidArgument and snapshot(r) == before


def test_huge_query_point_is_unsupported():
    v = view_of(LINE, 1e-6)
    out = project_point_approximate(v, ProjectionQuery([1e200, 0, 0], 8), reserved(v, 8), ProjectionResult())
    assert out.status is S.UnsupportedPrecision


def test_wrong_types_raise():
    v = view_of(LINE, 1e-6)
    s = reserved(v, 8)
    q = ProjectionQuery([0, 0, 0], 8)
    for args in ((None, q, s, ProjectionResult()), (v, None, s, ProjectionResult()),
                 (v, q, None, ProjectionResult()), (v, q, s, {})):
        with pytest.raises(TypeError):
            try_project_point(*args)


def test_queries_allocate_nothing_that_grows_with_iterations():
    v = view_of(_circle(), 1e-12, closed=True)  # the centre: equidistant, converges slowly
    s = reserved(v, 1300)
    state = scratch_state(s)[:2]
    peaks = {}
    for it in (30, 1300):
        r = ProjectionResult()
        tracemalloc.start()
        out = try_project_point(v, ProjectionQuery([0, 0, 0], it), s, r)
        peaks[it] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert out.status is S.BudgetExceeded
    assert scratch_state(s)[:2] == state  # same capacity, same buffers
    # Per-call temporaries only: the peak is independent of the iteration count and far below
    # what 1300 iterations of entries would take (7 arrays x 8 bytes x 1300).
    assert peaks[1300] <= peaks[30] + 4096
    assert peaks[1300] < 7 * 8 * 1300 / 2


def test_approximate_stops_at_float64_resolution_below_the_precision_floor():
    # Far from the origin the slack exceeds a 1e-12 gap: strict refuses before any work, the
    # approximate search splits until an interval has no float64 midpoint, then reports.
    shift = np.array([3e3, -2e3, 1e3])
    v = view_of(_spec_example() + shift, 1e-12)
    point = np.array([1.0, 2.0, 0.1]) + shift
    assert try_project_point(v, ProjectionQuery(point, 4096), reserved(v, 4096),
                             ProjectionResult()).status is S.UnsupportedPrecision
    r = ProjectionResult()
    assert project_point_approximate(v, ProjectionQuery(point, 4096), reserved(v, 4096), r).ok
    assert not r.is_gap_met and r.guarantee is GuaranteeClass.Approximate
    assert r.iterations < 4096  # stopped by resolution, not by the budget
    assert r.gap > 1e-12 and r.lower_bound <= r.distance


def test_closed_path_names_its_closing_joint_by_span_zero():
    v = view_of(_circle(), 1e-9, closed=True)  # the last span ends exactly on (1, 0, 0)
    r = ProjectionResult()
    assert try_project_point(v, ProjectionQuery([1.5, 0.0, 0.0], 4096), reserved(v, 4096), r).ok
    assert r.parameter == SegmentParameter(0, 0.0)  # not (3, 1.0): a closed path has no terminal
    assert 0.5 <= r.distance <= 0.5 + 1e-9 and r.lower_bound <= 0.5
    r = ProjectionResult()  # just below the joint the minimum is on the last span, near u = 1
    assert try_project_point(v, ProjectionQuery([1.5, -1e-3, 0.0], 4096), reserved(v, 4096), r).ok
    assert r.parameter.span_index == 3 and r.parameter.u > 0.99


@pytest.mark.parametrize("us,D", [
    (Fraction(1, 5), (50000, -20000, 35000)), (Fraction(2, 7), (-70000, 49000, 21000)),
    (Fraction(1, 3), (90000, 30000, -60000)), (Fraction(3, 10), (40000, 70000, -90000)),
    (Fraction(4, 9), (-81000, 27000, 63000)), (Fraction(5, 11), (33000, -99000, 44000)),
])
def test_points_on_cancelling_lines_get_a_zero_lower_bound(us, D):
    # An evenly parametrised straight line through the origin at u* = us, the query point at the
    # origin: it is on the curve (B(u*) = 0 exactly, float32 integers), so the minimum is 0 and
    # LowerBound must be 0. The computed subsegment controls near u* are differences of controls
    # of magnitude ~1e5; only their error term keeps the bounds at 0.
    src = np.array([[[float(d * (k - 3 * us)) for d in D] for k in range(4)]])
    assert all(d * (k - 3 * us) == int(d * (k - 3 * us)) for d in D for k in range(4))  # integers
    assert np.array_equal(src.astype(np.float32).astype(np.float64), src)
    v = view_of(src, 4e-9)
    for fn in (try_project_point, project_point_approximate):
        r = ProjectionResult()
        assert fn(v, ProjectionQuery([0.0, 0.0, 0.0], 200), reserved(v, 200), r).ok
        assert r.is_gap_met and r.lower_bound == 0.0
        f = exact_sq_distance(v.controls, [0.0, 0.0, 0.0], r.parameter.span_index, r.parameter.u)
        assert Fraction(r.distance) ** 2 >= f and r.distance <= 4e-9


def test_the_compiled_search_never_writes_past_its_scratch():
    # The capacity check happens before the kernel; the kernel checks again and reports an
    # overflow instead of writing out of bounds (numba does not bounds-check).
    from reference.error_model import subsegment_error_bound
    from reference.query import _OVERFLOW, _enclose_point, _search

    v = view_of(_spec_example(), 1e-12)
    P = v.controls.astype(np.float64)
    q = _enclose_point(np.array([1.0, 2.0, 0.1]), v.origin)
    for cap, iterations in ((0, 0), (3, 0), (3 + 1 + 5 - 1, 5)):  # none, no terminal, one split short
        s = ProjectionScratch()
        s.try_reserve(cap)
        guard = [a.copy() for a in s._arrays()]
        out = _search(P, subsegment_error_bound(P), False, q.lo, q.hi, q.c, q.r, 1e-12, iterations,
                      *s._arrays(), s.work)
        assert out[0] == _OVERFLOW
        assert all(a.shape == g.shape for a, g in zip(s._arrays(), guard))
