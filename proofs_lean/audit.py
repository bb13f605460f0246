#!/usr/bin/env python3
"""Axiom audit of ``FacetSelection.lean``, ``FirstHit.lean`` and ``Culling.lean`` (stdlib only).

Two ways to run it:

``lake`` mode (a Lean toolchain with Lake on PATH)
    runs ``lake build`` and ``lake env lean AxiomAudit.lean`` in this directory and parses the
    ``#print axioms`` answers. Every audited declaration must be reported and may depend only
    on ``propext``, ``Classical.choice`` and ``Quot.sound``.

``same-file`` mode (a checker for one file, such as ``../shared/tools/lean-wasm/lean``)
    that checker imports core at its exported level only, refuses ``#print axioms`` and hides
    imported proofs. This mode writes one temporary file: the imports of the fragments, then
    ``FacetSelection.lean``, ``FirstHit.lean``, ``Culling.lean`` (project imports dropped), then
    ``SameFileAudit.lean`` (which defines ``#audit_axioms_all``), then one
    ``#audit_axioms_all`` command naming the declarations of the ``#print axioms`` lines of
    ``AxiomAudit.lean``. The walk sees through every declaration of that file and stops at
    imported constants whose bodies are hidden. It lists the reached constants that are declared
    in the file or are among the kernel axioms named below (the *watch* list), and counts the
    others (opaque core imports). The three standard axioms pass; ``sorryAx`` and the other
    non-standard core axioms fail; anything declared in the checked file that is reported as a
    dependency is a local axiom and fails; the counted names are opaque core imports, accepted.

Why the output is compact: the WebAssembly checker writes its output with synchronous writes to
a non-blocking pipe, and when that pipe (64 KiB) is full because its reader is slow (a loaded
machine), the write fails and the checker aborts with ``hardware fault (error code: 29)``
(``EIO``). The old audit printed about 90 KiB in one burst and aborted that way at random; the
compact one prints a few KiB. Every run's output size is measured (``LeanRun.output_bytes``)
and a run near the pipe's size is reported.

Exit status: 0 clean, 1 on any audit failure or Lean error, 2 on a usage error or when the
requested Lean is not available.

Usage::

    python proofs_lean/audit.py                      # lake if on PATH, else $LEAN same-file
    python proofs_lean/audit.py --mode same-file --lean ../shared/tools/lean-wasm/lean
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Axioms a proof here may use: the three standard axioms of Lean's kernel theory.
ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

#: Axioms of Lean core that must never appear (``sorry``, ``native_decide`` and the compiler).
KNOWN_FORBIDDEN_AXIOMS = frozenset(
    {"sorryAx", "Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"}
)

#: Name prefixes of declarations made in the audited file itself (same-file mode): the
#: namespaces of FacetSelection.lean, FirstHit.lean and Culling.lean, and the private prefix a ``module``
#: gives its declarations.
LOCAL_PREFIXES = ("FacetSelection.", "FirstHit.", "Culling.", "_private.")

THEOREMS = (
    "FacetSelection.nonneg_weights_of_valid",
    "FacetSelection.sum_weights_eq_one_of_valid",
    "FacetSelection.barycentricPoint_on_plane_of_vertices_on_plane",
    "FacetSelection.minFold_eq_init_or_mem",
    "FacetSelection.minFold_le_init_and_le_of_mem",
    "FacetSelection.minFold_mem_unit_interval_of_mem_unit_interval",
)
DEFINITIONS = (
    "FacetSelection.barycentricPoint",
    "FacetSelection.ValidFacetCoordinates",
    "FacetSelection.minFold",
)
STRUCTURES = ("FacetSelection.Point3",)
#: Equation lemmas Lean generates (realizes on first reference) for the three definitions.
EQUATIONS = (
    "FacetSelection.minFold.eq_1",
    "FacetSelection.minFold.eq_2",
    "FacetSelection.minFold.eq_def",
    "FacetSelection.minFold.eq_unfold",
    "FacetSelection.barycentricPoint.eq_1",
    "FacetSelection.barycentricPoint.eq_def",
    "FacetSelection.barycentricPoint.eq_unfold",
    "FacetSelection.ValidFacetCoordinates.eq_1",
    "FacetSelection.ValidFacetCoordinates.eq_def",
    "FacetSelection.ValidFacetCoordinates.eq_unfold",
)
#: FacetSelection.lean's declarations, in the order of AxiomAudit.lean.
FACET_SELECTION_DECLARATIONS = THEOREMS + STRUCTURES + DEFINITIONS + EQUATIONS

# --- FirstHit.lean ------------------------------------------------------------------------------

FIRST_HIT_THEOREMS = tuple(
    "FirstHit." + n
    for n in (
        "point3_ext", "normal_dot_edges", "normal_swap_ab", "normal_swap_bc", "normal_swap_ac",
        "facing_eq_front_iff", "facing_eq_back_iff", "facing_of_normal_neg", "facing_swap_bc",
        "height_sub_height", "rat_mul_self_nonneg", "dot_self_ne_zero", "decompose_x",
        "decompose_y", "decompose_z", "height_pointAt_param", "barycentric_of_weights",
        "crossing_sound", "weightB_of_eq", "weightC_of_eq", "crossing_complete",
        "crossing_isSome_iff", "step_some", "step_le_crossing", "step_cases", "scan_some",
        "scan_mem", "scan_le_crossing", "scan_tie", "firstHit_mem", "firstHit_sound",
        "firstHit_complete", "firstHit_le_crossing", "firstHit_eq_none_iff",
        "firstHit_tie_crossing", "firstHit_tie", "mem_crossingTimes", "scan_some_t_eq_minFold",
        "scan_none_t_eq_minFold", "firstHit_t_eq_minFold",
    )
)
#: The theorems spec 004 and issue 16 name: cross product assembly, winding, soundness,
#: completeness and the tie rule (the others are the lemmas they rest on).
FIRST_HIT_MAIN_THEOREMS = tuple(
    "FirstHit." + n
    for n in (
        "normal_dot_edges", "normal_swap_ab", "normal_swap_bc", "normal_swap_ac",
        "facing_eq_front_iff", "facing_eq_back_iff", "facing_of_normal_neg", "facing_swap_bc",
        "crossing_sound", "crossing_complete", "firstHit_mem", "firstHit_sound",
        "firstHit_complete", "firstHit_le_crossing", "firstHit_eq_none_iff",
        "firstHit_tie_crossing", "firstHit_tie", "firstHit_t_eq_minFold",
    )
)
#: Definition -> number of equation lemmas ``eq_1 … eq_k`` Lean generates (one per equation
#: of its pattern match; found by ``#check``ing ``eq_1`` to ``eq_4``). Each also has
#: ``eq_def`` and ``eq_unfold``.
FIRST_HIT_DEFINITION_EQUATIONS = {
    "FirstHit.sub": 1, "FirstHit.dot": 1, "FirstHit.cross": 1, "FirstHit.neg": 1,
    "FirstHit.normal": 1, "FirstHit.Segment.dir": 1, "FirstHit.Segment.pointAt": 1,
    "FirstHit.Facing.flip": 2, "FirstHit.facing": 1, "FirstHit.height": 1, "FirstHit.param": 1,
    "FirstHit.weightB": 1, "FirstHit.weightC": 1, "FirstHit.crossing": 1,
    "FirstHit.ExactContact": 1, "FirstHit.mkHit": 1, "FirstHit.step": 3, "FirstHit.scan": 2,
    "FirstHit.firstHit": 1, "FirstHit.crossingTimes": 2,
}
FIRST_HIT_DEFINITIONS = tuple(FIRST_HIT_DEFINITION_EQUATIONS)
#: The structures and the inductive type (constructors, projections, recursors are reached).
FIRST_HIT_STRUCTURES = ("FirstHit.Triangle", "FirstHit.Segment", "FirstHit.Facing",
                        "FirstHit.Crossing", "FirstHit.Hit")
FIRST_HIT_EQUATIONS = tuple(
    f"{d}.{e}"
    for d, k in FIRST_HIT_DEFINITION_EQUATIONS.items()
    for e in [f"eq_{i}" for i in range(1, k + 1)] + ["eq_def", "eq_unfold"]
)
#: FirstHit.lean's declarations, in the order of AxiomAudit.lean.
FIRST_HIT_DECLARATIONS = FIRST_HIT_THEOREMS + FIRST_HIT_STRUCTURES + FIRST_HIT_DEFINITIONS + FIRST_HIT_EQUATIONS

# --- Culling.lean -------------------------------------------------------------------------------

CULLING_THEOREMS = tuple(
    "Culling." + n
    for n in (
        "between_of_inside", "slabAxis_keeps", "slabSeparated_sound", "nearBox_mono", "absR_le",
        "absR_bounds", "term_ge", "coord_near", "mul_within", "axis_near", "clamp_near",
        "classify_ne_miss_near", "culled_is_miss", "answerFrom_candidates", "answer_candidates",
        "classify_hit_crossing",
    )
)
#: The statements issue 27 names: slab soundness, a culled facet is a miss, the answer is kept.
CULLING_MAIN_THEOREMS = tuple(
    "Culling." + n
    for n in ("slabSeparated_sound", "classify_ne_miss_near", "culled_is_miss", "answer_candidates",
              "classify_hit_crossing")
)
#: Definition -> number of equation lemmas ``eq_1 … eq_k`` (found by ``#check``ing ``eq_1`` to
#: ``eq_8``); each also has ``eq_def`` and ``eq_unfold``.
CULLING_DEFINITION_EQUATIONS = {
    "Culling.NearBox": 1, "Culling.Contains": 1, "Culling.slabAxis": 1, "Culling.slabClip": 1,
    "Culling.slabSeparated": 1, "Culling.absR": 1, "Culling.triBox": 1, "Culling.segBox": 1,
    "Culling.boxesMeet": 1, "Culling.Bands.Valid": 1, "Culling.nearZero": 1, "Culling.classify": 1,
    "Culling.dirInf": 1, "Culling.width": 1, "Culling.reach": 1, "Culling.Cull.Valid": 2,
    "Culling.stepAnswer": 6, "Culling.answerFrom": 2, "Culling.answer": 1, "Culling.candidates": 2,
}
CULLING_DEFINITIONS = tuple(CULLING_DEFINITION_EQUATIONS)
CULLING_STRUCTURES = ("Culling.Box", "Culling.Bands", "Culling.Verdict", "Culling.Cull", "Culling.Answer",
                      "Culling.Facet")
CULLING_EQUATIONS = tuple(
    f"{d}.{e}"
    for d, k in CULLING_DEFINITION_EQUATIONS.items()
    for e in [f"eq_{i}" for i in range(1, k + 1)] + ["eq_def", "eq_unfold"]
)
#: Culling.lean's declarations, in the order of AxiomAudit.lean.
CULLING_DECLARATIONS = CULLING_THEOREMS + CULLING_STRUCTURES + CULLING_DEFINITIONS + CULLING_EQUATIONS

#: Lean source file -> the declarations of it the audit must report.
DECLARATIONS_BY_FILE = {
    "FacetSelection.lean": FACET_SELECTION_DECLARATIONS,
    "FirstHit.lean": FIRST_HIT_DECLARATIONS,
    "Culling.lean": CULLING_DECLARATIONS,
}

#: Every declaration the audit must report, in the order of AxiomAudit.lean.
EXPECTED_DECLARATIONS = FACET_SELECTION_DECLARATIONS + FIRST_HIT_DECLARATIONS + CULLING_DECLARATIONS

_RESULT_RE = re.compile(
    r"['`\u2018](?P<name>\S+?)['`\u2019] "
    r"(?:depends on axioms(?P<opaque> or opaque imports)?: \[(?P<deps>[^\]]*)\](?: \+(?P<hidden>\d+) opaque)?"
    r"|does not depend on any axioms(?: or opaque imports)?)"
)
_UNKNOWN_RE = re.compile(r"audit: unknown constant '(?P<name>\S+?)'$", re.MULTILINE)
_UNRESOLVED_RE = re.compile(
    r"audit: '(?P<name>\S+?)' reaches constants the checker cannot find: \[(?P<deps>[^\]]*)\]"
)
_ERROR_RE = re.compile(r"^(?:\S+:\d+:\d+: )?error\b.*$", re.MULTILINE)
_SORRY_RE = re.compile(r"declaration uses .sorry.")
_PRINT_AXIOMS_RE = re.compile(r"^#print axioms\s+(\S+)\s*$", re.MULTILINE)


@dataclasses.dataclass
class AuditReport:
    """Outcome of parsing one audit run.

    Attributes:
        mode: ``"lake"`` or ``"same-file"``.
        dependencies: declaration name -> the names it was reported to depend on.
        opaque_imports: declaration name -> opaque core imports listed by name (same-file mode
            only; the compact report lists none, it counts them).
        problems: one human-readable line per failure; empty when the audit passed.
        opaque_counts: declaration name -> opaque core imports counted but not listed
            (same-file mode, the ``+N opaque`` of the compact report).
    """

    mode: str
    dependencies: dict[str, list[str]]
    opaque_imports: dict[str, list[str]]
    problems: list[str]
    opaque_counts: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def summary(self) -> str:
        """A multi-line report: one line per declaration, then the problems."""
        lines = []
        for name, deps in self.dependencies.items():
            axioms = sorted(d for d in deps if d not in self.opaque_imports.get(name, ()))
            line = f"  {name}: axioms [{', '.join(axioms)}]"
            if self.mode == "same-file":
                n = len(self.opaque_imports.get(name, ())) + self.opaque_counts.get(name, 0)
                line += f", {n} opaque core imports"
            lines.append(line)
        lines += [f"  FAIL: {p}" for p in self.problems]
        return "\n".join(lines)


def _is_local(name: str) -> bool:
    return name.startswith(LOCAL_PREFIXES)


def parse_audit_output(
    text: str,
    expected: tuple[str, ...] | list[str] = EXPECTED_DECLARATIONS,
    mode: str = "lake",
    returncode: int = 0,
) -> AuditReport:
    """Parses the output of an audit run and checks it.

    Args:
        text: everything the run printed (stdout and stderr together).
        expected: the declarations that must be reported.
        mode: ``"lake"`` (real ``#print axioms``) or ``"same-file"`` (``#audit_axioms``).
        returncode: the exit status of the Lean process; non-zero is a failure.

    Returns:
        An :class:`AuditReport`; ``report.ok`` is False on any Lean error, any missing
        declaration, any axiom outside :data:`ALLOWED_AXIOMS` (lake mode), or any known
        non-standard or local axiom (same-file mode).
    """
    if mode not in ("lake", "same-file"):
        raise ValueError(f"unknown mode {mode!r}")
    problems: list[str] = []
    deps_of: dict[str, list[str]] = {}
    opaque_of: dict[str, list[str]] = {}
    hidden_of: dict[str, int] = {}
    for m in _RESULT_RE.finditer(text):
        deps = [d.strip() for d in (m.group("deps") or "").replace("\n", " ").split(",")]
        deps_of.setdefault(m.group("name"), []).extend(d for d in deps if d)
        if m.group("hidden") is not None:
            if mode == "lake":
                problems.append(f"{m.group('name')}: a same-file report (+N opaque) in lake mode")
            hidden_of[m.group("name")] = hidden_of.get(m.group("name"), 0) + int(m.group("hidden"))
    for m in _ERROR_RE.finditer(text):
        problems.append(f"Lean error: {m.group(0).strip()}")
    if _SORRY_RE.search(text):
        problems.append("Lean reports a declaration that uses sorry")
    for m in _UNKNOWN_RE.finditer(text):
        problems.append(f"unknown constant {m.group('name')}")
    for m in _UNRESOLVED_RE.finditer(text):
        problems.append(f"{m.group('name')} reaches unresolved constants: {m.group('deps')}")
    if returncode != 0:
        problems.append(f"Lean exited with status {returncode}")
    for name in expected:
        if name not in deps_of:
            problems.append(f"missing declaration: no axiom report for {name}")
    for name, deps in deps_of.items():
        opaque: list[str] = []
        for dep in dict.fromkeys(deps):
            if dep in ALLOWED_AXIOMS:
                continue
            if mode == "lake":
                problems.append(f"{name} depends on forbidden axiom {dep}")
            elif dep in KNOWN_FORBIDDEN_AXIOMS:
                problems.append(f"{name} depends on forbidden axiom {dep}")
            elif _is_local(dep):
                problems.append(f"{name} depends on {dep}, declared in the audited file as an axiom")
            else:
                opaque.append(dep)
        if mode == "same-file":
            opaque_of[name] = opaque
    return AuditReport(mode, deps_of, opaque_of, problems, hidden_of)


def audited_names(audit_source: str) -> list[str]:
    """The declarations named by ``#print axioms`` lines of AxiomAudit.lean, in order."""
    return _PRINT_AXIOMS_RE.findall(audit_source)


def check_audit_list(audit_source: str) -> list[str]:
    """Problems with AxiomAudit.lean's list compared with :data:`EXPECTED_DECLARATIONS`."""
    names = audited_names(audit_source)
    problems = [f"AxiomAudit.lean does not audit {n}" for n in EXPECTED_DECLARATIONS if n not in names]
    problems += [f"AxiomAudit.lean audits unexpected {n}" for n in names if n not in EXPECTED_DECLARATIONS]
    problems += [f"AxiomAudit.lean audits {n} twice" for n in set(names) if names.count(n) > 1]
    return problems


#: The Lean files the same-file audit file is made of, in order (the first three are also
#: standalone modules that import only ``Init``; SameFileAudit.lean, a ``module`` that imports
#: ``Lean.Elab.Command``, is only a fragment).
SAME_FILE_FRAGMENTS = ("FacetSelection.lean", "FirstHit.lean", "Culling.lean", "SameFileAudit.lean")

#: The kernel axioms the compact same-file report lists by name wherever they are reached.
WATCHED_AXIOMS = tuple(sorted(ALLOWED_AXIOMS)) + tuple(sorted(KNOWN_FORBIDDEN_AXIOMS))


def project_imports(source: str, project: Path = HERE) -> list[str]:
    """The modules of this project that a Lean source imports."""
    local_modules = {p.stem for p in project.glob("*.lean")}
    imports, _ = _split_imports(source)
    return [_imported(i) for i in imports if _imported(i) in local_modules]


#: A header line of a Lean file: ``module``, or an import with its optional ``public``/``meta``.
_HEADER_LINE = re.compile(r"module|(?:public )?(?:meta )?import \S+")


def _imported(header_line: str) -> str | None:
    """The module an ``import`` header line names (None for ``module``)."""
    return header_line.split()[-1] if header_line != "module" else None


def _split_imports(source: str) -> tuple[list[str], str]:
    """Separates the leading header lines (``module`` and the imports) of a Lean file from the
    rest."""
    imports, body = [], []
    for line in source.splitlines():
        if not body and _HEADER_LINE.fullmatch(line.strip()):
            imports.append(line.strip())
        elif line.strip() == "" and not body:
            continue
        else:
            body.append(line)
    return imports, "\n".join(body) + "\n"


def _join_headers(headers: list[str]) -> str:
    """Header lines as one block, ``module`` (which Lean accepts only as the first token) first."""
    ordered = [h for h in headers if h == "module"] + [h for h in headers if h != "module"]
    return "\n".join(ordered) + "\n\n" if ordered else ""


def concatenated_source(file: str, project: Path = HERE, extra: str = "") -> str:
    """One self-contained Lean file for a checker of one file: ``file`` with every module of
    this project it imports (transitively) inlined before it, dependencies first, and their
    non-project ``import`` lines (deduplicated) at the top; ``extra`` is appended.

    A one-file checker cannot import ``FacetSelection`` from ``FirstHit.lean`` (no olean of
    it exists), so the imported module's text is checked in the same file instead."""
    local_modules = {p.stem for p in project.glob("*.lean")}
    order: list[str] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in trail:
            raise ValueError(f"import cycle: {' -> '.join(trail + (name,))}")
        imps, _ = _split_imports((project / f"{name}.lean").read_text(encoding="utf-8"))
        for i in imps:
            if _imported(i) in local_modules:
                visit(_imported(i), trail + (name,))
        order.append(name)

    visit(Path(file).stem, ())
    return _inlined([f"{name}.lean" for name in order], project) + extra


def _inlined(files: list[str], project: Path) -> str:
    """``files`` of ``project`` as one Lean file: their non-project header lines (deduplicated,
    ``module`` first), serial elaboration, then each file's body after a ``-- from`` line."""
    local_modules = {p.stem for p in project.glob("*.lean")}
    imports: list[str] = []
    bodies: list[str] = []
    for name in files:
        imps, body = _split_imports((project / name).read_text(encoding="utf-8"))
        imports += [i for i in imps if _imported(i) not in local_modules and i not in imports]
        bodies.append(f"-- from {name}\n{body}")
    return _join_headers(imports) + SERIAL_ELABORATION + "\n" + "\n".join(bodies)


def same_file_source(project: Path = HERE) -> str:
    """The single Lean file that same-file mode checks (see the module docstring)."""
    names = audited_names((project / "AxiomAudit.lean").read_text(encoding="utf-8"))
    # A named declaration referencing each name realizes generated equation lemmas where a
    # later command can look them up (see SameFileAudit.lean).
    refs = "\n".join(f"noncomputable def auditRef{i} := @{n}" for i, n in enumerate(names))
    # One command for all names: each walk stops at the other audited names (SameFileAudit.lean).
    audit_lines = ("#audit_axioms_all\n" + "\n".join(f"  {n}" for n in names)
                   + "\n  watching " + " ".join(WATCHED_AXIOMS))
    return (
        _inlined(list(SAME_FILE_FRAGMENTS), project)
        + "\n-- references, then the names of the #print axioms lines of AxiomAudit.lean\n"
        + refs + "\n" + audit_lines + "\n"
    )


#: Written after the imports of every file this module generates: elaborating theorems one after
#: another instead of as concurrent tasks keeps the WebAssembly checker's memory near its base
#: (measured on the audit file, which imports Lean: 3.4 GB instead of 13 GB, same CPU time).
SERIAL_ELABORATION = "set_option Elab.async false\n"

#: Lean runs of these tools take this lock in turn: one WebAssembly check needs about 2 GB.
LOCK_PATH = Path(tempfile.gettempdir()) / "proofs_lean-check.lock"


# The WebAssembly checker writes its output with synchronous writes to a non-blocking pipe (its
# wrapper's, read by awk); when that pipe is full the write fails with EAGAIN, which its runtime
# turns into EIO and Lean reports as this message, then stops. Reproduced on 2026-12-02 by
# letting the checker print 300 KB into a pipe whose reader sleeps; the old audit printed about
# 90 KB in one burst, so it aborted whenever the machine was too loaded to drain the pipe in
# time. The remedy is output far below the pipe's 64 KiB (the compact audit report, every run
# measured). A run that still aborts this way says nothing about the proofs: it is rerun, at
# most RUNTIME_RETRIES times, and each rerun is reported (in the output, on stderr and in
# RERUNS), never silent; a Lean error is never rerun.
RUNTIME_FAULT = "hardware fault (error code:"
RUNTIME_RETRIES = 2

#: A run whose output exceeds this many bytes is reported: it is half the 64 KiB a Linux pipe
#: holds, past which a slow reader aborts the checker (see RUNTIME_FAULT).
OUTPUT_WARN_BYTES = 32 * 1024

#: Every rerun of this process, as (command, attempt, output bytes of the aborted run).
RERUNS: list[tuple[str, int, int]] = []

#: Every run of this process, as (command, status, seconds, output bytes).
RUNS: list[tuple[str, int, float, int]] = []


def run_lean_command(cmd: list[str], cwd: Path, timeout: float = 1800) -> tuple[int, str]:
    """Runs one Lean or Lake command (one at a time across processes); returns (status, output).
    A run that the WebAssembly runtime aborts (``RUNTIME_FAULT``) is rerun up to
    ``RUNTIME_RETRIES`` times; the returned output notes each rerun, and so does stderr."""
    notes = ""
    for attempt in range(RUNTIME_RETRIES + 1):
        start = time.monotonic()
        rc, out = _run_once(cmd, cwd, timeout)
        size = len(out.encode("utf-8", "replace"))
        RUNS.append((" ".join(cmd), rc, time.monotonic() - start, size))
        if size > OUTPUT_WARN_BYTES:
            notes += (f"note: this Lean run printed {size} bytes, near the 64 KiB its output pipe holds "
                      f"(a full pipe aborts the WebAssembly checker)\n")
            print(notes.splitlines()[-1], file=sys.stderr)
        if rc == 0 or RUNTIME_FAULT not in out or attempt == RUNTIME_RETRIES:
            return rc, notes + out
        RERUNS.append((" ".join(cmd), attempt + 1, size))
        notes += f"note: the Lean runtime aborted ({RUNTIME_FAULT} ...); rerun {attempt + 1}\n"
        print(notes.splitlines()[-1], file=sys.stderr)
    return rc, notes + out


#: The glibc tunables the checker runs with: one malloc arena for all its threads (the main
#: thread and four pthread workers each took one) and freed memory given back at once.
SMALL_HEAP_MALLOC = {"MALLOC_ARENA_MAX": "1", "MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_MMAP_THRESHOLD_": "131072"}

#: Preloaded into every Node.js process of the checker (sets V8's ``--optimize-for-size``, and
#: empties the pre-started pthread pool of ``lean.js``).
SMALL_HEAP_PRELOAD = HERE / "node_small_heap.js"


def checker_env(base: dict | None = None) -> dict:
    """The environment a checker command runs in: ``base`` (default ``os.environ``) with the
    small-heap settings of docs/decisions.md ("Lean: the checker's memory, lowered from
    outside"): the glibc tunables above unless ``base`` sets them, and ``NODE_OPTIONS``
    extended (never replaced: ``base``'s options first) with the preload and a 1 MiB young
    generation; the preload also starts the checker's pthread workers on demand instead of a
    pool of four ("Lean: pthread workers on demand"). Together they lower the WebAssembly
    checker's peak from about 3.1 to 1.1 GB on a one-line file and change nothing it prints;
    ``lake`` and a native ``lean`` ignore them."""
    env = dict(os.environ if base is None else base)
    for k, v in SMALL_HEAP_MALLOC.items():
        env.setdefault(k, v)
    ours = f'--require "{SMALL_HEAP_PRELOAD}" --max-semi-space-size=1'
    env["NODE_OPTIONS"] = f"{env['NODE_OPTIONS']} {ours}" if env.get("NODE_OPTIONS") else ours
    return env


def _run_once(cmd: list[str], cwd: Path, timeout: float) -> tuple[int, str]:
    # The output goes to a file, not a pipe of ours: a reader that falls behind cannot fill it.
    with open(LOCK_PATH, "a") as lock, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as sink:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            proc = subprocess.run(cmd, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT, timeout=timeout,
                                  env=checker_env())
        except subprocess.TimeoutExpired:
            sink.seek(0)
            return 124, sink.read() + f"\nerror: timed out after {timeout:.0f} s: {' '.join(cmd)}\n"
        except OSError as exc:
            return 127, f"error: cannot run {' '.join(cmd)}: {exc}\n"
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
        sink.seek(0)
        return proc.returncode, sink.read()


def run_lake(project: Path = HERE, timeout: float = 1800) -> AuditReport:
    """``lake build`` then ``lake env lean AxiomAudit.lean``, parsed in lake mode."""
    problems = check_audit_list((project / "AxiomAudit.lean").read_text(encoding="utf-8"))
    rc, out = run_lean_command(["lake", "build"], project, timeout)
    if rc != 0 or _ERROR_RE.search(out):
        report = AuditReport("lake", {}, {}, problems + [f"lake build failed (status {rc})"])
        report.problems += [f"Lean error: {m.group(0).strip()}" for m in _ERROR_RE.finditer(out)]
        return report
    rc, out = run_lean_command(["lake", "env", "lean", "AxiomAudit.lean"], project, timeout)
    report = parse_audit_output(out, mode="lake", returncode=rc)
    report.problems[:0] = problems
    return report


def run_same_file(lean: str, project: Path = HERE, timeout: float = 1800) -> AuditReport:
    """Checks the concatenated file with the one-file checker ``lean``, parsed in same-file mode."""
    problems = check_audit_list((project / "AxiomAudit.lean").read_text(encoding="utf-8"))
    stage = Path(tempfile.mkdtemp(prefix="facet-audit-"))
    try:
        path = stage / "FacetSelectionAudit.lean"
        path.write_text(same_file_source(project), encoding="utf-8")
        rc, out = run_lean_command([lean, str(path)], stage, timeout)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    report = parse_audit_output(out, mode="same-file", returncode=rc)
    report.problems[:0] = problems
    return report


def resolve_lean(value: str | None) -> str | None:
    """An executable path for ``value`` (relative paths against the current directory)."""
    if not value:
        return None
    path = Path(os.path.expanduser(value))
    if not path.is_absolute():
        path = Path.cwd() / path
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("auto", "lake", "same-file"), default="auto")
    parser.add_argument("--lean", default=os.environ.get("LEAN"), help="one-file checker (default $LEAN)")
    args = parser.parse_args(argv)
    mode = args.mode
    if mode == "auto":
        mode = "lake" if shutil.which("lake") else "same-file"
    start = time.monotonic()
    if mode == "lake":
        if not shutil.which("lake"):
            print("audit: FAILED to start: lake is not on PATH", file=sys.stderr)
            return 2
        report = run_lake()
    else:
        lean = resolve_lean(args.lean)
        if lean is None:
            print(f"audit: FAILED to start: no lake on PATH and LEAN={args.lean!r} is not an executable",
                  file=sys.stderr)
            return 2
        report = run_same_file(lean)
    elapsed = time.monotonic() - start
    print(f"axiom audit ({report.mode} mode, {len(report.dependencies)} declarations, {elapsed:.0f} s):")
    print(report.summary())
    if report.ok:
        print(f"axiom audit PASSED: none of the {len(EXPECTED_DECLARATIONS)} declarations depends on an "
              f"axiom beyond {', '.join(sorted(ALLOWED_AXIOMS))}"
              + (" (imported core proofs are opaque to this checker)" if report.mode == "same-file" else ""))
        return 0
    print(f"axiom audit FAILED: {len(report.problems)} problem(s)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
