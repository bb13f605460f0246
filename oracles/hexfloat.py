"""Claim numbers in ``float.hex``'s own text, read in bulk.

A case file spells almost every number as ``float.hex`` writes it, and both the schema's bulk
check (``oracles.schema_fast.Deferred.failed``) and the filters' glue need, for tens of
thousands of such texts, the rule "``float.hex(float.fromhex(t)) == t``, and the value". Read
one text at a time that rule costs two Python calls and a comparison per number (about a third
of a microsecond each, the largest single cost of judging a large file); here the texts are
joined into one byte buffer and the canonical forms are recognised and decoded by numpy over
all of them at once:

* ``[-]0x1.hhhhhhhhhhhhhp±e`` with 13 lowercase hex digits and ``e`` in -1022..1023, written
  without leading zeros (``p+0`` for zero): a normal float64;
* ``[-]0x0.hhhhhhhhhhhhhp-1022`` with a nonzero fraction: a subnormal;
* ``0x0.0p+0`` and ``-0x0.0p+0``: the zeros.

Every text outside these forms (``inf``, ``nan``, a short or upper-case spelling, another
type) is judged by the rule itself, one by one, so the two readings agree by construction
wherever the bulk reading does not claim a text; ``tests/oracles/test_hexfloat.py`` holds the
bulk reading to the rule on every class of float64 and on spellings one edit away from canonical.
Guarantee class: Exact (a value is the float64 the text names; no rounding happens).
"""

from __future__ import annotations

import numpy as np

__all__ = ["canonical_values"]

_DIGIT = np.full(256, 255, dtype=np.uint8)  # byte -> value of a lowercase hex digit, else 255
_DIGIT[np.frombuffer(b"0123456789abcdef", dtype=np.uint8)] = np.arange(16, dtype=np.uint8)
_WIDTH = 23  # "0x1." + 13 digits + "p" + sign + at most 4 exponent digits
_ZERO = np.frombuffer(b"0x0.0p+0", dtype=np.uint8)
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
# Packing eight digit bytes (the first digit in the top byte) into eight nibbles, in three steps.
_PACK = [(np.uint64(4), np.uint64(0x00FF00FF00FF00FF)), (np.uint64(8), np.uint64(0x0000FFFF0000FFFF)),
         (np.uint64(16), np.uint64(0x00000000FFFFFFFF))]


def _nibbles(words: np.ndarray) -> np.ndarray:
    """The 32-bit number whose hex digits are the eight bytes of each big-endian word."""
    for shift, mask in _PACK:
        words = (words | (words >> shift)) & mask
    return words


def _one(t) -> tuple[float, bool]:
    """The rule itself, for one text: ``(value, True)`` when ``t`` is ``float.hex``'s own text."""
    if type(t) is not str:
        return 0.0, False
    try:
        v = float.fromhex(t)
    except (ValueError, OverflowError):
        return 0.0, False
    return (v, True) if float.hex(v) == t else (0.0, False)


# Texts read together, at most: the reading's temporaries (about 200 bytes a text) then stay
# within a core's cache and are reused, not fresh pages of memory each time (docs/decisions.md
# "Claim numbers read in bulk").
CHUNK = 16384


def canonical_values(texts: list) -> tuple[np.ndarray, np.ndarray]:
    """``(values, ok)`` of a list of claim numbers: ``ok[i]`` says ``texts[i]`` is a ``str``
    equal to ``float.hex(float.fromhex(texts[i]))`` (no exception), ``values[i]`` is then that
    float64 (0.0 where not ok). Exact: the same answer as the rule applied text by text."""
    n = len(texts)
    if n <= CHUNK:
        return _canonical_values(texts)
    values = np.empty(n, dtype=np.float64)
    ok = np.empty(n, dtype=bool)
    for lo in range(0, n, CHUNK):
        values[lo:lo + CHUNK], ok[lo:lo + CHUNK] = _canonical_values(texts[lo:lo + CHUNK])
    return values, ok


def _canonical_values(texts: list) -> tuple[np.ndarray, np.ndarray]:
    """:func:`canonical_values` of one piece, in one pass of numpy over all of its texts."""
    n = len(texts)
    values = np.zeros(n, dtype=np.float64)
    ok = np.zeros(n, dtype=bool)
    if n == 0:
        return values, ok
    try:
        blob = "\n".join(texts).encode("ascii")
    except (TypeError, UnicodeEncodeError):  # a non-text or a non-ASCII text: the rule, one by one
        blob = None
    buf = None
    if blob is not None:
        buf = np.frombuffer(blob + b"\n" + b"\n" * _WIDTH, dtype=np.uint8)
        ends = np.flatnonzero(buf[: len(blob) + 1] == 10)
        if ends.size != n:  # some text holds a newline
            buf = None
    if buf is not None:
        starts = np.empty(n, dtype=np.int64)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        neg = buf[starts] == ord("-")
        s = starts + neg
        length = ends - s  # without the sign
        w = np.lib.stride_tricks.sliding_window_view(buf, _WIDTH)[s]  # (n, 23) bytes from each start
        digits = np.zeros((n, 16), dtype=np.uint8)  # the 13 fraction digits' values, 3 zero bytes
        digits[:, :13] = _DIGIT.take(w[:, 4:17])  # take: a lookup without fancy indexing's iterator
        words = digits.view(">u8").astype(np.uint64)  # (n, 2): digits 0-7 and 8-15, first digit on top
        shape = ((w[:, 0] == ord("0")) & (w[:, 1] == ord("x")) & (w[:, 3] == ord(".")) & (w[:, 17] == ord("p"))
                 & (((words[:, 0] | words[:, 1]) & _HIGH_NIBBLES) == 0) & (length >= 20) & (length <= 23))
        lead = w[:, 2]
        ne = length - 19  # exponent digits, 1 to 4 where the shape holds
        mag = np.zeros(n, dtype=np.int64)
        for k in range(4):  # digit k of the exponent, where there is one
            d = w[:, 19 + k].astype(np.int64) - ord("0")
            there = ne > k
            shape &= ~there | ((d >= 0) & (d <= 9))
            mag = np.where(there, mag * 10 + d, mag)
        shape &= (w[:, 19] != ord("0")) | (ne == 1)  # no leading zero
        esign = w[:, 18]
        e = np.where(esign == ord("-"), -mag, mag)
        shape &= (esign == ord("+")) | ((esign == ord("-")) & (mag != 0))  # "p-0" is not float.hex's
        frac = (_nibbles(words[:, 0]) << np.uint64(20)) | (_nibbles(words[:, 1]) >> np.uint64(12))
        normal = shape & (lead == ord("1")) & (e >= -1022) & (e <= 1023)
        subnormal = shape & (lead == ord("0")) & (e == -1022) & (frac != 0)
        zero = (length == 8) & (w[:, :8].copy().view("<u8")[:, 0] == _ZERO.view("<u8")[0])
        biased = np.where(normal, e + 1023, 0).astype(np.uint64)
        bits = (biased << np.uint64(52)) | np.where(normal | subnormal, frac, np.uint64(0))
        bits |= neg.astype(np.uint64) << np.uint64(63)
        ok = normal | subnormal | zero
        values = np.where(ok, bits.view(np.float64), 0.0)
    for i in np.flatnonzero(~ok).tolist():  # everything else: the rule
        values[i], ok[i] = _one(texts[i])
    return values, ok
