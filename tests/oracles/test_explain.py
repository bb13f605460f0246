"""``python -m oracles explain``: planted claims, far-from-origin traces, UnsupportedPrecision
fixes that pass when applied, the JSON shape, and progress on a terminal.

Expected values are computed here independently of ``oracles.explain``: exact Bernstein sums
with binomial coefficients in ``fractions.Fraction``, ulps from ``numpy.spacing``, the
narrowing by numpy casts, and fixes checked by preparing the path again with the fast path.
"""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from oracles.__main__ import main
from oracles.families import contract_for
from oracles.explain import JSON_SHAPE, ExplainError, _undecided, claim_from_corpus, explain_claim, explain_query
from oracles.model import Claim, dec, dec_array, dec_q, enc, undecided
from reference.path import PathPreparation, PathSource, spans_from_arrays, try_prepare_path
from reference.status import GuaranteeClass as G

from .test_casefile import _doc


def _run_json(capsys, argv) -> dict:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    # RFC 8259 JSON: no NaN or Infinity constants anywhere.
    return json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def _bezier(P, u: Fraction) -> list:
    """The exact point of the cubic with float controls P at the rational u."""
    s = 1 - u
    w = [comb(3, i) * s ** (3 - i) * u**i for i in range(4)]
    return [sum(w[i] * Fraction(float(P[i][k])) for i in range(4)) for k in range(3)]


def _ulp64(x: float) -> Fraction:
    return Fraction(float(np.spacing(np.float64(abs(x)))))


@pytest.fixture(scope="module")
def planted():
    honest = claim_from_corpus("path.interior_positions", 12, 1, 6)  # a random span, interior u
    return contract_for("path.interior_positions").plant(honest)


def test_planted_claim_names_row_ulps_and_the_dominant_step(tmp_path, capsys, planted):
    f = tmp_path / "case.json"
    f.write_text(json.dumps(_doc([planted])))
    ex = _run_json(capsys, ["explain", str(f), "--claim", "0", "--json"])
    assert ex["row"] == "path.interior_positions" and ex["verdict"]["kind"] == "Violated"
    assert ex["working_format"] == "f64"
    P = dec_array(planted.inputs["controls"], np.float32)
    u = Fraction(dec(planted.inputs["u"]))
    truth = _bezier(P, u)
    claimed = [dec(v) for v in planted.value]
    for k, c in enumerate(ex["components"]):
        want = float((Fraction(claimed[k]) - truth[k]) / _ulp64(claimed[k]))
        assert c["name"] == f"position[{k}]"
        assert math.isclose(c["ulps"], want, rel_tol=1e-12, abs_tol=1e-12), (k, c["ulps"], want)
    # The plant moved component 0 by three model bounds (3 * 16 u E: dozens of ulps), the worst.
    assert ex["worst_component"] == "position[0]" and abs(ex["components"][0]["ulps"]) > 20
    assert ex["components"][0]["over_model"] > 2.9
    assert ex["model"]["dominant_term"].startswith("rounding")
    # The claim is not the kernel's value: said so, with the difference in ulps.
    assert any("not what the reference kernel computes" in n for n in ex["notes"])
    # The marked step is the one whose first-order contribution, removed, shrinks the
    # output's error most (recomputed from the listed contributions).
    tr = ex["trace"]
    err = tr["error_ulps"]
    steps = {s["index"]: s for s in tr["steps"]}
    ulp = float(_ulp64(float(dec(ex["components"][0]["traced"]["hex"]))))
    e = err * ulp
    scores = {i: (abs(e) - abs(e - s["contribution"])) if e else abs(s["contribution"]) for i, s in steps.items()}
    assert tr["dominant"] == max(scores, key=scores.get)
    # The text prints the same numbers and marks the step.
    main(["explain", str(f), "--claim", "0"])
    text = capsys.readouterr().out
    assert "row path.interior_positions" in text and "Violated" in text
    assert f"{ex['components'][0]['ulps']:.4g}" in text
    assert "<== most error entered here" in text
    assert planted.value[0] in text  # the exact hex of the claimed component


def test_far_from_origin_trace_marks_the_narrowing():
    src = [[[1e6 + 0.3, 2.0, 3.0], [1e6 + 1.1, 2.5, 3.5], [1e6 + 2.7, 3.0, 2.0], [1e6 + 3.3, 4.0, 1.0]]]
    for fmt in ("f64", "f32"):
        ex = explain_query({"query": "path", "source": src, "origin": [0, 0, 0], "span": 0,
                            "u": 1 - 2.0**-20, "format": fmt})
        tr = ex["source_trace"]["trace"]
        dom = next(s for s in tr["steps"] if s["index"] == tr["dominant"])
        assert dom["op"] == "narrow32", (fmt, dom)
        assert "narrowing" in tr["dominant_text"]
        # u = 1 - 2^-20: s = 1 - u is exact and cancels (flagged).
        assert any(s["op"] == "sub" and (s["cancellation"] or 0) > 1e5 for s in tr["steps"])
        # Independently: the evaluated x against the exact source curve, in ulps.
        ev = float(dec(ex["source_trace"]["components"][0]["traced"]["hex"]))
        uu = Fraction(float(np.float32(1 - 2.0**-20))) if fmt == "f32" else Fraction(1 - 2.0**-20)
        exact = _bezier(np.array(src[0]), uu)[0]
        spacing = Fraction(float(np.spacing(np.float32(ev)))) if fmt == "f32" else _ulp64(ev)
        assert math.isclose(ex["source_trace"]["components"][0]["traced_ulps"],
                            float((Fraction(ev) - exact) / spacing), rel_tol=1e-9)


def _prepares(src, origin, pe) -> bool:
    from oracles.families.path import LIMITS, tolerance

    spans = spans_from_arrays(np.asarray(src), np.ones(len(src)))
    out = try_prepare_path(PathSource(spans, revision=1, is_closed=False),
                           PathPreparation(tolerance(pe), LIMITS, tuple(float(v) for v in origin)))
    return out.ok


def test_unsupported_precision_prints_the_floor_and_a_shift_that_passes(capsys):
    code = main(["explain", "--row", "path.position_floor", "--case", "10", "--seed", "1", "--json"])
    ex = json.loads(capsys.readouterr().out)
    assert code == 0
    claim = claim_from_corpus("path.position_floor", 10, 1)
    src, origin = dec_array(claim.inputs["source"]), dec_array(claim.inputs["origin"])
    pe = dec(claim.inputs["position_error"])
    assert not _prepares(src, origin, pe)  # the corpus case is UnsupportedPrecision
    fl = ex["floor"]
    narrowed = (src - origin).astype(np.float32)
    E = float(np.max(np.abs(narrowed)))
    assert float(dec(fl["E"]["hex"])) == E
    assert float(dec(fl["ulp32_E"]["hex"])) == float(np.spacing(np.float32(E)))
    nerr = max(abs(Fraction(float(n)) - (Fraction(float(s)) - Fraction(float(o))))
               for n, s, o in zip(narrowed.reshape(-1), src.reshape(-1), np.tile(origin, src.size // 3)))
    assert math.isclose(float(dec(fl["narrowing_error"]["hex"])), float(nerr), rel_tol=1e-15)
    assert fl["accepted"] is False and fl["fix"]["kind"] == "origin_shift"
    for key in ("origin", "round_origin"):
        assert _prepares(src, [dec(v) for v in fl["fix"][key]], pe), key
    main(["explain", "--row", "path.position_floor", "--case", "10"])
    text = capsys.readouterr().out
    for term in ("E (largest narrowed magnitude)", "ulp32(E)", "narrowing error", "floor = 2 ulp32(E) + narrowing",
                 "UnsupportedPrecision", "fix: move the chunk origin"):
        assert term in text


def test_a_long_asset_gets_a_split_whose_chunks_pass():
    # Four spans of 1000 units marching along x: centred, the whole asset has E = 2000 and a
    # floor near 2.4e-4; one span alone, centred, has E = 500 and a floor near 6e-5.
    spans = []
    for i in range(4):
        x0 = 1000.0 * i
        spans.append([[x0, 0, 0], [x0 + 300, 50, 0], [x0 + 700, -50, 0], [x0 + 1000, 0, 0]])
    src = np.array(spans, dtype=np.float64)
    pe = 1e-4
    claim = Claim("path.position_floor", G.Exact, {"floor": None, "accepted": False},
                  {"source": enc(src), "origin": enc(np.zeros(3)), "position_error": enc(pe),
                   "relative_position_error": enc(0.0), "asset_scale": enc(1.0)})
    ex = explain_claim(claim)
    fix = ex["floor"]["fix"]
    assert fix["kind"] == "split" and len(fix["chunks"]) >= 2
    assert not _prepares(src, np.array([2000.0, 0, 0]), pe)  # no single origin passes
    covered = []
    for ch in fix["chunks"]:
        a, b = ch["spans"]
        covered += list(range(a, b))
        assert _prepares(src[a:b], [dec(v) for v in ch["origin"]], pe)
    assert covered == list(range(4))


def test_json_shape_is_documented_and_valid(capsys):
    ex = _run_json(capsys, ["explain", "--row", "path.derivatives", "--case", "12", "--json"])
    assert set(JSON_SHAPE) - {"plot"} <= set(ex)  # "plot" only with --plot
    assert ex["format"] == "explain/1"
    assert all({"path", "hex", "decimal"} <= set(i) for i in ex["inputs"])
    step_keys = {"index", "op", "args", "where", "label", "working", "exact", "local_ulps", "accumulated_ulps",
                 "share", "cancellation"}
    assert ex["trace"] and all(step_keys <= set(s) for s in ex["trace"]["steps"])
    assert [c["name"] for c in ex["components"]] == [f"{k}[{i}]" for k in ("first", "second") for i in range(3)]


def test_float32_claim_is_traced_in_float32(capsys):
    q = {"query": "path", "controls": [[0, 0, 0], [1, 2, 0], [3, 2, 1], [4, 0, 1]], "u": 0.3, "format": "f32"}
    ex = _run_json(capsys, ["explain", "--query", json.dumps(q), "--json"])
    assert ex["working_format"] == "f32" and ex["verdict"]["kind"] == "Verified"
    assert ex["claimed_model"] == {"name": "float32 evaluator", "u": "0x1p-24"}
    assert all(c["claimed_minus_traced_ulps"] == 0 for c in ex["components"])  # same arithmetic


def test_ad_hoc_claim_of_any_row_and_certified_chain(capsys):
    c = claim_from_corpus("distance.length_bounds", 12, 1)
    ex = _run_json(capsys, ["explain", "--query", json.dumps(c.to_json()), "--json"])
    assert ex["row"] == "distance.length_bounds" and ex["trace"] is None
    chain = ex["certified"]["enclosures"]
    assert chain[0]["name"].startswith("claimed") and len(chain) >= 2
    widths = {e["name"]: (Fraction(e["width"]) if "/" in e["width"] or "e" not in e["width"]
                          else Fraction(float(e["width"])))
              for e in chain}
    assert ex["certified"]["widest"] == max(widths, key=widths.get)


def test_undecided_lists_the_precisions_tried():
    c = claim_from_corpus("distance.length_bounds", 12, 1)
    v = undecided(c, ["0x1p+0", "0x1p+1"], prec=256)
    u = _undecided(c, v)
    assert u["precisions_tried"] == [113, 256] and u["best_enclosure"] == ["0x1p+0", "0x1p+1"]


@pytest.mark.parametrize("argv", [
    ["explain"],
    ["explain", "missing.json"],
    ["explain", "--row", "no.such_row"],
    ["explain", "--query", "{not json"],
    ["explain", "--query", "{\"query\": \"path\", \"controls\": [[0, 0, 0]], \"u\": 0.5}"],
    ["explain", "--row", "path.interior_positions", "--case", "0", "--nth", "100000"],
])
def test_bad_arguments_exit_2_with_a_message(argv, capsys):
    assert main(argv) == 2
    assert "error:" in capsys.readouterr().err


def test_malformed_claim_in_a_file_is_refused(tmp_path, capsys, planted):
    d = json.loads(json.dumps(_doc([planted])))  # a copy: the fixture's claim stays intact
    d["claims"][0]["inputs"]["u"] = "not a number"
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(d))
    assert main(["explain", str(f), "--claim", "0"]) == 2
    assert "malformed" in capsys.readouterr().err


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_check_shows_progress_only_on_a_terminal(tmp_path, capsys, monkeypatch, planted):
    f = tmp_path / "case.json"
    f.write_text(json.dumps(_doc([planted, planted])))
    main(["check", str(f), "--out", str(tmp_path / "a")])
    assert "\r[" not in capsys.readouterr().err  # not a terminal: no bar
    fake = _Tty()
    monkeypatch.setattr("sys.stderr", fake)
    code = main(["check", str(f), "--out", str(tmp_path / "b")])
    assert code == 1  # the planted claims are still Violated
    assert "\r[" in fake.getvalue() and "2/2" in fake.getvalue()


def test_explain_error_for_unknown_row_in_code():
    with pytest.raises(ExplainError):
        explain_claim(Claim("no.row", G.Exact, None, {}))


def _readme_queries() -> list:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("## Debugging a precision failure", 1)[1].split("\n## ", 1)[0]
    return [json.loads(m) for m in re.findall(r"explain --query '(\{.*?\})'", section)]


def test_readme_worked_examples_print_what_the_readme_shows(capsys):
    q1, q2 = _readme_queries()
    main(["explain", "--query", json.dumps(q1)])
    text = capsys.readouterr().out
    for line in ("verdict Violated, error_ratio = 628846", "234.3", "u  <== most error entered here",
                 "[cancellation xinf]", 'a float32 producer declares model {"u": "0x1p-24"}',
                 "amplified by the cancellation at step 15 (bernstein3:77: s = one - u, which cancelled to 0)"):
        assert line in text, line
    # Independently: float32 rounds u = 1 - 2^-30 to 1, where the kernel returns P3 exactly,
    # so the whole error is B(1) - B(u), all of it from that input rounding.
    ex1 = explain_query(q1)
    P = np.array([[dec(x) for x in row_] for row_ in q1["inputs"]["controls"]])
    exact = _bezier(P, Fraction(1) - Fraction(1, 2**30))
    for k in range(3):
        assert Fraction(float(dec(ex1["components"][k]["claimed"]["hex"]))) == Fraction(P[3][k])
        assert dec_q(ex1["components"][k]["truth"]["lo"]) == exact[k]
    dom = next(s for s in ex1["trace"]["steps"] if s["index"] == ex1["trace"]["dominant"])
    assert dom["op"] == "input" and dom["label"] == "u" and dom["share"] == pytest.approx(1.0, abs=1e-6)
    ex = explain_query(q2)
    tr = ex["source_trace"]["trace"]
    assert next(s for s in tr["steps"] if s["index"] == tr["dominant"])["op"] == "narrow32"
    fix = ex["floor"]["fix"]
    assert fix["kind"] == "origin_shift" and fix["round_origin_decimal"] == ["1048576.0", "0.0", "0.0"]
    src = np.array(q2["source"], dtype=np.float64)
    assert not _prepares(src, [0, 0, 0], q2["position_error"])
    assert _prepares(src, [dec(v) for v in fix["origin"]], q2["position_error"])
    assert _prepares(src, [1048576.0, 0, 0], q2["position_error"])


@pytest.mark.parametrize("query,row", [
    ({"query": "track", "keys": [[0, 0, 0, 0, "Hermite"], [1, 1, 1, 1, "Linear"], [2, 3, 0, 0, "Linear"]],
      "time": 0.3}, "track.values"),
    ({"query": "triangle", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 2]],
      "start": [0.2, 0.2, 1], "end": [0.2, 0.2, -1], "tolerance": 1e-9}, "triangle.first_hit"),
    ({"query": "distance", "source": [[[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]]], "distance": 1.5},
     "distance.inversion_residual"),
    ({"query": "projection", "source": [[[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]]], "point": [1.5, 2, 0]},
     "projection.strict"),
])
def test_native_queries_of_other_families(query, row):
    ex = explain_query(query)
    assert ex["row"] == row and ex["verdict"]["kind"] == "Verified"
    assert ex["origin"] == {"query": query["query"], "pick": row}
    if row == "projection.strict":
        # Certified: the chain holds the oracle's minimum inside the claimed [LowerBound, Distance].
        links = {e["name"].split(" at ")[0]: e for e in ex["certified"]["enclosures"]}
        claimed, oracle = links["claimed [LowerBound, Distance]"], links["oracle enclosure of the minimum distance"]
        assert dec_q(claimed["lo"]) <= dec_q(oracle["lo"]) <= dec_q(oracle["hi"]) <= dec_q(claimed["hi"])


def test_triangle_query_contact_is_exact_here():
    ex = explain_query({"query": "triangle", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 2]],
                        "start": [0.25, 0.25, 1], "end": [0.25, 0.25, -1], "tolerance": 1e-9})
    assert dec(ex["claimed_value"]["t"]) == 0.5  # the plane z = 0 halfway along the segment


def test_residual_chain_names_the_widest_band():
    ex = explain_query({"query": "distance", "source": [[[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]]],
                        "distance": 1.5})
    chain = ex["certified"]["enclosures"]
    widths = {e["name"]: float(e["width"]) for e in chain}
    assert ex["certified"]["widest"] == max(widths, key=widths.get) == "allowed band target +- distance_error"
    # The claimed band lies inside the allowed band (residual_bound <= distance_error).
    assert widths["claimed residual band target +- residual_bound"] <= widths["allowed band target +- distance_error"]


def test_ledger_index_names_the_claim_the_ledger_numbers(tmp_path, capsys):
    from oracles.ledger import run_corpus

    seen = {}
    run_corpus(2, 2, ["track"], progress=False, on_verdict=lambda i, v: seen.setdefault(i, v.claim))
    i = max(seen)
    ex = _run_json(capsys, ["explain", "--index", str(i), "--seed", "2", "--cases", "2", "--family", "track", "--json"])
    assert ex["row"] == seen[i].row and ex["claimed_value"] == seen[i].value
    assert main(["explain", "--index", str(i + 1), "--seed", "2", "--cases", "2", "--family", "track"]) == 2


def test_every_checked_row_is_explained_honest_and_planted():
    # One corpus claim per row (the first the families' first cases make) and its planted
    # false claim: explain answers with the checker's verdict, in text and as valid JSON.
    from oracles.families import families
    from oracles.explain import jsonable, render_text
    from oracles.ledger import check_claim

    seen = {}
    for fam in families():
        for case in fam.generate(1, min(fam.default_cases, 14)):
            for c in fam.claims(case):
                seen.setdefault(c.row, c)
    assert len(seen) >= 25
    for row, c in sorted(seen.items()):
        for claim in (c, contract_for(row).plant(c)):
            ex = explain_claim(claim)
            assert ex["row"] == row and ex["verdict"]["kind"] == check_claim(claim).kind.value, row
            assert render_text(ex).startswith(f"row {row} ")
            json.loads(json.dumps(jsonable(ex)), parse_constant=lambda k: pytest.fail(f"{row}: {k} in JSON"))


def _traces(x) -> list:
    out = []
    if isinstance(x, dict):
        if "dominant_text" in x:
            out.append(x)
        for v in x.values():
            out += _traces(v)
    elif isinstance(x, list):
        for v in x:
            out += _traces(v)
    return out


def test_roundings_that_cancel_are_never_called_exact():
    """A tangent component whose two roundings (a square root, a division) have opposite signs:
    removing either alone would enlarge the output's error, so no step is dominant; the note
    must say the steps round and cancel, never "no step rounds: the value is exact" (issue 25).
    The shares are checked from the trace's own contributions: each is larger than their sum."""
    ex = explain_claim(claim_from_corpus("path.tangents", 0, 1, 22))
    found = False
    for tr in _traces(ex):
        rounding = [s for s in tr["steps"] if s["local_ulps"]]
        if rounding:
            assert "no step rounds" not in tr["dominant_text"], tr["dominant_text"]
        total = sum(s["contribution"] for s in rounding)
        if len(rounding) == 2 and all(abs(s["contribution"]) > abs(total) for s in rounding):
            found = True
            assert "cancel" in tr["dominant_text"] and "2 steps round" in tr["dominant_text"]
    assert found, "the corpus claim no longer has two partly cancelling roundings"


def test_an_exact_value_says_no_step_rounds():
    P = [["0x1p0", "0x1p1", "0x0p0"], ["0x1p1", "0x1p1", "0x0p0"], ["0x1.8p1", "0x1p0", "0x0p0"],
         ["0x1p2", "0x0p0", "0x0p0"]]
    c = Claim("path.interior_positions", G.Rounded, enc(np.array([1.0, 2.0, 0.0])),
              {"controls": P, "u": enc(0.0)})  # B(0) = P0: every step is exact
    traces = _traces(explain_claim(c))
    assert traces and all(not any(s["local_ulps"] for s in tr["steps"]) for tr in traces)
    assert all(tr["dominant_text"] == "no step rounds: the value is exact" for tr in traces)
