"""What the spec demands of a frame request, decided with the oracle on the exact inputs.

Nothing here runs the fast path. The truths come from exact rationals (gmpy2) and the frame
oracle (``interval.frame``: the exact derivative box, the spec's step difference at 113 bits,
Gauss-Legendre arc lengths):

* :func:`evaluation_demand`: a parameter whose exact speed is at most MinimumSpeed lies in no
  regular interval (a regular interval's box holds ``B'(u)`` and must clear MinimumSpeed), so
  TryEvaluateFrame must be Degenerate there, whatever MaxDepth is; a parameter whose grid
  intervals ``2^-MaxDepth`` wide (those whose closure holds it) all have an exact derivative box
  clearing MinimumSpeed by more than ``RANGE_BOX_BAND`` of the hodograph lies in a regular interval
  of some run and must have a frame; anything between may be either (a spec-allowed range 2^-MaxDepth
  wide may or may not hold it).
* :func:`replay_partition`: the spec's partition rule replayed per span (docs/decisions.md "Frames:
  the regularity box and singular ranges", "Frames: the share-of-path rule, MIN_DEPTH and the
  limits"): an interval is regular when its exact derivative box clears MinimumSpeed, accepted from
  depth ``MIN_DEPTH`` when the oracle's step difference is at most TangentAngleError times its share
  of the path (true arc lengths, each estimate within DistanceError) or at most ``ROUNDING_FLOOR``.
  Each decision carries a band for the implementation's rounding (the box's outward rounding, the
  float64 angle, estimated distances); a decision inside its band is explored both ways, so the
  replay gives lower and upper bounds on the depth, the interval splits, the baked samples and the
  prepared bytes. Singular ranges are not replayed (a case with one is left to its statement).
* :func:`seed_demand`, :func:`joint_kind`: a run's seed and a joint's class from exact tangents.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import gmpy2
import numpy as np
from mpmath import mp

from interval.frame import Arcs, derivative_box, step_difference
from reference.frame import MIN_DEPTH, ROUNDING_FLOOR, frames_bytes

from ...model import dec, dec_array
from ..path.checks import exact_request_point
from .checks import RANGE_BOX_BAND
from .checks_angular import JOINT_BAND

__all__ = [
    "Replay",
    "evaluation_demand",
    "joint_kind",
    "narrowed_controls",
    "replay_partition",
    "resolve_request",
    "seed_demand",
    "speed_squared",
]

_mpq = gmpy2.mpq
# Relative band of a regularity decision at depth d: the fast path's level box is widened by a few
# dozen u of the controls times 2^d (docs/decisions.md "Frames: the regularity box"); 2^-36 2^d of
# the hodograph's size is a hundred times that.
_BOX_BAND = 2.0**-36
# Absolute and relative band of an acceptance decision: the float64 angle between one step and two
# half steps errs by a few dozen u; the oracle's by a few ulps at 113 bits.
_ANGLE_ABS = 1e-13
_ANGLE_REL = 1e-9
# Relative band of a seed's sine against MinimumSinAngle (a float64 projection and norm).
_SINE_BAND = 2.0**-30


def narrowed_controls(path: dict) -> np.ndarray:
    """The controls a prepared path holds: spec 002 Precision, "Preparation subtracts the chunk
    origin in float64, then narrows to float32" (round to nearest). Float32 values as float64."""
    src = np.array([dec_array(s["controls"]) for s in path["spans"]], dtype=np.float64)
    origin = dec_array(path["origin"]).astype(np.float64)
    return (src - origin).astype(np.float32).astype(np.float64)


def _q(x) -> gmpy2.mpq:
    return _mpq(Fraction(float(x)))


def _hodograph(P) -> list:
    return [[3 * (_q(P[i + 1][c]) - _q(P[i][c])) for c in range(3)] for i in range(3)]


def derivative_at(P, u) -> list:
    """The exact ``B'(u)`` of float32-valued controls at the float ``u`` (mpq components)."""
    D = _hodograph(P)
    t = _q(u)
    w = ((1 - t) ** 2, 2 * t * (1 - t), t * t)
    return [w[0] * D[0][c] + w[1] * D[1][c] + w[2] * D[2][c] for c in range(3)]


def speed_squared(P, u) -> gmpy2.mpq:
    """The exact ``|B'(u)|^2``."""
    return sum(x * x for x in derivative_at(P, u))


def _size(P) -> float:
    return 3.0 * float(np.max(np.abs(np.diff(np.asarray(P, dtype=np.float64), axis=0))))


def resolve_request(n: int, k, u, side: str):
    """The point a TryEvaluateFrame request names under the Reject policy: ``("ok", k, u)`` or
    ``(status, why)``: the path rows' resolver (:func:`..path.checks.exact_request_point`: spec
    002 "Span sides", "Boundary policies") with Reject, the policy evaluation takes (docs/decisions.md
    "Frames: how the twist is interpolated, and evaluation": the parameter follows resolve_parameter
    with Reject, outside the domain InvalidDomain, a nonfinite u InvalidArgument; "Paths: the
    parameter domain and boundary policies": (n, 0) and (-1, 1) name the ends, another point
    outside names nothing)."""
    if not isinstance(u, float) or not math.isfinite(u):
        return "InvalidArgument", ("a nonfinite u (docs/decisions.md 'Frames: how the twist is interpolated, "
                                   "and evaluation')")
    try:
        got = exact_request_point(n, False, k, u, "Reject", side)
    except ValueError:
        return "InvalidArgument", f"side {side!r} names no SpanSide (spec 002 Span sides)"
    if got == "InvalidArgument":
        return "InvalidArgument", "a point outside [0, 1] of an interior span names no point " \
                                  "(docs/decisions.md 'Paths: the parameter domain and boundary policies')"
    if got == "InvalidDomain":
        return "InvalidDomain", "outside the path's domain under Reject (spec 002 Boundary policies; " \
                                "docs/decisions.md 'Frames: how the twist is interpolated, and evaluation')"
    return ("ok", *got)


def _grid_intervals(u: float, depth: int) -> list:
    """The intervals ``2^-depth`` wide on the dyadic grid whose closure holds ``u``."""
    w = Fraction(1, 2**depth)
    q = Fraction(u)
    g = (q // w) * w
    out = []
    if g < 1:
        out.append((g, g + w))
    if q == g and g > 0:
        out.append((g - w, g))
    return [(float(a), float(b)) for a, b in out]


def _clears(P, a: float, b: float, ms: float) -> bool:
    """The exact derivative box over ``[a, b]`` clears MinimumSpeed by more than RANGE_BOX_BAND of
    the hodograph (the checker's band for a range that could be shown regular)."""
    near, _ = derivative_box(P, a, b)
    clear = _q(ms) + _q(RANGE_BOX_BAND) * _q(_size(P))
    return near > clear * clear


def evaluation_demand(P, ms: float, max_depth: int, u: float):
    """``("failure" | "success" | "either", why)`` of TryEvaluateFrame at a resolved point of frames
    built under SplitRuns (module docstring)."""
    if speed_squared(P, u) <= _q(ms) ** 2:
        return "failure", ("spec 002: 'TryEvaluateFrame returns Degenerate inside it': |B'(u)| <= MinimumSpeed "
                           "exactly, so no regular interval holds u (its derivative box would hold B'(u))")
    if all(_clears(P, a, b, ms) for a, b in _grid_intervals(u, max_depth)):
        return "success", ("every interval 2^-MaxDepth wide whose closure holds u has an exact derivative box "
                           "clearing MinimumSpeed: u lies in a regular interval of a run (spec 002 'Transported "
                           "frames'; docs/decisions.md 'Frames: the regularity box and singular ranges')")
    return "either", ("u is within 2^-MaxDepth of parameters whose derivative box does not clear MinimumSpeed: a "
                      "range 2^-MaxDepth wide the spec allows ('A range that cannot be shown regular at the depth "
                      "limit is 2^-MaxDepth wide') may or may not hold it")


# --- The partition rule, replayed ---------------------------------------------------------------


@dataclass
class Replay:
    """Lower and upper bounds of what the spec's partition rule needs (``lo``, ``hi``: dicts of
    ``depth``, ``splits``, ``accepted``, ``starts``); ``settled`` False when a singular range or a
    regularity decision inside its band leaves the structure open (``why``)."""

    settled: bool = True
    why: list = field(default_factory=list)
    lo: dict = field(default_factory=lambda: {"depth": 0, "splits": 0, "accepted": 0, "starts": 0})
    hi: dict = field(default_factory=lambda: {"depth": 0, "splits": 0, "accepted": 0, "starts": 0})
    depth_exceeded: str = ""  # "certain" / "possible" / "" (a regular interval not accepted at max_depth)

    def unsettled(self, why: str) -> None:
        self.settled = False
        self.why.append(why)


def _span_partition(P, k, ms, tae, d, L, arcs, max_depth, upper: bool, rep: Replay, budget: int):
    """One span's partition by the rule; ``upper`` splits at every acceptance decision inside its
    band (upper bounds on every count), else accepts there (lower bounds). Returns ``(depth, splits,
    accepted, exceeded)``: ``exceeded`` when a regular interval is not accepted at ``max_depth``
    (BudgetExceeded; certain in the lower pass, whose intervals every implementation reaches)."""
    size = _size(P)
    msq = _q(ms)
    stack = [(0.0, 1.0, 0)]
    depth = splits = accepted = 0
    exceeded = False
    while stack:
        if splits > budget:
            rep.unsettled(f"span {k}: more than {budget} interval splits replayed")
            break
        a, b, lev = stack.pop()
        near, _far = derivative_box(P, a, b)
        band = _q(size * _BOX_BAND * 2.0**lev)
        if not near > (msq + band) ** 2:
            why = "is within rounding of MinimumSpeed" if near > msq * msq else "does not clear MinimumSpeed"
            rep.unsettled(f"span {k} [{a!r}, {b!r}]: the derivative box {why} (singular ranges are not replayed)")
            break
        accept = False
        if lev >= MIN_DEPTH:
            ang = float(step_difference(P, a, b))
            sa, sb = arcs.prefix(k, a)[0], arcs.prefix(k, b)[0]
            lo = max(sb - sa - 2 * d, 0.0) / (L + d)
            hi = (sb - sa + 2 * d) / (L - d)
            eps = _ANGLE_ABS + _ANGLE_REL * ang
            certain = ang + eps <= tae * lo or ang + eps <= ROUNDING_FLOOR
            refused = ang - eps > tae * hi and ang - eps > ROUNDING_FLOOR
            accept = certain or (not refused and not upper)
        if accept:
            accepted += 1
            depth = max(depth, lev)
        elif lev >= max_depth:
            exceeded = True
            depth = max(depth, lev + 1)
        else:
            splits += 1
            m = 0.5 * (a + b)  # exact: dyadic
            stack += [(m, b, lev + 1), (a, m, lev + 1)]
    return depth, splits, accepted, exceeded


_REPLAYS: dict = {}


def replay_partition(C, ms: float, tae: float, distance_error: float, max_depth: int = 52,
                     budget: int = 1 << 14) -> Replay:
    """The spec's partition rule on every span of ``C`` (float32-valued), both ways through every
    decision inside its band (module docstring), down to the deepest depth u holds (52); the needed
    depth is ``lo``/``hi`` ``depth``, and ``depth_exceeded`` says whether ``max_depth`` stops a
    regular interval before it is accepted (certain when even the lower bound needs more). Replays
    are cached by their inputs (status requests vary the limits of one case)."""
    key = (np.asarray(C, dtype=np.float64).tobytes(), float(ms), float(tae), float(distance_error), budget)
    if key not in _REPLAYS:
        _REPLAYS[key] = _replay(np.asarray(C, dtype=np.float64), ms, tae, distance_error, budget)
    base = _REPLAYS[key]
    rep = Replay(base.settled, list(base.why), dict(base.lo), dict(base.hi))
    if rep.settled:
        if rep.lo["depth"] > max_depth:
            rep.depth_exceeded = "certain"
        elif rep.hi["depth"] > max_depth:
            rep.depth_exceeded = "possible"
    return rep


def _replay(C, ms, tae, distance_error, budget) -> Replay:
    rep = Replay()
    arcs = Arcs(np.asarray(C, dtype=np.float32))
    L, Lerr = arcs.total()
    d = float(distance_error) + 4 * Lerr
    if not L > d:
        rep.unsettled("the path is not longer than DistanceError: shares are unknown")
        return rep
    for bound, upper in ((rep.lo, False), (rep.hi, True)):
        for k in range(C.shape[0]):
            depth, splits, accepted, _ = _span_partition(C[k], k, ms, tae, d, L, arcs, 52, upper, rep, budget)
            if not rep.settled:
                return rep
            bound["depth"] = max(bound["depth"], depth)
            bound["splits"] += splits
            bound["accepted"] += accepted
            bound["starts"] += 1  # no singular range: one stretch of regular intervals per span
    return rep


def samples_and_bytes(bound: dict, runs: int) -> tuple:
    """Baked samples (one per accepted interval plus one per stretch start; docs/decisions.md "Frames:
    the share-of-path rule, MIN_DEPTH and the limits") and prepared bytes (120 per sample, 24 per run
    and per range, ``reference.frame.frames_bytes``) of a partition without ranges."""
    samples = bound["accepted"] + bound["starts"]
    return samples, frames_bytes(samples, runs, 0)


# --- Seeds and joints ----------------------------------------------------------------------------


def _sine_squared(axis, t) -> gmpy2.mpq:
    """The exact squared sine between ``axis`` and the direction ``t`` (mpq vectors)."""
    a = [_q(x) for x in axis]
    aa = sum(x * x for x in a)
    tt = sum(x * x for x in t)
    at = sum(x * y for x, y in zip(a, t))
    return (aa * tt - at * at) / (aa * tt)


def seed_demand(P, u: float, seed_up, fallback, policy: str, min_sin: float):
    """``("ok" | "DegenerateFrame" | "either", why)`` of a run seeded at ``(P, u)``: spec 002, "When
    that projection is degenerate (its sine is at or below MinimumSinAngle), RejectDegenerateSeed
    fails with DegenerateFrame. UseFallbackAxis projects FallbackAxis instead" (DegenerateFrame when
    that one is degenerate too: docs/decisions.md "Frames: seeds, joints and closed loops")."""
    t = derivative_at(P, u)
    m2 = _q(min_sin) ** 2
    band = _q(_SINE_BAND)
    axes = [("seed_up", seed_up)] + ([("fallback_axis", fallback)] if policy == "UseFallbackAxis" else [])
    for name, axis in axes:
        s2 = _sine_squared(axis, t)
        if s2 > m2 * (1 + band):
            return "ok", f"{name} projects with sine above MinimumSinAngle"
        if s2 >= m2 * (1 - band):
            return "either", f"{name}'s sine is within rounding of MinimumSinAngle"
    return "DegenerateFrame", ("spec 002: 'RejectDegenerateSeed fails with DegenerateFrame'"
                               if policy != "UseFallbackAxis"
                               else "docs/decisions.md 'Frames: seeds, joints and closed loops': SeedUp and "
                                    "FallbackAxis both project with sine at or below MinimumSinAngle")


def joint_kind(C, j: int, continuity_angle: float) -> str:
    """Joint ``j`` (the start of span j; 0 the closing joint) from exact tangents: ``"G1"`` clearly
    below ContinuityAngle (a relative band 2^-20, the checker's ``JOINT_BAND``), ``"corner"`` clearly
    above, ``"reversal"`` for an exact reversal (spec 002: "an exact reversal fails"), else
    ``"either"``."""
    n = C.shape[0]
    t_in = derivative_at(C[j - 1 if j > 0 else n - 1], 1.0)
    t_out = derivative_at(C[j], 0.0)
    cross = [t_in[1] * t_out[2] - t_in[2] * t_out[1], t_in[2] * t_out[0] - t_in[0] * t_out[2],
             t_in[0] * t_out[1] - t_in[1] * t_out[0]]
    dot = sum(x * y for x, y in zip(t_in, t_out))
    if all(c == 0 for c in cross) and dot < 0:
        return "reversal"
    with mp.workprec(113):
        num = mp.mpf(int(dot.numerator)) / mp.mpf(int(dot.denominator))
        nin = mp.sqrt(sum(mp.mpf(int(x.numerator)) ** 2 / mp.mpf(int(x.denominator)) ** 2 for x in t_in))
        nout = mp.sqrt(sum(mp.mpf(int(x.numerator)) ** 2 / mp.mpf(int(x.denominator)) ** 2 for x in t_out))
        if nin == 0 or nout == 0:
            return "either"
        ang = mp.acos(max(-1, min(1, num / (nin * nout))))
    ca = float(continuity_angle)
    if ang < ca * (1 - JOINT_BAND):
        return "G1"
    if ang > ca * (1 + JOINT_BAND):
        return "corner"
    return "either"


def tolerance_of(path: dict) -> dict:
    """The path's tolerance fields as floats."""
    return {k: dec(v) for k, v in path["tolerance"].items()}
