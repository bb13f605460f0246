"""The tessellation family: mesh position bounds (Certified), shared mesh positions (Exact), the
mesh normal-angle estimate (Estimated), and the status contracts of TryBuildSurfaceMesh
(``tessellation.statuses``).

Modules, one role each: ``corpus.py`` (the cases: surface networks with a mesh profile),
``requests.py`` (cases as requests, with the status the spec demands of each step),
``answers.py`` (our fast path's adapter, the caller's mesh filled in place),
``refinement.py`` (the spec's refinement rule replayed on exact cell terms, for the checker and
the requests), ``checks.py`` (the bound rows), ``checks_mesh.py`` (the shared-positions row)
and ``contract.py`` (each row's case-file fields and planted false claim)."""

from __future__ import annotations

from ...family import Family, adapter_claims, corpus_getattr, imported_on_call
from . import corpus as _corpus
from .checks import ACCEPTANCE_FACTOR, MAX_BOXES, check_normal_angle, check_position_bound
from .checks_mesh import check_shared_positions
from .contract import CONTRACTS
from .corpus import corpus_cases
from .refinement import CLEAR_FACTOR, replay_levels
from .requests import case_request, requests

# the fast path: loaded when a request is answered
answer = imported_on_call(f"{__name__}.answers", "answer")
build_case = imported_on_call(f"{__name__}.answers", "build_case")

__all__ = [
    "ACCEPTANCE_FACTOR",
    "CLEAR_FACTOR",
    "CONTRACTS",
    "FAMILY",
    "LIMITS_AT_EQUALITY",
    "MAX_BOXES",
    "SPEC_STATUSES",
    "build_case",
    "check_normal_angle",
    "check_position_bound",
    "check_shared_positions",
    "claims",
    "generate",
    "replay_levels",
]

generate = corpus_cases  # the corpus as case dicts (tests, benchmarks)
claims = adapter_claims("tessellation", case_request, answer)
__getattr__ = corpus_getattr(__name__, _corpus)  # the corpus generators by the names tests use


FAMILY = Family(
    name="tessellation",
    # 28 named cases, 41 status requests, then the 2 random grids of the corpus of 30 that came
    # before the requests (a test checks the sum).
    default_cases=71,
    checkers={"tessellation.position_bound": check_position_bound,
              "tessellation.shared_positions": check_shared_positions,
              "tessellation.normal_angle": check_normal_angle},
    contracts=CONTRACTS,
    oracle_precisions=(113,),
    requests=requests,
    answer=answer,
)

_PROFILE = "docs/decisions.md 'Surface meshes: the profile, limits and the order of checks'"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryBuildSurfaceMesh": {
        "UnsupportedPrecision": "spec 002 Surface meshes: 'A nonzero NormalAngleError is UnsupportedPrecision' "
                                "(Strict); 'PositionError must be at least the surface's position floor' ("
                                + _PROFILE + ")",
        "InvalidArgument": "spec 002 Surface meshes: 'IsCoarserMeshAccepted is InvalidArgument' (Strict); "
                           "field ranges: " + _PROFILE,
        "BudgetExceeded": "spec 002 Surface meshes: 'MaxCellTests, MaxVertices, MaxTriangles and MaxOutputBytes "
                          "always fail with BudgetExceeded'; a patch MaxLevel stops without IsCoarserMeshAccepted: "
                          + _PROFILE,
        "OutOfRange": "spec 002 Surface meshes: 'More than 2^32 vertices is OutOfRange'",
        "Degenerate": "spec 002 Surface meshes: 'SurfaceDegeneracyPolicy::Reject fails on a singular vertex normal or "
                      "a triangle with two equal positions' (the status: " + _PROFILE + ")",
    },
}
LIMITS_AT_EQUALITY = ("max_level", "max_cell_tests", "max_vertices", "max_triangles", "max_output_bytes")
