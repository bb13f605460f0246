"""The surface oracle (interval/surface.py) on hand-checked networks and against SymPy.

The cube of six patches has 12 shared edges and 8 corners of three patch corners each (Euler:
V - E + F = 8 - 12 + 6 = 2); the one-patch tube has 3 edges and 2 corners; each topology rule
is reported with its join. Exact partials equal SymPy's derivatives of the textbook
tensor-product sum; interval normals enclose the exact direction.
"""

from __future__ import annotations

from math import comb

import gmpy2
import numpy as np
import pytest
import sympy

from interval.context import contains, lower, upper
from interval.surface import (
    TopologyFailure,
    enclose_length,
    enclose_unit,
    exact_cross,
    exact_partials,
    exact_topology,
)


def _face(o, a, b):
    o, a, b = (np.array(x, dtype=np.float64) for x in (o, a, b))
    return np.array([[o + i * a + j * b for j in range(4)] for i in range(4)], dtype=np.float32)


CUBE = [
    _face((0, 0, 0), (1, 0, 0), (0, 1, 0)), _face((0, 0, 3), (0, 1, 0), (1, 0, 0)),
    _face((0, 0, 0), (0, 1, 0), (0, 0, 1)), _face((3, 0, 0), (0, 0, 1), (0, 1, 0)),
    _face((0, 0, 0), (0, 0, 1), (1, 0, 0)), _face((0, 3, 0), (1, 0, 0), (0, 0, 1)),
]
SIDES = {"U0": lambda C: C[0], "U1": lambda C: C[3], "V0": lambda C: C[:, 0], "V1": lambda C: C[:, 3]}


def _cube_joins():
    """Every pair of equal side curves, found here by brute force over all side pairs."""
    joins = []
    names = list(SIDES)
    for p in range(6):
        for q in range(p + 1, 6):
            for s in names:
                for t in names:
                    a, b = SIDES[s](CUBE[p]), SIDES[t](CUBE[q])
                    if np.array_equal(a, b):
                        joins.append((p, s, q, t, False))
                    elif np.array_equal(a, b[::-1]):
                        joins.append((p, s, q, t, True))
    return joins


def test_cube_has_twelve_shared_edges_and_eight_three_fold_corners():
    joins = _cube_joins()
    assert len(joins) == 12
    topo = exact_topology([60, 50, 40, 30, 20, 10], np.stack(CUBE), joins)
    assert not isinstance(topo, TopologyFailure)
    assert len(topo.edges) == 12 and all(len(e["incidences"]) == 2 for e in topo.edges)
    assert len(topo.corners) == 8 and all(len(c["incidences"]) == 3 for c in topo.corners)
    positions = sorted(tuple(int(x) for x in c["position"]) for c in topo.corners)
    assert positions == sorted((x, y, z) for x in (0, 3) for y in (0, 3) for z in (0, 3))
    # The faces are oriented as built (not all outward): orientation consistency is exactly
    # whether the two faces' Su x Sv normals point to the same side of the shared edge, which we
    # check by the sign of (n_p . n_q) after rotating about the edge: for a convex cube, two
    # outward (or two inward) normals are consistent; one outward and one inward are not.
    centre = np.array([1.5, 1.5, 1.5])

    def outward(p):
        C = CUBE[p].astype(np.float64)
        n = np.cross(C[3, 0] - C[0, 0], C[0, 3] - C[0, 0])
        return np.dot(n, C[1, 1] - centre) > 0

    for e in topo.edges:
        p, q = e["incidences"][0][0], e["incidences"][1][0]
        assert e["orientation_consistent"] == (outward(p) == outward(q))
    # Owners are the smaller (id, side); ids descend with index, so patch 5 (id 10) owns its edges.
    for e in topo.edges:
        ranks = [(i[1], ["U0", "U1", "V0", "V1"].index(i[2])) for i in e["incidences"]]
        assert (e["id"][0], ["U0", "U1", "V0", "V1"].index(e["id"][1])) == min(ranks) == ranks[0]


def test_tube_and_rules():
    ring = np.array([[1.0, 0, 0], [-1.0, 2, 0], [-1.0, -2, 0], [1.0, 0, 0]])
    C = np.stack([np.stack([ring[i] + [0, 0, j] for j in range(4)]) for i in range(4)]).astype(np.float32)
    topo = exact_topology([3], C[None], [(0, "U0", 0, "U1", False)])
    assert len(topo.edges) == 3 and len(topo.corners) == 2
    assert topo.edges[0]["orientation_consistent"] is True
    assert [c["incidences"] for c in topo.corners] == [[(0, 3, "U0V0"), (0, 3, "U1V0")],
                                                       [(0, 3, "U0V1"), (0, 3, "U1V1")]]
    two = np.stack([C, C + np.float32(10)])
    assert exact_topology([1, 1], two, []) == TopologyFailure("duplicate_patch_id", 1)
    assert exact_topology([1, 2], two, [(0, "U0", 0, "U1", False), (0, "V0", 2, "U1", False)]) == \
        TopologyFailure("unknown_patch_index", 1)
    assert exact_topology([1, 2], two, [(1, "V0", 1, "V0", True)]) == TopologyFailure("side_joined_to_itself", 0)
    assert exact_topology([1, 2], two, [(0, "U0", 0, "U1", False), (0, "U1", 1, "U0", False)]) == \
        TopologyFailure("third_incidence", 1)
    assert exact_topology([1, 2], two, [(0, "U0", 1, "U1", False)]) == TopologyFailure("partial_join", 0)
    bent = C.copy()
    bent[3, 1, 0] += np.float32(0.5)  # an inner control of U1
    assert exact_topology([1], bent[None], [(0, "U0", 0, "U1", False)]) == TopologyFailure("mismatched_curve", 0)


def test_reversed_join_crosses_its_corners():
    """The spec's example: patch 0's U1 side is patch 1's U0 side run backwards (s2 = 1 - s1),
    so patch 0's corner U1V0 (s = 0) meets patch 1's U0V1 (s = 1) and U1V1 meets U0V0: by hand,
    six corner records, two of them shared; the reversed incidence is recorded."""
    a = _face((0, 0, 0), (1, 0, 0), (0, 1, 0))
    b = _face((3, 0, 0), (1, 0, 0), (0, 1, 0))[:, ::-1]  # v reversed: its U0 runs from y = 3 to 0
    topo = exact_topology([10, 20], np.stack([a, b]), [(0, "U1", 1, "U0", True)])
    assert not isinstance(topo, TopologyFailure)
    shared = [c["incidences"] for c in topo.corners if len(c["incidences"]) == 2]
    assert shared == [[(0, 10, "U1V0"), (1, 20, "U0V1")], [(0, 10, "U1V1"), (1, 20, "U0V0")]]
    assert len(topo.corners) == 6
    (edge,) = [e for e in topo.edges if len(e["incidences"]) == 2]
    assert edge["incidences"] == [(0, 10, "U1", False), (1, 20, "U0", True)]
    assert edge["orientation_consistent"] is False  # the spec's reversed join flips the normal


u_, v_ = sympy.symbols("u v")


@pytest.mark.parametrize("seed", range(3))
def test_exact_partials_equal_sympy_derivatives(seed):
    rng = np.random.default_rng(seed)
    C = (rng.normal(size=(4, 4, 3)) * 10).astype(np.float32)
    u, v = float(rng.random()), float(rng.random())
    Cs = [[[sympy.Rational(*map(int, gmpy2.mpq(float(C[i, j, k])).as_integer_ratio())) for k in range(3)]
           for j in range(4)] for i in range(4)]
    B = lambda i, t: comb(3, i) * t**i * (1 - t) ** (3 - i)
    S = [sympy.Poly(sum(B(i, u_) * B(j, v_) * Cs[i][j][k] for i in range(4) for j in range(4)), u_, v_)
         for k in range(3)]
    derivs = [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)]
    got = exact_partials(C, u, v)
    at = {u_: sympy.Rational(*u.as_integer_ratio()), v_: sympy.Rational(*v.as_integer_ratio())}
    for (du, dv), vec in zip(derivs, got):
        for k in range(3):
            e = S[k]
            if du:
                e = e.diff((u_, du))
            if dv:
                e = e.diff((v_, dv))
            truth = e.eval(at)
            assert sympy.Rational(int(vec[k].numerator), int(vec[k].denominator)) == truth


def test_interval_normal_encloses_the_direction():
    rng = np.random.default_rng(9)
    C = rng.normal(size=(4, 4, 3)).astype(np.float32)
    parts = exact_partials(C, 0.3, 0.6)
    N = exact_cross(parts[1], parts[2])
    L = enclose_length(N, 113)
    sq = sum(x * x for x in N)
    assert lower(L) ** 2 <= sq <= upper(L) ** 2 and upper(L) - lower(L) < gmpy2.mpq(1, 2**100) * upper(L)
    unit = enclose_unit(N, 113)
    # Each component encloses N_k / |N|: (N_k)^2 / |N|^2 lies between the squared endpoints.
    for t, x in zip(unit, N):
        q = x * x / sq
        lo, hi = sorted([lower(t) ** 2, upper(t) ** 2])
        if lower(t) <= 0 <= upper(t):
            lo = gmpy2.mpq(0)
        assert (lo <= q <= hi and (lower(t) > 0) == (x > 0)) or x == 0
    assert enclose_unit([gmpy2.mpq(0)] * 3, 113) is None
    assert contains(enclose_length([gmpy2.mpq(3), gmpy2.mpq(4), gmpy2.mpq(0)], 113), 5)
