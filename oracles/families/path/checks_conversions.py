"""The conversion checker (``path.conversions``, Rounded): Hermite and centripetal Catmull-Rom
spans against the exact (Hermite: QQ) or enclosed (Catmull-Rom: IV) conversion of the source
waypoints, and a claimed InvalidDomain against the exact first coincident pair."""

from __future__ import annotations

import math

import numpy as np

from interval.context import IV, QQ, lower, lower_float, to_mpq, upper, upper_float
from reference import error_model as EM
from reference import kernel as K
from reference.status import GeometryStatus

from ...decide import Decision, refine
from ...errormodel import Resolved, VacuousModel, vacuous_verdict
from ...errormodel import ratio as error_ratio
from ...model import Claim, dec, dec_array, enc, undecided, verified, violated
from ...rules import binding, decision, declare, judged, spec
from . import checks as _C
from .checks import (
    ERROR_MODEL,
    OUT_OF_RANGE,
    _exact_ratio,
    _iv_of,
    _nonfinite,
    _nonfinite_violation,
    _resolve,
    _same_values,
)

__all__ = ["RULES", "check_conversions", "first_coincident_pair"]

_S = "spec 002 Paths: "
CONVERSION = spec("path:conversion", _S + "'TryConvertHermite applies B1 = P0 + h*T0/3 and B2 = P1 - h*T1/3 with each "
                  "waypoint's explicit OutgoingWidth'; 'TryConvertCentripetalCatmullRom uses the nonuniform "
                  "Barry-Goldman tangent at interior waypoints and the one-sided chord tangent at open endpoints' with "
                  "sqrt(chord) knots: the end controls are the waypoints and a Hermite width the OutgoingWidth, "
                  "exactly; the inner controls and knot interval against the exact conversion")
COINCIDENT = spec("path:coincident", _S + "'It rejects consecutive waypoints within coincidenceDistance as "
                  "InvalidDomain': no success with such a pair, and a claimed InvalidDomain names one")
COINCIDENT_INDEX = decision("path:coincident_index", "docs/decisions.md 'Centripetal Catmull-Rom sources': the "
                            "diagnostic names the first pair within the coincidence distance (the spec does not say "
                            "which; without the decision any such pair is accepted)")

RULES = declare({"path.conversions": (CONVERSION, COINCIDENT, COINCIDENT_INDEX, ERROR_MODEL, OUT_OF_RANGE)})


def _neighbourhood(n: int, i: int, closed: bool) -> list[int]:
    idx = [i - 1, i, i + 1, i + 2]
    if closed:
        return [k % n for k in idx]
    return [k for k in idx if 0 <= k < n]


def _hermite_reference(P, T, h, i, j):
    def ref(u, eta):
        b = np.maximum(EM.hermite_bound(P[i], T[i], h, u, eta=eta), EM.hermite_bound(P[j], T[j], h, u, eta=eta))
        return float(np.max(b))
    return ref


def _catmull_rom_reference(points, d: float):
    """[inner-control bound, knot-interval (width) bound at knot interval d]."""
    return lambda u, eta: [EM.catmull_rom_bound(points, u), EM.knot_interval_bound(d, u, eta=eta)]


def _first_coincident_pair(P, closed, dist):
    """The first pair (a, a+1) within ``dist`` of each other (exact squared distances), or None."""
    n = P.shape[0]
    for a in range(n if closed else n - 1):
        # Differences of float64 are not exact in float64: take them in rationals.
        sq = sum((to_mpq(float(x)) - to_mpq(float(y))) ** 2 for x, y in zip(P[(a + 1) % n], P[a]))
        if sq <= dist * dist:
            return a
    return None


def _resolve_or_refuse(claim: Claim, reference, got, width):
    """The claim's bound (``_resolve``), or, where the row's model gives none (near the float64
    range's ends), the verdict: a claimed value that is not finite is Violated by the decision
    ``path:out_of_range`` (a conversion whose arithmetic overflows fails with OutOfRange: a
    Success never carries a value that is not finite); anything else is Undecided (nothing to
    judge it against), as every vacuous model leaves a claim."""
    try:
        return _resolve(claim, reference)
    except VacuousModel as e:
        if _nonfinite(got, width) and binding(OUT_OF_RANGE):
            return violated(claim, {"claimed": claim.value, "why": "a Success with a value that is not finite: a "
                                    "conversion whose arithmetic overflows must fail (OutOfRange)"},
                            measure="error_ratio", bound_use=math.inf, rule=OUT_OF_RANGE.id)
        return vacuous_verdict(claim, e)


@judged
def check_conversions(claim: Claim):
    """Rounded: Hermite (exact QQ truth) and centripetal Catmull-Rom (IV truth) controls within
    ``hermite_bound`` / ``catmull_rom_bound`` per component (and the Catmull-Rom width within
    ``knot_interval_bound``); endpoints and Hermite widths are copies and must be exact; a
    Catmull-Rom success needs no pair within the coincidence distance; failures must be the
    documented status at the right index."""
    inp = claim.inputs
    P = dec_array(inp["points"])
    closed = bool(inp["is_closed"])
    if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2:
        raise ValueError("points must be (n, 3), n >= 2")
    n = P.shape[0]
    if "status" in claim.value:
        return _check_conversion_failure(claim, P, closed)
    if "span" not in inp:
        raise ValueError("a converted span's claim needs inputs.span")
    i = int(inp["span"])
    if not 0 <= i < (n if closed else n - 1):
        raise ValueError(f"span {i} out of range for {n} points")
    j = (i + 1) % n
    got = dec_array(claim.value["controls"])
    width = dec(claim.value["width"])
    if got.shape != (4, 3):
        raise ValueError("controls must be (4, 3)")
    if inp["kind"] == "hermite":
        T = dec_array(inp["tangents"])
        H = dec_array(inp["widths"])
        if T.shape != P.shape or H.shape != (n,):
            raise ValueError("a Hermite source needs one tangent and one width per point")
        h = H[i]
        r = _resolve_or_refuse(claim, _hermite_reference(P, T, h, i, j), got, width)
        if not isinstance(r, Resolved):
            return r
        if _nonfinite(got, width):
            return _nonfinite_violation(claim, r)
        copies_ok = _same_values(got[0], P[i]) and _same_values(got[3], P[j])
        b1, b2 = K.hermite_inner_controls(QQ, QQ.asarray(P[i]), QQ.asarray(T[i]), QQ.asarray(P[j]),
                                          QQ.asarray(T[j]), QQ.asarray(h))
        ok1, r1, _ = _exact_ratio(got[1], b1, r.scalar())
        ok2, r2, _ = _exact_ratio(got[2], b2, r.scalar())
        ok = copies_ok and ok1 and ok2 and width == h
        ratio = max(r1, r2)
        if ok:
            return verified(claim, measure="error_ratio", measured=ratio, bound_use=ratio, **r.extra())
        return violated(claim, {"copies_exact": copies_ok, "width_exact": width == h, "ratio": ratio,
                                "bound": enc(r.scalar())}, measure="error_ratio", measured=ratio, bound_use=ratio,
                        rule=ERROR_MODEL.id if copies_ok and width == h else CONVERSION.id, **r.extra())
    pts = P[_neighbourhood(n, i, closed)]
    if _nonfinite(got, width):
        r = _resolve_or_refuse(claim, _catmull_rom_reference(pts, 0.0), got, width)
        return _nonfinite_violation(claim, r) if isinstance(r, Resolved) else r
    coincident = _first_coincident_pair(P, closed, to_mpq(dec(inp["coincidence_distance"])))
    if coincident is not None:
        return violated(claim, {"why": "a pair of waypoints lies within the coincidence distance: "
                                       "the conversion must fail (InvalidDomain)",
                                "exact_first_coincident_pair": coincident}, rule=COINCIDENT.id)
    copies_ok = _same_values(got[0], P[i]) and _same_values(got[3], P[j])

    def at(prec):
        ctx = IV(prec)
        b1, b2, d = _catmull_rom_span_iv(ctx, P, i, closed)
        with ctx.scope():
            e1 = np.abs(_iv_of(ctx, got[1]) - b1)
            e2 = np.abs(_iv_of(ctx, got[2]) - b2)
            ed = abs(_iv_of(ctx, width) - d)
        # The width bound grows with the knot interval: the smallest d gives the bound to meet,
        # the largest the bound whose excess refutes.
        r_lo = _resolve(claim, _catmull_rom_reference(pts, lower_float(d)))
        r_hi = _resolve(claim, _catmull_rom_reference(pts, upper_float(d)))
        bound, wb, wb_hi = r_lo.bound[0], r_lo.bound[1], r_hi.bound[1]
        e_hi = max(upper(x) for x in list(e1) + list(e2))
        e_lo = max(lower(x) for x in list(e1) + list(e2))
        w_hi, w_lo = upper(ed), lower(ed)
        ratio = max(error_ratio(e_hi, bound), error_ratio(w_hi, wb) if wb > 0 else 0.0)
        detail = {"ratio": ratio, "resolved": r_lo}
        if not copies_ok or e_lo > bound or w_lo > wb_hi:
            return Decision(False, prec, [enc(e_lo), enc(e_hi)], {**detail, "copies_exact": copies_ok,
                                                                  "bound": enc(bound)})
        if e_hi <= bound and w_hi <= wb:
            return Decision(True, prec, None, detail)
        return Decision(None, prec, [enc(e_lo), enc(e_hi)], detail)

    d = refine(at, _C.BUDGET)
    extra = d.detail["resolved"].extra()
    shown = {k: v for k, v in d.detail.items() if k != "resolved"}
    use = d.detail["ratio"]
    if d.holds is True:
        return verified(claim, measure="error_ratio", measured=use, prec=d.prec, bound_use=use, **extra)
    if d.holds is False:
        return violated(claim, {"error_interval": d.enclosure, **shown}, measure="error_ratio",
                        measured=use, prec=d.prec, bound_use=use,
                        rule=CONVERSION.id if shown.get("copies_exact") is False else ERROR_MODEL.id, **extra)
    return undecided(claim, d.enclosure, prec=d.prec, bound_use=use, **extra)


def _catmull_rom_span_iv(ctx, P, i, closed):
    """IV enclosures of span i's inner controls and knot interval, from the kernel formulas."""
    n = P.shape[0]
    Pi = ctx.asarray(P)

    def knot(a):  # interval of span a: P[a] -> P[a+1]
        return K.centripetal_knot_interval(ctx, Pi[a], Pi[(a + 1) % n])

    def tangent(k):
        if not closed and k == 0:
            return K.chord_tangent(ctx, Pi[0], Pi[1], knot(0))
        if not closed and k == n - 1:
            return K.chord_tangent(ctx, Pi[n - 2], Pi[n - 1], knot(n - 2))
        return K.barry_goldman_tangent(ctx, Pi[(k - 1) % n], Pi[k], Pi[(k + 1) % n], knot((k - 1) % n), knot(k))

    j = (i + 1) % n
    d = knot(i)
    b1, b2 = K.hermite_inner_controls(ctx, Pi[i], tangent(i), Pi[j], tangent(j), d)
    return b1, b2, d


def _check_conversion_failure(claim: Claim, P, closed):
    """A claimed failure: InvalidDomain must name the first pair within the coincidence
    distance (exact distance compared exactly); capacity failures are not generated here."""
    status = claim.value["status"]
    if status != GeometryStatus.InvalidDomain.value or claim.inputs["kind"] != "catmull_rom":
        return undecided(claim, None, note=f"no replay for conversion failure {status}")
    dist = to_mpq(dec(claim.inputs["coincidence_distance"]))
    first = _first_coincident_pair(P, closed, dist)
    if first is not None and claim.value["index"] == first:
        return verified(claim, note="coincident pair replayed exactly")
    # Another pair within the distance: the spec's rejection, named by a pair our decision does not pick.
    other = first is not None and _is_coincident_pair(P, closed, dist, claim.value["index"])
    if other and not binding(COINCIDENT_INDEX):
        return verified(claim, note="a coincident pair (not the first)")
    return violated(claim, {"exact_first_coincident_pair": first, "claimed_index": claim.value["index"]},
                    rule=COINCIDENT_INDEX.id if other else COINCIDENT.id)


def _is_coincident_pair(P, closed: bool, dist, a) -> bool:
    """Whether ``a`` indexes a waypoint pair ``(a, a + 1)`` within ``dist`` (exact)."""
    n = P.shape[0]
    if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a < (n if closed else n - 1):
        return False
    sq = sum((to_mpq(float(x)) - to_mpq(float(y))) ** 2 for x, y in zip(P[(a + 1) % n], P[a]))
    return sq <= dist * dist



def first_coincident_pair(P, closed: bool, dist):
    """The first waypoint pair ``(a, a + 1)`` (a closed source's last pair wraps) whose exact
    distance is at most ``dist``, or None. Exact (squared distances of exact differences)."""
    return _first_coincident_pair(np.asarray(P, dtype=np.float64), closed, to_mpq(dist))
