#!/usr/bin/env python3
"""Prints a sched-harness sweep (--json, on stdin) beside a published table.

usage: side_by_side.py TITLE METRIC LABEL=VALUE:SPREAD... [--spread-is sd|rsd]

One LABEL per sweep point, in the sweep's order; VALUE the published mean
and SPREAD its spread as published (percent of the mean with --spread-is
rsd, the default, or an absolute sd). The first point is the baseline of
both columns' "vs" figures. A published value of "-" is a point the
publication has no number for.
"""
import json
import sys

from summary import summarise


def main():
    args = sys.argv[1:]
    spread_is = "rsd"
    if "--spread-is" in args:
        i = args.index("--spread-is")
        spread_is = args[i + 1]
        del args[i:i + 2]
    title, metric, rows = args[0], args[1], args[2:]
    sweep = json.load(sys.stdin)
    points = sweep["points"]
    if len(points) != len(rows):
        sys.exit(f"side_by_side.py: {len(rows)} published rows for {len(points)} sweep points")
    published = []
    for row in rows:
        label, _, value = row.partition("=")
        if value == "-":
            published.append((label, None, None))
            continue
        mean, _, spread = value.partition(":")
        mean = float(mean)
        spread = float(spread) if spread else None
        if spread is not None and spread_is == "sd":
            spread = 100 * spread / mean
        published.append((label, mean, spread))

    print(f"\n{title}: {sweep['workload']} on {sweep['board']}, {sweep['repeat']} runs per point")
    width = max(len(label) for label, _, _ in published)
    print(f"  {'':<{width}}  {'published (RSD)':>19} {'vs first':>9}  |  {'ours (RSD)':>19} {'vs first':>9} {'p':>7}")
    base = published[0][1]
    for (label, mean, rsd), point in zip(published, points):
        ours = next(m for m in point["metrics"] if m["name"] == metric)
        if mean is None:
            pub, pub_delta = f"{'-':>19}", ""
        else:
            pub = f"{mean:>10.3f} ({rsd:5.2f}%)" if rsd is not None else f"{mean:>10.3f}        "
            pub_delta = "" if point is points[0] or base is None else f"{100 * (mean - base) / base:+.1f}%"
        our_delta = ("" if point is points[0] else "n/a" if ours['delta_percent'] is None
                     else f"{ours['delta_percent']:+.1f}%")
        p = ours["p"]
        p = "" if p is None or point is points[0] else ("<0.001" if p < 0.001 else f"{p:.3f}")
        print(f"  {label:<{width}}  {pub} {pub_delta:>9}  |  {ours['mean']:>10.3f} ({ours['rsd_percent']:5.2f}%)"
              f" {our_delta:>9} {p:>7}")
        if point is not points[0]:
            first = next(m for m in points[0]["metrics"] if m["name"] == metric)
            summarise(title, f"{label} against {published[0][0]}", ours["delta_percent"], ours["p"],
                      None if mean is None or base is None else 100 * (mean - base) / base,
                      (first["mean"], first["sd"]), (ours["mean"], ours["sd"]))


if __name__ == "__main__":
    main()
