// SPDX-License-Identifier: GPL-2.0
#include "harness/report/ktap.h"

#include <fmt/format.h>

namespace sh::report {

std::string ktap(std::string_view title, std::span<const KtapSubtest> subtests, std::span<const std::string> header)
{
	std::string out = fmt::format("KTAP version 1\n# {}\n", title);
	for (const auto &line : header)
		out += fmt::format("# {}\n", line);
	out += fmt::format("1..{}\n", subtests.size());
	for (std::size_t i = 0; i < subtests.size(); i++) {
		const auto &subtest = subtests[i];
		out += fmt::format("    KTAP version 1\n    # Subtest: {}\n    1..{}\n", subtest.name, subtest.cases.size());
		for (std::size_t j = 0; j < subtest.cases.size(); j++) {
			const auto &c = subtest.cases[j];
			for (const auto &line : c.diagnostics)
				out += fmt::format("    # {}\n", line);
			out += fmt::format("    {} {} {}\n", c.ok ? "ok" : "not ok", j + 1, c.description);
		}
		out += fmt::format("{} {} {}\n", subtest.ok ? "ok" : "not ok", i + 1, subtest.name);
	}
	return out;
}

} // namespace sh::report
