/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ftrace events for the scheduler's bare tracepoints (DECLARE_TRACE() in
 * trace/events/sched.h: PELT, util_est, overutilized), which have no event
 * and no format in the kernel. Trace tools read them from an out-of-tree
 * module's events (LISA's sched_tp); these are the harness's, with the
 * fields and print formats the text trace has always printed
 * (harness/report/ftrace.cpp), each event taking its tracepoint's own
 * prototype so that the harness's probe can hand it its arguments
 * (kshim_record_raw()). Instantiated by sched_tp.c; nothing calls the
 * tracepoints these define.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

#if !defined(_SCHED_HARNESS_TP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SCHED_HARNESS_TP_H

#include <linux/tracepoint.h>
#include <linux/version.h>

#define SCHED_TP_PATH_SIZE	64
#define SCHED_TP_SPAN_SIZE	128

TRACE_EVENT(sched_pelt_cfs,

	TP_PROTO(struct cfs_rq *cfs_rq),

	TP_ARGS(cfs_rq),

	TP_STRUCT__entry(
		__field(int,			cpu)
		__array(char,			path,	SCHED_TP_PATH_SIZE)
		__field(unsigned long,		load)
		__field(unsigned long,		runnable)
		__field(unsigned long,		util)
		__field(unsigned long long,	update_time)
	),

	TP_fast_assign(
		__entry->cpu		= cpu_of(rq_of(cfs_rq));
		strscpy(__entry->path, "/", SCHED_TP_PATH_SIZE);
		__entry->load		= cfs_rq->avg.load_avg;
		__entry->runnable	= cfs_rq->avg.runnable_avg;
		__entry->util		= cfs_rq->avg.util_avg;
		__entry->update_time	= cfs_rq->avg.last_update_time;
	),

	TP_printk("cpu=%d path=%s load=%lu runnable=%lu util=%lu update_time=%llu",
		  __entry->cpu, __entry->path, __entry->load, __entry->runnable,
		  __entry->util, __entry->update_time)
);

/* a task's entity (the probe skips a group's) */
TRACE_EVENT(sched_pelt_se,

	TP_PROTO(struct sched_entity *se),

	TP_ARGS(se),

	TP_STRUCT__entry(
		__field(int,			cpu)
		__array(char,			path,	SCHED_TP_PATH_SIZE)
		__array(char,			comm,	TASK_COMM_LEN)
		__field(int,			pid)
		__field(unsigned long,		load)
		__field(unsigned long,		runnable)
		__field(unsigned long,		util)
		__field(unsigned long long,	update_time)
	),

	TP_fast_assign(
		__entry->cpu		= task_cpu(task_of(se));
		strscpy(__entry->path, "(null)", SCHED_TP_PATH_SIZE);
		memcpy(__entry->comm, task_of(se)->comm, TASK_COMM_LEN);
		__entry->pid		= task_of(se)->pid;
		__entry->load		= se->avg.load_avg;
		__entry->runnable	= se->avg.runnable_avg;
		__entry->util		= se->avg.util_avg;
		__entry->update_time	= se->avg.last_update_time;
	),

	TP_printk("cpu=%d path=%s comm=%s pid=%d load=%lu runnable=%lu util=%lu update_time=%llu",
		  __entry->cpu, __entry->path, __entry->comm, __entry->pid, __entry->load,
		  __entry->runnable, __entry->util, __entry->update_time)
);

/* a runqueue's rt, dl, irq or thermal-pressure signal */
#define SCHED_TP_RQ_EVENT(name, avg)						\
TRACE_EVENT(name,								\
	TP_PROTO(struct rq *rq),						\
	TP_ARGS(rq),								\
	TP_STRUCT__entry(							\
		__field(int,		cpu)					\
		__field(unsigned long,	util)					\
	),									\
	TP_fast_assign(								\
		__entry->cpu	= cpu_of(rq);					\
		__entry->util	= (avg)->util_avg;				\
	),									\
	TP_printk("cpu=%d util=%lu", __entry->cpu, __entry->util))

SCHED_TP_RQ_EVENT(sched_pelt_rt, &rq->avg_rt);
SCHED_TP_RQ_EVENT(sched_pelt_dl, &rq->avg_dl);
#ifdef CONFIG_HAVE_SCHED_AVG_IRQ
SCHED_TP_RQ_EVENT(sched_pelt_irq, &rq->avg_irq);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
SCHED_TP_RQ_EVENT(sched_pelt_hw, kshim_rq_pressure_avg(rq));
#else
SCHED_TP_RQ_EVENT(sched_pelt_thermal, kshim_rq_pressure_avg(rq));
#endif

TRACE_EVENT(sched_util_est_cfs,

	TP_PROTO(struct cfs_rq *cfs_rq),

	TP_ARGS(cfs_rq),

	TP_STRUCT__entry(
		__field(int,			cpu)
		__array(char,			path,	SCHED_TP_PATH_SIZE)
		__field(unsigned int,		enqueued)
		__field(unsigned int,		ewma)
		__field(unsigned long,		util)
	),

	TP_fast_assign(
		__entry->cpu		= cpu_of(rq_of(cfs_rq));
		strscpy(__entry->path, "/", SCHED_TP_PATH_SIZE);
		__entry->enqueued	= kshim_util_est(&cfs_rq->avg);
		__entry->ewma		= kshim_util_est_ewma(&cfs_rq->avg);
		__entry->util		= cfs_rq->avg.util_avg;
	),

	TP_printk("cpu=%d path=%s enqueued=%u ewma=%u util=%lu",
		  __entry->cpu, __entry->path, __entry->enqueued, __entry->ewma, __entry->util)
);

TRACE_EVENT(sched_util_est_se,

	TP_PROTO(struct sched_entity *se),

	TP_ARGS(se),

	TP_STRUCT__entry(
		__field(int,			cpu)
		__array(char,			path,	SCHED_TP_PATH_SIZE)
		__array(char,			comm,	TASK_COMM_LEN)
		__field(int,			pid)
		__field(unsigned int,		enqueued)
		__field(unsigned int,		ewma)
		__field(unsigned long,		util)
	),

	TP_fast_assign(
		__entry->cpu		= task_cpu(task_of(se));
		strscpy(__entry->path, "(null)", SCHED_TP_PATH_SIZE);
		memcpy(__entry->comm, task_of(se)->comm, TASK_COMM_LEN);
		__entry->pid		= task_of(se)->pid;
		__entry->enqueued	= kshim_util_est(&se->avg);
		__entry->ewma		= kshim_util_est_ewma(&se->avg);
		__entry->util		= se->avg.util_avg;
	),

	TP_printk("cpu=%d path=%s comm=%s pid=%d enqueued=%u ewma=%u util=%lu",
		  __entry->cpu, __entry->path, __entry->comm, __entry->pid, __entry->enqueued,
		  __entry->ewma, __entry->util)
);

TRACE_EVENT(sched_overutilized,

	TP_PROTO(struct root_domain *rd, bool overutilized),

	TP_ARGS(rd, overutilized),

	TP_STRUCT__entry(
		__field(int,	overutilized)
		__array(char,	span,	SCHED_TP_SPAN_SIZE)
	),

	TP_fast_assign(
		__entry->overutilized	= overutilized;
		scnprintf(__entry->span, SCHED_TP_SPAN_SIZE, "%*pbl", cpumask_pr_args(rd->span));
	),

	TP_printk("overutilized=%d span=%s", __entry->overutilized, __entry->span)
);

#endif /* _SCHED_HARNESS_TP_H */

/* This part must be outside protection */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sched_tp
#include <trace/define_trace.h>
