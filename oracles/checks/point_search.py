"""Point search row: ``point_search.nearest`` (Rounded), spec 002 "Point neighborhoods".

Corpus: deterministic in the seed. The first cases are named: all points duplicates (counts up
to the point count and ``MAX_POINT_NEIGHBORS``), integer grids with duplicates queried at nodes,
cell, face and edge centres (many exactly equal distances), coordinate permutations and sign
flips of one float32 vector (exact ties that a naive float64 or float32 evaluation breaks),
clouds far from the origin (1e7 on a unit lattice, and near ``2^59``), points at
``+-MAX_POINT_SEARCH_COORDINATE``, subnormal coordinates, tight clusters, a uniform cloud, a
single point, and rejected queries (nonfinite, too large, counts 0, above the point count,
above ``MAX_POINT_NEIGHBORS``). The rest are random clouds of 1 to 120 points (uniform,
clustered, lattice with duplicates, far from the origin) queried on points, between two points
(equidistant) and at random, with counts from 1 to ``min(n, MAX_POINT_NEIGHBORS)``.

Checker: the truth is every point's exact squared distance (``interval.point_search``, integers
scaled by ``2^298``). With ``b_i`` the model bound of the i-th returned distance ``d_i`` --
``U32 d + ETA32 + 8 (u d + eta)`` (the final rounding to the float32 output plus eight roundings
at the evaluator's unit roundoff ``u``: binary64 by default, ``2^-24`` for a float32 evaluator
that declares it) -- a claim is Verified when:

* it has ``count`` distinct in-range indices and ``count`` distances;
* each ``|distance_i - d_i| <= b_i`` and the distances are non-decreasing;
* exact ties are in increasing source index, among the returned points and across the cut (no
  excluded point at exactly a returned distance has a lower index);
* any other inversion -- a returned point ahead of a nearer returned point, or a returned point
  instead of a nearer excluded one -- is within ``2 b`` of the farther point's bound (both
  estimates within their bounds could then compare either way: the spec's processor band).

A query the spec rejects (count outside ``[1, min(n, MAX_POINT_NEIGHBORS)]``, a nonfinite query
or one above ``MAX_POINT_SEARCH_COORDINATE``, positions a build rejects) must claim
``InvalidArgument``. Measured: the worst of ``|error| / b`` and ``gap / 2 b`` (band use).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import gmpy2
import numpy as np

from interval.point_search import as_rational, exact_nearest, exact_squared_distances, inversion_allowed
from reference.point_search import (
    DISTANCE_ERROR_K,
    ETA32,
    MAX_POINT_NEIGHBORS,
    MAX_POINT_SEARCH_COORDINATE,
    U32,
    PointSearchTree,
)
from reference.status import GuaranteeClass as G

from .. import schema as S
from ..errormodel import Resolved, ratio, resolve
from ..family import Family, RowContract
from ..model import Claim, NumberError, enc, number_as, verified, violated

__all__ = ["FAMILY", "generate", "claims", "check_nearest", "model_bound"]

_MAXC = MAX_POINT_SEARCH_COORDINATE
_K = gmpy2.mpq(DISTANCE_ERROR_K)
_U32, _ETA32 = gmpy2.mpq(U32), gmpy2.mpq(ETA32)


# --- Corpus ----------------------------------------------------------------------------------


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


def generate(seed: int, n: int) -> list:
    """``n`` point-search cases, named corner cases first. Deterministic in ``seed``."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 14])
        cases.append(_SPECIALS[k](rng) if k < len(_SPECIALS) else _random_case(rng))
    return cases


# --- Claims from the fast path ---------------------------------------------------------------


def claims(case) -> list:
    """Build one tree on the case's points and claim every query's answer (or its status)."""
    tree = PointSearchTree()
    if not tree.build(case["positions"]).ok:
        return []
    positions = enc(case["positions"])  # shared by the case's claims
    out = []
    for q, k in case["queries"]:
        oi = np.zeros(MAX_POINT_NEIGHBORS, np.int64)
        od = np.zeros(MAX_POINT_NEIGHBORS, np.float32)
        r = tree.find_nearest(q, k, oi, od)
        if r.ok:
            value = {"indices": oi[:k].tolist(), "distances": enc(od[:k])}
        else:
            value = {"status": r.status.value}
        out.append(Claim("point_search.nearest", G.Rounded, value,
                         {"positions": positions, "query": enc(np.asarray(q, np.float64)), "count": int(k)}))
    return out


# --- Checker ---------------------------------------------------------------------------------



@lru_cache(maxsize=16)
def _positions_of(key: tuple) -> tuple:
    return tuple(tuple(number_as(x, "f32", finite=False) for x in p) for p in key)


def _positions(claim: Claim) -> tuple:
    raw = claim.inputs["positions"]
    if not isinstance(raw, list) or not raw or not all(isinstance(p, list) and len(p) == 3 for p in raw):
        raise ValueError("positions are a nonempty list of 3-vectors")
    try:
        key = tuple(tuple(p) for p in raw)
        return _positions_of(key)
    except TypeError:
        raise ValueError("positions hold numbers only") from None


def _valid_coordinates(p) -> bool:
    return all(math.isfinite(x) and abs(x) <= _MAXC for x in p)


def _request(claim: Claim):
    """``(positions, query, count, rejected)``; ``rejected`` names why the spec rejects it."""
    pos = _positions(claim)
    q = claim.inputs["query"]
    if not isinstance(q, list) or len(q) != 3:
        raise ValueError("query is a 3-vector")
    q = tuple(number_as(x, "f32", finite=False) for x in q)
    k = claim.inputs["count"]
    if not isinstance(k, int) or isinstance(k, bool):
        raise ValueError("count is an integer")
    if not all(_valid_coordinates(p) for p in pos):
        return pos, q, k, "a position the build rejects"
    if not 1 <= k <= min(len(pos), MAX_POINT_NEIGHBORS):
        return pos, q, k, "count outside [1, min(point count, MAX_POINT_NEIGHBORS)]"
    if not _valid_coordinates(q):
        return pos, q, k, "a nonfinite query or one above MAX_POINT_SEARCH_COORDINATE"
    return pos, q, k, None


def model_bound(d, u, eta):
    """The row's bound on a reported squared distance ``d`` (exact mpq): ``U32 d + ETA32 +
    8 (u d + eta)``."""
    return _U32 * d + _ETA32 + _K * (gmpy2.mpq(u) * d + gmpy2.mpq(eta))


def _resolve(claim: Claim, ds: list) -> Resolved:
    return resolve(claim, lambda u, eta: [model_bound(d, u, eta) for d in ds], constant=DISTANCE_ERROR_K)


def _g(x: float) -> str:
    return f"{x:.3g}"


def check_nearest(claim: Claim):
    """Rounded: the claimed neighbours are an exact k-nearest list up to the model's band, exact
    ties in source-index order, distances within the model bound and non-decreasing."""
    pos, q, k, rejected = _request(claim)
    value = claim.value
    if rejected is not None:
        if claim.model:  # a declared model must still be applicable: validate its shape
            resolve(claim, lambda u, eta: [0] * (k if isinstance(k, int) and 1 <= k <= MAX_POINT_NEIGHBORS else 1),
                    constant=DISTANCE_ERROR_K)
        if value.get("status") == "InvalidArgument":
            return verified(claim, measure="error_ratio", measured=0, note=f"rejected: {rejected}")
        return violated(claim, {"expected": "InvalidArgument", "why": rejected, "claimed": value},
                        note=f"the spec rejects this request ({rejected}): InvalidArgument expected")
    D = exact_squared_distances(pos, q)
    truth = exact_nearest(D, k)
    expected = {"indices": truth, "distances": [enc(as_rational(D[j])) for j in truth]}
    if "status" in value:
        return violated(claim, {"expected": expected, "claimed": value},
                        note=f"a valid request answered with status {value['status']}")
    idx, raw = value["indices"], value["distances"]
    if not isinstance(idx, list) or not isinstance(raw, list) or not all(
            isinstance(j, int) and not isinstance(j, bool) for j in idx):
        raise ValueError("indices is a list of integers and distances a list of numbers")
    if len(idx) != k or len(raw) != k or len(set(idx)) != k or not all(0 <= j < len(pos) for j in idx):
        why = f"not {k} distinct indices in [0, {len(pos)}) with {k} distances"
        return violated(claim, {"expected": expected, "claimed": value, "why": why}, note=why)
    try:
        dist = [number_as(x, "f32", finite=False) for x in raw]
    except NumberError as e:
        raise ValueError(f"distances: {e}") from None
    d = [as_rational(D[j]) for j in idx]
    r = _resolve(claim, d)
    b = r.bound
    extra = r.extra()
    if not all(math.isfinite(x) for x in dist):
        return violated(claim, {"expected": expected, "claimed": value, "why": "a nonfinite distance"},
                        measure="error_ratio", note="a nonfinite distance", **extra)
    worst = 0.0
    for i in range(k):
        err = abs(gmpy2.mpq(dist[i]) - d[i])
        worst = max(worst, ratio(err, b[i]))
        if err > b[i]:
            return violated(claim, {"expected": expected, "claimed": value, "position": i,
                                    "bound": enc(b[i]), "why": "a distance outside its bound"},
                            measure="error_ratio", measured=ratio(err, b[i]), bound_use=ratio(err, b[i]),
                            note=f"squared distance {i} (point {idx[i]}) is {_g(ratio(err, b[i]))} times "
                                 "its bound away from the exact one", **extra)
    if any(dist[i + 1] < dist[i] for i in range(k - 1)):
        return violated(claim, {"expected": expected, "claimed": value, "why": "distances decrease"},
                        measure="error_ratio", measured=worst, bound_use=worst,
                        note="the claimed distances decrease", **extra)
    # order among the returned points
    for i in range(k):
        for j in range(i + 1, k):
            a, c = idx[i], idx[j]
            if D[a] == D[c]:
                if a > c:
                    return violated(claim, {"expected": expected, "claimed": value, "positions": [i, j],
                                            "why": "an exact tie out of source-index order"},
                                    note=f"points {a} and {c} tie exactly but are not in source-index order",
                                    **extra)
            elif D[a] > D[c]:
                worst = max(worst, ratio(d[i] - d[j], 2 * b[i]))
                if not inversion_allowed(d[i], d[j], b[i]):
                    return violated(claim, {"expected": expected, "claimed": value, "positions": [i, j],
                                            "why": "a farther point ahead of a nearer one beyond the band"},
                                    measure="error_ratio", measured=ratio(d[i] - d[j], 2 * b[i]),
                                    bound_use=ratio(d[i] - d[j], 2 * b[i]),
                                    note=f"point {a} is listed before the nearer point {c}, beyond the band",
                                    **extra)
    # membership: no excluded point is nearer beyond the band or an exact tie with a lower index
    chosen = set(idx)
    top = max(D[j] for j in idx)
    tie_max = {}
    for j in idx:
        tie_max[D[j]] = max(tie_max.get(D[j], -1), j)
    for c in range(len(pos)):
        if c in chosen or D[c] > top:
            continue
        if D[c] in tie_max and c < tie_max[D[c]]:
            return violated(claim, {"expected": expected, "claimed": value, "excluded": c,
                                    "why": "an excluded exact tie has a lower source index"},
                            note=f"point {c} ties exactly with a returned point of higher source index but is left out",
                            **extra)
        dc = as_rational(D[c])
        for i, a in enumerate(idx):
            if D[a] > D[c]:
                worst = max(worst, ratio(d[i] - dc, 2 * b[i]))
                if not inversion_allowed(d[i], dc, b[i]):
                    return violated(claim, {"expected": expected, "claimed": value, "excluded": c,
                                            "position": i, "why": "a nearer point left out beyond the band"},
                                    measure="error_ratio", measured=ratio(d[i] - dc, 2 * b[i]),
                                    bound_use=ratio(d[i] - dc, 2 * b[i]),
                                    note=f"point {c}, nearer than the returned point {a} beyond the band, is left out",
                                    **extra)
    return verified(claim, measure="error_ratio", measured=worst, bound_use=worst,
                    note=f"the {k} nearest of {len(pos)} points: squared distances within their bounds "
                         f"(at most {_g(worst)} of one), order and membership exact up to the band",
                    **extra)


# --- Contract --------------------------------------------------------------------------------


def _plant(c: Claim) -> Claim:
    if "status" in c.value:  # an answer where the spec demands a rejection
        value = {"indices": [0], "distances": [enc(0.0)]}
    else:
        # the nearest distance doubled and moved one unit further: far outside any bound
        dist = list(c.value["distances"])
        x = number_as(dist[0], "f32", finite=False)
        dist[0] = enc(float(np.float32(2.0 * x + 1.0)))
        value = {**c.value, "distances": dist}
    return Claim(c.row, c.guarantee, value, c.inputs, c.model)


CONTRACTS = {
    "point_search.nearest": RowContract(
        checks="against exact rational squared distances of every point (brute force): count distinct "
               "in-range indices; |distance_i - d_i| <= b_i = 2^-24 d_i + 2^-149 + 8 (u d_i + eta) (u, eta "
               "of the declared model, else binary64; k scales the 8), distances non-decreasing; exact ties "
               "in increasing source index, also across the cut; any other inversion (a farther point ahead "
               "of or instead of a nearer one) within 2 b of the farther point; a rejected request "
               "(count outside [1, min(n, 32)], nonfinite or |q| > 2^60 query, rejected positions) claims "
               "InvalidArgument; model components: one per returned neighbour.",
        inputs=S.obj(required={"positions": S.array(S.vec(S.f32(), 3), min_items=1),
                               "query": S.vec(S.f32(finite=False), 3),
                               "count": S.integer()}),
        value=S.any_of(S.obj(required={"indices": S.array(S.integer(minimum=0)),
                                       "distances": S.array(S.f32(finite=False))}),
                       S.obj(required={"status": S.enum(["InvalidArgument"])})),
        model=S.MODEL, plant=_plant),
}


FAMILY = Family(
    name="point_search",
    default_cases=300,
    generate=generate,
    claims=claims,
    checkers={"point_search.nearest": check_nearest},
    contracts=CONTRACTS,
    oracle_precisions=(),
)
