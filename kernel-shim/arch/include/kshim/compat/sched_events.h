/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's trace events as a probe sees them
 * (include/trace/events/sched.h):
 *  - sched_switch passes prev's state from 5.18 (commit fa2c3254d7cf,
 *    "sched/tracing: Don't re-read p->state when emitting sched_switch
 *    event"); before, the event read it from prev, through
 *    task_state_index(prev), which __task_state_index(state, exit_state)
 *    replaced in 5.14 (commit 2f064a59a11f).
 *
 *	KSHIM_SCHED_SWITCH_PROTO	a probe's parameters after its data
 *	KSHIM_SCHED_SWITCH_ARGS		the same, passed on
 *	kshim_sched_switch_state_index(prev, prev_state)
 *					what the event's TP_fast_assign
 *					takes of prev's state
 */
#ifndef _KSHIM_COMPAT_SCHED_EVENTS_H
#define _KSHIM_COMPAT_SCHED_EVENTS_H

#include <kshim/kernel-version.h>
#include <linux/sched.h>

#if KSHIM_KERNEL_GE(5, 18, 0)
#define KSHIM_SCHED_SWITCH_PROTO \
	bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state
#define KSHIM_SCHED_SWITCH_ARGS		preempt, prev, next, prev_state
#define kshim_sched_switch_state_index(prev, prev_state) \
	__task_state_index(prev_state, (prev)->exit_state)
#else
#define KSHIM_SCHED_SWITCH_PROTO \
	bool preempt, struct task_struct *prev, struct task_struct *next
#define KSHIM_SCHED_SWITCH_ARGS		preempt, prev, next
#define kshim_sched_switch_state_index(prev, prev_state)	task_state_index(prev)
#endif

#endif
