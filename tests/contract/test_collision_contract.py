"""Spec 004's twelve contract fixtures for static triangle-surface queries.

Every expected value is derived here by hand arithmetic or exact rationals (``Fraction``), not
read back from the implementation.

The book's cube is not available, so the fixtures use this design (docs/decisions.md, "The book
cube"): the unit cube ``[0, 1]^3``, vertex ``4x + 2y + z``, twelve triangles wound
counter-clockwise seen from outside, so every normal points outward. The reference crossing
starts at ``s = (-5/8, 1/4, 5/8)`` and ends at ``e = (11/8, 1/4, 5/8)``: ``x(t) = -5/8 + 2t``
reaches the face ``x = 0`` at ``t = (5/8) / 2 = 5/16 = 0.3125`` and the face ``x = 1`` at
``t = (13/8) / 2 = 13/16``. All these numbers are dyadic, so binary64 holds them exactly.

Groups: 1 translated (and scaled) book cube, 2 outside-to-outside crossings, 3 a miss,
4 inside-start trace, 5 oblique facets, 6 edge, vertex and endpoint contacts, 7 reversed winding,
8 ordering and ties, 9 open surfaces, 10 ambiguity, 11 cancellation, 12 capacity limits and
rejection.
"""

from __future__ import annotations

import math
import threading
from fractions import Fraction as Fr

import numpy as np
import pytest

from reference.status import GeometryStatus as GS
from reference.triangle_surface import (
    MAX_COORDINATE,
    Facing,
    SurfaceSettings,
    SurfaceStamp,
    TriangleSurface,
)

CUBE_V = [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]
CUBE_T = [(0, 1, 3), (0, 3, 2),  # x = 0, outward -x
          (4, 6, 7), (4, 7, 5),  # x = 1, +x
          (0, 4, 5), (0, 5, 1),  # y = 0, -y
          (2, 3, 7), (2, 7, 6),  # y = 1, +y
          (0, 2, 6), (0, 6, 4),  # z = 0, -z
          (1, 5, 7), (1, 7, 3)]  # z = 1, +z
S0 = (Fr(-5, 8), Fr(1, 4), Fr(5, 8))
E0 = (Fr(11, 8), Fr(1, 4), Fr(5, 8))
STAMP = SurfaceStamp(identity=7, version=3)


def fl(v):
    return np.array([float(x) for x in v])


def cube(scale=Fr(1), offset=(0, 0, 0), tris=CUBE_T, **settings):
    verts = [[float(scale * c + o) for c, o in zip(v, offset)] for v in CUBE_V]
    out = TriangleSurface.new(np.array(verts), np.array(tris), STAMP, SurfaceSettings(**settings))
    assert out.ok, out.diagnostic
    return out.value


def hit_of(surface, s, e, **kw):
    out = surface.first_hit(fl(s), fl(e), **kw)
    assert out.ok, out.diagnostic
    return out.value


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def exact_normal(tri, verts=CUBE_V):
    a, b, c = (tuple(Fr(x) for x in verts[i]) for i in tri)
    n = cross(tuple(x - y for x, y in zip(b, a)), tuple(x - y for x, y in zip(c, a)))
    length = math.sqrt(sum(float(x * x) for x in n))
    return np.array([float(x) / length for x in n])


def lerp(s, e, t):
    return tuple(a + t * (b - a) for a, b in zip(s, e))


# --- 1 translated and scaled book cube --------------------------------------------------------

class TestTranslatedBookCube:
    def test_unshifted_crossing_is_five_sixteenths(self):
        # Hand arithmetic: -5/8 + 2 t = 0.
        t = (0 - S0[0]) / (E0[0] - S0[0])
        assert t == Fr(5, 16) and float(t) == 0.3125
        h = hit_of(cube(), S0, E0)
        assert h.t == 0.3125 and h.triangle == 0
        assert np.array_equal(h.position, fl(lerp(S0, E0, t)))
        assert h.stamp == STAMP

    @pytest.mark.parametrize("offset", [(1024, -2048, 512), (10**6, 3 * 10**6, -(10**6)), (2**40, 0, -(2**40))])
    def test_translated_world_coordinates(self, offset):
        # Dyadic offsets keep every coordinate and difference exact: t stays 5/16 exactly.
        off = tuple(Fr(o) for o in offset)
        s, e = tuple(x + o for x, o in zip(S0, off)), tuple(x + o for x, o in zip(E0, off))
        h = hit_of(cube(offset=off), s, e)
        assert h.t == 0.3125 and h.triangle == 0 and h.facing is Facing.Front
        assert np.array_equal(h.position, fl(tuple(x + o for x, o in zip((0, Fr(1, 4), Fr(5, 8)), off))))

    @pytest.mark.parametrize("k", [-1000, -300, -100, 0, 100, 300, 999])
    def test_power_of_two_scales_are_exact(self, k):
        sc = Fr(2) ** k
        h = hit_of(cube(scale=sc), tuple(x * sc for x in S0), tuple(x * sc for x in E0))
        assert h.t == 0.3125 and h.triangle == 0
        assert np.array_equal(h.normal, [-1.0, 0.0, 0.0])
        assert np.array_equal(h.barycentric, [0.375, 0.375, 0.25])

    @pytest.mark.parametrize("k", [-100, -50, -10, 10, 50, 100])
    def test_decimal_scales_and_translation(self, k):
        # 10**k is not dyadic: the float inputs are rounded, and the exact crossing of those
        # inputs is the Fraction below; the query must land within a few ulps of it.
        sc = 10.0**k
        off = np.array([3.0, -5.0, 7.0]) * sc
        verts = np.array(CUBE_V, dtype=float) * sc + off
        s, e = fl(S0) * sc + off, fl(E0) * sc + off
        out = TriangleSurface.new(verts, np.array(CUBE_T), STAMP, SurfaceSettings())
        h = out.value.first_hit(s, e).value
        exact = (Fr(verts[0][0]) - Fr(s[0])) / (Fr(e[0]) - Fr(s[0]))
        assert abs(Fr(h.t) - exact) <= Fr(2) ** -50
        assert abs(h.t - 0.3125) < 1e-14 and h.triangle == 0
        assert np.allclose(h.barycentric, [0.375, 0.375, 0.25], rtol=0, atol=1e-14)


# --- 2 outside-to-outside crossings ------------------------------------------------------------

class TestOutsideToOutside:
    def test_first_contact_of_a_through_trace(self):
        h = hit_of(cube(), S0, E0)
        # Point (0, 1/4, 5/8) on x = 0; in (y, z) the facet (0,1,3) is (0,0),(0,1),(1,1):
        # y = w2 = 1/4, z = w1 + w2 = 5/8 -> w = (3/8, 3/8, 1/4).
        assert np.array_equal(h.barycentric, [0.375, 0.375, 0.25])
        assert np.array_equal(h.normal, exact_normal(CUBE_T[0])) and np.array_equal(h.normal, [-1, 0, 0])
        assert h.facing is Facing.Front

    def test_reverse_direction_hits_the_far_face_first(self):
        # x(t) = 11/8 - 2t reaches x = 1 at t = 3/16; (y, z) = (1/4, 5/8) has z > y, so the
        # facet (4,7,5) = (0,0),(1,1),(0,1) in (y, z): w1 = y = 1/4, w2 = z - y = 3/8, w0 = 3/8.
        h = hit_of(cube(), E0, S0)
        assert h.t == float(Fr(3, 16)) and h.triangle == 3
        assert np.array_equal(h.barycentric, [0.375, 0.25, 0.375])
        assert np.array_equal(h.normal, [1, 0, 0]) and h.facing is Facing.Front

    def test_clip_ends_the_trace_at_the_contact(self):
        out = cube().clip_segment(fl(S0), fl(E0))
        assert out.ok and out.value.hit.triangle == 0
        assert np.array_equal(out.value.end, [0.0, 0.25, 0.625])
        assert np.array_equal(out.value.start, fl(S0))
        # Spec 004: queries carry the caller-supplied identity/version.
        assert out.value.stamp == STAMP and out.value.hit.stamp == STAMP and out.stamp == STAMP

    def test_crossing_along_y(self):
        # y(t) = -1 + 4t reaches y = 0 at t = 1/4 at (3/4, 0, 1/4): (x, z) has z < x, facet
        # (0,4,5) = (0,0),(1,0),(1,1) in (x, z): w2 = z = 1/4, w1 = x - z = 1/2, w0 = 1/4.
        h = hit_of(cube(), (Fr(3, 4), -1, Fr(1, 4)), (Fr(3, 4), 3, Fr(1, 4)))
        assert h.t == 0.25 and h.triangle == 4
        assert np.array_equal(h.barycentric, [0.25, 0.5, 0.25])
        assert np.array_equal(h.normal, [0, -1, 0]) and h.facing is Facing.Front


# --- 3 a miss -----------------------------------------------------------------------------------

class TestMiss:
    @pytest.mark.parametrize("s,e", [((-1, 2, 2), (2, 2, 2)),              # passes beside the cube
                                     ((-1, Fr(1, 2), Fr(1, 2)), (Fr(-1, 2), Fr(1, 2), Fr(1, 2))),  # stops short
                                     ((2, 2, 2), (3, 3, 3))])                # points away
    def test_miss_is_success_with_none(self, s, e):
        out = cube().first_hit(fl(s), fl(e))
        assert out.status is GS.Success and out.value is None
        # Spec 004: "Queries carry the same caller-supplied identity/version" -- a miss too.
        assert out.stamp == STAMP

    def test_clip_keeps_the_end_bitwise(self):
        e = np.array([2.0, 2.0, 0.1])
        out = cube().clip_segment(np.array([-1.0, 2.0, 0.1]), e)
        assert out.ok and out.value.hit is None and np.array_equal(out.value.end, e)
        assert out.value.stamp == STAMP and out.stamp == STAMP  # a clipped miss carries the stamp


# --- 4 inside-start trace -------------------------------------------------------------------------

class TestInsideStart:
    def test_inside_start_meets_the_back_of_a_face(self):
        # x(t) = 1/2 + t reaches x = 1 at t = 1/2; (y, z) = (1/4, 5/8), z > y: facet 3.
        h = hit_of(cube(), (Fr(1, 2), Fr(1, 4), Fr(5, 8)), (Fr(3, 2), Fr(1, 4), Fr(5, 8)))
        assert h.t == 0.5 and h.triangle == 3
        assert np.array_equal(h.normal, [1, 0, 0])
        assert h.facing is Facing.Back  # travels along the outward normal: not an "exit" claim


# --- 5 oblique facets -------------------------------------------------------------------------------

class TestObliqueFacets:
    def test_diagonal_facet(self):
        # Facet (1,0,0), (0,1,0), (0,0,1): plane x + y + z = 1, normal (1,1,1)/sqrt(3).
        # s = 0, e = (1,1,1): 3t = 1 -> t = 1/3, point (1/3,1/3,1/3), weights (1/3,1/3,1/3).
        verts = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]])
        sf = TriangleSurface.new(verts, np.array([[0, 1, 2]]), STAMP).value
        h = sf.first_hit(np.zeros(3), np.ones(3)).value
        assert abs(Fr(h.t) - Fr(1, 3)) <= 4 * Fr(2) ** -53
        assert np.all(np.abs(h.barycentric - 1 / 3) <= 4 * 2.0**-53)
        assert np.all(np.abs(h.normal - 1 / math.sqrt(3)) <= 2 * 2.0**-53)
        assert h.facing is Facing.Back  # n . d = sqrt(3) > 0

    def test_tilted_facet_against_exact_rationals(self):
        # Plane through (2,0,0), (0,3,0), (0,0,5): x/2 + y/3 + z/5 = 1. From s = (0,0,0) to
        # e = (1,1,1): t (1/2 + 1/3 + 1/5) = 1 -> t = 30/31.
        verts = np.array([[2.0, 0, 0], [0, 3, 0], [0, 0, 5]])
        sf = TriangleSurface.new(verts, np.array([[0, 1, 2]]), STAMP).value
        h = sf.first_hit(np.zeros(3), np.ones(3)).value
        t = Fr(30, 31)
        assert abs(Fr(h.t) - t) <= 8 * Fr(2) ** -53
        # weights: p = t (1,1,1) = w0 (2,0,0) + w1 (0,3,0) + w2 (0,0,5) -> w = t (1/2, 1/3, 1/5)
        w = [t / 2, t / 3, t / 5]
        assert all(abs(Fr(float(x)) - y) <= Fr(2) ** -50 for x, y in zip(h.barycentric, w))
        n = exact_normal((0, 1, 2), [(2, 0, 0), (0, 3, 0), (0, 0, 5)])
        assert np.allclose(h.normal, n, rtol=0, atol=4 * 2.0**-53)
        assert h.facing is Facing.Back


# --- 6 edge, vertex and endpoint contacts -----------------------------------------------------

class TestEdgeVertexEndpointContacts:
    def test_edge_contact_ties_to_lowest_index(self):
        # (-1,-1,1/2) -> (1,1,1/2) meets the edge x = y = 0 at t = 1/2. Facets containing
        # (0,0,1/2): 0 (x = 0, y <= z) and 5 (y = 0, z >= x); the lowest index wins.
        h = hit_of(cube(), (-1, -1, Fr(1, 2)), (1, 1, Fr(1, 2)))
        assert h.t == 0.5 and h.triangle == 0
        # (y, z) = (0, 1/2) in facet 0's (0,0),(0,1),(1,1): w2 = 0, w1 = 1/2, w0 = 1/2.
        assert np.array_equal(h.barycentric, [0.5, 0.5, 0.0]) and np.all(h.barycentric >= 0)

    def test_vertex_contact(self):
        # (-1,-1,-1) -> (1,1,1) meets the corner (0,0,0) at t = 1/2: facets 0,1,4,5,8,9 share it.
        h = hit_of(cube(), (-1, -1, -1), (1, 1, 1))
        assert h.t == 0.5 and h.triangle == 0
        assert np.array_equal(h.barycentric, [1.0, 0.0, 0.0]) and np.array_equal(h.position, [0, 0, 0])

    def test_start_on_the_surface_is_t_zero(self):
        p = (0, Fr(1, 4), Fr(5, 8))
        h = hit_of(cube(), p, (-1, Fr(1, 4), Fr(5, 8)))
        assert h.t == 0.0 and h.triangle == 0 and np.array_equal(h.position, fl(p))
        assert h.facing is Facing.Back  # d = -x, normal -x
        h2 = hit_of(cube(), p, (1, Fr(1, 4), Fr(5, 8)))  # also touches x = 1 at t = 1: t = 0 first
        assert h2.t == 0.0 and h2.triangle == 0 and h2.facing is Facing.Front

    def test_end_on_the_surface_is_t_one_and_clip_keeps_the_end(self):
        p = (0, Fr(1, 4), Fr(5, 8))
        sf = cube()
        h = hit_of(sf, (-1, Fr(1, 4), Fr(5, 8)), p)
        assert h.t == 1.0 and h.triangle == 0 and np.array_equal(h.position, fl(p))
        clip = sf.clip_segment(fl((-1, Fr(1, 4), Fr(5, 8))), fl(p)).value
        assert np.array_equal(clip.end, fl(p))


# --- 7 reversed winding ------------------------------------------------------------------------

class TestReversedWinding:
    def test_reversed_winding_flips_normal_and_facing_not_the_contact(self):
        rev = [(c, b, a) for a, b, c in CUBE_T]
        h = hit_of(cube(tris=rev), S0, E0)
        assert h.t == 0.3125 and h.triangle == 0
        assert np.array_equal(h.normal, exact_normal(rev[0])) and np.array_equal(h.normal, [1, 0, 0])
        assert h.facing is Facing.Back
        # weights now belong to (3, 1, 0): the original (3/8, 3/8, 1/4) reversed.
        assert np.array_equal(h.barycentric, [0.25, 0.375, 0.375])


# --- 8 ordering and ties -----------------------------------------------------------------------

def _square_at_x(x, flip=False):
    v = [(x, -1, -1), (x, 1, -1), (x, 1, 1), (x, -1, 1)]
    t = [(0, 2, 1), (0, 3, 2)] if not flip else [(0, 1, 2), (0, 2, 3)]
    return v, t


def _mesh(parts):
    verts, tris = [], []
    for v, t in parts:
        base = len(verts)
        verts += v
        tris += [tuple(base + i for i in tri) for tri in t]
    return TriangleSurface.new(np.array(verts, dtype=float), np.array(tris), STAMP).value


class TestOrderingAndTies:
    def test_smallest_parameter_wins_regardless_of_index(self):
        # Squares at x = 3, 2, 1/2 (indices 0-1, 2-3, 4-5); s = (0, 1/4, 1/8), e = (4, ...):
        # t = x / 4 -> 3/4, 1/2, 1/8: the last-listed square is first.
        sf = _mesh([_square_at_x(3), _square_at_x(2), _square_at_x(0.5)])
        h = hit_of(sf, (0, Fr(1, 4), Fr(1, 8)), (4, Fr(1, 4), Fr(1, 8)))
        # (y, z) = (1/4, 1/8) has z < y: the half (0, 2, 1) = (-1,-1),(1,1),(1,-1), index 4.
        assert h.t == 0.125 and h.triangle == 4

    def test_duplicate_facets_tie_to_lowest_index(self):
        v, t = _square_at_x(1)
        sf = TriangleSurface.new(np.array(v, dtype=float), np.array([t[1], t[0], t[1], t[0]]), STAMP).value
        # (y, z) = (1/4, 1/8), z < y, lies in the half t[0] = (0, 2, 1), listed at 1 and 3:
        # the exact tie keeps 1.
        h = hit_of(sf, (0, Fr(1, 4), Fr(1, 8)), (2, Fr(1, 4), Fr(1, 8)))
        assert h.t == 0.5 and h.triangle == 1

    def test_opposite_windings_on_one_plane_tie_to_lowest_index(self):
        sf = _mesh([_square_at_x(1, flip=True), _square_at_x(1)])
        h = hit_of(sf, (0, Fr(1, 4), Fr(1, 8)), (2, Fr(1, 4), Fr(1, 8)))
        # Facet 0 = (0, 1, 2) of the flipped square, (-1,-1),(1,-1),(1,1) in (y, z), holds z < y
        # and ties with facet 2 (same place, opposite winding); its normal is
        # (0,2,0) x (0,2,2) = (4,0,0): +x, so the +x trace meets its back.
        assert h.t == 0.5 and h.triangle == 0 and h.facing is Facing.Back


    @pytest.mark.parametrize("block", [1, 2, 3, 4096])
    def test_ties_keep_the_lowest_index_across_blocks(self, block):
        # The same square at x = 1 listed three times (its half (0, 2, 1) = (-1,-1),(1,1),(1,-1)
        # in (y, z) holds z < y: facets 0, 2, 4), then a square at x = 3: every block size, the
        # linear scan and the hierarchy give facet 0 at t = 1/4.
        sf = _mesh([_square_at_x(1)] * 3 + [_square_at_x(3)])
        for bvh in (False, True):
            out = sf.first_hit(fl((0, Fr(1, 4), Fr(1, 8))), fl((4, Fr(1, 4), Fr(1, 8))), block=block, bvh=bvh)
            assert out.ok and out.value.t == 0.25 and out.value.triangle == 0, (block, bvh)

    def test_ties_keep_the_lowest_index_through_the_hierarchy(self):
        # Enough facets for the hierarchy: the square at x = 1 first and last, squares at
        # x = 2 + k / n between (met later). The exact tie at t = 1/4 keeps facet 0.
        from reference.triangle_surface import BVH_MIN_TRIANGLES

        n = BVH_MIN_TRIANGLES // 2 + 8
        parts = [_square_at_x(1)] + [_square_at_x(2 + Fr(k, n)) for k in range(n)] + [_square_at_x(1)]
        sf = _mesh([([tuple(float(c) for c in p) for p in v], t) for v, t in parts])
        assert sf.triangle_count >= BVH_MIN_TRIANGLES
        for block in (4096, 7):
            out = sf.first_hit(fl((0, Fr(1, 4), Fr(1, 8))), fl((4, Fr(1, 4), Fr(1, 8))), block=block)
            assert out.ok and out.value.t == 0.25 and out.value.triangle == 0, block


# --- 9 open surfaces ------------------------------------------------------------------------

class TestOpenSurfaces:
    def test_cube_missing_a_face(self):
        # Without the x = 0 face the trace enters through the hole and meets x = 1 at 13/16
        # from inside (z > y: facet (4,7,5), index 1 after removing two facets).
        sf = TriangleSurface.new(np.array(CUBE_V, dtype=float), np.array(CUBE_T[2:]), STAMP).value
        h = hit_of(sf, S0, E0)
        assert h.t == float(Fr(13, 16)) and h.triangle == 1 and h.facing is Facing.Back

    def test_single_sheet_is_two_sided(self):
        verts = np.array([[0.0, -1, -1], [0, 1, -1], [0, 0, 1]])
        sf = TriangleSurface.new(verts, np.array([[0, 1, 2]]), STAMP).value
        front = hit_of(sf, (-1, 0, 0), (1, 0, 0))
        back = hit_of(sf, (1, 0, 0), (-1, 0, 0))
        # normal (0,2,0) x (0,1,2) = (4,0,0): the +x trace meets the back, the -x trace the front.
        assert front.t == back.t == 0.5
        assert front.facing is Facing.Back and back.facing is Facing.Front
        assert np.array_equal(front.normal, [1, 0, 0]) and np.array_equal(back.normal, [1, 0, 0])

    def test_disconnected_pieces(self):
        sf = _mesh([_square_at_x(-5), _square_at_x(5)])
        h = hit_of(sf, (0, Fr(1, 4), Fr(1, 8)), (10, Fr(1, 4), Fr(1, 8)))
        assert h.t == 0.5 and h.triangle == 2  # the x = 5 square's half z < y


# --- 10 ambiguity ------------------------------------------------------------------------------

class TestAmbiguity:
    def test_coplanar_overlap_is_ambiguous(self):
        # The segment y = 1/2 lies in the plane z = 0 of facets 8 and 9; facets 4-7 and 10-11
        # are parallel and clearly off their planes; facet 1 is met exactly on its edge (accepted).
        out = cube().first_hit(fl((-1, Fr(1, 2), 0)), fl((2, Fr(1, 2), 0)))
        assert out.status is GS.Ambiguous and out.value is None
        assert out.diagnostic.index == 8

    def test_value_inside_the_barycentric_band_is_ambiguous(self):
        # z = 1e-13 < tolerance 1e-12 from the edge z = 0 of facet 1 (and above the plane z = 0).
        out = cube().first_hit(np.array([-1, 0.5, 1e-13]), np.array([2, 0.5, 1e-13]))
        assert out.status is GS.Ambiguous and out.diagnostic.index == 1

    def test_just_outside_the_band_is_decided(self):
        out = cube().first_hit(np.array([-1, 0.5, 1e-6]), np.array([2, 0.5, 1e-6]))
        assert out.ok and out.value.triangle == 1 and out.value.t == 1 / 3

    def test_one_ambiguous_facet_rejects_an_earlier_clean_hit(self):
        # Facet 0 at x = 1/4 is hit cleanly at t = 1/8; facet 1 lies in the segment's plane z = 0.
        verts = np.array([[0.25, -1, -1], [0.25, 1, -1], [0.25, 0, 1], [1, -1, 0], [3, -1, 0], [2, 1, 0]])
        sf = TriangleSurface.new(verts, np.array([[0, 1, 2], [3, 4, 5]]), STAMP).value
        out = sf.first_hit(np.array([0.0, 0, 0]), np.array([2.0, 0, 0]))
        assert out.status is GS.Ambiguous and out.diagnostic.index == 1

    def test_parameter_band_at_the_end(self):
        # The end lies 1e-14 past the face x = 0: t = 1 / (1 + 1e-14), just inside the segment.
        out = cube().first_hit(np.array([-1, 0.25, 0.625]), np.array([1e-14, 0.25, 0.625]))
        assert out.status is GS.Ambiguous and out.diagnostic.index == 0
        # Ending 1e-14 before it, the boxes are disjoint: the exact axis-bound rejection decides.
        out = cube().first_hit(np.array([-1, 0.25, 0.625]), np.array([-1e-14, 0.25, 0.625]))
        assert out.ok and out.value is None

    def test_parameter_band_just_outside(self):
        # Diagonal facet x + y + z = 1; the segment 0 -> c (1,1,1) with 3c = 1 - 3e-14 would
        # need t = 1 / (3c) = 1 + 3e-14 + ...: just outside, boxes overlapping: ambiguous.
        verts = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]])
        sf = TriangleSurface.new(verts, np.array([[0, 1, 2]]), STAMP).value
        c = (1 - 3e-14) / 3
        out = sf.first_hit(np.zeros(3), np.array([c, c, c]))
        assert out.status is GS.Ambiguous and out.diagnostic.index == 0
        c = (1 - 3e-6) / 3  # far outside the band: a miss
        assert sf.first_hit(np.zeros(3), np.array([c, c, c])).value is None

    def test_near_parallel_within_tolerance_is_ambiguous(self):
        # Slope 1e-13 over the face z = 0 (|n . d| / |d| ~ 3e-14 <= 1e-12), crossing it inside.
        out = cube().first_hit(np.array([0.1, 0.5, 1e-14]), np.array([0.9, 0.5, -2e-14]))
        assert out.status is GS.Ambiguous and out.diagnostic.index == 8

    def test_scaled_near_edge_is_ambiguous(self):
        sc = 1e50
        sf = TriangleSurface.new(np.array(CUBE_V, dtype=float) * sc, np.array(CUBE_T), STAMP).value
        out = sf.first_hit(np.array([-1, 0.5, 1e-13]) * sc, np.array([2, 0.5, 1e-13]) * sc)
        assert out.status is GS.Ambiguous


# --- 11 cancellation ---------------------------------------------------------------------------

class TestCancellation:
    def test_cancel_returns_no_partial_result(self):
        out = cube().first_hit(fl(S0), fl(E0), cancel=lambda: True)
        assert out.status is GS.Cancelled and out.value is None

    def test_event_token(self):
        ev = threading.Event()
        ev.set()
        assert cube().first_hit(fl(S0), fl(E0), cancel=ev).status is GS.Cancelled
        assert cube().first_hit(fl(S0), fl(E0), cancel=threading.Event()).ok

    def test_polled_before_every_block_and_per_facet(self):
        polls = []
        out = cube().first_hit(fl(S0), fl(E0), cancel=lambda: polls.append(1) and False, block=4)
        assert out.ok and out.value.t == 0.3125 and len(polls) == 3  # ceil(12 / 4) blocks
        polls.clear()
        cube().first_hit(fl(S0), fl(E0), cancel=lambda: polls.append(1) and False, block=1)
        assert len(polls) == 12  # per facet

    def test_cancel_midway_discards_a_found_hit(self):
        # Facet 0 (the hit) is in the first block; cancellation arrives before the second.
        calls = iter([False, True, True])
        out = cube().first_hit(fl(S0), fl(E0), cancel=lambda: next(calls), block=4)
        assert out.status is GS.Cancelled and out.value is None

    def test_clip_passes_cancellation_through(self):
        assert cube().clip_segment(fl(S0), fl(E0), cancel=lambda: True).status is GS.Cancelled


# --- 12 capacity limits and rejection ----------------------------------------------------------

class TestCapacityAndRejection:
    V = np.array(CUBE_V, dtype=float)
    T = np.array(CUBE_T)

    def test_capacity_limits(self):
        assert TriangleSurface.new(self.V, self.T, STAMP, SurfaceSettings(max_triangles=12)).ok
        out = TriangleSurface.new(self.V, self.T, STAMP, SurfaceSettings(max_triangles=11))
        assert out.status is GS.CapacityExceeded and out.value is None
        out = TriangleSurface.new(self.V, self.T, STAMP, SurfaceSettings(max_vertices=7))
        assert out.status is GS.CapacityExceeded

    @pytest.mark.parametrize("settings", [SurfaceSettings(tolerance=2.0**-48), SurfaceSettings(tolerance=1.5e-3),
                                          SurfaceSettings(tolerance=float("nan")), SurfaceSettings(tolerance=0.0),
                                          SurfaceSettings(max_triangles=0), SurfaceSettings(max_vertices=2**24 + 1),
                                          SurfaceSettings(max_triangles=1.0)])
    def test_bad_settings(self, settings):
        out = TriangleSurface.new(self.V, self.T, STAMP, settings)
        assert out.status is GS.InvalidArgument and out.value is None

    @pytest.mark.parametrize("tol", [32 * 2.0**-52, 1e-12, 1e-3])
    def test_tolerance_range_ends_are_accepted(self, tol):
        assert TriangleSurface.new(self.V, self.T, STAMP, SurfaceSettings(tolerance=tol)).ok

    def test_bad_geometry(self):
        nan = self.V.copy()
        nan[5, 1] = np.nan
        cases = [
            (nan, self.T, GS.InvalidArgument, 5),
            (self.V, np.vstack([self.T, [[0, 1, 8]]]), GS.InvalidArgument, 12),
            (self.V, np.vstack([self.T, [[-1, 1, 2]]]), GS.InvalidArgument, 12),
            (self.V, np.zeros((0, 3), dtype=int), GS.InvalidArgument, None),
            (np.zeros((0, 3)), self.T, GS.InvalidArgument, None),
            (self.V, self.T.astype(float), GS.InvalidArgument, None),
            (self.V[:, :2], self.T, GS.InvalidArgument, None),
            (self.V * 2.0**1001, self.T, GS.OutOfRange, 1),
        ]
        for verts, tris, status, index in cases:
            before = verts.copy()
            out = TriangleSurface.new(verts, tris, STAMP)
            assert out.status is status and out.value is None, (status, out.diagnostic)
            assert out.diagnostic.index == index
            assert np.array_equal(verts, before, equal_nan=True)  # inputs untouched

    def test_degenerate_and_ill_conditioned_facets(self):
        verts = np.array([[0.0, 0, 0], [1, 0, 0], [2, 0, 0], [0.5, 1e-13, 0]])
        out = TriangleSurface.new(verts, np.array([[0, 1, 1]]), STAMP)
        assert out.status is GS.Degenerate and out.diagnostic.index == 0
        out = TriangleSurface.new(verts, np.array([[0, 1, 3], [0, 1, 2]]), STAMP,
                                  SurfaceSettings(tolerance=1e-14))  # collinear second
        assert out.status is GS.Degenerate and out.diagnostic.index == 1
        # e1 = (1,0,0), e2 = (1/2, 1e-13, 0), m = 1: |e1 x e2| = 1e-13 <= 1e-12.
        out = TriangleSurface.new(verts, np.array([[0, 1, 3]]), STAMP)
        assert out.status is GS.IllConditioned and out.diagnostic.index == 0
        assert TriangleSurface.new(verts, np.array([[0, 1, 3]]), STAMP, SurfaceSettings(tolerance=1e-14)).ok

    def test_bad_segments(self):
        sf = cube()
        assert sf.first_hit(fl(S0), fl(S0)).status is GS.InvalidArgument
        assert sf.first_hit(np.array([np.nan, 0, 0]), fl(E0)).status is GS.InvalidArgument
        assert sf.first_hit(fl(S0), np.array([np.inf, 0, 0])).status is GS.InvalidArgument
        assert sf.first_hit(fl(S0), np.array([2 * MAX_COORDINATE, 0, 0])).status is GS.OutOfRange
        assert sf.first_hit(fl(S0), fl(E0), block=0).status is GS.InvalidArgument

    def test_bad_stamp(self):
        assert TriangleSurface.new(self.V, self.T, SurfaceStamp(-1, 0)).status is GS.InvalidArgument
        assert TriangleSurface.new(self.V, self.T, SurfaceStamp(0, 2**64)).status is GS.InvalidArgument

    def test_admitted_geometry_is_immutable_and_unshared(self):
        verts = self.V.copy()
        sf = TriangleSurface.new(verts, self.T, STAMP).value
        verts[:] = 99.0  # the caller's buffer is not the surface's
        assert np.array_equal(sf.vertices, np.array(CUBE_V, dtype=float))
        for arr in (sf.vertices, sf.triangles, sf.normals):
            with pytest.raises(ValueError):
                arr[0, 0] = 1
        with pytest.raises(AttributeError):
            sf._stamp = None
        assert hit_of(sf, S0, E0).t == 0.3125
