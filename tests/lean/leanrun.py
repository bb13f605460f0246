"""Finding and running a Lean checker from the tests (no project packages imported).

The checker is ``$LEAN`` (a one-file checker such as ``../shared/tools/lean-wasm/lean``, a
relative path resolved against the current directory), else ``lean`` on PATH. Without one a test
that needs it is skipped, except when ``CI=true`` (then it fails: CI must run it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.lean.leanpaths import load_audit


def lean_checker() -> str | None:
    """The checker command: resolved ``$LEAN``, else ``lean`` on PATH, else None."""
    audit = load_audit()
    value = os.environ.get("LEAN")
    if value:
        return audit.resolve_lean(value)
    return shutil.which("lean")


def require_lean() -> str:
    """The checker, or skip the test (fail under ``CI=true``) with a message saying how to get one."""
    lean = lean_checker()
    if lean is None:
        why = (f"no Lean checker: LEAN={os.environ.get('LEAN')!r} is not an executable and no `lean` on PATH "
               "(set LEAN=../shared/tools/lean-wasm/lean, or install a Lean toolchain)")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why + "; CI=true requires it")
        pytest.skip(why)
    return lean


def run_lean_text(lean: str, text: str, name: str = "Check.lean", timeout: float = 1800) -> tuple[int, str]:
    """Writes ``text`` to a temporary file and checks it (one Lean run at a time, see audit.py)."""
    audit = load_audit()
    stage = Path(tempfile.mkdtemp(prefix="lean-test-"))
    try:
        path = stage / name
        path.write_text(text, encoding="utf-8")
        return audit.run_lean_command([lean, str(path)], stage, timeout)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
