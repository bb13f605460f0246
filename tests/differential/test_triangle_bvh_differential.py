"""Differential tests: ``first_hit`` through the facet hierarchy against the linear scan.

The linear scan (``bvh=False``) is the definition; the hierarchy (``bvh=True``) must give the
bit-identical outcome on every case: the same status, diagnostic (ambiguous facet index and
band), hit parameter bits, triangle, weight bits, normal bits, facing and stamp.

Cases: the triangle differential suite's adversarial single-query meshes (segments through,
near and exactly at edges and vertices, nudged by ulps, near-parallel, coplanar, grazing,
slivers, scaled and shifted worlds, every tolerance), soups of up to a few hundred facets
with duplicated facets (exact parameter ties), coplanar copies and segments aimed at facets or
past them, and soups of up to 1,500 facets (deep trees, where the node margins of
docs/decisions.md "Triangle first hit at scale: the conservative hierarchy" decide) with
segments tilted around every threshold, crossing a plane beyond either end, just outside an
edge, very short, far from the origin, over coplanar sheets and slivers.
``HYPOTHESIS_PROFILE=thorough`` runs 10,000 cases of each; the default runs 150.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracles.families.triangle import nudge, point_on_facet
from reference.triangle_surface import MIN_TOLERANCE, SurfaceSettings, SurfaceStamp, TriangleSurface
from tests.differential.test_triangle_differential import TOLERANCES, cases, unit_dir, weights
from tests.profiles import examples

SETTINGS = settings(max_examples=examples(150, 10_000), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def bits(x):
    return None if x is None else np.asarray(x, dtype=np.float64).tobytes()


def signature(out):
    d = out.diagnostic
    diag = None if d is None else (getattr(d, "index", None), getattr(d, "field", None), getattr(d, "message", None))
    v = out.value
    hit = None if v is None else (bits(v.t), v.triangle, bits(v.position), bits(v.barycentric), bits(v.normal),
                                  v.facing, v.stamp)
    return out.status, diag, hit, out.stamp


def assert_same(sf, s, e, block=4096):
    scan = sf.first_hit(s, e, block=block, bvh=False)
    tree = sf.first_hit(s, e, block=block, bvh=True)
    assert signature(tree) == signature(scan), (signature(scan), signature(tree))
    clip_a = sf.clip_segment(s, e, bvh=False)
    clip_b = sf.clip_segment(s, e, bvh=True)
    assert clip_a.status == clip_b.status
    if clip_a.ok:
        assert bits(clip_a.value.end) == bits(clip_b.value.end)
    return scan


@SETTINGS
@given(cases())
def test_bvh_matches_scan_on_adversarial_cases(case):
    sf = TriangleSurface.new(case.vertices, case.triangles, SurfaceStamp(3, 4),
                             SurfaceSettings(tolerance=case.tolerance)).value
    assert_same(sf, case.start, case.end)


@st.composite
def soups(draw):
    n = draw(st.integers(2, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    size = draw(st.sampled_from([0.05, 0.5, 2.0]))
    base = rng.uniform(-4, 4, (n, 3))
    if draw(st.booleans()):  # a lattice: equal coordinates, shared boxes, exact box touches
        base = np.round(base)
    verts = np.concatenate([base, base + rng.normal(0, size, (n, 3)), base + rng.normal(0, size, (n, 3))])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    dup = draw(st.integers(0, 3))
    if dup:  # duplicated facets (exact ties) and coplanar, shifted copies (coplanar overlaps)
        pick = rng.integers(0, n, dup)
        extra = tris[pick][:, [1, 2, 0]] if draw(st.booleans()) else tris[pick]
        tris = np.concatenate([tris, extra])
        a, b, c = (verts[tris[pick][:, k]] for k in range(3))
        shift = (b - a) * 0.25
        nv = verts.shape[0]
        verts = np.concatenate([verts, a + shift, b + shift, c + shift])
        tris = np.concatenate([tris, np.stack([nv + np.arange(dup), nv + dup + np.arange(dup),
                                               nv + 2 * dup + np.arange(dup)], axis=1)])
    tol = draw(st.sampled_from(TOLERANCES))
    made = TriangleSurface.new(verts, tris, SurfaceStamp(1, 2), SurfaceSettings(tolerance=tol))
    assume(made.ok)
    sf = made.value
    mode = draw(st.sampled_from(["free", "aim", "aim", "near", "parallel", "end"]))
    if mode == "free":
        s, e = rng.uniform(-6, 6, 3), rng.uniform(-6, 6, 3)
    else:
        i = draw(st.integers(0, tris.shape[0] - 1))
        a, b, c = verts[tris[i]]
        p = point_on_facet(a, b, c, draw(weights))
        p = nudge(p, draw(st.tuples(*[st.integers(-2, 2)] * 3)))
        d = draw(unit_dir)
        if mode == "parallel":
            nrm = np.cross(b - a, c - a)
            nrm = nrm / np.linalg.norm(nrm)
            d = d - np.dot(d, nrm) * nrm
            assume(np.linalg.norm(d) > 1e-3)
            d = d + nrm * draw(st.sampled_from([-1, 0, 1])) * 10.0 ** draw(st.integers(-17, -6))
        if mode == "near":  # just past the facet's box: the hierarchy's boundary
            p = np.maximum(np.maximum(a, b), c) + 10.0 ** draw(st.integers(-15, -3))
        L = draw(st.floats(0.01, 10))
        if mode == "end":  # ends exactly on the facet point (t = 1 contacts and box touches)
            s, e = p - L * d, p
        else:
            s, e = p - L * d, p + draw(st.floats(0, 10)) * d
    assume(not np.array_equal(s, e))
    return sf, s, e


@SETTINGS
@given(soups(), st.sampled_from([4096, 4096, 7, 1]))
def test_bvh_matches_scan_on_soups(soup, block):
    sf, s, e = soup
    assert_same(sf, s, e, block)


def test_bvh_matches_scan_on_a_large_soup_with_ties():
    """1e4 facets (the default path takes the hierarchy) with every facet duplicated once:
    every hit is an exact tie, resolved to the lower index by both."""
    rng = np.random.default_rng(7)
    n = 5000
    base = rng.uniform(0, 100, (n, 3))
    verts = np.concatenate([base, base + rng.normal(0, 2, (n, 3)), base + rng.normal(0, 2, (n, 3))])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    tris = np.concatenate([tris, tris[::-1]])
    sf = TriangleSurface.new(verts, tris, SurfaceStamp(0, 0)).value
    hits = 0
    for _ in range(40):
        s, e = rng.uniform(0, 100, 3), rng.uniform(0, 100, 3)
        out = assert_same(sf, s, e)
        assert signature(sf.first_hit(s, e)) == signature(out)  # default = hierarchy here
        hits += out.ok and out.value is not None
    assert hits > 0


def test_bvh_rejects_a_non_bool_switch():
    sf = TriangleSurface.new(np.eye(3), np.array([[0, 1, 2]]), SurfaceStamp(0, 0)).value
    assert not sf.first_hit(np.zeros(3), np.ones(3), bvh="yes").ok


# --- adversarial shapes for the conservative culling ------------------------------------------

SIGMA_MIN = 2.0**-16  # reference.triangle_surface._SIGMA_MIN, restated: the grazing threshold floor


def _unit(v):
    return v / np.linalg.norm(v)


@st.composite
def culling_soups(draw):
    """Soups of up to ~1,500 facets (deep trees, so node margins decide) with segments placed
    where a wrong margin would show: tilted against a facet's plane by angles around every
    threshold (the near-parallel band, R_t of order 1, the grazing threshold sigma), crossing the
    facet's plane beyond either end of the segment (the 'parameter' and 'far' bands at a
    distance), just outside an edge (the weight band), very short, far from the origin, and
    with slivers (unsafe nodes)."""
    n = draw(st.integers(20, 1500))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = draw(st.sampled_from([0.05, 0.5, 2.0]))
    base = rng.uniform(-8, 8, (n, 3))
    if draw(st.booleans()):
        base = np.round(base)  # shared coordinates, touching boxes
    verts = np.concatenate([base, base + rng.normal(0, size, (n, 3)), base + rng.normal(0, size, (n, 3))])
    if draw(st.booleans()):  # a sheet of coplanar facets (a floor): many facets share a plane
        k = max(1, n // 4)
        verts[:k, 2] = verts[n:n + k, 2] = verts[2 * n:2 * n + k, 2] = 0.5
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    tol = draw(st.sampled_from(TOLERANCES))
    if draw(st.integers(0, 3)) == 0:  # slivers just above the conditioning threshold
        for i in rng.integers(0, n, 3):
            a, b = verts[tris[i][0]], verts[tris[i][1]]
            perp = np.cross(b - a, rng.normal(size=3))
            if np.linalg.norm(perp) > 1e-6:
                verts[tris[i][2]] = (a + (b - a) * 0.5
                                     + _unit(perp) * np.linalg.norm(b - a) * tol * 10.0 ** rng.uniform(0.1, 2))
    i = draw(st.integers(0, n - 1))
    a, b, c = verts[tris[i]]
    nrm = np.cross(b - a, c - a)
    assume(np.linalg.norm(nrm) > 0)
    nrm = _unit(nrm)
    sigma = max(SIGMA_MIN, 4 * tol)
    mode = draw(st.sampled_from(["graze", "graze", "edge", "short", "cross"]))
    L = draw(st.sampled_from([0.01, 1.0, 10.0, 30.0]))
    if mode == "graze":
        u = np.cross(nrm, rng.normal(size=3))
        assume(np.linalg.norm(u) > 1e-6)
        u = _unit(u)
        alpha = draw(st.sampled_from([0.0, 2.0**-60, 2.0**-45, 2.0**-40, 2.0**-30])) + tol * draw(
            st.sampled_from([0.0, 0.5, 1.0, 2.0, 4.0, 16.0])) + sigma * draw(
            st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.4, 1.5, 1.6, 2.0, 3.0, 8.0]))
        d = _unit(u + nrm * alpha * draw(st.sampled_from([-1.0, 1.0])))
        p = point_on_facet(a, b, c, draw(weights))
        tc = draw(st.sampled_from([-0.7, -0.2, 0.0, 0.3, 1.0, 1.1, 1.5, 1.9, 2.5]))
        s = p - tc * L * d
        e = s + L * d
    elif mode == "edge":
        w = list(draw(weights))
        p = point_on_facet(a, b, c, tuple(w))
        cen = (a + b + c) / 3
        out = p - cen - np.dot(p - cen, nrm) * nrm  # in-plane, outward from the centre
        assume(np.linalg.norm(out) > 0)
        p = p + _unit(out) * np.linalg.norm(b - a) * draw(st.sampled_from([0.0, 1e-16, 1e-13, 1e-10, 1e-6, 1e-3]))
        d = _unit(draw(unit_dir))
        t0 = draw(st.floats(0, 1))
        s, e = p - t0 * L * d, p + (1 - t0) * L * d
    elif mode == "short":
        p = point_on_facet(a, b, c, draw(weights))
        d = _unit(draw(unit_dir))
        h = 10.0 ** draw(st.integers(-13, -3))
        t0 = draw(st.floats(0, 1))
        s, e = p - t0 * h * d, p + (1 - t0) * h * d
    else:
        s, e = rng.uniform(-9, 9, 3), rng.uniform(-9, 9, 3)
    off = draw(st.sampled_from([0.0, 0.0, 1e3, 1e6, 2.0**30]))
    verts, s, e = verts + off, s + off, e + off
    assume(not np.array_equal(s, e))
    made = TriangleSurface.new(verts, tris, SurfaceStamp(5, 6), SurfaceSettings(tolerance=tol))
    assume(made.ok)
    return made.value, s, e


@settings(max_examples=examples(150, 10_000), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(culling_soups(), st.sampled_from([4096, 4096, 3]))
def test_bvh_matches_scan_where_margins_decide(soup, block):
    sf, s, e = soup
    assert_same(sf, s, e, block)


def test_a_grazing_facet_far_beyond_the_end_is_ambiguous_through_the_hierarchy():
    """A large tilted facet (plane z = x / 100) whose plane the segment's line crosses at
    t = 1.5, at a slope just above the near-parallel band: the parameter's bound R_t is of order
    1, so the scan calls it ambiguous although the segment ends 50 units before the crossing.
    The hierarchy must not cull it (it is a grazing facet: the normal grid finds it)."""
    rng = np.random.default_rng(3)
    n = 3000
    base = rng.uniform(0, 100, (n, 3))
    verts = np.concatenate([base, base + rng.normal(0, 1, (n, 3)), base + rng.normal(0, 1, (n, 3))])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    verts = np.concatenate([verts, [[0.0, 0, 0], [1000, 0, 10], [0, 1000, 0]]])
    tris = np.concatenate([tris, [[3 * n, 3 * n + 1, 3 * n + 2]]])
    # The smallest tolerance: the heights' rounding bound (|s - a| ~ 450, |d| = 100) then
    # dominates tol |d|, so just above the near-parallel band R_t is of order 1.
    sf = TriangleSurface.new(verts, tris, SurfaceStamp(0, 0), SurfaceSettings(tolerance=MIN_TOLERANCE)).value
    nrm = sf.normals[n]
    u = np.array([1.0, 0.0, 0.01]) / np.linalg.norm([1.0, 0.0, 0.01])
    p = np.array([500.0, 300.0, 5.0])
    bands = set()
    for k in range(70):
        slope = 1e-13 * 1.05**k
        d = u - slope * nrm
        s, e = p - 1.5 * 100 * d, p - 0.5 * 100 * d
        out = assert_same(sf, s, e)
        if not out.ok and out.diagnostic.index == n:
            bands.add(out.diagnostic.field)
    # some slopes make the far facet ambiguous (near-parallel, or R_t of order 1), and the
    # hierarchy agrees on every slope
    assert bands & {"parameter", "far"}, bands
