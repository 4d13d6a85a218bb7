// SPDX-License-Identifier: GPL-2.0
//
// What differs between the trees the suite runs on (5.10, 6.1, 6.12, 7.3),
// each named once with the release that brought it (DESIGN.md, "Four
// trees, one glue, legible"): a test reads the feature, never a series
// number, so a fifth tree needs no test edited, only a boundary checked.
//
// Each boundary is the upstream release that made the change, with its
// commit's subject where known. Where the release could not be pinned
// from the trees here (Debian's 5.10.262, 6.1.192, 6.12.118 and 7.3.4:
// source, no history), the boundary is bracketed as the compat headers
// bracket theirs ("in 6.12.118, not in 6.1.192") and placed at the release
// named, which a tree between the two brackets would have to confirm.
#pragma once

#include <string>
#include <string_view>

namespace sh::test {

// The build's tree is release major.minor or later.
bool tree_at_least(int major, int minor);

// ---- The energy model (kernel/power/energy_model.c) ----

// The energy model's power is in microwatts (5.19: "PM: EM: convert
// power field to micro-Watts precision and align drivers"), in milliwatts
// before.
inline bool em_in_microwatts() { return tree_at_least(5, 19); }
// Inefficient OPPs are marked and skipped (5.16, "PM: EM: Mark inefficient
// states": EM_PERF_STATE_INEFFICIENT). 5.10's em_create_perf_table() only
// dev_dbg()s "EM: OPP:%lu is inefficient".
inline bool em_inefficient_opps() { return tree_at_least(5, 16); }
// A state's cost is 10 * power / performance, performance being
// cpu_scale * f / fmax (em_compute_costs(); 6.9, "PM: EM: Optimize
// em_cpu_energy() and remove division"; bracketed: in 6.12.118, not in
// 6.1.192). Before, fmax * power / f, with 5.10's power scaled by
// em_scale_power() (x 1000 on 64-bit, as is on 32-bit arm).
inline bool em_cost_per_performance() { return tree_at_least(6, 9); }
// Before 5.19, energy_model.h's em_scale_power() multiplies the power in
// each state's cost by 1000 on CONFIG_64BIT kernels only (7fcc17d0cb12,
// "PM: EM: Increase energy calculation precision", upstream 5.11, in
// Debian's 5.10.262 as a stable backport); the microwatt EM (5.19) removed
// it (absent from 6.1.192). The harness compiles every flavour, arm too,
// with CONFIG_64BIT=y (docs/architecture.md, "`64BIT` on for the arm
// flavour"), so its 5.10 kernel holds odroid-xu3's costs x 1000 (98000,
// not the 98 a 32-bit arm kernel holds). Placed at 5.10, the oldest tree
// here: a tree before 5.11 without the backport would not scale.
inline bool em_cost_scaled_on_64bit() { return !tree_at_least(5, 19); }
// build_perf_domains() refuses an energy model whose
// nr_pd * (nr_ps + nr_cpus) exceeds EM_MAX_COMPLEXITY, 2048, with a WARN
// until 6.10 ("sched/topology: Remove EM_MAX_COMPLEXITY limit"; bracketed:
// in 5.10.262 and 6.1.192, not in 6.12.118).
inline bool em_complexity_limit() { return !tree_at_least(6, 10); }
// dev_pm_opp_of_register_em() takes the OPPs' opp-microwatt before the
// dynamic-power-coefficient (_get_dt_power(); bracketed: in 6.1.192, not in
// 5.10.262, whose drivers/opp/of.c reads the coefficient alone; placed at
// 5.19 with the microwatt EM).
inline bool em_from_opp_microwatt() { return tree_at_least(5, 19); }

// ---- Sched domains and the root domain (kernel/sched/topology.c) ----

// The level above MC: "PKG" (6.7, "sched/topology: Rename 'DIE' domain to
// 'PKG'"; bracketed: in 6.12.118, not in 6.1.192), "DIE" before.
inline const char *package_level_name() { return tree_at_least(6, 7) ? "PKG" : "DIE"; }
// The flag of a level whose CPUs share the last-level cache: SD_SHARE_LLC
// (6.10, "sched/topology: Rename SD_SHARE_PKG_RESOURCES to SD_SHARE_LLC";
// bracketed: in 6.12.118, not in 6.1.192), SD_SHARE_PKG_RESOURCES before.
inline const char *llc_flag_name() { return tree_at_least(6, 10) ? "SD_SHARE_LLC" : "SD_SHARE_PKG_RESOURCES"; }
// sched_is_eas_possible() says why EAS is off, "rd 0-7: Checking EAS, ..."
// for every reason, a frequency-invariance check first (6.10; bracketed:
// in 6.12.118, not in 6.1.192). Before, build_perf_domains() says
// "rd 0-7: CPUs do not have asymmetric capacities" (under sched_debug)
// and stops silently at a CPU without a policy (5.10.262 and 6.1.192
// alike; 5.10's has no frequency-invariance check at all).
inline bool eas_checks_say_why() { return tree_at_least(6, 10); }
// The root domain's overutilized flag moves only while EAS is on:
// set_rd_overutilized_status() and check_update_overutilized_status() ask
// sched_energy_enabled() first (upstream 6.10, "sched/fair: Add EAS checks
// before updating root_domain::overutilized"; 6.1.192 has it as a stable
// backport, 5.10.262 not: bracketed, placed at 6.1). Before, fair.c's
// update_overutilized_status() and update_sd_lb_stats() raise and clear it
// with EAS off too.
inline bool overutilized_only_with_eas() { return tree_at_least(6, 1); }
// The boot parameter that makes the scheduler say what it builds:
// sched_verbose from 5.13 (commit 9406415f46f6, "sched/debug: Rename the
// sched_debug parameter to sched_verbose"), sched_debug before (the
// harness adds it to every command line).
inline const char *sched_verbose_parameter() { return tree_at_least(5, 13) ? "sched_verbose" : "sched_debug"; }

// kernel/sched/topology.c defines EAS's sysctl static, registering its
// own table for it (the energy_aware sysctl moved out of kernel/sysctl.c;
// bracketed: in 6.1.192, not in 5.10.262; placed at 6.1). 5.10's is
// global, declared in linux/sched/sysctl.h for kernel/sysctl.c's table.
// Both default to 1 in topology.c: sched_energy_aware_definition(1) is the
// tree's line, whole.
inline bool energy_aware_sysctl_static() { return tree_at_least(6, 1); }
inline std::string sched_energy_aware_definition(unsigned value)
{
	return std::string(energy_aware_sysctl_static() ? "static " : "") +
	       "unsigned int sysctl_sched_energy_aware = " + std::to_string(value) + ";";
}

// ---- The fair class (kernel/sched/fair.c, features.h) ----

// EEVDF replaced CFS's wakeup_gran() preemption (6.6, "sched/fair:
// Implement an EEVDF-like scheduling policy"): a woken task waits for the
// current one's slice; DELAY_DEQUEUE, PLACE_LAG, RUN_TO_PARITY exist
// (DELAY_DEQUEUE: 6.12). Before, features.h starts with
// GENTLE_FAIR_SLEEPERS.
inline bool eevdf() { return tree_at_least(6, 6); }

// On odroid-xu3's default scenario (24 periodic tasks) the sleepers of a
// CPU wake in one interrupt and EAS stacks the tasks it sends to remote
// wake lists (TTWU_QUEUE), which keeps the root domain overutilized ~30 %
// of the time, so that most wake-ups skip feec(). A result, not a named
// upstream change: seen in 6.12.118 and 7.3.4, not in 6.1.192 or 5.10.262
// (EAS takes ~99 % of the wake-ups there); placed at 6.12, the newer
// bracket, until a tree between says where it starts.
inline bool eas_wakeups_stack_on_remote_lists() { return tree_at_least(6, 12); }

// ---- Thermal and hardware pressure ----

// The cpufreq cooling device sets the thermal pressure itself
// (arch_set_thermal_pressure(cpus, max_capacity - capacity) on 5.10,
// arch_update_thermal_pressure(cpus, frequency) on 6.1), which the
// scheduler averages with PELT into rq->avg_thermal (5.7, "thermal/
// cpu-cooling: Update thermal pressure in case of a maximum frequency
// capping"). From 6.9 ("thermal/cpufreq: Remove
// arch_update_thermal_pressure()", "cpufreq: Add a cpufreq pressure
// feedback for the scheduler") the policy limit itself is the pressure
// (cpufreq_get_pressure(), not averaged) and the averaged signal is the
// hardware pressure, which the cooling device leaves alone.
inline bool pressure_from_cooling_device() { return !tree_at_least(6, 9); }
// The cpufreq pressure: cpufreq_update_pressure() on every policy limit
// change (6.9, "cpufreq: Add a cpufreq pressure feedback for the
// scheduler").
inline bool cpufreq_pressure() { return tree_at_least(6, 9); }
// The tracepoint arch_topology.c traces a CPU's pressure with:
// hw_pressure_update from 6.9 ("sched/topology: Rename
// arch_update_thermal_pressure into arch_update_hw_pressure"),
// thermal_pressure_update before (bracketed: in 6.1.192, not in
// 5.10.262; placed at 5.19, as "arch_topology: Trace the update thermal
// pressure" is remembered), none before that (nullptr): 5.10's
// arch_topology.c traces no pressure.
inline const char *pressure_tracepoint()
{
	return tree_at_least(6, 9) ? "hw_pressure_update" : tree_at_least(5, 19) ? "thermal_pressure_update" : nullptr;
}
// sched_thermal_decay_shift= shifts the clock of the thermal PELT
// average (5.7, "sched/fair: Enable tuning of decay period"); from 6.9
// ("sched/pelt: Remove shift of thermal clock") fair.c only says it
// ignores the option.
inline bool thermal_decay_shift() { return tree_at_least(5, 7) && !tree_at_least(6, 9); }
// thermal_zone_device_register() disables a trip at 0 m°C as bogus
// (trips_disabled; 5.10.262 and 6.1.192 alike). 6.12's thermal core keeps
// it (bracketed: in 6.1.192, not in 6.12.118; placed at 6.7, within the
// thermal core's trips rework).
inline bool trips_at_zero_disabled() { return !tree_at_least(6, 7); }
// cpufreq_cooling.c names a policy's cooling device after its first CPU's
// device, "cpufreq-cpu4" (bracketed: in 6.1.192, not in 5.10.262; placed
// at 5.13, "thermal/drivers/cpufreq_cooling: Use device name instead of
// auto-numbering" as remembered); before, "thermal-cpufreq-<n>", n its
// registration order (an IDA: policy0's 0, policy4's 1 on hikey960).
inline std::string cpufreq_cooling_device_name(unsigned first_cpu, unsigned registered)
{
	return tree_at_least(5, 13) ? "cpufreq-cpu" + std::to_string(first_cpu)
				    : "thermal-cpufreq-" + std::to_string(registered);
}

// ---- cpufreq (drivers/cpufreq/cpufreq.c, cpufreq-dt.c) ----

// cpufreq_policy_transition_delay_us(): latency + latency / 2 ("Give a
// 50% breathing room"), 1 ms without a latency (bracketed: in 6.12.118,
// not in 6.1.192; placed at 6.9). Before, min(latency x
// LATENCY_MULTIPLIER (1000), 10 ms), LATENCY_MULTIPLIER us without one
// (5.10.262 as 6.1.192).
inline bool transition_delay_latency_and_a_half() { return tree_at_least(6, 9); }
// cpufreq-dt's latency for OPPs without clock-latency-ns:
// CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS, 1 ms (bracketed: in 6.12.118,
// not in 6.1.192; placed at 6.9 with the delay above); CPUFREQ_ETERNAL
// before (5.10.262 as 6.1.192).
inline bool cpufreq_dt_default_latency_1ms() { return tree_at_least(6, 9); }

// drivers/base/arch_topology.c reads socket nodes in /cpu-map
// ("arch_topology: Add support for parsing sockets in /cpu-map", merged for
// 6.0; in 6.1.192, not in 5.10.262). Before, a cpu-map whose children are
// not clusters is not understood ("cpu-map children should be
// clusters"): the topology comes from the MPIDR, and a synthetic server's
// SMT threads (socket0/cluster0/coreN/threadM) are not threads to it.
inline bool cpu_map_sockets() { return tree_at_least(6, 1); }

// ---- Device trees (facts of the tree's arch/arm{,64}/boot/dts) ----

// exynos5422-odroidxu3-common.dtsi's CPU zones poll every 250 ms while
// passive in 5.10.262 and 6.1.192; 0 in 6.12.118 and 7.3.4 (the sensor's
// alarm alone; bracketed).
inline unsigned odroid_xu3_passive_polling_ms() { return tree_at_least(6, 12) ? 0u : 250u; }
// r8a77951.dtsi's A57s have 1.6 and 1.7 GHz as turbo-mode OPPs in 5.10.262
// and 6.1.192, only 1.7 GHz in 6.12.118 (bracketed): cpuinfo.max_freq is
// 1.5 GHz, then 1.6 GHz. (Both DT facts placed at 6.12, the newer
// bracket.)
inline unsigned r8a77951_a57_max_khz() { return tree_at_least(6, 12) ? 1600000u : 1500000u; }
// hi3660.dtsi's node names as dt-schema wants them (bracketed: in 6.1.192,
// not in 5.10.262; placed at 6.1): its thermal zone cls0-thermal with trips
// trip-point0/1, its OPP tables /opp-table-0/1; 5.10's are cls0,
// trip-point@0/@1 and /opp_table0/1. The labels (cls0, threshold, target,
// cluster0_opp) are the same in every tree.
inline bool hi3660_schema_node_names() { return tree_at_least(6, 1); }
inline std::string hikey960_zone() { return hi3660_schema_node_names() ? "cls0-thermal" : "cls0"; }
inline std::string hikey960_trip(int i)
{
	return (hi3660_schema_node_names() ? "trip-point" : "trip-point@") + std::to_string(i);
}
// exynos5422-cpus.dtsi has a cpu-map (two clusters of four cores) in
// 6.1.192; 5.10.262's has none (bracketed; placed at 6.1). arm's
// topology.c reads the MPIDR either way.
inline bool odroid_xu3_cpu_map() { return tree_at_least(6, 1); }
inline std::string hikey960_little_opp_table() { return hi3660_schema_node_names() ? "/opp-table-0" : "/opp_table0"; }
// arch/arm64/boot/dts/arm/ has the Juno's SCMI variants, juno-scmi.dtsi
// and juno{,-r1,-r2}-scmi.dts (bracketed: in 6.1.192, not in 5.10.262,
// whose Junos are SCPI's alone and which has no arm,scmi board at all;
// placed at 6.1). dts/boards.cpp's juno-r2-scmi names one.
inline bool juno_scmi_variants() { return tree_at_least(6, 1); }
// Whether the build's tree has the file of a short name of dts/boards.cpp:
// every one but juno-r2-scmi on every tree, that one with the variants.
inline bool board_in_tree(std::string_view short_name)
{
	return short_name != "juno-r2-scmi" || juno_scmi_variants();
}

} // namespace sh::test
