# SPDX-License-Identifier: GPL-2.0-only
"""Formatters: one function per table, results folder in, Markdown table lines out.

Every number comes from a program's output in the folder (summary.json, or a file the registry
names); the only constants are labels and the published paper values of zcube-fig2.
"""
import json
import os
import re


class MissingResults(Exception):
    """The folder lacks an output a table needs (the table is then left as it is)."""


class StaleResults(MissingResults):
    """The folder's results were made by another command line than the table's."""


def load(folder, name="summary.json"):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        raise MissingResults(f"{path} not found")
    with open(path, encoding="utf-8") as f:
        return json.load(f) if name.endswith(".json") else f.read()


def sig3(x):
    """Three significant digits, trailing zeros kept (4.00, 1.74, 380)."""
    s = f"{x:#.3g}"
    if "e" in s:
        return f"{x:.0f}"
    return s.rstrip(".")


def short(x):
    """Up to two decimals without trailing zeros (2, 2.6, 2.67)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def percent(frac):
    p = 100.0 * frac
    return "0%" if p < 0.005 else f"{p:.2f}%"


def row(cells):
    return "| " + " | ".join(cells) + " |"


def header(*names, align=None):
    return [row(names), "|" + "|".join(align or ["---"] * len(names)) + "|"]


# --- zcube.md -------------------------------------------------------------------------------

# Published values (paper columns) are constants of the paper, not measurements (ZCube paper
# Fig. 2, see /work/shared/REFERENCE-NUMBERS.md and doc/zcube.md).
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


def _pattern_label(key, pj, params):
    if key.startswith("prefill"):
        return f"prefill {round(100 * pj['prefill_fraction'])}%"
    if key == "elephants":
        return f"{params['elephants']} elephants"
    return key


def zcube_fig2(folder):
    """Imbalance per pattern and fabric, analytic and packet level (zcube-vs-roft)."""
    summary = load(folder)
    params = summary["params"]
    rows = header("pattern", "fabric", "imbalance (mean ± std)", "loaded", "paper Fig. 2",
                  "packet imbalance, max error vs analytic (offered load)",
                  "full load: drops / sent, mean (min) flow Gb/s")
    # Patterns in the order of --pattern (JSON objects come back sorted by key).
    keys = [k for k in str(params.get("patterns", "")).split(",") if k in summary["patterns"]]
    keys += [k for k in summary["patterns"] if k not in keys]
    for key in keys:
        pj = summary["patterns"][key]
        for fabric in ("zcube", "roft"):
            fj = pj[fabric]
            cells = [
                _pattern_label(key, pj, params),
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
            rows.append(row(cells))
    return rows


# --- zcube.md (speed) -----------------------------------------------------------------------

BENCH_VARIANT_LABEL = {
    "fast": "fast (device-level switch forwarding, our routing)",
    "ipv4": "ipv4 (switches run IPv4 + `FabricIpv4Routing`)",
    "global": "global (stock ns-3, Ipv4GlobalRouting)",
}


def zcube_bench_variants(folder):
    """Hop-level packets and events per wall-second per switch variant (bench-packet-rate)."""
    summary = load(folder)
    rows = header("variant", "hop-level packets / wall-s", "events / s", "vs global routing")
    for v in ("fast", "ipv4", "global"):
        if v in summary["variants"]:
            r = summary["variants"][v]
            rows.append(row([BENCH_VARIANT_LABEL[v], f"{r['hop_packets_per_s'] / 1e3:.0f}k",
                             f"{r['events_per_s'] / 1e3:.0f}k", f"{r['ratio_vs_global']:.2f}x"]))
    return with_notes(rows, machine_note([summary]))


# --- the machine under timed tables -------------------------------------------------------


def with_notes(rows, notes):
    """A table's \\p rows, then its \\p notes as a paragraph (a blank line first: a line right
    under a Markdown table would be read as one more row)."""
    return rows + ([""] + [" ".join(notes)] if notes else [])


def _range(values, fmt):
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else \
        f"{fmt.format(lo)}-{fmt.format(hi)}"


def machine_note(summaries, what="run"):
    """One italic line: the 1-minute load average at the start and the end of the runs and
    their CPU time over wall time (summary.json "machine", MachineLoadProbe), over every
    summary that records it; nothing when none does (results from before it was recorded).
    A single-threaded benchmark adds up to 1.0 to the average itself, so the end value of a
    run of a minute or more is about 1 on an idle machine; the start value says whether
    something else was running."""
    m = [s["machine"] for s in summaries if s.get("machine")]
    if not m:
        return []
    start = [x["loadavg_start"][0] for x in m if x.get("loadavg_start")]
    end = [x["loadavg_end"][0] for x in m if x.get("loadavg_end")]
    cpu = [100 * x["cpu_per_wall"] for x in m]
    one = len(summaries) == 1
    runs = f"the {what}" if one else f"the {len(summaries)} {what}s"
    if not start or not end:
        load = "load average not recorded (no /proc/loadavg)"
    else:
        load = (f"1-minute load average {_range(start, '{:.2f}')} at the "
                f"{'start' if one else 'starts'}, {_range(end, '{:.2f}')} at the "
                f"{'end' if one else 'ends'} ({m[0]['cpus_online']} CPUs)")
    lacking = len(summaries) - len(m)
    # Timed runs follow each other and each adds up to 1.0 to the average itself, so a start
    # at about 1 is the previous run of the same chain; above 1.5 something else was running
    # too (engine.IDLE_LOAD, 0.5, is the bar for starting a chain).
    busy = sum(1 for x in start if x > 1.5)
    huge = [x for x in m if x.get("malloc_hugepages")]
    tunables = sorted({str(x.get("glibc_tunables")) for x in huge})
    pages = ("" if not huge else
             f"; malloc on huge pages (GLIBC_TUNABLES={', '.join(tunables)})"
             + ("" if len(huge) == len(m) else f" in {len(huge)} of {len(m)}"))
    loaded = (f"; **measured under load** ({busy} of {len(start)} started above 1.5)"
              if busy else "")
    return [f"*Machine during {runs}: {load}; CPU time {_range(cpu, '{:.0f}')}% of wall time"
            + (f"; {lacking} without a record" if lacking else "") + pages + loaded + ".*"]


# --- rng.md ---------------------------------------------------------------------------------


def rng_vs_fattree(folder):
    """Per pattern, fabric and routing, RoCE flow results (rng-vs-fattree)."""
    summary = load(folder)
    rows = header("pattern", "fabric", "routing", "flows", "incompl", "tput mean", "tput p1",
                  "tput min", "slowdown p50", "slowdown p99", "retx", "CNPs", "mean links")
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
                rows.append(row([
                    pattern, "rng" if fabric == "rng" else "fat tree", label, str(r["flows"]),
                    str(r["flows_incomplete"]), f"{t['mean']:.1f}", f"{t['p1']:.1f}",
                    f"{t['min']:.1f}", f"{sd['p50']:.2f}", f"{sd['p99']:.2f}",
                    str(r["retransmitted_packets"]), str(r["cnps"]),
                    f"{r['mean_router_links']:.2f}"]))
    return rows


def rng_blast(folder):
    """Blast radius of a router (spine) failure and of 1% link failures (rng-vs-fattree)."""
    summary = load(folder)
    rows = header("failure", "fabric", "elements", "flows", "predicted", "hit (measured)",
                  "after: incomplete", "after: tput mean / p1", "after: slowdown p99")
    labels = {"router": "router", "links-1pct": "1% links"}
    for kind in ("router", "links-1pct"):
        kj = summary.get("blast_radius", {}).get(kind, {})
        for fabric in ("rng", "fat_tree"):
            if fabric not in kj:
                continue
            b = kj[fabric]
            after = b["after"]
            hit = b["before"]["flows_incomplete"]
            rows.append(row([
                labels[kind], "rng" if fabric == "rng" else "fat tree",
                re.sub(r"^1 links$", "1 link", b["elements"]), str(b["flows"]),
                str(b["flows_blackholed_predicted"]),
                f"{b['flows_hit_before_reconvergence']:.3f} ({hit})",
                str(after["flows_incomplete"]),
                f"{after['throughput_gbps']['mean']:.1f} / {after['throughput_gbps']['p1']:.1f}",
                f"{after['fct_slowdown']['p99']:.2f}"]))
    return rows


def rng_path_hist(folder):
    """Router-router links per delivered data packet, per routing (rng-vs-fattree, permutation)."""
    summary = load(folder)
    runs = summary["runs"]["permutation"]
    hists = [(f"rng {r}" + (" (permutation)" if r == "spraypoint" else ""),
              runs["rng"][r]["path_length_hist"]) for r in ("spraypoint", "ecmp", "ksp")
             if r in runs.get("rng", {})]
    hists += [(f"fat tree {r}", runs["fat_tree"][r]["path_length_hist"])
              for r in ("ecmp",) if r in runs.get("fat_tree", {})]
    top = max(int(b) for _, h in hists for b in h)
    rows = header("routing", *[str(b) for b in range(top + 1)])
    for label, h in hists:
        rows.append(re.sub(r"\|  (?=\|)", "| ", row(
            [label] + [f"{h[str(b)]:.3f}" if str(b) in h else "" for b in range(top + 1)])))
    return rows


def _fixed_or_zero(x, digits):
    return "0" if x == 0 else f"{x:.{digits}f}"


def rng_model_path_length(folder):
    """Path-length distribution, simulated and §7.2 model, at p and p_compare (rng-models)."""
    summary = load(folder)
    a, b = summary["path_length"], summary.get("path_length_p_compare")
    names = ["hops", f"sim p={a['p']}", f"Model 7.2 p={a['p']}"]
    if b:
        names += [f"sim p={b['p']}", f"Model 7.2 p={b['p']}"]
    rows = header(*names)
    for hops in sorted(a["model"], key=int):
        cells = [hops]
        for d in (a, b) if b else (a,):
            cells += [_fixed_or_zero(d["simulated"].get(hops, 0), 5), f"{d['model'][hops]:.5f}"]
        rows.append(row(cells))
    return rows


def rng_model_edge_disjoint(folder):
    """Edge-disjoint paths over d per h, simulated and §7.1 model (rng-models)."""
    summary = load(folder)
    rows = header("h", "sim non-nbr", "Model 7.1", f"sim nbr (p={summary['params']['p']})",
                  "Model 7.1")
    for h, e in sorted(summary["edge_disjoint"]["per_h"].items(), key=lambda kv: int(kv[0])):
        rows.append(row([h, f"{e['simulated_non_neighbour']:.3f}",
                         f"{e['model_non_neighbour']:.3f}", f"{e['simulated_neighbour']:.3f}",
                         f"{e['model_neighbour']:.3f}"]))
    return rows


def rng_model_f3(folder):
    """The §F.3 table, model / simulated per p and h (rng-models)."""
    summary = load(folder)
    table = summary["edge_disjoint"]["f3_table"]
    hs = sorted((k for k in table[0] if re.fullmatch(r"h\d+", k)), key=lambda k: int(k[1:]))
    rows = header("p", *[f"h={k[1:]}" for k in hs])
    for r in table:
        rows.append(row([r["p"]] + [f"{r[k]['model']:.2f} / {r[k]['simulated']:.3f}"
                                    for k in hs]))
    return rows


# --- failures.md ----------------------------------------------------------------------------

# The default elements of scenarios/failover.cc (DefaultElements): on ZCube the core link
# O_0 -> E_1, the odd switch O_1 and GPU 2's access link; labels only, the numbers are read.
FAILOVER_EVENT_LABEL = {
    ("zcube", "core-link"): "core link O_0-E_1",
    ("zcube", "switch"): "odd switch O_1",
    ("zcube", "access-link"): "GPU 2's O side",
    ("roft", "core-link"): "leaf 0 - spine 0 link",
    ("roft", "switch"): "spine 1",
    ("roft", "access-link"): "GPU 2's link",
    ("rng", "core-link"): "router-router link ({element})",
    ("rng", "router"): "router ({element})",
    ("rng", "nic-port"): "server 2's NIC port",
}


def _median_max(d):
    return f"{d['median']:.0f} / {d['max']:.0f}"


def _with_reference(x, ref):
    """'x (ref)': a throughput and the same window without failures, when that run exists."""
    return f"{x:.0f}" + ("" if ref is None else f" ({ref:.0f})")


def _failover_events(folder, fault_domain):
    summary = load(folder)
    fabric = FABRIC_TITLE.get(summary["fabric"], summary["fabric"].upper())
    # ZCube's reaction is the controller's install, elsewhere the last routing update
    reaction = "install" if summary["fabric"] == "zcube" else "reaction"
    names = [f"event ({fabric}, `--pattern={summary['pattern']}`)", "pairs"]
    if fault_domain:
        names.append("§6.2 domain")
    names += ["stall", "recovered", "goodput dip", "lost", "unaffected lost (in queues)",
              "switch hops b/d/a", "unaffected Gb/s during", f"to / from {reaction}"]
    rows = header(*names)
    for e in summary["events"]:
        u = e["unaffected_gbps"]
        rec = e["recovered_before_repair"]
        lost_q = e["unaffected_lost_in_queue_packets"]
        hops = e["switch_hops"]
        label = FAILOVER_EVENT_LABEL.get((e["fabric"], e["kind"]), "{element}")
        cells = [label.format(element=e["element"]),
                 str(e["affected_pairs"])]
        if fault_domain:
            cells.append(str(e["fault_domain_pairs"]))
        cells += [
            _median_max(e["stall_us"]),
            f"{rec['pairs']} ({rec['fraction']:.2f})",
            _median_max(e["goodput_dip_us"]),
            str(e["lost_packets"]),
            f"{e['unaffected_lost_packets']}" + (f" ({lost_q})" if lost_q else ""),
            " / ".join(short(hops[k]) for k in ("before", "during", "after")),
            _with_reference(u["during"], u.get("during_no_failure")),
            _with_reference(u["to_reaction"], u.get("to_reaction_no_failure")) + " / " +
            _with_reference(u["from_reaction"], u.get("from_reaction_no_failure")),
        ]
        rows.append(row(cells))
    return rows


def failover_events(folder):
    """Per failure event: stall, recovery, loss, hops and unaffected throughput (failover)."""
    return _failover_events(folder, fault_domain=True)


def failover_events_no_domain(folder):
    """failover_events without the §6.2 fault-domain column (patterns other than AllReduce)."""
    return _failover_events(folder, fault_domain=False)


def failover_latency_sweep(folder):
    """ZCube's stall against the controller latency, next to ROFT's local rehash (failover)."""
    summary = load(folder)
    rows = header("controller latency (us)", "ZCube stall median / max (us)",
                  "ROFT local rehash median / max (us)")
    for s in summary.get("latency_sweep", []):
        rows.append(row([f"{s['controller_latency_us']:.0f}", _median_max(s["zcube"]),
                         _median_max(s["roft"])]))
    return rows


# --- flow.md --------------------------------------------------------------------------------


def flow_scale_tables(folder, preamble=True):
    """The tables.md flow-scale writes next to its summary.json, headings one level down (the
    page's sections are ###); without \p preamble from the first heading on."""
    load(folder)  # the run finished (tables.md is written before summary.json)
    lines = load(folder, "tables.md").rstrip("\n").split("\n")
    if not preamble:
        lines = lines[next(i for i, l in enumerate(lines) if l.startswith("#")):]
    return ["#" + l if l.startswith("### ") else l for l in lines]


# --- flow.md (speed) ------------------------------------------------------------------------


# The rows of bench-flow's default comparison (its --rows=all), in its order.
BENCH_FLOW_DEFAULT_ROWS = ["zcube:allreduce", "zcube:prefill", "roft:allreduce", "roft:prefill",
                           "rng:permutation"]


def bench_flow(folder):
    """The flow level's speed targets from one bench-flow run: the default comparison's CPU
    speedup, 100k random flows on ZCube(1024, 32), AllReduce on ZCube(16384, 128)."""
    summary = load(folder)
    rows = header("benchmark", "target", "measured", "met?")
    c = summary.get("comparison")
    if c:
        # Only the full default comparison with its packet side is judged against the target:
        # a --rows subset or a --flow-only run is refused (the table is then left as it is).
        if c.get("flow_only"):
            raise MissingResults(f"{folder}: bench-flow ran with --flow-only (no packet side)")
        if "rows" not in c:
            raise MissingResults(f"{folder}: bench-flow's summary does not record its rows "
                                 "(written before they were recorded; run it again)")
        if c["rows"] != BENCH_FLOW_DEFAULT_ROWS:
            raise MissingResults(f"{folder}: bench-flow ran a subset of the default comparison "
                                 f"(--rows={','.join(c['rows'])})")
        needed = ("cpu_packet_s", "cpu_flow_s", "cpu_speedup", "cpu_flow_first_s",
                  "cpu_speedup_first")
        lacking = [k for k in needed if c.get(k) is None]
        if lacking:
            raise MissingResults(f"{folder}: bench-flow's comparison has no "
                                 f"{', '.join(lacking)} (n/a: a flow time of zero)")
        rows.append(row([
            "default comparison, packet vs flow CPU (median of the flow side's runs; cold: "
            "first runs)", ">= 1000x",
            f"packet {c['cpu_packet_s']:.3f} s, flow {1e3 * c['cpu_flow_s']:.2f} ms: "
            f"x{c['cpu_speedup']:.0f}; cold {1e3 * c['cpu_flow_first_s']:.2f} ms: "
            f"x{c['cpu_speedup_first']:.0f}",
            "yes" if c["cpu_speedup"] >= 1000 else "no"]))
    r = summary.get("random_1024")
    if r:
        rows.append(row([
            f"{r['flows']} random flows on ZCube(1024, 32)", "< 5 s CPU",
            f"{r['cpu_s']:.2f} s CPU ({r['wall_s']:.1f} s wall), {r['recomputations']} "
            f"water-fillings, {r['rate_changes']} rate changes",
            "yes" if r["cpu_s"] < 5 and r["complete"] else "no"]))
    a = summary.get("allreduce_16k")
    if a:
        rows.append(row([
            f"AllReduce on ZCube({a['n']}, {a['k']}), {a['flows']} flows", "< 60 s, < 4 GiB",
            f"{a['cpu_s']:.2f} s CPU ({a['wall_s']:.1f} s wall), {a['peak_rss_mib']:.0f} MiB, "
            f"completion {a['completion_ms']:.4f} ms",
            "yes" if a["cpu_s"] < 60 and a["peak_rss_mib"] < 4096 and a["complete"] else "no"]))
    return with_notes(rows, machine_note([summary]))


# --- ocs-net.md -----------------------------------------------------------------------------


def ocs_reconfig_runs(folder):
    """Per workload, wiring and algorithm: stall, loss, circuits, completion (ocs-reconfig)."""
    summary = load(folder)
    rows = header("workload", "wiring", "algorithm", "stall us", "lost", "changed circuits",
                  "total us", "vs cross+exact", "unroutable flows")
    for r in summary["runs"]:
        if r["workload"] == "sweep":
            continue
        ph = r["phases"]
        rows.append(row([r["workload"], r["wiring"], r["algorithm"],
                         f"{sum(p['stall_us'] for p in ph):.0f}", str(r["lost_packets"]),
                         str(sum(p["changed_circuits"] for p in ph)),
                         f"{r['total_completion_us']:.1f}", f"{r['completion_vs_first']:.3f}",
                         str(sum(p["unroutable_flows"] for p in ph))]))
    return rows


def _duration(us):
    return f"{us / 1000:g} ms" if us >= 1000 else f"{us:g} us"


def ocs_reconfig_sweep(folder):
    """Total iteration time per switching delay and method, and over cross+exact (ocs-reconfig)."""
    summary = load(folder)
    methods = (("cross", "exact"), ("uniform", "greedy"), ("uniform", "bvn"))
    total = {(r["switching_us"], r["wiring"], r["algorithm"]): r["total_completion_us"]
             for r in summary["runs"] if r["workload"] == "sweep"}
    rows = header("switching", *[f"{w}+{a}" for w, a in methods])
    for sw in sorted({k[0] for k in total}):
        first = total[(sw,) + methods[0]]
        cells = [_duration(sw), f"{first:.1f}"]
        cells += [f"{total[(sw,) + m]:.1f} ({total[(sw,) + m] / first:.3f})" for m in methods[1:]]
        rows.append(row(cells))
    return rows


# --- lossless.md ----------------------------------------------------------------------------


def lossless_runs(folder):
    """Per run: packets, drops, pauses, incast FCT, victims, pause spread, deadlocks (lossless)."""
    summary = load(folder)
    rows = header("run", "sent", "delivered", "drops", "pause frames", "slowest incast FCT",
                  "victim slowdown", "notes")
    for r in summary["runs"]:
        notes = []
        if r["pause_episodes"]:
            notes.append(f"pause episodes {r['pause_episodes_first_half']} / "
                         f"{r['pause_episodes_second_half']} (1st / 2nd half), "
                         f"{r['paused_links']} links paused, longest "
                         f"{100 * r['max_paused_fraction']:.0f}% of the run "
                         f"({r['max_paused_link']})")
        note = ", ".join(notes)
        for d in r["deadlocks"]:
            note += "; deadlock: " + ", ".join(d["links"])
        if r["incomplete_flows"]:
            note += (f"; {r['incomplete_flows']} flows incomplete, {r['in_flight_at_stop']} "
                     "packets in flight at the stop")
        done = r["incomplete_flows"] == 0
        rows.append(row([
            f"{r['scenario']} {r['mode']} ({r['rate_control']})", str(r["sent_packets"]),
            str(r["delivered_packets"]),
            ", ".join(f"{k} {v}" for k, v in sorted(r["drops"].items())) or "0",
            str(r["pause_frames"]), f"{r['incast_fct_max_us']:.0f} us" if done else "-",
            f"{r['victim_slowdown_mean']:.2f}" if r["victim_slowdown_mean"] else "-", note]))
    return rows


# --- flow.md (packet vs flow) ---------------------------------------------------------------


def _kb(kb):
    return f"{kb / 1000:.2f} MB" if kb >= 1000 else f"{kb:.0f} KB"


def packet_vs_flow(folder):
    """Per fabric and pattern: FCT and completion ratios packet/flow, link utilization
    difference, and the packet level's measured causes (packet-vs-flow)."""
    summary = load(folder)
    rows = header("fabric", "pattern", "flows", "FCT packet/flow median", "p99",
                  "completion ratio", "largest link utilization difference",
                  "measured causes at packet level")
    for r in summary["runs"]:
        c = r["causes"]
        flows = len(r["flows"]) if isinstance(r["flows"], list) else r["flows"]
        causes = [f"{n} {reason} drops" for reason, n in sorted(c["drops"].items())]
        if c["retx_packets"]:
            causes.append(f"{c['retx_packets']} retransmissions")
        if c["timeouts"]:
            causes.append(f"{c['timeouts']} timeout" + ("s" if c["timeouts"] > 1 else ""))
        causes.append(f"CNPs on {c['flows_with_cnps']}/{flows} flows" if c["cnps"] else "no CNP")
        causes.append(f"queues up to {_kb(c['max_queue_kb'])}")
        causes.append(f"{r['shared_fabric_links']} shared fabric links")
        if not c["drops"]:
            causes.append("no drop")
        # Incomplete flows (at one level or both): no completion ratio (null since session 15),
        # the FCT ratios over the flows that completed at both, said in the row.
        incomplete = r.get("incomplete_flows", 0)
        if incomplete:
            causes.insert(0, f"{incomplete} of {flows} flows incomplete (FCT ratios over the "
                             "others)")
        ratio = r["completion_ratio"]
        rows.append(row([r["fabric"], r["pattern"], str(flows), f"{r['fct_ratio_median']:.3f}",
                         f"{r['fct_ratio_p99']:.3f}", "n/a" if ratio is None else f"{ratio:.3f}",
                         f"{r['util_abs_diff_max']:.3f}", ", ".join(causes)]))
    return rows


# --- roce.md --------------------------------------------------------------------------------

ROCE_ROWS = (("zcube", "permutation", "ZCube permutation"), ("zcube", "allreduce",
             "ZCube AllReduce"), ("roft", "permutation", "ROFT permutation"),
             ("roft", "allreduce", "ROFT AllReduce"))


def _spread(values):
    """'min-max' of per-round ratios ('—' without them: a summary from before the rounds)."""
    if not values:
        return "—"
    return f"{min(values):.2f}-{max(values):.2f}x ({len(values)})"


def roce_host_path(folder):
    """Hop-level packets per wall-second of each transport and host path (bench-packet-rate):
    medians over the rounds (--roce-rounds), the per-round roce/global spread beside them."""
    summary = load(folder)
    rows = header("fabric / pattern", "global hop/s", "UDP fast hop/s", "RoCE hop/s",
                  "RoCE (ipv4 host path) hop/s", "roce/global", "roce/global per round "
                  "(rounds)", "fast / ipv4 host path")
    for fabric, pattern, label in ROCE_ROWS:
        r = summary["roce"][fabric][pattern]
        rows.append(row([label, f"{r['global_udp_hop_packets_per_s']:.0f}",
                         f"{r['udp_hop_packets_per_s']:.0f}", f"{r['roce_hop_packets_per_s']:.0f}",
                         f"{r['roce_ipv4_hop_packets_per_s']:.0f}", f"{r['roce_vs_global']:.2f}x",
                         _spread(r.get("roce_vs_global_all")), f"{r['roce_vs_roce_ipv4']:.2f}x"]))
    return with_notes(rows, acceptance_note(summary) + machine_note([summary]))


def acceptance_note(summary):
    """The acceptance lines of issue #12 a bench-packet-rate run judged ("acceptance"), one
    italic line; nothing for a summary from before they were recorded."""
    a = summary.get("acceptance")
    if not a or not a.get("lines"):
        return []
    parts = []
    for key, line in sorted(a["lines"].items()):
        x, lo = line["measured"], line["min"]
        value = f"{x / 1e3:.1f}k (at least {lo / 1e3:g}k)" if lo >= 1000 else \
            f"{x:.2f}x (at least {lo:g}x)"
        verdict = ("met" if line["met"] else "NOT met") if line["applies"] else "n/a"
        parts.append(f"`{key}` {value}: {verdict}")
    where = "" if a["n"] == a["defined_at_n"] else \
        f"; defined at {a['defined_at_n']} GPUs, this run has {a['n']}: not applicable"
    return [f"*Acceptance of issue #12 in this run (medians{where}): " + "; ".join(parts) + ".*"]


def callgrind_instructions(text):
    """Instructions (Ir) of a callgrind.out file: its 'totals:' (or 'summary:') line."""
    for line in text.split("\n"):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise MissingResults("callgrind.out has no totals: line")


def roce_callgrind(folder):
    """Instructions per hop-level packet of the RoCE rows, every RoCE run of a row in one
    profile (bench-packet-rate under callgrind, toggle-collect on RunFabricRoce): the fast and
    the ipv4 host path, and the fast device where the bench ran it (roce_fast_device_*), in
    every round of the rows (rounds)."""
    summary = load(folder)
    ir = callgrind_instructions(load(folder, "callgrind.out"))
    runs = [("roce_hop_packets", "fast"), ("roce_ipv4_hop_packets", "ipv4")]
    first = summary["roce"][ROCE_ROWS[0][0]][ROCE_ROWS[0][1]]
    if "roce_fast_device_hop_packets" in first:
        runs.append(("roce_fast_device_hop_packets", "fast device"))
    # Since --roce-rounds each row's runs are repeated (rounds, default --repeat's 3) and the
    # profile holds every round: the hop packets count once per round.
    rounds = {summary["roce"][f][p].get("rounds", 1) for f, p, _ in ROCE_ROWS}
    if len(rounds) != 1:
        raise MissingResults(f"{folder}: the RoCE rows ran different numbers of rounds")
    rounds = rounds.pop()
    counts = [rounds * sum(summary["roce"][f][p][key] for f, p, _ in ROCE_ROWS)
              for key, _ in runs]
    label = " + ".join(name for _, name in runs)
    rows = header("profile", "instructions", f"hop packets ({label})", "per hop")
    what = f"four RoCE rows, {len(runs)} runs each" + (f", {rounds} rounds" if rounds > 1 else "")
    rows.append(row([what, f"{ir / 1e6:,.1f} M",
                     " + ".join(f"{c:,}" for c in counts), f"{ir / sum(counts) / 1e3:.2f}k"]))
    return rows


def udp_callgrind(folder):
    """Instructions per hop-level packet of the UDP fast variant (bench-packet-rate under
    callgrind, toggle-collect on RunFabricUdp: install, run and teardown of the one run)."""
    summary = load(folder)
    ir = callgrind_instructions(load(folder, "callgrind.out"))
    fast = summary["variants"]["fast"]
    rows = header("profile", "instructions", "hop packets", "events", "per hop")
    rows.append(row(["UDP fast variant, one run", f"{ir / 1e6:,.1f} M", f"{fast['hop_packets']:,}",
                     f"{fast['events']:,}", f"{ir / fast['hop_packets'] / 1e3:.2f}k"]))
    return rows


def dcqcn_profiles(folder):
    """Per DCQCN profile and line rate: the rate after the cuts and the time from the last cut
    until the rate is back at 50 / 90 / 100% of line rate, ms (dcqcn-profiles)."""
    summary = load(folder)
    rows = header("profile", "line", "after cuts (Gb/s)", "50%", "90%", "100%")
    for r in summary["runs"]:
        reach = [r["reach_us"][k] for k in ("50%", "90%", "100%")]
        rows.append(row([r["profile"], f"{r['line_gbps']:g}", f"{r['rate_after_cuts_gbps']:.3g}"] +
                        ["never" if t is None else f"{t / 1000:.3g}" for t in reach]))
    return rows


# --- scaling.md -----------------------------------------------------------------------------


def point_folder(folder, point):
    """Where a --scaling point's results are (fabric:pattern:... with '-' for ':')."""
    return os.path.join(folder, point.replace(":", "-"))


def scaling_table(folder, points):
    """The scaling table of every point, in the order given (bench-packet-rate --scaling),
    the machine's load during the points and the acceptance line of issue #12 under it."""
    missing = [p for p in points if not os.path.exists(
        os.path.join(point_folder(folder, p), "summary.json"))]
    if missing:
        raise MissingResults(f"{folder}: no summary.json for {len(missing)} of {len(points)} "
                             f"points (first: {missing[0]})")
    summaries = [load(point_folder(folder, p)) for p in points]
    return with_notes(scaling_rows(summaries),
                      machine_note(summaries, "point") + scaling_acceptance(summaries))


def link_device(summary):
    """The link device pair a bench-packet-rate summary ran with: p2p (ns-3's point-to-point
    pair, FabricNetwork's default) unless its ns-3 overrides name another."""
    return summary.get("ns3_overrides", {}).get("ns3::FabricNetwork::LinkDevice", "p2p")


def scaling_rows(summaries):
    """The scaling table from bench-packet-rate --scaling summaries, one per point; rates and
    build times are medians over the point's runs (--repeat, the runs column)."""
    rows = header("fabric", "GPUs", "pattern", "transport", "device", "flows", "sim us", "runs",
                  "hop packets", "hop packets/CPU s", "hop packets/wall s", "events/hop",
                  "peak pending events", "build s", "peak RSS MiB",
                  align=["---", "---:", "---", "---", "---"] + ["---:"] * 10)
    for s in summaries:
        runs = str(s.get("repeat", 1))
        if s["pattern"] == "none":
            rows.append(f"| {s['fabric']} | {s['n']} | (build only) | | {link_device(s)} | | | "
                        f"{runs} | | | | | | {s['build_s']:.1f} | {s['peak_rss_mib']:.0f} |")
            continue
        rows.append(row([
            s["fabric"], str(s["n"]), s["pattern"], s["transport"], link_device(s),
            str(s["flows"]),
            f"{s['sim_us']:.0f}", runs, str(s["hop_packets"]),
            f"{s['hop_packets_per_cpu_s']:.0f}", f"{s['hop_packets_per_s']:.0f}",
            f"{s['events_per_hop_packet']:.2f}", str(s["peak_pending_events"]),
            f"{s['build_s']:.1f}", f"{s['peak_rss_mib']:.0f}"]))
    return rows


def scaling_acceptance(summaries, small=128, large=1024):
    """Issue #12's line 'permutation at 1024 GPUs runs at least half the hop packet rate of the
    same permutation at 128 GPUs', per fabric and transport whose two points are there: the
    ratio of the medians per CPU second and per wall second, each judged (one italic line)."""
    perm = {(s["fabric"], s["transport"], link_device(s), s["n"]): s for s in summaries
            if s["pattern"] == "permutation"}
    parts = []
    for fab, tr, dev, n in perm:
        if n != small or (fab, tr, dev, large) not in perm:
            continue
        a, b = perm[(fab, tr, dev, small)], perm[(fab, tr, dev, large)]
        ratios = []
        for key in ("hop_packets_per_cpu_s", "hop_packets_per_s"):
            x = b[key] / a[key] if a[key] > 0 else 0.0
            ratios.append(f"{x:.3f} ({'met' if x >= 0.5 else 'NOT met'})")
        parts.append(f"{fab} {tr}{'' if dev == 'p2p' else ' ' + dev + ' device'} "
                     f"{' / '.join(ratios)}")
    if not parts:
        return []
    return [f"*Acceptance of issue #12, permutation at {large} GPUs at least half the hop packet "
            f"rate at {small} GPUs ({large}/{small}, medians per CPU second / per wall second): "
            + "; ".join(parts) + ".*"]
