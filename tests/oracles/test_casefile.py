"""Hand-made case files, as a CI job that judges another implementation writes them: planted
errors of each family, malformed files of every kind, decimal and hex numbers, exit-code
precedence, JSON Lines and JUnit reports, and a hypothesis mutation test (never a traceback,
malformed input is exit 2 with a field path)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from oracles.__main__ import main
from oracles.checks import contract_for, families
from oracles.ledger import check_claim
from oracles.model import VerdictKind

from ..profiles import examples

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
    assert led["totals"] == {"claims": len(claims), "violated": 0, "undecided": 0, "faults": 0, "malformed": 0}


MALFORMED = {
    "hex without 0x": ("inputs", "1.8p1", "not a number"),
    "inexact decimal": ("inputs", "0.1", "not exactly representable"),
    "decimal overflow": ("inputs", "1e400", "overflows"),
    "boolean number": ("inputs", True, ""),
    "nested list": ("inputs", [["0x1p0"]], ""),
}


def _number_paths(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _number_paths(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _number_paths(v, path + (i,))
    elif isinstance(x, str) and x.lstrip("-").startswith("0x"):
        yield path


def _set(doc, path, value):
    d = doc
    for p in path[:-1]:
        d = d[p]
    d[path[-1]] = value


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_malformed_numbers_name_the_field(tmp_path, capsys, track_claims, kind):
    _, value, reason = MALFORMED[kind]
    d = _json(_first(track_claims, "track.values"))
    path = next(_number_paths(d["inputs"]))
    _set(d["inputs"], path, value)
    code, _ = _run(tmp_path, _doc([d]))
    err = capsys.readouterr().err
    assert code == 2
    want = "claims[0].inputs" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    assert want in err and reason in err


@pytest.mark.parametrize("raw, needle", [
    ('{"format": "claims/1", "claims": [{"row": "track.values", "guarantee": "Rounded", "value": 1e308, '
     '"inputs": {}}]}', "claims[0]"),
    ('{"format": "claims/1", "claims": [], "claims": []}', "duplicate key"),
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

_BAD_VALUES = st.sampled_from(["0.1", "1e400", "0x", "nan", "-inf", True, None, [], {}, "Degenerate",
                               "0x1p99999", "1/0", -1, 2**70, "", "x", [["0x1p0"]]])


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
        paths = list(_all_paths(d["inputs"], ("inputs",))) + list(_all_paths(d["value"], ("value",)))
        if not paths or (kind == "add" and draw(st.booleans())):
            target = d["inputs"]
            target[draw(st.sampled_from(["spn", "extra", "u2"]))] = 1
            surely_malformed = True
        else:
            path = draw(st.sampled_from(paths))
            if kind == "set":
                _set(d, path, draw(_BAD_VALUES))
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


def _all_paths(x, path):
    if isinstance(x, dict):
        for k, v in x.items():
            yield path + (k,)
            yield from _all_paths(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield path + (i,)
            yield from _all_paths(v, path + (i,))


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

    from oracles.schema import SCHEMA_PATH, _claim_number, _leaf_errors, field_path

    plain = validators.extend(Draft202012Validator, {"claimNumber": _claim_number})
    v = plain(json.loads(SCHEMA_PATH.read_text()))
    return {(field_path(leaf.absolute_path), leaf.message) for err in v.iter_errors(doc) for leaf in _leaf_errors(err)}


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
