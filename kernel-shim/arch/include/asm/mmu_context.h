/* SPDX-License-Identifier: GPL-2.0 */
/* No MMU: switching address spaces is nothing. */
#ifndef __ASM_SHIM_MMU_CONTEXT_H
#define __ASM_SHIM_MMU_CONTEXT_H

struct mm_struct;
struct task_struct;

static inline void switch_mm(struct mm_struct *prev, struct mm_struct *next,
			     struct task_struct *tsk)
{
}

#include <asm-generic/mmu_context.h>

#endif
