"""Paths and loaders shared by the tests of proofs_lean/ (no project packages imported)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROOFS = REPO / "proofs_lean"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load_audit():
    """proofs_lean/audit.py as a module named ``proofs_lean_audit``."""
    name = "proofs_lean_audit"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, PROOFS / "audit.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def fixture(name: str) -> str:
    """The text of a recorded output under tests/lean/fixtures/."""
    return (FIXTURES / name).read_text(encoding="utf-8")
