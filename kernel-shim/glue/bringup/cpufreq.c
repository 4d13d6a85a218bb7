// SPDX-License-Identifier: GPL-2.0
/*
 * The PELT-only bring-up build's stand-in for the cpufreq core (the whole
 * scheduler's build compiles drivers/cpufreq/cpufreq.c, cpufreq-dt.c and
 * the OPP library instead): one policy per frequency domain, its table
 * from the OPPs sorted by the compiled freq_table.c, its transition
 * latency from clock-latency-ns (cpufreq-dt's default without: kshim/compat/cpufreq.h), and the policy
 * notifier chain on which arch_topology.c learns each policy's maximum
 * frequency. No governor: the bring-up build has no schedutil.
 */
#include <linux/cpufreq.h>
#include <linux/version.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kshim/sched.h>
#include <kshim/compat/cpufreq.h>

#include "../shim.h"

static BLOCKING_NOTIFIER_HEAD(cpufreq_policy_notifier_list);
static DEFINE_PER_CPU(struct cpufreq_policy *, cpufreq_cpu_data);

static struct cpufreq_policy *policies[NR_CPUS];
static unsigned int nr_policies;
static unsigned long long fast_switches[NR_CPUS] __maybe_unused;	/* by policy->cpu */
static unsigned long long slow_switches[NR_CPUS] __maybe_unused;

static __maybe_unused LIST_HEAD(cpufreq_governor_list);
/* The policies' sysfs parent: there is no sysfs, only the object. */
static struct kobject cpufreq_global_kobject __maybe_unused;

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

/*
 * cpufreq-dt enables boost *support* for a table with turbo-mode OPPs
 * (cpufreq_enable_boost_support()), but boost itself stays off until
 * written through sysfs: the boost frequencies are left out of
 * cpuinfo.max_freq and the policy limits.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
bool cpufreq_boost_enabled(void)	/* bool in 6.12, int in 6.1 */
#else
int cpufreq_boost_enabled(void)
#endif
{
	return 0;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* 6.12's freq_table.c asks whether the driver picks table indexes:
 * cpufreq-dt has ->target_index(). */
bool has_target_index(void)
{
	return true;
}
#endif

/* cpufreq-dt drives frequencies itself (no ->setpolicy): invariance holds. */
bool cpufreq_supports_freq_invariance(void)
{
	return true;
}


int kshim_add_policy(const unsigned int *cpus, unsigned int nr_cpus,
		     const struct kshim_opp *opps, unsigned int nr_opps,
		     unsigned long long transition_latency_ns, int fast_switch)
{
	struct cpufreq_policy *policy;
	struct cpufreq_frequency_table *table;
	unsigned int i;
	int ret;

	/* the harness's own preconditions: -ERANGE, so that -EINVAL is only
	 * ever the kernel's verdict on the table */
	if (!nr_cpus || !nr_opps || nr_policies >= NR_CPUS)
		return -ERANGE;
	for (i = 0; i < nr_cpus; i++)
		if (cpus[i] >= nr_cpu_ids)
			return -ERANGE;
	policy = kzalloc(sizeof(*policy), GFP_KERNEL);
	if (!policy)
		return -ENOMEM;
	ret = -ENOMEM;
	table = kcalloc(nr_opps + 1, sizeof(*table), GFP_KERNEL);
	if (!table || !zalloc_cpumask_var(&policy->cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&policy->related_cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&policy->real_cpus, GFP_KERNEL))
		goto out_free;

	/* dev_pm_opp_init_cpufreq_table() (drivers/opp/cpu.c) */
	for (i = 0; i < nr_opps; i++) {
		table[i].frequency = opps[i].hz / 1000;
		table[i].driver_data = i;
		if (opps[i].turbo)
			table[i].flags = CPUFREQ_BOOST_FREQ;
	}
	table[nr_opps].frequency = CPUFREQ_TABLE_END;
	policy->freq_table = table;
	/* cpufreq_online(), after the driver's ->init(): -EINVAL when no
	 * entry is left once boost frequencies are left out, or two entries
	 * have one frequency in kHz */
	ret = cpufreq_table_validate_and_sort(policy);
	if (ret)
		goto out_free;
	policy->cur = policy->max;
	policy->cpuinfo.transition_latency = transition_latency_ns && transition_latency_ns < UINT_MAX ?
					     transition_latency_ns : KSHIM_CPUFREQ_UNKNOWN_LATENCY;
	policy->fast_switch_possible = fast_switch;
	/* cpufreq-dt, like the firmware drivers, lets any CPU program the
	 * frequency (schedutil's irq_work need not run on a policy CPU) */
	policy->dvfs_possible_from_any_cpu = true;

	policy->cpu = cpus[0];
	for (i = 0; i < nr_cpus; i++) {
		cpumask_set_cpu(cpus[i], policy->cpus);
		cpumask_set_cpu(cpus[i], policy->related_cpus);
		cpumask_set_cpu(cpus[i], policy->real_cpus);
		per_cpu(cpufreq_cpu_data, cpus[i]) = policy;
	}
	kshim_opp_set_table(policy, opps, nr_opps);
	policies[nr_policies++] = policy;
	return 0;

	/* cpufreq_online()'s failure path: cpufreq_policy_free() */
out_free:
	free_cpumask_var(policy->real_cpus);
	free_cpumask_var(policy->related_cpus);
	free_cpumask_var(policy->cpus);
	kfree(table);
	kfree(policy);
	return ret;
}


/*
 * What cpufreq_online() does once a driver is registered: tell the policy
 * notifiers (arch_topology.c's init_cpu_capacity_callback()), let the
 * driver register its energy model (cpufreq-dt: dev_pm_opp_of_register_em()),
 * then start the default governor.
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

