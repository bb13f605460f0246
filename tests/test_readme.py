"""The README's two set-up lines exist, and .ci/run runs the test line verbatim."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _command_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("python3 -m venv")]


def test_readme_has_the_main_job_and_the_test_line():
    lines = _command_lines((ROOT / "README.md").read_text())
    assert len(lines) == 2
    main, test = lines
    assert main.endswith("-m oracles ledger")
    assert "pytest" in test and "proofs_lean/check.py" in test


def test_ci_runs_the_readme_test_line_verbatim():
    test_line = _command_lines((ROOT / "README.md").read_text())[1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_line in [line.strip() for line in ci]
