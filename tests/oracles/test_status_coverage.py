"""Every status the spec names has a must-fail request, every limit is met with equality and
exceeded by one, and every owner has a failed-rebuild scenario (issue 24).

``SPEC`` below is transcribed from the spec's text (spec 002 and spec 004), independently of the
families: per family, per operation, the failure statuses the spec names for it, with the
sentence. A family may add statuses our decisions name (its ``SPEC_STATUSES``); it may not drop
one of these. ``SPEC_LIMITS`` lists the limits the spec names per family; each needs a request
that meets it with equality (must succeed) and one that exceeds it by one (must fail), found by
the request names the families use (``"<limit> met with equality ..."``, ``"<limit> exceeded by
one ..."``). ``OWNERS`` are the owners whose failed rebuild must keep the previous output."""

from __future__ import annotations

import importlib

import pytest

from oracles.families import families

SPEC = {
    "path": {
        "TryPreparePath": {
            "UnsupportedPrecision": "Precision: 'Otherwise preparation returns UnsupportedPrecision'",
            "InvalidTopology": "Connectivity: 'must meet within ContinuityPosition (InvalidTopology otherwise)'",
        },
        "TryEvaluatePath": {"InvalidArgument": "Boundary policies: 'Every other combination is InvalidArgument'"},
        "TryEvaluatePathTangent": {"Degenerate": "'returns Degenerate where |dP/du| is at or below a caller-supplied "
                                                 "speed'"},
        "TryConvertCentripetalCatmullRom": {
            "InvalidDomain": "'rejects consecutive waypoints within coincidenceDistance as InvalidDomain'",
            "CapacityExceeded": "'Both conversions check output capacity before writing (CapacityExceeded)'",
        },
        "TryConvertHermite": {"CapacityExceeded": "'Both conversions check output capacity before writing'"},
    },
    "distance": {
        "TryBuildDistanceMap": {"BudgetExceeded": "'Exhausting a limit returns BudgetExceeded ... keeps the previous "
                                                  "map'"},
        "TryResolveDistance": {"MissingCache": "'Queries through an unbuilt map return MissingCache'",
                               "StaleRevision": "'queries through a map of another revision return StaleRevision'"},
        "TryBoundDistance": {"MissingCache": "'Queries through an unbuilt map return MissingCache'",
                             "StaleRevision": "'queries through a map of another revision return StaleRevision'"},
    },
    "track": {
        "TryPrepareTrack": {"InvalidDomain": "'Key times must be strictly increasing; equal times are InvalidDomain'"},
        "TryEvaluateTrack": {"InvalidArgument": "Boundary policies: 'Every other combination is InvalidArgument'"},
    },
    "frame": {
        "TryBuildFrames": {
            "DegenerateFrame": "policy table: Reject singularity/corner, RejectDegenerateSeed 'fails with "
                               "DegenerateFrame'",
            "UnsupportedPrecision": "'a Strict frame preparation returns UnsupportedPrecision'",
        },
        "TryEvaluateFrame": {"Degenerate": "'TryEvaluateFrame returns Degenerate inside it'"},
    },
    "projection": {
        "TryProjectPoint": {
            "BudgetExceeded": "'Strict projection leaves its result unchanged on BudgetExceeded or "
                              "UnsupportedPrecision'",
            "UnsupportedPrecision": "'... or UnsupportedPrecision'",
            "CapacityExceeded": "'a smaller reservation is CapacityExceeded before any work'",
        },
        "ProjectPointApproximate": {"CapacityExceeded": "'a smaller reservation is CapacityExceeded before any work'"},
    },
    "sweep": {
        "TryEmitSweepMesh": {"StaleRevision": "'checks the pinned path revision (StaleRevision)'",
                             "CapacityExceeded": "'and both capacities (CapacityExceeded) before writing'"},
    },
    "surface": {
        "TryPrepareSurface": {"InvalidTopology": "'a mismatched curve, a partial join, ... or a duplicate patch ID is "
                                                 "InvalidTopology'"},
        "TryEvaluateSurfaceNormal": {"Degenerate": "'returns Degenerate for zero or parallel partials'",
                                     "IllConditioned": "'and IllConditioned at or below the thresholds'"},
    },
    "tessellation": {
        "TryBuildSurfaceMesh": {
            "UnsupportedPrecision": "'A nonzero NormalAngleError is UnsupportedPrecision'",
            "InvalidArgument": "'IsCoarserMeshAccepted is InvalidArgument'",
            "BudgetExceeded": "'MaxCellTests, MaxVertices, MaxTriangles and MaxOutputBytes always fail with "
                              "BudgetExceeded'",
        },
    },
    "convex_polygon": {},  # "fail without changing the output": statuses named by our decisions
    "point_search": {},  # "rejecting nonfinite coordinates, magnitudes above ...": statuses by our decisions
    "triangle": {
        "first_hit": {
            "Ambiguous": "spec 004: 'One ambiguous candidate rejects the whole query'",
            "Cancelled": "spec 004: 'Cancellation polls per facet and returns no partial result'",
        },
    },
}

# The limits the spec names per family (snake_case, as WorkLimits and the profiles spell them).
SPEC_LIMITS = {
    "path": ("max_spans",),
    "distance": ("max_leaves", "max_depth", "max_subdivisions", "max_prepared_bytes"),
    "track": ("max_keys",),
    "frame": ("max_depth",),
    "projection": ("max_iterations", "scratch capacity"),
    "sweep": ("max_section_segments", "max_vertex_count", "max_index_count"),
    "surface": (),
    "tessellation": ("max_level", "max_cell_tests", "max_vertices", "max_triangles", "max_output_bytes"),
    "convex_polygon": (),
    "point_search": ("MAX_POINT_NEIGHBORS", "MAX_POINT_SEARCH_COORDINATE"),
    "triangle": ("max_vertices", "max_triangles"),  # spec 004: "retained buffer capacity"
}

# Owners whose failed rebuild must keep the previous output ("a failed rebuild keeps the previous
# snapshot"; "Every failure keeps the previous mesh"; "fail without changing the output";
# "Failure preserves the previous tree").
OWNERS = {"path": 1, "distance": 1, "track": 1, "frame": 1, "sweep": 1, "surface": 1, "tessellation": 1,
          "convex_polygon": 1, "point_search": 1}

FAMILIES = {f.name: f for f in families()}
CASES = 200  # requests per family scanned: the named status requests come early


def _requests(name):
    fam = FAMILIES[name]
    if not fam.answers_requests:
        pytest.skip(f"{name}: not yet in request form")
    return fam.requests(1, CASES)


def _package(name):
    return importlib.import_module(f"oracles.families.{name}")


@pytest.mark.parametrize("name", sorted(SPEC))
def test_every_status_the_spec_names_has_a_must_fail_request(name):
    reqs = _requests(name)
    declared = getattr(_package(name), "SPEC_STATUSES", {})
    for op, statuses in SPEC[name].items():
        missing = set(statuses) - set(declared.get(op, {}))
        assert not missing, f"{name}.{op}: SPEC_STATUSES drops statuses the spec names: {sorted(missing)}"
    covered: dict = {}
    for r in reqs:
        for s in r.steps:
            if s.expect.kind == "failure":
                for st in s.expect.statuses:
                    covered.setdefault(s.op, set()).add(st)
            elif s.expect.kind == "ambiguous":
                covered.setdefault(s.op, set()).add("Ambiguous")
    for op, statuses in declared.items():
        for st in statuses:
            assert st in covered.get(op, set()), f"{name}.{op}: no must-fail request for {st}"


@pytest.mark.parametrize("name", sorted(SPEC_LIMITS))
def test_every_limit_is_met_with_equality_and_exceeded_by_one(name):
    reqs = _requests(name)
    limits = set(SPEC_LIMITS[name]) | set(getattr(_package(name), "LIMITS_AT_EQUALITY", ()))
    names = [r.name for r in reqs]
    for lim in sorted(limits):
        eq = [r for r in reqs if r.name.startswith(f"{lim} met with equality")]
        past = [r for r in reqs if r.name.startswith(f"{lim} exceeded by one")]
        assert eq, f"{name}: no request meets {lim} with equality (names: {names[:5]}...)"
        assert past, f"{name}: no request exceeds {lim} by one"
        assert any(s.expect.kind == "success" for r in eq for s in r.steps), f"{name}: {lim} at equality must succeed"
        assert all(any(s.expect.must_fail for s in r.steps) for r in past), f"{name}: {lim} + 1 must fail"


@pytest.mark.parametrize("name", sorted(OWNERS))
def test_every_owner_has_a_failed_rebuild_scenario(name):
    reqs = _requests(name)
    scen = [r for r in reqs if r.name.startswith("failed rebuild") and r.rules]
    assert len(scen) >= OWNERS[name], f"{name}: no failed-rebuild scenario with a same_output rule"
    for r in scen:
        assert any(s.expect.must_fail for s in r.steps), f"{r.id}: the rebuild must fail"
        for rule in r.rules:
            assert any(s.expect.must_fail for s in r.steps[rule.before + 1:rule.after + 1]), \
                f"{r.id}: no failing step between the compared outputs"
