// SPDX-License-Identifier: GPL-2.0
//
// Debian's rt-app examples (the rt-app package's) through sched-harness
// run: those whose events and policies the workload reader supports run
// on the kernel's scheduler; the others are refused, naming what is not
// supported.
#include "run_json.h"
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

using namespace sh;

namespace {

const std::filesystem::path rt_app_examples = "/usr/share/doc/rt-app/examples";

using test::run_json;

} // namespace

BOOST_AUTO_TEST_SUITE(workload)

BOOST_AUTO_TEST_CASE(debian_rt_app_examples_run)
{
	BOOST_REQUIRE_MESSAGE(std::filesystem::is_directory(rt_app_examples),
			      rt_app_examples << " is missing: install Debian's rt-app package");
	for (const char *file : {"template.json", "mp3-short.json", "browser-short.json", "spreading-tasks.json",
				 "tutorial/example3.json", "tutorial/example7.json"}) {
		auto r = run_json({"--workload", (rt_app_examples / file).string(), "--duration", "2s"});
		std::int64_t cpu_time = 0;
		for (const auto &t : r.json["tasks"].GetArray())
			cpu_time += t["cpu_time_ns"].GetInt64();
		BOOST_TEST_MESSAGE(file << ": " << r.json["tasks"].Size() << " threads, " << cpu_time / 1000000
					<< " ms of CPU time, " << r.json["wakeups"].GetUint64() << " wake-ups");
		BOOST_TEST(r.json["tasks"].Size() > 0u);
		BOOST_TEST(cpu_time > 0);
		BOOST_TEST(r.json["wakeups"].GetUint64() > 0u);
	}
}

BOOST_AUTO_TEST_CASE(debian_rt_app_unsupported_examples_are_rejected)
{
	BOOST_REQUIRE(std::filesystem::is_directory(rt_app_examples));
	struct Case {
		const char *file;
		std::string message;
	} cases[] = {
		{"tutorial/example6.json", "task \"thread0\": event \"mem\" is not supported"},
		{"cpufreq_governor_efficiency/dvfs.json", "task \"thread\": policy SCHED_FIFO is not supported yet"},
		{"video-short.json", "video-short.json:6:13: Missing a colon"},
		{"tutorial/example8.json", "task \"thread0\": phase \"phase1\": a per-phase \"cpus\""},
	};
	for (const auto &c : cases) {
		auto r = test::run_cli({"run", "--workload", (rt_app_examples / c.file).string()});
		BOOST_TEST_MESSAGE(r.err);
		BOOST_TEST(r.exit_status == 2);
		BOOST_TEST(r.err.find(c.message) != std::string::npos);
		BOOST_TEST(r.out.empty());
	}
}

BOOST_AUTO_TEST_SUITE_END()
