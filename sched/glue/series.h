/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the glue reads of the scheduler's own structures where the trees
 * differ: one accessor each, saying which tree's field it reads. 6.1 is
 * Debian's linux-source-6.1, 6.12 its linux-source-6.12 (6.12.y, with the
 * stable series' backports: h_nr_queued is 6.14's name).
 */
#ifndef _KSHIM_SCHED_SERIES_H
#define _KSHIM_SCHED_SERIES_H

#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)

/* util_est is one value since 6.9: a task's EWMA (with the
 * UTIL_AVG_UNCHANGED flag bit), a cfs_rq's the sum of its tasks' */
static inline unsigned long kshim_util_est(const struct sched_avg *avg)
{
	return READ_ONCE(avg->util_est) & ~UTIL_AVG_UNCHANGED;
}
#define kshim_util_est_ewma(avg)	kshim_util_est(avg)
static inline void kshim_set_util_est(struct sched_avg *avg, unsigned long util)
{
	avg->util_est = util;
}
/* thermal pressure became hardware pressure in 6.9 */
#define kshim_rq_pressure_avg(rq)	(&(rq)->avg_hw)
#define kshim_cfs_h_nr(cfs_rq)		((cfs_rq)->h_nr_queued)
#define kshim_capacity_orig(rq)		arch_scale_cpu_capacity(cpu_of(rq))

#else

static inline unsigned long kshim_util_est(const struct sched_avg *avg)
{
	return READ_ONCE(avg->util_est.enqueued) & ~UTIL_AVG_UNCHANGED;
}
static inline unsigned long kshim_util_est_ewma(const struct sched_avg *avg)
{
	return READ_ONCE(avg->util_est.ewma);
}
static inline void kshim_set_util_est(struct sched_avg *avg, unsigned long util)
{
	avg->util_est.enqueued = util;
	avg->util_est.ewma = util;
}
#define kshim_rq_pressure_avg(rq)	(&(rq)->avg_thermal)
#define kshim_cfs_h_nr(cfs_rq)		((cfs_rq)->h_nr_running)
#define kshim_capacity_orig(rq)		((rq)->cpu_capacity_orig)

#endif

/* cfs_rq's nr_running became nr_queued (upstream 6.14, "sched/fair: Rename
 * cfs_rq.nr_running into nr_queued"; Debian's 6.12.118 keeps nr_running,
 * though it carries h_nr_queued) */
#include <kshim/kernel-version.h>
#if KSHIM_KERNEL_GE(6, 14, 0)
#define kshim_cfs_nr(cfs_rq)		((cfs_rq)->nr_queued)
#else
#define kshim_cfs_nr(cfs_rq)		((cfs_rq)->nr_running)
#endif

/* What PELT reads of a cfs_rq, newest first: the hierarchy's current
 * entity, h_curr (in 7.3.4, not in 7.2.13), else curr; the runnable count,
 * h_nr_runnable (in 7.2.13, not in 6.12.118; bracketed), which 6.12.118
 * computes as h_nr_queued - h_nr_delayed and 6.1 reads as h_nr_running
 * (kshim_cfs_h_nr()). */
#if KSHIM_KERNEL_GE(7, 3, 0)
#define kshim_cfs_pelt_curr(cfs_rq)	((cfs_rq)->h_curr)
#else
#define kshim_cfs_pelt_curr(cfs_rq)	((cfs_rq)->curr)
#endif
#if KSHIM_KERNEL_GE(6, 13, 0)
#define kshim_cfs_set_h_nr_runnable(cfs_rq, n)	((cfs_rq)->h_nr_runnable = (n))
#else
#define kshim_cfs_set_h_nr_runnable(cfs_rq, n)	do { } while (0)
#endif

/* The domain tree's RCU accessor: rcu_dereference_check_sched_domain()
 * became rcu_dereference_sched_domain() (in 7.2.13, not in 6.12.118);
 * the test is on the tree's own macro. */
#ifndef rcu_dereference_sched_domain
#define rcu_dereference_sched_domain(p)	rcu_dereference_check_sched_domain(p)
#endif

/* task_running() became task_on_cpu() in 6.0 (commit 0b9d46fc5ef7, "sched:
 * Rename task_running() to task_on_cpu()") */
#if KSHIM_KERNEL_LT(6, 0, 0)
#define task_on_cpu(rq, p)		task_running(rq, p)
#endif

/* task_of() is sched.h's in 6.1, fair.c's own (static) in 5.10.262
 * (bracketed); before, the glue takes the entity's task as fair.c does */
#if KSHIM_KERNEL_LT(6, 1, 0)
#define task_of(se)			container_of(se, struct task_struct, se)
#endif

/* select_task_rq() took the domain flag of the balance beside the wake
 * flags until 5.11 (commit 3aef1551e942, "sched: Remove select_task_rq()'s
 * sd_flag parameter"), which moved it into WF_TTWU, WF_FORK and WF_EXEC.
 * Before, a wake-up is SD_BALANCE_WAKE and no wake flag. */
#if KSHIM_KERNEL_LT(5, 11, 0)
#define WF_TTWU				0
#define select_task_rq_fair(p, cpu, wake_flags) \
	(select_task_rq_fair)(p, cpu, SD_BALANCE_WAKE, wake_flags)
#endif

/* __schedule() takes a mode since 5.15 (commit b4bfa3fcfe3b, "sched/core:
 * Rework the __schedule() preempt argument"), a bool preempt before */
#if KSHIM_KERNEL_LT(5, 15, 0)
#define SM_NONE				false
#endif

#endif /* _KSHIM_SCHED_SERIES_H */
