"""Issue 24's planted status faults, in the default suite: each is planted in a copy of the
project and the default ledger of its family must report Violated (exit 1), not merely a test.

One fault per owner whose failed rebuild clears (or replaces) the previous output, a limit met
with equality refused, a valid request refused, a frame returned inside a singular range and a
first-hit answer that omits a required ambiguity. The full catalogue, with these and about 400
more, runs behind the ``faults`` marker (``tests/faults/test_fault_suite.py``)."""

from __future__ import annotations

import os

import pytest

from .harness import catalogue, run

# The failed-rebuild fault of every owner of spec 002 and 004 (one per owner).
FAILED_REBUILD = (
    "path.status_rebuild_clears_held_path",
    "frame.status_rebuild_drops_held_frames",
    "projection.status_failure_clears_result",
    "distance.status_rebuild_drops_held_map",
    "surface.status_rebuild_drops_held_surface",
    "tessellation.status_failed_build_clears_mesh",
    "convex_polygon.status_failed_partition_clears_output",
    "point_search.status_failed_build_clears_tree",
    "sweep.status_failed_replan_drops_plan",
)
OTHERS = (
    "path.status_max_spans_at_equality_refused",  # a limit met with equality refused
    "path.status_single_span_refused",  # a valid request refused
    "frame.status_frame_inside_range",  # a frame returned inside a singular range
    "triangle.status_omits_ambiguity",  # a first-hit answer that omits a required ambiguity
)


def test_the_default_ledger_reports_each_status_fault_violated():
    by_id = {f.id: f for f in catalogue()}
    faults = [by_id[i] for i in FAILED_REBUILD + OTHERS]
    outcomes = run(faults, jobs=int(os.environ.get("FAULT_JOBS", "2")), tests="never")
    survivors = {o.fault.id: o.ledger for o in outcomes if o.ledger != "killed"}
    assert not survivors, survivors
    for o in outcomes:  # killed by a Violated status or rule claim, not by a crash
        assert o.detail.get("violated_rows"), (o.fault.id, o.detail)


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
