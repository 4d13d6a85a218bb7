// SPDX-License-Identifier: GPL-2.0
//
// The files of the tree compiled into this kernel library, with the sha256
// of the bytes compiled (cmake/UpstreamHashes.cmake generates the table).
// The table is a unit of its own that includes nothing else: a kernel
// image whose files differ compiles only it again (harness/image/image.cpp),
// in milliseconds.
#pragma once

#include <cstddef>

namespace sh::kshim::generated {

std::size_t upstream_file_count() noexcept;
const char *upstream_file_path(std::size_t i) noexcept;
const char *upstream_file_sha256(std::size_t i) noexcept;

} // namespace sh::kshim::generated
