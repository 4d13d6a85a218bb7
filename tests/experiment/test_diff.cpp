// SPDX-License-Identifier: GPL-2.0
//
// sched-harness diff end to end: two runs compared decision by decision,
// the first difference shown with the kernel functions it fired in.
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace sh;

BOOST_AUTO_TEST_SUITE(experiment)

// diff: the same options are identical decision for decision (exit 0); EAS
// off parts at one event (exit 1, as diff(1)), shown with the common
// events before it, both sides' event and its kernel stack, then the
// metrics in labelled columns, in compare's names.
BOOST_AUTO_TEST_CASE(diff_finds_the_first_difference)
{
	auto same = test::run_cli({"diff", "--duration", "300ms"});
	BOOST_TEST(same.exit_status == 0, same.err);
	BOOST_TEST(same.out.find("decisions: the runs are identical") != std::string::npos, same.out);
	BOOST_TEST(same.out.find("     kernel: Linux ") != std::string::npos, same.out);
	auto eas = test::run_cli({"diff", "--duration", "1s", "--b-sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST(eas.exit_status == 1, eas.err);
	BOOST_TEST(eas.out.find("  B: --sysctl kernel.sched_energy_aware=0") != std::string::npos, eas.out);
	const auto at = eas.out.find("the decisions part at event ");
	BOOST_REQUIRE_MESSAGE(at != std::string::npos, eas.out);
	const auto a = eas.out.find("\n  A:\n    ", at), b = eas.out.find("\n  B:\n    ", at);
	BOOST_REQUIRE(a != std::string::npos && b != std::string::npos);
	const auto event_a = eas.out.substr(a + 10, eas.out.find('\n', a + 10) - a - 10);
	const auto event_b = eas.out.substr(b + 10, eas.out.find('\n', b + 10) - b - 10);
	BOOST_TEST(event_a != event_b);
	// each side's event with the kernel functions it fired in, as its kind
	// says: a switch under __schedule(), a wake-up or a migration under
	// try_to_wake_up() or the queued wake-up's ttwu_do_activate(), a
	// migration also under load_balance(). Which event differs first is the
	// tree's (6.1 and 6.12: a wake-up on both sides; 7.3: a switch in A, a
	// queued wake-up in B; 5.10: a switch in A, a newly idle balance's
	// migration in B).
	const auto fired_in_its_kind = [](const std::string &side, const std::string &event) {
		if (event.find(": sched_switch: ") != std::string::npos)
			return side.find("\n       => __schedule\n") != std::string::npos;
		if (event.find(": sched_migrate_task: ") != std::string::npos &&
		    side.find("\n       => load_balance\n") != std::string::npos)
			return true;
		return side.find("\n       => try_to_wake_up\n") != std::string::npos ||
		       side.find("\n       => ttwu_do_activate\n") != std::string::npos;
	};
	BOOST_TEST(fired_in_its_kind(eas.out.substr(a, b - a + 1), event_a), eas.out);
	BOOST_TEST(fired_in_its_kind(eas.out.substr(b), event_b), eas.out);
	BOOST_TEST(eas.out.find("    metric                                 A              B          B - A\n") !=
			   std::string::npos,
		   eas.out);
	BOOST_TEST(eas.out.find("\n    overutilized_percent ") != std::string::npos, eas.out);
}

// diff --suite: each scenario (or those --scenario names) under A and B;
// exit 1 when one differs. Bad --scenario names are bad input.
BOOST_AUTO_TEST_CASE(diff_runs_a_suites_scenarios)
{
	auto two = test::run_cli({"diff", "--suite", "default", "--scenario", "xu3-periodic-light", "--scenario",
				  "xu3-periodic-24-no-eas", "--b-sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST(two.exit_status == 1, two.err);
	BOOST_TEST(two.out.find("sched-harness diff: suite default, seed 0\n") == 0u, two.out);
	BOOST_TEST(two.out.find("\nxu3-periodic-light: ") != std::string::npos, two.out);
	// the scenario that turns EAS off already: B changes nothing there
	const auto no_eas = two.out.find("\nxu3-periodic-24-no-eas: ");
	BOOST_REQUIRE(no_eas != std::string::npos);
	BOOST_TEST(two.out.find("the runs are identical", no_eas) != std::string::npos, two.out);
	BOOST_TEST(two.out.find("the runs are identical") == two.out.rfind("the runs are identical"), two.out);
	BOOST_TEST(two.out.find("hikey") == std::string::npos, two.out);

	auto unknown = test::run_cli({"diff", "--suite", "default", "--scenario", "nope"});
	BOOST_TEST(unknown.exit_status == 2);
	BOOST_TEST(unknown.err.find("--scenario nope: default has no scenario of that name") != std::string::npos,
		   unknown.err);
	auto alone = test::run_cli({"diff", "--scenario", "xu3-periodic-light"});
	BOOST_TEST(alone.exit_status == 2);
	auto stacks = test::run_cli({"run", "--duration", "10ms", "--trace-stacktrace"});
	BOOST_TEST(stacks.exit_status == 2);
	BOOST_TEST(stacks.err.find("--trace-stacktrace: for --trace") != std::string::npos, stacks.err);
	auto both = test::run_cli({"diff", "--suite", "default", "--board", "hikey"});
	BOOST_TEST(both.exit_status == 2);
	BOOST_TEST(both.err.find("--suite and --board") != std::string::npos, both.err);
}

BOOST_AUTO_TEST_SUITE_END()
