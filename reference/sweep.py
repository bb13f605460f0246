"""Sweep meshes (``sweep.hpp``): plan rings along a path with transported frames, emit tubes and
ribbons into caller arrays.

**Planning** (:func:`try_plan_sweep_mesh`) validates the request (every count, limit and
numeric range), the caches (distance map and frames built for this path), and the frames'
shape: one run over the whole path, no singular range, G1 joints (and, on a closed path, the
closing joint G1 and periodic frames, ``ClosedFramePolicy.DistributeTwist``); otherwise
DegenerateFrame telling the caller to split the path and sweep each piece.

* *Section.* A tube of radius ``r`` is the regular N-gon through ``r (cos a N + sin a B)``,
  ``a = 2 pi j / N``. Its cross-section error is the sagitta ``r_max (1 - cos(pi / N))`` at the
  largest profile scale; N is the fewest segments (at least 3) whose sagitta fits
  ``cross_section_error`` (BudgetExceeded above ``max_section_segments``). A ribbon of width
  ``w`` has the two edge points ``-/+ (w / 2) B``; its section is exact (error 0).
* *Profile.* Scale and roll are linear in the distance map's estimated prefix distance between
  keys and clamped outside them.
* *Rings.* Each span starts a ring and is stepped over dyadic intervals ``[a, b]``. An interval
  is accepted when ``hull(a, b) + offset(a, b) <= longitudinal_error``: ``hull`` the largest
  distance of the subsegment's inner controls from its chord line (the curve lies in the
  hull, so it bounds the curve's distance from the chord), ``offset`` the largest midpoint
  deviation ``|o_j(m) - (o_j(a) + o_j(b)) / 2|`` of every section point's frame-rotated,
  scaled offset ``o_j`` (``m`` the midpoint), plus a quarter of the largest quad twist
  ``|o_j(a) - o_j(b) - o_{j+1}(a) + o_{j+1}(b)|`` (how far a quad's two triangles leave the
  bilinear quad: a rolling or twisting section; an addition to the spec's rule that only makes
  it stricter, ``docs/decisions.md`` "Sweeps: ring acceptance"). Otherwise the interval is halved (up to
  ``limits.max_depth``, BudgetExceeded beyond it). Rings sit at every accepted interval's
  start and at the path end. ``LongitudinalErrorEstimate`` is the largest accepted sum.
* *Risk.* ``self_intersection_risk_count`` counts rings where the section half-extent (tube:
  scale; ribbon: scale / 2) times the path curvature ``|B' x B''| / |B'|^3`` reaches 1.

**Mesh rules** (spec 002 "Sweeps"): a ribbon ring emits its -Binormal then +Binormal edge and
faces the frame normal, without caps; a tube ring repeats its first vertex (position and
normal bitwise) with U = 1; Flat caps close an open tube with a fan per end (centre vertex plus
rim vertices copying the ring positions bitwise, all carrying the cap normal -T at the start,
+T at the end); V is the estimated path distance; a closed path's last ring copies the first
ring's positions and normals with V = ``TotalEstimate``; triangles are counterclockwise seen
from the side their normals face unless ``SweepWinding.Clockwise``.

Vertex layout: float64 rows ``[px, py, pz, nx, ny, nz, U, V]`` (chunk-relative positions).

Guarantees: ring frames and vertices Rounded (``SWEEP_VERTEX_K``); both error estimates and the
risk count Estimated.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from . import kernel as K
from .context import F64
from .distance import DistanceMapView, try_bound_distance
from .frame import FramesView, try_evaluate_frame
from .owner import Owner, readonly
from .path import JointContinuity, PathView
from .status import (
    GeometryStatus,
    Outcome,
    SegmentParameter,
    SpanSide,
    WorkLimits,
    failure,
    is_finite_real,
    is_int,
    overlap_failure,
    reported,
    success,
    validate_limits,
)

__all__ = [
    "ERROR_RANGE",
    "MAX_SECTION_SEGMENTS",
    "RING_BYTES",
    "SWEEP_VERTEX_K",
    "VERTEX_WIDTH",
    "SweepCaps",
    "SweepMeshPlan",
    "SweepMeshPlanView",
    "SweepProfileKey",
    "SweepReport",
    "SweepRequest",
    "SweepSection",
    "SweepWinding",
    "profile_at",
    "section_angles",
    "try_emit_sweep_mesh",
    "try_plan_sweep_mesh",
]

VERTEX_WIDTH = 8  # px py pz nx ny nz U V
MAX_SECTION_SEGMENTS = 1 << 16
MAX_COUNT = 2**31 - 1
# LongitudinalError and CrossSectionError: finite, in this closed range (asset units).
ERROR_RANGE = (1e-12, 1e12)
# Rounding constant of ring vertices (docs/decisions.md "Sweeps: the vertex error model").
SWEEP_VERTEX_K = 16.0
# Bytes per planned ring: span (4), u (8), distance, scale, roll (24), position, tangent, normal,
# binormal (96), curvature product (8).
RING_BYTES = 4 + 8 + 24 + 96 + 8


class SweepSection(enum.Enum):
    """The swept cross-section."""

    Tube = "Tube"
    Ribbon = "Ribbon"


class SweepCaps(enum.Enum):
    """End caps of an open tube. ``None_`` is the spec's ``SweepCaps::None``."""

    None_ = "None"
    Flat = "Flat"


class SweepWinding(enum.Enum):
    """Triangle orientation seen from the side the normals face."""

    CounterClockwise = "CounterClockwise"
    Clockwise = "Clockwise"


@dataclass(frozen=True)
class SweepProfileKey:
    """A profile key: at estimated path distance ``distance`` the section has ``scale`` (tube
    radius or ribbon width, asset units, > 0) and ``roll`` (radians about the tangent)."""

    distance: float
    scale: float
    roll: float


@dataclass(frozen=True)
class SweepRequest:
    """Sweep settings, all required (no defaults).

    Attributes:
        section: :class:`SweepSection`.
        profile: nonempty sequence of :class:`SweepProfileKey`, strictly increasing distance.
        caps: :class:`SweepCaps` (Flat only for a tube; a closed tube has no ends to close).
        winding: :class:`SweepWinding`.
        longitudinal_error, cross_section_error: asset units, in ``ERROR_RANGE``.
        max_section_segments: int in ``[3, MAX_SECTION_SEGMENTS]`` (a tube's polygon limit).
        max_vertex_count, max_index_count: ints in ``[0, 2^31 - 1]``.
        limits: ``WorkLimits``: ``max_depth`` (ring interval depth), ``max_subdivisions``
            (interval splits), ``max_samples`` (rings), ``max_prepared_bytes``.
    """

    section: SweepSection
    profile: Sequence
    caps: SweepCaps
    winding: SweepWinding
    longitudinal_error: float
    cross_section_error: float
    max_section_segments: int
    max_vertex_count: int
    max_index_count: int
    limits: WorkLimits


@dataclass(frozen=True)
class SweepReport:
    """``SweepMeshPlan::Report``: counts (exact), error estimates and risk count (Estimated)."""

    ring_count: int
    section_segments: int
    vertex_count: int
    index_count: int
    longitudinal_error_estimate: float
    cross_section_error_estimate: float
    self_intersection_risk_count: int


@dataclass(frozen=True)
class SweepMeshPlanView:
    """A read-only plan. Ring arrays (read-only) are in path order; a closed path's last ring
    is the copy of the first (``ring_span``/``ring_u`` name the path end there).

    Attributes:
        revision, span_count: the path the plan was made for.
        section, caps, winding: from the request (``caps`` is what is emitted).
        is_closed: a closed path.
        report: :class:`SweepReport`.
        ring_span (r,) int32, ring_u (r,) float64: ring parameters.
        ring_distance, ring_scale, ring_roll: (r,) float64 (V, scale, roll).
        ring_position, ring_tangent, ring_normal, ring_binormal: (r, 3) float64 rolled frames.
        ring_risk: (r,) float64 half-extent x curvature (Estimated).
        ring_error: (r,) float64 accepted longitudinal error of the interval starting at each
            ring (0 at the last).
        total_distance: ``TotalEstimate``.
    """

    revision: int
    span_count: int
    section: SweepSection
    caps: SweepCaps
    winding: SweepWinding
    is_closed: bool
    report: SweepReport
    ring_span: np.ndarray
    ring_u: np.ndarray
    ring_distance: np.ndarray
    ring_scale: np.ndarray
    ring_roll: np.ndarray
    ring_position: np.ndarray
    ring_tangent: np.ndarray
    ring_normal: np.ndarray
    ring_binormal: np.ndarray
    ring_risk: np.ndarray
    ring_error: np.ndarray
    total_distance: float


class SweepMeshPlan(Owner):
    """An immutable sweep plan; ``view()`` returns its :class:`SweepMeshPlanView`."""

    __slots__ = ()


# --- Helpers ---------------------------------------------------------------------------------


def section_angles(segments: int):
    """``(cos a_j, sin a_j)`` for ``a_j = 2 pi j / N``, j = 0..N-1, float64; quarter turns are
    exact (1, 0, -1) so axis-aligned sections land on exact positions. Rounded."""
    j = np.arange(segments)
    a = 2.0 * math.pi * j / segments
    c, s = np.cos(a), np.sin(a)
    q = (4 * j) % segments == 0
    quarter = (4 * j[q]) // segments
    c[q] = np.array([1.0, 0.0, -1.0, 0.0])[quarter]
    s[q] = np.array([0.0, 1.0, 0.0, -1.0])[quarter]
    return c, s


def profile_at(profile, distance: float):
    """Scale and roll at ``distance``: linear between keys, clamped outside. Rounded."""
    d = [float(k.distance) for k in profile]
    if distance <= d[0]:
        return float(profile[0].scale), float(profile[0].roll)
    if distance >= d[-1]:
        return float(profile[-1].scale), float(profile[-1].roll)
    i = int(np.searchsorted(d, distance, side="right")) - 1
    a, b = profile[i], profile[i + 1]
    t = (distance - d[i]) / (d[i + 1] - d[i])
    return (float(a.scale) + (float(b.scale) - float(a.scale)) * t,
            float(a.roll) + (float(b.roll) - float(a.roll)) * t)


def _finite(x) -> bool:
    return is_finite_real(x)  # an int beyond the float64 range is not finite (and does not raise)


def _check_request(req: SweepRequest) -> Outcome | None:
    bad = validate_limits(req.limits) if isinstance(req.limits, WorkLimits) else failure(
        GeometryStatus.InvalidArgument, "limits must be a WorkLimits", field="limits")
    if not bad.ok:
        return bad
    for name, kind in (("section", SweepSection), ("caps", SweepCaps), ("winding", SweepWinding)):
        if not isinstance(getattr(req, name), kind):
            return failure(GeometryStatus.InvalidArgument, f"{name} must be a {kind.__name__}", field=name)
    if req.section is SweepSection.Ribbon and req.caps is not SweepCaps.None_:
        return failure(GeometryStatus.InvalidArgument, "a ribbon has no caps: caps must be SweepCaps.None_",
                       field="caps")
    prof = req.profile
    if prof is None or isinstance(prof, (str, bytes)) or not hasattr(prof, "__len__") or len(prof) == 0:
        return failure(GeometryStatus.InvalidArgument, "the profile must hold at least one key", field="profile")
    if len(prof) > MAX_COUNT:
        return failure(GeometryStatus.InvalidArgument, "too many profile keys", field="profile")
    for i, k in enumerate(prof):
        if not isinstance(k, SweepProfileKey):
            return failure(GeometryStatus.InvalidArgument, f"profile[{i}] is not a SweepProfileKey",
                           field="profile", index=i)
        for name in ("distance", "scale", "roll"):
            if not _finite(getattr(k, name)):
                return failure(GeometryStatus.InvalidArgument,
                               f"profile[{i}].{name} = {getattr(k, name)!r} must be a finite real",
                               field=f"profile.{name}", index=i)
        if not float(k.scale) > 0.0:
            return failure(GeometryStatus.InvalidDomain,
                           f"profile[{i}].scale = {k.scale!r} must be positive (never normalized away)",
                           field="profile.scale", index=i, value=float(k.scale))
        if i > 0 and not float(k.distance) > float(prof[i - 1].distance):
            return failure(GeometryStatus.InvalidArgument,
                           f"profile distances must increase strictly: key {i} is at {k.distance!r}, key {i - 1} "
                           f"at {prof[i - 1].distance!r}", field="profile.distance", index=i)
    for name in ("longitudinal_error", "cross_section_error"):
        v = getattr(req, name)
        if not _finite(v) or not ERROR_RANGE[0] <= float(v) <= ERROR_RANGE[1]:
            return failure(GeometryStatus.InvalidArgument,
                           f"{name} = {v!r} must be finite in [{ERROR_RANGE[0]!r}, {ERROR_RANGE[1]!r}]", field=name)
    m = req.max_section_segments
    if not is_int(m) or not 3 <= int(m) <= MAX_SECTION_SEGMENTS:
        return failure(GeometryStatus.InvalidArgument,
                       f"max_section_segments = {m!r} must be an int in [3, {MAX_SECTION_SEGMENTS}]",
                       field="max_section_segments")
    for name in ("max_vertex_count", "max_index_count"):
        v = getattr(req, name)
        if not is_int(v) or not 0 <= int(v) <= MAX_COUNT:
            return failure(GeometryStatus.InvalidArgument, f"{name} = {v!r} must be an int in [0, 2^31 - 1]",
                           field=name)
    return None


def _check_caches(path: PathView, dmap: DistanceMapView, frames: FramesView) -> Outcome | None:
    if not dmap.is_built:
        return failure(GeometryStatus.MissingCache, "the distance map was never built", field="distance_map")
    if dmap.revision != path.revision or dmap.span_count != path.span_count:
        return failure(GeometryStatus.StaleRevision, "the distance map belongs to another path revision",
                       field="distance_map")
    if not frames.is_built:
        return failure(GeometryStatus.MissingCache, "the frames were never built", field="frames")
    if frames.revision != path.revision or frames.span_count != path.span_count:
        return failure(GeometryStatus.StaleRevision,
                       f"the frames were built for revision {frames.revision} with {frames.span_count} spans, "
                       f"the path is revision {path.revision} with {path.span_count}", field="frames")
    n = path.span_count
    split = "; split the path at singularities and corners and sweep each piece"
    if frames.ranges or len(frames.runs) != 1:
        return failure(GeometryStatus.DegenerateFrame,
                       f"the frames have {len(frames.runs)} runs and {len(frames.ranges)} singular ranges: a sweep "
                       f"needs one run over the whole path" + split, field="frames")
    run = frames.runs[0]
    if run.start != SegmentParameter(0, 0.0) or run.end != SegmentParameter(n - 1, 1.0):
        return failure(GeometryStatus.DegenerateFrame, "the frames' run does not cover the whole path" + split,
                       field="frames")
    for j in path.joints:
        if j.continuity < JointContinuity.G1:
            return failure(GeometryStatus.DegenerateFrame, f"joint {j.index} is not G1" + split, field="joints",
                           index=j.index)
    if path.is_closed and not frames.is_periodic:
        return failure(GeometryStatus.DegenerateFrame,
                       "a closed path needs periodic frames (ClosedFramePolicy.DistributeTwist)", field="frames")
    return None


def _tube_segments(r_max: float, err: float, limit: int):
    """Fewest N >= 3 with ``r_max (1 - cos(pi / N)) <= err``, or None above ``limit``."""
    if r_max * 2.0 <= err:
        return 3, r_max * (1.0 - math.cos(math.pi / 3))
    # 1 - cos(pi/N) = 2 sin^2(pi / 2N) <= err / r  ->  N >= pi / (2 asin(sqrt(err / 2r))).
    n = max(3, int(math.ceil(math.pi / (2.0 * math.asin(math.sqrt(err / (2.0 * r_max))))) - 1))
    if n > limit + 2:
        # The estimate is within a step of the answer wherever 1 - cos(pi / N) is computed
        # accurately (N far below 2^20); above the limit, stepping down to it one N at a time
        # would walk from 10^9 (or 10^150) where cos rounds to 1 (a hang, not a status).
        return None
    while r_max * (1.0 - math.cos(math.pi / n)) > err:
        n += 1
        if n > limit:
            return None
    while n > 3 and r_max * (1.0 - math.cos(math.pi / (n - 1))) <= err:
        n -= 1
    if n > limit:
        return None
    return n, r_max * (1.0 - math.cos(math.pi / n))


class _Ctx:
    def __init__(self, path, dmap, frames, req, cos_a, sin_a):
        self.path, self.dmap, self.frames, self.req = path, dmap, frames, req
        self.cos_a, self.sin_a = cos_a, sin_a
        self.ribbon = req.section is SweepSection.Ribbon

    def ring(self, k: int, u: float):
        """(distance, scale, roll, frame) at (k, u), or a failed Outcome."""
        d = try_bound_distance(self.path, self.dmap, SegmentParameter(k, u))
        if not d.ok:
            return d
        s = float(d.value.estimate)
        scale, roll = profile_at(self.req.profile, s)
        f = try_evaluate_frame(self.path, self.frames, SegmentParameter(k, u), roll,
                               SpanSide.Incoming if u == 1.0 else SpanSide.Outgoing)
        if not f.ok:
            return f
        return s, scale, roll, f.value

    def offsets(self, scale, frame):
        """(P, 3) section-point offsets from the path position."""
        N, B = np.asarray(frame.normal), np.asarray(frame.binormal)
        if self.ribbon:
            h = 0.5 * scale
            return np.stack([-h * B, h * B])
        return scale * (self.cos_a[:, None] * N + self.sin_a[:, None] * B)


def _hull_distance(P, a, b) -> float:
    Q = K.cubic_subsegment(F64, P, np.float64(a), np.float64(b))
    c = Q[3] - Q[0]
    cc = float(np.dot(c, c))
    out = 0.0
    for i in (1, 2):
        v = Q[i] - Q[0]
        if cc > 0:
            w = v - c * (float(np.dot(v, c)) / cc)
        else:
            w = v
        out = max(out, float(np.sqrt(np.dot(w, w))))
    return out


def _curvature(P, u) -> float:
    d = K.cubic_derivative(F64, P, np.float64(u))
    dd = K.cubic_second_derivative(F64, P, np.float64(u))
    sp = float(np.sqrt(np.dot(d, d)))
    if not sp > 0:
        return math.inf  # pragma: no cover - one regular run excludes zero speed
    x = K.cross(F64, d, dd)
    return float(np.sqrt(np.dot(x, x))) / sp**3


def try_plan_sweep_mesh(path_view: PathView, distance_map_view: DistanceMapView, frames_view: FramesView,
                        request: SweepRequest, diagnostic: list | None = None) -> Outcome:
    """``TryPlanSweepMesh``: choose rings and section segments and validate every count.

    Checks, in order (the first failure is returned and appended to ``diagnostic``): the
    request (InvalidArgument for types, profile order, nonfinite values, errors and counts out
    of range; InvalidDomain for a nonpositive scale); the caches (MissingCache, StaleRevision
    for a map or frames of another path or revision); the frames' shape (DegenerateFrame: one
    run over the whole path, G1 joints, periodic frames on a closed path); a tube's segment
    count (BudgetExceeded above ``max_section_segments``); ring stepping (BudgetExceeded past
    ``max_depth``, ``max_subdivisions``, ``max_samples`` rings or ``max_prepared_bytes``);
    vertex and index counts (CapacityExceeded above ``max_vertex_count`` /
    ``max_index_count``).

    Returns:
        ``Outcome`` of a :class:`SweepMeshPlan`. Ring frames Rounded; the report's error
        estimates and risk count Estimated; counts exact.
    """
    return reported(_plan(path_view, distance_map_view, frames_view, request), diagnostic)


def _plan(path, dmap, frames, req) -> Outcome:
    if not isinstance(path, PathView) or not isinstance(dmap, DistanceMapView) \
            or not isinstance(frames, FramesView) or not isinstance(req, SweepRequest):
        raise TypeError("try_plan_sweep_mesh(PathView, DistanceMapView, FramesView, SweepRequest)")
    bad = _check_request(req)
    if bad is not None:
        return bad
    bad = _check_caches(path, dmap, frames)
    if bad is not None:
        return bad
    limits = req.limits
    if path.is_closed:
        # The last ring copies the first, so the profile must close too: same scale, and a roll
        # that differs by whole turns (to float64 rounding of 2 pi k).
        L = float(dmap.total_estimate)
        s0, r0 = profile_at(req.profile, 0.0)
        s1, r1 = profile_at(req.profile, L)
        turns = (r1 - r0) / (2.0 * math.pi)
        if s0 != s1 or abs(turns - round(turns)) > 1e-12 * max(1.0, abs(turns)):
            return failure(GeometryStatus.InvalidArgument,
                           f"a closed path's profile must be periodic: scale {s0!r} / {s1!r} and roll {r0!r} / "
                           f"{r1!r} at distance 0 / TotalEstimate", field="profile")
    r_max = max(float(k.scale) for k in req.profile)
    if req.section is SweepSection.Tube:
        got = _tube_segments(r_max, float(req.cross_section_error), int(req.max_section_segments))
        if got is None:
            return failure(GeometryStatus.BudgetExceeded,
                           f"a tube of radius {r_max!r} needs more than max_section_segments = "
                           f"{req.max_section_segments} segments for cross_section_error = "
                           f"{req.cross_section_error!r}", field="max_section_segments")
        nseg, xerr = got
        c, s = section_angles(nseg)
    else:
        nseg, xerr = 1, 0.0
        c = s = np.zeros(0)
    ctx = _Ctx(path, dmap, frames, req, c, s)
    lerr = float(req.longitudinal_error)
    rings = []  # (k, u, s, scale, roll, frame, error)
    splits = 0
    n = path.span_count
    for k in range(n):
        P = path.controls[k].astype(np.float64)
        stack = [(0.0, 1.0, 0)]
        first = ctx.ring(k, 0.0)
        if not isinstance(first, tuple):
            return first
        cache = {0.0: first}
        while stack:
            a, b, depth = stack.pop()
            if b not in cache:
                got = ctx.ring(k, b)
                if not isinstance(got, tuple):
                    return got
                cache[b] = got
            m = 0.5 * (a + b)
            gm = ctx.ring(k, m)
            if not isinstance(gm, tuple):
                return gm
            ra, rb = cache[a], cache[b]
            oa, ob, om = ctx.offsets(ra[1], ra[3]), ctx.offsets(rb[1], rb[3]), ctx.offsets(gm[1], gm[3])
            dev = float(np.max(np.sqrt(np.sum((om - 0.5 * (oa + ob)) ** 2, axis=1))))
            # Twist of each quad: its two triangles leave the bilinear quad by (a + d - b - c) / 4
            # at the centre (a rolled or twisting section), which no section point's midpoint sees.
            # Only the part normal to the quad leaves the surface (a tapering quad stays planar).
            nxt = np.roll(np.arange(oa.shape[0]), -1) if not ctx.ribbon else np.array([1, 0])
            tw = (oa - ob) - (oa[nxt] - ob[nxt])
            xa, xb = np.asarray(ra[3].position), np.asarray(rb[3].position)
            qn = np.cross(oa[nxt] - oa, (xb + ob) - (xa + oa))
            qq = np.sqrt(np.sum(qn * qn, axis=1))
            out = np.where(qq > 0, np.abs(np.sum(tw * qn, axis=1)) / np.where(qq > 0, qq, 1.0),
                           np.sqrt(np.sum(tw * tw, axis=1)))
            dev += 0.25 * float(np.max(out))
            e = _hull_distance(P, a, b) + dev
            if e <= lerr:
                rings.append((k, a) + ra + (e,))
                if len(rings) + 1 > limits.max_samples:
                    return failure(GeometryStatus.BudgetExceeded,
                                   f"more than max_samples = {limits.max_samples} rings", field="max_samples")
                continue
            if depth + 1 > limits.max_depth:
                return failure(GeometryStatus.BudgetExceeded,
                               f"span {k}: interval [{a!r}, {b!r}] misses longitudinal_error = {lerr!r} at "
                               f"max_depth = {limits.max_depth}", field="max_depth", index=k, achieved=e)
            splits += 1
            if splits > limits.max_subdivisions:
                return failure(GeometryStatus.BudgetExceeded,
                               f"more than max_subdivisions = {limits.max_subdivisions} interval splits",
                               field="max_subdivisions")
            cache[m] = gm
            stack.append((m, b, depth + 1))  # popped second: rings come out in path order
            stack.append((a, m, depth + 1))
    last = ctx.ring(n - 1, 1.0)
    if not isinstance(last, tuple):
        return last
    rings.append((n - 1, 1.0) + last + (0.0,))
    r = len(rings)
    if r * RING_BYTES > limits.max_prepared_bytes:
        return failure(GeometryStatus.BudgetExceeded, f"{r * RING_BYTES} plan bytes exceed max_prepared_bytes",
                       field="max_prepared_bytes")
    tube = req.section is SweepSection.Tube
    caps = req.caps if (tube and not path.is_closed) else SweepCaps.None_
    per_ring = nseg + 1 if tube else 2
    vcount = r * per_ring + (2 * (nseg + 1) if caps is SweepCaps.Flat else 0)
    icount = (r - 1) * (nseg if tube else 1) * 6 + (2 * nseg * 3 if caps is SweepCaps.Flat else 0)
    if vcount > req.max_vertex_count:
        return failure(GeometryStatus.CapacityExceeded,
                       f"{vcount} vertices exceed max_vertex_count = {req.max_vertex_count}",
                       field="max_vertex_count", value=float(vcount))
    if icount > req.max_index_count:
        return failure(GeometryStatus.CapacityExceeded,
                       f"{icount} indices exceed max_index_count = {req.max_index_count}",
                       field="max_index_count", value=float(icount))
    span = np.array([g[0] for g in rings], dtype=np.int32)
    us = np.array([g[1] for g in rings], dtype=np.float64)
    dist = np.array([g[2] for g in rings])
    scale = np.array([g[3] for g in rings])
    roll = np.array([g[4] for g in rings])
    X = np.array([np.asarray(g[5].position) for g in rings])
    T = np.array([np.asarray(g[5].tangent) for g in rings])
    N = np.array([np.asarray(g[5].normal) for g in rings])
    B = np.array([np.asarray(g[5].binormal) for g in rings])
    err = np.array([g[6] for g in rings])
    if path.is_closed:
        # The last ring copies the first ring's frame (so its positions and normals are the
        # first ring's, bitwise) with V = TotalEstimate.
        X[-1], T[-1], N[-1], B[-1] = X[0], T[0], N[0], B[0]
        scale[-1], roll[-1] = scale[0], roll[0]
        dist[-1] = float(dmap.total_estimate)
    half = scale if tube else 0.5 * scale
    kappa = np.array([_curvature(path.controls[k].astype(np.float64), u) for k, u in zip(span, us)])
    risk = half * kappa
    report = SweepReport(ring_count=r, section_segments=nseg, vertex_count=vcount, index_count=icount,
                         longitudinal_error_estimate=float(np.max(err)), cross_section_error_estimate=float(xerr),
                         self_intersection_risk_count=int(np.sum(risk >= 1.0)))
    view = SweepMeshPlanView(
        revision=path.revision, span_count=n, section=req.section, caps=caps, winding=req.winding,
        is_closed=bool(path.is_closed), report=report, ring_span=readonly(span), ring_u=readonly(us),
        ring_distance=readonly(dist), ring_scale=readonly(scale), ring_roll=readonly(roll),
        ring_position=readonly(X), ring_tangent=readonly(T), ring_normal=readonly(N), ring_binormal=readonly(B),
        ring_risk=readonly(risk), ring_error=readonly(err), total_distance=float(dmap.total_estimate))
    return success(SweepMeshPlan(view))


# --- Emission --------------------------------------------------------------------------------


def _ring_vertices(plan: SweepMeshPlanView, i: int, c, s):
    x, N, B, sc = plan.ring_position[i], plan.ring_normal[i], plan.ring_binormal[i], plan.ring_scale[i]
    V = plan.ring_distance[i]
    if plan.section is SweepSection.Ribbon:
        h = 0.5 * sc
        pos = np.stack([x - h * B, x + h * B])
        nrm = np.stack([N, N])
        U = np.array([0.0, 1.0])
    else:
        nseg = c.shape[0]
        dirs = c[:, None] * N + s[:, None] * B
        pos = x + sc * dirs
        pos = np.vstack([pos, pos[:1]])  # the seam repeats the first vertex bitwise
        nrm = np.vstack([dirs, dirs[:1]])
        U = np.arange(nseg + 1) / nseg
    out = np.empty((pos.shape[0], VERTEX_WIDTH))
    out[:, 0:3], out[:, 3:6], out[:, 6], out[:, 7] = pos, nrm, U, V
    return out


def _build_mesh(plan: SweepMeshPlanView):
    rep = plan.report
    nseg = rep.section_segments
    tube = plan.section is SweepSection.Tube
    c, s = section_angles(nseg) if tube else (None, None)
    rings = [_ring_vertices(plan, i, c, s) for i in range(rep.ring_count)]
    if plan.is_closed:
        rings[-1][:, 0:6] = rings[0][:, 0:6]  # bitwise copies of the first ring's positions, normals
    verts = np.vstack(rings)
    per = nseg + 1 if tube else 2
    tris = []
    quads = nseg if tube else 1
    i = np.arange(rep.ring_count - 1)[:, None]
    j = np.arange(quads)[None, :]
    a, b = i * per + j, i * per + j + 1
    c2, d = a + per, b + per
    t1 = np.stack([a, b, c2], axis=-1).reshape(-1, 3)
    t2 = np.stack([b, d, c2], axis=-1).reshape(-1, 3)
    tris.append(np.stack([t1, t2], axis=1).reshape(-1, 3))
    if plan.caps is SweepCaps.Flat:
        extra = []
        for end, sign in ((0, -1.0), (rep.ring_count - 1, 1.0)):
            base = verts.shape[0] + sum(e.shape[0] for e in extra)
            ring = rings[end]
            n = sign * plan.ring_tangent[end]
            cap = np.empty((nseg + 1, VERTEX_WIDTH))
            cap[0, 0:3] = plan.ring_position[end]
            cap[1:, 0:3] = ring[:nseg, 0:3]  # rim: the ring positions, bitwise
            cap[:, 3:6] = n
            cap[0, 6] = 0.5
            cap[1:, 6] = ring[:nseg, 6]
            cap[:, 7] = plan.ring_distance[end]
            extra.append(cap)
            rim = base + 1 + np.arange(nseg)
            nxt = base + 1 + (np.arange(nseg) + 1) % nseg
            ctr = np.full(nseg, base)
            # (centre, j, j + 1) faces +T: the end cap; the start cap faces -T.
            fan = np.stack([ctr, rim, nxt] if sign > 0 else [ctr, nxt, rim], axis=-1)
            tris.append(fan)
        verts = np.vstack([verts] + extra)
    T = np.vstack(tris).astype(np.int64)
    if plan.winding is SweepWinding.Clockwise:
        T = T[:, [0, 2, 1]]
    return verts, T.reshape(-1)


def try_emit_sweep_mesh(path_view: PathView, plan_view: SweepMeshPlanView, vertices: np.ndarray,
                        indices: np.ndarray) -> Outcome:
    """``TryEmitSweepMesh``: write the planned mesh into caller arrays.

    ``vertices``: writeable float64 array of shape ``(>= vertex_count, 8)`` (rows ``[px, py,
    pz, nx, ny, nz, U, V]``); ``indices``: writeable integer array of shape
    ``(>= index_count,)``, three per triangle. Checks before writing anything: the plan's
    pinned path revision and span count (StaleRevision); array types, dtypes and shapes
    (InvalidArgument); both capacities (CapacityExceeded). Positions and normals Rounded
    (``SWEEP_VERTEX_K``); U exact; V Estimated distance.

    Returns:
        ``Outcome`` of ``(vertex_count, index_count)``.
    """
    if not isinstance(path_view, PathView) or not isinstance(plan_view, SweepMeshPlanView):
        raise TypeError("try_emit_sweep_mesh(PathView, SweepMeshPlanView, vertices, indices)")
    if plan_view.revision != path_view.revision or plan_view.span_count != path_view.span_count:
        return failure(GeometryStatus.StaleRevision,
                       f"the plan pins revision {plan_view.revision}, the path is revision {path_view.revision}",
                       field="revision")
    if not isinstance(vertices, np.ndarray) or vertices.dtype != np.float64 or vertices.ndim != 2 \
            or vertices.shape[1] != VERTEX_WIDTH or not vertices.flags.writeable:
        return failure(GeometryStatus.InvalidArgument, "vertices must be a writeable float64 (m, 8) array",
                       field="vertices")
    if not isinstance(indices, np.ndarray) or indices.dtype.kind not in "iu" or indices.ndim != 1 \
            or not indices.flags.writeable:
        return failure(GeometryStatus.InvalidArgument, "indices must be a writeable 1-d integer array",
                       field="indices")
    clash = overlap_failure((("vertices", vertices), ("indices", indices)))
    if clash is not None:
        return clash
    rep = plan_view.report
    if vertices.shape[0] < rep.vertex_count:
        return failure(GeometryStatus.CapacityExceeded,
                       f"vertices hold {vertices.shape[0]} rows, the plan needs {rep.vertex_count}",
                       field="vertices", value=float(rep.vertex_count))
    if indices.shape[0] < rep.index_count:
        return failure(GeometryStatus.CapacityExceeded,
                       f"indices hold {indices.shape[0]} entries, the plan needs {rep.index_count}",
                       field="indices", value=float(rep.index_count))
    if rep.vertex_count > 0 and np.iinfo(indices.dtype).max < rep.vertex_count - 1:
        return failure(GeometryStatus.CapacityExceeded, "the index type cannot name every vertex",
                       field="indices")
    verts, idx = _build_mesh(plan_view)
    vertices[: verts.shape[0]] = verts
    indices[: idx.shape[0]] = idx
    return success((int(verts.shape[0]), int(idx.shape[0])))
