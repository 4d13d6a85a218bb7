// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug states (kernel/cpu.c). Every CPU is online from boot and
 * never goes away, so setting up a state runs its startup callback on each
 * online CPU right away (when asked to invoke it), as cpuhp does for CPUs
 * already up, and teardown never runs.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>

#include "shim.h"

int __cpuhp_setup_state(enum cpuhp_state state, const char *name, bool invoke,
			int (*startup)(unsigned int cpu), int (*teardown)(unsigned int cpu),
			bool multi_instance)
{
	static int next_dynamic = CPUHP_AP_ONLINE_DYN;
	unsigned int cpu;
	int ret;

	if (invoke && startup) {
		for_each_online_cpu(cpu) {
			ret = startup(cpu);
			if (ret)
				return ret;
		}
	}
	/* a dynamic state returns the number it was given */
	return state == CPUHP_AP_ONLINE_DYN ? next_dynamic++ : 0;
}

/* From cpu_startup_entry(), the idle loop of a CPU being brought up; the
 * harness never enters that loop (cpu.c). */
void cpuhp_online_idle(enum cpuhp_state state)
{
}

/* cpufreq.c registers its online/offline callbacks with the hotplug lock
 * held; CPUs never go away, so the callbacks are never invoked. */
int __cpuhp_setup_state_cpuslocked(enum cpuhp_state state, const char *name, bool invoke,
				   int (*startup)(unsigned int cpu),
				   int (*teardown)(unsigned int cpu), bool multi_instance)
{
	return __cpuhp_setup_state(state, name, invoke, startup, teardown, multi_instance);
}

void __cpuhp_remove_state_cpuslocked(enum cpuhp_state state, bool invoke)
{
}
