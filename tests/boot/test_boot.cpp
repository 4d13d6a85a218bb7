// SPDX-License-Identifier: GPL-2.0
//
// Boards booted through the kernel's own code: capacities from
// arch_topology.c, the energy model from energy_model.c, thermal pressure
// through topology_update_thermal_pressure(). Kernel globals live once per
// process, so CTest runs every case in a process of its own
// (tests/boot/CMakeLists.txt registers one test per case).
#include "kernel_support.h"
#include "print_values.h"
#include "support.h"
#include "tree_features.h"

#include "kernel-shim/kernel.h"

#include <kshim/api.h>

#include <boost/test/unit_test.hpp>
#include <fstream>

using namespace sh;


BOOST_AUTO_TEST_SUITE(boot)

// Expected values worked out by hand from exynos5422-cpus.dtsi and
// exynos5800.dtsi: cpu_scale = 539 * 1400 MHz / (1024 * 2000 MHz) * 1024
// = 377; power = coefficient * mV^2 * MHz / 10^6 uW (e.g. A7 at 200 MHz,
// 900 mV: 90 * 810000 * 200 / 10^6 = 14580), in milliwatts before 5.19
// (_get_power() divides by 10^9: 14). The cost is the tree's
// (test::em_cost_per_performance()): fmax * power / f before 6.9 (A7 at
// 200 MHz: 7 x 14580 = 102060; 7 x 14 = 98 in milliwatts, which 5.10's
// em_scale_power() multiplies by 1000 on 64-bit, test::em_cost_scaled_on_64bit():
// 98000 here, since the arm flavour is compiled with CONFIG_64BIT=y,
// docs/architecture.md's "`64BIT` on for the arm flavour"; a 32-bit arm
// 5.10 kernel holds 98); from 6.9 10 * power / performance, performance
// being cpu_scale * f / fmax (145800 / 53 = 2750).
BOOST_AUTO_TEST_CASE(odroid_xu3_capacities_and_energy_model)
{
	auto k = kshim::boot(test::load_board("odroid-xu3"));
	BOOST_REQUIRE(k.cpus.size() == 8u);
	for (const auto &cpu : k.cpus)
		BOOST_TEST(cpu.capacity == (cpu.id < 4 ? 377u : 1024u), "cpu" << cpu.id);

	BOOST_REQUIRE(k.perf_domains.size() == 2u);
	const auto &little = test::perf_domain_of(k, 0);
	BOOST_TEST(little.cpus == (std::vector<unsigned>{0, 1, 2, 3}));
	BOOST_TEST((little.unit == (test::em_in_microwatts() ? kshim::PowerUnit::microwatts
							      : kshim::PowerUnit::milliwatts)));
	BOOST_REQUIRE(little.states.size() == 13u);
	BOOST_TEST(little.states.front().frequency_khz == 200000u);
	// 90 * 900^2 * 200 / 10^6 uW, 14.58 mW
	BOOST_TEST(little.states.front().power == (test::em_in_microwatts() ? 14580u : 14u));
	const bool uw = test::em_in_microwatts();
	const unsigned cost_scale = test::em_cost_scaled_on_64bit() ? 1000u : 1u;
	BOOST_TEST(little.states.front().cost ==
		   (test::em_cost_per_performance() ? 2750u : uw ? 102060u : 98u * cost_scale));
	// same cost as 300 MHz: marked where the tree marks inefficient OPPs
	BOOST_TEST(little.states.front().inefficient == test::em_inefficient_opps());
	BOOST_TEST(little.states.back().frequency_khz == 1400000u);
	BOOST_TEST(little.states.back().power == (uw ? 204828u : 204u));	// 90 * 1275^2 * 1400 / 10^6
	BOOST_TEST(!little.states.back().inefficient);

	const auto &big = test::perf_domain_of(k, 7);
	BOOST_REQUIRE(big.states.size() == 19u);
	BOOST_TEST(big.states.back().power == (uw ? 1067233u : 1067u));	// 310 * 1312^2 * 2000 / 10^6
	// at fmax the cost is the (scaled) power; from 6.9 10672330 / 1024
	BOOST_TEST(big.states.back().cost ==
		   (test::em_cost_per_performance() ? 10422u : uw ? 1067233u : 1067u * cost_scale));
	BOOST_TEST(big.states[6].frequency_khz == 800000u);
	BOOST_TEST(big.states[6].power == (uw ? 200880u : 200u));	// 310 * 900^2 * 800 / 10^6
	BOOST_TEST(k.eas);
	BOOST_TEST(kshim::kernel_warnings().empty());
#if !SH_KERNEL_SCHEDULER
	// init_cpu_capacity_callback() queued update_topology_flags_work once
	// every policy was seen; boot drained it, and it asked for a rebuild.
	BOOST_TEST(kshim_sched_domain_rebuilds() == 1u);
#endif
}

// Odroid-XU3 is a 32-bit arm board: arch/arm/kernel/topology.c's
// store_cpu_topology() reads each CPU's MPIDR (the DT's reg, with the
// multiprocessor-format bit): no MT bit, so Aff0 is the core and Aff1 the
// package. exynos5422-cpus.dtsi: the A7s (CPUs 0-3) are 0x100-0x103, the
// A15s (4-7) 0x0-0x3. The cpu-map is not read (no cluster ids).
BOOST_AUTO_TEST_CASE(odroid_xu3_topology_from_mpidr)
{
	auto k = kshim::boot(test::load_board("odroid-xu3"));
	BOOST_REQUIRE(k.cpus.size() == 8u);
	for (const auto &cpu : k.cpus) {
		BOOST_TEST_CONTEXT("cpu" << cpu.id)
		{
			BOOST_TEST(cpu.package_id == (cpu.id < 4 ? 1 : 0));
			BOOST_TEST(cpu.core_id == static_cast<int>(cpu.id % 4));
			BOOST_TEST(cpu.thread_id == -1);
			BOOST_TEST(cpu.cluster_id == -1);
		}
	}
	BOOST_TEST(kshim::kernel_warnings().empty());
}

// r8a7790 (Lager): Cortex-A15 capacity-dmips-mhz 1024, Cortex-A7 539
// (r8a7790.dtsi), no OPP tables: arm's parse_dt_topology() normalises the
// dmips/MHz as soon as every CPU has the property, and without a cpufreq
// policy no frequency factor follows: 1024 and 539. (Booted as arm64,
// where arch_topology.c wants a cpu-map, every CPU stayed at 1024.)
#if SH_KERNEL_SCHEDULER
// The OPP library adds the supply's ramp to the clock's latency
// (dev_pm_opp_get_max_transition_latency()): the s2mps11 bucks ramp at
// their driver's 25 mV/us (the DT gives no regulator-ramp-delay), over
// 0.9-1.275 V on the A7s (15 us) and 0.9-1.5 V on the A15s (24 us), after
// clock-latency-ns' 140 us. The rate limit is min(latency x 1000, 10 ms)
// before 6.9 (5.10, 6.1), 1.5 x the latency after
// (test::transition_delay_latency_and_a_half()).
BOOST_AUTO_TEST_CASE(odroid_xu3_transition_latency_has_the_voltage_ramp)
{
	auto k = kshim::boot(test::load_board("odroid-xu3"));
	BOOST_REQUIRE(k.cpufreq_policies.size() == 2u);
	const auto &little = k.cpufreq_policies[0], &big = k.cpufreq_policies[1];
	BOOST_TEST(little.cpus.front() == 0u);
	BOOST_TEST(little.clock_latency_ns == 140000u);
	BOOST_TEST(little.voltage_latency_ns == 15000u);
	BOOST_TEST(little.transition_latency_ns == 155000u);
	BOOST_TEST(big.voltage_latency_ns == 24000u);
	BOOST_TEST(big.transition_latency_ns == 164000u);
	const bool capped = !test::transition_delay_latency_and_a_half();
	// min(latency x 1000, 10 ms), or latency + latency / 2. cpufreq-dt
	// has no governor per policy, so schedutil's tunables are the first
	// policy's (the A7s'): the A15s' own 246 us is not the one in use.
	BOOST_TEST(!big.governor_per_policy);
	BOOST_TEST(big.policy_rate_limit_us == (capped ? 10000u : 246u));
	BOOST_TEST(big.rate_limit_us == (capped ? 10000u : 232u));
	BOOST_TEST(little.rate_limit_us == (capped ? 10000u : 232u));
}
#endif

BOOST_AUTO_TEST_CASE(r8a7790_capacities_from_arm_parse_dt_topology)
{
	auto dts = test::kernel_tree() / "arch/arm/boot/dts/r8a7790-lager.dts";
	if (!std::filesystem::exists(dts))
		dts = test::kernel_tree() / "arch/arm/boot/dts/renesas/r8a7790-lager.dts";	// 6.5+
	auto k = kshim::boot(test::load_board(dts.string()));
	BOOST_REQUIRE(k.cpus.size() == 8u);
	for (const auto &cpu : k.cpus)
		BOOST_TEST(cpu.capacity == (cpu.id < 4 ? 1024u : 539u), "cpu" << cpu.id);
}

// A board boots only in the flavour of its architecture: the other build
// refuses it, naming the flavour it needs (the CLI then runs the other
// binary).
BOOST_AUTO_TEST_CASE(a_board_of_the_other_flavour_is_refused)
{
	const bool arm = kshim::build_info().flavour == "arm";
	try {
		kshim::boot(test::load_board(arm ? "hikey960" : "odroid-xu3"));
		BOOST_FAIL("booted a board of the other flavour");
	} catch (const kshim::WrongFlavour &e) {
		BOOST_TEST(e.needed == (arm ? "arm64" : "arm"));
		BOOST_TEST(std::string(e.what()).find("flavour") != std::string::npos, e.what());
	}
}

// hi3660.dtsi: 592 * 1844 MHz / (1024 * 2362 MHz) * 1024 = 462.
BOOST_AUTO_TEST_CASE(hikey960_capacities)
{
	auto k = kshim::boot(test::load_board("hikey960"));
	BOOST_TEST(k.cpus[0].capacity == 462u);
	BOOST_TEST(k.cpus[4].capacity == 1024u);
	BOOST_TEST(k.perf_domains.size() == 2u);
	BOOST_TEST(k.eas);
}

// turbo-mode OPPs are boost frequencies: while boost is off (cpufreq-dt
// supports it, nothing enables it) freq_table.c leaves them out of
// cpuinfo.max_freq, and arch_topology.c normalises capacities by that
// maximum. r8a7795's A57s (capacity-dmips-mhz 1024) reach 1.5 GHz, with
// 1.6 and 1.7 GHz as turbo; its A53s (535) 1.2 GHz: A53 capacity =
// 535 * 1200 / 1500 = 428. Counting the turbo OPPs would give
// 535 * 1200 / 1700 = 377. (6.12's r8a77951.dtsi keeps only 1.7 GHz as
// turbo: 535 * 1200 / 1600 = 401; 5.10's is 6.1's:
// test::r8a77951_a57_max_khz().)
BOOST_AUTO_TEST_CASE(turbo_opps_are_left_out_of_max_freq)
{
	const auto dts = test::kernel_tree() / "arch/arm64/boot/dts/renesas/r8a77951-salvator-x.dts";
	auto k = kshim::boot(test::load_board(dts.string()));
	BOOST_REQUIRE(k.cpus.size() == 8u);
	BOOST_TEST(k.cpus[0].capacity == 1024u);
	BOOST_TEST(k.cpus[4].capacity == 535u * 1200000u / test::r8a77951_a57_max_khz());	// 428 or 401
}

BOOST_AUTO_TEST_CASE(thermal_pressure_goes_through_the_kernel)
{
	auto k = kshim::boot(test::load_board("odroid-xu3"));
	const std::vector<unsigned> big{4, 5, 6, 7};
	kshim::update_thermal_pressure(big, 1000000);	// capped at half of 2 GHz
	auto capped = kshim::snapshot();
	BOOST_TEST(capped.cpus[4].thermal_pressure == 512u);
	BOOST_TEST(capped.cpus[7].thermal_pressure == 512u);
	BOOST_TEST(capped.cpus[0].thermal_pressure == 0u);
	kshim::update_thermal_pressure(big, 2000000);	// cap lifted
	BOOST_TEST(kshim::snapshot().cpus[4].thermal_pressure == 0u);

	// arch_topology.c's own tracepoint saw both updates: one event per
	// call, naming the first CPU of the mask (TP_PROTO(cpu, pressure)).
	// (6.9 renamed it hw_pressure_update; 5.10 has none, and none is traced)
	const char *event = test::pressure_tracepoint();
	if (!event) {
		for (const auto &ev : kshim::trace_events())
			BOOST_TEST((ev.name != "thermal_pressure_update" && ev.name != "hw_pressure_update"), ev.name);
		return;
	}
	std::vector<std::vector<long long>> seen;
	for (const auto &ev : kshim::trace_events())
		if (ev.name == event)
			seen.push_back(ev.args);
	BOOST_REQUIRE(seen.size() == 2u);
	BOOST_TEST(seen[0] == (std::vector<long long>{4, 512}));
	BOOST_TEST(seen[1] == (std::vector<long long>{4, 0}));
}

BOOST_AUTO_TEST_CASE(symmetric_board_has_no_eas)
{
	auto k = kshim::boot(test::load_board("hikey"));
	for (const auto &cpu : k.cpus)
		BOOST_TEST(cpu.capacity == 1024u);
	BOOST_TEST(!k.eas);
	// With the scheduler, build_perf_domains() says it for the root domain.
	// build_perf_domains()'s words; 6.10 added "Checking EAS, "
	const std::string rd = test::eas_checks_say_why() ? "rd 0-7: Checking EAS, " : "rd 0-7: ";
	BOOST_TEST(k.eas_reason == (SH_KERNEL_SCHEDULER ? rd + "CPUs do not have asymmetric capacities"
							: "CPUs do not have asymmetric capacities"));
}

BOOST_AUTO_TEST_CASE(board_without_coefficient_has_no_energy_model)
{
	auto k = kshim::boot(test::load(test::fixture("kernel/no-coefficient.dts")));
	BOOST_TEST(k.perf_domains.empty());
	BOOST_TEST(k.cpus[0].capacity == 256u);		// 512 * 1000 / (1024 * 2000) * 1024
	BOOST_TEST(k.cpus[2].capacity == 1024u);
	BOOST_TEST(!k.eas);
	// pd_init()'s words with the scheduler; the board's reason added.
	const std::string kernel_words = SH_KERNEL_SCHEDULER ? "pd_init: no EM found for CPU0" : "no EM found for CPU0";
	BOOST_TEST(k.eas_reason.find(kernel_words) == 0u, k.eas_reason);
	BOOST_TEST(k.eas_reason.find("dynamic-power-coefficient") != std::string::npos);
}

// dev_pm_opp_of_register_em() takes opp-microwatt first (_get_dt_power()):
// the same board as no-coefficient.dts, with the OPPs' power in the DT.
// 5.10's reads the coefficient alone (test::em_from_opp_microwatt()): no
// energy model, for no-coefficient.dts's reason.
BOOST_AUTO_TEST_CASE(opp_microwatt_gives_the_energy_model)
{
	auto k = kshim::boot(test::load(test::fixture("kernel/opp-microwatt.dts")));
	if (!test::em_from_opp_microwatt()) {
		BOOST_TEST(k.perf_domains.empty());
		BOOST_TEST(!k.eas);
		BOOST_TEST(k.eas_reason.find("pd_init: no EM found for CPU0") == 0u, k.eas_reason);
		BOOST_TEST(k.eas_reason.find("dynamic-power-coefficient") != std::string::npos, k.eas_reason);
		return;
	}
	BOOST_REQUIRE(k.perf_domains.size() == 2u);
	const auto &little = test::perf_domain_of(k, 0);
	BOOST_REQUIRE(little.states.size() == 2u);
	BOOST_TEST(little.states[0].power == 60000u);
	BOOST_TEST(little.states[1].power == 150000u);
	const auto &big = test::perf_domain_of(k, 2);
	BOOST_REQUIRE(big.states.size() == 2u);
	BOOST_TEST(big.states[1].power == 1200000u);
	BOOST_TEST(k.eas);
}

BOOST_AUTO_TEST_CASE(firmware_board_without_opps_has_no_energy_model)
{
	auto k = kshim::boot(test::load_board("juno"));
	BOOST_TEST(k.perf_domains.empty());
	// Without cpufreq the kernel keeps freq_factor = 1: capacities are the
	// normalised dmips/MHz alone (A57 1024, A53 578).
	BOOST_TEST(k.cpus[0].capacity == 1024u);
	BOOST_TEST(k.cpus[2].capacity == 578u);
	// 5.10's and 6.1's build_perf_domains() stop silently at a CPU without
	// a policy (the harness says why). 6.12's sched_is_eas_possible() checks
	// frequency invariance first: with no cpufreq driver registered,
	// cpufreq.c's cpufreq_supports_freq_invariance() is false (the glue's
	// stand-in said true before the cpufreq core was compiled).
	const char *reason = !SH_KERNEL_SCHEDULER ? "no EM found for CPU0"
			     : !test::eas_checks_say_why()
				     ? "CPU0 has no cpufreq policy"
				     : "rd 0-5: Checking EAS: frequency-invariant load tracking not yet supported";
	BOOST_TEST(k.eas_reason.find(reason) == 0u, k.eas_reason);
}

// 5.10 and 6.1 take capacity-dmips-mhz = 0 as it is. From 6.9 the EM
// divides by the CPU's performance in em_compute_costs()
// (test::em_cost_per_performance()), which is 0 there: the kernel oopses,
// and sched-harness says so (in a process of its own: the CLI).
BOOST_AUTO_TEST_CASE(zero_capacity_is_taken_as_the_kernel_takes_it)
{
	if (test::em_cost_per_performance()) {
		auto r = test::run_cli({"platform", "show", test::fixture("kernel/zero-capacity.dts").string()});
		BOOST_TEST(r.exit_status == 3);
		BOOST_TEST(r.out.empty());
		BOOST_TEST(r.err.find("kernel fault: Oops: divide error") != std::string::npos, r.err);
		BOOST_TEST(r.err.find("em_compute_costs") != std::string::npos, r.err);
		return;
	}
	auto k = kshim::boot(test::load(test::fixture("kernel/zero-capacity.dts")));
	BOOST_TEST(k.cpus[0].capacity == 0u);
	BOOST_TEST(k.cpus[2].capacity == 1024u);
	auto shown = test::run_cli({"platform", "show", test::fixture("kernel/zero-capacity.dts").string()});
	BOOST_TEST(shown.exit_status == 0);
	BOOST_TEST(shown.out.find("CPUs 0-1 have cpu_scale 0") != std::string::npos);
	// A run cannot: the board executes a CPU's work at its capacity, so
	// CPU0 would never finish any (it ran the tasks forked there forever,
	// and as the calibration CPU made every run amount 0)
	auto run = test::run_cli({"run", "--board", test::fixture("kernel/zero-capacity.dts").string(), "--duration",
				  "10ms"});
	BOOST_TEST(run.exit_status == 2, run.err);
	BOOST_TEST(run.err.find("zero-capacity.dts: CPU0 (/cpus/cpu@0) has capacity 0 in the kernel "
				"(capacity-dmips-mhz = <0>); the board runs a CPU's work at its capacity") !=
			   std::string::npos,
		   run.err);
}

#if SH_KERNEL_SCHEDULER
// The frequency path is the tree's (cpufreq.c, cpufreq-dt.c, drivers/opp):
// a CPU whose OPPs give no clock-latency-ns gets cpufreq-dt's default of
// that tree: 5.10 and 6.1 CPUFREQ_ETERNAL, which
// cpufreq_policy_transition_delay_us() turns into 10 ms; 6.12 1 ms
// (CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS), so 1.5 ms. Before, the glue gave 6.12 CPUFREQ_ETERNAL too: a ~6.4 s rate
// limit, under which schedutil never changed frequency.
BOOST_AUTO_TEST_CASE(a_cpu_without_clock_latency_gets_its_trees_default)
{
	auto k = kshim::boot(test::load_board(test::fixture("kernel/no-coefficient.dts").string()));
	BOOST_REQUIRE(k.cpufreq_policies.size() == 2u);
	const bool eternal = !test::cpufreq_dt_default_latency_1ms();
	for (const auto &p : k.cpufreq_policies) {
		BOOST_TEST(p.driver == "cpufreq-dt");
		BOOST_TEST(p.clock_latency_ns == 0u);
		BOOST_TEST(p.eternal == eternal);
		BOOST_TEST(p.transition_latency_ns == (eternal ? 0u : 1000000u));
		// min(~4.3 s x 1000, 10 ms), or 1 ms + 0.5 ms
		BOOST_TEST(p.rate_limit_us == (test::transition_delay_latency_and_a_half() ? 1500u : 10000u));
		BOOST_TEST(!p.governor_per_policy);
		BOOST_TEST(!p.fast_switch);
	}
}

// qcom-cpufreq-hw (firmware domains, glue/cpufreq_soc.c's stand-in with
// the driver's flags): a governor per policy, fast switching, no latency
// (the driver sets none: LATENCY_MULTIPLIER's 1 ms on 6.1, the 1 ms
// default on 6.12).
BOOST_AUTO_TEST_CASE(firmware_domains_have_a_governor_per_policy)
{
	auto k = kshim::boot(test::load_board("db845c"));
	BOOST_REQUIRE(k.cpufreq_policies.size() == 2u);
	for (const auto &p : k.cpufreq_policies) {
		BOOST_TEST(p.driver == "qcom-cpufreq-hw");
		BOOST_TEST(p.governor_per_policy);
		BOOST_TEST(p.fast_switch);
		BOOST_TEST(p.transition_latency_ns == 0u);
		BOOST_TEST(p.rate_limit_us == 1000u);
	}
	BOOST_TEST(k.cpufreq_policies[0].cpus == (std::vector<unsigned>{0, 1, 2, 3}));
	BOOST_TEST(k.cpufreq_policies[1].cpus == (std::vector<unsigned>{4, 5, 6, 7}));
}
#endif

BOOST_AUTO_TEST_CASE(second_boot_in_one_process_is_refused)
{
	auto board = test::load_board("hikey960");
	kshim::boot(board);
	BOOST_CHECK_THROW(kshim::boot(board), kshim::KernelFault);
}

// Every file kernel info lists is byte-identical to the tree's: sha256sum
// (coreutils) is the independent check.
BOOST_AUTO_TEST_CASE(compiled_files_match_the_tree)
{
	auto info = kshim::build_info();
	BOOST_TEST(info.tree == test::kernel_tree().string());
	BOOST_TEST(info.files.size() >= 5u);
	auto shown = test::run_cli({"--arch", info.flavour, "kernel", "info"});
	BOOST_TEST(shown.out.find("Flavour      " + info.flavour) != std::string::npos, shown.out);
	BOOST_TEST(shown.exit_status == 0);
	for (const auto &file : info.files) {
		BOOST_TEST_CONTEXT(file.path)
		{
			auto sum = support::run_tool(std::vector<std::string>{
				"sha256sum", (test::kernel_tree() / file.path).string()});
			BOOST_REQUIRE(sum.ok());
			BOOST_TEST(sum.out.substr(0, 64) == file.sha256);
			BOOST_TEST(shown.out.find(file.sha256 + "  " + file.path) != std::string::npos);
		}
	}
	std::vector<std::string> required{"kernel/sched/pelt.c", "kernel/power/energy_model.c",
					  "drivers/base/arch_topology.c", "drivers/cpufreq/freq_table.c"};
	if (info.flavour == "arm")
		required.push_back("arch/arm/kernel/topology.c");
	for (const auto &required : required)
		BOOST_TEST(std::any_of(info.files.begin(), info.files.end(),
				       [&](const auto &f) { return f.path == required; }),
			   required);
}

BOOST_AUTO_TEST_SUITE_END()
