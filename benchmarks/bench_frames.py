"""Frame benchmark: the adaptive double-reflection build against uniform double reflection in
plain numpy, at equal true accuracy measured by the oracle, in one run.

    python benchmarks/bench_frames.py [--errors 1e-4 1e-6 1e-8] [--seed 1] [--repeat 3] [--json FILE]

For each path (the corpus' helix by cubics, a random smooth chain of three spans, and a long
straight span followed by a tight 3D hairpin) and each
``tangent_angle_error``:

* ``try_build_frames`` (baked samples, build CPU seconds, the Estimated ``angular_error_estimate``)
  and its *true* error: the largest angle between a baked normal and the true RMF
  (``interval.frame.true_rmf``, Taylor integration at 113 bits);
* uniform double reflection written in plain numpy (positions and unit tangents of a uniform
  u-grid per span, then one reflection step per sample, renormalized like the fast path) on
  grids of 2^j samples per span; its true error on the same oracle. The table gives the
  smallest power-of-two grid at least as accurate as the adaptive build, the grid size
  interpolated in log-log between its neighbours (equal accuracy), and its CPU time.

The true RMF is integrated once per path with every grid point and every baked sample as a
target (dense output). Timings are process CPU seconds, best of ``--repeat`` (the machine may
be shared).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mpmath import mp

from interval.frame import angle_between, true_rmf
from oracles.families.frame import corpus as F

MAX_LEVEL = 11  # uniform grids up to 2^11 samples per span


def _cpu(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def _bezier(P, u):
    """Positions and unit tangents of a cubic (controls (4, 3)) at parameters u (m,): plain numpy."""
    s = 1.0 - u
    b = np.stack([s**3, 3 * s * s * u, 3 * s * u * u, u**3], axis=1)
    x = b @ P
    d = 3.0 * ((s * s)[:, None] * (P[1] - P[0]) + (2 * s * u)[:, None] * (P[2] - P[1])
               + (u * u)[:, None] * (P[3] - P[2]))
    return x, d / np.linalg.norm(d, axis=1, keepdims=True)


def uniform_double_reflection(controls, n0, per_span):
    """Normals at ``per_span + 1`` uniform parameters of every span (joints crossed by the
    minimal rotation, as the fast path does at G1 joints). Returns a list of (span, u, normal)."""
    out = []
    r = None
    t_prev = None
    us = np.linspace(0.0, 1.0, per_span + 1)
    for k, P in enumerate(np.asarray(controls, dtype=np.float64)):
        X, T = _bezier(P, us)
        if r is None:
            r = n0 - (n0 @ T[0]) * T[0]
            r /= np.linalg.norm(r)
        else:
            w, c = np.cross(t_prev, T[0]), float(t_prev @ T[0])
            r = c * r + np.cross(w, r) + (w @ r) / (1.0 + c) * w
        out.append((k, 0.0, r.copy()))
        for i in range(1, per_span + 1):
            v1 = X[i] - X[i - 1]
            c1 = v1 @ v1
            rL = r - (2.0 * (v1 @ r) / c1) * v1 if c1 > 0 else r
            tL = T[i - 1] - (2.0 * (v1 @ T[i - 1]) / c1) * v1 if c1 > 0 else T[i - 1]
            v2 = T[i] - tL
            c2 = v2 @ v2
            r = rL - (2.0 * (v2 @ rL) / c2) * v2 if c2 > 0 else rL
            r = r - (r @ T[i]) * T[i]
            r /= np.linalg.norm(r)
            out.append((k, float(us[i]), r.copy()))
        t_prev = T[-1]
    return out


def _true_error(truth, pairs):
    worst = mp.mpf(0)
    with mp.workprec(113):
        for k, u, n in pairs:
            a = [mp.mpf(float(x)) for x in n]
            s = mp.sqrt(sum(x * x for x in a))
            worst = max(worst, angle_between([x / s for x in a], truth[(k, u)]))
    return float(worst)


def _paths(seed):
    helix = F.corpus_cases(seed, 2)[1]
    rng = np.random.default_rng([seed, 77])
    chain = F._random_case(rng, "random smooth chain")
    while chain["source"].shape[0] < 3:
        chain = F._random_case(rng, "random smooth chain")
    chain["corner"] = F._CORNER.RotateMinimally
    # A long straight span, then a tight turn in 3D: curvature varies by orders of magnitude,
    # which adaptive stepping exploits and a uniform grid per span cannot.
    hairpin = F._case("straight then hairpin", [[[0, 0, 0], [10, 0, 0], [20, 0, 0], [30, 0, 0]],
                                                [[30, 0, 0], [31, 0, 0], [31, 0.5, 0.2], [30, 0.5, 0.4]],
                                                [[30, 0.5, 0.4], [29, 0.5, 0.6], [20, 1, 1], [10, 2, 2]]],
                      seed_up=(0.0, 0.0, 1.0))
    return [helix, chain, hairpin]


def run(errors, seed, repeat):
    rows = []
    for base in _paths(seed):
        builds = []
        for tae in errors:
            case = dict(base, tae=float(tae))
            pv, mv, f = F.build(case)
            assert f.ok, f.diagnostic
            secs, _ = _cpu(lambda: F.try_build_frames(pv, mv, F.FramePreparation(
                seed_up=case["seed_up"], seed_policy=case["seed_policy"], fallback_axis=case["fallback"],
                singularity_policy=case["sing"], corner_policy=case["corner"], closed_policy=case["closed_policy"],
                winding_turns=0, strict=False, limits=F.FRAME_LIMITS)), repeat)
            builds.append((tae, pv, f.value.view(), secs))
        pv = builds[0][1]
        n = pv.span_count
        fv0 = builds[0][2]
        n0 = np.array(fv0.sample_normal[0])
        targets = {(k, float(u)) for k in range(n) for u in np.linspace(0.0, 1.0, 2**MAX_LEVEL + 1)}
        for _, _, fv, _ in builds:
            targets |= {(int(k), float(u)) for k, u in zip(fv.sample_span, fv.sample_u)}
        t0 = time.process_time()
        tr = true_rmf(pv.controls, (0, 0.0), (n - 1, 1.0), n0, sorted(targets))
        oracle_secs = time.process_time() - t0
        uniform = {}
        for level in range(1, MAX_LEVEL + 1):
            per = 2**level
            secs, got = _cpu(lambda: uniform_double_reflection(pv.controls, n0, per), repeat)
            uniform[per] = (secs, _true_error(tr.normals, got))
        for tae, _, fv, secs in builds:
            pairs = [(int(k), float(u), fv.sample_normal[j])
                     for j, (k, u) in enumerate(zip(fv.sample_span, fv.sample_u))]
            err = _true_error(tr.normals, pairs)
            ok = [p for p in sorted(uniform) if uniform[p][1] <= err]
            per = ok[0] if ok else None
            interp = None
            if per is not None and per // 2 in uniform and uniform[per // 2][1] > err and uniform[per][1] > 0:
                (e1, e2) = uniform[per // 2][1], uniform[per][1]
                slope = math.log(e1 / e2) / math.log(2.0)
                interp = (per // 2) * (e1 / err) ** (1.0 / slope) if slope > 0 else float(per)
            rows.append({
                "path": base["name"], "tangent_angle_error": tae, "adaptive_samples": fv.sample_count,
                "adaptive_cpu_s": secs, "estimate": fv.angular_error_estimate, "adaptive_true_error": err,
                "uniform_samples": None if per is None else n * (per + 1),
                "uniform_samples_equal_accuracy": None if interp is None else n * (interp + 1),
                "uniform_cpu_s": None if per is None else uniform[per][0],
                "uniform_true_error": None if per is None else uniform[per][1],
                "oracle_cpu_s": oracle_secs, "oracle_error": float(tr.error)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--errors", type=float, nargs="+", default=[1e-4, 1e-6, 1e-8])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rows = run(a.errors, a.seed, a.repeat)
    print(f"{'path':22} {'TAE':>7} {'adapt n':>8} {'adapt s':>8} {'estimate':>9} {'true err':>9} "
          f"{'unif n':>7} {'n (eq.)':>8} {'unif s':>8} {'unif err':>9}")
    for r in rows:
        def g(x, fmt):
            return "-" if x is None else format(x, fmt)
        print(f"{r['path'][:22]:22} {r['tangent_angle_error']:7.0e} {r['adaptive_samples']:8d} "
              f"{r['adaptive_cpu_s']:8.4f} {r['estimate']:9.2e} {r['adaptive_true_error']:9.2e} "
              f"{g(r['uniform_samples'], '7d')} {g(r['uniform_samples_equal_accuracy'], '8.0f')} "
              f"{g(r['uniform_cpu_s'], '8.4f')} {g(r['uniform_true_error'], '9.2e')}")
    print(f"oracle: {rows[0]['oracle_cpu_s']:.1f} s CPU per path (all targets), halving error "
          f"{max(r['oracle_error'] for r in rows):.1e}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
