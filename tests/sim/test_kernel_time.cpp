// SPDX-License-Identifier: GPL-2.0
//
// Kernel code takes simulated time (docs/kernel-time.md): the basic blocks
// of the tree's code each CPU executes, at its clock. A run reports them
// per event; a kernel that does more on a path shows it; the time moves
// the timestamps the kernel itself reads; --kernel-time off is the model
// before, and bad options are bad input.
#include "patches.h"
#include "run_json.h"
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

using namespace sh;
using test::run_json;

namespace {

const rapidjson::Value &kernel_time_of(const test::Run &r)
{
	return r.json["kernel_time"];
}

double per(const test::Run &r, const char *event, const char *what = "blocks")
{
	const auto &v = kernel_time_of(r)["per_event"][event][what];
	BOOST_REQUIRE_MESSAGE(v.IsNumber(), event << " has no " << what);
	return v.GetDouble();
}

// Whether the profile has `function`, under its own name or a clone GCC
// made of it (find_energy_efficient_cpu.isra.0), as perf would name it.
bool has_function(const std::map<std::string, std::uint64_t> &functions, const std::string &function)
{
	for (const auto &[name, blocks] : functions)
		if (name == function || name.starts_with(function + "."))
			return true;
	return false;
}

// The function of most blocks (ties: the first by name, as the report
// orders them).
std::string top_function(const std::map<std::string, std::uint64_t> &functions)
{
	std::string top;
	std::uint64_t most = 0;
	for (const auto &[name, blocks] : functions)
		if (blocks > most) {
			most = blocks;
			top = name;
		}
	return top;
}

} // namespace

BOOST_AUTO_TEST_SUITE(kernel_time)

// The default scenario: every kind of event costs blocks and time, the
// minimum wake-up latency is no longer 0, and some CPU waited for a lock
// another held on its own clock.
BOOST_AUTO_TEST_CASE(default_scenario_reports_kernel_time_per_event)
{
	const auto r = run_json({"--duration", "2s"});
	for (const char *event : {"wakeup", "tick", "context_switch", "balance"}) {
		BOOST_TEST(per(r, event) > 10.0, event);
		BOOST_TEST(per(r, event, "ns") > 0.0, event);
	}
	BOOST_TEST(kernel_time_of(r)["ns"].GetInt64() > 0);
	BOOST_TEST(kernel_time_of(r)["cycles_per_block"].GetDouble() == 6.0);
	BOOST_TEST(r.json["wakeup_latency_ns"]["min"].GetInt64() > 0);
	BOOST_TEST(kernel_time_of(r)["lock_spin_ns"].GetInt64() > 0);
	// CPUs took their IPIs while the waker's interrupt went on
	BOOST_TEST(kernel_time_of(r)["ipis_taken_at_locks"].GetUint64() > 0);
	// and the timer interrupts of one instant ran interleaved, and some
	// of later instants joined them while their code still ran
	BOOST_TEST(kernel_time_of(r)["interleavings"].GetUint64() > 0);
	BOOST_TEST(kernel_time_of(r)["joined_interrupts"].GetUint64() > 0);
	std::int64_t cpus_ns = 0;
	for (const auto &c : r.json["cpus"].GetArray())
		cpus_ns += c["kernel_ns"].GetInt64();
	BOOST_TEST(cpus_ns == kernel_time_of(r)["ns"].GetInt64());
}

// Off: the blocks are still counted (the same image), they take no time,
// and the wake-ups the jitter-free run makes on idle CPUs come at the
// instant of their cause again.
BOOST_AUTO_TEST_CASE(kernel_time_off_counts_blocks_but_takes_no_time)
{
	const auto off = run_json({"--duration", "2s", "--kernel-time", "off", "--jitter", "0"});
	BOOST_TEST(kernel_time_of(off)["ns"].GetInt64() == 0);
	BOOST_TEST(kernel_time_of(off)["lock_spin_ns"].GetInt64() == 0);
	BOOST_TEST(kernel_time_of(off)["ipis_taken_at_locks"].GetUint64() == 0);
	BOOST_TEST(kernel_time_of(off)["interleavings"].GetUint64() == 0);
	BOOST_TEST(kernel_time_of(off)["joined_interrupts"].GetUint64() == 0);
	BOOST_TEST(per(off, "wakeup") > 10.0);
	BOOST_TEST(off.json["wakeup_latency_ns"]["min"].GetInt64() == 0);
	const auto zero = run_json({"--duration", "2s", "--kernel-cycles-per-block", "0", "--jitter", "0"});
	BOOST_TEST(zero.json["fingerprint"].GetString() == std::string(off.json["fingerprint"].GetString()));
	const auto on = run_json({"--duration", "2s", "--jitter", "0"});
	BOOST_TEST(on.json["fingerprint"].GetString() != std::string(off.json["fingerprint"].GetString()));
}

// find_energy_efficient_cpu() is most of an EAS wake-up: without EAS the
// wake-up path executes far fewer blocks, and compare gives the metric a
// verdict.
BOOST_AUTO_TEST_CASE(work_on_the_wakeup_path_shows_per_wakeup)
{
	const auto eas = run_json({"--duration", "2s"});
	const auto no_eas = run_json({"--duration", "2s", "--sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST_MESSAGE("blocks per wake-up: EAS " << per(eas, "wakeup") << ", without " << per(no_eas, "wakeup"));
	BOOST_TEST(per(eas, "wakeup") > 2 * per(no_eas, "wakeup"));
	const auto compared = test::run_cli({"compare", "--repeat", "3", "--duration", "1s", "--b-sysctl",
					     "kernel.sched_energy_aware=0"});
	BOOST_REQUIRE_MESSAGE(compared.exit_status == 0, compared.err);
	const auto row = compared.out.find("kernel_blocks_per_wakeup");
	BOOST_REQUIRE_MESSAGE(row != std::string::npos, compared.out);
	const auto line = compared.out.substr(row, compared.out.find('\n', row) - row);
	BOOST_TEST(line.find("changed") != std::string::npos, line);
}

// The cycles a block takes scale its time: twice the cycles, twice the
// time per block, on a load that keeps every clock at its highest OPP (so
// that schedutil's choices, which the time moves, do not change the rate).
BOOST_AUTO_TEST_CASE(cycles_per_block_scale_the_time)
{
	const std::vector<std::string> full{"--duration", "1s", "--workload", "fixed-work:threads=8,work=100s",
					    "--thermal-model", "off", "--jitter", "0"};
	auto with = [&](std::vector<std::string> extra) {
		extra.insert(extra.begin(), full.begin(), full.end());
		return run_json(extra);
	};
	const auto six = with({});
	const auto twelve = with({"--kernel-cycles-per-block", "12"});
	const auto ns_per_block = [](const test::Run &r) {
		return kernel_time_of(r)["ns"].GetDouble() / kernel_time_of(r)["blocks"].GetDouble();
	};
	BOOST_TEST(ns_per_block(twelve) / ns_per_block(six) > 1.95);
	BOOST_TEST(ns_per_block(twelve) / ns_per_block(six) < 2.05);
}

// An IPI's delivery time delays a remote wake-up: the producer (CPU 1)
// resumes the consumer on the big CPU 4, whose cluster shares no cache
// with it, so ttwu_queue_wakelist() queues the wake-up there and CPU 4's
// IPI handler does it. The workload ends about the delivery time later
// (160-225 us on the four trees). The consumer's run is 10 us of work, so
// that what it takes at the big cluster's clock of that moment does not
// blur the delivery: 5.10, without inefficient OPPs, runs that cluster
// from 200 MHz, where a run of 300 us of work takes a millisecond and the
// end moved by milliseconds either way. The wake-up latency as ftrace
// measures it (sched_wakeup to sched_switch) does not include the
// delivery: the sched_wakeup is the handler's.
BOOST_AUTO_TEST_CASE(ipi_latency_delays_remote_wakeups)
{
	const auto pinned = test::fixture("workload/handshake-pinned.json").string();
	const auto none = run_json({"--workload", pinned, "--jitter", "0"});
	const auto slow = run_json({"--workload", pinned, "--jitter", "0", "--ipi-latency", "200us"});
	BOOST_TEST(slow.json["kernel_time"]["ipi_latency_ns"].GetInt64() == 200'000);
	const auto later = slow.json["completion_ns"].GetInt64() - none.json["completion_ns"].GetInt64();
	BOOST_TEST(later > 150'000);
	BOOST_TEST(later < 250'000);
}

// The hardware's latencies add to a wake-up's path: one task alone on the
// board wakes from its timer on a CPU in WFI (odroid-xu3's DT has no idle
// states), so its median wake-up waits for the WFI exit and for the timer
// interrupt's entry (the jitter-free run). Not every wake-up: one that
// comes while the CPU is already leaving WFI for another interrupt (a
// tick) waits only for the rest (on 6.12 the lone task's fastest wake-up
// does).
BOOST_AUTO_TEST_CASE(wfi_exit_and_interrupt_entry_delay_a_wakeup)
{
	const std::vector<std::string> alone{"--workload", "periodic:count=1,period=16ms,duty=10%",
					     "--duration", "1s", "--jitter", "0"};
	auto with = [&](std::vector<std::string> extra) {
		extra.insert(extra.begin(), alone.begin(), alone.end());
		return run_json(extra);
	};
	const auto median = [](const test::Run &r) { return r.json["wakeup_latency_ns"]["p50"].GetInt64(); };
	const auto none = with({});
	const auto wfi = with({"--wfi-exit-latency", "100us"});
	const auto entry = with({"--irq-entry-latency", "100us"});
	// the path's own code runs 100us later, perhaps at another clock:
	// its time may differ by nanoseconds
	for (const auto *r : {&wfi, &entry}) {
		BOOST_TEST(median(*r) - median(none) > 99'000);
		BOOST_TEST(median(*r) - median(none) < 101'000);
	}
	BOOST_TEST(wfi.json["kernel_time"]["wfi_exit_ns"].GetInt64() == 100'000);
	BOOST_TEST(entry.json["kernel_time"]["irq_entry_ns"].GetInt64() == 100'000);
	BOOST_TEST(none.json["kernel_time"]["wfi_exit_ns"].GetInt64() == 0);
}

// The profile names the functions the blocks ran in: all of them add up to
// the run's blocks, find_energy_efficient_cpu() is among them on an EAS
// board and absent without EAS, and profiling changes no decision.
BOOST_AUTO_TEST_CASE(profile_names_the_functions_that_ran)
{
	const auto function_blocks = [](const test::Run &r) {
		std::map<std::string, std::uint64_t> out;
		for (const auto &f : kernel_time_of(r)["functions"].GetArray())
			out[f["function"].GetString()] = f["blocks"].GetUint64();
		return out;
	};
	const auto plain = run_json({"--duration", "1s"});
	const auto eas = run_json({"--duration", "1s", "--kernel-profile", "100000"});
	BOOST_TEST(eas.json["fingerprint"].GetString() == std::string(plain.json["fingerprint"].GetString()));
	BOOST_TEST(!kernel_time_of(plain).HasMember("functions"));
	const auto functions = function_blocks(eas);
	BOOST_TEST(functions.size() == kernel_time_of(eas)["functions_found"].GetUint64());
	std::uint64_t sum = 0;
	for (const auto &[name, blocks] : functions)
		sum += blocks;
	BOOST_TEST(sum == kernel_time_of(eas)["blocks"].GetUint64());
	BOOST_TEST(has_function(functions, "find_energy_efficient_cpu"));
	BOOST_TEST(has_function(functions, test::fair_pick().function));
	BOOST_TEST(!functions.contains("(outside the kernel image)"));

	const auto no_eas = run_json({"--duration", "1s", "--kernel-profile", "100000", "--sysctl",
				      "kernel.sched_energy_aware=0"});
	BOOST_TEST(!has_function(function_blocks(no_eas), "find_energy_efficient_cpu"));

	const auto top = run_json({"--duration", "1s", "--kernel-profile", "3"});
	const auto &listed = kernel_time_of(top)["functions"];
	BOOST_TEST(listed.Size() == 3u);
	BOOST_TEST(listed[0]["blocks"].GetUint64() >= listed[1]["blocks"].GetUint64());
	BOOST_TEST(listed[0]["function"].GetString() == top_function(functions));
}

BOOST_AUTO_TEST_CASE(bad_kernel_time_options_are_bad_input)
{
	for (const auto &args : std::vector<std::vector<std::string>>{
		     {"run", "--kernel-time", "maybe"},
		     {"run", "--kernel-cycles-per-block", "-1"},
		     {"run", "--kernel-cycles-per-block", "5000"},
		     {"run", "--ipi-latency", "1s"},
		     {"run", "--kernel-time", "off", "--ipi-latency", "1us"},
		     {"run", "--kernel-profile", "0"},
		     {"run", "--wfi-exit-latency", "11ms"},
		     {"run", "--irq-entry-latency", "-1us"},
		     {"run", "--kernel-time", "off", "--wfi-exit-latency", "1us"},
		     {"run", "--kernel-time", "off", "--irq-entry-latency", "1us"},
	     }) {
		const auto r = test::run_cli(std::span<const std::string>(args));
		BOOST_TEST(r.exit_status == 2, args[1] << " " << args[2] << ": " << r.err);
		BOOST_TEST(r.err.find(args[1]) != std::string::npos, r.err);
	}
}

BOOST_AUTO_TEST_SUITE_END()
