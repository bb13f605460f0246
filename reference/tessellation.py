"""Crack-free surface meshes (``tessellation.hpp``): ``SurfaceMeshProfile``,
``try_build_surface_mesh``, ``SurfaceMesh``, ``SurfaceMeshView``, ``SurfaceMeshReport``.

Every patch of a prepared surface becomes a dyadic grid of ``2**level_u x 2**level_v`` cells;
each cell becomes two triangles along its ``(u0, v0)-(u1, v1)`` diagonal, counterclockwise in
(u, v): ``(v00, v10, v11)`` then ``(v00, v11, v01)``.

The cell bound (Certified, outward rounded with ``reference.fp``) adds the spec's three terms:

1. the largest Euclidean distance between the cell's subpatch controls ``D_ij`` and the
   degree-elevated bilinear interpolant of its corners, ``L_ij = bilinear(D00, D30, D03, D33)``
   at ``(i/3, j/3)``: the subpatch minus the bilinear patch is ``sum B_i B_j (D_ij - L_ij)``,
   a convex combination;
2. the twisted bilinear quad's distance to its two triangles, ``|D00 - D30 - D03 + D33| / 4``:
   on the triangle ``s >= t`` the bilinear patch minus the linear interpolant is
   ``-t (1 - s) W``, at most ``|W| / 4`` (and symmetrically on ``t >= s``);
3. the rounding error of the emitted vertices: the triangles of the emitted float32 vertices
   differ from those of the exact corners by a convex combination of the vertex errors.

So ``position_bound`` bounds the parametric distance between the prepared float32 patch and
the mesh, a point ``(u, v)`` of a cell being compared with the point of the same (u, v) on its
triangle. The float64 arithmetic of terms 1 and 2 (the subpatch controls come from
``kernel.cubic_subsegment`` in u, then in v) is covered by :func:`subpatch_error_bound`.

Refinement, shared positions, statuses, limits and the order of checks: docs/decisions.md,
"Surface meshes: ...". Guarantees: cell and mesh position bounds Certified; corner positions
Exact; other positions and normals Rounded (the surface's models); the normal-angle estimate
Estimated.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from . import kernel as K
from .context import F64
from .error_model import position_bound as curve_position_bound
from .fp import U64, add_hi, hypot_hi, mul_hi, ulp32, up
from .owner import readonly
from .status import GeometryStatus, Outcome, failure, is_finite_real, is_int, reported, success
from .surface import (
    CORNERS,
    NORMAL_OK,
    SIDES,
    PatchCorner,
    PatchSide,
    SurfaceView,
    evaluation_bounds,
    try_sample_surface_normals,
)

__all__ = [
    "CLEAR_FACTOR",
    "LIMIT_RANGES",
    "MAX_VERTEX_COUNT",
    "PATCH_BYTES",
    "POSITION_BYTES",
    "SUBPATCH_K",
    "TRIANGLE_BYTES",
    "VERTEX_BYTES",
    "PrecisionProfile",
    "SurfaceDegeneracyPolicy",
    "SurfaceMesh",
    "SurfaceMeshLimits",
    "SurfaceMeshPatch",
    "SurfaceMeshProfile",
    "SurfaceMeshReport",
    "SurfaceMeshView",
    "cell_bounds",
    "cell_normal_angles",
    "check_counts",
    "mesh_counts",
    "subpatch_error_bound",
    "try_build_surface_mesh",
]


class PrecisionProfile(enum.Enum):
    """Strict accepts only Certified position bounds; Visual may also ask for an Estimated
    normal angle and may accept a coarser mesh."""

    Strict = "Strict"
    Visual = "Visual"


class SurfaceDegeneracyPolicy(enum.Enum):
    """Reject fails on a singular vertex normal or a triangle with two equal positions; Report
    emits a zero normal with its status and counts both."""

    Reject = "Reject"
    Report = "Report"


@dataclass(frozen=True)
class SurfaceMeshLimits:
    """Mesh limits, all required (no defaults; a zero limit allows no work).

    Attributes:
        max_level: largest level per direction, in [0, 24] (grid parameters ``k / 2**level``
            are then exact in float32).
        max_cell_tests: cell bounds the refinement may evaluate, in [0, 2**40].
        max_vertices, max_triangles: output counts, in [0, 2**40].
        max_output_bytes: output size (:func:`mesh_counts`), in [0, 2**48].
    """

    max_level: int
    max_cell_tests: int
    max_vertices: int
    max_triangles: int
    max_output_bytes: int


LIMIT_RANGES = {"max_level": (0, 24), "max_cell_tests": (0, 2**40), "max_vertices": (0, 2**40),
                "max_triangles": (0, 2**40), "max_output_bytes": (0, 2**48)}


@dataclass(frozen=True)
class SurfaceMeshProfile:
    """``SurfaceMeshProfile``; every field is required.

    Attributes:
        precision: :class:`PrecisionProfile`.
        position_error: the Certified position bound each cell must meet, in [0, 1e6] asset
            units, and at least the surface's position floor.
        normal_angle_error: radians in [0, pi]; nonzero only with Visual (an Estimated target).
        is_coarser_mesh_accepted: Visual only: a patch stopped by ``max_level`` keeps its finest
            grid and the report says ``is_within_position_error = False``.
        degeneracy: :class:`SurfaceDegeneracyPolicy`.
        limits: :class:`SurfaceMeshLimits`.
    """

    precision: PrecisionProfile
    position_error: float
    normal_angle_error: float
    is_coarser_mesh_accepted: bool
    degeneracy: SurfaceDegeneracyPolicy
    limits: SurfaceMeshLimits


@dataclass(frozen=True)
class SurfaceMeshPatch:
    """``SurfaceMeshPatch``: one patch's grid and bound.

    Attributes:
        patch: the patch index; ``patch_id`` its author id.
        level_u, level_v: the grid has ``2**level_u x 2**level_v`` cells.
        position_bound: the largest cell bound of the patch (Certified).
        is_within_position_error: ``position_bound <= position_error``.
        first_vertex, vertex_count, first_triangle, triangle_count: its ranges of the mesh's
            vertices (``(2**level_u + 1) (2**level_v + 1)``, index ``a (2**level_v + 1) + b`` for
            grid point ``(a, b)``) and triangles (cell ``(a, b)`` at ``2 (a 2**level_v + b)``).
    """

    patch: int
    patch_id: int
    level_u: int
    level_v: int
    position_bound: float
    is_within_position_error: bool
    first_vertex: int
    vertex_count: int
    first_triangle: int
    triangle_count: int


@dataclass(frozen=True)
class SurfaceMeshReport:
    """``SurfaceMeshReport``.

    Attributes:
        patches: one :class:`SurfaceMeshPatch` per patch, in patch order.
        position_bound: the largest patch bound (Certified).
        is_within_position_error: every patch within the profile's position error.
        normal_angle_estimate: radians (Estimated), or None unless Visual asked for a normal
            angle: the largest angle between a triangle's face normal and the analytic normals
            at its three corners and its cell's centre, singular samples skipped.
        singular_normal_count: vertices whose normal is Degenerate or IllConditioned (Report).
        degenerate_triangle_count: triangles with two equal positions (Report).
        cell_tests: cell bounds the refinement evaluated.
    """

    patches: tuple
    position_bound: float
    is_within_position_error: bool
    normal_angle_estimate: float | None
    singular_normal_count: int
    degenerate_triangle_count: int
    cell_tests: int


@dataclass(frozen=True)
class SurfaceMeshView:
    """``SurfaceMeshView``: read-only arrays of a built mesh.

    Attributes:
        positions: (m, 3) float32 shared positions, chunk-relative: every corner record first
            (``SurfaceView.corners`` order), then each edge's interior samples (edge order,
            canonical parameter ascending), then each patch's interior grid points (patch
            order, ``a`` then ``b``).
        vertex_positions: (n, 3) float32, a bitwise copy of ``positions[vertex_position_index]``.
        vertex_position_index: (n,) uint32 ``PositionIndex`` of each vertex.
        vertex_normals: (n, 3) float32 unit normals of the vertex's own patch (zero where
            singular). Rounded.
        vertex_parameters: (n, 2) float32 (u, v) on the vertex's own patch (exact dyadics).
        vertex_patch: (n,) uint32 patch index of each vertex.
        vertex_status: (n,) uint8 normal status (``reference.surface.NORMAL_*``).
        indices: (t, 3) uint32 vertex indices of the triangles.
        report: :class:`SurfaceMeshReport`.
    """

    positions: np.ndarray
    vertex_positions: np.ndarray
    vertex_position_index: np.ndarray
    vertex_normals: np.ndarray
    vertex_parameters: np.ndarray
    vertex_patch: np.ndarray
    vertex_status: np.ndarray
    indices: np.ndarray
    report: SurfaceMeshReport

    def position_triangles(self) -> np.ndarray:
        """(t, 3) position indices of the triangles (the crack-free index buffer)."""
        return self.vertex_position_index[self.indices]


class SurfaceMesh:
    """``SurfaceMesh``: a move-only owner. Empty until a build succeeds; a successful build
    moves its complete staging mesh in, a failed one leaves it as it was."""

    __slots__ = ("_view",)

    def __init__(self):
        self._view = None

    def view(self) -> SurfaceMeshView | None:
        """The current :class:`SurfaceMeshView`, or None for an empty mesh."""
        return self._view

    def _move_from(self, staging: SurfaceMesh) -> None:
        self._view, staging._view = staging._view, None


# --- Constants -------------------------------------------------------------------------------

MAX_VERTEX_COUNT = 2**32  # 32-bit vertex indices: more is OutOfRange
# "Clearly smaller": a direction wins when its normalized bound is below CLEAR_FACTOR times the
# other's; otherwise it is a near-tie (coarser direction, then u).
CLEAR_FACTOR = 0.875
# Output bytes (mesh_counts): a position is 3 float32; a vertex a copy of its position, a
# uint32 index, 3 float32 normal, 2 float32 parameter, a status byte padded to 4; a triangle 3
# uint32; a patch record 48.
POSITION_BYTES, VERTEX_BYTES, TRIANGLE_BYTES, PATCH_BYTES = 12, 40, 12, 48
# Rounding count of the subpatch controls (two cubic_subsegment passes, each below 9 u E (1 + 4u)).
SUBPATCH_K = 32.0
_ETA64 = 2.0**-1074
_SIDE_RANK = {s: k for k, s in enumerate(SIDES)}
_CORNER_RANK = {c: k for k, c in enumerate(CORNERS)}


def subpatch_error_bound(E: float) -> float:
    """Per-component bound of ``|computed - exact|`` for the cell subpatch controls of a patch
    whose controls have largest magnitude ``E``, computed in float64 by ``cubic_subsegment``
    along u, then along v, at exact dyadic cell ends. Certified (a-priori, rounded up).

    One pass errs by at most ``9 u E (1 + 4u)`` (``error_model.subsegment_error_bound``: three
    lerp levels of convex combinations); the second pass works on values of magnitude at most
    ``E + e1`` and passes ``e1`` on with weight 1, so the total stays below ``19 u E``; the
    bound is ``32 u E + 32 eta`` (subnormal results).
    """
    return float(up(SUBPATCH_K * U64 * E + SUBPATCH_K * _ETA64))


# --- Profile validation ----------------------------------------------------------------------

def _validate(profile: SurfaceMeshProfile) -> Outcome | None:
    if not isinstance(profile.precision, PrecisionProfile):
        return failure(GeometryStatus.InvalidArgument, "precision must be a PrecisionProfile", field="precision")
    if not isinstance(profile.degeneracy, SurfaceDegeneracyPolicy):
        return failure(GeometryStatus.InvalidArgument, "degeneracy must be a SurfaceDegeneracyPolicy",
                       field="degeneracy")
    if not isinstance(profile.is_coarser_mesh_accepted, (bool, np.bool_)):
        return failure(GeometryStatus.InvalidArgument, "is_coarser_mesh_accepted must be a bool",
                       field="is_coarser_mesh_accepted")
    for name, hi in (("position_error", 1e6), ("normal_angle_error", math.pi)):
        x = getattr(profile, name)
        if not is_finite_real(x) or not 0.0 <= float(x) <= hi:  # an int beyond float64 is not finite
            return failure(GeometryStatus.InvalidArgument, f"{name} = {x!r} is outside [0, {hi}]", field=name)
    limits = profile.limits
    if not isinstance(limits, SurfaceMeshLimits):
        raise TypeError("profile.limits must be a SurfaceMeshLimits")
    for name, (lo, hi) in LIMIT_RANGES.items():
        x = getattr(limits, name)
        if not is_int(x) or not lo <= x <= hi:
            return failure(GeometryStatus.InvalidArgument, f"SurfaceMeshLimits.{name} = {x!r} is outside [{lo}, {hi}]",
                           field=name)
    return None


# --- Cell bounds -----------------------------------------------------------------------------

def _subpatches(C: np.ndarray, lu: int, lv: int, window=None) -> np.ndarray:
    """(NU, NV, 4, 4, 3) float64 controls of every cell of the (lu, lv) grid of ``C`` (of the
    cells ``[i0, i1) x [j0, j1)`` with ``window``: the same values, elementwise)."""
    nu, nv = 1 << lu, 1 << lv
    i0, i1, j0, j1 = (0, nu, 0, nv) if window is None else window
    a = np.arange(i0, i1, dtype=np.float64)
    b = np.arange(j0, j1, dtype=np.float64)
    # Along u: each v-index's control column is a cubic in u (axis -2 after the transpose).
    P = C.transpose(1, 0, 2)[None]  # (1, 4v, 4u, 3)
    du = K.cubic_subsegment(F64, P, (a / nu)[:, None], ((a + 1) / nu)[:, None])  # (NU, 4v, 4u', 3)
    X = du.transpose(0, 2, 1, 3)[:, None]  # (NU, 1, 4u', 4v, 3)
    return K.cubic_subsegment(F64, X, (b / nv)[None, :, None], ((b + 1) / nv)[None, :, None])


_T = np.arange(4, dtype=np.float64) / 3.0
_W00 = np.outer(1 - _T, 1 - _T)
_W10 = np.outer(_T, 1 - _T)
_W01 = np.outer(1 - _T, _T)
_W11 = np.outer(_T, _T)


def cell_bounds(C: np.ndarray, lu: int, lv: int, vertex_term, window=None) -> np.ndarray:
    """(NU, NV) Certified cell bounds of the (lu, lv) grid of the float32 patch ``C`` (with
    ``window = (i0, i1, j0, j1)``, of those cells only, bit for bit the same values).

    ``vertex_term`` is the third term: a scalar (an a-priori bound of every emitted vertex's
    error, used while refining) or an (NU + 1, NV + 1) array of per-vertex error bounds (the
    emitted vertices), of which each cell takes the largest of its four.

    Terms 1 and 2 are computed from float64 subpatch controls ``D~`` with per-component error
    ``e = subpatch_error_bound(E)``. Term 1: ``|D~ - L(D~)| + 2 e + 16 u (E + e)`` per component
    (``L`` passes ``e`` on with weight 1; weights, products and sums of ``L`` and the
    difference round about 6 times on magnitudes below ``E + e``), Euclidean norm rounded up,
    maximum over the 16 controls. Term 2: ``|W~| + 4 e + 12 u (E + e)`` per component (three
    sums of magnitude below ``4 (E + e)``), norm rounded up, times 1/4.
    """
    C64 = np.asarray(C, dtype=np.float64)
    E = float(np.max(np.abs(C64)))
    e = subpatch_error_bound(E)
    EE = float(add_hi(E, e))
    D = _subpatches(C64, lu, lv, window)
    D00, D10, D01, D11 = D[..., 0, 0, :], D[..., 3, 0, :], D[..., 0, 3, :], D[..., 3, 3, :]
    L = (_W00[:, :, None] * D00[..., None, None, :] + _W10[:, :, None] * D10[..., None, None, :]) + (
        _W01[:, :, None] * D01[..., None, None, :] + _W11[:, :, None] * D11[..., None, None, :])
    e1 = float(up(2.0 * e + 16.0 * U64 * EE * (1 + 4 * U64)))
    t1 = np.max(hypot_hi(add_hi(up(np.abs(D - L)), e1)), axis=(-1, -2))
    W = ((D00 - D10) - D01) + D11
    e2 = float(up(4.0 * e + 12.0 * U64 * 4.0 * EE * (1 + 4 * U64)))
    t2 = mul_hi(hypot_hi(add_hi(up(np.abs(W)), e2)), 0.25)
    if np.ndim(vertex_term) == 0:
        t3 = np.float64(vertex_term)
    else:
        vt = np.asarray(vertex_term, dtype=np.float64)
        if window is not None:
            vt = vt[window[0]:window[1] + 1, window[2]:window[3] + 1]
        t3 = np.maximum(np.maximum(vt[:-1, :-1], vt[1:, :-1]), np.maximum(vt[:-1, 1:], vt[1:, 1:]))
    return add_hi(add_hi(t1, t2), t3)


# Cells whose bounds are computed at once while refining (about 1.5 KiB of temporaries each): a
# grid of up to 2^48 cells (max_level 24 in both directions, max_cell_tests up to 2^40) is
# taken in windows, so memory stays near 50 MiB whatever the limits allow.
WINDOW_CELLS = 1 << 15


def grid_max(fn, lu: int, lv: int) -> float:
    """The largest value of ``fn(window)`` (an array over the window's cells) over the whole
    (lu, lv) grid, windows of at most :data:`WINDOW_CELLS` cells: whole rows of u-cells where
    a row fits, else pieces of one row. The same maximum as one call on the whole grid."""
    nu, nv = 1 << lu, 1 << lv
    rows = max(1, WINDOW_CELLS // nv)
    cols = min(nv, WINDOW_CELLS)
    best = -math.inf
    for i0 in range(0, nu, rows):
        for j0 in range(0, nv, cols):
            best = max(best, float(np.max(fn((i0, min(nu, i0 + rows), j0, min(nv, j0 + cols))))))
    return best


def _apriori_vertex_term(C: np.ndarray, curves_E: float) -> float:
    """A bound of every emitted vertex's Euclidean error on patch ``C``: per component half an
    ulp32 of the largest possible value (the float32 rounding of the float64 sample) plus the
    larger of the bicubic (interior) and cubic (edge) evaluation bounds."""
    C64 = np.asarray(C, dtype=np.float64)
    E = float(np.max(np.abs(C64)))
    ev = max(evaluation_bounds(E)[0], curve_position_bound(max(E, curves_E)))
    Ec = np.max(np.abs(C64.reshape(-1, 3)), axis=0)
    half = 0.5 * ulp32(np.float32(np.minimum(add_hi(Ec, ev), np.float64(np.finfo(np.float32).max))))
    return float(hypot_hi(add_hi(half, ev)))


def _grid_samples(C64: np.ndarray, lu: int, lv: int, window=None) -> np.ndarray:
    nu, nv = 1 << lu, 1 << lv
    i0, i1, j0, j1 = (0, nu, 0, nv) if window is None else window
    uu, vv = np.meshgrid(np.arange(i0, i1 + 1) / nu, np.arange(j0, j1 + 1) / nv, indexing="ij")
    return K.bicubic_point(F64, C64, uu.ravel(), vv.ravel()).reshape(i1 - i0 + 1, j1 - j0 + 1, 3)


def _angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    cr = np.linalg.norm(np.cross(a, b), axis=-1)
    return np.arctan2(cr, np.sum(a * b, axis=-1))


def cell_normal_angles(view: SurfaceView, patch: int, lu: int, lv: int, grid: np.ndarray | None = None,
                       window=None) -> np.ndarray:
    """(NU, NV) Estimated normal angle of each cell: the largest angle between a triangle's face
    normal and the analytic unit normals at its three corners and at the cell centre; samples
    whose normal is not OK (Degenerate, IllConditioned) and zero face normals are skipped (0
    when nothing is left). ``grid`` gives the (NU + 1, NV + 1, 3) vertex positions (default: the
    patch evaluated in float64). With ``window = (i0, i1, j0, j1)``: the cells ``[i0, i1) x
    [j0, j1)`` only, the same values."""
    full_u, full_v = 1 << lu, 1 << lv
    i0, i1, j0, j1 = (0, full_u, 0, full_v) if window is None else window
    nu, nv = i1 - i0, j1 - j0  # the window's cells
    C64 = view.controls[patch].astype(np.float64)
    P = _grid_samples(C64, lu, lv, window) if grid is None else \
        np.asarray(grid, dtype=np.float64)[i0:i1 + 1, j0:j1 + 1]
    uu, vv = np.meshgrid(np.arange(i0, i1 + 1) / full_u, np.arange(j0, j1 + 1) / full_v, indexing="ij")
    cu, cv = np.meshgrid((np.arange(i0, i1) + 0.5) / full_u, (np.arange(j0, j1) + 0.5) / full_v, indexing="ij")
    us = np.concatenate([uu.ravel(), cu.ravel()])
    vs = np.concatenate([vv.ravel(), cv.ravel()])
    m = us.size
    normals = np.empty((m, 3))
    status = np.empty(m, dtype=np.uint8)
    try_sample_surface_normals(view, np.full(m, patch, dtype=np.int64), us, vs, normals, status)
    ng = normals[:(nu + 1) * (nv + 1)].reshape(nu + 1, nv + 1, 3)
    sg = status[:(nu + 1) * (nv + 1)].reshape(nu + 1, nv + 1)
    nc = normals[(nu + 1) * (nv + 1):].reshape(nu, nv, 3)
    sc = status[(nu + 1) * (nv + 1):].reshape(nu, nv)
    P00, P10, P01, P11 = P[:-1, :-1], P[1:, :-1], P[:-1, 1:], P[1:, 1:]
    f1 = np.cross(P10 - P00, P11 - P00)
    f2 = np.cross(P11 - P00, P01 - P00)
    out = np.zeros((nu, nv))
    ok1 = np.linalg.norm(f1, axis=-1) > 0
    ok2 = np.linalg.norm(f2, axis=-1) > 0
    samples1 = ((ng[:-1, :-1], sg[:-1, :-1]), (ng[1:, :-1], sg[1:, :-1]), (ng[1:, 1:], sg[1:, 1:]), (nc, sc))
    samples2 = ((ng[:-1, :-1], sg[:-1, :-1]), (ng[1:, 1:], sg[1:, 1:]), (ng[:-1, 1:], sg[:-1, 1:]), (nc, sc))
    for f, ok, samples in ((f1, ok1, samples1), (f2, ok2, samples2)):
        for n, s in samples:
            a = _angle(f, n)
            out = np.where(ok & (s == NORMAL_OK), np.maximum(out, a), out)
    return out


# --- Counts ----------------------------------------------------------------------------------

def _along(levels, patch: int, side: PatchSide) -> int:
    lu, lv = levels[patch]
    return lv if side in (PatchSide.U0, PatchSide.U1) else lu


def mesh_counts(view: SurfaceView, levels) -> dict:
    """Exact output counts of a mesh with the given per-patch ``levels`` (Python ints; nothing
    is allocated): ``positions`` (corners, edge interiors, patch interiors), ``vertices``,
    ``triangles`` and ``bytes`` (``POSITION_BYTES``, ``VERTEX_BYTES``, ``TRIANGLE_BYTES``,
    ``PATCH_BYTES`` each).

    Raises:
        ValueError: a negative level (a grid has ``2**level`` cells per direction).
    """
    for p, (lu, lv) in enumerate(levels):
        if lu < 0 or lv < 0:
            raise ValueError(f"mesh_counts: patch {p} has levels ({lu!r}, {lv!r}); levels must be nonnegative")
    positions = len(view.corners)
    for e in view.edges:
        inc = e.incidences[0]
        positions += (1 << _along(levels, inc.patch, inc.side)) - 1
    vertices = triangles = 0
    for lu, lv in levels:
        nu, nv = 1 << int(lu), 1 << int(lv)
        positions += (nu - 1) * (nv - 1)
        vertices += (nu + 1) * (nv + 1)
        triangles += 2 * nu * nv
    size = (POSITION_BYTES * positions + VERTEX_BYTES * vertices + TRIANGLE_BYTES * triangles
            + PATCH_BYTES * len(levels))
    return {"positions": positions, "vertices": vertices, "triangles": triangles, "bytes": size}


def check_counts(counts: dict, limits: SurfaceMeshLimits) -> Outcome | None:
    """OutOfRange when more than 2**32 vertices; BudgetExceeded when the vertices, triangles or
    bytes exceed their limits (in that order); None when the mesh fits. Checked before any
    output is allocated."""
    if counts["vertices"] > MAX_VERTEX_COUNT:
        return failure(GeometryStatus.OutOfRange, f"{counts['vertices']} vertices exceed 2**32 (32-bit indices)",
                       field="vertices", value=float(counts["vertices"]))
    for key, name in (("vertices", "max_vertices"), ("triangles", "max_triangles"), ("bytes", "max_output_bytes")):
        if counts[key] > getattr(limits, name):
            return failure(GeometryStatus.BudgetExceeded,
                           f"{counts[key]} {key} exceed {name} = {getattr(limits, name)}",
                           field=name, value=float(counts[key]))
    return None


# --- The build -------------------------------------------------------------------------------

class _Budget(Exception):
    def __init__(self, outcome):
        self.outcome = outcome


class _Refiner:
    """Per-patch grid criteria with a cache: each (patch, lu, lv) grid is evaluated once."""

    def __init__(self, view: SurfaceView, profile: SurfaceMeshProfile):
        self.view, self.profile = view, profile
        self.target = float(profile.position_error)
        self.angle_target = float(profile.normal_angle_error) if profile.precision is PrecisionProfile.Visual else 0.0
        self.tests = 0
        self.cache: dict = {}
        self.vterm = []
        for p in range(view.patch_count):
            Es = [float(np.max(np.abs(view.edge_of(p, s).curve.astype(np.float64)))) for s in SIDES]
            self.vterm.append(_apriori_vertex_term(view.controls[p], max(Es)))

    def normalized(self, p: int, lu: int, lv: int) -> float:
        """Largest cell criterion of the grid over its target (> 1 misses the profile)."""
        key = (p, lu, lv)
        if key in self.cache:
            return self.cache[key][0]
        cells = (1 << lu) * (1 << lv)
        limit = self.profile.limits.max_cell_tests
        if self.tests + cells > limit:
            raise _Budget(failure(GeometryStatus.BudgetExceeded,
                                  f"patch {p}: testing the {cells} cells of level ({lu}, {lv}) exceeds "
                                  f"max_cell_tests = {limit} ({self.tests} done)", field="max_cell_tests",
                                  index=p, value=float(self.tests + cells)))
        self.tests += cells
        b = grid_max(lambda w: cell_bounds(self.view.controls[p], lu, lv, self.vterm[p], w), lu, lv)
        crit = b / self.target if self.target > 0 else math.inf
        if self.angle_target > 0:
            a = grid_max(lambda w: cell_normal_angles(self.view, p, lu, lv, window=w), lu, lv)
            crit = max(crit, a / self.angle_target)
        self.cache[key] = (crit, b)
        return crit

    def settle(self, p: int, lu: int, lv: int):
        """Refine patch ``p`` from (lu, lv) until every cell meets the profile: (lu, lv, met)."""
        top = self.profile.limits.max_level
        while True:
            crit = self.normalized(p, lu, lv)
            if crit <= 1.0:
                return lu, lv, True
            can_u, can_v = lu < top, lv < top
            if not can_u and not can_v:
                return lu, lv, False
            if can_u and can_v:
                bu, bv = self.normalized(p, lu + 1, lv), self.normalized(p, lu, lv + 1)
                if bu < CLEAR_FACTOR * bv:
                    lu += 1
                elif bv < CLEAR_FACTOR * bu:
                    lv += 1
                elif lu <= lv:  # near-tie: the coarser direction, then u
                    lu += 1
                else:
                    lv += 1
            elif can_u:
                lu += 1
            else:
                lv += 1


def _agree(view: SurfaceView, levels: list) -> set:
    """Raise each shared edge's two along-edge levels to their maximum until every shared edge
    agrees; returns the patches whose levels changed."""
    changed = set()
    again = True
    while again:
        again = False
        for e in view.edges:
            if not e.is_shared:
                continue
            (a, b) = e.incidences
            m = max(_along(levels, a.patch, a.side), _along(levels, b.patch, b.side))
            for inc in (a, b):
                if _along(levels, inc.patch, inc.side) < m:
                    lu, lv = levels[inc.patch]
                    levels[inc.patch] = (lu, m) if inc.side in (PatchSide.U0, PatchSide.U1) else (m, lv)
                    changed.add(inc.patch)
                    again = True
    return changed


def try_build_surface_mesh(surface_view: SurfaceView, profile: SurfaceMeshProfile, mesh: SurfaceMesh,
                           diagnostic: list | None = None) -> Outcome:
    """``TryBuildSurfaceMesh``: tessellate every patch of ``surface_view`` into ``mesh``.

    Returns ``Outcome(SurfaceMeshView)``; on success the complete staging mesh is moved into
    ``mesh``, on any failure ``mesh`` keeps its previous contents and the first failure is
    appended to ``diagnostic`` (a list) when given. Position bounds Certified, corner positions
    Exact, other positions and normals Rounded, the normal-angle estimate Estimated.

    Checks, in order: the profile's fields (InvalidArgument, naming the field); Strict with a
    nonzero ``normal_angle_error`` (UnsupportedPrecision) or with ``is_coarser_mesh_accepted``
    (InvalidArgument); ``position_error`` below the surface's position floor
    (UnsupportedPrecision); refinement (each grid's cell tests against ``max_cell_tests``,
    BudgetExceeded before it is evaluated; a patch that ``max_level`` stops is BudgetExceeded
    with the achieved bound unless Visual accepts a coarser mesh); the counts
    (:func:`check_counts`: OutOfRange, BudgetExceeded); then the emitted mesh under Reject (a
    singular vertex normal or a triangle with two equal positions is Degenerate).
    """
    return reported(_build(surface_view, profile, mesh), diagnostic)


def _build(view: SurfaceView, profile: SurfaceMeshProfile, mesh: SurfaceMesh) -> Outcome:
    if not isinstance(view, SurfaceView) or not isinstance(profile, SurfaceMeshProfile) \
            or not isinstance(mesh, SurfaceMesh):
        raise TypeError("try_build_surface_mesh(SurfaceView, SurfaceMeshProfile, SurfaceMesh)")
    bad = _validate(profile)
    if bad is not None:
        return bad
    if profile.precision is PrecisionProfile.Strict:
        if profile.normal_angle_error != 0:
            return failure(GeometryStatus.UnsupportedPrecision,
                           "Strict accepts only Certified bounds; a normal angle is only Estimated",
                           field="normal_angle_error", value=float(profile.normal_angle_error))
        if profile.is_coarser_mesh_accepted:
            return failure(GeometryStatus.InvalidArgument, "Strict cannot accept a coarser mesh",
                           field="is_coarser_mesh_accepted")
    if float(profile.position_error) < view.position_floor:
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"position_error {profile.position_error!r} is below the surface's position floor "
                       f"{view.position_floor!r}", field="position_error", value=view.position_floor)
    ref = _Refiner(view, profile)
    n = view.patch_count
    levels = [(0, 0)] * n
    met = [True] * n
    pending = set(range(n))
    try:
        while pending:
            for p in sorted(pending):
                lu, lv, ok = ref.settle(p, *levels[p])
                levels[p], met[p] = (lu, lv), ok
                if not ok and not profile.is_coarser_mesh_accepted:
                    b = ref.cache[(p, lu, lv)][1]
                    return failure(GeometryStatus.BudgetExceeded,
                                   f"patch {p} misses the profile at max_level = {profile.limits.max_level} "
                                   f"(achieved bound {b!r})", field="max_level", index=p, achieved=b)
            pending = _agree(view, levels)
    except _Budget as stop:
        return stop.outcome
    counts = mesh_counts(view, levels)
    bad = check_counts(counts, profile.limits)
    if bad is not None:
        return bad
    staging = SurfaceMesh()
    built = _emit(view, profile, levels, counts, ref)
    if not built.ok:
        return built
    staging._view = built.value
    mesh._move_from(staging)
    return success(mesh.view())


def _emit(view: SurfaceView, profile: SurfaceMeshProfile, levels: list, counts: dict, ref: _Refiner) -> Outcome:
    n = view.patch_count
    positions = np.empty((counts["positions"], 3), dtype=np.float32)
    pos_err = np.zeros(counts["positions"])  # Euclidean bound of |position - exact surface point|
    # Corners: the exact corner controls.
    for k, c in enumerate(view.corners):
        positions[k] = c.position
    base = len(view.corners)
    edge_base = []
    for e in view.edges:
        inc = e.incidences[0]
        ne = 1 << _along(levels, inc.patch, inc.side)
        edge_base.append(base)
        if ne > 1:
            curve = e.curve.astype(np.float64)
            s = np.arange(1, ne, dtype=np.float64) / ne
            val = K.cubic_point(F64, curve, s)
            out = val.astype(np.float32)
            positions[base:base + ne - 1] = out
            pos_err[base:base + ne - 1] = _vertex_error(out, val, curve_position_bound(float(np.max(np.abs(curve)))))
        base += ne - 1
    interior_base = []
    for p in range(n):
        lu, lv = levels[p]
        nu, nv = 1 << lu, 1 << lv
        interior_base.append(base)
        if nu > 1 and nv > 1:
            C64 = view.controls[p].astype(np.float64)
            uu, vv = np.meshgrid(np.arange(1, nu) / nu, np.arange(1, nv) / nv, indexing="ij")
            val = K.bicubic_point(F64, C64, uu.ravel(), vv.ravel())
            out = val.astype(np.float32)
            m = (nu - 1) * (nv - 1)
            positions[base:base + m] = out
            pos_err[base:base + m] = _vertex_error(out, val, evaluation_bounds(float(np.max(np.abs(C64))))[0])
            base += m

    nvert, ntri = counts["vertices"], counts["triangles"]
    vidx = np.empty(nvert, dtype=np.uint32)
    vpar = np.empty((nvert, 2), dtype=np.float32)
    vpatch = np.empty(nvert, dtype=np.uint32)
    tris = np.empty((ntri, 3), dtype=np.uint32)
    records = []
    v0 = t0 = 0
    patch_grids = []
    for p in range(n):
        lu, lv = levels[p]
        nu, nv = 1 << lu, 1 << lv
        G = _position_grid(view, p, nu, nv, edge_base, interior_base[p])
        patch_grids.append(G)
        cnt = (nu + 1) * (nv + 1)
        vidx[v0:v0 + cnt] = G.ravel()
        uu, vv = np.meshgrid(np.arange(nu + 1) / nu, np.arange(nv + 1) / nv, indexing="ij")
        vpar[v0:v0 + cnt, 0] = uu.ravel()
        vpar[v0:v0 + cnt, 1] = vv.ravel()
        vpatch[v0:v0 + cnt] = p
        local = np.arange(cnt, dtype=np.int64).reshape(nu + 1, nv + 1) + v0
        a00, a10, a01, a11 = local[:-1, :-1], local[1:, :-1], local[:-1, 1:], local[1:, 1:]
        cells = np.stack([np.stack([a00, a10, a11], -1), np.stack([a00, a11, a01], -1)], axis=-2)  # (nu, nv, 2, 3)
        tris[t0:t0 + 2 * nu * nv] = cells.reshape(-1, 3)
        records.append((v0, cnt, t0, 2 * nu * nv))
        v0 += cnt
        t0 += 2 * nu * nv

    vpos = positions[vidx]
    normals = np.empty((nvert, 3))
    status = np.empty(nvert, dtype=np.uint8)
    try_sample_surface_normals(view, vpatch.astype(np.int64), vpar[:, 0].astype(np.float64),
                               vpar[:, 1].astype(np.float64), normals, status)
    singular = status != NORMAL_OK
    ptri = vidx[tris]
    P = positions[ptri]  # (t, 3, 3)
    eq = lambda i, j: np.all(P[:, i] == P[:, j], axis=-1)
    degenerate = eq(0, 1) | eq(1, 2) | eq(0, 2)
    if profile.degeneracy is SurfaceDegeneracyPolicy.Reject:
        if np.any(singular):
            i = int(np.flatnonzero(singular)[0])
            return failure(GeometryStatus.Degenerate,
                           f"vertex {i} (patch {int(vpatch[i])}, (u, v) = ({float(vpar[i, 0])}, {float(vpar[i, 1])})) "
                           "has a singular normal", field="vertex_normal", index=i)
        if np.any(degenerate):
            i = int(np.flatnonzero(degenerate)[0])
            return failure(GeometryStatus.Degenerate, f"triangle {i} has two equal positions", field="triangle",
                           index=i)

    patches = []
    target = float(profile.position_error)
    for p in range(n):
        lu, lv = levels[p]
        vt = pos_err[patch_grids[p]]
        b = float(np.max(cell_bounds(view.controls[p], lu, lv, vt)))
        first_v, cnt, first_t, tcnt = records[p]
        patches.append(SurfaceMeshPatch(p, int(view.patch_ids[p]), lu, lv, b, bool(b <= target), first_v, cnt,
                                        first_t, tcnt))
    angle = None
    if profile.precision is PrecisionProfile.Visual and profile.normal_angle_error > 0:
        angle = 0.0
        for p in range(n):
            lu, lv = levels[p]
            grid = positions[patch_grids[p]].astype(np.float64)
            angle = max(angle, float(np.max(cell_normal_angles(view, p, lu, lv, grid))))
    bound = max(r.position_bound for r in patches)
    report = SurfaceMeshReport(tuple(patches), bound, all(r.is_within_position_error for r in patches), angle,
                               int(np.count_nonzero(singular)), int(np.count_nonzero(degenerate)), ref.tests)
    return success(SurfaceMeshView(
        positions=readonly(positions, copy=False), vertex_positions=readonly(vpos, copy=False),
        vertex_position_index=readonly(vidx, copy=False), vertex_normals=readonly(normals.astype(np.float32)),
        vertex_parameters=readonly(vpar, copy=False), vertex_patch=readonly(vpatch, copy=False),
        vertex_status=readonly(status, copy=False), indices=readonly(tris, copy=False), report=report))


def _vertex_error(out32: np.ndarray, val64: np.ndarray, eval_bound: float) -> np.ndarray:
    """Euclidean bounds of ``|out32 - exact|``: the computed ``|out32 - val64|`` rounded up plus
    the evaluation bound of ``val64``, per component, then the norm rounded up."""
    d = up(np.abs(out32.astype(np.float64) - val64))
    return hypot_hi(add_hi(d, eval_bound))


def _side_incidence(view: SurfaceView, p: int, side: PatchSide):
    e = view.edge_of(p, side)
    for inc in e.incidences:
        if inc.patch == p and inc.side is side:
            return e, inc
    raise AssertionError("a patch side is an incidence of its edge")  # pragma: no cover


def _position_grid(view: SurfaceView, p: int, nu: int, nv: int, edge_base: list, interior: int) -> np.ndarray:
    """(nu + 1, nv + 1) int64 position indices of patch ``p``'s grid points."""
    G = np.empty((nu + 1, nv + 1), dtype=np.int64)
    for corner, (a, b) in ((PatchCorner.U0V0, (0, 0)), (PatchCorner.U1V0, (nu, 0)),
                           (PatchCorner.U0V1, (0, nv)), (PatchCorner.U1V1, (nu, nv))):
        G[a, b] = int(view.patch_corners[p, _CORNER_RANK[corner]])
    for side in SIDES:
        ne = nv if side in (PatchSide.U0, PatchSide.U1) else nu
        if ne == 1:
            continue
        e, inc = _side_incidence(view, p, side)
        k = np.arange(1, ne)
        canon = ne - k if inc.is_reversed else k
        idx = edge_base[view.edge_index[e.id]] + canon - 1
        if side is PatchSide.U0:
            G[0, 1:nv] = idx
        elif side is PatchSide.U1:
            G[nu, 1:nv] = idx
        elif side is PatchSide.V0:
            G[1:nu, 0] = idx
        else:
            G[1:nu, nv] = idx
    if nu > 1 and nv > 1:
        G[1:nu, 1:nv] = interior + np.arange((nu - 1) * (nv - 1)).reshape(nu - 1, nv - 1)
    return G
