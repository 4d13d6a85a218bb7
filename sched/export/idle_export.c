// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/idle.c, compiled unchanged, for the trees
 * before 5.18 that build it as an object of its own (kernel/sched/Makefile:
 * idle.o); later trees build it inside build_policy.c (policy_export.c).
 */
#include "idle.c"

#include "idle_entry.h"
