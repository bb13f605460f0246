"""reference.fp against exact rational arithmetic (Fraction, gmpy2 mpq and MPFR).

Expected values come from independent sources: the float32 spacing from the binade of an
exact Fraction, narrowing from MPFR in an IEEE binary32 context (``gmpy2.ieee(32)``,
subnormalized; the oracle's ``interval.narrowing.round_nearest_f32``), the narrowing error from
an exact rational replay written here, rounded up by MPFR in a binary64 context
(``interval.narrowing.round_up_f64``), and every outward bound from the exact mpq result.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from interval.narrowing import round_nearest_f32, round_up_f64
from reference import fp
from tests.strategies import (F32_MAX, F32_TINY, float32_values, float64_sources_near_origin,
                              float64_values, narrowing_ties, subnormal32)

F64_MAX = float(np.finfo(np.float64).max)

# Overflow to +-inf (or to +-max after an outward step) is how the helpers answer results
# beyond float64; the bounds stay valid, and the tests check them, so numpy's note is noise.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


# --- exact references -----------------------------------------------------------------------


def binade_exponent(q: Fraction) -> int:
    """floor(log2(q)) for a positive rational, exactly."""
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    assert Fraction(2) ** e <= q < Fraction(2) ** (e + 1)
    return e


def spacing_ref(x: float, mant_bits: int, emin: int) -> Fraction:
    """Gap between |x| and the next larger number of a binary format with ``mant_bits``
    fraction bits and smallest normal exponent ``emin``, unbounded above (so the format's
    largest finite value has the spacing of its binade)."""
    a = abs(Fraction(x))
    e = emin if a == 0 else max(binade_exponent(a), emin)
    return Fraction(2) ** (e - mant_bits)


def f32_ref(x: float) -> float:
    """The exact value of a float64 rounded to binary32 (nearest even, subnormals, overflow)
    by MPFR in an IEEE binary32 context."""
    return float(round_nearest_f32(x))


def Q(x) -> Fraction | float:
    """Exact rational of a finite float; infinities stay floats (compare fine with Fractions)."""
    x = float(x)
    return Fraction(x) if math.isfinite(x) else x


def assert_encloses(lo, hi, exact: Fraction, what: str):
    lo, hi = float(lo), float(hi)
    assert not (math.isnan(lo) or math.isnan(hi)), f"{what}: NaN bound"
    assert Q(lo) <= exact <= Q(hi), f"{what}: [{lo.hex()}, {hi.hex()}] misses {exact}"


def assert_tight(lo, hi, exact: Fraction, what: str, ulps: int = 2):
    """Outward bounds are a few ulps from the exact value (where no overflow happened)."""
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or abs(lo) == F64_MAX or abs(hi) == F64_MAX:
        return
    assert exact - Q(lo) <= ulps * Fraction(float(np.spacing(abs(lo)))) + ulps * Fraction(2.0**-1074), what
    assert Q(hi) - exact <= ulps * Fraction(float(np.spacing(abs(hi)))) + ulps * Fraction(2.0**-1074), what


# --- ulp32, ulp64 ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [-149, -127, -126, -125, -1, 0, 1, 23, 24, 100, 127])
def test_ulp32_powers_of_two(k):
    x = 2.0**k
    expected = Fraction(2) ** (max(k, -126) - 23)
    assert Fraction(float(fp.ulp32(x))) == expected
    assert Fraction(float(fp.ulp32(-x))) == expected


def test_ulp32_zero_subnormals_and_max():
    assert float(fp.ulp32(0.0)) == 2.0**-149
    assert float(fp.ulp32(-0.0)) == 2.0**-149
    assert float(fp.ulp32(F32_TINY)) == 2.0**-149
    assert float(fp.ulp32(2.0**-126 - 2.0**-149)) == 2.0**-149  # largest subnormal
    # float32 max has no finite successor; its spacing is its binade's, 2**104 (finite, so a
    # position floor 2 * ulp32(E) stays an exact number).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(fp.ulp32(F32_MAX)) == 2.0**104
        assert float(fp.ulp32(np.float32(-F32_MAX))) == 2.0**104
        assert float(fp.ulp32(np.array([F32_MAX, 1.0]))[0]) == 2.0**104


@given(float32_values())
@example(1.0)
@example(F32_MAX)
@example(2.0**-126)
def test_ulp32_matches_fraction_spacing(x):
    assert Fraction(float(fp.ulp32(x))) == spacing_ref(x, 23, -126)


@given(subnormal32())
def test_ulp32_of_subnormals_is_the_smallest_subnormal(x):
    assert float(fp.ulp32(x)) == 2.0**-149


def test_ulp32_narrows_float64_first_and_is_vectorised():
    # 1 + 2**-30 narrows to 1.0, whose float32 spacing is 2**-23.
    assert float(fp.ulp32(1.0 + 2.0**-30)) == 2.0**-23
    xs = np.array([0.0, 1.0, 3.0, -1e-40, 1e30], dtype=np.float32)
    out = fp.ulp32(xs)
    assert out.dtype == np.float64 and out.shape == xs.shape
    for x, o in zip(xs, out):
        assert Fraction(float(o)) == spacing_ref(float(x), 23, -126)


@given(float64_values())
@example(F64_MAX)
def test_ulp64_matches_fraction_spacing(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = float(fp.ulp64(x))
    assert Fraction(got) == spacing_ref(x, 52, -1022)


# --- narrow32 -------------------------------------------------------------------------------


@given(float64_values())
@example(1.0 + 2.0**-24)  # tie, rounds down to the even 1.0
@example(1.0 + 3 * 2.0**-24)  # tie, rounds up to the even 1 + 2**-22
@example(2.0**-150)  # tie between 0 and the smallest subnormal: 0
@example(3 * 2.0**-150)  # tie between two subnormals: the even one, 2**-148
@example(F32_MAX + 2.0**103)  # tie above float32 max: rounds to even, which is inf
@example(float(np.nextafter(F32_MAX + 2.0**103, 0)))  # just below the tie: float32 max
@example(-(F32_MAX + 2.0**104))
@example(1e-320)
def test_narrow32_is_ieee_binary32_rounding(x):
    got = fp.narrow32(x)
    assert got.dtype == np.float32
    expected = f32_ref(x)
    assert float(got) == expected
    # the sign survives (signed zeros and underflow to zero)
    assert math.copysign(1.0, float(got)) == math.copysign(1.0, x)


@given(narrowing_ties())
def test_narrow32_rounds_ties_to_even(pair):
    source, origin = pair
    d = source - origin  # exact by construction
    got = fp.narrow32(d)
    assert float(got) == f32_ref(d)
    assert int(np.asarray(got).view(np.uint32)) % 2 == 0, "a tie must round to the even float32"
    # halfway indeed: both neighbours are at the same distance
    other = np.nextafter(got, np.float32(np.inf)) if Fraction(float(got)) < Fraction(d) else \
        np.nextafter(got, np.float32(-np.inf))
    assert abs(Fraction(float(got)) - Fraction(d)) == abs(Fraction(float(other)) - Fraction(d))


def test_narrow32_overflow_is_inf_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = fp.narrow32(np.array([1e39, -1e300, 1.0]))
    assert np.isposinf(out[0]) and np.isneginf(out[1]) and out[2] == 1.0


# --- two_sum, narrowing_error ---------------------------------------------------------------


@given(float64_values(max_magnitude=2.0**1022), float64_values(max_magnitude=2.0**1022))
@example(1.0, 2.0**-53)
@example(1.0, 3 * 2.0**-54)
@example(2.0**1022, 2.0**1022 * (1 - 2.0**-53))
@example(5e-324, -0.0)
def test_two_sum_is_error_free(a, b):
    s, e = fp.two_sum(np.float64(a), np.float64(b))
    assert float(s) == a + b  # s is the rounded sum
    assert Fraction(float(s)) + Fraction(float(e)) == Fraction(a) + Fraction(b)


def test_two_sum_vectorised():
    a = np.array([1.0, 1e16, -3.0])
    b = np.array([2.0**-60, 1.0, 3.0])
    s, e = fp.two_sum(a, b)
    for k in range(3):
        assert Fraction(float(s[k])) + Fraction(float(e[k])) == Fraction(a[k]) + Fraction(b[k])


def narrowing_error_ref(source, origin, narrowed) -> float:
    """max |narrowed - (source - origin)| exactly, rounded up to float64."""
    worst = Fraction(0)
    for s, o, n in zip(np.broadcast_to(source, narrowed.shape).ravel(),
                       np.broadcast_to(origin, narrowed.shape).ravel(), narrowed.ravel()):
        worst = max(worst, abs(Fraction(float(n)) - (Fraction(float(s)) - Fraction(float(o)))))
    return round_up_f64(worst)


@given(float64_sources_near_origin())
def test_narrowing_error_is_exact_replay(src_origin):
    source, origin = src_origin
    narrowed = fp.narrow32(source - origin)
    got = fp.narrowing_error(source, origin, narrowed)
    assert isinstance(got, float)
    assert got == narrowing_error_ref(source, origin, narrowed)


@st.composite
def far_pairs(draw):
    """Sources and origins of unrelated magnitudes, including differences that narrow to
    float32 subnormals and differences whose float64 subtraction rounds."""
    origin = np.array([draw(float64_values(max_magnitude=1e30)) for _ in range(3)])
    kind = draw(st.sampled_from(["near", "far", "tiny"]))
    if kind == "tiny":
        off = np.array([draw(st.floats(-1e-37, 1e-37)) for _ in range(3)])
    elif kind == "near":
        off = np.array([draw(st.floats(-1e3, 1e3)) for _ in range(3)])
    else:
        off = np.array([draw(float64_values(max_magnitude=1e30)) for _ in range(3)])
    return origin + off, origin


@given(far_pairs())
@settings(max_examples=200)
def test_narrowing_error_unrelated_magnitudes(src_origin):
    source, origin = src_origin
    narrowed = fp.narrow32(source - origin)
    got = fp.narrowing_error(source, origin, narrowed)
    assert got == narrowing_error_ref(source, origin, narrowed)


@given(narrowing_ties())
def test_narrowing_error_at_ties_is_half_a_float32_spacing(pair):
    source, origin = pair
    s, o = np.array([source]), np.array([origin])
    narrowed = fp.narrow32(s - o)
    got = fp.narrowing_error(s, o, narrowed)
    assert got == narrowing_error_ref(s, o, narrowed)
    # a tie is never exact, and the error (a power of two) is exactly representable
    d = Fraction(source) - Fraction(origin)
    assert got > 0 and Fraction(got) == abs(Fraction(float(narrowed[0])) - d)


def test_narrowing_error_empty_and_exact():
    assert fp.narrowing_error(np.empty((0, 4, 3)), np.zeros(3), np.empty((0, 4, 3), np.float32)) == 0.0
    src = np.array([[1.5, -2.0, 0.25]])
    assert fp.narrowing_error(src, np.zeros(3), fp.narrow32(src)) == 0.0


# --- outward rounding -----------------------------------------------------------------------

finite = float64_values()
nonzero = finite.filter(lambda x: x != 0.0)
TIES = [(1.0, 2.0**-53), (1.0, -2.0**-54), (1.0 + 2.0**-52, 2.0**-53), (3.0, 2.0**-52)]
MUL_TIES = [(1.0 + 2.0**-52, 1.0 + 2.0**-52), (1.0 + 2.0**-26, 1.0 + 2.0**-26), (3.0, 1.0 / 3.0),
            (2.0**-537, 2.0**-537), (5e-324, 0.5), (F64_MAX, 2.0), (-F64_MAX, F64_MAX)]


def _examples(pairs):
    def deco(f):
        for a, b in pairs:
            f = example(a, b)(f)
        return f
    return deco


@given(finite, finite)
@_examples(TIES + [(0.0, -0.0), (-0.0, -0.0), (F64_MAX, F64_MAX), (-F64_MAX, -F64_MAX), (5e-324, 5e-324)])
def test_add_sub_enclose(a, b):
    qa, qb = Fraction(a), Fraction(b)
    assert_encloses(fp.add_lo(a, b), fp.add_hi(a, b), qa + qb, f"add({a!r}, {b!r})")
    assert_encloses(fp.sub_lo(a, b), fp.sub_hi(a, b), qa - qb, f"sub({a!r}, {b!r})")
    assert_tight(fp.add_lo(a, b), fp.add_hi(a, b), qa + qb, "add")
    assert_tight(fp.sub_lo(a, b), fp.sub_hi(a, b), qa - qb, "sub")


@given(finite, finite)
@_examples(MUL_TIES + [(0.0, -1.0), (-0.0, 0.0), (2.0**-600, 2.0**-600)])
def test_mul_encloses(a, b):
    exact = Fraction(a) * Fraction(b)
    assert_encloses(fp.mul_lo(a, b), fp.mul_hi(a, b), exact, f"mul({a!r}, {b!r})")
    assert_tight(fp.mul_lo(a, b), fp.mul_hi(a, b), exact, "mul")


@given(finite, nonzero)
@_examples([(1.0, 3.0), (1.0, 10.0), (5e-324, 2.0), (5e-324, 3.0), (F64_MAX, 0.5), (1.0, 5e-324),
            (-0.0, 1.0), (2.0, 1.0 + 2.0**-52)])
def test_div_encloses(a, b):
    exact = Fraction(a) / Fraction(b)
    assert_encloses(fp.div_lo(a, b), fp.div_hi(a, b), exact, f"div({a!r}, {b!r})")
    assert_tight(fp.div_lo(a, b), fp.div_hi(a, b), exact, "div")


@given(finite.map(abs))
@example(0.0)
@example(-0.0)
@example(2.0)
@example(4.0)
@example(5e-324)
@example(F64_MAX)
@example(1.0 + 2.0**-52)
@example(float(np.nextafter(1.0, 0.0)))
def test_sqrt_encloses_by_squares(a):
    lo, hi = float(fp.sqrt_lo(a)), float(fp.sqrt_hi(a))
    assert 0.0 <= lo <= hi
    qa = Fraction(a)
    assert Fraction(lo) ** 2 <= qa, f"sqrt_lo({a!r}) = {lo.hex()} is above the root"
    assert math.isinf(hi) or Fraction(hi) ** 2 >= qa, f"sqrt_hi({a!r}) = {hi.hex()} is below the root"
    # tight: two steps above the lower bound already square past a
    assert Fraction(float(np.nextafter(np.nextafter(lo, np.inf), np.inf))) ** 2 >= qa


vec3 = st.lists(finite, min_size=3, max_size=3).map(np.array)


@given(vec3)
@example(np.array([3.0, 4.0, 12.0]))
@example(np.array([0.0, -0.0, 0.0]))
@example(np.array([5e-324, 5e-324, 0.0]))
@example(np.array([1e300, -1e300, 1e300]))
@example(np.array([1e-200, 1e-200, 1e-200]))
def test_hypot_encloses_by_squares(v):
    lo, hi = float(fp.hypot_lo(v)), float(fp.hypot_hi(v))
    sq = sum(Fraction(float(x)) ** 2 for x in v)
    assert 0.0 <= lo <= hi
    assert Fraction(lo) ** 2 <= sq, f"hypot_lo({v}) too high"
    assert math.isinf(hi) or Fraction(hi) ** 2 >= sq, f"hypot_hi({v}) too low"


def test_hypot_vectorised_over_leading_axes():
    v = np.array([[[3.0, 4.0, 0.0], [1.0, 2.0, 2.0]]])
    lo, hi = fp.hypot_lo(v), fp.hypot_hi(v)
    assert lo.shape == (1, 2) and hi.shape == (1, 2)
    assert np.all(lo <= [5.0, 3.0]) and np.all(hi >= [5.0, 3.0])
    assert np.all(lo > [4.99, 2.99])


sorted_pair = st.tuples(finite, finite).map(sorted)


@given(sorted_pair)
@example([-2.0, 3.0])
@example([-3.0, -2.0])
@example([0.0, 0.0])
@example([-0.0, 5e-324])
@example([1e200, 1e300])
@example([-F64_MAX, F64_MAX])
@example([-0.75, -0.25])
@example([-0.5, -0.5])
@example([-3.0, -1.5])
def test_square_range_encloses(pair):
    lo, hi = pair
    qlo, qhi = Fraction(lo), Fraction(hi)
    ex_hi = max(qlo * qlo, qhi * qhi)
    ex_lo = Fraction(0) if qlo <= 0 <= qhi else min(qlo * qlo, qhi * qhi)
    slo, shi = fp.square_range(lo, hi)
    assert float(slo) >= 0.0
    assert_encloses(slo, shi, ex_lo, f"square_range lower end {pair}")
    assert_encloses(slo, shi, ex_hi, f"square_range upper end {pair}")
    if ex_lo == ex_hi:  # a point range: the bounds are a few ulps from the square
        assert_tight(slo, shi, ex_lo, "square_range")
    if not qlo <= 0 <= qhi:  # zero outside the range: the lower end is the smaller square, not 0
        assert_tight(slo, slo, ex_lo, "square_range lower end")


@given(sorted_pair, sorted_pair)
@example([-1.0, 2.0], [-3.0, 4.0])
@example([0.0, 0.0], [-F64_MAX, F64_MAX])
@example([-0.0, 1.0], [-1.0, -0.0])
@example([1.0 + 2.0**-52, 1.0 + 2.0**-52], [1.0 + 2.0**-52, 1.0 + 2.0**-52])
def test_mul_range_encloses(a, b):
    prods = [Fraction(x) * Fraction(y) for x in a for y in b]
    lo, hi = fp.mul_range(a[0], a[1], b[0], b[1])
    assert_encloses(lo, hi, min(prods), f"mul_range {a} x {b}")
    assert_encloses(lo, hi, max(prods), f"mul_range {a} x {b}")
    if min(prods) == max(prods):
        assert_tight(lo, hi, min(prods), "mul_range")


@given(hnp.arrays(np.float64, (2, 5), elements=float64_values(max_magnitude=1e300)),
       hnp.arrays(np.float64, (2, 5), elements=float64_values(max_magnitude=1e300)))
@settings(max_examples=20)
def test_outward_helpers_are_elementwise(a, b):
    for f in (fp.add_lo, fp.add_hi, fp.sub_lo, fp.sub_hi, fp.mul_lo, fp.mul_hi):
        out = f(a, b)
        assert out.shape == (2, 5)
        for i in range(2):
            for j in range(5):
                assert out[i, j] == f(a[i, j], b[i, j]) or (np.isnan(out[i, j]) and np.isnan(f(a[i, j], b[i, j])))


def test_down_up_steps():
    assert fp.down(0.0) == -5e-324 and fp.up(-0.0) == 5e-324
    assert np.isposinf(fp.up(F64_MAX)) and fp.down(np.inf) == F64_MAX
    assert fp.down(1.0) == 1.0 - 2.0**-53 and fp.up(1.0) == 1.0 + 2.0**-52


# --- constants and clamps (pinned by IEEE 754, not by the code) ------------------------------


def test_unit_roundoffs_are_half_an_epsilon():
    # binary32 has a 24-bit significand and binary64 a 53-bit one: u = 2**-p (IEEE 754).
    assert fp.U32 == float(np.finfo(np.float32).eps) / 2 == 2.0**-24
    assert fp.U64 == float(np.finfo(np.float64).eps) / 2 == 2.0**-53


def test_sqrt_bounds_clamp_a_slightly_negative_argument():
    """A computed sum of squares can come out a hair below zero; the bounds then enclose the
    root of 0 (docstrings: "clamped at 0"), never NaN."""
    for a in (-5e-324, -1e-300, -0.5):
        assert float(fp.sqrt_lo(a)) == 0.0
        assert float(fp.sqrt_hi(a)) == 5e-324  # one step above sqrt(0)
    lo = fp.sqrt_lo(np.array([-1.0, 4.0]))
    assert lo.tolist() == [0.0, float(np.nextafter(2.0, 0.0))]


@pytest.mark.parametrize("pair", [(1e-200, 1e-199), (5e-324, 5e-324), (-1e-199, -1e-200), (2.0**-600, 2.0**-590)])
def test_square_range_lower_bound_stays_nonnegative_when_the_square_underflows(pair):
    lo, hi = pair
    slo, shi = fp.square_range(lo, hi)
    assert float(slo) == 0.0  # the exact lower square is below the smallest subnormal
    assert Fraction(float(shi)) >= max(Fraction(lo) ** 2, Fraction(hi) ** 2)


def test_ulp_at_binade_edges_vectorised():
    xs = np.array([2.0**-126, float(np.nextafter(np.float32(2.0**-126), np.float32(0))), 2.0**127, F32_MAX])
    assert fp.ulp32(xs).tolist() == [2.0**-149, 2.0**-149, 2.0**104, 2.0**104]
    ys = np.array([2.0**-1022, 5e-324, F64_MAX, 1.0])
    assert fp.ulp64(ys).tolist() == [5e-324, 5e-324, 2.0**971, 2.0**-52]


def test_ulp_of_a_value_beyond_the_format_is_nan():
    """A magnitude that narrows to inf has no spacing: NaN, so a position floor computed from it
    cannot look finite (float32 max itself has its binade's spacing)."""
    with np.errstate(over="ignore", invalid="ignore"):
        for x in (1e39, -1e39, np.inf):
            assert np.isnan(fp.ulp32(x))
        assert np.isnan(fp.ulp64(np.inf))
        out = fp.ulp32(np.array([np.inf, F32_MAX]))
    assert np.isnan(out[0]) and out[1] == 2.0**104
