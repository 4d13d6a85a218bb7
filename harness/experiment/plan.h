// SPDX-License-Identifier: GPL-2.0
//
// A plan of runs: what compare, sweep, check, diff and bisect execute, as a
// value. Each run is one `sched-harness run --json` process (one simulation
// per process: kernel globals are per process); a plan can be written out
// as JSON lines and read back, so that the runs can be handed to another
// executor than this machine's (runner.h) and their reports collected.
#pragma once

#include <rapidjson/document.h>

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sh::experiment {

// The board `run` boots when none is named (and the commands that run it).
inline constexpr const char *default_board = "odroid-xu3";

struct Run {
	std::string label;		// what to call the run in a message
	std::vector<std::string> args;	// after `run --json`
	std::vector<std::string> global = {};	// before `run` (--kernel DIR)

	bool operator==(const Run &) const = default;
};

// Runs in the order they are started; an experiment reads its reports by
// index (its scenarios, variants and seeds laid out as it planned them).
using Plan = std::vector<Run>;

// Bad input to an experiment: a plan line that is not a run, a parameter
// or a baseline that does not parse, an image that does not resolve.
class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// One JSON object a line: {"label": ..., "args": [...], "global": [...]}.
std::string to_json_lines(std::span<const Run> plan);
// Throws Error naming the line that is not a run.
Plan from_json_lines(std::string_view text);

// Adds run options to `args`; a second --cmdline joins the first (one
// kernel command line: the scenario's words, then the variant's).
void append_run_args(std::vector<std::string> &args, const std::vector<std::string> &more);

// The board a run's arguments name: the last --board, else run's default.
std::string board_of(const std::vector<std::string> &args);

// The kernel a run's JSON report says it booted, as a header names it:
// "Linux 6.1.192 (the build's own)", "Linux 6.1.192, image ID (patches: ...)".
std::string kernel_ran(const rapidjson::Value &report);

} // namespace sh::experiment
