/* SPDX-License-Identifier: GPL-2.0 */
/*
 * High-resolution timers, as the glue's stand-in for kernel/time/hrtimer.c
 * (kernel-shim/glue/time.c) sees them, newest first:
 *
 * - 7.3 (in 7.3.4, not in 7.2.13): a timer sits on a timerqueue of linked
 *   nodes (struct timerqueue_linked_node) and says it is queued with a
 *   bool, is_queued; struct hrtimer_clock_base moved to
 *   <linux/hrtimer_bases.h>, its index and clockid const.
 * - before: a struct timerqueue_node and the state bits
 *   HRTIMER_STATE_ENQUEUED; the clock base in <linux/hrtimer_defs.h>, with
 *   the get_time() hrtimer_cb_get_time() calls inline.
 *
 * hrtimer_setup() (the function given at set-up) replaced hrtimer_init()
 * in the trees' callers: in 7.2.13, not in 6.12.118; bracketed.
 */
#ifndef _KSHIM_COMPAT_HRTIMER_H
#define _KSHIM_COMPAT_HRTIMER_H

#include <kshim/kernel-version.h>
#include <linux/hrtimer.h>
#include <linux/timerqueue.h>

#if KSHIM_KERNEL_GE(7, 3, 0)
#include <linux/hrtimer_bases.h>

typedef struct timerqueue_linked_head kshim_hrtimer_queue;
typedef struct timerqueue_linked_node kshim_hrtimer_node;
#define kshim_hrtimer_queue_init(head)		timerqueue_linked_init_head(head)
#define kshim_hrtimer_node_init(node)		timerqueue_linked_init(node)
#define kshim_hrtimer_queue_add(head, node)	timerqueue_linked_add(head, node)
#define kshim_hrtimer_queue_del(head, node)	timerqueue_linked_del(head, node)
#define kshim_hrtimer_queue_first(head)		timerqueue_linked_first(head)
#define kshim_hrtimer_queued(timer)		((timer)->is_queued)
#define kshim_hrtimer_set_queued(timer, queued)	((timer)->is_queued = (queued))
/* the clock base's own fields; hrtimer_cb_get_time() is out of line */
#define KSHIM_HRTIMER_CLOCK_BASE_INIT		{ .clockid = CLOCK_MONOTONIC }
#define KSHIM_HRTIMER_CB_GET_TIME_OUT_OF_LINE	1
#else
typedef struct timerqueue_head kshim_hrtimer_queue;
typedef struct timerqueue_node kshim_hrtimer_node;
#define kshim_hrtimer_queue_init(head)		timerqueue_init_head(head)
#define kshim_hrtimer_node_init(node)		timerqueue_init(node)
#define kshim_hrtimer_queue_add(head, node)	timerqueue_add(head, node)
#define kshim_hrtimer_queue_del(head, node)	timerqueue_del(head, node)
#define kshim_hrtimer_queue_first(head)		timerqueue_getnext(head)
#define kshim_hrtimer_queued(timer)		(!!((timer)->state & HRTIMER_STATE_ENQUEUED))
#define kshim_hrtimer_set_queued(timer, queued) \
	((timer)->state = (queued) ? HRTIMER_STATE_ENQUEUED : HRTIMER_STATE_INACTIVE)
#define KSHIM_HRTIMER_CLOCK_BASE_INIT		{ .clockid = CLOCK_MONOTONIC, .get_time = ktime_get }
#define KSHIM_HRTIMER_CB_GET_TIME_OUT_OF_LINE	0
#endif

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_HAS_HRTIMER_SETUP			1
#else
#define KSHIM_HAS_HRTIMER_SETUP			0
#endif

/*
 * jiffies_to_msecs() is inline where HZ divides 1000 (in 7.2.13, not in
 * 6.12.118; bracketed), out of line before.
 */
#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_JIFFIES_TO_MSECS_INLINE		(HZ <= MSEC_PER_SEC && !(MSEC_PER_SEC % HZ))
#else
#define KSHIM_JIFFIES_TO_MSECS_INLINE		0
#endif

#endif
