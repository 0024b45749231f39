# SPDX-License-Identifier: GPL-2.0-only
"""Marked tables in the doc pages: find them, render them from results, run the programs.

A table lives between two markers in a doc page; the script rewrites only what is between them:

    <!-- table:failover-latency-sweep -->
    | ... generated ... |

    *Generated ... (the command that regenerates it and the machine it assumes)*
    <!-- /table -->
"""
import json
import os
import re
import subprocess
import sys
import time

from .formats import MissingResults, StaleResults, point_folder
from .registry import RUNS, TABLES, scaling_run_order

MARKER = re.compile(r"^<!-- table:(?P<name>[a-z0-9-]+) -->\s*$")
END = "<!-- /table -->"


class DocError(Exception):
    """A malformed page or a marker the registry does not know."""


def find_tables(text):
    """(name, first line after the marker, line of the end marker) of every marked table."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            if lines[i].startswith("<!-- table:"):
                raise DocError(f"line {i + 1}: malformed marker '{lines[i]}'; expected "
                               "'<!-- table:NAME -->'")
            i += 1
            continue
        if m["name"] not in TABLES:
            raise DocError(f"line {i + 1}: unknown table '{m['name']}'; valid: "
                           f"{', '.join(sorted(TABLES))}")
        j = i + 1
        while j < len(lines) and lines[j].strip() != END:
            if MARKER.match(lines[j]):
                break
            j += 1
        if j == len(lines) or lines[j].strip() != END:
            raise DocError(f"line {i + 1}: table:{m['name']} has no closing {END}")
        found.append((m["name"], i + 1, j))
        i = j + 1
    return found


def regenerate_hint(name):
    run = RUNS[TABLES[name].run]
    include = "" if run.cost == "cheap" else f" --include {run.cost}"
    return (f"*Table `{name}` of `scripts/doc-tables.py`: from `results/"
            f"{TABLES[name].run}/` of {run.command()}; regenerate with `python3 "
            f"scripts/doc-tables.py --run build/bin --only {name}{include}` on "
            f"{run.machine}.*")


def expected_flags(args):
    """(program flags, ns-3 overrides) a command line's arguments give, as a summary records
    them (FabricResults::WriteSummary: "program_flags", "ns3_overrides"; --out is not kept)."""
    flags, ns3 = {}, {}
    for a in args:
        name, eq, value = a[2:].partition("=")
        if name == "out":
            continue
        target = ns3 if name.startswith("ns3::") or name[:1].isupper() else flags
        target[name] = value if eq else "true"
    return flags, ns3


def check_made_by(folder, args):
    """Raise StaleResults unless folder/summary.json records exactly the flags \\p args give:
    a results folder made by another command line (or before summaries recorded theirs)
    must not fill a table that names this one."""
    path = os.path.join(folder, "summary.json")
    if not os.path.exists(path):
        return  # the formatter reports what is missing
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    want, want_ns3 = expected_flags(args)
    if "program_flags" not in summary:
        raise StaleResults(f"{path} does not record the flags that made it (made before "
                           "summaries recorded them); run again")
    got, got_ns3 = summary["program_flags"], summary.get("ns3_overrides", {})
    if got != want or got_ns3 != want_ns3:
        show = lambda f, n: " ".join([f"--{k}={v}" for k, v in sorted(f.items())] +
                                     [f"--{k}={v}" for k, v in sorted(n.items())]) or "(none)"
        raise StaleResults(f"{path} was made with {show(got, got_ns3)}, the table needs "
                           f"{show(want, want_ns3)}; run again")


def render(name, results):
    """The lines between the markers of table \\p name, from the results folder \\p results
    (which must have been made by the registry's command line)."""
    run = RUNS[TABLES[name].run]
    folder = os.path.join(results, TABLES[name].run)
    for point in run.points:
        check_made_by(point_folder(folder, point), point_args(point))
    if not run.points:
        check_made_by(folder, run.args)
    return TABLES[name].formatter(folder) + ["", regenerate_hint(name)]


def rewrite(text, results, problems, only=None):
    """\\p text with every marked table (of \\p only, if given) rendered from \\p results; a
    table whose results are missing is kept as it is and reported in \\p problems."""
    lines = text.split("\n")
    out = []
    last = 0
    for name, begin, end in find_tables(text):
        out.extend(lines[last:begin])
        body = lines[begin:end]
        if only is None or name in only:
            try:
                body = render(name, results)
            except MissingResults as e:
                problems.append(f"table:{name}: {e}; left as it is")
                # the table stays, its note follows the registry
                if body and body[-1].startswith(f"*Table `{name}` "):
                    body = body[:-1] + [regenerate_hint(name)]
        out.extend(body)
        last = end
    out.extend(lines[last:])
    return "\n".join(out)


# Timed programs run with malloc on transparent huge pages (glibc reads GLIBC_TUNABLES at
# process start; the summaries record it, MachineLoadProbe): at 1024 GPUs much of a hop's time
# is memory stalls over ~100 MiB of small objects, to which 4 KiB pages add TLB misses; the
# measured gain varied from -5% to +27% (doc/scaling.md, "Huge pages"). The same setting a
# user gets by exporting it.
TIMED_ENV = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}


def timed_env(environ=None):
    """The environment of a timed run: \p environ (default os.environ) with TIMED_ENV's
    tunable added to any GLIBC_TUNABLES already set (a later setting of a name wins)."""
    env = dict(os.environ if environ is None else environ)
    have = env.get("GLIBC_TUNABLES")
    add = TIMED_ENV["GLIBC_TUNABLES"]
    env["GLIBC_TUNABLES"] = f"{have}:{add}" if have else add
    return env


def run_program(bin_dir, results, run_name):
    """Run one registry entry into results/<run_name>/ (an argument vector, never a shell);
    False when a program failed (its stderr is shown)."""
    run = RUNS[run_name]
    folder = os.path.join(results, run_name)
    if run.points:
        return all(run_point(bin_dir, folder, p, fresh=True) is not None
                   for p in scaling_run_order(run.points))
    os.makedirs(folder, exist_ok=True)
    argv = [os.path.join(bin_dir, run.program)] + run.args + [f"--out={folder}"]
    if run.valgrind:
        argv = ["valgrind"] + run.valgrind + [
            "--callgrind-out-file=" + os.path.join(folder, "callgrind.out")] + argv
    print(f"{run_name}: {' '.join(argv)}", file=sys.stderr)
    env = timed_env() if run.cost == "timed" else None
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=env)
    if p.returncode != 0:
        print(f"{run_name}: exit {p.returncode}: {p.stderr.strip()[-500:]}", file=sys.stderr)
        return False
    return True


def point_args(point):
    """The flags of one --scaling point (fabric:pattern:transport:n:k:sim_us[:runs[:device]]),
    --out aside; runs becomes --repeat (median of that many runs in the process), a device
    other than p2p (ns-3's point-to-point pair, the default) --ns3::FabricNetwork::LinkDevice."""
    fields = point.split(":")
    fab, pat, tr, n, k, us = fields[:6]
    args = [f"--scaling={fab}:{pat}:{tr}", f"--n={n}", f"--k={k}", f"--sim-us={us}"]
    args += [f"--repeat={r}" for r in fields[6:7]]
    return args + [f"--ns3::FabricNetwork::LinkDevice={d}" for d in fields[7:8] if d != "p2p"]


def valid_point(point):
    """Whether \\p point has the form fabric:pattern:transport:n:k:sim_us[:runs[:device]] (the
    program checks the values; a device is p2p or fast)."""
    fields = point.split(":")
    return (len(fields) in (6, 7, 8) and all(f for f in fields)
            and (len(fields) < 8 or fields[7] in ("p2p", "fast")))


# Above this 1-minute load average a timed run measures the other jobs as much as the code.
IDLE_LOAD = 0.5


def load_average():
    """The 1-minute load average (/proc/loadavg, or the file AIFABRIC_LOADAVG_FILE names: the
    tests' stand-in), or None where it cannot be read."""
    path = os.environ.get("AIFABRIC_LOADAVG_FILE", "/proc/loadavg")
    if path != "/proc/loadavg":
        print(f"note: load average read from {path} (AIFABRIC_LOADAVG_FILE), not /proc/loadavg",
              file=sys.stderr)
    try:
        with open(path, encoding="utf-8") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def check_idle(allow_load, what):
    """Before timed runs (\\p what): False, with an error, when the 1-minute load average is
    above IDLE_LOAD, unless \\p allow_load (then a loud warning, and True)."""
    load = load_average()
    if load is None:
        print(f"warning: {what}: the load average is unknown (no /proc/loadavg); timed results "
              "are only meaningful on an idle machine", file=sys.stderr)
        return True
    if load <= IDLE_LOAD:
        return True
    msg = (f"{what}: the 1-minute load average is {load:.2f} (above {IDLE_LOAD}): wall-clock "
           "rates measured now measure the other jobs as much as the code")
    if allow_load:
        print(f"WARNING: {msg}; running anyway (--allow-load): the summaries record the load "
              "and the tables print it", file=sys.stderr)
        return True
    print(f"error: {msg}; wait for an idle machine or pass --allow-load", file=sys.stderr)
    return False


def run_point(bin_dir, folder, point, fresh=False):
    """One bench-packet-rate --scaling point (fabric:pattern:transport:n:k:sim_us) in its own
    process, so each peak RSS is that point's; its summary, or None if the program failed.
    Without \\p fresh a point whose summary.json exists is not run again."""
    out = point_folder(folder, point)
    summary = os.path.join(out, "summary.json")
    if fresh and os.path.exists(summary):
        os.remove(summary)
    if not os.path.exists(summary):
        argv = [os.path.join(bin_dir, "bench-packet-rate")] + point_args(point) + [
            f"--out={out}"]
        t0 = time.time()
        r = subprocess.run(argv, capture_output=True, text=True, env=timed_env())
        if r.returncode != 0:
            print(f"{point}: exit {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr)
            return None
        print(f"{point}: {time.time() - t0:.0f} s wall", file=sys.stderr)
    with open(summary, encoding="utf-8") as f:
        return json.load(f)
