// SPDX-License-Identifier: GPL-2.0
//
// A trace file in ftrace's text format (what `cat /sys/kernel/tracing/trace`
// prints), with each event's fields laid out as its TP_printk() does, so
// that tools parsing ftrace's text output can read it (not checked here
// against any particular one). The PELT tracepoints have no format in the
// kernel; their lines follow LISA's sched_tp module.
#pragma once

#include "harness/sim/simulator.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::report {

// An event the writer lays out, and its subsystem as ftrace names it (the
// TRACE_SYSTEM of its header: /sys/kernel/tracing/events/SUBSYSTEM/NAME).
struct TraceEvent {
	std::string_view name;
	std::string_view subsystem;
};

// Every event the writer knows, grouped by subsystem (ftrace.cpp's table,
// both series' names: an event of the other series never fires).
std::span<const TraceEvent> trace_events();

// A --trace-events item that names no known event or subsystem.
struct TraceEventsError : std::invalid_argument {
	using std::invalid_argument::invalid_argument;
};

// Which events a trace holds, chosen as `trace-cmd record -e` chooses them.
// By default every event, those the table does not know included.
class TraceEvents {
public:
	// The union of comma-separated lists, each item an event (sched_switch),
	// a subsystem (sched: all its events), SUBSYSTEM:EVENT, or all; names
	// may be shell globs (sched_pelt_*, power:cpu_*). An item that matches
	// no known event throws TraceEventsError naming it and listing the
	// events by subsystem.
	static TraceEvents parse(std::span<const std::string> lists);

	bool selects(std::string_view event) const;
	bool selects_everything() const { return all_; }

private:
	bool all_ = true;
	std::vector<bool> chosen_;	// by trace_events()' index
};

// A file the report goes to could not be written (a full disk, a closed
// pipe): an error of the machine, not of the input or the kernel.
struct WriteError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

class FtraceWriter : public sim::EventSink {
public:
	// Opens (truncates) `path` and writes the header. Throws
	// std::runtime_error naming the file if it cannot be written. Only
	// the events `events` selects are written; the others cost a lookup.
	FtraceWriter(const std::filesystem::path &path, unsigned nr_cpus, TraceEvents events = {});

	void event(const kshim_trace_event &ev, std::string_view current_comm, int current_pid) override;
	// ftrace's print entry: "tracing_mark_write: TEXT", as a write to
	// trace_marker shows in the trace (outside any lock: flags ".....").
	void marker(int cpu, std::uint64_t time_ns, int pid, std::string_view comm, std::string_view text) override;

	// After each event, the kernel functions it fired in, innermost first,
	// as ftrace's stacktrace option writes them ("<stack trace>", then
	// " => function" lines). Decisions are unchanged; it costs an unwind
	// per event.
	void stacktrace(bool on) { stacktrace_ = on; }

	// Flushes and closes; throws if the data could not be written.
	void close();

private:
	// Lines are formatted straight into a block and written when it holds
	// this much; before each line the block is flushed unless the line's
	// room (ftrace.cpp's line_max, with its names and CPU list) is free.
	static constexpr std::size_t flush_at = 1 << 16;
	void flush();

	// Each event name's line layout (ftrace.cpp's), length and whether it
	// is written, cached by the name's address (direct-mapped: a collision
	// classifies it again).
	struct Name {
		const char *name = nullptr;
		int kind = 0;
		bool selected = true;
		std::size_t length = 0;
		// the name, NUL-padded, for a copy of constant size (names
		// longer than this are copied by their length)
		std::array<char, 32> padded{};
	};
	const Name &name_of(const char *name)
	{
		auto &slot = names_[(reinterpret_cast<std::uintptr_t>(name) >> 3) % names_.size()];
		return slot.name == name ? slot : classify(slot, name);
	}
	const Name &classify(Name &slot, const char *name);
	std::array<Name, 64> names_{};
	TraceEvents events_;
	bool stacktrace_ = false;
	void put_stack(const std::string_view head);
	void put_lines(std::string_view text);

	// The last line's head (ftrace.cpp): the key and its text.
	struct Head {
		int cpu = -1;
		int pid = -1;
		unsigned long long us = 0;
		std::array<char, 16> comm{};
		std::size_t comm_len = 0;
		std::array<char, 64> text{};
		std::size_t len = 0;	// 0: none
	} head_;

	std::vector<char> block_;
	std::size_t used_ = 0;
	struct Closer {
		void operator()(std::FILE *f) const { std::fclose(f); }
	};
	std::unique_ptr<std::FILE, Closer> file_;
	std::filesystem::path path_;
};

} // namespace sh::report
