#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Debian's interpreter: python3-scipy (scripts/setup.sh --tests) installs SciPy
# for it, not for a python3 of pyenv or a venv found earlier on PATH.
"""Which factor makes EAS cost energy on the Odroid-XU3: a factorial table.

usage: factors.py default|energy-model [--repeat N] [--old BUILD] [--new BUILD]

The response is EAS's verdict on energy, per seed (seeds 1..N, the same
seed on both sides of a verdict):

  default       the default scenario (odroid-xu3, 24 rt-app tasks of 10 %,
                16 ms, 10 s) with kernel.sched_energy_aware=1 against =0;
  energy-model  the Odroid-XU3 energy-model series' energy test case
                (shared/seeds/004): the same tasks with the energy model
                and SCHED_MC against without either (no
                dynamic-power-coefficient, SCHED_MC=n), as
                odroid-xu3-energy-model.sh runs it.

The factors, every combination:

  kernel        the old build's tree (default build-5.10: the series'
                kernel had no inefficient-OPP rule), the new build's tree
                (default build: 6.1) with that rule taken out by
                no-inefficient-opps.patch, and the new tree as released;
  latencies     the hardware latencies the board file gives (docs/power.md)
                against none (--ipi-latency 0 --irq-entry-latency 0
                --wfi-exit-latency 0);
  TTWU_QUEUE    the scheduler feature on (the kernels' default) and off.

Prints each cell's verdict (mean +- sd of the seeds' verdicts, with
Welch's p of the two sides' energies), then each factor's effect on the
verdict in percentage points: the mean over the other factors' cells of
the per-seed difference, with a one-sample t test over the seeds, and
the share of the old tree's and the new tree's difference it accounts for.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    from scipy import stats
except ImportError:
    print(f"factors.py: {sys.executable} has no SciPy, for its t distribution "
          "(Debian: python3-scipy; scripts/setup.sh --tests installs it)", file=sys.stderr)
    sys.exit(2)

import odroid_boards
from trees import kernel_version

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKLOAD = "periodic:count=24,period=16ms,duty=10%"
NO_LATENCIES = ["--ipi-latency", "0", "--irq-entry-latency", "0", "--wfi-exit-latency", "0"]
PATCH = os.path.join("scripts", "experiments", "no-inefficient-opps.patch")
MARGIN_PATCH = os.path.join("scripts", "experiments", "cross-version-5.10-no-margin.patch")


def harness_of(build):
    path = os.path.join(ROOT, build, "harness", "sched-harness")
    if not os.access(path, os.X_OK):
        sys.exit(f"factors.py: {path}: not built (scripts/test.sh builds every tree; "
                 f"SH_KERNEL=SERIES scripts/build.sh one)")
    return path


def tool(harness, *args):
    r = subprocess.run([harness, *args], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"factors.py: {os.path.relpath(harness, ROOT)} {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def image(harness, *args):
    """A kernel image of the build's tree (built once, cached): its id."""
    return tool(harness, "--arch", "arm", "kernel", "build", *args).strip().splitlines()[-1]


class Sides:
    """The two sides of one kernel's verdict: their sweep options."""

    def __init__(self, harness, label, on, off):
        self.harness, self.label, self.on, self.off = harness, label, on, off


def default_sides(harness, label, kernel):
    common = ["--kernel", kernel] if kernel else []
    return Sides(harness, label, common + ["--sysctl", "kernel.sched_energy_aware=1"],
                 common + ["--sysctl", "kernel.sched_energy_aware=0"])


def energy_model_sides(harness, label, with_kernel, work):
    """The series' two kernels and boards: "with" the tree's Odroid-XU3 DT and
    `with_kernel` (SCHED_MC=y), "without" the DT without the coefficient
    and a SCHED_MC=n image; both charged odroid_boards.py's power file, as
    odroid-xu3-energy-model.sh runs them."""
    folder = os.path.join(work, label.replace(" ", "-"))
    odroid_boards.write(harness, folder)
    with_board, without_board = (os.path.join(folder, side, "board.dts") for side in ("with", "without"))
    power = os.path.join(folder, "power.json")
    without_kernel = image(harness, "--config", "SCHED_MC=n")
    with_kernel = with_kernel or image(harness, "--config", "SCHED_MC=y")
    return Sides(harness, label, ["--kernel", with_kernel, "--board", with_board, "--board-power", power],
                 ["--kernel", without_kernel, "--board", without_board, "--board-power", power])


def sweep(harness, options, latencies, repeat):
    """energy_j of each seed, per TTWU_QUEUE value (on, off); `latencies`
    the options of the level (none: the board file's)."""
    out = tool(harness, "sweep", "--json", "--param", "ttwu=on,off", "--feature", "TTWU_QUEUE={ttwu}",
               "--workload", WORKLOAD, "--repeat", str(repeat), "--metric", "energy_j", *options, *latencies)
    points = json.loads(out)["points"]
    return {p["values"]["ttwu"]: next(m for m in p["metrics"] if m["name"] == "energy_j")["values"]
            for p in points}


def mean_sd(values):
    n = len(values)
    m = sum(values) / n
    return m, (sum((v - m) ** 2 for v in values) / (n - 1)) ** 0.5 if n > 1 else 0.0


def p_text(p):
    return "-" if p != p else "<0.001" if p < 0.001 else f"{p:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("response", choices=["default", "energy-model"])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--old", default="build-5.10", help="the old tree's build (default build-5.10)")
    parser.add_argument("--new", default="build", help="the new tree's build (default build: 6.1)")
    args = parser.parse_args()
    old, new = harness_of(args.old), harness_of(args.new)
    old_v, new_v = kernel_version(old), kernel_version(new)
    # The latencies' second level: the board file's; where it has no
    # figure at all, the kernel's nominal WFI exit (not a measurement: a
    # sensitivity, said so in the output).
    board = json.loads(tool(new, "run", "--json", "--duration", "10ms"))["kernel_time"]
    sourced = any(board[k] for k in ("ipi_latency_ns", "irq_entry_ns", "wfi_exit_ns"))
    board_level = [] if sourced else ["--wfi-exit-latency", "1us"]
    # The kernels, each step from one to the next a change the series'
    # kernel lacked: the margin's removal, the rest of the trees'
    # differences, the inefficient-OPP rule.
    levels = [(old, old_v, None, None),
              (old, f"{old_v} without the margin", MARGIN_PATCH,
               f"the margin's removal (b812fc9768e0, v6.0) on {old_v}"),
              (new, f"{new_v} without the rule", PATCH,
               f"the rest of {old_v} -> {new_v}"),
              (new, new_v, None, f"the inefficient-OPP rule (v5.16) on {new_v}")]
    with tempfile.TemporaryDirectory() as work:
        kernels = []
        for harness, label, patch, _ in levels:
            if args.response == "default":
                kernels.append(default_sides(harness, label, image(harness, "--patch", patch) if patch else None))
            else:
                kernels.append(energy_model_sides(
                    harness, label,
                    image(harness, "--patch", patch, "--config", "SCHED_MC=y") if patch else None, work))
        if args.response == "default":
            title = (f"EAS's verdict on the default scenario (odroid-xu3, {WORKLOAD}, 10 s): energy with "
                     "kernel.sched_energy_aware=1 against =0")
            sides = ("EAS on", "EAS off")
        else:
            title = ("The energy-model series' test case (seed 004: odroid-xu3, 24 tasks of 10 %, 10 s): "
                     "energy with the energy model and SCHED_MC against without either")
            sides = ("with", "without")
        cells = {}
        for k in kernels:
            for latencies in ("0", "board"):
                options = NO_LATENCIES if latencies == "0" else board_level
                on = sweep(k.harness, k.on, options, args.repeat)
                off = sweep(k.harness, k.off, options, args.repeat)
                for ttwu in ("on", "off"):
                    cells[(k.label, latencies, ttwu)] = (on[ttwu], off[ttwu])

    print(title)
    print(f"seeds 1..{args.repeat} (the same seed on both sides); the margin: {MARGIN_PATCH}; the rule: "
          f"{new_v}'s inefficient OPPs, taken out by {PATCH}")
    if sourced:
        print("latencies: 0, or the board file's ('board': " + ", ".join(
            f"{k} {board[k] / 1000:g} us" for k in ("ipi_latency_ns", "irq_entry_ns", "wfi_exit_ns")) + ")")
    else:
        print("latencies: odroid-xu3's board file has no sourced figure (docs/power.md), so runs charge 0; "
              "the level 'board' is the kernel's nominal WFI exit, 1 us (ARM_CPUIDLE_WFI_STATE), a "
              "sensitivity, not a measurement")
    print()
    width = max(len(k.label) for k in kernels)
    print(f"  {'kernel':<{width}}  {'latencies':<9}  {'TTWU_QUEUE':<10}  {sides[0] + ' (J)':>12}  "
          f"{sides[1] + ' (J)':>13}  {'verdict':>16}  {'p':>6}")
    response = {}
    for (label, latencies, ttwu), (on, off) in cells.items():
        per_seed = [100 * (a - b) / b for a, b in zip(on, off)]
        response[(label, latencies, ttwu)] = per_seed
        m, sd = mean_sd(per_seed)
        p = stats.ttest_ind(on, off, equal_var=False).pvalue if len(on) > 1 else float("nan")
        print(f"  {label:<{width}}  {latencies:<9}  {ttwu:<10}  {mean_sd(on)[0]:12.4f}  {mean_sd(off)[0]:13.4f}  "
              f"{m:+7.2f} ± {sd:4.2f} %  {p_text(p):>6}")

    labels = [k.label for k in kernels]

    def contrast(pick_hi, pick_lo, over):
        """Per seed: the mean over `over` cells of hi - lo."""
        diffs = []
        for s in range(args.repeat):
            d = [response[pick_hi(c)][s] - response[pick_lo(c)][s] for c in over]
            diffs.append(sum(d) / len(d))
        return diffs

    others = [(lat, t) for lat in ("0", "board") for t in ("on", "off")]
    effects = [(step, contrast(lambda c, i=i: (labels[i], *c), lambda c, i=i: (labels[i - 1], *c), others))
               for i, (_, _, _, step) in enumerate(levels) if step]
    effects += [
        ("latencies (0 -> 'board')",
         contrast(lambda c: (c[0], "board", c[1]), lambda c: (c[0], "0", c[1]),
                  [(k, t) for k in labels for t in ("on", "off")])),
        ("TTWU_QUEUE (off -> on)",
         contrast(lambda c: (c[0], c[1], "on"), lambda c: (c[0], c[1], "off"),
                  [(k, lat) for k in labels for lat in ("0", "board")])),
    ]
    name_width = max(len(name) for name, _ in effects) + 2
    print()
    print(f"Effects on the verdict, percentage points (each the mean over the other factors' cells; p: "
          f"one-sample t over the {args.repeat} seeds' contrasts):")
    print(f"  {'factor':<{name_width}} {'effect':>14}  {'p':>6}")
    for name, diffs in effects:
        print(f"  {name:<{name_width}} {effect_text(diffs)}")

    # the old tree's verdict against the new one's as runs are by default
    # (the board file's latencies, TTWU_QUEUE on), step by step
    at = ("board" if sourced else "0", "on")
    total = contrast(lambda c: (labels[-1], *c), lambda c: (labels[0], *c), [at])
    total_mean = mean_sd(total)[0]
    print()
    print(f"{old_v} -> {new_v} as runs are by default (latencies {at[0]}, TTWU_QUEUE on), step by step "
          f"(a step's share depends on the order where factors interact):")
    for i, (_, _, _, step) in enumerate(levels):
        if step:
            diffs = contrast(lambda c: (labels[i], *c), lambda c: (labels[i - 1], *c), [at])
            share = f"{100 * mean_sd(diffs)[0] / total_mean:+5.0f} % of it" if total_mean else ""
            print(f"  {step:<{name_width}} {effect_text(diffs)}  {share}")
    print(f"  {'in all':<{name_width}} {effect_text(total)}")

    # TTWU_QUEUE's effect on each kernel, as runs are by default otherwise
    print()
    print("TTWU_QUEUE (off -> on) on each kernel, latencies " + at[0] + ":")
    for label in labels:
        diffs = contrast(lambda c: (label, at[0], "on"), lambda c: (label, at[0], "off"), [None])
        print(f"  {label:<{name_width}} {effect_text(diffs)}")


def effect_text(diffs):
    m, sd = mean_sd(diffs)
    p = stats.ttest_1samp(diffs, 0).pvalue if sd > 0 else (1.0 if m == 0 else 0.0)
    return f"{m:+7.2f} ± {sd:4.2f}  {p_text(p):>6}"


if __name__ == "__main__":
    main()
