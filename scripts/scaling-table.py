#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure the scaling table of doc/scaling.md: one bench-packet-rate --scaling process per
point (so each peak RSS is that point's), then print the table in Markdown.

  scaling-table.py BIN_DIR OUT_DIR [POINT ...]

A POINT is fabric:pattern:transport:n:k:sim_us (e.g. zcube:permutation:udp:1024:32:50); without
points the doc's matrix (scripts/doctables/registry.py, SCALING_POINTS) is run. Each point's
summary.json is kept in OUT_DIR/<point>/; a point whose summary.json already exists is not run
again. With OUT_DIR = results/scaling, `doc-tables.py --only scaling` then writes the table
into doc/scaling.md. Programs are run with an argument vector, never through a shell.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doctables.engine import run_point  # noqa: E402
from doctables.formats import scaling_rows  # noqa: E402
from doctables.registry import SCALING_POINTS  # noqa: E402


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir, out_dir = sys.argv[1], sys.argv[2]
    points = sys.argv[3:] or SCALING_POINTS
    for p in points:
        if len(p.split(":")) != 6:
            print(f"error: point '{p}' is not fabric:pattern:transport:n:k:sim_us",
                  file=sys.stderr)
            return 2
    summaries = [s for s in (run_point(bin_dir, out_dir, p) for p in points) if s is not None]
    print("\n".join(scaling_rows(summaries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
