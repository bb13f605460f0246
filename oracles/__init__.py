"""The checker side: claims, verdicts, one checker per guarantee row, the evidence ledger, case
files and the command line (``python -m oracles``).

For a Python implementation, :func:`judge` judges claims in process (a pytest suite can assert
on the verdicts without the command line)::

    import oracles
    verdicts = oracles.judge([{"row": "path.control_boxes", "guarantee": "Exact", ...}])
    assert all(v.kind is oracles.VerdictKind.Verified for v in verdicts)
"""

from __future__ import annotations

import enum
import math
import os
import sys
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

# ``python -m oracles``: one BLAS thread, chosen before .model loads numpy (docs/decisions.md
# "One BLAS thread"): the oracle scales out by processes, Dask's nanny starts its workers with
# these same three, and OpenBLAS's own threads only spin on the other core. Only the command
# line (``-m`` naming this package or a module of it) sets them, never a program that imports
# oracles; a value already set is kept.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def _run_as_command() -> bool:
    """Whether Python is importing this package to run ``python -m oracles[.module]``: then
    sys.argv[0] is "-m" (the module is being located) and the module follows ``-m``."""
    argv = sys.orig_argv
    return (sys.argv[:1] == ["-m"] and "-m" in argv[:-1]
            and argv[argv.index("-m") + 1].split(".")[0] == __name__)


# ``python -m oracles`` also collects cyclic garbage rarely (docs/decisions.md "Few
# collections"): a run builds hundreds of thousands of acyclic objects (parsed claims, verdicts),
# and CPython's default thresholds (700, 10, 10) walk that growing heap again and again, a sixth
# of the CPU of checking a 10,000-claim file. The young generation still runs, every 1,000,000
# allocations (net of frees), so the few cycles a run makes (a caught exception and its frames;
# 1,792 objects in all at the end of the serial default ledger) are still freed.
GC_THRESHOLDS = (1_000_000, 20, 100)

if _run_as_command():
    for _name, _value in BLAS_THREADS.items():
        os.environ.setdefault(_name, _value)
    import gc

    gc.set_threshold(*GC_THRESHOLDS)

from .model import Claim, Verdict, VerdictKind  # noqa: E402  (after the BLAS threads are chosen)

__version__ = "0.1.0"

__all__ = ["Claim", "MalformedClaims", "Verdict", "VerdictKind", "__version__", "judge"]

if TYPE_CHECKING:
    from .schema import FieldError


class MalformedClaims(ValueError):
    """Some claims given to :func:`judge` are malformed: they were not judged.

    Attributes:
        errors: one :class:`oracles.schema.FieldError` per problem, each naming the claim's
            index (``claim``), its label (``id``), the field (``path``) and the reason.
        verdicts: the verdicts of the other claims, in the order given (None for a malformed
            one): a malformed claim never hides a Violated one.
    """

    def __init__(self, errors: list[FieldError], verdicts: list[Verdict | None]):
        shown = "; ".join(str(e) for e in errors[:5])
        more = f"; and {len(errors) - 5} more" if len(errors) > 5 else ""
        super().__init__(f"{len(errors)} problems in {len({e.claim for e in errors})} claims: {shown}{more}")
        self.errors = errors
        self.verdicts = verdicts


def _plain(x: Any) -> Any:
    """A claim's data as the JSON reader of a case file gives it: dicts, lists, str, int, bool,
    None and JSON numbers (``Decimal``). A float becomes the decimal ``json.dump`` writes for
    it (repr: the shortest that reads back as that float64), so judging a claim in process and
    judging it from a file ``json.dump`` wrote give the same reading; NaN and infinities become
    the words ``"nan"``, ``"inf"``, ``"-inf"``. Fractions become ``"p/q"``."""
    import numpy as np

    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        v = float(x)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return Decimal(repr(v))
    if isinstance(x, enum.Enum):
        return x.value
    if hasattr(x, "numerator") and hasattr(x, "denominator") and not isinstance(x, (str, Decimal)):
        return f"{int(x.numerator)}/{int(x.denominator)}"
    return x


def judge(claims: Iterable[Claim | Mapping[str, Any]], *, exact_numbers: bool = False) -> list[Verdict]:
    """Judge claims in process, as ``python -m oracles check`` judges a case file's claims.

    Args:
        claims: :class:`oracles.model.Claim` objects, or claim objects as a case file holds them
            (``{"row", "guarantee", "inputs", "value"}`` and optionally ``"model"`` and ``"id"``;
            ``docs/casefile.md``). Numbers may take any form of the claim number grammar (hex
            text, ``"p/q"``, decimal text) or be Python or numpy numbers; arrays may be numpy
            arrays. A float is read like the decimal ``json.dump`` writes for it: exactly where
            the field's format holds it (every float64 in a float64 field), else the nearest
            value of the format (a float64 in a float32 field).
        exact_numbers: refuse a decimal (or float) that is not exactly a value of its field's
            format, as ``check --exact-numbers`` does.

    Returns:
        One :class:`oracles.model.Verdict` per claim, in order, each carrying its claim (with
        its ``id``): ``Verified`` (the oracle showed the claim holds), ``Violated`` (shown to
        fail; ``witness`` says how), ``Undecided`` (not decided within the oracle's budget, or
        no checker for the row: never a pass), or a fault of the verification itself
        (``CheckerError``, ``OracleFault``: the claim was not judged). The verdicts are the
        oracle's, never estimated: a claim is Verified only where the checker could have
        refuted it.

    Raises:
        TypeError: ``claims`` is one claim (a Claim, a mapping), a string or not iterable: a list
            of claims is wanted (a dict would otherwise be read as its keys).
        MalformedClaims: after judging every well-formed claim, when any claim is malformed
            (fails the case-file schema, or names something its checker cannot read); the
            exception lists each problem with the claim's index, id and field path, and carries
            the other claims' verdicts. Nothing is guessed: a malformed claim is never judged.
    """
    from .batch import check_claims
    from .casefile import FORMAT, read_claims
    from .schema import FieldError

    if isinstance(claims, (Claim, Mapping, str, bytes)) or not isinstance(claims, Iterable):
        raise TypeError(f"judge takes an iterable of claims, not {type(claims).__name__}: "
                        "judge([claim]) for one claim")
    items = [_plain(c.to_json() if isinstance(c, Claim) else c) for c in claims]
    doc = {"format": FORMAT, "claims": items}
    read, errors, _ = read_claims(doc, exact_numbers=exact_numbers)
    verdicts: list = [None] * len(items)
    # As check judges: a row at a time where the row has a batch checker (oracles.batch); a
    # checker that finds a claim malformed gives the exception instead of a verdict.
    for (i, claim), v in zip(read, check_claims([c for _, c in read])):
        if isinstance(v, BaseException):
            errors.append(FieldError(f"claims[{i}]", f"{claim.row}: {type(v).__name__}: {v}", i, claim.id))
        else:
            verdicts[i] = v
    if errors:
        errors.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
        raise MalformedClaims(errors, verdicts)
    return verdicts
