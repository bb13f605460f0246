"""The convex polygon family (spec 002 "Convex polygon partition"): ``convex_polygon.partition``
(Exact) and the status contract of ``TryPartitionConvexPolygons`` (``convex_polygon.statuses``).

Modules: :mod:`.corpus` (the meshes), :mod:`.requests` (meshes as requests, with the status the
spec demands of each step, and the status contracts), :mod:`.answers` (our fast path's adapter),
:mod:`.checks` (the row checker) and :mod:`.contract` (the row's case-file fields and planted
false claim).

Limits: none. The partition takes no ``WorkLimits`` and the spec names no limit of its own for
it; ``MAX_POLYGON_VERTICES = 7`` ("at most seven vertices") is a property of every output polygon,
which the row checks, not a limit of the input: a convex patch of more corners is split into
several polygons, never refused, so there is nothing to meet with equality or exceed by one.
"""

from __future__ import annotations

from ...family import Family, imported_on_call
from .checks import ROW, check_partition_claim
from .contract import CONTRACTS, plant_partition
from .corpus import CAVEAT_FAN, NAMED, case_of, corpus_cases, mesh_fan, mesh_grid, mesh_lattice_fan, mesh_shuffled
from .requests import STATUS_REQUESTS, case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "CAVEAT_FAN",
    "CONTRACTS",
    "FAMILY",
    "LIMITS_AT_EQUALITY",
    "ROW",
    "SPEC_STATUSES",
    "case_of",
    "check_partition_claim",
    "claims",
    "generate",
    "mesh_fan",
    "mesh_grid",
    "mesh_lattice_fan",
    "mesh_shuffled",
    "plant_partition",
]

RANDOM_CASES = 120 - NAMED  # the random meshes of the corpus before the status contracts came

generate = corpus_cases  # the corpus as case dicts (tests, explain, benchmarks)


def claims(case: dict) -> list:
    """The value claims our fast path makes on one corpus case (through the request adapter):
    one, the status and on success the whole partition; none for an invalid view."""
    return [c for s in answer(case_request("convex_polygon/case", case)).steps for c in s.claims]


FAMILY = Family(
    name="convex_polygon",
    default_cases=NAMED + STATUS_REQUESTS + RANDOM_CASES,  # the 120 meshes of the older corpus, and the contracts
    checkers={ROW: check_partition_claim},
    contracts=CONTRACTS,
    oracle_precisions=(),
    requests=requests,
    answer=answer,
)

_SPEC = "spec 002 Convex polygon partition"
_INPUTS = "docs/decisions.md 'Convex polygons: inputs and statuses'"
# Every status a failure of the op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
# The spec names the failures, not their statuses; our decision names InvalidArgument and OutOfRange.
SPEC_STATUSES = {
    "TryPartitionConvexPolygons": {
        "InvalidArgument": f"{_SPEC}: 'Invalid views or index counts ... and nonfinite positions fail without "
                           f"changing the output'; {_INPUTS} (positions not an (n, 3) float32 view, indices not "
                           "integers, an index count not a multiple of three, a nonfinite position, referenced or not)",
        "OutOfRange": f"{_SPEC}: 'out-of-range indices ... fail'; {_INPUTS}: 'OutOfRange is the status "
                      "vocabulary's word for an index outside its range'",
    },
}
LIMITS_AT_EQUALITY = ()  # no WorkLimits field and no limit of its own (MAX_POLYGON_VERTICES is a property)
