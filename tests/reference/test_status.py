"""reference.status: the vocabulary issue 2 lists, no defaults, validated ranges, the floor."""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from interval.narrowing import round_up_f64
from reference import status as S
from reference.status import GeometryStatus as GS
from tests.strategies import F32_MAX, float32_values

DECISIONS = Path(__file__).resolve().parents[2] / "docs" / "decisions.md"

ISSUE_STATUSES = ["Success", "InvalidArgument", "InvalidDomain", "InvalidTopology",
                  "UnsupportedPrecision", "Degenerate", "IllConditioned", "DegenerateFrame",
                  "MissingCache", "StaleRevision", "CapacityExceeded", "BudgetExceeded",
                  "OutOfRange", "Ambiguous", "Cancelled"]

VALID_TOLERANCE = dict(
    position_error=1e-3, relative_position_error=1e-6, asset_scale=100.0,
    continuity_position=1e-4, continuity_angle=0.01, continuity_derivative=0.01,
    continuity_second_derivative=0.1, distance_error=1e-3, projection_gap=1e-4,
    tangent_angle_error=1e-3, minimum_speed=1e-6, minimum_sin_angle=1e-3,
    normal_min_derivative_length=1e-6, normal_min_sin_angle=1e-3)

VALID_LIMITS = dict(max_spans=1000, max_keys=1000, max_leaves=10000, max_depth=30,
                    max_subdivisions=100000, max_prepared_bytes=2**26, max_samples=4096)


def tol(**over):
    return S.ToleranceProfile(**{**VALID_TOLERANCE, **over})


def lim(**over):
    return S.WorkLimits(**{**VALID_LIMITS, **over})


# --- vocabulary -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ISSUE_STATUSES)
def test_every_status_the_issue_lists_exists(name):
    assert GS[name].name == name


def test_is_success():
    assert S.is_success(GS.Success)
    for st_ in GS:
        assert S.is_success(st_) == (st_ is GS.Success)
    with pytest.raises(TypeError):
        S.is_success("Success")


def test_guarantee_classes_and_enums():
    assert [g.name for g in S.GuaranteeClass] == ["Exact", "Rounded", "Certified", "Estimated",
                                                  "Approximate"]
    assert {s.name for s in S.SpanSide} == {"Outgoing", "Incoming"}
    assert {b.name for b in S.BoundaryPolicy} == {"Reject", "Clamp", "Wrap", "Hold", "Loop",
                                                  "PingPong"}


def test_domain_types_are_distinct_and_frozen():
    d, t, p = S.PathDistance(1.0), S.TrackTime(1.0), S.SegmentParameter(0, 1.0)
    assert d != t and t != d and d != p
    assert not isinstance(d, S.TrackTime) and not isinstance(t, S.PathDistance)
    assert not issubclass(S.PathDistance, S.TrackTime) and not issubclass(S.TrackTime, S.PathDistance)
    assert S.PathDistance(1.0) == S.PathDistance(1.0)
    for obj, field in ((d, "value"), (t, "seconds"), (p, "u")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, 2.0)
    assert len({d, t, S.PathDistance(1.0)}) == 2  # usable as keys without conflating them


def test_outcome_helpers():
    ok = S.success(3)
    assert ok.ok and ok.status is GS.Success and ok.value == 3 and ok.diagnostic is None
    bad = S.failure(GS.OutOfRange, "u beyond 1", field="u", index=2, value=1.5)
    assert not bad.ok and bad.value is None
    assert bad.diagnostic == S.GeometryDiagnostic(GS.OutOfRange, "u beyond 1", field="u", index=2,
                                                  value=1.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bad.status = GS.Success
    with pytest.raises(TypeError):
        S.failure(GS.OutOfRange, "x", not_a_field=1)


# --- no defaults ----------------------------------------------------------------------------


@pytest.mark.parametrize("missing", sorted(VALID_TOLERANCE))
def test_tolerance_profile_has_no_defaults(missing):
    kw = {k: v for k, v in VALID_TOLERANCE.items() if k != missing}
    with pytest.raises(TypeError):
        S.ToleranceProfile(**kw)


@pytest.mark.parametrize("missing", sorted(VALID_LIMITS))
def test_work_limits_have_no_defaults(missing):
    kw = {k: v for k, v in VALID_LIMITS.items() if k != missing}
    with pytest.raises(TypeError):
        S.WorkLimits(**kw)


def test_fields_and_ranges_cover_each_other():
    assert {f.name for f in dataclasses.fields(S.ToleranceProfile)} == set(S.TOLERANCE_RANGES)
    assert {f.name for f in dataclasses.fields(S.WorkLimits)} == set(S.LIMIT_RANGES)
    assert all(f.default is dataclasses.MISSING for f in dataclasses.fields(S.ToleranceProfile))
    assert all(f.default is dataclasses.MISSING for f in dataclasses.fields(S.WorkLimits))


# --- tolerance ranges -----------------------------------------------------------------------


def test_valid_profile_passes():
    out = S.validate_tolerance(tol())
    assert out.ok and out.value == tol()


def _rejected(out, field):
    return (out.status is GS.InvalidArgument and out.value is None
            and out.diagnostic is not None and out.diagnostic.field == field)


@pytest.mark.parametrize("field", sorted(VALID_TOLERANCE))
def test_tolerance_range_ends_and_beyond(field):
    lo, hi = S.TOLERANCE_RANGES[field]
    assert S.validate_tolerance(tol(**{field: lo})).ok, "closed range: the lower end is valid"
    assert S.validate_tolerance(tol(**{field: hi})).ok, "closed range: the upper end is valid"
    below = float(np.nextafter(lo, -np.inf))
    above = float(np.nextafter(hi, np.inf))
    assert _rejected(S.validate_tolerance(tol(**{field: below})), field)
    assert _rejected(S.validate_tolerance(tol(**{field: above})), field)
    for bad in (math.nan, math.inf, -math.inf, -1.0, 1e300, True, False, "0.5", None, 1j,
                np.bool_(True), np.float64(math.nan)):
        assert _rejected(S.validate_tolerance(tol(**{field: bad})), field), (field, bad)


@pytest.mark.parametrize("field", sorted(VALID_TOLERANCE))
def test_tolerance_numpy_scalars_compare_exactly(field):
    """A float32 just outside a range must not pass because the bound rounds to float32."""
    lo, hi = S.TOLERANCE_RANGES[field]
    f = np.float32(lo)  # the largest float32 below the range
    below = f if float(f) < lo else np.nextafter(f, np.float32(-np.inf))
    f = np.float32(hi)  # the smallest float32 above it
    above = f if float(f) > hi else np.nextafter(f, np.float32(np.inf))
    for outside in (below, above):
        if np.isfinite(outside):
            assert _rejected(S.validate_tolerance(tol(**{field: outside})), field), (field, outside)
    assert S.validate_tolerance(tol(**{field: np.float64(hi)})).ok
    assert _rejected(S.validate_tolerance(tol(**{field: 10**400})), field), "a huge int"


@given(st.sampled_from(sorted(VALID_TOLERANCE)), st.floats(allow_nan=True, allow_infinity=True))
@example("asset_scale", 0.0)
@example("distance_error", 0.0)
def test_tolerance_validation_matches_the_ranges(field, x):
    lo, hi = S.TOLERANCE_RANGES[field]
    out = S.validate_tolerance(tol(**{field: x}))
    if math.isfinite(x) and lo <= x <= hi:
        assert out.ok
    else:
        assert _rejected(out, field)


def _parse_md_number(text: str) -> float:
    text = text.strip()
    return math.pi if text == "pi" else float(text)


def _documented_tolerance_ranges() -> dict[str, tuple[float, float]]:
    md = DECISIONS.read_text()
    section = md.split("## ADR 0024 ranges of ToleranceProfile", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\|\s*(\w+)\s*\|\s*\[([^,\]]+),([^\]]+)\]\s*\|", line)
        if m and m.group(1) != "field":
            rows[m.group(1)] = (_parse_md_number(m.group(2)), _parse_md_number(m.group(3)))
    return rows


def test_documented_tolerance_table_matches_the_code():
    documented = _documented_tolerance_ranges()
    assert documented == S.TOLERANCE_RANGES


def test_documented_limit_ranges_match_the_code():
    md = DECISIONS.read_text()
    section = md.split("## WorkLimits fields and ranges", 1)[1].split("\n## ", 1)[0]
    text = " ".join(section.split())

    def value(s):  # "0", "52", "2^40", "2^31 - 1"
        m = re.fullmatch(r"2\^(\d+)(?:-(\d+))?", s.replace(" ", ""))
        return 2 ** int(m[1]) - int(m[2] or 0) if m else int(s)

    documented = {}
    for m in re.finditer(r"((?:`\w+`,?\s*(?:and\s*)?)+)\s*in\s*\[([^,\]]+),([^\]]+)\]", text):
        for name in re.findall(r"`(\w+)`", m.group(1)):
            documented[name] = (value(m.group(2)), value(m.group(3)))
    assert documented == S.LIMIT_RANGES


# --- limits ---------------------------------------------------------------------------------


def test_valid_limits_pass_and_zero_is_a_valid_limit():
    assert S.validate_limits(lim()).ok
    assert S.validate_limits(lim(**{k: 0 for k in VALID_LIMITS})).ok


@pytest.mark.parametrize("field", sorted(VALID_LIMITS))
def test_limit_range_ends_and_bad_values(field):
    lo, hi = S.LIMIT_RANGES[field]
    assert S.validate_limits(lim(**{field: lo})).ok
    assert S.validate_limits(lim(**{field: hi})).ok
    assert S.validate_limits(lim(**{field: np.int64(hi)})).ok
    for bad in (lo - 1, hi + 1, 10**30, -1, 1.0, 0.0, float(hi), math.nan, True, False, "3", None,
                np.float64(1.0), np.bool_(False), np.int64(-1)):
        assert _rejected(S.validate_limits(lim(**{field: bad})), field), (field, bad)


def test_validators_want_their_own_types():
    with pytest.raises(TypeError):
        S.validate_tolerance(lim())
    with pytest.raises(TypeError):
        S.validate_limits(tol())


def test_effective_position_error():
    assert S.effective_position_error(tol(position_error=1e-3, relative_position_error=1e-6,
                                          asset_scale=100.0)) == 1e-3
    t = tol(position_error=0.0, relative_position_error=1e-2, asset_scale=3.0)
    assert S.effective_position_error(t) == 1e-2 * 3.0  # the float64 product, rounded once


# --- compute_position_floor -----------------------------------------------------------------


def exact_floor(E: float, N: float) -> float:
    """RoundUp64(2 ulp32(E) + N) (docs/decisions.md, "The position floor"): the float32
    spacing from the binade of E in Fractions, the sum exact, rounded up by MPFR
    (``interval.narrowing.round_up_f64``)."""
    a = Fraction(abs(E))
    if a < Fraction(2) ** -126:
        spacing = Fraction(2) ** -149
    else:
        e = a.numerator.bit_length() - a.denominator.bit_length()
        e -= Fraction(2) ** e > a
        spacing = Fraction(2) ** (e - 23)
    return round_up_f64(2 * spacing + Fraction(N))


@given(float32_values(), st.floats(0.0, 1e30))
@example(0.0, 0.0)
@example(1.0, 0.0)
@example(F32_MAX, 0.0)  # finite: float32 max's spacing is 2**104
@example(2.0**-149, 0.0)
@example(3.0, 2.0**-21)
@example(3.0, float(np.nextafter(2.0**-21, 1)))
@example(1e7, 2.0**-80)  # the sum rounds: up, not to nearest
@example(2.0**-140, 5e-324)
def test_compute_position_floor_is_exact(E, N):
    got = S.compute_position_floor(E, N)
    assert isinstance(got, float)
    assert got == exact_floor(E, N)


# --- reported, immutability of every value type -----------------------------------------------


def test_reported_appends_the_diagnostic_of_a_failure_only():
    bad = S.failure(GS.InvalidArgument, "x out of range", field="x")
    sink: list = []
    assert S.reported(bad, sink) is bad and sink == [bad.diagnostic]
    assert S.reported(S.success(1), sink).ok and sink == [bad.diagnostic]  # a success adds nothing
    assert S.reported(bad, None) is bad  # no out-parameter: nothing to append to
    assert S.success().value is None and S.success().ok


def test_outcome_ok_is_success_only():
    for st_ in GS:
        assert S.Outcome(st_).ok == (st_ is GS.Success)


@pytest.mark.parametrize("obj,field", [
    (tol(), "position_error"), (lim(), "max_spans"), (S.GeometryDiagnostic(GS.Degenerate, "m"), "message"),
    (S.SegmentParameter(1, 0.5), "span_index"), (S.Outcome(GS.Success), "value"),
    (S.PathDistance(2.0), "value"), (S.TrackTime(3.0), "seconds")])
def test_value_types_are_frozen_and_slotted(obj, field):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, field, getattr(obj, field))
    # slots: no per-instance dict, so no attribute can be smuggled in beside the fields
    assert not hasattr(obj, "__dict__")
    with pytest.raises((AttributeError, TypeError)):
        object.__setattr__(obj, "extra", 1)


def test_integer_limits_accept_numpy_integers_and_reject_numpy_floats_and_bools():
    assert S.is_int(np.int32(3)) and S.is_int(7) and not S.is_int(np.bool_(True)) and not S.is_int(True)
    assert not S.is_int(3.0) and not S.is_int(np.float64(3.0))
    assert S.is_real(np.float32(1.5)) and S.is_real(2) and S.is_real(np.int8(1))
    assert not S.is_real(True) and not S.is_real(np.bool_(False)) and not S.is_real("1")
