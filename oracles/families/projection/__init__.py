"""The projection family: strict projection ``Distance``, ``LowerBound`` and ``Gap`` (Certified),
the ``ProjectPointApproximate`` result (Approximate), and the status contracts of TryProjectPoint
and ProjectPointApproximate (``projection.statuses``).

Modules, one role each: ``corpus.py`` (the cases), ``requests.py`` (cases as requests, with the
status the spec demands of each step), ``answers.py`` (our fast path's adapter), ``truth.py``
(the two oracles of the minimum distance), ``checks.py`` (the row checkers) and ``contract.py``
(each row's case-file fields and planted false claim)."""

from __future__ import annotations

from ...family import Family, adapter_claims, imported_on_call
from .checks import EVAL_K, Decoded, check_approximate, check_strict, decode, evaluation_bound
from .contract import CONTRACTS, plant_approximate, plant_strict
from .corpus import corpus_cases, make_case, path_view
from .requests import case_request, requests
from .truth import ARB_BUDGET, BUDGET, SPLITS, decide_lower_bound

# the fast path: loaded when a request is answered
answer = imported_on_call(f"{__name__}.answers", "answer")
make_claim = imported_on_call(f"{__name__}.answers", "make_claim")

__all__ = [
    "ARB_BUDGET",
    "BUDGET",
    "CONTRACTS",
    "EVAL_K",
    "FAMILY",
    "LIMITS_AT_EQUALITY",
    "SPEC_STATUSES",
    "SPLITS",
    "Decoded",
    "check_approximate",
    "check_strict",
    "claims",
    "decide_lower_bound",
    "decode",
    "evaluation_bound",
    "generate",
    "make_case",
    "make_claim",
    "path_view",
    "plant_approximate",
    "plant_strict",
]

generate = corpus_cases  # the corpus as case dicts (tests, explain, benchmarks)
claims = adapter_claims("projection", case_request, answer)


FAMILY = Family(
    name="projection",
    # 77 named and adversarial cases, 16 status requests, then the 423 random cases of the
    # corpus of 500 that came before the requests (docs/decisions.md "Projection: the statuses
    # requests demand").
    default_cases=516,
    checkers={"projection.strict": check_strict, "projection.approximate": check_approximate},
    contracts=CONTRACTS,
    oracle_precisions=BUDGET,
    requests=requests,
    answer=answer,
)

_ARGS = "docs/decisions.md 'Projection: iterations, scratch and the caller's result' (and a finite point)"
_CAPACITY = ("spec 002 Projection: 'Scratch must hold span count + 1 + MaxIterations entries; a smaller reservation "
             "is CapacityExceeded before any work'")
_FAR = "docs/decisions.md 'Projection: UnsupportedPrecision' (|point - origin| above 2^500)"

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryProjectPoint": {
        "BudgetExceeded": "spec 002 Projection: 'Strict projection leaves its result unchanged on BudgetExceeded' "
                          "(MaxIterations splits do not meet ProjectionGap)",
        "UnsupportedPrecision": "spec 002 Projection: '... or UnsupportedPrecision'; docs/decisions.md 'Projection: "
                                "UnsupportedPrecision' (the rounding slack at the point, |point - origin| above 2^500)",
        "CapacityExceeded": _CAPACITY,
        "InvalidArgument": _ARGS,
    },
    "ProjectPointApproximate": {
        "CapacityExceeded": _CAPACITY,
        "InvalidArgument": _ARGS,
        "UnsupportedPrecision": _FAR,
    },
}
LIMITS_AT_EQUALITY = ("max_iterations", "scratch capacity")
