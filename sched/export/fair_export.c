// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/fair.c, compiled unchanged, with non-static
 * entry points for the harness and its tests (KUnit style).
 */
#include "fair.c"

#include <kshim/sched.h>

#include "../glue/series.h"

/*
 * Gives a sleeping task a known PELT utilization, as if it had run that
 * much, keeping its cfs_rq consistent: the entity's blocked contribution is
 * taken out with fair.c's own detach_entity_load_avg(), the averages set,
 * and put back with attach_entity_load_avg(), which rebuilds the sums from
 * the averages and the PELT divider. util_est gets the same value.
 */
int kshim_fair_set_util(struct task_struct *p, unsigned long util)
{
	struct sched_entity *se = &p->se;
	struct cfs_rq *cfs_rq;
	struct rq_flags rf;
	struct rq *rq;

	if (p->sched_class != &fair_sched_class || util > SCHED_CAPACITY_SCALE)
		return -EINVAL;
	rq = task_rq_lock(p, &rf);
	if (task_on_rq_queued(p)) {
		task_rq_unlock(rq, p, &rf);
		return -EBUSY;
	}
	update_rq_clock(rq);
	cfs_rq = cfs_rq_of(se);
	update_load_avg(cfs_rq, se, 0);
	detach_entity_load_avg(cfs_rq, se);
	se->avg.util_avg = util;
	se->avg.runnable_avg = util;
	kshim_set_util_est(&se->avg, util);
	attach_entity_load_avg(cfs_rq, se);
	task_rq_unlock(rq, p, &rf);
	return 0;
}

/* The wake-up decisions, without the wake-up: what a test of a placement
 * patch asks. Called on the waking CPU, like try_to_wake_up() calls them. */
int kshim_fair_find_energy_efficient_cpu(struct task_struct *p, int prev_cpu)
{
	return find_energy_efficient_cpu(p, prev_cpu);
}

int kshim_fair_select_task_rq(struct task_struct *p, int prev_cpu, int wake_flags)
{
	int cpu;

	raw_spin_lock(&p->pi_lock);
	cpu = select_task_rq_fair(p, prev_cpu, wake_flags);
	raw_spin_unlock(&p->pi_lock);
	return cpu;
}
