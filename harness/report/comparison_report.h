// SPDX-License-Identifier: GPL-2.0
//
// compare's result as a table (text), JSON and CSV.
#pragma once

#include "harness/experiment/comparison.h"

#include <span>
#include <string>

namespace sh::report {

std::string comparison_text(const experiment::ComparisonPlan &plan,
			    std::span<const experiment::ScenarioComparison> results);
std::string comparison_json(const experiment::ComparisonPlan &plan,
			    std::span<const experiment::ScenarioComparison> results);
std::string comparison_csv(std::span<const experiment::ScenarioComparison> results);
// The table an LKML cover letter carries, in the seeds' own layout
// (benchmark; without: mean, RSD; with: mean (delta), RSD), one row per
// named metric, plain text within 72 columns, then the kernel, board,
// workload, seeds and `command`, the line that reproduces it.
std::string comparison_cover_letter(const experiment::ComparisonPlan &plan,
				    std::span<const experiment::ScenarioComparison> results,
				    std::span<const std::string> metrics, const std::string &command);

} // namespace sh::report
