// SPDX-License-Identifier: GPL-2.0
//
// What every suite needs: where the fixtures and the kernel tree are, and
// how to load a board or run the sched-harness command.
#pragma once

#include "dts/platform.h"
#include "support/tools.h"

#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>

namespace sh::test {

std::filesystem::path fixture(const std::string &relative);	// tests/fixtures/...
std::filesystem::path kernel_tree();
// "6.1", "6.12": the series of the tree the build uses, for the few
// expectations that are facts of one tree (a DTS value, EM cost units).
std::string kernel_series();

// load_platform() with the build's kernel tree and the given overlays.
dts::Platform load(const std::filesystem::path &file,
		   std::initializer_list<std::filesystem::path> overlays = {});
// A board by its short name, from the build's kernel tree.
dts::Platform load_board(const std::string &name,
			 std::initializer_list<std::filesystem::path> overlays = {});

// Runs the sched-harness binary with these arguments.
support::ToolResult run_cli(std::initializer_list<std::string> args);
support::ToolResult run_cli(std::span<const std::string> args);

} // namespace sh::test
