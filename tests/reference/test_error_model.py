"""reference.error_model against its documented formulas, in exact rational arithmetic.

Expected values come from the formulas of docs/decisions.md ("Error models of the Rounded path
outputs", "Error models and underflow") and each function's docstring, evaluated here in exact
rationals (square and fourth roots through exact squares or a 200-bit rational enclosure):
every bound must be at least the formula's exact value (it is rounded up) and within a few
float64 ulps of it (so a dropped or changed term shows). The last part checks the underflow
terms against float32 computations whose exact error is known (the bounds that were missing
them were refuted there).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from gmpy2 import isqrt

from reference import error_model as EM
from reference import kernel as K
from reference.context import F32
from reference.fp import U32, U64

U16 = 2.0**-11
ETA = {U64: Fraction(1, 2**1074), U32: Fraction(1, 2**149), U16: Fraction(1, 2**24)}
F32_MAX = float(np.finfo(np.float32).max)
MAGNITUDES = [0.0, 2.0**-149, 1e-40, 2.0**-126, 0.1, 1.0, 3.0, 1e7, 1e30, F32_MAX]
SLACK = Fraction(1, 2**48)  # a bound is a few roundings up from its formula, never more

Q = Fraction


def root_hi(q: Fraction, k: int = 2, bits: int = 200) -> Fraction:
    """A rational upper bound of ``q ** (1/k)`` within ``2**-bits`` relative (k = 2 or 4), at
    any magnitude (the scale follows q's exponent)."""
    if q == 0:
        return Fraction(0)
    r = q
    for _ in range(k // 2):
        m = bits - (r.numerator.bit_length() - r.denominator.bit_length()) // 2 + 1
        N = math.ceil(r * Fraction(4) ** m)  # r <= N / 4**m
        n = int(isqrt(N))
        n += n * n < N
        r = Fraction(n) / Fraction(2) ** m
    return r


def assert_rounded_up(bound, exact: Fraction, what: str, slack: Fraction = SLACK):
    """``exact <= bound <= exact (1 + slack)`` plus two subnormal steps (an ``up`` of a zero
    product and one of the sum)."""
    b = Q(float(bound))
    assert b >= exact, f"{what}: bound {float(bound)!r} is below the formula's {float(exact)!r}"
    assert b <= exact * (1 + slack) + Q(2, 2**1074), \
        f"{what}: bound {float(bound)!r} is more than a few ulps above {float(exact)!r}"


# --- magnitudes -----------------------------------------------------------------------------


def test_span_magnitude_is_the_exact_largest_magnitude():
    P = np.array([[1.5, -2.0, 0.25], [0.0, 1.0, -7.5], [3.0, 7.25, 0.0], [-0.0, 1e-40, 2.0]], dtype=np.float32)
    assert EM.span_magnitude(P) == 7.5 and isinstance(EM.span_magnitude(P), float)
    assert EM.span_magnitude(np.array([-3.0, 2.0])) == 3.0
    assert EM.span_magnitude(np.array([np.float32(0.1)])) == float(np.float32(0.1))  # read exactly


# --- per-component models: K u * (magnitude) + K eta ----------------------------------------


@pytest.mark.parametrize("u", [U64, U32, U16])
@pytest.mark.parametrize("E", MAGNITUDES)
def test_position_derivative_second_derivative(E, u):
    k, eta = Q(16), ETA[u]
    assert_rounded_up(EM.position_bound(E, u), k * Q(u) * Q(E) + k * eta, "position")
    assert_rounded_up(EM.derivative_bound(E, u), k * Q(u) * 6 * Q(E) + k * eta, "derivative")
    assert_rounded_up(EM.second_derivative_bound(E, u), k * Q(u) * 24 * Q(E) + k * eta, "second derivative")


@pytest.mark.parametrize("E", [0.0, 1.0, 1e-300, 1e30])
def test_explicit_eta_replaces_the_format_default(E):
    for eta in (0.0, 2.0**-200, 2.0**-60):
        k = Q(16)
        assert_rounded_up(EM.position_bound(E, U64, eta=eta), k * Q(U64) * Q(E) + k * Q(eta), "position eta")
        assert_rounded_up(EM.derivative_bound(E, U32, eta=eta), k * Q(U32) * 6 * Q(E) + k * Q(eta), "der eta")
        assert_rounded_up(EM.second_derivative_bound(E, U64, eta=eta), k * Q(U64) * 24 * Q(E) + k * Q(eta), "sec")
    # an arithmetic with an unknown unit roundoff must say its eta
    for f in (EM.position_bound, EM.derivative_bound, EM.second_derivative_bound):
        with pytest.raises(ValueError):
            f(1.0, 2.0**-30)
        assert f(1.0, 2.0**-30, eta=0.0) >= 16 * 2.0**-30


def test_the_model_constant_is_16():
    assert EM.K == 16.0


@pytest.mark.parametrize("u", [U64, U32])
def test_hermite_bound_per_component(u):
    p = np.array([1.0, -3.0, 0.0])
    t = np.array([-2.0, 0.5, 1e-40])
    for h in (1.5, -1.5, 0.0, 1e-3):
        got = EM.hermite_bound(p, t, h, u)
        assert got.shape == (3,)
        for i in range(3):
            mag = abs(Q(p[i])) + abs(Q(h)) * abs(Q(t[i])) / 3
            assert_rounded_up(got[i], 16 * Q(u) * mag + 16 * ETA[u], f"hermite[{i}] h={h}")
    got = EM.hermite_bound(p, t, 2.0, U64, eta=0.0)
    assert_rounded_up(got[1], 16 * Q(U64) * (3 + Q(2) * Q(1, 2) / 3), "hermite eta=0")


@pytest.mark.parametrize("u", [U64, U32])
def test_catmull_rom_bound(u):
    # waypoints on the z axis with perfect-square chord lengths: knot intervals 1, 2, 4 exactly
    cases = [
        (np.array([[0, 0, 0], [0, 0, 1], [0, 0, 5], [0, 0, 21]], dtype=float), 21, 7),
        (np.array([[0, 0, 0], [0, 0, -1], [0, 0, -5]], dtype=float), 5, 3),
        (np.array([[2, 0, 0], [2, 0, 9]], dtype=float), 9, 3),
    ]
    for pts, W, S in cases:
        assert_rounded_up(EM.catmull_rom_bound(pts, u), 64 * Q(u) * (Q(W) + Q(S) ** 2), f"catmull-rom {pts}",
                          slack=Fraction(1, 2**45))
    # an irrational knot interval: 5 ** (1/2), bracketed exactly
    pts = np.array([[0, 0, 0], [3, 4, 0]], dtype=float)
    s_hi = root_hi(Q(5))
    b = Q(EM.catmull_rom_bound(pts, u))
    assert b >= 64 * Q(u) * (4 + s_hi**2) and b <= 64 * Q(u) * (4 + s_hi**2) * (1 + Fraction(1, 2**45))


@pytest.mark.parametrize("u", [U64, U32])
def test_difference_bound(u):
    for a, b in ((1.0, 2.0), (0.0, 0.0), (1e-300, 3e-300), (6e7, 0.5)):
        assert_rounded_up(EM.difference_bound(a, b, u), 16 * Q(u) * (Q(a) + Q(b)) + 16 * ETA[u], "difference")
    assert_rounded_up(EM.difference_bound(3.0, 4.0, u, eta=0.0), 16 * Q(u) * 7, "difference eta=0")


# --- models with roots: compared through exact squares and fourth powers ----------------------


@pytest.mark.parametrize("u", [U64, U32, U16])
@pytest.mark.parametrize("x", [0.0, 2.0**-149, 1e-30, 1.0, -2.5, 1e30])
def test_relative_gap_and_knot_bounds(x, u):
    eta = ETA[u]
    lin = 16 * Q(u) * abs(Q(x))
    for name, f, k in (("relative", EM.relative_bound, 2), ("gap", EM.gap_bound, 2),
                       ("knot", EM.knot_interval_bound, 4)):
        b = Q(f(x, u))
        extra = b - lin
        # at least the root term: extra ** k >= 2 eta (exact powers)
        assert extra > 0 and extra**k >= 2 * eta, f"{name}({x}, {u}): root term below (2 eta)^(1/{k})"
        # and not much more than it
        tight = root_hi(2 * eta, k) * (1 + Fraction(1, 2**48)) + lin * Fraction(1, 2**50) + Q(4, 2**1074)
        assert extra <= tight, f"{name}({x}, {u}): bound {float(b)!r} too loose"
    # eta = 0: purely relative
    for f in (EM.relative_bound, EM.gap_bound, EM.knot_interval_bound):
        assert_rounded_up(f(x, u, eta=0.0), lin, f"{f.__name__} eta=0")


@pytest.mark.parametrize("u", [U64, U32])
def test_angle_bound(u):
    ku = 16 * Q(u)
    for s in (2.0, 1.0, 0.01):
        assert_rounded_up(EM.angle_bound(s, u), ku * (2 + 4 / (Q(s) - ku)), f"angle({s})", slack=Fraction(1, 2**46))
    # the model is vacuous at and below 16 u and finite just above it
    edge = 16 * u
    assert EM.angle_bound(edge, u) == math.inf and EM.angle_bound(0.0, u) == math.inf
    assert EM.angle_bound(-1.0, u) == math.inf
    above = float(np.nextafter(edge, 1.0))
    assert math.isfinite(EM.angle_bound(above, u)) and EM.angle_bound(above, u) > 1e10


def _tangent_formula(E: float, speed: float, u: float, eta: Fraction) -> tuple[Fraction, Fraction]:
    """The docstring's bound ``(2 e + r)/((speed - e - r)(1 - 4u)) + K u + K eta`` with
    ``e = sqrt(3) (K u 6E + K eta)`` and ``r = sqrt(2 eta)``, bracketed in rationals: (lo, hi)."""
    D = 16 * Q(u) * 6 * Q(E) + 16 * eta
    s3_hi, r_hi = root_hi(Q(3)), root_hi(2 * eta)
    s3_lo, r_lo = s3_hi * (1 - Fraction(1, 2**190)), r_hi * (1 - Fraction(1, 2**190))
    uu = max(Q(u), Q(U64))

    def f(s3, r):
        e = s3 * D
        return (2 * e + r) / ((Q(speed) - e - r) * (1 - 4 * uu)) + 16 * Q(u) + 16 * eta

    return f(s3_lo, r_lo), f(s3_hi, r_hi)


@pytest.mark.parametrize("u", [U64, U32])
@pytest.mark.parametrize("E,speed", [(1.0, 3.0), (1.0, 0.5), (1e7, 1e6), (1e-30, 1e-29), (2.0**-60, 2.0**-50),
                                     (0.0, 1.0), (3.0, 1e-9),
                                     # the underflow term r = sqrt(2 eta) a few percent of the speed
                                     (2.0**-80, 1e-21), (1e-170, 1e-160)])
def test_tangent_bound(E, speed, u):
    b = EM.tangent_bound(E, speed, u)
    lo, hi = _tangent_formula(E, speed, u, ETA[u])
    if lo <= 0 or hi <= 0:  # speed within the derivative error: no direction is certain
        assert b == math.inf
        return
    assert Q(b) >= hi, f"tangent_bound({E}, {speed}, {u}) = {b!r} is below the formula"
    assert Q(b) <= lo * (1 + Fraction(1, 2**46)), f"tangent_bound({E}, {speed}, {u}) = {b!r} too loose"
    # explicit eta
    b0 = EM.tangent_bound(E, speed, u, eta=0.0)
    lo0, hi0 = _tangent_formula(E, speed, u, Fraction(0))
    assert hi0 <= Q(b0) <= lo0 * (1 + Fraction(1, 2**46))


@pytest.mark.parametrize("u", [U64, U32])
def test_tangent_bound_is_vacuous_exactly_where_the_speed_is_uncertain(u):
    E = 1.0
    e = float(np.nextafter(math.sqrt(3.0) * (1 + 2 * U64) * EM.derivative_bound(E, u), np.inf))
    assert EM.tangent_bound(E, 0.0, u) == math.inf
    assert EM.tangent_bound(E, e / 2, u) == math.inf
    assert math.isfinite(EM.tangent_bound(E, 4 * e, u))
    assert EM.tangent_bound(E, 4 * e, u) > EM.tangent_bound(E, 8 * e, u) > EM.tangent_bound(E, 1e6 * e, u)
    with pytest.raises(ValueError):
        EM.tangent_bound(E, 1.0, 2.0**-30)


def test_subsegment_error_bound_per_component_and_batched():
    P = np.array([[[1.0, -2.0, 0.0], [-4.0, 1.0, 0.0], [0.5, 0.5, 0.0], [2.0, -8.0, 0.0]],
                  [[1e-40, 3.0, -1e30], [0.0, 0.0, 0.0], [0.0, -6.0, 0.0], [0.0, 0.0, 0.0]]], dtype=np.float32)
    got = EM.subsegment_error_bound(P)
    assert got.shape == (2, 3)
    for b in range(2):
        for c in range(3):
            Ec = max(abs(Q(float(x))) for x in P[b, :, c])
            assert_rounded_up(got[b, c], 16 * Q(U64) * Ec + 16 * Q(1, 2**1074), f"subsegment[{b},{c}]")


# --- underflow: the absolute terms cover float32 computations that lose everything ------------


def test_gap_of_a_float32_producer_below_the_underflow_threshold():
    """A float32 implementation's joint gap |a - b| = 2**-80 squares to 2**-160, below float32's
    smallest subnormal: the computed gap is 0, the error 2**-80. The binary64-only absolute term
    2**-1074 refuted this correct float32 producer; sqrt(2 eta) with eta = 2**-149 covers it."""
    a = np.array([2.0**-80, 0.0, 0.0], dtype=np.float32)
    b = np.zeros(3, dtype=np.float32)
    d = a - b
    with np.errstate(under="ignore"):
        computed = np.sqrt(np.sum(d * d, dtype=np.float32))
    assert computed.dtype == np.float32 and computed == 0.0
    error = abs(Q(float(computed)) - Q(2) ** -80)  # the exact gap is 2**-80
    assert error <= Q(EM.gap_bound(float(computed), U32))


def test_joint_derivative_difference_of_a_float32_producer_in_the_subnormal_range():
    """``d = 3 (P3 - P2) / w`` of subnormal controls in float32: the quotient 2.4 * 2**-149
    rounds to 2 * 2**-149, an absolute error 0.4 eta that no relative term of magnitude E
    covers; the K eta term does."""
    tiny = np.float32(2.0**-149)
    P_in = np.array([[0, 0, 0], [0, 0, 0], [0, 0, 0], [tiny, 0, 0]], dtype=np.float32)
    P_out = np.zeros((4, 3), dtype=np.float32)
    w = np.float32(1.25)
    with np.errstate(under="ignore"):
        d_in, d_out, _, _ = K.joint_scaled_derivatives(F32, P_in, P_out, w, w)
    computed = Q(float(d_in[0])) - Q(float(d_out[0]))
    exact = 3 * Q(2) ** -149 / Q(1.25)
    E_in = EM.span_magnitude(P_in)
    bound = EM.difference_bound(6 * E_in / 1.25, 0.0, U32)
    assert computed != exact
    assert abs(computed - exact) <= Q(bound)


@pytest.mark.parametrize("a", [2.0**-76, 1.3 * 2.0**-72, 1.7 * 2.0**-70])
def test_tangent_of_a_float32_producer_whose_speed_squares_underflow(a):
    """Controls on a line, ``B'(0) = 3a`` with ``(3a)^2`` in float32's subnormal range: the
    computed speed loses relative accuracy (at a = 2**-76 the square 1.125 * 2**-149 rounds to
    2**-149 and the tangent comes out 1.06); the underflow term of the bound covers it (and is
    vacuous where the speed is below sqrt(2 eta))."""
    a = np.float32(a)
    P = np.array([[0, 0, 0], [a, 0, 0], [2 * a, 0, 0], [3 * a, 0, 0]], dtype=np.float32)
    u = np.float32(0.0)
    with np.errstate(under="ignore"):
        v = K.cubic_derivative(F32, P, u)
        s = K.norm(F32, v)
        t = v / s
    assert t.dtype == np.float32
    # the exact unit tangent is (1, 0, 0); the Euclidean error, exactly
    err2 = (Q(float(t[0])) - 1) ** 2 + Q(float(t[1])) ** 2 + Q(float(t[2])) ** 2
    bound = EM.tangent_bound(EM.span_magnitude(P), float(s), U32)
    assert err2 > Q(U32) ** 2, "the case must lose more than a unit roundoff"
    assert math.isinf(bound) or err2 <= Q(bound) ** 2


def test_eta_is_keyword_only_and_u_may_be_named():
    """``eta`` is never positional (a third positional argument is a mistake, not an eta), and
    ``u`` may be passed by name."""
    for f, args in ((EM.position_bound, (1.0,)), (EM.derivative_bound, (1.0,)), (EM.second_derivative_bound, (1.0,)),
                    (EM.tangent_bound, (1.0, 3.0)), (EM.gap_bound, (1.0,)), (EM.difference_bound, (1.0, 2.0)),
                    (EM.knot_interval_bound, (1.0,)), (EM.relative_bound, (1.0,)),
                    (EM.hermite_bound, (np.ones(3), np.ones(3), 1.0))):
        with pytest.raises(TypeError):
            f(*args, U32, 0.0)
        assert np.all(np.asarray(f(*args, u=U32)) == np.asarray(f(*args, U32)))
        assert np.all(np.asarray(f(*args, u=U32, eta=0.0)) <= np.asarray(f(*args, U32)))


@pytest.mark.parametrize("u", [U64, U32])
@pytest.mark.parametrize("factor", [1.5, 2.5, 4.0])
def test_tangent_bound_near_the_vacuous_speed(u, factor):
    """Close to speed = e the bound is most sensitive to e itself (a few ulps of e show)."""
    E = 1.0
    e_exact = root_hi(Q(3)) * (16 * Q(u) * 6 * Q(E) + 16 * ETA[u])
    speed = float(e_exact * Q(factor))
    b = EM.tangent_bound(E, speed, u)
    lo, hi = _tangent_formula(E, speed, u, ETA[u])
    assert hi <= Q(b) <= lo * (1 + Fraction(1, 2**46))


@pytest.mark.parametrize("u", [U64, U32])
def test_catmull_rom_bound_with_knot_intervals_below_one(u):
    # chords 1/4 and 1/16: knot intervals 1/2 and 1/4 exactly, S = 3/4 (a margin applied as a
    # power instead of a factor would shrink S below its exact value)
    pts = np.array([[0, 0, 0], [0, 0, 0.25], [0, 0, 0.3125]], dtype=float)
    assert_rounded_up(EM.catmull_rom_bound(pts, u), 64 * Q(u) * (Q(0.3125) + Q(3, 4) ** 2), "catmull-rom S<1",
                      slack=Fraction(1, 2**45))
    # a chord of 2**-40: knot interval 2**-20 and S**2 = W (the margin's form shows at 100 u)
    pts = np.array([[0, 0, 0], [0, 0, 2.0**-40]], dtype=float)
    assert_rounded_up(EM.catmull_rom_bound(pts, u), 64 * Q(u) * (Q(2) ** -40 + Q(2) ** -40), "catmull-rom tiny",
                      slack=Fraction(1, 2**45))
