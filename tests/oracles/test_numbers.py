"""The claim number grammar (docs/casefile.md): hex floats only with 0x, exact p/q rationals,
decimal text and JSON numbers read exactly, representability checked per field format.

Expected values are worked out by hand or with Fraction arithmetic, never with the parser."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from oracles.model import NumberError, dec, dec_array, dec_q, enc, number_as, parse_number
from oracles.schema import _Validator, f32, f64, obj, rational


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


def test_json_numbers_are_exact_decimals():
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
    v = _Validator(obj({"u": f64(), "p": f32(nonnegative=True)}, {"r": rational()}))
    errs = {tuple(e.absolute_path): e.message for e in v.iter_errors({"u": "0.1", "p": "-0x1p0", "r": "1/0", "x": 1})}
    assert "exactly representable as float64" in errs[("u",)]
    assert "nonnegative" in errs[("p",)]
    assert "zero denominator" in errs[("r",)]
    assert "'x' was unexpected" in errs[()]
    assert list(v.iter_errors({"u": "0x1p0", "p": "0.5"})) == []
    assert "required" in next(iter(v.iter_errors({"p": "0.5"}))).message


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
