"""A float32 producer declares its precision and passes the path and track rows.

The producer below is another implementation than the fast path: it evaluates the corpus's own
spans with every arithmetic operation done in float32 (the ``F32`` context of
``reference.context`` through the generic kernels of ``reference.kernel`` for paths; the
track's Hermite and linear span formulas in float32 scalars). Its claims must be

* Verified when they declare ``model: {"u": "0x1p-24"}`` (the reference formulas at the
  float32 unit roundoff, eta = 2^-149 following from u),
* Violated, at least some, without a declared model (judged at binary64's u = 2^-53),
* Violated, at least some, with an explicit bound that is too small,
* Verified with an absurdly large explicit bound, whose ``declared_over_reference`` ratio in
  the verdict shows how large it is.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import oracles.families.path as P
import oracles.families.path.checks as PC
import oracles.families.track as T
from oracles.errormodel import resolve
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, dec_array, enc
from reference import kernel as K
from reference.context import F32
from reference.status import BoundaryPolicy, GuaranteeClass as G, TrackTime
from reference.track import try_evaluate_track, try_prepare_track

V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided
F32_MODEL = {"name": "float32 evaluator", "u": "0x1p-24"}
TINY = {"bound": enc(2.0**-200)}
HUGE = {"bound": "0x1p+100"}


def _with_model(c: Claim, model) -> Claim:
    return Claim(c.row, c.guarantee, c.value, c.inputs, model)


# --- Path: positions, derivatives, tangents evaluated in float32 -----------------------------


def _f32_path_claims(claim: Claim) -> list:
    """The float32 producer's claims at the span and parameter of one fast-path position claim:
    the parameter is the float32 nearest the corpus's (recorded in the inputs: the producer
    evaluates at float32 parameters), controls are the stored float32 controls."""
    P32 = dec_array(claim.inputs["controls"], np.float32)
    u32 = np.float32(dec(claim.inputs["u"]))
    assert P32.dtype == np.float32 and u32.dtype == np.float32
    point = K.cubic_point(F32, P32, u32)
    first = K.cubic_derivative(F32, P32, u32)
    second = K.cubic_second_derivative(F32, P32, u32)
    assert point.dtype == first.dtype == second.dtype == np.float32  # the arithmetic was float32
    inputs = {"controls": claim.inputs["controls"], "u": enc(float(u32))}
    out = [Claim("path.interior_positions", claim.guarantee, enc(point), inputs),
           Claim("path.derivatives", claim.guarantee, {"first": enc(first), "second": enc(second)}, inputs)]
    min_speed = np.float32(1e-9)
    speed = K.norm(F32, first)
    assert speed.dtype == np.float32
    tin = {**inputs, "minimum_speed": enc(float(min_speed))}
    if speed < min_speed:
        out.append(Claim("path.tangents", claim.guarantee, {"status": "Degenerate"}, tin))
    else:
        out.append(Claim("path.tangents", claim.guarantee, {"tangent": enc(first / speed)}, tin))
    return out


@pytest.fixture(scope="module")
def path_f32():
    """float32 claims (no model) by row, from the positions of a slice of the path corpus."""
    by_row = {}
    for case in P.generate(5, 16):
        if case["kind"] != "path":
            continue
        positions = [c for c in P.claims(case) if c.row == "path.interior_positions" and "controls" in c.inputs]
        for c in positions[::3]:
            for f in _f32_path_claims(c):
                by_row.setdefault(f.row, []).append(f)
    return by_row


def _kinds(claims, model):
    return [check_claim(_with_model(c, model)) for c in claims]


@pytest.mark.parametrize("row", ["path.interior_positions", "path.derivatives", "path.tangents"])
def test_float32_path_claims_declaring_u32_are_verified(path_f32, row):
    claims = path_f32[row]
    assert len(claims) >= 40
    verdicts = _kinds(claims, F32_MODEL)
    bad = [(v.kind, v.witness) for v in verdicts if v.kind is not V]
    assert not bad, bad[:3]
    # The verdict carries the declared model and its ratio to binary64's: 2^29 = 2^-24 / 2^-53
    # for the u-proportional terms (the tangent's speed-relative term makes it differ a little).
    ratios = [v.extra["declared_model"]["declared_over_reference"] for v in verdicts]
    assert all(r > 2.0**20 for r in ratios), min(ratios)
    if row != "path.tangents":
        assert max(v.measured for v in verdicts) > 0.0  # float32 errors are really there


@pytest.mark.parametrize("row", ["path.interior_positions", "path.derivatives", "path.tangents"])
def test_float32_path_claims_without_a_model_fail_binary64(path_f32, row):
    verdicts = _kinds(path_f32[row], None)
    violated = sum(v.kind is X for v in verdicts)
    assert violated >= len(verdicts) // 4, (violated, len(verdicts))
    assert all(v.kind is not U for v in verdicts)


@pytest.mark.parametrize("row", ["path.interior_positions", "path.derivatives", "path.tangents"])
def test_float32_path_claims_with_too_small_a_bound_are_violated(path_f32, row):
    verdicts = _kinds(path_f32[row], TINY)
    assert sum(v.kind is X for v in verdicts) >= len(verdicts) // 4


@pytest.mark.parametrize("row", ["path.interior_positions", "path.derivatives", "path.tangents"])
def test_a_huge_declared_bound_passes_but_its_ratio_shows(path_f32, row):
    verdicts = _kinds(path_f32[row], HUGE)
    assert all(v.kind is V for v in verdicts)
    ratios = [v.extra["declared_model"]["declared_over_reference"] for v in verdicts]
    assert min(ratios) > 1e20, min(ratios)


def test_the_declared_u32_model_is_the_reference_formula_at_u32(path_f32):
    """The bound a u = 2^-24 claim is judged against is position_bound(E, 2^-24) (eta = 2^-149),
    computed by hand here: 16 * 2^-24 * E + 16 * 2^-149."""
    c = _with_model(path_f32["path.interior_positions"][0], F32_MODEL)
    E = float(np.max(np.abs(dec_array(c.inputs["controls"], np.float32).astype(np.float64))))
    r = resolve(c, PC._position_reference(E), constant=16.0)
    want = Fraction(16) * Fraction(2) ** -24 * Fraction(E) + Fraction(16) * Fraction(2) ** -149
    assert Fraction(int(r.scalar().numerator), int(r.scalar().denominator)) >= want
    assert float(r.scalar()) == pytest.approx(float(want), rel=1e-15)
    assert r.u == 2.0**-24


def test_planted_false_claims_fail_even_under_the_declared_model(path_f32):
    for row in ("path.interior_positions", "path.derivatives", "path.tangents"):
        for c in path_f32[row][::7][:10]:
            honest = _with_model(c, F32_MODEL)
            planted = P.FAMILY.contracts[row].plant(honest)
            assert check_claim(planted).kind is X, row


# --- Track values evaluated in float32 -------------------------------------------------------

f32 = np.float32


def _span32(view, k: int, u: float):
    """One span's value and derivative per second, every operation in float32 (the fast path's
    formulas; the width h and the local parameter each round once more, to float32)."""
    kind = view.interpolation(k)
    v0, v1 = f32(view.values[k]), f32(view.values[k + 1])
    if kind.value == "Step":
        return v0, f32(0.0)
    h = f32(view.widths[k])
    uu = f32(u)
    one, two, three, six = f32(1), f32(2), f32(3), f32(6)
    if kind.value == "Linear":
        return (one - uu) * v0 + uu * v1, (v1 - v0) / h
    m0, m1 = f32(view.out_slopes[k]), f32(view.in_slopes[k + 1])
    s = one - uu
    h00 = (one + two * uu) * (s * s)
    h10 = uu * (s * s)
    h01 = (uu * uu) * (three - two * uu)
    h11 = (uu * uu) * (uu - one)
    value = (h00 * v0 + h01 * v1) + h * (h10 * m0 + h11 * m1)
    deriv = (six * (uu * s)) * ((v1 - v0) / h) + ((s * (one - three * uu)) * m0 + (uu * (three * uu - two)) * m1)
    return value, deriv


def _f32_track_claims(case) -> list:
    """The float32 producer's track.values claims for one corpus case. It locates the span the
    way the spec does (float64 key times, exact time reduction: the fast path's own locating),
    then evaluates the span in float32."""
    view = try_prepare_track(case["keys"], T.LIMITS).value.view()
    fast = {(dec(c.inputs["time"]), c.inputs["policy"], c.inputs["side"]): c
            for c in T.claims(case) if c.row == "track.values"}
    out = []
    first, last = float(view.times[0]), float(view.times[-1])
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for t, policy, side in case["queries"]:
            s = try_evaluate_track(view, TrackTime(t), policy, side)
            c = fast[(t, policy.value, side.value)]
            if not s.ok:
                out.append(c)  # InvalidDomain is no arithmetic
                continue
            v, d = _span32(view, s.value.span_index, s.value.u)
            assert v.dtype == np.float32 and d.dtype == np.float32
            if policy is BoundaryPolicy.Hold and not first <= t <= last:
                d = f32(0.0)
            elif s.value.is_reflected:
                d = -d
            value = {"value": enc(float(v)), "derivative": enc(float(d)), "span": s.value.span_index,
                     "reflected": s.value.is_reflected}
            out.append(Claim("track.values", c.guarantee, value, c.inputs))
    return out


@pytest.fixture(scope="module")
def track_f32():
    cs = [c for case in T.generate(13, 40) for c in _f32_track_claims(case)]
    # A float32 evaluator overflows where the derivative (v1 - v0) / h exceeds the float32
    # range (large values over tiny spans): such claims are Violated under any model. The
    # model tests below use the finite ones; the overflow is tested on its own.
    finite = [c for c in cs if "value" not in c.value
              or np.isfinite([dec(c.value["value"]), dec(c.value["derivative"])]).all()]
    return finite, [c for c in cs if c not in finite]


def _valued(cs):
    return [c for c in cs if "value" in c.value]


def test_float32_track_values_declaring_u32_are_verified(track_f32):
    finite, _ = track_f32
    assert len(_valued(finite)) >= 150
    verdicts = _kinds(finite, F32_MODEL)
    bad = [(v.kind, v.witness, v.claim.inputs["time"]) for v in verdicts if v.kind is not V]
    assert not bad, bad[:3]
    assert max(v.measured for v in verdicts) > 0.0


def test_float32_track_values_without_a_model_fail_binary64(track_f32):
    finite, _ = track_f32
    verdicts = _kinds(_valued(finite), None)
    assert sum(v.kind is X for v in verdicts) >= len(verdicts) // 4


def test_float32_track_values_with_too_small_a_bound_are_violated(track_f32):
    finite, _ = track_f32
    verdicts = _kinds(_valued(finite), TINY)
    assert sum(v.kind is X for v in verdicts) >= len(verdicts) // 4


def test_a_huge_declared_track_bound_passes_but_its_ratio_shows(track_f32):
    finite, _ = track_f32
    verdicts = _kinds(_valued(finite), HUGE)
    assert all(v.kind is V for v in verdicts)
    # 2^100 over the largest reference in this corpus (16 u S with S near 1e32) is still 1e13.
    assert min(v.extra["declared_model"]["declared_over_reference"] for v in verdicts) > 1e9


def test_track_k_scales_the_declared_model(track_f32):
    """``k`` in place of the constant 16 scales both components by k / 16: k = 2^-40 leaves
    a bound far below the float32 errors."""
    finite, _ = track_f32
    verdicts = _kinds(_valued(finite), {"u": "0x1p-24", "k": "0x1p-40"})
    assert sum(v.kind is X for v in verdicts) >= len(verdicts) // 4


def test_float32_overflow_is_violated_under_any_model():
    keys = [(0.0, 3e38, 0.0, 0.0, "Linear"), (2.0**-20, -3e38, 0.0, 0.0, "Linear")]
    enc_keys = [[enc(t), enc(float(f32(v))), enc(a), enc(b), k] for t, v, a, b, k in keys]
    inputs = {"keys": enc_keys, "time": enc(2.0**-21), "policy": "Reject", "side": "Outgoing"}
    value = {"value": enc(0.0), "derivative": "-inf", "span": 0, "reflected": False}
    for model in (F32_MODEL, HUGE, None):
        assert check_claim(Claim("track.values", G.Rounded, value, inputs, model)).kind is X


# --- The same producer through a case file and the CLI -----------------------------------------


def _check_file(tmp_path, name, claims, model):
    import json

    from oracles.__main__ import main

    doc = {"format": "claims/1", "producer": "float32 evaluator (test)",
           "claims": [dict(c.to_json(), **({"model": model} if model else {})) for c in claims]}
    f = tmp_path / f"{name}.json"
    f.write_text(json.dumps(doc))
    code = main(["check", str(f), "--out", str(tmp_path / f"{name}.out"), "--force"])
    return code, json.loads((tmp_path / f"{name}.out" / "ledger.json").read_text())


def test_a_float32_case_file_passes_with_its_model_and_fails_without(tmp_path, path_f32, track_f32):
    claims = [c for row in ("path.interior_positions", "path.derivatives", "path.tangents")
              for c in path_f32[row][:8]] + _valued(track_f32[0])[:8]
    code, led = _check_file(tmp_path, "declared", claims, F32_MODEL)
    assert code == 0, [r for r in led["rows"] if r.get("violated")]
    assert led["totals"]["claims"] == len(claims)
    code, _ = _check_file(tmp_path, "undeclared", claims, None)
    assert code == 1
    # A model the schema cannot read (u and an explicit bound at once) is malformed: exit 2.
    code, _ = _check_file(tmp_path, "both", claims[:2], {"u": "0x1p-24", "bound": "1"})
    assert code == 2
