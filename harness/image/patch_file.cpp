// SPDX-License-Identifier: GPL-2.0
#include "harness/image/patch_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>

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

// The text's lines, as std::getline() gives them (no '\n').
template <typename Visit> void for_each_line(std::string_view text, Visit visit)
{
	while (!text.empty()) {
		const auto end = text.find('\n');
		if (!visit(text.substr(0, end)) || end == std::string_view::npos)
			return;
		text.remove_prefix(end + 1);
	}
}

} // namespace

std::optional<std::string> patch_subject_of(std::string_view text)
{
	std::string subject;
	bool in_subject = false;
	// the mail header ends at its first blank line; a plain diff has none
	for_each_line(text, [&](std::string_view line) {
		if (line.ends_with('\r'))
			line.remove_suffix(1);
		if (line.empty())
			return false;
		if (in_subject && (line.starts_with(' ') || line.starts_with('\t'))) {
			// a folded line of blanks alone adds nothing
			if (const auto word = line.find_first_not_of(" \t"); word != std::string_view::npos)
				subject.append(" ").append(line.substr(word));
			return true;
		}
		in_subject = line.starts_with("Subject:");
		if (in_subject)
			subject = line.substr(std::min(line.find_first_not_of(' ', 8), line.size()));
		return !line.starts_with("diff --git ") && !line.starts_with("--- ");
	});
	subject = without_tag(subject);
	if (subject.empty())
		return std::nullopt;
	return subject;
}

std::optional<std::string> patch_subject(const std::filesystem::path &patch)
{
	std::ifstream in(patch, std::ios::binary);
	if (!in)
		return std::nullopt;
	const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
	return patch_subject_of(text);
}

std::string patch_name(const std::filesystem::path &patch)
{
	if (auto subject = patch_subject(patch))
		return *subject;
	return patch.string();
}

std::vector<std::string> touched_files(std::string_view patch, const std::filesystem::path &name)
{
	std::vector<std::string> files;
	auto strip = [&](std::string_view side) {
		std::string path(side.substr(0, side.find('\t')));
		while (!path.empty() && (path.back() == '\r' || path.back() == ' '))
			path.pop_back();
		const auto slash = path.find('/');
		if (slash == std::string::npos)
			throw BadPatch(fmt::format("{}: \"{}\": a path without a leading directory (expected a/... b/..., "
						   "as git and diff -ru give)",
						   name.string(), path));
		return path.substr(slash + 1);
	};
	std::string_view previous;
	for_each_line(patch, [&](std::string_view line) {
		if (line.starts_with("+++ ") && previous.starts_with("--- ")) {
			// the new file, and the old one when it is another (a rename)
			for (const auto side : {line.substr(4), previous.substr(4)}) {
				if (side.starts_with("/dev/null"))
					continue;
				const auto rel = strip(side);
				if (rel.find("..") != std::string::npos)
					throw BadPatch(fmt::format("{}: \"{}\" leaves the tree", name.string(), rel));
				if (std::find(files.begin(), files.end(), rel) == files.end())
					files.push_back(rel);
			}
		}
		previous = line;
		return true;
	});
	if (files.empty())
		throw BadPatch(fmt::format("{}: no unified diff in it (no ---/+++ lines)", name.string()));
	return files;
}

} // namespace sh::image
