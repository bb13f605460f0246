"""Chunk-relative narrowing, written once for every prepared owner (paths, surfaces).

Spec 002 "Precision": source controls are float64 in asset coordinates. Preparation subtracts
the chunk origin in float64, then narrows to float32 (round to nearest even). The narrowed
controls are exact dyadic rationals and define the prepared geometry. The effective position
error ``max(position_error, relative_position_error * asset_scale)`` must be at least the
position floor (``reference.status.compute_position_floor`` of the largest narrowed magnitude
E and the narrowing error), else ``UnsupportedPrecision``.

:func:`narrow_to_chunk` is that step for controls of any shape ``(n, ..., 3)``: a path's
``(n, 4, 3)`` spans and a surface's ``(n, 4, 4, 3)`` patches go through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fp import narrow32, narrowing_error
from .status import (
    GeometryStatus,
    Outcome,
    ToleranceProfile,
    compute_position_floor,
    effective_position_error,
    failure,
    success,
)

__all__ = ["NarrowedControls", "narrow_to_chunk"]


@dataclass(frozen=True)
class NarrowedControls:
    """The result of :func:`narrow_to_chunk`. Every field is Exact.

    Attributes:
        controls: float32 array of the source's shape, ``fl32(fl64(source - origin))``.
        max_magnitude: E, the largest magnitude of the narrowed controls.
        narrowing_error: the largest ``|narrowed - (source - origin)|``, rounded up.
        position_floor: ``compute_position_floor(E, narrowing_error)``.
    """

    controls: np.ndarray
    max_magnitude: float
    narrowing_error: float
    position_floor: float


def narrow_to_chunk(source: np.ndarray, origin: np.ndarray, tolerance: ToleranceProfile,
                    item: str = "span") -> Outcome:
    """Subtract the chunk origin in float64, narrow to float32, and check the position floor.

    Args:
        source: finite float64 array ``(n, ..., 3)`` (validated by the caller), n >= 1.
        origin: finite float64 (3,) chunk origin.
        tolerance: a validated ToleranceProfile (its effective position error is checked).
        item: what the leading axis counts (``"span"``, ``"patch"``), for the diagnostic.

    Returns:
        ``Outcome(NarrowedControls)``; ``UnsupportedPrecision`` (index = the first offending
        item) when a chunk-relative control leaves the float32 range, or (field
        ``position_error``, value = the floor) when the effective position error is below the
        floor. Exact.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        rel = source - origin
        narrowed = narrow32(rel)
    finite = np.isfinite(narrowed).reshape(narrowed.shape[0], -1).all(axis=1)
    if not np.all(finite):
        bad = int(np.flatnonzero(~finite)[0])
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"{item} {bad}: chunk-relative controls exceed the float32 range; "
                       "choose a nearer origin or split the asset", index=bad)
    E = float(np.max(np.abs(narrowed)))
    nerr = narrowing_error(source, origin, narrowed)
    floor = compute_position_floor(E, nerr)
    effective = effective_position_error(tolerance)
    if effective < floor:
        return failure(GeometryStatus.UnsupportedPrecision,
                       f"effective position error {effective!r} is below the float32 position floor "
                       f"{floor!r}; split the asset into chunks or choose a nearer origin",
                       field="position_error", value=floor)
    return success(NarrowedControls(narrowed, E, nerr, floor))
