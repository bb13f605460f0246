"""Sweep benchmark: this project's adaptive tube sweep against trimesh's ``sweep_polygon`` on the
same path and section, at the same true deviation measured by this project's oracle, in one run.

    python benchmarks/bench_sweep.py [--errors 1e-2 1e-3] [--repeat 3] [--json FILE]

Path: the corpus' helix by three cubic quarter turns (radius 1, rising 0.4 per turn); section:
a circle of radius 0.2. For each error e (LongitudinalError = CrossSectionError = e):

* ``try_plan_sweep_mesh`` + ``try_emit_sweep_mesh`` (no caps): vertices, best-of CPU seconds,
  and its true deviation: the largest distance from the ideal tube (dense samples of ``B(u) +
  r (cos a n + sin a b)`` with the true RMF, ``interval.sweep.ideal_points``) to the mesh's
  triangles (``interval.sweep.point_triangle_distance``, every triangle);
* trimesh ``sweep_polygon`` (no caps) with the same polygon segment count along ``m`` points
  of the path sampled uniformly in u, ``m`` doubled until its true deviation on the same oracle
  is at most ours: vertices and CPU seconds at that ``m``.

A circular tube does not depend on the frame's roll, so trimesh's own frames give the same
ideal surface. Timings are process CPU seconds, best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interval.sweep import ideal_points, point_triangle_distance
from oracles.families.sweep import corpus as SW
from reference import kernel as K
from reference.context import F64

RADIUS = 0.2


def _cpu(fn, repeat):
    best, out = math.inf, None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def _ideal(C, seed_normal, nu=48, na=48):
    n = C.shape[0]
    cs = [(math.cos(2 * math.pi * j / na), math.sin(2 * math.pi * j / na)) for j in range(na)]
    samples = [(k, (q + 0.5) / nu, RADIUS, 0.0, cs) for k in range(n) for q in range(nu)]
    pts, _ = ideal_points(C, seed_normal, samples)
    return pts.reshape(-1, 3)


def _deviation(points, V, T):
    a, b, c = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
    worst = 0.0
    for p in points:
        P = np.repeat(p[None], T.shape[0], axis=0)
        worst = max(worst, float(np.min(point_triangle_distance(P, a, b, c))))
    return worst


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--errors", type=float, nargs="+", default=[1e-2, 1e-3])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    import shapely.geometry
    import trimesh

    rows = []
    for e in args.errors:
        case = SW._sc("helix tube", SW._helix(), SW._T, SW._N, SW._CCW, [(0, RADIUS, 0)], e, e)
        t_ours, got = _cpu(lambda: SW.build_sweep(case), args.repeat)
        pv, _mv, fv, p, V, I = got
        C = pv.controls.astype(np.float64)
        ideal = _ideal(C, fv.sample_normal[0])
        nseg = p.value.view().report.section_segments
        d_ours = _deviation(ideal, V[:, :3], I.reshape(-1, 3))
        poly = shapely.geometry.Polygon([(RADIUS * math.cos(2 * math.pi * j / nseg),
                                          RADIUS * math.sin(2 * math.pi * j / nseg)) for j in range(nseg)])
        m = 8
        while True:
            us = np.linspace(0, 1, m)
            # m points per span, joints once.
            path = np.vstack([np.array([K.cubic_point(F64, C[k], np.float64(u)) for u in us[(1 if k else 0):]])
                              for k in range(C.shape[0])])
            t_tm, mesh = _cpu(lambda: trimesh.creation.sweep_polygon(poly, path, cap=False), args.repeat)
            d_tm = _deviation(ideal, np.asarray(mesh.vertices), np.asarray(mesh.faces))
            if d_tm <= d_ours or m > 4096:
                break
            m *= 2
        row = {"error": e, "ours_vertices": int(V.shape[0]), "ours_cpu_s": t_ours, "ours_true_deviation": d_ours,
               "segments": nseg, "trimesh_path_points": int(path.shape[0]), "trimesh_vertices": len(mesh.vertices),
               "trimesh_cpu_s": t_tm, "trimesh_true_deviation": d_tm,
               "vertex_ratio": len(mesh.vertices) / V.shape[0], "time_ratio": t_ours / t_tm if t_tm > 0 else math.inf}
        rows.append(row)
        print("BENCH-ROW " + json.dumps(row))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
