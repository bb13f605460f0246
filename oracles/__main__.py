"""``python -m oracles``: the evidence ledger and its companions.

    python -m oracles ledger [--cases N | --scale K] [--seed S] [--out DIR] [--family NAME ...] [CI options]
    python -m oracles claims [--cases N] [--seed S] [--family NAME ...] --out FILE
    python -m oracles check FILE [--out DIR] [--force] [CI options]   # judge another implementation
    python -m oracles schema [--out FILE] [--docs MD]                 # the case-file JSON Schema
    python -m oracles surface-queries                                 # spec 004's example records
    python -m oracles mesh-export INDEX --out FILE [--split]         # a tessellation case's mesh
    python -m oracles explain FILE --claim N | --row ROW --case K [--seed S] | --index I | --query JSON
                              [--format f32|f64] [--json] [--plot FILE.png]  # where precision was lost
    python -m oracles ledger ... --plots DIR                          # per-row histograms (extra: plots)

CI options: ``--strict``, ``--verdicts FILE`` (one JSON line per claim), ``--junit FILE``;
``--workers N`` / ``--scheduler ADDRESS`` judge on Dask (``oracles.distributed``, extra: dask).

Exit status, in this order of precedence (``docs/casefile.md``):
  1  any claim Violated (every Violated claim is reported, malformed claims or not);
  4  a fault of the verification itself: a checker raised (``CheckerError``), two independent
     oracles disagreed (``OracleFault``), or the fast path raised on a corpus case; those claims
     were not judged, everything else was, and the ledger is written;
  2  malformed input with no violation (each malformed claim listed with its index and field
     path), an unreadable case file, bad arguments, or a refusal to overwrite another run;
  3  nothing was judged (zero claims); with ``--strict`` also any Undecided claim or any claim
     of a row without a checker;
  0  otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

EXIT_OK, EXIT_VIOLATED, EXIT_MALFORMED, EXIT_INCOMPLETE, EXIT_FAULT = 0, 1, 2, 3, 4


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


class _VerdictLines:
    """``--verdicts FILE``: one JSON object per claim (and per malformed claim)."""

    def __init__(self, path):
        self.f = open(path, "w") if path else None

    def verdict(self, index, v) -> None:
        if self.f is None:
            return
        rec = {"claim": index, "row": v.claim.row, "verdict": v.kind.value, "measure": v.measure,
               "measured": v.measured, "note": v.note}
        if v.witness is not None:
            rec["witness"] = v.witness
        if v.enclosure is not None:
            rec["enclosure"] = v.enclosure
        if "declared_model" in v.extra:
            rec["declared_model"] = v.extra["declared_model"]
        self.f.write(json.dumps(rec, sort_keys=True) + "\n")

    def malformed(self, err) -> None:
        if self.f is not None:
            self.f.write(json.dumps({"claim": err.claim, "verdict": "Malformed", "path": err.path,
                                     "message": err.message}, sort_keys=True) + "\n")

    def close(self) -> None:
        if self.f is not None:
            self.f.close()


def _write_junit(path, ledger) -> None:
    """One test case per row with claims; one ``<failure>`` per Violated claim (the first
    witnesses in the messages); malformed claims as ``<error>`` of a ``case-file`` test case."""
    import xml.etree.ElementTree as ET

    from .ledger import decimal_view
    from .rows import ROWS

    suite = ET.Element("testsuite", name="evidence-ledger")
    tests = failures = errors = skipped = 0
    for r in ROWS:
        t = ledger.tallies[r.id]
        if not t.claims:
            continue
        tests += 1
        tc = ET.SubElement(suite, "testcase", classname=r.id.split(".")[0], name=r.id)
        records = {rec["claim"]: rec for rec in t.violations}
        for idx in t.violated_claims:
            failures += 1
            rec = records.get(idx)
            msg = f"claim {idx} Violated" + (f": {rec['note']}" if rec and rec.get("note") else "")
            fe = ET.SubElement(tc, "failure", message=msg, type="Violated")
            if rec is not None:
                fe.text = json.dumps(decimal_view({"witness": rec.get("witness"), "case": rec.get("case"),
                                                   "claimed": rec.get("claimed")}), sort_keys=True)
        frecs = {rec["claim"]: rec for rec in t.fault_records}
        for idx in t.fault_claims:
            errors += 1
            rec = frecs.get(idx)
            kind = rec["kind"] if rec else "CheckerError"
            msg = f"claim {idx} {kind}" + (f": {rec['note']}" if rec and rec.get("note") else "")
            ee = ET.SubElement(tc, "error", message=msg, type=kind)
            if rec is not None:
                ee.text = json.dumps(decimal_view({"witness": rec.get("witness"), "case": rec.get("case")}),
                                     sort_keys=True)
        if not t.violated and not t.faults and t.undecided:
            skipped += 1
            ET.SubElement(tc, "skipped", message=f"{t.undecided} of {t.claims} claims Undecided")
        ET.SubElement(tc, "system-out").text = (f"{t.claims} claims: {t.verified} verified, "
                                                f"{t.violated} violated, {t.undecided} undecided, "
                                                f"{t.faults} faults")
    if ledger.producer_errors:
        tests += 1
        tc = ET.SubElement(suite, "testcase", classname="producer", name="fast-path")
        for e in ledger.producer_errors:
            errors += 1
            ET.SubElement(tc, "error", message=str(e)[:500], type="ProducerError").text = \
                json.dumps(e.to_json(), sort_keys=True)
    if ledger.malformed:
        tests += 1
        tc = ET.SubElement(suite, "testcase", classname="casefile", name="case-file")
        for m in ledger.malformed:
            errors += 1
            ET.SubElement(tc, "error", message=str(m)[:500], type="Malformed")
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def _peak_rss_mib() -> float:
    """This process's peak resident set (Linux reports KiB); with --workers the workers' own
    memory is not included."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _finish(ledger, args) -> int:
    """Print the summary, write the ledger (and JUnit), report, and choose the exit code."""
    for line in ledger.summary_lines():
        print(line)
    pj, pm = ledger.write(args.out)
    print(f"wrote {pj} and {pm}")
    if args.junit:
        _write_junit(args.junit, ledger)
        print(f"wrote {args.junit}")
    for t in ledger.tallies.values():
        for idx in t.violated_claims[:20]:
            print(f"violated: claim {idx} ({t.id})", file=sys.stderr)
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
    unchecked = ledger.unchecked_rows()
    print(f"{ledger.judged} claims judged; {ledger.violated} violated, {ledger.undecided} undecided, "
          f"{ledger.faults} faults, {len(ledger.malformed)} malformed; peak memory of this process "
          f"{_peak_rss_mib():.0f} MiB")
    if ledger.violated:
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


def _dask_cluster(args):
    """The Dask cluster asked for by --workers / --scheduler (oracles.distributed), None when
    neither is given, or an error message."""
    if args.workers is None and args.scheduler is None:
        return None
    if args.workers is not None and args.scheduler is not None:
        return "give --workers or --scheduler, not both"
    if args.workers is not None and args.workers < 1:
        return "--workers must be >= 1"
    if getattr(args, "verdicts", None) or getattr(args, "plots", None):
        return "--verdicts and --plots are not available with --workers / --scheduler"
    from .distributed import DaskUnavailable, cluster, require_dask

    try:
        require_dask()
    except DaskUnavailable as e:
        return str(e)
    return cluster(workers=args.workers, scheduler=args.scheduler)


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
    pl.add_argument("--seed", type=int, default=1)
    pl.add_argument("--out", default="ledger-out", help="directory for ledger.json and ledger.md")
    pl.add_argument("--family", action="append", default=[], help="run only these families")
    pl.add_argument("--plots", metavar="DIR", default=None,
                    help="write per-row histograms of the measured values as PNGs (needs the 'plots' extra)")
    _ci_options(pl)
    pc = sub.add_parser("claims", help="write the fast path's claims on the corpus as a case file")
    pc.add_argument("--cases", type=_nonnegative, default=None)
    pc.add_argument("--seed", type=int, default=1)
    pc.add_argument("--family", action="append", default=[])
    pc.add_argument("--out", required=True)
    pk = sub.add_parser("check", help="judge the claims of a case file")
    pk.add_argument("file")
    pk.add_argument("--out", default="check-out", help="directory for ledger.json and ledger.md")
    _ci_options(pk)
    ps = sub.add_parser("schema", help="print (or write) the case-file JSON Schema")
    ps.add_argument("--out", default=None, help="write the schema here (oracles/casefile.schema.json ships it)")
    ps.add_argument("--docs", default=None, metavar="MD",
                    help="rewrite the generated row-field section of this Markdown file (docs/casefile.md)")
    sub.add_parser("surface-queries", help="print spec 004's nine example query records")
    pe = sub.add_parser("explain", help="explain one claim: exact inputs, ulps, the shadow trace, the floor")
    pe.add_argument("file", nargs="?", help="a case file (with --claim N)")
    pe.add_argument("--claim", type=_nonnegative, default=None, help="the claim's index in FILE")
    pe.add_argument("--row", default=None, help="a row of the built-in corpus (with --case, --seed, --nth)")
    pe.add_argument("--case", type=_nonnegative, default=0, help="the case index in the row's family corpus")
    pe.add_argument("--seed", type=int, default=1)
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
    pm.add_argument("--out", required=True, help="the file; its suffix picks the format")
    pm.add_argument("--format", default=None, help="meshio format name (default: from the suffix)")
    pm.add_argument("--seed", type=int, default=1)
    pm.add_argument("--split", action="store_true", help="per-vertex normals and parameters (seams visible)")
    args = p.parse_args(argv)

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
        run = corpus_run(args.seed, args.cases, fams, args.scale)
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
        lines = _VerdictLines(args.verdicts)
        measured: list = []

        def on_verdict(index, v):
            lines.verdict(index, v)
            if args.plots:
                measured.append((v.claim.row, v.measure, v.measured, v.kind.value))

        dask = _dask_cluster(args)
        if isinstance(dask, str):
            lines.close()
            print(f"error: {dask}", file=sys.stderr)
            return EXIT_MALFORMED
        try:
            if dask is not None:
                from .distributed import run_corpus_distributed

                with dask as client:
                    ledger = run_corpus_distributed(client, args.seed, args.cases, args.family, scale=args.scale)
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
        from .ledger import select_families

        try:
            fams = select_families(args.family)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_MALFORMED
        claims = (c for f in fams for case in f.generate(args.seed, f.default_cases if args.cases is None else args.cases)
                  for c in f.claims(case))
        n = write_claims(args.out, claims, f"ludus-geometry-reference {__version__} (fast path)")
        print(f"wrote {n} claims to {args.out}")
        return EXIT_OK
    if args.cmd == "check":
        return _check(args)
    if args.cmd == "schema":
        from .schema import schema_text

        if args.docs:
            from .casedoc import update_document

            print(f"{args.docs}: {'updated' if update_document(args.docs) else 'already current'}")
            return EXIT_OK
        if args.out:
            Path(args.out).write_text(schema_text())
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
        from .meshio_export import run_cli

        return run_cli(args)
    return EXIT_MALFORMED


# Exceptions a checker raises for inputs the schema admits but the checker cannot read (for
# example mismatched lengths): the claim is malformed, listed with its index, and the others
# are still judged.


def _check(args) -> int:
    from .casefile import CaseFileError, load_case_file
    from .ledger import MALFORMED_ERRORS, Ledger, check_claim
    from .schema import FieldError

    try:
        cf = load_case_file(args.file)
    except CaseFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_MALFORMED
    run = {"command": "check", "source": str(args.file), "sha256": cf.sha256}
    refusal = _refuse_overwrite(Path(args.out), run, args.force)
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return EXIT_MALFORMED
    ledger = Ledger(seed=None, source=str(args.file), producer=cf.producer, run=run)
    dask = _dask_cluster(args)
    if isinstance(dask, str):
        print(f"error: {dask}", file=sys.stderr)
        return EXIT_MALFORMED
    if dask is not None:
        from .distributed import check_claims_distributed

        ledger.malformed.extend(cf.malformed)
        with dask as client:
            check_claims_distributed(client, ledger, dict(cf.claims), cf.total)
        ledger.malformed.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
        return _finish(ledger, args)
    lines = _VerdictLines(args.verdicts)
    from .ledger import _Progress

    bar = _Progress(cf.total)  # only on a terminal, like ledger
    by_index: dict = {}
    for err in cf.malformed:
        by_index.setdefault(err.claim, []).append(err)
    claims = dict(cf.claims)
    try:
        for index in range(cf.total):  # in file order, so the verdict lines follow the claims
            for err in by_index.get(index, ()):
                ledger.malformed.append(err)
                lines.malformed(err)
            claim = claims.get(index)
            if claim is None:
                bar.step("malformed")
                continue
            bar.step(claim.row)
            try:
                v = check_claim(claim)
            except MALFORMED_ERRORS as e:
                err = FieldError(f"claims[{index}]", f"{claim.row}: {type(e).__name__}: {e}", index)
                ledger.malformed.append(err)
                lines.malformed(err)
                continue
            ledger.add(v, index)
            lines.verdict(index, v)
    finally:
        lines.close()
        bar.close()
    ledger.malformed.sort(key=lambda e: (e.claim if e.claim is not None else -1, e.path))
    return _finish(ledger, args)


if __name__ == "__main__":
    sys.exit(main())
