// SPDX-License-Identifier: GPL-2.0
#include "harness/image/release_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace sh::image {

namespace {

std::string read_text(const fs::path &path)
{
	std::ifstream in(path, std::ios::binary);
	return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The files and hashes of a generated kshim/upstream_files.h
// (cmake/UpstreamHashes.cmake: {"path", "sha256"} per file).
void add_listed(const fs::path &header, std::map<std::string, std::string> &files)
{
	static const std::regex entry(R"re(\{"([^"]+)", "([0-9a-f]{64})"\})re");
	const auto text = read_text(header);
	for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it)
		files.emplace((*it)[1].str(), (*it)[2].str());
}

// The flavours' generated lists under a build directory's kernel-shim/.
std::map<std::string, std::string> listed_files(const fs::path &build)
{
	std::map<std::string, std::string> files;
	for (const auto &flavour : every_flavour) {
		const auto header = build / "kernel-shim" / fmt::format("generated-{}", flavour) / "kshim" / "upstream_files.h";
		if (fs::exists(header))
			add_listed(header, files);
	}
	return files;
}

bool all_upper(std::string_view name)
{
	return !name.empty() && std::none_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// The name a definition's header gives: the identifier before its first
// "(", or for a macro that defines the function (all capitals) the macro
// with its first argument.
std::string defined_name(const std::string &header)
{
	const auto paren = header.find('(');
	if (paren == std::string::npos)
		return "";
	auto end = paren;
	while (end > 0 && header[end - 1] == ' ')
		end--;
	auto start = end;
	while (start > 0 && (std::isalnum(static_cast<unsigned char>(header[start - 1])) || header[start - 1] == '_'))
		start--;
	auto name = header.substr(start, end - start);
	if (all_upper(name)) {
		const auto arg_end = header.find_first_of(",)", paren);
		auto arg = header.substr(paren + 1, arg_end == std::string::npos ? std::string::npos : arg_end - paren - 1);
		arg.erase(std::remove(arg.begin(), arg.end(), ' '), arg.end());
		name += "(" + arg + ")";
	}
	return name;
}

// Where a definition's header cannot reach back past: the end of the
// previous declaration, a preprocessor line, the end of a comment.
bool ends_a_declaration(const std::string &line)
{
	if (line.empty() || line.starts_with("#"))
		return true;
	const auto last = line.find_last_not_of(" \t");
	if (last == std::string::npos)
		return true;
	return line[last] == ';' || line[last] == '}' || line.ends_with("*/") || line[last] == '{';
}

} // namespace

std::map<std::string, std::string> functions_of(const std::string &c_source)
{
	std::vector<std::string> lines;
	std::istringstream in(c_source);
	for (std::string line; std::getline(in, line);)
		lines.push_back(line);
	std::map<std::string, std::string> functions;
	for (std::size_t i = 0; i < lines.size(); i++) {
		if (lines[i] != "{")
			continue;
		std::size_t first = i;
		while (first > 0 && !ends_a_declaration(lines[first - 1]))
			first--;
		std::string header;
		for (std::size_t k = first; k < i; k++)
			header += (header.empty() ? "" : " ") + lines[k];
		std::size_t close = i + 1;
		while (close < lines.size() && lines[close] != "}" && lines[close] != "};")
			close++;
		const auto name = defined_name(header);
		if (name.empty() || header.find('=') != std::string::npos) {	// an initialiser, not a function
			i = close;
			continue;
		}
		std::string text = header + "\n";
		for (std::size_t k = i; k <= close && k < lines.size(); k++)
			text += lines[k] + "\n";
		functions[name] += text;
		i = close;
	}
	return functions;
}

CompiledKernel compiled_kernel(const std::optional<Manifest> &image)
{
	if (!image)
		return {SH_IMAGE_KERNEL_TREE, listed_files(fs::path(SH_IMAGE_BUILD_DIR))};
	if (!image->of_series())
		throw std::invalid_argument(fmt::format("image {} is of the build's series: 'kernel info' under it names "
							"the files it changes",
							image->id));
	CompiledKernel kernel{image->tree, listed_files(image->build)};
	if (kernel.files.empty())
		throw std::invalid_argument(fmt::format("image {} (Linux {}): no flavour of it is built yet, so no list "
							"of the files it compiles",
							image->id, image->version));
	return kernel;
}

std::string subsystem_of(const std::string &path)
{
	static const std::array<std::pair<const char *, const char *>, 10> by_directory{{
		{"kernel/sched/", "scheduler"},
		{"kernel/power/", "energy model"},
		{"drivers/cpufreq/", "cpufreq"},
		{"drivers/opp/", "OPP"},
		{"drivers/cpuidle/", "cpuidle"},
		{"drivers/thermal/", "thermal"},
		{"drivers/base/arch_topology.c", "topology"},
		{"drivers/base/topology.c", "topology"},
		{"arch/", "topology"},
		{"kernel/", "other"},
	}};
	for (const auto &[prefix, subsystem] : by_directory)
		if (path.starts_with(prefix))
			return subsystem;
	return "other";
}

std::vector<SubsystemDifference> compiled_differences(const CompiledKernel &older, const CompiledKernel &newer)
{
	static const std::vector<std::string> order{"scheduler", "energy model", "cpufreq", "OPP",
						    "cpuidle",	 "thermal",	 "topology", "other"};
	std::map<std::string, SubsystemDifference> by_subsystem;
	std::set<std::string> paths;
	for (const auto &[path, hash] : older.files)
		paths.insert(path);
	for (const auto &[path, hash] : newer.files)
		paths.insert(path);
	for (const auto &path : paths) {
		auto &difference = by_subsystem[subsystem_of(path)];
		const auto was = older.files.find(path), is = newer.files.find(path);
		if (was == older.files.end()) {
			difference.added.push_back(path);
		} else if (is == newer.files.end()) {
			difference.removed.push_back(path);
		} else if (was->second == is->second) {
			difference.unchanged++;
		} else {
			difference.changed.push_back(path);
			const auto before = functions_of(read_text(older.tree / path));
			const auto after = functions_of(read_text(newer.tree / path));
			SubsystemDifference::FileFunctions functions{path, {}, {}, {}};
			for (const auto &[name, text] : after) {
				const auto old = before.find(name);
				if (old == before.end())
					functions.added.push_back(name);
				else if (old->second != text)
					functions.changed.push_back(name);
			}
			for (const auto &[name, text] : before)
				if (!after.count(name))
					functions.removed.push_back(name);
			difference.functions.push_back(std::move(functions));
		}
	}
	std::vector<SubsystemDifference> differences;
	for (const auto &name : order) {
		const auto it = by_subsystem.find(name);
		if (it == by_subsystem.end())
			continue;
		auto &difference = it->second;
		if (difference.changed.empty() && difference.added.empty() && difference.removed.empty())
			continue;
		difference.subsystem = name;
		differences.push_back(std::move(difference));
	}
	return differences;
}

} // namespace sh::image
