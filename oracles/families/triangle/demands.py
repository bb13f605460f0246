"""What spec 004 demands of a triangle request, decided on the exact analysis (:mod:`.analysis`).

What a query must do (:func:`query_expectation`, the requests' expected status of ``first_hit``):

* **Ambiguous** when some facet makes every published hit or miss wrong: an exactly coplanar
  overlap, an exact contact on a facet the model cannot bound or within the tolerance of
  parallel, or a facet forced into a band (the ``triangle.ambiguity`` checker's conditions);
* **Success** when no candidate facet can put a computed quantity inside its band even with
  the model and the bands widened eightfold (:func:`may_be_ambiguous`);
* **either** otherwise: spec 004 lets the policy "conservatively reject queries that stronger
  predicates resolve", and between the model doubled and eightfold the oracle's model cannot
  decide band membership.

Admission (:func:`admission_conditioning`): spec 004's "numerically conditioned nonzero facet
area" on the exact normalized cross magnitude ``G`` against the documented ``|g - G| <= 30u``.
"""

from __future__ import annotations

import math

import gmpy2

from interval.triangle import facet_of_points, sqrt_up
from reference.triangle_surface import U

from .analysis import _U_Q, Analysis, _forced, _near_parallel_overlap, _quantities, band_possible

__all__ = ["WIDEN", "admission_conditioning", "may_be_ambiguous", "must_be_ambiguous", "query_expectation"]

# The requests' expected status of first_hit (oracles/families/triangle/requests.py), decided on
# the exact analysis. Widening: a facet counts as possibly ambiguous while a conforming run could
# put one of its computed quantities inside its band with the model and bands widened eightfold
# (the ambiguity checker's outer margin); the near-parallel branch is certainly a miss when both
# exact heights lie on one side, beyond sixteen times the off-plane band tol (m + |d|) + eta (the
# fast path's own eta is within a factor ~6 of the oracle's on an admitted facet).

WIDEN = 8
_OFF_WIDEN = 16


def _off_plane(an: Analysis, j: int) -> bool:
    """Both exact unit-normal heights of the segment's ends lie on one side of facet ``j``'s
    plane, beyond the near-parallel off-plane band (``tol (m + |d|) + eta``, docs/decisions.md
    "Triangle surfaces: the tolerance bands") widened sixteenfold: the near-parallel branch of
    every conforming run calls the facet a miss."""
    ct, md, f = an.contact(j), an.model(j), an.facet(j)
    if (ct.hs > 0) != (ct.he > 0) or ct.hs == 0 or ct.he == 0:
        return False
    low = min(abs(ct.hs), abs(ct.he)) / sqrt_up(f.norm2)
    return low > _OFF_WIDEN * (an.tolerance * (an.scale(j) + an.dn_up) + md.eta[0] + md.eta[1])


def may_be_ambiguous(an: Analysis, j: int, widen: int = WIDEN) -> bool:
    """Can a conforming binary64 run call facet ``j`` ambiguous, with the model and the bands
    widened by ``widen``? False only when every branch the run can take is decided by a wide
    margin: the near-parallel branch (reachable when the heights' difference is within the
    widened near-parallel band) is certainly off the plane, and the crossing branch has its
    parameter certainly beyond a segment end, or a weight certainly beyond its band with no
    quantity that could lie inside one. A facet the model cannot bound is possibly ambiguous."""
    tol = an.tolerance
    ct, md = an.contact(j), an.model(j)
    parallel_reachable = ct.parallel or md.r_t is None or md.d_lo <= widen * (tol * an.dn_up + 5 * sum(md.eta))
    if parallel_reachable and not _off_plane(an, j):
        return True  # a near-parallel overlap cannot be excluded (the separation test is not modelled)
    if ct.parallel or md.r_t is None:
        return False  # only the near-parallel branch is reachable, and it is off the plane
    # The run tests t first: a parameter certainly beyond a segment end is a miss whatever else.
    r_t = md.r_t
    t_lo, t_hi = (ct.t - r_t, ct.t + r_t) if md.exact_t is None else (gmpy2.mpq(md.exact_t),) * 2
    if t_hi < -widen * (tol + r_t) or t_lo > 1 + widen * (tol + r_t):
        return False
    if md.r_l is None or max(md.r_l) * 2 * widen > 1:
        return True  # the weights' bound may exceed 1/2 (ambiguous), or a far offset may be ambiguous
    return band_possible(_quantities(an, j), widen, tol)


def must_be_ambiguous(an: Analysis) -> tuple | None:
    """``(facet, reason)`` when every published hit or miss of the query is wrong (the
    ``triangle.ambiguity`` checker's conditions), else None."""
    overlap = an.coplanar_overlap
    if overlap:
        return overlap[0], "the segment lies in the facet's plane and overlaps it exactly"
    hits = an.hits()
    for c in hits:
        if an.model(c.triangle).r_t is None:
            return c.triangle, "an exact contact on a facet within rounding of parallel to the segment"
    for c in hits:
        if _near_parallel_overlap(an, c.triangle):
            return c.triangle, "an exact contact with the segment within the tolerance of parallel to the facet"
    for j in an.candidates:
        got = _forced(an, j)
        if got is not None and got[0]:
            names = ", ".join(q.name for q in got[0])
            return j, f"a hit or ambiguous in every conforming run, with {names} certainly inside its band"
    return None


_WHY_AMBIGUOUS = ("spec 004: 'Overlapping coplanar/near-parallel candidates are ambiguous. Values just outside or "
                  "inside barycentric/segment boundaries within the uncertainty band are also ambiguous ... One "
                  "ambiguous candidate rejects the whole query'; docs/decisions.md 'Triangle surfaces: the tolerance "
                  "bands'")
_WHY_CONSERVATIVE = "spec 004: 'The policy can conservatively reject queries that stronger predicates resolve'"
_WHY_DECIDED = ("no candidate facet can put a computed boundary quantity inside its band, with the documented model "
                "and bands widened eightfold, and a facet whose exact box misses the segment's is a miss (spec 004: "
                "'Segment/facet axis bounds provide a simple rejection phase'; docs/decisions.md 'Triangle surfaces: "
                "the tolerance bands'): a conforming run publishes the hit or miss (spec 004 Segment query)")


def query_expectation(an: Analysis) -> tuple[str, str]:
    """``(kind, why)``: ``"ambiguous"`` (the query must be rejected), ``"success"`` (a hit or a
    miss must be published) or ``"either"`` (both are allowed), with the reason. Exact."""
    forced = must_be_ambiguous(an)
    if forced is not None:
        j, reason = forced
        return "ambiguous", f"facet {j}: {reason}; {_WHY_AMBIGUOUS}"
    maybe = [j for j in an.candidates if may_be_ambiguous(an, j, WIDEN)]
    if not maybe:
        return "success", _WHY_DECIDED
    j = next((j for j in maybe if may_be_ambiguous(an, j, 2)), None)
    if j is not None:
        return "either", (f"facet {j} can fall inside a band (the model doubled) although no facet is forced "
                          f"into one; {_WHY_CONSERVATIVE}")
    return "either", (f"facet {maybe[0]} lies between the model doubled and eightfold of its bands: the oracle's "
                      f"model cannot decide its band membership; {_WHY_CONSERVATIVE}")


def admission_conditioning(vertices, triangles, tolerance) -> list[tuple[int, str]]:
    """Facets whose conditioning decides admission, from exact values: ``(index, verdict)`` with
    verdict ``"zero"`` (exactly zero area, or every edge zero), ``"ill"`` (``G + 32u <= tol``:
    every conforming binary64 admission computes ``g <= tol`` and rejects it) or ``"band"``
    (``|G - tol| < 32u``: admission may go either way); facets with ``G - 32u > tol`` are left
    out. ``G = |E1 x E2| / m^2`` with ``m`` the largest component of the rounded edges (spec 004:
    "admission scales by their largest component before forming e1 x e2"), ``|g - G| <= 30u``
    (docs/decisions.md "Triangle surfaces: error model"). ``vertices``: float triples, finite;
    ``triangles``: valid index triples."""
    tol = gmpy2.mpq(tolerance)
    # A float estimate of g (within 30u of G, as the fast path's own) clears most facets; those
    # near or below the threshold are decided exactly (Analysis._admission's filter).
    clear = float(tolerance) + 64 * U
    out = []
    for j, tri in enumerate(triangles):
        a, b, c = (vertices[i] for i in tri)
        e1 = [b[k] - a[k] for k in range(3)]
        e2 = [c[k] - a[k] for k in range(3)]
        m = max(max(abs(x) for x in e1), max(abs(x) for x in e2))
        if m > 0:
            x0, x1, x2 = e1[0] / m, e1[1] / m, e1[2] / m
            y0, y1, y2 = e2[0] / m, e2[1] / m, e2[2] / m
            n0, n1, n2 = x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0
            if math.sqrt(n0 * n0 + n1 * n1 + n2 * n2) > clear:
                continue
        try:
            f = facet_of_points(*(tuple(gmpy2.mpq(x) for x in v) for v in (a, b, c)))
        except ValueError:
            out.append((j, "zero"))
            continue
        m2 = gmpy2.mpq(m) ** 2
        lo, hi = (tol - 32 * _U_Q) * m2, (tol + 32 * _U_Q) * m2  # G vs tol -+ 32u, times m^2
        if lo > 0 and f.norm2 <= lo * lo:
            out.append((j, "ill"))
        elif f.norm2 <= hi * hi:
            out.append((j, "band"))
    return out
