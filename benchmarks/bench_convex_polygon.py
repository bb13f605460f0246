"""Convex polygon partition: collapse of rotated float32 meshes, quality against the exhaustive-search
optimum, area against the source triangles, and throughput.

Collapse (issue 23). A planar n x n grid of unit squares (n = 2..16, two triangles a square,
row-major indices as an exporter writes them) is rotated into 12 seeded orientations, moved to
offset 0 or (1e6, -1e6, 1e6), and rounded to float32: what an exported light mesh is. Its
"exact version" is the same grid and indices in z = 0 at the same offset, whose float32
positions are exact. The table counts the orientations that collapse to one polygon against
the exact versions that do, and sorts every miss by its cause, decided exactly
(``interval.convex_polygon.exact_polygon_of``): *not one polygon* when the whole rounded grid
is not one valid polygon under the rule (rounding put a vertex more than delta off its side or
plane: no order can collapse it); *near threshold* when it is, and two adjacent pieces of the
result would form one valid polygon under the rule loosened to the oracle's band (drops and
plane within 2 delta, turns above delta / 2), so a tolerance decision that rounding can flip
kept them apart; *dead end* otherwise (no adjacent pair comes near: the merge order painted
itself into a corner). A second line repeats the count with the indices shuffled (a vertex
cache optimiser's order). Fans of k = 3..12 rim vertices (radius 16, rim on a 1/16 lattice so
the axis-aligned version is exact at both offsets) are counted the same way, as pieces.

Area. For every polygon of those meshes, ``|area(polygon) - sum area(source triangles)|``
(exact Newell vectors, ``interval.convex_polygon.area_gap``), absolute and over ``delta x
perimeter``: the most that dropping vertices within ``delta`` of their chords can move it
(``docs/decisions.md``, "Convex polygons: the greedy order").

Quality. On small meshes (at most ``--max-triangles`` nondegenerate triangles) the exhaustive
search enumerates every connected set of triangles (through mergeable edges) that forms one
valid polygon under the documented rule, decided exactly by ``interval.convex_polygon
.exact_polygon_of`` (boundary one simple loop, at most seven corners, strictly convex,
coplanar within delta, no unmergeable edge inside), then finds the fewest such sets that cover
every nondegenerate triangle exactly once (depth-first exact cover with memoisation). The
greedy fast path's polygon count is reported against that optimum: the share of meshes where
it is optimal, and the mean and worst ratio.

Throughput. Triangles per CPU second (``time.process_time``: the machine is shared, so wall
time would measure the neighbours) of ``try_partition_convex_polygons`` on grids and fans of
growing size, and the cost of the exact oracle's check of the same output, measured in the
same run (the ratio oracle / fast path). No CGAL binding with ``approx_convex_partition_2``
installs here (the ``cgal`` SWIG bindings do not wrap Partition_2), so the optimum is the peer.

    python benchmarks/bench_convex_polygon.py [--seed S] [--small N] [--max-triangles T]
                                              [--grid-max N] [--orientations K]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import cache
from pathlib import Path

import gmpy2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interval.convex_polygon import (
    area_gap,
    check_partition,
    edge_census,
    exact_polygon_of,
    exact_positions,
    mergeable_adjacency,
    triangle_height_ratio,
    weld,
)
from oracles.families.convex_polygon.corpus import (
    _place,
    _rotation,
    mesh_fan,
    mesh_grid,
    mesh_lattice_fan,
    mesh_shuffled,
)
from reference.convex_polygon import ConvexPolygonPartition, try_partition_convex_polygons


def partition(pos32, idx) -> ConvexPolygonPartition:
    p = ConvexPolygonPartition()
    out = try_partition_convex_polygons(pos32, np.asarray(idx, np.int64), p)
    assert out.ok, out.diagnostic
    return p


def greedy_count(pos32, idx) -> int:
    return len(partition(pos32, idx).polygons)


# --- Collapse of rotated float32 meshes ----------------------------------------------------------

_LOOSE = dict(drop=gmpy2.mpq(2), turn=gmpy2.mpq(1, 2), plane=gmpy2.mpq(2), facing=gmpy2.mpq(1, 2))


def measure(pos32, idx, part):
    """``(classification, worst area gap, worst gap / (delta x perimeter))`` of one result:
    classification ``one``, ``not one polygon``, ``near threshold`` or ``dead end`` (see the
    module docstring)."""
    qpos = exact_positions(pos32.astype(np.float64).tolist())
    ids = weld(qpos)
    tri = {t: tuple(ids[int(v)] for v in idx[3 * t: 3 * t + 3]) for t in range(len(idx) // 3)}
    gap = ratio = 0.0
    members = [part.polygon_triangles(k).tolist() for k in range(len(part.polygons))]
    for poly, mem in zip(part.polygons, members):
        corners = exact_positions(poly.vertices.astype(np.float64).tolist())
        g, delta, perimeter = area_gap(corners, [tuple(qpos[i] for i in tri[t]) for t in mem])
        gap, ratio = max(gap, g), max(ratio, g / (delta * perimeter))
    if len(members) == 1:
        return "one", gap, ratio
    if exact_polygon_of(qpos, list(tri.values())) is None:
        return "not one polygon", gap, ratio
    owner = {t: k for k, mem in enumerate(members) for t in mem}
    adj = mergeable_adjacency({t: tri[t] for t in owner})
    pairs = {(min(owner[a], owner[b]), max(owner[a], owner[b])) for a in adj for b in adj[a] if owner[a] != owner[b]}
    for a, b in sorted(pairs):
        union = sorted(set(members[a]) | set(members[b]))
        if exact_polygon_of(qpos, [tri[t] for t in union], **_LOOSE) is not None:
            return "near threshold", gap, ratio
    return "dead end", gap, ratio


def collapse(args):
    rng = np.random.default_rng(args.seed)
    rotations = [_rotation(rng) for _ in range(args.orientations)]
    offsets = ((0.0, 0.0, 0.0), (1e6, -1e6, 1e6))
    t0 = time.process_time()
    K = len(rotations)
    print(f"Rotated float32 grids: {K} orientations each; 'exact' is the same grid and indices in z = 0 "
          "(exact float32 positions)")
    print(f"{'offset':>6s} {'n':>3s} {'collapse':>9s} {'exact':>6s} "
          f"{'misses: not one polygon / near threshold / dead end':>52s} {'max pieces':>10s} {'area gap':>9s} "
          f"{'gap/(dP)':>8s}")
    summary = {}
    for off in offsets:
        o = np.asarray(off)
        tag = "0" if not any(off) else "1e6"
        tot = {"one": 0, "exact": 0, "not one polygon": 0, "near threshold": 0, "dead end": 0, "meshes": 0,
               "gap": 0.0, "ratio": 0.0,
               "shuffled": 0, "shuffled exact": 0}
        for n in range(2, args.grid_max + 1):
            pos, idx = mesh_grid(n, n)
            exact = greedy_count((pos + o).astype(np.float32), idx) == 1
            kinds, worst, gap, ratio = [], 1, 0.0, 0.0
            for rot in rotations:
                p32 = _place(pos, rot, off)
                part = partition(p32, idx)
                kind, g, r = measure(p32, idx, part)
                kinds.append(kind)
                worst, gap, ratio = max(worst, len(part.polygons)), max(gap, g), max(ratio, r)
            one = kinds.count("one")
            notone, near, dead = (kinds.count(k) for k in ("not one polygon", "near threshold", "dead end"))
            print(f"{tag:>6s} {n:3d} {one:5d}/{K:<3d} {K * exact:6d} {notone:>23d} / {near:>14d} / {dead:<8d} "
                  f"{worst:10d} {gap:9.3g} {ratio:8.3f}")
            tot["one"] += one
            tot["exact"] += K * exact
            tot["not one polygon"] += notone
            tot["near threshold"] += near
            tot["dead end"] += dead
            tot["meshes"] += K
            tot["gap"], tot["ratio"] = max(tot["gap"], gap), max(tot["ratio"], ratio)
            # the same grid with shuffled indices, against its own exact version
            spos, sidx = mesh_shuffled(pos, idx, np.random.default_rng([args.seed, n]))
            tot["shuffled exact"] += K * (greedy_count((spos + o).astype(np.float32), sidx) == 1)
            tot["shuffled"] += sum(greedy_count(_place(spos, rot, off), sidx) == 1 for rot in rotations)
        summary[tag] = tot
        print(f"{tag:>6s} all {tot['one']:5d}/{tot['meshes']:<3d} {tot['exact']:6d} {tot['not one polygon']:>23d} / "
              f"{tot['near threshold']:>14d} / {tot['dead end']:<8d} {'':10s} {tot['gap']:9.3g} {tot['ratio']:8.3f}")
        print(f"{tag:>6s} shuffled indices: {tot['shuffled']}/{tot['meshes']} collapse, exact versions "
              f"{tot['shuffled exact']}/{tot['meshes']}")
    print(f"\nRotated float32 fans (radius 16, rim on a 1/16 lattice), {K} orientations each: pieces")
    print(f"{'offset':>6s} {'k':>3s} {'exact':>5s} {'rounded min-max':>15s} {'as exact':>8s} {'area gap':>9s} "
          f"{'gap/(dP)':>8s}")
    for off in offsets:
        tag = "0" if not any(off) else "1e6"
        same = meshes = 0
        for k in range(3, 13):
            pos, idx = mesh_lattice_fan(k)
            exact = greedy_count((pos + np.asarray(off)).astype(np.float32), idx)
            counts, gap, ratio = [], 0.0, 0.0
            for rot in rotations:
                p32 = _place(pos, rot, off)
                part = partition(p32, idx)
                _, g, r = measure(p32, idx, part)
                counts.append(len(part.polygons))
                gap, ratio = max(gap, g), max(ratio, r)
            same += counts.count(exact)
            meshes += K
            print(f"{tag:>6s} {k:3d} {exact:5d} {min(counts):>9d}-{max(counts):<5d} {counts.count(exact):5d}/{K:<2d} "
                  f"{gap:9.3g} {ratio:8.3f}")
        summary[tag]["fans"], summary[tag]["fan meshes"] = same, meshes
    print(f"({time.process_time() - t0:.1f} s)")
    for tag, tot in summary.items():
        print("BENCH-ROW " + json.dumps({
            "bench": "convex_polygon", "case": f"rotated float32 grids n=2..{args.grid_max}, offset {tag}",
            "metric": "meshes collapsing to one polygon", "ours": tot["one"], "peer_name": "exact grids",
            "peer": tot["exact"], "ratio": tot["one"] / tot["exact"],
            "target": "equal" if tag == "0" else "equal, or misses explained",
            "met": tot["one"] == tot["exact"] or (tag != "0" and tot["dead end"] == 0)}))


def optimum(pos32, idx):
    """The fewest valid polygons covering every nondegenerate triangle, by exhaustive search;
    returns (count, number of valid polygons enumerated)."""
    qpos = exact_positions(pos32.astype(np.float64).tolist())
    ids = weld(qpos)
    T = len(idx) // 3
    corners = {}
    for t in range(T):
        c = tuple(ids[int(v)] for v in idx[3 * t: 3 * t + 3])
        r = triangle_height_ratio(*(qpos[i] for i in c))
        if r is not None and r > 1:
            corners[t] = c
    bad, uses = edge_census(corners)
    adj = mergeable_adjacency(corners)
    bad_sets = [frozenset(t for _, _, t in uses[e]) for e in bad]
    tris = sorted(corners)
    bit = {t: 1 << k for k, t in enumerate(tris)}

    # Every connected set, each enumerated once: grown from its smallest member through
    # neighbours larger than it (ESU-style extension sets).
    valid = []

    def grow(sub, ext, root):
        mask = sum(bit[t] for t in sub)
        if not any(len(b & sub) > 1 for b in bad_sets):
            if exact_polygon_of(qpos, [corners[t] for t in sorted(sub)]) is not None:
                valid.append(mask)
        ext = set(ext)
        while ext:
            w = ext.pop()
            new_ext = ext | {u for u in adj[w] if u > root and u not in sub and
                             all(u not in adj[s] for s in sub)}
            grow(sub | {w}, new_ext, root)

    for r in tris:
        grow(frozenset([r]), {u for u in adj[r] if u > r}, r)
    full = (1 << len(tris)) - 1
    by_low = {}
    for m in valid:
        low = (m & -m).bit_length() - 1
        by_low.setdefault(low, []).append(m)

    @cache
    def cover(done):
        if done == full:
            return 0
        free = ~done & full
        low = (free & -free).bit_length() - 1
        best = len(tris)
        for m in by_low_all[low]:
            if not m & done:
                best = min(best, 1 + cover(done | m))
        return best

    # index every valid set by each of its members, so the lowest uncovered triangle finds it
    by_low_all = {k: [m for m in valid if m >> k & 1] for k in range(len(tris))}
    return (cover(0) if tris else 0), len(valid)


def small_meshes(rng, n, max_tris):
    out = []
    for k in range(n):
        kind = k % 4
        if kind == 0:
            nx, ny = int(rng.integers(1, 4)), int(rng.integers(1, 3))
            pos, idx = mesh_grid(nx, ny, diagonals="random", rng=rng)
            tris = [idx[3 * t: 3 * t + 3] for t in range(len(idx) // 3)]
            tris = [t for t in tris if rng.random() > 0.25] or tris[:1]
            idx = [v for t in tris for v in t]
            name = "grid, dropped triangles"
        elif kind == 1:
            nx, ny = int(rng.integers(1, 4)), int(rng.integers(1, 3))
            pos, idx = mesh_grid(nx, ny, diagonals="random", rng=rng)
            inner = (pos[:, 0] > 0) & (pos[:, 0] < nx) & (pos[:, 1] > 0) & (pos[:, 1] < ny)
            pos[inner, :2] += rng.uniform(-0.3, 0.3, (int(inner.sum()), 2))
            name = "grid, jittered"
        elif kind == 2:
            pos, idx = mesh_fan(int(rng.integers(3, 11)))
            pos[0, :2] += rng.uniform(-0.2, 0.2, 2)
            name = "fan, off-centre"
        else:
            pos, idx = mesh_fan(int(rng.integers(3, 11)))
            name = "fan, centred"
        if len(idx) // 3 > max_tris:
            continue
        rot = _rotation(rng) if rng.random() < 0.5 else None
        out.append((name, _place(pos, rot, (0.0, 0.0, 0.0), 1.0), idx))
    return out


def quality(args):
    rng = np.random.default_rng(args.seed)
    rows = {}
    t0 = time.process_time()
    for name, pos, idx in small_meshes(rng, args.small, args.max_triangles):
        g = greedy_count(pos, idx)
        o, _nvalid = optimum(pos, idx)
        assert g >= o, (name, g, o)
        rows.setdefault(name, []).append((g, o))
    dt = time.process_time() - t0
    print(f"Quality against the exhaustive optimum ({sum(map(len, rows.values()))} meshes of at most "
          f"{args.max_triangles} triangles, {dt:.1f} s)")
    print(f"{'family':26s} {'meshes':>6s} {'optimal':>8s} {'mean ratio':>10s} {'worst ratio':>11s} "
          f"{'worst (greedy/opt)':>18s}")
    allr = []
    for name, lst in rows.items():
        ratios = [g / o for g, o in lst]
        allr += ratios
        worst = max(lst, key=lambda go: go[0] / go[1])
        print(f"{name:26s} {len(lst):6d} {100 * sum(g == o for g, o in lst) / len(lst):7.0f}% "
              f"{np.mean(ratios):10.3f} {max(ratios):11.3f} {worst[0]:>12d}/{worst[1]}")
    print(f"{'all':26s} {len(allr):6d} {100 * np.mean([r == 1 for r in allr]):7.0f}% {np.mean(allr):10.3f} "
          f"{max(allr):11.3f}")


def throughput(args):
    print("\nThroughput (fast path) and exact-check cost, same run")
    print(f"{'mesh':28s} {'triangles':>9s} {'polygons':>8s} {'fast tri/s':>11s} {'oracle tri/s':>12s} "
          f"{'oracle/fast':>11s}")
    rng = np.random.default_rng(args.seed + 1)
    cases = []
    for n in (8, 16, 32):
        cases.append((f"grid {n}x{n}", *mesh_grid(n, n, diagonals="random", rng=rng)))
    pos, idx = mesh_grid(24, 24, diagonals="random", rng=rng)
    cases.append(("grid 24x24 far (1e7), tilted", _place(pos, _rotation(rng), (1e7, -1e7, 5e6)), idx))
    pos, idx = mesh_grid(24, 24, diagonals="random", rng=rng)
    pos[:, 2] = np.sin(pos[:, 0] * 0.3) * 2.0  # curved: many small pieces
    cases.append(("grid 24x24 curved", pos, idx))
    fpos, fidx = [], []
    for k in range(200):
        p, i = mesh_fan(int(rng.integers(3, 10)))
        fidx += [v + len(fpos) for v in i]
        fpos += (p + (3.0 * k, 0.0, 0.0)).tolist()
    cases.append(("200 separate fans", np.array(fpos), fidx))
    for name, pos, idx in cases:
        pos32 = np.asarray(pos, np.float32)
        ia = np.asarray(idx, np.int64)
        part = ConvexPolygonPartition()
        reps = 3
        t0 = time.process_time()
        for _ in range(reps):
            try_partition_convex_polygons(pos32, ia, part)
        tf = (time.process_time() - t0) / reps
        polys = [{"positions": p.vertices.astype(float).tolist(), "normal": p.normal_mesh.astype(float).tolist(),
                  "first_triangle": p.first_triangle, "triangle_count": p.triangle_count} for p in part.polygons]
        t0 = time.process_time()
        rep = check_partition(pos32.astype(float).tolist(), idx, polys, part.triangles.tolist(),
                              part.degenerate_triangle_count, part.unmergeable_edge_count)
        to = time.process_time() - t0
        assert rep.ok, rep.failures[:2]
        T = len(idx) // 3
        print(f"{name:28s} {T:9d} {len(part.polygons):8d} {T / tf:11.0f} {T / to:12.0f} {to / tf:11.2f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--small", type=int, default=80, help="small meshes drawn for the quality table")
    p.add_argument("--max-triangles", type=int, default=10)
    p.add_argument("--grid-max", type=int, default=16, help="largest n of the rotated n x n grids")
    p.add_argument("--orientations", type=int, default=12)
    args = p.parse_args(argv)
    collapse(args)
    print()
    quality(args)
    throughput(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
