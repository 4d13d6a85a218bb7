// SPDX-License-Identifier: GPL-2.0
#include "harness/report/suite_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace sh::report {

namespace {

// A run option's value quoted when a shell would split it.
std::string shell_word(const std::string &word)
{
	if (!word.empty() && word.find_first_of(" \t'\"$`\\;&|<>(){}*?") == std::string::npos)
		return word;
	std::string quoted = "'";
	for (const char c : word)
		quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return quoted + "'";
}

} // namespace

std::string suite_text(const suite::Suite &suite)
{
	const auto source = suite.source.starts_with("built-in") ? std::string("built-in") : suite.source;
	std::string text = fmt::format("suite {} ({}): {} scenario{}\n", suite.name, source, suite.scenarios.size(),
				       suite.scenarios.size() == 1 ? "" : "s");
	for (const auto &s : suite.scenarios) {
		std::vector<std::string> words;
		for (const auto &a : s.run_args)
			words.push_back(shell_word(a));
		text += fmt::format("\n{}\n  run {}\n", s.name, fmt::join(words, " "));
		for (const auto &a : s.expect)
			text += fmt::format("  expect {}\n", a.text());
	}
	return text;
}

} // namespace sh::report
