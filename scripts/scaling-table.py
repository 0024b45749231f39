#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure the scaling table of doc/scaling.md: one bench-packet-rate --scaling process per
point (so each peak RSS is that point's), then print the table in Markdown.

  scaling-table.py BIN_DIR OUT_DIR [POINT ...]

A POINT is fabric:pattern:transport:n:k:sim_us (e.g. zcube:permutation:udp:1024:32:50); without
points the default matrix below is run. Each point's summary.json is kept in
OUT_DIR/<point>/; a point whose summary.json already exists is not run again. Programs are run
with an argument vector, never through a shell.
"""
import json
import os
import subprocess
import sys
import time

SIZES = ((128, 16, 20), (1024, 32, 20), (4096, 64, 10))
DEFAULT = [
    f"{fab}:{pat}:{tr}:{n}:{k}:{us}"
    for fab in ("zcube", "roft")
    for (n, k, us) in SIZES
    for (pat, tr) in (("permutation", "udp"), ("permutation", "roce"), ("allreduce", "udp"),
                      ("ring", "roce"))
    # all-pairs at 4096 (16.8M flows) and the ring's 2(n-1)n flow records at 4096 (33.5M) do
    # not fit: see doc/scaling.md; halving-doubling stands in for them there
    if n <= 1024 or pat == "permutation"
] + [f"{fab}:hd:roce:{n}:{k}:{us}" for fab in ("zcube", "roft") for (n, k, us) in SIZES] + [
    "zcube:none:udp:16384:128:1"
]


def run(bin_dir, out_dir, point):
    fab, pat, tr, n, k, us = point.split(":")
    folder = os.path.join(out_dir, point.replace(":", "-"))
    summary = os.path.join(folder, "summary.json")
    if not os.path.exists(summary):
        args = [os.path.join(bin_dir, "bench-packet-rate"), f"--scaling={fab}:{pat}:{tr}",
                f"--n={n}", f"--k={k}", f"--sim-us={us}", f"--out={folder}"]
        t0 = time.time()
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{point}: exit {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr)
            return None
        print(f"{point}: {time.time() - t0:.0f} s wall", file=sys.stderr)
    with open(summary) as f:
        return json.load(f)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir, out_dir = sys.argv[1], sys.argv[2]
    points = sys.argv[3:] or DEFAULT
    rows = []
    for p in points:
        if len(p.split(":")) != 6:
            print(f"error: point '{p}' is not fabric:pattern:transport:n:k:sim_us",
                  file=sys.stderr)
            return 2
        s = run(bin_dir, out_dir, p)
        if s is not None:
            rows.append(s)
    print("| fabric | GPUs | pattern | transport | flows | sim us | hop packets | hop packets/CPU s "
          "| hop packets/wall s | events/hop | peak pending events | build s | peak RSS MiB |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in rows:
        if s["pattern"] == "none":
            print(f"| {s['fabric']} | {s['n']} | (build only) | | | | | | | | | "
                  f"{s['build_s']:.1f} | {s['peak_rss_mib']:.0f} |")
            continue
        print(f"| {s['fabric']} | {s['n']} | {s['pattern']} | {s['transport']} | {s['flows']} | "
              f"{s['sim_us']:.0f} | {s['hop_packets']} | {s['hop_packets_per_cpu_s']:.0f} | "
              f"{s['hop_packets_per_s']:.0f} | "
              f"{s['events_per_hop_packet']:.2f} | {s['peak_pending_events']} | "
              f"{s['build_s']:.1f} | {s['peak_rss_mib']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
