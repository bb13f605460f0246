"""The exact track oracle against SymPy's Hermite basis and the spec's example."""

from __future__ import annotations

import gmpy2
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from interval.track import exact_track_keys, exact_track_sample
from tests.strategies import float32_values

_mpq = gmpy2.mpq
SPEC = [(0.0, 0.0, 0.0, 0.0, "Linear"), (1.0, 1.0, 0.0, 2.0, "Hermite"), (3.0, 1.0, 0.0, 0.0, "Step"),
        (3.5, 0.0, 0.0, 0.0, "Linear")]


def _q(x):
    return sympy.Rational(int(x.numerator), int(x.denominator))


def test_spec_example_is_exact():
    s = exact_track_sample(SPEC, 4.5, "PingPong", "Outgoing")
    assert s.value == _mpq(19, 16) and s.derivative == _mpq(5, 8)  # 1.1875 and +0.625
    assert s.reflected and s.span_index == 1 and s.x == _mpq(3, 4)


@settings(max_examples=40)
@given(float32_values(-1e4, 1e4), float32_values(-1e4, 1e4), float32_values(-1e4, 1e4),
       float32_values(-1e4, 1e4), st.floats(1e-3, 1e3), st.floats(0, 1))
def test_hermite_matches_sympy_basis(v0, v1, m0, m1, h, x):
    keys = [(0.0, v0, 0.0, m0, "Hermite"), (h, v1, m1, 0.0, "Linear")]
    t = float(_mpq(x) * _mpq(h))
    if not 0 <= t <= h:
        return
    s = exact_track_sample(keys, t, "Reject", "Outgoing")
    X = sympy.Symbol("x")
    H = sympy.Rational(h)
    p = ((2 * X**3 - 3 * X**2 + 1) * sympy.Rational(v0) + (X**3 - 2 * X**2 + X) * H * sympy.Rational(m0)
         + (-2 * X**3 + 3 * X**2) * sympy.Rational(v1) + (X**3 - X**2) * H * sympy.Rational(m1))
    xe = sympy.Rational(t) / H
    assert _q(s.value) == p.subs(X, xe)
    assert _q(s.derivative) == sympy.diff(p, X).subs(X, xe) / H


def test_reductions_are_exact_floored_modulo():
    keys = [(0.25, 0.0, 0.0, 0.0, "Linear"), (1.5, 4.0, 0.0, 0.0, "Linear")]  # L = 5/4
    t = -1e15 - 0.125
    s = exact_track_sample(keys, t, "Loop", "Outgoing")
    tau = sympy.Rational(t) - sympy.Rational(1, 4)
    tau = tau - sympy.Rational(5, 4) * sympy.floor(tau / sympy.Rational(5, 4))  # floored modulo
    assert _q(s.x) == tau / sympy.Rational(5, 4)
    p = exact_track_sample(keys, 2.0, "PingPong", "Outgoing")  # tau = 7/4 > L: 5/2 - 7/4 = 3/4
    assert p.reflected and p.x == _mpq(3, 5) and p.derivative == _mpq(-16, 5)
    f = exact_track_sample(keys, 3.0, "PingPong", "Outgoing")  # tau = 1/4: forward
    assert not f.reflected and f.x == _mpq(1, 5) and f.derivative == _mpq(16, 5)


def test_clamp_hold_reject():
    assert exact_track_sample(SPEC, 9.0, "Reject", "Outgoing") is None
    c = exact_track_sample(SPEC, 9.0, "Clamp", "Outgoing")
    h = exact_track_sample(SPEC, 9.0, "Hold", "Outgoing")
    assert c.value == h.value == 1 and c.derivative == 0 and h.derivative == 0  # Step last span
    c = exact_track_sample(SPEC, -2.0, "Clamp", "Incoming")
    assert c.value == 0 and c.derivative == 1 and c.span_index == 0


def test_sides_at_keys():
    assert exact_track_sample(SPEC, 1.0, "Reject", "Incoming").span_index == 0
    assert exact_track_sample(SPEC, 1.0, "Reject", "Outgoing").span_index == 1
    assert exact_track_sample(SPEC, 3.5, "Reject", "Outgoing").x == 1
    assert exact_track_sample(SPEC, 0.0, "Reject", "Incoming").span_index == 0


@pytest.mark.parametrize("keys", [
    [(0.0, 0.0, 0.0, 0.0, "Linear")],
    [(0.0, 0.0, 0.0, 0.0, "Linear"), (0.0, 1.0, 0.0, 0.0, "Linear")],
    [(0.0, 0.1, 0.0, 0.0, "Linear"), (1.0, 1.0, 0.0, 0.0, "Linear")],
    [(0.0, 0.0, 0.0, 0.0, "Cubic"), (1.0, 1.0, 0.0, 0.0, "Linear")],
])
def test_malformed_keys_raise(keys):
    with pytest.raises(ValueError):
        exact_track_keys(keys)


def test_bad_policy_or_side_raises():
    with pytest.raises(ValueError):
        exact_track_sample(SPEC, 1.0, "Wrap", "Outgoing")
    with pytest.raises(ValueError):
        exact_track_sample(SPEC, 1.0, "Clamp", "Sideways")
    with pytest.raises(ValueError):
        exact_track_sample(SPEC, float("nan"), "Clamp", "Outgoing")
