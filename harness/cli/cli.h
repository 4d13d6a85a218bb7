// SPDX-License-Identifier: GPL-2.0
//
// The sched-harness command line. Each subcommand is a small function over
// library calls; this layer parses options, prints, and maps errors to exit
// statuses:
//   0  success
//   1  internal error (a bug in sched-harness)
//   2  bad input: usage, a file, a device tree, an overlay
//   3  the kernel code faulted (BUG, panic, deadlock) or WARNed
// (check: 1 when an expectation fails, as git bisect run wants)
#pragma once

#include "dts/platform.h"
#include "harness/experiment/plan.h"
#include "kernel-shim/kernel.h"

#include <boost/program_options.hpp>
#include <filesystem>
#include <optional>
#include <string_view>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace sh::cli {

inline constexpr int exit_ok = 0;
// 1 is check's "an expectation failed" (and bisect's "all good"): what
// git bisect run reads as "bad". An error of the tool itself must not
// read so: above 127, git bisect run aborts.
inline constexpr int exit_internal = 128;
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_kernel_fault = 3;
// --kernel names a tree or a patch that does not build: git bisect run's
// "skip this commit".
inline constexpr int exit_unbuildable = 125;

// The board `run` boots when none is named (and the commands that run it).
using experiment::default_board;

// Options every subcommand sees.
struct Context {
	std::filesystem::path kernel_tree;
	std::ostream &out;
	std::ostream &err;
	bool verbose = false;
	std::optional<dts::Arch> arch;	// --arch: boot boards as this architecture
};

// Bad command-line usage: printed as one line, exit status 2.
struct UsageError {
	std::string message;
};

// An unsigned option's value. Boost parses "-1" for an unsigned type as
// 2^64 - 1; this type takes digits only (po::value<Unsigned>(), then
// .as<Unsigned>().value), and validate() below refuses the rest.
struct Unsigned {
	std::uint64_t value = 0;
};
void validate(boost::any &out, const std::vector<std::string> &values, Unsigned *, long);

// The value of an Unsigned option that must fit `max` (a count, a CPU, a
// number of jobs): UsageError naming the option and the limit otherwise.
unsigned bounded_option(const boost::program_options::variables_map &vm, const char *name, unsigned max);

// A subcommand's arguments: `options` (shown by --help, which must be among
// them), `hidden` positionals. With --help, prints `usage` and the options
// and returns nullopt.
std::optional<boost::program_options::variables_map>
parse_subcommand(const Context &ctx, const std::vector<std::string> &args,
		 const boost::program_options::options_description &options,
		 const boost::program_options::options_description &hidden,
		 const boost::program_options::positional_options_description &positional,
		 std::string_view usage);

// The board named (a short name or a .dts/.dtb path), with the --overlay
// files of `vm` applied in order, read from the context's kernel tree.
dts::Platform load_board(const Context &ctx, const std::string &board,
			 const boost::program_options::variables_map &vm);

// --cmdline, --sysctl, --feature, --seed: how the kernel is booted. Every
// command that boots a kernel offers them.
boost::program_options::options_description kernel_boot_options();
kshim::BootOptions boot_options(const boost::program_options::variables_map &vm);

// WARN*() hits in kernel code make a run fail: print each with its file
// and line on stderr and return exit_kernel_fault, else exit_ok.
int kernel_warnings_status(const Context &ctx);

int platform_command(const Context &ctx, const std::vector<std::string> &args);
int kernel_command(const Context &ctx, const std::vector<std::string> &args);
int run_command(const Context &ctx, const std::vector<std::string> &args);
int compare_command(const Context &ctx, const std::vector<std::string> &args);
int sweep_command(const Context &ctx, const std::vector<std::string> &args);
int check_command(const Context &ctx, const std::vector<std::string> &args);
int suite_command(const Context &ctx, const std::vector<std::string> &args);
int bisect_command(const Context &ctx, const std::vector<std::string> &args);
int diff_command(const Context &ctx, const std::vector<std::string> &args);
int workloads_command(const Context &ctx, const std::vector<std::string> &args);
int engine_task_command(const Context &ctx, const std::vector<std::string> &args);

// Entry point of the sched-harness tool.
int main(int argc, char **argv);

} // namespace sh::cli
