#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run the golden cases of test/golden/cases.json from a build's bin folder.

  golden-runs.py BIN_DIR            run every case twice, report what differs besides the
                                    ignored (wall-clock) keys; nothing is written
  golden-runs.py BIN_DIR --write    the same, then store the outputs as the golden copies

Goldens are updated only with a reason in the commit message (doc/design.md, "Golden runs").
Programs are run with an argument vector, never through a shell.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "golden")


def strip(j, ignore, at=""):
    if isinstance(j, dict):
        out = {}
        for k, v in j.items():
            path = at + "/" + k.replace("~", "~0").replace("/", "~1")
            if k not in ignore and path not in ignore:
                out[k] = strip(v, ignore, path)
        return out
    if isinstance(j, list):
        return [strip(v, ignore, f"{at}/{i}") for i, v in enumerate(j)]
    return j


def diff_keys(a, b, at=""):
    """Set of the last keys of the JSON pointers where a and b differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set()
        for k in set(a) | set(b):
            keys |= diff_keys(a.get(k), b.get(k), k) if k in a and k in b else {k}
        return keys
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        keys = set()
        for x, y in zip(a, b):
            keys |= diff_keys(x, y, at)
        return keys
    return set() if a == b else {at}


def run(bin_dir, case, out):
    golden_dir = os.path.join(GOLDEN, case["name"])
    argv = [os.path.join(bin_dir, case["program"])]
    argv += [a.replace("{out}", out).replace("{golden}", golden_dir) for a in case["args"]]
    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{case['name']}: exit {p.returncode}\n{p.stderr}")
    return time.monotonic() - t0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir, write = sys.argv[1], "--write" in sys.argv[2:]
    spec = json.load(open(os.path.join(GOLDEN, "cases.json")))
    cases, always = spec["cases"], set(spec.get("ignore_in_every_case", []))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            outs = [os.path.join(tmp, case["name"], str(i)) for i in (0, 1)]
            secs = [run(bin_dir, case, o) for o in outs]
            ignore = set(case.get("ignore", [])) | always
            for f in case.get("outputs", ["summary.json"]):
                a, b = (json.load(open(os.path.join(o, f))) for o in outs)
                raw = sorted(diff_keys(a, b))
                same = strip(a, ignore) == strip(b, ignore)
                ok &= same
                print(f"{case['name']}/{f}: {'same' if same else 'DIFFERENT'} "
                      f"(raw differences in keys: {', '.join(raw) or 'none'}) "
                      f"{secs[0]:.2f} s, {secs[1]:.2f} s")
                if write and same:
                    d = os.path.join(GOLDEN, case["name"])
                    os.makedirs(d, exist_ok=True)
                    if always and f.endswith(".json"):
                        # what every case ignores (the build's code version) is not stored,
                        # so a rewrite by another build does not churn the copies
                        with open(os.path.join(d, f), "w", encoding="utf-8") as g:
                            json.dump(strip(a, always), g, indent=2, sort_keys=True,
                                      ensure_ascii=False)
                            g.write("\n")
                    else:
                        shutil.copyfile(os.path.join(outs[0], f), os.path.join(d, f))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
