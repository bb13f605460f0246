"""Path sampling throughput: ``try_sample_path`` against a plain numpy Bernstein evaluation and
bezier's ``Curve.evaluate_multi``, on the same span and parameters, in one run.

The path is a centripetal Catmull-Rom conversion of a random walk (as in
``bench_projection.py``); ``--params`` parameters on one span (and, as a second case, spread
over ``--spans`` spans). The peers evaluate the same float64 controls: numpy with the four
Bernstein weights times the controls, bezier with ``evaluate_multi`` on the span's
(3, 4) nodes (one curve per span; the spread case loops over spans). Every result is checked
against ours (the peers round differently, so agreement is to 1e-12 relative; ours is the
project's error model). Figures are points per second, best of ``--repeat``; ratio = ours / peer.

Targets (issue 18): >= 1.0x numpy Bernstein and >= 0.5x bezier on 1e6 parameters.

    python benchmarks/bench_sampling.py [--params 1000000] [--spans 100] [--repeat 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_projection import make_path
from reference.path import try_sample_path

try:
    import bezier
except ImportError:  # pragma: no cover - the bench extra installs it
    bezier = None


def best(fn, repeat):
    t, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def numpy_bernstein(C, ks, us):
    s = 1.0 - us
    b = (s * s * s, 3.0 * s * s * us, 3.0 * s * us * us, us * us * us)
    if C.ndim == 2:
        return b[0][:, None] * C[0] + b[1][:, None] * C[1] + b[2][:, None] * C[2] + b[3][:, None] * C[3]
    P = C[ks]
    return (b[0][:, None] * P[:, 0] + b[1][:, None] * P[:, 1]) + (b[2][:, None] * P[:, 2] + b[3][:, None] * P[:, 3])


def bezier_eval(curves, ks, us, order):
    if len(curves) == 1:
        return curves[0].evaluate_multi(us).T
    out = np.empty((us.size, 3))
    # ``order`` groups the parameters by span (sorting is setup, not timed).
    bounds = np.searchsorted(ks[order], np.arange(len(curves) + 1))
    for k, c in enumerate(curves):
        sel = order[bounds[k]:bounds[k + 1]]
        if sel.size:
            out[sel] = c.evaluate_multi(us[sel]).T
    return out


def row(case, metric, mine, name, theirs, target, met):
    r = {"bench": "sampling", "case": case, "metric": metric, "ours": mine, "peer_name": name, "peer": theirs,
         "ratio": None if not theirs else mine / theirs, "target": target, "met": met}
    print("BENCH-ROW " + json.dumps(r))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--params", type=int, default=1_000_000)
    ap.add_argument("--spans", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    print("| case | params | ours pts/s | numpy pts/s | bezier pts/s | ours / numpy | ours / bezier |")
    print("|---|---|---|---|---|---|---|")
    for spans in (1, a.spans):
        view, _ = make_path(spans, 1e-6, rng)
        m = a.params
        ks = np.zeros(m, dtype=np.int64) if spans == 1 else rng.integers(0, spans, m)
        us = rng.random(m)
        out = np.empty((m, 3))
        C = view.controls.astype(np.float64)
        C1 = C[0] if spans == 1 else C
        t_ours, _ = best(lambda: try_sample_path(view, ks, us, out), a.repeat)
        t_np, ref = best(lambda: numpy_bernstein(C1, ks, us), a.repeat)
        scale = np.max(np.abs(C)) + 1.0
        if not np.max(np.abs(ref - out)) <= 1e-12 * scale:
            print("error: numpy Bernstein disagrees with try_sample_path", file=sys.stderr)
            return 1
        t_bz = None
        if bezier is not None:
            curves = [bezier.Curve(np.asfortranarray(C[k].T), degree=3) for k in range(spans)]
            order = np.argsort(ks, kind="stable")
            t_bz, got = best(lambda: bezier_eval(curves, ks, us, order), a.repeat)
            if not np.max(np.abs(got - out)) <= 1e-12 * scale:
                print("error: bezier disagrees with try_sample_path", file=sys.stderr)
                return 1
        ours, nps = m / t_ours, m / t_np
        bzs = None if t_bz is None else m / t_bz
        case = "1 span" if spans == 1 else f"{spans} spans"
        print(f"| {case} | {m} | {ours:.3g} | {nps:.3g} | {'-' if bzs is None else f'{bzs:.3g}'} | "
              f"{ours / nps:.2f} | {'-' if bzs is None else f'{ours / bzs:.2f}'} |")
        first = spans == 1
        row(case, "points/s", ours, "numpy Bernstein", nps, ">= 1.0x numpy" if first else None,
            (ours / nps >= 1.0) if first else None)
        row(case, "points/s", ours, "bezier evaluate_multi", bzs, ">= 0.5x bezier" if first else None,
            (bzs is not None and ours / bzs >= 0.5) if first else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
