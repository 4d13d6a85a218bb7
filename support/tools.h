// SPDX-License-Identifier: GPL-2.0
//
// Running the host tools the kernel's DT build uses (cpp, dtc), and any
// other program, without a shell: argv in, exit status and output out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sh::support {

// A host tool that cannot be started or waited for, a temporary directory
// that cannot be made: the machine's fault or the user's PATH, reported as
// bad input (exit status 2) like the device tree the tool was run for.
class ToolError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

struct ToolResult {
	int exit_status = -1;	// -1: killed by a signal or could not start
	std::string out;
	std::string err;
	bool timed_out = false;	// killed at ToolLimits::seconds

	bool ok() const { return exit_status == 0; }
};

// Bounds on a tool that reads user input (cpp and dtc on a board): time,
// address space and file size, 0 for none. The tool runs under
// util-linux's prlimit for the latter two, in a process group of its own
// so that a timeout stops its children (cpp's cc1) too.
struct ToolLimits {
	unsigned seconds = 0;
	std::uint64_t memory_bytes = 0;
	std::uint64_t file_bytes = 0;
};

// Whether a program is found in PATH (or, with a slash, is executable).
bool on_path(std::string_view program);

// Runs argv[0] (looked up in PATH when it has no slash) and waits for it.
// Throws ToolError when the program cannot be started at all.
ToolResult run_tool(std::span<const std::string> argv, const ToolLimits &limits = {});

// A directory under $TMPDIR removed with everything in it on destruction,
// and by remove_temporary_dirs() when the process dies another way.
class TempDir {
public:
	TempDir();
	explicit TempDir(std::filesystem::path existing);	// a directory made by the caller
	~TempDir();
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;

	const std::filesystem::path &path() const { return path_; }

private:
	std::filesystem::path path_;
	int slot_;	// where a signal handler finds it
};

// Removes every live TempDir: for the paths that end a process without
// destructors (a fatal signal, an oops, the watchdog). Async-signal-safe:
// those paths call it from their handlers.
void remove_temporary_dirs() noexcept;

// SIGINT, SIGTERM and SIGHUP remove the temporary directories, then end
// the process as the signal would (the command installs it).
void remove_temporary_dirs_on_signals();

// Where sched-harness keeps what it builds once (compiled device trees,
// kernel images): $SCHED_HARNESS_CACHE, else $XDG_CACHE_HOME/sched-harness,
// else ~/.cache/sched-harness.
std::filesystem::path cache_dir();

// A 64-bit FNV-1a hash of the bytes, continuing from `seed`: the names of
// cached things (not a defence against a hostile cache).
std::uint64_t content_hash(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ULL);

} // namespace sh::support
