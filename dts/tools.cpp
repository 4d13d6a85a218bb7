// SPDX-License-Identifier: GPL-2.0
#include "dts/tools.h"

#include "dts/platform.h"

#include <cerrno>
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

namespace sh::dts {

namespace {

std::string slurp(const std::filesystem::path &file)
{
	std::ifstream in(file, std::ios::binary);
	std::ostringstream text;
	text << in.rdbuf();
	return text.str();
}

} // namespace

TempDir::TempDir()
{
	const char *base = std::getenv("TMPDIR");
	std::string templ = fmt::format("{}/sched-harness.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(templ.data()))
		throw Error(fmt::format("cannot create a temporary directory {}: {}", templ,
					std::strerror(errno)));
	path_ = templ;
}

TempDir::~TempDir()
{
	std::error_code ignored;
	std::filesystem::remove_all(path_, ignored);
}

ToolResult run_tool(std::span<const std::string> argv)
{
	if (argv.empty())
		throw Error("run_tool: empty command");

	// Output goes to files rather than pipes: no risk of a full pipe
	// blocking the child while we wait for it, and no poll loop.
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

	pid_t pid;
	int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
	posix_spawn_file_actions_destroy(&actions);
	if (rc != 0)
		throw Error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));

	int status = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			throw Error(fmt::format("waiting for {}: {}", argv[0], std::strerror(errno)));
	}

	ToolResult result;
	result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	result.out = slurp(out_file);
	result.err = slurp(err_file);
	if (result.exit_status == 127 && result.out.empty() && result.err.empty())
		throw Error(fmt::format("cannot run {}: not found", argv[0]));
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

} // namespace sh::dts
