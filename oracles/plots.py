"""Pictures for people: error sweeps of one claim and per-row histograms of a ledger run.

matplotlib is an optional extra (``pip install '.[plots]'``); without it every entry point
raises :class:`PlotsUnavailable` with that instruction, and the commands print it and exit 2.

* :func:`plot_explanation` (``explain --plot FILE.png``): for a path claim (position,
  derivatives, tangents) the error of the claim's working format along the span parameter,
  in ulps, against the row's error model in ulps (the whole span and a zoom around the
  claim's u); for a track claim the same along time (error over the model, as the track
  checker measures it at each time); for a distance claim at a span, the slack of
  TryBoundDistance's bounds around the true prefix length along that span; for a triangle
  claim the facet, the segment, the contact and the tolerance band in a small 3D view.
* :func:`ledger_histograms` (``ledger --plots DIR``): per row, the distribution of the row's
  measure (error / model, gap ratios, widths over distance error, calibration of Estimated
  rows), as a histogram of log10 values with the pass threshold 1 marked.

Every sweep value is computed, not sampled from a cache: path truths are exact (QQ kernels),
track truths the track oracle's exact samples through the row's checker. Estimated (pictures).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path
from collections.abc import Iterable

import numpy as np

from .reports import output_file

__all__ = [
    "NoPicture",
    "PlotsUnavailable",
    "ledger_histograms",
    "path_error_sweep",
    "plot_explanation",
    "require_matplotlib",
]

MISSING = ("matplotlib is not installed; plots are an optional extra: pip install '.[plots]' "
           "(or pip install matplotlib)")


class PlotsUnavailable(RuntimeError):
    """matplotlib is missing; the message says how to install it."""


class NoPicture(ValueError):
    """The claim has nothing this module can draw (the message says why)."""


def require_matplotlib():
    """The ``matplotlib.pyplot`` module on the non-interactive Agg backend."""
    try:
        import matplotlib
    except ImportError as e:
        raise PlotsUnavailable(MISSING) from e
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


# --- path sweeps ------------------------------------------------------------------------------


def path_error_sweep(P32: np.ndarray, us: np.ndarray, fmt: str, which: str = "position", progress=None):
    """``(errors_ulps, bound_ulps)``, each ``(len(us), 3)``: per u and component, the error of
    the working format's kernel (float64 parameters rounded to the format, as an evaluator
    in it would) in ulps of the format at the component's exact value at the asked u, and
    the row's error model in the same ulps, for float32 controls ``P32``. Truth: exact QQ."""
    from interval.context import QQ, to_mpq
    from interval.trace import ulp_of
    from reference import error_model as EM
    from reference import kernel as K
    from reference.context import F32, F64

    F = F32 if fmt == "f32" else F64
    u_unit = 2.0**-24 if fmt == "f32" else 2.0**-53
    eta = 2.0**-149 if fmt == "f32" else 2.0**-1074
    kern = {"position": K.cubic_point, "first": K.cubic_derivative, "second": K.cubic_second_derivative}[which]
    E = EM.span_magnitude(P32)
    bound = to_mpq({"position": EM.position_bound, "first": EM.derivative_bound,
                    "second": EM.second_derivative_bound}[which](E, u_unit, eta=eta))
    P = P32 if fmt == "f32" else P32.astype(np.float64)
    uu = us.astype(np.float32 if fmt == "f32" else np.float64)
    fast = kern(F, P, uu)
    errs, bounds = np.empty((len(us), 3)), np.empty((len(us), 3))
    chunk = 64
    for a in range(0, len(us), chunk):
        b = min(a + chunk, len(us))
        # The truth at the parameters asked for: a float32 evaluator's rounding of u is part
        # of its error (near u = 1 it is most of it).
        truth = kern(QQ, QQ.asarray(P32), QQ.asarray(us[a:b].astype(np.float64)))
        for i in range(a, b):
            for k in range(3):
                t = truth[i - a, k]
                ulp = ulp_of(float(t), fmt)
                errs[i, k] = float(abs(to_mpq(float(fast[i, k])) - t) / ulp)
                bounds[i, k] = float(bound / ulp)
        if progress is not None:
            progress.step("sweep", b - a)
    return errs, bounds


def _path_plot(plt, claim, ex, path):
    from .model import dec, dec_array

    P = dec_array(claim.inputs["controls"], np.float32)
    u0 = dec(claim.inputs["u"])
    fmt = ex.get("working_format") or "f64"
    which = "position"
    if claim.row == "path.derivatives":
        worst = ex.get("worst_component") or "first"
        which = "second" if worst.startswith("second") else "first"
    elif claim.row == "path.tangents":
        which = "first"
    n = 201
    full = np.linspace(0.0, 1.0, n)
    half = 2.0**-8
    zoom = np.linspace(max(0.0, u0 - half), min(1.0, u0 + half), n)
    zoom = np.union1d(zoom, [u0])
    from .ledger import _Progress

    bar = _Progress(len(full) + len(zoom))
    ef, bf = path_error_sweep(P, full, fmt, which, bar)
    ez, _bz = path_error_sweep(P, zoom, fmt, which, bar)
    bar.close()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    ax = axes[0]
    for k, axis in enumerate("xyz"):
        ax.semilogy(full, np.maximum(ef[:, k] / bf[:, k], 1e-6), ".", ms=3, color=f"C{k}", label=f"{axis}")
    ax.axhline(1.0, color="k", lw=0.9, label="the error model (1)")
    ax.axvline(u0, color="C3", lw=0.8, ls="--", label="the claim's u")
    m = _claim_over_model(ex, P, fmt, which)
    if m is not None:
        ax.plot([u0], [max(m, 1e-6)], "x", color="C3", ms=9, label=f"the claim (error / {fmt} model)")
    ax.set_xlabel("u (span parameter)")
    ax.set_ylabel(f"|{fmt} kernel - exact| / error model")
    ax.set_title(f"{claim.row} [{which}]: error over the {fmt} model, whole span", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    ax = axes[1]
    for k, axis in enumerate("xyz"):
        ax.semilogy(zoom, np.maximum(ez[:, k], 1e-3), ".", ms=3, color=f"C{k}", label=f"{axis} error (ulps)")
    claimed = _claimed_ulps(ex)
    if claimed is not None:
        ax.plot([u0], [max(claimed, 1e-3)], "x", color="C3", ms=9, label="the claimed value (ulps)")
    ax.axvline(u0, color="C3", lw=0.8, ls="--")
    ax.set_xlabel("u (span parameter)")
    ax.set_ylabel(f"ulps of {fmt} at the exact value (floor 1e-3)")
    ax.set_title(f"around u = {u0:.10g}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _claim_over_model(ex, P, fmt, which):
    """The claim's largest component error over the row's model at the plotted format."""
    from reference import error_model as EM

    E = EM.span_magnitude(P)
    u_unit, eta = (2.0**-24, 2.0**-149) if fmt == "f32" else (2.0**-53, 2.0**-1074)
    b = {"position": EM.position_bound, "first": EM.derivative_bound,
         "second": EM.second_derivative_bound}[which](E, u_unit, eta=eta)
    prefix = {"position": "position", "first": "first", "second": "second"}[which]
    diffs = []
    for c in ex.get("components", []):
        if c["name"].startswith(prefix) and c.get("difference") is not None:
            try:
                diffs.append(abs(float(c["difference"])))
            except ValueError:
                pass
    return max(diffs) / b if diffs and b > 0 else None


def _claimed_ulps(ex):
    worst = ex.get("worst_component")
    for c in ex.get("components", []):
        if c["name"] == worst and c.get("ulps") is not None and math.isfinite(c["ulps"]):
            return abs(c["ulps"])
    return None


# --- track sweeps -----------------------------------------------------------------------------


def _track_plot(plt, claim, ex, path):
    from reference.status import BoundaryPolicy, SpanSide, TrackTime
    from reference.track import TrackInterpolation, TrackKey, try_evaluate_track, try_prepare_track

    from .families.track import LIMITS
    from .families.track.checks import check_values
    from .ledger import _Progress
    from .model import Claim, dec, enc

    keys = [TrackKey(dec(k[0]), np.float32(dec(k[1])), np.float32(dec(k[2])), np.float32(dec(k[3])),
                     TrackInterpolation(k[4])) for k in claim.inputs["keys"]]
    out = try_prepare_track(keys, LIMITS)
    if not out.ok:

        raise NoPicture(f"the track does not prepare ({out.status.value}); nothing to sweep")
    view = out.value.view()
    t0 = dec(claim.inputs["time"])
    times = [float(k.time) for k in keys]
    lo, hi = times[0], times[-1]
    ts = np.linspace(lo, hi, 161)
    policy, side = BoundaryPolicy(claim.inputs["policy"]), SpanSide(claim.inputs["side"])
    ratios = []
    bar = _Progress(len(ts))
    for t in ts:
        s = try_evaluate_track(view, TrackTime(float(t)), policy, side)
        r = math.nan
        if s.ok:
            v = s.value
            c = Claim(claim.row, claim.guarantee, {"value": enc(v.value), "derivative": enc(v.derivative_per_second),
                                                  "span": v.span_index, "reflected": v.is_reflected},
                      {**claim.inputs, "time": enc(float(t))}, claim.model)
            verdict = check_values(c)
            r = verdict.measured if verdict.measured is not None else math.nan
        ratios.append(r)
        bar.step("sweep")
    bar.close()
    fig, ax = plt.subplots(figsize=(8, 4), constrained_layout=True)
    ax.semilogy(ts, np.maximum(np.asarray(ratios, dtype=float), 1e-6), ".", ms=3, label="fast path error / model")
    ax.axhline(1.0, color="k", lw=0.8, label="model bound")
    ax.axvline(t0, color="C3", ls="--", lw=0.8, label="the claim's time")
    m = ex["verdict"].get("measured")
    if m is not None and math.isfinite(m):
        ax.plot([t0], [max(m, 1e-6)], "x", color="C3", ms=8, label="the claim (error / model)")
    for t in times:
        ax.axvline(t, color="0.8", lw=0.5)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("error / model (floor at 1e-6)")
    ax.set_title(f"{claim.row}: error along time (keys in grey)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- distance sweeps -------------------------------------------------------------------------


def _distance_plot(plt, claim, ex, path):
    """Prefix-length bounds along the claim's span: the fast path's TryBoundDistance, rebuilt
    from the claim's controls and distance_error, against the arc-length oracle (113 bits)."""
    from interval.arclength import enclose_prefix_length
    from interval.context import lower, to_mpq, upper
    from reference.distance import DistancePreparation, try_bound_distance, try_build_distance_map
    from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
    from reference.status import SegmentParameter

    from .families import distance as D
    from .ledger import _Progress
    from .model import dec, dec_array

    C = dec_array(claim.inputs["controls"], np.float32)
    E = dec(claim.inputs["distance_error"])
    k = claim.inputs.get("span")
    if not isinstance(k, int):
        raise NoPicture("this distance claim names no span to sweep")
    u0 = dec(claim.inputs["u"]) if "u" in claim.inputs else dec(claim.inputs.get("u0", 0.0))
    Cq = C.astype(np.float64)
    pe = max(1e-5 * float(np.max(np.abs(Cq))), 1e-30)
    prep = try_prepare_path(PathSource(spans_from_arrays(Cq, np.ones(C.shape[0])), revision=1),
                            PathPreparation(D.tolerance(E, pe), D.LIMITS, (0.0, 0.0, 0.0)))
    if not prep.ok:
        raise NoPicture(f"the claim's controls do not prepare again ({prep.status.value})")
    view = prep.value.view()
    built = try_build_distance_map(view, DistancePreparation(D.LIMITS))
    if not built.ok:
        raise NoPicture(f"the distance map does not build again ({built.status.value})")
    dmap = built.value.view()
    us = np.union1d(np.linspace(0.0, 1.0, 33), [u0])
    below, above = [], []
    bar = _Progress(len(us))
    for u in us:
        b = try_bound_distance(view, dmap, SegmentParameter(k, float(u))).value
        L = enclose_prefix_length(C, k, float(u), 113, D.REL_WIDTH[113]).value
        below.append(float((lower(L) - to_mpq(b.lower)) / to_mpq(E)))
        above.append(float((to_mpq(b.upper) - upper(L)) / to_mpq(E)))
        bar.step("sweep")
    bar.close()
    fig, ax = plt.subplots(figsize=(8, 4), constrained_layout=True)
    ax.plot(us, below, ".-", ms=3, lw=0.8, label="(true L - lower) / distance_error")
    ax.plot(us, above, ".-", ms=3, lw=0.8, label="(upper - true L) / distance_error")
    ax.axhline(0.0, color="C3", lw=0.8, label="0: a bound crosses the truth (Violated)")
    ax.axvline(u0, color="k", ls="--", lw=0.8, label="the claim's u")
    val = claim.value or {}
    if "lower" in val and "upper" in val:
        L0 = enclose_prefix_length(C, k, u0, 113, D.REL_WIDTH[113]).value
        ax.plot([u0, u0], [float((lower(L0) - to_mpq(dec(val["lower"]))) / to_mpq(E)),
                           float((to_mpq(dec(val["upper"])) - upper(L0)) / to_mpq(E))],
                "x", color="C3", ms=9, label="the claim's slack below and above")
    ax.set_xlabel(f"u on span {k}")
    ax.set_ylabel("slack / distance_error")
    ax.set_title(f"{claim.row}: TryBoundDistance slack along span {k} (rebuilt from the claim)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- triangle view ----------------------------------------------------------------------------


def _triangle_plot(plt, claim, ex, path):
    from .model import dec, dec_array

    V = np.array([dec_array(v) for v in claim.inputs["vertices"]], dtype=np.float64)
    T = np.array(claim.inputs["triangles"], dtype=np.int64)
    s, e = dec_array(claim.inputs["start"]), dec_array(claim.inputs["end"])
    tol = dec(claim.inputs["tolerance"]) if "tolerance" in claim.inputs else 0.0
    val = claim.value or {}
    hit = val.get("triangle")
    contact = dec_array(val["position"]) if "position" in val else (
        s + dec(val["t"]) * (e - s) if "t" in val else None)
    fig = plt.figure(figsize=(10, 4.5), constrained_layout=True)
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    show = range(len(T)) if len(T) <= 200 else ([hit] if hit is not None else range(200))
    polys = [V[T[i]] for i in show]
    colors = ["#f4a582" if i == hit else "#92c5de" for i in show]
    ax.add_collection3d(Poly3DCollection(polys, facecolors=colors, edgecolors="0.3", linewidths=0.5, alpha=0.6))
    ax.plot(*np.stack([s, e]).T, "-", color="k", lw=1.2, label="segment")
    ax.scatter(*s, color="k", s=10)
    if contact is not None:
        ax.scatter(*contact, color="C3", s=30, label="claimed contact")
    pts = np.vstack([V[np.unique(T[list(show)])], s, e])
    ax.auto_scale_xyz(pts[:, 0], pts[:, 1], pts[:, 2])
    ax.set_title(f"{claim.row}: facets (hit in orange), segment, contact", fontsize=8)
    ax.legend(fontsize=7)
    # 2D: the hit facet's plane, the segment's trace and the tolerance band around the facet.
    ax2 = fig.add_subplot(1, 2, 2)
    if hit is not None:
        a, b, c = V[T[hit]]
        n = np.cross(b - a, c - a)
        nn = np.linalg.norm(n)
        x_ax = (b - a) / np.linalg.norm(b - a)
        y_ax = np.cross(n / nn, x_ax)
        tri2 = np.array([[np.dot(p - a, x_ax), np.dot(p - a, y_ax)] for p in (a, b, c, a)])
        ax2.plot(tri2[:, 0], tri2[:, 1], "-", color="C1", label="hit facet")
        d = (np.dot(s - a, n / nn), np.dot(e - a, n / nn))
        seg2 = np.array([[np.dot(p - a, x_ax), np.dot(p - a, y_ax)] for p in (s, e)])
        ax2.plot(seg2[:, 0], seg2[:, 1], "k-", lw=1, label=f"segment (heights {d[0]:.3g} .. {d[1]:.3g})")
        if contact is not None:
            c2 = [np.dot(contact - a, x_ax), np.dot(contact - a, y_ax)]
            ax2.plot(*c2, "o", color="C3", label="contact")
            if tol > 0:
                ax2.add_patch(plt.Circle(c2, tol, color="C3", alpha=0.2, label=f"tolerance {tol:.3g}"))
        ax2.set_aspect("equal", adjustable="datalim")
        ax2.set_title("in the facet's plane", fontsize=8)
        ax2.legend(fontsize=7)
    else:
        ax2.text(0.5, 0.5, "no hit claimed", ha="center", va="center")
        ax2.set_axis_off()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_explanation(claim, ex: dict, path) -> Path:
    """Write the picture of one explained claim to ``path`` (PNG) and return the path."""
    plt = require_matplotlib()
    path = output_file(path)
    if claim.row in ("path.interior_positions", "path.derivatives", "path.tangents"):
        if "controls" not in claim.inputs or "u" not in claim.inputs:

            # A status claim (a request that names no point) has no curve to draw along.
            raise NoPicture(f"no picture for this {claim.row} claim: its request names no span and u")
        _path_plot(plt, claim, ex, path)
    elif claim.row == "track.values":
        _track_plot(plt, claim, ex, path)
    elif claim.row.startswith("triangle."):
        _triangle_plot(plt, claim, ex, path)
    elif claim.row.startswith("distance.") and isinstance(claim.inputs.get("span"), int):
        _distance_plot(plt, claim, ex, path)
    else:

        raise NoPicture(f"no picture for {claim.row}: --plot draws path, track, distance (with a span) "
                           "and triangle claims")
    return path


# --- ledger histograms ------------------------------------------------------------------------


def _safe_name(row_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", row_id)


def ledger_histograms(records: Iterable[tuple], out_dir) -> list[Path]:
    """One PNG per row with measured values: a histogram of log10(measured) per verdict kind.

    Args:
        records: ``(row, measure, measured, verdict kind)`` per judged claim.
        out_dir: the directory to write ``<row>.png`` into (created).
    """
    plt = require_matplotlib()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    by_row = defaultdict(list)
    for row_id, measure, measured, kind in records:
        if measured is None or not isinstance(measured, (int, float)) or isinstance(measured, bool):
            continue
        by_row[row_id].append((measure, float(measured), kind))
    written = []
    for row_id, vals in sorted(by_row.items()):
        measure = next((m for m, _, _ in vals if m), "measured")
        finite = [(v, k) for _, v, k in vals if math.isfinite(v)]
        pos = [(math.log10(v), k) for v, k in finite if v > 0]
        zeros = sum(1 for v, _ in finite if v == 0)
        infinite = len(vals) - len(finite)
        fig, ax = plt.subplots(figsize=(6, 3.6), constrained_layout=True)
        if pos:
            lo, hi = min(p for p, _ in pos), max(p for p, _ in pos)
            bins = np.linspace(lo - 0.05, hi + 0.05, 41) if hi > lo else 10
            kinds = sorted({k for _, k in pos})
            ax.hist([[p for p, k in pos if k == kind] for kind in kinds], bins=bins, stacked=True,
                    label=kinds, color=[{"Verified": "C2", "Violated": "C3", "Undecided": "C1"}.get(k, "C0")
                                        for k in kinds])
            if lo <= 0.5 and measure not in ("mismatches",):
                ax.axvline(0.0, color="k", lw=0.8, ls="--", label="1 (the bound)")
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no positive values", ha="center", va="center", transform=ax.transAxes)
        extra = []
        if zeros:
            extra.append(f"{zeros} exactly 0")
        if infinite:
            extra.append(f"{infinite} infinite")
        ax.set_xlabel(f"log10({measure})" + (f"   [{', '.join(extra)}; not drawn]" if extra else ""))
        ax.set_ylabel("claims")
        ax.set_title(f"{row_id}: {len(vals)} claims", fontsize=9)
        p = out / f"{_safe_name(row_id)}.png"
        fig.savefig(p, dpi=100)
        plt.close(fig)
        written.append(p)
    return written
