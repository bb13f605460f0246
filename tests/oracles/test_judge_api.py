"""``oracles.judge``: claims judged in process as ``check`` judges a case file (issue 25 item 7).

Expected verdicts come from ``check`` on a case file of the same claims (the command-line path)
and from the rows' planted false claims; numbers written as Python floats and numpy arrays must
read as the hex text the fast path wrote, and malformed claims must never be judged.
"""

from __future__ import annotations

import copy
import json
import re
import typing
from pathlib import Path

import numpy as np
import pytest

import oracles
from oracles.__main__ import main
from oracles.families import contract_for, families
from oracles.model import Claim, Verdict, VerdictKind

ROOT = Path(__file__).resolve().parents[2]
FAMS = {f.name: f for f in families()}


def _claims(name: str, n: int = 2, seed: int = 3) -> list:
    fam = FAMS[name]
    return [c for case in fam.generate(seed, n) for c in fam.claims(case)]


@pytest.fixture(scope="module")
def mixed():
    """Honest claims of four families, one of each row, plus every row's planted false claim."""
    honest, planted = [], []
    for name in ("path", "point_search", "convex_polygon", "triangle"):
        by_row: dict = {}
        for c in _claims(name):
            by_row.setdefault(c.row, c)
        honest += by_row.values()
        planted += [contract_for(r).plant(c) for r, c in by_row.items() if contract_for(r) is not None]
    return honest, planted


def _check_file(tmp_path, claims) -> list:
    f = tmp_path / "claims.json"
    f.write_text(json.dumps({"format": "claims/1", "claims": [c.to_json() for c in claims]}))
    main(["check", str(f), "--out", str(tmp_path / "out"), "--force", "--verdicts", str(tmp_path / "v.jsonl")])
    return [json.loads(x) for x in (tmp_path / "v.jsonl").read_text().splitlines()]


def _key(v: Verdict) -> tuple:
    return (v.claim.row, v.kind.value, v.measure, v.measured, v.note, json.dumps(v.witness, sort_keys=True))


def test_verdicts_are_the_ones_check_gives(tmp_path, mixed):
    honest, planted = mixed
    claims = honest + planted
    got = oracles.judge(claims)
    want = _check_file(tmp_path, claims)
    assert len(got) == len(want) == len(claims)
    for v, w in zip(got, want):
        assert (v.claim.row, v.kind.value, v.measure, v.measured, v.note) == \
            (w["row"], w["verdict"], w["measure"], w["measured"], w["note"])
        assert v.witness == w.get("witness")
    assert {v.kind for v in got[:len(honest)]} == {VerdictKind.Verified}
    assert {v.kind for v in got[len(honest):]} == {VerdictKind.Violated}
    assert all(v.witness is not None for v in got[len(honest):])


def _as_floats(x, arrays: bool):
    """The claim data with hex text as Python floats, and (``arrays``) lists of numbers as numpy
    arrays: what a Python implementation holds before writing anything."""
    if isinstance(x, str) and re.match(r"^-?0x", x):
        return float.fromhex(x)
    if isinstance(x, list):
        items = [_as_floats(v, arrays) for v in x]
        if arrays and items and all(isinstance(v, float) for v in items):
            return np.array(items)
        return items
    if isinstance(x, dict):
        return {k: _as_floats(v, arrays) for k, v in x.items()}
    return x


@pytest.mark.parametrize("arrays", [False, True])
def test_floats_and_numpy_arrays_read_as_the_hex_text(mixed, arrays):
    honest, planted = mixed
    claims = honest + planted
    dicts = [_as_floats(c.to_json(), arrays) for c in claims]
    before = copy.deepcopy(dicts) if not arrays else None
    assert [_key(v) for v in oracles.judge(dicts)] == [_key(v) for v in oracles.judge(claims)]
    if before is not None:
        assert dicts == before  # the caller's data is not touched


def test_a_float64_in_a_float32_field_is_rounded_unless_exact_numbers():
    c = next(c for c in _claims("path", 1) if c.row == "path.stored_endpoints")
    d = c.to_json()
    x = float.fromhex(d["value"][0][0]) + 2.0**-40  # not a float32 (a claimed float32 coordinate)
    bad = {**d, "value": [[x, *d["value"][0][1:]], d["value"][1]]}
    v = oracles.judge([bad])[0]
    assert v.kind is VerdictKind.Verified  # read as the nearest float32: the claimed value again
    with pytest.raises(oracles.MalformedClaims) as e:
        oracles.judge([bad], exact_numbers=True)
    assert e.value.errors[0].path == "claims[0].value[0][0]" and "nearest float32 values" in str(e.value)


def test_malformed_claims_raise_after_the_others_are_judged(mixed):
    honest, planted = mixed
    typo = {"id": "typo", **honest[0].to_json()}
    typo["inputs"] = {**typo["inputs"], "spn": 1}
    # passes the schema, but names a triangle index its checker cannot read
    tri = next(c for c in _claims("triangle") if c.row == "triangle.first_hit").to_json()
    tri = json.loads(json.dumps(tri))
    tri["inputs"]["triangles"][0][0] = 10**6
    tri["id"] = "out of range"
    with pytest.raises(oracles.MalformedClaims) as e:
        oracles.judge([honest[1], typo, planted[0], tri])
    errs = e.value.errors
    assert [(x.claim, x.id) for x in errs] == [(1, "typo"), (3, "out of range")]
    assert errs[0].path == "claims[1].inputs" and "spn" in errs[0].message
    assert errs[1].path == "claims[3]" and "ValueError" in errs[1].message
    kinds = [None if v is None else v.kind for v in e.value.verdicts]
    assert kinds == [VerdictKind.Verified, None, VerdictKind.Violated, None]


@pytest.mark.parametrize("given", ["one claim", "one mapping", "a string", "None", "a number"])
def test_one_claim_or_a_non_list_is_a_type_error_not_a_list_of_malformed_keys(mixed, given):
    honest, _ = mixed
    arg = {"one claim": honest[0], "one mapping": honest[0].to_json(), "a string": "claims.json",
           "None": None, "a number": 5}[given]
    with pytest.raises(TypeError, match=r"judge takes an iterable of claims, not \w+: judge\(\[claim\]\)"):
        oracles.judge(arg)
    assert oracles.judge([honest[0]])[0].kind is VerdictKind.Verified  # the same claim in a list
    assert oracles.judge(iter([honest[0].to_json()]))[0].kind is VerdictKind.Verified  # any iterable


def test_ids_ride_on_the_verdicts(mixed):
    honest, planted = mixed
    labeled = [Claim(c.row, c.guarantee, c.value, c.inputs, c.model, f"mine/{i}") for i, c in enumerate(planted[:3])]
    got = oracles.judge(labeled + [{"id": "dict", **honest[0].to_json()}])
    assert [v.claim.id for v in got] == ["mine/0", "mine/1", "mine/2", "dict"]
    assert got[0].to_json()["id"] == "mine/0"


def test_point_search_verdicts_carry_a_note(mixed):
    honest, planted = mixed
    ps = [c for c in honest + planted if c.row == "point_search.nearest"]
    assert len(ps) == 2
    for v in oracles.judge(ps):
        assert v.note.strip(), v
    honest_ps = oracles.judge([c for c in _claims("point_search", 6) if c.row == "point_search.nearest"])
    assert all(v.note.strip() for v in honest_ps)
    assert any("squared distances" in v.note for v in honest_ps)


def test_typed_and_documented():
    hints = typing.get_type_hints(oracles.judge)
    assert hints["return"] == list[Verdict]
    assert (ROOT / "oracles" / "py.typed").exists()
    assert '"py.typed"' in (ROOT / "pyproject.toml").read_text()
    assert oracles.VerdictKind is VerdictKind and oracles.Claim is Claim
    doc = oracles.judge.__doc__
    assert "Verified" in doc and "Violated" in doc and "Undecided" in doc and "MalformedClaims" in doc


def _documented_snippet() -> str:
    text = (ROOT / "docs" / "casefile.md").read_text()
    section = text[text.index("## Judging in Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_documented_pytest_snippet_passes_and_fails(mixed):
    honest, planted = mixed
    scope: dict = {}
    exec(compile(_documented_snippet(), "docs/casefile.md", "exec"), scope)
    scope["test_control_boxes"](honest)
    with pytest.raises(AssertionError):
        scope["test_control_boxes"](honest + planted[:1])


def _init_takes_its_fields(cls) -> tuple:
    """Assert that a frozen dataclass's hand-written ``__init__`` takes exactly its fields, in
    order, with their defaults (None standing for a fresh ``default_factory()`` value); returns
    the fields."""
    import dataclasses
    import inspect

    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default, f.name
        elif f.default_factory is not dataclasses.MISSING:
            assert p.default is None, f.name
        else:
            assert p.default is inspect.Parameter.empty, f.name
    return fields


def test_the_verdicts_hand_written_init_takes_exactly_its_fields():
    """``oracles.Verdict.__init__`` is written by hand (one dict update instead of a frozen
    dataclass's setattr per field): its parameters must be the dataclass's fields, in order,
    with their defaults, and a verdict built from them must equal one built field by field."""
    import dataclasses

    from oracles.model import Claim, Verdict, VerdictKind
    from reference.status import GuaranteeClass

    fields = _init_takes_its_fields(Verdict)
    c = Claim("path.control_boxes", GuaranteeClass.Exact, 1, {})
    v = Verdict(VerdictKind.Verified, c)
    assert all(getattr(v, f.name) == (f.default if f.default is not dataclasses.MISSING else
                                      f.default_factory() if f.default_factory is not dataclasses.MISSING else
                                      getattr(v, f.name)) for f in fields)
    assert v.extra == {} and v.extra is not Verdict(VerdictKind.Verified, c).extra  # not shared
    w = dataclasses.replace(v, rule="x", unmet=("d",))
    assert (w.rule, w.unmet, w.claim, w.kind) == ("x", ("d",), c, VerdictKind.Verified)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.note = "changed"


def test_the_claims_hand_written_init_takes_exactly_its_fields():
    """``oracles.Claim.__init__`` is written by hand too (a case file builds one claim per
    entry): its parameters must be the dataclass's fields, in order, with their defaults; a
    claim built positionally equals one built by keyword, ``dataclasses.replace`` works, and the
    claim stays frozen."""
    import dataclasses

    from oracles.model import Claim
    from reference.status import GuaranteeClass

    _init_takes_its_fields(Claim)
    a = Claim("path.control_boxes", GuaranteeClass.Exact, [1], {"u": "0x0.0p+0"}, None, "t", True)
    b = Claim(row="path.control_boxes", guarantee=GuaranteeClass.Exact, value=[1], inputs={"u": "0x0.0p+0"},
              id="t", decisions=True)
    assert a == b and (a.model, a.id, a.decisions) == (None, "t", True)
    c = Claim("path.control_boxes", GuaranteeClass.Exact, [1], {})
    assert (c.model, c.id, c.decisions) == (None, None, False) and c != a
    assert dataclasses.replace(a, decisions=False) == Claim("path.control_boxes", GuaranteeClass.Exact, [1],
                                                            {"u": "0x0.0p+0"}, None, "t", False)
    assert Claim.from_json(a.to_json()) == a
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.row = "path.tangents"
