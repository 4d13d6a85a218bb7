// SPDX-License-Identifier: GPL-2.0
//
// KTAP, the kernel's test output format (Documentation/dev-tools/ktap.rst):
// a test plan of subtests, each its own plan of test cases, diagnostic
// lines before a case's result.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sh::report {

struct KtapCase {
	std::string description;
	bool ok = false;
	std::vector<std::string> diagnostics;	// "# " lines before its result
};

struct KtapSubtest {
	std::string name;
	std::vector<KtapCase> cases;
	bool ok = false;
};

// The whole document: "KTAP version 1", `title` and the `header` lines as
// comments, the plan, then each subtest indented.
std::string ktap(std::string_view title, std::span<const KtapSubtest> subtests,
		 std::span<const std::string> header = {});

} // namespace sh::report
