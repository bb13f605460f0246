"""reference.kernel over every number context: formulas, enclosures, error models, batches.

One table row (:class:`KCase`) per kernel says how to draw its inputs, how to call it, its
textbook value in exact rationals (written here from the definitions, never from the kernel's
own algorithm: Bernstein sums with binomial coefficients, monomial coefficients composed with
an affine map and converted back to Bernstein form, the blossom as elementary symmetric
polynomials, ...) and its a-priori error bound. The test templates then run every row:

(a) ``test_symbolic_*``: the kernel on SymPy symbols (``SYM``) equals the textbook definition
    (a polynomial identity, checked with ``sympy.expand``);
(b) ``test_kernel_in_context[...-IV(113)]``: every output interval contains the exact value
    and is narrower than ``2**-100`` of the output's a-priori magnitude;
    ``[...-QQ]``: the rational result equals the exact value;
(c) ``[...-F64]`` / ``[...-F32]``: the error against the exact value is within the error model
    (``reference.error_model`` with ``u = U64`` / ``U32``, E = the largest control magnitude);
    the worst ratio per kernel, context and output is asserted <= 1 and printed at the end
    of the module (``pytest -s``);
(d) ``test_batch_equals_items``: a batch over leading axes equals the per-item results
    bit for bit in F64.

Inputs: float32 controls (as the fast path prepares them) and float64 parameters (float32
parameters in F32, whose every input must be float32).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from dataclasses import dataclass
from math import comb
from collections.abc import Callable

import gmpy2
from pathlib import Path

import numpy as np
import pytest
import sympy
from gmpy2 import mpq
from hypothesis import HealthCheck, given, settings, strategies as st

from interval import arb_context as AC
from interval.arb_context import ARB
from interval.context import IV, QQ, SYM, lower, to_mpq, upper
from interval.narrowing import round_up_f64
from reference import error_model as EM
from reference import kernel as K
from reference.context import F32, F64, UNKNOWN
from reference.fp import U32, U64
from tests.profiles import examples
from tests.strategies import controls32, parameters

# ARB: python-flint's Arb balls, a second enclosure context judged like IV (tests/interval/test_arb_context.py
# also checks that its balls overlap IV's intervals).
CONTEXTS = [F32, F64, IV(113), ARB(113), QQ]
IV_WIDTH_U = 2.0**-104  # error-model "u" whose bound is 2**-100 times the magnitude (K = 16)


def ETA(ur: float) -> float:
    """The smallest subnormal of the format with unit roundoff ur (0: IV never underflows)."""
    return {U64: 2.0**-1074, U32: 2.0**-149, IV_WIDTH_U: 0.0}[ur]

# --- exact textbook arithmetic ---------------------------------------------------------------


def bern_coeffs(i: int, n: int = 3) -> list[int]:
    """Monomial coefficients of C(n, i) (1 - x)^(n - i) x^i, lowest degree first."""
    c = [0] * (n + 1)
    for j in range(n - i + 1):  # (1 - x)^(n-i) = sum_j C(n-i, j) (-x)^j
        c[i + j] = comb(n, i) * comb(n - i, j) * (-1) ** j
    return c


def pdiff(c: list, times: int = 1) -> list:
    for _ in range(times):
        c = [k * c[k] for k in range(1, len(c))] or [0]
    return c


def peval(c: list, x) -> mpq:
    acc = mpq(0)
    for a in reversed(c):
        acc = acc * x + a
    return acc


def Qa(x) -> np.ndarray:
    """Exact rationals of plain data (object array)."""
    return np.vectorize(to_mpq, otypes=[object])(np.asarray(x, dtype=object))


def bezier_exact(P, u, deriv: int = 0) -> np.ndarray:
    """sum_i (d/du)^deriv [C(3,i) (1-u)^(3-i) u^i] P_i in exact rationals; P (4, D)."""
    P, u = Qa(P), to_mpq(u)
    return sum(peval(pdiff(bern_coeffs(i), deriv), u) * P[i] for i in range(4))


def monomial(P) -> list[np.ndarray]:
    """Monomial coefficients a_0..a_3 (each a (D,) vector) of the Bezier curve of P."""
    P = Qa(P)
    return [sum(bern_coeffs(i)[j] * P[i] for i in range(4)) for j in range(4)]


def compose_affine(a: list, alpha, beta) -> list:
    """Coefficients of p(alpha + beta x) for p with monomial coefficients a."""
    alpha, beta = to_mpq(alpha), to_mpq(beta)
    return [sum(comb(j, k) * alpha ** (j - k) * beta**k * a[j] for j in range(k, 4)) for k in range(4)]


def to_bernstein(c: list) -> np.ndarray:
    """Bernstein coefficients b_k = sum_{j<=k} C(k,j)/C(3,j) c_j of a cubic in monomial form."""
    return np.stack([sum(mpq(comb(k, j), comb(3, j)) * c[j] for j in range(k + 1)) for k in range(4)])


def blossom_exact(P, t1, t2, t3) -> np.ndarray:
    """The polar form: a0 + a1 e1/3 + a2 e2/3 + a3 e3 (e_k the elementary symmetric sums)."""
    a = monomial(P)
    t1, t2, t3 = to_mpq(t1), to_mpq(t2), to_mpq(t3)
    return a[0] + a[1] * (t1 + t2 + t3) / 3 + a[2] * (t1 * t2 + t1 * t3 + t2 * t3) / 3 + a[3] * t1 * t2 * t3


def bicubic_exact(C, u, v, du: int = 0, dv: int = 0) -> np.ndarray:
    C, u, v = Qa(C), to_mpq(u), to_mpq(v)
    return sum(peval(pdiff(bern_coeffs(i), du), u) * peval(pdiff(bern_coeffs(j), dv), v) * C[i, j]
               for i in range(4) for j in range(4))


@dataclass(frozen=True)
class Root:
    """The exact value q ** (1/k) (an irrational truth, judged through exact k-th powers)."""

    q: np.ndarray
    k: int


def qabs(a: np.ndarray) -> np.ndarray:
    return np.vectorize(abs, otypes=[object])(a)


# --- the table --------------------------------------------------------------------------------


@dataclass
class KCase:
    """One kernel: how to draw its inputs, call it, and what its outputs must be.

    ``inputs`` maps a name to its kind: ``ctrl`` (float32 (4, 3)), ``patch`` (float32
    (4, 4, 3)), ``vec`` (float32 (3,)), ``param`` (a normalized parameter), ``width``
    (a positive float32 width or knot interval).
    ``run(ctx, **args)`` calls the kernel on context arrays; ``exact(**plain)`` returns the
    textbook values (exact mpq arrays or :class:`Root`); ``bound(u, **plain)`` the error-model
    bound per output (a float or per-component array) for unit roundoff u.
    """

    name: str
    inputs: dict[str, str]
    run: Callable
    exact: Callable
    bound: Callable
    exact_in_float: bool = False  # min/max round nothing: the float result is exact too
    f32_scale: float = 1e30  # float32 controls larger than this could overflow in F32


def _E(*arrays) -> float:
    return max(EM.span_magnitude(a) for a in arrays)


def _mags(arr) -> np.ndarray:
    """Exact magnitudes rounded up to float64."""
    return np.vectorize(round_up_f64, otypes=[np.float64])(np.asarray(arr, dtype=object))


def _kbound(ur: float, magnitude) -> np.ndarray:
    """K u times an exact magnitude (mpq or object array) plus K eta for underflowing products
    and quotients (as reference.error_model counts them), rounded up to float64."""
    return _mags(np.asarray(magnitude, dtype=object) * to_mpq(EM.K * ur) + to_mpq(EM.K * ETA(ur)))


def pos_b(ur, P, **_):
    return EM.position_bound(_E(P), ur, eta=ETA(ur))


def der_b(ur, P, **_):
    return EM.derivative_bound(_E(P), ur, eta=ETA(ur))


def sec_b(ur, P, **_):
    return EM.second_derivative_bound(_E(P), ur, eta=ETA(ur))


# Bicubic propagation (test-local, from the error_model primitives): the row points carry at
# most pos(E) (derivatives der(E), second derivatives sec(E)); a point evaluation passes input
# errors on with factor 1 (the basis sums to one), a derivative with factor 6 and a second
# derivative with factor 24 (|B'(d)| <= 3 * 2 max|d|, |B''(d)| <= 6 * 4 max|d|), plus its own
# rounding at the rows' magnitude (E, 6E or 24E). Hence, with pos = 16uE, der = 96uE, sec = 384uE:
#   S   = pos + pos                      = 2 pos
#   Su  = 6 pos + der                    = 2 der
#   Sv  = der + pos(6E)                  = 2 der
#   Suu = 24 pos + sec                   = 2 sec
#   Suv = 6 der + der(6E)                = 12 der
#   Svv = sec + pos(24E)                 = 2 sec
def bicubic_b(ur, C, **_):
    E = _E(C)
    p, d, s = (f(E, ur, eta=ETA(ur)) for f in (EM.position_bound, EM.derivative_bound,
                                               EM.second_derivative_bound))
    return 2 * p, 2 * d, 2 * d, 2 * s, 12 * d, 2 * s


def _dot_exact(a, b):
    a, b = Qa(a), Qa(b)
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _abs_dot(a, b):
    """sum |a_i b_i| exactly: the magnitude a rounded dot product's error is relative to."""
    a, b = Qa(a), Qa(b)
    return sum(abs(a[k] * b[k]) for k in range(3))


def dot_b(ur, a, b):
    # Three products and two additions: gamma_3 times sum |a_i b_i|; K = 16 as elsewhere.
    return _kbound(ur, _abs_dot(a, b))


def cross_exact(a, b):
    a, b = Qa(a), Qa(b)
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
                    dtype=object)


def cross_b(ur, a, b):
    # Two products and a subtraction per component: gamma_3 times |a_j b_k| + |a_k b_j|.
    a, b = Qa(a), Qa(b)
    m = [abs(a[1] * b[2]) + abs(a[2] * b[1]), abs(a[2] * b[0]) + abs(a[0] * b[2]),
         abs(a[0] * b[1]) + abs(a[1] * b[0])]
    return _kbound(ur, m)


def _root_float(r: Root) -> np.ndarray:
    """r.q ** (1/k) at 256 bits, rounded to nearest float64 (for magnitudes and ratios)."""
    with gmpy2.context(gmpy2.get_context(), precision=256):
        return np.vectorize(lambda q: float(gmpy2.root(gmpy2.mpfr(q), r.k)), otypes=[np.float64])(
            np.asarray(r.q, dtype=object))


def norm_exact(a):
    return Root(np.array(_dot_exact(a, a), dtype=object), 2)


def norm_b(ur, a):
    return EM.relative_bound(float(np.nextafter(_root_float(norm_exact(a)), np.inf)), ur, eta=ETA(ur))


def knot_exact(a, b):
    d = Qa(b) - Qa(a)
    return Root(np.array(_dot_exact(d, d), dtype=object), 4)


def knot_b(ur, a, b):
    return EM.knot_interval_bound(float(np.nextafter(_root_float(knot_exact(a, b)), np.inf)), ur,
                                  eta=ETA(ur))


def hermite_exact(p0, t0, p1, t1, h):
    p0, t0, p1, t1, h = Qa(p0), Qa(t0), Qa(p1), Qa(t1), to_mpq(h)
    return p0 + h * t0 / 3, p1 - h * t1 / 3


def hermite_b(ur, p0, t0, p1, t1, h):
    return EM.hermite_bound(p0, t0, h, ur, eta=ETA(ur)), EM.hermite_bound(p1, t1, h, ur, eta=ETA(ur))


def bg_exact(p_prev, p, p_next, d0, d1):
    """The Barry-Goldman tangent in closed form (Barry & Goldman 1988; Yuksel et al. 2011)."""
    a, b, c, d0, d1 = Qa(p_prev), Qa(p), Qa(p_next), to_mpq(d0), to_mpq(d1)
    return (b - a) / d0 - (c - a) / (d0 + d1) + (c - b) / d1


def bg_b(ur, p_prev, p, p_next, d0, d1):
    # Each quotient carries a subtraction, (d0 + d1) and the division (at most 3 roundings),
    # two additions combine them: gamma_5 times the sum of the three quotients' magnitudes.
    a, b, c, d0, d1 = Qa(p_prev), Qa(p), Qa(p_next), to_mpq(d0), to_mpq(d1)
    m = qabs(b - a) / d0 + qabs(c - a) / (d0 + d1) + qabs(c - b) / d1
    return _kbound(ur, m)


def chord_b(ur, a, b, d):
    # One subtraction and one division: gamma_2 times |b - a| / d.
    return _kbound(ur, qabs(Qa(b) - Qa(a)) / to_mpq(d))


def cubic_chord_b(ur, P, a, b):
    # Each hodograph blossom weighs the legs D_i = P[i+1] - P[i] by weights in [0, 1] that sum to
    # one (about six roundings of the largest leg component); three of them summed (two more) and
    # scaled by b - a (two): K u times |b - a| times the sum of each leg's largest component
    # bounds every component, relative to the step, not to the positions.
    Q = Qa(P)
    legs = sum(max(qabs(Q[i + 1] - Q[i])) for i in range(3))
    return _kbound(ur, qabs(to_mpq(b) - to_mpq(a)) * legs)


def joint_exact(P_in, P_out, w_in, w_out):
    wi, wo = to_mpq(w_in), to_mpq(w_out)
    return (bezier_exact(P_in, 1, 1) / wi, bezier_exact(P_out, 0, 1) / wo,
            bezier_exact(P_in, 1, 2) / (wi * wi), bezier_exact(P_out, 0, 2) / (wo * wo))


def joint_b(ur, P_in, P_out, w_in, w_out):
    # d = 3 (P3 - P2) / w: three roundings relative to 3 |P3 - P2| / w. s = 6 (a2 - a1) / w^2:
    # the differences, their difference, the product by 6, w * w and the division (six
    # roundings) relative to 6 (|a2| + |a1|) / w^2.
    Pi, Po, wi, wo = Qa(P_in), Qa(P_out), to_mpq(w_in), to_mpq(w_out)
    a2, a1 = qabs(Pi[3] - Pi[2]), qabs(Pi[2] - Pi[1])
    b0, b1 = qabs(Po[1] - Po[0]), qabs(Po[2] - Po[1])
    return (_kbound(ur, 3 * a2 / wi), _kbound(ur, 3 * b0 / wo),
            _kbound(ur, 6 * (a2 + a1) / (wi * wi)), _kbound(ur, 6 * (b1 + b0) / (wo * wo)))


def split_exact(P, t):
    a = monomial(P)
    return to_bernstein(compose_affine(a, 0, t)), to_bernstein(compose_affine(a, t, 1 - to_mpq(t)))


def subseg_exact(P, u0, u1):
    return to_bernstein(compose_affine(monomial(P), u0, to_mpq(u1) - to_mpq(u0)))


def box_exact(P):
    P = Qa(P)
    return (np.array([min(P[:, d]) for d in range(P.shape[1])], dtype=object),
            np.array([max(P[:, d]) for d in range(P.shape[1])], dtype=object))


CASES = [
    KCase("bernstein3", {"u": "param"},
          lambda c, u: K.bernstein3(c, u),
          lambda u: tuple(np.array(peval(bern_coeffs(i), to_mpq(u)), dtype=object) for i in range(4)),
          # gamma_5 relative per basis value, which is at most 1: position_bound with E = 1.
          lambda uu, u: (EM.position_bound(1.0, uu, eta=ETA(uu)),) * 4),
    KCase("cubic_point", {"P": "ctrl", "u": "param"},
          lambda c, P, u: K.cubic_point(c, P, u),
          lambda P, u: bezier_exact(P, u), pos_b),
    KCase("cubic_derivative", {"P": "ctrl", "u": "param"},
          lambda c, P, u: K.cubic_derivative(c, P, u),
          lambda P, u: bezier_exact(P, u, 1), der_b),
    KCase("cubic_second_derivative", {"P": "ctrl", "u": "param"},
          lambda c, P, u: K.cubic_second_derivative(c, P, u),
          lambda P, u: bezier_exact(P, u, 2), sec_b),
    KCase("cubic_sample", {"P": "ctrl", "u": "param"},
          lambda c, P, u: K.cubic_sample(c, P, u),
          lambda P, u: tuple(bezier_exact(P, u, k) for k in range(3)),
          lambda uu, P, u: (pos_b(uu, P), der_b(uu, P), sec_b(uu, P))),
    # Each blossom value is three levels of (1 - t) a + t b on values of magnitude <= E: three
    # roundings per level and term, nine in all, as the position model counts.
    KCase("cubic_blossom", {"P": "ctrl", "t1": "param", "t2": "param", "t3": "param"},
          lambda c, P, t1, t2, t3: K.cubic_blossom(c, P, t1, t2, t3),
          blossom_exact, lambda uu, P, **_: pos_b(uu, P)),
    KCase("cubic_chord", {"P": "ctrl", "a": "param", "b": "param"},
          lambda c, P, a, b: K.cubic_chord(c, P, a, b),
          lambda P, a, b: bezier_exact(P, b) - bezier_exact(P, a), cubic_chord_b),
    KCase("cubic_split", {"P": "ctrl", "t": "param"},
          lambda c, P, t: K.cubic_split(c, P, t), split_exact,
          lambda uu, P, t: (pos_b(uu, P),) * 2),
    KCase("cubic_subsegment", {"P": "ctrl", "u0": "param", "u1": "param"},
          lambda c, P, u0, u1: K.cubic_subsegment(c, P, u0, u1), subseg_exact,
          lambda uu, P, **_: pos_b(uu, P)),
    KCase("control_box", {"P": "ctrl"},
          lambda c, P: K.control_box(c, P), box_exact, lambda uu, P: (0.0, 0.0),
          exact_in_float=True),
    KCase("bicubic_point", {"C": "patch", "u": "param", "v": "param"},
          lambda c, C, u, v: K.bicubic_point(c, C, u, v),
          lambda C, u, v: bicubic_exact(C, u, v), lambda uu, C, **_: bicubic_b(uu, C)[0]),
    KCase("bicubic_partials", {"C": "patch", "u": "param", "v": "param"},
          lambda c, C, u, v: K.bicubic_partials(c, C, u, v),
          lambda C, u, v: tuple(bicubic_exact(C, u, v, a, b)
                                for a, b in ((0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2))),
          lambda uu, C, **_: bicubic_b(uu, C)),
    KCase("dot", {"a": "vec", "b": "vec"}, lambda c, a, b: K.dot(c, a, b),
          lambda a, b: np.array(_dot_exact(a, b), dtype=object), dot_b, f32_scale=1e15),
    KCase("cross", {"a": "vec", "b": "vec"}, lambda c, a, b: K.cross(c, a, b),
          cross_exact, cross_b, f32_scale=1e15),
    KCase("norm", {"a": "vec"}, lambda c, a: K.norm(c, a), norm_exact, norm_b, f32_scale=1e15),
    KCase("hermite_inner_controls", {"p0": "vec", "t0": "vec", "p1": "vec", "t1": "vec", "h": "width"},
          lambda c, p0, t0, p1, t1, h: K.hermite_inner_controls(c, p0, t0, p1, t1, h),
          hermite_exact, hermite_b, f32_scale=1e30),
    KCase("centripetal_knot_interval", {"a": "vec", "b": "vec"},
          lambda c, a, b: K.centripetal_knot_interval(c, a, b), knot_exact, knot_b, f32_scale=1e15),
    KCase("barry_goldman_tangent", {"p_prev": "vec", "p": "vec", "p_next": "vec", "d0": "width", "d1": "width"},
          lambda c, p_prev, p, p_next, d0, d1: K.barry_goldman_tangent(c, p_prev, p, p_next, d0, d1),
          bg_exact, bg_b, f32_scale=1e30),
    KCase("chord_tangent", {"a": "vec", "b": "vec", "d": "width"},
          lambda c, a, b, d: K.chord_tangent(c, a, b, d),
          lambda a, b, d: (Qa(b) - Qa(a)) / to_mpq(d), chord_b, f32_scale=1e30),
    KCase("joint_scaled_derivatives", {"P_in": "ctrl", "P_out": "ctrl", "w_in": "width", "w_out": "width"},
          lambda c, P_in, P_out, w_in, w_out: K.joint_scaled_derivatives(c, P_in, P_out, w_in, w_out),
          joint_exact, joint_b, f32_scale=1e30),
]
CASE_BY_NAME = {c.name: c for c in CASES}


# Kernels proven to the same standard (SymPy identity, IV encloses QQ, floats within a model) in
# their own test modules, beside the capability that needs them.
PROVEN_ELSEWHERE = {
    "bicubic_first_partials": "test_surface_kernels", "bicubic_normal_vector": "test_surface_kernels",
    "cross_boundary_controls": "test_surface_kernels",
    "reflect": "test_frame_kernels", "rotate_between": "test_frame_kernels", "rotate_about": "test_frame_kernels",
}


def test_table_covers_every_kernel():
    assert {c.name for c in CASES} | set(PROVEN_ELSEWHERE) == set(K.__all__)
    here = Path(__file__).parent
    for name, module in PROVEN_ELSEWHERE.items():
        text = (here / f"{module}.py").read_text()
        assert f"K.{name}(SYM" in text, f"{module} does not run {name} on SymPy symbols"


# --- drawing inputs ---------------------------------------------------------------------------

# Control magnitudes across the float32 range: subnormal-only spans, tiny, unit, chunk-sized
# (1e7) and huge spans. A draw picks a scale, then entries in [-scale, scale].
SCALES = [1e-40, 1e-30, 1.0, 1e7, 1e15, 1e30]


def _kind_strategy(kind: str, scale: float, pwidth: int):
    if kind == "ctrl":
        return controls32(scale, (4, 3))
    if kind == "patch":
        return controls32(scale, (4, 4, 3))
    if kind == "vec":
        return controls32(scale, (3,))
    if kind == "param":
        return parameters(width=pwidth)
    if kind == "width":
        return st.one_of(st.sampled_from([1.0, 0.5, 3.0, 1e-3]), st.floats(2.0**-10, 2.0**10, width=32))
    raise ValueError(kind)


@st.composite
def case_inputs(draw, case: KCase, pwidth: int, max_scale: float = math.inf):
    scale = draw(st.sampled_from([s for s in SCALES if s <= max_scale]))
    return {name: draw(_kind_strategy(kind, scale, pwidth)) for name, kind in case.inputs.items()}


def to_ctx(ctx, plain: dict) -> dict:
    return {k: ctx.asarray(v) for k, v in plain.items()}


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


# --- judging one output -----------------------------------------------------------------------

WORST: dict[tuple[str, str, int], float] = {}


def _record(key, ratio: float):
    WORST[key] = max(WORST.get(key, 0.0), ratio)


@pytest.fixture(scope="module", autouse=True)
def _print_worst_ratios():
    yield
    if WORST:
        print("\nworst error-model ratios (error / bound):")
        for (name, ctx, k), r in sorted(WORST.items()):
            print(f"  {name:28s} {ctx:4s} output {k}: {r:.3g}")


def _is_perfect_power(q, k: int) -> bool:
    n, d = int(q.numerator), int(q.denominator)
    return all(gmpy2.iroot(abs(x), k)[1] for x in (n, d))


def judge_exact(got, truth, where):
    if isinstance(truth, Root):
        for g, q in zip(np.ravel(got), np.ravel(truth.q)):
            assert g >= 0 and g**truth.k == q, f"{where}: {g}^{truth.k} != {q}"
        return
    g, t = np.broadcast_arrays(np.asarray(got, dtype=object), np.asarray(truth, dtype=object))
    bad = [(a, b) for a, b in zip(g.ravel(), t.ravel()) if a != b]
    assert not bad, f"{where}: QQ differs from the exact value: {bad[:3]}"


def judge_interval(got, truth, wbound, where, ends=(lower, upper)):
    """Every enclosure contains its truth and is at most ``wbound`` wide; ``ends`` reads a
    value's exact endpoints (IV's ``lower``/``upper`` or ARB's)."""
    lower, upper = ends  # the context's own endpoint readers
    got = np.asarray(got, dtype=object)
    wb = np.broadcast_to(np.asarray(wbound, dtype=np.float64), got.shape)
    if isinstance(truth, Root):
        for g, q, w in zip(got.ravel(), np.ravel(truth.q), wb.ravel()):
            lo, hi = lower(g), upper(g)
            assert max(lo, 0) ** truth.k <= q <= hi**truth.k, f"{where}: {g} misses the root of {q}"
            assert upper(g) - lower(g) <= to_mpq(w), f"{where}: width {float(upper(g) - lower(g)):.3g} > {w:.3g}"
        return
    t = np.broadcast_to(np.asarray(truth, dtype=object), got.shape)
    for g, q, w in zip(got.ravel(), t.ravel(), wb.ravel()):
        assert lower(g) <= q <= upper(g), f"{where}: {g} misses {q}"
        assert upper(g) - lower(g) <= to_mpq(w), f"{where}: width {float(upper(g) - lower(g)):.3g} > {w:.3g}"


def judge_float(got, truth, bound, key, where):
    got = np.asarray(got)
    b = np.broadcast_to(np.asarray(bound, dtype=np.float64), got.shape)
    assert np.all(np.isfinite(got)), f"{where}: nonfinite result {got}"
    if isinstance(truth, Root):
        r = np.broadcast_to(_root_float(truth), got.shape)
        for g, q, bb, rr in zip(got.ravel(), np.ravel(truth.q), b.ravel(), r.ravel()):
            gq, bq = to_mpq(float(g)), to_mpq(float(bb))
            lo = gq - bq
            assert (max(lo, 0)) ** truth.k <= q <= (gq + bq) ** truth.k, \
                f"{where}: {float(g)!r} is further than {bb:.3g} from the root of {q}"
            if bb > 0:
                _record(key, abs(float(g) - rr) / bb)
        return
    t = np.broadcast_to(np.asarray(truth, dtype=object), got.shape)
    for g, q, bb in zip(got.ravel(), t.ravel(), b.ravel()):
        err = abs(to_mpq(float(g)) - q)
        if bb == 0:
            assert err == 0, f"{where}: {float(g)!r} != exact {q}"
            _record(key, 0.0)
            continue
        ratio = float(err / to_mpq(float(bb)))
        _record(key, ratio)
        assert err <= to_mpq(float(bb)), f"{where}: error {float(err):.3g} > bound {bb:.3g} (ratio {ratio:.3g})"


def check_case(case: KCase, ctx, plain: dict):
    outs = as_tuple(case.run(ctx, **to_ctx(ctx, plain)))
    truths = as_tuple(case.exact(**plain))
    assert len(outs) == len(truths)
    if ctx is F32 or ctx is F64:
        u = U32 if ctx is F32 else U64
        bounds = as_tuple(case.bound(u, **plain))
        for k, (g, t, b) in enumerate(zip(outs, truths, bounds)):
            assert np.asarray(g).dtype == ctx.dtype, f"{case.name} output {k}: dtype {np.asarray(g).dtype}"
            judge_float(g, t, 0.0 if case.exact_in_float else b, (case.name, ctx.name, k),
                        f"{case.name}[{ctx.name}] output {k}")
    elif ctx is QQ:
        for k, (g, t) in enumerate(zip(outs, truths)):
            judge_exact(g, t, f"{case.name}[QQ] output {k}")
    else:
        wbounds = as_tuple(case.bound(IV_WIDTH_U, **plain))
        ends = (AC.lower, AC.upper) if isinstance(ctx, AC.ArbContext) else (lower, upper)
        for k, (g, t, w) in enumerate(zip(outs, truths, wbounds)):
            judge_interval(g, t, w, f"{case.name}[{ctx.name}] output {k}", ends)


def _run_qq_case(case, plain):
    """QQ raises for an irrational root; then the exact square (fourth power) must not be one."""
    try:
        check_case(case, QQ, plain)
    except ArithmeticError:
        truth = case.exact(**plain)
        assert isinstance(truth, Root)
        assert not all(_is_perfect_power(q, truth.k) for q in np.ravel(truth.q))


# --- (b) and (c): every kernel in every context ------------------------------------------------


def _n_examples(ctx) -> int:
    return examples(25, 600) if ctx in (F32, F64) else examples(8, 200)


@pytest.mark.parametrize("ctx", CONTEXTS, ids=lambda c: c.name)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_kernel_in_context(case, ctx):
    pwidth = 32 if ctx is F32 else 64
    max_scale = case.f32_scale if ctx is F32 else math.inf

    @settings(max_examples=_n_examples(ctx), suppress_health_check=[HealthCheck.too_slow])
    @given(case_inputs(case, pwidth, max_scale))
    def inner(plain):
        if ctx is QQ:
            _run_qq_case(case, plain)
        else:
            check_case(case, ctx, plain)

    inner()


PYTHAGOREAN = [(1, 2, 2, 3), (2, 3, 6, 7), (1, 4, 8, 9), (4, 4, 7, 9), (2, 6, 9, 11)]


@pytest.mark.parametrize("quad", PYTHAGOREAN)
@pytest.mark.parametrize("scale", [1.0, 2.0**-20, 2.0**40])
def test_roots_are_exact_in_qq(quad, scale):
    *v, n = quad
    a = np.array(v, dtype=np.float32) * np.float32(scale)
    assert np.asarray(K.norm(QQ, QQ.asarray(a)), dtype=object)[()] == to_mpq(n * scale)
    # |b - 0| = n^2 scale with scale an even power of two: the knot interval n sqrt(scale)
    b = a * np.float32(n)
    d = np.asarray(K.centripetal_knot_interval(QQ, QQ.asarray(np.zeros(3, np.float32)), QQ.asarray(b)),
                   dtype=object)[()]
    assert d == to_mpq(n * math.sqrt(scale))


# --- (d) vectorisation over leading axes --------------------------------------------------------


def _stack(items: list[dict], shape: tuple[int, ...]) -> dict:
    return {k: np.stack([np.asarray(it[k]) for it in items]).reshape(shape + np.shape(items[0][k]))
            for k in items[0]}


def _bits(x):
    x = np.asarray(x, dtype=np.float64)
    return x.view(np.uint64)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@settings(max_examples=examples(10, 200))
@given(data=st.data())
def test_batch_equals_items(case, data):
    shape = (2, 3)
    items = [data.draw(case_inputs(case, 64)) for _ in range(6)]
    batch = as_tuple(case.run(F64, **to_ctx(F64, _stack(items, shape))))
    for n, idx in enumerate(itertools.product(*map(range, shape))):
        single = as_tuple(case.run(F64, **to_ctx(F64, items[n])))
        for k, (b, s) in enumerate(zip(batch, single)):
            assert b.shape == shape + np.shape(s), f"{case.name} output {k}: shape {b.shape}"
            assert np.array_equal(_bits(b[idx]), _bits(s)), f"{case.name} output {k} item {idx}"


@given(controls32(1e3, (5, 4, 3)), parameters())
@settings(max_examples=examples(10, 200))
def test_scalar_parameter_broadcasts_over_a_batch(P, u):
    batch = K.cubic_sample(F64, F64.asarray(P), u)
    for i in range(5):
        single = K.cubic_sample(F64, F64.asarray(P[i]), u)
        for b, s in zip(batch, single):
            assert np.array_equal(_bits(b[i]), _bits(s))


# --- number contexts F32 / F64 -----------------------------------------------------------------


@given(controls32(1e3), parameters(width=32))
@settings(max_examples=examples(10, 200))
def test_f32_path_stays_float32(P, u):
    """float32 inputs give float32 outputs in every kernel (no silent float64 promotion).
    Parameters enter as context values (``F32.asarray(u)`` or ``np.float32``): a bare Python
    float becomes a float64 array inside the kernels, as in numpy (docs/decisions.md)."""
    for uu in (F32.asarray(u), np.float32(u)):
        h = F32.asarray(0.5)
        outs = (*K.cubic_sample(F32, P, uu), *K.cubic_split(F32, P, uu),
                K.cubic_subsegment(F32, P, uu, uu), K.norm(F32, P[0]),
                *K.bicubic_partials(F32, np.stack([P] * 4), uu, uu),
                *K.hermite_inner_controls(F32, P[0], P[1], P[2], P[3], h),
                K.barry_goldman_tangent(F32, P[0], P[1], P[2], h, h),
                K.chord_tangent(F32, P[0], P[1], h), K.centripetal_knot_interval(F32, P[0], P[1]),
                *K.joint_scaled_derivatives(F32, P, P, h, h), *K.control_box(F32, P))
        for out in outs:
            assert np.asarray(out).dtype == np.float32


def test_float_constants_round_once_to_the_nearest():
    # 1 + 2**-24 + 2**-60 rounds to float64 1 + 2**-24, a float32 tie that would go to 1.0;
    # the float32 nearest the rational is 1 + 2**-23.
    q = 1 + Fraction(1, 2**24) + Fraction(1, 2**60)
    c = F32.const(f"{q.numerator}/{q.denominator}")
    assert c.dtype == np.float32 and float(c) == 1 + 2.0**-23
    assert float(F64.const("1/3")) == 1 / 3 and F64.const("1/3").dtype == np.float64
    assert float(F32.const("1/3")) == float(np.float32(1 / 3))
    assert float(F32.const("-1/3")) == -float(np.float32(1 / 3))


def test_float_sign3_is_unknown_for_nan():
    for ctx in (F32, F64):
        x = ctx.asarray([np.nan, -2.0, -0.0, 0.0, 3.0])
        got = ctx.sign3(x)
        assert got.dtype == np.int8
        assert got.tolist() == [UNKNOWN, -1, 0, 0, 1]


def test_float_context_hooks():
    for ctx in (F32, F64):
        x = ctx.asarray([4.0, -9.0])
        assert ctx.sqrt(ctx.abs(x)).tolist() == [2.0, 3.0]
        assert ctx.minimum(x, ctx.asarray([1.0, 1.0])).tolist() == [1.0, -9.0]
        assert ctx.maximum(x, ctx.asarray([1.0, 1.0])).tolist() == [4.0, 1.0]
        assert ctx.to_float(x).dtype == np.float64
        assert ctx.unit_roundoff == (U32 if ctx is F32 else U64)


# --- (a) formulas on SymPy symbols -------------------------------------------------------------

x_, u_, v_, t_ = sympy.symbols("x u v t")
h_, w1_, w2_, d0_, d1_ = sympy.symbols("h w1 w2 d0 d1", positive=True)


def sym_ctrl(name: str, shape) -> np.ndarray:
    arr = np.empty(shape, dtype=object)
    for idx in itertools.product(*map(range, shape)):
        arr[idx] = sympy.Symbol(name + "_" + "".join(map(str, idx)), real=True)
    return arr


def bern_sym(P, u):
    """sum_i C(3, i) (1 - u)^(3-i) u^i P_i for P (4, D) of symbols."""
    return sum(sympy.binomial(3, i) * (1 - u) ** (3 - i) * u**i * P[i] for i in range(4))


def assert_same(a, b, what):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    for x, y in zip(a.ravel(), b.ravel()):
        # cancel: expand, and reduce rational functions (Hermite, Barry-Goldman, joints)
        assert sympy.cancel(x - y) == 0, f"{what}: {sympy.cancel(x - y)} != 0"


def sdiff(arr, *args):
    return np.vectorize(lambda e: sympy.diff(e, *args), otypes=[object])(arr)


def ssubs(arr, sub):
    return np.vectorize(lambda e: sympy.sympify(e).subs(sub, simultaneous=True), otypes=[object])(arr)


P_ = sym_ctrl("p", (4, 3))


def test_symbolic_bernstein3():
    got = K.bernstein3(SYM, u_)
    for i in range(4):
        assert sympy.expand(got[i] - sympy.binomial(3, i) * (1 - u_) ** (3 - i) * u_**i) == 0
    assert sympy.expand(sum(got) - 1) == 0  # partition of unity


def test_symbolic_cubic_point_and_derivatives():
    B = bern_sym(P_, u_)
    assert_same(K.cubic_point(SYM, P_, u_), B, "B(u)")
    assert_same(K.cubic_derivative(SYM, P_, u_), sdiff(B, u_), "B'(u)")
    assert_same(K.cubic_second_derivative(SYM, P_, u_), sdiff(B, u_, 2), "B''(u)")
    s0, s1, s2 = K.cubic_sample(SYM, P_, u_)
    assert_same(s0, B, "sample B")
    assert_same(s1, sdiff(B, u_), "sample B'")
    assert_same(s2, sdiff(B, u_, 2), "sample B''")


def test_symbolic_split_is_the_restriction():
    B = bern_sym(P_, u_)
    left, right = K.cubic_split(SYM, P_, t_)
    assert_same(bern_sym(left, x_), ssubs(B, {u_: t_ * x_}), "left = B(t x)")
    assert_same(bern_sym(right, x_), ssubs(B, {u_: t_ + (1 - t_) * x_}), "right = B(t + (1-t) x)")


def test_symbolic_blossom_is_symmetric_multiaffine_diagonal():
    t1, t2, t3 = sympy.symbols("t1 t2 t3")
    f = K.cubic_blossom(SYM, P_, t1, t2, t3)
    assert_same(K.cubic_blossom(SYM, P_, u_, u_, u_), bern_sym(P_, u_), "f(u, u, u) = B(u)")
    for perm in itertools.permutations((t1, t2, t3)):
        assert_same(K.cubic_blossom(SYM, P_, *perm), f, f"symmetric under {perm}")
    for e in f.ravel():
        for t in (t1, t2, t3):
            assert sympy.degree(sympy.expand(e), t) <= 1, "multi-affine"


def test_symbolic_subsegment_is_the_reparametrized_restriction():
    u0, u1 = sympy.symbols("u0 u1")
    S = K.cubic_subsegment(SYM, P_, u0, u1)
    assert_same(bern_sym(S, x_), ssubs(bern_sym(P_, u_), {u_: u0 + (u1 - u0) * x_}),
                "B(u0 + (u1 - u0) x)")


def test_symbolic_control_box_is_min_max():
    lo, hi = K.control_box(SYM, P_)
    for d in range(3):
        assert lo[d] == sympy.Min(*P_[:, d]) and hi[d] == sympy.Max(*P_[:, d])


C_ = sym_ctrl("c", (4, 4, 1))


def test_symbolic_bicubic_point_and_partials():
    S = sum(sympy.binomial(3, i) * (1 - u_) ** (3 - i) * u_**i
            * sympy.binomial(3, j) * (1 - v_) ** (3 - j) * v_**j * C_[i, j] for i in range(4) for j in range(4))
    assert_same(K.bicubic_point(SYM, C_, u_, v_), S, "S(u, v)")
    got = K.bicubic_partials(SYM, C_, u_, v_)
    want = [S, sdiff(S, u_), sdiff(S, v_), sdiff(S, u_, 2), sdiff(S, u_, v_), sdiff(S, v_, 2)]
    for name, g, w in zip(("S", "Su", "Sv", "Suu", "Suv", "Svv"), got, want):
        assert_same(g, w, name)


a_, b_, c_ = sym_ctrl("a", (3,)), sym_ctrl("b", (3,)), sym_ctrl("c", (3,))


def test_symbolic_dot_cross_norm():
    A, B = sympy.Matrix(a_), sympy.Matrix(b_)
    assert sympy.expand(K.dot(SYM, a_, b_) - A.dot(B)) == 0
    assert_same(K.cross(SYM, a_, b_), np.array(list(A.cross(B)), dtype=object), "cross")
    assert sympy.simplify(K.norm(SYM, a_) - sympy.sqrt(A.dot(A))) == 0
    assert sympy.simplify(K.norm(SYM, a_) - A.norm()) == 0


def test_symbolic_hermite_controls_match_the_end_tangents():
    p0, t0, p1, t1 = (sym_ctrl(n, (3,)) for n in ("p0", "t0", "p1", "t1"))
    b1, b2 = K.hermite_inner_controls(SYM, p0, t0, p1, t1, h_)
    B = bern_sym(np.stack([p0, b1, b2, p1]), u_)
    dB = sdiff(B, u_)
    # endpoints kept; dB/du = h * (tangent per unit of the global parameter) at both ends
    assert_same(ssubs(B, {u_: 0}), p0, "B(0)")
    assert_same(ssubs(B, {u_: 1}), p1, "B(1)")
    assert_same(ssubs(dB, {u_: 0}), h_ * t0, "B'(0) = h T0")
    assert_same(ssubs(dB, {u_: 1}), h_ * t1, "B'(1) = h T1")


def test_symbolic_centripetal_knot_interval():
    d = sympy.Matrix(b_) - sympy.Matrix(a_)
    k = K.centripetal_knot_interval(SYM, a_, b_)
    assert sympy.simplify(k - sympy.sqrt(d.norm())) == 0  # |b - a| ** (1/2)
    assert sympy.expand(k**4 - d.dot(d)) == 0  # (|b - a| ** (1/2)) ** 4 = |b - a|^2


def test_symbolic_barry_goldman_is_the_pyramid_derivative():
    """The Barry-Goldman pyramid (Barry & Goldman 1988) over knots t0 < t1 < t2 < t3 with
    points P0..P3 interpolates P1 at t1; its derivative there is the kernel's tangent at P1
    with d0 = t1 - t0 and d1 = t2 - t1."""
    t = sympy.Symbol("t")
    t0, d2 = sympy.Integer(0), sympy.Symbol("d2", positive=True)
    t1, t2 = t0 + d0_, t0 + d0_ + d1_
    t3 = t2 + d2
    P = [sym_ctrl(f"q{k}", (3,)) for k in range(4)]
    T = [t0, t1, t2, t3]

    def lerp(a, b, ta, tb):
        return ((tb - t) * a + (t - ta) * b) / (tb - ta)

    A = [lerp(P[k], P[k + 1], T[k], T[k + 1]) for k in range(3)]
    Bm = [lerp(A[0], A[1], T[0], T[2]), lerp(A[1], A[2], T[1], T[3])]
    Cv = lerp(Bm[0], Bm[1], T[1], T[2])
    assert_same(ssubs(Cv, {t: t1}), P[1], "C(t1) = P1")
    dC = ssubs(sdiff(Cv, t), {t: t1})
    got = K.barry_goldman_tangent(SYM, P[0], P[1], P[2], d0_, d1_)
    assert_same(got, dC, "Barry-Goldman tangent = the pyramid's derivative at t1")


def test_symbolic_chord_tangent():
    assert_same(K.chord_tangent(SYM, a_, b_, d0_), (b_ - a_) / d0_, "(b - a) / d")


def test_symbolic_joint_scaled_derivatives():
    Q_ = sym_ctrl("q", (4, 3))
    d_in, d_out, s_in, s_out = K.joint_scaled_derivatives(SYM, P_, Q_, w1_, w2_)
    Bi, Bo = bern_sym(P_, u_), bern_sym(Q_, u_)
    assert_same(d_in, ssubs(sdiff(Bi, u_), {u_: 1}) / w1_, "B_in'(1) / w_in")
    assert_same(d_out, ssubs(sdiff(Bo, u_), {u_: 0}) / w2_, "B_out'(0) / w_out")
    assert_same(s_in, ssubs(sdiff(Bi, u_, 2), {u_: 1}) / w1_**2, "B_in''(1) / w_in^2")
    assert_same(s_out, ssubs(sdiff(Bo, u_, 2), {u_: 0}) / w2_**2, "B_out''(0) / w_out^2")


# --- the exact references themselves ----------------------------------------------------------


def test_exact_references_agree_with_sympy():
    """The mpq textbook helpers above are the truth of tests (b)-(c): check them once against
    SymPy on a rational example."""
    P = np.array([[1, 2, 3], [-4, 5, 0.5], [7, -8, 9], [0.25, 1, -1]], dtype=np.float32)
    u = 0.375
    Ps = np.vectorize(lambda e: sympy.Rational(Fraction(float(e))), otypes=[object])(P)
    B = bern_sym(Ps, u_)
    for k in range(3):
        want = ssubs(sdiff(B, u_, k) if k else B, {u_: sympy.Rational(3, 8)})
        assert list(bezier_exact(P, u, k)) == [mpq(int(w.p), int(w.q)) for w in want]
    left, right = split_exact(P, 0.25)
    assert (np.array(left[0], dtype=object) == Qa(P[0])).all() and (right[3] == Qa(P[3])).all()
    assert (left[3] == bezier_exact(P, 0.25)).all()
    assert (blossom_exact(P, u, u, u) == bezier_exact(P, u)).all()
    assert (subseg_exact(P, 0, 1) == Qa(P)).all()
