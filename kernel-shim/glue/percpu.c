// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU areas, as mm/percpu.c's setup_per_cpu_areas() gives them on a
 * generic architecture: each possible CPU gets a copy of the per-CPU image
 * (__per_cpu_start..__per_cpu_end, laid out by kernel-shim/percpu.ld), and
 * __per_cpu_offset[cpu] is the distance from the image to that copy.
 */
#include <linux/cache.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <asm/sections.h>

#include "shim.h"

unsigned long __per_cpu_offset[NR_CPUS] __read_mostly;
EXPORT_SYMBOL(__per_cpu_offset);

void kshim_setup_per_cpu_areas(unsigned int nr_cpus)
{
	unsigned long size = __per_cpu_end - __per_cpu_start;
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		char *area = shim_alloc(ALIGN(size, PAGE_SIZE), 0);

		memcpy(area, __per_cpu_start, size);
		__per_cpu_offset[cpu] = area - __per_cpu_start;
	}
}
