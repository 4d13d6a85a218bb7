/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ftrace output helpers' prototypes, which the glue defines as
 * unreachable (the harness formats events itself): the flag and symbol
 * arrays gained their sizes, and trace_print_bitmask_seq() takes the
 * trace_iterator — in 7.2.13, not in 6.12.118; bracketed.
 */
#ifndef _KSHIM_COMPAT_TRACE_EVENTS_H
#define _KSHIM_COMPAT_TRACE_EVENTS_H

#include <kshim/kernel-version.h>
#include <linux/trace_events.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_TRACE_PRINT_ARRAY_SIZE(name)	, size_t name
#define KSHIM_TRACE_BITMASK_SEQ_TARGET		struct trace_iterator *iter
#else
#define KSHIM_TRACE_PRINT_ARRAY_SIZE(name)
#define KSHIM_TRACE_BITMASK_SEQ_TARGET		struct trace_seq *p
#endif

#endif
