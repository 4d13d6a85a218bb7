// SPDX-License-Identifier: GPL-2.0
//
// rt-app's trace markers (its log_ftrace() calls in rt-app.c, written to
// trace_marker) in a run's trace, for an rt-app file that asks for them
// (global "ftrace"): where each category's lines come, in what order per
// thread, with rt-app's loop counters, event ids, types and names, and the
// rtapp_stats fields computed as rt-app computes them.
#include "run_json.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace sh;
using test::read_file;
using test::temp_path;

namespace {

struct Marker {
	std::string comm;
	long long us = 0;
	std::string text;
};

std::vector<Marker> markers_of(const std::filesystem::path &trace)
{
	const std::regex line(R"(^ *(\S+)-(\d+) +\[\d{3}\] \.\.\.\.\. +(\d+)\.(\d{6}): tracing_mark_write: (.*)$)");
	std::vector<Marker> out;
	std::istringstream in(read_file(trace));
	std::string l;
	while (std::getline(in, l)) {
		if (l.find("tracing_mark_write") == std::string::npos)
			continue;
		std::smatch m;
		BOOST_REQUIRE_MESSAGE(std::regex_match(l, m, line), "not a marker line: " << l);
		out.push_back({m[1].str(), std::stoll(m[3].str()) * 1000000 + std::stoll(m[4].str()), m[5].str()});
	}
	return out;
}

std::map<std::string, long> fields_of(const std::string &text)
{
	std::map<std::string, long> f;
	const std::regex field(R"((\w+)=(-?\d+))");
	for (auto it = std::sregex_iterator(text.begin(), text.end(), field); it != std::sregex_iterator(); ++it)
		f[(*it)[1].str()] = std::stol((*it)[2].str());
	return f;
}

std::vector<Marker> run_markers(const std::string &workload, const std::string &name)
{
	const auto trace = temp_path(name);
	test::run_json({"--workload", workload, "--trace", trace.string()});
	return markers_of(trace);
}

// A file like the fixture with another global "ftrace".
std::string with_ftrace(const std::string &categories)
{
	auto text = read_file(test::fixture("workload/markers.json"));
	const std::string from = R"("ftrace": "main,task,loop,event,stats")";
	text.replace(text.find(from), from.size(), "\"ftrace\": " + categories);
	const auto path = temp_path("markers-" + std::to_string(std::hash<std::string>{}(categories)) + ".json");
	std::ofstream(path) << text;
	return path.string();
}

} // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(rtapp_markers_are_rt_apps)
{
	const auto markers = run_markers(test::fixture("workload/markers.json").string(), "markers.txt");
	BOOST_REQUIRE(!markers.empty());
	// rt-app's main thread writes the first, before it creates the threads
	BOOST_TEST(markers[0].comm == "rt-app");
	BOOST_TEST(markers[0].text == "rtapp_main: event=start");
	std::size_t clock_refs = 0;
	std::map<std::string, std::vector<Marker>> by_thread;
	for (std::size_t i = 1; i < markers.size(); i++) {
		BOOST_TEST(markers[i].comm != "rt-app", markers[i].text);
		if (markers[i].text.starts_with("rtapp_main: event=clock_ref data=")) {
			clock_refs++;
			// the first thread, at its start: the time every timer starts from
			BOOST_TEST(markers[i].comm == "periodic-0");
			BOOST_TEST(fields_of(markers[i].text)["data"] <= markers[i].us);
			continue;
		}
		by_thread[markers[i].comm].push_back(markers[i]);
	}
	BOOST_TEST(clock_refs == 1u);
	BOOST_TEST(by_thread.size() == 3u);

	// per thread: task start, then loops (start, its events, end, stats),
	// and the phased task's end after its three passes
	for (const auto &[comm, lines] : by_thread) {
		BOOST_TEST_CONTEXT(comm)
		{
			BOOST_REQUIRE(lines.size() > 4u);
			BOOST_TEST(lines.front().text == "rtapp_task: event=start");
			const bool phased = comm == "phased";
			BOOST_TEST((lines.back().text == "rtapp_task: event=end") == phased);
			long expected_thread_loop = 0, expected_phase = 0, expected_phase_loop = 0, loops = 0;
			std::size_t i = 1;
			while (i < lines.size() && lines[i].text.starts_with("rtapp_loop: event=start")) {
				const auto start = lines[i];
				auto f = fields_of(start.text);
				BOOST_TEST(f["thread_loop"] == expected_thread_loop);
				BOOST_TEST(f["phase"] == expected_phase);
				BOOST_TEST(f["phase_loop"] == expected_phase_loop);
				// the phase's events, rt-app's ids, types and names in order
				const std::vector<std::string> events =
					!phased ? std::vector<std::string>{"id=0 type=6 desc=run",
									   "id=1 type=11 desc=timer:unique"}
					: expected_phase == 0
						? std::vector<std::string>{"id=0 type=6 desc=run0", "id=1 type=5 desc=sleep0"}
						: std::vector<std::string>{"id=0 type=8 desc=lock0:m", "id=1 type=6 desc=run1",
									   "id=2 type=9 desc=unlock0:m",
									   "id=3 type=10 desc=timer1:tick"};
				i++;
				for (const auto &e : events) {
					if (i == lines.size())
						break;	// the run ended in the middle of the loop
					BOOST_TEST(lines[i].text == "rtapp_event: " + e);
					i++;
				}
				if (i == lines.size())
					break;
				BOOST_REQUIRE(lines[i].text.starts_with("rtapp_loop: event=end"));
				BOOST_TEST(lines[i].text.substr(22) == start.text.substr(24));	// the same counters
				BOOST_REQUIRE(i + 1 < lines.size());
				auto s = fields_of(lines[i + 1].text);
				BOOST_TEST(lines[i + 1].text.starts_with("rtapp_stats: "));
				// period: the loop's time, as the markers' (µs-truncated) times show it
				BOOST_TEST(std::abs(s["period"] - (lines[i].us - start.us)) <= 1);
				BOOST_TEST(s["run"] <= s["period"]);
				BOOST_TEST(s["run"] > 0);
				const bool timer = !phased || expected_phase == 1;
				BOOST_TEST(s["c_run"] == (!phased ? 3000 : expected_phase == 0 ? 1000 : 500));
				BOOST_TEST(s["c_period"] == (!phased ? 16000 : timer ? 10000 : 0));
				if (!timer) {
					BOOST_TEST(s["slack"] == 0);
					BOOST_TEST(s["wu_lat"] == 0);
				} else {
					// woken after its deadline by the wake-up's latency
					BOOST_TEST(s["slack"] > 0);
					BOOST_TEST(s["wu_lat"] > 0);
					BOOST_TEST(s["wu_lat"] < 1000);
					// after the first, a periodic loop is its period (rt-app's
					// timer keeps the deadlines a period apart)
					if (!phased && loops > 0)
						BOOST_TEST(std::abs(s["period"] - 16000) < 200, s["period"]);
				}
				i += 2;
				loops++;
				// rt-app's counters (rt-app.c's thread_data loop)
				if (!phased) {
					expected_thread_loop++;
				} else if (expected_phase == 0 && expected_phase_loop == 0) {
					expected_phase_loop = 1;
				} else if (expected_phase == 0) {
					expected_phase = 1, expected_phase_loop = 0;
				} else {
					expected_phase = 0, expected_thread_loop++;
				}
			}
			if (phased) {
				BOOST_TEST(loops == 9);	// 3 passes of p0 twice and p1 once
				BOOST_TEST(i + 1 == lines.size());
			} else {
				BOOST_TEST(loops > 55);	// 16 ms periods in 1 s
				BOOST_TEST(i == lines.size());
			}
		}
	}
}

// global "ftrace" chooses the categories, as rt-app's ftrace_setup() reads
// it; a built-in workload (not rt-app) writes none.
BOOST_AUTO_TEST_CASE(rtapp_ftrace_categories_choose_the_markers)
{
	BOOST_TEST(run_markers(with_ftrace("\"none\""), "none.txt").empty());
	BOOST_TEST(run_markers(with_ftrace("false"), "false.txt").empty());
	const auto main_only = run_markers(with_ftrace("\"Main\""), "main.txt");
	BOOST_REQUIRE(main_only.size() == 1u);
	BOOST_TEST(main_only[0].text == "rtapp_main: event=start");
	for (const auto &m : run_markers(with_ftrace("\"loop,stats\""), "loop.txt"))
		BOOST_TEST((m.text.starts_with("rtapp_loop: ") || m.text.starts_with("rtapp_stats: ")), m.text);
	BOOST_TEST(run_markers(with_ftrace("true"), "true.txt").size() ==
		   run_markers(test::fixture("workload/markers.json").string(), "all.txt").size());
	BOOST_TEST(run_markers("periodic", "periodic.txt").empty());

	const auto bad = with_ftrace("\"main,sched\"");
	const auto r = test::run_cli({"run", "--workload", bad, "--trace", temp_path("bad.txt").string()});
	BOOST_TEST(r.exit_status == 2, r.err);
	BOOST_TEST(r.err == "sched-harness: error: " + bad +
				    ": global.ftrace \"main,sched\": \"sched\" is not a category (rt-app's are main, task, "
				    "loop, event, stats and none)\n",
		   r.err);
}

// The markers observe: a run traced with them is the run untraced.
BOOST_AUTO_TEST_CASE(rtapp_markers_leave_the_run_as_it_is)
{
	const auto workload = test::fixture("workload/markers.json").string();
	const auto traced = test::run_json({"--workload", workload, "--trace", temp_path("t.dat").string()});
	const auto plain = test::run_json({"--workload", workload});
	BOOST_TEST(traced.tool.out == plain.tool.out);
}

BOOST_AUTO_TEST_SUITE_END()
