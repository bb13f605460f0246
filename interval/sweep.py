"""The sweep oracle: exact ring vertices, the curvature-times-extent enclosure, and the ideal
swept surface. Nothing here reuses the fast path's planner or emitter.

* :func:`ring_offsets_iv` encloses a ring's section points ``scale (cos a_j N + sin a_j B)``
  (``a_j = 2 pi j / N``; a ribbon's ``-/+ (scale / 2) B``) from the claimed frame vectors, with
  mpmath interval cos/sin at ``prec`` bits: exact up to an enclosure a few ulps of ``prec`` wide.
* :func:`curvature_product_iv` encloses ``h |B' x B''| / |B'|^3`` at exact u for exact controls
  in interval arithmetic (``reference.kernel`` over ``IV``).
* :func:`may_fold` says whether that product may reach 1 anywhere on a parameter interval
  (bisection in interval arithmetic; "no" is proved): where the swept surface may fold between
  two rings, which a check at the rings alone misses.
* :func:`ideal_frames` integrates the true rotation-minimizing frame (``interval.frame.true_rmf``)
  once over the whole path and returns ``B(u)``, the true normal ``r`` and ``t x r`` at every
  requested parameter (mp at 113 bits, rounded to float64) with the loop's true residual twist;
  :func:`ideal_points` gives points of the ideal swept surface ``B(u) + scale(s) (cos(a + phi)
  r + sin(a + phi) t x r)`` from them (``phi`` the roll plus the distributed twist; the section
  combined in float64, a few ulps of the coordinates).
* :func:`point_triangle_distance` is the Euclidean distance from points to triangles (float64,
  vectorised; its rounding is a few ulps of the coordinates, far below the deviations measured;
  rows that reach farther than a given scale in exact rationals, so nothing overflows into a NaN).
"""

from __future__ import annotations

import numpy as np
from mpmath import iv, mp

from reference import kernel as K

from .context import IV, QQ, iv_from_mpq, iv_hull, lower, to_mpq, upper
from .frame import true_rmf, rotate_between, signed_angle

__all__ = [
    "curvature_product_iv",
    "ideal_frames",
    "ideal_points",
    "may_fold",
    "point_triangle_distance",
    "ring_offsets_iv",
    "section_points",
    "true_loop_twist",
]


def ring_offsets_iv(normal, binormal, scale: float, segments: int, ribbon: bool, prec: int = 113):
    """Enclosures ``[(lo, hi) per component]`` (exact mpq) of the section points' offsets and
    of their unit directions: ``(offsets, directions)``, each a list of 3-lists of (lo, hi)."""
    out_o, out_d = [], []
    old = iv.prec
    iv.prec = prec
    try:
        N = [iv.mpf(float(x)) for x in normal]
        B = [iv.mpf(float(x)) for x in binormal]
        S = iv.mpf(float(scale))
        if ribbon:
            pairs = [(iv.mpf(0), iv.mpf(-1)), (iv.mpf(0), iv.mpf(1))]
            mult = S / 2
        else:
            pairs = []
            for j in range(segments):
                a = 2 * iv.pi * j / segments
                pairs.append((iv.cos(a), iv.sin(a)))
            mult = S
        for c, s in pairs:
            d = [c * N[i] + s * B[i] for i in range(3)]
            o = [mult * d[i] for i in range(3)]
            out_d.append([(lower(x), upper(x)) for x in d])
            out_o.append([(lower(x), upper(x)) for x in o])
    finally:
        iv.prec = old
    return out_o, out_d


def _curvature_product(ctx, P, uu, h):
    """``(|B'|, h |B' x B''| / |B'|^3)`` in ``ctx`` at ``uu`` (a point or an interval of u),
    inside ``ctx.scope()``."""
    d = K.cubic_derivative(ctx, P, uu)
    dd = K.cubic_second_derivative(ctx, P, uu)
    sp = K.norm(ctx, d)
    return sp, K.norm(ctx, K.cross(ctx, d, dd)) / (sp * sp * sp) * h


def curvature_product_iv(controls, u: float, half_extent: float, prec: int = 113):
    """``(lo, hi)`` exact mpq enclosure of ``half_extent |B' x B''| / |B'|^3`` at exact u."""
    ctx = IV(prec)
    P = ctx.asarray(np.asarray(controls, dtype=np.float64))
    uu = ctx.asarray(np.float64(u))
    with ctx.scope():
        _, val = _curvature_product(ctx, P, uu, ctx.asarray(np.float64(half_extent)))
    return lower(val), upper(val)


def may_fold(controls, u0: float, u1: float, half_extent: float, prec: int = 113, budget: int = 64) -> bool:
    """Whether ``half_extent |B' x B''| / |B'|^3`` may reach 1 somewhere on ``[u0, u1]`` of one
    span (the swept surface may fold there): False only when interval arithmetic shows it below
    1 on every piece of a bisection of at most ``budget`` pieces (a piece where ``|B'|`` may
    vanish never shows it). Certified in the direction it is used: False is proved."""
    ctx = IV(prec)
    P = ctx.asarray(np.asarray(controls, dtype=np.float64))
    h = ctx.asarray(np.float64(half_extent))
    todo = [(to_mpq(float(u0)), to_mpq(float(u1)))]
    pieces = 0
    with ctx.scope():
        while todo:
            lo, hi = todo.pop()
            pieces += 1
            sp, val = _curvature_product(ctx, P, iv_hull(iv_from_mpq(lo, prec), iv_from_mpq(hi, prec)), h)
            if lower(sp) > 0 and upper(val) < 1:
                continue
            if pieces + len(todo) + 2 > budget or hi == lo:
                return True
            m = (lo + hi) / 2
            todo += [(m, hi), (lo, m)]
    return False


def true_loop_twist(controls, seed_normal, prec: int = 113):
    """The true residual twist of a closed loop's RMF from ``seed_normal`` (mp, radians)."""
    n = np.asarray(controls).shape[0]
    with mp.workprec(prec):
        tr = true_rmf(controls, (0, 0.0), (n - 1, 1.0), seed_normal, [], prec=prec)
        return _loop_twist(tr), tr.error


def _loop_twist(tr):
    back = rotate_between(tr.end, tr.end_tangent, tr.start_tangent)
    return signed_angle(tr.start_normal, back, tr.start_tangent)


def ideal_frames(controls, seed_normal, targets, prec: int = 113):
    """The true RMF of the whole path from ``seed_normal``, integrated once: ``(frames, twist,
    oracle_error)`` with ``frames[(k, u)] = (x, r, b)`` float64 (3,) arrays rounded from
    ``prec``-bit values (``x = B(u)``, ``r`` the true RMF normal, ``b = t x r``), ``twist`` the
    loop's true residual twist (float radians; meaningful for a closed path) and the
    integration's own error (mp, the step-halving difference)."""
    C = np.asarray(controls, dtype=np.float64)
    n = C.shape[0]
    keys = list(dict.fromkeys((int(k), float(u)) for k, u in targets))
    with mp.workprec(prec):
        tr = true_rmf(C, (0, 0.0), (n - 1, 1.0), seed_normal, keys, prec=prec)
        from .frame import _Span, _mp, _point  # one exact span per index (tangents at exact u)
        spans = {}
        Cq = {}
        out = {}
        for k, u in keys:
            if k not in spans:
                spans[k] = _Span(C[k])
                Cq[k] = [[mp.mpf(float(v)) for v in row] for row in C[k]]
            r = tr.normals[(k, u)]
            t = spans[k].tangent(_mp(u))
            b = [t[1] * r[2] - t[2] * r[1], t[2] * r[0] - t[0] * r[2], t[0] * r[1] - t[1] * r[0]]
            x = _point(Cq[k], _mp(u))
            out[(k, u)] = tuple(np.array([float(v) for v in vec]) for vec in (x, r, b))
        return out, float(_loop_twist(tr)), tr.error


def section_points(x, r, b, scale: float, phi: float, cs):
    """Points ``x + scale (c rn + s bn)`` of one ideal section, ``(rn, bn)`` the frame ``(r, b)``
    rolled by ``phi``; ``cs`` a list of ``(c, s)``. Float64: a few ulps of ``|x| + scale``."""
    cp, sp = np.cos(phi), np.sin(phi)
    rn, bn = cp * r + sp * b, cp * b - sp * r
    c = np.array([p[0] for p in cs], dtype=np.float64)[:, None]
    s = np.array([p[1] for p in cs], dtype=np.float64)[:, None]
    return x + scale * (c * rn + s * bn)


def ideal_points(controls, seed_normal, samples, prec: int = 113):
    """Ideal surface points. ``samples``: list of ``(k, u, scale, phi, cos_sin)`` with
    ``cos_sin`` a list of ``(c, s)`` floats of the section angles (ribbon: ``(0, -/+ 1/2)``
    scaled the same way), ``phi`` the roll plus twist at the sample. Returns ``(points (m, q, 3)
    float64, oracle_error mp)``: the path point and true frame rounded to float64 from
    ``prec``-bit values, the section combined in float64 (:func:`section_points`)."""
    frames, _, err = ideal_frames(controls, seed_normal, [(k, u) for k, u, *_ in samples], prec)
    out = [section_points(*frames[(int(k), float(u))], float(scale), float(phi), cs)
           for k, u, scale, phi, cs in samples]
    return np.array(out), err


# Rows whose differences reach beyond these are measured exactly (:func:`_exact_distance`): the
# float64 cross products and squared lengths of differences near 2^256 overflow (their fourth
# power reaches 2^1024), and a NaN would drop out of the maxima the sweep checker takes; near
# 2^-256 they underflow, and a tiny triangle's distance would read 0.
_FLOAT_HI = 2.0**250
_FLOAT_LO = 2.0**-250


def point_triangle_distance(p, a, b, c, exact_above: float | None = None):
    """Distances from points p (m, 3) to triangles (a, b, c) (m, 3) each (Ericson's closest
    point on a triangle, vectorised; degenerate triangles fall back to their edges).

    Float64, its error a few ulps of the row's largest difference ``b - a``, ``c - a``, ``p - a``.
    A row whose largest difference is beyond ``exact_above`` (default ``2^250``, where float64
    would overflow) or below ``2^-250`` (where it would underflow) is measured in exact
    rationals instead: a caller whose allowance is a few
    ulps of a known scale (the sweep checker: of the path and section sizes) passes a small
    multiple of it, so that a far vertex (a triangle thousands of sizes long) is measured as
    truly as the rest. Finite inputs give a finite distance, or +inf for a true distance beyond
    float64's largest; never NaN."""
    p, a, b, c = (np.asarray(x, dtype=np.float64) for x in (p, a, b, c))
    limit = _FLOAT_HI if exact_above is None else min(float(exact_above), _FLOAT_HI)
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.max(np.abs(np.concatenate([b - a, c - a, p - a], axis=-1)), axis=-1) if len(p) else np.zeros(0)
    far = ~((reach <= limit) & ((reach >= _FLOAT_LO) | (reach == 0)))
    if not far.any():
        return _float_distance(p, a, b, c)
    out = np.empty(len(p))
    near = ~far
    out[near] = _float_distance(p[near], a[near], b[near], c[near])
    out[far] = [_exact_distance(*rows) for rows in zip(p[far], a[far], b[far], c[far])]
    return out


def _exact_distance(p, a, b, c) -> float:
    """The distance from point ``p`` to triangle ``(a, b, c)`` (float64 triples), the closest
    point found in exact rationals (the plane projection where it falls inside, else the
    nearest edge point; ``reference.kernel`` over ``QQ``) and its square root rounded to
    float64 (+inf beyond float64's range)."""
    import gmpy2

    P, A, B, C = (QQ.asarray(np.asarray(x, dtype=np.float64)) for x in (p, a, b, c))
    ab, ac, ap = B - A, C - A, P - A
    n = K.cross(QQ, ab, ac)
    nn = K.dot(QQ, n, n)
    if nn > 0:
        v, w = K.dot(QQ, K.cross(QQ, ap, ac), n) / nn, K.dot(QQ, K.cross(QQ, ab, ap), n) / nn
        if v >= 0 and w >= 0 and v + w <= 1:
            return float(gmpy2.sqrt(gmpy2.mpfr(K.dot(QQ, ap, n) ** 2 / nn, 80)))
    best = None
    for x, y in ((A, B), (B, C), (C, A)):
        e = y - x
        ee = K.dot(QQ, e, e)
        t = min(max(K.dot(QQ, P - x, e) / ee, gmpy2.mpq(0)), gmpy2.mpq(1)) if ee > 0 else gmpy2.mpq(0)
        r = P - (x + e * t)
        d2 = K.dot(QQ, r, r)
        best = d2 if best is None else min(best, d2)
    return float(gmpy2.sqrt(gmpy2.mpfr(best, 80)))


def _float_distance(p, a, b, c):
    """:func:`point_triangle_distance` in float64, for differences within ``[2^-250, 2^250]``."""
    ab, ac, ap = b - a, c - a, p - a
    n = np.cross(ab, ac)
    nn = np.sum(n * n, -1)
    with np.errstate(invalid="ignore", divide="ignore"):
        # Barycentrics of the plane projection.
        v = (np.sum(np.cross(ap, ac) * n, -1)) / nn
        w = (np.sum(np.cross(ab, ap) * n, -1)) / nn
    inside = (nn > 0) & (v >= 0) & (w >= 0) & (v + w <= 1)
    proj = a + v[:, None] * ab + w[:, None] * ac
    best = np.where(inside, np.linalg.norm(p - np.where(inside[:, None], proj, p), axis=-1), np.inf)

    def seg(x, y):
        e = y - x
        ee = np.sum(e * e, -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip(np.where(ee > 0, np.sum((p - x) * e, -1) / np.where(ee > 0, ee, 1), 0.0), 0, 1)
        return np.linalg.norm(p - (x + t[:, None] * e), axis=-1)

    return np.minimum(best, np.minimum(seg(a, b), np.minimum(seg(b, c), seg(c, a))))
