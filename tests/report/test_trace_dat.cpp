// SPDX-License-Identifier: GPL-2.0
//
// The run's trace as trace-cmd's trace.dat (--trace FILE.dat): what
// `trace-cmd report` (Debian's trace-cmd, installed by scripts/setup.sh)
// reads from it is the text trace, event for event, field for field, at
// the same times; the file holds the image's own event formats; a traced
// run is the run untraced; the same run gives the same bytes; and a file
// that cannot be written whole is an error.
#include "run_json.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace sh;
using test::read_file;
using test::run_json;
using test::temp_path;

namespace {

// One line of either trace, as both print it: the task current on the CPU,
// the event and its fields (TP_printk's text), and the time in µs (the text
// trace's precision; trace-cmd's -t prints ns, which the text truncates).
struct Line {
	std::string comm;
	int pid = 0;
	std::string event;
	std::string fields;
	unsigned long long us = 0;

	bool operator==(const Line &) const = default;
};

std::ostream &operator<<(std::ostream &out, const Line &l)
{
	return out << l.comm << "-" << l.pid << " " << l.us << "us " << l.event << ": " << l.fields;
}

using PerCpu = std::map<int, std::vector<Line>>;

// `trace-cmd report -N -t`: no plugins (each event printed by its own
// print fmt, as the kernel prints it), timestamps in ns.
PerCpu trace_cmd_report(const std::filesystem::path &dat)
{
	const auto r = support::run_tool(std::vector<std::string>{"trace-cmd", "report", "-N", "-t", dat.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, "trace-cmd report " << dat.string() << " failed (is Debian's trace-cmd "
								      "installed? scripts/setup.sh installs it): "
								   << r.err);
	BOOST_TEST(r.err.find("error") == std::string::npos, r.err);
	const std::regex line(R"(^ *(\S+)-(\d+) +\[(\d{3})\] +(\d+)\.(\d{9}): (\w+): +(.*)$)");
	PerCpu cpus;
	std::istringstream in(r.out);
	std::string l;
	while (std::getline(in, l)) {
		if (l.starts_with("cpus=") || l.empty())
			continue;
		std::smatch m;
		BOOST_REQUIRE_MESSAGE(std::regex_match(l, m, line), "not a trace-cmd report line: " << l);
		Line parsed{m[1].str(), std::stoi(m[2].str()), m[6].str(), m[7].str(),
			    std::stoull(m[4].str()) * 1000000 + std::stoull(m[5].str()) / 1000};
		// a write to trace_marker: ftrace's print entry, "%ps: %s" of the
		// function that wrote it and the text, which the text trace
		// shows as the kernel's trace file does, the function first
		const std::string_view mark = "tracing_mark_write: ";
		if (parsed.event == "print" && parsed.fields.starts_with(mark))
			parsed = {parsed.comm, parsed.pid, "tracing_mark_write", parsed.fields.substr(mark.size()), parsed.us};
		cpus[std::stoi(m[3].str())].push_back(parsed);
	}
	return cpus;
}

PerCpu text_trace(const std::filesystem::path &text, const std::set<std::string> &events)
{
	const std::regex line(R"(^ *(\S+)-(\d+) +\[(\d{3})\] \S{5} +(\d+)\.(\d{6}): (\w+): (.*)$)");
	PerCpu cpus;
	std::istringstream in(read_file(text));
	std::string l;
	while (std::getline(in, l)) {
		if (l.empty() || l[0] == '#')
			continue;
		std::smatch m;
		BOOST_REQUIRE_MESSAGE(std::regex_match(l, m, line), "not an ftrace line: " << l);
		if (events.contains(m[6].str()))
			cpus[std::stoi(m[3].str())].push_back({m[1].str(), std::stoi(m[2].str()), m[6].str(), m[7].str(),
							       std::stoull(m[4].str()) * 1000000 + std::stoull(m[5].str())});
	}
	return cpus;
}

// The events a trace.dat holds: `trace-cmd report --events` lists their
// formats ("name: NAME" lines).
std::set<std::string> dat_events(const std::filesystem::path &dat)
{
	const auto r = support::run_tool(std::vector<std::string>{"trace-cmd", "report", "--events", dat.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	std::set<std::string> names;
	std::istringstream in(r.out);
	std::string l;
	while (std::getline(in, l))
		if (l.starts_with("name: "))
			names.insert(l.substr(6));
	return names;
}

// Runs the scenario traced both ways and compares them; returns how many
// events of each kind the trace.dat held.
std::map<std::string, std::size_t> compare_traces(const std::vector<std::string> &run_args)
{
	const auto dat = temp_path("run.dat"), text = temp_path("run.txt");
	auto args = run_args;
	args.insert(args.end(), {"--trace", dat.string()});
	const auto dat_run = run_json(args);
	args = run_args;
	args.insert(args.end(), {"--trace", text.string()});
	const auto text_run = run_json(args);
	BOOST_TEST(dat_run.tool.out == text_run.tool.out);

	const auto events = dat_events(dat);
	// every event of the text trace: the kernel's ftrace events, and the
	// harness's for the bare tracepoints (PELT, util_est,
	// sched_overutilized; sched/glue/sched_tp.h)
	for (const char *e : {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
			      "cpu_frequency", "cpu_idle", "thermal_temperature", "sched_pelt_cfs", "sched_pelt_se",
			      "sched_pelt_rt", "sched_pelt_dl", "sched_util_est_cfs", "sched_util_est_se",
			      "sched_overutilized"})
		BOOST_TEST(events.contains(e), e << " is not in the trace.dat");

	const auto from_dat = trace_cmd_report(dat);
	// and the workload's writes to trace_marker, in either
	auto text_events = events;
	text_events.insert("tracing_mark_write");
	const auto from_text = text_trace(text, text_events);
	BOOST_TEST(from_dat.size() == from_text.size());
	std::size_t lines = 0, switches = 0;
	std::map<std::string, std::size_t> counts;
	for (const auto &[cpu, expected] : from_text) {
		const auto it = from_dat.find(cpu);
		BOOST_REQUIRE_MESSAGE(it != from_dat.end(), "CPU" << cpu << " has no events in the trace.dat");
		const auto &got = it->second;
		BOOST_TEST(got.size() == expected.size(), "CPU" << cpu);
		for (std::size_t i = 0; i < std::min(got.size(), expected.size()); i++) {
			BOOST_REQUIRE_MESSAGE(got[i] == expected[i], "CPU" << cpu << " event " << i << ": trace-cmd reports\n  "
									  << got[i] << "\nthe text trace has\n  "
									  << expected[i]);
			switches += got[i].event == "sched_switch";
			counts[got[i].event]++;
		}
		lines += expected.size();
	}
	BOOST_TEST_MESSAGE(lines << " events compared");
	BOOST_TEST(switches == dat_run.json["context_switches"].GetUint64());
	return counts;
}

} // namespace

BOOST_AUTO_TEST_SUITE(report)

// The default scenario (thermal and frequency events included) and a
// message-passing one with migrations.
BOOST_AUTO_TEST_CASE(trace_cmd_reports_the_text_trace)
{
	compare_traces({"--duration", "2s"});
}

BOOST_AUTO_TEST_CASE(trace_cmd_reports_the_text_trace_of_hackbench)
{
	compare_traces({"--duration", "1s", "--workload", "hackbench", "--board", "odroid-xu3"});
}

// rt-app's markers are ftrace's print entries in the trace.dat, with the
// kernel's own format of them, and the text trace's lines.
BOOST_AUTO_TEST_CASE(trace_cmd_reports_the_text_trace_of_an_rtapp_file)
{
	const auto counts = compare_traces({"--workload", test::fixture("workload/markers.json").string()});
	BOOST_TEST(counts.at("tracing_mark_write") > 300u);
	BOOST_TEST(counts.at("sched_waking") > 0u);
}

// The formats are the image's: sched_switch's as the tree's
// trace/events/sched.h lays it out, at the offsets the kernel gives its
// fields (after the common fields, each aligned to its type).
BOOST_AUTO_TEST_CASE(trace_dat_holds_the_kernels_formats)
{
	const auto dat = temp_path("formats.dat");
	run_json({"--duration", "100ms", "--trace", dat.string(), "--trace-events", "sched_switch"});
	const auto r = support::run_tool(std::vector<std::string>{"trace-cmd", "report", "--events", dat.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	BOOST_TEST(dat_events(dat) == std::set<std::string>{"sched_switch"});
	for (const char *field : {"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
				  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n",
				  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n",
				  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n",
				  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"})
		BOOST_TEST(r.out.find(field) != std::string::npos, field << "in\n" << r.out);
	BOOST_TEST(r.out.find("print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s") !=
		   std::string::npos, r.out);
}

// Tracing observes a run (test_trace.cpp's a_traced_run_is_the_run_untraced):
// the kernel's class probes that write the records are not kernel time.
BOOST_AUTO_TEST_CASE(a_dat_traced_run_is_the_run_untraced_and_the_same_bytes)
{
	const auto a = temp_path("a.dat"), b = temp_path("b.dat");
	const auto traced = run_json({"--duration", "2s", "--trace", a.string()});
	run_json({"--duration", "2s", "--trace", b.string()});
	const auto plain = run_json({"--duration", "2s"});
	BOOST_TEST(traced.tool.out == plain.tool.out);
	BOOST_TEST(traced.json["kernel_time"]["blocks"].GetUint64() == plain.json["kernel_time"]["blocks"].GetUint64());
	const auto bytes = read_file(a);
	BOOST_TEST(bytes.size() > 4096u);
	BOOST_TEST(bytes == read_file(b));
	BOOST_TEST(bytes.compare(0, 10, std::string("\x17\x08\x44tracing", 10)) == 0);
}

// A 2 s run's trace.dat written to a full disk: exit 128 naming the file
// and the reason, never a truncated file and exit 0.
BOOST_AUTO_TEST_CASE(trace_dat_to_a_full_disk_is_an_error)
{
	const auto full = temp_path("full.dat");
	std::filesystem::create_symlink("/dev/full", full);
	const auto r = test::run_cli({"run", "--duration", "2s", "--trace", full.string()});
	BOOST_TEST(r.exit_status == 128, r.err);
	BOOST_TEST(r.err.find(full.string() + ": writing the trace failed: No space left on device") != std::string::npos,
		   r.err);
	// and --trace-stacktrace, which only the text trace has
	const auto s = test::run_cli({"run", "--trace", temp_path("s.dat").string(), "--trace-stacktrace"});
	BOOST_TEST(s.exit_status == 2, s.err);
	BOOST_TEST(s.err.find("--trace-stacktrace: for a text trace") != std::string::npos, s.err);
}

BOOST_AUTO_TEST_SUITE_END()
