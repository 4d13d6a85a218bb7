// SPDX-License-Identifier: GPL-2.0
#include "kernel-shim/kernel.h"

#include <kshim/upstream_files.h>

namespace sh::kshim {

BuildInfo build_info()
{
	BuildInfo info{SCHED_HARNESS_KERNEL_TREE, SCHED_HARNESS_KERNEL_VERSION, {}};
	for (const auto &file : generated::upstream_files)
		info.files.push_back({file.path, file.sha256});
	return info;
}

} // namespace sh::kshim
