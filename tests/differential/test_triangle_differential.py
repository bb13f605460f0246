"""Differential tests: the binary64 triangle-surface query against the exact rational oracle.

Hypothesis draws meshes and segments (free segments, segments through points on, near or
exactly at edges and vertices, near-parallel and grazing segments, slivers just above the
conditioning threshold, scaled and translated worlds, every tolerance from 32 epsilons to
1e-3). For each query the fast path's claims go
through the four checkers, which must never answer Violated; on top of the checkers' tolerance
bands, this fast path's bands include its rounding, so a miss must hide no exact contact at all
and a hit must have no exact contact earlier than its parameter minus the facets' error models.

``HYPOTHESIS_PROFILE=thorough`` runs 10,000 cases (acceptance); the default (ci) runs 200.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from oracles.families.triangle import (
    TriangleCase,
    analyse,
    case_claims,
    case_inputs,
    cube_mesh,
    generate,
    nudge,
    point_on_facet,
    segment_through,
)
from oracles.ledger import check_claim
from oracles.model import VerdictKind, dec
from reference.status import GeometryStatus
from reference.triangle_surface import SurfaceSettings, SurfaceStamp, TriangleSurface
from tests.profiles import examples

TOLERANCES = [32 * 2.0**-52, 1e-12, 1e-9, 1e-6, 1e-3]

coord = st.one_of(
    st.floats(-1, 1, allow_nan=False, allow_infinity=False),
    st.integers(-4, 4).map(float),
    st.integers(-64, 64).map(lambda k: k / 16),
)
vec = st.tuples(coord, coord, coord).map(lambda t: np.array(t, dtype=np.float64))
unit_dir = st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)).map(np.array).filter(
    lambda v: np.linalg.norm(v) > 1e-3)


@st.composite
def meshes(draw):
    n = draw(st.integers(1, 5))
    shared = draw(st.booleans())
    pts = [draw(vec) for _ in range(n + 2 if shared else 3 * n)]
    if shared:  # a strip: consecutive facets share an edge (ties on shared edges)
        tris = [(i, i + 1, i + 2) if i % 2 == 0 else (i + 1, i, i + 2) for i in range(n)]
    else:
        tris = [(3 * i, 3 * i + 1, 3 * i + 2) for i in range(n)]
    verts, tris = np.array(pts), np.array(tris, dtype=np.int64)
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    assume(np.all(np.linalg.norm(np.cross(b - a, c - a), axis=1) > 1e-6))
    return verts, tris


weights = st.one_of(
    st.sampled_from([(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]),  # vertices
    st.floats(0, 1).map(lambda r: (0.0, r, 1 - r)),  # edges
    st.floats(0, 1).map(lambda r: (r, 0.0, 1 - r)),
    st.floats(0, 1).map(lambda r: (r, 1 - r, 0.0)),
    st.tuples(st.floats(0.01, 1), st.floats(0.01, 1), st.floats(0.01, 1)).map(
        lambda w: tuple(x / sum(w) for x in w)),  # interior
)


@st.composite
def cases(draw):
    verts, tris = draw(meshes())
    tol = draw(st.sampled_from(TOLERANCES))
    if draw(st.integers(0, 4)) == 0:
        # A sliver just above the conditioning threshold: g ~ tol * 10**k, k in [0, 3].
        i = draw(st.integers(0, len(tris) - 1))
        a, b = verts[tris[i][0]], verts[tris[i][1]]
        perp = np.cross(b - a, draw(unit_dir))
        assume(np.linalg.norm(perp) > 1e-3)
        g = tol * 10.0 ** draw(st.floats(0.05, 3))
        verts = verts.copy()
        verts[tris[i][2]] = a + (b - a) * draw(st.floats(0.1, 0.9)) + perp * g
    mode = draw(st.sampled_from(["free", "through", "through", "parallel", "grazing"]))
    if mode == "free":
        s, e = draw(vec) * 2, draw(vec) * 2
    else:
        i = draw(st.integers(0, len(tris) - 1))
        a, b, c = verts[tris[i]]
        p = point_on_facet(a, b, c, draw(weights))
        p = nudge(p, draw(st.tuples(*[st.integers(-3, 3)] * 3)))
        if draw(st.booleans()):
            p = p + draw(vec) * 10.0 ** draw(st.integers(-17, -8))
        d = draw(unit_dir)
        if mode == "parallel":
            nrm = np.cross(b - a, c - a)
            nrm = nrm / np.linalg.norm(nrm)
            d = d - np.dot(d, nrm) * nrm
            assume(np.linalg.norm(d) > 1e-3)
            d = d / np.linalg.norm(d) + nrm * draw(st.sampled_from([-1, 1, 0])) * 10.0 ** draw(st.integers(-18, -3))
        before = draw(st.floats(0, 2))
        after = 0.0 if mode == "grazing" else draw(st.floats(0, 2))
        if mode == "grazing" and draw(st.booleans()):
            after = 10.0 ** draw(st.integers(-16, -10))
        s, e = segment_through(p, d, before, after)
    scale = draw(st.sampled_from([1.0, 1.0, 2.0**-600, 2.0**500, 1e-100, 1e-50, 1e50, 1e100]))
    off = draw(vec) * draw(st.sampled_from([0.0, 1.0, 1e3, 1e6]))
    verts, s, e = (verts + off) * scale, (s + off) * scale, (e + off) * scale
    assume(not np.array_equal(s, e))
    case = TriangleCase(mode, verts, tris, s, e, tol)
    assume(TriangleSurface.new(verts, tris, SurfaceStamp(0, 0), SurfaceSettings(tolerance=tol)).ok)
    return case


def _cube_case(s, e, **kw):
    v, t = cube_mesh(**kw)
    return TriangleCase("cube", v, t, np.array(s, dtype=float), np.array(e, dtype=float))


def _judge(case: TriangleCase):
    claims = case_claims(case)
    for c in claims:
        v = check_claim(c)
        assert v.kind is not VerdictKind.Violated, (c.row, v.note, v.witness, c.value, case_inputs(case))
    return claims


def _strict_soundness(case: TriangleCase, claims):
    """This fast path's bands include its rounding: nothing exact is hidden at all."""
    fh = [c for c in claims if c.row == "triangle.first_hit"]
    if not fh:
        return
    an = analyse(fh[0].inputs)
    if fh[0].value["outcome"] == "miss":
        hidden = [c.triangle for c in an.contacts if c.hit]
        assert not hidden, ("a miss hides exact contacts", hidden, case_inputs(case))
    else:
        t = dec(fh[0].value["t"])
        for c, m in zip(an.contacts, an.models):
            if c.hit:
                slack = m.r_t if m.r_t is not None else 0
                assert c.t_enter >= t - slack, ("earlier exact contact", c.triangle, case_inputs(case))


@settings(max_examples=examples(200, 10000), suppress_health_check=[HealthCheck.filter_too_much,
                                                                       HealthCheck.too_slow])
@given(case=cases())
@example(case=_cube_case([-0.625, 0.25, 0.625], [1.375, 0.25, 0.625]))
@example(case=_cube_case([-1, -1, 0.5], [1, 1, 0.5]))  # shared-edge tie
@example(case=_cube_case([-1, -1, -1], [1, 1, 1]))  # vertex
@example(case=_cube_case([-1, 0.5, 0], [2, 0.5, 0]))  # coplanar overlap
@example(case=_cube_case([-1, 0.5, 1e-13], [2, 0.5, 1e-13]))  # inside the band
@example(case=_cube_case([0, 0.25, 0.625], [-1, 0.25, 0.625]))  # start on the surface
@example(case=_cube_case([-1, 0.25, 0.625], [0, 0.25, 0.625]))  # end on the surface
@example(case=_cube_case([-0.625, 0.25, 0.625], [1.375, 0.25, 0.625], reverse=True))
@example(case=_cube_case(np.array([-0.625, 0.25, 0.625]) * 1e-100, np.array([1.375, 0.25, 0.625]) * 1e-100,
                         scale=1e-100))
@example(case=_cube_case(np.array([-0.625, 0.25, 0.625]) * 1e100, np.array([1.375, 0.25, 0.625]) * 1e100,
                         scale=1e100))
def test_no_hit_skips_and_no_miss_hides_an_exact_contact(case):
    claims = _judge(case)
    _strict_soundness(case, claims)


def test_corpus_is_judged_without_violation():
    """The ledger's own corpus (named cases and every random kind) through the same checks."""
    for case in generate(3, 300):
        _strict_soundness(case, _judge(case))


def test_conservative_rejection_is_rare_on_generic_queries():
    """Generic segments through generic facets (no planted degeneracy) are almost never
    rejected at the default tolerance; the rate on the adversarial corpus is in the ledger."""
    rng = np.random.default_rng(11)
    amb = total = 0
    for _ in range(300):
        verts = rng.uniform(-1, 1, (9, 3))
        tris = np.arange(9).reshape(3, 3)
        sf = TriangleSurface.new(verts, tris, SurfaceStamp(0, 0), SurfaceSettings()).value
        if sf is None:
            continue
        p = point_on_facet(*verts[tris[0]], rng.dirichlet([1, 1, 1]))
        s, e = segment_through(p, rng.standard_normal(3), rng.uniform(0.1, 1), rng.uniform(0.1, 1))
        total += 1
        amb += sf.first_hit(s, e).status is GeometryStatus.Ambiguous
    assert total > 250 and amb / total < 0.02


@pytest.mark.slow
def test_large_corpus_sweep():
    for case in generate(17, 5000):
        _strict_soundness(case, _judge(case))
