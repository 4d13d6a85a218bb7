/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flush_smp_call_function_queue(): what the idle task runs of the CPU's
 * queued calls before it schedules, flush_smp_call_function_from_idle()
 * until 5.19 (commit 16bf5a5e1ec5, "smp: Rename
 * flush_smp_call_function_from_idle()"), declared in kernel/sched/sched.h.
 */
#ifndef _KSHIM_COMPAT_SMP_H
#define _KSHIM_COMPAT_SMP_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_LT(5, 19, 0)
#define flush_smp_call_function_queue()	flush_smp_call_function_from_idle()
#endif

#endif
