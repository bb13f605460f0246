"""The point-search family (spec 002 "Point neighborhoods"): ``point_search.nearest`` (Rounded)
and the status contracts of ``PointSearchTree::Build`` and ``FindNearest``
(``point_search.statuses``).

Modules: :mod:`.corpus` (the cases), :mod:`.requests` (cases as requests, with the status the
spec demands of each step, and the status contracts), :mod:`.answers` (our fast path's adapter),
:mod:`.checks` (the row checker) and :mod:`.contract` (the row's case-file fields and planted
false claim)."""

from __future__ import annotations

from ...family import Family, imported_on_call
from .checks import check_nearest, model_bound
from .contract import CONTRACTS
from .corpus import NAMED, corpus_cases
from .requests import RANDOM_CASES, STATUS_REQUESTS, case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "CONTRACTS",
    "FAMILY",
    "LIMITS_AT_EQUALITY",
    "SPEC_STATUSES",
    "check_nearest",
    "claims",
    "generate",
    "model_bound",
]

generate = corpus_cases  # the corpus as case dicts (tests, explain)


def claims(case: dict) -> list:
    """The value claims our fast path makes on one corpus case (through the request adapter):
    one per query, none when the build is rejected."""
    return [c for s in answer(case_request("point_search/case", case)).steps for c in s.claims]


FAMILY = Family(
    name="point_search",
    default_cases=NAMED + STATUS_REQUESTS + RANDOM_CASES,  # the 300 cases of the older corpus, and the contracts
    checkers={"point_search.nearest": check_nearest},
    contracts=CONTRACTS,
    oracle_precisions=(),
    requests=requests,
    answer=answer,
)

_SPEC = "spec 002 Point neighborhoods"
_LIMITS = "docs/decisions.md 'Point search: limits'"
# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
# The spec names the rejections, not their status; our decisions name InvalidArgument and CapacityExceeded.
SPEC_STATUSES = {
    "PointSearchTree::Build": {
        "InvalidArgument": f"{_SPEC}: 'rejecting nonfinite coordinates, magnitudes above MAX_POINT_SEARCH_COORDINATE, "
                           f"and invalid counts'; {_LIMITS}; docs/decisions.md 'Point search: inputs, build and "
                           "layout' (float32 values only)",
    },
    "FindNearest": {
        "InvalidArgument": f"{_SPEC}: 'returns 1 through MAX_POINT_NEIGHBORS results'; 'The requested count cannot "
                           f"exceed the input point count'; {_LIMITS} (a nonfinite or too large query)",
        "CapacityExceeded": f"{_LIMITS}: 'an output shorter than count is CapacityExceeded'",
    },
}
LIMITS_AT_EQUALITY = ("MAX_POINT_NEIGHBORS", "MAX_POINT_SEARCH_COORDINATE", "point count", "output capacity")
