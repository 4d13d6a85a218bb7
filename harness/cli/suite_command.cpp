// SPDX-License-Identifier: GPL-2.0
//
// sched-harness suite list
// sched-harness suite show SUITE
//
// The built-in suites, and what a suite's scenarios run and expect: the
// options compare, check and bisect give each scenario's runs.
#include "harness/cli/cli.h"

#include "harness/report/suite_report.h"
#include "harness/suite/suite.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

int suite_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("suite options");
	options.add_options()("help,h", "show this help");
	po::options_description hidden;
	hidden.add_options()("action", po::value<std::string>())("suite", po::value<std::vector<std::string>>());
	po::positional_options_description positional;
	positional.add("action", 1).add("suite", -1);
	auto parsed = parse_subcommand(ctx, args, options, hidden, positional,
				       "usage: sched-harness suite list\n"
				       "       sched-harness suite show SUITE\n\n"
				       "SUITE is a built-in suite's name ('suite list') or a JSON file of scenarios\n"
				       "(docs/guide-compare.md#suites). 'show' prints each scenario's run options\n"
				       "and expectations: what compare, check and bisect run.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const auto action = vm.count("action") ? vm["action"].as<std::string>() : std::string();
	const auto suites = vm.count("suite") ? vm["suite"].as<std::vector<std::string>>() : std::vector<std::string>{};
	if (action == "list") {
		if (!suites.empty())
			throw UsageError{"suite list takes no argument"};
		std::string text = "Built-in suites (sched-harness suite show NAME):\n";
		for (const auto &name : suite::builtin_names())
			text += fmt::format("  {}\n", name);
		ctx.out << text;
		return exit_ok;
	}
	if (action != "show")
		throw UsageError{action.empty() ? "suite: say 'list' or 'show SUITE'"
						: fmt::format("suite: unknown action '{}' (list or show)", action)};
	if (suites.size() != 1)
		throw UsageError{"suite show needs exactly one SUITE (a built-in name or a JSON file)"};
	try {
		ctx.out << report::suite_text(suite::load(suites.front()));
	} catch (const suite::Error &e) {
		throw UsageError{e.what()};
	}
	return exit_ok;
}

} // namespace sh::cli
