"""A-priori error models of the Rounded outputs, one function per quantity.

Each function returns an upper bound of ``|computed - exact|`` (per component for vectors,
Euclidean where stated) for a value computed by the fast path in float64 (unit roundoff
``u = 2**-53``) or, for other implementations, in a dtype whose unit roundoff is passed as
``u``. The oracle measures the actual error against exact or interval arithmetic and the
ledger reports the worst ratio ``error / bound``; a ratio above 1 is a Violated claim.

Each bound is ``16 u`` times an a-priori bound of the quantity's magnitude: the rounding-error
analyses (in each docstring) give constants between 3 and 10, and 16 keeps a margin for the
computation of the bound itself. The bounds are computed in float64 and rounded up.

Underflow. A product or quotient whose result is subnormal is off by up to half the format's
smallest subnormal ``eta`` *absolutely*, not relatively (sums and differences of floats are
exact there). Where a kernel's result can be that small, relative terms alone are false: in
float32 arithmetic, ``B(u)`` of controls near 1e-40 has errors near 2**-150 while
``16 u E`` is far smaller. The position, derivative and Hermite bounds therefore add
``K eta`` (their analyses find at most ``6.5 eta``; see each docstring), and norms, whose
squares underflow, add ``sqrt(2 eta)`` (knot intervals, fourth roots: ``(2 eta)**(1/4)``).
In float64 evaluation of float32 controls the new terms change no bound above 2**-1000.
``eta`` follows from ``u`` for the IEEE binary formats (binary64: 2**-1074,
binary32: 2**-149, binary16: 2**-24) or is passed explicitly (``eta=0`` for arithmetic without
underflow, such as mpmath intervals at an explicit precision).
"""

from __future__ import annotations

import numpy as np

from .fp import U64, add_hi, div_hi, mul_hi, up

__all__ = [
    "K",
    "angle_bound",
    "catmull_rom_bound",
    "derivative_bound",
    "difference_bound",
    "gap_bound",
    "hermite_bound",
    "knot_interval_bound",
    "position_bound",
    "relative_bound",
    "second_derivative_bound",
    "span_magnitude",
    "subsegment_error_bound",
    "tangent_bound",
]

K = 16.0  # the model's rounding count; every bound below is K u times a magnitude bound

# Smallest positive subnormal of the IEEE binary format with unit roundoff u.
_ETA = {2.0**-53: 2.0**-1074, 2.0**-24: 2.0**-149, 2.0**-11: 2.0**-24}


def _eta(u: float, eta: float | None) -> float:
    if eta is not None:
        return float(eta)
    if u not in _ETA:
        raise ValueError(f"no IEEE binary format has unit roundoff {u!r}: pass eta explicitly")
    return _ETA[u]


def _value(x):
    """A bound as a Python float, or as an array where E was an array (a batch of spans: the
    same operations element by element, so each element is bit for bit the scalar bound)."""
    return float(x) if np.ndim(x) == 0 else x


def span_magnitude(controls) -> float:
    """E of one span: the largest magnitude of its controls (any dtype, read exactly)."""
    return float(np.max(np.abs(np.asarray(controls, dtype=np.float64))))


def position_bound(E: float, u: float = U64, *, eta: float | None = None) -> float:
    """Per-component bound for ``B(u)`` of float32 controls, evaluated by Bernstein sums.

    Each basis value carries at most 5 roundings, each term one more, three additions three
    more (gamma_9), relative to ``sum_i b_i |P_i| <= E`` because the basis sums to one.
    Underflow: the four products ``b_i P_i`` add at most ``4 eta / 2`` (an underflowing basis
    value errs by ``eta`` relative to E, inside the margin of K): ``K u E + K eta``.
    """
    return _value(up(K * u * E + K * _eta(u, eta)))


def derivative_bound(E: float, u: float = U64, *, eta: float | None = None) -> float:
    """Per-component bound for ``B'(u)``: ``|B'| <= 3 max|P_{i+1} - P_i| <= 6E``; gamma_8.

    Underflow: three products of a coefficient and a difference (``3 eta / 2``), then the
    factor 3 and its own rounding: ``5 eta <= K eta``.
    """
    return _value(up(K * u * mul_hi(6.0, E) + K * _eta(u, eta)))


def second_derivative_bound(E: float, u: float = U64, *, eta: float | None = None) -> float:
    """Per-component bound for ``B''(u)``: ``|B''| <= 6 max|second difference| <= 24E``.

    Underflow: two products (``eta``), the factor 6 and its rounding: ``6.5 eta <= K eta``.
    """
    return _value(up(K * u * mul_hi(24.0, E) + K * _eta(u, eta)))


def tangent_bound(E: float, speed: float, u: float = U64, *, eta: float | None = None) -> float:
    """Euclidean bound for the unit tangent ``B'/|B'|`` at a computed speed ``|B'|``.

    With ``e = sqrt(3) * derivative_bound`` the Euclidean derivative error, normalizing moves
    the direction by at most ``2 e / (speed - e)``; the normalization itself adds a few ulps
    (``(1 - 4u)`` on the denominator for the computed speed's relative error, ``K u`` for the
    rest). Underflow: the squares inside the computed speed err by up to ``3 eta / 2``
    absolutely, so the speed is off by up to ``r = sqrt(2 eta)`` (``sqrt(a + e) - sqrt(a) <=
    sqrt(e)``), which moves the direction by ``r / speed`` and lowers the certain speed by ``r``;
    the quotients add ``K eta``. Bound: ``(2 e + r) / ((speed - e - r)(1 - 4u)) + K u + K eta``.
    In float64 evaluation of float32 controls ``r`` changes no bound by more than an ulp.
    Returns inf where ``speed <= e + r`` (no direction is certain there).
    """
    et = _eta(u, eta)
    e = mul_hi(np.sqrt(3.0) * (1 + 2 * U64), derivative_bound(E, u, eta=et))
    r = float(np.sqrt(2.0 * et) * (1 + 2 * U64))
    denom = speed - e - r
    if not denom > 0:
        return float("inf")
    return float(add_hi(div_hi(add_hi(mul_hi(2.0, e), r), denom * (1 - 4 * max(u, U64))), add_hi(K * u, K * et)))


def hermite_bound(p, t, h: float, u: float = U64, *, eta: float | None = None):
    """Per-component bound for ``P + h T / 3`` (or ``P - h T / 3``) from float64 inputs.

    Three roundings (``h T``, ``/ 3``, ``+``) on magnitudes at most ``|P| + |h T| / 3``; the
    product and the quotient may underflow (``eta`` in all, inside ``K eta``).
    ``p`` and ``t`` are (3,) arrays; returns a (3,) array.
    """
    p = np.abs(np.asarray(p, dtype=np.float64))
    t = np.abs(np.asarray(t, dtype=np.float64))
    mag = add_hi(p, div_hi(mul_hi(abs(h), t), 3.0))
    return up(K * u * mag + K * _eta(u, eta))


def catmull_rom_bound(points, u: float = U64) -> float:
    """Per-component bound for the Bezier controls of one centripetal Catmull-Rom span.

    ``points`` (k, 3) are the waypoints its controls depend on (the span's two ends and up to
    one neighbour on each side). With W the largest waypoint magnitude and S the sum of the
    centripetal knot intervals among them, every term of ``d1 m / 3`` is at most ``S^2`` in
    magnitude (``|dP| = d^2``) and carries relative errors from the quartic roots (about 2u
    each) and the divisions; the control is then ``P + d1 m / 3``. Bound: ``4 K u (W + S^2)``.
    """
    pts = np.asarray(points, dtype=np.float64)
    W = float(np.max(np.abs(pts)))
    dv = np.diff(pts, axis=0)
    # hypot, not a sum of squares: chords of 1e-160 or 1e170 neither underflow nor overflow.
    legs = np.sqrt(np.hypot(np.hypot(dv[:, 0], dv[:, 1]), dv[:, 2]))
    S = float(up(np.sum(legs) * (1 + 8 * U64)))
    return float(up(4 * K * u * add_hi(W, mul_hi(S, S))))


def gap_bound(gap: float, u: float = U64, *, eta: float | None = None) -> float:
    """Bound for a Euclidean distance ``|a - b|`` of float32 points computed in the format of
    ``u``.

    The difference rounds at most once per component, the norm adds about 3 roundings:
    relative error below 5u of the value. Underflow: squares of subnormal-range differences
    err by up to ``eta / 2`` each (a float32 gap below about 2**-75 computed in float32 comes
    out 0), which the root turns into at most ``sqrt(2 eta)``: ``K u |gap| + sqrt(2 eta)``.
    (In float64 of float32 points nothing underflows; the term then changes no bound of a
    nonzero gap.)
    """
    return float(add_hi(K * u * abs(gap), np.sqrt(2.0 * _eta(u, eta)) * (1 + 2 * U64)))


def difference_bound(scale_in: float, scale_out: float, u: float = U64, *,
                     eta: float | None = None) -> float:
    """Bound for ``|x_in - x_out|`` where ``x`` are computed derivatives of a priori magnitudes
    at most ``scale_in`` and ``scale_out`` (each computed with a few roundings). Underflow: each
    side's product and quotient may err by ``eta / 2`` absolutely (``2 eta`` in all, inside
    ``K eta``): ``K u (scale_in + scale_out) + K eta``."""
    return float(up(K * u * add_hi(scale_in, scale_out) + K * _eta(u, eta)))


def angle_bound(sum_norm: float, u: float = U64) -> float:
    """Bound (radians) for ``2 atan2(|a - b|, |a + b|)`` of computed unit vectors a, b.

    Each unit vector is off by a few ulps, so ``|a - b|`` and ``|a + b|`` are off by about 8u;
    the angle moves by at most that over ``|a + b|`` (its sensitivity), twice. ``sum_norm`` is
    the computed ``|a + b|``; inf where it is too small to say.
    """
    denom = sum_norm - 16 * u
    if not denom > 0:
        return float("inf")
    return float(up(K * u * (2.0 + div_hi(4.0, denom))))


def knot_interval_bound(d: float, u: float = U64, *, eta: float | None = None) -> float:
    """Bound for a centripetal knot interval ``sqrt(sqrt(|b - a|^2))`` computed in float64:
    the sum of squares carries about 3u relative error, each root halves the inherited error
    and adds u: below 3u relative of ``d``. Underflowing squares err by ``3 eta / 2``
    absolutely, which the two roots turn into at most ``(2 eta) ** (1/4)`` (``sqrt(a + e) -
    sqrt(a) <= sqrt(e)``): ``K u |d| + (2 eta) ** (1/4)``."""
    return float(up(K * u * abs(d) + (2.0 * _eta(u, eta)) ** 0.25))


def relative_bound(x: float, u: float = U64, *, eta: float | None = None) -> float:
    """Bound for a norm or maximum of norms of computed vectors with a few roundings each:
    ``K u |x|``, plus ``sqrt(2 eta)`` for squares that underflow (three squares err by at
    most ``3 eta / 2`` absolutely, and ``sqrt(a + e) - sqrt(a) <= sqrt(e)``)."""
    return float(add_hi(K * u * abs(x), np.sqrt(2.0 * _eta(u, eta)) * (1 + 2 * U64)))


# Absolute slack for underflow: each of the ~12 roundings of a blossom value may lose up to
# 2**-1075 absolutely when its result is subnormal.
_BLOSSOM_UNDERFLOW = 16.0 * 2.0**-1074


def subsegment_error_bound(controls):
    """Per-component bound of ``|computed - exact|`` for ``kernel.cubic_blossom`` (and so for
    ``cubic_subsegment`` and ``cubic_point``) evaluated in float64 on float32 controls at exact
    float64 parameters in ``[0, 1]``. Certified (a-priori, rounded up); the projection and the
    distance map widen their boxes and brackets by it.

    Each blossom value is three levels of ``(1 - t) a + t b``: one level rounds four times
    (``1 - t``, two products, the sum), at most ``3 u M`` for inputs of magnitude ``M``, and a
    level passes earlier errors on with weight ``(1 - t) + t = 1``. Every exact intermediate
    is a convex combination of the controls, so ``M <= E_c``, the largest magnitude of the
    span's controls in component ``c``: the total is below ``9 u E_c (1 + 4u)``. The bound is
    ``K u E_c`` plus an absolute ``16 * 2**-1074`` for subnormal results.

    Args:
        controls: (..., 4, 3) float32 or float64 controls (read exactly).

    Returns:
        (..., 3) float64 bounds.
    """
    E = np.max(np.abs(np.asarray(controls, dtype=np.float64)), axis=-2)
    return add_hi(mul_hi(K * U64, E), _BLOSSOM_UNDERFLOW)
