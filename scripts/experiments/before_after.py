#!/usr/bin/env python3
"""One row per metric of a two-point sched-harness sweep (--json, on stdin):
the first point ("before") beside the second ("after"), the change and p.

usage: before_after.py SCENARIO_LABEL [METRIC=PUBLISHED_PERCENT...]

A published change of a metric (e.g. energy_j=-5) is what
scripts/experiments/trees.py compares the sign of ours with.
"""
import json
import sys

from summary import summarise

LABELS = {"energy_j": "board energy (J)", "em_energy_j": "EM estimate (J)", "migrations": "migrations", "latency_p99_us": "p99 wake-up (us)",
          "completion_s": "completion (s)", "throughput": "throughput"}


def main():
    name = sys.argv[1]
    published = {k: float(v) for k, _, v in (a.partition("=") for a in sys.argv[2:])}
    scenario = name
    sweep = json.load(sys.stdin)
    before, after = sweep["points"]
    for b, a in zip(before["metrics"], after["metrics"]):
        p = a["p"]
        p = "-" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")
        label = LABELS.get(b["name"], b["name"])
        delta = "n/a" if a["delta_percent"] is None else f"{a['delta_percent']:+.1f}%"
        print(f"  {name:<50} {label:<17} {b['mean']:>12.4g} ({b['rsd_percent']:4.1f}%)"
              f" {a['mean']:>12.4g} ({a['rsd_percent']:4.1f}%) {delta:>9} {p:>7}")
        name = ""
        summarise(scenario, f"{label}, after against before", a["delta_percent"], a["p"],
                  published.get(b["name"]), (b["mean"], b["sd"]), (a["mean"], a["sd"]))


if __name__ == "__main__":
    main()
