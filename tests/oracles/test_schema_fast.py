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


# Numbers to read, in place of a hex number of a corpus claim: a decimal as JSON reads it (the
# shortest decimal of its value, and one with too few digits to name a float64), an integer,
# decimal text, a decimal beyond float64, a negative one, a word, and a bare Python float.
def _readable_replacements(text: str) -> list:
    from decimal import Decimal

    v = float.fromhex(text)
    return [Decimal(repr(v)), Decimal(f"{v:.6g}"), Decimal(f"{-abs(v):.17g}"), int(v) if abs(v) < 2**62 else 7,
            f"{v:.9g}", Decimal("1e400"), Decimal("-0.0"), "inf", v, Decimal("3.4028235677973366e38")]


def _validator_reading(claim):
    """The row validator's verdict on ``claim`` alone: (errors found, readings sorted by path)."""
    from oracles.schema_validate import NumberRead

    errors, readings = False, []
    contract = contract_for(claim["row"])
    for e in Validator(_claim_schema(claim["row"], contract)).iter_errors(claim):
        if isinstance(e, NumberRead):
            readings += [(tuple(e.absolute_path) + below, *rest) for below, *rest in e.entries]
        else:
            errors = True
    return errors, sorted(readings)


def _decimal_mutants():
    """Per row, its first corpus claim with numbers replaced by numbers to read: each number
    alone by each replacement, and every number at once by its shortest decimal."""
    from decimal import Decimal

    for rid in sorted(CORPUS):
        c = CORPUS[rid][0]
        hexes = [p for p in _paths(c) if p and isinstance(_get(c, p), str) and _get(c, p).startswith(("0x", "-0x"))]
        whole = copy.deepcopy(c)
        for p in hexes:
            _set(whole, p, Decimal(repr(float.fromhex(_get(c, p)))))
            for r in _readable_replacements(_get(c, p)):
                m = copy.deepcopy(c)
                _set(m, p, r)
                yield m
        yield whole


@pytest.mark.parametrize("exhaustive", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["every third mutant", "exhaustive"])
def test_the_compiled_reader_reads_decimals_as_the_validator_does(exhaustive):
    """Where the reading predicates pass a claim (``oracles.schema._read_claims``), the row's
    validator finds no error and reports the same readings (path, hex text, rounded, short);
    where they leave it to the validator, it finds an error or reads a number the compiled
    reader does not take. Both read through ``read_claim_number``, but the traversal, the paths,
    the anyOf branches and the sign rules are the compiler's own. By default every third mutant
    (every row and number kind still meets both branches); all of them under ``-m slow``."""
    from oracles.schema import _read_claims

    passed = refused = 0
    for i, m in enumerate(_decimal_mutants()):
        if not exhaustive and i % 3:
            continue
        slow, readings = _read_claims([m], [0])
        errors, expected = _validator_reading(m)
        if not slow:
            passed += 1
            assert not errors, m
            assert sorted((p[2:], *rest) for p, *rest in readings) == expected, m
        else:
            refused += 1
            assert readings == []
    least = (300, 100) if exhaustive else (100, 30)
    assert passed > least[0] and refused > least[1], (passed, refused)


def test_exact_numbers_leave_every_inexact_decimal_to_the_validator():
    """Under ``--exact-numbers`` a decimal that is not a value of its field is an error, which
    only the validator writes: the compiled reader passes no such claim."""
    from decimal import Decimal

    from oracles.schema import _EXACT_NUMBERS, _read_claims

    c = copy.deepcopy(CORPUS["path.interior_positions"][0])
    c["value"][0] = Decimal("0.1")
    assert _read_claims([c], [0])[0] == []
    token = _EXACT_NUMBERS.set(True)
    try:
        assert _read_claims([c], [0])[0] == [0]
        c["value"][0] = Decimal("0.5")  # exact: read, and reported as a decimal read
        slow, readings = _read_claims([c], [0])
        assert slow == [] and readings == [(("claims", 0, "value", 0), "0x1.0000000000000p-1", False, False)]
    finally:
        _EXACT_NUMBERS.reset(token)


def test_a_case_file_of_decimals_reads_the_same_with_and_without_the_compiled_reader(monkeypatch):
    """A case file whose claims spell their numbers as Python's json.dump writes them (and some
    malformed): the same claims, errors and number report (counts and the first short paths)
    whether the compiled reader or the validator reads them."""
    import oracles.schema as schema
    from oracles.casefile import parse_case_text

    def as_floats(x):
        if isinstance(x, str) and x.startswith(("0x", "-0x")):
            return float.fromhex(x)
        if isinstance(x, list):
            return [as_floats(v) for v in x]
        return {k: as_floats(v) for k, v in x.items()} if isinstance(x, dict) else x

    docs = [as_floats(c) for rid in sorted(CORPUS) for c in CORPUS[rid]]
    docs[3]["inputs"] = {"spn": 1}  # malformed
    # Valid, but left to the validator by a non-canonical hex (the compiled reader reads the
    # claims after it first), with a short decimal (0.1): the report's order, which names the
    # first short decimals, must not depend on which reader read a claim.
    first = next(d for d in docs if d["row"] == "path.interior_positions")
    first["inputs"]["u"] = "0x2.0p-2"
    first["value"][0] = 0.1
    docs.remove(first)
    docs.insert(0, first)
    text = json.dumps({"format": "claims/1", "claims": docs}).replace("[0.0, ", "[0, ", 5).encode()

    def summary():
        cf = parse_case_text(text)
        return ([(i, c.to_json()) for i, c in cf.claims], [(e.path, e.message) for e in cf.malformed], cf.numbers)

    fast = summary()
    monkeypatch.setattr(schema, "_read_claims", lambda claims, indices: (indices, []))
    slow = summary()
    assert fast == slow
    assert len(fast[0]) > 50 and fast[1] and fast[2].rounded > 0
    assert fast[2].first_short[0] == "claims[0].value[0]"


def test_a_failed_anyof_branch_leaves_nothing_to_read():
    """``anyOf`` whose first branch sets a decimal aside and then fails: only the readings of the
    branch that holds count, as in the validator (which reports each decimal once)."""
    from decimal import Decimal

    from oracles.schema import f64
    from oracles.schema_fast import Deferred, compile_schema
    from oracles.schema_validate import NumberRead

    branch = {"type": "object", "properties": {"a": f64(), "b": {"const": "x"}}}
    schema = {"anyOf": [branch, {"type": "object", "properties": {"a": f64(), "b": f64()}}]}
    x = {"a": Decimal("0.1"), "b": Decimal("0.25")}
    d = Deferred()
    assert compile_schema(schema, {}).read(x, 0, d.slots, ())
    bad, read = d.read()
    expected = [(tuple(e.absolute_path) + below, *rest)
                for e in Validator(schema).iter_errors(x) if isinstance(e, NumberRead) for below, *rest in e.entries]
    assert not bad and sorted((p, *rest) for _, p, *rest in read) == sorted(expected)
    assert len(read) == 2
