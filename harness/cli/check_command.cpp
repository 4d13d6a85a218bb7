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
#include "harness/experiment/check.h"
#include "harness/experiment/runner.h"
#include "harness/image/image.h"
#include "harness/report/ktap.h"
#include "harness/suite/suite.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <numeric>
#include <ostream>
#include <set>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

po::options_description check_options()
{
	po::options_description options("check options");
	options.add_options()
		("help,h", "show this help")
		("scenario", po::value<std::vector<std::string>>()->value_name("NAME")->composing(),
		 "only this scenario of the suite; repeatable")
		("seed", po::value<Unsigned>()->default_value(Unsigned{0}, "0"), "seed of every run")
		("repeat", po::value<Unsigned>()->value_name("N"),
		 "run every scenario with seeds 1..N, as compare does, instead of one --seed; an expectation "
		 "holds when it holds with every seed")
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
	options.add(engine_options());
	return options;
}

// The suite named, with only the --scenario ones when given.
suite::Suite suite_of(const po::variables_map &vm)
{
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
			if (std::ranges::none_of(suite.scenarios, [&](const auto &s) { return s.name == name; }))
				throw UsageError{fmt::format("--scenario {}: {} has no such scenario", name, suite.source)};
		std::erase_if(suite.scenarios, [&](const auto &s) { return !names.count(s.name); });
	}
	return suite;
}

// The options every scenario's run gets.
std::vector<std::string> common_args(const po::variables_map &vm)
{
	std::vector<std::string> common;
	for (const std::string name : {"sysctl", "feature"})
		if (vm.count(name))
			for (const auto &v : vm[name].as<std::vector<std::string>>())
				common.insert(common.end(), {"--" + name, v});
	if (vm.count("cmdline"))
		common.insert(common.end(), {"--cmdline", vm["cmdline"].as<std::string>()});
	return common;
}

// The seeds every scenario runs: --seed's, or 1..N with --repeat N.
std::vector<unsigned> seeds_of(const po::variables_map &vm)
{
	if (!vm.count("repeat"))
		return {static_cast<unsigned>(vm["seed"].as<Unsigned>().value)};
	if (!vm["seed"].defaulted())
		throw UsageError{"--seed and --repeat: choose one (--repeat N runs seeds 1..N)"};
	const unsigned repeat = bounded_option(vm, "repeat", 100000);
	if (repeat < 1)
		throw UsageError{"--repeat 0: at least 1 run per scenario"};
	std::vector<unsigned> seeds(repeat);
	std::iota(seeds.begin(), seeds.end(), 1u);
	return seeds;
}

// The image directory of --baseline, else the build's own kernel's.
std::string baseline_kernel(const Context &ctx, const po::variables_map &vm)
{
	try {
		return vm.count("baseline") ? image::resolve(vm["baseline"].as<std::string>(), ctx.err).string()
					    : image::own_kernel_dir().string();
	} catch (const std::invalid_argument &e) {
		throw UsageError{fmt::format("--baseline: {}", e.what())};
	} catch (const image::BadPatch &e) {
		throw UsageError{fmt::format("--baseline: {}", e.what())};
	}
}

// A subtest per scenario, a test per assertion, its note on failure (with
// several seeds, one for each seed it failed with).
std::vector<report::KtapSubtest> subtests(std::span<const experiment::ScenarioChecked> results,
					  std::span<const unsigned> seeds)
{
	std::vector<report::KtapSubtest> subtests;
	for (const auto &result : results) {
		report::KtapSubtest subtest{result.scenario->name, {}, result.passed};
		for (std::size_t j = 0; j < result.expectations.size(); j++) {
			const auto &a = result.scenario->expect[j];
			const auto &checked = result.expectations[j];
			auto &test = subtest.cases.emplace_back(report::KtapCase{a.text(), checked.holds, {}});
			for (std::size_t k = 0; k < seeds.size(); k++) {
				const auto &e = checked.by_seed[k];
				if (e.holds)
					continue;
				test.diagnostics.push_back(seeds.size() > 1 ? fmt::format("seed {}: {}", seeds[k], e.note(a))
									   : e.note(a));
			}
		}
		subtests.push_back(std::move(subtest));
	}
	return subtests;
}

// The KTAP title: the suite, and the seeds when there are several.
std::string title_of(const suite::Suite &suite, std::span<const unsigned> seeds)
{
	if (seeds.size() == 1)
		return fmt::format("{} ({})", suite.name, suite.source);
	return fmt::format("{} ({}), seeds {}-{}", suite.name, suite.source, seeds.front(), seeds.back());
}

} // namespace

int check_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description hidden;
	hidden.add_options()("suite", po::value<std::string>());
	po::positional_options_description positional;
	positional.add("suite", 1);
	auto parsed = parse_subcommand(
		ctx, args, check_options(), hidden, positional,
		"usage: sched-harness check SUITE [--scenario NAME]... [--seed N | --repeat N] [--sysctl ...] [--feature ...]\n\n"
		"Runs each scenario of SUITE (a JSON file, docs/guide-compare.md#suites) that has expectations and checks\n"
		"them against the run's metrics; prints KTAP, one subtest per scenario and one test per\n"
		"assertion. Exit status 0 when all hold, 1 when one fails (for git bisect run).\n"
		"An expectation with \"relative\": true bounds the change in percent from the --baseline\n"
		"kernel's run instead: 'sched-harness --kernel mine.patch check suite.json' tests a\n"
		"patch against the unpatched kernel.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const auto engine = engine_of(vm);
	const auto suite = suite_of(vm);
	auto checked = experiment::checked_scenarios(suite);
	if (checked.empty())
		throw UsageError{fmt::format("{}: no scenario has expectations (\"expect\")", suite.source)};
	const auto baseline = experiment::needs_baseline(checked) ? baseline_kernel(ctx, vm) : std::string();
	const auto plan = experiment::plan_check(std::move(checked), common_args(vm), seeds_of(vm), baseline);
	std::vector<rapidjson::Document> runs;
	try {
		auto executed = experiment::execute(local_host(ctx), plan.runs, engine);
		if (!executed)
			return exit_ok;	// runs elsewhere; --collect prints the KTAP
		runs = std::move(*executed);
	} catch (const experiment::RunFailed &failure) {
		return report_failure(ctx, "check", failure);
	}
	std::vector<experiment::ScenarioChecked> results;
	try {
		results = experiment::evaluate_check(suite, plan, runs);
	} catch (const suite::Error &e) {
		throw UsageError{e.what()};
	}
	std::vector<std::string> header{"kernel: " + experiment::kernel_ran(runs[plan.run_of.front().front()])};
	for (const auto &baseline_runs : plan.baseline_of)
		if (baseline_runs) {
			header.push_back("baseline kernel: " + experiment::kernel_ran(runs[baseline_runs->front()]));
			break;
		}
	ctx.out << report::ktap(title_of(suite, plan.seeds), subtests(results, plan.seeds), header);
	return std::ranges::all_of(results, [](const auto &r) { return r.passed; }) ? exit_ok : 1;
}

} // namespace sh::cli
