"""Point-search row's case-file contract: the row's fields (JSON Schema), the ledger's sentence,
and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import math

import numpy as np

from reference.point_search import DISTANCE_ERROR_K, MAX_POINT_NEIGHBORS, MAX_POINT_SEARCH_COORDINATE

from ... import schema as S
from ...family import RowContract
from ...model import Claim, enc, number_as

__all__ = ["CONTRACTS"]


def _plant(c: Claim) -> Claim:
    if "status" in c.value:  # an answer where the spec demands a rejection
        value = {"indices": [0], "distances": [enc(0.0)]}
    else:
        # the nearest distance doubled and moved one unit further: far outside any bound
        dist = list(c.value["distances"])
        x = number_as(dist[0], "f32", finite=False)
        dist[0] = enc(float(np.float32(2.0 * x + 1.0)))
        value = {**c.value, "distances": dist}
    return Claim(c.row, c.guarantee, value, c.inputs, c.model)


CONTRACTS = {
    "point_search.nearest": RowContract(
        checks="against exact rational squared distances of every point (brute force): count distinct "
               "in-range indices; |distance_i - d_i| <= b_i = 2^-24 d_i + 2^-149 + 8 (u d_i + eta) (u, eta "
               "of the declared model, else binary64; k scales the 8), distances non-decreasing; duplicate "
               "positions (the spec's equal distances on any processor) and, under the decisions, exact ties in "
               "increasing source index, also across the cut; any other inversion (a farther point ahead "
               "of or instead of a nearer one) within 2 b of the farther point; a rejected request "
               "(count outside [1, min(n, 32)], nonfinite or |q| > 2^60 query, rejected positions) claims "
               "InvalidArgument; model components: one per returned neighbour.",
        inputs=S.obj(required={"positions": S.array(S.vec(S.f32(), 3), min_items=1, doc=(
                                   "Given: the cloud PointSearchTree::Build was given, float32 World positions in "
                                   "source order (value.indices name them).")),
                               "query": S.vec(S.f32(finite=False), 3, doc=(
                                   f"Given: FindNearest's query point, float32 (a nonfinite one, or one beyond "
                                   f"MAX_POINT_SEARCH_COORDINATE = 2^{int(math.log2(MAX_POINT_SEARCH_COORDINATE))}, "
                                   "must be rejected).")),
                               "count": S.integer(doc=(
                                   f"Given: FindNearest's count: 1 to min(n, MAX_POINT_NEIGHBORS = "
                                   f"{MAX_POINT_NEIGHBORS}); any other count must be rejected."))}),
        value=S.any_of(S.obj(required={"indices": S.array(S.integer(minimum=0), doc=(
                                           "The source indices of the count nearest points, nearest first; exact "
                                           "ties in increasing source index.")),
                                       "distances": S.array(S.f32(finite=False), doc=(
                                           "SQUARED Euclidean distances |p_i - q|^2, float32, in squared length "
                                           "units (not the distances themselves), one per index, non-decreasing."))},
                             doc="The neighbours found."),
                       S.obj(required={"status": S.enum(["InvalidArgument"], doc="The rejected query's status.")},
                             doc="A rejected request (count, query or positions)."),
                       doc="FindNearest's output arrays, or its status."),
        model=S.model("one per returned neighbour, in squared length units", DISTANCE_ERROR_K), plant=_plant),
}
