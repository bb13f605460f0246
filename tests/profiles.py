"""How many hypothesis examples a differential test runs under the active profile."""

import os


def examples(ci: int, thorough: int, dev: int | None = None) -> int:
    """``ci`` by default, ``thorough`` under HYPOTHESIS_PROFILE=thorough, ``dev`` (or ci // 4)
    under dev."""
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    if profile == "thorough":
        return thorough
    if profile == "dev":
        return dev if dev is not None else max(1, ci // 4)
    return ci
