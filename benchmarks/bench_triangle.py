"""Queries per second of the vectorised triangle scan against a per-facet Python loop.

Both run in the same process on the same surface and segments: the vectorised scan is
``first_hit`` with its default block (4096 facets per numpy pass); the per-facet loop is the
same query with ``block=1`` (one Python iteration per facet, polling cancellation per facet as
the spec words it). The answers must agree; the report is their throughput ratio.

    python benchmarks/bench_triangle.py [--triangles N] [--queries Q] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference.triangle_surface import SurfaceSettings, SurfaceStamp, TriangleSurface  # noqa: E402


def scene(n: int, q: int, seed: int):
    """``n`` small random facets in a 100-unit box and ``q`` random segments across it."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 100, (n, 3))
    verts = np.concatenate([base, base + rng.normal(0, 2, (n, 3)), base + rng.normal(0, 2, (n, 3))])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    made = TriangleSurface.new(verts, tris, SurfaceStamp(0, 0), SurfaceSettings())
    if not made.ok:
        raise SystemExit(f"scene rejected: {made.diagnostic}")
    segs = [(rng.uniform(0, 100, 3), rng.uniform(0, 100, 3)) for _ in range(q)]
    return made.value, segs


def rate(surface, segs, block: int) -> tuple[float, list]:
    t0 = time.perf_counter()
    out = [surface.first_hit(s, e, block=block) for s, e in segs]
    return len(segs) / (time.perf_counter() - t0), out


def key(o):
    return (o.status, None if o.value is None else (o.value.t, o.value.triangle))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--triangles", type=int, default=2000)
    p.add_argument("--queries", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    surface, segs = scene(args.triangles, args.queries, args.seed)
    vec, a = rate(surface, segs, 4096)
    loop, b = rate(surface, segs, 1)
    if [key(x) for x in a] != [key(x) for x in b]:
        print("error: the vectorised scan and the per-facet loop disagree", file=sys.stderr)
        return 1
    hits = sum(1 for x in a if x.ok and x.value is not None)
    print(f"{args.triangles} facets, {args.queries} queries ({hits} hits)")
    print(f"vectorised scan : {vec:10.1f} queries/s")
    print(f"per-facet loop  : {loop:10.1f} queries/s")
    print(f"ratio           : {vec / loop:10.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
