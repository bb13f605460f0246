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
