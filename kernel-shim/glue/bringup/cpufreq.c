// SPDX-License-Identifier: GPL-2.0
/*
 * The cpufreq core (drivers/cpufreq/cpufreq.c) as far as the compiled files
 * need it, with cpufreq-dt's view of the board: one policy per frequency
 * domain, its frequency table from the OPPs (ascending, as
 * cpufreq_table_validate_and_sort() leaves it), its transition latency from
 * clock-latency-ns (CPUFREQ_ETERNAL without), and the policy notifier
 * chain on which arch_topology.c learns each policy's maximum frequency.
 *
 * The governor is the default one (schedutil) as registered by
 * cpufreq_schedutil.c. The driver switches frequency from scheduler
 * context (->fast_switch) only where the board's real driver can
 * (qcom-cpufreq-hw, SCMI); cpufreq-dt cannot, so schedutil takes its slow
 * path: irq_work, then its sugov kthread (glue/kthread.c) calling
 * __cpufreq_driver_target().
 *
 * The frequency table is the kernel's from there on: drivers/cpufreq/
 * freq_table.c (compiled unchanged) sets cpuinfo.min/max_freq and the
 * policy limits from it, leaving boost (turbo-mode) OPPs out while boost
 * is off, and sorts it; energy_model.c marks the OPPs it finds
 * inefficient (em_cpufreq_update_efficiencies()); requests resolve as
 * cpufreq.c's cpufreq_driver_resolve_freq() does, with
 * CPUFREQ_RELATION_LE, which skips those inefficient OPPs.
 */
#include <linux/cpufreq.h>
#include <linux/version.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#ifdef KSHIM_SCHED_FULL
#include <linux/cpu_cooling.h>
#include <linux/thermal.h>
#include <linux/energy_model.h>
#include <linux/pm_qos.h>
#include <linux/workqueue.h>
#include <trace/events/power.h>
#endif

#include <kshim/sched.h>

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

#ifdef KSHIM_SCHED_FULL
static void handle_update(struct work_struct *work);

/* drivers/cpufreq/cpufreq.c: a change of the policy's frequency QoS
 * (a cooling device's cap) updates its limits from process context. */
static int cpufreq_notifier_min(struct notifier_block *nb, unsigned long freq, void *data)
{
	schedule_work(&container_of(nb, struct cpufreq_policy, nb_min)->update);
	return 0;
}

static int cpufreq_notifier_max(struct notifier_block *nb, unsigned long freq, void *data)
{
	schedule_work(&container_of(nb, struct cpufreq_policy, nb_max)->update);
	return 0;
}

/* cpufreq_policy_alloc() and cpufreq_online(): the policy's constraints,
 * their notifiers and the user's (sysfs scaling_min/max_freq) requests at
 * their defaults. */
static int init_policy_qos(struct cpufreq_policy *policy)
{
	int ret;

	freq_constraints_init(&policy->constraints);
	policy->nb_min.notifier_call = cpufreq_notifier_min;
	policy->nb_max.notifier_call = cpufreq_notifier_max;
	INIT_WORK(&policy->update, handle_update);
	ret = freq_qos_add_notifier(&policy->constraints, FREQ_QOS_MIN, &policy->nb_min);
	if (!ret)
		ret = freq_qos_add_notifier(&policy->constraints, FREQ_QOS_MAX, &policy->nb_max);
	if (ret)
		return ret;
	policy->min_freq_req = kzalloc(2 * sizeof(*policy->min_freq_req), GFP_KERNEL);
	if (!policy->min_freq_req)
		return -ENOMEM;
	ret = freq_qos_add_request(&policy->constraints, policy->min_freq_req, FREQ_QOS_MIN,
				   FREQ_QOS_MIN_DEFAULT_VALUE);
	if (ret < 0)
		return ret;
	policy->max_freq_req = policy->min_freq_req + 1;
	ret = freq_qos_add_request(&policy->constraints, policy->max_freq_req, FREQ_QOS_MAX,
				   FREQ_QOS_MAX_DEFAULT_VALUE);
	return ret < 0 ? ret : 0;
}
#endif

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
					     transition_latency_ns : CPUFREQ_ETERNAL;
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
#ifdef KSHIM_SCHED_FULL
	if (init_policy_qos(policy))
		return -ENOMEM;
#endif
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

#ifdef KSHIM_SCHED_FULL
/* Governors exist only with the scheduler compiled in (schedutil). */
int cpufreq_register_governor(struct cpufreq_governor *governor)
{
	list_add_tail(&governor->governor_list, &cpufreq_governor_list);
	return 0;
}

static bool governor_registered(struct cpufreq_governor *governor)
{
	struct cpufreq_governor *gov;

	list_for_each_entry(gov, &cpufreq_governor_list, governor_list)
		if (gov == governor)
			return true;
	return false;
}

/* cpufreq_init_governor() + cpufreq_start_governor(), then what
 * cpufreq_set_policy() tells the scheduler after a governor change. */
static int start_governor(struct cpufreq_policy *policy, struct cpufreq_governor *gov)
{
	int ret;

	policy->governor = gov;
	if (gov->init) {
		ret = gov->init(policy);
		if (ret) {
			policy->governor = NULL;
			return ret;
		}
	}
	if (gov->start) {
		ret = gov->start(policy);
		if (ret)
			return ret;
	}
	if (gov->limits)
		gov->limits(policy);
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
	/* 6.12's schedutil rebuilds the domains for EAS itself (sugov_init()) */
	sched_cpufreq_governor_change(policy, NULL);
#endif
	return 0;
}

#endif

/*
 * What cpufreq_online() does once a driver is registered: tell the policy
 * notifiers (arch_topology.c's init_cpu_capacity_callback()), let the
 * driver register its energy model (cpufreq-dt: dev_pm_opp_of_register_em()),
 * then start the default governor.
 */
void kshim_cpufreq_online(void)
{
#ifdef KSHIM_SCHED_FULL
	/* the CONFIG_CPU_FREQ_DEFAULT_GOV_* governor names itself */
	struct cpufreq_governor *gov = cpufreq_default_governor();
#endif
	unsigned int i;

	for (i = 0; i < nr_policies; i++) {
		blocking_notifier_call_chain(&cpufreq_policy_notifier_list,
					     CPUFREQ_CREATE_POLICY, policies[i]);
		kshim_register_em(policies[i]);
#ifdef KSHIM_SCHED_FULL
		if (!governor_registered(gov)) {
			pr_warn("cpufreq: policy%u: governor %s was never registered\n",
				policies[i]->cpu, gov->name);
			continue;
		}
		if (start_governor(policies[i], gov))
			pr_err("cpufreq: policy%u: starting governor %s failed\n",
			       policies[i]->cpu, gov->name);
		/* cpufreq-dt is CPUFREQ_IS_COOLING_DEV: a policy whose CPU node
		 * has #cooling-cells becomes a cooling device */
		if (IS_ENABLED(CONFIG_CPU_THERMAL))
			policies[i]->cdev = of_cpufreq_cooling_register(policies[i]);
#endif
	}
}

#ifdef KSHIM_SCHED_FULL

void cpufreq_enable_fast_switch(struct cpufreq_policy *policy)
{
	policy->fast_switch_enabled = policy->fast_switch_possible;
}

void cpufreq_disable_fast_switch(struct cpufreq_policy *policy)
{
	policy->fast_switch_enabled = false;
}

/* drivers/cpufreq/cpufreq.c, __resolve_freq() (static there) */
static unsigned int __resolve_freq(struct cpufreq_policy *policy, unsigned int target_freq,
				   unsigned int min, unsigned int max, unsigned int relation)
{
	unsigned int idx;

	target_freq = clamp_val(target_freq, min, max);
	if (!policy->freq_table)
		return target_freq;
	idx = cpufreq_frequency_table_target(policy, target_freq, min, max, relation);
	policy->cached_resolved_idx = idx;
	policy->cached_target_freq = target_freq;
	return policy->freq_table[idx].frequency;
}

/* drivers/cpufreq/cpufreq.c, as 6.1 has it: the lowest efficient
 * frequency at or above the request, within the limits (the max wins when
 * they cross). */
unsigned int cpufreq_driver_resolve_freq(struct cpufreq_policy *policy, unsigned int target_freq)
{
	unsigned int min = READ_ONCE(policy->min);
	unsigned int max = READ_ONCE(policy->max);

	if (unlikely(min > max))
		min = max;
	return __resolve_freq(policy, target_freq, min, max, CPUFREQ_RELATION_LE);
}

/* What a frequency change does once the driver made it: the CPUs run at
 * it, frequency invariance scales by it, the cpu_frequency tracepoint says
 * it (cpufreq_notify_transition()'s POSTCHANGE, or the fast path's own). */
static void frequency_changed(struct cpufreq_policy *policy, unsigned int freq)
{
	unsigned int cpu;

	policy->cur = freq;
	arch_set_freq_scale(policy->related_cpus, freq, policy->cpuinfo.max_freq);
	if (trace_cpu_frequency_enabled())
		for_each_cpu(cpu, policy->cpus)
			trace_cpu_frequency(freq, cpu);
}

/*
 * The board's driver switching at once (->fast_switch): like cpufreq-dt's
 * ->target_index() it sets the OPP at or above the frequency asked for
 * (schedutil asks for one it resolved already).
 */
static unsigned int board_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq)
{
	return __resolve_freq(policy, target_freq, policy->min, policy->max, CPUFREQ_RELATION_L);
}

/* drivers/cpufreq/cpufreq.c: the new frequency is what the CPUs run at and
 * what frequency invariance scales by from now on. */
unsigned int cpufreq_driver_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq)
{
	unsigned int freq;

	target_freq = clamp_val(target_freq, policy->min, policy->max);
	freq = board_fast_switch(policy, target_freq);
	if (!freq)
		return 0;
	fast_switches[policy->cpu]++;
	frequency_changed(policy, freq);
	return freq;
}

/*
 * drivers/cpufreq/cpufreq.c, 6.1: the slow path, from schedutil's sugov
 * kthread (sugov_work()) or a limits change. The driver is cpufreq-dt's
 * ->target_index(): the OPP the resolution cached.
 */
int __cpufreq_driver_target(struct cpufreq_policy *policy, unsigned int target_freq,
			    unsigned int relation)
{
	target_freq = __resolve_freq(policy, target_freq, policy->min, policy->max, relation);
	if (target_freq == policy->cur)
		return 0;
	slow_switches[policy->cpu]++;
	frequency_changed(policy, policy->freq_table[policy->cached_resolved_idx].frequency);
	return 0;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
DEFINE_PER_CPU(unsigned long, cpufreq_pressure);

/*
 * drivers/cpufreq/cpufreq.c, 6.12's cpufreq_update_pressure() (static
 * there): the capacity a limited policy max takes from its CPUs, which the
 * scheduler reads as cpufreq_get_pressure() (6.9 split it from the
 * hardware pressure).
 */
static void update_pressure(struct cpufreq_policy *policy)
{
	unsigned long max_capacity, capped_freq, pressure;
	u32 max_freq;
	int cpu;

	cpu = cpumask_first(policy->related_cpus);
	max_freq = arch_scale_freq_ref(cpu);
	if (!max_freq)
		max_freq = policy->cpuinfo.max_freq;
	capped_freq = policy->max;
	if (max_freq <= capped_freq) {
		pressure = 0;	/* boost frequencies clear it */
	} else {
		max_capacity = arch_scale_cpu_capacity(cpu);
		pressure = max_capacity - mult_frac(max_capacity, capped_freq, max_freq);
	}
	for_each_cpu(cpu, policy->related_cpus)
		WRITE_ONCE(per_cpu(cpufreq_pressure, cpu), pressure);
}
#endif

/*
 * drivers/cpufreq/cpufreq.c, cpufreq_set_policy() as refresh_frequency_limits()
 * calls it (the same governor): the limits the frequency QoS aggregates,
 * verified by cpufreq-dt's ->verify() (cpufreq_generic_frequency_table_verify(),
 * freq_table.c) and resolved to the table, then the governor's ->limits().
 * No ->setpolicy driver, no governor switch here.
 */
static void set_policy_limits(struct cpufreq_policy *policy)
{
	struct cpufreq_policy_data new_data;

	memcpy(&new_data.cpuinfo, &policy->cpuinfo, sizeof(policy->cpuinfo));
	new_data.freq_table = policy->freq_table;
	new_data.cpu = policy->cpu;
	new_data.min = freq_qos_read_value(&policy->constraints, FREQ_QOS_MIN);
	new_data.max = freq_qos_read_value(&policy->constraints, FREQ_QOS_MAX);
	if (cpufreq_generic_frequency_table_verify(&new_data))
		return;
	WRITE_ONCE(policy->max, __resolve_freq(policy, new_data.max, new_data.min, new_data.max,
					       CPUFREQ_RELATION_H));
	new_data.min = __resolve_freq(policy, new_data.min, new_data.min, new_data.max, CPUFREQ_RELATION_L);
	WRITE_ONCE(policy->min, new_data.min > policy->max ? policy->max : new_data.min);
	trace_cpu_frequency_limits(policy);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	update_pressure(policy);
#endif
	policy->cached_target_freq = UINT_MAX;
	if (policy->governor && policy->governor->limits)
		policy->governor->limits(policy);
}


/* drivers/cpufreq/cpufreq.c: the work the QoS notifiers queue */
static void handle_update(struct work_struct *work)
{
	struct cpufreq_policy *policy = container_of(work, struct cpufreq_policy, update);

	down_write(&policy->rwsem);
	set_policy_limits(policy);
	up_write(&policy->rwsem);
}

/* drivers/cpufreq/cpufreq.c: the frequency last set (cpufreq-dt has no
 * ->setpolicy) */
unsigned int cpufreq_quick_get(unsigned int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy ? policy->cur : 0;
}

/* Only drivers with ->adjust_perf (intel_pstate, amd-pstate) have it. */
bool cpufreq_driver_has_adjust_perf(void)
{
	return false;
}

void cpufreq_driver_adjust_perf(unsigned int cpu, unsigned long min_perf,
				unsigned long target_perf, unsigned long capacity)
{
	shim_fatal("cpufreq_driver_adjust_perf(): no driver here has ->adjust_perf");
}

/* cpufreq-dt sets none of the driver flags tested through this. */
bool cpufreq_driver_test_flags(u16 flags)
{
	return false;
}

unsigned int cpufreq_policy_transition_delay_us(struct cpufreq_policy *policy)
{
	unsigned int latency;

	if (policy->transition_delay_us)
		return policy->transition_delay_us;
	latency = policy->cpuinfo.transition_latency / NSEC_PER_USEC;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	/* 6.12: half the latency again for breathing room, else 1 ms */
	if (latency)
		return latency + (latency >> 1);
	return USEC_PER_MSEC;
#else
	if (latency)
		return min(latency * LATENCY_MULTIPLIER, (unsigned int)10000);
	return LATENCY_MULTIPLIER;
#endif
}

/* cpufreq-dt's driver has no CPUFREQ_HAVE_GOVERNOR_PER_POLICY flag. */
bool have_governor_per_policy(void)
{
	return false;
}

struct kobject *get_governor_parent_kobj(struct cpufreq_policy *policy)
{
	return &cpufreq_global_kobject;
}

int kshim_cpufreq_cooling(int cpu, int *cdev_id, unsigned long *max_state, unsigned long *cur_state)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);
	struct thermal_cooling_device *cdev = policy ? policy->cdev : NULL;

	if (IS_ERR_OR_NULL(cdev))
		return -ENODEV;
	*cdev_id = cdev->id;
	*max_state = cdev->max_state;
	if (cdev->ops->get_cur_state(cdev, cur_state))
		*cur_state = 0;
	return 0;
}

unsigned long kshim_cpu_cpufreq_pressure(int cpu)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
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

unsigned long long kshim_cpufreq_fast_switches(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy ? fast_switches[policy->cpu] : 0;
}

unsigned long long kshim_cpufreq_slow_switches(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy ? slow_switches[policy->cpu] : 0;
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

unsigned long long kshim_cpufreq_transition_latency(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	if (!policy || policy->cpuinfo.transition_latency == CPUFREQ_ETERNAL)
		return 0;
	return policy->cpuinfo.transition_latency;
}

const char *kshim_cpufreq_governor(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);

	return policy && policy->governor ? policy->governor->name : NULL;
}

#endif /* KSHIM_SCHED_FULL */
