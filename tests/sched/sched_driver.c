// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side misuse of the scheduler, on purpose, to see a WARN_ON in
 * upstream code reach the harness with its function, file and line:
 * set_task_cpu() on a task that is neither running, waking nor queued
 * trips core.c's SCHED_DEBUG check.
 */
#include "build_policy_headers.h"

#include "sched_driver.h"

int sched_driver_set_task_cpu(void *task, int cpu)
{
	struct task_struct *p = task;

	if (task_on_rq_queued(p) || READ_ONCE(p->__state) == TASK_RUNNING)
		return -EBUSY;
	set_task_cpu(p, cpu);
	return 0;
}
