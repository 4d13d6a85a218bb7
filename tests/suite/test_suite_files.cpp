// SPDX-License-Identifier: GPL-2.0
//
// Suite files as sched-harness reads them: their mistakes are bad input
// (exit 2), found before any run and named with the file and scenario.
#include "support.h"
#include "temp_files.h"

#include "harness/suite/metrics.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace sh;

namespace {

using test::temp_path;

} // namespace

BOOST_AUTO_TEST_SUITE(suite)

// A suite's mistakes are found when it is read, before any run, and named
// with the file and scenario: each of these once crashed (nesting), ran a
// check that could not hold or measured the wrong CPUs, or garbled KTAP.
BOOST_AUTO_TEST_CASE(suite_bad_input_is_status_2)
{
	const auto path = temp_path("bad-suite.json");
	const std::string board = R"("board": "odroid-xu3", "workload": "periodic:count=1", "duration": "100ms")";
	auto refused = [&](const std::string &text, const std::string &message) {
		std::ofstream(path) << text;
		const auto r = test::run_cli({"check", path.string()});
		BOOST_TEST(r.exit_status == 2, text << ": " << r.err);
		BOOST_TEST(r.err == "sched-harness: error: " + path.string() + ": " + message + "\n", r.err);
		BOOST_TEST(r.out.empty(), r.out);
	};
	auto expecting = [&](const std::string &expectation) {
		return fmt::format(R"({{"scenarios": [{{"name": "a", {}, "expect": [{}]}}]}})", board, expectation);
	};
	refused(std::string(100000, '['), "offset 100000: Invalid value.");	// a stack overflow, before
	refused(expecting(R"({"metric": "task_cpu_share", "task": "periodic-0", "cpus": "0-99999999999", "min": 0.5})"),
		"scenario \"a\": task_cpu_share(periodic-0, cpus 0-99999999999) >= 0.5: cpus \"0-99999999999\": "
		"expected a list like 0-3,6 (CPUs below 4096)");
	refused(expecting(R"({"metric": "energy_j", "min": 2, "max": 1})"),
		"scenario \"a\": 2 <= energy_j <= 1: \"min\" is above \"max\", so it can never hold");
	refused(R"({"name": "s\u001b[31m", "scenarios": []})",
		"the suite's name has a control character (0x1b): names are printed line by line");
	refused(fmt::format(R"({{"scenarios": [{{"name": "a\nnot ok 1", {}}}]}})", board),
		"scenario 1's name has a control character (0x0a): names are printed line by line");
	refused(R"({"name": 5, "scenarios": []})", "the suite's \"name\" is not a string");
	// CPUs the board does not have: known once the run says how many it has
	refused(expecting(R"({"metric": "task_cpu_share", "task": "periodic-0", "cpus": "8-9", "min": 0.5})"),
		"scenario \"a\": task_cpu_share(periodic-0, cpus 8-9) >= 0.5: the board has CPU0-7");
	std::filesystem::remove(path);
}

// suite list names the built-in suites; suite show prints each scenario's
// run options (a variant's sysctl included) and expectations; an unknown
// suite or action is bad input.
BOOST_AUTO_TEST_CASE(suite_show_prints_what_each_scenario_runs)
{
	auto list = test::run_cli({"suite", "list"});
	BOOST_TEST(list.exit_status == 0, list.err);
	BOOST_TEST(list.out.find("\n  default\n") != std::string::npos, list.out);

	auto builtin = test::run_cli({"suite", "show", "default"});
	BOOST_TEST(builtin.exit_status == 0, builtin.err);
	BOOST_TEST(builtin.out.starts_with("suite default (built-in): "), builtin.out);
	BOOST_TEST(builtin.out.find("\nxu3-periodic-24-no-eas\n  run --board odroid-xu3 --workload "
				    "periodic:count=24,period=16ms,duty=10% --duration 2s --sysctl "
				    "kernel.sched_energy_aware=0\n") != std::string::npos,
		   builtin.out);

	const auto file = test::fixture("suite/eas-small-task.json").string();
	auto shown = test::run_cli({"suite", "show", file});
	BOOST_TEST(shown.exit_status == 0, shown.err);
	BOOST_TEST(shown.out.starts_with("suite eas-small-task (" + file + "): 2 scenarios\n"), shown.out);
	BOOST_TEST(shown.out.find("\nsmall-task-goes-little\n  run --board odroid-xu3 --workload "
				  "periodic:count=1,period=16ms,duty=10% --duration 2s --fork-cpu 4\n"
				  "  expect task_cpu_share(periodic-0, cpus 0-3) >= 0.9\n") != std::string::npos,
		   shown.out);

	for (const auto &args : std::vector<std::vector<std::string>>{
		     {"suite", "show", "no-such-suite"}, {"suite", "show"}, {"suite", "frobnicate"}, {"suite"}}) {
		auto bad = test::run_cli(args);
		BOOST_TEST(bad.exit_status == 2, fmt::format("{}", fmt::join(args, " ")));
		BOOST_TEST(bad.out.empty(), bad.out);
	}
}

// One name per metric: the reference lists each, sweep --help offers each,
// and a name compare used before is refused with the one that replaced it.
BOOST_AUTO_TEST_CASE(metrics_are_one_vocabulary)
{
	std::ifstream in(test::fixture("../../docs/reference.md"));
	const std::string reference((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	BOOST_REQUIRE(!reference.empty());
	const auto help = test::run_cli({"sweep", "--help"});
	for (const auto &m : sh::suite::run_metrics()) {
		BOOST_TEST(reference.find(fmt::format("`{}`", m.name)) != std::string::npos, m.name);
		BOOST_TEST(help.out.find(m.name) != std::string::npos, m.name);
		BOOST_TEST(sh::suite::find_metric(m.name) == &m);
	}
	for (const char *old : {"energy", "energy model estimate", "completion time", "wake-up latency p50",
				"wake-up latency p99", "context switches", "overutilized"}) {
		BOOST_TEST(!sh::suite::find_metric(old), old);
		const auto now = sh::suite::renamed_metric(old);
		BOOST_TEST_REQUIRE(now.has_value(), old);
		BOOST_TEST(sh::suite::find_metric(*now), old);
	}
}

BOOST_AUTO_TEST_SUITE_END()
