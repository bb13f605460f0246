"""The track family: ``track.key_values`` (Exact), ``track.values`` (Rounded) and the status
contracts of TryPrepareTrack and TryEvaluateTrack (``track.statuses``)."""

from __future__ import annotations

from ...family import Family, adapter_claims, imported_on_call
from .checks import check_key_values, check_values
from .contract import CONTRACTS
from .requests import LIMITS, case_request, corpus_cases, requests

answer = imported_on_call(f"{__name__}.answers", "answer")  # the fast path: loaded when a request is answered

__all__ = ["FAMILY", "LIMITS", "claims", "generate"]

generate = corpus_cases  # the corpus as case dicts (tests, explain)
claims = adapter_claims("track", case_request, answer)


FAMILY = Family(
    name="track",
    default_cases=500,
    checkers={"track.key_values": check_key_values, "track.values": check_values},
    contracts=CONTRACTS,
    oracle_precisions=(),
    requests=requests,
    answer=answer,
)

# Every status a failure of each op can have: spec-named and decided (tests/oracles/test_status_coverage.py).
SPEC_STATUSES = {
    "TryPrepareTrack": {
        "InvalidDomain": "spec 002 Tracks: 'equal times are InvalidDomain'",
        "InvalidArgument": "docs/decisions.md 'Tracks: keys, defaults and preparation' (fewer than two keys, "
                           "nonfinite keys) and 'WorkLimits fields and ranges'",
        "BudgetExceeded": "spec 002 'a zero work limit allows no work'; max_keys, max_prepared_bytes",
        "OutOfRange": "docs/decisions.md 'Tracks: keys, defaults and preparation' (scale beyond 2^1000)",
    },
    "TryEvaluateTrack": {
        "InvalidArgument": "spec 002 Boundary policies: 'Every other combination is InvalidArgument'",
        "InvalidDomain": "spec 002 Boundary policies: Reject outside the closed domain",
    },
}
LIMITS_AT_EQUALITY = ("max_keys", "max_prepared_bytes")
