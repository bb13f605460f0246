"""The exact first-hit model of proofs_lean/FirstHit.lean rendered in Python over Fractions, the
exact corpus the Lean model is run on, and the writer and reader of the Lean `#eval` file.

The Python functions mirror the Lean definitions one for one (same names in snake case, same
formulas, same order of tests), so that a statement test on them checks a Lean statement on
Python data, as ``test_statements.py`` does for FacetSelection. Whether they compute what Lean
computes is itself tested: ``test_first_hit_eval.py`` compares them with the printed results of
the Lean model. No project package is imported here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

# --- the Lean definitions -----------------------------------------------------------------------


def sub(p, q):
    """``FirstHit.sub``."""
    return (p[0] - q[0], p[1] - q[1], p[2] - q[2])


def dot(p, q):
    """``FirstHit.dot``."""
    return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]


def cross(p, q):
    """``FirstHit.cross``."""
    return (p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0])


def neg(p):
    """``FirstHit.neg``."""
    return (-p[0], -p[1], -p[2])


def normal(tri):
    """``FirstHit.normal``: ``(b - a) × (c - a)``."""
    a, b, c = tri
    return cross(sub(b, a), sub(c, a))


def direction(seg):
    """``FirstHit.Segment.dir``."""
    return sub(seg[1], seg[0])


def point_at(seg, t):
    """``FirstHit.Segment.pointAt``: ``s + t (e - s)``."""
    s, e = seg
    return tuple(s[i] + t * (e[i] - s[i]) for i in range(3))


def facing(tri, seg) -> str:
    """``FirstHit.facing``: ``"front"`` when ``n · (e - s) < 0``, else ``"back"``."""
    return "front" if dot(normal(tri), direction(seg)) < 0 else "back"


def height(tri, p):
    """``FirstHit.height``."""
    return dot(normal(tri), sub(p, tri[0]))


def param(tri, seg):
    """``FirstHit.param``."""
    return height(tri, seg[0]) / (height(tri, seg[0]) - height(tri, seg[1]))


def weight_b(tri, p):
    """``FirstHit.weightB``."""
    a, _b, c = tri
    n = normal(tri)
    return dot(cross(sub(p, a), sub(c, a)), n) / dot(n, n)


def weight_c(tri, p):
    """``FirstHit.weightC``."""
    a, b, _c = tri
    n = normal(tri)
    return dot(cross(sub(b, a), sub(p, a)), n) / dot(n, n)


def crossing(tri, seg) -> tuple | None:
    """``FirstHit.crossing``: ``(t, α, β, γ)`` or None."""
    if height(tri, seg[0]) == height(tri, seg[1]):
        return None
    t = param(tri, seg)
    p = point_at(seg, t)
    beta, gamma = weight_b(tri, p), weight_c(tri, p)
    alpha = 1 - beta - gamma
    if 0 <= t <= 1 and 0 <= alpha and 0 <= beta and 0 <= gamma:
        return (t, alpha, beta, gamma)
    return None


def barycentric_point(tri, alpha, beta, gamma):
    """``FacetSelection.barycentricPoint``."""
    a, b, c = tri
    return tuple(alpha * a[i] + beta * b[i] + gamma * c[i] for i in range(3))


def exact_contact(tri, seg, t, alpha, beta, gamma) -> bool:
    """``FirstHit.ExactContact``."""
    return (dot(normal(tri), direction(seg)) != 0 and 0 <= t <= 1
            and min(alpha, beta, gamma) >= 0 and alpha + beta + gamma == 1
            and barycentric_point(tri, alpha, beta, gamma) == point_at(seg, t))


@dataclass(frozen=True)
class Hit:
    """``FirstHit.Hit``."""

    index: int
    t: Fraction
    alpha: Fraction
    beta: Fraction
    gamma: Fraction
    facing: str


def step(seg, i, tri, best: Hit | None) -> Hit | None:
    """``FirstHit.step``: replace only on a strictly smaller parameter."""
    c = crossing(tri, seg)
    if c is None:
        return best
    if best is None or c[0] < best.t:
        return Hit(i, *c, facing(tri, seg))
    return best


def first_hit(tris, seg) -> Hit | None:
    """``FirstHit.firstHit`` (``scan`` from index 0 with nothing kept)."""
    best = None
    for i, tri in enumerate(tris):
        best = step(seg, i, tri, best)
    return best


def crossing_times(tris, seg) -> list:
    """``FirstHit.crossingTimes``: the crossing parameters in facet order."""
    return [c[0] for c in (crossing(t, seg) for t in tris) if c is not None]


def min_fold(best, cs):
    """``FacetSelection.minFold``: the left fold of ``min`` (``if a ≤ b then a else b``)."""
    for c in cs:
        best = best if best <= c else c
    return best


# --- the corpus ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One exact query: facets (triples of float 3-tuples, all dyadic) and a segment."""

    key: int
    kind: str
    tris: tuple
    seg: tuple

    def exact(self):
        """(facets, segment) with Fraction coordinates (exact: every float is dyadic)."""
        q = lambda p: tuple(Fraction(x) for x in p)
        return [tuple(q(v) for v in t) for t in self.tris], (q(self.seg[0]), q(self.seg[1]))


def _cube(offset=(0, 0, 0), scale=1, reverse=False):
    """The book cube of docs/decisions.md (vertex ``4x + 2y + z``, two triangles per face,
    counter-clockwise seen from outside), written out here as facets."""
    v = [tuple(float(scale * c + o) for c, o in zip((x, y, z), offset)) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    if reverse:
        tris = [t[::-1] for t in tris]
    return tuple(tuple(v[i] for i in t) for t in tris)


def _area_nonzero(tri) -> bool:
    q = [tuple(Fraction(x) for x in p) for p in tri]
    n = normal(q)
    return dot(n, n) != 0


def _grid(rng, lo=-12, hi=12, den=4):
    return float(Fraction(rng.randint(lo, hi), den))


def _rand_point(rng, lo=-12, hi=12, den=4):
    return tuple(_grid(rng, lo, hi, den) for _ in range(3))


def _rand_tri(rng):
    while True:
        t = tuple(_rand_point(rng) for _ in range(3))
        if _area_nonzero(t):
            return t


#: Barycentric weights of aimed points: interior, on an edge (one weight 0), at a vertex.
_WEIGHTS = [
    (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)),
    (Fraction(1, 2), Fraction(1, 2), Fraction(0)), (Fraction(0), Fraction(3, 4), Fraction(1, 4)),
    (Fraction(1, 4), Fraction(0), Fraction(3, 4)), (Fraction(1), Fraction(0), Fraction(0)),
    (Fraction(0), Fraction(1), Fraction(0)), (Fraction(0), Fraction(0), Fraction(1)),
    (Fraction(5, 8), Fraction(-1, 8), Fraction(1, 2)),  # just outside the edge b-c... of a: a miss
]
#: Where along the segment the aimed point lies: endpoints included.
_T0 = [Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)]


def _aimed(rng, tri, w, t0):
    """A segment whose point at ``t0`` is the barycentric point ``w`` of ``tri`` (exact:
    dyadic weights and coordinates give dyadic points)."""
    q = [tuple(Fraction(x) for x in p) for p in tri]
    p = barycentric_point(q, *w)
    while True:
        d = tuple(Fraction(rng.randint(-8, 8), 4) for _ in range(3))
        if any(d):
            break
    s = tuple(p[i] - t0 * d[i] for i in range(3))
    e = tuple(s[i] + d[i] for i in range(3))
    return tuple(float(x) for x in s), tuple(float(x) for x in e)


def corpus(seed: int = 16, n_random: int = 300) -> list[Case]:
    """The exact corpus: named cube cases, then seeded random soups (1 to 5 facets with
    coordinates in quarter steps) with aimed segments, ties, stacks, coplanar and parallel
    segments. Every facet has nonzero exact area and every segment nonzero length."""
    rng = random.Random(seed)
    cases: list[Case] = []

    def add(kind, tris, seg):
        tris = tuple(tuple(tuple(float(x) for x in p) for p in t) for t in tris)
        seg = tuple(tuple(float(x) for x in p) for p in seg)
        assert all(_area_nonzero(t) for t in tris) and seg[0] != seg[1]
        cases.append(Case(len(cases), kind, tris, seg))

    cube = _cube()
    add("cube-book", cube, ((-0.625, 0.25, 0.625), (1.375, 0.25, 0.625)))
    add("cube-book-reversed-winding", _cube(reverse=True), ((-0.625, 0.25, 0.625), (1.375, 0.25, 0.625)))
    add("cube-book-translated", _cube(offset=(1024, -2048, 512)),
        ((1024 - 0.625, -2048 + 0.25, 512 + 0.625), (1024 + 1.375, -2048 + 0.25, 512 + 0.625)))
    add("cube-book-backwards", cube, ((1.375, 0.25, 0.625), (-0.625, 0.25, 0.625)))
    add("cube-face-diagonal-tie", cube, ((-1, 0.5, 0.5), (2, 0.5, 0.5)))
    add("cube-edge-tie", cube, ((-1, 0, 0.5), (2, 0, 0.5)))
    add("cube-oblique-edge", cube, ((-1, -1, 0.5), (1, 1, 0.5)))
    add("cube-vertex", cube, ((-1, -1, -1), (0.5, 0.5, 0.5)))
    add("cube-vertex-outside-in", cube, ((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)))
    add("cube-inside-start", cube, ((0.5, 0.5, 0.5), (0.5, 0.5, 3)))
    add("cube-inside-both", cube, ((0.25, 0.25, 0.25), (0.75, 0.5, 0.5)))
    add("cube-start-on-face", cube, ((0, 0.25, 0.5), (-1, 0.25, 0.5)))
    add("cube-end-on-face", cube, ((-1, 0.25, 0.5), (0, 0.25, 0.5)))
    add("cube-miss", cube, ((-1, 2, 0.5), (2, 2, 0.5)))
    add("cube-parallel-off", cube, ((-1, 0.5, 2), (2, 0.5, 2)))
    add("cube-coplanar-face", cube, ((-1, 0.5, 0), (2, 0.5, 0)))  # in the plane z = 0
    add("cube-coplanar-edge-line", cube, ((-1, 0, 0), (2, 0, 0)))
    add("cube-just-short", cube, ((-1, 0.5, 0.5), (-0.0078125, 0.5, 0.5)))
    for k in range(24):
        s = (_grid(rng, -8, -5), _grid(rng, -2, 6), _grid(rng, -2, 6))
        e = (_grid(rng, 5, 9), _grid(rng, -2, 6), _grid(rng, -2, 6))
        if k % 2:
            s, e = e, s
        add("cube-random", cube, (s, e))

    kinds = ["aimed", "aimed", "aimed", "tie-duplicate", "tie-shared-edge", "stack", "coplanar",
             "parallel", "random"]
    for k in range(n_random):
        kind = kinds[k % len(kinds)]
        m = rng.randint(1, 5)
        tris = [_rand_tri(rng) for _ in range(m)]
        if kind == "aimed":
            j = rng.randrange(m)
            seg = _aimed(rng, tris[j], rng.choice(_WEIGHTS), rng.choice(_T0))
        elif kind == "tie-duplicate":
            j = rng.randrange(m)
            a, b, c = tris[j]
            twin = rng.choice([(a, b, c), (b, c, a), (a, c, b)])  # same, rotated, reversed winding
            tris.insert(rng.randrange(m + 1), twin)
            seg = _aimed(rng, tris[j if tris[j] == (a, b, c) else j + 1], rng.choice(_WEIGHTS[:5]),
                         rng.choice(_T0[1:4]))
        elif kind == "tie-shared-edge":
            a, b, c = tris[0]
            while True:
                d = _rand_point(rng)
                if _area_nonzero((b, a, d)):
                    break
            tris.insert(rng.randrange(1, m + 1), (b, a, d))
            seg = _aimed(rng, (a, b, c), (Fraction(1, 2), Fraction(1, 2), Fraction(0)), rng.choice(_T0[1:4]))
        elif kind == "stack":
            tris = []
            for z in rng.sample(range(-6, 7), m):
                p = [(_grid(rng, -8, -1), _grid(rng, -8, -1)), (_grid(rng, 1, 8), _grid(rng, -8, -1)),
                     (_grid(rng, -4, 4), _grid(rng, 1, 8))]
                tris.append(tuple((x, y, z / 4) for x, y in p))
            x, y = _grid(rng, -1, 1), _grid(rng, -1, 1)
            seg = ((x, y, -2.0), (x + _grid(rng, -1, 1), y, 2.0))
            if rng.random() < 0.5:
                seg = seg[::-1]
        elif kind == "coplanar":
            # A facet in the plane z = h and a segment in that plane crossing it, plus the rest.
            h = _grid(rng, -4, 4)
            flat = ((-2.0, -2.0, h), (2.0, -2.0, h), (0.0, 2.0, h))
            tris.insert(rng.randrange(m + 1), flat if rng.random() < 0.5 else flat[::-1])
            y = _grid(rng, -4, 4)
            seg = ((-3.0, y, h), (3.0, y, h))
        elif kind == "parallel":
            j = rng.randrange(m)
            a, b, c = tris[j]
            off = tuple(_grid(rng, -2, 2) for _ in range(3))
            seg = (tuple(x + o for x, o in zip(a, off)), tuple(x + o for x, o in zip(b, off)))
            if seg[0] == seg[1]:
                seg = (seg[0], tuple(x + 1 for x in seg[1]))
        else:
            while True:
                seg = (_rand_point(rng), _rand_point(rng))
                if seg[0] != seg[1]:
                    break
        add(kind, tris, seg)
    return cases


# --- the Lean file and its output ---------------------------------------------------------------

#: Cases per Lean definition (one `#eval` each).
CHUNK = 25


def _lean_rat(x: Fraction) -> str:
    return f"({x.numerator})" if x.denominator == 1 else f"({x.numerator}/{x.denominator})"


def _lean_point(p) -> str:
    return "pt " + " ".join(_lean_rat(Fraction(x)) for x in p)


def lean_harness(cases: list[Case]) -> str:
    """The Lean text appended after FacetSelection and FirstHit: the cases as data and one
    `#eval` per chunk printing one line per case: ``case K none`` or
    ``case K hit INDEX T ALPHA BETA GAMMA FACING``. The printer uses only `toString` and
    string append (the WebAssembly checker lacks compiled code for most list functions)."""
    lines = [
        "open FacetSelection FirstHit",
        "",
        "/-- A point from three rationals. -/",
        "def pt (x y z : Rat) : Point3 := ⟨x, y, z⟩",
        "",
        "/-- One line per case. -/",
        "def renderHit (k : Nat) : Option Hit → String",
        "  | none => \"case \" ++ toString k ++ \" none\"",
        "  | some h => \"case \" ++ toString k ++ \" hit \" ++ toString h.index ++ \" \" ++ toString h.t",
        "      ++ \" \" ++ toString h.α ++ \" \" ++ toString h.β ++ \" \" ++ toString h.γ",
        "      ++ (match h.facing with | .front => \" front\" | .back => \" back\")",
        "",
        "/-- The lines of a chunk of cases. -/",
        "def renderAll : List (Nat × List Triangle × Segment) → String",
        "  | [] => \"\"",
        "  | (k, Ts, S) :: rest => renderHit k (firstHit Ts S) ++ \"\\n\" ++ renderAll rest",
        "",
    ]
    for c0 in range(0, len(cases), CHUNK):
        lines.append(f"def chunk{c0 // CHUNK} : List (Nat × List Triangle × Segment) := [")
        body = []
        for case in cases[c0:c0 + CHUNK]:
            tris = ", ".join("⟨" + ", ".join(_lean_point(p) for p in t) + "⟩" for t in case.tris)
            seg = "⟨" + _lean_point(case.seg[0]) + ", " + _lean_point(case.seg[1]) + "⟩"
            body.append(f"  ({case.key}, [{tris}], {seg})")
        lines.append(",\n".join(body))
        lines.append("]")
        lines.append(f"#eval IO.print (renderAll chunk{c0 // CHUNK})")
        lines.append("")
    return "\n".join(lines) + "\n"


def parse_results(text: str) -> dict[int, Hit | None]:
    """The printed lines ``case K ...`` as {K: Hit or None}; other lines are ignored."""
    out: dict[int, Hit | None] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) < 3 or words[0] != "case":
            continue
        k = int(words[1])
        if k in out:
            raise ValueError(f"case {k} printed twice")
        if words[2] == "none" and len(words) == 3:
            out[k] = None
        elif words[2] == "hit" and len(words) == 9 and words[8] in ("front", "back"):
            out[k] = Hit(int(words[3]), *(Fraction(w) for w in words[4:8]), words[8])
        else:
            raise ValueError(f"unreadable result line: {line!r}")
    return out
