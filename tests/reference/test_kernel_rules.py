"""The kernel rules of ARCHITECTURE.md, enforced on ``reference/kernel.py`` by reading its AST.

A kernel body runs unchanged on floats, intervals, rationals and SymPy symbols, so it must not
decide anything by itself: no ordering comparisons and no branches on computed values (use
``ctx.sign3``), no numeric literals that would fix a dtype or round (use ``ctx.const``), no
numpy or ``math`` functions that bypass the context (use ``ctx.sqrt``, ``ctx.abs``,
``ctx.minimum``, ``ctx.maximum``), and no dtype casts.

Index arithmetic is allowed: integer literals inside a subscript (``P[..., k + 1, :]``), as
arguments of ``range`` and as the ``axis=`` of an array function are indices, not numbers of
the context. No function is exempt (the ``kernel`` decorator obeys the rules as well).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

KERNEL_PY = Path(__file__).resolve().parents[2] / "reference" / "kernel.py"

# numpy functions that bypass the context's hooks or fix a dtype.
FORBIDDEN_NP = {
    "sqrt", "abs", "absolute", "fabs", "minimum", "maximum", "fmin", "fmax", "min", "max",
    "amin", "amax", "sign", "hypot", "power", "square", "cbrt", "exp", "log", "sin", "cos",
    "tan", "arctan2", "where", "clip", "round", "floor", "ceil", "isfinite", "isnan",
    "float16", "float32", "float64", "float128", "longdouble", "double", "single", "half",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intc", "bool_",
    "dtype", "finfo", "array", "nextafter", "spacing",
}
CAST_BUILTINS = {"float", "complex"}
NUMPY_NAMES = {"np", "numpy"}

RULES = ("comparison", "branch", "float_literal", "int_arithmetic", "forbidden_call")


def _index_nodes(tree: ast.AST) -> set[int]:
    """ids of every node that sits in an index position (subscript slice, range() argument,
    ``axis=`` keyword), where integer arithmetic is allowed."""
    roots = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            roots.append(node.slice)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "range":
                roots.extend(node.args)
            roots.extend(k.value for k in node.keywords if k.arg == "axis")
    return {id(n) for r in roots for n in ast.walk(r)}


def _is_int_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def check_source(source: str) -> dict[str, list[tuple[int, str]]]:
    """Every rule violation in ``source``: rule name -> [(line, what)]."""
    tree = ast.parse(source)
    found: dict[str, list[tuple[int, str]]] = {r: [] for r in RULES}
    index = _index_nodes(tree)

    def hit(rule, node, what):
        found[rule].append((node.lineno, what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for op in node.ops:
                if isinstance(op, (ast.Lt, ast.Gt, ast.LtE, ast.GtE)):
                    hit("comparison", node, f"ordering comparison {type(op).__name__}")
        elif isinstance(node, ast.If):
            hit("branch", node, "if statement")
        elif isinstance(node, ast.IfExp):
            hit("branch", node, "conditional expression")
        elif isinstance(node, ast.While):
            hit("branch", node, "while loop (a branch on a computed condition)")
        elif isinstance(node, ast.comprehension) and node.ifs:
            hit("branch", node.ifs[0], "comprehension filter")
        elif isinstance(node, ast.Match):
            hit("branch", node, "match statement")
        elif isinstance(node, ast.Constant) and isinstance(node.value, (float, complex)):
            hit("float_literal", node, f"numeric literal {node.value!r}")
        elif isinstance(node, ast.BinOp) and id(node) not in index:
            for side in (node.left, node.right):
                if _is_int_literal(side):
                    hit("int_arithmetic", node, f"int literal {side.value!r} in arithmetic")
        elif isinstance(node, ast.UnaryOp) and id(node) not in index:
            if _is_int_literal(node.operand):
                hit("int_arithmetic", node, f"int literal {node.operand.value!r} in arithmetic")
        elif isinstance(node, ast.AugAssign) and _is_int_literal(node.value):
            hit("int_arithmetic", node, f"int literal {node.value.value!r} in arithmetic")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(n == "math" or n.startswith("math.") for n in names):
                hit("forbidden_call", node, "imports math")
        elif isinstance(node, ast.Attribute) and _dotted(node).startswith("math."):
            hit("forbidden_call", node, f"uses {_dotted(node)}")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            head, _, attr = name.partition(".")
            if head in NUMPY_NAMES and attr.split(".")[-1] in FORBIDDEN_NP:
                hit("forbidden_call", node, f"calls {name}")
            if isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
                hit("forbidden_call", node, "calls .astype (a dtype cast)")
            if isinstance(node.func, ast.Name) and node.func.id in CAST_BUILTINS:
                hit("forbidden_call", node, f"calls {node.func.id}() (a cast)")
            for k in node.keywords:
                if k.arg == "dtype":
                    hit("forbidden_call", node, "passes dtype= (a cast)")
    return found


def _report(rule: str, hits: list[tuple[int, str]]) -> str:
    lines = ", ".join(f"line {ln}: {what}" for ln, what in sorted(hits))
    return f"reference/kernel.py breaks the kernel rule '{rule}' at {lines}"


@pytest.fixture(scope="module")
def kernel_hits():
    return check_source(KERNEL_PY.read_text())


def test_no_ordering_comparisons(kernel_hits):
    assert not kernel_hits["comparison"], _report("comparison", kernel_hits["comparison"])


def test_no_branches(kernel_hits):
    assert not kernel_hits["branch"], _report("branch", kernel_hits["branch"])


def test_no_float_literals(kernel_hits):
    assert not kernel_hits["float_literal"], _report("float_literal", kernel_hits["float_literal"])


def test_no_int_literals_in_arithmetic(kernel_hits):
    assert not kernel_hits["int_arithmetic"], _report("int_arithmetic", kernel_hits["int_arithmetic"])


def test_no_context_bypassing_calls_or_casts(kernel_hits):
    assert not kernel_hits["forbidden_call"], _report("forbidden_call", kernel_hits["forbidden_call"])


def test_kernel_py_defines_kernels():
    """The rules above ran on the real file (a wrong path or empty file would pass them)."""
    tree = ast.parse(KERNEL_PY.read_text())
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"cubic_point", "cubic_split", "bicubic_partials", "barry_goldman_tangent"} <= names


# --- the checker itself can fail ------------------------------------------------------------

BAD = '''
import math
import numpy as np

def k(ctx, x, y):
    if x > y:                       # line 6: branch + comparison
        x = y
    z = x if y else x               # line 8: conditional expression
    w = x * 0.5                     # line 9: float literal
    v = 2 * x + (-3)                # line 10: int arithmetic (BinOp and UnaryOp)
    a = np.sqrt(x) + np.abs(y)      # line 11: numpy bypassing ctx
    b = math.sqrt(3)                # line 12: math
    c = x.astype(np.float32)        # line 13: cast
    d = np.asarray(x, dtype=object) # line 14: dtype keyword
    e = np.float64(x)               # line 15: dtype constructor
    f = [t for t in x if t]         # line 16: comprehension filter
    g = x <= y                      # line 17: comparison
    x += 1                          # line 18: int arithmetic
    return float(x)                 # line 19: cast
'''

GOOD = '''
import functools
import numpy as np

def kernel(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with ctx.scope():
            return fn(ctx, *args)
    return wrapper

@kernel
def k(ctx, P, u):
    three = ctx.const("3")
    a = [P[..., k + 1, :] - P[..., k, :] for k in range(3)]
    lo = P[..., 0, :]
    for j in range(1, P.shape[-2]):
        lo = ctx.minimum(lo, P[..., j, :])
    return three * np.stack(a, axis=-2), ctx.sqrt(lo), np.asarray(u)[..., None], P == u
'''


def test_checker_fires_on_each_rule():
    hits = check_source(BAD)
    lines = {rule: sorted(ln for ln, _ in hs) for rule, hs in hits.items()}
    assert lines["comparison"] == [6, 17]
    assert lines["branch"] == [6, 8, 16]
    assert lines["float_literal"] == [9]
    assert lines["int_arithmetic"] == [10, 10, 18]
    assert set(lines["forbidden_call"]) == {2, 11, 12, 13, 14, 15, 19}
    assert lines["forbidden_call"].count(11) == 2  # np.sqrt and np.abs
    assert "line 9" in _report("float_literal", hits["float_literal"])


def test_checker_allows_index_arithmetic_and_context_hooks():
    hits = check_source(GOOD)
    assert all(not hs for hs in hits.values()), hits
