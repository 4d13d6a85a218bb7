// SPDX-License-Identifier: GPL-2.0
#include "harness/suite/metrics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

namespace sh::suite {

namespace {

std::optional<double> number(const rapidjson::Value &v)
{
	if (v.IsNumber())
		return v.GetDouble();
	return std::nullopt;
}

// A board some of whose CPUs have no energy model has no energy to compare:
// the sum over the others would read as a saving.
bool energy_complete(const rapidjson::Document &r)
{
	return !r.HasMember("energy_complete") || r["energy_complete"].GetBool();
}

std::optional<double> energy(const rapidjson::Document &r, const char *key)
{
	if (!energy_complete(r))
		return std::nullopt;
	return r.HasMember(key) ? number(r[key]) : std::nullopt;
}

std::optional<double> latency(const rapidjson::Document &r, const char *percentile)
{
	const auto &l = r["wakeup_latency_ns"];
	if (!l["count"].GetUint64())
		return std::nullopt;
	return l[percentile].GetDouble() / 1e3;
}

// Summed over the CPUs: capacity the board took away, time-averaged.
std::optional<double> over_cpus(const rapidjson::Document &r, const char *key)
{
	double sum = 0;
	for (const auto &c : r["cpus"].GetArray())
		sum += c[key].GetDouble();
	return sum;
}

// Part of the board's energy, summed over the frequency domains (the run
// report's per-domain split).
std::optional<double> over_domains(const rapidjson::Document &r, const char *key)
{
	if (!energy_complete(r))
		return std::nullopt;
	double sum = 0;
	for (const auto &d : r["domains"].GetArray()) {
		if (!d.HasMember(key))
			return std::nullopt;
		sum += d[key].GetDouble();
	}
	return sum;
}

// Kernel code per event (run report's kernel_time.per_event).
std::optional<double> kernel_per_event(const rapidjson::Document &r, const char *event)
{
	if (!r.HasMember("kernel_time"))
		return std::nullopt;
	const auto &per = r["kernel_time"]["per_event"];
	if (!per.HasMember(event))
		return std::nullopt;
	return number(per[event]["blocks"]);
}

constexpr const char *no_energy_model = "CPUs without an energy model";
constexpr const char *no_wakeups = "no wake-ups";

const Metric metrics[] = {
	{"energy_j", "J", "board energy (busy power of the OPPs x busy time, idle and static power)",
	 [](const rapidjson::Document &r) { return energy(r, "energy_j"); }, true, false, no_energy_model},
	{"em_energy_j", "J", "the energy model's estimate (busy time x its power: what EAS optimises)",
	 [](const rapidjson::Document &r) { return energy(r, "em_energy_j"); }, true, false, no_energy_model},
	{"dynamic_energy_j", "J", "board energy of busy CPUs and active clusters (docs/power.md)",
	 [](const rapidjson::Document &r) { return over_domains(r, "dynamic_energy_j"); }, false, false, no_energy_model},
	{"static_energy_j", "J", "board energy of leakage while powered (docs/power.md)",
	 [](const rapidjson::Document &r) { return over_domains(r, "static_energy_j"); }, false, false, no_energy_model},
	{"idle_energy_j", "J", "board energy of idle CPUs and idle clusters (docs/power.md)",
	 [](const rapidjson::Document &r) { return over_domains(r, "idle_energy_j"); }, false, false, no_energy_model},
	{"completion_s", "s", "when the last task of a finite workload exited",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 if (!r["completion_ns"].IsNumber())
			 return std::nullopt;
		 return r["completion_ns"].GetDouble() / 1e9;
	 },
	 true, false, nullptr},
	{"throughput", "x CPU", "work done per second, in seconds of the calibration CPU",
	 [](const rapidjson::Document &r) { return number(r["throughput"]); }, true, false, nullptr},
	{"latency_p50_us", "us", "wake-up latency (wake-up to running), median",
	 [](const rapidjson::Document &r) { return latency(r, "p50"); }, true, false, no_wakeups},
	{"latency_p90_us", "us", "wake-up latency, 90th percentile",
	 [](const rapidjson::Document &r) { return latency(r, "p90"); }, false, false, no_wakeups},
	{"latency_p99_us", "us", "wake-up latency, 99th percentile",
	 [](const rapidjson::Document &r) { return latency(r, "p99"); }, true, false, no_wakeups},
	{"latency_max_us", "us", "wake-up latency, maximum",
	 [](const rapidjson::Document &r) { return latency(r, "max"); }, false, false, no_wakeups},
	{"migrations", "", "tasks moved between CPUs",
	 [](const rapidjson::Document &r) { return number(r["migrations"]); }, true, false, nullptr},
	{"context_switches", "", "context switches",
	 [](const rapidjson::Document &r) { return number(r["context_switches"]); }, true, false, nullptr},
	{"wakeups", "", "task wake-ups", [](const rapidjson::Document &r) { return number(r["wakeups"]); }, false,
	 false, nullptr},
	{"ticks", "", "scheduler ticks taken (idle CPUs stop theirs)",
	 [](const rapidjson::Document &r) { return number(r["ticks"]); }, false, false, nullptr},
	{"kernel_blocks_per_wakeup", "blocks",
	 "kernel code per wake-up: basic blocks of the tree's code in try_to_wake_up() on the waker's CPU",
	 [](const rapidjson::Document &r) { return kernel_per_event(r, "wakeup"); }, true, false, no_wakeups},
	{"kernel_blocks_per_tick", "blocks", "kernel code per tick (hrtimers and the scheduler's tick)",
	 [](const rapidjson::Document &r) { return kernel_per_event(r, "tick"); }, true, false, "no ticks"},
	{"kernel_blocks_per_switch", "blocks",
	 "kernel code in schedule() per context switch (newidle balancing included)",
	 [](const rapidjson::Document &r) { return kernel_per_event(r, "context_switch"); }, true, false,
	 "no context switches"},
	{"kernel_blocks_per_balance", "blocks", "kernel code per load balance (SCHED_SOFTIRQ run)",
	 [](const rapidjson::Document &r) { return kernel_per_event(r, "balance"); }, true, false,
	 "no load balancing softirq"},
	{"kernel_time_percent", "%", "share of the CPUs' time spent in kernel code",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 if (!r.HasMember("kernel_time"))
			 return std::nullopt;
		 const double cpu_ns = r["simulated_ns"].GetDouble() * r["cpus"].Size();
		 return cpu_ns > 0 ? 100.0 * r["kernel_time"]["ns"].GetDouble() / cpu_ns : 0.0;
	 },
	 true, false, nullptr},
	{"overutilized_percent", "%", "share of the time the root domain was overutilized (EAS off)",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 const double simulated = r["simulated_ns"].GetDouble();
		 return simulated > 0 ? 100.0 * r["overutilized_ns"].GetDouble() / simulated : 0.0;
	 },
	 true, false, nullptr},
	{"thermal_pressure_avg", "capacity",
	 "capacity taken by thermal capping (arch_scale_thermal_pressure()), time-averaged, summed over CPUs",
	 [](const rapidjson::Document &r) { return over_cpus(r, "thermal_pressure_avg"); }, true, true, nullptr},
	{"thermal_load_avg", "capacity",
	 "its PELT average, the scheduler's view (rq->avg_thermal.load_avg), time-averaged, summed over CPUs",
	 [](const rapidjson::Document &r) { return over_cpus(r, "thermal_load_avg"); }, true, true, nullptr},
};

struct Renamed {
	const char *old_name, *name;
};
constexpr Renamed renamed[] = {
	{"energy", "energy_j"},
	{"energy model estimate", "em_energy_j"},
	{"completion time", "completion_s"},
	{"wake-up latency p50", "latency_p50_us"},
	{"wake-up latency p99", "latency_p99_us"},
	{"context switches", "context_switches"},
	{"overutilized", "overutilized_percent"},
};

} // namespace

std::span<const Metric> run_metrics()
{
	return metrics;
}

const Metric *find_metric(std::string_view name)
{
	const auto it = std::find_if(std::begin(metrics), std::end(metrics),
				     [&](const Metric &m) { return name == m.name; });
	return it == std::end(metrics) ? nullptr : &*it;
}

std::optional<std::string_view> renamed_metric(std::string_view old_name)
{
	for (const auto &r : renamed)
		if (old_name == r.old_name)
			return r.name;
	return std::nullopt;
}

std::string run_metric_names()
{
	std::vector<std::string_view> names;
	for (const auto &m : metrics)
		names.emplace_back(m.name);
	return fmt::format("{}", fmt::join(names, ", "));
}

} // namespace sh::suite
