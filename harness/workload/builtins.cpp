// SPDX-License-Identifier: GPL-2.0
//
// The built-in workloads: generators of rt-app-model tasks, named on the
// command line as NAME:key=value,...
#include "harness/workload/workload.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <filesystem>
#include <fmt/format.h>
#include <map>

namespace sh::workload {

const std::vector<Generator> &generators()
{
	static const std::vector<Generator> list = {
		{"periodic",
		 "COUNT periodic tasks: each runs DUTY of its PERIOD, woken by its own timer (rt-app's "
		 "run + timer) — the Odroid-XU3/4 energy-model thread's energy test case is "
		 "periodic:count=24,period=16ms,duty=10%",
		 {{"count", "24", "number of tasks"},
		  {"period", "16ms", "period of each task"},
		  {"duty", "10%", "share of the period spent running, as work measured on the calibration CPU"},
		  {"calibration", "0", "the CPU (at its highest OPP) that work is measured on"}}},
		{"hackbench",
		 "GROUPS groups of FDS senders and FDS receivers: each sender sends LOOPS messages to "
		 "every receiver of its group, each message costing WORK to write and to read; "
		 "receivers block until a message is there, senders and receivers wake each other. "
		 "Finite: the completion time is the result",
		 {{"groups", "4", "number of groups"},
		  {"fds", "10", "senders and receivers per group"},
		  {"loops", "100", "messages from each sender to each receiver (hackbench -l)"},
		  {"work", "10us", "work to write, and to read, one message"},
		  {"calibration", "0", "the CPU (at its highest OPP) that work is measured on"}}},
		{"fixed-work",
		 "THREADS CPU-bound threads each doing WORK and exiting (dhrystone/aobench-like); the "
		 "completion time is the result",
		 {{"threads", "8", "number of threads"},
		  {"work", "200ms", "work of each thread"},
		  {"calibration", "0", "the CPU (at its highest OPP) that work is measured on"}}},
		{"turbo-jitter",
		 "BUSY always-running CPU-bound tasks and JITTER short periodic tasks (run JITTER_RUN "
		 "every JITTER_PERIOD), as in TurboSched's benchmark",
		 {{"busy", "4", "CPU-bound tasks"},
		  {"jitter", "8", "short periodic tasks"},
		  {"jitter_run", "200us", "work of a jitter task per period"},
		  {"jitter_period", "16ms", "period of a jitter task"},
		  {"jitter_flags", "0",
		   "sched_setattr() flags the jitter tasks set, e.g. 128 (SCHED_FLAG_TASK_PACKING of "
		   "sched/patches/turbosched.patch: classified as jitter)"},
		  {"calibration", "0", "the CPU (at its highest OPP) that work is measured on"}}},
	};
	return list;
}

std::set<unsigned> parse_cpu_list(const std::string &text, const std::string &what)
{
	constexpr unsigned limit = max_cpu_number + 1;
	std::set<unsigned> cpus;
	std::string_view rest = text;
	while (!rest.empty()) {
		const auto comma = rest.find(',');
		const auto part = rest.substr(0, comma);
		rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
		const auto dash = part.find('-');
		unsigned first = 0, last = 0;
		const auto lo = part.substr(0, dash);
		const auto hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
		if (!whole_number(lo, first) || !whole_number(hi, last) || last < first || last >= limit)
			throw Error(fmt::format("{}: cpus \"{}\": expected a list like 0-3,6 (CPUs below {})", what,
						text, limit));
		for (unsigned c = first; c <= last; c++)
			cpus.insert(c);
	}
	return cpus;
}

std::optional<unsigned char> control_character(std::string_view name)
{
	for (const unsigned char c : name)
		if (c < 0x20 || c == 0x7f)
			return c;
	return std::nullopt;
}

std::int64_t parse_duration(const std::string &text, const std::string &what)
{
	std::int64_t value = 0;
	const char *begin = text.data(), *end = text.data() + text.size();
	auto [ptr, ec] = std::from_chars(begin, end, value);
	if (ec != std::errc() || ptr == begin)
		throw Error(fmt::format("{} \"{}\": expected a duration such as 16ms, 500us, 2s", what, text));
	const std::string unit(ptr, end);
	static const std::map<std::string, std::int64_t> units = {
		{"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};
	auto it = units.find(unit);
	if (it == units.end())
		throw Error(fmt::format("{} \"{}\": unknown unit \"{}\" (ns, us, ms or s)", what, text, unit));
	if (value <= 0)
		throw Error(fmt::format("{} \"{}\": must be positive", what, text));
	return checked_ns(value, it->second, fmt::format("{} \"{}\"", what, text));
}

std::int64_t checked_ns(std::int64_t value, std::int64_t unit_ns, const std::string &what)
{
	if (value < 0)
		throw Error(fmt::format("{}: must not be negative", what));
	if (value > max_time_ns / unit_ns)
		throw Error(fmt::format("{}: more than this tool simulates ({} s, about 11.6 days)", what,
					max_time_ns / 1'000'000'000));
	return value * unit_ns;
}

namespace {

class Parameters {
public:
	Parameters(const Generator &gen, const std::string &list) : gen_(gen)
	{
		for (const auto &p : gen.parameters)
			values_[p.name] = p.default_value;
		std::size_t pos = 0;
		while (pos < list.size()) {
			auto comma = list.find(',', pos);
			auto item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
			pos = comma == std::string::npos ? list.size() : comma + 1;
			auto eq = item.find('=');
			if (eq == std::string::npos)
				throw Error(fmt::format("workload {}: \"{}\" is not key=value", gen.name, item));
			auto key = item.substr(0, eq);
			if (!values_.count(key))
				throw Error(fmt::format("workload {}: unknown parameter \"{}\" (it has: {})", gen.name,
							key, names()));
			values_[key] = item.substr(eq + 1);
		}
	}

	std::int64_t count(const std::string &key, std::int64_t min,
			   std::int64_t max = std::numeric_limits<std::int64_t>::max()) const
	{
		const auto &text = values_.at(key);
		std::int64_t v = 0;
		auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
		if (ec != std::errc() || ptr != text.data() + text.size())
			throw Error(fmt::format("workload {}: {}={} is not a whole number", gen_.name, key, text));
		if (v < min)
			throw Error(fmt::format("workload {}: {}={} must be at least {}", gen_.name, key, text, min));
		if (v > max)
			throw Error(fmt::format("workload {}: {}={} must be at most {}", gen_.name, key, text, max));
		return v;
	}

	// At least 1 us: rt-app's unit, and a bound on the event rate (a 1 ns
	// period is a billion timer events per simulated second).
	std::int64_t duration(const std::string &key) const
	{
		const auto ns = parse_duration(values_.at(key), fmt::format("workload {}: {}", gen_.name, key));
		if (ns < 1000)
			throw Error(fmt::format("workload {}: {}={} is below 1us, rt-app's resolution", gen_.name, key,
						values_.at(key)));
		return ns;
	}

	// "10%" or "0.1": a share in (0, 1].
	double share(const std::string &key) const
	{
		auto text = values_.at(key);
		const bool percent = !text.empty() && text.back() == '%';
		if (percent)
			text.pop_back();
		double v = 0;
		auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
		if (ec != std::errc() || ptr != text.data() + text.size())
			throw Error(fmt::format("workload {}: {}={} is not a share (10% or 0.1)", gen_.name, key,
						values_.at(key)));
		if (percent)
			v /= 100;
		if (!std::isfinite(v) || v <= 0 || v > 1)
			throw Error(fmt::format("workload {}: {}={} must be more than 0% and at most 100%",
						gen_.name, key, values_.at(key)));
		return v;
	}

	std::string canonical() const
	{
		std::string s = gen_.name;
		char sep = ':';
		for (const auto &p : gen_.parameters) {
			s += fmt::format("{}{}={}", sep, p.name, values_.at(p.name));
			sep = ',';
		}
		return s;
	}

private:
	const Generator &gen_;
	std::map<std::string, std::string> values_;

	std::string names() const
	{
		std::string s;
		for (const auto &p : gen_.parameters)
			s += (s.empty() ? "" : ", ") + p.name;
		return s;
	}
};

Event run(std::int64_t ns) { return {EventKind::run, ns, {}, {}, false}; }
Event timer(std::int64_t period) { return {EventKind::timer, period, "unique", {}, false}; }

Workload periodic(const Parameters &p)
{
	Workload w;
	const auto count = p.count("count", 1, max_threads);
	const auto period = p.duration("period");
	const auto busy = static_cast<std::int64_t>(static_cast<double>(period) * p.share("duty") + 0.5);
	w.calibration_cpu = static_cast<unsigned>(p.count("calibration", 0, max_cpu_number));
	for (std::int64_t i = 0; i < count; i++)
		w.tasks.push_back({fmt::format("periodic-{}", i), 1, -1, 0, {}, 0, -1, -1,
				   {{"periodic", -1, {run(busy), timer(period)}}}});
	return w;
}

Workload hackbench(const Parameters &p)
{
	Workload w;
	const auto groups = p.count("groups", 1, max_threads / 2), fds = p.count("fds", 1, max_threads / 2),
		   loops = p.count("loops", 1, 1'000'000'000);
	if (groups * fds * 2 > max_threads)
		throw Error(fmt::format("workload hackbench: {} groups x {} fds make {} threads; at most {}", groups,
					fds, groups * fds * 2, max_threads));
	const auto work = p.duration("work");
	w.calibration_cpu = static_cast<unsigned>(p.count("calibration", 0, max_cpu_number));
	for (std::int64_t g = 0; g < groups; g++) {
		for (std::int64_t s = 0; s < fds; s++) {
			Phase send{"send", loops, {}};
			for (std::int64_t r = 0; r < fds; r++) {
				send.events.push_back(run(work));
				send.events.push_back({EventKind::send, 0, fmt::format("hb-{}-recv-{}", g, r), {}, false});
			}
			w.tasks.push_back({fmt::format("hb-{}-send-{}", g, s), 1, 1, 0, {}, 0, -1, -1, {send}});
		}
		for (std::int64_t r = 0; r < fds; r++) {
			Phase receive{"receive", loops * fds,
				      {{EventKind::receive, 0, fmt::format("hb-{}-recv-{}", g, r), {}, false}, run(work)}};
			w.tasks.push_back({fmt::format("hb-{}-recv-{}", g, r), 1, 1, 0, {}, 0, -1, -1, {receive}});
		}
	}
	return w;
}

Workload fixed_work(const Parameters &p)
{
	Workload w;
	const auto threads = p.count("threads", 1, max_threads);
	const auto work = p.duration("work");
	w.calibration_cpu = static_cast<unsigned>(p.count("calibration", 0, max_cpu_number));
	for (std::int64_t i = 0; i < threads; i++)
		w.tasks.push_back({fmt::format("work-{}", i), 1, 1, 0, {}, 0, -1, -1, {{"work", 1, {run(work)}}}});
	return w;
}

Workload turbo_jitter(const Parameters &p)
{
	Workload w;
	const auto busy = p.count("busy", 0, max_threads), jitter = p.count("jitter", 0, max_threads);
	if (busy + jitter > max_threads)
		throw Error(fmt::format("workload turbo-jitter: {} threads; at most {}", busy + jitter, max_threads));
	const auto jitter_run = p.duration("jitter_run"), jitter_period = p.duration("jitter_period");
	if (jitter_run > jitter_period)
		throw Error("workload turbo-jitter: jitter_run is longer than jitter_period");
	const auto flags = static_cast<unsigned>(p.count("jitter_flags", 0, UINT32_MAX));
	w.calibration_cpu = static_cast<unsigned>(p.count("calibration", 0, max_cpu_number));
	for (std::int64_t i = 0; i < busy; i++)
		w.tasks.push_back({fmt::format("busy-{}", i), 1, -1, 0, {}, 0, -1, -1,
				   {{"busy", -1, {run(100'000'000)}}}});
	for (std::int64_t i = 0; i < jitter; i++)
		w.tasks.push_back({fmt::format("jitter-{}", i), 1, -1, 0, {}, 0, -1, -1,
				   {{"jitter", -1, {run(jitter_run), timer(jitter_period)}}}, flags});
	if (w.tasks.empty())
		throw Error("workload turbo-jitter: no task (busy=0 and jitter=0)");
	return w;
}

} // namespace

Workload make_workload(const std::string &spec)
{
	const auto colon = spec.find(':');
	const auto name = spec.substr(0, colon);
	for (const auto &gen : generators()) {
		if (gen.name != name)
			continue;
		Parameters params(gen, colon == std::string::npos ? "" : spec.substr(colon + 1));
		Workload w = name == "periodic"	    ? periodic(params)
			     : name == "hackbench"  ? hackbench(params)
			     : name == "fixed-work" ? fixed_work(params)
						    : turbo_jitter(params);
		w.name = params.canonical();
		return w;
	}
	if (std::filesystem::exists(spec) || spec.ends_with(".json"))
		return load_rtapp(spec);
	std::string names;
	for (const auto &gen : generators())
		names += (names.empty() ? "" : ", ") + gen.name;
	throw Error(fmt::format("unknown workload \"{}\": a built-in ({}) or an rt-app .json file", spec, names));
}

} // namespace sh::workload
