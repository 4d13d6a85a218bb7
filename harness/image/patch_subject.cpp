// SPDX-License-Identifier: GPL-2.0
#include "harness/image/patch_subject.h"

#include <algorithm>
#include <fstream>

namespace sh::image {

namespace {

// "[PATCH v2 3/7] sched/fair: ..." -> "sched/fair: ..."; "[RFC PATCH] ..." too
std::string without_tag(std::string subject)
{
	while (subject.starts_with("[")) {
		const auto close = subject.find(']');
		if (close == std::string::npos)
			break;
		subject.erase(0, subject.find_first_not_of(' ', close + 1));
	}
	return subject;
}

} // namespace

std::optional<std::string> patch_subject(const std::filesystem::path &patch)
{
	std::ifstream in(patch, std::ios::binary);
	std::string subject;
	bool in_subject = false;
	// the mail header ends at its first blank line; a plain diff has none
	for (std::string line; std::getline(in, line) && !line.empty() && line != "\r";) {
		if (line.ends_with('\r'))
			line.pop_back();
		if (in_subject && (line.starts_with(' ') || line.starts_with('\t'))) {
			subject += " " + line.substr(line.find_first_not_of(" \t"));
			continue;
		}
		in_subject = line.starts_with("Subject:");
		if (in_subject)
			subject = line.substr(std::min(line.find_first_not_of(' ', 8), line.size()));
		if (line.starts_with("diff --git ") || line.starts_with("--- "))
			break;
	}
	subject = without_tag(subject);
	if (subject.empty())
		return std::nullopt;
	return subject;
}

std::string patch_name(const std::filesystem::path &patch)
{
	if (auto subject = patch_subject(patch))
		return *subject;
	return patch.string();
}

} // namespace sh::image
