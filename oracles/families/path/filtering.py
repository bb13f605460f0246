"""The float64 filter in front of the exact stage of ``path.interior_positions`` and
``path.derivatives`` (issue 26): the glue between a batch of claims and
``interval.filters.residual_ratios``, the enclosure method that decides them.

A batch parses each claim's controls, parameter and claimed values, resolves its bound, and
asks ``interval.filters.residual_ratios`` for the correctly rounded ratio error / bound of
every claim at once. Where the filter pins that ratio (the residual is exact as an expansion
of float64 terms and its rounding to float64 is certain) and it is below 1, the claim is
Verified with exactly the measured value and bound use the exact stage would report
(docs/decisions.md "Oracle filters: byte-identical verdicts"); every other claim (a ratio at or
above 1, a Violated claim and its witness, a request decided by its status, anything the
filter cannot pin or the fast parse cannot read) goes to the exact stage unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from interval.lazy import gmpy2
from reference import error_model as EM
from reference.fp import U64

from ...errormodel import ETA_OF_U
from ...hexfloat import canonical_values
from ...model import Claim, verified
from .checks import _evaluation_point, _resolve

__all__ = ["MIN_FILTER_BATCH", "derivative_value", "filtered", "one", "position_value"]

MIN_FILTER_BATCH = 16  # below this many candidates numpy's per-call cost outweighs the filter


def one(batch, claim: Claim):
    r = batch([claim])[0]
    if isinstance(r, BaseException):
        raise r
    return r


_REQUEST_FILLER = ["0x0.0p+0"] * 13  # in place of the texts of a request's controls and u
_PLAIN_KEYS = frozenset({"controls", "u", "minimum_speed"})  # the inputs of a claim without a request


def _plain_inputs(claim: Claim):
    """The 12 control texts and u's text of a claim without a request, or None when its inputs
    have another shape (the exact stage reads those)."""
    inp = claim.inputs
    if not inp.keys() <= _PLAIN_KEYS:
        return None
    ctl, u = inp.get("controls"), inp.get("u")
    if type(ctl) is not list or len(ctl) != 4 or type(u) is not str:
        return None
    c0, c1, c2, c3 = ctl
    if not (type(c0) is list and type(c1) is list and type(c2) is list and type(c3) is list
            and len(c0) == len(c1) == len(c2) == len(c3) == 3):
        return None
    return [*c0, *c1, *c2, *c3, u]


def position_value(claim: Claim):
    """The claimed position's three texts, or None (the exact stage reads other shapes)."""
    v = claim.value
    return v if type(v) is list and len(v) == 3 else None


def derivative_value(claim: Claim):
    v = claim.value
    if type(v) is not dict or v.keys() != {"first", "second"}:
        return None
    f, g = v["first"], v["second"]
    if type(f) is not list or len(f) != 3 or type(g) is not list or len(g) != 3:
        return None
    return f + g


def _declares_model(claim: Claim) -> bool:
    """Whether the claim's bound is its declared model (``oracles.errormodel.resolve``'s test)."""
    m = claim.model
    return bool(m) and ("u" in m or "bound" in m)


def _as_components(b) -> list:
    return list(b) if isinstance(b, (list, tuple)) else [b]


def _bounds(claim: Claim, P: np.ndarray, reference):
    """``(bounds, extra)`` of a claim that declares a model: its bounds as positive float64
    values and the verdict's model fields, resolved as the exact stage resolves them
    (``_resolve``), or ``(None, None)`` where a bound is not exactly a positive float64 (the
    exact stage judges that claim)."""
    r = _resolve(claim, reference(EM.span_magnitude(P)))
    try:
        bs = [float(b) for b in r.bound]
    except OverflowError:
        return None, None
    if any(not (b > 0 and math.isfinite(b)) or gmpy2.mpq(b) != q for b, q in zip(bs, r.bound)):
        return None, None
    return bs, r.extra()


def filtered(claims: list, exact, value_of, reference, truths: tuple) -> list:
    """Judge ``claims``: the filter where it decides, ``exact(claim)`` (the row's exact stage,
    exceptions kept as results) everywhere else."""
    from ...batch import MALFORMED_ERRORS, filters_on, record_filter

    out: list = [None] * len(claims)
    if filters_on() and len(claims) >= MIN_FILTER_BATCH:
        _run_filter(claims, out, value_of, reference, truths)
    if claims:
        record_filter(claims[0].row, sum(v is not None for v in out), len(claims))
    for i, c in enumerate(claims):
        if out[i] is None:
            try:
                out[i] = exact(c)
            except MALFORMED_ERRORS as e:
                out[i] = e
    return out


def _run_filter(claims: list, out: list, value_of, reference, truths: tuple) -> None:
    """Read the claims the filter may judge (in bulk where they carry their controls, through
    the request's exact point where they name one), resolve their bounds, run the filter, and
    write the Verified verdicts it decides into ``out``; every other claim stays None (the exact
    stage's). A request the exact point decides alone (a status) is that same verdict."""
    n_val = 3 * len(truths)
    idx, Ps, us, texts = [], [], [], []  # texts: each claim's 13 input texts and its values', flat
    for i, c in enumerate(claims):
        vals = value_of(c)
        if vals is None:
            continue
        plain = _plain_inputs(c)
        if plain is not None:
            idx.append(i)
            Ps.append(None)
            us.append(None)
            texts += plain
            texts += vals
            continue
        if "request" not in c.inputs:
            continue
        try:
            P, u, decided = _evaluation_point(c)
        except Exception:
            continue
        if decided is not None:
            continue
        idx.append(i)
        Ps.append(P)
        us.append(u)
        texts += _REQUEST_FILLER  # the controls and u come from the request
        texts += vals
    if len(idx) < MIN_FILTER_BATCH:
        return
    # Every number in float.hex's own text, read in bulk; a claim that spells one otherwise
    # goes to the exact stage, which reads it with its own errors.
    nums, canonical = canonical_values(texts)
    a = nums.reshape(len(idx), 13 + n_val)
    keep = canonical.reshape(a.shape).all(axis=1)
    if not keep.all():
        kept = np.flatnonzero(keep).tolist()
        idx, Ps, us, a = [idx[j] for j in kept], [Ps[j] for j in kept], [us[j] for j in kept], a[keep]
        if not idx:
            return
    for j, (P, u) in enumerate(zip(Ps, us)):
        if P is not None:
            a[j, :12] = np.asarray(P, dtype=np.float64).ravel()
            a[j, 12] = u
    P = a[:, :12].reshape(-1, 4, 3)
    u = a[:, 12]
    claimed = a[:, 13:].reshape(len(idx), len(truths), 3)
    good = np.all(P.astype(np.float32).astype(np.float64) == P, axis=(1, 2)) & np.all(np.isfinite(P), axis=(1, 2)) \
        & (u >= 0.0) & (u <= 1.0)
    # Bounds: the reference model, vectorised (reference.error_model's formulas take an array
    # of E and give each element bit for bit its scalar bound), for claims that declare no
    # model; a declared model is resolved claim by claim, as the exact stage resolves it.
    E = np.max(np.abs(P), axis=(1, 2))
    bounds = np.column_stack([np.asarray(b, dtype=np.float64) * np.ones(len(idx))
                              for b in _as_components(reference(E)(U64, ETA_OF_U[U64]))])
    extras: list = [{}] * len(idx)
    for j in np.nonzero(good)[0].tolist():
        c = claims[idx[j]]
        if not _declares_model(c):
            continue
        try:
            bs, extra = _bounds(c, P[j], reference)
        except Exception:
            bs = None
        if bs is None or len(bs) != len(truths):
            good[j] = False
            continue
        bounds[j] = bs
        extras[j] = extra
    from interval.filters import residual_ratios

    sel = np.nonzero(good)[0]
    if sel.size == 0:
        return
    ratio = np.zeros(sel.size)
    decided = np.ones(sel.size, dtype=bool)
    for k, which in enumerate(truths):
        q, pin = residual_ratios(P[sel], u[sel], claimed[sel, k], bounds[sel, k], which)
        ratio = np.maximum(ratio, q)
        decided &= pin & (q < 1.0)
    for j, rj, ok in zip(sel.tolist(), ratio.tolist(), decided.tolist()):
        if ok:
            c = claims[idx[j]]
            out[idx[j]] = verified(c, measure="error_ratio", measured=rj, bound_use=rj, **extras[j])
