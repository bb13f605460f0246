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

Query (``first_hit``), per facet, vectorised over blocks of ``BLOCK`` facets:

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
(``oracles/checks/triangle.py``) evaluates the same model from exact quantities.

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
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

import numpy as np

from . import kernel
from .context import F64
from .owner import readonly
from .status import GeometryStatus, Outcome, failure, is_int, success

__all__ = [
    "U",
    "TINY",
    "DEFAULT_TOLERANCE",
    "MIN_TOLERANCE",
    "MAX_TOLERANCE",
    "MAX_COORDINATE",
    "DEFAULT_MAX_VERTICES",
    "DEFAULT_MAX_TRIANGLES",
    "CAPACITY_CEILING",
    "BLOCK",
    "BVH_MIN_TRIANGLES",
    "BVH_LEAF",
    "NORMAL_K",
    "G_SLACK",
    "Facing",
    "SurfaceStamp",
    "SurfaceSettings",
    "validate_settings",
    "SurfaceHit",
    "ClippedSegment",
    "SurfaceQueryOutcome",
    "TriangleSurface",
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
BVH_MIN_TRIANGLES = 1024  # below this the linear scan's single numpy pass is as fast
BVH_LEAF = 8  # facets per hierarchy leaf

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
    hit: Optional[SurfaceHit]
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

    stamp: Optional[SurfaceStamp] = None


CancelToken = Union[Callable[[], Any], threading.Event, None]


def _poller(cancel: CancelToken) -> Optional[Callable[[], bool]]:
    if cancel is None:
        return None
    if hasattr(cancel, "is_set"):
        return lambda: bool(cancel.is_set())
    if callable(cancel):
        return lambda: bool(cancel())
    raise TypeError("cancel must be None, a callable returning a bool, or an object with is_set()")


def _real_array(x, name: str, width: int) -> tuple[Optional[np.ndarray], Optional[Outcome]]:
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


def _point(x, name: str) -> tuple[Optional[np.ndarray], Optional[Outcome]]:
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


def _near(x, band):
    """Nonzero and within its band: the ambiguous zone of a boundary value."""
    return (x != 0) & (np.abs(x) <= band)


class _Query:
    """A validated segment and the per-query scalars every block shares."""

    __slots__ = ("s", "e", "d", "dinf", "dn", "lo", "hi")

    def __init__(self, s: np.ndarray, e: np.ndarray):
        self.s, self.e = s, e
        self.d = e - s
        self.dinf = float(np.max(np.abs(self.d)))
        self.dn = float(_norm2(self.d))
        self.lo, self.hi = np.minimum(s, e), np.maximum(s, e)


# Indices of the two axes kept after dropping the dominant axis k, cyclic so that the 2D
# determinant e1_i e2_j - e1_j e2_i is the cross product's k component.
_KEEP = np.array([[1, 2], [2, 0], [0, 1]])


class TriangleSurface:
    """An admitted, immutable two-sided triangle surface (spec 004 ``TriangleSurface``).

    Build it with :meth:`new`. Accessors return read-only arrays.
    """

    __slots__ = ("_vertices", "_triangles", "_stamp", "_settings", "_a", "_e1", "_e2", "_m",
                 "_g", "_normal", "_theta", "_ck", "_keep", "_e1k", "_e2k", "_lo", "_hi",
                 "_bvh", "_frozen")

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
        self._a, self._e1, self._e2, self._m, self._g = a, e1, e2, m, g
        self._normal = readonly(normal, copy=False)
        # theta bounds |n - N|_2 (N the exact unit normal); g - G_SLACK u > 0 since g > 64 u.
        self._theta = NORMAL_K * U / (g - G_SLACK * U) * _SAFETY
        self._ck = cr[np.arange(tris.shape[0]), k]
        self._keep = keep
        self._e1k, self._e2k = s1[rows, keep], s2[rows, keep]  # (T, 2) scaled edges, axes (i, j)
        self._lo = np.minimum(np.minimum(a, b), c)
        self._hi = np.maximum(np.maximum(a, b), c)
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
                  bvh: Optional[bool] = None) -> SurfaceQueryOutcome:
        """``first_hit``: the earliest contact of the segment ``start -> end``.

        Args:
            start: (3,) real, the segment start (world coordinates).
            end: (3,) real, the segment end; must differ from ``start``.
            cancel: None, a callable returning true to cancel, or a ``threading.Event``;
                polled before every block of ``block`` facets.
            block: facets per vectorised block (an int >= 1); 1 polls per facet.
            bvh: None (default: the hierarchy for surfaces of at least ``BVH_MIN_TRIANGLES``
                facets, the linear scan below), True or False. The hierarchy only selects which
                facets the scan classifies (those whose exact box meets the segment's box,
                the scan's own first rejection, in increasing index order), so every outcome is
                bit-identical to the linear scan's; it is built once per surface on first use.

        Returns:
            :class:`SurfaceQueryOutcome` (an ``Outcome`` whose ``stamp`` is the surface's, whatever
            the status): success with a :class:`SurfaceHit` (t, triangle: Rounded; position,
            barycentric, normal: Rounded with the module's error model; facing: exact sign;
            stamp: Exact, the caller's), or success with None on a miss; Ambiguous (diagnostic index = lowest ambiguous facet,
            field = the band that was hit) when any facet is inside an uncertainty band;
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
        q = _Query(s, e)
        best = None  # (t, triangle, payload)
        n = self.triangle_count
        if bvh is None:
            bvh = n >= BVH_MIN_TRIANGLES
        # The candidates: every facet (the definition), or the hierarchy's facets whose exact box
        # meets the segment's box, ascending. Facets outside that set fail the scan's first test
        # (exact comparisons, no rounding), so the set changes no facet's classification, and the
        # ascending order keeps "lowest ambiguous index" and "exact ties keep the lowest index".
        cand = self._bvh_tree().candidates(q.lo, q.hi) if bvh else None
        total = n if cand is None else cand.size
        # At least one poll, even when the hierarchy leaves no candidate.
        for lo in range(0, max(total, 1), int(block)):
            if poll is not None and poll():
                return failure(GeometryStatus.Cancelled, "query cancelled; no partial result")
            hi = min(total, lo + int(block))
            res = self._scan(q, lo, hi) if cand is None else self._scan(q, lo, hi, cand[lo:hi])
            if isinstance(res, Outcome):
                return res
            if res is not None and (best is None or res[0] < best[0]):
                best = res
        if best is None:
            return success(None)
        t, i, lam, dc = best
        return success(self._hit(q, t, i, lam, dc))

    def clip_segment(self, start, end, cancel: CancelToken = None, *, block: int = BLOCK,
                     bvh: Optional[bool] = None) -> SurfaceQueryOutcome:
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

    def _bvh_tree(self) -> "_FacetBVH":
        tree = self._bvh
        if tree is None:
            with _BVH_LOCK:
                tree = self._bvh
                if tree is None:
                    tree = _FacetBVH.build(self._lo, self._hi)
                    object.__setattr__(self, "_bvh", tree)
        return tree

    def _scan(self, q: _Query, lo: int, hi: int, sel: Optional[np.ndarray] = None):
        """Classify facets [lo, hi) (or the ascending facet indices ``sel``): an Ambiguous
        Outcome, the block's best hit ``(t, index, weights, h_s - h_e)``, or None. Every facet is
        classified by elementwise arithmetic alone, so its verdict does not depend on which
        other facets share the block."""
        tol = float(self._settings.tolerance)
        if sel is None:
            box = np.all(self._hi[lo:hi] >= q.lo, axis=1) & np.all(self._lo[lo:hi] <= q.hi, axis=1)
            idx = lo + np.flatnonzero(box)
        else:
            box = np.all(self._hi[sel] >= q.lo, axis=1) & np.all(self._lo[sel] <= q.hi, axis=1)
            idx = sel[box]
        if idx.size == 0:
            return None
        a, n, m = self._a[idx], self._normal[idx], self._m[idx]
        ws, we = q.s - a, q.e - a
        wsi, wei = np.max(np.abs(ws), axis=1), np.max(np.abs(we), axis=1)
        hs, he = kernel.dot(F64, n, ws), kernel.dot(F64, n, we)
        th = 1.001 * self._theta[idx] + 6 * U
        eta_s = (th * (_SQRT3_UP * wsi) + TINY) * _SAFETY
        eta_e = (th * (_SQRT3_UP * wei) + TINY) * _SAFETY
        eta = eta_s + eta_e
        dc = hs - he
        adc = np.abs(dc)
        par = adc <= tol * q.dn + 4 * eta + 4 * U * adc

        amb = np.zeros(idx.size, dtype=bool)
        hit = np.zeros(idx.size, dtype=bool)
        why = np.full(idx.size, "", dtype=object)
        t = np.full(idx.size, np.nan)
        lam = np.zeros((idx.size, 3))

        # Near-parallel facets: off the plane, separated in projection, or ambiguous.
        p = np.flatnonzero(par)
        if p.size:
            hb = tol * (m[p] + q.dn)
            off = ((hs[p] > hb + eta_s[p]) & (he[p] > hb + eta_e[p])) | \
                  ((hs[p] < -(hb + eta_s[p])) & (he[p] < -(hb + eta_e[p])))
            rest = p[~off]
            if rest.size:
                sep = self._separated(q, idx[rest], ws[rest], we[rest], tol)
                amb[rest[~sep]] = True
                why[rest[~sep]] = "parallel"

        # Facets the segment crosses at a well-defined parameter.
        c = np.flatnonzero(~par)
        if c.size:
            tc = hs[c] / dc[c]
            ad = adc[c]
            t_up = (np.abs(hs[c]) + eta_s[c]) / (ad - eta[c] - U * ad)
            rt = ((eta_s[c] + t_up * (eta[c] + U * ad)) / ad + 1.01 * U * np.abs(tc) + TINY) * _SAFETY
            bt = tol + rt
            t_out = (tc < -bt) | (tc > 1 + bt)
            t_amb = _near(tc, bt) | _near(tc - 1, bt)
            keep = ~t_out
            c, tc, rt, t_amb = c[keep], tc[keep], rt[keep], t_amb[keep]
            t[c] = tc
            qv = ws[c] + tc[:, None] * q.d
            qinf = np.max(np.abs(qv), axis=1)
            rho = (rt * q.dinf * (1 + 4 * U)
                   + 1.02 * U * (wsi[c] + 2 * np.abs(tc) * q.dinf + qinf) + TINY) * _SAFETY
            mc = m[c]
            far = qinf > 4 * mc
            # A far contact offset is a miss when even its error cannot bring it near the facet.
            far_amb = far & ~(qinf - rho > 2 * mc)
            amb[c[far_amb]] = True
            why[c[far_amb]] = "far"
            near_ = ~far
            c, tc, rt, t_amb, rho, qv, mc = (x[near_] for x in (c, tc, rt, t_amb, rho, qv, mc))
            if c.size:
                gi = idx[c]
                z = qv / mc[:, None]
                rows = np.arange(c.size)[:, None]
                zk = z[rows, self._keep[gi]]
                e1k, e2k, ck = self._e1k[gi], self._e2k[gi], self._ck[gi]
                n1 = zk[:, 0] * e2k[:, 1] - zk[:, 1] * e2k[:, 0]
                n2 = e1k[:, 0] * zk[:, 1] - e1k[:, 1] * zk[:, 0]
                l1, l2 = n1 / ck, n2 / ck
                l0 = (1 - l1) - l2
                ack = np.abs(ck)
                zinf = np.max(np.abs(z), axis=1)
                bb = 12.2 * U / ack
                base = (8.2 * U * zinf + 2.1 * rho / mc) / ack
                r1 = ((base + U * np.abs(n1) / ack + 1.01 * U * np.abs(l1) + bb * np.abs(l1)) / (1 - bb) + TINY) * _SAFETY
                r2 = ((base + U * np.abs(n2) / ack + 1.01 * U * np.abs(l2) + bb * np.abs(l2)) / (1 - bb) + TINY) * _SAFETY
                r0 = (r1 + r2 + 1.01 * U * (1 + np.abs(l1) + np.abs(l0)) + TINY) * _SAFETY
                b1, b2, b0 = tol + r1, tol + r2, tol + r0
                l_out = (l1 < -b1) | (l2 < -b2) | (l0 < -b0)
                l_amb = (np.maximum(r1, r2) > 0.5) | _near(l1, b1) | _near(l2, b2) | _near(l0, b0)
                am = ~l_out & (l_amb | t_amb)
                amb[c[am]] = True
                why[c[am & t_amb]] = "parameter"
                why[c[am & ~t_amb]] = "barycentric"
                ok = ~l_out & ~am
                hit[c[ok]] = True
                lam[c, 0], lam[c, 1], lam[c, 2] = l0, l1, l2

        if np.any(amb):
            j = int(np.argmax(amb))
            return failure(GeometryStatus.Ambiguous,
                           f"triangle {int(idx[j])} is ambiguous ({why[j]} band); the query is rejected",
                           field=str(why[j]), index=int(idx[j]))
        h = np.flatnonzero(hit)
        if h.size == 0:
            return None
        j = h[int(np.argmin(t[h]))]  # argmin keeps the first (lowest index) of equal values
        return float(t[j]), int(idx[j]), lam[j].copy(), float(dc[j])

    def _separated(self, q: _Query, gi: np.ndarray, ws: np.ndarray, we: np.ndarray, tol: float) -> np.ndarray:
        """2D separating-axis test of segment and facet projected along the dominant normal
        axis, in coordinates relative to ``a`` scaled by an exact power of two. True where an
        axis separates them by more than its band (then no contact exists)."""
        keep = self._keep[gi]
        rows = np.arange(gi.size)[:, None]
        e1, e2 = self._e1[gi], self._e2[gi]
        big = np.maximum.reduce([np.max(np.abs(x), axis=1) for x in (ws, we, e1, e2)])
        _, ex = np.frexp(big)
        sc = lambda v: np.ldexp(v[rows, keep], -ex[:, None])  # noqa: E731  exact scaling
        v1, v2, ps, pe = sc(e1), sc(e2), sc(ws), sc(we)
        v0 = np.zeros_like(v1)
        sep = np.zeros(gi.size, dtype=bool)
        for f in (v1 - v0, v2 - v1, v0 - v2, pe - ps):
            ax = np.stack([-f[:, 1], f[:, 0]], axis=1)
            pr = [np.sum(ax * v, axis=1) for v in (v0, v1, v2, ps, pe)]
            tlo, thi = np.minimum.reduce(pr[:3]), np.maximum.reduce(pr[:3])
            slo, shi = np.minimum(pr[3], pr[4]), np.maximum(pr[3], pr[4])
            band = (tol + 32 * U) * np.sum(np.abs(ax), axis=1) + TINY
            sep |= (shi < tlo - band) | (slo > thi + band)
        return sep


# --- the facet hierarchy -------------------------------------------------------------------
#
# A binary tree of exact axis-aligned boxes (unions of the facets' exact min/max boxes, so no
# rounding enters it), built once per surface by median splits of the box centres on the widest
# axis. A query collects the facets whose exact box meets the segment's exact box: the scan's
# first rejection test, with the same comparisons, so the set is exactly the facets the linear
# scan goes on to classify. A node box contains its facets' boxes, hence a facet that meets the
# segment box lies under nodes that all meet it: no such facet is culled.

_BVH_LOCK = threading.Lock()

try:  # numba is a core dependency; the traversal is a tight loop numpy cannot express
    import numba as _nb
except ImportError:  # pragma: no cover
    _nb = None


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


def _bvh_query_py(nlo, nhi, left, first, count, order, flo, fhi, qlo, qhi, out):
    """Facet indices (unsorted) whose exact box meets [qlo, qhi]; returns how many."""
    stack = np.empty(128, dtype=np.int64)
    stack[0] = 0
    sp = 1
    m = 0
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if (nhi[node, 0] < qlo[0] or nhi[node, 1] < qlo[1] or nhi[node, 2] < qlo[2]
                or nlo[node, 0] > qhi[0] or nlo[node, 1] > qhi[1] or nlo[node, 2] > qhi[2]):
            continue
        c = left[node]
        if c < 0:
            for j in range(first[node], first[node] + count[node]):
                f = order[j]
                # The scan's own first test, the same comparisons: hi >= qlo and lo <= qhi.
                if (fhi[f, 0] >= qlo[0] and fhi[f, 1] >= qlo[1] and fhi[f, 2] >= qlo[2]
                        and flo[f, 0] <= qhi[0] and flo[f, 1] <= qhi[1] and flo[f, 2] <= qhi[2]):
                    out[m] = f
                    m += 1
        else:
            stack[sp] = c
            stack[sp + 1] = c + 1
            sp += 2
    return m


if _nb is not None:
    _bvh_build = _nb.njit(cache=True)(_bvh_build_py)
    _bvh_query = _nb.njit(cache=True)(_bvh_query_py)
else:  # pragma: no cover - the same code, interpreted
    _bvh_build, _bvh_query = _bvh_build_py, _bvh_query_py


class _FacetBVH:
    """Exact-box hierarchy over a surface's facets (see the section comment above)."""

    __slots__ = ("nlo", "nhi", "left", "first", "count", "order", "flo", "fhi", "build_seconds")

    @staticmethod
    def build(flo: np.ndarray, fhi: np.ndarray) -> "_FacetBVH":
        import time

        t0 = time.perf_counter()
        self = _FacetBVH()
        self.flo = np.ascontiguousarray(flo)
        self.fhi = np.ascontiguousarray(fhi)
        (self.nlo, self.nhi, self.left, self.first, self.count,
         self.order) = _bvh_build(self.flo, self.fhi, BVH_LEAF)
        self.build_seconds = time.perf_counter() - t0
        return self

    def candidates(self, qlo: np.ndarray, qhi: np.ndarray) -> np.ndarray:
        """Ascending indices of the facets whose exact box meets the box [qlo, qhi]."""
        out = np.empty(self.order.size, dtype=np.int64)
        m = _bvh_query(self.nlo, self.nhi, self.left, self.first, self.count, self.order,
                       self.flo, self.fhi, np.ascontiguousarray(qlo), np.ascontiguousarray(qhi), out)
        return np.sort(out[:m])
