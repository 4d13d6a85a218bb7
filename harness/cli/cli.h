// SPDX-License-Identifier: GPL-2.0
//
// The sched-harness command line. Each subcommand is a small function over
// library calls; this layer parses options, prints, and maps errors to exit
// statuses:
//   0  success
//   1  internal error (a bug in sched-harness)
//   2  bad input: usage, a file, a device tree, an overlay
#pragma once

#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace sh::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_internal = 1;
inline constexpr int exit_bad_input = 2;

// Options every subcommand sees.
struct Context {
	std::filesystem::path kernel_tree;
	std::ostream &out;
};

// Bad command-line usage: printed as one line, exit status 2.
struct UsageError {
	std::string message;
};

int platform_command(const Context &ctx, const std::vector<std::string> &args);

// Entry point of the sched-harness tool.
int main(int argc, char **argv);

} // namespace sh::cli
