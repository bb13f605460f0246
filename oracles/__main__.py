"""``python -m oracles``: the evidence ledger and its companions.

    python -m oracles ledger [--cases N] [--seed S] [--out DIR] [--family NAME ...]
    python -m oracles claims [--cases N] [--seed S] --out FILE   # the fast path's claims
    python -m oracles check FILE [--out DIR]                     # judge another implementation
    python -m oracles surface-queries                            # spec 004's example records

Exit status: 0 when nothing is Violated, 1 on any Violated verdict, 2 on a malformed case file
or bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time


def _print_summary(ledger, out_dir) -> None:
    for line in ledger.summary_lines():
        print(line)
    pj, pm = ledger.write(out_dir)
    print(f"wrote {pj} and {pm}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m oracles", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("ledger", help="run the built-in corpus and write the evidence ledger")
    pl.add_argument("--cases", type=int, default=None, help="cases per family (default: each family's own)")
    pl.add_argument("--seed", type=int, default=1)
    pl.add_argument("--out", default="ledger-out", help="directory for ledger.json and ledger.md")
    pl.add_argument("--family", action="append", default=[], help="run only these families")
    pc = sub.add_parser("claims", help="write the fast path's claims on the corpus as a case file")
    pc.add_argument("--cases", type=int, default=None)
    pc.add_argument("--seed", type=int, default=1)
    pc.add_argument("--family", action="append", default=[])
    pc.add_argument("--out", required=True)
    pk = sub.add_parser("check", help="judge the claims of a case file")
    pk.add_argument("file")
    pk.add_argument("--out", default="ledger-out")
    sub.add_parser("surface-queries", help="print spec 004's nine example query records")
    args = p.parse_args(argv)

    if getattr(args, "cases", None) is not None and args.cases < 0:
        p.error("--cases must be nonnegative")
    if args.cmd == "ledger":
        from .ledger import run_corpus

        t0 = time.monotonic()
        ledger = run_corpus(args.seed, args.cases, args.family)
        _print_summary(ledger, args.out)
        print(f"{sum(t.cases for t in ledger.tallies.values())} claims in {time.monotonic() - t0:.1f}s; "
              f"{ledger.violated} violated")
        return 1 if ledger.violated else 0
    if args.cmd == "claims":
        from . import __version__
        from .casefile import write_claims
        from .checks import families

        fams = [f for f in families() if not args.family or f.name in args.family]
        claims = (c for f in fams for case in f.generate(args.seed, f.default_cases if args.cases is None else args.cases)
                  for c in f.claims(case))
        n = write_claims(args.out, claims, f"ludus-geometry-reference {__version__} (fast path)")
        print(f"wrote {n} claims to {args.out}")
        return 0
    if args.cmd == "check":
        from .casefile import CaseFileError, load_claims
        from .ledger import Ledger, check_claim

        try:
            claims = load_claims(args.file)
        except CaseFileError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        ledger = Ledger(seed=None, source=args.file)
        for i, c in enumerate(claims):
            try:
                ledger.add(check_claim(c))
            except (ValueError, KeyError, TypeError, IndexError) as e:
                ledger.malformed.append(f"claim {i} ({c.row}): {e}")
        _print_summary(ledger, args.out)
        for m in ledger.malformed:
            print(f"malformed: {m}", file=sys.stderr)
        if ledger.malformed:
            return 2
        return 1 if ledger.violated else 0
    if args.cmd == "surface-queries":
        from .surface_queries import main as surface_main

        return surface_main()
    return 2


if __name__ == "__main__":
    sys.exit(main())
