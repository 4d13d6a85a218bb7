/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SH_TESTS_SCHED_DRIVER_H
#define SH_TESTS_SCHED_DRIVER_H

#ifdef __cplusplus
extern "C" {
#endif

/* set_task_cpu() on a sleeping task (a struct task_struct *), which
 * 6.1's core.c WARNs about. -EBUSY if the task is not asleep. */
int sched_driver_set_task_cpu(void *task, int cpu);
/* kernel-shim/glue/task.c */
struct task_struct *kshim_find_task(int pid);

#ifdef __cplusplus
}
#endif

#endif
