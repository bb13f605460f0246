"""The projection oracle (``interval.projection``) against independent truths: SymPy expansions
of ``|B(u) - q|^2``, exact Fractions, SymPy roots of its derivative; three-valued threshold
decisions (True, False with a replayable witness, None when it cannot show it)."""

from __future__ import annotations

from fractions import Fraction

import gmpy2
import numpy as np
import pytest
import sympy

from interval.context import QQ, lower, upper
from interval.projection import (
    enclose_distance_at,
    enclose_min_distance,
    exact_point,
    exact_squared_distance,
    squared_distance_coefficients,
)
from tests.reference.test_query import exact_sq_distance, sympy_min_distance

LINE = np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]], dtype=np.float32)
ZERO = np.zeros(3)


def random_path(seed, n=2):
    rng = np.random.default_rng(seed)
    P = np.cumsum(rng.normal(size=(n, 4, 3)), axis=1)
    for k in range(1, n):
        P[k] += P[k - 1, 3] - P[k, 0]
    return P.astype(np.float32), rng.normal(size=3) * 2


def test_coefficients_are_the_bernstein_form_of_the_squared_distance():
    u = sympy.Symbol("u")
    controls, point = random_path(0, 1)
    P = QQ.asarray(controls[0].astype(np.float64))
    q = exact_point(point, ZERO)
    c = squared_distance_coefficients(P, q)
    R = lambda x: sympy.Rational(int(x.numerator), int(x.denominator))
    B = [sum(sympy.binomial(3, i) * (1 - u) ** (3 - i) * u**i * R(P[i][k]) for i in range(4)) for k in range(3)]
    f = sum((B[k] - R(q[k])) ** 2 for k in range(3))
    bern = sum(sympy.binomial(6, j) * (1 - u) ** (6 - j) * u**j * R(c[j]) for j in range(7))
    assert sympy.expand(f - bern) == 0


@pytest.mark.parametrize("u", [0.0, 1.0, 0.5, 0.3, 2.0**-40, 1 - 2.0**-53])
def test_exact_squared_distance_matches_fractions(u):
    controls, point = random_path(1)
    origin = np.array([0.25, -1.0, 3.0])
    got = exact_squared_distance(controls, origin, point, 1, u)
    want = exact_sq_distance(controls, [Fraction(point[i]) - Fraction(origin[i]) for i in range(3)], 1, u)
    assert Fraction(int(got.numerator), int(got.denominator)) == want
    d = enclose_distance_at(controls, origin, point, 1, u, 113)
    assert lower(d) ** 2 <= got <= upper(d) ** 2


@pytest.mark.parametrize("bad", [(-1, 0.5), (2, 0.5), (0, -0.1), (0, 1.5)])
def test_exact_distance_rejects_points_off_the_domain(bad):
    controls, point = random_path(2)
    with pytest.raises(ValueError):
        exact_squared_distance(controls, ZERO, point, *bad)


def test_malformed_inputs_raise_value_error():
    with pytest.raises(ValueError):
        enclose_min_distance(np.zeros((1, 3, 3), np.float32), ZERO, ZERO, target=1e-3)
    with pytest.raises(ValueError):  # not float32 values
        enclose_min_distance(np.full((1, 4, 3), 0.1), ZERO, ZERO, target=1e-3)
    with pytest.raises(ValueError):
        enclose_min_distance(LINE, ZERO, [0, 0], target=1e-3)
    with pytest.raises(ValueError):
        enclose_min_distance(LINE, ZERO, ZERO)  # neither target nor threshold


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("prec", [113, None])
def test_enclosure_contains_the_sympy_minimum(seed, prec):
    controls, point = random_path(seed)
    truth = sympy_min_distance(controls, point)
    e = enclose_min_distance(controls, ZERO, point, prec, target=1e-10)
    assert e.converged
    lo, hi = float(lower(e.distance)), float(upper(e.distance))
    assert lo - 1e-15 <= truth <= hi + 1e-15
    assert hi - lo <= 1e-10
    assert e.lower_sq <= e.upper_sq
    span, u = e.witness  # U is the exact value at the witness
    assert exact_squared_distance(controls, ZERO, point, span, u) <= e.upper_sq


def test_line_minimum_is_exact():
    e = enclose_min_distance(LINE, ZERO, [1.5, 2.0, 0.0], None, target=1e-12)
    assert e.lower_sq == 4 and e.upper_sq == 4 and e.witness == (0, gmpy2.mpq(1, 2))


def test_threshold_below_the_minimum_is_shown_true():
    e = enclose_min_distance(LINE, ZERO, [1.5, 2.0, 0.0], 113, threshold=1.999999)
    assert e.decided is True and e.lower_sq >= gmpy2.mpq(1.999999) ** 2


def test_threshold_above_the_minimum_is_shown_false_with_a_replayable_witness():
    controls, point = random_path(3)
    m = sympy_min_distance(controls, point)
    T = m * (1 + 1e-9)
    e = enclose_min_distance(controls, ZERO, point, 113, threshold=T)
    assert e.decided is False
    span, u = e.witness
    assert exact_squared_distance(controls, ZERO, point, span, u) < gmpy2.mpq(T) ** 2


def test_threshold_at_an_attained_minimum_is_never_shown_by_intervals():
    # min |B(u) - q| = 2 exactly at u = 1/2; intervals cannot show f >= 4 on a box around it.
    e = enclose_min_distance(LINE, ZERO, [1.5, 2.0, 0.0], 113, threshold=2.0, max_splits=500)
    assert e.decided is None
    assert e.lower_sq <= 4 <= e.upper_sq


def test_nonpositive_threshold_holds_at_once():
    e = enclose_min_distance(LINE, ZERO, [1.5, 0.0, 0.0], 113, threshold=0.0)
    assert e.decided is True and e.splits == 0


def test_a_spent_budget_still_returns_valid_bounds():
    controls, point = random_path(4)
    truth = sympy_min_distance(controls, point)
    e = enclose_min_distance(controls, ZERO, point, 113, target=1e-14, max_splits=3)
    assert e.converged is False and e.splits <= 3
    assert float(lower(e.distance)) - 1e-15 <= truth <= float(upper(e.distance)) + 1e-15


def test_large_origin_is_subtracted_exactly():
    # The same curve and point, once chunk-relative and once 2**40 away: the same truth.
    controls, point = random_path(5, 1)
    point = np.round(point * 1024) / 1024  # so that point + shift is exact in float64
    shift = np.array([2.0**40, -(2.0**40), 2.0**39])
    a = enclose_min_distance(controls, ZERO, point, None, target=1e-9)
    b = enclose_min_distance(controls, shift, point + shift, None, target=1e-9)
    assert a.lower_sq == b.lower_sq and a.upper_sq == b.upper_sq
