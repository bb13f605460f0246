"""Sweep meshes written to files for people (``oracles.meshio_export``)."""

from __future__ import annotations

import numpy as np

__all__ = ["export_sweep_mesh"]


class _SplitView:
    """The attributes ``oracles.meshio_export.export_surface_mesh(split=True)`` reads."""

    def __init__(self, vertices, indices):
        V = np.asarray(vertices, dtype=np.float64)
        self.vertex_positions = V[:, 0:3]
        self.vertex_normals = V[:, 3:6]
        self.vertex_parameters = V[:, 6:8]
        self.indices = np.asarray(indices, dtype=np.int64).reshape(-1, 3)


def export_sweep_mesh(vertices, indices, path, file_format=None):
    """Write an emitted sweep mesh (rows ``[p, n, U, V]``, flat indices) through the surface
    meshes' exporter (``oracles.meshio_export``, split layout: per-vertex normals and UV).
    Returns the ``meshio.Mesh`` written."""
    from ...meshio_export import export_surface_mesh

    return export_surface_mesh(_SplitView(vertices, indices), path, file_format, split=True)
