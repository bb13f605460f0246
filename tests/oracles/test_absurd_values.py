"""A claimed value no implementation could honestly return is refuted, whatever field holds it.

Every numeric value field of one corpus claim per row and claim shape is set to +2^600 and to
-2^600, read as ``check`` reads a case file, and judged: the verdict must be Violated (or the
claim malformed), except in the fields listed in ``LOOSE``, each with the reason the spec lets
that field be anything so far off. Set up on 2026-12-06, when this sweep found six fields a
checker never looked at or let through (docs/decisions.md: a sweep deviation measured with
NaNs, frame normals of any length, a twist on frames that are not periodic, a Flat cap's V, a
sine beside parallel partials, distance witnesses off the path).
"""

from __future__ import annotations

import json
import warnings

import pytest

from oracles.casefile import CaseFileError, parse_case_text
from oracles.families import contract_for, families
from oracles.ledger import check_claim
from oracles.batch import MALFORMED_ERRORS
from oracles.model import VerdictKind, dec

from .claim_paths import leaves, set_at

FAR = ("0x1p+600", "-0x1p+600")


def _witness_estimate(path, claim) -> bool:
    return path[1] in ("lookup", "short") and path[-1] == "estimate"


def _zero_partial(path, claim) -> bool:
    d = claim["value"]["decision"]
    return dec(d["su"]) == 0 or dec(d["sv"]) == 0


def _cap_vertex(path, claim) -> bool:
    inp = claim["inputs"]
    per = 2 if inp["section"] == "Ribbon" else int(inp["segments"]) + 1
    return path[2] >= len(inp["rings"]) * per


# (row, predicate on (value path, claim JSON)) -> why a value 2^600 away may stand there.
LOOSE = {
    ("distance.prefix_bounds", "lower/upper"): (
        lambda path, claim: path[1] in ("lower", "upper"),
        "Certified: a wider enclosure of the true prefix length is still an enclosure; the spec asks "
        "TryBoundDistance for no width"),
    ("distance.inversion_residual", "witness estimates"): (
        _witness_estimate,
        "a stored Estimated prefix estimate the lookup or bisection compared with the target; the spec bounds "
        "it only inside a Certified interval the claim does not carry, and the resolution rules read it only "
        "where they apply (the order against the target)"),
    ("projection.approximate", "gap"): (
        lambda path, claim: path == ("value", "gap"),
        "Gap bounds Distance - LowerBound from above: a larger one is looser, not false"),
    ("surface.evaluation", "sine of a zero partial"): (
        lambda path, claim: path[:3] == ("value", "decision", "sine") and _zero_partial(path, claim),
        "with |Su| or |Sv| zero the sine |Su x Sv| / (|Su| |Sv|) is undefined (IEEE gives NaN)"),
    ("sweep.error_estimates", "cap vertices, normals, U and V"): (
        lambda path, claim: path[1] == "vertices" and (path[3] >= 3 or _cap_vertex(path, claim)),
        "the row judges the ideal surface's distance to the mesh (one-sided: docs/decisions.md 'Sweeps: the "
        "deviation oracle') and the ring vertices' positions at their angles; a cap's vertex far off leaves the "
        "surface covered, and sweep.rings judges every vertex of the same mesh, normals, U and V included"),
}


def _shape(x):
    if isinstance(x, dict):
        return {k: _shape(v) for k, v in sorted(x.items())}
    if isinstance(x, list):
        return [_shape(x[0])] if x else []
    return type(x).__name__


def _numeric(x) -> bool:
    if isinstance(x, float):
        return True
    if not isinstance(x, str):
        return False
    try:
        float.fromhex(x) if x.lower().lstrip("-").startswith("0x") else float(x)
    except ValueError:
        return False
    return True


@pytest.fixture(scope="module")
def pool():
    """One corpus claim per row and claim shape (seed 7, up to 120 requests per family)."""
    out = {}
    for fam in families():
        for case in fam.generate(7, min(fam.default_cases, 120)):
            for c in fam.claims(case):
                if contract_for(c.row) is not None:
                    out.setdefault((c.row, json.dumps(_shape(c.value))), c)
    return list(out.values())


def test_a_value_no_implementation_could_return_is_refuted_in_every_field(pool):
    loose_hit, standing = set(), []
    judged = 0
    for claim in pool:
        d = json.loads(json.dumps(claim.to_json()))
        for path, leaf in leaves(d["value"], ("value",), ends_only=True):
            if isinstance(leaf, bool) or not _numeric(leaf):
                continue
            for far in FAR:
                m = json.loads(json.dumps(d))
                set_at(m, path, far)
                try:
                    cf = parse_case_text(json.dumps({"format": "claims/1", "claims": [m]}).encode())
                except CaseFileError:
                    continue
                if not cf.claims:
                    continue  # the schema refused it
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        v = check_claim(cf.claims[0][1])
                    except MALFORMED_ERRORS:
                        continue
                judged += 1
                assert v.kind not in (VerdictKind.CheckerError, VerdictKind.OracleFault), (d["row"], path, v.witness)
                if v.kind is VerdictKind.Violated:
                    continue
                loose = [key for key, (pred, _why) in LOOSE.items() if key[0] == d["row"] and pred(path, m)]
                if loose:
                    loose_hit.update(loose)
                else:
                    standing.append((d["row"], path, far, v.kind.value))
    assert judged > 800  # not vacuous: most fields of most rows
    assert standing == []
    assert loose_hit == set(LOOSE), f"entries of LOOSE no claim needs: {sorted(set(LOOSE) - loose_hit)}"
