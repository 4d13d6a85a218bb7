// SPDX-License-Identifier: GPL-2.0
#include "harness/cli/experiment_options.h"

#include "harness/suite/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <thread>

namespace sh::cli {

std::vector<std::string> self_command(const Context &ctx)
{
	std::vector<std::string> self{std::filesystem::read_symlink("/proc/self/exe").string(), "--kernel-src",
				      ctx.kernel_tree.string()};
	if (ctx.arch)
		self.insert(self.end(), {"--arch", *ctx.arch == dts::Arch::arm ? "arm" : "arm64"});
	return self;
}

experiment::Host local_host(const Context &ctx)
{
	return {self_command(ctx), ctx.kernel_tree, ctx.arch, ctx.err};
}

std::vector<std::string> variant_args(const boost::program_options::variables_map &vm, const std::string &prefix)
{
	std::vector<std::string> args;
	for (const std::string name : {"sysctl", "feature"}) {
		for (const auto &key : {name, prefix + name})
			if (vm.count(key))
				for (const auto &v : vm[key].as<std::vector<std::string>>())
					args.insert(args.end(), {"--" + name, v});
	}
	std::string cmdline;
	for (const auto &key : {std::string("cmdline"), prefix + "cmdline"})
		if (vm.count(key))
			cmdline += (cmdline.empty() ? "" : " ") + vm[key].as<std::string>();
	if (!cmdline.empty())
		args.insert(args.end(), {"--cmdline", cmdline});
	return args;
}

unsigned jobs_option(const boost::program_options::variables_map &vm)
{
	if (!vm.count("jobs"))
		return std::max(std::thread::hardware_concurrency(), 1u);
	const unsigned jobs = bounded_option(vm, "jobs", 1024);
	if (jobs == 0)	// neither "one" nor "all cores": say which is meant
		throw UsageError{"--jobs 0: at least 1 (without --jobs, every core)"};
	return jobs;
}

namespace {

// Scenario options with one value each, and the repeatable ones.
constexpr const char *single_options[] = {"duration", "fork-cpu", "idle-tick", "jitter", "thermal-file",
					  "thermal-governor", "board-power", "kernel-cycles-per-block", "kernel-time",
					  "ipi-latency", "irq-entry-latency", "wfi-exit-latency"};
constexpr const char *repeatable_options[] = {"overlay", "thermal-cap", "thermal-model"};


} // namespace

boost::program_options::options_description scenario_options()
{
	namespace po = boost::program_options;
	po::options_description options("scenario options (as for run)");
	options.add_options()
		("board", po::value<std::string>()->default_value(default_board), "as for run")
		("overlay", po::value<std::vector<std::string>>()->value_name("FILE")->composing(), "as for run")
		("workload", po::value<std::string>()->default_value("periodic:count=24,period=16ms,duty=10%"),
		 "as for run")
		("duration", po::value<std::string>()->value_name("T"), "as for run")
		("fork-cpu", po::value<std::string>()->value_name("CPU"), "as for run")
		("idle-tick", po::value<std::string>()->value_name("kernel|retain|stop"), "as for run")
		("jitter", po::value<std::string>()->value_name("X"), "as for run (default 1: seeds vary the runs)")
		("thermal-cap", po::value<std::vector<std::string>>()->value_name("CPUS=KHZ@T")->composing(),
		 "as for run; repeatable")
		("thermal-model", po::value<std::vector<std::string>>()->value_name("SPEC")->composing(),
		 "as for run; repeatable")
		("thermal-file", po::value<std::string>()->value_name("FILE"), "as for run")
		("thermal-governor", po::value<std::string>()->value_name("NAME"), "as for run")
		("board-power", po::value<std::string>()->value_name("FILE"), "as for run")
		("kernel-time", po::value<std::string>()->value_name("on|off"), "as for run")
		("ipi-latency", po::value<std::string>()->value_name("T"), "as for run")
		("irq-entry-latency", po::value<std::string>()->value_name("T"), "as for run")
		("wfi-exit-latency", po::value<std::string>()->value_name("T"), "as for run")
		("kernel-cycles-per-block", po::value<std::string>()->value_name("X"), "as for run");
	return options;
}

std::vector<std::string> scenario_args(const boost::program_options::variables_map &vm)
{
	std::vector<std::string> args{"--board", vm["board"].as<std::string>(), "--workload",
				      vm["workload"].as<std::string>()};
	for (const auto *name : repeatable_options)
		if (vm.count(name))
			for (const auto &o : vm[name].as<std::vector<std::string>>())
				args.insert(args.end(), {fmt::format("--{}", name), o});
	for (const auto *name : single_options)
		if (vm.count(name))
			args.insert(args.end(), {fmt::format("--{}", name), vm[name].as<std::string>()});
	return args;
}

std::vector<std::string> given_scenario_options(const boost::program_options::variables_map &vm)
{
	std::vector<std::string> given;
	const auto options = scenario_options();
	for (const auto &option : options.options())
		if (const auto &name = option->long_name(); vm.count(name) && !vm[name].defaulted())
			given.push_back(name);
	return given;
}

std::pair<std::string, std::vector<experiment::Scenario>> scenarios_of(const boost::program_options::variables_map &vm)
{
	if (!vm.count("suite"))
		return {"", {{"", scenario_args(vm)}}};
	if (const auto given = given_scenario_options(vm); !given.empty())
		throw UsageError{fmt::format("--suite and --{}: a suite names its scenarios", given.front())};
	try {
		const auto suite = suite::load(vm["suite"].as<std::string>());
		std::vector<experiment::Scenario> scenarios;
		for (const auto &sc : suite.scenarios)
			scenarios.push_back({sc.name, sc.run_args});
		return {suite.name, std::move(scenarios)};
	} catch (const suite::Error &e) {
		throw UsageError{e.what()};
	}
}

int report_failure(const Context &ctx, std::string_view command, const experiment::RunFailed &failure)
{
	if (failure.status == exit_bad_input)
		throw UsageError{failure.message};
	ctx.err << "sched-harness " << command << ": " << failure.message << "\n";
	return failure.status > 0 ? failure.status : exit_internal;
}

} // namespace sh::cli
