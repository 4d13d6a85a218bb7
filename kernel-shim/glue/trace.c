// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints without ftrace. The upstream files define their tracepoints
 * the kernel's way (CREATE_TRACE_POINTS); the harness attaches probes with
 * tracepoint_probe_register(), as kernel/tracepoint.c does, to record them.
 *
 * TRACE_EVENT() also generates, in the object that instantiates an event,
 * its ftrace event: a struct trace_event_call in the _ftrace_events section
 * with its class's fields and print format, and the class's probe
 * (trace_event_raw_event_<class>) whose TP_fast_assign writes the event's
 * binary record. For a trace.dat the harness reaches them as ftrace does:
 * an event's format is its fields laid out as event_define_fields() lays
 * them and printed as f_show() prints them (kernel/trace/trace_events.c);
 * its records are the class probe's, called by the harness's probe of the
 * tracepoint (kshim_record_raw(), glue/shim.h) into the two functions of
 * the ring buffer that the probe calls, trace_event_buffer_reserve() and
 * trace_event_buffer_commit(). The rest of ftrace's output machinery is
 * never reached; the functions below stop the run loudly if it ever is.
 */
#include <linux/tracepoint.h>
#include <linux/trace_events.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <kshim/kernel-version.h>
#if KSHIM_KERNEL_GE(6, 9, 0)
#include <trace/events/hw_pressure.h>
#elif KSHIM_KERNEL_GE(6, 1, 0)
#include <trace/events/thermal_pressure.h>
#endif

#include <linux/sched/clock.h>
#include <kshim/compat/tracepoint.h>

#include <kshim/cost.h>
#include <kshim/compat/trace_events.h>
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

/*
 * The ring buffer, for the class probes of the events a trace.dat records:
 * one record at a time (probes do not nest: none fires inside another's
 * TP_fast_assign), handed whole to the harness at commit with the CPU it was
 * written on and the running CPU's sched_clock(), the trace clock "local"
 * that trace-cmd records with by default.
 */
static union {
	struct trace_entry ent;
	char bytes[512];
} raw_record;
static unsigned long raw_record_len;

/* trace_events.c's: the record's common fields (tracing_generic_entry_update()) */
void *trace_event_buffer_reserve(struct trace_event_buffer *fbuffer,
				 struct trace_event_file *trace_file, unsigned long len)
{
	if (WARN_ONCE(len > sizeof(raw_record), "%s: a record of %lu bytes (at most %zu)",
		      trace_event_name(trace_file->event_call), len, sizeof(raw_record)))
		return NULL;
	/*
	 * Zeroed: the padding between fields is in the file, and a trace is
	 * the same bytes for the same run.
	 */
	memset(raw_record.bytes, 0, len);
	/*
	 * The flags and preempt count the text trace prints for every event
	 * ("d..2.": interrupts off, the runqueue's lock and the tracepoint's
	 * preempt_disable() taken), so that both formats say the same.
	 */
	kshim_trace_buffer_context(fbuffer, true, 2);
	kshim_tracing_generic_entry_update(&raw_record.ent, trace_file->event_call->event.type,
					   fbuffer);
	fbuffer->trace_file = trace_file;
	fbuffer->buffer = NULL;
	fbuffer->event = NULL;
	fbuffer->regs = NULL;
	fbuffer->entry = raw_record.bytes;
	raw_record_len = len;
	return fbuffer->entry;
}

#if KSHIM_KERNEL_LT(5, 12, 0)
/* kernel/trace/trace.h's enum trace_flag_type, which cannot be included
 * here (it needs CONFIG_TRACING's fields of task_struct) */
#define TRACE_FLAG_IRQS_OFF	0x01

/*
 * kernel/trace/trace.c's, out of line before 5.12: the common fields of a
 * record, whose flags say what the irq flags say (the harness's records
 * are written with interrupts off, in no interrupt: what 5.12's inline
 * writes from the same context, kshim_trace_buffer_context()).
 */
void tracing_generic_entry_update(struct trace_entry *entry, unsigned short type,
				  unsigned long flags, int pc)
{
	entry->preempt_count = pc & 0xff;
	entry->pid = current ? current->pid : 0;
	entry->type = type;
	entry->flags = irqs_disabled_flags(flags) ? TRACE_FLAG_IRQS_OFF : 0;
}
#endif

void trace_event_buffer_commit(struct trace_event_buffer *fbuffer)
{
#ifdef KSHIM_SCHED_FULL
	shim_trace_raw(smp_processor_id(), sched_clock(), fbuffer->entry, raw_record_len);
#else
	shim_trace_raw(smp_processor_id(), 0, fbuffer->entry, raw_record_len);
#endif
}

bool __trace_trigger_soft_disabled(struct trace_event_file *file)
{
	UNREACHABLE_FTRACE(__trace_trigger_soft_disabled);
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/* what 5.10.262's trace_trigger_soft_disabled() inline calls for a file
 * with triggers or a pid filter, which no file here has */
enum event_trigger_type event_triggers_call(struct trace_event_file *file, void *rec,
					    struct ring_buffer_event *event)
{
	UNREACHABLE_FTRACE(event_triggers_call);
}

bool trace_event_ignore_this_pid(struct trace_event_file *trace_file)
{
	UNREACHABLE_FTRACE(trace_event_ignore_this_pid);
}
#endif

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

#if KSHIM_HAS_TRACEPOINT_SRCU
/* kernel/tracepoint.c: the SRCU-fast read side every tracepoint call enters */
DEFINE_SRCU_FAST(tracepoint_srcu);
#endif

const char *trace_print_flags_seq(struct trace_seq *p, const char *delim, unsigned long flags,
				  const struct trace_print_flags *flag_array
				  KSHIM_TRACE_PRINT_ARRAY_SIZE(flag_array_size))
{
	UNREACHABLE_FTRACE(trace_print_flags_seq);
}

const char *trace_print_bitmask_seq(KSHIM_TRACE_BITMASK_SEQ_TARGET, void *bitmask_ptr,
				    unsigned int bitmask_size)
{
	UNREACHABLE_FTRACE(trace_print_bitmask_seq);
}

const char *trace_print_array_seq(struct trace_seq *p, const void *buf, int count, size_t el_size)
{
	UNREACHABLE_FTRACE(trace_print_array_seq);
}

const char *trace_print_symbols_seq(struct trace_seq *p, unsigned long val,
				    const struct trace_print_flags *symbol_array
				    KSHIM_TRACE_PRINT_ARRAY_SIZE(symbol_array_size))
{
	UNREACHABLE_FTRACE(trace_print_symbols_seq);
}

/* --- trace.dat: the kernel's ftrace events --------------------------------- */

extern struct trace_event_call *__start__ftrace_events[];
extern struct trace_event_call *__stop__ftrace_events[];

/* The harness's probes that can hand their tracepoint to its event. */
static struct kshim_raw_event *raw_events;

void kshim_raw_event_add(struct kshim_raw_event *raw)
{
	struct kshim_raw_event *r;

	for (r = raw_events; r; r = r->next)
		if (r == raw)
			return;
	raw->next = raw_events;
	raw_events = raw;
}

/*
 * Event ids, as register_trace_event() gives them: ftrace's own entries
 * (kernel/trace/trace.h's enum trace_type) come first; the events follow in
 * the order of the section, so an image gives each event one id.
 */
#define RAW_EVENT_FIRST_ID	32

static struct trace_event_call *find_event(const char *name, int *id)
{
	struct trace_event_call **call;

	for (call = __start__ftrace_events; call < __stop__ftrace_events; call++) {
		const char *event = trace_event_name(*call);

		if (event && !strcmp(event, name)) {
			*id = RAW_EVENT_FIRST_ID + (int)(call - __start__ftrace_events);
			return *call;
		}
	}
	return NULL;
}

static struct kshim_raw_event *find_raw(const char *name)
{
	struct kshim_raw_event *r;

	for (r = raw_events; r; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

int kshim_trace_raw_enable(const char *name)
{
	struct kshim_raw_event *raw = find_raw(name);
	struct trace_event_call *call;
	struct trace_event_file *file;
	int id;

	call = find_event(name, &id);
	if (!raw || !call || !(call->flags & TRACE_EVENT_FL_TRACEPOINT) || !call->class->probe)
		return -ENOENT;
	if (raw->file)
		return 0;
	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	call->event.type = id;
	file->event_call = call;
	raw->file = file;
	return 0;
}

void kshim_trace_raw_disable_all(void)
{
	struct kshim_raw_event *r;

	for (r = raw_events; r; r = r->next) {
		kfree(r->file);
		r->file = NULL;
	}
}

struct format_buf {
	char *p;
	size_t room;
	int len;
};

static __printf(2, 3) void format_add(struct format_buf *b, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(b->p, b->room, fmt, args);
	va_end(args);
	if (n < 0)
		return;
	b->len += n;
	if ((size_t)n >= b->room) {
		b->p += b->room;
		b->room = 0;
	} else {
		b->p += n;
		b->room -= n;
	}
}

/* f_show()'s line of one field */
static void format_field(struct format_buf *b, const char *type, const char *name,
			 unsigned int offset, unsigned int size, int is_signed, int len)
{
	const char *array = strchr(type, '[');

	if (str_has_prefix(type, "__data_loc"))
		array = NULL;
	if (!array)
		format_add(b, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			   type, name, offset, size, !!is_signed);
	else if (len == KSHIM_TRACE_FIELD_LEN_IN_TYPE)
		format_add(b, "\tfield:%.*s %s%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			   (int)(array - type), type, name, array, offset, size, !!is_signed);
	else if (len)
		format_add(b, "\tfield:%.*s %s[%d];\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			   (int)(array - type), type, name, len, offset, size, !!is_signed);
	else
		format_add(b, "\tfield:%.*s %s[];\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			   (int)(array - type), type, name, offset, size, !!is_signed);
}

#define format_common_field(b, type, item)						\
	format_field(b, #type, "common_" #item, offsetof(struct trace_entry, item),	\
		     sizeof(((struct trace_entry *)0)->item), is_signed_type(type), 0)

/*
 * An event's format file, as tracefs prints events/SYSTEM/NAME/format:
 * the common fields (trace_define_common_fields()), then the event's
 * fields at the offsets event_define_fields() gives them (each aligned to
 * its type, from the end of struct trace_entry), then the print format.
 */
static int format_event(char *buf, unsigned long size, const char *name, int id,
			const struct trace_event_fields *fields, const char *print_fmt)
{
	struct format_buf b = { .p = buf, .room = size };
	const struct trace_event_fields *field;
	unsigned int offset = sizeof(struct trace_entry);

	format_add(&b, "name: %s\nID: %d\nformat:\n", name, id);
	format_common_field(&b, unsigned short, type);
	format_common_field(&b, unsigned char, flags);
	format_common_field(&b, unsigned char, preempt_count);
	format_common_field(&b, int, pid);
	format_add(&b, "\n");
	for (field = fields; field && field->type; field++) {
		if (field->type == TRACE_FUNCTION_TYPE)
			return -EINVAL;	/* fields defined by a function: no such event here */
		offset = ALIGN(offset, field->align);
		format_field(&b, field->type, field->name, offset, field->size, field->is_signed,
			     kshim_trace_field_len(field));
		offset += field->size;
	}
	format_add(&b, "\nprint fmt: %s\n", print_fmt);
	return b.len;
}

int kshim_trace_raw_format(const char *name, char *buf, unsigned long size, const char **system, int *id)
{
	struct trace_event_call *call = find_event(name, id);

	if (!call || !find_raw(name))
		return -ENOENT;
	*system = call->class->system;
	return format_event(buf, size, trace_event_name(call), *id, call->class->fields_array,
			    call->print_fmt);
}

/* --- trace_marker ------------------------------------------------------ */

/* glue/ftrace_entries.c: ftrace's print entry, from the tree's trace_entries.h */
extern struct trace_event_fields kshim_ftrace_print_fields[];
extern const char kshim_ftrace_print_fmt[];

/*
 * ftrace's own entries are numbered before the events (kernel/trace/
 * trace.h's enum trace_type); print, the one a trace.dat of the harness
 * holds, takes the first number.
 */
#define FTRACE_PRINT_ID		1
/*
 * Where the print entry says it was written from: tracing_mark_write(),
 * which the harness stands in for and which has no address in its image;
 * a trace.dat's kallsyms names this one.
 */
#define FTRACE_MARK_WRITE_IP	0xffff800008000000UL

int kshim_trace_marker_format(char *buf, unsigned long size, int *id, unsigned long *ip)
{
	*id = FTRACE_PRINT_ID;
	*ip = FTRACE_MARK_WRITE_IP;
	return format_event(buf, size, "print", FTRACE_PRINT_ID, kshim_ftrace_print_fields,
			    kshim_ftrace_print_fmt);
}

/*
 * What tracing_mark_write() (kernel/trace/trace.c) records for a write of
 * text by the task pid: the print entry, its ip, and the text with a
 * newline added if it has none, NUL-terminated; written outside any
 * lock or interrupt (flags and preempt count 0). Returns the record's
 * length, or 0 when it does not fit in size.
 */
unsigned long kshim_trace_marker_record(void *out, unsigned long size, int pid, const char *text,
					unsigned long len)
{
	struct trace_entry *ent = out;
	unsigned int ip_at, buf_at, offset = sizeof(struct trace_entry);
	const struct trace_event_fields *field;
	unsigned long ip = FTRACE_MARK_WRITE_IP;
	unsigned long need;
	char *p;

	ip_at = buf_at = 0;
	for (field = kshim_ftrace_print_fields; field->type; field++) {
		offset = ALIGN(offset, field->align);
		if (!strcmp(field->name, "ip"))
			ip_at = offset;
		else if (!strcmp(field->name, "buf"))
			buf_at = offset;
		offset += field->size;
	}
	if (WARN_ONCE(!ip_at || !buf_at, "ftrace's print entry has no ip or buf field"))
		return 0;
	need = buf_at + len + 2;
	if (need > size)
		return 0;
	memset(out, 0, buf_at);
	ent->type = FTRACE_PRINT_ID;
	ent->pid = pid;
	memcpy((char *)out + ip_at, &ip, sizeof(ip));
	p = (char *)out + buf_at;
	memcpy(p, text, len);
	if (!len || p[len - 1] != '\n')
		p[len++] = '\n';
	p[len] = '\0';
	return buf_at + len + 1;
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

/*
 * The event a CPU's pressure is traced with: hw_pressure_update from 6.9
 * (thermal pressure renamed), thermal_pressure_update before (in 6.1, not
 * in 5.10.262; bracketed); 5.10 traces none. The macros take the event's
 * name expanded (a second level, so that ## sees the name, not the macro).
 */
#if KSHIM_KERNEL_GE(6, 9, 0)
#define PRESSURE_EVENT	hw_pressure_update
#elif KSHIM_KERNEL_GE(6, 1, 0)
#define PRESSURE_EVENT	thermal_pressure_update
#endif

#ifdef PRESSURE_EVENT
#define RAW_EVENT_OF(ev)		KSHIM_RAW_EVENT(ev)
#define RAW_OF(ev)			__PASTE(raw_, ev)
#define RECORD_RAW_OF(ev, ...)		kshim_record_raw(ev, __VA_ARGS__)
#define REGISTER_TRACE_OF(ev, probe)	__PASTE(register_trace_, ev)(probe, NULL)
#define NAME_OF(ev)			__stringify(ev)

RAW_EVENT_OF(PRESSURE_EVENT);

static void probe_pressure_update(void *data, int cpu, unsigned long pressure)
{
	const long long args[] = { cpu, pressure };

	kshim_trace_record(NAME_OF(PRESSURE_EVENT), ARRAY_SIZE(args), args, NULL, NULL, NULL);
	RECORD_RAW_OF(PRESSURE_EVENT, probe_pressure_update, cpu, pressure);
}

int kshim_trace_attach(void)
{
	kshim_raw_event_add(&RAW_OF(PRESSURE_EVENT));
	return REGISTER_TRACE_OF(PRESSURE_EVENT, probe_pressure_update);
}
#else
int kshim_trace_attach(void)
{
	return 0;
}
#endif

int trace_output_call(struct trace_iterator *iter, char *name, char *fmt, ...)
{
	shim_fatal("trace_output_call(): ftrace output is not modelled");
}
