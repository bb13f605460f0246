"""The triangle-surface family (spec 004): ``triangle.first_hit``, ``triangle.barycentric``,
``triangle.normal_facing`` (Rounded), ``triangle.ambiguity`` (Certified) and the status contracts
of ``TriangleSurface::new``, ``first_hit`` and ``clip_segment`` (``triangle.statuses``).

Modules: :mod:`.corpus` (the cases), :mod:`.requests` (cases as requests, with the status the
spec demands of each step, decided in :mod:`.demands`), :mod:`.answers` (our fast path's adapter),
:mod:`.analysis` (the exact analysis the checkers and the requests share), :mod:`.checks` (the row
checkers) and :mod:`.contract` (the rows' case-file fields and planted false claims)."""

from __future__ import annotations

from ...family import Family, imported_on_call
from .analysis import Analysis, FacetModel, analyse, facet_model, models_at
from .demands import query_expectation
from .checks import check_ambiguity, check_barycentric, check_first_hit, check_normal_facing
from .contract import CONTRACTS
from .corpus import (
    TriangleCase,
    case_inputs,
    case_stamp,
    cube_mesh,
    first_hit_inputs,
    generate,
    nudge,
    point_on_facet,
    segment_through,
)
from .requests import case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "CONTRACTS",
    "FAMILY",
    "LIMITS_AT_EQUALITY",
    "SPEC_STATUSES",
    "Analysis",
    "FacetModel",
    "TriangleCase",
    "analyse",
    "case_claims",
    "case_inputs",
    "case_stamp",
    "claims",
    "cube_mesh",
    "facet_model",
    "first_hit_inputs",
    "generate",
    "models_at",
    "nudge",
    "point_on_facet",
    "query_expectation",
    "segment_through",
]


def claims(case: TriangleCase) -> list:
    """The value claims our fast path makes on one corpus case (through the request adapter):
    none when the surface or the segment is rejected or the query cancelled."""
    return [c for s in answer(case_request("triangle/case", case)).steps for c in s.claims]


case_claims = claims  # the name the family's tests and ``oracles.explain`` use

FAMILY = Family(
    name="triangle",
    default_cases=4000,
    checkers={
        "triangle.first_hit": check_first_hit,
        "triangle.barycentric": check_barycentric,
        "triangle.normal_facing": check_normal_facing,
        "triangle.ambiguity": check_ambiguity,
    },
    contracts=CONTRACTS,
    oracle_precisions=(),
    requests=requests,
    answer=answer,
)

_NEW = "docs/decisions.md 'Triangle surfaces: statuses'"
_QUERY = "spec 004 Segment query: 'first_hit(start, end, cancel) scans each triangle for a nonzero finite segment'"
_FIRST_HIT = {
    "Ambiguous": "spec 004: 'One ambiguous candidate rejects the whole query'",
    "Cancelled": "spec 004: 'Cancellation polls per facet and returns no partial result'",
    "InvalidArgument": f"{_QUERY}: a nonfinite or zero-length segment ({_NEW})",
    "OutOfRange": f"an endpoint beyond 2^1000 ({_NEW})",
}
# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TriangleSurface::new": {
        "InvalidArgument": "spec 004: 'It checks finite vertices, index validity, nonempty geometry'; settings "
                           "and stamp ranges (docs/decisions.md 'Triangle surfaces: settings, capacity, ownership, "
                           "cancellation')",
        "CapacityExceeded": "spec 004: 'retained buffer capacity' (max_vertices, max_triangles)",
        "OutOfRange": f"a coordinate beyond 2^1000 ({_NEW})",
        "Degenerate": f"spec 004: 'numerically conditioned nonzero facet area': zero area ({_NEW})",
        "IllConditioned": "spec 004: 'The normalized cross-product magnitude must exceed the declared relative "
                          "tolerance'",
    },
    "first_hit": _FIRST_HIT,
    "clip_segment": dict(_FIRST_HIT),  # 'clip_segment passes every failure through' (docs/decisions.md)
}
LIMITS_AT_EQUALITY = ("max_vertices", "max_triangles", "MAX_COORDINATE")
