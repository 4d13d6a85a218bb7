// SPDX-License-Identifier: GPL-2.0
#include "harness/cli/runs.h"

#include "dts/platform.h"
#include "dts/tools.h"
#include "sched/image/image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
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

namespace {

// The board a run's arguments name: the last --board, else run's default.
std::string board_of(const std::vector<std::string> &args)
{
	std::string board = default_board;
	for (std::size_t i = 0; i + 1 < args.size(); i++)
		if (args[i] == "--board")
			board = args[i + 1];
	return board;
}

// An image gets a flavour's library when a board first needs it (seconds
// of compiling): built here, once and in view, before the runs start,
// rather than by the first child while the progress line stands still.
// A board whose flavour its file does not tell, and an image that does
// not build, are left to the children, which say so as a single run does.
void build_needed_flavours(const Context &ctx, std::span<const RunSpec> specs)
{
	std::set<std::pair<std::string, std::string>> needed;	// image directory, flavour
	for (const auto &spec : specs) {
		const auto kernel = std::find(spec.global.begin(), spec.global.end(), "--kernel");
		if (kernel == spec.global.end() || std::next(kernel) == spec.global.end())
			continue;
		auto arch = ctx.arch;
		if (!arch) {
			try {
				arch = dts::arch_of_source(dts::resolve_board(board_of(spec.args), ctx.kernel_tree));
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
			image::add_flavour(dir, flavour, ctx.err);
		} catch (const image::BadPatch &) {
		} catch (const std::invalid_argument &) {
		}
	}
}

} // namespace

std::vector<rapidjson::Document> run_reports(const Context &ctx, std::span<const RunSpec> specs, unsigned jobs)
{
	const auto self = self_command(ctx);
	build_needed_flavours(ctx, specs);

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
					// the failure, without the progress of a kernel image's build
					std::string message;
					std::istringstream lines(result.err);
					for (std::string line; std::getline(lines, line);)
						if (!line.starts_with("kernel build: "))
							message += (message.empty() ? "" : "\n") + line;
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
	if (!vm.count("jobs"))
		return std::max(std::thread::hardware_concurrency(), 1u);
	const unsigned jobs = bounded_option(vm, "jobs", 1024);
	if (jobs == 0)	// neither "one" nor "all cores": say which is meant
		throw UsageError{"--jobs 0: at least 1 (without --jobs, every core)"};
	return jobs;
}

namespace {

std::optional<double> number(const rapidjson::Value &v)
{
	if (v.IsNumber())
		return v.GetDouble();
	return std::nullopt;
}

const Metric metrics[] = {
	{"energy", "J", [](const rapidjson::Document &r) { return number(r["energy_j"]); }},
	{"energy model estimate", "J",
	 [](const rapidjson::Document &r) { return r.HasMember("em_energy_j") ? number(r["em_energy_j"]) : std::nullopt; }},
	{"completion time", "s",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 if (!r["completion_ns"].IsNumber())
			 return std::nullopt;
		 return r["completion_ns"].GetDouble() / 1e9;
	 }},
	{"throughput", "x CPU", [](const rapidjson::Document &r) { return number(r["throughput"]); }},
	{"wake-up latency p50", "us",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 return r["wakeup_latency_ns"]["p50"].GetDouble() / 1e3;
	 }},
	{"wake-up latency p99", "us",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 return r["wakeup_latency_ns"]["p99"].GetDouble() / 1e3;
	 }},
	{"migrations", "", [](const rapidjson::Document &r) { return number(r["migrations"]); }},
	{"context switches", "", [](const rapidjson::Document &r) { return number(r["context_switches"]); }},
	{"overutilized", "%",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 const double simulated = r["simulated_ns"].GetDouble();
		 return simulated > 0 ? 100.0 * r["overutilized_ns"].GetDouble() / simulated : 0.0;
	 }},
};

// Scenario options with one value each, and the repeatable ones.
constexpr const char *single_options[] = {"duration", "fork-cpu", "idle-tick", "jitter", "thermal-file",
					  "thermal-governor", "board-power"};
constexpr const char *repeatable_options[] = {"overlay", "thermal-cap", "thermal-model"};

} // namespace

std::span<const Metric> run_metrics()
{
	return metrics;
}

std::string format_value(double v)
{
	const double a = std::abs(v);
	if (a >= 1000)
		return fmt::format("{:.0f}", v);
	if (a >= 10)
		return fmt::format("{:.2f}", v);
	return fmt::format("{:.4f}", v);
}

std::string format_p(const std::optional<double> &p)
{
	if (!p)
		return "-";
	return *p < 0.0001 ? "<0.0001" : fmt::format("{:.4f}", *p);
}

void write_summary(rapidjson::Writer<rapidjson::StringBuffer> &w, const stats::Summary &s,
		   std::span<const double> values)
{
	w.Key("mean"), w.Double(s.mean);
	w.Key("sd"), w.Double(s.sd);
	w.Key("rsd_percent"), w.Double(s.rsd_percent());
	w.Key("min"), w.Double(s.min);
	w.Key("max"), w.Double(s.max);
	w.Key("values");
	w.StartArray();
	for (const double v : values)
		w.Double(v);
	w.EndArray();
}

std::string csv_field(std::string_view s)
{
	if (s.find_first_of(",\"\r\n") == std::string_view::npos)
		return std::string(s);
	std::string out = "\"";
	for (const char c : s)
		out += c == '"' ? std::string("\"\"") : std::string(1, c);
	return out + "\"";
}

boost::program_options::options_description scenario_options()
{
	namespace po = boost::program_options;
	po::options_description options("scenario options (as for run)");
	options.add_options()
		("board", po::value<std::string>()->default_value(default_board), "as for run")
		("overlay", po::value<std::vector<std::string>>()->value_name("FILE")->composing(), "as for run")
		("workload", po::value<std::string>()->default_value("periodic:count=24,period=16ms,duty=10%"),
		 "as for run")
		("duration", po::value<std::string>()->value_name("T"), "as for run")
		("fork-cpu", po::value<std::string>()->value_name("CPU"), "as for run")
		("idle-tick", po::value<std::string>()->value_name("kernel|retain|stop"), "as for run")
		("jitter", po::value<std::string>()->value_name("X"), "as for run (default 1: seeds vary the runs)")
		("thermal-cap", po::value<std::vector<std::string>>()->value_name("CPUS=KHZ@T")->composing(),
		 "as for run; repeatable")
		("thermal-model", po::value<std::vector<std::string>>()->value_name("SPEC")->composing(),
		 "as for run; repeatable")
		("thermal-file", po::value<std::string>()->value_name("FILE"), "as for run")
		("thermal-governor", po::value<std::string>()->value_name("NAME"), "as for run")
		("board-power", po::value<std::string>()->value_name("FILE"), "as for run");
	return options;
}

std::vector<std::string> scenario_args(const boost::program_options::variables_map &vm)
{
	std::vector<std::string> args{"--board", vm["board"].as<std::string>(), "--workload",
				      vm["workload"].as<std::string>()};
	for (const auto *name : repeatable_options)
		if (vm.count(name))
			for (const auto &o : vm[name].as<std::vector<std::string>>())
				args.insert(args.end(), {fmt::format("--{}", name), o});
	for (const auto *name : single_options)
		if (vm.count(name))
			args.insert(args.end(), {fmt::format("--{}", name), vm[name].as<std::string>()});
	return args;
}

std::vector<std::string> given_scenario_options(const boost::program_options::variables_map &vm)
{
	std::vector<std::string> given;
	const auto options = scenario_options();
	for (const auto &option : options.options())
		if (const auto &name = option->long_name(); vm.count(name) && !vm[name].defaulted())
			given.push_back(name);
	return given;
}

int report_failure(const Context &ctx, std::string_view command, const RunFailed &failure)
{
	if (failure.status == exit_bad_input)
		throw UsageError{failure.message};
	ctx.err << "sched-harness " << command << ": " << failure.message << "\n";
	return failure.status > 0 ? failure.status : exit_internal;
}

} // namespace sh::cli
