/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stop_one_cpu_nowait() returns nothing in 7.3.4; a bool (whether the work
 * was queued) in 7.2.13 and 6.12.118 (from 6.6; 6.1's returns it too).
 * A stop work records its caller from 5.19 (commit a8b62fd08505,
 * "stop_machine: Add function and caller debug info"; in 6.1, not in
 * 5.10.262). The stopper's class is set by sched_set_stop_task(), which
 * include/linux/sched.h declares in 6.1 and kernel/stop_machine.c itself
 * in 5.10.262 (bracketed).
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

#if KSHIM_KERNEL_GE(6, 1, 0)
#define kshim_cpu_stop_work_set_caller(work, ip)	((work)->caller = (ip))
#else
#define kshim_cpu_stop_work_set_caller(work, ip)	do { } while (0)
struct task_struct;
extern void sched_set_stop_task(int cpu, struct task_struct *stop);
#endif

#endif
