// SPDX-License-Identifier: GPL-2.0
#include "upstream_files.h"

#include <kshim/upstream_files.h>

namespace sh::kshim::generated {

std::size_t upstream_file_count() noexcept
{
	return sizeof(upstream_files) / sizeof(upstream_files[0]);
}

const char *upstream_file_path(std::size_t i) noexcept
{
	return upstream_files[i].path;
}

const char *upstream_file_sha256(std::size_t i) noexcept
{
	return upstream_files[i].sha256;
}

} // namespace sh::kshim::generated
