// SPDX-License-Identifier: GPL-2.0
//
// sched-harness check end to end: a suite's expectations run and reported
// as KTAP, and the exit status a script or git bisect run reads.
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

using namespace sh;

namespace {

using test::temp_path;

} // namespace

BOOST_AUTO_TEST_SUITE(experiment)

// check: KTAP, one subtest per scenario with expectations, one test per
// assertion; exit 0 when all hold. EAS off breaks the LISA-style
// expectation that a small task runs LITTLE: exit 1, the failing assertion
// with its measured value.
BOOST_AUTO_TEST_CASE(check_reports_ktap_and_exit_status)
{
	const auto suite = test::fixture("suite/eas-small-task.json").string();
	auto pass = test::run_cli({"check", suite});
	BOOST_TEST(pass.exit_status == 0, pass.err);
	BOOST_TEST(pass.out.starts_with("KTAP version 1\n"), pass.out);
	BOOST_TEST(pass.out.find("\n1..1\n") != std::string::npos, pass.out);	// the scenario without expectations is not run
	BOOST_TEST(pass.out.find("    # Subtest: small-task-goes-little\n    1..3\n") != std::string::npos, pass.out);
	BOOST_TEST(pass.out.find("    ok 1 task_cpu_share(periodic-0, cpus 0-3) >= 0.9\n") != std::string::npos);
	BOOST_TEST(pass.out.find("\nok 1 small-task-goes-little\n") != std::string::npos);

	auto fail = test::run_cli({"check", suite, "--sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST(fail.exit_status == 1, fail.err);
	BOOST_TEST(fail.out.find("    # task_cpu_share: measured 0\n    not ok 1 task_cpu_share") != std::string::npos,
		   fail.out);
	BOOST_TEST(fail.out.find("\nnot ok 1 small-task-goes-little\n") != std::string::npos);

	// a metric unknown; one called by compare's old name for it
	for (const auto &[metric, message] :
	     {std::pair{"energie", "scenario \"x\": metric \"energie\" unknown; the metrics: energy_j, em_energy_j, "},
	      std::pair{"completion time", "scenario \"x\": metric \"completion time\" is now called \"completion_s\""}}) {
		const auto bad = temp_path("bad-suite.json");
		{
			std::ofstream out(bad);
			out << fmt::format(R"({{"scenarios": [{{"name": "x", "board": "odroid-xu3",
				"expect": [{{"metric": "{}", "max": 1}}]}}]}})",
					   metric);
		}
		auto typo = test::run_cli({"check", bad.string()});
		std::filesystem::remove(bad);
		BOOST_TEST(typo.exit_status == 2);
		BOOST_TEST(typo.err.find(message) != std::string::npos, typo.err);
	}
}

// check --repeat N runs each scenario with seeds 1..N, as compare does: an
// expectation holds when it holds with every seed, the KTAP names the seeds
// and each seed an expectation failed with. --seed with --repeat is bad
// input.
BOOST_AUTO_TEST_CASE(check_repeats_the_seeds_of_compare)
{
	const auto suite = test::fixture("suite/eas-small-task.json").string();
	auto pass = test::run_cli({"check", suite, "--repeat", "3"});
	BOOST_TEST(pass.exit_status == 0, pass.err);
	BOOST_TEST(pass.out.find("# eas-small-task (" + suite + "), seeds 1-3\n") != std::string::npos, pass.out);
	BOOST_TEST(pass.out.find("\nok 1 small-task-goes-little\n") != std::string::npos, pass.out);

	auto fail = test::run_cli({"check", suite, "--repeat", "3", "--sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST(fail.exit_status == 1, fail.err);
	for (const int seed : {1, 2, 3})
		BOOST_TEST(fail.out.find(fmt::format("    # seed {}: task_cpu_share: measured ", seed)) != std::string::npos,
			   fail.out);
	BOOST_TEST(fail.out.find("    not ok 1 task_cpu_share(periodic-0, cpus 0-3) >= 0.9\n") != std::string::npos,
		   fail.out);
	BOOST_TEST(fail.out.find("    ok 2 em_energy_j <= 0.05\n") != std::string::npos, fail.out);

	auto both = test::run_cli({"check", suite, "--repeat", "2", "--seed", "4"});
	BOOST_TEST(both.exit_status == 2);
	BOOST_TEST(both.err == "sched-harness: error: --seed and --repeat: choose one (--repeat N runs seeds 1..N)\n",
		   both.err);
	auto none = test::run_cli({"check", suite, "--repeat", "0"});
	BOOST_TEST(none.exit_status == 2);
	BOOST_TEST(none.err.find("--repeat 0") != std::string::npos, none.err);
}

BOOST_AUTO_TEST_SUITE_END()
