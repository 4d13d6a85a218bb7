// SPDX-License-Identifier: GPL-2.0
//
// Raw facts of two reference boards, compared with values read by hand in
// the 6.1 tree's device-tree sources (file and line given per group), so a
// loader change that silently shifts a number fails here.
#include "print_values.h"
#include "support.h"
#include "tree_features.h"

#include <boost/test/unit_test.hpp>

using namespace sh;

namespace {

std::vector<unsigned> ids(unsigned from, unsigned to)
{
	std::vector<unsigned> out;
	for (unsigned i = from; i <= to; i++)
		out.push_back(i);
	return out;
}

const dts::Trip &trip(const dts::ThermalZone &zone, const std::string &name)
{
	for (const auto &t : zone.trips)
		if (t.name == name)
			return t;
	BOOST_FAIL("no trip " << name << " in " << zone.name);
	throw;
}

} // namespace

BOOST_AUTO_TEST_SUITE(boards)

// arch/arm/boot/dts/exynos5422-cpus.dtsi (CPUs), exynos5420.dtsi and
// exynos5800.dtsi (OPP tables), exynos5422-odroidxu3-common.dtsi (thermal).
BOOST_AUTO_TEST_CASE(odroid_xu3)
{
	auto p = test::load_board("odroid-xu3");
	BOOST_TEST(p.model == "Hardkernel Odroid XU3");
	BOOST_REQUIRE(p.cpus.size() == 8u);

	for (const auto &cpu : p.cpus) {
		BOOST_TEST_CONTEXT("cpu" << cpu.id)
		{
			const bool little = cpu.id < 4;
			BOOST_TEST(cpu.node_path ==
				   (little ? "/cpus/cpu@10" : "/cpus/cpu@") + std::to_string(cpu.id % 4));
			BOOST_TEST(cpu.compatible.front() == (little ? "arm,cortex-a7" : "arm,cortex-a15"));
			BOOST_TEST(cpu.reg == std::vector<std::uint64_t>{(little ? 0x100u : 0u) + cpu.id % 4});
			BOOST_TEST(cpu.capacity_dmips_mhz == (little ? 539u : 1024u));
			BOOST_TEST(cpu.dynamic_power_coefficient == (little ? 90u : 310u));
			BOOST_TEST(cpu.cooling_cells == 2u);
			if (!test::odroid_xu3_cpu_map()) {	// 5.10's DT has none
				BOOST_TEST(!cpu.cpu_map);
				BOOST_TEST(cpu.idle_states.empty());
				continue;
			}
			BOOST_REQUIRE(cpu.cpu_map);
			BOOST_TEST(cpu.cpu_map->clusters == std::vector<unsigned>{little ? 0u : 1u});
			BOOST_TEST(cpu.cpu_map->core == cpu.id % 4);
			BOOST_TEST(!cpu.cpu_map->thread);
			BOOST_TEST(cpu.idle_states.empty());
		}
	}

	BOOST_REQUIRE(p.frequency_domains.size() == 2u);
	BOOST_TEST(p.frequency_domains[0].cpus == ids(0, 3));
	BOOST_TEST(p.frequency_domains[1].cpus == ids(4, 7));

	const auto &a7 = p.opp_tables.at(*p.cpus[0].opp_table);
	BOOST_TEST(a7.shared);
	BOOST_TEST(a7.opps.size() == 13u);
	BOOST_TEST(a7.opps.front().hz == 200000000u);
	BOOST_TEST(a7.opps.front().microvolt == std::vector<std::uint32_t>{900000});
	BOOST_TEST(a7.opps.back().hz == 1400000000u);
	BOOST_TEST(a7.opps.back().microvolt == std::vector<std::uint32_t>{1275000});
	BOOST_TEST(a7.opps.back().clock_latency_ns == 140000u);

	const auto &a15 = p.opp_tables.at(*p.cpus[4].opp_table);
	BOOST_TEST(a15.opps.size() == 19u);
	BOOST_TEST(a15.opps.front().hz == 200000000u);
	BOOST_TEST(a15.opps.front().microvolt == (std::vector<std::uint32_t>{900000, 900000, 1500000}));
	BOOST_TEST(a15.opps.back().hz == 2000000000u);
	BOOST_TEST(a15.opps.back().microvolt == (std::vector<std::uint32_t>{1312500, 1312500, 1500000}));

	BOOST_REQUIRE(p.thermal_zones.size() == 5u);
	const auto &zone = p.thermal_zones[0];
	BOOST_TEST(zone.name == "cpu0-thermal");
	BOOST_TEST(zone.polling_delay_ms == 0u);
	// 250 ms in 5.10 and 6.1; 6.12's exynos5422-odroidxu3-common.dtsi says 0.
	BOOST_TEST(zone.polling_delay_passive_ms == test::odroid_xu3_passive_polling_ms());
	BOOST_TEST(!zone.sustainable_power_mw);
	BOOST_TEST(zone.trips.size() == 6u);
	BOOST_TEST(trip(zone, "cpu-alert-0").temperature_mc == 50000);
	BOOST_TEST(trip(zone, "cpu-alert-0").hysteresis_mc == 5000u);
	BOOST_TEST(trip(zone, "cpu-alert-0").type == dts::TripType::active);
	BOOST_TEST(trip(zone, "cpu-alert-3").temperature_mc == 70000);
	BOOST_TEST(trip(zone, "cpu-alert-3").hysteresis_mc == 10000u);
	BOOST_TEST(trip(zone, "cpu-alert-3").type == dts::TripType::passive);
	BOOST_TEST(trip(zone, "cpu-alert-4").temperature_mc == 85000);
	BOOST_TEST(trip(zone, "cpu-crit-0").temperature_mc == 120000);
	BOOST_TEST(trip(zone, "cpu-crit-0").type == dts::TripType::critical);

	// map4: LITTLE CPUs 3..8, big CPUs 3..14 ("down to 600 MHz").
	BOOST_REQUIRE(zone.cooling_maps.size() == 5u);
	const auto &map4 = zone.cooling_maps[4];
	BOOST_TEST(zone.trips.at(*map4.trip).name == "cpu-alert-4");
	BOOST_REQUIRE(map4.devices.size() == 8u);
	BOOST_TEST(map4.devices[0].cpu == 0u);
	BOOST_TEST(map4.devices[0].min_state == 3u);
	BOOST_TEST(map4.devices[0].max_state == 8u);
	BOOST_TEST(map4.devices[7].cpu == 7u);
	BOOST_TEST(map4.devices[7].max_state == 14u);
	// map0 cools with the fan, not a CPU.
	BOOST_TEST(zone.cooling_maps[0].devices.at(0).node_path == "/pwm-fan");
	BOOST_TEST(!zone.cooling_maps[0].devices.at(0).cpu);

	BOOST_TEST(p.missing.empty());
}

// arch/arm64/boot/dts/hisilicon/hi3660.dtsi
BOOST_AUTO_TEST_CASE(hikey960)
{
	auto p = test::load_board("hikey960");
	BOOST_REQUIRE(p.cpus.size() == 8u);
	for (const auto &cpu : p.cpus) {
		BOOST_TEST_CONTEXT("cpu" << cpu.id)
		{
			const bool little = cpu.id < 4;
			BOOST_TEST(cpu.compatible.front() == (little ? "arm,cortex-a53" : "arm,cortex-a73"));
			BOOST_TEST(cpu.reg == std::vector<std::uint64_t>{(little ? 0u : 0x100u) + cpu.id % 4});
			BOOST_TEST(cpu.capacity_dmips_mhz == (little ? 592u : 1024u));
			BOOST_TEST(cpu.idle_states.size() == 2u);
		}
	}
	// Only the first CPU of each cluster carries the coefficient; the
	// EM of a policy is registered with its first CPU, so nothing is
	// missing.
	BOOST_TEST(p.cpus[0].dynamic_power_coefficient == 110u);
	BOOST_TEST(!p.cpus[1].dynamic_power_coefficient);
	BOOST_TEST(p.cpus[4].dynamic_power_coefficient == 550u);
	BOOST_TEST(p.missing.empty());

	const auto &little = p.opp_tables.at(*p.cpus[0].opp_table);
	BOOST_TEST(little.opps.size() == 5u);
	BOOST_TEST(little.opps.front().hz == 533000000u);
	BOOST_TEST(little.opps.front().microvolt == std::vector<std::uint32_t>{700000});
	BOOST_TEST(little.opps.back().hz == 1844000000u);
	BOOST_TEST(little.opps.back().microvolt == std::vector<std::uint32_t>{1100000});
	const auto &big = p.opp_tables.at(*p.cpus[4].opp_table);
	BOOST_TEST(big.opps.size() == 5u);
	BOOST_TEST(big.opps.front().hz == 903000000u);
	BOOST_TEST(big.opps.back().hz == 2362000000u);
	BOOST_TEST(big.opps.back().microvolt == std::vector<std::uint32_t>{1100000});
	BOOST_TEST(big.opps.back().clock_latency_ns == 300000u);

	BOOST_REQUIRE(p.frequency_domains.size() == 2u);
	BOOST_TEST(p.frequency_domains[1].cpus == ids(4, 7));

	const auto &cluster_sleep_1 = p.idle_states.at(p.cpus[4].idle_states[1]);
	BOOST_TEST(cluster_sleep_1.name == "cluster-sleep-1");
	BOOST_TEST(cluster_sleep_1.entry_latency_us == 800u);
	BOOST_TEST(cluster_sleep_1.exit_latency_us == 2900u);
	BOOST_TEST(cluster_sleep_1.min_residency_us == 3500u);
	BOOST_TEST(cluster_sleep_1.local_timer_stop);

	BOOST_REQUIRE(p.thermal_zones.size() == 1u);
	const auto &zone = p.thermal_zones[0];
	BOOST_TEST(zone.name == test::hikey960_zone());	// 5.10: cls0
	BOOST_TEST(zone.polling_delay_ms == 1000u);
	BOOST_TEST(zone.polling_delay_passive_ms == 100u);
	BOOST_TEST(zone.sustainable_power_mw == 4500u);
	BOOST_TEST(zone.sensors.at(0).args == std::vector<std::uint32_t>{1});
	BOOST_TEST(trip(zone, test::hikey960_trip(0)).temperature_mc == 65000);
	BOOST_TEST(trip(zone, test::hikey960_trip(1)).temperature_mc == 75000);
	BOOST_TEST(trip(zone, test::hikey960_trip(1)).hysteresis_mc == 1000u);
	BOOST_REQUIRE(zone.cooling_maps.size() == 2u);
	BOOST_TEST(zone.cooling_maps[0].contribution == 1024u);
	BOOST_TEST(zone.cooling_maps[1].contribution == 512u);
	BOOST_TEST(zone.trips.at(*zone.cooling_maps[1].trip).name == test::hikey960_trip(1));
	BOOST_TEST(zone.cooling_maps[1].devices.size() == 4u);
	BOOST_TEST(zone.cooling_maps[1].devices[0].cpu == 4u);
	BOOST_TEST(!zone.cooling_maps[1].devices[0].min_state);	// THERMAL_NO_LIMIT
	BOOST_TEST(!zone.cooling_maps[1].devices[0].max_state);
}

// Firmware-DVFS boards load and say what is missing and where it would
// come from.
// rk3399-gru-scarlet: the CPU supplies are PWM regulators limited to
// 800074-1299226 uV (big) and 802122-1199620 uV (LITTLE). Where the OPPs
// give one voltage (rk3399-op1-opp.dtsi, up to 6.12), those at 800000 uV
// are outside, and the OPP core adds them unavailable
// (_opp_supported_by_regulators()): 13 OPPs of 16. Where they give a
// range (7.x's rk3399-op1.dtsi: <800000 800000 1150000>), the regulator
// has voltages within every range: all 16 are available. The tree's DT
// says which (its first OPP's cells), not the series.
BOOST_AUTO_TEST_CASE(rk3399_gru_scarlet_opps_outside_the_regulator_are_unavailable)
{
	auto dts = test::kernel_tree() / "arch/arm64/boot/dts/rockchip/rk3399-gru-scarlet-inx.dts";
	auto p = test::load_board(dts.string());
	BOOST_REQUIRE(p.opp_tables.size() == 2u);
	BOOST_REQUIRE(!p.opp_tables[0].opps.empty());
	const bool ranges = p.opp_tables[0].opps[0].microvolt.size() == 3;
	std::size_t opps = 0, unavailable = 0;
	for (const auto &t : p.opp_tables) {
		opps += t.opps.size();
		unavailable += t.skipped_regulator;
		for (const auto &opp : t.opps) {
			if (ranges)
				BOOST_TEST(opp.microvolt.back() > 800074u);
			else
				BOOST_TEST(opp.microvolt.front() > 800074u);
		}
	}
	BOOST_TEST(opps == (ranges ? 16u : 13u));
	BOOST_TEST(unavailable == (ranges ? 0u : 3u));
	// a board whose supplies do not constrain its OPPs keeps them all
	for (const auto &t : test::load_board("rk3399").opp_tables)
		BOOST_TEST(t.skipped_regulator == 0u);
}

BOOST_AUTO_TEST_CASE(firmware_boards_name_missing_facts)
{
	struct Case {
		const char *board;
		const char *kind;
	};
	// juno-r2-scmi where the tree has the Juno's SCMI variants
	// (test::board_in_tree()); 5.10's tree has no SCMI board, and
	// test_properties' scmi_perf_protocol reads SCMI from a fixture on
	// every tree.
	for (const auto &c : {Case{"juno", "scpi"}, Case{"juno-r2-scmi", "scmi"},
			      Case{"db845c", "qcom-cpufreq-hw"}, Case{"rb5", "qcom-cpufreq-hw"}}) {
		if (!test::board_in_tree(c.board))
			continue;
		BOOST_TEST_CONTEXT(c.board)
		{
			auto p = test::load_board(c.board);
			BOOST_REQUIRE(!p.cpus.empty());
			BOOST_TEST(p.cpus[0].firmware_dvfs.has_value());
			BOOST_TEST(p.cpus[0].firmware_dvfs->kind == c.kind);
			BOOST_TEST(!p.missing.empty());
		}
	}
	auto rb5 = test::load_board("rb5");
	BOOST_REQUIRE(rb5.frequency_domains.size() == 3u);	// silver, gold, prime
	BOOST_TEST(rb5.frequency_domains[2].cpus == std::vector<unsigned>{7});
}

// Every short name of the build's tree resolves there and loads; one whose
// file the tree lacks (test::board_in_tree()) is an error naming the
// board and the file looked for.
BOOST_AUTO_TEST_CASE(every_known_board_loads)
{
	for (const auto &board : dts::known_boards()) {
		BOOST_TEST_CONTEXT(board.name)
		{
			if (!test::board_in_tree(board.name)) {
				BOOST_TEST(!dts::board_path(board, test::kernel_tree()));
				const std::string expected = "board " + std::string(board.name) +
							     ": the kernel tree " + test::kernel_tree().string() +
							     " has none of its files (" +
							     std::string(board.candidates.front());
				try {
					test::load_board(std::string(board.name));
					BOOST_ERROR("loaded a board the tree has no file for");
				} catch (const dts::Error &e) {
					BOOST_TEST(std::string(e.what()).starts_with(expected), e.what());
				}
				continue;
			}
			auto p = test::load_board(std::string(board.name));
			BOOST_TEST(p.cpus.size() >= 6u);
			BOOST_TEST(p.frequency_domains.size() >= 1u);
		}
	}
}

BOOST_AUTO_TEST_SUITE_END()
