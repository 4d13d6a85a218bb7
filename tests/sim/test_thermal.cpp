// SPDX-License-Identifier: GPL-2.0
//
// The kernel's thermal framework (thermal_of.c, step_wise, power_allocator,
// cpufreq_cooling.c, compiled unchanged) on the board's RC model: under
// sustained full load the zones reach their passive trip and the cooling
// device caps the big cluster; IPA holds the temperature near its control
// trip; the kernel's thermal pressure lowers capacity_of(); a light load
// never reaches a trip; bad model parameters are bad input.
//
// Where the trees differ (tests/support/tree_features.h): before 6.9
// cpufreq_cooling sets the thermal pressure (5.10's
// arch_set_thermal_pressure(), 6.1's arch_update_thermal_pressure()),
// which the scheduler averages with PELT (rq->avg_thermal,
// sched_thermal_decay_shift); from 6.9 it leaves the hardware pressure
// alone and the policy limit itself is the pressure
// (cpufreq_get_pressure()), and sched_thermal_decay_shift is ignored.
#include "run_json.h"
#include "support.h"
#include "temp_files.h"
#include "tree_features.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

using namespace sh;
using test::run_json;

namespace {

bool thermal_pressure_from_cooling() { return test::pressure_from_cooling_device(); }

// Columns of a run's --series CSV by name, one vector per column.
std::map<std::string, std::vector<double>> read_series(const std::filesystem::path &csv)
{
	std::ifstream in(csv);
	std::string header;
	std::getline(in, header);
	std::vector<std::string> names;
	{
		std::istringstream h(header);
		for (std::string c; std::getline(h, c, ',');)
			names.push_back(c);
	}
	std::vector<std::vector<double>> values(names.size());
	std::size_t rows = 0;
	bool rectangular = true;
	for (std::string line; std::getline(in, line); rows++) {
		std::istringstream l(line);
		std::size_t i = 0;
		for (std::string x; std::getline(l, x, ','); i++)
			if (i < names.size())
				values[i].push_back(std::stod(x));
		rectangular &= i == names.size();
	}
	BOOST_REQUIRE_MESSAGE(rectangular && rows > 0, csv << ": not one value per column in every row");
	std::map<std::string, std::vector<double>> columns;
	for (std::size_t i = 0; i < names.size(); i++)
		columns[names[i]] = std::move(values[i]);
	return columns;
}

// The report's name of the tree's own signal of a cooling device's cap.
const char *cooling_pressure_name()
{
	return thermal_pressure_from_cooling() ? "thermal_pressure_avg" : "cpufreq_pressure_avg";
}

// The capacity a cooling device took from cpu, averaged over the run, as
// the tree's scheduler sees it.
double cooling_pressure(const rapidjson::Value &cpu)
{
	return cpu[cooling_pressure_name()].GetDouble();
}

// Eight CPU-bound threads that never finish: every CPU busy at the OPP
// schedutil asks for.
const std::string full_load = "fixed-work:threads=8,work=1000s";

const rapidjson::Value &zone(const test::Run &r, const std::string &name)
{
	for (const auto &z : r.json["thermal_zones"].GetArray())
		if (name == z["name"].GetString())
			return z;
	BOOST_FAIL("no thermal zone " << name);
	throw;
}

const rapidjson::Value &trip(const rapidjson::Value &zone, const std::string &name)
{
	for (const auto &t : zone["trips"].GetArray())
		if (name == t["name"].GetString())
			return t;
	BOOST_FAIL("no trip " << name);
	throw;
}

// The cooling device of the policy of cpu: time in states above 0.
// How often the cooling device of `cpu` changed state.
std::int64_t cooling_updates(const test::Run &r, unsigned cpu)
{
	for (const auto &c : r.json["cooling_devices"].GetArray())
		for (const auto &v : c["cpus"].GetArray())
			if (v.GetUint() == cpu)
				return c["updates"].GetInt64();
	BOOST_FAIL("no cooling device for CPU" << cpu);
	throw;
}

std::int64_t time_cooled(const test::Run &r, unsigned cpu)
{
	for (const auto &c : r.json["cooling_devices"].GetArray()) {
		const auto cpus = c["cpus"].GetArray();
		if (std::none_of(cpus.begin(), cpus.end(), [&](const auto &v) { return v.GetUint() == cpu; }))
			continue;
		std::int64_t ns = 0;
		const auto states = c["state_ns"].GetArray();
		for (rapidjson::SizeType s = 1; s < states.Size(); s++)
			ns += states[s].GetInt64();
		return ns;
	}
	BOOST_FAIL("no cooling device for CPU" << cpu);
	throw;
}

// When the zone's temperature (1 s samples) first came within 0.5 C of `c`.
double seconds_to(const rapidjson::Value &zone, double c)
{
	const auto samples = zone["temperature_c"].GetArray();
	for (rapidjson::SizeType i = 0; i < samples.Size(); i++)
		if (samples[i].GetDouble() >= c - 0.5)
			return i;
	return -1;
}

} // namespace

BOOST_AUTO_TEST_SUITE(thermal)

// HiKey960 (cls0-thermal, 5.10's cls0: passive 65 C, 75 C mapped to both clusters,
// polling 1000 ms / 100 ms) under full load: the model reaches 75 C within
// tens of seconds, step_wise raises the big cluster's cooling state, its
// policy is limited and the kernel's thermal pressure follows; capacity_of()
// of the big CPUs falls by the PELT-averaged pressure.
BOOST_AUTO_TEST_CASE(hikey960_full_load_reaches_the_trip_and_caps_the_big_cluster)
{
	// sampled every 1 ms (sampling only reads: test_series.cpp), which
	// shows the average each update_cpu_capacity() subtracted, below
	const auto csv = test::temp_path("full-load.csv");
	const auto r = run_json({"--board", "hikey960", "--workload", full_load, "--duration", "60s", "--series",
				 csv.string(), "--sample-period", "1ms"});
	const auto series = read_series(csv);
	std::filesystem::remove(csv);
	BOOST_TEST(r.json["thermal_model"].GetString() == std::string("RC"));
	const auto &z = zone(r, test::hikey960_zone());
	BOOST_TEST(z["governor"].GetString() == std::string("step_wise"));
	const double reached = seconds_to(z, 75.0);
	BOOST_TEST_MESSAGE(test::hikey960_zone() << " reached 75 C after " << reached << " s");
	BOOST_TEST((reached > 5 && reached < 40));
	BOOST_TEST(trip(z, test::hikey960_trip(0))["above_ns"].GetInt64() > 20'000'000'000LL);
	// step_wise holds it about the trip: never far above
	BOOST_TEST(z["max_c"].GetDouble() < 80.0);
	BOOST_TEST(z["kernel_reads"].GetUint64() > 60u);	// polled, 1 s then 100 ms once passive
	for (unsigned c = 4; c < 8; c++) {
		const auto &cpu = r.json["cpus"][c];
		BOOST_TEST(time_cooled(r, c) > 10'000'000'000LL);
		// the policy is limited while the device cools, from the kernel's
		// own limit update, which comes after cdev_update by the time the
		// kernel code between them takes (docs/kernel-time.md): microseconds
		// per change of state, none with --kernel-time off (the next test)
		const auto lag = std::llabs(cpu["limited_ns"].GetInt64() - time_cooled(r, c));
		BOOST_TEST(lag <= 10'000 * cooling_updates(r, c), "lag " << lag << " ns");
		BOOST_TEST(cooling_pressure(cpu) > 0.0);
		BOOST_TEST(cpu["capped_ns"].GetInt64() == 0);	// the kernel capped it, not the board
		// update_cpu_capacity(): the original capacity less the pressure
		// (before 6.9: its PELT average; from 6.9: the larger of the hardware
		// pressure's average and the cpufreq pressure) and the sugov
		// kthread's DL share
		const auto capacity = cpu["capacity_end"].GetUint64();
		if (thermal_pressure_from_cooling()) {
			// The average the capacity lost is the one update_cpu_capacity()
			// read, not the end's: step_wise moves the cooling state every
			// ~100 ms, so rq->avg_thermal never settles, and the busy CPUs
			// balance (and update their capacity) only every ~124 ms (on 5.10
			// the end's average had risen by 82 since the last update). The
			// update runs in the balance softirq after the tick and
			// update_blocked_averages() set rq->avg_thermal, which then holds
			// until the CPU's next tick (4 ms, HZ=250): the first 1 ms sample
			// showing a new capacity_of() shows the average it subtracted.
			const auto &capacities = series.at(fmt::format("cpu{}_capacity", c));
			const auto &averages = series.at(fmt::format("cpu{}_thermal_avg", c));
			BOOST_REQUIRE(capacities.size() == averages.size());
			BOOST_REQUIRE(capacities.size() == 60'001u);	// 60 s / 1 ms, and the start
			BOOST_TEST(capacities.back() == static_cast<double>(capacity));
			BOOST_TEST(cpu["thermal_load_end"].GetUint64() > 0u);
			unsigned updates = 0;
			double last = -1;	// the average subtracted from the end's capacity
			for (std::size_t i = 1; i < capacities.size(); i++) {
				if (capacities[i] == capacities[i - 1])
					continue;
				updates++;
				const double at = capacities[i], pressure = averages[i];
				BOOST_TEST(at <= 1024.0 - pressure, i << " ms: " << at << " + " << pressure);
				BOOST_TEST(at + pressure > 1024.0 - 64.0, i << " ms: " << at << " + " << pressure);
				last = pressure;
			}
			BOOST_TEST(updates > 100u);	// the pressure keeps moving the capacity
			BOOST_TEST(last > 0.0);
			BOOST_TEST(capacity <= 1024.0 - last);
			BOOST_TEST(capacity + last > 1024.0 - 64.0, capacity << " + " << last);
		} else {
			// the pressure of one cooling state's frequency, as the last
			// load balance saw it: 1024 - 1024 x f / 2362 MHz
			bool one_state = false;
			for (const auto &o : r.json["domains"][1]["opp_residency"].GetArray()) {
				const auto pressure = 1024u - 1024u * o["khz"].GetUint64() / 2362000u;
				one_state |= capacity <= 1024u - pressure && capacity + pressure > 1024u - 64u;
			}
			BOOST_TEST(capacity < 1024u - 64u);
			BOOST_TEST(one_state, "capacity_of() " << capacity);
		}
	}
	// the capped cluster ran below its highest OPP for a while
	std::int64_t top = 0;
	for (const auto &o : r.json["domains"][1]["opp_residency"].GetArray())
		if (o["khz"].GetUint() == 2362000)
			top = o["ns"].GetInt64();
	BOOST_TEST(top < 50'000'000'000LL);
}

// A cooling device that caps a policy must reach the scheduler through the
// tree's own signal on every tree: the thermal pressure the cooling device
// sets before 6.9 (5.10's arch_set_thermal_pressure(), which the fake arch
// must route to arch_topology.c: linux/sched/topology.h's empty inline
// would swallow it), averaged into rq->avg_thermal; the cpufreq pressure
// of the policy limit from 6.9. A signal that silently reads 0 while the
// big cluster is capped for tens of seconds fails here, naming it, on
// both flavours (hikey960 arm64, odroid-xu3 arm). The other signal
// carries nothing: before 6.9 there is no cpufreq pressure, from 6.9 the
// cooling device leaves the hardware pressure alone.
BOOST_AUTO_TEST_CASE(cooling_pressure_reaches_the_scheduler_on_every_tree)
{
	struct Case {
		const char *board;
		const char *duration;
		unsigned big_first;
	};
	for (const Case &c : {Case{"hikey960", "60s", 4}, Case{"odroid-xu3", "90s", 4}}) {
		const auto r = run_json({"--board", c.board, "--workload", full_load, "--duration", c.duration});
		const std::string own = cooling_pressure_name();
		const std::string other = thermal_pressure_from_cooling() ? "cpufreq_pressure_avg" : "thermal_pressure_avg";
		for (unsigned cpu = c.big_first; cpu < c.big_first + 4; cpu++) {
			BOOST_TEST_CONTEXT(c.board << " cpu" << cpu << ", the tree's signal " << own)
			{
				const auto &j = r.json["cpus"][cpu];
				const auto limited = j["limited_ns"].GetInt64();
				BOOST_REQUIRE_MESSAGE(time_cooled(r, cpu) > 5'000'000'000LL,
						      "the cooling device never capped the policy: nothing to check");
				BOOST_TEST(limited > 5'000'000'000LL);
				BOOST_TEST(j[own.c_str()].GetDouble() > 1.0,
					   own << " read " << j[own.c_str()].GetDouble() << " while the policy was limited for "
					       << limited / 1e9 << " s");
				BOOST_TEST(j[other.c_str()].GetDouble() == 0.0);
				if (thermal_pressure_from_cooling())	// and the scheduler's PELT average of it
					BOOST_TEST(j["thermal_load_avg"].GetDouble() > 1.0);
			}
		}
	}
}

// Kernel code taking no time (the model before kernel time), the policy is
// limited exactly while the big cluster's cooling device is in a cooling
// state: the limit update and cdev_update happen at one instant.
BOOST_AUTO_TEST_CASE(untimed_kernel_limits_the_policy_exactly_while_cooling)
{
	const auto r = run_json({"--board", "hikey960", "--workload", full_load, "--duration", "60s",
				 "--kernel-time", "off"});
	for (unsigned c = 4; c < 8; c++) {
		BOOST_TEST(time_cooled(r, c) > 10'000'000'000LL);
		BOOST_TEST(r.json["cpus"][c]["limited_ns"].GetInt64() == time_cooled(r, c));
	}
}

// Odroid-XU3 (four TMU zones: passive 70 C and 85 C, mapped to both
// clusters' cooling; no polling, the sensor's alarm): step_wise caps the
// A15s once the model reaches 70 C.
BOOST_AUTO_TEST_CASE(odroid_xu3_full_load_reaches_the_passive_trip)
{
	const auto r = run_json({"--board", "odroid-xu3", "--workload", full_load, "--duration", "90s"});
	const auto &z = zone(r, "cpu0-thermal");
	const double reached = seconds_to(z, 70.0);
	BOOST_TEST_MESSAGE("cpu0-thermal reached 70 C after " << reached << " s");
	BOOST_TEST((reached > 10 && reached < 70));
	BOOST_TEST(z["interrupts"].GetUint64() > 0u);
	BOOST_TEST(z["max_c"].GetDouble() < 75.0);
	for (unsigned c : {0u, 4u}) {
		BOOST_TEST(time_cooled(r, c) > 5'000'000'000LL);
		BOOST_TEST(cooling_pressure(r.json["cpus"][c]) > 0.0);
	}
}

// IPA (gov_power_allocator.c) with HiKey960's sustainable-power of 4500 mW:
// after the climb it holds the zone near the control trip, 75 C, switching
// the big cluster's cooling state to keep there.
BOOST_AUTO_TEST_CASE(power_allocator_holds_the_control_temperature)
{
	const auto r = run_json({"--board", "hikey960", "--workload", full_load, "--duration", "90s",
				 "--thermal-governor", "power_allocator"});
	const auto &z = zone(r, test::hikey960_zone());
	BOOST_TEST(z["governor"].GetString() == std::string("power_allocator"));
	const auto samples = z["temperature_c"].GetArray();
	for (rapidjson::SizeType i = 45; i < samples.Size(); i++)
		BOOST_TEST((samples[i].GetDouble() > 70.0 && samples[i].GetDouble() < 76.0),
			   "at " << i << " s: " << samples[i].GetDouble() << " C");
	BOOST_TEST(time_cooled(r, 4) > 30'000'000'000LL);
	BOOST_TEST(time_cooled(r, 0) == 0);	// IPA takes from the big cluster's power first here
	std::size_t updates = 0;
	for (const auto &c : r.json["cooling_devices"].GetArray())
		updates += c["updates"].GetUint64();
	BOOST_TEST(updates > 100u);
}

// The default workload is light: no zone reaches a trip, nothing is capped.
BOOST_AUTO_TEST_CASE(light_load_never_reaches_a_trip)
{
	for (const std::string board : {"hikey960", "odroid-xu3"}) {
		const auto r = run_json({"--board", board, "--duration", "60s"});
		for (const auto &z : r.json["thermal_zones"].GetArray()) {
			BOOST_TEST(z["max_c"].GetDouble() < 50.0, board << " " << z["name"].GetString());
			for (const auto &t : z["trips"].GetArray())
				BOOST_TEST(t["above_ns"].GetInt64() == 0);
		}
		for (const auto &c : r.json["cpus"].GetArray()) {
			BOOST_TEST(c["limited_ns"].GetInt64() == 0);
			BOOST_TEST(cooling_pressure(c) == 0.0);
		}
	}
}

// sched_thermal_decay_shift: the same capping, a slower PELT average of it
// (5.7 to 6.8: 5.10, 6.1); ignored from 6.9, whose cooling pressure is not
// PELT-averaged.
BOOST_AUTO_TEST_CASE(decay_shift_slows_the_scheduler_average)
{
	const auto fast = run_json({"--board", "hikey960", "--workload", full_load, "--duration", "40s",
				    "--thermal-model", "initial=74"});
	const auto slow = run_json({"--board", "hikey960", "--workload", full_load, "--duration", "40s",
				    "--thermal-model", "initial=74", "--cmdline", "sched_thermal_decay_shift=4"});
	if (!test::thermal_decay_shift()) {
		BOOST_TEST(fast.json["fingerprint"].GetString() == std::string(slow.json["fingerprint"].GetString()));
		BOOST_TEST(cooling_pressure(fast.json["cpus"][4]) > 0.0);
		return;
	}
	const double pressure_fast = fast.json["cpus"][4]["thermal_pressure_avg"].GetDouble();
	const double pelt_fast = fast.json["cpus"][4]["thermal_load_avg"].GetDouble();
	const double pelt_slow = slow.json["cpus"][4]["thermal_load_avg"].GetDouble();
	BOOST_TEST_MESSAGE("pressure " << pressure_fast << ", PELT " << pelt_fast << ", PELT with shift 4 "
				       << pelt_slow);
	BOOST_TEST(pressure_fast > 0.0);
	BOOST_TEST(pelt_fast > pelt_slow);
}

// The model's parameters and what the sensors read without it.
BOOST_AUTO_TEST_CASE(model_parameters_and_off)
{
	const auto hot = run_json({"--board", "hikey960", "--duration", "2s", "--thermal-model",
				   test::hikey960_zone() + ":initial=70,ambient=40"});
	const auto &z = zone(hot, test::hikey960_zone());
	BOOST_TEST(z["model"]["initial_c"].GetDouble() == 70.0);
	BOOST_TEST(z["model"]["ambient_c"].GetDouble() == 40.0);
	BOOST_TEST(z["model"]["resistance_k_per_w"].GetDouble() == 10.0);
	BOOST_TEST(z["temperature_c"][0].GetDouble() == 70.0);
	BOOST_TEST(z["end_c"].GetDouble() < 70.0);	// light load: cooling towards 40 C
	BOOST_TEST(trip(z, test::hikey960_trip(0))["above_ns"].GetInt64() == 2'000'000'000LL);

	const auto off = run_json({"--board", "hikey960", "--workload", full_load, "--duration", "30s",
				   "--thermal-model", "off"});
	BOOST_TEST(std::string(off.json["thermal_model"].GetString()).starts_with("off"));
	BOOST_TEST(off.json["thermal_zones"].GetArray().Size() == 0u);
	BOOST_TEST(off.json["cpus"][4]["limited_ns"].GetInt64() == 0);

	// no energy model, no power to heat with: the report says so
	const auto juno = run_json({"--board", "juno", "--workload", full_load, "--duration", "1s"});
	BOOST_TEST(std::string(juno.json["thermal_model"].GetString()).starts_with("off: some CPUs have no energy model"));
	BOOST_TEST(juno.json["thermal_zones"].GetArray().Size() == 0u);

	const auto file = test::temp_path("board-thermal.json");
	std::ofstream(file) << R"({"zones": {")" << test::hikey960_zone() << R"(": {"r": 20}}})";
	const auto from_file = run_json({"--board", "hikey960", "--duration", "1s", "--thermal-file", file.string()});
	BOOST_TEST(zone(from_file, test::hikey960_zone())["model"]["resistance_k_per_w"].GetDouble() == 20.0);
	std::filesystem::remove(file);

	for (const std::initializer_list<std::string> bad :
	     {std::initializer_list<std::string>{"--thermal-model", "r=-1"},
	      {"--thermal-model", "resistance=3"},
	      {"--thermal-model", "gpu-thermal:r=3"},	// no such zone on this board
	      {"--thermal-file", "/nonexistent/thermal.json"},
	      {"--thermal-governor", "bang_bang"}}) {
		std::vector<std::string> args{"run", "--board", "hikey960", "--duration", "10ms"};
		args.insert(args.end(), bad.begin(), bad.end());
		std::vector<std::string> argv{SH_TEST_HARNESS_BIN};
		argv.insert(argv.end(), args.begin(), args.end());
		const auto r = support::run_tool(argv);
		BOOST_TEST(r.exit_status == 2, *(bad.begin() + 1) << ": " << r.err);
		BOOST_TEST(r.err.find(*bad.begin()) != std::string::npos, r.err);
	}
	// parameters that drive the model past any physical temperature
	// (r x c is a sane 1 s, r x power is not): stopped, not reported as a
	// zone at 10^299 C that never reached its 120 C critical trip
	const auto runaway = support::run_tool(std::vector<std::string>{
		SH_TEST_HARNESS_BIN, "run", "--board", "hikey960", "--duration", "1s", "--thermal-model", "r=1e300,c=1e-300"});
	BOOST_TEST(runaway.exit_status == 2, runaway.err);
	BOOST_TEST(runaway.err.find("above the 1000 C the model holds to (r 1e+300 K/W") != std::string::npos, runaway.err);
}

// The kernel's thermal tracepoints in the ftrace text, as TP_printk prints them.
BOOST_AUTO_TEST_CASE(trace_has_the_thermal_tracepoints)
{
	const auto trace = test::temp_path("thermal-trace.txt");
	const auto r = test::run_cli({"run", "--board", "hikey960", "--workload", full_load, "--duration", "30s",
				      "--thermal-governor", "power_allocator", "--trace", trace.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	std::ifstream in(trace);
	const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	// the zone's and the cooling device's names are the tree's
	// (test::hikey960_zone(), test::cpufreq_cooling_device_name())
	for (const std::string line :
	     {"thermal_temperature: thermal_zone=" + test::hikey960_zone() + " id=0 temp_prev=",
	      "cdev_update: type=" + test::cpufreq_cooling_device_name(4, 1) + " target=",
	      std::string("thermal_power_allocator: thermal_zone_id=0"), std::string("cpu_frequency_limits: min=")})
		BOOST_TEST(text.find(line) != std::string::npos, line);
	// the cooling device sets the thermal pressure before 6.9, traced from
	// 5.19 (thermal_pressure_update; 5.10 has no such tracepoint); from 6.9
	// it leaves the hardware pressure alone: no hw_pressure_update
	const char *tracepoint = test::pressure_tracepoint();
	if (thermal_pressure_from_cooling() && tracepoint)
		BOOST_TEST(text.find(std::string(tracepoint) + ": cpu=4 thermal_pressure=") != std::string::npos);
	BOOST_TEST(text.find("hw_pressure_update:") == std::string::npos);
	std::filesystem::remove(trace);
}

// platform show: the zones the kernel registered, in its words.
BOOST_AUTO_TEST_CASE(platform_show_lists_the_registered_zones)
{
	const auto r = test::run_cli({"platform", "show", "hikey960"});
	BOOST_REQUIRE(r.exit_status == 0);
	BOOST_TEST(r.out.find("Thermal zones the kernel registered (thermal_of.c)") != std::string::npos, r.out);
	BOOST_TEST(r.out.find(test::hikey960_zone()) != std::string::npos);
	BOOST_TEST(r.out.find("governor step_wise, polling 1000 ms, passive 100 ms, 2 trips, 2 cooling bindings") !=
		   std::string::npos, r.out);
}

BOOST_AUTO_TEST_SUITE_END()
