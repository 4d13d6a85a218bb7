// SPDX-License-Identifier: GPL-2.0
//
// Workloads as a command line gives them: the workloads command lists the
// built-ins, and an rt-app file can come through a pipe.
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

using namespace sh;

BOOST_AUTO_TEST_SUITE(cli)

// An rt-app file through a pipe, on an arm board: the command goes to
// sched-harness-arm before anything reads the pipe (it read it first, and
// the arm binary found it empty).
BOOST_AUTO_TEST_CASE(workload_from_a_pipe_on_an_arm_board)
{
	const std::string json = R"({"tasks": {"piped": {"run": 1000, "sleep": 1000}}})";
	const std::vector<std::string> argv{
		"sh", "-c",
		fmt::format("printf '%s' '{}' | '{}' run --details --workload /dev/stdin --duration 100ms", json,
			    SH_TEST_HARNESS_BIN)};
	const auto r = support::run_tool(argv);
	BOOST_TEST(r.exit_status == 0, r.err);
	BOOST_TEST(r.out.find("piped") != std::string::npos, r.out);
	BOOST_TEST(r.out.find("odroid-xu3 (Hardkernel Odroid XU3)") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(workloads_lists_the_builtins)
{
	auto r = test::run_cli({"workloads"});
	BOOST_TEST(r.exit_status == 0);
	for (const char *s : {"periodic", "hackbench", "fixed-work", "turbo-jitter", "count", "period", "duty", "groups",
			      "loops", "threads", "busy", "jitter_period", "rt-app"})
		BOOST_TEST(r.out.find(s) != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()
