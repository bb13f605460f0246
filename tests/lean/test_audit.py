"""The parser and runners of proofs_lean/audit.py and the guard proofs_lean/check.py, on recorded
outputs and fake Lean executables (no Lean needed)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lean.leanpaths import PROOFS, REPO, fixture, load_audit

audit = load_audit()


# --- lake mode: real `#print axioms` format -------------------------------------------------

def test_clean_lake_output_passes_and_reports_every_declaration():
    report = audit.parse_audit_output(fixture("lake_clean.txt"), mode="lake")
    assert report.ok, report.problems
    assert set(report.dependencies) == set(audit.EXPECTED_DECLARATIONS)
    assert len(audit.EXPECTED_DECLARATIONS) == 260
    assert len(audit.FACET_SELECTION_DECLARATIONS) == 20 and len(audit.FIRST_HIT_DECLARATIONS) == 130
    assert len(audit.CULLING_DECLARATIONS) == 110


def test_axiom_list_wrapped_over_lines_is_parsed_whole():
    report = audit.parse_audit_output(fixture("lake_clean.txt"), mode="lake")
    deps = report.dependencies["FacetSelection.barycentricPoint_on_plane_of_vertices_on_plane"]
    assert deps == ["propext", "Classical.choice", "Quot.sound"]
    assert report.dependencies["FacetSelection.nonneg_weights_of_valid"] == []


def test_sorry_axiom_fails_lake_audit_and_names_the_declaration():
    report = audit.parse_audit_output(fixture("lake_sorry.txt"), mode="lake")
    assert not report.ok
    assert report.problems == [
        "FacetSelection.minFold_le_init_and_le_of_mem depends on forbidden axiom sorryAx"
    ]


@pytest.mark.parametrize("extra", ["Lean.ofReduceBool", "Lean.trustCompiler", "FacetSelection.evil", "Classical.em"])
def test_any_axiom_outside_the_three_standard_ones_fails_lake_audit(extra):
    text = fixture("lake_clean.txt").replace(
        "'FacetSelection.minFold' does not depend on any axioms",
        f"'FacetSelection.minFold' depends on axioms: [propext, {extra}]",
    )
    report = audit.parse_audit_output(text, mode="lake")
    assert report.problems == [f"FacetSelection.minFold depends on forbidden axiom {extra}"]


def test_missing_declaration_fails_lake_audit():
    report = audit.parse_audit_output(fixture("lake_missing_eq_2.txt"), mode="lake")
    assert report.problems == [
        "missing declaration: no axiom report for FacetSelection.minFold.eq_2"
    ]


def test_build_error_fails_even_if_every_declaration_is_reported():
    text = fixture("lake_build_error.txt") + fixture("lake_clean.txt")
    report = audit.parse_audit_output(text, mode="lake", returncode=1)
    assert not report.ok
    assert any("unsolved goals" in p for p in report.problems)
    assert "Lean exited with status 1" in report.problems


def test_nonzero_status_alone_fails():
    report = audit.parse_audit_output(fixture("lake_clean.txt"), mode="lake", returncode=1)
    assert report.problems == ["Lean exited with status 1"]


def test_names_with_primes_are_parsed():
    text = "'Foo.bar'_baz' depends on axioms: [propext]\n'Foo.q' does not depend on any axioms\n"
    report = audit.parse_audit_output(text, expected=["Foo.bar'_baz", "Foo.q"], mode="lake")
    assert report.ok
    assert report.dependencies == {"Foo.bar'_baz": ["propext"], "Foo.q": []}


def test_empty_output_reports_all_260_declarations_missing():
    report = audit.parse_audit_output("", mode="lake")
    assert len(report.problems) == 260
    assert all(p.startswith("missing declaration") for p in report.problems)


# --- same-file mode: outputs recorded from the WebAssembly checker ---------------------------

def test_recorded_same_file_run_passes_with_opaque_core_imports():
    report = audit.parse_audit_output(fixture("same_file_clean.txt"), mode="same-file")
    assert report.ok, report.problems
    assert set(report.dependencies) == set(audit.EXPECTED_DECLARATIONS)
    # The compact report lists only the watched kernel axioms and local names; the opaque core
    # imports (core theorems whose proofs the checker hides) are counted.
    assert all(d in audit.ALLOWED_AXIOMS for deps in report.dependencies.values() for d in deps)
    assert report.opaque_counts["FacetSelection.barycentricPoint_on_plane_of_vertices_on_plane"] > 10
    assert "opaque core imports" in report.summary()


def test_recorded_same_file_run_is_far_below_the_output_pipe():
    """The old report printed about 90 KiB in one burst, more than the 64 KiB pipe the checker
    writes to without blocking; the compact one must stay far below it."""
    text = fixture("same_file_clean.txt")
    assert len(text.encode()) < audit.OUTPUT_WARN_BYTES
    assert len(text.encode()) / len(audit.EXPECTED_DECLARATIONS) < 100


def test_recorded_same_file_run_covers_first_hit_and_culling():
    report = audit.parse_audit_output(fixture("same_file_clean.txt"), mode="same-file")
    for name in ("FirstHit.firstHit_sound", "Culling.answer_candidates", "Culling.slabSeparated_sound",
                 "Culling.culled_is_miss"):
        assert name in report.dependencies
    assert report.opaque_counts["FirstHit.crossing_complete"] > 0, "crossing_complete uses core Rat lemmas"
    assert report.opaque_counts["Culling.between_of_inside"] > 0


def test_compact_report_lines_are_parsed():
    text = ("'A.b' depends on axioms or opaque imports: [propext, Quot.sound] +12 opaque\n"
            "'A.c' depends on axioms or opaque imports: [] +0 opaque\n")
    report = audit.parse_audit_output(text, expected=["A.b", "A.c"], mode="same-file")
    assert report.ok and report.dependencies == {"A.b": ["propext", "Quot.sound"], "A.c": []}
    assert report.opaque_counts == {"A.b": 12, "A.c": 0}
    assert not audit.parse_audit_output(text, expected=["A.b", "A.c"], mode="lake").ok


def test_recorded_same_file_run_with_sorry_and_local_axiom_fails():
    """Recorded on a copy of FirstHit.lean whose firstHit_tie is proved by sorry and whose
    firstHit_complete uses a local `axiom scanIsFine`."""
    report = audit.parse_audit_output(fixture("same_file_sorry_and_local_axiom.txt"), mode="same-file")
    assert "Lean reports a declaration that uses sorry" in report.problems
    assert "FirstHit.firstHit_tie depends on forbidden axiom sorryAx" in report.problems
    assert any(
        p.startswith("FirstHit.firstHit_complete depends on ")
        and p.endswith("FirstHit.scanIsFine, declared in the audited file as an axiom")
        for p in report.problems
    )
    # Walks stop at audited names: firstHit_eq_none_iff uses firstHit_complete but is not
    # reported for its axiom; the audit fails through firstHit_complete's own line.
    assert not any(p.startswith("FirstHit.firstHit_eq_none_iff") for p in report.problems)


def test_same_file_unknown_and_unresolved_constants_fail():
    text = fixture("same_file_clean.txt") + (
        "audit: unknown constant 'FacetSelection.minFold.eq_9'\n"
        "audit: 'FacetSelection.minFold' reaches constants the checker cannot find: [_private.x.0.y]\n"
    )
    report = audit.parse_audit_output(text, mode="same-file")
    assert report.problems == [
        "unknown constant FacetSelection.minFold.eq_9",
        "FacetSelection.minFold reaches unresolved constants: _private.x.0.y",
    ]


def test_same_file_mode_accepts_names_lake_mode_rejects():
    text = fixture("same_file_clean.txt")
    assert audit.parse_audit_output(text, mode="same-file").ok
    lake_view = text.replace(" or opaque imports", "")
    assert not audit.parse_audit_output(lake_view, mode="lake").ok


# --- the audit list and the same-file source --------------------------------------------------

def test_axiom_audit_lean_lists_exactly_the_expected_declarations():
    source = (PROOFS / "AxiomAudit.lean").read_text(encoding="utf-8")
    assert audit.check_audit_list(source) == []
    assert audit.audited_names(source) == list(audit.EXPECTED_DECLARATIONS)


def test_dropping_or_doubling_an_audit_line_is_reported():
    source = (PROOFS / "AxiomAudit.lean").read_text(encoding="utf-8")
    dropped = source.replace("#print axioms FacetSelection.minFold.eq_unfold\n", "")
    assert audit.check_audit_list(dropped) == ["AxiomAudit.lean does not audit FacetSelection.minFold.eq_unfold"]
    doubled = source + "#print axioms FacetSelection.minFold\n"
    assert audit.check_audit_list(doubled) == ["AxiomAudit.lean audits FacetSelection.minFold twice"]


def test_same_file_source_has_imports_first_and_audits_every_name():
    src = audit.same_file_source()
    lines = src.splitlines()
    # Lean accepts `module` only as the file's first token; the one import is the small one.
    assert lines[0] == "module"
    assert [l for l in lines if re.match(r"(public )?(meta )?import ", l)] == [
        "public meta import Lean.Elab.Command"]
    assert "set_option Elab.async false" in lines[:5]
    assert not [l for l in lines if l.startswith("#print axioms")]
    listed, watched = src.split("#audit_axioms_all\n", 1)[1].split("watching", 1)
    assert listed.split() == list(audit.EXPECTED_DECLARATIONS)
    assert set(watched.split()) == audit.ALLOWED_AXIOMS | audit.KNOWN_FORBIDDEN_AXIOMS
    for name in audit.EXPECTED_DECLARATIONS:
        assert f":= @{name}\n" in src
    assert src.index("theorem minFold_mem_unit_interval_of_mem_unit_interval") < src.index("namespace FirstHit")
    assert src.index("theorem firstHit_tie ") < src.index("namespace Culling") < src.index('elab "#audit_axioms "')


def test_concatenated_source_inlines_project_imports_in_order():
    src = audit.concatenated_source("FirstHit.lean", extra="-- tail\n")
    assert "import" not in "".join(l for l in src.splitlines() if l.startswith("import"))
    assert src.startswith(audit.SERIAL_ELABORATION)
    assert src.index("-- from FacetSelection.lean") < src.index("-- from FirstHit.lean") < src.index("-- tail")
    assert src.count("namespace FacetSelection") == 1
    assert audit.concatenated_source("FacetSelection.lean").count("-- from ") == 1


def test_header_lines_are_kept_in_front_with_module_first(tmp_path):
    # A project import written as a `public import` is still inlined; `module` leads the file.
    (tmp_path / "A.lean").write_text("def a := 1\n")
    (tmp_path / "B.lean").write_text("import Std.Data\npublic import A\ndef b := a\n")
    (tmp_path / "C.lean").write_text("module\n\npublic meta import Lean.Elab.Command\nimport B\ndef c := b\n")
    assert audit.project_imports((tmp_path / "C.lean").read_text(), project=tmp_path) == ["B"]
    src = audit.concatenated_source("C.lean", project=tmp_path)
    assert src.splitlines()[:3] == ["module", "import Std.Data", "public meta import Lean.Elab.Command"]
    assert src.index("def a") < src.index("def b") < src.index("def c")
    assert "import A" not in src and "import B" not in src


def test_concatenated_source_rejects_an_import_cycle(tmp_path):
    (tmp_path / "A.lean").write_text("import B\ndef a := 1\n")
    (tmp_path / "B.lean").write_text("import A\ndef b := 1\n")
    with pytest.raises(ValueError, match="import cycle"):
        audit.concatenated_source("A.lean", project=tmp_path)


# --- runners with fake executables ---------------------------------------------------------------

def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _fake_lake(tmp_path: Path, build_out: str, build_rc: int, audit_out: str) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "build.txt").write_text(build_out)
    (tmp_path / "audit.txt").write_text(audit_out)
    _script(bin_dir / "lake", f"""
if [ "$1" = build ]; then cat {tmp_path}/build.txt; exit {build_rc}; fi
if [ "$1 $2 $3 $4" = "env lean AxiomAudit.lean " ]; then cat {tmp_path}/audit.txt; exit 0; fi
echo "error: unexpected lake call: $*"; exit 3
""")
    return bin_dir


def test_run_lake_passes_on_clean_build_and_audit(tmp_path, monkeypatch):
    bin_dir = _fake_lake(tmp_path, "Build completed successfully.\n", 0, fixture("lake_clean.txt"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    report = audit.run_lake()
    assert report.ok, report.problems


def test_run_lake_fails_on_build_error_before_auditing(tmp_path, monkeypatch):
    bin_dir = _fake_lake(tmp_path, fixture("lake_build_error.txt"), 1, fixture("lake_clean.txt"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    report = audit.run_lake()
    assert "lake build failed (status 1)" in report.problems
    assert report.dependencies == {}


def test_run_lake_fails_on_forbidden_axiom(tmp_path, monkeypatch):
    bin_dir = _fake_lake(tmp_path, "Build completed successfully.\n", 0, fixture("lake_sorry.txt"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert not audit.run_lake().ok


def _fake_checker(tmp_path: Path, audit_fixture: str, standalone_out: str = "", standalone_rc: int = 0) -> Path:
    (tmp_path / "audit.txt").write_text(fixture(audit_fixture))
    (tmp_path / "standalone.txt").write_text(standalone_out)
    return _script(tmp_path / "fakelean", f"""
echo "$1" >> {tmp_path}/calls.txt
cp "$1" "{tmp_path}/$(basename "$1").seen"
case "$1" in
  *FacetSelectionAudit.lean) cat {tmp_path}/audit.txt; exit 0 ;;
  *) cat {tmp_path}/standalone.txt; exit {standalone_rc} ;;
esac
""")


def _guard(env_lean, cwd: Path, path_dirs: str = "/usr/bin:/bin", args=(), ci=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LEAN", "CI")}
    env["PATH"] = path_dirs  # no lake
    if env_lean is not None:
        env["LEAN"] = env_lean
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, str(PROOFS / "check.py"), *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=120,
    )


def test_guard_skips_loudly_with_status_zero_without_lean():
    proc = _guard(None, REPO)
    assert proc.returncode == 0
    assert proc.stdout.count("\n") == 1 and "LEAN CHECK SKIPPED" in proc.stdout
    assert "LEAN=../shared/tools/lean-wasm/lean" in proc.stdout and "lake" in proc.stdout
    assert "--require" in proc.stdout


@pytest.mark.parametrize("args, ci", [(("--require",), None), ((), "true"), ((), "TRUE"), (("--require",), "false")])
def test_guard_fails_without_lean_when_required(args, ci):
    proc = _guard(None, REPO, args=args, ci=ci)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert "LEAN CHECK FAILED" in proc.stderr and "required" in proc.stderr
    assert ("--require" if args else "CI=true") in proc.stderr
    assert "LEAN=../shared/tools/lean-wasm/lean" in proc.stderr


def test_guard_ci_other_than_true_still_skips():
    proc = _guard(None, REPO, ci="1")
    assert proc.returncode == 0 and "LEAN CHECK SKIPPED" in proc.stdout


def test_guard_with_require_and_a_checker_runs_the_checks(tmp_path):
    fake = _fake_checker(tmp_path, "same_file_clean.txt")
    proc = _guard(str(fake), REPO, args=("--require",), ci="true")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "axiom audit RAN in same-file mode" in proc.stdout


def test_guard_fails_when_lean_names_no_executable():
    proc = _guard("no/such/lean", REPO)
    assert proc.returncode == 2
    assert "is not an executable file" in proc.stderr


def test_guard_resolves_relative_lean_against_cwd_and_runs_the_audit(tmp_path):
    fake = _fake_checker(tmp_path, "same_file_clean.txt")
    proc = _guard(os.path.relpath(fake, tmp_path), tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "axiom audit RAN in same-file mode" in proc.stdout
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    # By default the modules are checked inside the audit file only.
    assert len(calls) == 1 and calls[0].endswith("FacetSelectionAudit.lean")
    assert "lean: FirstHit.lean: checked inside the same-file audit file" in proc.stdout
    seen = (tmp_path / "FacetSelectionAudit.lean.seen").read_text()
    assert "theorem firstHit_tie " in seen and "theorem minFold_le_init_and_le_of_mem " in seen


def test_guard_standalone_also_checks_each_module(tmp_path):
    fake = _fake_checker(tmp_path, "same_file_clean.txt")
    proc = _guard(str(fake), tmp_path, args=("--standalone",))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    # In name order; Culling.lean and FirstHit.lean are checked as one file each with their
    # imports inlined (temporary copies).
    assert calls[0].endswith("Culling.lean") and "proofs_lean" not in calls[0]
    assert calls[1].endswith("proofs_lean/FacetSelection.lean")
    assert calls[2].endswith("FirstHit.lean") and "proofs_lean" not in calls[2]
    assert calls[-1].endswith("FacetSelectionAudit.lean") and len(calls) == 4
    assert "lean: FirstHit.lean with FacetSelection inlined: ok" in proc.stdout
    assert "lean: Culling.lean with FirstHit inlined: ok" in proc.stdout
    culling = (tmp_path / "Culling.lean.seen").read_text()
    assert culling.index("namespace FacetSelection") < culling.index("namespace FirstHit") < culling.index(
        "namespace Culling")
    seen = (tmp_path / "FirstHit.lean.seen").read_text()
    assert "import FacetSelection" not in seen
    assert seen.index("namespace FacetSelection") < seen.index("namespace FirstHit")


def test_guard_fails_on_recorded_bad_audit(tmp_path):
    fake = _fake_checker(tmp_path, "same_file_sorry_and_local_axiom.txt")
    proc = _guard(str(fake), REPO)
    assert proc.returncode == 1
    assert "forbidden axiom sorryAx" in proc.stderr and "LEAN CHECK FAILED" in proc.stderr


def test_guard_fails_on_a_lean_error_in_a_standalone_file(tmp_path):
    fake = _fake_checker(
        tmp_path, "same_file_clean.txt",
        standalone_out="FacetSelection.lean:97:2: error: unsolved goals\n", standalone_rc=1,
    )
    proc = _guard(str(fake), REPO, args=("--standalone",))
    assert proc.returncode == 1
    assert "FacetSelection.lean: FacetSelection.lean:97:2: error: unsolved goals" in proc.stderr


def test_guard_fails_on_a_lean_error_inside_the_audit_file(tmp_path):
    """By default the proofs are checked only inside the audit file, so an error there fails."""
    fake = _fake_checker(tmp_path, "same_file_clean.txt")
    (tmp_path / "audit.txt").write_text(
        "FacetSelectionAudit.lean:700:2: error: unsolved goals\n" + fixture("same_file_clean.txt"))
    proc = _guard(str(fake), REPO)
    assert proc.returncode == 1
    assert "unsolved goals" in proc.stderr and "LEAN CHECK FAILED" in proc.stderr


def test_a_runtime_fault_is_rerun_but_a_lean_error_is_not(tmp_path, monkeypatch):
    """The WebAssembly runtime's own abort is retried; Lean's errors are returned at once."""
    audit = load_audit()

    calls = []

    def fake(outputs):
        def run(cmd, cwd, timeout):
            calls.append(cmd)
            return outputs[min(len(calls) - 1, len(outputs) - 1)]
        return run

    monkeypatch.setattr(audit, "_run_once", fake([(1, "x\nhardware fault (error code: 29)\n"), (0, "clean\n")]))
    rc, out = audit.run_lean_command(["lean", "f.lean"], tmp_path)
    assert rc == 0 and "clean" in out and "rerun 1" in out and len(calls) == 2
    calls.clear()
    monkeypatch.setattr(audit, "_run_once", fake([(1, "f.lean:3:0: error: unknown identifier\n")]))
    rc, out = audit.run_lean_command(["lean", "f.lean"], tmp_path)
    assert rc == 1 and len(calls) == 1
    calls.clear()
    monkeypatch.setattr(audit, "_run_once", fake([(1, "hardware fault (error code: 29)\n")]))
    rc, out = audit.run_lean_command(["lean", "f.lean"], tmp_path)
    assert rc == 1 and len(calls) == audit.RUNTIME_RETRIES + 1  # a persistent fault still fails


def test_guard_reports_a_rerun_loudly_and_every_run_s_output_size(tmp_path):
    """A runtime abort is rerun, and the rerun is reported in the closing lines (never silent),
    as is each checker run's output size (the abort's cause is a full output pipe)."""
    (tmp_path / "audit.txt").write_text(fixture("same_file_clean.txt"))
    fake = _script(tmp_path / "fakelean", f"""
n=$(cat {tmp_path}/n 2>/dev/null || echo 0); echo $((n + 1)) > {tmp_path}/n
if [ "$n" = 0 ]; then echo "hardware fault (error code: 29)"; exit 1; fi
cat {tmp_path}/audit.txt
""")
    proc = _guard(str(fake), REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "!!! RERUN 1 of FacetSelectionAudit.lean: the WebAssembly runtime aborted" in proc.stdout
    size = len(fixture("same_file_clean.txt").encode())
    assert "lean: run FacetSelectionAudit.lean: status 0, " in proc.stdout
    assert f"{size} bytes of output" in proc.stdout


def test_the_checker_runs_with_the_small_heap_settings_and_keeps_the_callers(tmp_path):
    """docs/decisions.md, "Lean: the checker's memory, lowered from outside": the checker's
    environment carries the glibc tunables and a NODE_OPTIONS that preloads node_small_heap.js;
    a caller's own NODE_OPTIONS and malloc settings are kept, and the run's output is unchanged."""
    audit = load_audit()
    env = audit.checker_env({"PATH": "/usr/bin:/bin"})
    assert env["MALLOC_ARENA_MAX"] == "1" and env["MALLOC_TRIM_THRESHOLD_"] == "0"
    assert f'--require "{audit.SMALL_HEAP_PRELOAD}"' in env["NODE_OPTIONS"]
    assert "--max-semi-space-size=1" in env["NODE_OPTIONS"]
    assert audit.SMALL_HEAP_PRELOAD.is_file() and "--optimize-for-size" in audit.SMALL_HEAP_PRELOAD.read_text()
    mine = audit.checker_env({"NODE_OPTIONS": "--stack-trace-limit=5", "MALLOC_ARENA_MAX": "4"})
    assert mine["NODE_OPTIONS"].startswith("--stack-trace-limit=5 --require ") and mine["MALLOC_ARENA_MAX"] == "4"
    # a real child sees them (a stand-in checker that prints its environment)
    fake = tmp_path / "lean"
    fake.write_text("#!/bin/sh\necho \"arena=$MALLOC_ARENA_MAX node=$NODE_OPTIONS\"\n")
    fake.chmod(0o755)
    rc, out = audit.run_lean_command([str(fake), "f.lean"], tmp_path)
    assert rc == 0 and "arena=1" in out and "node_small_heap.js" in out


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js on PATH")
def test_node_accepts_the_small_heap_options():
    """Node refuses a V8 flag that NODE_OPTIONS does not allow (``--optimize-for-size`` is one,
    hence the preload); the options the checker gets load cleanly."""
    audit = load_audit()
    code = ["node", "-e", "console.log(typeof require('v8').setFlagsFromString)"]
    p = subprocess.run(code, env=audit.checker_env(), capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout.strip(), p.stderr) == (0, "function", "")
    refused = subprocess.run(code, env={**os.environ, "NODE_OPTIONS": "--optimize-for-size"},
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "not allowed in NODE_OPTIONS" in refused.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js on PATH")
def test_the_preload_empties_the_pthread_pool_of_lean_js_only(tmp_path):
    """docs/decisions.md, "Lean: pthread workers on demand": under the checker's options a main
    script named lean.js that declares the pool gets a pool of 0; another script, or a lean.js
    without exactly one such declaration, runs as written (and the second says so on stderr)."""
    audit = load_audit()
    line = "var pthreadPoolSize=4;console.log(pthreadPoolSize)\n"
    cases = {("a", "lean.js"): line, ("b", "other.js"): line, ("c", "lean.js"): line + line,
             ("d", "lean.js"): "console.log('no pool')\n"}
    out = {}
    for (sub, name), text in cases.items():
        (tmp_path / sub).mkdir()
        (tmp_path / sub / name).write_text(text)
        p = subprocess.run(["node", str(tmp_path / sub / name)], env=audit.checker_env(),
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        out[sub] = (p.stdout.split(), "pthread pool is left as it is" in p.stderr)
    assert out == {"a": (["0"], False), "b": (["4"], False), "c": (["4", "4"], True),
                   "d": (["no", "pool"], True)}
