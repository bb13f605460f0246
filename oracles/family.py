"""Case families: how the built-in corpus is generated and turned into claims and verdicts.

A family package lives in ``oracles/families/`` and exposes ``FAMILY``, a :class:`Family`. The
ledger discovers every such package (``oracles.families.families()``), so adding a family adds no
edit to shared files. One family covers one area of the spec (paths, tracks, triangle
surfaces, ...) and owns the checkers of its rows: one checker per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable

from .model import Claim, Verdict
from .rows import row

__all__ = ["Family", "RowContract", "adapter_claims", "corpus_getattr", "corpus_range", "imported_on_call", "ranged"]


@dataclass(frozen=True)
class RowContract:
    """What one row's claims look like in a case file, and how its checker is shown to fail.

    Attributes:
        checks: one sentence for auditors: what the checker verifies and the bound formula.
        inputs: JSON Schema of the claim's ``inputs`` object (built with ``oracles.schema``).
        value: JSON Schema of the claim's ``value``.
        plant: ``plant(true_claim) -> false_claim``: a claim the checker must answer Violated
            (the meta-test in ``tests/oracles/test_every_checker_can_fail.py`` walks every row).
        model: JSON Schema of ``model``; Rounded rows use ``oracles.schema.MODEL`` (a declared
            error model), other rows leave it None (a claim with a model is then malformed).
        refutable: False for a property no oracle can refute; the ledger says so in words and
            counts none of its claims as verified.
        oracles: the independent enclosure methods the checker uses for the truth, in words
            (``("mpmath iv: Taylor quadrature", "FLINT Arb: acb.integral")``); a row enclosed
            twice checks that the two overlap per claim (disjoint is an OracleFault). The ledger
            header lists them per row.
        evaluated_point: ``(rule, point)`` for a row whose claims name the point their step
            evaluated (``inputs.controls``: the evaluated span's prepared controls, ``inputs.u``:
            its parameter after span sides resolve): ``point(spans, call) -> (span, u) | None``,
            from the number of prepared spans and the step's arguments (``{"span": ..., "u":
            ..., "side": ...}``), None where the call names no point (its status is judged
            instead). In an answer, a claim naming another point is Violated under ``rule``
            (``oracles.given``): each claim is then also about the call it answers, not only true
            of the point it names.
        answered: ``answered(claim, request, answer, step) -> (claim, verdict)`` for a row whose
            claims restate what other steps of the same answer returned (a frame build's claim
            lists the frames later evaluations returned): the claim completed from those steps
            where it leaves that out, and a Violated verdict (else None) where it contradicts
            them (``oracles.given.with_answer``).
    """

    checks: str
    inputs: dict
    value: dict
    plant: Callable[[Claim], Claim]
    model: dict | None = None
    refutable: bool = True
    oracles: tuple[str, ...] = ()
    evaluated_point: tuple[Any, Callable[[int, dict], Any]] | None = None
    answered: Callable[[Claim, Any, Any, int], tuple] | None = None


@dataclass(frozen=True)
class Family:
    """A family's requests (or, in the older form, cases), our fast path's answers, and the
    checkers of its rows.

    Attributes:
        name: short name (``"path"``).
        default_cases: how many requests (cases) the built-in corpus draws by default.
        checkers: ``{row_id: check(claim) -> Verdict}``, one per row the family evidences.
        contracts: ``{row_id: RowContract}``: the case-file fields and a planted false claim
            of every row the family checks.
        oracle_precisions: the interval precisions (bits) its checkers use, for the ledger header.
        requests: ``requests(seed, n) -> list[oracles.request.Request]``, deterministic in
            ``seed``, named corner cases first; each step's expected status decided from the spec.
        answer: ``answer(request) -> oracles.request.Answer``: our fast path answering one request,
            the adapter an outside implementation's answers stand in for.
        batch_checkers: ``{row_id: check_batch(claims) -> [Verdict or exception]}``: a row's
            claims judged together (``oracles.batch``); each claim must get the verdict its
            single checker gives (an exception where that one raises a malformed error).
        generate, claims: the older form, ``generate(seed, n) -> cases`` and ``claims(case) ->
            claims``; a family with ``requests`` gets them derived (the requests, and the claims of
            our answer), so ``explain``, ``claims`` and Dask see one shape.

    Every family also owns the status row ``<name>.statuses`` (``oracles.contract``), whose
    checker and contract are shared.
    """

    name: str
    default_cases: int
    checkers: dict[str, Callable[[Claim], Verdict]]
    contracts: dict[str, RowContract] = field(default_factory=dict)
    oracle_precisions: tuple[int, ...] = field(default=())
    batch_checkers: dict[str, Callable[[list], list]] = field(default_factory=dict)
    requests: Callable[[int, int], list] | None = None
    answer: Callable[[Any], Any] | None = None
    generate: Callable[[int, int], list] | None = None
    claims: Callable[[Any], Iterable[Claim]] | None = None

    def __post_init__(self):
        for rid in self.checkers:
            row(rid)  # unknown row ids fail at import, not in a ledger run
        extra = (set(self.contracts) | set(self.batch_checkers)) - set(self.checkers)
        if extra:
            raise ValueError(f"family {self.name}: contracts or batches for rows it does not check: {sorted(extra)}")
        if (self.requests is None) != (self.answer is None):
            raise ValueError(f"family {self.name}: requests and answer come together")
        if self.requests is not None:
            if self.generate is not None or self.claims is not None:
                raise ValueError(f"family {self.name}: give requests and answer, or generate and claims")
            answer = self.answer

            def claims(req):
                from .contract import answer_claims

                return answer_claims(req, answer(req))

            object.__setattr__(self, "generate", self.requests)
            object.__setattr__(self, "claims", claims)
        elif self.generate is None or self.claims is None:
            raise ValueError(f"family {self.name}: no requests and no cases")

    @property
    def answers_requests(self) -> bool:
        """True when the family speaks requests and answers (``oracles.request``)."""
        return self.requests is not None


def adapter_claims(family: str, case_request: Callable, answer: Callable) -> Callable:
    """``claims(case)``: the value claims our fast path makes on one corpus case dict, through
    the family's request adapter (``answer(case_request(id, case))``), for tests, ``explain``
    and benchmarks that still think in cases."""

    def claims(case) -> list:
        return [c for s in answer(case_request(f"{family}/case", case)).steps for c in s.claims]

    claims.__doc__ = f"The value claims our fast path makes on one {family} case dict (through the request adapter)."
    return claims


class imported_on_call:  # a function to its callers, hence the lower-case name
    """The function ``name`` of the module ``module``, imported on its first call: a family's
    fast path (its ``answers`` module and the ``reference`` modules behind it) is needed only by
    commands that answer requests, never by a ``check`` of a case file (issue 26, "imports are
    lazy where a command does not need them"). Picklable: it travels as the two names."""

    __slots__ = ("_fn", "module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name, self._fn = module, name, None

    def __call__(self, *args, **kwargs):
        fn = self._fn
        if fn is None:
            import importlib

            fn = self._fn = getattr(importlib.import_module(self.module), self.name)
        return fn(*args, **kwargs)

    def __reduce__(self):
        return imported_on_call, (self.module, self.name)

    def __repr__(self):
        return f"imported_on_call({self.module!r}, {self.name!r})"


def corpus_getattr(module_name: str, corpus) -> Callable:
    """A module ``__getattr__`` that finds the corpus's generators under the family package's
    name (the names tests and benchmarks use, ``SF._cube``)."""

    def __getattr__(name):
        try:
            return getattr(corpus, name)
        except AttributeError:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}") from None

    return __getattr__


def ranged(fam) -> bool:
    """True when ``fam.requests(seed, n, lo, hi)`` makes ``requests(seed, n)[lo:hi]`` alone (its
    expectations only), so that the corpus can be made a range at a time where it is judged."""
    import inspect

    if not fam.answers_requests:
        return False
    params = inspect.signature(fam.requests).parameters
    return "lo" in params and "hi" in params


def corpus_range(fam, seed: int, n: int, lo: int, hi: int, whole: Callable[[], list]) -> list:
    """Requests (or cases) ``lo`` to ``hi - 1`` of ``fam``'s corpus ``(seed, n)``: made alone
    where the family can (:func:`ranged`), else sliced from ``whole()``, the caller's way to
    make (or keep) the whole corpus."""
    if ranged(fam):
        return fam.requests(seed, n, lo, hi)
    return whole()[lo:hi]
