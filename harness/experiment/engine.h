// SPDX-License-Identifier: GPL-2.0
//
// Running a plan elsewhere than on this machine's cores: on a Slurm
// cluster as a job array, or as a list of commands for any other engine
// (GNU parallel over ssh, a CI matrix), each writing its reports into a
// directory the machines share; then collecting them back in the plan's
// order, so that the command prints the table a local run prints.
//
// The directory (--engine-dir) holds:
//   plan.jsonl          the plan (plan.h's JSON lines)
//   engine.json         how runs are grouped into tasks, and the command
//                       that runs a task
//   jobs.txt            one command per task (the job list)
//   reports/I.json      run I's report, as `run --json` printed it
//   reports/I.failed    or its exit status, then the node and its message
//   slurm/              the array's script and the tasks' logs
// A run that has a report or a failure is done; a directory can be
// submitted again with the same plan, and only the runs not done are.
// --engine local with --engine-dir keeps its reports there the same way,
// so that a local command interrupted part-way, run again, runs only the
// rest; without it a local run keeps them in memory.
#pragma once

#include "harness/experiment/plan.h"
#include "harness/experiment/runner.h"

#include <rapidjson/document.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

struct EngineOptions {
	enum class Kind { local, slurm, list };
	Kind kind = Kind::local;
	std::filesystem::path dir;	// shared by the nodes (slurm, list); local: kept, to resume
	unsigned jobs = 1;		// runs at once (a Slurm array's %limit)
	unsigned runs_per_task = 1;	// runs one array task (one job line) runs in turn
	unsigned retries = 2;		// resubmissions of the tasks whose runs have no result
	std::vector<std::string> sbatch_options;	// passed to sbatch as they are
	bool detach = false;		// slurm: submit, do not wait
	bool collect = false;		// only read what the directory holds
};

// Some runs of the plan have no result: never a table from part of them.
class RunsMissing : public Error {
public:
	using Error::Error;
};

// Runs the plan as `options` says. The reports in the plan's order, or
// nothing when they are not there yet (a job list written, a Slurm job
// submitted with detach: a message on host.err says what to do next).
// Throws RunFailed for the first run, in plan order, that failed;
// RunsMissing when runs have no result after the retries, naming them.
std::optional<std::vector<rapidjson::Document>> execute(const Host &host, std::span<const Run> plan,
							 const EngineOptions &options);

// `sched-harness engine-task DIR TASK`: runs task TASK of the plan in DIR
// (what a job line and an array task run) and writes its reports.
// `self` runs this program with the submitting command's global options.
// Returns the number of runs that failed.
int run_task(const std::vector<std::string> &self, const std::filesystem::path &dir, unsigned task);

} // namespace sh::experiment
