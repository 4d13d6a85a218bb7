/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run queue of one CPU for tests/kernel/test_pelt.cpp: kernel-style C
 * (pelt_driver.c) that advances the rq clocks the way core.c does and calls
 * the upstream PELT functions of kernel/sched/pelt.c. C++ cannot include
 * kernel headers, so this interface uses plain C types only.
 */
#ifndef PELT_DRIVER_H
#define PELT_DRIVER_H

#ifdef __cplusplus
extern "C" {
#endif

/* What runs on the CPU between two steps. */
enum pelt_drv_state {
	PELT_DRV_IDLE = 0,	/* the idle task: nothing runnable */
	PELT_DRV_CFS = 1,	/* the one fair task, its se on the cfs_rq */
	PELT_DRV_RT = 2,	/* an RT task: rq->avg_rt runs */
};

struct pelt_drv;

struct pelt_drv_sample {
	/* the fair task's sched_entity */
	unsigned long se_util_avg, se_load_avg, se_runnable_avg;
	/* its cfs_rq (the task is the only entity on it) */
	unsigned long cfs_util_avg, cfs_load_avg, cfs_runnable_avg;
	/* rq->avg_rt and rq->avg_thermal */
	unsigned long rt_util_avg;
	unsigned long thermal_load_avg;
	/* rq clocks, ns */
	unsigned long long clock_task, clock_pelt, lost_idle_time;
};

/* A fresh rq for @cpu, idle, with all signals at zero at clock 0. */
struct pelt_drv *pelt_drv_new(unsigned int cpu);
void pelt_drv_free(struct pelt_drv *d);

/*
 * Lets @delta_ns of time pass in the current state, then updates every
 * signal (se, cfs_rq, rt, thermal with the pressure last set).
 */
void pelt_drv_advance(struct pelt_drv *d, unsigned long long delta_ns);
/* Switches what runs from now on (enqueue, dequeue, idle entry). */
void pelt_drv_set_state(struct pelt_drv *d, enum pelt_drv_state state);
/* Thermal pressure (capacity units) for the following steps. */
void pelt_drv_set_thermal_pressure(struct pelt_drv *d, unsigned long pressure);
void pelt_drv_read(const struct pelt_drv *d, struct pelt_drv_sample *out);

/* topology_set_freq_scale() for the CPUs in @cpu_bits (arch_topology.c). */
void pelt_drv_set_freq(unsigned long cpu_bits, unsigned long cur_khz, unsigned long max_khz);

#ifdef __cplusplus
}
#endif

#endif
