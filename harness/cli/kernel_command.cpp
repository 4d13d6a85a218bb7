// SPDX-License-Identifier: GPL-2.0
//
// sched-harness kernel info [--json]
#include "harness/cli/cli.h"

#include "kernel-shim/kernel.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
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
	std::string text = fmt::format("Kernel tree  {}\nVersion      Linux {}\n\nCompiled unchanged from the tree:\n",
				       info.tree, info.version);
	for (const auto &file : info.files)
		text += fmt::format("  {}  {}\n", file.sha256, file.path);
	ctx.out << text;
	return exit_ok;
}

} // namespace sh::cli
