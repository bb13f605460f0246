"""``python -m oracles surface-queries``: spec 004's example, nine query records.

Three immutable snapshots of the book cube (``oracles.families.triangle.cube_mesh``: the unit cube,
outward counter-clockwise winding) shifted along x by 0, 1/4 and 1/2, each a new
``TriangleSurface`` with the same identity and versions 1, 2, 3. Each snapshot answers three
queries: the reference crossing ``(-5/8, 1/4, 5/8) -> (11/8, 1/4, 5/8)`` (t = 5/16 on the
unshifted cube), a downward trace along -y (t = 1/4), and a short trace ending at x = 1/8 that
reaches the unshifted cube at t = 7/8 but stops short of the shifted ones (a miss whose clipped
end is its own end). Every record is one JSON line: the surface stamp,
status, parameter, facet, first-hit position, clipped end, geometric normal and facing. Floats
print as Python's shortest round-trip decimal, so the records are exact. These are static
queries, not a moving-wall simulation.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from reference.triangle_surface import SurfaceSettings, SurfaceStamp, TriangleSurface

from .families.triangle.corpus import cube_mesh

__all__ = ["QUERIES", "SHIFTS", "main", "records"]

SHIFTS = (0.0, 0.25, 0.5)
QUERIES = (
    ("crossing +x", (-0.625, 0.25, 0.625), (1.375, 0.25, 0.625)),
    ("downward -y", (0.875, 2.0, 0.375), (0.875, -2.0, 0.375)),
    ("short trace", (-0.875, 0.5, 0.5), (0.125, 0.5, 0.5)),
)
IDENTITY = 4


def _vec(a) -> list:
    return [float(x) for x in a]


def records() -> list[dict]:
    """The nine records, in snapshot-major order."""
    out = []
    for version, dx in enumerate(SHIFTS, start=1):
        verts, tris = cube_mesh(offset=(dx, 0.0, 0.0))
        made = TriangleSurface.new(verts, tris, SurfaceStamp(IDENTITY, version), SurfaceSettings())
        if not made.ok:
            raise RuntimeError(f"snapshot {version} rejected: {made.diagnostic}")
        surface = made.value
        for name, s, e in QUERIES:
            clip = surface.clip_segment(np.array(s), np.array(e))
            rec = {"surface": {"identity": surface.stamp.identity, "version": surface.stamp.version},
                   "shift_x": dx, "query": name, "start": list(s), "end": list(e), "status": clip.status.value}
            if clip.ok:
                h = clip.value.hit
                rec.update(t=None if h is None else h.t, triangle=None if h is None else h.triangle,
                           first_hit=None if h is None else _vec(h.position), clipped_end=_vec(clip.value.end),
                           normal=None if h is None else _vec(h.normal),
                           facing=None if h is None else h.facing.value)
            out.append(rec)
    return out


def main() -> int:
    for rec in records():
        print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
