/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's exported entry points and task fields the glue uses:
 *  - set_cpus_allowed_force() is do_set_cpus_allowed() renamed (in 7.2.13,
 *    not in 6.12.118; bracketed);
 *  - a fork ends with sched_cgroup_fork(p, kargs) and sched_post_fork(p)
 *    (in 6.1, not in 5.10.262; bracketed); 5.10.262's
 *    sched_post_fork(p, kargs) does both;
 *  - a task's state is task_struct::__state from 5.14 (commit 2f064a59a11f,
 *    "sched: Change task_struct::state"), ::state before: read and written
 *    through kshim_task_state(p);
 *  - the affinity user space asked for, task_struct::user_cpus_ptr, from
 *    5.15 (commit b90ca8badbd1, "sched: Introduce
 *    task_struct::user_cpus_ptr to track requested affinity"): a new task
 *    gets none (kshim_task_clear_user_cpus()).
 */
#ifndef _KSHIM_COMPAT_SCHED_H
#define _KSHIM_COMPAT_SCHED_H

#include <kshim/kernel-version.h>
#include <linux/sched.h>

#if KSHIM_KERNEL_LT(6, 13, 0)
#define set_cpus_allowed_force(p, new_mask)	do_set_cpus_allowed(p, new_mask)
#endif

#if KSHIM_KERNEL_LT(6, 1, 0)
#include <linux/sched/task.h>
#define sched_cgroup_fork(p, kargs)	(sched_post_fork)(p, kargs)
#define sched_post_fork(p)		do { } while (0)
#endif

#if KSHIM_KERNEL_GE(5, 14, 0)
#define kshim_task_state(p)		((p)->__state)
#else
#define kshim_task_state(p)		((p)->state)
#endif

#if KSHIM_KERNEL_GE(5, 15, 0)
#define kshim_task_clear_user_cpus(p)	((p)->user_cpus_ptr = NULL)
#else
#define kshim_task_clear_user_cpus(p)	do { } while (0)
#endif

#endif
