// SPDX-License-Identifier: GPL-2.0
//
// End to end through the sched-harness binary: what a user types, what
// they read, and the exit status a script sees.
#include "support.h"
#include "tree_features.h"

#include <cstdio>

#include <boost/test/unit_test.hpp>
#include <rapidjson/document.h>

using namespace sh;

namespace {

std::size_t lines(const std::string &text)
{
	return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

void expect_bad_input(const support::ToolResult &r, const std::string &mentions)
{
	BOOST_TEST(r.exit_status == 2);
	BOOST_TEST(r.out.empty());
	BOOST_TEST(lines(r.err) == 1u, "stderr: " << r.err);
	BOOST_TEST(r.err.starts_with("sched-harness: error: "));
	BOOST_TEST(r.err.find(mentions) != std::string::npos, "stderr: " << r.err);
}

} // namespace

BOOST_AUTO_TEST_SUITE(cli_platform)

// The tree's own boards with their files; a short name whose file the tree
// lacks (juno-r2-scmi before the Juno's SCMI variants,
// test::board_in_tree()) only after them, as a board it has no file for.
BOOST_AUTO_TEST_CASE(list_names_every_board_with_its_file)
{
	auto r = test::run_cli({"platform", "list"});
	BOOST_TEST(r.exit_status == 0);
	const auto absent_heading = r.out.find("\nKnown boards this tree has no file for:\n");
	const auto tree_boards = r.out.substr(0, absent_heading);
	const auto absent = absent_heading == std::string::npos ? std::string() : r.out.substr(absent_heading);
	bool any_absent = false;
	for (const auto &board : dts::known_boards()) {
		BOOST_TEST_CONTEXT(board.name)
		{
			const std::string name = "  " + std::string(board.name) + " ";
			auto path = dts::board_path(board, test::kernel_tree());
			if (test::board_in_tree(board.name)) {
				BOOST_REQUIRE(path);
				BOOST_TEST(tree_boards.find(name) != std::string::npos, r.out);
				BOOST_TEST(tree_boards.find(path->string()) != std::string::npos, path->string());
				BOOST_TEST(absent.find(name) == std::string::npos, r.out);
			} else {
				any_absent = true;
				BOOST_TEST(!path);
				BOOST_TEST(tree_boards.find(name) == std::string::npos, r.out);
				BOOST_TEST(absent.find(name) != std::string::npos, r.out);
				for (auto candidate : board.candidates)
					BOOST_TEST(absent.find(candidate) != std::string::npos, r.out);
			}
		}
	}
	BOOST_TEST((absent_heading != std::string::npos) == any_absent, r.out);
}

BOOST_AUTO_TEST_CASE(show_summarises_cpus_domains_and_thermal)
{
	auto r = test::run_cli({"platform", "show", "odroid-xu3"});
	BOOST_TEST(r.exit_status == 0);
	BOOST_TEST(r.err.empty());
	for (const char *expected : {"Board       Hardkernel Odroid XU3", "CPUs (8)", "arm,cortex-a15",
				     "cpus 0-3", "cpus 4-7", "13      200     1400",
				     "19      200     2000", "Thermal zones (5)",
				     "cpus 0-3 states 3..8, cpus 4-7 states 3..14",
				     "Missing facts: none"})
		BOOST_TEST(r.out.find(expected) != std::string::npos, expected);
}

// Trip temperatures as the device tree gives them, exactly, and the trips
// the kernel's own thermal core disables: 5.10 and 6.1 ignore a trip at
// 0 mC (thermal_zone_device_register{,_with_trips}() sets trips_disabled),
// 6.12 keeps it (test::trips_at_zero_disabled()).
BOOST_AUTO_TEST_CASE(trips_print_exactly_and_the_kernel_says_which_it_disables)
{
	auto r = test::run_cli({"platform", "show", "hikey960", "--overlay",
				test::fixture("kernel/hikey960-trip-at-zero.dtso").string()});
	BOOST_REQUIRE(r.exit_status == 0);
	// the trips by the tree's names (5.10's trip-point@0: test::hikey960_trip())
	const auto trip_line = [](int i, const char *temperature, const char *hysteresis) {
		char line[128];
		std::snprintf(line, sizeof(line), "trip %-20s %7s C  hysteresis %5s C", test::hikey960_trip(i).c_str(),
			      temperature, hysteresis);
		return std::string(line);
	};
	for (const auto &expected : {trip_line(0, "0.0", "1.0"), trip_line(1, "-0.001", "2.5")})
		BOOST_TEST(r.out.find(expected) != std::string::npos, expected << "\n" << r.out);
	const std::string registered =
		test::trips_at_zero_disabled() ? "2 trips (1 disabled by the thermal core)," : "2 trips,";
	BOOST_TEST(r.out.find(registered) != std::string::npos, registered << "\n" << r.out);

	auto plain = test::run_cli({"platform", "show", "hikey960"});
	BOOST_TEST(plain.out.find(trip_line(0, "65.0", "1.0")) != std::string::npos, plain.out);
	BOOST_TEST(plain.out.find("2 trips, 2 cooling bindings") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(json_carries_the_same_facts)
{
	auto r = test::run_cli({"platform", "show", "hikey960", "--json"});
	BOOST_REQUIRE(r.exit_status == 0);
	rapidjson::Document doc;
	doc.Parse(r.out.c_str());
	BOOST_REQUIRE(!doc.HasParseError());
	const auto &cpus = doc["cpus"];
	BOOST_REQUIRE(cpus.Size() == 8u);
	BOOST_TEST(cpus[4]["capacity_dmips_mhz"].GetUint() == 1024u);
	BOOST_TEST(cpus[0]["dynamic_power_coefficient"].GetUint() == 110u);
	BOOST_TEST(cpus[1]["dynamic_power_coefficient"].IsNull());
	BOOST_TEST(cpus[4]["cpu_map"]["clusters"][0].GetUint() == 1u);
	const auto &table = doc["opp_tables"][cpus[4]["opp_table"].GetUint()];
	BOOST_TEST(table["opps"].Size() == 5u);
	BOOST_TEST(table["opps"][4]["hz"].GetUint64() == 2362000000u);
	const auto &zone = doc["thermal_zones"][0];
	BOOST_TEST(zone["sustainable_power_mw"].GetUint() == 4500u);
	BOOST_TEST(zone["cooling_maps"][1]["contribution"].GetUint() == 512u);
	BOOST_TEST(zone["cooling_maps"][1]["devices"][0]["max_state"].IsNull());
	BOOST_TEST(doc["missing"].Size() == 0u);
}

BOOST_AUTO_TEST_CASE(json_carries_what_the_kernel_built)
{
	auto r = test::run_cli({"platform", "show", "odroid-xu3", "--json"});
	BOOST_REQUIRE(r.exit_status == 0);
	rapidjson::Document doc;
	doc.Parse(r.out.c_str());
	BOOST_REQUIRE(!doc.HasParseError());
	const auto &kernel = doc["kernel"];
	BOOST_TEST(kernel["cpus"][0]["cpu_scale"].GetUint() == 377u);
	BOOST_TEST(kernel["cpus"][4]["cpu_scale"].GetUint() == 1024u);
	BOOST_REQUIRE(kernel["perf_domains"].Size() == 2u);
	const auto &little = kernel["perf_domains"][0];
	BOOST_TEST(little["states"].Size() == 13u);
	// 14.58 mW: in microwatts from 5.19, milliwatts before; the cost as
	// test_boot.cpp works it out (fmax * power / f, the power x 1000 on
	// 5.10's 64-bit kernels, the arm flavour's included:
	// test::em_cost_scaled_on_64bit(); or from 6.9 10 * power / performance)
	const bool uw = test::em_in_microwatts();
	const unsigned power = uw ? 14580u : 14u;
	const unsigned cost_scale = test::em_cost_scaled_on_64bit() ? 1000u : 1u;
	const unsigned cost = test::em_cost_per_performance() ? 2750u : 7u * power * cost_scale;
	BOOST_TEST(little["states"][0]["power"].GetUint() == power);
	BOOST_TEST(little["states"][0]["inefficient"].GetBool() == test::em_inefficient_opps());
	BOOST_TEST(kernel["eas"].GetBool());

	auto text = test::run_cli({"platform", "show", "odroid-xu3"});
	const std::string flags = std::string("energy_model/cpu0  cpus: 0-3  flags: ") + (uw ? "microwatts" : "milliwatts");
	BOOST_TEST(text.out.find(flags) != std::string::npos, flags << "\n" << text.out);
	char ps[96];
	std::snprintf(ps, sizeof(ps), "ps:200000          200000 %10u %10u %12d", power, cost,
		      test::em_inefficient_opps() ? 1 : 0);
	BOOST_TEST(text.out.find(ps) != std::string::npos, ps << "\n" << text.out);
}

#if SH_KERNEL_SCHEDULER
// With the scheduler compiled in: the sched domains and perf domains as
// topology.c built them, and EAS on or off in the kernel's words.
BOOST_AUTO_TEST_CASE(show_reports_sched_domains_and_eas)
{
	auto r = test::run_cli({"platform", "show", "hikey960"});
	BOOST_TEST(r.exit_status == 0, r.err);
	BOOST_TEST(r.out.find("cpu0 MC   span 0-3") != std::string::npos, r.out);
	// the top level: DIE, then PKG (test::package_level_name())
	BOOST_TEST(r.out.find(std::string("cpu0 ") + test::package_level_name() + "  span 0-7") != std::string::npos,
		   r.out);
	BOOST_TEST(r.out.find("SD_ASYM_CPUCAPACITY") != std::string::npos);
	BOOST_TEST(r.out.find("Perf domains (root domain): pd4:{4-7} pd0:{0-3}") != std::string::npos);
	BOOST_TEST(r.out.find("\nEAS: on\n") != std::string::npos);

	auto symmetric = test::run_cli({"platform", "show", "hikey"});
	// build_perf_domains()'s words; 6.10 added "Checking EAS, "
	BOOST_TEST(symmetric.out.find(!test::eas_checks_say_why()
					      ? "EAS: off — rd 0-7: CPUs do not have asymmetric capacities"
					      : "EAS: off — rd 0-7: Checking EAS, CPUs do not have asymmetric capacities") !=
		   std::string::npos, symmetric.out);
	auto sysctl = test::run_cli({"platform", "show", "odroid-xu3", "--sysctl", "kernel.sched_energy_aware=0"});
	BOOST_TEST(sysctl.exit_status == 0, sysctl.err);
	BOOST_TEST(sysctl.out.find("EAS: off — kernel.sched_energy_aware = 0") != std::string::npos);

	auto json = test::run_cli({"platform", "show", "odroid-xu3", "--json"});
	rapidjson::Document doc;
	doc.Parse(json.out.c_str());
	BOOST_REQUIRE(!doc.HasParseError());
	const auto &kernel = doc["kernel"];
	BOOST_TEST(kernel["scheduler"].GetBool());
	BOOST_TEST(kernel["flavour"].GetString() == std::string("arm"));
	BOOST_TEST(kernel["defconfig"].GetString() == std::string("arch/arm/configs/exynos_defconfig"));
	BOOST_TEST(kernel["sugov_kthread_cpus"].Size() == 8u);
	BOOST_TEST(kernel["root_perf_domains"].Size() == 2u);
	// the arm flavour, configured from the tree's exynos_defconfig
	auto shown = test::run_cli({"platform", "show", "odroid-xu3"});
	BOOST_TEST(shown.out.find("flavour arm, configured from arch/arm/configs/exynos_defconfig: HZ=100 ") !=
			   std::string::npos, shown.out);
	// cpufreq-dt has no fast switch: schedutil uses its kthread
	BOOST_TEST(shown.out.find("schedutil switches: CPUs 0-7 through its sugov kthread") != std::string::npos);
	auto hikey = test::run_cli({"platform", "show", "hikey960"});
	BOOST_TEST(hikey.out.find("flavour arm64, configured from arch/arm64/configs/defconfig: HZ=250 ") !=
			   std::string::npos, hikey.out);
	// cpuidle: hikey960's PSCI states through cpuidle-psci, none on odroid-xu3
	BOOST_TEST(hikey.out.find("cpuidle (menu governor): CPUs 0-3 WFI (exit 1 us, residency 1 us), cpu-sleep-0 "
				  "(exit 1050 us, residency 1500 us), cluster-sleep-0 (exit 2100 us, residency "
				  "3500 us); CPUs 4-7 ") != std::string::npos, hikey.out);
	BOOST_TEST(shown.out.find("cpuidle: CPUs 0-7 none (idle.c's default path)") != std::string::npos);
	BOOST_TEST(kernel["cpuidle_governor"].GetString() == std::string(""));
	// 32-bit arm: MC per cluster (MPIDR Aff1), DIE over both
	BOOST_TEST(kernel["sched_domains"]["cpu0"].Size() == 2u);
	BOOST_TEST(kernel["sched_domains"]["cpu0"][0]["span"].Size() == 4u);
	BOOST_TEST(kernel["sched_domains"]["cpu0"][1]["span"].Size() == 8u);
}

BOOST_AUTO_TEST_CASE(unknown_kernel_options_exit_2_naming_the_valid_ones)
{
	expect_bad_input(test::run_cli({"platform", "show", "odroid-xu3", "--cmdline", "sched_verbos"}),
			 "sched_thermal_decay_shift=");
	expect_bad_input(test::run_cli({"platform", "show", "odroid-xu3", "--sysctl", "kernel.sched_nope=1"}),
			 "kernel.sched_energy_aware");
	expect_bad_input(test::run_cli({"platform", "show", "odroid-xu3", "--sysctl", "kernel.sched_energy_aware=9"}),
			 "rejected");
	expect_bad_input(test::run_cli({"platform", "show", "odroid-xu3", "--feature", "UTIL_ESTIMATE=off"}),
			 "UTIL_EST,");
}
#endif

BOOST_AUTO_TEST_CASE(firmware_board_says_what_is_missing_and_overlay_supplies_it)
{
	auto bare = test::run_cli({"platform", "show", "juno"});
	BOOST_TEST(bare.exit_status == 0);
	BOOST_TEST(bare.out.find("Missing facts (2)") != std::string::npos);
	BOOST_TEST(bare.out.find("SCPI firmware") != std::string::npos);
	BOOST_TEST(bare.out.find("--overlay") != std::string::npos);

	auto fixed = test::run_cli({"platform", "show", "juno", "--overlay",
				    test::fixture("cli/juno-opps.dtso").string()});
	BOOST_TEST(fixed.exit_status == 0, fixed.err);
	BOOST_TEST(fixed.out.find("Missing facts: none") != std::string::npos);
	BOOST_TEST(fixed.out.find("cpus 0-1      /opp-table-a57 (5 OPPs, 450-1100 MHz)") !=
		   std::string::npos);
	BOOST_TEST(fixed.out.find("Overlay     ") != std::string::npos);
	// The overlay's OPPs reach the kernel: capacities now use each policy's
	// max frequency (578 * 850 / (1024 * 1100) * 1024 = 446).
	BOOST_TEST(fixed.out.find("   2        446") != std::string::npos, fixed.out);
}

BOOST_AUTO_TEST_CASE(output_is_deterministic)
{
	auto first = test::run_cli({"platform", "show", "rk3399", "--json"});
	auto second = test::run_cli({"platform", "show", "rk3399", "--json"});
	BOOST_TEST(first.exit_status == 0);
	BOOST_TEST(first.out == second.out);
}

BOOST_AUTO_TEST_CASE(bad_usage_and_inputs_exit_2_with_one_line)
{
	expect_bad_input(test::run_cli({"platform", "show", "no-such-board"}), "not a known board");
	expect_bad_input(test::run_cli({"platform", "show", "/nonexistent/board.dts"}),
			 "/nonexistent/board.dts: no such file");
	expect_bad_input(test::run_cli({"platform", "show"}), "exactly one BOARD");
	expect_bad_input(test::run_cli({"platform", "frobnicate"}), "unknown action 'frobnicate'");
	expect_bad_input(test::run_cli({"frobnicate"}), "unknown command 'frobnicate'");
	expect_bad_input(test::run_cli({"platform", "show", "juno", "--no-such-option"}),
			 "no-such-option");
	expect_bad_input(test::run_cli({"platform", "show", "juno", "--overlay",
					"/nonexistent/x.dtso"}),
			 "/nonexistent/x.dtso: no such file");
	expect_bad_input(test::run_cli({}), "no command");
}

BOOST_AUTO_TEST_CASE(help_and_version)
{
	auto help = test::run_cli({"--help"});
	BOOST_TEST(help.exit_status == 0);
	BOOST_TEST(help.out.find("platform") != std::string::npos);
	auto sub = test::run_cli({"platform", "--help"});
	BOOST_TEST(sub.exit_status == 0);
	BOOST_TEST(sub.out.find("--overlay") != std::string::npos);
	auto version = test::run_cli({"--version"});
	BOOST_TEST(version.exit_status == 0);
	BOOST_TEST(version.out.starts_with("sched-harness "));
}

BOOST_AUTO_TEST_SUITE_END()
