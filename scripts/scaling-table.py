#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure the scaling table of doc/scaling.md: one bench-packet-rate --scaling process per
point (so each peak RSS is that point's), then print the table in Markdown.

  scaling-table.py [--allow-load] BIN_DIR OUT_DIR [POINT ...]

A POINT is fabric:pattern:transport:n:k:sim_us[:runs[:device]] (e.g.
zcube:permutation:udp:1024:32:50:5 or zcube:permutation:udp:1024:32:50:5:fast;
runs: --repeat, the median of that many runs in the point's process, default 1; device: p2p,
the default, or fast, --ns3::FabricNetwork::LinkDevice=fast); without
points the doc's matrix (scripts/doctables/registry.py, SCALING_POINTS) is run. Each point's
summary.json is kept in OUT_DIR/<point>/; a point whose summary.json already exists is not run
again. With OUT_DIR = results/scaling, `doc-tables.py --only scaling` then writes the table
into doc/scaling.md. Programs are run with an argument vector, never through a shell.

The points are timed: with a 1-minute load average above 0.5 the script refuses to start
(exit 2) unless --allow-load is given. It prints the table, the machine's load during the
points and the acceptance line of issue #12 (permutation at 1024 GPUs at least half the hop
packet rate at 128 GPUs).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doctables.engine import check_idle, run_point, valid_point  # noqa: E402
from doctables.formats import (machine_note, point_folder, scaling_acceptance,  # noqa: E402
                               scaling_rows)
from doctables.registry import SCALING_POINTS, scaling_run_order  # noqa: E402


def main():
    argv = sys.argv[1:]
    allow_load = "--allow-load" in argv
    argv = [a for a in argv if a != "--allow-load"]
    if len(argv) < 2 or any(a.startswith("--") for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir, out_dir = argv[0], argv[1]
    points = argv[2:] or SCALING_POINTS
    for p in points:
        if not valid_point(p):
            print(f"error: point '{p}' is not fabric:pattern:transport:n:k:sim_us"
                  "[:runs[:device]] (device: p2p or fast)", file=sys.stderr)
            return 2
    pending = [p for p in points
               if not os.path.exists(os.path.join(point_folder(out_dir, p), "summary.json"))]
    if pending and not check_idle(allow_load, f"{len(pending)} scaling points"):
        return 2
    # run the sizes of one kind back to back (scaling_run_order); print in the given order
    ran = {p: run_point(bin_dir, out_dir, p) for p in scaling_run_order(points)}
    summaries = [ran[p] for p in points if ran[p] is not None]
    print("\n".join(scaling_rows(summaries) + [""] + machine_note(summaries, "point") +
                    scaling_acceptance(summaries)))
    return 0 if len(summaries) == len(points) else 1


if __name__ == "__main__":
    sys.exit(main())
