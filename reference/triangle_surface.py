"""Static triangle-surface queries (spec 004): ``TriangleSurface.new``, ``first_hit``, ``clip_segment``.

A :class:`TriangleSurface` owns caller-supplied world-coordinate vertices and indexed triangles,
admitted once and immutable afterwards. It is a two-sided surface: open sheets, disconnected
meshes, duplicate facets and intersecting facets are accepted; nothing about watertightness,
orientation or inside/outside is inferred. Normals come from the vertices and the winding
(``(b - a) x (c - a)``), never from a rendering mesh.

Admission (``TriangleSurface.new``), in this order: settings and stamp, array shapes, nonempty
geometry, the capacity limit, finite vertices inside ``|x| <= MAX_COORDINATE``, index validity,
then every facet's conditioning: with ``e1 = b - a`` and ``e2 = c - a`` scaled by their largest
component ``m``, the normalized cross-product magnitude ``g = |e1/m x e2/m|`` must exceed the
tolerance (``Degenerate`` when it is zero, ``IllConditioned`` when it is positive but not above
the tolerance). The arrays are copied, so the surface never shares memory with the caller: the
inputs are consumed (nothing of them is retained on rejection) and accessors are read-only.

Query (``first_hit``), per facet (one compiled classification, ``_classify``, used by the linear
scan over blocks of ``BLOCK`` facets and by the facet hierarchy on its candidates):

1. axis-bound rejection: the exact (min/max) boxes of segment and facet are disjoint;
2. plane: signed heights ``h_s = n.(s - a)``, ``h_e = n.(e - a)`` of the endpoints over the unit
   normal ``n``; the segment is *near-parallel* when ``|h_s - h_e| <= tol |d| + 4 (eta_s +
   eta_e) + 4 u |h_s - h_e|`` (``d = e - s``, ``eta`` the heights' rounding bounds). Otherwise
   ``t = h_s / (h_s - h_e)``;
3. barycentric: the contact offset ``q = (s - a) + t d`` scaled by ``1/m`` is solved in the two
   coordinates left after dropping the dominant normal axis ``k``; the determinant is the
   admitted cross product's component ``c_k``.

Bands. Every decision compares a computed dimensionless quantity with ``tol`` plus its a-priori
rounding bound ``R`` (the model below): parameter ``t`` against ``B_t = tol + R_t`` at 0 and 1;
each weight against ``B_l = tol + R_l`` at 0; the near-parallel test above; a near-parallel
segment is off the plane when both heights lie on one side beyond ``tol (m + |d|) + eta``, and
otherwise a 2D separating-axis test (the facet's three edge normals and the segment's normal in
the projection) with band ``(tol + 32 u) |axis|_1`` decides separation. A quantity strictly
outside its band beyond the boundary is a miss for that facet; a nonzero quantity within its band
(on either side) is *ambiguous*; exact computed 0 (and ``t == 1``) is accepted. A near-parallel
segment that is not separated is ambiguous (coplanar or near-parallel overlap), as is a facet
whose weight bound ``R_l`` exceeds 1/2. One ambiguous facet rejects the whole query
(``GeometryStatus.Ambiguous``, diagnostic index = the lowest ambiguous facet), since publishing
another facet's hit could skip an earlier contact. Among the remaining hits the smallest computed
``t`` wins; exact ties keep the lowest facet index.

Error model (``u = 2**-53``; every bound is rounded up by ``1 + 1/16`` and an absolute ``TINY``
for gradual underflow). With ``G`` the exact normalized cross magnitude and ``g`` the computed one,
``|g - G| <= 30 u``, the unit normal's error is ``|n - N| <= theta = 64 u / (g - 30 u)``, a height's
error ``eta = (1.001 theta + 6 u) W`` (``W >= |s - a|_2``), the parameter's
``R_t = (eta_s + T_up (eta_s + eta_e + u |h_s - h_e|)) / |h_s - h_e| + 1.01 u |t|`` with
``T_up >= |T|``, the contact offset's ``rho = R_t |d|_inf + 1.02 u (|s - a|_inf + 2 |t| |d|_inf +
|q|_inf)`` and a weight's ``R_l = (a + b |l|) / (1 - b)`` with ``a = (8.2 u |q/m|_inf + 2.1 rho/m
+ u |num|) / |c_k| + 1.01 u |l|``, ``b = 12.2 u / |c_k|``; the first weight's bound is the sum of
the others' plus ``1.01 u (1 + |l_1| + |l_0|)``. ``docs/decisions.md`` derives them; the oracle
(``oracles/families/triangle/analysis.py``) evaluates the same model from exact quantities.

Every query result carries the caller's stamp (spec 004: "Queries carry the same caller-supplied
identity/version"): a hit in ``SurfaceHit.stamp``, a clipped segment in ``ClippedSegment.stamp``,
and every outcome of ``first_hit`` and ``clip_segment`` (hit, miss, failure) in
``SurfaceQueryOutcome.stamp``; a miss stays Success with None.

Cancellation is polled before every block (``block=1`` polls per facet as the spec says, at the
speed of a Python loop); a cancelled query returns ``Cancelled`` and no partial result.
"""

from __future__ import annotations

import enum
import math
import threading
from collections import namedtuple
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import numpy as np

from . import kernel
from .context import F64
from .jitcache import jit
from .owner import readonly
from .status import GeometryStatus, Outcome, failure, is_int, success

__all__ = [
    "BLOCK",
    "BVH_LEAF",
    "BVH_MIN_TRIANGLES",
    "CAPACITY_CEILING",
    "DEFAULT_MAX_TRIANGLES",
    "DEFAULT_MAX_VERTICES",
    "DEFAULT_TOLERANCE",
    "G_SLACK",
    "MAX_COORDINATE",
    "MAX_TOLERANCE",
    "MIN_TOLERANCE",
    "NORMAL_K",
    "TINY",
    "ClippedSegment",
    "Facing",
    "SurfaceHit",
    "SurfaceQueryOutcome",
    "SurfaceSettings",
    "SurfaceStamp",
    "TriangleSurface",
    "U",
    "validate_settings",
]

U = 2.0**-53  # binary64 unit roundoff
TINY = 2.0**-1060  # absolute slack of underflowed products (2**15 subnormal roundings)

DEFAULT_TOLERANCE = 1e-12
MIN_TOLERANCE = 32 * 2.0**-52  # 32 binary64 epsilons
MAX_TOLERANCE = 1e-3
# Coordinates beyond 2**1000 would let differences and height sums overflow binary64.
MAX_COORDINATE = 2.0**1000
DEFAULT_MAX_VERTICES = 1 << 20
DEFAULT_MAX_TRIANGLES = 1 << 20
CAPACITY_CEILING = 1 << 24
BLOCK = 4096
BVH_MIN_TRIANGLES = 1024  # below this one pass of the compiled scan is as fast
BVH_LEAF = 8  # facets per spatial leaf

# Error-model constants (docs/decisions.md, "Triangle-surface error model").
NORMAL_K = 64.0  # |n - N|_2 <= NORMAL_K u / G
G_SLACK = 30.0  # |g - G| <= G_SLACK u
_SAFETY = 1.0625  # every computed bound is rounded up by this factor
_SQRT3_UP = 1.75  # >= sqrt(3) (1 + 4u): |x|_2 <= 1.75 |x|_inf with room for rounding

_U64_MAX = 2**64 - 1


class Facing(enum.Enum):
    """Which side of the facet the segment meets: ``Front`` when it travels against the
    winding-derived normal (``n . d < 0``), ``Back`` when along it. Not an enter/exit claim."""

    Front = "Front"
    Back = "Back"


@dataclass(frozen=True, slots=True)
class SurfaceStamp:
    """The caller's identity and version of a surface, echoed by every query.

    Attributes:
        identity: caller-chosen identity, an int in [0, 2**64).
        version: caller-chosen version, an int in [0, 2**64); a changed geometry needs a new
            surface and a new version (the caller owns uniqueness).
    """

    identity: int
    version: int


@dataclass(frozen=True, slots=True)
class SurfaceSettings:
    """Admission and query settings.

    Attributes:
        tolerance: dimensionless relative tolerance, default 1e-12, accepted range
            [32 binary64 epsilons, 1e-3] (``MIN_TOLERANCE``, ``MAX_TOLERANCE``).
        max_vertices: capacity limit on vertices, an int in [1, CAPACITY_CEILING].
        max_triangles: capacity limit on triangles, an int in [1, CAPACITY_CEILING].
    """

    tolerance: float = DEFAULT_TOLERANCE
    max_vertices: int = DEFAULT_MAX_VERTICES
    max_triangles: int = DEFAULT_MAX_TRIANGLES


def validate_settings(settings: SurfaceSettings) -> Outcome:
    """InvalidArgument (naming the field) unless every setting is inside its range.

    Returns:
        ``success(settings)`` or an InvalidArgument failure. Exact comparisons (no rounding).
    """
    if not isinstance(settings, SurfaceSettings):
        raise TypeError(f"expected SurfaceSettings, got {type(settings).__name__}")
    tol = settings.tolerance
    ok = isinstance(tol, (float, int, np.floating, np.integer)) and not isinstance(tol, (bool, np.bool_))
    # float(np.float32) is exact, so the range test compares exact values.
    if not ok or not math.isfinite(float(tol)) or not MIN_TOLERANCE <= float(tol) <= MAX_TOLERANCE:
        return failure(GeometryStatus.InvalidArgument,
                       f"SurfaceSettings.tolerance = {tol!r} is outside [{MIN_TOLERANCE!r}, {MAX_TOLERANCE!r}]",
                       field="tolerance")
    for name in ("max_vertices", "max_triangles"):
        v = getattr(settings, name)
        if not is_int(v) or not 1 <= int(v) <= CAPACITY_CEILING:
            return failure(GeometryStatus.InvalidArgument,
                           f"SurfaceSettings.{name} = {v!r} is outside [1, {CAPACITY_CEILING}]", field=name)
    return success(settings)


@dataclass(frozen=True)
class SurfaceHit:
    """The first contact of a segment with a surface.

    Attributes:
        t: segment parameter in [0, 1] (float). Rounded (error model ``R_t``).
        triangle: facet index (int); exact ties keep the lowest.
        position: (3,) float64, ``s + t (e - s)``, bitwise ``s`` at t = 0 and ``e`` at t = 1.
            Rounded (``R_t |d|_inf + 3 u (|s|_inf + 2 |d|_inf)``).
        barycentric: (3,) float64 nonnegative weights of the facet's vertices (a, b, c).
            Rounded (``R_l``).
        normal: (3,) float64 unit normal from the winding. Rounded (``theta``).
        facing: Front or Back; the exact sign of ``n . d`` (Rounded class, exact sign).
        stamp: the surface's stamp.
    """

    t: float
    triangle: int
    position: np.ndarray
    barycentric: np.ndarray
    normal: np.ndarray
    facing: Facing
    stamp: SurfaceStamp


@dataclass(frozen=True)
class ClippedSegment:
    """A proposed trace ended at its first contact.

    Attributes:
        start: (3,) float64, the segment's start (bitwise).
        end: (3,) float64, the contact position, or the segment's end (bitwise) on a miss.
        hit: the contact, or None.
        stamp: the surface's stamp, on a hit and on a miss alike (spec 004: queries carry the
            caller-supplied identity/version).
    """

    start: np.ndarray
    end: np.ndarray
    hit: SurfaceHit | None
    stamp: SurfaceStamp


@dataclass(frozen=True, slots=True)
class SurfaceQueryOutcome(Outcome):
    """The :class:`~reference.status.Outcome` of a surface query, stamped.

    Spec 004: "Queries carry the same caller-supplied identity/version". A hit carries it in
    :attr:`SurfaceHit.stamp`, a clipped segment in :attr:`ClippedSegment.stamp`; a miss is
    Success with ``value`` None (unchanged), so the stamp rides on the outcome itself, as it does
    on every failure (Ambiguous, Cancelled, InvalidArgument, OutOfRange) of the query.

    Attributes:
        stamp: the queried surface's :class:`SurfaceStamp` (the caller's, bitwise).
    """

    stamp: SurfaceStamp | None = None


CancelToken = Callable[[], Any] | threading.Event | None


def _poller(cancel: CancelToken) -> Callable[[], bool] | None:
    if cancel is None:
        return None
    if hasattr(cancel, "is_set"):
        return lambda: bool(cancel.is_set())
    if callable(cancel):
        return lambda: bool(cancel())
    raise TypeError("cancel must be None, a callable returning a bool, or an object with is_set()")


def _real_array(x, name: str, width: int) -> tuple[np.ndarray | None, Outcome | None]:
    """``x`` as a float64 (N, width) copy, or an InvalidArgument failure."""
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as err:
        return None, failure(GeometryStatus.InvalidArgument, f"{name}: not an array ({err})", field=name)
    if a.dtype.kind not in "fiu" or a.ndim != 2 or a.shape[1] != width:
        return None, failure(GeometryStatus.InvalidArgument,
                             f"{name} must be a real (N, {width}) array, got dtype {a.dtype} shape {a.shape}",
                             field=name)
    if a.dtype.kind in "iu" and a.size and int(np.max(np.abs(a.astype(object)))) > 2**53:
        return None, failure(GeometryStatus.InvalidArgument,
                             f"{name}: integer coordinates beyond 2**53 are not exact in binary64", field=name)
    return np.array(a, dtype=np.float64, copy=True), None


def _point(x, name: str) -> tuple[np.ndarray | None, Outcome | None]:
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as err:
        return None, failure(GeometryStatus.InvalidArgument, f"{name}: not a point ({err})", field=name)
    if a.dtype.kind not in "fiu" or a.shape != (3,):
        return None, failure(GeometryStatus.InvalidArgument, f"{name} must be a real 3-vector", field=name)
    p = np.array(a, dtype=np.float64, copy=True)
    if not np.all(np.isfinite(p)):
        return None, failure(GeometryStatus.InvalidArgument, f"{name} is not finite", field=name)
    if np.max(np.abs(p)) > MAX_COORDINATE:
        return None, failure(GeometryStatus.OutOfRange, f"{name} exceeds |x| <= 2**1000", field=name)
    return p, None


def _norm2(v: np.ndarray) -> np.ndarray:
    """Euclidean norm over the last axis without overflow or underflow: ``|v|_inf |v/|v|_inf|``."""
    vinf = np.max(np.abs(v), axis=-1)
    safe = np.where(vinf > 0, vinf, 1.0)
    return vinf * kernel.norm(F64, v / safe[..., None])


# Indices of the two axes kept after dropping the dominant axis k, cyclic so that the 2D
# determinant e1_i e2_j - e1_j e2_i is the cross product's k component.
_KEEP = np.array([[1, 2], [2, 0], [0, 1]])


# --- the per-facet classification (one compiled implementation) ---------------------------
#
# The scan's classification of one facet, compiled (numba, no fastmath: IEEE binary64 in the
# written order, no contraction into fused multiply-adds), so the linear scan and the facet
# hierarchy run the same code on the same stored bits. Every expression keeps the operation
# order of the band formulas in the module docstring and in docs/decisions.md. numba is a core
# dependency (a per-facet loop that numpy cannot express without passes); the kernels are
# compiled on first use and cached on disk (reference/jitcache.py).

_jit = jit(error_model="numpy")


# Columns of a facet record (one float64 row of 24 = three cache lines per facet, in the order
# the classification reads them): the exact box lo, hi, the unit normal n, vertex a, the scale
# m, the normal's bound theta, the 2D determinant c_k, the dropped axis k, the scaled kept
# edges e1k, e2k and the facet's index. The edges e1, e2 (read only by the near-parallel test)
# are a separate (T, 6) array with the same rows.
_RLO, _RHI, _RN, _RA, _RM, _RTH, _RCK, _RK, _RE1K, _RE2K, _RIX = 0, 3, 6, 9, 12, 13, 14, 15, 16, 18, 20
_RECW = 24

# Classification codes: a miss, the ambiguity bands (diagnostic field), a hit.
_MISS, _PARALLEL, _FAR, _PARAMETER, _BARYCENTRIC, _HIT = 0, 1, 2, 3, 4, 5
_WHY = ("", "parallel", "far", "parameter", "barycentric")

_Query = namedtuple("_Query", "s e d lo hi dinf dn")
_Query.__doc__ = "A validated segment and the per-query scalars every facet shares."


def _query(s: np.ndarray, e: np.ndarray) -> _Query:
    d = e - s
    d0, d1, d2 = (abs(float(x)) for x in d)
    dinf = max(d0, d1, d2)
    # _norm2(d) in Python floats (the same IEEE operations in the same order, so the same bits:
    # tests/reference/test_triangle_surface.py), without numpy's per-call overhead.
    sc = dinf if dinf > 0 else 1.0
    w0, w1, w2 = d0 / sc, d1 / sc, d2 / sc
    dn = dinf * math.sqrt((w0 * w0 + w1 * w1) + w2 * w2)
    return _Query(s, e, d, np.minimum(s, e), np.maximum(s, e), dinf, dn)


@_jit
def _near(x, band):
    """Nonzero and within its band: the ambiguous zone of a boundary value."""
    return (x != 0) & (np.abs(x) <= band)


@_jit
def _separated(rec, edg, r, ws0, ws1, ws2, we0, we1, we2, tol):
    """2D separating-axis test of segment and facet projected along the dominant normal
    axis, in coordinates relative to ``a`` scaled by an exact power of two. True where an
    axis separates them by more than its band (then no contact exists)."""
    k = int(rec[r, _RK])
    i, j = (k + 1) % 3, (k + 2) % 3  # _KEEP[k]
    e10, e11, e12 = edg[r, 0], edg[r, 1], edg[r, 2]
    e20, e21, e22 = edg[r, 3], edg[r, 4], edg[r, 5]
    big = max(max(np.abs(ws0), np.abs(ws1), np.abs(ws2)), max(np.abs(we0), np.abs(we1), np.abs(we2)),
              max(np.abs(e10), np.abs(e11), np.abs(e12)), max(np.abs(e20), np.abs(e21), np.abs(e22)))
    ex = -math.frexp(big)[1]  # exact scaling by 2**ex
    e1, e2, ws, we = (e10, e11, e12), (e20, e21, e22), (ws0, ws1, ws2), (we0, we1, we2)
    v1 = (math.ldexp(e1[i], ex), math.ldexp(e1[j], ex))
    v2 = (math.ldexp(e2[i], ex), math.ldexp(e2[j], ex))
    ps = (math.ldexp(ws[i], ex), math.ldexp(ws[j], ex))
    pe = (math.ldexp(we[i], ex), math.ldexp(we[j], ex))
    v0 = (0.0, 0.0)
    sep = False
    for f in ((v1[0] - v0[0], v1[1] - v0[1]), (v2[0] - v1[0], v2[1] - v1[1]),
              (v0[0] - v2[0], v0[1] - v2[1]), (pe[0] - ps[0], pe[1] - ps[1])):
        ax = (-f[1], f[0])
        p0 = ax[0] * v0[0] + ax[1] * v0[1]
        p1 = ax[0] * v1[0] + ax[1] * v1[1]
        p2 = ax[0] * v2[0] + ax[1] * v2[1]
        p3 = ax[0] * ps[0] + ax[1] * ps[1]
        p4 = ax[0] * pe[0] + ax[1] * pe[1]
        tlo, thi = min(p0, p1, p2), max(p0, p1, p2)
        slo, shi = min(p3, p4), max(p3, p4)
        band = (tol + 32 * U) * (np.abs(ax[0]) + np.abs(ax[1])) + TINY
        sep |= (shi < tlo - band) | (slo > thi + band)
    return sep


@_jit
def _box_meets(rec, r, q):
    """The scan's first test (exact comparisons): the facet's box meets the segment's box."""
    return (rec[r, _RHI] >= q.lo[0]) & (rec[r, _RHI + 1] >= q.lo[1]) & (rec[r, _RHI + 2] >= q.lo[2]) & \
        (rec[r, _RLO] <= q.hi[0]) & (rec[r, _RLO + 1] <= q.hi[1]) & (rec[r, _RLO + 2] <= q.hi[2])


@_jit
def _classify(rec, edg, r, q, tol):
    """The scan's verdict on the facet in record row ``r``: ``(code, t, l0, l1, l2, h_s - h_e)``
    with code _MISS, _HIT or the ambiguity band. Elementwise binary64 arithmetic on this facet
    alone, so the verdict does not depend on which other facets are classified with it."""
    nan = np.nan
    # 1. axis-bound rejection: the exact boxes of segment and facet are disjoint.
    if not _box_meets(rec, r, q):
        return _MISS, nan, nan, nan, nan, nan
    # 2. the plane: heights of the endpoints over the unit normal and their rounding bounds.
    ws0, ws1, ws2 = q.s[0] - rec[r, _RA], q.s[1] - rec[r, _RA + 1], q.s[2] - rec[r, _RA + 2]
    we0, we1, we2 = q.e[0] - rec[r, _RA], q.e[1] - rec[r, _RA + 1], q.e[2] - rec[r, _RA + 2]
    n0, n1_, n2_ = rec[r, _RN], rec[r, _RN + 1], rec[r, _RN + 2]
    wsi = max(np.abs(ws0), np.abs(ws1), np.abs(ws2))
    wei = max(np.abs(we0), np.abs(we1), np.abs(we2))
    hs = (n0 * ws0 + n1_ * ws1) + n2_ * ws2  # kernel.dot's order
    he = (n0 * we0 + n1_ * we1) + n2_ * we2
    th = 1.001 * rec[r, _RTH] + 6 * U
    eta_s = (th * (_SQRT3_UP * wsi) + TINY) * _SAFETY
    eta_e = (th * (_SQRT3_UP * wei) + TINY) * _SAFETY
    eta = eta_s + eta_e
    dc = hs - he
    adc = np.abs(dc)
    par = adc <= tol * q.dn + 4 * eta + 4 * U * adc
    m = rec[r, _RM]

    # Near-parallel facets: off the plane, separated in projection, or ambiguous.
    if par:
        hb = tol * (m + q.dn)
        off = ((hs > hb + eta_s) & (he > hb + eta_e)) | \
              ((hs < -(hb + eta_s)) & (he < -(hb + eta_e)))
        if off:
            return _MISS, nan, nan, nan, nan, nan
        sep = _separated(rec, edg, r, ws0, ws1, ws2, we0, we1, we2, tol)
        if sep:
            return _MISS, nan, nan, nan, nan, nan
        return _PARALLEL, nan, nan, nan, nan, nan  # coplanar or near-parallel overlap

    # The segment crosses the plane at a well-defined parameter.
    tc = hs / dc
    ad = adc
    t_up = (np.abs(hs) + eta_s) / (ad - eta - U * ad)
    rt = ((eta_s + t_up * (eta + U * ad)) / ad + 1.01 * U * np.abs(tc) + TINY) * _SAFETY
    bt = tol + rt
    t_out = (tc < -bt) | (tc > 1 + bt)
    if t_out:
        return _MISS, nan, nan, nan, nan, nan
    t_amb = _near(tc, bt) | _near(tc - 1, bt)
    qv0, qv1, qv2 = ws0 + tc * q.d[0], ws1 + tc * q.d[1], ws2 + tc * q.d[2]
    qinf = max(np.abs(qv0), np.abs(qv1), np.abs(qv2))
    rho = (rt * q.dinf * (1 + 4 * U)
           + 1.02 * U * (wsi + 2 * np.abs(tc) * q.dinf + qinf) + TINY) * _SAFETY
    mc = m
    far = qinf > 4 * mc
    # A far contact offset is a miss when even its error cannot bring it near the facet.
    far_amb = far & ~(qinf - rho > 2 * mc)
    if far_amb:
        return _FAR, nan, nan, nan, nan, nan
    if far:
        return _MISS, nan, nan, nan, nan, nan

    # 3. barycentric weights in the two axes kept after dropping the dominant axis k.
    k = int(rec[r, _RK])
    z = (qv0 / mc, qv1 / mc, qv2 / mc)
    zk0, zk1 = z[(k + 1) % 3], z[(k + 2) % 3]  # _KEEP[k]
    e1k0, e1k1 = rec[r, _RE1K], rec[r, _RE1K + 1]
    e2k0, e2k1 = rec[r, _RE2K], rec[r, _RE2K + 1]
    ck = rec[r, _RCK]
    n1 = zk0 * e2k1 - zk1 * e2k0
    n2 = e1k0 * zk1 - e1k1 * zk0
    l1, l2 = n1 / ck, n2 / ck
    l0 = (1 - l1) - l2
    ack = np.abs(ck)
    zinf = max(np.abs(z[0]), np.abs(z[1]), np.abs(z[2]))
    bb = 12.2 * U / ack
    base = (8.2 * U * zinf + 2.1 * rho / mc) / ack
    r1 = ((base + U * np.abs(n1) / ack + 1.01 * U * np.abs(l1) + bb * np.abs(l1)) / (1 - bb) + TINY) * _SAFETY
    r2 = ((base + U * np.abs(n2) / ack + 1.01 * U * np.abs(l2) + bb * np.abs(l2)) / (1 - bb) + TINY) * _SAFETY
    r0 = (r1 + r2 + 1.01 * U * (1 + np.abs(l1) + np.abs(l0)) + TINY) * _SAFETY
    b1, b2, b0 = tol + r1, tol + r2, tol + r0
    l_out = (l1 < -b1) | (l2 < -b2) | (l0 < -b0)
    if l_out:
        return _MISS, nan, nan, nan, nan, nan
    l_amb = (np.maximum(r1, r2) > 0.5) | _near(l1, b1) | _near(l2, b2) | _near(l0, b0)
    am = l_amb | t_amb
    if am:
        return (_PARAMETER if t_amb else _BARYCENTRIC), nan, nan, nan, nan, nan
    return _HIT, tc, l0, l1, l2, dc


@_jit
def _scan_range(rec, edg, lo, hi, q, tol):
    """Classify facets [lo, hi) in index order: ``(amb, code, best, t, l0, l1, l2, dc)``, with
    ``amb`` the lowest ambiguous facet (or -1) and ``best`` the hit of smallest t, the first
    (lowest index) of equal values (or -1)."""
    best, bt, b0, b1, b2, bdc = -1, np.inf, 0.0, 0.0, 0.0, 0.0
    for f in range(lo, hi):
        # _classify's own first test, asked here first: most facets of a scan miss the segment's
        # box, and a call of _classify (too large to be inlined: seven arrays' reference counts
        # and the query's fields passed per call) costs several times the test itself.
        if not _box_meets(rec, f, q):
            continue
        code, t, l0, l1, l2, dc = _classify(rec, edg, f, q, tol)
        if code == _HIT:
            if best < 0 or t < bt:
                best, bt, b0, b1, b2, bdc = f, t, l0, l1, l2, dc
        elif code != _MISS:
            return f, code, -1, np.nan, 0.0, 0.0, 0.0, 0.0
    return -1, 0, best, bt, b0, b1, b2, bdc


@_jit
def _scan_rows(rec, edg, rows, q, tol):
    """Classify the facets in record rows ``rows`` (any order): the same verdicts, reduced to
    the lowest ambiguous facet index and the hit of smallest t with the lowest index on exact
    ties, so the result does not depend on the order of ``rows``."""
    amb, acode = -1, 0
    best, bt, b0, b1, b2, bdc = -1, np.inf, 0.0, 0.0, 0.0, 0.0
    for jj in range(rows.size):
        r = rows[jj]
        f = int(rec[r, _RIX])
        if amb >= 0 and f > amb:
            continue  # cannot change the lowest ambiguous index
        code, t, l0, l1, l2, dc = _classify(rec, edg, r, q, tol)
        if code == _HIT:
            if best < 0 or t < bt or (t == bt and f < best):
                best, bt, b0, b1, b2, bdc = f, t, l0, l1, l2, dc
        elif code != _MISS:
            amb, acode = f, code
    return amb, acode, best, bt, b0, b1, b2, bdc



class TriangleSurface:
    """An admitted, immutable two-sided triangle surface (spec 004 ``TriangleSurface``).

    Build it with :meth:`new`. Accessors return read-only arrays.
    """

    __slots__ = (
        "_bvh",
        "_edges",
        "_frozen",
        "_hi",
        "_lo",
        "_normal",
        "_rec",
        "_settings",
        "_stamp",
        "_triangles",
        "_vertices",
    )

    def __init__(self, *_args, **_kwargs):
        raise TypeError("use TriangleSurface.new(vertices, triangles, stamp, settings)")

    def __setattr__(self, name, value):
        if getattr(self, "_frozen", False):
            raise AttributeError("TriangleSurface is immutable")
        object.__setattr__(self, name, value)

    # --- admission ---------------------------------------------------------------------

    @staticmethod
    def new(vertices, triangles, stamp: SurfaceStamp, settings: SurfaceSettings = SurfaceSettings()) -> Outcome:
        """``TriangleSurface::new``: admit a surface or report the first failure.

        Args:
            vertices: (V, 3) real array of world coordinates (converted to float64 exactly).
            triangles: (T, 3) integer array of vertex indices; winding (a, b, c) defines the
                normal ``(b - a) x (c - a)``.
            stamp: the caller's :class:`SurfaceStamp`.
            settings: :class:`SurfaceSettings` (tolerance and capacity limits).

        Returns:
            ``Outcome`` with the surface on success. Failures, first one wins:
            InvalidArgument (bad settings or stamp, wrong shapes or dtypes, no vertices or no
            triangles, nonfinite vertices, an index outside [0, V)), CapacityExceeded (more
            vertices or triangles than the settings allow), OutOfRange (a coordinate beyond
            ``MAX_COORDINATE``), Degenerate (a facet with zero normalized cross product),
            IllConditioned (a facet with ``0 < g <= tolerance``); the diagnostic names the
            triangle. The inputs are copied, never retained on failure. Guarantee: admission
            decisions are Exact functions of the float64 inputs and the computed ``g``.
        """
        ok = validate_settings(settings)
        if not ok.ok:
            return ok
        if not isinstance(stamp, SurfaceStamp):
            raise TypeError(f"expected SurfaceStamp, got {type(stamp).__name__}")
        for name in ("identity", "version"):
            v = getattr(stamp, name)
            if not is_int(v) or not 0 <= int(v) <= _U64_MAX:
                return failure(GeometryStatus.InvalidArgument, f"SurfaceStamp.{name} = {v!r} is not in [0, 2**64)",
                               field=name)
        tri_in = np.asarray(triangles)
        if tri_in.size == 0:
            return failure(GeometryStatus.InvalidArgument, "no triangles: the geometry is empty", field="triangles")
        if tri_in.dtype.kind not in "iu" or tri_in.ndim != 2 or tri_in.shape[1] != 3:
            return failure(GeometryStatus.InvalidArgument,
                           f"triangles must be an integer (T, 3) array, got dtype {tri_in.dtype} shape {tri_in.shape}",
                           field="triangles")
        verts, bad = _real_array(vertices, "vertices", 3)
        if bad is not None:
            return bad
        if verts.shape[0] == 0:
            return failure(GeometryStatus.InvalidArgument, "no vertices: the geometry is empty", field="vertices")
        if verts.shape[0] > settings.max_vertices:
            return failure(GeometryStatus.CapacityExceeded,
                           f"{verts.shape[0]} vertices exceed max_vertices = {settings.max_vertices}",
                           field="vertices", value=float(verts.shape[0]))
        if tri_in.shape[0] > settings.max_triangles:
            return failure(GeometryStatus.CapacityExceeded,
                           f"{tri_in.shape[0]} triangles exceed max_triangles = {settings.max_triangles}",
                           field="triangles", value=float(tri_in.shape[0]))
        finite = np.all(np.isfinite(verts), axis=1)
        if not np.all(finite):
            i = int(np.argmin(finite))
            return failure(GeometryStatus.InvalidArgument, f"vertex {i} is not finite", field="vertices", index=i)
        big = np.max(np.abs(verts), axis=1) > MAX_COORDINATE
        if np.any(big):
            i = int(np.argmax(big))
            return failure(GeometryStatus.OutOfRange, f"vertex {i} exceeds |x| <= 2**1000", field="vertices", index=i)
        nv = verts.shape[0]
        bad_idx = np.any((tri_in < 0) | (tri_in >= nv), axis=1)
        if np.any(bad_idx):
            i = int(np.argmax(bad_idx))
            return failure(GeometryStatus.InvalidArgument,
                           f"triangle {i} has an index outside [0, {nv}): {tri_in[i].tolist()}",
                           field="triangles", index=i)
        tris = np.array(tri_in, dtype=np.int64, copy=True)
        return TriangleSurface._admit(verts, tris, stamp, settings)

    @staticmethod
    def _admit(verts: np.ndarray, tris: np.ndarray, stamp, settings) -> Outcome:
        tol = float(settings.tolerance)
        a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
        e1, e2 = b - a, c - a
        m = np.maximum(np.max(np.abs(e1), axis=1), np.max(np.abs(e2), axis=1))
        zero = m == 0
        msafe = np.where(zero, 1.0, m)[:, None]
        s1, s2 = e1 / msafe, e2 / msafe
        cr = kernel.cross(F64, s1, s2)
        g = np.where(zero, 0.0, kernel.norm(F64, cr))
        weak = g <= tol
        if np.any(weak):
            i = int(np.argmax(weak))
            if g[i] == 0:
                return failure(GeometryStatus.Degenerate,
                               f"triangle {i} has zero area (normalized cross product 0)",
                               field="triangles", index=i, value=0.0)
            return failure(GeometryStatus.IllConditioned,
                           f"triangle {i}: normalized cross product {g[i]!r} <= tolerance {tol!r}",
                           field="triangles", index=i, value=float(g[i]))
        normal = cr / g[:, None]
        k = np.argmax(np.abs(normal), axis=1)
        keep = _KEEP[k]
        rows = np.arange(tris.shape[0])[:, None]
        self = object.__new__(TriangleSurface)
        self._vertices = readonly(verts, copy=False)
        self._triangles = readonly(tris, copy=False)
        self._stamp = stamp
        self._settings = settings
        self._normal = readonly(normal, copy=False)
        # theta bounds |n - N|_2 (N the exact unit normal); g - G_SLACK u > 0 since g > 64 u.
        theta = NORMAL_K * U / (g - G_SLACK * U) * _SAFETY
        ck = cr[np.arange(tris.shape[0]), k]
        e1k, e2k = s1[rows, keep], s2[rows, keep]  # (T, 2) scaled edges, axes (i, j)
        # One float64 record per facet (columns _RLO.._RIX) and the edges: the classification's
        # only inputs. _lo, _hi are views of the exact boxes.
        nt = tris.shape[0]
        rec = np.zeros((nt, _RECW))
        rec[:, _RLO:_RLO + 3] = np.minimum(np.minimum(a, b), c)
        rec[:, _RHI:_RHI + 3] = np.maximum(np.maximum(a, b), c)
        rec[:, _RN:_RN + 3], rec[:, _RA:_RA + 3] = normal, a
        rec[:, _RM], rec[:, _RTH], rec[:, _RCK], rec[:, _RK] = m, theta, ck, k
        rec[:, _RE1K:_RE1K + 2], rec[:, _RE2K:_RE2K + 2] = e1k, e2k
        rec[:, _RIX] = np.arange(nt)
        self._rec, self._edges = rec, np.column_stack([e1, e2])
        self._lo, self._hi = rec[:, _RLO:_RLO + 3], rec[:, _RHI:_RHI + 3]
        self._bvh = None  # built on the first query that uses it (_FacetBVH.build)
        self._frozen = True
        return success(self)

    # --- accessors ---------------------------------------------------------------------

    @property
    def vertices(self) -> np.ndarray:
        """(V, 3) float64, read-only: the admitted vertices (bitwise the inputs)."""
        return self._vertices

    @property
    def triangles(self) -> np.ndarray:
        """(T, 3) int64, read-only: the admitted indices."""
        return self._triangles

    @property
    def normals(self) -> np.ndarray:
        """(T, 3) float64, read-only: winding-derived unit normals. Rounded (``theta``)."""
        return self._normal

    @property
    def stamp(self) -> SurfaceStamp:
        return self._stamp

    @property
    def settings(self) -> SurfaceSettings:
        return self._settings

    @property
    def vertex_count(self) -> int:
        return int(self._vertices.shape[0])

    @property
    def triangle_count(self) -> int:
        return int(self._triangles.shape[0])

    # --- queries -----------------------------------------------------------------------

    def _stamped(self, out: Outcome) -> SurfaceQueryOutcome:
        return SurfaceQueryOutcome(out.status, out.value, out.diagnostic, self._stamp)

    def first_hit(self, start, end, cancel: CancelToken = None, *, block: int = BLOCK,
                  bvh: bool | None = None) -> SurfaceQueryOutcome:
        """``first_hit``: the earliest contact of the segment ``start -> end``.

        Args:
            start: (3,) real, the segment start (world coordinates).
            end: (3,) real, the segment end; must differ from ``start``.
            cancel: None, a callable returning true to cancel, or a ``threading.Event``;
                polled before every block of ``block`` facets.
            block: facets per vectorised block (an int >= 1); 1 polls per facet.
            bvh: None (default: the hierarchy for surfaces of at least ``BVH_MIN_TRIANGLES``
                facets, the linear scan below), True or False. The hierarchy only selects which
                facets the scan's classification sees; it culls only facets that the scan
                provably misses (docs/decisions.md, "Triangle first hit at scale: the
                conservative hierarchy") and reduces the verdicts to the scan's answer (lowest
                ambiguous index; else smallest t, lowest index on exact ties), so every outcome
                is bit-identical to the linear scan's. Built once per surface on first use;
                cancellation is polled before every block of ``block`` candidates.

        Returns:
            :class:`SurfaceQueryOutcome` (an ``Outcome`` whose ``stamp`` is the surface's, whatever
            the status): success with a :class:`SurfaceHit` (t, triangle: Rounded; position,
            barycentric, normal: Rounded with the module's error model; facing: exact sign;
            stamp: Exact, the caller's), or success with None on a miss; Ambiguous (diagnostic
            index = lowest ambiguous facet, field = the band that was hit) when any facet is
            inside an uncertainty band;
            Cancelled with no value; InvalidArgument for a nonfinite or zero-length segment or a
            bad block; OutOfRange for a coordinate beyond ``MAX_COORDINATE``.
        """
        return self._stamped(self._first_hit(start, end, cancel, block, bvh))

    def _first_hit(self, start, end, cancel: CancelToken, block, bvh=None) -> Outcome:
        if not is_int(block) or int(block) < 1:
            return failure(GeometryStatus.InvalidArgument, f"block = {block!r} must be an int >= 1", field="block")
        if bvh is not None and not isinstance(bvh, bool):
            return failure(GeometryStatus.InvalidArgument, f"bvh = {bvh!r} must be None, True or False", field="bvh")
        poll = _poller(cancel)
        s, bad = _point(start, "start")
        if bad is not None:
            return bad
        e, bad = _point(end, "end")
        if bad is not None:
            return bad
        if np.array_equal(s, e):
            return failure(GeometryStatus.InvalidArgument, "zero-length segment (start == end)", field="end")
        q = _query(s, e)
        tol = float(self._settings.tolerance)
        n = self.triangle_count
        if bvh is None:
            bvh = n >= BVH_MIN_TRIANGLES
        step = int(block)
        if not bvh:
            # The definition: every facet in index order, block by block; the first block with
            # an ambiguous facet answers (its lowest), so the lowest ambiguous facet wins.
            best = None  # (t, triangle, weights, h_s - h_e)
            for lo in range(0, n, step):
                if poll is not None and poll():
                    return failure(GeometryStatus.Cancelled, "query cancelled; no partial result")
                res = self._scan(q, lo, min(n, lo + step), tol)
                if isinstance(res, Outcome):
                    return res
                if res is not None and (best is None or res[0] < best[0]):
                    best = res
        else:
            # The hierarchy's candidates (every facet the scan could call a hit or ambiguous,
            # docs/decisions.md), classified by the same kernel and reduced without regard to
            # order: the lowest ambiguous index, else the smallest t with the lowest index on
            # exact ties -- the scan's answer. At least one poll, even with no candidate.
            tree = self._bvh_tree()
            cand = tree.candidates(q, tol)
            amb = None  # (index, band)
            best = None
            for lo in range(0, max(cand.size, 1), step):
                if poll is not None and poll():
                    return failure(GeometryStatus.Cancelled, "query cancelled; no partial result")
                ai, code, bi, t, l0, l1, l2, dc = _scan_rows(tree.rec, tree.edges, cand[lo:lo + step], q, tol)
                if ai >= 0 and (amb is None or ai < amb[0]):
                    amb = (ai, code)
                if bi >= 0 and (best is None or t < best[0] or (t == best[0] and bi < best[1])):
                    best = (t, bi, np.array([l0, l1, l2]), dc)
            if amb is not None:
                return _ambiguous(*amb)
        if best is None:
            return success(None)
        t, i, lam, dc = best
        return success(self._hit(q, t, i, lam, dc))

    def clip_segment(self, start, end, cancel: CancelToken = None, *, block: int = BLOCK,
                     bvh: bool | None = None) -> SurfaceQueryOutcome:
        """``clip_segment``: end the proposed trace at its first contact, or keep its end.

        Returns:
            :class:`SurfaceQueryOutcome` with a :class:`ClippedSegment` whose ``end`` is the hit
            position (Rounded, bitwise ``end`` for a t = 1 contact) or bitwise ``end`` on a miss,
            and whose ``stamp`` is the surface's (Exact) on either; every failure of
            :meth:`first_hit` passes through unchanged (stamped). No contact law is imposed.
        """
        out = self.first_hit(start, end, cancel, block=block, bvh=bvh)
        if not out.ok:
            return out
        s = readonly(np.array(start, dtype=np.float64), copy=False)
        if out.value is None:
            clip = ClippedSegment(s, readonly(np.array(end, dtype=np.float64), copy=False), None, self._stamp)
        else:
            clip = ClippedSegment(s, out.value.position, out.value, self._stamp)
        return self._stamped(success(clip))

    def _hit(self, q: _Query, t: float, i: int, lam: np.ndarray, dc: float) -> SurfaceHit:
        if t == 0.0:
            pos = q.s.copy()
        elif t == 1.0:
            pos = q.e.copy()
        else:
            pos = q.s + t * q.d
        # + 0.0 turns a computed -0.0 into +0.0 (same value, cleaner records).
        return SurfaceHit(t=float(t) + 0.0, triangle=int(i), position=readonly(pos, copy=False),
                          barycentric=readonly(lam + 0.0, copy=False),
                          normal=readonly(self._normal[i].copy(), copy=False),
                          facing=Facing.Front if dc > 0 else Facing.Back, stamp=self._stamp)

    def _bvh_tree(self) -> _FacetBVH:
        tree = self._bvh
        if tree is None:
            with _BVH_LOCK:
                tree = self._bvh
                if tree is None:
                    tree = _FacetBVH.build(self._rec, self._edges)
                    object.__setattr__(self, "_bvh", tree)
        return tree

    def _scan(self, q: _Query, lo: int, hi: int, tol: float):
        """Classify facets [lo, hi) (``_classify``, compiled): an Ambiguous Outcome (the lowest
        ambiguous facet of the range), the range's best hit ``(t, index, weights, h_s - h_e)``
        (smallest t, the lowest index of equal values), or None."""
        ai, code, bi, t, l0, l1, l2, dc = _scan_range(self._rec, self._edges, lo, hi, q, tol)
        if ai >= 0:
            return _ambiguous(ai, code)
        if bi < 0:
            return None
        return float(t), int(bi), np.array([l0, l1, l2]), float(dc)


def _ambiguous(i: int, code: int) -> Outcome:
    why = _WHY[code]
    return failure(GeometryStatus.Ambiguous, f"triangle {int(i)} is ambiguous ({why} band); the query is rejected",
                   field=why, index=int(i))


# --- the facet hierarchy -------------------------------------------------------------------
#
# Built once per surface on the first query that uses it (numba), over one copy of the facet
# records in the spatial tree's leaf order (a leaf's facets are contiguous rows):
#
# * the spatial tree: a binary tree of exact axis-aligned boxes (unions of the facets' exact
#   min/max boxes, no rounding; median splits of box centres on the widest axis), each node
#   with the largest theta, height factor 1.001 theta + 6u and 1/|c_k| of its facets and their
#   smallest and largest scale m (one 128-byte row per node);
# * the normal grid: the facets' unit normals, sign chosen so that the dominant component k is
#   positive, binned on three cube faces (k) at (n_i / n_k, n_j / n_k) in res x res cells.
#
# A query collects candidate rows; the scan's classification (``_classify``) then runs on them
# and nothing else decides. A facet is *grazing* when ``|fl(n . d)| <= 1.5 sigma fl(|d|_2)``,
# ``sigma = max(2^-16, 4 tol)``. Grazing facets come from the normal grid, which skips a cell
# only when every normal it can hold has ``|n . d| > 2 sigma |d|_2``; every other facet comes
# from the spatial tree, which skips a node (or a leaf facet) when
#
# 1. its exact box is disjoint from the segment's exact box (the scan's own first test), or
# 2. the node is *safe* for this query and the segment misses its box grown by the margin ``mu``
#    in every axis (a slab test whose parameters are widened by a bound of their rounding).
#
# ``docs/decisions.md`` ("Triangle first hit at scale: the conservative hierarchy") proves that a
# non-grazing facet of a safe node whose distance from the segment exceeds ``mu`` is a miss for
# the scan (it fails the t, far or weight test), so no facet that the scan would call a hit or
# ambiguous is culled; ``_node_margin`` computes ``mu`` line by line from that proof.

_BVH_LOCK = threading.Lock()
_SIGMA_MIN = 2.0**-16  # grazing threshold sigma = max(_SIGMA_MIN, 4 tol)


def _bvh_build_py(lo, hi, leaf):
    n = lo.shape[0]
    order = np.arange(n, dtype=np.int64)
    cen = lo + hi  # twice the centre; only the order matters
    # Median splits leave every leaf more than leaf / 2 facets (except a lone small root), so
    # there are fewer than 2 (n / leaf + 1) leaves and 4 (n / leaf + 1) nodes.
    cap = 4 * (n // leaf + 1) + 1
    nlo = np.empty((cap, 3))
    nhi = np.empty((cap, 3))
    left = np.full(cap, -1, dtype=np.int64)  # child index, or -1 for a leaf
    first = np.zeros(cap, dtype=np.int64)
    count = np.zeros(cap, dtype=np.int64)
    stack = np.empty((128, 3), dtype=np.int64)  # (node, begin, end)
    nodes = 1
    sp = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, n
    sp = 1
    while sp > 0:
        sp -= 1
        node, b, e = stack[sp, 0], stack[sp, 1], stack[sp, 2]
        for k in range(3):
            mn = np.inf
            mx = -np.inf
            for j in range(b, e):
                f = order[j]
                if lo[f, k] < mn:
                    mn = lo[f, k]
                if hi[f, k] > mx:
                    mx = hi[f, k]
            nlo[node, k] = mn
            nhi[node, k] = mx
        if e - b <= leaf:
            first[node], count[node] = b, e - b
            continue
        ax = 0
        w = -1.0
        for k in range(3):
            mn = np.inf
            mx = -np.inf
            for j in range(b, e):
                c = cen[order[j], k]
                mn = min(mn, c)
                mx = max(mx, c)
            if mx - mn > w:
                w = mx - mn
                ax = k
        keys = np.empty(e - b)
        for j in range(b, e):
            keys[j - b] = cen[order[j], ax]
        perm = np.argsort(keys, kind="mergesort")
        seg = order[b:e].copy()
        for j in range(e - b):
            order[b + j] = seg[perm[j]]
        mid = (b + e) // 2
        lc = nodes
        nodes += 2
        left[node] = lc
        stack[sp, 0], stack[sp, 1], stack[sp, 2] = lc, b, mid
        stack[sp + 1, 0], stack[sp + 1, 1], stack[sp + 1, 2] = lc + 1, mid, e
        sp += 2
    return nlo[:nodes].copy(), nhi[:nodes].copy(), left[:nodes].copy(), first[:nodes].copy(), \
        count[:nodes].copy(), order


_bvh_build = _jit(_bvh_build_py)

# Columns of the node table: box lo (0-2), hi (3-5), the constants of _bvh_constants, the first
# child (-1 for a leaf), the leaf's first row and count.
_CTH, _CTHETA, _CMMAX, _CMMIN, _CKAP = 0, 1, 2, 3, 4
_NTH, _NTHETA, _NMMAX, _NMMIN, _NKAP, _NLEFT, _NFIRST, _NCOUNT, _NIMMIN = 6, 7, 8, 9, 10, 11, 12, 13, 14


@_jit
def _bvh_constants(left, first, count, rec):
    """Per node: the largest ``1.001 theta + 6u`` (the heights' factor, as the scan computes it),
    theta, m and ``1/|c_k|`` (rounded up), and the smallest m of the facets below. Children
    have larger indices than their parent, so one backward pass sees them first."""
    nn = left.size
    c = np.empty((nn, 5))
    for node in range(nn - 1, -1, -1):
        if left[node] < 0:
            th, theta, mmax, mmin, kap = 0.0, 0.0, 0.0, np.inf, 0.0
            for j in range(first[node], first[node] + count[node]):
                th = max(th, 1.001 * rec[j, _RTH] + 6 * U)
                theta = max(theta, rec[j, _RTH])
                mmax = max(mmax, rec[j, _RM])
                mmin = min(mmin, rec[j, _RM])
                kap = max(kap, 1.0 / np.abs(rec[j, _RCK]) * (1 + 2.0**-40))
            c[node, 0], c[node, 1], c[node, 2], c[node, 3], c[node, 4] = th, theta, mmax, mmin, kap
        else:
            a, b = left[node], left[node] + 1
            c[node, _CTH] = max(c[a, _CTH], c[b, _CTH])
            c[node, _CTHETA] = max(c[a, _CTHETA], c[b, _CTHETA])
            c[node, _CMMAX] = max(c[a, _CMMAX], c[b, _CMMAX])
            c[node, _CMMIN] = min(c[a, _CMMIN], c[b, _CMMIN])
            c[node, _CKAP] = max(c[a, _CKAP], c[b, _CKAP])
    return c


@_jit
def _node_margin(c, q, tol, sigma, isd):
    """The margin ``mu`` of a node (row ``c`` of the node table) for this query, or -1 when the
    node is not safe (see docs/decisions.md, "Triangle first hit at scale: the conservative
    hierarchy", for each line). Every bound carries a relative slack far above its own
    rounding."""
    theta, kap, mmax, mmin = c[_NTHETA], c[_NKAP], c[_NMMAX], c[_NMMIN]
    if not (theta <= 2.0**-10 and 12.2 * U * kap <= 2.0**-10):
        return -1.0
    # W_s, W_e: the largest |s - x|_inf, |e - x|_inf over the node box.
    ws = max(np.abs(q.s[0] - c[0]), np.abs(q.s[0] - c[3]), np.abs(q.s[1] - c[1]), np.abs(q.s[1] - c[4]),
             np.abs(q.s[2] - c[2]), np.abs(q.s[2] - c[5]))
    we = max(np.abs(q.e[0] - c[0]), np.abs(q.e[0] - c[3]), np.abs(q.e[1] - c[1]), np.abs(q.e[1] - c[4]),
             np.abs(q.e[2] - c[2]), np.abs(q.e[2] - c[5]))
    eta = 1.0625 * 1.75 * c[_NTH] * (ws + we) * 1.01 + 1e-300  # >= eta_s + eta_e of every facet
    # isd >= 1 / (1.46 sigma |d|_2), rounded up by the caller.
    if not (eta * isd <= 2.0**-12 * (1.46 * 0.99)):  # safe: eta <= 2^-12 sigma |d|: none near-parallel
        return -1.0
    rtb = 2.3 * (eta * isd + U) + 1e-300  # >= R_t
    rho = 1.07 * (rtb * q.dinf + 1.03 * U * (ws + 2.02 * q.dinf)) + 1e-300  # >= rho less its |q| term
    if not (rho <= 0.5 * mmin):  # a far contact offset is a miss
        return -1.0
    lam = 8.02 * kap  # >= |l_1|, |l_2| when |q|_inf <= 4 m
    base = (8.2 * U * 4.01 + 2.1 * (rho * c[_NIMMIN] + 4.5 * U)) * kap * 1.001
    r12 = 1.07 * (base + 8.01 * U * kap + (1.01 * U + 12.2 * U * kap) * lam) / (1 - 2.0**-10) + 1e-300
    rb = 1.07 * (2 * r12 + 1.02 * U * (2.02 + 3 * lam)) + 1e-300  # >= R_0, R_1, R_2
    nw = 2.002 * (tol + 2.01 * rb)  # sum of the negative weights' sizes
    d2 = 2.83 * mmax * nw + 1.43 * U * (11 * mmax + ws + 2.05 * q.dinf)  # 2D distance in projection
    hx = 2.02 * eta + 2.1 * U * q.dn  # height of the contact point over the facet's plane
    mu = 1.01 * ((tol + rtb) * q.dn * 1.001 + 2.74 * d2 + 1.74 * (hx + 7 * theta * mmax))
    if not (mu < 1e300):
        return -1.0
    return mu


@_jit
def _slab_miss(lo0, lo1, lo2, hi0, hi1, hi2, mu, q, inv):
    """True when the segment provably misses the box [lo - mu, hi + mu]: the slab parameters
    are widened by a bound of their rounding, so a computed miss is an exact miss."""
    lo, hi = (lo0, lo1, lo2), (hi0, hi1, hi2)
    mu2 = mu * (1 + 2.0**-40)
    te, tx = 0.0, 1.0
    for i in range(3):
        a = lo[i] - q.s[i]
        b = hi[i] - q.s[i]
        if q.d[i] == 0:  # e_i == s_i exactly: the segment keeps this coordinate
            if a > mu2 or b < -mu2:
                return True
            continue
        ta = (a - mu2) * inv[i]
        tb = (b + mu2) * inv[i]
        if ta > tb:
            ta, tb = tb, ta
        w = (2.02 * U * (np.abs(a) + np.abs(b) + 2 * mu2) * np.abs(inv[i]) + 6 * U * max(np.abs(ta), np.abs(tb))
             + 2.0**-1070 * np.abs(inv[i]) + 1e-300)
        lt, ht = ta - w, tb + w
        if not (np.abs(lt) < np.inf and np.abs(ht) < np.inf):
            continue  # an overflowed (or NaN) bound constrains nothing
        te, tx = max(te, lt), min(tx, ht)
        if te > tx:
            return True
    return False


@_jit
def _grazing(n0, n1, n2, q, glim):
    """The grazing test, on the stored normal (either sign: the same bits up to sign)."""
    return np.abs((n0 * q.d[0] + n1 * q.d[1]) + n2 * q.d[2]) <= glim


@_jit
def _cell_range(c0, ca, cb, b0, b1, w, res):
    """The cells [first, last] along axis a of one row (b in [b0, b1]) that the strip
    ``|c0 + ca a + cb b| <= w`` can meet, ``ca != 0``; empty when first > last."""
    xs = ((-w - c0 - cb * b0) / ca, (-w - c0 - cb * b1) / ca, (w - c0 - cb * b0) / ca, (w - c0 - cb * b1) / ca)
    lo_x, hi_x = min(xs), max(xs)
    slack = 1e-12 + 8 * U * (w + np.abs(c0) + np.abs(cb)) / np.abs(ca)
    lo_x, hi_x = lo_x - slack, hi_x + slack
    if lo_x != lo_x or hi_x != hi_x:  # NaN (inf - inf): the whole row, never a guess
        return 0, res - 1
    lo_x, hi_x = max(lo_x, -2.0), min(hi_x, 2.0)
    if not (lo_x <= hi_x):
        return 1, 0
    half = res / 2.0
    first = max(0, math.floor((lo_x + 1.0) * half))
    last = min(res - 1, math.floor((hi_x + 1.0) * half))
    return first, last


@_jit
def _query_constants(q, tol):
    """``(sigma, glim, isd)``: the grazing threshold sigma, the grazing test's limit
    ``1.5 sigma |d|_2`` and ``1 / (1.46 sigma |d|_2)`` rounded up (for _node_margin)."""
    sigma = max(_SIGMA_MIN, 4 * tol)
    return sigma, 1.5 * sigma * q.dn, 1.0 / (1.46 * sigma * q.dn) * (1 + 2.0**-40)


@_jit
def _bvh_collect(nd, rec, gstart, gnrm, grow, res, q, tol, out):
    """Candidate rows (of the hierarchy's records) for the query: each facet at most once,
    in no particular order."""
    sigma, glim, isd = _query_constants(q, tol)
    m = 0
    # 1. The grazing facets, from the normal grid: a face k holds the facets whose (sign-chosen)
    # normal has dominant axis k, at (x, y) = (n_i / n_k, n_j / n_k) in res x res cells. A cell
    # is visited when the strip |d_k + d_i x + d_j y| <= 3.47 sigma |d|_2 (+ rounding) meets it.
    w = 3.47 * sigma * q.dn + 16 * U * (np.abs(q.d[0]) + np.abs(q.d[1]) + np.abs(q.d[2]))
    h = 2.0 / res
    for k in range(3):
        i, j = (k + 1) % 3, (k + 2) % 3
        dk, di, dj = q.d[k], q.d[i], q.d[j]
        base = k * res * res
        if di == 0 and dj == 0:
            continue  # |n . d| = |n_k| |d_k| >= |d| / sqrt(3) on this face: none grazes
        for row in range(res):
            b0, b1 = -1.0 + row * h, -1.0 + (row + 1) * h
            if np.abs(di) >= np.abs(dj):  # rows of constant y, cells along x
                f0, f1 = _cell_range(dk, di, dj, b0, b1, w, res)
                for cx in range(f0, f1 + 1):
                    cell = base + row * res + cx
                    for jj in range(gstart[cell], gstart[cell + 1]):
                        if _grazing(gnrm[jj, 0], gnrm[jj, 1], gnrm[jj, 2], q, glim):
                            out[m] = grow[jj]
                            m += 1
            else:  # columns of constant x, cells along y
                f0, f1 = _cell_range(dk, dj, di, b0, b1, w, res)
                for cy in range(f0, f1 + 1):
                    cell = base + cy * res + row
                    for jj in range(gstart[cell], gstart[cell + 1]):
                        if _grazing(gnrm[jj, 0], gnrm[jj, 1], gnrm[jj, 2], q, glim):
                            out[m] = grow[jj]
                            m += 1
    # 2. Every other facet, from the spatial tree.
    inv = np.empty(3)
    for i in range(3):
        inv[i] = 1.0 / q.d[i] if q.d[i] != 0 else 0.0
    stack = np.empty(256, dtype=np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        c = nd[stack[sp]]
        # The scan's own first test (exact comparisons): hi >= lo_seg and lo <= hi_seg.
        if (c[3] < q.lo[0] or c[4] < q.lo[1] or c[5] < q.lo[2]
                or c[0] > q.hi[0] or c[1] > q.hi[1] or c[2] > q.hi[2]):
            continue
        mu = _node_margin(c, q, tol, sigma, isd)
        if mu >= 0 and _slab_miss(c[0], c[1], c[2], c[3], c[4], c[5], mu, q, inv):
            continue
        child = int(c[_NLEFT])
        if child < 0:
            f0 = int(c[_NFIRST])
            for r in range(f0, f0 + int(c[_NCOUNT])):
                if not _box_meets(rec, r, q):
                    continue  # the scan's first test
                if mu >= 0 and _slab_miss(rec[r, _RLO], rec[r, _RLO + 1], rec[r, _RLO + 2],
                                          rec[r, _RHI], rec[r, _RHI + 1], rec[r, _RHI + 2], mu, q, inv):
                    continue
                if _grazing(rec[r, _RN], rec[r, _RN + 1], rec[r, _RN + 2], q, glim):
                    continue  # the normal grid's
                out[m] = r
                m += 1
        else:
            stack[sp] = child
            stack[sp + 1] = child + 1
            sp += 2
    return m


class _FacetBVH:
    """The facet hierarchy of one surface (see the section comment above)."""

    __slots__ = ("_local", "build_seconds", "edges", "gnrm", "grow", "gstart", "nd", "rec", "res")

    @staticmethod
    def build(rec: np.ndarray, edges: np.ndarray) -> _FacetBVH:
        import time

        t0 = time.perf_counter()
        self = _FacetBVH()
        lo, hi = np.ascontiguousarray(rec[:, _RLO:_RLO + 3]), np.ascontiguousarray(rec[:, _RHI:_RHI + 3])
        nlo, nhi, left, first, count, order = _bvh_build(lo, hi, BVH_LEAF)
        # Leaf order: a leaf's facets are contiguous rows.
        self.rec, self.edges = rec[order], edges[order]
        cst = _bvh_constants(left, first, count, self.rec)
        # One row per node: box, constants, child, first row, count (two cache lines).
        nd = np.zeros((left.size, 16))
        nd[:, 0:3], nd[:, 3:6], nd[:, _NTH:_NTH + 5] = nlo, nhi, cst
        nd[:, _NLEFT], nd[:, _NFIRST], nd[:, _NCOUNT] = left, first, count
        nd[:, _NIMMIN] = 1.0 / cst[:, _CMMIN] * (1 + 2.0**-40)  # >= 1 / m_min
        self.nd = nd
        # The normal grid: sign-chosen normals (dominant component positive, exact flips).
        n = self.rec.shape[0]
        nrm = self.rec[:, _RN:_RN + 3]
        k = np.argmax(np.abs(nrm), axis=1)
        rows = np.arange(n)
        nrm = nrm * np.where(nrm[rows, k] < 0, -1.0, 1.0)[:, None]
        res = max(1, math.isqrt(max(1, n // 6)))
        half = res / 2.0
        cx = np.clip(np.floor((nrm[rows, (k + 1) % 3] / nrm[rows, k] + 1.0) * half), 0, res - 1).astype(np.int64)
        cy = np.clip(np.floor((nrm[rows, (k + 2) % 3] / nrm[rows, k] + 1.0) * half), 0, res - 1).astype(np.int64)
        cell = (k * res + cy) * res + cx
        gorder = np.argsort(cell, kind="stable")
        self.res = res
        self.gstart = np.searchsorted(cell[gorder], np.arange(3 * res * res + 1)).astype(np.int64)
        self.gnrm = np.ascontiguousarray(nrm[gorder])
        self.grow = gorder.astype(np.int64)
        self._local = threading.local()  # a candidate buffer per thread, reused across queries
        self.build_seconds = time.perf_counter() - t0
        return self

    def candidates(self, q: _Query, tol: float) -> np.ndarray:
        """Record rows (of ``self.rec``) of every facet the scan could call a hit or ambiguous,
        each once, in no particular order."""
        out = getattr(self._local, "out", None)
        if out is None:
            out = self._local.out = np.empty(self.rec.shape[0], dtype=np.int64)
        m = _bvh_collect(self.nd, self.rec, self.gstart, self.gnrm, self.grow, self.res, q, tol, out)
        return out[:m].copy()
