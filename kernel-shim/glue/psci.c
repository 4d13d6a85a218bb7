// SPDX-License-Identifier: GPL-2.0
/*
 * The PSCI firmware, as drivers/firmware/psci/psci.c presents it to
 * cpuidle-psci.c (compiled unchanged): psci_ops, the power-state checks,
 * and CPU_SUSPEND, which is the wait of a CPU in a deep idle state. There
 * is no firmware to call, so this stands in for psci.c and for the
 * firmware behind it:
 *  - psci_dt_init(): a root node compatible with arm,psci-1.0/0.2/arm,psci
 *    makes the firmware present (its method, smc or hvc, does not matter);
 *  - the firmware answers PSCI_FEATURES(CPU_SUSPEND) with the original
 *    power_state format and without OS-initiated mode, as the Arm Trusted
 *    Firmware ports of the shipped boards do by default
 *    (PSCI_EXTENDED_STATE_ID=0): psci_has_ext_power_state() and
 *    psci_has_osi_support() are false;
 *  - psci_cpu_suspend_enter() waits for an interrupt (kshim_idle_wait()).
 *    The hardware's latencies are the DT's for the idle-state node whose
 *    arm,psci-suspend-param is the state asked for: entering takes
 *    entry-latency-us, and a wake-up waits exit-latency-us once the state
 *    is entered, or the rest of the entry and then the exit when it comes
 *    during entry (the DT binding's wakeup latency). No context is lost.
 */
#include <linux/cpu.h>
#include <linux/init.h>
#include <linux/of.h>
#include <linux/psci.h>
#include <uapi/linux/psci.h>

#include "shim.h"

struct psci_operations psci_ops;

struct suspend_latency {
	u32 param;
	u32 entry_us, exit_us;
};

#define KSHIM_MAX_PSCI_STATES	8
struct cpu_suspend_states {
	int nr;
	struct suspend_latency state[KSHIM_MAX_PSCI_STATES];
};
static DEFINE_PER_CPU(struct cpu_suspend_states, suspend_states);

/* The CPU's idle-state nodes (of_get_cpu_state_node()) with their
 * suspend parameter and latencies. */
static void read_suspend_states(int cpu, struct cpu_suspend_states *states)
{
	struct device_node *cpu_node = of_get_cpu_node(cpu, NULL), *np;
	int i;

	states->nr = 0;
	for (i = 0; cpu_node && states->nr < KSHIM_MAX_PSCI_STATES; i++) {
		struct suspend_latency *l = &states->state[states->nr];

		np = of_get_cpu_state_node(cpu_node, i);
		if (!np)
			break;
		if (of_property_read_u32(np, "arm,psci-suspend-param", &l->param))
			continue;
		if (of_property_read_u32(np, "entry-latency-us", &l->entry_us))
			l->entry_us = 0;
		if (of_property_read_u32(np, "exit-latency-us", &l->exit_us))
			l->exit_us = 0;
		states->nr++;
	}
}

static int firmware_cpu_suspend(u32 state, unsigned long entry_point)
{
	struct cpu_suspend_states *states = this_cpu_ptr(&suspend_states);
	int i;

	if (!states->nr)
		read_suspend_states(smp_processor_id(), states);
	for (i = 0; i < states->nr; i++) {
		if (states->state[i].param == state) {
			kshim_idle_wait(states->state[i].entry_us * NSEC_PER_USEC,
					states->state[i].exit_us * NSEC_PER_USEC);
			return 0;
		}
	}
	/* PSCI_RET_INVALID_PARAMS: cpuidle-psci.c validated the state */
	return -EINVAL;
}

/* psci.c's psci_has_osi_support(): PSCI_FEATURES says no OSI mode. */
bool psci_has_osi_support(void)
{
	return false;
}

/* psci.c's psci_power_state_is_valid(), original power_state format. */
bool psci_power_state_is_valid(u32 state)
{
	const u32 valid_mask = PSCI_0_2_POWER_STATE_ID_MASK |
			       PSCI_0_2_POWER_STATE_TYPE_MASK |
			       PSCI_0_2_POWER_STATE_AFFL_MASK;

	return !(state & ~valid_mask);
}

int psci_cpu_suspend_enter(u32 state)
{
	return psci_ops.cpu_suspend(state, 0);
}

static const char *const psci_compatibles[] = {
	"arm,psci-1.0", "arm,psci-0.2", "arm,psci",
};

/* psci_dt_init(), from setup_arch(): before any initcall. */
static int __init psci_firmware_init(void)
{
	struct device_node *root = of_find_node_by_path("/"), *np;
	unsigned int i;

	psci_ops = (struct psci_operations){ };
	if (!root)
		return 0;
	for_each_child_of_node(root, np) {
		if (!of_device_is_available(np))
			continue;
		for (i = 0; i < ARRAY_SIZE(psci_compatibles); i++) {
			if (of_device_is_compatible(np, psci_compatibles[i])) {
				psci_ops.cpu_suspend = firmware_cpu_suspend;
				return 0;
			}
		}
	}
	return 0;
}
early_initcall(psci_firmware_init);
