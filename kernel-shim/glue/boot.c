// SPDX-License-Identifier: GPL-2.0
/*
 * Boot, in the order init/main.c and arm64's SMP bring-up do it, reduced
 * to the steps the compiled files take part in:
 *
 *   kshim_boot_early()  setup_per_cpu_areas(), CPU masks, the DT's CPU
 *                       nodes mapped to logical ids, the command line,
 *                       sched_init() (when the scheduler is compiled in),
 *                       smp_prepare_cpus() -> init_cpu_topology(), early
 *                       initcalls, each CPU brought up (store_cpu_topology(),
 *                       the scheduler's hotplug steps), sched_init_smp()
 *   (C++ says what the board's clocks run at, and its firmware
 *   frequency domains)
 *   kshim_boot_late()   do_initcalls() levels 0-7: the cpufreq core,
 *                       cpufreq-dt-platdev's device and cpufreq-dt's probe
 *                       (or the SoC's driver), each policy's notifiers,
 *                       energy model and governor; then the work deferred
 */
#include <linux/arch_topology.h>
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/energy_model.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/sched/topology.h>
#include <linux/smp.h>
#include <linux/utsname.h>
#include <linux/version.h>
#include <generated/utsrelease.h>
#include <kshim/compat/bitmap.h>
#include <kshim/kernel-version.h>

#include "shim.h"

/* init/version.c: uname as the tree's Makefile names it. Its namespace
 * part (.ns, whose reference count changed shape in 7.x) stays zero:
 * nothing compiled here takes a reference to a namespace. */
struct uts_namespace init_uts_ns = {
	.name = {
		.sysname	= "Linux",
		.nodename	= "sched-harness",
		.release	= UTS_RELEASE,
		.version	= "#1",
		.machine	= "arm64",
		.domainname	= "(none)",
	},
};

enum system_states system_state __read_mostly = SYSTEM_BOOTING;

/* init/main.c: true only while start_kernel() runs with interrupts off
 * before local_irq_enable(); boot here never reads it as set (smp.c tests
 * it for a lockdep assertion, which is empty without LOCKDEP). */
bool early_boot_irqs_disabled __read_mostly;
EXPORT_SYMBOL(system_state);

/* kernel/jump_label.c: static keys are plain atomics (no JUMP_LABEL), and
 * usable from the start. */
bool static_key_initialized __read_mostly = true;

int shim_cpu;
struct task_struct *shim_current;
unsigned long shim_irq_flags;

extern initcall_t kshim_initcall_start[], kshim_initcall0_start[], kshim_initcall_end[];

static unsigned int booted_cpus;

static void do_early_initcalls(void)
{
	initcall_t *fn;

	for (fn = kshim_initcall_start; fn < kshim_initcall0_start; fn++)
		(*fn)();
}

/* setup_arch() and the start of start_kernel(): the CPUs (nr_up of them
 * online), per-CPU areas, the device tree's CPU nodes, the command line. */
static int boot_machine(unsigned int nr_cpus, unsigned int nr_up, char *cmdline,
			const char **unknown_param)
{
	if (!nr_cpus || nr_cpus > NR_CPUS)
		return -EINVAL;
	booted_cpus = nr_cpus;
	kshim_init_cpumasks(nr_cpus, nr_up);
	kshim_setup_per_cpu_areas(nr_cpus);
	kshim_init_workqueues();
	kshim_of_map_cpus(nr_cpus);
	kshim_init_cpu_devices(nr_cpus);
	kshim_trace_attach();
	return kshim_parse_cmdline(cmdline, unknown_param);
}

/*
 * secondary_start_kernel() -> store_cpu_topology(cpu) runs on the CPU
 * coming up: arm reads that CPU's own MPIDR there.
 */
static void store_topology_on(unsigned int cpu)
{
	int saved = shim_cpu;

	shim_cpu = cpu;
	store_cpu_topology(cpu);
	shim_cpu = saved;
}

#ifdef KSHIM_SCHED_FULL
#include <linux/sched/clock.h>
#include <linux/sched/init.h>
#include <linux/sched/isolation.h>
#include <kshim/sched.h>

/*
 * start_kernel() and kernel_init_freeable() with the scheduler compiled in:
 * sched_init(), housekeeping_init(), sched_clock_init(), rest_init() (init
 * forked, the boot task idles), smp_prepare_cpus() (topology), the early
 * initcalls (migration_init(): sched_cpu_starting() for the boot CPU) and
 * the boot CPU's stopper as cpu_stop_init() makes it, smp_init() (each
 * secondary CPU up), then sched_init_smp(): the first sched domains.
 */
unsigned int kshim_nr_cpus_max(void)
{
	return NR_CPUS;
}

int kshim_boot_early(unsigned int nr_cpus, char *cmdline, const char **unknown_param)
{
	unsigned int cpu;
	int ret = boot_machine(nr_cpus, 1, cmdline, unknown_param);

	if (ret)
		return ret;
	kshim_init_hrtimers();
	kshim_sched_trace_attach();
	kshim_thermal_trace_attach();
	kshim_sched_init();
	call_function_init();	/* start_kernel(): the call-single queues */
	housekeeping_init();
	sched_clock_init();	/* after time_init(): sched_clock_cpu() runs from here */
	kshim_sched_rest_init();

	init_cpu_topology();
	store_cpu_topology(0);
	do_early_initcalls();
	kshim_stopper_create(0);

	for (cpu = 1; cpu < nr_cpus; cpu++) {
		smpcfd_prepare_cpu(cpu);	/* CPUHP_SMPCFD_PREPARE */
		store_topology_on(cpu);
		kshim_sched_cpu_up(cpu);
	}
	kshim_sched_init_smp();
	return 0;
}
#else
/* Without the scheduler: every CPU online from the start, the topology. */
int kshim_boot_early(unsigned int nr_cpus, char *cmdline, const char **unknown_param)
{
	unsigned int cpu;
	int ret = boot_machine(nr_cpus, nr_cpus, cmdline, unknown_param);

	if (ret)
		return ret;
	do_early_initcalls();
	init_cpu_topology();
	for (cpu = 0; cpu < nr_cpus; cpu++)
		store_topology_on(cpu);
	return 0;
}
#endif

int kshim_boot_late(void)
{
	initcall_t *fn;

	for (fn = kshim_initcall0_start; fn < kshim_initcall_end; fn++)
		(*fn)();
#ifndef KSHIM_SCHED_FULL
	kshim_cpufreq_online();
#endif
	system_state = SYSTEM_RUNNING;
	kshim_run_pending_work();
#ifdef KSHIM_SCHED_FULL
	kshim_sched_boot_done();
#endif
	return 0;
}

unsigned int kshim_nr_cpus(void)
{
	return booted_cpus;
}

#if KSHIM_KERNEL_LT(5, 14, 0)
/*
 * Stands in for 5.14's topology_update_thermal_pressure(), which trees
 * before it lack: the capacity the capped
 * frequency takes from the policy's CPUs, given to arch_topology.c's
 * topology_set_thermal_pressure() as 5.10's cpufreq_cooling.c gives its
 * own. It differs in the maximum frequency it measures against: the
 * policy's cpuinfo.max_freq, where 5.14 reads arch_topology.c's
 * freq_factor (the same frequency in MHz, set from the policy at boot).
 */
static void kshim_set_thermal_pressure_from_cap(const struct cpumask *cpus, unsigned long capped_khz)
{
	int cpu = cpumask_first(cpus);
	struct cpufreq_policy *policy = cpufreq_cpu_get(cpu);
	unsigned long max_capacity = arch_scale_cpu_capacity(cpu), capacity;
	unsigned int max_khz;

	if (!policy)
		return;
	max_khz = policy->cpuinfo.max_freq;
	cpufreq_cpu_put(policy);
	if (!max_khz || capped_khz >= max_khz)
		capacity = max_capacity;
	else
		capacity = mult_frac(max_capacity, capped_khz, max_khz);
	topology_set_thermal_pressure(cpus, max_capacity - capacity);
}
#endif

void kshim_update_thermal_pressure(const struct kshim_cpuset *set, unsigned long capped_khz)
{
	struct cpumask cpus;

	cpumask_clear(&cpus);
	bitmap_from_arr64(cpumask_bits(&cpus), set->bits, nr_cpu_ids);
#if KSHIM_KERNEL_GE(6, 9, 0)
	topology_update_hw_pressure(&cpus, capped_khz);
#elif KSHIM_KERNEL_GE(5, 14, 0)
	topology_update_thermal_pressure(&cpus, capped_khz);
#else
	kshim_set_thermal_pressure_from_cap(&cpus, capped_khz);
#endif
}

unsigned long kshim_cpu_capacity(unsigned int cpu)
{
	return arch_scale_cpu_capacity(cpu);
}

unsigned long kshim_cpu_freq_scale(unsigned int cpu)
{
	return arch_scale_freq_capacity(cpu);
}

unsigned long kshim_cpu_thermal_pressure(unsigned int cpu)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	return arch_scale_hw_pressure(cpu);
#else
	return arch_scale_thermal_pressure(cpu);
#endif
}

void kshim_cpu_topology(unsigned int cpu, struct kshim_cpu_topology *out)
{
	out->thread_id = cpu_topology[cpu].thread_id;
	out->core_id = cpu_topology[cpu].core_id;
#if KSHIM_KERNEL_GE(5, 16, 0)
	out->cluster_id = cpu_topology[cpu].cluster_id;
#else
	out->cluster_id = -1;	/* no cluster level before 5.16 */
#endif
	out->package_id = cpu_topology[cpu].package_id;
}

int kshim_em_nr_states(unsigned int cpu)
{
	struct em_perf_domain *pd = em_cpu_get(cpu);

	return pd ? pd->nr_perf_states : 0;
}

void kshim_em_state(unsigned int cpu, int index, struct kshim_em_state *out)
{
	struct em_perf_domain *pd = em_cpu_get(cpu);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	/* 6.9 made the table runtime-modifiable, behind RCU */
	struct em_perf_state *ps = &em_perf_state_from_pd(pd)[index];
#else
	struct em_perf_state *ps = &pd->table[index];
#endif

	out->frequency = ps->frequency;
	out->power = ps->power;
	out->cost = ps->cost;
#if KSHIM_KERNEL_GE(5, 16, 0)
	out->inefficient = !!(ps->flags & EM_PERF_STATE_INEFFICIENT);
#else
	out->inefficient = 0;	/* inefficient OPPs are 5.16's */
#endif
}

void kshim_em_cpus(unsigned int cpu, struct kshim_cpuset *out)
{
	struct em_perf_domain *pd = em_cpu_get(cpu);

	memset(out, 0, sizeof(*out));
	if (pd)
		bitmap_to_arr64(out->bits, cpumask_bits(em_span_cpus(pd)), nr_cpu_ids);
}

/*
 * The unit of an energy model's power: microwatts when registered so from
 * 5.19 (EM_PERF_DOMAIN_MICROWATTS, else a scale of the driver's own);
 * milliwatts when registered so from 5.11 (the milliwatts flag, commit
 * c250d50fe2ce, "PM: EM: Add a flag indicating units of power values in
 * Energy Model"); before, every energy model is in milliwatts
 * (energy_model.h: "in milli-watts").
 */
int kshim_em_power_unit(unsigned int cpu)
{
	struct em_perf_domain *pd = em_cpu_get(cpu);

	if (!pd)
		return 0;
#if KSHIM_KERNEL_GE(5, 19, 0)
	return pd->flags & EM_PERF_DOMAIN_MICROWATTS ? KSHIM_EM_MICROWATTS : KSHIM_EM_ABSTRACT;
#elif KSHIM_KERNEL_GE(5, 11, 0)
	return pd->milliwatts ? KSHIM_EM_MILLIWATTS : KSHIM_EM_ABSTRACT;
#else
	return KSHIM_EM_MILLIWATTS;
#endif
}
