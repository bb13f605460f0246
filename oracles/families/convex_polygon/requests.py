"""Convex polygon requests: the corpus as requests, each step with the status the spec demands.

A corpus case (:mod:`.corpus`) is one ``TryPartitionConvexPolygons`` call into a new partition.
Requests 0 to 42 are the named cases, then come the status contracts (:func:`status_requests`,
requests 43 to 74; ``--cases 75`` reaches them all): every status the spec and our decisions name
for TryPartitionConvexPolygons (invalid positions and indices views, index counts that are not a
multiple of three, indices outside ``[0, n)``, nonfinite positions referenced or not, and several
defects at once), the valid edges of those rules (the last index ``n - 1``, no positions and no
indices, the largest finite and subnormal float32 coordinates), and failed partitions into a
partition that holds a previous one, which must keep it. The rest are random grids and fans
(corpus cases 43, 44, ...: the same meshes the corpus held before the status contracts came).

The family uses no ``WorkLimits`` field and has no limit of its own: ``MAX_POLYGON_VERTICES = 7``
is a property of every output polygon (the spec: "at most seven vertices"), checked by the row,
not a limit an input can exceed (a convex patch of more corners is split, never refused).

Expected statuses come from spec 002 "Convex polygon partition" ("Invalid views or index counts,
out-of-range indices and nonfinite positions fail without changing the output") and
``docs/decisions.md`` "Convex polygons: inputs and statuses" (which statuses: InvalidArgument for
the views, the index count and nonfinite positions, OutOfRange for an index outside the
positions; every position checked, referenced or not; an empty index list succeeds), decided
here on the exact inputs (exact float32 membership of every coordinate), never by running the
fast path. Where a step has several defects every defect's status is accepted: the spec orders
no checks.

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryPartitionConvexPolygons``: ``positions`` ``[[x, y, z], ...]`` (the mesh-space float32
  view: every number a float32 value; a number that is not one, or a point that is not three
  numbers, is an invalid view) and ``indices`` ``[i, ...]`` (integers; triangle ``t`` is
  ``indices[3t:3t+3]``), into the caller's partition (one per request, empty when the request
  starts); output: the partition after the step, read from the partition object itself:
  ``{"polygons": [{"positions" (the corners, f32 hex), "normal", "first_triangle",
  "triangle_count"}, ...], "triangles", "degenerate_triangle_count", "unmergeable_edge_count"}``
  (``{"polygons": [], "triangles": [], "degenerate_triangle_count": 0,
  "unmergeable_edge_count": 0}`` while empty).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...model import NumberError, enc, number_as, parse_number
from ...model import is_integer as _is_int
from ...request import Expect, Request, Rule, Step, decided, failure, success
from .checks import ROW, STATUS_NAMES
from .corpus import NAMED, case_at, mesh_fan, mesh_grid, named_cases

__all__ = [
    "OP",
    "ROW",
    "STATUS_REQUESTS",
    "case_request",
    "expected_partition",
    "partition_inputs",
    "request_at",
    "requests",
    "status_requests",
]

OP = "TryPartitionConvexPolygons"

_SPEC = "spec 002 Convex polygon partition"
_INPUTS = "docs/decisions.md 'Convex polygons: inputs and statuses'"
_WHY_VIEW = (f"an invalid view ({_SPEC}: 'Invalid views ... fail without changing the output'; {_INPUTS}: "
             "positions an (n, 3) float32 view, indices a 1-D integer view, InvalidArgument)")
_WHY_NOT_F32 = (f"a coordinate that is not a float32 value: the positions are not a float32 view ({_SPEC}: "
                f"'Invalid views ... fail'; {_INPUTS}: 'float64 or any other dtype is InvalidArgument, so no "
                "silent narrowing happens')")
_WHY_COUNT = (f"an index count that is not a multiple of three ({_SPEC}: 'Invalid ... index counts ... fail'; "
              f"{_INPUTS}: InvalidArgument)")
_WHY_RANGE = (f"an index outside [0, position count) ({_SPEC}: 'out-of-range indices ... fail'; {_INPUTS}: "
              "'OutOfRange is the status vocabulary's word for an index outside its range')")
_WHY_NONFINITE = (f"a nonfinite position ({_SPEC}: 'nonfinite positions fail'; {_INPUTS}: every one of the n "
                  "positions finite, referenced or not: InvalidArgument)")
_WHY_OK = (f"float32 positions, all finite, an index count that is a multiple of three and every index in "
           f"[0, position count) ({_SPEC}: 'Invalid views or index counts, out-of-range indices and nonfinite "
           f"positions fail'; nothing else does; {_INPUTS}: 'An empty index list is a success with an empty "
           "partition')")
_KEEP = f"{_SPEC}: 'Invalid views or index counts, out-of-range indices and nonfinite positions fail without " \
        "changing the output'"


# --- encoding ----------------------------------------------------------------------------------


def _enc_number(x):
    return x if isinstance(x, str) else enc(float(x))


def partition_inputs(positions, indices) -> dict:
    """``TryPartitionConvexPolygons``' inputs: ``positions`` an (n, 3) array of float32 values, or
    a list of points whose numbers are floats or claim-number text (kept as written);
    ``indices`` integers (other values are kept as written: an invalid view)."""
    if isinstance(positions, np.ndarray):
        pos = enc(np.asarray(positions, dtype=np.float64).reshape(-1, 3))
    else:
        pos = [[_enc_number(x) for x in p] if isinstance(p, (list, tuple)) else _enc_number(p) for p in positions]
    idx = [int(i) if isinstance(i, (int, np.integer)) and not isinstance(i, bool) else i for i in indices]
    return {"positions": pos, "indices": idx}


# --- what the spec demands ---------------------------------------------------------------------



def _coordinate_defect(x) -> str | None:
    """Why a coordinate is refused (None for a finite float32 value)."""
    try:
        v = parse_number(x)
    except (NumberError, TypeError):
        return f"{x!r} is not a number: {_WHY_VIEW}"
    if not isinstance(v, Fraction):
        return _WHY_NONFINITE
    try:
        number_as(x, "f32")
    except NumberError:
        return _WHY_NOT_F32
    return None


def expected_partition(inp: dict) -> Expect:
    """The status ``TryPartitionConvexPolygons`` must end in on ``inp``: every status one of its
    defects calls for (InvalidArgument, OutOfRange), else success."""
    found, why = [], []

    def defect(status, reason):
        if status not in found:
            found.append(status)
        if reason not in why:
            why.append(reason)

    pos, idx = inp.get("positions"), inp.get("indices")
    if not isinstance(pos, list):
        defect("InvalidArgument", f"positions are not a list of points: {_WHY_VIEW}")
    else:
        for p in pos:
            if not isinstance(p, list) or len(p) != 3:
                defect("InvalidArgument", f"a point that is not three numbers: {_WHY_VIEW}")
                continue
            for x in p:
                w = _coordinate_defect(x)
                if w is not None:
                    defect("InvalidArgument", w)
    if not isinstance(idx, list) or not all(_is_int(i) for i in idx):
        defect("InvalidArgument", f"indices that are not integers: {_WHY_VIEW}")
    else:
        if len(idx) % 3:
            defect("InvalidArgument", _WHY_COUNT)
        # the position count is the number of points given, whatever their defects
        n = len(pos) if isinstance(pos, list) else None
        if n is not None and any(not 0 <= i < n for i in idx):
            defect("OutOfRange", _WHY_RANGE)
    if found:
        # Every defect is one the spec says fails ('Invalid views or index counts, out-of-range
        # indices and nonfinite positions fail'); it names no status: ours by decision.
        return decided(failure(*found, why="; ".join(why)), STATUS_NAMES)
    return success(_WHY_OK)


# --- requests ----------------------------------------------------------------------------------


def _steps(*inputs) -> tuple:
    """One partition step per inputs, each with its expectation (a step's status does not depend
    on what the partition held before it)."""
    out = []
    for inp in inputs:
        e = expected_partition(inp)
        out.append(Step(OP, inp, e, (ROW,) if e.kind == "success" else ()))
    return tuple(out)


def case_request(rid: str, case: dict) -> Request:
    """A corpus case (``{"name", "positions", "indices"}``) as a one-step request."""
    return Request(rid, "convex_polygon", case.get("name", ""),
                   _steps(partition_inputs(case["positions"], case["indices"])))


_F32_MAX = float(np.finfo(np.float32).max)
_NOT_F32 = 0.1  # a binary64 value that is no float32 value


def status_requests() -> list:
    """``(name, steps, rules)`` of the status contracts (see the module docstring)."""
    qp, qi = mesh_grid(1, 1)  # 4 positions, 2 triangles: one square
    q = partition_inputs(qp, qi)
    n = len(qp)
    out = []

    def single(name, positions, indices):
        out.append((name, _steps(partition_inputs(positions, indices)), ()))

    def with_coordinate(i, j, value):
        pts = [list(p) for p in qp.tolist()]
        pts[i][j] = value
        return pts

    # Invalid views: 'Invalid views ... fail'.
    single("positions of two coordinates (an invalid positions view)", [p[:2] for p in qp.tolist()], qi)
    single("a coordinate that is not a float32 value (0.1 in binary64)", with_coordinate(2, 0, _NOT_F32), qi)
    single("a fractional index (0.5: an invalid indices view)", qp, [0, 1, 0.5] + qi[3:])
    # Index counts: 'Invalid ... index counts ... fail'.
    single("index count 4 (not a multiple of three)", qp, qi[:4])
    single("a single index", qp, qi[:1])
    single("index count 7 (two triangles and one index)", qp, qi + [0])
    # Indices: 'out-of-range indices ... fail'.
    single("a negative index (-1)", qp, qi[:5] + [-1])
    single("an index equal to the position count", qp, [0, 1, n] + qi[3:])
    single("an index far out of range (2^31)", qp, qi[:5] + [2**31])
    single("the last position index n - 1 (in range)", qp, qi)
    single("no positions, one triangle", np.zeros((0, 3)), [0, 1, 2])
    # Nonfinite positions: 'nonfinite positions fail' (docs/decisions.md: referenced or not).
    single("a NaN position, referenced", with_coordinate(3, 2, "nan"), qi)
    single("a negative infinite position, referenced", with_coordinate(0, 1, "-inf"), qi)
    single("a NaN position, unreferenced", [list(p) for p in qp.tolist()] + [[0.0, "nan", 0.0]], qi)
    single("no indices, an infinite position", with_coordinate(1, 0, "inf"), [])
    # Valid edges of the rules above: must succeed.
    single("no positions and no indices (an empty partition)", np.zeros((0, 3)), [])
    single("no indices (an empty partition of four positions)", qp, [])
    big = [[-_F32_MAX, -_F32_MAX, 0.0], [_F32_MAX, -_F32_MAX, 0.0], [0.0, _F32_MAX, _F32_MAX]]
    single("the largest finite float32 coordinates (+-0x1.fffffep+127)", big, [0, 1, 2])
    tiny = [[0.0, 0.0, 0.0], [2.0**-147, 0.0, 0.0], [0.0, 2.0**-147, 0.0], [2.0**-147, 2.0**-147, -0.0]]
    single("subnormal coordinates (a square of side 2^-147)", tiny, qi)
    # Several defects: every defect's status is accepted (the spec orders no checks).
    single("several defects: index count 7 with an index out of range", qp, qi + [99])
    single("several defects: an out-of-range index and a NaN position", with_coordinate(0, 0, "nan"),
           qi[:5] + [n])
    single("several defects: a negative index and a coordinate that is not a float32 value",
           with_coordinate(1, 1, _NOT_F32), [-1] + qi[1:])
    # Failed partitions into a partition that holds one: 'fail without changing the output'.
    lp, li = mesh_grid(2, 2)
    a = partition_inputs(lp, li[:18] + [0, 0, 1])  # an L shape (two polygons) and a coincident triangle
    fp, fi = mesh_fan(6)
    fp = fp.astype(np.float32)  # the rim rounded to float32 values
    b = partition_inputs(fp, fi)  # a hexagon fan (one polygon)
    bad_l = [list(p) for p in lp.tolist()]
    bad_l[4][2] = "nan"
    bads = (("a NaN position", partition_inputs(bad_l, li)),
            ("an out-of-range index", partition_inputs(lp, li[:-1] + [len(lp)])),
            ("an index count not a multiple of three", partition_inputs(lp, li[:-2])),
            ("a coordinate that is not a float32 value", partition_inputs(
                [p if k != 7 else [p[0], _NOT_F32, p[2]] for k, p in enumerate(lp.tolist())], li)),
            ("positions of two coordinates", partition_inputs([p[:2] for p in lp.tolist()], li)),
            ("a fractional index", partition_inputs(lp, [0.5] + li[1:])),
            ("several defects", partition_inputs(bad_l, li + [-1])))
    for what, bad in bads:
        out.append((f"failed rebuild ({what}) keeps the previous partition", _steps(a, bad),
                    (Rule("same_output", 0, 1, _KEEP),)))
    bad_fan = partition_inputs(fp, fi[:-1] + [len(fp)])
    out.append(("failed rebuild after a successful rebuild keeps the second partition (L shape, hexagon fan, "
                "then an out-of-range index)", _steps(a, b, bad_fan), (Rule("same_output", 1, 2, _KEEP),)))
    out.append(("failed rebuild of a new partition keeps it empty (no indices, then a NaN position)",
                _steps(partition_inputs(lp, []), partition_inputs(bad_l, li)), (Rule("same_output", 0, 1, _KEEP),)))
    steps = _steps(a, q, partition_inputs(qp, qi[:4]), partition_inputs(with_coordinate(3, 2, "nan"), qi))
    out.append(("failed rebuilds in a row keep the last successful partition (L shape, square, then an index "
                "count of 4 and a NaN position)", steps,
                (Rule("same_output", 1, 2, _KEEP), Rule("same_output", 1, 3, _KEEP))))
    return out


STATUS_REQUESTS = 32  # len(status_requests()), stated in the module docstring


def request_at(seed: int, k: int, named: list | None = None, named_status: list | None = None) -> Request:
    """Request ``k``: corpus case ``k`` for ``k < NAMED``, then the status contracts, then corpus
    case ``k - STATUS_REQUESTS`` (a random grid or fan)."""
    rid = f"convex_polygon/{k:05d}"
    if NAMED <= k < NAMED + STATUS_REQUESTS:
        name, steps, rules = (named_status or status_requests())[k - NAMED]
        return Request(rid, "convex_polygon", name, steps, rules)
    return case_request(rid, case_at(seed, k if k < NAMED else k - STATUS_REQUESTS, named))


def requests(seed: int, n: int) -> list[Request]:
    """``n`` convex polygon requests: the named cases, the status contracts, then random grids
    and fans. Deterministic in ``seed``; ids ``convex_polygon/NNNNN``."""
    named = named_cases() if n else None
    status = status_requests() if n > NAMED else None
    return [request_at(seed, k, named, status) for k in range(n)]

