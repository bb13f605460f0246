"""The checker of the Rounded row ``sweep.rings``: ring frames and vertices plus the exact mesh rules.

It recomputes every truth from ``claim.inputs`` (``interval.sweep``): counts (vertices ``r (N +
1)`` or ``2 r`` plus ``2 (N + 1)`` for Flat caps; indices ``6 N (r - 1)`` plus ``6 N``); each
ring's position within ``position_bound(E)`` of the exact ``B(u)``; its frame orthonormal and
right-handed within ``16 u``; every ring vertex within ``16 u (M + 2 S) + 16 eta`` per component of
the exactly enclosed ``x + offset`` (M the ring position's largest component, S the scale), its
normal within ``16 u`` of the enclosed direction, U exactly ``j / N``, V the ring's distance; the
seam vertex, cap rims, cap normals and a closed path's last ring bitwise copies; every triangle's
exact normal (rational cross product of the claimed positions) on the side of its vertex normals
(CCW) or opposite (Clockwise), except where the tube may fold (half-extent x curvature may reach
1 at a ring or between two rings); with a profile, each ring's scale the profile's at its distance;
with a capacity probe, emission into arrays one entry short CapacityExceeded with both arrays
unchanged.
"""

from __future__ import annotations

import gmpy2
import numpy as np

from interval.context import QQ, to_mpq
from interval.frame import Arcs
from interval.sweep import curvature_product_iv, may_fold, ring_offsets_iv
from reference import error_model as EM
from reference import kernel as K
from reference.fp import U64
from reference.sweep import SWEEP_VERTEX_K, VERTEX_WIDTH

from ...errormodel import ratio, resolve
from ...model import Claim, dec, dec_array, enc, int_array, verified, violated
from ...rules import decision, declare, default, spec

__all__ = ["RULES", "check_rings", "decode_mesh", "mesh_counts", "ring_span"]

_S = "spec 002 Sweeps: "
COUNTS = spec("sweep:counts", _S + "'A tube ring repeats its first vertex with U = 1 as an explicit UV seam. "
              "SweepCaps::Flat closes an open tube with fans': vertex and index counts of the rings and caps, finite "
              "vertices, indices in range")
CAPACITY = spec("sweep:capacity", _S + "'TryEmitSweepMesh checks the pinned path revision (StaleRevision) and both "
                "capacities (CapacityExceeded) before writing': arrays one entry short fail, unchanged")
PROFILE = spec("sweep:profile", _S + "'The width or radius (Scale) and roll are linear in estimated path distance "
               "between profile keys and clamped outside them' (within 8u of the key scale)")
RING_BOUNDS = default("sweep:ring_bounds", "docs/decisions.md 'Sweeps: the vertex error model, mesh rules and the "
                      "risk band' (or the claim's declared model): ring positions within position_bound(E) of B(u), "
                      "frames orthonormal and right-handed within 16u, vertices within 16u (M + 2S) + 16 eta, "
                      "normals within 16u (spec 002 Guarantees: 'Sweep ring frames and vertices' are Rounded)")
SEAM_CAPS = spec("sweep:seam_caps", _S + "'A ribbon ring emits its -Binormal then +Binormal edge, faces the frame "
                 "normal ... A tube ring repeats its first vertex with U = 1 ... rim vertices copy the ring positions "
                 "bitwise but carry the cap normal ... its last ring copies the first ring's positions and normals "
                 "with V equal to the total length'")
DISTANCES = spec("sweep:distances", _S + "'V is estimated path distance in asset units'; 'The width or radius (Scale) "
                 "and roll are linear in estimated path distance': each ring's distance and the total within "
                 "DistanceError of the true arc length (the distance map's estimates lie in its Certified intervals, "
                 "whose whole-path gap is at most DistanceError; the frame row's rule frame:distances)")
UV = spec("sweep:uv", _S + "'V is estimated path distance in asset units' and the seam's U = 1: U is j / N (within one "
          "rounding), V the ring's distance, and a Flat cap's V its end ring's (its rim copies the ring, its centre "
          "is the path's end)")
WINDING = spec("sweep:winding", _S + "'Triangles are counter-clockwise from the side their normals face unless "
               "SweepWinding::Clockwise is requested' (triangles where the surface may fold are skipped: at "
               "their rings or between them, the Estimated risk)")

STATUS_NAMES = decision("sweep:status_names", "docs/decisions.md 'Sweeps: the request, statuses and order of "
                        "checks': a zero or negative scale is InvalidDomain; a request field naming nothing or a "
                        "nonfinite or empty profile InvalidArgument; frames that are unbuilt (or whose build fails) "
                        "MissingCache, of another revision StaleRevision, with a singular range, a joint that is not "
                        "G1 "
                        "or a closed path without periodic frames DegenerateFrame; more segments than "
                        "max_section_segments BudgetExceeded and counts above the request's CapacityExceeded at "
                        "planning; an emission after a failed plan MissingCache; and, beyond the spec, Flat caps on a "
                        "ribbon, profile distances that do not increase strictly and a closed path's non-periodic "
                        "profile InvalidArgument (the spec demands the first failures but names no status, and does "
                        "not say the last ones fail: without the decision any failure status is accepted there, and "
                        "success where only the decision fails)")

RULES = declare({"sweep.rings": (COUNTS, CAPACITY, PROFILE, RING_BOUNDS, SEAM_CAPS, UV, WINDING, DISTANCES),
                 "sweep.statuses": (STATUS_NAMES,)})

_mpq = gmpy2.mpq


def decode_mesh(claim):
    V = dec_array(claim.value["vertices"]).reshape(-1, VERTEX_WIDTH)
    I = int_array(claim.value["indices"])
    return V, I


def ring_span(ring, nspans: int) -> int:
    """The span index of a claimed ring (its first entry), checked against the path's ``nspans``
    spans: any other value makes the claim malformed (IndexError), whatever its size."""
    k = int(ring[0])
    if not 0 <= k < nspans:
        raise IndexError(f"ring span index {k} outside the path's {nspans} spans")
    return k


def _rings_reference(E, M, Smax):
    def ref(u, eta):
        q = to_mpq
        k = q(SWEEP_VERTEX_K)
        return [q(EM.position_bound(E, u, eta=eta)), k * q(u), k * q(u) * (q(M) + 2 * q(Smax)) + k * q(eta),
                k * q(u)]
    return ref


def _profile_scale_q(prof, s):
    """The profile's scale at distance s (exact rationals): ``(scale, largest key scale used)``."""
    if s <= prof[0][0]:
        return prof[0][1], abs(prof[0][1])
    if s >= prof[-1][0]:
        return prof[-1][1], abs(prof[-1][1])
    i = max(j for j in range(len(prof)) if prof[j][0] <= s)
    a, b = prof[i], prof[i + 1]
    return a[1] + (b[1] - a[1]) * (s - a[0]) / (b[0] - a[0]), max(abs(a[1]), abs(b[1]))


def _may_fold_between(C, ring_a, ring_b, prof, ribbon: bool) -> bool:
    """Whether the swept surface may fold between two consecutive rings: half-extent x
    curvature may reach 1 somewhere on the path between their parameters
    (``interval.sweep.may_fold``), with the largest scale on that stretch (the rings' own, and
    any profile key between their distances: the scale is linear between keys)."""
    ka, kb = ring_span(ring_a, len(C)), ring_span(ring_b, len(C))
    ua, ub, da, db = dec(ring_a[1]), dec(ring_b[1]), to_mpq(dec(ring_a[2])), to_mpq(dec(ring_b[2]))
    h = max([dec(ring_a[3]), dec(ring_b[3])] + [float(key[1]) for key in prof or () if da < key[0] < db])
    h = 0.5 * h if ribbon else h
    if ka == kb:
        pieces = [(ka, ua, ub)]
    else:
        pieces = [(ka, ua, 1.0)] + [(k, 0.0, 1.0) for k in range(ka + 1, kb)] + [(kb, 0.0, ub)]
    return any(may_fold(C[k], lo, hi, h) for k, lo, hi in pieces if lo <= hi)


def mesh_counts(section, nseg, r, caps):
    tube = section == "Tube"
    flat = caps == "Flat"
    per = nseg + 1 if tube else 2
    return per, r * per + (2 * (nseg + 1) if flat else 0), (r - 1) * (nseg if tube else 1) * 6 + \
        (6 * nseg if flat else 0)


def _distances(claim: Claim, C):
    """With the path's DistanceError claimed: every ring's distance (its vertices' V and the
    profile's argument) and the total within it of the true arc length, as the frame row judges
    its sample distances (:class:`interval.frame.Arcs`: float64 quadrature, its error estimate
    quadrupled into the tolerance). A closed path's last ring is at the total. None, or the
    Violated verdict."""
    inp = claim.inputs
    if "distance_error" not in inp:
        return None
    delta = dec(inp["distance_error"])
    arcs = Arcs(C)
    L = arcs.estimate_miss(dec(inp["total"]), None, None, delta)
    if L is not None:
        return violated(claim, {"why": "the total is farther than DistanceError from the arc length",
                                "total": inp["total"], "arc_length": enc(L)}, rule=DISTANCES.id)
    for i, ring in enumerate(inp["rings"]):
        k, u, d = ring_span(ring, len(C)), dec(ring[1]), dec(ring[2])
        if not 0.0 <= u <= 1.0:
            raise ValueError(f"ring {i}: u = {u!r} outside [0, 1]")
        last = inp["closed"] and i == len(inp["rings"]) - 1  # a closed path's last ring is at the total
        s = arcs.estimate_miss(d, None if last else k, u, delta)
        if s is not None:
            return violated(claim, {"why": f"ring {i}: its distance (V) is farther than DistanceError from the arc "
                                           f"length at (span {k}, u = {u!r})", "distance": ring[2],
                                    "arc_length": enc(s)}, rule=DISTANCES.id)
    return None


def check_rings(claim: Claim):
    """Rounded ring frames and vertices plus the exact mesh rules (seam, caps, closed copy,
    winding)."""
    inp = claim.inputs
    C = dec_array(inp["controls"]).reshape(-1, 4, 3)
    nseg, section = int(inp["segments"]), inp["section"]
    rings = inp["rings"]
    r = len(rings)
    V, I = decode_mesh(claim)
    per, nv, ni = mesh_counts(section, nseg, r, inp["caps"])
    if V.shape[0] != nv or I.shape[0] != ni:
        return violated(claim, {"why": "vertex or index count off the mesh rules", "vertices": V.shape[0],
                                "expected_vertices": nv, "indices": I.shape[0], "expected_indices": ni}, rule=COUNTS.id)
    if not np.all(np.isfinite(V)) or (ni and (I.min() < 0 or I.max() >= nv)):
        return violated(claim, {"why": "a nonfinite vertex or an index out of range"}, rule=COUNTS.id)
    cap = claim.value.get("capacity")
    if cap is not None:
        for name in ("short_vertices", "short_indices"):
            if cap.get(name) != "CapacityExceeded" or cap.get(name + "_unchanged") is not True:
                return violated(claim, {"why": f"emission into arrays one entry short ({name}) must be "
                                               "CapacityExceeded before anything is written", "claimed": cap},
                                rule=CAPACITY.id)
    bad = _distances(claim, C)
    if bad is not None:
        return bad
    prof = [[to_mpq(dec(x)) for x in k] for k in inp["profile"]] if "profile" in inp else None
    if prof is not None and (not prof or any(len(k) != 3 for k in prof)
                             or any(prof[i + 1][0] <= prof[i][0] for i in range(len(prof) - 1))):
        raise ValueError("profile keys are [distance, scale, roll] with increasing distances")
    E = max(EM.span_magnitude(C[ring_span(x, len(C))]) for x in rings)
    M = max(float(np.max(np.abs(dec_array(x[4])))) for x in rings)
    Smax = max(dec(x[3]) for x in rings)
    res = resolve(claim, _rings_reference(E, M, Smax), constant=SWEEP_VERTEX_K)
    b_pos, b_orth, b_vert, b_norm = res.bound
    worst = 0.0
    use = 0.0
    one = _mpq(1)
    ribbon = section == "Ribbon"
    for i, ring in enumerate(rings):
        k, u, Vd, sc = ring_span(ring, len(C)), dec(ring[1]), dec(ring[2]), dec(ring[3])
        x, t, n, b = (dec_array(ring[j]) for j in (4, 5, 6, 7))
        last_copy = inp["closed"] and i == r - 1
        if prof is not None and not last_copy:
            want, size = _profile_scale_q(prof, to_mpq(Vd))
            # linear between keys in the ring's distance, clamped outside them: a few roundings
            if abs(to_mpq(sc) - want) > 8 * to_mpq(U64) * size:
                return violated(claim, {"why": f"ring {i}: the scale is not the profile's at the ring's distance",
                                        "scale": ring[3], "profile_scale": enc(want)}, rule=PROFILE.id, **res.extra())
        if not last_copy:
            truth = K.cubic_point(QQ, QQ.asarray(C[k]), QQ.asarray(np.float64(u)))
            e = max(abs(to_mpq(float(a)) - q) for a, q in zip(x, truth))
            use = max(use, ratio(e, b_pos))
            if e > b_pos:
                return violated(claim, {"why": f"ring {i} position off B(u)", "error": enc(e), "bound": enc(b_pos)},
                                bound_use=ratio(e, b_pos), rule=RING_BOUNDS.id, **res.extra())
            tq, nq, bq = QQ.asarray(t), QQ.asarray(n), QQ.asarray(b)
            e = max(abs(K.dot(QQ, tq, tq) - one), abs(K.dot(QQ, nq, nq) - one), abs(K.dot(QQ, bq, bq) - one),
                    abs(K.dot(QQ, tq, nq)), abs(K.dot(QQ, tq, bq)), abs(K.dot(QQ, nq, bq)),
                    max(abs(y) for y in (bq - K.cross(QQ, tq, nq))))
            use = max(use, ratio(e, b_orth))
            if e > b_orth:
                return violated(claim, {"why": f"ring {i} frame not orthonormal and right-handed", "error": enc(e)},
                                bound_use=ratio(e, b_orth), rule=RING_BOUNDS.id, **res.extra())
        offs, dirs = ring_offsets_iv(n, b, sc, nseg, ribbon)
        rows = V[i * per:(i + 1) * per]
        npts = len(offs)
        for j in range(npts):
            for c in range(3):
                p = to_mpq(float(rows[j, c])) - to_mpq(float(x[c]))
                lo, hi = offs[j][c]
                e = max(abs(p - lo), abs(p - hi))
                if e > b_vert:
                    return violated(claim, {"why": f"ring {i} vertex {j} off its exact position", "error": enc(e),
                                            "bound": enc(b_vert)}, bound_use=ratio(e, b_vert), rule=RING_BOUNDS.id,
                                    **res.extra())
                worst = max(worst, ratio(e, b_vert))
                nn = to_mpq(float(rows[j, 3 + c]))
                lo, hi = dirs[j][c]
                en = max(abs(nn - lo), abs(nn - hi))
                if not ribbon:
                    use = max(use, ratio(en, b_norm))
                if not ribbon and en > b_norm:
                    return violated(claim, {"why": f"ring {i} vertex {j} normal off its direction"},
                                    bound_use=ratio(en, b_norm), rule=RING_BOUNDS.id, **res.extra())
            want_u = _mpq(j, nseg) if not ribbon else _mpq(j)
            # U is j / N rounded once to float64 (within u of it, relative); V the ring distance.
            if abs(to_mpq(float(rows[j, 6])) - want_u) > want_u * to_mpq(U64) or float(rows[j, 7]) != Vd:
                return violated(claim, {"why": f"ring {i} vertex {j}: U must be {want_u}, V the ring distance"},
                                rule=UV.id, **res.extra())
        if not ribbon:
            if rows[nseg, :6].tobytes() != rows[0, :6].tobytes() or rows[nseg, 6] != 1.0:
                return violated(claim, {"why": f"ring {i}: the seam vertex must copy the first with U = 1"},
                                rule=SEAM_CAPS.id, **res.extra())
        elif not np.array_equal(rows[0, 3:6], n) or not np.array_equal(rows[1, 3:6], n):
            return violated(claim, {"why": f"ribbon ring {i} must face its frame normal"}, rule=SEAM_CAPS.id,
                            **res.extra())
    if inp["closed"]:
        a, z = V[:per], V[(r - 1) * per:r * per]
        if a[:, :6].tobytes() != z[:, :6].tobytes() or not np.all(z[:, 7] == dec(inp["total"])):
            return violated(claim, {"why": "a closed path's last ring must copy the first with V = total"},
                            rule=SEAM_CAPS.id, **res.extra())
    if inp["caps"] == "Flat":
        base = r * per
        for end, sign in ((0, -1.0), (r - 1, 1.0)):
            cap = V[base:base + nseg + 1]
            ring = V[end * per:end * per + nseg]
            tn = sign * dec_array(rings[end][5])
            if cap[1:, :3].tobytes() != ring[:, :3].tobytes() or not np.all(cap[:, 3:6] == tn):
                return violated(claim, {"why": f"cap at ring {end}: rims must copy the ring positions bitwise "
                                               f"and carry the cap normal"}, rule=SEAM_CAPS.id, **res.extra())
            if not np.all(cap[:, 7] == ring[0, 7]):
                return violated(claim, {"why": f"cap at ring {end}: V is estimated path distance, the end ring's "
                                               f"{ring[0, 7]!r} on every cap vertex"}, rule=UV.id, **res.extra())
            base += nseg + 1
    ccw = inp["winding"] == "CounterClockwise"
    P = [[to_mpq(float(c)) for c in row[:3]] for row in V]
    # Where half-extent x curvature may reach 1 the surface may fold (the risk the Estimated row
    # counts) and its triangles are not judged for winding: those touching such a ring, and the
    # body triangles joining rings i and i + 1 when it may reach 1 anywhere between them (a fold
    # between two rings flips the triangles there as surely as one at a ring).
    folded = set()
    for i, ring in enumerate(rings):
        sc = dec(ring[3])
        _, hi = curvature_product_iv(C[int(ring[0])], dec(ring[1]), 0.5 * sc if ribbon else sc)
        if hi >= 1:
            folded.add(i)
    folded_between = {i for i in range(r - 1) if _may_fold_between(C, rings[i], rings[i + 1], prof, ribbon)}
    skipped = 0
    for ti in range(ni // 3):
        a, b, c = (int(q) for q in I[3 * ti:3 * ti + 3])
        body = {q // per for q in (a, b, c) if q < r * per}
        touched = body | ({0} if max(a, b, c) >= r * per and min(a, b, c) < r * per + nseg + 1 else set()) \
            | ({r - 1} if max(a, b, c) >= r * per + nseg + 1 else set())
        if touched & folded or (len(body) == 2 and min(body) in folded_between):
            skipped += 1
            continue
        e1 = [P[b][q] - P[a][q] for q in range(3)]
        e2 = [P[c][q] - P[a][q] for q in range(3)]
        nrm = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
        avg = [to_mpq(float(V[a, 3 + q] + V[b, 3 + q] + V[c, 3 + q])) for q in range(3)]
        d = sum(x * y for x, y in zip(nrm, avg))
        if (d <= 0) if ccw else (d >= 0):
            return violated(claim, {"why": f"triangle {ti} is not {'counter' if ccw else ''}clockwise seen from "
                                           f"its normals", "indices": [a, b, c]}, rule=WINDING.id, **res.extra())
    # measured: the vertices' error ratio; bound_use: the largest ratio over every bound of the row
    return verified(claim, measure="error_ratio", measured=worst, bound_use=max(use, worst),
                    winding_skipped=skipped, **res.extra())
