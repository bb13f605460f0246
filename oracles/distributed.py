"""The ledger on Dask: the corpus (or a case file) partitioned, judged on workers, merged.

``python -m oracles ledger --workers N`` starts a ``distributed.LocalCluster`` of N single-
threaded worker processes on this machine; ``--scheduler ADDRESS`` uses an existing Dask
cluster instead. ``check FILE`` takes the same options. Dask schedules; the corpus run only
says which worker each family's chunks prefer (:func:`lanes`), so that a worker warms up only
the families it judges, and Dask's work stealing still moves chunks to an idle worker.

Partition. The corpus is cut into chunks of requests, ``(family, first, last)``, whose
boundaries depend only on the corpus (each family's case count and :func:`chunk_cases`, a
:data:`CHUNK_PARTS`-th of its default corpus), never on the worker count. A worker makes its
chunk's requests itself: ``requests(seed, n, first, last)`` decides the expected statuses of
that range alone (with the oracle: the costly part of making a request), so the corpus is made
once in all, however many workers share a family (a family without the range form is made whole,
once per worker process). It answers them with our fast path, judges each claim where it was
made and returns per-row :class:`~oracles.ledger.RowTally` summaries with claim indices local
to the chunk, and its claim count. No claim or request leaves the worker, so memory holds the
tallies (a few witnesses per row), not the claims.

Start. A LocalCluster takes seconds to start (worker processes spawned, imports); with
``cluster(..., background=True)`` it starts on a thread while the client judges chunks itself, from the
corpus's end, until it is up; the workers then take the chunks before those. The chunks and
their merge order are the same, so nothing in the ledger depends on who judged a chunk.

Merge. The client merges the chunk tallies in corpus order (family order, then case order),
offsetting each chunk's claim indices by the claims before it (``RowTally.merge``), exactly what
the serial run would have added one verdict at a time: counts add, the first witnesses are the
first in corpus order, the worst record is the first of the largest values. Since the chunks
and the merge order are the same whatever the workers, ``ledger.json`` without its ``seconds``
is byte-identical for any worker count.

A case file (``check``) is cut into ranges of ``CHUNK_CLAIMS`` claim indices in file order, the
serial ``check``'s blocks; the claims are shipped to the workers (they were parsed, and their
schema checked, on the client) and each range is judged a row at a time (``oracles.batch``).

Needs the ``dask`` extra (``pip install -e .[dask]``); without it the CLI says so and exits 2.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from . import GC_THRESHOLDS
from .family import corpus_range, ranged

__all__ = [
    "CHUNK_CLAIMS",
    "CHUNK_PARTS",
    "CHUNK_REQUESTS",
    "COST_HINT",
    "MAX_WORKERS",
    "START_GRACE",
    "WORKER_CONFIG",
    "ClusterUnavailable",
    "DaskUnavailable",
    "Starting",
    "check_answers_distributed",
    "check_claims_distributed",
    "chunk_cases",
    "cluster",
    "corpus_chunks",
    "lanes",
    "ranged",
    "require_dask",
    "run_corpus_distributed",
]

# The most worker processes ``--workers N`` starts: four per core of this machine (docs/decisions.md
# "Corpus size, workers and seeds checked first"). A LocalCluster is this machine's processes, each a few
# hundred MiB; past a core each only waits, and a typo would start thousands.
MAX_WORKERS = 4 * (os.cpu_count() or 1)
CHUNK_PARTS = 16  # chunks per family at the default corpus: about 0.1-1 s each, so two workers end together
# Dask settings for the workers of the LocalCluster that ``--workers N`` starts (docs/decisions.md,
# "Ledger on Dask": the workers' profiler and housekeeping); a cluster named by ``--scheduler``
# keeps its own. The profiler samples the judging thread's stack every 10 ms; the event loop's
# tick (20 ms), memory monitor (100 ms) and system monitor (500 ms) wake the worker's main thread
# for a dashboard that is off, taking the GIL from the judging thread each time. The tick stays
# below its 3 s blocked-loop warning, the memory monitor far inside the memory limit's reach.
WORKER_CONFIG = {"distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "1s",
                 "distributed.worker.memory.monitor-interval": "1s",
                 "distributed.admin.system-monitor.interval": "2s"}
# Seconds the corpus run waits for a starting cluster before it judges chunks itself: a chunk
# judged here pays its family's warm-up (imports, compiled kernels loaded) a second time, beside
# two starting workers, which costs more than it saves when the cluster is up in half a second
# (docs/decisions.md, "Ledger on Dask": start).
START_GRACE = 1.0
CHUNK_CLAIMS = 2000  # claim indices per case-file task: the serial check's block (oracles.__main__.CHECK_BLOCK)


class DaskUnavailable(RuntimeError):
    """The ``dask`` extra (``distributed``) is not installed."""


def require_dask():
    """Import ``distributed`` or raise :class:`DaskUnavailable` with the install line."""
    try:
        import distributed
    except ImportError as e:
        raise DaskUnavailable("--workers / --scheduler need Dask's 'distributed' package: "
                              "pip install -e .[dask]  (or pip install distributed)") from e
    return distributed


class ClusterUnavailable(RuntimeError):
    """The Dask cluster could not be started or reached (``--scheduler`` names no scheduler that
    answers, or the LocalCluster failed to start): nothing was judged on it."""


class cluster:
    """A Dask client: ``with cluster(workers=2) as client`` (a LocalCluster of single-threaded
    worker processes) or ``with cluster(scheduler="tcp://host:8786") as client``. With
    ``background=True`` the ``with`` does not wait: it gives a :class:`Starting` handle while the
    cluster starts on a thread (``run_corpus_distributed`` works meanwhile)."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, background: bool = False):
        if (workers is None) == (scheduler is None):
            raise ValueError("give exactly one of workers and scheduler")
        if workers is not None and not 1 <= workers <= MAX_WORKERS:
            raise ValueError(f"workers must be 1 to {MAX_WORKERS} (four per core of this machine)")
        self.workers, self.scheduler, self.background = workers, scheduler, background
        self._cluster = self.client = self._thread = None

    def _start(self):
        distributed = require_dask()
        try:
            return self._connect(distributed)
        except (OSError, TimeoutError, ValueError) as e:  # an address that answers nothing, a failed start
            where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else f"{self.workers} local workers"
            raise ClusterUnavailable(f"cannot start or reach {where}: {type(e).__name__}: {e}") from e

    def _connect(self, distributed):
        if self.scheduler is not None:
            self.client = distributed.Client(self.scheduler)
        else:
            import dask

            # Each Nanny copies the config it is made under into its worker process. The workers'
            # statistical profiler (a stack sample every 10 ms, each taking the GIL from the
            # judging thread) feeds only the dashboard, which is off: about 5% of their CPU.
            with dask.config.set(WORKER_CONFIG):
                self._cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                                         processes=True, dashboard_address=None,
                                                         silence_logs=40)
            self.client = distributed.Client(self._cluster)
            # The workers collect garbage as the command line does (docs/decisions.md "Few
            # collections"), so that both sides of a serial/workers comparison run alike.
            self.client.run(gc.set_threshold, *GC_THRESHOLDS)
        return self.client

    def __enter__(self):
        if not self.background:
            return self._start()
        handle = Starting()

        def start():
            try:
                handle._client = self._start()
            except BaseException as e:  # handed to get(): the caller sees it
                handle._error = e
            finally:
                handle._done.set()

        self._thread = threading.Thread(target=start, name="dask-cluster-start", daemon=True)
        self._thread.start()
        return handle

    def __exit__(self, *exc):
        if self._thread is not None:
            self._thread.join()
        if self.client is not None and self._cluster is not None:
            # Our own workers are about to exit: freeze their heaps first, as the command line
            # freezes its own (docs/decisions.md "Few collections"), so that no worker spends its
            # exit on a last full collection (0.8 s of a closing two-worker cluster, measured).
            # Never on a cluster named by --scheduler: its workers live on, and frozen objects
            # would never be collected. A worker that cannot answer is closed all the same.
            with contextlib.suppress(Exception):
                self.client.run(gc.freeze)
        if self.client is not None:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
        return False


class Starting:
    """A cluster being started on a thread (``cluster(..., background=True)``)."""

    def __init__(self):
        self._done, self._client, self._error = threading.Event(), None, None

    def ready(self) -> bool:
        """True once the start has ended (with a client or with an error)."""
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the start to end; True if it has."""
        return self._done.wait(timeout)

    def get(self):
        """The client, once the cluster is up; the start's exception if it failed."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._client


@dataclass(frozen=True)
class Chunk:
    family: str
    seed: int
    count: int  # the family's case count (its corpus is requests(seed, count))
    first: int
    last: int  # exclusive


def chunk_cases(fam) -> int:
    """Cases per chunk of ``fam``: a :data:`CHUNK_PARTS`-th of its default corpus, so that a chunk
    costs about the same in every family (a family's default size was set by its cost)."""
    return max(1, -(-fam.default_cases // CHUNK_PARTS))


def corpus_chunks(seed: int, cases: int | None, fams, chunk: int | None = None, scale: int = 1) -> list[Chunk]:
    """The corpus's chunks in corpus order (independent of the worker count); ``chunk`` cases
    each, or :func:`chunk_cases` of the family."""
    from .ledger import case_count

    out = []
    for f in fams:
        n, size = case_count(f, cases, scale), chunk or chunk_cases(f)
        out += [Chunk(f.name, seed, n, k, min(n, k + size)) for k in range(0, n, size)]
    return out


_CORPUS_CACHE: dict = {}


def _chunk_cases(fam, ch: Chunk) -> list:
    """The chunk's requests (or cases), made on the worker: only its own range where the family
    can (the expectations of a request are decided with the oracle, seconds a family: made once
    in all, never once per worker), else the family's whole corpus, kept per process."""
    def whole():
        key = (ch.family, ch.seed, ch.count)
        if key not in _CORPUS_CACHE:
            while len(_CORPUS_CACHE) >= 4:
                _CORPUS_CACHE.pop(next(iter(_CORPUS_CACHE)))
            _CORPUS_CACHE[key] = fam.generate(ch.seed, ch.count)
        return _CORPUS_CACHE[key]

    return corpus_range(fam, ch.seed, ch.count, ch.first, ch.last, whole)


def _judge_chunk(ch: Chunk):
    """On a worker: make the chunk's requests, answer them with our fast path and judge them;
    return local tallies, the claim count, the fast path's errors (``ProducerError``) in case
    order, and the CPU seconds."""
    from .families import family_named
    from .ledger import RowTally, judge_cases

    t0 = time.process_time()
    fam = family_named(ch.family)
    cases = _chunk_cases(fam, ch)
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

    errors = judge_cases(fam, cases, ch.first, add, lambda row, where: tally(row).add_unanswered(where))
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


#: Scheduling hints: CPU seconds of each family's default corpus in the serial ledger, all of
#: what a worker does for it (making the requests with their expected statuses, answering,
#: judging): ``python benchmarks/ledger_split.py``, its "CPU s" column, at 62be144 (2026-12-07
#: 01:07 UTC, warm kernel cache), rounded. Not the ``seconds`` of ledger.json, which count
#: judging alone and so under-weighted the families whose requests cost most (distance). They
#: only place whole families on workers (:func:`lanes`); a wrong or missing hint costs balance,
#: never a verdict.
COST_HINT = {"convex_polygon": 0.8, "distance": 16.3, "frame": 11.3, "path": 10.1, "point_search": 1.6,
             "projection": 10.3, "surface": 4.0, "sweep": 3.8, "tessellation": 7.1, "track": 2.6,
             "triangle": 8.0}


def lanes(chunks: list[Chunk], n: int, default_cases: dict) -> list[int]:
    """The lane (0 .. n - 1) of each chunk: whole families go to lanes, the costliest family first,
    each to the lane with the least estimated cost so far (longest processing time first), ties
    to the lower lane. A family's estimate is :data:`COST_HINT` (1 s when unknown) times its
    case count over ``default_cases[family]``. Deterministic: it reads nothing but its arguments.

    Why: a worker process pays each family's first chunk once (imports, compiled kernels
    loaded, caches filled: up to 2 s for ``distance``); with chunks dealt round the workers,
    every worker pays it for every family."""
    if n < 1:
        raise ValueError("n must be >= 1")
    cost: dict = {}
    for c in chunks:
        share = (c.last - c.first) / max(1, default_cases.get(c.family, 1))
        cost[c.family] = cost.get(c.family, 0.0) + COST_HINT.get(c.family, 1.0) * share
    load = [0.0] * n
    lane_of = {}
    for fam in sorted(cost, key=lambda f: (-cost[f], f)):
        k = min(range(n), key=lambda i: (load[i], i))
        lane_of[fam] = k
        load[k] += cost[fam]
    return [lane_of[c.family] for c in chunks]


def _ordered_results(client, fn, items, workers=(), lane_of=None):
    """Each item's result, in item order, releasing each future once it is read. With two or
    more ``workers`` (addresses) and ``lane_of`` (each item's lane, see :func:`lanes`), an item
    is submitted to ``workers[lane]`` as a loose restriction: an idle worker still steals it
    (Dask's work stealing), so the lanes place work but never hold it back."""
    if len(workers) < 2:
        futures = client.map(fn, items, pure=False)
    else:
        futures = [None] * len(items)
        for k, address in enumerate(workers):
            mine = [i for i, lane in enumerate(lane_of) if lane == k]
            if mine:
                fs = client.map(fn, [items[i] for i in mine], pure=False, workers=[address],
                                allow_other_workers=True)
                for i, f in zip(mine, fs):
                    futures[i] = f
    for fut in futures:
        yield fut.result()
        fut.release()


def run_corpus_distributed(client, seed: int, cases: int | None = None, only: Iterable[str] = (),
                           scale: int = 1, grace: float = START_GRACE):
    """``run_corpus`` on a Dask client: the same Ledger (timings apart: worker CPU seconds).
    ``client`` may be a :class:`Starting` cluster: if it is not up within ``grace`` seconds,
    this process judges chunks from the corpus's end until it is (leaving the workers at least
    the first)."""
    from .ledger import Ledger, corpus_run, select_families

    fams = select_families(only)
    chunks = corpus_chunks(seed, cases, fams, scale=scale)
    ledger = Ledger(seed=seed, run=corpus_run(seed, cases, fams, scale))
    first_local = len(chunks)
    local = []  # results of chunks[first_local:], judged here while the cluster starts
    if isinstance(client, Starting):
        client.wait(grace)
        while first_local > 1 and not client.ready():
            first_local -= 1
            local.insert(0, _judge_chunk(chunks[first_local]))
        client = client.get()
    workers = sorted(client.scheduler_info()["workers"])  # lane k is the k-th worker in address order
    mine = chunks[:first_local]
    lane_of = lanes(mine, max(1, len(workers)), {f.name: f.default_cases for f in fams})
    remote = _ordered_results(client, _judge_chunk, mine, workers, lane_of)
    _merge(ledger, itertools.chain(remote, local), [c.family for c in chunks])
    return ledger


def _judge_claims(batch):
    """On a worker: judge ``[(index, claim)]`` as the serial ``check`` judges a block
    (``oracles.batch.check_claims``: a row's claims at a time); tallies with indices local to the
    batch's first, and the claims a checker found malformed as ``(index, row, id, message)``."""
    from .batch import check_claims
    from .ledger import RowTally

    t0 = time.process_time()
    tallies: dict = {}
    errors = []
    base = batch[0][0] if batch else 0
    for (index, claim), v in zip(batch, check_claims([c for _, c in batch])):
        if isinstance(v, BaseException):
            errors.append((index, claim.row, claim.id, f"{type(v).__name__}: {v}"))
            continue
        t = tallies.get(claim.row)
        if t is None:
            t = tallies[claim.row] = RowTally(claim.row)
        t.add(v, index - base)
    return tallies, base, errors, time.process_time() - t0


def check_claims_distributed(client, ledger, claims: dict, total: int, chunk: int = CHUNK_CLAIMS) -> None:
    """Judge a case file's parsed claims (``{index: Claim}``) on the client's workers into
    ``ledger`` (whose malformed list already holds the parse errors): the file cut into ranges
    of ``chunk`` claim indices, the serial ``check``'s blocks, so every claim gets the verdict
    the serial run gives it and the ledger is the same bytes."""
    from .schema import FieldError

    batches = []
    for lo in range(0, total, chunk):
        b = [(i, claims[i]) for i in range(lo, min(total, lo + chunk)) if i in claims]
        if b:
            batches.append(b)
    for tallies, base, errors, seconds in _ordered_results(client, _judge_claims, batches):
        for rid, t in tallies.items():
            ledger.tallies[rid].merge(t, base)
        for index, row, label, msg in errors:
            ledger.malformed.append(FieldError(f"claims[{index}]", f"{row}: {msg}", index, label))
        ledger.timings["check"] = ledger.timings.get("check", 0.0) + seconds


CHUNK_REQUESTS = 200  # requests per answer-file task


def _judge_answers(part):
    """On a worker: judge a range of an answer file's requests in scope with their answers
    (``oracles.contract.judge_answer_file``, the serial check's own loop); tallies with claim
    indices local to the range, the claim count, the claims a checker found malformed, CPU s."""
    from .contract import judge_answer_file
    from .ledger import Ledger

    t0 = time.process_time()
    reqs, answers = part
    led, malformed = Ledger(), []
    judge_answer_file(reqs, {}, answers, led, malformed)
    tallies = {rid: t for rid, t in led.tallies.items() if t.claims or t.unanswered}
    return tallies, led.judged, malformed, time.process_time() - t0


def check_answers_distributed(client, requests: list, header: dict, answers: list, ledger, malformed: list,
                              chunk: int | None = None) -> dict:
    """``judge_answer_file`` on the client's workers: the same ledger, malformed list and scope.

    The file-level checks run here, as the serial check makes them (declared families the
    request set lacks, answers to unknown requests, repeated answers: malformed, in that order);
    the requests in scope are cut into ranges of ``chunk`` in file order and shipped with their
    answers; the ranges' tallies are merged in file order, their malformed claims appended in it."""
    from .contract import answer_scope

    scope, by_id = answer_scope(requests, header, answers, malformed)
    chunk = chunk or CHUNK_REQUESTS
    not_covered: dict = {}
    mine = []
    for r in requests:
        if r.family in scope:
            mine.append(r)
        else:
            not_covered[r.family] = not_covered.get(r.family, 0) + 1
    parts = [(rs, [by_id[r.id] for r in rs if r.id in by_id]) for rs in
             (mine[lo:lo + chunk] for lo in range(0, len(mine), chunk))]
    offset = 0
    for tallies, n, errors, seconds in _ordered_results(client, _judge_answers, parts):
        for rid, t in tallies.items():
            ledger.tallies[rid].merge(t, offset)
        malformed += errors
        offset += n
        ledger.timings["check"] = ledger.timings.get("check", 0.0) + seconds
    return {"scope": scope, "not_covered": not_covered}
