"""Families not yet moved to ``oracles/families/<name>/`` (their older single-module form).
Discovery, checkers and contracts live in ``oracles.families``; these names stay importable
until the last family has moved."""

from __future__ import annotations

from ..families import _checkers, _contracts, checker_for, contract_for, families  # noqa: F401

__all__ = ["families", "checker_for", "contract_for"]
