// SPDX-License-Identifier: GPL-2.0
/*
 * The cpufreq core (drivers/cpufreq/cpufreq.c) as far as the compiled files
 * need it, with cpufreq-dt's view of the board: one policy per frequency
 * domain, its frequency table from the OPPs (ascending, as
 * cpufreq_table_validate_and_sort() leaves it), and the policy notifier
 * chain on which arch_topology.c learns each policy's maximum frequency.
 */
#include <linux/cpufreq.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "shim.h"

static BLOCKING_NOTIFIER_HEAD(cpufreq_policy_notifier_list);
static DEFINE_PER_CPU(struct cpufreq_policy *, cpufreq_cpu_data);

static struct cpufreq_policy *policies[NR_CPUS];
static unsigned int nr_policies;

int cpufreq_register_notifier(struct notifier_block *nb, unsigned int list)
{
	if (list != CPUFREQ_POLICY_NOTIFIER) {
		WARN(1, "cpufreq transition notifiers are not modelled\n");
		return -EINVAL;
	}
	return blocking_notifier_chain_register(&cpufreq_policy_notifier_list, nb);
}

int cpufreq_unregister_notifier(struct notifier_block *nb, unsigned int list)
{
	if (list != CPUFREQ_POLICY_NOTIFIER)
		return -EINVAL;
	return blocking_notifier_chain_unregister(&cpufreq_policy_notifier_list, nb);
}

struct cpufreq_policy *cpufreq_cpu_get_raw(unsigned int cpu)
{
	return cpu < nr_cpu_ids ? per_cpu(cpufreq_cpu_data, cpu) : NULL;
}

struct cpufreq_policy *cpufreq_cpu_get(unsigned int cpu)
{
	return cpufreq_cpu_get_raw(cpu);
}

void cpufreq_cpu_put(struct cpufreq_policy *policy)
{
}

/* cpufreq-dt drives frequencies itself (no ->setpolicy): invariance holds. */
bool cpufreq_supports_freq_invariance(void)
{
	return true;
}

int kshim_add_policy(const unsigned int *cpus, unsigned int nr_cpus,
		     const struct kshim_opp *opps, unsigned int nr_opps)
{
	struct cpufreq_policy *policy;
	struct cpufreq_frequency_table *table;
	unsigned int i;

	if (!nr_cpus || !nr_opps || nr_policies >= NR_CPUS)
		return -EINVAL;
	policy = kzalloc(sizeof(*policy), GFP_KERNEL);
	table = kcalloc(nr_opps + 1, sizeof(*table), GFP_KERNEL);
	if (!zalloc_cpumask_var(&policy->cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&policy->related_cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&policy->real_cpus, GFP_KERNEL))
		return -ENOMEM;

	for (i = 0; i < nr_opps; i++) {
		table[i].frequency = opps[i].hz / 1000;
		table[i].driver_data = i;
	}
	table[nr_opps].frequency = CPUFREQ_TABLE_END;
	policy->freq_table = table;
	policy->freq_table_sorted = CPUFREQ_TABLE_SORTED_ASCENDING;
	policy->cpuinfo.min_freq = table[0].frequency;
	policy->cpuinfo.max_freq = table[nr_opps - 1].frequency;
	policy->min = policy->cpuinfo.min_freq;
	policy->max = policy->cpuinfo.max_freq;
	policy->cur = policy->cpuinfo.max_freq;

	policy->cpu = cpus[0];
	for (i = 0; i < nr_cpus; i++) {
		if (cpus[i] >= nr_cpu_ids)
			return -EINVAL;
		cpumask_set_cpu(cpus[i], policy->cpus);
		cpumask_set_cpu(cpus[i], policy->related_cpus);
		cpumask_set_cpu(cpus[i], policy->real_cpus);
		per_cpu(cpufreq_cpu_data, cpus[i]) = policy;
	}
	kshim_opp_set_table(policy, opps, nr_opps);
	policies[nr_policies++] = policy;
	return 0;
}

/*
 * What cpufreq_online() does once a driver is registered: tell the policy
 * notifiers (arch_topology.c's init_cpu_capacity_callback()), then let the
 * driver register its energy model (cpufreq-dt: dev_pm_opp_of_register_em()).
 */
void kshim_cpufreq_online(void)
{
	unsigned int i;

	for (i = 0; i < nr_policies; i++) {
		blocking_notifier_call_chain(&cpufreq_policy_notifier_list,
					     CPUFREQ_CREATE_POLICY, policies[i]);
		kshim_register_em(policies[i]);
	}
}
