"""Fast path vs oracle for closest-point projection: every strict claim on random paths and
points is judged by the projection checkers (both oracles and the earliest rule; no Violated
verdict; 2,000 cases under the ``thorough`` profile, hypothesis ``target`` steering towards the
largest ``bound_use``), approximate claims are never failed, and the tie rule holds on
constructed mirror-symmetric paths, checked against exact rational distances."""

from __future__ import annotations

import numpy as np
from hypothesis import event, example, given, settings, target
from hypothesis import strategies as st

from interval.context import QQ
from interval.projection import exact_point, exact_squared_distance, squared_distance_coefficients
from oracles.families.projection import check_approximate, check_strict, make_case, make_claim, path_view
from oracles.model import VerdictKind
from reference import kernel as K
from reference.context import F64
from reference.query import (
    ProjectionQuery,
    ProjectionResult,
    ProjectionScratch,
    compute_projection_scratch_capacity,
    project_point_approximate,
    try_project_point,
)
from reference.status import GuaranteeClass as G
from reference.status import SegmentParameter
from tests.profiles import examples
from tests.strategies import controls32, float64_sources_near_origin

ITERATIONS = 2048


def run(case, iterations, approximate=False):
    view = path_view(case)
    s = ProjectionScratch()
    s.try_reserve(compute_projection_scratch_capacity(view, iterations).value)
    r = ProjectionResult()
    fn = project_point_approximate if approximate else try_project_point
    return view, fn(view, ProjectionQuery(case["point"], iterations), s, r), r


@st.composite
def projection_cases(draw):
    src, origin = draw(float64_sources_near_origin(max_coord=1e6, min_span=1e-2, spans=(1, 4), radius=10.0))
    n = src.shape[0]
    kind = draw(st.sampled_from(["on", "near", "box", "far"]))
    if kind in ("on", "near"):
        k = draw(st.integers(0, n - 1))
        u = draw(st.sampled_from([0.0, 1.0, 0.5]) | st.floats(0.0, 1.0))
        point = K.cubic_point(F64, src[k], np.float64(u))
        if kind == "near":
            point = point + np.array([draw(st.floats(-1.0, 1.0)) for _ in range(3)]) * 10.0 ** draw(st.integers(-6, 0))
    elif kind == "box":
        lo, hi = src.reshape(-1, 3).min(axis=0), src.reshape(-1, 3).max(axis=0)
        point = lo + (hi - lo) * np.array([draw(st.floats(0.0, 1.0)) for _ in range(3)])
    else:
        point = src[0, 0] + np.array([draw(st.floats(-1.0, 1.0)) for _ in range(3)]) * 1e4
    gap = 10.0 ** draw(st.integers(-9, -2))
    return make_case(f"hyp_{kind}", src, origin, point, gap, max_iterations=ITERATIONS)


@settings(max_examples=examples(60, 2000))
@given(projection_cases())
@example(make_case("spec_example", np.array([[[0, 0, 0], [1 / 3, 0, 0], [7 / 9, -2 / 9, 0], [1, 0, 0]]]),
                   np.zeros(3), np.array([0.5, -0.1, 0.0]), 1e-9))
def test_strict_claims_are_never_violated(case):
    view = path_view(case)
    if view is None:  # preparation refused the source (reported by the path rows)
        return
    view, out, r = run(case, ITERATIONS)
    event(f"strict: {out.status.value}")
    if out.ok:
        v = check_strict(make_claim("projection.strict", G.Certified, view, case, r, ITERATIONS))
        assert v.kind is not VerdictKind.Violated, (v.witness, v.note)
        if v.bound_use is not None:  # steer towards Distances at the edge of min + gap
            target(min(v.bound_use, 2.0), label="strict bound_use")
    a_view, a_out, a = run(case, 3, approximate=True)
    assert a_out.ok
    v = check_approximate(make_claim("projection.approximate", G.Approximate, a_view, case, a, 3,
                                 {"result_guarantee": a.guarantee.value}))
    assert v.kind is VerdictKind.Verified
    if v.bound_use is not None and not a.is_gap_met:  # towards evaluation errors at their model
        target(min(v.bound_use, 2.0), label="approximate bound_use")


@st.composite
def nasty_float32_cases(draw):
    """Prepared float32 controls drawn as hypothesis floats (zeros, subnormals, repeats, the
    range's ends): degenerate spans, cusps and coincident controls are common."""
    n = draw(st.integers(1, 3))
    spans = [draw(controls32(scale=1e3)).astype(np.float64) for _ in range(n)]
    for k in range(1, n):
        spans[k][0] = spans[k - 1][3]
    src = np.stack(spans)
    k, u = draw(st.integers(0, n - 1)), draw(st.floats(0.0, 1.0))
    on = K.cubic_point(F64, src[k], np.float64(u))
    point = draw(st.sampled_from([on, on + 1e-3, np.zeros(3), src[0, 0], np.full(3, 2e3)]))
    gap = 10.0 ** draw(st.integers(-9, 0))
    return make_case("nasty", src, np.zeros(3), point, gap, max_iterations=ITERATIONS)


@settings(max_examples=examples(30, 2000))
@given(nasty_float32_cases())
def test_strict_claims_on_nasty_float32_controls_are_never_violated(case):
    view = path_view(case)
    if view is None:
        return
    view, out, r = run(case, ITERATIONS)
    event(f"strict: {out.status.value}")
    if out.ok:
        v = check_strict(make_claim("projection.strict", G.Certified, view, case, r, ITERATIONS))
        assert v.kind is not VerdictKind.Violated, (v.witness, v.note)


@st.composite
def mirrored_cases(draw):
    """Span 0 ends on the plane x = 0; span 1 is span 0 mirrored in that plane and reversed.
    Negation is exact, so the prepared float32 curve is exactly symmetric."""
    c = st.floats(-4.0, 4.0, allow_nan=False)
    span = np.array([[-abs(draw(c)) - 0.5, draw(c), draw(c)] for _ in range(4)])
    span[3, 0] = 0.0
    mirror = (span * [-1.0, 1.0, 1.0])[::-1]
    point = np.array([0.0, draw(c), draw(c)])
    origin = np.array([0.0, draw(st.integers(-8, 8)) / 4, draw(st.integers(-8, 8)) / 4])
    return make_case("mirror", np.stack([span, mirror]), origin, point, 10.0 ** draw(st.integers(-9, -4)))


_SHRUNK = np.array([[[-3.5, 2.0, 0.0], [-5 / 6, 0.75, 0.0], [-0.5, 0.0, 2.0], [0.0, 3.5, 0.828125]],
                    [[0.0, 3.5, 0.828125], [0.5, 0.0, 2.0], [5 / 6, 0.75, 0.0], [3.5, 2.0, 0.0]]])


@settings(max_examples=examples(30, 2000))
@given(mirrored_cases())
@example(make_case("mirror_shrunk", _SHRUNK, np.zeros(3), np.array([0.0, 0.0, 2.25]), 1e-5))
def test_symmetric_minima_return_the_earlier_one(case):
    view, out, r = run(case, 4096)
    if not out.ok:
        return
    P = QQ.asarray(view.controls.astype(np.float64))
    q = exact_point(case["point"], view.origin)
    # The construction is exactly symmetric: span 1's squared-distance polynomial is span 0's
    # reversed, so every minimum on one span has a twin on the other.
    assert squared_distance_coefficients(P[1], q) == squared_distance_coefficients(P[0], q)[::-1]
    k, u = r.parameter.span_index, r.parameter.u
    assert k == 0 or r.parameter == SegmentParameter(1, 0.0), r
    if k == 0:
        twin = exact_squared_distance(view.controls, view.origin, case["point"], 1, 1.0 - u)
        assert twin == exact_squared_distance(view.controls, view.origin, case["point"], 0, u)
    v = check_strict(make_claim("projection.strict", G.Certified, view, case, r, 4096))
    assert v.kind is VerdictKind.Verified, (v.note, v.witness)
