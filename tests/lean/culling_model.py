"""The culling model of proofs_lean/Culling.lean rendered in Python over Fractions, an
independent exact oracle for the slab test, the corpus of hierarchy nodes the Lean model is run
on, and the writer and reader of the Lean `#eval` file.

The Python functions mirror the Lean definitions one for one (same names in snake case, same
formulas, same order of tests). ``meets_by_vertices`` is an independent oracle: it does not
narrow an interval axis by axis but tries every parameter where a constraint is tight. The
corpus comes from the real hierarchy of ``reference/triangle_surface.py``: its node boxes and
the margins ``_node_margin`` gives them for random and adversarial segments, with the float
decision ``_slab_miss`` that the hierarchy takes on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

# --- the Lean definitions -----------------------------------------------------------------------


def slab_axis(l, h, s, d, te, tx):
    """``Culling.slabAxis``: ``(te', tx')`` or None."""
    if d == 0:
        return (te, tx) if l <= s <= h else None
    a, b = (l - s) / d, (h - s) / d
    lo, hi = max(te, min(a, b)), min(tx, max(a, b))
    return None if hi < lo else (lo, hi)


def slab_clip(lo, hi, mu, s, e):
    """``Culling.slabClip``: the parameter interval in [0, 1] inside the box grown by ``mu``."""
    iv = (Fraction(0), Fraction(1))
    for i in range(3):
        iv = slab_axis(lo[i] - mu, hi[i] + mu, s[i], e[i] - s[i], *iv)
        if iv is None:
            return None
    return iv


def slab_separated(lo, hi, mu, s, e) -> bool:
    """``Culling.slabSeparated``."""
    return slab_clip(lo, hi, mu, s, e) is None


def near_box(lo, hi, mu, p) -> bool:
    """``Culling.NearBox``."""
    return all(lo[i] - mu <= p[i] <= hi[i] + mu for i in range(3))


def point_at(s, e, t):
    """``FirstHit.Segment.pointAt``."""
    return tuple(s[i] + t * (e[i] - s[i]) for i in range(3))


# --- an independent oracle ------------------------------------------------------------------------


def meets_by_vertices(lo, hi, mu, s, e) -> bool:
    """Does some point of the segment lie in the box grown by ``mu``? The set of such parameters
    is an interval of [0, 1] cut by six half-lines, so if it is not empty one of its ends is 0,
    1 or a parameter where a face constraint is tight: try them all (no axis-by-axis narrowing)."""
    cands = {Fraction(0), Fraction(1)}
    for i in range(3):
        d = e[i] - s[i]
        if d != 0:
            cands |= {(lo[i] - mu - s[i]) / d, (hi[i] + mu - s[i]) / d}
    return any(near_box(lo, hi, mu, point_at(s, e, t)) for t in cands if 0 <= t <= 1)


# --- the corpus: hierarchy nodes, margins and the float decisions -------------------------------

@dataclass(frozen=True)
class NodeCase:
    """One slab test the hierarchy makes: a node box, a margin, a segment (exact values of the
    binary64 inputs), what kind of segment it is, and the float decision ``_slab_miss``."""

    key: int
    kind: str
    lo: tuple
    hi: tuple
    mu: Fraction
    s: tuple
    e: tuple
    float_miss: bool


def _fr(v) -> tuple:
    return tuple(Fraction(float(x)) for x in v)


def _soup(rng, n, spread, size):
    base = rng.uniform(-spread, spread, (n, 3))
    verts = np.concatenate([base, base + rng.normal(0, size, (n, 3)), base + rng.normal(0, size, (n, 3))])
    tris = np.stack([np.arange(n), np.arange(n) + n, np.arange(n) + 2 * n], axis=1)
    return verts, tris


def _segments(rng, tree, kinds_wanted):
    """Segments of each kind against this tree's node boxes: random, grazing a node box face
    (parallel to it at distance about mu), near-parallel to an axis, with an end on a box face or
    corner, and axis-parallel (e_i == s_i) through or beside a box."""
    nd = tree.nd
    root_lo, root_hi = nd[0, 0:3], nd[0, 3:6]
    ext = float(np.max(root_hi - root_lo))
    out = []
    for _ in range(kinds_wanted):
        out.append(("random", rng.uniform(root_lo - ext, root_hi + ext), rng.uniform(root_lo - ext, root_hi + ext)))
    for _ in range(kinds_wanted):
        j = int(rng.integers(0, nd.shape[0]))
        lo, hi = nd[j, 0:3], nd[j, 3:6]
        ax = int(rng.integers(0, 3))
        s = rng.uniform(lo - ext / 4, hi + ext / 4)
        e = rng.uniform(lo - ext / 4, hi + ext / 4)
        face = lo[ax] if rng.random() < 0.5 else hi[ax]
        off = float(rng.choice([0.0, 1e-12, -1e-12, 1e-6, -1e-6])) * ext
        s[ax] = face + off
        e[ax] = face + off * float(rng.choice([1.0, 1.0 + 2.0**-40, 0.5]))
        out.append(("grazing", s, e))
    for _ in range(kinds_wanted):
        s = rng.uniform(root_lo - ext, root_hi + ext)
        d = np.zeros(3)
        d[int(rng.integers(0, 3))] = ext * float(rng.choice([-2.0, 2.0]))
        d += rng.normal(0, 1e-9 * ext, 3)
        out.append(("near-parallel", s, s + d))
    for _ in range(kinds_wanted):
        j = int(rng.integers(0, nd.shape[0]))
        lo, hi = nd[j, 0:3], nd[j, 3:6]
        corner = np.where(rng.random(3) < 0.5, lo, hi)
        on_face = corner.copy()
        ax = int(rng.integers(0, 3))
        on_face[ax] = rng.uniform(lo[ax], hi[ax])
        end = on_face if rng.random() < 0.5 else corner
        out.append(("on-box-face", rng.uniform(root_lo - ext, root_hi + ext), end))
    for _ in range(kinds_wanted):
        j = int(rng.integers(0, nd.shape[0]))
        lo, hi = nd[j, 0:3], nd[j, 3:6]
        s = rng.uniform(lo - ext / 8, hi + ext / 8)
        e = s.copy()
        e[int(rng.integers(0, 3))] += ext * float(rng.choice([-1.0, 1.0]))
        out.append(("axis-parallel", s, e))
    return out


def node_corpus(seed: int = 27, surfaces: int = 4, per_kind: int = 6) -> list[NodeCase]:
    """Slab tests of the real hierarchy: for random soups (a few hundred facets, so that the tree
    has inner nodes), every node with a margin (``_node_margin`` >= 0) for segments of each kind,
    plus the node with the margin replaced by 0 (the exact box) and by a large margin."""
    from reference import triangle_surface as ts
    from reference.triangle_surface import SurfaceSettings, SurfaceStamp, TriangleSurface

    rng = np.random.default_rng(seed)
    cases: list[NodeCase] = []
    for k in range(surfaces):
        spread, size = [(10.0, 0.5), (1e-6, 1e-8), (1e6, 1e4), (1.0, 0.05)][k % 4]
        verts, tris = _soup(rng, 300, spread, size)
        tol = [1e-12, 1e-6, 1e-9, 1e-3][k % 4]
        made = TriangleSurface.new(verts, tris, SurfaceStamp(27, k), SurfaceSettings(tolerance=tol))
        if not made.ok:
            continue
        tree = made.value._bvh_tree()
        for kind, s, e in _segments(rng, tree, per_kind):
            s, e = np.asarray(s, float), np.asarray(e, float)
            if np.array_equal(s, e):
                continue
            q = ts._query(s, e)
            sigma, _, isd = ts._query_constants(q, tol)
            with np.errstate(over="ignore", divide="ignore"):
                inv = np.array([1.0 / x if x != 0 else 0.0 for x in q.d])
            for j in range(tree.nd.shape[0]):
                c = tree.nd[j]
                mu = ts._node_margin(c, q, tol, sigma, isd)
                for m in ([mu] if mu >= 0 else []) + ([0.0] if j % 7 == 0 else []):
                    miss = bool(ts._slab_miss(c[0], c[1], c[2], c[3], c[4], c[5], m, q, inv))
                    cases.append(NodeCase(len(cases), kind, _fr(c[0:3]), _fr(c[3:6]), Fraction(m), _fr(s), _fr(e),
                                          miss))
    return cases


def widened_margin(c: NodeCase) -> Fraction:
    """A margin larger than ``c.mu`` by more than the float slab test's widening (its rounding
    bound is below ``2.1u (|lo - s| + |hi - s| + 2 mu)`` in space per axis, plus ``2^-40 mu``): when
    the exact test separates the segment even from the box grown by this, the float test must
    report a miss too, or it culls less than it could (not unsound, but not what it claims)."""
    span = max(abs(c.lo[i] - c.s[i]) + abs(c.hi[i] - c.s[i]) + abs(c.e[i] - c.s[i]) for i in range(3))
    return c.mu + Fraction(1, 2**36) * (span + 2 * c.mu) + Fraction(1, 2**1000)


def tight(c: NodeCase) -> bool:
    """The exact answer changes between margin 0 and twice the margin plus a little: the segment
    passes close to the grown box, where a wrong widening or comparison would show."""
    far = 2 * c.mu + widened_margin(c)
    return slab_separated(c.lo, c.hi, c.mu, c.s, c.e) != slab_separated(c.lo, c.hi, far, c.s, c.e) or \
        slab_separated(c.lo, c.hi, Fraction(0), c.s, c.e) != slab_separated(c.lo, c.hi, c.mu, c.s, c.e)


def lean_cases(cases: list[NodeCase], per_kind: int = 30) -> list[NodeCase]:
    """The cases the Lean model is run on: per kind, up to ``per_kind`` the float test keeps and
    up to ``per_kind`` it culls, tight ones first (a few hundred, renumbered from 0)."""
    chosen = []
    for kind in sorted({c.kind for c in cases}):
        for miss in (False, True):
            group = [c for c in cases if c.kind == kind and c.float_miss == miss]
            group.sort(key=lambda c: (not tight(c), c.key))
            chosen += group[:per_kind]
    return [NodeCase(k, c.kind, c.lo, c.hi, c.mu, c.s, c.e, c.float_miss) for k, c in enumerate(chosen)]


# --- the Lean harness -------------------------------------------------------------------------------

CHUNK = 40


def _lean_rat(x: Fraction) -> str:
    return f"({x.numerator})" if x.denominator == 1 else f"({x.numerator}/{x.denominator})"


def _lean_point(p) -> str:
    return "⟨" + ", ".join(_lean_rat(Fraction(x)) for x in p) + "⟩"


def lean_harness(cases: list[NodeCase]) -> str:
    """The Lean text appended after the three modules: the cases as data and one `#eval` per
    chunk printing ``case K sep`` or ``case K meet``: short lines, so that the run prints far
    less than its output pipe holds (the intervals, whose rationals can have hundreds of
    digits, are checked in Python on the mirror)."""
    lines = [
        "open FacetSelection FirstHit Culling",
        "",
        "/-- One line per case. -/",
        "def renderSlab (k : Nat) (B : Box) (μ : Rat) (S : Segment) : String :=",
        "  \"case \" ++ toString k ++ (if slabSeparated B μ S then \" sep\" else \" meet\")",
        "",
        "/-- The lines of a chunk of cases. -/",
        "def renderSlabs : List (Nat × Box × Rat × Segment) → String",
        "  | [] => \"\"",
        "  | (k, B, μ, S) :: rest => renderSlab k B μ S ++ \"\\n\" ++ renderSlabs rest",
        "",
    ]
    for c0 in range(0, len(cases), CHUNK):
        lines.append(f"def slabChunk{c0 // CHUNK} : List (Nat × Box × Rat × Segment) := [")
        body = []
        for c in cases[c0:c0 + CHUNK]:
            box = "⟨" + _lean_point(c.lo) + ", " + _lean_point(c.hi) + "⟩"
            seg = "⟨" + _lean_point(c.s) + ", " + _lean_point(c.e) + "⟩"
            body.append(f"  ({c.key}, {box}, {_lean_rat(c.mu)}, {seg})")
        lines.append(",\n".join(body))
        lines.append("]")
        lines.append(f"#eval IO.print (renderSlabs slabChunk{c0 // CHUNK})")
        lines.append("")
    return "\n".join(lines) + "\n"


def parse_results(text: str) -> dict[int, bool]:
    """The printed lines ``case K sep|meet`` as {K: separated}; other lines are ignored."""
    out: dict[int, bool] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) < 2 or words[0] != "case":
            continue
        if len(words) != 3 or words[2] not in ("sep", "meet"):
            raise ValueError(f"unreadable result line: {line!r}")
        k = int(words[1])
        if k in out:
            raise ValueError(f"case {k} printed twice")
        out[k] = words[2] == "sep"
    return out

