// SPDX-License-Identifier: GPL-2.0
//
// sweep's result as tables (text), JSON, CSV and a plot of each metric
// against the first parameter.
#pragma once

#include "harness/experiment/sweep.h"
#include "harness/report/plot.h"

#include <rapidjson/document.h>

#include <span>
#include <string>

namespace sh::report {

// The scenario as a sweep's header names it: the reports' names; where a
// parameter varies a part, the values it took.
struct SweepScenario {
	std::string board, workload, duration;
	std::string kernel;	// "Linux 6.1.192, image ID (patches: ...)"
};

std::string sweep_text(const experiment::SweepPlan &plan, const SweepScenario &scenario,
		       std::span<const experiment::SweepRow> rows);
std::string sweep_json(const experiment::SweepPlan &plan, const SweepScenario &scenario,
		       std::span<const experiment::SweepRow> rows, std::span<const rapidjson::Document> reports);
std::string sweep_csv(const experiment::SweepPlan &plan, std::span<const experiment::SweepRow> rows);
// Each metric's mean ± sd against the first parameter, one line per value
// of the second; further parameters at their first value.
SweepPlot sweep_plot(const experiment::SweepPlan &plan, const SweepScenario &scenario,
		     std::span<const experiment::SweepRow> rows);

} // namespace sh::report
