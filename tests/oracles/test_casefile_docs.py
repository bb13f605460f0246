"""docs/casefile.md is what the code does: its generated row-field section is current, every
worked example is a schema-valid case file whose stated exit status and verdicts are what
`python -m oracles check` returns, and every family with a checker has an example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from oracles.__main__ import main
from oracles.casedoc import BEGIN, END, render_row_fields
from oracles.checks import families
from oracles.schema import schema_text

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "casefile.md"

_BLOCK = re.compile(r"```json casefile\n(.*?)```\s*\nExpect: exit (\d); verdicts ([A-Za-z, ]+)\.", re.S)


def _examples():
    return [(m.group(1), int(m.group(2)), [v.strip() for v in m.group(3).split(",")])
            for m in _BLOCK.finditer(DOC.read_text())]


def test_row_field_section_is_generated_from_the_contracts():
    text = DOC.read_text()
    section = text[text.index(BEGIN):text.index(END) + len(END)]
    assert section == render_row_fields(), "run: python -m oracles schema --docs docs/casefile.md"


def test_shipped_schema_is_current():
    shipped = ROOT / "oracles" / "casefile.schema.json"
    assert shipped.read_text() == schema_text(), "run: python -m oracles schema --out oracles/casefile.schema.json"


def test_every_family_has_a_worked_example():
    rows = {json.loads(body)["claims"][0]["row"].split(".")[0] for body, _, _ in _examples()}
    missing = sorted({f.name for f in families() if f.contracts} - rows)
    assert not missing, f"no worked example for families {missing}"


@pytest.mark.parametrize("i", range(len(_examples())))
def test_worked_example_is_judged_as_documented(tmp_path, i):
    body, code, verdicts = _examples()[i]
    f = tmp_path / "example.json"
    f.write_text(body)
    v = tmp_path / "v.jsonl"
    assert main(["check", str(f), "--out", str(tmp_path / "out"), "--verdicts", str(v)]) == code
    got = [json.loads(line)["verdict"] for line in v.read_text().splitlines()]
    assert got == verdicts
