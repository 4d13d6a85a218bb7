// SPDX-License-Identifier: GPL-2.0
//
// Reading a user's input file whole — a board, an overlay, a workload, a
// suite, a thermal file — with a bound: /dev/zero or a runaway generator
// as input is an error naming the file and the limit, not a process that
// grows until the machine kills it. Header-only: every library that reads
// inputs includes it, whatever it links.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sh {

// Far above any real input (the largest DTB of the 6.12 tree is ~300 KB,
// Debian's rt-app examples a few KB).
inline constexpr std::size_t max_input_bytes = 64 << 20;

// The file's bytes, or std::runtime_error("FILE: ..."): missing, a
// directory, unreadable, or larger than `limit`. `what` names the input in
// the message ("device tree", "workload file").
inline std::string read_input_file(const std::filesystem::path &file, std::string_view what,
				   std::size_t limit = max_input_bytes)
{
	std::error_code ec;
	if (!std::filesystem::exists(file, ec))
		throw std::runtime_error(fmt::format("{}: no such file", file.string()));
	if (std::filesystem::is_directory(file, ec))
		throw std::runtime_error(fmt::format("{}: is a directory, not a {}", file.string(), what));
	std::ifstream in(file, std::ios::binary);
	if (!in)
		throw std::runtime_error(fmt::format("{}: cannot read the {}: {}", file.string(), what,
						     std::strerror(errno)));
	std::string bytes;
	char chunk[1 << 16];
	while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
		bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
		if (bytes.size() > limit)
			throw std::runtime_error(fmt::format("{}: {} larger than {} MiB: not read (a device or "
							     "a runaway file?)",
							     file.string(), what, limit >> 20));
	}
	if (in.bad())
		throw std::runtime_error(fmt::format("{}: read error in the {}", file.string(), what));
	return bytes;
}

} // namespace sh
