#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The Odroid-XU3 energy-model series' two boards and their power file.

usage: odroid_boards.py HARNESS DIR

Writes, for the tree HARNESS runs:
  DIR/with/board.dts     the tree's Odroid-XU3 DT (arch/arm/boot/dts/,
                         samsung/ from 6.5 on);
  DIR/without/board.dts  the same without dynamic-power-coefficient (no
                         energy model, so no EAS);
  DIR/power.json         the board's power on both: each CPU's busy power
                         at each OPP as the kernel's energy model has it on
                         the unmodified board, and the clusters' static power
                         of the file shipped for it (docs/power.md), so that
                         both sides are charged what the same silicon draws
                         (BOARD_POWER=none: busy power only). The energy
                         model's power is in microwatts from 5.19,
                         milliwatts before (5.10): its perf domains say.
Used by odroid-xu3-energy-model.sh and factors.py.
"""
import json
import os
import subprocess
import sys


def write(harness, folder):
    shown = subprocess.run([harness, "platform", "show", "odroid-xu3", "--json"], capture_output=True, text=True)
    if shown.returncode != 0:
        sys.exit(f"odroid_boards.py: {harness} platform show odroid-xu3: exit {shown.returncode}\n{shown.stderr}")
    platform = json.loads(shown.stdout)
    for side in ("with", "without"):
        os.makedirs(os.path.join(folder, side), exist_ok=True)
    with open(os.path.join(folder, "with", "board.dts"), "w") as f:
        f.write(f'#include "{platform["source"]}"\n')
    with open(os.path.join(folder, "without", "board.dts"), "w") as f:
        f.write(f'#include "{platform["source"]}"\n')
        for c in range(8):
            f.write(f"&cpu{c} {{ /delete-property/ dynamic-power-coefficient; }};\n")
    static = {}
    if os.environ.get("BOARD_POWER", "shipped") != "none" and platform["board_power"]:
        static = {tuple(d["cpus"]): d["static_mw"] for d in platform["board_power"]["domains"]}
    domains = []
    for pd in platform["kernel"]["perf_domains"]:
        d = {"cpus": ",".join(map(str, pd["cpus"])),
             "dynamic_mw": {str(s["frequency"]): s["power"] / (1000 if pd["microwatts"] else 1)
                            for s in pd["states"]}}
        if static.get(tuple(pd["cpus"])):
            d["static_mw"] = static[tuple(pd["cpus"])]
        domains.append(d)
    with open(os.path.join(folder, "power.json"), "w") as f:
        json.dump({"source": "odroid-xu3: busy power of the energy model its DT coefficients give"
                   + (", static power of " + platform["board_power"]["file"].split(" ")[0] if static else
                      "; no static or idle power"),
                   "domains": domains}, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    write(sys.argv[1], sys.argv[2])
