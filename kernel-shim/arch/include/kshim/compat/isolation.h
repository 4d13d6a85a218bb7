/* SPDX-License-Identifier: GPL-2.0 */
/*
 * housekeeping_update() (kernel/sched/isolation.c, in 7.2.13, not in
 * 6.12.118; bracketed): cpusets change the isolated CPUs at run time and
 * tell the workqueues, timer migration, kthreads and vmstat. The harness
 * runs no cpusets, so the glue's versions of what it calls stop the run.
 */
#ifndef _KSHIM_COMPAT_ISOLATION_H
#define _KSHIM_COMPAT_ISOLATION_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_HAS_HOUSEKEEPING_UPDATE	1
#else
#define KSHIM_HAS_HOUSEKEEPING_UPDATE	0
#endif

#define KSHIM_UNREACHABLE_HOUSEKEEPING(fn) \
	shim_fatal(#fn "(): reached from housekeeping_update(), which only cpusets call; sched-harness runs none")

#endif
