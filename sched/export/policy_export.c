// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/build_policy.c, compiled unchanged: idle.c,
 * rt.c, cpudeadline.c, pelt.c, cputime.c and deadline.c, as the kernel
 * builds them.
 */
#include "build_policy.c"

#include "idle_entry.h"
