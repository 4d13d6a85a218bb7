// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/runner.h"

#include "support/tools.h"
#include "harness/image/image.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <ostream>
#include <thread>
#include <unistd.h>

namespace sh::experiment {

// An image gets a flavour's library when a board first needs it (seconds
// of compiling): built here, once and in view, before the runs start,
// rather than by the first child while the progress line stands still.
// A board whose flavour its file does not tell, and an image that does
// not build, are left to the children, which say so as a single run does.
void build_needed_flavours(const Host &host, std::span<const Run> plan)
{
	std::set<std::pair<std::string, std::string>> needed;	// image directory, flavour
	for (const auto &run : plan) {
		const auto kernel = std::find(run.global.begin(), run.global.end(), "--kernel");
		if (kernel == run.global.end() || std::next(kernel) == run.global.end())
			continue;
		auto arch = host.arch;
		if (!arch) {
			try {
				arch = dts::arch_of_source(dts::resolve_board(board_of(run.args), host.kernel_tree));
			} catch (const dts::Error &) {
			}
		}
		if (arch)
			needed.emplace(*std::next(kernel), dts::to_string(*arch));
	}
	for (const auto &[dir, flavour] : needed) {
		if (!std::filesystem::exists(std::filesystem::path(dir) / "manifest.json"))
			continue;	// a build's own kernel side: every flavour is there
		const auto built = image::read_manifest(dir).flavours;
		if (std::find(built.begin(), built.end(), flavour) != built.end())
			continue;
		try {
			image::add_flavour(dir, flavour, host.err);
		} catch (const image::BadPatch &) {
		} catch (const std::invalid_argument &) {
		}
	}
}

std::string failure_message(const std::string &err)
{
	// the failure, without the progress of a kernel image's build
	std::string message;
	std::istringstream lines(err);
	for (std::string line; std::getline(lines, line);)
		if (!line.starts_with("kernel build: "))
			message += (message.empty() ? "" : "\n") + line;
	// the run's own "sched-harness: error: " prefix once is enough
	constexpr std::string_view prefix = "sched-harness: error: ";
	if (message.starts_with(prefix))
		message.erase(0, prefix.size());
	return message;
}

std::vector<std::string> run_command(const Host &host, const Run &run)
{
	std::vector<std::string> argv = host.self;
	argv.insert(argv.end(), run.global.begin(), run.global.end());
	argv.insert(argv.end(), {"run", "--json"});
	argv.insert(argv.end(), run.args.begin(), run.args.end());
	return argv;
}

void for_each_on_cores(std::size_t count, unsigned jobs, const std::function<bool(std::size_t)> &run)
{
	std::atomic<std::size_t> next{0};
	std::atomic<bool> stop{false};
	std::mutex lock;
	std::exception_ptr error;
	auto worker = [&] {
		for (std::size_t k; !stop && (k = next++) < count;) {
			try {
				if (!run(k))
					stop = true;
			} catch (...) {
				stop = true;
				std::lock_guard guard(lock);
				if (!error)
					error = std::current_exception();
			}
		}
	};
	{
		std::vector<std::jthread> pool;
		for (std::size_t j = 0; j < std::min<std::size_t>(std::max(jobs, 1u), count); j++)
			pool.emplace_back(worker);
	}
	if (error)
		std::rethrow_exception(error);
}

std::vector<rapidjson::Document> run_locally(const Host &host, std::span<const Run> plan, unsigned jobs)
{
	build_needed_flavours(host, plan);

	std::vector<rapidjson::Document> reports(plan.size());
	std::size_t done = 0;
	std::mutex lock;
	std::optional<RunFailed> failure;
	const bool progress = ::isatty(STDERR_FILENO);
	for_each_on_cores(plan.size(), jobs, [&](std::size_t i) {
		const auto result = support::run_tool(run_command(host, plan[i]));
		std::lock_guard guard(lock);
		if (result.exit_status != 0) {
			if (!failure)
				failure = RunFailed{fmt::format("{}: {}", plan[i].label, failure_message(result.err)),
						    result.exit_status};
			return false;
		}
		auto &doc = reports[i];
		doc.Parse(result.out.c_str());
		if (doc.HasParseError() || !doc.IsObject())
			throw std::runtime_error(fmt::format("{}: the run printed no JSON report", plan[i].label));
		if (progress)
			host.err << fmt::format("\r{}/{} runs", ++done, plan.size()) << std::flush;
		return true;
	});
	if (progress && done)
		host.err << "\r" << std::string(30, ' ') << "\r" << std::flush;
	if (failure)
		throw *failure;
	return reports;
}

} // namespace sh::experiment
