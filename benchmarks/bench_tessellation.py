"""Tessellation benchmark: the project's certified mesh against geomdl's and OpenCASCADE's
tessellators, for the same patches and the same requested position error, in one run.

    python benchmarks/bench_tessellation.py [--errors 0.03 0.01] [--repeat 3] [--json FILE]

For each network (a smooth random bicubic bump, the bilinear twisted patch, the four-patch
tube) and each requested position error ``e`` (relative to the network's extent):

* ``try_build_surface_mesh`` (Strict, ``position_error = e``): triangles, build CPU seconds, the
  Certified ``position_bound``, and its *true* maximum parametric distance measured by the
  oracle (``interval.tessellation``, exact branch and bound, within 5 percent);
* geomdl (``BSpline.Surface.tessellate``, uniform sample grid): given the same triangle budget
  (the smallest square grid with at least as many triangles as ours), its triangles, CPU
  seconds and true maximum distance;
* OpenCASCADE (``BRepMesh_IncrementalMesh`` through cadquery-ocp, where it installs): linear
  deflection ``e`` (its own tolerance) and angular deflection 0.5; triangles, CPU seconds, true
  maximum distance, and whether it met ``e``.

The oracle measures every mesh the same way: for each triangle with parameter corners
``uv_k`` and emitted vertices ``V_k``, the largest ``|S(u, v) - T(u, v)|`` with ``T`` the linear
interpolant of the ``V_k`` over the parameter triangle. That parametric distance bounds the
distance from every surface point to the mesh from above, so a peer whose parametric distance
is within its tolerance meets it for certain; one above it may still meet a purely geometric
tolerance. Timings are process CPU seconds, best of ``--repeat`` (the machine may be shared);
ratios are against the project's build measured in the same run.
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

from interval.tessellation import enclose_max_distance, triangle_difference
from oracles.families import surface as SF
from oracles.families import tessellation as T


def _cpu(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def _bump(rng):
    G = SF._curved_grid(rng, 1, 1, np.zeros(3), 1.0)
    return SF._case("smooth bump", SF._grid_patches(G), rng=rng)


NETWORKS = [("smooth bump", _bump), ("bilinear twisted patch", T.twisted_case), ("four-patch tube", SF._tube_four)]


def true_max(controls_of, triangles, budget=400):
    """Largest exact parametric distance over ``triangles`` = [(patch, uv0, uv1, uv2, V0, V1,
    V2)], as a float interval [lo, hi] (hi within 5 percent unless a triangle ran out of boxes)."""
    best_lo, best_hi = 0, 0
    for patch, a, b, c, A, B, C in triangles:
        Bz = triangle_difference(controls_of(patch), a, b, c, A, B, C)
        lo, hi = enclose_max_distance(Bz, max_boxes=budget, floor_sq=best_lo)
        best_lo = max(best_lo, lo)
        best_hi = max(best_hi, hi)
    return [math.sqrt(float(best_lo)), math.sqrt(float(best_hi))]


def ours(view, e, repeat):
    from reference.tessellation import (PrecisionProfile, SurfaceDegeneracyPolicy, SurfaceMesh, SurfaceMeshLimits,
                                        SurfaceMeshProfile, try_build_surface_mesh)

    prof = SurfaceMeshProfile(PrecisionProfile.Strict, e, 0.0, False, SurfaceDegeneracyPolicy.Report,
                              SurfaceMeshLimits(12, 1 << 24, 1 << 24, 1 << 24, 1 << 32))
    cpu, out = _cpu(lambda: try_build_surface_mesh(view, prof, SurfaceMesh()), repeat)
    mv = out.value
    tris = []
    P = mv.vertex_positions.astype(np.float64)
    uv = mv.vertex_parameters.astype(np.float64)
    for t in mv.indices:
        p = int(mv.vertex_patch[t[0]])
        tris.append((p, uv[t[0]], uv[t[1]], uv[t[2]], P[t[0]], P[t[1]], P[t[2]]))
    return {"triangles": int(mv.indices.shape[0]), "cpu_s": cpu, "certified_bound": mv.report.position_bound,
            "true_max": true_max(lambda p: view.controls[p], tris)}


def geomdl_mesh(view, triangles_wanted, repeat):
    try:
        from geomdl import BSpline
    except ImportError:
        return None
    n = view.patch_count
    per_patch = max(1, math.ceil(triangles_wanted / n))
    k = max(1, math.ceil(math.sqrt(per_patch / 2)))  # k x k cells, 2 k^2 triangles a patch

    def run():
        out = []
        for p in range(n):
            s = BSpline.Surface()
            s.degree_u = s.degree_v = 3
            s.ctrlpts2d = view.controls[p].astype(np.float64).tolist()
            s.knotvector_u = s.knotvector_v = [0, 0, 0, 0, 1, 1, 1, 1]
            s.sample_size = k + 1
            s.tessellate()
            out.append(s)
        return out

    cpu, surfs = _cpu(run, repeat)
    tris = []
    for p, s in enumerate(surfs):
        for f in s.faces:
            vs = f.vertices
            tris.append((p, vs[0].uv, vs[1].uv, vs[2].uv, vs[0].data, vs[1].data, vs[2].data))
    return {"triangles": len(tris), "cpu_s": cpu, "true_max": true_max(lambda p: view.controls[p], tris)}


def occ_mesh(view, e, repeat):
    try:
        from OCP.BRep import BRep_Tool
        from OCP.BRepBuilderAPI import BRepBuilderAPI_MakeFace
        from OCP.BRepMesh import BRepMesh_IncrementalMesh
        from OCP.Geom import Geom_BezierSurface
        from OCP.gp import gp_Pnt
        from OCP.OCP.collections import Array2_gp_Pnt
        from OCP.TopLoc import TopLoc_Location
    except ImportError:
        return None

    def faces():
        out = []
        for p in range(view.patch_count):
            arr = Array2_gp_Pnt(1, 4, 1, 4)
            C = view.controls[p].astype(np.float64)
            for i in range(4):
                for j in range(4):
                    arr.SetValue(i + 1, j + 1, gp_Pnt(*map(float, C[i, j])))
            out.append(BRepBuilderAPI_MakeFace(Geom_BezierSurface(arr), 1e-9).Face())
        return out

    def run():
        fs = faces()  # a fresh face each time: BRepMesh caches triangulations on the face
        for f in fs:
            BRepMesh_IncrementalMesh(f, e, False, 0.5, False)
        return fs

    cpu, fs = _cpu(run, repeat)
    tris = []
    for p, f in enumerate(fs):
        tr = BRep_Tool.Triangulation_s(f, TopLoc_Location())
        for t in range(1, tr.NbTriangles() + 1):
            ids = tr.Triangle(t).Get()
            uvs = [(tr.UVNode(i).X(), tr.UVNode(i).Y()) for i in ids]
            xyz = [(tr.Node(i).X(), tr.Node(i).Y(), tr.Node(i).Z()) for i in ids]
            tris.append((p, *uvs, *xyz))
    return {"triangles": len(tris), "cpu_s": cpu, "true_max": true_max(lambda p: view.controls[p], tris)}


def run(errors, repeat, seed=1):
    rows = []
    for name, maker in NETWORKS:
        case = T._with_mesh(maker(np.random.default_rng(seed)), rel=errors[0])
        source, prep = SF.case_source(case)
        from reference.surface import try_prepare_surface

        view = try_prepare_surface(source, prep).value.view()
        extent = T._extent(case)
        for rel in errors:
            e = max(view.position_floor, rel * extent)
            mine = ours(view, e, repeat)
            row = {"network": name, "position_error": e, "ours": mine,
                   "geomdl": geomdl_mesh(view, mine["triangles"], repeat), "occ": occ_mesh(view, e, repeat)}
            rows.append(row)
            _print(row)
    return rows


def _print(r):
    e, o = r["position_error"], r["ours"]
    print(f"\n{r['network']}, position error {e:.3g}")
    print(f"  {'mesher':8} {'triangles':>9} {'cpu s':>8} {'cpu ratio':>9} {'true max':>21} "
          f"{'true/e':>7} {'meets e':>7}")

    def line(label, d):
        if d is None:
            print(f"  {label:8} (not installed)")
            return
        lo, hi = d["true_max"]
        ratio = d["cpu_s"] / o["cpu_s"] if o["cpu_s"] > 0 else math.inf
        meets = "yes" if hi <= e else ("no" if lo > e else "?")
        print(f"  {label:8} {d['triangles']:9d} {d['cpu_s']:8.4f} {ratio:9.2f} [{lo:9.3g}, {hi:9.3g}] "
              f"{hi / e:7.3f} {meets:>7}")

    line("ours", o)
    print(f"  {'':8} certified bound {o['certified_bound']:.3g} "
          f"(true / certified {o['true_max'][1] / o['certified_bound']:.3f})")
    line("geomdl", r["geomdl"])
    line("occ", r["occ"])
    if r["geomdl"]:
        print(f"  geomdl at our triangle budget: true max / ours = {r['geomdl']['true_max'][1] / o['true_max'][1]:.2f}")
    if r["occ"]:
        print(f"  occ triangles / ours = {r['occ']['triangles'] / o['triangles']:.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--errors", type=float, nargs="+", default=[0.03, 0.01],
                    help="requested position errors relative to each network's extent")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = run(args.errors, args.repeat, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
