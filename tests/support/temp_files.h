// SPDX-License-Identifier: GPL-2.0
//
// Files a test writes and reads back: a path in the temporary directory of
// this test process's own, and a file's bytes.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sh::test {

inline std::string read_file(const std::filesystem::path &p)
{
	std::ifstream in(p, std::ios::binary);
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

// Unique to the process: CTest runs each case in a process of its own, in
// parallel.
inline std::filesystem::path temp_path(const std::string &name)
{
	return std::filesystem::temp_directory_path() / fmt::format("sh-test-{}-{}", ::getpid(), name);
}

} // namespace sh::test
