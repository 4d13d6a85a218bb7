// SPDX-License-Identifier: GPL-2.0
#include "support/tools.h"
#include "support/signal_safe.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <atomic>
#include <climits>
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
// several threads) and the tools running now, in fixed slots: the fatal
// paths (a signal, an oops, the watchdog) read them from a signal handler,
// which can take no lock and use no heap. A slot's text is written before
// the slot is published.
constexpr std::size_t max_live_dirs = 128;
struct LiveDir {
	enum State : int { free, claimed, live };
	std::atomic<int> state{free};
	char path[PATH_MAX]{};
};
// constinit: zeros in .bss, not a constructor at start-up that writes
// every slot (128 pages touched, a fault each, at every start)
constinit LiveDir live_dirs[max_live_dirs];

// A running tool as pid * 2 + whether it leads a process group of its own
// (a signal that ends sched-harness ends them too: a dtc that loops would
// otherwise run on as an orphan); 0 a free slot, -1 one being filled.
constexpr std::size_t max_live_children = 64;
constinit std::atomic<long> live_children[max_live_children];

int publish_dir(const std::string &path)
{
	if (path.size() >= PATH_MAX)
		throw ToolError(fmt::format("temporary directory path too long: {}", path));
	for (std::size_t i = 0; i < max_live_dirs; i++) {
		int expected = LiveDir::free;
		if (!live_dirs[i].state.compare_exchange_strong(expected, LiveDir::claimed))
			continue;
		std::memcpy(live_dirs[i].path, path.c_str(), path.size() + 1);
		live_dirs[i].state.store(LiveDir::live, std::memory_order_release);
		return static_cast<int>(i);
	}
	throw ToolError(fmt::format("more than {} temporary directories at once", max_live_dirs));
}

std::atomic<long> &claim_child_slot()
{
	for (auto &slot : live_children) {
		long expected = 0;
		if (slot.compare_exchange_strong(expected, -1))
			return slot;
	}
	throw ToolError(fmt::format("more than {} host tools running at once", max_live_children));
}

void remove_and_reraise(int sig)
{
	for (const auto &slot : live_children) {
		const long child = slot.load(std::memory_order_acquire);
		if (child > 0)
			kill((child & 1) ? -static_cast<pid_t>(child >> 1) : static_cast<pid_t>(child >> 1), SIGKILL);
	}
	remove_temporary_dirs();
	signal(sig, SIG_DFL);
	raise(sig);
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
	try {
		slot_ = publish_dir(path_.string());
	} catch (...) {
		rmdir(templ.c_str());
		throw;
	}
}

TempDir::TempDir(std::filesystem::path existing) : path_(std::move(existing)), slot_(publish_dir(path_.string()))
{
}

TempDir::~TempDir()
{
	std::error_code ignored;
	std::filesystem::remove_all(path_, ignored);
	live_dirs[slot_].state.store(LiveDir::free, std::memory_order_release);
}

void remove_temporary_dirs() noexcept
{
	// the slots stay live: the process is ending
	for (const auto &dir : live_dirs)
		if (dir.state.load(std::memory_order_acquire) == LiveDir::live)
			remove_tree_signal_safe(dir.path);
}

void remove_temporary_dirs_on_signals()
{
	for (int sig : {SIGINT, SIGTERM, SIGHUP})
		signal(sig, remove_and_reraise);
}

bool on_path(std::string_view program)
{
	if (program.find('/') != std::string_view::npos)
		return ::access(std::string(program).c_str(), X_OK) == 0;
	const char *path = std::getenv("PATH");
	std::string_view dirs = path ? path : "/usr/bin:/bin";
	while (true) {
		const auto colon = dirs.find(':');
		const auto dir = dirs.substr(0, colon);
		const auto candidate = std::string(dir.empty() ? "." : dir) + "/" + std::string(program);
		if (::access(candidate.c_str(), X_OK) == 0)
			return true;
		if (colon == std::string_view::npos)
			return false;
		dirs.remove_prefix(colon + 1);
	}
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

	struct Reaped {
		std::atomic<long> &slot;
		~Reaped() { slot.store(0, std::memory_order_release); }
	} reaped{claim_child_slot()};
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
	reaped.slot.store(static_cast<long>(pid) * 2 + (limits.seconds != 0), std::memory_order_release);

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
