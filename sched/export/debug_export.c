// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/debug.c, compiled unchanged, for the trees
 * before 5.18 that build it as an object of its own (debug.o); later trees
 * build it inside build_utility.c (utility_export.c).
 */
#include "debug.c"

#define SH_EXPORT_DEBUG
#include "utility_entry.h"
