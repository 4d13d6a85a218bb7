// SPDX-License-Identifier: GPL-2.0
//
// The board's power model (--board-power) beside the kernel's energy
// model: it changes what a run costs, never what the kernel decides; the
// clusters' static power is charged exactly while they are powered (not
// while every CPU waits in a cluster-off state the kernel's cpuidle chose),
// each idle state's power for the time the CPUs wait in it, a busy power
// table replaces the energy model's; SMT threads slow each other by the
// file's speeds, and a package budget caps every clock by the number of
// active cores; a file that does not fit the board is bad input naming
// what does not fit.
#include "run_json.h"
#include "support.h"

#include "support/tools.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sh;
using test::json_of;

namespace {

std::filesystem::path write(const std::string &name, const std::string &text)
{
	const auto path = std::filesystem::temp_directory_path() / fmt::format("sh-test-power-{}-{}", ::getpid(), name);
	std::ofstream(path) << text;
	return path;
}

const std::string model = test::fixture("power/hikey960.json").string();

// The TurboSched experiment's synthetic server: CORES cores of THREADS SMT
// threads, each core its own frequency domain (2.0 ... 3.8 GHz).
std::filesystem::path server(unsigned cores, unsigned threads)
{
	const auto script = std::filesystem::path(SH_TEST_SOURCE_ROOT) / "scripts/experiments/turbosched/server-board.sh";
	const auto board = std::filesystem::temp_directory_path() /
			   fmt::format("sh-test-power-{}-server-{}x{}.dts", ::getpid(), cores, threads);
	const auto made = support::run_tool(std::vector<std::string>{
		"bash", "-c", fmt::format("'{}' {} {} > '{}'", script.string(), cores, threads, board.string())});
	BOOST_REQUIRE_MESSAGE(made.exit_status == 0, made.err);
	return board;
}

// CPU-bound threads, one pinned to each CPU listed.
std::filesystem::path pinned_cpu_bound(const std::string &name, std::initializer_list<unsigned> cpus)
{
	std::string tasks;
	for (const unsigned c : cpus)
		tasks += fmt::format(R"({}"busy-{}": {{"cpus": [{}], "loop": -1, "run": 100000}})", tasks.empty() ? "" : ",",
				     c, c);
	return write(name, fmt::format(R"({{"global": {{"duration": -1}}, "tasks": {{{}}}}})", tasks));
}

std::int64_t work_of(const rapidjson::Document &r, const std::string &task)
{
	for (const auto &t : r["tasks"].GetArray())
		if (t["name"].GetString() == task)
			return t["work_done"].GetInt64();
	BOOST_FAIL("no task " << task);
	return 0;
}

} // namespace

BOOST_AUTO_TEST_SUITE(power)

BOOST_AUTO_TEST_CASE(board_power_model_charges_static_and_idle_power)
{
	const auto plain = json_of(test::run_cli({"run", "--json", "--board", "hikey960", "--duration", "3s"}));
	const auto board = json_of(test::run_cli({"run", "--json", "--board", "hikey960", "--duration", "3s",
						"--board-power", model}));
	// the kernel decides the same; its estimate is the run without the model's energy
	BOOST_TEST(board["fingerprint"].GetString() == std::string(plain["fingerprint"].GetString()));
	BOOST_TEST(board["em_energy_j"].GetDouble() == plain["energy_j"].GetDouble(), boost::test_tools::tolerance(1e-12));
	BOOST_TEST(plain["em_energy_j"].GetDouble() == plain["energy_j"].GetDouble(), boost::test_tools::tolerance(1e-12));
	BOOST_TEST(plain["power_model"].IsNull());
	BOOST_TEST(board["power_model"].GetString() == std::string("sched-harness tests (made-up figures)"));

	const double seconds = board["simulated_ns"].GetDouble() / 1e9;
	// LITTLE: 50 mW whenever powered, off only while all four wait in cluster-sleep-0
	const auto &little = board["domains"][0];
	const double off = little["powered_off_ns"].GetDouble() / 1e9;
	BOOST_TEST(off > 0.0);
	BOOST_TEST(off < seconds);
	BOOST_TEST(little["static_energy_j"].GetDouble() == 0.050 * (seconds - off), boost::test_tools::tolerance(1e-9));
	// big: static power per OPP, off most of the time (its CPUs idle)
	const auto &big = board["domains"][1];
	BOOST_TEST(big["powered_off_ns"].GetDouble() / 1e9 > 0.5 * seconds);
	BOOST_TEST(big["static_energy_j"].GetDouble() > 0.150 * (seconds - big["powered_off_ns"].GetDouble() / 1e9) * 0.999);
	BOOST_TEST(big["static_energy_j"].GetDouble() < 0.400 * (seconds - big["powered_off_ns"].GetDouble() / 1e9) * 1.001);

	// each CPU's idle energy: the idle-state power x the time the kernel's
	// cpuidle counted in each state (it counts from entry to exit; the
	// board from when the CPU waits to when it runs again: within 5%)
	const double mw[2][3] = {{20, 2, 0}, {60, 5, 0}};
	for (unsigned c = 0; c < 8; c++) {
		const auto &cpu = board["cpus"][c];
		double expected = 0;
		const auto &states = cpu["idle_states"];
		BOOST_REQUIRE_EQUAL(states.Size(), 3u);
		for (unsigned i = 0; i < 3; i++)
			expected += mw[c / 4][i] * 1e-3 * states[i]["residency_ns"].GetDouble() / 1e9;
		const double idle = cpu["energy_j"].GetDouble() - cpu["em_energy_j"].GetDouble();
		BOOST_TEST(idle == expected, boost::test_tools::tolerance(0.05));
	}
	double total = 0;
	for (const auto &d : board["domains"].GetArray())
		total += d["energy_j"].GetDouble();
	BOOST_TEST(total == board["energy_j"].GetDouble(), boost::test_tools::tolerance(1e-12));
	BOOST_TEST(board["energy_j"].GetDouble() > board["em_energy_j"].GetDouble());
}

// What heats the thermal model is what the board draws: with static and
// idle power, the zone over all of HiKey960's CPUs takes in exactly the
// board's energy, static energy included.
BOOST_AUTO_TEST_CASE(board_power_heats_the_thermal_model)
{
	const auto r = json_of(test::run_cli({"run", "--json", "--board", "hikey960", "--duration", "3s",
					      "--thermal-model", "r=4,c=1", "--board-power", model}));
	BOOST_REQUIRE_EQUAL(r["thermal_zones"].Size(), 1u);
	BOOST_REQUIRE_EQUAL(r["thermal_zones"][0]["cpus"].Size(), 8u);
	BOOST_TEST(r["domains"][0]["static_energy_j"].GetDouble() > 0.01);
	BOOST_TEST(r["thermal_zones"][0]["heat_j"].GetDouble() == r["energy_j"].GetDouble(),
		   boost::test_tools::tolerance(1e-9));
}

// A busy power table in place of the energy model's: 100 mW at every OPP
// of the LITTLE cluster makes its busy energy 100 mW x its busy time.
BOOST_AUTO_TEST_CASE(board_power_model_replaces_busy_power)
{
	const auto file = write("busy.json", R"({"domains": [{"cpus": "0-3", "dynamic_mw":
		{"533000": 100, "999000": 100, "1402000": 100, "1709000": 100, "1844000": 100}}]})");
	const auto r = json_of(test::run_cli({"run", "--json", "--board", "hikey960", "--duration", "2s", "--board-power",
					    file.string()}));
	std::filesystem::remove(file);
	for (unsigned c = 0; c < 4; c++)
		BOOST_TEST(r["cpus"][c]["energy_j"].GetDouble() == 0.1 * r["cpus"][c]["busy_ns"].GetDouble() / 1e9,
			   boost::test_tools::tolerance(1e-9));
	BOOST_TEST(r["cpus"][4]["energy_j"].GetDouble() == r["cpus"][4]["em_energy_j"].GetDouble());
}

// SMT threads that slow each other: two busy threads of a core at 0.5
// each do half the work each does alone; on different cores, all of it.
// The kernel decides the same (the model is the hardware's).
BOOST_AUTO_TEST_CASE(smt_threads_share_their_core)
{
	const auto board = server(2, 2);
	const auto half = write("smt.json", R"({"source": "test", "smt_speed": [1, 0.5]})");
	const auto siblings = pinned_cpu_bound("siblings.json", {0, 1});
	const auto apart = pinned_cpu_bound("apart.json", {0, 2});
	auto run = [&](const std::filesystem::path &workload, const std::filesystem::path *power,
		       std::string_view kernel_time = "on") {
		std::vector<std::string> args{"run", "--json", "--board", board.string(), "--workload", workload.string(),
					      "--duration", "1s", "--kernel-time", std::string(kernel_time)};
		if (power) {
			args.emplace_back("--board-power");
			args.emplace_back(power->string());
		}
		return json_of(test::run_cli(std::span<const std::string>(args)));
	};
	const auto alone = run(siblings, nullptr), shared = run(siblings, &half);
	const auto spread = run(apart, &half), spread_alone = run(apart, nullptr);
	const auto spread_untimed = run(apart, &half, "off"), spread_alone_untimed = run(apart, nullptr, "off");
	for (const auto &f : {board, half, siblings, apart})
		std::filesystem::remove(f);
	BOOST_TEST(shared["smt_model"].GetBool());
	BOOST_TEST(!alone["smt_model"].GetBool());
	BOOST_TEST(shared["fingerprint"].GetString() == std::string(alone["fingerprint"].GetString()));
	for (const std::string task : {"busy-0", "busy-1"})
		BOOST_TEST(static_cast<double>(work_of(shared, task)) == 0.5 * static_cast<double>(work_of(alone, task)),
			   boost::test_tools::tolerance(0.001));
	// On different cores: all of it, exactly while kernel code takes no
	// time; with kernel time the idle siblings' own kernel code (their
	// ticks, the idle loop) shares the core for microseconds
	for (const std::string task : {"busy-0", "busy-2"}) {
		BOOST_TEST(work_of(spread_untimed, task) == work_of(spread_alone_untimed, task));
		BOOST_TEST(static_cast<double>(work_of(spread, task)) == static_cast<double>(work_of(spread_alone, task)),
			   boost::test_tools::tolerance(0.001));
	}
}

// A package budget: with each core's power 500 mW at 2.0 GHz ... 2 W at
// 3.8 GHz and 4 W to share, two busy cores keep 3.8 GHz, three get 3.5
// and four 2.8 GHz; the CPUs run (and do work) at the ceiling, whatever
// schedutil asks for, and the report says how long each ceiling held.
BOOST_AUTO_TEST_CASE(package_budget_holds_busy_cores_below_turbo)
{
	const auto board = server(4, 1);
	std::string domains;
	for (unsigned c = 0; c < 4; c++)
		domains += fmt::format(R"({}{{"cpus": "{}", "dynamic_mw": {{"2000000": 500, "2400000": 700,
			"2800000": 900, "3200000": 1100, "3500000": 1300, "3800000": 2000}}}})",
				       c ? "," : "", c);
	const auto power = write("budget.json", fmt::format(R"({{"source": "test", "package_budget_mw": 4000,
		"domains": [{}]}})", domains));
	auto run = [&](std::initializer_list<unsigned> cpus, bool budget) {
		const auto workload = pinned_cpu_bound("budget-workload.json", cpus);
		// kernel code taking no time: the cores' clocks (2.8 against 3.8 GHz)
		// would otherwise make the same decisions come at other times
		std::vector<std::string> args{"run", "--json", "--board", board.string(), "--workload", workload.string(),
					      "--duration", "1s", "--kernel-time", "off"};
		if (budget) {
			args.emplace_back("--board-power");
			args.emplace_back(power.string());
		}
		auto r = json_of(test::run_cli(std::span<const std::string>(args)));
		std::filesystem::remove(workload);
		return r;
	};
	auto ceiling_share = [](const rapidjson::Document &r, unsigned khz) {
		double ns = 0;
		for (const auto &c : r["package_ceiling"].GetArray())
			if (c["khz"].GetUint() == khz)
				ns += c["ns"].GetDouble();
		return ns / r["simulated_ns"].GetDouble();
	};
	const auto two = run({0, 1}, true), three = run({0, 1, 2}, true), four = run({0, 1, 2, 3}, true);
	const auto four_free = run({0, 1, 2, 3}, false);
	std::filesystem::remove(board);
	std::filesystem::remove(power);
	BOOST_TEST(two["package_budget_mw"].GetDouble() == 4000.0);
	BOOST_TEST(ceiling_share(two, 3800000) > 0.99);
	BOOST_TEST(ceiling_share(three, 3500000) > 0.99);
	BOOST_TEST(ceiling_share(four, 2800000) > 0.99);
	BOOST_TEST(four["fingerprint"].GetString() == std::string(four_free["fingerprint"].GetString()));
	// the busy cores ran at the ceiling: 2.8 of 3.8 GHz
	for (const std::string task : {"busy-0", "busy-3"})
		BOOST_TEST(static_cast<double>(work_of(four, task)) ==
				   static_cast<double>(work_of(four_free, task)) * 2800.0 / 3800.0,
			   boost::test_tools::tolerance(0.01));
	for (const auto &dom : four["domains"].GetArray()) {
		double at_ceiling = 0;
		for (const auto &o : dom["opp_residency"].GetArray()) {
			if (o["khz"].GetUint() > 2800000)
				BOOST_TEST(o["ns"].GetDouble() < 0.01 * four["simulated_ns"].GetDouble());
			if (o["khz"].GetUint() == 2800000)
				at_ceiling += o["ns"].GetDouble();
		}
		// (the first few ms at lower OPPs: schedutil's requests before
		// the tasks' utilization has grown)
		BOOST_TEST(at_ceiling > 0.95 * four["simulated_ns"].GetDouble());
	}
}

BOOST_AUTO_TEST_CASE(board_power_file_bad_input_is_status_2)
{
	struct Case {
		std::string file;
		std::string message;
	} cases[] = {
		{R"({"domains": [{"cpus": "0-2", "static_mw": 5}]})", "CPUs 0,1,2 are not a frequency domain of HiKey960"},
		{R"({"domains": [{"cpus": "0-3", "idle_mw": {"deep": 1}}]})",
		 "idle_mw names idle state \"deep\"; theirs are WFI, cpu-sleep-0, cluster-sleep-0"},
		{R"({"domains": [{"cpus": "0-3", "dynamic_mw": {"533000": 1}}]})", "dynamic_mw has no value for 999000 kHz"},
		{R"({"domains": [{"cpus": "0-3", "static_mw": {"123": 1}}]})", "static_mw has no value for 533000 kHz"},
		{R"({"domains": [{"cpus": "0-3", "static_mw": -1}]})", "domains[0].static_mw: expected milliwatts"},
		{R"({"domains": [{"cpus": "0-3", "speed": 1}]})", "domains[0].speed: unknown or mistyped"},
		{R"({"domains": [{"static_mw": 1}]})", "domains[0]: needs \"cpus\""},
		{R"({"domains": [ )", "offset"},
		{R"({"smt_speed": [1, 0.5]})", "smt_speed, but HiKey960 has no SMT threads"},
		{R"({"smt_speed": [1, 0]})", "smt_speed[1]: expected a speed from 1/1024 (the model's resolution) to 1"},
		{R"({"smt_speed": [0.0001]})", "smt_speed[0]: expected a speed from 1/1024"},
		{R"({"package_budget_mw": 0})", "package_budget_mw: a budget must be above 0 mW"},
		{R"({"smt_speed": []})", "\"smt_speed\": unknown or mistyped"},
		{R"({"package_budget_mw": "10W"})", "package_budget_mw: expected milliwatts"},
	};
	for (const auto &c : cases) {
		const auto file = write("bad.json", c.file);
		const auto r = test::run_cli({"run", "--board", "hikey960", "--duration", "100ms", "--board-power",
					      file.string()});
		std::filesystem::remove(file);
		BOOST_TEST(r.exit_status == 2, c.message << ": " << r.err);
		BOOST_TEST(r.err.find(c.message) != std::string::npos, c.message << " not in: " << r.err);
		BOOST_TEST(r.err.find(file.string()) != std::string::npos, r.err);
	}
}

BOOST_AUTO_TEST_SUITE_END()
