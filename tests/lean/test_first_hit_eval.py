"""The Lean model as a third oracle: ``FirstHit.firstHit`` evaluated by Lean (`#eval`) on the
exact corpus of ``firsthit_model.corpus()``, compared exactly with ``interval.triangle``'s earliest
exact contact.

One Lean run checks FacetSelection.lean and FirstHit.lean (inlined, proofs included) and then
evaluates the model on every case; the printed lines are parsed into exact rationals.

What is compared, and why. Both sides are exact rational arithmetic on the same dyadic inputs,
so they must agree exactly, with one documented difference: a *coplanar* contact (the segment
lies in the facet's plane and overlaps it) is an interval of parameters in ``interval.triangle``
and no contact in the Lean model (``FirstHit.lean`` excludes it; its theorems are about
non-parallel contacts). So the expected result is ``interval.triangle``'s earliest contact among
its *point* contacts (lowest facet index on exact ties): the parameter, the facet, the weights
``(l0, l1, l2)`` of ``(a, b, c)`` and the facing (sign of ``N0 · (e - s)``). On cases without a
coplanar contact this is exactly ``interval.triangle.earliest``, which the test also asserts; on
cases with one (the ``coplanar`` kinds and the cube's face-plane segments) the binary64 query of
spec 004 answers Ambiguous (an overlapping coplanar candidate), so no published hit is at stake
and only the point contacts are compared. The tolerance bands of the float query play no part
here: this test compares two exact computations (``test_first_hit_statements.py`` ties the
float query to them).
"""

from __future__ import annotations

import functools
import time
from fractions import Fraction

import pytest

from interval import triangle as it
from tests.lean import firsthit_model as M
from tests.lean.leanpaths import load_audit
from tests.lean.leanrun import require_lean, run_lean_text

CASES = M.corpus()


@functools.cache
def expected(case: M.Case):
    """``interval.triangle``'s earliest exact point contact as a Hit (or None), and whether the
    case has a coplanar contact."""
    verts = [p for t in case.tris for p in t]
    tris = [[3 * i, 3 * i + 1, 3 * i + 2] for i in range(len(case.tris))]
    contacts = it.surface_contacts(verts, tris, *case.seg)
    coplanar = any(c.kind == "coplanar" for c in contacts)
    points = [c for c in contacts if c.kind == "point"]
    if not coplanar:
        first = it.earliest(contacts)
        assert (first is None) == (not points)
        if first is not None:
            assert first[0] == min(c.t for c in points)
    if not points:
        return None, coplanar
    t = min(c.t for c in points)
    c = min((c for c in points if c.t == t), key=lambda c: c.triangle)
    facing = "front" if c.facing < 0 else "back"
    return M.Hit(c.triangle, Fraction(c.t), *(Fraction(w) for w in c.bary), facing), coplanar


def disagreements(want: dict, got: dict) -> list[str]:
    """One line per case where the Lean result differs from the expected one (or is missing)."""
    out = []
    for k, w in want.items():
        if k not in got:
            out.append(f"case {k}: no result printed")
        elif got[k] != w:
            out.append(f"case {k} ({CASES[k].kind}): Lean {got[k]} != expected {w}")
    out += [f"case {k}: printed but not in the corpus" for k in got if k not in want]
    return out


@pytest.fixture(scope="module")
def lean_run():
    """(printed results, seconds) of one Lean run over the whole corpus."""
    lean = require_lean()
    text = load_audit().concatenated_source("FirstHit.lean", extra="\n" + M.lean_harness(CASES))
    start = time.monotonic()
    rc, out = run_lean_text(lean, text, "FirstHitEval.lean")
    elapsed = time.monotonic() - start
    errors = [line for line in out.splitlines() if "error" in line]
    assert rc == 0 and not errors, "Lean run failed:\n" + "\n".join((errors or out.splitlines())[:20])
    return M.parse_results(out), elapsed


# --- without Lean: the corpus and the harness ---------------------------------------------------

def test_corpus_is_large_and_covers_the_named_kinds():
    assert len(CASES) >= 300
    kinds = {c.kind for c in CASES}
    assert {"aimed", "tie-duplicate", "tie-shared-edge", "stack", "coplanar", "parallel", "random",
            "cube-edge-tie", "cube-vertex", "cube-start-on-face", "cube-end-on-face"} <= kinds
    want = {c.key: expected(c)[0] for c in CASES}
    hits = [h for h in want.values() if h is not None]
    assert len(hits) >= 150, "most cases should hit something"
    assert any(h.t == 0 for h in hits) and any(h.t == 1 for h in hits)  # endpoint contacts
    assert any(0 in (h.alpha, h.beta, h.gamma) for h in hits)  # edge contacts
    assert any(sorted((h.alpha, h.beta, h.gamma))[:2] == [0, 0] for h in hits)  # vertex contacts
    assert {h.facing for h in hits} == {"front", "back"}
    assert sum(expected(c)[1] for c in CASES) >= 30  # coplanar-excluded cases


def test_book_cube_crossing_by_hand():
    """Spec 004's hand arithmetic: t = 0.3125 for the book crossing (facet 0, weights
    (3/8, 3/8, 1/4), entering against the outward normal)."""
    hit, _ = expected(CASES[0])
    assert hit == M.Hit(0, Fraction(5, 16), Fraction(3, 8), Fraction(3, 8), Fraction(1, 4), "front")
    assert M.first_hit(*CASES[0].exact()) == hit
    reversed_hit, _ = expected(CASES[1])
    assert reversed_hit.facing == "back" and reversed_hit.t == Fraction(5, 16)


def test_ties_occur_in_the_corpus():
    """Exact parameter ties between different facets exist, so the tie rule is exercised."""
    ties = 0
    for case in CASES:
        tris, seg = case.exact()
        ts = [c[0] for c in (M.crossing(t, seg) for t in tris) if c is not None]
        ties += len(ts) != len(set(ts)) and min(ts) in [t for t in ts if ts.count(t) > 1]
    assert ties >= 20


def test_python_rendering_agrees_with_the_exact_oracle():
    """The Fraction rendering of the Lean definitions agrees with interval.triangle (no Lean)."""
    bad = [c.key for c in CASES if M.first_hit(*c.exact()) != expected(c)[0]]
    assert bad == []


def test_harness_declares_every_case_once():
    text = M.lean_harness(CASES)
    assert text.count("#eval") == -(-len(CASES) // M.CHUNK)
    for c in CASES[:: max(1, len(CASES) // 20)]:
        assert f"  ({c.key}, [" in text
    source = load_audit().concatenated_source("FirstHit.lean", extra=M.lean_harness(CASES))
    assert "import" not in source.split("-- from FacetSelection.lean", 1)[0]
    assert source.index("namespace FacetSelection") < source.index("namespace FirstHit") < source.index("def chunk0")


def test_parser_reads_both_line_forms_and_rejects_garbage():
    got = M.parse_results("info\ncase 3 none\ncase 4 hit 2 5/16 3/8 3/8 1/4 front\n")
    assert got == {3: None, 4: M.Hit(2, Fraction(5, 16), Fraction(3, 8), Fraction(3, 8), Fraction(1, 4), "front")}
    with pytest.raises(ValueError):
        M.parse_results("case 4 hit 2 5/16 3/8\n")
    with pytest.raises(ValueError):
        M.parse_results("case 1 none\ncase 1 none\n")


# --- with Lean ------------------------------------------------------------------------------------

def test_lean_model_agrees_with_the_exact_oracle_on_every_case(lean_run):
    got, elapsed = lean_run
    want = {c.key: expected(c)[0] for c in CASES}
    assert len(got) == len(CASES) >= 300
    assert disagreements(want, got) == []
    print(f"Lean #eval differential: {len(CASES)} cases agree ({elapsed:.0f} s for one Lean run)")


def test_planted_disagreement_is_caught(lean_run):
    """A modified expected result (a changed index, parameter, weight, facing, or a hit turned
    into a miss) fails the comparison, naming the case."""
    got, _ = lean_run
    want = {c.key: expected(c)[0] for c in CASES}
    k_hit = next(k for k, h in want.items() if h is not None and h.index > 0)
    k_miss = next(k for k, h in want.items() if h is None)
    h = want[k_hit]
    plants = [
        M.Hit(h.index - 1, h.t, h.alpha, h.beta, h.gamma, h.facing),
        M.Hit(h.index, h.t + Fraction(1, 2**40), h.alpha, h.beta, h.gamma, h.facing),
        M.Hit(h.index, h.t, h.alpha, h.beta + Fraction(1, 2**40), h.gamma, h.facing),
        M.Hit(h.index, h.t, h.alpha, h.beta, h.gamma, "back" if h.facing == "front" else "front"),
        None,
    ]
    for plant in plants:
        bad = disagreements({**want, k_hit: plant}, got)
        assert len(bad) == 1 and bad[0].startswith(f"case {k_hit} ")
    bad = disagreements({**want, k_miss: M.Hit(0, Fraction(0), Fraction(1), Fraction(0), Fraction(0), "back")}, got)
    assert len(bad) == 1 and bad[0].startswith(f"case {k_miss} ")
    assert len(disagreements({k: v for k, v in want.items() if k != k_miss}, got)) == 1  # extra case


# --- finding the checker ----------------------------------------------------------------------------

def test_without_a_checker_the_lean_tests_skip_locally_and_fail_under_ci(monkeypatch, tmp_path):
    from tests.lean import leanrun

    monkeypatch.delenv("LEAN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `lean`
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"LEAN=\.\./shared/tools/lean-wasm/lean"):
        leanrun.require_lean()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true requires it"):
        leanrun.require_lean()
    monkeypatch.setenv("LEAN", "no/such/lean")
    with pytest.raises(pytest.fail.Exception, match="not an executable"):
        leanrun.require_lean()
