"""The six FacetSelection theorems, checked on what ``TriangleSurface.first_hit`` computes.

``test_statements.py`` checks the statements on Python renderings of the Lean definitions.
Here the data come from the implementation (``reference.triangle_surface``), read exactly as
rationals (every float64 is a dyadic rational):

* the published barycentric weights are nonnegative (``nonneg_weights_of_valid``); normalized
  exactly by their sum they are valid facet coordinates (``sum_weights_eq_one_of_valid``), and
  the barycentric point of the facet's exact vertices under them lies exactly on the facet's
  plane ``n . x = d`` with ``n = (b - a) x (c - a)``, ``d = n . a``
  (``barycentricPoint_on_plane_of_vertices_on_plane``); the published weights themselves sum to
  one within rounding;
* the selection over facets is the Lean ``minFold``: replaying it over the parameters that each
  facet alone yields (one single-facet surface per facet, the same arithmetic) gives the
  published t, which is the initial candidate or a list member, no greater than any candidate,
  and in [0, 1] (``minFold_eq_init_or_mem``, ``minFold_le_init_and_le_of_mem``,
  ``minFold_mem_unit_interval_of_mem_unit_interval``); the published triangle is the lowest index
  attaining it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import assume, given, settings, strategies as st

from reference.status import GeometryStatus
from reference.triangle_surface import SurfaceSettings, SurfaceStamp, TriangleSurface
from tests.lean.test_statements import barycentric_point, dot, min_fold, valid_facet_coordinates
from tests.profiles import examples

STAMP = SurfaceStamp(identity=7, version=1)
coord = st.floats(-2.0, 2.0, allow_nan=False)


@st.composite
def stacked_facets(draw):
    """2..6 facets spread over heights z in [-1, 1], and a segment from below to above them
    through the middle of the box, so most queries hit."""
    k = draw(st.integers(2, 6))
    verts = []
    for _ in range(k):
        z = draw(st.floats(-1.0, 1.0, allow_nan=False))
        tilt = draw(st.floats(-0.5, 0.5, allow_nan=False))
        for _ in range(3):
            x, y = draw(coord), draw(coord)
            verts.append((x, y, z + tilt * x))
    start = (draw(st.floats(-0.5, 0.5)), draw(st.floats(-0.5, 0.5)), -3.0)
    end = (draw(st.floats(-0.5, 0.5)), draw(st.floats(-0.5, 0.5)), 3.0)
    if draw(st.booleans()):
        start, end = end, start
    return np.array(verts), np.arange(3 * k).reshape(k, 3), np.array(start), np.array(end)


def _surface(verts, tris):
    out = TriangleSurface.new(verts, tris, STAMP, SurfaceSettings())
    return out.value if out.ok else None


def _q(x):
    return [Fraction(float(v)) for v in x]


def _sub(p, q):
    return [a - b for a, b in zip(p, q)]


def _cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


@settings(max_examples=examples(60, 2000))
@given(stacked_facets())
def test_published_hits_satisfy_the_facet_selection_theorems(case):
    verts, tris, start, end = case
    surface = _surface(verts, tris)
    assume(surface is not None)  # a degenerate facet was rejected at admission
    out = surface.first_hit(start, end)
    assume(out.ok and out.value is not None)
    hit = out.value

    # Weights: nonnegative; exactly normalized they are valid, and their point is on the plane.
    w = _q(hit.barycentric)
    assert all(x >= 0 for x in w)
    total = sum(w)
    assert abs(total - 1) <= Fraction(8 * 2.0**-53)  # the published weights sum to one, rounded
    alpha, beta, gamma = (x / total for x in w)
    assert valid_facet_coordinates(alpha, beta, gamma)
    a, b, c = (_q(verts[i]) for i in tris[hit.triangle])
    n = _cross(_sub(b, a), _sub(c, a))
    d = dot(n, a)
    assert dot(n, b) == d and dot(n, c) == d  # the vertices are on the plane (hypotheses)
    assert dot(n, barycentric_point(a, b, c, alpha, beta, gamma)) == d

    # Selection: the published t is the min fold over each facet's own parameter.
    candidates = []
    for i in range(len(tris)):
        alone = _surface(verts, tris[i:i + 1])
        single = alone.first_hit(start, end)
        assert single.status is not GeometryStatus.Ambiguous  # else the whole query was ambiguous
        if single.ok and single.value is not None:
            candidates.append((Fraction(single.value.t), i))
    assert candidates, "a published hit needs a facet that is hit on its own"
    ts = [t for t, _ in candidates]
    best = min_fold(ts[0], ts[1:])
    assert Fraction(hit.t) == best
    assert best == ts[0] or best in ts[1:]
    assert all(best <= t for t in ts)
    assert 0 <= best <= 1
    assert hit.triangle == min(i for t, i in candidates if t == best)
