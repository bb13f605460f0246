"""The sweep corpus: named cases, then random smooth chains with random sections, caps, windings
and profiles. Deterministic in the seed.

Named cases: a straight tube with 4 segments and Flat caps, a straight ribbon wound clockwise, an
S-curve tube with several profile keys and rolls, a helix tube, a helix ribbon with keys, a closed
loop tube and a closed loop ribbon (DistributeTwist), a tight bend whose radius exceeds the
curvature radius, and a ribbon on that bend whose half width stays below it. A case is a dict:
``src`` (n, 4, 3) float64 controls, ``closed``, ``section``, ``caps``, ``winding``, ``profile``
(``(distance, scale, roll)`` keys), ``lerr``, ``xerr`` (LongitudinalError, CrossSectionError),
``seed_up`` of its frames, and ``expect``: the status its plan must end with (``"ok"``;
docs/decisions.md "Frames and sweeps: named corpus cases state their outcome"), None for random
cases. Its frames are built by :func:`frames_case` (DistributeTwist, so a closed loop's seam is
periodic), its request's limits are :data:`SWEEP_LIMITS` and 64 section segments, 2^20 vertices
and 2^22 indices.
"""

from __future__ import annotations

import math

import numpy as np

from reference.status import WorkLimits
from reference.sweep import VERTEX_WIDTH, SweepCaps, SweepProfileKey, SweepRequest, SweepSection, SweepWinding, \
    try_emit_sweep_mesh, try_plan_sweep_mesh

from ..frame import corpus as FC

__all__ = [
    "MAX_INDICES",
    "MAX_SECTION_SEGMENTS",
    "MAX_VERTICES",
    "NAMED",
    "SWEEP_LIMITS",
    "build_sweep",
    "corpus_cases",
    "frames_case",
    "sweep_case",
]

SWEEP_LIMITS = WorkLimits(64, 64, 1 << 16, 24, 1 << 14, 1 << 24, 1 << 12)
MAX_SECTION_SEGMENTS, MAX_VERTICES, MAX_INDICES = 64, 1 << 20, 1 << 22

_LINE = [[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]]
_S = [[[0, 0, 0], [1, 1, 0], [2, -1, 0], [3, 0, 0]], [[3, 0, 0], [4, 1, 0], [5, 1.5, 0], [6, 0.5, 0]]]


def _helix():
    return [FC.quarter((0, 0, 0), 1.0, k * math.pi / 2, z0=0.4 * k, dz=0.4) for k in range(3)]


def _loop():
    return [FC.quarter((0, 0, 0), 1.5, k * math.pi / 2) for k in range(4)]


def _sc(name, src, section, caps, winding, profile, lerr, xerr, closed=False, seed_up=(0.0, 0.0, 1.0), expect="ok"):
    return {"name": name, "expect": expect, "src": np.asarray(src, dtype=np.float64), "closed": closed,
            "section": section,
            "caps": caps, "winding": winding, "profile": [tuple(map(float, k)) for k in profile],
            "lerr": float(lerr), "xerr": float(xerr), "seed_up": tuple(map(float, seed_up))}


_T, _R = SweepSection.Tube, SweepSection.Ribbon
_F, _N = SweepCaps.Flat, SweepCaps.None_
_CCW, _CW = SweepWinding.CounterClockwise, SweepWinding.Clockwise


def _named():
    return [
        _sc("straight tube, 4 segments, Flat caps", _LINE, _T, _F, _CCW, [(0, 0.5, 0)], 1e-3,
            0.5 * (1 - math.cos(math.pi / 4))),
        _sc("straight ribbon, clockwise", _LINE, _R, _N, _CW, [(0, 1.0, 0), (3, 2.0, 1.0)], 1e-2, 1e-3),
        _sc("S-curve tube, keys and rolls, Flat caps, clockwise", _S, _T, _F, _CW,
            [(0, 0.1, 0), (2, 0.2, 0.5), (5, 0.05, -1.0)], 1e-2, 5e-3),
        _sc("helix tube", _helix(), _T, _N, _CCW, [(0, 0.2, 0)], 5e-3, 5e-3),
        _sc("helix ribbon with keys", _helix(), _R, _N, _CCW, [(0, 0.3, 0), (1, 0.1, 2.0), (3, 0.4, 0)], 5e-3, 1e-3),
        _sc("closed loop tube", _loop(), _T, _F, _CCW, [(0, 0.2, 0)], 1e-2, 1e-2, closed=True),
        _sc("closed loop ribbon with rolls", _loop(), _R, _N, _CW, [(0, 0.4, 0), (4, 0.3, 1.5), (8, 0.4, 0)],
            1e-2, 1e-3, closed=True),
        _sc("tight bend tube (risk)", [FC.quarter((0, 0, 0), 1.0, 0.0)], _T, _F, _CCW, [(0, 0.5, 0), (1.5, 1.3, 0)],
            2e-2, 2e-2),
        # A ribbon's half-extent is half its width: widths 1.2 to 1.9 on curvature about 1 stay
        # below the risk, their full widths would not.
        _sc("tight bend ribbon (risk at half the width)", [FC.quarter((0, 0, 0), 1.0, 0.0)], _R, _N, _CCW,
            [(0, 1.2, 0), (1.5, 1.9, 0.5)], 2e-2, 1e-3),
        _fold_between_rings(),
    ]


def _fold_between_rings():
    """A tube that folds between two rings and not at them (the sweep differential run's seed
    2329, 2026-12-07): its path bends with curvature up to 197.5 near u = 0.59, between the
    rings at u = 0.5625 and 0.625, where half-extent x curvature is 0.955 and 0.82; between them
    it reaches 1.22, so the 24 triangles joining those rings face against their normals. The
    spec counts that risk, so winding is not judged there (docs/decisions.md "Sweeps: the vertex
    error model, mesh rules and the risk band"); everywhere else it is."""
    src = [[[float.fromhex(x) for x in p] for p in (
        ("0x1.3c030047f892bp+0", "-0x1.dd9fe05c1f993p-2", "-0x1.3e7ba398ee42bp-2"),
        ("0x1.39659ddb8b2f7p+0", "-0x1.fcbca8e7a1bc6p-3", "-0x1.d21e9742ddeb0p-3"),
        ("0x1.2a93c495d4b52p+0", "-0x1.e53d35b5d7ddcp-3", "-0x1.524dd007c281bp-3"),
        ("0x1.47984259f16f5p+0", "-0x1.82b2b1f90b2e3p-2", "-0x1.cacb73a2e0ee5p-3"))]]
    profile = [(0.031401852872406946, 0.0019550796834630177, -1.1845517881273506),
               (0.313426229481382, 0.008480392495976135, -0.1258237817896939),
               (0.4530191303150514, 0.014561949544169119, 2.9821116785376622)]
    return _sc("tube folding between two rings (not at them)", src, _T, _F, _CCW, profile, 0.0027064574469581174,
               0.0005757774567715437, seed_up=(-0.4388920273533132, -0.570801403848909, 1.0763020272725434))


def _random(rng):
    c = FC.random_case(rng)
    src = c["source"]
    L = float(np.sum(np.linalg.norm(np.diff(src, axis=1), axis=2)))
    nk = int(rng.integers(1, 4))
    d = np.sort(rng.uniform(0, L, nk))
    d = d + np.arange(nk) * 1e-6 * L
    prof = [(float(x), float(L * 10 ** rng.uniform(-2.5, -1)), float(rng.uniform(-3, 3))) for x in d]
    sec = [_T, _R][int(rng.integers(0, 2))]
    caps = _F if sec is _T and rng.random() < 0.5 else _N
    return _sc("random", src, sec, caps, [_CCW, _CW][int(rng.integers(0, 2))], prof,
               L * 10 ** rng.uniform(-3, -2), max(p[1] for p in prof) * 10 ** rng.uniform(-2, -0.5),
               seed_up=tuple(rng.normal(size=3)), expect=None)


def corpus_cases(seed: int, n: int) -> list:
    """``n`` sweep cases, named ones first. Deterministic in ``seed``."""
    named = _named()
    out = []
    for k in range(n):
        out.append(named[k] if k < len(named) else _random(np.random.default_rng([seed, k, 13])))
    return out

NAMED = len(_named())
sweep_case = _sc


def frames_case(case: dict) -> dict:
    """The frame case whose frames a sweep case is planned on: the frame corpus's defaults with
    DistributeTwist (a closed loop's frames must be periodic)."""
    return FC._case(case["name"], case["src"], closed=case["closed"], seed_up=case["seed_up"],
                    closed_policy=FC._CLOSED.DistributeTwist)


def build_sweep(case):
    """Our fast path on a case (tests, benchmarks): ``(path_view, map_view, frames_view, plan
    Outcome, vertices, indices)``; the mesh parts None when a step fails."""
    pv, mv, f = FC.build(frames_case(case))
    if not f.ok:
        return pv, mv, None, f, None, None
    fv = f.value.view()
    req = SweepRequest(case["section"], [SweepProfileKey(*k) for k in case["profile"]], case["caps"],
                       case["winding"], case["lerr"], case["xerr"], MAX_SECTION_SEGMENTS, MAX_VERTICES, MAX_INDICES,
                       SWEEP_LIMITS)
    p = try_plan_sweep_mesh(pv, mv, fv, req)
    if not p.ok:
        return pv, mv, fv, p, None, None
    v = p.value.view()
    V = np.empty((v.report.vertex_count, VERTEX_WIDTH))
    I = np.empty(v.report.index_count, dtype=np.int64)
    assert try_emit_sweep_mesh(pv, v, V, I).ok
    return pv, mv, fv, p, V, I
