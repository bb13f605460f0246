"""The checker of the Estimated row ``sweep.error_estimates``.

Both estimates within the requested errors; a tube's segment count the fewest whose sagitta at
the largest profile scale fits CrossSectionError, and its estimate that sagitta (a ribbon's 0);
per ring the exact enclosure of half-extent x curvature against the claimed flag outside a
relative band of ``RISK_BAND`` and the count equal to the flags; the true deviation of the ideal
swept surface (true RMF; profile and DistributeTwist's roll at distances in proportion to the arc
length between the rings' distances) from the mesh, sampled at 2 and then 4 points per ring
interval and section segment: Violated above ``ACCEPTANCE_FACTOR (l + c) + ACCEPTANCE_FACTOR S_max
A + allowance`` (A the frames' angular error estimate) confirmed against every triangle, Verified
when the refinement moved the maximum by less than half the remaining margin, else Undecided.
Every ring vertex at its own section angle, turned by the roll (and on periodic frames, given
DistanceError, by the distributed twist at the ring's true arc length). Periodic frames exactly
on a closed path. Calibration true / (l + c) is binned.
"""

from __future__ import annotations

import math

import gmpy2
import numpy as np
from mpmath import iv, mp

from interval.context import lower, to_mpq, upper
from interval.frame import Arcs, arc_length, estimate_cap
from interval.sweep import curvature_product_iv, ideal_frames, point_triangle_distance, section_points
from reference.fp import U64

from ...errormodel import ratio
from ...model import Claim, dec, dec_array, enc, nonfinite_value, undecided, verified, violated
from ...rules import declare, default, spec
from .checks import decode_mesh, ring_span

__all__ = ["ACCEPTANCE_FACTOR", "RISK_BAND", "RULES", "check_error_estimates", "distance_shares", "sagitta_iv"]

ACCEPTANCE_FACTOR = 4.0
RISK_BAND = 2.0**-40

_S = "spec 002 Sweeps: "
SECTION = spec("sweep:section", _S + "'A tube uses the fewest polygon segments whose error at the largest profile "
               "scale fits CrossSectionError': the fewest segments whose sagitta fits, the cross-section estimate that "
               "sagitta (a ribbon's section is exact: 0)")
ESTIMATES_WITHIN = spec("sweep:estimates_within", _S + "'An interval is accepted when ... fits LongitudinalError'; "
                        "'fits CrossSectionError': each estimate in [0, its requested error]")
RISK = spec("sweep:risk", _S + "'The report's SelfIntersectionRiskCount counts rings whose section half-extent times "
            "path curvature reaches 1': the flags outside the relative band RISK_BAND = 2^-40 of docs/decisions.md "
            "'Sweeps: the vertex error model, mesh rules and the risk band', and the count equal to the flags")
DEVIATION = default("sweep:deviation", "docs/decisions.md 'Sweeps: the deviation oracle and acceptance factor': the "
                    "true deviation of the ideal swept surface from the mesh at most ACCEPTANCE_FACTOR = 4 times "
                    "(l + c) plus 4 S_max A plus the rounding allowance (spec 002 Guarantees: 'Sweep longitudinal "
                    "and cross-section error' are Estimated, with no factor)")

RING_POINTS = default("sweep:ring_points", "docs/decisions.md 'Sweeps: ring vertices at their section angles': each "
                      "ring vertex within ACCEPTANCE_FACTOR S_max A plus the rounding allowance of the ideal section "
                      "point at its own angle, 2 pi j / N (a ribbon's -/+ half width), turned by the profile's roll at "
                      "the ring's distance; on periodic frames, given DistanceError, also by the distributed twist at "
                      "the ring's true arc length, within a second ACCEPTANCE_FACTOR S_max A and S_max times the twist "
                      "tolerance of frame:acceptance's rule (spec 002 Sweeps: "
                      "'The width or radius (Scale) and roll are linear in estimated path distance between profile "
                      "keys'; Guarantees: 'Sweep ring frames and vertices' are Rounded, the frames Estimated)")

PERIODIC = spec("sweep:periodic", _S + "'A closed path needs periodic frames (DistributeTwist)'; spec 002 "
                "Transported frames: 'DistributeTwist ... the seam becomes periodic' (a closed path's policy): a "
                "sweep's frames are periodic exactly when its path is closed")

FRAMES_ESTIMATE = default("sweep:frames_estimate", "spec 002 Transported frames: 'A regular interval is accepted "
                          "when one reflection step and two half steps differ by at most TangentAngleError times its "
                          "share of the path. The summed differences, plus the largest one, form "
                          "AngularErrorEstimate': the frames' estimate A the acceptance is widened by is at most 2 "
                          "TangentAngleError plus the rounding floor of 2^20 intervals (docs/decisions.md 'Sweeps: "
                          "the frames' estimate is capped'; the claim does not count the intervals)")
# A bound on the frames' interval count for the cap above: far above any MaxSamples the corpus
# or a game asset uses; its floor term, 2^20 x 64 u = 2^-27 rad, is small beside any tolerance.
FRAME_INTERVALS_CAP = 2**20

RULES = declare({"sweep.error_estimates": (SECTION, ESTIMATES_WITHIN, RISK, DEVIATION, RING_POINTS, PERIODIC,
                                           FRAMES_ESTIMATE)})
_CAL_BINS = ((0.1, "calibration_lt_0.1"), (0.5, "calibration_0.1_0.5"), (1.0, "calibration_0.5_1"),
             (ACCEPTANCE_FACTOR, "calibration_1_factor"), (math.inf, "calibration_above_factor"))
_mpq = gmpy2.mpq


def _profile_q(profile, s):
    """Scale and roll at s (floats) from decoded keys: linear, clamped."""
    d = [p[0] for p in profile]
    if s <= d[0]:
        return profile[0][1], profile[0][2]
    if s >= d[-1]:
        return profile[-1][1], profile[-1][2]
    i = max(j for j in range(len(d)) if d[j] <= s)
    t = (s - d[i]) / (d[i + 1] - d[i])
    return profile[i][1] + (profile[i + 1][1] - profile[i][1]) * t, profile[i][2] + (profile[i + 1][2] -
                                                                                     profile[i][2]) * t


# The float64 point-triangle distance errs by a few ulps of the pair's largest difference; the
# allowance below is 1024 ulps of E + S_max. An honest mesh's pairs reach at most about
# 2 sqrt(3) E + 2 S_max (every vertex and ideal point lies within the controls' box widened by
# the section), so only a vertex far off the surface (a sliver thousands of sizes long, where
# float64 loses the small side or overflows into a NaN) is measured in exact rationals.
_REACH = 16.0

_FINE = 4  # sample points per ring interval and section segment; the coarse pass takes every other


def distance_shares(P, u0: float, u1: float, m: int) -> list:
    """The share ``l(u0, u) / l(u0, u1)`` of the arc length between two rings at ``u = u0 + (u1 -
    u0) q / m``, q = 0..m (float64 quadrature, ``interval.frame.arc_length``): the estimated
    distance between rings follows the arc length (the profile and DistributeTwist's roll are
    laid out "in estimated path distance"), not the parameter."""
    whole = arc_length(P, u0, u1)[0]
    if not whole > 0:
        return [q / m for q in range(m + 1)]
    return [0.0] + [arc_length(P, u0, u0 + (u1 - u0) * q / m)[0] / whole for q in range(1, m)] + [1.0]


def _deviation(C, inp, V, I, twist_of, reach):
    """Largest sampled distance from the ideal surface to the mesh (window of neighbouring
    strips), at 4 and at 2 samples per ring interval and section segment (the coarse samples are
    every other fine one, so one true-RMF integration serves both): ``(coarse, fine, worst
    points of the fine pass, oracle error, (ring frames, twist))``. ``twist_of(loop_twist)``
    gives the twist to distribute over the path from the loop's true residual twist; a
    point-triangle pair that reaches farther than ``reach`` is measured exactly
    (:data:`_REACH`). The ring frames are the true RMF's at the rings (for
    :func:`_ring_miss`)."""
    m = _FINE
    nseg, ribbon = int(inp["segments"]), inp["section"] == "Ribbon"
    rings = [(ring_span(x, len(C)), dec(x[1]), dec(x[2])) for x in inp["rings"]]
    prof = [[dec(v) for v in k] for k in inp["profile"]]
    L = dec(inp["total"])
    if ribbon:
        cs = [(0.0, -0.5 + b / m) for b in range(m + 1)]
        coarse_cs = np.arange(m + 1) % 2 == 0
    else:
        cs = [(math.cos(2 * math.pi * (j + b / m) / nseg), math.sin(2 * math.pi * (j + b / m) / nseg))
              for j in range(nseg) for b in range(m)]
        coarse_cs = np.tile(np.arange(m) % 2 == 0, nseg)
    samples = []  # (ring interval, q, k, u, s)
    for i in range(len(rings) - 1):
        (k0, u0, s0), (k1, u1, s1) = rings[i], rings[i + 1]
        ub = u1 if k1 == k0 else 1.0
        for q, share in enumerate(distance_shares(C[k0], u0, ub, m)):
            samples.append((i, q, k0, u0 + (ub - u0) * q / m, s0 + (s1 - s0) * share))
    frames, loop_twist, oerr = ideal_frames(C, dec_array(inp["seed_normal"]), [(k, u) for _, _, k, u, _ in samples])
    twist_total = twist_of(loop_twist)
    T = I.reshape(-1, 3)
    strip = 2 * (nseg if not ribbon else 1)
    fine = coarse = 0.0
    worst_pts = []
    for i in range(len(rings) - 1):
        mine = [x for x in samples if x[0] == i]
        pts = []
        for _, q, k, u, s in mine:
            sc, roll = _profile_q(prof, s)
            phi = roll + (twist_total * s / L if L > 0 else 0.0)
            pts.append(section_points(*frames[(k, u)], sc, phi, cs))
        p = np.concatenate(pts)
        # Candidate triangles of each point: the quads of its own and the neighbouring ring
        # intervals, and (a tube) of its own and the neighbouring section columns. Any subset
        # of the mesh gives a distance at least the true one: a Verified verdict stays safe, and a
        # Violated one is confirmed against every triangle.
        strips = np.arange(max(0, i - 1), min(len(rings) - 1, i + 2))
        if ribbon:
            cand = (strips[:, None] * strip + np.arange(strip)[None, :]).ravel()[None, :]
            cand = np.repeat(cand, len(cs), axis=0)
        else:
            col = np.arange(len(cs)) // m  # the section segment of each sample point
            cols = (col[:, None] + np.array([-1, 0, 1])[None, :]) % nseg  # (points, 3)
            quad = strips[None, :, None] * nseg + cols[:, None, :]  # (points, strips, 3)
            cand = (2 * quad[..., None] + np.array([0, 1])).reshape(len(cs), -1)
        cand = np.tile(cand, (len(mine), 1))  # (every point of the interval, candidates)
        tri = T[cand.ravel()]
        n, w = cand.shape
        d = point_triangle_distance(np.repeat(p, w, axis=0), V[tri[:, 0], :3], V[tri[:, 1], :3],
                                    V[tri[:, 2], :3], exact_above=reach).reshape(n, w).min(axis=1)
        d = d.reshape(len(mine), len(cs))
        for row, (_, q, *_r) in zip(range(len(mine)), mine):
            worst_pts.append((float(np.max(d[row])), p[row * len(cs) + int(np.argmax(d[row]))]))
            if q % 2 == 0:
                coarse = max(coarse, float(np.max(d[row][coarse_cs])))
        fine = max(fine, float(np.max(d)))
    ring_frames = [frames[(k, u)] for _, q, k, u, _ in samples if q == 0]
    ring_frames.append(frames[(samples[-1][2], samples[-1][3])])  # the last ring: the last interval's end
    return coarse, fine, worst_pts, oerr, (ring_frames, twist_total)


def _ring_miss(V, inp, rings, ring_frames, prof, twists, limits):
    """``(distance / limit, distance, limit, ring, vertex)`` of the ring vertex farthest
    (Euclidean, relative to its ring's limit) from the ideal section point at its own place in
    the section: a tube's vertex j at angle ``2 pi j / N`` (U = j / N), a ribbon's -Binormal then
    +Binormal edge at -/+ half the width, in the true RMF turned by the profile's roll at the
    ring's distance plus ``twists[i]``. Float64, a few ulps of the coordinates; the frames' own
    angle error is in the caller's ``limits``."""
    nseg, ribbon = int(inp["segments"]), inp["section"] == "Ribbon"
    per = 2 if ribbon else nseg + 1
    if ribbon:
        cs = [(0.0, -0.5), (0.0, 0.5)]
    else:
        cs = [(math.cos(2 * math.pi * j / nseg), math.sin(2 * math.pi * j / nseg)) for j in range(nseg)]
    worst = (0.0, 0.0, limits[0], 0, 0)
    for i, ((_, _, s), fr) in enumerate(zip(rings, ring_frames)):
        sc, roll = _profile_q(prof, s)
        ideal = section_points(*fr, sc, roll + twists[i], cs)
        got = V[i * per:i * per + len(cs), :3]
        with np.errstate(over="ignore", invalid="ignore"):
            diff = got - ideal
            m = np.max(np.abs(diff), axis=1)  # scaled, so a vertex near float64's largest gives inf, not NaN
            d = np.where(m > 0, m * np.sqrt(np.sum((diff / np.where(m > 0, m, 1.0)[:, None]) ** 2, axis=1)), 0.0)
            d = np.where(np.isnan(d), np.inf, d)
        j = int(np.argmax(d))
        r = ratio(float(d[j]), limits[i]) if math.isfinite(d[j]) else math.inf
        if r > worst[0]:
            worst = (r, float(d[j]), limits[i], i, j)
    return worst


def _global_distance(V, I, p, reach):
    T = I.reshape(-1, 3)
    P = np.repeat(p[None], T.shape[0], axis=0)
    return float(np.min(point_triangle_distance(P, V[T[:, 0], :3], V[T[:, 1], :3], V[T[:, 2], :3],
                                                exact_above=reach)))


def sagitta_iv(r_max: float, n: int):
    """Enclosure ``(lo, hi)`` (exact mpq) of ``r_max (1 - cos(pi / n))`` (mpmath iv, 113 bits)."""
    old = iv.prec
    iv.prec = 113
    try:
        x = iv.mpf(r_max) * (1 - iv.cos(iv.pi / n))
        return lower(x), upper(x)
    finally:
        iv.prec = old


def _section_rule(claim: Claim, prof, cest: float):
    """A tube has the fewest polygon segments N >= 3 whose sagitta ``r_max (1 - cos(pi / N))`` at
    the largest profile scale fits CrossSectionError, and reports that sagitta as its
    cross-section estimate, both within ``8 u r_max`` (the float64 evaluation of ``1 - cos``); a
    ribbon's section is exact (estimate 0)."""
    inp = claim.inputs
    nseg = int(inp["segments"])
    if inp["section"] == "Ribbon":
        if cest != 0.0:
            return violated(claim, {"why": "a ribbon's section is exact: its cross-section estimate is 0",
                                    "cross_section": claim.value["cross_section"]}, rule=SECTION.id)
        return None
    r_max = max(p[1] for p in prof)
    xerr = to_mpq(dec(inp["cross_section_error"]))
    lo, hi = sagitta_iv(r_max, nseg)
    # The planner evaluates r (1 - cos(pi / N)) in float64: cos rounds relative to 1, so the
    # sagitta is known to a few u r_max (absolute), and decisions within that band go either way.
    band = 8 * to_mpq(U64) * to_mpq(r_max)
    if nseg < 3 or lo > xerr + band:
        return violated(claim, {"why": f"{nseg} segments: the sagitta at the largest scale {r_max!r} exceeds "
                                       "CrossSectionError", "sagitta_lower": enc(lo)}, rule=SECTION.id)
    if nseg > 3:
        _lo1, hi1 = sagitta_iv(r_max, nseg - 1)
        if hi1 < xerr - band:
            return violated(claim, {"why": f"{nseg} segments are not the fewest: {nseg - 1} fit CrossSectionError "
                                           f"at the largest scale {r_max!r}", "sagitta_upper": enc(hi1)},
                            rule=SECTION.id)
    c = to_mpq(cest)
    if c < lo - band or c > hi + band:
        return violated(claim, {"why": "the cross-section estimate is not the sagitta of the chosen polygon",
                                "cross_section": claim.value["cross_section"], "sagitta": enc(lo)}, rule=SECTION.id)
    return None


def check_error_estimates(claim: Claim):
    """Estimated: estimates within the request, risk flags against the exact enclosure, and the
    sampled true deviation of the ideal swept surface against ACCEPTANCE_FACTOR x estimates."""
    inp, val = claim.inputs, claim.value
    C = dec_array(inp["controls"]).reshape(-1, 4, 3)
    bad = nonfinite_value(claim, lambda at: DEVIATION.id if at.startswith("value.vertices") else ESTIMATES_WITHIN.id)
    if bad is not None:  # a NaN vertex or estimate would drop out of the maxima below
        return bad
    if bool(inp["periodic"]) != bool(inp["closed"]):
        return violated(claim, {"why": "a closed path's sweep needs periodic frames, and only a closed path's frames "
                                       "are periodic", "closed": inp["closed"], "periodic": inp["periodic"]},
                        rule=PERIODIC.id)
    A = dec(inp["angular_error_estimate"])
    if not (A >= 0 and math.isfinite(A)):
        raise ValueError("inputs.angular_error_estimate is a finite nonnegative angle")
    if "tangent_angle_error" in inp:
        cap = estimate_cap(dec(inp["tangent_angle_error"]), FRAME_INTERVALS_CAP)
        if A > cap:
            return violated(claim, {"why": "the frames' AngularErrorEstimate is above what their acceptance rule "
                                           "admits (2 TangentAngleError plus the rounding floor), so it would widen "
                                           "the acceptance unduly",
                                    "angular_error_estimate": inp["angular_error_estimate"], "cap": enc(cap)},
                            rule=FRAMES_ESTIMATE.id)
    V, I = decode_mesh(claim)
    lest, cest = dec(val["longitudinal"]), dec(val["cross_section"])
    if not (0 <= lest <= dec(inp["longitudinal_error"]) and 0 <= cest <= dec(inp["cross_section_error"])):
        return violated(claim, {"why": "an error estimate outside [0, requested error]",
                                "longitudinal": val["longitudinal"], "cross_section": val["cross_section"]},
                        rule=ESTIMATES_WITHIN.id)
    rings = [(ring_span(x, len(C)), dec(x[1]), dec(x[2])) for x in inp["rings"]]
    prof = [[dec(v) for v in k] for k in inp["profile"]]
    bad = _section_rule(claim, prof, cest)
    if bad is not None:
        return bad
    flags = val["risk_flags"]
    if len(flags) != len(rings) or int(val["risk_count"]) != sum(bool(f) for f in flags):
        return violated(claim, {"why": "the risk count must count the flagged rings",
                                "risk_count": val["risk_count"], "flags": sum(bool(f) for f in flags)}, rule=RISK.id)
    ribbon = inp["section"] == "Ribbon"
    band = _mpq(RISK_BAND)
    for i, (k, u, s) in enumerate(rings):
        sc, _ = _profile_q(prof, s)
        lo, hi = curvature_product_iv(C[k], u, 0.5 * sc if ribbon else sc)
        if flags[i] and hi < 1 - band:
            return violated(claim, {"why": f"ring {i} flagged but half-extent x curvature < 1",
                                    "upper": enc(hi)}, rule=RISK.id)
        if not flags[i] and lo >= 1 + band:
            return violated(claim, {"why": f"ring {i} not flagged but half-extent x curvature >= 1",
                                    "lower": enc(lo)}, rule=RISK.id)
    periodic, winding = bool(inp["periodic"]), int(inp["winding_turns"])

    def twist_of(loop_twist):
        return float(-mp.mpf(loop_twist) + 2 * mp.pi * winding) if periodic else 0.0

    smax = max(p[1] for p in prof)
    est = lest + cest
    E = float(np.max(np.abs(C)))
    with mp.workprec(113):
        reach = _REACH * (E + smax)
        d2, d4, worst_pts, oerr, (ring_frames, twist_total) = _deviation(C, inp, V, I, twist_of, reach)
    allowance = float(oerr) * (1 + smax) + 1024 * U64 * (E + smax)
    # A ring vertex sits on the ideal section at its own angle, up to the frames' angle error (the
    # frame row's 4 A). On periodic frames the distributed twist follows estimated distances, so
    # it is judged only with DistanceError given: at the ring's true arc length, within the frame
    # row's twist tolerance and a second 4 A for the residual twist the total is made of
    # (docs/decisions.md 'Sweeps: ring vertices at their section angles').
    turn = ACCEPTANCE_FACTOR * smax * A  # the frames' angle error at S_max
    miss = None
    if not periodic:
        miss = _ring_miss(V, inp, rings, ring_frames, prof, [0.0] * len(rings), [turn + allowance] * len(rings))
    elif "distance_error" in inp:
        arcs, de = Arcs(C), dec(inp["distance_error"])
        tw = [arcs.distributed_twist(k, u, twist_total, de, _profile_q(prof, s)[1]) for k, u, s in rings]
        miss = _ring_miss(V, inp, rings, ring_frames, prof, [t for t, _ in tw],
                          [2 * turn + smax * tol + allowance for _, tol in tw])
    if miss is not None and miss[0] > 1:
        return violated(claim, {"why": f"ring {miss[3]} vertex {miss[4]} is not the ideal section point at its "
                                       "angle: the profile's roll (or the distributed twist) not applied, or another "
                                       "place in the section", "distance": enc(miss[1]), "limit": enc(miss[2])},
                        bound_use=miss[0], rule=RING_POINTS.id)
    limit = ACCEPTANCE_FACTOR * est + turn + allowance
    cal = d4 / est if est > 0 else (0.0 if d4 <= allowance else math.inf)
    bins = {}
    prev = 0.0
    for edge, name in _CAL_BINS:
        bins[name] = int(prev <= cal < edge)
        prev = edge
    detail = {"true_deviation": d4, "coarse_deviation": d2, "estimate": est, "limit": limit,
              "oracle_error": float(oerr)}
    use = ratio(d4, limit)  # the true deviation over the acceptance limit
    if d4 > limit:
        g = max(_global_distance(V, I, p, reach) for d, p in worst_pts if d > limit)
        if g > limit:
            return violated(claim, detail, measure="calibration", measured=cal, bound_use=use, rule=DEVIATION.id,
                            **bins)
        return undecided(claim, [enc(g), enc(limit)], measure="calibration", measured=cal, bound_use=use,
                         note="the windowed deviation exceeds the limit, the whole-mesh one does not", **bins)
    if d4 - d2 > 0.5 * (limit - d4):
        return undecided(claim, [enc(d4), enc(limit)], measure="calibration", measured=cal, bound_use=use,
                         note="sampling did not converge within half the margin", **bins)
    return verified(claim, measure="calibration", measured=cal, bound_use=use, **bins)

