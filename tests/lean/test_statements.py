"""Lean-statement tests: the six theorems of proofs_lean/FacetSelection.lean, checked on Python
data with exact rationals.

Each test renders the Lean definitions in Python over ``fractions.Fraction`` and checks the
conclusion of one theorem on random inputs that satisfy its hypotheses. Finite binary64 and
binary32 values enter through ``Fraction(float)``, which is exact (every finite IEEE value is a
dyadic rational), so these are the inputs the Lean statements cover. The tests check the
statements, not the proofs: a statement that said something false about such data would fail
here. Self-contained: no project package is imported.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from tests.lean.leanpaths import load_audit

# --- Python renderings of the Lean definitions ---------------------------------------------------

def lean_min(a, b):
    """``min`` on ``Rat``: ``if a ≤ b then a else b`` (core's ``Rat.min_def``)."""
    return a if a <= b else b


def min_fold(best, cs):
    """``minFold``: ``minFold best [] = best``, ``minFold best (c :: cs) = minFold (min best c) cs``."""
    for c in cs:
        best = lean_min(best, c)
    return best


def valid_facet_coordinates(alpha, beta, gamma):
    """``ValidFacetCoordinates``: all three weights nonnegative, summing to one."""
    return 0 <= alpha and 0 <= beta and 0 <= gamma and alpha + beta + gamma == 1


def barycentric_point(a, b, c, alpha, beta, gamma):
    """``barycentricPoint``: ``α • a + β • b + γ • c`` coordinate by coordinate."""
    return tuple(alpha * a[i] + beta * b[i] + gamma * c[i] for i in range(3))


def dot(n, p):
    """``n.x * p.x + n.y * p.y + n.z * p.z`` as written in the plane theorem."""
    return n[0] * p[0] + n[1] * p[1] + n[2] * p[2]


# --- strategies ----------------------------------------------------------------------------------

finite64 = st.floats(allow_nan=False, allow_infinity=False)
finite32 = st.floats(allow_nan=False, allow_infinity=False, width=32)
rationals = st.fractions(max_denominator=10**6).filter(lambda q: abs(q) < 10**9)
#: Exact rationals, binary64 values and binary32 values, all as Fractions.
exact = st.one_of(rationals, finite64.map(Fraction), finite32.map(Fraction))
unit = st.one_of(
    st.fractions(min_value=0, max_value=1, max_denominator=10**6),
    st.floats(min_value=0.0, max_value=1.0).map(Fraction),
    st.floats(min_value=0.0, max_value=1.0, width=32).map(Fraction),
)
candidates = st.lists(exact, max_size=12)
point = st.tuples(exact, exact, exact)
small_point = st.tuples(rationals, rationals, rationals)


@st.composite
def valid_weights(draw):
    """Weights satisfying ``ValidFacetCoordinates``: two in [0, 1] with sum ≤ 1, the third the rest."""
    alpha = draw(unit)
    beta = draw(unit) * (1 - alpha)
    return alpha, beta, 1 - alpha - beta


@st.composite
def plane_and_vertices(draw, coords=small_point):
    """A plane ``n · x = d`` with ``n ≠ 0`` and three vertices projected exactly onto it."""
    n = draw(coords.filter(lambda v: any(v)))
    d = draw(rationals)
    nn = dot(n, n)

    def onto_plane(p):
        s = (d - dot(n, p)) / nn
        return tuple(p[i] + s * n[i] for i in range(3))

    return n, d, [onto_plane(draw(coords)) for _ in range(3)]


# --- theorems 1 and 2: nonneg_weights_of_valid, sum_weights_eq_one_of_valid ----------------------

@given(st.tuples(exact, exact, exact) | valid_weights())
@example((Fraction(1), Fraction(0), Fraction(0)))
@example((Fraction(1, 2), Fraction(1, 2), Fraction(-0)))
@example((Fraction(1, 2), Fraction(3, 4), Fraction(-1, 4)))  # sums to one, not valid
def test_valid_coordinates_are_nonnegative_and_sum_to_one(w):
    alpha, beta, gamma = w
    if valid_facet_coordinates(alpha, beta, gamma):
        assert 0 <= alpha and 0 <= beta and 0 <= gamma  # nonneg_weights_of_valid
        assert alpha + beta + gamma == 1  # sum_weights_eq_one_of_valid


@given(valid_weights())
def test_generated_valid_weights_satisfy_the_definition(w):
    assert valid_facet_coordinates(*w)


# --- theorem 3: barycentricPoint_on_plane_of_vertices_on_plane -----------------------------------

@given(plane_and_vertices(), valid_weights())
def test_barycentric_point_of_vertices_on_a_plane_is_on_the_plane(plane, w):
    n, d, (a, b, c) = plane
    assert dot(n, a) == d and dot(n, b) == d and dot(n, c) == d
    assert valid_facet_coordinates(*w)
    assert dot(n, barycentric_point(a, b, c, *w)) == d


@given(plane_and_vertices(coords=st.tuples(finite64, finite64, finite64).map(lambda t: tuple(map(Fraction, t)))),
       valid_weights())
@settings(max_examples=50)
def test_plane_statement_holds_for_float64_sourced_coordinates(plane, w):
    n, d, (a, b, c) = plane
    assert dot(n, barycentric_point(a, b, c, *w)) == d


@given(plane_and_vertices(), rationals, rationals)
def test_only_the_weight_sum_matters_for_the_plane(plane, alpha, beta):
    """The docstring's remark: negative weights summing to one also stay on the plane."""
    n, d, (a, b, c) = plane
    assert dot(n, barycentric_point(a, b, c, alpha, beta, 1 - alpha - beta)) == d


@given(plane_and_vertices(), valid_weights(), rationals.filter(lambda k: k != 1))
def test_without_sum_one_the_point_leaves_the_plane(plane, w, k):
    """The hypothesis is needed: scaling the weights by k ≠ 1 moves the point off a plane with d ≠ 0."""
    n, d, (a, b, c) = plane
    p = barycentric_point(a, b, c, *(k * x for x in w))
    assert dot(n, p) == k * d
    if d != 0:
        assert dot(n, p) != d


# --- theorems 4-6: the minimum fold --------------------------------------------------------------

@given(exact, candidates)
@example(Fraction(0), [])
@example(Fraction(1), [Fraction(1), Fraction(1)])
def test_min_fold_is_init_or_a_member(best, cs):
    r = min_fold(best, cs)
    assert r == best or r in cs  # minFold_eq_init_or_mem


@given(exact, candidates)
def test_min_fold_is_no_greater_than_any_candidate(best, cs):
    r = min_fold(best, cs)
    assert r <= best and all(r <= c for c in cs)  # minFold_le_init_and_le_of_mem
    assert r == min([best, *cs])


@given(unit, st.lists(unit, max_size=12))
@example(Fraction(1), [Fraction(0), Fraction(1)])
def test_min_fold_stays_in_the_unit_interval(best, cs):
    r = min_fold(best, cs)
    assert 0 <= r <= 1  # minFold_mem_unit_interval_of_mem_unit_interval


@given(exact, st.lists(st.one_of(exact, st.just(Fraction(3))), max_size=12))
def test_unit_interval_needs_its_hypotheses(best, cs):
    """When some candidate is outside [0, 1] and below the others, so is the fold."""
    r = min_fold(best, cs)
    if r < 0 or r > 1:
        assert not (0 <= best <= 1 and all(0 <= c <= 1 for c in cs))


@given(finite64, st.lists(finite64, max_size=12))
@example(0.0, [-0.0])
@example(-0.0, [0.0])
def test_float64_fold_equals_exact_fold_of_the_same_values(best, cs):
    """min is exact in binary64, so the float fold is the Rat fold of the same dyadic values."""
    r = min_fold(best, cs)
    assert Fraction(r) == min_fold(Fraction(best), [Fraction(c) for c in cs])
    assert Fraction(r) <= Fraction(best) and all(Fraction(r) <= Fraction(c) for c in cs)


def test_nan_is_outside_the_statements():
    """NaN is not a rational: with it the float fold need not be ≤ every candidate."""
    nan = float("nan")
    r = min_fold(1.0, [nan])
    assert r != r  # the fold returns NaN ...
    assert not (r <= 1.0)  # ... which is not ≤ the initial candidate


# --- every theorem has a Python test ---------------------------------------------------------------

TESTED = {
    "FacetSelection.nonneg_weights_of_valid": test_valid_coordinates_are_nonnegative_and_sum_to_one,
    "FacetSelection.sum_weights_eq_one_of_valid": test_valid_coordinates_are_nonnegative_and_sum_to_one,
    "FacetSelection.barycentricPoint_on_plane_of_vertices_on_plane":
        test_barycentric_point_of_vertices_on_a_plane_is_on_the_plane,
    "FacetSelection.minFold_eq_init_or_mem": test_min_fold_is_init_or_a_member,
    "FacetSelection.minFold_le_init_and_le_of_mem": test_min_fold_is_no_greater_than_any_candidate,
    "FacetSelection.minFold_mem_unit_interval_of_mem_unit_interval": test_min_fold_stays_in_the_unit_interval,
}


def test_every_lean_theorem_has_a_statement_test():
    assert set(TESTED) == set(load_audit().THEOREMS)


@pytest.mark.parametrize(
    "best, cs, expected",
    [(Fraction(1, 2), [Fraction(3, 4), Fraction(1, 4), Fraction(1, 3)], Fraction(1, 4)),
     (Fraction(0), [], Fraction(0))],
)
def test_min_fold_by_hand(best, cs, expected):
    assert min_fold(best, cs) == expected
