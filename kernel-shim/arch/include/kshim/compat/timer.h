/* SPDX-License-Identifier: GPL-2.0 */
/* timer_container_of(): from_timer() renamed (6.16, "treewide, timers: Rename from_timer() to timer_container_of()"). */
#ifndef _KSHIM_COMPAT_TIMER_H
#define _KSHIM_COMPAT_TIMER_H

#include <linux/timer.h>

/*
 * timer_init_key(): init_timer_key() renamed, the glue defines it by the
 * newest name (in 7.2.13, not in 6.12.118; bracketed).
 */
#include <kshim/kernel-version.h>
#if KSHIM_KERNEL_LT(6, 13, 0)
#define timer_init_key	init_timer_key
#endif

#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

#endif
