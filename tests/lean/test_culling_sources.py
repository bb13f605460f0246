"""Source checks of proofs_lean/Culling.lean that run without Lean: what it imports, its
declarations against the audit list, the recorded statements of the issue-27 theorems and the
definitions they are about, and the docstrings."""

from __future__ import annotations

import pytest

from tests.lean import leansource as L
from tests.lean.leanpaths import PROOFS, load_audit

CULLING = PROOFS / "Culling.lean"

#: The statements issue 27 asks for, recorded (whitespace-normalized, text before `:=`).
STATEMENTS = {
    "slabSeparated_sound":
        "theorem slabSeparated_sound {B : Box} {μ : Rat} {S : Segment} (hs : slabSeparated B μ S = true) "
        "{t : Rat} (h0 : 0 ≤ t) (h1 : t ≤ 1) : ¬ NearBox B μ (S.pointAt t)",
    "classify_ne_miss_near":
        "theorem classify_ne_miss_near {B : Bands} {T : Triangle} {S : Segment} (hB : B.Valid) "
        "(hpar : B.par < absR (dot (normal T) S.dir)) (hv : classify B T S ≠ .miss) : "
        "∃ t, 0 ≤ t ∧ t ≤ 1 ∧ NearBox (triBox T) (reach B T S) (S.pointAt t)",
    "culled_is_miss":
        "theorem culled_is_miss {B : Bands} {T : Triangle} {S : Segment} {c : Cull} (hB : B.Valid) "
        "(hc : c.Valid B T S) : classify B T S = .miss",
    "answer_candidates":
        "theorem answer_candidates (S : Segment) (cull : Facet → Option Cull) (Fs : List Facet) "
        "(hvalid : ∀ F ∈ Fs, ∀ c, cull F = some c → F.bands.Valid ∧ c.Valid F.bands F.tri S) : "
        "answer S (candidates cull Fs) = answer S Fs",
    "classify_hit_crossing":
        "theorem classify_hit_crossing {B : Bands} {T : Triangle} {S : Segment} {c : Crossing} "
        "(hB : B.Valid) (h : classify B T S = .hit c) : crossing T S = some c",
}

#: Definitions the statements are about, recorded in full: a weakened definition (a margin
#: that ignores a band, a slab test that drops an axis) would change a statement's meaning.
DEFINITIONS = {
    "reach": "def reach (B : Bands) (T : Triangle) (S : Segment) : Rat := B.bt * dirInf S + 3 * (B.bw * width T)",
    "NearBox":
        "def NearBox (B : Box) (μ : Rat) (p : Point3) : Prop := B.lo.x - μ ≤ p.x ∧ p.x ≤ B.hi.x + μ ∧ "
        "B.lo.y - μ ≤ p.y ∧ p.y ≤ B.hi.y + μ ∧ B.lo.z - μ ≤ p.z ∧ p.z ≤ B.hi.z + μ",
    "slabClip":
        "def slabClip (B : Box) (μ : Rat) (S : Segment) : Option (Rat × Rat) := match slabAxis (B.lo.x - μ) "
        "(B.hi.x + μ) S.s.x (S.e.x - S.s.x) 0 1 with | none => none | some (te, tx) => match slabAxis "
        "(B.lo.y - μ) (B.hi.y + μ) S.s.y (S.e.y - S.s.y) te tx with | none => none | some (te, tx) => "
        "slabAxis (B.lo.z - μ) (B.hi.z + μ) S.s.z (S.e.z - S.s.z) te tx",
    "candidates":
        "def candidates (cull : Facet → Option Cull) : List Facet → List Facet | [] => [] | F :: Fs => "
        "match cull F with | none => F :: candidates cull Fs | some _ => candidates cull Fs",
}


def _decls():
    return L.declarations(CULLING.read_text(encoding="utf-8"))


def test_culling_imports_exactly_first_hit():
    code = L.strip_comments_and_strings(CULLING.read_text(encoding="utf-8"))
    assert [l for l in code.splitlines() if l.startswith("import")] == ["import FirstHit"]
    assert "namespace Culling" in code and "end Culling" in code


def test_culling_declarations_are_exactly_the_audited_ones():
    audit = load_audit()
    decls = _decls()
    by_kind = lambda *ks: {f"Culling.{n}" for n, (k, _) in decls.items() if k in ks}
    assert by_kind("theorem") == set(audit.CULLING_THEOREMS)
    assert by_kind("def") == set(audit.CULLING_DEFINITIONS)
    assert by_kind("structure", "inductive") == set(audit.CULLING_STRUCTURES)
    assert set(audit.CULLING_MAIN_THEOREMS) <= set(audit.CULLING_THEOREMS)
    assert len(audit.CULLING_DECLARATIONS) == len(set(audit.CULLING_DECLARATIONS))
    assert set(audit.CULLING_DECLARATIONS) <= set(audit.EXPECTED_DECLARATIONS)


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_main_statement_unchanged(name):
    kind, text = _decls()[name]
    assert kind == "theorem"
    assert L.theorem_statement(text) == STATEMENTS[name]


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_definition_unchanged(name):
    assert _decls()[name][1] == DEFINITIONS[name]


def test_docstrings_and_the_float_side_is_named():
    src = CULLING.read_text(encoding="utf-8")
    assert src.startswith("import FirstHit\n\n/-!\n# ")
    header = src[: src.index("-/")]
    for section in ("## The model", "## Main statements", "## What is not proved here", "_slab_miss",
                    "_node_margin", "checked by tests"):
        assert section in header
    for name, (kind, _) in _decls().items():
        assert L.docstring_precedes(src, kind, name), f"{kind} {name} has no /-- -/ docstring"
    for name in STATEMENTS:
        assert f"Culling.{name}" in header
