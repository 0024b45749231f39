#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/doc-tables.py and its formatters (scripts/doctables), on the fixtures of
test/doc-tables/runs (no program is run):

- formatters: exact table text from tiny summaries (failover, latency sweep, scaling, callgrind,
  flow-scale headings);
- markers: only the text between them changes, --check reports a stale page (exit 1) and a fresh
  one (exit 0), missing results leave the table (and --strict fails), unknown or malformed
  markers are errors (exit 2);
- the registry: every table has a formatter that renders from the fixtures (the fixture page
  names every table), and every marker in doc/*.md and README.md names a registered table.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "doc-tables.py")
FIXTURES = os.path.join(ROOT, "test", "doc-tables", "runs")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from doctables import formats  # noqa: E402
from doctables.engine import find_tables, point_args, timed_env  # noqa: E402
from doctables.registry import SCALING_POINTS, TABLES, scaling_run_order  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def expect(got, want):
    assert got == want, "\n".join(["got:"] + got + ["want:"] + want)


def formatters():
    fo = os.path.join(FIXTURES, "failover-zcube-allreduce")
    expect(formats.failover_events(fo), [
        "| event (ZCube, `--pattern=allreduce`) | pairs | §6.2 domain | stall | recovered | "
        "goodput dip | lost | unaffected lost (in queues) | switch hops b/d/a | unaffected Gb/s "
        "during | to / from install |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        # with the no-failure reference run: (x) after each throughput, queue losses shown
        "| core link O_0-E_1 | 4 | 4 | 21 / 34 | 3 (0.75) | 40 / 60 | 12 | 5 (3) | 2 / 4 / 2 | "
        "390 (400) | 381 (400) / 395 (399) |",
        # without it: plain throughputs; 2.625 hops -> 2.62 (two decimals, zeros dropped)
        "| odd switch O_1 | 4 | 4 | 21 / 34 | 3 (0.75) | 40 / 60 | 12 | 0 | 2 / 2.62 / 2 | 390 | "
        "381 / 395 |"])
    prefill = formats.failover_events_no_domain(
        os.path.join(FIXTURES, "failover-zcube-prefill"))
    assert "§6.2" not in prefill[0], prefill[0]
    assert prefill[0].startswith("| event (ZCube, `--pattern=prefill`)"), prefill[0]
    expect(prefill[2:], ["| GPU 2's O side | 4 | 21 / 34 | 3 (0.75) | 40 / 60 | 12 | 0 | "
                         "2 / 3 / 2 | 390 | 381 / 395 |"])
    expect(formats.failover_latency_sweep(fo)[2:], ["| 10 | 21 / 23 | 31 / 62 |",
                                                    "| 1000 | 1012 / 1014 | 31 / 62 |"])
    # callgrind: Ir of the totals line over both host paths' hop packets (4 rows, 1000-4000 each)
    expect(formats.roce_callgrind(os.path.join(FIXTURES, "callgrind-roce"))[2:],
           ["| four RoCE rows, 2 runs each | 210.0 M | 10,000 + 10,000 | 10.50k |"])
    # the same profile made by 3 rounds of the rows: 3x the instructions for 3x the hop packets
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(FIXTURES, "callgrind-roce")
        with open(os.path.join(src, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
        for fabric in summary["roce"].values():
            for r in fabric.values():
                r["rounds"] = 3
        with open(os.path.join(d, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(summary, f)
        with open(os.path.join(src, "callgrind.out"), encoding="utf-8") as f:
            text = f.read()
        ir = formats.callgrind_instructions(text)
        with open(os.path.join(d, "callgrind.out"), "w", encoding="utf-8") as f:
            f.write(text.replace(str(ir), str(3 * ir)))
        expect(formats.roce_callgrind(d)[2:],
               ["| four RoCE rows, 2 runs each, 3 rounds | 630.0 M | 30,000 + 30,000 | 10.50k |"])
    # UDP callgrind: Ir of the totals line over the fast variant's hop packets
    expect(formats.udp_callgrind(os.path.join(FIXTURES, "callgrind-udp"))[2:],
           ["| UDP fast variant, one run | 150.0 M | 10,000 | 25,000 | 15.00k |"])
    rows = formats.scaling_table(os.path.join(FIXTURES, "scaling"), SCALING_POINTS)
    assert len(rows) == 2 + len(SCALING_POINTS) + 2, len(rows)
    expect(rows[2:3], ["| zcube | 128 | permutation | udp | p2p | 10 | 20 | 9 | 1000 | 5000 | 4000 | "
                       "2.50 | 100 | 0.2 | 30 |"])
    expect(rows[-3:-2], ["| zcube | 16384 | (build only) | | p2p | | | 1 | | | | | | 26.2 | 56 |"])
    # under the table: the load of the two points that record it, and #12's 1024/128 line, each
    # ratio judged (the ZCube RoCE fixture at 1024 GPUs: 2400 per CPU second, under half)
    # (the fast-device fixtures are the p2p ones with both sizes' rates times 1.3)
    expect(rows[-2:], ["", "*Machine during the 35 points: 1-minute load average 0.05-0.21 at "
                       "the starts, 0.90-1.00 at the ends (2 CPUs); CPU time 97-99% of wall "
                       "time; 31 without a record.* *Acceptance of issue #12, permutation at "
                       "1024 GPUs at least half the hop packet rate at 128 GPUs (1024/128, "
                       "medians per CPU second / per wall second): zcube udp 1.001 (met) / 1.001 "
                       "(met); zcube roce 0.480 (NOT met) / 1.001 (met); roft udp 1.001 (met) / "
                       "1.001 (met); roft roce 1.001 (met) / 1.001 (met); zcube udp fast device "
                       "1.001 (met) / 1.001 (met); zcube roce fast device 0.480 (NOT met) / 1.001 "
                       "(met); roft udp fast device 1.001 (met) / 1.001 (met); roft roce fast "
                       "device 1.001 (met) / 1.001 (met).*"])
    # the RoCE rows: medians, the per-round roce/global spread where recorded, the load
    roce = formats.roce_host_path(os.path.join(FIXTURES, "bench-packet-rate-roce"))
    expect(roce[2:4], ["| ZCube permutation | 1000 | 3001 | 3500 | 2500 | 3.50x | 2.95-3.90x (5) "
                       "| 1.40x |",
                       "| ZCube AllReduce | 1001 | 3002 | 3501 | 2501 | 3.50x | — | 1.40x |"])
    expect(roce[-2:], ["", "*Acceptance of issue #12 in this run (medians): "
                       "`roce_hop_packets_per_s_zcube_permutation` 703.5k (at least 700k): met; "
                       "`roce_vs_global_zcube_permutation` 3.50x (at least 7x): NOT met; "
                       "`udp_fast_vs_global` 6.20x (at least 6x): met.* *Machine during the run: "
                       "1-minute load average 0.12 at the start, 1.04 at the end (2 CPUs); CPU "
                       "time 97% of wall time.*"])
    # at another --n the lines are reported, not judged
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(FIXTURES, "bench-packet-rate-roce", "summary.json"),
                  encoding="utf-8") as f:
            summary = json.load(f)
        summary["acceptance"]["n"] = 16
        for line in summary["acceptance"]["lines"].values():
            line.update(applies=False, met=False)
        note = formats.acceptance_note(summary)[0]
        assert "this run has 16: not applicable" in note and note.count(": n/a") == 3, note
        assert formats.acceptance_note({"n": 1}) == []
    assert formats.machine_note([{"n": 1}]) == [], "a summary without a record got a note"
    rec = {"loadavg_start": [0.2, 0, 0], "loadavg_end": [1.0, 0, 0], "cpu_per_wall": 1.0,
           "cpus_online": 2}
    busy = dict(rec, loadavg_start=[1.7, 0, 0])
    # about 1: the previous run of the same chain of single-threaded timed runs, not flagged
    assert "under load" not in formats.machine_note([{"machine": dict(rec, loadavg_start=[1.1, 0, 0])}])[0]
    assert "under load" not in formats.machine_note([{"machine": rec}])[0]
    note = formats.machine_note([{"machine": rec}, {"machine": busy}], "point")[0]
    assert "**measured under load** (1 of 2 started above 1.5)" in note, note
    assert "huge pages" not in note, note
    # the malloc page set-up the timed runs record (GLIBC_TUNABLES, engine.TIMED_ENV)
    huge = dict(rec, malloc_hugepages=True, glibc_tunables="glibc.malloc.hugetlb=1")
    assert "; malloc on huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)" in \
        formats.machine_note([{"machine": huge}, {"machine": huge}])[0]
    assert "; malloc on huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) in 1 of 2" in \
        formats.machine_note([{"machine": huge}, {"machine": rec}])[0]
    assert timed_env({})["GLIBC_TUNABLES"] == "glibc.malloc.hugetlb=1"
    assert timed_env({"GLIBC_TUNABLES": "glibc.malloc.arena_max=1", "X": "y"}) == {
        "GLIBC_TUNABLES": "glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1", "X": "y"}
    # the sizes of one kind run back to back; the order within a size and kind is kept
    assert scaling_run_order(["roft:permutation:udp:1024:32:20:5", "zcube:ring:roce:128:16:20:9",
                              "roft:permutation:udp:128:16:20:9", "roft:hd:roce:128:16:20:9"]) == [
        "roft:hd:roce:128:16:20:9", "roft:permutation:udp:128:16:20:9",
        "roft:permutation:udp:1024:32:20:5", "zcube:ring:roce:128:16:20:9"]
    # a point's runs field becomes --repeat (the flags its summary must record)
    assert point_args("roft:hd:roce:128:16:20:9") == [
        "--scaling=roft:hd:roce", "--n=128", "--k=16", "--sim-us=20", "--repeat=9"]
    assert point_args("roft:hd:roce:128:16:20")[-1] == "--sim-us=20"
    # a device field other than p2p becomes the FabricNetwork override its summary records
    assert point_args("zcube:permutation:udp:128:16:20:9:fast")[-2:] == [
        "--repeat=9", "--ns3::FabricNetwork::LinkDevice=fast"]
    assert point_args("zcube:permutation:udp:128:16:20:9:p2p")[-1] == "--repeat=9"
    try:
        formats.scaling_table(os.path.join(FIXTURES, "scaling"), SCALING_POINTS + ["x:y:z:1:1:1"])
        raise AssertionError("a missing scaling point went unnoticed")
    except formats.MissingResults as e:
        assert "1 of 36" in str(e), e
    oc = os.path.join(FIXTURES, "ocs-reconfig")
    # sums over phases; the sweep's ratios are over cross+exact at the same switching delay
    expect(formats.ocs_reconfig_runs(oc)[3:], ["| jobs | uniform | bvn | 140 | 3 | 36 | 776.7 | "
                                               "0.805 | 60 |"])
    expect(formats.ocs_reconfig_sweep(oc)[2:],
           ["| 10 us | 292.0 | 302.5 (1.036) | 337.2 (1.155) |",
            "| 1 ms | 3262.0 | 3272.5 (1.003) | 3307.2 (1.014) |"])
    ll = formats.lossless_runs(os.path.join(FIXTURES, "lossless"))
    expect(ll[3:4], ["| incast lossy (none) | 2359 | 2009 | queue-overflow 350 | 0 | 412 us | "
                     "1.18 |  |"])
    expect(ll[-1:], ["| cyclic lossless (none) | 285 | 25 | 0 | 104 | - | - | pause episodes 8 / "
                     "0 (1st / 2nd half), 8 links paused, longest 99% of the run (gpu0->R0); "
                     "deadlock: R0->R1, R1->R2, R2->R3, R3->R0; 4 flows incomplete, 260 packets "
                     "in flight at the stop |"])
    # bins a routing never used stay empty
    expect(formats.rng_path_hist(os.path.join(FIXTURES, "rng-vs-fattree"))[-1:],
           ["| fat tree ecmp | | | 1.000 | | |"])
    expect(formats.zcube_bench_variants(os.path.join(FIXTURES, "bench-packet-rate"))[2:3],
           ["| fast (device-level switch forwarding, our routing) | 111k | 287k | 3.74x |"])
    expect(formats.packet_vs_flow(os.path.join(FIXTURES, "packet-vs-flow"))[3:],
           ["| roft | permutation | 8 | 1.000 | 16.724 | 16.724 | 0.559 | 184 queue-overflow "
            "drops, 187 retransmissions, 1 timeout, no CNP, queues up to 19 KB, 6 shared fabric "
            "links |"])
    # A run with incomplete flows (ComparePacketAndFlow: completion_ratio null): "n/a", and the
    # count said first in the causes.
    with open(os.path.join(FIXTURES, "packet-vs-flow", "summary.json"), encoding="utf-8") as f:
        pvf = json.load(f)
    pvf["runs"] = [dict(pvf["runs"][1], completion_ratio=None, incomplete_flows=2)]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(pvf, f)
        expect(formats.packet_vs_flow(d)[2:],
               ["| roft | permutation | 8 | 1.000 | 16.724 | n/a | 0.559 | 2 of 8 flows "
                "incomplete (FCT ratios over the others), 184 queue-overflow drops, 187 "
                "retransmissions, 1 timeout, no CNP, queues up to 19 KB, 6 shared fabric links |"])
    bf = formats.bench_flow(os.path.join(FIXTURES, "bench-flow"))
    expect(bf[2:3], ["| default comparison, packet vs flow CPU (median of the flow side's runs; "
                     "cold: first runs) | >= 1000x | packet 1.157 s, flow 1.42 ms: x815; cold "
                     "2.17 ms: x533 | no |"])  # met? follows the numbers
    # Not the default comparison, or no packet side: refused, not judged against the target.
    with open(os.path.join(FIXTURES, "bench-flow", "summary.json"), encoding="utf-8") as f:
        full = json.load(f)
    for change, why in (
            ({"rows": ["zcube:allreduce"], "subset": True}, "subset"),
            ({"rows": list(reversed(full["comparison"]["rows"]))}, "subset"),
            ({"flow_only": True, "cpu_packet_s": None, "cpu_speedup": None}, "--flow-only"),
            ({"rows": None}, "does not record its rows"),
            ({"cpu_speedup": None}, "cpu_speedup"),  # n/a: the flow side took 0 s
    ):
        with tempfile.TemporaryDirectory() as d:
            c = dict(full["comparison"], **change)
            if c.get("rows") is None:
                del c["rows"]
            for k in [k for k, v in c.items() if v is None and k != "cpu_speedup"]:
                del c[k]
            with open(os.path.join(d, "summary.json"), "w", encoding="utf-8") as f:
                json.dump(dict(full, comparison=c), f)
            try:
                formats.bench_flow(d)
                raise AssertionError(f"bench-flow summary with {change} was judged")
            except formats.MissingResults as e:
                assert why in str(e), (why, str(e))
    dq = formats.dcqcn_profiles(os.path.join(FIXTURES, "dcqcn-profiles"))
    expect(dq[3:4], ["| paper | 100 | 12.5 | 19.4 | never | never |"])  # null: not reached
    full_b = formats.flow_scale_tables(os.path.join(FIXTURES, "flow-scale-full-b"),
                                       preamble=False)
    expect(full_b[:1], ["#### B. fixture"])
    expect(formats.flow_scale_tables(os.path.join(FIXTURES, "flow-scale"))[3:4],
           ["#### A. fixture"])


def markers():
    fo = os.path.join(FIXTURES, "failover-zcube-allreduce", "summary.json")
    page = ("before\n<!-- table:failover-latency-sweep -->\nstale\n<!-- /table -->\nmiddle\n"
            "<!-- table:rng-blast -->\n<!-- /table -->\n"
            "<!-- table:roce-host-path -->\nkept\n\n*Table `roce-host-path` old note*\n"
            "<!-- /table -->\nafter\n")
    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "results")
        os.makedirs(os.path.join(results, "failover-zcube-allreduce"))
        os.makedirs(os.path.join(results, "rng-vs-fattree"))
        for src, dst in ((fo, "failover-zcube-allreduce"), (os.path.join(
                ROOT, "test", "golden", "rng-vs-fattree-small", "summary.json"),
                "rng-vs-fattree")):
            with open(src, encoding="utf-8") as f:
                summary = json.load(f)
            if dst == "rng-vs-fattree":
                # the golden run's numbers stand in for the registry's run (its flags: none)
                summary["program_flags"] = {}
            with open(os.path.join(results, dst, "summary.json"), "w", encoding="utf-8") as g:
                json.dump(summary, g)
        doc = os.path.join(d, "page.md")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(page)
        assert run("--from", results, "--check", doc).returncode == 1, "stale page not reported"
        r = run("--from", results, doc)
        assert r.returncode == 0, r.stderr
        assert "bench-packet-rate-roce/summary.json not found" in r.stderr, r.stderr
        assert run("--from", results, "--strict", doc).returncode == 1, "--strict passes"
        assert run("--from", results, "--check", doc).returncode == 0, "fresh page reported"
        text = open(doc, encoding="utf-8").read()
        for kept in ("before\n<!-- table:failover", "-->\nmiddle\n", "-->\nkept\n\n*Table `roce",
                     "<!-- /table -->\nafter\n"):
            assert kept in text, kept
        assert "stale" not in text and "old note" not in text, text
        assert "| 1000 | 1012 / 1014 | 31 / 62 |\n\n*Table `failover-latency-sweep`" in text
        assert sum(1 for l in text.split("\n") if l.startswith("| router | ") or
                   l.startswith("| 1% links | ")) == 4, text
        for bad, why in (("<!-- table:no-such-table -->\n<!-- /table -->\n", "unknown table"),
                         ("<!-- table:rng-blast results/x -->\n<!-- /table -->\n", "malformed"),
                         ("<!-- table:rng-blast -->\n| a |\n", "no closing")):
            with open(doc, "w", encoding="utf-8") as f:
                f.write(bad)
            r = run("--from", results, doc)
            assert r.returncode == 2 and why in r.stderr, (bad, r.returncode, r.stderr)
        assert run("--only", "nope", doc).returncode == 2
        # Results made by another command line (or before summaries recorded it) fill no table.
        path = os.path.join(results, "rng-vs-fattree", "summary.json")
        for flags, why in (({"n": "8"}, "was made with --n=8, the table needs (none)"),
                           (None, "does not record the flags that made it")):
            summary = json.load(open(path, encoding="utf-8"))
            summary.pop("program_flags", None)
            if flags is not None:
                summary["program_flags"] = flags
            with open(path, "w", encoding="utf-8") as g:
                json.dump(summary, g)
            with open(doc, "w", encoding="utf-8") as f:
                f.write("<!-- table:rng-blast -->\nkept\n<!-- /table -->\n")
            r = run("--from", results, doc)
            assert r.returncode == 0 and why in r.stderr, (why, r.stderr)
            assert "kept" in open(doc, encoding="utf-8").read()
            assert run("--from", results, "--strict", doc).returncode == 1
        # A --ns3:: override or a global value counts too.
        summary["program_flags"] = {}
        summary["ns3_overrides"] = {"RngRun": "2"}
        with open(path, "w", encoding="utf-8") as g:
            json.dump(summary, g)
        r = run("--from", results, doc)
        assert "was made with --RngRun=2" in r.stderr, r.stderr
        assert run("--run", d, "--include", "fast", doc).returncode == 2


def run_mode():
    """--run calls BIN_DIR/<program> with the registry's flags and --out=<results>/<run>, then
    rewrites; a failing program rewrites nothing (exit 1). Stand-in programs, no simulation."""
    fixture = os.path.join(FIXTURES, "dcqcn-profiles", "summary.json")
    with tempfile.TemporaryDirectory() as d:
        bin_dir = os.path.join(d, "bin")
        os.makedirs(bin_dir)
        prog = os.path.join(bin_dir, "dcqcn-profiles")
        with open(prog, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable}\nimport os, shutil, sys\n"
                    "out = [a[6:] for a in sys.argv if a.startswith('--out=')][0]\n"
                    "os.makedirs(out, exist_ok=True)\n"
                    f"shutil.copy({fixture!r}, os.path.join(out, 'summary.json'))\n")
        os.chmod(prog, 0o755)
        doc = os.path.join(d, "page.md")
        with open(doc, "w", encoding="utf-8") as f:
            f.write("<!-- table:dcqcn-profiles -->\n<!-- /table -->\n")
        results = os.path.join(d, "results")
        r = run("--run", bin_dir, "--from", results, "--only", "dcqcn-profiles", doc)
        assert r.returncode == 0, r.stderr
        assert "| paper | 100 | 12.5 | 19.4 | never | never |" in open(doc).read()
        assert os.path.exists(os.path.join(results, "dcqcn-profiles", "summary.json"))
        with open(prog, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable}\nimport sys\nsys.exit(3)\n")
        with open(doc, "w", encoding="utf-8") as f:
            f.write("<!-- table:dcqcn-profiles -->\nold\n<!-- /table -->\n")
        r = run("--run", bin_dir, "--from", results, "--only", "dcqcn-profiles", doc)
        assert r.returncode == 1 and "exit 3" in r.stderr, (r.returncode, r.stderr)
        assert "old" in open(doc).read(), "a failed run rewrote the page"
        # timed runs are skipped unless included
        r = run("--run", bin_dir, "--from", results, "--only", "roce-host-path", doc)
        assert r.returncode == 0 and "not run (timed" in r.stderr, r.stderr
    load_check()


def load_check():
    """Timed runs are refused on a loaded machine (1-minute load average above 0.5) unless
    --allow-load; the load is read from AIFABRIC_LOADAVG_FILE here (a stand-in /proc/loadavg).
    Stand-in bench-packet-rate, no simulation."""
    fixture = os.path.join(FIXTURES, "bench-packet-rate-roce", "summary.json")
    with tempfile.TemporaryDirectory() as d:
        bin_dir = os.path.join(d, "bin")
        os.makedirs(bin_dir)
        prog = os.path.join(bin_dir, "bench-packet-rate")
        ran = os.path.join(d, "ran")
        with open(prog, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable}\nimport os, shutil, sys\n"
                    "out = [a[6:] for a in sys.argv if a.startswith('--out=')][0]\n"
                    "os.makedirs(out, exist_ok=True)\n"
                    f"open({ran!r}, 'a').write('x')\n"
                    f"shutil.copy({fixture!r}, os.path.join(out, 'summary.json'))\n")
        os.chmod(prog, 0o755)
        doc = os.path.join(d, "page.md")
        results = os.path.join(d, "results")
        loadavg = os.path.join(d, "loadavg")
        args = ["--run", bin_dir, "--from", results, "--only", "roce-host-path", "--include",
                "timed", doc]

        def timed(load, *extra):
            with open(loadavg, "w", encoding="utf-8") as f:
                f.write(f"{load} 0.50 0.40 1/100 12345\n")
            with open(doc, "w", encoding="utf-8") as f:
                f.write("<!-- table:roce-host-path -->\nold\n<!-- /table -->\n")
            env = dict(os.environ, AIFABRIC_LOADAVG_FILE=loadavg)
            return subprocess.run([sys.executable, SCRIPT, *extra, *args], capture_output=True,
                                  text=True, env=env)

        r = timed("1.75")
        assert r.returncode == 2, (r.returncode, r.stderr)
        assert "error: timed runs bench-packet-rate-roce: the 1-minute load average is 1.75" in \
            r.stderr and "--allow-load" in r.stderr, r.stderr
        assert not os.path.exists(ran) and "old" in open(doc).read(), "ran on a loaded machine"
        r = timed("1.75", "--allow-load")
        assert r.returncode == 0 and "WARNING: timed runs" in r.stderr, (r.returncode, r.stderr)
        assert os.path.exists(ran) and "| 2.95-3.90x (5) |" in open(doc).read()
        os.remove(ran)
        r = timed("0.31")  # idle: no warning
        # idle: no warning, only the note that the load was read from the stand-in file
        assert r.returncode == 0 and "WARNING" not in r.stderr and "error" not in r.stderr \
            and "AIFABRIC_LOADAVG_FILE" in r.stderr, r.stderr
        assert os.path.exists(ran)
        # scaling-table.py: the same refusal before any point runs, and bad points (exit 2)
        os.remove(ran)
        table = os.path.join(ROOT, "scripts", "scaling-table.py")
        env = dict(os.environ, AIFABRIC_LOADAVG_FILE=loadavg)
        with open(loadavg, "w", encoding="utf-8") as f:
            f.write("0.90 0.50 0.40 1/100 12345\n")
        point = "zcube:permutation:udp:16:4:2:3"
        r = subprocess.run([sys.executable, table, bin_dir, os.path.join(d, "s"), point],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "load average is 0.90" in r.stderr, r.stderr
        assert not os.path.exists(ran)
        for bad in ("zcube:permutation:udp:16:4", "zcube:permutation:udp:16:4:2:3:9",
                    "zcube:permutation:udp:16:4::3"):
            r = subprocess.run([sys.executable, table, "--allow-load", bin_dir, d, bad],
                               capture_output=True, text=True, env=env)
            assert r.returncode == 2 and f"error: point '{bad}'" in r.stderr, (bad, r.stderr)


def registry():
    with open(os.path.join(ROOT, "test", "doc-tables", "page.md"), encoding="utf-8") as f:
        fixture = {name for name, _, _ in find_tables(f.read())}
    assert fixture == set(TABLES), f"fixture page lacks {set(TABLES) - fixture}"
    pages = [os.path.join(ROOT, "doc", p) for p in os.listdir(os.path.join(ROOT, "doc"))
             if p.endswith(".md")] + [os.path.join(ROOT, "README.md")]
    used = set()
    for p in pages:
        with open(p, encoding="utf-8") as f:
            used |= {name for name, _, _ in find_tables(f.read())}  # raises on a bad marker
    assert used == set(TABLES), f"registered but in no page: {set(TABLES) - used}"


def main():
    formatters()
    markers()
    run_mode()
    registry()
    print("doc-tables: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
