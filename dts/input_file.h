// SPDX-License-Identifier: GPL-2.0
//
// Reading a user's input file whole — a board, an overlay, a workload, a
// suite, a thermal file — with a bound: /dev/zero or a runaway generator
// as input is an error naming the file and the limit, not a process that
// grows until the machine kills it. Header-only: every library that reads
// inputs includes it, whatever it links.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
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
	// O_NONBLOCK only for the open: a FIFO nobody writes to reads as
	// empty instead of waiting forever; one with a writer (a generator
	// piping into /dev/stdin) is read to its end as any file.
	const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		throw std::runtime_error(fmt::format("{}: cannot read the {}: {}", file.string(), what,
						     std::strerror(errno)));
	::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	// Read into the string itself, sized by the file where it has one: a
	// 64 KiB buffer on the stack and a string doubling behind it touched
	// three times the file's pages (boot reads every board this way).
	std::string bytes;
	struct stat st;
	if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    static_cast<std::size_t>(st.st_size) <= limit)
		bytes.reserve(static_cast<std::size_t>(st.st_size) + 1);	// + 1: the read that finds the end
	for (;;) {
		const std::size_t have = bytes.size();
		if (have == bytes.capacity())
			bytes.reserve(std::max<std::size_t>(2 * have, 4096));
		bytes.resize(bytes.capacity());
		const ssize_t n = ::read(fd, bytes.data() + have, bytes.size() - have);
		const int err = n < 0 ? errno : 0;
		bytes.resize(have + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
		if (err == EINTR)
			continue;
		if (n < 0) {
			::close(fd);
			throw std::runtime_error(fmt::format("{}: read error in the {}: {}", file.string(), what,
							     std::strerror(err)));
		}
		if (n == 0)
			break;
		if (bytes.size() > limit) {
			::close(fd);
			throw std::runtime_error(fmt::format("{}: {} larger than {} MiB: not read (a device or "
							     "a runaway file?)",
							     file.string(), what, limit >> 20));
		}
	}
	::close(fd);
	return bytes;
}

} // namespace sh
