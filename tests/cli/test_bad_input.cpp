// SPDX-License-Identifier: GPL-2.0
//
// Bad input through the sched-harness binary: hostile command lines and
// files (devices, numbers past the limits, a full disk) and run's mistakes
// are each one line on stderr naming the value and the limit, and exit
// status 2 (128 when the output cannot be written), never a kernel fault.
#include "support.h"
#include "tree_features.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace sh;

namespace {

using test::temp_path;

} // namespace

BOOST_AUTO_TEST_SUITE(cli)

// Hostile command lines and files: each is bad input (exit 2) with one
// line naming the value and the limit, where before a device as input grew
// without bound, numbers wrapped silently or a limit of the shim surfaced
// as a kernel fault (exit 3).
BOOST_AUTO_TEST_CASE(hostile_command_lines_are_bad_input)
{
	auto refused = [](std::initializer_list<std::string> args, const std::string &message) {
		const auto r = test::run_cli(args);
		BOOST_TEST(r.exit_status == 2, fmt::format("{}: {}", fmt::join(args, " "), r.err));
		BOOST_TEST(r.err == "sched-harness: error: " + message + "\n", r.err);
	};
	refused({"run", "--workload", "/dev/zero"},
		"/dev/zero: workload file larger than 64 MiB: not read (a device or a runaway file?)");
	refused({"run", "--board", "/dev/zero"},
		"/dev/zero: device tree larger than 64 MiB: not read (a device or a runaway file?)");
	refused({"kernel", "build", "--patch", "/dev/zero"}, "/dev/zero: not a regular file (a patch is read whole)");
	refused({"run", "--duration", "18446744074"},
		"--duration 18446744074 s: more than this tool simulates (1000000 s, about 11.6 days)");
	refused({"run", "--duration", "9223372036854775807ns"},
		"--duration \"9223372036854775807ns\": more than this tool simulates (1000000 s, about 11.6 days)");
	refused({"run", "--seed", "-1"}, "the argument ('-1') for option '--seed' is invalid");
	refused({"run", "--fork-cpu", "4294967296"}, "--fork-cpu 4294967296: at most 4095");
	// an OPP table cpufreq refuses: it was "cpufreq policy for CPUs 0,1,2,3
	// failed: -22", exit 3
	const auto hikey960 = dts::resolve_board("hikey960", test::kernel_tree()).string();
	refused({"run", "--overlay", test::fixture("kernel/hikey960-turbo-only.dtso").string(), "--board", "hikey960"},
		fmt::format("{}: {}: the kernel's cpufreq refuses this OPP table for CPUs 0,1,2,3 "
			    "(cpufreq_table_validate_and_sort(): -EINVAL): no frequency is left once the turbo-mode "
			    "OPPs are left out (boost is off)",
			    hikey960, test::hikey960_little_opp_table()));
	refused({"run", "--overlay", test::fixture("kernel/hikey960-khz-duplicate.dtso").string(), "--board",
		 "hikey960"},
		fmt::format("{}: {}: the kernel's cpufreq refuses this OPP table for CPUs 0,1,2,3 "
			    "(cpufreq_table_validate_and_sort(): -EINVAL): the kernel says \"freq_table: Duplicate "
			    "freq-table entries: 533000\" (two OPPs with one frequency in kHz)",
			    hikey960, test::hikey960_little_opp_table()));
	// --jobs 0 read as 1 in compare, check and sweep and as every core in bisect
	for (const auto *command : {"compare", "sweep", "check", "bisect"})
		refused({command, "--jobs", "0"}, "--jobs 0: at least 1 (without --jobs, every core)");

	// the report written to a full disk: an error, not exit 0
	const auto full = support::run_tool(std::vector<std::string>{
		"/bin/sh", "-c", fmt::format("'{}' run --duration 10ms > /dev/full", SH_TEST_HARNESS_BIN)});
	BOOST_TEST(full.exit_status == 128, full.err);
	BOOST_TEST(full.err == "sched-harness: error: writing the output failed: No space left on device\n", full.err);
	// and so are a trace or a series written to it
	for (const auto *what : {"--trace", "--series"}) {
		const auto r = test::run_cli({"run", "--duration", "10ms", what, "/dev/full"});
		BOOST_TEST(r.exit_status == 128, what << ": " << r.err);
		BOOST_TEST(r.err.find("sched-harness: error: ") == 0u, r.err);
		BOOST_TEST(r.err.find("No space left on device") != std::string::npos, r.err);
	}

	// a command line longer than the kernel's: "kshim_boot_early(8) failed:
	// -7", exit 3, before
	// (the harness's parameter: test::sched_verbose_parameter(), 5.10's
	// sched_debug one byte shorter)
	const std::string verbose = test::sched_verbose_parameter();
	refused({"run", "--board", "hikey960", "--cmdline", std::string(3000, 'a')},
		fmt::format("--cmdline: {} bytes with the harness's '{} '; the kernel's command line holds 2048 "
			    "(COMMAND_LINE_SIZE, its NUL included)",
			    3000 + verbose.size() + 1, verbose));
	// the architecture's size: ARMv7's is 1024 (arch/arm/include/uapi/asm/setup.h)
	refused({"run", "--board", "odroid-xu3", "--cmdline", std::string(1500, 'a')},
		fmt::format("--cmdline: {} bytes with the harness's '{} '; the kernel's command line holds 1024 "
			    "(COMMAND_LINE_SIZE, its NUL included)",
			    1500 + verbose.size() + 1, verbose));

	// more CPUs than the arm flavour's NR_CPUS (64): "kshim_boot_early(65)
	// failed: -22", exit 3, before
	const auto dts = temp_path("c65.dts");
	{
		std::ofstream out(dts);
		out << "/dts-v1/;\n/ {\n\tmodel = \"65 CPUs\";\n\tcompatible = \"test,many\";\n"
		       "\t#address-cells = <1>;\n\t#size-cells = <1>;\n\tcpus {\n\t\t#address-cells = <1>;\n"
		       "\t\t#size-cells = <0>;\n";
		for (int i = 0; i < 65; i++)
			out << fmt::format("\t\tcpu@{0} {{ device_type = \"cpu\"; compatible = \"arm,cortex-a7\"; "
					   "reg = <{0}>; capacity-dmips-mhz = <1024>; }};\n", i);
		out << "\t};\n};\n";
	}
	refused({"platform", "show", dts.string()},
		dts.string() + ": the board has 65 CPUs; this build's arm flavour supports 64 (NR_CPUS)");
	std::filesystem::remove(dts);
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_status_2)
{
	struct Case {
		std::vector<std::string> args;
		std::string message;
	} cases[] = {
		{{"--board", "no-such-board"}, "no-such-board"},
		{{"--workload", test::fixture("workload/syntax-error.json").string()},
		 test::fixture("workload/syntax-error.json").string() + ":5:4: "},
		{{"--workload", "periodic:period=0ms"}, "period \"0ms\": must be positive"},
		{{"--workload", "periodic:period=-5ms"}, "period \"-5ms\": must be positive"},
		{{"--workload", "periodic:duty=150%"}, "duty=150% must be more than 0% and at most 100%"},
		{{"--workload", test::fixture("workload/bad-cpus.json").string()},
		 "task \"pinned\": cpus names CPU9, the board has CPU0-7"},
		// it ran 10^7 events at one instant (about 50 s), then blamed the kernel
		{{"--workload", test::fixture("workload/zero-time-loop.json").string(), "--jitter", "0"},
		 "task \"spinner\": its events loop forever without taking time: its runs and sleeps are 0 long and "
		 "--jitter 0 delays no timer"},
		// with jitter runs of 0 alone: 15 s of CPU per simulated 0.2 s, before
		{{"--workload", test::fixture("workload/zero-run-loop.json").string()},
		 "task \"spinner\": its events loop forever without taking time: its runs are 0 long and it neither "
		 "sleeps nor waits"},
		{{"--duration", "0"}, "--duration 0: must be positive"},
		{{"--duration", "0s"}, "must be positive"},
		{{"--fork-cpu", "8"}, "--fork-cpu 8: the board has CPU0-7"},
		{{"--idle-power", "5=100"}, "--idle-power 5=100: the board has frequency domains 0-1"},
		// read as 0 uW, before
		{{"--idle-power", "0=99999999999999999999"},
		 "--idle-power 0=99999999999999999999: expected DOMAIN=MICROWATTS (e.g. 0=5000)"},
		{{"--idle-power", "0=200000000"}, "--idle-power 0=200000000: at most 100000000 uW (100 W) per CPU"},
		{{"--trace", "/nonexistent-dir/trace.txt"}, "/nonexistent-dir/trace.txt: cannot write the trace"},
		{{"--idle-tick", "sometimes"}, "--idle-tick sometimes: say kernel, retain or stop"},
		{{"--cmdline", "cpuidle.off=abc"}, "--cmdline: Booting kernel: `abc' invalid for parameter `cpuidle.off'"},
	};
	for (const auto &c : cases) {
		std::vector<std::string> argv{SH_TEST_HARNESS_BIN, "run"};
		argv.insert(argv.end(), c.args.begin(), c.args.end());
		auto r = support::run_tool(argv);
		BOOST_TEST_MESSAGE(r.err);
		BOOST_TEST(r.exit_status == 2);
		BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1);
		BOOST_TEST(r.err.find(c.message) != std::string::npos, r.err << " lacks " << c.message);
		BOOST_TEST(r.out.empty());
	}
}

// --thermal-cap's frequency: a plain number is kHz, and 1421000kHz,
// 1421MHz, 1.421GHz say the same cap with a unit (they were bad input); a
// cap below the lowest OPP of a CPU it names is bad input naming that OPP
// in kHz (900, MHz typed for kHz, ran HiKey960's big CPUs at their lowest
// OPP without a word).
BOOST_AUTO_TEST_CASE(thermal_cap_units_and_the_lowest_opp)
{
	auto run = [](const std::string &cap) {
		return test::run_cli({"run", "--board", "hikey960", "--duration", "100ms", "--json", "--thermal-cap", cap});
	};
	const auto khz = run("4-7=1421000@1ms");
	BOOST_TEST_REQUIRE(khz.exit_status == 0, khz.err);
	BOOST_TEST(khz.out != run("4-7=off@1ms").out);	// the cap throttles
	for (const std::string cap : {"4-7=1421000kHz@1ms", "4-7=1421MHz@1ms", "4-7=1.421GHz@1ms"}) {
		const auto r = run(cap);
		BOOST_TEST(r.exit_status == 0, cap << ": " << r.err);
		BOOST_TEST(r.out == khz.out, cap);
	}
	auto refused = [&](const std::string &cap, const std::string &message) {
		const auto r = run(cap);
		BOOST_TEST(r.exit_status == 2, cap << ": " << r.err);
		BOOST_TEST(r.err == "sched-harness: error: --thermal-cap " + cap + ": " + message + "\n");
	};
	refused("4-7=900@1s", "900 kHz is below CPU4-7's lowest OPP, 903000 kHz; a number without a unit is kHz "
			      "(900MHz for MHz)");
	refused("4-7=900MHz@1s", "900000 kHz is below CPU4-7's lowest OPP, 903000 kHz");
	refused("0-7=500MHz@1s",
		"500000 kHz is below CPU0-3's lowest OPP, 533000 kHz, and CPU4-7's lowest OPP, 903000 kHz");
	for (const std::string bad : {"1.5", "1.4215MHz", "2THz", "GHz", ".5GHz", "1.GHz"})
		refused("4-7=" + bad + "@1s",
			"\"" + bad + "\" is not a frequency in kHz (or with a unit: 900MHz, 1.2GHz; or off)");
	// the lowest OPP itself is a cap
	BOOST_TEST(run("4-7=903MHz@1ms").exit_status == 0);
}

BOOST_AUTO_TEST_SUITE_END()
