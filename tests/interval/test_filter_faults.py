"""Planted faults in the filters' bounds are caught (issue 26): the filter is compared with exact
rational arithmetic (what the exact stage computes) on adversarial claims and inputs near the
edges (cancellation in the Bernstein sum, u near 0 and 1 and tiny, huge and tiny magnitudes,
control exponents far apart, ratios at and beside the midpoints between two floats), first as
it is (it must agree everywhere it decides), then with one term of its bound or one exactness
condition removed (each such mutant must be refuted by some case).

A mutant is the module's own source with one exact text replaced, executed as a separate module
(the tree is never touched); rounding terms of :func:`interval.dd.sum_with_bound` are dropped one
addition at a time by a wrapper around :func:`interval.dd.rounding_term`. Every addition's term is
refuted on hand-made tie sums; on claims' own residuals (the remainder of a position residual
has 14 additions, counted from the end) the last addition's term is refuted by the adversarial
corpus and the 5th and 6th from the end by claims at a triple root (:func:`_cancelling_claims`);
on a first derivative's (6 additions) the last addition's term is refuted by the adversarial
corpus; the other additions' terms are refuted by the tie sums alone.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import sys
import types
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from interval import dd
from interval import filters as FL


def _mutant(name: str, old: str, new: str) -> types.ModuleType:
    path = Path(importlib.import_module(name).__file__)
    src = path.read_text()
    assert src.count(old) == 1, f"the fault's text must occur once in {name}: {old!r}"
    mod = types.ModuleType(name)
    mod.__package__ = "interval"
    mod.__file__ = str(path)
    exec(compile(src.replace(old, new), f"<mutant of {name}>", "exec"), mod.__dict__)
    return mod


# --- adversarial claims ------------------------------------------------------------------------


def _f32(x):
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def _claims(seed: int = 3):
    """(P (n, 4, 3), u (n,), claimed (n, 3), bound (n,)) of positions near every edge."""
    rng = np.random.default_rng(seed)
    Ps, us = [], []
    for kind in range(8):
        for _ in range(150):
            if kind == 0:  # ordinary
                P = _f32(rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-3, 3))
            elif kind == 1:  # cancellation: controls agree in their leading bits
                base = rng.normal(size=3) * 10.0 ** rng.uniform(-2, 4)
                P = _f32(base + rng.normal(size=(4, 3)) * np.abs(base) * 2.0 ** -int(rng.integers(10, 23)))
            elif kind == 2:  # near the float32 range's ends
                P = _f32(rng.normal(size=(4, 3)) * float(rng.choice([1e37, 1e-37, 1e-43])))
            elif kind == 3:  # exponents far apart in one component: coefficients round
                far = rng.integers(-30, 30, size=(4, 3)).astype(float)
                near = -np.log10(2.0) * rng.integers(22, 31, size=(4, 3))  # 2^-22 .. 2^-30: the edge
                P = _f32(rng.normal(size=(4, 3)) * 10.0 ** (far if rng.random() < 0.5 else near))
            elif kind == 7:  # P1 = P2 = 0, P3 and P0 about 2^-29 apart: only 3 a3 rounds
                P = np.zeros((4, 3))
                P[0] = _f32(rng.normal(size=3))
                P[3] = _f32(rng.normal(size=3) * 2.0 ** -int(rng.integers(26, 31)))
                P = P[::-1].copy() if rng.random() < 0.5 else P
            else:
                P = _f32(rng.normal(size=(4, 3)) * 10.0 ** rng.uniform(-3, 3))
            if kind == 4:  # u near 0 and 1
                k = int(rng.integers(1, 60))
                u = float(rng.choice([2.0**-k, 1.0 - 2.0**-k, 0.0, 1.0]))
            elif kind == 5:  # tiny u: products whose error terms underflow
                u = 2.0 ** -int(rng.integers(200, 1074))
            else:
                u = float(rng.random())
            Ps.append(P)
            us.append(u)
    P, u = np.array(Ps), np.array(us)
    s, uu = 1.0 - u[:, None], u[:, None]
    with np.errstate(all="ignore"):
        B = s**3 * P[:, 0] + 3 * uu * s * s * P[:, 1] + 3 * uu * uu * s * P[:, 2] + uu**3 * P[:, 3]
    # claimed: the float64 evaluation, or a few ulps off it
        D = 3 * (s * s * (P[:, 1] - P[:, 0]) + 2 * uu * s * (P[:, 2] - P[:, 1]) + uu * uu * (P[:, 3] - P[:, 2]))
    B = B + np.spacing(B) * rng.integers(-3, 4, size=B.shape)
    D = D + np.spacing(D) * rng.integers(-3, 4, size=D.shape)
    E = np.max(np.abs(P), axis=(1, 2))
    bound = np.nextafter(16 * 2.0**-53 * E + 16 * 2.0**-1074, np.inf)
    # a third of the bounds put the ratio at the edge: at, just beside, or at a midpoint of 1
    exact = [_exact_errors(P[k], u[k], B[k]) for k in range(len(u))]
    for k in range(0, len(u), 3):
        w = max(exact[k])
        if w > 0:
            bound[k] = float(w) * float(rng.choice([1.0, 1.0 + 2.0**-52, 1.0 - 2.0**-53, 2.0 / 3.0]))
    dexact = [_exact_errors(P[k], u[k], D[k], first=True) for k in range(len(u))]
    return P, u, B, bound, exact, D, dexact


def _exact_truth(P, u, first=False):
    """B(u) (or B'(u)) of one claim's controls P (4, 3), per component, in exact rationals."""
    uq = Fraction(float(u))
    Pq = [[Fraction(float(x)) for x in row] for row in P]
    if first:
        b = [(1 - uq) ** 2, 2 * uq * (1 - uq), uq * uq]
        return [3 * sum(b[i] * (Pq[i + 1][d] - Pq[i][d]) for i in range(3)) for d in range(3)]
    b = [(1 - uq) ** 3, 3 * uq * (1 - uq) ** 2, 3 * uq * uq * (1 - uq), uq**3]
    return [sum(b[i] * Pq[i][d] for i in range(4)) for d in range(3)]


def _exact_errors(P, u, c, first=False):
    truth = _exact_truth(P, u, first)
    return [abs(Fraction(float(c[d])) - truth[d]) for d in range(3)]


_CLAIMS = None


def _cases():
    global _CLAIMS
    if _CLAIMS is None:
        _CLAIMS = _claims()
    return _CLAIMS


def _claim_disagreements(filters_module) -> int:
    """Claims whose pinned ratio differs from the exact one (a pinned ratio must be exact)."""
    P, u, B, bound, exact, D, dexact = _cases()
    bad = 0
    for which, c, ex, b in (("point", B, exact, bound), ("first", D, dexact, 6 * bound)):
        q, pinned = filters_module.residual_ratios(P, u, c, b, which)
        for k in np.nonzero(pinned)[0]:
            if q[k] != float(max(ex[k]) / Fraction(float(b[k]))):
                bad += 1
    return bad


def _ratio_disagreements(dd_module) -> int:
    """Unit cases of round_ratio (enclosures at and straddling midpoints) pinned wrongly."""
    from tests.interval.test_dd import _correctly_rounded, _midpoint_cases

    cases = _midpoint_cases(np.random.default_rng(11), 3000)
    hi, lo, rad, b = (np.array(c) for c in zip(*cases))
    q, pinned = dd_module.round_ratio(hi, lo, rad, b)
    bad = 0
    for k in np.nonzero(pinned)[0]:
        x = Fraction(float(hi[k])) + Fraction(float(lo[k]))
        r = Fraction(float(rad[k]))
        if any(_correctly_rounded(e, b[k]) != q[k] for e in (x - r, x + r)):
            bad += 1
    return bad


def _product_disagreements(dd_module) -> int:
    """Products said exact whose pair is not the exact product (magnitudes across the range)."""
    rng = np.random.default_rng(5)
    a = rng.uniform(1, 2, 4000) * 2.0 ** rng.integers(-1074, 1000, 4000).astype(float)
    b = rng.uniform(1, 2, 4000) * 2.0 ** rng.integers(-1074, 1000, 4000).astype(float)
    p, e, exact = dd_module.two_prod(a, b)
    return sum(1 for k in np.nonzero(exact)[0]
               if Fraction(float(p[k])) + Fraction(float(e[k])) != Fraction(float(a[k])) * Fraction(float(b[k])))


def test_the_filter_agrees_with_exact_arithmetic_wherever_it_decides():
    P, u, B, bound, _exact, _D, _dexact = _cases()
    _q, pinned = FL.residual_ratios(P, u, B, bound, "point")
    assert _claim_disagreements(FL) == 0
    assert _ratio_disagreements(dd) == 0
    assert _product_disagreements(dd) == 0
    # not vacuous: most claims are decided, and the edges are sent to the exact stage
    assert 0.5 < pinned.mean() < 0.98
    kinds = pinned.reshape(8, -1).mean(axis=1)
    assert kinds[3] < 0.9 and kinds[5] < 0.9  # coefficients that round, products that underflow


# Each fault: (module, exact text, mistaken text, what refutes it).
FAULTS = {
    "coefficient sums not checked exact": (
        "interval.filters", "            exact &= e == 0\n", "            pass\n", "claims"),
    "3 x not checked exact": ("interval.filters", "    return p, ok & (e == 0)\n", "    return p, ok\n", "claims"),
    "TwoProduct's underflow margin dropped": ("interval.dd", "SAFE_LO = 2.0**-900\n", "SAFE_LO = 0.0\n", "products"),
    "radius dropped below the upper midpoint": (
        "interval.dd", "surely_positive([gap_up, -H, m1, -L, m2, -rad])", "surely_positive([gap_up, -H, m1, -L, m2])",
        "ratios"),
    "radius dropped above the lower midpoint": (
        "interval.dd", "surely_positive([H, -m1, L, -m2, -rad, gap_down])",
        "surely_positive([H, -m1, L, -m2, gap_down])", "ratios"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_planted_fault_is_refuted(fault, monkeypatch):
    name, old, new, by = FAULTS[fault]
    mod = _mutant(name, old, new)
    if name == "interval.dd":
        monkeypatch.setitem(sys.modules, "interval.dd", mod)  # the filters import it at call time
        bad = {"claims": lambda: _claim_disagreements(FL), "ratios": lambda: _ratio_disagreements(mod),
               "products": lambda: _product_disagreements(mod)}[by]()
    else:
        bad = _claim_disagreements(mod)
    assert bad > 0, f"the fault {fault!r} survived"


# --- each addition's rounding term in sum_with_bound -------------------------------------------


def _tie_terms(n: int, k: int) -> list:
    """n terms whose left-to-right sum is exact except at addition k (1-based), a tie that
    rounds by exactly half an ulp of a partial sum larger than every other partial sum."""
    t = [0.0] * n
    t[k - 1] = 1.0
    t[k] = 3.0 + 2.0**-51  # 1 + (3 + 2^-51) = 4 + 2^-51: a tie, rounded to 4
    if k + 1 < n:
        t[k + 1] = -4.0  # the partial sum returns to 0 exactly; the lost 2^-51 is the whole sum
    return t


def _contains(terms) -> bool:
    s, rad = dd.sum_with_bound([np.array([x]) for x in terms])
    return abs(sum(Fraction(x) for x in terms) - Fraction(float(s[0]))) <= Fraction(float(rad[0]))


@contextlib.contextmanager
def _dropping(k: int | None):
    """``interval.dd.rounding_term`` with its k-th call (1-based; None: no call) answering 0 while
    the block runs; yields the list whose one element counts the calls."""
    real, calls = dd.rounding_term, [0]

    def rounding(s):
        calls[0] += 1
        return real(s) * 0.0 if calls[0] == k else real(s)

    dd.rounding_term = rounding
    try:
        yield calls
    finally:
        dd.rounding_term = real


@pytest.mark.parametrize("n", [3, 6, 15])
def test_every_additions_rounding_term_is_needed(n):
    for k in range(1, n):
        terms = _tie_terms(n, k)
        assert _contains(terms)
        with _dropping(k):
            assert not _contains(terms), f"dropping addition {k}'s term of {n - 1} went unnoticed"


def test_the_tie_cases_are_what_they_say():
    # a direct look at one case: the float sum loses exactly 2^-51
    terms = _tie_terms(6, 2)
    s = 0.0
    for x in terms:
        s += x
    assert s == 0.0 and sum(Fraction(x) for x in terms) == Fraction(2) ** -51
    assert math.isclose(float(dd.rounding_term(np.array(4.0))), 2.0**-51, rel_tol=0)


# --- the same rounding terms, on the adversarial claims' own residuals ---------------------------


def _claim_enclosures_missing_truth(drop: int | None, claims=None, kinds=("point", "first")) -> int:
    """Claim components (positions and first derivatives of the adversarial claims, or of
    ``claims`` = (P, u, B, D)) whose filter enclosure of the residual, ``hi + lo + [-rad, rad]``
    of ``interval.dd.enclose_sum``, misses the exact residual (what the exact stage computes in
    rationals); ``drop`` counts the additions of the remainder's sum from the end (1: the last)
    and drops that one's rounding term; ``kinds`` names the truths counted."""
    if claims is None:
        P, u, B, _bound, _exact, D, _dexact = _cases()
    else:
        P, u, B, D = claims
    missed = 0
    for which, c in (("point", B), ("first", D)):
        if which not in kinds:
            continue
        terms, ok = FL.cubic_residuals(P, u, c, which)
        n_add = len(terms) - 2  # enclose_sum keeps hi apart: len - 1 terms, len - 2 additions
        with _dropping(None if drop is None else n_add + 1 - drop) as calls:
            hi, lo, rad = dd.enclose_sum(terms)
        assert drop is None or calls[0] == n_add
        for k, d in zip(*np.nonzero(ok)):
            truth = sum(Fraction(float(t[k, d])) for t in terms)
            mid = Fraction(float(hi[k, d])) + Fraction(float(lo[k, d]))
            if abs(truth - mid) > Fraction(float(rad[k, d])):
                missed += 1
    return missed


def test_the_remainders_last_rounding_term_is_needed_on_claims():
    """The last addition of the remainder's sum has the largest rounding term (half an ulp of the
    largest partial sum); dropped, the filter's enclosure misses the exact residual of some of the
    adversarial claims, among the positions (14 additions) and among the first derivatives (6)
    each. The earlier additions' terms are each dominated by that last one on every
    claim of this corpus: there the remainder's partial sums never cancel, so the last partial sum
    is the largest. The 5th and 6th from the end are refuted on the triple-root claims below, the
    others only by the tie sums above (docs/performance.md, issue 26)."""
    assert _claim_enclosures_missing_truth(None) == 0
    assert _claim_enclosures_missing_truth(1, kinds=("point",)) > 0
    assert _claim_enclosures_missing_truth(1, kinds=("first",)) > 0  # 6 additions, the same role


# (p, q, s, m): controls s [-p^3, p^2 (q-p), -p (q-p)^2, (q-p)^3], the Bezier form of
# s (q u - p)^3, at u = fl(p/q) + m ulps; the addition (from the end) whose term it refutes.
_CANCELLING = {
    (55, 59, -81920, 1): 5,  # q u - p = 2^-47.8: B(u) about 2^-143 s, power terms up to 2^19 s
    (37, 78, Fraction(1, 1024), 1): 5,  # q u - p = 2^-48.4: B(u) 2^-145 s, terms 2^17 s
    (124, 127, -(2**26), -1): 5,  # q u - p = -2^-46.7 (q - p = 3): B(u) 2^-140 s, terms 2^22 s
    (150, 209, -4, 1): 6,  # q u - p = 2^-45.7: B(u) 2^-137 s, terms 2^23 s
    (25, 76, 224, -1): 6,  # q u - p = -2^-48.5: B(u) 2^-146 s, terms 2^16 s (q - p = 51)
    (45, 293, Fraction(1, 2**17), -1): 6,  # q u - p = -2^-47.4, u < 1/4: B(u) 2^-142 s, terms 2^18 s
}


def _cancelling_claims():
    """(P, u, B, D) of position (and derivative) claims whose residual's expansion cancels far
    beyond what 3 VecSum passes condense, one claim per entry of ``_CANCELLING``:
    the cubic has a triple root at p/q, so the controls are float32 integers times s and exact;
    q is not a power of two, so u near p/q has a full 53-bit significand and the Horner products
    are inexact (their error terms, and the errors of those, fill the expansion);
    u lies an ulp from the root, so B(u) = s (q u - p)^3 is about 2^-160 of the power terms
    (about s p^3): the expansion's condition is about 2^210 with a residual of an ulp of B(u);
    after the passes the remainder still holds a pair +-X beside a smaller term y, fl(y - X)
    rounds and +X cancels, so that addition's rounding term outweighs all the later ones.
    The three components claim the float above fl(B(u)) (B(u) rounded exactly), fl(B(u)) and
    the float below: the two neighbours are the witnesses (a residual of about an ulp of B(u)),
    fl(B(u)) is not; the derivative claims are fl(B'(u)) (a double root: no miss, but held to enclosure)."""
    Ps, us, Bs, Ds = [], [], [], []
    for p, q, s, m in _CANCELLING:
        col = [Fraction(s) * x for x in (-(p**3), p * p * (q - p), -p * (q - p) ** 2, (q - p) ** 3)]
        P = np.array([[float(x)] * 3 for x in col])
        assert all(Fraction(float(x)) == x for x in col) and np.all(_f32(P) == P)
        u = p / q + m * math.ulp(p / q)
        near = float(_exact_truth(P, u)[0])
        B = [float(np.nextafter(near, math.inf)), near, float(np.nextafter(near, -math.inf))]
        D = [float(x) for x in _exact_truth(P, u, first=True)]
        Ps.append(P)
        us.append(u)
        Bs.append(B)
        Ds.append(D)
    return np.array(Ps), np.array(us), np.array(Bs), np.array(Ds)


@pytest.mark.parametrize("drop", sorted(set(_CANCELLING.values())))
def test_earlier_rounding_terms_are_needed_on_cancelling_claims(drop):
    """Dropping the rounding term of the given addition (from the end) of the remainder's sum
    makes the enclosure miss the exact residual of a triple-root claim; the filter as it is
    encloses it on every component of these claims."""
    claims = _cancelling_claims()
    assert _claim_enclosures_missing_truth(None, claims) == 0
    assert _claim_enclosures_missing_truth(drop, claims) > 0
    # each claim reveals just the drop it is listed with, on its two neighbours of fl(B(u))
    P, u, B, D = claims
    for i, want in enumerate(_CANCELLING.values()):
        one = (P[i : i + 1], u[i : i + 1], B[i : i + 1], D[i : i + 1])
        assert _claim_enclosures_missing_truth(drop, one) == (2 if want == drop else 0)
