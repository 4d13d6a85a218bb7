// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU masks kernel/cpu.c owns. Every CPU of the board is possible,
 * present, online and active from boot: the harness does not hotplug.
 */
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/export.h>

#include "shim.h"

unsigned int nr_cpu_ids __read_mostly = NR_CPUS;
EXPORT_SYMBOL(nr_cpu_ids);

struct cpumask __cpu_possible_mask __read_mostly;
struct cpumask __cpu_online_mask __read_mostly;
struct cpumask __cpu_present_mask __read_mostly;
struct cpumask __cpu_active_mask __read_mostly;
struct cpumask __cpu_dying_mask __read_mostly;
atomic_t __num_online_cpus __read_mostly;

const DECLARE_BITMAP(cpu_all_bits, NR_CPUS) = CPU_BITS_ALL;

void kshim_init_cpumasks(unsigned int nr_cpus)
{
	unsigned int cpu;

	nr_cpu_ids = nr_cpus;
	cpumask_clear(&__cpu_possible_mask);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		cpumask_set_cpu(cpu, &__cpu_possible_mask);
		cpumask_set_cpu(cpu, &__cpu_present_mask);
		cpumask_set_cpu(cpu, &__cpu_online_mask);
		cpumask_set_cpu(cpu, &__cpu_active_mask);
	}
	atomic_set(&__num_online_cpus, nr_cpus);
}
