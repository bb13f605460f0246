"""Our fast path answering convex polygon requests: the adapter an outside implementation's
answers stand in for (``oracles.request``: one outcome per step, claims on success).

The caller holds one ``ConvexPolygonPartition`` per request, as a caller's variable would, and
every ``TryPartitionConvexPolygons`` fills *that* object in place (the spec: invalid inputs "fail
without changing the output"); a step's output is read from the partition after the step, so a
call that clears the partition, or commits part of a rejected input, is seen by the request's
``same_output`` rules.

The request's numbers become the caller's views without narrowing: positions whose numbers are
all float32 values (nonfinite ones included) become an ``(n, 3)`` float32 array; any other
number leaves them float64 (and a point that is not three numbers leaves them of another
shape), which the fast path must refuse as an invalid view. Indices that are all integers
become an int64 array, anything else a float or object array.

Claims: each step whose inputs fit the row's fields (points of three float32 values, integer
indices) makes one ``convex_polygon.partition`` claim: the status and, on success, the whole
partition read from the partition object (the same claim the family's older ``claims(case)``
made); a step with an invalid view makes none (the status row judges it).
"""

from __future__ import annotations

import numpy as np

from reference.convex_polygon import ConvexPolygonPartition, try_partition_convex_polygons
from reference.status import GuaranteeClass as G

from ...model import Claim, NumberError, enc, number_as, number_or_text
from ...request import Answer, Request, StepAnswer
from .requests import OP, ROW

__all__ = ["answer", "partition_state"]


_number = number_or_text  # request numbers to float64; other text for the fast path to refuse


def _is_f32(x) -> bool:
    try:
        number_as(x, "f32", finite=False)
    except (NumberError, TypeError, ValueError):
        return False
    return True


def _positions(raw) -> np.ndarray:
    if isinstance(raw, list) and not raw:
        return np.zeros((0, 3), np.float32)  # no positions: an empty (0, 3) view
    if not isinstance(raw, list) or not all(isinstance(p, list) for p in raw) or len({len(p) for p in raw}) != 1:
        return np.asarray(raw if isinstance(raw, list) else [raw], dtype=object)  # not an (n, k) array
    arr = np.asarray([[_number(x) for x in p] for p in raw])
    if all(_is_f32(x) for p in raw for x in p):
        return arr.astype(np.float32)  # exact: every value is a float32 value
    return arr


def _indices(raw) -> np.ndarray:
    if isinstance(raw, list) and not raw:
        return np.zeros(0, np.int64)
    if isinstance(raw, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in raw):
        # an index beyond int64 is out of range all the same: clamping keeps it so
        return np.asarray([min(max(i, -(2**63)), 2**63 - 1) for i in raw], np.int64)
    try:  # anything else as written, in an array that is no integer view
        return np.asarray([_number(i) for i in raw], dtype=np.float64)
    except (TypeError, ValueError):
        return np.asarray(raw, dtype=object)


def _claimable(inp: dict) -> bool:
    """True when the inputs fit the row's fields: points of three float32 values (nonfinite
    allowed) and integer indices."""
    pos, idx = inp.get("positions"), inp.get("indices")
    return (isinstance(pos, list) and all(isinstance(p, list) and len(p) == 3 and all(map(_is_f32, p)) for p in pos)
            and isinstance(idx, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in idx))


def partition_state(partition: ConvexPolygonPartition) -> dict:
    """The observable state of the caller's partition, read from the object itself."""
    polys = [{"positions": enc(np.asarray(p.vertices, dtype=np.float64)),
              "normal": enc(np.asarray(p.normal_mesh, dtype=np.float64)),
              "first_triangle": p.first_triangle, "triangle_count": p.triangle_count}
             for p in partition.polygons]
    return {"polygons": polys, "triangles": [int(t) for t in partition.triangles],
            "degenerate_triangle_count": partition.degenerate_triangle_count,
            "unmergeable_edge_count": partition.unmergeable_edge_count}


def answer(req: Request) -> Answer:
    """Answer a convex polygon request step by step with ``reference.convex_polygon``."""
    part = ConvexPolygonPartition()  # the caller's partition, filled in place by every step
    steps = []
    for st in req.steps:
        if st.op != OP:
            raise ValueError(f"unknown convex_polygon op {st.op!r}")
        inp = st.inputs
        out = try_partition_convex_polygons(_positions(inp["positions"]), _indices(inp["indices"]), part)
        state = partition_state(part)
        claims = ()
        if _claimable(inp):
            value = {"status": "Success", **state} if out.ok else {"status": out.status.value}
            claims = (Claim(ROW, G.Exact, value, {"positions": inp["positions"], "indices": inp["indices"]}),)
        steps.append(StepAnswer(out.status.value, claims, state))
    return Answer(req.id, tuple(steps))
