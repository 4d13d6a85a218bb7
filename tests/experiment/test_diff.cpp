// SPDX-License-Identifier: GPL-2.0
//
// sched-harness diff end to end: two runs compared decision by decision,
// the first difference shown.
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace sh;

BOOST_AUTO_TEST_SUITE(experiment)

// diff: the same options are identical decision for decision; EAS off
// parts at one event, shown with the common events before it and both
// sides' event, then the metrics' differences.
BOOST_AUTO_TEST_CASE(diff_finds_the_first_difference)
{
	auto same = test::run_cli({"diff", "--duration", "300ms"});
	BOOST_TEST(same.exit_status == 0, same.err);
	BOOST_TEST(same.out.find("decisions: the runs are identical") != std::string::npos, same.out);
	auto eas = test::run_cli({"diff", "--duration", "1s", "--b-sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST(eas.exit_status == 0, eas.err);
	BOOST_TEST(eas.out.find("  B: --sysctl kernel.sched_energy_aware=0") != std::string::npos, eas.out);
	const auto at = eas.out.find("The decisions part at event ");
	BOOST_REQUIRE_MESSAGE(at != std::string::npos, eas.out);
	const auto a = eas.out.find("\n  A:\n    ", at), b = eas.out.find("\n  B:\n    ", at);
	BOOST_REQUIRE(a != std::string::npos && b != std::string::npos);
	const auto event_a = eas.out.substr(a + 10, eas.out.find('\n', a + 10) - a - 10);
	const auto event_b = eas.out.substr(b + 10, eas.out.find('\n', b + 10) - b - 10);
	BOOST_TEST(event_a != event_b);
	BOOST_TEST(eas.out.find("Metrics (B - A):") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
