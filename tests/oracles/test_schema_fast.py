"""The compiled fast path of case-file validation (``oracles.schema.fast_valid``) may only say
"valid" where the JSON Schema validator finds no error and reads no decimal: checked on every
row's corpus claims and on mutations of them (wrong types, missing and extra fields, decimals,
non-canonical hex, values outside float32, negative where nonnegative)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from oracles.families import contract_for, families
from oracles.schema import _claim_schema, fast_valid
from oracles.schema_validate import Validator


def _slow_clean(claim) -> bool:
    """The jsonschema validator of the claim's row alone finds no error and reads no decimal (a
    read is a ``NumberRead``). Not ``read_document``: that skips the validator for every claim
    the fast path passes, so it would hold the fast path to itself."""
    contract = contract_for(claim["row"])
    return not any(True for _ in Validator(_claim_schema(claim["row"], contract)).iter_errors(claim))


def _corpus():
    out = {}
    for f in families():
        for case in f.generate(2, 12):
            for c in f.claims(case):
                out.setdefault(c.row, [])
                if len(out[c.row]) < 4:
                    out[c.row].append(json.loads(json.dumps(c.to_json())))
    return out


CORPUS = _corpus()


def _paths(x, prefix=()):
    yield prefix
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _paths(v, prefix + (i,))


def _get(x, path):
    for p in path:
        x = x[p]
    return x


def _set(x, path, v):
    for p in path[:-1]:
        x = x[p]
    x[path[-1]] = v


_REPLACEMENTS = ["0.1", 0.5, 1, True, None, "0x1.0000000000000p+0", "0x1p+0", "0x1.fffffffffffffp+1023", "-0x1.0p-1074",
                 "nan", "inf", "-inf", "1/3", [], {}, "Success", "x", "-0x0.0p+0", "0x1.0000010000000p+0", 2**40, -1,
                 "0x0.0p+0", "-0x1.0000000000000p+0"]  # canonical zero and a canonical negative: the sign rules


def _mutants(rid: str):
    """Each corpus claim of ``rid`` and up to 60 mutations of each, seeded by the row."""
    rng = random.Random(rid)
    for c in CORPUS[rid]:
        yield c
        paths = list(_paths(c))
        for _ in range(60):
            m = copy.deepcopy(c)
            p = rng.choice(paths)
            if not p:
                continue
            kind = rng.random()
            try:
                if kind < 0.6:
                    _set(m, p, copy.deepcopy(rng.choice(_REPLACEMENTS)))
                elif kind < 0.8 and isinstance(_get(m, p[:-1]), dict):
                    del _get(m, p[:-1])[p[-1]]
                elif isinstance(_get(m, p), dict):
                    _get(m, p)["extra_field"] = 1
                else:
                    continue
            except (KeyError, IndexError, TypeError):
                continue
            yield m


def test_a_batch_sends_exactly_the_claims_fast_valid_refuses_to_the_validator():
    """``oracles.schema._slow_claims`` checks the numbers of a whole batch in bulk: it must name
    the same claims as :func:`fast_valid` asked one by one (which the test below holds to the
    validator), on every row's corpus claims and their mutations, mixed in one batch."""
    from oracles.schema import _slow_claims

    batch = [m for rid in sorted(CORPUS) for m in _mutants(rid)]
    one_by_one = [i for i, c in enumerate(batch) if not fast_valid(c)]
    assert _slow_claims(batch) == one_by_one
    assert 0 < len(one_by_one) < len(batch)


@pytest.mark.parametrize("rid", sorted(CORPUS))
def test_fast_valid_never_says_valid_where_the_validator_objects(rid):
    tried = 0
    for m in _mutants(rid):
        tried += 1
        if fast_valid(m):
            assert _slow_clean(m), (rid, m)
    assert tried > len(CORPUS[rid])


def test_the_fast_path_accepts_the_claims_our_fast_path_writes():
    accepted = sum(fast_valid(c) for cs in CORPUS.values() for c in cs)
    total = sum(len(cs) for cs in CORPUS.values())
    assert accepted >= 0.8 * total, f"only {accepted} of {total} corpus claims take the fast path"


def test_every_number_field_keeps_its_sign_format_and_text_rules():
    """Each number of one corpus claim per row, replaced in turn by a canonical negative, a
    canonical zero, a float64 that is no float32 and a non-canonical text: wherever the fast path
    still says valid, the row's validator agrees (deterministic, unlike the sampled mutations)."""
    tried = 0
    for rid in sorted(CORPUS):
        c = CORPUS[rid][0]
        for p in _paths(c):
            if not p or not isinstance(_get(c, p), str) or not _get(c, p).startswith(("0x", "-0x")):
                continue
            for text in ("-0x1.0000000000000p+0", "0x0.0p+0", "0x1.0000010000000p+0", "0x1p+0"):
                m = copy.deepcopy(c)
                _set(m, p, text)
                tried += 1
                if fast_valid(m):
                    assert _slow_clean(m), (rid, p, text)
    assert tried > 500
