"""Shared pytest configuration: hypothesis profiles.

``ci`` is the default and bounded; ``dev`` is quicker still; ``thorough`` runs the long
acceptance sweeps (``HYPOTHESIS_PROFILE=thorough``). Tests that must reach a stated case count
in ``thorough`` read it from ``settings().max_examples`` via ``examples(n_ci, n_thorough)``.
"""

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
               derandomize=False, print_blob=True)

settings.register_profile("ci", max_examples=60, **_COMMON)
settings.register_profile("dev", max_examples=15, **_COMMON)
settings.register_profile("thorough", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_report_header(config):
    return f"hypothesis profile: {settings._current_profile}"


import pytest  # noqa: E402


@pytest.fixture
def pending_row(monkeypatch):
    """Every ledger row has a checker now; this makes ``sweep.rings`` a row without one (no
    checker, no contract, so any inputs are schema-valid) for the tests of that behaviour."""
    import oracles.batch as B
    import oracles.families as C
    import oracles.ledger as L
    import oracles.schema as S

    rid = "sweep.rings"
    checkers, contracts = C._checkers(), C._contracts()
    no_checker = lambda r: None if r == rid else checkers.get(r)
    no_contract = lambda r: None if r == rid else contracts.get(r)
    for mod in (C, L, B):
        monkeypatch.setattr(mod, "checker_for", no_checker)
        monkeypatch.setattr(mod, "contract_for", no_contract)
    monkeypatch.setattr(C, "_contracts", lambda: {k: v for k, v in contracts.items() if k != rid})
    caches = (S.case_file_schema, S._validators, S._row_predicate)  # each holds the row's contract
    for c in caches:
        c.cache_clear()
    yield rid
    for c in caches:
        c.cache_clear()
