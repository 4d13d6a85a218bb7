// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/build_utility.c, compiled unchanged: among
 * others clock.c, cpufreq.c, cpufreq_schedutil.c, debug.c, cpupri.c,
 * stop_task.c, topology.c and isolation.c, as the kernel builds them.
 */
#include "build_utility.c"

#include "utility_entry.h"
