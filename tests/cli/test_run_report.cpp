// SPDX-License-Identifier: GPL-2.0
//
// What a user reads first: the default run's report answers in one screen,
// and every table is one option away.
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <sstream>

using namespace sh;

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(default_run_report_is_one_screen)
{
	const auto r = test::run_cli({"run"});
	BOOST_TEST_REQUIRE(r.exit_status == 0, r.err);
	std::istringstream lines(r.out);
	std::size_t count = 0;
	for (std::string line; std::getline(lines, line); count++)
		BOOST_TEST(line.size() <= 100u, "wider than 100 columns: " << line);
	BOOST_TEST(count <= 30u, r.out);
	for (const char *what : {"odroid-xu3", "Linux ", "Energy:", "the energy model's estimate", "MHz share",
				 "Latency:", "p50", "p99", "migrations", "context switches", "Overhead:", "Fingerprint:"})
		BOOST_TEST(r.out.find(what) != std::string::npos, what);

	const auto details = test::run_cli({"run", "--details"});
	BOOST_TEST_REQUIRE(details.exit_status == 0, details.err);
	for (const char *table : {"Tasks (24)", "Thermal zones", "Kernel code (", "board power model:", "OPP residency"})
		BOOST_TEST(details.out.find(table) != std::string::npos, table);
	// the same run: the fingerprint line is the summary's
	const auto fingerprint = r.out.substr(r.out.find("Fingerprint:"));
	BOOST_TEST(details.out.find(fingerprint.substr(0, fingerprint.find('\n'))) != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
