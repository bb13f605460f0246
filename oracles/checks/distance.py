"""Distance rows: leaf and total length bounds, prefix bounds, inversion residual (Certified)
and TotalEstimate / PrefixEstimate / DistanceBound.Estimate (Estimated).

Corpus: deterministic in the seed. The first cases are named shapes that real faults need to be
seen (see ``SPECIALS``): exactly straight spans far from the chunk origin queried at
non-dyadic parameters (where a chord or polygon without its subsegment widening crosses the
truth), nearly straight spans, lines whose parameter reverses (at rational and irrational u),
powers of two, a fractional origin (inexact source - origin),
zero-length runs at the start, inside and at the end, targets on
and one float beside every stored boundary estimate (and just below span ends, where a
bisection ends at u = 1), a distance_error just below the Certified gap of a map that met a
looser one (where only the upward-rounded path-order recheck keeps the accepted gap within it), a zero-speed ease endpoint, an
interior cusp and a near-cusp, a closed path with Wrap targets, a path far from the world
origin, a tiny path. The rest are random chains of 1 to 4 spans with ``distance_error`` between
1e-5 and 1e-2 of the path's length.

Oracles. Arc lengths are enclosed by Arb's rigorous Gauss-Legendre integration
(``interval.arb_arclength``, the default: about 10 times faster per piece) and cross-checked against the
Taylor oracle with its Cauchy remainder (``interval.arclength``): every piece either oracle is
asked for (a whole span, a leaf, a partial span ``[0, u]``) is enclosed by both whenever it is
cross-checked (``CROSS_CHECK``: every piece with a zero-speed point or on a line, and a
deterministic 1-in-8 sample of the others), and disjoint enclosures are an ``OracleFault`` verdict, never a silent choice. Where
Arb misses its width, the Taylor enclosure is used. Precision and width are refined through
``BUDGET``.

* ``distance.length_bounds`` / ``distance.prefix_bounds``: the true length (of a leaf
  ``[u0, u1]`` of one span, or the prefix ``L(span, u)``) lies in ``[lower, upper]``, and the
  total's width is at most ``distance_error`` (the build's acceptance, after its path-order
  recheck); a leaf is a dyadic ``[j 2^-d, (j + 1) 2^-d]`` (midpoint splits). Measured ``(upper - lower) / distance_error``; bound use: how far the truth sits
  from the interval's centre towards an end (1 at an end).
* ``distance.inversion_residual``: ``|L(parameter) - target| <= residual_bound <=
  distance_error`` with the target recomputed exactly from the query, and the resolution
  rules of TryResolveDistance: the path end resolves to the last span at u = 1, an exact
  boundary names the outgoing span at u = 0, a zero-length run resolves to its earliest
  parameter, and (when the claim carries its lookup witness) the first stored boundary whose
  estimate reaches the target is the one found, a target equal to it resolves to it exactly,
  and the bisection's last short parameter (within float resolution before the result) falls
  short of the target while the result's estimate reaches it; the Certified bound at the
  result encloses the truth and lies within the residual bound of the target. Measured
  ``|L - target| / residual_bound`` (also the bound use).
* ``distance.estimates``: ``lower <= estimate <= upper`` and the truth inside ``[lower,
  upper]``. Measured ``|estimate - L| / L``; bound use: the estimate's distance from the
  interval's centre towards an end.
"""

from __future__ import annotations

import bisect
import functools
import math
import zlib

import gmpy2
import numpy as np

from interval.arb_arclength import enclose_arc_length_arb
from interval.arclength import enclose_arc_length
from interval.context import IV, lower, to_mpq, upper
from mpmath import iv
from reference.distance import (
    DistancePreparation,
    DistanceQuery,
    try_bound_distance,
    try_build_distance_map,
    try_resolve_distance,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import (
    BoundaryPolicy,
    GuaranteeClass as G,
    PathDistance,
    SegmentParameter,
    ToleranceProfile,
    WorkLimits,
)

from .. import schema as S
from ..decide import DEFAULT_BUDGET, Decision, enclosures_overlap, refine
from ..errormodel import ratio
from ..family import Family, RowContract
from ..model import Claim, dec, dec_array, enc, oracle_fault, undecided, verified, violated

__all__ = ["FAMILY", "BUDGET", "REL_WIDTH", "LIMITS", "CROSS_CHECK", "RESOLUTION", "tolerance", "generate",
           "claims", "check_length_bounds", "check_prefix_bounds", "check_inversion_residual",
           "check_estimates", "CONTRACTS", "plant_bounds", "plant_inversion", "plant_estimate",
           "OracleDisagreement", "arc_length", "prefix_length"]

# Interval precisions the checkers may spend, and the relative enclosure width asked at each.
BUDGET = DEFAULT_BUDGET
REL_WIDTH = {113: 1e-15, 256: 1e-24, 1024: 1e-40}

# The Taylor cross-check: its precision and width, and the deterministic sample of smooth pieces
# it covers (1 in ``sample``; docs/decisions.md "Arc length: two oracles").
CROSS_PREC, CROSS_WIDTH = 113, 1e-15
CROSS_CHECK = {"sample": 8}

# TryResolveDistance's bisection stops at adjacent floats or a bracket narrower than this.
RESOLUTION = 2.0**-60

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 18, max_depth=48,
                    max_subdivisions=1 << 18, max_prepared_bytes=1 << 28, max_samples=64)

_mpq = gmpy2.mpq


def tolerance(distance_error: float, position_error: float) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
        continuity_position=position_error, continuity_angle=1e-3, continuity_derivative=1e-3,
        continuity_second_derivative=1e-3, distance_error=distance_error, projection_gap=1e-3,
        tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
        normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


# --- Corpus ----------------------------------------------------------------------------------


def _chain(rng, n, size, start=None):
    pts = np.empty((n, 4, 3))
    p0 = np.zeros(3) if start is None else np.asarray(start, dtype=np.float64)
    for i in range(n):
        pts[i, 0] = p0
        pts[i, 1:] = p0 + np.cumsum(rng.normal(size=(3, 3)) * size, axis=0)
        p0 = pts[i, 3]
    return pts


def _polygon_length(src) -> float:
    return float(np.sum(np.linalg.norm(np.diff(src, axis=1), axis=2)))


def _case(name, src, rel_error, closed=False, origin=(0.0, 0.0, 0.0), extra_targets=(), probes=(),
          distance_error=None):
    src = np.asarray(src, dtype=np.float64)
    L = max(_polygon_length(src), 1e-9)
    # Well above the float32 position floor (about 2.4e-7 of the largest chunk-relative
    # coordinate): distance maps, not the floor, are under test here.
    E = float(np.max(np.abs(src - np.asarray(origin, dtype=np.float64))))
    err = max(float(L * rel_error), 1e-12) if distance_error is None else float(distance_error)
    return {"name": name, "source": src, "closed": bool(closed), "origin": tuple(map(float, origin)),
            "distance_error": err, "extra_targets": list(extra_targets), "probes": list(probes),
            "position_error": max(1e-5 * E, 1e-30)}


def _line(a, d, steps=(0, 1, 2, 3)):
    """Controls ``a + k d``: exactly straight and uniformly parametrized when every product
    and sum is exact (small integers times powers of two)."""
    return np.stack([np.asarray(a, float) + k * np.asarray(d, float) for k in steps])


def _non_dyadic(rng, n):
    """``n`` parameters in (0, 1) with long binary expansions: decimal fractions, then random."""
    fixed = [1 / 3, 0.1, 0.7, 2 / 3, 0.9]
    return (fixed + [float(u) for u in rng.random(max(0, n - len(fixed)))])[:n]


def _straight_far(rng):
    # Exactly straight 3D spans at chunk-relative coordinates near 1.2e4 (exact float32): the
    # chord and the polygon equal the arc, so only the subsegment widening keeps the computed
    # brackets of partial spans (non-dyadic u) on the right side of the truth.
    a = np.array([12288.0, -8192.0, 4096.0]) + rng.integers(-64, 64, 3)
    d1 = rng.integers(1, 16, 3) * 0.25
    d2 = rng.integers(-16, 16, 3) * 0.125
    s1 = _line(a, d1)
    s2 = _line(s1[3], d2)
    s3 = _line(s2[3], np.array([0.0, 0.0, 1.5]))
    probes = [(i % 3, u) for i, u in enumerate(_non_dyadic(rng, 12))]
    fr = [("fraction", f) for f in (1 / 3, 0.1, 0.55, 0.9, 2 / 3, 0.123456789)]
    return _case("straight spans far from the origin", np.stack([s1, s2, s3]), 1e-9, extra_targets=fr,
                 probes=probes)


def _straight_axis(rng):
    # Straight along y, short, at large constant x and z: the chord's x and z intervals
    # straddle zero within the widening (2 e_x is about 4e-9 here), so their smallest
    # magnitude must be taken as 0, or the chord lower bound passes the true length.
    x, z = 2.0**20 + float(rng.integers(0, 64)), -(2.0**19)
    s = _line([x, 0.0, z], [0.0, 2.0**-9, 0.0])
    return _case("short straight span along an axis far from the origin", s[None], 1e-9,
                 extra_targets=[("fraction", f) for f in (0.3, 0.6)],
                 probes=[(0, u) for u in _non_dyadic(rng, 6)])


def _nearly_straight(rng):
    a = rng.uniform(-1, 1, 3) * 3e3
    d = rng.normal(size=3)
    src = np.stack([_line(a, d), _line(a + 3 * d, d * 0.75)])
    src[:, 1:3] += rng.normal(size=(2, 2, 3)) * 1e-4  # bends far below the length
    src[1, 0] = src[0, 3]
    return _case("nearly straight spans far from the origin", src, 1e-8,
                 extra_targets=[("fraction", f) for f in (0.2, 0.45, 0.8)],
                 probes=[(i % 2, u) for i, u in enumerate(_non_dyadic(rng, 8))])


def _reversing_lines(rng):
    # Spans along a line whose parameter reverses: at u = 1/4 and 3/4 (x controls 0, 3, -2, 1:
    # B' is proportional to (4u - 1)(4u - 3)) and at u = 1/sqrt 2 (0, -1, -2, -1). The arc
    # length is the total variation, not the chord.
    d1 = np.array([1.0, 2.0, 2.0]) * 0.5
    d2 = np.array([0.0, 3.0, -4.0]) * 0.25
    a = np.array([64.0, -32.0, 16.0])
    s1 = a + np.array([0.0, 3.0, -2.0, 1.0])[:, None] * d1
    s2 = s1[3] + np.array([0.0, -1.0, -2.0, -1.0])[:, None] * d2
    return _case("lines that reverse", np.stack([s1, s2]), 1e-5,
                 extra_targets=[("fraction", f) for f in (0.2, 0.5, 0.8)],
                 probes=[(0, 0.25), (0, 0.6), (1, 0.7071), (1, 0.9)])


def _powers_of_two(rng):
    # Controls at powers of two (magnitudes exactly at binade edges), a power-of-two
    # distance_error and power-of-two targets.
    src = np.array([[[0.0, 0, 0], [1.0, 0, 0], [2.0, 2, 0], [4.0, 4, 0]],
                    [[4.0, 4, 0], [8.0, 4, 0], [8.0, 8, 4], [16.0, 8, 8]]])
    return _case("powers of two", src, 0.0, distance_error=2.0**-12,
                 extra_targets=[("fraction", 2.0**-k) for k in (1, 2, 3, 5)],
                 probes=[(0, 0.5), (1, 0.25), (1, 0.75), (0, 2.0**-20)])


def _fractional_origin(rng):
    src = _chain(rng, 2, 1.3, start=np.array([100.1, 200.2, -300.3]))
    return _case("fractional origin", src, 1e-6, origin=(100.1, 200.3, -300.7),
                 probes=[(k, u) for k, u in ((0, 0.1), (1, 1 / 3), (1, 0.7))])


def _zero_runs(rng):
    # Zero-length runs at the start (one span), inside (two spans) and at the end (one span).
    mv = _chain(rng, 2, 1.0)
    p0, p1, p2 = mv[0, 0], mv[0, 3], mv[1, 3]
    still = lambda p: np.stack([p] * 4)
    src = np.stack([still(p0), mv[0], still(p1), still(p1), mv[1], still(p2)])
    return _case("zero-length runs at the start, inside and at the end", src, 1e-4,
                 extra_targets=[("boundary", i) for i in range(0, 400, 3)] + [("fraction", 0.5)],
                 probes=[(0, 0.5), (2, 0.25), (3, 1.0), (5, 0.5)])


def _boundary_neighbours(rng):
    # Targets on every stored boundary estimate and one float either side; just below span
    # ends the bisection can end at u = 1 (an exact boundary then names the outgoing span).
    return _case("targets on and beside stored boundaries", _chain(rng, 3, 1.0), 1e-3,
                 extra_targets=[("boundary", i) for i in range(0, 400, 5)]
                 + [("beside", i) for i in range(0, 400, 5)])


def _recheck(rng):
    # distance_error just below the exact Certified gap TotalUpper - TotalLower of a build that
    # met a looser one: at that leaf set the running float sum of gaps (and its fsum refresh)
    # meets it, but the path-order Certified gap does not, so only an upward-rounded recheck
    # keeps the accepted total within distance_error.
    src = _chain(rng, 3, 1.0)
    case = _case("distance_error just below the Certified gap", src, 1e-4)
    prep = _prepare(case)
    if prep.ok:
        built = try_build_distance_map(prep.value.view(), DistancePreparation(LIMITS))
        if built.ok:
            v = built.value.view()
            gap = to_mpq(v.total_upper) - to_mpq(v.total_lower)
            err = float(gap)
            if to_mpq(err) >= gap:
                err = float(np.nextafter(err, -np.inf))
            if err > math.fsum((v.leaf_upper - v.leaf_lower).tolist()):
                case["distance_error"] = err
    return case


def _ease(rng):
    src = _chain(rng, 2, 1.0)
    src[0, 1] = src[0, 0]  # zero speed at the start
    src[1, 2] = src[1, 3]  # and at the end
    return _case("zero-speed ease endpoints", src, 1e-4)


def _stationary(rng):
    src = _chain(rng, 3, 1.0)
    p = src[1, 0].copy()
    src[1] = p  # a stationary span: all four controls equal
    src[2] += p - src[2, 0]
    return _case("stationary span", src, 1e-4)


def _closed(rng):
    src = _chain(rng, 3, 1.0)
    src[-1, 3] = src[0, 0]
    return _case("closed path", src, 1e-4, closed=True, extra_targets=[("wrap", f) for f in (-0.25, 1.5, 7.25, -3.0, 1e6 + 0.3, -(2.0**40) - 0.6)])


def _straight(rng):
    a, b, c = rng.normal(size=(3, 3)) * 4
    src = np.stack([np.stack([a, a + (b - a) / 4, a + 3 * (b - a) / 4, b]),
                    np.stack([b, b + (c - b) / 3, b + 2 * (c - b) / 3, c])])
    return _case("straight segments", src, 1e-6)


def _cusp(rng):
    s = float(10.0 ** rng.uniform(-1, 1))
    src = np.array([[[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]]], dtype=np.float64) * s
    return _case("interior cusp", src, 1e-4, probes=[(0, 0.5), (0, 0.4999), (0, 0.3)])


def _near_cusp(rng):
    # A planar span whose speed nearly vanishes (a root of |B'|^2 at 4e-4 from the real axis).
    src = np.array([[[0, 53.88261032104492, 0], [0, 66, 88], [0, 32, 72], [0, 92, 0]]])
    return _case("near-cusp", src, 1e-5, probes=[(0, 0.4752), (0, 0.47529), (0, 0.6)])


def _far(rng):
    base = rng.uniform(-1, 1, 3) * 1e5
    src = _chain(rng, 2, 10.0, start=base)
    return _case("far from the world origin", src, 1e-4, origin=tuple(np.round(base)))


def _tiny(rng):
    return _case("tiny path", _chain(rng, 2, 1e-3), 1e-3)


def _tight(rng):
    return _case("tight distance_error", _chain(rng, 1, 1.0), 1e-7)


def _random_case(rng):
    n = int(rng.integers(1, 5))
    size = float(10.0 ** rng.uniform(-2, 2))
    closed = bool(rng.random() < 0.15)
    src = _chain(rng, n, size)
    if closed:
        src[-1, 3] = src[0, 0]
    return _case("random", src, float(10.0 ** rng.uniform(-5, -2)), closed=closed)


# Named shapes first (the adversarial ones early), then random chains.
SPECIALS = (_straight_far, _zero_runs, _boundary_neighbours, _recheck, _straight_axis, _nearly_straight,
            _reversing_lines, _powers_of_two, _fractional_origin, _ease, _stationary, _closed, _straight, _cusp,
            _near_cusp, _far, _tiny, _tight)


def generate(seed: int, n: int) -> list:
    """``n`` distance cases, named corner cases first. Deterministic in ``seed``."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 5])
        cases.append(SPECIALS[k](rng) if k < len(SPECIALS) else _random_case(rng))
    return cases


# --- Claims from the fast path ---------------------------------------------------------------


def _prepare(case):
    spans = spans_from_arrays(case["source"], np.ones(case["source"].shape[0]))
    return try_prepare_path(PathSource(spans, revision=1, is_closed=case["closed"]),
                            PathPreparation(tolerance(case["distance_error"], case["position_error"]),
                                            LIMITS, case["origin"]))


def _boundary_at(dmap, n: int, b: int) -> dict:
    """Stored boundary ``b`` (0..m) as ``{span, u, estimate}``; boundary m is the path end."""
    m = dmap.leaf_count
    at = (int(dmap.leaf_span[b]), float(dmap.leaf_u0[b])) if b < m else (n - 1, 1.0)
    return {"span": at[0], "u": enc(at[1]), "estimate": enc(dmap.prefix_estimate[b])}


def _resolution_witness(path, dmap, res) -> dict:
    """What the resolution's own map and outputs show about its lookup: the stored boundaries
    before and after the result (``after``: the first boundary at or past it), and for a
    bisected result the bisection's last short parameter, ``hi - (leaf width) 2^-iterations``
    (the bracket halves exactly from the leaf), with its estimate."""
    n, m = path.span_count, dmap.leaf_count
    k, u = res.parameter.span_index, res.parameter.u
    # Boundary parameters in path order; (k, 1) of an interior span is (k + 1, 0).
    keys = [(int(dmap.leaf_span[b]), float(dmap.leaf_u0[b])) for b in range(m)] + [(n - 1, 1.0)]
    key = (k + 1, 0.0) if (u == 1.0 and k < n - 1) else (k, u)
    after = min(bisect.bisect_left(keys, key), m)
    out = {"after": _boundary_at(dmap, n, after)}
    if after > 0:
        out["before"] = _boundary_at(dmap, n, after - 1)
    bisected = not (keys[after] == key and float(dmap.prefix_estimate[after]) == res.distance.value) \
        and res.distance.value != dmap.total_estimate and after > 0
    short = None
    if bisected:
        i = after - 1
        ks, a, b = int(dmap.leaf_span[i]), float(dmap.leaf_u0[i]), float(dmap.leaf_u1[i])
        hi = 1.0 if ks != k else u
        lo = hi - (b - a) * 2.0**-res.iterations
        bd = try_bound_distance(path, dmap, SegmentParameter(ks, lo))
        if bd.ok:
            short = {"span": ks, "u": enc(lo), "estimate": enc(bd.value.estimate)}
    return out, short


def claims(case) -> list:
    """Run the fast path on one case and return its claims."""
    prep = _prepare(case)
    if not prep.ok:
        return []
    path = prep.value.view()
    built = try_build_distance_map(path, DistancePreparation(LIMITS))
    if not built.ok:
        return []
    dmap = built.value.view()
    rng = np.random.default_rng(zlib.crc32(case["name"].encode() + case["source"].tobytes()))  # stable
    C = enc(path.controls)
    E = enc(dmap.distance_error)
    base = {"controls": C, "distance_error": E}  # inputs hold exactly what the checkers read
    out = []

    def interval(row, lo, hi, inputs):
        out.append(Claim(row, G.Certified, {"lower": enc(lo), "upper": enc(hi)}, {**base, **inputs}))

    def estimate(est, lo, hi, inputs, what):
        out.append(Claim("distance.estimates", G.Estimated, {"estimate": enc(est)},
                         {"controls": C, **inputs, "lower": enc(lo), "upper": enc(hi), "what": what}))

    m = dmap.leaf_count
    n = path.span_count
    # Total and a sample of leaves (the widest gap, the first, the last, one at random).
    total_at = {"span": n - 1, "u": enc(1.0)}
    interval("distance.length_bounds", dmap.total_lower, dmap.total_upper, {"range": "total", **total_at})
    estimate(dmap.total_estimate, dmap.total_lower, dmap.total_upper, {"range": "total", **total_at}, "TotalEstimate")
    gaps = dmap.leaf_upper - dmap.leaf_lower
    for i in sorted({int(np.argmax(gaps)), 0, m - 1, int(rng.integers(0, m))}):
        leaf = {"range": "leaf", "span": int(dmap.leaf_span[i]), "u0": enc(dmap.leaf_u0[i]),
                "u1": enc(dmap.leaf_u1[i])}
        interval("distance.length_bounds", dmap.leaf_lower[i], dmap.leaf_upper[i], leaf)
        estimate(dmap.leaf_estimate[i], dmap.leaf_lower[i], dmap.leaf_upper[i], leaf, "leaf estimate")
    # Prefix bounds: stored boundaries and TryBoundDistance at random parameters.
    for i in sorted({0, int(rng.integers(0, m + 1)), int(rng.integers(0, m + 1)), m}):
        at = ({"span": int(dmap.leaf_span[i]), "u": enc(dmap.leaf_u0[i])} if i < m
              else {"span": n - 1, "u": enc(1.0)})
        interval("distance.prefix_bounds", dmap.prefix_lower[i], dmap.prefix_upper[i], at)
        estimate(dmap.prefix_estimate[i], dmap.prefix_lower[i], dmap.prefix_upper[i], at, "PrefixEstimate")
    probes = [(int(rng.integers(0, n)), float(rng.random())) for _ in range(3)]
    probes += [(k % n, float(u)) for k, u in case.get("probes", ())]
    for k, u in probes:
        r = try_bound_distance(path, dmap, SegmentParameter(k, u))
        if not r.ok:
            continue
        b = r.value
        at = {"span": k, "u": enc(u)}
        interval("distance.prefix_bounds", b.lower, b.upper, at)
        estimate(b.estimate, b.lower, b.upper, at, "DistanceBound.Estimate")
    # Inversion: boundary estimates exactly, both ends, random targets, outside targets.
    T = dmap.total_estimate
    pe = dmap.prefix_estimate
    targets = [(float(pe[int(rng.integers(0, m + 1))]), BoundaryPolicy.Reject),
               (0.0, BoundaryPolicy.Reject), (T, BoundaryPolicy.Reject),
               (float(rng.random() * T), BoundaryPolicy.Reject), (float(rng.random() * T), BoundaryPolicy.Reject),
               (-1.0 - T, BoundaryPolicy.Clamp), (2.0 * T + 1.0, BoundaryPolicy.Clamp),
               (-0.5, BoundaryPolicy.Reject), (1.5 * T + 1.0, BoundaryPolicy.Reject)]  # InvalidDomain: no claim
    # Every interior span end: the bisection ends at u = 1 (renamed to the outgoing span) for a
    # target just above the estimate at the last float before it, when that is below the end's
    # stored estimate.
    extra = list(case["extra_targets"]) + [("span end", k) for k in range(n - 1)]
    for kind, x in extra:
        if kind == "boundary" and x <= m:
            targets.append((float(pe[x]), BoundaryPolicy.Reject))
        elif kind == "beside" and x <= m:
            targets += [(float(np.nextafter(pe[x], -np.inf)), BoundaryPolicy.Clamp),
                        (float(np.nextafter(pe[x], np.inf)), BoundaryPolicy.Clamp)]
        elif kind == "span end" and x < n - 1:
            j = int(dmap.span_first_leaf[x + 1])
            last = try_bound_distance(path, dmap, SegmentParameter(x, float(np.nextafter(1.0, 0.0))))
            if last.ok:
                t = float(np.nextafter(last.value.estimate, np.inf))
                if t < pe[j]:
                    targets.append((t, BoundaryPolicy.Clamp))
        elif kind == "wrap" and path.is_closed:
            targets.append((float(x * T), BoundaryPolicy.Wrap))
        elif kind == "fraction":
            targets.append((float(x * T), BoundaryPolicy.Clamp))
    for s, policy in targets:
        r = try_resolve_distance(path, dmap, DistanceQuery(PathDistance(s), policy, 128))
        if not r.ok:
            continue  # failures are statuses, evidenced by the unit tests
        at = r.value
        lookup, short = _resolution_witness(path, dmap, at)
        value = {"residual_bound": enc(at.residual_bound), "distance": enc(at.distance.value),
                 "bound": {"lower": enc(at.bound.lower), "upper": enc(at.bound.upper),
                           "estimate": enc(at.bound.estimate)},
                 "lookup": lookup}
        if short is not None:
            value["short"] = short
        out.append(Claim("distance.inversion_residual", G.Certified, value,
                         {**base, "span": at.parameter.span_index, "u": enc(at.parameter.u),
                          "query": enc(s), "policy": policy.value, "total_estimate": enc(T)}))
    return out


# --- The two oracles -------------------------------------------------------------------------


class OracleDisagreement(Exception):
    """The Arb and Taylor oracles enclosed the same arc length in disjoint intervals."""

    def __init__(self, piece: str, arb_value, taylor_value):
        super().__init__(f"disjoint enclosures of {piece}")
        self.piece, self.arb, self.taylor = piece, arb_value, taylor_value


def _cross_checked(P: np.ndarray, u0: float, u1: float, kind: str) -> bool:
    """Every piece whose speed vanishes somewhere or that lies on a line (Arb's ``kind`` is not
    ``smooth``: there the Taylor oracle uses its crude zero-speed enclosures and Arb its exact
    factorization, so the two methods differ most), and any other piece when the crc32 of its
    controls and range is 0 modulo the sample (the same pieces in every run)."""
    if kind != "smooth":
        return True
    key = zlib.crc32(np.ascontiguousarray(P, dtype=np.float32).tobytes() + np.array([u0, u1], np.float64).tobytes())
    return key % CROSS_CHECK["sample"] == 0


def arc_length(P: np.ndarray, u0: float, u1: float, prec: int):
    """The arc length of ``[u0, u1]`` of the span ``P`` as an ``iv.mpf``: Arb's enclosure,
    cross-checked against the Taylor oracle where :data:`CROSS_CHECK` says (raises
    :class:`OracleDisagreement` when they are disjoint); the Taylor enclosure at ``prec`` when
    Arb misses its width. Certified."""
    P = np.ascontiguousarray(P, dtype=np.float32)
    return _arc_length(P.tobytes(), float(u0), float(u1), int(prec))


@functools.lru_cache(maxsize=1 << 15)
def _arc_length(key: bytes, u0: float, u1: float, prec: int):
    P = np.frombuffer(key, dtype=np.float32).reshape(4, 3)
    piece = f"[{u0!r}, {u1!r}] of span {P.tolist()}"
    a = enclose_arc_length_arb(P, u0, u1, prec, REL_WIDTH[prec])
    if _cross_checked(P, u0, u1, a.kind):
        t = enclose_arc_length(P, u0, u1, CROSS_PREC, CROSS_WIDTH)
        if a.value is not None and not enclosures_overlap(a.value, t.value):
            raise OracleDisagreement(piece, a.value, t.value)
    if a.value is not None and a.reached:
        return a.value
    t = enclose_arc_length(P, u0, u1, prec, REL_WIDTH[prec])
    if a.value is not None and not enclosures_overlap(a.value, t.value):
        raise OracleDisagreement(piece, a.value, t.value)
    return t.value if (a.value is None or t.reached) else a.value


def prefix_length(C: np.ndarray, k: int, u: float, prec: int):
    """The prefix arc length ``L(k, u)`` of the path with span controls ``C`` (iv.mpf). Certified."""
    with IV(prec).scope():
        total = iv.mpf(0)
        for j in range(k):
            total = total + arc_length(C[j], 0.0, 1.0, prec)
        return total + arc_length(C[k], 0.0, u, prec)


class _Enclosure:
    """The shape ``oracles.explain`` reads: ``.value`` is the enclosure."""

    def __init__(self, value):
        self.value = value


def _oracle_faults(check):
    """A checker whose oracles disagree answers ``OracleFault``, naming both enclosures."""

    @functools.wraps(check)
    def wrapped(claim: Claim):
        try:
            return check(claim)
        except OracleDisagreement as e:
            return oracle_fault(claim, {"arb": _enc_iv(e.arb), "taylor": _enc_iv(e.taylor)},
                                note=f"Arb and Taylor enclosures of {e.piece} are disjoint")

    return wrapped


# --- Checkers --------------------------------------------------------------------------------


def _controls(claim: Claim) -> np.ndarray:
    C = dec_array(claim.inputs["controls"], np.float32)
    if C.ndim != 3 or C.shape[1:] != (4, 3) or C.shape[0] < 1:
        raise ValueError("controls must be float32 (n, 4, 3)")
    return C


def _at(claim: Claim, C: np.ndarray) -> tuple[int, float]:
    k = claim.inputs["span"]
    u = dec(claim.inputs["u"])
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < C.shape[0] or not 0.0 <= u <= 1.0:
        raise ValueError("span index or u out of range")
    return k, u


def _truth(claim: Claim):
    """``enclose(prec)``, whose ``.value`` encloses the quantity a claim speaks of."""
    C = _controls(claim)
    if claim.inputs.get("range") == "total":
        k, u = _at(claim, C)
        if k != C.shape[0] - 1 or u != 1.0:
            raise ValueError("a total length is the prefix at the path end: span n - 1, u = 1")
    if claim.inputs.get("range") == "leaf":
        k = claim.inputs["span"]
        u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
        if not isinstance(k, int) or not 0 <= k < C.shape[0] or not 0.0 <= u0 <= u1 <= 1.0:
            raise ValueError("leaf span or range out of range")
        return lambda prec: _Enclosure(arc_length(C[k], u0, u1, prec))
    k, u = _at(claim, C)
    return lambda prec: _Enclosure(prefix_length(C, k, u, prec))


def _interval(claim: Claim, lo_key="lower", hi_key="upper", src=None):
    src = claim.value if src is None else src
    lo, hi = dec(src[lo_key]), dec(src[hi_key])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("bounds must be finite")
    return to_mpq(lo), to_mpq(hi)


def _enc_iv(x) -> list:
    return [enc(lower(x)), enc(upper(x))]


def _position(lo, hi, a, b) -> float:
    """How far ``[a, b]`` reaches from the centre of ``[lo, hi]`` towards its nearer end, in
    half-widths: 0 at the centre, 1 at an end, above 1 outside. A lower end of exactly 0 is
    not counted (a length cannot fall below it: a stationary span's [0, 0] bound is tight by
    nature, not close to failing); a zero-width interval that holds the point exactly is 0."""
    c = (lo + hi) / 2
    reach = max(b - c, c - a if lo != 0 else _mpq(0), _mpq(0))
    return ratio(reach, (hi - lo) / 2)


def _decide_inside(claim: Claim, lo, hi) -> Decision:
    """Whether the claim's true length lies in the exact ``[lo, hi]``, refined over BUDGET."""
    enclose = _truth(claim)

    def check(prec):
        L = enclose(prec).value
        if lo <= lower(L) and upper(L) <= hi:
            return Decision(True, prec, L)
        if upper(L) < lo or lower(L) > hi:
            return Decision(False, prec, L)
        return Decision(None, prec, L)

    return refine(check, BUDGET)


def _check_bounds(claim: Claim):
    lo, hi = _interval(claim)
    E = to_mpq(dec(claim.inputs["distance_error"]))
    measured = ratio(hi - lo, E) if hi >= lo else math.inf
    if hi < lo:
        return violated(claim, {"claimed": claim.value}, note="lower exceeds upper", bound_use=math.inf)
    if claim.inputs.get("range") == "total" and hi - lo > E:
        return violated(claim, {"width": enc(hi - lo), "distance_error": claim.inputs["distance_error"]},
                        measure="width_over_distance_error", measured=measured, bound_use=measured,
                        note="TotalUpper - TotalLower exceeds distance_error (the build must split until it fits)")
    d = _decide_inside(claim, lo, hi)
    use = _position(lo, hi, lower(d.enclosure), upper(d.enclosure))
    if d.holds is True:
        return verified(claim, measure="width_over_distance_error", measured=measured, prec=d.prec, bound_use=use)
    if d.holds is False:
        return violated(claim, {"truth": _enc_iv(d.enclosure), "claimed": claim.value},
                        measure="width_over_distance_error", measured=measured, prec=d.prec, bound_use=use)
    return undecided(claim, _enc_iv(d.enclosure), prec=d.prec, bound_use=use,
                     note="the length enclosure straddles a claimed bound at the precision budget")


def _dyadic(u0: float, u1: float) -> bool:
    """Whether ``[u0, u1]`` is ``[j 2^-d, (j + 1) 2^-d]``: a leaf made by midpoint splits."""
    w = to_mpq(u1) - to_mpq(u0)
    if w <= 0 or w.numerator != 1 or w.denominator & (w.denominator - 1):
        return False
    return (to_mpq(u0) / w).denominator == 1


@_oracle_faults
def check_length_bounds(claim: Claim):
    """Certified: the true length of the leaf (``range = leaf``: span, u0, u1) or of the whole
    path (``range = total``: the prefix at the path end) lies in ``[lower, upper]``; a total's
    width is at most ``distance_error``; a leaf is a midpoint subdivision of its span."""
    if claim.inputs.get("range") not in ("leaf", "total"):
        raise ValueError("range must be 'leaf' or 'total'")
    if claim.inputs["range"] == "leaf":
        u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
        if 0.0 <= u0 <= u1 <= 1.0 and not _dyadic(u0, u1):
            return violated(claim, {"u0": claim.inputs["u0"], "u1": claim.inputs["u1"]},
                            note="a leaf is split at its parameter midpoint: [u0, u1] must be [j 2^-d, (j + 1) 2^-d]")
    return _check_bounds(claim)


@_oracle_faults
def check_prefix_bounds(claim: Claim):
    """Certified: the true prefix length ``L(span, u)`` lies in ``[lower, upper]``."""
    return _check_bounds(claim)


def _effective_target(claim: Claim):
    """The exact target of the query after its policy (recomputed, not read from the claim)."""
    s = to_mpq(dec(claim.inputs["query"]))
    T = to_mpq(dec(claim.inputs["total_estimate"]))
    policy = claim.inputs["policy"]
    if T < 0:
        raise ValueError("TotalEstimate must be nonnegative")
    if 0 <= s <= T:
        return s
    if policy == "Clamp" or (policy == "Wrap" and T == 0):
        return _mpq(0) if s < 0 else T
    if policy == "Wrap":
        q = s / T
        return s - T * (q.numerator // q.denominator)  # floored remainder, in [0, T)
    raise ValueError(f"a {policy} query outside [0, TotalEstimate] has no resolution")


def _stationary(P: np.ndarray) -> bool:
    return bool(np.all(P == P[0]))


def _param(node, n: int, what: str) -> tuple:
    """An exact ``(span, u)`` key of a witness parameter in path order: ``(k, 1)`` of an
    interior span is ``(k + 1, 0)``."""
    k, u = node["span"], dec(node["u"])
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < n or not 0.0 <= u <= 1.0:
        raise ValueError(f"{what}: span or u out of range")
    return (k + 1, 0.0) if (u == 1.0 and k < n - 1) else (k, u)


def _adjacent(short: tuple, p: tuple, n: int) -> bool:
    """``short`` precedes ``p`` by at most the bisection's resolution (adjacent floats or a
    bracket of at most 2^-60) in one span (``(k + 1, 0)`` read as ``(k, 1)``)."""
    ks, us = short
    k, u = p
    if u == 0.0 and k == ks + 1:
        k, u = ks, 1.0
    if k != ks or not us < u:
        return False
    return u - us <= RESOLUTION or float(np.nextafter(us, np.inf)) == u


def _resolution_rules(claim: Claim, C: np.ndarray, s, T, k: int, u: float):
    """The resolution rules as exact checks: ``(note, witness)`` of the first broken rule, or
    None. ``s`` is the resolved distance (the fast path's target), T the TotalEstimate."""
    n = C.shape[0]
    if s == T:
        if (k, u) != (n - 1, 1.0):
            return ("the path end resolves to the last span at u = 1", {"parameter": [k, enc(u)]})
        return None
    if u == 1.0 and k < n - 1:
        return ("an exact boundary names the outgoing span at u = 0", {"parameter": [k, enc(u)]})
    if (u > 0.0 and _stationary(C[k])) or (u == 0.0 and k > 0 and _stationary(C[k - 1])):
        return ("a zero-length run resolves to its earliest parameter: an earlier parameter has the "
                "same prefix length", {"parameter": [k, enc(u)]})
    look = claim.value.get("lookup")
    if look is None:
        return None
    p = (k, u)
    after = look["after"]
    a_key, a_est = _param(after, n, "lookup.after"), to_mpq(dec(after["estimate"]))
    before = look.get("before")
    if before is None:
        if a_key != (0, 0.0) or s != 0:
            return ("lookup: only the path start has no stored boundary before it", {"lookup": look})
    else:
        b_key, b_est = _param(before, n, "lookup.before"), to_mpq(dec(before["estimate"]))
        if not b_key < a_key:
            return ("lookup: the boundary before must precede the boundary after", {"lookup": look})
        if not b_est < s:
            return ("the earliest boundary reaching the target is not the one found: the boundary "
                    "before it already reaches it", {"lookup": look, "distance": claim.value["distance"]})
        if not b_key < p:
            return ("the result precedes the leaf its lookup found", {"lookup": look, "parameter": [k, enc(u)]})
    if not s <= a_est:
        return ("lookup: the boundary after the result does not reach the target", {"lookup": look})
    if not p <= a_key:
        return ("the result lies past the first stored boundary that reaches the target",
                {"lookup": look, "parameter": [k, enc(u)]})
    if s == a_est:
        if p != a_key:
            return ("a target equal to a stored boundary estimate resolves to that exact boundary",
                    {"lookup": look, "parameter": [k, enc(u)]})
        return None
    short = claim.value.get("short")
    if short is None:
        return None
    sk = _param(short, n, "short")
    raw = (short["span"], dec(short["u"]))
    if not _adjacent(raw, p, n) or (before is not None and sk < b_key):
        return ("the bisection's last short parameter is not within float resolution before the result",
                {"short": short, "parameter": [k, enc(u)]})
    if not to_mpq(dec(short["estimate"])) < s:
        return ("not the earliest parameter that reaches the target: the estimate just before the result "
                "already reaches it", {"short": short, "distance": claim.value["distance"]})
    return None


@_oracle_faults
def check_inversion_residual(claim: Claim):
    """Certified: ``|L(span, u) - target| <= residual_bound <= distance_error`` with the
    target recomputed exactly from the query, the resolved ``distance`` within the residual
    bound of that target, and the resolution rules (see the module docstring). With a claimed
    Certified ``bound`` at the result: the truth inside it, ``lower <= estimate <= upper``,
    the estimate reaching the resolved distance, and the residual bound covering both ends."""
    R = to_mpq(dec(claim.value["residual_bound"]))
    E = to_mpq(dec(claim.inputs["distance_error"]))
    resolved = dec(claim.value["distance"])
    if not math.isfinite(resolved):
        raise ValueError("the resolved distance must be finite")
    t = _effective_target(claim)
    T = to_mpq(dec(claim.inputs["total_estimate"]))
    C = _controls(claim)
    k, u = _at(claim, C)
    enclose = _truth(claim)
    s = to_mpq(resolved)
    if R > E:
        return violated(claim, {"residual_bound": claim.value["residual_bound"],
                                "distance_error": claim.inputs["distance_error"]},
                        note="the residual bound exceeds distance_error", bound_use=math.inf)
    if abs(s - t) > R:
        return violated(claim, {"distance": claim.value["distance"], "target": enc(t),
                                "residual_bound": claim.value["residual_bound"]},
                        note="the resolved distance is not the query's target after its policy", bound_use=math.inf)
    broken = _resolution_rules(claim, C, s, T, k, u)
    if broken is not None:
        return violated(claim, broken[1], note=broken[0])
    bound = claim.value.get("bound")
    if bound is not None:
        blo, bhi = _interval(claim, src=bound)
        best = to_mpq(dec(bound["estimate"]))
        if not blo <= best <= bhi:
            return violated(claim, {"bound": bound}, note="the estimate at the result leaves its Certified bound")
        if not best >= s:
            return violated(claim, {"bound": bound, "distance": claim.value["distance"]},
                            note="the result's estimate does not reach the target")
        if max(bhi - t, t - blo) > R:
            return violated(claim, {"bound": bound, "target": enc(t), "residual_bound": claim.value["residual_bound"]},
                            note="the residual bound does not cover the Certified prefix bound at the result")

    def check(prec):
        L = enclose(prec).value
        far = max(upper(L) - t, t - lower(L))  # the largest |L - t| over the enclosure
        near = max(lower(L) - t, t - upper(L), _mpq(0))  # the smallest
        if bound is not None and (upper(L) < blo or lower(L) > bhi):
            return Decision(False, prec, L, ("bound", near))
        inside = bound is None or (blo <= lower(L) and upper(L) <= bhi)
        if far <= R and inside:
            return Decision(True, prec, L, far)
        if near > R:
            return Decision(False, prec, L, near)
        return Decision(None, prec, L)

    d = refine(check, BUDGET)
    if d.holds is True:
        use = ratio(d.detail, R)
        return verified(claim, measure="residual_over_bound", measured=use, prec=d.prec, bound_use=use)
    if d.holds is False:
        if isinstance(d.detail, tuple):
            return violated(claim, {"truth": _enc_iv(d.enclosure), "bound": bound}, prec=d.prec,
                            note="the Certified prefix bound at the result misses the truth", bound_use=math.inf)
        use = ratio(d.detail, R)
        return violated(claim, {"truth": _enc_iv(d.enclosure), "target": enc(t), "claimed": claim.value},
                        measure="residual_over_bound", measured=use, prec=d.prec, bound_use=use)
    return undecided(claim, _enc_iv(d.enclosure), prec=d.prec,
                     note="|L - target| straddles the residual bound at the precision budget")


_WHAT = {"leaf estimate": "leaf", "TotalEstimate": "total", "PrefixEstimate": None, "DistanceBound.Estimate": None}


@_oracle_faults
def check_estimates(claim: Claim):
    """Estimated: ``lower <= estimate <= upper`` (exact comparison), and the truth inside
    ``[lower, upper]``; measured ``|estimate - L| / L``. ``what`` names the estimate and must
    match the quantity the inputs name (a leaf, the total at the path end, or a prefix)."""
    what = claim.inputs["what"]
    if what not in _WHAT:
        raise ValueError(f"what = {what!r} is not one of {sorted(_WHAT)}")
    if claim.inputs.get("range") != _WHAT[what]:
        raise ValueError(f"{what} needs range {_WHAT[what]!r}")
    est = to_mpq(dec(claim.value["estimate"]))
    lo, hi = _interval(claim, src=claim.inputs)
    use = _position(lo, hi, est, est) if lo <= hi else math.inf
    if not lo <= est <= hi:
        return violated(claim, {"estimate": claim.value["estimate"], "lower": claim.inputs["lower"],
                                "upper": claim.inputs["upper"]}, note="the estimate leaves its Certified interval",
                        bound_use=use)
    d = _decide_inside(claim, lo, hi)
    L = d.enclosure
    mid = (lower(L) + upper(L)) / 2
    rel = ratio(abs(est - mid), mid) if mid > 0 else (0.0 if est == 0 else math.inf)
    if d.holds is True:
        return verified(claim, measure="relative_error", measured=rel, prec=d.prec, bound_use=use)
    if d.holds is False:
        return violated(claim, {"truth": _enc_iv(L), "interval": [claim.inputs["lower"], claim.inputs["upper"]]},
                        measure="relative_error", measured=rel, prec=d.prec, bound_use=use,
                        note="the Certified interval of the estimate misses the truth")
    return undecided(claim, _enc_iv(L), prec=d.prec, bound_use=use, note="truth straddles the estimate's interval")


# --- Contracts -------------------------------------------------------------------------------


_CONTROLS = S.matrix(S.f32(), [None, 4, 3])
_AT = {"span": S.integer(minimum=0), "u": S.f64()}
_LEAF = {"range": S.const("leaf"), "span": S.integer(minimum=0), "u0": S.f64(), "u1": S.f64()}
_TOTAL = {"range": S.const("total"), **_AT}
_ERR = {"controls": _CONTROLS, "distance_error": S.f64(nonnegative=True)}
_BOUNDS = S.obj(required={"lower": S.f64(), "upper": S.f64()})
_IV = {"lower": S.f64(), "upper": S.f64()}
_NODE = S.obj(required={**_AT, "estimate": S.f64()})


def _replace(claim: Claim, value=None, inputs=None) -> Claim:
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def _past(x: float) -> float:
    """A float64 clearly above ``x`` (relative 2^-10 plus 2^-30): outside any honest bracket."""
    return float(x + abs(x) * 2.0**-10 + 2.0**-30)


def plant_bounds(claim: Claim) -> Claim:
    """The bracket moved wholly above the truth (a length of the wrong leaf, or an offset)."""
    hi = _past(dec(claim.value["upper"]))
    return _replace(claim, {"lower": enc(hi), "upper": enc(_past(hi))})


def plant_inversion(claim: Claim) -> Claim:
    """The parameter kept while the query moved by four distance errors (a resolution that
    answers a different target); the resolved distance moves with it, and the witnesses of the
    lookup are dropped (they belong to the old target). When the domain is too short for
    that, the residual bound exceeds distance_error instead."""
    E = dec(claim.inputs["distance_error"])
    T = dec(claim.inputs["total_estimate"])
    s = dec(claim.value["distance"])
    shift = 4 * E + 2 * dec(claim.value["residual_bound"])
    core = {"residual_bound": claim.value["residual_bound"], "distance": claim.value["distance"]}
    for t in (s + shift, s - shift):
        if 0.0 <= t <= T and shift > 0:
            return _replace(claim, {**core, "distance": enc(t)},
                            {**claim.inputs, "query": enc(t), "policy": "Reject"})
    return _replace(claim, {**core, "residual_bound": enc(_past(2 * E))})


def plant_estimate(claim: Claim) -> Claim:
    """The estimate above its Certified interval (an estimate not clamped into its bounds)."""
    return _replace(claim, {"estimate": enc(_past(dec(claim.inputs["upper"])))})


# The two arc-length oracles ("Arc length: the Arb oracle, and two oracles in the distance checkers").
_ARC_ORACLES = ("Arb Gauss-Legendre integration of |B'| (python-flint acb.integral)",
                "Taylor series of |B'| with a Cauchy remainder (mpmath iv; every piece with a zero-speed "
                "point or on a line, 1 in 8 smooth pieces)")

CONTRACTS = {
    "distance.length_bounds": RowContract(
        checks=("Certified: the true arc length of the leaf [u0, u1] of the span (range leaf), or of the whole path "
                "(range total: the prefix at span n - 1, u = 1), lies in [lower, upper], shown by Arb's rigorous "
                "Gauss-Legendre integration of the speed, cross-checked against Taylor integration with a Cauchy "
                "remainder (disjoint enclosures: OracleFault), at 113, 256 then 1024 bits; a total's width is at "
                "most distance_error; a leaf is [j 2^-d, (j + 1) 2^-d] (midpoint splits); measured "
                "(upper - lower) / distance_error."),
        inputs=S.any_of(S.obj(required={**_ERR, **_LEAF}), S.obj(required={**_ERR, **_TOTAL})),
        value=_BOUNDS,
        plant=plant_bounds,
        oracles=_ARC_ORACLES,
    ),
    "distance.prefix_bounds": RowContract(
        checks=("Certified: the true prefix length L(span, u) from the path start lies in [lower, upper] (the same "
                "two arc-length oracles); measured (upper - lower) / distance_error."),
        inputs=S.obj(required={**_ERR, **_AT}),
        value=_BOUNDS,
        plant=plant_bounds,
        oracles=_ARC_ORACLES,
    ),
    "distance.inversion_residual": RowContract(
        checks=("Certified: residual_bound <= distance_error, |distance - target| <= residual_bound and "
                "|L(span, u) - target| <= residual_bound, with the target recomputed exactly from query, policy "
                "(Reject inside [0, T], Clamp, Wrap: the floored remainder modulo T) and T = total_estimate; the "
                "path end resolves to (n - 1, 1), an exact boundary names the outgoing span at u = 0, a zero-length "
                "run resolves to its earliest parameter; with the optional lookup witness, before.estimate < "
                "distance <= after.estimate, a distance equal to after.estimate resolves to that boundary, else "
                "short (the bisection's last short parameter, within 2^-60 or one float before the result) has "
                "an estimate below distance; with the optional bound, the truth inside it, lower <= estimate <= "
                "upper, estimate >= distance and residual_bound >= max(upper - target, target - lower); measured "
                "|L - target| / residual_bound."),
        inputs=S.obj(required={**_ERR, **_AT, "query": S.f64(), "policy": S.enum(["Reject", "Clamp", "Wrap"]),
                               "total_estimate": S.f64(nonnegative=True)}),
        value=S.obj(required={"residual_bound": S.f64(nonnegative=True), "distance": S.f64()},
                    optional={"bound": S.obj(required={**_IV, "estimate": S.f64()}),
                              "lookup": S.obj(required={"after": _NODE}, optional={"before": _NODE}),
                              "short": _NODE}),
        plant=plant_inversion,
        oracles=_ARC_ORACLES,
    ),
    "distance.estimates": RowContract(
        checks=("Estimated: lower <= estimate <= upper exactly, and the true length the inputs name (a leaf, the "
                "total, or a prefix) inside [lower, upper]; measured |estimate - L| / L."),
        inputs=S.any_of(
            S.obj(required={"controls": _CONTROLS, **_LEAF, **_IV, "what": S.const("leaf estimate")}),
            S.obj(required={"controls": _CONTROLS, **_TOTAL, **_IV, "what": S.const("TotalEstimate")}),
            S.obj(required={"controls": _CONTROLS, **_AT, **_IV,
                            "what": S.enum(["PrefixEstimate", "DistanceBound.Estimate"])})),
        value=S.obj(required={"estimate": S.f64()}),
        plant=plant_estimate,
        oracles=_ARC_ORACLES,
    ),
}


FAMILY = Family(
    name="distance",
    default_cases=200,
    generate=generate,
    claims=claims,
    checkers={
        "distance.length_bounds": check_length_bounds,
        "distance.prefix_bounds": check_prefix_bounds,
        "distance.inversion_residual": check_inversion_residual,
        "distance.estimates": check_estimates,
    },
    contracts=CONTRACTS,
    oracle_precisions=DEFAULT_BUDGET,
)
