"""Surface corpus: the networks the surface and tessellation families' requests are made of.

Deterministic in the seed: the named networks first (a single patch, the spec's reversed
two-patch join (ids 10 and 20), a closed one-patch tube (U0 joined to U1 of the same patch), a
four-patch tube, a cube of six patches, planar and curved grids of 2x2 to 8x8 patches (patch
order, ids and each patch's parametrization shuffled), networks far from the origin (up to 1e7,
chunk origin nearby), degenerate patches (a collapsed side, a pole shared by unjoined patches),
near-threshold normals and near-C1 edges, and one faulty network per InvalidTopology cause,
normal thresholds exactly at the computed |Su| and sine, a near-C1 edge (relative difference a
quarter of the threshold, absolute far above it) beside an edge with zero cross-boundary
derivatives, and a large curved grid (derivatives near 1e4)); then random grids. Joins of the
generated grids are found by the generator (equal float64 side curves, directly or reversed,
read through the oracle's side table), never by the code under test. Two generators put
thresholds on values float64 computes (an input choice, through ``reference.kernel``).

A case is a dict: ``name``, ``ids``, ``source`` (n, 4, 4, 3) float64, ``origin``, ``joins``
``[(p, side, q, side, is_reversed)]`` and ``tol`` (``position_error``, ``derivative``,
``dmin``, ``smin``: the fields :func:`tolerance` varies).
"""

from __future__ import annotations

import math

import numpy as np

from interval.surface import SIDE_NAMES, side_controls
from reference.fp import narrow32, ulp32
from reference.status import ToleranceProfile, WorkLimits

__all__ = ["LIMITS", "NAMED", "RULES", "auto_joins", "corpus_case", "corpus_cases", "tolerance"]

LIMITS = WorkLimits(max_spans=1 << 12, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                    max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)


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

RULES = _RULES


_SPECIALS = [
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
NAMED = len(_SPECIALS)  # named cases; the status requests follow them


def corpus_case(seed: int, k: int) -> dict:
    """Case ``k`` of the corpus of ``seed``: a named network, else a random grid."""
    rng = np.random.default_rng([seed, k, 10])
    return _SPECIALS[k](rng) if k < NAMED else _grid_case(rng, "random grid")


def corpus_cases(seed: int, n: int) -> list:
    """``n`` surface cases, named networks first. Deterministic in ``seed``."""
    return [corpus_case(seed, k) for k in range(n)]


def _inner_of(C, side):
    return side_controls(C, side, inner=True)
