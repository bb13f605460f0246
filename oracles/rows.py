"""The evidence ledger's rows: one per guarantee the specs state. Add rows; never rename them.

Each row names the Guarantees-table entry of spec 002 (or the guarantee of spec 004) it
checks, and its guarantee class. A row with no checker yet stays in the ledger with zero cases
and ``"pending"`` status, so an auditor sees what is not yet evidenced.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.status import GuaranteeClass as G

__all__ = ["ROWS", "RowSpec", "row", "statuses_family", "statuses_row"]


_STATUSES = ".statuses"


def statuses_row(family: str) -> str:
    """The ledger row that judges a family's status contracts (``path.statuses``)."""
    return f"{family}{_STATUSES}"


def statuses_family(row_id: str) -> str | None:
    """The family whose status contracts ``row_id`` judges (``path`` for ``path.statuses``), or
    None for a row that is not a statuses row: :func:`statuses_row` read backwards."""
    return row_id.removesuffix(_STATUSES) if row_id.endswith(_STATUSES) else None


@dataclass(frozen=True)
class RowSpec:
    id: str
    guarantee: G
    spec_row: str


_S002 = "spec 002 Guarantees: "

ROWS: tuple[RowSpec, ...] = (
    RowSpec("path.stored_endpoints", G.Exact, _S002 + "Stored endpoints"),
    RowSpec("path.control_boxes", G.Exact, _S002 + "Span control boxes"),
    RowSpec("path.position_floor", G.Exact, _S002 + "Position floor"),
    RowSpec("path.interior_positions", G.Rounded, _S002 + "Interior positions"),
    RowSpec("path.derivatives", G.Rounded, _S002 + "Derivatives"),
    RowSpec("path.tangents", G.Rounded, _S002 + "Tangents"),
    RowSpec("path.conversions", G.Rounded, _S002 + "Conversions (Hermite, centripetal Catmull-Rom)"),
    RowSpec("path.continuity_values", G.Rounded, _S002 + "Continuity values"),
    RowSpec("distance.length_bounds", G.Certified, _S002 + "Leaf and total length bounds"),
    RowSpec("distance.prefix_bounds", G.Certified, _S002 + "Prefix bounds"),
    RowSpec("distance.inversion_residual", G.Certified, _S002 + "Inversion residual"),
    RowSpec("distance.estimates", G.Estimated,
            _S002 + "TotalEstimate, PrefixEstimate, DistanceBound::Estimate (inside the Certified interval)"),
    RowSpec("track.key_values", G.Exact, _S002 + "Key values"),
    RowSpec("track.values", G.Rounded, _S002 + "Track values and derivatives"),
    RowSpec("frame.regularity", G.Certified, _S002 + "Frame regularity decision (derivative box versus MinimumSpeed)"),
    RowSpec("frame.vectors", G.Rounded, _S002 + "Frame vectors and positions"),
    RowSpec("frame.angular_error_estimate", G.Estimated, _S002 + "FramesView::AngularErrorEstimate, residual twist"),
    RowSpec("projection.strict", G.Certified, _S002 + "Strict projection Distance, LowerBound and Gap"),
    RowSpec("projection.approximate", G.Approximate, _S002 + "ProjectPointApproximate result"),
    RowSpec("sweep.rings", G.Rounded, _S002 + "Sweep ring frames and vertices"),
    RowSpec("sweep.error_estimates", G.Estimated,
            _S002 + "Sweep longitudinal and cross-section error, self-intersection risk"),
    RowSpec("surface.shared_edges", G.Exact, _S002 + "Shared-edge matching"),
    RowSpec("surface.corners", G.Exact, _S002 + "Corner identity"),
    RowSpec("surface.evaluation", G.Rounded, _S002 + "Surface positions, partials, normals, edge continuity values"),
    RowSpec("tessellation.position_bound", G.Certified,
            _S002 + "Mesh cell bounds (SurfaceMeshPatch::PositionBound), emitted position error bounds"),
    RowSpec("tessellation.shared_positions", G.Exact, _S002 + "Mesh corner positions"),
    RowSpec("tessellation.normal_angle", G.Estimated, _S002 + "Mesh normal-angle estimate"),
    RowSpec("convex_polygon.partition", G.Exact,
            "spec 002 Convex polygon partition: bitwise source positions, every nondegenerate triangle in one polygon"),
    RowSpec("point_search.nearest", G.Rounded, "spec 002 Point neighborhoods: FindNearest ordering"),
    RowSpec("triangle.first_hit", G.Rounded,
            "spec 004 first_hit: smallest computed parameter, lowest index on exact ties"),
    RowSpec("triangle.barycentric", G.Rounded, "spec 004 first_hit: nonnegative barycentric weights"),
    RowSpec("triangle.normal_facing", G.Rounded, "spec 004 first_hit: winding-derived unit normal, front/back facing"),
    RowSpec("triangle.ambiguity", G.Certified,
            "spec 004 ambiguity: one ambiguous candidate rejects the query; never hides an earlier contact"),
) + tuple(
    # Status contracts, one row per family (after the guarantees, never renaming them): each
    # request step's status against the class the spec demands, and scenario rules such as
    # "a failed rebuild keeps the previous snapshot" (oracles.contract).
    RowSpec(statuses_row(family), G.Exact, f"{where}: {what}")
    for family, where, what in (
        ("path", "spec 002 Paths, Contracts",
         "statuses of preparation, evaluation, tangents and conversions; failed rebuild keeps the path"),
        ("distance", "spec 002 Distance maps",
         "BudgetExceeded keeps the previous map, MissingCache, StaleRevision, resolution statuses"),
        ("track", "spec 002 Tracks", "statuses of preparation and evaluation; failed rebuild keeps the track"),
        ("frame", "spec 002 Transported frames",
         "build and evaluation statuses, Degenerate inside singular ranges; failed rebuild keeps the frames"),
        ("projection", "spec 002 Projection",
         "CapacityExceeded before work, BudgetExceeded and UnsupportedPrecision leave the result unchanged"),
        ("sweep", "spec 002 Sweeps", "planning and emission statuses; failed replanning keeps the plan"),
        ("surface", "spec 002 Surfaces", "InvalidTopology and precision statuses; failed rebuild keeps the surface"),
        ("tessellation", "spec 002 Surface meshes",
         "Strict/Visual, budget and degeneracy statuses; every failure keeps the previous mesh"),
        ("convex_polygon", "spec 002 Convex polygon partition", "invalid views fail without changing the output"),
        ("point_search", "spec 002 Point neighborhoods",
         "build and query statuses; failure preserves the previous tree and outputs"),
        ("triangle", "spec 004 Surface ownership, Segment query",
         "admission and query statuses; ambiguous queries rejected whole"),
    )
)

_BY_ID = {r.id: r for r in ROWS}
assert len(_BY_ID) == len(ROWS), "row ids must be unique"


def row(row_id: str) -> RowSpec:
    """The row with this id (KeyError for an unknown id)."""
    return _BY_ID[row_id]
