#!/usr/bin/env python3
"""Lean guard for CI (stdlib only): checks the proofs in proofs_lean/ with whatever Lean exists.

1. ``lake`` on PATH: ``lake build`` and the axiom audit (``audit.py`` lake mode).
2. Otherwise, ``$LEAN`` names a checker of one Lean file (such as
   ``../shared/tools/lean-wasm/lean``; a relative path is resolved against the current
   directory): the axiom audit runs in same-file mode. Its one file contains
   ``FacetSelection.lean``, ``FirstHit.lean`` and ``Culling.lean`` whole, so checking it
   elaborates and kernel-checks every proof (a Lean error or ``sorry`` there fails the audit);
   checking them again on their own would double the cost. With ``--standalone`` each module is
   also checked on its own, importing only ``Init``: a module that imports other modules of the
   project (``FirstHit`` imports ``FacetSelection``, ``Culling`` imports ``FirstHit``) as one
   file with those inlined before it (``audit.concatenated_source``), since a one-file checker
   has no olean of them. A module outside the audit file is always checked that way. Every
   rerun of a run that the WebAssembly runtime aborted is reported in the closing lines.
   ``AxiomAudit.lean`` (``#print axioms``, which that checker refuses) and
   ``SameFileAudit.lean`` (a fragment) are checked only inside the audit file.
   ``tests/lean/test_first_hit_eval.py`` and ``tests/lean/test_culling_eval.py`` check the
   modules again without ``import Lean`` when they run them.
3. Otherwise the check is skipped: one loud line says so and how to get a checker, exit status
   0; but with ``--require`` (or ``CI=true`` in the environment) a missing checker is a
   failure, exit status 3.

Exit status: 0 when every check and the audit passed (or Lean was skipped), 1 on any Lean error
or audit failure, 2 when ``$LEAN`` is set but is not an executable file, 3 when a checker is
required and there is none.

Usage, from the repository root or anywhere::

    LEAN=../shared/tools/lean-wasm/lean python proofs_lean/check.py
    python proofs_lean/check.py --require     # CI: no Lean is an error
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
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


#: Modules checked only inside the same-file audit file: the ``#print axioms`` list and the
#: fragment that defines ``#audit_axioms``.
AUDIT_ONLY = ("AxiomAudit.lean", "SameFileAudit.lean")


def check_concatenated(lean: str, path: Path) -> list[str]:
    """Problems from checking ``path`` with its project imports inlined (one temporary file)."""
    stage = Path(tempfile.mkdtemp(prefix="lean-check-"))
    try:
        one = stage / path.name
        one.write_text(audit.concatenated_source(path.name), encoding="utf-8")
        return check_standalone(lean, one)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def run_with_checker(lean: str, standalone: bool = False) -> int:
    """Runs the same-file audit with ``lean``, after checking on its own (imports inlined) each
    module that is not part of the audit file, and with ``standalone`` every module."""
    failures: list[str] = []
    for path in sorted(HERE.glob("*.lean")):
        if path.name in AUDIT_ONLY or (path.name in audit.SAME_FILE_FRAGMENTS and not standalone):
            print(f"lean: {path.name}: checked inside the same-file audit file")
            continue
        imported = audit.project_imports(path.read_text(encoding="utf-8"))
        start = time.monotonic()
        if imported:
            problems = check_concatenated(lean, path)
            how = f" with {', '.join(imported)} inlined"
        else:
            problems = check_standalone(lean, path)
            how = ""
        status = "FAILED" if problems else "ok"
        print(f"lean: {path.name}{how}: {status} ({time.monotonic() - start:.0f} s)")
        failures += problems
    start = time.monotonic()
    report = audit.run_same_file(lean)
    print(f"lean: axiom audit RAN in same-file mode ({time.monotonic() - start:.0f} s):")
    print(report.summary())
    failures += report.problems
    _report_runs()
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


def _report_runs() -> None:
    """One line per checker run (status, seconds, output bytes) and a loud line per rerun."""
    for cmd, rc, seconds, size in audit.RUNS:
        print(f"lean: run {Path(cmd.split()[-1]).name}: status {rc}, {seconds:.0f} s, {size} bytes of output")
    for cmd, attempt, size in audit.RERUNS:
        print(f"lean: !!! RERUN {attempt} of {Path(cmd.split()[-1]).name}: the WebAssembly runtime aborted "
              f"(hardware fault, {size} bytes of output); see docs/decisions.md, \"Lean: the checker's "
              "abort was a full output pipe\" !!!")


#: Where to point ``LEAN`` (relative to the repository root), named in the skip message.
WASM_CHECKER_HINT = "../shared/tools/lean-wasm/lean"


def main(argv: list[str] | None = None) -> int:
    """Picks lake, then $LEAN, then a loud skip (a failure under --require or CI=true)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--require", action="store_true",
                        help="fail (exit 3) when no Lean checker is available; implied by CI=true")
    parser.add_argument("--standalone", action="store_true",
                        help="with a one-file checker, also check each module on its own (imports inlined, "
                             "no `import Lean`), not only inside the audit file")
    args = parser.parse_args(argv)
    required = args.require or os.environ.get("CI", "").strip().lower() == "true"
    if shutil.which("lake"):
        return run_with_lake()
    value = os.environ.get("LEAN")
    if value:
        lean = audit.resolve_lean(value)
        if lean is None:
            print(f"LEAN CHECK FAILED: LEAN={value!r} (resolved against {Path.cwd()}) is not an "
                  "executable file", file=sys.stderr)
            return 2
        return run_with_checker(lean, standalone=args.standalone)
    how = (f"set LEAN to a one-file checker (LEAN={WASM_CHECKER_HINT} from the repository root) "
           "or put a Lean toolchain with `lake` on PATH")
    if required:
        why = "--require" if args.require else "CI=true"
        print(f"LEAN CHECK FAILED: a Lean checker is required ({why}) but there is no `lake` on PATH "
              f"and $LEAN is unset, so proofs_lean/*.lean were NOT checked; {how}", file=sys.stderr)
        return 3
    print("!!! LEAN CHECK SKIPPED: no `lake` on PATH and $LEAN is unset, so proofs_lean/*.lean "
          f"were NOT checked ({how}; pass --require to make this an error) !!!")
    return 0


if __name__ == "__main__":
    sys.exit(main())
