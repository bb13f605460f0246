"""The tracing context over every kernel: the same arithmetic as F32/F64, shadows that are
the QQ values (or enclose them, and meet IV's enclosures), and error attribution.

Like ``tests/reference/test_kernel.py`` each kernel of ``reference.kernel.__all__`` runs on
hypothesis draws of float32 controls across the float32 range (the kernel table's own input
strategies, and the same kinds for the frame and surface kernels proven elsewhere):

(a) the working values equal the ``F32``/``F64`` results bit for bit (the bits are compared,
    so signed zeros and NaN payload classes count);
(b) every exact (mpq) shadow equals the ``QQ`` result, and every interval shadow contains
    it; where QQ cannot answer (an irrational root), interval shadows meet the ``IV(113)``
    enclosure;
(c) the attribution on hand-made cases names the step an independent argument says dominates.
"""

from __future__ import annotations


import gmpy2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from interval.context import IV, QQ, contains, lower, to_mpq, upper
from interval.trace import TNum, attribute, shadow, trace_context, ulp_of, working
from reference import kernel as K
from reference.context import F32, F64
from tests.profiles import examples
from tests.reference.test_kernel import CASES, _kind_strategy

_MPQ = type(gmpy2.mpq(0))

# The kernels the table in test_kernel.py does not hold (proven in the frame and surface
# kernel tests), with their input kinds; "scalar" is a float32 in [-1, 1].
EXTRA = {
    "reflect": ({"v": "vec", "n": "vec"}, lambda c, v, n: K.reflect(c, v, n)),
    "rotate_between": ({"v": "vec", "a": "vec", "b": "vec"}, lambda c, v, a, b: K.rotate_between(c, v, a, b)),
    "rotate_about": ({"v": "vec", "k": "vec", "c": "scalar", "s": "scalar"},
                     lambda ctx, v, k, c, s: K.rotate_about(ctx, v, k, c, s)),
    "bicubic_first_partials": ({"C": "patch", "u": "param", "v": "param"},
                               lambda c, C, u, v: K.bicubic_first_partials(c, C, u, v)),
    "bicubic_normal_vector": ({"C": "patch", "u": "param", "v": "param"},
                              lambda c, C, u, v: K.bicubic_normal_vector(c, C, u, v)),
    "cross_boundary_controls": ({"boundary": "ctrl", "inner": "ctrl"},
                                lambda c, boundary, inner: K.cross_boundary_controls(c, boundary, inner)),
}
TABLE = {c.name: (c.inputs, c.run) for c in CASES}
TABLE.update({k: v for k, v in EXTRA.items() if k not in TABLE})
SCALES = [1e-40, 1.0, 1e7, 1e15]


def test_every_kernel_is_traced():
    assert set(TABLE) == set(K.__all__)


def _strategy(kind, scale, pwidth):
    if kind == "scalar":
        return st.floats(-1.0, 1.0, width=32)
    return _kind_strategy(kind, scale, pwidth)


@st.composite
def _inputs(draw, kinds, pwidth):
    scale = draw(st.sampled_from(SCALES))
    return {name: draw(_strategy(kind, scale, pwidth)) for name, kind in kinds.items()}


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    u = np.uint32 if a.dtype == np.float32 else np.uint64
    b = a.view(u).copy()
    nan = np.isnan(a)
    b[nan] = 0  # NaN is NaN: the payload is not part of the arithmetic's contract
    return b


def _run(ctx, run, plain):
    with np.errstate(all="ignore"):
        return _tuple(run(ctx, **{k: ctx.asarray(v) for k, v in plain.items()}))


def _check(name, fmt, plain):
    _kinds, run = TABLE[name]
    T, F = trace_context(fmt), (F32 if fmt == "f32" else F64)
    traced, native = _run(T, run, plain), _run(F, run, plain)
    assert len(traced) == len(native)
    for k, (t, n) in enumerate(zip(traced, native)):
        w = working(t)
        assert w.dtype == np.asarray(n).dtype, f"{name}[{fmt}] output {k}: dtype"
        assert np.array_equal(_bits(w), _bits(np.asarray(n))), f"{name}[{fmt}] output {k}: {w} != {n}"
    try:
        exact = _run(QQ, run, plain)
    except (ArithmeticError, ZeroDivisionError):
        exact = None
    if exact is not None:
        for k, (t, q) in enumerate(zip(traced, exact)):
            for s, qv in zip(np.ravel(shadow(t)), np.ravel(np.asarray(q, dtype=object))):
                if isinstance(s, _MPQ):
                    assert s == qv, f"{name}[{fmt}] output {k}: shadow {s} != QQ {qv}"
                else:
                    assert s is not None and contains(s, qv), f"{name}[{fmt}] output {k}: {s} misses {qv}"
        return
    enc = _run(IV(113), run, plain)
    for k, (t, e) in enumerate(zip(traced, enc)):
        for s, ev in zip(np.ravel(shadow(t)), np.ravel(np.asarray(e, dtype=object))):
            if s is None:
                continue
            lo, hi = (s, s) if isinstance(s, _MPQ) else (lower(s), upper(s))
            assert lo <= upper(ev) and lower(ev) <= hi, f"{name}[{fmt}] output {k}: {s} and IV {ev} are disjoint"


@pytest.mark.parametrize("fmt", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(K.__all__))
def test_trace_agrees_with_every_context(name, fmt):
    kinds = TABLE[name][0]

    @settings(max_examples=examples(6, 150), deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(_inputs(kinds, 32 if fmt == "f32" else 64))
    def run(plain):
        _check(name, fmt, plain)

    run()


def test_irrational_root_has_an_interval_shadow_meeting_iv():
    T = trace_context("f64")
    a = T.asarray(np.array([1.0, 1.0, 0.0]))
    n = K.norm(T, a)
    x = n.x if isinstance(n, TNum) else np.asarray(n).item().x
    two = gmpy2.mpq(2)
    assert not isinstance(x, _MPQ) and lower(x) ** 2 <= two <= upper(x) ** 2
    assert float(upper(x) - lower(x)) < 2.0**-100


def test_pythagorean_root_stays_exact():
    T = trace_context("f32")
    n = K.norm(T, T.asarray(np.array([3.0, 4.0, 12.0], dtype=np.float32)))
    n = n if isinstance(n, TNum) else np.asarray(n).item()
    assert n.x == 13 and float(n.w) == 13.0


def test_input_rounding_is_a_step_with_its_exact_error():
    T = trace_context("f32")
    x = T.asarray(0.1)  # the float64 nearest 1/10, rounded again to float32
    s = T.tape.steps[x.item().i]
    assert s.op == "input" and s.x == to_mpq(0.1)
    assert s.local == to_mpq(float(np.float32(0.1))) - to_mpq(0.1)
    y = T.asarray("1/10")  # a rational input: one rounding, to the float32 nearest 1/10
    s = T.tape.steps[y.item().i]
    assert s.x == gmpy2.mpq(1, 10) and s.local == to_mpq(float(np.float32(0.1))) - gmpy2.mpq(1, 10)


def test_attribution_marks_the_rounding_that_dominates():
    # (big + small) - big in float32: the addition rounds away `small` entirely; the
    # subtraction is exact (Sterbenz). The output's error is -small, all of it from the add.
    T = trace_context("f32")
    big, small = T.asarray(np.float32(2.0**24)), T.asarray(np.float32(0.75))
    r = (big + small) - big
    r = r.item() if isinstance(r, np.ndarray) else r
    a = attribute(T.tape, r)
    assert T.tape.steps[a.dominant].op == "add"
    assert a.error == float(to_mpq(float(r.w)) - gmpy2.mpq(3, 4))
    assert T.tape.steps[r.i].local == 0  # the cancellation itself is exact


def test_attribution_marks_the_narrowing_far_from_the_origin():
    # A source control 1e6 + 0.3 from origin 0: float64 subtraction exact, float32 narrowing
    # errs by up to ulp32(1e6)/2 = 1/32, more than every float64 rounding of the kernel.
    T = trace_context("f64")
    src = np.array([[1e6 + 0.3, 2.0, 3.0], [1e6 + 1.1, 2.5, 3.5], [1e6 + 2.7, 3.0, 2.0], [1e6 + 3.3, 4.0, 1.0]])
    rel = T.asarray(src, label="source") - T.asarray(np.zeros(3), label="origin")
    P = T.narrow32(rel)
    B = K.cubic_point(T, P, T.asarray(0.75, label="u"))
    a = attribute(T.tape, B[0])
    assert T.tape.steps[a.dominant].op == "narrow32"
    truth = sum(c * float(s[0]) for c, s in zip([1 / 64, 9 / 64, 27 / 64, 27 / 64], src))
    assert abs(a.error - (float(np.asarray(working(B))[0]) - truth)) < 1e-6


def test_ulp_of_formats():
    assert ulp_of(1.0, "f32") == gmpy2.mpq(1, 2**23)
    assert ulp_of(1.0, "f64") == gmpy2.mpq(1, 2**52)
    assert ulp_of(0.0, "f64") == gmpy2.mpq(1, 2**1074)
    assert ulp_of(3.0, "f32") == gmpy2.mpq(2, 2**23)
