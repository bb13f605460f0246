"""Cubic and bicubic Bernstein kernels, written once over a number context.

Every kernel is ``def f(ctx, ...)`` over arrays and is vectorised over leading axes: a cubic's
controls have shape ``(..., 4, D)`` and its parameter broadcasts against ``(...)``; a bicubic
patch's controls have shape ``(..., 4, 4, D)`` indexed ``[u][v]``. The same body runs on
``F32``/``F64`` (native numpy), ``IV`` (``mpmath.iv``), ``QQ`` (``gmpy2.mpq``) and, in tests, on
SymPy symbols, where ``tests/reference/test_kernel.py`` compares it with the textbook sums.

Rules inside this file (``tests/reference/test_kernel_rules.py`` enforces them): no ``<``,
``>``, ``if`` or conditional expressions on computed values; numeric constants only through
``ctx.const``; ``ctx.sqrt``/``ctx.abs``/``ctx.minimum``/``ctx.maximum``, never numpy's; no dtype
casts. Arithmetic errors of the float contexts are bounded in ``reference/error_model.py``.

Math (``s = 1 - u``)::

    B(u)   = s^3 P0 + 3 s^2 u P1 + 3 s u^2 P2 + u^3 P3
    B'(u)  = 3 [s^2 (P1 - P0) + 2 s u (P2 - P1) + u^2 (P3 - P2)]
    B''(u) = 6 [s (P2 - 2 P1 + P0) + u (P3 - 2 P2 + P1)]
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = [
    "barry_goldman_tangent",
    "bernstein3",
    "bicubic_first_partials",
    "bicubic_normal_vector",
    "bicubic_partials",
    "bicubic_point",
    "centripetal_knot_interval",
    "chord_tangent",
    "control_box",
    "cross",
    "cross_boundary_controls",
    "cubic_blossom",
    "cubic_chord",
    "cubic_derivative",
    "cubic_point",
    "cubic_sample",
    "cubic_second_derivative",
    "cubic_split",
    "cubic_subsegment",
    "dot",
    "hermite_inner_controls",
    "joint_scaled_derivatives",
    "norm",
    "reflect",
    "rotate_about",
    "rotate_between",
]


def kernel(fn):
    """Run ``fn(ctx, ...)`` inside ``ctx.scope()`` (IV sets its working precision there)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with ctx.scope():
            return fn(ctx, *args, **kwargs)

    return wrapper


def _col(u):
    """``u`` with a trailing axis so that it scales vectors of shape ``(..., D)``."""
    return np.asarray(u)[..., None]


@kernel
def bernstein3(ctx, u):
    """The four cubic Bernstein basis values at ``u`` (each shaped like ``u``)."""
    one, three = ctx.const("1"), ctx.const("3")
    s = one - u
    return s * s * s, three * s * s * u, three * s * u * u, u * u * u


@kernel
def cubic_point(ctx, P, u):
    """B(u) for controls ``P`` (..., 4, D) at ``u`` (broadcasting to ``...``): shape (..., D)."""
    b0, b1, b2, b3 = bernstein3(ctx, u)
    return (_col(b0) * P[..., 0, :] + _col(b1) * P[..., 1, :]) + (
        _col(b2) * P[..., 2, :] + _col(b3) * P[..., 3, :]
    )


@kernel
def cubic_derivative(ctx, P, u):
    """dB/du (per normalized u) for controls ``P`` (..., 4, D) at ``u``: shape (..., D)."""
    one, two, three = ctx.const("1"), ctx.const("2"), ctx.const("3")
    s = one - u
    d0 = P[..., 1, :] - P[..., 0, :]
    d1 = P[..., 2, :] - P[..., 1, :]
    d2 = P[..., 3, :] - P[..., 2, :]
    return three * ((_col(s * s) * d0 + _col(two * s * u) * d1) + _col(u * u) * d2)


@kernel
def cubic_chord(ctx, P, a, b):
    """B(b) - B(a) for controls ``P`` (..., 4, D), ``a`` and ``b`` broadcasting to ``...``: the
    integral of dB/du over [a, b] from the hodograph's Bernstein coefficients there (its blossoms
    at (a, a), (a, b), (b, b)), ``(b - a) (q(a, a) + q(a, b) + q(b, b))`` with ``q`` the blossom of
    ``(dB/du) / 3``. The same value as the difference of the two points; in floating point its
    error is relative to the control polygon's legs times ``b - a``, not to the positions (a
    short chord of a span far from its origin keeps its direction)."""
    one = ctx.const("1")
    d0 = P[..., 1, :] - P[..., 0, :]
    d1 = P[..., 2, :] - P[..., 1, :]
    d2 = P[..., 3, :] - P[..., 2, :]

    def q(x, y):
        sx, sy = one - x, one - y
        return (_col(sx * sy) * d0 + _col(sx * y + x * sy) * d1) + _col(x * y) * d2

    return _col(b - a) * ((q(a, a) + q(a, b)) + q(b, b))


@kernel
def cubic_second_derivative(ctx, P, u):
    """d2B/du2 for controls ``P`` (..., 4, D) at ``u``: shape (..., D)."""
    one, six = ctx.const("1"), ctx.const("6")
    s = one - u
    d0 = P[..., 1, :] - P[..., 0, :]
    d1 = P[..., 2, :] - P[..., 1, :]
    d2 = P[..., 3, :] - P[..., 2, :]
    return six * (_col(s) * (d1 - d0) + _col(u) * (d2 - d1))


@kernel
def cubic_sample(ctx, P, u):
    """``(B(u), B'(u), B''(u))``, each of shape (..., D)."""
    return cubic_point(ctx, P, u), cubic_derivative(ctx, P, u), cubic_second_derivative(ctx, P, u)


def _lerp(ctx, a, b, t):
    # (1 - t) a + t b is exact at t = 0 and t = 1 in every context (a + t (b - a) is not).
    tt = _col(t)
    return (ctx.const("1") - tt) * a + tt * b


@kernel
def cubic_blossom(ctx, P, t1, t2, t3):
    """The blossom (polar form) f(t1, t2, t3) of the cubic: de Casteljau with one parameter per
    level. ``f(u, u, u) = B(u)``; shape (..., D)."""
    a = [_lerp(ctx, P[..., k, :], P[..., k + 1, :], t1) for k in range(3)]
    b = [_lerp(ctx, a[k], a[k + 1], t2) for k in range(2)]
    return _lerp(ctx, b[0], b[1], t3)


@kernel
def cubic_split(ctx, P, t):
    """De Casteljau subdivision at ``t``: ``(left, right)`` controls, each (..., 4, D).

    ``left`` reparametrizes ``[0, t]`` and ``right`` ``[t, 1]`` to ``[0, 1]``.
    """
    p0, p1, p2, p3 = (P[..., k, :] for k in range(4))
    q0, q1, q2 = _lerp(ctx, p0, p1, t), _lerp(ctx, p1, p2, t), _lerp(ctx, p2, p3, t)
    r0, r1 = _lerp(ctx, q0, q1, t), _lerp(ctx, q1, q2, t)
    m = _lerp(ctx, r0, r1, t)
    left = np.stack([p0, q0, r0, m], axis=-2)
    right = np.stack([m, r1, q2, p3], axis=-2)
    return left, right


@kernel
def cubic_subsegment(ctx, P, u0, u1):
    """Controls of the cubic restricted to ``[u0, u1]`` and reparametrized to ``[0, 1]``:
    the blossom values f(u0,u0,u0), f(u0,u0,u1), f(u0,u1,u1), f(u1,u1,u1). Shape (..., 4, D).

    The four blossoms run as one call over a new axis of parameter triples: each value's
    operations are those of its own blossom (the same bits), in a quarter of the array calls."""
    u0, u1 = np.broadcast_arrays(np.asarray(u0), np.asarray(u1))

    def per_blossom(*ts):  # one blossom argument, for each of the four blossoms
        return np.stack(ts, axis=-1)

    return cubic_blossom(ctx, P[..., None, :, :], per_blossom(u0, u0, u0, u1), per_blossom(u0, u0, u1, u1),
                         per_blossom(u0, u1, u1, u1))


@kernel
def control_box(ctx, P):
    """Axis-aligned box of the controls ``P`` (..., N, D) over axis -2: ``(lo, hi)``, (..., D).

    The curve lies in this box (convex hull property); min and max round nothing, so the box
    of float32 controls is exact.
    """
    lo, hi = P[..., 0, :], P[..., 0, :]
    for k in range(1, P.shape[-2]):
        lo = ctx.minimum(lo, P[..., k, :])
        hi = ctx.maximum(hi, P[..., k, :])
    return lo, hi


@kernel
def bicubic_point(ctx, C, u, v):
    """S(u, v) = sum_ij B_i(u) B_j(v) C[i][j] for controls ``C`` (..., 4, 4, D): shape (..., D)."""
    rows = cubic_point(ctx, C, _col(v))  # (..., 4, D): the v-curves' points, a cubic in u
    return cubic_point(ctx, rows, u)


@kernel
def bicubic_partials(ctx, C, u, v):
    """``(S, Su, Sv, Suu, Suv, Svv)`` per normalized u and v, each (..., D)."""
    vv = _col(v)
    q = cubic_point(ctx, C, vv)
    qv = cubic_derivative(ctx, C, vv)
    qvv = cubic_second_derivative(ctx, C, vv)
    return (
        cubic_point(ctx, q, u),
        cubic_derivative(ctx, q, u),
        cubic_point(ctx, qv, u),
        cubic_second_derivative(ctx, q, u),
        cubic_derivative(ctx, qv, u),
        cubic_point(ctx, qvv, u),
    )


@kernel
def dot(ctx, a, b):
    """Dot product over the last axis (length 3)."""
    return (a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]) + a[..., 2] * b[..., 2]


@kernel
def cross(ctx, a, b):
    """Cross product of 3-vectors over the last axis."""
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


@kernel
def norm(ctx, a):
    """Euclidean norm over the last axis (length 3)."""
    return ctx.sqrt(dot(ctx, a, a))


@kernel
def hermite_inner_controls(ctx, p0, t0, p1, t1, h):
    """Hermite to Bezier: ``B1 = P0 + h T0 / 3`` and ``B2 = P1 - h T1 / 3`` (each (..., 3)).

    ``T0``, ``T1`` are tangents per unit of the global parameter and ``h`` the span's width.
    """
    three = ctx.const("3")
    hh = _col(h)
    return p0 + hh * t0 / three, p1 - hh * t1 / three


@kernel
def centripetal_knot_interval(ctx, a, b):
    """Centripetal knot interval ``|b - a| ** (1/2)`` = ``sqrt(sqrt(|b - a|^2))``."""
    d = b - a
    return ctx.sqrt(ctx.sqrt(dot(ctx, d, d)))


@kernel
def barry_goldman_tangent(ctx, p_prev, p, p_next, d0, d1):
    """Nonuniform Catmull-Rom (Barry-Goldman) tangent at ``p`` per unit of the knot parameter:
    ``(p - p_prev)/d0 - (p_next - p_prev)/(d0 + d1) + (p_next - p)/d1``, where ``d0`` and
    ``d1`` are the knot intervals before and after ``p``."""
    c0, c1 = _col(d0), _col(d1)
    return ((p - p_prev) / c0 - (p_next - p_prev) / (c0 + c1)) + (p_next - p) / c1


@kernel
def chord_tangent(ctx, a, b, d):
    """One-sided chord tangent ``(b - a) / d`` used at an open path's endpoints."""
    return (b - a) / _col(d)


@kernel
def joint_scaled_derivatives(ctx, P_in, P_out, w_in, w_out):
    """A joint's DomainWidth-scaled derivatives: ``(d_in, d_out, s_in, s_out)``.

    ``d = B'/w`` at the incoming span's u = 1 and the outgoing span's u = 0, and ``s = B''/w^2``:
    ``d_in = 3 (P3 - P2)/w_in``, ``d_out = 3 (Q1 - Q0)/w_out``,
    ``s_in = 6 ((P3 - P2) - (P2 - P1))/w_in^2``, ``s_out = 6 ((Q2 - Q1) - (Q1 - Q0))/w_out^2``.
    """
    three, six = ctx.const("3"), ctx.const("6")
    wi, wo = _col(w_in), _col(w_out)
    a2 = P_in[..., 3, :] - P_in[..., 2, :]
    a1 = P_in[..., 2, :] - P_in[..., 1, :]
    b0 = P_out[..., 1, :] - P_out[..., 0, :]
    b1 = P_out[..., 2, :] - P_out[..., 1, :]
    d_in = three * a2 / wi
    d_out = three * b0 / wo
    s_in = six * (a2 - a1) / (wi * wi)
    s_out = six * (b1 - b0) / (wo * wo)
    return d_in, d_out, s_in, s_out


@kernel
def reflect(ctx, v, n):
    """Reflection of ``v`` in the plane through the origin normal to ``n`` (each (..., 3)):
    ``v - 2 (n . v) / (n . n) n``. ``n`` must be nonzero (the caller skips a zero ``n``)."""
    two = ctx.const("2")
    return v - _col(two * dot(ctx, n, v) / dot(ctx, n, n)) * n


@kernel
def rotate_between(ctx, v, a, b):
    """The rotation that takes the unit vector ``a`` to the unit vector ``b`` about the axis
    ``a x b`` (the minimal rotation), applied to ``v``: with ``w = a x b`` and ``c = a . b``,
    ``R v = c v + w x v + (w . v) / (1 + c) w`` (Rodrigues' formula with ``sin = |w|``, no
    trigonometry). Undefined for ``b = -a`` (``1 + c = 0``; the caller rejects it)."""
    one = ctx.const("1")
    w = cross(ctx, a, b)
    c = dot(ctx, a, b)
    return (_col(c) * v + cross(ctx, w, v)) + _col(dot(ctx, w, v) / (one + c)) * w


@kernel
def rotate_about(ctx, v, k, c, s):
    """Rotation of ``v`` about the unit axis ``k`` by the angle whose cosine and sine are ``c``
    and ``s`` (Rodrigues): ``c v + s (k x v) + (1 - c) (k . v) k``."""
    one = ctx.const("1")
    return (_col(c) * v + _col(s) * cross(ctx, k, v)) + _col((one - c) * dot(ctx, k, v)) * k


@kernel
def bicubic_first_partials(ctx, C, u, v):
    """``(Su, Sv)``, the first partials per normalized u and v of the patch ``C`` (..., 4, 4, D)
    indexed ``[u][v]``: ``Su = sum_ij B_i'(u) B_j(v) C_ij``, ``Sv = sum_ij B_i(u) B_j'(v) C_ij``.
    The same operations as the first partials of :func:`bicubic_partials`, so equal bit for bit."""
    vv = _col(v)
    q = cubic_point(ctx, C, vv)
    qv = cubic_derivative(ctx, C, vv)
    return cubic_derivative(ctx, q, u), cubic_point(ctx, qv, u)


@kernel
def bicubic_normal_vector(ctx, C, u, v):
    """``(Su, Sv, N)`` with the unnormalized surface normal ``N = Su x Sv`` (shape (..., 3)).
    Its direction is the counterclockwise (u, v) orientation of the patch."""
    su, sv = bicubic_first_partials(ctx, C, u, v)
    return su, sv, cross(ctx, su, sv)


@kernel
def cross_boundary_controls(ctx, boundary, inner):
    """The outward cross-boundary derivative controls ``3 (boundary - inner)`` of a patch side.

    ``boundary`` (..., 4, D) is the side's control row (``C[0][j]`` for U0, ``C[3][j]`` for U1,
    ``C[i][0]`` for V0, ``C[i][3]`` for V1) and ``inner`` the next row inward. The result is the
    Bezier control curve, in the side's along-edge parameter s, of the derivative per normalized
    parameter pointing out of the patch (``-dS/du`` on U0, ``+dS/du`` on U1, ``-dS/dv`` on V0,
    ``+dS/dv`` on V1).
    """
    return ctx.const("3") * (boundary - inner)
