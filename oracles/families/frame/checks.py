"""Frame checkers of the Certified regularity decision and the Rounded frame vectors.

Both recompute every truth from ``claim.inputs`` alone (``interval.frame``):

* ``frame.regularity``: a regular interval's ``min |B'|`` over it exceeds ``minimum_speed``,
  shown by exact Bernstein subdivision of ``|B'|^2`` (Verified / Violated with a witness
  parameter / Undecided with the bound reached). A singular range shown slow everywhere has
  ``max |B'| <= minimum_speed`` (same method). Every interval and slow claim is enclosed again
  by exact real-root isolation of ``d/du |B'|^2`` (``interval.arb_frame``, python-flint):
  disjoint enclosures of the extremum, two exact values of ``|B'|^2`` at one parameter that
  differ, or opposite decisions are an OracleFault; where subdivision stays undecided, the root
  isolation's decision (and exact witness) stands; a depth-limited range is ``2^-max_depth`` wide
  (spec 002's sentence).
* ``frame.vectors``: first the singular ranges reported around the parameter: a frame strictly
  inside one (or at the common end of two) is Violated, a Degenerate answer is Verified inside
  a range and Violated outside every range. Then the position within ``16 u E + 16 eta`` per
  component of the exact ``B(u)``; the tangent within ``tangent_bound`` of the IV unit tangent;
  the orthonormality residuals ``| |t|^2 - 1 |``, ``| |n|^2 - 1 |``, ``| |b|^2 - 1 |``, ``|t . n|``,
  ``|t . b|``, ``|n . b|`` and the handedness residual ``max |b - t x n|`` at most ``16 u`` (exact
  rationals of the claimed floats); at a run's seed, the normal within ``(4 e_t + 16 u) / sine +
  16 u`` of the true projection of the seed axis (IV), and a fallback seed only where the true
  sine of ``seed_up`` is within that bound of ``minimum_sin_angle`` or below it.

The Estimated row's checker is ``checks_angular.py``.
"""

from __future__ import annotations

import dataclasses
import math

import gmpy2
import numpy as np

from interval.arb_frame import ARB_SPEED_BUDGET, decide_speed_arb
from interval.context import IV, QQ, lower, to_mpq, upper
from interval.frame import bernstein_speed_squared, decide_speed_above, decide_speed_at_most, derivative_box, \
    speed_witness
from reference import error_model as EM
from reference import kernel as K
from reference.frame import FRAME_VECTOR_K

from ...decide import enclosures_overlap
from ...errormodel import ratio, resolve
from ...model import Claim, dec, dec_array, enc, oracle_fault, undecided, verified, violated
from ...rules import decision, declare, default, spec
import itertools

__all__ = [
    "IVP",
    "RANGE_BOX_BAND",
    "check_depth_limited_range",
    "check_regularity",
    "check_singular_ranges",
    "check_vectors",
    "controls_of",
]

_mpq = gmpy2.mpq
IVP = 113  # interval precision (bits) of the vector checks

_S = "spec 002 Transported frames: "
REGULARITY = spec("frame:regularity", _S + "'An interval is regular when an outward-rounded box of its derivative "
                  "stays farther than MinimumSpeed from zero' (spec 002 Guarantees: 'Frame regularity decision "
                  "(derivative box versus MinimumSpeed)' is Certified): a regular interval's min |B'| exceeds "
                  "MinimumSpeed, a slow range's max |B'| is at most it")
DEPTH_LIMITED = spec("frame:depth_limited", _S + "'A range that cannot be shown regular at the depth limit is "
                     "2^-MaxDepth wide': its width, and an exact derivative box that does reach MinimumSpeed (beyond "
                     "the band RANGE_BOX_BAND = 2^-40 of docs/decisions.md 'Frames: depth-limited ranges are "
                     "2^-MaxDepth wide (issue 23)')")
SINGULAR_RANGES = spec("frame:singular_ranges", _S + "'TryEvaluateFrame returns Degenerate inside it and never reuses "
                       "a frame across it': Degenerate only inside a reported range, no frame strictly inside one or "
                       "at the common end of two")
VECTORS = spec("frame:vectors", _S + "'frame.Tangent, frame.Normal and frame.Binormal = Tangent x Normal are "
               "right-handed and orthonormal': finite components")
VECTORS_BOUND = default("frame:vectors_bound", "docs/decisions.md 'Frames: the error model of frame.vectors' (or the "
                        "claim's declared model): the position within 16 u E + 16 eta of B(u), the tangent within "
                        "tangent_bound, orthonormality and handedness residuals within 16 u, the seed normal within "
                        "its bound (spec 002 Guarantees: 'Frame vectors and positions' are Rounded)")
SEED = spec("frame:seed", _S + "'The first run starts from SeedUp projected perpendicular to the first tangent. When "
            "that projection is degenerate (its sine is at or below MinimumSinAngle) ... UseFallbackAxis projects "
            "FallbackAxis instead': a fallback seed only where the true sine of SeedUp is within the model's band of "
            "MinimumSinAngle or below it, and the seed axis not parallel to the tangent")
EVALUATED_POINT = spec("frame:evaluated_point", _S + "Span sides: 'An exact boundary selects the outgoing span at "
                       "u = 0. The terminal endpoint selects the last span at u = 1. SpanSide::Incoming selects the "
                       "previous span at u = 1; at the first endpoint both sides select the first span', and 'A joint "
                       "has an incoming sample at u = 1 and an outgoing sample at u = 0': in an answer, a "
                       "frame.vectors claim's controls are the prepared span and its u the parameter that its "
                       "TryEvaluateFrame step's span, u and side name (evaluation takes no policy: Reject), so a "
                       "frame evaluated at another point than the one asked for is not a frame of the call")

REPORTED_RANGES = default("frame:reported_ranges", "docs/casefile.md frame.vectors ('ranges: Yours: the singular "
                          "ranges your frames report on this span whose closure holds u') and docs/decisions.md "
                          "'Answers: Given inputs are the request's' step 7: in an answer, a frame.vectors claim's "
                          "ranges are the ranges its frames report (the output of the build answered Success before "
                          "it) on the span its step names whose closure holds the point; left out, they are taken "
                          "from that output, so a frame inside a range the frames report (spec 002: 'TryEvaluateFrame "
                          "returns Degenerate inside it') is refuted, and a Degenerate answer is not excused by a "
                          "range the frames do not report")

REQUEST_STATUS = decision("frame:request_status", "docs/decisions.md 'Frames: bad input' and 'Frames: how the twist is "
                          "interpolated, and evaluation': a preparation naming no policy, a strict flag that is not a "
                          "bool, a seed_up or fallback_axis that is not a finite nonzero vector and winding_turns "
                          "outside [-2^20, 2^20] are InvalidArgument; evaluation outside the domain InvalidDomain, a "
                          "nonfinite u "
                          "or roll InvalidArgument, unbuilt frames MissingCache, frames of another path revision "
                          "StaleRevision; 'Frames: seeds, joints and closed loops': SeedUp and FallbackAxis both "
                          "degenerate under UseFallbackAxis is DegenerateFrame (the spec names none of these statuses; "
                          "it sets no winding limit and seeds a degenerate SeedUp by the seed policy: without the "
                          "decision any failure status is accepted there, and success where only the decision fails)")

RULES = declare({
    "frame.statuses": (REQUEST_STATUS,),
    "frame.regularity": (REGULARITY, DEPTH_LIMITED),
    "frame.vectors": (SINGULAR_RANGES, VECTORS, VECTORS_BOUND, SEED, EVALUATED_POINT, REPORTED_RANGES),
})


def controls_of(raw, shape) -> np.ndarray:
    """A claim's controls as float32 values: finite, shape ``(..., 4, 3)`` (``shape`` exact when given)."""
    P = dec_array(raw, np.float32)
    if P.shape[-2:] != (4, 3) or (shape is not None and P.shape != shape) or not np.all(np.isfinite(P)):
        raise ValueError("controls must be finite float32 arrays of shape (..., 4, 3)")
    return P


# What an oracle may raise on a well-formed claim only if it is broken (inputs are validated
# before): an oracle fault, never a malformed claim.
_ORACLE_ERRORS = (ValueError, ArithmeticError, TypeError, IndexError, KeyError, ZeroDivisionError)


def _bernstein_value(b: list, t) -> gmpy2.mpq:
    """The exact value at ``t`` in [0, 1] of Bernstein coefficients ``b`` (de Casteljau)."""
    b = list(b)
    while len(b) > 1:
        b = [x + t * (y - x) for x, y in itertools.pairwise(b)]
    return b[0]


def _arb_cross_check(P, u0, u1, ms, above: bool, d):
    """The second regularity oracle on every interval and slow claim (docs/decisions.md
    "Frames: two regularity oracles"): the extremum of ``f = |B'|^2`` (the minimum for a regular
    claim, the maximum for a slow one) enclosed by exact root isolation of ``f'``
    (``interval.arb_frame``) and by the Bernstein oracle (``d``: its bound on one side; on the
    other, its exact values of f, from its Bernstein form on ``[u0, u1]``, at the ends and at the
    root isolation's witness parameter). Disjoint enclosures, an exact value of f at the same
    parameter that differs, opposite decisions, or an oracle that raises are an oracle fault.

    Returns ``(decision, fault)``: the Bernstein decision with its bound tightened by the Arb
    enclosure, or Arb's decision (and exact witness) where subdivision left it undecided; or
    ``(d, dict)`` naming both oracles' answers when they disagree."""
    try:
        holds, e = decide_speed_arb(P, u0, u1, ms, above, ARB_SPEED_BUDGET)
    except _ORACLE_ERRORS as exc:
        return d, {"arb_root_isolation": f"raised {exc!r}"[:300]}
    try:
        u0q, u1q = to_mpq(u0), to_mpq(u1)
        b = bernstein_speed_squared(P, u0q, u1q)
        wu, wf = e.witness
        at = _bernstein_value(b, (wu - u0q) / (u1q - u0q))
    except _ORACLE_ERRORS as exc:
        return d, {"bernstein_subdivision": f"raised {exc!r}"[:300]}
    if at != wf:  # both exact: one parameter, two values
        return d, {"arb_root_isolation": {"u": enc(wu), "speed_squared": enc(wf)},
                   "bernstein_subdivision": {"u": enc(wu), "speed_squared": enc(at)}}
    values = [b[0], b[-1], at] + ([d.witness[1]] if d.holds is False else [])
    inf = math.inf
    if above:  # min f: the Bernstein lower bound (none once refuted), its least exact value
        B = (d.bound if d.holds is not False and d.bound is not None else 0, min(values))
    else:  # max f: its largest exact value, the Bernstein upper bound
        B = (max(values), d.bound if d.holds is not False and d.bound is not None else inf)
    A = (e.lower, e.upper)
    if B[0] > B[1] or not enclosures_overlap(A, B):
        return d, {"arb_root_isolation": [enc(A[0]), enc(A[1])], "bernstein_subdivision": [enc(B[0]), enc(B[1])]}
    if holds is not None and d.holds is not None and holds != d.holds:
        return d, {"arb_root_isolation": {"holds": holds, "enclosure": [enc(A[0]), enc(A[1])]},
                   "bernstein_subdivision": {"holds": d.holds, "enclosure": [enc(B[0]), enc(B[1])]}}
    if d.holds is False:
        return d, None
    if holds is False:  # subdivision left it open: the exact witness of the root isolation
        return dataclasses.replace(d, holds=False, witness=(wu, wf)), None
    tight = max(B[0], A[0]) if above else min(B[1], A[1])
    return dataclasses.replace(d, holds=True if holds else d.holds, bound=tight), None


def check_regularity(claim: Claim):
    """Certified: a regular interval's min |B'| exceeds minimum_speed (exact subdivision); a slow
    range's max |B'| is at most it; a depth-limited range is 2^-max_depth wide."""
    P = controls_of(claim.inputs["controls"], (4, 3))
    u0, u1 = dec(claim.inputs["u0"]), dec(claim.inputs["u1"])
    ms = dec(claim.inputs["minimum_speed"])
    kind = claim.inputs["kind"]
    depth = claim.inputs["max_depth"]
    if not (0.0 <= u0 < u1 <= 1.0) or not ms >= 0.0 or kind not in ("interval", "slow", "depth_limited") \
            or not isinstance(depth, int) or not 0 <= depth <= 52:
        raise ValueError("regularity claims need 0 <= u0 < u1 <= 1, minimum_speed >= 0, a known kind, "
                         "max_depth in [0, 52]")
    regular = claim.value.get("regular")
    if not isinstance(regular, bool):
        raise ValueError("value.regular must be a boolean")
    if regular:
        d = decide_speed_above(P, u0, u1, ms)
        what = "min |B'|^2 > minimum_speed^2"
    elif kind == "slow":
        d = decide_speed_at_most(P, u0, u1, ms)
        what = "max |B'|^2 <= minimum_speed^2"
    else:
        return check_depth_limited_range(claim, u0, u1, depth)
    if d.holds is None:
        # Subdivision reaches dyadic piece ends only: look for a rational witness (a zero of the
        # speed at u = 1/3), checked exactly.
        w = speed_witness(P, u0, u1, ms, above=regular)
        if w is not None:
            d = dataclasses.replace(d, holds=False, witness=w)
    d, fault = _arb_cross_check(P, u0, u1, ms, regular, d)
    if fault is not None:
        return oracle_fault(claim, fault, note="the Bernstein and Arb enclosures of the speed's extremum disagree")
    s2 = to_mpq(ms) ** 2
    if d.holds is True:
        # how close the speed comes to the threshold: minimum_speed^2 over the lower bound of
        # min |B'|^2 (regular), the upper bound of max |B'|^2 over minimum_speed^2 (slow)
        use = (ratio(s2, d.bound) if regular else ratio(d.bound, s2)) if d.bound is not None else None
        return verified(claim, measure="oracle_pieces", measured=d.pieces, bound_use=use)
    if d.holds is False:
        u, f = d.witness
        return violated(claim, {"why": f"not {what}", "u": enc(u), "speed_squared": enc(f),
                                "minimum_speed": claim.inputs["minimum_speed"]}, measure="oracle_pieces",
                        measured=d.pieces, bound_use=ratio(s2, f) if regular else ratio(f, s2), rule=REGULARITY.id)
    return undecided(claim, [enc(d.bound), enc(to_mpq(ms) ** 2)], measure="oracle_pieces", measured=d.pieces,
                     note=f"{what} not decided in the piece budget",
                     bound_use=(ratio(s2, max(d.bound, 0)) if regular else ratio(max(d.bound, 0), s2))
                     if d.bound is not None else None)


# A depth-limited range whose exact derivative box clears MinimumSpeed by more than this fraction
# of the span's hodograph size could have been shown regular (a float64 box errs by a few u of it).
RANGE_BOX_BAND = 2.0**-40


def check_depth_limited_range(claim: Claim, u0: float, u1: float, depth: int):
    """Spec 002: "A range that cannot be shown regular at the depth limit is 2^-MaxDepth wide".
    The range (kind ``depth_limited``) must be ``2^-max_depth`` wide, exactly; and it must be one
    that cannot be shown regular: its exact derivative box (``interval.frame.derivative_box``,
    the box the spec's rule speaks of, without rounding) must not clear ``minimum_speed`` by more
    than ``RANGE_BOX_BAND`` of the span's hodograph size (so the neighbour of a cusp, which a box
    shows regular, is no such range)."""
    width = to_mpq(u1) - to_mpq(u0)
    if width != _mpq(1, 2**depth):
        return violated(claim, {"why": f"a depth-limited range must be 2^-{depth} wide", "width": enc(width),
                                "u0": claim.inputs["u0"], "u1": claim.inputs["u1"]}, rule=DEPTH_LIMITED.id)
    P = controls_of(claim.inputs["controls"], (4, 3)).astype(np.float64)
    near, _ = derivative_box(P, u0, u1)
    size = 3.0 * float(np.max(np.abs(np.diff(P, axis=0))))
    clear = to_mpq(dec(claim.inputs["minimum_speed"])) + to_mpq(RANGE_BOX_BAND) * to_mpq(size)
    if near > clear * clear:
        return violated(claim, {"why": "a depth-limited range whose exact derivative box is farther than "
                                       "minimum_speed from zero: it can be shown regular",
                                "min_speed_squared": enc(near), "u0": claim.inputs["u0"], "u1": claim.inputs["u1"]},
                        rule=DEPTH_LIMITED.id)
    return verified(claim, measure="oracle_pieces", measured=0, note="depth-limited range 2^-max_depth wide")


def _iv_vec(ctx, x):
    return ctx.asarray(np.asarray(x, dtype=np.float64))


def _true_tangent_iv(P, u, prec):
    ctx = IV(prec)
    d = K.cubic_derivative(ctx, _iv_vec(ctx, P), ctx.asarray(np.float64(u)))
    with ctx.scope():
        s = K.norm(ctx, d)
        return d / s, s


def _vectors_reference(E: float, speed: float, sine: float | None):
    """``reference(u, eta)`` of frame.vectors: [position (per component), tangent (Euclidean),
    orthonormality residual, handedness residual, seed normal (Euclidean)]."""
    def ref(u, eta):
        pos = to_mpq(EM.position_bound(E, u, eta=eta))
        tb = EM.tangent_bound(E, speed, u, eta=eta)
        tang = to_mpq(min(tb, 4.0))
        k = to_mpq(FRAME_VECTOR_K) * to_mpq(u)
        seed = to_mpq(4) if sine is None or not sine > 0 else min(
            to_mpq(4), (4 * tang + k) / to_mpq(sine) + k)
        return [pos, tang, k, k, seed]
    return ref


def check_singular_ranges(claim: Claim, u: float):
    """A frame evaluation against the singular ranges the claim reports around its parameter
    (spec 002: "TryEvaluateFrame returns Degenerate inside it and never reuses a frame across
    it"): a frame strictly inside a range, or at the common end of two ranges (no run reaches it),
    is Violated; a Degenerate answer is Verified inside a range (ends included: a range at a span
    end has no run sample there) and Violated outside every range (frames are baked everywhere
    else). Returns a verdict, or None when a returned frame is outside every range."""
    ranges = []
    for r in claim.inputs.get("ranges", ()):
        u0, u1 = dec(r[0]), dec(r[1])
        if not 0.0 <= u0 < u1 <= 1.0:
            raise ValueError("ranges are [u0, u1] with 0 <= u0 < u1 <= 1")
        ranges.append((u0, u1))
    status = claim.value.get("status")
    if status is not None:
        if status != "Degenerate" or len(claim.value) != 1:
            raise ValueError('a frame.vectors value is a frame or {"status": "Degenerate"}')
        if any(u0 <= u <= u1 for u0, u1 in ranges):
            return verified(claim, measure="error_ratio", measured=0.0, note="Degenerate inside a singular range")
        return violated(claim, {"why": "Degenerate outside every reported singular range", "u": enc(u)},
                        rule=SINGULAR_RANGES.id)
    inside = [(u0, u1) for u0, u1 in ranges if u0 < u < u1]
    if inside:
        return violated(claim, {"why": "a frame strictly inside a reported singular range", "u": enc(u),
                                "range": [enc(inside[0][0]), enc(inside[0][1])]}, rule=SINGULAR_RANGES.id)
    if any(u1 == u for _, u1 in ranges) and any(u0 == u for u0, _ in ranges):
        return violated(claim, {"why": "a frame at the common end of two singular ranges (no run reaches it)",
                                "u": enc(u)}, rule=SINGULAR_RANGES.id)
    return None


def check_vectors(claim: Claim):
    """Rounded: position, tangent, orthonormality, handedness and (at a seed) the seed
    projection, each within its model (declared or the reference at binary64); a Degenerate
    answer or a frame near singular ranges first by :func:`check_singular_ranges`."""
    P = controls_of(claim.inputs["controls"], (4, 3))
    u = dec(claim.inputs["u"])
    if not 0.0 <= u <= 1.0:
        raise ValueError("u must lie in [0, 1]")
    judged = check_singular_ranges(claim, u)
    if judged is not None:
        return judged
    vals = {k: dec_array(claim.value[k]) for k in ("position", "tangent", "normal", "binormal")}
    if any(v.shape != (3,) for v in vals.values()):
        raise ValueError("frame vectors must have three components")
    if not all(np.all(np.isfinite(v)) for v in vals.values()):
        return violated(claim, {"why": "a nonfinite frame component", "claimed": claim.value}, rule=VECTORS.id)
    E = EM.span_magnitude(P)
    t_true, speed = _true_tangent_iv(P, u, IVP)
    speed_lo = float(lower(speed))
    seed = claim.inputs.get("seed")
    sine = None
    proj = None
    if seed is not None:
        axis = dec_array(seed["axis"])
        ctx = IV(IVP)
        with ctx.scope():
            a = _iv_vec(ctx, axis)
            p = a - t_true * K.dot(ctx, a, t_true)
            pn = K.norm(ctx, p)
            sine_iv = pn / K.norm(ctx, a)
            proj = p / pn if lower(pn) > 0 else None
        sine = float(lower(sine_iv))
    r = resolve(claim, _vectors_reference(E, speed_lo, sine), constant=FRAME_VECTOR_K)
    b_pos, b_tan, b_orth, b_hand, b_seed = r.bound
    Q = {k: QQ.asarray(v) for k, v in vals.items()}
    t, n, b = Q["tangent"], Q["normal"], Q["binormal"]
    truth_pos = K.cubic_point(QQ, QQ.asarray(P.astype(np.float64)), QQ.asarray(np.float64(u)))
    e_pos = max(abs(x - y) for x, y in zip(Q["position"], truth_pos))
    one = _mpq(1)
    e_orth = max(abs(K.dot(QQ, t, t) - one), abs(K.dot(QQ, n, n) - one), abs(K.dot(QQ, b, b) - one),
                 abs(K.dot(QQ, t, n)), abs(K.dot(QQ, t, b)), abs(K.dot(QQ, n, b)))
    e_hand = max(abs(x) for x in (b - K.cross(QQ, t, n)))
    ctx = IV(IVP)
    with ctx.scope():
        dt = _iv_vec(ctx, vals["tangent"]) - t_true
        e_tan = upper(K.norm(ctx, dt))
    errs = {"position": (e_pos, b_pos), "tangent": (e_tan, b_tan), "orthonormality": (e_orth, b_orth),
            "handedness": (e_hand, b_hand)}
    notes = {}
    if seed is not None:
        if proj is None:
            return violated(claim, {"why": "the seed axis is parallel to the true tangent", "seed": seed},
                            rule=SEED.id, **r.extra())
        with ctx.scope():
            e_seed = upper(K.norm(ctx, _iv_vec(ctx, vals["normal"]) - proj))
        errs["seed"] = (e_seed, b_seed)
        # A fallback seed is right only where seed_up's true sine is at or near the threshold.
        up = dec_array(seed["seed_up"])
        with ctx.scope():
            a = _iv_vec(ctx, up)
            pu = a - t_true * K.dot(ctx, a, t_true)
            s_up = K.norm(ctx, pu) / K.norm(ctx, a)
        msa = to_mpq(dec(seed["minimum_sin_angle"]))
        slack = b_seed
        if seed["is_fallback"] and lower(s_up) > msa + slack:
            return violated(claim, {"why": "fallback seeded although seed_up is not degenerate",
                                    "seed_up_sine_lower": enc(lower(s_up))}, rule=SEED.id, **r.extra())
        if not seed["is_fallback"] and upper(s_up) <= msa - slack:
            return violated(claim, {"why": "seed_up used although its projection is degenerate",
                                    "seed_up_sine_upper": enc(upper(s_up))}, rule=SEED.id, **r.extra())
        notes["seed_up_sine"] = float(lower(s_up))
    ratios = {k: ratio(e, bb) for k, (e, bb) in errs.items()}
    worst = max(ratios.values())
    if all(e <= bb for e, bb in errs.values()):
        return verified(claim, measure="error_ratio", measured=worst, bound_use=worst, **r.extra())
    return violated(claim, {"ratios": ratios, "bounds": {k: enc(bb) for k, (e, bb) in errs.items()}},
                    measure="error_ratio", measured=worst, bound_use=worst, rule=VECTORS_BOUND.id, **r.extra())
