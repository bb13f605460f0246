"""The exact analysis of a triangle query, shared by the checkers and by the requests.

From a surface's float64 data, a tolerance and a segment (the claim inputs' geometry), in exact
rationals (``interval.triangle``, ``gmpy2.mpq``): each facet's exact contact with the segment and
the fast path's documented a-priori error model (``reference.triangle_surface``,
docs/decisions.md "Triangle surfaces: error model") evaluated from exact quantities.

Bands (spec 004: a computed boundary value within the tolerance plus its rounding uncertainty is
ambiguous, an exact 0 or 1 is accepted, one ambiguous facet rejects the query). For a facet's
boundary quantities (``t``, ``1 - t``, the three weights) the oracle has the exact value ``X``
and the model's bound ``R`` of the computed value's error (under the exactness clause the
computed ``t`` itself). A quantity is certainly *inside its band* when ``R < |X| <= tol``, and
certainly *not a miss* when ``X - R >= -tol``. A facet whose exact box meets the segment's, whose
crossing branch is certain (not near-parallel by the documented band widened twice) and none of
whose quantities can be a miss is *forced in*: a hit or ambiguous in every conforming run; if one
of its quantities is certainly inside its band, it is *forced into a band* and the query must be
Ambiguous.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

import gmpy2

from interval.triangle import (
    ExactContact,
    ExactFacet,
    contact_of_points,
    exact_point,
    facet_of_points,
    nearest_float,
    sqrt_down,
    sqrt_up,
)
from reference.triangle_surface import G_SLACK, MAX_COORDINATE, NORMAL_K, TINY, U

from ...model import dec

__all__ = ["Analysis", "FacetModel", "analyse", "band_possible", "exactness_clause", "f64", "facet_model", "models_at"]

_mpq = gmpy2.mpq
_U_Q = _mpq(U)
_TINY_Q = _mpq(TINY)
_TINY_PER_ETA = 2**14  # TINY = 2^14 binary64 subnormal steps (2^-1060 / 2^-1074)
_safety = _mpq(17, 16)
_sqrt3_up = _mpq(7, 4)
# The model's constants as exact rationals (a float times an mpq would become an mpfr).
_normal_k = _mpq(NORMAL_K)
_g_slack = _mpq(G_SLACK)

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
    r_t: object | None
    r_l: tuple | None
    r_pos: object | None
    exact_t: float | None


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

    def facet(self, j: int) -> ExactFacet | None:
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


def f64(x) -> float:
    """:func:`oracles.model.dec` (exact; raises ``NumberError``), reading ``float.hex``'s own text,
    which requests and claims carry, without the general grammar."""
    if type(x) is str:
        try:
            v = float.fromhex(x)
        except (ValueError, OverflowError):
            return dec(x)
        if v.hex() == x:
            return v
    return dec(x)


def _decode_points(v, name: str) -> list:
    """Float triples of a list of encoded 3-vectors (exact), all finite."""
    if not isinstance(v, list) or not v or not all(isinstance(p, list) and len(p) == 3 for p in v):
        raise ValueError(f"{name} must be a nonempty list of three encoded floats each")
    out = [(f64(p[0]), f64(p[1]), f64(p[2])) for p in v]
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
    tol = f64(inputs["tolerance"])
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
    computed: object | None = None  # the computed value itself when the model pins it

    def not_out(self, tol) -> bool:
        return (self.computed >= -tol) if self.computed is not None else self.exact - self.bound >= -tol

    def in_band(self, tol) -> bool:
        if self.computed is not None:
            return self.computed != 0 and abs(self.computed) <= tol
        return self.bound < abs(self.exact) <= tol


def exactness_clause(md: FacetModel) -> float | None:
    """The computed parameter the exactness clause pins (docs/decisions.md "Triangle surfaces:
    error model": ``RN(T)`` on an axis-aligned facet with exact differences), or None. The
    clause is a decision of ours (``oracles.rules``: ``triangle:exactness_clause``): a checker
    judging a claim that did not opt in passes a ``pin`` that returns None."""
    return md.exact_t


def band_possible(quantities, widen, tol) -> bool:
    """Whether some boundary quantity may be computed inside its band widened ``widen``-fold and
    none is certainly outside it: a quantity the exactness clause pins (``computed``) is judged
    on that value (an exact 0 is accepted), any other on its exact value and rounding bound."""
    forced_out = possible = False
    for q in quantities:
        if q.computed is not None:  # pinned by the exactness clause: an exact 0 is accepted
            forced_out |= q.computed < -widen * (tol + q.bound)
            possible |= q.computed != 0 and abs(q.computed) <= widen * (tol + q.bound)
        else:
            forced_out |= q.exact + q.bound < -widen * (tol + q.bound)
            possible |= abs(q.exact) <= widen * (tol + q.bound) + q.bound
    return possible and not forced_out


def _quantities(an: Analysis, j: int, models=None, ratio=1, pin=exactness_clause) -> list | None:
    """Facet ``j``'s boundary quantities with their error bounds (the models ``models``, default
    the reference, scaled by ``ratio``), or None when the model bounds them not. ``pin(model)``
    is the computed parameter where it is known exactly (the exactness clause), else None."""
    ct = an.contact(j)
    md = an.model(j) if models is None else models[j]
    if ct.parallel or md.r_t is None or md.r_l is None:
        return None
    rt = md.r_t * ratio
    # The computed t is RN(T) under the exactness clause (reference model only); tc - 1 is then
    # exact (Sterbenz) wherever it can be near the band.
    pinned = pin(md) if models is None and md.exact_t is not None else None
    x = _mpq(pinned) if pinned is not None else None
    return ([_Quantity("t", ct.t, rt, x), _Quantity("1 - t", 1 - ct.t, rt, None if x is None else 1 - x)]
            + [_Quantity(f"weight {k}", ct.bary[k], md.r_l[k] * ratio) for k in range(3)])


def _crossing_certain(an: Analysis, j: int, md: FacetModel) -> bool:
    """The near-parallel band (``tol |d| + 4 eta + 4u |h_s - h_e|``, widened twice) cannot catch
    facet ``j``: every conforming run computes its crossing parameter."""
    return md.d_lo > 2 * (an.tolerance * an.dn_up + 10 * (md.eta[0] + md.eta[1]))


def _forced(an: Analysis, j: int, models=None, ratio=1, pin=exactness_clause) -> tuple | None:
    """``(in_band, quantities)`` when facet ``j`` is forced in (a hit or ambiguous in every
    conforming run): ``in_band`` lists the quantities certainly inside their band (then the
    query must be Ambiguous). None when the facet is not forced in. ``pin``: as
    :func:`_quantities`."""
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
    qs = _quantities(an, j, models, ratio, pin)
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



def _justified(an: Analysis, j: int, widen: int, pin=exactness_clause) -> bool:
    """Can a conforming binary64 run put one of facet j's quantities inside its band (with the
    model and bands widened by ``widen``) without another quantity forcing a miss? ``pin``: as
    :func:`_quantities`."""
    tol = an.tolerance
    ct, md = an.contact(j), an.model(j)
    if ct.parallel or md.r_t is None:
        return True
    if md.d_lo <= widen * (tol * an.dn_up + 5 * sum(md.eta)):
        return True  # the near-parallel branch is reachable (it may report an overlap)
    if md.r_l is None or max(md.r_l) * 2 * widen > 1:
        return True  # the weights' bound may exceed 1/2
    return band_possible(_quantities(an, j, pin=pin), widen, tol)

