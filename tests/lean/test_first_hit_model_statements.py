"""Statement tests of proofs_lean/FirstHit.lean: each main theorem checked on Python data with
the Fraction rendering of the Lean definitions (``firsthit_model``), as ``test_statements.py``
does for FacetSelection. Inputs are exact rationals, binary64 values and binary32 values (every
finite IEEE value is a dyadic rational, so these are inputs the Lean statements cover). A
statement that said something false about such data would fail here; the proofs are Lean's.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume, example, given, settings, strategies as st

from tests.lean import firsthit_model as M
from tests.lean.leanpaths import load_audit
from tests.profiles import examples

finite64 = st.floats(-1e6, 1e6, allow_nan=False).map(Fraction)
finite32 = st.floats(-1e4, 1e4, allow_nan=False, width=32).map(Fraction)
small = st.fractions(min_value=-8, max_value=8, max_denominator=16)
coord = st.one_of(small, finite64, finite32)
point = st.tuples(coord, coord, coord)
tri = st.tuples(point, point, point)
unit = st.fractions(min_value=0, max_value=1, max_denominator=64)

N = examples(100, 3000)
#: Soups of up to seven facets cost more per example.
N_SOUP = examples(30, 2000)


@st.composite
def weights(draw):
    """Valid facet coordinates: two in [0, 1] with sum ≤ 1, the third the rest; often on an
    edge or at a vertex."""
    a = draw(st.one_of(unit, st.sampled_from([Fraction(0), Fraction(1)])))
    b = draw(st.one_of(unit, st.just(Fraction(0)))) * (1 - a)
    w = [a, b, 1 - a - b]
    perm = draw(st.permutations([0, 1, 2]))
    return tuple(w[i] for i in perm)


@st.composite
def contact(draw):
    """A facet with nonzero area, a non-parallel segment and an exact contact (t, α, β, γ) on
    it: the segment passes through the barycentric point at t."""
    T = draw(tri)
    n = M.normal(T)
    assume(M.dot(n, n) != 0)
    w = draw(weights())
    t = draw(st.one_of(unit, st.sampled_from([Fraction(0), Fraction(1)])))
    d = draw(point)
    assume(M.dot(n, d) != 0)
    p = M.barycentric_point(T, *w)
    s = tuple(p[i] - t * d[i] for i in range(3))
    e = tuple(s[i] + d[i] for i in range(3))
    return T, (s, e), (t, *w)


@st.composite
def soup(draw):
    """1..6 facets (often sharing planes or repeated) and a segment, mostly through one of them."""
    k = draw(st.integers(1, 6))
    tris = [draw(tri) for _ in range(k)]
    if draw(st.booleans()):
        tris.append(draw(st.sampled_from(tris)))  # an exact duplicate: a tie
    if draw(st.booleans()):
        T, seg, _ = draw(contact())
        tris.insert(draw(st.integers(0, len(tris))), T)
    else:
        seg = (draw(point), draw(point))
    assume(seg[0] != seg[1])
    return tris, seg


# --- cross product assembly --------------------------------------------------------------------

@settings(max_examples=N)
@given(tri)
def test_normal_dot_edges(T):
    a, b, c = T
    n = M.normal(T)
    assert M.dot(n, M.sub(b, a)) == 0 and M.dot(n, M.sub(c, a)) == 0


@settings(max_examples=N)
@given(tri)
def test_swapping_two_vertices_negates_the_normal(T):
    a, b, c = T
    n = M.normal((a, b, c))
    assert M.normal((b, a, c)) == M.neg(n)  # normal_swap_ab
    assert M.normal((a, c, b)) == M.neg(n)  # normal_swap_bc
    assert M.normal((c, b, a)) == M.neg(n)  # normal_swap_ac
    assert M.normal((b, c, a)) == n  # a rotation keeps it (not a theorem; a sanity check)


# --- winding ------------------------------------------------------------------------------------

@settings(max_examples=N)
@given(tri, point, point)
def test_facing_is_the_sign_of_n_dot_d_and_flips_with_the_winding(T, s, e):
    seg = (s, e)
    nd = M.dot(M.normal(T), M.direction(seg))
    assert (M.facing(T, seg) == "front") == (nd < 0)  # facing_eq_front_iff
    assert (M.facing(T, seg) == "back") == (nd >= 0)  # facing_eq_back_iff
    a, b, c = T
    flipped = {"front": "back", "back": "front"}[M.facing(T, seg)]
    if nd != 0:  # facing_swap_bc, facing_of_normal_neg
        assert M.facing((a, c, b), seg) == flipped
        assert M.facing((b, a, c), seg) == flipped
    else:  # the hypothesis is needed: a parallel segment is "back" both ways
        assert M.facing((a, c, b), seg) == M.facing(T, seg) == "back"


# --- one facet ----------------------------------------------------------------------------------

@settings(max_examples=N)
@given(tri, point, point)
def test_crossing_sound(T, s, e):
    c = M.crossing(T, (s, e))
    if c is not None:
        assert M.exact_contact(T, (s, e), *c)


@settings(max_examples=N)
@given(contact())
@example((
    ((Fraction(0),) * 3, (Fraction(1), Fraction(0), Fraction(0)), (Fraction(0), Fraction(1), Fraction(0))),
    ((Fraction(0), Fraction(0), Fraction(-1)), (Fraction(0), Fraction(0), Fraction(1))),
    (Fraction(1, 2), Fraction(1), Fraction(0), Fraction(0)),  # at vertex a, mid-segment
))
def test_crossing_complete(case):
    T, seg, c = case
    assert M.exact_contact(T, seg, *c)
    assert M.crossing(T, seg) == c


def test_coplanar_contacts_are_outside_the_statements():
    """A segment lying in the facet's plane meets it, but is parallel: ExactContact and crossing
    both exclude it (the documented coplanar exclusion)."""
    T = ((Fraction(0),) * 3, (Fraction(1), Fraction(0), Fraction(0)), (Fraction(0), Fraction(1), Fraction(0)))
    seg = ((Fraction(-1), Fraction(1, 4), Fraction(0)), (Fraction(1), Fraction(1, 4), Fraction(0)))
    p = M.point_at(seg, Fraction(1, 2))
    assert p == M.barycentric_point(T, Fraction(3, 4), Fraction(0), Fraction(1, 4))
    assert not M.exact_contact(T, seg, Fraction(1, 2), Fraction(3, 4), Fraction(0), Fraction(1, 4))
    assert M.crossing(T, seg) is None


# --- the first hit ------------------------------------------------------------------------------

def _check_first_hit(tris, seg):
    h = M.first_hit(tris, seg)
    crossings = [M.crossing(T, seg) for T in tris]
    ts = M.crossing_times(tris, seg)
    if h is None:  # firstHit_eq_none_iff (model side), firstHit_t_eq_minFold (left)
        assert all(c is None for c in crossings) and ts == []
        return None
    assert ts and h.t == M.min_fold(ts[0], ts[1:])  # firstHit_t_eq_minFold (right)
    T = tris[h.index]
    # firstHit_mem, firstHit_sound
    assert crossings[h.index] == (h.t, h.alpha, h.beta, h.gamma) and h.facing == M.facing(T, seg)
    assert 0 <= h.t <= 1 and min(h.alpha, h.beta, h.gamma) >= 0 and h.alpha + h.beta + h.gamma == 1
    p = M.barycentric_point(T, h.alpha, h.beta, h.gamma)
    n = M.normal(T)
    assert M.dot(n, p) == M.dot(n, T[0]) and p == M.point_at(seg, h.t)
    assert M.dot(n, M.direction(seg)) != 0
    for j, c in enumerate(crossings):
        if c is not None:
            assert h.t <= c[0]  # firstHit_complete, firstHit_le_crossing
            if c[0] == h.t:
                assert h.index <= j  # firstHit_tie, firstHit_tie_crossing
    return h


@settings(max_examples=N_SOUP)
@given(soup())
def test_first_hit_sound_complete_and_tie_rule(case):
    _check_first_hit(*case)


@settings(max_examples=N_SOUP)
@given(soup(), st.data())
def test_first_hit_complete_for_a_constructed_contact(case, data):
    """firstHit_complete with the contact built from its definition, not found by the model."""
    tris, _ = case
    T, seg, c = data.draw(contact())
    j = data.draw(st.integers(0, len(tris)))
    tris = tris[:j] + [T] + tris[j:]
    h = M.first_hit(tris, seg)
    assert h is not None and h.t <= c[0]
    if h.t == c[0]:
        assert h.index <= j


def test_first_hit_statements_on_the_exact_corpus():
    hits = sum(_check_first_hit(*c.exact()) is not None for c in M.corpus())
    assert hits >= 150


def test_exact_tie_keeps_the_lowest_index():
    T = ((Fraction(0),) * 3, (Fraction(1), Fraction(0), Fraction(0)), (Fraction(0), Fraction(1), Fraction(0)))
    far = tuple((x, y, Fraction(5)) for x, y, _ in T)
    seg = ((Fraction(1, 4), Fraction(1, 4), Fraction(-1)), (Fraction(1, 4), Fraction(1, 4), Fraction(1)))
    a, b, c = T
    # By hand: T's normal is (0, 0, 1) and d = (0, 0, 2), so T is met from the back and its
    # reversed twin (normal (0, 0, -1)) from the front, both at z = 0, t = 1/2; `far` at t = 3.
    h = M.first_hit([far, (a, c, b), T], seg)
    assert (h.index, h.t, h.facing) == (1, Fraction(1, 2), "front")
    assert M.first_hit([far, T, (a, c, b)], seg).facing == "back"


# --- every main theorem has a test ---------------------------------------------------------------

TESTED = {
    "normal_dot_edges": test_normal_dot_edges,
    "normal_swap_ab": test_swapping_two_vertices_negates_the_normal,
    "normal_swap_bc": test_swapping_two_vertices_negates_the_normal,
    "normal_swap_ac": test_swapping_two_vertices_negates_the_normal,
    "facing_eq_front_iff": test_facing_is_the_sign_of_n_dot_d_and_flips_with_the_winding,
    "facing_eq_back_iff": test_facing_is_the_sign_of_n_dot_d_and_flips_with_the_winding,
    "facing_of_normal_neg": test_facing_is_the_sign_of_n_dot_d_and_flips_with_the_winding,
    "facing_swap_bc": test_facing_is_the_sign_of_n_dot_d_and_flips_with_the_winding,
    "crossing_sound": test_crossing_sound,
    "crossing_complete": test_crossing_complete,
    "firstHit_mem": test_first_hit_sound_complete_and_tie_rule,
    "firstHit_sound": test_first_hit_sound_complete_and_tie_rule,
    "firstHit_complete": test_first_hit_complete_for_a_constructed_contact,
    "firstHit_le_crossing": test_first_hit_sound_complete_and_tie_rule,
    "firstHit_eq_none_iff": test_first_hit_sound_complete_and_tie_rule,
    "firstHit_tie_crossing": test_first_hit_sound_complete_and_tie_rule,
    "firstHit_tie": test_exact_tie_keeps_the_lowest_index,
    "firstHit_t_eq_minFold": test_first_hit_sound_complete_and_tie_rule,
}


def test_every_main_first_hit_theorem_has_a_statement_test():
    assert {f"FirstHit.{n}" for n in TESTED} == set(load_audit().FIRST_HIT_MAIN_THEOREMS)
