// SPDX-License-Identifier: GPL-2.0
//
// Patches to the build's kernel tree, for the tests that build kernel
// images from them (kernel build, bisect, a kernel that hangs).
#pragma once

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace sh::test {

// Writes the text to p: its path.
inline std::string write(const std::filesystem::path &p, const std::string &text)
{
	std::ofstream(p) << text;
	return p.string();
}

// A one-line patch to the tree's file, as git diff writes it: `from`
// replaced by `to` on the first line that is `from`, three lines of context.
inline std::string one_line_patch(const std::string &rel, const std::string &from, const std::string &to)
{
	std::ifstream in(std::filesystem::path(SH_TEST_KERNEL_TREE) / rel);
	std::vector<std::string> lines;
	for (std::string line; std::getline(in, line);)
		lines.push_back(line);
	const auto at = std::find(lines.begin(), lines.end(), from);
	BOOST_REQUIRE_MESSAGE(at != lines.end(), rel << " has no line " << from);
	const auto i = static_cast<std::size_t>(at - lines.begin());
	const std::size_t first = i >= 3 ? i - 3 : 0, last = std::min(lines.size(), i + 4);
	std::string patch = fmt::format("--- a/{0}\n+++ b/{0}\n@@ -{1},{2} +{1},{2} @@\n", rel, first + 1, last - first);
	for (std::size_t k = first; k < last; k++)
		patch += k == i ? fmt::format("-{}\n+{}\n", from, to) : " " + lines[k] + "\n";
	return patch;
}

} // namespace sh::test
