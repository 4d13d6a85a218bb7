/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stop_one_cpu_nowait() returns nothing in 7.3.4; a bool (whether the work
 * was queued) in 7.2.13 and 6.12.118 (from 6.6; 6.1's returns it too).
 */
#ifndef _KSHIM_COMPAT_STOP_MACHINE_H
#define _KSHIM_COMPAT_STOP_MACHINE_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(7, 3, 0)
#define kshim_stop_one_cpu_nowait_t		void
#define KSHIM_STOP_ONE_CPU_NOWAIT_QUEUED
#else
#define kshim_stop_one_cpu_nowait_t		bool
#define KSHIM_STOP_ONE_CPU_NOWAIT_QUEUED	true
#endif

#endif
