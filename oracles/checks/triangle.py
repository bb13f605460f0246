"""Triangle-surface family (spec 004): corpus, claims of the fast path, and the four checkers.

Rows and what their checkers show, from ``claim.inputs`` alone (the exact truth comes from
``interval.triangle``; the fast path's a-priori error model, documented in
``reference.triangle_surface`` and ``docs/decisions.md``, is evaluated here from exact
quantities):

Bands (spec 004: a computed boundary value within the tolerance plus its rounding uncertainty is
ambiguous, an exact 0 or 1 is accepted, one ambiguous facet rejects the query). For a facet's
boundary quantities (``t``, ``1 - t``, the three weights) the oracle has the exact value ``X``
and the model's bound ``R`` of the computed value's error (under the exactness clause the
computed ``t`` itself). A quantity is certainly *inside its band* when ``R < |X| <= tol``, and
certainly *not a miss* when ``X - R >= -tol``. A facet whose exact box meets the segment's, whose
crossing branch is certain (not near-parallel by the documented band widened twice) and none of
whose quantities can be a miss is *forced in*: a hit or ambiguous in every conforming run; if one
of its quantities is certainly inside its band, it is *forced into a band* and the query must be
Ambiguous. A surface spec 004 makes ``TriangleSurface.new`` reject (a facet of zero area, one with
``G + 32u <= tol``, a coordinate beyond ``2^1000``) or a query it rejects makes every claim
Violated.

* ``triangle.first_hit`` (Rounded). A hit ``(t, triangle, position)``: the claimed facet is
  crossed (not parallel, error model bounded), ``t`` is within ``R_t`` of the exact crossing
  ``T`` (equal to ``RN(T)`` for an axis-aligned facet with exact coordinate differences, where
  the computation is correctly rounded), the exact weights are ``>= -R_l``, the position is
  within ``R_pos``; band conformance: none of its quantities is certainly inside its band; the
  earliest rule: no lower-index bitwise duplicate of the facet (it computes the same parameter,
  and ties keep the lowest index), no facet forced into a band, no facet forced in or with an
  exact contact that computes a smaller parameter (``T_j + R_j < t``) or, at a lower index, an
  equal one (``T_j + R_j <= t``), and no exact contact earlier than ``t - tol`` on a facet the
  model cannot bound. A miss: no exact contact deeper than ``tol`` inside every barycentric and
  segment boundary, and no facet forced in (counter ``missed_within_band`` for exact contacts
  within the band).
* ``triangle.barycentric`` (Rounded): every weight ``>= 0`` and within ``R_l`` of the exact one.
* ``triangle.normal_facing`` (Rounded normal, exact facing): ``|n - N|_2 <= theta`` (three-valued:
  ``|N|`` is irrational) and the facing is the exact sign of ``N0 . (e - s)``.
* ``triangle.ambiguity`` (Certified). A published hit or miss: no facet is exactly coplanar with
  the segment and overlapping it, no facet with an exact contact is one the model cannot bound,
  no facet with an exact contact is within the tolerance of parallel to the segment
  (``|N . d| / (|N| |d|) <= tol`` with the heights' rounding on top), and no facet is forced into
  a band (each must make the query ambiguous). An ambiguous query: the named facet's exact
  configuration can put a computed quantity inside its band (Verified; an exactly computed 0 or
  1 under the exactness clause is accepted, never inside), cannot even with the model widened
  eightfold (Violated), or lies between (Undecided). Counters: ``queries``, ``ambiguous``,
  ``exactly_resolvable`` (ambiguous although exact arithmetic decides the query: no exact
  coplanar overlap) and ``exact_contact``. It judges against the binary64 reference model (the
  row is Certified and declares none).

Claim formats (``CONTRACTS`` holds their JSON Schemas): ``inputs`` ``{"vertices": [[hex]*3]*V,
"triangles": [[int]*3]*T, "tolerance": hex, "start": [hex]*3, "end": [hex]*3}``, and for
first_hit also ``"stamp": {"identity": int, "version": int}`` (the caller's, with which the
surface was made); values: first_hit ``{"outcome": "hit", "t", "triangle", "position", "stamp"}``
or ``{"outcome": "miss", "stamp"}`` (spec 004: queries carry the caller's identity/version, a miss
too; the checker demands the caller's stamp bitwise); barycentric ``{"triangle", "weights"}``;
normal_facing ``{"triangle", "normal", "facing"}``; ambiguity ``{"outcome": "hit" | "miss"}`` or
``{"outcome": "ambiguous", "triangle": int}``.

Declared error models (Rounded rows, ``oracles.errormodel``): the fast path declares none, so its
claims are judged against the reference model above at ``u = 2^-53``. A claim may declare
``{"u": U}`` (the model re-evaluated at U for every facet, the subnormal slack ``2^14 eta``),
``k`` (every bound scaled by ``k / 64``) or an explicit ``bound`` (first_hit: ``[R_t, R_pos]``,
barycentric: ``R_l``, normal_facing: ``theta``; the other facets' bounds scale by the same
declared/reference ratio). The correctly-rounded-``t`` rule belongs to the reference model only.
"""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import gmpy2
import numpy as np

from interval.triangle import (
    ExactContact,
    ExactFacet,
    contact_of_points,
    exact_facet,
    exact_point,
    facet_of_points,
    nearest_float,
    segment_contact,
    sqrt_down,
    sqrt_up,
)
from reference.status import GeometryStatus, GuaranteeClass
from reference.triangle_surface import (
    BVH_MIN_TRIANGLES,
    G_SLACK,
    MAX_COORDINATE,
    NORMAL_K,
    TINY,
    U,
    Facing,
    SurfaceSettings,
    SurfaceStamp,
    TriangleSurface,
)

from .. import schema as S
from ..errormodel import ETA_OF_U, resolve
from ..errormodel import ratio as ratio_of
from ..family import Family, RowContract
from ..model import Claim, dec, enc, undecided, verified, violated

__all__ = ["FAMILY", "CONTRACTS", "TriangleCase", "Analysis", "FacetModel", "analyse", "facet_model", "models_at",
           "cube_mesh", "point_on_facet", "segment_through", "nudge", "case_claims", "case_inputs", "case_stamp",
           "first_hit_inputs", "generate"]

_mpq = gmpy2.mpq
_U_Q = _mpq(U)
_TINY_Q = _mpq(TINY)
_TINY_PER_ETA = 2**14  # TINY = 2^14 binary64 subnormal steps (2^-1060 / 2^-1074)
_safety = _mpq(17, 16)
_sqrt3_up = _mpq(7, 4)
# The model's constants as exact rationals (a float times an mpq would become an mpfr).
_normal_k = _mpq(NORMAL_K)
_g_slack = _mpq(G_SLACK)


# --- cases and builders ------------------------------------------------------------------


@dataclass(frozen=True)
class TriangleCase:
    """One query: a mesh, a tolerance and a segment (float64 data)."""

    name: str
    vertices: np.ndarray
    triangles: np.ndarray
    start: np.ndarray
    end: np.ndarray
    tolerance: float = 1e-12


def cube_mesh(scale: float = 1.0, offset=(0.0, 0.0, 0.0), reverse: bool = False):
    """The cube ``offset + scale [0, 1]^3`` as 8 vertices and 12 triangles, counter-clockwise
    seen from outside (outward normals), or inward with ``reverse``. Vertex ``4x + 2y + z``."""
    off = np.asarray(offset, dtype=np.float64)
    verts = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float64) * scale + off
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    tris = np.array(tris, dtype=np.int64)
    return verts, (tris[:, ::-1].copy() if reverse else tris)


def point_on_facet(a, b, c, w) -> np.ndarray:
    """``w0 a + w1 b + w2 c`` in float64 (a point near the facet; rounding moves it slightly)."""
    w = np.asarray(w, dtype=np.float64)
    return w[0] * np.asarray(a) + w[1] * np.asarray(b) + w[2] * np.asarray(c)


def segment_through(point, direction, before: float, after: float):
    """``(point - before d, point + after d)`` in float64."""
    p, d = np.asarray(point, dtype=np.float64), np.asarray(direction, dtype=np.float64)
    return p - before * d, p + after * d


def nudge(x, ulps) -> np.ndarray:
    """``x`` moved by ``ulps`` (an int per component, any sign) float64 steps."""
    x = np.array(x, dtype=np.float64)
    for i, k in enumerate(np.broadcast_to(np.asarray(ulps, dtype=np.int64), x.shape)):
        for _ in range(abs(int(k))):
            x[i] = np.nextafter(x[i], np.inf if k > 0 else -np.inf)
    return x


def _hex(x) -> list:
    """:func:`~oracles.model.enc` of a float64 array, faster for finite values (``float.hex``)."""
    a = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        return enc(a)
    return [[v.hex() for v in row] for row in a.tolist()] if a.ndim == 2 else [v.hex() for v in a.tolist()]


def case_inputs(case: TriangleCase) -> dict:
    """The inputs every triangle row reads: mesh, tolerance and segment (exact hex)."""
    return {"vertices": _hex(case.vertices),
            "triangles": np.asarray(case.triangles, dtype=np.int64).tolist(),
            "tolerance": enc(float(case.tolerance)), "start": _hex(case.start), "end": _hex(case.end)}


def case_stamp(case: TriangleCase) -> SurfaceStamp:
    """The caller's stamp of a corpus case's surface: an identity derived from the case (so
    different cases carry different ones, as a caller's distinct objects would) and version 1."""
    name = case.name.encode() + np.asarray(case.vertices, dtype=np.float64).tobytes()
    return SurfaceStamp(zlib.crc32(name) * 2**32 + zlib.crc32(name[::-1]), 1)


def _stamp_json(stamp: SurfaceStamp) -> dict:
    return {"identity": int(stamp.identity), "version": int(stamp.version)}


def first_hit_inputs(case: TriangleCase, stamp: Optional[SurfaceStamp] = None) -> dict:
    """The first_hit row's inputs: :func:`case_inputs` and the stamp the surface was made with
    (spec 004: the query answers with the caller's identity/version, hit or miss)."""
    return {**case_inputs(case), "stamp": _stamp_json(case_stamp(case) if stamp is None else stamp)}


def case_claims(case: TriangleCase):
    """Run the fast path on one case; the claims of every row it speaks to (none when the mesh
    or segment is rejected or the query is cancelled). The fast path declares no error model:
    its claims are judged against the reference model the checkers recompute."""
    stamp = case_stamp(case)
    made = TriangleSurface.new(case.vertices, case.triangles, stamp, SurfaceSettings(tolerance=case.tolerance))
    if not made.ok:
        return []
    out = made.value.first_hit(case.start, case.end)
    inputs = case_inputs(case)
    fh_inputs = {**inputs, "stamp": _stamp_json(stamp)}
    G = GuaranteeClass
    if out.status is GeometryStatus.Ambiguous:
        return [Claim("triangle.ambiguity", G.Certified, {"outcome": "ambiguous", "triangle": out.diagnostic.index},
                      inputs)]
    if not out.ok:
        return []
    h = out.value
    if h is None:
        return [Claim("triangle.first_hit", G.Rounded, {"outcome": "miss", "stamp": _stamp_json(out.stamp)},
                      fh_inputs),
                Claim("triangle.ambiguity", G.Certified, {"outcome": "miss"}, inputs)]
    return [
        Claim("triangle.first_hit", G.Rounded,
              {"outcome": "hit", "t": enc(h.t), "triangle": h.triangle, "position": enc(h.position),
               "stamp": _stamp_json(h.stamp)}, fh_inputs),
        Claim("triangle.barycentric", G.Rounded, {"triangle": h.triangle, "weights": enc(h.barycentric)}, inputs),
        Claim("triangle.normal_facing", G.Rounded,
              {"triangle": h.triangle, "normal": enc(h.normal), "facing": h.facing.value}, inputs),
        Claim("triangle.ambiguity", G.Certified, {"outcome": "hit"}, inputs),
    ]


# --- exact analysis of a claim's inputs ----------------------------------------------------


@dataclass(frozen=True)
class FacetModel:
    """The fast path's a-priori error model of one facet and query, evaluated from exact
    quantities (rational upper bounds; None = unbounded).

    Attributes:
        theta: bound of ``|n - N|_2`` (computed vs exact unit normal).
        eta: bounds of the two heights' errors (unit-normal heights).
        d_lo: lower bound of the exact unit-normal ``|N . (e - s)|``.
        r_t: bound of the computed parameter's error, or None (near-parallel: unbounded).
        r_l: bounds of the three weights' errors, or None.
        r_pos: bound of the position's error (inf-norm), or None.
        exact_t: the computed parameter itself when the computation is correctly rounded
            (axis-aligned facet, exact coordinate differences), else None.
    """

    theta: object
    eta: tuple
    d_lo: object
    r_t: Optional[object]
    r_l: Optional[tuple]
    r_pos: Optional[object]
    exact_t: Optional[float]


class Analysis:
    """Decoded inputs and, per facet, the exact contact and the error model, computed on first
    use (a facet whose exact box misses the segment's is never touched by a query that culls
    by axis bounds, and most checks read a few facets only).

    Attributes:
        vertices, triangles: the decoded mesh (float triples, index triples).
        tolerance: the declared tolerance (mpq).
        start, end: the segment's float endpoints; ``S``, ``E`` their exact values.
        facets: the exact facets (None for a facet of exactly zero area).
        candidates: indices of the facets whose exact box meets the segment's exact box: the
            only ones an exact contact, a band or an ambiguity can concern (spec 004's axis-bound
            rejection culls the others, a definite miss by exact comparisons).
        rejected: None, or ``(status, facet or None, note)``: why spec 004 forbids this surface
            or this query (a Degenerate or IllConditioned facet, a coordinate beyond 2^1000).
    """

    def __init__(self, vertices, triangles, tolerance, start, end):
        self.vertices, self.triangles, self.tolerance = vertices, triangles, tolerance
        self.start, self.end = start, end
        self.S, self.E = exact_point(start), exact_point(end)
        d2 = sum((y - x) ** 2 for x, y in zip(self.S, self.E))
        self.dn_lo, self.dn_up = sqrt_down(d2), sqrt_up(d2)
        # Exact comparisons of floats: the facets whose box meets the segment's. The scale m of
        # each facet is the largest component of its rounded edges (IEEE subtraction, as the
        # fast path computes it). Plain floats: the meshes are small, numpy's overhead is not.
        lo = [min(x, y) for x, y in zip(start, end)]
        hi = [max(x, y) for x, y in zip(start, end)]
        self.candidates, self._m, self._edges = [], [], []
        for j, t in enumerate(triangles):
            a, b, c = (vertices[i] for i in t)
            if all(max(a[k], b[k], c[k]) >= lo[k] and min(a[k], b[k], c[k]) <= hi[k] for k in range(3)):
                self.candidates.append(j)
            e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
            e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
            self._edges.append((e1, e2))
            self._m.append(max(abs(e1[0]), abs(e1[1]), abs(e1[2]), abs(e2[0]), abs(e2[1]), abs(e2[2])))
        self._candidate_set = frozenset(self.candidates)
        self._Q = {}
        self._facets, self._contacts, self._models = {}, {}, {}
        self.rejected = self._admission()

    def _point(self, i: int) -> tuple:
        q = self._Q.get(i)
        if q is None:
            q = self._Q[i] = tuple(_mpq(x) for x in self.vertices[i])  # finite floats: exact
        return q

    def facet(self, j: int) -> Optional[ExactFacet]:
        """The exact facet ``j`` (None when its area is exactly zero)."""
        if j in self._facets:
            return self._facets[j]
        try:
            f = facet_of_points(*(self._point(i) for i in self.triangles[j]))
        except ValueError:  # exactly zero area: admission must reject it
            f = None
        self._facets[j] = f
        return f

    @property
    def facets(self) -> list:
        return [self.facet(j) for j in range(len(self.triangles))]

    def scale(self, j: int):
        """The fast path's scale ``m`` of facet ``j`` (exact rational of a float)."""
        return _mpq(self._m[j])

    def _admission(self):
        big = [p for p in (self.start, self.end) if max(abs(x) for x in p) > MAX_COORDINATE]
        if big:
            return ("OutOfRange", None, "a segment endpoint exceeds |x| <= 2^1000: the query must be OutOfRange")
        for i, v in enumerate(self.vertices):
            if max(abs(v[0]), abs(v[1]), abs(v[2])) > MAX_COORDINATE:
                return ("OutOfRange", None, f"vertex {i} exceeds |x| <= 2^1000: TriangleSurface.new must reject it")
        # A float estimate of the normalized cross magnitude (within 30u of the exact G, as the
        # fast path's own) clears most facets; those near or below the threshold, and every
        # m == 0 facet, are decided exactly: G + 32u <= tol means every conforming binary64
        # admission rejects the facet.
        clear = float(self.tolerance) + 64 * U
        for j, ((e1, e2), m) in enumerate(zip(self._edges, self._m)):
            if m > 0:
                x0, x1, x2 = e1[0] / m, e1[1] / m, e1[2] / m
                y0, y1, y2 = e2[0] / m, e2[1] / m, e2[2] / m
                n0, n1, n2 = x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0
                g = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
                if g > clear:
                    continue
            f = self.facet(j)
            if f is None:
                return ("Degenerate", j, f"facet {j} has zero area: TriangleSurface.new must reject it")
            mq = self.scale(j)
            c = (self.tolerance - 32 * _U_Q) * mq * mq  # G + 32u <= tol  <=>  |N0| <= c
            if c > 0 and f.norm2 <= c * c:
                return ("IllConditioned", j,
                        f"facet {j}: normalized cross product below the tolerance; TriangleSurface.new must reject it")
        return None

    def contact(self, j: int) -> ExactContact:
        """The exact contact of the segment with facet ``j``."""
        c = self._contacts.get(j)
        if c is None:
            f = self.facet(j)
            if f is None:
                raise ValueError(f"facet {j} is degenerate")
            c = self._contacts[j] = contact_of_points(f, self.S, self.E, j)
        return c

    def model(self, j: int) -> FacetModel:
        """The reference error model (binary64) of facet ``j`` for this segment."""
        m = self._models.get(j)
        if m is None:
            m = self._models[j] = facet_model(self.facet(j), self.contact(j), self.start, self.end,
                                              exact=(self.S, self.E), m=self.scale(j))
        return m

    @property
    def contacts(self) -> list:
        return [self.contact(j) for j in range(len(self.triangles))]

    @property
    def models(self) -> list:
        return [self.model(j) for j in range(len(self.triangles))]

    def hits(self) -> list:
        """The exact contacts (point or coplanar) in facet order."""
        return [c for c in (self.contact(j) for j in self.candidates) if c.hit]

    @property
    def coplanar_overlap(self) -> list[int]:
        return [c.triangle for c in self.hits() if c.kind == "coplanar"]

    def same_facet(self, i: int, j: int) -> bool:
        """Facets ``i`` and ``j`` have bitwise the same vertices in the same order (a duplicate:
        every deterministic computation gives both the same parameter and classification)."""
        ti, tj = self.triangles[i], self.triangles[j]
        return all(tuple(map(float.hex, self.vertices[a])) == tuple(map(float.hex, self.vertices[b]))
                   for a, b in zip(ti, tj))


def _q_inf(v):
    return max(abs(x) for x in v)


def _representable(q) -> bool:
    try:
        return _mpq(nearest_float(q)) == q
    except OverflowError:
        return False


def _m_float(f: ExactFacet) -> object:
    """The fast path's scale ``m``: the largest component of the rounded edges (IEEE
    subtraction rounds to nearest, so float arithmetic gives it exactly)."""
    a, b, c = ([float(x) for x in v] for v in (f.a, f.b, f.c))
    return _mpq(max(max(abs(b[i] - a[i]) for i in range(3)), max(abs(c[i] - a[i]) for i in range(3))))


_BOUND_BITS = 64


def _up(x):
    """The least dyadic rational ``>= x`` (``x >= 0``) with at most 64 significant bits: the
    model's upper bounds are rounded up to it, which keeps the rational arithmetic small."""
    n, d = int(x.numerator), int(x.denominator)
    if n == 0:
        return _mpq(0)
    e = n.bit_length() - d.bit_length() - _BOUND_BITS
    if e >= 0:
        return _mpq(-((-n) // (d << e)) << e)
    return _mpq(-((-(n << -e)) // d), 1 << -e)


def _down(x):
    """The greatest dyadic rational ``<= x`` (``x >= 0``) with at most 64 significant bits."""
    n, d = int(x.numerator), int(x.denominator)
    if n == 0:
        return _mpq(0)
    e = n.bit_length() - d.bit_length() - _BOUND_BITS
    if e >= 0:
        return _mpq((n // (d << e)) << e)
    return _mpq((n << -e) // d, 1 << -e)


def facet_model(f: ExactFacet, ct: ExactContact, s, e, u=None, tiny=None, *, exact=None, m=None) -> FacetModel:
    """Evaluate the documented error model of one facet for segment ``s -> e`` (exact floats)
    at unit roundoff ``u`` and underflow slack ``tiny`` (exact mpq; default the fast path's
    binary64 ``U`` and ``TINY``; a declared model passes its own, ``tiny = 2^14 eta``).
    ``exact``: the segment's endpoints as exact rationals, ``m`` the facet's scale, when the
    caller has them already.

    Every bound is an exact rational; intermediate upper (lower) bounds are rounded up (down) to
    64-bit dyadics (:func:`_up`, :func:`_down`), so each is a valid bound, at most a relative
    2^-63 looser than the formula's exact value."""
    _u = _U_Q if u is None else _mpq(u)
    _tiny = _TINY_Q if tiny is None else _mpq(tiny)
    S, E = (exact_point(s), exact_point(e)) if exact is None else exact
    m = _m_float(f) if m is None else m
    G_lo = _down(sqrt_down(f.norm2) / (m * m))
    theta = _up(_normal_k * _u / G_lo)
    th = _up(_mpq(1001, 1000) * theta + 6 * _u)
    ws = tuple(x - y for x, y in zip(S, f.a))
    we = tuple(x - y for x, y in zip(E, f.a))
    eta_s = _up(th * sqrt_up(sum(x * x for x in ws)) + _tiny)
    eta_e = _up(th * sqrt_up(sum(x * x for x in we)) + _tiny)
    dd = abs(ct.he - ct.hs)
    d_lo, d_up = _down(dd / sqrt_up(f.norm2)), _up(dd / sqrt_down(f.norm2))
    if ct.parallel:
        return FacetModel(theta, (eta_s, eta_e), d_lo, None, None, None, None)
    T = ct.t
    aT = _up(abs(T))
    b = _up((eta_s + eta_e) * (1 + 2 * _u) + _u * d_up * (1 + 2 * _u))
    if d_lo <= b:
        return FacetModel(theta, (eta_s, eta_e), d_lo, None, None, None, None)
    r_t = _up(_safety * (eta_s + aT * b) / (d_lo - b) + 2 * _u * aT + _tiny)
    exact_t = None
    k = f.axis
    if k is not None and all(_representable(x) for x in (ws[k], we[k], ws[k] - we[k])):
        exact_t = nearest_float(T)
    d = tuple(y - x for x, y in zip(S, E))
    dinf = _up(_q_inf(d))
    qinf = _up(_q_inf(tuple(w + T * x for w, x in zip(ws, d))))
    rho = _up(_safety * (r_t * dinf * (1 + 2 * _u)
                         + _mpq(102, 100) * _u * (_up(_q_inf(ws)) + 2 * (aT + r_t) * dinf * (1 + _u) + qinf))
              + _tiny)
    r_pos = _up(_safety * (r_t * dinf * (1 + 2 * _u) + _mpq(303, 100) * _u * (_up(_q_inf(S)) + (aT + r_t) * dinf))
                + _tiny)
    cden = _down((G_lo - _g_slack * _u) / _sqrt3_up) if G_lo > _g_slack * _u else _mpq(0)
    r_l = None
    if cden > 13 * _u:
        bb = _up(_mpq(122, 10) * _u / cden)
        Z = _up((qinf + rho) / m * (1 + 2 * _u))
        base = _up((_mpq(82, 10) * _u * Z + _mpq(21, 10) * rho / m) / cden)
        rs = []
        for lam in ct.bary[1:]:
            L = _up(abs(lam) + 1)
            rs.append(_up(_safety * (base + _u * L * (1 + _u) + _mpq(101, 100) * _u * L + bb * L) / (1 - bb) + _tiny))
        r0 = _up(_safety * (rs[0] + rs[1] + _mpq(101, 100) * _u * (3 + _up(abs(ct.bary[1])) + _up(abs(ct.bary[0]))))
                 + _tiny)
        if max(rs) <= 1:
            r_l = (r0, rs[0], rs[1])
    return FacetModel(theta, (eta_s, eta_e), d_lo, r_t, r_l, r_pos, exact_t)


def _decode_points(v, name: str) -> list:
    """Float triples of a list of encoded 3-vectors (exact), all finite."""
    if not isinstance(v, list) or not v or not all(isinstance(p, list) and len(p) == 3 for p in v):
        raise ValueError(f"{name} must be a nonempty list of three encoded floats each")
    out = [(dec(p[0]), dec(p[1]), dec(p[2])) for p in v]
    if not all(math.isfinite(x) for p in out for x in p):
        raise ValueError(f"{name}: a coordinate is not finite")
    return out


def _decode_point(v, name):
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError(f"{name} must be a list of three encoded floats")
    return _decode_points([v], name)[0]


@lru_cache(maxsize=256)
def _analyse_json(key: str) -> Analysis:
    inputs = json.loads(key)
    verts_in, tris_in = inputs["vertices"], inputs["triangles"]
    if not isinstance(verts_in, list) or not isinstance(tris_in, list) or not tris_in:
        raise ValueError("vertices and triangles must be nonempty lists")
    verts = _decode_points(verts_in, "vertices")
    tris = []
    for t in tris_in:
        if not isinstance(t, list) or len(t) != 3 or not all(isinstance(i, int) and not isinstance(i, bool) for i in t):
            raise ValueError(f"triangle {t!r} must be three integer indices")
        if any(not 0 <= i < len(verts) for i in t):
            raise ValueError(f"triangle {t!r} has an index outside [0, {len(verts)})")
        tris.append(tuple(t))
    tol = dec(inputs["tolerance"])
    if not math.isfinite(tol) or tol <= 0:
        raise ValueError("tolerance must be a positive finite float")
    s, e = _decode_point(inputs["start"], "start"), _decode_point(inputs["end"], "end")
    if s == e:
        raise ValueError("zero-length segment")
    return Analysis(verts, tris, _mpq(tol), s, e)


_GEOMETRY = ("vertices", "triangles", "tolerance", "start", "end")


def _key(inputs: dict) -> str:
    if not isinstance(inputs, dict):
        raise TypeError("claim inputs must be an object")
    return json.dumps({k: inputs[k] for k in _GEOMETRY}, sort_keys=True)


def analyse(inputs: dict) -> Analysis:
    """The exact analysis of a claim's inputs (cached on the canonical JSON text of the
    geometry: a first_hit claim's stamp does not change the analysis).

    Raises:
        ValueError, KeyError, TypeError: malformed inputs (the CLI reports them as malformed).
    """
    return _analyse_json(_key(inputs))


class _Models:
    """Facet models at a declared unit roundoff, computed per facet on first use."""

    def __init__(self, an: Analysis, u: float, eta: float):
        self.an, self.u, self.tiny = an, u, _mpq(eta) * _TINY_PER_ETA
        self._m = {}

    def __getitem__(self, j: int) -> FacetModel:
        m = self._m.get(j)
        if m is None:
            an = self.an
            m = self._m[j] = facet_model(an.facet(j), an.contact(j), an.start, an.end, self.u, self.tiny,
                                         exact=(an.S, an.E), m=an.scale(j))
        return m

    def __len__(self) -> int:
        return len(self.an.triangles)


class _Reference:
    """The binary64 reference models of an analysis, indexable like :class:`_Models`."""

    def __init__(self, an: Analysis):
        self.an = an

    def __getitem__(self, j: int) -> FacetModel:
        return self.an.model(j)

    def __len__(self) -> int:
        return len(self.an.triangles)


@lru_cache(maxsize=256)
def _models_json(key: str, u: float, eta: float) -> _Models:
    return _Models(_analyse_json(key), u, eta)


def models_at(inputs: dict, u: float, eta: float):
    """Every facet's error model at unit roundoff ``u`` and subnormal step ``eta`` (a declared
    model's; binary64 gives :attr:`Analysis.models`), indexable by facet, computed on use."""
    if u == U and eta == 2.0**-1074:
        return _Reference(analyse(inputs))
    return _models_json(_key(inputs), u, eta)


class _Unbounded(Exception):
    """The error model at a declared precision has no bound for this facet."""


def _resolve(claim: Claim, parts) -> tuple:
    """``(resolved, models, ratio)``: the claim's bound (``oracles.errormodel.resolve`` over the
    components ``parts(model)`` of the claimed facet's model), every facet's model at the
    resolved unit roundoff, and ``ratio`` = declared bound / model at that roundoff (1 unless
    ``k`` or an explicit bound rescales it), by which the other facets' bounds scale too.
    Raises :class:`_Unbounded` when the claimed facet's model is unbounded at that precision."""

    def reference(u, eta):
        got = parts(models_at(claim.inputs, u, eta))
        if any(x is None for x in got):
            raise _Unbounded()
        return got

    resolved = resolve(claim, reference, constant=NORMAL_K)
    eta = 2.0**-1074 if resolved.declared is None or "eta" not in resolved.declared else dec(resolved.declared["eta"])
    if resolved.declared is not None and "u" in resolved.declared and "eta" not in resolved.declared:
        eta = ETA_OF_U[resolved.u]
    models = models_at(claim.inputs, resolved.u, eta)
    at_u = parts(models)
    ratio = resolved.bound[0] / at_u[0] if at_u[0] > 0 else _mpq(1)
    return resolved, models, ratio


def _triangle_of(value: dict, an: Analysis) -> int:
    i = value["triangle"]
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(an.triangles):
        raise ValueError(f"claimed triangle {i!r} is not a facet index")
    return i


# --- bands: what a conforming query must do with each facet --------------------------------------
#
# Spec 004: a computed boundary quantity (t at 0 and at 1, each weight at 0) strictly beyond its
# band is a miss for that facet, a nonzero one within the band (tolerance plus the rounding
# uncertainty) is ambiguous, an exactly represented 0 (t == 1) is accepted; one ambiguous facet
# rejects the query. The oracle knows each quantity's exact value X and a bound R of its
# computed value's error (the error model; for t on a facet under the exactness clause the
# computed value itself). Hence, with tol the declared tolerance:
#   * the quantity is certainly not a miss when X - R >= -tol (a computed x >= -tol);
#   * it is certainly inside its band when R < |X| <= tol (x is nonzero and |x| <= tol + R).
# A facet is *forced in* when the crossing branch is certain (not near-parallel by the documented
# band, widened twice) and no quantity can be a miss: it is a hit or ambiguous in every
# conforming run. It is *forced into a band* when, besides, some quantity is certainly inside its
# band: the query must be Ambiguous.


@dataclass(frozen=True)
class _Quantity:
    name: str
    exact: object  # X (mpq)
    bound: object  # R: |computed - X| <= R (mpq)
    computed: Optional[object] = None  # the computed value itself when the model pins it

    def not_out(self, tol) -> bool:
        return (self.computed >= -tol) if self.computed is not None else self.exact - self.bound >= -tol

    def in_band(self, tol) -> bool:
        if self.computed is not None:
            return self.computed != 0 and abs(self.computed) <= tol
        return self.bound < abs(self.exact) <= tol


def _quantities(an: Analysis, j: int, models=None, ratio=1) -> Optional[list]:
    """Facet ``j``'s boundary quantities with their error bounds (the models ``models``, default
    the reference, scaled by ``ratio``), or None when the model bounds them not."""
    ct = an.contact(j)
    md = an.model(j) if models is None else models[j]
    if ct.parallel or md.r_t is None or md.r_l is None:
        return None
    rt = md.r_t * ratio
    # The computed t is RN(T) under the exactness clause (reference model only); tc - 1 is then
    # exact (Sterbenz) wherever it can be near the band.
    x = _mpq(md.exact_t) if models is None and md.exact_t is not None else None
    return ([_Quantity("t", ct.t, rt, x), _Quantity("1 - t", 1 - ct.t, rt, None if x is None else 1 - x)]
            + [_Quantity(f"weight {k}", ct.bary[k], md.r_l[k] * ratio) for k in range(3)])


def _crossing_certain(an: Analysis, j: int, md: FacetModel) -> bool:
    """The near-parallel band (``tol |d| + 4 eta + 4u |h_s - h_e|``, widened twice) cannot catch
    facet ``j``: every conforming run computes its crossing parameter."""
    return md.d_lo > 2 * (an.tolerance * an.dn_up + 10 * (md.eta[0] + md.eta[1]))


def _forced(an: Analysis, j: int, models=None, ratio=1) -> Optional[tuple]:
    """``(in_band, quantities)`` when facet ``j`` is forced in (a hit or ambiguous in every
    conforming run): ``in_band`` lists the quantities certainly inside their band (then the
    query must be Ambiguous). None when the facet is not forced in."""
    if j not in an._candidate_set or an.facet(j) is None:
        return None
    ct = an.contact(j)
    if ct.parallel:
        return None
    # Cheap exits before the model: some exact quantity below -tol can always be a miss.
    tol = an.tolerance
    if ct.t < -tol or ct.t > 1 + tol or min(ct.bary) < -tol:
        return None
    md = an.model(j) if models is None else models[j]
    qs = _quantities(an, j, models, ratio)
    if qs is None or not _crossing_certain(an, j, md) or not all(q.not_out(tol) for q in qs):
        return None
    return [q for q in qs if q.in_band(tol)], qs


def _cannot_precede(an: Analysis, j: int, i: int, tq) -> bool:
    """Facet ``j`` can neither be inside a band (every exact boundary quantity exceeds the
    tolerance) nor compute a parameter before ``tq`` (its exact one is later, or equal at a higher
    index): the earliest rule needs no model of it."""
    ct = an.contact(j)
    if ct.parallel:
        return False
    later = ct.t > tq or (ct.t == tq and j > i)
    tol = an.tolerance
    return later and min(abs(ct.t), abs(1 - ct.t), *(abs(x) for x in ct.bary)) > tol


def _near_parallel_overlap(an: Analysis, j: int) -> bool:
    """Facet ``j`` has an exact point contact and the segment is certainly within the declared
    tolerance of parallel to its plane (``|N . d| / (|N| |d|) <= tol`` with the heights'
    rounding on top): spec 004 makes such an overlapping near-parallel candidate ambiguous."""
    ct = an.contact(j)
    if ct.kind != "point":
        return False
    f, md = an.facet(j), an.model(j)
    d_up = abs(ct.he - ct.hs) / sqrt_down(f.norm2)
    return (d_up + md.eta[0] + md.eta[1]) * (1 + 8 * _U_Q) <= an.tolerance * an.dn_lo * (1 - 8 * _U_Q)


def _rejected(claim: Claim, an: Analysis):
    """Violated when spec 004 forbids the surface or the query the claim speaks of."""
    if an.rejected is None:
        return None
    status, j, note = an.rejected
    return violated(claim, {"status": status, "triangle": j}, note=note)


# --- checkers -------------------------------------------------------------------------------


def _check_stamp(claim: Claim):
    """The first_hit value's stamp must be the caller's (the inputs' stamp), bitwise."""
    want, got = claim.inputs["stamp"], claim.value["stamp"]
    for name, d in (("inputs.stamp", want), ("value.stamp", got)):
        if not isinstance(d, dict) or set(d) != {"identity", "version"} or \
                not all(isinstance(d[k], int) and not isinstance(d[k], bool) and 0 <= d[k] < 2**64 for k in d):
            raise ValueError(f"{name} must be {{identity, version}}, integers in [0, 2**64)")
    if want != got:
        return {"stamp": got, "caller_stamp": want}
    return None


def _declared_models(claim: Claim) -> Optional[tuple]:
    """``(models, ratio)`` for a check over every facet of a claim that names none (a miss):
    ``(None, 1)`` for the reference, the models at a declared ``u`` with ratio ``k / 64``, or
    None for an explicit bound (it bounds no particular facet, so nothing is forced)."""
    m = claim.model
    if not m or ("u" not in m and "bound" not in m):
        return None, 1
    if "bound" in m:
        return None
    resolved = resolve(claim, lambda u, eta: [_mpq(1)], constant=NORMAL_K)
    eta = dec(m["eta"]) if "eta" in m else ETA_OF_U[resolved.u]
    models = models_at(claim.inputs, resolved.u, eta)
    if isinstance(models, _Reference) and resolved.bound[0] == 1:
        return None, 1
    return models, resolved.bound[0]


def _band_witness(j: int, qs: list) -> dict:
    return {"triangle": j, "in_band": [{"quantity": q.name, "exact": enc(q.exact), "bound": enc(q.bound)}
                                       for q in qs]}


def check_first_hit(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    if not isinstance(v, dict) or v.get("outcome") not in ("hit", "miss"):
        raise ValueError("first_hit value must be an object with outcome hit or miss")
    bad_stamp = _check_stamp(claim)
    if bad_stamp:
        return violated(claim, bad_stamp, note="the query does not carry the caller's identity/version")
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    tol = an.tolerance
    if v["outcome"] == "miss":
        hits = an.hits()
        deep = [c for c in hits if c.depth > tol]
        shallow = sum(1 for c in hits if c.depth <= tol)
        if deep:
            c = deep[0]
            return violated(claim, {"triangle": c.triangle, "t_enter": enc(c.t_enter), "depth": enc(c.depth)},
                            prec=None, note="a miss hides an exact contact deeper than the tolerance band",
                            missed_within_band=shallow)
        declared = _declared_models(claim)
        for j in (an.candidates if declared is not None else ()):
            got = _forced(an, j, *declared)
            if got is not None:
                c = an.contact(j)
                return violated(claim, {"triangle": j, "t": enc(c.t), "weights": enc(list(c.bary))},
                                note=f"facet {j} is a hit or ambiguous in every conforming run (no quantity can "
                                     "be beyond its band); a miss is not allowed", missed_within_band=shallow)
        return verified(claim, note="no exact contact outside the bands", missed_within_band=shallow)
    i = _triangle_of(v, an)
    t_c = dec(v["t"])
    if not isinstance(v["position"], list) or len(v["position"]) != 3:
        raise ValueError("position must be three encoded floats")
    pos_f = tuple(dec(x) for x in v["position"])
    if not all(math.isfinite(x) for x in (t_c, *pos_f)):
        return violated(claim, {"t": v["t"], "position": v["position"]}, note="a hit with a nonfinite t or position")
    pos = exact_point(pos_f)
    ct = an.contact(i)
    if ct.parallel or an.model(i).r_t is None:
        return violated(claim, {"triangle": i, "parallel": ct.parallel},
                        note="a hit on a facet the segment crosses at no bounded parameter (near-parallel)")
    try:
        resolved, models, ratio = _resolve(claim, lambda ms: [ms[i].r_t, ms[i].r_pos])
    except _Unbounded:
        return undecided(claim, None, note="the declared error model is unbounded on this facet")
    extra = resolved.extra()
    reference = resolved.bound == resolved.reference
    md = models[i]
    r_t, r_pos = resolved.bound
    T = ct.t
    tq = _mpq(t_c)
    t_use = ratio_of(abs(tq - T), r_t)
    # Correctly rounded t (axis-aligned facet, exact differences) is part of the reference
    # model only: a declared model other than the reference is judged by its bound.
    exact_t = md.exact_t if reference else None
    if exact_t is not None:
        if t_c != exact_t:
            return violated(claim, {"triangle": i, "exact_t": enc(T), "rounded": enc(exact_t)},
                            note="t differs from the correctly rounded crossing (axis-aligned, exact differences)",
                            bound_use=t_use, **extra)
    elif abs(tq - T) > r_t:
        return violated(claim, {"triangle": i, "exact_t": enc(T), "bound": enc(r_t)}, measure="t_error_ratio",
                        measured=t_use, bound_use=t_use, note="t outside its error model", **extra)
    if not -r_t <= T <= 1 + r_t:
        return violated(claim, {"triangle": i, "exact_t": enc(T)}, note="the exact crossing is off the segment",
                        bound_use=t_use, **extra)
    if md.r_l is None:
        return undecided(claim, None, note="the weights' error model is unbounded on this facet",
                         bound_use=t_use, **extra)
    r_l = [r * ratio for r in md.r_l]
    low = [k for k in range(3) if ct.bary[k] < -r_l[k]]
    if low:
        return violated(claim, {"triangle": i, "weights": enc(list(ct.bary)), "bound": enc(r_l)},
                        note="the exact crossing is outside the claimed facet beyond the weights' error model",
                        bound_use=t_use, **extra)
    P = tuple(x + T * (y - x) for x, y in zip(an.S, an.E))
    perr = _q_inf([x - y for x, y in zip(pos, P)])
    p_use = ratio_of(perr, r_pos)
    use = max(t_use, p_use)
    if perr > r_pos:
        return violated(claim, {"triangle": i, "exact_position": enc(list(P)), "bound": enc(r_pos)},
                        measure="position_error_ratio", measured=p_use, bound_use=use,
                        note="position outside its error model", **extra)
    # Band conformance: the published facet's own quantities must not be inside their bands.
    qs = _quantities(an, i, None if reference else models, ratio)
    inside = [q for q in qs if q.in_band(tol)] if qs is not None else []
    if inside:
        return violated(claim, _band_witness(i, inside), bound_use=use,
                        note="the hit lies inside the tolerance plus rounding band of a boundary; the query must "
                             "be Ambiguous", **extra)
    # The earliest rule. A duplicate facet of lower index computes the same parameter: the tie
    # keeps it.
    for j in an.candidates:
        if j >= i:
            break
        if an.same_facet(i, j):
            return violated(claim, {"triangle": j, "claimed": i}, bound_use=use,
                            note=f"facet {j} is a duplicate of facet {i} (bitwise the same vertices): an exact "
                                 "tie keeps the lowest index", **extra)
    # Every facet forced in (a hit or ambiguous in every conforming run) must be explainable as
    # computed no earlier (at a lower index: strictly later) than the claimed parameter; one
    # forced into a band makes the query ambiguous.
    for j in an.candidates:
        if j == i or _cannot_precede(an, j, i, tq):
            continue
        got = _forced(an, j, None if reference else models, ratio)
        if got is None:
            continue
        in_band, _ = got
        if in_band:
            return violated(claim, _band_witness(j, in_band), bound_use=use,
                            note=f"facet {j} is inside a band in every conforming run; the query must be "
                                 "Ambiguous", **extra)
        mj = models[j]
        exact_j = mj.exact_t if reference else None
        up = _mpq(exact_j) if exact_j is not None else an.contact(j).t + mj.r_t * ratio
        if up < tq or (j < i and up == tq):
            return violated(claim, {"triangle": j, "exact_t": enc(an.contact(j).t), "computed_at_most": enc(up)},
                            bound_use=use,
                            note="facet %d is a hit (or ambiguous) in every conforming run and computes an earlier "
                                 "parameter, or an equal one at a lower index" % j, **extra)
    # Every other exact contact must be explainable the same way.
    for cj in an.hits():
        j = cj.triangle
        if j == i or (cj.kind == "point" and (cj.t > tq or (cj.t == tq and j > i))):
            continue  # its computed parameter cannot come before the claimed one (no model needed)
        if cj.kind == "coplanar" or models[j].r_t is None:
            if cj.t_enter < tq - tol:
                return violated(claim, {"triangle": j, "t_enter": enc(cj.t_enter)}, bound_use=use,
                                note="an earlier exact contact (near-parallel facet) lies before t - tol", **extra)
            continue
        mj = models[j]
        exact_j = mj.exact_t if reference else None
        up = _mpq(exact_j) if exact_j is not None else cj.t + mj.r_t * ratio
        if up < tq or (j < i and up == tq):
            return violated(claim, {"triangle": j, "exact_t": enc(cj.t), "computed_at_most": enc(up)},
                            bound_use=use,
                            note="facet %d computes an earlier parameter or an equal one at a lower index" % j,
                            **extra)
    return verified(claim, measure="t_error_ratio", measured=t_use, bound_use=use, **extra)


def check_barycentric(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    i = _triangle_of(v, an)
    w = v["weights"]
    if not isinstance(w, list) or len(w) != 3:
        raise ValueError("weights must be three encoded floats")
    wf = [dec(x) for x in w]
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    if not all(math.isfinite(x) for x in wf):
        return violated(claim, {"weights": w}, note="a nonfinite barycentric weight")
    wq = [_mpq(x) for x in wf]
    if any(x < 0 for x in wq):
        return violated(claim, {"weights": w}, note="a negative barycentric weight")
    ct = an.contact(i)
    if ct.parallel or an.model(i).r_l is None:
        return undecided(claim, None, note="no bounded error model for the weights on this facet")
    try:
        resolved, _, _ = _resolve(claim, lambda ms: list(ms[i].r_l) if ms[i].r_l is not None else [None])
    except _Unbounded:
        return undecided(claim, None, note="the declared error model is unbounded on this facet")
    r_l, extra = resolved.bound, resolved.extra()
    errs = [abs(x - y) for x, y in zip(wq, ct.bary)]
    use = max(ratio_of(e_, r) for e_, r in zip(errs, r_l))
    if any(e_ > r for e_, r in zip(errs, r_l)):
        return violated(claim, {"exact": enc(list(ct.bary)), "bound": enc(list(r_l))}, measure="error_ratio",
                        measured=use, bound_use=use, note="a weight outside its error model", **extra)
    return verified(claim, measure="error_ratio", measured=use, bound_use=use, **extra)


def check_normal_facing(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    i = _triangle_of(v, an)
    if not isinstance(v["normal"], list) or len(v["normal"]) != 3:
        raise ValueError("normal must be three encoded floats")
    n_f = tuple(dec(x) for x in v["normal"])
    facing = Facing(v["facing"])
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    if not all(math.isfinite(x) for x in n_f):
        return violated(claim, {"normal": v["normal"]}, note="a nonfinite normal")
    n = exact_point(n_f)
    f, ct = an.facet(i), an.contact(i)
    if ct.facing == 0:
        return violated(claim, {"facing": v["facing"]}, note="the segment is exactly parallel to the facet: no facing")
    truth = Facing.Front if ct.facing < 0 else Facing.Back
    if facing is not truth:
        return violated(claim, {"exact_facing": truth.value}, note="facing differs from the exact sign of N0 . d")
    nn = sum(x * x for x in n)
    nd = sum(x * y for x, y in zip(n, f.normal))
    if nd <= 0:
        return violated(claim, {"n_dot_N0": enc(nd)}, note="the normal points against the winding")
    resolved, _, _ = _resolve(claim, lambda ms: [ms[i].theta])
    theta, extra = resolved.scalar(), resolved.extra()
    # |n - N|^2 = |n|^2 - 2 n.N0/|N0| + 1, bracketed with rational bounds of |N0|; the terms
    # cancel to ~u^2, so the bounds carry 256 bits.
    hi = nn - 2 * nd / sqrt_up(f.norm2, 256) + 1
    lo = nn - 2 * nd / sqrt_down(f.norm2, 256) + 1
    th2 = theta * theta
    use = math.sqrt(ratio_of(max(hi, 0), th2))
    if hi <= th2:
        return verified(claim, measure="error_ratio", measured=use, bound_use=use, **extra)
    if lo > th2:
        return violated(claim, {"bound": enc(theta)}, measure="error_ratio", measured=use, bound_use=use,
                        note="normal outside its error model", **extra)
    return undecided(claim, [enc(lo), enc(hi)], note="|n - N|^2 brackets the bound theta^2", bound_use=use, **extra)


def _justified(an: Analysis, j: int, widen: int) -> bool:
    """Can a conforming binary64 run put one of facet j's quantities inside its band (with the
    model and bands widened by ``widen``) without another quantity forcing a miss?"""
    tol = an.tolerance
    ct, md = an.contact(j), an.model(j)
    if ct.parallel or md.r_t is None:
        return True
    if md.d_lo <= widen * (tol * an.dn_up + 5 * sum(md.eta)):
        return True  # the near-parallel branch is reachable (it may report an overlap)
    if md.r_l is None or max(md.r_l) * 2 * widen > 1:
        return True  # the weights' bound may exceed 1/2
    forced_out = possible = False
    for q in _quantities(an, j):
        if q.computed is not None:  # pinned by the exactness clause: an exact 0 is accepted
            forced_out |= q.computed < -widen * (tol + q.bound)
            possible |= q.computed != 0 and abs(q.computed) <= widen * (tol + q.bound)
        else:
            forced_out |= q.exact + q.bound < -widen * (tol + q.bound)
            possible |= abs(q.exact) <= widen * (tol + q.bound) + q.bound
    return possible and not forced_out


def check_ambiguity(claim: Claim):
    an = analyse(claim.inputs)
    v = claim.value
    if not isinstance(v, dict) or v.get("outcome") not in ("hit", "miss", "ambiguous"):
        raise ValueError("ambiguity value must be an object with outcome hit, miss or ambiguous")
    rej = _rejected(claim, an)
    if rej is not None:
        return rej
    overlap = an.coplanar_overlap
    hits = an.hits()
    contact = int(bool(hits))
    counters = {"queries": 1, "exact_contact": contact}
    if v["outcome"] != "ambiguous":
        bad = dict(ambiguous=0, exactly_resolvable=0, **counters)
        if overlap:
            return violated(claim, {"triangle": overlap[0]}, note="an exactly coplanar overlap was not ambiguous",
                            **bad)
        unbounded = [c.triangle for c in hits if an.model(c.triangle).r_t is None]
        if unbounded:
            return violated(claim, {"triangle": unbounded[0]},
                            note="an exact contact on a near-parallel facet was not ambiguous", **bad)
        near = [c.triangle for c in hits if _near_parallel_overlap(an, c.triangle)]
        if near:
            return violated(claim, {"triangle": near[0]},
                            note="a segment within the tolerance of parallel to a facet it meets was not ambiguous",
                            **bad)
        for j in an.candidates:
            got = _forced(an, j)
            if got is not None and got[0]:
                return violated(claim, _band_witness(j, got[0]),
                                note=f"facet {j} is inside a band in every conforming run; the query must be "
                                     "Ambiguous", **bad)
        return verified(claim, note="no coplanar overlap, no unbounded contact, no facet forced into a band",
                        ambiguous=0, exactly_resolvable=0, **counters)
    j = _triangle_of(v, an)
    counters.update(ambiguous=1, exactly_resolvable=int(not overlap))
    if _justified(an, j, 2):
        return verified(claim, note=f"facet {j} can fall inside a band", **counters)
    if not _justified(an, j, 8):
        c = an.contact(j)
        return violated(claim, {"triangle": j, "t": enc(c.t), "weights": enc(list(c.bary or ()))},
                        note=f"facet {j} is decidable by a wide margin; the rejection is not justified", **counters)
    return undecided(claim, None, note=f"facet {j} is near but not inside its bands", **counters)


# --- corpus -----------------------------------------------------------------------------------


def _unit(rng, n=3):
    v = rng.standard_normal(n)
    return v / np.linalg.norm(v)


def _random_mesh(rng, n, scale=1.0, offset=0.0, integer=False):
    if integer:
        verts = rng.integers(-4, 5, size=(3 * n, 3)).astype(np.float64)
    else:
        verts = rng.uniform(-1, 1, size=(3 * n, 3))
    return verts * scale + offset, np.arange(3 * n, dtype=np.int64).reshape(n, 3)


def _named_cases() -> list[TriangleCase]:
    V, T = cube_mesh()
    s, e = np.array([-0.625, 0.25, 0.625]), np.array([1.375, 0.25, 0.625])
    cases = [TriangleCase("cube crossing t=5/16", V, T, s, e),
             TriangleCase("cube edge tie", V, T, np.array([-1.0, -1, 0.5]), np.array([1.0, 1, 0.5])),
             TriangleCase("cube vertex", V, T, np.array([-1.0, -1, -1]), np.array([1.0, 1, 1])),
             TriangleCase("cube inside start", V, T, np.array([0.5, 0.5, 0.5]), np.array([1.5, 0.5, 0.5])),
             TriangleCase("cube miss", V, T, np.array([-1.0, 2, 2]), np.array([2.0, 2, 2])),
             TriangleCase("cube coplanar", V, T, np.array([-1.0, 0.5, 0]), np.array([2.0, 0.5, 0])),
             TriangleCase("cube near edge", V, T, np.array([-1.0, 0.5, 1e-13]), np.array([2.0, 0.5, 1e-13])),
             TriangleCase("cube endpoint start", V, T, np.array([0.0, 0.25, 0.625]), np.array([-1.0, 0.25, 0.625])),
             TriangleCase("cube endpoint end", V, T, np.array([-1.0, 0.25, 0.625]), np.array([0.0, 0.25, 0.625]))]
    Vr, Tr = cube_mesh(reverse=True)
    cases.append(TriangleCase("reversed cube", Vr, Tr, s, e))
    for k in (-100, -50, 0, 50, 100):
        sc = 10.0**k
        Vs, Ts = cube_mesh(scale=sc, offset=(3 * sc, -5 * sc, 7 * sc))
        cases.append(TriangleCase(f"cube 1e{k} translated", Vs, Ts, s * sc + np.array([3, -5, 7]) * sc,
                                  e * sc + np.array([3, -5, 7]) * sc))
    Vt, Tt = cube_mesh(offset=(1024.0, -2048.0, 512.0))
    cases.append(TriangleCase("cube translated", Vt, Tt, s + Vt[0], e + Vt[0]))
    return cases


# --- adversarial cases: bands, near-parallel overlaps, ties, admission --------------------------------
#
# Placed right after the named cases, deterministic in the seed. The band cases put one exact
# boundary quantity of a facet at a chosen value (mid-band, just below the tolerance, just outside
# the miss boundary) by translating the segment in whole ulps and reading the exact value from the
# rational oracle: nothing here uses the fast path's arithmetic.

_BAND_QUANTITIES = ("t", "1 - t", "weight 0", "weight 1", "weight 2")


def _exact_quantity(verts, tri, s, e, name: str):
    """The exact boundary quantity ``name`` of facet ``tri`` for segment ``s -> e`` (None when the
    segment is exactly parallel to the facet's plane)."""
    c = segment_contact(exact_facet(*(verts[i] for i in tri)), s, e)
    if c.parallel:
        return None
    if name == "t":
        return c.t
    if name == "1 - t":
        return 1 - c.t
    return c.bary[int(name[-1])]


def _tune(verts, tri, s, e, name: str, target: float, below: bool):
    """Move the segment's endpoints by whole ulps so that the exact quantity lands at or just
    below ``target`` (``below``: as close under it as a search finds), or nearest to it.

    The quantity is nearly affine in the two endpoints' shifts: moving ``s`` by ``i`` ulps along
    one axis and ``e`` by ``j`` ulps along another changes it by about ``a i + b j``. A coarse
    translation first brings it near the target, then a search over ``i`` with the best ``j``
    for each reaches far below one ulp's effect (the lattice ``a i + b j`` is dense), and the
    best few candidates are confirmed on exact values. Returns ``(s, e)``."""
    goal = _mpq(target)
    facet = exact_facet(*(verts[i] for i in tri))

    def value(s2, e2):
        c = segment_contact(facet, s2, e2)
        if c.parallel:
            return None
        return c.t if name == "t" else 1 - c.t if name == "1 - t" else c.bary[int(name[-1])]

    def moved(p, axis, n):
        q = p.copy()
        q[axis] = q[axis] + n * math.ulp(max(abs(p[axis]), 2.0**-40))
        return q

    x0 = value(s, e)
    if x0 is None:
        return s, e
    # Coarse: translate the whole segment along its most effective axis.
    best = None
    for axis in range(3):
        x1 = value(moved(s, axis, 1024), moved(e, axis, 1024))
        if x1 is not None and x1 != x0 and (best is None or abs(x1 - x0) > abs(best[1])):
            best = (axis, (x1 - x0) / 1024)
    if best is None:
        return s, e
    axis, slope = best
    for _ in range(3):
        n = int((goal - x0) / slope)
        s, e = moved(s, axis, n), moved(e, axis, n)
        x0 = value(s, e)
        if x0 is None or abs(goal - x0) < 64 * abs(slope):
            break
    if x0 is None:
        return s, e
    # Fine: the slopes of each endpoint's most effective axis.
    slopes = []
    for which in (0, 1):
        cand = None
        for ax in range(3):
            s2, e2 = (moved(s, ax, 256), e) if which == 0 else (s, moved(e, ax, 256))
            x1 = value(s2, e2)
            if x1 is not None and x1 != x0 and (cand is None or abs(x1 - x0) > abs(cand[1])):
                cand = (ax, (x1 - x0) / 256)
        if cand is None:
            return s, e
        slopes.append(cand)
    (ax_s, a_), (ax_e, b_) = slopes
    # The search ranks candidates in floats (relative to the gap, so without cancellation);
    # the best are confirmed on exact values below.
    gap0, fa, fb = float(goal - x0), float(a_), float(b_)
    scored = []
    for i in range(-300, 301):
        j = (gap0 - fa * i) / fb
        for jj in (math.floor(j), math.floor(j) + 1) if below else (round(j),):
            rest = gap0 - fa * i - fb * jj
            if below and rest < 0:
                continue
            scored.append((abs(rest), i, jj))
    scored.sort()
    pick, pick_gap = (s, e), (goal - x0 if (not below or x0 <= goal) else None)
    for _, i, jj in scored[:12]:
        s2, e2 = moved(s, ax_s, i), moved(e, ax_e, jj)
        x = value(s2, e2)
        if x is None or (below and x > goal):
            continue
        gap = abs(goal - x)
        if pick_gap is None or gap < pick_gap:
            pick, pick_gap = (s2, e2), gap
    return pick


def _facet(rng, sliver) -> np.ndarray:
    """Three vertices near the origin: a generic facet, or a sliver (normalized cross product
    between about 1e-3 and 3e-2, so that the normal's rounding error is large but bounded;
    ``sliver`` a number ``k``: between ``10^k`` and ``10^(k + 1)``)."""
    a = rng.uniform(-1, 1, 3)
    b = a + _unit(rng) * rng.uniform(0.5, 1.5)
    if sliver:
        perp = np.cross(b - a, _unit(rng))
        perp /= np.linalg.norm(perp)
        c = a + (b - a) * rng.uniform(0.2, 0.8) + perp * np.linalg.norm(b - a) * 10.0 ** (
            rng.uniform(-3, -1.5) if sliver is True else rng.uniform(sliver, sliver + 1))
    else:
        c = a + _unit(rng) * rng.uniform(0.5, 1.5)
        if np.linalg.norm(np.cross(b - a, c - a)) < 0.1:
            c = a + np.cross(b - a, _unit(rng))
    return np.array([a, b, c])


def _witness(p, direction) -> np.ndarray:
    """A large facet perpendicular to ``direction`` around ``p`` (a clean crossing)."""
    u1 = np.cross(direction, [1.0, 0.0, 0.0] if abs(direction[0]) < 0.9 else [0.0, 1.0, 0.0])
    u1 /= np.linalg.norm(u1)
    u2 = np.cross(direction, u1)
    return np.array([p + 3 * u1, p - 1.5 * u1 + 2.6 * u2, p - 1.5 * u1 - 2.6 * u2])


def _band_case(rng, name: str, where: str, tol: float, sliver, long: bool = False) -> TriangleCase:
    """One facet with boundary quantity ``name`` placed ``where`` ("mid": tol/2 inside the band,
    "out": -tol/2 just beyond the boundary, "edge": at or just below tol), and a second facet the
    segment crosses cleanly (so a policy that publishes another facet's hit shows). ``long``: a
    segment a thousand times the facet's size at a shallow angle (5 to 15 degrees), where the
    parameter's error, carried along d, dominates the weights' error."""
    F = _facet(rng, sliver)
    nrm = np.cross(F[1] - F[0], F[2] - F[0])
    nrm /= np.linalg.norm(nrm)
    d = _unit(rng)
    if long:
        d = d - (d @ nrm) * nrm
        d = d / np.linalg.norm(d) + nrm * math.tan(math.radians(rng.uniform(5, 15)))
        d = d / np.linalg.norm(d) * rng.uniform(800, 3000)
    else:
        if abs(d @ nrm) < 0.3:
            d = d + nrm * (0.6 if d @ nrm >= 0 else -0.6)
            d /= np.linalg.norm(d)
        d = d * rng.uniform(0.5, 2.0)
    target = {"mid": tol / 2, "out": -tol / 2, "edge": tol}[where]
    if name.startswith("weight"):
        k = int(name[-1])
        r = rng.uniform(0.2, 0.8)
        w = np.empty(3)
        w[k], w[(k + 1) % 3], w[(k + 2) % 3] = target, r * (1 - target), (1 - r) * (1 - target)
        t0 = rng.uniform(0.2, 0.8)
    else:
        w = rng.dirichlet([4, 4, 4])
        t0 = target if name == "t" else 1 - target
    p = point_on_facet(*F, w)
    s, e = p - t0 * d, p + (1 - t0) * d
    pw = s + (0.6 if t0 < 0.5 else 0.3) * (e - s)
    W = _witness(pw, d / np.linalg.norm(d))
    first = rng.random() < 0.5  # the band facet first or second
    verts = np.vstack([F, W] if first else [W, F])
    tris = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.int64)
    band = tris[0] if first else tris[1]
    s, e = _tune(verts, band, s, e, name, target, below=(where == "edge"))
    kind = ("sliver" if sliver is True else f"sliver 1e{sliver}" if sliver else "generic") + (", long" if long else "")
    return TriangleCase(f"band {name} {where} ({kind}, tol {tol:.0e})", verts, tris, s, e, tol)


def _near_parallel_case(rng, tol: float, factor: float) -> TriangleCase:
    """A segment at angle ``factor * tol`` to a facet's plane, crossing its interior."""
    F = _facet(rng, False)
    nrm = np.cross(F[1] - F[0], F[2] - F[0])
    nrm /= np.linalg.norm(nrm)
    d = _unit(rng)
    d = d - (d @ nrm) * nrm
    d = d / np.linalg.norm(d) + nrm * factor * tol
    p = point_on_facet(*F, rng.dirichlet([4, 4, 4]))
    s, e = segment_through(p, d, rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5))
    return TriangleCase(f"near-parallel x{factor} tol {tol:.0e}", F, np.array([[0, 1, 2]]), s, e, tol)


def _far_offset_case(rng, factor: float) -> TriangleCase:
    """A segment a million times the facet's size, crossing its interior at an angle just above
    the near-parallel band (``factor`` times the heights' rounding term, smallest tolerance): the
    computed parameter's error, carried along d, puts the computed contact offset far from the
    facet although the exact crossing is well inside it (a far offset that must be ambiguous)."""
    F = _facet(rng, False)
    nrm = np.cross(F[1] - F[0], F[2] - F[0])
    nrm /= np.linalg.norm(nrm)
    d = _unit(rng)
    d = d - (d @ nrm) * nrm
    d /= np.linalg.norm(d)
    tol = 32 * 2.0**-52
    # Band: tol |d| + 4 (eta_s + eta_e) with eta ~ 120u |w| and |w| ~ |d| / 2 at each end.
    sin_a = factor * (tol + 4 * 120 * 2.0**-53)
    p = point_on_facet(*F, rng.dirichlet([4, 4, 4]))
    length = 1e6
    s, e = segment_through(p, (d + nrm * sin_a) * length, 0.5, 0.5)
    return TriangleCase(f"far offset x{factor}", F, np.array([[0, 1, 2]]), s, e, tol)


def _hierarchy_tie_case() -> TriangleCase:
    """Enough facets that the query runs through the facet hierarchy (``BVH_MIN_TRIANGLES``), all
    meeting the segment's box: facet 0 and the last facet are bitwise duplicates crossed first
    (an exact tie, which keeps facet 0); the others are crossed outside their triangle."""
    n = BVH_MIN_TRIANGLES + 64
    s, e = np.array([-1.0, 0.25, 0.625]), np.array([3.0, 0.25, 0.625])
    verts, tris = [], []
    for k in range(n):
        if k in (0, n - 1):
            x, tri = 0.0, [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]  # contains (y, z) = (1/4, 5/8)
        else:
            x, tri = 0.5 + k / (2 * n), [(1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]  # y + z >= 1: misses
        verts += [(x, y, z) for y, z in tri]
        tris.append([3 * k, 3 * k + 1, 3 * k + 2])
    return TriangleCase(f"hierarchy tie ({n} facets)", np.array(verts), np.array(tris, dtype=np.int64), s, e)


def _adversarial_cases(seed: int) -> list[TriangleCase]:
    rng = np.random.default_rng([seed, 4005])
    cases = []
    for name in _BAND_QUANTITIES:
        for tol in (1e-9, 1e-6):
            for where in ("mid", "out", "edge"):
                cases.append(_band_case(rng, name, where, tol, sliver=False))
        for tol in (1e-9, 1e-6, 1e-4):
            cases.append(_band_case(rng, name, "edge", tol, sliver=True))
        cases.append(_band_case(rng, name, "mid", 1e-6, sliver=True))
        cases.append(_band_case(rng, name, "edge", 1e-12, sliver=False))
        for _ in range(2):
            cases.append(_band_case(rng, name, "edge", 1e-6, sliver=False, long=True))
        # On slivers just above the admission threshold the normal's own error (about u / G,
        # across the sliver) dominates the far endpoint's height, hence the parameter near 1.
        for tol in {"t": (1e-6, 1e-4), "1 - t": (1e-6,) * 8}.get(name, ()):
            cases.append(_band_case(rng, name, "edge", tol, sliver=round(math.log10(tol)) + 0.5))
    for tol, factor in ((1e-9, 0.125), (1e-6, 0.125), (1e-4, 0.25), (1e-12, 0.125), (1e-6, 4.0)):
        cases.append(_near_parallel_case(rng, tol, factor))
    # Coplanar segments that touch a facet without entering it: a vertex, an edge, an end on an edge.
    F = np.array([[0.0, 0, 0], [0, 1, 0], [1, 1, 0]])
    one = np.array([[0, 1, 2]])
    for nm, s, e in (("vertex", [-1.0, 1, 0], [1.0, -1, 0]), ("edge", [-1.0, 1, 0], [0.5, 1, 0]),
                     ("end on edge", [-1.0, 0.5, 0], [0.0, 0.5, 0])):
        cases.append(TriangleCase(f"coplanar touching {nm}", F, one, np.array(s), np.array(e)))
    # Duplicate facets (bitwise, and with reversed winding) of an oblique facet: exact ties.
    G = _facet(rng, False)
    p = point_on_facet(*G, [0.3, 0.3, 0.4])
    nrm = np.cross(G[1] - G[0], G[2] - G[0])
    s, e = segment_through(p, nrm / np.linalg.norm(nrm) + 0.3 * _unit(rng), 0.7, 0.9)
    W = _witness(s + 0.8 * (e - s), (e - s) / np.linalg.norm(e - s))
    cases.append(TriangleCase("duplicate facets tie", np.vstack([G, W, G]),
                              np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]]), s, e))
    cases.append(TriangleCase("reversed duplicate then duplicate", np.vstack([G, G]),
                              np.array([[2, 1, 0], [3, 4, 5], [0, 1, 2]]), s, e))
    # Powers of two and far fractional origins (inexact sums).
    P = np.array([[2.0**20, 0, 0], [0, 2.0**20, 0], [0, 0, 2.0**20]])
    cases.append(TriangleCase("powers of two", P, one, np.zeros(3), np.full(3, 2.0**19)))
    off = np.array([1e6 + 0.1, -3e5 - 0.7, 2.0**33 + 0.3])
    cases.append(TriangleCase("far fractional origin", G + off, one, s + off, e + off))
    cases.append(TriangleCase("smallest tolerance", G, one, s, e, 32 * 2.0**-52))
    # Surfaces admission must reject (no claim may speak of them).
    sl = _facet(rng, False)
    sl[2] = sl[0] + (sl[1] - sl[0]) * 0.5 + np.cross(sl[1] - sl[0], [0.0, 0, 1]) * 1e-9
    cases.append(TriangleCase("ill-conditioned sliver", sl, one, s, e, 1e-6))
    Q = np.array([[0.0, 0, 0], [1e-4, 0, 0], [0, 1, 0]])  # G = 1e-4 < tol; |e1 x e2| / |e1|^2 = 1e4
    cases.append(TriangleCase("short first edge", Q, one, np.array([2e-5, 0.25, -1]), np.array([2e-5, 0.25, 1]), 1e-3))
    cases.append(TriangleCase("collinear facet", np.array([[0.0, 0, 0], [1, 1, 1], [3, 3, 3]]), one,
                              np.array([-1.0, 0, 0]), np.array([1.0, 0, 0])))
    for factor in (1.5, 2.0, 3.0, 5.0):
        cases.append(_far_offset_case(rng, factor))
    cases.append(_hierarchy_tie_case())
    return cases


def _random_case(rng, k: int) -> TriangleCase:
    kind = ["random", "near_edge", "near_vertex", "near_parallel", "grazing", "scaled", "shared_edge",
            "integer", "sliver"][k % 9]
    n = int(rng.integers(1, 6))
    verts, tris = _random_mesh(rng, n, integer=(kind == "integer"))
    tol = float(10.0 ** rng.uniform(-14, -4)) if rng.random() < 0.3 else 1e-12
    tol = min(max(tol, 2.0**-47), 1e-3)
    i = int(rng.integers(0, n))
    a, b, c = verts[tris[i]]
    direction = _unit(rng)
    if kind == "random" or kind == "integer":
        if kind == "integer":
            s, e = rng.integers(-5, 6, 3).astype(float), rng.integers(-5, 6, 3).astype(float)
            if np.array_equal(s, e):
                e = s + 1.0
        else:
            s, e = rng.uniform(-2, 2, 3), rng.uniform(-2, 2, 3)
        return TriangleCase(kind, verts, tris, s, e, tol)
    if kind == "near_edge":
        r = float(rng.random())
        w = rng.permutation([0.0, r, 1.0 - r])
    elif kind == "shared_edge":
        r = float(rng.random())
        w = np.array([r, 1.0 - r, 0.0])  # on the edge (a, b) the added facet shares
    elif kind == "near_vertex":
        w = rng.permutation([1.0, 0.0, 0.0])
    else:
        w = rng.dirichlet([1, 1, 1])
    p = point_on_facet(a, b, c, w)
    p = nudge(p, rng.integers(-3, 4, 3)) if rng.random() < 0.5 else p + rng.standard_normal(3) * 10.0 ** rng.uniform(-16, -9)
    if kind == "near_parallel":
        nrm = np.cross(b - a, c - a)
        nrm /= np.linalg.norm(nrm)
        inplane = direction - np.dot(direction, nrm) * nrm
        direction = inplane / np.linalg.norm(inplane) + nrm * 10.0 ** rng.uniform(-17, -6) * rng.choice([-1, 1])
    before, after = rng.uniform(0.1, 2), rng.uniform(0.1, 2)
    if kind == "grazing":
        after = 0.0 if rng.random() < 0.5 else float(10.0 ** rng.uniform(-16, -10))
    s, e = segment_through(p, direction, before, after)
    if kind == "scaled":
        sc, off = 10.0 ** rng.uniform(-100, 100), rng.uniform(-1e6, 1e6, 3)
        verts, s, e = (verts + off) * sc, (s + off) * sc, (e + off) * sc
    if kind == "shared_edge":
        # a fan around edge (a, b): the segment crosses near the shared edge
        apex = a + b - c + rng.standard_normal(3) * 0.3
        verts = np.vstack([verts, apex])
        tris = np.vstack([tris, [tris[i][1], tris[i][0], len(verts) - 1]])
    if kind == "sliver":
        verts = verts.copy()
        verts[tris[i][2]] = point_on_facet(a, b, c, [0.5, 0.5 - 1e-9, 1e-9])
    if np.array_equal(s, e):
        e = nudge(e, 1)
    return TriangleCase(kind, verts, tris, s, e, tol)


def generate(seed: int, n: int) -> list[TriangleCase]:
    """The named corner cases first, then the adversarial ones (bands, near-parallel overlaps,
    ties, admission), then random cases cycling through the kinds."""
    named = _named_cases() + _adversarial_cases(seed)
    rng = np.random.default_rng([seed, 4004])
    out = named[:n]
    k = 0
    while len(out) < n:
        out.append(_random_case(rng, k))
        k += 1
    return out


# --- contracts ---------------------------------------------------------------------------------


_GEOMETRY_SCHEMA = {
    "vertices": S.matrix(S.f64(), [None, 3]),
    "triangles": S.matrix(S.integer(minimum=0), [None, 3]),
    "tolerance": S.f64(positive=True),
    "start": S.vec(S.f64(), 3),
    "end": S.vec(S.f64(), 3),
}
_STAMP_SCHEMA = S.obj(required={"identity": S.integer(0, 2**64 - 1), "version": S.integer(0, 2**64 - 1)})
_INPUTS = S.obj(required=_GEOMETRY_SCHEMA)
_FIRST_HIT_INPUTS = S.obj(required={**_GEOMETRY_SCHEMA, "stamp": _STAMP_SCHEMA})


def _replace(claim: Claim, **value) -> Claim:
    return Claim(claim.row, claim.guarantee, {**claim.value, **value}, claim.inputs, claim.model)


def plant_first_hit(claim: Claim) -> Claim:
    """A hit: the parameter moved by 1/8 (a contact misplaced along the segment, position kept).
    A miss: a stale stamp (the version of another snapshot of the surface)."""
    v = claim.value
    if v["outcome"] == "hit":
        t = dec(v["t"])
        return _replace(claim, t=enc(t + 0.125 if t <= 0.875 else t - 0.125))
    st = v["stamp"]
    return _replace(claim, stamp={"identity": st["identity"], "version": (st["version"] + 1) % 2**64})


def plant_barycentric(claim: Claim) -> Claim:
    """The first weight off by 1/4 (unnormalized weights)."""
    w = [dec(x) for x in claim.value["weights"]]
    return _replace(claim, weights=enc([w[0] + 0.25, w[1], w[2]]))


def plant_normal_facing(claim: Claim) -> Claim:
    """The facing flipped (the sign of n . d taken the wrong way round)."""
    return _replace(claim, facing="Back" if claim.value["facing"] == "Front" else "Front")


def _with_facet(inputs: dict, verts) -> tuple[dict, int]:
    """``inputs`` with one facet appended (three new float64 vertices); its index."""
    V = list(inputs["vertices"]) + [enc(np.asarray(v, dtype=np.float64)) for v in verts]
    n = len(inputs["vertices"])
    tris = list(inputs["triangles"]) + [[n, n + 1, n + 2]]
    return {**inputs, "vertices": V, "triangles": tris}, len(tris) - 1


def plant_ambiguity(claim: Claim) -> Claim:
    """A published hit or miss over a surface that gains a facet with the segment on its edge
    (an exactly coplanar overlap the query must reject); an ambiguous query whose rejection
    names an added facet that the segment's line crosses far beyond its end (t near 4, decided
    by a wide margin)."""
    s = np.array([dec(x) for x in claim.inputs["start"]])
    e = np.array([dec(x) for x in claim.inputs["end"]])
    d = e - s
    if claim.value["outcome"] != "ambiguous":
        k = int(np.argmin(np.abs(d)))  # an axis not parallel to d
        third = s.copy()
        third[k] = s[k] + max(float(np.max(np.abs(d))), abs(s[k]))
        inputs, _ = _with_facet(claim.inputs, [s, e, third])
        return Claim(claim.row, claim.guarantee, {"outcome": claim.value["outcome"]}, inputs)
    k = int(np.argmax(np.abs(d)))
    c = s + 4 * d
    w = float(np.max(np.abs(d)))
    a1, a2 = np.zeros(3), np.zeros(3)
    a1[(k + 1) % 3], a2[(k + 2) % 3] = w, w
    inputs, j = _with_facet(claim.inputs, [c, c + a1, c + a2])
    return Claim(claim.row, claim.guarantee, {"outcome": "ambiguous", "triangle": j}, inputs)


_ROUNDED_MODEL = ("R_t, R_pos, R_l and theta are the documented binary64 model (reference.triangle_surface, "
                  "docs/decisions.md) evaluated from exact quantities at u = 2^-53, or at a declared model's u "
                  "(an explicit bound or k rescales every facet's bounds by declared/reference)")

CONTRACTS = {
    "triangle.first_hit": RowContract(
        checks=("first_hit: the value's stamp equals the caller's; a miss: no exact contact deeper than tol inside "
                "every barycentric and segment boundary and no facet forced in (every boundary quantity X >= -tol + R: "
                "a hit or ambiguous in every conforming run); a hit: the facet is crossed at a bounded parameter, "
                "|t - T| <= R_t (t = RN(T) on an axis-aligned facet with exact differences), every exact weight "
                ">= -R_l, |position - P(T)|_inf <= R_pos, none of its boundary quantities certainly inside its band "
                "(R < |X| <= tol), and the earliest rule: no lower-index bitwise duplicate, no facet forced into a "
                "band, no facet j forced in or with an exact contact computable earlier (T_j + R_j < t) or equal at a "
                "lower index. " + _ROUNDED_MODEL + "."),
        inputs=_FIRST_HIT_INPUTS,
        value=S.any_of(
            S.obj(required={"outcome": S.const("hit"), "t": S.f64(), "triangle": S.integer(minimum=0),
                            "position": S.vec(S.f64(), 3), "stamp": _STAMP_SCHEMA}),
            S.obj(required={"outcome": S.const("miss"), "stamp": _STAMP_SCHEMA})),
        plant=plant_first_hit,
        model=S.MODEL,
    ),
    "triangle.barycentric": RowContract(
        checks=("barycentric: every weight >= 0 and |w_k - lambda_k| <= R_l[k] against the exact weights of the "
                "segment's exact crossing with the facet's plane. " + _ROUNDED_MODEL + "."),
        inputs=_INPUTS,
        value=S.obj(required={"triangle": S.integer(minimum=0), "weights": S.vec(S.f64(), 3)}),
        plant=plant_barycentric,
        model=S.MODEL,
    ),
    "triangle.normal_facing": RowContract(
        checks=("normal_facing: n . N0 > 0 and |n - N0/|N0||_2 <= theta = 64u/G (three-valued: |N0| bracketed at "
                "256 bits), and facing is exactly Front when N0 . (e - s) < 0, Back when > 0. "
                + _ROUNDED_MODEL + "."),
        inputs=_INPUTS,
        value=S.obj(required={"triangle": S.integer(minimum=0), "normal": S.vec(S.f64(), 3),
                              "facing": S.enum([f.value for f in Facing])}),
        plant=plant_normal_facing,
        model=S.MODEL,
    ),
    "triangle.ambiguity": RowContract(
        checks=("ambiguity: a published hit or miss has no facet exactly coplanar with the segment and overlapping "
                "it, no exact contact on a facet the model cannot bound or within the tolerance of parallel to the "
                "segment, and no facet forced into a band (every boundary quantity X >= -tol + R and one with "
                "R < |X| <= tol); an ambiguous query's named facet can put a computed quantity inside its band with "
                "the model widened 2x (Verified; an exactly computed 0 or 1 is accepted), cannot even at 8x "
                "(Violated), else Undecided. Claims on a surface admission must reject are Violated."),
        inputs=_INPUTS,
        value=S.any_of(S.obj(required={"outcome": S.enum(["hit", "miss"])}),
                       S.obj(required={"outcome": S.const("ambiguous"), "triangle": S.integer(minimum=0)})),
        plant=plant_ambiguity,
    ),
}


FAMILY = Family(
    name="triangle",
    default_cases=4000,
    generate=generate,
    claims=case_claims,
    checkers={
        "triangle.first_hit": check_first_hit,
        "triangle.barycentric": check_barycentric,
        "triangle.normal_facing": check_normal_facing,
        "triangle.ambiguity": check_ambiguity,
    },
    contracts=CONTRACTS,
    oracle_precisions=(),
)
