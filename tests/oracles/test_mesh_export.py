"""Mesh export through meshio: OBJ and PLY round trips (read back by meshio and by trimesh)
give the mesh's float32 positions bit for bit and its triangles; the split layout carries each
vertex's own normal and parameter; the CLI verb writes a corpus case's mesh."""

from __future__ import annotations

import numpy as np
import pytest

meshio = pytest.importorskip("meshio")

from oracles.__main__ import main  # noqa: E402
from oracles.meshio_export import export_surface_mesh, mesh_of_corpus_case  # noqa: E402


@pytest.fixture(scope="module")
def tube():
    view, name = mesh_of_corpus_case(4)  # the four-patch tube: curved, with shared edges
    assert name == "four-patch tube"
    return view


@pytest.mark.parametrize("suffix", ["obj", "ply"])
def test_shared_layout_round_trips_bitwise(tmp_path, tube, suffix):
    f = tmp_path / f"tube.{suffix}"
    export_surface_mesh(tube, f)
    back = meshio.read(str(f))
    pts = np.asarray(back.points, dtype=np.float64).astype(np.float32)
    assert np.array_equal(pts.view(np.uint32), tube.positions.view(np.uint32))
    tris = np.concatenate([c.data for c in back.cells if c.type == "triangle"])
    assert np.array_equal(tris, tube.position_triangles())


@pytest.mark.parametrize("suffix", ["obj", "ply"])
def test_an_independent_reader_sees_the_same_mesh(tmp_path, tube, suffix):
    trimesh = pytest.importorskip("trimesh")
    f = tmp_path / f"tube.{suffix}"
    export_surface_mesh(tube, f)
    m = trimesh.load(str(f), process=False, force="mesh")
    assert np.array_equal(np.asarray(m.faces), tube.position_triangles())
    assert np.array_equal(np.asarray(m.vertices).astype(np.float32), tube.positions)


def test_split_layout_carries_vertex_normals_and_parameters(tmp_path, tube):
    f = tmp_path / "tube.ply"
    export_surface_mesh(tube, f, split=True)
    back = meshio.read(str(f))
    assert back.points.shape[0] == tube.vertex_positions.shape[0]
    n = np.stack([back.point_data[k] for k in ("nx", "ny", "nz")], axis=1).astype(np.float32)
    assert np.array_equal(n, tube.vertex_normals)
    assert np.array_equal(np.asarray(back.point_data["u"], dtype=np.float32), tube.vertex_parameters[:, 0])
    tris = np.concatenate([c.data for c in back.cells])
    assert np.array_equal(tris, tube.indices)
    # Seams: more vertices than shared positions.
    assert tube.vertex_positions.shape[0] > tube.positions.shape[0]
    g = tmp_path / "tube.obj"
    export_surface_mesh(tube, g, split=True)
    text = g.read_text()
    assert (text.count("\nvn ") == tube.vertex_positions.shape[0]
            and text.count("\nvt ") == tube.vertex_positions.shape[0])


def test_cli_verb_writes_a_corpus_mesh(tmp_path, capsys):
    f = tmp_path / "cube.ply"
    assert main(["mesh-export", "3", "--out", str(f)]) == 0
    assert "cube of six patches" in capsys.readouterr().out
    back = meshio.read(str(f))
    assert back.points.shape == (8, 3) and sum(len(c.data) for c in back.cells) == 12


def test_cli_verb_refuses_an_index_outside_the_corpus(tmp_path, capsys):
    """The corpus has the family's default case count (30) unless --cases names a larger run's:
    an index beyond it is refused (exit 2, nothing written), never another case exported."""
    from oracles.families import families

    n = next(f for f in families() if f.name == "tessellation").default_cases
    f = tmp_path / "x.ply"
    for argv in (["mesh-export", str(n), "--out", str(f)], ["mesh-export", "99999", "--out", str(f)],
                 ["mesh-export", "3", "--cases", "3", "--out", str(f)]):
        assert main(argv) == 2
        assert "outside the tessellation corpus" in capsys.readouterr().err
        assert not f.exists()
    assert main(["mesh-export", str(n), "--cases", str(n + 1), "--out", str(f)]) == 0 and f.exists()
