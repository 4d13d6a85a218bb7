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
#include "temp_files.h"
#include "tree_features.h"

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
	const auto path = test::temp_path(name);
	std::ofstream(path) << text;
	return path;
}

const std::string model = test::fixture("power/hikey960.json").string();

// The TurboSched experiment's synthetic server: CORES cores of THREADS SMT
// threads, each core its own frequency domain (2.0 ... 3.8 GHz).
std::filesystem::path server(unsigned cores, unsigned threads)
{
	const auto script = std::filesystem::path(SH_TEST_SOURCE_ROOT) / "scripts/experiments/turbosched/server-board.sh";
	const auto board = test::temp_path(fmt::format("server-{}x{}.dts", cores, threads));
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
	const auto plain = json_of(
		test::run_cli({"run", "--json", "--board", "hikey960", "--duration", "3s", "--board-power", "none"}));
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
	// platform show prints the table the board charges, and only that one
	const auto shown = json_of(test::run_cli({"platform", "show", "--json", "hikey960", "--board-power", file.string()}));
	std::filesystem::remove(file);
	BOOST_REQUIRE_EQUAL(shown["board_power"]["domains"].Size(), 1u);
	BOOST_TEST(shown["board_power"]["domains"][0]["dynamic_mw"]["999000"].GetDouble() == 100.0);
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
	if (!test::cpu_map_sockets()) {
		// the tree's arch_topology.c does not read the board's socket
		// level: it sees no SMT threads, and the model cannot apply
		const auto refused = test::run_cli({"run", "--board", board.string(), "--workload", siblings.string(),
						    "--duration", "1s", "--board-power", half.string()});
		BOOST_TEST(refused.exit_status == 2);
		BOOST_TEST(refused.err.find("has no SMT threads (thread nodes in /cpus/cpu-map)") != std::string::npos,
			   refused.err);
		for (const auto &f : {board, half, siblings, apart})
			std::filesystem::remove(f);
		return;
	}
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

// The files shipped load on the boards they name, by their compatible,
// without being asked for: the board's energy is then more than the energy
// model's estimate (idle states, leakage, the cluster's own power), and
// the kernel decides the same as with busy power only.
BOOST_AUTO_TEST_CASE(shipped_board_power_files_load_on_their_boards)
{
	struct Board {
		std::string name, file;
		std::vector<std::string> extra;
	} boards[] = {
		{"hikey960", "hikey960.json", {}},
		{"rk3399", "rk3399-firefly.json", {}},
		{"odroid-xu3", "odroid-xu3.json", {}},
		{"odroid-xu4", "odroid-xu3.json", {}},
		{"juno", "juno-r0.json", {"--overlay", test::fixture("cli/juno-opps.dtso").string()}},
		{"juno-r2", "juno-r2.json", {"--overlay", test::fixture("cli/juno-r2-opps.dtso").string()}},
	};
	for (const auto &b : boards) {
		std::vector<std::string> args{"run", "--json", "--board", b.name, "--duration", "300ms"};
		args.insert(args.end(), b.extra.begin(), b.extra.end());
		const auto shipped = json_of(test::run_cli(std::span<const std::string>(args)));
		args.insert(args.end(), {"--board-power", "none"});
		const auto busy_only = json_of(test::run_cli(std::span<const std::string>(args)));
		BOOST_TEST_CONTEXT(b.name)
		{
			BOOST_TEST(std::string(shipped["power_model_file"].GetString()).starts_with(b.file + " (built in"));
			BOOST_TEST(busy_only["power_model"].IsNull());
			BOOST_TEST(busy_only["energy_j"].GetDouble() == busy_only["em_energy_j"].GetDouble(),
				   boost::test_tools::tolerance(1e-12));
			BOOST_TEST(shipped["energy_j"].GetDouble() > shipped["em_energy_j"].GetDouble());
			BOOST_TEST(shipped["fingerprint"].GetString() == std::string(busy_only["fingerprint"].GetString()));
			double split = 0;
			for (const auto &d : shipped["domains"].GetArray())
				split += d["dynamic_energy_j"].GetDouble() + d["static_energy_j"].GetDouble() +
					 d["idle_energy_j"].GetDouble();
			BOOST_TEST(split == shipped["energy_j"].GetDouble(), boost::test_tools::tolerance(1e-9));
		}
	}
	// a board without a file says its energy is busy-only
	const auto other = test::run_cli({"run", "--board", "db845c", "--duration", "100ms"});
	BOOST_TEST(other.exit_status == 0, other.err);
	BOOST_TEST(other.out.find("busy-only (no board power model for this board") != std::string::npos, other.out);
}

// A shipped file is a default: on a board it cannot apply to (Juno r2's DT
// has no OPPs, so no energy model to convert the file's bogo units
// through) it is skipped with the reason, and the board runs busy-only;
// the same file named explicitly stays an error.
BOOST_AUTO_TEST_CASE(shipped_file_that_does_not_apply_is_skipped_with_its_reason)
{
	const auto text = test::run_cli({"run", "--board", "juno-r2", "--duration", "100ms"});
	BOOST_TEST(text.exit_status == 0, text.err);
	BOOST_TEST(text.out.find("busy-only: the file shipped for this board, juno-r2.json, does not apply to it") !=
			   std::string::npos,
		   text.out);
	const auto r = json_of(test::run_cli({"run", "--json", "--board", "juno-r2", "--duration", "100ms"}));
	BOOST_TEST(r["power_model"].IsNull());
	BOOST_TEST(std::string(r["power_model_skipped"].GetString()).find("no energy model in microwatts") !=
		   std::string::npos);
	const auto shown = test::run_cli({"platform", "show", "juno-r2"});
	BOOST_TEST(shown.exit_status == 0, shown.err);
	BOOST_TEST(shown.out.find("juno-r2.json, does not apply to it") != std::string::npos, shown.out);

	const auto file = std::filesystem::path(SH_TEST_SOURCE_ROOT) / "harness/sim/board-power/juno-r2.json";
	const auto explicit_file = test::run_cli({"run", "--board", "juno-r2", "--duration", "100ms", "--board-power",
						  file.string()});
	BOOST_TEST(explicit_file.exit_status == 2);
	BOOST_TEST(explicit_file.err.find("no energy model in microwatts") != std::string::npos, explicit_file.err);
}

// The legacy tables' units are converted through the kernel's energy model:
// one unit is the EM's power of the reference CPU at the reference OPP over
// the table's cost of it (HiKey960: the A73 at 2362 MHz costs 2848).
BOOST_AUTO_TEST_CASE(bogo_units_convert_through_the_energy_model)
{
	const auto r = json_of(test::run_cli({"run", "--json", "--board", "hikey960", "--duration", "100ms"}));
	// the kernel's EM for the A73 at 2362 MHz: dynamic-power-coefficient
	// 550 x 2362 MHz x 1.1 V^2, as em_dev_register_perf_domain() has it
	const auto em = json_of(test::run_cli({"platform", "show", "--json", "hikey960"}));
	// (in microwatts from 5.19, milliwatts before: test::em_in_microwatts())
	double top_mw = 0;
	for (const auto &pd : em["kernel"]["perf_domains"].GetArray())
		for (const auto &st : pd["states"].GetArray())
			if (st["frequency"].GetUint() == 2362000)
				top_mw = st["power"].GetDouble() / (test::em_in_microwatts() ? 1000 : 1);
	BOOST_REQUIRE(top_mw > 0);
	BOOST_TEST(r["power_unit_mw"].GetDouble() == top_mw / 2848, boost::test_tools::tolerance(1e-12));
}

namespace {

rapidjson::Document run_with(const std::string &name, const std::string &file, std::vector<std::string> extra)
{
	const auto path = write(name, file);
	std::vector<std::string> args{"run", "--json", "--board", "hikey960", "--duration", "2s", "--board-power",
				      path.string()};
	args.insert(args.end(), extra.begin(), extra.end());
	auto r = json_of(test::run_cli(std::span<const std::string>(args)));
	std::filesystem::remove(path);
	return r;
}

// The DT's opp-microvolt of HiKey960's A73 OPPs, in volts.
const std::pair<unsigned, double> a73_volts[] = {
	{903000, 0.7}, {1421000, 0.8}, {1805000, 0.9}, {2112000, 1.0}, {2362000, 1.1}};

} // namespace

// Leakage c x V^3 at each OPP's voltage: the cluster's static energy is the
// time at each OPP x c x V^3, the cluster never powered off (no state of
// the file powers it off).
BOOST_AUTO_TEST_CASE(static_power_follows_voltage)
{
	const auto r = run_with("volts.json", R"({"domains": [{"cpus": "4-7", "static_mw": {"per_volt_cubed": 100}}]})",
				{"--thermal-model", "off"});
	const auto &big = r["domains"][1];
	double expected = 0, seconds = 0;
	for (const auto &o : big["opp_residency"].GetArray())
		for (const auto &[khz, v] : a73_volts)
			if (o["khz"].GetUint() == khz) {
				expected += o["ns"].GetDouble() / 1e9 * 0.100 * v * v * v;
				seconds += o["ns"].GetDouble() / 1e9;
			}
	BOOST_TEST(seconds == r["simulated_ns"].GetDouble() / 1e9, boost::test_tools::tolerance(1e-9));
	BOOST_TEST(big["static_energy_j"].GetDouble() == expected, boost::test_tools::tolerance(1e-6));
	// it spent time at more than one OPP, so the voltage mattered
	BOOST_TEST(expected != 0.100 * 0.343 * seconds);
}

// Leakage x sum(a_i T^i) at the zone's temperature: held at 40 C and at 80 C
// (a zone too massive to heat), T / 100 gives 40 mW and 80 mW exactly; with
// the default model the die heats from 25 C and the leakage rises above its
// value at 25 C; with the model off, the sensors' 25 C.
BOOST_AUTO_TEST_CASE(leakage_follows_temperature)
{
	// HiKey960's zone by the tree's name (5.10's cls0: test::hikey960_zone())
	const std::string file = R"({"domains": [{"cpus": "4-7", "static_mw": 100, "temperature_scale": {"zone": ")" +
				 test::hikey960_zone() + R"(", "polynomial": [0, 0.01]}}]})";
	for (const double celsius : {40.0, 80.0}) {
		const auto r = run_with("temp.json", file,
					{"--thermal-model", fmt::format("r=10,c=1e9,ambient={}", celsius)});
		const double seconds = r["simulated_ns"].GetDouble() / 1e9;
		BOOST_TEST(r["domains"][1]["static_energy_j"].GetDouble() == 0.100 * celsius / 100 * seconds,
			   boost::test_tools::tolerance(1e-6));
	}
	const auto off = run_with("temp.json", file, {"--thermal-model", "off"});
	const double seconds = off["simulated_ns"].GetDouble() / 1e9;
	BOOST_TEST(off["domains"][1]["static_energy_j"].GetDouble() == 0.100 * 0.25 * seconds,
		   boost::test_tools::tolerance(1e-9));
	const auto heated = run_with("temp.json", file, {"--thermal-model", "r=50,c=0.05"});
	BOOST_TEST(heated["thermal_zones"][0]["max_c"].GetDouble() > 30.0);
	BOOST_TEST(heated["domains"][1]["static_energy_j"].GetDouble() > 0.100 * 0.25 * seconds * 1.05);
}

// A core's leakage stops in the states that power it off, the cluster's in
// those that power the cluster off: with 10 mW per powered core, the cores'
// leakage lies between 10 mW x the CPUs' busy time (a busy core is
// powered) and 4 x 10 mW x the time the cluster was powered.
BOOST_AUTO_TEST_CASE(cores_and_clusters_powered_off_leak_nothing)
{
	const auto r = run_with("cores.json", R"({"domains": [{"cpus": "4-7", "core_static_mw": 10,
		"core_off": ["cpu-sleep-1", "cluster-sleep-1"], "cluster_off": ["cluster-sleep-1"]}]})",
				{"--thermal-model", "off"});
	const auto &big = r["domains"][1];
	const double seconds = r["simulated_ns"].GetDouble() / 1e9;
	const double powered = seconds - big["powered_off_ns"].GetDouble() / 1e9;
	double busy = 0;
	for (unsigned c = 4; c < 8; c++)
		busy += r["cpus"][c]["busy_ns"].GetDouble() / 1e9;
	BOOST_TEST(big["powered_off_ns"].GetDouble() > 0);
	BOOST_TEST(big["static_energy_j"].GetDouble() >= 0.010 * busy * 0.999999);
	BOOST_TEST(big["static_energy_j"].GetDouble() < 0.040 * powered);
}

// The cluster's own power follows the shallowest idle state its CPUs wait
// in, as the kernel's cpuidle chose them: 30 mW active and in WFI and
// cpu-sleep, nothing once all four wait in cluster-sleep — which is exactly
// the time the cluster is powered off; 30 mW in every state is 30 mW for
// the whole run.
BOOST_AUTO_TEST_CASE(cluster_power_follows_the_kernels_idle_states)
{
	const auto states = run_with("cluster.json", R"({"domains": [{"cpus": "0-3", "cluster_mw": 30,
		"cluster_idle_mw": {"WFI": 30, "cpu-sleep-0": 30, "cluster-sleep-0": 0},
		"cluster_off": ["cluster-sleep-0"]}]})",
				     {});
	const auto &little = states["domains"][0];
	const double seconds = states["simulated_ns"].GetDouble() / 1e9;
	const double off = little["powered_off_ns"].GetDouble() / 1e9;
	BOOST_TEST(off > 0.01);
	BOOST_TEST(little["cluster_active_energy_j"].GetDouble() + little["cluster_idle_energy_j"].GetDouble() ==
			   0.030 * (seconds - off),
		   boost::test_tools::tolerance(1e-9));
	BOOST_TEST(little["cluster_idle_energy_j"].GetDouble() > 0);
	const auto flat = run_with("cluster.json", R"({"domains": [{"cpus": "0-3", "cluster_mw": 30,
		"cluster_idle_mw": {"WFI": 30, "cpu-sleep-0": 30, "cluster-sleep-0": 30}}]})",
				   {});
	BOOST_TEST(flat["domains"][0]["cluster_active_energy_j"].GetDouble() +
			   flat["domains"][0]["cluster_idle_energy_j"].GetDouble() ==
		   0.030 * seconds,
		   boost::test_tools::tolerance(1e-9));
	BOOST_TEST(flat["fingerprint"].GetString() == std::string(states["fingerprint"].GetString()));
}

BOOST_AUTO_TEST_CASE(board_power_file_bad_input_is_status_2)
{
	struct Case {
		std::string file;
		std::string message;
	} cases[] = {
		{R"({"domains": [{"cpus": "0-2", "static_mw": 5}]})", "CPUs 0,1,2 are not a frequency domain of HiKey960"},
		{R"({"domains": [{"cpus": "0-3", "idle_mw": {"deep": 1}}]})",
		 "idle_mw names idle state \"deep\"; theirs are arch-idle, WFI, cpu-sleep-0, cluster-sleep-0"},
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
		{R"({"domains": [{"cpus": "0-3", "cluster_idle_mw": {"deep": 1}}]})",
		 "cluster_idle_mw names idle state \"deep\""},
		{R"({"domains": [{"cpus": "0-3", "core_off": ["cpu-sleep-1"]}]})", "core_off names idle state \"cpu-sleep-1\""},
		{R"({"domains": [{"cpus": "0-3", "cluster_mw": {"533000": 1}}]})", "cluster_mw has no value for 999000 kHz"},
		{R"({"domains": [{"cpus": "0-3", "static_mw": {"per_volt_cubed": 1, "533000": 2}}]})",
		 "domains[0].static_mw: per_volt_cubed stands alone"},
		{R"({"domains": [{"cpus": "0-3", "static_mw": 1, "temperature_scale": {"zone": "die", "polynomial": [1]}}]})",
		 "temperature_scale.zone: HiKey960 has no thermal zone \"die\" (its zones: cls0-thermal)"},
		{R"({"domains": [{"cpus": "0-3", "static_mw": 1, "temperature_scale": {"zone": "cls0-thermal"}}]})",
		 "domains[0].temperature_scale: needs \"zone\" and \"polynomial\""},
		{R"({"domains": [{"cpus": "0-3", "static_mw": 1, "temperature_scale": {"zone": "cls0-thermal", "polynomial": ["x"]}}]})",
		 "domains[0].temperature_scale.polynomial: expected numbers"},
		{R"({"domains": [{"cpus": "0-3", "temperature_scale": {"zone": "cls0-thermal", "polynomial": [1]}}]})",
		 "temperature_scale scales static_mw and core_static_mw; there are neither"},
		{R"({"bogo_units": {"cpu": 9, "busy_cost": 1}})", "bogo_units.cpu: HiKey960 has CPUs 0-7"},
		{R"({"bogo_units": {"cpu": 4, "khz": 1000, "busy_cost": 1}})",
		 "bogo_units.khz: 1000 kHz is not an OPP of CPU4's energy model"},
		{R"({"bogo_units": {"cpu": 4, "busy_cost": 0}})", "bogo_units.busy_cost: unknown or mistyped"},
		{R"({"bogo_units": {"busy_cost": 3}})", "bogo_units: needs \"cpu\" and \"busy_cost\""},
		{R"({"compatible": [1]})", "compatible: expected the boards' compatible strings"},
		{R"({"domains": [{"cpus": "0-3", "static_mw": 1, "temperature_scale": {"zone": "cls0-thermal", "polynomial": [0, 0, 0, 0, 0, 0, 0, 1e30]}}]})",
		 "temperature_scale gives 6.10352e+39 at 25 C: the polynomial does not hold there"},
		{R"({"bogo_units": {"cpu": 4, "busy_cost": 0.001}, "domains": [{"cpus": "0-3", "static_mw": 1000000}]})",
		 "is not a power from 0 to 1 MW"},
		// a figure without its source, or a source without its figure
		{R"({"latencies": {"ipi": {"us": 1}, "irq_entry": {"unsourced": "x"}, "wfi_exit": {"unsourced": "x"}}})",
		 "latencies.ipi: expected {\"us\": microseconds, \"source\""},
		{R"({"latencies": {"ipi": {"us": 1, "source": ""}, "irq_entry": {"unsourced": "x"}, "wfi_exit": {"unsourced": "x"}}})",
		 "latencies.ipi.source: expected a non-empty string"},
		{R"({"latencies": {"ipi": {"source": "a paper"}, "irq_entry": {"unsourced": "x"}, "wfi_exit": {"unsourced": "x"}}})",
		 "latencies.ipi: expected"},
		{R"({"latencies": {"ipi": {"us": -1, "source": "a"}, "irq_entry": {"unsourced": "x"}, "wfi_exit": {"unsourced": "x"}}})",
		 "latencies.ipi.us: expected microseconds, from 0 to 10000"},
		{R"({"latencies": {"ipi": {"unsourced": "x"}}})", "latencies: no irq_entry, wfi_exit"},
		{R"({"latencies": {"ipi": {"unsourced": "x"}, "irq_entry": {"unsourced": "x"}, "wfi_exit": {"unsourced": "x"}, "smc": {"unsourced": "x"}}})",
		 "latencies: unknown member (ipi, irq_entry, wfi_exit)"},
	};
	// HiKey960's zone is written cls0-thermal above; 5.10's is cls0
	const auto in_tree = [](std::string text) {
		for (auto at = text.find("cls0-thermal"); at != std::string::npos;
		     at = text.find("cls0-thermal", at + test::hikey960_zone().size()))
			text.replace(at, 12, test::hikey960_zone());
		return text;
	};
	for (auto c : cases) {
		c.file = in_tree(c.file);
		c.message = in_tree(c.message);
		const auto file = write("bad.json", c.file);
		const auto r = test::run_cli({"run", "--board", "hikey960", "--duration", "100ms", "--board-power",
					      file.string()});
		std::filesystem::remove(file);
		BOOST_TEST(r.exit_status == 2, c.message << ": " << r.err);
		BOOST_TEST(r.err.find(c.message) != std::string::npos, c.message << " not in: " << r.err);
		BOOST_TEST(r.err.find(file.string()) != std::string::npos, r.err);
	}
}

// A board file's hardware latencies are what a run charges where no option
// gives one, with their sources in the report; an option replaces its
// figure, a figure the file does not have is 0 and reported unsourced,
// and --kernel-time off charges none. A --board-power file without
// latencies leaves the board's own (the shipped file's).
BOOST_AUTO_TEST_CASE(board_files_give_the_hardware_latencies)
{
	const auto file = write("latencies.json", R"({"latencies": {
		"ipi": {"us": 1.5, "source": "a paper, table 2"},
		"irq_entry": {"unsourced": "nothing found"},
		"wfi_exit": {"us": 0.25, "source": "a thread"}}})");
	const std::vector<std::string> base{"--board", "hikey960", "--duration", "200ms", "--board-power",
					    file.string()};
	const auto with = [&](std::vector<std::string> extra) {
		extra.insert(extra.begin(), base.begin(), base.end());
		return test::run_json(extra);
	};
	const auto board = with({});
	const auto &kt = board.json["kernel_time"];
	BOOST_TEST(kt["ipi_latency_ns"].GetInt64() == 1500);
	BOOST_TEST(kt["irq_entry_ns"].GetInt64() == 0);
	BOOST_TEST(kt["wfi_exit_ns"].GetInt64() == 250);
	BOOST_TEST(kt["latency_sources"]["ipi"].GetString() == file.filename().string() + ": a paper, table 2");
	BOOST_TEST(kt["latency_sources"]["irq_entry"].GetString() ==
		   "unsourced: " + file.filename().string() + ": nothing found");

	const auto text = test::run_cli({"run", "--board", "hikey960", "--duration", "200ms", "--board-power",
					 file.string()});
	BOOST_TEST(text.out.find("Hardware:   IPI 1.5 us, interrupt entry unsourced (0), WFI exit 0.25 us") !=
			   std::string::npos,
		   text.out);

	const auto given = with({"--ipi-latency", "0"});
	BOOST_TEST(given.json["kernel_time"]["ipi_latency_ns"].GetInt64() == 0);
	BOOST_TEST(given.json["kernel_time"]["latency_sources"]["ipi"].GetString() == std::string("--ipi-latency"));
	BOOST_TEST(given.json["kernel_time"]["wfi_exit_ns"].GetInt64() == 250);
	BOOST_TEST(given.json["fingerprint"].GetString() != std::string(board.json["fingerprint"].GetString()));

	const auto off = with({"--kernel-time", "off"});
	for (const char *k : {"ipi_latency_ns", "irq_entry_ns", "wfi_exit_ns"})
		BOOST_TEST(off.json["kernel_time"][k].GetInt64() == 0);

	// the same latencies whichever power the run charges
	const auto busy_only = test::run_json({"--board", "hikey960", "--duration", "200ms", "--board-power", "none"});
	const auto shipped = test::run_json({"--board", "hikey960", "--duration", "200ms"});
	for (const char *k : {"ipi_latency_ns", "irq_entry_ns", "wfi_exit_ns"})
		BOOST_TEST(busy_only.json["kernel_time"][k].GetInt64() == shipped.json["kernel_time"][k].GetInt64());
	std::filesystem::remove(file);
}

// Each shipped board file's latencies cite a source or say what was looked
// for (the parser refuses a figure without its source): a board's run
// reports where each figure comes from.
BOOST_AUTO_TEST_CASE(shipped_boards_say_where_their_latencies_come_from)
{
	for (const char *board : {"odroid-xu3", "hikey960", "juno", "rk3399"}) {
		const auto r = test::run_json({"--board", board, "--duration", "100ms"});
		const auto &sources = r.json["kernel_time"]["latency_sources"];
		for (const char *k : {"ipi", "irq_entry", "wfi_exit"}) {
			BOOST_TEST_REQUIRE(sources[k].IsString(), board << " " << k);
			const std::string source = sources[k].GetString();
			BOOST_TEST(source.find(".json: ") != std::string::npos, board << " " << k << ": " << source);
		}
	}
}

BOOST_AUTO_TEST_SUITE_END()
