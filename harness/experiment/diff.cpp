// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/diff.h"

#include <fstream>

namespace sh::experiment {

std::vector<std::string> decisions(const std::filesystem::path &trace)
{
	std::ifstream in(trace);
	std::vector<std::string> events;
	for (std::string line; std::getline(in, line);) {
		if (line.starts_with("#"))
			continue;
		for (const char *name : {": sched_switch: ", ": sched_wakeup: ", ": sched_wakeup_new: ",
					 ": sched_migrate_task: ", ": cpu_frequency: "}) {
			if (line.find(name) != std::string::npos) {
				events.push_back(line);
				break;
			}
		}
	}
	return events;
}

std::size_t first_difference(std::span<const std::string> a, std::span<const std::string> b)
{
	std::size_t i = 0;
	while (i < a.size() && i < b.size() && a[i] == b[i])
		i++;
	return i;
}

std::vector<MetricPair> compared_metrics(const rapidjson::Document &a, const rapidjson::Document &b)
{
	auto pair = [&](const char *name, const char *member, const char *unit) {
		return MetricPair{name, a[member].GetDouble(), b[member].GetDouble(), unit};
	};
	return {pair("energy", "energy_j", "J"), pair("migrations", "migrations", ""),
		pair("context switches", "context_switches", ""),
		{"wake-up latency p99", a["wakeup_latency_ns"]["p99"].GetDouble() / 1e3,
		 b["wakeup_latency_ns"]["p99"].GetDouble() / 1e3, "us"},
		pair("throughput", "throughput", "x CPU")};
}

} // namespace sh::experiment
