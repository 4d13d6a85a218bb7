// SPDX-License-Identifier: GPL-2.0
//
// Checking a suite's expectations: the runs of its scenarios that have
// some (and the baseline kernel's runs of those with relative ones), then
// every assertion evaluated on the reports.
#pragma once

#include "harness/experiment/plan.h"
#include "harness/suite/suite.h"

#include <rapidjson/document.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

struct CheckPlan {
	Plan runs;	// each checked scenario's runs, seed by seed, then the baselines'
	std::vector<const suite::Scenario *> checked;	// in the suite's order
	std::vector<unsigned> seeds;	// every scenario runs each of them
	// runs[run_of[i][k]]: scenario i with seeds[k]; baseline_of likewise,
	// for the scenarios with a relative expectation
	std::vector<std::vector<std::size_t>> run_of;
	std::vector<std::optional<std::vector<std::size_t>>> baseline_of;
};

// The scenarios of `suite` that have expectations, in order.
std::vector<const suite::Scenario *> checked_scenarios(const suite::Suite &suite);
// Whether a scenario has a relative expectation (a baseline's run).
bool needs_baseline(std::span<const suite::Scenario *const> checked);

// Each checked scenario run with each of `seeds` and the `common` options,
// and run again on `baseline_kernel` (an image directory) when it needs a
// baseline. Runs are labelled with their seed when there are several.
CheckPlan plan_check(std::vector<const suite::Scenario *> checked, const std::vector<std::string> &common,
		     std::vector<unsigned> seeds, const std::string &baseline_kernel);

// An expectation holds when it holds with every seed.
struct ExpectationChecked {
	std::vector<suite::Evaluation> by_seed;	// as CheckPlan::seeds
	bool holds = true;
};

struct ScenarioChecked {
	const suite::Scenario *scenario;
	std::vector<ExpectationChecked> expectations;	// one per expectation, in order
	bool passed = true;
};

// Every assertion evaluated on the plan's reports (`runs`, in its order).
// Throws suite::Error naming the suite and the scenario.
std::vector<ScenarioChecked> evaluate_check(const suite::Suite &suite, const CheckPlan &plan,
					    std::span<const rapidjson::Document> runs);

} // namespace sh::experiment
