// SPDX-License-Identifier: GPL-2.0
//
// sched-harness kernel info | kernel build [--tree DIR] [--patch FILE]... | kernel list | kernel files | kernel prune
#include "harness/cli/cli.h"

#include "kernel-shim/kernel.h"
#include "harness/image/image.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

po::options_description kernel_options()
{
	po::options_description options("kernel options");
	options.add_options()
		("help,h", "show this help")
		("tree", po::value<std::string>()->value_name("DIR"),
		 "kernel build: the kernel tree of the image (a checkout of the same series); default: the "
		 "tree sched-harness was built from")
		("series", po::value<std::string>()->value_name("SERIES"),
		 "kernel build: the image of another series' tree (6.12, 7.3), found as scripts/build.sh "
		 "finds SH_KERNEL's and built by a build of its own in the cache (the first time, minutes); "
		 "--kernel SERIES does the same")
		("tarball", po::value<std::string>()->value_name("FILE"),
		 "kernel build: the kernel tree of the image from a tar archive (.tar, .tar.xz, ...; only the "
		 "directories the kernel side reads are extracted, once)")
		("patch", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
		 "kernel build: a patch to apply (unified diff, git format-patch file or mbox series); "
		 "repeatable, applied in order")
		("keep", po::value<Unsigned>()->default_value(Unsigned{20}, "20")->value_name("N"),
		 "kernel prune: the most recently used images to keep, of those that load (the others are "
		 "removed first)")
		("config", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "kernel build: a Kconfig option set on top of the build's configuration (y, n, m, a number or "
		 "a \"string\"; CONFIG_ optional); repeatable. Kconfig's dependencies are not resolved: "
		 "set what the option selects too");
	return options;
}

constexpr const char *usage =
	"usage: sched-harness kernel info | kernel list | kernel files | kernel prune [--keep N]\n"
	"       | kernel build [--tree DIR | --tarball FILE] [--patch FILE]... [--config NAME=VALUE]...\n"
	"       | kernel build --series SERIES\n\n"
	"info:  the kernel tree sched-harness was built from (or the --kernel image), and\n"
	"       each of its files compiled in, with the sha256 of the bytes compiled.\n"
	"build: a kernel image of that tree (or --tree DIR, --tarball FILE) with the patches applied\n"
	"       and the options set, cached by content; prints its id, for --kernel ID (run, compare\n"
	"       --a-kernel/--b-kernel, check). Only the objects whose preprocessed input differs from\n"
	"       the build's are compiled, for both flavours (arm64, arm), or only the one of the\n"
	"       global --arch: the other is built when a board first needs it, as --kernel PATCH\n"
	"       builds only the flavour of the boards it boots.\n"
	"       --series SERIES: the image of another series' tree (6.12, 7.3: /usr/src's tarball or\n"
	"       the one scripts/fetch-kernel.sh fetched), compiled by a build of its own in the cache;\n"
	"       'sched-harness --kernel SERIES' runs it (the build's own series: the build's kernel).\n"
	"list:  the images in the cache ($SCHED_HARNESS_CACHE, ~/.cache/sched-harness), most recently\n"
	"       used first (built, named by --kernel or --b-kernel, or run), each with its state:\n"
	"       ok; incomplete (a flavour is built when a board first needs it); failed (a flavour\n"
	"       did not compile); stale (its tree or a patch is gone: it cannot be built again,\n"
	"       nor a flavour it lacks; a finished bisect's images); broken (an unreadable manifest).\n"
	"prune: in this order: removes every failed, stale or broken image; then all but the N\n"
	"       most recently used of the rest (--keep N); then what interrupted builds left and\n"
	"       the extracted tarballs no kept image was built from.\n"
	"files: the files of the tree the kernel side reads (sources and headers): what a\n"
	"       --tree must hold, and all that an image depends on.\n";

// kernel build: prints the image's id.
void build_image(const Context &ctx, const po::variables_map &vm)
{
	// --arch: only that flavour's library (the other is built when a board needs it)
	const auto wanted = ctx.arch ? std::vector<std::string>{std::string(dts::to_string(*ctx.arch))}
				     : image::every_flavour;
	if (vm.count("series")) {
		if (vm.count("tree") || vm.count("tarball") || vm.count("patch") || vm.count("config"))
			throw UsageError{"kernel build --series: the series' own tree, without --tree, --tarball, "
					 "--patch or --config"};
		try {
			ctx.out << image::series_image(vm["series"].as<std::string>(), ctx.err, wanted).manifest.id << "\n";
		} catch (const std::invalid_argument &e) {
			throw UsageError{fmt::format("kernel build --series: {}", e.what())};
		}
		return;
	}
	image::Recipe recipe;
	if (vm.count("tree") && vm.count("tarball"))
		throw UsageError{"kernel build: give --tree or --tarball, not both"};
	if (vm.count("tree"))
		recipe.tree = vm["tree"].as<std::string>();
	if (vm.count("patch"))
		for (const auto &p : vm["patch"].as<std::vector<std::string>>())
			recipe.patches.emplace_back(p);
	try {
		if (vm.count("config"))
			for (const auto &c : vm["config"].as<std::vector<std::string>>())
				recipe.config.push_back(image::parse_config(c));
		if (vm.count("tarball"))
			recipe.tree = image::tarball_tree(vm["tarball"].as<std::string>(), image::cache_dir() / "trees");
		if (recipe.tree.empty() && recipe.patches.empty() && recipe.config.empty())
			throw UsageError{"kernel build: give a tree (--tree DIR, --tarball FILE), patches (--patch "
					 "FILE...) or options (--config NAME=VALUE...)"};
		const auto image = image::build(recipe, ctx.err, wanted);
		ctx.out << image.manifest.id << "\n";
	} catch (const image::BadPatch &e) {
		throw UsageError{e.what()};
	}
}

std::string utc(std::chrono::system_clock::time_point t)
{
	return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(t)));
}

// kernel list: a line per image in the cache, and under one that is not ok
// why (what failed, what is gone, what is not built yet).
void list_images(const Context &ctx)
{
	std::string text;
	for (const auto &listed : image::list()) {
		const auto &m = listed.image.manifest;
		if (listed.state == image::State::broken) {
			text += fmt::format("{}  {:<10}  used {}\n", m.id, image::to_string(listed.state),
					    utc(listed.last_used));
		} else {
			const auto flavours =
				m.flavours.empty() ? std::string("no flavour yet") : fmt::format("{}", fmt::join(m.flavours, "+"));
			if (m.of_series())	// another series' own build: nothing "compiled again"
				text += fmt::format("{}  {:<10}  used {}  built {}  {}  Linux {} ({}), its own build {}\n",
						    m.id, image::to_string(listed.state), utc(listed.last_used), m.created,
						    flavours, m.version, m.package, m.build);
			else
				text += fmt::format("{}  {:<10}  used {}  built {}  {}  {} object(s) compiled again  tree {}{}{}\n",
						    m.id, image::to_string(listed.state), utc(listed.last_used), m.created,
						    flavours, m.recompiled.size(), m.tree, m.patches.empty() ? "" : "  patches: ",
						    fmt::join(m.patches, " "));
		}
		if (!listed.why.empty())
			text += fmt::format("{:18}{}\n", "", listed.why);
	}
	ctx.out << (text.empty() ? fmt::format("no kernel images in {}\n", (image::cache_dir() / "images").string())
				 : text);
}

void prune_images(const Context &ctx, const po::variables_map &vm)
{
	const auto keep = bounded_option(vm, "keep", 1000000);
	const auto pruned = image::prune(keep);
	const auto removed = pruned.unloadable + pruned.unused;
	ctx.out << fmt::format("removed {} image{} ({} that cannot load: failed, stale or broken; {} least recently "
			       "used) and the scratch left by interrupted builds; kept the {} most recently used\n",
			       removed, removed == 1 ? "" : "s", pruned.unloadable, pruned.unused, pruned.kept);
}

// The kernel of --kernel must be loaded to be shown; a flavour the image
// lacks is shown from one it has, rather than built only to be shown
// (--arch: the one asked for).
void require_kernel(const Context &ctx)
{
	try {
		kshim::require_image_kernel();
	} catch (const kshim::ImageLacksFlavour &e) {
		const auto built = image::read_manifest(e.image).flavours;
		if (ctx.arch || built.empty())
			throw;
		throw kshim::WrongFlavour(built.front(), fmt::format("the image {} has the {} flavour only", e.image,
								     built.front()));
	}
}

// kernel info: the image's recipe, the tree, the configuration and the
// files compiled.
void show_info(const Context &ctx)
{
	require_kernel(ctx);
	auto info = kshim::build_info();
	std::string text;
	// the image in use; none for the build's own kernel (also when named
	// by its series or its directory, which has no manifest)
	const auto image = image::image_in_use();
	if (image && image->manifest.of_series()) {
		const auto &manifest = image->manifest;
		text += fmt::format("Image        {} ({}): Linux {} ({}), compiled by a build of its own in {}\n",
				    manifest.id, image->dir.string(), manifest.version, manifest.package, manifest.build);
	} else if (image) {
		const auto &manifest = image->manifest;
		text += fmt::format("Image        {} ({}): the tree {}{}{}; {} file(s) read differ from the "
				    "build's tree{}{}\n",
				    manifest.id, image->dir.string(), manifest.tree, manifest.patches.empty() ? "" : " with ",
				    fmt::join(manifest.patches, ", "), manifest.files.size(),
				    manifest.config.empty() ? "" : "; config ", fmt::join(manifest.config, " "));
	}
	text += fmt::format("Kernel tree  {}\nVersion      Linux {}\nFlavour      {} (boards of arch/{}; "
			    "'sched-harness --arch {} kernel info' for the other)\n",
			    info.tree, info.version, info.flavour, info.flavour, info.flavour == "arm" ? "arm64" : "arm");
	text += fmt::format("Config       from {}: {}\n", info.defconfig, fmt::join(info.from_defconfig, " "));
	if (!info.departures.empty()) {
		text += "             differs from it (docs/architecture.md says why):\n";
		for (const auto &d : info.departures)
			text += fmt::format("               {:<38} {} here, {} in the defconfig\n", d.option, d.harness,
					    d.defconfig);
	}
	text += image && !image->manifest.of_series() ? "\nCompiled (the changed files' hashes are the image's bytes):\n"
						      : "\nCompiled unchanged from the tree:\n";
	for (const auto &file : info.files)
		text += fmt::format("  {}  {}\n", file.sha256, file.path);
	ctx.out << text;
}

} // namespace

int kernel_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description hidden;
	hidden.add_options()("action", po::value<std::string>());
	po::positional_options_description positional;
	positional.add("action", 1);
	const auto vm = parse_subcommand(ctx, args, kernel_options(), hidden, positional, usage);
	if (!vm)
		return exit_ok;
	const auto action = vm->count("action") ? (*vm)["action"].as<std::string>() : "";
	if (action == "build")
		build_image(ctx, *vm);
	else if (action == "list")
		list_images(ctx);
	else if (action == "prune")
		prune_images(ctx, *vm);
	else if (action == "files")
		for (const auto &f : image::read_files())
			ctx.out << f << "\n";
	else if (action == "info")
		show_info(ctx);
	else
		throw UsageError{"kernel: say info, build, list, files or prune"};
	return exit_ok;
}

} // namespace sh::cli
