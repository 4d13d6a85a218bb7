// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU masks kernel/cpu.c owns. Every CPU of the board is possible and
 * present from boot and online once brought up; the harness does not
 * unplug CPUs.
 */
#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/export.h>
#include <kshim/compat/bitmap.h>

#include <kshim/api.h>
#include <kshim/compat/cpumask.h>
#include "shim.h"

#ifndef KSHIM_SCHED_FULL
/* kernel/smp.c's (compiled with the whole scheduler) */
unsigned int nr_cpu_ids __read_mostly = NR_CPUS;
EXPORT_SYMBOL(nr_cpu_ids);
#endif

struct cpumask __cpu_possible_mask __read_mostly;
struct cpumask __cpu_online_mask __read_mostly;
struct cpumask __cpu_present_mask __read_mostly;
struct cpumask __cpu_active_mask __read_mostly;
struct cpumask __cpu_dying_mask __read_mostly;
atomic_t __num_online_cpus __read_mostly;
#if KSHIM_HAS_NUM_POSSIBLE_CPUS
unsigned int __num_possible_cpus __read_mostly;
#endif

const DECLARE_BITMAP(cpu_all_bits, NR_CPUS) = CPU_BITS_ALL;

/* The first nr_up CPUs start online and active (boot_cpu_init() does it
 * for the boot CPU); the others come up later through the scheduler's
 * hotplug steps. */
void kshim_init_cpumasks(unsigned int nr_cpus, unsigned int nr_up)
{
	unsigned int cpu;

	nr_cpu_ids = nr_cpus;
	cpumask_clear(&__cpu_possible_mask);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		cpumask_set_cpu(cpu, &__cpu_possible_mask);
		cpumask_set_cpu(cpu, &__cpu_present_mask);
		if (cpu < nr_up) {
			cpumask_set_cpu(cpu, &__cpu_online_mask);
			cpumask_set_cpu(cpu, &__cpu_active_mask);
		}
	}
	atomic_set(&__num_online_cpus, nr_up);
#if KSHIM_HAS_NUM_POSSIBLE_CPUS
	/* what set_cpu_possible() counts */
	__num_possible_cpus = nr_cpus;
#endif
}

/* kernel/cpu.c */
void set_cpu_online(unsigned int cpu, bool online)
{
	if (online) {
		if (!cpumask_test_and_set_cpu(cpu, &__cpu_online_mask))
			atomic_inc(&__num_online_cpus);
	} else {
		if (cpumask_test_and_clear_cpu(cpu, &__cpu_online_mask))
			atomic_dec(&__num_online_cpus);
	}
}

/* A struct cpumask as the harness reads it (struct kshim_cpuset). */
void kshim_cpuset_from_mask(struct kshim_cpuset *out, const unsigned long *mask)
{
	BUILD_BUG_ON(NR_CPUS > KSHIM_MAX_CPUS);
	memset(out, 0, sizeof(*out));
	bitmap_to_arr64(out->bits, mask, nr_cpu_ids);
}
