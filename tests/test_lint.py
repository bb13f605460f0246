"""``ruff check`` passes with the project's configuration (``pyproject.toml``: pycodestyle,
pyflakes, pyupgrade and Ruff's own rules), so CI runs it with the tests (issue 25)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff():
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        if __import__("os").environ.get("CI"):
            pytest.fail("ruff is not installed (it is in the 'test' extra)")
        pytest.skip("ruff is not installed: pip install -e '.[test]'")
    return exe


def test_ruff_check_passes():
    p = subprocess.run([_ruff(), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_the_configuration_selects_pyupgrade_and_ruff_rules():
    import tomllib

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"UP", "RUF"} <= set(cfg["select"])
