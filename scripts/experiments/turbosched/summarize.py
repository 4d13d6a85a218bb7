#!/usr/bin/env python3
"""Summarises the TurboSched experiment's runs beside the published figures.

usage: summarize.py RUNS_DIR [SERIES]

RUNS_DIR holds one `sched-harness run --json` per run, named
SMT-B-J-R-VARIANT-SEED.json (SMT: "smt" or "nosmt"; B busy (CPU-bound) and
J jitter tasks of R us per period; VARIANT: "off", the tree's own wake-up
path, or "on", jitter tasks packed). SERIES names the tree in the tables
(default 6.1). For each B = J it prints the
CPU-bound tasks' throughput (their work per second, in units of one
thread alone at 3.8 GHz) mean ± sd, the change with packing and Welch's
p, the time the package budget held the CPUs below 3.8 GHz, and the
jitter tasks' wake-up latency percentiles (the CPU-bound tasks never
sleep: every wake-up is a jitter task's).
"""
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from summary import summarise  # noqa: E402


def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b) (Lentz's continued fraction)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betainc(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + num * d
        d = tiny if abs(d) < tiny else d
        d = 1.0 / d
        c = 1.0 + num / c
        c = tiny if abs(c) < tiny else c
        f *= c * d
        if abs(1.0 - c * d) < 1e-12:
            break
    return front * (f - 1.0)


def welch_p(a, b):
    """Two-sided p of Welch's t test; 1 when both samples are constant and equal."""
    va, vb = statistics.variance(a), statistics.variance(b)
    se2 = va / len(a) + vb / len(b)
    diff = statistics.mean(a) - statistics.mean(b)
    if se2 == 0:
        return 1.0 if diff == 0 else 0.0
    t = diff / math.sqrt(se2)
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    return betainc(df / 2, 0.5, df / (df + t * t))


def measure(path):
    run = json.load(open(path))
    seconds = run["simulated_ns"] / 1e9
    work = sum(t["work_done"] for t in run["tasks"] if t["name"].startswith("busy"))
    below = sum(c["ns"] for c in run.get("package_ceiling", []) if c["khz"] < 3800000)
    lat = run["wakeup_latency_ns"]
    return {
        "throughput": work / 1024 / 1e9 / seconds,
        "below_turbo": 100 * below / run["simulated_ns"],
        "min": lat["min"] / 1e3, "p50": lat["p50"] / 1e3, "p90": lat["p90"] / 1e3, "p99": lat["p99"] / 1e3,
        "p999": lat["p99_9"] / 1e3, "max": lat["max"] / 1e3,
    }


def sd(values):
    return statistics.stdev(values) if len(values) > 1 else 0.0


def main():
    runs = {}
    for name in sorted(os.listdir(sys.argv[1])):
        m = re.fullmatch(r"(smt|nosmt)-(\d+)-(\d+)-(\d+)-(off|on)-(\d+)\.json", name)
        if m:
            key = (m[1], int(m[2]), int(m[3]), int(m[4]), m[5])
            runs.setdefault(key, []).append(measure(os.path.join(sys.argv[1], name)))
    if not runs:
        sys.exit("summarize.py: no runs in " + sys.argv[1])
    off_label = (sys.argv[2] if len(sys.argv) > 2 else "6.1") + " (packing off)"
    off_width = max(17, len(off_label))

    for smt in ("smt", "nosmt"):
        for run in sorted({r for (s, b, j, r, _) in runs if s == smt and b == j}):
            ns = sorted({b for (s, b, j, r, _) in runs if s == smt and b == j and r == run})
            label = ("SMT threads slow each other (smt_speed 1/0.6/0.45/0.36)" if smt == "smt"
                     else "sensitivity: SMT threads do not slow each other")
            print(f"\nThroughput of N busy tasks beside N jitter tasks of {run} us / 16 ms; {label}")
            print("  published (turbo_bench on POWER9): up to +13%; -5% at N=2 when nothing throttles")
            print(f"  {'N':>2}  {off_label:>{off_width}}  {'TurboSched (on)':>17}  {'change':>7}  {'p':>7}  "
                  "time below 3.8 GHz off / on")
            for n in ns:
                off, on = runs.get((smt, n, n, run, "off")), runs.get((smt, n, n, run, "on"))
                if not off or not on:
                    continue
                a = [r["throughput"] for r in off]
                b = [r["throughput"] for r in on]
                gain = 100 * (statistics.mean(b) / statistics.mean(a) - 1)
                p = welch_p(b, a) if len(a) > 1 and len(b) > 1 else float("nan")
                below_off = statistics.mean(r["below_turbo"] for r in off)
                below_on = statistics.mean(r["below_turbo"] for r in on)
                off_cell = f"{statistics.mean(a):>8.4f} ± {sd(a):.4f}"
                print(f"  {n:>2}  {off_cell:>{off_width}}  {statistics.mean(b):>8.4f} ± {sd(b):.4f}  "
                      f"{gain:>+6.1f}%  {p:>7.2g}  {below_off:.1f}% / {below_on:.1f}%")
                # the thread gives one figure per N only at N = 2
                summarise(f"throughput, {run} us jitters, {'SMT contention' if smt == 'smt' else 'no SMT contention'}",
                          f"N={n}, packing on against off", gain, p, -5.0 if n == 2 else None,
                          (statistics.mean(a), sd(a)), (statistics.mean(b), sd(b)))

    published = {8: ((4, 65, 65, 66, 76, 78), (6, 55, 55, 56, 69, 672)),
                 40: ((3, 64, 66, 67, 78, 159), (5, 64, 67, 68, 439, 1023))}
    for jitters, (pub_off, pub_on) in published.items():
        off, on = runs.get(("smt", 8, jitters, 200, "off")), runs.get(("smt", 8, jitters, 200, "on"))
        if not off or not on:
            continue
        test = "Test-2" if jitters == 8 else "Test-1"
        print(f"\nJitter wake-up latency (us), 8 busy + {jitters} jitter tasks (the thread's {test});")
        print("  ours: the runs' mean percentile, and the largest maximum")
        print(f"  {'':>8} {'published w/o':>14} {'with':>6} {'ours w/o':>10} {'with':>8}")
        rows = (("min", "min", 0), ("p50", "p50", 1), ("p90", "p90", 2), ("p99", "p99", 3),
                ("p99.9*", "p999", 4), ("max", "max", 5))
        for label, key, i in rows:
            agg = max if key == "max" else statistics.mean
            print(f"  {label:>8} {pub_off[i]:>14} {pub_on[i]:>6} "
                  f"{agg(r[key] for r in off):>10.1f} {agg(r[key] for r in on):>8.1f}")
            if key in ("p50", "p99"):
                a, b = [r[key] for r in off], [r[key] for r in on]
                summarise(f"jitter wake-up latency, {test}", f"{label}, packing on against off",
                          100 * (statistics.mean(b) / statistics.mean(a) - 1), welch_p(b, a),
                          100 * (pub_on[i] / pub_off[i] - 1), (statistics.mean(a), sd(a)),
                          (statistics.mean(b), sd(b)))
        print("  (* published: p99.99; ours: p99.9, the finest percentile a run reports)")


if __name__ == "__main__":
    main()
