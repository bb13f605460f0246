"""The brute-force exact oracle of point search: integer-scaled squared distances against
Fractions and hand-derived values; (distance, index) order; non-float32 input refused."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from interval.point_search import (SCALE_BITS, as_rational, exact_nearest, exact_squared_distances,
                                   inversion_allowed, scaled)


def test_hand_derived_distances():
    D = exact_squared_distances([(3.0, 4.0, 0.0), (0.0, 0.0, 5.0), (1.0, 1.0, 1.0), (0.5, 0.0, 0.0)], (0.0, 0.0, 0.0))
    assert [as_rational(x) for x in D] == [25, 25, 3, Fraction(1, 4)]
    # the smallest float32 step: one subnormal from the origin
    assert exact_squared_distances([(2.0 ** -149, 0.0, 0.0)], (0.0, 0.0, 0.0)) == [1]
    # far corners: (2^61)^2 * 3 exactly
    assert as_rational(exact_squared_distances([(2.0 ** 60,) * 3], (-(2.0 ** 60),) * 3)[0]) == 3 * 2 ** 122


def test_matches_fractions_on_random_float32_points():
    rng = np.random.default_rng(3)
    for _ in range(50):
        P = (rng.normal(size=(20, 3)) * 10.0 ** rng.integers(-40, 18, size=(20, 3))).astype(np.float32)
        q = (rng.normal(size=3) * 10.0 ** rng.integers(-40, 18, size=3)).astype(np.float32)
        D = exact_squared_distances(P.astype(np.float64).tolist(), q.astype(np.float64).tolist())
        for p, x in zip(P, D):
            want = sum((Fraction(float(a)) - Fraction(float(b))) ** 2 for a, b in zip(p, q))
            assert as_rational(x) == want


def test_nearest_orders_ties_by_index():
    D = [4, 1, 4, 0, 1, 0]
    assert exact_nearest(D, 6) == [3, 5, 1, 4, 0, 2]
    assert exact_nearest(D, 3) == [3, 5, 1]


@pytest.mark.parametrize("bad", [0.1, float("nan"), float("inf"), 2.0 ** -150])
def test_non_float32_values_are_refused(bad):
    with pytest.raises(ValueError):
        scaled(bad)


def test_scale_is_exact_at_the_extremes():
    assert scaled(2.0 ** -149) == 1 and scaled(-(2.0 ** 60)) == -(2 ** (60 + SCALE_BITS))
    big = float(np.float32(3.4028234663852886e38))
    assert scaled(big) == Fraction(big) * 2 ** SCALE_BITS


def test_inversion_band_is_twice_the_farther_bound_and_never_an_exact_tie():
    F = Fraction
    assert inversion_allowed(F(10), F(8), F(1)) and not inversion_allowed(F(10), F(8), F(1, 2) - F(1, 10**9))
    assert not inversion_allowed(F(5), F(5), F(100))  # an exact tie: the index decides
    assert not inversion_allowed(F(4), F(5), F(100))  # not an inversion at all
