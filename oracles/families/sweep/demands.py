"""What the spec demands of a sweep plan, decided with the oracle on the exact inputs.

Nothing here runs the fast path:

* :func:`segments_needed`: spec 002, "A tube uses the fewest polygon segments whose error at the
  largest profile scale fits CrossSectionError": the fewest ``N >= 3`` with ``r_max (1 - cos(pi /
  N)) <= CrossSectionError``, each sagitta enclosed by mpmath intervals (``checks_estimates.sagitta_iv``)
  and decided outside the band ``8 u r_max`` the float64 evaluation may err by (the checker's band).
* :func:`plan_counts`: the rings the spec's stepping rule places (docs/decisions.md "Sweeps: ring
  acceptance": hull distance + midpoint deviation + a quarter of the quad twist against
  LongitudinalError, from depth 0) where they follow from exact geometry: a path of straight spans
  of uniform speed along one line (the hull distance is 0 and the frames are one transported frame,
  the RMF of a line) with one scale, where every interval of a constant roll is accepted at depth 0
  (``r = spans + 1`` rings), and one such span with two keys rolling linearly in distance, where the
  offsets turn rigidly by ``R (b - a)`` over ``[a, b]`` and every interval of one depth has the same
  acceptance quantity (evaluated in mpmath at 113 bits, decided outside a relative band 2^-20).
  Then the vertex and index counts of spec 002's mesh rules.
"""

from __future__ import annotations

import math

from mpmath import mp

from reference.fp import U64
from reference.sweep import RING_BYTES

from ...model import dec, dec_array
from .checks_estimates import sagitta_iv

__all__ = ["mesh_counts", "plan_counts", "segments_needed"]

_BAND = 2.0**-20  # relative band of a ring acceptance decision


def segments_needed(r_max: float, xerr: float, cap: int = 1 << 16):
    """``(N, why)``: the fewest segments the rule gives, or ``(None, why)`` inside the band."""
    band = 8 * U64 * r_max
    n0 = 3
    if 2 * r_max > xerr:  # an estimate to start from: 1 - cos(pi / N) = 2 sin^2(pi / 2N)
        n0 = max(3, int(math.pi / (2 * math.asin(math.sqrt(xerr / (2 * r_max))))) - 2)
    for n in range(n0, cap + 1):
        lo, hi = sagitta_iv(r_max, n)
        if float(hi) <= xerr - band:
            if n > 3:
                lo1, _ = sagitta_iv(r_max, n - 1)
                if not float(lo1) > xerr + band:
                    return None, f"the sagitta of {n - 1} segments is within rounding of CrossSectionError"
            return n, f"the fewest segments whose sagitta at the largest scale fits CrossSectionError: {n}"
        if float(lo) <= xerr + band:
            return None, f"the sagitta of {n} segments is within rounding of CrossSectionError"
    return cap + 1, f"more than {cap} segments"


def _straight(C):
    """The common unit direction and the speeds of spans that are straight and uniform (``P_i =
    P_0 + i D`` exactly) along one line, joined end to start; else None."""
    d0 = None
    for k, P in enumerate(C):
        D = P[1] - P[0]
        if not (P[2] - P[1] == D).all() or not (P[3] - P[2] == D).all() or not D.any():
            return None
        if k and not (P[0] == C[k - 1][3]).all():
            return None
        u = D / float(math.sqrt(float(D @ D)))
        if d0 is not None and (abs(u - d0) > 1e-15).any():
            return None
        d0 = u
    return d0


def _rolling_quantity(h: float, length: float, delta, ribbon: bool, nseg: int):
    """The acceptance quantity of an interval of a straight uniform span ``length`` long over which
    the section (half extent ``h`` of a ribbon, radius of a tube) turns rigidly by ``delta``
    (mpmath): the midpoint deviation ``h (1 - cos(delta / 2))`` plus a quarter of the largest quad
    twist projected on the quad normal (docs/decisions.md "Sweeps: ring acceptance")."""
    with mp.workprec(113):
        h, L, delta = mp.mpf(h), mp.mpf(length), mp.mpf(delta)
        angles = [mp.mpf(0), mp.pi] if ribbon else [2 * mp.pi * j / nseg for j in range(nseg)]
        # a ribbon's two points are -/+ h B: angles 0 and pi about the tangent
        def o(j, phi):
            a = angles[j] + phi
            return [mp.mpf(0), h * mp.cos(a), h * mp.sin(a)]
        mid = h * (1 - mp.cos(delta / 2))
        worst = mp.mpf(0)
        m = len(angles)
        for j in range(m):
            nx = (j + 1) % m
            oa, ob, na, nb = o(j, 0), o(j, delta), o(nx, 0), o(nx, delta)
            tw = [(oa[i] - ob[i]) - (na[i] - nb[i]) for i in range(3)]
            e1 = [na[i] - oa[i] for i in range(3)]
            e2 = [(L if i == 0 else 0) + ob[i] - oa[i] for i in range(3)]
            qn = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
            qq = mp.sqrt(sum(x * x for x in qn))
            out = abs(sum(x * y for x, y in zip(tw, qn))) / qq if qq > 0 else mp.sqrt(sum(x * x for x in tw))
            worst = max(worst, out)
        return mid + worst / 4


def mesh_counts(rings: int, nseg: int, tube: bool, flat: bool) -> tuple:
    """Vertices and indices of spec 002's mesh rules: a tube ring repeats its first vertex (N + 1
    vertices), a ribbon ring has 2; Flat caps add a centre and N rim vertices per end and a fan of
    N triangles; every ring interval N quads (a ribbon's one), two triangles each."""
    per = nseg + 1 if tube else 2
    quads = nseg if tube else 1
    return rings * per + (2 * (nseg + 1) if flat else 0), (rings - 1) * quads * 6 + (6 * nseg if flat else 0)


def plan_counts(path: dict, request: dict, nseg: int):
    """``(counts, why)`` of a plan whose rings follow from exact geometry (module docstring), or
    ``(None, why)``: ``counts`` has ``rings``, ``depth``, ``splits``, ``bytes``, ``vertices``,
    ``indices``."""
    C = dec_array([s["controls"] for s in path["spans"]]) - dec_array(path["origin"])
    C = C.astype("float32").astype("float64")
    if path["is_closed"] or _straight(C) is None:
        return None, "the rings follow from Estimated frame evaluations the oracle does not replay"
    prof = [[dec(x) for x in k] for k in request["profile"]]
    scales = {k[1] for k in prof}
    rolls = {k[2] for k in prof}
    n = C.shape[0]
    tube = request["section"] == "Tube"
    lerr = dec(request["longitudinal_error"])
    if len(scales) == 1 and len(rolls) == 1:
        depth, per_span = 0, 1
    elif len(scales) == 1 and n == 1 and len(prof) == 2:
        L = 3 * float(math.sqrt(float((C[0][1] - C[0][0]) @ (C[0][1] - C[0][0]))))
        if prof[0][0] != 0.0 or prof[1][0] != L:
            return None, "the profile keys are not at the path's ends"
        R = prof[1][2] - prof[0][2]
        h = prof[0][1] / 2 if not tube else prof[0][1]
        depth = 0
        while True:
            w = 2.0**-depth
            e = _rolling_quantity(h, L * w, R * w, not tube, nseg)
            if e <= lerr * (1 - _BAND):
                break
            if e <= lerr * (1 + _BAND) or depth >= 52:
                return None, f"the acceptance quantity at depth {depth} is within rounding of LongitudinalError"
            depth += 1
        per_span = 2**depth
    else:
        return None, "a profile that is neither constant nor one linear roll over one span is not replayed"
    rings = n * per_span + 1
    flat = tube and request["caps"] == "Flat"
    v, i = mesh_counts(rings, nseg, tube, flat)
    return {"rings": rings, "depth": depth, "splits": n * (per_span - 1), "bytes": rings * RING_BYTES,
            "vertices": v, "indices": i}, "rings from exact geometry (docs/decisions.md 'Sweeps: ring acceptance')"
