#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Regenerate the measured tables in doc/*.md from the scenarios' summary.json.

A table lives between two markers in a doc page:

    <!-- table:zcube-fig2 results/zcube-vs-roft -->
    | ... generated ... |
    <!-- /table -->

The first marker names the table kind and the results folder (relative to the repository
root unless absolute, or to --results-root) whose summary.json the table is made from. The
script rewrites everything between the markers; it never edits anything else.

    ./build/bin/zcube-vs-roft --out=results/zcube-vs-roft
    python3 scripts/doc-tables.py            # rewrites every marked table
    python3 scripts/doc-tables.py --check    # exit 1 if a table would change

A table whose summary.json is missing is left as it is (reported, exit 1 with --strict).
"""
import argparse
import json
import os
import re
import sys

# Published values (paper columns) are constants of the paper, not measurements: they are
# the only numbers here not read from summary.json (ZCube paper Fig. 2, see
# /work/shared/REFERENCE-NUMBERS.md and doc/zcube.md).
ZCUBE_FIG2_PAPER = {
    ("allreduce", "zcube"): "1.00",
    ("allreduce", "roft"): "1.14",
    ("prefill", "zcube"): "1.33 (1.00 loaded)",
    ("prefill", "roft"): "4.50",
    ("prefill:0.5", "zcube"): "(1.00 loaded)",
    ("prefill:0.5", "roft"): "—",
    ("elephants", "zcube"): "near 9",
    ("elephants", "roft"): "near 9, std 2.67",
}
FABRIC_TITLE = {"zcube": "ZCube", "roft": "ROFT"}


def sig3(x):
    """Three significant digits, trailing zeros kept (4.00, 1.74, 380)."""
    s = f"{x:#.3g}"
    if "e" in s:
        return f"{x:.0f}"
    return s.rstrip(".")


def percent(frac):
    p = 100.0 * frac
    return "0%" if p < 0.005 else f"{p:.2f}%"


def pattern_label(key, pj, params):
    if key.startswith("prefill"):
        return f"prefill {round(100 * pj['prefill_fraction'])}%"
    if key == "elephants":
        return f"{params['elephants']} elephants"
    return key


def table_zcube_fig2(summary):
    """doc/zcube.md: imbalance per pattern and fabric, analytic and packet level."""
    params = summary["params"]
    rows = [
        "| pattern | fabric | imbalance (mean ± std) | loaded | paper Fig. 2 | packet imbalance, "
        "max error vs analytic (offered load) | full load: drops / sent, mean (min) flow Gb/s |",
        "|---|---|---|---|---|---|---|",
    ]
    # Patterns in the order of --pattern (JSON objects come back sorted by key).
    keys = [k for k in str(params.get("patterns", "")).split(",") if k in summary["patterns"]]
    keys += [k for k in summary["patterns"] if k not in keys]
    for key in keys:
        pj = summary["patterns"][key]
        for fabric in ("zcube", "roft"):
            fj = pj[fabric]
            cells = [
                pattern_label(key, pj, params),
                FABRIC_TITLE[fabric],
                f"{fj['imbalance_mean']:.2f} ± {fj['imbalance_std']:.2f}",
                f"{fj['loaded_imbalance_mean']:.2f}",
                ZCUBE_FIG2_PAPER.get((key, fabric), "—"),
            ]
            packet = fj.get("packet") or []
            if packet:
                lo = packet[0]["unsaturated"]
                hi = packet[0]["full_load"]
                cells.append(f"{lo['imbalance']:.2f}, {percent(lo['max_rel_err_vs_analytic'])} "
                             f"({lo['offered_load']:.2f})")
                cells.append(f"{hi['dropped_packets']} / {hi['sent_packets']}, "
                             f"{sig3(hi['throughput_gbps_mean'])} "
                             f"({sig3(hi['throughput_gbps_min'])})")
            else:
                cells += ["—", "—"]
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def table_rng_vs_fattree(summary):
    """doc/rng.md: per pattern, fabric and routing, RoCE flow results."""
    rows = [
        "| pattern | fabric | routing | flows | incompl | tput mean | tput p1 | tput min | "
        "slowdown p50 | slowdown p99 | retx | CNPs | mean links |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = ["spraypoint", "ecmp", "ksp"]
    for pattern in ("permutation", "all-to-all"):
        pj = summary["runs"].get(pattern, {})
        for fabric in ("rng", "fat_tree"):
            runs = pj.get(fabric, {})
            for routing in sorted(runs, key=lambda r: order.index(r) if r in order else 99):
                r = runs[routing]
                t = r["throughput_gbps"]
                sd = r["fct_slowdown"]
                label = routing
                if routing == "ksp" and "k" in summary.get("params", {}):
                    label = f"ksp (k={summary['params']['k']})"
                rows.append("| " + " | ".join([
                    pattern,
                    "rng" if fabric == "rng" else "fat tree",
                    label,
                    str(r["flows"]),
                    str(r["flows_incomplete"]),
                    f"{t['mean']:.1f}",
                    f"{t['p1']:.1f}",
                    f"{t['min']:.1f}",
                    f"{sd['p50']:.2f}",
                    f"{sd['p99']:.2f}",
                    str(r["retransmitted_packets"]),
                    str(r["cnps"]),
                    f"{r['mean_router_links']:.2f}",
                ]) + " |")
    return rows


def table_rng_blast(summary):
    """doc/rng.md: blast radius of a router (spine) failure and of 1% link failures."""
    rows = [
        "| failure | fabric | elements | flows | predicted | hit (measured) | after: incomplete | "
        "after: tput mean / p1 | after: slowdown p99 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    labels = {"router": "router", "links-1pct": "1% links"}
    for kind in ("router", "links-1pct"):
        kj = summary.get("blast_radius", {}).get(kind, {})
        for fabric in ("rng", "fat_tree"):
            if fabric not in kj:
                continue
            b = kj[fabric]
            after = b["after"]
            hit = b["before"]["flows_incomplete"]
            rows.append("| " + " | ".join([
                labels[kind],
                "rng" if fabric == "rng" else "fat tree",
                re.sub(r"^1 links$", "1 link", b["elements"]),
                str(b["flows"]),
                str(b["flows_blackholed_predicted"]),
                f"{b['flows_hit_before_reconvergence']:.3f} ({hit})",
                str(after["flows_incomplete"]),
                f"{after['throughput_gbps']['mean']:.1f} / {after['throughput_gbps']['p1']:.1f}",
                f"{after['fct_slowdown']['p99']:.2f}",
            ]) + " |")
    return rows


TABLES = {
    "zcube-fig2": table_zcube_fig2,
    "rng-vs-fattree": table_rng_vs_fattree,
    "rng-blast": table_rng_blast,
}

MARKER = re.compile(r"^<!-- table:(?P<kind>[a-z0-9-]+) (?P<folder>\S+) -->\s*$")
END = "<!-- /table -->"


def rewrite(text, root, problems):
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(lines) and lines[j].strip() != END:
            j += 1
        if j == len(lines):
            raise SystemExit(f"error: table:{m['kind']} has no closing {END}")
        kind = m["kind"]
        if kind not in TABLES:
            raise SystemExit(f"error: unknown table kind '{kind}'; valid: {', '.join(TABLES)}")
        folder = m["folder"] if os.path.isabs(m["folder"]) else os.path.join(root, m["folder"])
        path = os.path.join(folder, "summary.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out.extend(TABLES[kind](json.load(f)))
        else:
            problems.append(f"table:{kind}: {path} not found, table left as it is")
            out.extend(lines[i:j])
        out.append(lines[j])
        i = j + 1
    return "\n".join(out)


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("docs", nargs="*", help="doc pages (default: doc/*.md)")
    ap.add_argument("--results-root", default=here,
                    help="folder the markers' results paths are relative to (default: the "
                         "repository)")
    ap.add_argument("--check", action="store_true", help="only report pages that would change")
    ap.add_argument("--strict", action="store_true", help="a missing summary.json is an error")
    args = ap.parse_args()
    docs = args.docs or sorted(
        os.path.join(here, "doc", d) for d in os.listdir(os.path.join(here, "doc"))
        if d.endswith(".md"))
    problems = []
    changed = []
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            old = f.read()
        new = rewrite(old, args.results_root, problems)
        if new != old:
            changed.append(doc)
            if not args.check:
                tmp = doc + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(new)
                os.replace(tmp, doc)
    for p in problems:
        print(p, file=sys.stderr)
    for doc in changed:
        print(("would change " if args.check else "rewrote ") + os.path.relpath(doc, here))
    if (args.check and changed) or (args.strict and problems):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
