"""Unit tests of reference.triangle_surface: settings, admission, accessors, blocks and polling,
output conventions. Contacts against exact truth are in tests/contract and tests/differential."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.status import GeometryStatus as GS
from reference.triangle_surface import (
    BLOCK,
    CAPACITY_CEILING,
    DEFAULT_TOLERANCE,
    MAX_COORDINATE,
    MAX_TOLERANCE,
    MIN_TOLERANCE,
    Facing,
    SurfaceSettings,
    SurfaceStamp,
    TriangleSurface,
    validate_settings,
)
from tests.profiles import examples

STAMP = SurfaceStamp(1, 2)
SQUARE = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
SQ_T = np.array([[0, 1, 2], [0, 2, 3]])


def make(verts=SQUARE, tris=SQ_T, **kw):
    out = TriangleSurface.new(verts, tris, STAMP, SurfaceSettings(**kw))
    assert out.ok, out.diagnostic
    return out.value


class TestSettings:
    def test_defaults_and_constants(self):
        s = SurfaceSettings()
        assert s.tolerance == DEFAULT_TOLERANCE == 1e-12
        assert MIN_TOLERANCE == 32 * np.finfo(np.float64).eps and MAX_TOLERANCE == 1e-3
        assert validate_settings(s).ok

    @pytest.mark.parametrize("tol,ok", [(MIN_TOLERANCE, True), (np.nextafter(MIN_TOLERANCE, 0), False),
                                        (1e-3, True), (np.nextafter(1e-3, 1), False), (np.float32(1e-6), True),
                                        (True, False), ("1e-6", False), (math.inf, False), (-1e-6, False)])
    def test_tolerance_range(self, tol, ok):
        assert validate_settings(SurfaceSettings(tolerance=tol)).ok is ok

    @pytest.mark.parametrize("field", ["max_vertices", "max_triangles"])
    def test_capacity_range(self, field):
        assert validate_settings(SurfaceSettings(**{field: 1})).ok
        assert validate_settings(SurfaceSettings(**{field: CAPACITY_CEILING})).ok
        for bad in (0, CAPACITY_CEILING + 1, 2.0, True):
            out = validate_settings(SurfaceSettings(**{field: bad}))
            assert out.status is GS.InvalidArgument and out.diagnostic.field == field

    def test_not_settings_is_a_type_error(self):
        with pytest.raises(TypeError):
            validate_settings({"tolerance": 1e-12})


class TestAdmission:
    def test_inputs_are_converted_exactly(self):
        f32 = make(SQUARE.astype(np.float32))
        ints = make(SQUARE.astype(np.int32))
        assert f32.vertices.dtype == ints.vertices.dtype == np.float64
        assert np.array_equal(f32.vertices, SQUARE) and np.array_equal(ints.vertices, SQUARE)
        out = TriangleSurface.new(np.array([[2**60, 0, 0], [0, 1, 0], [0, 0, 1]]), [[0, 1, 2]], STAMP)
        assert out.status is GS.InvalidArgument  # not exact in binary64

    def test_coordinate_limit_is_inclusive(self):
        v = SQUARE * MAX_COORDINATE
        assert TriangleSurface.new(v, SQ_T, STAMP).ok
        v[2, 0] = np.nextafter(MAX_COORDINATE, np.inf)
        out = TriangleSurface.new(v, SQ_T, STAMP)
        assert out.status is GS.OutOfRange and out.diagnostic.index == 2

    def test_conditioning_threshold_is_strict(self):
        # e1 = (1,0,0), e2 = (0,h,0), m = 1: g = h exactly; it must exceed the tolerance.
        tol = 2.0**-40
        for h, status in ((tol, GS.IllConditioned), (np.nextafter(tol, 1), GS.Success)):
            v = np.array([[0.0, 0, 0], [1, 0, 0], [0, h, 0]])
            assert TriangleSurface.new(v, [[0, 1, 2]], STAMP, SurfaceSettings(tolerance=tol)).status is status

    def test_scale_invariance_of_the_conditioning(self):
        # The same sliver at 1e-200 and 1e200: scaling by the largest component keeps g.
        v = np.array([[0.0, 0, 0], [1, 0, 0], [0.5, 1e-11, 0]])
        for sc in (1e-200, 1.0, 1e200):
            assert TriangleSurface.new(v * sc, [[0, 1, 2]], STAMP).ok
            assert TriangleSurface.new(v * sc, [[0, 1, 2]], STAMP, SurfaceSettings(tolerance=1e-10)).status \
                is GS.IllConditioned

    def test_first_failure_wins_in_the_documented_order(self):
        v = SQUARE.copy()
        v[0, 0] = np.nan
        # capacity is checked before the vertices are read
        out = TriangleSurface.new(v, SQ_T, STAMP, SurfaceSettings(max_vertices=3))
        assert out.status is GS.CapacityExceeded
        out = TriangleSurface.new(v, np.array([[0, 1, 9]]), STAMP)
        assert out.status is GS.InvalidArgument and out.diagnostic.field == "vertices"

    def test_wrong_types(self):
        with pytest.raises(TypeError):
            TriangleSurface.new(SQUARE, SQ_T, (1, 2))
        with pytest.raises(TypeError):
            TriangleSurface(SQUARE, SQ_T, STAMP)
        assert TriangleSurface.new([["a", "b", "c"]], SQ_T, STAMP).status is GS.InvalidArgument

    def test_accessors(self):
        sf = make()
        assert sf.vertex_count == 4 and sf.triangle_count == 2 and sf.stamp == STAMP
        assert sf.triangles.dtype == np.int64 and np.array_equal(sf.triangles, SQ_T)
        assert np.array_equal(sf.normals, [[0, 0, 1], [0, 0, 1]])
        assert not sf.normals.flags.writeable and not sf.vertices.flags.writeable


class TestQueries:
    def test_results_are_read_only_float64_and_echo_the_stamp(self):
        h = make().first_hit(np.array([0.25, 0.5, 1]), np.array([0.25, 0.5, -1])).value
        assert h.stamp == STAMP and h.t == 0.5 and h.facing is Facing.Front
        for a in (h.position, h.barycentric, h.normal):
            assert a.dtype == np.float64 and not a.flags.writeable

    @pytest.mark.parametrize("stamp", [SurfaceStamp(0, 0), SurfaceStamp(2**64 - 1, 2**64 - 1),
                                       SurfaceStamp(12345678901234567890, 3)])
    def test_every_query_result_carries_the_callers_stamp(self, stamp):
        # Spec 004: "Queries carry the same caller-supplied identity/version" -- a hit, a miss,
        # a clipped hit, a clipped miss and a rejected query alike.
        sf = TriangleSurface.new(SQUARE, SQ_T, stamp).value
        down = (np.array([0.25, 0.5, 1]), np.array([0.25, 0.5, -1]))
        beside = (np.array([2.0, 2, 1]), np.array([2.0, 2, -1]))
        hit, miss = sf.first_hit(*down), sf.first_hit(*beside)
        assert hit.value.stamp == stamp and hit.stamp == stamp
        assert miss.ok and miss.value is None and miss.stamp == stamp
        for seg in (down, beside):
            clip = sf.clip_segment(*seg)
            assert clip.ok and clip.value.stamp == stamp and clip.stamp == stamp
        assert sf.clip_segment(*down).value.hit.stamp == stamp
        coplanar = sf.first_hit(np.array([-1.0, 0.5, 0]), np.array([2.0, 0.5, 0]))
        assert coplanar.status is GS.Ambiguous and coplanar.stamp == stamp
        assert sf.first_hit(np.zeros(3), np.zeros(3)).stamp == stamp  # InvalidArgument too
        assert sf.first_hit(*down, cancel=lambda: True).stamp == stamp  # Cancelled too
        # Two surfaces over the same geometry answer with their own stamps, never each other's.
        other = TriangleSurface.new(SQUARE, SQ_T, SurfaceStamp(stamp.identity, (stamp.version + 1) % 2**64)).value
        assert other.first_hit(*beside).stamp != miss.stamp

    def test_zero_weights_are_positive_zero(self):
        # (1/2, 1/2, 0) on the shared diagonal: the weight of c is +0.0, never -0.0.
        h = make().first_hit(np.array([0.5, 0.5, 1]), np.array([0.5, 0.5, -1])).value
        assert h.triangle == 0 and np.all(h.barycentric >= 0) and not np.any(np.signbit(h.barycentric))

    def test_endpoint_positions_are_bitwise(self):
        sf = make()
        s, e = np.array([0.1, 0.2, 0.0]), np.array([0.3, 0.7, 1.0 / 3])
        h = sf.first_hit(s, e).value
        assert h.t == 0.0 and h.position.tobytes() == s.tobytes()
        h = sf.first_hit(e, s).value
        assert h.t == 1.0 and h.position.tobytes() == s.tobytes()

    def test_invalid_cancel_token(self):
        with pytest.raises(TypeError):
            make().first_hit(np.zeros(3), np.ones(3), cancel=5)

    def test_the_scan_loops_over_blocks_not_facets(self):
        # 20,000 facets: the default block polls ceil(20000 / BLOCK) times.
        n = 20000
        rng = np.random.default_rng(0)
        base = rng.uniform(0, 100, (n, 3))
        verts = np.concatenate([base, base + [1, 0, 0], base + [0, 1, 0]])
        tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
        sf = make(verts, tris)
        polls = []
        out = sf.first_hit(np.array([-1.0, 50, 50]), np.array([101.0, 50, 50]),
                           cancel=lambda: polls.append(1) and False, bvh=False)
        assert out.status in (GS.Success, GS.Ambiguous)
        assert len(polls) == -(-n // BLOCK)
        # Through the hierarchy (the default at this size) it polls once per block of the
        # facets whose box meets the segment's, at least once.
        polls.clear()
        again = sf.first_hit(np.array([-1.0, 50, 50]), np.array([101.0, 50, 50]),
                             cancel=lambda: polls.append(1) and False)
        assert again.status is out.status and 1 <= len(polls) <= -(-n // BLOCK)


coords = st.integers(-8, 8).map(lambda k: k / 4)


@settings(max_examples=examples(60, 1000))
@given(st.lists(st.tuples(coords, coords, coords), min_size=6, max_size=15),
       st.tuples(coords, coords, coords), st.tuples(coords, coords, coords), st.integers(1, 5))
def test_block_size_does_not_change_the_answer(pts, s, e, block):
    verts = np.array(pts)
    n = len(pts) // 3
    tris = np.arange(3 * n).reshape(n, 3)
    made = TriangleSurface.new(verts, tris, STAMP)
    if not made.ok or s == e:
        return
    sf = made.value
    ref = sf.first_hit(np.array(s), np.array(e))
    got = sf.first_hit(np.array(s), np.array(e), block=block)
    assert got.status is ref.status
    if ref.status is GS.Ambiguous:
        assert got.diagnostic.index == ref.diagnostic.index  # the lowest ambiguous facet either way
    elif ref.value is not None:
        assert (got.value.t, got.value.triangle) == (ref.value.t, ref.value.triangle)
    else:
        assert got.value is None


# --- the facet hierarchy's conservative culling (docs/decisions.md, "Triangle first hit at
# scale: the conservative hierarchy") ----------------------------------------------------------

from fractions import Fraction  # noqa: E402

from reference import triangle_surface as ts  # noqa: E402


def _exact_meets(s, e, lo, hi, mu):
    """Exact rational answer: does the segment s -> e meet the box [lo - mu, hi + mu]?"""
    t0, t1 = Fraction(0), Fraction(1)
    for i in range(3):
        S, E = Fraction(float(s[i])), Fraction(float(e[i]))
        L, H = Fraction(float(lo[i])) - Fraction(mu), Fraction(float(hi[i])) + Fraction(mu)
        D = E - S
        if D == 0:
            if not L <= S <= H:
                return False
            continue
        a, b = (L - S) / D, (H - S) / D
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
        if t0 > t1:
            return False
    return True


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
scales = st.sampled_from([1.0, 1e-9, 1e-300, 1e9, 1e290])


@settings(max_examples=examples(300, 5000), deadline=None)
@given(st.tuples(finite, finite, finite), st.tuples(finite, finite, finite), st.tuples(finite, finite, finite),
       st.tuples(finite, finite, finite), st.sampled_from([0.0, 1e-300, 1e-12, 0.5, 1e3]), scales,
       st.sampled_from([None, 0, 1, 2]))
def test_slab_test_never_culls_a_box_the_segment_meets(s, e, p1, p2, mu, sc, flat):
    s, e, p1, p2 = (np.array(v) * sc for v in (s, e, p1, p2))
    if flat is not None:  # a segment parallel to a box face: e_i == s_i exactly
        e[flat] = s[flat]
    if np.array_equal(s, e):
        return
    lo, hi = np.minimum(p1, p2), np.maximum(p1, p2)
    q = ts._query(s, e)
    with np.errstate(over="ignore"):  # 1 / subnormal: inf, as the kernel's own reciprocal
        inv = np.array([1.0 / x if x != 0 else 0.0 for x in q.d])
    miss = ts._slab_miss(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], mu * sc, q, inv)
    if miss:
        assert not _exact_meets(s, e, lo, hi, mu * sc)


def test_slab_test_culls_what_it_should():
    # Not vacuous: a box beside a long segment is culled, one it passes through is not.
    q = ts._query(np.array([0.0, 0, 0]), np.array([10.0, 0, 0]))
    inv = np.array([0.1, 0.0, 0.0])
    assert ts._slab_miss(2.0, 1.0, -1.0, 3.0, 2.0, 1.0, 0.5, q, inv)
    assert not ts._slab_miss(2.0, 1.0, -1.0, 3.0, 2.0, 1.0, 1.0, q, inv)
    assert not ts._slab_miss(2.0, -1.0, -1.0, 3.0, 1.0, 1.0, 0.0, q, inv)


@settings(max_examples=examples(150, 5000), deadline=None)
@given(__import__("tests.differential.test_triangle_differential", fromlist=["cases"]).cases())
def test_a_facet_the_scan_does_not_miss_is_within_the_margin(case):
    """The lemma behind every node cull, facet by facet: a facet that is not grazing, in a
    node that is safe for the query, with a verdict other than a miss, lies within the node's
    margin mu of the segment (checked exactly: the segment meets its box grown by mu)."""
    tol = case.tolerance
    for f in range(case.triangles.shape[0]):
        made = TriangleSurface.new(case.vertices, case.triangles[f:f + 1], STAMP, SurfaceSettings(tolerance=tol))
        if not made.ok:
            continue
        sf = made.value
        tree = sf._bvh_tree()
        q = ts._query(case.start, case.end)
        sigma, glim, isd = ts._query_constants(q, tol)
        n = sf.normals[0]
        if ts._grazing(n[0], n[1], n[2], q, glim):
            continue
        mu = ts._node_margin(tree.nd[0], q, tol, sigma, isd)
        if mu < 0:
            continue
        ai, code, bi, *_ = ts._scan_range(sf._rec, sf._edges, 0, 1, q, tol)
        if ai >= 0 or bi >= 0:
            assert _exact_meets(case.start, case.end, sf._lo[0], sf._hi[0], mu), (code, mu)


@settings(max_examples=examples(100, 2000), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-12, 1e-3]), st.sampled_from([0.0, 2.0**-17, 2.0**-14]),
       st.sampled_from([0, 1, 2, None]))
def test_the_normal_grid_finds_every_grazing_facet(seed, tol, tilt, axis):
    """Every facet the grazing test selects is collected, whatever its normal; normals are
    drawn near the grazing limit on purpose. The segment lies outside the surface's box, so
    the spatial tree contributes nothing and the candidates are the grid's alone."""
    rng = np.random.default_rng(seed)
    n = 600
    d = rng.normal(size=3) if axis is None else np.eye(3)[axis] + rng.normal(size=3) * 1e-3
    d /= np.linalg.norm(d)
    u = np.cross(d, rng.normal(size=(n, 3)))
    u /= np.linalg.norm(u, axis=1)[:, None]
    nrm = u + d * (tilt * rng.uniform(0, 3, n))[:, None]  # |n . d| around the threshold
    w = np.cross(nrm, rng.normal(size=(n, 3)))
    base = rng.uniform(0, 10, (n, 3))
    verts = np.concatenate([base, base + w, base + np.cross(nrm, w)])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    made = TriangleSurface.new(verts, tris, STAMP, SurfaceSettings(tolerance=tol))
    if not made.ok:
        return
    sf = made.value
    tree = sf._bvh_tree()
    s = np.array([100.0, 100.0, 100.0])
    q = ts._query(s, s + 50 * d)
    _, glim, _ = ts._query_constants(q, tol)
    want = {r for r in range(n) if ts._grazing(*tree.rec[r, ts._RN:ts._RN + 3], q, glim)}
    got = tree.candidates(q, tol)
    assert set(got.tolist()) == want and got.size == len(want)


def test_the_hierarchy_culls_far_below_the_exact_box_test():
    """Not a timing: on 20,000 random facets, long random segments leave far fewer candidates
    than facets whose box meets the segment's box (the previous hierarchy's cull)."""
    rng = np.random.default_rng(11)
    n = 20000
    base = rng.uniform(0, 100, (n, 3))
    verts = np.concatenate([base, base + rng.normal(0, 2, (n, 3)), base + rng.normal(0, 2, (n, 3))])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    sf = make(verts, tris)
    tree = sf._bvh_tree()
    cand = box = 0
    for _ in range(20):
        s, e = rng.uniform(0, 100, 3), rng.uniform(0, 100, 3)
        q = ts._query(s, e)
        cand += tree.candidates(q, DEFAULT_TOLERANCE).size
        box += int(np.sum(np.all(sf._hi >= q.lo, axis=1) & np.all(sf._lo <= q.hi, axis=1)))
    assert cand * 10 < box, (cand, box)


any_float = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 5e-324, -5e-324, 1e-310, 2.0**-1022, 1.0, 3.0, 2.0**1000])


@settings(max_examples=examples(500, 20000), deadline=None)
@given(st.tuples(any_float, any_float, any_float), st.tuples(any_float, any_float, any_float))
def test_query_scalars_are_the_numpy_norms_bits(s, e):
    s, e = np.array(s), np.array(e)
    with np.errstate(over="ignore", invalid="ignore"):
        d = e - s
        if not np.all(np.isfinite(d)):
            return
        q = ts._query(s, e)
        assert q.dinf == float(np.max(np.abs(d)))
        assert np.float64(q.dn).tobytes() == np.float64(ts._norm2(d)).tobytes()
