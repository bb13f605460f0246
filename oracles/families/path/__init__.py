"""The path family: stored endpoints, control boxes, the position floor (Exact); interior
positions, derivatives, tangents, conversions and continuity values (Rounded); and the status
contracts of TryPreparePath, TryEvaluatePath, TryEvaluatePathTangent, TryConvertHermite and
TryConvertCentripetalCatmullRom (``path.statuses``).

Modules, one role each: ``corpus.py`` (the cases), ``requests.py`` (cases as requests, with the
status the spec demands of each step), ``answers.py`` (our fast path's adapter), ``checks.py``,
``checks_conversions.py``, ``checks_continuity.py`` (the row checkers) and ``contract.py`` (each
row's case-file fields and planted false claim)."""

from __future__ import annotations

from ...decide import DEFAULT_BUDGET
from ...family import Family, adapter_claims, imported_on_call
from .checks import BUDGET, check_control_boxes, check_derivatives, check_interior_positions, check_position_floor
from .checks import check_derivatives_batch, check_interior_positions_batch
from .checks import check_stored_endpoints, check_tangents, exact_request_point
from .checks_continuity import check_continuity_values
from .checks_conversions import check_conversions
from .contract import CONTRACTS
from .corpus import LIMITS, corpus_cases, tolerance
from .requests import case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "BUDGET",
    "FAMILY",
    "LIMITS",
    "LIMITS_AT_EQUALITY",
    "SPEC_STATUSES",
    "claims",
    "exact_request_point",
    "generate",
    "tolerance",
]

generate = corpus_cases  # the corpus as case dicts (tests, explain)
claims = adapter_claims("path", case_request, answer)


FAMILY = Family(
    name="path",
    # 27 named cases, 61 status requests, then the 473 random cases of the corpus of 500 that
    # came before the requests (docs/decisions.md "Paths: the statuses requests demand").
    default_cases=561,
    checkers={
        "path.stored_endpoints": check_stored_endpoints,
        "path.control_boxes": check_control_boxes,
        "path.position_floor": check_position_floor,
        "path.interior_positions": check_interior_positions,
        "path.derivatives": check_derivatives,
        "path.tangents": check_tangents,
        "path.conversions": check_conversions,
        "path.continuity_values": check_continuity_values,
    },
    batch_checkers={
        "path.interior_positions": check_interior_positions_batch,
        "path.derivatives": check_derivatives_batch,
    },
    contracts=CONTRACTS,
    oracle_precisions=DEFAULT_BUDGET,
    requests=requests,
    answer=answer,
)

_ARGS = "docs/decisions.md 'Paths: conversion and tangent arguments'"
_DOMAIN = "docs/decisions.md 'Paths: the parameter domain and boundary policies'"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryPreparePath": {
        "UnsupportedPrecision": "spec 002 Precision: 'Otherwise preparation returns UnsupportedPrecision'; "
                                "docs/decisions.md 'Paths: where the chunk origin lives' (beyond the float32 range)",
        "InvalidTopology": "spec 002 Connectivity: 'must meet within ContinuityPosition (InvalidTopology otherwise)'",
        "InvalidArgument": "docs/decisions.md 'ADR 0024 ranges of ToleranceProfile', 'WorkLimits fields and ranges', "
                           "'Paths: where the chunk origin lives' (empty or nonfinite sources, widths, revision, "
                           "origin)",
        "BudgetExceeded": "spec 002 'a zero work limit allows no work'; max_spans, max_prepared_bytes",
    },
    "TryEvaluatePath": {
        "InvalidArgument": "spec 002 Boundary policies: 'Every other combination is InvalidArgument'; " + _DOMAIN,
        "InvalidDomain": "spec 002 Boundary policies: Reject outside the closed domain; " + _DOMAIN,
    },
    "TryEvaluatePathTangent": {
        "Degenerate": "spec 002 Paths: 'returns Degenerate where |dP/du| is at or below a caller-supplied speed'",
        "InvalidArgument": "as TryEvaluatePath; a caller's speed that is not finite and nonnegative: " + _ARGS,
        "InvalidDomain": "as TryEvaluatePath: " + _DOMAIN,
    },
    "TryConvertHermite": {
        "CapacityExceeded": "spec 002 Paths: 'Both conversions check output capacity before writing'",
        "InvalidArgument": "fewer than two waypoints, nonfinite waypoints, widths not positive: " + _ARGS,
    },
    "TryConvertCentripetalCatmullRom": {
        "InvalidDomain": "spec 002 Paths: 'rejects consecutive waypoints within coincidenceDistance as InvalidDomain'",
        "CapacityExceeded": "spec 002 Paths: 'Both conversions check output capacity before writing'",
        "InvalidArgument": "docs/decisions.md 'Centripetal Catmull-Rom sources' (waypoint counts); nonfinite "
                           "waypoints or coincidence distance: " + _ARGS,
    },
}
LIMITS_AT_EQUALITY = ("max_spans", "max_prepared_bytes", "conversion capacity")
