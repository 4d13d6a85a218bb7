// SPDX-License-Identifier: GPL-2.0
//
// The board's power model (--board-power) beside the kernel's energy
// model: it changes what a run costs, never what the kernel decides; the
// clusters' static power is charged exactly while they are powered (not
// while every CPU waits in a cluster-off state the kernel's cpuidle chose),
// each idle state's power for the time the CPUs wait in it, a busy power
// table replaces the energy model's; a file that does not fit the board
// is bad input naming what does not fit.
#include "run_json.h"
#include "support.h"

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
