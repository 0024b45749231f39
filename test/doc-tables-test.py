#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/doc-tables.py on the golden summaries: every table kind renders, only the text
between the markers changes, --check reports a stale page (exit 1) and a fresh one (exit 0),
and a missing summary leaves the table as it is."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "doc-tables.py")
GOLDEN = os.path.join(ROOT, "test", "golden")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def main():
    zc = os.path.join(GOLDEN, "zcube-vs-roft-both")
    rv = os.path.join(GOLDEN, "rng-vs-fattree-small")
    page = (f"before\n<!-- table:zcube-fig2 {zc} -->\nstale\n<!-- /table -->\nmiddle\n"
            f"<!-- table:rng-vs-fattree {rv} -->\n<!-- /table -->\n"
            f"<!-- table:rng-blast {rv} -->\n<!-- /table -->\n"
            f"<!-- table:zcube-fig2 /nonexistent -->\nkept\n<!-- /table -->\nafter\n")
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "page.md")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(page)
        assert run("--check", doc).returncode == 1, "stale page not reported"
        r = run(doc)
        assert r.returncode == 0, r.stderr
        assert "not found" in r.stderr, "missing summary not reported"
        assert run("--strict", doc).returncode == 1, "--strict ignores a missing summary"
        text = open(doc, encoding="utf-8").read()
        assert run("--check", doc).returncode == 0, "fresh page reported stale"
        for kept in ("before\n", "middle\n", "kept\n", "after\n"):
            assert kept in text, kept
        assert "stale" not in text
        # zcube-fig2: 4 patterns x 2 fabrics, in --pattern order; rng: 2 x 4 runs, 2 x 2 cases.
        rows = [l for l in text.split("\n") if l.startswith("| ") and "---" not in l]
        assert sum(1 for l in rows if "| ZCube |" in l or "| ROFT |" in l) == 8, rows
        assert rows[1].startswith("| allreduce | ZCube | 1.00 ± 0.00 |"), rows[1]
        assert sum(1 for l in rows if (l.startswith("| permutation | ") or
                   l.startswith("| all-to-all | ")) and ("| rng |" in l or "| fat tree |" in l)) == 8
        assert sum(1 for l in rows if l.startswith("| router | ") or
                   l.startswith("| 1% links | ")) == 4
        assert "| ksp (k=4) |" in text
    print("doc-tables: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
