"""The integrator's documents are what the code does.

``docs/casefile.md`` (issue 25 item 2 and issue 24: one document for claims/1 and requests/1):

* Rows and their fields (generated): every field of every row has a description (unit, meaning,
  given or computed), every row has a claim the checker verifies and the row's planted false
  claim, which it refutes, each judged here as the document shows it; the section is current.
* Requests and answers (generated parts): every field of ``requests/1`` and ``answers/1`` is
  described, every family documents the ops its requests use and has a worked request whose
  answer ``check`` judges as shown (and a wrong answer it refutes); the sections are current.
* Every worked case file is schema-valid and ``check`` returns the exit status and verdicts
  stated after it.
* The shipped JSON Schemas are current, and their descriptions never stop the compiled fast path.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from oracles.__main__ import main
from oracles.casedoc import (
    DOCS,
    apply_changes,
    check_request_example,
    current_request,
    documented_ops,
    field_rows,
    judge_claims,
    missing_descriptions,
    parse_request_examples,
    parse_row_examples,
    render_section,
)
from oracles.contract import canonical_output
from oracles.families import contract_for, families
from oracles.request import answers_schema, requests_schema
from oracles.rows import ROWS
from oracles.schema import MODEL, ANNOTATIONS, fast_valid, schema_text
from oracles.schema_fast import compile_schema

ROOT = Path(__file__).resolve().parents[2]
CASEFILE = ROOT / "docs" / "casefile.md"
ROWS_DOC = REQUESTS_DOC = CASEFILE
assert DOCS == (CASEFILE,)
REGENERATE = "run: python -m oracles.casedoc"

CHECKED_ROWS = [r.id for r in ROWS if contract_for(r.id) is not None]
REQUEST_FAMILIES = [f.name for f in families() if f.answers_requests]


def _section(text: str, name: str) -> str:
    b, e = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    return text[text.index(b):text.index(e) + len(e)]


# --- docs/casefile.md: the worked case files ------------------------------------------------------

_BLOCK = re.compile(r"```json casefile\n(.*?)```\s*\nExpect: exit (\d); verdicts ([A-Za-z, ]+)\.", re.S)


def _casefile_examples():
    return [(m.group(1), int(m.group(2)), [v.strip() for v in m.group(3).split(",")])
            for m in _BLOCK.finditer(CASEFILE.read_text())]


def test_casefile_has_worked_examples():
    assert len(_casefile_examples()) >= 2


@pytest.mark.parametrize("i", range(len(_casefile_examples())))
def test_worked_case_file_is_judged_as_documented(tmp_path, i):
    body, code, verdicts = _casefile_examples()[i]
    f = tmp_path / "example.json"
    f.write_text(body)
    v = tmp_path / "v.jsonl"
    assert main(["check", str(f), "--out", str(tmp_path / "out"), "--verdicts", str(v)]) == code
    got = [json.loads(line)["verdict"] for line in v.read_text().splitlines()]
    assert got == verdicts


def test_casefile_holds_the_generated_references_and_links_them():
    text = CASEFILE.read_text()
    for section in ("ROW FIELDS", "REQUEST FORMATS", "REQUEST FAMILIES"):
        assert f"<!-- BEGIN {section} -->" in text and f"<!-- END {section} -->" in text
    assert "(#rows-and-their-fields)" in text and "(#requests-and-answers)" in text
    assert "## Rows and their fields" in text and "## Requests and answers" in text


# --- The shipped schemas ---------------------------------------------------------------------------

def test_shipped_schemas_are_current():
    assert (ROOT / "oracles" / "casefile.schema.json").read_text() == schema_text(), \
        "run: python -m oracles schema --out oracles/casefile.schema.json"
    for which, doc in (("requests", requests_schema()), ("answers", answers_schema())):
        shipped = (ROOT / "oracles" / f"{which}.schema.json").read_text()
        assert shipped == json.dumps(doc, indent=1, sort_keys=True) + "\n", \
            f"run: python -m oracles schema --which {which} --out oracles/{which}.schema.json"


def _strip(x):
    """``x`` without annotation keywords (a property *named* like one is kept)."""
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k == "properties":
                out[k] = {name: _strip(s) for name, s in v.items()}
            elif not (k in ANNOTATIONS and isinstance(v, str)):
                out[k] = _strip(v)
        return out
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


_SAMPLES = ["0x1.0000000000000p+0", "0x1.8000000000000p+1", "1", 1, "0.5", "nan", "-0x0.0p+0", True, None,
            [], {}, "Success", "x", ["0x1.0000000000000p+0"] * 3, [["0x0.0p+0"] * 3] * 4,
            {"u": "0x1.0000000000000p-53"}, {"u": "0x1.0000000000000p-52"}, {"bound": "0x1.0000000000000p-60"},
            {"u": "0x1.0000000000000p-24", "k": "0x1.0000000000000p+3"}, {"eta": "0x1.0000000000000p-149"}]


@pytest.mark.parametrize("schema", [MODEL] + [contract_for(rid).inputs for rid in CHECKED_ROWS[:4]]
                         + [contract_for(rid).value for rid in CHECKED_ROWS],
                         ids=["model"] + [f"{r}.inputs" for r in CHECKED_ROWS[:4]]
                         + [f"{r}.value" for r in CHECKED_ROWS])
def test_compiled_predicate_ignores_descriptions(schema):
    """A schema with its descriptions compiles (annotations do not make the compiler give up) and
    decides every sample as the same schema without them."""
    described, bare = compile_schema(schema, {}), compile_schema(_strip(schema), {})
    assert bare is not None and described is not None
    for x in _SAMPLES:
        assert described(x) == bare(x), x


def test_every_rows_example_takes_the_compiled_path():
    """Each row's verified example, read into canonical hex, is passed by the compiled predicate
    (the descriptions leave the fast path of issue 26 in place for every row)."""
    from oracles.casefile import read_claims
    from oracles.schema import FORMAT

    examples = parse_row_examples(ROWS_DOC.read_text())
    for rid in CHECKED_ROWS:
        doc = {"format": FORMAT, "claims": [copy.deepcopy(examples[rid][0].body)]}
        _read, errors, _ = read_claims(doc)
        assert not errors
        assert fast_valid(doc["claims"][0]), rid


# --- Field descriptions ----------------------------------------------------------------------------

@pytest.mark.parametrize("rid", CHECKED_ROWS)
def test_every_field_of_the_row_is_described(rid):
    c = contract_for(rid)
    assert missing_descriptions(c) == []
    # A top-level input says whether the producer copies it from the call (Given) or computed it
    # earlier (Yours); a field a value must echo says so.
    for f in field_rows(c.inputs, "inputs"):
        if re.sub(r"<\d+>", "", f.path).count(".") == 1:
            assert f.doc.startswith(("Given", "Yours")), f.path


def test_model_fields_and_stamps_are_explained():
    assert all(r.doc for r in field_rows({k: v for k, v in MODEL.items() if k != "description"}, "model"))
    assert "0x1p-53" in MODEL["properties"]["u"]["description"] and "eta" in MODEL["properties"]["u"]["description"]
    first_hit = {f.path: f.doc for f in field_rows(contract_for("triangle.first_hit").value, "value")}
    assert first_hit["value<1>.stamp"].startswith("Echo") and "inputs.stamp" in first_hit["value<1>.stamp"]
    assert {"value<1>.t", "value<1>.triangle", "value<1>.position"} <= set(first_hit)
    nearest = {f.path: f.doc for f in field_rows(contract_for("point_search.nearest").value, "value")}
    assert "SQUARED" in nearest["value<1>.distances"]


@pytest.mark.parametrize("which", ["requests", "answers"])
def test_every_request_and_answer_field_is_described(which):
    schema = requests_schema() if which == "requests" else answers_schema()
    assert schema.get("description")
    assert [r.path for r in field_rows(schema, "") if not r.doc] == []


# --- docs/casefile.md: rows ---------------------------------------------------------------------------

def test_rows_section_is_current():
    text = ROWS_DOC.read_text()
    assert _section(text, "ROW FIELDS") == render_section("ROW FIELDS", text), REGENERATE


@pytest.mark.parametrize("rid", CHECKED_ROWS)
def test_row_has_a_verified_and_a_refuted_example(rid):
    ex = parse_row_examples(ROWS_DOC.read_text()).get(rid, [])
    assert ex and ex[0].kind == "claim" and ex[0].verdict == "Verified", REGENERATE
    assert any(e.kind == "changes" and e.verdict == "Violated" for e in ex), REGENERATE


@pytest.mark.parametrize("rid", CHECKED_ROWS)
def test_row_examples_are_judged_as_shown(rid):
    """Every example claim of the row gets the verdict the document states; the refuted one is
    the row's planted false claim (its contract's ``plant``) of the first."""
    from oracles.casefile import read_claims
    from oracles.schema import FORMAT

    ex = parse_row_examples(ROWS_DOC.read_text())[rid]
    claims, prev = [], None
    for e in ex:
        claims.append(e.body if e.kind == "claim" else apply_changes(prev, e.body))
        if e.kind == "claim":
            prev = e.body
    verdicts = judge_claims(claims)
    assert [v.kind.value if v is not None else "Malformed" for v in verdicts] == [e.verdict for e in ex]
    k = next(i for i, e in enumerate(ex) if e.kind == "changes" and e.verdict == "Violated")
    read, errors, _ = read_claims({"format": FORMAT, "claims": [copy.deepcopy(ex[0].body), claims[k]]})
    assert not errors
    planted = contract_for(rid).plant(read[0][1])
    assert canonical_output(planted.to_json()) == canonical_output(read[1][1].to_json())


def test_distance_estimates_says_what_an_estimate_only_producer_submits():
    ex = parse_row_examples(ROWS_DOC.read_text())["distance.estimates"]
    variant = [e for e in ex if e.kind == "changes" and e.verdict == "Verified"]
    assert variant and set(variant[0].body) == {"inputs.lower", "inputs.upper"}
    assert "only an estimate" in variant[0].caption


# --- docs/casefile.md: requests ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["REQUEST FORMATS", "REQUEST FAMILIES"])
def test_requests_sections_are_current(name):
    text = REQUESTS_DOC.read_text()
    assert _section(text, name) == render_section(name, text), REGENERATE


@pytest.mark.parametrize("family", REQUEST_FAMILIES)
def test_family_documents_every_op_its_requests_use(family):
    from oracles.families import family_named

    fam = family_named(family)
    used = {s.op for r in fam.requests(1, min(fam.default_cases, 160)) for s in r.steps}
    assert used <= set(documented_ops(fam))


@pytest.mark.parametrize("family", REQUEST_FAMILIES)
def test_worked_request_is_judged_as_shown(family):
    """Our answer to the family's worked request passes (exit 0, every verdict Verified, nothing
    unanswered); the wrong answer the page shows (a status changed) fails with a Violated status."""
    ex = parse_request_examples(REQUESTS_DOC.read_text()).get(family)
    assert ex is not None, REGENERATE
    assert [r["family"] for r in ex.requests["requests"]] == [family]
    code, lines = check_request_example(ex.requests, ex.answers)
    assert code == 0 and lines and all(x["verdict"] == "Verified" for x in lines)
    assert ex.wrong, "a wrong answer is shown"
    code, lines = check_request_example(ex.requests, apply_changes(ex.answers, ex.wrong))
    assert code == 1
    assert any(x["verdict"] == "Violated" and x["row"] == f"{family}.statuses" for x in lines)


@pytest.mark.parametrize("family", REQUEST_FAMILIES)
def test_worked_request_is_the_corpus_own(family):
    """The worked request is the built-in corpus's request of that id today, as
    ``python -m oracles requests`` writes it (trimmed to the steps shown), and names today's
    corpus size: a request the corpus no longer makes, or one from an older request format, is a
    stale example even while it still judges as shown."""
    from oracles.families import family_named

    fam = family_named(family)
    ex = parse_request_examples(REQUESTS_DOC.read_text())[family]
    assert ex.requests["corpus"] == {family: fam.default_cases}, REGENERATE
    cur = current_request(fam, ex.requests)
    assert cur is not None and cur["requests"] == ex.requests["requests"], REGENERATE


def test_readme_links_the_references():
    text = (ROOT / "README.md").read_text()
    assert "docs/casefile.md" in text and "Requests and answers" in text
