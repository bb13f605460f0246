"""Point-search row's case-file contract: the row's fields (JSON Schema), the ledger's sentence,
and a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import numpy as np

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
               "of the declared model, else binary64; k scales the 8), distances non-decreasing; exact ties "
               "in increasing source index, also across the cut; any other inversion (a farther point ahead "
               "of or instead of a nearer one) within 2 b of the farther point; a rejected request "
               "(count outside [1, min(n, 32)], nonfinite or |q| > 2^60 query, rejected positions) claims "
               "InvalidArgument; model components: one per returned neighbour.",
        inputs=S.obj(required={"positions": S.array(S.vec(S.f32(), 3), min_items=1),
                               "query": S.vec(S.f32(finite=False), 3),
                               "count": S.integer()}),
        value=S.any_of(S.obj(required={"indices": S.array(S.integer(minimum=0)),
                                       "distances": S.array(S.f32(finite=False))}),
                       S.obj(required={"status": S.enum(["InvalidArgument"])})),
        model=S.MODEL, plant=_plant),
}
