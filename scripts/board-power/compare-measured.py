#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The board power model beside published board-level measurements.

Prints "measured | ours" for each condition a source measured, with the
conditions and the source. It is a comparison to report, never a fit:
nothing here feeds a figure back into the model (docs/power.md).

  - HiKey960, idle states (LISA's EnergyModel_SystemEnergy notebook, ACME
    shunt on the whole board, ambient 36.5 C, the other cluster hotplugged
    off): each idle condition's power over the board with the cluster
    powered off, beside the shipped model's figures for the same condition
    (`sched-harness platform show --json`).
  - RK3399 and Exynos 5422 under load (sbc-bench's Efficiency_Graphing.md,
    power at the wall, supply included): the increment over idle of N busy
    cores at a clock, beside runs of N CPU-bound threads pinned to those
    cores with the clock capped there (`--thermal-cap`), the other cluster
    at its lowest OPP, against a run of the idle board with every cluster
    at its lowest OPP.

usage: compare-measured.py [--binary sched-harness] [--duration 3s]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HIKEY_SOURCE = "LISA ipynb/deprecated/energy/EnergyModel_SystemEnergy.ipynb (e189103), idle_df"
SBC_SOURCE = "sbc-bench Efficiency_Graphing.md (da50d89)"


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare-measured: {binary} {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return json.loads(p.stdout)


def hikey960_idle(binary):
    platform = run(binary, ["platform", "show", "--json", "hikey960"])
    power = platform["board_power"]
    if power is None:
        sys.exit("compare-measured: hikey960 has no board power model")
    little, big = power["domains"]

    def cond(dom, state, cpus):
        return cpus * dom["idle_mw"].get(state, 0) + dom["cluster_idle_mw"].get(state, 0)

    # (condition, measured: the state's power - the cluster-off power with
    # the same CPUs online, ours)
    rows = [
        ("A53 cluster on, 1 CPU in WFI", 2930.7150 - 2908.5263, cond(little, "WFI", 1)),
        ("A53 cluster on, 1 CPU core-off (cpu-sleep-0)", 2929.6951 - 2908.5263, cond(little, "cpu-sleep-0", 1)),
        ("A53 cluster on, 4 CPUs in WFI", 2930.7282 - 2909.2040, cond(little, "WFI", 4)),
        ("A73 cluster on, 1 CPU in WFI", 3258.2742 - 2912.9123, cond(big, "WFI", 1)),
        ("A73 cluster on, 1 CPU core-off (cpu-sleep-1)", 3233.9977 - 2912.9123, cond(big, "cpu-sleep-1", 1)),
        ("A73 cluster on, 4 CPUs in WFI", 3360.0987 - 2915.1799, cond(big, "WFI", 4)),
    ]
    return [("hikey960", c, m, o, "over the cluster powered off; " + HIKEY_SOURCE) for c, m, o in rows]


def workload(path, cpus):
    tasks = {f"busy-{c}": {"cpus": [c], "loop": -1, "run": 100000} for c in cpus}
    if not cpus:
        # the idle board: one thread that sleeps (a wake-up a second)
        tasks = {"sleeper": {"loop": -1, "sleep": 1000000}}
    with open(path, "w") as f:
        json.dump({"global": {"duration": -1}, "tasks": tasks}, f)


def mean_mw(binary, board, cpus, caps, duration, tmp):
    path = os.path.join(tmp, f"{board}-{len(cpus)}.json")
    workload(path, cpus)
    args = ["run", "--json", "--board", board, "--workload", path, "--duration", duration]
    for cap in caps:
        args += ["--thermal-cap", cap + "@1ns"]
    r = run(binary, args)
    return r["energy_j"] / (r["simulated_ns"] / 1e9) * 1000


# Each board's clusters at their lowest OPP: the idle board, and the
# clusters a measurement leaves idle. (A real idle board's background
# activity lets schedutil bring its clusters down; the harness's idle board
# has almost none, so its clusters would keep the frequency they booted at.)
LOWEST = {
    "rk3399": {"0-3": "408000", "4-5": "408000"},
    "odroid-xu3": {"0-3": "200000", "4-7": "200000"},
}


def caps_with_lowest(board, caps):
    given = dict(c.split("=") for c in caps)
    return [f"{cpus}={given.get(cpus, khz)}" for cpus, khz in LOWEST[board].items()]


def under_load(binary, duration):
    # (board, what the source measured, its board, busy CPUs, caps, measured mW)
    cases = [
        ("rk3399", "1 A53 at 400 MHz", "NanoPi NEO4", [0], ["0-3=408000"], 176),
        ("rk3399", "1 A53 at 1400 MHz", "NanoPi NEO4", [0], ["0-3=1416000"], 580),
        ("rk3399", "4 A53 at 400 MHz", "NanoPi NEO4", [0, 1, 2, 3], ["0-3=408000"], 276),
        ("rk3399", "4 A53 at 1400 MHz", "NanoPi NEO4", [0, 1, 2, 3], ["0-3=1416000"], 1346),
        ("rk3399", "1 A53 at 400 MHz", "RockPro64", [0], ["0-3=408000"], 126),
        ("rk3399", "1 A53 at 1400 MHz", "RockPro64", [0], ["0-3=1416000"], 640),
        ("rk3399", "4 A53 at 400 MHz", "RockPro64", [0, 1, 2, 3], ["0-3=408000"], 243),
        ("rk3399", "4 A53 at 1400 MHz", "RockPro64", [0, 1, 2, 3], ["0-3=1416000"], 1430),
        ("odroid-xu3", "1 A7 at 500 MHz", "ODROID-HC2", [0], ["0-3=500000"], 260),
        ("odroid-xu3", "1 A7 at 1300 MHz", "ODROID-HC2", [0], ["0-3=1300000"], 505),
        ("odroid-xu3", "4 A7 at 500 MHz", "ODROID-HC2", [0, 1, 2, 3], ["0-3=500000"], 515),
        ("odroid-xu3", "4 A7 at 1300 MHz", "ODROID-HC2", [0, 1, 2, 3], ["0-3=1300000"], 1305),
        ("odroid-xu3", "8 cores, A7 at 1400, A15 at 500 MHz", "ODROID-HC2", list(range(8)),
         ["0-3=1400000", "4-7=500000"], 5510 - 3890),
        ("odroid-xu3", "8 cores, A7 at 1400, A15 at 2000 MHz", "ODROID-HC2", list(range(8)),
         ["0-3=1400000", "4-7=2000000"], 13195 - 3890),
    ]
    rows = []
    with tempfile.TemporaryDirectory(prefix="sh-compare-measured-") as tmp:
        idle = {}
        for board, what, measured_on, cpus, caps, measured in cases:
            if board not in idle:
                idle[board] = mean_mw(binary, board, [], caps_with_lowest(board, []), duration, tmp)
            ours = mean_mw(binary, board, cpus, caps_with_lowest(board, caps), duration, tmp) - idle[board]
            rows.append((board, f"{what}, {measured_on} (over idle)", measured, ours,
                         f"wall power incl. supply; {SBC_SOURCE}"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="sched-harness")
    ap.add_argument("--duration", default="3s")
    a = ap.parse_args()
    rows = hikey960_idle(a.binary) + under_load(a.binary, a.duration)
    print(f"{'board':<11} {'condition':<60} {'measured':>9} {'ours':>9} {'ours/measured':>13}  conditions, source")
    for board, cond, measured, ours, note in rows:
        print(f"{board:<11} {cond:<60} {measured:>6.1f} mW {ours:>6.1f} mW {ours / measured:>13.2f}  {note}")


if __name__ == "__main__":
    main()
