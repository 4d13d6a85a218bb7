// SPDX-License-Identifier: GPL-2.0
//
// sched-harness diff [scenario | --suite S [--scenario NAME]...] [--a-OPTION ...] [--b-OPTION ...] [--seed N]
//
// Two runs of a scenario and seed, under two kernels or option sets: where
// their decisions first part (the first placement, switch, migration or
// frequency change that differs, with the events before it and the kernel
// functions it fired in), and how their metrics differ. Exit 1 when some
// scenario's decisions differ, as diff(1) exits.
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/experiment/diff.h"
#include "harness/experiment/runner.h"
#include "harness/image/image.h"
#include "harness/suite/metrics.h"
#include "support/tools.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

po::options_description diff_options()
{
	po::options_description options("diff options");
	options.add_options()
		("help,h", "show this help")
		("suite", po::value<std::string>()->value_name("S"),
		 "diff every scenario of a suite (a JSON file, or the built-in default) instead of one")
		("scenario", po::value<std::vector<std::string>>()->value_name("NAME")->composing(),
		 "with --suite: only this scenario; repeatable")
		("seed", po::value<Unsigned>()->default_value(Unsigned{0}, "0"), "the seed of both runs")
		("context", po::value<Unsigned>()->default_value(Unsigned{3}, "3")->value_name("N"),
		 "common events shown before the first difference")
		("stack", po::value<Unsigned>()->default_value(Unsigned{8}, "8")->value_name("N"),
		 "kernel functions shown for each side's first differing event (0: none)")
		("cmdline", po::value<std::string>()->value_name("ARGS"), "kernel command line of both runs")
		("sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of both runs; repeatable")
		("feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of both runs; repeatable");
	for (const std::string side : {"a", "b"}) {
		const auto name = side == "a" ? 'A' : 'B';
		options.add_options()
			((side + "-kernel").c_str(), po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
			 fmt::format("run {}'s kernel (an image, or a tree or patch to build one from)", name).c_str())
			((side + "-cmdline").c_str(), po::value<std::string>()->value_name("ARGS"),
			 fmt::format("added to run {}'s kernel command line", name).c_str())
			((side + "-sysctl").c_str(), po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
			 fmt::format("a sysctl of run {}", name).c_str())
			((side + "-feature").c_str(), po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
			 fmt::format("a scheduler feature of run {}", name).c_str());
	}
	options.add(scenario_options());
	return options;
}

// A side's kernel and options: the image (--a-kernel, else the global
// --kernel) in front of `run`, and the heading's words for them.
struct Side {
	std::vector<std::string> global;
	std::vector<std::string> args;
	std::string described;
};

Side side_of(const Context &ctx, const po::variables_map &vm, int side)
{
	const std::string prefix = side ? "b-" : "a-";
	Side s{{}, variant_args(vm, prefix), {}};
	std::string image_id;
	if (vm.count(prefix + "kernel")) {
		try {
			const auto dir = image::resolve(vm[prefix + "kernel"].as<std::string>(), ctx.err);
			s.global = {"--kernel", dir.string()};
			if (std::filesystem::exists(dir / "manifest.json"))	// not the build's own (its series by name)
				image_id = image::read_manifest(dir).id;
		} catch (const std::invalid_argument &e) {
			throw UsageError{e.what()};
		} catch (const image::BadPatch &e) {
			throw UsageError{fmt::format("--{}kernel: {}", prefix, e.what())};
		}
	} else if (const auto image = image::image_in_use()) {
		s.global = {"--kernel", image->dir.string()};
		image_id = image->manifest.id;
	}
	std::vector<std::string> shown;
	if (!image_id.empty())
		shown = {"--kernel", image_id};
	shown.insert(shown.end(), s.args.begin(), s.args.end());
	s.described = shown.empty() ? "(the defaults)" : fmt::format("{}", fmt::join(shown, " "));
	return s;
}

// Both sides' runs of a scenario, each with its trace of the decisions;
// `until_ns`: cut short there, with the kernel's stacks (--trace-stacktrace).
struct Traced {
	std::vector<rapidjson::Document> reports;
	std::array<std::vector<experiment::Decision>, 2> decisions;
};

Traced run_both(const Context &ctx, const std::array<Side, 2> &sides, const std::vector<std::string> &scenario,
		unsigned seed, std::optional<std::int64_t> until_ns)
{
	support::TempDir dir;
	experiment::Plan plan;
	for (int side = 0; side < 2; side++) {
		experiment::Run run{fmt::format("run {}", side ? 'B' : 'A'), {"--seed", std::to_string(seed)},
				    sides[side].global};
		experiment::append_run_args(run.args, scenario);
		experiment::append_run_args(run.args, sides[side].args);
		run.args.insert(run.args.end(), {"--trace", (dir.path() / fmt::format("{}.txt", side)).string(),
						 "--trace-events", experiment::decision_events});
		if (until_ns) {
			for (auto it = run.args.begin(); it != run.args.end();)
				it = *it == "--duration" && it + 1 != run.args.end() ? run.args.erase(it, it + 2) : it + 1;
			run.args.insert(run.args.end(),
					{"--trace-stacktrace", "--duration", fmt::format("{}ns", *until_ns)});
		}
		plan.push_back(std::move(run));
	}
	Traced traced{experiment::run_locally(local_host(ctx), plan, 2), {}};
	for (int side = 0; side < 2; side++)
		traced.decisions[side] = experiment::decisions(dir.path() / fmt::format("{}.txt", side));
	return traced;
}

std::string stack_lines(const experiment::Decision &d, std::size_t max)
{
	std::string out;
	for (std::size_t k = 0; k < d.stack.size() && k < max; k++)
		out += fmt::format("       => {}\n", d.stack[k]);
	return out;
}

// Where the decisions part, with --context common events before it and
// each side's event with the kernel functions it fired in.
std::string parting(const Traced &traced, std::size_t i, std::size_t context, std::size_t stack)
{
	const auto &a = traced.decisions[0], &b = traced.decisions[1];
	std::string out = fmt::format("  the decisions part at event {} (of {} in A, {} in B); before it, in both:\n",
				      i + 1, a.size(), b.size());
	for (std::size_t k = i > context ? i - context : 0; k < i; k++)
		out += "    " + a[k].line + "\n";
	for (int side = 0; side < 2; side++) {
		const auto &d = traced.decisions[side];
		out += fmt::format("  {}:\n    {}\n", side ? 'B' : 'A', i < d.size() ? d[i].line : "(no more events)");
		if (i < d.size())
			out += stack_lines(d[i], stack);
	}
	return out;
}

// The metrics compare shows, A's, B's and the change; n/a where a run has
// none.
std::string metrics_table(const rapidjson::Document &a, const rapidjson::Document &b)
{
	std::string out = fmt::format("    {:<25} {:>14} {:>14} {:>14}\n", "metric", "A", "B", "B - A");
	auto cell = [](std::optional<double> v) { return v ? fmt::format("{:.4f}", *v) : std::string("n/a"); };
	for (const auto &m : suite::run_metrics()) {
		if (!m.compared)
			continue;
		const auto va = m.read(a), vb = m.read(b);
		if (m.only_when_nonzero && va.value_or(0) == 0 && vb.value_or(0) == 0)
			continue;
		if (!va && !vb && !m.absent)
			continue;	// not a metric of this workload (completion of an endless one)
		out += fmt::format("    {:<25} {:>14} {:>14} {:>14}\n", m.name, cell(va), cell(vb),
				   va && vb ? fmt::format("{:+.4f}", *vb - *va) : std::string("n/a"));
	}
	return out;
}

// One scenario's section of the report, and the kernels its runs booted;
// whether its decisions differ.
bool diff_scenario(const Context &ctx, const po::variables_map &vm, const std::array<Side, 2> &sides,
		   const experiment::Scenario &scenario, std::string &out, std::array<std::string, 2> &kernels)
{
	const unsigned seed = vm["seed"].as<Unsigned>().value;
	auto traced = run_both(ctx, sides, scenario.args, seed, std::nullopt);
	const auto &reports = traced.reports;
	for (int side = 0; side < 2; side++)
		kernels[side] = experiment::kernel_ran(reports[side]);
	out += fmt::format("\n{}{} on {}, {} s\n", scenario.name.empty() ? "" : scenario.name + ": ",
			   reports[0]["workload"].GetString(), reports[0]["board"].GetString(),
			   reports[0]["duration_ns"].GetDouble() / 1e9);
	const std::size_t i = experiment::first_difference(traced.decisions[0], traced.decisions[1]);
	const std::size_t timing = experiment::first_timing_difference(traced.decisions[0], traced.decisions[1]);
	const bool decide_alike = i == traced.decisions[0].size() && i == traced.decisions[1].size();
	const bool differ = !decide_alike || timing != i;
	// kernel code takes time: the same decisions can come at other times
	const auto timing_line = [&] {
		return fmt::format("event {} ({:.6f} s in A, {:.6f} s in B)", timing,
				   static_cast<double>(traced.decisions[0][timing].time_ns) / 1e9,
				   static_cast<double>(traced.decisions[1][timing].time_ns) / 1e9);
	};
	if (decide_alike && !differ) {
		out += fmt::format("  the same {} decisions: the runs are identical\n", traced.decisions[0].size());
	} else if (decide_alike) {
		out += fmt::format("  the same {} decisions, at other times: the first at {}\n",
				   traced.decisions[0].size(), timing_line());
	} else {
		if (timing < i)
			out += fmt::format("  the times part first, at {}\n", timing_line());
		const std::size_t stack = bounded_option(vm, "stack", 1000);
		if (stack) {
			// again, up to just after the first difference, with the
			// kernel's stacks (an unwind per event: not for the whole run)
			std::int64_t at = 0;
			for (const auto &d : traced.decisions)
				if (i < d.size())
					at = std::max(at, d[i].time_ns);
			auto stacked = run_both(ctx, sides, scenario.args, seed, at + 1000);
			// the shorter runs decide alike up to there, or their stacks are not shown
			if (experiment::first_difference(stacked.decisions[0], stacked.decisions[1]) == i &&
			    std::equal(stacked.decisions[0].begin(), stacked.decisions[0].begin() + static_cast<long>(i),
				       traced.decisions[0].begin(),
				       [](const auto &x, const auto &y) { return x.line == y.line; }))
				for (int side = 0; side < 2; side++)
					for (std::size_t k = i; k < traced.decisions[side].size() &&
								k < stacked.decisions[side].size(); k++)
						traced.decisions[side][k].stack = stacked.decisions[side][k].stack;
		}
		out += parting(traced, i, bounded_option(vm, "context", 1000000), stack);
	}
	out += "  metrics:\n" + metrics_table(reports[0], reports[1]);
	return differ;
}

} // namespace

int diff_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, diff_options(), hidden, positional,
		"usage: sched-harness diff [--board B] [--workload W] [--duration T] | [--suite S [--scenario NAME]...]\n"
		"              [--seed N] [--a-kernel ID] [--a-sysctl ...] [--b-kernel ID] [--b-sysctl ...] ...\n\n"
		"Runs a scenario (or each of a suite's) with one seed under A and B and prints the first\n"
		"decision (placement, switch, migration, frequency change) where they part, with the\n"
		"events before it and the kernel functions each side's event fired in, and their metrics.\n"
		"Exit status 0 when every scenario's decisions are the same, 1 when some differ.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	auto [suite, scenarios] = scenarios_of(vm);
	if (vm.count("scenario")) {
		if (!vm.count("suite"))
			throw UsageError{"--scenario: for --suite (it names one of the suite's scenarios)"};
		std::vector<experiment::Scenario> chosen;
		for (const auto &name : vm["scenario"].as<std::vector<std::string>>()) {
			const auto it = std::find_if(scenarios.begin(), scenarios.end(),
						     [&](const auto &sc) { return sc.name == name; });
			if (it == scenarios.end())
				throw UsageError{fmt::format("--scenario {}: {} has no scenario of that name", name, suite)};
			chosen.push_back(*it);
		}
		scenarios = std::move(chosen);
	}
	const std::array<Side, 2> sides{side_of(ctx, vm, 0), side_of(ctx, vm, 1)};

	std::string out;
	bool differ = false;
	std::array<std::string, 2> kernels;
	for (const auto &scenario : scenarios) {
		try {
			differ |= diff_scenario(ctx, vm, sides, scenario, out, kernels);
		} catch (const experiment::RunFailed &failure) {
			return report_failure(ctx, "diff", failure);
		}
	}
	ctx.out << fmt::format("sched-harness diff: {}seed {}\n  A: {}\n     kernel: {}\n  B: {}\n     kernel: {}\n",
			       suite.empty() ? "" : fmt::format("suite {}, ", suite), vm["seed"].as<Unsigned>().value,
			       sides[0].described, kernels[0], sides[1].described, kernels[1])
		<< out;
	return differ ? 1 : exit_ok;
}

} // namespace sh::cli
