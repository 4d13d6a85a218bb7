// SPDX-License-Identifier: GPL-2.0
/*
 * What the harness reads of the frequency path. The path itself is the
 * tree's: the cpufreq core (drivers/cpufreq/cpufreq.c) with cpufreq-dt or
 * the SoC's driver (glue/cpufreq_soc.c), the OPP library (drivers/opp),
 * the board's clocks and supplies below them (glue/clk.c,
 * glue/regulator.c). Nothing here decides: each function reads a policy.
 */
#include <linux/cpu.h>
#include <linux/cpu_cooling.h>
#include <linux/cpufreq.h>
#include <linux/energy_model.h>
#include <linux/pm_opp.h>
#include <linux/thermal.h>
#include <linux/version.h>

#include <kshim/sched.h>
#include <kshim/compat/bitmap.h>
#include <kshim/compat/cpufreq.h>
#include <kshim/kernel-version.h>

#include "shim.h"

int kshim_cpufreq_cooling(int cpu, int *cdev_id, unsigned long *max_state, unsigned long *cur_state)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);
	struct thermal_cooling_device *cdev = policy ? policy->cdev : NULL;

	if (IS_ERR_OR_NULL(cdev))
		return -ENODEV;
	*cdev_id = cdev->id;
	/* the ops: every tree has them (cdev->max_state, which caches it, is
	 * not in 5.10.262) */
	if (cdev->ops->get_max_state(cdev, max_state))
		*max_state = 0;
	if (cdev->ops->get_cur_state(cdev, cur_state))
		*cur_state = 0;
	return 0;
}

/* the cpufreq pressure the scheduler reads from 6.9 ("cpufreq: Add a
 * cpufreq pressure feedback for the scheduler"); before, a cooling
 * device's cap reached it as thermal pressure, and this reads none */
unsigned long kshim_cpu_cpufreq_pressure(int cpu)
{
#if KSHIM_KERNEL_GE(6, 9, 0)
	return cpufreq_get_pressure(cpu);
#else
	return 0;
#endif
}

unsigned int kshim_cpufreq_cur(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy ? policy->cur : 0;
}

unsigned long long kshim_cpufreq_slow_switches(int cpu)
{
	return kshim_clock_changes(cpu) - kshim_cpufreq_fast_switches(cpu);
}

int kshim_cpufreq_fast_switch_enabled(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy && policy->fast_switch_enabled;
}

unsigned int kshim_cpufreq_max(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy ? policy->cpuinfo.max_freq : 0;
}

const char *kshim_cpufreq_governor(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy && policy->governor ? policy->governor->name : NULL;
}

int kshim_cpufreq_policy(int cpu, struct kshim_cpufreq_policy *out)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);
	struct device *dev = get_cpu_device(cpu);

	memset(out, 0, sizeof(*out));
	if (!policy)
		return -ENODEV;
	out->driver = cpufreq_get_current_driver();
	out->policy_cpu = policy->cpu;
	bitmap_to_arr64(out->related_cpus.bits, cpumask_bits(policy->related_cpus), nr_cpu_ids);
	out->transition_latency_ns = policy->cpuinfo.transition_latency;
	out->eternal = kshim_cpufreq_latency_unknown(policy->cpuinfo.transition_latency);
	out->clock_latency_ns = dev_pm_opp_get_max_clock_latency(dev);
	out->voltage_latency_ns = dev_pm_opp_get_max_volt_latency(dev);
	out->transition_delay_us = policy->transition_delay_us;
	out->rate_limit_us = cpufreq_policy_transition_delay_us(policy);
	out->fast_switch = policy->fast_switch_enabled;
	out->governor_per_policy = have_governor_per_policy();
	out->min_khz = policy->min;
	out->max_khz = policy->max;
	return 0;
}

/* Whether the EM of cpu's policy was registered: -ENODEV without a
 * policy, -EINVAL when the driver's register_em left none. */
int kshim_em_status(unsigned int cpu)
{
	if (!cpufreq_cpu_get_raw(cpu))
		return -ENODEV;
	return em_cpu_get(cpu) ? 0 : -EINVAL;
}
