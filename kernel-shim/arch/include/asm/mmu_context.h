/* SPDX-License-Identifier: GPL-2.0 */
/* No MMU: switching address spaces is nothing. */
#ifndef __ASM_SHIM_MMU_CONTEXT_H
#define __ASM_SHIM_MMU_CONTEXT_H

#include <kshim/kernel-version.h>

struct mm_struct;
struct task_struct;

/*
 * asm-generic/mmu_context.h of 5.10 defines switch_mm() itself, for
 * NOMMU; later trees leave it to the architecture (bracketed: between
 * Debian's 5.10 and 6.1, at 5.11).
 */
#if KSHIM_KERNEL_GE(5, 11, 0)
static inline void switch_mm(struct mm_struct *prev, struct mm_struct *next,
			     struct task_struct *tsk)
{
}
#endif

#include <asm-generic/mmu_context.h>

#endif
