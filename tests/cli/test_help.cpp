// SPDX-License-Identifier: GPL-2.0
//
// The top-level help: what a first look at sched-harness shows.
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <regex>
#include <set>
#include <sstream>
#include <string>

using namespace sh;

BOOST_AUTO_TEST_SUITE(cli)

// `sched-harness --help` names every kernel subcommand that `kernel --help`
// has (it said "kernel info" only, where kernel builds, lists, prunes
// images and lists the tree's files too).
BOOST_AUTO_TEST_CASE(help_names_every_kernel_subcommand)
{
	const auto kernel = test::run_cli({"kernel", "--help"});
	BOOST_TEST_REQUIRE(kernel.exit_status == 0, kernel.err);
	// the usage lines, up to the first blank line: "kernel info | kernel list | ..."
	const auto usage = kernel.out.substr(0, kernel.out.find("\n\n"));
	std::set<std::string> subcommands;
	static const std::regex subcommand(R"(kernel ([a-z]+))");
	for (auto it = std::sregex_iterator(usage.begin(), usage.end(), subcommand); it != std::sregex_iterator(); ++it)
		subcommands.insert((*it)[1].str());
	BOOST_TEST(subcommands == (std::set<std::string>{"build", "files", "info", "list", "prune"}),
		   "kernel --help's usage: " << usage);

	const auto help = test::run_cli({"--help"});
	BOOST_TEST_REQUIRE(help.exit_status == 0, help.err);
	std::istringstream lines(help.out);
	std::string line, kernel_line;
	while (std::getline(lines, line))
		if (line.rfind("  kernel ", 0) == 0)
			kernel_line = line;
	BOOST_TEST_REQUIRE(!kernel_line.empty(), help.out);
	for (const auto &name : subcommands)
		BOOST_TEST(std::regex_search(kernel_line, std::regex("\\b" + name + "\\b")),
			   "kernel " << name << " not in: " << kernel_line);
}

BOOST_AUTO_TEST_SUITE_END()
