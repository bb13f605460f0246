"""The culling model as an oracle: ``Culling.slabSeparated`` evaluated by Lean (`#eval`) on the
real hierarchy's node boxes and margins, against the hierarchy's own float decisions
(``_slab_miss``) and an exact Python oracle.

The corpus (``culling_model.node_corpus``): four random soups of 300 facets at different
scales and tolerances; per soup, segments of five kinds (random, grazing a node box face,
near-parallel to an axis, ending on a box face or corner, axis-parallel with ``e_i == s_i``);
for every node the margin ``_node_margin`` gives it for the segment (and, for some nodes, the
exact box, margin 0), with the float decision ``_slab_miss``. All of it runs without Lean on
about 17,000 slab tests; a few hundred (per kind, kept and culled, tight ones first) go through
one Lean run (the three modules inlined, proofs included, then the `#eval`).

What is asserted:

* the float test is sound for the model: a node ``_slab_miss`` culls is separated by the exact
  test (so ``Culling.culled_is_miss`` applies to its facets), and it is not vacuous: a node the
  exact test separates even with a margin grown beyond the float widening is culled;
* the Lean model computes what its Fraction mirror computes, case by case;
* the mirror agrees with an independent oracle (``meets_by_vertices``: every parameter where a
  constraint is tight, no axis-by-axis narrowing), and a ``meet`` comes with an interval whose
  end points lie in the grown box.
"""

from __future__ import annotations

import functools
import time

import pytest

from tests.lean import culling_model as C
from tests.lean.leanpaths import load_audit
from tests.lean.leanrun import require_lean, run_lean_text


@functools.cache
def corpus():
    return C.node_corpus()


@functools.cache
def lean_corpus():
    return C.lean_cases(corpus())


# --- without Lean ------------------------------------------------------------------------------

def test_corpus_covers_every_kind_kept_and_culled():
    cases = corpus()
    assert len(cases) >= 5000
    kinds = {c.kind for c in cases}
    assert kinds == {"random", "grazing", "near-parallel", "on-box-face", "axis-parallel"}
    for kind in kinds:
        assert any(c.kind == kind and c.float_miss for c in cases), kind
        assert any(c.kind == kind and not c.float_miss for c in cases), kind
    assert any(c.mu == 0 for c in cases) and any(c.mu > 0 for c in cases)
    assert sum(C.tight(c) for c in lean_corpus()) >= 20, "segments passing close to the grown boxes"


def unsound(cases) -> list[int]:
    """The cases where the float test culls a node the exact test does not separate."""
    return [c.key for c in cases if c.float_miss and not C.slab_separated(c.lo, c.hi, c.mu, c.s, c.e)]


def test_a_float_cull_is_an_exact_separation():
    """Every node the hierarchy's float slab test culls is separated in the exact model."""
    assert unsound(corpus()) == []


def test_the_float_test_culls_what_the_exact_test_separates_with_room():
    bad = [c.key for c in corpus()
           if not c.float_miss and C.slab_separated(c.lo, c.hi, C.widened_margin(c), c.s, c.e)]
    assert bad == []


def test_the_mirror_agrees_with_the_vertex_oracle_and_its_intervals_lie_in_the_box():
    for c in corpus():
        clip = C.slab_clip(c.lo, c.hi, c.mu, c.s, c.e)
        assert (clip is None) == (not C.meets_by_vertices(c.lo, c.hi, c.mu, c.s, c.e)), c.key
        if clip is not None:
            te, tx = clip
            assert 0 <= te <= tx <= 1
            for t in (te, tx, (te + tx) / 2):
                assert C.near_box(c.lo, c.hi, c.mu, C.point_at(c.s, c.e, t)), c.key


def test_planted_wrong_float_decision_is_caught():
    """A float test that culled a node the segment meets (here: every kept node of the corpus,
    turned into a cull) fails the soundness check, naming the cases."""
    import dataclasses

    kept = [c for c in corpus() if not c.float_miss][:50]
    planted = [dataclasses.replace(c, float_miss=True) for c in kept]
    assert unsound(planted) == [c.key for c in kept]


def test_harness_declares_every_case_once_and_prints_little():
    cases = lean_corpus()
    text = C.lean_harness(cases)
    assert text.count("#eval") == -(-len(cases) // C.CHUNK)
    for c in cases[:: max(1, len(cases) // 20)]:
        assert f"  ({c.key}, ⟨" in text
    # One short line per case: far below the 64 KiB the checker's output pipe holds.
    assert len(cases) * len("case 9999 meet\n") < 16 * 1024


def test_parser_reads_both_answers_and_rejects_garbage():
    assert C.parse_results("info\ncase 3 sep\ncase 4 meet\n") == {3: True, 4: False}
    with pytest.raises(ValueError):
        C.parse_results("case 4 maybe\n")
    with pytest.raises(ValueError):
        C.parse_results("case 1 sep\ncase 1 sep\n")


# --- with Lean ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lean_run():
    lean = require_lean()
    text = load_audit().concatenated_source("Culling.lean", extra="\n" + C.lean_harness(lean_corpus()))
    start = time.monotonic()
    rc, out = run_lean_text(lean, text, "CullingEval.lean")
    elapsed = time.monotonic() - start
    errors = [line for line in out.splitlines() if "error" in line or "sorry" in line]
    assert rc == 0 and not errors, "Lean run failed:\n" + "\n".join((errors or out.splitlines())[:20])
    return C.parse_results(out), elapsed


def test_lean_model_agrees_with_the_mirror_and_the_hierarchy_on_every_node(lean_run):
    got, elapsed = lean_run
    cases = lean_corpus()
    assert sorted(got) == [c.key for c in cases]
    wrong = [c.key for c in cases if got[c.key] != C.slab_separated(c.lo, c.hi, c.mu, c.s, c.e)]
    assert wrong == []
    # The hierarchy's float culls are separations of the proved model.
    assert [c.key for c in cases if c.float_miss and not got[c.key]] == []
    assert any(got.values()) and not all(got.values())
    print(f"Lean #eval of the slab test: {len(cases)} hierarchy nodes agree ({elapsed:.0f} s for one Lean run)")
