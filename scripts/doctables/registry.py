# SPDX-License-Identifier: GPL-2.0-only
"""Which program (and flags) makes each measured table of doc/, and which formatter turns its
results into Markdown.

A run writes into RESULTS/<run name>/ (default RESULTS: the repository's results/). Costs:
  cheap  deterministic, a minute or less here: `doc-tables.py --run` runs these
  slow   deterministic but minutes or GiBs (callgrind, paper scale): `--include slow`
  timed  wall-clock figures, meaningful only on an idle machine: `--include timed`
"""
from dataclasses import dataclass, field
from functools import partial

from . import formats


@dataclass
class Run:
    program: str
    args: list
    cost: str = "cheap"
    # valgrind arguments put before the program (instructions instead of wall time)
    valgrind: list = field(default_factory=list)
    # bench-packet-rate --scaling points (scaling-table.py), instead of one program run
    points: list = field(default_factory=list)
    machine: str = "any machine (results do not depend on the load)"

    def command(self):
        """The command line in Markdown (code spans), for the note under a table."""
        if self.points:
            return (f"{len(self.points)} points of `bench-packet-rate --scaling=FABRIC:PATTERN:"
                    f"TRANSPORT --n=N --k=K --sim-us=T --repeat=R` (`scripts/scaling-table.py`)")
        pre = " ".join(["valgrind"] + self.valgrind) + " " if self.valgrind else ""
        return "`" + pre + " ".join([self.program] + self.args) + "`"


@dataclass
class Table:
    run: str
    formatter: object
    keys: str  # where in the run's outputs the table's numbers are (for the reader)


SCALING_SIZES = ((128, 16, 20), (1024, 32, 20), (4096, 64, 10))


def scaling_runs(n, pattern):
    """Runs of a point in its process (bench-packet-rate --scaling --repeat; the table shows
    the medians): a 128-GPU point is a fraction of a second of CPU, where one run swings by
    2x on a shared machine, so it runs 9 times; the 1024-GPU permutation and halving-doubling
    points (5-10 s) 5 times; the rest 3 times, and the build-only point once. With the
    per-point times of the session-8 table (idle machine, 4 min in all) the whole table takes
    about 14 minutes. Every size simulates the same time (fixed work per GPU)."""
    if pattern == "none":
        return 1
    if n <= 128:
        return 9
    if n <= 1024 and pattern in ("permutation", "hd"):
        return 5
    return 3


# all-pairs at 4096 (16.8M flows) and the ring's 2(n-1)n flow records at 4096 (33.5M) do not
# fit: see doc/scaling.md; halving-doubling stands in for them there
SCALING_POINTS = [
    f"{fab}:{pat}:{tr}:{n}:{k}:{us}:{scaling_runs(n, pat)}"
    for fab in ("zcube", "roft")
    for (n, k, us) in SCALING_SIZES
    for (pat, tr) in (("permutation", "udp"), ("permutation", "roce"), ("allreduce", "udp"),
                      ("ring", "roce"))
    if n <= 1024 or pat == "permutation"
] + [f"{fab}:hd:roce:{n}:{k}:{us}:{scaling_runs(n, 'hd')}" for fab in ("zcube", "roft")
     for (n, k, us) in SCALING_SIZES] + [
    # the permutation at the two sizes of the acceptance line with the fabric's own device pair
    f"{fab}:permutation:{tr}:{n}:{k}:{us}:{scaling_runs(n, 'permutation')}:fast"
    for fab in ("zcube", "roft") for tr in ("udp", "roce")
    for (n, k, us) in SCALING_SIZES if n <= 1024] + ["zcube:none:udp:16384:128:1:1"]



def scaling_run_order(points):
    """The order the scaling points are run in: the sizes of one fabric, pattern and transport
    back to back (128, 1024, 4096 GPUs), so that the 1024/128 ratio of the acceptance line
    compares runs made seconds apart, not minutes: this machine's speed drifts by up to 2x
    over hours with nothing in its load average (doc/scaling.md). The table keeps the order
    of \p points."""
    def key(point):
        fields = point.split(":")
        fab, pat, tr, n = fields[:4]
        return (fab, pat, tr, fields[7] if len(fields) > 7 else "p2p", int(n))
    return sorted(points, key=key)


IDLE = "an idle machine (wall-clock rates; nothing else running)"

RUNS = {
    "zcube-vs-roft": Run("zcube-vs-roft", [], cost="slow"),
    "rng-vs-fattree": Run("rng-vs-fattree", []),
    "rng-models": Run("rng-models", []),
    "ocs-reconfig": Run("ocs-reconfig", [], machine="any machine (`solve_us`, not in the "
                                                    "tables, is the only clock-measured value)"),
    "failover-zcube-allreduce": Run("failover", ["--fabric=zcube", "--no-failure-run=true"]),
    "failover-zcube-allreduce-priority": Run("failover", ["--fabric=zcube",
                                                          "--no-failure-run=true",
                                                          "--sweep-latency-us=none",
                                                          "--control-priority=on"]),
    "failover-zcube-prefill": Run("failover", ["--fabric=zcube", "--pattern=prefill",
                                               "--no-failure-run=true", "--sweep-latency-us=none"]),
    "failover-roft": Run("failover", ["--fabric=roft", "--no-failure-run=true",
                                      "--sweep-latency-us=none"]),
    "failover-rng": Run("failover", ["--fabric=rng", "--no-failure-run=true",
                                     "--sweep-latency-us=none"]),
    "lossless": Run("lossless", []),
    "packet-vs-flow": Run("packet-vs-flow", []),
    "flow-scale": Run("flow-scale", [], machine="any machine (the wall column is clock-measured "
                                                "and varies; every other cell is deterministic)"),
    "flow-scale-full-b": Run("flow-scale", ["--full", "--parts=B"], cost="slow",
                             machine="any machine with 5 GiB free (wall seconds vary)"),
    "dcqcn-profiles": Run("dcqcn-profiles", []),
    "bench-flow": Run("bench-flow", [], cost="timed",
                      machine="an idle machine (CPU seconds of a memory-bound run grow with the "
                              "load)"),
    "bench-packet-rate": Run("bench-packet-rate", ["--roce=false", "--schedulers=none"],
                             cost="timed", machine=IDLE),
    # 5 alternating rounds of the RoCE rows and the default 3 of the UDP variants (about 5 min
    # on the idle machine); the summary's acceptance lines of issue #12 are printed under it
    "bench-packet-rate-roce": Run("bench-packet-rate",
                                  ["--build-n=0", "--schedulers=none", "--roce-rounds=5"],
                                  cost="timed", machine=IDLE),
    "callgrind-roce": Run("bench-packet-rate",
                          ["--n=16", "--k=4", "--sim-us=20", "--variants=fast",
                           "--schedulers=none", "--repeat=1"], cost="slow",
                          valgrind=["--tool=callgrind", "--toggle-collect=ns3::RunFabricRoce*"],
                          machine="any machine (instruction counts; same build type)"),
    "callgrind-udp": Run("bench-packet-rate",
                         ["--n=16", "--k=4", "--sim-us=20", "--variants=fast",
                          "--schedulers=none", "--roce=false", "--repeat=1", "--build-n=0"],
                         cost="slow",
                         valgrind=["--tool=callgrind", "--toggle-collect=ns3::RunFabricUdp*"],
                         machine="any machine (instruction counts; same build type)"),
    "scaling": Run("bench-packet-rate", [], cost="timed", points=SCALING_POINTS,
                   machine="an idle machine (hop packets, events and memory do not depend on "
                           "the load, CPU seconds less than wall seconds)"),
}

TABLES = {
    "zcube-fig2": Table("zcube-vs-roft", formats.zcube_fig2,
                        "patterns.<p>.<fabric>.{imbalance_*, loaded_imbalance_mean, packet[0]}"),
    "rng-vs-fattree": Table("rng-vs-fattree", formats.rng_vs_fattree,
                            "runs.<pattern>.<fabric>.<routing>"),
    "rng-blast": Table("rng-vs-fattree", formats.rng_blast, "blast_radius.<kind>.<fabric>"),
    "rng-path-hist": Table("rng-vs-fattree", formats.rng_path_hist,
                           "runs.permutation.<fabric>.<routing>.path_length_hist"),
    "rng-model-path-length": Table("rng-models", formats.rng_model_path_length,
                                   "path_length, path_length_p_compare"),
    "rng-model-edge-disjoint": Table("rng-models", formats.rng_model_edge_disjoint,
                                     "edge_disjoint.per_h"),
    "rng-model-f3": Table("rng-models", formats.rng_model_f3, "edge_disjoint.f3_table"),
    "failover-zcube-allreduce": Table("failover-zcube-allreduce", formats.failover_events,
                                      "events[]"),
    "failover-zcube-allreduce-priority": Table("failover-zcube-allreduce-priority",
                                               formats.failover_events, "events[]"),
    "failover-zcube-prefill": Table("failover-zcube-prefill", formats.failover_events_no_domain,
                                    "events[]"),
    "failover-latency-sweep": Table("failover-zcube-allreduce", formats.failover_latency_sweep,
                                    "latency_sweep[]"),
    "failover-roft": Table("failover-roft", formats.failover_events_no_domain, "events[]"),
    "failover-rng": Table("failover-rng", formats.failover_events_no_domain, "events[]"),
    "ocs-reconfig-runs": Table("ocs-reconfig", formats.ocs_reconfig_runs,
                               "runs[] (not sweep): phases[].{stall_us, changed_circuits, "
                               "unroutable_flows}, total_completion_us, completion_vs_first"),
    "ocs-reconfig-sweep": Table("ocs-reconfig", formats.ocs_reconfig_sweep,
                                "runs[] (workload sweep): switching_us, total_completion_us"),
    "lossless-runs": Table("lossless", formats.lossless_runs, "runs[]"),
    "packet-vs-flow": Table("packet-vs-flow", formats.packet_vs_flow,
                            "runs[].{fct_ratio_*, completion_ratio, util_abs_diff_max, causes, "
                            "shared_fabric_links}"),
    "flow-scale": Table("flow-scale", formats.flow_scale_tables, "tables.md (from A, B, C)"),
    "flow-scale-full-b": Table("flow-scale-full-b",
                               partial(formats.flow_scale_tables, preamble=False),
                               "tables.md (from B)"),
    "zcube-bench-variants": Table("bench-packet-rate", formats.zcube_bench_variants,
                                  "variants.<v>.{hop_packets_per_s, events_per_s, "
                                  "ratio_vs_global}"),
    "bench-flow": Table("bench-flow", formats.bench_flow,
                        "comparison.{cpu_*}, random_1024, allreduce_16k"),
    "dcqcn-profiles": Table("dcqcn-profiles", formats.dcqcn_profiles,
                            "runs[].{profile, line_gbps, rate_after_cuts_gbps, reach_us}"),
    "roce-host-path": Table("bench-packet-rate-roce", formats.roce_host_path,
                            "roce.<fabric>.<pattern>.*_hop_packets_per_s, roce_vs_*"),
    "roce-callgrind": Table("callgrind-roce", formats.roce_callgrind,
                            "callgrind.out totals, roce.*.*.roce{,_ipv4}_hop_packets"),
    "udp-callgrind": Table("callgrind-udp", formats.udp_callgrind,
                           "callgrind.out totals, variants.fast.{hop_packets, events}"),
    "scaling": Table("scaling", partial(formats.scaling_table, points=SCALING_POINTS),
                     "<point>/summary.json"),
}
