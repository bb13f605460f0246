"""The ledger on Dask: the corpus (or a case file) partitioned, judged on workers, merged.

``python -m oracles ledger --workers N`` starts a ``distributed.LocalCluster`` of N single-
threaded worker processes on this machine; ``--scheduler ADDRESS`` uses an existing Dask
cluster instead. ``check FILE`` takes the same options. Dask schedules; nothing here does.

Partition. The corpus is cut into chunks of whole cases, ``(family, first case, last case)``,
whose boundaries depend only on the corpus (each family's case count and ``CHUNK_CASES``), never
on the worker count. A worker generates the family's cases itself (once per process, cached),
runs the fast path on its chunk and judges each claim where it was generated; it returns
per-row :class:`~oracles.ledger.RowTally` summaries with claim indices local to the chunk, and
its claim count. No claim leaves the worker, so memory holds the tallies (a few witnesses per
row), not the claims.

Merge. The client merges the chunk tallies in corpus order (family order, then case order),
offsetting each chunk's claim indices by the claims before it (``RowTally.merge``), exactly what
the serial run would have added one verdict at a time: counts add, the first witnesses are the
first in corpus order, the worst record is the first of the largest values. Since the chunks
and the merge order are the same whatever the workers, ``ledger.json`` without its ``seconds``
is byte-identical for any worker count.

A case file (``check``) is cut into runs of ``CHUNK_CLAIMS`` claims in file order; the claims
are shipped to the workers (they were parsed, and their schema checked, on the client).

Needs the ``dask`` extra (``pip install -e .[dask]``); without it the CLI says so and exits 2.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Optional

__all__ = ["DaskUnavailable", "require_dask", "cluster", "corpus_chunks", "run_corpus_distributed",
           "check_claims_distributed", "CHUNK_CASES", "CHUNK_CLAIMS"]

CHUNK_CASES = 50  # cases per corpus task: small enough to balance, large enough to amortise
CHUNK_CLAIMS = 2000  # claims per case-file task


class DaskUnavailable(RuntimeError):
    """The ``dask`` extra (``distributed``) is not installed."""


def require_dask():
    """Import ``distributed`` or raise :class:`DaskUnavailable` with the install line."""
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        raise DaskUnavailable("--workers / --scheduler need Dask's 'distributed' package: "
                              "pip install -e .[dask]  (or pip install distributed)") from e
    return distributed


class cluster:
    """A Dask client: ``with cluster(workers=2) as client`` (a LocalCluster of single-threaded
    worker processes) or ``with cluster(scheduler="tcp://host:8786") as client``."""

    def __init__(self, workers: Optional[int] = None, scheduler: Optional[str] = None):
        if (workers is None) == (scheduler is None):
            raise ValueError("give exactly one of workers and scheduler")
        if workers is not None and workers < 1:
            raise ValueError("workers must be >= 1")
        self.workers, self.scheduler = workers, scheduler
        self._cluster = self.client = None

    def __enter__(self):
        distributed = require_dask()
        if self.scheduler is not None:
            self.client = distributed.Client(self.scheduler)
        else:
            self._cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                                     processes=True, dashboard_address=None,
                                                     silence_logs=40)
            self.client = distributed.Client(self._cluster)
        return self.client

    def __exit__(self, *exc):
        if self.client is not None:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
        return False


@dataclass(frozen=True)
class Chunk:
    family: str
    seed: int
    count: int  # the family's case count (its corpus is generate(seed, count))
    first: int
    last: int  # exclusive


def corpus_chunks(seed: int, cases: Optional[int], fams, chunk: int = CHUNK_CASES, scale: int = 1) -> list[Chunk]:
    """The corpus's chunks in corpus order (independent of the worker count)."""
    from .ledger import case_count

    out = []
    for f in fams:
        n = case_count(f, cases, scale)
        out += [Chunk(f.name, seed, n, k, min(n, k + chunk)) for k in range(0, n, chunk)]
    return out


_CORPUS_CACHE: dict = {}


def _family(name: str):
    from .families import families

    for f in families():
        if f.name == name:
            return f
    raise KeyError(name)


def _judge_chunk(ch: Chunk):
    """On a worker: generate the chunk's cases, judge their claims, return local tallies and
    the fast path's errors (``ProducerError``) in case order."""
    from .ledger import RowTally, judge_cases

    t0 = time.process_time()
    fam = _family(ch.family)
    key = (ch.family, ch.seed, ch.count)
    if key not in _CORPUS_CACHE:
        # Dask may run chunks of different families in any order: keep each family's corpus
        # (cases, not claims), a few at most, so no chunk regenerates it.
        while len(_CORPUS_CACHE) >= 16:
            _CORPUS_CACHE.pop(next(iter(_CORPUS_CACHE)))
        _CORPUS_CACHE[key] = fam.generate(ch.seed, ch.count)
    corpus = _CORPUS_CACHE[key]
    tallies: dict = {}
    index = 0

    def tally(row):
        t = tallies.get(row)
        if t is None:
            t = tallies[row] = RowTally(row)
        return t

    def add(v, k):
        nonlocal index
        tally(v.claim.row).add(v, index, (fam.name, k))
        index += 1

    errors = judge_cases(fam, corpus[ch.first:ch.last], ch.first, add,
                         lambda row, where: tally(row).add_unanswered(where))
    return tallies, index, errors, time.process_time() - t0


def _merge(ledger, parts: Iterable, timing_key) -> None:
    """Merge chunk results into ``ledger`` in the order given (corpus or file order)."""
    offset = 0
    for key, (tallies, n, errors, seconds) in zip(timing_key, parts):
        for rid, t in tallies.items():
            ledger.tallies[rid].merge(t, offset)
        ledger.producer_errors += errors
        offset += n
        ledger.timings[key] = ledger.timings.get(key, 0.0) + seconds


def _ordered_results(client, fn, items):
    """Each item's result, in item order, releasing each future once it is read."""
    futures = client.map(fn, items, pure=False)
    for fut in futures:
        yield fut.result()
        fut.release()


def run_corpus_distributed(client, seed: int, cases: Optional[int] = None, only: Iterable[str] = (),
                           scale: int = 1):
    """``run_corpus`` on a Dask client: the same Ledger (timings apart: worker CPU seconds)."""
    from .ledger import Ledger, corpus_run, select_families

    fams = select_families(only)
    chunks = corpus_chunks(seed, cases, fams, scale=scale)
    ledger = Ledger(seed=seed, run=corpus_run(seed, cases, fams, scale))
    _merge(ledger, _ordered_results(client, _judge_chunk, chunks), [c.family for c in chunks])
    return ledger


def _judge_claims(batch):
    """On a worker: judge ``[(index, claim)]``; tallies with indices local to the batch's first,
    and checker-raised errors as ``(index, row, message)``."""
    from .ledger import MALFORMED_ERRORS, RowTally, check_claim

    t0 = time.process_time()
    tallies: dict = {}
    errors = []
    base = batch[0][0] if batch else 0
    for index, claim in batch:
        try:
            v = check_claim(claim)
        except MALFORMED_ERRORS as e:
            errors.append((index, claim.row, f"{type(e).__name__}: {e}"))
            continue
        t = tallies.get(claim.row)
        if t is None:
            t = tallies[claim.row] = RowTally(claim.row)
        t.add(v, index - base)
    return tallies, base, errors, time.process_time() - t0


def check_claims_distributed(client, ledger, claims: dict, total: int, chunk: int = CHUNK_CLAIMS) -> None:
    """Judge a case file's parsed claims (``{index: Claim}``) on the client's workers into
    ``ledger`` (whose malformed list already holds the parse errors)."""
    from .schema import FieldError

    batches = []
    for lo in range(0, total, chunk):
        b = [(i, claims[i]) for i in range(lo, min(total, lo + chunk)) if i in claims]
        if b:
            batches.append(b)
    for tallies, base, errors, seconds in _ordered_results(client, _judge_claims, batches):
        for rid, t in tallies.items():
            ledger.tallies[rid].merge(t, base)
        for index, row, msg in errors:
            ledger.malformed.append(FieldError(f"claims[{index}]", f"{row}: {msg}", index))
        ledger.timings["check"] = ledger.timings.get("check", 0.0) + seconds
