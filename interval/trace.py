"""``TRACE32``/``TRACE64``: a shadow-execution number context for explaining precision loss.

A tracing context runs the generic kernels of :mod:`reference.kernel` unchanged. Each value
is a :class:`TNum` carrying

* ``w``: the working-format value (``np.float32`` or ``np.float64``), computed by the same
  numpy scalar operation the ``F32``/``F64`` contexts apply elementwise, so the working results
  agree with those contexts bit for bit;
* ``x``: its shadow, the value the same operations give on the *exact* inputs: an exact
  ``gmpy2.mpq`` while every step is rational (the ``QQ`` result), an ``mpmath.iv`` interval at
  ``prec`` bits once a square root enters (an enclosure, like ``IV``); ``None`` where the
  exact value does not exist (a division by an exact zero);

and every operation appends a :class:`Step` to the context's tape: the operation, its
operands, where in the kernel source it happened, and its *local* rounding error, the exact
``fl(a op b) - (a op b)`` on the working operands. Leaves record the error of putting an input
or a constant into the working format (``input`` when an input is rounded, ``narrow32`` for an
explicit float32 narrowing), so the origin subtraction and the narrowing of a prepared path
appear as steps like any other.

:func:`attribute` turns a tape into an explanation of one output: the accumulated error
``w - x`` of every step, and each step's first-order contribution to the output's error
(reverse-mode adjoints of the working values times the local errors), so the step where most
error entered can be marked.

Guarantee class: the working values are Rounded exactly as ``F32``/``F64``; the shadows are
Exact (mpq) or Certified enclosures (intervals); the attributions are Estimated (first order).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np
from mpmath import iv

from reference.context import UNKNOWN, Context, _float_const

from .context import iv_from_mpq, lower, mid, to_mpq, upper
from .narrowing import exact_ulp32, round_nearest_f32

__all__ = [
    "TRACE32",
    "TRACE64",
    "Attribution",
    "Step",
    "TNum",
    "Tape",
    "TraceContext",
    "attribute",
    "shadow",
    "trace_context",
    "ulp_of",
    "working",
]

_mpq = gmpy2.mpq
_MPQ = type(_mpq(0))
_IVMPF = type(iv.mpf(0))
_KERNEL_FILE = os.path.join("reference", "kernel.py")


@dataclass
class Step:
    """One traced operation.

    Attributes:
        index: position on the tape.
        op: ``input``, ``const``, ``narrow32``, ``add``, ``sub``, ``mul``, ``div``, ``neg``,
            ``sqrt``, ``abs``, ``min``, ``max``.
        args: tape indices of the operands.
        w: the working-format value.
        x: the shadow (mpq, iv interval, or None).
        local: exact local rounding error ``w - op(operand working values)`` (mpq; for a
            square root an interval's midpoint; None when not finite).
        where: ``function:line`` of the kernel source that made the step, and its text.
        label: a caller-given name (inputs and explicit steps).
    """

    index: int
    op: str
    args: tuple
    w: Any
    x: Any
    local: Any
    where: str = ""
    label: str = ""


class Tape:
    """The steps of one shadow execution, in execution (topological) order."""

    def __init__(self):
        self.steps: list[Step] = []

    def __len__(self) -> int:
        return len(self.steps)


def _where() -> str:
    # The innermost frame in reference/kernel.py names the kernel line that did the operation.
    f = sys._getframe(2)
    depth = 0
    while f is not None and depth < 12:
        if f.f_code.co_filename.endswith(_KERNEL_FILE):
            import linecache

            text = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
            return f"{f.f_code.co_name}:{f.f_lineno}: {text}"
        f, depth = f.f_back, depth + 1
    return ""


def _is_finite(w) -> bool:
    return bool(np.isfinite(w))


def _q(w):
    """Exact rational of a finite working value (None for inf/nan)."""
    return _mpq(float(w)) if _is_finite(w) else None


class TNum:
    """A working-format value with its shadow, on a tape. Use through :class:`TraceContext`."""

    __slots__ = ("ctx", "i", "w", "x")

    def __init__(self, ctx: TraceContext, w, x, i: int):
        self.ctx, self.w, self.x, self.i = ctx, w, x, i

    # Binary operators: the working value by the numpy scalar operation of the dtype (what a
    # float context does elementwise), the shadow by the same operation on shadows.
    def _bin(self, other, op: str, rev: bool = False):
        ctx = self.ctx
        if isinstance(other, np.ndarray):
            return NotImplemented  # numpy applies the operation elementwise
        o = other if isinstance(other, TNum) else ctx._leaf_plain(other)
        a, b = (o, self) if rev else (self, o)
        return ctx._binary(op, a, b)

    def __add__(self, o):
        return self._bin(o, "add")

    def __radd__(self, o):
        return self._bin(o, "add", True)

    def __sub__(self, o):
        return self._bin(o, "sub")

    def __rsub__(self, o):
        return self._bin(o, "sub", True)

    def __mul__(self, o):
        return self._bin(o, "mul")

    def __rmul__(self, o):
        return self._bin(o, "mul", True)

    def __truediv__(self, o):
        return self._bin(o, "div")

    def __rtruediv__(self, o):
        return self._bin(o, "div", True)

    def __neg__(self):
        return self.ctx._unary("neg", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.ctx._unary("abs", self)

    def __float__(self):
        return float(self.w)

    def __repr__(self) -> str:
        return f"TNum(w={float(self.w)!r}, x={self.x!s}, step={self.i})"


_WORK = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}


def _exact_op(op, a, b):
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if b == 0:
        return None
    return a / b


class TraceContext(Context):
    """A float context (``dtype`` float32 or float64) whose values carry shadows on a tape.

    Args:
        dtype: the working format.
        prec: bits of the interval shadows once a square root makes a value irrational.
    """

    is_exact = False
    is_enclosure = False

    def __init__(self, dtype, prec: int = 113):
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise ValueError("a tracing context works in float32 or float64")
        self.name = "TRACE32" if self.dtype == np.float32 else "TRACE64"
        self.unit_roundoff = float(np.finfo(self.dtype).eps) / 2.0
        self.prec = prec
        self.tape = Tape()
        self._sqrt = np.frompyfunc(lambda a: self._unary("sqrt", a), 1, 1)
        self._abs = np.frompyfunc(lambda a: self._unary("abs", a), 1, 1)
        self._min = np.frompyfunc(lambda a, b: self._select("min", a, b), 2, 1)
        self._max = np.frompyfunc(lambda a, b: self._select("max", a, b), 2, 1)

    # --- tape -----------------------------------------------------------------------------

    def reset(self) -> Tape:
        """Start a new tape (and return it)."""
        self.tape = Tape()
        return self.tape

    @contextlib.contextmanager
    def recording(self):
        """``with ctx.recording() as tape:`` a fresh tape for the block."""
        saved = self.tape
        tape = self.reset()
        try:
            yield tape
        finally:
            self.tape = saved if saved is not tape else tape

    def scope(self):
        # Overflow and invalid operations give inf/nan as in the float contexts; the numpy
        # scalar warnings they raise would only be noise here.
        return np.errstate(all="ignore")

    def _push(self, op, args, w, x, local, label="", where=None) -> TNum:
        i = len(self.tape.steps)
        self.tape.steps.append(Step(i, op, tuple(args), w, x, local,
                                    _where() if where is None else where, label))
        return TNum(self, w, x, i)

    # --- shadows ----------------------------------------------------------------------------

    def _as_iv(self, x):
        if isinstance(x, _IVMPF):
            return x
        return iv_from_mpq(x, self.prec)

    def _shadow_binary(self, op, xa, xb):
        if xa is None or xb is None:
            return None
        if isinstance(xa, _MPQ) and isinstance(xb, _MPQ):
            return _exact_op(op, xa, xb)
        saved = iv.prec
        iv.prec = self.prec
        try:
            a, b = self._as_iv(xa), self._as_iv(xb)
            if op == "div" and lower(b) <= 0 <= upper(b):
                return None
            return {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
                    "div": lambda: a / b}[op]()
        finally:
            iv.prec = saved

    def _iv_sqrt(self, x):
        saved = iv.prec
        iv.prec = self.prec
        try:
            v = self._as_iv(x)
            if lower(v) < 0:
                if upper(v) < 0:
                    return None
                v = iv.mpf([0, v.b])
            return iv.sqrt(v)
        finally:
            iv.prec = saved

    def _exact_sqrt(self, q):
        if q < 0:
            return None
        n, d = q.numerator, q.denominator
        if gmpy2.is_square(n) and gmpy2.is_square(d):
            return _mpq(gmpy2.isqrt(n), gmpy2.isqrt(d))
        return self._iv_sqrt(q)

    # --- operations -------------------------------------------------------------------------

    def _binary(self, op, a: TNum, b: TNum) -> TNum:
        with np.errstate(all="ignore"):
            w = _WORK[op](a.w, b.w)
        x = self._shadow_binary(op, a.x, b.x)
        qa, qb, qw = _q(a.w), _q(b.w), _q(w)
        local = None
        if qa is not None and qb is not None and qw is not None:
            e = _exact_op(op, qa, qb)
            local = None if e is None else qw - e
        return self._push(op, (a.i, b.i), w, x, local)

    def _unary(self, op, a: TNum) -> TNum:
        with np.errstate(all="ignore"):
            if op == "neg":
                w, x = -a.w, (None if a.x is None else -a.x)
                local = _mpq(0) if _is_finite(w) else None
            elif op == "abs":
                w, x = abs(a.w), (None if a.x is None else abs(a.x))
                local = _mpq(0) if _is_finite(w) else None
            else:  # sqrt
                w = np.sqrt(a.w)
                if a.x is None:
                    x = None
                elif isinstance(a.x, _MPQ):
                    x = self._exact_sqrt(a.x)
                else:
                    x = self._iv_sqrt(a.x)
                local = None
                qa, qw = _q(a.w), _q(w)
                if qa is not None and qw is not None and qa >= 0:
                    r = self._exact_sqrt(qa)
                    local = qw - (r if isinstance(r, _MPQ) else mid(r))
        return self._push(op, (a.i,), w, x, local)

    def _select(self, op, a: TNum, b: TNum) -> TNum:
        pick = np.minimum if op == "min" else np.maximum
        w = pick(a.w, b.w)
        if a.x is None or b.x is None:
            x = None
        elif isinstance(a.x, _MPQ) and isinstance(b.x, _MPQ):
            x = min(a.x, b.x) if op == "min" else max(a.x, b.x)
        else:
            from .context import IntervalContext

            fn = IntervalContext._min1 if op == "min" else IntervalContext._max1
            x = fn(self._as_iv(a.x), self._as_iv(b.x))
        local = _mpq(0) if _is_finite(w) else None
        return self._push(op, (a.i, b.i), w, x, local)

    def _leaf(self, value, label="", op="input") -> TNum:
        """A leaf from plain data: the working value is ``dtype(value)``; the shadow is the
        exact value given (so an input the format must round shows its rounding error)."""
        if isinstance(value, TNum):
            return value
        exact = _exact_of(value)
        w = self.dtype.type(float(value)) if not isinstance(value, (str, Fraction, _MPQ)) else \
            self._round_exact(exact)
        local = None if exact is None or not _is_finite(w) else _q(w) - exact
        return self._push(op, (), w, exact, local, label=label, where="")

    def _round_exact(self, q):
        if self.dtype == np.float64:
            from .narrowing import round_nearest_f64

            return np.float64(round_nearest_f64(q))
        return round_nearest_f32(q)

    def _leaf_plain(self, value) -> TNum:
        return self._leaf(value, label="plain", op="const")

    # --- the context protocol ---------------------------------------------------------------

    def asarray(self, x, label: str = "input"):
        """Leaves for plain data ``x`` (an array of TNum passes through unchanged)."""
        arr = np.asarray(x, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        for idx in np.ndindex(arr.shape):
            v = arr[idx]
            name = label + ("[" + ",".join(map(str, idx)) + "]" if idx else "")
            out[idx] = v if isinstance(v, TNum) else self._leaf(v, name)
        return out

    def const(self, s: str):
        q = Fraction(s)
        exact = _mpq(q.numerator, q.denominator)
        w = _float_const(self.dtype.str, s)
        local = _q(w) - exact
        return np.array(self._push("const", (), w, exact, local, label=s), dtype=object)

    def sqrt(self, x):
        return self._sqrt(x)

    def abs(self, x):
        return self._abs(x)

    def minimum(self, a, b):
        return self._min(a, b)

    def maximum(self, a, b):
        return self._max(a, b)

    def sign3(self, x):
        # The working value's sign, as the float contexts answer (NaN: UNKNOWN).
        w = working(x).astype(np.float64)
        s = np.sign(w)
        return np.where(np.isnan(s), UNKNOWN, s).astype(np.int8)

    def to_float(self, x):
        return working(x).astype(np.float64)

    # --- steps outside the kernels ----------------------------------------------------------

    def narrow32(self, x, label: str = "narrow"):
        """Round each value to float32 (a prepared path's narrowing) as a traced step; the
        shadow is unchanged, so the narrowing error shows as that step's local error. The
        result stays in this context's dtype (float32 values widen exactly to float64)."""
        def one(a):
            n = np.float32(a.w)
            w = self.dtype.type(n)
            qa, qw = _q(a.w), _q(w)
            local = None if qa is None or qw is None else qw - qa
            return self._push("narrow32", (a.i,), w, a.x, local, label=label, where="")

        return np.frompyfunc(one, 1, 1)(np.asarray(x, dtype=object))

    def label(self, x, name: str):
        """Name the steps that produced ``x`` (shown in explanations)."""
        for idx in np.ndindex(np.shape(x)):
            v = np.asarray(x, dtype=object)[idx]
            self.tape.steps[v.i].label = name + ("[" + ",".join(map(str, idx)) + "]" if idx else "")
        return x

    def __repr__(self) -> str:
        return self.name


def _exact_of(v):
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return None
    if isinstance(v, (bool, np.bool_)):
        return _mpq(int(v))
    return to_mpq(v)


TRACE32 = TraceContext(np.float32)
TRACE64 = TraceContext(np.float64)


def trace_context(fmt: str, prec: int = 113) -> TraceContext:
    """A fresh tracing context for ``"f32"``/``"f64"`` (its own tape)."""
    return TraceContext(np.float32 if fmt in ("f32", "float32", "F32") else np.float64, prec)


def working(x) -> np.ndarray:
    """The working values of an array of TNum, as an array of the working dtype."""
    arr = np.asarray(x, dtype=object)
    flat = [v.w for v in arr.ravel()]
    if not flat:
        return np.zeros(arr.shape)
    dtype = np.asarray(flat[0]).dtype
    return np.array(flat, dtype=dtype).reshape(arr.shape)


def shadow(x) -> np.ndarray:
    """The shadows of an array of TNum (object array of mpq / iv / None)."""
    arr = np.asarray(x, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for idx in np.ndindex(arr.shape):
        out[idx] = arr[idx].x
    return out


def _ulp64(x) -> gmpy2.mpq:
    a = abs(float(x))
    if a == 0.0 or not math.isfinite(a):
        return _mpq(1, 2**1074)
    _, e = math.frexp(a)
    k = max(e - 53, -1074)
    return _mpq(2) ** k if k >= 0 else _mpq(1, 2 ** (-k))


def ulp_of(w, fmt: str) -> gmpy2.mpq:
    """The spacing of the format (``"f32"``/``"f64"``) at the magnitude of ``w`` (exact)."""
    if fmt == "f32":
        a = float(w)
        if not math.isfinite(a):
            return _mpq(1, 2**149)
        return exact_ulp32(np.float32(min(abs(a), 3.4028234663852886e38)))
    return _ulp64(w)


def _point(x):
    """A representative rational of a shadow (the interval midpoint)."""
    if x is None:
        return None
    return x if isinstance(x, _MPQ) else mid(x)


def _radius(x):
    return _mpq(0) if x is None or isinstance(x, _MPQ) else (upper(x) - lower(x)) / 2


def _fmt(ctx_dtype) -> str:
    return "f32" if np.dtype(ctx_dtype) == np.float32 else "f64"


@dataclass
class Attribution:
    """Where the error of one output entered.

    Attributes:
        output: the output's tape index.
        error: accumulated error ``w - x`` of the output (float; shadow midpoint).
        error_ulps: the same in ulps of the working format at the output.
        contributions: per step index, the signed first-order contribution
            ``dout/dstep * local`` (float64, in the output's units; inf when not finite).
        dominant: the step whose contribution, removed, shrinks ``|error|`` most (None when
            no step rounds).
        cone: the step indices the output depends on, in tape order.
    """

    output: int
    error: float | None
    error_ulps: float | None
    contributions: dict
    dominant: int | None
    cone: list = field(default_factory=list)


def _partials(step: Step, steps: list) -> list[float]:
    """d step / d operand, from float64 copies of the working values (first order)."""
    a = [float(steps[j].w) for j in step.args]
    op = step.op
    if op == "add":
        return [1.0, 1.0]
    if op == "sub":
        return [1.0, -1.0]
    if op == "mul":
        return [a[1], a[0]]
    if op == "div":
        return [1.0 / a[1], -a[0] / (a[1] * a[1])] if a[1] != 0 else [math.inf, math.inf]
    if op == "neg":
        return [-1.0]
    if op == "abs":
        return [math.copysign(1.0, a[0])]
    if op == "sqrt":
        w = float(step.w)
        return [0.5 / w if w != 0 else math.inf]
    if op in ("narrow32", "convert"):
        return [1.0]
    if op in ("min", "max"):
        first = (a[0] <= a[1]) if op == "min" else (a[0] >= a[1])
        return [1.0, 0.0] if first else [0.0, 1.0]
    return []


def attribute(tape: Tape, out: TNum) -> Attribution:
    """Explain the error of the output ``out``: reverse-mode adjoints over its dependency
    cone, each step's contribution ``adjoint * local error``, and the dominant step.
    Estimated (first order in the local errors)."""
    steps = tape.steps
    adj = {out.i: 1.0}
    cone = []
    with np.errstate(all="ignore"):
        for i in range(out.i, -1, -1):
            if i not in adj:
                continue
            cone.append(i)
            s = steps[i]
            for j, d in zip(s.args, _partials(s, steps)):
                v = adj[i] * d
                adj[j] = adj.get(j, 0.0) + (v if math.isfinite(v) else math.inf)
    cone.reverse()
    contributions = {}
    for i in cone:
        s = steps[i]
        if s.local is None:
            contributions[i] = math.inf
            continue
        lq = float(s.local)
        c = adj[i] * lq if lq != 0 else 0.0
        contributions[i] = c if math.isfinite(c) else math.inf
    s = steps[out.i]
    x = _point(s.x)
    err = None if x is None or not _is_finite(s.w) else _q(s.w) - x
    fmt = _fmt(np.asarray(s.w).dtype)
    ulps = None if err is None else float(err / ulp_of(s.w, fmt))
    # The dominant step is the one whose removal (first order) shrinks the output's actual
    # error most: |err| - |err - c_i|. Rounding errors that cancel each other then do not
    # outrank the one that survives; with no error to explain, the largest |c_i| is named.
    e = 0.0 if err is None else float(err)
    dominant, best = None, 0.0
    for i, c in contributions.items():
        if not math.isfinite(c):
            dominant, best = i, math.inf
            break
        score = abs(e) - abs(e - c) if e != 0 else abs(c)
        if score > best:
            best, dominant = score, i
    return Attribution(out.i, None if err is None else float(err), ulps, contributions, dominant, cone)
