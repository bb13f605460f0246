"""Export a surface mesh to the files people open (OBJ, PLY, STL, VTK, ...) through meshio.

Two layouts:

* shared (the default): the mesh's shared positions and the crack-free triangles over them
  (``SurfaceMeshView.position_triangles``): what a watertightness check or a viewer that
  welds nothing should see;
* split (``split=True``): the vertex buffer as the engine uploads it, every vertex with its own
  patch's normal and (u, v) parameter (OBJ ``vn``/``vt``, PLY ``nx ny nz u v`` properties), so
  normal and parameter seams stay visible.

Positions are written chunk-relative as float32 values (OBJ prints their shortest round-trip
decimal, PLY stores binary float32), so reading a file back and narrowing to float32 gives the
positions bit for bit. Needs the ``mesh`` extra (meshio).

``python -m oracles mesh-export INDEX --out FILE [--seed S] [--split]`` writes the mesh of
request INDEX of the tessellation family's corpus (the caller's mesh after its last step).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .reports import output_file

__all__ = ["export_surface_mesh", "mesh_of_corpus_case", "run_cli"]


def export_surface_mesh(view, path, file_format: str | None = None, *, split: bool = False):
    """Write ``view`` (a ``reference.tessellation.SurfaceMeshView``) to ``path`` with meshio.

    Args:
        view: the mesh view.
        path: the output file; its suffix picks the format unless ``file_format`` is given
            (meshio's names: ``"obj"``, ``"ply"``, ``"stl"``, ``"vtk"``, ...).
        split: write the vertex buffer with per-vertex normals and parameters instead of the
            shared positions.

    Returns:
        The ``meshio.Mesh`` that was written.
    """
    import meshio

    path = Path(path)
    fmt = file_format or path.suffix.lstrip(".").lower()
    if split:
        points = np.asarray(view.vertex_positions, dtype=np.float32)
        tris = np.asarray(view.indices, dtype=np.int64)
        normals = np.asarray(view.vertex_normals, dtype=np.float32)
        params = np.asarray(view.vertex_parameters, dtype=np.float32)
        if fmt == "obj":
            data = {"obj:vn": normals, "obj:vt": params}
        elif fmt == "ply":
            data = {"nx": normals[:, 0], "ny": normals[:, 1], "nz": normals[:, 2], "u": params[:, 0],
                    "v": params[:, 1]}
        else:
            data = {"normal": normals, "parameter": params}
    else:
        points = np.asarray(view.positions, dtype=np.float32)
        tris = np.asarray(view.position_triangles(), dtype=np.int64)
        data = {}
    mesh = meshio.Mesh(points, [("triangle", tris)], point_data=data)
    kwargs = {"binary": True} if fmt == "ply" else {}
    meshio.write(str(output_file(path)), mesh, file_format=fmt, **kwargs)
    return mesh


def mesh_of_corpus_case(index: int, seed: int = 1):
    """The ``SurfaceMeshView`` of request ``index`` of the tessellation corpus (seed ``seed``):
    the caller's mesh as our fast path leaves it after the request's last step; or a string
    saying why there is none."""
    from .families.tessellation.answers import run
    from .families.tessellation.requests import request_at

    req = request_at(seed, index)
    ans, mesh = run(req)
    if mesh.view() is None:
        why = "; ".join(f"{s.op}: {a.status}" for s, a in zip(req.steps, ans.steps))
        return f"case {index} ({req.name}): no mesh ({why})"
    return mesh.view(), req.name


def run_cli(args) -> int:
    """The ``mesh-export`` verb: 0 on success, 2 when the case has no mesh or meshio is missing."""
    try:
        import meshio  # noqa: F401
    except ImportError:
        print("mesh-export needs meshio: pip install '.[mesh]'")
        return 2
    got = mesh_of_corpus_case(args.index, args.seed)
    if isinstance(got, str):
        print(got)
        return 2
    view, name = got
    export_surface_mesh(view, args.out, args.format, split=args.split)
    print(f"wrote {name}: {view.positions.shape[0]} positions, {view.indices.shape[0]} triangles to {args.out}")
    return 0
