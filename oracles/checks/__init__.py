"""Checker families, discovered by module: every module here that defines ``FAMILY`` joins the
ledger. One checker per guarantee row; see ``oracles.family.Family``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from ..family import Family

__all__ = ["families", "checker_for", "contract_for"]


@lru_cache(maxsize=None)
def families() -> tuple[Family, ...]:
    """All families, sorted by name."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fam = getattr(module, "FAMILY", None)
        if isinstance(fam, Family):
            found.append(fam)
    names = [f.name for f in found]
    if len(set(names)) != len(names):
        raise RuntimeError(f"duplicate family names: {names}")
    return tuple(sorted(found, key=lambda f: f.name))


@lru_cache(maxsize=None)
def _checkers() -> dict:
    table = {}
    for fam in families():
        for rid, fn in fam.checkers.items():
            if rid in table:
                raise RuntimeError(f"row {rid} has two checkers")
            table[rid] = fn
    return table


def checker_for(row_id: str):
    """The checker of a row, or None if no family evidences it yet."""
    return _checkers().get(row_id)


@lru_cache(maxsize=None)
def _contracts() -> dict:
    return {rid: c for fam in families() for rid, c in fam.contracts.items()}


def contract_for(row_id: str):
    """The case-file contract of a row (``oracles.family.RowContract``), or None."""
    return _contracts().get(row_id)
