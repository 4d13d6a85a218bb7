// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's tracepoints, instantiated where core.c instantiates them
 * on a real kernel: CREATE_TRACE_POINTS before trace/events/sched.h turns
 * each TRACE_EVENT()/DECLARE_TRACE() of the tree into its struct tracepoint
 * and iterator (the pelt_*_tp points pelt.c calls among them).
 */
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/kthread.h>
#include <linux/binfmts.h>

#define CREATE_TRACE_POINTS
#include <trace/events/sched.h>
