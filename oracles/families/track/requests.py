"""Track requests: the corpus as requests, each step with the status the spec demands.

A case is a scenario: ``TryPrepareTrack`` of its keys, then one ``TryEvaluateTrack`` per query
(time, policy, side) on the prepared track. The first cases are named: the spec's example
(4.5 s under PingPong reflects to 2.5 s: value 1.1875, derivative +0.625), an authored hold and
Step spans, large key times with millisecond spans, overshooting Hermite slopes, tiny spans with
steep slopes, queries many periods away, negative times, extreme float32 magnitudes, times that
reduce exactly onto keys. Then the status contracts (:func:`status_requests`): every status
TryPrepareTrack and TryEvaluateTrack name, each limit met with equality (must succeed) and
exceeded by one (must fail), and a failed rebuild that must keep the previous track. The rest
are random tracks of 2 to 8 keys with random policies and sides.

Expected statuses come from the spec's text and ``docs/decisions.md`` ("Tracks: keys, defaults
and preparation", "Tracks: Step spans, span sides and policies"), decided here on the exact
inputs (``interval.track`` says which times Reject leaves without a value), never by running
the fast path.

Step inputs (``docs/casefile.md``, Requests and answers; requests/1):

* ``TryPrepareTrack``: ``keys`` ``[[time f64, value f32, in_slope f32, out_slope f32,
  interpolation], ...]`` and ``limits`` (every ``WorkLimits`` field); output: ``{"keys": the
  stored keys}`` of the track the owner holds after the step (``{"keys": []}`` while empty).
* ``TryEvaluateTrack``: ``time`` (f64 seconds), ``policy``, ``side``, on the track the owner
  holds; output: the sample ``{"value", "derivative", "span", "reflected"}``, or ``{"status"}``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from interval.track import exact_track_sample
from reference.status import LIMIT_RANGES, BoundaryPolicy, SpanSide, WorkLimits
from reference.track import KEY_BYTES, TrackInterpolation, TrackKey

from ...model import enc, parse_number
from ...request import Expect, Request, Rule, Step, decided, decided_by_kinds, failure, interleaved, success
from .checks import INPUT_STATUS, REJECT_STATUS
from .contract import POLICIES as _POLICIES
import itertools

__all__ = [
    "LIMITS",
    "case_request",
    "corpus_cases",
    "enc_keys",
    "enc_limits",
    "expected_evaluate",
    "expected_prepare",
    "requests",
    "status_requests",
]

LIMITS = WorkLimits(max_spans=1 << 16, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                    max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)

_P = BoundaryPolicy
_KINDS = (TrackInterpolation.Step, TrackInterpolation.Linear, TrackInterpolation.Hermite)
_SCALE_LIMIT = Fraction(2) ** 1000  # docs/decisions.md "Tracks: keys, defaults and preparation"

def _key(t, v, mi=0.0, mo=0.0, kind=TrackInterpolation.Linear):
    return TrackKey(float(t), np.float32(v), np.float32(mi), np.float32(mo), kind)


def _case(name, keys, queries):
    return {"name": name, "keys": keys, "queries": list(queries)}


def _all_policies(times, sides=(SpanSide.Outgoing,)):
    return [(float(t), p, s) for t in times for p in _POLICIES for s in sides]


def _spec_example(rng):
    H, L, S = TrackInterpolation.Hermite, TrackInterpolation.Linear, TrackInterpolation.Step
    keys = [_key(0.0, 0.0, kind=L), _key(1.0, 1.0, mo=2.0, kind=H), _key(3.0, 1.0, kind=S), _key(3.5, 0.0)]
    qs = [(4.5, _P.PingPong, SpanSide.Outgoing), (2.5, _P.Reject, SpanSide.Outgoing)]
    qs += _all_policies([-1.0, 4.5, 7.0, 10.5, 1e9 + 0.25, -3.5], (SpanSide.Outgoing, SpanSide.Incoming))
    return _case("spec example", keys, qs)


def _hold_and_steps(rng):
    H, S = TrackInterpolation.Hermite, TrackInterpolation.Step
    keys = [_key(0.0, 2.0, kind=S), _key(0.5, 3.0, kind=H), _key(1.5, 3.0, kind=S), _key(2.0, -1.0, kind=S),
            _key(4.0, 5.0)]
    qs = _all_policies([0.25, 0.5, 1.0, 1.5, 1.75, 2.0, 4.0, 5.0, -0.5], (SpanSide.Outgoing, SpanSide.Incoming))
    return _case("authored hold and Step spans", keys, qs)


def _random_keys(rng, n, start, widths, vscale, mscale):
    times = start + np.concatenate([[0.0], np.cumsum(widths)])
    keys = []
    for i in range(n):
        kind = _KINDS[int(rng.integers(0, 3))]
        v = np.float32(rng.normal() * vscale)
        mi, mo = (np.float32(rng.normal() * mscale) for _ in range(2))
        keys.append(TrackKey(float(times[i]), v, mi, mo, kind))
    # times must stay strictly increasing after rounding the cumulative sum
    return keys if all(b.time > a.time for a, b in itertools.pairwise(keys)) else None


def _random_queries(rng, keys, count):
    t0, t1 = keys[0].time, keys[-1].time
    L = t1 - t0
    qs = []
    for _ in range(count):
        pick = rng.random()
        if pick < 0.5:
            t = t0 + rng.random() * L
        elif pick < 0.8:
            t = t0 + rng.uniform(-3, 4) * L
        elif pick < 0.9:
            t = t0 + float(rng.integers(-5, 6)) * L  # exactly onto the ends after reduction
        else:
            t = t0 + rng.uniform(-1, 1) * L * 10.0 ** rng.integers(3, 9)
        qs.append((float(t), _POLICIES[int(rng.integers(0, 5))],
                   SpanSide.Incoming if rng.random() < 0.3 else SpanSide.Outgoing))
    mid = keys[len(keys) // 2].time  # an interior key, by time, both sides
    qs += [(mid, _P.Clamp, SpanSide.Outgoing), (mid, _P.Clamp, SpanSide.Incoming)]
    return qs


def _random_case(rng, name="random", n=None, start=None, width_exp=(-3.0, 1.0), vexp=(-3, 3),
                 mexp=None):
    for _ in range(20):
        n = int(rng.integers(2, 9)) if n is None else n
        start = float(rng.normal() * 10.0 ** rng.integers(0, 4)) if start is None else start
        widths = 10.0 ** rng.uniform(*width_exp, n - 1)
        vscale = float(10.0 ** rng.uniform(*vexp))
        mscale = vscale / float(np.mean(widths)) * (10.0 ** rng.uniform(-1, 1) if mexp is None else 10.0 ** mexp)
        keys = _random_keys(rng, n, start, widths, vscale, mscale)
        if keys is not None:
            return _case(name, keys, _random_queries(rng, keys, 8))
    raise RuntimeError("could not draw increasing key times")  # pragma: no cover


def _underflow_case(rng):
    """Spans 2^-1060 s wide near t = 0 with zero values and unit slopes: the value is h times
    the slope terms, binary64 subnormals, where only the model's eta term covers the error."""
    H = TrackInterpolation.Hermite
    h = 2.0**-1060
    keys = [_key(0.0, 0.0, mo=rng.normal(), kind=H), _key(h, 0.0, mi=rng.normal(), mo=rng.normal(), kind=H),
            _key(3 * h, 0.0, mi=rng.normal())]
    qs = [(float(t), p, s) for t in (h / 3, h * 0.75, 2 * h, 5 * h, -7 * h) for p in _POLICIES
          for s in (SpanSide.Outgoing,)]
    return _case("spans 2^-1060 s wide (subnormal products)", keys, qs)


def _cancelling_case(rng):
    """Hermite spans whose terms cancel: v1 = -v0 with slopes that pull the curve back through
    zero, so the value is small against its scale S and rounding reaches further into the
    model; non-dyadic times and widths near 1 so the local parameter rounds."""
    H = TrackInterpolation.Hermite
    v = np.float32(rng.uniform(1, 2) * 10.0 ** rng.integers(-3, 4))
    t0 = float(rng.uniform(0.1, 1))
    w = float(rng.uniform(0.9, 1.1))
    keys = [_key(t0, v, mo=-v * 3 / w, kind=H), _key(t0 + w, -v, mi=-v * 3 / w, mo=v * 3 / w, kind=H),
            _key(t0 + 2 * w * 1.0000001, v, mi=v * 3 / w)]
    qs = [(t0 + float(x) * 2 * w, _P.Reject, SpanSide.Outgoing) for x in rng.random(24)]
    return _case("cancelling Hermite terms", keys, qs)


def _mixed_magnitudes_case(rng):
    """Linear and Hermite spans between keys of very different magnitudes (1e20 next to 1e-20):
    a form such as ``v0 + u (v1 - v0)`` loses the small key's value at u = 1, where the key
    value is Exact."""
    L, H = TrackInterpolation.Linear, TrackInterpolation.Hermite
    big, small = float(np.float32(rng.uniform(1, 2) * 1e20)), float(np.float32(rng.uniform(1, 2) * 1e-20))
    keys = [_key(0.0, big, kind=L), _key(0.75, small, kind=L), _key(1.5, -big, kind=H),
            _key(2.0, small, mi=1.0, kind=L), _key(3.0, 0.0)]
    qs = _all_policies([0.375, 0.75, 1.5, 2.0, 3.0, 4.25, -0.5], (SpanSide.Outgoing, SpanSide.Incoming))
    return _case("keys of mixed magnitudes", keys, qs)


def _reduced_onto_a_key_case(rng):
    """A first key 2^-60 s before zero and keys at 1 s and 2 s: Loop reduces t = 3, 5, 7, ... to
    1 - 2^-60, 1 - 2^-59, ..., inside span 0 but rounding to the key at 1 s in float64 (a span
    search on the rounded time lands in span 1, a hair before its start)."""
    L, H = TrackInterpolation.Linear, TrackInterpolation.Hermite
    keys = [_key(-(2.0**-60), rng.normal(), mo=rng.normal(), kind=H), _key(1.0, rng.normal(), kind=L),
            _key(2.0, rng.normal())]
    qs = [(float(t), p, s) for t in (3.0, 5.0, 7.0, -1.0, 1e6 + 1.0) for p in (_P.Loop, _P.PingPong)
          for s in (SpanSide.Outgoing, SpanSide.Incoming)]
    return _case("reduced times a hair before a key", keys, qs)


def corpus_cases(seed: int, n: int) -> list:
    """``n`` track cases (keys and queries), named corner cases first. Deterministic in ``seed``."""
    specials = _SPECIALS
    cases = []
    for k in range(n):
        rng = np.random.default_rng([seed, k, 3])
        cases.append(specials[k](rng) if k < len(specials) else _random_case(rng))
    return cases


_SPECIALS = [
    _spec_example,
    _hold_and_steps,
    lambda r: _random_case(r, "large times, millisecond spans", start=1e6 + 0.125, width_exp=(-3.0, -2.5)),
    lambda r: _random_case(r, "overshooting Hermite", mexp=2.0),
    lambda r: _random_case(r, "tiny spans, steep slopes", width_exp=(-9.0, -8.0), mexp=1.0),
    lambda r: _random_case(r, "negative times", start=-1e3),
    lambda r: _random_case(r, "large float32 values", vexp=(30, 32)),
    lambda r: _random_case(r, "tiny float32 values", vexp=(-38, -36)),
    lambda r: _random_case(r, "two keys", n=2),
    _underflow_case,
    _cancelling_case,
    _mixed_magnitudes_case,
    lambda r: _random_case(r, "wide spans, slopes dominating the scale", width_exp=(3.0, 6.0), vexp=(-3, -1),
                           mexp=3.0),
    _reduced_onto_a_key_case,
]
_NAMED = len(_SPECIALS)


# --- Encoding ----------------------------------------------------------------------------------


def enc_keys(keys) -> list:
    """Keys as request inputs: ``[time, value, in_slope, out_slope, interpolation]``."""
    return [[enc(k.time), enc(float(k.value)), enc(float(k.in_slope)), enc(float(k.out_slope)),
             k.interpolation.value] for k in keys]


def enc_limits(limits: WorkLimits) -> dict:
    return {name: int(getattr(limits, name)) for name in LIMIT_RANGES}


# --- What the spec demands ---------------------------------------------------------------------

_WHY_LIMITS = "spec 002 'a zero work limit allows no work'; WorkLimits ranges (docs/decisions.md)"


def expected_prepare(keys: list, limits: dict) -> Expect:
    """The statuses TryPrepareTrack must end in for these (encoded) inputs: every defect's
    status is acceptable (the spec orders no checks), none means success."""
    why, found, kinds = [], [], []

    def defect(status, reason, kind="spec"):
        """``kind``: "spec" (the spec or a documented default names the status), "named" (the
        spec demands the failure, our decision names its status), "ours" (only our decision
        makes the input fail)."""
        if status not in found:
            found.append(status)
        why.append(reason)
        kinds.append(kind)

    for name, (lo, hi) in LIMIT_RANGES.items():
        v = limits.get(name)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            defect("InvalidArgument", f"limits.{name} outside [{lo}, {hi}] (docs/decisions.md WorkLimits)")
    n = len(keys)
    if n < 2:  # the spec sets no least key count
        defect("InvalidArgument", "a track needs at least two keys (docs/decisions.md)", "ours")
    if isinstance(limits.get("max_keys"), int) and n > limits["max_keys"]:
        defect("BudgetExceeded", f"{n} keys > max_keys (spec 002 WorkLimits: {_WHY_LIMITS})")
    if isinstance(limits.get("max_prepared_bytes"), int) and n * KEY_BYTES > limits["max_prepared_bytes"]:
        defect("BudgetExceeded", f"{n} x {KEY_BYTES} bytes > max_prepared_bytes (docs/decisions.md KEY_BYTES)")
    vals = []
    for i, k in enumerate(keys):
        t, v, mi, mo = (parse_number(x) for x in k[:4])
        finite = all(isinstance(x, Fraction) for x in (t, v, mi, mo))
        if not finite:  # a NaN time cannot increase strictly; the spec names no other nonfinite key
            defect("InvalidArgument", f"key {i} is not finite (docs/decisions.md)",
                   "named" if t is None or (isinstance(t, float) and math.isnan(t)) else "ours")
        vals.append((t, v, mi, mo, k[4]))
    for i in range(len(vals) - 1):
        t0, t1 = vals[i][0], vals[i + 1][0]
        if isinstance(t0, Fraction) and isinstance(t1, Fraction) and not t1 > t0:
            # Equal times: the spec's status; decreasing ones: the spec's failure, our status.
            defect("InvalidDomain",
                   "key times must strictly increase: 'equal times are InvalidDomain' (spec 002 Tracks)",
                   "spec" if t1 == t0 else "named")
    if not found:
        for i in range(len(vals) - 1):
            (t0, v0, _, m0, kind), (t1, v1, m1, _, _) = vals[i], vals[i + 1]
            h = t1 - t0
            if kind == "Step":
                scale = 0
            elif kind == "Linear":
                scale = abs(v0) + abs(v1)
            else:
                scale = abs(v0) + abs(v1) + h * (abs(m0) + abs(m1))
            if float(h) == math.inf or scale > _SCALE_LIMIT or scale / h > _SCALE_LIMIT:
                defect("OutOfRange", f"span {i}: scale beyond 2^1000 (docs/decisions.md, evaluation could overflow)",
                       "ours")
    if found:
        return decided_by_kinds(failure(*found, why="; ".join(why)), kinds, INPUT_STATUS)
    return success("valid keys within every limit (spec 002 Tracks)")


def expected_evaluate(keys: list, time, policy: str, side: str) -> Expect:
    """The status TryEvaluateTrack must end in: InvalidArgument for Wrap or a nonfinite time,
    InvalidDomain where Reject leaves the time without a value (exact, ``interval.track``)."""
    if policy not in [p.value for p in _POLICIES]:
        return failure("InvalidArgument", why="'Tracks accept Reject, Clamp, Hold, Loop and PingPong. Every other "
                                              "combination is InvalidArgument' (spec 002 Contracts)")
    t = parse_number(time)
    if not isinstance(t, Fraction):  # names no time: the spec's failure, our status
        return decided(failure("InvalidArgument", why="a nonfinite time (docs/decisions.md)"), INPUT_STATUS)
    exact_keys = [(parse_number(k[0]), parse_number(k[1]), parse_number(k[2]), parse_number(k[3]), k[4])
                  for k in keys]
    exact_keys = [tuple(float(x) if isinstance(x, Fraction) else x for x in k[:4]) + (k[4],) for k in exact_keys]
    if exact_track_sample(exact_keys, float(t), policy, side) is None:  # the spec names no status
        return decided(failure("InvalidDomain", why="'Policies act only outside the closed domain' and Reject "
                                                    "rejects (spec 002 Contracts)"), REJECT_STATUS)
    return success("inside the domain, or a policy that maps the time into it (spec 002 Contracts)")


# --- Requests ----------------------------------------------------------------------------------


def _prepare_step(keys_enc: list, limits: dict, expect: Expect = None) -> Step:
    expect = expect or expected_prepare(keys_enc, limits)
    return Step("TryPrepareTrack", {"keys": keys_enc, "limits": limits}, expect,
                ("track.key_values",) if expect.kind == "success" else ())


def _evaluate_step(keys_enc: list, t, policy: str, side: str) -> Step:
    expect = expected_evaluate(keys_enc, t, policy, side)
    return Step("TryEvaluateTrack", {"time": enc(t) if isinstance(t, float) else t, "policy": policy,
                                     "side": side}, expect, ("track.values",) if expect.kind == "success" else ())


def case_request(rid: str, case: dict, limits: WorkLimits = LIMITS) -> Request:
    """A corpus case (``{"name", "keys": [TrackKey], "queries": [(t, policy, side)]}``) as a request."""
    keys = enc_keys(case["keys"])
    steps = [_prepare_step(keys, enc_limits(limits))]
    steps += [_evaluate_step(keys, t, p.value, s.value) for t, p, s in case["queries"]]
    return Request(rid, "track", case.get("name", ""), tuple(steps))


def _limits(**changes) -> dict:
    d = enc_limits(LIMITS)
    d.update(changes)
    return d


def _k(t, v=0.0, kind="Linear", mi=0.0, mo=0.0) -> list:
    return [enc(float(t)), enc(float(np.float32(v))), enc(float(np.float32(mi))), enc(float(np.float32(mo))), kind]


def status_requests() -> list[tuple[str, tuple[Step, ...], tuple[Rule, ...]]]:
    """Named status contracts: every status the spec and our decisions name for TryPrepareTrack
    and TryEvaluateTrack, limits at equality and one past, and the failed rebuild."""
    two = [_k(0.0, 1.0), _k(1.0, 2.0)]
    three = two + [_k(2.0, 0.5)]
    q = ("0x1.8p-1", "Reject", "Outgoing")
    out = []

    def single(name, keys, limits, *evals):
        steps = [_prepare_step(keys, limits)]
        steps += [_evaluate_step(keys, *e) for e in evals] if steps[0].expect.kind == "success" else []
        out.append((name, tuple(steps), ()))

    single("max_keys met with equality (2 keys, max_keys = 2)", two, _limits(max_keys=2), q)
    single("max_keys exceeded by one (3 keys, max_keys = 2)", three, _limits(max_keys=2))
    single("zero max_keys allows no work", two, _limits(max_keys=0))
    single("max_prepared_bytes met with equality", three, _limits(max_prepared_bytes=3 * KEY_BYTES), q)
    single("max_prepared_bytes exceeded by one", three, _limits(max_prepared_bytes=3 * KEY_BYTES - 1))
    single("limits out of range (max_depth = 53)", two, _limits(max_depth=53))
    single("negative limit", two, _limits(max_samples=-1))
    single("one key", two[:1], _limits())
    single("no keys", [], _limits())
    single("equal key times", [_k(0.0), _k(1.0), _k(1.0, 3.0)], _limits())
    single("decreasing key times", [_k(1.0), _k(0.0)], _limits())
    single("nonfinite key time", [_k(0.0), ["inf", "0x0p+0", "0x0p+0", "0x0p+0", "Linear"]], _limits())
    single("NaN key value", [_k(0.0), ["0x1p+0", "nan", "0x0p+0", "0x0p+0", "Linear"]], _limits())
    single("span scale beyond 2^1000 (values 2^127 over 2^-900 s)",
           [_k(0.0, 2.0**127, "Linear"), [enc(2.0**-900), enc(-(2.0**127)), "0x0p+0", "0x0p+0", "Linear"]],
           _limits())
    single("Wrap is not a track policy", two, _limits(), ("0x1p-1", "Wrap", "Outgoing"))
    single("nonfinite evaluation time", two, _limits(), ("inf", "Clamp", "Outgoing"), ("nan", "Reject", "Outgoing"))
    single("Reject just outside both ends", two, _limits(), (enc(-(2.0**-1074)), "Reject", "Outgoing"),
           (enc(math.nextafter(1.0, 2.0)), "Reject", "Incoming"), ("0x1p+0", "Reject", "Incoming"))
    # A failed rebuild keeps the previous track: the owner's keys and a query answer stay bit
    # for bit what they were before ("a failed rebuild keeps the previous snapshot").
    keep = "spec 002 Contracts: 'a failed rebuild keeps the previous snapshot'"
    for name, bad, limits in (("equal times", [_k(0.0), _k(0.0, 5.0)], _limits()),
                              ("budget", three, _limits(max_keys=2))):
        steps = (_prepare_step(two, _limits(max_keys=2)), _evaluate_step(two, *q),
                 _prepare_step(bad, limits), _evaluate_step(two, *q))
        out.append((f"failed rebuild ({name}) keeps the previous track", steps,
                    (Rule("same_output", 0, 2, keep), Rule("same_output", 1, 3, keep))))
    return out


@lru_cache(maxsize=2)
def _kept(seed: int, n: int) -> tuple:
    """The corpus's cases and status contracts, kept for the next range of the same corpus."""
    return corpus_cases(seed, n), status_requests()


def requests(seed: int, n: int, lo: int = 0, hi: int | None = None) -> list[Request]:
    """``n`` track requests: the named corpus cases, the status contracts, then random tracks.
    Deterministic in ``seed``; ids ``track/NNNNN``. With ``lo``, ``hi``: only
    ``requests(seed, n)[lo:hi]``, the others' expectations not decided (``oracles.distributed``
    judges the corpus in such ranges)."""
    hi = n if hi is None else min(hi, n)
    cases, named = _kept(seed, n) if hi - lo < n else (corpus_cases(seed, n), status_requests())
    return interleaved("track", lo, hi, _NAMED, named, lambda rid, k, s: case_request(rid, cases[k]))
