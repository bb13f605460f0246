"""Immutable owners and read-only views: the Python form of the spec's single-owner objects.

A prepared owner (``PreparedPath``, ``PreparedTrack``, ``PreparedDistanceMap``) holds one view
and refuses attribute assignment; a failed rebuild returns a failure and never touches the
caller's previous owner. Views expose numpy arrays with ``writeable=False``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Owner", "readonly"]


def readonly(a, *, copy: bool = True) -> np.ndarray:
    """``a`` as a numpy array that refuses writes (a copy unless ``copy=False`` and ``a`` is
    already an array nobody else holds)."""
    out = np.array(a, copy=True) if copy or not isinstance(a, np.ndarray) else a
    out.setflags(write=False)
    return out


class Owner:
    """An immutable holder of one view; ``view()`` returns it."""

    __slots__ = ("_view",)

    def __init__(self, view):
        object.__setattr__(self, "_view", view)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def view(self):
        return self._view
