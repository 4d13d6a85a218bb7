// SPDX-License-Identifier: GPL-2.0
//
// sched-harness diff [scenario] [--a-OPTION ...] [--b-OPTION ...] [--seed N]
//
// Two runs of one scenario and seed, under two kernels or option sets:
// where their decisions first part (the first placement, switch, migration
// or frequency change that differs, with the events before it), and how
// their metrics differ.
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/experiment/diff.h"
#include "harness/experiment/runner.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>
#include <unistd.h>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

po::options_description diff_options()
{
	po::options_description options("diff options");
	options.add_options()
		("help,h", "show this help")
		("board", po::value<std::string>()->default_value(default_board), "as for run")
		("workload", po::value<std::string>()->default_value("periodic:count=24,period=16ms,duty=10%"),
		 "as for run")
		("duration", po::value<std::string>()->value_name("T"), "as for run")
		("jitter", po::value<std::string>()->value_name("X"), "as for run")
		("seed", po::value<Unsigned>()->default_value(Unsigned{0}, "0"), "the seed of both runs")
		("context", po::value<Unsigned>()->default_value(Unsigned{3}, "3")->value_name("N"),
		 "common events shown before the first difference");
	for (const std::string side : {"a", "b"}) {
		const auto name = side == "a" ? 'A' : 'B';
		options.add_options()
			((side + "-kernel").c_str(), po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
			 fmt::format("run {}'s kernel (an image, or a tree or patch to build one from)", name).c_str())
			((side + "-cmdline").c_str(), po::value<std::string>()->value_name("ARGS"),
			 fmt::format("run {}'s kernel command line", name).c_str())
			((side + "-sysctl").c_str(), po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
			 fmt::format("a sysctl of run {}", name).c_str())
			((side + "-feature").c_str(), po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
			 fmt::format("a scheduler feature of run {}", name).c_str());
	}
	return options;
}

// The scenario both runs share, as `run` arguments.
std::vector<std::string> scenario_of(const po::variables_map &vm)
{
	std::vector<std::string> scenario{"--board", vm["board"].as<std::string>(), "--workload",
					  vm["workload"].as<std::string>(), "--seed",
					  std::to_string(vm["seed"].as<Unsigned>().value)};
	for (const auto *name : {"duration", "jitter"})
		if (vm.count(name))
			scenario.insert(scenario.end(), {fmt::format("--{}", name), vm[name].as<std::string>()});
	return scenario;
}

struct Side {
	experiment::Run run;
	std::string described;	// its kernel and options, for the heading
};

// Run A (side 0) or B, its trace written to `trace`.
Side side_of(const Context &ctx, const po::variables_map &vm, int side, const std::vector<std::string> &scenario,
	     const std::filesystem::path &trace)
{
	const std::string prefix = side ? "b-" : "a-";
	experiment::Run run{fmt::format("run {}", side ? 'B' : 'A'), scenario};
	experiment::append_run_args(run.args, variant_args(vm, prefix));
	run.args.insert(run.args.end(), {"--trace", trace.string()});
	if (vm.count(prefix + "kernel")) {
		try {
			run.global = {"--kernel", image::resolve(vm[prefix + "kernel"].as<std::string>(), ctx.err).string()};
		} catch (const std::invalid_argument &e) {
			throw UsageError{e.what()};
		} catch (const image::BadPatch &e) {
			throw UsageError{fmt::format("--{}kernel: {}", prefix, e.what())};
		}
	}
	std::vector<std::string> shown = run.global;
	if (!shown.empty())
		shown[1] = image::read_manifest(shown[1]).id;
	const auto own = variant_args(vm, prefix);
	shown.insert(shown.end(), own.begin(), own.end());
	return {std::move(run), shown.empty() ? "(the defaults)" : fmt::format("{}", fmt::join(shown, " "))};
}

// Where the decisions part, with --context common events before it.
std::string parting(std::span<const std::string> a, std::span<const std::string> b, const po::variables_map &vm)
{
	const std::size_t i = experiment::first_difference(a, b);
	if (i == a.size() && i == b.size())
		return fmt::format("\nThe same {} decisions: the runs are identical.\n", a.size());
	std::string out = fmt::format("\nThe decisions part at event {} (of {} in A, {} in B); before it, in both:\n",
				      i + 1, a.size(), b.size());
	const std::size_t context = bounded_option(vm, "context", 1000000);	// read only when events are shown
	for (std::size_t k = i > context ? i - context : 0; k < i; k++)
		out += "    " + a[k] + "\n";
	out += "  A:\n    " + (i < a.size() ? a[i] : std::string("(no more events)")) + "\n";
	out += "  B:\n    " + (i < b.size() ? b[i] : std::string("(no more events)")) + "\n";
	return out;
}

} // namespace

int diff_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, diff_options(), hidden, positional,
		"usage: sched-harness diff [--board B] [--workload W] [--duration T] [--seed N]\n"
		"              [--a-kernel ID] [--a-sysctl ...] [--b-kernel ID] [--b-sysctl ...] ...\n\n"
		"Runs one scenario and seed under A and B and prints the first decision (placement,\n"
		"switch, migration, frequency change) where they part, with the events before it, and\n"
		"the differences of their metrics.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;

	const auto scenario = scenario_of(vm);
	const auto scratch = std::filesystem::temp_directory_path() / fmt::format("sched-harness-diff-{}", ::getpid());
	std::filesystem::create_directories(scratch);
	const Side a = side_of(ctx, vm, 0, scenario, scratch / "0.txt");
	const Side b = side_of(ctx, vm, 1, scenario, scratch / "1.txt");
	std::vector<rapidjson::Document> runs;
	try {
		runs = experiment::run_locally(local_host(ctx), std::vector{a.run, b.run}, 2);
	} catch (const experiment::RunFailed &failure) {
		std::filesystem::remove_all(scratch);
		return report_failure(ctx, "diff", failure);
	}
	const auto decisions_a = experiment::decisions(scratch / "0.txt");
	const auto decisions_b = experiment::decisions(scratch / "1.txt");
	std::filesystem::remove_all(scratch);

	std::string out = fmt::format("sched-harness diff: {} on {}, seed {}\n  A: {}\n  B: {}\n",
				      runs[0]["workload"].GetString(), runs[0]["board"].GetString(),
				      vm["seed"].as<Unsigned>().value, a.described, b.described);
	out += parting(decisions_a, decisions_b, vm);
	out += "\nMetrics (B - A):\n";
	for (const auto &m : experiment::compared_metrics(runs[0], runs[1]))
		out += fmt::format("  {:<22} {:>14.4f} {:>14.4f} {:>+12.4f} {}\n", m.name, m.a, m.b, m.b - m.a, m.unit);
	ctx.out << out;
	return exit_ok;
}

} // namespace sh::cli
