"""Tessellation corpus: networks of the surface corpus (``oracles.families.surface.corpus``) with a
mesh profile each.

Deterministic in the seed: a planar patch (level (0, 0) expected), a planar patch beside a
patch curved along their shared straight edge (it inherits the edge's level), a bilinear
twisted patch, the cube and the one- and four-patch tubes, the spec's reversed two-patch join,
a collapsed side and a pole of four unjoined patches (degenerate: singular normals and
triangles with two equal positions, Report), a nearly collapsed side (thin triangles), a grid
far from the origin (1e7), planar and curved grids, Visual meshes that ask for a normal angle,
and a Visual mesh that accepts a coarser grid at its max level; then the refinement rule's
cases (the twisted patch at one and at two exact near-ties, an anisotropic near-tie, a rounded
planar patch owning its edge beside a curved one), the budget failures (Strict stopped by
max_level, a cell-test budget below the rule's need), Reject and Report on IllConditioned
normals, a planar Reject mesh and a collapsed U0 side; the near-threshold twisted patches
(their true largest distance 0.28 ulp32 above the float32 2.25, resp. 0.5625, the claimed
bound within rounding terms above it); then random small grids. Each case's profile asks for
a position error of a few percent of the network's extent (``rel``; the requests raise it to
the surface's position floor where it falls below), so grids stay small enough for the exact
oracle; the corpus's cell-test budget is ``CORPUS_CELL_TESTS``.

A case is a surface case (``corpus.py`` of the surface family) with ``mesh``: ``rel``,
``precision``, ``angle``, ``coarser``, ``degeneracy`` and ``limits`` (every
``SurfaceMeshLimits`` field).
"""

from __future__ import annotations

import numpy as np

from ..surface import corpus as SF

__all__ = [
    "CORPUS_CELL_TESTS",
    "MESH_LIMITS",
    "NAMED",
    "anisotropic_case",
    "beside_case",
    "beside_rounded_case",
    "collapsed_u0_case",
    "corpus_case",
    "corpus_cases",
    "extent",
    "ill_conditioned_case",
    "near_collapsed_case",
    "planar_case",
    "twisted_case",
    "with_mesh",
]

MESH_LIMITS = dict(max_level=10, max_cell_tests=1 << 20, max_vertices=1 << 20, max_triangles=1 << 20,
                   max_output_bytes=1 << 28)


def _affine(x0=0.0, y0=0.0, z=lambda i, j: 0.0):
    return np.array([[(x0 + i, y0 + j, z(i, j)) for j in range(4)] for i in range(4)], dtype=np.float64)


def planar_case(rng):
    """One exactly planar, affinely parametrized patch: level (0, 0) expected."""
    C = _affine(z=lambda i, j: 0.25 * i - 0.5 * j)
    return SF._case("planar patch", [C], rng=rng)


def beside_case(rng):
    """A planar patch beside a patch whose height grows away from their shared straight edge
    (curved along the edge direction): the planar patch inherits the along-edge level."""
    bump = [0.0, 2.0, 2.0, 0.0]
    A = _affine()
    B = _affine(x0=3.0, z=lambda i, j: i * bump[j])
    return SF._case("planar patch beside a curved edge", [A, B], rng=rng)


def twisted_case(rng):
    """The bilinear twisted patch (i, j, i j): its bound is the twist |W| / 4 at level (0, 0)."""
    return SF._case("bilinear twisted patch", [_affine(z=lambda i, j: float(i * j))], rng=rng)


def near_collapsed_case(rng):
    """A patch whose V0 side is shrunk to 1e-4 of its length towards its corner on the shared
    edge (nearly a pole), joined to a regular patch: tiny but nonzero partials, thin triangles."""
    G = SF._curved_grid(rng, 2, 1, np.zeros(3), 1.0)
    a, b = SF._grid_patches(G)
    a = a.copy()
    a[:, 0] = a[3, 0] + (a[:, 0] - a[3, 0]) * 1e-4
    return SF._case("nearly collapsed side", [a, b], rng=rng)


def anisotropic_case(rng):
    """A patch curved in both directions, v a little more (bump heights 1 and 9/8): refining v
    gives 0.93 of refining u's bound, a near-tie by the rule, so u (the coarser-then-u order) is
    refined first."""
    q = [0.0, 1.0, 1.0, 0.0]
    C = np.array([[(i, j, q[i] + 1.125 * q[j]) for j in range(4)] for i in range(4)], dtype=np.float64)
    return SF._case("near-tie anisotropic patch", [C], rng=rng)


def beside_rounded_case(rng):
    """A planar patch (exactly affine float32 controls, non-dyadic spacing 819 and 1229 x 2^-13,
    near (1000, 500, 250), so its grid points round to float32) owning its shared edge (id 1)
    beside a patch bulging along that edge (id 2): the planar patch inherits the along-edge level
    and its only error is its vertices' rounding (term 3)."""
    P = np.array([1000.0, 500.0, 250.0])
    ax, by = np.array([819.0 * 2**-13, 0.0, 0.0]), np.array([0.0, 1229.0 * 2**-13, 0.0])
    bump = [0.0, 2.0, 2.0, 0.0]
    A = np.array([[P + i * ax + j * by for j in range(4)] for i in range(4)])
    B = np.array([[P + (3 + i) * ax + j * by + [0.0, 0.0, 0.0625 * i * bump[j]] for j in range(4)]
                  for i in range(4)])
    return SF._case("rounded planar patch beside a curved edge", [A, B], ids=[1, 2], rng=rng)


def collapsed_u0_case(rng):
    """A patch whose U0 side collapses to a point next to a regular patch: its triangles
    (v00, v11, v01) along U0 have equal first and third positions."""
    G = SF._curved_grid(rng, 2, 1, np.zeros(3), 1.0)
    a, b = SF._grid_patches(G)
    a = a.copy()
    a[0, :] = a[0, 0]
    return SF._case("collapsed U0 side", [a, b], rng=rng)


def ill_conditioned_case(rng):
    """The twisted patch with NormalMinDerivativeLength above every partial's length: every
    vertex normal is IllConditioned (Reject fails; Report counts them)."""
    case = twisted_case(rng)
    case["tol"] = {**case["tol"], "dmin": 1e3}
    case["name"] = "every normal IllConditioned"
    return case


def extent(case) -> float:
    src = case["source"]
    return float(np.max(np.ptp(src.reshape(-1, 3), axis=0)))


def with_mesh(case, rel=0.03, precision="Strict", angle=0.0, coarser=False, degeneracy="Report", **lim):
    case = dict(case)
    case["mesh"] = {"rel": rel, "precision": precision, "angle": angle, "coarser": coarser,
                    "degeneracy": degeneracy, "limits": {**MESH_LIMITS, **lim}}
    return case


def _small_grid(rng, name, planar=None, magnitude=None):
    m, k = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    return SF._grid_case(rng, name, m=m, k=k, magnitude=magnitude, planar=planar)


_SPECIALS = [
    lambda r: with_mesh(planar_case(r), rel=1e-3),
    lambda r: with_mesh(beside_case(r), rel=0.01),
    lambda r: with_mesh(twisted_case(r), rel=0.3),
    lambda r: with_mesh(SF._cube(r), rel=1e-3),
    lambda r: with_mesh(SF._tube_four(r), rel=0.01),
    lambda r: with_mesh(SF._tube_one(r), rel=0.02),
    lambda r: with_mesh(SF._spec_two_patch(r), rel=0.03),
    lambda r: with_mesh(SF._collapsed(r), rel=0.03),
    lambda r: with_mesh(SF._pole(r), rel=0.03),
    lambda r: with_mesh(near_collapsed_case(r), rel=0.03),
    lambda r: with_mesh(SF._far(r), rel=0.03),
    lambda r: with_mesh(_small_grid(r, "planar grid", planar=True), rel=0.01),
    lambda r: with_mesh(twisted_case(r), rel=0.3, precision="Visual", angle=0.8),
    lambda r: with_mesh(SF._tube_four(r), rel=0.05, precision="Visual", angle=0.3),
    lambda r: with_mesh(_small_grid(r, "curved grid", planar=False, magnitude=1.0), rel=0.05,
                         precision="Visual", angle=0.4),
    # Visual accepting a coarser mesh: max_level stops the twisted patch at (1, 1), the report says
    # is_within_position_error = False and the bound claimed is the achieved one.
    lambda r: with_mesh(twisted_case(r), rel=0.01, precision="Visual", coarser=True, max_level=1),
    # The refinement rule: one and two exact near-ties of the twisted patch ((1, 0), then (1, 1)),
    # an anisotropic near-tie (u first), a rounded planar patch inheriting its neighbour's level.
    lambda r: with_mesh(twisted_case(r), rel=0.2),
    lambda r: with_mesh(twisted_case(r), rel=0.1),
    lambda r: with_mesh(anisotropic_case(r), rel=1.6 / 3.0),
    lambda r: with_mesh(beside_rounded_case(r), rel=0.01),
    # Statuses: Strict stopped by max_level and Reject on singular normals fail (no claims);
    # Reject on a regular patch succeeds; a collapsed U0 side counts its degenerate triangles.
    lambda r: with_mesh(twisted_case(r), rel=0.01, max_level=1),
    lambda r: with_mesh(twisted_case(r), rel=0.2, max_cell_tests=3),
    lambda r: with_mesh(ill_conditioned_case(r), rel=0.3, degeneracy="Reject"),
    lambda r: with_mesh(ill_conditioned_case(r), rel=0.3),
    lambda r: with_mesh(planar_case(r), rel=1e-3, degeneracy="Reject"),
    lambda r: with_mesh(collapsed_u0_case(r), rel=0.03),
]


def _twist_above_float32(rng, name):
    """The twisted patch ``(i + 2^-12 i j, j, i j)``: ``S = (3u + 9 b u v, 3v, 9 u v)`` with
    ``b = 2^-12``, whose cell twist ``W = (9 b, 0, 9) / 4^(level)`` gives the true largest distance
    ``|W| / 4 = (9 / 4) sqrt(1 + b^2)`` per cell at level (0, 0) (``S - T = -W t (1 - s)`` on a
    triangle, largest at the diagonal's midpoint), 0.28 ulp32 above the float32 2.25: the claimed
    bound sits within the rounding terms above that (issue 23 item 4)."""
    b = 2.0 ** -12
    C = np.array([[(i + b * i * j, j, float(i * j)) for j in range(4)] for i in range(4)], dtype=np.float64)
    return SF._case(name, [C], rng=rng)


def _near_threshold_cases():
    """Named cases whose cell bound is tight to its rounding terms (issue 23 item 4): the true
    distance lies just above a float32 value and within the fast path's rounding allowance below
    the claimed bound, at level (0, 0) and at level (1, 1) (each cell's twist a quarter)."""
    return [
        lambda r: with_mesh(_twist_above_float32(r, "twisted patch, bound just above a float32"), rel=0.3),
        lambda r: with_mesh(_twist_above_float32(r, "twisted patch at level (1, 1), bound just above a float32"),
                            rel=0.1),
    ]


# The corpus's cell-test budget: its cases need at most 542, and a refinement that blows a grid
# up then fails fast (a BudgetExceeded the replay judges) instead of running for hours.
CORPUS_CELL_TESTS = 1 << 12

_ALL = _SPECIALS + _near_threshold_cases()
NAMED = len(_ALL)  # named cases; the status requests follow them


def corpus_case(seed: int, k: int) -> dict:
    """Case ``k`` of the corpus of ``seed``: a named case, else a random small grid."""
    rng = np.random.default_rng([seed, k, 11])
    if k < NAMED:
        case = _ALL[k](rng)
    else:
        case = with_mesh(_small_grid(rng, "random grid"), rel=float(rng.choice([0.03, 0.05])))
    lim = case["mesh"]["limits"]
    lim["max_cell_tests"] = min(lim["max_cell_tests"], CORPUS_CELL_TESTS)
    return case


def corpus_cases(seed: int, n: int) -> list:
    """``n`` tessellation cases, named networks first. Deterministic in ``seed``."""
    return [corpus_case(seed, k) for k in range(n)]


_with_mesh, _extent = with_mesh, extent  # the names tests and benchmarks knew
