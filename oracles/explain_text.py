"""``explain``'s text rendering of an explanation (``explain/1``) for people."""

from __future__ import annotations

import json
from fractions import Fraction

import gmpy2

from .explain_trace import _dec, _g
from .model import NumberError, parse_number

# --- text -------------------------------------------------------------------------------------




def _render_trace(lines: list, tr: dict, title: str, max_rows: int) -> None:
    lines.append(f"{title} (output {tr['output']}, error {_g(tr['error_ulps'])} ulps):")
    lines.append(f"  {'step':>5} {'op':8} {'working value':>24} {'exact value':>24} {'local':>9} {'accum':>9} "
                 f"{'share':>6}  where")
    rows_ = tr["steps"]
    # The steps that matter first: every step with a visible share, then the rest elided.
    keep = [s for s in rows_ if abs(s["share"]) >= 0.005 or s["index"] == tr["dominant"]
            or s["op"] in ("narrow32",) or (s["cancellation"] or 0) >= 256]
    shown = keep[-max_rows:] if len(keep) > max_rows else keep
    hidden = len(rows_) - len(shown)
    for s in shown:
        mark = "  <== most error entered here" if s["index"] == tr["dominant"] else ""
        canc = f"  [cancellation x{_g(s['cancellation'], 3)}]" if (s["cancellation"] or 0) >= 256 else ""
        ex = s["exact"]["decimal"] if s["exact"] else "-"
        lines.append(f"  {s['index']:>5} {s['op']:8} {s['working']['decimal']:>24} {ex[:24]:>24} "
                     f"{_g(s['local_ulps'], 3):>9} {_g(s['accumulated_ulps'], 3):>9} {100 * s['share']:6.1f}%  "
                     f"{(s['where'] or s['label'])[:70]}{canc}{mark}")
    if hidden:
        lines.append(f"  ... {hidden} steps with under 0.5% of the error not shown (--json lists them all)")
    if tr["dominant"] is None:
        lines.append(f"  {tr['dominant_text']}")
    else:
        lines.append(f"  most error entered at step {tr['dominant']}: {tr['dominant_text']}")


def dec_q_safe(x):
    """The exact rational of a claim number (None when unreadable)."""
    try:
        v = parse_number(x)
    except NumberError:
        return None
    return gmpy2.mpq(v.numerator, v.denominator) if isinstance(v, Fraction) else None


def _num_or_none(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _diff_float(c: dict):
    d = c.get("difference")
    if d is None:
        return None
    try:
        return float(d)
    except ValueError:
        return None


def render_text(ex: dict, max_rows: int = 40) -> str:
    """The explanation for people."""
    L = [f"row {ex['row']} ({ex['guarantee']}); verdict {ex['verdict']['kind']}"
         + (f", {ex['verdict']['measure']} = {_g(ex['verdict']['measured'], 6)}" if ex['verdict']['measure'] else "")
         + (f" at {ex['verdict']['prec']} bits" if ex['verdict']['prec'] else "")]
    if ex["verdict"]["note"]:
        L.append(f"  note: {ex['verdict']['note']}")
    L.append("inputs (exact hex | decimal):")
    for i in ex["inputs"][:60]:
        L.append(f"  {i['path']:32} {i['hex']:>26} | {i['decimal']}")
    if len(ex["inputs"]) > 60:
        L.append(f"  ... {len(ex['inputs']) - 60} more (--json)")
    m = ex["model"]
    if m:
        L.append(f"error model: u = {m['u']['decimal']}, eta = {m['eta']['decimal']}"
                 + (f", declared {json.dumps(m['declared'])}" if m["declared"] else " (reference model, binary64)"))
        for k, val in m["terms"].items():
            L.append(f"  {k:60} {val['decimal']}" + ("   <- dominates" if k == m["dominant_term"] else ""))
    if ex["components"]:
        L.append(f"components (working format {ex['working_format']}; "
                 f"ulps of {ex['working_format']} at the claimed value):")
        L.append(f"  {'name':12} {'claimed':>24} {'truth':>24} {'claimed-truth':>12} {'ulps':>10} {'/model':>9} "
                 f"{'kernel ulps':>11}")
        for c in ex["components"]:
            mark = "  <- worst" if c["name"] == ex["worst_component"] else ""
            L.append(f"  {c['name']:12} {(c['claimed'] or {}).get('decimal', '-'):>24} "
                     f"{(c['truth'] or {}).get('decimal', '-')[:24]:>24} {_g(_diff_float(c)):>12} "
                     f"{_g(c.get('ulps')):>10} {_g(c.get('over_model')):>9} {_g(c.get('traced_ulps')):>11}{mark}")
        L.append("  exactly (claimed hex | truth, exact or the interval's endpoints):")
        for c in ex["components"]:
            t = c["truth"]
            truth = "-" if t is None else (t["lo"] if t["exact"] else f"[{t['lo']}, {t['hi']}]")
            L.append(f"  {c['name']:12} {(c['claimed'] or {}).get('hex', '-'):>24} | {truth}")
    if ex["trace"]:
        _render_trace(L, ex["trace"], f"shadow trace of the reference kernel in {ex['working_format']}", max_rows)
    if ex.get("source_trace"):
        st_ = ex["source_trace"]
        L.append(f"from the source in asset coordinates ({st_['what']}):")
        for c in st_["components"]:
            L.append(f"  {c['name']:12} evaluated {c['traced']['decimal']:>24}  exact {c['truth']['decimal'][:24]:>24}"
                     f"  error {_g(_num_or_none(c.get('traced_error')))} ({_g(c.get('traced_ulps'))} ulps)")
        _render_trace(L, st_["trace"], "shadow trace from the source", max_rows)
    fl = ex["floor"]
    if fl:
        L.append("position floor (spec 002 Precision):")
        if fl.get("floor") is None:
            L.append(f"  {fl.get('why')}")
        else:
            L.append(f"  E (largest narrowed magnitude)  {fl['E']['decimal']}")
            L.append(f"  ulp32(E)                         {fl['ulp32_E']['decimal']}   "
                     f"2 ulp32(E) = {fl['two_ulp32_E']['decimal']}")
            L.append(f"  narrowing error                  {fl['narrowing_error']['decimal']}   (worst: control "
                     f"{fl['worst_narrowing']['control']} axis {fl['worst_narrowing']['axis']}, "
                     f"{fl['worst_narrowing']['relative']['decimal']} -> "
                     f"{fl['worst_narrowing']['narrowed']['decimal']})")
            L.append(f"  floor = 2 ulp32(E) + narrowing   {fl['floor']['decimal']}   "
                     f"(dominant: {fl['dominant_floor_term']})")
        L.append(f"  effective position error         {fl['effective_position_error']['decimal']}  -> "
                 + ("accepted" if fl["accepted"] else "UnsupportedPrecision"))
        fix = fl.get("fix")
        if fix and fix["kind"] == "origin_shift":
            L.append(f"  fix: move the chunk origin by {fix['shift_decimal']} to {fix['origin_decimal']} "
                     f"(exact: {fix['origin']}); E = {fix['E']['decimal']}, floor {fix['floor']['decimal']}: passes")
            L.append(f"       or to the round origin {fix['round_origin_decimal']} "
                     f"(floor {fix['round_origin_floor']['decimal']}: passes)")
        elif fix and fix["kind"] == "split":
            L.append(f"  no origin passes for the whole asset; split it into {len(fix['chunks'])} chunks:")
            for ch in fix["chunks"]:
                L.append(f"    spans [{ch['spans'][0]}, {ch['spans'][1]}) at origin {ch['origin']}: "
                         f"floor {ch['floor']['decimal']}")
        elif fix:
            L.append(f"  no origin shift or span-granular split passes: {fix['why']}")
    if ex["certified"]:
        L.append("chain of enclosures behind the bound:")
        for e in ex["certified"]["enclosures"]:
            L.append(f"  {e['name']:48} [{_g(_num_or_none(_dec(dec_q_safe(e['lo']))), 12)}, "
                     f"{_g(_num_or_none(_dec(dec_q_safe(e['hi']))), 12)}]  width {_g(_num_or_none(e['width']))}"
                     + (f"  slack below {_g(_num_or_none(e['slack_below']))} above {_g(_num_or_none(e['slack_above']))}"
                        if "slack_below" in e else ""))
        L.append(f"  widest: {ex['certified']['widest']}")
    if ex["undecided"]:
        L.append(f"undecided: precisions tried {ex['undecided']['precisions_tried']}; best enclosure "
                 f"{ex['undecided']['best_enclosure_decimal']}")
    if ex["verdict"]["witness"] is not None and not ex["components"]:
        L.append(f"witness: {json.dumps(ex['verdict']['witness_decimal'])[:2000]}")
    for n in ex["notes"]:
        L.append(f"note: {n}")
    return "\n".join(L) + "\n"
