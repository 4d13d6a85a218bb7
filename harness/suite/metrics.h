// SPDX-License-Identifier: GPL-2.0
//
// The metrics of a run, read from its JSON report (harness/report/
// run_report.h). One name per metric everywhere: compare's and sweep's
// tables, their JSON and CSV, `sweep --metric`, and expectations files.
// The name carries the unit (energy_j, latency_p99_us) so that a value
// copied from a table into an expectation means the same thing.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <span>
#include <string_view>
#include <vector>
#include <string>

namespace sh::suite {

struct Metric {
	const char *name;
	const char *unit;	// for plots' axes; "" for counts
	const char *meaning;	// one line, for --help and the reference
	// its value in a run's JSON; nullopt when the run does not have it
	// (completion time of an endless workload, energy of a board without
	// an energy model, latency without wake-ups)
	std::optional<double> (*read)(const rapidjson::Document &run);
	// in compare's and sweep's tables by default
	bool compared;
	// compared only when some run gives a value other than 0 (thermal
	// pressure on a board that never heats)
	bool only_when_nonzero;
	// why a run may have no value, when the tables say so ("n/a: ...");
	// nullptr when its absence is plain (an endless workload's completion)
	const char *absent;
};

// The metrics with one value per run, in table order.
std::span<const Metric> run_metrics();
const Metric *find_metric(std::string_view name);

// For a name of the vocabulary the commands used before it was one:
// the name that replaced it, or nullopt.
std::optional<std::string_view> renamed_metric(std::string_view old_name);

// "energy_j, em_energy_j, ..." (for messages)
std::string run_metric_names();

} // namespace sh::suite
