"""The surface family: shared-edge matching and corner identity (Exact); surface positions,
partials, normals and edge continuity values (Rounded); and the status contracts of
TryPrepareSurface, TryEvaluateSurface, TryEvaluateSurfaceNormal and TryMapEdgeParameter
(``surface.statuses``).

Modules, one role each: ``corpus.py`` (the networks, shared with the tessellation family),
``requests.py`` (cases as requests, with the status the spec demands of each step),
``answers.py`` (our fast path's adapter), ``checks.py`` (the record rows),
``checks_evaluation.py`` (the evaluation row) and ``contract.py`` (each row's case-file fields
and planted false claim)."""

from __future__ import annotations

from ...family import Family, adapter_claims, corpus_getattr, imported_on_call
from . import corpus as _corpus
from .checks import check_corners, check_shared_edges
from .checks_evaluation import BUDGET, check_evaluation
from .contract import CONTRACTS, NETWORK_SCHEMA
from .corpus import LIMITS, RULES, auto_joins, corpus_cases, tolerance
from .requests import case_request, requests

# the fast path: loaded when a request is answered
answer = imported_on_call(f"{__name__}.answers", "answer")
case_source = imported_on_call(f"{__name__}.answers", "case_source")

__all__ = [
    "BUDGET",
    "CONTRACTS",
    "FAMILY",
    "LIMITS",
    "LIMITS_AT_EQUALITY",
    "NETWORK_SCHEMA",
    "RULES",
    "SPEC_STATUSES",
    "auto_joins",
    "case_source",
    "check_corners",
    "check_evaluation",
    "check_shared_edges",
    "claims",
    "generate",
    "tolerance",
]

generate = corpus_cases  # the corpus as case dicts (tests, benchmarks)
claims = adapter_claims("surface", case_request, answer)
__getattr__ = corpus_getattr(__name__, _corpus)  # the corpus generators by the names tests use


FAMILY = Family(
    name="surface",
    # 21 named networks, 36 status requests, then the 19 random grids of the corpus of 40 that
    # came before the requests (a test checks the sum).
    default_cases=76,
    checkers={"surface.shared_edges": check_shared_edges, "surface.corners": check_corners,
              "surface.evaluation": check_evaluation},
    contracts=CONTRACTS,
    oracle_precisions=BUDGET,
    requests=requests,
    answer=answer,
)

_POINT = "docs/decisions.md 'Surfaces: edge parameters, evaluation and normals'"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryPrepareSurface": {
        "InvalidTopology": "spec 002 Surfaces: 'A mismatched curve, a partial join, a third incidence on a side, a "
                           "side joined to itself, an unknown patch index or a duplicate patch ID is InvalidTopology'",
        "UnsupportedPrecision": "spec 002 Surfaces: 'TryPrepareSurface narrows controls as TryPreparePath does'; "
                                "Precision: 'Otherwise preparation returns UnsupportedPrecision'",
        "InvalidArgument": "docs/decisions.md 'Surfaces: sources, limits and the order of checks' (ranges, ids, "
                           "controls, joins, revision, origin, no patches)",
        "BudgetExceeded": "spec 002 'a zero work limit allows no work'; docs/decisions.md 'Surfaces: sources, limits "
                          "and the order of checks' (max_spans, max_prepared_bytes)",
    },
    "TryEvaluateSurface": {
        "InvalidArgument": "a patch index outside the surface, a NaN parameter: " + _POINT,
        "InvalidDomain": "a parameter outside [0, 1]: " + _POINT,
    },
    "TryEvaluateSurfaceNormal": {
        "Degenerate": "spec 002 Surfaces: 'It returns Degenerate for zero or parallel partials'",
        "IllConditioned": "spec 002 Surfaces: 'and IllConditioned at or below the thresholds'",
        "InvalidArgument": "as TryEvaluateSurface: " + _POINT,
        "InvalidDomain": "as TryEvaluateSurface: " + _POINT,
    },
    "TryMapEdgeParameter": {
        "InvalidArgument": "an edge id the surface does not have, a NaN s: " + _POINT,
        "InvalidDomain": "s outside [0, 1]: " + _POINT,
    },
}
LIMITS_AT_EQUALITY = ("max_spans", "max_prepared_bytes")
