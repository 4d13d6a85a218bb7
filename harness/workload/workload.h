// SPDX-License-Identifier: GPL-2.0
//
// A workload: threads and the sequence of events each one executes, in
// rt-app's model (global settings, tasks with instances, loops, phases and
// events). rt-app JSON files and the built-in generators both produce it;
// the simulator executes it on the board while the kernel schedules.
//
// Times are nanoseconds. A `run` amount is rt-app's: time on the
// calibration CPU at its highest OPP; the simulator turns it into work
// (capacity-nanoseconds) with that CPU's capacity.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace sh::workload {

// A workload that cannot run: a bad file, an unknown parameter, an event or
// policy the simulator does not model. The message names the file/line or
// task; the command exits with status 2.
class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// The limits a workload is checked against where it is read, each stated
// in the message that refuses it:
// - one event's time, a period, a delay and a run's duration: 10^15 ns
//   (about 11.6 days), so that sums of times stay far from int64 ns;
// - threads: the shim's pid space (KSHIM_MAX_TASKS, 4096 in
//   kernel-shim/glue/task.c) less the kernel's own threads;
// - CPU numbers (affinities, the calibration and fork CPUs): below 4096,
//   above NR_CPUS of any flavour; the board's own count is checked later.
inline constexpr std::int64_t max_time_ns = 1'000'000'000'000'000;
inline constexpr std::int64_t max_threads = 4000;
inline constexpr unsigned max_cpu_number = 4095;

// `value` units of `unit_ns` as nanoseconds, or Error naming `what` when
// it is negative or more than max_time_ns.
std::int64_t checked_ns(std::int64_t value, std::int64_t unit_ns, const std::string &what);

enum class EventKind {
	run,		// work: amount ns at the calibration CPU's highest OPP
	runtime,	// busy for amount ns of wall time, whatever the speed
	sleep,		// amount ns
	timer,		// wake at the timer's next period (amount ns); resource = timer
	suspend,	// block until a resume of resource
	resume,		// wake every thread suspended on resource
	lock,		// mutex resource
	unlock,
	wait,		// condition resource, releasing mutex while blocked
	signal,		// wake the first waiter of condition resource
	broadcast,	// wake every waiter (rt-app's "broad")
	barrier,	// every user of resource meets there
	yield,		// sched_yield()
	send,		// hackbench: one message to the thread named resource
	receive,	// hackbench: block until a message is there, take it
};

// What rt-app writes to trace_marker for an event it runs (rtapp_event:
// id=ID type=TYPE desc=DESC): its index in the phase, its type (rt-app's
// resource_t) and its name; id -1 for the events rt-app does not have
// (the parts of an event the reader expands).
struct RtappEvent {
	int id = -1;
	int type = 0;
	std::string desc;
};

struct Event {
	EventKind kind = EventKind::run;
	std::int64_t amount = 0;
	std::string resource;
	std::string mutex;		// wait: the mutex held around it
	bool absolute = false;		// timer: "mode": "absolute"
	RtappEvent rtapp{};
};

// rt-app's trace markers (global "ftrace": rt-app_utils.h's FTRACE_*
// categories), which it writes to trace_marker.
enum RtappTrace : unsigned {
	rtapp_trace_main = 0x01,
	rtapp_trace_task = 0x02,
	rtapp_trace_loop = 0x04,
	rtapp_trace_event = 0x08,
	rtapp_trace_stats = 0x10,
};

struct Phase {
	std::string name;
	long loop = 1;
	std::vector<Event> events;
};

struct Task {
	std::string name;
	int instances = 1;
	long loop = -1;			// -1: until the workload's duration
	std::int64_t delay_ns = 0;
	std::vector<unsigned> cpus;	// affinity; empty: every CPU
	int nice = 0;
	int util_min = -1, util_max = -1;	// uclamp; -1: not set
	std::vector<Phase> phases;
	// More sched_setattr() flags (a sched-harness extension): for a
	// patch's new flag, e.g. sched/patches/turbosched.patch's 0x80.
	unsigned sched_flags = 0;
};

struct Workload {
	std::string name;		// "periodic:count=24,period=16ms,duty=10%" or the file
	std::vector<Task> tasks;
	std::optional<std::int64_t> duration_ns;	// rt-app global duration
	unsigned calibration_cpu = 0;
	// rt-app's integer calibration (ns per loop) has no meaning here; the
	// file's calibration CPU is what `run` amounts are measured on.
	// The process that forks the threads, as a task of its own ("rt-app":
	// rt-app's main thread runs on the fork CPU while it creates them, so
	// the kernel's fork balancing sees that CPU busy); empty for the
	// built-in generators, whose threads are forked from the fork CPU
	// with no task of the launcher's running there.
	std::string launcher;
	// rt-app's global "ftrace" (RtappTrace bits) and "cumulative_slack"
	unsigned rtapp_trace = 0;
	bool cumulative_slack = false;
};

// The built-in generators, with their parameters, for `sched-harness
// workloads` and `--workload NAME:key=value,...`.
struct Parameter {
	std::string name;
	std::string default_value;
	std::string help;
};
struct Generator {
	std::string name;
	std::string summary;
	std::vector<Parameter> parameters;
};
const std::vector<Generator> &generators();

// "periodic", "periodic:count=24,period=16ms,duty=10%": a built-in with
// parameters; anything naming an existing file (or ending in .json): an
// rt-app file. Throws Error.
Workload make_workload(const std::string &spec);

// rt-app's JSON dialect, read with a SAX parser: comments, trailing commas
// and repeated keys (kept in order, as rt-app reads events).
Workload parse_rtapp(const std::string &text, const std::string &file_name);
Workload load_rtapp(const std::string &path);

// "16ms", "500us", "2s", "1000000ns", plain numbers are `plain_unit`.
std::int64_t parse_duration(const std::string &text, const std::string &what);

// "0-3,6" -> {0, 1, 2, 3, 6} (CPU numbers below 4096); Error naming `what`.
std::set<unsigned> parse_cpu_list(const std::string &text, const std::string &what);

// All of `text` as a number: false for anything else, a value T cannot hold
// included (std::from_chars then reads every digit and leaves the value as
// it was, so checking where it stopped is not enough).
template <typename T>
bool whole_number(std::string_view text, T &value)
{
	const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
	return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

// The first control character in a name, if any: names are printed in
// report, trace and KTAP lines, which a newline or an escape sequence in
// one would forge or garble.
std::optional<unsigned char> control_character(std::string_view name);

} // namespace sh::workload
