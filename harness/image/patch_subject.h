// SPDX-License-Identifier: GPL-2.0
//
// What a patch is called where kernel developers name it: its mail's
// Subject, without the "[PATCH v2 3/7]" tag (git format-patch, b4, an
// mbox part).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace sh::image {

// The subject of a patch file's mail header (folded lines joined); nullopt
// for a plain diff or a file that cannot be read.
std::optional<std::string> patch_subject(const std::filesystem::path &patch);

// The subject, else the file as named.
std::string patch_name(const std::filesystem::path &patch);

} // namespace sh::image
