// SPDX-License-Identifier: GPL-2.0
//
// Running a plan on this machine: many `sched-harness run --json`
// processes at once (one simulation per process: kernel globals are per
// process), their reports collected in the plan's order.
#pragma once

#include "dts/platform.h"
#include "harness/experiment/plan.h"

#include <rapidjson/document.h>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

// A run that did not succeed: its label and message, and its exit status
// (2: the variant or scenario is bad input; 3: the kernel faulted).
struct RunFailed {
	std::string message;
	int status;
};

// How a run is started here: this program with the global options it was
// given (--kernel-src, --arch), and where progress and image builds speak.
struct Host {
	std::vector<std::string> self;
	std::filesystem::path kernel_tree;
	std::optional<dts::Arch> arch;
	std::ostream &err;
};

// Builds, before the runs start, the flavour libraries the plan's images
// need for its boards: once and in view, rather than by the first run.
void build_needed_flavours(const Host &host, std::span<const Run> plan);

// The command line that runs `run` here.
std::vector<std::string> run_command(const Host &host, const Run &run);

// What a failed run's standard error says, less the progress of image
// builds and the run's own "sched-harness: error: " prefix.
std::string failure_message(const std::string &err);

// Calls run(k) once for each k in [0, count), on up to `jobs` threads, in
// the order of k as threads free up. Once a call returns false or throws,
// no new one starts; the first exception is rethrown when all have ended.
void for_each_on_cores(std::size_t count, unsigned jobs, const std::function<bool(std::size_t)> &run);

// Runs every run of the plan, `jobs` at a time; the reports in the plan's
// order. Throws RunFailed for the first that fails. A progress line goes
// to stderr when it is a terminal.
std::vector<rapidjson::Document> run_locally(const Host &host, std::span<const Run> plan, unsigned jobs);

} // namespace sh::experiment
