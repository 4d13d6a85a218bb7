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
#include "harness/experiment/metrics.h"
#include "harness/experiment/runner.h"
#include "harness/report/tables.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <ostream>
#include <unistd.h>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

// The decisions of an ftrace text file: the events the fingerprint counts.
std::vector<std::string> decisions(const std::filesystem::path &trace)
{
	std::ifstream in(trace);
	std::vector<std::string> events;
	for (std::string line; std::getline(in, line);) {
		if (line.starts_with("#"))
			continue;
		for (const char *name : {": sched_switch: ", ": sched_wakeup: ", ": sched_wakeup_new: ",
					 ": sched_migrate_task: ", ": cpu_frequency: "}) {
			if (line.find(name) != std::string::npos) {
				events.push_back(line);
				break;
			}
		}
	}
	return events;
}

} // namespace

int diff_command(const Context &ctx, const std::vector<std::string> &args)
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
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness diff [--board B] [--workload W] [--duration T] [--seed N]\n"
		"              [--a-kernel ID] [--a-sysctl ...] [--b-kernel ID] [--b-sysctl ...] ...\n\n"
		"Runs one scenario and seed under A and B and prints the first decision (placement,\n"
		"switch, migration, frequency change) where they part, with the events before it, and\n"
		"the differences of their metrics.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;

	std::vector<std::string> scenario{"--board", vm["board"].as<std::string>(), "--workload",
					  vm["workload"].as<std::string>(), "--seed",
					  std::to_string(vm["seed"].as<Unsigned>().value)};
	for (const auto *name : {"duration", "jitter"})
		if (vm.count(name))
			scenario.insert(scenario.end(), {fmt::format("--{}", name), vm[name].as<std::string>()});
	const auto scratch = std::filesystem::temp_directory_path() / fmt::format("sched-harness-diff-{}", ::getpid());
	std::filesystem::create_directories(scratch);
	std::vector<experiment::Run> specs;
	std::string described[2];
	for (int side = 0; side < 2; side++) {
		const std::string prefix = side ? "b-" : "a-";
		experiment::Run spec{fmt::format("run {}", side ? 'B' : 'A'), scenario};
		experiment::append_run_args(spec.args, variant_args(vm, prefix));
		spec.args.insert(spec.args.end(), {"--trace", (scratch / fmt::format("{}.txt", side)).string()});
		if (vm.count(prefix + "kernel")) {
			try {
				spec.global = {"--kernel",
					       image::resolve(vm[prefix + "kernel"].as<std::string>(), ctx.err).string()};
			} catch (const std::invalid_argument &e) {
				throw UsageError{e.what()};
			} catch (const image::BadPatch &e) {
				throw UsageError{fmt::format("--{}kernel: {}", prefix, e.what())};
			}
		}
		std::vector<std::string> shown = spec.global;
		if (!shown.empty())
			shown[1] = image::read_manifest(shown[1]).id;
		const auto own = variant_args(vm, prefix);
		shown.insert(shown.end(), own.begin(), own.end());
		described[side] = shown.empty() ? "(the defaults)" : fmt::format("{}", fmt::join(shown, " "));
		specs.push_back(std::move(spec));
	}
	std::vector<rapidjson::Document> runs;
	try {
		runs = experiment::run_locally(local_host(ctx), specs, 2);
	} catch (const experiment::RunFailed &failure) {
		std::filesystem::remove_all(scratch);
		return report_failure(ctx, "diff", failure);
	}
	const auto a = decisions(scratch / "0.txt"), b = decisions(scratch / "1.txt");
	std::filesystem::remove_all(scratch);

	std::string out = fmt::format("sched-harness diff: {} on {}, seed {}\n  A: {}\n  B: {}\n",
				      runs[0]["workload"].GetString(), runs[0]["board"].GetString(),
				      vm["seed"].as<Unsigned>().value, described[0], described[1]);
	std::size_t i = 0;
	while (i < a.size() && i < b.size() && a[i] == b[i])
		i++;
	if (i == a.size() && i == b.size()) {
		out += fmt::format("\nThe same {} decisions: the runs are identical.\n", a.size());
	} else {
		out += fmt::format("\nThe decisions part at event {} (of {} in A, {} in B); before it, in both:\n", i + 1,
				   a.size(), b.size());
		const std::size_t context = bounded_option(vm, "context", 1000000);
		for (std::size_t k = i > context ? i - context : 0; k < i; k++)
			out += "    " + a[k] + "\n";
		out += "  A:\n    " + (i < a.size() ? a[i] : std::string("(no more events)")) + "\n";
		out += "  B:\n    " + (i < b.size() ? b[i] : std::string("(no more events)")) + "\n";
	}
	out += "\nMetrics (B - A):\n";
	auto metric = [&](const char *name, double va, double vb, const char *unit) {
		out += fmt::format("  {:<22} {:>14.4f} {:>14.4f} {:>+12.4f} {}\n", name, va, vb, vb - va, unit);
	};
	metric("energy", runs[0]["energy_j"].GetDouble(), runs[1]["energy_j"].GetDouble(), "J");
	metric("migrations", runs[0]["migrations"].GetDouble(), runs[1]["migrations"].GetDouble(), "");
	metric("context switches", runs[0]["context_switches"].GetDouble(), runs[1]["context_switches"].GetDouble(), "");
	metric("wake-up latency p99", runs[0]["wakeup_latency_ns"]["p99"].GetDouble() / 1e3,
	       runs[1]["wakeup_latency_ns"]["p99"].GetDouble() / 1e3, "us");
	metric("throughput", runs[0]["throughput"].GetDouble(), runs[1]["throughput"].GetDouble(), "x CPU");
	ctx.out << out;
	return exit_ok;
}

} // namespace sh::cli
