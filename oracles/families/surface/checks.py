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
from ...rules import binding, decision, declare, judged, spec

__all__ = ["NETWORK_KEYS", "RULES", "array", "check_corners", "check_shared_edges", "network"]

_S = "spec 002 Surfaces: "
_D = "docs/decisions.md "
PREPARATION = spec("surface:preparation", _S + "'TryPrepareSurface narrows controls as TryPreparePath does, then "
                   "builds the topology ... A mismatched curve, a partial join, a third incidence on a side, a side "
                   "joined to itself, an unknown patch index or a duplicate patch ID is InvalidTopology': the claimed "
                   "status (UnsupportedPrecision, InvalidTopology, or records) is the replay's")
TOPOLOGY_DIAGNOSTIC = decision("surface:topology_diagnostic", _D + "'Surfaces: the V1 topology rules': the rule name "
                               "(diagnostic field) and index of an InvalidTopology, checked in our order (the spec "
                               "lists the causes, not their names, order or how to tell a partial join from a "
                               "mismatched curve); without the decision only the status is compared")
EDGES = spec("surface:edges", _S + "'The view holds one SurfaceEdge per edge ... An edge's owner is the incidence with "
             "the smallest (patch ID, side). Its SurfaceEdgeId and canonical control curve come from that owner'; "
             "'IsOrientationConsistent says whether the two patches traverse the edge in opposite directions': each "
             "edge's id, canonical curve, incidences and orientation equal the exact replay (sides ordered U0 < U1 < "
             "V0 < V1 as the spec lists them)")
CORNERS = spec("surface:corners", _S + "'Corners joined through shared edges form one record with one exact position "
               "and every incident patch corner. Corners that only coincide geometrically remain separate records': "
               "the records (position, incident patch corners) equal the exact replay")
RECORD_ORDER = decision("surface:record_order", _D + "'Surfaces: ownership, ids and corners': records listed by id, "
                        "incidences owner first (corners by (patch id, corner)), a corner's id its smallest (patch id, "
                        "corner) with corners ordered U0V0 < U1V0 < U0V1 < U1V1 (the spec gives corners no id and "
                        "orders no list); without the decision the records are compared as sets")
EDGE_PARAMETERS = spec("surface:edge_parameters", _S + "'TryMapEdgeParameter converts a canonical edge parameter into "
                       "each incident patch's (u, v)': one (u, v) per incidence, s on the owner, 1 - s on a reversed "
                       "incidence (within one rounding), a parameter outside [0, 1] or an unknown edge fails")
REVERSED_ROUNDING = decision("surface:reversed_parameter_rounding", _D + "'Surfaces: edge parameters, evaluation and "
                             "normals': a reversed incidence takes fl64(1 - s), correctly rounded (the spec does not "
                             "say how 1 - s rounds; without the decision either float next to 1 - s is accepted)")
EDGE_PARAMETER_STATUS = decision("surface:edge_parameter_status", _D + "'Surfaces: edge parameters, evaluation and "
                                 "normals': an unknown edge or a NaN parameter answers InvalidArgument, s outside "
                                 "[0, 1] InvalidDomain (the spec names no status; without the decision any failure "
                                 "status is accepted)")

POINT_STATUS = decision("surface:point_status", _D + "'Surfaces: edge parameters, evaluation and normals': "
                        "TryEvaluateSurface and TryEvaluateSurfaceNormal answer InvalidArgument for a patch index "
                        "outside the surface or a NaN parameter, InvalidDomain for u or v outside [0, 1] (the spec "
                        "names no status; without the decision any failure status is accepted)")
SOURCE_STATUS = decision("surface:source_status", _D + "'Surfaces: sources, limits and the order of checks': a "
                         "malformed source (a nonfinite origin or control, a patch id that is not a u64, a join naming "
                         "no patch, side or orientation, a negative revision) and a source with no patches are "
                         "InvalidArgument (the spec names no status for these, and does not say an empty surface "
                         "fails: without the decision any failure status is accepted there, and success for no "
                         "patches)")

RULES = declare({
    "surface.statuses": (EDGE_PARAMETER_STATUS, POINT_STATUS, SOURCE_STATUS),
    "surface.shared_edges": (PREPARATION, TOPOLOGY_DIAGNOSTIC, EDGES, RECORD_ORDER, EDGE_PARAMETERS,
                             REVERSED_ROUNDING, EDGE_PARAMETER_STATUS),
    "surface.corners": (PREPARATION, TOPOLOGY_DIAGNOSTIC, CORNERS, RECORD_ORDER),
})


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
    """Both the claim and the truth are failures (or one is): compare them (the diagnostic's rule
    and index where the topology decision binds)."""
    if isinstance(truth, dict):
        got = {k: claim.value.get(k) for k in truth}
        if "status" in claim.value and got == truth:
            return verified(claim, measure="mismatches", measured=0, note=f"{truth['status']} replayed exactly")
        if claim.value.get("status") == truth["status"]:
            if not binding(TOPOLOGY_DIAGNOSTIC):
                return verified(claim, measure="mismatches", measured=0, note=f"{truth['status']} (the diagnostic "
                                                                               "is not compared)")
            return violated(claim, {"expected": truth, "claimed": claim.value}, rule=TOPOLOGY_DIAGNOSTIC.id)
        return violated(claim, {"expected": truth, "claimed": claim.value}, rule=PREPARATION.id)
    return violated(claim, {"expected": "a valid network", "claimed": claim.value}, rule=PREPARATION.id)


def _edge_set(records) -> dict:
    """Edge records by id, incidences unordered (the spec's content without our order)."""
    return {r[0]: (r[1], sorted(tuple(i) for i in r[2]), r[3]) for r in records}


def _corner_set(records) -> list:
    """Corner records without ids or order: (position, incident patch corners) sorted."""
    return sorted((tuple(r[1]), tuple(sorted(tuple(i) for i in r[2]))) for r in records)


def _same_records(claim, got, want, as_set, what: str):
    """None when the claimed records equal the replay's; when they differ only in ids and order
    (the records decision), None unless that decision binds; else a Violated verdict."""
    if got == want:
        return None
    same = len(got) == len(want) and as_set(got) == as_set(want)
    if same and not binding(RECORD_ORDER):
        return None
    if len(got) != len(want):
        return violated(claim, {f"expected_{what}_count": len(want), f"claimed_{what}_count": len(got)},
                        rule=EDGES.id if what == "edge" else CORNERS.id)
    k = next(k for k, (g, w) in enumerate(zip(got, want)) if g != w)
    return k, (RECORD_ORDER.id if same else EDGES.id if what == "edge" else CORNERS.id)


@judged
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
    bad = _same_records(claim, got, want, _edge_set, "edge")
    if isinstance(bad, tuple):
        k, rule = bad
        return violated(claim, {"edge": k, "expected": _edge_text(want[k]), "claimed": claim.value["edges"][k]},
                        rule=rule)
    if bad is not None:
        return bad
    return verified(claim, measure="mismatches", measured=0)


def _check_edge_parameters(claim: Claim):
    truth = _truth_or_status(claim)
    if isinstance(truth, dict):
        return violated(claim, {"why": "the network does not prepare, so no edge has parameters", "truth": truth},
                        rule=PREPARATION.id)
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
                failed = isinstance(got, dict) and set(got) == {"status"} and got["status"] not in (None, "Success")
                if failed and not binding(EDGE_PARAMETER_STATUS):
                    continue  # a failure, under another status name
                return violated(claim, {"query": k, "expected": want, "claimed": got},
                                rule=EDGE_PARAMETER_STATUS.id if failed else EDGE_PARAMETERS.id)
            continue
        sq = to_mpq(s)
        want, alternatives = [], []
        for (p, pid, side, rev) in e["incidences"]:
            # a reversed incidence takes 1 - s rounded to the nearest float64 (exact for every
            # multiple of 2^-53; Fraction -> float rounds correctly); by the spec alone either
            # float next to 1 - s
            exact = Fraction(1) - Fraction(s)
            t = to_mpq(float(exact)) if rev else sq
            uu, vv = side_point(side, t)
            want.append([p, pid, side, uu, vv])
            alternatives.append([side_point(side, to_mpq(x)) for x in _floats_around(exact)] if rev else [(uu, vv)])
        if not isinstance(got, list) or len(got) != len(want):
            return violated(claim, {"query": k, "why": "one (u, v) per incidence, owner first",
                                    "expected": _mapped_text(want), "claimed": got}, rule=EDGE_PARAMETERS.id)
        for g, w, alt in zip(got, want, alternatives):
            if not (isinstance(g, list) and len(g) == 5):
                raise ValueError("each mapped parameter is [patch, patch_id, side, u, v]")
            uv = (to_mpq(dec(g[3])), to_mpq(dec(g[4])))
            if [int(g[0]), int(g[1]), g[2]] == w[:3] and uv != (w[3], w[4]) and uv in alt:
                if not binding(REVERSED_ROUNDING):
                    continue  # the other float next to 1 - s
                rule = REVERSED_ROUNDING.id
            elif [int(g[0]), int(g[1]), g[2]] != w[:3] or uv != (w[3], w[4]):
                rule = EDGE_PARAMETERS.id
            else:
                continue
            return violated(claim, {"query": k, "edge": list(q[:2]), "s": q[2], "expected": _mapped_text(want),
                                    "claimed": got}, rule=rule)
    return verified(claim, measure="mismatches", measured=0, note=f"{len(queries)} edge parameters mapped")


def _floats_around(q: Fraction) -> tuple:
    """The float64 values next to the rational ``q`` (one when ``q`` is a float64)."""
    import math

    f = float(q)
    if Fraction(f) == q:
        return (f,)
    return (f, math.nextafter(f, math.inf if Fraction(f) < q else -math.inf))


def _mapped_text(want):
    return [[p, pid, side, str(u), str(v)] for p, pid, side, u, v in want]


def _edge_text(w):
    eid, curve, inc, cons = w
    return {"id": list(eid), "curve": [str(x) for x in curve], "incidences": inc, "orientation_consistent": cons}


@judged
def check_corners(claim: Claim):
    """Exact: every corner record (id, position, incident patch corners) equals the exact
    replay (corner groups are connected components through the joins)."""
    truth = _truth_or_status(claim)
    if isinstance(truth, dict) or "corners" not in claim.value:
        return _status_verdict(claim, truth)
    want = [((c["id"][0], c["id"][1]), c["position"], [list(i) for i in c["incidences"]]) for c in truth.corners]
    got = [((int(c["id"][0]), c["id"][1]), _q_vec(c["position"]),
            [[int(i[0]), int(i[1]), i[2]] for i in c["incidences"]])
           for c in claim.value["corners"]]
    bad = _same_records(claim, got, want, _corner_set, "corner")
    if isinstance(bad, tuple):
        k, rule = bad
        w = want[k]
        return violated(claim, {"corner": k, "expected": {"id": list(w[0]), "position": [str(x) for x in w[1]],
                                                          "incidences": w[2]},
                                "claimed": claim.value["corners"][k]}, rule=rule)
    if bad is not None:
        return bad
    return verified(claim, measure="mismatches", measured=0)

