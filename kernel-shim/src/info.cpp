// SPDX-License-Identifier: GPL-2.0
#include "kernel-shim/kernel.h"

#include "upstream_files.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>

namespace sh::kshim {

namespace {

std::vector<std::string> split(std::string_view text, char sep)
{
	std::vector<std::string> parts;
	std::istringstream in{std::string(text)};
	for (std::string part; std::getline(in, part, sep);)
		if (!part.empty())
			parts.push_back(part);
	return parts;
}

} // namespace

BuildInfo build_info()
{
	BuildInfo info{SCHED_HARNESS_KERNEL_TREE, SCHED_HARNESS_KERNEL_VERSION, SH_KERNEL_FLAVOUR,
		       SH_KERNEL_DEFCONFIG, split(SH_KERNEL_CONFIG_FROM_DEFCONFIG, '|'), {}, {}};
	for (const auto &line : split(SH_KERNEL_CONFIG_DEPARTURES, '|')) {
		const auto fields = split(line, ' ');
		if (fields.size() == 3)
			info.departures.push_back({fields[0], fields[1], fields[2]});
	}
	for (std::size_t i = 0; i < generated::upstream_file_count(); i++)
		info.files.push_back({generated::upstream_file_path(i), generated::upstream_file_sha256(i)});
	return info;
}

void require_image_kernel()
{
	const char *image = std::getenv("SCHED_HARNESS_IMAGE");
	if (!image || !*image)
		return;
	// the library this function is in: the image's, or the build's own
	// (the loader's fallback, the binary's RUNPATH)
	Dl_info loaded{};
	if (!dladdr(reinterpret_cast<void *>(&require_image_kernel), &loaded) || !loaded.dli_fname)
		throw std::runtime_error("cannot tell which kernel library this program loaded (dladdr)");
	std::error_code ec;
	if (std::filesystem::equivalent(std::filesystem::path(loaded.dli_fname).parent_path(), image, ec))
		return;
	throw ImageLacksFlavour(SH_KERNEL_FLAVOUR, image,
				fmt::format("the kernel image {} has no {} flavour (this program loaded {})", image,
					    SH_KERNEL_FLAVOUR, loaded.dli_fname));
}

} // namespace sh::kshim
