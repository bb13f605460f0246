"""Point-search requests: the corpus as requests, each step with the status the spec demands.

A corpus case (:mod:`.corpus`) is a scenario: ``PointSearchTree::Build`` of its positions, then
one ``FindNearest`` per query on the tree built. Requests 0 to 12 are the named cases, then come
the status contracts (:func:`status_requests`, requests 13 to 45; ``--cases 46`` reaches them
all): every status ``PointSearchTree::Build`` and ``FindNearest`` can fail with, each limit met
with equality (must succeed) and exceeded by one (must fail): ``MAX_POINT_NEIGHBORS``,
``MAX_POINT_SEARCH_COORDINATE`` (for positions and for queries), the point count and the
caller's output capacity; duplicates accepted; failed rebuilds that must keep the previous tree,
and failed queries that must keep the caller's outputs. The rest are random clouds (corpus
cases 13, 14, ...: the same clouds the corpus held before the status contracts came).

Expected statuses come from spec 002 "Point neighborhoods" and ``docs/decisions.md`` ("Point
search: limits", "Point search: inputs, build and layout"), decided here on the exact inputs
(exact rational comparisons with ``2^60``, exact float32 membership), never by running the fast
path. The spec names no status for point search; ours are the decisions': every rejected
input is ``InvalidArgument``, an output shorter than the count ``CapacityExceeded``. Where a
step has several defects every defect's status is accepted (the spec orders no checks).

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``PointSearchTree::Build``: ``positions`` ``[[x, y, z], ...]`` (float32 values; a point is
  three numbers); output: the tree the owner holds after the step, read from the tree object:
  ``{"point_count", "positions" (the stored copies, source order), "nodes" (GetNodes, each
  ``[lo, hi, first, count, left, right]`` in the implementation's own layout), "probe"}``, where
  ``probe`` is ``FindNearest((0, 0, 0), min(point_count, MAX_POINT_NEIGHBORS))`` on that tree as
  ``{"indices", "distances"}`` (or ``{"status"}``); ``{"point_count": 0}`` while it holds none.
* ``FindNearest``: ``query`` ``[x, y, z]``, ``count`` and ``capacity``, on the tree the owner
  holds. The caller owns one pair of output arrays for the whole request, ``max(32, every
  capacity of the request)`` entries each, indices ``-1`` and distances NaN until written; each
  call passes their first ``capacity`` entries. Output: both arrays in full after the step
  (``{"indices", "distances"}``), so a failed query that wrote anything is seen.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from reference.point_search import MAX_POINT_NEIGHBORS, MAX_POINT_SEARCH_COORDINATE, MAX_POINT_SEARCH_POINTS

from ...model import NumberError, enc, number_as, parse_number
from ...model import is_integer as _is_int
from ...request import ANY_FAILURE, ANY_OUTCOME, Expect, Request, Rule, Step, decided, failure, success
from .checks import STATUS_NAME
from .corpus import NAMED, case_at

__all__ = [
    "BUILD",
    "FIND",
    "NEAREST",
    "RANDOM_CASES",
    "STATUS_REQUESTS",
    "build_inputs",
    "case_request",
    "expected_build",
    "expected_find",
    "find_inputs",
    "request_at",
    "requests",
    "status_requests",
]

BUILD, FIND = "PointSearchTree::Build", "FindNearest"
NEAREST = "point_search.nearest"
RANDOM_CASES = 287  # the random clouds of the corpus before the status contracts came (300 - 13)

_MAXC = Fraction(MAX_POINT_SEARCH_COORDINATE)
_SPEC = "spec 002 Point neighborhoods"
_LIMITS = "docs/decisions.md 'Point search: limits'"
_INPUTS = "docs/decisions.md 'Point search: inputs, build and layout'"
_WHY_BUILD_OK = (f"finite float32 positions of magnitude at most MAX_POINT_SEARCH_COORDINATE, at least one "
                 f"({_SPEC}: 'Build copies World positions, accepting duplicates and rejecting nonfinite "
                 f"coordinates, magnitudes above MAX_POINT_SEARCH_COORDINATE, and invalid counts')")
_WHY_FIND_OK = (f"a finite float32 query within MAX_POINT_SEARCH_COORDINATE and a count in [1, min(point count, "
                f"MAX_POINT_NEIGHBORS)] with outputs that hold it ({_SPEC}: 'FindNearest ... returns 1 through "
                f"MAX_POINT_NEIGHBORS results'; 'The requested count cannot exceed the input point count')")


# --- encoding ----------------------------------------------------------------------------------


def _enc_number(x):
    return x if isinstance(x, str) else enc(float(x))


def build_inputs(positions) -> dict:
    """``PointSearchTree::Build``'s inputs from positions: an (n, 3) array of float32 values, or a
    list of points whose numbers are floats or claim-number text (kept as written)."""
    if isinstance(positions, np.ndarray):
        return {"positions": enc(np.asarray(positions, dtype=np.float64).reshape(-1, 3))}
    return {"positions": [[_enc_number(x) for x in p] for p in positions]}


def find_inputs(query, count: int, capacity: int | None = None) -> dict:
    """``FindNearest``'s inputs; the capacity defaults to outputs that hold ``max(count, 32)``."""
    if capacity is None:
        capacity = max(MAX_POINT_NEIGHBORS, count) if isinstance(count, int) else MAX_POINT_NEIGHBORS
    q = [_enc_number(x) for x in query]
    return {"query": q, "count": count, "capacity": int(capacity)}


# --- what the spec demands ---------------------------------------------------------------------



def _coordinate_defect(x) -> str | None:
    """Why a coordinate is refused (None when it is a finite float32 value within the limit)."""
    try:
        v = parse_number(x)
    except NumberError:
        return f"{x!r} is not a number ({_INPUTS})"
    if not isinstance(v, Fraction):
        return f"a nonfinite coordinate ({_SPEC}: 'rejecting nonfinite coordinates')"
    if abs(v) > _MAXC:
        return (f"a magnitude above MAX_POINT_SEARCH_COORDINATE = 2^60 ({_SPEC}: 'rejecting ... magnitudes above "
                f"MAX_POINT_SEARCH_COORDINATE'; {_LIMITS})")
    try:
        number_as(x, "f32")
    except NumberError:
        return f"a coordinate that is not a float32 value ({_INPUTS}: 'never rounded silently')"
    return None


def _vector_defects(p) -> list:
    if not isinstance(p, list) or len(p) != 3:
        return [f"a point that is not three numbers ({_INPUTS})"]
    return [w for w in map(_coordinate_defect, p) if w is not None]


def expected_build(inp: dict) -> Expect:
    """The status ``PointSearchTree::Build`` must end in: InvalidArgument for every input the spec
    and our decisions reject (all of them name that status), else success."""
    why, ours = [], []  # ours: defects only our decision fails (the spec fails every other one)
    raw = inp.get("positions")
    if not isinstance(raw, list):
        why.append(f"positions are not a list of points ({_INPUTS})")
    else:
        if not raw:  # the spec leaves which counts are invalid to us
            why.append(f"no points: an invalid count ({_SPEC}: 'rejecting ... invalid counts'; {_LIMITS}: "
                       "at least one)")
            ours.append(why[-1])
        elif len(raw) > MAX_POINT_SEARCH_POINTS:
            why.append(f"more than MAX_POINT_SEARCH_POINTS = 2^31 - 1 points: an invalid count ({_LIMITS})")
            ours.append(why[-1])
        for p in raw:
            for w in _vector_defects(p):
                if w not in why:
                    why.append(w)
    if why:
        # 'rejecting nonfinite coordinates, magnitudes above MAX_POINT_SEARCH_COORDINATE, and
        # invalid counts': the spec names no status (InvalidArgument is ours).
        return _decided(failure("InvalidArgument", why="; ".join(why)), len(ours) < len(why))
    return success(_WHY_BUILD_OK)




def _decided(e: Expect, must: bool) -> Expect:
    """``e`` resting on ``point_search:status_name``: the spec's text demands a failure with any
    status where ``must`` (one defect is a failure the spec demands), else allows success too."""
    return decided(e, STATUS_NAME, ANY_FAILURE if must else ANY_OUTCOME)


def expected_find(point_count: int, inp: dict) -> Expect:
    """The status ``FindNearest`` must end in on a tree of ``point_count`` points (0: none built,
    or every build failed: 'Failure preserves the previous tree')."""
    found, why, ours = [], [], []

    def defect(status, reason, mine=False):
        """``mine``: only our decision fails the input (the spec fails every other defect here)."""
        if status not in found:
            found.append(status)
        why.append(reason)
        ours.append(mine)

    k, cap = inp.get("count"), inp.get("capacity")
    if not _is_int(cap) or cap < 0:
        raise ValueError("capacity is the caller's output length, a nonnegative integer")
    if not _is_int(k) or not 1 <= k <= MAX_POINT_NEIGHBORS:
        defect("InvalidArgument", f"count {k!r} outside [1, MAX_POINT_NEIGHBORS = {MAX_POINT_NEIGHBORS}] ({_SPEC}: "
                                  f"'returns 1 through MAX_POINT_NEIGHBORS results'; {_LIMITS})")
    if _is_int(k) and k > point_count:
        held = f"the tree holds {point_count} points" if point_count else "the tree holds no points (none built)"
        defect("InvalidArgument", f"count {k} > point count: {held} ({_SPEC}: 'The requested count cannot exceed "
                                  f"the input point count')")
    q = inp.get("query")
    for w in dict.fromkeys(_vector_defects(q)):
        # A query naming no point fails; the coordinate limit on queries is ours (the spec sets it on Build).
        defect("InvalidArgument", f"query: {w} ({_LIMITS}: 'applied ... to every query coordinate')",
               "magnitude above" in w)
    if _is_int(k) and k > cap:
        defect("CapacityExceeded", f"outputs of {cap} entries for count {k} ({_LIMITS}: 'an output shorter than "
                                   f"count is CapacityExceeded')")
    if found:
        return _decided(failure(*found, why="; ".join(why)), not all(ours))
    return success(_WHY_FIND_OK)


def _held_count(inp: dict, expect: Expect, before: int) -> int:
    """The point count the owner holds after a Build step that must end as ``expect``."""
    return len(inp["positions"]) if expect.kind == "success" else before


# --- requests ----------------------------------------------------------------------------------


def _scenario(*ops) -> tuple:
    """Steps from ``("build", inputs)`` and ``("find", inputs)``, each expectation decided on the
    tree the owner holds by then (a build that must fail leaves it as it was)."""
    steps, n = [], 0
    for kind, inp in ops:
        if kind == "build":
            e = expected_build(inp)
            steps.append(Step(BUILD, inp, e))
            n = _held_count(inp, e, n)
        else:
            e = expected_find(n, inp)
            steps.append(Step(FIND, inp, e, (NEAREST,) if e.kind == "success" else ()))
    return tuple(steps)


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``{"name", "positions", "queries": [(query, count)]}``) as a request: its
    build, then its queries (outputs long enough for each count: the capacity is not what the
    case is about)."""
    ops = [("build", build_inputs(case["positions"]))]
    ops += [("find", find_inputs(q, k)) for q, k in case["queries"]]
    return Request(rid, "point_search", case.get("name", ""), _scenario(*ops))


def _lattice(nx: int, ny: int, nz: int) -> np.ndarray:
    g = np.stack(np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"), -1)
    return g.reshape(-1, 3).astype(np.float64)


_M = float(MAX_POINT_SEARCH_COORDINATE)
_ABOVE = float(np.nextafter(np.float32(_M), np.float32(np.inf)))  # 2^60 (1 + 2^-23): one float32 ulp above
_NOT_F32 = 0.1  # a binary64 value that is no float32 value


def status_requests() -> list:
    """``(name, steps, rules)`` of the status contracts (see the module docstring)."""
    A = _lattice(4, 3, 3)  # 36 distinct points, (0..3, 0..2, 0..2)
    G = _lattice(3, 3, 3) * 0.5  # 27 points
    a, g = build_inputs(A), build_inputs(G)
    q = [0.5, 0.5, 0.5]
    out = []

    def single(name, *ops):
        out.append((name, _scenario(*ops), ()))

    def with_point(base: np.ndarray, i: int, value) -> dict:
        pts = base.tolist()
        pts[i] = list(value)
        return build_inputs(pts)

    # MAX_POINT_NEIGHBORS: 'returns 1 through MAX_POINT_NEIGHBORS results'.
    single("MAX_POINT_NEIGHBORS met with equality (count 32 of 36 points)", ("build", a), ("find", find_inputs(q, 32)))
    single("MAX_POINT_NEIGHBORS exceeded by one (count 33 of 36 points, outputs of 33)", ("build", a),
           ("find", find_inputs(q, 33, 33)))
    single("zero count", ("build", a), ("find", find_inputs(q, 0)))
    single("negative count", ("build", a), ("find", find_inputs(q, -1)))
    single("count 1 (the least count)", ("build", a), ("find", find_inputs([3.0, 2.0, 2.0], 1)))
    # The point count: 'The requested count cannot exceed the input point count'.
    single("point count met with equality (count 27 of 27 points)", ("build", g), ("find", find_inputs(q, 27)))
    single("point count exceeded by one (count 28 of 27 points)", ("build", g), ("find", find_inputs(q, 28)))
    single("point count met with equality by one point (count 1)", ("build", build_inputs([[1.0, -2.0, 0.25]])),
           ("find", find_inputs([0.0, 0.0, 0.0], 1)))
    # The caller's output capacity (docs/decisions.md 'Point search: limits').
    single("output capacity met with equality (count 5, outputs of 5)", ("build", a), ("find", find_inputs(q, 5, 5)))
    single("output capacity exceeded by one (count 5, outputs of 4)", ("build", a), ("find", find_inputs(q, 5, 4)))
    single("no outputs (count 1, outputs of 0)", ("build", a), ("find", find_inputs(q, 1, 0)))
    # MAX_POINT_SEARCH_COORDINATE = 2^60, for positions and for queries: 'magnitudes above' it are rejected.
    corners = np.array([[x, y, z] for x in (-_M, _M) for y in (-_M, _M) for z in (-_M, _M)] + [[0.0, 0.0, 0.0]])
    single("MAX_POINT_SEARCH_COORDINATE met with equality (positions at +-2^60)", ("build", build_inputs(corners)),
           ("find", find_inputs([0.0, 0.0, 0.0], 9)), ("find", find_inputs([_M, _M, _M], 2)))
    single("MAX_POINT_SEARCH_COORDINATE met with equality by a query (2^60, -2^60, 2^60)", ("build", a),
           ("find", find_inputs([_M, -_M, _M], 3)))
    single("MAX_POINT_SEARCH_COORDINATE exceeded by one float32 ulp (a position at 2^60 (1 + 2^-23))",
           ("build", with_point(A, 7, (0.0, _ABOVE, 1.0))))
    single("MAX_POINT_SEARCH_COORDINATE exceeded by one float32 ulp by a query (-2^60 (1 + 2^-23))", ("build", a),
           ("find", find_inputs([0.0, 0.0, -_ABOVE], 3)))
    single("a position at 2^61", ("build", with_point(A, 0, (2.0**61, 0.0, 0.0))))
    # Invalid positions: 'rejecting nonfinite coordinates ... and invalid counts'.
    single("no points (then a query on the empty tree)", ("build", build_inputs([])),
           ("find", find_inputs([0.0, 0.0, 0.0], 1)))
    single("NaN coordinate", ("build", with_point(A, 3, ("nan", 0.0, 0.0))))
    single("infinite coordinate", ("build", with_point(A, 35, (1.0, "-inf", 1.0))))
    single("a coordinate that is not a float32 value (0.1 in binary64)",
           ("build", with_point(A, 5, (_NOT_F32, 0.0, 0.0))))
    single("positions of two coordinates", ("build", {"positions": [p[:2] for p in a["positions"]]}))
    single("duplicates accepted (five equal points, count 5)", ("build", build_inputs([[0.75, -3.0, 2.0**-20]] * 5)),
           ("find", find_inputs([0.0, 0.0, 0.0], 5)))
    # Invalid queries.
    single("NaN query", ("build", a), ("find", find_inputs(["nan", "0x0.0p+0", "0x0.0p+0"], 1)))
    single("infinite query", ("build", a), ("find", find_inputs(["0x0.0p+0", "inf", "0x0.0p+0"], 1)))
    single("a query that is not a float32 value (0.1 in binary64)", ("build", a),
           ("find", find_inputs([_NOT_F32, 0.0, 0.0], 1)))
    single("a query of two coordinates", ("build", a), ("find", {"query": [enc(0.0), enc(0.0)], "count": 1,
                                                                 "capacity": MAX_POINT_NEIGHBORS}))
    single("query before any build (a new tree holds no points)", ("find", find_inputs(q, 1)))
    # Failure preserves the previous tree: the owner's state and a query's answer stay as they were.
    keep = f"{_SPEC}: 'Failure preserves the previous tree'"
    for what, bad in (("a NaN coordinate, same point count", with_point(A, 20, (1.0, "nan", 2.0))),
                      ("a magnitude above 2^60, fewer points",
                       build_inputs(np.concatenate([G[:20], [[0.0, _ABOVE, 0.0]]]))),
                      ("no points", build_inputs([])),
                      ("a coordinate that is not a float32 value, more points",
                       build_inputs(np.concatenate([A, G, [[_NOT_F32, 0.0, 0.0]]])))):
        steps = _scenario(("build", a), ("find", find_inputs(q, 8)), ("build", bad), ("find", find_inputs(q, 8)))
        out.append((f"failed rebuild ({what}) keeps the previous tree", steps,
                    (Rule("same_output", 0, 2, keep), Rule("same_output", 1, 3, keep))))
    steps = _scenario(("build", a), ("find", find_inputs(q, 8)), ("build", g), ("find", find_inputs(q, 27)),
                      ("find", find_inputs(q, 28)))
    out.append(("a successful rebuild replaces the tree (36 points, then 27)", steps, ()))
    # Query failure preserves outputs: the caller's arrays after each failed query are the ones
    # the last successful query left.
    fails = [find_inputs(q, 0), find_inputs(q, 33, 33), find_inputs(q, 37, 40),
             find_inputs(["nan", "0x0.0p+0", "0x0.0p+0"], 8), find_inputs([0.0, 2.0**61, 0.0], 8),
             find_inputs([_NOT_F32, 0.0, 0.0], 8), find_inputs(q, 8, 7)]
    steps = _scenario(("build", a), ("find", find_inputs(q, 8)), *[("find", f) for f in fails])
    why = f"{_SPEC}: 'Query failure preserves outputs'"
    out.append(("failed queries keep the caller's outputs", steps,
                tuple(Rule("same_output", 1, j, why) for j in range(2, len(steps)))))
    return out


STATUS_REQUESTS = 33  # len(status_requests()), stated in the module docstring


def request_at(seed: int, k: int, named_status: list | None = None) -> Request:
    """Request ``k``: corpus case ``k`` for ``k < NAMED``, then the status contracts, then corpus
    case ``k - STATUS_REQUESTS`` (a random cloud)."""
    rid = f"point_search/{k:05d}"
    if NAMED <= k < NAMED + STATUS_REQUESTS:
        name, steps, rules = (named_status or status_requests())[k - NAMED]
        return Request(rid, "point_search", name, steps, rules)
    return case_request(rid, case_at(seed, k if k < NAMED else k - STATUS_REQUESTS))


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` point-search requests: the named cases, the status contracts, then random clouds.
    Deterministic in ``seed``; ids ``point_search/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    named = status_requests() if lo < NAMED + STATUS_REQUESTS and hi > NAMED else None
    return [request_at(seed, k, named) for k in range(lo, hi)]
