"""Prepared patch surfaces (``surface.hpp``): topology, edge and corner records, evaluation,
normals and edge parameter mapping.

A :class:`SurfaceSource` lists untrimmed bicubic patches (unique author ``id``, float64
``control[u][v]`` of shape (4, 4, 3)) and explicit :class:`SurfaceAdjacencySource` joins of two
whole patch sides. Each side has an along-edge parameter s: v on U0 and U1, u on V0 and V1. A
join says whether the second side runs opposite to the first (``is_reversed``: s2 = 1 - s1).

Preparation narrows the controls exactly as paths do (``reference.chunk.narrow_to_chunk``:
chunk-origin subtraction in float64, float32 narrowing, the position floor), then builds the
topology. V1 accepts only matching whole sides with at most two incidences per edge, and the
two narrowed control curves must be equal after the declared mapping (float32 values compared
exactly; nothing is welded by a distance). Each violated rule is ``InvalidTopology`` and the
diagnostic names the join and the rule (``TOPOLOGY_RULES``).

Records (docs/decisions.md, "Surfaces: ownership, ids and corners"):

* one :class:`SurfaceEdge` per edge, boundary edges included. Its owner is the incidence with
  the smallest ``(patch id, side)`` (sides ordered U0 < U1 < V0 < V1); the edge id and the
  canonical control curve come from the owner, so neither depends on patch order. Edges are
  listed by id.
* one :class:`SurfaceCorner` per corner: patch corners joined through shared edges form one
  record (a union over the joins) with one exact position and every incident patch corner;
  corners that only coincide geometrically (a pole, two patches touching without a join) stay
  separate. A corner's id is its smallest ``(patch id, corner)``; corners are listed by id.

Guarantees: shared-edge matching, edge and corner records and corner positions are Exact;
positions, partials, normals and the edge continuity values are Rounded, with the error models
of this module (:func:`evaluation_bounds`, :func:`normal_bound`, :func:`edge_value_bound`);
``is_c1`` and the normal's Degenerate / IllConditioned decisions are threshold decisions on
Rounded values.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from types import MappingProxyType
from collections.abc import Mapping, Sequence

import numpy as np

from . import kernel as K
from .chunk import narrow_to_chunk
from .context import F64
from .fp import U64, add_hi, mul_hi, up
from .owner import Owner, readonly
from .status import (
    GeometryStatus,
    Outcome,
    ToleranceProfile,
    WorkLimits,
    failure,
    is_int,
    is_real,
    overlap_failure,
    reported,
    success,
    validate_limits,
    validate_tolerance,
)

__all__ = [
    "CORNERS",
    "MAX_PATCH_ID",
    "NORMAL_DEGENERATE",
    "NORMAL_ILL_CONDITIONED",
    "NORMAL_OK",
    "PARTIAL_MAGNITUDES",
    "SIDES",
    "SIDE_ENDS",
    "SURFACE_K",
    "TOPOLOGY_RULES",
    "CornerIncidence",
    "EdgeIncidence",
    "EdgeParameter",
    "PatchCorner",
    "PatchSide",
    "PreparedSurface",
    "SurfaceAdjacencySource",
    "SurfaceCorner",
    "SurfaceCornerId",
    "SurfaceEdge",
    "SurfaceEdgeId",
    "SurfacePatchSource",
    "SurfacePreparation",
    "SurfaceSample",
    "SurfaceSource",
    "SurfaceView",
    "cross_boundary_controls",
    "decision_errors",
    "edge_value_bound",
    "evaluation_bounds",
    "normal_bound",
    "normal_status",
    "prepared_bytes",
    "side_curve",
    "try_evaluate_edge",
    "try_evaluate_surface",
    "try_evaluate_surface_normal",
    "try_map_edge_parameter",
    "try_prepare_surface",
    "try_sample_surface",
    "try_sample_surface_normals",
]


class PatchSide(enum.Enum):
    """A patch side; its along-edge parameter s is v on U0/U1 and u on V0/V1. Declaration
    order is the ownership order (U0 < U1 < V0 < V1)."""

    U0 = "U0"
    U1 = "U1"
    V0 = "V0"
    V1 = "V1"


class PatchCorner(enum.Enum):
    """A patch corner ``(u, v)``; declaration order is the corner-id order."""

    U0V0 = "U0V0"
    U1V0 = "U1V0"
    U0V1 = "U0V1"
    U1V1 = "U1V1"


SIDES: tuple[PatchSide, ...] = tuple(PatchSide)
CORNERS: tuple[PatchCorner, ...] = tuple(PatchCorner)
_SIDE_RANK = {s: k for k, s in enumerate(SIDES)}
_CORNER_RANK = {c: k for k, c in enumerate(CORNERS)}
_CORNER_UV = {PatchCorner.U0V0: (0, 0), PatchCorner.U1V0: (3, 0), PatchCorner.U0V1: (0, 3),
              PatchCorner.U1V1: (3, 3)}

# The corners at s = 0 and s = 1 of each side.
SIDE_ENDS: Mapping[PatchSide, tuple[PatchCorner, PatchCorner]] = MappingProxyType({
    PatchSide.U0: (PatchCorner.U0V0, PatchCorner.U0V1),
    PatchSide.U1: (PatchCorner.U1V0, PatchCorner.U1V1),
    PatchSide.V0: (PatchCorner.U0V0, PatchCorner.U1V0),
    PatchSide.V1: (PatchCorner.U0V1, PatchCorner.U1V1),
})

# Direction of the counterclockwise (u, v) boundary along each side's s.
_CCW = {PatchSide.V0: 1, PatchSide.U1: 1, PatchSide.V1: -1, PatchSide.U0: -1}

# InvalidTopology rules, as the diagnostic's ``field`` names them.
TOPOLOGY_RULES = (
    "duplicate_patch_id",
    "unknown_patch_index",
    "side_joined_to_itself",
    "third_incidence",
    "partial_join",
    "mismatched_curve",
)

MAX_PATCH_ID = 2**64 - 1  # author ids are unsigned 64-bit integers


# --- Sources ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurfacePatchSource:
    """One untrimmed bicubic patch in asset coordinates.

    Attributes:
        id: the author's id, an int in [0, 2**64 - 1], unique in the source.
        control: (4, 4, 3) float64 controls ``control[u][v]``.
    """

    id: int
    control: object


@dataclass(frozen=True)
class SurfaceAdjacencySource:
    """A join of two whole patch sides: ``second`` runs along ``first`` with s2 = s1, or with
    s2 = 1 - s1 when ``is_reversed``. Patches are named by their index in the source."""

    first_patch: int
    first_side: PatchSide
    second_patch: int
    second_side: PatchSide
    is_reversed: bool


@dataclass(frozen=True)
class SurfaceSource:
    """Patches, joins and the caller's revision."""

    patches: Sequence[SurfacePatchSource]
    adjacency: Sequence[SurfaceAdjacencySource]
    revision: int


@dataclass(frozen=True)
class SurfacePreparation:
    """Preparation settings: tolerances and limits (no defaults) and the float64 chunk origin.

    ``limits.max_spans`` bounds the patch count (a patch is the surface's unit of prepared
    work; ``WorkLimits`` has no patch field) and ``limits.max_prepared_bytes`` the size of
    the prepared surface (:func:`prepared_bytes`)."""

    tolerance: ToleranceProfile
    limits: WorkLimits
    origin: tuple = (0.0, 0.0, 0.0)


# --- Records ---------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class SurfaceEdgeId:
    """``SurfaceEdgeId``: the owner incidence's patch id and side (ordered by (id, side))."""

    patch_id: int
    side_rank: int

    @property
    def side(self) -> PatchSide:
        return SIDES[self.side_rank]

    @staticmethod
    def of(patch_id: int, side: PatchSide) -> SurfaceEdgeId:
        return SurfaceEdgeId(int(patch_id), _SIDE_RANK[side])

    def __repr__(self) -> str:
        return f"SurfaceEdgeId({self.patch_id}, {self.side.name})"


@dataclass(frozen=True, order=True)
class SurfaceCornerId:
    """A corner record's id: its smallest incident ``(patch id, corner)``."""

    patch_id: int
    corner_rank: int

    @property
    def corner(self) -> PatchCorner:
        return CORNERS[self.corner_rank]

    @staticmethod
    def of(patch_id: int, corner: PatchCorner) -> SurfaceCornerId:
        return SurfaceCornerId(int(patch_id), _CORNER_RANK[corner])

    def __repr__(self) -> str:
        return f"SurfaceCornerId({self.patch_id}, {self.corner.name})"


@dataclass(frozen=True)
class EdgeIncidence:
    """One patch side on an edge. ``is_reversed``: the side's s is ``1 - s`` of the canonical
    curve (False for the owner)."""

    patch: int
    patch_id: int
    side: PatchSide
    is_reversed: bool


@dataclass(frozen=True)
class CornerIncidence:
    """One patch corner in a corner record."""

    patch: int
    patch_id: int
    corner: PatchCorner


@dataclass(frozen=True)
class SurfaceEdge:
    """``SurfaceEdge``: one edge of the network. Ids, incidences and the curve are Exact.

    Attributes:
        id: the owner's (patch id, side).
        curve: (4, 3) float32 canonical control curve: the owner side's controls in its s order.
        incidences: the owner first, then the other side of a shared edge.
        is_orientation_consistent: shared edges: whether the two patches traverse the edge in
            opposite directions along their counterclockwise (u, v) boundaries (their
            ``Su x Sv`` normals agree in orientation). None on a boundary edge.
        cross_derivative_difference: shared edges: ``max_k |D_a[k] + D_b[m(k)]|`` over the
            outward cross-boundary derivative controls (``kernel.cross_boundary_controls``) of
            the two sides, ``m`` the declared mapping. Rounded (:func:`edge_value_bound`).
        cross_derivative_scale: ``max_k max(|D_a[k]|, |D_b[k]|)``. Rounded.
        is_c1: ``difference <= continuity_derivative * scale`` (a threshold decision on the
            Rounded values; two zero derivative curves are C1). None on a boundary edge.
    """

    id: SurfaceEdgeId
    curve: np.ndarray
    incidences: tuple
    is_orientation_consistent: bool | None
    cross_derivative_difference: float | None
    cross_derivative_scale: float | None
    is_c1: bool | None

    @property
    def is_shared(self) -> bool:
        return len(self.incidences) == 2


@dataclass(frozen=True)
class SurfaceCorner:
    """``SurfaceCorner``: patch corners joined through shared edges. Exact.

    Attributes:
        id: the smallest incident (patch id, corner).
        position: (3,) float32 chunk-relative position (every incident control is this value).
        incidences: every incident patch corner, ordered by (patch id, corner).
    """

    id: SurfaceCornerId
    position: np.ndarray
    incidences: tuple


@dataclass(frozen=True)
class SurfaceView:
    """``SurfaceView``: a read-only view of a prepared surface (what tessellation reads).

    Attributes:
        controls: (n, 4, 4, 3) float32 chunk-relative controls ``[patch][u][v]``. Exact.
        patch_ids: the author ids by patch index (a tuple of ints).
        origin: (3,) float64 chunk origin; add it in float64 for asset coordinates.
        revision: the source revision.
        patch_count: n.
        tolerance, limits: the profile and limits the surface was prepared with.
        max_magnitude, narrowing_error, position_floor: as for paths. Exact.
        edges: every :class:`SurfaceEdge`, ordered by id.
        corners: every :class:`SurfaceCorner`, ordered by id.
        patch_edges: (n, 4) int array (read-only): ``edges`` index of each patch side, sides
            in ``SIDES`` order.
        patch_corners: (n, 4) int array (read-only): ``corners`` index of each patch corner,
            corners in ``CORNERS`` order.
        edge_index: read-only mapping SurfaceEdgeId -> ``edges`` index.
    """

    controls: np.ndarray
    patch_ids: tuple
    origin: np.ndarray
    revision: int
    patch_count: int
    tolerance: ToleranceProfile
    limits: WorkLimits
    max_magnitude: float
    narrowing_error: float
    position_floor: float
    edges: tuple
    corners: tuple
    patch_edges: np.ndarray
    patch_corners: np.ndarray
    edge_index: Mapping

    def edge_of(self, patch: int, side: PatchSide) -> SurfaceEdge:
        """The edge on ``side`` of patch index ``patch``."""
        return self.edges[int(self.patch_edges[patch, _SIDE_RANK[side]])]

    def corner_of(self, patch: int, corner: PatchCorner) -> SurfaceCorner:
        """The corner record of ``corner`` of patch index ``patch``."""
        return self.corners[int(self.patch_corners[patch, _CORNER_RANK[corner]])]


class PreparedSurface(Owner):
    """An immutable prepared surface; ``view()`` returns its :class:`SurfaceView`."""

    __slots__ = ()


def prepared_bytes(patch_count: int) -> int:
    """Bytes a prepared surface of ``patch_count`` patches holds at most: per patch 192 bytes of
    float32 controls and an 8-byte id, and its share of at most four edges (48-byte curve, two
    24-byte incidences, 32 bytes of values and id) and four corners (12-byte position, a
    24-byte incidence, 16 bytes of id), plus two 4x8-byte index rows. Checked against
    ``WorkLimits.max_prepared_bytes`` before anything is built.

    Raises:
        ValueError: a negative ``patch_count`` (its negative size would pass any budget check).
    """
    if patch_count < 0:
        raise ValueError(f"prepared_bytes: patch_count must be nonnegative, got {patch_count!r}")
    return patch_count * (192 + 8 + 4 * (48 + 2 * 24 + 32) + 4 * (12 + 24 + 16) + 2 * 32)


def side_curve(patch_controls: np.ndarray, side: PatchSide) -> np.ndarray:
    """The side's (4, 3) control curve in its s order (a view of ``patch_controls[u][v]``)."""
    if side is PatchSide.U0:
        return patch_controls[0, :, :]
    if side is PatchSide.U1:
        return patch_controls[3, :, :]
    if side is PatchSide.V0:
        return patch_controls[:, 0, :]
    return patch_controls[:, 3, :]


def _inner_curve(patch_controls: np.ndarray, side: PatchSide) -> np.ndarray:
    if side is PatchSide.U0:
        return patch_controls[1, :, :]
    if side is PatchSide.U1:
        return patch_controls[2, :, :]
    if side is PatchSide.V0:
        return patch_controls[:, 1, :]
    return patch_controls[:, 2, :]


def cross_boundary_controls(patch_controls: np.ndarray, side: PatchSide) -> np.ndarray:
    """Outward cross-boundary derivative controls of a side in float64, (4, 3), s order.
    Rounded (``kernel.cross_boundary_controls``)."""
    b = side_curve(patch_controls, side).astype(np.float64)
    i = _inner_curve(patch_controls, side).astype(np.float64)
    return K.cross_boundary_controls(F64, b, i)


# --- Preparation -----------------------------------------------------------------------------


def _finite_array(x, shape) -> np.ndarray | None:
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the float range
        return None
    if a.shape != shape or not np.all(np.isfinite(a)):
        return None
    return a


def _side(x) -> PatchSide | None:
    if isinstance(x, PatchSide):
        return x
    if isinstance(x, str) and x in PatchSide.__members__:
        return PatchSide[x]
    return None


def try_prepare_surface(source: SurfaceSource, preparation: SurfacePreparation,
                        diagnostic: list | None = None) -> Outcome:
    """``TryPrepareSurface``: validate, narrow and build the topology of a surface source.

    Checks, in order (the first failure is returned, and appended to ``diagnostic`` if a list
    is given):

    1. tolerance and limits ranges (InvalidArgument); revision a nonnegative int, origin
       finite, at least one patch (InvalidArgument);
    2. patch count within ``limits.max_spans`` and :func:`prepared_bytes` within
       ``limits.max_prepared_bytes`` (BudgetExceeded), before anything is built;
    3. each patch: id an int in [0, 2**64 - 1], controls a finite (4, 4, 3) array; each join:
       patch indices ints, sides ``PatchSide`` values (or their names), ``is_reversed`` a bool
       (InvalidArgument, ``index`` = the patch or join);
    4. narrowing (UnsupportedPrecision: float32 range, position floor), as for paths;
    5. topology (InvalidTopology, ``field`` = the rule of ``TOPOLOGY_RULES``): a duplicate
       patch id (``index`` = the later patch); then join by join, in source order, an unknown
       patch index, a side joined to itself, a side already joined (a third incidence on its
       edge), a partial join (an end of the mapped curves differs: the sides do not span the
       same two corners), a mismatched curve (the ends agree, an inner control differs).

    Returns:
        ``Outcome`` holding a new :class:`PreparedSurface`; on failure no surface (the caller's
        previous one is untouched) and the diagnostic. Records Exact; edge values Rounded.
    """
    return reported(_prepare(source, preparation), diagnostic)


def _prepare(source: SurfaceSource, prep: SurfacePreparation) -> Outcome:
    if not isinstance(source, SurfaceSource) or not isinstance(prep, SurfacePreparation):
        raise TypeError("try_prepare_surface(SurfaceSource, SurfacePreparation)")
    for check in (validate_tolerance(prep.tolerance), validate_limits(prep.limits)):
        if not check.ok:
            return check
    tol, limits = prep.tolerance, prep.limits
    if not is_int(source.revision) or source.revision < 0:
        return failure(GeometryStatus.InvalidArgument, "revision must be a nonnegative int", field="revision")
    origin = _finite_array(prep.origin, (3,))
    if origin is None:
        return failure(GeometryStatus.InvalidArgument, "origin must be three finite float64 values",
                       field="origin")
    patches = list(source.patches)
    joins = list(source.adjacency)
    n = len(patches)
    if n == 0:
        return failure(GeometryStatus.InvalidArgument, "a surface needs at least one patch", field="patches")
    if n > limits.max_spans:
        return failure(GeometryStatus.BudgetExceeded, f"{n} patches exceed max_spans = {limits.max_spans}",
                       field="max_spans", value=float(n))
    size = prepared_bytes(n)
    if size > limits.max_prepared_bytes:
        return failure(GeometryStatus.BudgetExceeded,
                       f"{size} prepared bytes exceed max_prepared_bytes = {limits.max_prepared_bytes}",
                       field="max_prepared_bytes", value=float(size))
    src = np.empty((n, 4, 4, 3), dtype=np.float64)
    ids = []
    for i, p in enumerate(patches):
        if not isinstance(p, SurfacePatchSource):
            raise TypeError(f"patches[{i}] is {type(p).__name__}, not SurfacePatchSource")
        if not is_int(p.id) or not 0 <= p.id <= MAX_PATCH_ID:
            return failure(GeometryStatus.InvalidArgument,
                           f"patch {i}: id {p.id!r} must be an int in [0, 2**64 - 1]", field="id", index=i)
        c = _finite_array(p.control, (4, 4, 3))
        if c is None:
            return failure(GeometryStatus.InvalidArgument,
                           f"patch {i}: control must be a finite (4, 4, 3) float64 array",
                           field="control", index=i)
        src[i] = c
        ids.append(int(p.id))
    parsed = []
    for j, a in enumerate(joins):
        if not isinstance(a, SurfaceAdjacencySource):
            raise TypeError(f"adjacency[{j}] is {type(a).__name__}, not SurfaceAdjacencySource")
        for name in ("first_patch", "second_patch"):
            if not is_int(getattr(a, name)):
                return failure(GeometryStatus.InvalidArgument, f"join {j}: {name} must be an int",
                               field=name, index=j)
        fs, ss = _side(a.first_side), _side(a.second_side)
        for name, s in (("first_side", fs), ("second_side", ss)):
            if s is None:
                return failure(GeometryStatus.InvalidArgument,
                               f"join {j}: {name} {getattr(a, name)!r} is not a side (U0, U1, V0, V1)",
                               field=name, index=j)
        if not isinstance(a.is_reversed, (bool, np.bool_)):
            return failure(GeometryStatus.InvalidArgument, f"join {j}: is_reversed must be a bool",
                           field="is_reversed", index=j)
        parsed.append((int(a.first_patch), fs, int(a.second_patch), ss, bool(a.is_reversed)))

    chunk = narrow_to_chunk(src, origin, tol, "patch")
    if not chunk.ok:
        return chunk
    narrowed = chunk.value.controls

    topo = _build_topology(narrowed, ids, parsed, tol)
    if not topo.ok:
        return topo
    edges, corners, patch_edges, patch_corners = topo.value
    view = SurfaceView(
        controls=readonly(narrowed),
        patch_ids=tuple(ids),
        origin=readonly(origin),
        revision=int(source.revision),
        patch_count=n,
        tolerance=tol,
        limits=limits,
        max_magnitude=chunk.value.max_magnitude,
        narrowing_error=chunk.value.narrowing_error,
        position_floor=chunk.value.position_floor,
        edges=edges,
        corners=corners,
        patch_edges=readonly(patch_edges),
        patch_corners=readonly(patch_corners),
        edge_index=MappingProxyType({e.id: k for k, e in enumerate(edges)}),
    )
    return success(PreparedSurface(view))


def _topology_failure(rule: str, message: str, index: int) -> Outcome:
    return failure(GeometryStatus.InvalidTopology, f"{message} (rule: {rule})", field=rule, index=index)


def _build_topology(C: np.ndarray, ids: list, joins: list, tol: ToleranceProfile) -> Outcome:
    n = C.shape[0]
    first_of = {}
    for i, pid in enumerate(ids):
        if pid in first_of:
            return _topology_failure("duplicate_patch_id",
                                     f"patches {first_of[pid]} and {i} share the id {pid}", i)
        first_of[pid] = i
    joined = {}  # (patch, side) -> join index
    partner = {}  # (patch, side) -> ((patch, side), is_reversed)
    for j, (pa, sa, pb, sb, rev) in enumerate(joins):
        for p in (pa, pb):
            if not 0 <= p < n:
                return _topology_failure("unknown_patch_index",
                                         f"join {j} names patch index {p}; the source has {n} patches", j)
        A, B = (pa, sa), (pb, sb)
        if A == B:
            return _topology_failure("side_joined_to_itself",
                                     f"join {j} joins side {sa.name} of patch {pa} to itself", j)
        for X in (A, B):
            if X in joined:
                return _topology_failure("third_incidence",
                                         f"join {j}: side {X[1].name} of patch {X[0]} is already joined by "
                                         f"join {joined[X]}; an edge has at most two incidences", j)
        ca = side_curve(C[pa], sa)
        cb = side_curve(C[pb], sb)
        if rev:
            cb = cb[::-1]
        if not (np.all(ca[0] == cb[0]) and np.all(ca[3] == cb[3])):
            return _topology_failure("partial_join",
                                     f"join {j}: side {sa.name} of patch {pa} and side {sb.name} of patch {pb} "
                                     f"{'(reversed) ' if rev else ''}do not span the same two corners", j)
        if not np.all(ca == cb):
            return _topology_failure("mismatched_curve",
                                     f"join {j}: side {sa.name} of patch {pa} and side {sb.name} of patch {pb} "
                                     f"{'(reversed) ' if rev else ''}have different narrowed control curves", j)
        joined[A] = joined[B] = j
        partner[A] = (B, rev)
        partner[B] = (A, rev)

    # Edges: one per side of every patch, a join's two sides sharing one.
    key = lambda ps: (ids[ps[0]], _SIDE_RANK[ps[1]])
    built = []
    for p in range(n):
        for s in SIDES:
            X = (p, s)
            other = partner.get(X)
            if other is not None and key(other[0]) < key(X):
                continue  # the owner (the smaller incidence) builds the shared edge
            built.append(_edge(C, ids, X, other, tol))
    built.sort(key=lambda e: e.id)
    patch_edges = np.empty((n, 4), dtype=np.int64)
    for k, e in enumerate(built):
        for inc in e.incidences:
            patch_edges[inc.patch, _SIDE_RANK[inc.side]] = k

    # Corners: union of patch corners through the joins' end correspondences.
    parent = list(range(4 * n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for (pa, sa), ((pb, sb), rev) in partner.items():
        ea, eb = SIDE_ENDS[sa], SIDE_ENDS[sb]
        if rev:
            eb = eb[::-1]
        for ca, cb in zip(ea, eb):
            ra, rb = find(4 * pa + _CORNER_RANK[ca]), find(4 * pb + _CORNER_RANK[cb])
            if ra != rb:
                parent[ra] = rb
    groups: dict = {}
    for x in range(4 * n):
        groups.setdefault(find(x), []).append(x)
    corners = []
    for members in groups.values():
        incs = sorted((CornerIncidence(x // 4, ids[x // 4], CORNERS[x % 4]) for x in members),
                      key=lambda c: (c.patch_id, _CORNER_RANK[c.corner]))
        first = incs[0]
        iu, iv = _CORNER_UV[first.corner]
        corners.append(SurfaceCorner(SurfaceCornerId.of(first.patch_id, first.corner),
                                     readonly(C[first.patch, iu, iv]), tuple(incs)))
    corners.sort(key=lambda c: c.id)
    patch_corners = np.empty((n, 4), dtype=np.int64)
    for k, c in enumerate(corners):
        for inc in c.incidences:
            patch_corners[inc.patch, _CORNER_RANK[inc.corner]] = k
    return success((tuple(built), tuple(corners), patch_edges, patch_corners))


def _edge(C, ids, X, other, tol) -> SurfaceEdge:
    p, s = X
    owner = EdgeIncidence(p, ids[p], s, False)
    curve = readonly(side_curve(C[p], s))
    eid = SurfaceEdgeId.of(ids[p], s)
    if other is None:
        return SurfaceEdge(eid, curve, (owner,), None, None, None, None)
    (q, t), rev = other
    second = EdgeIncidence(q, ids[q], t, rev)
    consistent = _CCW[s] * _CCW[t] * (-1 if rev else 1) == -1
    da = cross_boundary_controls(C[p], s)
    db = cross_boundary_controls(C[q], t)
    dbm = db[::-1] if rev else db
    diff = float(np.max(np.linalg.norm(da + dbm, axis=1)))
    scale = float(max(np.max(np.linalg.norm(da, axis=1)), np.max(np.linalg.norm(db, axis=1))))
    is_c1 = bool(diff <= tol.continuity_derivative * scale)
    return SurfaceEdge(eid, curve, (owner, second), bool(consistent), diff, scale, is_c1)


# --- Edge parameters -------------------------------------------------------------------------


@dataclass(frozen=True)
class EdgeParameter:
    """A canonical edge parameter mapped onto one incident patch (Exact when ``1 - s`` is
    exact, which holds for every multiple of 2**-53 in [0, 1], dyadic grids included)."""

    patch: int
    patch_id: int
    side: PatchSide
    u: float
    v: float


def _is_nan(x) -> bool:
    """``math.isnan`` of a real, False for an int: ``math.isnan`` raises ``OverflowError`` on an
    int beyond the float range, which is a real outside [0, 1] (InvalidDomain, as inf is)."""
    return not isinstance(x, (int, np.integer)) and math.isnan(x)


def _uv_on_side(side: PatchSide, s: float) -> tuple[float, float]:
    if side is PatchSide.U0:
        return 0.0, s
    if side is PatchSide.U1:
        return 1.0, s
    if side is PatchSide.V0:
        return s, 0.0
    return s, 1.0


def try_map_edge_parameter(view: SurfaceView, edge_id: SurfaceEdgeId, s: float) -> Outcome:
    """``TryMapEdgeParameter``: the canonical edge parameter ``s`` as each incident patch's
    ``(u, v)``, owner first (``Outcome(tuple[EdgeParameter, ...])``).

    A reversed incidence takes ``fl64(1 - s)``. An unknown edge id or a non-real or NaN ``s``
    is InvalidArgument; ``s`` outside [0, 1] is InvalidDomain.
    """
    k = view.edge_index.get(edge_id) if isinstance(edge_id, SurfaceEdgeId) else None
    if k is None:
        return failure(GeometryStatus.InvalidArgument, f"{edge_id!r} is not an edge of this surface",
                       field="edge_id")
    if not is_real(s) or _is_nan(s):
        return failure(GeometryStatus.InvalidArgument, "s must be a real number", field="s")
    if not 0.0 <= s <= 1.0:
        return failure(GeometryStatus.InvalidDomain, f"s = {s!r} is outside [0, 1]", field="s")
    s = float(s)
    out = []
    for inc in view.edges[k].incidences:
        t = 1.0 - s if inc.is_reversed else s
        u, v = _uv_on_side(inc.side, t)
        out.append(EdgeParameter(inc.patch, inc.patch_id, inc.side, u, v))
    return success(tuple(out))


def try_evaluate_edge(view: SurfaceView, edge_id: SurfaceEdgeId, s: float) -> Outcome:
    """The chunk-relative point of an edge's canonical control curve at its parameter ``s``:
    ``kernel.cubic_point`` of ``SurfaceEdge.curve`` in float64. Rounded (the path's
    ``error_model.position_bound`` of the curve's E).

    Shared positions along an edge are evaluated here, once, on the owner's curve, so every
    incident patch can copy them bitwise (the tessellation's crack-free rule); a patch's own
    ``try_evaluate_surface`` on its side may differ by rounding. An unknown edge id or a
    non-real ``s`` is InvalidArgument; ``s`` outside [0, 1] is InvalidDomain.
    """
    k = view.edge_index.get(edge_id) if isinstance(edge_id, SurfaceEdgeId) else None
    if k is None:
        return failure(GeometryStatus.InvalidArgument, f"{edge_id!r} is not an edge of this surface",
                       field="edge_id")
    if not is_real(s) or _is_nan(s):
        return failure(GeometryStatus.InvalidArgument, "s must be a real number", field="s")
    if not 0.0 <= s <= 1.0:
        return failure(GeometryStatus.InvalidDomain, f"s = {s!r} is outside [0, 1]", field="s")
    return success(K.cubic_point(F64, view.edges[k].curve.astype(np.float64), np.float64(s)))


# --- Evaluation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurfaceSample:
    """A chunk-relative position and all partials per normalized u and v (float64 (3,) each).
    Rounded (:func:`evaluation_bounds`)."""

    position: np.ndarray
    du: np.ndarray
    dv: np.ndarray
    duu: np.ndarray
    duv: np.ndarray
    dvv: np.ndarray


def _check_point(view: SurfaceView, patch, u, v) -> Outcome | None:
    if not is_int(patch) or not 0 <= patch < view.patch_count:
        return failure(GeometryStatus.InvalidArgument,
                       f"patch index {patch!r} out of range [0, {view.patch_count})", field="patch")
    for name, x in (("u", u), ("v", v)):
        if not is_real(x) or _is_nan(x):
            return failure(GeometryStatus.InvalidArgument, f"{name} must be a real number", field=name)
        if not 0.0 <= x <= 1.0:
            return failure(GeometryStatus.InvalidDomain, f"{name} = {x!r} is outside [0, 1]", field=name,
                           index=int(patch))
    return None


def try_evaluate_surface(view: SurfaceView, patch: int, u: float, v: float, partials: bool = False) -> Outcome:
    """``TryEvaluateSurface``: the chunk-relative position of patch index ``patch`` at ``(u, v)``,
    or a :class:`SurfaceSample` with all partials per normalized u and v. Rounded
    (:func:`evaluation_bounds`: ``SURFACE_K u M E`` per component).

    Evaluated in float64 on the float32 controls (widened exactly). A bad patch index or a
    non-real parameter is InvalidArgument; a parameter outside [0, 1] is InvalidDomain.
    """
    bad = _check_point(view, patch, u, v)
    if bad is not None:
        return bad
    C = view.controls[patch].astype(np.float64)
    uu, vv = np.float64(u), np.float64(v)
    if not partials:
        return success(K.bicubic_point(F64, C, uu, vv))
    return success(SurfaceSample(*K.bicubic_partials(F64, C, uu, vv)))


# Per-sample normal status codes of try_sample_surface_normals.
NORMAL_OK = 0
NORMAL_DEGENERATE = 1
NORMAL_ILL_CONDITIONED = 2
_NORMAL_STATUS = (GeometryStatus.Success, GeometryStatus.Degenerate, GeometryStatus.IllConditioned)


def _normal_decision(su, sv, n, dmin: float, smin: float):
    """(code, unit normal, lengths) from computed partials, vectorised over leading axes."""
    lu = np.linalg.norm(su, axis=-1)
    lv = np.linalg.norm(sv, axis=-1)
    lx = np.linalg.norm(n, axis=-1)
    degenerate = (lu == 0) | (lv == 0) | (lx == 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sin = lx / (lu * lv)
        unit = n / lx[..., None]
    ill = ~degenerate & ((lu <= dmin) | (lv <= dmin) | ~(sin > smin))
    code = np.where(degenerate, NORMAL_DEGENERATE, np.where(ill, NORMAL_ILL_CONDITIONED, NORMAL_OK))
    unit = np.where((code == NORMAL_OK)[..., None], unit, 0.0)
    return code, unit, (lu, lv, lx, sin)


def try_evaluate_surface_normal(view: SurfaceView, patch: int, u: float, v: float) -> Outcome:
    """``TryEvaluateSurfaceNormal``: the unit normal ``N / |N|``, ``N = Su x Sv``. Rounded
    (:func:`normal_bound`).

    ``Degenerate`` where a computed partial or ``N`` is exactly zero (zero or parallel
    partials); ``IllConditioned`` where ``|Su|`` or ``|Sv|`` is at or below the surface's
    ``normal_min_derivative_length`` or the computed ``|N| / (|Su| |Sv|)`` is at or below its
    ``normal_min_sin_angle``. The position there remains valid (``try_evaluate_surface``).
    The decisions are threshold decisions on Rounded values (docs/decisions.md, "Surfaces:
    the normal decision band").
    """
    bad = _check_point(view, patch, u, v)
    if bad is not None:
        return bad
    C = view.controls[patch].astype(np.float64)
    su, sv, n = K.bicubic_normal_vector(F64, C, np.float64(u), np.float64(v))
    tol = view.tolerance
    code, unit, (lu, lv, lx, sin) = _normal_decision(su, sv, n, tol.normal_min_derivative_length,
                                                     tol.normal_min_sin_angle)
    code = int(code)
    if code == NORMAL_DEGENERATE:
        return failure(GeometryStatus.Degenerate,
                       f"patch {patch} at (u, v) = ({u!r}, {v!r}): |Su| = {float(lu)!r}, |Sv| = {float(lv)!r}, "
                       f"|Su x Sv| = {float(lx)!r}: zero or parallel partials", index=int(patch),
                       value=float(lx))
    if code == NORMAL_ILL_CONDITIONED:
        return failure(GeometryStatus.IllConditioned,
                       f"patch {patch} at (u, v) = ({u!r}, {v!r}): |Su| = {float(lu)!r}, |Sv| = {float(lv)!r}, "
                       f"sin = {float(sin)!r} at or below normal_min_derivative_length = "
                       f"{tol.normal_min_derivative_length!r} / normal_min_sin_angle = {tol.normal_min_sin_angle!r}",
                       index=int(patch), value=float(sin))
    return success(unit)


def _check_batch(view, patches, us, vs, outs, required):
    ps, us, vs = np.asarray(patches), np.asarray(us), np.asarray(vs)
    if ps.ndim != 1 or us.shape != ps.shape or vs.shape != ps.shape:
        return failure(GeometryStatus.InvalidArgument, "patches, us and vs must be 1-D of equal length",
                       field="us"), None
    if ps.size and (not np.issubdtype(ps.dtype, np.integer)):
        return failure(GeometryStatus.InvalidArgument, "patches must be integers", field="patches"), None
    for name, a in (("us", us), ("vs", vs)):
        if a.size and not np.issubdtype(a.dtype, np.floating):
            return failure(GeometryStatus.InvalidArgument, f"{name} must be floats", field=name), None
    m = ps.shape[0]
    for name, out, shape_ok in outs:
        if out is None:
            if name in required:
                return failure(GeometryStatus.InvalidArgument, f"{name} is required", field=name), None
            continue
        if not shape_ok(out):
            return failure(GeometryStatus.InvalidArgument, f"{name} has the wrong type, dtype or shape",
                           field=name), None
        if out.shape[0] < m:
            return failure(GeometryStatus.CapacityExceeded,
                           f"{name} holds {out.shape[0]} rows, {m} parameters need more", field=name,
                           value=float(m)), None
    clash = overlap_failure([(name, out) for name, out, _ in outs], (("patches", ps), ("us", us), ("vs", vs)))
    if clash is not None:
        return clash, None
    bad = (ps < 0) | (ps >= view.patch_count)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        return failure(GeometryStatus.InvalidArgument, f"parameter {i}: patch index {int(ps[i])} out of range",
                       field="patches", index=i), None
    for name, a in (("us", us), ("vs", vs)):
        nan = np.isnan(a)
        if np.any(nan):
            i = int(np.flatnonzero(nan)[0])
            return failure(GeometryStatus.InvalidArgument, f"parameter {i}: {name} is NaN", field=name,
                           index=i), None
        out_of = ~((a >= 0.0) & (a <= 1.0))
        if np.any(out_of):
            i = int(np.flatnonzero(out_of)[0])
            return failure(GeometryStatus.InvalidDomain, f"parameter {i}: {name} = {float(a[i])!r} is outside [0, 1]",
                           field=name, index=i), None
    return None, (ps.astype(np.intp), us.astype(np.float64), vs.astype(np.float64), m)


def _vec_out(out) -> bool:
    return isinstance(out, np.ndarray) and out.dtype == np.float64 and out.ndim == 2 \
        and out.shape[1] == 3 and out.flags.writeable


def try_sample_surface(view: SurfaceView, patches, us, vs, out_positions, out_du=None, out_dv=None,
                       out_duu=None, out_duv=None, out_dvv=None) -> Outcome:
    """Vectorised evaluation into caller-owned float64 arrays (cap, 3). Rounded, as
    :func:`try_evaluate_surface` (bit for bit the same values).

    Every precondition is checked before the first write: 1-D ``patches`` (ints), ``us`` and
    ``vs`` (floats) of equal length m; writeable float64 (cap, 3) outputs (InvalidArgument)
    with ``cap >= m`` (CapacityExceeded); patch indices in range and parameters not NaN
    (InvalidArgument) and in [0, 1] (InvalidDomain). On failure every output is bit-for-bit
    unchanged. Rows ``[0, m)`` are written. Returns ``Outcome(m)``.
    """
    outs = [(name, o, _vec_out) for name, o in (("out_positions", out_positions), ("out_du", out_du),
                                                 ("out_dv", out_dv), ("out_duu", out_duu),
                                                 ("out_duv", out_duv), ("out_dvv", out_dvv))]
    bad, parsed = _check_batch(view, patches, us, vs, outs, {"out_positions"})
    if bad is not None:
        return bad
    ps, u, v, m = parsed
    C = view.controls[ps].astype(np.float64)
    vals = K.bicubic_partials(F64, C, u, v)
    for (name, out, _), val in zip(outs, vals):
        if out is not None:
            out[:m] = val
    return success(m)


def try_sample_surface_normals(view: SurfaceView, patches, us, vs, out_normals, out_status) -> Outcome:
    """Vectorised :func:`try_evaluate_surface_normal` into caller-owned arrays: unit normals
    (cap, 3) float64 and per-sample status codes (cap,) uint8 (``NORMAL_OK``,
    ``NORMAL_DEGENERATE``, ``NORMAL_ILL_CONDITIONED``); a sample that is not OK gets a zero
    normal (spec: a Report mesh emits a zero normal with its status). Rounded.

    Preconditions as :func:`try_sample_surface` (``out_status`` a writeable uint8 1-D array);
    on failure nothing is written. Returns ``Outcome(m)``.
    """
    outs = [("out_normals", out_normals, _vec_out),
            ("out_status", out_status, lambda o: isinstance(o, np.ndarray) and o.dtype == np.uint8
             and o.ndim == 1 and o.flags.writeable)]
    bad, parsed = _check_batch(view, patches, us, vs, outs, {"out_normals", "out_status"})
    if bad is not None:
        return bad
    ps, u, v, m = parsed
    C = view.controls[ps].astype(np.float64)
    su, sv, n = K.bicubic_normal_vector(F64, C, u, v)
    tol = view.tolerance
    code, unit, _ = _normal_decision(su, sv, n, tol.normal_min_derivative_length, tol.normal_min_sin_angle)
    out_normals[:m] = unit
    out_status[:m] = code
    return success(m)


def normal_status(code: int) -> GeometryStatus:
    """The GeometryStatus of a per-sample normal status code."""
    return _NORMAL_STATUS[code]


# --- Error models ----------------------------------------------------------------------------

# The rounding count of the surface models: twice the path kernels' K = 16, because a bicubic
# value is a cubic of cubics (the second evaluation adds its own roundings to the first's).
SURFACE_K = 32.0

# A-priori magnitude factors M of (S, Su, Sv, Suu, Suv, Svv) per component, times E (the
# largest control magnitude of the patch): |S| <= E (convex combination), a first partial is
# 3 times a combination of control differences (<= 6E), Suu and Svv 6 times second differences
# (<= 24E), Suv 9 times twisted differences (<= 36E).
PARTIAL_MAGNITUDES = (1.0, 6.0, 6.0, 24.0, 36.0, 24.0)


def evaluation_bounds(E: float, u: float = U64, eta: float = 2.0**-1074) -> list[float]:
    """Per-component bounds of ``(S, Su, Sv, Suu, Suv, Svv)`` evaluated by
    ``kernel.bicubic_partials`` on float32 controls of largest magnitude ``E`` in a format of
    unit roundoff ``u`` (subnormal step ``eta``): ``SURFACE_K (u M E + eta)``.

    Analysis (float64, gamma_k ~ k u): the rows ``q = B(v)`` carry at most ``9 u E`` (the path's
    position analysis), ``qv = B'(v)`` ``48 u E``, ``qvv`` ``144 u E``. The second cubic
    evaluation adds its own roundings relative to its controls' magnitudes and passes the rows'
    errors on with weight 1 (B), 6 (B'), 24 (B''): S about ``18 u E``, Su ``102 u E``, Sv
    ``102 u E``, Suu ``360 u E``, Suv ``576 u E``, Svv ``360 u E``, each at most half of
    ``32 u M E``. Underflowing products add at most ``eta`` each to a handful of terms, within
    ``32 eta``.
    """
    return [float(up(SURFACE_K * u * m * E + SURFACE_K * eta)) for m in PARTIAL_MAGNITUDES]


def decision_errors(E: float, u: float = U64, eta: float = 2.0**-1074) -> tuple[float, float]:
    """``(e_len, e_cross)``: bounds of the errors of the computed ``|Su|`` (or ``|Sv|``) and of the
    computed ``|Su x Sv|``, the quantities the normal's decisions compare with thresholds.

    With ``e1 = sqrt(3) * evaluation_bounds(E)[1]`` (Euclidean error of a first partial) and
    ``M1 = sqrt(3) * 6 E`` (Euclidean magnitude bound of a first partial): a length adds its own
    three roundings, ``e_len = e1 + 4 u M1 + sqrt(2 eta)``; the cross product is off by at most
    ``eN = 2 e1 M1 + e1^2 + 11 u M1^2 + 16 eta`` (the partials' errors, then two products and a
    difference per component), and its length adds ``4 u M1^2 + sqrt(2 eta)``.
    """
    e1 = float(mul_hi(math.sqrt(3.0) * (1 + 2 * U64), evaluation_bounds(E, u, eta)[1]))
    M1 = float(mul_hi(math.sqrt(3.0) * 6.0 * (1 + 2 * U64), E))
    root = math.sqrt(2.0 * eta) * (1 + 2 * U64)
    e_len = float(up((e1 + 4.0 * u * M1 + root) * (1 + 4 * U64)))
    eN = _cross_error(e1, M1, u, eta)
    e_cross = float(up((eN + 4.0 * u * M1 * M1 + root) * (1 + 4 * U64)))
    return e_len, e_cross


def _cross_error(e1: float, M1: float, u: float, eta: float) -> float:
    return float(up((2.0 * e1 * M1 + e1 * e1 + 11.0 * u * M1 * M1 + 16.0 * eta) * (1 + 8 * U64)))


def normal_bound(E: float, cross_length: float, u: float = U64, eta: float = 2.0**-1074) -> float:
    """Euclidean bound of the computed unit normal's error, given a lower bound
    ``cross_length`` of the exact ``|Su x Sv|``.

    The computed cross product is off by at most ``eN`` (:func:`decision_errors`); normalizing
    moves the direction by at most ``2 eN / (L - eN)`` and adds ``SURFACE_K u`` for the norm
    and the division. Returns 2 (every unit-vector difference is at most 2) where
    ``L <= eN``: no direction is certain there.
    """
    e1 = float(mul_hi(math.sqrt(3.0) * (1 + 2 * U64), evaluation_bounds(E, u, eta)[1]))
    M1 = float(mul_hi(math.sqrt(3.0) * 6.0 * (1 + 2 * U64), E))
    eN = _cross_error(e1, M1, u, eta)
    denom = cross_length - eN
    if not denom > 0:
        return 2.0
    return float(min(2.0, up(2.0 * eN / (denom * (1 - 4 * U64)) + SURFACE_K * u)))


def edge_value_bound(E: float, u: float = U64, eta: float = 2.0**-1074) -> float:
    """Bound of the computed ``cross_derivative_difference`` and ``cross_derivative_scale`` of a
    shared edge, E the largest magnitude of the four control rows involved (the two sides and
    the rows inward of them).

    Each control ``3 (b - i)`` errs by at most ``12 u E`` per component (the difference of two
    float32 values in float64 rounds at most once, the factor 3 once), the sum of two by
    ``36 u E``, and a Euclidean norm of magnitude at most ``12 sqrt(3) E`` adds three roundings:
    about ``124 u E`` in all, within ``SURFACE_K u 21 E``. Underflow: ``SURFACE_K eta`` for the
    products and ``sqrt(2 eta)`` for squares below the normal range.
    """
    return float(add_hi(up(SURFACE_K * u * 21.0 * E + SURFACE_K * eta), math.sqrt(2.0 * eta) * (1 + 2 * U64)))
