// SPDX-License-Identifier: GPL-2.0
//
// The metrics an experiment summarises over runs, each read from a run's
// JSON report (harness/report/run_report.h).
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <span>

namespace sh::experiment {

struct Metric {
	const char *name;
	const char *unit;
	// its value in a run's JSON; nullopt when the run does not have it
	// (completion time of an endless workload)
	std::optional<double> (*read)(const rapidjson::Document &run);
};
std::span<const Metric> run_metrics();

} // namespace sh::experiment
