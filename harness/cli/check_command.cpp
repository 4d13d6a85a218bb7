// SPDX-License-Identifier: GPL-2.0
//
// sched-harness check SUITE [--scenario NAME]... [kernel options]
//
// Unit tests for scheduler behaviour: each scenario of an expectations file
// runs (its own process), its assertions are evaluated on the run's
// metrics, and the result is KTAP (the kernel's test output format: a
// subtest per scenario, a test per assertion, the measured value on
// failure). Exit 0 when every assertion holds, 1 when one does not: what
// `git bisect run` wants.
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/experiment/metrics.h"
#include "harness/experiment/runner.h"
#include "harness/report/tables.h"
#include "harness/suite/suite.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <set>

namespace po = boost::program_options;

namespace sh::cli {

int check_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("check options");
	options.add_options()
		("help,h", "show this help")
		("scenario", po::value<std::vector<std::string>>()->value_name("NAME")->composing(),
		 "only this scenario of the suite; repeatable")
		("seed", po::value<Unsigned>()->default_value(Unsigned{0}, "0"), "seed of every run")
		("jobs", po::value<Unsigned>()->value_name("J"),
		 "runs at once, each its own process (default: the machine's cores)")
		("cmdline", po::value<std::string>()->value_name("ARGS"), "added to every scenario's kernel command line")
		("sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl for every scenario; repeatable")
		("feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature for every scenario; repeatable")
		("baseline", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
		 "the kernel that \"relative\" expectations compare with, run with the same scenario and seed "
		 "(default: the build's own kernel)");
	po::options_description hidden;
	hidden.add_options()("suite", po::value<std::string>());
	po::positional_options_description positional;
	positional.add("suite", 1);
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness check SUITE [--scenario NAME]... [--seed N] [--sysctl ...] [--feature ...]\n\n"
		"Runs each scenario of SUITE (a JSON file, see README) that has expectations and checks\n"
		"them against the run's metrics; prints KTAP, one subtest per scenario and one test per\n"
		"assertion. Exit status 0 when all hold, 1 when one fails (for git bisect run).\n"
		"An expectation with \"relative\": true bounds the change in percent from the --baseline\n"
		"kernel's run instead: 'sched-harness --kernel mine.patch check suite.json' tests a\n"
		"patch against the unpatched kernel.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const unsigned jobs = jobs_option(vm);
	if (!vm.count("suite"))
		throw UsageError{"check: name the suite (a JSON file of scenarios with \"expect\")"};
	suite::Suite suite;
	try {
		suite = suite::load(vm["suite"].as<std::string>());
	} catch (const suite::Error &e) {
		throw UsageError{e.what()};
	}
	if (vm.count("scenario")) {
		const auto wanted = vm["scenario"].as<std::vector<std::string>>();
		const std::set<std::string> names(wanted.begin(), wanted.end());
		for (const auto &name : names)
			if (std::none_of(suite.scenarios.begin(), suite.scenarios.end(),
					 [&](const auto &s) { return s.name == name; }))
				throw UsageError{fmt::format("--scenario {}: {} has no such scenario", name, suite.source)};
		std::erase_if(suite.scenarios, [&](const auto &s) { return !names.count(s.name); });
	}

	std::vector<std::string> common{"--seed", std::to_string(vm["seed"].as<Unsigned>().value)};
	for (const std::string name : {"sysctl", "feature"})
		if (vm.count(name))
			for (const auto &v : vm[name].as<std::vector<std::string>>())
				common.insert(common.end(), {"--" + name, v});
	if (vm.count("cmdline"))
		common.insert(common.end(), {"--cmdline", vm["cmdline"].as<std::string>()});

	std::vector<experiment::Run> specs;
	std::vector<const suite::Scenario *> checked;
	for (const auto &s : suite.scenarios) {
		if (s.expect.empty())
			continue;
		experiment::Run spec{fmt::format("scenario {}", s.name), s.run_args};
		experiment::append_run_args(spec.args, common);
		specs.push_back(std::move(spec));
		checked.push_back(&s);
	}
	if (specs.empty())
		throw UsageError{fmt::format("{}: no scenario has expectations (\"expect\")", suite.source)};
	// the baseline's runs, for the scenarios with relative expectations
	std::string baseline_dir;
	std::vector<std::size_t> baseline_of(checked.size(), SIZE_MAX);	// index into the runs
	for (std::size_t i = 0; i < checked.size(); i++) {
		if (std::none_of(checked[i]->expect.begin(), checked[i]->expect.end(),
				 [](const auto &a) { return a.relative; }))
			continue;
		if (baseline_dir.empty()) {
			try {
				baseline_dir = vm.count("baseline")
						       ? image::resolve(vm["baseline"].as<std::string>(), ctx.err).string()
						       : image::own_kernel_dir().string();
			} catch (const std::invalid_argument &e) {
				throw UsageError{fmt::format("--baseline: {}", e.what())};
			} catch (const image::BadPatch &e) {
				throw UsageError{fmt::format("--baseline: {}", e.what())};
			}
		}
		baseline_of[i] = specs.size();
		experiment::Run spec{fmt::format("scenario {} (baseline)", checked[i]->name), specs[i].args,
			     {"--kernel", baseline_dir}};
		specs.push_back(std::move(spec));
	}
	std::vector<rapidjson::Document> runs;
	try {
		runs = experiment::run_locally(local_host(ctx), specs, jobs);
	} catch (const experiment::RunFailed &failure) {
		return report_failure(ctx, "check", failure);
	}

	std::string out = fmt::format("KTAP version 1\n# {} ({})\n1..{}\n", suite.name, suite.source, checked.size());
	bool all_passed = true;
	for (std::size_t i = 0; i < checked.size(); i++) {
		const auto &s = *checked[i];
		out += fmt::format("    KTAP version 1\n    # Subtest: {}\n    1..{}\n", s.name, s.expect.size());
		bool passed = true;
		for (std::size_t j = 0; j < s.expect.size(); j++) {
			const auto &a = s.expect[j];
			std::optional<double> value, baseline;
			try {
				value = suite::measure(runs[i], a);
				if (a.relative)
					baseline = suite::measure(runs[baseline_of[i]], a);
			} catch (const suite::Error &e) {
				throw UsageError{fmt::format("{}: scenario \"{}\": {}", suite.source, s.name, e.what())};
			}
			// a relative bound holds on the change in percent (a zero
			// baseline: only an unchanged value is 0%)
			std::optional<double> bounded = value;
			if (a.relative)
				bounded = value && baseline
						  ? std::optional(*baseline != 0 ? 100.0 * (*value - *baseline) / std::abs(*baseline)
						    : *value == 0 ? 0.0
						    : std::copysign(HUGE_VAL, *value))
						  : std::nullopt;
			const bool ok = bounded && (!a.min || *bounded >= *a.min) && (!a.max || *bounded <= *a.max);
			if (!ok && a.relative)
				out += bounded ? fmt::format("    # {}: measured {}, baseline {}: {:+.2f}%\n", a.metric, *value,
							     *baseline, *bounded)
					       : fmt::format("    # {}: {} has no value for it\n", a.metric,
							     value ? "the baseline's run" : "the run");
			else if (!ok)
				out += value ? fmt::format("    # {}: measured {}\n", a.metric, *value)
					     : fmt::format("    # {}: the run has no value for it\n", a.metric);
			out += fmt::format("    {} {} {}\n", ok ? "ok" : "not ok", j + 1, a.text());
			passed &= ok;
		}
		out += fmt::format("{} {} {}\n", passed ? "ok" : "not ok", i + 1, s.name);
		all_passed &= passed;
	}
	ctx.out << out;
	return all_passed ? exit_ok : 1;
}

} // namespace sh::cli
