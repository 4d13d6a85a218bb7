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

} // namespace sh::report
