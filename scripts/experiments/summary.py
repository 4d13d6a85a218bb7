# SPDX-License-Identifier: GPL-2.0
"""The summary line an experiment's table leaves for scripts/experiments/trees.py.

trees.py names a file in EXPERIMENT_SUMMARY; each table that prints a
published figure beside ours appends one JSON line per result to it:
the table, the result, our change (percent) and its p, the published
change, and both sides' (mean, sd). Without EXPERIMENT_SUMMARY nothing is
written.
"""
import json
import os


def summarise(table, row, delta_percent, p, published_percent, before, after):
    path = os.environ.get("EXPERIMENT_SUMMARY")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"table": table, "row": row, "delta_percent": delta_percent,
                                "p": None if p is None or p != p else p,
                                "published_percent": published_percent, "before": before,
                                "after": after}) + "\n")
