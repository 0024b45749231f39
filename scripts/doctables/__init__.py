# SPDX-License-Identifier: GPL-2.0-only
"""The measured tables of doc/*.md: which program makes each (registry), how its results become
Markdown (formats), and how the marked tables in the pages are rewritten (engine). The command
line is scripts/doc-tables.py."""
