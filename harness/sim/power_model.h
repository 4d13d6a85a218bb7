// SPDX-License-Identifier: GPL-2.0
//
// The board's power, apart from the kernel's energy model: what a board's
// power rails would measure, where the energy model (the DT's
// dynamic-power-coefficient: dynamic power only) is what EAS optimises.
// Per frequency domain (a cluster): each CPU's busy power at each OPP
// (default: the energy model's), the leakage of the cluster and of each
// powered core (per OPP, or c x V^3 at the DT's voltages, optionally x a
// polynomial of a thermal zone's temperature), the cluster's own power
// active and idle, each CPU's power in each idle state, and the idle
// states that power a core or the cluster off. No DT property describes
// these: a board power file gives them, and the files shipped for boards
// with published figures (board-power/, docs/power.md) are used by default.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::sim {

// A figure of a frequency domain that may follow its OPP: one value for
// every OPP, a value per OPP (kHz), or c x V^3 at each OPP's voltage (the
// DT's opp-microvolt, in volts): a leakage that scales with the cube of
// the voltage, as Arm's scpi-thermal model has it.
struct OppFigure {
	std::optional<double> all_mw;
	std::map<unsigned, double> per_khz_mw;
	std::optional<double> per_volt_cubed_mw;
	bool empty() const { return !all_mw && per_khz_mw.empty() && !per_volt_cubed_mw; }
};

// A hardware latency the kernel's code waits for (docs/kernel-time.md):
// a figure published for the board's SoC and the source that gives it, or
// none (charged 0, printed "unsourced", `source` saying what was looked
// for). No DT property describes these but each idle state's
// exit-latency-us: a board power file gives them (docs/power.md).
struct HardwareLatency {
	std::optional<std::int64_t> ns;
	std::string source;
};

// IPI delivery (sender's clock to the target's handler), interrupt entry
// (arrival to handler) and WFI exit (an idle CPU's wake-up from the
// architectural idle state).
struct HardwareLatencies {
	HardwareLatency ipi, irq_entry, wfi_exit;
};

struct PowerModel {
	struct Domain {
		std::vector<unsigned> cpus;		// a frequency domain's, exactly
		std::map<unsigned, double> dynamic_mw;	// kHz -> a busy CPU's mW
		OppFigure static_mw;			// the powered cluster's leakage
		OppFigure core_static_mw;		// each powered core's leakage
		// The static figures x sum(polynomial[i] x T^i), T the zone's
		// temperature in C (the thermal model's; 25 C without it); the
		// zone is the first of `zones` the board has (a zone's name may
		// change between kernel versions: juno's "soc" is "soc-thermal"
		// in 6.12).
		struct TemperatureScale {
			std::vector<std::string> zones;
			std::vector<double> polynomial;
		};
		std::optional<TemperatureScale> temperature;
		OppFigure cluster_mw;			// the cluster's own power while a CPU is busy
		std::map<std::string, double> idle_mw;	// idle state name -> an idle CPU's mW
		// idle state -> the cluster's own power while all its CPUs are
		// idle, the shallowest in that state
		std::map<std::string, double> cluster_idle_mw;
		std::vector<std::string> cluster_off;	// states that power the cluster off
		std::vector<std::string> core_off;	// states that power a core off
	};
	std::string source;			// where the numbers come from
	// The boards the file is for (their DT's compatible strings): a
	// shipped file is used by default on them.
	std::vector<std::string> compatible;
	// The legacy sched-energy tables' "bogo" units: every figure of the
	// file is in units in which CPU `cpu` busy at `khz` (0: its highest
	// OPP) costs `busy_cost`; the board converts them to mW through the
	// kernel's energy model at that OPP.
	struct BogoUnits {
		unsigned cpu = 0;
		unsigned khz = 0;
		double busy_cost = 0;
	};
	std::optional<BogoUnits> bogo_units;
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
	// The board's hardware latencies; none: the file says nothing of them.
	std::optional<HardwareLatencies> latencies;
};

// A power model as a board applied it, in mW (the file's units converted):
// what `platform show` prints, and what the comparison against published
// measurements reads (scripts/board-power/compare-measured.py).
struct BoardPowerFigures {
	struct Domain {
		std::vector<unsigned> cpus;
		std::map<unsigned, double> dynamic_mw;		// kHz -> a busy CPU's; empty: the energy model's
		std::map<unsigned, double> static_mw;		// kHz -> the cluster's leakage (scale 1)
		std::map<unsigned, double> core_static_mw;	// kHz -> a core's leakage (scale 1)
		std::map<unsigned, double> cluster_mw;		// kHz -> the active cluster's own power
		std::vector<std::pair<std::string, double>> idle_mw;	// by idle state, the default path first
		std::vector<std::pair<std::string, double>> cluster_idle_mw;
		std::vector<std::string> cluster_off, core_off;
		std::string temperature_zone;			// "": the leakage does not follow temperature
		std::vector<double> temperature_polynomial;
	};
	std::string file, source;
	std::optional<double> unit_mw;	// one bogo unit
	std::vector<Domain> domains;
};

// A bad board power file: the message names the file and the member.
struct PowerModelError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Reads a board power file (JSON, comments and trailing commas allowed;
// docs/power.md):
//   {"source": "...", "compatible": ["vendor,board"],
//    "bogo_units": {"cpu": 4, "khz": 2362000, "busy_cost": 2848},
//    "domains": [{"cpus": "0-3", "dynamic_mw": {"200000": 10.5, ...},
//     "static_mw": 45 | {"200000": 20, ...} | {"per_volt_cubed": 88},
//     "core_static_mw": (the same), "temperature_scale": {"zone": "soc",
//     "polynomial": [0.032, 0.0047, -8e-05, 2e-06]},
//     "cluster_mw": (the same), "idle_mw": {"WFI": 8, "cpu-sleep": 0.5},
//     "cluster_idle_mw": {"WFI": 40}, "cluster_off": ["cluster-sleep"],
//     "core_off": ["cpu-sleep", "cluster-sleep"]}],
//    "package_budget_mw": 10000, "smt_speed": [1, 0.6, 0.45, 0.36],
//    "latencies": {"ipi": {"us": 1.5, "source": "..."},
//     "irq_entry": {"unsourced": "what was searched"}, "wfi_exit": ...}}
PowerModel load_power_model(const std::filesystem::path &file);
// The same from text; `name` names it in messages.
PowerModel parse_power_model(std::string_view text, const std::string &name);

// The board power files shipped with sched-harness (harness/sim/board-power/,
// compiled in): each file's name and text.
struct ShippedPowerModel {
	std::string_view name;
	std::string_view text;
};
std::span<const ShippedPowerModel> shipped_power_models();
// The shipped file for a board, by its compatible strings (the most
// specific first): the first of them a file names. nullopt: none.
std::optional<std::pair<std::string, PowerModel>> shipped_power_model_for(std::span<const std::string> compatible);

} // namespace sh::sim
