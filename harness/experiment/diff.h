// SPDX-License-Identifier: GPL-2.0
//
// Where two runs of one scenario and seed part: their decisions (the
// events the fingerprint counts, read from their ftrace text traces)
// compared in order, and how their metrics differ.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

// The decisions of an ftrace text file, in order: its sched_switch,
// sched_wakeup(_new), sched_migrate_task and cpu_frequency lines.
std::vector<std::string> decisions(const std::filesystem::path &trace);

// The index of the first decision where a and b differ; their common
// length when one is a prefix of the other (identical: a.size() ==
// b.size() == the index).
std::size_t first_difference(std::span<const std::string> a, std::span<const std::string> b);

// A metric of two runs' reports.
struct MetricPair {
	const char *name;
	double a, b;
	const char *unit;
};
// Energy, migrations, context switches, p99 wake-up latency, throughput.
std::vector<MetricPair> compared_metrics(const rapidjson::Document &a, const rapidjson::Document &b);

} // namespace sh::experiment
