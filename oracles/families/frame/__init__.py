"""The frame family: the regularity decision (Certified), frame vectors and positions (Rounded),
the angular error estimate with the residual twist (Estimated), and the status contracts of
TryBuildFrames and TryEvaluateFrame (``frame.statuses``).

Modules, one role each: ``corpus.py`` (the cases), ``demands.py`` (what the spec demands of a
request, decided with the oracle), ``requests.py`` (cases as requests, with the status the spec
demands of each step), ``answers.py`` (our fast path's adapter), ``checks.py`` and
``checks_angular.py`` (the row checkers) and ``contract.py`` (each row's case-file fields and
planted false claim)."""

from __future__ import annotations

from ...family import Family, adapter_claims, imported_on_call
from .checks import IVP, check_regularity, check_vectors
from .checks_angular import ACCEPTANCE_FACTOR, check_angular_error
from .contract import CONTRACTS
from .corpus import FRAME_LIMITS, LIMITS, NAMED, build, corpus_cases, tolerance
from .requests import STATUS_REQUESTS, case_request, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = [
    "ACCEPTANCE_FACTOR",
    "CONTRACTS",
    "FAMILY",
    "FRAME_LIMITS",
    "LIMITS",
    "LIMITS_AT_EQUALITY",
    "SPEC_STATUSES",
    "build",
    "claims",
    "generate",
    "tolerance",
]

generate = corpus_cases  # the corpus as case dicts (tests, explain, benchmarks)
claims = adapter_claims("frame", case_request, answer)


FAMILY = Family(
    name="frame",
    # the named cases, the status requests, then one random chain
    default_cases=NAMED + STATUS_REQUESTS + 1,
    checkers={"frame.regularity": check_regularity, "frame.vectors": check_vectors,
              "frame.angular_error_estimate": check_angular_error},
    contracts=CONTRACTS,
    oracle_precisions=(IVP,),
    requests=requests,
    answer=answer,
)

_BAD = "docs/decisions.md 'Frames: bad input'"
_EVAL = "docs/decisions.md 'Frames: how the twist is interpolated, and evaluation'"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryBuildFrames": {
        "DegenerateFrame": "spec 002 policy table: singularity Reject 'DegenerateFrame with the offending parameter "
                           "range', corner Reject, RotateMinimally 'an exact reversal fails'; 'RejectDegenerateSeed "
                           "fails with DegenerateFrame'; docs/decisions.md 'Frames: seeds, joints and closed loops' "
                           "(FallbackAxis degenerate too)",
        "UnsupportedPrecision": "spec 002: 'a Strict frame preparation returns UnsupportedPrecision'",
        "InvalidArgument": f"{_BAD} (limits, policies, seed and fallback axes, winding turns, strict)",
        "MissingCache": f"{_BAD}: an unbuilt distance map",
        "StaleRevision": f"{_BAD}: a map of another revision",
        "BudgetExceeded": "spec 002 'a zero work limit allows no work'; docs/decisions.md 'Frames: the share-of-path "
                          "rule, MIN_DEPTH and the limits' (max_depth, max_subdivisions, max_samples, "
                          "max_prepared_bytes)",
    },
    "TryEvaluateFrame": {
        "Degenerate": "spec 002: 'TryEvaluateFrame returns Degenerate inside it and never reuses a frame across it'",
        "InvalidArgument": f"{_EVAL} (a nonfinite u or roll)",
        "InvalidDomain": f"{_EVAL} (outside the domain under Reject)",
        "MissingCache": f"{_EVAL} (frames never built)",
        "StaleRevision": f"{_EVAL} (frames of another revision)",
    },
}
LIMITS_AT_EQUALITY = ("max_depth", "max_subdivisions", "max_samples", "max_prepared_bytes")
