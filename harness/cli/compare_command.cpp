// SPDX-License-Identifier: GPL-2.0
//
// sched-harness compare [scenario] [--repeat N] [--jobs J] [--a-OPTION ...] [--b-OPTION ...]
//
// A/B of two variants of the kernel's options (--cmdline, --sysctl,
// --feature) on one scenario: every run is its own `sched-harness run
// --json` process (kernel globals are per process), seeds 1..N per
// variant, and each metric is summarised and tested as perf stat --repeat
// and a Welch t test would.
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/experiment/comparison.h"
#include "harness/experiment/runner.h"
#include "harness/report/comparison_report.h"
#include "harness/suite/suite.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <ostream>
#include <tuple>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

// An argument as a shell reads it back: quoted when it holds more than
// the characters of names, paths and option values.
std::string shell_quoted(const std::string &arg)
{
	const bool plain = !arg.empty() && arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
								 "0123456789_./=:,%+-@{}") == std::string::npos;
	if (plain)
		return arg;
	std::string quoted = "'";
	for (const char c : arg)
		quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return quoted + "'";
}

po::options_description compare_options()
{
	po::options_description options("compare options");
	options.add_options()
		("help,h", "show this help")
		("suite", po::value<std::string>()->value_name("S"),
		 "compare every scenario of a suite (a JSON file, or the built-in default) instead of one")
		("repeat", po::value<Unsigned>()->default_value(Unsigned{5}, "5")->value_name("N"),
		 "runs per variant, with seeds 1..N")
		("jobs", po::value<Unsigned>()->value_name("J"),
		 "runs at once, each its own process (default: the machine's cores)")
		("alpha", po::value<double>()->default_value(0.01),
		 "significance level of the t test: p below it is a change")
		("cmdline", po::value<std::string>()->value_name("ARGS"), "kernel command line of both variants")
		("sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of both variants; repeatable")
		("feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of both variants; repeatable")
		("a-kernel", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
		 "variant A's kernel: an image (sched-harness kernel build), or a kernel tree or patch to "
		 "build one from; default: the build's own")
		("b-kernel", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"), "variant B's kernel")
		("a-cmdline", po::value<std::string>()->value_name("ARGS"), "added to variant A's command line")
		("a-sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of variant A only")
		("a-feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of variant A only")
		("b-cmdline", po::value<std::string>()->value_name("ARGS"), "added to variant B's command line")
		("b-sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of variant B only")
		("b-feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of variant B only")
		("json", po::bool_switch(), "print the comparison as JSON")
		("csv", po::bool_switch(), "print one CSV row per metric")
		("cover-letter", po::bool_switch(),
		 "print the table an LKML cover letter carries (benchmark; without: mean, RSD; with: mean "
		 "(delta), RSD), within 72 columns, with the line that reproduces it")
		("cover-metric", po::value<std::vector<std::string>>()->value_name("METRIC")->composing(),
		 "a row of the --cover-letter table; repeatable (default: energy_j)");
	options.add(scenario_options());
	options.add(engine_options());
	return options;
}

// A variant's options and kernel image (the tool's global --kernel, in
// front of `run`), "a-" or "b-".
experiment::Variant variant_of(const Context &ctx, const po::variables_map &vm, const std::string &prefix)
{
	experiment::Variant variant{variant_args(vm, prefix), {}, {}};
	const auto key = prefix + "kernel";
	if (!vm.count(key)) {
		// the global --kernel: this process and its runs boot that image
		if (const auto image = image::image_in_use()) {
			variant.kernel = {"--kernel", image->dir.string()};
			variant.image_id = image->manifest.id;
		}
		return variant;
	}
	const auto named = vm[key].as<std::string>();
	if (image::names_own_kernel(named)) {	// the build's own series by name: no image
		variant.kernel = {"--kernel", named};
		return variant;
	}
	try {
		variant.kernel = {"--kernel", image::resolve(named, ctx.err).string()};
	} catch (const std::invalid_argument &e) {
		throw UsageError{fmt::format("--{}: {}", key, e.what())};
	} catch (const image::BadPatch &e) {
		throw UsageError{fmt::format("--{}: {}", key, e.what())};
	}
	// the build's own kernel side (its series by name) has no manifest
	if (std::filesystem::exists(std::filesystem::path(variant.kernel[1]) / "manifest.json"))
		variant.image_id = image::read_manifest(variant.kernel[1]).id;
	return variant;
}

} // namespace

int compare_command(const Context &ctx, const std::vector<std::string> &args)
{
	const auto options = compare_options();
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness compare [--board B] [--workload W] [--duration T] | [--suite S]  [--repeat N] [--jobs J]\n"
		"              [--a-sysctl|--a-feature|--a-cmdline ...] [--b-sysctl|--b-feature|--b-cmdline ...]\n"
		"              [--json|--csv]\n\n"
		"Runs a scenario (or each of a suite's) N times (seeds 1..N) under two variants of the\n"
		"kernel's options, A and B,\n"
		"each run its own process, and prints per metric mean ± sd, RSD, the change from A to B,\n"
		"Welch's t test p and a verdict (changed, no evidence, identical). Warns when a variant\n"
		"gives the same value for every seed (its seeds are not independent samples) or when its\n"
		"values look bimodal. Example: the effect of EAS on the default scenario:\n"
		"  sched-harness compare --b-sysctl kernel.sched_energy_aware=0\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const auto engine = engine_of(vm);
	experiment::ComparisonPlan plan;
	plan.repeat = bounded_option(vm, "repeat", 100000);
	if (plan.repeat < 2)
		throw UsageError{fmt::format("--repeat {}: at least 2 runs per variant", plan.repeat)};
	plan.alpha = vm["alpha"].as<double>();
	if (!(plan.alpha > 0 && plan.alpha < 1))
		throw UsageError{fmt::format("--alpha {}: a probability between 0 and 1", plan.alpha)};
	if (int(vm["json"].as<bool>()) + int(vm["csv"].as<bool>()) + int(vm["cover-letter"].as<bool>()) > 1)
		throw UsageError{"--json, --csv and --cover-letter: choose one"};
	std::vector<std::string> cover_metrics{"energy_j"};
	if (vm.count("cover-metric")) {
		if (!vm["cover-letter"].as<bool>())
			throw UsageError{"--cover-metric: only with --cover-letter"};
		cover_metrics = vm["cover-metric"].as<std::vector<std::string>>();
		for (const auto &name : cover_metrics)
			if (!suite::find_metric(name))
				throw UsageError{fmt::format("--cover-metric {}: no such metric (sched-harness compare "
							     "--json lists them)", name)};
	}
	std::tie(plan.suite, plan.scenarios) = scenarios_of(vm);
	plan.variants = {variant_of(ctx, vm, "a-"), variant_of(ctx, vm, "b-")};

	const auto runs = plan.runs();
	std::vector<rapidjson::Document> reports;
	try {
		auto executed = experiment::execute(local_host(ctx), runs, engine);
		if (!executed)
			return exit_ok;	// runs elsewhere; --collect prints the table
		reports = std::move(*executed);
	} catch (const experiment::RunFailed &failure) {
		return report_failure(ctx, "compare", failure);
	}
	const auto results = experiment::compare_reports(plan, reports);
	if (vm["json"].as<bool>())
		ctx.out << report::comparison_json(plan, results);
	else if (vm["csv"].as<bool>())
		ctx.out << report::comparison_csv(results);
	else if (vm["cover-letter"].as<bool>()) {
		std::string command = "sched-harness compare";
		for (const auto &arg : args)
			command += " " + shell_quoted(arg);
		ctx.out << report::comparison_cover_letter(plan, results, cover_metrics, command);
	}
	else
		ctx.out << report::comparison_text(plan, results);
	return exit_ok;
}

} // namespace sh::cli
