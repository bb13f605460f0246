"""Surface checkers of the records: ``surface.shared_edges`` and ``surface.corners`` (Exact).

Every truth is recomputed from ``claim.inputs`` alone: the narrowing is replayed in rationals
(``interval.narrowing``) and the topology rebuilt by ``interval.surface.exact_topology``; the
claimed records (or the claimed InvalidTopology rule and join) must equal the oracle's exactly
(values compared as rationals: a signed zero equals zero). A TryMapEdgeParameter claim gives
each incidence, owner first, exactly the (u, v) of s, or of fl64(1 - s) on a reversed
incidence. Also the readers of claim fields the other surface and tessellation modules share
(``array``, ``network``).
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache

import numpy as np

from interval.context import to_mpq
from interval.narrowing import replay_narrowing
from interval.surface import SIDE_NAMES, TopologyFailure, exact_topology, side_point
from reference.status import GeometryStatus, GuaranteeClass as G

from ...model import Claim, dec, dec_array, verified, violated

__all__ = ["check_shared_edges", "check_corners", "array", "network", "NETWORK_KEYS"]


def _nested(x):
    return [_nested(v) for v in x] if isinstance(x, list) else dec(x)


def array(x, dtype=np.float64) -> np.ndarray:
    """``dec_array`` with a fast path for canonical hex text (same values, same errors)."""
    try:
        a = np.array(_nested(x), dtype=np.float64)
    except ValueError:  # ragged nesting: let dec_array name the problem
        return dec_array(x, dtype)
    out = a.astype(dtype)
    if not np.array_equal(out.astype(np.float64), a, equal_nan=True):
        return dec_array(x, dtype)  # raises the grammar's NumberError
    return out


def network(claim: Claim):
    """``(ids, narrowed, joins)`` of a claim's network inputs: the narrowing replayed in
    rationals (``narrowed`` None when a control leaves the float32 range). Raises ValueError
    for a malformed network."""
    inp = claim.inputs
    ids = inp["ids"]
    src = array(inp["source"])
    origin = array(inp["origin"])
    if src.ndim != 4 or src.shape[1:] != (4, 4, 3) or origin.shape != (3,) or len(ids) != src.shape[0]:
        raise ValueError("a network needs ids (n), source (n, 4, 4, 3) and origin (3,)")
    joins = []
    for j in inp["joins"]:
        if not (isinstance(j, list) and len(j) == 5 and j[1] in SIDE_NAMES and j[3] in SIDE_NAMES
                and isinstance(j[4], bool)):
            raise ValueError("each join is [first_patch, side, second_patch, side, is_reversed]")
        joins.append((int(j[0]), j[1], int(j[2]), j[3], j[4]))
    narrowed = replay_narrowing(src, origin)
    if not np.all(np.isfinite(narrowed)):
        return ids, None, joins
    return ids, narrowed, joins


def _q_vec(x, fmt=np.float32):
    return [to_mpq(float(v)) for v in np.ravel(array(x, fmt))]


NETWORK_KEYS = ("ids", "source", "origin", "joins")


def _truth_or_status(claim):
    # A network's shared-edges, edge-parameter and corners claims carry the same network: replay
    # it once.
    return _truth_of(json.dumps({k: claim.inputs[k] for k in NETWORK_KEYS}, sort_keys=True))


@lru_cache(maxsize=4)
def _truth_of(inputs_json: str):
    claim = Claim("surface.shared_edges", G.Exact, None, json.loads(inputs_json))
    ids, narrowed, joins = network(claim)
    if narrowed is None:
        return {"status": GeometryStatus.UnsupportedPrecision.value}
    topo = exact_topology(ids, narrowed, joins)
    if isinstance(topo, TopologyFailure):
        return {"status": GeometryStatus.InvalidTopology.value, "rule": topo.rule, "index": topo.index}
    return topo


def _status_verdict(claim, truth):
    """Both the claim and the truth are failures (or one is): compare them."""
    if isinstance(truth, dict):
        got = {k: claim.value.get(k) for k in truth}
        if "status" in claim.value and got == truth:
            return verified(claim, measure="mismatches", measured=0, note=f"{truth['status']} replayed exactly")
        return violated(claim, {"expected": truth, "claimed": claim.value})
    return violated(claim, {"expected": "a valid network", "claimed": claim.value})


def check_shared_edges(claim: Claim):
    """Exact: every edge record (id, canonical curve, incidences, orientation consistency) or
    the InvalidTopology rule and index equals the exact rational replay; a claim of
    TryMapEdgeParameter (inputs ``edge_parameters``) maps every canonical parameter onto each
    incidence exactly (``fl64(1 - s)`` on a reversed one)."""
    if "edge_parameters" in claim.inputs:
        return _check_edge_parameters(claim)
    truth = _truth_or_status(claim)
    if isinstance(truth, dict) or "edges" not in claim.value:
        return _status_verdict(claim, truth)
    want = [((e["id"][0], e["id"][1]), [x for row in e["curve"] for x in row],
             [list(i) for i in e["incidences"]], e["orientation_consistent"]) for e in truth.edges]
    got = []
    for e in claim.value["edges"]:
        got.append(((int(e["id"][0]), e["id"][1]), _q_vec(e["curve"]),
                    [[int(i[0]), int(i[1]), i[2], bool(i[3])] for i in e["incidences"]], e["orientation_consistent"]))
    if len(got) != len(want):
        return violated(claim, {"expected_edge_count": len(want), "claimed_edge_count": len(got)})
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return violated(claim, {"edge": k, "expected": _edge_text(w), "claimed": claim.value["edges"][k]})
    return verified(claim, measure="mismatches", measured=0)


def _check_edge_parameters(claim: Claim):
    truth = _truth_or_status(claim)
    if isinstance(truth, dict):
        return violated(claim, {"why": "the network does not prepare, so no edge has parameters", "truth": truth})
    queries = claim.inputs["edge_parameters"]
    mapped = claim.value["mapped"]
    if not isinstance(queries, list) or not isinstance(mapped, list) or len(queries) != len(mapped):
        raise ValueError("edge_parameters and mapped: one answer per query")
    edges = {(int(e["id"][0]), e["id"][1]): e for e in truth.edges}
    for k, (q, got) in enumerate(zip(queries, mapped)):
        if not (isinstance(q, list) and len(q) == 3 and q[1] in SIDE_NAMES):
            raise ValueError("each edge parameter query is [patch_id, side, s]")
        s = dec(q[2])
        e = edges.get((int(q[0]), q[1]))
        if e is None or not (0.0 <= s <= 1.0):
            want = {"status": "InvalidArgument" if e is None or s != s else "InvalidDomain"}
            if got != want:
                return violated(claim, {"query": k, "expected": want, "claimed": got})
            continue
        sq = to_mpq(s)
        want = []
        for (p, pid, side, rev) in e["incidences"]:
            # a reversed incidence takes 1 - s rounded to the nearest float64 (exact for every
            # multiple of 2^-53; Fraction -> float rounds correctly)
            t = to_mpq(float(Fraction(1) - Fraction(s))) if rev else sq
            uu, vv = side_point(side, t)
            want.append([p, pid, side, uu, vv])
        if not isinstance(got, list) or len(got) != len(want):
            return violated(claim, {"query": k, "why": "one (u, v) per incidence, owner first",
                                    "expected": _mapped_text(want), "claimed": got})
        for g, w in zip(got, want):
            if not (isinstance(g, list) and len(g) == 5):
                raise ValueError("each mapped parameter is [patch, patch_id, side, u, v]")
            if [int(g[0]), int(g[1]), g[2]] != w[:3] or to_mpq(dec(g[3])) != w[3] or to_mpq(dec(g[4])) != w[4]:
                return violated(claim, {"query": k, "edge": list(q[:2]), "s": q[2], "expected": _mapped_text(want),
                                        "claimed": got})
    return verified(claim, measure="mismatches", measured=0, note=f"{len(queries)} edge parameters mapped")


def _mapped_text(want):
    return [[p, pid, side, str(u), str(v)] for p, pid, side, u, v in want]


def _edge_text(w):
    eid, curve, inc, cons = w
    return {"id": list(eid), "curve": [str(x) for x in curve], "incidences": inc, "orientation_consistent": cons}


def check_corners(claim: Claim):
    """Exact: every corner record (id, position, incident patch corners) equals the exact
    replay (corner groups are connected components through the joins)."""
    truth = _truth_or_status(claim)
    if isinstance(truth, dict) or "corners" not in claim.value:
        return _status_verdict(claim, truth)
    want = [((c["id"][0], c["id"][1]), c["position"], [list(i) for i in c["incidences"]]) for c in truth.corners]
    got = [((int(c["id"][0]), c["id"][1]), _q_vec(c["position"]), [[int(i[0]), int(i[1]), i[2]] for i in c["incidences"]])
           for c in claim.value["corners"]]
    if len(got) != len(want):
        return violated(claim, {"expected_corner_count": len(want), "claimed_corner_count": len(got)})
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return violated(claim, {"corner": k, "expected": {"id": list(w[0]), "position": [str(x) for x in w[1]],
                                                              "incidences": w[2]},
                                    "claimed": claim.value["corners"][k]})
    return verified(claim, measure="mismatches", measured=0)

