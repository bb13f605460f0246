"""The distance family: leaf and total length bounds, prefix bounds, the inversion residual
(Certified), the estimates (Estimated), and the status contracts of TryBuildDistanceMap,
TryBoundDistance and TryResolveDistance (``distance.statuses``).

Modules, one role each: ``corpus.py`` (the cases and the queries they ask), ``leaves.py`` (the
spec's build rule replayed exactly: how many leaves a map needs), ``requests.py`` (cases as
requests, with the status the spec demands of each step), ``answers.py`` (our fast path's
adapter), ``oracle.py`` (the two arc-length oracles), ``checks.py`` (the row checkers) and
``contract.py`` (each row's case-file fields and planted false claim)."""

from __future__ import annotations

from ...decide import DEFAULT_BUDGET
from ...family import Family, adapter_claims, imported_on_call
from .checks import (RESOLUTION, check_estimates, check_inversion_residual, check_length_bounds, check_prefix_bounds,
                     controls_of, effective_target, truth)
from .contract import CONTRACTS, plant_bounds, plant_estimate, plant_inversion
from .corpus import LIMITS, chain, corpus_cases, make_case, prepare, tolerance
from .oracle import BUDGET, CROSS_CHECK, REL_WIDTH, OracleDisagreement, arc_length, prefix_length
from .requests import case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "BUDGET",
    "CONTRACTS",
    "CROSS_CHECK",
    "FAMILY",
    "LIMITS",
    "LIMITS_AT_EQUALITY",
    "REL_WIDTH",
    "RESOLUTION",
    "SPEC_STATUSES",
    "OracleDisagreement",
    "arc_length",
    "chain",
    "check_estimates",
    "check_inversion_residual",
    "check_length_bounds",
    "check_prefix_bounds",
    "claims",
    "controls_of",
    "effective_target",
    "generate",
    "make_case",
    "plant_bounds",
    "plant_estimate",
    "plant_inversion",
    "prefix_length",
    "prepare",
    "tolerance",
    "truth",
]

generate = corpus_cases  # the corpus as case dicts (tests, explain)
claims = adapter_claims("distance", case_request, answer)


FAMILY = Family(
    name="distance",
    # 18 named cases, 30 status requests, then 180 random cases (182 of the corpus of 200 that came
    # before the requests, until two tie requests joined: docs/decisions.md "Distance: the
    # statuses requests demand").
    default_cases=228,
    checkers={
        "distance.length_bounds": check_length_bounds,
        "distance.prefix_bounds": check_prefix_bounds,
        "distance.inversion_residual": check_inversion_residual,
        "distance.estimates": check_estimates,
    },
    contracts=CONTRACTS,
    oracle_precisions=DEFAULT_BUDGET,
    requests=requests,
    answer=answer,
)

_RESOLVE = "docs/decisions.md 'Distance resolution'"
_DOMAIN = "docs/decisions.md 'Paths: the parameter domain and boundary policies'"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryBuildDistanceMap": {
        "BudgetExceeded": "spec 002 Distance maps: 'Exhausting a limit returns BudgetExceeded'; 'a zero work limit "
                          "allows no work'",
        "InvalidArgument": "docs/decisions.md 'WorkLimits fields and ranges'",
        "UnsupportedPrecision": "docs/decisions.md 'Distance maps: preparation, caches and ownership' (strict = false)",
    },
    "TryBoundDistance": {
        "MissingCache": "spec 002 Distance maps: 'Queries through an unbuilt map return MissingCache'",
        "StaleRevision": "spec 002 Distance maps: 'queries through a map of another revision return StaleRevision'",
        "InvalidDomain": "spec 002 Boundary policies: Reject outside the closed domain; " + _DOMAIN,
        "InvalidArgument": "spec 002 Boundary policies: 'Every other combination is InvalidArgument'; " + _DOMAIN,
    },
    "TryResolveDistance": {
        "MissingCache": "spec 002 Distance maps: 'Queries through an unbuilt map return MissingCache'",
        "StaleRevision": "spec 002 Distance maps: 'queries through a map of another revision return StaleRevision'",
        "InvalidDomain": "spec 002: 'The PathDistance domain is [0, TotalEstimate]'; Reject outside: " + _RESOLVE,
        "InvalidArgument": "policies, nonfinite targets, max_iterations outside [0, 2^20]: " + _RESOLVE,
        "BudgetExceeded": "a bisection that needs more than max_iterations steps: " + _RESOLVE,
    },
}
LIMITS_AT_EQUALITY = ("max_leaves", "max_subdivisions", "max_depth", "max_prepared_bytes")
