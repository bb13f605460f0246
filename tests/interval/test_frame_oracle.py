"""The frame oracle (``interval.frame``): exact speed decisions, the validated mp operations,
and the true rotation-minimizing frame against independent truths.

Independent truths: hand-derived speeds (a uniform straight span has |B'| = 3 |P1 - P0|; the
cusp span has B'(1/2) = 0); MPFR with directed rounding at 256 bits for ``mp.atan2`` and
``mp.sqrt``; for the RMF, a planar curve keeps the plane normal, a straight span keeps any
normal, and on a twisted cubic the RMF turns against the Frenet frame by exactly
``-integral tau |B'| du`` (the torsion integral, by mpmath quadrature, a different method).
"""

from __future__ import annotations


import gmpy2
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from mpmath import mp

from interval.context import to_mpq
from interval.frame import (
    angle_between,
    arc_length,
    bernstein_speed_squared,
    decide_speed_above,
    decide_speed_at_most,
    rotate_between,
    signed_angle,
    speed_witness,
    step_difference,
    true_rmf,
    true_tangent,
)

CUSP = np.array([[-1, 0, 0], [1, 1, 0], [-1, 1, 0], [1, 0, 0]], dtype=np.float64)
LINE = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], dtype=np.float64)  # speed 3 everywhere
TWISTED = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=np.float64)


def test_bernstein_coefficients_bound_the_exact_speed_squared():
    b = bernstein_speed_squared(LINE, 0, 1)
    assert all(x == 9 for x in b)
    rng = np.random.default_rng(2)
    P = rng.normal(size=(4, 3)).astype(np.float32)
    b = bernstein_speed_squared(P, 0.25, 0.75)
    for u in np.linspace(0.25, 0.75, 11):
        d = 3 * ((1 - u) ** 2 * (P[1] - P[0]) + 2 * u * (1 - u) * (P[2] - P[1]) + u**2 * (P[3] - P[2]))
        f = float(d.astype(np.float64) @ d.astype(np.float64))
        assert float(min(b)) <= f * (1 + 1e-12) and f <= float(max(b)) * (1 + 1e-12)


def test_speed_decisions_on_hand_derived_spans():
    assert decide_speed_above(LINE, 0, 1, 2.999).holds is True
    no = decide_speed_above(LINE, 0, 1, 3.0)  # |B'| = 3 is not > 3
    assert no.holds is False and no.witness[1] == 9
    assert decide_speed_at_most(LINE, 0, 1, 3.0).holds is True
    assert decide_speed_at_most(LINE, 0, 1, 2.5).holds is False
    c = decide_speed_above(CUSP, 0.25, 0.75, 0.0)
    assert c.holds is False and c.witness[0] == gmpy2.mpq(1, 2) and c.witness[1] == 0
    assert decide_speed_above(CUSP, 0.0, 0.25, 0.1).holds is True
    # a budget too small to decide is undecided, never verified
    tight = decide_speed_above(CUSP, 0.25, 0.75, 0.0, max_pieces=1)
    assert tight.holds is None and tight.bound <= 0 and tight.witness is None
    # just off the cusp the speed is positive: shown, with the exact minimum's bound positive
    near = decide_speed_above(CUSP, 0.5 + 2.0**-20, 0.75, 0.0)
    assert near.holds is True and near.bound > 0


def _mpfr(x, prec=256):
    ctx = gmpy2.context(gmpy2.get_context(), precision=prec)
    with gmpy2.context(ctx):
        return gmpy2.mpfr(to_mpq(x))


@pytest.mark.parametrize("op", ["atan2", "sqrt"])
def test_mp_atan2_and_sqrt_agree_with_mpfr(op):
    """Before trusting mp.atan2 / mp.sqrt at 113 bits: within 2 ulps of MPFR's 256-bit values."""
    rng = np.random.default_rng(11)
    for _ in range(2000):
        y, x = (float(rng.normal() * 10.0 ** rng.integers(-8, 8)) for _ in range(2))
        with mp.workprec(113):
            got = mp.atan2(mp.mpf(y), mp.mpf(x)) if op == "atan2" else mp.sqrt(mp.mpf(abs(x)))
            man, exp = mp.mpf(got).man_exp
        got_q = gmpy2.mpq(int(man)) * (gmpy2.mpq(2) ** exp if exp >= 0 else gmpy2.mpq(1, 2 ** (-exp)))
        got_q = -got_q if got < 0 else got_q  # man_exp carries the magnitude only
        ctx = gmpy2.context(gmpy2.get_context(), precision=256)
        with gmpy2.context(ctx):
            ref = gmpy2.atan2(_mpfr(y), _mpfr(x)) if op == "atan2" else gmpy2.sqrt(_mpfr(abs(x)))
            err = abs(gmpy2.mpfr(got_q) - ref)
            assert err <= abs(ref) * gmpy2.mpfr(2) ** -111 + gmpy2.mpfr(2) ** -1000, (y, x)


def _planar():
    return np.array([[[0, 0, 0], [1, 1, 0], [2, -1, 0], [3, 0, 0]],
                     [[3, 0, 0], [4, 1, 0], [5, 1.5, 0], [6, 0.5, 0]]], dtype=np.float64)


def test_rmf_of_a_planar_curve_keeps_the_plane_normal():
    C = _planar()
    targets = [(0, 0.3), (0, 1.0), (1, 0.0), (1, 0.77), (1, 1.0)]
    tr = true_rmf(C, (0, 0.0), (1, 1.0), (0.0, 0.0, 1.0), targets)
    for key in targets:
        n = tr.normals[key]
        assert abs(n[0]) < 1e-28 and abs(n[1]) < 1e-28 and abs(n[2] - 1) < 1e-28
    assert tr.error < 1e-26
    # an in-plane normal turns with the tangent: it stays in the plane, perpendicular to t
    tr2 = true_rmf(C, (0, 0.0), (1, 1.0), (-1.0, 1.0, 0.0), targets)
    for (k, u) in targets:
        n = tr2.normals[(k, u)]
        t = true_tangent(C[k], u)
        assert abs(n[2]) < 1e-28 and abs(n[0] * t[0] + n[1] * t[1]) < 1e-28


def test_rmf_of_a_straight_span_keeps_its_normal():
    tr = true_rmf(LINE[None], (0, 0.0), (0, 1.0), (0.0, 0.6, 0.8), [(0, 0.5), (0, 1.0)])
    for key in ((0, 0.5), (0, 1.0)):
        n = tr.normals[key]
        # the float seed (0.6, 0.8) normalized, kept
        assert abs(n[0]) < 1e-30 and abs(n[1] - tr.start_normal[1]) < 1e-30 and abs(n[2] - tr.start_normal[2]) < 1e-30
        assert abs(tr.start_normal[1] - mp.mpf("0.6")) < 1e-16


def test_rmf_turns_against_frenet_by_the_torsion_integral():
    """On a twisted cubic, angle(RMF, Frenet normal) changes by -integral tau |B'| du."""
    P = TWISTED

    def derivs(u):
        s = 1 - u
        d1 = [3 * (s * s * (P[1][i] - P[0][i]) + 2 * s * u * (P[2][i] - P[1][i]) + u * u * (P[3][i] - P[2][i]))
              for i in range(3)]
        d2 = [6 * (s * (P[2][i] - 2 * P[1][i] + P[0][i]) + u * (P[3][i] - 2 * P[2][i] + P[1][i])) for i in range(3)]
        d3 = [6 * (P[3][i] - 3 * P[2][i] + 3 * P[1][i] - P[0][i]) for i in range(3)]
        return d1, d2, d3

    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

    def dot(a, b):
        return sum(x * y for x, y in zip(a, b))

    def frenet_normal(u):
        d1, d2, _ = derivs(u)
        b = cross(d1, d2)
        n = cross(b, d1)
        s = mp.sqrt(dot(n, n))
        return [x / s for x in n]

    with mp.workprec(113):
        def torsion_speed(u):
            d1, d2, d3 = derivs(mp.mpf(u))
            c = cross(d1, d2)
            return dot(c, d3) / dot(c, c) * mp.sqrt(dot(d1, d1))

        total = mp.quad(torsion_speed, [0, 0.5, 1])
        n0 = frenet_normal(mp.mpf(0))
        n0f = [float(x) for x in n0]
    tr = true_rmf(P[None], (0, 0.0), (0, 1.0), n0f, [(0, 1.0)])
    with mp.workprec(113):
        t1 = true_tangent(P, 1.0)
        n1 = frenet_normal(mp.mpf(1))
        # the seed is n0 rounded to floats: measure the RMF's start against n0 as well
        start = signed_angle(n0, tr.start_normal, true_tangent(P, 0.0))
        end = signed_angle(n1, tr.normals[(0, 1.0)], t1)
        assert abs((end - start) - (-total)) < 1e-20
    assert tr.error < 1e-22


def test_halving_reports_the_integrators_own_error():
    rng = np.random.default_rng(5)
    P = rng.normal(size=(1, 4, 3)).astype(np.float32).astype(np.float64)
    tr = true_rmf(P, (0, 0.0), (0, 1.0), (0.0, 0.0, 1.0), [(0, 0.5)], tol=1e-24)
    assert tr.error < 1e-20
    loose = true_rmf(P, (0, 0.0), (0, 1.0), (0.0, 0.0, 1.0), [(0, 0.5)], tol=1e-6)
    assert loose.error > tr.error
    with mp.workprec(113):
        assert angle_between(loose.normals[(0, 0.5)], tr.normals[(0, 0.5)]) <= loose.error * 4 + 1e-20



def test_minimal_rotation_maps_a_to_b_fixes_the_axis_and_keeps_lengths():
    rng = np.random.default_rng(8)
    with mp.workprec(113):
        for _ in range(20):
            a, b, v = (rng.normal(size=3) for _ in range(3))
            a = [mp.mpf(x) for x in a / np.linalg.norm(a)]
            b = [mp.mpf(x) for x in b / np.linalg.norm(b)]
            a = [x / mp.sqrt(sum(y * y for y in a)) for x in a]
            b = [x / mp.sqrt(sum(y * y for y in b)) for x in b]
            v = [mp.mpf(x) for x in v]
            ra = rotate_between(a, a, b)
            assert max(abs(x - y) for x, y in zip(ra, b)) < 1e-30
            w = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
            rw = rotate_between(w, a, b)
            assert max(abs(x - y) for x, y in zip(rw, w)) < 1e-30
            rv = rotate_between(v, a, b)
            assert abs(sum(x * x for x in rv) - sum(x * x for x in v)) < 1e-29


def test_step_difference_is_zero_on_a_plane_and_fifth_order_on_a_helix():
    """A planar curve keeps its plane normal through every reflection (both steps give it, the
    difference is 0); the double-reflection method is fourth order, so one step and two half steps
    differ by O(h^5): halving h divides the difference by about 32."""
    C = _planar()
    for a, b in ((0.0, 0.5), (0.25, 0.375), (0.5, 1.0)):
        assert step_difference(C[0], a, b) < 1e-30
    H = np.array([[1, 0, 0], [1, 0.5523, 0.13], [0.5523, 1, 0.27], [0, 1, 0.4]], dtype=np.float32).astype(np.float64)
    d = [step_difference(H, 0.25, 0.25 + 2.0**-k) for k in (6, 7, 8)]
    assert 27 < d[0] / d[1] < 36 and 27 < d[1] / d[2] < 36


def test_arc_length_of_a_line_and_of_a_twisted_cubic_against_mp_quad():
    L, err = arc_length(LINE, 0.0, 1.0)
    assert abs(L - 3.0) < 1e-14 and err < 1e-14
    L, err = arc_length(LINE, 0.25, 0.5)
    assert abs(L - 0.75) < 1e-14
    with mp.workprec(80):
        want = mp.quad(lambda u: mp.sqrt(sum(
            (3 * ((1 - u) ** 2 * (TWISTED[1][i] - TWISTED[0][i]) + 2 * u * (1 - u) * (TWISTED[2][i] - TWISTED[1][i])
                  + u * u * (TWISTED[3][i] - TWISTED[2][i]))) ** 2 for i in range(3))), [0, 0.3, 0.7])
    L, err = arc_length(TWISTED, 0.0, 0.7)
    assert abs(L - float(want)) < 1e-13 and err < 1e-12


def test_speed_witness_finds_a_non_dyadic_zero_exactly():
    v = np.array([1.0, 0.5, 0.25])
    P = np.array([0 * v, 1 * v, -1 * v, 3 * v])  # B'(u) = 27 (u - 1/3)^2 v
    u, f = speed_witness(P, 0.25, 0.5, 0.0, above=True)
    assert u == gmpy2.mpq(1, 3) and f == 0
    assert speed_witness(P, 0.5, 1.0, 0.0, above=True) is None  # the speed is positive there
    # a slow claim refuted: some speed above 1 on [0.5, 1]
    u, f = speed_witness(P, 0.5, 1.0, 1.0, above=False)
    assert f > 1 and 0.5 <= u <= 1


# The integration and the acceptance steps run on MPFR (gmpy2) because it is several times faster
# than mpmath; every operation of both is correctly rounded to nearest even at the same
# precision, so the two must give the same bits. mpmath's own arithmetic is the independent
# side: a wrong rounding context, a product rounded before its sum, a float conversion or a
# lost bit in the mp <-> MPFR conversion would show here.
_FLOATS32 = st.floats(-1e3, 1e3, allow_nan=False, width=32)
_NO_SHRINK = (Phase.explicit, Phase.generate)  # a failing integration is seconds: report it as found


@settings(max_examples=12, deadline=None, derandomize=True, phases=_NO_SHRINK)
@given(st.lists(_FLOATS32, min_size=21, max_size=21), st.sampled_from([(0.0, 1.0), (0.25, 0.875), (0.125, 0.5)]))
def test_the_mpfr_integration_has_mpmaths_bits(values, ends):
    from interval.frame import _MP, _true_rmf

    v = np.array(values[:18], dtype=np.float64).reshape(2, 3, 3)
    C = np.stack([np.concatenate([v[0], v[1][:1]]), np.concatenate([v[1][:1], v[1][1:], v[0][:1] + 1])])
    seed = (values[18], values[19], values[20] + 0.5)
    start, end = (0, ends[0]), (1, ends[1])
    targets = [(0, ends[0]), (0, 0.625), (1, 0.1), (1, ends[1])]
    try:
        got = true_rmf(C, start, end, seed, targets)
    except ValueError as e:  # a zero of the speed, or a seed along the tangent: both must say so
        with mp.workprec(113), pytest.raises(type(e)):
            _true_rmf(C, start, end, seed, targets, 1e-24, _MP)
        return
    with mp.workprec(113):
        want = _true_rmf(C, start, end, seed, targets, 1e-24, _MP)
    assert got.normals == want.normals and got.end == want.end and got.error == want.error
    assert (got.start_normal, got.start_tangent, got.end_tangent) == (want.start_normal, want.start_tangent,
                                                                      want.end_tangent)
    assert all(x._mpf_[3] <= 113 for v in got.normals.values() for x in v)  # no extra bits


@settings(max_examples=40, deadline=None, derandomize=True, phases=_NO_SHRINK)
@given(st.lists(_FLOATS32, min_size=12, max_size=12), st.integers(1, 12), st.integers(0, 2**12))
def test_the_mpfr_acceptance_steps_have_mpmaths_bits(values, depth, index):
    from interval.frame import _MP, _MPFR, _Span, _mpfr_context, _step_pair, _to_mp

    P = np.array(values, dtype=np.float64).reshape(4, 3)
    width = 2.0**-depth
    a = (index % 2**depth) * width
    try:
        with _mpfr_context(113):
            sp = _Span(P, _MPFR)
            got = _step_pair(sp, [[gmpy2.mpfr(float(x)) for x in row] for row in P], a, a + width)
    except ValueError as e:
        with mp.workprec(113), pytest.raises(type(e)):
            _step_pair(_Span(P, _MP), [[mp.mpf(float(x)) for x in row] for row in P], a, a + width)
        return
    with mp.workprec(113):
        want = _step_pair(_Span(P, _MP), [[mp.mpf(float(x)) for x in row] for row in P], a, a + width)
    assert [[_to_mp(x) for x in v] for v in got] == [list(v) for v in want]
