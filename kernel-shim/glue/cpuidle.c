// SPDX-License-Identifier: GPL-2.0
/*
 * What the cpuidle core (drivers/cpuidle/{cpuidle,driver,governor}.c and
 * governors/menu.c, compiled unchanged) needs around it:
 *  - drivers/cpuidle/sysfs.c: there is no sysfs; the interface, driver and
 *    device directories are accepted and never shown;
 * and the harness's view of the states and their use. The CPU latency
 * limit menu asks for is kernel/power/qos.c's (compiled).
 */
#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/pm_qos.h>
#include <linux/sched/idle.h>
#include <linux/smp.h>
#include <linux/string.h>

#include <kshim/sched.h>
#include "shim.h"

/* drivers/cpuidle/cpuidle.h, private to drivers/cpuidle */
int cpuidle_add_interface(struct device *dev);
void cpuidle_remove_interface(struct device *dev);
int cpuidle_add_device_sysfs(struct cpuidle_device *device);
void cpuidle_remove_device_sysfs(struct cpuidle_device *device);
int cpuidle_add_sysfs(struct cpuidle_device *dev);
void cpuidle_remove_sysfs(struct cpuidle_device *dev);
extern struct cpuidle_governor *cpuidle_curr_governor;

int cpuidle_add_interface(struct device *dev)
{
	return 0;
}

void cpuidle_remove_interface(struct device *dev)
{
}

int cpuidle_add_device_sysfs(struct cpuidle_device *device)
{
	return 0;
}

void cpuidle_remove_device_sysfs(struct cpuidle_device *device)
{
}

int cpuidle_add_sysfs(struct cpuidle_device *dev)
{
	return 0;
}

void cpuidle_remove_sysfs(struct cpuidle_device *dev)
{
}

int kshim_cpu_idle_states(int cpu, struct kshim_idle_state *states, int max)
{
	struct cpuidle_device *dev;
	struct cpuidle_driver *drv;
	int i, n;

	if (cpu < 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	dev = per_cpu(cpuidle_devices, cpu);
	drv = cpuidle_get_cpu_driver(dev);
	if (!dev || !drv || !dev->registered)
		return 0;
	n = min(drv->state_count, max);
	for (i = 0; i < n; i++) {
		struct kshim_idle_state *out = &states[i];

		strscpy(out->name, drv->states[i].name, sizeof(out->name));
		out->exit_latency_ns = drv->states[i].exit_latency_ns;
		out->target_residency_ns = drv->states[i].target_residency_ns;
		out->usage = dev->states_usage[i].usage;
		out->time_ns = dev->states_usage[i].time_ns;
		out->above = dev->states_usage[i].above;
		out->below = dev->states_usage[i].below;
		out->rejected = dev->states_usage[i].rejected;
	}
	return n;
}

const char *kshim_cpuidle_governor(void)
{
	return cpuidle_curr_governor ? cpuidle_curr_governor->name : "";
}
