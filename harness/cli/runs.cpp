// SPDX-License-Identifier: GPL-2.0
#include "harness/cli/runs.h"

#include "dts/tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>
#include <unistd.h>

namespace sh::cli {

std::vector<std::string> self_command(const Context &ctx)
{
	std::vector<std::string> self{std::filesystem::read_symlink("/proc/self/exe").string(), "--kernel-src",
				      ctx.kernel_tree.string()};
	if (ctx.arch)
		self.insert(self.end(), {"--arch", *ctx.arch == dts::Arch::arm ? "arm" : "arm64"});
	return self;
}

std::vector<std::string> variant_args(const boost::program_options::variables_map &vm, const std::string &prefix)
{
	std::vector<std::string> args;
	for (const std::string name : {"sysctl", "feature"}) {
		for (const auto &key : {name, prefix + name})
			if (vm.count(key))
				for (const auto &v : vm[key].as<std::vector<std::string>>())
					args.insert(args.end(), {"--" + name, v});
	}
	std::string cmdline;
	for (const auto &key : {std::string("cmdline"), prefix + "cmdline"})
		if (vm.count(key))
			cmdline += (cmdline.empty() ? "" : " ") + vm[key].as<std::string>();
	if (!cmdline.empty())
		args.insert(args.end(), {"--cmdline", cmdline});
	return args;
}

std::vector<rapidjson::Document> run_reports(const Context &ctx, std::span<const RunSpec> specs, unsigned jobs)
{
	const auto self = self_command(ctx);

	std::vector<rapidjson::Document> reports(specs.size());
	std::atomic<std::size_t> next{0};
	std::size_t done = 0;
	std::mutex lock;
	std::optional<RunFailed> failure;
	std::exception_ptr error;
	const bool progress = ::isatty(STDERR_FILENO);
	auto worker = [&] {
		for (std::size_t i; (i = next++) < specs.size();) {
			{
				std::lock_guard guard(lock);
				if (failure || error)
					return;
			}
			std::vector<std::string> argv = self;
			argv.insert(argv.end(), specs[i].global.begin(), specs[i].global.end());
			argv.insert(argv.end(), {"run", "--json"});
			argv.insert(argv.end(), specs[i].args.begin(), specs[i].args.end());
			try {
				const auto result = dts::run_tool(argv);
				std::lock_guard guard(lock);
				if (result.exit_status != 0) {
					auto message = result.err;
					while (!message.empty() && message.back() == '\n')
						message.pop_back();
					// the run's own "sched-harness: error: " prefix once is enough
					constexpr std::string_view prefix = "sched-harness: error: ";
					if (message.starts_with(prefix))
						message.erase(0, prefix.size());
					if (!failure)
						failure = RunFailed{fmt::format("{}: {}", specs[i].label, message),
								    result.exit_status};
					return;
				}
				auto &doc = reports[i];
				doc.Parse(result.out.c_str());
				if (doc.HasParseError() || !doc.IsObject())
					throw std::runtime_error(fmt::format("{}: the run printed no JSON report", specs[i].label));
				if (progress)
					ctx.err << fmt::format("\r{}/{} runs", ++done, specs.size()) << std::flush;
			} catch (...) {
				std::lock_guard guard(lock);
				if (!error)
					error = std::current_exception();
				return;
			}
		}
	};
	{
		std::vector<std::jthread> pool;
		for (std::size_t j = 0; j < std::min<std::size_t>(std::max(jobs, 1u), specs.size()); j++)
			pool.emplace_back(worker);
	}
	if (progress && done)
		ctx.err << "\r" << std::string(30, ' ') << "\r" << std::flush;
	if (error)
		std::rethrow_exception(error);
	if (failure)
		throw *failure;
	return reports;
}

void append_run_args(std::vector<std::string> &args, const std::vector<std::string> &more)
{
	for (std::size_t i = 0; i < more.size(); i++) {
		if (more[i] == "--cmdline" && i + 1 < more.size()) {
			auto it = std::find(args.begin(), args.end(), "--cmdline");
			if (it != args.end() && it + 1 != args.end()) {
				*(it + 1) += " " + more[++i];
				continue;
			}
		}
		args.push_back(more[i]);
	}
}

unsigned jobs_option(const boost::program_options::variables_map &vm)
{
	const unsigned jobs = vm.count("jobs") ? bounded_option(vm, "jobs", 1024) : std::thread::hardware_concurrency();
	return std::max(jobs, 1u);
}

int report_failure(const Context &ctx, std::string_view command, const RunFailed &failure)
{
	if (failure.status == exit_bad_input)
		throw UsageError{failure.message};
	ctx.err << "sched-harness " << command << ": " << failure.message << "\n";
	return failure.status > 0 ? failure.status : exit_internal;
}

} // namespace sh::cli
