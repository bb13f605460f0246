"""Bad command-line arguments are refused before any work, with exit 2 and a message naming the
option, and change nothing (docs/decisions.md "Output paths checked first", "Corpus size and
seeds checked first"): outputs that cannot be written (a directory where a file goes, a file
where a directory goes or where a directory would have to be made, an output that is the
command's own input), corpus counts past MAX_SCALE times a family's default (met with equality
they are accepted), and negative seeds. Missing directories of an output are made."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

import oracles.batch
from oracles.__main__ import main
from oracles.casefile import write_claims
from oracles.families import families
from oracles.ledger import MAX_SCALE, case_count

FAMS = {f.name: f for f in families()}


@pytest.fixture()
def case_file(tmp_path):
    track = FAMS["track"]
    claims = [c for case in track.generate(3, 2) for c in track.claims(case)]
    path = tmp_path / "cases.json"
    write_claims(path, claims, "test")
    return path


@pytest.fixture()
def no_judging(monkeypatch):
    """A refusal must come before any claim is judged: judging fails the test."""

    def judged(*a, **k):
        raise AssertionError("a claim was judged")

    monkeypatch.setattr(oracles.batch, "check_claims", judged)


def _listing(root):
    return sorted((str(p.relative_to(root)), p.read_bytes() if p.is_file() else None) for p in root.rglob("*"))


@pytest.mark.parametrize("args, message", [
    (["--verdicts", "{tmp}/cases.json/v.jsonl"], "--verdicts {tmp}/cases.json/v.jsonl: {tmp}/cases.json is not a "),
    (["--junit", "{tmp}/cases.json/a/j.xml"], "--junit {tmp}/cases.json/a/j.xml: {tmp}/cases.json is not a "),
    (["--verdicts", "{tmp}"], "--verdicts {tmp}: is a directory; name a file"),
    (["--junit", "{tmp}"], "--junit {tmp}: is a directory; name a file"),
    (["--verdicts", "{tmp}/cases.json"], "--verdicts {tmp}/cases.json: is an input of this command"),
    (["--junit", "{tmp}/cases.json"], "--junit {tmp}/cases.json: is an input of this command"),
    (["--out", "{tmp}/cases.json"], "--out {tmp}/cases.json: exists and is not a directory"),
    (["--out", "{tmp}/cases.json/deeper"], "--out {tmp}/cases.json/deeper: {tmp}/cases.json is not a directory"),
])
def test_check_refuses_an_unwritable_output_before_judging_and_changes_nothing(tmp_path, case_file, capsys,
                                                                              no_judging, args, message):
    before = _listing(tmp_path)
    argv = ["check", str(case_file), "--out", str(tmp_path / "out")] + [a.format(tmp=tmp_path) for a in args]
    assert main(argv) == 2
    assert message.format(tmp=tmp_path) in capsys.readouterr().err
    assert _listing(tmp_path) == before  # the input's bytes kept, no ledger, no report


def test_an_output_that_is_the_input_by_another_name_is_refused(tmp_path, case_file, capsys, no_judging):
    other = tmp_path / "sub" / ".." / "cases.json"
    (tmp_path / "sub").mkdir()
    before = case_file.read_bytes()
    assert main(["check", str(case_file), "--out", str(tmp_path / "out"), "--verdicts", str(other)]) == 2
    assert "is an input of this command" in capsys.readouterr().err
    assert case_file.read_bytes() == before


def test_the_answers_check_refuses_writing_over_its_request_file(tmp_path, capsys):
    req, ans = tmp_path / "req.json", tmp_path / "ans.json"
    assert main(["requests", "--cases", "2", "--family", "track", "--out", str(req)]) == 0
    assert main(["answer", str(req), "--out", str(ans)]) == 0
    before = req.read_bytes()
    assert main(["check", str(ans), "--requests", str(req), "--out", str(tmp_path / "o"),
                 "--verdicts", str(req)]) == 2
    assert "is an input of this command" in capsys.readouterr().err
    assert req.read_bytes() == before
    assert not (tmp_path / "o").exists()


_TRACK = ["ledger", "--family", "track", "--cases", "1"]


@pytest.mark.parametrize("argv, option", [
    (_TRACK + ["--out", "{tmp}/l", "--verdicts", "{tmp}/f.txt/v.jsonl"], "--verdicts"),
    (_TRACK + ["--out", "{tmp}/f.txt"], "--out"),
    (_TRACK + ["--out", "{tmp}/l", "--plots", "{tmp}/f.txt"], "--plots"),
    (["claims", "--family", "track", "--cases", "1", "--out", "{tmp}/f.txt/c.json"], "--out"),
    (["requests", "--family", "track", "--cases", "1", "--out", "{tmp}"], "--out"),
    (["schema", "--out", "{tmp}/f.txt/s.json"], "--out"),
    (["answer", "{tmp}/f.txt", "--out", "{tmp}/f.txt"], "--out"),
    (["explain", "--row", "track.values", "--plot", "{tmp}/f.txt/p.png"], "--plot"),
])
def test_every_command_checks_its_outputs_first(tmp_path, capsys, argv, option):
    (tmp_path / "f.txt").write_text("kept")
    before = _listing(tmp_path)
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {option} ")
    assert _listing(tmp_path) == before


def test_missing_directories_of_outputs_are_made(tmp_path, case_file):
    out, v, j = tmp_path / "a" / "b" / "c", tmp_path / "d" / "v.jsonl", tmp_path / "e" / "f" / "j.xml"
    assert main(["check", str(case_file), "--out", str(out), "--verdicts", str(v), "--junit", str(j)]) == 0
    assert json.loads((out / "ledger.json").read_text())["run"]["source"] == str(case_file)
    assert v.read_text().count("\n") == len(json.loads(case_file.read_text())["claims"])
    assert j.read_text().startswith("<?xml")
    c = tmp_path / "g" / "claims.json"
    assert main(["claims", "--family", "track", "--cases", "1", "--out", str(c)]) == 0
    assert json.loads(c.read_text())["claims"]


# --- corpus size and seeds ------------------------------------------------------------------------


def test_case_count_is_bounded_by_max_scale_times_the_default_met_with_equality():
    fam = SimpleNamespace(name="toy", default_cases=7)
    assert case_count(fam, MAX_SCALE * 7) == MAX_SCALE * 7
    assert case_count(fam, 0) == 0
    assert case_count(fam, None, MAX_SCALE) == MAX_SCALE * 7
    for cases, scale in ((MAX_SCALE * 7 + 1, 1), (-1, 1), (None, MAX_SCALE + 1), (None, 0), (None, -3)):
        with pytest.raises(ValueError, match=r"--scale|--cases"):
            case_count(fam, cases, scale)


@pytest.mark.parametrize("argv, needle", [
    (["ledger", "--cases", "10000000000", "--family", "path", "--out", "{tmp}/l"],
     "--cases 10000000000: family path draws 0 to"),
    (["ledger", "--scale", str(MAX_SCALE + 1), "--out", "{tmp}/l"], f"--scale {MAX_SCALE + 1}: from 1 to {MAX_SCALE}"),
    (["requests", "--cases", "10000000000", "--family", "track", "--out", "{tmp}/r.json"], "family track draws 0 to"),
    (["claims", "--cases", "10000000000", "--family", "track", "--out", "{tmp}/c.json"], "family track draws 0 to"),
    (["mesh-export", "0", "--cases", "10000000000", "--out", "{tmp}/m.obj"], "family tessellation draws 0 to"),
    (["explain", "--row", "path.tangents", "--case", "10000000000"], "family path has no case 10000000000"),
    (["explain", "--index", "0", "--cases", "10000000000", "--family", "track"], "family track draws 0 to"),
])
def test_a_huge_count_is_refused_at_once(tmp_path, capsys, argv, needle):
    # Without the limit each of these would first make 1e10 cases (memory, hours).
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    assert needle in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [
    ["ledger", "--family", "track", "--cases", "1"], ["claims", "--family", "track", "--out", "c.json"],
    ["requests", "--family", "track", "--out", "r.json"], ["explain", "--row", "track.values"],
    ["mesh-export", "0", "--out", "m.obj"],
])
def test_a_negative_seed_is_a_usage_error(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(command + ["--seed", "-5"])
    assert e.value.code == 2
    assert "argument --seed: must be nonnegative" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
