"""Distance-map benchmark: the certified build and resolution against a ``scipy.integrate``
baseline, and the arc-length oracle's cost per span, measured in one run.

    python benchmarks/bench_distance.py [--spans 4] [--errors 1e-3 1e-5 1e-7] [--queries 40]
                                        [--seed 1] [--repeat 3] [--json FILE]

For each ``distance_error`` on one random path:

* ``try_build_distance_map`` (leaves, build seconds) and ``try_resolve_distance`` on
  ``--queries`` targets (seconds per query, worst residual bound / distance_error);
* the baseline: ``scipy.integrate.quad`` of the speed per span (``epsabs`` = the error over
  the span count) for the total, and ``scipy.optimize.brentq`` on the quad prefix for each
  target. The baseline certifies nothing; the table says how far its total lies from the
  map's certified interval (0 when inside).

Then the oracle's ``enclose_arc_length`` per span at 1e-15 (113 bits), 1e-24 (256) and 1e-40
(1024): milliseconds and pieces. Timings are process CPU seconds (the machine may be
shared), best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interval.arclength import _enclose, enclose_arc_length
from oracles.families.distance import LIMITS, chain as _chain, tolerance
from reference import kernel as K
from reference.context import F64
from reference.distance import (
    DistancePreparation,
    DistanceQuery,
    try_build_distance_map,
    try_resolve_distance,
)
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import BoundaryPolicy, PathDistance


def _cpu(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spans", type=int, default=4)
    ap.add_argument("--errors", type=float, nargs="+", default=[1e-3, 1e-5, 1e-7])
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    from scipy import integrate, optimize

    rng = np.random.default_rng(args.seed)
    src = _chain(rng, args.spans, 1.0)
    rows = []
    for err in args.errors:
        spans = spans_from_arrays(src, np.ones(args.spans))
        path = try_prepare_path(PathSource(spans, 1), PathPreparation(tolerance(err, 1e-5), LIMITS)).value.view()
        t_build, built = _cpu(lambda: try_build_distance_map(path, DistancePreparation(LIMITS)), args.repeat)
        dmap = built.value.view()
        targets = rng.random(args.queries) * dmap.total_estimate
        q = [DistanceQuery(PathDistance(float(s)), BoundaryPolicy.Reject, 128) for s in targets]
        t_res, res = _cpu(lambda: [try_resolve_distance(path, dmap, x) for x in q], 1)
        worst = max(r.value.residual_bound for r in res) / err
        P = path.controls.astype(np.float64)

        def speed(k):
            return lambda u: float(np.linalg.norm(K.cubic_derivative(F64, P[k], u)))

        def baseline():
            lens = [integrate.quad(speed(k), 0, 1, epsabs=err / args.spans, limit=200)[0] for k in range(args.spans)]
            cum = np.concatenate([[0.0], np.cumsum(lens)])
            us = []
            for s in targets:
                k = min(int(np.searchsorted(cum, s, side="right")) - 1, args.spans - 1)
                f = lambda u: integrate.quad(speed(k), 0, u, epsabs=err / args.spans)[0] - (s - cum[k])
                us.append(optimize.brentq(f, 0.0, 1.0, xtol=1e-14) if f(0.0) < 0 < f(1.0) else 0.0)
            return cum[-1], us

        t_base, (total_b, _) = _cpu(baseline, 1)
        outside = max(dmap.total_lower - total_b, total_b - dmap.total_upper, 0.0)
        rows.append({"distance_error": err, "leaves": dmap.leaf_count, "build_s": t_build,
                     "resolve_ms": 1e3 * t_res / len(q), "worst_residual_over_error": worst,
                     "baseline_ms_per_query": 1e3 * t_base / len(q),
                     "resolve_speed_ratio": (t_base / len(q)) / (t_res / len(q)),
                     "baseline_total_outside_certified": outside})
    print(f"{'error':>8} {'leaves':>7} {'build s':>8} {'resolve ms':>10} {'R/E':>6} {'base ms':>8} "
          f"{'ratio':>6} {'base outside':>12}")
    for r in rows:
        print(f"{r['distance_error']:8.0e} {r['leaves']:7d} {r['build_s']:8.3f} {r['resolve_ms']:10.2f} "
              f"{r['worst_residual_over_error']:6.3f} {r['baseline_ms_per_query']:8.2f} "
              f"{r['resolve_speed_ratio']:6.2f} {r['baseline_total_outside_certified']:12.3g}")
    oracle = []
    for prec, rel in ((113, 1e-15), (256, 1e-24), (1024, 1e-40)):
        _enclose.cache_clear()
        t, es = _cpu(lambda: [enclose_arc_length(path.controls[k], 0, 1, prec, rel) for k in range(args.spans)], 1)
        oracle.append({"prec": prec, "rel_width": rel, "ms_per_span": 1e3 * t / args.spans,
                       "pieces_per_span": sum(e.pieces for e in es) / args.spans,
                       "reached": all(e.reached for e in es)})
        print(f"oracle prec {prec:5d} rel {rel:.0e}: {oracle[-1]['ms_per_span']:8.1f} ms/span, "
              f"{oracle[-1]['pieces_per_span']:.1f} pieces/span, reached {oracle[-1]['reached']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "oracle": oracle}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
