// SPDX-License-Identifier: GPL-2.0
//
// compare: scenarios run N times (seeds 1..N) under two variants of the
// kernel, A and B, and each metric summarised and tested as perf stat
// --repeat and Welch's t test would.
#pragma once

#include "harness/suite/metrics.h"
#include "harness/experiment/plan.h"
#include "harness/stats/stats.h"

#include <rapidjson/document.h>

#include <array>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

using suite::Metric;

// Run options that name a scenario (a suite's name for it, or none).
struct Scenario {
	std::string name;
	std::vector<std::string> args;
};

// A variant of the kernel: its run options, its image (the global
// `--kernel DIR`, empty for the build's own) and that image's id.
struct Variant {
	std::vector<std::string> args;
	std::vector<std::string> kernel;
	std::string image_id;

	// As the user would write it, the image by its id.
	std::string described() const;
};

struct ComparisonPlan {
	std::string suite;	// the suite's name; empty for one scenario
	std::vector<Scenario> scenarios;
	std::array<Variant, 2> variants;	// A, B
	unsigned repeat = 5;
	double alpha = 0.01;

	// Every scenario, seed and variant, A and B interleaved so that a
	// partial result is never lopsided.
	Plan runs() const;
};

// A metric whose runs all have it, under A and B.
struct ComparedMetric {
	const Metric *metric;
	std::array<std::vector<double>, 2> values;	// by seed
	stats::Comparison c;
	// per variant: every seed gave the same value (and A and B are not
	// identical)
	std::array<bool, 2> constant{};
};

struct ScenarioComparison {
	std::string name, board, workload;
	double seconds = 0;
	std::array<std::string, 2> kernels;	// as their reports name them (kernel_ran())
	std::array<std::set<std::string>, 2> fingerprints;
	std::size_t same_runs = 0;	// seeds whose A and B runs decided alike
	std::vector<ComparedMetric> metrics;
	// compared metrics some run does not have (energy of a board without an
	// energy model, completion time of an endless workload)
	std::vector<const Metric *> not_measured;
};

// The reports of plan.runs(), in its order, summarised per scenario.
std::vector<ScenarioComparison> compare_reports(const ComparisonPlan &plan,
						 std::span<const rapidjson::Document> reports);

} // namespace sh::experiment
