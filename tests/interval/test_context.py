"""interval.context: mpmath's interval arithmetic and the IV/QQ hooks against exact rationals.

ARCHITECTURE.md, "Trust only what is tested": the IV context uses only ``+ - * /`` and
``sqrt`` of ``mpmath.iv``; they are checked here against exact rational arithmetic (9,000
seeded random samples of every operation on point and wide intervals at several precisions,
plus hypothesis' nasty floats), for containment and for width. Exact endpoint values are read
with mpmath's own ``libmp.to_rational``, independently of ``interval.context.lower``/``upper``.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from gmpy2 import mpq
from hypothesis import example, given, strategies as st
from mpmath import iv, libmp

from interval import context as C
from interval.context import IV, QQ, UNKNOWN
from reference import kernel as K
from tests.strategies import float64_values

PRECS = (53, 64, 113, 200)


def ends(x) -> tuple[Fraction, Fraction]:
    """Exact endpoints by mpmath's own conversion (independent of C.lower/C.upper)."""
    lo, hi = (Fraction(*map(int, libmp.to_rational(e))) for e in x._mpi_)
    return lo, hi


def ulp_rel(prec: int) -> Fraction:
    """Largest relative distance of an outward-rounded prec-bit endpoint from its exact value."""
    return Fraction(1, 2 ** (prec - 1))


def check_enclosure(r, exact_lo: Fraction, exact_hi: Fraction, prec: int, what: str):
    lo, hi = ends(r)
    assert lo <= exact_lo and exact_hi <= hi, f"{what}: [{lo}, {hi}] misses [{exact_lo}, {exact_hi}]"
    # each endpoint is the exact extreme rounded outward once to prec bits
    assert exact_lo - lo <= ulp_rel(prec) * abs(exact_lo), f"{what}: lower end too loose"
    assert hi - exact_hi <= ulp_rel(prec) * abs(exact_hi), f"{what}: upper end too loose"


def _rand_float(rng: random.Random) -> float:
    kind = rng.random()
    if kind < 0.05:
        return rng.choice([0.0, -0.0, 1.0, -1.0, 5e-324, 2.0**-1022, 0.1, 3.0])
    m = rng.uniform(-1.0, 1.0)
    e = rng.randint(-300, 300) if kind < 0.15 else rng.randint(-40, 40)
    return math.ldexp(m, e)


def _rand_interval(rng: random.Random, prec: int):
    a = _rand_float(rng)
    if rng.random() < 0.5:
        return iv.mpf(a), Fraction(a), Fraction(a)
    b = a + abs(_rand_float(rng)) if rng.random() < 0.5 else a * (1 + rng.random() * 2.0**-rng.randint(1, 60))
    lo, hi = sorted((a, b))
    return iv.mpf([lo, hi]), Fraction(lo), Fraction(hi)


def _check_all_ops(x, xl, xh, y, yl, yh, prec):
    sums = (xl + yl, xh + yh)
    check_enclosure(x + y, *sums, prec, "add")
    check_enclosure(x - y, xl - yh, xh - yl, prec, "sub")
    prods = [p * q for p in (xl, xh) for q in (yl, yh)]
    check_enclosure(x * y, min(prods), max(prods), prec, "mul")
    if yl > 0 or yh < 0:
        quots = [p / q for p in (xl, xh) for q in (yl, yh)]
        check_enclosure(x / y, min(quots), max(quots), prec, "div")
    if xl >= 0:
        r = iv.sqrt(x)
        lo, hi = ends(r)
        assert lo >= 0 and lo * lo <= xl and hi * hi >= xh, "sqrt misses"
        # tight: one relative step of 2**(2-prec) past each end overshoots the root
        step = 1 + Fraction(1, 2 ** (prec - 2))
        assert ((lo * step) ** 2 >= xl and (hi / step) ** 2 <= xh) or xh == 0, "sqrt too loose"


def test_mpmath_interval_arithmetic_9000_samples():
    rng = random.Random(20240611)
    saved = iv.prec
    for _ in range(9000):
        prec = rng.choice(PRECS)
        with IV(prec).scope():
            x, xl, xh = _rand_interval(rng, prec)
            y, yl, yh = _rand_interval(rng, prec)
            _check_all_ops(x, xl, xh, y, yl, yh, prec)
    assert iv.prec == saved


@given(float64_values(), float64_values(), st.sampled_from(PRECS))
@example(1.0, 3.0, 53)
@example(5e-324, 3.0, 113)
@example(-0.0, 1e-300, 53)
@example(1.7976931348623157e308, 1.7976931348623157e308, 53)
def test_mpmath_interval_arithmetic_nasty_points(a, b, prec):
    with IV(prec).scope():
        _check_all_ops(iv.mpf(a), Fraction(a), Fraction(a), iv.mpf(b), Fraction(b), Fraction(b), prec)


def test_undecidable_comparison_raises():
    # mpmath >= 1.4: an interval comparison that is not certain raises instead of answering a
    # falsy None; code must use exact endpoints, never `<` on intervals.
    with pytest.raises(ValueError):
        bool(iv.mpf([0, 2]) < 1)


# --- IV holds float64 exactly ---------------------------------------------------------------


@given(float64_values(), st.sampled_from((53, 113)))
@example(5e-324, 53)
@example(1.7976931348623157e308, 53)
@example(2.0**-1022 - 5e-324, 53)
@example(-0.0, 53)
def test_iv_holds_every_float64_exactly(x, prec):
    for arr in (np.array([x]), np.array([x], dtype=object), [x]):
        v = IV(prec).asarray(arr)[0]
        assert ends(v) == (Fraction(x), Fraction(x))
        assert C.lower(v) == C.upper(v) == mpq(*Fraction(x).as_integer_ratio())
    if abs(x) <= 3.4e38:  # float32 inputs as well
        f = np.float32(x)
        v = IV(prec).asarray(np.array([f]))[0]
        assert ends(v) == (Fraction(float(f)), Fraction(float(f)))


def test_iv_precision_must_be_an_int_of_53_bits_or_more():
    for bad in (52, 0, -1, 53.0, "113"):
        with pytest.raises(ValueError):
            C.IntervalContext(bad)
    assert IV(113) is IV(113) and IV(113).prec == 113


# --- endpoints and the enclosure vocabulary --------------------------------------------------


def _intervals(prec=200):
    with IV(prec).scope():
        return [iv.mpf(1) / 3, -iv.mpf(2) / 7, iv.mpf([-1.5, 2.25]), iv.mpf(5e-324),
                iv.mpf([0, 0]), iv.mpf(2) ** 600 / 3, iv.mpf(1) / (iv.mpf(2) ** 1100 * 3)]


@pytest.mark.parametrize("k", range(7))
def test_lower_upper_mid_rad_width(k):
    x = _intervals()[k]
    lo, hi = ends(x)
    assert C.lower(x) == mpq(lo.numerator, lo.denominator)
    assert C.upper(x) == mpq(hi.numerator, hi.denominator)
    assert C.mid(x) == mpq((lo + hi).numerator, (lo + hi).denominator) / 2
    assert C.rad(x) == (C.upper(x) - C.lower(x)) / 2 and C.rad(x) >= 0
    assert C.width(x) == 2 * C.rad(x)
    assert C.mid(x) - C.rad(x) == C.lower(x) and C.mid(x) + C.rad(x) == C.upper(x)


@pytest.mark.parametrize("k", range(7))
def test_lower_upper_float_are_directed(k):
    x = _intervals()[k]
    lf, uf = C.lower_float(x), C.upper_float(x)
    lo, hi = ends(x)
    assert isinstance(lf, float) and isinstance(uf, float)
    # lf is the largest float64 <= lo and uf the smallest float64 >= hi (all finite here)
    assert math.isfinite(lf) and math.isfinite(uf)
    assert Fraction(lf) <= lo < Fraction(float(np.nextafter(lf, np.inf)))
    assert Fraction(float(np.nextafter(uf, -np.inf))) < hi <= Fraction(uf)


def test_directed_floats_beyond_float64_range():
    with IV(113).scope():
        big = iv.mpf(2) ** 1100 / 3
        tiny = iv.mpf(1) / (iv.mpf(2) ** 1100 * 3)
    assert C.upper_float(big) == math.inf and C.lower_float(big) == float(np.finfo(float).max)
    assert C.lower_float(tiny) == 0.0 and C.upper_float(tiny) == 5e-324
    assert C.lower_float(-tiny) == -5e-324 and C.upper_float(-tiny) in (0.0, -0.0)


def test_contains():
    with IV(113).scope():
        x = iv.mpf([1, 2])
        third = iv.mpf(1) / 3
    assert C.contains(x, 1) and C.contains(x, 2.0) and C.contains(x, "3/2")
    assert C.contains(x, Fraction(7, 4)) and C.contains(x, mpq(2))
    assert not C.contains(x, float(np.nextafter(1.0, 0))) and not C.contains(x, "2000001/1000000")
    assert C.contains(third, "1/3") and not C.contains(third, 1 / 3)  # the double 1/3 is outside
    with pytest.raises(ValueError):
        C.contains(x, math.nan)


def test_nonfinite_endpoints_are_not_rationals():
    with IV(113).scope():
        x = iv.mpf(["-inf", 1])
    with pytest.raises(ValueError):
        C.lower(x)
    assert C.upper(x) == 1


@given(st.lists(float64_values(max_magnitude=1e300), min_size=4, max_size=4))
def test_iv_hull(v):
    a_lo, a_hi, b_lo, b_hi = sorted(v[:2]) + sorted(v[2:])
    with IV(113).scope():
        a, b = iv.mpf([a_lo, a_hi]), iv.mpf([b_lo, b_hi])
    h = C.iv_hull(a, b)
    assert ends(h) == (Fraction(min(a_lo, b_lo)), Fraction(max(a_hi, b_hi)))


@given(st.lists(float64_values(max_magnitude=1e300), min_size=4, max_size=4))
@example([1.0, 3.0, 2.0, 4.0])
@example([1.0, 5.0, 2.0, 3.0])
def test_minimum_maximum_enclose(v):
    a_lo, a_hi, b_lo, b_hi = sorted(v[:2]) + sorted(v[2:])
    ctx = IV(113)
    with ctx.scope():
        a = np.array([iv.mpf([a_lo, a_hi])], dtype=object)
        b = np.array([iv.mpf([b_lo, b_hi])], dtype=object)
    mn, mx = ctx.minimum(a, b)[0], ctx.maximum(a, b)[0]
    # {min(x, y) : x in a, y in b} = [min of lows, min of highs]; max likewise
    assert ends(mn) == (Fraction(min(a_lo, b_lo)), Fraction(min(a_hi, b_hi)))
    assert ends(mx) == (Fraction(max(a_lo, b_lo)), Fraction(max(a_hi, b_hi)))


def test_sign3():
    ctx = IV(113)
    with ctx.scope():
        xs = np.array([iv.mpf([1, 2]), iv.mpf([-2, -1]), iv.mpf([0, 0]), iv.mpf([-1, 1]),
                       iv.mpf([0, 1]), iv.mpf([-1, 0]), iv.mpf(5e-324), iv.mpf(1) / 3 - iv.mpf(1) / 3],
                      dtype=object)
    got = ctx.sign3(xs)
    assert got.dtype == np.int8
    assert got.tolist() == [1, -1, 0, UNKNOWN, UNKNOWN, UNKNOWN, 1, UNKNOWN]
    q = QQ.sign3(QQ.asarray([1.5, -2.0, 0.0, -0.0]))
    assert q.tolist() == [1, -1, 0, 0]


def test_sqrt_clamps_a_slightly_negative_lower_endpoint():
    ctx = IV(113)
    with ctx.scope():
        x = np.array([iv.mpf([-1e-30, 4]), iv.mpf([-0.0, 9]), iv.mpf([-2, -1])], dtype=object)
    r = ctx.sqrt(x[:2])
    assert ends(r[0])[0] == 0 and ends(r[0])[1] >= 2 and C.contains(r[0], 2) and C.contains(r[0], 0)
    assert ends(r[1]) == (0, 3)
    # an interval certainly below zero has no root to enclose: it must not come back as [0, x]
    with pytest.raises(ValueError):
        ctx.sqrt(x[2:])


def test_abs_encloses():
    ctx = IV(113)
    with ctx.scope():
        x = np.array([iv.mpf([-3, 2]), iv.mpf([-3, -2]), iv.mpf([1, 2])], dtype=object)
    got = [ends(v) for v in ctx.abs(x)]
    assert got == [(0, 3), (2, 3), (1, 2)]


# --- precision is explicit and scoped --------------------------------------------------------


def test_scope_sets_and_restores_precision():
    saved = iv.prec
    try:
        iv.prec = 77
        with IV(113).scope():
            assert iv.prec == 113
            with IV(200).scope():
                assert iv.prec == 200
            assert iv.prec == 113
        assert iv.prec == 77
        with pytest.raises(ZeroDivisionError):
            with IV(300).scope():
                raise ZeroDivisionError
        assert iv.prec == 77
    finally:
        iv.prec = saved


def test_kernels_run_at_the_context_precision_and_restore_it():
    saved = iv.prec
    try:
        iv.prec = 60
        P = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]])
        for prec in (113, 200):
            ctx = IV(prec)
            p0, t0 = ctx.asarray(P[0]), ctx.asarray(P[1])
            b1, _ = K.hermite_inner_controls(ctx, p0, t0, p0, t0, ctx.asarray(1.0))
            assert iv.prec == 60
            v = b1[0]  # 1/3, rounded at prec bits
            assert C.contains(v, "1/3")
            assert C.width(v) <= mpq(1, 2 ** (prec - 1))
            for e in v._mpi_:
                assert int(e[1]).bit_length() <= prec
    finally:
        iv.prec = saved


def test_iv_const_and_iv_from_mpq_are_tight():
    for prec in PRECS:
        c = IV(prec).const("1/3")
        assert isinstance(c, np.ndarray) and c.shape == ()
        v = c[()]
        assert C.contains(v, "1/3") and C.width(v) <= mpq(1, 3) * mpq(1, 2 ** (prec - 1))
        assert ends(IV(prec).const("3")[()]) == (3, 3)
        w = C.iv_from_mpq(mpq(-10, 7), prec)
        assert C.contains(w, "-10/7") and C.width(w) <= mpq(10, 7) * mpq(1, 2 ** (prec - 1))
    assert ends(C.iv_from_mpq(mpq(3, 8), 53)) == (Fraction(3, 8), Fraction(3, 8))
    # integers and denominators wider than the precision are enclosed, not truncated
    for q in (mpq(2**200 + 1), mpq(-(2**200 + 1), 3), mpq(1, 2**2000 + 1)):
        v = C.iv_from_mpq(q, 113)
        assert C.contains(v, q) and C.width(v) <= abs(q) * mpq(1, 2**111)
    v = IV(113).asarray(np.array([2**200 + 1], dtype=object))[0]
    assert C.contains(v, 2**200 + 1) and not C.contains(v, 2**200 - 2**90)


def test_to_mpq():
    assert C.to_mpq(0.1) == mpq(Fraction(0.1).numerator, Fraction(0.1).denominator)
    assert C.to_mpq(np.float32(0.1)) == mpq(*Fraction(float(np.float32(0.1))).as_integer_ratio())
    assert C.to_mpq(Fraction(2, 6)) == mpq(1, 3) and C.to_mpq("5/10") == mpq(1, 2)
    assert C.to_mpq(np.int64(-7)) == -7 and C.to_mpq(mpq(2, 3)) == mpq(2, 3)
    for bad in (math.inf, np.float64(math.nan)):
        with pytest.raises(ValueError):
            C.to_mpq(bad)
    with pytest.raises(TypeError):
        C.to_mpq(object())


# --- QQ ------------------------------------------------------------------------------------


def test_qq_sqrt_is_exact_or_raises():
    r = QQ.sqrt(np.array([mpq(9, 4), mpq(0), mpq(1, 2**100), mpq(49)], dtype=object))
    assert r.tolist() == [mpq(3, 2), 0, mpq(1, 2**50), 7]
    for bad in (mpq(2), mpq(-4), mpq(9, 8)):
        with pytest.raises(ArithmeticError):
            QQ.sqrt(np.array([bad], dtype=object))


@given(float64_values(max_magnitude=1e300))
def test_qq_is_exact(x):
    a = QQ.asarray(np.array([x]))
    assert a[0] == mpq(*Fraction(x).as_integer_ratio())
    s = (a * a - a * a)[0]
    assert s == 0
    assert QQ.const("1/3")[()] == mpq(1, 3)
    assert QQ.to_float(QQ.asarray([x]))[0] == x


def test_qq_minimum_maximum_abs():
    a = QQ.asarray([1.0, -2.0, 0.5])
    b = QQ.asarray([0.5, -3.0, 0.5])
    assert QQ.minimum(a, b).tolist() == [mpq(1, 2), -3, mpq(1, 2)]
    assert QQ.maximum(a, b).tolist() == [1, -2, mpq(1, 2)]
    assert QQ.abs(b).tolist() == [mpq(1, 2), 3, mpq(1, 2)]


def test_iv_encloses_qq_through_a_kernel():
    rng = np.random.default_rng(7)
    P = rng.standard_normal((5, 4, 3)).astype(np.float32)
    u = rng.random(5)
    q = K.cubic_point(QQ, QQ.asarray(P), QQ.asarray(u))
    v = K.cubic_point(IV(113), IV(113).asarray(P), IV(113).asarray(u))
    for qq, vv in zip(q.ravel(), v.ravel()):
        assert C.contains(vv, qq) and C.width(vv) <= mpq(1, 2**100)
