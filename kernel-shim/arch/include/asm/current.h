/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `current` is the task the harness is running kernel code for, on the
 * simulated CPU it has selected (shim_set_cpu()); a plain global since all
 * simulated CPUs share one host thread.
 */
#ifndef __ASM_SHIM_CURRENT_H
#define __ASM_SHIM_CURRENT_H

struct task_struct;
extern struct task_struct *shim_current;

static __always_inline struct task_struct *get_current(void)
{
	return shim_current;
}

#define current get_current()

#endif
