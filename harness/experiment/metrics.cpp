// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/metrics.h"

namespace sh::experiment {

namespace {

std::optional<double> number(const rapidjson::Value &v)
{
	if (v.IsNumber())
		return v.GetDouble();
	return std::nullopt;
}

const Metric metrics[] = {
	{"energy", "J", [](const rapidjson::Document &r) { return number(r["energy_j"]); }},
	{"energy model estimate", "J",
	 [](const rapidjson::Document &r) { return r.HasMember("em_energy_j") ? number(r["em_energy_j"]) : std::nullopt; }},
	{"completion time", "s",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 if (!r["completion_ns"].IsNumber())
			 return std::nullopt;
		 return r["completion_ns"].GetDouble() / 1e9;
	 }},
	{"throughput", "x CPU", [](const rapidjson::Document &r) { return number(r["throughput"]); }},
	{"wake-up latency p50", "us",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 return r["wakeup_latency_ns"]["p50"].GetDouble() / 1e3;
	 }},
	{"wake-up latency p99", "us",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 return r["wakeup_latency_ns"]["p99"].GetDouble() / 1e3;
	 }},
	{"migrations", "", [](const rapidjson::Document &r) { return number(r["migrations"]); }},
	{"context switches", "", [](const rapidjson::Document &r) { return number(r["context_switches"]); }},
	{"overutilized", "%",
	 [](const rapidjson::Document &r) -> std::optional<double> {
		 const double simulated = r["simulated_ns"].GetDouble();
		 return simulated > 0 ? 100.0 * r["overutilized_ns"].GetDouble() / simulated : 0.0;
	 }},
};

} // namespace

std::span<const Metric> run_metrics()
{
	return metrics;
}

} // namespace sh::experiment
