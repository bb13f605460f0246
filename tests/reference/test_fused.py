"""The fused samplers (``reference/fused.py``) give the bits of the numpy kernels on F64, and the
recorded programs are the kernels' arithmetic (checked against the textbook sums with SymPy)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference import fused
from reference import kernel as K
from reference.context import F64

from ..profiles import examples

KERNELS = ("cubic_point", "cubic_derivative", "cubic_second_derivative")
F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.finfo(np.float32).smallest_subnormal)


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def _fused(name, C, ks, us):
    out = np.full((us.size + 2, 3), np.nan)  # rows past m stay untouched
    fused.sample_spans(name, C, ks.astype(np.intp), us.astype(np.float64), out)
    assert np.isnan(out[us.size:]).all()
    return out[:us.size]


f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("name", KERNELS)
@settings(max_examples=examples(60, 2000), deadline=None)
@given(C=st.lists(f32, min_size=24, max_size=24),
       us=st.lists(st.floats(0, 1), min_size=1, max_size=16))
@example(C=[F32_MAX] * 12 + [-F32_MAX] * 12, us=[0.5, 1.0, 0.0])  # overflow to inf and inf - inf
@example(C=[F32_TINY, -F32_TINY, 0.0, -0.0] * 6, us=[2.0 ** -1074, 1 - 2.0 ** -53, 0.5])
@example(C=[1e30, -1e30, 3.0] * 8, us=[1 / 3, 2 / 3])  # cancellation
def test_fused_is_bit_identical_to_the_numpy_kernel(name, C, us):
    C = np.array(C, dtype=np.float32).reshape(2, 4, 3)
    us = np.array(us)
    ks = np.arange(us.size) % 2
    want = getattr(K, name)(F64, C[ks].astype(np.float64), us)
    with np.errstate(all="ignore"):
        got = _fused(name, C, ks, us)
    assert np.array_equal(_bits(got), _bits(want)), (got, want)


@pytest.mark.parametrize("name", KERNELS)
def test_many_spans_and_parameters(name):
    rng = np.random.default_rng(7)
    C = (rng.normal(size=(9, 4, 3)) * rng.choice([1e-3, 1.0, 1e5], size=(9, 1, 1))).astype(np.float32)
    ks = rng.integers(0, 9, 5000)
    us = rng.random(5000)
    want = getattr(K, name)(F64, C[ks].astype(np.float64), us)
    assert np.array_equal(_bits(_fused(name, C, ks, us)), _bits(want))


def test_the_recorded_programs_are_the_textbook_formulas():
    """Evaluate each recorded program on SymPy symbols: the Bernstein sums of the module
    docstring of reference/kernel.py, as polynomial identities."""
    u = sp.Symbol("u")
    P = [[sp.Symbol(f"p{j}{d}") for d in range(3)] for j in range(4)]
    s = 1 - u
    textbook = {
        "cubic_point": [s**3 * P[0][d] + 3 * s**2 * u * P[1][d] + 3 * s * u**2 * P[2][d] + u**3 * P[3][d]
                        for d in range(3)],
        "cubic_derivative": [3 * (s**2 * (P[1][d] - P[0][d]) + 2 * s * u * (P[2][d] - P[1][d])
                                  + u**2 * (P[3][d] - P[2][d])) for d in range(3)],
        "cubic_second_derivative": [6 * (s * (P[2][d] - 2 * P[1][d] + P[0][d]) + u * (P[3][d] - 2 * P[2][d] + P[1][d]))
                                    for d in range(3)],
    }
    ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b}

    def ev(n, memo):
        if id(n) in memo:
            return memo[id(n)]
        if n.op == "leaf":
            v = u if n.name == "u" else P[int(n.name[1])][int(n.name[2])]
        elif n.op == "const":
            v = sp.Rational(n.args[0])
        elif n.op == "neg":
            v = -ev(n.args[0], memo)
        else:
            v = ops[n.op](ev(n.args[0], memo), ev(n.args[1], memo))
        memo[id(n)] = v
        return v

    for name, want in textbook.items():
        got = [ev(n, {}) for n in fused.record(getattr(K, name))]
        assert [sp.expand(g - w) for g, w in zip(got, want)] == [0, 0, 0], name


def test_a_recorded_value_cannot_be_branched_on():
    with pytest.raises(TypeError):
        bool(fused.record(K.cubic_point)[0])


@settings(max_examples=examples(200, 5000), deadline=None)
@given(C=st.lists(f32, min_size=12, max_size=12), t=st.lists(st.floats(0, 1), min_size=3, max_size=3))
@example(C=[F32_MAX, -F32_MAX, F32_TINY] * 4, t=[0.0, 1.0, 0.5])
def test_the_row_blossom_is_bit_identical_to_the_numpy_kernel(C, t):
    """The blossom reference/query.py's compiled search calls is kernel.cubic_blossom's bits."""
    P = np.array(C, dtype=np.float32).reshape(4, 3).astype(np.float64)
    out = np.full((3, 3), np.nan)
    with np.errstate(all="ignore"):
        fused.row_kernel("cubic_blossom", ("t1", "t2", "t3"))(P, t[0], t[1], t[2], out, 1)
        want = K.cubic_blossom(F64, P, t[0], t[1], t[2])
    assert np.array_equal(_bits(out[1]), _bits(want)) and np.isnan(out[[0, 2]]).all()


_C = np.arange(24, dtype=np.float32).reshape(2, 4, 3)


@pytest.mark.parametrize("change, error, needle", [
    ({"ks": np.array([2, 0])}, ValueError, "every span index must be in [0, 2): ks holds 0 to 2"),
    ({"ks": np.array([-1, 0])}, ValueError, "every span index must be in [0, 2)"),
    ({"ks": np.array([10**12, 0])}, ValueError, "every span index must be in [0, 2)"),  # was a segfault
    ({"out": np.zeros((1, 3))}, ValueError, "out must be a writeable (2 or more, 3) array"),  # wrote past it
    ({"out": np.zeros((2, 2))}, ValueError, "out must be"),
    ({"ks": np.array([0])}, ValueError, "ks and us differ in length (1 and 2)"),
    ({"ks": np.array([0.0, 1.0])}, TypeError, "ks must be a 1-D integer array"),
    ({"us": np.array([0.5, 0.5], dtype=np.float32)}, TypeError, "us must be a 1-D float64 array"),
    ({"controls": _C.astype(np.float64)}, TypeError, "controls must be a 3-D float32 array"),
    ({"controls": _C.reshape(2, 3, 4)}, ValueError, "controls must be (n, 4, 3)"),
    ({"name": "cubic_blossom"}, ValueError, "name must be one of"),
])
def test_sample_spans_checks_its_arguments_and_writes_nothing(change, error, needle):
    args = {"name": "cubic_point", "controls": _C, "ks": np.array([1, 0]), "us": np.array([0.25, 0.5]),
            "out": np.full((2, 3), 7.0)}
    args.update(change)
    guard = np.full((8, 3), 7.0)
    if "out" in change:  # a view into a larger buffer: rows past it must stay as they are
        guard[: change["out"].shape[0], : change["out"].shape[1]] = change["out"]
        args["out"] = guard[: change["out"].shape[0], : change["out"].shape[1]]
    before = args["out"].copy()
    with pytest.raises(error) as e:
        fused.sample_spans(args["name"], args["controls"], args["ks"], args["us"], args["out"])
    assert needle in str(e.value)
    assert np.array_equal(args["out"], before) and np.all(guard[2:] == 7.0)


def test_sample_spans_takes_any_integer_index_dtype():
    us = np.array([0.25, 0.5])
    want = K.cubic_point(F64, _C[[1, 0]].astype(np.float64), us)
    for dt in (np.int32, np.uint8, np.int64):
        out = np.zeros((2, 3))
        fused.sample_spans("cubic_point", _C, np.array([1, 0], dtype=dt), us, out)
        assert np.array_equal(_bits(out), _bits(want))
