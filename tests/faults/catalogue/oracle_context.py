"""Planted faults of the oracle's number context (``interval/context.py``): the IV interval
hooks and the enclosure vocabulary every oracle reads endpoints with. Judged by the tests of
the context (exact rationals) and its cross-check against Arb balls
(``tests/interval/test_arb_context.py``), and by the path family's ledger, whose checkers read
IV endpoints and signs."""

from __future__ import annotations

from ..harness import Fault

_C = "interval/context.py"
_CTX = "tests/interval/test_context.py"
_ARB = "tests/interval/test_arb_context.py"
_XCHECK = f"{_ARB}::test_iv_and_arb_enclose_the_exact_result_and_overlap"

FAULTS = [
    Fault("oracle_context.sign3_straddle_is_zero", "path", _C,
          "            if lo == 0 and hi == 0:\n                return 0",
          "            if lo <= 0 <= hi:\n                return 0",
          "IV.sign3 calls an interval that straddles zero exactly zero instead of undecided.",
          (f"{_CTX}::test_sign3", _XCHECK)),
    Fault("oracle_context.sign3_closed_at_zero", "path", _C,
          "            if lo > 0:\n                return 1",
          "            if lo >= 0:\n                return 1",
          "IV.sign3 calls an interval whose lower end is 0 positive (>= instead of >).",
          (f"{_CTX}::test_sign3", _XCHECK)),
    Fault("oracle_context.minimum_lower_from_the_larger", "path", _C,
          "        lo = alo if mpmath.libmp.mpf_cmp(alo, blo) <= 0 else blo\n"
          "        hi = ahi if mpmath.libmp.mpf_cmp(ahi, bhi) <= 0 else bhi",
          "        lo = alo if mpmath.libmp.mpf_cmp(alo, blo) >= 0 else blo\n"
          "        hi = ahi if mpmath.libmp.mpf_cmp(ahi, bhi) <= 0 else bhi",
          "IV.minimum takes its lower end from the larger of the two lower ends (not an enclosure).",
          (f"{_CTX}::test_minimum_maximum_enclose", _XCHECK)),
    Fault("oracle_context.rational_rounded_to_nearest", "path", _C,
          "        return mpmath.iv.mpf(num) / mpmath.iv.mpf(den)",
          "        return mpmath.iv.mpf(float(q))",
          "A rational constant (1/3, 1/6) becomes the point interval of its nearest float64 instead "
          "of an enclosure at the working precision.",
          (f"{_CTX}::test_iv_const_and_iv_from_mpq_are_tight",
           f"{_ARB}::test_const_encloses_tightly_and_overlaps_iv")),
    Fault("oracle_context.lower_float_to_nearest", "path", _C,
          "    return _directed_float(x._mpi_[0], gmpy2.RoundDown)",
          "    return _directed_float(x._mpi_[0], gmpy2.RoundToNearest)",
          "lower_float rounds the exact lower endpoint to nearest float64 instead of toward -inf.",
          (f"{_CTX}::test_lower_upper_float_are_directed",)),
    Fault("oracle_context.sqrt_of_the_magnitude_hull", "path", _C,
          "            x = mpmath.iv.make_mpf((mpmath.libmp.fzero, hi))",
          "            x = mpmath.iv.make_mpf((mpmath.libmp.mpf_neg(lo), hi))",
          "IV.sqrt of an enclosure that dips below zero takes the root from |lo| upward instead of "
          "from 0 (drops the truths between 0 and |lo|).",
          (f"{_CTX}::test_sqrt_clamps_a_slightly_negative_lower_endpoint", _XCHECK)),
]
