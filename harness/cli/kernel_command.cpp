// SPDX-License-Identifier: GPL-2.0
//
// sched-harness kernel info | kernel build [--patch FILE]... | kernel list
#include "harness/cli/cli.h"

#include "kernel-shim/kernel.h"
#include "sched/image/image.h"

#include <cstdlib>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

int kernel_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("kernel options");
	options.add_options()
		("help,h", "show this help")
		("patch", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
		 "kernel build: a patch to apply (unified diff, git format-patch file or mbox series); "
		 "repeatable, applied in order");
	po::options_description hidden;
	hidden.add_options()("action", po::value<std::string>());
	po::positional_options_description positional;
	positional.add("action", 1);
	auto vm = parse_subcommand(ctx, args, options, hidden, positional,
				   "usage: sched-harness kernel info | kernel build --patch FILE... | kernel list\n\n"
				   "info:  the kernel tree sched-harness was built from (or the --kernel image), and\n"
				   "       each of its files compiled in, with the sha256 of the bytes compiled.\n"
				   "build: a kernel image of that tree with the patches applied, cached by content;\n"
				   "       prints its id, for --kernel ID (run, compare --a-kernel/--b-kernel, check).\n"
				   "       Only the objects whose preprocessed input the patches change are compiled.\n"
				   "list:  the images in the cache ($SCHED_HARNESS_CACHE, ~/.cache/sched-harness).\n");
	if (!vm)
		return exit_ok;
	const auto action = vm->count("action") ? (*vm)["action"].as<std::string>() : "";
	if (action == "build") {
		if (!vm->count("patch"))
			throw UsageError{"kernel build: give the patches (--patch FILE...)"};
		std::vector<std::filesystem::path> patches;
		for (const auto &p : (*vm)["patch"].as<std::vector<std::string>>())
			patches.emplace_back(p);
		try {
			const auto image = image::build(patches, ctx.err);
			ctx.out << image.manifest.id << "\n";
		} catch (const image::BadPatch &e) {
			throw UsageError{e.what()};
		}
		return exit_ok;
	}
	if (action == "list") {
		std::string text;
		for (const auto &image : image::list())
			text += fmt::format("{}  {}  {} object(s) compiled again  patches: {}\n", image.manifest.id,
					    image.manifest.created, image.manifest.recompiled.size(),
					    fmt::join(image.manifest.patches, " "));
		ctx.out << (text.empty() ? fmt::format("no kernel images in {}\n", (image::cache_dir() / "images").string())
					 : text);
		return exit_ok;
	}
	if (action != "info")
		throw UsageError{"kernel: say info, build or list"};

	auto info = kshim::build_info();
	std::string text;
	if (const char *image = std::getenv("SCHED_HARNESS_IMAGE"); image && *image) {
		const auto manifest = image::read_manifest(image);
		text += fmt::format("Image        {} ({}): the tree with {}\n", manifest.id, image,
				    fmt::join(manifest.patches, ", "));
	}
	text += fmt::format("Kernel tree  {}\nVersion      Linux {}\nFlavour      {} (boards of arch/{}; "
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
	text += std::getenv("SCHED_HARNESS_IMAGE") ? "\nCompiled (the patched files' hashes are the patched bytes'):\n"
						   : "\nCompiled unchanged from the tree:\n";
	for (const auto &file : info.files)
		text += fmt::format("  {}  {}\n", file.sha256, file.path);
	ctx.out << text;
	return exit_ok;
}

} // namespace sh::cli
