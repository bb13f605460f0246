"""oracles.hexfloat reads claim numbers in bulk by the rule ``float.hex(float.fromhex(t)) == t``:
held here to that rule, written out again from Python's own float.hex and float.fromhex, on every
class of float64 and on spellings one edit away from canonical."""

from __future__ import annotations

import math
import struct

import numpy as np
from hypothesis import given, settings, strategies as st

import oracles.hexfloat as H
from oracles.hexfloat import canonical_values


def rule(t) -> tuple[bool, float]:
    """The rule, from Python's float.hex / float.fromhex alone."""
    if not isinstance(t, str):
        return False, 0.0
    try:
        v = float.fromhex(t)
    except (ValueError, OverflowError):
        return False, 0.0
    return float.hex(v) == t, v


def bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def assert_as_rule(texts: list) -> np.ndarray:
    values, ok = canonical_values(texts)
    assert values.shape == ok.shape == (len(texts),)
    for i, t in enumerate(texts):
        want_ok, want = rule(t)
        assert bool(ok[i]) == want_ok, repr(t)
        if want_ok and not math.isnan(want):
            assert bits(float(values[i])) == bits(want), repr(t)  # the sign of a zero too
        elif want_ok:
            assert math.isnan(values[i])
    return ok


EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072009e-308, 2.2250738585072014e-308, 1.0, -1.0, 0.5,
         1.7976931348623157e308, -1.7976931348623157e308, 2.0 ** -1022, 2.0 ** 1023, 1.5 * 2.0 ** -1074,
         float(np.float32(3.4028234663852886e38)), float(np.float32(1.401298464324817e-45)), 0.1, -1e-300]


def test_edges_and_one_edit_spellings_read_as_the_rule():
    texts = [x.hex() for x in EDGES]
    assert assert_as_rule(texts).all()  # every canonical text of the edges is read
    near = ["0x1.0000000000000p-0", "0x1.0000000000000p+00", "0x1.0000000000000p+01", "0x1.0000000000000p+1024",
            "0x1.0000000000000p-1023", "0x0.0000000000000p-1022", "0x0.0000000000001p-1021", "0x0.0p-0",
            "0x0.0p+00", "0x0.00p+0", "+0x1.0000000000000p+0", "0X1.0000000000000p+0", "0x1.000000000000Ap+0",
            "0x1.000000000000p+0", "0x1.00000000000000p+0", "0x2.0000000000000p+0", "0x1,0000000000000p+0",
            "0x1.0000000000000P+0", "0x1.0000000000000p+", "0x1.0000000000000p", "0x1.0000000000000p+10000",
            "0x1.0000000000001p-1070", "0x1.8p+1", " 0x1.0000000000000p+0", "0x1.0000000000000p+0 ", "--0x1.0p+0",
            "-", "", "0x", "inf", "-inf", "+inf", "nan", "-nan", "Infinity", "1.5", "1e3", "0x1.0000000000000p+0\n",
            "0x1.0000000000000p+0é", 1.5, 3, None, True, ["0x1.0000000000000p+0"]]
    assert_as_rule(near)
    assert_as_rule(near + texts)  # the same with the bulk reading's buffer of every text at once
    assert_as_rule([t for t in near if isinstance(t, str) and "\n" not in t and t.isascii()] + texts)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2 ** 64 - 1), min_size=1, max_size=40),
       st.lists(st.tuples(st.integers(0, 24), st.sampled_from("0123456789abcdefABxp+-.")), max_size=6))
def test_every_float64_and_its_near_spellings_read_as_the_rule(patterns, edits):
    xs = [struct.unpack("<d", struct.pack("<Q", b))[0] for b in patterns]
    texts = [x.hex() for x in xs]
    for k, (at, ch) in enumerate(edits):  # replace, insert or delete one character of some text
        t = texts[k % len(texts)]
        texts.append([t[:at] + ch + t[at + 1:], t[:at] + ch + t[at:], t[:at] + t[at + 1:]][k % 3])
    assert_as_rule(texts)


def test_canonical_texts_are_read_in_bulk_not_by_the_rule(monkeypatch):
    """The bulk reading decodes canonical texts itself: with the one-by-one rule disabled, every
    class (normal, subnormal, zeros, both signs, both exponent limits) still reads exactly."""
    def refuse(t):
        raise AssertionError(f"read one by one: {t!r}")

    monkeypatch.setattr(H, "_one", refuse)
    xs = EDGES + [-x for x in EDGES] + [math.ldexp(1.0 + k / 7, e) for k in range(7) for e in (-1022, -1, 0, 1023)]
    values, ok = canonical_values([x.hex() for x in xs])
    assert ok.all()
    assert [bits(float(v)) for v in values] == [bits(x) for x in xs]


def test_a_list_longer_than_a_piece_reads_as_the_rule_across_the_pieces(monkeypatch):
    """Long lists are read in pieces of ``CHUNK`` texts: with pieces of 5, every text (canonical,
    one edit away, a non-text, one holding a newline) reads as the rule wherever it falls, the
    last piece short; and a list of exactly one piece and of one text more reads the same."""
    near = ["0x1.0000000000000p-0", "-0x0.0p+0", 1.5, "0x1.8p+1", "inf", "0x1.0000000000000p+0\n", "nan"]
    texts = [x.hex() for x in EDGES] + near + [(-x).hex() for x in EDGES]
    assert_as_rule(texts)
    monkeypatch.setattr(H, "CHUNK", 5)
    assert len(texts) % 5 != 0
    assert_as_rule(texts)
    assert_as_rule(texts[:5])
    assert_as_rule(texts[:6])
