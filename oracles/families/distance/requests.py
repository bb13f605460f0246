"""Distance requests: the corpus as requests, each step with the status the spec demands of it.

A distance case is a scenario: ``TryBuildDistanceMap`` of its path, then ``TryBoundDistance`` at
its probes (three random parameters and the case's own) and ``TryResolveDistance`` at its
targets (``corpus.case_queries``). The first 18 requests are the named corpus cases of
``corpus.py``; then come the status contracts (:func:`status_requests`, 30 requests, so
``--cases 48`` reaches the last of them): every status the spec and our decisions name for each
op, each of ``max_leaves``, ``max_subdivisions``, ``max_depth`` and ``max_prepared_bytes`` met
with equality (must succeed) and exceeded by one (must fail), queries through an unbuilt map and
through a map of another revision, and failed rebuilds that must keep the previous map. The rest
are random chains.

Expected statuses are decided here from the spec's text and ``docs/decisions.md``, on the exact
inputs, never by running the fast path: a build by replaying the spec's rule on the exact leaves
(``leaves.replay_build``: how many leaves, splits and levels the map needs against the limits);
a bound by the path's domain rules (``oracles.families.path.requests.expected_evaluate``); a
resolution by its arguments, the map the owner holds, and the true length L of its path (the
arc-length oracle): TotalEstimate lies in ``[L - DistanceError, L + DistanceError]``.

Step inputs (``docs/casefile.md``, Requests and answers; requests/1). The path owner is replaced by every step that
carries ``path`` (a ``TryPreparePath`` of those inputs, which the request makes valid); the map
owner only by a successful build.

* ``TryBuildDistanceMap``: ``path`` (``TryPreparePath``'s inputs: ``spans``, ``revision``,
  ``is_closed``, ``origin``, ``tolerance``, ``limits``; its ``tolerance.distance_error`` is the
  map's), ``limits`` (every ``WorkLimits`` field of ``DistancePreparation``, integers) and
  ``strict`` (boolean); output: the map the owner holds after the step, ``{"built": false}`` or
  ``{"built": true, "revision", "span_count", "distance_error", "leaves": [[span, u0, u1, lower,
  upper, estimate], ...], "prefix": [[lower, upper, estimate], ...]}``.
* ``TryBoundDistance``: ``span`` (integer), ``u`` (f64), ``policy``, ``side``, optionally
  ``path``, through the held path and map; output: ``{"lower", "upper", "estimate"}`` or
  ``{"status"}``.
* ``TryResolveDistance``: ``distance`` (f64), ``policy``, ``max_iterations`` (integer),
  optionally ``path``; output: ``{"span", "u", "distance", "residual_bound", "iterations",
  "bound": {"lower", "upper", "estimate"}}`` or ``{"status"}``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

import numpy as np

from interval.context import lower, to_mpq, upper
from interval.narrowing import replay_narrowing
from reference.status import LIMIT_RANGES

from ...model import dec_array, enc, parse_number
from ...model import is_integer as _is_int
from ...request import (
    ANY_FAILURE, ANY_OUTCOME, Expect, Request, Rule, Step, collect_defects, decided, decided_by_kinds, either,
    failure, interleaved, success,
)
from .checks import REQUEST_STATUS
from ..path.requests import enc_limits, expected_evaluate, expected_prepare, prepare_inputs
from .corpus import LIMITS, NAMED, case_queries, corpus_cases, tolerance
from .leaves import Span, leaf_gap, map_bytes, needed_leaves, replay_build
from .oracle import BUDGET, prefix_length

__all__ = [
    "MAX_RESOLVE_ITERATIONS",
    "Held",
    "case_request",
    "expected_bound",
    "expected_build",
    "expected_resolve",
    "requests",
    "status_requests",
]

MAX_RESOLVE_ITERATIONS = 1 << 20
_BUILD_ROWS = ("distance.length_bounds", "distance.prefix_bounds", "distance.estimates")
_BOUND_ROWS = ("distance.prefix_bounds", "distance.estimates")
_RESOLVE_ROWS = ("distance.inversion_residual",)

_WHY_LIMITS = "docs/decisions.md 'WorkLimits fields and ranges'"
_WHY_RULE = ("spec 002 Distance maps: 'It splits the leaf with the largest gap at its parameter midpoint ... until "
             "the whole-path gap TotalUpper - TotalLower is at most the path's DistanceError'; 'Exhausting a limit "
             "returns BudgetExceeded' (the rule replayed exactly, docs/decisions.md 'Distance maps: the leaf counts "
             "requests demand')")
_WHY_STRICT = "docs/decisions.md 'Distance maps: preparation, caches and ownership' (strict = false is not provided)"
_WHY_MISSING = "spec 002 Distance maps: 'Queries through an unbuilt map return MissingCache'"
_WHY_STALE = ("spec 002 Distance maps: 'queries through a map of another revision return StaleRevision' (another span "
              "count too: docs/decisions.md 'Distance maps: preparation, caches and ownership')")
_WHY_RESOLVE = "docs/decisions.md 'Distance resolution'"
_WHY_FIT = ("spec 002 Distance maps: TryResolveDistance 'accepts only when the Certified residual ... fits "
            "DistanceError': whether it fits depends on the implementation's prefix bounds, which the spec does not "
            "fix (UnsupportedPrecision otherwise, " + _WHY_RESOLVE + ")")
_WHY_KEEP = "spec 002 Distance maps: 'Exhausting a limit returns BudgetExceeded ... and keeps the previous map'"
_WHY_KEEP_ANY = "spec 002 Contracts: 'a failed rebuild keeps the previous snapshot'"


# --- What the requests know of the owners ----------------------------------------------------


@dataclass(frozen=True)
class Held:
    """A path (or the map built on it) as the requests know it: exact, from the inputs."""

    revision: int
    narrowed: np.ndarray  # (n, 4, 3) float32: the prepared controls, replayed exactly
    closed: bool
    distance_error: float
    single_leaf: bool = False  # a map the rule certainly builds with one leaf per span (n = 1)

    @property
    def span_count(self) -> int:
        return int(self.narrowed.shape[0])

    def length(self):
        """``(lo, hi)`` exact rationals around the path's true length (the arc-length oracle)."""
        L = prefix_length(self.narrowed, self.span_count - 1, 1.0, BUDGET[0])
        return to_mpq(lower(L)), to_mpq(upper(L))


def _held_path(inp: dict):
    """``(Expect of TryPreparePath, Held or None)``."""
    e = expected_prepare(inp)
    if e.kind != "success":
        return e, None
    src = np.stack([dec_array(s["controls"]) for s in inp["spans"]])
    narrowed = replay_narrowing(src, dec_array(inp["origin"]))
    return e, Held(int(inp["revision"]), narrowed, bool(inp["is_closed"]),
                   float(parse_number(inp["tolerance"]["distance_error"])))


def _merge(expects: list) -> Expect:
    """One expectation that allows what any of ``expects`` allows (the owner's state is one of
    several): ``success`` only when all demand it."""
    if all(e.kind == "success" for e in expects):
        return expects[0]
    if len(expects) == 1:
        return expects[0]
    allowed: list = []
    for e in expects:
        for s in (("Success",) if e.kind == "success" else ("Ambiguous",) if e.kind == "ambiguous" else e.statuses):
            if s not in allowed:
                allowed.append(s)
    why = "; ".join(dict.fromkeys(e.why for e in expects if e.why))
    if "Success" not in allowed:
        out = failure(*allowed, why=why)
    else:
        out = either(*allowed, why="the map the owner holds depends on an earlier step that may end either way: "
                                   + why)
    ruled = [e for e in expects if e.decision]
    if not ruled:
        return out
    # Resting on a decision where one of the states does: the spec alone allows what any state's
    # spec demand allows.
    by_spec = _any_of([e.by_spec or e for e in expects])
    return decided(out, ruled[0].decision, by_spec)


def _statuses_of(e: Expect) -> tuple:
    return ("Success",) if e.kind == "success" else ("Ambiguous",) if e.kind == "ambiguous" else e.statuses


def _any_of(expects: list) -> Expect:
    """What the spec's text alone demands where it demands one of ``expects``."""
    allowed = tuple(dict.fromkeys(s for e in expects for s in _statuses_of(e)))
    why = "the spec's text, in whichever state the owner holds: " + "; ".join(
        dict.fromkeys(e.why for e in expects if e.why))
    return either(*allowed, why=why) if "Success" in allowed else failure(*allowed, why=why)




def _decided(e: Expect, kinds: list) -> Expect:
    """:func:`oracles.request.decided_by_kinds` resting on ``distance:request_status``."""
    return decided_by_kinds(e, kinds, REQUEST_STATUS)


def _with_path_failure(path_expect: Expect) -> Expect:
    return replace(path_expect, why="the path must prepare first: " + path_expect.why)


# --- TryBuildDistanceMap -----------------------------------------------------------------------



def expected_build(inp: dict, held: Held | None) -> Expect:
    """The statuses TryBuildDistanceMap must end in: InvalidArgument for limits outside their
    ranges, UnsupportedPrecision for a Visual-only build, else what the spec's rule replayed on
    the exact leaves ends in against the limits (``held``: the path of ``inp["path"]``)."""
    found, why, kinds = [], [], []
    limits = inp.get("limits", {})
    for name, (lo, hi) in LIMIT_RANGES.items():
        v = limits.get(name)
        if not _is_int(v) or not lo <= v <= hi:
            found.append("InvalidArgument")
            why.append(f"limits.{name} outside [{lo}, {hi}] ({_WHY_LIMITS})")
            kinds.append("spec")  # a default: the ranges the spec leaves to us
    if inp.get("strict") is not True:
        found.append("UnsupportedPrecision")
        why.append(_WHY_STRICT)
        kinds.append("ours")  # 'there is no Estimated fallback mode yet': the spec does not say it fails
    if found:
        return _decided(failure(*dict.fromkeys(found), why="; ".join(why)), kinds)
    r = replay_build(held.narrowed, held.distance_error, limits)
    if r.decided and r.statuses == {"Success"}:
        leaves = sorted(r.finals)
        return success(f"the rule ends with {', '.join(f'{m} leaves ({s} splits, depth {d})' for m, s, d in leaves)} "
                       f"within every limit ({_WHY_RULE})")
    if r.decided and r.statuses == {"BudgetExceeded"}:
        return failure("BudgetExceeded",
                       why=f"every run of the rule exhausts a limit before the gap fits ({_WHY_RULE})")
    return either("Success", "BudgetExceeded",
                  why=f"the rule's run is not decided at the replay's precision ({'; '.join(r.why[:2])}): it may end "
                      f"within or past the limits ({_WHY_RULE})")


def _build_step(inp: dict):
    """``(Step, Held of the map a success holds, or None; path Held)``."""
    pe, path = _held_path(inp["path"])
    if path is None:
        return Step("TryBuildDistanceMap", inp, _with_path_failure(pe)), None, None
    e = expected_build(inp, path)
    single = path.span_count == 1 and e.kind == "success" and \
        needed_leaves(path.narrowed, path.distance_error) == (1, 0, 0)
    return Step("TryBuildDistanceMap", inp, e, _BUILD_ROWS if e.allows("Success") else ()), e, \
        replace(path, single_leaf=single)


# --- Queries -----------------------------------------------------------------------------------


def _map_defect(path: Held, dmap: Held | None) -> Expect | None:
    if dmap is None:
        return failure("MissingCache", why=_WHY_MISSING)
    if dmap.revision != path.revision or dmap.span_count != path.span_count:
        return failure("StaleRevision", why=f"the map was built for revision {dmap.revision} with {dmap.span_count} "
                                            f"spans, the path is revision {path.revision} with {path.span_count} "
                                            f"({_WHY_STALE})")
    return None


def expected_bound(path: Held, dmap: Held | None, q: dict) -> Expect:
    """TryBoundDistance: MissingCache or StaleRevision for a map that is not the path's, else
    the path's domain rules (the Certified prefix enclosure exists at every point)."""
    bad = _map_defect(path, dmap)
    e = expected_evaluate(path.span_count, path.closed, q)
    if bad is None:
        return e if e.kind != "success" else success("'TryBoundDistance returns the Certified prefix enclosure at any "
                                                     "parameter' (spec 002 Distance maps)")
    if e.kind == "success":
        return bad
    out = failure(*dict.fromkeys(bad.statuses + e.statuses), why=f"{bad.why}; {e.why}")
    return decided(out, e.decision, ANY_FAILURE) if e.decision else out


def expected_resolve(path: Held, dmap: Held | None, q: dict) -> Expect:
    """TryResolveDistance (docs/decisions.md 'Distance resolution'): argument defects, the map,
    then the target against ``[0, TotalEstimate]`` with TotalEstimate known to lie within
    DistanceError of the true length; inside, success unless the residual does not fit
    (either), a bisection needed with too few iterations (BudgetExceeded)."""
    found, why, defect = collect_defects()  # defect(status, reason, kind="spec")
    kinds = defect.kinds

    bad = _map_defect(path, dmap)
    if bad is not None:
        defect(bad.statuses[0], bad.why)
    s = parse_number(q["distance"])
    if not isinstance(s, Fraction):  # names no target: the spec's failure, our status
        defect("InvalidArgument", f"a nonfinite target ({_WHY_RESOLVE})", "named")
    it = q.get("max_iterations")
    if not _is_int(it) or not 0 <= it <= MAX_RESOLVE_ITERATIONS:
        # No count (negative, not an integer) fails by the spec; the 2^20 ceiling is ours alone.
        defect("InvalidArgument", f"max_iterations outside [0, 2^20] ({_WHY_RESOLVE})",
               "ours" if _is_int(it) and it > MAX_RESOLVE_ITERATIONS else "named")
    policy = q["policy"]
    if policy not in ("Reject", "Clamp", "Wrap") or (policy == "Wrap" and not path.closed):
        # spec 002 Boundary policies: 'Every other combination is InvalidArgument'
        defect("InvalidArgument", f"{policy} on {'a closed' if path.closed else 'an open'} path: distances accept "
                                  f"Reject, Clamp and, on closed paths, Wrap ({_WHY_RESOLVE})")
    if found:
        return _decided(failure(*found, why="; ".join(why)), kinds)
    E = Fraction(dmap.distance_error)
    lo, hi = dmap.length()
    inside = 0 <= s <= lo - E  # certainly inside [0, TotalEstimate]
    past = s > hi + E  # certainly past TotalEstimate
    if s < 0 or past:
        if policy == "Reject":  # the spec's failure, our status
            return decided(failure("InvalidDomain", why=f"the target is outside [0, TotalEstimate] under Reject "
                                                        f"(TotalEstimate within DistanceError of the true length; "
                                                        f"{_WHY_RESOLVE})"), REQUEST_STATUS)
        if policy == "Clamp":
            return success(f"Clamp resolves to the {'start' if s < 0 else 'path end'}, whose Certified bound fits "
                           f"DistanceError (spec 002: 'the path end resolves to the last span at u = 1'; "
                           f"{_WHY_RESOLVE})")
        return _interior(dmap, None, it, "Wrap takes the remainder modulo TotalEstimate")
    if inside:
        return _interior(dmap, s, it, "inside [0, TotalEstimate]")
    # Within DistanceError of the path end: inside, or past TotalEstimate.
    e = _interior(dmap, None, it, "within DistanceError of TotalEstimate")
    extra = {"Reject": ("InvalidDomain",), "Clamp": (), "Wrap": ()}[policy]
    allowed = tuple(dict.fromkeys(("Success",) + e.statuses + extra))
    return decided(either(*allowed, why=f"the target lies within DistanceError of the true length, so on either side "
                                        f"of TotalEstimate; {_WHY_FIT}"), REQUEST_STATUS, ANY_OUTCOME)


def _interior(dmap: Held, s, it: int, where: str) -> Expect:
    if s == 0:
        return success(f"the target 0 resolves to the path start with a zero residual ({_WHY_RESOLVE})")
    if it == 0 and dmap.single_leaf and s is not None and s > 0:
        # With no bisection the residual cannot fit: the spec's failure ('accepts only when'), our status.
        return decided(failure("BudgetExceeded", why=f"the map's one leaf has no stored boundary inside the path, so "
                                                     f"the target needs bisection and max_iterations = 0 allows none "
                                                     f"({_WHY_RESOLVE}: 'a bisection that would need more than "
                                                     f"max_iterations steps is BudgetExceeded')"), REQUEST_STATUS)
    statuses = ("Success", "UnsupportedPrecision") + (("BudgetExceeded",) if it < 64 else ())
    more = "" if it >= 64 else "; fewer than the 64 iterations the spec asks to allow ('Allow at least 64 " \
                               "iterations so bisection can reach float64 resolution')"
    # 'accepts only when the Certified residual ... fits': a failure the spec names no status for.
    return decided(either(*statuses, why=f"{where}: {_WHY_FIT}{more}"), REQUEST_STATUS, ANY_OUTCOME)


class _Scenario:
    """The owners as the requests know them while steps are added."""

    def __init__(self):
        self.path: Held | None = None
        self.maps: list = [None]  # every map the owner may hold (an undecided build adds one)
        self.steps: list = []

    def _path(self, inp: dict) -> bool:
        if "path" in inp:
            _e, held = _held_path(inp["path"])
            if held is None:
                return False
            self.path = held
        return True

    def build(self, inp: dict) -> int:
        step, e, held = _build_step(inp)
        if held is not None:
            self.path = held
            if e.kind == "success":
                self.maps = [held]
            elif e.allows("Success"):
                self.maps = self.maps + [held]
        self.steps.append(step)
        return len(self.steps) - 1

    def query(self, op: str, inp: dict) -> int:
        ok = self._path(inp)
        if not ok:  # a query path the requests make valid; never reached by the corpus
            raise ValueError("a query's path must prepare")
        fn = expected_bound if op == "TryBoundDistance" else expected_resolve
        e = _merge([fn(self.path, m, inp) for m in self.maps])
        rows = (_BOUND_ROWS if op == "TryBoundDistance" else _RESOLVE_ROWS) if e.allows("Success") else ()
        self.steps.append(Step(op, inp, e, rows))
        return len(self.steps) - 1


def _bound_inputs(k, u, policy="Reject", side="Outgoing", path=None) -> dict:
    out = {"span": int(k), "u": u if isinstance(u, str) else enc(float(u)), "policy": policy, "side": side}
    if path is not None:
        out["path"] = path
    return out


def _resolve_inputs(s, policy="Reject", it=128, path=None) -> dict:
    out = {"distance": s if isinstance(s, str) else enc(float(s)), "policy": getattr(policy, "value", policy),
           "max_iterations": it}
    if path is not None:
        out["path"] = path
    return out


def _build_inputs(path: dict, limits=LIMITS, strict=True, **changes) -> dict:
    lim = enc_limits(limits)
    lim.update(changes)
    return {"path": path, "limits": lim, "strict": strict}


def case_path(case: dict, revision: int = 1) -> dict:
    """``TryPreparePath``'s inputs of a corpus case."""
    n = case["source"].shape[0]
    return prepare_inputs(case["source"], np.ones(n), np.asarray(case["origin"]), case["closed"],
                          tolerance(case["distance_error"], case["position_error"]), revision=revision)


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``corpus.py``) as a request."""
    sc = _Scenario()
    sc.build(_build_inputs(case_path(case)))
    if sc.path is not None:
        probes, targets = case_queries(case)
        for k, u in probes:
            sc.query("TryBoundDistance", _bound_inputs(k, u))
        for s, policy in targets:
            sc.query("TryResolveDistance", _resolve_inputs(s, policy))
    return Request(rid, "distance", case.get("name", ""), tuple(sc.steps))


# --- Status contracts -------------------------------------------------------------------------

# A symmetric arc (one span) and a straight line (one span, zero exact gap): the rule's leaf count
# on them is decided exactly by the replay.
_ARC = np.array([[[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]]], dtype=np.float64)
_LINE = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]], dtype=np.float64)
_TWO = np.array([[[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]],
                 [[3, 0, 0], [4, -1, 0], [5, -1, 1], [6, 0, 1]]], dtype=np.float64)
_LOOP = np.array([[[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]],
                  [[3, 0, 0], [3, -1, 1], [2, -2, 1], [1.5, -2, 0]],
                  [[1.5, -2, 0], [1, -2, -1], [-1, -1, 0], [0, 0, 0]]], dtype=np.float64)
_ARC_ERROR = 2.0**-7  # the rule needs 11 leaves (10 splits, depth 4) on the arc
# Two spans of the same controls (a loop, P0 = P3, with no mirror symmetry): every leaf of the
# second has a twin in the first with the same gap, a tie the spec breaks by the earlier span.
_TWIN_SPAN = [[0, 0, 0], [3, 2, 0], [-1, 3, 1], [0, 0, 0]]
_TWIN = np.array([_TWIN_SPAN, _TWIN_SPAN], dtype=np.float64)


def _twin_errors() -> list[tuple[str, float]]:
    """DistanceErrors at which the rule on ``_TWIN`` stops after one split (the first span's
    root: a tie at the roots) and after three (both roots, then the first span's larger child:
    a tie among the children), each halfway between the exact total gaps before and after the
    last split (``leaves.leaf_gap`` on the narrowed controls), rounded to float32."""
    span = Span(replay_narrowing(_TWIN, np.zeros(3))[0])

    def gap(a, b):
        return leaf_gap(span, a, b)[0]

    g, g0, g1 = gap(0.0, 1.0), gap(0.0, 0.5), gap(0.5, 1.0)
    a, b = (0.0, 0.5) if g0 >= g1 else (0.5, 1.0)
    after3 = 2 * (g0 + g1) - max(g0, g1) + gap(a, (a + b) / 2) + gap((a + b) / 2, b)
    return [("one split, the first span's root", float(np.float32((2 * g + g + g0 + g1) / 2))),
            ("three splits, the first span's larger child", float(np.float32((2 * (g0 + g1) + after3) / 2)))]


def _path(src, error=_ARC_ERROR, revision=1, closed=False) -> dict:
    src = np.asarray(src, dtype=np.float64)
    return prepare_inputs(src, np.ones(len(src)), np.zeros(3), closed, tolerance(error, 1e-4), revision=revision)


def status_requests() -> list[tuple[str, tuple[Step, ...], tuple[Rule, ...]]]:
    """Named status contracts: every status the spec and our decisions name for
    TryBuildDistanceMap, TryBoundDistance and TryResolveDistance; the four build limits at
    equality and one past; MissingCache and StaleRevision; failed rebuilds that keep the map."""
    out = []
    arc = _path(_ARC)
    narrowed = replay_narrowing(_ARC, np.zeros(3))
    need = needed_leaves(narrowed, _ARC_ERROR)
    if need is None:  # pragma: no cover - the arc's count is decided (tests/oracles/test_distance_requests.py)
        raise RuntimeError("the arc's leaf count is not decided")
    m, splits, depth = need
    big = LIMITS

    def scenario(name, *items, rules=()):
        sc = _Scenario()
        for op, inp in items:
            if op == "TryBuildDistanceMap":
                sc.build(inp)
            else:
                sc.query(op, inp)
        out.append((name, tuple(sc.steps), tuple(rules)))

    B, Q, R = "TryBuildDistanceMap", "TryBoundDistance", "TryResolveDistance"
    end = (R, _resolve_inputs(1e9, "Clamp"))
    mid = (Q, _bound_inputs(0, 0.5))
    # --- Limits: the arc needs m leaves, m - 1 splits, depth d (the replay); each at equality and one past.
    for lim, at in (("max_leaves", m), ("max_subdivisions", splits), ("max_depth", depth),
                    ("max_prepared_bytes", map_bytes(m, 1))):
        what = f"{m} leaves, {splits} splits, depth {depth}"
        scenario(f"{lim} met with equality (the arc needs {what}; {lim} = {at})",
                 (B, _build_inputs(arc, big, **{lim: at})), mid, end)
        scenario(f"{lim} exceeded by one (the arc needs {what}; {lim} = {at - 1})",
                 (B, _build_inputs(arc, big, **{lim: at - 1})))
    scenario("zero max_leaves allows no work", (B, _build_inputs(arc, big, max_leaves=0)))
    scenario("max_leaves below the span count (2 spans, max_leaves = 1)",
             (B, _build_inputs(_path(_TWO), big, max_leaves=1)))
    # --- Ties between identical spans: the earlier span's leaf is split first (the build's leaf claims).
    for what, error in _twin_errors():
        twin = _path(_TWIN, error=error)
        scenario(f"two identical spans tie; the rule stops after {what}", (B, _build_inputs(twin, big)),
                 (Q, _bound_inputs(1, 0.5, path=twin)))
    scenario("WorkLimits out of range (max_depth = 53)", (B, _build_inputs(arc, big, max_depth=53)))
    scenario("negative WorkLimits (max_leaves = -1)", (B, _build_inputs(arc, big, max_leaves=-1)))
    scenario("WorkLimits not an integer (max_subdivisions = 8.0)",
             (B, _build_inputs(arc, big, max_subdivisions="0x1p+3")))
    scenario("a Visual-only (strict = false) build", (B, _build_inputs(arc, big, strict=False)))
    # --- The map: unbuilt, another revision, another span count.
    scenario("TryBoundDistance through an unbuilt map", (Q, _bound_inputs(0, 0.5, path=arc)))
    scenario("TryResolveDistance through an unbuilt map", (R, _resolve_inputs(1.0, path=arc)))
    arc2 = _path(_ARC, revision=2)
    scenario("a map of revision 1 queried with the path of revision 2", (B, _build_inputs(arc)), mid, end,
             (Q, _bound_inputs(0, 0.5, path=arc2)), (R, _resolve_inputs(1.0, path=arc2)),
             (R, _resolve_inputs(1e9, "Clamp", path=arc2)))
    two = _path(_TWO)
    scenario("a map of 2 spans queried with a path of 1 span of the same revision", (B, _build_inputs(two)),
             (Q, _bound_inputs(0, 0.5, path=arc)), (R, _resolve_inputs(0.5, path=arc)))
    # --- TryBoundDistance: the path's domain rules.
    scenario("TryBoundDistance outside the domain and at the ends", (B, _build_inputs(two)),
             (Q, _bound_inputs(0, -0.25)), (Q, _bound_inputs(2, 0.25, side="Incoming")),
             (Q, _bound_inputs(0, -0.25, "Clamp")), (Q, _bound_inputs(2, 0.0)), (Q, _bound_inputs(-1, 1.0)),
             (Q, _bound_inputs(1, 1.0, side="Incoming")))
    scenario("TryBoundDistance with a track policy, Wrap on an open path, a nonfinite u", (B, _build_inputs(two)),
             (Q, _bound_inputs(0, 0.5, "Hold")), (Q, _bound_inputs(0, -0.25, "Wrap")), (Q, _bound_inputs(0, "nan")),
             (Q, _bound_inputs(0, 1.5, "Clamp")))
    # --- TryResolveDistance: arguments, policies, the domain, iterations.
    scenario("TryResolveDistance outside [0, TotalEstimate] under Reject, Clamp and Wrap", (B, _build_inputs(two)),
             (R, _resolve_inputs(-0.5)), (R, _resolve_inputs(1e9)), (R, _resolve_inputs(-0.5, "Clamp")),
             (R, _resolve_inputs(1e9, "Clamp")), (R, _resolve_inputs(0.0)), (R, _resolve_inputs(-0.5, "Wrap")))
    scenario("TryResolveDistance with Wrap on a closed path", (B, _build_inputs(_path(_LOOP, closed=True))),
             (R, _resolve_inputs(-0.5, "Wrap")), (R, _resolve_inputs(1e6 + 0.25, "Wrap")),
             (R, _resolve_inputs(0.0, "Wrap")))
    scenario("TryResolveDistance with bad arguments", (B, _build_inputs(two)),
             (R, _resolve_inputs("nan")), (R, _resolve_inputs("inf", "Clamp")), (R, _resolve_inputs(1.0, "Hold")),
             (R, _resolve_inputs(1.0, it=-1)), (R, _resolve_inputs(1.0, it=MAX_RESOLVE_ITERATIONS + 1)),
             (R, _resolve_inputs(1.0, it="0x1p+6")))
    line = _path(_LINE, 2.0**-10)
    scenario("max_iterations below what is needed (0, a target inside the one leaf of a line)",
             (B, _build_inputs(line)), (R, _resolve_inputs(1.0, it=0)), (R, _resolve_inputs(2.25, "Clamp", it=0)),
             (R, _resolve_inputs(0.0, it=0)), (R, _resolve_inputs(1.0, it=64)))
    # --- Failed rebuilds keep the previous map: its leaves, bounds and answers.
    for name, bad in (("max_leaves", _build_inputs(arc, big, max_leaves=m - 1)),
                      ("max_depth", _build_inputs(arc, big, max_depth=depth - 1)),
                      ("WorkLimits out of range", _build_inputs(arc, big, max_leaves=-1)),
                      ("Visual-only", _build_inputs(arc, big, strict=False))):
        queries = [mid, end, (R, _resolve_inputs(1.0))]
        rules = [Rule("same_output", 0, 4, _WHY_KEEP if name in ("max_leaves", "max_depth") else _WHY_KEEP_ANY)]
        rules += [Rule("same_output", 1 + j, 5 + j, _WHY_KEEP_ANY) for j in range(3)]
        scenario(f"failed rebuild ({name}) keeps the previous map", (B, _build_inputs(arc)), *queries, (B, bad),
                 *queries, rules=rules)
    return out


@lru_cache(maxsize=2)
def _kept(seed: int, n: int) -> tuple:
    """The corpus's cases and status contracts, kept for the next range of the same corpus."""
    return corpus_cases(seed, n), status_requests()


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` distance requests: the named corpus cases, the status contracts, then random
    chains. Deterministic in ``seed``; ids ``distance/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    cases, named = _kept(seed, n) if hi - lo < n else (corpus_cases(seed, n), status_requests() if n > NAMED else [])
    named = named if n > NAMED else []
    return interleaved("distance", lo, hi, NAMED, named, lambda rid, k, s: case_request(rid, cases[k]))
