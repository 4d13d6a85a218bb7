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

// The tree's first line of rel that contains needle, for a patch to a line
// whose spelling the trees differ in (fair.c's sysctl_sched_migration_cost
// is const_debug up to 6.14, __read_mostly from SCHED_DEBUG's removal).
inline std::string line_with(const std::string &rel, const std::string &needle)
{
	std::ifstream in(std::filesystem::path(SH_TEST_KERNEL_TREE) / rel);
	for (std::string line; std::getline(in, line);)
		if (line.find(needle) != std::string::npos)
			return line;
	BOOST_FAIL(rel << " has no line with " << needle);
	return {};
}

// That line with `from` replaced by `to` (the first occurrence).
inline std::string replaced(std::string line, const std::string &from, const std::string &to)
{
	const auto at = line.find(from);
	BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no " << from << " in " << line);
	return line.replace(at, from.size(), to);
}

// fair.c's definition of sysctl_sched_migration_cost, as the tree spells it
inline std::string migration_cost_line()
{
	return line_with("kernel/sched/fair.c", "unsigned int sysctl_sched_migration_cost\t= 500000UL;");
}

// The fair class's pick of the next task, as the tree names it:
// pick_next_task_fair(rq, prev, rf), or pick_task_fair(rq, rf) in a tree
// that folded the first into the second (7.3). The tree's fair.c says
// which; `call` is the call from inside either.
struct FairPick {
	std::string function, call;
};
inline FairPick fair_pick()
{
	std::ifstream in(std::filesystem::path(SH_TEST_KERNEL_TREE) / "kernel/sched/fair.c");
	for (std::string line; std::getline(in, line);)
		if (line == "struct task_struct *pick_task_fair(struct rq *rq, struct rq_flags *rf)")
			return {"pick_task_fair", "pick_task_fair(rq, rf)"};
	return {"pick_next_task_fair", "pick_next_task_fair(rq, prev, rf)"};
}

} // namespace sh::test
