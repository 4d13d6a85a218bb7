// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/core.c, compiled unchanged: the run queues,
 * try_to_wake_up(), wake_up_new_task(), __schedule(), scheduler_tick(),
 * sched_init(), uclamp, effective_cpu_util() and the scheduler's sysctls
 * all come from the tree. What stays outside it is hardware and other
 * subsystems (stacks, IPIs, stopper threads, timers): kernel-shim/glue
 * (cpu.c the CPUs) and sched/glue/entry.c.
 */
#include "core.c"

#include "../glue/series.h"

/*
 * do_task_dead() without its final BUG(): on hardware __schedule() never
 * returns to a dead task, because the CPU is on the next task's stack by
 * then; here it returns to the harness, which is the next task's caller.
 */
void kshim_do_task_dead(void)
{
	set_special_state(TASK_DEAD);
	current->flags |= PF_NOFREEZE;
	__schedule(SM_NONE);
}
