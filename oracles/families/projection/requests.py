"""Projection requests: the corpus as requests, each step with the status the spec demands of it.

A projection case is a scenario: ``TryProjectPoint`` of its point on its path (the strict
search), then ``ProjectPointApproximate`` of the same point with the case's small budget, both
into one caller-owned result. The first 77 requests are the named and adversarial corpus cases
of ``corpus.py``; then come the status contracts (:func:`status_requests`, 16 requests, so
``--cases 93`` reaches the last of them): every status the spec and our decisions name for both
ops, ``max_iterations`` and the scratch capacity met with equality (must succeed) and exceeded by
one (must fail), and failed queries that must leave the caller's result unchanged. The rest are
random chains.

Expected statuses are decided here from the spec's text and ``docs/decisions.md``, on the exact
inputs, never by running the fast path (docs/decisions.md "Projection: the statuses requests
demand"): arguments, capacity and ``|point - origin| > 2^500`` exactly; the strict precision
floor by the decision's formula replayed in exact rationals; BudgetExceeded where no candidate a
search of ``MaxIterations`` splits can evaluate (a dyadic parameter of depth at most
MaxIterations, a span start, the terminal endpoint) comes within ProjectionGap of the true
minimum (the oracle's branch and bound encloses it); success where the spec's own control-hull
boxes of the whole spans (or, on one span, of the two halves of the forced first split) already
bound the minimum within ProjectionGap of a candidate, widened by a rounding allowance
``A = 2^-30 (max |q_c| + max E_c)``; ``either`` otherwise (the spec fixes the search, not how
tight an implementation's certified bounds are, so how many splits meet the gap is its own).

Step inputs (``docs/casefile.md``, Requests and answers; requests/1). The path owner is replaced by a step that
carries ``path``; the result is one caller-owned ``ProjectionResult`` per request, which every
step writes into (only on success); a step's scratch is reserved afresh with its capacity.

* ``TryProjectPoint``: ``point`` (3 f64), ``max_iterations`` (integer), ``scratch_capacity``
  (integer: the entries the caller reserved), optionally ``path`` (``TryPreparePath``'s inputs;
  its ``tolerance.projection_gap`` is the gap); output: the caller's result after the step,
  ``{"span", "u", "distance", "lower_bound", "gap", "is_gap_met", "guarantee", "iterations"}``
  (the default result before any success: span 0, u 0, distance inf, lower bound 0, gap inf).
* ``ProjectPointApproximate``: the same inputs and output.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import gmpy2
import numpy as np

from interval.arb_projection import sqrt_down, sqrt_up
from interval.narrowing import replay_narrowing
from interval.projection import enclose_min_distance, exact_squared_distance

from ...model import dec_array, enc, parse_number
from ...model import is_integer as _is_int
from ...request import (
    ANY_FAILURE, ANY_OUTCOME, Expect, Request, Rule, Step, collect_defects, decided, either, failure, interleaved,
    success,
)
from .checks import REQUEST_STATUS
from ..path.requests import expected_prepare, prepare_inputs
from .corpus import case_tolerance, corpus_cases, make_case, named_cases

__all__ = [
    "MAX_ITERATIONS",
    "MAX_QUERY_MAGNITUDE",
    "Held",
    "case_request",
    "expected_projection",
    "requests",
    "status_requests",
]

MAX_ITERATIONS = 2**31 - 1
MAX_QUERY_MAGNITUDE = Fraction(2) ** 500
_ALLOWANCE = Fraction(1, 2**30)
_U = Fraction(1, 2**53)
_ETA = Fraction(1, 2**1074)
_DYADIC_DEPTH = 12  # BudgetExceeded is shown for MaxIterations up to this many splits

_WHY_ARGS = "docs/decisions.md 'Projection: iterations, scratch and the caller's result' (and a finite point)"
_WHY_CAPACITY = ("spec 002 Projection: 'Scratch must hold span count + 1 + MaxIterations entries; a smaller "
                 "reservation is CapacityExceeded before any work'")
_WHY_FAR = "docs/decisions.md 'Projection: UnsupportedPrecision' (|point - origin| above 2^500)"
_WHY_FLOOR = ("docs/decisions.md 'Projection: UnsupportedPrecision' (the rounding slack at the point is not below "
              "ProjectionGap; its formula replayed exactly)")
_WHY_SEARCH = ("spec 002 Projection: 'The search stops when the best candidate minus the smallest live lower bound "
               "fits the path's ProjectionGap'")
_WHY_APPROX = ("spec 002 Projection: 'ProjectPointApproximate runs the same search but returns its earliest best "
               "candidate when work runs out'; docs/decisions.md 'Projection: ProjectPointApproximate'")
_WHY_KEEP = ("spec 002 Projection: 'Strict projection leaves its result unchanged on BudgetExceeded or "
             "UnsupportedPrecision'")
_WHY_UNCHANGED = "spec 002 Contracts: fallible functions 'leave outputs unchanged on failure'"




@dataclass(frozen=True)
class Held:
    """The path the requests know the owner holds: exact, from the inputs."""

    narrowed: np.ndarray  # (n, 4, 3) float32, replayed exactly
    origin: np.ndarray
    closed: bool
    gap: float


def _held(inp: dict):
    e = expected_prepare(inp)
    if e.kind != "success":
        return e, None
    src = np.stack([dec_array(s["controls"]) for s in inp["spans"]])
    origin = dec_array(inp["origin"])
    return e, Held(replay_narrowing(src, origin), origin, bool(inp["is_closed"]),
                   float(parse_number(inp["tolerance"]["projection_gap"])))



def _q(held: Held, point) -> list:
    return [Fraction(float(p)) - Fraction(float(o)) for p, o in zip(point, held.origin)]


# --- The precision floor, replayed ---------------------------------------------------------------


def _floor_squared(held: Held, point) -> Fraction:
    """The square of ``hypot((q_hi - q_lo) + 2 e)`` of docs/decisions.md "Projection:
    UnsupportedPrecision", exactly: ``q_lo, q_hi`` the floats either side of the rounded
    ``point - origin``, ``e = 16 u E + 16 eta`` with E the path's largest float32 control
    magnitude per component."""
    total = Fraction(0)
    for c in range(3):
        d = float(point[c]) - float(held.origin[c])  # IEEE round to nearest, as the decision's fl(p - o)
        w = Fraction(float(np.nextafter(d, np.inf))) - Fraction(float(np.nextafter(d, -np.inf)))
        E = max(abs(Fraction(float(x))) for x in held.narrowed[..., c].ravel())
        total += (w + 2 * (16 * _U * E + 16 * _ETA)) ** 2
    return total


# --- Certificates of the search ------------------------------------------------------------------


def _box_sq(q, P) -> Fraction:
    """Squared distance from ``q`` to the axis-aligned box of the controls ``P`` (exact)."""
    out = Fraction(0)
    for c in range(3):
        lo, hi = min(Fraction(float(r[c])) for r in P), max(Fraction(float(r[c])) for r in P)
        out += max(lo - q[c], Fraction(0), q[c] - hi) ** 2
    return out


def _halves(P) -> list:
    """The exact controls of ``[0, 1/2]`` and ``[1/2, 1]`` of a span (de Casteljau at 1/2)."""
    p = [[Fraction(float(x)) for x in row] for row in P]
    m01 = [(a + b) / 2 for a, b in zip(p[0], p[1])]
    m12 = [(a + b) / 2 for a, b in zip(p[1], p[2])]
    m23 = [(a + b) / 2 for a, b in zip(p[2], p[3])]
    a = [(x + y) / 2 for x, y in zip(m01, m12)]
    b = [(x + y) / 2 for x, y in zip(m12, m23)]
    mid = [(x + y) / 2 for x, y in zip(a, b)]
    return [[p[0], m01, a, mid], [mid, b, m23, p[3]]]


def _sq(held: Held, point, k: int, u) -> gmpy2.mpq:
    return exact_squared_distance(held.narrowed, held.origin, np.asarray(point, dtype=np.float64), k, u)


def _fixed(held: Held) -> list:
    n = held.narrowed.shape[0]
    return [(k, 0.0) for k in range(n)] + ([(n - 1, 1.0)] if not held.closed else [])


def _certainly_met(held: Held, point, max_iterations: int) -> bool:
    """Whether every conforming search meets the gap within ``max_iterations`` splits: at once
    (the whole spans' control-hull boxes bound the minimum within the gap of a span start or the
    terminal endpoint), or on one span after its forced first split (the halves' boxes against
    the midpoint too). Each bound is widened by the rounding allowance A."""
    q = _q(held, point)
    A = _ALLOWANCE * (max(abs(x) for x in q) + max(abs(Fraction(float(x))) for x in held.narrowed.ravel()))
    g = Fraction(held.gap)
    cands = [_sq(held, point, k, u) for k, u in _fixed(held)]

    def fits(boxes_sq, cand_sq) -> bool:
        return sqrt_up(min(cand_sq)) + A - (sqrt_down(min(boxes_sq)) - A) <= g

    if fits([_box_sq(q, P) for P in held.narrowed], cands):
        return True
    if held.narrowed.shape[0] == 1 and max_iterations >= 1:
        return fits([_box_sq(q, H) for H in _halves(held.narrowed[0])], cands + [_sq(held, point, 0, 0.5)])
    return False


def _certainly_unmet(held: Held, point, max_iterations: int) -> bool:
    """Whether no search of ``max_iterations`` splits can meet the gap: every candidate it can
    evaluate (a span start, the terminal endpoint, a midpoint of depth at most
    ``max_iterations``: a dyadic j / 2^max_iterations) is farther than the true minimum (the
    branch and bound's upper end) plus ProjectionGap."""
    if max_iterations > _DYADIC_DEPTH:
        return False
    n = held.narrowed.shape[0]
    steps = 2 ** max_iterations
    best = min(_sq(held, point, k, j / steps) for k in range(n) for j in range(steps + 1))
    e = enclose_min_distance(held.narrowed, held.origin, np.asarray(point, dtype=np.float64), 113,
                             target=held.gap / 16, max_splits=4000)
    return sqrt_down(best) - sqrt_up(e.upper_sq) > Fraction(held.gap)


# --- The expectation ---------------------------------------------------------------------------


def expected_projection(op: str, held: Held, inp: dict) -> Expect:
    """The statuses ``op`` (TryProjectPoint or ProjectPointApproximate) must end in."""
    found, why, defect = collect_defects()  # defect(status, reason, kind="spec")
    kinds = defect.kinds

    raw = inp.get("point")
    point = None
    if isinstance(raw, list) and len(raw) == 3:
        vals = [parse_number(x) for x in raw]
        if all(isinstance(v, Fraction) for v in vals):
            point = dec_array(raw)
    if point is None:  # names no point
        defect("InvalidArgument", f"the point is not three finite float64 values ({_WHY_ARGS})", "named")
    it, cap = inp.get("max_iterations"), inp.get("scratch_capacity")
    if not _is_int(it) or not 0 <= it <= MAX_ITERATIONS:  # not a count; or above our ceiling (the spec sets none)
        defect("InvalidArgument", f"max_iterations outside [0, 2^31 - 1] ({_WHY_ARGS})",
               "ours" if _is_int(it) and it > MAX_ITERATIONS else "named")
    elif not _is_int(cap) or cap < 0:
        defect("InvalidArgument", f"a scratch capacity that is not a count ({_WHY_ARGS})", "named")
    elif cap < held.narrowed.shape[0] + 1 + it:
        defect("CapacityExceeded", f"{cap} entries < span count + 1 + MaxIterations = "
                                   f"{held.narrowed.shape[0] + 1 + it} ({_WHY_CAPACITY})")
    if point is not None and max(abs(x) for x in _q(held, point)) > MAX_QUERY_MAGNITUDE:
        # Strict: the Certified gap cannot be met there (a default's largest gap); Approximate
        # answers whenever work runs out, so only our limit fails it.
        defect("UnsupportedPrecision", _WHY_FAR, "named" if op == "TryProjectPoint" else "ours")
    if found:
        e = failure(*found, why="; ".join(why))
        if all(k == "spec" for k in kinds):
            return e
        return decided(e, REQUEST_STATUS, ANY_FAILURE if any(k != "ours" for k in kinds) else ANY_OUTCOME)
    if op == "ProjectPointApproximate":
        return success(f"valid arguments and capacity: the approximate search always answers ({_WHY_APPROX})")
    g2 = Fraction(held.gap) ** 2
    f2 = _floor_squared(held, point)
    if f2 >= g2:  # our slack formula: an implementation with tighter bounds may meet the gap
        return decided(failure("UnsupportedPrecision", why=_WHY_FLOOR), REQUEST_STATUS, either(
            "Success", "BudgetExceeded", "UnsupportedPrecision", why=f"the spec's text: {_WHY_SEARCH}, and strict "
            f"projection fails with BudgetExceeded or UnsupportedPrecision; it does not say how tight an "
            f"implementation's certified bounds are"))
    floor_open = f2 * (1 + Fraction(1, 2**38)) >= g2  # within the formula's own rounding of the gap
    if _certainly_met(held, point, it) and not floor_open:
        return success(f"the spec's control-hull boxes bound the minimum within ProjectionGap of a candidate after "
                       f"at most {min(it, 1)} split(s), with a rounding allowance ({_WHY_SEARCH})")
    if _certainly_unmet(held, point, it):
        return failure("BudgetExceeded", why=f"no candidate of {it} splits (a dyadic parameter of depth <= {it}, a "
                                             f"span start or the terminal endpoint) is within ProjectionGap of the "
                                             f"true minimum ({_WHY_SEARCH}; spec: 'Strict projection leaves its "
                                             f"result unchanged on BudgetExceeded')")
    statuses = ["Success", "BudgetExceeded"]
    if it >= 50 or floor_open:  # float64 midpoints can run out only 50 splits deep, or the floor is at the gap
        statuses.append("UnsupportedPrecision")
    return either(*statuses, why=f"the spec fixes the search but not how tight an implementation's certified bounds "
                                 f"are, so whether {it} splits meet ProjectionGap is its own ({_WHY_SEARCH}; "
                                 f"docs/decisions.md 'Projection: the statuses requests demand')")


# --- Requests ----------------------------------------------------------------------------------


class _Scenario:
    def __init__(self):
        self.held: Held | None = None
        self.steps: list = []

    def add(self, op: str, inp: dict) -> int:
        if "path" in inp:
            e, held = _held(inp["path"])
            if held is None:
                raise ValueError(f"a projection request's path must prepare: {e.why}")
            self.held = held
        e = expected_projection(op, self.held, inp)
        row = "projection.strict" if op == "TryProjectPoint" else "projection.approximate"
        self.steps.append(Step(op, inp, e, (row,) if e.allows("Success") else ()))
        return len(self.steps) - 1


def _case_path(case: dict) -> dict:
    n = case["source"].shape[0]
    return prepare_inputs(case["source"], np.ones(n), case["origin"], case["closed"], case_tolerance(case))


def _query(point, it: int, cap: int, path: dict | None = None) -> dict:
    out = {"point": point if isinstance(point, list) and any(isinstance(x, str) for x in point)
           else enc(np.asarray(point, dtype=np.float64)), "max_iterations": it, "scratch_capacity": cap}
    if path is not None:
        out["path"] = path
    return out


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``corpus.py``) as a request: the strict query, then the approximate one,
    with a scratch that holds the larger budget."""
    n = case["source"].shape[0]
    cap = n + 1 + max(case["max_iterations"], case["approx_iterations"])
    sc = _Scenario()
    sc.add("TryProjectPoint", _query(case["point"], case["max_iterations"], cap, _case_path(case)))
    sc.add("ProjectPointApproximate", _query(case["point"], case["approx_iterations"], cap))
    return Request(rid, "projection", case.get("name", ""), tuple(sc.steps))


# --- Status contracts -------------------------------------------------------------------------

# A straight, evenly parametrised span from (-1, 0, 0) to (1, 0, 0) and a point 5 above its
# middle: the span ends are sqrt(26) away, the whole span's box and both halves' boxes 5, and the
# forced first split evaluates the minimum B(1/2) itself: one split is needed, exactly.
_LINE = np.array([[[-1, 0, 0], [-1 / 3, 0, 0], [1 / 3, 0, 0], [1, 0, 0]]], dtype=np.float64)
_ABOVE = [0.0, 5.0, 0.0]
_EXAMPLE = np.array([[[0, 0, 0], [1, 0, 0], [1, 4, 0], [10, 4, 0]]], dtype=np.float64)


def _path(src=_LINE, gap=1e-3) -> dict:
    case = make_case("status", src, np.zeros(3), _ABOVE, gap)
    return _case_path(case)


def status_requests() -> list[tuple[str, tuple[Step, ...], tuple[Rule, ...]]]:
    """Named status contracts of TryProjectPoint and ProjectPointApproximate."""
    out = []
    P, A = "TryProjectPoint", "ProjectPointApproximate"
    line = _path()

    def scenario(name, *items, rules=()):
        sc = _Scenario()
        for op, inp in items:
            sc.add(op, inp)
        out.append((name, tuple(sc.steps), tuple(rules)))

    ok = (P, _query(_ABOVE, 1, 3, line))
    scenario("max_iterations met with equality (one split needed, max_iterations = 1)", ok, (A, _query(_ABOVE, 1, 3)))
    scenario("max_iterations exceeded by one (one split needed, max_iterations = 0)", (P, _query(_ABOVE, 0, 2, line)),
             (A, _query(_ABOVE, 0, 2)))
    scenario("scratch capacity met with equality (span count + 1 + MaxIterations = 3)", ok, (A, _query(_ABOVE, 1, 3)))
    scenario("scratch capacity exceeded by one (2 entries, 3 needed)", (P, _query(_ABOVE, 1, 2, line)),
             (A, _query(_ABOVE, 1, 2)))
    scenario("scratch capacity exceeded by one with a large budget (4096 iterations)",
             (P, _query(_ABOVE, 4096, 4097, line)), (A, _query(_ABOVE, 4096, 4097)))
    scenario("max_iterations out of range (-1 and 2^31)", (P, _query(_ABOVE, -1, 3, line)), (A, _query(_ABOVE, -1, 3)),
             (P, _query(_ABOVE, 2**31, 3)), (A, _query(_ABOVE, 2**31, 3)))
    scenario("a nonfinite point", (P, _query(["nan", "0x0p+0", "0x0p+0"], 1, 3, line)),
             (A, _query(["0x0p+0", "inf", "0x0p+0"], 1, 3)))
    scenario("a point beyond 2^500 of the chunk origin", (P, _query([2.0**501, 0.0, 0.0], 1, 3, line)),
             (A, _query([0.0, -(2.0**501), 0.0], 1, 3)))
    scenario("the rounding slack at a far point is not below ProjectionGap (point 1e9 away, gap 1e-9)",
             (P, _query([1e9, 5.0, 0.0], 4, 6, _path(gap=1e-9))), (A, _query([1e9, 5.0, 0.0], 4, 6)))
    scenario("no split allowed: the gap met at once (a point beyond the terminal endpoint)",
             (P, _query([11.0, 4.0, 0.0], 0, 2, _path(_EXAMPLE))), (A, _query([11.0, 4.0, 0.0], 0, 2)))
    scenario("too few splits for a small gap on the spec's example (3 splits, gap 1e-9)",
             (P, _query([1.0, 2.0, 0.1], 3, 5, _path(_EXAMPLE, 1e-9))), (A, _query([1.0, 2.0, 0.1], 3, 5)))
    # Failed queries leave the caller's result as the last success wrote it.
    for name, op, bad, status in (
            ("BudgetExceeded", P, _query(_ABOVE, 0, 3), "BudgetExceeded"),
            ("UnsupportedPrecision", P, _query([2.0**501, 0.0, 0.0], 1, 3), "UnsupportedPrecision"),
            ("CapacityExceeded", P, _query(_ABOVE, 1, 2), "CapacityExceeded"),
            ("InvalidArgument", P, _query(["nan", "0x0p+0", "0x0p+0"], 1, 3), "InvalidArgument"),
            ("approximate, CapacityExceeded", A, _query(_ABOVE, 4, 5), "CapacityExceeded")):
        why = _WHY_KEEP if status in ("BudgetExceeded", "UnsupportedPrecision") else _WHY_UNCHANGED
        scenario(f"failed query ({name}) keeps the caller's result", ok, (op, bad),
                 rules=(Rule("same_output", 0, 1, why),))
    return out


@lru_cache(maxsize=2)
def _kept(seed: int, n: int) -> tuple:
    """The corpus's cases, its named count and the status contracts, kept for the next range of
    the same corpus (the random cases are drawn in sequence: a range cannot draw its own)."""
    return corpus_cases(seed, n), len(named_cases(seed)), status_requests()


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` projection requests: the named and adversarial cases, the status contracts, then
    random chains. Deterministic in ``seed``; ids ``projection/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    if hi - lo < n:
        cases, named_count, named = _kept(seed, n)
    else:
        cases, named_count = corpus_cases(seed, n), len(named_cases(seed))
        named = status_requests() if n > named_count else []
    named = named if n > named_count else []
    return interleaved("projection", lo, hi, named_count, named, lambda rid, k, s: case_request(rid, cases[k]))
