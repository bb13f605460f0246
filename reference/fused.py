"""Cubic kernels compiled to fused float64 numba code, for dense sampling and for compiled
searches. Rounded (bit-identical to the numpy kernels on ``F64``).

numpy evaluates a kernel of ``reference/kernel.py`` one operation at a time over whole arrays:
about twenty passes over memory for a point. Here the same kernel is *recorded* once: it runs on
:data:`REC`, a context whose values are nodes of an expression graph (the controls and the
parameter are named leaves, ``ctx.const`` gives the float64 constant ``F64`` gives), so the
graph holds every operation the body performs, in order. The graph is emitted as the body of a
numba loop over parameters, one float64 operation per node with its recorded operands, and
compiled on first use (``reference.jitcache``: the generated text is cached on disk under a
hash of itself and of this package's sources). numba without ``fastmath`` neither reassociates
nor contracts a multiply and an add into an FMA, so every output has the bits of
``kernel(F64, P, u)``; ``tests/reference/test_fused.py`` checks that on random and nasty
inputs. The arithmetic is written once, in the kernel; this module only schedules it.

Why: on 10^6 parameters the numpy kernel was 0.26x bezier's compiled ``evaluate_multi``
(``docs/performance.md``, sampling row); the issue asks for 0.5x.
"""

from __future__ import annotations

import threading
from functools import cache

import numpy as np

from . import kernel as K
from .context import F64
from .jitcache import jit_source
from .status import overlap_failure

__all__ = ["REC", "SAMPLED", "fused_sampler", "record", "row_kernel", "sample_spans"]


class _Node:
    """One float64 operation (or leaf) of a recorded kernel."""

    __slots__ = ("args", "name", "op")
    _count = 0

    def __init__(self, op: str, args: tuple = (), name: str = ""):
        self.op, self.args, self.name = op, args, name

    def _bin(self, op, other, swap=False):
        if isinstance(other, _Node):
            a, b = (other, self) if swap else (self, other)
            return _Node(op, (a, b))
        return NotImplemented  # arrays: numpy then applies the operation per element

    def __add__(self, o):
        return self._bin("+", o)

    def __radd__(self, o):
        return self._bin("+", o, True)

    def __sub__(self, o):
        return self._bin("-", o)

    def __rsub__(self, o):
        return self._bin("-", o, True)

    def __mul__(self, o):
        return self._bin("*", o)

    def __rmul__(self, o):
        return self._bin("*", o, True)

    def __truediv__(self, o):
        return self._bin("/", o)

    def __rtruediv__(self, o):
        return self._bin("/", o, True)

    def __neg__(self):
        return _Node("neg", (self,))

    def __bool__(self):  # a kernel must not branch on a computed value (kernel rules)
        raise TypeError("a recorded kernel value has no truth value")


class _Recording:
    """The recording context: just enough of the number-context protocol for the cubic kernels
    (``const``, ``scope``); anything else a kernel asks for fails loudly."""

    name = "REC"

    def const(self, s: str):
        return _Node("const", (float(F64.const(s)),))

    def scope(self):
        import contextlib

        return contextlib.nullcontext()


REC = _Recording()


def record(fn, scalars: tuple = ("u",)):
    """The outputs (D nodes) of ``fn(REC, P, *scalars)`` for symbolic controls ``P`` (4, D=3)
    named ``pjd`` and symbolic scalar parameters named as given: the recorded program of a
    cubic kernel."""
    P = np.empty((4, 3), dtype=object)
    for j in range(4):
        for d in range(3):
            P[j, d] = _Node("leaf", (), f"p{j}{d}")
    out = fn(REC, P, *(_Node("leaf", (), name) for name in scalars))
    return list(np.asarray(out, dtype=object).reshape(-1))


def _body(outputs, indent: str) -> tuple:
    """``(lines, names)``: one assignment per recorded operation in recorded (topological)
    order, and the local names of the outputs."""
    names: dict = {}
    lines: list = []

    def visit(n):
        if id(n) in names:
            return names[id(n)]
        if n.op == "leaf":
            names[id(n)] = n.name
            return n.name
        if n.op == "const":
            names[id(n)] = repr(n.args[0])  # repr round-trips a float64 exactly
            return names[id(n)]
        args = [visit(a) for a in n.args]
        v = f"_t{len(lines)}"  # underscore: never a leaf name
        expr = f"-{args[0]}" if n.op == "neg" else f"{args[0]} {n.op} {args[1]}"
        lines.append(f"{indent}{v} = {expr}")
        names[id(n)] = v
        return v

    outs = [visit(n) for n in outputs]
    return lines, outs


def _controls(indent: str, index: str) -> list:
    # Controls widen to float64 exactly, as the numpy path's astype(np.float64) does.
    return [f"{indent}p{j}{d} = np.float64(C[{index}{j}, {d}])" for j in range(4) for d in range(3)]


def _emit(outputs) -> str:
    """Python source of ``f(C, ks, us, out)``: ``out[i] = kernel(controls C[ks[i]], us[i])``,
    C float32 (n, 4, 3)."""
    lines, outs = _body(outputs, " " * 8)
    head = ["def f(C, ks, us, out):",
            "    for i in range(us.shape[0]):",
            "        k = ks[i]",
            "        u = us[i]"] + _controls(" " * 8, "k, ")
    tail = [f"        out[i, {d}] = {v}" for d, v in enumerate(outs)]
    return "\n".join(head + lines + tail) + "\n"


def _emit_row(outputs, scalars: tuple) -> str:
    """Python source of ``f(C, *scalars, out, row)``: ``out[row] = kernel(C, *scalars)`` for one
    span's controls C (4, 3)."""
    lines, outs = _body(outputs, " " * 4)
    head = [f"def f(C, {', '.join(scalars)}, out, row):"] + _controls(" " * 4, "")
    tail = [f"    out[row, {d}] = {v}" for d, v in enumerate(outs)]
    return "\n".join(head + lines + tail) + "\n"


_LOCK = threading.Lock()


def _compile(src: str, label: str):
    # A kernel compiled (or loaded from the cache) when first called; its generated text is part
    # of its cache key (reference/jitcache.py).
    return jit_source(src, f"fused {label}", module=__name__, scope={"np": np}, nogil=True)


SAMPLED = ("cubic_point", "cubic_derivative", "cubic_second_derivative")


@cache
def fused_sampler(name: str):
    """The compiled sampler of kernel ``name`` (one of :data:`SAMPLED`): ``f(C, ks, us, out)``,
    recorded here and compiled (or loaded from the on-disk cache) on its first call. Unchecked,
    for callers that have resolved every index (``reference.path``): an index out of range or
    a short ``out`` reads or writes outside the arrays. :func:`sample_spans` checks first."""
    with _LOCK:
        return _compile(_emit(record(getattr(K, name))), name)


@cache
def row_kernel(name: str, scalars: tuple):
    """Kernel ``name`` of one span as a compiled kernel ``f(C, *scalars, out, row)`` writing
    ``out[row, :3]``, callable from other numba code (``reference/query.py`` takes
    ``cubic_blossom`` so; ``scalars = ("t1", "t2", "t3")``). Bit-identical to
    ``kernel(F64, C, *scalars)``. Compiled when first called."""
    with _LOCK:
        return _compile(_emit_row(record(getattr(K, name), scalars), scalars), f"{name} row")


def sample_spans(name: str, controls: np.ndarray, ks: np.ndarray, us: np.ndarray, out: np.ndarray) -> None:
    """``out[:m] = kernel(F64, controls[ks].astype(float64), us)`` row by row, in one fused
    pass (m = ``us.size``). ``controls`` float32 (n, 4, 3), ``ks`` integers (m,) each in
    ``[0, n)``, ``us`` float64 (m,), ``out`` a writeable float64 (>= m, 3). Rounded,
    bit-identical to the numpy kernel on ``F64``.

    The arguments are checked first (a ValueError or TypeError naming the argument, nothing
    written): the compiled loop itself checks no bound, and an index out of range or a short
    ``out`` would read or write outside the arrays."""
    if name not in SAMPLED:
        raise ValueError(f"name must be one of {SAMPLED}, not {name!r}")
    for arg, a, dtype, ndim in (("controls", controls, np.float32, 3), ("us", us, np.float64, 1),
                                ("out", out, np.float64, 2)):
        if not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != ndim:
            raise TypeError(f"{arg} must be a {ndim}-D {np.dtype(dtype).name} array")
    if not isinstance(ks, np.ndarray) or ks.ndim != 1 or not np.issubdtype(ks.dtype, np.integer):
        raise TypeError("ks must be a 1-D integer array")
    n, m = controls.shape[0], us.shape[0]
    if controls.shape[1:] != (4, 3):
        raise ValueError(f"controls must be (n, 4, 3), not {controls.shape}")
    if ks.shape[0] != m:
        raise ValueError(f"ks and us differ in length ({ks.shape[0]} and {m})")
    if out.shape[0] < m or out.shape[1] != 3 or not out.flags.writeable:
        raise ValueError(f"out must be a writeable ({m} or more, 3) array, not {out.shape}")
    if overlap_failure((("out", out),), (("controls", controls), ("ks", ks), ("us", us))) is not None:
        raise ValueError("out shares memory with controls, ks or us: the loop would overwrite its own inputs")
    if m and (int(ks.min()) < 0 or int(ks.max()) >= n):
        raise ValueError(f"every span index must be in [0, {n}): ks holds {int(ks.min())} to {int(ks.max())}")
    fused_sampler(name)(controls, ks.astype(np.intp, copy=False), us, out)
