/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_cpu_idle_time_us() and get_cpu_iowait_time_us() moved from
 * kernel/time/tick-sched.c to kernel/sched/cputime.c (in 7.2.13, not in
 * 6.12.118; bracketed): compiled with the scheduler there, the glue's
 * versions only before.
 */
#ifndef _KSHIM_COMPAT_CPUTIME_H
#define _KSHIM_COMPAT_CPUTIME_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_CPU_IDLE_TIME_IN_SCHED	1
#else
#define KSHIM_CPU_IDLE_TIME_IN_SCHED	0
#endif

#endif
