// SPDX-License-Identifier: GPL-2.0
//
// Every property the loader reads, on small fixtures written for these
// tests (tests/fixtures/dts/*.dts): each value asserted here is the one
// written in the fixture, so a reader that drops, reorders or reinterprets
// a property fails.
#include "print_values.h"
#include "support.h"

#include <algorithm>
#include <array>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using namespace sh;

namespace {

constexpr std::uint64_t mhz = 1000000;

std::vector<std::uint64_t> rates(const dts::OppTable &table)
{
	std::vector<std::uint64_t> out;
	for (const auto &opp : table.opps)
		out.push_back(opp.hz);
	return out;
}

const dts::CpuMapPosition &position(const dts::Platform &p, unsigned cpu)
{
	BOOST_TEST_REQUIRE(cpu < p.cpus.size());
	BOOST_TEST_REQUIRE(p.cpus[cpu].cpu_map.has_value(), "cpu " << cpu << " has no cpu-map position");
	return *p.cpus[cpu].cpu_map;
}

const dts::OppTable &table_of(const dts::Platform &p, unsigned cpu)
{
	BOOST_TEST_REQUIRE(cpu < p.cpus.size());
	BOOST_TEST_REQUIRE(p.cpus[cpu].opp_table.has_value(), "cpu " << cpu << " has no OPP table");
	BOOST_TEST_REQUIRE(*p.cpus[cpu].opp_table < p.opp_tables.size());
	return p.opp_tables[*p.cpus[cpu].opp_table];
}

// The missing facts whose `what` starts with `what`.
std::vector<dts::MissingFact> missing(const dts::Platform &p, std::string_view what)
{
	std::vector<dts::MissingFact> out;
	for (const auto &fact : p.missing)
		if (fact.what.starts_with(what))
			out.push_back(fact);
	return out;
}

bool contains(const std::string &text, std::string_view part)
{
	return text.find(part) != std::string::npos;
}

constexpr std::string_view no_opp = "CPU frequencies and voltages (no OPP table)";

// The same board built the other way: a .dtb or .dtbo made with dtc -@
// (symbols, so that overlays can target labels), as a user would pass it.
std::filesystem::path compile(const support::TempDir &dir, const std::filesystem::path &source,
			      const std::string &name)
{
	const auto out = dir.path() / name;
	const std::array argv{std::string("dtc"), std::string("-q"), std::string("-@"),
			      std::string("-I"), std::string("dts"), std::string("-O"),
			      std::string("dtb"), std::string("-o"), out.string(), source.string()};
	auto result = support::run_tool(argv);
	BOOST_TEST_REQUIRE(result.ok(), "dtc " << source << ": " << result.err);
	return out;
}

// What fw-qcom.dts looks like once fw-qcom-opp.dtso has given domain 0 its
// OPP table, whichever form the board and the overlay came in.
void check_qcom_with_opps(const dts::Platform &p)
{
	BOOST_TEST_REQUIRE(p.cpus.size() == 3u);
	BOOST_TEST(p.cpus[0].opp_table == p.cpus[1].opp_table);
	BOOST_TEST(!p.cpus[2].opp_table.has_value());
	const auto &table = table_of(p, 0);
	BOOST_TEST(table.node_path == "/cpus/opp-table-domain0");
	BOOST_TEST(table.binding == dts::OppBinding::v2);
	BOOST_TEST(table.shared);
	BOOST_TEST(rates(table) == (std::vector<std::uint64_t>{300 * mhz, 1000 * mhz}));
	BOOST_TEST(table.opps[0].microvolt == std::vector<std::uint32_t>{600000});
	BOOST_TEST(table.opps[1].microvolt == std::vector<std::uint32_t>{800000});

	// The firmware still defines which CPUs share a frequency.
	BOOST_TEST_REQUIRE(p.frequency_domains.size() == 2u);
	BOOST_TEST(p.frequency_domains[0].cpus == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(p.frequency_domains[0].opp_table == p.cpus[0].opp_table);
	BOOST_TEST(p.frequency_domains[0].why == "qcom-cpufreq-hw domain 0");
	BOOST_TEST(!p.frequency_domains[1].opp_table.has_value());

	// Only domain 1 still lacks its frequencies.
	BOOST_TEST_REQUIRE(p.missing.size() == 1u);
	BOOST_TEST(p.missing[0].what == no_opp);
	BOOST_TEST(p.missing[0].cpus == std::vector<unsigned>{2});
}

} // namespace

BOOST_AUTO_TEST_SUITE(properties)

BOOST_AUTO_TEST_SUITE(cpus)

BOOST_AUTO_TEST_CASE(board_identity)
{
	const auto file = test::fixture("dts/cpus-big-little.dts");
	auto p = test::load(file);
	BOOST_TEST(p.source == file.string());
	BOOST_TEST(p.overlays.empty());
	BOOST_TEST(p.model == "sh-test big.LITTLE");
	BOOST_TEST(p.compatible == (std::vector<std::string>{"sh-test,big-little", "sh-test,soc"}));
	BOOST_TEST(p.thermal_zones.empty());
}

// DT order gives the logical ids; status = "fail" and non-CPU children of
// /cpus take none; reg is read as #address-cells = <2> cells.
BOOST_AUTO_TEST_CASE(numbering_and_reg)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 4u);
	const std::array<std::string, 4> paths{"/cpus/cpu@0", "/cpus/cpu@100000000", "/cpus/cpu@100",
					       "/cpus/cpu@100000100"};
	const std::array<std::uint64_t, 4> regs{0x0, 0x100000000, 0x100, 0x100000100};
	for (unsigned i = 0; i < 4; i++) {
		BOOST_TEST_CONTEXT("cpu " << i) {
			BOOST_TEST(p.cpus[i].id == i);
			BOOST_TEST(p.cpus[i].node_path == paths[i]);
			BOOST_TEST(p.cpus[i].reg == std::vector<std::uint64_t>{regs[i]});
		}
	}
	BOOST_TEST(p.cpus[0].compatible == std::vector<std::string>{"arm,cortex-a55"});
	BOOST_TEST(p.cpus[1].compatible == (std::vector<std::string>{"arm,cortex-a78", "arm,armv8"}));
}

BOOST_AUTO_TEST_CASE(cpu_properties)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 4u);
	const auto &little0 = p.cpus[0], &big0 = p.cpus[1], &little1 = p.cpus[2], &big1 = p.cpus[3];

	BOOST_TEST(little0.capacity_dmips_mhz == 512u);
	BOOST_TEST(little0.dynamic_power_coefficient == 100u);
	BOOST_TEST(little0.cooling_cells == 2u);
	BOOST_TEST(little0.clock_frequency == std::uint64_t{1800000000});

	BOOST_TEST(big0.capacity_dmips_mhz == 1024u);
	BOOST_TEST(big0.dynamic_power_coefficient == 400u);
	BOOST_TEST(big0.cooling_cells == 2u);
	// Two cells: 0x0 0x9502f900.
	BOOST_TEST(big0.clock_frequency == std::uint64_t{2500000000});

	BOOST_TEST(little1.capacity_dmips_mhz == 512u);
	BOOST_TEST(!little1.clock_frequency.has_value());
	BOOST_TEST(!big1.cooling_cells.has_value());
	BOOST_TEST(!big1.clock_frequency.has_value());

	// clocks = <&cmu 3>: an ordinary clock controller, not firmware DVFS.
	for (const auto &cpu : p.cpus)
		BOOST_TEST(!cpu.firmware_dvfs.has_value(), cpu.node_path);
	// Everything a later stage needs is there.
	BOOST_TEST(p.missing.empty());
}

BOOST_AUTO_TEST_SUITE_END() // cpus

BOOST_AUTO_TEST_SUITE(cpu_map)

BOOST_AUTO_TEST_CASE(clusters)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	// Logical ids 0 and 2 are the little cores, 1 and 3 the big ones.
	const std::array<unsigned, 4> cluster{0, 1, 0, 1};
	const std::array<unsigned, 4> core{0, 0, 1, 1};
	for (unsigned i = 0; i < 4; i++) {
		BOOST_TEST_CONTEXT("cpu " << i) {
			const auto &pos = position(p, i);
			BOOST_TEST(!pos.socket.has_value());
			BOOST_TEST(pos.clusters == std::vector<unsigned>{cluster[i]});
			BOOST_TEST(pos.core == core[i]);
			BOOST_TEST(!pos.thread.has_value());
			BOOST_TEST(pos.node_path == "/cpus/cpu-map/cluster" + std::to_string(cluster[i]) +
							    "/core" + std::to_string(core[i]));
		}
	}
}

BOOST_AUTO_TEST_CASE(sockets_nested_clusters_threads)
{
	auto p = test::load(test::fixture("dts/cpu-map-nested.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 9u);

	const auto &c0 = position(p, 0);
	BOOST_TEST(c0.socket == 0u);
	BOOST_TEST(c0.clusters == (std::vector<unsigned>{0, 0}));
	BOOST_TEST(c0.core == 0u);
	BOOST_TEST(!c0.thread.has_value());
	BOOST_TEST(c0.node_path == "/cpus/cpu-map/socket0/cluster0/cluster0/core0");

	const auto &c1 = position(p, 1);
	BOOST_TEST(c1.clusters == (std::vector<unsigned>{0, 0}));
	BOOST_TEST(c1.core == 1u);

	const auto &c2 = position(p, 2);
	BOOST_TEST(c2.socket == 0u);
	BOOST_TEST(c2.clusters == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(c2.core == 0u);
	BOOST_TEST(c2.node_path == "/cpus/cpu-map/socket0/cluster0/cluster1/core0");

	for (unsigned t = 0; t < 2; t++) {
		BOOST_TEST_CONTEXT("thread " << t) {
			const auto &pos = position(p, 3 + t);
			BOOST_TEST(pos.socket == 0u);
			BOOST_TEST(pos.clusters == std::vector<unsigned>{1});
			BOOST_TEST(pos.core == 0u);
			BOOST_TEST(pos.thread == t);
			BOOST_TEST(pos.node_path ==
				   "/cpus/cpu-map/socket0/cluster1/core0/thread" + std::to_string(t));
		}
	}

	const auto &c5 = position(p, 5);
	BOOST_TEST(c5.socket == 1u);
	BOOST_TEST(c5.clusters == std::vector<unsigned>{0});
	BOOST_TEST(c5.core == 0u);
	BOOST_TEST(c5.node_path == "/cpus/cpu-map/socket1/cluster0/core0");
}

// parse_socket/parse_cluster/parse_core probe index 0, 1, 2... and stop at
// the first absent one: core2 after a missing core1, cluster2 after a
// missing cluster1 and socket3 after a missing socket2 are never read.
BOOST_AUTO_TEST_CASE(first_missing_index_ends_the_walk)
{
	auto p = test::load(test::fixture("dts/cpu-map-nested.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 9u);
	for (unsigned i = 6; i < 9; i++)
		BOOST_TEST(!p.cpus[i].cpu_map.has_value(), "cpu " << i);

	auto facts = missing(p, "cpu-map position");
	BOOST_TEST_REQUIRE(facts.size() == 1u);
	BOOST_TEST(facts[0].cpus == (std::vector<unsigned>{6, 7, 8}));
}

BOOST_AUTO_TEST_SUITE_END() // cpu_map

BOOST_AUTO_TEST_SUITE(opp)

BOOST_AUTO_TEST_CASE(v2_table_entries)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	BOOST_TEST_REQUIRE(p.opp_tables.size() == 2u);
	const auto &little = table_of(p, 0);
	BOOST_TEST(little.node_path == "/opp-table-little");
	BOOST_TEST(little.binding == dts::OppBinding::v2);
	BOOST_TEST(little.shared);

	// Sorted by rate; 1.5 GHz is disabled, 1.7 GHz needs opp-supported-hw,
	// the second 600 MHz entry is a duplicate.
	BOOST_TEST(rates(little) == (std::vector<std::uint64_t>{300 * mhz, 600 * mhz, 1200 * mhz,
								  1400 * mhz}));
	BOOST_TEST(little.skipped_disabled == 1u);
	BOOST_TEST(little.skipped_supported_hw == 1u);

	const auto &o300 = little.opps[0];
	BOOST_TEST(o300.node_path == "/opp-table-little/opp-300000000");
	BOOST_TEST(o300.microvolt == std::vector<std::uint32_t>{700000});
	BOOST_TEST(o300.target_microvolt() == 700000u);
	BOOST_TEST(o300.suspend);
	BOOST_TEST(!o300.turbo);
	BOOST_TEST(o300.clock_latency_ns == std::uint64_t{40000});

	// The first entry of a rate wins (the OPP core refuses the second).
	const auto &o600 = little.opps[1];
	BOOST_TEST(o600.node_path == "/opp-table-little/opp-600000000");
	BOOST_TEST(o600.microvolt == std::vector<std::uint32_t>{750000});
	BOOST_TEST(!o600.suspend);
	BOOST_TEST(!o600.clock_latency_ns.has_value());

	// <target min max>
	const auto &o1200 = little.opps[2];
	BOOST_TEST(o1200.microvolt == (std::vector<std::uint32_t>{900000, 850000, 950000}));
	BOOST_TEST(o1200.target_microvolt() == 900000u);
	BOOST_TEST(!o1200.turbo);

	const auto &o1400 = little.opps[3];
	BOOST_TEST(o1400.turbo);
	BOOST_TEST(!o1400.suspend);
}

BOOST_AUTO_TEST_CASE(v2_first_clock_and_okay_status)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	const auto &big = table_of(p, 1);
	BOOST_TEST(big.node_path == "/opp-table-big");
	BOOST_TEST(!big.shared);
	// opp-hz lists two clocks: the CPU's is the first. status = "okay" is
	// available.
	BOOST_TEST(rates(big) == (std::vector<std::uint64_t>{500 * mhz, 2500 * mhz}));
	BOOST_TEST(big.opps[0].clock_latency_ns == std::uint64_t{5000});
	BOOST_TEST(big.skipped_disabled == 0u);
	BOOST_TEST(big.skipped_supported_hw == 0u);
	// One table node, read once, whichever CPU names it.
	BOOST_TEST(p.cpus[0].opp_table == p.cpus[2].opp_table);
	BOOST_TEST(p.cpus[1].opp_table == p.cpus[3].opp_table);
	BOOST_TEST(p.cpus[0].opp_table != p.cpus[1].opp_table);
}

BOOST_AUTO_TEST_CASE(shared_and_per_cpu_domains)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	BOOST_TEST_REQUIRE(p.frequency_domains.size() == 3u);
	const auto &little = p.frequency_domains[0];
	BOOST_TEST(little.cpus == (std::vector<unsigned>{0, 2}));
	BOOST_TEST(little.opp_table == p.cpus[0].opp_table);
	BOOST_TEST(little.why == "opp-shared");

	// Without opp-shared each CPU of the table is its own policy.
	for (unsigned d = 1; d < 3; d++) {
		BOOST_TEST_CONTEXT("domain " << d) {
			const auto &dom = p.frequency_domains[d];
			BOOST_TEST(dom.cpus == std::vector<unsigned>{d == 1 ? 1u : 3u});
			BOOST_TEST(dom.opp_table == p.cpus[1].opp_table);
			BOOST_TEST(dom.why == "one CPU (OPP table not opp-shared)");
		}
	}
}

BOOST_AUTO_TEST_CASE(legacy_operating_points)
{
	auto p = test::load(test::fixture("dts/opp-legacy.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 2u);

	const auto &t0 = table_of(p, 0);
	BOOST_TEST(t0.binding == dts::OppBinding::legacy);
	BOOST_TEST(t0.node_path == "/cpus/cpu@0");
	BOOST_TEST(!t0.shared);
	// kHz -> Hz, sorted.
	BOOST_TEST(rates(t0) == (std::vector<std::uint64_t>{200 * mhz, 500 * mhz, 1000 * mhz}));
	BOOST_TEST(t0.opps[0].microvolt == std::vector<std::uint32_t>{900000});
	BOOST_TEST(t0.opps[1].microvolt == std::vector<std::uint32_t>{950000});
	BOOST_TEST(t0.opps[2].microvolt == std::vector<std::uint32_t>{1100000});
	BOOST_TEST(t0.opps[0].node_path == "/cpus/cpu@0");
	BOOST_TEST(!t0.opps[0].clock_latency_ns.has_value());

	// Each CPU's own property is its own table...
	const auto &t1 = table_of(p, 1);
	BOOST_TEST(t1.node_path == "/cpus/cpu@1");
	BOOST_TEST(rates(t1) == (std::vector<std::uint64_t>{200 * mhz, 1000 * mhz}));

	// ...but cpufreq-dt puts every CPU in one policy.
	BOOST_TEST_REQUIRE(p.frequency_domains.size() == 1u);
	BOOST_TEST(p.frequency_domains[0].cpus == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(p.frequency_domains[0].opp_table == p.cpus[0].opp_table);
	BOOST_TEST(p.frequency_domains[0].why.starts_with("legacy operating-points"));

	// cpu@1 has no dynamic-power-coefficient but is not the policy CPU:
	// only the capacity is missing.
	BOOST_TEST_REQUIRE(p.missing.size() == 1u);
	BOOST_TEST(p.missing[0].what == "capacity-dmips-mhz");
	BOOST_TEST(p.missing[0].cpus == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(p.missing[0].where.starts_with("absent: the kernel treats the CPUs as symmetric"));
}

BOOST_AUTO_TEST_CASE(unusable_tables_are_missing_facts)
{
	auto p = test::load(test::fixture("dts/opp-incomplete.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 3u);

	const auto &fused = table_of(p, 0);
	BOOST_TEST(fused.opps.empty());
	BOOST_TEST(fused.skipped_supported_hw == 2u);
	const auto &off = table_of(p, 1);
	BOOST_TEST(off.opps.empty());
	BOOST_TEST(off.skipped_disabled == 1u);
	const auto &novolt = table_of(p, 2);
	BOOST_TEST_REQUIRE(novolt.opps.size() == 2u);
	BOOST_TEST(novolt.opps[0].microvolt.empty());
	BOOST_TEST(!novolt.opps[0].target_microvolt().has_value());
	BOOST_TEST(novolt.opps[1].target_microvolt() == 900000u);

	auto empty = missing(p, "CPU frequencies (empty OPP table)");
	BOOST_TEST_REQUIRE(empty.size() == 2u);
	BOOST_TEST(empty[0].cpus == std::vector<unsigned>{0});
	BOOST_TEST(contains(empty[0].where, "every entry of /opp-table-fused is gated by opp-supported-hw"));
	BOOST_TEST(empty[1].cpus == std::vector<unsigned>{1});
	BOOST_TEST(contains(empty[1].where, "/opp-table-off has no enabled entry"));

	auto volts = missing(p, "OPP voltages of /opp-table-novolt");
	BOOST_TEST_REQUIRE(volts.size() == 1u);
	BOOST_TEST(volts[0].cpus == std::vector<unsigned>{2});
	BOOST_TEST(contains(volts[0].where, "the DT gives no opp-microvolt"));

	BOOST_TEST(missing(p, "capacity-dmips-mhz").size() == 1u);
	BOOST_TEST(p.missing.size() == 4u);
}

BOOST_AUTO_TEST_SUITE_END() // opp

BOOST_AUTO_TEST_SUITE(idle)

BOOST_AUTO_TEST_CASE(cpu_idle_states)
{
	auto p = test::load(test::fixture("dts/cpus-big-little.dts"));
	BOOST_TEST_REQUIRE(p.idle_states.size() == 3u);

	// Each state node is read once, in order of first use.
	BOOST_TEST(p.cpus[0].idle_states == (std::vector<std::size_t>{0, 1}));
	BOOST_TEST(p.cpus[1].idle_states == (std::vector<std::size_t>{2, 0}));
	BOOST_TEST(p.cpus[2].idle_states == (std::vector<std::size_t>{0, 1}));
	BOOST_TEST(p.cpus[3].idle_states.empty());

	const auto &sleep = p.idle_states[0];
	BOOST_TEST(sleep.node_path == "/cpus/idle-states/cpu-sleep");
	BOOST_TEST(sleep.name == "cpu-sleep");
	BOOST_TEST(sleep.compatible == std::vector<std::string>{"arm,idle-state"});
	BOOST_TEST(sleep.entry_latency_us == 40u);
	BOOST_TEST(sleep.exit_latency_us == 100u);
	BOOST_TEST(sleep.min_residency_us == 150u);
	BOOST_TEST(!sleep.wakeup_latency_us.has_value());
	BOOST_TEST(sleep.local_timer_stop);

	const auto &cluster = p.idle_states[1];
	BOOST_TEST(cluster.name == "cluster-sleep");
	BOOST_TEST(cluster.entry_latency_us == 500u);
	BOOST_TEST(cluster.exit_latency_us == 1000u);
	BOOST_TEST(cluster.min_residency_us == 2500u);
	BOOST_TEST(cluster.wakeup_latency_us == 1400u);
	BOOST_TEST(cluster.local_timer_stop);

	// The name keeps the unit address, as cpuidle-arm's state name does.
	const auto &ret = p.idle_states[2];
	BOOST_TEST(ret.name == "cpu-retention@1");
	BOOST_TEST(ret.compatible == (std::vector<std::string>{"sh-test,retention", "arm,idle-state"}));
	BOOST_TEST(ret.entry_latency_us == 20u);
	BOOST_TEST(ret.exit_latency_us == 30u);
	BOOST_TEST(ret.min_residency_us == 50u);
	BOOST_TEST(!ret.local_timer_stop);
}

// The CPU's "psci" power domain, then its parents: CPU, cluster, system.
BOOST_AUTO_TEST_CASE(psci_domain_idle_states)
{
	auto p = test::load(test::fixture("dts/idle-psci.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 3u);
	BOOST_TEST_REQUIRE(p.idle_states.size() == 4u);
	const std::vector<std::size_t> hierarchy{0, 1, 2, 3};
	BOOST_TEST(p.cpus[0].idle_states == hierarchy);
	// "psci" is the second name: the second power-domains entry is used.
	BOOST_TEST(p.cpus[1].idle_states == hierarchy);
	// power-domains without power-domain-names = "psci": no states.
	BOOST_TEST(p.cpus[2].idle_states.empty());

	const std::array<std::string, 4> names{"cpu-power-down", "cluster-retention",
					       "cluster-power-down", "system-off"};
	for (std::size_t i = 0; i < 4; i++) {
		BOOST_TEST(p.idle_states[i].name == names[i]);
		BOOST_TEST(p.idle_states[i].node_path == "/cpus/domain-idle-states/" + names[i]);
		BOOST_TEST(p.idle_states[i].compatible == std::vector<std::string>{"domain-idle-state"});
	}
	BOOST_TEST(p.idle_states[0].entry_latency_us == 120u);
	BOOST_TEST(p.idle_states[0].exit_latency_us == 250u);
	BOOST_TEST(p.idle_states[0].min_residency_us == 900u);
	BOOST_TEST(!p.idle_states[0].local_timer_stop);
	BOOST_TEST(p.idle_states[2].wakeup_latency_us == 1700u);
	BOOST_TEST(p.idle_states[3].min_residency_us == 10000u);
	BOOST_TEST(!p.cpus[1].firmware_dvfs.has_value());

	// capacity-dmips-mhz on cpu 0 only: the kernel ignores it everywhere.
	auto facts = missing(p, "capacity-dmips-mhz");
	BOOST_TEST_REQUIRE(facts.size() == 1u);
	BOOST_TEST(facts[0].cpus == (std::vector<unsigned>{1, 2}));
	BOOST_TEST(facts[0].where.starts_with("the kernel needs it on every CPU"));
}

BOOST_AUTO_TEST_SUITE_END() // idle

BOOST_AUTO_TEST_SUITE(thermal)

BOOST_AUTO_TEST_CASE(zone_sensors_and_delays)
{
	auto p = test::load(test::fixture("dts/thermal.dts"));
	// spare-thermal is disabled and skipped.
	BOOST_TEST_REQUIRE(p.thermal_zones.size() == 2u);

	const auto &cpu = p.thermal_zones[0];
	BOOST_TEST(cpu.name == "cpu-thermal");
	BOOST_TEST(cpu.node_path == "/thermal-zones/cpu-thermal");
	BOOST_TEST(cpu.polling_delay_ms == 1000u);
	BOOST_TEST(cpu.polling_delay_passive_ms == 100u);
	BOOST_TEST(cpu.sustainable_power_mw == 2500u);
	BOOST_TEST_REQUIRE(cpu.sensors.size() == 1u);
	BOOST_TEST(cpu.sensors[0].node_path == "/thermal-sensor@1000");
	BOOST_TEST(cpu.sensors[0].args == std::vector<std::uint32_t>{3});

	const auto &cold = p.thermal_zones[1];
	BOOST_TEST(cold.name == "board-cold");
	BOOST_TEST(cold.polling_delay_ms == 5000u);
	BOOST_TEST(cold.polling_delay_passive_ms == 0u);
	BOOST_TEST(!cold.sustainable_power_mw.has_value());
	BOOST_TEST_REQUIRE(cold.sensors.size() == 2u);
	BOOST_TEST(cold.sensors[0].node_path == "/pmic-temp");
	BOOST_TEST(cold.sensors[0].args.empty());
	BOOST_TEST(cold.sensors[1].node_path == "/thermal-sensor@1000");
	BOOST_TEST(cold.sensors[1].args == std::vector<std::uint32_t>{9});
}

BOOST_AUTO_TEST_CASE(trips)
{
	auto p = test::load(test::fixture("dts/thermal.dts"));
	BOOST_TEST_REQUIRE(p.thermal_zones.size() == 2u);
	const auto &trips = p.thermal_zones[0].trips;
	BOOST_TEST_REQUIRE(trips.size() == 4u);

	BOOST_TEST(trips[0].name == "cpu-alert");
	BOOST_TEST(trips[0].node_path == "/thermal-zones/cpu-thermal/trips/cpu-alert");
	BOOST_TEST(trips[0].temperature_mc == 75000);
	BOOST_TEST(trips[0].hysteresis_mc == 2000u);
	BOOST_TEST(trips[0].type == dts::TripType::passive);

	BOOST_TEST(trips[1].name == "cpu-fan");
	BOOST_TEST(trips[1].temperature_mc == 65000);
	BOOST_TEST(trips[1].hysteresis_mc == 5000u);
	BOOST_TEST(trips[1].type == dts::TripType::active);

	BOOST_TEST(trips[2].name == "cpu-hot");
	BOOST_TEST(trips[2].temperature_mc == 95000);
	BOOST_TEST(trips[2].hysteresis_mc == 0u);
	BOOST_TEST(trips[2].type == dts::TripType::hot);

	BOOST_TEST(trips[3].name == "cpu-crit");
	BOOST_TEST(trips[3].temperature_mc == 105000);
	BOOST_TEST(trips[3].hysteresis_mc == 1000u);
	BOOST_TEST(trips[3].type == dts::TripType::critical);

	// A signed cell: -20 C.
	const auto &cold = p.thermal_zones[1].trips;
	BOOST_TEST_REQUIRE(cold.size() == 1u);
	BOOST_TEST(cold[0].temperature_mc == -20000);
	BOOST_TEST(cold[0].hysteresis_mc == 500u);
}

BOOST_AUTO_TEST_CASE(cooling_maps)
{
	auto p = test::load(test::fixture("dts/thermal.dts"));
	BOOST_TEST_REQUIRE(p.thermal_zones.size() == 2u);
	const auto &maps = p.thermal_zones[0].cooling_maps;
	BOOST_TEST_REQUIRE(maps.size() == 2u);

	const auto &m0 = maps[0];
	BOOST_TEST(m0.name == "map0");
	BOOST_TEST(m0.trip == std::size_t{0});
	BOOST_TEST(m0.contribution == 1024u);
	BOOST_TEST_REQUIRE(m0.devices.size() == 2u);
	// <&cpu0 THERMAL_NO_LIMIT THERMAL_NO_LIMIT>
	BOOST_TEST(m0.devices[0].node_path == "/cpus/cpu@0");
	BOOST_TEST(m0.devices[0].cpu == 0u);
	BOOST_TEST(!m0.devices[0].min_state.has_value());
	BOOST_TEST(!m0.devices[0].max_state.has_value());
	// <&cpu1 2 5>
	BOOST_TEST(m0.devices[1].node_path == "/cpus/cpu@1");
	BOOST_TEST(m0.devices[1].cpu == 1u);
	BOOST_TEST(m0.devices[1].min_state == 2u);
	BOOST_TEST(m0.devices[1].max_state == 5u);

	// <&fan 0 THERMAL_NO_LIMIT>: not a CPU, keeps its path.
	const auto &m1 = maps[1];
	BOOST_TEST(m1.name == "map1");
	BOOST_TEST(m1.trip == std::size_t{1});
	BOOST_TEST(!m1.contribution.has_value());
	BOOST_TEST_REQUIRE(m1.devices.size() == 1u);
	BOOST_TEST(m1.devices[0].node_path == "/fan");
	BOOST_TEST(!m1.devices[0].cpu.has_value());
	BOOST_TEST(m1.devices[0].min_state == 0u);
	BOOST_TEST(!m1.devices[0].max_state.has_value());

	// A map without trip.
	const auto &cold = p.thermal_zones[1].cooling_maps;
	BOOST_TEST_REQUIRE(cold.size() == 1u);
	BOOST_TEST(!cold[0].trip.has_value());
	BOOST_TEST_REQUIRE(cold[0].devices.size() == 1u);
	BOOST_TEST(cold[0].devices[0].cpu == 1u);
	BOOST_TEST(cold[0].devices[0].min_state == 0u);
	BOOST_TEST(cold[0].devices[0].max_state == 1u);
}

BOOST_AUTO_TEST_SUITE_END() // thermal

BOOST_AUTO_TEST_SUITE(firmware)

BOOST_AUTO_TEST_CASE(qcom_cpufreq_hw)
{
	auto p = test::load(test::fixture("dts/fw-qcom.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 3u);
	const std::array<std::uint32_t, 3> domain{0, 0, 1};
	for (unsigned i = 0; i < 3; i++) {
		BOOST_TEST_CONTEXT("cpu " << i) {
			const auto &fw = p.cpus[i].firmware_dvfs;
			BOOST_TEST_REQUIRE(fw.has_value());
			BOOST_TEST(fw->kind == "qcom-cpufreq-hw");
			BOOST_TEST(fw->provider_path == "/cpufreq@18591000");
			BOOST_TEST(fw->domain == domain[i]);
			BOOST_TEST(!p.cpus[i].opp_table.has_value());
		}
	}
	BOOST_TEST(p.opp_tables.empty());

	BOOST_TEST_REQUIRE(p.frequency_domains.size() == 2u);
	BOOST_TEST(p.frequency_domains[0].cpus == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(p.frequency_domains[0].why == "qcom-cpufreq-hw domain 0");
	BOOST_TEST(!p.frequency_domains[0].opp_table.has_value());
	BOOST_TEST(p.frequency_domains[1].cpus == std::vector<unsigned>{2});
	BOOST_TEST(p.frequency_domains[1].why == "qcom-cpufreq-hw domain 1");

	BOOST_TEST_REQUIRE(p.missing.size() == 2u);
	for (unsigned d = 0; d < 2; d++) {
		BOOST_TEST_CONTEXT("domain " << d) {
			const auto &fact = p.missing[d];
			BOOST_TEST(fact.what == no_opp);
			BOOST_TEST(fact.cpus == p.frequency_domains[d].cpus);
			BOOST_TEST(contains(fact.where, "qcom-cpufreq-hw reads them from the hardware"));
			BOOST_TEST(contains(fact.where, "(/cpufreq@18591000 domain " + std::to_string(d) + ")"));
			BOOST_TEST(fact.where.ends_with("give them with --overlay"));
		}
	}
}

BOOST_AUTO_TEST_CASE(scmi_perf_protocol)
{
	auto p = test::load(test::fixture("dts/fw-scmi.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 5u);
	// clocks = <&scmi_dvfs N> for cpus 0-2, power-domain-names = "perf"
	// for cpu 3.
	const std::array<std::uint32_t, 4> domain{0, 0, 1, 2};
	for (unsigned i = 0; i < 4; i++) {
		BOOST_TEST_CONTEXT("cpu " << i) {
			const auto &fw = p.cpus[i].firmware_dvfs;
			BOOST_TEST_REQUIRE(fw.has_value());
			BOOST_TEST(fw->kind == "scmi");
			BOOST_TEST(fw->provider_path == "/firmware/scmi/protocol@13");
			BOOST_TEST(fw->domain == domain[i]);
		}
	}
	// The SCMI clock protocol (protocol@14) is not a DVFS provider.
	BOOST_TEST(!p.cpus[4].firmware_dvfs.has_value());

	BOOST_TEST_REQUIRE(p.frequency_domains.size() == 4u);
	BOOST_TEST(p.frequency_domains[0].cpus == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(p.frequency_domains[0].why == "scmi domain 0");
	BOOST_TEST(p.frequency_domains[1].cpus == std::vector<unsigned>{2});
	BOOST_TEST(p.frequency_domains[1].why == "scmi domain 1");
	BOOST_TEST(p.frequency_domains[2].cpus == std::vector<unsigned>{3});
	BOOST_TEST(p.frequency_domains[2].why == "scmi domain 2");
	BOOST_TEST(p.frequency_domains[3].cpus == std::vector<unsigned>{4});
	BOOST_TEST(p.frequency_domains[3].why == "no OPP table");

	auto no_table = missing(p, no_opp);
	BOOST_TEST_REQUIRE(no_table.size() == 4u);
	BOOST_TEST(contains(no_table[0].where, "SCMI performance protocol reports them from firmware "
					       "(/firmware/scmi/protocol@13 domain 0)"));
	BOOST_TEST(contains(no_table[2].where, "(/firmware/scmi/protocol@13 domain 2)"));
	BOOST_TEST(no_table[3].cpus == std::vector<unsigned>{4});
	BOOST_TEST(no_table[3].where.starts_with("the DT has no operating-points-v2 or operating-points "
						 "and no firmware provider"));

	// Only SCMI CPUs lack the coefficient: the firmware gives power.
	auto power = missing(p, "dynamic-power-coefficient");
	BOOST_TEST_REQUIRE(power.size() == 1u);
	BOOST_TEST(power[0].cpus == (std::vector<unsigned>{0, 1, 2, 3}));
	BOOST_TEST(power[0].where == "the SCMI performance protocol reports power per OPP on the board");
	BOOST_TEST(p.missing.size() == 5u);
}

BOOST_AUTO_TEST_CASE(scpi_dvfs_clocks)
{
	auto p = test::load(test::fixture("dts/fw-scpi.dts"));
	BOOST_TEST_REQUIRE(p.cpus.size() == 3u);
	const std::array<std::uint32_t, 3> index{1, 1, 0};
	for (unsigned i = 0; i < 3; i++) {
		BOOST_TEST_CONTEXT("cpu " << i) {
			const auto &fw = p.cpus[i].firmware_dvfs;
			BOOST_TEST_REQUIRE(fw.has_value());
			BOOST_TEST(fw->kind == "scpi");
			BOOST_TEST(fw->provider_path == "/scpi/clocks/clocks-0");
			BOOST_TEST(fw->domain == index[i]);
		}
	}
	BOOST_TEST_REQUIRE(p.frequency_domains.size() == 2u);
	BOOST_TEST(p.frequency_domains[0].cpus == (std::vector<unsigned>{0, 1}));
	BOOST_TEST(p.frequency_domains[0].why == "scpi domain 1");
	BOOST_TEST(p.frequency_domains[1].cpus == std::vector<unsigned>{2});
	BOOST_TEST(p.frequency_domains[1].why == "scpi domain 0");

	auto no_table = missing(p, no_opp);
	BOOST_TEST_REQUIRE(no_table.size() == 2u);
	BOOST_TEST(contains(no_table[0].where, "SCPI firmware reports them through the DVFS clock "
					       "(/scpi/clocks/clocks-0 index 1)"));
	// SCPI gives no power numbers: without the coefficient, no EM.
	auto power = missing(p, "dynamic-power-coefficient");
	BOOST_TEST_REQUIRE(power.size() == 1u);
	BOOST_TEST(power[0].cpus == (std::vector<unsigned>{0, 1, 2}));
	BOOST_TEST(power[0].where.starts_with("without it no energy model is registered"));
	BOOST_TEST(p.missing.size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END() // firmware

BOOST_AUTO_TEST_SUITE(overlays)

BOOST_AUTO_TEST_CASE(dtso_supplies_the_opp_table)
{
	const auto overlay = test::fixture("dts/fw-qcom-opp.dtso");
	auto p = test::load(test::fixture("dts/fw-qcom.dts"), {overlay});
	BOOST_TEST(p.overlays == std::vector<std::string>{overlay.string()});
	check_qcom_with_opps(p);
	// The overlay adds the table, it does not replace the firmware.
	BOOST_TEST_REQUIRE(p.cpus[0].firmware_dvfs.has_value());
	BOOST_TEST(p.cpus[0].firmware_dvfs->kind == "qcom-cpufreq-hw");
}

BOOST_AUTO_TEST_CASE(compiled_dtbo)
{
	support::TempDir dir;
	const auto dtbo = compile(dir, test::fixture("dts/fw-qcom-opp.dtso"), "fw-qcom-opp.dtbo");
	auto p = test::load(test::fixture("dts/fw-qcom.dts"), {dtbo});
	BOOST_TEST(p.overlays == std::vector<std::string>{dtbo.string()});
	check_qcom_with_opps(p);
}

BOOST_AUTO_TEST_CASE(compiled_dtb_board)
{
	support::TempDir dir;
	const auto dtb = compile(dir, test::fixture("dts/fw-qcom.dts"), "fw-qcom.dtb");
	auto plain = test::load(dtb);
	BOOST_TEST(plain.source == dtb.string());
	BOOST_TEST(plain.model == "sh-test qcom-cpufreq-hw");
	BOOST_TEST(plain.cpus.size() == 3u);
	BOOST_TEST(plain.missing.size() == 2u);

	const auto dtbo = compile(dir, test::fixture("dts/fw-qcom-opp.dtso"), "fw-qcom-opp.dtbo");
	check_qcom_with_opps(test::load(dtb, {dtbo}));
	check_qcom_with_opps(test::load(dtb, {test::fixture("dts/fw-qcom-opp.dtso")}));
}

BOOST_AUTO_TEST_SUITE_END() // overlays

BOOST_AUTO_TEST_SUITE_END() // properties
