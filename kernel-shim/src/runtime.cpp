// SPDX-License-Identifier: GPL-2.0
//
// The C++ side of the glue's services (kshim/api.h): memory, the kernel
// log, WARN records and faults.
#include "kernel-shim/kernel.h"

#include "dts/platform.h"
#include "support/signal_safe.h"
#include "support/tools.h"

#include <kshim/api.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <csignal>
#include <execinfo.h>
#include <sys/time.h>
#include <ucontext.h>
#include <dlfcn.h>
#include <link.h>
#include <climits>
#include <unistd.h>
#include <fmt/format.h>
#include <new>

namespace sh::kshim {

namespace {

std::vector<LogLine> &log_lines()
{
	static std::vector<LogLine> lines;
	return lines;
}

std::vector<TraceEvent> &events()
{
	static std::vector<TraceEvent> list;
	return list;
}

// The harness's hooks: namespace-scope objects rather than function-local
// statics, so that the tracepoint and timer paths that call them at every
// hit pay no initialisation guard (nothing sets them before main()).
TraceSink trace_sink_hook;
TimerSource timer_source_hook;
SleepExpiry sleep_expiry_hook;
SensorSource sensor_source_hook;
ClockSink clock_sink_hook;
RecordSink record_sink_hook;

TraceSink &trace_sink()
{
	return trace_sink_hook;
}

std::vector<KernelWarning> &warnings()
{
	static std::vector<KernelWarning> list;
	return list;
}

// What the fault handlers need and cannot look up from inside a handler
// (signal-safety(7): no heap, no locks, so no dladdr() and no fmt): the
// loaded objects' files and address ranges and addr2line's path, noted
// beforehand in fixed storage, and the last kernel message, published as
// it is logged.
struct LoadedObject {
	std::uintptr_t start, end, bias;
	const char *file;
};
constexpr std::size_t max_objects = 64;
LoadedObject objects[max_objects];
std::size_t object_count = 0;
char object_files[16384];
char addr2line_path[PATH_MAX];

// Two buffers, so that a handler reads a whole message even when the
// signal arrives while the next one is being copied.
struct LastMessage {
	char text[2][512];
	std::atomic<int> current{-1};
} last_message;

void publish_last_message(std::string_view text)
{
	const int next = last_message.current.load(std::memory_order_relaxed) == 0 ? 1 : 0;
	const auto n = std::min(text.size(), sizeof last_message.text[0] - 1);
	std::memcpy(last_message.text[next], text.data(), n);
	last_message.text[next][n] = '\0';
	last_message.current.store(next, std::memory_order_release);
}

const char *last_kernel_message() noexcept
{
	const int current = last_message.current.load(std::memory_order_acquire);
	return current < 0 ? nullptr : last_message.text[current];
}

void note_loaded_objects()
{
	object_count = 0;
	std::size_t used = 0;
	dl_iterate_phdr(
		[](dl_phdr_info *info, std::size_t, void *data) {
			auto &used = *static_cast<std::size_t *>(data);
			if (object_count == max_objects)
				return 1;
			char self[PATH_MAX];
			const char *file = info->dlpi_name;
			if (!file || !*file) {	// the program itself
				const auto n = readlink("/proc/self/exe", self, sizeof self - 1);
				if (n <= 0)
					return 0;
				self[n] = '\0';
				file = self;
			}
			const auto length = std::strlen(file) + 1;
			if (used + length > sizeof object_files)
				return 1;
			std::uintptr_t low = UINTPTR_MAX, high = 0;
			for (int i = 0; i < info->dlpi_phnum; i++) {
				const auto &segment = info->dlpi_phdr[i];
				if (segment.p_type != PT_LOAD)
					continue;
				low = std::min<std::uintptr_t>(low, info->dlpi_addr + segment.p_vaddr);
				high = std::max<std::uintptr_t>(high, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
			}
			std::memcpy(object_files + used, file, length);
			objects[object_count] = {low, high, info->dlpi_addr, object_files + used};
			// after the entry: a handler reads no half-written one
			std::atomic_signal_fence(std::memory_order_release);
			object_count++;
			used += length;
			return 0;
		},
		&used);
	sh::support::find_in_path("addr2line", addr2line_path, sizeof addr2line_path);
}

constexpr std::size_t name_size = 160;

// Names the functions holding `addresses` (each the byte after the
// instruction in question: a return address, or a faulting pc + 1): an
// exported one by the dynamic symbol table, as dladdr() would, any other
// with addr2line, one run per object, as the kernel's decode_stacktrace.sh
// does; an address nothing names keeps its number. Async-signal-safe.
void name_addresses(const std::uintptr_t *addresses, std::size_t count, char (*names)[name_size]) noexcept
{
	constexpr std::size_t max_batch = 8;
	bool named[max_batch] = {};
	count = std::min(count, max_batch);
	for (std::size_t i = 0; i < count; i++) {
		sh::support::SignalSafeText number;
		number.hex(addresses[i]);
		const auto text = number.view();
		std::memcpy(names[i], text.data(), text.size());
		names[i][text.size()] = '\0';
	}
	auto object_of = [](std::uintptr_t address) -> const LoadedObject * {
		for (std::size_t o = 0; o < object_count; o++)
			if (address - 1 >= objects[o].start && address - 1 < objects[o].end)
				return &objects[o];
		return nullptr;
	};
	// an exported function by its dynamic symbol, as dladdr() names it
	for (std::size_t i = 0; i < count; i++) {
		const LoadedObject *object = addresses[i] ? object_of(addresses[i]) : nullptr;
		char exported[name_size];
		if (object && sh::support::dynamic_function_at_signal_safe(object->file, addresses[i] - 1 - object->bias,
									     exported, name_size)) {
			std::memcpy(names[i], exported, name_size);
			named[i] = true;
		}
	}
	// the others by the debug information: static functions, and what is
	// inlined into them
	for (std::size_t i = 0; i < count && addr2line_path[0]; i++) {
		const LoadedObject *object = object_of(addresses[i]);
		if (named[i] || !addresses[i] || !object)
			continue;
		// this object's addresses, as offsets in its file
		char offsets[max_batch][24];
		std::size_t which[max_batch], batch = 0;
		const char *argv[4 + max_batch + 1] = {addr2line_path, "-f", "-e", object->file};
		for (std::size_t j = i; j < count; j++) {
			if (named[j] || !addresses[j] || object_of(addresses[j]) != object)
				continue;
			sh::support::SignalSafeText offset;
			offset.hex(addresses[j] - 1 - object->bias);
			std::memcpy(offsets[batch], offset.view().data(), offset.view().size());
			offsets[batch][offset.view().size()] = '\0';
			argv[4 + batch] = offsets[batch];
			which[batch++] = j;
			named[j] = true;
		}
		argv[4 + batch] = nullptr;
		// two lines per address: the function, then file:line
		char out[4096];
		if (!sh::support::run_and_read_signal_safe(argv, out, sizeof out, 10'000))
			continue;
		const char *line = out;
		for (std::size_t b = 0; b < batch && *line; b++) {
			const char *end = std::strchr(line, '\n');
			const auto length = static_cast<std::size_t>(end ? end - line : std::strlen(line));
			if (length && length < name_size && std::strncmp(line, "??", length) != 0) {
				std::memcpy(names[which[b]], line, length);
				names[which[b]][length] = '\0';
			}
			for (int skip = 0; skip < 2 && end; skip++) {
				line = end + 1;
				end = std::strchr(line, '\n');
			}
			if (!end && b + 1 < batch)
				break;
		}
	}
}

// The kernel function containing `address` (the byte after the
// instruction in question), for a WARN: the same lookup as a fault's.
std::string symbol_of(void *address)
{
	note_loaded_objects();
	const auto where = reinterpret_cast<std::uintptr_t>(address);
	char name[1][name_size];
	name_addresses(&where, 1, name);
	return name[0];
}

// An oops: kernel code divided by zero or dereferenced a bad pointer. The
// process cannot go on (DESIGN: one simulation per process); say where, the
// way an oops does, and exit with the kernel-fault status.
void *faulting_instruction(void *context)
{
	auto *uc = static_cast<ucontext_t *>(context);
#if defined(__x86_64__)
	return reinterpret_cast<void *>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
	return reinterpret_cast<void *>(uc->uc_mcontext.pc);
#else
	(void)uc;
	return nullptr;
#endif
}

std::uintptr_t interrupted_stack_pointer(void *context)
{
	auto *uc = static_cast<ucontext_t *>(context);
#if defined(__x86_64__)
	return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
	return uc->uc_mcontext.sp;
#else
	(void)uc;
	return 0;
#endif
}

// Where the handlers run: a fault that overflowed the stack leaves none.
alignas(64) char handler_stack[256 * 1024];

const char *signal_name(int sig)
{
	switch (sig) {
	case SIGFPE: return "Floating point exception";
	case SIGSEGV: return "Segmentation fault";
	case SIGBUS: return "Bus error";
	case SIGILL: return "Illegal instruction";
	default: return "signal";
	}
}

void oops_handler(int sig, siginfo_t *info, void *context)
{
	// a fault next to the stack pointer is the stack's end (the main
	// thread's limit, an idle stack's guard): the kernel's "stack guard
	// page was hit"
	const auto sp = interrupted_stack_pointer(context);
	const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
	constexpr std::uintptr_t near = 64 * 1024;
	const bool overflow = sig == SIGSEGV && sp && address + near > sp && address < sp + near;
	const char *what = overflow ? "kernel stack overflow"
			   : sig == SIGFPE ? "divide error"
			   : sig == SIGSEGV ? "unable to handle kernel paging request"
			   : sig == SIGBUS ? "bus error" : "invalid opcode";
	const auto pc = reinterpret_cast<std::uintptr_t>(faulting_instruction(context));
	char where[1][name_size];
	if (pc) {
		const std::uintptr_t after = pc + 1;
		name_addresses(&after, 1, where);
	}
	sh::support::SignalSafeText line;
	line << "sched-harness: kernel fault: Oops: " << what << " (" << signal_name(sig) << ")";
	if (pc)
		line << " in " << where[0];
	line << "\n";
	if (const char *message = last_kernel_message())
		line << "sched-harness: last kernel message: " << message << "\n";
	line.write_to(STDERR_FILENO);
	sh::support::remove_temporary_dirs();
	_exit(3);
}

// The watchdog's state: beats since the start, and those at the last check.
std::atomic<std::uint64_t> beats{0};
std::atomic<std::int64_t> beat_now_ns{0};
std::uint64_t beats_at_check = 0;
unsigned watchdog_seconds = 0;

void watchdog_handler(int, siginfo_t *, void *context)
{
	const auto seen = beats.load(std::memory_order_relaxed);
	if (seen != beats_at_check) {
		beats_at_check = seen;
		return;
	}
	const auto pc = reinterpret_cast<std::uintptr_t>(faulting_instruction(context));
	// the interrupted function, then its callers (frames past the
	// signal frame, found by the interrupted address); backtrace() was
	// warmed up when the watchdog was armed, so it loads nothing here
	void *frames[32];
	const int n = backtrace(frames, 32);
	int found = -1;
	for (int i = 0; i < n; i++)
		if (reinterpret_cast<std::uintptr_t>(frames[i]) == pc)
			found = i;
	// the function and up to four callers, named in one go
	std::uintptr_t addresses[5] = {pc ? pc + 1 : 0};
	std::size_t count = 1;
	for (int i = found + 1; found >= 0 && i < n && count < 5; i++)
		addresses[count++] = reinterpret_cast<std::uintptr_t>(frames[i]);
	char names[5][name_size];
	name_addresses(addresses, count, names);
	// a spin in instrumented code is most often caught counting its
	// basic blocks (kshim/cost.h): the spinning function is the caller
	std::size_t function = 0;
	if (!std::strcmp(names[0], "__sanitizer_cov_trace_pc") && count > 1)
		function = 1;
	sh::support::SignalSafeText line;
	line << "sched-harness: kernel fault: kernel hang in " << (pc ? names[function] : "?");
	for (std::size_t i = function + 1; i < count && i <= function + 3; i++)
		line << (i == function + 1 ? " (called from " : " < ") << names[i];
	if (count > function + 1)
		line << ")";
	line << ": no return to the simulator for ";
	line.decimal(watchdog_seconds) << " s (simulated time ";
	line.seconds(beat_now_ns.load(std::memory_order_relaxed), 6) << " s, after ";
	line.decimal(seen) << " events)\n";
	line.write_to(STDERR_FILENO);
	sh::support::remove_temporary_dirs();
	_exit(3);
}

} // namespace

void arm_watchdog(unsigned seconds)
{
	watchdog_seconds = seconds;
	if (!seconds)
		return;
	beats_at_check = beats.load(std::memory_order_relaxed);
	// backtrace() loads libgcc_s at its first call: make that call here,
	// not in the handler
	void *warm_up[1];
	backtrace(warm_up, 1);
	if (!object_count)	// install_oops_handlers() noted them, in the command
		note_loaded_objects();
	struct sigaction sa {};
	sa.sa_sigaction = watchdog_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, nullptr);
	// wall time: a loop in kernel code burns CPU, a deadlock-free wait
	// does not, and either never returns
	itimerval every{{static_cast<time_t>(seconds), 0}, {static_cast<time_t>(seconds), 0}};
	setitimer(ITIMER_REAL, &every, nullptr);
}

void disarm_watchdog()
{
	itimerval off{};
	setitimer(ITIMER_REAL, &off, nullptr);
	watchdog_seconds = 0;
}

void watchdog_beat(std::int64_t now_ns) noexcept
{
	beats.fetch_add(1, std::memory_order_relaxed);
	beat_now_ns.store(now_ns, std::memory_order_relaxed);
}

void install_oops_handlers()
{
	note_loaded_objects();
	stack_t alternate{};
	alternate.ss_sp = handler_stack;
	alternate.ss_size = sizeof handler_stack;
	sigaltstack(&alternate, nullptr);
	struct sigaction sa {};
	sa.sa_sigaction = oops_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	for (int sig : {SIGFPE, SIGSEGV, SIGBUS, SIGILL})
		sigaction(sig, &sa, nullptr);
}

const std::vector<LogLine> &kernel_log()
{
	return log_lines();
}

const std::vector<KernelWarning> &kernel_warnings()
{
	return warnings();
}

const std::vector<TraceEvent> &trace_events()
{
	return events();
}

void set_trace_sink(TraceSink sink)
{
	trace_sink() = std::move(sink);
}

void set_record_sink(RecordSink sink)
{
	record_sink_hook = std::move(sink);
}

std::optional<EventFormat> record_event(const std::string &event)
{
	const char *system = nullptr;
	int id = 0;
	const int need = kshim_trace_raw_format(event.c_str(), nullptr, 0, &system, &id);
	if (need < 0 || kshim_trace_raw_enable(event.c_str()) != 0)
		return std::nullopt;
	std::string format(static_cast<std::size_t>(need) + 1, '\0');
	kshim_trace_raw_format(event.c_str(), format.data(), format.size(), &system, &id);
	format.resize(static_cast<std::size_t>(need));
	return EventFormat{system, event, id, std::move(format), {}};
}

void stop_recording()
{
	kshim_trace_raw_disable_all();
}

EventFormat marker_format()
{
	int id = 0;
	unsigned long ip = 0;
	const int need = kshim_trace_marker_format(nullptr, 0, &id, &ip);
	if (need < 0)
		throw KernelFault("ftrace's print entry has fields this harness cannot lay out");
	std::string format(static_cast<std::size_t>(need) + 1, '\0');
	kshim_trace_marker_format(format.data(), format.size(), &id, &ip);
	format.resize(static_cast<std::size_t>(need));
	return {"ftrace", "print", id, std::move(format), fmt::format("{:016x} T tracing_mark_write\n", ip)};
}

std::vector<std::byte> marker_record(int pid, std::string_view text)
{
	std::vector<std::byte> record(64 + text.size());
	record.resize(kshim_trace_marker_record(record.data(), record.size(), pid, text.data(), text.size()));
	return record;
}

TimerSource &timer_source()
{
	return timer_source_hook;
}

void set_timer_source(TimerSource source)
{
	timer_source() = std::move(source);
}

SleepExpiry &sleep_expiry()
{
	return sleep_expiry_hook;
}

void set_sleep_expiry(SleepExpiry expiry)
{
	sleep_expiry() = std::move(expiry);
}

SensorSource &sensor_source()
{
	return sensor_source_hook;
}

void set_sensor_source(SensorSource source)
{
	sensor_source() = std::move(source);
}

void set_clock_sink(ClockSink sink)
{
	clock_sink_hook = std::move(sink);
}

} // namespace sh::kshim

using namespace sh::kshim;

extern "C" {

// Kernel memory is cache-line aligned, like slab objects of those sizes;
// per-CPU areas rely on it for ____cacheline_aligned members. Smaller
// objects (a device tree's property names and most of its values) are
// aligned to their size's power of two, from 16, as kmalloc-16's and
// kmalloc-32's are: at 64 each took 144 bytes, and odroid-xu3's tree
// alone was a third of its boot's page faults. The block is malloc()'s
// (16-byte aligned), aligned up inside it, with malloc's pointer kept just
// below the kernel's: glibc's aligned_alloc() cost ten times a malloc(),
// and a board's device tree alone is thousands of allocations at boot.
namespace {
constexpr unsigned long kernel_align = 64;
constexpr unsigned long small_align = 16;
static_assert(alignof(std::max_align_t) >= small_align, "malloc()'s blocks are aligned as small objects");
}

void *shim_alloc(unsigned long size, int zero)
{
	const unsigned long align = std::max(std::bit_ceil(std::min(size, kernel_align)), small_align);
	const unsigned long rounded = (size + align - 1) / align * align;
	const unsigned long need = (rounded ? rounded : align) + align;
	if (need < size)
		throw std::bad_alloc();
	// calloc(): fresh pages (the per-CPU areas) come zeroed without a touch
	void *block = zero ? std::calloc(1, need) : std::malloc(need);
	if (!block)
		throw std::bad_alloc();
	const auto address = (reinterpret_cast<std::uintptr_t>(block) + align) & ~(align - 1);
	auto *ptr = reinterpret_cast<void *>(address);
	std::memcpy(static_cast<char *>(ptr) - sizeof(void *), &block, sizeof(void *));
	return ptr;
}

void shim_free(const void *ptr)
{
	if (!ptr)
		return;
	void *block = nullptr;
	std::memcpy(&block, static_cast<const char *>(ptr) - sizeof(void *), sizeof(void *));
	std::free(block);
}

void shim_log(int level, const char *text)
{
	// a line stays open until a message ends it with a newline: pr_cont()
	// fragments join it (printk's LOG_CONT), anything else starts a new one
	static bool line_open = false;
	std::string line(text);
	const bool ended = !line.empty() && line.back() == '\n';
	while (!line.empty() && line.back() == '\n')
		line.pop_back();
	auto &log = log_lines();
	if (level == KSHIM_LOG_CONT && line_open && !log.empty())
		log.back().text += line;
	else
		log.push_back({level == KSHIM_LOG_CONT ? -1 : level, std::move(line)});
	publish_last_message(log.back().text);
	line_open = !ended;
}

void shim_warn(const char *file, int line, void *caller, const char *text)
{
	std::string message(text ? text : "");
	while (!message.empty() && message.back() == '\n')
		message.pop_back();
	warnings().push_back({file ? file : "?", line, symbol_of(caller), std::move(message)});
	log_lines().push_back({4, fmt::format("WARNING: at {}:{} {}", file ? file : "?", line,
					      warnings().back().text)});
	publish_last_message(log_lines().back().text);
}

void shim_trace(const kshim_trace_event *event)
{
	if (const auto &sink = trace_sink()) {
		sink(*event);
		return;
	}
	events().push_back({event->name, event->cpu, event->time_ns,
			    std::vector<long long>(event->args, event->args + event->nr_args)});
}

void shim_trace_raw(int cpu, unsigned long long time_ns, const void *record, unsigned long len)
{
	if (record_sink_hook)
		record_sink_hook(cpu, time_ns, std::span(static_cast<const std::byte *>(record), len));
}

void shim_clock_changed(const struct kshim_cpuset *cpus, unsigned long khz, unsigned long long ready_ns)
{
	if (clock_sink_hook)
		clock_sink_hook(*cpus, khz, ready_ns);
}

int shim_sensor_temp(int sensor)
{
	const auto &source = sensor_source();
	return source ? source(sensor) : room_temperature_mc;
}

unsigned long long shim_cpu_next_timer(int cpu)
{
	const auto &source = timer_source();
	return source ? source(cpu) : 0;
}

void shim_expire_user_sleeps(int cpu)
{
	if (const auto &expiry = sleep_expiry())
		expiry(cpu);
}

void shim_fatal(const char *what)
{
	// The last lines of the kernel log say where (BUG() prints
	// "BUG: failure at file:line/function()!" before panicking).
	std::string context;
	const auto &lines = log_lines();
	if (!lines.empty())
		context = fmt::format(" (last kernel message: {})", lines.back().text);
	throw KernelFault(fmt::format("kernel fault: {}{}", what, context));
}

} // extern "C"
