// SPDX-License-Identifier: GPL-2.0
//
// Suites and expectations. A suite is a named list of scenarios (board x
// workload x options), read from a JSON file (comments and trailing commas
// allowed) or built in ("default"); a scenario may carry expectations:
// assertions over its run's metrics with bounds, which `check` evaluates.
//
//   { "name": "mine",
//     "scenarios": [
//       { "name": "small-task", "board": "odroid-xu3",
//         "workload": "periodic:count=1,period=16ms,duty=10%", "duration": "2s",
//         "fork_cpu": 4, "sysctl": ["kernel.sched_energy_aware=1"],
//         "expect": [
//           { "metric": "task_cpu_share", "task": "periodic-0", "cpus": "0-3", "min": 0.9 },
//           { "metric": "energy_j", "max": 0.05 } ] } ] }
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sh::suite {

// A suite or expectations file that cannot be used: the message names the
// file and the scenario.
class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

struct Assertion {
	std::string metric;		// one of metric_names()
	std::string task;		// task_* metrics
	std::string cpus;		// task_cpu_share: "0-3,6"
	int domain = -1;		// opp_share
	unsigned khz = 0;		// opp_share
	std::optional<double> min, max;
	// min/max bound the change in percent from the baseline kernel's run of
	// the same scenario and seed (check --baseline), not the value
	bool relative = false;
	std::string text() const;	// "energy_j <= 4", "task_cpu_share(periodic-0, 0-3) >= 0.9"
};

struct Scenario {
	std::string name;
	std::vector<std::string> run_args;	// the `sched-harness run` options
	std::vector<Assertion> expect;
};

struct Suite {
	std::string name;
	std::string source;	// the file, or "built-in"
	std::vector<Scenario> scenarios;
};

// A built-in suite's name or a JSON file.
Suite load(const std::string &name_or_path);
std::vector<std::string> builtin_names();
std::vector<std::string> metric_names();

// The assertion's metric in a run's JSON report; nullopt when the run has
// none (a completion time of an endless workload). Throws Error for a task
// the run does not have.
std::optional<double> measure(const rapidjson::Document &run, const Assertion &a);

// An assertion evaluated on a run (and, relative, on the baseline's run).
struct Evaluation {
	std::optional<double> value, baseline;
	std::optional<double> bounded;	// what min/max bound: the value, or the change in percent
	bool holds = false;
	// why it does not hold ("energy_j: measured 4.2"); empty when it holds
	std::string note(const Assertion &a) const;
};
// Throws Error as measure() does.
Evaluation evaluate(const Assertion &a, const rapidjson::Document &run, const rapidjson::Document *baseline);

} // namespace sh::suite
