"""Surface rows: shared-edge matching and corner identity (Exact); surface positions, partials,
normals and edge continuity values (Rounded).

Corpus (deterministic in the seed): the named networks first — a single patch, the spec's
reversed two-patch join (ids 10 and 20), a closed one-patch tube (U0 joined to U1 of the same
patch), a four-patch tube, a cube of six patches, planar and curved grids of 2x2 to 8x8
patches (patch order, ids and each patch's parametrization shuffled), networks far from the
origin (up to 1e7, chunk origin nearby), degenerate patches (a collapsed side, a pole shared
by unjoined patches), near-threshold normals and near-C1 edges, and one faulty network per
InvalidTopology cause, normal thresholds exactly at the computed |Su| and sine, a near-C1 edge
(relative difference a quarter of the threshold, absolute far above it) beside an edge with zero
cross-boundary derivatives, and a large curved grid (derivatives near 1e4); then random grids.
Joins of the generated grids are found by the generator (equal float64 side curves, directly
or reversed, read through the oracle's side table), never by the code under test.

Checkers recompute every truth from ``claim.inputs`` alone:

* ``surface.shared_edges`` and ``surface.corners``: the narrowing is replayed in rationals
  (``interval.narrowing``) and the topology rebuilt by ``interval.surface.exact_topology``; the
  claimed records (or the claimed InvalidTopology rule and join) must equal the oracle's
  exactly (values compared as rationals: a signed zero equals zero). A TryMapEdgeParameter
  claim (one per network: up to four shared edges and a boundary edge at s = 0, 1, 1/4, 1/3,
  0.7, 2^-60) gives each incidence, owner first, exactly the (u, v) of s, or of fl64(1 - s) on a
  reversed incidence.
* ``surface.evaluation``: samples (position and all partials) against exact rational values,
  per component within ``reference.surface.evaluation_bounds``; unit normals against interval
  enclosures of ``N / |N|`` within ``normal_bound``; edge continuity values within
  ``edge_value_bound``. The bound is the claim's declared model when it declares one
  (``oracles.errormodel.resolve``), else the reference model at binary64. The Degenerate /
  IllConditioned decision and ``is_c1`` must agree with the decision on exact values unless the
  exact quantity lies within its error bound of the threshold (the band of docs/decisions.md,
  "Surfaces: decision bands"), where either answer is accepted and counted; and each decision
  must be its rule applied exactly to the values it was made on: ``is_c1`` to the claimed
  difference and scale (within one rounding of the product), a normal's status to its claimed
  decision values (``|Su|``, ``|Sv|``, ``|Su x Sv|`` within their error bounds of exact, the
  sine their quotient within 4 u). ``bound_use`` is the error over its bound.
"""

from __future__ import annotations

import json
import math
import zlib
from fractions import Fraction
from functools import lru_cache

import gmpy2
import numpy as np

from interval.context import lower, to_mpq, upper
from interval.narrowing import replay_narrowing
from interval.surface import (
    CORNER_NAMES,
    SIDE_NAMES,
    TopologyFailure,
    enclose_length,
    enclose_sqrt,
    enclose_unit,
    exact_cross,
    exact_partials,
    exact_topology,
    side_controls,
    side_point,
)
from reference.fp import narrow32, ulp32
from reference.status import GeometryStatus, GuaranteeClass as G, ToleranceProfile, WorkLimits
from reference.surface import (
    PatchSide,
    SurfaceAdjacencySource,
    SurfacePatchSource,
    SurfacePreparation,
    SurfaceSource,
    decision_errors,
    edge_value_bound,
    evaluation_bounds,
    normal_bound,
    try_evaluate_surface,
    try_evaluate_surface_normal,
    try_map_edge_parameter,
    try_prepare_surface,
)
from reference.surface import _normal_decision  # the lengths and sine the decision used

from .. import schema as S
from ..decide import DEFAULT_BUDGET, Decision, refine
from ..errormodel import ETA_OF_U, ratio, resolve
from ..family import Family, RowContract
from ..model import Claim, dec, dec_array, enc, undecided, verified, violated

__all__ = ["FAMILY", "LIMITS", "BUDGET", "generate", "claims", "check_shared_edges", "check_corners",
           "check_evaluation", "tolerance", "auto_joins", "case_source"]

BUDGET = DEFAULT_BUDGET
LIMITS = WorkLimits(max_spans=1 << 12, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                    max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)
_SURFACE_K = 32.0  # reference.surface.SURFACE_K: the constant a declared "k" replaces


def tolerance(position_error: float, *, derivative: float = 1e-3, dmin: float = 1e-9,
              smin: float = 1e-3) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
        continuity_position=position_error, continuity_angle=1e-3, continuity_derivative=derivative,
        continuity_second_derivative=1e-3, distance_error=1e-3, projection_gap=1e-3,
        tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
        normal_min_derivative_length=dmin, normal_min_sin_angle=smin)


# --- Corpus ----------------------------------------------------------------------------------

def _side_of(C, side):
    return side_controls(C, side)


def auto_joins(controls) -> list:
    """Joins of every pair of sides whose float64 curves are equal, directly or reversed (the
    generator's welding, by exact equality; a curve shared by three or more sides, such as a
    pole, is left unjoined). Returns ``[(p, side, q, side, is_reversed)]`` in a fixed order."""
    seen: dict = {}
    for p in range(controls.shape[0]):
        for s in SIDE_NAMES:
            c = np.ascontiguousarray(_side_of(controls[p], s))
            fwd, rev = c.tobytes(), np.ascontiguousarray(c[::-1]).tobytes()
            key = min(fwd, rev)
            seen.setdefault(key, []).append((p, s, fwd != key))
    joins = []
    for key, sides in seen.items():
        if len(sides) != 2:
            continue
        (p, s, fa), (q, t, fb) = sides
        if (p, s) == (q, t):
            continue
        joins.append((p, s, q, t, fa != fb))
    return sorted(joins)


def _transform(C, rng):
    """A random reparametrization of one patch: transpose, flip u, flip v."""
    if rng.random() < 0.5:
        C = C.transpose(1, 0, 2)
    if rng.random() < 0.5:
        C = C[::-1]
    if rng.random() < 0.5:
        C = C[:, ::-1]
    return np.ascontiguousarray(C)


def _grid_patches(G):
    m, k = (G.shape[0] - 1) // 3, (G.shape[1] - 1) // 3
    return [np.ascontiguousarray(G[3 * a:3 * a + 4, 3 * b:3 * b + 4]) for a in range(m) for b in range(k)]


def _ids(rng, n):
    pool = set()
    while len(pool) < n:
        kind = int(rng.integers(0, 3))  # small ids, large ids, ids at the top of the u64 range
        pool.add(int(rng.integers(0, 1000)) if kind == 0 else int(rng.integers(0, 2**63)) if kind == 1
                 else 2**64 - 1 - int(rng.integers(0, 4)))
    ids = list(pool)
    rng.shuffle(ids)
    return ids


def _case(name, patches, joins=None, ids=None, origin=None, rng=None, tol=None, shuffle=False,
          **extra):
    rng = rng if rng is not None else np.random.default_rng(0)
    src = np.stack(patches).astype(np.float64)
    n = src.shape[0]
    if shuffle:
        src = np.stack([_transform(c, rng) for c in src])
        order = rng.permutation(n)
        src = src[order]
    joins = auto_joins(src) if joins is None else joins
    ids = _ids(rng, n) if ids is None else ids
    origin = np.zeros(3) if origin is None else np.asarray(origin, dtype=np.float64)
    narrowed = narrow32(src - origin)
    floor = 4.0 * float(ulp32(np.max(np.abs(narrowed)))) if np.all(np.isfinite(narrowed)) else 1.0
    t = {"position_error": max(floor, 1e-6), "derivative": 1e-3, "dmin": 1e-9, "smin": 1e-3}
    t.update(tol or {})
    return {"name": name, "ids": [int(i) for i in ids], "source": src, "origin": origin, "joins": list(joins),
            "tol": t, **extra}


def _curved_grid(rng, m, k, center, size, planar=False):
    xs = np.arange(3 * m + 1) / 3.0
    ys = np.arange(3 * k + 1) / 3.0
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    if planar:  # an exact dyadic plane on an integer grid: every interior edge is exactly C1
        X, Y = np.meshgrid(np.arange(3 * m + 1.0), np.arange(3 * k + 1.0), indexing="ij")
        G = np.stack([X, Y, 0.25 * X - 0.5 * Y], axis=-1)
        return center + G * 2.0 ** round(math.log2(size))
    else:
        Z = np.sin(X * rng.uniform(0.5, 2)) * np.cos(Y * rng.uniform(0.5, 2)) + rng.normal(size=X.shape) * 0.05
        G = np.stack([X, Y, Z], axis=-1)
    return center + G * size


def _grid_case(rng, name, m=None, k=None, magnitude=None, planar=None, size=None):
    m = int(rng.integers(2, 9)) if m is None else m
    k = int(rng.integers(2, 9)) if k is None else k
    magnitude = float(10.0 ** rng.choice([0, 3, 5, 7])) if magnitude is None else magnitude
    center = np.round(rng.uniform(-1, 1, 3) * magnitude)
    size = float(10.0 ** rng.uniform(-2, 2)) if size is None else size
    planar = bool(rng.random() < 0.25) if planar is None else planar
    G = _curved_grid(rng, m, k, center, size, planar)
    origin = np.round(center + rng.normal(size=3) * size * 4)
    return _case(f"{name} {m}x{k}", _grid_patches(G), origin=origin, rng=rng, shuffle=True)


def _single(rng):
    center = rng.uniform(-1, 1, 3) * 1e3
    return _case("single patch", [center + rng.normal(size=(4, 4, 3))], rng=rng)


def _spec_two_patch(rng):
    """The spec's example: patch 0's u = 1 side is patch 1's u = 0 side, with v reversed."""
    G = _curved_grid(rng, 2, 1, np.zeros(3), 1.0)
    a, b = _grid_patches(G)
    b = np.ascontiguousarray(b[:, ::-1])
    return _case("spec two-patch reversed join", [a, b], joins=[(0, "U1", 1, "U0", True)], ids=[10, 20], rng=rng)


def _loop(rng, radius=1.0):
    """Controls of a closed cubic loop (P0 == P3) in the xy-plane."""
    return np.array([[radius, 0, 0], [-radius, 2 * radius, 0], [-radius, -2 * radius, 0], [radius, 0, 0]])


def _tube_one(rng):
    ring = _loop(rng)
    C = np.stack([np.stack([ring[i] + [0, 0, j * 0.5] for j in range(4)]) for i in range(4)])
    return _case("closed one-patch tube", [C], joins=[(0, "U0", 0, "U1", False)], ids=[7], rng=rng)


def _tube_four(rng):
    m = 4
    G = np.empty((3 * m + 1, 4, 3))
    for i in range(3 * m + 1):
        a = 2 * math.pi * (i % (3 * m)) / (3 * m)
        for j in range(4):
            G[i, j] = [math.cos(a) * 2, math.sin(a) * 2, j * 0.75]
    G[3 * m] = G[0]  # close exactly
    return _case("four-patch tube", _grid_patches(G), rng=rng, shuffle=True)


def _cube(rng):
    faces = []
    axes = [(np.array([0, 0, 0]), np.array([1, 0, 0]), np.array([0, 1, 0])),
            (np.array([0, 0, 3]), np.array([0, 1, 0]), np.array([1, 0, 0])),
            (np.array([0, 0, 0]), np.array([0, 1, 0]), np.array([0, 0, 1])),
            (np.array([3, 0, 0]), np.array([0, 0, 1]), np.array([0, 1, 0])),
            (np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([1, 0, 0])),
            (np.array([0, 3, 0]), np.array([1, 0, 0]), np.array([0, 0, 1]))]
    for o, a, b in axes:
        faces.append(np.array([[o + i * a + j * b for j in range(4)] for i in range(4)], dtype=np.float64))
    return _case("cube of six patches", faces, rng=rng, shuffle=True)


def _far(rng):
    return _grid_case(rng, "far from the origin (1e7)", m=2, k=3, magnitude=1e7, planar=False)


def _collapsed(rng):
    """A patch whose V0 side collapses to a point (Su = 0 there), next to a regular patch."""
    G = _curved_grid(rng, 2, 1, np.zeros(3), 1.0)
    a, b = _grid_patches(G)
    a = a.copy()
    a[:, 0] = a[0, 0]
    return _case("collapsed side", [a, b], rng=rng)


def _pole(rng):
    """Four patches with a collapsed side at one pole, joined in a ring but not at the pole:
    their pole corners coincide geometrically and stay separate corner records."""
    m = 4
    G = np.empty((3 * m + 1, 4, 3))
    for i in range(3 * m + 1):
        a = 2 * math.pi * (i % (3 * m)) / (3 * m)
        for j in range(4):
            r = j / 3.0
            G[i, j] = [math.cos(a) * r, math.sin(a) * r, 1.0 - r * r]
    G[3 * m] = G[0]
    G[:, 0] = [0.0, 0.0, 1.0]
    return _case("pole of four patches", _grid_patches(G), rng=rng)


def _near_threshold(rng):
    """Normal thresholds at the computed values of one sample, and a near-C1 edge."""
    G = _curved_grid(rng, 2, 1, np.zeros(3), 1.0, planar=True)
    G[4, :, 2] += 1e-7  # the interior control row next to the edge: difference ~1e-7
    case = _case("near-threshold normals and C1", _grid_patches(G), rng=rng)
    n32 = narrow32(case["source"] - case["origin"]).astype(np.float64)
    from reference import kernel as K
    from reference.context import F64

    su, sv, N = K.bicubic_normal_vector(F64, n32[0], np.float64(0.5), np.float64(0.5))
    lu, lv, lx = (float(np.linalg.norm(x)) for x in (su, sv, N))
    j = case["joins"][0]
    a, b = _side_of(n32[j[0]], j[1]), _side_of(n32[j[2]], j[3])
    da, db = 3 * (a - _inner_of(n32[j[0]], j[1])), 3 * (b - _inner_of(n32[j[2]], j[3]))
    db = db[::-1] if j[4] else db
    diff = float(np.max(np.linalg.norm(da + db, axis=1)))
    scale = max(float(np.max(np.linalg.norm(da, axis=1))), float(np.max(np.linalg.norm(db, axis=1))))
    case["tol"].update({"dmin": lu, "smin": min(lx / (lu * lv), 1.0), "derivative": diff / scale})
    return case


def _computed_normal_values(case, patch=0, u=0.5, v=0.5):
    """``(|Su|, |Sv|, |N| / (|Su| |Sv|))`` as float64 computes them at one sample of the narrowed
    case (the generator puts thresholds exactly on computed values)."""
    from reference import kernel as K
    from reference.context import F64

    n32 = narrow32(case["source"] - case["origin"]).astype(np.float64)
    su, sv, N = K.bicubic_normal_vector(F64, n32[patch], np.float64(u), np.float64(v))
    lu, lv, lx = (float(np.linalg.norm(x)) for x in (su, sv, N))
    return lu, lv, lx / (lu * lv)


def _threshold_normals(rng, which):
    """An exactly affine grid (constant partials, computed exactly at dyadic samples) whose
    normal threshold ``which`` ("length" or "sine") is exactly the computed |Su| or sine and the
    other far away: the rule is "at or below", so every dyadic sample is IllConditioned."""
    G = _curved_grid(rng, 2, 1, np.zeros(3), 1.0, planar=True)
    case = _case(f"normal threshold exactly at the computed {which}", _grid_patches(G), rng=rng)
    lu, lv, sin = _computed_normal_values(case)
    assert lu < lv and sin < 1.0  # only the threshold under test is reached
    if which == "length":
        case["tol"].update({"dmin": lu, "smin": 1e-3})
    else:
        case["tol"].update({"dmin": 1e-9, "smin": sin})
    return case


def _near_c1(rng):
    """A dyadic 3 x 1 grid, exactly planar and C1 but for two edges: the first edge's inner row
    lifted by 2^-6 on a grid of spacing 2^6 (relative difference 2^-12, a quarter of the C1
    threshold 2^-10, absolute difference far above it), the second edge with zero cross-boundary
    derivatives on both sides (difference and scale both exactly 0: C1 by the rule's <=)."""
    X, Y = np.meshgrid(np.arange(10.0), np.arange(4.0), indexing="ij")
    G = np.stack([X, Y, 0.25 * X - 0.5 * Y], axis=-1) * 64.0
    G[4, :, 2] += 2.0**-6
    G[5] = G[6]
    G[7] = G[6]
    return _case("near-C1 and zero-derivative edges", _grid_patches(G), rng=rng,
                 tol={"derivative": 2.0**-10})


def _faulty(rng, rule):
    G = _curved_grid(rng, 2, 2, np.zeros(3), 1.0)
    patches = _grid_patches(G)
    joins = auto_joins(np.stack(patches))
    ids = list(range(100, 104))
    j0 = joins[0]
    if rule == "mismatched_curve":
        p, s = j0[0], j0[1]
        C = patches[p].copy()
        idx = {"U0": (0, 1), "U1": (3, 1), "V0": (1, 0), "V1": (1, 3)}[s]
        C[idx] += 1e-3
        patches[p] = C
    elif rule == "partial_join":
        joins[0] = (j0[0], j0[1], j0[2], j0[3], not j0[4])
    elif rule == "third_incidence":
        joins.append((j0[0], j0[1], 3 if j0[2] != 3 else 2, "U0", False))
    elif rule == "side_joined_to_itself":
        joins.insert(1, (j0[0], j0[1], j0[0], j0[1], False))
    elif rule == "unknown_patch_index":
        joins.insert(1, (0, "U0", 4 if rng.random() < 0.5 else -1, "U1", False))
    elif rule == "duplicate_patch_id":
        ids[2] = ids[0]
    return _case(f"faulty: {rule}", patches, joins=joins, ids=ids, rng=rng)


_RULES = ("mismatched_curve", "partial_join", "third_incidence", "side_joined_to_itself",
          "unknown_patch_index", "duplicate_patch_id")


def generate(seed: int, n: int) -> list:
    """``n`` surface cases, named networks first. Deterministic in ``seed``."""
    specials = [
        _spec_two_patch,
        _single,
        _tube_one,
        _tube_four,
        _cube,
        lambda r: _grid_case(r, "planar grid", m=2, k=2, planar=True),
        lambda r: _grid_case(r, "grid", m=8, k=8, magnitude=1.0, planar=False),
        _far,
        _collapsed,
        _pole,
        _near_threshold,
        *[(lambda r, rule=rule: _faulty(r, rule)) for rule in _RULES],
        # thresholds exactly at computed values, C1 edges near and at zero, large non-dyadic
        # derivatives (the edge values' own rounding is far above a bound without E)
        lambda r: _threshold_normals(r, "length"),
        lambda r: _threshold_normals(r, "sine"),
        _near_c1,
        lambda r: _grid_case(r, "large curved grid", m=2, k=2, magnitude=1.0, planar=False, size=1.0e4 / 3.0),
    ]
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 10])
        cases.append(specials[k](rng) if k < len(specials) else _grid_case(rng, "random grid"))
    return cases


# --- Claims from the fast path ---------------------------------------------------------------

def case_source(case) -> tuple:
    """``(SurfaceSource, SurfacePreparation)`` of a corpus case."""
    patches = [SurfacePatchSource(pid, c) for pid, c in zip(case["ids"], case["source"])]
    joins = [SurfaceAdjacencySource(p, PatchSide[s], q, PatchSide[t], bool(r)) for p, s, q, t, r in case["joins"]]
    t = case["tol"]
    tol = tolerance(t["position_error"], derivative=t["derivative"], dmin=t["dmin"], smin=t["smin"])
    return SurfaceSource(patches, joins, 1), SurfacePreparation(tol, LIMITS, tuple(case["origin"]))


def _network_inputs(case) -> dict:
    return {"ids": list(case["ids"]), "source": enc(case["source"]), "origin": enc(case["origin"]),
            "joins": [[int(p), s, int(q), t, bool(r)] for p, s, q, t, r in case["joins"]]}


def _edge_json(e) -> dict:
    return {"id": [e.id.patch_id, e.id.side.value], "curve": enc(e.curve),
            "incidences": [[i.patch, i.patch_id, i.side.value, i.is_reversed] for i in e.incidences],
            "orientation_consistent": e.is_orientation_consistent}


def _corner_json(c) -> dict:
    return {"id": [c.id.patch_id, c.id.corner.value], "position": enc(c.position),
            "incidences": [[i.patch, i.patch_id, i.corner.value] for i in c.incidences]}


_POINTS = ((0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (0.0, 0.5), (0.5, 1.0))


def claims(case) -> list:
    """Run the fast path on one case and return its claims."""
    source, prep = case_source(case)
    out = try_prepare_surface(source, prep)
    net = _network_inputs(case)
    if not out.ok:
        if out.status is GeometryStatus.InvalidTopology:
            return [Claim("surface.shared_edges", G.Exact,
                          {"status": out.status.value, "rule": out.diagnostic.field, "index": out.diagnostic.index},
                          net)]
        return []
    view = out.value.view()
    result = [Claim("surface.shared_edges", G.Exact, {"edges": [_edge_json(e) for e in view.edges]}, net),
              Claim("surface.corners", G.Exact, {"corners": [_corner_json(c) for c in view.corners]}, net)]
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(view.controls).tobytes()))
    n = view.patch_count
    picks = sorted(set(int(x) for x in rng.choice(n, size=min(n, 3), replace=False)))
    tol = view.tolerance
    for p in picks:
        C = view.controls[p]
        pts = list(_POINTS) + [(float(rng.random()), float(rng.random()))]
        C_enc = enc(C)  # one encoding per patch, shared by its claims (never mutated)
        if case["name"].startswith("near-threshold") and p == 0:
            pts = [(0.5, 0.5)] + pts
        for u, v in pts:
            s = try_evaluate_surface(view, p, u, v, partials=True).value
            base = {"controls": C_enc, "u": enc(u), "v": enc(v)}
            result.append(Claim("surface.evaluation", G.Rounded,
                                {k: enc(getattr(s, k)) for k in ("position", "du", "dv", "duu", "duv", "dvv")},
                                {"kind": "sample", **base}))
            nr = try_evaluate_surface_normal(view, p, u, v)
            value = {"normal": enc(nr.value)} if nr.ok else {"status": nr.status.value}
            value["decision"] = _decision_values(C, u, v, tol)
            result.append(Claim("surface.evaluation", G.Rounded, value,
                                {"kind": "normal", **base,
                                 "normal_min_derivative_length": enc(tol.normal_min_derivative_length),
                                 "normal_min_sin_angle": enc(tol.normal_min_sin_angle)}))
    result.append(_edge_parameter_claim(view, net, rng))
    shared = [e for e in view.edges if e.is_shared]
    for k in sorted(set(int(x) for x in rng.choice(len(shared), size=min(len(shared), 4), replace=False))) \
            if shared else []:
        e = shared[k]
        a, b = e.incidences
        rows = []
        for inc in (a, b):
            C = view.controls[inc.patch]
            rows.append(np.stack([_side_of(C, inc.side.value), _inner_of(C, inc.side.value)]))
        result.append(Claim("surface.evaluation", G.Rounded,
                            {"difference": enc(e.cross_derivative_difference), "scale": enc(e.cross_derivative_scale),
                             "is_c1": e.is_c1},
                            {"kind": "edge", "first": enc(rows[0]), "second": enc(rows[1]), "is_reversed": b.is_reversed,
                             "continuity_derivative": enc(tol.continuity_derivative)}))
    return result


def _decision_values(C, u, v, tol) -> dict:
    """The computed ``|Su|``, ``|Sv|``, ``|Su x Sv|`` and sine the fast path's normal decision
    compared with its thresholds (a threshold decision on Rounded values is checkable exactly
    only against the values it was made on)."""
    from reference import kernel as K
    from reference.context import F64

    su, sv, n = K.bicubic_normal_vector(F64, np.asarray(C, dtype=np.float64), np.float64(u), np.float64(v))
    _code, _unit, (lu, lv, lx, sin) = _normal_decision(su, sv, n, tol.normal_min_derivative_length,
                                                      tol.normal_min_sin_angle)
    return {"su": enc(float(lu)), "sv": enc(float(lv)), "cross": enc(float(lx)), "sine": enc(float(sin))}


# Edge parameters asked of TryMapEdgeParameter: the ends, dyadic and non-dyadic values, and values
# whose 1 - s is inexact in float64 (1/3) or rounds to 1 (2^-60).
_EDGE_S = (0.0, 1.0, 0.25, 1.0 / 3.0, 0.7, 2.0**-60)


def _edge_parameter_claim(view, net, rng) -> Claim:
    """One claim of TryMapEdgeParameter over up to four shared edges and one boundary edge."""
    shared = [e for e in view.edges if e.is_shared]
    boundary = [e for e in view.edges if not e.is_shared]
    pick = [shared[int(k)] for k in sorted(set(rng.choice(len(shared), size=min(len(shared), 4), replace=False)))] \
        if shared else []
    pick += boundary[:1]
    queries, mapped = [], []
    for e in pick:
        for sv in _EDGE_S:
            out = try_map_edge_parameter(view, e.id, sv)
            queries.append([e.id.patch_id, e.id.side.value, enc(sv)])
            mapped.append([[m.patch, m.patch_id, m.side.value, enc(m.u), enc(m.v)] for m in out.value]
                          if out.ok else {"status": out.status.value})
    return Claim("surface.shared_edges", G.Exact, {"mapped": mapped}, {**net, "edge_parameters": queries})


def _inner_of(C, side):
    return side_controls(C, side, inner=True)


# --- Checkers: topology ----------------------------------------------------------------------


def _nested(x):
    return [_nested(v) for v in x] if isinstance(x, list) else dec(x)


def _array(x, dtype=np.float64) -> np.ndarray:
    """``dec_array`` with a fast path for canonical hex text (same values, same errors)."""
    try:
        a = np.array(_nested(x), dtype=np.float64)
    except ValueError:  # ragged nesting: let dec_array name the problem
        return dec_array(x, dtype)
    out = a.astype(dtype)
    if not np.array_equal(out.astype(np.float64), a, equal_nan=True):
        return dec_array(x, dtype)  # raises the grammar's NumberError
    return out


def _network(claim: Claim):
    inp = claim.inputs
    ids = inp["ids"]
    src = _array(inp["source"])
    origin = _array(inp["origin"])
    if src.ndim != 4 or src.shape[1:] != (4, 4, 3) or origin.shape != (3,) or len(ids) != src.shape[0]:
        raise ValueError("a network needs ids (n), source (n, 4, 4, 3) and origin (3,)")
    joins = []
    for j in inp["joins"]:
        if not (isinstance(j, list) and len(j) == 5 and j[1] in SIDE_NAMES and j[3] in SIDE_NAMES
                and isinstance(j[4], bool)):
            raise ValueError("each join is [first_patch, side, second_patch, side, is_reversed]")
        joins.append((int(j[0]), j[1], int(j[2]), j[3], j[4]))
    narrowed = replay_narrowing(src, origin)
    if not np.all(np.isfinite(narrowed)):
        return ids, None, joins
    return ids, narrowed, joins


def _q_vec(x, fmt=np.float32):
    return [to_mpq(float(v)) for v in np.ravel(_array(x, fmt))]


_NETWORK_KEYS = ("ids", "source", "origin", "joins")


def _truth_or_status(claim):
    # A network's shared-edges, edge-parameter and corners claims carry the same network: replay
    # it once.
    return _truth_of(json.dumps({k: claim.inputs[k] for k in _NETWORK_KEYS}, sort_keys=True))


@lru_cache(maxsize=4)
def _truth_of(inputs_json: str):
    claim = Claim("surface.shared_edges", G.Exact, None, json.loads(inputs_json))
    ids, narrowed, joins = _network(claim)
    if narrowed is None:
        return {"status": GeometryStatus.UnsupportedPrecision.value}
    topo = exact_topology(ids, narrowed, joins)
    if isinstance(topo, TopologyFailure):
        return {"status": GeometryStatus.InvalidTopology.value, "rule": topo.rule, "index": topo.index}
    return topo


def _status_verdict(claim, truth):
    """Both the claim and the truth are failures (or one is): compare them."""
    if isinstance(truth, dict):
        got = {k: claim.value.get(k) for k in truth}
        if "status" in claim.value and got == truth:
            return verified(claim, measure="mismatches", measured=0, note=f"{truth['status']} replayed exactly")
        return violated(claim, {"expected": truth, "claimed": claim.value})
    return violated(claim, {"expected": "a valid network", "claimed": claim.value})


def check_shared_edges(claim: Claim):
    """Exact: every edge record (id, canonical curve, incidences, orientation consistency) or
    the InvalidTopology rule and index equals the exact rational replay; a claim of
    TryMapEdgeParameter (inputs ``edge_parameters``) maps every canonical parameter onto each
    incidence exactly (``fl64(1 - s)`` on a reversed one)."""
    if "edge_parameters" in claim.inputs:
        return _check_edge_parameters(claim)
    truth = _truth_or_status(claim)
    if isinstance(truth, dict) or "edges" not in claim.value:
        return _status_verdict(claim, truth)
    want = [((e["id"][0], e["id"][1]), [x for row in e["curve"] for x in row],
             [list(i) for i in e["incidences"]], e["orientation_consistent"]) for e in truth.edges]
    got = []
    for e in claim.value["edges"]:
        got.append(((int(e["id"][0]), e["id"][1]), _q_vec(e["curve"]),
                    [[int(i[0]), int(i[1]), i[2], bool(i[3])] for i in e["incidences"]], e["orientation_consistent"]))
    if len(got) != len(want):
        return violated(claim, {"expected_edge_count": len(want), "claimed_edge_count": len(got)})
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return violated(claim, {"edge": k, "expected": _edge_text(w), "claimed": claim.value["edges"][k]})
    return verified(claim, measure="mismatches", measured=0)


def _check_edge_parameters(claim: Claim):
    truth = _truth_or_status(claim)
    if isinstance(truth, dict):
        return violated(claim, {"why": "the network does not prepare, so no edge has parameters", "truth": truth})
    queries = claim.inputs["edge_parameters"]
    mapped = claim.value["mapped"]
    if not isinstance(queries, list) or not isinstance(mapped, list) or len(queries) != len(mapped):
        raise ValueError("edge_parameters and mapped: one answer per query")
    edges = {(int(e["id"][0]), e["id"][1]): e for e in truth.edges}
    for k, (q, got) in enumerate(zip(queries, mapped)):
        if not (isinstance(q, list) and len(q) == 3 and q[1] in SIDE_NAMES):
            raise ValueError("each edge parameter query is [patch_id, side, s]")
        s = dec(q[2])
        e = edges.get((int(q[0]), q[1]))
        if e is None or not (0.0 <= s <= 1.0):
            want = {"status": "InvalidArgument" if e is None or s != s else "InvalidDomain"}
            if got != want:
                return violated(claim, {"query": k, "expected": want, "claimed": got})
            continue
        sq = to_mpq(s)
        want = []
        for (p, pid, side, rev) in e["incidences"]:
            # a reversed incidence takes 1 - s rounded to the nearest float64 (exact for every
            # multiple of 2^-53; Fraction -> float rounds correctly)
            t = to_mpq(float(Fraction(1) - Fraction(s))) if rev else sq
            uu, vv = side_point(side, t)
            want.append([p, pid, side, uu, vv])
        if not isinstance(got, list) or len(got) != len(want):
            return violated(claim, {"query": k, "why": "one (u, v) per incidence, owner first",
                                    "expected": _mapped_text(want), "claimed": got})
        for g, w in zip(got, want):
            if not (isinstance(g, list) and len(g) == 5):
                raise ValueError("each mapped parameter is [patch, patch_id, side, u, v]")
            if [int(g[0]), int(g[1]), g[2]] != w[:3] or to_mpq(dec(g[3])) != w[3] or to_mpq(dec(g[4])) != w[4]:
                return violated(claim, {"query": k, "edge": list(q[:2]), "s": q[2], "expected": _mapped_text(want),
                                        "claimed": got})
    return verified(claim, measure="mismatches", measured=0, note=f"{len(queries)} edge parameters mapped")


def _mapped_text(want):
    return [[p, pid, side, str(u), str(v)] for p, pid, side, u, v in want]


def _edge_text(w):
    eid, curve, inc, cons = w
    return {"id": list(eid), "curve": [str(x) for x in curve], "incidences": inc, "orientation_consistent": cons}


def check_corners(claim: Claim):
    """Exact: every corner record (id, position, incident patch corners) equals the exact
    replay (corner groups are connected components through the joins)."""
    truth = _truth_or_status(claim)
    if isinstance(truth, dict) or "corners" not in claim.value:
        return _status_verdict(claim, truth)
    want = [((c["id"][0], c["id"][1]), c["position"], [list(i) for i in c["incidences"]]) for c in truth.corners]
    got = [((int(c["id"][0]), c["id"][1]), _q_vec(c["position"]), [[int(i[0]), int(i[1]), i[2]] for i in c["incidences"]])
           for c in claim.value["corners"]]
    if len(got) != len(want):
        return violated(claim, {"expected_corner_count": len(want), "claimed_corner_count": len(got)})
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return violated(claim, {"corner": k, "expected": {"id": list(w[0]), "position": [str(x) for x in w[1]],
                                                              "incidences": w[2]},
                                    "claimed": claim.value["corners"][k]})
    return verified(claim, measure="mismatches", measured=0)


# --- Checkers: evaluation --------------------------------------------------------------------

def _patch_point(claim):
    C = _array(claim.inputs["controls"], np.float32)
    u, v = dec(claim.inputs["u"]), dec(claim.inputs["v"])
    if C.shape != (4, 4, 3) or not (0.0 <= u <= 1.0 and 0.0 <= v <= 1.0):
        raise ValueError("needs controls (4, 4, 3) float32 and u, v in [0, 1]")
    return C, u, v


def _magnitude(a) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64))))


def _float(q) -> float:
    """A witness number (an mpq error or bound) as a float that never raises."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


_NAMES = ("position", "du", "dv", "duu", "duv", "dvv")


def _check_sample(claim):
    C, u, v = _patch_point(claim)
    E = _magnitude(C)
    res = resolve(claim, lambda uu, eta: evaluation_bounds(E, uu, eta), constant=_SURFACE_K)
    truth = exact_partials(C, u, v)
    worst, detail, ok = 0.0, {}, True
    for name, t, b in zip(_NAMES, truth, res.bound):
        got = _array(claim.value[name])
        if got.shape != (3,):
            raise ValueError(f"{name} has three components")
        err = max(abs(to_mpq(float(g)) - x) for g, x in zip(got, t))
        r = ratio(err, b)
        worst = max(worst, r)
        if err > b:
            ok = False
            detail[name] = {"error": _float(err), "bound": _float(b), "exact": [str(x) for x in t]}
    if ok:
        return verified(claim, measure="error_ratio", measured=worst, bound_use=worst, **res.extra())
    return violated(claim, detail, measure="error_ratio", measured=worst, bound_use=worst, **res.extra())


def _sq(a):
    return sum((x * x for x in a), gmpy2.mpq(0))


def _band_zero(L, e):
    """Whether the exact length enclosed by ``L`` is within ``e`` of zero: True, False, None."""
    if upper(L) <= e:
        return True
    if lower(L) > e:
        return False
    return None


def _band(L, t, e):
    """Whether the exact value enclosed by ``L`` is within ``e`` of the threshold ``t``."""
    lo, hi = lower(L), upper(L)
    if lo >= t - e and hi <= t + e:
        return True
    if hi < t - e or lo > t + e:
        return False
    return None


def _any(vals):
    if any(v is True for v in vals):
        return True
    if all(v is False for v in vals):
        return False
    return None


def _all(vals):
    if all(v is True for v in vals):
        return True
    if any(v is False for v in vals):
        return False
    return None


def _value_error(got, L, bound):
    """``(lower, upper)`` bounds of ``|got - exact|`` for an exact value enclosed by ``L``, and
    whether it is within ``bound``: True, False (shown beyond) or None."""
    e_hi = max(abs(got - lower(L)), abs(got - upper(L)))
    e_lo = max(got - upper(L), lower(L) - got, gmpy2.mpq(0))
    return e_lo, e_hi, (True if e_hi <= bound else False if e_lo > bound else None)


def _rule(su, sv, cross, sine, dmin, smin) -> str:
    """The normal decision rule applied exactly to the values it is made on."""
    if su == 0 or sv == 0 or cross == 0:
        return "Degenerate"
    if su <= dmin or sv <= dmin or not sine > smin:
        return "IllConditioned"
    return "Success"


def _check_decision_values(claim, dv, claimed, Lu, Lv, Lx, eL, eX, uq, dmin, smin):
    """The claimed decision values (computed |Su|, |Sv|, |Su x Sv| and sine) lie within their
    error bounds of the exact values, the sine is their quotient within two roundings, and the
    claimed status is the rule applied exactly to them (no band: the rule is on these values).
    Returns ``(verdict or None, bound_use)``."""
    if not isinstance(dv, dict):
        raise ValueError("decision must be an object {su, sv, cross, sine}")
    su, sv, cross = (to_mpq(dec(dv[k])) for k in ("su", "sv", "cross"))
    use = 0.0
    for name, got, L, b in (("su", su, Lu, eL), ("sv", sv, Lv, eL), ("cross", cross, Lx, eX)):
        e_lo, e_hi, ok = _value_error(got, L, b)
        use = max(use, ratio(e_hi, b))
        if ok is False:
            return violated(claim, {"decision_value": name, "error": [_float(e_lo), _float(e_hi)], "bound": _float(b),
                                    "why": "a decision value beyond its error bound"},
                            measure="error_ratio", measured=ratio(e_lo, b), bound_use=ratio(e_lo, b)), use
        if ok is None:
            return undecided(claim, [_float(e_lo), _float(e_hi)], note=f"decision value {name} undecided"), use
    sine = None
    if su != 0 and sv != 0 and cross != 0:
        sd = dec(dv["sine"])
        if not math.isfinite(sd):
            return violated(claim, {"why": "a nonfinite sine of nonzero lengths", "sine": dv["sine"]}), use
        sine = to_mpq(sd)
        q = cross / (su * sv)
        if abs(sine - q) > q * to_mpq(4 * uq):
            return violated(claim, {"why": "the sine is not |Su x Sv| / (|Su| |Sv|) of the claimed lengths",
                                    "sine": dv["sine"], "quotient": str(q)}), use
    want = _rule(su, sv, cross, sine, dmin, smin)
    if want != claimed:
        return violated(claim, {"claimed_status": claimed, "status_of_claimed_values": want,
                                "why": "the decision is not the rule (Degenerate at zero, IllConditioned at or "
                                       "below a threshold) applied to the values it was made on"}), use
    return None, use


def _check_normal(claim):
    C, u, v = _patch_point(claim)
    E = _magnitude(C)
    dmin = to_mpq(dec(claim.inputs["normal_min_derivative_length"]))
    smin = to_mpq(dec(claim.inputs["normal_min_sin_angle"]))
    parts = exact_partials(C, u, v)
    Su, Sv = parts[1], parts[2]
    N = exact_cross(Su, Sv)
    qu, qv, qn = _sq(Su), _sq(Sv), _sq(N)
    prec = BUDGET[0]
    Lu, Lv, Lx = enclose_length(Su, prec), enclose_length(Sv, prec), enclose_length(N, prec)
    Lx_lo = float(lower(Lx))
    res = resolve(claim, lambda uu, eta: [normal_bound(E, Lx_lo * (1 - 2**-50), uu, eta)], constant=_SURFACE_K)
    uq = res.u
    # Exact decision (squares: no square root needed).
    if qu == 0 or qv == 0 or qn == 0:
        exact = "Degenerate"
    elif qu <= dmin * dmin or qv <= dmin * dmin or qn <= smin * smin * qu * qv:
        exact = "IllConditioned"
    else:
        exact = "Success"
    claimed = claim.value.get("status", "Success")
    if claimed not in ("Success", "Degenerate", "IllConditioned"):
        return violated(claim, {"claimed_status": claimed, "why": "a normal is Success, Degenerate or IllConditioned"})
    eta = dec(claim.model["eta"]) if claim.model and "eta" in claim.model else ETA_OF_U.get(uq, 2.0**-1074)
    eL, eN = (to_mpq(x) for x in decision_errors(E, uq, eta))
    use = 0.0
    if "decision" in claim.value:
        bad, use = _check_decision_values(claim, claim.value["decision"], claimed, Lu, Lv, Lx, eL, eN, uq, dmin, smin)
        if bad is not None:
            return bad
    counters = {}
    if claimed != exact:
        if claimed == "Degenerate":
            inband = _any([_band_zero(Lu, eL), _band_zero(Lv, eL), _band_zero(Lx, eN)])
        elif exact == "Degenerate":
            inband = True  # an exact zero is within every error bound of zero
        else:
            tests = [(qu <= dmin * dmin, _band(Lu, dmin, eL)), (qv <= dmin * dmin, _band(Lv, dmin, eL))]
            lu_lo, lv_lo = lower(Lu) - eL, lower(Lv) - eL
            if lu_lo > 0 and lv_lo > 0:
                sin_lo = lower(Lx) / (upper(Lu) * upper(Lv))
                sin_hi = upper(Lx) / (lower(Lu) * lower(Lv))
                esin = (eN + sin_hi * (eL * upper(Lv) + eL * upper(Lu) + eL * eL)) / (lu_lo * lv_lo) \
                    + to_mpq(4 * uq)
                if sin_lo >= smin - esin and sin_hi <= smin + esin:
                    sband = True
                elif sin_hi < smin - esin or sin_lo > smin + esin:
                    sband = False
                else:
                    sband = None
            else:
                sband = True  # the sine is not determined by the computed lengths at all
            tests.append((qn <= smin * smin * qu * qv, sband))
            if claimed == "IllConditioned":  # exact Success: some test must be near its threshold
                inband = _any([b for _, b in tests])
            else:  # claimed Success, exact IllConditioned: every failing test near its threshold
                inband = _all([b for t, b in tests if t])
        if inband is False:
            return violated(claim, {"claimed_status": claimed, "exact_status": exact,
                                    "why": "decision differs outside the rounding band"}, **res.extra())
        if inband is None:
            return undecided(claim, None, note=f"decision {claimed} vs exact {exact}: band undecided", prec=prec)
        counters["decision_differs"] = 1
    if claimed != "Success":
        return verified(claim, measure="error_ratio", measured=0.0, prec=prec, bound_use=use,
                        note=f"{claimed} (exact {exact})", **counters, **res.extra())
    n = _array(claim.value["normal"])
    if n.shape != (3,):
        raise ValueError("a normal has three components")
    length_err = abs(_sq([to_mpq(float(x)) for x in n]) - 1)
    if length_err > to_mpq(64 * uq):  # |n|^2 - 1 of a computed unit vector: a few roundings
        return violated(claim, {"normal_length_squared_minus_one": _float(length_err)}, **res.extra())
    if exact == "Degenerate":
        return verified(claim, measure="error_ratio", measured=0.0, prec=prec, bound_use=use,
                        note="no exact direction: the value is not judged", **counters, **res.extra())
    b = res.bound[0]

    def at(p):
        unit = enclose_unit(N, p)
        nq = [to_mpq(float(c)) for c in n]
        err2 = sum(max(abs(c - lower(t)), abs(c - upper(t))) ** 2 for c, t in zip(nq, unit))
        err2_lo = sum(max(c - upper(t), lower(t) - c, gmpy2.mpq(0)) ** 2 for c, t in zip(nq, unit))
        r = math.sqrt(ratio(err2, b * b))
        if err2 <= b * b:
            return Decision(True, p, None, {"ratio": r})
        if err2_lo > b * b:
            return Decision(False, p, [_float(err2_lo) ** 0.5, _float(err2) ** 0.5], {"ratio": r})
        return Decision(None, p, [_float(err2_lo) ** 0.5, _float(err2) ** 0.5], {"ratio": r})

    d = refine(at, BUDGET)
    r = d.detail["ratio"]
    if d.holds is True:
        return verified(claim, measure="error_ratio", measured=r, prec=d.prec, bound_use=max(r, use), **counters,
                        **res.extra())
    if d.holds is False:
        return violated(claim, {"error_interval": d.enclosure, "bound": _float(b)}, measure="error_ratio",
                        measured=r, prec=d.prec, bound_use=r, **res.extra())
    return undecided(claim, d.enclosure, prec=d.prec, bound_use=r)


def _check_edge(claim):
    inp = claim.inputs
    A = _array(inp["first"], np.float32)
    B = _array(inp["second"], np.float32)
    if A.shape != (2, 4, 3) or B.shape != (2, 4, 3) or not isinstance(inp["is_reversed"], bool):
        raise ValueError("an edge claim needs first and second rows (2, 4, 3) and is_reversed")
    thr = to_mpq(dec(inp["continuity_derivative"]))
    E = max(_magnitude(A), _magnitude(B))
    res = resolve(claim, lambda uu, eta: [edge_value_bound(E, uu, eta)] * 2, constant=_SURFACE_K)
    qa = [[3 * (to_mpq(float(b)) - to_mpq(float(i))) for b, i in zip(A[0, k], A[1, k])] for k in range(4)]
    qb = [[3 * (to_mpq(float(b)) - to_mpq(float(i))) for b, i in zip(B[0, k], B[1, k])] for k in range(4)]
    qbm = qb[::-1] if inp["is_reversed"] else qb
    diff2 = max(_sq([x + y for x, y in zip(a, b)]) for a, b in zip(qa, qbm))
    scale2 = max(max(_sq(a) for a in qa), max(_sq(b) for b in qb))
    prec = BUDGET[0]
    Ld, Ls = enclose_sqrt(diff2, prec), enclose_sqrt(scale2, prec)
    got_d, got_s = to_mpq(dec(claim.value["difference"])), to_mpq(dec(claim.value["scale"]))
    bd, bs = res.bound
    worst = 0.0
    for got, L, b, name in ((got_d, Ld, bd, "difference"), (got_s, Ls, bs, "scale")):
        e_lo, e_hi, ok = _value_error(got, L, b)
        worst = max(worst, ratio(e_hi, b))
        if ok is False:
            return violated(claim, {"field": name, "error": [_float(e_lo), _float(e_hi)], "bound": _float(b)},
                            measure="error_ratio", measured=ratio(e_hi, b), bound_use=ratio(e_lo, b), **res.extra())
        if ok is None:
            return undecided(claim, [_float(e_lo), _float(e_hi)], note=f"{name} error undecided", prec=prec,
                             bound_use=ratio(e_hi, b))
    if not isinstance(claim.value["is_c1"], bool):
        raise ValueError("is_c1 must be a bool")
    claimed_c1 = claim.value["is_c1"]
    # The rule on the claimed values: difference <= threshold * scale, the product rounded once
    # (either answer within one rounding of it; none at an exact tie such as 0 <= t * 0).
    prod = thr * got_s
    if got_d < prod * (1 - to_mpq(2 * res.u)) or got_d > prod * (1 + to_mpq(2 * res.u)) or got_d == prod:
        want = got_d <= prod
        if claimed_c1 is not want:
            return violated(claim, {"claimed_is_c1": claimed_c1, "is_c1_of_claimed_values": want,
                                    "why": "is_c1 is not difference <= continuity_derivative * scale on the claimed "
                                           "values"}, measure="error_ratio", measured=worst, **res.extra())
    exact_c1 = diff2 <= thr * thr * scale2
    counters = {}
    if claimed_c1 is not exact_c1:
        slack = bd + thr * bs + thr * upper(Ls) * to_mpq(2 * res.u)
        inband = _band(Ld, thr * lower(Ls), slack + thr * (upper(Ls) - lower(Ls)))
        if inband is False:
            return violated(claim, {"claimed_is_c1": claimed_c1, "exact_is_c1": exact_c1,
                                    "why": "decision differs outside the rounding band"},
                            measure="error_ratio", measured=worst, **res.extra())
        if inband is None:
            return undecided(claim, None, note="is_c1 band undecided", prec=prec)
        counters["decision_differs"] = 1
    return verified(claim, measure="error_ratio", measured=worst, prec=prec, bound_use=worst, **counters,
                    **res.extra())


def check_evaluation(claim: Claim):
    """Rounded: samples, unit normals (with the Degenerate / IllConditioned decision) and edge
    continuity values (with ``is_c1``) within the surface error models; decisions agree with
    the exact decision outside the rounding band."""
    kind = claim.inputs.get("kind")
    if kind == "sample":
        return _check_sample(claim)
    if kind == "normal":
        return _check_normal(claim)
    if kind == "edge":
        return _check_edge(claim)
    raise ValueError(f"unknown surface.evaluation kind {kind!r}")


# --- Contracts -------------------------------------------------------------------------------

def _replace(claim, value):
    return Claim(claim.row, claim.guarantee, value, claim.inputs, claim.model)


def _next32(x) -> str:
    return enc(float(np.nextafter(np.float32(dec(x)), np.float32(np.inf))))


def _plant_edges(claim):
    v = claim.value
    if "mapped" in v:  # one mapped parameter one float64 ulp off
        mapped = [list(m) if isinstance(m, list) else m for m in v["mapped"]]
        k = next(i for i, m in enumerate(mapped) if isinstance(m, list))
        first = list(mapped[k][0])
        first[3] = enc(float(np.nextafter(dec(first[3]), 2.0)))
        mapped[k] = [first] + mapped[k][1:]
        return _replace(claim, {"mapped": mapped})
    if "edges" in v:
        edges = [dict(e) for e in v["edges"]]
        curve = [list(r) for r in edges[0]["curve"]]
        curve[1][0] = _next32(curve[1][0])
        edges[0]["curve"] = curve
        return _replace(claim, {"edges": edges})
    other = next(r for r in ("mismatched_curve", "partial_join") if r != v.get("rule"))
    return _replace(claim, {**v, "rule": other})


def _plant_corners(claim):
    corners = [dict(c) for c in claim.value["corners"]]
    pos = list(corners[0]["position"])
    pos[0] = _next32(pos[0])
    corners[0]["position"] = pos
    return _replace(claim, {"corners": corners})


def _plant_evaluation(claim):
    v, kind = claim.value, claim.inputs["kind"]
    if kind == "sample":
        E = _magnitude(_array(claim.inputs["controls"], np.float32))
        p = [dec(x) for x in v["position"]]
        p[0] += 1e-3 * (E + 1.0)
        return _replace(claim, {**v, "position": enc(np.array(p))})
    if kind == "normal":
        return _replace(claim, {"normal": enc(np.array([10.0, 0.0, 0.0]))})
    d = dec(v["difference"])
    return _replace(claim, {**v, "difference": enc(d + 1.0 + 1e-3 * abs(d) + 1e-3 * dec(v["scale"]))})


_SIDE = S.enum(SIDE_NAMES)
_CORNER = S.enum(CORNER_NAMES)
_ID = S.integer(minimum=0, maximum=2**64 - 1)
_NETWORK = S.obj(required={
    "ids": S.array(_ID, min_items=1),
    "source": S.matrix(S.f64(), [None, 4, 4, 3]),
    "origin": S.vec(S.f64(), 3),
    "joins": S.array(S.vec(S.any_of(S.integer(), _SIDE, S.boolean()), 5)),
})
NETWORK_SCHEMA = _NETWORK  # a network's inputs (the tessellation family's claims carry one too)
_EDGE_PARAMETER_INPUTS = S.obj(required={
    **_NETWORK["properties"],
    "edge_parameters": S.array(S.vec(S.any_of(_ID, _SIDE, S.f64()), 3)),
})
_INCIDENCE = S.vec(S.any_of(S.integer(minimum=0), _ID, _SIDE, S.boolean()), 4)
_EDGES_VALUE = S.any_of(
    S.obj(required={"edges": S.array(S.obj(required={
        "id": S.vec(S.any_of(_ID, _SIDE), 2),
        "curve": S.matrix(S.f32(), [4, 3]),
        "incidences": S.array(_INCIDENCE, min_items=1, max_items=2),
        "orientation_consistent": S.any_of(S.boolean(), {"type": "null"}),
    }))}),
    S.obj(required={"status": S.enum(["InvalidTopology", "UnsupportedPrecision"])},
          optional={"rule": S.string(), "index": S.any_of(S.integer(), {"type": "null"})}),
    S.obj(required={"mapped": S.array(S.any_of(
        S.array(S.vec(S.any_of(S.integer(minimum=0), _ID, _SIDE, S.f64()), 5), min_items=1, max_items=2),
        S.obj(required={"status": S.enum(["InvalidArgument", "InvalidDomain"])})))}),
)
_CORNERS_VALUE = S.obj(required={"corners": S.array(S.obj(required={
    "id": S.vec(S.any_of(_ID, _CORNER), 2),
    "position": S.vec(S.f32(), 3),
    "incidences": S.array(S.vec(S.any_of(_ID, _CORNER), 3), min_items=1),
}))})
_POINT = {"controls": S.matrix(S.f32(), [4, 4, 3]), "u": S.f64(), "v": S.f64()}
_EVAL_INPUTS = S.any_of(
    S.obj(required={"kind": S.const("sample"), **_POINT}),
    S.obj(required={"kind": S.const("normal"), **_POINT,
                    "normal_min_derivative_length": S.f64(nonnegative=True),
                    "normal_min_sin_angle": S.f64(nonnegative=True)}),
    S.obj(required={"kind": S.const("edge"), "first": S.matrix(S.f32(), [2, 4, 3]),
                    "second": S.matrix(S.f32(), [2, 4, 3]), "is_reversed": S.boolean(),
                    "continuity_derivative": S.f64(nonnegative=True)}),
)
_V3 = S.vec(S.f64(), 3)
_DECISION = {"decision": S.obj(required={"su": S.f64(nonnegative=True), "sv": S.f64(nonnegative=True),
                                         "cross": S.f64(nonnegative=True), "sine": S.f64(finite=False)})}
_EVAL_VALUE = S.any_of(
    S.obj(required={k: _V3 for k in _NAMES}),
    S.obj(required={"normal": _V3}, optional=_DECISION),
    S.obj(required={"status": S.enum(["Degenerate", "IllConditioned"])}, optional=_DECISION),
    S.obj(required={"difference": S.f64(nonnegative=True), "scale": S.f64(nonnegative=True), "is_c1": S.boolean()}),
)

CONTRACTS = {
    "surface.shared_edges": RowContract(
        checks="Every edge record (owner id, canonical float32 curve, incidences with reversal, "
               "orientation consistency) or the InvalidTopology rule and join equals an exact rational "
               "replay of the narrowing and of the V1 topology rules; TryMapEdgeParameter gives each "
               "incidence, owner first, the (u, v) of s (of fl64(1 - s) when reversed) exactly.",
        inputs=S.any_of(_NETWORK, _EDGE_PARAMETER_INPUTS), value=_EDGES_VALUE, plant=_plant_edges),
    "surface.corners": RowContract(
        checks="Every corner record (smallest (patch id, corner) id, exact float32 position, incident "
               "patch corners) equals the connected components of patch corners through the joins, "
               "recomputed in exact rationals.",
        inputs=_NETWORK, value=_CORNERS_VALUE, plant=_plant_corners),
    "surface.evaluation": RowContract(
        checks="Positions and partials per component within 32 (u M E + eta) (M = 1, 6, 6, 24, 36, 24) of "
               "exact rationals; unit normals within 2 eN / (|N| - eN) + 32 u of interval enclosures of N/|N|; "
               "edge continuity values within 32 (21 u E + eta) + sqrt(2 eta); Degenerate, IllConditioned "
               "and is_c1 decisions equal the exact decision outside the rounding band of their thresholds, "
               "and equal the rule applied exactly to the values they were made on (is_c1: difference <= "
               "threshold x scale within one rounding of the product; a normal's claimed |Su|, |Sv|, "
               "|Su x Sv| within e_len, e_len, e_cross of exact and its sine their quotient within 4 u).",
        inputs=_EVAL_INPUTS, value=_EVAL_VALUE, plant=_plant_evaluation, model=S.MODEL),
}

FAMILY = Family(
    name="surface",
    default_cases=40,
    generate=generate,
    claims=claims,
    checkers={"surface.shared_edges": check_shared_edges, "surface.corners": check_corners,
              "surface.evaluation": check_evaluation},
    contracts=CONTRACTS,
    oracle_precisions=DEFAULT_BUDGET,
)
