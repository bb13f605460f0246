"""try_sample_path (the fused samplers of reference/fused.py, unmasked copies when every
parameter is inside) gives the bits of the numpy kernel on gathered float64 controls
(independent of the sampling code's shortcuts), for one span, many spans, boundary parameters
and outside ones."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from oracles.families.path import LIMITS, tolerance
from reference import kernel as K
from reference.context import F64
from reference.path import (BoundaryPolicy, PathPreparation, PathSource, spans_from_arrays,
                            try_convert_centripetal_catmull_rom, try_prepare_path, try_sample_path)


def view(spans, seed=3):
    rng = np.random.default_rng(seed)
    pts = np.cumsum(rng.normal(size=(spans + 1, 3)), axis=0)
    oc, ow = np.zeros((spans, 4, 3)), np.zeros(spans)
    try_convert_centripetal_catmull_rom(pts, False, 1e-9, oc, ow)
    tol = dataclasses.replace(tolerance(1e-3), projection_gap=1e-6)
    return try_prepare_path(PathSource(spans_from_arrays(oc, ow), 1), PathPreparation(tol, LIMITS)).value.view()


def expected(v, ks, us):
    P = v.controls[ks].astype(np.float64)
    return (K.cubic_point(F64, P, us), K.cubic_derivative(F64, P, us), K.cubic_second_derivative(F64, P, us))


@pytest.mark.parametrize("spans,one", [(1, True), (5, True), (5, False)])
def test_fast_cases_are_bitwise_the_gathered_kernel(spans, one):
    v = view(spans)
    rng = np.random.default_rng(spans)
    m = 5000
    ks = np.full(m, spans - 1) if one else rng.integers(0, spans, m)
    us = rng.random(m)
    us[:6] = [0.0, 1.0, 0.5, 0.0, 1.0, 2.0**-60]
    outs = [np.full((m, 3), np.nan) for _ in range(3)]
    assert try_sample_path(v, ks, us, *outs).ok
    # Outgoing side: u == 1 moves to the next span's u == 0 (except on the last span).
    rk, ru = ks.copy(), us.copy()
    move = (ru == 1.0) & (rk < spans - 1)
    rk[move] += 1
    ru[move] = 0.0
    for got, want in zip(outs, expected(v, rk, ru)):
        assert got.tobytes() == want.tobytes()


def test_outside_parameters_still_take_the_policy():
    v = view(3)
    ks = np.array([0, 0, 2, 2])
    us = np.array([0.25, -0.5, 1.5, 0.75])
    out = np.zeros((4, 3))
    before = out.copy()
    assert not try_sample_path(v, ks, us, out).ok  # Reject: nothing written
    assert out.tobytes() == before.tobytes()
    assert try_sample_path(v, ks, us, out, policy=BoundaryPolicy.Clamp).ok
    want = expected(v, np.array([0, 0, 2, 2]), np.array([0.25, 0.0, 1.0, 0.75]))[0]
    assert out.tobytes() == want.tobytes()
