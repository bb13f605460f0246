"""Triangle requests: the corpus as requests, each step with the status spec 004 demands.

A corpus case (:mod:`.corpus`) is a scenario: ``TriangleSurface::new`` of its mesh, then one
``first_hit`` of its segment (the first 16 named cube cases also ``clip_segment`` it). Requests
0 to 111 are the named and adversarial cases (:func:`.corpus.named_cases`), then come the status
contracts (:func:`status_requests`, requests 112 to 150; ``--cases 151`` reaches them all):
every status ``TriangleSurface::new``, ``first_hit`` and ``clip_segment`` name, each capacity met
with equality (must succeed) and exceeded by one (must fail), the coordinate limit, the
tolerance range, cancellation, an ambiguity the facet hierarchy must find, and a rejected
admission that must leave the admitted surface as it was. The rest are random cases.

Expected statuses come from spec 004's text and ``docs/decisions.md`` ("Triangle surfaces:
statuses", "settings, capacity, ownership, cancellation", "the tolerance bands"), decided here on
the exact inputs with the oracle (:mod:`.demands` on :mod:`.analysis`: exact contacts and the
documented error model in rationals), never by running the fast path. ``first_hit`` must be Ambiguous where some
facet makes every published hit or miss wrong (an exact coplanar overlap, a contact within the
tolerance of parallel, a facet forced into a band), must succeed where no facet can fall inside
a band even with the model widened eightfold, and may do either in between (spec 004: "The
policy can conservatively reject queries that stronger predicates resolve").

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TriangleSurface::new``: ``vertices`` ``[[x, y, z], ...]`` (f64), ``triangles`` ``[[a, b, c],
  ...]`` (vertex indices), ``stamp`` ``{"identity", "version"}`` (integers; the caller's) and
  ``settings`` ``{"tolerance" (f64), "max_vertices", "max_triangles"}`` (every field explicit);
  output: the surface the caller holds after the step, ``{"vertices", "triangles", "stamp",
  "settings"}`` as admitted (a rejected admission leaves the previous one; ``{"held": false}``
  while there is none).
* ``first_hit``: ``start``, ``end`` (f64 3-vectors) on the surface the caller holds, and
  optionally ``cancel_after_polls`` ``k``: the cancel token answers "not cancelled" to its first
  ``k`` polls and "cancelled" from then on (``0``: cancelled before the call; absent: never);
  output: ``{"status", "stamp"}`` and on a hit ``"outcome": "hit", "t", "triangle", "position",
  "barycentric", "normal", "facing"``, on a miss ``"outcome": "miss"``, when Ambiguous the
  ``"triangle"`` the rejection names.
* ``clip_segment``: the inputs of ``first_hit``; output: ``{"status", "stamp"}`` and on success
  ``"start", "end"`` of the clipped segment and ``"hit"`` (the contact's triangle, or null).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from reference.triangle_surface import (
    CAPACITY_CEILING,
    DEFAULT_MAX_TRIANGLES,
    DEFAULT_MAX_VERTICES,
    MAX_COORDINATE,
    MAX_TOLERANCE,
    MIN_TOLERANCE,
    SurfaceStamp,
)

from ...model import NumberError, enc
from ...request import (
    ANY_OUTCOME, Expect, Request, Rule, Step, ambiguous, decided, decided_by_kinds, either, failure, success,
)
from .checks import COORDINATE_LIMIT, STATUS_NAMES
from .analysis import analyse, f64
from .demands import admission_conditioning, query_expectation
from .corpus import (
    TriangleCase,
    case_stamp,
    cube_mesh,
    hex_points,
    hierarchy_ambiguity_case,
    named_cases,
    random_cases,
    stamp_json,
)

__all__ = [
    "CLIP",
    "FIRST_HIT",
    "NEW",
    "case_request",
    "expected_new",
    "expected_query",
    "new_inputs",
    "query_inputs",
    "requests",
    "status_requests",
]

NEW, FIRST_HIT, CLIP = "TriangleSurface::new", "first_hit", "clip_segment"
_CLIPPED = 16  # the named cube cases also clip their segment

_WHY_NEW_OK = ("finite vertices, valid indices, nonempty geometry within capacity, every facet conditioned "
               "(spec 004 Surface ownership: 'It checks finite vertices, index validity, nonempty geometry, "
               "retained buffer capacity and numerically conditioned nonzero facet area')")
_DECISIONS = "docs/decisions.md 'Triangle surfaces: statuses'"
_SETTINGS = "docs/decisions.md 'Triangle surfaces: settings, capacity, ownership, cancellation'"


# --- encoding ----------------------------------------------------------------------------------


def settings_json(tolerance: float, max_vertices: int = DEFAULT_MAX_VERTICES,
                  max_triangles: int = DEFAULT_MAX_TRIANGLES) -> dict:
    return {"tolerance": enc(float(tolerance)), "max_vertices": int(max_vertices), "max_triangles": int(max_triangles)}


def new_inputs(vertices, triangles, stamp: SurfaceStamp, settings: dict) -> dict:
    """``TriangleSurface::new``'s inputs from float64 vertices and integer triangles."""
    return {"vertices": hex_points(np.asarray(vertices, dtype=np.float64)),
            "triangles": np.asarray(triangles, dtype=np.int64).tolist(), "stamp": stamp_json(stamp),
            "settings": settings}


def query_inputs(start, end, cancel_after_polls: int | None = None) -> dict:
    out = {"start": enc(np.asarray(start, dtype=np.float64)), "end": enc(np.asarray(end, dtype=np.float64))}
    if cancel_after_polls is not None:
        out["cancel_after_polls"] = int(cancel_after_polls)
    return out


# --- what the spec demands ---------------------------------------------------------------------


def _int_in(v, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _number(x):
    """The float64 a request number denotes (nan and inf included), or None when it is not one."""
    try:
        return f64(x)
    except (NumberError, TypeError):
        return None


def _points(raw) -> list | None:
    """The float64 coordinates of a list of 3-vectors, or None when the shape or a number is
    malformed."""
    if not isinstance(raw, list):
        return None
    out = []
    for p in raw:
        if not isinstance(p, list) or len(p) != 3:
            return None
        q = [_number(x) for x in p]
        if any(x is None for x in q):
            return None
        out.append(q)
    return out


def _finite(p) -> bool:
    return all(math.isfinite(x) for x in p)


def expected_new(inp: dict) -> Expect:
    """The statuses ``TriangleSurface::new`` must end in for these inputs: every defect's status
    is acceptable (spec 004 lists the checks without an order), none means success; a facet whose
    conditioning the oracle cannot decide (``|G - tol| < 32u``) allows IllConditioned too."""
    found, why, kinds = [], [], []

    def defect(status, reason, kind="named"):
        """``kind``: "spec" (the spec or a default names the status), "named" (spec 004 lists the
        check and names no status: ours by decision), "ours" (only our decision fails it)."""
        if status not in found:
            found.append(status)
        why.append(reason)
        kinds.append(kind)

    st = inp.get("settings", {})
    tol = _number(st.get("tolerance"))
    if tol is None or not MIN_TOLERANCE <= tol <= MAX_TOLERANCE:  # floats compare exactly; NaN fails
        defect("InvalidArgument", f"tolerance outside [32 eps, 1e-3] ({_SETTINGS}; spec 004: 'supported settings "
                                  "range from 32 binary64 epsilons to 1e-3')")
    for name in ("max_vertices", "max_triangles"):
        if not _int_in(st.get(name), 1, CAPACITY_CEILING):
            defect("InvalidArgument", f"{name} outside [1, 2^24] ({_SETTINGS})", "spec")  # a default's range
    stamp = inp.get("stamp", {})
    if not all(_int_in(stamp.get(k), 0, 2**64 - 1) for k in ("identity", "version")):
        defect("InvalidArgument", f"a stamp field outside [0, 2^64) ({_DECISIONS})")
    tris = inp.get("triangles")
    tris_ok = isinstance(tris, list) and all(isinstance(t, list) and len(t) == 3 and all(_int_in(i, -2**63, 2**63 - 1)
                                                                                        for i in t) for t in tris)
    if not tris_ok:
        defect("InvalidArgument", f"triangles are not index triples ({_DECISIONS})")
    elif not tris:
        defect("InvalidArgument", "no triangles (spec 004: 'nonempty geometry')")
    verts = _points(inp.get("vertices"))
    if verts is None:
        defect("InvalidArgument", f"vertices are not 3-vectors of numbers ({_DECISIONS})")
    elif not verts:
        defect("InvalidArgument", "no vertices (spec 004: 'nonempty geometry')")
    else:
        if not all(_finite(p) for p in verts):
            defect("InvalidArgument", "a nonfinite vertex (spec 004: 'It checks finite vertices')")
        elif any(abs(x) > MAX_COORDINATE for p in verts for x in p):
            defect("OutOfRange", f"a coordinate beyond 2^1000 ({_DECISIONS})", "ours")  # spec 004 sets no limit
        if _int_in(st.get("max_vertices"), 1, CAPACITY_CEILING) and len(verts) > st["max_vertices"]:
            defect("CapacityExceeded", f"{len(verts)} vertices > max_vertices (spec 004: 'retained buffer capacity')")
    if tris_ok and _int_in(st.get("max_triangles"), 1, CAPACITY_CEILING) and len(tris) > st["max_triangles"]:
        defect("CapacityExceeded", f"{len(tris)} triangles > max_triangles (spec 004: 'retained buffer capacity')")
    indices_ok = tris_ok and verts is not None and all(0 <= i < len(verts) for t in tris for i in t)
    if tris_ok and verts is not None and not indices_ok:
        defect("InvalidArgument", "an index outside [0, V) (spec 004: 'index validity')")
    band = []
    if indices_ok and tris and verts and all(_finite(p) and max(abs(x) for x in p) <= MAX_COORDINATE for p in verts) \
            and tol is not None and math.isfinite(tol) and tol > 0:
        for j, verdict in admission_conditioning(verts, tris, tol):
            if verdict == "zero":
                defect("Degenerate", f"facet {j} has exactly zero area ({_DECISIONS}: Degenerate; a computed "
                                     "nonzero g of a zero-area facet is IllConditioned)")
                defect("IllConditioned", f"facet {j}: zero area, computed g may be nonzero")
            elif verdict == "ill":
                defect("IllConditioned", f"facet {j}: G + 32u <= tol (spec 004: 'The normalized cross-product "
                                         "magnitude must exceed the declared relative tolerance')")
            else:
                band.append(j)
    if found:
        if band and "IllConditioned" not in found:
            found.append("IllConditioned")
        return _decided(failure(*found, why="; ".join(why)), kinds)
    if band:  # IllConditioned: the spec's failure ('must exceed the declared relative tolerance'), our status
        return decided(either("Success", "IllConditioned",
                              why=f"facet {band[0]}: |G - tol| < 32u, inside the admission's rounding (|g - G| <= "
                                  "30u, docs/decisions.md 'Triangle surfaces: error model'): the oracle cannot "
                                  "decide g <= tol"), STATUS_NAMES, ANY_OUTCOME)
    return success(_WHY_NEW_OK)




def _decided(e: Expect, kinds: list) -> Expect:
    """:func:`oracles.request.decided_by_kinds` resting on ``triangle:status_names``
    (``triangle:coordinate_limit`` where that is the only decision)."""
    return decided_by_kinds(e, kinds, STATUS_NAMES if "named" in kinds else COORDINATE_LIMIT)


def _segment_defects(q: dict) -> list:
    out = []
    s, e = _points([q.get("start")]), _points([q.get("end")])
    # (status, why, kind): kind as in expected_new's defects
    if s is None or e is None:
        return [("InvalidArgument", "an endpoint is not a 3-vector of numbers", "named")]
    s, e = s[0], e[0]
    if not (_finite(s) and _finite(e)):
        out.append(("InvalidArgument",
                    f"a nonfinite endpoint (spec 004: 'for a nonzero finite segment'; {_DECISIONS})", "named"))
    elif max(abs(x) for x in s + e) > MAX_COORDINATE:
        out.append(("OutOfRange", f"an endpoint beyond 2^1000 ({_DECISIONS})", "ours"))
    elif s == e:
        out.append(("InvalidArgument",
                    f"a zero-length segment (spec 004: 'for a nonzero finite segment'; {_DECISIONS})", "named"))
    return out


def expected_query(surface: dict, q: dict) -> Expect:
    """What ``first_hit`` (and ``clip_segment``, which passes every failure through) must end in,
    on the admitted surface of ``surface`` (``TriangleSurface::new``'s inputs)."""
    k = q.get("cancel_after_polls")
    if k is not None and not _int_in(k, 0, 2**63 - 1):
        raise ValueError("cancel_after_polls must be a nonnegative integer")
    defects = _segment_defects(q)
    cancel_why = (f"spec 004: 'Cancellation polls per facet and returns no partial result': a token set before "
                  f"the call is seen at the first poll ({_SETTINGS})")
    if defects:
        statuses = [d[0] for d in defects] + (["Cancelled"] if k == 0 else [])
        return _decided(failure(*dict.fromkeys(statuses), why="; ".join(d[1] for d in defects) +
                                ("; the token is set before the call (the spec orders no check before the poll)"
                                 if k == 0 else "")),
                        [d[2] for d in defects] + (["spec"] if k == 0 else []))
    if k == 0:
        return failure("Cancelled", why=cancel_why)
    an = analyse({"vertices": surface["vertices"], "triangles": surface["triangles"],
                  "tolerance": surface["settings"]["tolerance"], "start": q["start"], "end": q["end"]})
    kind, why = query_expectation(an)
    base = {"success": ("Success",), "ambiguous": ("Ambiguous",), "either": ("Success", "Ambiguous")}[kind]
    if k is not None:
        return either(*base, "Cancelled", why=f"{why}; the token fires after {k} polls, and how often a query polls "
                                              f"is the implementation's ({_SETTINGS})")
    if kind == "success":
        return success(why)
    if kind == "ambiguous":
        return ambiguous(why)
    return either(*base, why=why)


# --- requests ----------------------------------------------------------------------------------


def _new_step(inp: dict, expect: Expect | None = None) -> Step:
    return Step(NEW, inp, expect or expected_new(inp))


def _query_step(op: str, surface: dict, q: dict, expect: Expect | None = None) -> Step:
    expect = expect or expected_query(surface, q)
    if expect.allows("Success"):
        rows = ("triangle.first_hit", "triangle.ambiguity") if op == FIRST_HIT else ("triangle.first_hit",)
    elif expect.kind == "ambiguous" and op == FIRST_HIT:
        rows = ("triangle.ambiguity",)
    else:
        rows = ()
    return Step(op, q, expect, rows)


def _scenario(new: dict, *queries, clip: bool = False) -> tuple:
    """Admission, then the queries (each ``(start, end)`` or a query-inputs dict) when it must succeed."""
    first = _new_step(new)
    steps = [first]
    if first.expect.kind == "success":
        for q in queries:
            qi = q if isinstance(q, dict) else query_inputs(*q)
            steps.append(_query_step(FIRST_HIT, new, qi))
            if clip:
                steps.append(_query_step(CLIP, new, qi))
    return tuple(steps)


def case_request(rid: str, case: TriangleCase, clip: bool = False) -> Request:
    """A corpus case as a request: its admission, then its query (and its clip)."""
    new = new_inputs(case.vertices, case.triangles, case_stamp(case), settings_json(case.tolerance))
    return Request(rid, "triangle", case.name, _scenario(new, (case.start, case.end), clip=clip))


_CUBE_S, _CUBE_E = (-0.625, 0.25, 0.625), (1.375, 0.25, 0.625)


def _cube(**settings) -> dict:
    V, T = cube_mesh()
    return new_inputs(V, T, SurfaceStamp(7, 3), settings_json(1e-12, **settings))


def status_requests() -> list:
    """``(name, steps, rules)`` of the status contracts: every status the spec and our decisions
    name for ``TriangleSurface::new``, ``first_hit`` and ``clip_segment``; the capacities and the
    coordinate limit met with equality and exceeded by one; the tolerance range; cancellation; an
    ambiguity among enough facets that the query runs through the facet hierarchy; a rejected
    admission that keeps the admitted surface."""
    out = []
    V, T = cube_mesh()
    cross = (_CUBE_S, _CUBE_E)

    def single(name, new, *queries, clip=False):
        out.append((name, _scenario(new, *queries, clip=clip), ()))

    def with_new(**changes):
        d = _cube()
        d.update(changes)
        return d

    # Capacity (spec 004 'retained buffer capacity'): the cube has 8 vertices and 12 triangles.
    single("max_vertices met with equality (8 vertices, max_vertices = 8)", _cube(max_vertices=8), cross)
    single("max_vertices exceeded by one (8 vertices, max_vertices = 7)", _cube(max_vertices=7))
    single("max_triangles met with equality (12 triangles, max_triangles = 12)", _cube(max_triangles=12), cross)
    single("max_triangles exceeded by one (12 triangles, max_triangles = 11)", _cube(max_triangles=11))
    # The coordinate limit |x| <= 2^1000 (docs/decisions.md 'Triangle surfaces: statuses').
    big = float(MAX_COORDINATE)
    Vb = V * 2.0**999 + 2.0**999  # the cube [2^999, 2^1000]^3
    inside = (0.375 * 2.0**999, 1.25 * 2.0**999, 1.625 * 2.0**999)
    single("MAX_COORDINATE met with equality (the cube [2^999, 2^1000]^3, a segment ending at 2^1000)",
           new_inputs(Vb, T, SurfaceStamp(7, 3), settings_json(1e-12)),
           (inside, (big, 1.25 * 2.0**999, 1.625 * 2.0**999)))
    Vo = Vb.copy()
    Vo[7, 0] = math.nextafter(big, math.inf)
    single("MAX_COORDINATE exceeded by one ulp (a vertex at nextafter(2^1000))",
           new_inputs(Vo, T, SurfaceStamp(7, 3), settings_json(1e-12)))
    # Settings: the tolerance range and the capacity settings' range.
    single("tolerance at its minimum, 32 binary64 epsilons",
           new_inputs(V, T, SurfaceStamp(7, 3), settings_json(MIN_TOLERANCE)), cross)
    single("tolerance at its maximum, 1e-3", new_inputs(V, T, SurfaceStamp(7, 3), settings_json(MAX_TOLERANCE)), cross)
    single("tolerance one ulp below its minimum",
           new_inputs(V, T, SurfaceStamp(7, 3), settings_json(math.nextafter(MIN_TOLERANCE, 0))))
    single("tolerance one ulp above its maximum",
           new_inputs(V, T, SurfaceStamp(7, 3), settings_json(math.nextafter(MAX_TOLERANCE, 1))))
    single("NaN tolerance", with_new(settings={**settings_json(1e-12), "tolerance": "nan"}))
    single("max_vertices setting at its ceiling 2^24", _cube(max_vertices=CAPACITY_CEILING), cross)
    single("max_vertices setting past its ceiling (2^24 + 1)", _cube(max_vertices=CAPACITY_CEILING + 1))
    single("zero max_triangles setting", _cube(max_triangles=0))
    single("stamp identity 2^64 (outside [0, 2^64))", with_new(stamp={"identity": 2**64, "version": 3}))
    single("negative stamp version", with_new(stamp={"identity": 7, "version": -1}))
    # Geometry (spec 004: 'finite vertices, index validity, nonempty geometry, ... nonzero facet area').
    vx = hex_points(V)
    single("no triangles", with_new(triangles=[]))
    single("no vertices", with_new(vertices=[], triangles=[[0, 1, 2]]))
    single("NaN vertex", with_new(vertices=[vx[0], ["nan", "0x0p+0", "0x1p+0"]] + vx[2:]))
    single("infinite vertex", with_new(vertices=vx[:5] + [["0x1p+0", "-inf", "0x1p+0"]] + vx[6:]))
    single("index outside [0, V)", with_new(triangles=np.asarray(T).tolist()[:11] + [[1, 7, 8]]))
    single("negative index", with_new(triangles=[[0, 1, -1]] + np.asarray(T).tolist()[1:]))
    single("a vertex with two coordinates", with_new(vertices=vx[:3] + [vx[3][:2]] + vx[4:]))
    single("repeated index: a facet of zero area", with_new(triangles=np.asarray(T).tolist()[:11] + [[1, 1, 3]]))
    single("collinear facet: zero area", new_inputs(np.array([[0.0, 0, 0], [1, 1, 1], [3, 3, 3]]), [[0, 1, 2]],
                                                    SurfaceStamp(7, 3), settings_json(1e-12)))
    single("three equal vertices: every edge zero", new_inputs(np.array([[0.5, 0.25, 2.0]] * 3), [[0, 1, 2]],
                                                               SurfaceStamp(7, 3), settings_json(1e-12)))
    single("ill-conditioned facet (G = 2^-20 below tol 1e-3)",
           new_inputs(np.array([[0.0, 0, 0], [1, 0, 0], [0.5, 2.0**-20, 0]]), [[0, 1, 2]], SurfaceStamp(7, 3),
                      settings_json(1e-3)))
    # first_hit and clip_segment statuses.
    single("NaN segment start", _cube(), ((math.nan, 0.25, 0.625), _CUBE_E), clip=True)
    single("infinite segment end", _cube(), (_CUBE_S, (math.inf, 0.25, 0.625)), clip=True)
    single("zero-length segment (-0 and +0 are one point)", _cube(), ((0.0, 0.25, 0.625), (-0.0, 0.25, 0.625)),
           clip=True)
    single("segment end beyond 2^1000", _cube(), (_CUBE_S, (math.nextafter(big, math.inf), 0.25, 0.625)), clip=True)
    single("segment end at 2^1000 (not OutOfRange; the cube lies in the band of t = 0)", _cube(),
           (_CUBE_S, (big, 0.25, 0.625)), clip=True)
    single("cancelled before the call", _cube(), query_inputs(*cross, cancel_after_polls=0), clip=True)
    single("cancelled after one poll (three facets)",
           new_inputs(V, np.asarray(T)[[0, 2, 4]], SurfaceStamp(7, 3), settings_json(1e-12)),
           query_inputs(*cross, cancel_after_polls=1))
    h = hierarchy_ambiguity_case()
    hnew = new_inputs(h.vertices, h.triangles, case_stamp(h), settings_json(h.tolerance))
    single("cancelled before the call, through the hierarchy", hnew, query_inputs(h.start, h.end, cancel_after_polls=0))
    single("coplanar overlap on a cube face, clipped", _cube(), ((-1.0, 0.5, 0.0), (2.0, 0.5, 0.0)), clip=True)
    single(h.name, hnew, (h.start, h.end), clip=True)
    # A rejected admission does not disturb the surface the caller holds (spec 004: 'Admitted
    # geometry is immutable'; spec 002 Contracts: fallible functions 'leave outputs unchanged on failure').
    keep = ("spec 004: 'Admitted geometry is immutable'; spec 002 Contracts: fallible functions 'leave outputs "
            "unchanged on failure'")
    for what, bad in (("a nonfinite vertex", with_new(vertices=[vx[0], ["nan", "0x0p+0", "0x1p+0"]] + vx[2:])),
                      ("capacity", _cube(max_triangles=11))):
        a = _cube()
        q = query_inputs(*cross)
        steps = (_new_step(a), _query_step(FIRST_HIT, a, q), _new_step(bad), _query_step(FIRST_HIT, a, q))
        out.append((f"rejected admission ({what}) keeps the admitted surface", steps,
                    (Rule("same_output", 0, 2, keep), Rule("same_output", 1, 3, keep))))
    return out


class _Drawn:
    """The named cases, the status contracts and the random cases drawn so far of one seed,
    kept for the next range (the random cases come from one generator in sequence)."""

    def __init__(self, seed: int):
        self.named, self.status, self._more, self.random = named_cases(seed), status_requests(), random_cases(seed), []

    def random_case(self, j: int) -> TriangleCase:
        while len(self.random) <= j:
            self.random.append(next(self._more))
        return self.random[j]


_drawn = lru_cache(maxsize=2)(_Drawn)


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` triangle requests: the named and adversarial cases, the status contracts, then
    random cases. Deterministic in ``seed``; ids ``triangle/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    d = _drawn(seed) if hi - lo < n else _Drawn(seed)
    named, status = d.named, d.status
    out = []
    for k in range(lo, hi):
        rid = f"triangle/{k:05d}"
        if k < len(named):
            out.append(case_request(rid, named[k], clip=k < _CLIPPED))
        elif k < len(named) + len(status):
            name, steps, rules = status[k - len(named)]
            out.append(Request(rid, "triangle", name, steps, rules))
        else:
            out.append(case_request(rid, d.random_case(k - len(named) - len(status))))
    return out
