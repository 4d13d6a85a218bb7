// SPDX-License-Identifier: GPL-2.0
//
// The experiment library's plans as values: what compare and sweep run, in
// which order, and a plan written as JSON lines and read back.
#include "harness/experiment/comparison.h"
#include "harness/experiment/plan.h"
#include "harness/experiment/sweep.h"

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace sh;
using Strings = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(plan)

BOOST_AUTO_TEST_CASE(a_plan_reads_back_what_it_wrote)
{
	const experiment::Plan plan{
		{"variant A seed 1 ('a b')", {"--seed", "1", "--cmdline", "a b", "--board", "x\"y\\z"}, {}},
		{"point k=p seed 2", {"--seed", "2"}, {"--kernel", "/cache/images/0123"}},
		{"", {}, {}},
	};
	const auto text = experiment::to_json_lines(plan);
	BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 3);
	BOOST_TEST(experiment::from_json_lines(text) == plan);
	// blank lines between runs are no runs
	BOOST_TEST(experiment::from_json_lines("\n" + text + "\n  \n") == plan);
}

BOOST_AUTO_TEST_CASE(a_line_that_is_not_a_run_is_named)
{
	auto message = [](const std::string &text) {
		try {
			experiment::from_json_lines(text);
		} catch (const experiment::Error &e) {
			return std::string(e.what());
		}
		return std::string("no error");
	};
	const std::string good = R"({"label": "r", "args": [], "global": []})";
	BOOST_TEST(message(good + "\n{") == "plan line 2: not a JSON object");
	BOOST_TEST(message("[1]") == "plan line 1: not a JSON object");
	BOOST_TEST(message(R"({"args": [], "global": []})") == "plan line 1: \"label\" is not a string");
	BOOST_TEST(message(R"({"label": "r", "args": [1], "global": []})") ==
		   "plan line 1: \"args\" is not an array of strings");
	BOOST_TEST(message(R"({"label": "r", "args": []})") == "plan line 1: \"global\" is not an array of strings");
}

BOOST_AUTO_TEST_CASE(a_second_cmdline_joins_the_first)
{
	Strings args{"--board", "b", "--cmdline", "x=1"};
	experiment::append_run_args(args, {"--cmdline", "y=2", "--sysctl", "s=1"});
	BOOST_TEST(args == (Strings{"--board", "b", "--cmdline", "x=1 y=2", "--sysctl", "s=1"}));
	BOOST_TEST(experiment::board_of(args) == "b");
	BOOST_TEST(experiment::board_of({}) == experiment::default_board);
}

// A and B interleaved seed by seed within each scenario: a partial result
// is never lopsided.
BOOST_AUTO_TEST_CASE(compare_interleaves_the_variants_seed_by_seed)
{
	experiment::ComparisonPlan plan;
	plan.scenarios = {{"s1", {"--board", "b1"}}, {"s2", {"--board", "b2"}}};
	plan.variants = {experiment::Variant{{}, {}, {}},
			 experiment::Variant{{"--sysctl", "kernel.sched_energy_aware=0"}, {"--kernel", "/i"}, "abc"}};
	plan.repeat = 2;
	const auto runs = plan.runs();
	BOOST_TEST_REQUIRE(runs.size() == 8u);
	BOOST_TEST(runs[0].label == "scenario s1, variant A seed 1 ((the defaults))");
	BOOST_TEST(runs[0].args == (Strings{"--seed", "1", "--board", "b1"}));
	BOOST_TEST(runs[0].global.empty());
	BOOST_TEST(runs[1].label == "scenario s1, variant B seed 1 (--kernel abc --sysctl kernel.sched_energy_aware=0)");
	BOOST_TEST(runs[1].args == (Strings{"--seed", "1", "--board", "b1", "--sysctl", "kernel.sched_energy_aware=0"}));
	BOOST_TEST(runs[1].global == (Strings{"--kernel", "/i"}));
	BOOST_TEST(runs[2].label == "scenario s1, variant A seed 2 ((the defaults))");
	BOOST_TEST(runs[4].label == "scenario s2, variant A seed 1 ((the defaults))");
	BOOST_TEST(runs[7].args == (Strings{"--seed", "2", "--board", "b2", "--sysctl", "kernel.sched_energy_aware=0"}));
}

// The last parameter varies fastest; the runs go seed by seed over the grid.
BOOST_AUTO_TEST_CASE(sweep_plans_the_grid_seed_by_seed)
{
	const std::vector<experiment::Param> params{{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}};
	const auto grid = experiment::grid_of(params);
	BOOST_TEST_REQUIRE(grid.size() == 6u);
	BOOST_TEST(grid[1].at("a") == "1");
	BOOST_TEST(grid[1].at("b") == "y");
	BOOST_TEST(grid[3].at("a") == "2");
	std::ostringstream err;
	experiment::SweepPlan plan;
	plan.params = params;
	plan.repeat = 2;
	plan.points = experiment::sweep_points(params, grid, {{"--duration", "{a}s"}, {"--cmdline", "k={b}"}, {}}, err);
	BOOST_TEST(plan.points[5].label == "a=2 b=z");
	BOOST_TEST(plan.points[5].args == (Strings{"--duration", "2s", "--cmdline", "k=z"}));
	const auto runs = plan.runs();
	BOOST_TEST_REQUIRE(runs.size() == 12u);
	BOOST_TEST(runs[0].label == "point a=1 b=x seed 1");
	BOOST_TEST(runs[6].label == "point a=1 b=x seed 2");
	BOOST_TEST(runs[6].args == (Strings{"--seed", "2", "--duration", "1s", "--cmdline", "k=x"}));
	BOOST_TEST(err.str().empty());
}

BOOST_AUTO_TEST_CASE(sweep_refuses_names_no_parameter_defines_and_parameters_no_option_uses)
{
	const std::vector<experiment::Param> params{{"a", {"1"}}};
	const auto grid = experiment::grid_of(params);
	std::ostringstream err;
	BOOST_CHECK_THROW(experiment::sweep_points(params, grid, {{"--duration", "{c}s"}, {}, {}}, err),
			  experiment::Error);
	BOOST_CHECK_THROW(experiment::sweep_points(params, grid, {{"--duration", "1s"}, {}, {}}, err),
			  experiment::Error);
	const std::vector<experiment::Param> big{{"a", std::vector<std::string>(101, "v")},
						 {"b", std::vector<std::string>(100, "v")}};
	BOOST_CHECK_THROW(experiment::grid_of(big), experiment::Error);
}

BOOST_AUTO_TEST_SUITE_END()
