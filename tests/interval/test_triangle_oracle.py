"""interval.triangle: the exact rational contact oracle, against hand arithmetic and against an
independent exact predicate (signed tetrahedron volumes, written here with Fraction)."""

from __future__ import annotations

from fractions import Fraction as Fr

import gmpy2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interval.triangle import (
    earliest,
    exact_facet,
    nearest_float,
    segment_contact,
    sqrt_down,
    sqrt_up,
    surface_contacts,
)
from tests.profiles import examples

CUBE_FACE_X0 = ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 1.0))  # normal -x
CUBE_FACE_Z0 = ((0.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0))  # normal -z


class TestHandCases:
    def test_cube_crossing(self):
        c = segment_contact(exact_facet(*CUBE_FACE_X0), (-0.625, 0.25, 0.625), (1.375, 0.25, 0.625))
        assert c.kind == "point" and c.t == Fr(5, 16) == c.t_enter == c.t_exit
        assert tuple(c.bary) == (Fr(3, 8), Fr(3, 8), Fr(1, 4))
        assert c.facing == -1  # against the normal: Front
        assert c.depth == Fr(1, 4)  # min(3/8, 3/8, 1/4, 5/16, 11/16)

    def test_crossing_outside_the_facet(self):
        c = segment_contact(exact_facet(*CUBE_FACE_X0), (-1, 0.75, 0.25), (1, 0.75, 0.25))
        assert c.kind == "none" and c.t == Fr(1, 2) and min(c.bary) < 0

    def test_plane_beyond_the_segment(self):
        c = segment_contact(exact_facet(*CUBE_FACE_X0), (-2, 0.25, 0.625), (-1, 0.25, 0.625))
        assert c.kind == "none" and c.t == 2

    def test_parallel_off_the_plane(self):
        c = segment_contact(exact_facet(*CUBE_FACE_X0), (1, 0, 0), (1, 1, 1))
        assert c.kind == "none" and c.parallel and c.facing == 0

    def test_coplanar_interval_and_depth(self):
        # Facet (0,0),(0,1),(1,1) in (x, y) at z = 0; y = 1/2, x = -1 + 3t: inside for x in [0, 1/2]
        # -> t in [1/3, 1/2]; weights (1/2, 1/2 - x, x): deepest min 1/4 at x = 1/4 (t = 5/12).
        c = segment_contact(exact_facet(*CUBE_FACE_Z0), (-1, 0.5, 0), (2, 0.5, 0))
        assert c.kind == "coplanar" and (c.t_enter, c.t_exit) == (Fr(1, 3), Fr(1, 2))
        assert c.depth == Fr(1, 4)

    def test_coplanar_touching_a_vertex_has_zero_depth(self):
        c = segment_contact(exact_facet(*CUBE_FACE_Z0), (-1, 1, 0), (1, -1, 0))  # through (0,0,0) only
        assert c.kind == "coplanar" and c.t_enter == c.t_exit == Fr(1, 2) and c.depth == 0

    def test_coplanar_depth_maximum_between_the_ends(self):
        # y = 1/2, x = -1 + 6t: weights (1/2, 1/2 - x, x), contact for x in [0, 1/2], t in [1/6, 1/4].
        # min(x, 1/2 - x, t) = min(6t - 1, 3/2 - 6t, t) is largest where t = 3/2 - 6t: t = 3/14,
        # depth 3/14 (the midpoint 5/24 gives only 5/24).
        c = segment_contact(exact_facet(*CUBE_FACE_Z0), (-1, 0.5, 0), (5, 0.5, 0))
        assert c.kind == "coplanar" and (c.t_enter, c.t_exit) == (Fr(1, 6), Fr(1, 4))
        assert c.depth == Fr(3, 14)

    def test_coplanar_line_outside_a_constant_weight(self):
        # y = 2 in the plane z = 0: the weight 1 - y = -1 is constant along the segment, so no
        # contact although the other two weights are both nonnegative for x in [0, 2].
        c = segment_contact(exact_facet(*CUBE_FACE_Z0), (-1, 2, 0), (3, 2, 0))
        assert c.kind == "none" and c.parallel and c.t_enter is None

    def test_coplanar_miss(self):
        c = segment_contact(exact_facet(*CUBE_FACE_Z0), (2, 0, 0), (3, 0, 0))
        assert c.kind == "none" and c.parallel

    def test_endpoint_on_an_edge(self):
        c = segment_contact(exact_facet(*CUBE_FACE_X0), (-1, 0, 0.5), (0, 0, 0.5))
        assert c.kind == "point" and c.t == 1 and c.depth == 0 and tuple(c.bary) == (Fr(1, 2), Fr(1, 2), 0)

    def test_axis_aligned_detection(self):
        assert exact_facet(*CUBE_FACE_X0).axis == 0 and exact_facet(*CUBE_FACE_Z0).axis == 2
        assert exact_facet((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)).axis is None

    def test_earliest_and_ties(self):
        verts = [(0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0), (1, 0, 0), (1, 0, 1), (1, 1, 1)]
        tris = [(4, 5, 6), (0, 1, 2), (0, 2, 3), (0, 1, 2)]  # x = 1, then x = 0 twice (duplicate)
        cs = surface_contacts(verts, tris, (-1, 0.25, 0.625), (3, 0.25, 0.625))
        assert earliest(cs) == (Fr(1, 4), [1, 3])
        assert earliest(surface_contacts(verts, tris, (-1, 5, 5), (3, 5, 5))) is None


class TestErrors:
    def test_degenerate_facet(self):
        with pytest.raises(ValueError):
            exact_facet((0, 0, 0), (1, 1, 1), (2, 2, 2))

    @pytest.mark.parametrize("s,e", [((0, 0, 0), (0, 0, 0)), ((float("nan"), 0, 0), (1, 1, 1)), ((0, 0), (1, 1, 1))])
    def test_bad_segments(self, s, e):
        with pytest.raises(ValueError):
            segment_contact(exact_facet(*CUBE_FACE_X0), s, e)

    def test_bad_index_and_types(self):
        with pytest.raises(ValueError):
            surface_contacts([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 3)], (0, 0, -1), (0, 0, 1))
        with pytest.raises(TypeError):
            exact_facet(("0", 0, 0), (1, 0, 0), (0, 1, 0))


# --- an independent exact predicate -------------------------------------------------------------

def _orient(p, q, r, s):
    """Sign of the signed volume of tetrahedron (p, q, r, s) in Fractions."""
    m = [[Fr(q[i]) - Fr(p[i]) for i in range(3)], [Fr(r[i]) - Fr(p[i]) for i in range(3)],
         [Fr(s[i]) - Fr(p[i]) for i in range(3)]]
    det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
           + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    return (det > 0) - (det < 0)


def _touches(a, b, c, s, e):
    """Non-coplanar segment-triangle contact from orientation signs only."""
    o_s, o_e = _orient(a, b, c, s), _orient(a, b, c, e)
    if o_s * o_e > 0:
        return False
    sides = [_orient(s, e, a, b), _orient(s, e, b, c), _orient(s, e, c, a)]
    return not (min(sides) < 0 < max(sides))


small = st.integers(-3, 3).map(float) | st.integers(-12, 12).map(lambda k: k / 4)
pt = st.tuples(small, small, small)


@settings(max_examples=examples(300, 5000))
@given(pt, pt, pt, pt, pt)
def test_agrees_with_orientation_predicate_and_identities(a, b, c, s, e):
    try:
        f = exact_facet(a, b, c)
    except ValueError:
        return
    if s == e:
        return
    ct = segment_contact(f, s, e)
    if ct.parallel:
        if ct.hs == 0:  # coplanar: contact set checked through its ends
            for t in ((ct.t_enter, ct.t_exit) if ct.hit else ()):
                p = [Fr(x) + t * (Fr(y) - Fr(x)) for x, y in zip(s, e)]
                assert _orient(a, b, c, p) == 0
        else:
            assert not ct.hit
        return
    assert ct.hit == _touches(a, b, c, s, e)
    T = ct.t
    P = [Fr(x) + T * (Fr(y) - Fr(x)) for x, y in zip(s, e)]
    assert _orient(a, b, c, P) == 0  # the crossing point is on the plane
    w = [Fr(int(x.numerator), int(x.denominator)) for x in ct.bary]
    assert sum(w) == 1
    assert [w[0] * Fr(a[i]) + w[1] * Fr(b[i]) + w[2] * Fr(c[i]) for i in range(3)] == P
    # facing = sign(N0 . (e - s)) = orient(a, b, c, e) - orient(a, b, c, s) in volume terms
    if _orient(a, b, c, s) == 0:
        assert ct.facing == _orient(a, b, c, e)


# --- rounding and square-root helpers -------------------------------------------------------

@settings(max_examples=examples(300, 3000))
@given(st.integers(1, 2**200), st.integers(1, 2**200), st.integers(-1100, 1000))
def test_nearest_float_is_correctly_rounded(p, q, k):
    r = Fr(p, q) * Fr(2) ** k
    try:
        expect = float(r)  # Fraction -> float is correctly rounded
    except OverflowError:
        return
    assert nearest_float(gmpy2.mpq(r.numerator, r.denominator)) == expect


@settings(max_examples=examples(200, 2000))
@given(st.integers(0, 2**300), st.integers(1, 2**300), st.integers(-600, 600))
def test_sqrt_bounds_bracket_tightly(p, q, k):
    x = gmpy2.mpq(p, q) * gmpy2.mpq(2) ** k
    lo, hi = sqrt_down(x), sqrt_up(x)
    assert lo * lo <= x <= hi * hi
    if x > 0:
        assert (hi - lo) <= hi * gmpy2.mpq(1, 2**60)


@pytest.mark.parametrize("q, expect", [
    (Fr(1, 2**1075) + Fr(1, 2**1134), 2.0**-1074),  # above half the smallest subnormal: rounds up
    (Fr(1, 2**1075), 0.0),  # exactly half: ties to even (zero)
    (Fr(3, 2**1075) - Fr(1, 2**1140), 2.0**-1074),  # just below 1.5 subnormal steps
    (Fr(2**53 - 1, 2**1075) + Fr(1, 2**1180), float(Fr(2**53 - 1, 2**1075) + Fr(1, 2**1180))),
])
def test_nearest_float_rounds_once_at_subnormals(q, expect):
    # Rounding to 53 bits first and then to the subnormal grid (double rounding) gets these
    # wrong; Python's Fraction -> float rounds once, correctly.
    assert float(q) == expect
    assert nearest_float(gmpy2.mpq(q.numerator, q.denominator)) == expect


def test_sqrt_of_squares_is_exact():
    assert sqrt_down(gmpy2.mpq(9, 16)) == sqrt_up(gmpy2.mpq(9, 16)) == gmpy2.mpq(3, 4)


def test_inputs_from_numpy():
    c = segment_contact(exact_facet(*map(np.array, CUBE_FACE_X0)), np.array([-0.625, 0.25, 0.625]),
                        np.array([1.375, 0.25, 0.625]))
    assert c.t == Fr(5, 16)
