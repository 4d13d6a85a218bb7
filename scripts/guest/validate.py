#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs one rt-app file in a QEMU guest booting Debian's image of the
build's tree (scripts/guest/run-in-guest.sh) and in the harness on a board
that mirrors the guest, N times each, and compares the decisions both
traces show, per rt-app task: switches in, preemptions, migrations,
wake-ups and where they land, and the share of the tasks' CPU time. A
metric agrees when the harness's mean lies within the guest's own runs
(their minimum to their maximum), and differs otherwise. Timings
(latencies, energy) are not compared: under TCG the guest's time is not
real (docs/validation.md).

  scripts/guest/validate.py [--series 6.1|6.12] [--build DIR] [--cpus N]
                            [--repeat N] [--out DIR] FILE.json

Exit status: 0 when every metric agrees, 1 when some differ, 2 for bad
input, 3 when a run failed.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# "  comm-pid  [003] d..2.  1.000123: EVENT: fields"
LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<ts>\d+\.\d+): (?P<event>\w+): (?P<fields>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


def fail(message, status=2):
    print(f"validate: {message}", file=sys.stderr)
    sys.exit(status)


def task_key(comm):
    """The rt-app task a thread belongs to: the harness names an instance
    TASK-K, rt-app in the guest names them all TASK."""
    return re.sub(r"-\d+$", "", comm)


def task_of(comm, tasks):
    key = task_key(comm)
    return key if key in tasks else None


def metrics(trace_path, tasks):
    """Per task: what the trace shows it was decided for it."""
    m = {t: dict(switches_in=0, preempted=0, migrations=0, wakeups=0, woken_on_prev=0,
                 cpu_time=0.0) for t in tasks}
    last_cpu, running_since = {}, {}
    with open(trace_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            mo = LINE.match(line)
            if not mo:
                continue
            event, cpu, ts = mo["event"], int(mo["cpu"]), float(mo["ts"])
            fields = dict(FIELD.findall(mo["fields"]))
            if event == "sched_switch":
                prev, nxt = task_of(fields.get("prev_comm", ""), tasks), task_of(fields.get("next_comm", ""), tasks)
                if prev:
                    pid = fields["prev_pid"]
                    if pid in running_since:
                        m[prev]["cpu_time"] += ts - running_since.pop(pid)
                    if fields.get("prev_state", "").startswith("R"):
                        m[prev]["preempted"] += 1
                if nxt:
                    pid = fields["next_pid"]
                    m[nxt]["switches_in"] += 1
                    running_since[pid] = ts
                    last_cpu[pid] = cpu
            elif event == "sched_wakeup":
                t = task_of(fields.get("comm", ""), tasks)
                if t:
                    m[t]["wakeups"] += 1
                    pid = fields["pid"]
                    if pid in last_cpu and int(fields["target_cpu"]) == last_cpu[pid]:
                        m[t]["woken_on_prev"] += 1
            elif event == "sched_migrate_task":
                t = task_of(fields.get("comm", ""), tasks)
                if t:
                    m[t]["migrations"] += 1
    # as rates: how many loops the guest gets through depends on its
    # (TCG's) time, what is decided at each does not
    total = sum(v["cpu_time"] for v in m.values())
    for v in m.values():
        v["cpu_share"] = 100.0 * v.pop("cpu_time") / total if total > 0 else 0.0
        wakeups, switches = v["wakeups"], v["switches_in"]
        v["woken_on_prev"] = 100.0 * v["woken_on_prev"] / wakeups if wakeups else 0.0
        v["migrations"] = 100.0 * v["migrations"] / wakeups if wakeups else 0.0
        v["preempted"] = 100.0 * v["preempted"] / switches if switches else 0.0
        v["switches_in"] = switches / wakeups if wakeups else 0.0
    return m


def mirror_board(cpus):
    """A board as the guest sees its CPUs: symmetric, one cluster, no
    cpufreq, no idle states."""
    cores = "".join(f"core{i} {{ cpu = <&cpu{i}>; }}; " for i in range(cpus))
    nodes = "\n".join(
        f'\t\tcpu{i}: cpu@{i} {{ device_type = "cpu"; compatible = "arm,cortex-a53"; '
        f'reg = <0x0 0x{i:x}>; enable-method = "psci"; }};' for i in range(cpus))
    return f"""/dts-v1/;
/ {{
	model = "sched-harness guest mirror, {cpus} CPUs";
	compatible = "sched-harness,guest-mirror";
	#address-cells = <2>;
	#size-cells = <2>;
	psci {{ compatible = "arm,psci-1.0"; method = "smc"; }};
	cpus {{
		#address-cells = <2>;
		#size-cells = <0>;
		cpu-map {{ cluster0 {{ {cores}}}; }};
{nodes}
	}};
}};
"""


def config_value(path, name):
    for line in open(path, encoding="utf-8"):
        if line.startswith(f"CONFIG_{name}="):
            return line.split("=", 1)[1].strip()
        if line.startswith(f"# CONFIG_{name} is not set"):
            return "n"
    return "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload")
    ap.add_argument("--series", choices=["6.1", "6.12"], default="6.1")
    ap.add_argument("--build", help="the harness's build directory (build/ for 6.1, build-6.12/ for 6.12)")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    if not os.access(args.workload, os.R_OK):
        fail(f"cannot read the rt-app file '{args.workload}'")
    if args.cpus < 1 or args.repeat < 2:
        fail("--cpus at least 1, --repeat at least 2 (the guest's spread needs two runs)")
    build = args.build or os.path.join(ROOT, "build" if args.series == "6.1" else "build-6.12")
    harness = os.path.join(build, "harness", "sched-harness")
    if not os.access(harness, os.X_OK):
        fail(f"no sched-harness in {build} (scripts/build.sh, or --build DIR)")
    out = args.out or tempfile.mkdtemp(prefix="sched-harness-validate.")

    guest_dir = os.path.join(out, "guest")
    r = subprocess.run([os.path.join(ROOT, "scripts", "guest", "run-in-guest.sh"), "--series", args.series,
                        "--cpus", str(args.cpus), "--repeat", str(args.repeat), "--out", guest_dir,
                        args.workload])
    if r.returncode:
        sys.exit(r.returncode)

    harness_dir = os.path.join(out, "harness")
    os.makedirs(harness_dir, exist_ok=True)
    board = os.path.join(harness_dir, "mirror.dts")
    with open(board, "w", encoding="utf-8") as f:
        f.write(mirror_board(args.cpus))
    tasks = None
    for k in range(1, args.repeat + 1):
        r = subprocess.run([harness, "run", "--json", "--board", board, "--workload", args.workload, "--seed", str(k),
                            "--trace", os.path.join(harness_dir, f"run-{k}.trace")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            fail(f"the harness's run {k} failed: {r.stderr.strip()}", 3)
        # the rt-app file's tasks, as the harness's own parser read them
        tasks = tasks or sorted({task_key(t["name"]) for t in json.loads(r.stdout)["tasks"]})

    guest = [metrics(os.path.join(guest_dir, f"run-{k}.trace"), tasks) for k in range(1, args.repeat + 1)]
    ours = [metrics(os.path.join(harness_dir, f"run-{k}.trace"), tasks) for k in range(1, args.repeat + 1)]
    version = open(os.path.join(guest_dir, "version"), encoding="utf-8").read().strip()
    config = os.path.join(guest_dir, "config")
    print(f"validate: {args.workload}, {args.repeat} runs each, {args.cpus} CPUs")
    print(f"  guest:   {version} in QEMU (TCG), HZ {config_value(config, 'HZ')}, "
          f"preemption {'dynamic' if config_value(config, 'PREEMPT_DYNAMIC') == 'y' else 'static'}")
    print(f"  harness: {harness} on {board}")
    print("  timings (latencies, energy) are not compared: the guest's time under TCG is not real\n")
    print(f"  {'task':<16} {'metric':<24} {'guest min..max (mean)':>28} {'harness mean':>13}  verdict")
    differs = 0
    for t in tasks:
        print(f"  {t:<16} {'wake-ups':<24} {' '.join(str(run[t]['wakeups']) for run in guest):>28} "
              f"{statistics.mean(run[t]['wakeups'] for run in ours):>13.1f}  (not compared: TCG's time)")
        for name, label in (("switches_in", "switches per wake-up"), ("preempted", "preempted % of switches"),
                            ("migrations", "migrations % of wake-ups"), ("woken_on_prev", "woken on prev CPU %"),
                            ("cpu_share", "CPU time share %")):
            g = [run[t][name] for run in guest]
            h = statistics.mean(run[t][name] for run in ours)
            agree = min(g) <= h <= max(g)
            differs += not agree
            print(f"  {t:<16} {label:<24} {f'{min(g):.2f}..{max(g):.2f} ({statistics.mean(g):.2f})':>28} "
                  f"{h:>13.2f}  {'agrees' if agree else 'differs'}")
    print(f"\n  traces: {out}/guest/run-K.trace, {out}/harness/run-K.trace")
    sys.exit(1 if differs else 0)


if __name__ == "__main__":
    main()
