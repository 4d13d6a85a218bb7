// SPDX-License-Identifier: GPL-2.0
//
// What the commands that run experiments (compare, sweep, check, diff,
// bisect) share on the command line: the scenario and variant options,
// --jobs, the host the runs start on, and how a failed run ends the
// command.
#pragma once

#include "harness/cli/cli.h"
#include "harness/experiment/comparison.h"
#include "harness/experiment/engine.h"
#include "harness/experiment/runner.h"

#include <boost/program_options.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::cli {

// This program, with the global options it was given (--kernel-src,
// --arch), to run a subcommand as a child process.
std::vector<std::string> self_command(const Context &ctx);
// Where the runs of an experiment start: this machine, as `ctx` was given.
experiment::Host local_host(const Context &ctx);

// A variant's kernel options from `vm`: --sysctl and --feature of both
// variants then of `prefix` ("a-", "b-"), and one --cmdline joining the
// common words and the variant's. Options `vm` does not have are skipped.
std::vector<std::string> variant_args(const boost::program_options::variables_map &vm, const std::string &prefix);

// --jobs, or the machine's cores.
unsigned jobs_option(const boost::program_options::variables_map &vm);

// Where the runs run (--engine local|slurm|list, --engine-dir, --collect,
// --detach, --runs-per-task, --retries, --sbatch-option), and what the
// options say; --jobs is the number at once, here or in a Slurm array.
boost::program_options::options_description engine_options();
experiment::EngineOptions engine_of(const boost::program_options::variables_map &vm);
// The engine options given, for a child command (bisect's steps) whose
// runs go to `dir`.
std::vector<std::string> engine_args(const boost::program_options::variables_map &vm, const std::filesystem::path &dir);

// The options that name one scenario as `run` takes them (--board,
// --overlay, --workload, --duration, ...), for commands that run it many
// times (compare, sweep); and their values as `run` arguments, the board's
// and workload's defaults included. Values are passed through unchecked:
// each run checks its own.
boost::program_options::options_description scenario_options();
std::vector<std::string> scenario_args(const boost::program_options::variables_map &vm);
// The scenario options given on the command line (not defaulted).
std::vector<std::string> given_scenario_options(const boost::program_options::variables_map &vm);

// The scenarios of --suite S (its name and each scenario's run options),
// or, without it, the one scenario_args() names. A scenario option beside
// --suite is bad input.
std::pair<std::string, std::vector<experiment::Scenario>>
scenarios_of(const boost::program_options::variables_map &vm);

// Maps a RunFailed to the tool's exit: bad input throws UsageError,
// anything else prints the message and returns the run's status.
int report_failure(const Context &ctx, std::string_view command, const experiment::RunFailed &failure);

} // namespace sh::cli
