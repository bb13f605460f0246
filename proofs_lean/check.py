#!/usr/bin/env python3
"""Lean guard for CI (stdlib only): checks the proofs in proofs_lean/ with whatever Lean exists.

1. ``lake`` on PATH: ``lake build`` and the axiom audit (``audit.py`` lake mode).
2. Otherwise, ``$LEAN`` names a checker of one Lean file (such as
   ``/work/shared/tools/lean-wasm/lean``; a relative path is resolved against the current
   directory): each standalone ``.lean`` file that imports no other file of this project is
   checked with it, then the axiom audit runs in same-file mode (``AxiomAudit.lean`` imports
   ``FacetSelection`` and so cannot be checked alone; ``SameFileAudit.lean`` is a fragment of
   the audit file).
3. Otherwise: one loud line says the Lean check was skipped and why; exit status 0.

Exit status: 0 when every check and the audit passed (or Lean was skipped), 1 on any Lean error
or audit failure, 2 when ``$LEAN`` is set but is not an executable file.

Usage, from the repository root or anywhere::

    LEAN=../shared/tools/lean-wasm/lean python proofs_lean/check.py
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import audit  # noqa: E402  (the module next to this file)


def check_standalone(lean: str, path: Path) -> list[str]:
    """Problems from checking one Lean file with the one-file checker ``lean``."""
    rc, out = audit.run_lean_command([lean, str(path)], path.parent)
    problems = [f"{path.name}: {m.group(0).strip()}" for m in audit._ERROR_RE.finditer(out)]
    if audit._SORRY_RE.search(out):
        problems.append(f"{path.name}: a declaration uses sorry")
    if rc != 0:
        problems.append(f"{path.name}: checker exited with status {rc}")
        if not problems[:-1]:
            problems += [f"{path.name}: {line}" for line in out.strip().splitlines()[-5:]]
    return problems


def run_with_checker(lean: str) -> int:
    """Checks standalone files with ``lean``, then runs the same-file audit."""
    failures: list[str] = []
    for path in sorted(HERE.glob("*.lean")):
        source = path.read_text(encoding="utf-8")
        imported = audit.project_imports(source)
        if imported:
            print(f"lean: {path.name}: imports {', '.join(imported)}; checked through the same-file audit")
            continue
        if path.name in audit.SAME_FILE_FRAGMENTS and path.name != "FacetSelection.lean":
            print(f"lean: {path.name}: audit fragment; checked inside the same-file audit file")
            continue
        start = time.monotonic()
        problems = check_standalone(lean, path)
        status = "FAILED" if problems else "ok"
        print(f"lean: {path.name}: {status} ({time.monotonic() - start:.0f} s)")
        failures += problems
    start = time.monotonic()
    report = audit.run_same_file(lean)
    print(f"lean: axiom audit RAN in same-file mode ({time.monotonic() - start:.0f} s):")
    print(report.summary())
    failures += report.problems
    return _finish(failures, "same-file audit; imported core proofs are opaque to this checker")


def run_with_lake() -> int:
    """``lake build`` plus the lake-mode audit."""
    start = time.monotonic()
    report = audit.run_lake()
    print(f"lean: lake build and axiom audit RAN ({time.monotonic() - start:.0f} s):")
    print(report.summary())
    return _finish(report.problems, "lake build and #print axioms")


def _finish(failures: list[str], how: str) -> int:
    if failures:
        for f in failures:
            print(f"lean: FAIL: {f}", file=sys.stderr)
        print(f"LEAN CHECK FAILED ({len(failures)} problem(s); {how})", file=sys.stderr)
        return 1
    print(f"lean check passed ({how}): no audited declaration depends on an axiom beyond "
          f"{', '.join(sorted(audit.ALLOWED_AXIOMS))}")
    return 0


def main() -> int:
    """Picks lake, then $LEAN, then a loud skip."""
    if shutil.which("lake"):
        return run_with_lake()
    value = os.environ.get("LEAN")
    if value:
        lean = audit.resolve_lean(value)
        if lean is None:
            print(f"LEAN CHECK FAILED: LEAN={value!r} (resolved against {Path.cwd()}) is not an "
                  "executable file", file=sys.stderr)
            return 2
        return run_with_checker(lean)
    print("!!! LEAN CHECK SKIPPED: no `lake` on PATH and $LEAN is unset, so proofs_lean/*.lean "
          "were NOT checked (set LEAN to a one-file checker such as ../shared/tools/lean-wasm/lean) !!!")
    return 0


if __name__ == "__main__":
    sys.exit(main())
