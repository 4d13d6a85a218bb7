// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's probes on the scheduler's and cpufreq's own tracepoints
 * (trace/events/sched.h instantiated by core.c, trace/events/power.h by
 * kernel/trace/power-traces.c): each hit becomes a kshim_trace_event with
 * the CPU it fired on, the simulated time, and its arguments as numbers.
 * Tasks are recorded as pid and prio, as the ftrace events print them.
 *
 *   sched_switch        prev_pid prev_prio prev_state next_pid next_prio preempt
 *   sched_wakeup(_new)  pid prio target_cpu
 *   sched_migrate_task  pid prio orig_cpu dest_cpu
 *   cpu_frequency       state(kHz) cpu_id
 *   cpu_idle            state cpu_id
 */
#include "../export/build_policy_headers.h"

#include <linux/sched/clock.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>

#include <kshim/api.h>

static void record(const char *name, int nr_args, const long long *args)
{
	struct kshim_trace_event ev = {
		.name = name,
		.cpu = smp_processor_id(),
		.time_ns = sched_clock(),
		.nr_args = nr_args,
	};
	int i;

	for (i = 0; i < nr_args; i++)
		ev.args[i] = args[i];
	shim_trace(&ev);
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	const long long args[] = { prev->pid, prev->prio, prev_state, next->pid, next->prio, preempt };

	record("sched_switch", ARRAY_SIZE(args), args);
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p) };

	record("sched_wakeup", ARRAY_SIZE(args), args);
}

static void probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p) };

	record("sched_wakeup_new", ARRAY_SIZE(args), args);
}

static void probe_sched_migrate_task(void *data, struct task_struct *p, int dest_cpu)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p), dest_cpu };

	record("sched_migrate_task", ARRAY_SIZE(args), args);
}

static void probe_cpu_frequency(void *data, unsigned int frequency, unsigned int cpu_id)
{
	const long long args[] = { frequency, cpu_id };

	record("cpu_frequency", ARRAY_SIZE(args), args);
}

static void probe_cpu_idle(void *data, unsigned int state, unsigned int cpu_id)
{
	const long long args[] = { state, cpu_id };

	record("cpu_idle", ARRAY_SIZE(args), args);
}

int kshim_sched_trace_attach(void)
{
	return register_trace_sched_switch(probe_sched_switch, NULL) ?:
	       register_trace_sched_wakeup(probe_sched_wakeup, NULL) ?:
	       register_trace_sched_wakeup_new(probe_sched_wakeup_new, NULL) ?:
	       register_trace_sched_migrate_task(probe_sched_migrate_task, NULL) ?:
	       register_trace_cpu_frequency(probe_cpu_frequency, NULL) ?:
	       register_trace_cpu_idle(probe_cpu_idle, NULL);
}
