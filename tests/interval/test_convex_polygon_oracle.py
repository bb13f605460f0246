"""The exact convex-partition oracle on partitions written by hand (never produced by the fast
path): a correct partition passes; each property broken on its own is reported under its name.
Also the exact predicates (tolerance, heights, welding, boundary loops, exact_polygon_of,
area_gap) against hand-computed rationals, and the restated tolerance against the fast path's constants."""

from __future__ import annotations

import gmpy2
import numpy as np
import pytest

import interval.convex_polygon as O
import reference.convex_polygon as R
from oracles.families.convex_polygon import mesh_fan, mesh_grid

q = gmpy2.mpq


def poly(corners, first, count, normal=(0.0, 0.0, 1.0)):
    return {"positions": [list(map(float, c)) for c in corners], "normal": list(normal),
            "first_triangle": first, "triangle_count": count}


def props(report):
    return {f["property"] for f in report.failures}


# A 2x1 strip of unit squares in z = 0 (hand-made): vertices 0..5, triangles t0..t3.
STRIP = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (1, 1, 0), (2, 1, 0)]
STRIP_IDX = [0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4]
STRIP_RECT = [(0, 0, 0), (2, 0, 0), (2, 1, 0), (0, 1, 0)]


def check(polys, tris, deg=0, unm=0, pos=STRIP, idx=STRIP_IDX):
    return O.check_partition([list(map(float, p)) for p in pos], idx, polys, tris, deg, unm)


def test_constants_match_the_fast_path():
    assert O.REL_TOLERANCE == q(R.REL_TOLERANCE) and O.FLOOR_TOLERANCE == q(R.FLOOR_TOLERANCE)
    assert O.MAX_VERTICES == R.MAX_POLYGON_VERTICES


def test_exact_tolerance_and_height_on_hand_values():
    pts = O.exact_positions([(0, 0, 0), (4, 1, 0), (1, 3, -1)])
    assert O.exact_tolerance(pts) == 4 * q(1, 2**16)
    far = O.exact_positions([(2.0**24, 0, 0), (2.0**24 + 2, 0, 0)])
    assert O.exact_tolerance(far) == q(2**24 + 2, 2**24)
    # right triangle with legs 1: h = 1/sqrt(2) over the hypotenuse; delta = 2^-16
    a, b, c = O.exact_positions([(0, 0, 0), (1, 0, 0), (0, 1, 0)])
    assert O.triangle_height_ratio(a, b, c) == q(1, 2) * 2**32
    assert O.triangle_height_ratio(a, a, c) is None
    assert O.triangle_height_ratio(*O.exact_positions([(0, 0, 0), (1, 0, 0), (3, 0, 0)])) == 0


def test_weld_by_value_signed_zeros_equal():
    pts = O.exact_positions([(0.0, 0.0, 0.0), (1, 0, 0), (-0.0, 0.0, -0.0), (1, 0, 0)])
    assert O.weld(pts) == [0, 1, 0, 1]


def test_boundary_cycle_of_a_ring_is_two_loops():
    _pos, idx = mesh_grid(3, 3)
    idx = idx[:24] + idx[30:]
    tris = [tuple(idx[3 * t: 3 * t + 3]) for t in range(len(idx) // 3)]
    assert "more than one loop" in O._boundary_cycle(tris)
    _pos, idx = mesh_grid(1, 1)
    assert O._boundary_cycle([(0, 1, 2), (1, 3, 2)]) == [0, 1, 3, 2]


def test_correct_hand_partitions_pass():
    assert check([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 3]).ok
    rep = check([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 3])
    assert rep.ok and rep.worst_ratio == 0 and rep.exact_planar_polygons == 1
    # folded along x = 1: the two squares are in different planes and stay apart
    folded = [list(map(float, p)) for p in STRIP]
    folded[2][2] = folded[5][2] = 1.0
    two = [poly([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], 0, 2),
           poly([(1, 0, 0), (2, 0, 1), (2, 1, 1), (1, 1, 0)], 2, 2, (-2**-0.5, 0.0, 2**-0.5))]
    rep = check(two, [0, 1, 2, 3], pos=folded)
    assert rep.ok and rep.exact_planar_polygons == 2, rep.failures
    # corners may start anywhere on the loop
    assert check([poly(STRIP_RECT[2:] + STRIP_RECT[:2], 0, 4)], [0, 1, 2, 3]).ok


@pytest.mark.parametrize("polys, tris, deg, unm, prop", [
    ([poly([(0, 0, 0), (2, 0, 0), (2, 1, 0), (0.0, 1.0000001, 0)], 0, 4)], [0, 1, 2, 3], 0, 0, "bitwise_positions"),
    ([poly(STRIP_RECT[::-1], 0, 4, (0.0, 0.0, 1.0))], [0, 1, 2, 3], 0, 0, "ccw"),
    ([poly(STRIP_RECT, 0, 4, (0.0, 0.0, -1.0))], [0, 1, 2, 3], 0, 0, "normal"),
    ([poly(STRIP_RECT, 0, 4, (0.0, 0.01, 1.0))], [0, 1, 2, 3], 0, 0, "normal"),
    ([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 3], 1, 0, "degenerate_count"),
    ([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 3], 0, 1, "unmergeable_count"),
    ([poly(STRIP_RECT, 0, 3)], [0, 1, 2], 1, 0, "degenerate"),           # a real triangle left out
    ([poly(STRIP_RECT, 0, 4), poly(STRIP_RECT, 3, 1)], [0, 1, 2, 3], 0, 0, "membership"),  # overlap
    ([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 2], 0, 0, "membership"),          # repeated triangle
    ([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 7], 0, 0, "membership"),          # out of range
    ([poly([(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0), (0, 1, 0)], 0, 4)], [0, 1, 2, 3], 0, 0, "convex"),
    ([poly([(0, 0, 0), (2, 0, 0), (2, 1, 0)], 0, 4)], [0, 1, 2, 3], 0, 0, "collinear"),  # (0,1) dropped
    ([poly([(0, 0, 0), (2, 0, 0), (2, 1, 0), (0, 0, 0)], 0, 4)], [0, 1, 2, 3], 0, 0, "corners"),  # repeated
    ([poly([(0, 0, 0), (2, 0, 0), (1, 1, 0), (0, 1, 0)], 0, 2), poly([(1, 0, 0), (2, 1, 0), (1, 1, 0)], 2, 2)],
     [0, 2, 1, 3], 0, 0, "tiling"),  # t0 and t2 touch at one vertex only
])
def test_each_broken_property_is_named(polys, tris, deg, unm, prop):
    rep = check(polys, tris, deg, unm)
    assert not rep.ok and prop in props(rep), rep.failures


def test_more_than_seven_corners_is_refused():
    pos, idx = mesh_fan(8)
    p32 = np.asarray(pos, np.float32).astype(float)
    rep = O.check_partition(p32.tolist(), idx, [poly(p32[1:].tolist(), 0, 8)], list(range(8)), 0, 0)
    assert "vertex_count" in props(rep)


def test_crossing_an_unmergeable_edge_is_refused():
    pos = [(0, 0, 0), (1, 0, 0), (0.5, 1, 0), (0.5, -1, 0), (0.5, 0, 1)]
    idx = [0, 1, 2, 1, 0, 3, 0, 1, 4]
    quad = poly([(0, 0, 0), (0.5, -1, 0), (1, 0, 0), (0.5, 1, 0)], 0, 2)
    fin = poly([(0, 0, 0), (1, 0, 0), (0.5, 0, 1)], 2, 1, (0.0, -1.0, 0.0))
    rep = O.check_partition(pos, idx, [quad, fin], [0, 1, 2], 0, 1)
    assert "unmergeable_crossed" in props(rep)
    ok = [poly([(0, 0, 0), (1, 0, 0), (0.5, 1, 0)], 0, 1), poly([(1, 0, 0), (0, 0, 0), (0.5, -1, 0)], 1, 1), fin]
    assert O.check_partition(pos, idx, ok, [0, 1, 2], 0, 1).ok


def test_l_shape_as_one_polygon_is_not_convex():
    pos, idx = mesh_grid(2, 2)
    idx = idx[:18]
    hexagon = [(0, 0, 0), (2, 0, 0), (2, 1, 0), (1, 1, 0), (1, 2, 0), (0, 2, 0)]
    rep = O.check_partition(pos.tolist(), idx, [poly(hexagon, 0, 6)], list(range(6)), 0, 0)
    assert "convex" in props(rep)


def test_lifted_centre_beyond_two_delta_is_not_coplanar():
    pos, idx = mesh_grid(2, 2)
    square = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0)]
    for lift, ok in ((1.5, True), (2.5, False)):
        p = pos.copy()
        p[4, 2] = lift * 2.0 * 2.0**-16  # delta = 2 * 2^-16
        rep = O.check_partition(p.tolist(), idx, [poly(square, 0, 8)], list(range(8)), 0, 0)
        assert rep.ok == ok, rep.failures
        if not ok:
            assert "coplanar" in props(rep)


def test_dropped_vertex_beyond_two_delta_is_refused():
    pos = [list(map(float, p)) for p in STRIP]
    for bulge, ok in ((1.5, True), (2.5, False)):
        p = [list(v) for v in pos]
        p[1][1] = -bulge * 2.0 * 2.0**-16  # delta = 2 * 2^-16; vertex (1, 0) sags below the chord
        rep = O.check_partition(p, STRIP_IDX, [poly(STRIP_RECT, 0, 4)], [0, 1, 2, 3], 0, 0)
        assert rep.ok == ok, rep.failures


def test_degenerate_band():
    base = [(0, 0, 0), (1, 0, 0), (0.5, 0, 0)]
    for h, kept_ok, out_ok in ((0.0, False, True), (0.4 * 2.0**-16, False, True), (2.0**-16, True, True),
                               (2.5 * 2.0**-16, True, False)):
        pos = [list(map(float, p)) for p in base]
        pos[2][1] = h
        tri = poly([pos[0], pos[1], pos[2]], 0, 1)
        assert O.check_partition(pos, [0, 1, 2], [tri], [0], 0, 0).ok == kept_ok
        assert O.check_partition(pos, [0, 1, 2], [], [], 1, 0).ok == out_ok


def test_exact_polygon_of_hand_cases():
    pos, idx = mesh_grid(2, 2)
    qp = O.exact_positions(pos.tolist())
    tris = [tuple(idx[3 * t: 3 * t + 3]) for t in range(8)]
    assert sorted(O.exact_polygon_of(qp, tris)) == [0, 2, 6, 8]
    assert O.exact_polygon_of(qp, tris[:6]) is None  # L shape
    pos, idx = mesh_fan(5)
    qp = O.exact_positions([list(map(float, v)) for v in pos.astype("float32")])
    tris = [tuple(idx[3 * t: 3 * t + 3]) for t in range(5)]
    assert sorted(O.exact_polygon_of(qp, tris)) == [1, 2, 3, 4, 5]  # the centre is interior
    pos, idx = mesh_fan(8)
    qp = O.exact_positions([list(map(float, v)) for v in pos.astype("float32")])
    assert O.exact_polygon_of(qp, [tuple(idx[3 * t: 3 * t + 3]) for t in range(8)]) is None  # 8 corners


def test_two_polygons_that_clearly_merge_are_not_maximal():
    two = [poly([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], 0, 2),
           poly([(1, 0, 0), (2, 0, 0), (2, 1, 0), (1, 1, 0)], 2, 2)]
    rep = check(two, [0, 1, 2, 3])
    assert props(rep) == {"maximal"}


def test_maximality_leaves_the_band_to_the_fast_path():
    # the shared vertex (1, 0) sags by 0.75 delta: the fast path may merge (drop at <= delta) or
    # not; the oracle asks for drops within delta / 2 before calling a split non-maximal
    sag = [list(map(float, p)) for p in STRIP]
    sag[1][1] = -0.75 * 2.0 * 2.0**-16
    two = [poly([(0, 0, 0), sag[1], (1, 1, 0), (0, 1, 0)], 0, 2), poly([sag[1], (2, 0, 0), (2, 1, 0), (1, 1, 0)], 2, 2)]
    assert check(two, [0, 1, 2, 3], pos=sag).ok
    assert check([poly(STRIP_RECT, 0, 4)], [0, 1, 2, 3], pos=sag).ok


def test_a_corner_barely_off_its_chord_counts_as_collinear():
    # (1, -0.25 delta) keeps the pentagon exactly convex, but nearly three collinear
    for bulge, ok in ((0.25, False), (0.75, True)):
        p = [list(map(float, v)) for v in STRIP]
        p[1][1] = -bulge * 2.0 * 2.0**-16
        pentagon = poly([(0, 0, 0), p[1], (2, 0, 0), (2, 1, 0), (0, 1, 0)], 0, 4)
        rep = check([pentagon], [0, 1, 2, 3], pos=p)
        assert rep.ok == ok, rep.failures
        if not ok:
            assert props(rep) == {"collinear"}


def test_the_oracle_imports_nothing_from_the_fast_path():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(O))
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    allowed = {"reference.context", "reference.kernel", "reference.status"}
    assert all(not (m or "").startswith("reference") or m in allowed for m in names), names


def test_area_gap_of_a_dropped_vertex_is_the_sliver_it_cuts_off():
    """A 2x2 square whose bottom midpoint sits h inside: its triangles cover 4 - h, the square
    of its four corners 4, so the gap is h; delta = 2^-16 x 2 (extent 2), perimeter 8."""
    h = 2.0**-20
    q = O.exact_positions([(0, 0, 0), (1, h, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0)])
    tris = [(q[0], q[1], q[4]), (q[1], q[2], q[3]), (q[1], q[3], q[4])]
    assert O.area_gap([q[0], q[2], q[3], q[4]], tris) == (h, 2.0**-15, 8.0)
    assert O.area_gap([q[0], q[1], q[2], q[3], q[4]], tris)[0] == 0.0  # nothing dropped: no gap
