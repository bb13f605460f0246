"""PointSearchTree (spec 002 "Point neighborhoods"): hand-derived fixtures, failures that
change nothing, the packed layout, and the exact comparison kernel against Fractions.

Expected orders come from exact rational squared distances (``fractions.Fraction``), never from
the code under test."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import reference.point_search as PS
from reference.point_search import (
    LEAF_SIZE,
    MAX_POINT_NEIGHBORS,
    MAX_POINT_SEARCH_COORDINATE as MAXC,
    NODE_DTYPE,
    PointSearchTree,
    distance_error_bound,
)
from reference.status import GeometryStatus as S


def exact_order(points, q):
    d = [sum((Fraction(float(a)) - Fraction(float(b))) ** 2 for a, b in zip(p, q)) for p in points]
    return sorted(range(len(points)), key=lambda i: (d[i], i)), d


def built(points):
    t = PointSearchTree()
    out = t.build(np.asarray(points, dtype=np.float32))
    assert out.ok, out.diagnostic
    return t


def nearest(t, q, k, itype=np.int64):
    oi, od = np.full(k, -7, itype), np.full(k, np.float32(-1), np.float32)
    out = t.find_nearest(q, k, oi, od)
    assert out.ok, out.diagnostic
    return oi.tolist(), od


def test_duplicates_come_back_in_source_index_order():
    # acceptance fixture: eight copies of one point among others; every copy is at distance 0
    pts = [[5, 5, 5]] * 3 + [[1, 2, 3]] * 8 + [[0, 0, 0]] + [[1, 2, 3]] * 4 + [[9, 9, 9]]
    copies = [i for i, p in enumerate(pts) if p == [1, 2, 3]]
    t = built(pts)
    idx, d = nearest(t, [1, 2, 3], 12)
    assert idx == copies and np.all(d == 0)
    idx, _ = nearest(t, [1, 2, 3], 5)
    assert idx == copies[:5]
    # all points equal: any count returns the lowest source indices in order
    t = built([[0.25, -1.5, 3.0]] * 40)
    for k in (1, 7, 32):
        assert nearest(t, [0, 0, 0], k)[0] == list(range(k))


def test_axis_points_hand_derived():
    t = built([[3, 0, 0], [0, -1, 0], [0, 0, 2], [-2, 0, 0], [0, 1, 0]])
    idx, d = nearest(t, [0, 0, 0], 5)
    # distances 9, 1, 4, 4, 1: ties 1 (indices 1, 4) and 4 (indices 2, 3)
    assert idx == [1, 4, 2, 3, 0]
    assert d.tolist() == [1.0, 1.0, 4.0, 4.0, 9.0]


def test_count_above_point_count_and_bad_counts_change_nothing():
    t = built([[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    for k in (4, 0, -1, MAX_POINT_NEIGHBORS + 1, True, 2.0, None):
        oi = np.arange(40, dtype=np.int64)
        od = np.linspace(-3, 3, 40).astype(np.float32)
        before = (oi.copy(), od.copy())
        out = t.find_nearest([0, 0, 0], k, oi, od)
        assert out.status is S.InvalidArgument and out.diagnostic.field == "count"
        assert np.array_equal(oi, before[0]) and np.array_equal(od, before[1])


@pytest.mark.parametrize("q", [[np.nan, 0, 0], [0, np.inf, 0], [0, 0, -np.inf], [MAXC * 2, 0, 0], [1e39, 0, 0],
                               [0.1, 0, 0]])
def test_bad_query_changes_nothing(q):
    t = built([[0, 0, 0], [1, 0, 0]])
    oi, od = np.full(2, 5, np.int32), np.full(2, np.float32(7), np.float32)
    out = t.find_nearest(q, 1, oi, od)
    assert out.status is S.InvalidArgument
    assert oi.tolist() == [5, 5] and od.tolist() == [7.0, 7.0]


def test_outputs_too_short_or_mistyped_change_nothing():
    t = built(np.eye(3))
    cases = [(np.zeros(1, np.int64), np.zeros(2, np.float32), S.CapacityExceeded),
             (np.zeros(2, np.int64), np.zeros(1, np.float32), S.CapacityExceeded),
             (np.zeros(2, np.float64), np.zeros(2, np.float32), S.InvalidArgument),
             (np.zeros(2, np.int64), np.zeros(2, np.float64), S.InvalidArgument),  # stays float32
             ([0, 0], np.zeros(2, np.float32), S.InvalidArgument)]
    for oi, od, status in cases:
        snap = [np.array(oi, copy=True), od.copy()]
        assert t.find_nearest([0, 0, 0], 2, oi, od).status is status
        assert np.array_equal(np.asarray(oi), snap[0]) and np.array_equal(od, snap[1])
    ro = np.zeros(2, np.int64)
    ro.setflags(write=False)
    assert t.find_nearest([0, 0, 0], 2, ro, np.zeros(2, np.float32)).status is S.InvalidArgument


def test_strided_outputs_are_written_in_place():
    t = built([[0, 0, 0], [1, 0, 0], [3, 0, 0]])
    oi, od = np.full(8, -1, np.int64), np.full(8, np.float32(-1), np.float32)
    assert t.find_nearest([2.5, 0, 0], 3, oi[::2], od[1::2]).ok
    assert oi.tolist() == [2, -1, 1, -1, 0, -1, -1, -1]
    assert od[1::2].tolist()[:3] == [0.25, 2.25, 6.25]


def test_empty_tree_answers_no_query():
    t = PointSearchTree()
    assert t.point_count == 0 and t.get_nodes() is None and t.positions is None
    assert t.find_nearest([0, 0, 0], 1, np.zeros(1, np.int64), np.zeros(1, np.float32)).status is S.InvalidArgument


@pytest.mark.parametrize("bad", [
    np.zeros((0, 3)),
    np.zeros((4, 2)),
    np.zeros(3),
    [[0, 0, 0], [np.nan, 0, 0]],
    [[0, 0, 0], [0, np.inf, 0]],
    [[0, 0, 0], [0, 0, float(np.nextafter(np.float32(MAXC), np.float32(np.inf)))]],
    [[0, 0, 0], [-1e39, 0, 0]],  # beyond float32
    [[0, 0, 0], [0, 1 + 2.0 ** -30, 0]],  # not a float32 value
])
def test_failed_build_keeps_the_previous_tree(bad):
    t = built([[1, 2, 3], [4, 5, 6], [1, 2, 3]])
    nodes, pos = t.get_nodes().copy(), t.positions.copy()
    out = t.build(bad)
    assert out.status is S.InvalidArgument
    assert np.array_equal(t.get_nodes(), nodes) and np.array_equal(t.positions, pos)
    assert nearest(t, [1, 2, 3], 3)[0] == [0, 2, 1]


def test_wrong_types_raise():
    with pytest.raises(TypeError):
        PointSearchTree().build([["a", "b", "c"]])
    with pytest.raises(TypeError):
        PointSearchTree().build(np.zeros((2, 3), bool))


def test_build_copies_float32_values_and_narrows_nothing():
    src = np.array([[0.1, 0.2, 0.3], [MAXC, -MAXC, 0.0]], np.float32).astype(np.float64)
    t = PointSearchTree()
    assert t.build(src).ok  # float64 holding float32 values: accepted as they are
    src[0, 0] = 99.0
    assert t.positions.dtype == np.float32 and not t.positions.flags.writeable
    assert t.positions[0].tolist() == np.array([0.1, 0.2, 0.3], np.float32).tolist()
    # 0.1 in float64 is not a float32 value: refused rather than rounded, tree unchanged
    out = t.build([[0.1, 0.0, 0.0]])
    assert out.status is S.InvalidArgument and out.diagnostic.index == 0
    assert t.positions[0, 0] == np.float32(0.1)
    # the extreme magnitude itself is admitted, and a float32 squared distance stays finite
    idx, d = nearest(t, [-MAXC, MAXC, -MAXC], 2)
    assert idx == [0, 1] and np.all(np.isfinite(d))
    assert Fraction(float(d[1])) <= 12 * Fraction(2) ** 120 * (1 + Fraction(1, 2**20))


def test_nodes_are_packed_balanced_and_deterministic():
    rng = np.random.default_rng(4)
    pts = np.concatenate([rng.normal(size=(500, 3)), np.repeat(rng.normal(size=(7, 3)), 9, axis=0)]).astype(np.float32)
    t = built(pts)
    nodes = t.get_nodes()
    assert nodes.dtype == NODE_DTYPE and NODE_DTYPE.itemsize == 40 and not nodes.flags.writeable
    order = t.tree_order()
    assert sorted(order.tolist()) == list(range(len(pts)))
    assert nodes[0]["first"] == 0 and nodes[0]["count"] == len(pts)
    covered, depth = [], {0: 0}
    for i, nd in enumerate(nodes):
        f, c = int(nd["first"]), int(nd["count"])
        box = pts[order[f:f + c]]
        assert np.array_equal(box.min(0), nd["lo"]) and np.array_equal(box.max(0), nd["hi"])
        if nd["left"] < 0:
            assert nd["right"] == -1 and 1 <= c <= LEAF_SIZE
            covered.extend(range(f, f + c))
        else:
            a, b = nodes[nd["left"]], nodes[nd["right"]]
            assert nd["right"] == nd["left"] + 1  # siblings adjacent
            assert (a["first"], a["count"]) == (f, c // 2) and (b["first"], b["count"]) == (f + c // 2, c - c // 2)
            # the left child holds the c // 2 smallest (coordinate, source index) keys on the axis
            # of the largest extent (the lowest such axis)
            ext = nd["hi"].astype(np.float64) - nd["lo"].astype(np.float64)
            axis = int(np.argmax(ext))
            keys = sorted((float(pts[j, axis]), int(j)) for j in order[f:f + c])
            assert sorted((float(pts[j, axis]), int(j)) for j in order[f:f + c // 2]) == keys[: c // 2]
            depth[int(nd["left"])] = depth[int(nd["right"])] = depth[i] + 1
    assert sorted(covered) == list(range(len(pts)))
    assert max(depth.values()) <= math.ceil(math.log2(len(pts) / LEAF_SIZE)) + 1
    again = built(pts)
    assert again.get_nodes().tobytes() == nodes.tobytes() and np.array_equal(again.tree_order(), order)


def _tie_vector():
    # a float32 vector whose coordinate permutations sum to different float64 values in the
    # naive order (x^2 + y^2) + z^2: exact ties that a float64 comparison would break
    v = [float.fromhex(s) for s in ("0x1.c0d6bcp+9", "0x1.0e2768p+3", "0x1.91d288p-2")]
    naive = {(a * a + b * b) + c * c for a, b, c in itertools.permutations(v)}
    assert len(naive) > 1
    return v


def test_exact_ties_that_float64_breaks_are_ordered_by_index():
    v = _tie_vector()
    pts = [[s0 * p[0], s1 * p[1], p[2]] for p in itertools.permutations(v) for s0, s1 in ((1, 1), (-1, 1), (1, -1))]
    pts += [[x * 1.0001 for x in p] for p in pts[:5]]
    rng = np.random.default_rng(2)
    pts = [pts[i] for i in rng.permutation(len(pts))]
    t = built(pts)
    want, d = exact_order(np.asarray(pts, np.float32), [0, 0, 0])
    for k in (1, 6, 18, 23):
        idx, dist = nearest(t, [0, 0, 0], k)
        assert idx == want[:k]
    # exact ties report bitwise-equal distances
    ties = [i for i, j in enumerate(idx) if d[j] == d[want[0]]]
    assert len(ties) == 18 and len(set(dist[ties].tolist())) == 1


def test_exact_sign_kernel_matches_fractions():
    rng = np.random.default_rng(7)
    parts, q = np.empty(40), np.empty(3)
    v = _tie_vector()
    for trial in range(400):
        scale = 10.0 ** rng.integers(-30, 17, size=(3, 3))
        P = (rng.normal(size=(3, 3)) * scale).astype(np.float32).astype(np.float64)
        if trial % 4 == 0:  # an exact tie by permutation, with a random query offset of zero
            P[0], P[1] = v, np.roll(v, 1)
            P[2] = 0.0
        pts = P[:2].copy()
        q[:] = P[2]
        got = PS._exact_sign(pts, 0, 1, q, parts)
        da, db = (sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(p, q)) for p in pts)
        assert got == (da > db) - (da < db), (P, got)


def _cloud(rng, kind, n):
    if kind == "grid":
        g = np.arange(4, dtype=np.float32)
        G = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
        return np.concatenate([G, G[rng.permutation(len(G))[: n - len(G)]]])[rng.permutation(n)]
    if kind == "far":
        return (1e7 + rng.normal(size=(n, 3)) * 4).astype(np.float32)  # float32 spacing 1 there
    if kind == "clustered":
        return (rng.normal(size=(4, 3))[rng.integers(0, 4, n)] + rng.normal(size=(n, 3)) * 1e-3).astype(np.float32)
    return rng.random((n, 3)).astype(np.float32)


@pytest.mark.parametrize("kind", ["grid", "far", "clustered", "uniform"])
def test_orders_match_exact_brute_force(kind):
    rng = np.random.default_rng(len(kind))
    pts = _cloud(rng, kind, 90)
    t = built(pts)
    qs = np.concatenate([pts[:4], pts[:4] + np.float32(0.5), rng.random((4, 3)).astype(np.float32) * pts.max(0)])
    for q in qs:
        want, d = exact_order(pts, q)
        for k in (1, 8, MAX_POINT_NEIGHBORS):
            idx, dist = nearest(t, q, k, np.int32)
            assert idx == want[:k], (kind, q, k)
            assert np.all(np.diff(dist) >= 0)
            for j, r in zip(idx, dist):  # within the error model of the exact squared distance
                # (the bound is recomputed exactly: 2^-24 d + 2^-149 + 8 (2^-53 d + 2^-1074))
                bound = d[j] * (Fraction(1, 2**24) + Fraction(8, 2**53)) + Fraction(1, 2**149) + Fraction(8, 2**1074)
                assert abs(Fraction(float(r)) - d[j]) <= bound
                assert distance_error_bound(float(d[j])) == pytest.approx(float(bound), rel=1e-15)


def test_batch_matches_single_queries_and_fails_whole():
    rng = np.random.default_rng(9)
    pts = _cloud(rng, "grid", 80)
    t = built(pts)
    qs = rng.integers(-1, 5, size=(25, 3)).astype(np.float32) / 2
    oi, od = np.zeros((25, 10), np.int64), np.zeros((25, 10), np.float32)
    assert t.find_nearest_batch(qs, 6, oi, od).ok
    for r, q in enumerate(qs):
        idx, dist = nearest(t, q, 6)
        assert oi[r, :6].tolist() == idx and np.array_equal(od[r, :6], dist)
    assert np.all(oi[:, 6:] == 0)  # columns past count are untouched
    bad = qs.copy()
    bad[17, 1] = np.nan
    oi2, od2 = np.full((25, 6), 3, np.int64), np.full((25, 6), np.float32(2), np.float32)
    assert t.find_nearest_batch(bad, 6, oi2, od2).status is S.InvalidArgument
    assert np.all(oi2 == 3) and np.all(od2 == 2)
    assert t.find_nearest_batch(qs, 6, np.zeros((24, 6), np.int64), od2).status is S.CapacityExceeded


_ALLOC_SCRIPT = """
import numpy as np
from numba.core.runtime import rtsys
from reference.point_search import PointSearchTree
t = PointSearchTree()
rng = np.random.default_rng(0)
assert t.build(rng.random((3000, 3)).astype(np.float32)).ok
out = []
for m in (1, 10, 2000):
    q = rng.random((m, 3)).astype(np.float32)
    oi, od = np.empty((m, 8), np.int64), np.empty((m, 8), np.float32)
    t.find_nearest_batch(q, 8, oi, od)  # compiled before counting
    a = rtsys.get_allocation_stats()
    t.find_nearest_batch(q, 8, oi, od)
    b = rtsys.get_allocation_stats()
    out.append((b.alloc - a.alloc, b.mi_alloc - a.mi_alloc))
print(out)
"""


def test_queries_allocate_nothing_per_query():
    # numba's runtime counts its allocations when NUMBA_NRT_STATS is set at start-up: the batch
    # kernel's count (the argument wrappers of one call) must not grow with the query count
    import ast
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", _ALLOC_SCRIPT], capture_output=True, text=True, env=env, cwd=root,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    counts = ast.literal_eval(r.stdout.strip())
    assert counts[0] == counts[1] == counts[2], counts


def test_split_selection_and_its_sort_fallback_order_by_coordinate_then_index():
    rng = np.random.default_rng(21)
    for trial in range(30):
        n = int(rng.integers(2, 400))
        pts = rng.integers(0, 4 if trial % 2 else 1000, size=(n, 3)).astype(np.float32)  # duplicates
        axis = trial % 3
        want = sorted(range(n), key=lambda j: (float(pts[j, axis]), j))
        perm = rng.permutation(n).astype(np.int64)
        PS._sort_range(perm, 0, n, pts, axis)  # the fallback: a full sort
        assert perm.tolist() == want
        perm = rng.permutation(n).astype(np.int64)
        nth = int(rng.integers(0, n + 1))
        PS._select(perm, 0, n, nth, pts, axis)
        assert sorted(perm[:nth].tolist()) == sorted(want[:nth])
