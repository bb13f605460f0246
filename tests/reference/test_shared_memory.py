"""Caller-owned arrays that share memory (docs/decisions.md "Caller-owned arrays that share
memory"): every entry point that takes several caller arrays answers InvalidArgument, naming
the later array, before any write, where two of them overlap; views that share no element (the
columns of one array) are disjoint and give the values separate arrays give.

Before the check, each call below returned Success with one output overwritten by another (or
its inputs changed mid-loop): a sampled position holding a derivative, a distance written over
an index."""

from __future__ import annotations

import numpy as np
import pytest

from reference.fused import sample_spans
from reference.path import HermiteWaypoint, try_convert_hermite, try_sample_path
from reference.point_search import PointSearchTree
from reference.status import GeometryStatus as S
from reference.surface import try_sample_surface, try_sample_surface_normals
from reference.sweep import VERTEX_WIDTH, try_emit_sweep_mesh, try_plan_sweep_mesh

from .test_path_bad_input import prepare
from .test_surface import spec_surface
from .test_sweep import LINE, build, request


def bits(*arrays):
    return [np.array(a, copy=True).view(np.uint8) for a in arrays]


def same_bits(before, arrays) -> bool:
    return all(np.array_equal(b, np.asarray(a).view(np.uint8)) for b, a in zip(before, arrays))


@pytest.fixture(scope="module")
def path_view():
    out = prepare([1.0, 1.0])
    assert out.ok, out.diagnostic
    return out.value.view()


KS, US = np.array([0, 1, 1, 0]), np.array([0.25, 0.5, 0.75, 1.0])


def test_sampling_into_one_array_twice_is_invalid_argument(path_view):
    out = np.full((4, 3), 7.0)
    before = bits(out)
    r = try_sample_path(path_view, KS, US, out, out_first=out)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_first", r
    assert same_bits(before, [out])
    # A partial overlap (rows 1..4 of the same buffer) is caught too.
    big = np.full((5, 3), 7.0)
    before = bits(big)
    r = try_sample_path(path_view, KS, US, big[:4], out_second=big[1:])
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_second"
    assert same_bits(before, [big])


def test_sampling_over_its_own_parameters_is_invalid_argument(path_view):
    buf = np.zeros((4, 3))
    us = buf[:, 2]  # the parameters live in the output's last column
    us[:] = US
    before = bits(buf)
    r = try_sample_path(path_view, KS, us, buf)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_positions"
    assert same_bits(before, [buf])


def test_interleaved_disjoint_outputs_sample_as_separate_arrays_do(path_view):
    wide = np.full((4, 9), 7.0)
    r = try_sample_path(path_view, KS, US, wide[:, 0:3], out_first=wide[:, 3:6], out_second=wide[:, 6:9])
    assert r.ok, r.diagnostic
    sep = [np.zeros((4, 3)) for _ in range(3)]
    assert try_sample_path(path_view, KS, US, sep[0], out_first=sep[1], out_second=sep[2]).ok
    assert np.array_equal(wide, np.hstack(sep))


def test_fused_sampling_refuses_an_output_over_its_inputs(path_view):
    buf = np.zeros((4, 3))
    buf[:, 0] = US
    with pytest.raises(ValueError, match="shares memory"):
        sample_spans("cubic_point", np.ascontiguousarray(path_view.controls), KS, buf[:, 0], buf)


def test_conversion_outputs_that_overlap_are_invalid_argument():
    wps = [HermiteWaypoint([0.0, 0, 0], [1.0, 0, 0], 1.0), HermiteWaypoint([1.0, 0, 0], [1.0, 0, 0], 1.0)]
    controls = np.full((2, 4, 3), 3.5)
    widths = controls[:, 0, 0]  # the widths would land on the first control's x
    before = bits(controls)
    r = try_convert_hermite(wps, False, controls, widths)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_widths", r
    assert same_bits(before, [controls])
    # Disjoint buffers convert.
    assert try_convert_hermite(wps, False, controls, np.full(2, 3.5)).ok


def test_surface_outputs_that_overlap_are_invalid_argument():
    view = spec_surface()
    ps, us, vs = np.array([0, 1]), np.array([0.25, 0.5]), np.array([0.5, 0.75])
    pos = np.full((2, 3), 7.0)
    before = bits(pos)
    r = try_sample_surface(view, ps, us, vs, pos, out_du=pos)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_du", r
    assert same_bits(before, [pos])
    normals, status = np.full((2, 3), 7.0), np.zeros(2, np.uint8)
    raw = normals.view(np.uint8).reshape(-1)[:2]  # a status array over the normals' first bytes
    before = bits(normals)
    r = try_sample_surface_normals(view, ps, us, vs, normals, raw)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_status", r
    assert same_bits(before, [normals])
    assert try_sample_surface_normals(view, ps, us, vs, normals, status).ok


def test_sweep_indices_over_the_vertices_are_invalid_argument():
    pv, mv, fv = build(LINE)
    p = try_plan_sweep_mesh(pv, mv, fv, request())
    assert p.ok, p.diagnostic
    v = p.value.view()
    V = np.full((v.report.vertex_count, VERTEX_WIDTH), 7.0)
    I = V.view(np.int64).reshape(-1)[: v.report.index_count]  # indices written over the vertices
    before = bits(V)
    r = try_emit_sweep_mesh(pv, v, V, I)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "indices", r
    assert same_bits(before, [V])


def test_point_search_outputs_that_overlap_are_invalid_argument():
    t = PointSearchTree()
    assert t.build(np.array([[0, 0, 0], [1, 0, 0], [0, 2, 0]], dtype=np.float32)).ok
    oi = np.full(2, -7, np.int64)
    od = oi.view(np.float32)[:2]  # distances over the first index's bytes
    before = bits(oi)
    r = t.find_nearest([0.1, 0, 0], 2, oi, od)
    assert r.status is S.InvalidArgument and r.diagnostic.field == "out_distances", r
    assert same_bits(before, [oi])


def test_inputs_may_share_memory_with_each_other():
    # Inputs are only read: u and v from one array (the diagonal u = v) sample as two copies do.
    view = spec_surface()
    ps, uv = np.array([0, 1, 1]), np.array([0.25, 0.5, 0.75])
    a, b = np.zeros((3, 3)), np.zeros((3, 3))
    assert try_sample_surface(view, ps, uv, uv, a).ok
    assert try_sample_surface(view, ps, uv.copy(), uv.copy(), b).ok
    assert np.array_equal(a, b)
