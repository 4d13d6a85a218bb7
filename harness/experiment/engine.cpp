// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/engine.h"

#include "dts/input_file.h"
#include "support/lists.h"
#include "support/tools.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <ostream>
#include <unistd.h>

namespace sh::experiment {

namespace fs = std::filesystem;

namespace {

// Slurm's default MaxArraySize is 1001: task ids 0-1000.
constexpr unsigned max_array_tasks = 1000;

std::string read_file(const fs::path &file, std::string_view what)
{
	try {
		return read_input_file(file, what);
	} catch (const std::runtime_error &e) {
		throw Error(e.what());
	}
}

// Written whole or not at all: a task killed mid-write leaves no report
// that looks complete.
void write_atomically(const fs::path &file, std::string_view text)
{
	const auto part = fs::path(file.string() + fmt::format(".part-{}", ::getpid()));
	{
		std::ofstream out(part, std::ios::binary);
		out << text;
		out.flush();
		if (!out)
			throw Error(fmt::format("{}: cannot write: {}", part.string(), std::strerror(errno)));
	}
	fs::rename(part, file);
}

std::string shell_quoted(const std::string &word)
{
	std::string quoted = "'";
	for (const char c : word)
		quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return quoted + "'";
}

std::string command_line(const std::vector<std::string> &argv)
{
	std::string line;
	for (const auto &word : argv)
		line += (line.empty() ? "" : " ") + shell_quoted(word);
	return line;
}

fs::path report_of(const fs::path &dir, std::size_t run) { return dir / "reports" / fmt::format("{}.json", run); }
fs::path failure_of(const fs::path &dir, std::size_t run) { return dir / "reports" / fmt::format("{}.failed", run); }

bool done(const fs::path &dir, std::size_t run)
{
	return fs::exists(report_of(dir, run)) || fs::exists(failure_of(dir, run));
}

struct Layout {
	std::size_t runs;
	unsigned runs_per_task;

	unsigned tasks() const { return static_cast<unsigned>((runs + runs_per_task - 1) / runs_per_task); }
	std::size_t first(unsigned task) const { return std::size_t{task} * runs_per_task; }
	std::size_t end(unsigned task) const { return std::min(runs, first(task) + runs_per_task); }
};

// The tasks with a run not done.
std::vector<unsigned> pending_tasks(const fs::path &dir, const Layout &layout)
{
	std::vector<unsigned> pending;
	for (unsigned task = 0; task < layout.tasks(); task++)
		for (auto run = layout.first(task); run < layout.end(task); run++)
			if (!done(dir, run)) {
				pending.push_back(task);
				break;
			}
	return pending;
}

std::size_t runs_to_do(const fs::path &dir, const Layout &layout)
{
	std::size_t count = 0;
	for (std::size_t run = 0; run < layout.runs; run++)
		count += !done(dir, run);
	return count;
}

// The directory holds this plan, laid out as `options` says: written the
// first time, checked every other.
Layout prepare(const Host &host, std::span<const Run> plan, const EngineOptions &options)
{
	const auto &dir = options.dir;
	if (dir.empty())
		throw Error("--engine slurm and --engine list need --engine-dir DIR, a directory the nodes share");
	const auto text = to_json_lines(plan);
	const auto plan_file = dir / "plan.jsonl";
	if (fs::exists(plan_file)) {
		if (read_file(plan_file, "plan") != text)
			throw Error(fmt::format("{} holds another plan than this command's (its {}): give another "
						"--engine-dir, or the command that wrote it",
						dir.string(), plan_file.string()));
	} else if (options.collect) {
		throw Error(fmt::format("--collect {}: no plan there ({} does not exist)", dir.string(),
					plan_file.string()));
	}
	unsigned per_task = options.runs_per_task;
	if (!per_task)	// as few runs a task as the array's size allows
		per_task = static_cast<unsigned>(std::max<std::size_t>(1, (plan.size() + max_array_tasks - 1) / max_array_tasks));
	const auto engine_file = dir / "engine.json";
	if (fs::exists(engine_file)) {
		rapidjson::Document engine;
		engine.Parse(read_file(engine_file, "engine file").c_str());
		if (engine.HasParseError() || !engine.IsObject() || !engine.HasMember("runs_per_task") ||
		    !engine["runs_per_task"].IsUint() || !engine["runs_per_task"].GetUint())
			throw Error(fmt::format("{}: not an engine file of sched-harness", engine_file.string()));
		// the tasks already submitted keep their runs
		const unsigned laid_out = engine["runs_per_task"].GetUint();
		if (options.runs_per_task && options.runs_per_task != laid_out)
			throw Error(fmt::format("--runs-per-task {}: {} was laid out at {} runs a task (its {})",
						options.runs_per_task, dir.string(), laid_out, engine_file.string()));
		per_task = laid_out;
	}
	const Layout layout{plan.size(), per_task};
	if (layout.tasks() > max_array_tasks + 1 && options.kind == EngineOptions::Kind::slurm)
		throw Error(fmt::format("{} runs at {} a task are {} array tasks, more than Slurm's default "
					"MaxArraySize allows: give --runs-per-task {} or more",
					plan.size(), per_task, layout.tasks(), (plan.size() + max_array_tasks) / (max_array_tasks + 1)));
	if (options.collect)
		return layout;

	std::error_code ec;
	fs::create_directories(dir / "reports", ec);
	if (!ec)
		fs::create_directories(dir / "slurm", ec);
	if (ec)
		throw Error(fmt::format("--engine-dir {}: cannot make it: {}", dir.string(), ec.message()));
	if (!fs::exists(plan_file))
		write_atomically(plan_file, text);
	const auto dir_abs = fs::absolute(dir).lexically_normal();
	std::vector<std::string> task_command = host.self;
	task_command.insert(task_command.end(), {"engine-task", dir_abs.string()});
	if (!fs::exists(engine_file)) {
		rapidjson::StringBuffer buf;
		rapidjson::Writer<rapidjson::StringBuffer> w(buf);
		w.StartObject();
		w.Key("runs"), w.Uint64(plan.size());
		w.Key("runs_per_task"), w.Uint(per_task);
		w.Key("task_command"), w.StartArray();
		for (const auto &word : task_command)
			w.String(word.c_str(), static_cast<rapidjson::SizeType>(word.size()));
		w.EndArray();
		w.EndObject();
		write_atomically(engine_file, std::string(buf.GetString()) + "\n");
	}
	// the tasks with runs to do: a directory written again lists only those
	std::string jobs;
	for (const unsigned task : pending_tasks(dir, layout))
		jobs += command_line(task_command) + " " + std::to_string(task) + "\n";
	write_atomically(dir / "jobs.txt", jobs);
	write_atomically(dir / "slurm" / "task.sh",
			 fmt::format("#!/bin/sh\n# one task of the array: the runs of plan.jsonl it is given\n"
				     "exec {} \"$SLURM_ARRAY_TASK_ID\"\n",
				     command_line(task_command)));
	fs::permissions(dir / "slurm" / "task.sh", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
							   fs::perms::others_read | fs::perms::others_exec);
	return layout;
}

// Submits the pending tasks as one array; with `wait`, returns when the
// array has ended. The job's id.
std::string submit(const EngineOptions &options, const std::vector<unsigned> &tasks, bool wait)
{
	const auto dir = fs::absolute(options.dir).lexically_normal();
	std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=sched-harness",
				      fmt::format("--array={}%{}", support::range_list(tasks), std::max(options.jobs, 1u)),
				      fmt::format("--output={}/slurm/%A_%a.out", dir.string())};
	if (wait)
		argv.push_back("--wait");
	argv.insert(argv.end(), options.sbatch_options.begin(), options.sbatch_options.end());
	argv.push_back((dir / "slurm" / "task.sh").string());
	const auto result = support::run_tool(argv);
	const auto id = result.out.substr(0, result.out.find_first_of(";\n"));
	// with --wait, a task that failed makes sbatch fail: the scan after says which
	if (id.empty() || (!wait && result.exit_status != 0))
		throw Error(fmt::format("sbatch did not submit the array (exit {}): {}", result.exit_status,
					result.err.empty() ? result.out : result.err));
	return id;
}

// --engine local --engine-dir DIR: the runs not done, on this machine's
// cores, each report or failure written as its run ends, so that a command
// interrupted part-way and started again runs only the rest. A run killed
// by a signal (the user's Ctrl-C reaches the runs too) or that failed as
// the tool (exit 128) is not recorded: it runs again next time, and this
// time is a failure.
void run_pending_locally(const Host &host, std::span<const Run> plan, const EngineOptions &options)
{
	const auto &dir = options.dir;
	std::vector<std::size_t> pending;
	for (std::size_t i = 0; i < plan.size(); i++)
		if (!done(dir, i))
			pending.push_back(i);
	if (pending.empty())
		return;
	if (pending.size() < plan.size())
		host.err << fmt::format("local: {} of {} runs have their result in {} already: running the other {}\n",
					plan.size() - pending.size(), plan.size(), (dir / "reports").string(),
					pending.size());
	build_needed_flavours(host, plan);
	std::mutex lock;
	std::optional<RunFailed> unrecorded;
	for_each_on_cores(pending.size(), options.jobs, [&](std::size_t k) {
		const auto i = pending[k];
		const auto result = support::run_tool(run_command(host, plan[i]));
		if (result.exit_status == 0) {
			write_atomically(report_of(dir, i), result.out);
		} else if (result.exit_status > 0 && result.exit_status < 128) {
			write_atomically(failure_of(dir, i),
					 fmt::format("{}\n{} (on this machine)", result.exit_status,
						     failure_message(result.err)));
		} else {
			std::lock_guard guard(lock);
			if (!unrecorded)
				unrecorded = RunFailed{fmt::format("{}: {}", plan[i].label,
								   result.exit_status < 0 ? std::string("killed by a signal")
											  : failure_message(result.err)),
						       result.exit_status < 0 ? 128 : result.exit_status};
			return false;
		}
		return true;
	});
	if (unrecorded)
		throw *unrecorded;
}

std::vector<rapidjson::Document> collect(std::span<const Run> plan, const fs::path &dir)
{
	std::vector<rapidjson::Document> reports(plan.size());
	std::vector<std::string> missing;
	for (std::size_t i = 0; i < plan.size(); i++) {
		if (fs::exists(failure_of(dir, i))) {
			// "STATUS\nMESSAGE"
			const auto text = read_file(failure_of(dir, i), "failure record");
			const auto eol = text.find('\n');
			int status = 0;
			try {
				status = std::stoi(text.substr(0, eol));
			} catch (const std::exception &) {
				throw Error(fmt::format("{}: not a failure record of sched-harness", failure_of(dir, i).string()));
			}
			throw RunFailed{fmt::format("{}: {}", plan[i].label, eol == std::string::npos ? "" : text.substr(eol + 1)),
					status};
		}
		if (!fs::exists(report_of(dir, i))) {
			missing.push_back(plan[i].label);
			continue;
		}
		reports[i].Parse(read_file(report_of(dir, i), "run report").c_str());
		if (reports[i].HasParseError() || !reports[i].IsObject())
			throw Error(fmt::format("{}: {} is not a run's JSON report", plan[i].label, report_of(dir, i).string()));
	}
	if (!missing.empty()) {
		const std::size_t shown = std::min<std::size_t>(missing.size(), 10);
		throw RunsMissing(fmt::format(
			"{} of {} runs have no result in {}, so no table: {}{} (the same command with --engine slurm "
			"or list submits or lists only these again; Slurm's task logs are in {}/slurm/)",
			missing.size(), plan.size(), (dir / "reports").string(),
			fmt::join(std::span(missing).first(shown), ", "), missing.size() > shown ? ", ..." : "",
			dir.string()));
	}
	return reports;
}

} // namespace

std::optional<std::vector<rapidjson::Document>> execute(const Host &host, std::span<const Run> plan,
							 const EngineOptions &options)
{
	if (options.kind == EngineOptions::Kind::local && options.dir.empty())
		return run_locally(host, plan, options.jobs);
	if (options.kind == EngineOptions::Kind::local) {
		prepare(host, plan, options);
		run_pending_locally(host, plan, options);
		return collect(plan, options.dir);
	}
	if (options.kind == EngineOptions::Kind::slurm && !options.collect && !support::on_path("sbatch"))
		throw Error("--engine slurm submits with Slurm's sbatch, which is not on PATH: run on a Slurm "
			    "cluster's login node, or install Debian's slurm-wlm (scripts/setup.sh --tests installs it "
			    "for the tests' one-machine cluster)");
	const auto layout = prepare(host, plan, options);
	if (options.collect)
		return collect(plan, options.dir);
	if (pending_tasks(options.dir, layout).empty())
		return collect(plan, options.dir);
	build_needed_flavours(host, plan);

	if (options.kind == EngineOptions::Kind::list) {
		host.err << fmt::format("{} runs in {} jobs, one command a line, in {}: run them on any engine "
					"(e.g. parallel --sshloginfile NODES < {}), then run this command again with "
					"--collect {}\n",
					runs_to_do(options.dir, layout), pending_tasks(options.dir, layout).size(),
					(options.dir / "jobs.txt").string(),
					(options.dir / "jobs.txt").string(), options.dir.string());
		return std::nullopt;
	}

	for (unsigned attempt = 0;; attempt++) {
		const auto pending = pending_tasks(options.dir, layout);
		if (pending.empty())
			break;
		if (attempt > options.retries)
			break;	// collect() names the runs left
		if (attempt)
			host.err << fmt::format("slurm: {} task{} left runs without a result (failed, timed out or lost "
						"{} node): task{} {}; submitting {} again (retry {} of {})\n",
						pending.size(), pending.size() > 1 ? "s" : "", pending.size() > 1 ? "their" : "its",
						pending.size() > 1 ? "s" : "", support::range_list(pending),
						pending.size() > 1 ? "them" : "it", attempt, options.retries);
		const auto runs = runs_to_do(options.dir, layout);
		const auto id = submit(options, pending, !options.detach);
		host.err << fmt::format("slurm: job {}: {} runs in {} array task{}, at most {} at once{}\n", id,
					runs, pending.size(), pending.size() > 1 ? "s" : "",
					std::max(options.jobs, 1u), options.detach ? "" : "; waiting for it to end");
		if (options.detach) {
			host.err << fmt::format("slurm: when it has ended, run this command again with --collect {}\n",
						options.dir.string());
			return std::nullopt;
		}
	}
	return collect(plan, options.dir);
}

int run_task(const std::vector<std::string> &self, const fs::path &dir, unsigned task)
{
	const auto plan_file = dir / "plan.jsonl";
	if (!fs::exists(plan_file))
		throw Error(fmt::format("engine-task: {} does not exist", plan_file.string()));
	const auto plan = from_json_lines(read_file(plan_file, "plan"));
	rapidjson::Document engine;
	engine.Parse(read_file(dir / "engine.json", "engine file").c_str());
	if (engine.HasParseError() || !engine.IsObject() || !engine.HasMember("runs_per_task") ||
	    !engine["runs_per_task"].IsUint() || !engine["runs_per_task"].GetUint())
		throw Error(fmt::format("engine-task: {} is not an engine file of sched-harness",
					(dir / "engine.json").string()));
	const Layout layout{plan.size(), engine["runs_per_task"].GetUint()};
	if (task >= layout.tasks())
		throw Error(fmt::format("engine-task: task {} of a plan of {} tasks", task, layout.tasks()));
	char node[256] = {};
	::gethostname(node, sizeof node - 1);
	const Host host{self, {}, std::nullopt, std::cerr};
	int failed = 0;
	for (auto i = layout.first(task); i < layout.end(task); i++) {
		if (done(dir, i))
			continue;	// a task submitted again keeps what it did
		const auto result = support::run_tool(run_command(host, plan[i]));
		if (result.exit_status == 0) {
			write_atomically(report_of(dir, i), result.out);
		} else {
			failed++;
			write_atomically(failure_of(dir, i), fmt::format("{}\n{} (on {})", result.exit_status,
									 failure_message(result.err), node));
		}
	}
	return failed;
}

} // namespace sh::experiment
