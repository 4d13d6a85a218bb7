/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ftrace output helpers' prototypes, which the glue defines as
 * unreachable (the harness formats events itself): the flag and symbol
 * arrays gained their sizes, and trace_print_bitmask_seq() takes the
 * trace_iterator — in 7.2.13, not in 6.12.118; bracketed.
 *
 * A record's context, its interrupt state and preempt count, is one word
 * (trace_ctx) from 5.12 (in 6.1, not in 5.10.262; bracketed: "tracing:
 * Merge irqflags + preempt counter."), the irq flags and count apart
 * before, which kernel/trace/trace.c's tracing_generic_entry_update()
 * turned into the entry's flags:
 *	kshim_trace_buffer_context(fbuffer, irqs_off, count)	sets them
 *	kshim_tracing_generic_entry_update(entry, type, fbuffer)
 *
 * An event field's array length is its own (len) in 6.1, not in 5.10.262
 * (bracketed); before, the format printed the array descriptor of the
 * field's type ("char[16]"): kshim_trace_field_len(field) is then
 * KSHIM_TRACE_FIELD_LEN_IN_TYPE.
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

#if KSHIM_KERNEL_GE(5, 12, 0)
#define kshim_trace_buffer_context(fbuffer, irqs_off, count) \
	((fbuffer)->trace_ctx = ((irqs_off) ? TRACE_FLAG_IRQS_OFF << 16 : 0) | (count))
#define kshim_tracing_generic_entry_update(entry, type, fbuffer) \
	tracing_generic_entry_update(entry, type, (fbuffer)->trace_ctx)
#else
#define kshim_trace_buffer_context(fbuffer, irqs_off, count) \
	((fbuffer)->flags = (irqs_off) ? ARCH_IRQ_DISABLED : ARCH_IRQ_ENABLED, (fbuffer)->pc = (count))
#define kshim_tracing_generic_entry_update(entry, type, fbuffer) \
	tracing_generic_entry_update(entry, type, (fbuffer)->flags, (fbuffer)->pc)
#endif

#define KSHIM_TRACE_FIELD_LEN_IN_TYPE	(-1)
#if KSHIM_KERNEL_GE(6, 1, 0)
#define kshim_trace_field_len(field)	((field)->len)
#else
#define kshim_trace_field_len(field)	KSHIM_TRACE_FIELD_LEN_IN_TYPE
#endif

#endif
