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
#include <linux/version.h>
#include <asm/sections.h>

#include "shim.h"

unsigned long __per_cpu_offset[NR_CPUS] __read_mostly;

/* Room after each CPU's copy of the image for alloc_percpu(). */
#define KSHIM_PERCPU_RESERVE	(256 << 10)
EXPORT_SYMBOL(__per_cpu_offset);

#ifdef KSHIM_SCHED_FULL
/*
 * Dynamic per-CPU memory (alloc_percpu()) comes from a reserve after each
 * CPU's copy of the image, as the first chunk's dynamic area does: the
 * pointer handed out lies just past __per_cpu_end, so that adding a CPU's
 * __per_cpu_offset lands in that CPU's reserve. Never given back.
 */
static unsigned long dynamic_used;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* __alloc_percpu() is a macro over it (allocation profiling hooks) */
void __percpu *pcpu_alloc_noprof(size_t size, size_t align, bool reserved, gfp_t gfp)
#else
void __percpu *__alloc_percpu(size_t size, size_t align)
#endif
{
	unsigned long start = ALIGN(dynamic_used, max_t(size_t, align, sizeof(long)));
	unsigned long image = ALIGN(__per_cpu_end - __per_cpu_start, SMP_CACHE_BYTES);
	unsigned int cpu;

	if (WARN(start + size > KSHIM_PERCPU_RESERVE, "per-CPU reserve exhausted\n"))
		return NULL;
	dynamic_used = start + size;
	for_each_possible_cpu(cpu)
		memset(__per_cpu_start + __per_cpu_offset[cpu] + image + start, 0, size);
	return (void __percpu *)(__per_cpu_start + image + start);
}

void free_percpu(void __percpu *ptr)
{
}
#endif

/*
 * The kernel reaches a CPU's area only through __per_cpu_offset[], an
 * offset from the section, never by the area's address; LeakSanitizer
 * would count every area, and all that only per-CPU data points to (the
 * runqueues' domains, their groups), as leaked.
 */
static void *percpu_areas[NR_CPUS] __used;

void kshim_setup_per_cpu_areas(unsigned int nr_cpus)
{
	unsigned long size = __per_cpu_end - __per_cpu_start;
	unsigned long image = ALIGN(size, SMP_CACHE_BYTES);
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		char *area = shim_alloc(ALIGN(image + KSHIM_PERCPU_RESERVE, PAGE_SIZE), 1);

		memcpy(area, __per_cpu_start, size);
		__per_cpu_offset[cpu] = area - __per_cpu_start;
		percpu_areas[cpu] = area;
	}
}
