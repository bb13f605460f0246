"""Our fast path answering point-search requests: the adapter an outside implementation's answers
stand in for (``oracles.request``: one outcome per step, claims on success).

The caller holds one ``PointSearchTree`` per request, as a caller's variable would, and every
``PointSearchTree::Build`` fills *that* object in place (the spec: "Failure preserves the
previous tree"); a build's output is read from the tree after the step (its point count, stored
positions, packed nodes and the answer of a fixed probe query), so a build that clears the tree
or commits part of a rejected input is seen by the request's ``same_output`` rules. The caller
also owns one pair of output arrays for the whole request; ``FindNearest`` writes into their
first ``capacity`` entries, and its output is both arrays in full after the call ("Query failure
preserves outputs").

Claims: each ``FindNearest`` on a built tree that ends in Success or InvalidArgument makes one
``point_search.nearest`` claim (the neighbours, or the rejection), about the positions of the
last build that succeeded and the query as the request wrote it; a query whose numbers are not
float32 values, or a CapacityExceeded (the row's values have no place for it), makes none.
Builds make no value claims (the status row judges them).
"""

from __future__ import annotations

import numpy as np

from reference.point_search import MAX_POINT_NEIGHBORS, PointSearchTree
from reference.status import GuaranteeClass as G

from ...model import Claim, NumberError, enc, number_as, number_or_text
from ...request import Answer, Request, StepAnswer
from .requests import BUILD, FIND, NEAREST

__all__ = ["answer", "tree_state"]

_PROBE = np.zeros(3)


_number = number_or_text  # request numbers to float64; other text for the fast path to refuse


def _points(raw) -> np.ndarray:
    if isinstance(raw, list) and not raw:
        return np.zeros((0, 3))  # no points: the count, not the shape, is what is wrong
    return np.asarray([[_number(x) for x in p] if isinstance(p, list) else _number(p) for p in raw])


def _result(oi, od, k: int) -> dict:
    return {"indices": [int(x) for x in oi[:k]], "distances": enc(od[:k])}


def tree_state(tree: PointSearchTree) -> dict:
    """The observable state of the caller's tree, read from the object itself."""
    n = tree.point_count
    if n == 0:
        return {"point_count": 0}
    k = min(n, MAX_POINT_NEIGHBORS)
    oi, od = np.full(k, -1, np.int64), np.full(k, np.nan, np.float32)
    r = tree.find_nearest(_PROBE, k, oi, od)
    nodes = [[enc(nd["lo"]), enc(nd["hi"]), int(nd["first"]), int(nd["count"]), int(nd["left"]), int(nd["right"])]
             for nd in tree.get_nodes()]
    return {"point_count": n, "positions": enc(tree.positions), "nodes": nodes,
            "probe": _result(oi, od, k) if r.ok else {"status": r.status.value}}


def _float32_text(q) -> bool:
    """True when the request's query is three float32 values (nonfinite words included): a
    claim's query must be."""
    if not isinstance(q, list) or len(q) != 3:
        return False
    try:
        for x in q:
            number_as(x, "f32", finite=False)
    except (NumberError, TypeError, ValueError):
        return False
    return True


def _capacity(req: Request) -> int:
    caps = [st.inputs.get("capacity", 0) for st in req.steps if st.op == FIND]
    return max([MAX_POINT_NEIGHBORS] + [c for c in caps if isinstance(c, int) and not isinstance(c, bool)])


def answer(req: Request) -> Answer:
    """Answer a point-search request step by step with ``reference.point_search``."""
    tree = PointSearchTree()
    held = None  # the encoded positions of the last build that succeeded
    size = _capacity(req)
    oi, od = np.full(size, -1, np.int64), np.full(size, np.nan, np.float32)  # the caller's outputs
    steps = []
    for st in req.steps:
        inp = st.inputs
        if st.op == BUILD:
            out = tree.build(_points(inp["positions"]))
            if out.ok:
                held = inp["positions"]
            steps.append(StepAnswer(out.status.value, (), tree_state(tree)))
        elif st.op == FIND:
            k, cap = inp["count"], inp["capacity"]
            q = np.asarray([_number(x) for x in inp["query"]])
            r = tree.find_nearest(q, k, oi[:cap], od[:cap])
            status = r.status.value
            claims = ()
            if held is not None and status in ("Success", "InvalidArgument") and _float32_text(inp["query"]) \
                    and isinstance(k, int) and not isinstance(k, bool):
                value = _result(oi, od, k) if r.ok else {"status": status}
                claims = (Claim(NEAREST, G.Rounded, value, {"positions": held, "query": inp["query"], "count": k}),)
            steps.append(StepAnswer(status, claims, _result(oi, od, size)))
        else:
            raise ValueError(f"unknown point_search op {st.op!r}")
    return Answer(req.id, tuple(steps))
