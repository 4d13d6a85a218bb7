// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/cpufreq_schedutil.c, compiled unchanged, for
 * the trees before 5.18 that build it as an object of its own
 * (cpufreq_schedutil.o); later trees build it inside build_utility.c
 * (utility_export.c).
 */
#include "cpufreq_schedutil.c"

#define SH_EXPORT_SCHEDUTIL
#include "utility_entry.h"
