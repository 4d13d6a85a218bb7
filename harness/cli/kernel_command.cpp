// SPDX-License-Identifier: GPL-2.0
//
// sched-harness kernel info [--json]
#include "harness/cli/cli.h"

#include "kernel-shim/kernel.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

int kernel_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("kernel info options");
	options.add_options()("help,h", "show this help");
	po::options_description hidden;
	hidden.add_options()("action", po::value<std::string>());
	po::positional_options_description positional;
	positional.add("action", 1);
	auto vm = parse_subcommand(ctx, args, options, hidden, positional,
				   "usage: sched-harness kernel info\n\n"
				   "The kernel tree sched-harness was built from, and each of its files compiled\n"
				   "in, unchanged, with the sha256 of the bytes compiled.\n");
	if (!vm)
		return exit_ok;
	if (!vm->count("action") || (*vm)["action"].as<std::string>() != "info")
		throw UsageError{"kernel: say 'info'"};

	auto info = kshim::build_info();
	std::string text = fmt::format("Kernel tree  {}\nVersion      Linux {}\nFlavour      {} (boards of arch/{}; "
				       "'sched-harness --arch {} kernel info' for the other)\n",
				       info.tree, info.version, info.flavour, info.flavour,
				       info.flavour == "arm" ? "arm64" : "arm");
	text += fmt::format("Config       from {}: {}\n", info.defconfig, fmt::join(info.from_defconfig, " "));
	if (!info.departures.empty()) {
		text += "             differs from it (docs/architecture.md says why):\n";
		for (const auto &d : info.departures)
			text += fmt::format("               {:<38} {} here, {} in the defconfig\n", d.option,
					    d.harness, d.defconfig);
	}
	text += "\nCompiled unchanged from the tree:\n";
	for (const auto &file : info.files)
		text += fmt::format("  {}  {}\n", file.sha256, file.path);
	ctx.out << text;
	return exit_ok;
}

} // namespace sh::cli
