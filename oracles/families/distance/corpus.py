"""The distance corpus as case dicts: named shapes first (the adversarial ones early), then
random chains; and the queries a case's requests ask.

Deterministic in the seed. A case is ``{"name", "source" (n, 4, 3) float64, "closed", "origin",
"distance_error", "position_error", "extra_targets", "probes"}``. The named shapes are the ones
real faults need to be seen (``SPECIALS``; docs/decisions.md "Distance corpus: the shapes faults
need"): exactly straight spans far from the chunk origin queried at non-dyadic parameters (where
a chord or polygon without its subsegment widening crosses the truth), nearly straight spans,
lines whose parameter reverses (at rational and irrational u), powers of two, a fractional
origin (inexact source - origin), zero-length runs at the start, inside and at the end, targets
on and one float beside every stored boundary estimate (and just below span ends, where a
bisection ends at u = 1), a distance_error just below the Certified gap of a map that met a
looser one (where only the upward-rounded path-order recheck keeps the accepted gap within it),
a zero-speed ease endpoint, an interior cusp and a near-cusp, a closed path with Wrap targets, a
path far from the world origin, a tiny path. The rest are random chains of 1 to 4 spans with
``distance_error`` between 1e-5 and 1e-2 of the path's length.

Inputs only. Two choices read our fast path's map, as input choices (what a request demands
is decided in ``requests.py`` without the fast path): the ``_recheck`` case's distance_error
(just below a Certified gap our build reached), and the resolution targets of
:func:`case_queries` (stored boundary estimates and their neighbours, TotalEstimate and
fractions of it, targets just past the estimate at a span's last float): a target exactly on a
stored estimate is what the lookup and equality rules need to be seen. For another
implementation they are targets like any other.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from interval.context import to_mpq
from reference.distance import DistancePreparation, try_bound_distance, try_build_distance_map
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import BoundaryPolicy, SegmentParameter, ToleranceProfile, WorkLimits

__all__ = [
    "LIMITS",
    "NAMED",
    "SPECIALS",
    "case_queries",
    "chain",
    "corpus_cases",
    "make_case",
    "prepare",
    "tolerance",
]

LIMITS = WorkLimits(max_spans=64, max_keys=64, max_leaves=1 << 18, max_depth=48,
                    max_subdivisions=1 << 18, max_prepared_bytes=1 << 28, max_samples=64)


def tolerance(distance_error: float, position_error: float) -> ToleranceProfile:
    """A ToleranceProfile for corpus cases (every field explicit, as the spec demands)."""
    return ToleranceProfile(
        position_error=position_error, relative_position_error=0.0, asset_scale=1.0,
        continuity_position=position_error, continuity_angle=1e-3, continuity_derivative=1e-3,
        continuity_second_derivative=1e-3, distance_error=distance_error, projection_gap=1e-3,
        tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
        normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)


def chain(rng, n, size, start=None):
    """``n`` joined spans of random steps of scale ``size`` from ``start`` (a chain)."""
    pts = np.empty((n, 4, 3))
    p0 = np.zeros(3) if start is None else np.asarray(start, dtype=np.float64)
    for i in range(n):
        pts[i, 0] = p0
        pts[i, 1:] = p0 + np.cumsum(rng.normal(size=(3, 3)) * size, axis=0)
        p0 = pts[i, 3]
    return pts


def _polygon_length(src) -> float:
    return float(np.sum(np.linalg.norm(np.diff(src, axis=1), axis=2)))


def make_case(name, src, rel_error, closed=False, origin=(0.0, 0.0, 0.0), extra_targets=(), probes=(),
              distance_error=None):
    """One case: ``distance_error`` is ``rel_error`` times the control polygon's length unless
    given; ``extra_targets`` and ``probes`` add queries (:func:`case_queries`)."""
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
    return make_case("straight spans far from the origin", np.stack([s1, s2, s3]), 1e-9, extra_targets=fr,
                 probes=probes)


def _straight_axis(rng):
    # Straight along y, short, at large constant x and z: the chord's x and z intervals
    # straddle zero within the widening (2 e_x is about 4e-9 here), so their smallest
    # magnitude must be taken as 0, or the chord lower bound passes the true length.
    x, z = 2.0**20 + float(rng.integers(0, 64)), -(2.0**19)
    s = _line([x, 0.0, z], [0.0, 2.0**-9, 0.0])
    return make_case("short straight span along an axis far from the origin", s[None], 1e-9,
                 extra_targets=[("fraction", f) for f in (0.3, 0.6)],
                 probes=[(0, u) for u in _non_dyadic(rng, 6)])


def _nearly_straight(rng):
    a = rng.uniform(-1, 1, 3) * 3e3
    d = rng.normal(size=3)
    src = np.stack([_line(a, d), _line(a + 3 * d, d * 0.75)])
    src[:, 1:3] += rng.normal(size=(2, 2, 3)) * 1e-4  # bends far below the length
    src[1, 0] = src[0, 3]
    return make_case("nearly straight spans far from the origin", src, 1e-8,
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
    return make_case("lines that reverse", np.stack([s1, s2]), 1e-5,
                 extra_targets=[("fraction", f) for f in (0.2, 0.5, 0.8)],
                 probes=[(0, 0.25), (0, 0.6), (1, 0.7071), (1, 0.9)])


def _powers_of_two(rng):
    # Controls at powers of two (magnitudes exactly at binade edges), a power-of-two
    # distance_error and power-of-two targets.
    src = np.array([[[0.0, 0, 0], [1.0, 0, 0], [2.0, 2, 0], [4.0, 4, 0]],
                    [[4.0, 4, 0], [8.0, 4, 0], [8.0, 8, 4], [16.0, 8, 8]]])
    return make_case("powers of two", src, 0.0, distance_error=2.0**-12,
                 extra_targets=[("fraction", 2.0**-k) for k in (1, 2, 3, 5)],
                 probes=[(0, 0.5), (1, 0.25), (1, 0.75), (0, 2.0**-20)])


def _fractional_origin(rng):
    src = chain(rng, 2, 1.3, start=np.array([100.1, 200.2, -300.3]))
    return make_case("fractional origin", src, 1e-6, origin=(100.1, 200.3, -300.7),
                 probes=[(k, u) for k, u in ((0, 0.1), (1, 1 / 3), (1, 0.7))])


def _zero_runs(rng):
    # Zero-length runs at the start (one span), inside (two spans) and at the end (one span).
    mv = chain(rng, 2, 1.0)
    p0, p1, p2 = mv[0, 0], mv[0, 3], mv[1, 3]
    still = lambda p: np.stack([p] * 4)
    src = np.stack([still(p0), mv[0], still(p1), still(p1), mv[1], still(p2)])
    return make_case("zero-length runs at the start, inside and at the end", src, 1e-4,
                 extra_targets=[("boundary", i) for i in range(0, 400, 3)] + [("fraction", 0.5)],
                 probes=[(0, 0.5), (2, 0.25), (3, 1.0), (5, 0.5)])


def _boundary_neighbours(rng):
    # Targets on every stored boundary estimate and one float either side; just below span
    # ends the bisection can end at u = 1 (an exact boundary then names the outgoing span).
    return make_case("targets on and beside stored boundaries", chain(rng, 3, 1.0), 1e-3,
                 extra_targets=[("boundary", i) for i in range(0, 400, 5)]
                 + [("beside", i) for i in range(0, 400, 5)])


def _recheck(rng):
    # distance_error just below the exact Certified gap TotalUpper - TotalLower of a build that
    # met a looser one: at that leaf set the running float sum of gaps (and its fsum refresh)
    # meets it, but the path-order Certified gap does not, so only an upward-rounded recheck
    # keeps the accepted total within distance_error.
    src = chain(rng, 3, 1.0)
    case = make_case("distance_error just below the Certified gap", src, 1e-4)
    prep = prepare(case)
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
    src = chain(rng, 2, 1.0)
    src[0, 1] = src[0, 0]  # zero speed at the start
    src[1, 2] = src[1, 3]  # and at the end
    return make_case("zero-speed ease endpoints", src, 1e-4)


def _stationary(rng):
    src = chain(rng, 3, 1.0)
    p = src[1, 0].copy()
    src[1] = p  # a stationary span: all four controls equal
    src[2] += p - src[2, 0]
    return make_case("stationary span", src, 1e-4)


def _closed(rng):
    src = chain(rng, 3, 1.0)
    src[-1, 3] = src[0, 0]
    return make_case("closed path", src, 1e-4, closed=True,
                     extra_targets=[("wrap", f) for f in (-0.25, 1.5, 7.25, -3.0, 1e6 + 0.3, -(2.0**40) - 0.6)])


def _straight(rng):
    a, b, c = rng.normal(size=(3, 3)) * 4
    src = np.stack([np.stack([a, a + (b - a) / 4, a + 3 * (b - a) / 4, b]),
                    np.stack([b, b + (c - b) / 3, b + 2 * (c - b) / 3, c])])
    return make_case("straight segments", src, 1e-6)


def _cusp(rng):
    s = float(10.0 ** rng.uniform(-1, 1))
    src = np.array([[[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]]], dtype=np.float64) * s
    return make_case("interior cusp", src, 1e-4, probes=[(0, 0.5), (0, 0.4999), (0, 0.3)])


def _near_cusp(rng):
    # A planar span whose speed nearly vanishes (a root of |B'|^2 at 4e-4 from the real axis).
    src = np.array([[[0, 53.88261032104492, 0], [0, 66, 88], [0, 32, 72], [0, 92, 0]]])
    return make_case("near-cusp", src, 1e-5, probes=[(0, 0.4752), (0, 0.47529), (0, 0.6)])


def _far(rng):
    base = rng.uniform(-1, 1, 3) * 1e5
    src = chain(rng, 2, 10.0, start=base)
    return make_case("far from the world origin", src, 1e-4, origin=tuple(np.round(base)))


def _tiny(rng):
    return make_case("tiny path", chain(rng, 2, 1e-3), 1e-3)


def _tight(rng):
    return make_case("tight distance_error", chain(rng, 1, 1.0), 1e-7)


def _random_case(rng):
    n = int(rng.integers(1, 5))
    size = float(10.0 ** rng.uniform(-2, 2))
    closed = bool(rng.random() < 0.15)
    src = chain(rng, n, size)
    if closed:
        src[-1, 3] = src[0, 0]
    return make_case("random", src, float(10.0 ** rng.uniform(-5, -2)), closed=closed)


# Named shapes first (the adversarial ones early), then random chains.
SPECIALS = (_straight_far, _zero_runs, _boundary_neighbours, _recheck, _straight_axis, _nearly_straight,
            _reversing_lines, _powers_of_two, _fractional_origin, _ease, _stationary, _closed, _straight, _cusp,
            _near_cusp, _far, _tiny, _tight)


def corpus_cases(seed: int, n: int) -> list:
    """``n`` distance cases, named corner cases first. Deterministic in ``seed``."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 5])
        cases.append(SPECIALS[k](rng) if k < len(SPECIALS) else _random_case(rng))
    return cases


NAMED = len(SPECIALS)


def prepare(case):
    """Our fast path's TryPreparePath of a case (an input choice's helper, and ``oracles.explain``'s)."""
    spans = spans_from_arrays(case["source"], np.ones(case["source"].shape[0]))
    return try_prepare_path(PathSource(spans, revision=1, is_closed=case["closed"]),
                            PathPreparation(tolerance(case["distance_error"], case["position_error"]),
                                            LIMITS, case["origin"]))


def case_queries(case) -> tuple[list, list]:
    """``(probes, targets)`` of a case: TryBoundDistance parameters ``(span, u)`` (three random
    ones, then the case's own) and TryResolveDistance targets ``(distance, policy)``: a stored
    boundary estimate, both ends, two random fractions of TotalEstimate, two Clamp targets and two
    Reject targets outside the domain, the case's extra targets, and for each interior span end a
    target just above the estimate at the last float before it (where a bisection ends at u = 1).
    Seeded by the case's name and source; targets read our fast path's map (an input choice)."""
    rng = np.random.default_rng(zlib.crc32(case["name"].encode() + case["source"].tobytes()))  # stable
    n = case["source"].shape[0]
    prep = prepare(case)
    built = try_build_distance_map(prep.value.view(), DistancePreparation(LIMITS)) if prep.ok else None
    if built is None or not built.ok:
        # No map of ours to aim at: fractions of the control polygon's length instead.
        probes = [(int(rng.integers(0, n)), float(rng.random())) for _ in range(3)]
        probes += [(k % n, float(u)) for k, u in case.get("probes", ())]
        L = _polygon_length(case["source"])
        return probes, [(float(f * L), BoundaryPolicy.Clamp) for f in (0.0, 0.25, 0.5, 1.0, 2.0)]
    path, dmap = prep.value.view(), built.value.view()
    m = dmap.leaf_count
    # The same draws, in the same order, as the claims of the corpus before requests.
    gaps = dmap.leaf_upper - dmap.leaf_lower
    _ = {int(np.argmax(gaps)), 0, m - 1, int(rng.integers(0, m))}
    _ = {0, int(rng.integers(0, m + 1)), int(rng.integers(0, m + 1)), m}
    probes = [(int(rng.integers(0, n)), float(rng.random())) for _ in range(3)]
    probes += [(k % n, float(u)) for k, u in case.get("probes", ())]
    T = dmap.total_estimate
    pe = dmap.prefix_estimate
    R, C, W = BoundaryPolicy.Reject, BoundaryPolicy.Clamp, BoundaryPolicy.Wrap
    targets = [(float(pe[int(rng.integers(0, m + 1))]), R), (0.0, R), (T, R),
               (float(rng.random() * T), R), (float(rng.random() * T), R),
               (-1.0 - T, C), (2.0 * T + 1.0, C), (-0.5, R), (1.5 * T + 1.0, R)]
    extra = list(case["extra_targets"]) + [("span end", k) for k in range(n - 1)]
    for kind, x in extra:
        if kind == "boundary" and x <= m:
            targets.append((float(pe[x]), R))
        elif kind == "beside" and x <= m:
            targets += [(float(np.nextafter(pe[x], -np.inf)), C), (float(np.nextafter(pe[x], np.inf)), C)]
        elif kind == "span end" and x < n - 1:
            j = int(dmap.span_first_leaf[x + 1])
            last = try_bound_distance(path, dmap, SegmentParameter(x, float(np.nextafter(1.0, 0.0))))
            if last.ok:
                t = float(np.nextafter(last.value.estimate, np.inf))
                if t < pe[j]:
                    targets.append((t, C))
        elif kind == "wrap" and path.is_closed:
            targets.append((float(x * T), W))
        elif kind == "fraction":
            targets.append((float(x * T), C))
    return probes, targets
