// SPDX-License-Identifier: GPL-2.0
//
// The C++ side of the glue's services (kshim/api.h): memory, the kernel
// log, WARN records and faults.
#include "kernel-shim/kernel.h"

#include "dts/platform.h"
#include "support/tools.h"

#include <kshim/api.h>

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

// The kernel function containing `address`: the dynamic symbol table when
// it has it, else the debug information through addr2line (static kernel
// functions are in neither .dynsym nor reach of dladdr()). Only called on
// a WARN, so spawning a tool is fine.
std::string symbol_of(void *address)
{
	Dl_info info{};
	link_map *object = nullptr;
	if (!address || !dladdr1(address, &info, reinterpret_cast<void **>(&object), RTLD_DL_LINKMAP) || !object)
		return fmt::format("{}", address);
	if (info.dli_sname)
		return info.dli_sname;
	// the address as the file's symbols have it: less the load bias, which
	// is zero for an executable linked at a fixed address (not dli_fbase,
	// where such a one's first segment is mapped)
	const auto offset = reinterpret_cast<std::uintptr_t>(address) - object->l_addr - 1;
	try {
		const std::string argv[] = {"addr2line", "-f", "-e", info.dli_fname,
					    fmt::format("{:#x}", offset)};
		auto r = sh::support::run_tool(argv);
		auto name = r.out.substr(0, r.out.find('\n'));
		if (r.ok() && !name.empty() && name != "??")
			return name;
	} catch (const sh::support::ToolError &) {
	}
	return fmt::format("{}", address);
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

// Not async-signal-safe (it formats and may run addr2line), which is
// acceptable here: the process is single-threaded and about to exit.
void oops_handler(int sig, siginfo_t *, void *context)
{
	const char *what = sig == SIGFPE ? "divide error"
			   : sig == SIGSEGV ? "unable to handle kernel paging request"
			   : sig == SIGBUS ? "bus error" : "invalid opcode";
	void *pc = faulting_instruction(context);
	std::string where = pc ? symbol_of(static_cast<char *>(pc) + 1) : "";
	std::string line = fmt::format("sched-harness: kernel fault: Oops: {} ({}){}{}\n", what, strsignal(sig),
				       where.empty() ? "" : " in ", where);
	if (!log_lines().empty())
		line += fmt::format("sched-harness: last kernel message: {}\n", log_lines().back().text);
	[[maybe_unused]] auto written = write(STDERR_FILENO, line.data(), line.size());
	sh::support::remove_temporary_dirs();
	_exit(3);
}

// The watchdog's state: beats since the start, and those at the last check.
std::atomic<std::uint64_t> beats{0};
std::atomic<std::int64_t> beat_now_ns{0};
std::uint64_t beats_at_check = 0;
unsigned watchdog_seconds = 0;

// Like the oops handler: the process is about to exit, so formatting and
// running addr2line from here is acceptable.
void watchdog_handler(int, siginfo_t *, void *context)
{
	const auto seen = beats.load(std::memory_order_relaxed);
	if (seen != beats_at_check) {
		beats_at_check = seen;
		return;
	}
	void *pc = faulting_instruction(context);
	// the interrupted function, then its callers (frames past the
	// signal frame, found by the interrupted address)
	void *frames[32];
	const int n = backtrace(frames, 32);
	int found = -1;
	for (int i = 0; i < n; i++)
		if (frames[i] == pc)
			found = i;
	std::string where = pc ? symbol_of(static_cast<char *>(pc) + 1) : std::string("?");
	// a spin in instrumented code is most often caught counting its
	// basic blocks (kshim/cost.h): the spinning function is the caller
	if (where == "__sanitizer_cov_trace_pc" && found >= 0 && found + 1 < n)
		where = symbol_of(static_cast<char *>(frames[++found]));
	std::string callers;
	for (int i = found + 1; found >= 0 && i < n && i <= found + 3; i++)
		callers += fmt::format("{}{}", callers.empty() ? " (called from " : " < ",
				       symbol_of(static_cast<char *>(frames[i])));
	if (!callers.empty())
		callers += ")";
	const std::string line = fmt::format(
		"sched-harness: kernel fault: kernel hang in {}{}: no return to the simulator for {} s "
		"(simulated time {:.6f} s, after {} events)\n",
		where, callers, watchdog_seconds,
		static_cast<double>(beat_now_ns.load(std::memory_order_relaxed)) / 1e9, seen);
	[[maybe_unused]] auto written = write(STDERR_FILENO, line.data(), line.size());
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
	struct sigaction sa {};
	sa.sa_sigaction = watchdog_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
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
	struct sigaction sa {};
	sa.sa_sigaction = oops_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
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
// per-CPU areas rely on it for ____cacheline_aligned members. The block is
// malloc()'s, aligned up inside it, with malloc's pointer kept just below
// the kernel's: glibc's aligned_alloc() cost ten times a malloc(), and a
// board's device tree alone is thousands of allocations at boot.
namespace {
constexpr unsigned long kernel_align = 64;
}

void *shim_alloc(unsigned long size, int zero)
{
	const unsigned long rounded = (size + kernel_align - 1) / kernel_align * kernel_align;
	const unsigned long need = (rounded ? rounded : kernel_align) + kernel_align;
	if (need < size)
		throw std::bad_alloc();
	// calloc(): fresh pages (the per-CPU areas) come zeroed without a touch
	void *block = zero ? std::calloc(1, need) : std::malloc(need);
	if (!block)
		throw std::bad_alloc();
	const auto address = (reinterpret_cast<std::uintptr_t>(block) + kernel_align) & ~(kernel_align - 1);
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
