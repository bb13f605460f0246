"""The exact narrowing replay (``interval.narrowing``) against an independent binary32 rounding
written here with Python's exact ``Fraction``s, and against the fast path's ``reference.fp.ulp32``
and numpy's float32 conversion: over float32 subnormals, the smallest normal, powers of two and
their neighbours, rounding ties and values just off them, and the overflow threshold.

Independence: nothing below calls MPFR or numpy to decide a rounding; ``_f32`` finds the
binade from the bit lengths of numerator and denominator and rounds half to even by integer
arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from interval.narrowing import (
    exact_ulp32,
    replay_narrowing,
    replay_narrowing_error,
    replay_position_floor,
    round_nearest_f32,
    round_up_f64,
)
from reference.fp import narrow32, ulp32
from tests.profiles import examples

TWO = Fraction(2)
MIN_NORMAL = TWO**-126
MIN_SUBNORMAL = TWO**-149
OVERFLOW = TWO**128 - TWO**103  # float32 max plus half its ulp: ties round to inf (even)


def _exponent(a: Fraction) -> int:
    """e with 2^e <= a < 2^(e+1), for a > 0 (exact)."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if TWO**e > a:
        e -= 1
    if TWO ** (e + 1) <= a:
        e += 1
    return e


def _ulp(a: Fraction) -> Fraction:
    """The binary32 spacing of the binade holding a >= 0: 2^(e - 23), never below 2^-149."""
    if a < MIN_NORMAL:
        return MIN_SUBNORMAL
    return TWO ** (_exponent(a) - 23)


def _f32(q: Fraction):
    """q rounded to binary32, half to even, as a Fraction (or a float infinity)."""
    if q == 0:
        return Fraction(0)
    a = abs(q)
    if a >= OVERFLOW:
        return math.copysign(math.inf, q)
    step = _ulp(a)
    m, rest = divmod(a, step)  # a = m step + rest, 0 <= rest < step
    if rest * 2 > step or (rest * 2 == step and m % 2 == 1):
        m += 1
    r = m * step
    return r if q > 0 else -r


def _up64(q: Fraction) -> float:
    """The smallest float64 >= q (CPython's float(Fraction) rounds to nearest)."""
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def _interesting():
    """float32 subnormals, the smallest normal, powers of two and float32 max, with their
    float32 neighbours."""
    xs = [MIN_SUBNORMAL * k for k in (1, 2, 3, 5, 2**22, 2**23 - 1)]
    xs += [MIN_NORMAL, MIN_NORMAL + MIN_SUBNORMAL, MIN_NORMAL - MIN_SUBNORMAL]
    for e in list(range(-149, 128, 7)) + [-127, -126, -125, -24, -1, 0, 1, 23, 24, 127]:
        p = TWO**e
        xs += [p, p + _ulp(p), p - _ulp(p - MIN_SUBNORMAL * (p > MIN_SUBNORMAL))]
    xs.append(TWO**128 - TWO**104)  # float32 max
    return sorted({x for x in xs if x > 0})


POINTS = _interesting()


def test_the_independent_rounding_agrees_with_itself_on_float32_values():
    for x in POINTS:
        assert _f32(x) == x and _f32(-x) == -x


@pytest.mark.parametrize("x", POINTS, ids=lambda x: f"{float(x):.3e}")
def test_exact_ulp32_and_the_fast_path_ulp32_are_the_binade_spacing(x):
    f = float(x)
    want = _ulp(x)
    assert Fraction(exact_ulp32(np.float32(f))) == want
    assert Fraction(float(ulp32(np.float32(f)))) == want
    assert Fraction(float(ulp32(np.float32(-f)))) == want


def test_ulp32_of_zero_is_the_subnormal_spacing():
    assert Fraction(exact_ulp32(np.float32(0.0))) == MIN_SUBNORMAL == Fraction(float(ulp32(0.0)))


def _near(x: Fraction):
    """Rationals around a float32 value x: its midpoints with both neighbours (ties), the
    midpoints pushed by 2^-20 of a spacing either way, and points a third of the way."""
    up, down = _ulp(x), _ulp(x - MIN_SUBNORMAL) if x > MIN_SUBNORMAL else MIN_SUBNORMAL
    out = []
    for mid, step in ((x + up / 2, up), (x - down / 2, down)):
        out += [mid, mid + step / 2**20, mid - step / 2**20, mid + step / 3, mid - step / 3]
    return [q for q in out if 0 < q]


@pytest.mark.parametrize("x", POINTS, ids=lambda x: f"{float(x):.3e}")
def test_round_nearest_f32_is_binary32_rounding_half_to_even(x):
    for q in _near(x):
        for s in (q, -q):
            want = _f32(s)
            got = round_nearest_f32(s)
            if isinstance(want, float):
                assert np.isinf(got) and math.copysign(1, got) == math.copysign(1, want)
            else:
                assert Fraction(float(got)) == want, (float(s), float(got), float(want))


@pytest.mark.parametrize("x", POINTS, ids=lambda x: f"{float(x):.3e}")
def test_numpy_float32_conversion_is_the_same_rounding(x):
    # The fast path narrows float64 values with numpy's conversion: the replay must agree with it
    # wherever the rational is a float64 (every point here but some far-off thirds).
    for q in _near(x):
        f = float(q)
        if Fraction(f) != q:
            continue
        want = _f32(q)
        got = narrow32(np.array([f]))[0]
        if isinstance(want, float):
            assert np.isinf(got)
        else:
            assert Fraction(float(got)) == want


def test_overflow_threshold_ties_to_infinity():
    big = TWO**128 - TWO**104  # float32 max
    assert Fraction(float(round_nearest_f32(OVERFLOW - TWO**60))) == big
    assert np.isinf(round_nearest_f32(OVERFLOW)) and np.isinf(narrow32(np.array([float(OVERFLOW)]))[0])


def _replay_truth(source, origin):
    """(narrowed, error rounded up, floor) from the definitions, in Fractions."""
    rel = [[Fraction(float(s)) - Fraction(float(o)) for s, o in zip(row, origin)] for row in source.reshape(-1, 3)]
    d64 = [[Fraction(float(q)) for q in row] for row in rel]  # CPython rounds Fraction -> float exactly
    n32 = [[_f32(q) for q in row] for row in d64]
    err = max(abs(n - q) for rn, rq in zip(n32, rel) for n, q in zip(rn, rq))
    E = max(abs(n) for row in n32 for n in row)
    return n32, _up64(err), _up64(2 * _ulp(E) + Fraction(_up64(err)))


@pytest.mark.parametrize("name, source, origin", [
    ("subnormal controls", np.array([[[k * 2.0**-149 + 2.0**-170 for k in (3, 6, 9)]] * 4]) * [1, -1, 1],
     np.zeros(3)),
    ("subnormal ties, just above", np.array([[[(2 * k + 0.5) * 2.0**-149 + 2.0**-170 for k in (2, 4, 1000)]] * 4]),
     np.zeros(3)),
    ("the smallest normal's neighbourhood", np.array([[[2.0**-126, 2.0**-126 - 2.0**-150, 2.0**-126 + 2.0**-151]] * 4]),
     np.zeros(3)),
    ("E a power of two", np.array([[[1024.0, 0.1, -3.3], [7.0, 1e-3, 2.5], [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]),
     np.zeros(3)),
    ("E just below one", np.array([[[1 - 2.0**-24, 0.1, 0.3]] * 4]), np.zeros(3)),
    ("a fractional origin (inexact subtraction)", np.array([[[1234.5678, -987.654321, 3.14159265358979]] * 4]),
     np.array([0.1, -0.3, 0.7])),
    ("a large origin", np.array([[[1e7 + 0.123, -1e7 + 4.56, 5e6 + 0.001]] * 4]), np.array([1e7, -1e7, 5e6])),
    # 1 + 3 2^-24 is a float32 tie; minus 2^-60 it lies just below, but the float64 subtraction
    # rounds back onto the tie, which goes to even (1 + 2^-22): narrowing rounds twice, as specified.
    ("double rounding through float64", np.array([[[1 + 3 * 2.0**-24, 2.0, 3.0]] * 4]), np.array([2.0**-60, 0, 0])),
])
def test_the_replay_is_the_definition(name, source, origin):
    n32, err, floor = _replay_truth(source, origin)
    got = replay_narrowing(source, origin)
    assert [[Fraction(float(v)) for v in row] for row in got.reshape(-1, 3)] == n32, name
    assert replay_narrowing_error(source, origin) == err, name
    assert replay_position_floor(source, origin)[0] == floor, name


@settings(max_examples=examples(200, 5000))
@given(st.integers(-160, 130), st.integers(0, 2**30), st.sampled_from([1, -1]))
def test_round_nearest_f32_on_random_rationals(e, m, sign):
    q = sign * (Fraction(m) / 2**30 + 1) * TWO**e
    want = _f32(q)
    got = round_nearest_f32(q)
    if isinstance(want, float):
        assert np.isinf(got)
    else:
        assert Fraction(float(got)) == want


def test_round_up_f64_is_the_smallest_float64_above():
    for q in (Fraction(1, 3), Fraction(2**-1074) / 3, Fraction(10**400, 3**700), TWO**-1074 * 5 / 2):
        f = round_up_f64(q)
        assert Fraction(f) >= q and (f == 0 or Fraction(math.nextafter(f, -math.inf)) < q)
