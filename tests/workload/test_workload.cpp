// SPDX-License-Identifier: GPL-2.0
//
// rt-app files read as rt-app reads them (comments, trailing commas,
// repeated keys kept in order, events matched by prefix), the built-ins'
// parameters, and a clear message for each bad input.
#include "support.h"

#include "harness/workload/workload.h"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sh;
using workload::EventKind;

namespace {

std::vector<EventKind> kinds(const workload::Phase &p)
{
	std::vector<EventKind> k;
	for (const auto &e : p.events)
		k.push_back(e.kind);
	return k;
}

std::string error_of(const std::string &spec)
{
	try {
		workload::make_workload(spec);
	} catch (const workload::Error &e) {
		return e.what();
	}
	return "(no error)";
}

std::string parse_error(const std::string &text)
{
	try {
		workload::parse_rtapp(text, "x.json");
	} catch (const workload::Error &e) {
		return e.what();
	}
	return "(no error)";
}

} // namespace

namespace sh::workload {
std::ostream &operator<<(std::ostream &os, EventKind k) { return os << static_cast<int>(k); }
} // namespace sh::workload

BOOST_AUTO_TEST_SUITE(workload_rtapp)

BOOST_AUTO_TEST_CASE(dialect_keeps_repeated_keys_in_order)
{
	auto w = workload::load_rtapp(test::fixture("workload/dialect.json"));
	BOOST_REQUIRE_EQUAL(w.tasks.size(), 2u);
	BOOST_TEST(*w.duration_ns == 3'000'000'000LL);
	BOOST_TEST(w.calibration_cpu == 4u);

	const auto &worker = w.tasks[0];
	BOOST_TEST(worker.name == "worker");
	BOOST_TEST(worker.instances == 2);
	BOOST_TEST(worker.loop == 3);
	BOOST_TEST(worker.nice == -5);
	BOOST_TEST(worker.util_min == 100);
	BOOST_TEST(worker.util_max == -1);
	BOOST_TEST((worker.cpus == std::vector<unsigned>{0, 1, 2, 3}));
	BOOST_REQUIRE_EQUAL(worker.phases.size(), 1u);
	// run, sleep, run0, timer0, then sync as rt-app expands it
	const std::vector<EventKind> expected{EventKind::run,  EventKind::sleep,  EventKind::run,
					      EventKind::timer, EventKind::lock,  EventKind::signal,
					      EventKind::wait, EventKind::unlock};
	BOOST_TEST(kinds(worker.phases[0]) == expected, boost::test_tools::per_element());
	const auto &ev = worker.phases[0].events;
	BOOST_TEST(ev[0].amount == 1'000'000);	// µs -> ns
	BOOST_TEST(ev[2].amount == 500'000);
	BOOST_TEST(ev[3].amount == 10'000'000);
	BOOST_TEST(ev[3].absolute);
	BOOST_TEST(ev[6].resource == "cond");
	BOOST_TEST(ev[6].mutex == "m");

	const auto &phased = w.tasks[1];
	BOOST_TEST(phased.delay_ns == 5'000'000);
	BOOST_TEST(phased.loop == -1);
	// both "light" phases are kept, in order
	BOOST_REQUIRE_EQUAL(phased.phases.size(), 3u);
	BOOST_TEST(phased.phases[0].name == "light");
	BOOST_TEST(phased.phases[0].loop == 4);
	BOOST_TEST(phased.phases[1].name == "heavy");
	BOOST_TEST((kinds(phased.phases[1]) == std::vector<EventKind>{EventKind::runtime, EventKind::yield}));
	BOOST_TEST(phased.phases[2].name == "light");
	BOOST_TEST((kinds(phased.phases[2]) == std::vector<EventKind>{EventKind::run, EventKind::barrier}));
}

BOOST_AUTO_TEST_CASE(syntax_error_names_file_line_and_column)
{
	const auto path = test::fixture("workload/syntax-error.json").string();
	const auto msg = error_of(path);
	BOOST_TEST_MESSAGE(msg);
	// the missing comma after "run" : 1000 is seen at the next key
	BOOST_TEST(msg.find(path + ":5:4: ") == 0u);
}

BOOST_AUTO_TEST_CASE(unsupported_policy_and_events_name_the_task)
{
	BOOST_TEST(parse_error(R"({"tasks": {"rt": {"policy": "SCHED_FIFO", "run": 10}}})") ==
		   "x.json: task \"rt\": policy SCHED_FIFO is not supported yet (only SCHED_OTHER: the simulator "
		   "drives the fair class)");
	BOOST_TEST(parse_error(R"({"tasks": {"m": {"mem": 100, "run": 10}}})").find("task \"m\": event \"mem\" is not supported") !=
		   std::string::npos);
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"frobnicate": 1}}})") ==
		   "x.json: task \"t\": unknown key or event \"frobnicate\"");
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"run": -5}}})") == "x.json: task \"t\": run -5 must not be negative");
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"timer": {"ref": "a", "period": 0}}}})") ==
		   "x.json: task \"t\": timer: period must be positive");
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"run": 1}}, "global": {"duration": 0}})") ==
		   "x.json: global.duration 0: must be positive, or -1 (until every task ends)");
	BOOST_TEST(parse_error(R"({"tasks": {}})") == "x.json: no \"tasks\" object, or it is empty");
	// sched-harness's extension: sched_setattr() flags a patch adds
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"sched_flags": -1, "run": 1}}})") ==
		   "x.json: task \"t\": sched_flags -1 is outside 0..4294967295");
	BOOST_TEST(workload::parse_rtapp(R"({"tasks": {"t": {"sched_flags": 128, "run": 1}}})", "x.json")
			   .tasks[0]
			   .sched_flags == 128u);
}

// A FIFO nobody writes to: the read blocked forever; it now reads as empty.
BOOST_AUTO_TEST_CASE(fifo_without_a_writer_reads_as_empty)
{
	const auto fifo = std::filesystem::temp_directory_path() / fmt::format("sh-fifo-test.{}", ::getpid());
	std::filesystem::remove(fifo);
	BOOST_REQUIRE_EQUAL(::mkfifo(fifo.c_str(), 0600), 0);
	const auto msg = error_of(fifo.string());
	std::filesystem::remove(fifo);
	BOOST_TEST(msg == fifo.string() + ":1:1: The document is empty.");
}

// Hostile files: each refused with the file, the task and the limit, none
// crashing, wrapping or silently changing a number.
BOOST_AUTO_TEST_CASE(hostile_files_are_refused_with_their_limit)
{
	// 20,000 levels of nesting: the recursive parse overflowed the stack
	const std::string deep = "{\"tasks\": " + std::string(20000, '[') + std::string(20000, ']') + "}";
	BOOST_TEST(parse_error(deep) == "x.json:1:74: objects and arrays nested deeper than 64 levels");
	// a timer without "ref" dereferenced null in the executor
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"run": 1, "timer": {"period": 100}}}})") ==
		   "x.json: task \"t\": timer needs \"ref\", the name of the timer");
	// unit conversions that overflowed: 2^54 us became 384 ns
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"timer": {"ref": "a", "period": 18446744073709552}}}})") ==
		   "x.json: task \"t\": timer.period 18446744073709552 us: more than this tool simulates "
		   "(1000000 s, about 11.6 days)");
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"run": 1}}, "global": {"duration": 9223372037}})") ==
		   "x.json: global.duration 9223372037 s: more than this tool simulates (1000000 s, about 11.6 days)");
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"run": 18446744073709551615}}})") ==
		   "x.json: task \"t\": run must be an integer");
	// narrowing: instance 2^32 + 1 ran one instance, CPU 2^32 was CPU 0
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"instance": 4294967297, "run": 1}}})") ==
		   "x.json: task \"t\": instance 4294967297 is outside 0..4000");
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"cpus": [4294967296], "run": 1}}})") ==
		   "x.json: task \"t\": cpus 4294967296 is outside 0..4095");
	// the calibration CPU: sscanf's %u read "CPU4294967296" as CPU0, "CPU1x" as CPU1
	for (const char *cpu : {"CPU4294967296", "CPU1x", "CPU", "CPU-1", "cpu1", "CPU4096"})
		BOOST_TEST(parse_error(fmt::format(R"({{"tasks": {{"t": {{"run": 1}}}}, "global": {{"calibration": "{}"}}}})",
						   cpu)) ==
			   fmt::format("x.json: global.calibration \"{}\": expected \"CPUn\", n from 0 to 4095", cpu));
	// a negative delay was ignored
	BOOST_TEST(parse_error(R"({"tasks": {"t": {"delay": -5, "run": 1}}})") ==
		   "x.json: task \"t\": delay -5 must not be negative");
	// names with control characters forged report and trace lines
	BOOST_TEST(parse_error("{\"tasks\": {\"a\\nb\": {\"run\": 1}}}") ==
		   "x.json: task name \"a\\nb\" has a control character (0x0a)");
	BOOST_TEST(parse_error("{\"tasks\": {\"t\": {\"run\": 1, \"timer\": {\"ref\": \"x\\u001b[31m\", \"period\": 9}}}}") ==
		   "x.json: task \"t\": timer: resource \"x\\x1b[31m\" has a control character (0x1b)");
	// more threads than the shim's pid space, across tasks
	BOOST_TEST(parse_error(R"({"tasks": {"a": {"instance": 3000, "run": 1}, "b": {"instance": 1001, "run": 1}}})") ==
		   "x.json: 4001 threads (tasks x instances); this tool runs at most 4000");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(workload_builtins)

// Counts are checked before anything is allocated; shares must be numbers.
BOOST_AUTO_TEST_CASE(hostile_parameters_are_refused_with_their_limit)
{
	BOOST_TEST(error_of("periodic:count=1000000000") == "workload periodic: count=1000000000 must be at most 4000");
	BOOST_TEST(error_of("hackbench:groups=1000,fds=100") ==
		   "workload hackbench: 1000 groups x 100 fds make 200000 threads; at most 4000");
	BOOST_TEST(error_of("periodic:duty=nan") == "workload periodic: duty=nan must be more than 0% and at most 100%");
	BOOST_TEST(error_of("periodic:period=9223372036854775807ns").find("more than this tool simulates") !=
		   std::string::npos);
	BOOST_TEST(error_of("periodic:period=18446744074s") ==
		   "workload periodic: period \"18446744074s\": more than this tool simulates (1000000 s, about 11.6 days)");
}

// A CPU number too big for its type is an error, not the first CPU: "0-2^40"
// once read as "0-0" (std::from_chars leaves the value alone on overflow).
BOOST_AUTO_TEST_CASE(cpu_lists_refuse_numbers_beyond_the_limit)
{
	BOOST_TEST((workload::parse_cpu_list("0-3,6", "x") == std::set<unsigned>{0, 1, 2, 3, 6}));
	for (const auto *bad : {"0-99999999999", "99999999999", "4096", "3-1", "-2", "a"}) {
		try {
			workload::parse_cpu_list(bad, "x");
			BOOST_ERROR(bad << " was accepted");
		} catch (const workload::Error &e) {
			BOOST_TEST(std::string(e.what()) ==
				   fmt::format("x: cpus \"{}\": expected a list like 0-3,6 (CPUs below 4096)", bad));
		}
	}
}

BOOST_AUTO_TEST_CASE(periodic_is_run_then_timer)
{
	auto w = workload::make_workload("periodic:count=24,period=16ms,duty=10%");
	BOOST_TEST(w.name == "periodic:count=24,period=16ms,duty=10%,calibration=0");
	BOOST_REQUIRE_EQUAL(w.tasks.size(), 24u);
	const auto &ev = w.tasks[0].phases[0].events;
	BOOST_REQUIRE_EQUAL(ev.size(), 2u);
	BOOST_TEST(ev[0].kind == EventKind::run);
	BOOST_TEST(ev[0].amount == 1'600'000);
	BOOST_TEST(ev[1].kind == EventKind::timer);
	BOOST_TEST(ev[1].amount == 16'000'000);
	BOOST_TEST(w.tasks[0].loop == -1);
	BOOST_TEST(workload::make_workload("periodic:duty=0.25,period=4ms").tasks[0].phases[0].events[0].amount ==
		   1'000'000);
}

BOOST_AUTO_TEST_CASE(hackbench_senders_and_receivers)
{
	auto w = workload::make_workload("hackbench:groups=2,fds=3,loops=5");
	BOOST_REQUIRE_EQUAL(w.tasks.size(), 12u);	// 2 x (3 senders + 3 receivers)
	const auto &sender = w.tasks[0];
	BOOST_TEST(sender.loop == 1);
	BOOST_TEST(sender.phases[0].loop == 5);
	BOOST_TEST(sender.phases[0].events.size() == 6u);	// (run, send) to each receiver
	const auto &receiver = w.tasks[3];
	BOOST_TEST(receiver.name == "hb-0-recv-0");
	BOOST_TEST(receiver.phases[0].loop == 15);	// every sender's 5 messages
	BOOST_TEST(receiver.phases[0].events[0].kind == EventKind::receive);
}

BOOST_AUTO_TEST_CASE(bad_parameters_are_one_clear_line)
{
	BOOST_TEST(error_of("periodic:period=0ms") == "workload periodic: period \"0ms\": must be positive");
	BOOST_TEST(error_of("periodic:period=-16ms") == "workload periodic: period \"-16ms\": must be positive");
	BOOST_TEST(error_of("periodic:duty=150%") ==
		   "workload periodic: duty=150% must be more than 0% and at most 100%");
	BOOST_TEST(error_of("periodic:duty=0%") == "workload periodic: duty=0% must be more than 0% and at most 100%");
	BOOST_TEST(error_of("periodic:period=16") ==
		   "workload periodic: period \"16\": unknown unit \"\" (ns, us, ms or s)");
	BOOST_TEST(error_of("periodic:colour=red") ==
		   "workload periodic: unknown parameter \"colour\" (it has: count, period, duty, calibration)");
	BOOST_TEST(error_of("periodic:count=0") == "workload periodic: count=0 must be at least 1");
	// an event storm, not a workload: a billion timer events per simulated second
	BOOST_TEST(error_of("periodic:period=1ns") == "workload periodic: period=1ns is below 1us, rt-app's resolution");
	BOOST_TEST(error_of("hackbench:work=999ns") == "workload hackbench: work=999ns is below 1us, rt-app's resolution");
	BOOST_TEST(error_of("nosuch") ==
		   "unknown workload \"nosuch\": a built-in (periodic, hackbench, fixed-work, turbo-jitter) or an "
		   "rt-app .json file");
	BOOST_TEST(error_of("missing.json") == "missing.json: cannot read the workload file");
}

BOOST_AUTO_TEST_SUITE_END()
