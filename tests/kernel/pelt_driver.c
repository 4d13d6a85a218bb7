// SPDX-License-Identifier: GPL-2.0
/*
 * Drives the upstream PELT functions of kernel/sched/pelt.c (compiled into
 * ksched by sched/export/pelt_export.c) on a run queue of our own, for
 * tests/kernel/test_pelt.cpp.
 *
 * cpu_rq() and runqueues belong to core.c, which is not compiled in, so the
 * rq is kzalloc'ed here. Time passes as core.c's update_rq_clock_task() lets
 * it pass: clock_task first, then update_rq_clock_pelt(), the upstream inline
 * that scales running time by arch_scale_cpu_capacity() and
 * arch_scale_freq_capacity(); capacity and frequency invariance therefore
 * come from kernel code, not from this file.
 */
#include <linux/version.h>

#include "build_policy_headers.h"

/*
 * Before 5.18 (kernel/sched/build_policy.c) the headers above are empty:
 * each unit of kernel/sched includes sched.h itself, as one with no file
 * of the tree, like this one, must (build_policy_headers.h).
 */
#if !KSHIM_KERNEL_GE(5, 18, 0)
#include "sched.h"
#include "pelt.h"
#endif

#include "pelt_driver.h"
#include "series.h"

/*
 * Names the tree's scheduler changed since 6.1: thermal PELT became
 * hardware-pressure PELT (6.9); cfs_rq's counts (sched/glue/series.h).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define update_thermal_load_avg(now, rq, pressure)	update_hw_load_avg(now, rq, pressure)
#define avg_thermal					avg_hw
#endif

struct pelt_drv {
	struct rq *rq;
	/* rq->curr is one of these: update_rq_clock_pelt() asks is_idle_task() */
	struct task_struct *idle;
	struct task_struct *task;
	struct sched_entity *se;	/* the fair task's entity */
	enum pelt_drv_state state;
	unsigned long thermal_pressure;
};

struct pelt_drv *pelt_drv_new(unsigned int cpu)
{
	struct pelt_drv *d = kzalloc(sizeof(*d), GFP_KERNEL);

	d->rq = kzalloc(sizeof(*d->rq), GFP_KERNEL);
	d->idle = kzalloc(sizeof(*d->idle), GFP_KERNEL);
	d->task = kzalloc(sizeof(*d->task), GFP_KERNEL);
	if (!d->rq || !d->idle || !d->task)
		panic("pelt_driver: out of memory");

	d->rq->cpu = cpu;
	d->idle->flags = PF_IDLE;
	d->rq->idle = d->idle;
	d->rq->curr = d->idle;

	/* A nice-0 task: se_weight() is then 1024 and load_avg tracks runnable. */
	d->se = &d->task->se;
	d->se->load.weight = NICE_0_LOAD;
	d->state = PELT_DRV_IDLE;
	return d;
}

void pelt_drv_free(struct pelt_drv *d)
{
	kfree(d->task);
	kfree(d->idle);
	kfree(d->rq);
	kfree(d);
}

void pelt_drv_advance(struct pelt_drv *d, unsigned long long delta_ns)
{
	struct rq *rq = d->rq;
	struct cfs_rq *cfs_rq = &rq->cfs;
	u64 now;

	/* update_rq_clock_task(): rq->curr is what ran during delta */
	rq->clock += delta_ns;
	rq->clock_task += delta_ns;
	update_rq_clock_pelt(rq, delta_ns);
	now = rq_clock_pelt(rq);

	/*
	 * update_load_avg() on the entity and its cfs_rq, then what
	 * task_tick_rt()/put_prev_task_rt() and the thermal tick do. The
	 * state during delta is still in place: cfs_rq->curr == se tells
	 * __update_load_avg_se() the entity ran.
	 */
	__update_load_avg_se(now, cfs_rq, d->se);
	__update_load_avg_cfs_rq(now, cfs_rq);
	update_rt_rq_load_avg(now, rq, d->state == PELT_DRV_RT);
	/*
	 * The kernel feeds thermal PELT rq_clock_thermal(), i.e. clock_task
	 * shifted by fair.c's sched_thermal_decay_shift; fair.c is not linked
	 * and the shift is 0 by default, so clock_task it is.
	 */
	update_thermal_load_avg(rq_clock_task(rq), rq, d->thermal_pressure);
}

void pelt_drv_set_state(struct pelt_drv *d, enum pelt_drv_state state)
{
	struct rq *rq = d->rq;
	struct cfs_rq *cfs_rq = &rq->cfs;

	if (state == d->state)
		return;

	/* leaving the old state: dequeue the fair task */
	if (d->state == PELT_DRV_CFS) {
		d->se->on_rq = 0;
		cfs_rq->curr = NULL;
		kshim_cfs_pelt_curr(cfs_rq) = NULL;
		cfs_rq->load.weight = 0;
		kshim_cfs_nr(cfs_rq) = kshim_cfs_h_nr(cfs_rq) = 0;
		kshim_cfs_set_h_nr_runnable(cfs_rq, 0);
	}

	switch (state) {
	case PELT_DRV_CFS:
		d->se->on_rq = 1;
		cfs_rq->curr = d->se;
		kshim_cfs_pelt_curr(cfs_rq) = d->se;
		cfs_rq->load.weight = d->se->load.weight;
		kshim_cfs_nr(cfs_rq) = kshim_cfs_h_nr(cfs_rq) = 1;
		kshim_cfs_set_h_nr_runnable(cfs_rq, 1);
		rq->curr = d->task;
		break;
	case PELT_DRV_RT:
		/* the same task_struct serves as the RT task: only curr matters */
		rq->curr = d->task;
		break;
	case PELT_DRV_IDLE:
		rq->curr = d->idle;
		/*
		 * pick_next_task_idle() -> update_idle_rq_clock_pelt(): the
		 * pelt clock catches up with clock_task, so the idle time a
		 * max-capacity CPU would have had counts as idle (or is lost
		 * if the CPU was saturated).
		 */
		update_idle_rq_clock_pelt(rq);
		break;
	}
	d->state = state;
}

void pelt_drv_set_thermal_pressure(struct pelt_drv *d, unsigned long pressure)
{
	d->thermal_pressure = pressure;
}

void pelt_drv_read(const struct pelt_drv *d, struct pelt_drv_sample *out)
{
	const struct rq *rq = d->rq;

	out->se_util_avg = READ_ONCE(d->se->avg.util_avg);
	out->se_load_avg = d->se->avg.load_avg;
	out->se_runnable_avg = d->se->avg.runnable_avg;
	out->cfs_util_avg = READ_ONCE(rq->cfs.avg.util_avg);
	out->cfs_load_avg = rq->cfs.avg.load_avg;
	out->cfs_runnable_avg = rq->cfs.avg.runnable_avg;
	out->rt_util_avg = READ_ONCE(rq->avg_rt.util_avg);
	out->thermal_load_avg = READ_ONCE(rq->avg_thermal.load_avg);
	out->clock_task = rq->clock_task;
	out->clock_pelt = rq->clock_pelt;
	out->lost_idle_time = rq->lost_idle_time;
}

void pelt_drv_set_freq(unsigned long cpu_bits, unsigned long cur_khz, unsigned long max_khz)
{
	struct cpumask cpus;
	unsigned int cpu;

	cpumask_clear(&cpus);
	for (cpu = 0; cpu < BITS_PER_LONG && cpu < nr_cpu_ids; cpu++)
		if (cpu_bits & BIT(cpu))
			cpumask_set_cpu(cpu, &cpus);
	topology_set_freq_scale(&cpus, cur_khz, max_khz);
}
