"""Hand-made case files, as a CI job that judges another implementation writes them: planted
errors of each family, malformed files of every kind, decimal and hex numbers, exit-code
precedence, JSON Lines and JUnit reports, and a hypothesis mutation test (never a traceback,
malformed input is exit 2 with a field path)."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
import zlib
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from oracles.__main__ import main
from oracles.families import contract_for, families
from oracles.ledger import check_claim
from oracles.batch import MALFORMED_ERRORS
from oracles.model import VerdictKind

from ..profiles import examples

from .claim_paths import leaves, paths as field_paths, set_at

FAMS = {f.name: f for f in families()}


def _honest(fam_name: str, n: int = 4, seed: int = 3) -> list:
    fam = FAMS[fam_name]
    return [c for case in fam.generate(seed, n) for c in fam.claims(case)]


@pytest.fixture(scope="module")
def track_claims():
    return _honest("track", 3)


@pytest.fixture(scope="module")
def path_claims():
    return _honest("path", 2)


def _doc(claims, producer="test producer"):
    return {"format": "claims/1", "producer": producer,
            "claims": [c.to_json() if hasattr(c, "to_json") else c for c in claims]}


def _run(tmp_path, doc, *extra, name="case.json", raw=None):
    f = tmp_path / name
    f.write_text(raw if raw is not None else json.dumps(doc))
    out = tmp_path / (name + ".out")
    return main(["check", str(f), "--out", str(out), "--force", *extra]), out


def _first(claims, row):
    return next(c for c in claims if c.row == row)


def _json(claim) -> dict:
    """A deep copy of a claim's JSON (to_json shares the claim's own dicts)."""
    return json.loads(json.dumps(claim.to_json()))


# --- exit codes and reports -------------------------------------------------------------------


def test_honest_claims_exit_0_and_record_the_producer(tmp_path, track_claims):
    code, out = _run(tmp_path, _doc(track_claims, "engine X"))
    assert code == 0
    led = json.loads((out / "ledger.json").read_text())
    assert led["producer"] == "engine X" and led["totals"]["claims"] == len(track_claims)
    assert "engine X" in (out / "ledger.md").read_text()


def test_mixed_file_exits_1_and_every_violation_is_reported(tmp_path, capsys, track_claims, path_claims):
    """Violations plus a malformed claim: exit 1 (Violated wins), every Violated claim appears in
    the verdicts file, the JUnit report and the ledger; the malformed one is listed by index."""
    honest = track_claims[:5] + path_claims[:5]
    rows = ["track.values", "track.key_values", "path.control_boxes", "path.interior_positions"]
    planted = [contract_for(r).plant(_first(track_claims + path_claims, r)) for r in rows]
    bad = _json(_first(track_claims, "track.values"))
    bad["inputs"] = {**bad["inputs"], "spn": 1}  # a typo: unknown field
    claims = honest[:3] + planted[:2] + [bad] + honest[3:] + planted[2:]
    violated_idx = sorted([3, 4, 6 + 7, 6 + 8])
    code, out = _run(tmp_path, _doc(claims), "--verdicts", str(tmp_path / "v.jsonl"),
                     "--junit", str(tmp_path / "j.xml"))
    err = capsys.readouterr().err
    assert code == 1
    lines = [json.loads(x) for x in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert sorted(r["claim"] for r in lines if r["verdict"] == "Violated") == violated_idx
    mal = [r for r in lines if r["verdict"] == "Malformed"]
    assert [r["claim"] for r in mal] == [5] and "spn" in mal[0]["message"] and mal[0]["path"] == "claims[5].inputs"
    assert "claims[5].inputs" in err and "spn" in err
    suite = ET.parse(tmp_path / "j.xml").getroot()
    failures = [f.get("message") for f in suite.iter("failure")]
    assert sorted(int(re.match(r"claim (\d+)", m).group(1)) for m in failures) == violated_idx
    assert suite.get("failures") == "4" and suite.get("errors") == "1"
    led = json.loads((out / "ledger.json").read_text())
    got = sorted(i for r in led["rows"] for i in r.get("violated_claims", []))
    assert got == violated_idx
    for r in led["rows"]:
        for rec in r.get("violations", []):
            assert rec["claim"] in violated_idx and "witness" in rec


def test_malformed_without_violation_exits_2(tmp_path, capsys, track_claims):
    bad = _json(track_claims[0])
    del bad["inputs"][next(iter(bad["inputs"]))]
    code, _ = _run(tmp_path, _doc(track_claims[1:4] + [bad]))
    assert code == 2
    assert re.search(r"claims\[3\].*required property", capsys.readouterr().err)


def test_empty_file_and_strict_mode_exit_3(tmp_path, track_claims, pending_row):
    assert _run(tmp_path, _doc([]))[0] == 3
    pending = {"row": pending_row, "guarantee": "Rounded", "inputs": {}, "value": []}
    assert _run(tmp_path, _doc(track_claims[:2] + [pending]))[0] == 0  # Undecided, not strict
    assert _run(tmp_path, _doc(track_claims[:2] + [pending]), "--strict")[0] == 3
    assert _run(tmp_path, _doc(track_claims[:2]), "--strict")[0] == 0


def test_out_refuses_another_runs_ledger(tmp_path, track_claims):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_doc(track_claims[:2])))
    b.write_text(json.dumps(_doc(track_claims[2:4])))
    out = str(tmp_path / "out")
    assert main(["check", str(a), "--out", out]) == 0
    assert main(["check", str(a), "--out", out]) == 0  # the same run may rewrite its ledger
    assert main(["check", str(b), "--out", out]) == 2
    assert json.loads((tmp_path / "out" / "ledger.json").read_text())["run"]["source"] == str(a)
    assert main(["check", str(b), "--out", out, "--force"]) == 0


def test_unknown_family_is_an_error(tmp_path, capsys):
    assert main(["ledger", "--family", "bogus", "--out", str(tmp_path / "l")]) == 2
    assert "unknown family bogus" in capsys.readouterr().err
    assert not (tmp_path / "l").exists()


# --- numbers -------------------------------------------------------------------------------------


def _exact_decimal(q: Fraction) -> str:
    """The finite decimal expansion of a dyadic rational (every float is one)."""
    sign = "-" if q < 0 else ""
    q = abs(q)
    k = 0
    while q.denominator != 1:
        q *= 10
        k += 1
    digits = str(q.numerator).rjust(k + 1, "0")
    return sign + (digits[:-k] + "." + digits[-k:] if k else digits)


def _to_decimal(x):
    if isinstance(x, str) and x.lstrip("-").startswith("0x"):
        return _exact_decimal(Fraction(float.fromhex(x)))
    if isinstance(x, list):
        return [_to_decimal(v) for v in x]
    if isinstance(x, dict):
        return {k: _to_decimal(v) for k, v in x.items()}
    return x


def test_decimal_and_hex_numbers_are_the_same_claims(tmp_path, track_claims, path_claims):
    """The same claims with every hex float written as its exact decimal expansion (and a few as
    JSON numbers) are judged the same: read exactly, never as hex."""
    claims = track_claims[:6] + path_claims[:6]
    docs = [c.to_json() for c in claims]
    as_decimal = [{**d, "inputs": _to_decimal(d["inputs"]), "value": _to_decimal(d["value"])} for d in docs]
    text = json.dumps(_doc(as_decimal))
    # Short exact decimals as bare JSON numbers: "0.5" -> 0.5 (read as the decimal 1/2).
    text = re.sub(r'"(-?\d{1,6}(?:\.\d{1,6})?)"', r"\1", text)
    code, out = _run(tmp_path, None, raw=text)
    assert code == 0
    led = json.loads((out / "ledger.json").read_text())
    assert led["totals"] == {"claims": len(claims), "violated": 0, "undecided": 0, "faults": 0, "malformed": 0,
                             "unanswered": 0}


MALFORMED = {
    "hex without 0x": ("inputs", "1.8p1", "not a number"),
    "inexact rational": ("inputs", "1/3", "not exactly representable"),
    "hex beyond float64": ("inputs", "0x1p1024", "overflows"),
    "decimal overflow": ("inputs", "1e400", "overflows"),
    "boolean number": ("inputs", True, ""),
    "nested list": ("inputs", [["0x1p0"]], ""),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_malformed_numbers_name_the_field(tmp_path, capsys, track_claims, kind):
    _, value, reason = MALFORMED[kind]
    d = _json(_first(track_claims, "track.values"))
    path = next(p for p, v in leaves(d["inputs"]) if isinstance(v, str) and v.lstrip("-").startswith("0x"))
    set_at(d["inputs"], path, value)
    code, _ = _run(tmp_path, _doc([d]))
    err = capsys.readouterr().err
    assert code == 2
    want = "claims[0].inputs" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    assert want in err and reason in err


@pytest.mark.parametrize("raw, needle", [
    ('{"format": "claims/1", "claims": [{"row": "track.values", "guarantee": "Rounded", "value": 1e308, '
     '"inputs": {}}]}', "claims[0]"),
    ('{"format": "claims/1", "claims": [], "claims": []}', "duplicate key"),
    ('{"format": "claims/1", "claims": [{"a": 1, "b": 2, "a": 3, "b": 4}]}', "duplicate key 'a'"),  # the first
    ('{"format": "claims/1", "claims": [NaN]}', "not JSON"),
    ('{"format": "claims/1", "claims": [1]}', "claims[0]"),
    ('{"format": "claims/2", "claims": []}', "format"),
    ('{"format": "claims/1"}', "claims"),
    ('[]', "object"),
    ('{"format": "claims/1", "claims": [{"row": "track.values", "guarantee": "Exactish", "value": 1, "inputs": {}}]}',
     "claims[0].guarantee"),
    ('{"format": "claims/1", "claims": [{"row": "no.such_row", "guarantee": "Exact", "value": 1, "inputs": {}}]}',
     "claims[0].row"),
    ('{"format": "claims/1", "claims": [{"row": "track.key_values", "guarantee": "Rounded", "value": 1, '
     '"inputs": {}}]}', "claims[0].guarantee"),
    ('{"format": "claims/1", "extra": 1, "claims": []}', "extra"),
    ('{"format": "claims/1", "claims": [{"row": "track.values", "guarantee": "Rounded", "value": 1, '
     '"inputs": {}, "note": "x"}]}', "note"),
])
def test_malformed_files_exit_2_with_a_path(tmp_path, capsys, raw, needle):
    code, _ = _run(tmp_path, None, raw=raw)
    assert code == 2
    assert needle in capsys.readouterr().err


def test_a_model_on_a_row_without_one_is_malformed(tmp_path, capsys, track_claims):
    d = _json(_first(track_claims, "track.key_values"))
    d["model"] = {"u": "0x1p-24"}
    assert _run(tmp_path, _doc([d]))[0] == 2
    assert "claims[0]" in capsys.readouterr().err


# --- mutation: never a traceback ---------------------------------------------------------------

_BAD = ["0.1", "1e400", "0x", "nan", "-inf", True, None, [], {}, "Degenerate", "0x1p99999", "1/0", -1, 2**70, "",
        "x", [["0x1p0"]]]
_BAD_VALUES = st.sampled_from(_BAD)


@st.composite
def _mutation(draw, pool):
    d = json.loads(json.dumps(draw(st.sampled_from(pool)).to_json()))
    kind = draw(st.sampled_from(["set", "delete", "add", "row", "guarantee", "drop"]))
    surely_malformed = kind in ("delete", "add", "drop")
    if kind == "drop":  # a required claim field
        del d[draw(st.sampled_from(["row", "guarantee", "value", "inputs"]))]
    elif kind == "row":
        d["row"] = draw(st.sampled_from(["no.row", "", 3, "track.values", "path.tangents"]))
        surely_malformed = d["row"] in ("no.row", "", 3)
    elif kind == "guarantee":
        from oracles.rows import row

        d["guarantee"] = draw(st.sampled_from(["Exactish", 1, "Exact", "Rounded", "Certified"]))
        surely_malformed = d["guarantee"] != row(d["row"]).guarantee.value
    else:
        paths = list(field_paths(d["inputs"], ("inputs",))) + list(field_paths(d["value"], ("value",)))
        if not paths or (kind == "add" and draw(st.booleans())):
            target = d["inputs"]
            target[draw(st.sampled_from(["spn", "extra", "u2"]))] = 1
            surely_malformed = True
        else:
            path = draw(st.sampled_from(paths))
            if kind == "set":
                set_at(d, path, draw(_BAD_VALUES))
                surely_malformed = None  # may still be a valid (and then judged) claim
            elif kind == "delete":
                parent = d
                for p in path[:-1]:
                    parent = parent[p]
                if isinstance(parent, dict):
                    del parent[path[-1]]
                    surely_malformed = None  # the field may be optional
                else:
                    parent.append(parent[-1])  # a list one item too long
                    surely_malformed = None
            else:
                parent = d
                for p in path[:-1]:
                    parent = parent[p]
                if isinstance(parent, dict):
                    parent["unexpected_field"] = 0
                else:
                    surely_malformed = None
    return d, surely_malformed


@pytest.fixture(scope="module")
def mutation_pool():
    pool = []
    for name in sorted(FAMS):
        fam = FAMS[name]
        claims = [c for case in fam.generate(5, 3) for c in fam.claims(case)]
        by_row = {}
        for c in claims:
            if contract_for(c.row) is not None:  # the meta-test demands one for every checked row
                by_row.setdefault(c.row, c)
        pool += list(by_row.values())
    return pool


def test_mutated_documents_never_raise(tmp_path_factory, mutation_pool):
    tmp = tmp_path_factory.mktemp("mut")

    @settings(max_examples=examples(80, 2000), deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(_mutation(mutation_pool))
    def run(m):
        d, surely_malformed = m
        f = tmp / "m.json"
        f.write_text(json.dumps({"format": "claims/1", "claims": [d]}))
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["check", str(f), "--out", str(tmp / "o"), "--force"])
        assert code in (0, 1, 2, 3)
        if surely_malformed:
            assert code == 2, (d, err.getvalue())
        if code == 2:
            assert "claims[0]" in err.getvalue(), err.getvalue()

    run()


def test_planted_claims_of_every_family_are_violated_in_a_file(tmp_path):
    """One planted false claim per row of every family, in one file: exit 1 and each claim
    Violated in the verdicts (the meta-test proves the same in process; this is the file path)."""
    claims, rows = [], []
    for name in sorted(FAMS):
        fam = FAMS[name]
        found = {}
        for case in fam.generate(7, 30):
            for c in fam.claims(case):
                if c.row not in found and c.row in fam.contracts and check_claim(c).kind is VerdictKind.Verified:
                    found[c.row] = c
            if len(found) == len(fam.contracts):
                break
        for rid, c in sorted(found.items()):
            claims.append(fam.contracts[rid].plant(c))
            rows.append(rid)
    code, _ = _run(tmp_path, _doc(claims), "--verdicts", str(tmp_path / "v.jsonl"))
    lines = [json.loads(x) for x in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert code == 1
    assert [r["verdict"] for r in lines] == ["Violated"] * len(rows), [(r["row"], r["verdict"]) for r in lines]


def _published_schema_errors(doc) -> set:
    """The errors of the shipped schema file (every claim asked every row's ``if``) under
    jsonschema's own keywords plus ``claimNumber``: the reference for the dispatched validation
    with the one-loop ``items`` that ``validate_document`` runs."""
    from jsonschema import Draft202012Validator, validators

    from oracles.schema import SCHEMA_PATH, error_message, field_path
    from oracles.schema_validate import _KEYWORDS, leaf_errors

    plain = validators.extend(Draft202012Validator, _KEYWORDS)  # claimNumber and its anyOf, not items
    v = plain(json.loads(SCHEMA_PATH.read_text()))
    return {(field_path(leaf.absolute_path), error_message(leaf)) for err in v.iter_errors(doc)
            for leaf in leaf_errors(err)}


def test_dispatched_validation_finds_the_published_schemas_errors(mutation_pool):
    from oracles.schema import validate_document

    @settings(max_examples=examples(60, 1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_mutation(mutation_pool), st.sampled_from(mutation_pool), st.booleans())
    def run(m, honest, first):
        d, _ = m
        pair = [d, honest.to_json()] if first else [honest.to_json(), d]
        doc = json.loads(json.dumps({"format": "claims/1", "claims": pair}))
        got = {(e.path, e.message) for e in validate_document(doc)}
        assert got == _published_schema_errors(doc)

    run()
    for doc in ({"format": "claims/1", "claims": "x"}, {"format": "claims/2"}, [], {"claims": [3, {"row": 3}]}):
        assert {(e.path, e.message) for e in validate_document(doc)} == _published_schema_errors(doc)


# --- numbers as JSON writers write them (issue 25) -----------------------------------------------

_HEX = re.compile(r"^-?0x")


def _map_hex(x, fn):
    """``x`` with every hex float text replaced by ``fn(text)`` (words and p/q stay text)."""
    if isinstance(x, str) and _HEX.match(x):
        return fn(x)
    if isinstance(x, list):
        return [_map_hex(v, fn) for v in x]
    if isinstance(x, dict):
        return {k: _map_hex(v, fn) for k, v in x.items()}
    return x


def _verdict_lines(path) -> list:
    keep = ("claim", "row", "verdict", "measure", "measured", "note", "witness", "enclosure")
    return [{k: r.get(k) for k in keep} for r in map(json.loads, path.read_text().splitlines())]


@pytest.fixture(scope="module")
def corpus_hex(tmp_path_factory):
    """The fast path's claims on a small corpus of every family (exact hex), and their verdicts."""
    tmp = tmp_path_factory.mktemp("corpus")
    f = tmp / "hex.json"
    assert main(["claims", "--cases", "3", "--out", str(f)]) == 0
    assert main(["check", str(f), "--out", str(tmp / "out"), "--verdicts", str(tmp / "v.jsonl")]) == 0
    return f, _verdict_lines(tmp / "v.jsonl")


def _judge_file(tmp_path, text: str, *extra):
    f = tmp_path / "decimal.json"
    f.write_text(text)
    code = main(["check", str(f), "--out", str(tmp_path / "out"), "--force", "--verdicts",
                 str(tmp_path / "v.jsonl"), *extra])
    return code, _verdict_lines(tmp_path / "v.jsonl"), json.loads((tmp_path / "out" / "ledger.json").read_text())


def test_a_file_json_dump_wrote_is_judged_as_the_hex_file(tmp_path, corpus_hex, capsys):
    """Python's json.dump of the same claims with float64 values (shortest round-trip decimals
    such as 0.3 and 1.116) is judged without conversion, claim for claim as the hex file."""
    f, want = corpus_hex
    doc = _map_hex(json.loads(f.read_text()), float.fromhex)
    code, got, led = _judge_file(tmp_path, json.dumps(doc))
    assert code == 0 and got == want
    assert led["numbers"]["read_by_rounding"] > 1000 and not led["numbers"]["exact_numbers"]
    # Shortest round-trip decimals (0.3) have fewer than 17 digits: the warning says so, and
    # that such a writer's decimals read back as its values.
    assert "json.dump" in capsys.readouterr().err


def test_a_file_c_printf_wrote_is_judged_as_the_hex_file(tmp_path, corpus_hex):
    """A C program reads each value as a hex float (strtod, exact) and writes it with
    printf("%.17g"): the file is judged claim for claim as the hex file."""
    import shutil
    import subprocess

    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("NO C COMPILER (gcc or cc) ON PATH: the printf(\"%.17g\") case file was not tested")
    src = tmp_path / "dump17.c"
    src.write_text('#include <stdio.h>\n#include <stdlib.h>\n'
                   'int main(void) { char line[128];\n'
                   '  while (fgets(line, sizeof line, stdin)) printf("%.17g\\n", strtod(line, NULL));\n'
                   '  return 0; }\n')
    exe = tmp_path / "dump17"
    subprocess.run([cc, "-std=c99", "-O0", "-o", str(exe), str(src)], check=True)
    f, want = corpus_hex
    values: list = []

    def marker(text):
        values.append(text)
        return f"@@{len(values) - 1}@@"

    doc = _map_hex(json.loads(f.read_text()), marker)
    out = subprocess.run([str(exe)], input="\n".join(values) + "\n", capture_output=True, text=True, check=True)
    decimals = out.stdout.split()
    assert len(decimals) == len(values)
    text = re.sub(r'"@@(\d+)@@"', lambda m: decimals[int(m.group(1))], json.dumps(doc))
    code, got, led = _judge_file(tmp_path, text)
    assert code == 0 and got == want
    assert led["numbers"]["read_by_rounding"] > 1000


def _one_track_value(track_claims):
    """A track.values claim whose claimed value (a float64 field) is not the value of its own
    6-significant-digit decimal, and that value."""
    for c in track_claims:
        if c.row == "track.values" and isinstance(c.value, dict) and _HEX.match(str(c.value.get("value"))):
            x = float.fromhex(c.value["value"])
            if float(f"{x:.6g}") != x:
                return _json(c), x
    raise AssertionError("no track.values claim with a value of more than 6 digits")


def _with_value_text(d: dict, text: str) -> str:
    """The case file of claim ``d`` with its value.value written as the raw JSON ``text``."""
    d = json.loads(json.dumps(d))
    d["value"]["value"] = "@@value@@"
    return json.dumps(_doc([d])).replace('"@@value@@"', text)


def test_a_six_digit_decimal_draws_the_warning(tmp_path, capsys, track_claims):
    d, x = _one_track_value(track_claims)
    _code, _lines, led = _judge_file(tmp_path, _with_value_text(d, f"{x:.6g}"))
    err = capsys.readouterr().err
    assert "warning:" in err and "claims[0].value.value" in err and "fewer significant digits" in err
    assert led["numbers"] == {"exact_numbers": False, "read_by_rounding": 1, "short_decimals": 1,
                              "first_short": ["claims[0].value.value"]}
    assert "Numbers read by rounding" in (tmp_path / "out" / "ledger.md").read_text()
    # the same value written with 17 significant digits: read as x, and no warning
    code17, _lines17, led17 = _judge_file(tmp_path, _with_value_text(d, f"{x:.16e}"))
    assert code17 == 0 and "warning:" not in capsys.readouterr().err
    assert led17["numbers"]["read_by_rounding"] == int(Fraction(f"{x:.16e}") != Fraction(x))
    assert led17["numbers"]["short_decimals"] == 0


def test_exact_numbers_refuses_inexact_decimals_naming_the_nearest_values(tmp_path, capsys, track_claims):
    d, x = _one_track_value(track_claims)
    text = _with_value_text(d, f"{x:.6g}")
    y = float(f"{x:.6g}")  # the float64 nearest the 6-digit decimal (the JSON number written)
    code, lines, led = _judge_file(tmp_path, text, "--exact-numbers")
    err = capsys.readouterr().err
    assert code == 2 and lines[0]["verdict"] == "Malformed"
    bad = [m for m in err.splitlines() if m.startswith("malformed:")]
    assert len(bad) == 1 and "claims[0].value.value" in bad[0]
    other = math.nextafter(y, math.inf if Fraction(f"{x:.6g}") > Fraction(y) else -math.inf)
    lo, hi = sorted([y, other])
    assert f"{lo.hex()} ({lo:.17g}) below" in bad[0] and f"{hi.hex()} ({hi:.17g}) above" in bad[0]
    assert led["numbers"]["exact_numbers"] is True
    # without the option the same file is judged: read as y, which is not the claimed x
    assert _judge_file(tmp_path, text)[0] in (0, 1)


def test_one_bad_number_is_one_malformed_line(tmp_path, capsys, path_claims):
    """A JSON number that fits no alternative of its field (an inexact 1.116 under
    --exact-numbers, in a value that is a 3-vector or an object) is one malformed line naming its
    path, the JSON text of the number and the nearest values; never a Python repr."""
    d = _json(_first(path_claims, "path.interior_positions"))
    assert isinstance(d["value"], list)
    text = json.dumps(_doc([d])).replace(json.dumps(d["value"][0]), "1.116", 1)
    code, lines, _ = _judge_file(tmp_path, text, "--exact-numbers")
    err = capsys.readouterr().err
    bad = [m for m in err.splitlines() if m.startswith("malformed:")]
    assert code == 2 and len(bad) == 1 and len(lines) == 1, err
    assert bad[0].startswith("malformed: claims[0].value[0]: 1.116 is not exactly representable as float64")
    assert "Decimal" not in err and "0x1.1db22d0e56042p+0" in bad[0] and "0x1.1db22d0e56041p+0" in bad[0]


# --- claim ids (issue 25) ------------------------------------------------------------------------


def test_claim_ids_are_echoed_in_verdicts_junit_and_the_ledger(tmp_path, capsys, track_claims):
    honest = [_json(c) for c in track_claims[:3]]
    planted = _json(contract_for("track.values").plant(_first(track_claims, "track.values")))
    bad = _json(track_claims[3])
    bad["inputs"]["spn"] = 1
    claims = [{"id": "engine/track[0]", **honest[0]}, honest[1], {"id": "engine/planted", **planted},
              {"id": "engine/typo", **bad}, {"id": "engine/track[2]", **honest[2]}]
    code, out = _run(tmp_path, _doc(claims), "--verdicts", str(tmp_path / "v.jsonl"),
                     "--junit", str(tmp_path / "j.xml"))
    err = capsys.readouterr().err
    assert code == 1
    lines = [json.loads(x) for x in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert [r.get("id") for r in lines] == ["engine/track[0]", None, "engine/planted", "engine/typo", "engine/track[2]"]
    assert [r["verdict"] for r in lines] == ["Verified", "Verified", "Violated", "Malformed", "Verified"]
    assert 'violated: claim 2 "engine/planted"' in err and '(claim id "engine/typo")' in err
    suite = ET.parse(tmp_path / "j.xml").getroot()
    cases = {(tc.get("classname"), tc.get("name")): tc for tc in suite.iter("testcase")}
    assert cases[("track.values", "engine/planted")].find("failure") is not None
    assert cases[("casefile", "engine/typo")].find("error") is not None
    labeled_ok = [cases[(claims[i]["row"], claims[i]["id"])] for i in (0, 4)]
    assert all(tc.find("failure") is None and tc.find("error") is None for tc in labeled_ok)
    # the unlabeled claim stays in its row's test case; nothing is counted twice
    row_case = cases[("track", claims[1]["row"])]
    assert "1 claims: 1 verified" in row_case.find("system-out").text
    assert suite.get("tests") == str(len(cases)) and suite.get("failures") == "1" and suite.get("errors") == "1"
    led = json.loads((out / "ledger.json").read_text())
    rec = next(r for r in led["rows"] if r["id"] == "track.values")["violations"][0]
    assert rec["claim"] == 2 and rec["id"] == "engine/planted"
    assert '"id": "engine/planted"' in (out / "ledger.md").read_text()


@pytest.mark.parametrize("label", ["", 7, "x" * 1001])
def test_a_bad_id_is_malformed(tmp_path, capsys, track_claims, label):
    d = {"id": label, **_json(track_claims[0])}
    code, _ = _run(tmp_path, _doc([d]))
    assert code == 2 and "claims[0].id" in capsys.readouterr().err


# Values that a case file may hold where a number, an index or a flag is expected: the mutation
# test's values, plus the edges of float64 and of int64 that a checker's own arithmetic meets.
_EDGE_VALUES = [*_BAD, 0, 2**63, "0x1p-1074", "-0x0p+0", "0x1.fffffffffffffp+1023", 1e308]


@pytest.mark.parametrize("exhaustive", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["every field, a quarter of the values", "exhaustive"])
def test_edge_values_anywhere_are_judged_or_malformed_never_a_checker_fault(mutation_pool, exhaustive):
    """Every field of one claim of every checked row (of a list, its first and last item), set to
    each of _EDGE_VALUES (by default a quarter of them per field, chosen by the field's path so
    that every value meets fields of every row; all of them under ``-m slow``, 50 s), read as
    `check` reads a case file: a claim the schema admits is
    judged (Verified, Violated or Undecided) or found malformed by its checker, never a checker
    or oracle fault. The exhaustive form of test_mutated_documents_never_raise, which found a
    claimed sweep index of 2^70 reaching numpy's int64; this one found four more (a zero sample
    normal, a subnormal domain width and a magnitude near float64's largest in an error model,
    a subnormal ProjectionGap): docs/decisions.md, "Claims: an integer beyond int64 is
    malformed" and "Error models: a bound that is not finite leaves the claim Undecided"."""
    from oracles.casefile import CaseFileError, parse_case_text

    faults, judged = [], 0
    for claim in mutation_pool:
        d = json.loads(json.dumps(claim.to_json()))
        for path in [*field_paths(d["inputs"], ("inputs",), True), *field_paths(d["value"], ("value",), True)]:
            turn = zlib.crc32(repr((d["row"], path)).encode())
            for i, value in enumerate(_EDGE_VALUES):
                if not exhaustive and (turn + i) % 4:
                    continue
                m = json.loads(json.dumps(d))
                set_at(m, path, value)
                try:
                    cf = parse_case_text(json.dumps({"format": "claims/1", "claims": [m]}).encode())
                except CaseFileError:
                    continue
                if not cf.claims:
                    continue  # the schema refused it: malformed before any checker
                judged += 1
                try:
                    v = check_claim(cf.claims[0][1])
                except MALFORMED_ERRORS:
                    continue
                if v.kind in (VerdictKind.CheckerError, VerdictKind.OracleFault):
                    faults.append((d["row"], path, value, v.witness))
    assert judged > (1000 if exhaustive else 250)  # not vacuous: most edge values pass the schema somewhere
    assert faults == []


def test_a_claim_whose_error_model_has_no_finite_bound_is_undecided(mutation_pool):
    """docs/decisions.md, "Error models: a bound that is not finite leaves the claim Undecided":
    a domain width of 2^-1074 squares to 0 in the continuity row's second-derivative bound; the
    claim is Undecided (loudly, with the reason), never Verified against +inf nor a fault, the
    same through the one-claim and the batched entry points."""
    from oracles.batch import check_claims
    from oracles.casefile import parse_case_text

    d = json.loads(json.dumps(next(c for c in mutation_pool if c.row == "path.continuity_values").to_json()))
    d["inputs"]["w_in"] = "0x1p-1074"
    claim = parse_case_text(json.dumps({"format": "claims/1", "claims": [d]}).encode()).claims[0][1]
    for v in (check_claim(claim), check_claims([claim])[0]):
        assert v.kind is VerdictKind.Undecided
        assert "no finite bound" in v.note and "inf" in v.note
