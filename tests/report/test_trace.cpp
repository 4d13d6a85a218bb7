// SPDX-License-Identifier: GPL-2.0
//
// The run's trace (--trace): ftrace's text, line by line as the kernel
// prints its events, and as many events as the report counts.
#include "run_json.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>

using namespace sh;

namespace {

using test::read_file;
using test::run_json;
using test::temp_path;

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

BOOST_AUTO_TEST_SUITE_END()
