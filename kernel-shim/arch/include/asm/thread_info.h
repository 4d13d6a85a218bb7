/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thread_info lives in task_struct (CONFIG_THREAD_INFO_IN_TASK); the TIF_
 * flags are the ones kernel/sched reads and sets. No TIF_POLLING_NRFLAG:
 * neither arm nor arm64 has one (their idle loop waits in WFI and needs an
 * IPI to wake), so every remote wake-up and resched sends its IPI.
 */
#ifndef __ASM_SHIM_THREAD_INFO_H
#define __ASM_SHIM_THREAD_INFO_H

#include <linux/compiler.h>

#define THREAD_SIZE		16384
#define THREAD_SIZE_ORDER	2

#ifndef __ASSEMBLY__
struct thread_info {
	unsigned long		flags;
	int			preempt_count;
	unsigned int		cpu;	/* task_cpu() */
};

#define INIT_THREAD_INFO(tsk)	{ .flags = 0, .preempt_count = 0, .cpu = 0 }
#endif

#define TIF_SIGPENDING		0
#define TIF_NEED_RESCHED	1
#define TIF_NOTIFY_RESUME	2
#define TIF_NOTIFY_SIGNAL	3
#define TIF_MEMDIE		5
#define TIF_SYSCALL_TRACE	6
#define TIF_RESTORE_SIGMASK	7

#define _TIF_SIGPENDING		(1 << TIF_SIGPENDING)
#define _TIF_NEED_RESCHED	(1 << TIF_NEED_RESCHED)
#define _TIF_NOTIFY_RESUME	(1 << TIF_NOTIFY_RESUME)
#define _TIF_NOTIFY_SIGNAL	(1 << TIF_NOTIFY_SIGNAL)

#endif
