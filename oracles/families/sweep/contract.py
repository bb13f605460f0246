"""Sweep rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, and a
planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

from reference.sweep import SWEEP_VERTEX_K, VERTEX_WIDTH

from ... import schema as S
from ...family import RowContract
from ...model import Claim
from .checks_estimates import ACCEPTANCE_FACTOR

__all__ = ["CONTRACTS"]


def _with(c: Claim, value) -> Claim:
    return Claim(c.row, c.guarantee, value, c.inputs, c.model)


def _plant_rings(c: Claim) -> Claim:
    idx = list(c.value["indices"])
    idx[1], idx[2] = idx[2], idx[1]  # the first triangle reversed
    return _with(c, {**c.value, "indices": idx})


def _plant_estimates(c: Claim) -> Claim:
    return _with(c, {**c.value, "risk_count": int(c.value["risk_count"]) + 1})


_F64V = S.f64(finite=False)
_V3 = S.vec(S.f64(), 3)
# A ring: [span, u, distance, scale, position, tangent, normal, binormal] (typed, so that a
# decimal in a case file is read into its format like any other field's).
_RING = S.tuple_(S.integer(minimum=0), _F64V, _F64V, _F64V, *[S.vec(_F64V, 3)] * 4)
_MESH = {"vertices": S.array(S.vec(_F64V, VERTEX_WIDTH), doc=(
             "The emitted vertices, rows [px, py, pz, nx, ny, nz, U, V]: chunk-relative position, unit normal, U "
             "around the section (j / N), V the ring's estimated path distance (asset units).")),
         "indices": S.array(S.integer(minimum=0), doc="The emitted triangle indices, three per triangle.")}
_COMMON = {"controls": S.matrix(S.f32(), [None, 4, 3], doc=(
               "Yours: every span's four prepared controls (n x 4 x 3, chunk-relative float32).")),
           "section": S.enum(["Tube", "Ribbon"], doc="Given: SweepRequest.Section."),
           "segments": S.integer(1, 1 << 16, doc=(
               "Yours: the plan's section segment count N (the report's section segments; a ribbon's 1).")),
           "closed": S.boolean(doc="Given: whether the path is closed.")}
_PROFILE = S.array(S.vec(S.f64(), 3), min_items=1, doc=(
    "Given: SweepRequest.Profile, keys [distance (asset units), scale (radius or half width, asset units), roll "
    "(radians)]."))

CONTRACTS = {
    "sweep.rings": RowContract(
        checks="counts r(N+1) or 2r (+2(N+1) Flat) vertices and 6N(r-1) (+6N) indices; ring positions within "
               "position_bound(E) of exact B(u); ring frames orthonormal and right-handed within 16u; vertices "
               "within 16u(M + 2S) + 16eta of the interval-enclosed x + S(cos a N + sin a B) (ribbon -/+ S/2 B), "
               "normals within 16u; U = j/N exactly, V the ring distance; seam, cap rims, cap normals and a closed "
               "path's last ring bitwise copies; every triangle's exact normal on the side of its vertex normals "
               "(CCW) or opposite (Clockwise), but where the tube may fold (half-extent x curvature may reach 1 at a"
               " ring or between two rings: interval bisection); with a profile, each ring's scale the profile's at "
               "its distance (linear between keys, clamped, within 8 u of the keys' scales); with a capacity probe, "
               "emission into arrays one vertex or one index short CapacityExceeded with both arrays unchanged; with"
               " distance_error, each ring's distance and the total within it of the true arc length (float64 "
               "Gauss-Legendre with its halving error). "
               "Model components: [position, frame, vertex, normal].",
        inputs=S.obj(required={**_COMMON,
                               "rings": S.array(_RING, min_items=2, doc=(
                                   "Yours: the plan's rings, each [span, u, distance (estimated, asset units), scale, "
                                   "position (chunk-relative), tangent, normal, binormal].")),
                               "caps": S.enum(["None", "Flat"], doc="Given: SweepRequest.Caps."),
                               "winding": S.enum(["CounterClockwise", "Clockwise"], doc="Given: SweepRequest.Winding."),
                               "total": S.f64(doc="Yours: the distance map's TotalEstimate (a closed path's last "
                                                  "ring's V), asset units.")},
                     optional={"profile": _PROFILE,
                               "distance_error": S.f64(nonnegative=True, doc=(
                                   "Given: the path's ToleranceProfile.DistanceError, asset units: with it, every "
                                   "ring's distance and the total are checked against the true arc length."))}),
        value=S.obj(required=_MESH, optional={"capacity": S.obj(optional={
            "short_vertices": S.string(doc="The status of emitting into arrays one vertex row short "
                                           "(CapacityExceeded)."),
            "short_vertices_unchanged": S.boolean(doc="Whether both arrays were left bit for bit unchanged by it."),
            "short_indices": S.string(doc="The status of emitting into arrays one index short."),
            "short_indices_unchanged": S.boolean(doc="Whether both arrays were left unchanged by it.")},
            doc="Optional capacity probe: TryEmitSweepMesh into arrays one entry short.")}),
        model=S.model("[position, frame, vertex, normal]", SWEEP_VERTEX_K), plant=_plant_rings),
    "sweep.error_estimates": RowContract(
        checks="periodic frames exactly on a closed path; the frames' estimate A at most 2 tangent_angle_error "
               "plus 2^20 x 64 u (when given); estimates in [0, requested]; a tube's N the fewest >= 3 "
               "with r_max (1 - cos(pi / N)) <= "
               "cross_section_error at the largest profile scale and the cross-section estimate that sagitta "
               "(decisions and value within 8 u r_max), a ribbon's estimate 0; "
               "per ring the exact enclosure of half-extent x curvature against the "
               f"flag outside a relative band 2^-40, count = flags; the ideal surface's (true RMF; profile and, on a "
               f"periodic loop, the twist (2 pi W - R) s / L at distances in proportion to the arc length between "
               f"rings) sampled distance "
               f"to the mesh at most {ACCEPTANCE_FACTOR:g} (l + c) + {ACCEPTANCE_FACTOR:g} S_max A + allowance "
               "(Violated confirmed against every triangle; Verified when refinement 2 -> 4 moved it by less than "
               "half the margin); every ring vertex within "
               f"{ACCEPTANCE_FACTOR:g} S_max A + allowance of the ideal section point at its own angle 2 pi j / N (a "
               "ribbon's -/+ half width), turned by the profile's roll (on periodic frames, given distance_error: "
               "plus the distributed twist (2 pi W - R) s / L at the ring's true arc length, within a further "
               f"{ACCEPTANCE_FACTOR:g} S_max A and S_max times the twist tolerance d (L + s) / (L (L - d)) of the "
               "frame row's rule); calibration true / (l + c) binned.",
        inputs=S.obj(required={**_COMMON,
                               "rings": S.array(S.tuple_(S.integer(minimum=0), _F64V, _F64V), min_items=2, doc=(
                                   "Yours: the plan's rings, each [span, u, distance (estimated, asset units)].")),
                               "profile": _PROFILE,
                               "seed_normal": S.described(_V3, "Yours: the frames' first sample normal (the seed)."),
                               "periodic": S.boolean(doc="Yours: whether the frames are periodic (DistributeTwist)."),
                               "winding_turns": S.integer(doc="Given: FramePreparation.WindingTurns."),
                               "total": S.f64(doc="Yours: the distance map's TotalEstimate, asset units."),
                               "longitudinal_error": S.f64(doc="Given: SweepRequest.LongitudinalError, asset units."),
                               "cross_section_error": S.f64(doc="Given: SweepRequest.CrossSectionError, asset units."),
                               "angular_error_estimate": S.f64(doc=(
                                   "Yours: the frames' AngularErrorEstimate, radians: an Estimated value, so an "
                                   f"estimate is what is asked; it widens the acceptance by {ACCEPTANCE_FACTOR:g} x "
                                   "the largest scale x it (0 makes the check strictest)."))},
                     optional={"case": S.string(doc="Given: a name for people (ignored by the checker)."),
                               "distance_error": S.f64(nonnegative=True, doc=(
                                   "Given: ToleranceProfile.DistanceError, asset units. On periodic frames it bounds "
                                   "how far the distributed twist may follow estimated rather than true distances; "
                                   "without it a periodic sweep's ring vertices are not judged at their angles.")),
                               "tangent_angle_error": S.f64(nonnegative=True, doc=(
                                   "Given: ToleranceProfile.TangentAngleError, radians. It caps "
                                   "angular_error_estimate at 2 TangentAngleError plus the rounding floor (the frames' "
                                   "acceptance rule); without it the estimate is taken as given."))}),
        value=S.obj(required={**_MESH,
                              "longitudinal": S.f64(doc="The report's longitudinal error estimate, asset units."),
                              "cross_section": S.f64(doc=(
                                  "The report's cross-section error estimate, asset units (a tube's sagitta "
                                  "r_max (1 - cos(pi / N)); a ribbon's 0).")),
                              "risk_count": S.integer(minimum=0, doc="SelfIntersectionRiskCount: the flagged rings."),
                              "risk_flags": S.array(S.boolean(), doc=(
                                  "Per ring, whether its section half-extent times the path curvature reaches 1."))}),
        plant=_plant_estimates),
}
