"""The triangle family's row checkers (spec 004), from ``claim.inputs`` alone: the exact truth
and the documented error model come from :mod:`.analysis` (``interval.triangle`` in exact
rationals), never from the fast path. A surface spec 004 makes ``TriangleSurface::new`` reject (a
facet of zero area, one with ``G + 32u <= tol``, a coordinate beyond ``2^1000``) or a query it
rejects makes every claim Violated.

* ``triangle.first_hit`` (Rounded). A hit ``(t, triangle, position)``: the claimed facet is
  crossed (not parallel, error model bounded), ``t`` is within ``R_t`` of the exact crossing
  ``T`` (equal to ``RN(T)`` for an axis-aligned facet with exact coordinate differences, where
  the computation is correctly rounded), the exact weights are ``>= -R_l``, the position is
  within ``R_pos``; band conformance: none of its quantities is certainly inside its band; the
  earliest rule: no lower-index bitwise duplicate of the facet (it computes the same parameter,
  and ties keep the lowest index), no facet forced into a band, no facet forced in or with an
  exact contact that computes a smaller parameter (``T_j + R_j < t``) or, at a lower index, an
  equal one (``T_j + R_j <= t``), and no exact contact earlier than ``t - tol`` on a facet the
  model cannot bound. A miss: no exact contact deeper than ``tol`` inside every barycentric and
  segment boundary, and no facet forced in (counter ``missed_within_band`` for exact contacts
  within the band).
* ``triangle.barycentric`` (Rounded): every weight ``>= 0`` and within ``R_l`` of the exact one.
* ``triangle.normal_facing`` (Rounded normal, exact facing): ``|n - N|_2 <= theta`` (three-valued:
  ``|N|`` is irrational) and the facing is the exact sign of ``N0 . (e - s)``.
* ``triangle.ambiguity`` (Certified). A published hit or miss: no facet is exactly coplanar with
  the segment and overlapping it, no facet with an exact contact is one the model cannot bound,
  no facet with an exact contact is within the tolerance of parallel to the segment
  (``|N . d| / (|N| |d|) <= tol`` with the heights' rounding on top), and no facet is forced into
  a band (each must make the query ambiguous). An ambiguous query: the named facet's exact
  configuration can put a computed quantity inside its band (Verified; an exactly computed 0 or
  1 under the exactness clause is accepted, never inside), cannot even with the model widened
  eightfold (Violated), or lies between (Undecided). Counters: ``queries``, ``ambiguous``,
  ``exactly_resolvable`` (ambiguous although exact arithmetic decides the query: no exact
  coplanar overlap) and ``exact_contact``. It judges against the binary64 reference model (the
  row is Certified and declares none).

Claim formats (``CONTRACTS`` holds their JSON Schemas): ``inputs`` ``{"vertices": [[hex]*3]*V,
"triangles": [[int]*3]*T, "tolerance": hex, "start": [hex]*3, "end": [hex]*3}``, and for
first_hit also ``"stamp": {"identity": int, "version": int}`` (the caller's, with which the
surface was made); values: first_hit ``{"outcome": "hit", "t", "triangle", "position", "stamp"}``
or ``{"outcome": "miss", "stamp"}`` (spec 004: queries carry the caller's identity/version, a miss
too; the checker demands the caller's stamp bitwise); barycentric ``{"triangle", "weights"}``;
normal_facing ``{"triangle", "normal", "facing"}``; ambiguity ``{"outcome": "hit" | "miss"}`` or
``{"outcome": "ambiguous", "triangle": int}``.

Declared error models (Rounded rows, ``oracles.errormodel``): the fast path declares none, so its
claims are judged against the reference model above at ``u = 2^-53``. A claim may declare
``{"u": U}`` (the model re-evaluated at U for every facet, the subnormal slack ``2^14 eta``),
``k`` (every bound scaled by ``k / 64``) or an explicit ``bound`` (first_hit: ``[R_t, R_pos]``,
barycentric: ``R_l``, normal_facing: ``theta``; the other facets' bounds scale by the same
declared/reference ratio). The correctly-rounded-``t`` rule belongs to the reference model only.

Rules (``oracles.rules``, :data:`RULES`): every check names its source. Two are decisions of ours
beyond spec 004 and bind only claims that opt in (our fast path's do): the exactness clause
(``t = RN(T)`` on an axis-aligned facet with exact differences: spec 004 says "binary64 computed
intersections", not correctly rounded ones), which also pins other facets' parameters in the
earliest rule and the bands; and the coordinate limit ``2^1000`` (spec 004 names none). A claim
that does not opt in is judged with ``|t - T| <= R_t`` and unpinned bands, and a claim on a
surface beyond ``2^1000`` is Undecided (the documented model does not reach there).
"""

from __future__ import annotations

import math

from interval.triangle import exact_point, sqrt_down, sqrt_up
from reference.triangle_surface import NORMAL_K, Facing

from ...errormodel import ETA_OF_U, resolve
from ...errormodel import ratio as ratio_of
from ...model import Claim, dec, enc, undecided, verified, violated
from ...rules import binding, decision, declare, default, judged, spec
from .analysis import (
    Analysis,
    _cannot_precede,
    _forced,
    _justified,
    _mpq,
    _near_parallel_overlap,
    _q_inf,
    _quantities,
    _Reference,
    analyse,
    models_at,
)

__all__ = [
    "COORDINATE_LIMIT",
    "EXACTNESS_CLAUSE",
    "RULES",
    "STATUS_NAMES",
    "check_ambiguity",
    "check_barycentric",
    "check_first_hit",
    "check_normal_facing",
]

_S004 = "spec 004: "
_D = "docs/decisions.md "
ADMISSION = spec("triangle:admission", _S004 + "'It checks finite vertices, index validity, nonempty geometry, "
                 "retained buffer capacity and numerically conditioned nonzero facet area'; 'The normalized "
                 "cross-product magnitude must exceed the declared relative tolerance' (G + 32u <= tol is rejected by "
                 "every conforming binary64 admission, |g - G| <= 30u by " + _D + "'Triangle surfaces: error model'): "
                 "a claim on a surface admission must reject is Violated")
COORDINATE_LIMIT = decision("triangle:coordinate_limit", _D + "'Triangle surfaces: statuses': a coordinate or "
                            "endpoint beyond 2^1000 is OutOfRange, so no hit, miss or value may be claimed there (spec "
                            "004 names no coordinate limit; without the decision such claims are Undecided: the "
                            "documented model does not reach there)")
STAMP = spec("triangle:stamp", _S004 + "'Queries carry the same caller-supplied identity/version': the value's stamp "
             "is the caller's, bit for bit")
MISS = spec("triangle:miss", _S004 + "'It returns the smallest computed intersection parameter' (a miss reports no "
            "contact) and the bands ('Values just outside or inside barycentric/segment boundaries within the "
            "uncertainty band are also ambiguous'): a miss hides no exact contact deeper than the tolerance and no "
            "facet that is a hit or ambiguous in every conforming run")
NEAR_PARALLEL = spec("triangle:near_parallel", _S004 + "'Overlapping coplanar/near-parallel candidates are ambiguous': "
                     "a hit is on a facet the segment crosses at a parameter the model bounds; a published hit or miss "
                     "has no exactly coplanar overlap, no exact contact on a facet within rounding or within the "
                     "tolerance of parallel")
HIT_VALUES = spec("triangle:hit_values", _S004 + "'first_hit(start, end, cancel) scans each triangle for a nonzero "
                  "finite segment. It returns the smallest computed intersection parameter, triangle index, position': "
                  "a hit's parameter and position are finite and its exact crossing lies on the segment (within R_t)")
T_BOUND = default("triangle:t_bound", _D + "'Triangle surfaces: error model': |t - T| <= R_t, the documented binary64 "
                  "model evaluated from exact quantities (or the claim's declared model): spec 004 says 'binary64 "
                  "computed intersections' and gives no bound")
EXACTNESS_CLAUSE = decision("triangle:exactness_clause", _D + "'Triangle surfaces: error model', exactness clause: on "
                            "an axis-aligned facet whose differences are binary64 numbers the computed t is RN(T), "
                            "correctly rounded (our computation's property; spec 004 asks for binary64 computed "
                            "intersections, not correctly rounded ones). Binding, it demands t = RN(T) of the claimed "
                            "facet and pins other facets' computed parameters in the earliest rule and the bands "
                            "(so exact ties on shared axis-aligned edges keep the lowest index, and an exact 0 or 1 "
                            "is computed exactly)")
WEIGHTS_BOUND = default("triangle:weights_bound", _D + "'Triangle surfaces: error model': each weight within R_l of "
                        "the exact one (a hit's exact weights >= -R_l); spec 004: 'Position and barycentric "
                        "reconstruction can differ by roundoff'")
POSITION_BOUND = default("triangle:position_bound", _D + "'Triangle surfaces: error model': |position - P(T)|_inf "
                         "<= R_pos; spec 004: 'Position and barycentric reconstruction can differ by roundoff'")
BANDS = spec("triangle:bands", _S004 + "'Values just outside or inside barycentric/segment boundaries within the "
             "uncertainty band are also ambiguous; exact represented zero/one boundary values are accepted', with the "
             "band tol + R of " + _D + "'Triangle surfaces: the tolerance bands': a published hit has no quantity "
             "certainly inside its band")
ONE_AMBIGUOUS = spec("triangle:one_ambiguous_rejects", _S004 + "'One ambiguous candidate rejects the whole query even "
                     "if another facet has a hit, since publishing that hit could skip earlier contact': no facet is "
                     "inside a band in every conforming run of a published hit or miss")
EARLIEST = spec("triangle:earliest", _S004 + "'It returns the smallest computed intersection parameter ... Exact "
                "parameter ties retain the lowest triangle index': no bitwise duplicate at a lower index, no facet "
                "whose computed parameter must be smaller (T_j + R_j < t), or equal at a lower index")
WEIGHTS_NONNEGATIVE = spec("triangle:weights_nonnegative", _S004 + "'nonnegative barycentric weights': every weight "
                           "finite and >= 0")
NORMAL = spec("triangle:normal", _S004 + "'winding-derived normalized normal': n . N0 > 0 (N0 = e1 x e2 of the "
              "winding), finite")
NORMAL_BOUND = default("triangle:normal_bound", _D + "'Triangle surfaces: error model': |n - N0/|N0||_2 <= theta = "
                       "64u/G (or the declared model)")
FACING = spec("triangle:facing", _S004 + "'geometric front/back facing': Front exactly when N0 . (e - s) < 0, Back "
              "when > 0, none on an exactly parallel segment")
JUSTIFIED = spec("triangle:rejection_justified", _S004 + "'The policy can conservatively reject queries that stronger "
                 "predicates resolve' within the bands: an ambiguous query's named facet can put a computed quantity "
                 "inside its band with the model doubled (Verified), cannot even eightfold (Violated, the oracle's "
                 "margin of " + _D + "'Triangle surfaces: what the oracle checks'), Undecided between")

STATUS_NAMES = decision("triangle:status_names", _D + "'Triangle surfaces: statuses': TriangleSurface::new answers "
                        "InvalidArgument for a tolerance outside [32 eps, 1e-3], a stamp or shape that names nothing, "
                        "no vertices or triangles, a nonfinite vertex or an index outside [0, V), CapacityExceeded "
                        "above max_vertices or max_triangles, Degenerate for a zero-area facet and IllConditioned at "
                        "or below the tolerance; a query InvalidArgument for a nonfinite or zero-length segment (spec "
                        "004 lists these checks and names no status: without the decision any failure status is "
                        "accepted there)")

RULES = declare({
    "triangle.statuses": (STATUS_NAMES, COORDINATE_LIMIT),
    "triangle.first_hit": (ADMISSION, COORDINATE_LIMIT, STAMP, MISS, NEAR_PARALLEL, HIT_VALUES, T_BOUND,
                           EXACTNESS_CLAUSE, WEIGHTS_BOUND, POSITION_BOUND, BANDS, ONE_AMBIGUOUS, EARLIEST),
    "triangle.barycentric": (ADMISSION, COORDINATE_LIMIT, WEIGHTS_NONNEGATIVE, WEIGHTS_BOUND),
    "triangle.normal_facing": (ADMISSION, COORDINATE_LIMIT, NORMAL, NORMAL_BOUND, FACING),
    "triangle.ambiguity": (ADMISSION, COORDINATE_LIMIT, NEAR_PARALLEL, ONE_AMBIGUOUS, JUSTIFIED, EXACTNESS_CLAUSE),
})


def _pin(md) -> float | None:
    """The computed parameter the exactness clause pins, where it binds the claim being judged
    (``oracles.rules.binding``), else None: the spec's rules leave it anywhere within R_t."""
    if md.exact_t is not None and binding(EXACTNESS_CLAUSE):
        return md.exact_t
    return None


def _no_pin(md) -> None:
    return None


class _Unbounded(Exception):
    """The error model at a declared precision has no bound for this facet."""


def _resolve(claim: Claim, parts) -> tuple:
    """``(resolved, models, ratio)``: the claim's bound (``oracles.errormodel.resolve`` over the
    components ``parts(model)`` of the claimed facet's model), every facet's model at the
    resolved unit roundoff, and ``ratio`` = declared bound / model at that roundoff (1 unless
    ``k`` or an explicit bound rescales it), by which the other facets' bounds scale too.
    Raises :class:`_Unbounded` when the claimed facet's model is unbounded at that precision."""

    def reference(u, eta):
        got = parts(models_at(claim.inputs, u, eta))
        if any(x is None for x in got):
            raise _Unbounded()
        return got

    resolved = resolve(claim, reference, constant=NORMAL_K)
    eta = 2.0**-1074 if resolved.declared is None or "eta" not in resolved.declared else dec(resolved.declared["eta"])
    if resolved.declared is not None and "u" in resolved.declared and "eta" not in resolved.declared:
        eta = ETA_OF_U[resolved.u]
    models = models_at(claim.inputs, resolved.u, eta)
    at_u = parts(models)
    ratio = resolved.bound[0] / at_u[0] if at_u[0] > 0 else _mpq(1)
    return resolved, models, ratio


def _triangle_of(value: dict, an: Analysis) -> int:
    i = value["triangle"]
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(an.triangles):
        raise ValueError(f"claimed triangle {i!r} is not a facet index")
    return i



def _rejected(claim: Claim, an: Analysis):
    """Violated when spec 004 forbids the surface or the query the claim speaks of; beyond the
    coordinate limit (a decision of ours) Violated only where the decision binds, else
    Undecided."""
    if an.rejected is None:
        return None
    status, j, note = an.rejected
    if status == "OutOfRange":
        if binding(COORDINATE_LIMIT):
            return violated(claim, {"status": status, "triangle": j}, note=note, rule=COORDINATE_LIMIT.id)
        return undecided(claim, None, note="a coordinate beyond 2^1000: the documented error model does not reach "
                                           "there, and spec 004 names no limit")
    return violated(claim, {"status": status, "triangle": j}, note=note, rule=ADMISSION.id)


# --- checkers -------------------------------------------------------------------------------


def _check_stamp(claim: Claim):
    """The first_hit value's stamp must be the caller's (the inputs' stamp), bitwise."""
    want, got = claim.inputs["stamp"], claim.value["stamp"]
    for name, d in (("inputs.stamp", want), ("value.stamp", got)):
        if not isinstance(d, dict) or set(d) != {"identity", "version"} or \
                not all(isinstance(d[k], int) and not isinstance(d[k], bool) and 0 <= d[k] < 2**64 for k in d):
            raise ValueError(f"{name} must be {{identity, version}}, integers in [0, 2**64)")
    if want != got:
        return {"stamp": got, "caller_stamp": want}
    return None


def _declared_models(claim: Claim) -> tuple | None:
    """``(models, ratio)`` for a check over every facet of a claim that names none (a miss):
    ``(None, 1)`` for the reference, the models at a declared ``u`` with ratio ``k / 64``, or
    None for an explicit bound (it bounds no particular facet, so nothing is forced)."""
    m = claim.model
    if not m or ("u" not in m and "bound" not in m):
        return None, 1
    if "bound" in m:
        return None
    resolved = resolve(claim, lambda u, eta: [_mpq(1)], constant=NORMAL_K)
    eta = dec(m["eta"]) if "eta" in m else ETA_OF_U[resolved.u]
    models = models_at(claim.inputs, resolved.u, eta)
    if isinstance(models, _Reference) and resolved.bound[0] == 1:
        return None, 1
    return models, resolved.bound[0]


def _band_witness(j: int, qs: list) -> dict:
    return {"triangle": j, "in_band": [{"quantity": q.name, "exact": enc(q.exact), "bound": enc(q.bound)}
                                       for q in qs]}


@judged
def check_first_hit(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    if not isinstance(v, dict) or v.get("outcome") not in ("hit", "miss"):
        raise ValueError("first_hit value must be an object with outcome hit or miss")
    bad_stamp = _check_stamp(claim)
    if bad_stamp:
        return violated(claim, bad_stamp, note="the query does not carry the caller's identity/version",
                        rule=STAMP.id)
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    tol = an.tolerance
    if v["outcome"] == "miss":
        hits = an.hits()
        deep = [c for c in hits if c.depth > tol]
        shallow = sum(1 for c in hits if c.depth <= tol)
        if deep:
            c = deep[0]
            return violated(claim, {"triangle": c.triangle, "t_enter": enc(c.t_enter), "depth": enc(c.depth)},
                            prec=None, note="a miss hides an exact contact deeper than the tolerance band",
                            missed_within_band=shallow, rule=MISS.id)
        declared = _declared_models(claim)
        for j in (an.candidates if declared is not None else ()):
            got = _forced(an, j, *declared, pin=_pin)
            if got is not None:
                c = an.contact(j)
                return violated(claim, {"triangle": j, "t": enc(c.t), "weights": enc(list(c.bary))},
                                note=f"facet {j} is a hit or ambiguous in every conforming run (no quantity can "
                                     "be beyond its band); a miss is not allowed", missed_within_band=shallow,
                                rule=MISS.id)
        return verified(claim, note="no exact contact outside the bands", missed_within_band=shallow)
    i = _triangle_of(v, an)
    t_c = dec(v["t"])
    if not isinstance(v["position"], list) or len(v["position"]) != 3:
        raise ValueError("position must be three encoded floats")
    pos_f = tuple(dec(x) for x in v["position"])
    if not all(math.isfinite(x) for x in (t_c, *pos_f)):
        return violated(claim, {"t": v["t"], "position": v["position"]}, note="a hit with a nonfinite t or position",
                        rule=HIT_VALUES.id)
    pos = exact_point(pos_f)
    ct = an.contact(i)
    if ct.parallel or an.model(i).r_t is None:
        return violated(claim, {"triangle": i, "parallel": ct.parallel},
                        note="a hit on a facet the segment crosses at no bounded parameter (near-parallel)",
                        rule=NEAR_PARALLEL.id)
    try:
        resolved, models, ratio = _resolve(claim, lambda ms: [ms[i].r_t, ms[i].r_pos])
    except _Unbounded:
        return undecided(claim, None, note="the declared error model is unbounded on this facet")
    extra = resolved.extra()
    reference = resolved.bound == resolved.reference
    md = models[i]
    r_t, r_pos = resolved.bound
    T = ct.t
    tq = _mpq(t_c)
    t_use = ratio_of(abs(tq - T), r_t)
    # The spec's rule with the documented model first; then the exactness clause (a decision of
    # ours, reference model only: a declared model other than the reference is judged by its
    # bound), where it binds.
    pin = _pin if reference else _no_pin
    if abs(tq - T) > r_t:
        return violated(claim, {"triangle": i, "exact_t": enc(T), "bound": enc(r_t)}, measure="t_error_ratio",
                        measured=t_use, bound_use=t_use, note="t outside its error model", rule=T_BOUND.id, **extra)
    exact_t = pin(md)
    if exact_t is not None and t_c != exact_t:
        return violated(claim, {"triangle": i, "exact_t": enc(T), "rounded": enc(exact_t)},
                        note="t differs from the correctly rounded crossing (axis-aligned, exact differences)",
                        bound_use=t_use, rule=EXACTNESS_CLAUSE.id, **extra)
    if not -r_t <= T <= 1 + r_t:
        return violated(claim, {"triangle": i, "exact_t": enc(T)}, note="the exact crossing is off the segment",
                        bound_use=t_use, rule=HIT_VALUES.id, **extra)
    if md.r_l is None:
        return undecided(claim, None, note="the weights' error model is unbounded on this facet",
                         bound_use=t_use, **extra)
    r_l = [r * ratio for r in md.r_l]
    low = [k for k in range(3) if ct.bary[k] < -r_l[k]]
    if low:
        return violated(claim, {"triangle": i, "weights": enc(list(ct.bary)), "bound": enc(r_l)},
                        note="the exact crossing is outside the claimed facet beyond the weights' error model",
                        bound_use=t_use, rule=WEIGHTS_BOUND.id, **extra)
    P = tuple(x + T * (y - x) for x, y in zip(an.S, an.E))
    perr = _q_inf([x - y for x, y in zip(pos, P)])
    p_use = ratio_of(perr, r_pos)
    use = max(t_use, p_use)
    if perr > r_pos:
        return violated(claim, {"triangle": i, "exact_position": enc(list(P)), "bound": enc(r_pos)},
                        measure="position_error_ratio", measured=p_use, bound_use=use,
                        note="position outside its error model", rule=POSITION_BOUND.id, **extra)
    # Band conformance: the published facet's own quantities must not be inside their bands.
    qs = _quantities(an, i, None if reference else models, ratio, pin)
    inside = [q for q in qs if q.in_band(tol)] if qs is not None else []
    if inside:
        return violated(claim, _band_witness(i, inside), bound_use=use,
                        note="the hit lies inside the tolerance plus rounding band of a boundary; the query must "
                             "be Ambiguous", rule=BANDS.id, **extra)
    # The earliest rule. A duplicate facet of lower index computes the same parameter: the tie
    # keeps it.
    for j in an.candidates:
        if j >= i:
            break
        if an.same_facet(i, j):
            return violated(claim, {"triangle": j, "claimed": i}, bound_use=use,
                            note=f"facet {j} is a duplicate of facet {i} (bitwise the same vertices): an exact "
                                 "tie keeps the lowest index", rule=EARLIEST.id, **extra)
    # Every facet forced in (a hit or ambiguous in every conforming run) must be explainable as
    # computed no earlier (at a lower index: strictly later) than the claimed parameter; one
    # forced into a band makes the query ambiguous.
    for j in an.candidates:
        if j == i or _cannot_precede(an, j, i, tq):
            continue
        got = _forced(an, j, None if reference else models, ratio, pin)
        if got is None:
            continue
        in_band, _ = got
        if in_band:
            return violated(claim, _band_witness(j, in_band), bound_use=use,
                            note=f"facet {j} is inside a band in every conforming run; the query must be "
                                 "Ambiguous", rule=ONE_AMBIGUOUS.id, **extra)
        mj = models[j]
        exact_j = pin(mj)
        up = _mpq(exact_j) if exact_j is not None else an.contact(j).t + mj.r_t * ratio
        if up < tq or (j < i and up == tq):
            return violated(claim, {"triangle": j, "exact_t": enc(an.contact(j).t), "computed_at_most": enc(up)},
                            bound_use=use,
                            note=f"facet {j} is a hit (or ambiguous) in every conforming run and computes an earlier "
                                 "parameter, or an equal one at a lower index", rule=EARLIEST.id, **extra)
    # Every other exact contact must be explainable the same way.
    for cj in an.hits():
        j = cj.triangle
        if j == i or (cj.kind == "point" and (cj.t > tq or (cj.t == tq and j > i))):
            continue  # its computed parameter cannot come before the claimed one (no model needed)
        if cj.kind == "coplanar" or models[j].r_t is None:
            if cj.t_enter < tq - tol:
                return violated(claim, {"triangle": j, "t_enter": enc(cj.t_enter)}, bound_use=use,
                                note="an earlier exact contact (near-parallel facet) lies before t - tol",
                                rule=EARLIEST.id, **extra)
            continue
        mj = models[j]
        exact_j = pin(mj)
        up = _mpq(exact_j) if exact_j is not None else cj.t + mj.r_t * ratio
        if up < tq or (j < i and up == tq):
            return violated(claim, {"triangle": j, "exact_t": enc(cj.t), "computed_at_most": enc(up)},
                            bound_use=use,
                            note=f"facet {j} computes an earlier parameter or an equal one at a lower index",
                            rule=EARLIEST.id, **extra)
    return verified(claim, measure="t_error_ratio", measured=t_use, bound_use=use, **extra)


@judged
def check_barycentric(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    i = _triangle_of(v, an)
    w = v["weights"]
    if not isinstance(w, list) or len(w) != 3:
        raise ValueError("weights must be three encoded floats")
    wf = [dec(x) for x in w]
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    if not all(math.isfinite(x) for x in wf):
        return violated(claim, {"weights": w}, note="a nonfinite barycentric weight", rule=WEIGHTS_NONNEGATIVE.id)
    wq = [_mpq(x) for x in wf]
    if any(x < 0 for x in wq):
        return violated(claim, {"weights": w}, note="a negative barycentric weight", rule=WEIGHTS_NONNEGATIVE.id)
    ct = an.contact(i)
    if ct.parallel or an.model(i).r_l is None:
        return undecided(claim, None, note="no bounded error model for the weights on this facet")
    try:
        resolved, _, _ = _resolve(claim, lambda ms: list(ms[i].r_l) if ms[i].r_l is not None else [None])
    except _Unbounded:
        return undecided(claim, None, note="the declared error model is unbounded on this facet")
    r_l, extra = resolved.bound, resolved.extra()
    errs = [abs(x - y) for x, y in zip(wq, ct.bary)]
    use = max(ratio_of(e_, r) for e_, r in zip(errs, r_l))
    if any(e_ > r for e_, r in zip(errs, r_l)):
        return violated(claim, {"exact": enc(list(ct.bary)), "bound": enc(list(r_l))}, measure="error_ratio",
                        measured=use, bound_use=use, note="a weight outside its error model", rule=WEIGHTS_BOUND.id,
                        **extra)
    return verified(claim, measure="error_ratio", measured=use, bound_use=use, **extra)


@judged
def check_normal_facing(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    i = _triangle_of(v, an)
    if not isinstance(v["normal"], list) or len(v["normal"]) != 3:
        raise ValueError("normal must be three encoded floats")
    n_f = tuple(dec(x) for x in v["normal"])
    facing = Facing(v["facing"])
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    if not all(math.isfinite(x) for x in n_f):
        return violated(claim, {"normal": v["normal"]}, note="a nonfinite normal", rule=NORMAL.id)
    n = exact_point(n_f)
    f, ct = an.facet(i), an.contact(i)
    if ct.facing == 0:
        return violated(claim, {"facing": v["facing"]}, note="the segment is exactly parallel to the facet: no facing",
                        rule=FACING.id)
    truth = Facing.Front if ct.facing < 0 else Facing.Back
    if facing is not truth:
        return violated(claim, {"exact_facing": truth.value}, note="facing differs from the exact sign of N0 . d",
                        rule=FACING.id)
    nn = sum(x * x for x in n)
    nd = sum(x * y for x, y in zip(n, f.normal))
    if nd <= 0:
        return violated(claim, {"n_dot_N0": enc(nd)}, note="the normal points against the winding", rule=NORMAL.id)
    resolved, _, _ = _resolve(claim, lambda ms: [ms[i].theta])
    theta, extra = resolved.scalar(), resolved.extra()
    # |n - N|^2 = |n|^2 - 2 n.N0/|N0| + 1, bracketed with rational bounds of |N0|; the terms
    # cancel to ~u^2, so the bounds carry 256 bits.
    hi = nn - 2 * nd / sqrt_up(f.norm2, 256) + 1
    lo = nn - 2 * nd / sqrt_down(f.norm2, 256) + 1
    th2 = theta * theta
    use = math.sqrt(ratio_of(max(hi, 0), th2))
    if hi <= th2:
        return verified(claim, measure="error_ratio", measured=use, bound_use=use, **extra)
    if lo > th2:
        return violated(claim, {"bound": enc(theta)}, measure="error_ratio", measured=use, bound_use=use,
                        note="normal outside its error model", rule=NORMAL_BOUND.id, **extra)
    return undecided(claim, [enc(lo), enc(hi)], note="|n - N|^2 brackets the bound theta^2", bound_use=use, **extra)



@judged
def check_ambiguity(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    if not isinstance(v, dict) or v.get("outcome") not in ("hit", "miss", "ambiguous"):
        raise ValueError("ambiguity value must be an object with outcome hit, miss or ambiguous")
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    overlap = an.coplanar_overlap
    hits = an.hits()
    contact = int(bool(hits))
    counters = {"queries": 1, "exact_contact": contact}
    if v["outcome"] != "ambiguous":
        bad = dict(ambiguous=0, exactly_resolvable=0, **counters)
        if overlap:
            return violated(claim, {"triangle": overlap[0]}, note="an exactly coplanar overlap was not ambiguous",
                            rule=NEAR_PARALLEL.id, **bad)
        unbounded = [c.triangle for c in hits if an.model(c.triangle).r_t is None]
        if unbounded:
            return violated(claim, {"triangle": unbounded[0]},
                            note="an exact contact on a near-parallel facet was not ambiguous", rule=NEAR_PARALLEL.id,
                            **bad)
        near = [c.triangle for c in hits if _near_parallel_overlap(an, c.triangle)]
        if near:
            return violated(claim, {"triangle": near[0]},
                            note="a segment within the tolerance of parallel to a facet it meets was not ambiguous",
                            rule=NEAR_PARALLEL.id, **bad)
        for j in an.candidates:
            got = _forced(an, j, pin=_pin)
            if got is not None and got[0]:
                return violated(claim, _band_witness(j, got[0]),
                                note=f"facet {j} is inside a band in every conforming run; the query must be "
                                     "Ambiguous", rule=ONE_AMBIGUOUS.id, **bad)
        return verified(claim, note="no coplanar overlap, no unbounded contact, no facet forced into a band",
                        ambiguous=0, exactly_resolvable=0, **counters)
    j = _triangle_of(v, an)
    counters.update(ambiguous=1, exactly_resolvable=int(not overlap))
    if _justified(an, j, 2, _pin):
        return verified(claim, note=f"facet {j} can fall inside a band", **counters)
    if not _justified(an, j, 8, _pin):
        c = an.contact(j)
        return violated(claim, {"triangle": j, "t": enc(c.t), "weights": enc(list(c.bary or ()))},
                        note=f"facet {j} is decidable by a wide margin; the rejection is not justified",
                        rule=JUSTIFIED.id, **counters)
    return undecided(claim, None, note=f"facet {j} is near but not inside its bands", **counters)
