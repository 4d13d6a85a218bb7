// SPDX-License-Identifier: GPL-2.0
//
// What a patch file says before anything is applied: what kernel
// developers call it (its mail's Subject, without the "[PATCH v2 3/7]"
// tag: git format-patch, b4, an mbox part) and which files of the tree it
// changes. The readers of hostile text kept apart from the image builder,
// which needs a kernel tree, so that tests/fuzz/fuzz_patch reaches them.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sh::image {

// A patch that does not apply, a patched file that does not compile: the
// user's input (the message names the file and the hunk, or the compiler's
// error).
class BadPatch : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// The subject of a patch's mail header (folded lines joined); nullopt for
// a plain diff.
std::optional<std::string> patch_subject_of(std::string_view text);

// The same, of a file; nullopt too for a file that cannot be read.
std::optional<std::string> patch_subject(const std::filesystem::path &patch);

// The subject, else the file as named.
std::string patch_name(const std::filesystem::path &patch);

// The tree's files a patch changes: the paths of its "+++ b/..." and
// "--- a/..." lines (the old name of a renamed file too), one leading
// component stripped as with patch -p1, each once, in the order first
// touched. BadPatch, naming `name`, for a path without a leading
// directory, one that leaves the tree, or no diff at all.
std::vector<std::string> touched_files(std::string_view patch, const std::filesystem::path &name);

} // namespace sh::image
