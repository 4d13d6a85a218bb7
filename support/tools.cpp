// SPDX-License-Identifier: GPL-2.0
#include "support/tools.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace sh::support {

namespace {

std::string slurp(const std::filesystem::path &file)
{
	std::ifstream in(file, std::ios::binary);
	std::ostringstream text;
	text << in.rdbuf();
	return text.str();
}

// The live temporary directories (the image builder makes them from
// several threads).
std::mutex live_mutex;
std::set<std::string> &live_dirs()
{
	static std::set<std::string> dirs;
	return dirs;
}

// The tools running now, by pid, and whether each leads a process group of
// its own: a signal that ends sched-harness ends them too (a dtc that
// loops would otherwise run on as an orphan).
std::mutex children_mutex;
std::map<pid_t, bool> &live_children()
{
	static std::map<pid_t, bool> children;
	return children;
}

void remove_and_reraise(int sig)
{
	if (children_mutex.try_lock()) {
		for (const auto &[pid, group] : live_children())
			kill(group ? -pid : pid, SIGKILL);
		children_mutex.unlock();
	}
	remove_temporary_dirs();
	std::signal(sig, SIG_DFL);
	std::raise(sig);
}

} // namespace

TempDir::TempDir()
{
	const char *base = std::getenv("TMPDIR");
	std::string templ = fmt::format("{}/sched-harness.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(templ.data()))
		throw ToolError(fmt::format("cannot create a temporary directory {}: {}", templ,
					std::strerror(errno)));
	path_ = templ;
	const std::lock_guard lock(live_mutex);
	live_dirs().insert(path_.string());
}

TempDir::TempDir(std::filesystem::path existing) : path_(std::move(existing))
{
	const std::lock_guard lock(live_mutex);
	live_dirs().insert(path_.string());
}

TempDir::~TempDir()
{
	std::error_code ignored;
	std::filesystem::remove_all(path_, ignored);
	const std::lock_guard lock(live_mutex);
	live_dirs().erase(path_.string());
}

void remove_temporary_dirs() noexcept
{
	// a signal may arrive while a thread holds the lock: then leave them
	if (!live_mutex.try_lock())
		return;
	for (const auto &dir : live_dirs()) {
		std::error_code ignored;
		std::filesystem::remove_all(dir, ignored);
	}
	live_dirs().clear();
	live_mutex.unlock();
}

void remove_temporary_dirs_on_signals()
{
	for (int sig : {SIGINT, SIGTERM, SIGHUP})
		std::signal(sig, remove_and_reraise);
}

ToolResult run_tool(std::span<const std::string> argv, const ToolLimits &limits)
{
	if (argv.empty())
		throw ToolError("run_tool: empty command");
	if (limits.memory_bytes || limits.file_bytes) {
		std::vector<std::string> wrapped{"prlimit"};
		if (limits.memory_bytes)
			wrapped.push_back(fmt::format("--as={}", limits.memory_bytes));
		if (limits.file_bytes)
			wrapped.push_back(fmt::format("--fsize={}", limits.file_bytes));
		wrapped.push_back("--");
		wrapped.insert(wrapped.end(), argv.begin(), argv.end());
		return run_tool(wrapped, {limits.seconds, 0, 0});
	}

	// Output goes to files rather than pipes: no risk of a full pipe
	// blocking the child while we wait for it (a time limit polls).
	TempDir scratch;
	const auto out_file = scratch.path() / "stdout";
	const auto err_file = scratch.path() / "stderr";

	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(),
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(),
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);

	std::vector<char *> args;
	for (const auto &arg : argv)
		args.push_back(const_cast<char *>(arg.c_str()));
	args.push_back(nullptr);

	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	if (limits.seconds) {
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
		posix_spawnattr_setpgroup(&attr, 0);
	}
	pid_t pid;
	int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (rc != 0)
		throw ToolError(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
	{
		const std::lock_guard lock(children_mutex);
		live_children().emplace(pid, limits.seconds != 0);
	}
	struct Reaped {
		pid_t pid;
		~Reaped()
		{
			const std::lock_guard lock(children_mutex);
			live_children().erase(pid);
		}
	} reaped{pid};

	ToolResult result;
	int status = 0;
	if (limits.seconds) {
		// poll, from 100 us up to 10 ms a step: most runs take milliseconds
		const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits.seconds);
		auto step = std::chrono::microseconds(100);
		for (;;) {
			const pid_t done = waitpid(pid, &status, WNOHANG);
			if (done == pid)
				break;
			if (done < 0 && errno != EINTR)
				throw ToolError(fmt::format("waiting for {}: {}", argv[0], std::strerror(errno)));
			if (std::chrono::steady_clock::now() >= deadline) {
				kill(-pid, SIGKILL);
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
				result.timed_out = true;
				break;
			}
			std::this_thread::sleep_for(step);
			step = std::min(step * 2, std::chrono::microseconds(10'000));
		}
	} else {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR)
				throw ToolError(fmt::format("waiting for {}: {}", argv[0], std::strerror(errno)));
		}
	}

	result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	result.out = slurp(out_file);
	result.err = slurp(err_file);
	if (result.exit_status == 127 && result.out.empty() && result.err.empty())
		throw ToolError(fmt::format("cannot run {}: not found", argv[0]));
	return result;
}

std::filesystem::path cache_dir()
{
	if (const char *env = std::getenv("SCHED_HARNESS_CACHE"); env && *env)
		return env;
	if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
		return std::filesystem::path(xdg) / "sched-harness";
	if (const char *home = std::getenv("HOME"); home && *home)
		return std::filesystem::path(home) / ".cache" / "sched-harness";
	return std::filesystem::temp_directory_path() / "sched-harness-cache";
}

std::uint64_t content_hash(std::string_view bytes, std::uint64_t seed)
{
	for (const unsigned char c : bytes) {
		seed ^= c;
		seed *= 0x100000001b3ULL;
	}
	return seed;
}

} // namespace sh::support
