// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side misuse of the scheduler, on purpose, to see a WARN_ON in
 * upstream code reach the harness with its function, file and line:
 * set_task_cpu() on a task that is neither running, waking nor queued
 * trips core.c's SCHED_DEBUG check.
 */
#include "build_policy_headers.h"

/*
 * Before 5.18 (kernel/sched/build_policy.c) the headers above are empty:
 * each unit of kernel/sched includes sched.h itself, as one with no file
 * of the tree, like this one, must (build_policy_headers.h).
 */
#if !KSHIM_KERNEL_GE(5, 18, 0)
#include "sched.h"
#endif

#include "sched_driver.h"

#include <kshim/compat/sched.h>

int sched_driver_set_task_cpu(void *task, int cpu)
{
	struct task_struct *p = task;

	if (task_on_rq_queued(p) || READ_ONCE(kshim_task_state(p)) == TASK_RUNNING)
		return -EBUSY;
	set_task_cpu(p, cpu);
	return 0;
}
