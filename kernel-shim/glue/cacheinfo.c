// SPDX-License-Identifier: GPL-2.0
/*
 * The last-level-cache facts arch_topology.c asks drivers/base/cacheinfo.c
 * for, from the DT as cacheinfo's OF code finds them: follow a CPU's
 * next-level-cache chain; the last cache node reached is its LLC, and two
 * CPUs share the LLC when they reach the same node (cache_leaves_are_shared()
 * compares the fw_token, which is that node). Without cache nodes the LLC
 * is unknown, as on a board whose DT describes no caches.
 */
#include <linux/cacheinfo.h>
#include <linux/cpu.h>
#include <linux/of.h>

#include "shim.h"

static struct device_node *llc_node(unsigned int cpu)
{
	struct device_node *np = of_get_cpu_node(cpu, NULL), *next, *last = NULL;

	while (np && (next = of_find_next_cache_node(np)) && next != np) {
		last = next;
		np = next;
	}
	return last;
}

int fetch_cache_info(unsigned int cpu)
{
	return 0;
}

int detect_cache_attributes(unsigned int cpu)
{
	return 0;
}

bool last_level_cache_is_valid(unsigned int cpu)
{
	return llc_node(cpu) != NULL;
}

bool last_level_cache_is_shared(unsigned int cpu_x, unsigned int cpu_y)
{
	struct device_node *x = llc_node(cpu_x);

	return x && x == llc_node(cpu_y);
}
