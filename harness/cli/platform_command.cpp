// SPDX-License-Identifier: GPL-2.0
//
// sched-harness platform list
// sched-harness platform show BOARD [--overlay FILE]... [--json] [kernel options]
#include "harness/cli/cli.h"

#include "dts/platform.h"
#include "harness/report/platform_report.h"
#include "harness/sim/simulator.h"
#include "kernel-shim/kernel.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

// The short names whose file the tree has, then, apart, those it has none
// for (juno-r2-scmi before the tree had the Juno's SCMI variants): a name
// is never listed as a board of a tree that cannot load it.
int list_boards(const Context &ctx)
{
	std::string text = fmt::format("Boards of the kernel tree {}\n\n", ctx.kernel_tree.string());
	std::string absent;
	for (const auto &board : dts::known_boards()) {
		if (auto path = dts::board_path(board, ctx.kernel_tree))
			text += fmt::format("  {:<14} {}\n  {:<14} {}\n", board.name, board.description, "",
					    path->string());
		else
			absent += fmt::format("  {:<14} {}\n", board.name, fmt::join(board.candidates, ", "));
	}
	if (!absent.empty())
		text += "\nKnown boards this tree has no file for:\n" + absent;
	text += "\nAny other board: sched-harness platform show path/to/board.dts (or .dtb)\n";
	ctx.out << text;
	return exit_ok;
}

} // namespace

int platform_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("platform show options");
	options.add_options()
		("help,h", "show this help")
		("overlay", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
		 "device-tree overlay (.dtso source or .dtbo) applied to the board, in order; "
		 "repeatable")
		("json", po::bool_switch(), "print the platform as JSON")
		("board-power", po::value<std::string>()->value_name("FILE|none"),
		 "the board power model to show applied to the board (default: the file shipped for it, "
		 "if any; docs/power.md)");
	options.add(kernel_boot_options());
	po::options_description hidden;
	hidden.add_options()
		("action", po::value<std::string>())
		("board", po::value<std::vector<std::string>>());
	po::positional_options_description positional;
	positional.add("action", 1).add("board", -1);
	auto parsed = parse_subcommand(ctx, args, options, hidden, positional,
				       "usage: sched-harness platform list\n"
				       "       sched-harness platform show BOARD [--overlay FILE]... [--json]\n"
				       "              [--cmdline ARGS] [--sysctl NAME=VALUE]... [--feature NAME=on|off]...\n\n"
				       "BOARD is a name from 'platform list' or a path to a .dts or .dtb.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	if (!vm.count("action"))
		throw UsageError{"platform: say 'list' or 'show BOARD'"};
	auto action = vm["action"].as<std::string>();
	auto boards = vm.count("board") ? vm["board"].as<std::vector<std::string>>()
					: std::vector<std::string>{};
	if (action == "list") {
		if (!boards.empty())
			throw UsageError{"platform list takes no argument"};
		return list_boards(ctx);
	}
	if (action != "show")
		throw UsageError{fmt::format("platform: unknown action '{}' (list or show)", action)};
	if (boards.size() != 1)
		throw UsageError{"platform show needs exactly one BOARD (a name or a .dts/.dtb path)"};

	auto platform = load_board(ctx, boards.front(), vm);
	auto kernel = kshim::boot(platform, boot_options(vm));
	if (ctx.verbose)
		for (const auto &line : kshim::kernel_log())
			ctx.err << "kernel: " << line.text << "\n";
	std::optional<sim::BoardPowerFigures> power;
	std::string power_skipped;
	try {
		const auto choice = sim::choose_power_model(
			vm.count("board-power") ? std::optional(vm["board-power"].as<std::string>()) : std::nullopt,
			platform, kernel);
		if (choice.model) {
			power = sim::board_power_figures(platform, kernel, *choice.model);
			power->file = choice.file;
		}
		power_skipped = choice.skipped;
	} catch (const sim::PowerModelError &e) {
		throw UsageError{fmt::format("--board-power {}", e.what())};	// "FILE: why"
	}
	// Formatted whole before anything is printed: an error never leaves
	// half a result on stdout.
	const auto *figures = power ? &*power : nullptr;
	ctx.out << (vm["json"].as<bool>() ? report::platform_json(platform, &kernel, figures, power_skipped)
					  : report::platform_text(platform, &kernel, figures, power_skipped));
	return kernel_warnings_status(ctx);
}

} // namespace sh::cli
