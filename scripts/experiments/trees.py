#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs one experiment script on every tree's build and tables its results.

usage: trees.py --publication SERIES [--published-on KERNEL] [--full SERIES,...] [--builds B...]
                SCRIPT [ARG...]

SCRIPT (one of scripts/experiments/*.sh) runs once per build, with
HARNESS naming that build's sched-harness, oldest tree first (default:
build-5.10, build, build-6.12, build-7.3, those built). Its tables of
published figures beside ours (side_by_side.py, before_after.py,
turbosched/summarize.py) leave one summary line each in the file that
EXPERIMENT_SUMMARY names; this prints, per result, the published change
and ours on each tree (mean ± sd of both sides over the seeds, the change
and Welch's p), and whether the sign agrees:
"agrees" or "opposite" where ours is a change at p < 0.01, "no evidence"
where it is not. Then the whole output of the trees --full names (default:
the publication's). A tree the script cannot run (no port of its patch, an
option the tree lacks) is a column saying why.

scripts/experiments/regenerate.sh runs every experiment this way and
writes docs/experiments.md's tables.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALPHA = 0.01


def kernel_version(harness):
    """The version of the kernel a build's sched-harness runs ("6.1.192"), from `kernel info`."""
    out = subprocess.run([harness, "kernel", "info"], capture_output=True, text=True, cwd=ROOT).stdout
    m = re.search(r"^Version\s+Linux\s+(\S+)", out, re.M)
    if not m:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {harness} kernel info names no Version")
    return m.group(1)


def short(version):
    return ".".join(version.split(".")[:2])


def verdict(published, delta, p):
    if delta is None or p is None:
        return ""
    if p >= ALPHA:
        return "no evidence"
    if published is None or published == 0:
        return ""
    return "agrees" if (published > 0) == (delta > 0) else "opposite"


def cell(row):
    if row is None:
        return "-"
    delta, p = row.get("delta_percent"), row.get("p")
    if delta is None:
        return "baseline"
    p_text = "" if p is None else (" p<0.001" if p < 0.001 else f" p={p:.3f}")
    mark = verdict(row.get("published_percent"), delta, p)
    (b, bsd), (a, asd) = row["before"], row["after"]
    return f"{b:.4g} ± {bsd:.2g} -> {a:.4g} ± {asd:.2g}: {delta:+.1f}%{p_text}" + (f" {mark}" if mark else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--builds", nargs="+", default=["build-5.10", "build", "build-6.12", "build-7.3"])
    parser.add_argument("--publication", required=True,
                        help="the series nearest the one the experiment was published on")
    parser.add_argument("--published-on", help="the kernel the publication names, when it is not that series")
    parser.add_argument("--full", help="the series whose whole output follows, comma-separated (default: the "
                        "publication's; '' for none)")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    full = [args.publication] if args.full is None else [f for f in args.full.split(",") if f]

    runs = []  # (series version, status text, output, summary rows)
    missing = []
    for build in args.builds:
        harness = os.path.join(ROOT, build, "harness", "sched-harness")
        if not os.access(harness, os.X_OK):
            missing.append(build)
            continue
        version = kernel_version(harness)
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as summary:
            env = dict(os.environ, HARNESS=harness, EXPERIMENT_SUMMARY=summary.name)
            r = subprocess.run([os.path.join(ROOT, args.script), *args.args], cwd=ROOT, env=env,
                               capture_output=True, text=True)
            rows = [json.loads(line) for line in summary.read().splitlines() if line.strip()]
        output = (r.stdout + r.stderr).rstrip("\n")
        if r.returncode != 0:
            last = output.splitlines()[-1] if output else f"exit status {r.returncode}"
            runs.append((version, "not run: " + last.removeprefix(args.script + ": "), output, []))
        else:
            runs.append((version, "", output, rows))

    name = os.path.basename(args.script)
    on = f"{args.published_on}, the nearest tree here Linux {args.publication}" if args.published_on \
        else f"Linux {args.publication}"
    print(f"{name} {' '.join(args.args)}".rstrip() + f" on every tree (published on {on}; "
          f"sign: ours at p < {ALPHA} against the publication's)")
    if missing:
        print(f"(not built, so not run: {', '.join(missing)})")
    # the results, in the order the first tree that ran printed them
    keys = []
    for _, _, _, rows in runs:
        for row in rows:
            key = (row["table"], row["row"])
            if key not in keys:
                keys.append(key)
    by_tree = {version: {(r["table"], r["row"]): r for r in rows} for version, _, _, rows in runs}
    published = {}
    for _, _, _, rows in runs:
        for r in rows:
            published.setdefault((r["table"], r["row"]), r.get("published_percent"))
    names = [f"Linux {short(v)}" + (" (publication)" if short(v) == args.publication else "")
             for v, _, _, _ in runs]
    width = max(len(n) for n in names)
    for key in keys:
        pub = published.get(key)
        print()
        print(f"{key[0]}: {key[1]}" + ("" if pub is None else f"; published {pub:+.1f}%"))
        for name, (v, status, _, _) in zip(names, runs):
            print(f"  {name:<{width}}  {'not run (below)' if status else cell(by_tree[v].get(key))}")
    if not keys:
        print()
        print("(no published figure to compare: the outputs follow)")
        for name, (_, status, _, _) in zip(names, runs):
            print(f"  {name:<{width}}  {status or 'ran'}")
    not_run = [(name, status) for name, (_, status, _, _) in zip(names, runs) if status and keys]
    if not_run:
        print()
        for name, status in not_run:
            print(f"{name}: {status}")
    for version, status, output, _ in runs:
        if short(version) in full:
            print()
            print(f"Linux {version}" + (" (the publication's kernel)" if short(version) == args.publication else "")
                  + ":")
            print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
