// SPDX-License-Identifier: GPL-2.0
//
// The board's power, apart from the kernel's energy model: what a board's
// power rails would measure, where the energy model (the DT's
// dynamic-power-coefficient: dynamic power only) is what EAS optimises.
// Per frequency domain (a cluster): each CPU's busy power at each OPP
// (default: the energy model's), the cluster's static (leakage) power
// while it is powered, at each OPP or one figure, each CPU's power in each
// idle state, and the idle states that power the cluster off once all its
// CPUs are in them. No DT property describes the last three: they default
// to 0 and none, and a board power file gives them (docs/power.md).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sh::sim {

struct PowerModel {
	struct Domain {
		std::vector<unsigned> cpus;		// a frequency domain's, exactly
		std::map<unsigned, double> dynamic_mw;	// kHz -> a busy CPU's mW
		std::map<unsigned, double> static_mw;	// kHz -> the powered cluster's mW
		std::optional<double> static_all_mw;	// at every OPP
		std::map<std::string, double> idle_mw;	// idle state name -> an idle CPU's mW
		std::vector<std::string> cluster_off;	// states that power the cluster off
	};
	std::string source;			// where the numbers come from
	std::vector<Domain> domains;
	// A package power budget (mW; none: unlimited): the hardware (as
	// turbo limits do) holds every CPU at or below the highest frequency
	// at which the active frequency domains' power — a busy CPU's power
	// at that OPP plus the domain's static power — fits in it. A domain
	// is active while one of its CPUs runs a task.
	std::optional<double> package_budget_mw;
	// SMT: the speed of a busy thread (0 < s <= 1) when k threads of its
	// core are busy, index k - 1 (the last for more); empty: threads do
	// not slow each other.
	std::vector<double> smt_speed;
};

// A bad board power file: the message names the file and the member.
struct PowerModelError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Reads a board power file (JSON, comments and trailing commas allowed):
//   {"source": "...", "domains": [{"cpus": "0-3", "dynamic_mw": {"200000": 10.5, ...},
//     "static_mw": 45 | {"200000": 20, ...}, "idle_mw": {"WFI": 8, "cpu-sleep": 0.5},
//     "cluster_off": ["cluster-sleep"]}],
//    "package_budget_mw": 10000, "smt_speed": [1, 0.6, 0.45, 0.36]}
PowerModel load_power_model(const std::filesystem::path &file);

} // namespace sh::sim
