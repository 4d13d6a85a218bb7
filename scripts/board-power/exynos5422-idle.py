#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The Exynos 5422 clusters' idle power at each OPP, from the fitted model
of Balsini and Pannocchi as gabrieleara/PARTSim publishes it: its formula
(src/powermodel.cpp, commit 004b1044777aac71dc2e5b5e1ffe6e29f12fde0a),

    P = K * F * V^2 * (1 + eta) * (1 + gamma * V) + d      (F in kHz, P in W)

with its "idle" parameters {d, eta, gamma, K} and its voltage per OPP
(examples/energy/energy.cpp, commit 0e52227ee0cff824a9c7819cf9da70c72a754b9a).
Prints the static_mw tables of harness/sim/board-power/odroid-xu3.json
(docs/power.md says how they are used); --check FILE exits 1 unless FILE
holds them. Nothing here is fitted or tuned:
the source's numbers, evaluated."""

import json
import sys

# {d, eta, gamma, K}, the source's order (PowerModelBPParams)
IDLE = {
    "a7": (0.00134845, 1.76307e-5, 124.535, 1.00399e-10),
    "a15": (0.0162881, 0.00100737, 55.8491, 1.00494e-9),
}
VOLTS = {
    "a7": [0.92, 0.919643, 0.919357, 0.918924, 0.95625, 0.9925, 1.02993,
           1.0475, 1.08445, 1.12125, 1.15779, 1.2075, 1.25625],
    "a15": [0.916319, 0.915475, 0.915102, 0.91498, 0.91502, 0.90375, 0.916562,
            0.942543, 0.96877, 0.994941, 1.02094, 1.04648, 1.05995, 1.08583,
            1.12384, 1.16325, 1.20235, 1.2538, 1.33287],
}
MHZ = {"a7": range(200, 1401, 100), "a15": range(200, 2001, 100)}


def idle_mw(cluster):
    d, eta, gamma, k = IDLE[cluster]
    out = {}
    for mhz, v in zip(MHZ[cluster], VOLTS[cluster]):
        f_khz = mhz * 1000
        watts = k * f_khz * v * v * (1 + eta) * (1 + gamma * v) + d
        out[str(f_khz)] = round(watts * 1000, 2)
    return out


def check(path):
    """Exit 1 unless the shipped file's static_mw tables are these figures."""
    import re
    with open(path) as f:
        model = json.loads(re.sub(r"//[^\n]*", "", f.read()))
    shipped = [{int(k): v for k, v in d["static_mw"].items()} for d in model["domains"]]
    derived = [{int(k): v for k, v in idle_mw(c).items()} for c in ("a7", "a15")]
    if shipped != derived:
        sys.exit(f"{path}: static_mw is not what {sys.argv[0]} derives from the source")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    else:
        json.dump({c: idle_mw(c) for c in IDLE}, sys.stdout, indent=1)
        print()
