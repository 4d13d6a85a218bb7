// SPDX-License-Identifier: GPL-2.0
//
// sched-harness engine-task DIR TASK
//
// One task of a plan written for another engine (--engine slurm|list):
// what a line of DIR/jobs.txt and an array task of the Slurm job run. It
// runs the task's runs in turn, each its own process, and writes each
// one's report (or its failure) into DIR/reports.
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/experiment/engine.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

namespace po = boost::program_options;

namespace sh::cli {

int engine_task_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("engine-task options");
	options.add_options()("help,h", "show this help");
	po::options_description hidden;
	hidden.add_options()
		("dir", po::value<std::string>()->required(), "the engine directory")
		("task", po::value<Unsigned>()->required(), "the task");
	po::positional_options_description positional;
	positional.add("dir", 1).add("task", 1);
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness engine-task DIR TASK\n\n"
		"Runs task TASK of the plan a command wrote into DIR for another engine (--engine slurm|list):\n"
		"what each line of DIR/jobs.txt, and each array task of the Slurm job, runs. Each run's report,\n"
		"or its failure, goes to DIR/reports; the command that wrote DIR collects them (--collect DIR).\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const unsigned task = bounded_option(vm, "task", 1u << 30);
	try {
		const int failed = experiment::run_task(self_command(ctx), vm["dir"].as<std::string>(), task);
		if (failed)
			ctx.err << fmt::format("sched-harness engine-task: {} run{} of task {} failed (reports/*.failed "
					       "say how)\n",
					       failed, failed > 1 ? "s" : "", task);
	} catch (const experiment::Error &e) {
		throw UsageError{e.what()};
	}
	return exit_ok;
}

} // namespace sh::cli
