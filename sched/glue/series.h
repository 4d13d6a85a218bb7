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

/* The domain tree's RCU accessor: rcu_dereference_check_sched_domain()
 * became rcu_dereference_sched_domain() (in 7.2.13, not in 6.12.118);
 * the test is on the tree's own macro. */
#ifndef rcu_dereference_sched_domain
#define rcu_dereference_sched_domain(p)	rcu_dereference_check_sched_domain(p)
#endif

#endif /* _KSHIM_SCHED_SERIES_H */
