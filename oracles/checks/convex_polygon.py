"""Convex polygon partition row: ``convex_polygon.partition`` (Exact).

One claim per mesh: the inputs are the float32 positions and the flat index list, the value is
the status and, on success, the whole partition (corners as hex floats, normals, triangle
ranges, triangle list, the two counts).

Corpus (deterministic in the seed; the first cases are named): the hand-derived fixtures (a
tessellated 4x4 grid, hexagon and octagon fans, an L shape, a T-junction edge with three
triangles), a ring around a hole, a seam with split vertices, degenerate triangles (coincident
and collinear corners), a cube, inconsistent winding, a double-sided pair, grids and fans far
from the origin (up to 1e7, including a rounded fan centre off its chord), near-coplanar and
near-collinear perturbations on both sides of the tolerance, a rounded tilted grid, rotated
float32 grids (8x8, a 16x16 with shuffled indices, 6x6 and 12x12 at 1e6) and lattice fans (near
the origin and at 1e6), an empty mesh and the invalid inputs (a nonfinite position, an
out-of-range index, an index count that is not a multiple of three). The rest are random grids (random
diagonals, dropped triangles, folds, rotations, scales and offsets) and random fans.

Checker (``interval.convex_polygon.check_partition``, exact rationals on the source positions):
a success claim must satisfy every postcondition there (membership, degeneracy band, edge
census, tiling, bitwise corners in loop order, strict convexity counterclockwise about the
exact normal, coplanarity within ``2 delta``, at most seven corners, the Rounded normal, and
maximality with a margin: no two adjacent polygons whose union is clearly one valid polygon); a
failure claim must name a status the inputs' defects call for (InvalidArgument for an index
count not a multiple of three or a nonfinite position, OutOfRange for an index outside the
positions), and valid inputs must not fail. Measured: the worst ``distance / delta`` over
dropped loop vertices and plane distances (at most 2). Not checked: that a rotated grid
collapses (the spec allows a maximal partition that is not minimal, pinwheels included;
``docs/decisions.md``, "Convex polygons: what the ledger row checks").
"""

from __future__ import annotations

import math

import numpy as np

from interval.convex_polygon import BAND, check_partition
from reference.convex_polygon import ConvexPolygonPartition, try_partition_convex_polygons
from reference.status import GuaranteeClass as G

from .. import schema as S
from ..family import Family, RowContract
from ..model import Claim, dec, enc, verified, violated

__all__ = ["FAMILY", "CONTRACTS", "generate", "claims", "check_partition_claim", "plant_partition",
           "mesh_grid", "mesh_fan", "mesh_lattice_fan", "mesh_shuffled", "case_of", "CAVEAT_FAN"]

ROW = "convex_polygon.partition"


# --- Corpus ----------------------------------------------------------------------------------


def case_of(name, positions, indices) -> dict:
    """A case: float32 positions (n, 3) and an int64 flat index list."""
    return {"name": name, "positions": np.asarray(positions, dtype=np.float32).reshape(-1, 3),
            "indices": np.asarray(indices, dtype=np.int64).reshape(-1)}


def _place(pts, rotation=None, offset=(0.0, 0.0, 0.0), scale=1.0):
    """float64 points rotated, scaled and offset, then rounded to float32."""
    p = np.asarray(pts, dtype=np.float64) * scale
    if rotation is not None:
        p = p @ rotation.T
    return (p + np.asarray(offset, dtype=np.float64)).astype(np.float32)


def mesh_grid(nx, ny, *, diagonals="same", rng=None):
    """An ``nx`` x ``ny`` grid of unit squares in z = 0, two triangles each (counterclockwise
    about +z): positions (float64) and indices. ``diagonals``: ``same``, ``alternate`` or
    ``random`` (needs ``rng``)."""
    pts = [(x, y, 0.0) for y in range(ny + 1) for x in range(nx + 1)]
    idx = []
    for y in range(ny):
        for x in range(nx):
            a = y * (nx + 1) + x
            b, c, d = a + 1, a + nx + 1, a + nx + 2
            flip = {"same": False, "alternate": (x + y) % 2 == 1,
                    "random": bool(rng.integers(0, 2)) if rng is not None else False}[diagonals]
            idx += [a, b, d, a, d, c] if flip else [a, b, c, b, d, c]
    return np.array(pts, dtype=np.float64), idx


def mesh_fan(k, radius=1.0, centre=(0.0, 0.0)):
    """A fan of ``k`` triangles around a centre vertex (index 0) in z = 0, counterclockwise."""
    pts = [(centre[0], centre[1], 0.0)]
    for i in range(k):
        a = 2.0 * math.pi * i / k
        pts.append((centre[0] + radius * math.cos(a), centre[1] + radius * math.sin(a), 0.0))
    idx = []
    for i in range(k):
        idx += [0, 1 + i, 1 + (i + 1) % k]
    return np.array(pts, dtype=np.float64), idx


def mesh_lattice_fan(k, radius=16.0, step=1.0 / 16.0):
    """``mesh_fan`` with its rim rounded to a ``step`` lattice: moved by a lattice offset (up to
    2^20 with the default step), its float32 positions are exact, so it is the exact version
    of the same fan rotated and rounded."""
    pos, idx = mesh_fan(k, radius)
    pos[1:, :2] = np.round(pos[1:, :2] / step) * step
    return pos, idx


def mesh_shuffled(pos, idx, rng):
    """The same mesh with its vertices renumbered, its triangles reordered and each triangle's
    corners rotated (winding kept), as a vertex cache optimiser writes it."""
    nv, nt = len(pos), len(idx) // 3
    new_of = rng.permutation(nv)
    out = np.empty_like(pos)
    out[new_of] = pos
    tris = [[int(new_of[idx[3 * t + k]]) for k in range(3)] for t in rng.permutation(nt).tolist()]
    tris = [tr[r:] + tr[:r] for tr, r in zip(tris, rng.integers(0, 3, nt).tolist())]
    return out, [v for tr in tris for v in tr]


def _rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


# The spec's far-from-origin caveat, built by hand on the float32 lattice of [2^23, 2^24) (unit
# spacing): a hexagon fan whose centre rounding left it 1.5, 1.01 and 1.04 units off the three
# chords through it, each more than delta = 2^-24 M (about 0.5 here), so the centre never drops.
_X = 8388608.0 + 1024.0
CAVEAT_FAN = [(_X, _X, 0.0)] + [(_X + dx, _X + dy, 0.0) for dx, dy in
                                ((40, 2), (20, 36), (-20, 35), (-40, 1), (-20, -32), (20, -31))]


def _named_cases():
    out = []
    p, i = mesh_grid(4, 4)
    out.append(case_of("4x4 grid", p, i))
    p, i = mesh_fan(6)
    out.append(case_of("hexagon fan", p, i))
    p, i = mesh_fan(8)
    out.append(case_of("octagon fan", p, i))
    p, i = mesh_grid(2, 2)
    out.append(case_of("L shape", p, i[:18]))
    out.append(case_of("T-junction", [(0, 0, 0), (1, 0, 0), (0.5, 1, 0), (0.5, -1, 0), (0.5, 0, 1)],
                       [0, 1, 2, 1, 0, 3, 0, 1, 4]))
    p, i = mesh_grid(3, 3)
    out.append(case_of("ring around a hole", p, i[:24] + i[30:]))
    # Seam: the column x = 2 is split into two copies; the right half uses the copies.
    p, i = mesh_grid(4, 2)
    seam = [k for k in range(len(p)) if p[k][0] == 2.0]
    copy = {k: len(p) + n for n, k in enumerate(seam)}
    right = [t for t in range(len(i) // 3) if max(p[i[3 * t + j]][0] for j in range(3)) > 2.0]
    i2 = list(i)
    for t in right:
        for j in range(3):
            i2[3 * t + j] = copy.get(i2[3 * t + j], i2[3 * t + j])
    out.append(case_of("seam with split vertices", np.concatenate([p, p[seam]]), i2))
    p, i = mesh_grid(2, 1)
    extra = [(0.5, 0.0, 0.0), (2.0, 0.5, 0.0)]
    p = np.concatenate([p, extra])
    n = len(p)
    out.append(case_of("degenerate triangles", p, i + [0, 0, 1, 0, n - 2, 1, 2, n - 1, 5, 3, 3, 3]))
    # Signed zeros: split seam copies whose z is -0.0 still match (by value), and a grid whose
    # every z is -0.0 must keep those bits in its corners.
    p, i = mesh_grid(2, 1)
    seam = [k for k in range(len(p)) if p[k][0] == 1.0]
    copy = {k: len(p) + n for n, k in enumerate(seam)}
    right = [t for t in range(len(i) // 3) if max(p[i[3 * t + j]][0] for j in range(3)) > 1.0]
    i2 = list(i)
    for t in right:
        for j in range(3):
            i2[3 * t + j] = copy.get(i2[3 * t + j], i2[3 * t + j])
    split = np.concatenate([p, p[seam]]).astype(np.float32)
    split[len(p):, 2] = np.float32(-0.0)
    out.append(case_of("seam split with signed zeros", split, i2))
    p, i = mesh_grid(2, 2)
    neg = p.astype(np.float32)
    neg[:, 2] = np.float32(-0.0)
    out.append(case_of("grid in the plane z = -0", neg, i))
    # Slivers: heights 2^-20 and 2^-18 on a chord of 2 (delta = 2^-15): within delta / 2, so
    # degenerate; beside a lone regular triangle.
    out.append(case_of("slivers within the tolerance",
                       [(5, 0, 0), (7, 0, 0), (6, 2.0**-20, 0), (6, -(2.0**-18), 0), (5, 3, 0)],
                       [0, 1, 2, 1, 0, 3, 0, 2, 4]))
    # Convex heptagon and octagon triangulated from a corner (no interior vertex): the heptagon
    # is one polygon of seven corners, the octagon must split.
    for k, what in ((7, "heptagon"), (8, "octagon")):
        rim = [(math.cos(2 * math.pi * j / k), math.sin(2 * math.pi * j / k), 0.0) for j in range(k)]
        out.append(case_of(f"convex {what} triangulated from a corner", _place(np.array(rim) * 16.0),
                           [x for j in range(1, k - 1) for x in (0, j, j + 1)]))
    cube = [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    ci = []
    for a, b, c, d in faces:
        ci += [a, b, c, a, c, d]
    out.append(case_of("cube", cube, ci))
    out.append(case_of("inconsistent winding", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)],
                       [0, 1, 2, 1, 3, 2, 0, 1, 3]))
    out.append(case_of("double-sided pair", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [0, 1, 2, 0, 2, 1]))
    p, i = mesh_grid(4, 4)
    out.append(case_of("far 4x4 grid at 1e7", p + (1e7, -1e7, 1e7), i))
    p, i = mesh_fan(6, radius=1.0)
    p[1:] = np.round(p[1:] * 64.0)  # a lattice hexagon; its centre is exactly on the chords
    out.append(case_of("far lattice hexagon fan at 8e6", p + (8e6, 8e6, 0.0), i))
    out.append(case_of("far hexagon fan, centre off every chord (spec caveat)", CAVEAT_FAN, mesh_fan(6)[1]))
    p, i = mesh_fan(6, radius=100.0)
    out.append(case_of("far rounded hexagon fan at 1e7, radius 100", _place(p, offset=(1e7, 1e7, 0.0)), i))
    rng = np.random.default_rng(5)
    rot = _rotation(rng)
    p, i = mesh_grid(3, 3)
    out.append(case_of("rounded tilted 3x3 grid", _place(p, rot, (0.25, -3.0, 7.0)), i))
    p, i = mesh_fan(7)
    out.append(case_of("rounded tilted heptagon fan", _place(p, rot, (1.0, 2.0, 3.0)), i))
    # Rotated float32 light meshes (issue 23): the float32 rounding of a rotated plane must not
    # reorder the merges (near the origin these collapse to one polygon, as their exact versions
    # do); at 1e6 the rounding reaches delta and the checker holds the band on what comes out.
    rng = np.random.default_rng(23)
    p, i = mesh_grid(8, 8)
    out.append(case_of("rotated float32 8x8 grid", _place(p, _rotation(rng)), i))
    p, i = mesh_shuffled(*mesh_grid(16, 16, diagonals="random", rng=rng), rng)
    out.append(case_of("rotated float32 16x16 grid, shuffled indices", _place(p, _rotation(rng), (3.0, -5.0, 2.0)), i))
    for n in (6, 12):
        p, i = mesh_grid(n, n)
        out.append(case_of(f"rotated float32 {n}x{n} grid at 1e6", _place(p, _rotation(rng), (1e6, -1e6, 1e6)), i))
    for k in (4, 6, 7):
        p, i = mesh_lattice_fan(k)
        out.append(case_of(f"rotated float32 lattice fan of {k} at 1e6",
                           _place(p, _rotation(rng), (1e6, -1e6, 1e6)), i))
    p, i = mesh_lattice_fan(6)
    out.append(case_of("rotated float32 lattice hexagon fan", _place(p, _rotation(rng)), i))
    # Near coplanar: the grid's centre lifted by a quarter and by four times delta.
    delta = 2.0**-16 * 2.0
    for f, what in ((0.25, "within"), (4.0, "beyond")):
        p, i = mesh_grid(2, 2)
        p[4, 2] = f * delta
        out.append(case_of(f"near-coplanar lift {what} tolerance", p, i))
    # Near collinear: a 3x1 strip whose interior boundary vertices bulge in or out.
    delta = 2.0**-16 * 3.0
    for f, what in ((0.25, "within"), (4.0, "beyond"), (-0.25, "inward within"), (-4.0, "inward beyond")):
        p, i = mesh_grid(3, 1)
        p[1, 1] -= f * delta
        p[2, 1] -= f * delta
        out.append(case_of(f"near-collinear bulge {what} tolerance", p, i))
    p, i = mesh_grid(3, 3, diagonals="alternate")
    out.append(case_of("3x3 grid, alternating diagonals", p, i))
    out.append(case_of("empty mesh", np.zeros((2, 3)), []))
    out.append(case_of("only degenerate triangles", [(0, 0, 0), (1, 0, 0), (2, 0, 0)], [0, 1, 2, 0, 0, 1]))
    p, i = mesh_grid(1, 1)
    bad = p.copy()
    bad[3, 0] = np.nan
    out.append(case_of("nonfinite position", bad, i))
    out.append(case_of("out-of-range index", p, i[:5] + [len(p)]))
    out.append(case_of("index count not a multiple of three", p, i[:5]))
    bad = p.copy()
    bad[0, 1] = np.inf
    out.append(case_of("infinite unreferenced position", np.concatenate([p, bad[:1]]), i))
    return out


def _random_grid(rng, k):
    nx, ny = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    p, i = mesh_grid(nx, ny, diagonals="random", rng=rng)
    tris = [i[3 * t: 3 * t + 3] for t in range(len(i) // 3)]
    if rng.random() < 0.5:
        tris = [t for t in tris if rng.random() > 0.2] or tris[:1]
    if rng.random() < 0.3:  # fold along a column: two planes meeting at an edge
        xf = float(rng.integers(0, nx + 1))
        p[:, 2] = np.where(p[:, 0] > xf, (p[:, 0] - xf) * rng.uniform(0.05, 1.0), 0.0)
    if rng.random() < 0.3:  # interior jitter in the plane keeps a valid triangulation
        inner = (p[:, 0] > 0) & (p[:, 0] < nx) & (p[:, 1] > 0) & (p[:, 1] < ny)
        p[inner, :2] += rng.uniform(-0.2, 0.2, (int(inner.sum()), 2))
    rot = _rotation(rng) if rng.random() < 0.6 else None
    scale = float(10.0 ** rng.uniform(-3, 3))
    off = rng.normal(size=3) * float(10.0 ** rng.uniform(0, 7)) if rng.random() < 0.5 else (0, 0, 0)
    if rng.random() < 0.3:
        off = np.clip(off, -1e7, 1e7)
    return case_of(f"random grid {k}", _place(p, rot, off, scale), [v for t in tris for v in t])


def _random_fan(rng, k):
    n = int(rng.integers(3, 10))
    p, i = mesh_fan(n, radius=1.0)
    p[0, :2] += rng.uniform(-0.3, 0.3, 2)
    if rng.random() < 0.3:
        p[0, 2] = rng.normal() * 1e-5
    rot = _rotation(rng) if rng.random() < 0.6 else None
    scale = float(10.0 ** rng.uniform(-2, 3))
    off = np.clip(rng.normal(size=3) * float(10.0 ** rng.uniform(0, 7)), -1e7, 1e7)
    return case_of(f"random fan {k}", _place(p, rot, off if rng.random() < 0.5 else (0, 0, 0), scale), i)


def generate(seed: int, n: int) -> list:
    """``n`` meshes, named corner cases first. Deterministic in ``seed``."""
    named = _named_cases()
    cases = named[:n]
    for k in range(len(cases), n):
        rng = np.random.default_rng([seed, k, 14])
        cases.append(_random_grid(rng, k) if rng.random() < 0.7 else _random_fan(rng, k))
    return cases


# --- Claims from the fast path ---------------------------------------------------------------


def partition_value(outcome, partition: ConvexPolygonPartition) -> dict:
    """The claim value of one call: the status and, on success, the whole partition."""
    if not outcome.ok:
        return {"status": outcome.status.value}
    polys = [{"positions": enc(np.asarray(p.vertices, dtype=np.float64)),
              "normal": enc(np.asarray(p.normal_mesh, dtype=np.float64)),
              "first_triangle": p.first_triangle, "triangle_count": p.triangle_count}
             for p in partition.polygons]
    return {"status": "Success", "polygons": polys, "triangles": [int(t) for t in partition.triangles],
            "degenerate_triangle_count": partition.degenerate_triangle_count,
            "unmergeable_edge_count": partition.unmergeable_edge_count}


def claims(case) -> list:
    """Run the fast path on one mesh; one claim."""
    part = ConvexPolygonPartition()
    out = try_partition_convex_polygons(case["positions"], case["indices"], part)
    inputs = {"positions": enc(case["positions"].astype(np.float64)),
              "indices": [int(v) for v in case["indices"]]}
    return [Claim(ROW, G.Exact, partition_value(out, part), inputs)]


# --- Checker ---------------------------------------------------------------------------------


def _inputs(claim: Claim):
    pos = claim.inputs["positions"]
    idx = claim.inputs["indices"]
    if not isinstance(pos, list) or not isinstance(idx, list):
        raise ValueError("positions and indices must be lists")
    positions = []
    for p in pos:
        if not isinstance(p, list) or len(p) != 3:
            raise ValueError("a position is [x, y, z]")
        v = [dec(x) for x in p]
        if any(math.isfinite(x) and float(np.float32(x)) != x for x in v):
            raise ValueError("positions must be float32 values")
        positions.append(v)
    if any(not isinstance(i, int) or isinstance(i, bool) for i in idx):
        raise ValueError("indices must be integers")
    return positions, idx


def _defects(positions, idx) -> set:
    """The statuses the inputs' defects call for (empty for a valid mesh)."""
    out = set()
    if len(idx) % 3:
        out.add("InvalidArgument")
    if any(not 0 <= i < len(positions) for i in idx):
        out.add("OutOfRange")
    if any(not math.isfinite(x) for p in positions for x in p):
        out.add("InvalidArgument")
    return out


def check_partition_claim(claim: Claim):
    """Exact: every postcondition of ``interval.convex_polygon.check_partition`` holds on the
    source positions, or the claimed failure is one the inputs call for."""
    positions, idx = _inputs(claim)
    v = claim.value
    status = v.get("status")
    defects = _defects(positions, idx)
    if defects:
        if status in defects:
            return verified(claim, measure="tolerance_ratio", measured=0, note=f"fails with {status}")
        return violated(claim, {"expected_status": sorted(defects), "claimed": status},
                        note="invalid inputs must fail with a status their defect calls for")
    if status != "Success":
        return violated(claim, {"expected_status": "Success", "claimed": status}, note="valid inputs failed")
    polygons = [{"positions": [[dec(x) for x in c] for c in p["positions"]],
                 "normal": [dec(x) for x in p["normal"]],
                 "first_triangle": p["first_triangle"], "triangle_count": p["triangle_count"]}
                for p in v["polygons"]]
    report = check_partition(positions, idx, polygons, v["triangles"], v["degenerate_triangle_count"],
                             v["unmergeable_edge_count"])
    # The tolerance band allows distances up to BAND x delta: bound_use is the share used.
    use = report.worst_ratio / float(BAND)
    if not report.ok:
        return violated(claim, {"failures": report.failures[:5]}, measure="tolerance_ratio",
                        measured=report.worst_ratio, note=report.failures[0]["property"], bound_use=use)
    return verified(claim, measure="tolerance_ratio", measured=report.worst_ratio, bound_use=use,
                    note=f"{report.polygons} polygons, {report.exact_planar_polygons} exactly planar")


# --- Contract --------------------------------------------------------------------------------


def _ulp_up32(x: float) -> float:
    return float(np.nextafter(np.float32(x), np.float32(np.inf)))


def plant_partition(claim: Claim) -> Claim:
    """A false claim: the first corner's x moved one float32 ulp (no longer a source position);
    with no polygon, the degenerate count off by one; for a failure, a success with nothing."""
    v = dict(claim.value)
    if v.get("status") != "Success":
        v = {"status": "Success", "polygons": [], "triangles": [], "degenerate_triangle_count": 0,
             "unmergeable_edge_count": 0}
        # an empty partition of invalid inputs is still false; of an empty mesh it is the truth
        if not _defects(*_inputs(claim)):  # pragma: no cover - failure claims have defects
            v["degenerate_triangle_count"] = 1
    elif v["polygons"]:
        polys = [dict(p) for p in v["polygons"]]
        first = [list(c) for c in polys[0]["positions"]]
        first[0][0] = enc(_ulp_up32(dec(first[0][0])))
        polys[0]["positions"] = first
        v["polygons"] = polys
    else:
        v["degenerate_triangle_count"] = v["degenerate_triangle_count"] + 1
    return Claim(claim.row, claim.guarantee, v, claim.inputs, claim.model)


_POLYGON = S.obj(required={
    "positions": S.array(S.vec(S.f32(), 3), min_items=1),
    "normal": S.vec(S.f32(), 3),
    "first_triangle": S.integer(minimum=0),
    "triangle_count": S.integer(minimum=0),
})

CONTRACTS = {
    ROW: RowContract(
        checks=("Exact convex partition, in rational arithmetic on the float32 source positions: every "
                "triangle with height h > 2 delta is in exactly one polygon and every one with h <= delta/2 "
                "or equal corners is counted degenerate, delta = max(2^-16 L, 2^-24 M) (L the largest "
                "bounding-box side, M the largest coordinate magnitude); the unmergeable-edge count equals the "
                "edges with more than two kept triangles or inconsistent winding and none is crossed; each "
                "polygon's triangles face its exact Newell normal A and their uncancelled edges form one simple "
                "loop whose area vector they sum to; its 3 to 7 corners are bitwise source positions in loop "
                "order, dropped loop vertices lie inside their chord within 2 delta, A . ((c_i+1 - c_i) x "
                "(w - c_i)) > 0 for every edge and other corner and every corner lies more than delta/2 off its "
                "neighbours' chord, every vertex lies within 2 delta of the plane "
                "(exactly on it for exactly planar meshes), and the normal is unit within 2^-20 and within "
                "2^-18 rad of A; no two adjacent polygons clearly form one valid polygon (drops within delta/2, "
                "turns above 2 delta, plane within delta/2, facing cosine 3/5); invalid inputs fail with "
                "InvalidArgument or OutOfRange as their defect calls for."),
        inputs=S.obj(required={"positions": S.array(S.vec(S.f32(finite=False), 3)),
                               "indices": S.array(S.integer())}),
        value=S.any_of(
            S.obj(required={"status": S.const("Success"), "polygons": S.array(_POLYGON),
                            "triangles": S.array(S.integer(minimum=0)),
                            "degenerate_triangle_count": S.integer(minimum=0),
                            "unmergeable_edge_count": S.integer(minimum=0)}),
            S.obj(required={"status": S.enum(["InvalidArgument", "OutOfRange"])}),
        ),
        plant=plant_partition,
    ),
}

FAMILY = Family(
    name="convex_polygon",
    default_cases=120,
    generate=generate,
    claims=claims,
    checkers={ROW: check_partition_claim},
    contracts=CONTRACTS,
    oracle_precisions=(),
)
