// SPDX-License-Identifier: GPL-2.0
//
// Many `sched-harness run --json` processes at once (one simulation per
// process: kernel globals are per process), for compare, check and suites.
#pragma once

#include "harness/cli/cli.h"

#include "harness/stats/stats.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sh::cli {

struct RunSpec {
	std::string label;		// what to call the run in a message
	std::vector<std::string> args;	// after `run --json`
	std::vector<std::string> global = {};	// before `run` (--kernel ID)
};

// A run that did not succeed: its label and message, and its exit status
// (2: the variant or scenario is bad input; 3: the kernel faulted).
struct RunFailed {
	std::string message;
	int status;
};

// Runs every spec, `jobs` at a time, with the global options the tool was
// given; the reports in the order of `specs`. Throws RunFailed for the
// first that fails. A progress line goes to stderr when it is a terminal.
std::vector<rapidjson::Document> run_reports(const Context &ctx, std::span<const RunSpec> specs, unsigned jobs);

// This program, with the global options it was given (--kernel-src,
// --arch), to run a subcommand as a child process.
std::vector<std::string> self_command(const Context &ctx);

// A variant's kernel options from `vm`: --sysctl and --feature of both
// variants then of `prefix` ("a-", "b-"), and one --cmdline joining the
// common words and the variant's. Options `vm` does not have are skipped.
std::vector<std::string> variant_args(const boost::program_options::variables_map &vm, const std::string &prefix);

// Adds run options to `args`; a second --cmdline joins the first (one
// kernel command line: the scenario's words, then the variant's).
void append_run_args(std::vector<std::string> &args, const std::vector<std::string> &more);

// --jobs, or the machine's cores.
unsigned jobs_option(const boost::program_options::variables_map &vm);

// The options that name one scenario as `run` takes them (--board,
// --overlay, --workload, --duration, ...), for commands that run it many
// times (compare, sweep); and their values as `run` arguments, the board's
// and workload's defaults included. Values are passed through unchecked:
// each run checks its own.
boost::program_options::options_description scenario_options();
std::vector<std::string> scenario_args(const boost::program_options::variables_map &vm);
// The scenario options given on the command line (not defaulted).
std::vector<std::string> given_scenario_options(const boost::program_options::variables_map &vm);

// A metric of a run's report, as compare and sweep summarise it.
struct Metric {
	const char *name;
	const char *unit;
	// its value in a run's JSON; nullopt when the run does not have it
	// (completion time of an endless workload)
	std::optional<double> (*read)(const rapidjson::Document &run);
};
std::span<const Metric> run_metrics();

// A value for a table: 4 significant digits or so, no exponent.
std::string format_value(double v);
// A p value for a table: "<0.0001", "0.0123", or "-" for none.
std::string format_p(const std::optional<double> &p);
// A metric's summary over runs as JSON members, in the object the writer
// is in: mean, sd, rsd_percent, min, max and every run's value.
void write_summary(rapidjson::Writer<rapidjson::StringBuffer> &w, const stats::Summary &s,
		   std::span<const double> values);

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break, its quotes doubled.
std::string csv_field(std::string_view s);

// Maps a RunFailed to the tool's exit: bad input throws UsageError,
// anything else prints the message and returns the run's status.
int report_failure(const Context &ctx, std::string_view command, const RunFailed &failure);

} // namespace sh::cli
