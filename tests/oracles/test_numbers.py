"""The claim number grammar (docs/casefile.md): hex floats only with 0x, exact p/q rationals,
decimal text and JSON numbers parsed exactly, representability checked per field format, and
decimals read into a float field as the nearest value of its format (``read_number``).

Expected values are worked out by hand or with Fraction arithmetic, never with the parser: the
nearest value is checked against its definition (no value of the format is nearer; a tie goes
to the even significand), with the neighbours stepped by ``math.nextafter`` / numpy."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from oracles.model import NumberError, dec, dec_array, dec_q, enc, number_as, parse_number, read_number
from oracles.schema import array, f32, f64, obj, rational, validate_document
from oracles.schema_validate import NumberRead, Validator, leaf_errors


@pytest.mark.parametrize("text, exact", [
    ("0.5", Fraction(1, 2)),          # decimal, not hex (was read as 0x0.5 = 0.3125)
    ("10", Fraction(10)),             # decimal ten, not 0x10
    ("0x10", Fraction(16)),
    ("0x0.5p0", Fraction(5, 16)),
    ("-0x1.8p+1", Fraction(-3)),
    ("0x1p-1074", Fraction(1, 2**1074)),
    ("1e3", Fraction(1000)),
    ("-2.5E-1", Fraction(-1, 4)),
    ("3/4", Fraction(3, 4)),
    ("-7/2", Fraction(-7, 2)),
    (".25", Fraction(1, 4)),
])
def test_text_is_read_exactly(text, exact):
    assert parse_number(text) == exact


@pytest.mark.parametrize("bad", ["0x", "1e", "0.5x", "1/0", "x10", "", "1_000", " 1", "0x1.8q3", "nan?", "1/-2"])
def test_malformed_text_is_rejected(bad):
    with pytest.raises(NumberError):
        parse_number(bad)


def test_a_boolean_or_a_list_is_not_a_number():
    for bad in (True, [1], {"a": 1}, None):
        with pytest.raises(NumberError):
            parse_number(bad)


def test_json_numbers_are_parsed_as_exact_decimals():
    assert parse_number(Decimal("1e308")) == Fraction(10) ** 308
    with pytest.raises(NumberError, match="not exactly representable"):
        dec(Decimal("1e308"))  # 10^308 is not a float64; never an OverflowError traceback
    with pytest.raises(NumberError, match="overflows"):
        dec("1e400")  # decimal text, not 0x1e400
    with pytest.raises(NumberError):
        dec(Decimal("1e999999999"))  # capped: not a billion-digit integer
    assert dec(Decimal("0.5")) == 0.5 and dec(Decimal("-0")) == 0.0


def test_representability_by_format():
    with pytest.raises(NumberError, match="float64"):
        dec("0.1")
    with pytest.raises(NumberError, match="float64"):
        dec("1/3")
    assert number_as("0x1.000002p0", "f32") == 1 + 2**-23
    with pytest.raises(NumberError, match="float32"):
        number_as("0x1.0000001p0", "f32")  # 1 + 2^-28: a float64, not a float32
    with pytest.raises(NumberError, match="float32"):
        number_as("0x1p128", "f32")  # beyond float32's range
    assert number_as("0x1p-149", "f32") == 2.0**-149
    with pytest.raises(NumberError, match="float32"):
        number_as("0x1p-150", "f32")
    with pytest.raises(NumberError, match="finite"):
        number_as("inf", "f64", finite=True)
    assert math.isnan(dec("nan")) and dec("-inf") == -math.inf


def test_negative_zero_keeps_its_sign():
    assert math.copysign(1.0, dec("-0x0p+0")) == -1.0
    assert math.copysign(1.0, dec("-0.0")) == -1.0


def test_arrays_and_rationals():
    a = dec_array([["0x1p-1", "0.25"], ["3/8", "1e0"]], np.float32)
    assert a.dtype == np.float32 and a.tolist() == [[0.5, 0.25], [0.375, 1.0]]
    with pytest.raises(NumberError):
        dec_array(["0.1"], np.float64)
    assert dec_q("1/3") * 3 == 1 and dec_q("0.1") * 10 == 1


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_enc_round_trips_bit_for_bit(x):
    y = dec(enc(x))
    assert y == x and math.copysign(1.0, y) == math.copysign(1.0, x)


def _written_enc(x):
    """enc's contract as docs/casefile.md states it, written plainly: a float (of any width) is
    float.hex of its exact value or a word, an integer an integer, a rational "p/q", an array its
    elements' encodings nested as the array, containers element by element."""
    import enum
    import gmpy2

    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return "nan" if f != f else ("inf" if f == math.inf else "-inf" if f == -math.inf else f.hex())
    if isinstance(x, np.ndarray):
        return _written_enc(x.item()) if x.ndim == 0 else [_written_enc(x[i]) for i in range(x.shape[0])]
    if isinstance(x, (list, tuple)):
        return [_written_enc(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _written_enc(v) for k, v in x.items()}
    if isinstance(x, enum.Enum):
        return x.value
    if isinstance(x, (Fraction, type(gmpy2.mpq(1)))):
        return f"{x.numerator}/{x.denominator}"
    return x


_special_floats = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, -2.0**-149, 2.0**127,
                                   float(np.finfo(np.float32).max), 1.0 + 2.0**-52])
_scalars = st.one_of(st.floats(), _special_floats, st.integers(-2**70, 2**70), st.booleans(), st.none(),
                     st.text(max_size=3), st.fractions(max_denominator=100))


@st.composite
def _arrays(draw):
    from hypothesis.extra.numpy import array_shapes, arrays

    dtype = draw(st.sampled_from([np.float64, np.float32, np.float16, np.int64, np.int32, np.bool_]))
    shape = draw(array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if np.dtype(dtype).kind == "f":
        elems = st.one_of(st.floats(width=np.finfo(dtype).bits), _special_floats.filter(
            lambda v: v != v or abs(v) in (0.0, math.inf)
            or float(np.finfo(dtype).tiny) <= abs(v) <= float(np.finfo(dtype).max)))  # Python floats: no cast
        return draw(arrays(dtype, shape, elements=elems))
    return draw(arrays(dtype, shape))


_values = st.recursive(st.one_of(_scalars, _arrays(), _special_floats.map(np.float32)),
                       lambda kids: st.one_of(st.lists(kids, max_size=4), st.tuples(kids, kids),
                                              st.dictionaries(st.text(max_size=2), kids, max_size=3)),
                       max_leaves=12)


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (3, 2), (2, 0), (0, 2), (2, 3, 4), (4, 1, 3), (1, 2, 3, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.bool_])
def test_enc_of_arrays_of_every_shape(shape, dtype):
    """Every element at its own place: distinct values, shapes whose sides all differ."""
    x = (np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 1.25 - 3).astype(dtype)
    assert enc(x) == _written_enc(x)
    if x.size and np.dtype(dtype).kind == "f":
        x.flat[-1] = np.nan  # not finite: the general path
        assert enc(x) == _written_enc(x)


@settings(max_examples=300)
@given(_values)
def test_enc_is_its_written_contract(x):
    """enc's fast paths (exact types first, a finite float array hexed in one pass) give what its
    contract says for every kind of value: floats and their words, float32 and float16 arrays of
    every shape (zero-size, 0-d), integer and boolean arrays, nested containers."""
    got = enc(x)
    assert got == _written_enc(x)
    assert type(got) is type(_written_enc(x))


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_decimal_repr_of_a_float64_reads_back_exactly(x):
    # repr is the shortest decimal that rounds back; it is exact only when Fraction agrees.
    text = repr(x)
    if Fraction(text) == Fraction(x):
        assert dec(text) == x
    else:
        with pytest.raises(NumberError):
            dec(text)


def test_schema_messages_name_the_field_and_the_reason():
    v = Validator(obj({"u": f64(), "p": f32(nonnegative=True)}, {"r": rational(), "w": f64()}))
    found = list(v.iter_errors({"u": "0.1", "p": "-0x1p0", "r": "1/0", "w": "1/3", "x": 1}))
    errs = {tuple(e.absolute_path): e.message for e in found if not isinstance(e, NumberRead)}
    reads = {tuple(e.absolute_path) + below: (text, rounded) for e in found if isinstance(e, NumberRead)
             for below, text, rounded, _ in e.entries}
    assert reads == {("u",): ("0x1.999999999999ap-4", True)}  # a decimal: read as the nearest float64
    assert "exactly representable as float64" in errs[("w",)]  # a rational: exact or nothing
    assert "nonnegative" in errs[("p",)]
    assert "zero denominator" in errs[("r",)]
    assert "'x' was unexpected" in errs[()]
    found = list(v.iter_errors({"u": "0x1p0", "p": "0.5"}))  # an exact decimal: read as its hex text
    assert [(list(e.absolute_path), e.entries) for e in found] == [
        (["p"], [((), "0x1.0000000000000p-1", False, False)])]
    assert any("required" in e.message for e in v.iter_errors({"p": "0.5"}) if not isinstance(e, NumberRead))


def test_declared_over_reference_ratio_never_overflows():
    import gmpy2

    from oracles.errormodel import Resolved

    huge = Resolved([gmpy2.mpq(2) ** 100], [gmpy2.mpq(16, 2**1074)], {"bound": "0x1p100"}, 2.0**-53)
    assert huge.ratio == math.inf  # 2^1170: beyond float64, reported as inf, never OverflowError
    zero = Resolved([gmpy2.mpq(0)], [gmpy2.mpq(0)], {"bound": "0"}, 2.0**-53)
    assert zero.ratio == 1.0
    assert Resolved([gmpy2.mpq(3)], [gmpy2.mpq(2)], {"u": "0x1p-24"}, 2.0**-24).ratio == 1.5


@pytest.mark.parametrize("text", ["0x1.0000000000001p-1070", "0x1.fffffffffffffp-1023", "-0x1.8000000000001p-1060"])
def test_noncanonical_hex_in_the_subnormals_is_not_rounded(text):
    # float.fromhex rounds these into the subnormals; the claim grammar reads hex text exactly,
    # so the value (not a float64) must be refused, never silently rounded by a fast path.
    q = Fraction(float.fromhex(text))
    assert parse_number(text) != q
    with pytest.raises(NumberError):
        number_as(text, "f64")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_canonical_hex_reads_back_exactly_in_both_formats(x):
    t = x.hex()
    assert parse_number(t) == Fraction(x)
    assert number_as(t, "f64") == x and math.copysign(1, number_as(t, "f64")) == math.copysign(1, x)
    f32_exact = abs(x) <= 3.4028234663852886e38 and float(np.float32(x)) == x
    if f32_exact:
        assert number_as(t, "f32") == x
    else:
        with pytest.raises(NumberError):
            number_as(t, "f32")


# --- Reading decimals by rounding ---------------------------------------------------------------

_F32_MAX = Fraction(2**24 - 1) * 2**104


def _next(v: float, fmt: str, toward: float) -> float:
    if fmt == "f32":
        with np.errstate(over="ignore"):
            return float(np.nextafter(np.float32(v), np.float32(toward)))
    return math.nextafter(v, toward)


def _significand_is_even(v: float, fmt: str) -> bool:
    bits = int(np.float32(v).view(np.uint32)) if fmt == "f32" else int(np.float64(v).view(np.uint64))
    return bits % 2 == 0


def _assert_nearest(q: Fraction, v: float, fmt: str) -> None:
    """``v`` is a value of ``fmt`` nearest the exact ``q``, a tie going to the even significand:
    the definition, checked with exact rationals against both neighbours."""
    if fmt == "f32":
        assert float(np.float32(v)) == v
    d = abs(Fraction(v) - q)
    for n in (_next(v, fmt, -math.inf), _next(v, fmt, math.inf)):
        if math.isfinite(n):
            dn = abs(Fraction(n) - q)
            assert d <= dn, (q, v, n)
            if d == dn:
                assert _significand_is_even(v, fmt), (q, v, n)


def _values_within(q: Fraction, half: Fraction, v: float, fmt: str) -> int:
    """How many values of ``fmt`` lie in [q - half, q + half] (counted outward from ``v``, the
    nearest, and up to 2: enough to tell one from several)."""
    count = 0
    for toward in (-math.inf, math.inf):
        w = v if toward < 0 else _next(v, fmt, math.inf)
        while math.isfinite(w) and abs(Fraction(w) - q) <= half and count < 2:
            count += 1
            w = _next(w, fmt, toward)
    return count


@st.composite
def _decimals(draw):
    digits = draw(st.integers(1, 20))
    mantissa = draw(st.integers(10 ** (digits - 1), 10**digits - 1))
    exp = draw(st.sampled_from([draw(st.integers(-30, 30)), draw(st.integers(-340, -300)),
                                draw(st.integers(-60, -40)), draw(st.integers(280, 300)),
                                draw(st.integers(30, 40))]))
    sign = draw(st.sampled_from(["", "-"]))
    return f"{sign}{mantissa}e{exp}"


@given(_decimals(), st.sampled_from(["f64", "f32"]))
def test_a_decimal_is_read_as_the_nearest_value_of_its_format(text, fmt):
    q = Fraction(text)
    limit = Fraction(2**53 - 1) * 2**971 if fmt == "f64" else _F32_MAX
    ulp_max = Fraction(2) ** (971 if fmt == "f64" else 104)
    if abs(q) >= limit + ulp_max / 2:  # at or past the halfway point to 2^1024 (2^128)
        with pytest.raises(NumberError, match="overflows"):
            read_number(text, fmt)
        return
    r = read_number(text, fmt)
    _assert_nearest(q, r.value, fmt)
    assert r.rounded == (Fraction(r.value) != q)
    if r.value == 0:
        assert math.copysign(1.0, r.value) == (-1.0 if text.startswith("-") else 1.0)
    # short: more than one value of the format within half a unit of the last written digit
    exp = int(text.split("e")[1])
    half = Fraction(1, 2) * Fraction(10) ** exp
    assert r.short == (r.rounded and _values_within(q, half, r.value, fmt) > 1)
    # the same decimal as a JSON number reads the same
    assert read_number(Decimal(text), fmt) == r


@pytest.mark.parametrize("text, fmt, want", [
    ("0.1", "f64", "0x1.999999999999ap-4"),
    ("0.1", "f32", "0x1.99999ap-4"),
    ("16777217", "f32", "0x1p+24"),          # a tie: to the even significand, 2^24
    ("16777219", "f32", "0x1.000004p+24"),   # a tie: to the even significand, 2^24 + 4
    ("9007199254740993", "f64", "0x1p+53"),  # 2^53 + 1: a tie, to 2^53
    ("4e-324", "f64", "0x0.0000000000001p-1022"),  # nearer 2^-1074 than 0
    ("2e-324", "f64", "0x0.0p+0"),           # nearer 0 than 2^-1074
    ("-2e-324", "f64", "-0x0.0p+0"),         # and keeps its sign
    ("0.7e-45", "f32", "0x0.0p+0"),          # just below half of 2^-149
    ("0.71e-45", "f32", "0x1p-149"),
    ("340282356779733661637539395458142568447", "f32", "0x1.fffffep+127"),  # just below the halfway point
])
def test_rounding_at_ties_subnormals_and_the_largest_value(text, fmt, want):
    r = read_number(text, fmt)
    assert r.value == float.fromhex(want) and math.copysign(1, r.value) == math.copysign(1, float.fromhex(want))
    assert r.rounded


def test_beyond_the_largest_value_is_malformed_never_an_infinity():
    # The halfway point to 2^128 rounds to the even 2^128: beyond float32.
    with pytest.raises(NumberError, match="overflows float32"):
        read_number("340282356779733661637539395458142568448", "f32")
    with pytest.raises(NumberError, match="overflows float64"):
        read_number("1.8e308", "f64")
    assert read_number("1.7976931348623158e308", "f64").value == 1.7976931348623157e308
    with pytest.raises(NumberError, match="overflows float32"):
        read_number(1e39, "f32")


def test_exact_numbers_are_not_rounded_and_hex_and_rationals_never_are():
    assert read_number("0.5", "f32") == read_number("0x1p-1", "f32")
    assert not read_number("0.5", "f32").rounded and not read_number(Decimal("-0"), "f64").rounded
    assert math.copysign(1, read_number("-0.0", "f64").value) == -1
    for text, fmt in (("0x1.0000001p0", "f32"), ("1/3", "f64"), ("1/10", "f32")):
        with pytest.raises(NumberError, match="nearest"):
            read_number(text, fmt)
    with pytest.raises(NumberError, match="finite"):
        read_number("inf", "f64", finite=True)
    with pytest.raises(NumberError):
        read_number("1_000", "f64")  # Decimal would read it; the claim grammar does not


def test_a_float_is_its_binary64_value():
    assert read_number(0.1, "f64").value == 0.1 and not read_number(0.1, "f64").rounded
    r = read_number(0.1, "f32")
    assert r.rounded and not r.short
    _assert_nearest(Fraction(0.1), r.value, "f32")


@pytest.mark.parametrize("text, fmt", [("0.1", "f64"), ("1/3", "f64"), ("0.1", "f32"), ("1.116", "f64"),
                                       ("0x1.0000001p0", "f32"), ("3.4028235e38", "f32")])
def test_exact_reading_names_the_two_nearest_values(text, fmt):
    import re

    with pytest.raises(NumberError) as e:
        read_number(text, fmt, exact=True)
    msg = str(e.value)
    q = parse_number(text)
    hexes = re.findall(r"(-?0x[0-9a-f.]+p[+-]\d+) \(([^)]*)\)", msg)
    assert hexes, msg
    lo = float.fromhex(hexes[0][0])
    assert Fraction(lo) < q
    _assert_nearest(Fraction(hexes[0][1]), lo, fmt)  # the decimal shown identifies the same value
    if len(hexes) > 1:
        hi = float.fromhex(hexes[1][0])
        assert q < Fraction(hi) and _next(lo, fmt, math.inf) == hi
        _assert_nearest(Fraction(hexes[1][1]), hi, fmt)
    else:
        assert "none (the largest)" in msg and _next(lo, fmt, math.inf) == math.inf


@pytest.mark.parametrize("text, fmt, short", [
    ("1.23", "f64", True), ("1.2299999999999999", "f64", False),  # 17 digits always identify
    ("0.3", "f64", True), ("0.29999999999999999", "f64", False),
    ("1.23457", "f32", True), ("1.23456788", "f32", False),       # 9 digits for float32
    ("5e-324", "f64", False),  # one digit identifies the smallest subnormal
    ("1.5e-323", "f64", False),
])
def test_short_decimals(text, fmt, short):
    r = read_number(text, fmt)
    assert r.rounded and r.short == short


def test_one_bad_number_is_one_error_with_its_json_text():
    """A number that fits no alternative of a field is reported once, with the best
    alternative's reason and the value as JSON text (never a Python repr such as Decimal(...))."""
    schema = obj({"value": {"anyOf": [array(f64(), min_items=3, max_items=3),
                                      obj({"status": {"enum": ["Degenerate"]}})]}})
    from oracles import schema as S

    doc_claim = {"value": [Decimal("1.116"), "0x1p0", "0x1p1"]}
    v = Validator(schema)
    token = S._EXACT_NUMBERS.set(True)
    try:
        leaves = [leaf for err in v.iter_errors(doc_claim) for leaf in leaf_errors(err)]
    finally:
        S._EXACT_NUMBERS.reset(token)
    assert [list(leaf.absolute_path) for leaf in leaves] == [["value", 0]]
    msg = S.error_message(leaves[0])
    assert msg.startswith("1.116 is not exactly representable as float64") and "Decimal" not in msg
    # Another bad number ("nan" where a finite one is demanded): one error, at its own path.
    doc_claim["value"][0], doc_claim["value"][2] = Decimal("1.5"), "nan"
    leaves = [leaf for err in v.iter_errors(doc_claim) for leaf in leaf_errors(err)]
    assert [list(leaf.absolute_path) for leaf in leaves] == [["value", 2]]


def test_validate_document_reads_decimals_or_refuses_them_under_exact_numbers():
    claim = {"row": "track.key_values", "guarantee": "Exact", "value": {"stored": []},
             "inputs": {"keys": [[Decimal("0.1"), "0", "0", "0", "Linear"]]}}  # a JSON number
    doc = {"format": "claims/1", "claims": [claim]}
    at = "claims[0].inputs.keys[0][0]"
    assert not [e for e in validate_document(doc) if e.path == at]
    strict = [e for e in validate_document(doc, exact_numbers=True) if e.path == at]
    assert len(strict) == 1 and "nearest float64 values" in strict[0].message
