"""Source checks of proofs_lean/ that run without Lean: forbidden tokens, the public
declarations, their exact statements, docstrings and the project files."""

from __future__ import annotations

import tomllib

import pytest

from tests.lean import leansource as L
from tests.lean.leanpaths import PROOFS, load_audit

FACET = PROOFS / "FacetSelection.lean"
LEAN_FILES = sorted(p for p in PROOFS.rglob("*.lean") if ".lake" not in p.parts)

#: The six theorem statements, recorded (whitespace-normalized, text before `:=`).
THEOREM_STATEMENTS = {
    "nonneg_weights_of_valid":
        "theorem nonneg_weights_of_valid {α β γ : Rat} (h : ValidFacetCoordinates α β γ) : "
        "0 ≤ α ∧ 0 ≤ β ∧ 0 ≤ γ",
    "sum_weights_eq_one_of_valid":
        "theorem sum_weights_eq_one_of_valid {α β γ : Rat} (h : ValidFacetCoordinates α β γ) : "
        "α + β + γ = 1",
    "barycentricPoint_on_plane_of_vertices_on_plane":
        "theorem barycentricPoint_on_plane_of_vertices_on_plane {a b c n : Point3} {d α β γ : Rat} "
        "(h : ValidFacetCoordinates α β γ) (ha : n.x * a.x + n.y * a.y + n.z * a.z = d) "
        "(hb : n.x * b.x + n.y * b.y + n.z * b.z = d) (hc : n.x * c.x + n.y * c.y + n.z * c.z = d) : "
        "n.x * (barycentricPoint a b c α β γ).x + n.y * (barycentricPoint a b c α β γ).y "
        "+ n.z * (barycentricPoint a b c α β γ).z = d",
    "minFold_eq_init_or_mem":
        "theorem minFold_eq_init_or_mem (best : Rat) (cs : List Rat) : "
        "minFold best cs = best ∨ minFold best cs ∈ cs",
    "minFold_le_init_and_le_of_mem":
        "theorem minFold_le_init_and_le_of_mem (best : Rat) (cs : List Rat) : "
        "minFold best cs ≤ best ∧ ∀ c ∈ cs, minFold best cs ≤ c",
    "minFold_mem_unit_interval_of_mem_unit_interval":
        "theorem minFold_mem_unit_interval_of_mem_unit_interval (best : Rat) (cs : List Rat) "
        "(h0 : 0 ≤ best ∧ best ≤ 1) (hcs : ∀ c ∈ cs, 0 ≤ c ∧ c ≤ 1) : "
        "0 ≤ minFold best cs ∧ minFold best cs ≤ 1",
}

#: The three definitions and the structure, recorded in full (whitespace-normalized).
DEFINITION_TEXTS = {
    "barycentricPoint":
        "def barycentricPoint (a b c : Point3) (α β γ : Rat) : Point3 := "
        "⟨α * a.x + β * b.x + γ * c.x, α * a.y + β * b.y + γ * c.y, α * a.z + β * b.z + γ * c.z⟩",
    "ValidFacetCoordinates":
        "def ValidFacetCoordinates (α β γ : Rat) : Prop := 0 ≤ α ∧ 0 ≤ β ∧ 0 ≤ γ ∧ α + β + γ = 1",
    "minFold":
        "def minFold : Rat → List Rat → Rat | best, [] => best | best, c :: cs => minFold (min best c) cs",
}
STRUCTURE_TEXTS = {"Point3": "structure Point3 where x : Rat y : Rat z : Rat"}


def _decls():
    return L.declarations(FACET.read_text(encoding="utf-8"))


# --- the lexer the other checks rely on ------------------------------------------------------

def test_forbidden_token_found_in_code_but_not_in_comments_or_strings():
    src = (
        '/-! module text: sorry -/\n-- admit\n/-- a /- nested unsafe -/ doc -/\n'
        'def s := "native_decide"\ntheorem t : True := by\n  sorry\naxiom a : False\n'
    )
    assert L.forbidden_tokens(src) == [(6, "sorry"), (7, "axiom")]


def test_forbidden_tokens_are_whole_tokens():
    assert L.forbidden_tokens("#print axioms foo\ndef sorryAx2 := 1\ndef x.admit_ := 2\n") == []
    assert L.forbidden_tokens("theorem t : P := by native_decide\n") == [(1, "native_decide")]


# --- the sources ------------------------------------------------------------------------------

def test_there_are_lean_sources():
    assert {p.name for p in LEAN_FILES} >= {"FacetSelection.lean", "AxiomAudit.lean", "SameFileAudit.lean"}


@pytest.mark.parametrize("path", LEAN_FILES, ids=lambda p: p.name)
def test_no_forbidden_tokens(path):
    assert L.forbidden_tokens(path.read_text(encoding="utf-8")) == []


def test_facet_selection_has_exactly_the_recorded_public_declarations():
    decls = _decls()
    theorems = {n for n, (k, _) in decls.items() if k == "theorem"}
    defs = {n for n, (k, _) in decls.items() if k == "def"}
    structures = {n for n, (k, _) in decls.items() if k == "structure"}
    assert theorems == set(THEOREM_STATEMENTS)
    assert defs == set(DEFINITION_TEXTS)
    assert structures == set(STRUCTURE_TEXTS)


@pytest.mark.parametrize("name", sorted(THEOREM_STATEMENTS))
def test_theorem_statement_unchanged(name):
    kind, text = _decls()[name]
    assert kind == "theorem"
    assert L.theorem_statement(text) == THEOREM_STATEMENTS[name]


@pytest.mark.parametrize("name", sorted(DEFINITION_TEXTS) + sorted(STRUCTURE_TEXTS))
def test_definition_unchanged(name):
    _, text = _decls()[name]
    assert text == {**DEFINITION_TEXTS, **STRUCTURE_TEXTS}[name]


def test_facet_selection_imports_nothing_beyond_core():
    code = L.strip_comments_and_strings(FACET.read_text(encoding="utf-8"))
    assert [l for l in code.splitlines() if l.startswith("import")] == []
    assert "namespace FacetSelection" in code and "end FacetSelection" in code


def test_module_docstring_and_declaration_docstrings():
    src = FACET.read_text(encoding="utf-8")
    assert src.startswith("/-!\n# ")
    header = src[: src.index("-/")]
    for section in ("## Main definitions", "## Main statements"):
        assert section in header
    assert "dyadic rational" in header and "binary64" in header and "binary32" in header
    for name, (kind, _) in _decls().items():
        assert L.docstring_precedes(src, kind, name), f"{kind} {name} has no /-- -/ docstring"
        assert f"FacetSelection.{name}" in header, f"{name} missing from the module docstring"


def test_audit_covers_every_declaration_of_the_source():
    audit = load_audit()
    names = {f"FacetSelection.{n}" for n in _decls()}
    assert names == set(audit.THEOREMS) | set(audit.DEFINITIONS) | set(audit.STRUCTURES)
    assert all(e.rsplit(".", 1)[0] in audit.DEFINITIONS for e in audit.EQUATIONS)


def test_project_files():
    assert (PROOFS / "lean-toolchain").read_text() == "leanprover/lean4:v4.28.0\n"
    lakefile = tomllib.loads((PROOFS / "lakefile.toml").read_text())
    assert "require" not in lakefile, "Lean core only: no dependencies"
    assert [lib["name"] for lib in lakefile["lean_lib"]] == ["FacetSelection"]
    assert lakefile["defaultTargets"] == ["FacetSelection"]
