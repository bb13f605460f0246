"""The spec's refinement rule, replayed on enclosures of exact cell terms (docs/decisions.md,
"Surface meshes: judging the refinement rule, the report and budget failures").

Each grid's normalized bound is known only within ``[exact(t1 + t2), exact(t1 + t2) + A] /
position_error``: ``t1 + t2`` the exact first two cell terms enclosed by
``interval.tessellation.cell_term_enclosures`` and ``A`` the implementation's allowance (outward
rounding and its vertices' rounding while refining). "Clearly smaller" is below ``CLEAR_FACTOR``
of the other direction's lower end, a near-tie needs both ratios at least ``CLEAR_FACTOR`` (the
coarser direction, then u), shared edges take the larger level until the network agrees, and a
decision inside the allowance raises :class:`Ambiguous`. Used by the ``shared_positions``
checker (claimed levels, claimed budget failures) and by ``requests.py`` (the statuses a build
must end in).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from interval.tessellation import cell_term_enclosures
from reference.fp import ulp32

__all__ = ["CLEAR_FACTOR", "REPLAY_MAX_LEVEL", "Ambiguous", "replay_levels"]

CLEAR_FACTOR = 0.875  # restated from docs/decisions.md ("clearly smaller"); a test compares it
REPLAY_MAX_LEVEL = 12  # grids beyond 2^12 cells a side are not replayed


class Ambiguous(Exception):
    """A decision of the rule lies within the implementation's allowance: not decidable."""


def _allowance(C) -> float:
    """How far above the exact first two terms an implementation's cell bound may lie while it
    refines: its outward rounding and the a-priori bound of its emitted vertices' rounding,
    ``sqrt(3) (ulp32(2E) + 256 u E)`` (docs/decisions.md, "Surface meshes: judging the
    refinement rule")."""
    E = float(np.max(np.abs(np.asarray(C, dtype=np.float64))))
    return math.sqrt(3.0) * (float(ulp32(np.float32(min(2.0 * E, 3.0e38)))) + 256.0 * 2.0**-53 * E) * (1 + 2.0**-40)


@lru_cache(maxsize=4096)
def _term_maxima(controls: bytes, lu: int, lv: int) -> tuple[float, float]:
    """The largest lower and upper enclosures of the exact first two cell terms of a grid (the
    requests and the checker replay the same patches: computed once)."""
    lo, hi = cell_term_enclosures(np.frombuffer(controls, dtype=np.float64).reshape(4, 4, 3), lu, lv)
    return float(np.max(lo)), float(np.max(hi))


class _Replay:
    """The spec's refinement and agreement rule on enclosures of each grid's normalized bound:
    ``[exact(t1 + t2), exact(t1 + t2) + allowance] / position_error`` (cell maxima)."""

    def __init__(self, controls, target: float, top: int):
        self.C, self.target, self.top = controls, target, top
        self.cache = {}
        self.tests = 0  # cells of every grid evaluated once (docs/decisions.md: the cell-test count)
        self.allow = [_allowance(c) for c in controls]

    def crit(self, p, lu, lv):
        key = (p, lu, lv)
        if key not in self.cache:
            if max(lu, lv) > REPLAY_MAX_LEVEL:
                raise Ambiguous(f"patch {p}: level ({lu}, {lv}) beyond the replay's {REPLAY_MAX_LEVEL}")
            lo, hi = _term_maxima(np.ascontiguousarray(self.C[p], dtype=np.float64).tobytes(), lu, lv)
            self.tests += (1 << lu) * (1 << lv)
            w = 1 + 2.0**-50  # the two quotients' rounding
            self.cache[key] = (lo / self.target / w, (hi + self.allow[p]) / self.target * w)
        return self.cache[key]

    def settle(self, p, lu, lv):
        while True:
            lo, hi = self.crit(p, lu, lv)
            if hi <= 1.0:
                return lu, lv, True
            if lo <= 1.0:
                raise Ambiguous(f"patch {p}: grid ({lu}, {lv}) normalized bound [{lo:.17g}, {hi:.17g}] straddles 1")
            can_u, can_v = lu < self.top, lv < self.top
            if not can_u and not can_v:
                return lu, lv, False
            if can_u and can_v:
                (ul, uh), (vl, vh) = self.crit(p, lu + 1, lv), self.crit(p, lu, lv + 1)
                if uh < CLEAR_FACTOR * vl:
                    lu += 1
                elif vh < CLEAR_FACTOR * ul:
                    lv += 1
                elif ul >= CLEAR_FACTOR * vh and vl >= CLEAR_FACTOR * uh:  # a near-tie: coarser, then u
                    if lu <= lv:
                        lu += 1
                    else:
                        lv += 1
                else:
                    raise Ambiguous(f"patch {p} at ({lu}, {lv}): refining u gives [{ul:.6g}, {uh:.6g}], v "
                                     f"[{vl:.6g}, {vh:.6g}]: clearly smaller or a near-tie is not decided")
            elif can_u:
                lu += 1
            else:
                lv += 1


def _along(levels, p, side):
    return levels[p][1] if side in ("U0", "U1") else levels[p][0]


def replay_levels(controls, topo, target: float, max_level: int, counted: bool = False):
    """``(levels, met)`` (and the cell-test count when ``counted``) the spec's rule gives: every
    patch from (0, 0), the direction whose refinement gives the clearly smaller normalized bound
    (below ``CLEAR_FACTOR`` times the other's), near-ties the coarser direction then u; then each
    shared edge takes the larger of
    its two along-edge levels and the patches whose levels changed are refined again, until the
    network agrees. Raises ``Ambiguous`` where a decision is within the allowance."""
    n = len(controls)
    rp = _Replay(controls, target, max_level)
    levels, met = [(0, 0)] * n, [True] * n
    pending = set(range(n))
    shared = [e["incidences"] for e in topo.edges if len(e["incidences"]) == 2]
    while pending:
        for p in sorted(pending):
            lu, lv, ok = rp.settle(p, *levels[p])
            levels[p], met[p] = (lu, lv), ok
        pending = set()
        again = True
        while again:
            again = False
            for incs in shared:
                m = max(_along(levels, p, side) for (p, _pid, side, _rev) in incs)
                for (p, _pid, side, _rev) in incs:
                    if _along(levels, p, side) < m:
                        lu, lv = levels[p]
                        levels[p] = (lu, m) if side in ("U0", "U1") else (m, lv)
                        pending.add(p)
                        again = True
    return (levels, met, rp.tests) if counted else (levels, met)

