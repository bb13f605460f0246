"""The families, discovered: every package here (``oracles/families/<name>/``) whose
``__init__`` defines ``FAMILY`` joins the ledger, so adding a family edits no shared file.

A family package keeps one role per module: ``requests.py`` (the corpus, as requests with the
status the spec demands of each step), ``answers.py`` (our fast path answering them: the adapter
an outside implementation's answers stand in for), ``checks.py`` (the row checkers) and
``contract.py`` (each row's case-file fields and planted false claim). See ``oracles.family``.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from ..family import Family
from ..rows import statuses_row

__all__ = ["batch_checker_for", "checker_for", "contract_for", "families", "family_named", "family_of_row"]


def _found(package: str, path) -> list:
    out = []
    for info in pkgutil.iter_modules(path):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        fam = getattr(module, "FAMILY", None)
        if isinstance(fam, Family):
            out.append(fam)
    return out


@cache
def families() -> tuple[Family, ...]:
    """All families, sorted by name."""
    found = _found(__name__, __path__)
    names = [f.name for f in found]
    if len(set(names)) != len(names):
        raise RuntimeError(f"duplicate family names: {names}")
    return tuple(sorted(found, key=lambda f: f.name))


@cache
def family_named(name: str):
    """The family ``name``, importing only its own module (a command that judges one row's
    claims need not import the others); None when there is none."""
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        return None
    fam = getattr(module, "FAMILY", None)
    if not isinstance(fam, Family):
        return None
    if fam.name != name:
        raise RuntimeError(f"module {__name__}.{name} holds family {fam.name!r}")
    return fam


def _family_of(row_id: str):
    """A row's family: row ids are ``<family>.<name>`` (``oracles.rows``)."""
    return family_named(row_id.split(".", 1)[0])


# oracles.contract (and oracles.given behind it) only where a statuses row is asked for: a claims
# file of other rows never needs them (about 4 ms of `check`'s start; docs/decisions.md "A case
# file's ledger imports only its rows' families").


@cache
def _row_checker(row_id: str):
    fam = _family_of(row_id)
    if fam is None:
        return None
    if fam.answers_requests and row_id == statuses_row(fam.name):
        from ..contract import check_status

        return check_status
    return fam.checkers.get(row_id)


@cache
def _row_contract(row_id: str):
    fam = _family_of(row_id)
    if fam is None:
        return None
    if fam.answers_requests and row_id == statuses_row(fam.name):
        from ..contract import STATUS_CONTRACT

        return STATUS_CONTRACT
    return fam.contracts.get(row_id)


@cache
def _checkers() -> dict:
    from ..contract import check_status

    table = {}
    for fam in families():
        rows = dict(fam.checkers)
        if fam.answers_requests:
            rows[statuses_row(fam.name)] = check_status
        for rid, fn in rows.items():
            if rid in table:
                raise RuntimeError(f"row {rid} has two checkers")
            table[rid] = fn
    return table


def checker_for(row_id: str):
    """The checker of a row, or None if no family evidences it yet."""
    return _row_checker(row_id)


@cache
def _batches() -> dict:
    return {rid: fn for fam in families() for rid, fn in fam.batch_checkers.items()}


def batch_checker_for(row_id: str):
    """The batch checker of a row (``oracles.batch``), or None (its claims go one by one)."""
    fam = _family_of(row_id)
    return None if fam is None else fam.batch_checkers.get(row_id)


@cache
def _contracts() -> dict:
    from ..contract import STATUS_CONTRACT

    out = {}
    for fam in families():
        out.update(fam.contracts)
        if fam.answers_requests:
            out[statuses_row(fam.name)] = STATUS_CONTRACT
    return out


def contract_for(row_id: str):
    """The case-file contract of a row (``oracles.family.RowContract``), or None."""
    return _row_contract(row_id)


@cache
def _rows_of() -> dict:
    out = {}
    for fam in families():
        for rid in fam.checkers:
            out[rid] = fam
        out[statuses_row(fam.name)] = fam
    return out


def family_of_row(row_id: str):
    """The family that evidences ``row_id`` (None for an unknown row)."""
    return _rows_of().get(row_id)
