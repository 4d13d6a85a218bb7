// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's own entries (kernel/trace/trace_entries.h): the records ftrace
 * writes itself rather than through a TRACE_EVENT(), each described there
 * once, from which kernel/trace/export.c makes the fields and print format
 * tracefs shows in events/ftrace/NAME/format. The same description is read
 * here the way export.c reads it, for the one entry a trace.dat of the
 * harness holds: print, what a write to trace_marker records (rt-app's
 * markers). The other entries are left out by name; a tree that adds one
 * fails to compile here, naming it.
 */
#include <linux/kernel.h>
#include <linux/stringify.h>
#include <linux/trace_events.h>

#include "shim.h"

#define FTRACE_ENTRY(name, struct_name, id, tstruct, print)			\
	KSHIM_FTRACE_ENTRY_##name(PARAMS(tstruct), PARAMS(print))
#define FTRACE_ENTRY_REG(name, struct_name, id, tstruct, print, regfn)	\
	FTRACE_ENTRY(name, struct_name, id, PARAMS(tstruct), PARAMS(print))
#define FTRACE_ENTRY_DUP(name, struct_name, id, tstruct, print)
#define FTRACE_ENTRY_PACKED(name, struct_name, id, tstruct, print)

/* export.c's fields and print format */
#define F_STRUCT(args...)		args
#define F_printk(fmt, args...)		__stringify(fmt) ", " __stringify(args)
#define __entry				REC
#define __field(_type, _item) {						\
	.type = #_type, .name = #_item,					\
	.size = sizeof(_type), .align = __alignof__(_type),		\
	.is_signed = is_signed_type(_type), .filter_type = FILTER_OTHER },
#define __dynamic_array(_type, _item) {					\
	.type = #_type "[]", .name = #_item,				\
	.size = 0, .align = __alignof__(_type),				\
	.is_signed = is_signed_type(_type), .filter_type = FILTER_OTHER },

#define KSHIM_FTRACE_ENTRY_print(tstruct, print)			\
	struct trace_event_fields kshim_ftrace_print_fields[] = { tstruct {} };	\
	const char kshim_ftrace_print_fmt[] = print

#define KSHIM_FTRACE_ENTRY_function(tstruct, print)
/* FTRACE_ENTRY_PACKED before 7.x: left out either way */
#define KSHIM_FTRACE_ENTRY_funcgraph_entry(tstruct, print)
#define KSHIM_FTRACE_ENTRY_context_switch(tstruct, print)
#define KSHIM_FTRACE_ENTRY_kernel_stack(tstruct, print)
#define KSHIM_FTRACE_ENTRY_user_stack(tstruct, print)
#define KSHIM_FTRACE_ENTRY_bprint(tstruct, print)
#define KSHIM_FTRACE_ENTRY_raw_data(tstruct, print)
#define KSHIM_FTRACE_ENTRY_bputs(tstruct, print)
#define KSHIM_FTRACE_ENTRY_mmiotrace_rw(tstruct, print)
#define KSHIM_FTRACE_ENTRY_mmiotrace_map(tstruct, print)
#define KSHIM_FTRACE_ENTRY_branch(tstruct, print)
#define KSHIM_FTRACE_ENTRY_hwlat(tstruct, print)
#define KSHIM_FTRACE_ENTRY_func_repeats(tstruct, print)
#define KSHIM_FTRACE_ENTRY_osnoise(tstruct, print)
#define KSHIM_FTRACE_ENTRY_timerlat(tstruct, print)

#include "trace_entries.h"
