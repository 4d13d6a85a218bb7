// SPDX-License-Identifier: GPL-2.0
//
// Files a test writes and reads back: a path in a temporary directory of
// this test process's own (removed when the process exits), and a file's
// bytes.
#pragma once

#include "support/tools.h"

#include <fmt/format.h>

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

// The process's own directory: CTest runs each case in a process of its
// own, in parallel, so no two cases share a path.
inline const std::filesystem::path &temp_dir()
{
	static const support::TempDir dir;
	return dir.path();
}

inline std::filesystem::path temp_path(const std::string &name)
{
	return temp_dir() / name;
}

} // namespace sh::test
