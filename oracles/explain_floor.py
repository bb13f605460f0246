"""``explain``'s position-floor analysis: the floor ``2 ulp32(E) + narrowing error`` replayed exactly,
and the fixes it proposes for an UnsupportedPrecision preparation (an origin shift toward the
controls' box centre, a round origin, or a chunk split), each checked by preparing again."""

from __future__ import annotations


import gmpy2
import numpy as np

from interval.context import to_mpq
from interval.narrowing import (
    exact_ulp32,
    replay_narrowing,
    replay_position_floor,
    round_nearest_f64,
)
from interval.trace import TraceContext, trace_context
from reference import kernel as K

from .explain_trace import _dec, _num
from .model import dec, enc

# --- position floor, origin shift, chunk split ------------------------------------------------


def _effective(inputs: dict) -> float:
    pe = dec(inputs["position_error"])
    rel = dec(inputs.get("relative_position_error", 0.0))
    scale = dec(inputs.get("asset_scale", 1.0))
    return max(pe, round_nearest_f64(to_mpq(rel) * to_mpq(scale)))


def _floor_of(src, origin) -> tuple | None:
    n = replay_narrowing(src, origin)
    if not np.all(np.isfinite(n)):
        return None
    floor, E = replay_position_floor(src, origin)
    return floor, E


def _passes(src, origin, eff) -> bool:
    f = _floor_of(src, origin)
    return f is not None and eff >= f[0]


def _center(src) -> np.ndarray:
    flat = src.reshape(-1, 3)
    return flat.min(axis=0) / 2.0 + flat.max(axis=0) / 2.0  # no overflow; any float64 is an origin


def _smallest_shift(src, origin, eff, steps: int = 48) -> np.ndarray | None:
    """The origin nearest the given one, on the segment to the controls' box centre, that
    passes (bisection on the fraction of the way; the answer is checked, else the centre)."""
    c = _center(src)
    if not _passes(src, c, eff):
        return None
    lo, hi = 0.0, 1.0
    found = None
    for _ in range(steps):
        m = (lo + hi) / 2
        o = origin + m * (c - origin)
        if _passes(src, o, eff):
            hi = m
        else:
            lo = m
    o = origin + hi * (c - origin)
    found = o if _passes(src, o, eff) else c
    return found


def _round_origin(src, found, eff) -> np.ndarray:
    """A round origin people can type: the coarsest power-of-two grid point near ``found``
    that still passes (``found`` itself when none does)."""
    for k in range(60, -60, -1):
        g = 2.0**k
        cand = np.round(found / g) * g
        if _passes(src, cand, eff):
            return cand
    return found


def _split(src, eff) -> tuple[list, int | None]:
    """Greedy chunks of consecutive spans, each at its own box centre, that pass; the index
    of a span that cannot pass even alone (None when all do)."""
    chunks, start = [], 0
    n = src.shape[0]
    while start < n:
        if not _passes(src[start:start + 1], _center(src[start:start + 1]), eff):
            return chunks, start
        end = start + 1
        while end < n and _passes(src[start:end + 1], _center(src[start:end + 1]), eff):
            end += 1
        chunks.append((start, end, _center(src[start:end])))
        start = end
    return chunks, None


def floor_analysis(src: np.ndarray, origin: np.ndarray, inputs: dict) -> dict:
    """The position floor of a path source at a chunk origin against its effective position
    error, the worst narrowed component, and (when it fails) a passing origin shift or split.
    Exact (replayed in rationals by ``interval.narrowing``)."""
    eff = _effective(inputs)
    out: dict = {"origin": [enc(float(v)) for v in origin], "effective_position_error": _num(eff),
                 "position_error": _num(dec(inputs["position_error"]))}
    narrowed = replay_narrowing(src, origin)
    if not np.all(np.isfinite(narrowed)):
        out.update({"accepted": False, "floor": None,
                    "why": "chunk-relative controls exceed the float32 range"})
    else:
        floor, E = replay_position_floor(src, origin)
        ulpE = exact_ulp32(np.float32(E))
        rel = src.reshape(-1, 3) - origin
        errs = [[abs(to_mpq(float(n)) - (to_mpq(float(s)) - to_mpq(float(o))))
                 for n, s, o in zip(nr, sr, origin)] for nr, sr in zip(narrowed.reshape(-1, 3), src.reshape(-1, 3))]
        flat = [(e, i, k) for i, row_ in enumerate(errs) for k, e in enumerate(row_)]
        worst = max(flat, key=lambda t: t[0])
        nerr = worst[0]
        out.update({"E": _num(E), "ulp32_E": _num(float(ulpE)), "two_ulp32_E": _num(float(2 * ulpE)),
                    "narrowing_error": (_num(float(nerr)) if float(nerr) == nerr
                                        else {"hex": enc(nerr), "decimal": _dec(nerr)}),
                    "floor": _num(floor), "accepted": bool(eff >= floor),
                    "dominant_floor_term": "2 ulp32(E)" if 2 * ulpE >= nerr else "narrowing error",
                    "worst_narrowing": {"control": [int(worst[1] // 4), int(worst[1] % 4)], "axis": int(worst[2]),
                                        "relative": _num(float(rel[worst[1], worst[2]])),
                                        "narrowed": _num(float(narrowed.reshape(-1, 3)[worst[1], worst[2]]))}})
    if out["accepted"]:
        out["fix"] = None
        return out
    shift = _smallest_shift(src, origin, eff)
    if shift is not None:
        f, E2 = replay_position_floor(src, shift)
        r = _round_origin(src, shift, eff)
        out["fix"] = {"kind": "origin_shift", "origin": [enc(float(v)) for v in shift],
                      "shift": [enc(float(v)) for v in shift - origin],
                      "origin_decimal": [repr(float(v)) for v in shift],
                      "shift_decimal": [repr(float(v)) for v in shift - origin], "floor": _num(f), "E": _num(E2),
                      "round_origin": [enc(float(v)) for v in r], "round_origin_decimal": [repr(float(v)) for v in r],
                      "round_origin_floor": _num(replay_position_floor(src, r)[0])}
        return out
    chunks, bad = _split(src, eff)
    c = _center(src)
    best = _floor_of(src, c)
    out["best_single_chunk_floor"] = None if best is None else _num(best[0])
    if bad is None:
        out["fix"] = {"kind": "split", "chunks": [{"spans": [a, b], "origin": [enc(float(v)) for v in o],
                                                    "floor": _num(replay_position_floor(src[a:b], o)[0])}
                                                   for a, b, o in chunks]}
    else:
        one = _floor_of(src[bad:bad + 1], _center(src[bad:bad + 1]))
        out["fix"] = {"kind": "none", "span": bad,
                      "why": f"span {bad} alone at its own centre has floor "
                             f"{'beyond float32' if one is None else repr(one[0])}, above the effective position "
                             f"error: subdivide the span (de Casteljau) or raise position_error"}
    return out


def _source_trace(src, origin, span: int, u: float, fmt: str) -> tuple[dict, list]:
    """Trace a source span from asset coordinates: origin subtraction (float64), narrowing,
    then ``cubic_point`` in ``fmt``; the truth is the *source* curve relative to the origin."""
    T64 = trace_context("f64")
    s = T64.asarray(src[span], label="source")
    o = T64.asarray(origin, label="origin")
    rel = s - o
    for v in np.ravel(rel):
        T64.tape.steps[v.i].label = "origin subtraction"
    n = T64.narrow32(rel, label="narrow32")
    if fmt == "f32":
        T = TraceContext(np.float32)
        T.tape = T64.tape
        P = np.frompyfunc(lambda a: T._push("convert", (a.i,), np.float32(a.w), a.x, gmpy2.mpq(0),
                                            label="float32 value (exact)", where=""), 1, 1)(n)
    else:
        T, P = T64, n
    B = K.cubic_point(T, P, T.asarray(u, label="u"))
    return T.tape, list(B)
