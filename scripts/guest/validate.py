#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Debian's interpreter: python3-scipy (scripts/setup.sh --tests) installs SciPy
# for it, not for a python3 of pyenv or a venv found earlier on PATH.
"""Runs one rt-app file in a QEMU guest booting Debian's image of the
build's tree (scripts/guest/run-in-guest.sh) and in the harness on a board
that mirrors the guest, N times each, and compares the decisions both
traces show, per rt-app task: switches in, preemptions, migrations,
wake-ups and forks and where they land, slice length, and the share of
the tasks' CPU time. The harness runs the file as written (seeds 1..N)
and fed each guest run's threads (the file's and the guest's own, with
the CPU time and sleeps they had), so that what differs there is a
decision, not the guest's time. A metric agrees when the difference of
the harness's mean from the guest's is shown to lie within the metric's
equivalence margin, differs when it is shown to lie beyond it, and is
undecided when the runs cannot tell; a metric with fewer than MIN_EVENTS
events behind a side has too few events to compare (too-few-events:
verdict()). Timings
(latencies, energy) are not compared: under TCG the guest's time is not
real (docs/validation.md).

  scripts/guest/validate.py [--series 5.10|6.1|6.12|7.3] [--build DIR] [--cpus N]
                            [--repeat N] [--out DIR] [--guest DIR] FILE.json

Exit status: 0 when every metric agrees, 1 when some differ, 2 for bad
input, 3 when a run failed.
"""
import argparse
import atexit
import functools
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

try:
    from scipy import stats
except ImportError:
    print(f"validate: {sys.executable} has no SciPy, for its t distribution "
          "(Debian: python3-scipy; scripts/setup.sh --tests installs it)", file=sys.stderr)
    sys.exit(2)

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


def events(trace_path):
    """(event, cpu, timestamp, fields) of each line of an ftrace text trace.
    A marker's fields are its writer's pid and its text."""
    with open(trace_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            mo = LINE.match(line)
            if mo and mo["event"] == "tracing_mark_write":
                yield mo["event"], int(mo["cpu"]), float(mo["ts"]), dict(pid=mo["pid"], text=mo["fields"])
            elif mo:
                yield mo["event"], int(mo["cpu"]), float(mo["ts"]), dict(FIELD.findall(mo["fields"]))


@functools.lru_cache(maxsize=None)	# metrics(), activations() and other_threads() read each trace
def threads_of(trace_path, tasks):
    """pid -> the rt-app task of each thread the trace names by a task's
    name. By pid, not by name: rt-app's threads carry their parent's name
    ("rt-app") until they set theirs, after their fork was traced."""
    pids = {}
    for event, _, _, fields in events(trace_path):
        for pid, comm in (("pid", "comm"), ("prev_pid", "prev_comm"), ("next_pid", "next_comm")):
            if pid in fields and task_of(fields.get(comm, ""), tasks):
                pids[fields[pid]] = task_of(fields[comm], tasks)
    return pids


def metrics(trace_path, tasks):
    """Per task: what the trace shows it was decided for it."""
    m = {t: dict(switches_in=0, preempted=0, migrations=0, wakeups=0, woken_on_prev=0, forks=0,
                 forked_on_parent=0, cpu_time=0.0) for t in tasks}
    pids = threads_of(trace_path, tasks)
    last_cpu, running_since = {}, {}
    for event, cpu, ts, fields in events(trace_path):
        if event == "sched_switch":
            prev, nxt = pids.get(fields.get("prev_pid")), pids.get(fields.get("next_pid"))
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
            continue
        t = pids.get(fields.get("pid"))
        if not t:
            continue
        if event == "sched_wakeup":
            m[t]["wakeups"] += 1
            if last_cpu.get(fields["pid"]) == int(fields["target_cpu"]):
                m[t]["woken_on_prev"] += 1
        elif event == "sched_wakeup_new":
            # recorded on the parent's CPU (wake_up_new_task())
            m[t]["forks"] += 1
            m[t]["forked_on_parent"] += int(fields["target_cpu"]) == cpu
        elif event == "sched_migrate_task":
            m[t]["migrations"] += 1
    # as rates: how many loops the guest gets through depends on its
    # (TCG's) time, what is decided at each does not; None where the
    # trace has nothing to divide by (a task that never sleeps has no
    # wake-ups)
    rate = lambda part, whole, scale=100.0: scale * part / whole if whole else None
    total = sum(v["cpu_time"] for v in m.values())
    for v in m.values():
        wakeups, switches, cpu_time = v["wakeups"], v["switches_in"], v.pop("cpu_time")
        # the events each rate counts over (its denominator's, or the
        # events that make it up): a rate of five events decides nothing
        v["events"] = dict(switches_in=wakeups, preempted=switches, migrations=switches, woken_on_prev=wakeups,
                           forked_on_parent=v["forks"], switches_per_cpu_s=switches, cpu_share=switches)
        v["cpu_share"] = rate(cpu_time, total)
        v["switches_per_cpu_s"] = rate(switches, cpu_time, 1.0)
        v["woken_on_prev"] = rate(v["woken_on_prev"], wakeups)
        v["migrations"] = rate(v["migrations"], switches)
        v["preempted"] = rate(v["preempted"], switches)
        v["switches_in"] = rate(switches, wakeups, 1.0)
        v["forked_on_parent"] = rate(v["forked_on_parent"], v["forks"])
    return m


def wake_decisions(trace_path, thread_of, llc_of):
    """Each wake-up of the rt-app file's threads, in order per thread:
    the state select_task_rq() saw and what it chose, as the trace shows
    them. Both are told relative to the thread's previous CPU, so that
    two CPUs the topology cannot tell apart (the mirror board's, the
    guest's) are the same place: the state is whether the waker's CPU is
    the previous CPU or shares its LLC, whether each of them runs a task,
    and how many other CPUs run one in the previous CPU's LLC and in the
    others; the choice is the previous CPU, the waker's, or another CPU
    of the previous CPU's LLC or of another, idle or busy. thread_of maps
    a pid and comm to the thread's name on both sides (the guest's pid,
    which the fed file's task names carry); llc_of a CPU to its LLC."""
    running, pending, decisions = {}, {}, {}
    for event, cpu, _, fields in events(trace_path):
        if event == "sched_switch":
            running[cpu] = fields.get("next_pid", "0")
            continue
        thread = thread_of(fields.get("pid"), fields.get("comm", ""))
        if thread is None:
            continue
        if event == "sched_waking":
            prev = int(fields["target_cpu"])
            busy = {c for c, pid in running.items() if pid != "0"}
            others = busy - {prev, cpu}
            state = (cpu == prev, llc_of(cpu) == llc_of(prev), prev in busy, cpu in busy,
                     sum(llc_of(c) == llc_of(prev) for c in others), sum(llc_of(c) != llc_of(prev) for c in others))
            pending[thread] = (state, prev, cpu, busy)
        elif event == "sched_wakeup" and thread in pending:
            state, prev, waker, busy = pending.pop(thread)
            target = int(fields["target_cpu"])
            choice = ("previous CPU" if target == prev else "waker's CPU" if target == waker else
                      f"{'busy' if target in busy else 'idle'} CPU of {'its' if llc_of(target) == llc_of(prev) else 'another'}"
                      " LLC")
            decisions.setdefault(thread, []).append((state, choice))
    return decisions


def same_state_decisions(guest_trace, fed_trace, tasks, llc_of):
    """Per decision: the k-th wake-up of each thread on both sides, where
    the harness, fed the guest's run, met the state the guest's kernel
    met (wake_decisions()). Returns the guest's wake-ups, those met in the
    same state, and those where the harness then chose as the guest did."""
    guest_pids = threads_of(guest_trace, tasks)
    guest = wake_decisions(guest_trace, lambda pid, comm: pid if pid in guest_pids else None, llc_of)
    # the fed file names each thread TASK-PID after the guest's thread
    fed = wake_decisions(fed_trace, lambda pid, comm: (comm.rsplit("-", 1)[1] if task_of(comm, tasks) and
                                                       comm.rsplit("-", 1)[-1].isdigit() else None), llc_of)
    woken = same = chosen = 0
    for thread, theirs in guest.items():
        woken += len(theirs)
        for (state, choice), (our_state, our_choice) in zip(theirs, fed.get(thread, [])):
            if state == our_state:
                same += 1
                chosen += choice == our_choice
    return woken, same, chosen


def activations(trace_path, tasks):
    """What each fair-class thread of a guest run did, as the trace shows
    it: the rt-app file's threads, and the guest's own (rt-app's main
    thread, init, kworkers, rcu_preempt, ...), which the harness does not
    have otherwise. For each: when it appeared, its nice value, the CPU a
    per-CPU kthread is bound to, and for each time it ran from a wake-up
    to its next sleep the CPU time it used and how long it then slept,
    with the instants and CPU time so far at each of rt-app's "executing"
    markers in it (global.ftrace: where each event began). The
    rest (where it ran, who waited for whom) was decided by the guest's
    kernel and is what the comparison is about. Real-time threads
    (migration/N) are left out: the harness drives the fair class."""
    pids = threads_of(trace_path, tasks)
    threads, order, realtime = {}, [], set()

    def thread(pid, comm, ts):
        if pid in (None, "0") or pid in realtime:
            return None
        if pid not in threads:
            bound = re.match(r"^[\w-]+/(\d+)(:\d+H?)?$", comm)
            threads[pid] = dict(task=pids.get(pid), comm=comm, start=ts, nice=None,
                                cpu_bound=int(bound[1]) if bound else None, cpu=0.0, running_since=None,
                                blocked_at=None, exiting=False, marks=[], preempted_at=None,
                                waits=[], done=[])
            order.append(pid)
        return threads[pid]

    for event, _, ts, fields in events(trace_path):
        if event == "sched_wakeup_new":
            thread(fields.get("pid"), fields.get("comm", ""), ts)
        elif event == "sched_switch":
            t = thread(fields.get("prev_pid"), fields.get("prev_comm", ""), ts)
            if t and t["running_since"] is not None:
                t["cpu"] += ts - t["running_since"]
                t["running_since"] = None
                state = fields.get("prev_state", "R")
                if t["exiting"] or state[0] in "XZ":
                    t["done"].append((t["cpu"], None, t["marks"], t["waits"]))
                    t["cpu"], t["marks"], t["waits"] = 0.0, [], []
                elif state[0] in "SDI":
                    t["blocked_at"] = ts
                else:
                    t["preempted_at"] = ts
            pid = fields.get("next_pid")
            if int(fields.get("next_prio", 120)) < 100:
                realtime.add(pid)
                threads.pop(pid, None)
                continue
            t = thread(pid, fields.get("next_comm", ""), ts)
            if t:
                t["running_since"] = ts
                if t["preempted_at"] is not None:
                    t["waits"].append((t["preempted_at"], ts))
                    t["preempted_at"] = None
                # as it last ran: rt-app's threads set their nice after they
                # start, so their first switch in is still at their parent's
                t["nice"] = int(fields.get("next_prio", 120)) - 120
        elif event == "sched_waking":
            t = thread(fields.get("pid"), fields.get("comm", ""), ts)
            if t and t["blocked_at"] is not None:
                t["done"].append((t["cpu"], ts - t["blocked_at"], t["marks"], t["waits"]))
                t["cpu"], t["blocked_at"], t["marks"], t["waits"] = 0.0, None, [], []
        elif event == "sched_process_exit":
            t = threads.get(fields.get("pid"))
            if t:
                t["exiting"] = True
        elif event == "tracing_mark_write" and re.match(r"\[\d+\] executing \d+$", fields["text"]):
            t = threads.get(fields["pid"])
            if t and t["running_since"] is not None:	# the thread writes it, running
                t["marks"].append((ts, t["cpu"] + ts - t["running_since"]))
    for t in threads.values():
        if t["cpu"] > 0:	# still running when the trace stopped
            t["done"].append((t["cpu"], None, t["marks"], t["waits"]))
    return [dict(pid=pid, **threads[pid]) for pid in order if pid in threads], len(realtime)


def runtime_tasks(workload):
    """The rt-app file's tasks whose one wall-clock event is a `runtime`
    of one length: task -> that length, in seconds."""
    try:
        with open(workload, encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, ValueError):
        return {}	# rt-app's comments: fed by CPU time (the report counts 0 by markers)

    def lengths(node):
        if not isinstance(node, dict):
            return []
        return [v for k, v in node.items() if k.startswith("runtime") and isinstance(v, int)] + \
            [x for k, v in node.items() for x in lengths(v)]
    found = {task_key(name): set(lengths(task)) for name, task in spec.get("tasks", {}).items()}
    return {name: runtime.pop() / 1e6 for name, runtime in found.items() if len(runtime) == 1}


def fed_workload(threads, path, runtimes):
    """An rt-app file that makes the harness's threads do what the guest's
    did: each started at the guest's instant, each activation's CPU time
    as `run` (work at full capacity: the mirror board has no cpufreq) and
    each sleep as `sleep`, the same nice values and per-CPU bindings, no
    jitter. Where the harness decides as the guest did, its timeline is
    the guest's.
    A task of the file whose event is a wall-clock `runtime` spins until
    the clock says so, however long it waits on the way, so its CPU time
    is what the guest's preemptions left of it, not what it asked for.
    Where rt-app's markers bound the event (an activation with two: the
    runtime's start and the sleep's), it is fed as a `runtime` of the span
    between them, less the time the thread waited preempted after the
    file's length had passed (it ends at its next instant on a CPU), and
    between `run`s of the CPU time rt-app's own code took before and
    after it. Without markers its CPU time is fed (the span from a switch
    in to the sleep would hold rt-app's own waits, not the runtime's)."""
    if not any(t["task"] for t in threads):
        fail("the guest's trace has no thread of the rt-app file's tasks", 3)
    # from the trace's first event: the guest's own threads' work before
    # rt-app forked is replayed too (rt-app's main thread parsing, init)
    t0 = min(t["start"] for t in threads)
    us = lambda seconds: max(1, round(seconds * 1e6))
    tasks, end, own, marked = {}, t0, 0, 0
    for t in threads:
        phases, at = {}, t["start"]
        for k, (cpu, sleep, marks, waits) in enumerate(t["done"]):
            if t["task"] in runtimes and len(marks) == 2:
                (start, cpu_before), (end_at, cpu_by_end) = marks
                due = start + runtimes[t["task"]]
                late = sum(max(0.0, min(back, end_at) - max(off, due)) for off, back in waits)
                runtime = end_at - start - late
                phase = {"run0": us(cpu_before), "runtime": us(runtime), "run1": us(cpu - cpu_by_end)}
                at += cpu_before + runtime + (cpu - cpu_by_end)
                marked += 1
            else:
                phase = {"run": us(cpu)}
                at += cpu
            if sleep is not None:
                phase["sleep"] = us(sleep)
                at += sleep
            phases[f"a{k}"] = phase
        if not phases:
            continue
        end = max(end, at)
        task = {"loop": 1, "delay": round((t["start"] - t0) * 1e6), "phases": phases}
        if t["nice"]:
            task["priority"] = t["nice"]
        if t["cpu_bound"] is not None:
            task["cpus"] = [t["cpu_bound"]]
        # TASK-PID: the comparison keys threads by the name before "-N";
        # the guest's own threads by their name, made a task's name
        name = t["task"] or "guest_" + re.sub(r"\W", "_", t["comm"])
        tasks[f"{name}-{t['pid']}"] = task
        own += not t["task"]
    workload = {"global": {"duration": int(end - t0) + 2, "default_policy": "SCHED_OTHER"}, "tasks": tasks}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(workload, f, indent=1)
    return len(tasks) - own, own, marked


# The tick's hrtimer callback (kernel/time/tick-sched.c): 6.1's name, and
# the name it has since 6.9
TICK_HANDLERS = ("tick_sched_timer", "tick_nohz_handler")


def tick_lateness(trace_path):
    """How late each of the guest's ticks ran, in microseconds: the
    `now` of each tick handler's expiry less the expiry that timer was
    last started or forwarded to (hrtimer_start). The harness's ticks are
    on time; under TCG a vCPU that the host does not run when its timer is
    due takes it late, and a late tick lengthens a slice that tick
    preemption ends. None for a trace without the timer events (a run
    made before run-in-guest.sh traced them)."""
    expires, late, timers = {}, [], False
    for event, _, _, fields in events(trace_path):
        timers |= event == "hrtimer_expire_entry"
        if fields.get("function") not in TICK_HANDLERS:
            continue
        if event == "hrtimer_start":
            expires[fields["hrtimer"]] = int(fields["expires"])
        elif event == "hrtimer_expire_entry" and fields["hrtimer"] in expires:
            late.append((int(fields["now"]) - expires.pop(fields["hrtimer"])) / 1000.0)
    return late if timers else None


def other_threads(trace_path, tasks):
    """The share of the guest's busy CPU time outside the rt-app file's
    threads, and the four threads (by name) that took most of it: its own
    kthreads and rt-app's main thread."""
    pids = threads_of(trace_path, tasks)
    busy, running = {}, {}
    for event, cpu, ts, fields in events(trace_path):
        if event != "sched_switch":
            continue
        if cpu in running:
            who, since = running.pop(cpu)
            busy[who] = busy.get(who, 0.0) + ts - since
        if fields.get("next_pid") != "0":
            pid = fields.get("next_pid")
            running[cpu] = (pids.get(pid) or re.sub(r"/\d+(:\d+H?)?$", "", fields.get("next_comm", "?")), ts)
    total = sum(busy.values())
    others = {c: v for c, v in busy.items() if c not in tasks}
    return 100.0 * sum(others.values()) / total if total else 0.0, sorted(others.items(), key=lambda kv: -kv[1])[:4]


def mirror_board(cpus, sockets, socket_nodes):
    """A board as the guest sees its CPUs: symmetric, no cpufreq, no idle
    states; SOCKETS clusters of CPUS/SOCKETS cores, each its own package, so
    that the kernel builds an MC domain per cluster and one above them, as
    the guest's per-socket LLCs give it. A tree whose arch_topology.c
    parses socket nodes (5.19 on) needs each cluster in a socket of its
    own; before, a top-level cluster is a package."""
    per = cpus // sockets
    clusters = []
    for k in range(sockets):
        cores = "".join(f"core{i} {{ cpu = <&cpu{k * per + i}>; }}; " for i in range(per))
        clusters.append(f"socket{k} {{ cluster0 {{ {cores}}}; }};" if socket_nodes and sockets > 1
                        else f"cluster{k} {{ {cores}}};")
    nodes = "\n".join(
        f'\t\tcpu{i}: cpu@{i} {{ device_type = "cpu"; compatible = "arm,cortex-a53"; '
        f'reg = <0x0 0x{i:x}>; enable-method = "psci"; }};' for i in range(cpus))
    return f"""/dts-v1/;
/ {{
	model = "sched-harness guest mirror, {cpus} CPUs in {sockets} socket{'s' if sockets > 1 else ''}";
	compatible = "sched-harness,guest-mirror";
	#address-cells = <2>;
	#size-cells = <2>;
	psci {{ compatible = "arm,psci-1.0"; method = "smc"; }};
	cpus {{
		#address-cells = <2>;
		#size-cells = <0>;
		cpu-map {{ {' '.join(clusters)} }};
{nodes}
	}};
}};
"""


def tree_parses_sockets(harness):
    """Whether the harness's tree reads socket nodes of the cpu-map."""
    info = subprocess.run([harness, "kernel", "info"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True).stdout
    tree = next((line.split()[2] for line in info.splitlines() if line.startswith("Kernel tree")), None)
    try:
        with open(os.path.join(tree, "drivers", "base", "arch_topology.c"), encoding="utf-8") as f:
            return "socket%d" in f.read()
    except (OSError, TypeError):
        fail(f"{harness} kernel info names no readable tree (drivers/base/arch_topology.c)", 3)


def cpulist(mask):
    """ "0000000f" or "00000000,0000000f" -> "0-3" (platform show's spelling)."""
    value = int(mask.replace(",", ""), 16)
    cpus = [i for i in range(value.bit_length()) if value >> i & 1]
    ranges, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            ranges.append(f"{start}" if start == c else f"{start}-{c}")
            start = None
    return ",".join(ranges)


def guest_domains(path, cpu="0"):
    """CPU's sched domain levels in the guest, innermost first: (name, span)."""
    names, spans = {}, {}
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if f[0] == "domain" and f[1] == cpu and len(f) > 3:
            names[int(f[2])] = f[3]
        elif f[0] == "domainname" and f[1] == cpu and len(f) > 3:
            names.setdefault(int(f[2]), f[3])
        elif f[0] == "span" and f[1] == cpu and len(f) > 3:
            spans[int(f[2])] = cpulist(f[3])
    return [(names.get(k, "?"), spans.get(k, "?")) for k in sorted(set(names) | set(spans))]


def harness_domains(harness, board, cpu="0"):
    """CPU's sched domain levels on the mirror board, as `platform show` builds them."""
    shown = subprocess.run([harness, "platform", "show", board], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if shown.returncode:
        fail(f"platform show {board} failed: {shown.stderr.strip()}", 3)
    return [(f[1], f[3]) for f in (line.split() for line in shown.stdout.splitlines())
            if f[:1] == [f"cpu{cpu}"] and len(f) > 3 and f[2] == "span"]


# What the comparison reads from both traces: name, label, and whether the
# fed run decides it. It does not decide forks (the fed file forks all its
# threads at its start and they wait their delay) nor CPU-time shares (each
# thread is given the CPU time the guest's had).
METRICS = (("switches_in", "switches per wake-up", True), ("preempted", "preempted % of switches", True),
           ("migrations", "migrations % of switches", True), ("woken_on_prev", "woken on prev CPU %", True),
           ("forked_on_parent", "forked on parent's CPU %", False),
           ("switches_per_cpu_s", "switches per CPU-second", True), ("cpu_share", "CPU time share %", False))

# The equivalence margin of each metric: a difference of the harness's mean
# from the guest's smaller than this is agreement (docs/validation.md,
# "Verdicts"): percentage points for the shares, 0.1 switch per wake-up,
# and 10 % of the guest's mean for the switch rate (its scale is the
# task's). Fixed before any comparison, and the same for every file.
MARGINS = dict(switches_in=0.1, preempted=5.0, migrations=5.0, woken_on_prev=5.0, forked_on_parent=10.0,
               switches_per_cpu_s=None, cpu_share=3.0)
RELATIVE_MARGIN = 0.10
# Fewer events than this behind a metric, summed over a side's runs, and
# the metric's rate is too coarse to compare: "too few events".
MIN_EVENTS = 30


def margin_of(name, guest):
    return MARGINS[name] if MARGINS[name] is not None else RELATIVE_MARGIN * abs(statistics.mean(guest))


def verdict(name, guest, ours, guest_events, our_events):
    """The verdict of a metric, from the runs' values of both sides
    (Welch's t over runs, an equivalence margin per metric):
      agrees          the 90 % confidence interval of the difference of the
                      means lies within the margin (two one-sided tests at 5 %);
      differs         the 99 % interval excludes 0 and the difference is
                      beyond the margin;
      undecided       neither: the runs cannot tell (more runs can);
      too-few-events  fewer than MIN_EVENTS behind a side."""
    if sum(guest_events) < MIN_EVENTS or sum(our_events) < MIN_EVENTS:
        return "too-few-events"
    if len(guest) < 2 or len(ours) < 2:
        return "undecided"	# a spread needs two runs
    margin = margin_of(name, guest)
    diff = statistics.mean(ours) - statistics.mean(guest)
    var_g, var_h = statistics.variance(guest) / len(guest), statistics.variance(ours) / len(ours)
    se = math.sqrt(var_g + var_h)
    if se == 0:
        return "agrees" if abs(diff) <= margin else "differs"
    df = (var_g + var_h) ** 2 / (var_g ** 2 / (len(guest) - 1) + var_h ** 2 / (len(ours) - 1)) \
        if var_g and var_h else len(guest) + len(ours) - 2
    if abs(diff) + stats.t.ppf(0.95, df) * se <= margin:
        return "agrees"
    if abs(diff) - stats.t.ppf(0.995, df) * se > 0 and abs(diff) > margin:
        return "differs"
    return "undecided"


# The guest image's options that change scheduling decisions, and what the
# harness does where its configuration differs (kernel info lists its
# departures from the defconfig; docs/architecture.md says why each is so).
# HZ is applied (kernel build --config); the others cannot be or need not be.
CONFIG_OPTIONS = (
    ("HZ", None),
    ("NO_HZ_IDLE", "not applied: an idle CPU stops its tick under either option (the guest's NO_HZ_FULL "
     "selects it), as the harness's glue/tick.c does"),
    ("NO_HZ_FULL", "not applied: no CPU of the guest is nohz_full (no nohz_full= on its command line)"),
    ("PREEMPT_DYNAMIC", "not applied: kernel code cannot be preempted in the harness (no stack to switch to); "
     "a user task's wake-up and tick preemption are the same in every model"),
    ("PREEMPT_VOLUNTARY", "as PREEMPT_DYNAMIC"),
    ("PREEMPT_NONE", "as PREEMPT_DYNAMIC"),
    ("PREEMPT", "as PREEMPT_DYNAMIC"),
    ("SCHED_MC", "not applied: the mirror board's one cluster gives the MC domain either way"),
    ("SCHED_SMT", "not applied: the guest has no SMT siblings (-smp N: N cores), nor has the mirror board"),
    ("SCHED_AUTOGROUP", "not needed: the guest's rt-app runs in pid 1's session, the root task group"),
    ("FAIR_GROUP_SCHED", "not needed: every task of the guest is in the root task group"),
    ("CFS_BANDWIDTH", "not needed: no bandwidth limit is set in the guest"),
    ("UCLAMP_TASK", "not needed: the rt-app files set no clamps"),
)


def read_config(path):
    """NAME -> value of a kernel .config (or the harness's kconfig
    fragment); 'n' for '# CONFIG_X is not set'."""
    values = {}
    for line in open(path, encoding="utf-8"):
        mo = re.match(r"^(?:# )?CONFIG_(\w+)(?:=(.*)| is not set)$", line.strip())
        if mo:
            values[mo[1]] = mo[2] if mo[2] is not None else "n"
    return values


def guest_clock(guest_dir):
    """How the guest's clock ran (run-in-guest.sh's DIR/clock): the host's,
    or QEMU's instruction counter."""
    try:
        clock = open(os.path.join(guest_dir, "clock"), encoding="utf-8").read().split()
    except OSError:
        clock = ["host"]
    if clock[:1] == ["icount"]:
        return ", on its instruction counter"
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload")
    ap.add_argument("--series", choices=["5.10", "6.1", "6.12", "7.3"], default="6.1")
    ap.add_argument("--build", help="the harness's build directory (build/ for 6.1, build-SERIES/ for the others)")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--sockets", type=int, default=1,
                    help="the guest's CPUs in this many sockets (each its own LLC), the mirror board's in as many "
                         "clusters")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--boot-each", action="store_true",
                    help="boot the guest for each run (run-in-guest.sh --boot-each), not once for all of them")
    ap.add_argument("--icount", action="store_true",
                    help="run the guest on QEMU's instruction counter (run-in-guest.sh --icount): its ticks "
                         "then come when due however busy the host is")
    ap.add_argument("--out")
    ap.add_argument("--guest", metavar="DIR",
                    help="compare the guest runs already in DIR (an earlier validation's OUT/guest, or "
                         "run-in-guest.sh --out DIR) instead of booting the guest again")
    args = ap.parse_args()
    if not os.access(args.workload, os.R_OK):
        fail(f"cannot read the rt-app file '{args.workload}'")
    if args.cpus < 1 or args.repeat < 2:
        fail("--cpus at least 1, --repeat at least 2 (the guest's spread needs two runs)")
    if args.sockets < 1 or args.cpus % args.sockets:
        fail(f"--sockets {args.sockets}: a divisor of --cpus {args.cpus} (each socket has the same cores)")
    build = args.build or os.path.join(ROOT, "build" if args.series == "6.1" else f"build-{args.series}")
    harness = os.path.join(build, "harness", "sched-harness")
    if not os.access(harness, os.X_OK):
        fail(f"no sched-harness in {build} (scripts/build.sh, or --build DIR)")
    out = args.out
    if not out:	# the runs are kept only where --out says
        out = tempfile.mkdtemp(prefix="sched-harness-validate.")
        atexit.register(shutil.rmtree, out, ignore_errors=True)

    if args.guest:
        guest_dir = args.guest
        for name in ["version", "config"] + [f"run-{k}.trace" for k in range(1, args.repeat + 1)]:
            if not os.access(os.path.join(guest_dir, name), os.R_OK):
                fail(f"--guest {guest_dir}: no {name} (--repeat {args.repeat} needs run-1.trace .. "
                     f"run-{args.repeat}.trace)")
        # the same kernel both ways: the runs' image is the tree's version
        booted = open(os.path.join(guest_dir, "version"), encoding="utf-8").read().split()
        tree = subprocess.run([os.path.join(ROOT, "scripts", "guest", "run-in-guest.sh"), "--series", args.series,
                               "--tree-version"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
        if booted[-1:] != [tree]:
            fail(f"--guest {guest_dir}: the guest booted {' '.join(booted)}, the tree is linux-source-"
                 f"{args.series} {tree or '(not installed)'}: the image and the tree must match")
    else:
        guest_dir = os.path.join(out, "guest")
        r = subprocess.run([os.path.join(ROOT, "scripts", "guest", "run-in-guest.sh"), "--series", args.series,
                            "--cpus", str(args.cpus), "--sockets", str(args.sockets), "--repeat",
                            str(args.repeat), "--out", guest_dir,
                            # one host thread runs every vCPU on the counter
                            *(["--icount", "--timeout", str(120 * args.cpus)] if args.icount else []),
                            *(["--boot-each"] if args.boot_each else []),
                            args.workload])
        if r.returncode:
            sys.exit(r.returncode)

    harness_dir = os.path.join(out, "harness")
    os.makedirs(harness_dir, exist_ok=True)
    board = os.path.join(harness_dir, "mirror.dts")
    with open(board, "w", encoding="utf-8") as f:
        f.write(mirror_board(args.cpus, args.sockets, tree_parses_sockets(harness)))
    # the guest image's scheduler options: HZ applied, the rest said
    guest_config = read_config(os.path.join(guest_dir, "config"))
    ours_path = os.path.join(build, "kernel-shim", "arch-arm64", "kconfig")
    if not os.access(ours_path, os.R_OK):
        fail(f"no {ours_path}: the build's arm64 configuration (scripts/build.sh, or --build DIR)")
    ours_config = read_config(ours_path)
    config_lines, kernel = [], []
    for name, why in CONFIG_OPTIONS:
        theirs, ours = guest_config.get(name, "n"), ours_config.get(name, "n")
        if theirs == ours:
            continue
        if name == "HZ":
            options = [f"CONFIG_HZ={theirs}", f"CONFIG_HZ_{theirs}=y", f"CONFIG_HZ_{ours}=n"]
            r = subprocess.run([harness, "--arch", "arm64", "kernel", "build",
                                *(a for o in options for a in ("--config", o))],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode:
                fail(f"kernel build {' '.join(options)} failed: {r.stderr.strip()}", 3)
            kernel = ["--kernel", r.stdout.strip()]
            why = f"applied: kernel build --config {' --config '.join(options)} ({kernel[1]})"
        config_lines.append(f"           CONFIG_{name}: guest {theirs}, harness {ours}: {why}")

    def harness_run(k, workload, trace, *extra):
        r = subprocess.run([harness, "run", "--json", "--board", board, "--workload", workload,
                            "--trace", trace, *kernel, *extra],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            fail(f"the harness's run {k} of {workload} failed: {r.stderr.strip()}", 3)
        return json.loads(r.stdout)

    # as written: the file as a user runs it, seeds 1..N
    tasks = None
    for k in range(1, args.repeat + 1):
        report = harness_run(k, args.workload, os.path.join(harness_dir, f"run-{k}.trace"), "--seed", str(k))
        # the rt-app file's tasks, as the harness's own parser read them
        tasks = tasks or tuple(sorted({task_key(t["name"]) for t in report["tasks"]}))
    fed_counts = []
    runtimes = runtime_tasks(args.workload)
    # fed: each guest run's own timings (fork instants, CPU time of each
    # activation, sleeps), no jitter: differences are then decisions
    for k in range(1, args.repeat + 1):
        fed = os.path.join(harness_dir, f"fed-{k}.json")
        threads, realtime = activations(os.path.join(guest_dir, f"run-{k}.trace"), tasks)
        fed_counts.append((*fed_workload(threads, fed, runtimes), realtime))
        harness_run(k, fed, os.path.join(harness_dir, f"fed-{k}.trace"), "--jitter", "0")

    runs = range(1, args.repeat + 1)
    guest = [metrics(os.path.join(guest_dir, f"run-{k}.trace"), tasks) for k in runs]
    written = [metrics(os.path.join(harness_dir, f"run-{k}.trace"), tasks) for k in runs]
    fed = [metrics(os.path.join(harness_dir, f"fed-{k}.trace"), tasks) for k in runs]
    version = open(os.path.join(guest_dir, "version"), encoding="utf-8").read().strip()
    print(f"validate: {args.workload}, {args.repeat} runs each, {args.cpus} CPUs in {args.sockets} socket"
          f"{'s' if args.sockets > 1 else ''}")
    print(f"  guest:   {version} in QEMU (TCG{guest_clock(guest_dir)}), HZ {guest_config.get('HZ', '?')}")
    for k in runs:
        share, top = other_threads(os.path.join(guest_dir, f"run-{k}.trace"), tasks)
        print(f"           run {k}: {share:.1f}% of its busy CPU time in threads the harness does not run"
              + (f" ({', '.join(f'{c} {1000 * v:.1f} ms' for c, v in top)})" if top else ""))
    tick_us = 1e6 / int(guest_config.get("HZ", "250"))
    for k in runs:
        late = tick_lateness(os.path.join(guest_dir, f"run-{k}.trace"))
        if late is None:
            print(f"           run {k}: its ticks were not traced (a run before run-in-guest.sh traced timers)")
        elif not late:
            print(f"           run {k}: no tick in its timer events (the tick handler is none of"
                  f" {', '.join(TICK_HANDLERS)})")
        else:
            late.sort()
            at = lambda q: late[min(len(late) - 1, int(q * len(late)))]
            lost = sum(x >= tick_us for x in late)
            # a tick a quarter period late already moves a slice that
            # ends on a tick: on 6.12's overload the guest's switch rate
            # fell with these runs' share of them (docs/validation.md)
            delayed = sum(x >= tick_us / 4 for x in late)
            print(f"           run {k}: {len(late)} ticks, late by {at(0.5):.0f} us (median), {at(0.9):.0f} us (p90),"
                  f" {late[-1]:.0f} us (max); {100.0 * delayed / len(late):.1f}% a quarter period or more late,"
                  f" {100.0 * lost / len(late):.1f}% a period or more, the periods between lost; the harness's"
                  f" ticks are on time")
            if delayed >= 0.05 * len(late):
                print("           WARNING: the host did not run the guest's vCPUs when their ticks were due (was it"
                      " busy?): tick preemption and slice lengths are not comparable; validate on an idle host")
    print(f"  harness: {harness} on {board}")
    # the same sched domains both sides: the guest's (its debugfs names,
    # /proc/schedstat's spans) against the mirror board's
    ours = harness_domains(harness, board)
    shown = lambda levels: " > ".join(f"{name} {span}" for name, span in levels) or "none"
    domains = os.path.join(guest_dir, "domains")
    if os.access(domains, os.R_OK):
        theirs = guest_domains(domains)
        same = [span for _, span in theirs] == [span for _, span in ours]
        print(f"           cpu0's sched domains: guest {shown(theirs)}; harness {shown(ours)}"
              + (": the same spans" if same else ""))
        if not same:
            print("           WARNING: the mirror board's sched domains are not the guest's: balancing and"
                  " placement across levels are not comparable")
    else:
        print(f"           cpu0's sched domains: harness {shown(ours)}; the guest's were not recorded"
              " (runs before run-in-guest.sh sent them)")
    print("           the guest's scheduler options where the harness's differ:" if config_lines
          else "           the guest's scheduler options are the harness's")
    for line in config_lines:
        print(line)
    print("           as written: the file, seeds 1..N; fed: each guest run's threads, the file's and the")
    print("           guest's own, with their start, CPU time per activation (a runtime event between rt-app's")
    print("           markers as that runtime) and sleeps, no jitter")
    for k, (ours, theirs, marked, realtime) in zip(runs, fed_counts):
        print(f"           fed run {k}: {ours} threads of the file, {theirs} of the guest's own"
              f" ({realtime} real-time ones left out), {marked} runtime events by rt-app's markers:"
              f" harness/fed-{k}.json")
    print("  timings (latencies, energy) are not compared: the guest's time under TCG is not real\n")
    print(f"  verdicts: Welch's t over the runs against an equivalence margin per metric (agrees: the 90 %"
          f" interval of the\n  difference within it; differs: the 99 % interval excludes 0 and the difference"
          f" is beyond it; undecided:\n  neither; too-few-events: under {MIN_EVENTS} events behind a side's runs)."
          f" events: behind each metric, guest/as written/fed\n")
    print(f"  {'task':<16} {'metric':<24} {'guest min..max (mean)':>28} {'events':>17} {'as written':>10}"
          f" {'verdict':<14} {'fed':>8} verdict")
    differs = 0
    for t in tasks:
        print(f"  {t:<16} {'wake-ups':<24} {' '.join(str(run[t]['wakeups']) for run in guest):>28} "
              f"{statistics.mean(run[t]['wakeups'] for run in written):>10.1f} {'':<8} "
              f"{statistics.mean(run[t]['wakeups'] for run in fed):>8.1f} (not compared: TCG's time)")
        for name, label, fed_decides in METRICS:
            g = [run[t][name] for run in guest if run[t][name] is not None]
            events = lambda runs: [run[t]["events"][name] for run in runs]
            cells = []
            for ours in (written, fed):
                h = [run[t][name] for run in ours if run[t][name] is not None]
                if ours is fed and not fed_decides:
                    cells.append(("-", "n/a"))
                    continue
                if not g or not h:
                    # nothing to compare (no wake-up, no fork): a verdict
                    # here could not fail
                    cells.append((f"{statistics.mean(h):.2f}" if h else "-", "n/a"))
                    continue
                said = verdict(name, g, h, events(guest), events(ours))
                differs += said == "differs"
                cells.append((f"{statistics.mean(h):.2f}", said))
            spread = f"{min(g):.2f}..{max(g):.2f} ({statistics.mean(g):.2f})" if g else "-"
            counts = "/".join(str(sum(events(runs))) for runs in (guest, written, fed))
            print(f"  {t:<16} {label:<24} {spread:>28} {counts:>17} {cells[0][0]:>10} {cells[0][1]:<14} "
                  f"{cells[1][0]:>8} {cells[1][1]}")
    # per decision, beside the rates: where the fed harness met the
    # guest's state at a wake-up, did it choose the guest's CPU?
    woken, same, chosen = (sum(c) for c in zip(*(
        same_state_decisions(os.path.join(guest_dir, f"run-{k}.trace"), os.path.join(harness_dir, f"fed-{k}.trace"),
                             tasks, lambda cpu: cpu // (args.cpus // args.sockets)) for k in runs)))
    print(f"\n  per decision, fed: of the guest's {woken} wake-ups of the file's threads, {same} met the same state"
          f" in the harness (the waker's CPU\n  and the busy CPUs against the previous CPU and its LLC); the harness"
          f" chose as the guest did (the previous CPU, the waker's,\n  or an idle or busy CPU of its LLC or"
          f" another) for {chosen} of them" + (f" ({100.0 * chosen / same:.1f}%)" if same else ""))
    print(f"\n  traces: {guest_dir}/run-K.trace, {harness_dir}/run-K.trace, {harness_dir}/fed-K.trace")
    sys.exit(1 if differs else 0)


if __name__ == "__main__":
    main()
