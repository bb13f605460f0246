"""The sweep family: ring frames and vertices (Rounded), the error estimates with the
self-intersection risk (Estimated), and the status contracts of TryPlanSweepMesh and
TryEmitSweepMesh (``sweep.statuses``).

Modules, one role each: ``corpus.py`` (the cases), ``demands.py`` (what the spec demands of a plan,
decided with the oracle), ``requests.py`` (cases as requests, with the status the spec demands of
each step), ``answers.py`` (our fast path's adapter), ``checks.py`` and ``checks_estimates.py``
(the row checkers), ``contract.py`` (each row's case-file fields and planted false claim) and
``export.py`` (meshes written to files)."""

from __future__ import annotations

from ...family import Family, adapter_claims, imported_on_call
from .checks import check_rings
from .checks_estimates import ACCEPTANCE_FACTOR, RISK_BAND, check_error_estimates
from .contract import CONTRACTS
from .corpus import NAMED, build_sweep, corpus_cases
from .export import export_sweep_mesh
from .requests import STATUS_REQUESTS, case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "ACCEPTANCE_FACTOR",
    "CONTRACTS",
    "FAMILY",
    "LIMITS_AT_EQUALITY",
    "RISK_BAND",
    "SPEC_STATUSES",
    "build_sweep",
    "check_error_estimates",
    "check_rings",
    "claims",
    "export_sweep_mesh",
    "generate",
]

generate = corpus_cases  # the corpus as case dicts (tests, explain, benchmarks)
claims = adapter_claims("sweep", case_request, answer)


FAMILY = Family(
    name="sweep",
    # the named cases, then the status requests
    default_cases=NAMED + STATUS_REQUESTS,
    checkers={"sweep.rings": check_rings, "sweep.error_estimates": check_error_estimates},
    contracts=CONTRACTS,
    oracle_precisions=(113,),
    requests=requests,
    answer=answer,
)

_REQ = "docs/decisions.md 'Sweeps: the request, statuses and order of checks'"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryPlanSweepMesh": {
        "InvalidArgument": f"{_REQ} (the request's ranges, names, profile order, a ribbon with caps, a closed "
                           "path's non-periodic profile)",
        "InvalidDomain": "spec 002 Sweeps: 'A zero or negative scale is rejected, not normalized away'; " + _REQ,
        "MissingCache": f"{_REQ} (a map or frames never built)",
        "StaleRevision": f"{_REQ} (a map or frames of another revision)",
        "DegenerateFrame": "spec 002 Sweeps: 'It needs frames with one run over the whole path and G1 joints'; "
                           "'A closed path needs periodic frames (DistributeTwist)'",
        "BudgetExceeded": f"{_REQ} (max_section_segments, max_depth, max_subdivisions, max_samples rings, "
                          "max_prepared_bytes); spec 002 'a zero work limit allows no work'",
        "CapacityExceeded": f"{_REQ} (counts above max_vertex_count or max_index_count)",
    },
    "TryEmitSweepMesh": {
        "StaleRevision": "spec 002 Sweeps: 'TryEmitSweepMesh checks the pinned path revision (StaleRevision)'",
        "CapacityExceeded": "spec 002 Sweeps: 'and both capacities (CapacityExceeded) before writing'",
    },
}
LIMITS_AT_EQUALITY = ("max_section_segments", "max_vertex_count", "max_index_count", "max_depth", "max_subdivisions",
                      "max_samples", "max_prepared_bytes", "emission capacity")
