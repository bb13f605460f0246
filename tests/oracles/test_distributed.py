"""The ledger on Dask (oracles.distributed): byte-identical whatever the worker count.

One LocalCluster test per command (starting worker processes takes seconds, so the corpus is
small): ``ledger.json`` without ``seconds`` is byte-identical for ``--workers 1``,
``--workers 2`` and the serial run; ``check --workers 2`` matches the serial ``check``. The
chunk merge is also tested without Dask against one-by-one adds, with planted Violated claims
so witness order, index offsets and worst records are exercised.
"""

from __future__ import annotations

import json
import sys

import pytest

from oracles.__main__ import main
from oracles.ledger import RowTally, check_claim, select_families

pytest.importorskip("distributed")

FAMS = ["--family", "track", "--family", "triangle"]


def _ledger_bytes(out):
    data = json.loads((out / "ledger.json").read_text())
    data.pop("seconds", None)
    return json.dumps(data, indent=1).encode()


def test_ledger_is_byte_identical_for_one_and_two_workers(tmp_path, capsys):
    outs = {}
    for name, extra in (("serial", []), ("w1", ["--workers", "1"]), ("w2", ["--workers", "2"])):
        code = main(["ledger", "--cases", "50", *FAMS, "--out", str(tmp_path / name), *extra])
        assert code == 0
        outs[name] = _ledger_bytes(tmp_path / name)
    assert outs["w1"] == outs["w2"]
    assert outs["w1"] == outs["serial"]
    assert json.loads(outs["w2"])["totals"]["claims"] > 100


def test_check_on_two_workers_matches_serial_check(tmp_path, capsys):
    cf = tmp_path / "claims.json"
    assert main(["claims", "--cases", "20", "--family", "track", "--out", str(cf)]) == 0
    assert main(["check", str(cf), "--out", str(tmp_path / "a")]) == 0
    assert main(["check", str(cf), "--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    assert _ledger_bytes(tmp_path / "a") == _ledger_bytes(tmp_path / "b")


def test_merge_equals_one_by_one_adds_with_violations():
    fam = next(f for f in select_families(["track"]))
    verdicts = []
    for k, case in enumerate(fam.generate(3, 30)):
        for c in fam.claims(case):
            contract = fam.contracts.get(c.row)
            bad = contract.plant(c) if contract is not None and (len(verdicts) % 7 == 0) else c
            verdicts.append(((fam.name, k), check_claim(bad)))
    assert any(v.kind.value == "Violated" for _, v in verdicts)
    serial = {}
    for i, (key, v) in enumerate(verdicts):
        serial.setdefault(v.claim.row, RowTally(v.claim.row)).add(v, i, key)
    merged = {}
    for lo in range(0, len(verdicts), 11):  # chunks of 11 claims, indices local to the chunk
        part = {}
        for j, (key, v) in enumerate(verdicts[lo:lo + 11]):
            part.setdefault(v.claim.row, RowTally(v.claim.row)).add(v, j, key)
        for rid, t in part.items():
            merged.setdefault(rid, RowTally(rid)).merge(t, lo)
    assert sorted(serial) == sorted(merged)
    for rid in serial:
        assert json.dumps(merged[rid].to_json(), sort_keys=True) == json.dumps(serial[rid].to_json(), sort_keys=True)


def test_missing_dask_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code = main(["ledger", "--cases", "1", "--family", "track", "--out", str(tmp_path), "--workers", "2"])
    assert code == 2
    assert "pip install -e .[dask]" in capsys.readouterr().err


def test_workers_and_scheduler_are_exclusive(tmp_path, capsys):
    code = main(["ledger", "--cases", "1", "--family", "track", "--out", str(tmp_path),
                 "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"])
    assert code == 2
    assert "not both" in capsys.readouterr().err
