"""Point-search corpus: the cases the requests are made of (deterministic in the seed).

A case is ``{"name", "positions": (n, 3) float32, "queries": [(query float64 of float32 values,
count)]}``: one build, then its queries. The first :data:`NAMED` cases are named: all points
duplicates (counts up to the point count and ``MAX_POINT_NEIGHBORS``), integer grids with
duplicates queried at nodes, cell, face and edge centres (many exactly equal distances),
coordinate permutations and sign flips of one float32 vector (exact ties that a naive float64 or
float32 evaluation breaks), clouds far from the origin (1e7 on a unit lattice, and near
``2^59``), points at ``+-MAX_POINT_SEARCH_COORDINATE``, subnormal coordinates, tight clusters, a
uniform cloud, a single point, and rejected queries (nonfinite, too large, counts 0, above the
point count, above ``MAX_POINT_NEIGHBORS``). The rest are random clouds of 1 to 120 points
(uniform, clustered, lattice with duplicates, far from the origin) queried on points, between two
points (equidistant) and at random, with counts from 1 to ``min(n, MAX_POINT_NEIGHBORS)``.

Case ``k`` draws from ``numpy.random.default_rng([seed, k, 14])``, so a case keeps its content
whatever comes before it in the request list (:func:`case_at`).
"""

from __future__ import annotations

import itertools

import numpy as np

from reference.point_search import MAX_POINT_NEIGHBORS, MAX_POINT_SEARCH_COORDINATE

__all__ = ["NAMED", "case_at", "corpus_cases"]

_MAXC = MAX_POINT_SEARCH_COORDINATE


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).reshape(-1, 3)


def _case(name, positions, queries):
    # queries are float32 values too (the tree narrows nothing): round the generated ones
    with np.errstate(over="ignore", invalid="ignore"):
        qs = [(np.asarray(q, np.float64).astype(np.float32).astype(np.float64), k) for q, k in queries]
    return {"name": name, "positions": _f32(positions), "queries": qs}


def _lattice(m, step=1.0, origin=0.0):
    g = origin + step * np.arange(m, dtype=np.float64)
    return np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)


def _duplicates(rng):
    p = [0.25, -1.5, 3.0]
    qs = [(p, k) for k in (1, 8, 32)] + [([1, 1, 1], 32), ([1e3, 0, 0], 5)]
    qs += [(p, 41), (p, 0), (p, MAX_POINT_NEIGHBORS + 1)]  # above the point count; zero; above the maximum
    return _case("all points duplicates", [p] * 40, qs)


def _duplicates_count_n(rng):
    p = [-7.0, 2.0 ** -20, 1e6]
    return _case("duplicates, count = point count", [p] * 32, [(p, 32), ([0, 0, 0], 32), ([0, 0, 0], 33)])


def _grid_with_duplicates(rng):
    g = _lattice(5)
    pts = np.concatenate([g, g[rng.permutation(len(g))[:60]]])[rng.permutation(185)]
    qs = [([2, 2, 2], k) for k in (1, 7, 14, 32)] + [([1.5, 1.5, 1.5], k) for k in (8, 16, 32)]
    qs += [([2, 1.5, 1.5], 8), ([2, 2, 1.5], 4), ([-1, 2, 2], 32), ([4.5, 4.5, -0.5], 10)]
    return _case("5^3 grid with 60 duplicates", pts, qs)


def _small_grid_count_n(rng):
    pts = _lattice(3, 0.5, -0.5)[rng.permutation(27)]
    return _case("3^3 grid, count = point count", pts, [([0, 0, 0], 27), ([0.25, 0.25, 0.25], 27),
                                                        ([9, 9, 9], 27), ([0, 0, 0], 28)])


def _tie_vector(rng):
    # a float32 vector whose coordinate permutations sum to different values in the naive
    # float64 order (x^2 + y^2) + z^2, so only an exact comparison keeps the ties
    for _ in range(10000):
        v = (rng.random(3) * 10.0 ** rng.integers(-3, 4, 3)).astype(np.float32).astype(np.float64)
        if len({(a * a + b * b) + c * c for a, b, c in itertools.permutations(v)}) > 1:
            return v
    raise RuntimeError("no tie vector found")  # pragma: no cover


def _permutation_ties(rng):
    v = _tie_vector(rng)
    pts = [np.array(p) * s for p in itertools.permutations(v) for s in ([1, 1, 1], [-1, 1, -1], [1, -1, 1])]
    pts += [p * (1 + 2.0 ** -20) for p in pts[:6]] + [rng.normal(size=3) * v.max() for _ in range(10)]
    pts = np.asarray(pts)[rng.permutation(len(pts))]
    c = float(np.float32(v.mean()))
    return _case("coordinate permutations and sign flips (exact ties)", pts,
                 [([0, 0, 0], k) for k in (1, 7, 18, 24, 32)] + [([c, c, c], 6)])


def _far(rng):
    pts = 1e7 + rng.integers(-6, 7, size=(120, 3)).astype(np.float64)
    qs = [(pts[0], 10), (pts[1] + 0.5, 8), ([1e7, 1e7, 1e7], 32), ([1e7 + 0.5] * 3, 16)]
    return _case("far from the origin: 1e7 on a unit lattice", pts, qs)


def _very_far(rng):
    base = 2.0 ** 59
    pts = base + rng.integers(-50, 51, size=(60, 3)).astype(np.float64) * 2.0 ** 36
    return _case("near 2^59", pts, [(pts[3], 5), ([base] * 3, 32), ([-base, 0, 0], 3)])


def _extremes(rng):
    corners = np.array(list(itertools.product([-_MAXC, _MAXC], repeat=3)))
    pts = np.concatenate([corners, [[0, 0, 0], [_MAXC, 0, 0], [0, -_MAXC, 0]]])
    return _case("points at +-MAX_POINT_SEARCH_COORDINATE", pts,
                 [([-_MAXC, -_MAXC, -_MAXC], 11), ([_MAXC, _MAXC, _MAXC], 4), ([0, 0, 0], 7),
                  ([2 * _MAXC, 0, 0], 1), ([0, float(np.nextafter(np.float32(_MAXC), np.float32(np.inf))), 0], 1)])


def _subnormal(rng):
    pts = rng.integers(-8, 9, size=(50, 3)).astype(np.float64) * 2.0 ** -149
    pts[:10] *= 2.0 ** 20
    return _case("subnormal coordinates", pts, [([0, 0, 0], 12), (pts[5], 32), ([2.0 ** -140, 0, 0], 3)])


def _clustered(rng, n=120, name="tight clusters"):
    centres = rng.normal(size=(4, 3)) * 10
    pts = centres[rng.integers(0, 4, n)] + rng.normal(size=(n, 3)) * 1e-4
    return _case(name, pts, [(pts[0], 8), (centres[1], 32), (centres[2] + 1e-5, 3)])


def _uniform(rng, n=150, name="uniform cloud"):
    pts = rng.random((n, 3)) * 100 - 50
    return _case(name, pts, [(pts[7], 1), (rng.random(3) * 100 - 50, 8), (rng.random(3) * 400 - 200, 32)])


def _single(rng):
    return _case("a single point", [[1.0, 2.0, 3.0]], [([0, 0, 0], 1), ([1, 2, 3], 1), ([0, 0, 0], 2)])


def _rejected(rng):
    pts = rng.random((10, 3))
    qs = [([np.nan, 0, 0], 1), ([0, np.inf, 0], 1), ([0, 0, -np.inf], 3), ([2 * _MAXC, 0, 0], 2),
          ([0, 0, 0], 0), ([0, 0, 0], -1), ([0, 0, 0], 11), ([0, 0, 0], MAX_POINT_NEIGHBORS + 1)]
    return _case("rejected queries", pts, qs)


_SPECIALS = [_duplicates, _duplicates_count_n, _grid_with_duplicates, _small_grid_count_n,
             _permutation_ties, _far, _very_far, _extremes, _subnormal, _clustered, _uniform, _single,
             _rejected]


def _random_case(rng):
    n = int(rng.integers(1, 121))
    kind = int(rng.integers(0, 4))
    if kind == 0:
        pts = rng.random((n, 3)) * 10.0 ** rng.integers(-3, 4)
    elif kind == 1:
        c = rng.normal(size=(3, 3)) * 10.0 ** rng.integers(0, 3)
        pts = c[rng.integers(0, 3, n)] + rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-5, 0)
    elif kind == 2:
        pts = rng.integers(-3, 4, size=(n, 3)).astype(np.float64) * 0.5
    else:
        pts = 10.0 ** rng.integers(5, 9) + rng.integers(-20, 21, size=(n, 3)).astype(np.float64)
    pts = _f32(pts).astype(np.float64)
    top = min(n, MAX_POINT_NEIGHBORS)
    qs = []
    for _ in range(3):
        i, j = rng.integers(0, n, 2)
        pick = rng.random()
        q = pts[i] if pick < 0.3 else (pts[i] + pts[j]) / 2 if pick < 0.6 else \
            pts.min(0) + rng.random(3) * (pts.max(0) - pts.min(0) + 1)
        k = top if rng.random() < 0.2 else int(rng.integers(1, top + 1))
        qs.append((q, k))
    return _case(["uniform", "clustered", "half-unit lattice", "far lattice"][kind], pts, qs)


NAMED = len(_SPECIALS)


def case_at(seed: int, k: int) -> dict:
    """Corpus case ``k``: named for ``k < NAMED``, else a random cloud."""
    rng = np.random.default_rng([seed, k, 14])
    return _SPECIALS[k](rng) if k < NAMED else _random_case(rng)


def corpus_cases(seed: int, n: int) -> list:
    """``n`` point-search cases, named corner cases first. Deterministic in ``seed``."""
    return [case_at(seed, k) for k in range(n)]
