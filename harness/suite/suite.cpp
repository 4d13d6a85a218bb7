// SPDX-License-Identifier: GPL-2.0
#include "harness/suite/suite.h"
#include "harness/suite/metrics.h"

#include "dts/input_file.h"

#include "harness/workload/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace sh::suite {

namespace {

// The default suite: a change in wake-up placement, load balancing, EAS,
// schedutil or PELT shows in at least one scenario. EAS boards (32-bit
// Odroid-XU3 without cpuidle, arm64 HiKey960 and RK3399 with PSCI idle
// states) and a symmetric board without EAS (HiKey); light and heavy
// periodic loads, overloaded ones (load balancing: idle and newidle
// balance, task_hot()'s migration cost), hackbench (wake-ups), fixed work
// (completion time), TurboSched's jitter mix, and EAS switched off.
constexpr const char *default_suite = R"({
  "name": "default",
  "scenarios": [
    {"name": "xu3-periodic-light", "board": "odroid-xu3",
     "workload": "periodic:count=4,period=16ms,duty=10%", "duration": "2s"},
    {"name": "xu3-periodic-24", "board": "odroid-xu3",
     "workload": "periodic:count=24,period=16ms,duty=10%", "duration": "2s"},
    {"name": "xu3-periodic-24-no-eas", "board": "odroid-xu3",
     "workload": "periodic:count=24,period=16ms,duty=10%", "duration": "2s",
     "sysctl": ["kernel.sched_energy_aware=0"]},
    {"name": "xu3-periodic-heavy", "board": "odroid-xu3",
     "workload": "periodic:count=8,period=16ms,duty=60%", "duration": "2s"},
    {"name": "xu3-overloaded", "board": "odroid-xu3",
     "workload": "periodic:count=24,period=16ms,duty=40%", "duration": "2s"},
    {"name": "xu3-fixed-work", "board": "odroid-xu3", "workload": "fixed-work:threads=12,work=40ms"},
    {"name": "hikey960-periodic", "board": "hikey960",
     "workload": "periodic:count=8,period=16ms,duty=20%", "duration": "2s"},
    {"name": "hikey960-hackbench", "board": "hikey960", "workload": "hackbench:groups=2,loops=50"},
    {"name": "rk3399-turbo-jitter", "board": "rk3399", "workload": "turbo-jitter", "duration": "2s"},
    {"name": "hikey-symmetric-overloaded", "board": "hikey",
     "workload": "periodic:count=12,period=16ms,duty=60%", "duration": "2s"}
  ]
})";

struct Builtin {
	const char *name;
	const char *text;
};
constexpr Builtin builtins[] = {{"default", default_suite}};

// The metrics with parameters; the others are run_metrics().
const char *const task_and_opp_metrics[] = {"task_cpu_share", "task_latency_p99_us", "task_missed_periods", "opp_share"};

std::string read_file(const std::filesystem::path &path)
{
	try {
		return read_input_file(path, "suite");
	} catch (const std::runtime_error &e) {
		throw Error(e.what());
	}
}

std::vector<std::string> strings(const rapidjson::Value &v, const std::string &where, const char *key)
{
	std::vector<std::string> out;
	if (v.IsString()) {
		out.emplace_back(v.GetString());
		return out;
	}
	if (!v.IsArray())
		throw Error(fmt::format("{}: \"{}\" must be a string or a list of strings", where, key));
	for (const auto &s : v.GetArray()) {
		if (!s.IsString())
			throw Error(fmt::format("{}: \"{}\" must be a list of strings", where, key));
		out.emplace_back(s.GetString());
	}
	return out;
}

// "0-3,6" -> {0, 1, 2, 3, 6}
std::set<unsigned> cpu_set(const std::string &text, const std::string &where)
{
	try {
		return workload::parse_cpu_list(text, where);
	} catch (const workload::Error &e) {
		throw Error(e.what());
	}
}

// A name printed in KTAP lines, tables and reports: a newline or an escape
// sequence in it would forge or garble their lines.
const std::string &printable(const std::string &name, const std::string &what)
{
	if (const auto c = workload::control_character(name))
		throw Error(fmt::format("{} has a control character (0x{:02x}): names are printed line by line",
					what, *c));
	return name;
}

Assertion assertion(const rapidjson::Value &v, const std::string &where)
{
	if (!v.IsObject())
		throw Error(fmt::format("{}: each expectation is an object with \"metric\" and \"min\"/\"max\"", where));
	Assertion a;
	for (const auto &m : v.GetObject()) {
		const std::string key = m.name.GetString();
		const auto &val = m.value;
		if (key == "metric" && val.IsString())
			a.metric = val.GetString();
		else if (key == "task" && val.IsString())
			a.task = val.GetString();
		else if (key == "cpus" && val.IsString())
			a.cpus = val.GetString();
		else if (key == "domain" && val.IsUint())
			a.domain = static_cast<int>(val.GetUint());
		else if (key == "khz" && val.IsUint())
			a.khz = val.GetUint();
		else if (key == "min" && val.IsNumber())
			a.min = val.GetDouble();
		else if (key == "max" && val.IsNumber())
			a.max = val.GetDouble();
		else if (key == "relative" && val.IsBool())
			a.relative = val.GetBool();
		else
			throw Error(fmt::format("{}: expectation key \"{}\" unknown or of the wrong type (metric, task, cpus, "
						"domain, khz, min, max, relative)",
						where, key));
	}
	const auto names = metric_names();
	if (std::find(names.begin(), names.end(), a.metric) == names.end()) {
		if (const auto now = renamed_metric(a.metric))
			throw Error(fmt::format("{}: metric \"{}\" is now called \"{}\"", where, a.metric, *now));
		throw Error(fmt::format("{}: metric \"{}\" unknown; the metrics: {}", where, a.metric,
					fmt::join(names, ", ")));
	}
	if (!a.min && !a.max)
		throw Error(fmt::format("{}: {} has neither \"min\" nor \"max\"", where, a.metric));
	if (a.metric.starts_with("task_") && a.task.empty())
		throw Error(fmt::format("{}: {} needs \"task\"", where, a.metric));
	if (a.metric == "task_cpu_share" && a.cpus.empty())
		throw Error(fmt::format("{}: task_cpu_share needs \"cpus\" (e.g. \"0-3\")", where));
	if (!a.cpus.empty())
		cpu_set(a.cpus, fmt::format("{}: {}", where, a.text()));	// before any run
	if (a.min && a.max && *a.min > *a.max)
		throw Error(fmt::format("{}: {}: \"min\" is above \"max\", so it can never hold", where, a.text()));
	if (a.metric == "opp_share" && (a.domain < 0 || !a.khz))
		throw Error(fmt::format("{}: opp_share needs \"domain\" and \"khz\"", where));
	return a;
}

Scenario scenario(const rapidjson::Value &v, const std::string &source, const std::filesystem::path &dir,
		  std::size_t index)
{
	if (!v.IsObject())
		throw Error(fmt::format("{}: scenario {} is not an object", source, index + 1));
	Scenario s;
	if (v.HasMember("name") && v["name"].IsString())
		s.name = printable(v["name"].GetString(), fmt::format("{}: scenario {}'s name", source, index + 1));
	else
		throw Error(fmt::format("{}: scenario {} has no \"name\"", source, index + 1));
	const auto where = fmt::format("{}: scenario \"{}\"", source, s.name);
	for (const auto &m : v.GetObject()) {
		const std::string key = m.name.GetString();
		const auto &val = m.value;
		auto option = [&](const char *flag) {
			if (!val.IsString())
				throw Error(fmt::format("{}: \"{}\" must be a string", where, key));
			s.run_args.insert(s.run_args.end(), {flag, val.GetString()});
		};
		if (key == "name")
			continue;
		if (key == "board" || key == "workload" || key == "duration" || key == "cmdline")
			option(("--" + key).c_str());
		else if (key == "jitter") {
			if (!val.IsNumber())
				throw Error(fmt::format("{}: \"jitter\" must be a number", where));
			s.run_args.insert(s.run_args.end(), {"--jitter", fmt::format("{}", val.GetDouble())});
		}
		else if (key == "idle_tick")
			option("--idle-tick");
		else if (key == "thermal_governor")
			option("--thermal-governor");
		else if (key == "thermal_file") {
			if (!val.IsString())
				throw Error(fmt::format("{}: \"thermal_file\" must be a string", where));
			s.run_args.insert(s.run_args.end(), {"--thermal-file", (dir / val.GetString()).string()});
		}
		else if (key == "fork_cpu") {
			if (!val.IsUint())
				throw Error(fmt::format("{}: \"fork_cpu\" must be a CPU number", where));
			s.run_args.insert(s.run_args.end(), {"--fork-cpu", std::to_string(val.GetUint())});
		} else if (key == "sysctl" || key == "feature") {
			for (const auto &a : strings(val, where, key.c_str()))
				s.run_args.insert(s.run_args.end(), {"--" + key, a});
		} else if (key == "overlay") {
			for (const auto &a : strings(val, where, "overlay"))
				s.run_args.insert(s.run_args.end(), {"--overlay", (dir / a).string()});
		} else if (key == "thermal_cap" || key == "thermal_model") {
			const auto flag = key == "thermal_cap" ? "--thermal-cap" : "--thermal-model";
			for (const auto &a : strings(val, where, key.c_str()))
				s.run_args.insert(s.run_args.end(), {flag, a});
		} else if (key == "expect") {
			if (!val.IsArray())
				throw Error(fmt::format("{}: \"expect\" must be a list", where));
			for (const auto &a : val.GetArray())
				s.expect.push_back(assertion(a, where));
		} else {
			throw Error(fmt::format("{}: key \"{}\" unknown (name, board, workload, duration, fork_cpu, "
						"idle_tick, jitter, cmdline, sysctl, feature, overlay, thermal_cap, thermal_model, "
						"thermal_file, thermal_governor, expect)",
						where, key));
		}
	}
	// a workload file named relative to the suite
	for (std::size_t i = 0; i + 1 < s.run_args.size(); i++)
		if (s.run_args[i] == "--workload" && s.run_args[i + 1].ends_with(".json") &&
		    std::filesystem::path(s.run_args[i + 1]).is_relative())
			s.run_args[i + 1] = (dir / s.run_args[i + 1]).string();
	return s;
}

Suite parse(const std::string &text, const std::string &source, const std::filesystem::path &dir)
{
	rapidjson::Document doc;
	// iterative: the nesting depth is the file's to choose
	doc.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag | rapidjson::kParseIterativeFlag>(
		text.c_str());
	if (doc.HasParseError())
		throw Error(fmt::format("{}: offset {}: {}", source, doc.GetErrorOffset(),
					rapidjson::GetParseError_En(doc.GetParseError())));
	if (!doc.IsObject() || !doc.HasMember("scenarios") || !doc["scenarios"].IsArray())
		throw Error(fmt::format("{}: a suite is an object with a \"scenarios\" list", source));
	Suite suite;
	suite.source = source;
	if (doc.HasMember("name") && !doc["name"].IsString())
		throw Error(fmt::format("{}: the suite's \"name\" is not a string", source));
	suite.name = printable(doc.HasMember("name") ? doc["name"].GetString()
						     : std::filesystem::path(source).stem().string(),
			       fmt::format("{}: the suite's name", source));
	std::set<std::string> names;
	for (const auto &v : doc["scenarios"].GetArray()) {
		auto s = scenario(v, source, dir, suite.scenarios.size());
		if (!names.insert(s.name).second)
			throw Error(fmt::format("{}: two scenarios are named \"{}\"", source, s.name));
		suite.scenarios.push_back(std::move(s));
	}
	if (suite.scenarios.empty())
		throw Error(fmt::format("{}: the suite has no scenarios", source));
	return suite;
}

const rapidjson::Value &task_of(const rapidjson::Document &run, const Assertion &a)
{
	for (const auto &t : run["tasks"].GetArray())
		if (a.task == t["name"].GetString())
			return t;
	std::vector<std::string> names;
	for (const auto &t : run["tasks"].GetArray())
		names.emplace_back(t["name"].GetString());
	throw Error(fmt::format("{}: the run has no task \"{}\"; it has {}", a.text(), a.task, fmt::join(names, ", ")));
}

} // namespace

std::string Assertion::text() const
{
	std::string subject = metric;
	if (metric == "task_cpu_share")
		subject = fmt::format("{}({}, cpus {})", metric, task, cpus);
	else if (metric.starts_with("task_"))
		subject = fmt::format("{}({})", metric, task);
	else if (metric == "opp_share")
		subject = fmt::format("{}(domain {}, {} kHz)", metric, domain, khz);
	if (relative) {
		subject = fmt::format("change of {} from the baseline", subject);
		if (min && max)
			return fmt::format("{:+}% <= {} <= {:+}%", *min, subject, *max);
		return min ? fmt::format("{} >= {:+}%", subject, *min) : fmt::format("{} <= {:+}%", subject, *max);
	}
	if (min && max)
		return fmt::format("{} <= {} <= {}", *min, subject, *max);
	return min ? fmt::format("{} >= {}", subject, *min) : fmt::format("{} <= {}", subject, *max);
}

Suite load(const std::string &name_or_path)
{
	for (const auto &b : builtins)
		if (name_or_path == b.name)
			return parse(b.text, "built-in suite " + name_or_path, std::filesystem::current_path());
	const std::filesystem::path path(name_or_path);
	if (!std::filesystem::exists(path))
		throw Error(fmt::format("{}: no such suite file, and no built-in suite of that name (built in: {})",
					name_or_path, fmt::join(builtin_names(), ", ")));
	return parse(read_file(path), path.string(), path.parent_path());
}

std::vector<std::string> builtin_names()
{
	std::vector<std::string> names;
	for (const auto &b : builtins)
		names.emplace_back(b.name);
	return names;
}

std::vector<std::string> metric_names()
{
	std::vector<std::string> names;
	for (const auto &m : run_metrics())
		names.emplace_back(m.name);
	names.insert(names.end(), std::begin(task_and_opp_metrics), std::end(task_and_opp_metrics));
	return names;
}

std::optional<double> measure(const rapidjson::Document &run, const Assertion &a)
{
	const auto &m = a.metric;
	if (const auto *metric = find_metric(m))
		return metric->read(run);
	if (m == "task_cpu_share") {
		const auto &t = task_of(run, a);
		const auto cpus = cpu_set(a.cpus, a.text());
		double on = 0, all = 0;
		const auto &by_cpu = t["cpu_time_by_cpu_ns"].GetArray();
		if (*cpus.rbegin() >= by_cpu.Size())
			throw Error(fmt::format("{}: the board has CPU0-{}", a.text(), by_cpu.Size() - 1));
		for (unsigned c = 0; c < by_cpu.Size(); c++) {
			all += by_cpu[c].GetDouble();
			if (cpus.count(c))
				on += by_cpu[c].GetDouble();
		}
		return all > 0 ? std::optional(on / all) : std::nullopt;
	}
	if (m == "task_latency_p99_us") {
		const auto &t = task_of(run, a);
		if (!t["wakeup_latency_ns"]["count"].GetUint64())
			return std::nullopt;
		return t["wakeup_latency_ns"]["p99"].GetDouble() / 1e3;
	}
	if (m == "task_missed_periods")
		return task_of(run, a)["missed_periods"].GetDouble();
	if (m == "opp_share") {
		const auto &domains = run["domains"].GetArray();
		if (static_cast<unsigned>(a.domain) >= domains.Size())
			throw Error(fmt::format("{}: the board has frequency domains 0-{}", a.text(), domains.Size() - 1));
		double at = 0;
		for (const auto &o : domains[static_cast<unsigned>(a.domain)]["opp_residency"].GetArray())
			if (o["khz"].GetUint() == a.khz)
				at = o["ns"].GetDouble();
		const double simulated = run["simulated_ns"].GetDouble();
		return simulated > 0 ? std::optional(at / simulated) : std::nullopt;
	}
	throw Error(fmt::format("metric \"{}\" unknown", m));
}

Evaluation evaluate(const Assertion &a, const rapidjson::Document &run, const rapidjson::Document *baseline)
{
	Evaluation e;
	e.value = measure(run, a);
	if (a.relative)
		e.baseline = measure(*baseline, a);
	// a relative bound holds on the change in percent (a zero baseline:
	// only an unchanged value is 0%)
	e.bounded = e.value;
	if (a.relative)
		e.bounded = e.value && e.baseline
				    ? std::optional(*e.baseline != 0 ? 100.0 * (*e.value - *e.baseline) / std::abs(*e.baseline)
						    : *e.value == 0 ? 0.0
						    : std::copysign(HUGE_VAL, *e.value))
				    : std::nullopt;
	e.holds = e.bounded && (!a.min || *e.bounded >= *a.min) && (!a.max || *e.bounded <= *a.max);
	return e;
}

std::string Evaluation::note(const Assertion &a) const
{
	if (holds)
		return "";
	if (a.relative)
		return bounded ? fmt::format("{}: measured {}, baseline {}: {:+.2f}%", a.metric, *value, *baseline, *bounded)
			       : fmt::format("{}: {} has no value for it", a.metric, value ? "the baseline's run" : "the run");
	return value ? fmt::format("{}: measured {}", a.metric, *value)
		     : fmt::format("{}: the run has no value for it", a.metric);
}

} // namespace sh::suite
