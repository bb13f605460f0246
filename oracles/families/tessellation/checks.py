"""Tessellation checkers of the bounds: ``tessellation.position_bound`` (Certified) and
``tessellation.normal_angle`` (Estimated).

Every truth is recomputed from ``claim.inputs`` alone (``interval.tessellation``,
``interval.arb_tessellation``):

* ``tessellation.position_bound``: for every cell of the patch grid, an exact branch and bound
  of ``max |S - T|`` over each of its two triangles (``T`` the linear interpolant of the claimed
  emitted float32 vertices along the (u0, v0)-(u1, v1) diagonal): Verified when every upper
  enclosure is at most the claimed bound, Violated at a point where ``|S - T|`` exceeds it,
  else Undecided. Every cell is enclosed again by a branch and bound over parameter triangles
  with second-order Taylor models of ``S - T`` in Arb balls (``interval.arb_tessellation``):
  disjoint enclosures or opposite decisions are an OracleFault; where the hull stays undecided,
  the Taylor models' decision stands. The measure is the tightness ``true max / claimed
  bound`` (a lower estimate: the largest exact value found), counted into bins, and the
  verdict's ``bound_use``. With the profile's position error, ``is_within_position_error`` must
  be ``bound <= position_error`` and a mesh that accepts no coarser grid must be within it.
  Grids above ``MAX_EXACT_CELLS`` are Undecided at once.
* ``tessellation.normal_angle``: every triangle's face normal (exact, from the emitted
  vertices) against the true normal ``Su x Sv`` over the triangle: Violated when some exact
  sample is farther than ``ACCEPTANCE_FACTOR`` times the estimate plus the triangle's
  rounding slack; Verified when a convex-cone test on Bernstein coefficients shows every
  normal within it; the calibration ``true / estimate`` (sampled at 113 bits) is the measure,
  its ratio to ``ACCEPTANCE_FACTOR`` the ``bound_use``.
"""

from __future__ import annotations

import math

import gmpy2
import numpy as np

from interval.arb_tessellation import MAX_TRIANGLES as ARB_MAX_TRIANGLES
from interval.arb_tessellation import enclose_cell_distance_arb, patch_power_form
from interval.context import to_mpq
from interval.tessellation import (
    cell_polynomial,
    decide_max_angle,
    enclose_cell_distance,
    normal_monomials,
    normal_polynomials,
    sampled_angles,
)
from reference.fp import ulp32

from ...decide import enclosures_overlap
from ...errormodel import ratio
from ...model import Claim, dec, enc, oracle_fault, undecided, verified, violated
from ...rules import decision, declare, default, spec
from ..surface.checks import array

__all__ = [
    "ACCEPTANCE_FACTOR",
    "MAX_BOXES",
    "MAX_EXACT_CELLS",
    "check_normal_angle",
    "check_position_bound",
    "grid_inputs",
]

ACCEPTANCE_FACTOR = 4.0  # Violated when the true angle exceeds 4 x estimate + slack
MAX_BOXES = 256  # branch-and-bound boxes per triangle
MAX_EXACT_CELLS = 4096  # a larger grid is Undecided at once (the exact oracle would take minutes)

_S = "spec 002 Surface meshes: "
POSITION_BOUND = spec("tessellation:position_bound", _S + "'Each term uses outward-rounded enclosures, so "
                      "PositionBound is Certified for the parametric distance between the prepared surface and the "
                      "mesh': a nonnegative bound at least the true distance on every cell")
WITHIN = spec("tessellation:within_position_error", _S + "'view.Report.PositionBound <= 0.01 (Certified)'; 'With "
              "IsCoarserMeshAccepted, a patch that MaxLevel stops keeps its finest grid. The mesh then reports "
              "IsWithinPositionError = false and the achieved Certified bound instead of failing': "
              "is_within_position_error is bound <= PositionError, and a mesh that accepts no coarser grid meets it")
ANGLE_RANGE = spec("tessellation:angle_range", _S + "'Refinement then also samples analytic normals ... and reports an "
                   "Estimated angle': an angle in [0, pi]")
NORMAL_ACCEPTANCE = default("tessellation:normal_acceptance", "docs/decisions.md 'Surface meshes: the Visual normal "
                            "sampling and its acceptance factor': the true normal within ACCEPTANCE_FACTOR = 4 times "
                            "the estimate plus the face normal's rounding (spec 002: 'Mesh normal-angle estimate' is "
                            "Estimated, with no factor)")

STATUS_NAMES = decision("tessellation:status_names", "docs/decisions.md 'Surface meshes: the profile, limits and the "
                        "order of checks': a patch MaxLevel stops (without IsCoarserMeshAccepted) is BudgetExceeded, "
                        "Reject's failure Degenerate, PositionError below the surface's floor UnsupportedPrecision, a "
                        "profile field naming nothing (precision, degeneracy, a non-boolean flag, a nonfinite or "
                        "negative error) InvalidArgument, and position_error above 1e6 or normal_angle_error above pi "
                        "InvalidArgument (the spec demands those failures but names no status, and sets neither upper "
                        "limit: without the decision any failure status is accepted there, and success where only the "
                        "decision fails)")

RULES = declare({
    "tessellation.statuses": (STATUS_NAMES,),
    "tessellation.position_bound": (POSITION_BOUND, WITHIN),
    "tessellation.normal_angle": (ANGLE_RANGE, NORMAL_ACCEPTANCE),
})


def grid_inputs(d):
    C = array(d["controls"], np.float32)
    lu, lv = int(d["level_u"]), int(d["level_v"])
    if C.shape != (4, 4, 3) or not (0 <= lu <= 24 and 0 <= lv <= 24):
        raise ValueError("needs controls (4, 4, 3) float32 and levels in [0, 24]")
    nu, nv = 1 << lu, 1 << lv
    Gd = array(d["grid"], np.float32)
    if Gd.shape != (nu + 1, nv + 1, 3):
        raise ValueError(f"grid must be ({nu + 1}, {nv + 1}, 3) for levels ({lu}, {lv})")
    return C, nu, nv, Gd


def _cells(nu, nv):
    for a in range(nu):
        for b in range(nv):
            yield a, b, gmpy2.mpq(a, nu), gmpy2.mpq(a + 1, nu), gmpy2.mpq(b, nv), gmpy2.mpq(b + 1, nv)


_TIGHT_BINS = ((0.1, "tightness_lt_0.1"), (0.5, "tightness_0.1_0.5"), (0.9, "tightness_0.5_0.9"),
               (math.inf, "tightness_0.9_1"))


def _tightness(best_sq, c) -> float:
    """sqrt(best_sq) / c, never raising (0 / 0 is 0, x / 0 is inf)."""
    return math.sqrt(ratio(best_sq, to_mpq(c) ** 2)) if c > 0 else (0.0 if best_sq == 0 else math.inf)


def check_position_bound(claim: Claim):
    """Certified: for every cell, the exact branch and bound of ``max |S - T|`` over its two
    triangles is at most the claimed bound; with the profile's ``position_error`` the claimed
    ``is_within_position_error`` is ``bound <= position_error``, and a mesh that does not accept a
    coarser grid is within it."""
    C, nu, nv, Gd = grid_inputs(claim.inputs)
    c = dec(claim.value["position_bound"])
    if not c >= 0:
        return violated(claim, {"why": "a distance bound is nonnegative", "claimed": claim.value["position_bound"]},
                        rule=POSITION_BOUND.id)
    if "position_error" in claim.inputs:
        pe = dec(claim.inputs["position_error"])
        within = claim.value.get("is_within_position_error")
        if within is not None and not isinstance(within, bool):
            raise ValueError("is_within_position_error must be a bool")
        if within is not None and within is not (c <= pe):
            return violated(claim, {"why": "is_within_position_error is not position_bound <= position_error",
                                    "claimed": within, "position_bound": claim.value["position_bound"],
                                    "position_error": claim.inputs["position_error"]}, rule=WITHIN.id)
        if claim.inputs.get("accepts_coarser") is False and not c <= pe:
            return violated(claim, {"why": "a mesh that does not accept a coarser grid must meet its position error",
                                    "position_bound": claim.value["position_bound"],
                                    "position_error": claim.inputs["position_error"]}, rule=WITHIN.id)
    if nu * nv > MAX_EXACT_CELLS:
        return undecided(claim, None, note=f"{nu * nv} cells: beyond the exact oracle's {MAX_EXACT_CELLS}")
    best = gmpy2.mpq(0)
    boxes = triangles = 0
    power = patch_power_form(C)  # the second oracle's patch, shared by its cells
    for a, b, u0, u1, v0, v1 in _cells(nu, nv):
        corners = (Gd[a, b], Gd[a + 1, b], Gd[a, b + 1], Gd[a + 1, b + 1])
        r = enclose_cell_distance(C, u0, u1, v0, v1, *corners, c, MAX_BOXES)
        boxes += r.boxes
        t2, fault = _arb_cell(C, power, (u0, u1, v0, v1), corners, c, r)
        if fault is not None:
            return oracle_fault(claim, fault, note=f"the exact and Arb enclosures of cell ({a}, {b}) disagree")
        triangles += t2.triangles
        best = max(best, r.lower_sq, t2.lower_sq)
        if r.holds is False:
            tri, (x, w), val = r.witness
            t = _tightness(val, c)
            return violated(claim, {"cell": [a, b], "triangle": tri, "duffy_point": [enc(x), enc(w)],
                                    "distance_squared": enc(val), "claimed": enc(c)},
                            measure="tightness", measured=t, bound_use=t, rule=POSITION_BOUND.id)
        if t2.holds is False and r.holds is None:  # the Taylor models refute what the hull left open
            tri, (x, y), val = t2.witness
            t = _tightness(val, c)
            return violated(claim, {"cell": [a, b], "triangle": tri, "cell_point": [enc(x), enc(y)],
                                    "distance_squared_lower": enc(val), "claimed": enc(c)},
                            measure="tightness", measured=t, bound_use=t, rule=POSITION_BOUND.id)
        if r.holds is None and t2.holds is None:
            up = min(r.upper_sq, t2.upper_sq)
            return undecided(claim, [math.sqrt(float(max(r.lower_sq, t2.lower_sq))), math.sqrt(float(up))],
                             note=f"cell ({a}, {b}) undecided within {MAX_BOXES} boxes and {ARB_MAX_TRIANGLES} "
                                  "triangles per triangle",
                             bound_use=_tightness(best, c))
    tight = _tightness(best, c)
    bin_ = next(name for lim, name in _TIGHT_BINS if tight < lim)
    return verified(claim, measure="tightness", measured=tight,
                    note=f"{nu * nv} cells, {boxes} boxes, {triangles} Arb triangles", bound_use=tight, **{bin_: 1})


# What an oracle may raise on a well-formed claim only if it is broken (inputs are validated
# before): an oracle fault, never a malformed claim.
_ORACLE_ERRORS = (ValueError, ArithmeticError, TypeError, IndexError, KeyError, ZeroDivisionError)


def _arb_cell(C, power, box, corners, c, r):
    """The second oracle on one cell (docs/decisions.md "Surface meshes: two oracles for the cell
    bound"): ``max |S - T|^2`` over the cell's two triangles enclosed by the Taylor-model branch
    and bound in Arb balls (``interval.arb_tessellation``) and compared with the exact Bernstein
    branch and bound's answer ``r``. Disjoint enclosures, opposite decisions, or an oracle that
    raises are an oracle fault. Returns ``(Arb answer, None)`` or ``(None, fault dict)``."""
    try:
        t = enclose_cell_distance_arb(C, *box, *corners, c, power_form=power)
    except _ORACLE_ERRORS as exc:
        return None, {"arb_taylor_models": f"raised {exc!r}"[:300]}
    inf = math.inf
    A = (t.lower_sq, inf if t.upper_sq is None else t.upper_sq)
    B = (r.lower_sq, inf if r.upper_sq is None else r.upper_sq)
    if A[0] > A[1] or B[0] > B[1] or not enclosures_overlap(A, B):
        return None, {"arb_taylor_models": [enc(A[0]), enc(A[1])], "exact_bernstein_hull": [enc(B[0]), enc(B[1])]}
    if t.holds is not None and r.holds is not None and t.holds != r.holds:
        return None, {"arb_taylor_models": {"holds": t.holds, "enclosure": [enc(A[0]), enc(A[1])]},
                      "exact_bernstein_hull": {"holds": r.holds, "enclosure": [enc(B[0]), enc(B[1])]}}
    return t, None



_CAL_BINS = ((0.5, "calibration_lt_0.5"), (1.0, "calibration_0.5_1"), (2.0, "calibration_1_2"),
             (ACCEPTANCE_FACTOR, "calibration_2_factor"), (math.inf, "calibration_above_factor"))


def _slack(V):
    """Angle allowance of a triangle whose float32 vertices moved by rounding: 4 delta over its
    smallest altitude, delta = sqrt(3) ulp32 of its largest coordinate (a vertex's rounding and
    evaluation error is below one ulp per component)."""
    P = np.asarray(V, dtype=np.float64)
    delta = math.sqrt(3.0) * float(ulp32(np.float32(np.max(np.abs(P)))))
    area2 = float(np.linalg.norm(np.cross(P[1] - P[0], P[2] - P[0])))
    longest = max(float(np.linalg.norm(P[i] - P[j])) for i, j in ((0, 1), (1, 2), (2, 0)))
    return 4.0 * delta * longest / area2 if area2 > 0 else math.inf


def check_normal_angle(claim: Claim):
    """Estimated: the true angle between each triangle's face normal and the surface normal over
    the triangle stays within ``ACCEPTANCE_FACTOR`` times the estimate plus rounding slack;
    the calibration ``true / estimate`` is measured at 113 bits."""
    est = dec(claim.value["normal_angle_estimate"])
    if not 0 <= est <= math.pi:
        return violated(claim, {"why": "an angle estimate lies in [0, pi]",
                                "claimed": claim.value["normal_angle_estimate"]},
                        rule=ANGLE_RANGE.id)
    true_lo = 0.0
    grids = [grid_inputs(d) for d in claim.inputs["patches"]]
    cells = sum(nu * nv for _, nu, nv, _ in grids)
    if cells > MAX_EXACT_CELLS:
        return undecided(claim, None, note=f"{cells} cells: beyond the exact oracle's {MAX_EXACT_CELLS}")
    for pi_, (C, nu, nv, Gd) in enumerate(grids):
        for a, b, u0, u1, v0, v1 in _cells(nu, nv):
            M = cell_polynomial(C, u0, u1, v0, v1)
            V00, V10, V01, V11 = (Gd[a, b], Gd[a + 1, b], Gd[a, b + 1], Gd[a + 1, b + 1])
            Nm = normal_monomials(M)
            for k, (tri, Nb) in enumerate(zip(((V00, V10, V11), (V00, V11, V01)), normal_polynomials(M))):
                Q = [[to_mpq(float(x)) for x in P] for P in tri]
                e1 = [y - x for x, y in zip(Q[0], Q[1])]
                e2 = [y - x for x, y in zip(Q[0], Q[2])]
                nf = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
                if all(x == 0 for x in nf):
                    continue  # a degenerate triangle has no face normal (the estimate skips it too)
                true_lo = max(true_lo, sampled_angles(Nm, nf, k + 1))
                theta = ACCEPTANCE_FACTOR * est + _slack(tri)
                if theta >= math.pi:
                    continue
                ok = decide_max_angle(Nb, nf, to_mpq(min(theta, 1.5)))
                if ok is False and theta > 1.5:
                    ok = None  # beyond 1.5 rad only shown, not beyond theta
                if ok is False:
                    cal = ratio(true_lo, est) if est > 0 else math.inf
                    return violated(claim, {"patch": pi_, "cell": [a, b], "why": "the true normal leaves "
                                            f"{ACCEPTANCE_FACTOR} x estimate + slack", "allowed": theta,
                                            "true_at_least": true_lo}, measure="calibration",
                                    measured=cal, bound_use=cal / ACCEPTANCE_FACTOR, rule=NORMAL_ACCEPTANCE.id)
                if ok is None:
                    return undecided(claim, [true_lo, None], note=f"patch {pi_} cell ({a}, {b}) undecided")
    cal = ratio(true_lo, est) if est > 0 else 0.0
    bin_ = next(name for lim, name in _CAL_BINS if cal < lim)
    # bound_use: the measured factor over the acceptance factor (a lower estimate: sampled)
    return verified(claim, measure="calibration", measured=cal, note=f"true angle at least {true_lo:.3g} rad",
                    bound_use=cal / ACCEPTANCE_FACTOR, **{bin_: 1})

