// SPDX-License-Identifier: GPL-2.0
//
// The run's trace (--trace): ftrace's text, line by line as the kernel
// prints its events, and as many events as the report counts; --trace-events
// keeps the chosen events' lines and nothing else.
#include "run_json.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace sh;

namespace {

using test::read_file;
using test::run_json;
using test::temp_path;

std::vector<std::string> lines_of(const std::string &text)
{
	std::vector<std::string> lines;
	std::istringstream in(text);
	for (std::string l; std::getline(in, l);)
		lines.push_back(l);
	return lines;
}

// A line's event: "  comm-pid  [003] d..2.  1.000123: EVENT: fields"; none
// for a header line.
std::string event_of(const std::string &line)
{
	if (line.empty() || line[0] == '#')
		return {};
	const auto at = line.find(": ", line.find("] "));
	if (at == std::string::npos)
		return {};
	return line.substr(at + 2, line.find(':', at + 2) - (at + 2));
}

// The events a trace holds, and how many lines of each.
std::map<std::string, std::size_t> events_in(const std::vector<std::string> &lines)
{
	std::map<std::string, std::size_t> seen;
	for (const auto &l : lines)
		if (const auto e = event_of(l); !e.empty())
			seen[e]++;
	return seen;
}

// `full` without the lines of events not in `chosen`: what the trace of
// those events must be, header and all.
std::vector<std::string> only(const std::vector<std::string> &full, const std::set<std::string> &chosen)
{
	std::vector<std::string> kept;
	std::ranges::copy_if(full, std::back_inserter(kept), [&](const std::string &l) {
		const auto e = event_of(l);
		return e.empty() || chosen.contains(e);
	});
	return kept;
}

// Line by line, naming the first that differs (the traces are megabytes).
void check_same_lines(const std::vector<std::string> &got, const std::vector<std::string> &want)
{
	const auto [g, w] = std::ranges::mismatch(got, want);
	BOOST_TEST(got.size() == want.size());
	if (g != got.end() || w != want.end())
		BOOST_ERROR("line " << (g - got.begin()) + 1 << " differs: " << (g != got.end() ? *g : "(end)")
				    << " instead of " << (w != want.end() ? *w : "(end)"));
}

} // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(trace_is_ftrace_text)
{
	const auto path = temp_path("trace");
	auto r = run_json({"--duration", "500ms", "--trace", path.string()});
	const auto text = read_file(path);
	std::filesystem::remove(path);
	BOOST_TEST(text.rfind("# tracer: nop\n", 0) == 0u);
	// TASK-PID [CPU] flags TIMESTAMP: event: fields, as the kernel prints them
	const std::regex line(R"(^ *\S+-\d+ +\[\d{3}\] [d.][.N][.hs][0-9.][.0-9] +\d+\.\d{6}: (\w+): (.*)$)");
	const std::regex sched_switch(R"(prev_comm=\S+ prev_pid=\d+ prev_prio=-?\d+ prev_state=(R\+?|[SDTtXZPI|]+) ==> next_comm=\S+ next_pid=\d+ next_prio=-?\d+)");
	const std::regex wakeup(R"(comm=\S+ pid=\d+ prio=-?\d+ target_cpu=\d{3})");
	// the root domain's span as %*pbl prints it: on this board all its CPUs
	const std::regex overutilized(R"(overutilized=[01] span=0-7)");
	std::map<std::string, std::size_t> seen;
	std::istringstream in(text);
	std::string l;
	while (std::getline(in, l)) {
		if (l.empty() || l[0] == '#')
			continue;
		std::smatch m;
		BOOST_REQUIRE_MESSAGE(std::regex_match(l, m, line), "not an ftrace line: " << l);
		const auto event = m[1].str(), fields = m[2].str();
		if (seen[event]++ < 50) {
			if (event == "sched_switch")
				BOOST_TEST(std::regex_match(fields, sched_switch), fields);
			if (event == "sched_wakeup" || event == "sched_wakeup_new")
				BOOST_TEST(std::regex_match(fields, wakeup), fields);
			if (event == "sched_overutilized")
				BOOST_TEST(std::regex_match(fields, overutilized), fields);
		}
	}
	for (const char *event : {"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
				  "cpu_frequency", "cpu_idle", "sched_pelt_cfs", "sched_pelt_se", "sched_util_est_se",
				  "sched_overutilized"})
		BOOST_TEST(seen[event] > 0u, event);
	BOOST_TEST(seen["sched_switch"] == r.json["context_switches"].GetUint64());
	BOOST_TEST(seen["sched_migrate_task"] == r.json["migrations"].GetUint64());
}

// Tracing observes a run, it does not change it: with kernel time, the
// trace-only tracepoints (PELT, util_est, cpu_idle) take the same time
// traced or not, so the report, fingerprint and kernel time included, is
// the untraced run's. Before, their dispatch ran only for a trace, and the
// traced default run made other decisions.
BOOST_AUTO_TEST_CASE(a_traced_run_is_the_run_untraced)
{
	support::TempDir dir;
	const auto traced = run_json({"--duration", "2s", "--trace", (dir.path() / "t.trace").string()});
	const auto plain = run_json({"--duration", "2s"});
	BOOST_TEST(traced.tool.out == plain.tool.out);
	BOOST_TEST(std::string(traced.json["fingerprint"].GetString()) == plain.json["fingerprint"].GetString());
	BOOST_TEST(traced.json["kernel_time"]["blocks"].GetUint64() == plain.json["kernel_time"]["blocks"].GetUint64());
}

// --trace-events sched_switch,sched_wakeup: the trace is the full one
// without the other events' lines (the header kept), and the run is the
// same run: its report, fingerprint included, does not change.
BOOST_AUTO_TEST_CASE(trace_events_keep_only_the_chosen_lines)
{
	support::TempDir dir;
	const auto all = dir.path() / "all.trace", some = dir.path() / "some.trace";
	auto full = run_json({"--duration", "1s", "--trace", all.string()});
	auto filtered = run_json({"--duration", "1s", "--trace", some.string(), "--trace-events",
				  "sched_switch,sched_wakeup"});
	BOOST_TEST(filtered.tool.out == full.tool.out);
	BOOST_TEST(std::string(filtered.json["fingerprint"].GetString()) == full.json["fingerprint"].GetString());
	const auto full_lines = lines_of(read_file(all)), lines = lines_of(read_file(some));
	check_same_lines(lines, only(full_lines, {"sched_switch", "sched_wakeup"}));
	const auto seen = events_in(lines);
	BOOST_TEST(seen.size() == 2u);
	BOOST_TEST(seen.at("sched_switch") == full.json["context_switches"].GetUint64());
	BOOST_TEST(seen.count("sched_wakeup") == 1u);
	// the PELT lines were most of it
	BOOST_TEST(events_in(full_lines).size() > 10u);
	BOOST_TEST(read_file(some).size() * 3 < read_file(all).size());
}

// A subsystem selects all its events (ftrace's subsystems: cpu_idle is
// power's), and so do SUBSYSTEM:EVENT, globs, repeated options and all.
BOOST_AUTO_TEST_CASE(trace_events_subsystems_and_globs_select_their_events)
{
	support::TempDir dir;
	const auto all = dir.path() / "all.trace";
	// 1 s of the default: sched, power and thermal events
	auto full = test::run_cli(std::vector<std::string>{"run", "--duration", "1s", "--trace", all.string()});
	BOOST_REQUIRE_MESSAGE(full.exit_status == 0, full.err);
	const auto full_lines = lines_of(read_file(all));
	const std::set<std::string> pelt{"sched_pelt_cfs", "sched_pelt_se", "sched_pelt_rt", "sched_pelt_dl",
					 "sched_pelt_irq", "sched_pelt_thermal", "sched_pelt_hw"};
	std::set<std::string> everything;
	for (const auto &[e, n] : events_in(full_lines))
		everything.insert(e);
	const struct {
		std::vector<std::string> lists;	// each a --trace-events
		std::set<std::string> events;	// what the trace must hold
		std::set<std::string> present;	// of those, what this run fires
	} cases[] = {
		{{"power"}, {"cpu_frequency", "cpu_frequency_limits", "cpu_idle"}, {"cpu_frequency", "cpu_idle"}},
		{{"thermal"}, {"thermal_temperature", "cdev_update", "thermal_zone_trip"}, {"thermal_temperature"}},
		{{"sched_pelt_*"}, pelt, {"sched_pelt_cfs", "sched_pelt_se", "sched_pelt_rt", "sched_pelt_dl"}},
		{{"sched:sched_wakeup*", "power:cpu_idle"}, {"sched_wakeup", "sched_wakeup_new", "cpu_idle"},
		 {"sched_wakeup", "sched_wakeup_new", "cpu_idle"}},
		{{"all"}, everything, everything},
	};
	for (const auto &c : cases) {
		std::vector<std::string> argv{"run", "--duration", "1s", "--trace", (dir.path() / "some.trace").string()};
		for (const auto &list : c.lists)
			argv.insert(argv.end(), {"--trace-events", list});
		BOOST_TEST_CONTEXT(fmt::format("--trace-events {}", fmt::join(c.lists, " --trace-events ")))
		{
			auto r = test::run_cli(argv);
			BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
			BOOST_TEST(r.out == full.out);
			const auto lines = lines_of(read_file(dir.path() / "some.trace"));
			check_same_lines(lines, only(full_lines, c.events));
			for (const auto &e : c.present)
				BOOST_TEST(events_in(lines).count(e) == 1u, e);
		}
	}
}

// An item naming no event or subsystem is bad input naming it and listing
// the events by subsystem; --trace-events needs --trace. Nothing runs, no
// trace is written.
BOOST_AUTO_TEST_CASE(trace_events_bad_input_is_status_2)
{
	support::TempDir dir;
	const auto trace = (dir.path() / "t.trace").string();
	const std::string listed = "(the events, by subsystem: sched: sched_switch, sched_waking, sched_wakeup, sched_wakeup_new, ";
	const struct {
		std::vector<std::string> args;
		std::string message;
	} cases[] = {
		{{"--trace", trace, "--trace-events", "sched_switch,sched_swich"},
		 "--trace-events sched_swich: no such event or subsystem " + listed},
		{{"--trace", trace, "--trace-events", "power:sched_switch"},
		 "--trace-events power:sched_switch: no event sched_switch in subsystem power " + listed},
		{{"--trace", trace, "--trace-events", "sched", "--trace-events", "nosuch:*"},
		 "--trace-events nosuch:*: no such subsystem " + listed},
		{{"--trace", trace, "--trace-events", "sched_pelt_x*"},
		 "--trace-events sched_pelt_x*: no such event or subsystem " + listed},
		{{"--trace", trace, "--trace-events", "sched_switch,,cpu_idle"},
		 "--trace-events \"sched_switch,,cpu_idle\": an empty item (say EVENT, SUBSYSTEM or SUBSYSTEM:EVENT, "
		 "comma-separated)"},
		{{"--trace-events", "sched_switch"}, "--trace-events: for --trace (it chooses the events the trace file holds)"},
	};
	for (const auto &c : cases) {
		std::vector<std::string> argv{"run", "--duration", "10ms"};
		argv.insert(argv.end(), c.args.begin(), c.args.end());
		BOOST_TEST_CONTEXT(fmt::format("{}", fmt::join(argv, " ")))
		{
			const auto r = test::run_cli(argv);
			BOOST_TEST(r.exit_status == 2);
			BOOST_TEST(r.out.empty());
			BOOST_TEST(std::ranges::count(r.err, '\n') == 1);
			BOOST_TEST(r.err.find("sched-harness: error: " + c.message) == 0u, r.err);
			BOOST_TEST(!std::filesystem::exists(trace));
		}
	}
	// the list names every subsystem's events
	const auto r = test::run_cli({"run", "--trace", trace, "--trace-events", "nosuch"});
	for (const char *group : {"; power: cpu_frequency, cpu_frequency_limits, cpu_idle;",
				  "; thermal: thermal_temperature, cdev_update, thermal_zone_trip;",
				  "; thermal_power_allocator: thermal_power_allocator;",
				  "; thermal_pressure: thermal_pressure_update;", "; hw_pressure: hw_pressure_update)"})
		BOOST_TEST(r.err.find(group) != std::string::npos, group << " in " << r.err);
}

BOOST_AUTO_TEST_SUITE_END()
