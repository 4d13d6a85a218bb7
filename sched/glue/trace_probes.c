// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's probes on the scheduler's and cpufreq's own tracepoints
 * (trace/events/sched.h instantiated by core.c, trace/events/power.h by
 * kernel/trace/power-traces.c): each hit becomes a kshim_trace_event with
 * the CPU it fired on, the simulated time, its arguments as numbers and the
 * comm of the tasks it names. Tasks are recorded as pid and prio, as the
 * ftrace events print them.
 *
 *   sched_switch        prev_pid prev_prio prev_state next_pid next_prio
 *                       (prev_state as the event stores it: a TASK_REPORT
 *                       bit, TASK_REPORT_MAX when preempted, 0 running)
 *   sched_waking, sched_wakeup(_new)   pid prio target_cpu
 *   sched_migrate_task  pid prio orig_cpu dest_cpu
 *   cpu_frequency       state(kHz) cpu_id
 *   cpu_idle            state cpu_id
 *   sched_overutilized  overutilized span(64-bit words 0-3: CPUs 0-255)
 *
 * cpu_idle and the PELT tracepoints record only for a trace file
 * (kshim_sched_trace_attach_trace_only()): nothing else reads them, and
 * they fire at every idle entry and load update. With kernel time they are
 * attached either way, so that a traced run is the run untraced: the
 * tracepoints' dispatch is the tree's code and takes time. The PELT ones
 * (DECLARE_TRACE) have no format of their own; their fields are
 * those of LISA's sched_tp module, which is how tools read them:
 *
 *   sched_pelt_cfs      cpu load runnable util update_time
 *   sched_pelt_se       cpu pid load runnable util update_time
 *   sched_pelt_rt/dl/irq/thermal   cpu util
 *   sched_util_est_cfs  cpu enqueued ewma util
 *   sched_util_est_se   cpu pid enqueued ewma util
 */
#include "internal.h"

#include <linux/sched/clock.h>
#include <linux/trace_events.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>

#include <kshim/api.h>
#include <kshim/sched.h>
#include <kshim/compat/bitmap.h>
#include <kshim/compat/sched_events.h>

#include "../../kernel-shim/glue/shim.h"
#include "series.h"

/* The events a trace.dat can hold: the kernel records them (glue/shim.h). */
KSHIM_RAW_EVENT(sched_switch);
KSHIM_RAW_EVENT(sched_waking);
KSHIM_RAW_EVENT(sched_wakeup);
KSHIM_RAW_EVENT(sched_wakeup_new);
KSHIM_RAW_EVENT(sched_migrate_task);
KSHIM_RAW_EVENT(cpu_frequency);
KSHIM_RAW_EVENT(cpu_idle);
/* the bare tracepoints' events are the harness's (sched_tp.h) */
KSHIM_RAW_EVENT(sched_overutilized);
KSHIM_RAW_EVENT(sched_pelt_cfs);
KSHIM_RAW_EVENT(sched_pelt_se);
KSHIM_RAW_EVENT(sched_pelt_rt);
KSHIM_RAW_EVENT(sched_pelt_dl);
#ifdef CONFIG_HAVE_SCHED_AVG_IRQ
KSHIM_RAW_EVENT(sched_pelt_irq);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
KSHIM_RAW_EVENT(sched_pelt_hw);
#else
KSHIM_RAW_EVENT(sched_pelt_thermal);
#endif
KSHIM_RAW_EVENT(sched_util_est_cfs);
KSHIM_RAW_EVENT(sched_util_est_se);

/* Whether the trace-only probes record (a trace file asks for them). */
static bool trace_only_recorded;

static void record(const char *name, int nr_args, const long long *args,
		   const struct task_struct *a, const struct task_struct *b)
{
	kshim_trace_record(name, nr_args, args, a ? a->comm : NULL, b ? b->comm : NULL, NULL);
}

static void record_traced(const char *name, int nr_args, const long long *args,
			  const struct task_struct *a)
{
	if (trace_only_recorded)
		record(name, nr_args, args, a, NULL);
}

/* What TP_fast_assign of sched_switch stores (__trace_sched_switch_state()
 * lives under CREATE_TRACE_POINTS in core.c, so it is redone here from the
 * same inline helper). */
static long long switch_state(bool preempt, unsigned int state_index)
{
	BUILD_BUG_ON(TASK_REPORT_MAX != KSHIM_SWITCH_PREEMPTED);
	if (preempt)
		return TASK_REPORT_MAX;
	return state_index ? 1 << (state_index - 1) : 0;
}

static void probe_sched_switch(void *data, KSHIM_SCHED_SWITCH_PROTO)
{
	const long long args[] = {
		prev->pid, prev->prio,
		switch_state(preempt, kshim_sched_switch_state_index(prev, prev_state)),
		next->pid, next->prio
	};

	record("sched_switch", ARRAY_SIZE(args), args, prev, next);
	kshim_record_raw(sched_switch, probe_sched_switch, KSHIM_SCHED_SWITCH_ARGS);
}

/* try_to_wake_up() on the waker's CPU, before the wakee's CPU is chosen */
static void probe_sched_waking(void *data, struct task_struct *p)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p) };

	record("sched_waking", ARRAY_SIZE(args), args, p, NULL);
	kshim_record_raw(sched_waking, probe_sched_waking, p);
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p) };

	record("sched_wakeup", ARRAY_SIZE(args), args, p, NULL);
	kshim_record_raw(sched_wakeup, probe_sched_wakeup, p);
}

static void probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p) };

	record("sched_wakeup_new", ARRAY_SIZE(args), args, p, NULL);
	kshim_record_raw(sched_wakeup_new, probe_sched_wakeup_new, p);
}

static void probe_sched_migrate_task(void *data, struct task_struct *p, int dest_cpu)
{
	const long long args[] = { p->pid, p->prio, task_cpu(p), dest_cpu };

	record("sched_migrate_task", ARRAY_SIZE(args), args, p, NULL);
	kshim_record_raw(sched_migrate_task, probe_sched_migrate_task, p, dest_cpu);
}

static void probe_cpu_frequency(void *data, unsigned int frequency, unsigned int cpu_id)
{
	const long long args[] = { frequency, cpu_id };

	record("cpu_frequency", ARRAY_SIZE(args), args, NULL, NULL);
	kshim_record_raw(cpu_frequency, probe_cpu_frequency, frequency, cpu_id);
}

static void probe_cpu_idle(void *data, unsigned int state, unsigned int cpu_id)
{
	const long long args[] = { state, cpu_id };

	record_traced("cpu_idle", ARRAY_SIZE(args), args, NULL);
	kshim_record_raw(cpu_idle, probe_cpu_idle, state, cpu_id);
}

static void probe_sched_overutilized(void *data, struct root_domain *rd, bool overutilized)
{
	struct kshim_cpuset span;
	long long args[1 + ARRAY_SIZE(span.bits)] = { overutilized };
	unsigned int i;

	memset(&span, 0, sizeof(span));
	bitmap_to_arr64(span.bits, cpumask_bits(rd->span), nr_cpu_ids);
	for (i = 0; i < ARRAY_SIZE(span.bits); i++)
		args[1 + i] = (long long)span.bits[i];

	record("sched_overutilized", ARRAY_SIZE(args), args, NULL, NULL);
	kshim_record_raw(sched_overutilized, probe_sched_overutilized, rd, overutilized);
}

int kshim_sched_trace_attach(void)
{
	kshim_raw_event_add(&raw_sched_switch);
	kshim_raw_event_add(&raw_sched_waking);
	kshim_raw_event_add(&raw_sched_wakeup);
	kshim_raw_event_add(&raw_sched_wakeup_new);
	kshim_raw_event_add(&raw_sched_migrate_task);
	kshim_raw_event_add(&raw_cpu_frequency);
	kshim_raw_event_add(&raw_sched_overutilized);
	return register_trace_sched_switch(probe_sched_switch, NULL) ?:
	       register_trace_sched_waking(probe_sched_waking, NULL) ?:
	       register_trace_sched_wakeup(probe_sched_wakeup, NULL) ?:
	       register_trace_sched_wakeup_new(probe_sched_wakeup_new, NULL) ?:
	       register_trace_sched_migrate_task(probe_sched_migrate_task, NULL) ?:
	       register_trace_cpu_frequency(probe_cpu_frequency, NULL) ?:
	       register_trace_sched_overutilized_tp(probe_sched_overutilized, NULL);
}

/* --- PELT ---------------------------------------------------------------- */

static void probe_pelt_cfs(void *data, struct cfs_rq *cfs_rq)
{
	const struct sched_avg *avg = &cfs_rq->avg;
	const long long args[] = { cpu_of(rq_of(cfs_rq)), avg->load_avg, avg->runnable_avg,
				   avg->util_avg, avg->last_update_time };

	record_traced("sched_pelt_cfs", ARRAY_SIZE(args), args, NULL);
	kshim_record_raw(sched_pelt_cfs, probe_pelt_cfs, cfs_rq);
}

static void probe_pelt_se(void *data, struct sched_entity *se)
{
	const struct sched_avg *avg = &se->avg;
	struct task_struct *p;

	if (!entity_is_task(se))
		return;
	p = task_of(se);
	{
		const long long args[] = { task_cpu(p), p->pid, avg->load_avg, avg->runnable_avg,
					   avg->util_avg, avg->last_update_time };

		record_traced("sched_pelt_se", ARRAY_SIZE(args), args, p);
	}
	kshim_record_raw(sched_pelt_se, probe_pelt_se, se);
}

static void record_rq_util(const char *name, struct rq *rq, const struct sched_avg *avg)
{
	const long long args[] = { cpu_of(rq), avg->util_avg };

	record_traced(name, ARRAY_SIZE(args), args, NULL);
}

static void probe_pelt_rt(void *data, struct rq *rq)
{
	record_rq_util("sched_pelt_rt", rq, &rq->avg_rt);
	kshim_record_raw(sched_pelt_rt, probe_pelt_rt, rq);
}

static void probe_pelt_dl(void *data, struct rq *rq)
{
	record_rq_util("sched_pelt_dl", rq, &rq->avg_dl);
	kshim_record_raw(sched_pelt_dl, probe_pelt_dl, rq);
}

static void probe_pelt_thermal(void *data, struct rq *rq)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	record_rq_util("sched_pelt_hw", rq, kshim_rq_pressure_avg(rq));
	kshim_record_raw(sched_pelt_hw, probe_pelt_thermal, rq);
#else
	record_rq_util("sched_pelt_thermal", rq, kshim_rq_pressure_avg(rq));
	kshim_record_raw(sched_pelt_thermal, probe_pelt_thermal, rq);
#endif
}

static void probe_pelt_irq(void *data, struct rq *rq)
{
#ifdef CONFIG_HAVE_SCHED_AVG_IRQ
	record_rq_util("sched_pelt_irq", rq, &rq->avg_irq);
	kshim_record_raw(sched_pelt_irq, probe_pelt_irq, rq);
#endif
}

static void probe_util_est_cfs(void *data, struct cfs_rq *cfs_rq)
{
	const long long args[] = { cpu_of(rq_of(cfs_rq)), kshim_util_est(&cfs_rq->avg),
				   kshim_util_est_ewma(&cfs_rq->avg), cfs_rq->avg.util_avg };

	record_traced("sched_util_est_cfs", ARRAY_SIZE(args), args, NULL);
	kshim_record_raw(sched_util_est_cfs, probe_util_est_cfs, cfs_rq);
}

static void probe_util_est_se(void *data, struct sched_entity *se)
{
	struct task_struct *p;

	if (!entity_is_task(se))
		return;
	p = task_of(se);
	{
		const long long args[] = { task_cpu(p), p->pid, kshim_util_est(&se->avg),
					   kshim_util_est_ewma(&se->avg), se->avg.util_avg };

		record_traced("sched_util_est_se", ARRAY_SIZE(args), args, p);
	}
	kshim_record_raw(sched_util_est_se, probe_util_est_se, se);
}

int kshim_sched_trace_attach_trace_only(int record_events)
{
	trace_only_recorded = record_events;
	kshim_raw_event_add(&raw_cpu_idle);
	kshim_raw_event_add(&raw_sched_pelt_cfs);
	kshim_raw_event_add(&raw_sched_pelt_se);
	kshim_raw_event_add(&raw_sched_pelt_rt);
	kshim_raw_event_add(&raw_sched_pelt_dl);
#ifdef CONFIG_HAVE_SCHED_AVG_IRQ
	kshim_raw_event_add(&raw_sched_pelt_irq);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	kshim_raw_event_add(&raw_sched_pelt_hw);
#else
	kshim_raw_event_add(&raw_sched_pelt_thermal);
#endif
	kshim_raw_event_add(&raw_sched_util_est_cfs);
	kshim_raw_event_add(&raw_sched_util_est_se);
	return register_trace_cpu_idle(probe_cpu_idle, NULL) ?:
	       register_trace_pelt_cfs_tp(probe_pelt_cfs, NULL) ?:
	       register_trace_pelt_se_tp(probe_pelt_se, NULL) ?:
	       register_trace_pelt_rt_tp(probe_pelt_rt, NULL) ?:
	       register_trace_pelt_dl_tp(probe_pelt_dl, NULL) ?:
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	       register_trace_pelt_hw_tp(probe_pelt_thermal, NULL) ?:
#else
	       register_trace_pelt_thermal_tp(probe_pelt_thermal, NULL) ?:
#endif
	       register_trace_pelt_irq_tp(probe_pelt_irq, NULL) ?:
	       register_trace_sched_util_est_cfs_tp(probe_util_est_cfs, NULL) ?:
	       register_trace_sched_util_est_se_tp(probe_util_est_se, NULL);
}
