"""``python -m oracles``: the evidence ledger and its companions.

    python -m oracles ledger [--cases N | --scale K] [--seed S] [--out DIR] [--family NAME ...] [CI options]
    python -m oracles claims [--cases N] [--seed S] [--family NAME ...] --out FILE
    python -m oracles check FILE [--out DIR] [--force] [--exact-numbers] [CI options]
                                                                      # judge another implementation's claims
    python -m oracles requests [--cases N | --scale K] [--seed S] [--family NAME ...] --out FILE  # the request set
    python -m oracles answer REQUESTS --out FILE                      # our fast path's answers to a request set
    python -m oracles check ANSWERS --requests REQUESTS [...]         # judge another implementation's answers
    python -m oracles schema [--out FILE] [--docs MD]                 # the case-file JSON Schema
    python -m oracles surface-queries                                 # spec 004's example records
    python -m oracles mesh-export INDEX --out FILE [--split]         # a tessellation case's mesh
    python -m oracles explain FILE --claim N | --row ROW --case K [--seed S] | --index I | --query JSON
                              [--format f32|f64] [--json] [--plot FILE.png]  # where precision was lost
    python -m oracles ledger ... --plots DIR                          # per-row histograms (extra: plots)

CI options: ``--strict``, ``--verdicts FILE`` (one JSON line per claim), ``--junit FILE``;
``--workers N`` / ``--scheduler ADDRESS`` judge on Dask (``oracles.distributed``, extra: dask).

Exit status, in this order of precedence (``docs/casefile.md``):
  1  any claim Violated (every Violated claim is reported, malformed claims or not), or any
     request of the families in scope left unanswered (``check --requests``, ``ledger``);
  4  a fault of the verification itself: a checker raised (``CheckerError``), two independent
     oracles disagreed (``OracleFault``), or the fast path raised on a corpus case; those claims
     were not judged, everything else was, and the ledger is written; also any exception that
     escapes the command (``error: internal fault: ...``, then its traceback);
  2  malformed input with no violation (each malformed claim listed with its index and field
     path), an unreadable case file, bad arguments (checked before any work: an output that cannot
     be written, a count past its limit), a Dask cluster that cannot be reached, or a refusal to
     overwrite another run;
  3  nothing was judged (zero claims); with ``--strict`` also any Undecided claim or any claim
     of a row without a checker;
  0  otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .reports import Labels, VerdictLines, output_file, write_junit

EXIT_OK, EXIT_VIOLATED, EXIT_MALFORMED, EXIT_INCOMPLETE, EXIT_FAULT = 0, 1, 2, 3, 4
CHECK_BLOCK = 2000  # claims of a case file judged together (a row's batch at a time)


def _refuse_overwrite(out_dir: Path, run: dict, force: bool) -> str | None:
    """A message when ``out_dir`` holds a ledger of a different run (and no ``--force``)."""
    pj = Path(out_dir) / "ledger.json"
    if force or not pj.exists():
        return None
    try:
        old = json.loads(pj.read_text()).get("run")
    except (OSError, ValueError, AttributeError):
        old = "unreadable"
    if old == run:
        return None
    return (f"{pj} holds the ledger of a different run ({json.dumps(old)[:200]}); "
            "choose another --out or pass --force to overwrite it")


def _peak_rss_mib() -> float:
    """This process's peak resident set (Linux reports KiB); with --workers the workers' own
    memory is not included."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _finish(ledger, args, labels=None) -> int:
    """Print the summary, write the ledger (and JUnit), report, and choose the exit code.
    ``labels`` (:class:`oracles.reports.Labels`): the labeled claims' verdicts, for JUnit and the report."""
    for line in ledger.summary_lines(all_rows=getattr(args, "all_rows", True)):
        print(line)
    pj, pm = ledger.write(args.out)
    print(f"wrote {pj} and {pm}")
    if args.junit:
        write_junit(args.junit, ledger, labels)
        print(f"wrote {args.junit}")
    for t in ledger.tallies.values():
        for idx in t.violated_claims[:20]:
            label = labels.label_of(idx) if labels is not None else None
            named = f" {json.dumps(label)}" if label is not None else ""
            print(f"violated: claim {idx}{named} ({t.id})", file=sys.stderr)
        if t.violated > 20:
            print(f"violated: ... {t.violated - 20} more claims of {t.id} (see --verdicts or ledger.json)",
                  file=sys.stderr)
        for rec in t.fault_records:
            print(f"fault: claim {rec['claim']} ({t.id}) {rec['kind']}: "
                  f"{(rec.get('witness') or {}).get('error', rec.get('note'))}", file=sys.stderr)
        if t.faults > len(t.fault_records):
            print(f"fault: ... {t.faults - len(t.fault_records)} more claims of {t.id} (see ledger.json)",
                  file=sys.stderr)
    for e in ledger.producer_errors:
        print(f"fault: the fast path raised on {e}", file=sys.stderr)
    for m in ledger.malformed:
        print(f"malformed: {m}", file=sys.stderr)
    for t in ledger.tallies.values():
        if t.unanswered:
            shown = ", ".join(t.unanswered_requests[:5])
            print(f"unanswered: {t.unanswered} of {t.id} (first: {shown})", file=sys.stderr)
    unchecked = ledger.unchecked_rows()
    print(f"{ledger.judged} claims judged; {ledger.violated} violated, {ledger.undecided} undecided, "
          f"{ledger.faults} faults, {len(ledger.malformed)} malformed, {ledger.unanswered} unanswered; "
          f"peak memory of this process {_peak_rss_mib():.0f} MiB")
    if ledger.violated or ledger.unanswered:
        return EXIT_VIOLATED
    if ledger.faults:
        return EXIT_FAULT
    if ledger.malformed:
        return EXIT_MALFORMED
    if ledger.judged == 0:
        print("error: no claim was judged", file=sys.stderr)
        return EXIT_INCOMPLETE
    if args.strict and (ledger.undecided or unchecked):
        if unchecked:
            print(f"strict: claims of rows without a checker: {', '.join(unchecked)}", file=sys.stderr)
        if ledger.undecided:
            print(f"strict: {ledger.undecided} claims Undecided", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_OK


def _ci_options(p) -> None:
    p.add_argument("--strict", action="store_true",
                   help="exit 3 on any Undecided claim or claim of a row without a checker")
    p.add_argument("--verdicts", metavar="FILE", help="write one JSON line per claim (JSON Lines)")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (one test case per row)")
    p.add_argument("--force", action="store_true", help="overwrite a ledger of a different run in --out")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="judge on a Dask LocalCluster of N worker processes (extra: dask)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="judge on an existing Dask cluster (extra: dask)")
    p.add_argument("--no-filters", action="store_true",
                   help="send every claim to the exact stage (no float64 filters; the same verdicts, slower)")


def _dask_cluster(args, background: bool = False):
    """The Dask cluster asked for by --workers / --scheduler (oracles.distributed), None when
    neither is given, or an error message; ``background``: entering it does not wait for the
    cluster (``oracles.distributed.cluster``)."""
    if args.workers is None and args.scheduler is None:
        return None
    if args.workers is not None and args.scheduler is not None:
        return "give --workers or --scheduler, not both"
    from .distributed import MAX_WORKERS, DaskUnavailable, cluster, require_dask

    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        return f"--workers {args.workers}: from 1 to {MAX_WORKERS} (four per core here; --scheduler for more)"
    if getattr(args, "verdicts", None) or getattr(args, "plots", None):
        return "--verdicts and --plots are not available with --workers / --scheduler"

    try:
        require_dask()
    except DaskUnavailable as e:
        return str(e)
    return cluster(workers=args.workers, scheduler=args.scheduler, background=background)


def _on_cluster(dask, work):
    """``(work(client), None)`` on the cluster ``dask`` (from :func:`_dask_cluster`), or ``(None,
    EXIT_MALFORMED)`` with the reason on stderr when the cluster cannot start."""
    from .distributed import ClusterUnavailable

    try:
        with dask as client:
            return work(client), None
    except ClusterUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return None, EXIT_MALFORMED


# What each command writes: directories and files (their directories made with their parents when
# written, ``oracles.reports.output_file``). ``_output_problem`` checks them all before any work.
_OUTPUT_DIRS = {"ledger": ("out", "plots"), "check": ("out",)}
_OUTPUT_FILES = {"ledger": ("verdicts", "junit"), "check": ("verdicts", "junit"), "claims": ("out",),
                 "requests": ("out",), "answer": ("out",), "schema": ("out",), "mesh-export": ("out",),
                 "explain": ("plot",)}
_INPUTS = ("file", "requests", "docs")


def _output_problem(args) -> str | None:
    """Why an output the command would write cannot be written, or None: checked before any work
    (docs/decisions.md "Output paths checked first"), so that a bad path neither costs a whole run
    nor changes anything. A directory option must name a directory or a path where one can be
    made; a file option a file (not a directory) where one can be made; no output may be one of
    the command's own input files (``check F --verdicts F`` would empty F)."""
    inputs = [Path(v) for v in (getattr(args, k, None) for k in _INPUTS) if isinstance(v, str) and v]
    for name in _OUTPUT_DIRS.get(args.cmd, ()) + _OUTPUT_FILES.get(args.cmd, ()):
        value = getattr(args, name, None)
        if not value:
            continue
        path, flag = Path(value), f"--{name} {value}"
        is_dir = name in _OUTPUT_DIRS.get(args.cmd, ())
        if path.exists():
            if is_dir != path.is_dir():
                return f"{flag}: " + ("exists and is not a directory" if is_dir else "is a directory; name a file")
            if any(i.exists() and os.path.samefile(i, path) for i in inputs):
                return f"{flag}: is an input of this command; writing it would destroy the input"
            if not os.access(path, os.W_OK | (os.X_OK if is_dir else 0)):
                return f"{flag}: cannot be written"
            continue
        where = next((a for a in path.parents if a.exists()), Path("."))  # made from here on
        if not where.is_dir():
            return f"{flag}: {where} is not a directory"
        if not os.access(where, os.W_OK | os.X_OK):
            return f"{flag}: cannot write in {where}"
    return None


def _positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _nonnegative(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError("must be nonnegative")
    return n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m oracles", description=__doc__.split("\n\n")[0],
                                epilog="exit: 1 Violated, 4 checker error or oracle fault, 2 malformed, "
                                       "3 nothing judged (or --strict and Undecided), 0 otherwise", )
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("ledger", help="run the built-in corpus and write the evidence ledger")
    pl.add_argument("--cases", type=_nonnegative, default=None, help="cases per family (default: each family's own)")
    pl.add_argument("--scale", type=_positive, default=1, metavar="K",
                    help="K times every family's default case count (the soak run: --scale 10)")
    pl.add_argument("--seed", type=_nonnegative, default=1)
    pl.add_argument("--out", default="ledger-out", help="directory for ledger.json and ledger.md")
    pl.add_argument("--family", action="append", default=[], help="run only these families")
    pl.add_argument("--plots", metavar="DIR", default=None,
                    help="write per-row histograms of the measured values as PNGs (needs the 'plots' extra)")
    _ci_options(pl)
    pc = sub.add_parser("claims", help="write the fast path's claims on the corpus as a case file")
    pc.add_argument("--cases", type=_nonnegative, default=None)
    pc.add_argument("--seed", type=_nonnegative, default=1)
    pc.add_argument("--family", action="append", default=[])
    pc.add_argument("--out", required=True)
    pr = sub.add_parser("requests", help="write the request set (requests/1): the corpus as requests, with "
                                         "the status the spec demands of each step")
    pr.add_argument("--cases", type=_nonnegative, default=None, help="requests per family (default: each family's own)")
    pr.add_argument("--scale", type=_positive, default=1, metavar="K", help="K times every family's default count")
    pr.add_argument("--seed", type=_nonnegative, default=1)
    pr.add_argument("--family", action="append", default=[], help="only these families")
    pr.add_argument("--out", required=True)
    pa = sub.add_parser("answer", help="answer a request set with our fast path (answers/1)")
    pa.add_argument("requests")
    pa.add_argument("--out", required=True)
    pk = sub.add_parser("check", help="judge the claims of a case file, or (with --requests) an answer file")
    pk.add_argument("file")
    pk.add_argument("--all-rows", action="store_true", help="print every ledger row (default: rows with claims)")
    pk.add_argument("--requests", default=None, metavar="FILE",
                    help="FILE is an answers/1 file answering this requests/1 file: judge statuses, values, "
                         "rules and completeness")
    pk.add_argument("--out", default="check-out", help="directory for ledger.json and ledger.md")
    pk.add_argument("--exact-numbers", action="store_true",
                    help="refuse a decimal that is not exactly a value of its field's format (by default it "
                         "is read as the nearest value, as JSON readers do)")
    _ci_options(pk)
    ps = sub.add_parser("schema", help="print (or write) the case-file JSON Schema (or, with --which, the "
                                       "request or answer file's)")
    ps.add_argument("--which", choices=["claims", "requests", "answers"], default="claims",
                    help="claims/1 (default), requests/1 or answers/1")
    ps.add_argument("--out", default=None, help="write the schema here (oracles/casefile.schema.json ships it)")
    ps.add_argument("--docs", default=None, metavar="MD",
                    help="rewrite the generated sections of this Markdown file "
                         "(docs/casefile.md)")
    sub.add_parser("surface-queries", help="print spec 004's nine example query records")
    pe = sub.add_parser("explain", help="explain one claim: exact inputs, ulps, the shadow trace, the floor")
    pe.add_argument("file", nargs="?", help="a case file (with --claim N)")
    pe.add_argument("--claim", type=_nonnegative, default=None, help="the claim's index in FILE")
    pe.add_argument("--row", default=None, help="a row of the built-in corpus (with --case, --seed, --nth)")
    pe.add_argument("--case", type=_nonnegative, default=0, help="the case index in the row's family corpus")
    pe.add_argument("--seed", type=_nonnegative, default=1)
    pe.add_argument("--nth", type=_nonnegative, default=0, help="which of the case's claims of ROW (default 0)")
    pe.add_argument("--index", type=_nonnegative, default=None, metavar="I",
                    help="claim I of a ledger run (as 'ledger' prints it; with the run's --seed, --cases, --family)")
    pe.add_argument("--cases", type=_nonnegative, default=None, help="with --index: the ledger run's --cases")
    pe.add_argument("--family", action="append", default=[], help="with --index: the ledger run's --family")
    pe.add_argument("--query", default=None, metavar="JSON",
                    help="an ad-hoc claim or path query as JSON text, or @FILE (README: Debugging)")
    pe.add_argument("--format", choices=["f32", "f64"], default=None,
                    help="working format of the trace (default: f32 when the claim declares u = 2^-24)")
    pe.add_argument("--json", action="store_true", help="print the explanation as JSON (shape: explain/1)")
    pe.add_argument("--plot", metavar="FILE.png", default=None,
                    help="write the error along the parameter (paths, tracks, distance bounds) or the triangle view")
    pe.add_argument("--steps", type=_nonnegative, default=40, help="trace rows shown in text (default 40)")
    pm = sub.add_parser("mesh-export", help="write a tessellation corpus case's mesh (OBJ, PLY, ...) with meshio")
    pm.add_argument("index", type=_nonnegative, help="the case index in the tessellation corpus")
    pm.add_argument("--cases", type=_nonnegative, default=None,
                    help="the corpus's case count (a ledger run's --cases; default: the family's own)")
    pm.add_argument("--out", required=True, help="the file; its suffix picks the format")
    pm.add_argument("--format", default=None, help="meshio format name (default: from the suffix)")
    pm.add_argument("--seed", type=_nonnegative, default=1)
    pm.add_argument("--split", action="store_true", help="per-vertex normals and parameters (seams visible)")
    args = p.parse_args(argv)
    problem = _output_problem(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_MALFORMED
    if getattr(args, "no_filters", False):
        from .batch import set_filters

        os.environ["ORACLE_FILTERS"] = "0"  # Dask workers started from here inherit it
        set_filters(False)

    if args.cmd == "ledger":
        from .ledger import corpus_run, run_corpus, select_families

        try:
            fams = select_families(args.family)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_MALFORMED
        if args.cases is not None and args.scale != 1:
            print("error: give --cases or --scale, not both", file=sys.stderr)
            return EXIT_MALFORMED
        try:
            run = corpus_run(args.seed, args.cases, fams, args.scale)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_MALFORMED
        refusal = _refuse_overwrite(Path(args.out), run, args.force)
        if refusal:
            print(f"error: {refusal}", file=sys.stderr)
            return EXIT_MALFORMED
        if args.plots:
            from .plots import PlotsUnavailable, require_matplotlib

            try:
                require_matplotlib()
            except PlotsUnavailable as e:
                print(f"error: {e}", file=sys.stderr)
                return EXIT_MALFORMED
        t0 = time.monotonic()
        lines = VerdictLines(args.verdicts)
        measured: list = []

        def on_verdict(index, v):
            lines.verdict(index, v)
            if args.plots:
                measured.append((v.claim.row, v.measure, v.measured, v.kind.value))

        dask = _dask_cluster(args, background=True)  # this process judges the last chunks while it starts
        if isinstance(dask, str):
            lines.close()
            print(f"error: {dask}", file=sys.stderr)
            return EXIT_MALFORMED
        try:
            if dask is not None:
                from .distributed import run_corpus_distributed

                ledger, code = _on_cluster(dask, lambda starting: run_corpus_distributed(
                    starting, args.seed, args.cases, args.family, scale=args.scale))
                if code is not None:
                    return code
            else:
                ledger = run_corpus(args.seed, args.cases, args.family, on_verdict=on_verdict, scale=args.scale)
        finally:
            lines.close()
        code = _finish(ledger, args)
        if args.plots:
            from .plots import ledger_histograms

            for path in ledger_histograms(measured, args.plots):
                print(f"wrote {path}")
        print(f"{time.monotonic() - t0:.1f}s")
        return code
    if args.cmd == "claims":
        from . import __version__
        from .casefile import write_claims
        from .ledger import case_count, select_families

        try:
            fams = select_families(args.family)
            counts = [case_count(f, args.cases) for f in fams]
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_MALFORMED
        from .rules import ours

        # our fast path's claims opt in to our decisions
        claims = (c for f, n in zip(fams, counts) for case in f.generate(args.seed, n) for c in ours(f.claims(case)))
        n = write_claims(args.out, claims, f"ludus-geometry-reference {__version__} (fast path)")
        print(f"wrote {n} claims to {args.out}")
        return EXIT_OK
    if args.cmd == "check":
        return _check_answers(args) if args.requests else _check(args)
    if args.cmd == "requests":
        return _requests(args)
    if args.cmd == "answer":
        return _answer(args)
    if args.cmd == "schema":
        from .schema import schema_text

        if args.which != "claims":
            from .request import answers_schema, requests_schema

            doc = requests_schema() if args.which == "requests" else answers_schema()
            text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
            if args.out:
                output_file(args.out).write_text(text)
            else:
                sys.stdout.write(text)
            return EXIT_OK
        if args.docs:
            from .casedoc import update_document

            try:
                changed = update_document(args.docs)
            except (OSError, ValueError) as e:
                print(f"error: {e}", file=sys.stderr)
                return EXIT_MALFORMED
            print(f"{args.docs}: {'updated' if changed else 'already current'}")
            return EXIT_OK
        if args.out:
            output_file(args.out).write_text(schema_text())
        else:
            sys.stdout.write(schema_text())
        return EXIT_OK
    if args.cmd == "surface-queries":
        from .surface_queries import main as surface_main

        return surface_main()
    if args.cmd == "explain":
        from .explain import main_explain

        return main_explain(args)
    if args.cmd == "mesh-export":
        from .ledger import case_count, select_families
        from .meshio_export import run_cli

        try:
            n = case_count(select_families(["tessellation"])[0], args.cases)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_MALFORMED
        if args.index >= n:
            print(f"error: case {args.index} is outside the tessellation corpus ({n} cases, 0 to {n - 1}; "
                  "--cases N names a larger run's corpus)", file=sys.stderr)
            return EXIT_MALFORMED
        return run_cli(args)
    return EXIT_MALFORMED


# Exceptions a checker raises for inputs the schema admits but the checker cannot read (for
# example mismatched lengths): the claim is malformed, listed with its index, and the others
# are still judged.


def _check(args) -> int:
    from .casefile import CaseFileError, load_case_file
    from .ledger import Ledger
    from .schema import FieldError

    try:
        cf = load_case_file(args.file, exact_numbers=args.exact_numbers)
    except CaseFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_MALFORMED
    if cf.numbers.warning():
        print(f"warning: {args.file}: {cf.numbers.warning()}", file=sys.stderr)
    run = {"command": "check", "source": str(args.file), "sha256": cf.sha256}
    refusal = _refuse_overwrite(Path(args.out), run, args.force)
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return EXIT_MALFORMED
    ledger = Ledger(seed=None, source=str(args.file), producer=cf.producer, run=run)
    ledger.numbers = cf.numbers.to_json()
    if args.junit and (args.workers is not None or args.scheduler is not None) and any(
            c.id is not None for _, c in cf.claims):
        print("error: --junit names labeled claims by their verdicts, which --workers / --scheduler do not "
              "return one by one: judge this file without them", file=sys.stderr)
        return EXIT_MALFORMED
    dask = _dask_cluster(args)
    if isinstance(dask, str):
        print(f"error: {dask}", file=sys.stderr)
        return EXIT_MALFORMED
    if dask is not None:
        from .distributed import check_claims_distributed

        ledger.malformed.extend(cf.malformed)
        _, code = _on_cluster(dask, lambda client: check_claims_distributed(client, ledger, dict(cf.claims), cf.total))
        if code is not None:
            return code
        ledger.malformed.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
        return _finish(ledger, args)
    lines = VerdictLines(args.verdicts)
    labels = Labels()
    from .ledger import _Progress

    bar = _Progress(cf.total, unit="claims")  # a bar on a terminal, a line every 10 s in a log
    by_index: dict = {}
    for err in cf.malformed:
        by_index.setdefault(err.claim, []).append(err)
    claims = dict(cf.claims)
    from itertools import repeat

    from .batch import check_claims

    add, verdict, label = ledger.add, lines.verdict, labels.verdict

    try:
        # In file order, a block at a time: each block's claims judged a row at a time
        # (oracles.batch), the verdict lines written in file order.
        for lo in range(0, cf.total, CHECK_BLOCK):
            hi = min(cf.total, lo + CHECK_BLOCK)
            idx = [i for i in range(lo, hi) if i in claims]
            results = check_claims([claims[i] for i in idx])
            # Each claim's malformed errors (by_index) come just before its verdict, in file order.
            todo = [(i, by_index.get(i, ())) for i in range(lo, hi)] if by_index else zip(idx, repeat(()))
            judged = iter(results)
            for index, errs in todo:
                for err in errs:
                    ledger.malformed.append(err)
                    lines.malformed(err)
                if index not in claims:
                    continue
                v = next(judged)
                if isinstance(v, BaseException):
                    claim = claims[index]
                    err = FieldError(f"claims[{index}]", f"{claim.row}: {type(v).__name__}: {v}", index, claim.id)
                    ledger.malformed.append(err)
                    lines.malformed(err)
                    continue
                add(v, index)
                verdict(index, v)
                label(index, v)
            bar.step(claims[idx[-1]].row if idx else "malformed", hi - lo)
    finally:
        lines.close()
        bar.close()
    ledger.malformed.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
    return _finish(ledger, args, labels)


def _request_families(args):
    from .ledger import case_count, select_families

    fams = select_families(args.family)
    if args.cases is not None and args.scale != 1:
        raise ValueError("give --cases or --scale, not both")
    old = [f.name for f in fams if not f.answers_requests]
    if old and args.family:
        raise ValueError(f"not yet in request form: {', '.join(old)}")
    fams = [f for f in fams if f.answers_requests]
    return [(f, case_count(f, args.cases, args.scale)) for f in fams]


def _requests(args) -> int:
    from . import __version__
    from .request import write_requests

    try:
        plan = _request_families(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_MALFORMED
    reqs = [r for f, n in plan for r in f.requests(args.seed, n)]
    n = write_requests(args.out, reqs, seed=args.seed, corpus={f.name: n for f, n in plan},
                       generated_by=f"ludus-geometry-reference {__version__}")
    print(f"wrote {n} requests of {len(plan)} families to {args.out}")
    return EXIT_OK


def _answer(args) -> int:
    """Our fast path answers a request file, through each family's adapter (``answers.py``)."""
    from . import __version__
    from .families import families
    from .request import RequestFileError, read_requests, write_answers
    from .rules import our_answer

    try:
        _, reqs = read_requests(args.requests)
    except RequestFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_MALFORMED
    fams = {f.name: f for f in families()}
    out, failed = [], 0
    for r in reqs:
        fam = fams.get(r.family)
        if fam is None or not fam.answers_requests:
            failed += 1
            continue
        try:
            out.append(our_answer(fam.answer(r)))  # our fast path's claims opt in to our decisions
        except Exception as e:
            failed += 1
            print(f"fault: the fast path raised on {r.id}: {type(e).__name__}: {e}", file=sys.stderr)
    n = write_answers(args.out, out, producer=f"ludus-geometry-reference {__version__} (fast path)",
                      families=sorted({r.family for r in reqs}))
    print(f"wrote {n} answers to {args.out}" + (f"; {failed} requests not answered" if failed else ""))
    return EXIT_FAULT if failed else EXIT_OK


def _check_answers(args) -> int:
    """``check ANSWERS --requests REQUESTS``: statuses, values, rules and completeness."""
    from .contract import judge_answer_file
    from .ledger import Ledger
    from .request import RequestFileError, read_answers, read_requests

    try:
        rh, reqs = read_requests(args.requests)
        ah, answers, malformed, numbers = read_answers(args.file, exact_numbers=args.exact_numbers)
    except RequestFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_MALFORMED
    if args.junit and (args.workers is not None or args.scheduler is not None) and any(
            a.label is not None or any(c.id is not None for s in a.steps for c in s.claims) for a in answers):
        print("error: --junit names labeled answers by their verdicts, which --workers / --scheduler do not "
              "return one by one: judge this file without them", file=sys.stderr)
        return EXIT_MALFORMED
    import hashlib

    digest = hashlib.sha256(Path(args.file).read_bytes()).hexdigest()
    run = {"command": "check", "source": str(args.file), "sha256": digest, "requests": str(args.requests)}
    refusal = _refuse_overwrite(Path(args.out), run, args.force)
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return EXIT_MALFORMED
    ledger = Ledger(seed=rh.get("seed"), source=str(args.file), producer=ah.get("producer"), run=run)
    ledger.numbers = numbers.to_json()
    if numbers.warning():
        print(f"warning: {args.file}: {numbers.warning()}", file=sys.stderr)
    dask = _dask_cluster(args)
    if isinstance(dask, str):
        print(f"error: {dask}", file=sys.stderr)
        return EXIT_MALFORMED
    if dask is not None:  # request ranges judged on the workers (oracles.distributed)
        from .distributed import check_answers_distributed

        scope, code = _on_cluster(dask, lambda client: check_answers_distributed(client, reqs, ah, answers, ledger,
                                                                                 malformed))
        if code is not None:
            return code
        return _finish_answers(ledger, args, malformed, scope, None)
    lines = VerdictLines(args.verdicts)
    for m in malformed:
        lines.malformed(m)

    labels = Labels()

    def on_verdict(index, v, request, label):
        lines.verdict(index, v, request=request, label=label)
        labels.verdict(index, v, label=v.claim.id or label)

    from .ledger import _Progress

    bar = _Progress(len(reqs), unit="requests")
    try:
        scope = judge_answer_file(reqs, ah, answers, ledger, malformed, on_verdict, bar.step)
    finally:
        lines.close()
        bar.close()
    return _finish_answers(ledger, args, malformed, scope, labels)


def _finish_answers(ledger, args, malformed, scope, labels) -> int:
    ledger.malformed.extend(malformed)
    ledger.run["scope"] = scope["scope"]
    if scope["not_covered"]:
        ledger.run["not_covered"] = scope["not_covered"]
        print("not covered (the answer file does not declare them): "
              + ", ".join(f"{f} ({n} requests)" for f, n in scope["not_covered"].items()), file=sys.stderr)
    return _finish(ledger, args, labels)


def _main_guarded() -> int:
    """:func:`main`, with any exception that escapes it reported as a fault of the verification
    (exit 4): left to Python it would exit 1, which CI reads as a Violated claim. SystemExit
    and KeyboardInterrupt are not Exceptions: they keep Python's behaviour."""
    try:
        return main()
    except Exception as e:
        import traceback

        print(f"error: internal fault: {type(e).__name__}: {' '.join(str(e).split())}", file=sys.stderr)
        traceback.print_exc()
        return EXIT_FAULT


if __name__ == "__main__":
    code = _main_guarded()
    # The run's objects die with the process: moved out of the collector's sight, they skip the
    # last full collection at exit, a walk over every parsed claim and verdict (docs/decisions.md
    # "Few collections"; 12 ms after 10,000 claims).
    import gc

    gc.freeze()
    sys.exit(code)
