#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Regenerate the measured tables in doc/*.md from the programs' results.

Each generated table sits between `<!-- table:NAME -->` and `<!-- /table -->` in a page;
scripts/doctables/registry.py says which program and flags make table NAME (its "run"), and
which formatter turns the run's results (RESULTS/<run>/summary.json, ...) into Markdown.
Nothing outside the markers is touched.

    python3 scripts/doc-tables.py --list                  # the registry: tables, runs, costs
    python3 scripts/doc-tables.py --run build/bin         # run the cheap programs, rewrite
    python3 scripts/doc-tables.py --run build/bin --only failover-latency-sweep
    python3 scripts/doc-tables.py --run build/bin --include slow,timed   # everything
    python3 scripts/doc-tables.py --from results          # rewrite from existing results
    python3 scripts/doc-tables.py --from results --check  # exit 1 if a page would change
    python3 scripts/doc-tables.py --from results --check --strict  # ... or a result is missing

RESULTS is --from (default: the repository's results/). A table whose results are missing is
left as it is and reported (exit 1 with --strict); so is one whose summary.json records other
program flags or --ns3:: overrides than the registry's command (or none: made before summaries
recorded them). --check compares the pages only against the
results found locally in RESULTS: on a clean checkout (no results/) it reports every table as
missing and exits 0, which proves nothing; use --check --strict to fail on missing results. Costs: "cheap" runs are deterministic and
take a minute or less; "slow" ones are deterministic but take minutes or GiBs; "timed" ones
measure wall-clock rates and belong on an idle machine (the generated note under each table
says which): before running any, --run refuses (exit 2) when the 1-minute load average is above
0.5, unless --allow-load is given (then it warns and runs; the timed programs record the load
in their summary.json, and their tables print it).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doctables.engine import (DocError, IDLE_LOAD, check_idle, find_tables, rewrite,  # noqa: E402
                              run_program)
from doctables.registry import RUNS, TABLES  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COSTS = ("cheap", "slow", "timed")


def read(doc):
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    try:
        find_tables(text)
    except DocError as e:
        raise DocError(f"{os.path.relpath(doc, ROOT)}: {e}") from None
    return text


def list_registry(docs):
    where = {}
    for doc in docs:
        for name, _, _ in find_tables(read(doc)):
                where.setdefault(name, []).append(os.path.relpath(doc, ROOT))
    for name, t in TABLES.items():
        run = RUNS[t.run]
        print(f"{name}: {', '.join(where.get(name, ['(no page)']))}\n"
              f"  run {t.run} [{run.cost}]: {run.command()}\n  keys: {t.keys}")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="--check compares the pages against the local results folder only: on a clean "
               "checkout every table is reported missing and the exit status is 0; "
               "--check --strict also fails (exit 1) when results are missing.")
    ap.add_argument("docs", nargs="*", help="doc pages (default: doc/*.md and README.md)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--run", metavar="BIN_DIR",
                      help="run the tables' programs from BIN_DIR into the results folder first")
    ap.add_argument("--from", dest="results", default=os.path.join(ROOT, "results"),
                    metavar="DIR", help="results folder, one sub-folder per run (default: "
                                        "results/)")
    ap.add_argument("--only", default="", help="comma list of table names (default: all)")
    ap.add_argument("--include", default="", help="with --run: also run these costs "
                                                  "(comma list of slow|timed)")
    mode.add_argument("--check", action="store_true",
                      help="only report pages that would change (exit 1 if any); compares "
                           "against the local results only: tables without results are "
                           "reported as missing and do not fail unless --strict is given")
    ap.add_argument("--strict", action="store_true",
                    help="missing results are an error (exit 1); with --check, the way to "
                         "prove every table is current")
    mode.add_argument("--list", action="store_true", help="print the registry and exit")
    ap.add_argument("--allow-load", action="store_true",
                    help=f"with --run: run timed programs even when the 1-minute load average "
                         f"is above {IDLE_LOAD} (default: refuse; their tables print the load)")
    args = ap.parse_args()

    only = [n for n in args.only.split(",") if n] or None
    for name in only or []:
        if name not in TABLES:
            print(f"error: --only: unknown table '{name}'; valid: {', '.join(TABLES)}",
                  file=sys.stderr)
            return 2
    include = {"cheap"} | {c for c in args.include.split(",") if c}
    if not include <= set(COSTS):
        print(f"error: --include: '{args.include}' is not a comma list of slow|timed",
              file=sys.stderr)
        return 2
    docs = args.docs or sorted(
        os.path.join(ROOT, "doc", d) for d in os.listdir(os.path.join(ROOT, "doc"))
        if d.endswith(".md")) + [os.path.join(ROOT, "README.md")]
    try:
        if args.list:
            list_registry(docs)
            return 0
        if args.run:
            runs = sorted({TABLES[n].run for n in (only or TABLES)})
            skipped = [r for r in runs if RUNS[r].cost not in include]
            for r in skipped:
                print(f"{r}: not run ({RUNS[r].cost}; --include {RUNS[r].cost} runs it)",
                      file=sys.stderr)
            timed = [r for r in runs if r not in skipped and RUNS[r].cost == "timed"]
            if timed and not check_idle(args.allow_load, "timed runs " + ", ".join(timed)):
                return 2
            failed = [r for r in runs if r not in skipped and
                      not run_program(args.run, args.results, r)]
            if failed:
                print(f"error: {', '.join(failed)} failed; no page rewritten", file=sys.stderr)
                return 1
        problems, changed = [], []
        for doc in docs:
            old = read(doc)
            new = rewrite(old, args.results, problems, only)
            if new != old:
                changed.append(doc)
                if not args.check:
                    with open(doc + ".tmp", "w", encoding="utf-8") as f:
                        f.write(new)
                    os.replace(doc + ".tmp", doc)
    except DocError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p, file=sys.stderr)
    for doc in changed:
        print(("would change " if args.check else "rewrote ") + os.path.relpath(doc, ROOT))
    return 1 if (args.check and changed) or (args.strict and problems) else 0


if __name__ == "__main__":
    sys.exit(main())
