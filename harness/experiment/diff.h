// SPDX-License-Identifier: GPL-2.0
//
// Where two runs of one scenario and seed part: their decisions (the
// events the fingerprint counts, read from their ftrace text traces)
// compared in order, the kernel functions the first differing one fired
// in, and how their metrics differ.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

// The events a diff compares, as run --trace-events takes them.
inline constexpr const char *decision_events =
	"sched_switch,sched_wakeup,sched_wakeup_new,sched_migrate_task,cpu_frequency";

struct Decision {
	std::string line;			// as the trace has it
	std::string what;			// the line without its timestamp: the decision
	std::int64_t time_ns = 0;		// its timestamp (microseconds, as ftrace prints them)
	std::vector<std::string> stack;		// the kernel functions, innermost first (--trace-stacktrace)
};

// The decisions of an ftrace text file, in order: its decision_events'
// lines, each with the stack the trace gives after it.
std::vector<Decision> decisions(const std::filesystem::path &trace);

// The index of the first decision where a and b differ (what was decided,
// whenever it was); their common length when one is a prefix of the other
// (identical: a.size() == b.size() == the index).
std::size_t first_difference(std::span<const Decision> a, std::span<const Decision> b);
// The same, where the decisions or their times differ: kernel code takes
// time (docs/kernel-time.md), so two kernels can decide alike at
// different times.
std::size_t first_timing_difference(std::span<const Decision> a, std::span<const Decision> b);

} // namespace sh::experiment
