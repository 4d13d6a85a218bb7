// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints without ftrace. The upstream files define their tracepoints
 * the kernel's way (CREATE_TRACE_POINTS); the harness attaches probes with
 * tracepoint_probe_register(), as kernel/tracepoint.c does, to record them.
 *
 * The ftrace event machinery that TRACE_EVENT() also generates is reached
 * only once ftrace registers an event class, which never happens here; the
 * functions below exist so that the objects link, and stop the run loudly
 * if anything ever calls them.
 */
#include <linux/tracepoint.h>
#include <linux/trace_events.h>
#include <linux/slab.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#include <trace/events/hw_pressure.h>
#else
#include <trace/events/thermal_pressure.h>
#endif

#include <linux/sched/clock.h>

#include "shim.h"

#define UNREACHABLE_FTRACE(fn) shim_fatal(#fn "(): the ftrace event machinery is not part of sched-harness")

int trace_raw_output_prep(struct trace_iterator *iter, struct trace_event *trace_event)
{
	UNREACHABLE_FTRACE(trace_raw_output_prep);
}

void trace_event_printf(struct trace_iterator *iter, const char *fmt, ...)
{
	UNREACHABLE_FTRACE(trace_event_printf);
}

enum print_line_t trace_handle_return(struct trace_seq *s)
{
	UNREACHABLE_FTRACE(trace_handle_return);
}

void *trace_event_buffer_reserve(struct trace_event_buffer *fbuffer,
				 struct trace_event_file *trace_file, unsigned long len)
{
	UNREACHABLE_FTRACE(trace_event_buffer_reserve);
}

void trace_event_buffer_commit(struct trace_event_buffer *fbuffer)
{
	UNREACHABLE_FTRACE(trace_event_buffer_commit);
}

bool __trace_trigger_soft_disabled(struct trace_event_file *file)
{
	UNREACHABLE_FTRACE(__trace_trigger_soft_disabled);
}

int trace_event_raw_init(struct trace_event_call *call)
{
	UNREACHABLE_FTRACE(trace_event_raw_init);
}

int trace_event_reg(struct trace_event_call *event, enum trace_reg type, void *data)
{
	UNREACHABLE_FTRACE(trace_event_reg);
}

/*
 * Attach one probe: tp->funcs is the NULL-terminated array __DO_TRACE()
 * walks (through __traceiter_*), and the static key turns the call site on.
 */
int tracepoint_probe_register(struct tracepoint *tp, void *probe, void *data)
{
	struct tracepoint_func *old = tp->funcs, *funcs;
	int n = 0;

	while (old && old[n].func)
		n++;
	funcs = kcalloc(n + 2, sizeof(*funcs), GFP_KERNEL);
	if (old)
		memcpy(funcs, old, n * sizeof(*funcs));
	funcs[n].func = probe;
	funcs[n].data = data;
	funcs[n].prio = TRACEPOINT_DEFAULT_PRIO;
	rcu_assign_pointer(tp->funcs, funcs);
	kfree(old);
	if (!static_key_enabled(&tp->key))
		static_key_enable(&tp->key);
	return 0;
}

const char *trace_print_flags_seq(struct trace_seq *p, const char *delim, unsigned long flags,
				  const struct trace_print_flags *flag_array)
{
	UNREACHABLE_FTRACE(trace_print_flags_seq);
}

const char *trace_print_bitmask_seq(struct trace_seq *p, void *bitmask_ptr, unsigned int bitmask_size)
{
	UNREACHABLE_FTRACE(trace_print_bitmask_seq);
}

const char *trace_print_array_seq(struct trace_seq *p, const void *buf, int count, size_t el_size)
{
	UNREACHABLE_FTRACE(trace_print_array_seq);
}

const char *trace_print_symbols_seq(struct trace_seq *p, unsigned long val,
				    const struct trace_print_flags *symbol_array)
{
	UNREACHABLE_FTRACE(trace_print_symbols_seq);
}

/*
 * The harness's probes: each turns its tracepoint's TP_PROTO arguments
 * into plain numbers for the C++ recorder, with up to two task names and a
 * thermal zone's or cooling device's type, on the CPU it fired on at the
 * simulated time.
 */
void kshim_trace_record(const char *name, int nr_args, const long long *args, const char *comm0,
			const char *comm1, const char *type)
{
	struct kshim_trace_event ev = {
		.name = name,
		.cpu = smp_processor_id(),
#ifdef KSHIM_SCHED_FULL
		.time_ns = sched_clock(),	/* the simulated clock (glue/time.c) */
#endif
		.nr_args = nr_args,
	};
	int i;

	for (i = 0; i < nr_args; i++)
		ev.args[i] = args[i];
	if (comm0)
		memcpy(ev.comm[0], comm0, sizeof(ev.comm[0]));
	if (comm1)
		memcpy(ev.comm[1], comm1, sizeof(ev.comm[1]));
	if (type)
		strscpy(ev.type, type, sizeof(ev.type));
	shim_trace(&ev);
}

static void probe_pressure_update(void *data, int cpu, unsigned long pressure)
{
	const long long args[] = { cpu, pressure };

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	kshim_trace_record("hw_pressure_update", ARRAY_SIZE(args), args, NULL, NULL, NULL);
#else
	kshim_trace_record("thermal_pressure_update", ARRAY_SIZE(args), args, NULL, NULL, NULL);
#endif
}

int kshim_trace_attach(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	return register_trace_hw_pressure_update(probe_pressure_update, NULL);
#else
	return register_trace_thermal_pressure_update(probe_pressure_update, NULL);
#endif
}

int trace_output_call(struct trace_iterator *iter, char *name, char *fmt, ...)
{
	shim_fatal("trace_output_call(): ftrace output is not modelled");
}
