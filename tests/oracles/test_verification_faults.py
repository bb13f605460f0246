"""Faults of the verification itself never kill the ledger: a checker that raises is a
``CheckerError`` verdict, two oracles that disagree are an ``OracleFault``, a fast path that
raises on a corpus case is a producer error; the ledger is still written and the exit status
(4) says so, below Violated (1) and above malformed (2). Also the ledger's ``bound_use``
(how close the worst claim came to its bound) and the enclosure-overlap helper."""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
from fractions import Fraction

import gmpy2
import numpy as np
import mpmath
import pytest

from oracles import families as checks
from oracles.__main__ import EXIT_FAULT, EXIT_MALFORMED, EXIT_OK, EXIT_VIOLATED, main
from oracles.decide import enclosures_overlap, endpoints, exact
from oracles.family import Family
from oracles.ledger import Ledger, RowTally, check_claim, judge, run_corpus
from oracles.model import Claim, VerdictKind, checker_error, oracle_fault, verified, violated

ROW = "track.values"


def _quiet(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def track_claims():
    fam = next(f for f in checks.families() if f.name == "track")
    return [c for case in fam.generate(1, 3) for c in fam.claims(case) if c.row == ROW]


@pytest.fixture
def raising_checker(monkeypatch):
    """Make the track.values checker raise OverflowError on every second claim it sees."""
    real = checks.checker_for(ROW)
    seen = {"n": 0}

    def flaky(claim):
        seen["n"] += 1
        if seen["n"] % 2 == 0:
            return float(10 ** 400)  # OverflowError, as float(err / bound) did on Step spans
        return real(claim)

    monkeypatch.setitem(checks.family_named("track").checkers, ROW, flaky)
    checks._row_checker.cache_clear()  # per-row lookups are cached
    yield seen
    checks._row_checker.cache_clear()


def test_a_raising_checker_is_a_checker_error_not_a_crash(track_claims, raising_checker):
    verdicts = [check_claim(c) for c in track_claims[:4]]
    kinds = [v.kind for v in verdicts]
    assert kinds[1] is VerdictKind.CheckerError and kinds[3] is VerdictKind.CheckerError
    assert kinds[0] is VerdictKind.Verified and kinds[2] is VerdictKind.Verified
    w = verdicts[1].witness
    assert w["error"].startswith("OverflowError")
    assert any("test_verification_faults.py" in f for f in w["traceback"])


def test_the_ledger_still_writes_and_exits_4(tmp_path, raising_checker):
    code, _out, err = _quiet(["ledger", "--family", "track", "--cases", "3", "--out", str(tmp_path / "o"),
                             "--junit", str(tmp_path / "j.xml")])
    assert code == EXIT_FAULT
    led = json.loads((tmp_path / "o" / "ledger.json").read_text())
    row = next(r for r in led["rows"] if r["id"] == ROW)
    assert row["faults"] > 0 and row["faults"] == len(row["fault_claims"])
    assert row["verified"] + row["faults"] == row["claims"]
    assert row["fault_records"][0]["kind"] == "CheckerError"
    assert led["totals"]["faults"] == row["faults"]
    assert "fault: claim" in err and "OverflowError" in err
    md = (tmp_path / "o" / "ledger.md").read_text()
    assert "Faults of the verification" in md
    errors = ET.parse(tmp_path / "j.xml").getroot().findall(".//testcase[@name='track.values']/error")
    assert len(errors) == row["faults"] and errors[0].get("type") == "CheckerError"


def test_a_checker_error_on_a_case_file_claim_is_not_malformed(tmp_path, track_claims, raising_checker):
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"format": "claims/1", "claims": [c.to_json() for c in track_claims[:2]]}))
    code, _, err = _quiet(["check", str(f), "--out", str(tmp_path / "o")])
    assert code == EXIT_FAULT, err
    led = json.loads((tmp_path / "o" / "ledger.json").read_text())
    assert led["totals"]["malformed"] == 0 and led["totals"]["faults"] == 1


def test_violated_outranks_a_fault_and_a_fault_outranks_malformed(tmp_path, track_claims, raising_checker):
    honest = track_claims[0]
    lie = checks.contract_for(ROW).plant(honest)
    assert check_claim(lie).kind is VerdictKind.Violated  # first call: the real checker
    raising_checker["n"] = 0
    f = tmp_path / "c.json"
    bad = {**honest.to_json(), "inputs": {**honest.inputs, "nonsense": 1}}
    # claims: lie (checked, Violated), honest (raises), malformed
    f.write_text(json.dumps({"format": "claims/1", "claims": [lie.to_json(), honest.to_json(), bad]}))
    code, _, _ = _quiet(["check", str(f), "--out", str(tmp_path / "a")])
    assert code == EXIT_VIOLATED
    raising_checker["n"] = 1  # the next call raises
    f.write_text(json.dumps({"format": "claims/1", "claims": [honest.to_json(), bad]}))
    code, _, _ = _quiet(["check", str(f), "--out", str(tmp_path / "b")])
    assert code == EXIT_FAULT
    raising_checker["n"] = 0  # the next call is judged
    code, _, _ = _quiet(["check", str(f), "--out", str(tmp_path / "c")])
    assert code == EXIT_MALFORMED


def test_a_malformed_error_on_our_own_claim_is_a_checker_error(track_claims):
    c = track_claims[0]
    broken = Claim(c.row, c.guarantee, c.value, {**c.inputs, "keys": []}, c.model)
    with pytest.raises(Exception):
        check_claim(broken)  # a case file's claim: malformed, raised to the caller
    v = judge(broken)  # the built-in corpus: the fast path never makes malformed claims
    assert v.kind is VerdictKind.CheckerError and "malformed" in v.note


def test_a_raising_fast_path_is_a_producer_error(monkeypatch, tmp_path):
    track = next(f for f in checks.families() if f.name == "track")

    def claims(case):
        it = iter(track.claims(case))
        yield next(it)
        raise ZeroDivisionError("planted")

    fake = Family(name="track", default_cases=2, generate=track.generate, claims=claims,
                  checkers=track.checkers, contracts=track.contracts)
    monkeypatch.setattr("oracles.ledger.select_families", lambda only=(): [fake])
    led = run_corpus(1, 2)
    assert [e.case for e in led.producer_errors] == [0, 1]
    assert led.producer_errors[0].claims_before == 1 and led.judged == 2
    assert led.faults == 2 and led.producer_errors[0].summary["error"] == "ZeroDivisionError: planted"
    code, _out, err = _quiet(["ledger", "--cases", "2", "--out", str(tmp_path / "o")])
    assert code == EXIT_FAULT
    assert "the fast path raised on track case 0" in err
    saved = json.loads((tmp_path / "o" / "ledger.json").read_text())
    assert saved["producer_errors"][1]["case"] == 1


def test_oracle_faults_are_counted_and_shown(track_claims):
    c = track_claims[0]
    led = Ledger(seed=None, source="test")
    led.add(oracle_fault(c, {"taylor": ["0x1p+0", "0x1.8p+0"], "arb": ["0x1p+1", "0x1.8p+1"]}), 0)
    led.add(verified(c, measure="error_ratio", measured=0.5, bound_use=0.5), 1)
    t = led.tallies[ROW]
    assert (t.faults, t.verified, led.faults) == (1, 1, 1)
    assert t.fault_records[0]["kind"] == "OracleFault"
    assert t.fault_records[0]["witness"]["enclosures"]["arb"] == ["0x1p+1", "0x1.8p+1"]


def test_bound_use_is_the_largest_and_survives_the_merge(track_claims):
    c = track_claims[0]
    a, b, whole = RowTally(ROW), RowTally(ROW), RowTally(ROW)
    seq = [0.25, 0.75, None, 0.5, 1.5, 0.1]
    for i, u in enumerate(seq):
        v = (verified(c, bound_use=u) if u is None or u <= 1
             else violated(c, {"x": 1}, bound_use=u))
        (a if i < 3 else b).add(v, i if i < 3 else i - 3)
        whole.add(v, i)
    a.merge(b, offset=3)
    assert a.closest == whole.closest == {"bound_use": 1.5, "claim": 4}
    assert RowTally(ROW).to_json()["closest_to_bound"] is None


def test_a_ratio_beyond_float64_is_inf_not_a_crash(track_claims):
    v = verified(track_claims[0], measured=Fraction(10 ** 400), bound_use=Fraction(-(10 ** 400)))
    assert v.measured == float("inf") and v.bound_use == float("-inf")


def test_checker_error_summary_names_the_exception(track_claims):
    try:
        1 / 0
    except ZeroDivisionError as e:
        v = checker_error(track_claims[0], e)
    assert v.kind is VerdictKind.CheckerError
    assert v.witness["error"] == "ZeroDivisionError: division by zero"
    assert v.witness["traceback"][-1].startswith("tests/oracles/test_verification_faults.py:")


# --- enclosure overlap: exact endpoints of every kind an oracle returns ----------------------


def test_exact_endpoints_of_every_kind():
    flint = pytest.importorskip("flint")
    third = gmpy2.mpq(1, 3)
    assert exact(3) == 3 and exact(0.1) == gmpy2.mpq(0.1) and exact(Fraction(1, 3)) == third
    assert exact(mpmath.mpf("0.1")) == gmpy2.mpq(*mpmath.mpf("0.1").as_integer_ratio())
    b = flint.arb(1) / 3
    lo, hi = endpoints(b)
    assert lo < third < hi and hi - lo < gmpy2.mpq(1, 2 ** 50)
    with mpmath.workprec(53):
        iv = mpmath.iv.mpf(1) / 3
    ilo, ihi = endpoints(iv)
    assert ilo < third < ihi
    with pytest.raises(ValueError):
        exact(float("nan"))
    with pytest.raises(ValueError):
        endpoints((2, 1))
    with pytest.raises(TypeError):
        exact("1/3")


def test_overlap_is_exact_at_a_shared_endpoint():
    q = gmpy2.mpq(1, 3)
    assert enclosures_overlap((0, q), (q, 1))  # touching intervals share the point 1/3
    assert not enclosures_overlap((0, q), (q + gmpy2.mpq(1, 10 ** 30), 1))
    assert enclosures_overlap(mpmath.iv.mpf([-1, "inf"]), (10 ** 9, 10 ** 9 + 1))
    assert not enclosures_overlap((float("-inf"), 0), (gmpy2.mpq(1, 10 ** 40), 1))


def test_ratio_never_raises():
    from oracles.errormodel import ratio

    tiny = gmpy2.mpq(1, 2 ** 1074)
    assert ratio(1, tiny * 16) == float("inf")  # the Step-span bound: an ordinary error overflows
    assert ratio(tiny, 2 ** 100) == 0.0  # below the smallest subnormal
    assert ratio(0, 0) == 0.0 and ratio(1, 0) == float("inf")
    assert ratio(gmpy2.mpq(2 ** 1024 - 2 ** 969), 1) == float("inf")  # rounds past float64 max
    assert ratio(3, 4) == 0.75 and ratio(Fraction(1, 3), 1) == 1 / 3
    with pytest.raises(ValueError):
        ratio(-1, 2)


def test_scale_multiplies_every_default_and_excludes_cases(tmp_path):
    from oracles.ledger import corpus_run

    fams = [f for f in checks.families() if f.name in ("track", "convex_polygon")]
    run = corpus_run(1, None, fams, scale=3)
    assert run["corpus"] == {f.name: 3 * f.default_cases for f in fams}
    assert corpus_run(1, None, fams) == corpus_run(1, None, fams, scale=1)  # the default run's identity
    code, _, err = _quiet(["ledger", "--cases", "2", "--scale", "2", "--out", str(tmp_path / "o")])
    assert code == EXIT_MALFORMED and "--scale" in err
    code, out, _ = _quiet(["ledger", "--family", "convex_polygon", "--scale", "2", "--out", str(tmp_path / "p")])
    led = json.loads((tmp_path / "p" / "ledger.json").read_text())
    assert code == EXIT_OK and led["run"]["corpus"] == {"convex_polygon": 2 * fams[0].default_cases}
    assert "peak memory" in out


# --- Two oracles under frame.regularity and tessellation.position_bound (issue 23 item 4) -----

_LAST_CERTIFIED = [("frame", "frame.regularity"), ("tessellation", "tessellation.position_bound")]


def _row(tmp_path, row):
    led = json.loads((tmp_path / "ledger.json").read_text())
    return led, next(r for r in led["rows"] if r["id"] == row)


@pytest.mark.parametrize("family,row", _LAST_CERTIFIED)
def test_the_ledger_header_names_both_oracles_of_the_last_certified_rows(tmp_path, family, row):
    code, _, _ = _quiet(["ledger", "--family", family, "--cases", "1", "--out", str(tmp_path)])
    assert code == EXIT_OK
    led, _ = _row(tmp_path, row)
    names = led["oracle"]["rows"][row]
    assert len(names) == 2 and any("Arb" in n for n in names), names
    assert all(n in (tmp_path / "ledger.md").read_text() for n in names)


def _narrow_the_context_reader(monkeypatch):
    """Plant a fault in the interval context's exact reader as the exact (Bernstein) oracles of
    both rows see it: ``to_mpq`` reads a float64 through float32 (the fast path's narrowing,
    misapplied to a claim's values). Controls, vertices and dyadic parameters are float32 values
    and read unchanged; a MinimumSpeed or a claimed bound moves by up to half an ulp32, so only
    the corpus's near-threshold cases can show it (issue 23 item 4)."""
    import interval.context as IC

    real = IC.to_mpq

    def narrowed(x):
        if isinstance(x, (float, np.floating)):
            return real(float(np.float32(x)))
        return real(x)

    for mod in ("interval.context", "interval.frame", "interval.arclength", "interval.tessellation"):
        monkeypatch.setattr(f"{mod}.to_mpq", narrowed)


@pytest.mark.parametrize("family,row", _LAST_CERTIFIED)
def test_a_context_fault_under_the_last_certified_rows_is_an_oracle_fault(monkeypatch, tmp_path, family, row):
    # The row's claims of the default corpus, made before the fault is planted, judged through
    # the CLI (the same reader narrows other rows' inputs too, which then fail as Violated).
    fam = next(f for f in checks.families() if f.name == family)
    made = [c for case in fam.generate(1, fam.default_cases) for c in fam.claims(case) if c.row == row]
    f = tmp_path / "claims.json"
    f.write_text(json.dumps({"format": "claims/1", "claims": [c.to_json() for c in made]}))
    _narrow_the_context_reader(monkeypatch)
    code, _, err = _quiet(["check", str(f), "--out", str(tmp_path)])
    _led, r = _row(tmp_path, row)
    assert code == EXIT_FAULT, err[-2000:]
    assert r["faults"] > 0 and r["violated"] == 0
    assert {f["kind"] for f in r["fault_records"]} == {"OracleFault"}
    # the near-threshold cases are where it shows: the two oracles decide the claim differently
    decisions = [f["witness"]["enclosures"] for f in r["fault_records"]
                 if isinstance(next(iter(f["witness"]["enclosures"].values())), dict)]
    assert decisions and all({e["holds"] for e in d.values()} == {True, False} for d in decisions)


def _faulty_arb_speed(controls):
    """The Arb oracle's speed polynomial with ``2 u (1 - u)`` written ``u (1 - u)`` (a dropped
    factor of the middle Bernstein derivative basis)."""
    from flint import fmpq_poly

    import interval.arb_frame as AF

    P = AF._controls(controls)
    basis = (fmpq_poly([1, -2, 1]), fmpq_poly([0, 1, -1]), fmpq_poly([0, 0, 1]))
    f = fmpq_poly([])
    for c in range(3):
        comp = fmpq_poly([])
        for k in range(3):
            comp += basis[k] * (3 * (P[k + 1][c] - P[k][c]))
        f += comp * comp
    return f


def _swapped_arb_corners(real):
    """The Arb tessellation oracle with the vertices at (u1, v0) and (u0, v1) swapped."""
    return lambda A, u0, u1, v0, v1, V00, V10, V01, V11: real(A, u0, u1, v0, v1, V00, V01, V10, V11)


@pytest.mark.parametrize("family,row", _LAST_CERTIFIED)
def test_a_fault_in_the_arb_enclosure_is_an_oracle_fault(monkeypatch, tmp_path, family, row):
    if family == "frame":
        monkeypatch.setattr("interval.arb_frame.speed_squared_poly", _faulty_arb_speed)
    else:
        import interval.arb_tessellation as AT

        monkeypatch.setattr(AT, "cell_differences", _swapped_arb_corners(AT.cell_differences))
    # the first twelve requests (named cases) carry claims of both rows; the whole corpus took 16 s
    code, _, err = _quiet(["ledger", "--family", family, "--cases", "12", "--out", str(tmp_path)])
    _led, r = _row(tmp_path, row)
    assert code == EXIT_FAULT, err[-2000:]
    assert r["faults"] > 0 and r["violated"] == 0
    assert {f["kind"] for f in r["fault_records"]} == {"OracleFault"}
