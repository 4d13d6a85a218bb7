// SPDX-License-Identifier: GPL-2.0
#include "kernel-shim/kernel.h"

#include <kshim/upstream_files.h>

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
	for (const auto &file : generated::upstream_files)
		info.files.push_back({file.path, file.sha256});
	return info;
}

} // namespace sh::kshim
