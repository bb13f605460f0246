"""Modules imported on first use (issue 26: "imports are lazy where a command does not need them").

``gmpy2`` costs 15 ms of a process's start (its import asks ``importlib.metadata`` for its own
version, which loads the email parser and scans the installed distributions), mpmath 15 ms and
SymPy a quarter of a second; a ``check`` whose claims the float64 filters decide needs none of
them. The modules on that path name them through the stand-ins here: a module object (PEP 562)
whose first attribute read imports the real module and copies its namespace in, so every later
read is an ordinary module attribute read, as fast as the real module's.
"""

from __future__ import annotations

import importlib
import types

__all__ = ["gmpy2", "lazy_module", "mpmath", "sympy"]


def lazy_module(name: str) -> types.ModuleType:
    """A stand-in for the module ``name``, imported when an attribute is first read from it."""
    stand_in = types.ModuleType(name, f"{name}, imported on first use (interval.lazy)")

    def __getattr__(attr: str):
        real = importlib.import_module(name)
        for k, v in vars(real).items():
            if k not in ("__name__", "__doc__", "__spec__", "__loader__", "__getattr__"):
                stand_in.__dict__.setdefault(k, v)
        stand_in.__dict__.pop("__getattr__", None)  # from now on, plain module reads
        return getattr(real, attr)

    stand_in.__getattr__ = __getattr__
    return stand_in


gmpy2 = lazy_module("gmpy2")
mpmath = lazy_module("mpmath")  # ``mpmath.iv.prec = p`` sets the real context's precision
sympy = lazy_module("sympy")
