"""Distance checkers: honest claims Verified; planted false claims (TotalUpper one float64 ulp
below the true length, a lower bound one ulp above it, a halved residual bound, an estimate
outside its interval) Violated; a bound inside the oracle's enclosure at a small precision
budget Undecided, never Verified; malformed inputs raise."""

from __future__ import annotations

import numpy as np
import pytest

import oracles.checks.distance as D
from interval.arclength import enclose_arc_length, enclose_prefix_length
from interval.context import lower, mid, to_mpq, upper
from oracles.ledger import check_claim
from oracles.model import Claim, VerdictKind, dec, dec_array, enc

V, X, U = VerdictKind.Verified, VerdictKind.Violated, VerdictKind.Undecided


@pytest.fixture(scope="module")
def honest():
    by_row = {}
    for case in D.generate(3, 12):
        for c in D.claims(case):
            by_row.setdefault(c.row, []).append(c)
    return by_row


def replace(claim, value=None, inputs=None):
    return Claim(claim.row, claim.guarantee, claim.value if value is None else value,
                 claim.inputs if inputs is None else inputs, claim.model)


def truth(claim, prec=256, rel=1e-24):
    C = dec_array(claim.inputs["controls"], np.float32)
    if claim.inputs.get("range") == "leaf":
        return enclose_arc_length(C[claim.inputs["span"]], dec(claim.inputs["u0"]), dec(claim.inputs["u1"]),
                                  prec, rel).value
    return enclose_prefix_length(C, claim.inputs["span"], dec(claim.inputs["u"]), prec, rel).value


def below(q):
    """A float64 strictly below the rational q by at least one ulp (relative)."""
    f = float(q)
    while to_mpq(f) >= q:
        f = float(np.nextafter(f, -np.inf))
    return float(np.nextafter(f, -np.inf))


def above(q):
    f = float(q)
    while to_mpq(f) <= q:
        f = float(np.nextafter(f, np.inf))
    return float(np.nextafter(f, np.inf))


def test_every_row_is_exercised_and_honest_claims_are_verified(honest):
    assert set(honest) == {"distance.length_bounds", "distance.prefix_bounds",
                           "distance.inversion_residual", "distance.estimates"}
    for row, cs in honest.items():
        for c in cs:
            v = check_claim(c)
            assert v.kind is V, (row, v.note, v.witness)


def test_total_upper_one_ulp_below_the_truth_is_violated(honest):
    totals = [c for c in honest["distance.length_bounds"] if c.inputs["range"] == "total"]
    assert len(totals) >= 10
    for c in totals:
        L = truth(c)
        if upper(L) == 0:
            continue  # a point path has no length to undercut
        bad_hi = below(lower(L))  # TotalUpper shrunk below the true length by one ulp
        assert check_claim(replace(c, {"lower": c.value["lower"], "upper": enc(bad_hi)})).kind is X
        bad_lo = above(upper(L))  # TotalLower raised above it
        assert check_claim(replace(c, {"lower": enc(bad_lo), "upper": c.value["upper"]})).kind is X


def test_leaf_and_prefix_bounds_one_ulp_inside_are_violated(honest):
    n = 0
    for c in honest["distance.length_bounds"][:12] + honest["distance.prefix_bounds"][:12]:
        L = truth(c)
        if upper(L) == 0:
            continue
        assert check_claim(replace(c, {"lower": c.value["lower"], "upper": enc(below(lower(L)))})).kind is X
        n += 1
    assert n >= 15


def test_halved_residual_bound_is_violated(honest):
    for c in honest["distance.inversion_residual"][:25]:
        R = dec(c.value["residual_bound"])
        if R == 0:
            continue
        L = truth(c)
        # Move the target (inside [0, TotalEstimate], Reject) to 3/4 R from the truth: the
        # honest bound R still holds, the halved one does not.
        t = float(mid(L) + to_mpq(0.75 * R))
        T = dec(c.inputs["total_estimate"])
        if not 0 <= t <= T:
            t = float(mid(L) - to_mpq(0.75 * R))
        if not 0 <= t <= T:
            continue
        inputs = {**c.inputs, "query": enc(t), "policy": "Reject"}
        moved = {**c.value, "distance": enc(t)}  # the resolved distance is the new target
        assert check_claim(replace(c, moved, inputs)).kind is V
        halved = {**moved, "residual_bound": enc(R / 2)}
        assert check_claim(replace(c, halved, inputs)).kind is X


def test_residual_bound_above_distance_error_is_violated(honest):
    c = honest["distance.inversion_residual"][0]
    E = dec(c.inputs["distance_error"])
    assert check_claim(replace(c, {**c.value, "residual_bound": enc(E * 2)})).kind is X


def test_estimate_outside_its_interval_or_a_false_interval_is_violated(honest):
    for c in honest["distance.estimates"][:20]:
        hi = dec(c.inputs["upper"])
        out = float(np.nextafter(hi, np.inf))
        assert check_claim(replace(c, {"estimate": enc(out)})).kind is X
        L = truth(c)
        if upper(L) == 0:
            continue
        lo_bad = below(lower(L))
        fake = {**c.inputs, "lower": enc(lo_bad / 2), "upper": enc(lo_bad)}
        assert check_claim(replace(c, {"estimate": enc(lo_bad)}, fake)).kind is X


def test_a_bound_inside_the_enclosure_is_undecided_at_a_small_budget(honest, monkeypatch):
    c = next(c for c in honest["distance.length_bounds"] if c.inputs["range"] == "total")
    L = truth(c, 256, 1e-30)
    hi = float(mid(L))  # within 1e-30 of the truth: undecidable at 113 bits and 1e-15 width
    planted = replace(c, {"lower": c.value["lower"], "upper": enc(hi)})
    monkeypatch.setattr(D, "BUDGET", (113,))
    v = check_claim(planted)
    assert v.kind is U and v.enclosure is not None


@pytest.mark.parametrize("mutate", [
    lambda i: {**i, "controls": [["0x1p+0"] * 3] * 4},             # (4, 3): no span axis
    lambda i: {**i, "controls": [[["0x1.0000001p+0"] * 3] * 4] * 2},  # not float32
    lambda i: {**i, "span": 99},
    lambda i: {**i, "u": enc(1.5)},
    lambda i: {k: v for k, v in i.items() if k != "distance_error"},
])
def test_malformed_inputs_raise(honest, mutate):
    c = next(c for c in honest["distance.prefix_bounds"])
    with pytest.raises((ValueError, KeyError, TypeError)):
        check_claim(replace(c, inputs=mutate(c.inputs)))


def test_reject_query_outside_the_domain_is_malformed(honest):
    c = honest["distance.inversion_residual"][0]
    T = dec(c.inputs["total_estimate"])
    with pytest.raises(ValueError):
        check_claim(replace(c, inputs={**c.inputs, "query": enc(T * 3 + 1), "policy": "Reject"}))


def test_a_resolved_distance_that_is_not_the_target_is_violated(honest):
    for c in honest["distance.inversion_residual"][:10]:
        s, R = dec(c.value["distance"]), dec(c.value["residual_bound"])
        off = float(np.nextafter(s + 2 * R, np.inf))
        v = check_claim(replace(c, {**c.value, "distance": enc(off)}))
        assert v.kind is X and "target" in v.witness


def test_a_named_estimate_must_match_the_quantity_the_inputs_name(honest):
    est = honest["distance.estimates"]
    total = next(c for c in est if c.inputs["what"] == "TotalEstimate")
    leaf = next(c for c in est if c.inputs["what"] == "leaf estimate")
    with pytest.raises(ValueError):
        check_claim(replace(total, inputs={**total.inputs, "what": "PrefixEstimate"}))
    with pytest.raises(ValueError):
        check_claim(replace(leaf, inputs={**leaf.inputs, "what": "TotalEstimate"}))
    with pytest.raises(ValueError):  # a "total" that is not the prefix at the path end
        check_claim(replace(total, inputs={**total.inputs, "u": enc(0.5)}))


def _document(claims):
    from oracles.casefile import FORMAT

    return {"format": FORMAT, "producer": "test", "claims": [c.to_json() for c in claims]}


def test_every_corpus_claim_validates_against_its_row_schema(honest):
    from oracles.schema import validate_document

    claims = [c for cs in honest.values() for c in cs]  # the named cases and three random ones
    assert {c.row for c in claims} == set(D.CONTRACTS) == set(D.FAMILY.checkers)
    assert validate_document(_document(claims)) == []


@pytest.mark.parametrize("row,mutate,where", [
    ("distance.prefix_bounds", lambda d: d["inputs"].update(case="random"), "inputs"),  # unread
    ("distance.estimates", lambda d: d["inputs"].update(distance_error="0x1p-10"), "inputs"),  # unread
    ("distance.inversion_residual", lambda d: d["inputs"].update(policy="Loop"), "inputs.policy"),
    ("distance.length_bounds", lambda d: d["inputs"].update(range="prefix"), "inputs"),
    ("distance.prefix_bounds", lambda d: d["inputs"].update(u="0.1"), "inputs.u"),
    ("distance.prefix_bounds", lambda d: d["value"].update(lower="inf"), "value.lower"),
])
def test_the_schema_rejects_unread_fields_and_bad_values(honest, row, mutate, where):
    from oracles.schema import validate_document

    import copy

    d = copy.deepcopy(honest[row][0].to_json())
    mutate(d)
    errs = validate_document({**_document([]), "claims": [d]})
    assert errs and any(e.path.startswith(f"claims[0].{where}") for e in errs), [str(e) for e in errs]


def test_every_schema_field_is_read_by_the_checker(honest):
    import copy

    samples = [cs[k] for cs in honest.values() for k in (0, 1, -1)]
    samples += [next(c for c in honest["distance.estimates"] if c.inputs["what"] == w)
                for w in ("leaf estimate", "TotalEstimate", "PrefixEstimate", "DistanceBound.Estimate")]
    for c in samples:
        for part in ("inputs", "value"):
            for key in getattr(c, part):
                d = copy.deepcopy(c.to_json())
                del d[part][key]
                with pytest.raises((KeyError, ValueError, TypeError)):
                    D.FAMILY.checkers[c.row](Claim.from_json(d))


def test_planted_claims_of_the_contracts_are_violated(honest):
    for row, cs in honest.items():
        for c in cs[:15]:
            v = check_claim(D.CONTRACTS[row].plant(c))
            assert v.kind is X, (row, v.note)
