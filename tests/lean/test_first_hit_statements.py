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


# --- FirstHit.lean's statements on the fast path's published results (the exact corpus) ---------
#
# The binary64 query rounds, and spec 004's tolerance bands make it reject (Ambiguous) what it
# cannot decide, so the exact statements hold for its published results only up to the
# documented bands. What is compared, per published result on firsthit_model.corpus():
#
# * a miss: exactly no facet has an exact contact, coplanar ones included
#   (firstHit_eq_none_iff; the fast path calls a coplanar overlap ambiguous);
# * a hit on facet i (soundness, firstHit_sound): t in [0, 1]; facet i has an exact contact
#   (the model's crossing) at T_i with |t - T_i| <= R_t (the error model's parameter bound,
#   oracles.families.triangle.facet_model); the published weights are nonnegative and within R_l
#   of the exact ones; no facet has a coplanar contact;
# * completeness (firstHit_complete): for every facet j with an exact contact at T_j,
#   t <= T_j + B_j with B_j = tol + R_j, the band of docs/decisions.md;
# * the tie rule (firstHit_tie): on facets where the error model's exactness clause holds
#   (axis-aligned, exact coordinate differences: the computed t is RN(T)), an exact tie
#   T_j == T_i with j < i is a violation. Elsewhere a tie broken by rounding is within the
#   spec's rule (it speaks of computed parameters) and is only counted.

import functools  # noqa: E402

from interval import triangle as exact_triangle  # noqa: E402
from oracles.families.triangle import facet_model  # noqa: E402
from tests.lean import firsthit_model as FM  # noqa: E402


@functools.lru_cache(maxsize=1)
def _fast_path_results():
    """(case, outcome, exact contacts, facet models) for every corpus case the fast path admits."""
    rows = []
    for case in FM.corpus():
        verts = np.array([p for t in case.tris for p in t], dtype=np.float64)
        tris = np.arange(verts.shape[0]).reshape(-1, 3)
        surface = _surface(verts, tris)
        if surface is None:
            continue
        out = surface.first_hit(np.array(case.seg[0]), np.array(case.seg[1]))
        facets = [exact_triangle.exact_facet(*t) for t in case.tris]
        contacts = [exact_triangle.segment_contact(f, *case.seg, i) for i, f in enumerate(facets)]
        models = [facet_model(f, c, *case.seg) for f, c in zip(facets, contacts)]
        rows.append((case, out, contacts, models))
    return rows


def test_fast_path_misses_and_hits_satisfy_the_exact_first_hit_statements():
    tol = Fraction(SurfaceSettings().tolerance)
    counts = {"hit": 0, "miss": 0, "ambiguous": 0, "rounded_ties": 0}
    for case, out, contacts, models in _fast_path_results():
        tris, seg = case.exact()
        crossings = [FM.crossing(t, seg) for t in tris]
        # The Lean model and interval.triangle agree on point contacts (the #eval test shows
        # it for Lean; here for the Python rendering).
        assert [c is not None for c in crossings] == [c.kind == "point" for c in contacts]
        if out.status is GeometryStatus.Ambiguous:
            counts["ambiguous"] += 1
            continue
        assert out.ok, (case.kind, out.status)
        coplanar = [c.triangle for c in contacts if c.kind == "coplanar"]
        assert coplanar == [], f"case {case.key}: published a result past a coplanar overlap"
        h = out.value
        if h is None:
            counts["miss"] += 1
            assert FM.first_hit(tris, seg) is None and all(c is None for c in crossings)
            continue
        counts["hit"] += 1
        i, t = h.triangle, Fraction(h.t)
        ci, mi = crossings[i], models[i]
        assert 0 <= t <= 1 and ci is not None and mi.r_t is not None
        assert abs(t - ci[0]) <= mi.r_t
        w = _q(h.barycentric)
        assert all(x >= 0 for x in w)
        assert all(abs(x - y) <= r for x, y, r in zip(w, ci[1:], mi.r_l))
        assert h.facing.value.lower() == FM.facing(tris[i], seg)
        for j, (cj, mj) in enumerate(zip(crossings, models)):
            if cj is None:
                continue
            assert t <= cj[0] + tol + mj.r_t, f"case {case.key}: facet {j} hit earlier"
            if j < i and cj[0] == ci[0]:
                if mi.exact_t is not None and mj.exact_t is not None:
                    raise AssertionError(f"case {case.key}: exact tie with lower facet {j} not kept")
                counts["rounded_ties"] += 1
    assert counts["hit"] >= 100 and counts["miss"] >= 20
    assert counts["ambiguous"] >= 30  # the coplanar cases at least


def test_fast_path_keeps_the_lowest_index_on_exact_cube_ties():
    """The cube's shared edges and face diagonals are exact ties under the exactness clause:
    the published facet is the model's (lowest index) and t is RN(T)."""
    seen = 0
    for case, out, contacts, models in _fast_path_results():
        if not case.kind.startswith("cube") or not out.ok or out.value is None:
            continue
        tris, seg = case.exact()
        model = FM.first_hit(tris, seg)
        ts = [c[0] for c in (FM.crossing(t, seg) for t in tris) if c is not None]
        if ts.count(model.t) > 1:
            seen += 1
            # exactness clause: the computed t is the float nearest T (Fraction -> float rounds so)
            assert out.value.triangle == model.index and out.value.t == float(model.t)
    assert seen >= 3
