"""Convex polygon partition: quality against the exhaustive-search optimum, and throughput.

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
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interval.convex_polygon import (  # noqa: E402
    check_partition,
    edge_census,
    exact_polygon_of,
    exact_positions,
    mergeable_adjacency,
    triangle_height_ratio,
    weld,
)
from oracles.checks.convex_polygon import _place, _rotation, mesh_fan, mesh_grid  # noqa: E402
from reference.convex_polygon import ConvexPolygonPartition, try_partition_convex_polygons  # noqa: E402


def greedy_count(pos32, idx) -> int:
    p = ConvexPolygonPartition()
    out = try_partition_convex_polygons(pos32, np.asarray(idx, np.int64), p)
    assert out.ok, out.diagnostic
    return len(p.polygons)


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

    @lru_cache(maxsize=None)
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
        o, nvalid = optimum(pos, idx)
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
    args = p.parse_args(argv)
    quality(args)
    throughput(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
