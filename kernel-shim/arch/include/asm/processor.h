/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_SHIM_PROCESSOR_H
#define __ASM_SHIM_PROCESSOR_H

#include <asm/ptrace.h>
#include <kshim/kernel-version.h>

/* Nothing to save per thread: tasks never run host code of their own. */
struct thread_struct {
};

#define INIT_THREAD	{ }
#define TASK_SIZE	(~0UL)
#define TASK_UNMAPPED_BASE	0UL
#define STACK_TOP	TASK_SIZE
#define STACK_TOP_MAX	STACK_TOP

/* A CPU spinning until another makes progress (csd_lock_wait(), ...):
 * the CPU driver lets the others take their IPIs (glue/cpu.c). */
#ifdef KSHIM_SCHED_FULL
extern int kshim_unrelaxed_ipis;
void kshim_cpu_relax(void);
#define cpu_relax()						\
do {								\
	barrier();						\
	if (__builtin_expect(kshim_unrelaxed_ipis, 0))		\
		kshim_cpu_relax();				\
} while (0)
#else
#define cpu_relax()	barrier()
#endif
#define task_pt_regs(tsk)	((struct pt_regs *)0)
#define KSTK_EIP(tsk)	0UL
#define KSTK_ESP(tsk)	0UL

/* Where a sleeping task waits: nowhere the harness can name. The
 * architecture's get_wchan() until 5.16 (commit 42a20f86dc19, "sched: Add
 * wrapper for get_wchan() to keep task blocked"), __get_wchan() under
 * core.c's get_wchan() since. */
#if KSHIM_KERNEL_GE(5, 16, 0)
static inline unsigned long __get_wchan(struct task_struct *p)
{
	return 0;
}
#else
static inline unsigned long get_wchan(struct task_struct *p)
{
	return 0;
}
#endif

#endif
