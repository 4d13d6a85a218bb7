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

boost::program_options::options_description engine_options()
{
	namespace po = boost::program_options;
	po::options_description options("engine options (where the runs run)");
	options.add_options()
		("engine", po::value<std::string>()->default_value("local")->value_name("local|slurm|list"),
		 "local: this machine's cores; slurm: a Slurm job array (sbatch), waited for; list: a job list "
		 "(one command a line) for GNU parallel or any other engine, collected with --collect")
		("engine-dir", po::value<std::string>()->value_name("DIR"),
		 "slurm, list: a directory the nodes share, for the plan and the runs' reports (with the image "
		 "cache, SCHED_HARNESS_CACHE, on a shared file system too); local: where the reports are kept as "
		 "each run ends, so that the same command run again after an interruption runs only the rest")
		("collect", po::value<std::string>()->value_name("DIR"),
		 "print the table from the reports DIR holds (after a job list's jobs, or a detached Slurm job) "
		 "without running anything")
		("detach", po::bool_switch(), "slurm: submit the array and return; --collect DIR when it has ended")
		("runs-per-task", po::value<Unsigned>()->value_name("K"),
		 "slurm, list: runs each array task or job line runs in turn (default 1, or as many as keep the "
		 "array within Slurm's default 1001 tasks)")
		("retries", po::value<Unsigned>()->default_value(Unsigned{2}, "2")->value_name("N"),
		 "slurm: times the tasks that left runs without a result (failed, timed out, lost their node) "
		 "are submitted again")
		("sbatch-option", po::value<std::vector<std::string>>()->value_name("OPT")->composing(),
		 "slurm: an option for sbatch, as --sbatch-option=--partition=P; repeatable");
	return options;
}

experiment::EngineOptions engine_of(const boost::program_options::variables_map &vm)
{
	using Kind = experiment::EngineOptions::Kind;
	experiment::EngineOptions engine;
	const auto kind = vm["engine"].as<std::string>();
	if (kind == "local")
		engine.kind = Kind::local;
	else if (kind == "slurm")
		engine.kind = Kind::slurm;
	else if (kind == "list")
		engine.kind = Kind::list;
	else
		throw UsageError{fmt::format("--engine {}: local, slurm or list", kind)};
	if (vm.count("collect")) {
		if (vm.count("engine-dir") && vm["engine-dir"].as<std::string>() != vm["collect"].as<std::string>())
			throw UsageError{"--collect DIR and --engine-dir: the same directory, once"};
		engine.dir = vm["collect"].as<std::string>();
		engine.collect = true;
		if (engine.kind == Kind::local)
			engine.kind = Kind::list;
	} else if (vm.count("engine-dir")) {
		engine.dir = vm["engine-dir"].as<std::string>();
		if (engine.dir.empty())
			throw UsageError{"--engine-dir: an empty path"};
	} else if (engine.kind != Kind::local) {
		throw UsageError{fmt::format("--engine {}: give --engine-dir DIR, a directory the nodes share", kind)};
	}
	if (engine.dir.empty() && engine.kind != Kind::local)
		throw UsageError{"--engine-dir: an empty path"};
	engine.detach = vm["detach"].as<bool>();
	if (engine.detach && engine.kind != Kind::slurm)
		throw UsageError{"--detach: for --engine slurm"};
	// a Slurm array's default limit: a share of a cluster, not this machine's cores
	engine.jobs = vm.count("jobs") || engine.kind == Kind::local ? jobs_option(vm) : 100;
	if (vm.count("runs-per-task")) {
		engine.runs_per_task = bounded_option(vm, "runs-per-task", 1000000);
		if (!engine.runs_per_task)
			throw UsageError{"--runs-per-task 0: at least 1"};
	}
	engine.retries = bounded_option(vm, "retries", 100);
	if (vm.count("sbatch-option"))
		engine.sbatch_options = vm["sbatch-option"].as<std::vector<std::string>>();
	if (engine.kind != Kind::slurm && (vm.count("sbatch-option") || !vm["retries"].defaulted()))
		throw UsageError{"--sbatch-option and --retries: for --engine slurm"};
	return engine;
}

std::vector<std::string> engine_args(const boost::program_options::variables_map &vm, const std::filesystem::path &dir)
{
	const auto kind = vm["engine"].as<std::string>();
	if (kind == "local")	// the reports kept in a directory of the step's own, if asked
		return vm.count("engine-dir") ? std::vector<std::string>{"--engine-dir", dir.string()}
					      : std::vector<std::string>{};
	std::vector<std::string> args{"--engine", kind, "--engine-dir", dir.string()};
	if (vm.count("runs-per-task"))
		args.insert(args.end(), {"--runs-per-task", std::to_string(vm["runs-per-task"].as<Unsigned>().value)});
	if (!vm["retries"].defaulted())
		args.insert(args.end(), {"--retries", std::to_string(vm["retries"].as<Unsigned>().value)});
	if (vm.count("sbatch-option"))
		for (const auto &option : vm["sbatch-option"].as<std::vector<std::string>>())
			args.push_back("--sbatch-option=" + option);
	return args;
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
