"""Source checks of proofs_lean/ that run without Lean: forbidden tokens, the public
declarations, their exact statements, docstrings and the project files."""

from __future__ import annotations

import tomllib

import pytest

from tests.lean import leansource as L
from tests.lean.leanpaths import PROOFS, load_audit

FACET = PROOFS / "FacetSelection.lean"
FIRST_HIT = PROOFS / "FirstHit.lean"
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
    assert {p.name for p in LEAN_FILES} >= {"FacetSelection.lean", "FirstHit.lean", "Culling.lean",
                                             "AxiomAudit.lean", "SameFileAudit.lean"}


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
    assert [lib["name"] for lib in lakefile["lean_lib"]] == ["FacetSelection", "FirstHit", "Culling"]
    assert lakefile["defaultTargets"] == ["FacetSelection", "FirstHit", "Culling"]


# --- FirstHit.lean ------------------------------------------------------------------------------

FIRST_HIT_STATEMENTS = {
    "normal_dot_edges":
        'theorem normal_dot_edges (T : Triangle) : dot (normal T) (sub T.b T.a) = 0 ∧ dot '
        '(normal T) (sub T.c T.a) = 0',
    "normal_swap_ab":
        'theorem normal_swap_ab (a b c : Point3) : normal ⟨b, a, c⟩ = neg (normal ⟨a, b, '
        'c⟩)',
    "normal_swap_bc":
        'theorem normal_swap_bc (a b c : Point3) : normal ⟨a, c, b⟩ = neg (normal ⟨a, b, '
        'c⟩)',
    "normal_swap_ac":
        'theorem normal_swap_ac (a b c : Point3) : normal ⟨c, b, a⟩ = neg (normal ⟨a, b, '
        'c⟩)',
    "facing_eq_front_iff":
        'theorem facing_eq_front_iff (T : Triangle) (S : Segment) : facing T S = .front ↔ '
        'dot (normal T) S.dir < 0',
    "facing_eq_back_iff":
        'theorem facing_eq_back_iff (T : Triangle) (S : Segment) : facing T S = .back ↔ 0 '
        '≤ dot (normal T) S.dir',
    "facing_of_normal_neg":
        "theorem facing_of_normal_neg {T T' : Triangle} (S : Segment) (hn : normal T' = "
        "neg (normal T)) (hd : dot (normal T) S.dir ≠ 0) : facing T' S = (facing T "
        'S).flip',
    "facing_swap_bc":
        'theorem facing_swap_bc (a b c : Point3) (S : Segment) (hd : dot (normal ⟨a, b, '
        'c⟩) S.dir ≠ 0) : facing ⟨a, c, b⟩ S = (facing ⟨a, b, c⟩ S).flip',
    "crossing_sound":
        'theorem crossing_sound {T : Triangle} {S : Segment} {c : Crossing} (h : crossing '
        'T S = some c) : ExactContact T S c.t c.α c.β c.γ',
    "crossing_complete":
        'theorem crossing_complete {T : Triangle} {S : Segment} {t α β γ : Rat} (h : '
        'ExactContact T S t α β γ) : crossing T S = some ⟨t, α, β, γ⟩',
    "firstHit_mem":
        'theorem firstHit_mem {Ts : List Triangle} {S : Segment} {h : Hit} (hh : firstHit '
        'Ts S = some h) : ∃ T, Ts[h.index]? = some T ∧ crossing T S = some ⟨h.t, h.α, '
        'h.β, h.γ⟩ ∧ h.facing = facing T S',
    "firstHit_sound":
        'theorem firstHit_sound {Ts : List Triangle} {S : Segment} {h : Hit} (hh : '
        'firstHit Ts S = some h) : ∃ T, Ts[h.index]? = some T ∧ 0 ≤ h.t ∧ h.t ≤ 1 ∧ '
        'ValidFacetCoordinates h.α h.β h.γ ∧ dot (normal T) (barycentricPoint T.a T.b T.c '
        'h.α h.β h.γ) = dot (normal T) T.a ∧ barycentricPoint T.a T.b T.c h.α h.β h.γ = '
        'S.pointAt h.t ∧ dot (normal T) S.dir ≠ 0 ∧ h.facing = facing T S',
    "firstHit_complete":
        'theorem firstHit_complete {Ts : List Triangle} {S : Segment} {j : Nat} {T : '
        "Triangle} {t' α β γ : Rat} (hj : Ts[j]? = some T) (hc : ExactContact T S t' α β "
        "γ) : ∃ h, firstHit Ts S = some h ∧ h.t ≤ t'",
    "firstHit_le_crossing":
        'theorem firstHit_le_crossing {Ts : List Triangle} {S : Segment} {j : Nat} {T : '
        'Triangle} {c : Crossing} (hj : Ts[j]? = some T) (hc : crossing T S = some c) : ∃ '
        'h, firstHit Ts S = some h ∧ h.t ≤ c.t',
    "firstHit_eq_none_iff":
        'theorem firstHit_eq_none_iff (Ts : List Triangle) (S : Segment) : firstHit Ts S '
        '= none ↔ ∀ (j : Nat) (T : Triangle) (t α β γ : Rat), Ts[j]? = some T → ¬ '
        'ExactContact T S t α β γ',
    "firstHit_tie_crossing":
        'theorem firstHit_tie_crossing {Ts : List Triangle} {S : Segment} {h : Hit} {j : '
        'Nat} {T : Triangle} {c : Crossing} (hh : firstHit Ts S = some h) (hj : Ts[j]? = '
        'some T) (hc : crossing T S = some c) (ht : c.t = h.t) : h.index ≤ j',
    "firstHit_t_eq_minFold":
        'theorem firstHit_t_eq_minFold (Ts : List Triangle) (S : Segment) : (crossingTimes S Ts = [] ∧ '
        'firstHit Ts S = none) ∨ ∃ c cs h, crossingTimes S Ts = c :: cs ∧ firstHit Ts S = some h ∧ '
        'h.t = minFold c cs',
    "firstHit_tie":
        'theorem firstHit_tie {Ts : List Triangle} {S : Segment} {h : Hit} {j : Nat} {T : '
        'Triangle} {α β γ : Rat} (hh : firstHit Ts S = some h) (hj : Ts[j]? = some T) (hc '
        ': ExactContact T S h.t α β γ) : h.index ≤ j',
}
FIRST_HIT_DEFINITION_TEXTS = {
    "crossingTimes":
        'def crossingTimes (S : Segment) : List Triangle → List Rat | [] => [] | T :: Ts => match '
        'crossing T S with | none => crossingTimes S Ts | some c => c.t :: crossingTimes S Ts',
    "normal":
        'def normal (T : Triangle) : Point3 := cross (sub T.b T.a) (sub T.c T.a)',
    "facing":
        'def facing (T : Triangle) (S : Segment) : Facing := if dot (normal T) S.dir < 0 '
        'then .front else .back',
    "crossing":
        'def crossing (T : Triangle) (S : Segment) : Option Crossing := if height T S.s = '
        'height T S.e then none else if 0 ≤ param T S ∧ param T S ≤ 1 ∧ 0 ≤ 1 - weightB T '
        '(S.pointAt (param T S)) - weightC T (S.pointAt (param T S)) ∧ 0 ≤ weightB T '
        '(S.pointAt (param T S)) ∧ 0 ≤ weightC T (S.pointAt (param T S)) then some ⟨param '
        'T S, 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S)), '
        'weightB T (S.pointAt (param T S)), weightC T (S.pointAt (param T S))⟩ else none',
    "ExactContact":
        'def ExactContact (T : Triangle) (S : Segment) (t α β γ : Rat) : Prop := dot '
        '(normal T) S.dir ≠ 0 ∧ 0 ≤ t ∧ t ≤ 1 ∧ ValidFacetCoordinates α β γ ∧ '
        'barycentricPoint T.a T.b T.c α β γ = S.pointAt t',
    "step":
        'def step (S : Segment) (i : Nat) (T : Triangle) (best : Option Hit) : Option Hit '
        ':= match crossing T S, best with | none, _ => best | some c, none => some (mkHit '
        'i T S c) | some c, some h => if c.t < h.t then some (mkHit i T S c) else some h',
    "scan":
        'def scan (S : Segment) : Nat → List Triangle → Option Hit → Option Hit | _, [], '
        'best => best | i, T :: Ts, best => scan S (i + 1) Ts (step S i T best)',
    "firstHit":
        'def firstHit (Ts : List Triangle) (S : Segment) : Option Hit := scan S 0 Ts none',
}


def _first_hit_decls():
    return L.declarations(FIRST_HIT.read_text(encoding="utf-8"))


@pytest.mark.parametrize("token", ["sorry", "admit", "native_decide", "axiom"])
def test_source_check_rejects_each_forbidden_token_planted_in_first_hit(token):
    """The forbidden-token check is what keeps these out of FirstHit.lean: planting each one
    in a proof or as a declaration is reported with its line."""
    src = FIRST_HIT.read_text(encoding="utf-8")
    assert L.forbidden_tokens(src) == []
    if token == "axiom":
        planted = src.replace("end FirstHit", "axiom trustMe : False\n\nend FirstHit")
    else:
        planted = src.replace(":=\n  firstHit_tie_crossing hh hj (crossing_complete hc) rfl", f":= by\n  {token}")
    assert planted != src
    found = L.forbidden_tokens(planted)
    assert [t for _, t in found] == [token]
    assert token in planted.splitlines()[found[0][0] - 1]


def test_first_hit_imports_exactly_facet_selection():
    code = L.strip_comments_and_strings(FIRST_HIT.read_text(encoding="utf-8"))
    assert [l for l in code.splitlines() if l.startswith("import")] == ["import FacetSelection"]
    assert "namespace FirstHit" in code and "end FirstHit" in code and "open FacetSelection" in code


def test_first_hit_declarations_are_exactly_the_audited_ones():
    audit = load_audit()
    decls = _first_hit_decls()
    by_kind = lambda *ks: {f"FirstHit.{n}" for n, (k, _) in decls.items() if k in ks}
    assert by_kind("theorem") == set(audit.FIRST_HIT_THEOREMS)
    assert by_kind("def") == set(audit.FIRST_HIT_DEFINITIONS)
    assert by_kind("structure", "inductive") == set(audit.FIRST_HIT_STRUCTURES)
    assert set(audit.FIRST_HIT_MAIN_THEOREMS) <= set(audit.FIRST_HIT_THEOREMS)
    assert len(audit.FIRST_HIT_DECLARATIONS) == len(set(audit.FIRST_HIT_DECLARATIONS)) == 130


@pytest.mark.parametrize("name", sorted(FIRST_HIT_STATEMENTS))
def test_first_hit_main_statement_unchanged(name):
    kind, text = _first_hit_decls()[name]
    assert kind == "theorem"
    assert L.theorem_statement(text) == FIRST_HIT_STATEMENTS[name]


@pytest.mark.parametrize("name", sorted(FIRST_HIT_DEFINITION_TEXTS))
def test_first_hit_model_definition_unchanged(name):
    assert _first_hit_decls()[name][1] == FIRST_HIT_DEFINITION_TEXTS[name]


def test_first_hit_docstrings():
    src = FIRST_HIT.read_text(encoding="utf-8")
    assert src.startswith("import FacetSelection\n\n/-!\n# ")
    header = src[: src.index("-/")]
    for section in ("## The modelled contact", "## Main definitions", "## Main statements", "coplanar",
                    "dyadic rational", "binary64", "lowest"):
        assert section in header
    audit = load_audit()
    for name, (kind, _) in _first_hit_decls().items():
        assert L.docstring_precedes(src, kind, name), f"{kind} {name} has no /-- -/ docstring"
        full = f"FirstHit.{name}"
        if full in audit.FIRST_HIT_DEFINITIONS + audit.FIRST_HIT_STRUCTURES + audit.FIRST_HIT_MAIN_THEOREMS:
            assert full in header, f"{name} missing from the module docstring"
